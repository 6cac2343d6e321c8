#pragma once

// The state tf.data's datasets share across the dataset objects and iterators of one pipeline
// (TensorFlow's random_seed_ops.h and cache_ops.h): seed generators, memory caches, and the
// resources TensorFlow 2 graphs pass around for them (AnonymousSeedGenerator,
// AnonymousMemoryCache and their Dummy* and Delete* ops; AnonymousIterator* are in
// iterator_ops.cpp). Private to the data module.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/variant.hpp"

namespace af::data::detail {

/// A fresh random 64-bit number (TensorFlow's random::New64()).
std::uint64_t new64();

/// The seeds a dataset's generator starts from (TensorFlow's RandomSeeds): the op's, or two
/// fresh random numbers when both are 0.
struct RandomSeeds {
  std::int64_t seed = 0;   ///< the key of the generator
  std::int64_t seed2 = 0;  ///< the upper half of its counter

  /// TensorFlow's convention for the op's (`seed`, `seed2`) inputs.
  static RandomSeeds from(std::int64_t seed, std::int64_t seed2) {
    if ((seed | seed2) == 0) {
      seed = static_cast<std::int64_t>(new64());
      seed2 = static_cast<std::int64_t>(new64());
    }
    return {seed, seed2};
  }
};

/// The seeds of each epoch of a random dataset (TensorFlow's RandomSeedGenerator when
/// reshuffling each iteration, FixedSeedGenerator otherwise). Shared by every iterator made
/// from the datasets that use it; thread-safe.
class SeedGenerator {
 public:
  /// Starts the stream at `seeds`; `reshuffle_each_iteration` false hands out `seeds` always.
  SeedGenerator(RandomSeeds seeds, bool reshuffle_each_iteration)
      : seeds_(seeds),
        reshuffle_each_iteration_(reshuffle_each_iteration),
        generator_(static_cast<std::uint64_t>(seeds.seed),
                   static_cast<std::uint64_t>(seeds.seed2)) {}

  /// The next epoch's seeds: the stream's next two 32-bit samples, or the fixed seeds.
  RandomSeeds generate_seeds() {
    if (!reshuffle_each_iteration_) return seeds_;
    std::lock_guard<std::mutex> lock(mu_);
    RandomSeeds out;
    out.seed = generator_();
    out.seed2 = generator_();
    return out;
  }

  /// Whether each epoch gets new seeds.
  bool reshuffle_each_iteration() const noexcept { return reshuffle_each_iteration_; }

 private:
  const RandomSeeds seeds_;
  const bool reshuffle_each_iteration_;
  std::mutex mu_;
  PhiloxSingleSample generator_;  ///< guarded by mu_
};

/// The seed generator of a ShuffleDatasetV2/V3, ShuffleAndRepeatDatasetV2 or RandomDatasetV2
/// (TensorFlow's kernels: the resource input `index` when it names a seed generator, an
/// AnonymousSeedGenerator's; otherwise, a DummySeedGenerator's handle, one of the dataset's
/// own from `seeds` and `reshuffle`). InvalidArgument when the input is not a resource.
Status seed_generator_input(const OpKernelContext& ctx, int index, RandomSeeds seeds,
                            bool reshuffle, std::shared_ptr<SeedGenerator>* out);

/// The elements of a dataset's first complete pass, once one has ended (TensorFlow's
/// MemoryCache). Shared by the iterators of the datasets that use it; thread-safe.
class MemoryCache {
 public:
  /// The elements, or null while no pass has completed.
  std::shared_ptr<const std::vector<std::vector<Tensor>>> get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return elements_;
  }
  /// Keeps `elements` as the cache unless another pass completed first.
  void complete(std::vector<std::vector<Tensor>> elements) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!elements_)
      elements_ = std::make_shared<const std::vector<std::vector<Tensor>>>(std::move(elements));
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<std::vector<Tensor>>> elements_;
};

/// The memory cache of a CacheDatasetV2 (the resource input `index` when it names a memory
/// cache, an AnonymousMemoryCache's; otherwise, a DummyMemoryCache's handle, a new one).
/// InvalidArgument when the input is not a resource.
Status memory_cache_input(const OpKernelContext& ctx, int index, std::shared_ptr<MemoryCache>* out);

/// The `deleter` output of TensorFlow 2's anonymous resource ops (TensorFlow's
/// ResourceDeleter): a variant the matching Delete* op takes. The handle tensors keep the
/// resource alive here, so it holds nothing.
class ResourceDeleterValue final : public VariantValue {
 public:
  /// `"tensorflow::ResourceDeleter"`.
  std::string_view type_name() const override { return "tensorflow::ResourceDeleter"; }
  /// `"ResourceDeleter"`.
  std::string debug_string() const override { return "ResourceDeleter"; }
  /// Throws InvalidArgumentError: a deleter has no zeros.
  std::shared_ptr<const VariantValue> zeros_like() const override;
  /// Throws InvalidArgumentError: deleters do not add.
  std::shared_ptr<const VariantValue> add(const VariantValue& other) const override;
};

/// A scalar variant tensor holding a fresh ResourceDeleterValue.
Tensor deleter_tensor();

}  // namespace af::data::detail
