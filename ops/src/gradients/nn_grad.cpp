// Gradients of the nn ops (TensorFlow 1.x's nn_grad.py): BiasAdd, Conv2D, MaxPool, AvgPool
// and the two softmax cross-entropies.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

std::vector<std::int64_t> ints_attr(const Operation& op, const char* name) {
  auto v = op.node_def().attr<std::vector<std::int64_t>>(name);
  if (!v)
    throw InvalidArgumentError(
        invalid_argument("gradient of '" + op.name() + "': missing attr " + name));
  return *v;
}

std::string string_attr(const Operation& op, const char* name, std::string fallback) {
  auto v = op.node_def().attr<std::string>(name);
  return v ? *v : fallback;
}

// `_BroadcastMul`: a [batch] vector times a [batch, classes] matrix, row by row.
Output broadcast_mul(const Output& vec, const Output& mat) {
  Graph& g = vec.graph();
  const std::string name = g.unique_name("ExpandDims");
  Output dim;
  {
    auto scope = g.name_scope(name + "/");
    dim = g.constant(Tensor(std::int32_t{-1}), "dim");
  }
  Output expanded = g.create_op("ExpandDims", {vec, dim},
                                {{"T", vec.dtype()}, {"Tdim", DType::int32}}, name + "/")
                        .output(0);
  return mul(expanded, mat, "mul");
}

// True when `t` is known to be zero (the walk's ZerosLike for an output without gradient).
bool is_zeros(const Output& t) { return !t.valid() || t.node()->type() == "ZerosLike"; }

Grads softmax_xent_grad(const Operation& op, const Grads& g) {
  if (!is_zeros(g[1]))
    throw UnimplementedError(unimplemented("second derivative of SoftmaxCrossEntropyWithLogits '" +
                                           op.name() +
                                           "' (its backprop output received a gradient)"));
  Output grad = broadcast_mul(g[0], op.output(1));
  Output neg_log_softmax = neg(nn::log_softmax(input(op, 0), "LogSoftmax"), "Neg");
  return {grad, broadcast_mul(g[0], neg_log_softmax)};
}

Grads sparse_softmax_xent_grad(const Operation& op, const Grads& g) {
  if (!is_zeros(g[1]))
    throw UnimplementedError(
        unimplemented("second derivative of SparseSoftmaxCrossEntropyWithLogits '" + op.name() +
                      "' (its backprop output received a gradient)"));
  return {broadcast_mul(g[0], op.output(1)), Output()};
}

Grads conv2d_grad(const Operation& op, const Grads& g) {
  const auto strides = ints_attr(op, "strides");
  const std::string padding = string_attr(op, "padding", "VALID");
  const Output x = input(op, 0), w = input(op, 1);
  Output x_shape = shape_of(x, "Shape");
  Output w_shape = shape_of(w, "Shape_1");
  return {nn::conv2d_backprop_input(x_shape, w, g[0], strides, padding, "Conv2DBackpropInput"),
          nn::conv2d_backprop_filter(x, w_shape, g[0], strides, padding, "Conv2DBackpropFilter")};
}

Grads max_pool_grad(const Operation& op, const Grads& g) {
  return {nn::max_pool_grad(input(op, 0), op.output(0), g[0], ints_attr(op, "ksize"),
                            ints_attr(op, "strides"), string_attr(op, "padding", "VALID"),
                            "MaxPoolGrad")};
}

Grads avg_pool_grad(const Operation& op, const Grads& g) {
  return {nn::avg_pool_grad(shape_of(input(op, 0), "Shape"), g[0], ints_attr(op, "ksize"),
                            ints_attr(op, "strides"), string_attr(op, "padding", "VALID"),
                            "AvgPoolGrad")};
}

}  // namespace

void register_nn_gradients(GradientRegistry& r) {
  r.add("BiasAdd", [](const Operation& op, const Grads& g) -> Grads {
    const std::string format = string_attr(op, "data_format", "NHWC");
    Output bias_grad = op.graph()
                           .create_op("BiasAddGrad", {g[0]},
                                      {{"T", g[0].dtype()}, {"data_format", format}}, "BiasAddGrad")
                           .output(0);
    return {g[0], bias_grad};
  });
  r.add("Conv2D", conv2d_grad);
  r.add("MaxPool", max_pool_grad);
  r.add("AvgPool", avg_pool_grad);
  r.add("SoftmaxCrossEntropyWithLogits", softmax_xent_grad);
  r.add("SparseSoftmaxCrossEntropyWithLogits", sparse_softmax_xent_grad);
  r.add_not_differentiable("BroadcastGradientArgs");
}

}  // namespace af::detail
