// The definitions of Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D,
// AvgPool3D, MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad (shape functions as
// TensorFlow's Conv3DShape, Pool3DShape and the nn_ops.cc lambdas) and their builders. The CPU
// kernels are in kernels/src/conv3d_ops.cpp, the gradients in ops/src/gradients/conv3d_grad.cpp.
#include "actorflow/ops/conv3d_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;

using Index = std::int64_t;
using detail::check_op_def_type;
using detail::with_rank;

// The NodeDef check of a padding attr: SAME or VALID.
Status check_padding(const InferenceContext& c, std::string* padding) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", padding));
  if (*padding != "SAME" && *padding != "VALID")
    return invalid_argument("Value for attr 'padding' of \"" + *padding +
                            "\" is not in the list of allowed values: \"SAME\", \"VALID\"");
  return {};
}

// GetWindowedOutputSizeFromDimsV2: one output dimension (-1 when `in` or `filter` is unknown).
Status windowed_dim(Index in, Index filter, Index dilation, Index stride,
                    const std::string& padding, Index* out) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1)
    return invalid_argument("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  *out = -1;
  if (in < 0) return {};
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    return {};
  }
  if (filter < 0) return {};
  const Index effective = (filter - 1) * dilation + 1;
  if (in < effective)
    return invalid_argument("Negative dimension size caused by subtracting " +
                            std::to_string(effective) + " from " + std::to_string(in));
  *out = (in - effective + stride) / stride;
  return {};
}

// Conv3DShape.
Status infer_conv3d(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "filter", c.input_types[1],
                                                         "input", c.input_types[0]));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& f = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 5));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(f, 5));
  std::vector<std::int64_t> dilations{1, 1, 1, 1, 1}, strides;
  c.get_attr("dilations", &dilations);
  if (dilations.size() != 5)
    return invalid_argument(
        "Conv3D requires the dilation attribute to contain 5 values, but got: " +
        std::to_string(dilations.size()));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 5)
    return invalid_argument("Conv3D requires the stride attribute to contain 5 values, but got: " +
                            std::to_string(strides.size()));
  std::string format = "NDHWC";
  c.get_attr("data_format", &format);
  const bool ncdhw = format == "NCDHW";
  // In NDHWC order. As TensorFlow's Conv3DShape, the dilations of rows and columns are read
  // the other way round (the column dilation from the rows' position); the CPU kernels take
  // dilation 1 only.
  const Index batch = dim_of(in, 0);
  const Index planes = dim_of(in, ncdhw ? 2 : 1), rows = dim_of(in, ncdhw ? 3 : 2),
              cols = dim_of(in, ncdhw ? 4 : 3), depth = dim_of(in, ncdhw ? 1 : 4);
  const std::size_t o = ncdhw ? 2 : 1;
  const Index filter_depth = dim_of(f, 3), out_depth = dim_of(f, 4);
  if (depth >= 0 && filter_depth > 0) {
    if (depth % filter_depth != 0)
      return invalid_argument("Depth of input (" + std::to_string(depth) +
                              ") is not a multiple of input depth of filter (" +
                              std::to_string(filter_depth) + ")");
    const Index groups = depth / filter_depth;
    if (depth != filter_depth && out_depth >= 0 && out_depth % groups != 0)
      return invalid_argument("Depth of output (" + std::to_string(out_depth) +
                              ") is not a multiple of the number of groups (" +
                              std::to_string(groups) + ")");
  }
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_padding(c, &padding));
  Index out_planes = -1, out_rows = -1, out_cols = -1;
  ACTORFLOW_RETURN_IF_ERROR(
      windowed_dim(planes, dim_of(f, 0), dilations[o], strides[o], padding, &out_planes));
  ACTORFLOW_RETURN_IF_ERROR(
      windowed_dim(rows, dim_of(f, 1), dilations[o + 2], strides[o + 1], padding, &out_rows));
  ACTORFLOW_RETURN_IF_ERROR(
      windowed_dim(cols, dim_of(f, 2), dilations[o + 1], strides[o + 2], padding, &out_cols));
  c.add_output(c.input_types[0],
               ncdhw ? PartialShape{batch, out_depth, out_planes, out_rows, out_cols}
                     : PartialShape{batch, out_planes, out_rows, out_cols, out_depth});
  return {};
}

