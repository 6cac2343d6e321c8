// Gradients of the nn ops (TensorFlow 1.x's nn_grad.py): BiasAdd, Conv2D, MaxPool, AvgPool,
// the two softmax cross-entropies, the fused batch norms, TopK, and the activations Softplus,
// Softsign, Elu, Selu and Relu6 with the gradients of their gradient ops, DepthwiseConv2dNative
// and LRN.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/depthwise_conv_ops.hpp"
#include "actorflow/ops/gather_nd_ops.hpp"
#include "actorflow/ops/lrn_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
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

// _DepthwiseConv2dNativeGrad: the two backprop ops with the op's attrs.
Grads depthwise_conv2d_grad(const Operation& op, const Grads& g) {
  nn::DepthwiseConv2DAttrs attrs{ints_attr(op, "strides"), string_attr(op, "padding", "VALID")};
  if (auto v = op.node_def().attr<std::vector<std::int64_t>>("explicit_paddings"))
    attrs.explicit_paddings = *v;
  attrs.data_format = string_attr(op, "data_format", "NHWC");
  if (auto v = op.node_def().attr<std::vector<std::int64_t>>("dilations")) attrs.dilations = *v;
  const Output x = input(op, 0), w = input(op, 1);
  Output dx = nn::depthwise_conv2d_native_backprop_input(shape_of(x, "Shape"), w, g[0], attrs,
                                                         "DepthwiseConv2dNativeBackpropInput");
  Output dw = nn::depthwise_conv2d_native_backprop_filter(x, shape_of(w, "Shape_1"), g[0], attrs,
                                                          "DepthwiseConv2dNativeBackpropFilter");
  return {dx, dw};
}

// _LRNGrad: LRNGrad(grad, input, output) with the op's attrs.
Grads lrn_grad(const Operation& op, const Grads& g) {
  std::int64_t depth_radius = 5;
  float bias = 1.0f, alpha = 1.0f, beta = 0.5f;
  if (auto v = op.node_def().attr<std::int64_t>("depth_radius")) depth_radius = *v;
  if (auto v = op.node_def().attr<float>("bias")) bias = *v;
  if (auto v = op.node_def().attr<float>("alpha")) alpha = *v;
  if (auto v = op.node_def().attr<float>("beta")) beta = *v;
  return {
      nn::lrn_grad(g[0], input(op, 0), op.output(0), depth_radius, bias, alpha, beta, "LRNGrad")};
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

// A gradient op `type`(gradients, features or outputs) named after its type.
Output activation_grad(const char* type, const Output& gradients, const Output& other) {
  return gradients.graph()
      .create_op(type, {gradients, other}, {{"T", gradients.dtype()}}, type)
      .output(0);
}

// _EluGradGrad and _SeluGradGrad: to the incoming gradient the same op again; to the outputs
// grad * the incoming gradient where they are negative.
Grads elu_selu_grad_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output y = input(op, 1);
  const Output negative =
      gr.create_op("Less", {y, scalar_like(y, 0.0, "Less/y")}, {{"T", y.dtype()}}, "Less")
          .output(0);
  const Output to_y =
      gr.create_op("Select",
                   {negative, mul(g[0], input(op, 0), "mul"), zeros_like_op(y, "zeros_like")},
                   {{"T", y.dtype()}}, "Select")
          .output(0);
  return {activation_grad(op.type().c_str(), g[0], y), to_y};
}

// _SoftplusGradGrad: (softplus_grad(grad, x), grad * dy / (exp(-x) + 2 + exp(x))).
Grads softplus_grad_grad(const Operation& op, const Grads& g) {
  const Output dy = input(op, 0), x = input(op, 1);
  Output ddy, d2x;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    ddy = activation_grad("SoftplusGrad", g[0], x);
    const Output denom = binary("AddV2",
                                binary("AddV2", unary("Exp", unary("Neg", x, "Neg"), "Exp"),
                                       scalar_like(x, 2.0, "add/y"), "add"),
                                unary("Exp", x, "Exp_1"), "add_1");
    d2x = binary("RealDiv", mul(g[0], dy, "mul"), denom, "truediv");
  }
  return {ddy, d2x};
}

