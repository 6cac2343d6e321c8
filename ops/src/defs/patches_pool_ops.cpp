// The definitions of ExtractImagePatches, ExtractVolumePatches, Dilation2D,
// Dilation2DBackpropInput, Dilation2DBackpropFilter, MaxPoolWithArgmax, MaxPoolGradWithArgmax,
// MaxPoolGradGradWithArgmax and MaxPoolGradGrad (shape functions as TensorFlow's
// array_ops.cc / nn_ops.cc) and their builders. The CPU kernels are in
// kernels/src/patches_pool_ops.cpp, the gradients in ops/src/gradients/patches_pool_grad.cpp.
#include "actorflow/ops/patches_pool_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_attr_type;
using detail::check_index_type;
using detail::with_rank;

// A list attr of `rank` values, as the shape functions check it.
Status list_attr(const InferenceContext& c, const char* name, std::size_t rank,
                 std::vector<std::int64_t>* out) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr(name, out));
  if (out->size() != rank)
    return invalid_argument(c.node.op + " requires the " + name + " attribute to contain " +
                            std::to_string(rank) +
                            " values, but got: " + std::to_string(out->size()));
  return {};
}

// The output size of spatial dimension `in` (-1 unknown) for an effective window `window`.
StatusOr<Index> window_out(Index in, Index window, Index stride, const std::string& padding) {
  if (in < 0) return Index{-1};
  auto w = windowed_output_size(in, window, stride, padding);
  if (!w.ok()) return w.status();
  return w->output;
}

// ExtractImagePatches / ExtractVolumePatches: [batch, out..., prod(ksizes) * depth].
Status infer_extract_patches(InferenceContext& c) {
  const bool volume = c.node.op == "ExtractVolumePatches";
  const std::size_t rank = volume ? 5 : 4;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  std::vector<std::int64_t> ksizes, strides, rates(rank, 1);
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "ksizes", rank, &ksizes));
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "strides", rank, &strides));
  if (!volume) ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "rates", rank, &rates));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, static_cast<int>(rank)));
  std::vector<std::int64_t> out(rank, -1);
  if (in.rank_known()) {
    out[0] = in.dim(0);
    Index patch = 1;
    for (std::size_t d = 1; d + 1 < rank; ++d) {
      patch *= ksizes[d];
      const Index eff = ksizes[d] + (ksizes[d] - 1) * (rates[d] - 1);
      auto o = window_out(in.dim(static_cast<int>(d)), eff, strides[d], padding);
      if (!o.ok()) return o.status();
      out[d] = *o;
    }
    const Index depth = in.dim(static_cast<int>(rank) - 1);
    out[rank - 1] = depth < 0 ? -1 : patch * depth;
  }
  c.add_output(c.input_types[0], PartialShape(out));
  return {};
}

// Dilation2D: [batch, out_rows, out_cols, depth]; the backprops: the shape of input
// (Dilation2DBackpropInput) or filter (Dilation2DBackpropFilter).
Status infer_dilation(InferenceContext& c) {
  const bool forward = c.node.op == "Dilation2D";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(forward ? 2 : 3));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  for (std::size_t i = 1; i < c.input_types.size(); ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument("Inputs to " + c.node.op + " must share one type: " +
                              std::string(data_type_string(c.input_types[0])) + " vs " +
                              std::string(data_type_string(c.input_types[i])));
  std::vector<std::int64_t> strides, rates;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "strides", 4, &strides));
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "rates", 4, &rates));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& f = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(f, 3));
  if (!forward) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 4));
  if (in.rank_known() && f.rank_known() && in.dim(3) >= 0 && f.dim(2) >= 0 && in.dim(3) != f.dim(2))
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(in.dim(3)) +
                            " and " + std::to_string(f.dim(2)));
  if (c.node.op == "Dilation2DBackpropInput") {
    c.add_output(c.input_types[0], in);
    return {};
  }
  if (c.node.op == "Dilation2DBackpropFilter") {
    c.add_output(c.input_types[0], f);
    return {};
  }
  std::vector<std::int64_t> out{-1, -1, -1, -1};
  if (in.rank_known()) {
    out[0] = in.dim(0);
    out[3] = in.dim(3);
  }
  if (in.rank_known() && f.rank_known()) {
    for (int d = 1; d <= 2; ++d) {
      const Index k = f.dim(d - 1);
      if (k < 0) continue;
      const auto at = static_cast<std::size_t>(d);
      auto o = window_out(in.dim(d), k + (k - 1) * (rates[at] - 1), strides[at], padding);
      if (!o.ok()) return o.status();
      out[at] = *o;
    }
  }
  c.add_output(c.input_types[0], PartialShape(out));
  return {};
}

