// UniformCandidateSampler, LogUniformCandidateSampler, LearnedUnigramCandidateSampler,
// ThreadUnsafeUnigramCandidateSampler, FixedUnigramCandidateSampler, AllCandidateSampler and
// ComputeAccidentalHits: the CPU kernels (TensorFlow's candidate_sampler_ops.cc), with its
// checks and messages. Each sampler kernel keeps its generator (seeded from "seed" and
// "seed2") and its sampler across runs: a run reserves 2048 words per sampled candidate, so
// later runs continue TensorFlow's stream, and the learned unigram samplers count each
// run's true classes. The samplers are in range_sampler.cpp; the definitions in
// ops/src/defs/candidate_sampling_ops.cpp.
#include <cfloat>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "range_sampler.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;
namespace sampling = detail::sampling;

// BaseCandidateSamplerOp: samples `num_sampled` candidates for a batch of true classes
// [batch, num_true] (int64, each in the sampler's range) and gives each candidate's and
// each true class's expected count.
class CandidateSamplerOp : public StatusKernel {
 public:
  CandidateSamplerOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read(c);
    if (s->ok()) *s = generator_.init(c);
  }

 protected:
  // Sets the sampler (from the derived constructor); without one the kernel fails.
  void set_sampler(std::unique_ptr<sampling::RangeSampler> sampler) {
    sampler_ = std::move(sampler);
  }

 private:
  Status read(OpKernelConstruction& c) {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_sampled", &num_sampled_));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_true", &num_true_));
    return c.get_attr("unique", &unique_);
  }

  Status run(OpKernelContext& ctx) override {
    const Tensor& true_classes = ctx.input(0);
    if (true_classes.rank() != 2) return invalid_argument("true_classes must be a matrix");
    const Index batch_size = true_classes.shape().dim(0);
    if (true_classes.shape().dim(1) != num_true_)
      return invalid_argument("true_classes must have num_true columns, expected: " +
                              std::to_string(true_classes.shape().dim(1)) +
                              " was: " + std::to_string(num_true_));
    if (!sampler_) return internal("CandidateSamplerOp did not set sampler_");
    if (unique_ && num_sampled_ > sampler_->range())
      return invalid_argument("Sampler's range is too small.");
    Tensor& sampled = ctx.allocate_output(0, DType::int64, Shape{num_sampled_});
    Tensor& true_expected = ctx.allocate_output(1, DType::float32, Shape{batch_size, num_true_});
    Tensor& sampled_expected = ctx.allocate_output(2, DType::float32, Shape{num_sampled_});
    const std::span<const std::int64_t> true_candidates(
        true_classes.data<std::int64_t>(), static_cast<std::size_t>(true_classes.num_elements()));
    for (std::int64_t candidate : true_candidates)
      if (candidate < 0 || candidate >= sampler_->range())
        return invalid_argument("`true_candidate` out of range [0, " +
                                std::to_string(sampler_->range()) + "), received " +
                                std::to_string(candidate));
    // TensorFlow's conservative estimate of the words a run takes (rejections may take more,
    // reusing words of the next run's stretch).
    PhiloxRandom local = generator_.reserve_samples32(2048 * num_sampled_);
    sampling::SimplePhilox rnd(&local);
    // The learned samplers' draws and updates of one kernel are serialised (TensorFlow's
    // UnigramSampler takes a lock around each).
    std::lock_guard<std::mutex> lock(mu_);
    sampler_->sample_batch(
        rnd, unique_,
        std::span<std::int64_t>(sampled.data<std::int64_t>(),
                                static_cast<std::size_t>(num_sampled_)),
        std::span<float>(sampled_expected.data<float>(), static_cast<std::size_t>(num_sampled_)),
        true_candidates, std::span<float>(true_expected.data<float>(), true_candidates.size()));
    if (sampler_->needs_updates()) sampler_->update(true_candidates);
    return {};
  }

  std::int64_t num_true_ = 1;
  std::int64_t num_sampled_ = 1;
  bool unique_ = false;
  std::unique_ptr<sampling::RangeSampler> sampler_;
  detail::GuardedPhiloxRandom generator_;
  std::mutex mu_;
};

// Uniform, LogUniform and the learned unigram samplers over [0, range_max).
template <class Sampler>
class SimpleCandidateSamplerOp : public CandidateSamplerOp {
 public:
  SimpleCandidateSamplerOp(OpKernelConstruction& c, Status* s) : CandidateSamplerOp(c, s) {
    if (!s->ok()) return;
    std::int64_t range_max = 0;
    *s = c.get_attr("range_max", &range_max);
    if (!s->ok()) return;
    if (range_max <= 0) {
      *s = invalid_argument("range_max must be positive");
      return;
    }
    if (std::is_same_v<Sampler, sampling::UnigramSampler> &&
        range_max >= std::numeric_limits<std::int32_t>::max()) {
      *s = invalid_argument("range_max must be less than " +
                            std::to_string(std::numeric_limits<std::int32_t>::max()) +
                            " for unigram samplers, got " + std::to_string(range_max));
      return;
    }
    set_sampler(std::make_unique<Sampler>(range_max));
  }
};

// AllCandidateSampler: the whole range [0, num_sampled), in order.
class AllCandidateSamplerOp : public CandidateSamplerOp {
 public:
  AllCandidateSamplerOp(OpKernelConstruction& c, Status* s) : CandidateSamplerOp(c, s) {
    if (!s->ok()) return;
    std::int64_t range_max = 0;
    *s = c.get_attr("num_sampled", &range_max);
    if (s->ok()) set_sampler(std::make_unique<sampling::AllSampler>(range_max));
  }
};