// _BaseFusedBatchNormGrad: FusedBatchNormGrad{,V2,V3} of the op's reserve spaces in
// training, of its population statistics in inference (NCHW transposed to NHWC and NCDHW to
// NDHWC around it, as Python does; the 5-D formats run as NDHWC).
Grads fused_batch_norm_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const std::string type = op.type();
  const std::string grad_type = type == "FusedBatchNormV3"   ? "FusedBatchNormGradV3"
                                : type == "FusedBatchNormV2" ? "FusedBatchNormGradV2"
                                                             : "FusedBatchNormGrad";
  float epsilon = 1e-4f;
  if (auto v = op.node_def().attr<float>("epsilon")) epsilon = *v;
  bool is_training = true;
  if (auto v = op.node_def().attr<bool>("is_training")) is_training = *v;
  const std::string format = string_attr(op, "data_format", "NHWC");
  Output x = input(op, 0), dy = g[0];
  const bool five = format == "NDHWC" || format == "NCDHW";
  const bool transpose = !is_training && (format == "NCHW" || format == "NCDHW");
  auto permute = [&](const Output& t, std::vector<std::int64_t> perm, const char* name) {
    return gr
        .create_op("Transpose", {t, int_constant(gr, perm, std::string(name) + "/perm")},
                   {{"T", t.dtype()}, {"Tperm", DType::int32}}, name)
        .output(0);
  };
  if (transpose) {
    const std::vector<std::int64_t> to_last =
        five ? std::vector<std::int64_t>{0, 2, 3, 4, 1} : std::vector<std::int64_t>{0, 2, 3, 1};
    x = permute(x, to_last, "transpose");
    dy = permute(dy, to_last, "transpose_1");
  }
  std::vector<Output> inputs{dy, x, input(op, 1)};
  if (is_training) {
    inputs.push_back(op.output(3));
    inputs.push_back(op.output(4));
  } else {
    inputs.push_back(input(op, 3));
    inputs.push_back(input(op, 4));
  }
  if (grad_type == "FusedBatchNormGradV3") inputs.push_back(op.output(5));
  AttrMap attrs{{"T", x.dtype()},
                {"epsilon", epsilon},
                {"data_format", transpose ? std::string(five ? "NDHWC" : "NHWC") : format},
                {"is_training", is_training}};
  if (grad_type != "FusedBatchNormGrad") attrs.emplace("U", input(op, 1).dtype());
  Operation grad = gr.create_op(grad_type, inputs, std::move(attrs), grad_type);
  Output dx = grad.output(0);
  if (transpose)
    dx = permute(
        dx, five ? std::vector<std::int64_t>{0, 4, 1, 2, 3} : std::vector<std::int64_t>{0, 3, 1, 2},
        "transpose_2");
  return {dx, grad.output(1), grad.output(2), Output(), Output()};
}

}  // namespace