// The max pooling output shape of input `i` (rank 4), -1 where unknown.
StatusOr<PartialShape> pool_shape(const InferenceContext& c, std::size_t i) {
  std::vector<std::int64_t> ksize, strides;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "ksize", 4, &ksize));
  ACTORFLOW_RETURN_IF_ERROR(list_attr(c, "strides", 4, &strides));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  const PartialShape& in = c.input_shapes[i];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 4));
  std::vector<std::int64_t> out{-1, -1, -1, -1};
  if (in.rank_known()) {
    out[0] = in.dim(0);
    out[3] = in.dim(3);
    for (int d = 1; d <= 2; ++d) {
      const auto at = static_cast<std::size_t>(d);
      auto o = window_out(in.dim(d), ksize[at], strides[at], padding);
      if (!o.ok()) return o.status();
      out[at] = *o;
    }
  }
  return PartialShape(out);
}

Status infer_max_pool_with_argmax(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  DType targmax = DType::int64;
  c.get_attr("Targmax", &targmax);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(targmax, "Targmax"));
  auto out = pool_shape(c, 0);
  if (!out.ok()) return out.status();
  c.add_output(c.input_types[0], *out);
  c.add_output(targmax, *out);
  return {};
}

// MaxPoolGradWithArgmax: input's shape; MaxPoolGradGradWithArgmax and MaxPoolGradGrad: the
// pooling's output shape.
Status infer_max_pool_grads(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  const bool with_argmax = c.node.op != "MaxPoolGradGrad";
  const std::size_t typed_inputs = with_argmax ? 2 : 3;
  for (std::size_t i = 1; i < typed_inputs; ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument("Inputs to " + c.node.op + " must share one type: " +
                              std::string(data_type_string(c.input_types[0])) + " vs " +
                              std::string(data_type_string(c.input_types[i])));
  if (with_argmax) ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Targmax"));
  auto out = pool_shape(c, 0);
  if (!out.ok()) return out.status();
  if (c.node.op == "MaxPoolGradWithArgmax")
    c.add_output(c.input_types[0], c.input_shapes[0]);
  else
    c.add_output(c.input_types[0], *out);
  return {};
}

Output make_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
               std::string_view name) {
  return inputs[0]
      .graph()
      .create_op(type, inputs, std::move(attrs), name.empty() ? type : name)
      .output(0);
}

AttrMap dilation_attrs(const Output& x, const std::vector<std::int64_t>& strides,
                       const std::vector<std::int64_t>& rates, const std::string& padding) {
  return {{"T", x.dtype()}, {"strides", strides}, {"rates", rates}, {"padding", padding}};
}

AttrMap argmax_attrs(const Output& x, const Output& argmax, const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     bool include_batch_in_index) {
  return {{"T", x.dtype()},     {"Targmax", argmax.dtype()},
          {"ksize", ksize},     {"strides", strides},
          {"padding", padding}, {"include_batch_in_index", include_batch_in_index}};
}

}  // namespace

namespace detail {

void register_patches_pool_ops(OpRegistry& r) {
  r.add({"ExtractImagePatches", infer_extract_patches});
  r.add({"ExtractVolumePatches", infer_extract_patches});
  for (const char* type : {"Dilation2D", "Dilation2DBackpropInput", "Dilation2DBackpropFilter"})
    r.add({type, infer_dilation});
  r.add({"MaxPoolWithArgmax", infer_max_pool_with_argmax});
  for (const char* type : {"MaxPoolGradWithArgmax", "MaxPoolGradGradWithArgmax", "MaxPoolGradGrad"})
    r.add({type, infer_max_pool_grads});
}

}  // namespace detail

