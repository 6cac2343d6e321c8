// The definitions of DepthwiseConv2dNative and its two backprop ops (shape functions as
// TensorFlow's DepthwiseConv2DNativeShapeWithExplicitPadding and the backprops'
// MakeShapeFromShapeTensor), TensorFlow's CheckValidPadding, and the builder
// tf.compat.v1.nn.depthwise_conv2d_native. The CPU kernels are in
// kernels/src/depthwise_conv_ops.cpp, the gradient in ops/src/gradients/nn_grad.cpp.
#include "actorflow/ops/depthwise_conv_ops.hpp"

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

using Index = std::int64_t;
using detail::check_op_def_type;
using detail::with_rank;

// GetWindowedOutputSizeFromDimsV2: one output dimension (-1 when `in` or `filter` is
// unknown), with the shape function's errors.
Status windowed_dim(Index in, Index filter, Index dilation, Index stride,
                    const std::string& padding, Index pad_before, Index pad_after, Index* out) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1)
    return invalid_argument("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  *out = -1;
  if (in < 0 || filter < 0) return {};
  const Index effective = (filter - 1) * dilation + 1;
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    return {};
  }
  const Index padded = padding == "EXPLICIT" ? in + pad_before + pad_after : in;
  if (padded < effective)
    return invalid_argument("Negative dimension size caused by subtracting " +
                            std::to_string(effective) + " from " + std::to_string(padded));
  *out = (padded - effective + stride) / stride;
  return {};
}

Status infer_depthwise_conv2d(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "filter", c.input_types[1],
                                                         "input", c.input_types[0]));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& f = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(f, 4));
  std::vector<std::int64_t> strides, dilations{1, 1, 1, 1}, explicit_paddings;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 4)
    return invalid_argument(
        "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: " +
        std::to_string(strides.size()));
  c.get_attr("dilations", &dilations);
  if (dilations.size() != 4)
    return invalid_argument(
        "DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: " +
        std::to_string(dilations.size()));
  std::string format = "NHWC", padding;
  c.get_attr("data_format", &format);
  const bool nchw = format == "NCHW";
  // Input dims in NHWC order, -1 unknown.
  auto dim = [](const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : Index{-1}; };
  const Index batch = dim(in, 0);
  const Index in_rows = dim(in, nchw ? 2 : 1), in_cols = dim(in, nchw ? 3 : 2);
  const Index in_depth = dim(in, nchw ? 1 : 3);
  const Index filter_rows = dim(f, 0), filter_cols = dim(f, 1);
  const Index filter_depth = dim(f, 2), multiplier = dim(f, 3);
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(in_depth) +
                            " and " + std::to_string(filter_depth));
  const Index depth = in_depth >= 0 ? in_depth : filter_depth;
  const Index out_depth = depth >= 0 && multiplier >= 0 ? depth * multiplier : -1;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  c.get_attr("explicit_paddings", &explicit_paddings);
  ACTORFLOW_RETURN_IF_ERROR(check_valid_padding(padding, explicit_paddings, format));
  const int h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  auto pad = [&](int d, int side) {
    return padding == "EXPLICIT" ? explicit_paddings[static_cast<std::size_t>(2 * d + side)]
                                 : Index{0};
  };
  Index out_rows = -1, out_cols = -1;
  ACTORFLOW_RETURN_IF_ERROR(windowed_dim(in_rows, filter_rows, dilations[h], strides[h], padding,
                                         pad(h, 0), pad(h, 1), &out_rows));
  ACTORFLOW_RETURN_IF_ERROR(windowed_dim(in_cols, filter_cols, dilations[w], strides[w], padding,
                                         pad(w, 0), pad(w, 1), &out_cols));
  c.add_output(c.input_types[0], nchw ? PartialShape{batch, out_depth, out_rows, out_cols}
                                      : PartialShape{batch, out_rows, out_cols, out_depth});
  return {};
}

// The backprops: the shape their int32 sizes input `sizes` names, of rank 4.
Status infer_depthwise_backprop(InferenceContext& c, int sizes, int typed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  const auto s = static_cast<std::size_t>(sizes);
  if (c.input_types[s] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(
        c.node.op, sizes == 0 ? "input_sizes" : "filter_sizes", c.input_types[s], DType::int32));
  const DType t = c.input_types[static_cast<std::size_t>(typed)];
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op));
  if (c.input_types[2] != t)
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "out_backprop", c.input_types[2], sizes == 0 ? "filter" : "input", t));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, sizes, &shape));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(shape, 4));
  c.add_output(t, shape.rank_known() ? shape : PartialShape::unknown_of_rank(4));
  return {};
}

