#pragma once

// The range samplers of the candidate sampler kernels (TensorFlow's kernels/range_sampler.h,
// lib/random/simple_philox.h, weighted_picker.h and distribution_sampler.h): each draws from
// the same 32-bit Philox words in the same order as TensorFlow's, so a sampler op gives
// TensorFlow's candidates and expected counts for the same (seed, seed2). Private to the
// kernels module; the kernels are in candidate_sampler_ops.cpp.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/status.hpp"
#include "kernel_helpers.hpp"

namespace af::detail::sampling {

/// TensorFlow's random::SimplePhilox: an imperative interface to the 32-bit words of a
/// Philox generator (SingleSampleAdapter), which must outlive it.
class SimplePhilox {
 public:
  /// Draws from `*gen`, starting with its next call.
  explicit SimplePhilox(PhiloxRandom* gen) : single_(gen) {}
  /// 32 random bits.
  std::uint32_t rand32() { return single_(); }
  /// 64 random bits: the first word low.
  std::uint64_t rand64();
  /// A float in [0, 1) from one word (Uint32ToFloat).
  float rand_float();
  /// A double in [0, 1) from two words (Uint64ToDouble).
  double rand_double();
  /// An integer in [0, n), by rejection (ExactUniformInt): as many words as it takes.
  std::uint32_t uniform(std::uint32_t n);
  /// An integer in [0, n) from 64-bit draws, by rejection.
  std::uint64_t uniform64(std::uint64_t n);

 private:
  SingleSampleAdapter single_;
};

/// TensorFlow's RangeSampler: draws integers in [0, range) and knows the probability of each.
class RangeSampler {
 public:
  /// A sampler over [0, range); `range` is positive.
  explicit RangeSampler(std::int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;
  RangeSampler(const RangeSampler&) = delete;
  RangeSampler& operator=(const RangeSampler&) = delete;

  /// One draw.
  virtual std::int64_t sample(SimplePhilox& rnd) const = 0;
  /// The probability that one draw gives `value` (in [0, range)).
  virtual float probability(std::int64_t value) const = 0;

  /// SampleBatchGetExpectedCount: fills `batch` with draws (each distinct when `unique`,
  /// redrawn until it is) and the expected count of each of `batch` and `extras` in such a
  /// batch (with `unique`, the inclusion probability 1 - (1 - p)^tries, tries the draws it
  /// took). `batch_expected` is empty or as long as `batch`; `extras_expected` as long as
  /// `extras`. With `unique`, `batch` is not longer than the range.
  virtual void sample_batch(SimplePhilox& rnd, bool unique, std::span<std::int64_t> batch,
                            std::span<float> batch_expected, std::span<const std::int64_t> extras,
                            std::span<float> extras_expected) const;

  /// Whether `update` learns from the true classes (the unigram samplers).
  virtual bool needs_updates() const { return false; }
  /// Counts `values` (true classes) into the distribution; only where needs_updates().
  virtual void update(std::span<const std::int64_t> /*values*/) {}

  /// The size of the range.
  std::int64_t range() const { return range_; }

 protected:
  const std::int64_t range_;  ///< the size of the range
};

/// AllSampler: a batch of exactly `range` values is the whole range in order, each with
/// expected count 1 (so are the extras); it draws nothing.
class AllSampler final : public RangeSampler {
 public:
  /// The sampler of [0, range).
  explicit AllSampler(std::int64_t range) : RangeSampler(range) {}
  /// Never called (the batch is the range).
  std::int64_t sample(SimplePhilox& /*rnd*/) const override { return 0; }
  /// Never called.
  float probability(std::int64_t /*value*/) const override { return 0; }
  /// The range in order; every expected count 1.
  void sample_batch(SimplePhilox& rnd, bool unique, std::span<std::int64_t> batch,
                    std::span<float> batch_expected, std::span<const std::int64_t> extras,
                    std::span<float> extras_expected) const override;
};

/// UniformSampler: every value with probability 1 / range (Uniform64).
class UniformSampler final : public RangeSampler {
 public:
  /// The sampler of [0, range).
  explicit UniformSampler(std::int64_t range);
  /// rnd.uniform64(range).
  std::int64_t sample(SimplePhilox& rnd) const override;
  /// 1 / range.
  float probability(std::int64_t value) const override;