// _TopKGrad: the values' gradient scattered (ScatterNd) to the flat positions the indices
// name, row by row, reshaped to the input's shape; k gets none.
Grads top_k_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), ind = op.output(1), grad = g[0];
  Graph& gr = op.graph();
  const DType it = ind.dtype();
  // The last dimension of a shape vector, as int64.
  auto last_dim = [&](const Output& shape_vec, const char* cast, const char* size_name,
                      const char* sub_name, const char* gather_name) {
    const Output one = gr.constant(Tensor(std::int32_t{1}), std::string(sub_name) + "/y");
    return gather(af::cast(shape_vec, DType::int64, cast),
                  sub(size(shape_vec, DType::int32, size_name), one, sub_name), gather_name);
  };
  const Output in_shape = shape(x, it, "Shape");
  const Output ind_shape = shape(ind, DType::int32, "Shape_1");
  const Output ind_lastdim = last_dim(ind_shape, "Cast", "Size", "sub", "GatherV2");
  const Output minus_one = gr.constant(Tensor(std::int64_t{-1}), "stack/0");
  const Output ind_2d = reshape(ind, stack({minus_one, ind_lastdim}, 0, "stack"), "Reshape");
  const Output in_lastdim = last_dim(in_shape, "Cast_1", "Size_1", "sub_1", "GatherV2_1");
  const Output outerdim = strided_slice(shape(ind_2d, DType::int32, "Shape_2"), {0}, {1}, {1},
                                        StridedSliceMasks{.shrink_axis_mask = 1}, "strided_slice");
  const Output starts = range(gr.constant(Tensor(std::int64_t{0}), "range/start"),
                              mul(af::cast(outerdim, DType::int64, "Cast_2"), in_lastdim, "mul"),
                              in_lastdim, "range");
  const Output flat =
      reshape(add(ind_2d, af::cast(expand_dims(starts, -1, "ExpandDims"), it, "Cast_3"), "add"),
              std::vector<std::int64_t>{-1}, "Reshape_1");
  const Output total = stack({reduce_prod(in_shape, std::nullopt, false, "Prod")}, 0, "stack_1");
  const Output scattered =
      scatter_nd(expand_dims(flat, -1, "ExpandDims_1"),
                 reshape(grad, std::vector<std::int64_t>{-1}, "Reshape_2"), total, "ScatterNd");
  Grads out{reshape(scattered, in_shape, "Reshape_3")};
  if (op.node()->inputs().size() == 2) out.emplace_back();  // TopKV2's k
  return out;
}

void register_nn_gradients(GradientRegistry& r) {
  r.add("TopK", top_k_grad);
  r.add("TopKV2", top_k_grad);
  r.add_not_differentiable("InTopK");
  r.add_not_differentiable("InTopKV2");
  for (const char* type : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
    r.add(type, fused_batch_norm_grad);
  // _SoftplusGrad: grad * sigmoid(x), as TensorFlow 2's Python builds it.
  r.add("Softplus", [](const Operation& op, const Grads& g) -> Grads {
    return {mul(g[0], unary("Sigmoid", input(op, 0), "Sigmoid"), "mul")};
  });
  r.add("SoftplusGrad", softplus_grad_grad);
  r.add("Softsign", [](const Operation& op, const Grads& g) -> Grads {
    return {activation_grad("SoftsignGrad", g[0], input(op, 0))};
  });
  r.add("Elu", [](const Operation& op, const Grads& g) -> Grads {
    return {activation_grad("EluGrad", g[0], op.output(0))};
  });
  r.add("Selu", [](const Operation& op, const Grads& g) -> Grads {
    return {activation_grad("SeluGrad", g[0], op.output(0))};
  });
  r.add("EluGrad", elu_selu_grad_grad);
  r.add("SeluGrad", elu_selu_grad_grad);
  // _Relu6Grad reads the output (0 < y < 6 exactly where 0 < x < 6).
  r.add("Relu6", [](const Operation& op, const Grads& g) -> Grads {
    return {activation_grad("Relu6Grad", g[0], op.output(0))};
  });
  r.add("Relu6Grad", [](const Operation& op, const Grads& g) -> Grads {
    const Output x = input(op, 1);
    return {activation_grad("Relu6Grad", g[0], x), zeros_like_op(x, "zeros_like")};
  });
  r.add("BiasAdd", [](const Operation& op, const Grads& g) -> Grads {
    const std::string format = string_attr(op, "data_format", "NHWC");
    Output bias_grad = op.graph()
                           .create_op("BiasAddGrad", {g[0]},
                                      {{"T", g[0].dtype()}, {"data_format", format}}, "BiasAddGrad")
                           .output(0);
    return {g[0], bias_grad};
  });
  r.add("Conv2D", conv2d_grad);
  r.add("DepthwiseConv2dNative", depthwise_conv2d_grad);
  r.add("LRN", lrn_grad);
  r.add("MaxPool", max_pool_grad);
  r.add("AvgPool", avg_pool_grad);
  r.add("SoftmaxCrossEntropyWithLogits", softmax_xent_grad);
  r.add("SparseSoftmaxCrossEntropyWithLogits", sparse_softmax_xent_grad);
  r.add_not_differentiable("BroadcastGradientArgs");
}

}  // namespace af::detail
