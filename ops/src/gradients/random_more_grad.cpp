// Gradients of the random ops of kernels/src/random_more_ops.cpp and random_more2_ops.cpp.
// The stateless random ops have none: TensorFlow registers the V1 and V2 fillers and
// StatelessMultinomial not differentiable (stateless_random_ops.py), and
// ParameterizedTruncatedNormal too (random_ops.py), as are the candidate samplers and
// ComputeAccidentalHits (candidate_sampling_ops.py). The key/counter ops
// (StatelessRandomGetKeyCounterAlg, StatelessRandomGetKeyCounter, StatelessRandomGetAlg),
// RandomPoisson, RandomPoissonV2, RandomGammaGrad and StatelessParameterizedTruncatedNormal have
// no entry, as in TensorFlow, so a gradient through them fails with "No gradient defined";
// StatelessRandomPoisson and StatelessRandomBinomial are not differentiable. RandomGamma's is
// random_grad.py's _RandomGammaGrad, StatelessRandomGammaV2's and V3's its
// _StatelessGammaGradAlpha.
#include <cstdint>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _RandomGammaGrad: with alpha reshaped to [1] * num_sample_dimensions + alpha.shape
// (add_leading_unit_dimensions), sum(grad * RandomGammaGrad(alpha, sample)) over the sample
// dimensions; only alpha (input `alpha_at`) gets a gradient. Built after the gradient arrives
// (control_dependencies([grad])). The stateless forms (_StatelessGammaGradAlpha): alpha is the
// shape's tail, so the sample dimensions are shape's length less alpha's rank.
Grads gamma_grad(const Operation& op, const Grads& g, int alpha_at) {
  Graph& gr = op.graph();
  const Output shape = input(op, 0), alpha = input(op, alpha_at), sample = op.output(0);
  const bool stateless = alpha_at > 1;
  auto deps = gr.control_dependencies({g[0].op()});
  // array_ops.shape(shape)[0] (less array_ops.rank(alpha)).
  Output num_sample_dimensions =
      strided_slice(shape_of(shape, "Shape"), {0}, {1}, {1},
                    StridedSliceMasks{.shrink_axis_mask = 1}, "strided_slice");
  if (stateless)
    num_sample_dimensions =
        binary("Sub", num_sample_dimensions,
               gr.create_op("Rank", {alpha}, {{"T", alpha.dtype()}}, "Rank").output(0), "sub");
  // array_ops.ones([num_sample_dimensions], dtype=int32): Fill "ones" of Pack "ones/packed".
  const std::string ones_name = gr.unique_name("ones");
  Output packed, one;
  {
    auto scope = gr.name_scope(ones_name + "/");
    packed = stack({num_sample_dimensions}, 0, "packed");
    one = gr.constant(Tensor(std::int32_t{1}), "Const");
  }
  const Output ones =
      gr.create_op("Fill", {packed, one}, {{"T", DType::int32}, {"index_type", DType::int32}},
                   ones_name + "/")
          .output(0);
  const Output new_shape = concat({ones, shape_of(alpha, "Shape_1")}, 0, "concat");
  const Output alpha_broadcastable = reshape_op(alpha, new_shape, "Reshape");
  const Output partial_a =
      binary("RandomGammaGrad", alpha_broadcastable, sample, "RandomGammaGrad");
  const Output weighted = binary("Mul", g[0], partial_a, "mul");
  Grads out(static_cast<std::size_t>(alpha_at) + 1);  // alpha is the last input
  out[static_cast<std::size_t>(alpha_at)] =
      sum_op(weighted, range(num_sample_dimensions, "range"), false, "Sum");
  return out;
}

}  // namespace

void register_random_more_gradients(GradientRegistry& r) {
  for (const char* type :
       {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
        "StatelessRandomUniformInt", "StatelessRandomUniformFullInt", "StatelessMultinomial",
        "StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
        "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
        "ParameterizedTruncatedNormal", "StatelessRandomPoisson", "StatelessRandomBinomial",
        // candidate_sampling_ops.py
        "UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
        "ThreadUnsafeUnigramCandidateSampler", "FixedUnigramCandidateSampler",
        "AllCandidateSampler", "ComputeAccidentalHits"})
    r.add_not_differentiable(type);
  r.add("RandomGamma", [](const Operation& op, const Grads& g) { return gamma_grad(op, g, 1); });
  r.add("StatelessRandomGammaV2",
        [](const Operation& op, const Grads& g) { return gamma_grad(op, g, 2); });
  r.add("StatelessRandomGammaV3",
        [](const Operation& op, const Grads& g) { return gamma_grad(op, g, 4); });
}

}  // namespace af::detail