// Conv3DBackpropInputV2 / Conv3DBackpropFilterV2: the rank-5 shape their sizes input names.
Status infer_conv3d_backprop(InferenceContext& c, int sizes, int typed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  const auto s = static_cast<std::size_t>(sizes);
  if (sizes == 0) {
    ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[s], "Tshape"));
  } else if (c.input_types[s] != DType::int32) {
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "filter_sizes",
                                                               c.input_types[s], DType::int32));
  }
  const DType t = c.input_types[static_cast<std::size_t>(typed)];
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op, "T"));
  if (c.input_types[2] != t)
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "out_backprop", c.input_types[2], sizes == 0 ? "filter" : "input", t));
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_padding(c, &padding));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, sizes, &shape));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(shape, 5));
  c.add_output(t, shape.rank_known() ? shape : PartialShape::unknown_of_rank(5));
  return {};
}

// Pool3DShape of input 0: the pooled shape in the data format's order.
Status pool3d_shape(const InferenceContext& c, PartialShape* pooled) {
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 5));
  std::vector<std::int64_t> strides, ksize;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 5)
    return invalid_argument(
        "Pool3D ops require the stride attribute to contain 5 values, but got: " +
        std::to_string(strides.size()));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &ksize));
  if (ksize.size() != 5)
    return invalid_argument("Pool3D requires the ksize attribute to contain 5 values, but got: " +
                            std::to_string(ksize.size()));
  std::string format = "NDHWC";
  c.get_attr("data_format", &format);
  const bool ncdhw = format == "NCDHW";
  const std::size_t o = ncdhw ? 2 : 1;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_padding(c, &padding));
  Index out[3] = {-1, -1, -1};
  for (std::size_t d = 0; d < 3; ++d)
    ACTORFLOW_RETURN_IF_ERROR(windowed_dim(dim_of(in, static_cast<int>(o + d)), ksize[o + d], 1,
                                           strides[o + d], padding, &out[d]));
  const Index batch = dim_of(in, 0), depth = dim_of(in, ncdhw ? 1 : 4);
  *pooled = ncdhw ? PartialShape{batch, depth, out[0], out[1], out[2]}
                  : PartialShape{batch, out[0], out[1], out[2], depth};
  return {};
}

// MaxPool3D and AvgPool3D.
Status infer_pool3d(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (c.node.op == "MaxPool3D")
    ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  else
    ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(pool3d_shape(c, &out));
  c.add_output(c.input_types[0], out);
  return {};
}

// MaxPool3DGrad: UnchangedShapeWithRank(c, 5) of orig_input, of grad's type.
Status infer_max_pool3d_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "TInput"));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "orig_output", c.input_types[1],
                                                         "orig_input", c.input_types[0]));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[2], c.node.op, "T"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 5));
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_padding(c, &padding));
  const PartialShape& in = c.input_shapes[0];
  c.add_output(c.input_types[2], in.rank_known() ? in : PartialShape::unknown_of_rank(5));
  return {};
}

// AvgPool3DGrad: the rank-5 shape orig_input_shape names.
Status infer_avg_pool3d_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[0] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "orig_input_shape",
                                                               c.input_types[0], DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[1], c.node.op, "T"));
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_padding(c, &padding));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(shape, 5));
  c.add_output(c.input_types[1], shape.rank_known() ? shape : PartialShape::unknown_of_rank(5));
  return {};
}

// MaxPool3DGradGrad: Pool3DShape, with grad merged into orig_input and orig_output into the
// pooled shape.
Status infer_max_pool3d_grad_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  for (std::size_t i : {std::size_t{1}, std::size_t{2}})
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument(
          cwise::type_mismatch_message(c.node.op, i == 1 ? "orig_output" : "grad", c.input_types[i],
                                       "orig_input", c.input_types[0]));
  PartialShape out, unused;
  ACTORFLOW_RETURN_IF_ERROR(pool3d_shape(c, &out));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[0], c.input_shapes[2], &unused));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[1], out, &unused));
  c.add_output(c.input_types[0], out);
  return {};
}

AttrMap conv3d_attrs(DType t, const std::vector<std::int64_t>& strides, const std::string& padding,
                     const std::string& data_format, const std::vector<std::int64_t>& dilations) {
  return {{"T", t},
          {"strides", strides},
          {"padding", padding},
          {"data_format", data_format},
          {"dilations", dilations}};
}

