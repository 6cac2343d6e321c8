// Gradients of the patches_pool family as TensorFlow's array_grad.py and nn_grad.py register
// them: ExtractImagePatches, ExtractVolumePatches, Dilation2D, MaxPoolWithArgmax, and the
// second-order pooling gradients MaxPoolGrad (-> MaxPoolGradGrad), MaxPoolGradGrad
// (-> MaxPoolGrad) and AvgPoolGrad (-> AvgPool). TensorFlow registers none for the
// Dilation2D backprops, MaxPoolGradWithArgmax and MaxPoolGradGradWithArgmax.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/patches_pool_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;
using Ints = std::vector<std::int64_t>;

Ints ints_attr(const Operation& op, const char* name) {
  auto v = op.node_def().attr<Ints>(name);
  if (!v)
    throw InvalidArgumentError(
        invalid_argument("gradient of '" + op.name() + "': missing attr " + name));
  return *v;
}

std::string string_attr(const Operation& op, const char* name, std::string fallback) {
  auto v = op.node_def().attr<std::string>(name);
  return v ? *v : fallback;
}

Output int64_const(Graph& g, std::int64_t v, const std::string& name) {
  return g.constant(Tensor(v), name);
}

// The index-patch scatter of _ExtractImagePatchesGrad, for 2 (image) or 3 (volume) spatial
// dimensions: the input positions numbered from 1 (0 marks the padding) are extracted as
// patches by the op itself, and the incoming gradient, laid out [patch positions..., batch *
// channels], is summed (UnsortedSegmentSum) into the positions they name; padding (id -1)
// drops out. The image form numbers in float32 as Python does; the volume form in int64.
Output patch_scatter_grad(const Operation& op, const Output& grad, bool volume) {
  Graph& gr = op.graph();
  const int spatial = volume ? 3 : 2;
  const Output x = input(op, 0);
  const std::vector<Output> in_dims =
      unstack(shape(x, DType::int64, "Shape"), spatial + 2, 0, "unstack");
  const std::vector<Output> out_dims =
      unstack(strided_slice(shape(op.output(0), DType::int64, "Shape_1"), {1}, {1 + spatial}, {1},
                            {}, "strided_slice"),
              spatial, 0, "unstack_1");
  const Ints ksizes = ints_attr(op, "ksizes");
  const Ints strides = ints_attr(op, "strides");
  const std::string padding = string_attr(op, "padding", "VALID");
  const Output batch = in_dims[0], channels = in_dims[static_cast<std::size_t>(spatial) + 1];
  Output positions = in_dims[1];
  for (int d = 2; d <= spatial; ++d)
    positions = mul(positions, in_dims[static_cast<std::size_t>(d)], "mul");
  const Output one = int64_const(gr, 1, "one");
  const Output limit = add(positions, one, "add");
  Output ids;
  if (volume) {
    ids = range(one, limit, one, "range");
  } else {
    const Output one_f = gr.constant(Tensor(1.0f), "one_f");
    ids = range(one_f, af::cast(limit, DType::float32, "Cast"), one_f, "range");
  }
  std::vector<Output> id_shape{one};
  for (int d = 1; d <= spatial; ++d) id_shape.push_back(in_dims[static_cast<std::size_t>(d)]);
  id_shape.push_back(one);
  ids = reshape(ids, stack(id_shape, 0, "stack"), "Reshape");
  Output patched =
      volume ? nn::extract_volume_patches(ids, ksizes, strides, padding, "ExtractVolumePatches")
             : nn::extract_image_patches(ids, ksizes, strides, ints_attr(op, "rates"), padding,
                                         "ExtractImagePatches");
  if (!volume) patched = af::cast(patched, DType::int64, "Cast_1");

  // [batch, out..., k..., channels] -> [out..., k..., batch, channels].
  std::vector<Output> grad_shape{batch};
  grad_shape.insert(grad_shape.end(), out_dims.begin(), out_dims.end());
  for (int d = 1; d <= spatial; ++d)
    grad_shape.push_back(int64_const(gr, ksizes[static_cast<std::size_t>(d)], "ksize"));
  grad_shape.push_back(channels);
  Ints perm;
  for (int d = 1; d <= 2 * spatial; ++d) perm.push_back(d);
  perm.push_back(0);
  perm.push_back(2 * spatial + 1);
  const Output expanded =
      transpose(reshape(grad, stack(grad_shape, 0, "stack_1"), "Reshape_1"), perm, "transpose");
  const Output batch_channels = mul(batch, channels, "mul_1");
  const Output flat =
      reshape(expanded, stack({int64_const(gr, -1, "minus_one"), batch_channels}, 0, "stack_2"),
              "Reshape_2");
  const Output segment_ids = sub(reshape(patched, Ints{-1}, "Reshape_3"), one, "sub");
  const Output summed = unsorted_segment_sum(flat, segment_ids, positions, "UnsortedSegmentSum");

  // [in..., batch, channels] -> [batch, in..., channels].
  std::vector<Output> out_shape(in_dims.begin() + 1, in_dims.begin() + 1 + spatial);
  out_shape.push_back(batch);
  out_shape.push_back(channels);
  Ints back{spatial};
  for (int d = 0; d < spatial; ++d) back.push_back(d);
  back.push_back(spatial + 1);
  return transpose(reshape(summed, stack(out_shape, 0, "stack_3"), "Reshape_4"), back,
                   "transpose_1");
}

