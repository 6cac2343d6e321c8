// Gradients of ReverseSequence (array_grad.py) and CTCLoss (ctc_ops.py); the CTC decoders and
// EditDistance are not differentiable, as in TensorFlow.
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/seq_ctc_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _ReverseSequenceGrad: ReverseSequence is a permutation; the gradient is permuted back.
Grads reverse_sequence_grad(const Operation& op, const Grads& g) {
  const std::int64_t* seq_dim = op.node_def().attr<std::int64_t>("seq_dim");
  const std::int64_t* batch_dim = op.node_def().attr<std::int64_t>("batch_dim");
  if (seq_dim == nullptr)
    throw InvalidArgumentError(
        invalid_argument("gradient of '" + op.name() + "': missing attr seq_dim"));
  return {
      reverse_sequence(g[0], input(op, 1), *seq_dim, batch_dim ? *batch_dim : 0, "ReverseSequence"),
      Output()};
}

// _CTCLossGrad: the loss's gradient broadcast over the batch rows of the op's second output,
// which PreventGradient guards against a second derivative (ctc_ops.py's
// _CTCLossGradImpl).
Grads ctc_loss_grad(const Operation& op, const Grads& g) {
  const Output gradient = prevent_gradient(
      op.output(1),
      "Currently there is no way to take the second  derivative of ctc_loss due to the fused "
      "implementation's interaction  with tf.gradients()",
      "PreventGradient");
  // _BroadcastMul: expand_dims(grad_loss, -1) * gradient.
  const Output expanded = expand_dims(g[0], -1, "ExpandDims");
  return {mul(expanded, gradient, "mul"), Output(), Output(), Output()};
}

}  // namespace

void register_seq_ctc_gradients(GradientRegistry& r) {
  r.add("ReverseSequence", reverse_sequence_grad);
  r.add("CTCLoss", ctc_loss_grad);
  r.add_not_differentiable("CTCGreedyDecoder");
  r.add_not_differentiable("CTCBeamSearchDecoder");
  r.add_not_differentiable("EditDistance");
}

}  // namespace af::detail