AttrMap pool3d_attrs(DType t, const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     const std::string& data_format) {
  return {{"T", t},
          {"ksize", ksize},
          {"strides", strides},
          {"padding", padding},
          {"data_format", data_format}};
}

Output make_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
               std::string_view name) {
  return inputs.front()
      .graph()
      .create_op(type, inputs, std::move(attrs), name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_conv3d_ops(OpRegistry& r) {
  r.add({"Conv3D", infer_conv3d});
  r.add({"Conv3DBackpropInputV2",
         [](InferenceContext& c) { return infer_conv3d_backprop(c, 0, 1); }});
  r.add({"Conv3DBackpropFilterV2",
         [](InferenceContext& c) { return infer_conv3d_backprop(c, 1, 0); }});
  r.add({"MaxPool3D", infer_pool3d});
  r.add({"AvgPool3D", infer_pool3d});
  r.add({"MaxPool3DGrad", infer_max_pool3d_grad});
  r.add({"AvgPool3DGrad", infer_avg_pool3d_grad});
  r.add({"MaxPool3DGradGrad", infer_max_pool3d_grad_grad});
}

}  // namespace detail

namespace nn {

Output conv3d(const Output& input, const Output& filter, const std::vector<std::int64_t>& strides,
              const std::string& padding, const std::string& data_format,
              const std::vector<std::int64_t>& dilations, std::string_view name) {
  return make_op("Conv3D", {input, filter},
                 conv3d_attrs(input.dtype(), strides, padding, data_format, dilations), name);
}

Output conv3d_backprop_input_v2(const Output& input_sizes, const Output& filter,
                                const Output& out_backprop,
                                const std::vector<std::int64_t>& strides,
                                const std::string& padding, const std::string& data_format,
                                const std::vector<std::int64_t>& dilations, std::string_view name) {
  AttrMap attrs = conv3d_attrs(filter.dtype(), strides, padding, data_format, dilations);
  attrs["Tshape"] = input_sizes.dtype();
  return make_op("Conv3DBackpropInputV2", {input_sizes, filter, out_backprop}, std::move(attrs),
                 name);
}

Output conv3d_backprop_filter_v2(const Output& input, const Output& filter_sizes,
                                 const Output& out_backprop,
                                 const std::vector<std::int64_t>& strides,
                                 const std::string& padding, const std::string& data_format,
                                 const std::vector<std::int64_t>& dilations,
                                 std::string_view name) {
  return make_op("Conv3DBackpropFilterV2", {input, filter_sizes, out_backprop},
                 conv3d_attrs(input.dtype(), strides, padding, data_format, dilations), name);
}

Output max_pool3d(const Output& input, const std::vector<std::int64_t>& ksize,
                  const std::vector<std::int64_t>& strides, const std::string& padding,
                  const std::string& data_format, std::string_view name) {
  return make_op("MaxPool3D", {input},
                 pool3d_attrs(input.dtype(), ksize, strides, padding, data_format), name);
}

Output avg_pool3d(const Output& input, const std::vector<std::int64_t>& ksize,
                  const std::vector<std::int64_t>& strides, const std::string& padding,
                  const std::string& data_format, std::string_view name) {
  return make_op("AvgPool3D", {input},
                 pool3d_attrs(input.dtype(), ksize, strides, padding, data_format), name);
}

Output max_pool3d_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                       const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, const std::string& padding,
                       const std::string& data_format, std::string_view name) {
  AttrMap attrs = pool3d_attrs(grad.dtype(), ksize, strides, padding, data_format);
  attrs["TInput"] = orig_input.dtype();
  return make_op("MaxPool3DGrad", {orig_input, orig_output, grad}, std::move(attrs), name);
}

Output avg_pool3d_grad(const Output& orig_input_shape, const Output& grad,
                       const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, const std::string& padding,
                       const std::string& data_format, std::string_view name) {
  return make_op("AvgPool3DGrad", {orig_input_shape, grad},
                 pool3d_attrs(grad.dtype(), ksize, strides, padding, data_format), name);
}

Output max_pool3d_grad_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, const std::string& padding,
                            const std::string& data_format, std::string_view name) {
  return make_op("MaxPool3DGradGrad", {orig_input, orig_output, grad},
                 pool3d_attrs(orig_input.dtype(), ksize, strides, padding, data_format), name);
}

}  // namespace nn

}  // namespace af
