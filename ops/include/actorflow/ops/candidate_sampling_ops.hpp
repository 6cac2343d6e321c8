#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Candidate sampling (TensorFlow's candidate_sampling_ops.py, `tf.random.*_candidate_sampler`):
/// the negative classes that sampled softmax and NCE train against (train/sampled_losses.hpp).
/// Each sampler op is stateful: its kernel keeps a Philox generator seeded from (seed, seed2)
/// (`Graph::get_seed(seed)`, fresh random seeds when both are 0) and gives TensorFlow's
/// candidates and expected counts for the same pair, run after run. The ops have no
/// gradient (TensorFlow registers them not differentiable).
namespace af {

/// What a candidate sampler returns.
struct CandidateSamplerOutputs {
  Output sampled_candidates;      ///< int64 [num_sampled]: the sampled classes
  Output true_expected_count;     ///< float [batch, num_true]: each true class's expected count
  Output sampled_expected_count;  ///< float [num_sampled]: each sampled class's expected count
};

/// `tf.random.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, seed)`: classes drawn uniformly from [0, range_max) (op
/// UniformCandidateSampler, named `name` or after its type). `true_classes` is int64
/// [batch, num_true]. With `unique` the candidates are distinct and an expected count is
/// the inclusion probability 1 - (1 - p)^tries; else it is p * num_sampled. Throws
/// InvalidArgumentError for num_true, num_sampled or range_max below 1 ("Value for attr
/// 'num_sampled' of 0 must be at least minimum 1"), true classes of another dtype or rank.
/// Running fails with "`true_candidate` out of range [0, 10), received 12" and, with
/// `unique`, "Sampler's range is too small." when num_sampled > range_max.
CandidateSamplerOutputs uniform_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                                  std::int64_t num_sampled, bool unique,
                                                  std::int64_t range_max,
                                                  std::optional<std::int64_t> seed = std::nullopt,
                                                  std::string_view name = {});

/// `tf.random.log_uniform_candidate_sampler`: as uniform_candidate_sampler with the
/// log-uniform (Zipfian) distribution P(k) = log((k + 2) / (k + 1)) / log(range_max + 1),
/// for classes sorted by decreasing frequency (op LogUniformCandidateSampler). The sampler
/// sampled softmax and NCE take by default.
CandidateSamplerOutputs log_uniform_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, std::optional<std::int64_t> seed = std::nullopt,
    std::string_view name = {});

/// `tf.random.learned_unigram_candidate_sampler`: as uniform_candidate_sampler with
/// probabilities proportional to 1 + the number of times each class was a true class in the
/// kernel's earlier runs (op LearnedUnigramCandidateSampler). Throws InvalidArgumentError
/// "range_max must be less than 2147483647 for unigram samplers" past that.
CandidateSamplerOutputs learned_unigram_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, std::optional<std::int64_t> seed = std::nullopt,
    std::string_view name = {});

/// The distribution of `fixed_unigram_candidate_sampler`.
struct FixedUnigramOptions {
  /// A CSV file whose lines' last fields are the classes' counts or probabilities, in class
  /// order; exactly one of `vocab_file` and `unigrams` is given.
  std::string vocab_file;
  /// The weights themselves, in class order.
  std::vector<float> unigrams;
  /// Each weight is raised to this power (1: unchanged, 0: uniform).
  float distortion = 1.0f;
  /// Classes [0, num_reserved_ids) come first with weight 0 (before the file's or list's).
  std::int64_t num_reserved_ids = 0;
  /// The vocabulary split into this many shards, of which this sampler draws from ...
  std::int64_t num_shards = 1;
  /// ... shard `shard` (the classes `id % num_shards == shard`, renumbered in order).
  std::int64_t shard = 0;
};

/// `tf.random.fixed_unigram_candidate_sampler`: as uniform_candidate_sampler with the fixed
/// distribution of `options` (op FixedUnigramCandidateSampler; Walker's alias method).
/// Running fails with "Must provide either vocab_file or unigrams.", "Must only provide one
/// of vocab_file and unigrams.", the file's error ("v.txt; No such file or directory"),
/// "Wrong vocabulary format at line: ..." or "range is 10 must be equal to weights size  9"
/// when the weights do not cover [0, range_max).
CandidateSamplerOutputs fixed_unigram_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, const FixedUnigramOptions& options,
    std::optional<std::int64_t> seed = std::nullopt, std::string_view name = {});

/// `tf.random.all_candidate_sampler`: every class of [0, num_sampled) in order, each with
/// expected count 1 (op AllCandidateSampler); for tests of the sampled losses.
CandidateSamplerOutputs all_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                              std::int64_t num_sampled, bool unique,
                                              std::optional<std::int64_t> seed = std::nullopt,
                                              std::string_view name = {});

/// What compute_accidental_hits returns: one entry per true class that was also sampled.
struct AccidentalHits {
  Output indices;  ///< int32: the row of the true class
  Output ids;      ///< int64: the position of the sampled candidate equal to it (the last)
  Output weights;  ///< float: -FLT_MAX, to add to the sampled logit
};

/// `tf.nn.compute_accidental_hits(true_classes, sampled_candidates, num_true, seed)` (op
/// ComputeAccidentalHits): the sampled candidates that equal one of their row's true
/// classes. Throws InvalidArgumentError for true classes not [batch, num_true] or sampled
/// candidates not a vector ("Shape must be rank 1 but is rank 2").
AccidentalHits compute_accidental_hits(const Output& true_classes, const Output& sampled_candidates,
                                       std::int64_t num_true,
                                       std::optional<std::int64_t> seed = std::nullopt,
                                       std::string_view name = {});

}  // namespace af