// _Dilation2DGrad: the two backprop ops with the op's attrs.
Grads dilation2d_grad(const Operation& op, const Grads& g) {
  const Ints strides = ints_attr(op, "strides"), rates = ints_attr(op, "rates");
  const std::string padding = string_attr(op, "padding", "VALID");
  const Output x = input(op, 0), w = input(op, 1);
  return {
      nn::dilation2d_backprop_input(x, w, g[0], strides, rates, padding, "Dilation2DBackpropInput"),
      nn::dilation2d_backprop_filter(x, w, g[0], strides, rates, padding,
                                     "Dilation2DBackpropFilter")};
}

// _MaxPoolGradWithArgmax: MaxPoolGradWithArgmax of the output's gradient at the op's argmax.
Grads max_pool_with_argmax_grad(const Operation& op, const Grads& g) {
  bool include_batch = false;
  if (auto v = op.node_def().attr<bool>("include_batch_in_index")) include_batch = *v;
  return {nn::max_pool_grad_with_argmax(
      input(op, 0), g[0], op.output(1), ints_attr(op, "ksize"), ints_attr(op, "strides"),
      string_attr(op, "padding", "VALID"), include_batch, "MaxPoolGradWithArgmax")};
}

// _MaxPoolGradGrad and _MaxPoolGradGradGrad: zeros for the pooling's input and output, the
// other op for the incoming gradient.
Grads max_pool_grad_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  const Ints ksize = ints_attr(op, "ksize"), strides = ints_attr(op, "strides");
  const std::string padding = string_attr(op, "padding", "VALID");
  const Output next =
      op.type() == "MaxPoolGrad"
          ? nn::max_pool_grad_grad(x, y, g[0], ksize, strides, padding, "MaxPoolGradGrad")
          : nn::max_pool_grad(x, y, g[0], ksize, strides, padding, "MaxPoolGrad");
  return {zeros_like_op(x, "zeros_like"), zeros_like_op(y, "zeros_like_1"), next};
}

// _AvgPoolGradGrad: a StopGradient of the shape, AvgPool of the incoming gradient.
Grads avg_pool_grad_grad(const Operation& op, const Grads& g) {
  return {stop_gradient(input(op, 0), "StopGradient"),
          nn::avg_pool(g[0], ints_attr(op, "ksize"), ints_attr(op, "strides"),
                       string_attr(op, "padding", "VALID"), "AvgPool")};
}

}  // namespace

void register_patches_pool_gradients(GradientRegistry& r) {
  r.add("ExtractImagePatches", [](const Operation& op, const Grads& g) -> Grads {
    return {patch_scatter_grad(op, g[0], false)};
  });
  r.add("ExtractVolumePatches", [](const Operation& op, const Grads& g) -> Grads {
    return {patch_scatter_grad(op, g[0], true)};
  });
  r.add("Dilation2D", dilation2d_grad);
  r.add("MaxPoolWithArgmax", max_pool_with_argmax_grad);
  r.add("MaxPoolGrad", max_pool_grad_grad);
  r.add("MaxPoolGradGrad", max_pool_grad_grad);
  r.add("AvgPoolGrad", avg_pool_grad_grad);
}

}  // namespace af::detail