AttrMap depthwise_attrs(DType t, const nn::DepthwiseConv2DAttrs& a) {
  return {{"T", t},
          {"strides", a.strides},
          {"padding", a.padding},
          {"explicit_paddings", a.explicit_paddings},
          {"data_format", a.data_format},
          {"dilations", a.dilations}};
}

}  // namespace

Status check_valid_padding(const std::string& padding,
                           const std::vector<std::int64_t>& explicit_paddings,
                           const std::string& data_format) {
  if (padding != "EXPLICIT") {
    if (!explicit_paddings.empty())
      return invalid_argument(
          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return {};
  }
  if (explicit_paddings.size() != 8)
    return invalid_argument("explicit_paddings attribute must contain 8 values, but got: " +
                            std::to_string(explicit_paddings.size()));
  for (std::int64_t p : explicit_paddings)
    if (p < 0) return invalid_argument("All elements of explicit_paddings must be nonnegative");
  const std::size_t depth = data_format == "NCHW" ? 1 : 3;
  if (explicit_paddings[0] != 0 || explicit_paddings[1] != 0 || explicit_paddings[2 * depth] != 0 ||
      explicit_paddings[2 * depth + 1] != 0)
    return invalid_argument(
        "Nonzero explicit padding in the batch or depth dimensions is not supported");
  return {};
}

StatusOr<WindowDim> windowed_output_size_explicit(std::int64_t in, std::int64_t window,
                                                  std::int64_t stride, const std::string& padding,
                                                  std::int64_t pad_before, std::int64_t pad_after) {
  if (padding != "EXPLICIT") return windowed_output_size(in, window, stride, padding);
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  WindowDim d;
  d.output = (in + pad_before + pad_after - window + stride) / stride;
  d.pad_before = pad_before;
  if (d.output < 0)
    return invalid_argument("Computed output size would be negative: " + std::to_string(d.output) +
                            " [input_size: " + std::to_string(in) + ", effective_filter_size: " +
                            std::to_string(window) + ", stride: " + std::to_string(stride) + "]");
  return d;
}

namespace detail {

void register_depthwise_conv_ops(OpRegistry& r) {
  r.add({"DepthwiseConv2dNative", infer_depthwise_conv2d});
  r.add({"DepthwiseConv2dNativeBackpropInput",
         [](InferenceContext& c) { return infer_depthwise_backprop(c, 0, 1); }});
  r.add({"DepthwiseConv2dNativeBackpropFilter",
         [](InferenceContext& c) { return infer_depthwise_backprop(c, 1, 0); }});
}

}  // namespace detail

namespace nn {

Output depthwise_conv2d_native(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides, const std::string& padding,
                               const std::string& data_format,
                               const std::vector<std::int64_t>& dilations, std::string_view name) {
  const DepthwiseConv2DAttrs attrs{strides, padding, {}, data_format, dilations};
  return input.graph()
      .create_op("DepthwiseConv2dNative", {input, filter}, depthwise_attrs(input.dtype(), attrs),
                 name.empty() ? "DepthwiseConv2dNative" : name)
      .output(0);
}

Output depthwise_conv2d_native(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides,
                               const std::vector<std::int64_t>& explicit_paddings,
                               const std::string& data_format,
                               const std::vector<std::int64_t>& dilations, std::string_view name) {
  const DepthwiseConv2DAttrs attrs{strides, "EXPLICIT", explicit_paddings, data_format, dilations};
  return input.graph()
      .create_op("DepthwiseConv2dNative", {input, filter}, depthwise_attrs(input.dtype(), attrs),
                 name.empty() ? "DepthwiseConv2dNative" : name)
      .output(0);
}

Output depthwise_conv2d_native_backprop_input(const Output& input_sizes, const Output& filter,
                                              const Output& out_backprop,
                                              const DepthwiseConv2DAttrs& attrs,
                                              std::string_view name) {
  return filter.graph()
      .create_op("DepthwiseConv2dNativeBackpropInput", {input_sizes, filter, out_backprop},
                 depthwise_attrs(filter.dtype(), attrs),
                 name.empty() ? "DepthwiseConv2dNativeBackpropInput" : name)
      .output(0);
}

Output depthwise_conv2d_native_backprop_filter(const Output& input, const Output& filter_sizes,
                                               const Output& out_backprop,
                                               const DepthwiseConv2DAttrs& attrs,
                                               std::string_view name) {
  return input.graph()
      .create_op("DepthwiseConv2dNativeBackpropFilter", {input, filter_sizes, out_backprop},
                 depthwise_attrs(input.dtype(), attrs),
                 name.empty() ? "DepthwiseConv2dNativeBackpropFilter" : name)
      .output(0);
}

}  // namespace nn

}  // namespace af
