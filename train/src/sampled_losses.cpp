// nce_loss and sampled_softmax_loss: the graph of TensorFlow's nn_impl.py
// _compute_sampled_logits, op for op, then each loss's cross entropy.
#include "actorflow/train/sampled_losses.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/sparse_ops.hpp"
#include "actorflow/train/embedding_ops.hpp"

namespace af::train {

namespace {

// The logits [batch, num_true + num_sampled] and their targets.
struct SampledLogits {
  Output logits;
  Output labels;
};

// `x[0]` of a vector: StridedSlice with shrink_axis_mask 1.
Output first(const Output& x) {
  return strided_slice(x, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{1},
                       std::vector<std::int64_t>{1}, {.shrink_axis_mask = 1});
}

// An int32 vector Const.
Output int32_vector(Graph& g, const std::vector<std::int32_t>& v, std::string_view name) {
  Tensor t(DType::int32, Shape{static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<std::int32_t>());
  return g.constant(t, name);
}

// _sum_rows: x [n, m] times a column of ones, as a vector (a MatMul, as TensorFlow sums).
Output sum_rows(const Output& x) {
  Graph& g = x.graph();
  const Output cols =
      strided_slice(shape(x), std::vector<std::int64_t>{1}, std::vector<std::int64_t>{2},
                    std::vector<std::int64_t>{1}, {.shrink_axis_mask = 1});
  const Output ones_shape = stack({cols, g.constant(Tensor(std::int32_t{1}), "stack/1")});
  const Output ones = fill(ones_shape, g.constant(Tensor(1.0f), "ones/Const"), "ones");
  return reshape(matmul(x, cast(ones, x.dtype())), std::vector<std::int64_t>{-1});
}

// nn_impl.sigmoid_cross_entropy_with_logits: max(x, 0) - x * z + log(1 + exp(-|x|)).
Output sigmoid_cross_entropy_with_logits(const Output& labels, const Output& logits) {
  Graph& g = logits.graph();
  auto scope = g.name_scope(g.unique_name("logistic_loss") + "/");
  const Output zeros = zeros_like(logits);
  const Output cond = greater_equal(logits, zeros);
  const Output relu_logits = select(cond, logits, zeros, "Select");
  const Output neg_abs_logits = select(cond, neg(logits), logits, "Select_1");
  return add(sub(relu_logits, mul(logits, labels)), log1p(exp(neg_abs_logits)), "logistic_loss");
}

SampledLogits compute_sampled_logits(const std::vector<Output>& weights,
                                     const std::vector<Output>& biases, const Output& labels_in,
                                     const Output& inputs, std::int64_t num_sampled,
                                     std::int64_t num_classes, bool remove_accidental_hits,
                                     const SampledLossOptions& options, const std::string& name) {
  if (weights.empty() || biases.empty())
    throw InvalidArgumentError(invalid_argument(name + ": weights and biases need a part each"));
  Graph& g = inputs.graph();
  auto scope = g.name_scope(g.unique_name(name) + "/");
  const std::int64_t num_true = options.num_true;
  const Output labels = cast(labels_in, DType::int64);
  const Output labels_flat = reshape(labels, std::vector<std::int64_t>{-1});
  const CandidateSamplerOutputs sampled_values =
      options.sampled_values
          ? *options.sampled_values
          : log_uniform_candidate_sampler(labels, num_true, num_sampled,
                                          /*unique=*/true, num_classes, options.seed);
  const Output sampled = cast(stop_gradient(sampled_values.sampled_candidates), DType::int64);
  const Output true_expected_count = stop_gradient(sampled_values.true_expected_count);
  const Output sampled_expected_count = stop_gradient(sampled_values.sampled_expected_count);
  // The true classes' and the sampled classes' rows in one lookup each.
  const Output all_ids = concat({labels_flat, sampled}, 0);
  EmbeddingLookupOptions lookup;
  lookup.partition_strategy = options.partition_strategy;
  lookup.name = "embedding_lookup";
  Output all_w = cast(embedding_lookup(weights, all_ids, lookup), inputs.dtype());
  const Output num_labels = first(shape(labels_flat));
  const Output true_w = slice(all_w, int32_vector(g, {0, 0}, "Slice/begin"),
                              stack({num_labels, g.constant(Tensor(std::int32_t{-1}), "stack/1")}));
  const Output sampled_w =
      slice(all_w, stack({num_labels, g.constant(Tensor(std::int32_t{0}), "stack_1/1")}),
            int32_vector(g, {-1, -1}, "Slice_1/size"));
  Output sampled_logits = matmul(inputs, sampled_w, false, true);
  lookup.name = "embedding_lookup_1";
  const Output all_b = cast(embedding_lookup(biases, all_ids, lookup), inputs.dtype());
  Output true_b = slice(all_b, int32_vector(g, {0}, "Slice_2/begin"), shape(labels_flat));
  const Output sampled_b = slice(all_b, shape(labels_flat), int32_vector(g, {-1}, "Slice_3/size"));
  // Row-wise dot products of the inputs with their true classes' rows.
  const Output dim = strided_slice(shape(true_w), std::vector<std::int64_t>{1},
                                   std::vector<std::int64_t>{2}, std::vector<std::int64_t>{1});
  const Output new_true_w_shape = concat(
      {int32_vector(g, {-1, static_cast<std::int32_t>(num_true)}, "concat/values_0"), dim}, 0);
  const Output row_wise_dots = mul(expand_dims(inputs, 1), reshape(true_w, new_true_w_shape));
  const Output dots_as_matrix =
      reshape(row_wise_dots, concat({int32_vector(g, {-1}, "concat_1/values_0"), dim}, 0));
  Output true_logits = reshape(sum_rows(dots_as_matrix), std::vector<std::int64_t>{-1, num_true});
  true_b = reshape(true_b, std::vector<std::int64_t>{-1, num_true});
  true_logits = add(true_logits, true_b, "add");
  sampled_logits = add(sampled_logits, sampled_b, "add_1");
  if (remove_accidental_hits) {
    const AccidentalHits hits = compute_accidental_hits(labels, sampled, num_true);
    const Output indices_2d = reshape(hits.indices, std::vector<std::int64_t>{-1, 1});
    const Output ids_2d = reshape(cast(hits.ids, DType::int32), std::vector<std::int64_t>{-1, 1});
    const Output sparse_indices = concat({indices_2d, ids_2d}, 1, "sparse_indices");
    const Output logits_shape =
        concat({strided_slice(shape(labels), std::vector<std::int64_t>{0},
                              std::vector<std::int64_t>{1}, std::vector<std::int64_t>{1}),
                expand_dims(g.constant(Tensor(static_cast<std::int32_t>(num_sampled))), 0)},
               0);
    const Output weights_t = cast(hits.weights, sampled_logits.dtype());
    sampled_logits = add(sampled_logits,
                         sparse_to_dense(sparse_indices, logits_shape, weights_t,
                                         cast(g.constant(Tensor(0.0f)), sampled_logits.dtype()),
                                         /*validate_indices=*/false),
                         "add_2");
  }
  // subtract_log_q.
  true_logits = sub(true_logits, log(true_expected_count), "sub");
  sampled_logits = sub(sampled_logits, log(sampled_expected_count), "sub_1");
  const Output out_logits = concat({true_logits, sampled_logits}, 1);
  const Output true_targets =
      div(ones_like(true_logits),
          cast(g.constant(Tensor(static_cast<float>(num_true))), true_logits.dtype()), "truediv");
  const Output out_labels = concat({true_targets, zeros_like(sampled_logits)}, 1);
  return {out_logits, out_labels};
}

std::vector<Output> parts_of(const PartitionedVariable& v) {
  std::vector<Output> parts;
  for (const auto& p : v.parts()) parts.push_back(p.value());
  return parts;
}

}  // namespace

Output nce_loss(const std::vector<Output>& weights, const std::vector<Output>& biases,
                const Output& labels, const Output& inputs, std::int64_t num_sampled,
                std::int64_t num_classes, const SampledLossOptions& options) {
  const std::string name = options.name.empty() ? "nce_loss" : options.name;
  const SampledLogits s =
      compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                             options.remove_accidental_hits.value_or(false), options, name);
  Graph& g = inputs.graph();
  auto scope = g.name_scope(g.unique_name(name + "_1") + "/");
  return sum_rows(sigmoid_cross_entropy_with_logits(s.labels, s.logits));
}

Output nce_loss(const PartitionedVariable& weights, const std::vector<Output>& biases,
                const Output& labels, const Output& inputs, std::int64_t num_sampled,
                std::int64_t num_classes, const SampledLossOptions& options) {
  return nce_loss(parts_of(weights), biases, labels, inputs, num_sampled, num_classes, options);
}

Output sampled_softmax_loss(const std::vector<Output>& weights, const std::vector<Output>& biases,
                            const Output& labels, const Output& inputs, std::int64_t num_sampled,
                            std::int64_t num_classes, const SampledLossOptions& options) {
  const std::string name = options.name.empty() ? "sampled_softmax_loss" : options.name;
  const SampledLogits s =
      compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                             options.remove_accidental_hits.value_or(true), options, name);
  const Output targets = stop_gradient(s.labels, "labels_stop_gradient");
  return nn::softmax_cross_entropy_with_logits_v2(targets, s.logits);
}

Output sampled_softmax_loss(const PartitionedVariable& weights, const std::vector<Output>& biases,
                            const Output& labels, const Output& inputs, std::int64_t num_sampled,
                            std::int64_t num_classes, const SampledLossOptions& options) {
  return sampled_softmax_loss(parts_of(weights), biases, labels, inputs, num_sampled, num_classes,
                              options);
}

}  // namespace af::train
