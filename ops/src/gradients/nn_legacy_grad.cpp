// Gradients of the legacy nn ops: BatchNormWithGlobalNormalization, FractionalMaxPool and
// FractionalAvgPool (nn_grad.py), QuantizeAndDequantizeV2, V3 (array_grad.py) and V4
// (array_ops.py). TensorFlow registers none for the Grad ops themselves and for the fused
// convolutions; its V4Grad gradient fails with a TypeError, so actorflow registers none
// either.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/nn_legacy_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

template <class T>
T attr_or(const Operation& op, const char* name, T fallback) {
  auto v = op.node_def().attr<T>(name);
  return v ? *v : fallback;
}

// _BatchNormWithGlobalNormalizationGrad: the Grad op of (t, m, v, gamma, grad) with the op's
// attrs gives all five gradients.
Grads batch_norm_grad(const Operation& op, const Grads& g) {
  const nn::BatchNormWithGlobalNormalizationGradOutputs d =
      nn::batch_norm_with_global_normalization_grad(
          input(op, 0), input(op, 1), input(op, 2), input(op, 4), g[0],
          attr_or(op, "variance_epsilon", 0.0f), attr_or(op, "scale_after_normalization", false),
          "BatchNormWithGlobalNormalizationGrad");
  return {d.dx, d.dm, d.dv, d.db, d.dg};
}

// _FractionalMaxPoolGrad: FractionalMaxPoolGrad of the op's input, output and sequences.
Grads fractional_max_pool_grad(const Operation& op, const Grads& g) {
  return {nn::fractional_max_pool_grad(input(op, 0), op.output(0), g[0], op.output(1), op.output(2),
                                       attr_or(op, "overlapping", false), "FractionalMaxPoolGrad")};
}

// _FractionalAvgPoolGrad: FractionalAvgPoolGrad of the input's static shape, converted under
// the op's scope as "FractionalAvgPoolGrad/orig_input_tensor_shape" (int64). Where the static
// shape is not fully known (Python fails) the shape is read when the step runs.
Grads fractional_avg_pool_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0);
  Graph& gr = op.graph();
  const std::string op_name = gr.unique_name("FractionalAvgPoolGrad");
  Output shape;
  {
    auto scope = gr.name_scope(op_name + "/");
    const PartialShape& s = x.shape();
    bool known = s.rank_known();
    for (int i = 0; known && i < s.rank(); ++i) known = s.dim(i) >= 0;
    if (known)
      shape = gr.constant(Tensor::from_vector(s.dims()), "orig_input_tensor_shape");
    else
      shape = gr.create_op("Shape", {x}, {{"T", x.dtype()}, {"out_type", DType::int64}},
                           "orig_input_tensor_shape")
                  .output(0);
  }
  return {nn::fractional_avg_pool_grad(shape, g[0], op.output(1), op.output(2),
                                       attr_or(op, "overlapping", false), op_name + "/")};
}

// _QuantizeAndDequantizeV4Grad: QuantizeAndDequantizeV4Grad(grad, input, min, max, axis).
Grads quantize_and_dequantize_v4_grad(const Operation& op, const Grads& g) {
  const QuantizeAndDequantizeV4GradOutputs d = af::quantize_and_dequantize_v4_grad(
      g[0], input(op, 0), input(op, 1), input(op, 2), attr_or(op, "axis", std::int64_t{-1}),
      "QuantizeAndDequantizeV4Grad");
  return {d.input_backprop, d.input_min_backprop, d.input_max_backprop};
}

}  // namespace

void register_nn_legacy_gradients(GradientRegistry& r) {
  r.add("BatchNormWithGlobalNormalization", batch_norm_grad);
  r.add("FractionalMaxPool", fractional_max_pool_grad);
  r.add("FractionalAvgPool", fractional_avg_pool_grad);
  // Straight through for the input, nothing for the range (and num_bits).
  r.add("QuantizeAndDequantizeV2", [](const Operation&, const Grads& g) -> Grads {
    return {g[0], Output(), Output()};
  });
  r.add("QuantizeAndDequantizeV3", [](const Operation&, const Grads& g) -> Grads {
    return {g[0], Output(), Output(), Output()};
  });
  r.add("QuantizeAndDequantizeV4", quantize_and_dequantize_v4_grad);
}

}  // namespace af::detail
