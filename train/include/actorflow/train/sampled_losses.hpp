#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/candidate_sampling_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/train/partitioned_variables.hpp"

/// Sampled losses over many classes (TensorFlow's nn_impl.py `tf.compat.v1.nn.nce_loss` and
/// `tf.compat.v1.nn.sampled_softmax_loss`): each step scores the true classes and a sample of
/// others drawn by a candidate sampler (ops/candidate_sampling_ops.hpp) instead of every
/// class, so only the rows of the class embeddings used leave their parameter servers
/// (`embedding_lookup`, partitioned weights included) and only their gradients come back,
/// as IndexedSlices.
namespace af::train {

/// Options of `nce_loss` and `sampled_softmax_loss`.
struct SampledLossOptions {
  /// The true classes per example (the columns of `labels`); each has target 1 / num_true.
  std::int64_t num_true = 1;
  /// The sampler's outputs to use; unset: `log_uniform_candidate_sampler(labels, num_true,
  /// num_sampled, unique=true, range_max=num_classes, seed)` under the loss's scope.
  std::optional<CandidateSamplerOutputs> sampled_values;
  /// Whether a sampled class equal to one of the row's true classes gets logit -FLT_MAX
  /// added (ComputeAccidentalHits, SparseToDense); unset: false for NCE, true for sampled
  /// softmax, TensorFlow's defaults.
  std::optional<bool> remove_accidental_hits;
  /// How class ids map to the parts of `weights` and `biases` ("mod" or "div"), as
  /// `EmbeddingLookupOptions::partition_strategy`.
  std::string partition_strategy = "mod";
  /// The loss's name scope; empty: "nce_loss" or "sampled_softmax_loss".
  std::string name;
  /// The sampler's op seed (with the graph's, `Graph::get_seed`).
  std::optional<std::int64_t> seed;
};

/// `tf.compat.v1.nn.nce_loss(weights, biases, labels, inputs, num_sampled, num_classes)`:
/// the per-example noise-contrastive estimation loss, a float vector [batch]. `weights` are
/// the parts of the class embeddings [num_classes, dim] (concatenated along axis 0),
/// `biases` those of the class biases [num_classes], `labels` the true classes [batch,
/// num_true] (int64, or cast to it), `inputs` the activations [batch, dim] (float32). The
/// graph is TensorFlow's _compute_sampled_logits: the true and sampled ids looked up
/// together, true logits as row-wise dot products, sampled logits as a MatMul, the biases
/// added, the logs of the expected counts subtracted, then the sigmoid cross entropy
/// against targets 1 / num_true and 0, summed per row. Differentiable with respect to the
/// weights, biases and inputs (the sampler's outputs pass StopGradient). Throws
/// InvalidArgumentError as the candidate sampler and embedding_lookup do.
Output nce_loss(const std::vector<Output>& weights, const std::vector<Output>& biases,
                const Output& labels, const Output& inputs, std::int64_t num_sampled,
                std::int64_t num_classes, const SampledLossOptions& options = {});

/// As above with the class embeddings a partitioned variable (split along axis 0).
Output nce_loss(const PartitionedVariable& weights, const std::vector<Output>& biases,
                const Output& labels, const Output& inputs, std::int64_t num_sampled,
                std::int64_t num_classes, const SampledLossOptions& options = {});

/// `tf.compat.v1.nn.sampled_softmax_loss(weights, biases, labels, inputs, num_sampled,
/// num_classes)`: the per-example sampled softmax loss, a float vector [batch]: the logits
/// of `nce_loss` (accidental hits removed by default) through
/// softmax_cross_entropy_with_logits_v2 against the stopped targets 1 / num_true and 0. The
/// arguments are nce_loss's.
Output sampled_softmax_loss(const std::vector<Output>& weights, const std::vector<Output>& biases,
                            const Output& labels, const Output& inputs, std::int64_t num_sampled,
                            std::int64_t num_classes, const SampledLossOptions& options = {});

/// As above with the class embeddings a partitioned variable (split along axis 0).
Output sampled_softmax_loss(const PartitionedVariable& weights, const std::vector<Output>& biases,
                            const Output& labels, const Output& inputs, std::int64_t num_sampled,
                            std::int64_t num_classes, const SampledLossOptions& options = {});

}  // namespace af::train