namespace nn {

Output extract_image_patches(const Output& images, const std::vector<std::int64_t>& ksizes,
                             const std::vector<std::int64_t>& strides,
                             const std::vector<std::int64_t>& rates, const std::string& padding,
                             std::string_view name) {
  return make_op("ExtractImagePatches", {images},
                 {{"T", images.dtype()},
                  {"ksizes", ksizes},
                  {"strides", strides},
                  {"rates", rates},
                  {"padding", padding}},
                 name);
}

Output extract_volume_patches(const Output& input, const std::vector<std::int64_t>& ksizes,
                              const std::vector<std::int64_t>& strides, const std::string& padding,
                              std::string_view name) {
  return make_op(
      "ExtractVolumePatches", {input},
      {{"T", input.dtype()}, {"ksizes", ksizes}, {"strides", strides}, {"padding", padding}}, name);
}

Output dilation2d(const Output& input, const Output& filter,
                  const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& rates,
                  const std::string& padding, std::string_view name) {
  return make_op("Dilation2D", {input, filter}, dilation_attrs(input, strides, rates, padding),
                 name);
}

Output dilation2d_backprop_input(const Output& input, const Output& filter,
                                 const Output& out_backprop,
                                 const std::vector<std::int64_t>& strides,
                                 const std::vector<std::int64_t>& rates, const std::string& padding,
                                 std::string_view name) {
  return make_op("Dilation2DBackpropInput", {input, filter, out_backprop},
                 dilation_attrs(input, strides, rates, padding), name);
}

Output dilation2d_backprop_filter(const Output& input, const Output& filter,
                                  const Output& out_backprop,
                                  const std::vector<std::int64_t>& strides,
                                  const std::vector<std::int64_t>& rates,
                                  const std::string& padding, std::string_view name) {
  return make_op("Dilation2DBackpropFilter", {input, filter, out_backprop},
                 dilation_attrs(input, strides, rates, padding), name);
}

MaxPoolWithArgmaxOutputs max_pool_with_argmax(const Output& input,
                                              const std::vector<std::int64_t>& ksize,
                                              const std::vector<std::int64_t>& strides,
                                              const std::string& padding, DType targmax,
                                              bool include_batch_in_index, std::string_view name) {
  Operation op = input.graph().create_op("MaxPoolWithArgmax", {input},
                                         {{"T", input.dtype()},
                                          {"Targmax", targmax},
                                          {"ksize", ksize},
                                          {"strides", strides},
                                          {"padding", padding},
                                          {"include_batch_in_index", include_batch_in_index}},
                                         name.empty() ? "MaxPoolWithArgmax" : name);
  return {op.output(0), op.output(1)};
}

Output max_pool_grad_with_argmax(const Output& input, const Output& grad, const Output& argmax,
                                 const std::vector<std::int64_t>& ksize,
                                 const std::vector<std::int64_t>& strides,
                                 const std::string& padding, bool include_batch_in_index,
                                 std::string_view name) {
  return make_op("MaxPoolGradWithArgmax", {input, grad, argmax},
                 argmax_attrs(input, argmax, ksize, strides, padding, include_batch_in_index),
                 name);
}

Output max_pool_grad_grad_with_argmax(const Output& input, const Output& grad, const Output& argmax,
                                      const std::vector<std::int64_t>& ksize,
                                      const std::vector<std::int64_t>& strides,
                                      const std::string& padding, bool include_batch_in_index,
                                      std::string_view name) {
  return make_op("MaxPoolGradGradWithArgmax", {input, grad, argmax},
                 argmax_attrs(input, argmax, ksize, strides, padding, include_batch_in_index),
                 name);
}

Output max_pool_grad_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                          const std::vector<std::int64_t>& ksize,
                          const std::vector<std::int64_t>& strides, const std::string& padding,
                          std::string_view name) {
  return make_op("MaxPoolGradGrad", {orig_input, orig_output, grad},
                 {{"T", orig_input.dtype()},
                  {"ksize", ksize},
                  {"strides", strides},
                  {"padding", padding},
                  {"data_format", std::string("NHWC")}},
                 name);
}

}  // namespace nn

}  // namespace af