 private:
  float inv_range_;
};

/// LogUniformSampler: Zipfian, P(k) = log((k + 2) / (k + 1)) / log(range + 1); a draw is
/// floor(exp(u * log(range + 1))) - 1 for a uniform double u.
class LogUniformSampler final : public RangeSampler {
 public:
  /// The sampler of [0, range).
  explicit LogUniformSampler(std::int64_t range);
  /// One draw from two words.
  std::int64_t sample(SimplePhilox& rnd) const override;
  /// log((value + 2) / (value + 1)) / log(range + 1).
  float probability(std::int64_t value) const override;

 private:
  double log_range_;
};

/// TensorFlow's WeightedPicker as the unigram samplers use it: integer weights (all 1 at
/// first) and a draw of an index with probability weight / total, as a uniform integer
/// below the total located among the prefix sums.
class WeightedPicker {
 public:
  /// `n` weights of 1.
  explicit WeightedPicker(std::int64_t n);
  /// The index whose prefix-sum interval holds a uniform draw below the total (-1 when the
  /// total is 0).
  std::int64_t pick(SimplePhilox& rnd) const;
  /// The weight of `index`.
  std::int32_t weight(std::int64_t index) const { return leaves_[static_cast<std::size_t>(index)]; }
  /// Sets the weight of `index`.
  void set_weight(std::int64_t index, std::int32_t weight);
  /// The sum of the weights.
  std::int32_t total_weight() const { return total_; }

 private:
  std::vector<std::int32_t> leaves_;
  std::vector<std::int32_t> tree_;  // Fenwick tree of the weights (1-based)
  std::int32_t total_ = 0;
};

/// UnigramSampler (LearnedUnigram and ThreadUnsafeUnigram): draws with probability
/// proportional to 1 + the times a value was a true class in earlier runs (updated after
/// each run, up to a total of 2^31 - 1).
class UnigramSampler final : public RangeSampler {
 public:
  /// The sampler of [0, range), every value seen once; `range` below 2^31 - 1.
  explicit UnigramSampler(std::int64_t range) : RangeSampler(range), picker_(range) {}
  /// picker.pick(rnd).
  std::int64_t sample(SimplePhilox& rnd) const override;
  /// weight(value) / total weight.
  float probability(std::int64_t value) const override;
  /// True.
  bool needs_updates() const override { return true; }
  /// Adds 1 to the weight of each of `values`.
  void update(std::span<const std::int64_t> values) override;

 private:
  WeightedPicker picker_;
};

/// Walker's alias method (TensorFlow's random::DistributionSampler): a uniform bucket and a
/// uniform float choose the bucket's value or its alias.
class DistributionSampler {
 public:
  /// The alias table of `weights` (not empty), built as TensorFlow builds it.
  explicit DistributionSampler(const std::vector<float>& weights);
  /// One draw: a float, then a bucket.
  std::int64_t sample(SimplePhilox& rnd) const;

 private:
  std::vector<std::pair<float, int>> data_;  // (probability, alias) per bucket
};

/// FixedUnigramSampler: probabilities proportional to given weights (a vocabulary file's last
/// comma-separated column, or a list), each raised to `distortion`, after `num_reserved_ids`
/// ids of weight 0; with `num_shards` > 1 only the ids `id % num_shards == shard` count.
class FixedUnigramSampler final : public RangeSampler {
 public:
  /// The sampler's settings; weights come from `load_file` or `load_unigrams`.
  FixedUnigramSampler(std::int64_t range, float distortion, std::int32_t num_reserved_ids,
                      std::int32_t num_shards, std::int32_t shard);
  /// Reads the weights from the vocabulary file `path`: the file's error (its name and
  /// the system's reason) if it cannot be read; InvalidArgument "Wrong vocabulary format at
  /// line: <line>" for a last column that is no number, "range is 10 must be equal to
  /// weights size  9" when the weights (reserved ids included) do not fill the range.
  Status load_file(const std::string& path);
  /// Takes the weights from `unigrams`; InvalidArgument as load_file when they do not fill
  /// the range.
  Status load_unigrams(const std::vector<float>& unigrams);
  /// The alias table's draw.
  std::int64_t sample(SimplePhilox& rnd) const override;
  /// weight / total weight (0 outside the weights).
  float probability(std::int64_t value) const override;

 private:
  void add_weight(float w);
  Status finish();

  std::vector<float> weights_;
  float total_weight_ = 0;
  std::int32_t num_shards_;
  std::int32_t shard_;
  float distortion_;
  std::unique_ptr<DistributionSampler> dist_;
};

}  // namespace af::detail::sampling