// FixedUnigramCandidateSampler: the weights of a vocabulary file or of attr unigrams.
class FixedUnigramCandidateSamplerOp : public CandidateSamplerOp {
 public:
  FixedUnigramCandidateSamplerOp(OpKernelConstruction& c, Status* s) : CandidateSamplerOp(c, s) {
    if (s->ok()) *s = build(c);
  }

 private:
  Status build(OpKernelConstruction& c) {
    std::int64_t range_max = 0, num_reserved_ids = 0, num_shards = 1, shard = 0;
    std::string vocab_file;
    float distortion = 1.0f;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("range_max", &range_max));
    c.get_attr("vocab_file", &vocab_file);
    // An empty list may come back from a GraphDef without a type: no unigrams.
    std::vector<float> unigrams;
    if (auto v = c.def.attr<std::vector<float>>("unigrams")) unigrams = *v;
    if (vocab_file.empty() && unigrams.empty())
      return invalid_argument("Must provide either vocab_file or unigrams.");
    if (!vocab_file.empty() && !unigrams.empty())
      return invalid_argument("Must only provide one of vocab_file and unigrams.");
    c.get_attr("distortion", &distortion);
    c.get_attr("num_reserved_ids", &num_reserved_ids);
    c.get_attr("num_shards", &num_shards);
    c.get_attr("shard", &shard);
    if (num_shards < 1) return invalid_argument("num_shards must be at least 1");
    if (shard < 0 || shard >= num_shards)
      return invalid_argument("shard must be in [0, num_shards)");
    auto sampler = std::make_unique<sampling::FixedUnigramSampler>(
        range_max, distortion, static_cast<std::int32_t>(num_reserved_ids),
        static_cast<std::int32_t>(num_shards), static_cast<std::int32_t>(shard));
    ACTORFLOW_RETURN_IF_ERROR(vocab_file.empty() ? sampler->load_unigrams(unigrams)
                                                 : sampler->load_file(vocab_file));
    set_sampler(std::move(sampler));
    return {};
  }
};

// ComputeAccidentalHits: for each true class equal to a sampled candidate (the last
// position where one repeats), its row, the candidate's position and weight -FLT_MAX.
class ComputeAccidentalHitsOp : public StatusKernel {
 public:
  ComputeAccidentalHitsOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("num_true", &num_true_);
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& true_classes = ctx.input(0);
    const Tensor& sampled = ctx.input(1);
    if (true_classes.rank() != 2 || true_classes.shape().dim(1) != num_true_)
      return invalid_argument("true_candidates must be a batch_size * num_true matrix");
    if (sampled.rank() != 1)
      return invalid_argument(
          "sampled_candidates must be a vector, which is typically an output from "
          "CandidateSampler");
    const Index batch_size = true_classes.shape().dim(0);
    const Index num_sampled = sampled.shape().dim(0);
    std::unordered_map<std::int64_t, Index> position;
    position.reserve(static_cast<std::size_t>(num_sampled));
    const std::int64_t* s = sampled.data<std::int64_t>();
    for (Index i = 0; i < num_sampled; ++i) position[s[i]] = i;
    std::vector<std::int32_t> indices;
    std::vector<std::int64_t> ids;
    const std::int64_t* t = true_classes.data<std::int64_t>();
    for (Index i = 0; i < batch_size; ++i)
      for (Index j = 0; j < num_true_; ++j)
        if (auto it = position.find(t[i * num_true_ + j]); it != position.end()) {
          indices.push_back(static_cast<std::int32_t>(i));
          ids.push_back(it->second);
        }
    const auto n = static_cast<Index>(indices.size());
    Tensor& out_indices = ctx.allocate_output(0, DType::int32, Shape{n});
    Tensor& out_ids = ctx.allocate_output(1, DType::int64, Shape{n});
    Tensor& out_weights = ctx.allocate_output(2, DType::float32, Shape{n});
    std::copy(indices.begin(), indices.end(), out_indices.data<std::int32_t>());
    std::copy(ids.begin(), ids.end(), out_ids.data<std::int64_t>());
    std::fill_n(out_weights.data<float>(), n, -FLT_MAX);
    return {};
  }

  std::int64_t num_true_ = 1;
};

}  // namespace

namespace detail {

void register_candidate_sampler_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SimpleCandidateSamplerOp<sampling::UniformSampler>>(
      "UniformCandidateSampler", "CPU"));
  r.add(make_kernel_def<SimpleCandidateSamplerOp<sampling::LogUniformSampler>>(
      "LogUniformCandidateSampler", "CPU"));
  r.add(make_kernel_def<SimpleCandidateSamplerOp<sampling::UnigramSampler>>(
      "LearnedUnigramCandidateSampler", "CPU"));
  r.add(make_kernel_def<SimpleCandidateSamplerOp<sampling::UnigramSampler>>(
      "ThreadUnsafeUnigramCandidateSampler", "CPU"));
  r.add(make_kernel_def<AllCandidateSamplerOp>("AllCandidateSampler", "CPU"));
  r.add(make_kernel_def<FixedUnigramCandidateSamplerOp>("FixedUnigramCandidateSampler", "CPU"));
  r.add(make_kernel_def<ComputeAccidentalHitsOp>("ComputeAccidentalHits", "CPU"));
}

}  // namespace detail

}  // namespace af
