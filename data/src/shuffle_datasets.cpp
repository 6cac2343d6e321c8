// tf.data's random datasets (TensorFlow's shuffle_dataset_op.cc, random_dataset_op.cc and the
// seed generators of random_seed_ops.cc): ShuffleDataset and ShuffleAndRepeatDataset, yielding
// their elements in the order TensorFlow 2.21 does for the same seeds, and RandomDataset.
//
// How TensorFlow seeds them. Each dataset object (one run of the op's kernel) owns a seed
// generator made from the op's (seed, seed2) inputs, both replaced by fresh random numbers
// when both are 0. With `reshuffle_each_iteration` it is a Philox stream
// (PhiloxRandom(seed, seed2) read 32 bits at a time) of which every epoch takes the next two
// samples as its own (seed, seed2); without it every epoch gets (seed, seed2) itself. An epoch
// begins when an iterator is made (TensorFlow's Iterator::Initialize; a RepeatDataset makes
// one per repetition, so the repetitions of one dataset object continue the stream) and, in
// ShuffleAndRepeatDataset, each time the buffer's oldest epoch runs out. The epoch's indices
// come from its own PhiloxRandom(seed, seed2), 32 bits a draw. Running the op again (a
// re-initialised iterator) makes a new dataset and so starts the stream over.
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/philox_random.hpp"
#include "dataset_base.hpp"
#include "dataset_registration.hpp"
#include "dataset_resources.hpp"

namespace af::data::detail {
namespace {

/// The most epochs whose elements the buffer holds at once (TensorFlow's kMaxEpochsInBuffer).
constexpr std::int64_t kMaxEpochsInBuffer = 3;

/// A buffer_size meaning "the whole epoch": the buffer grows to hold it.
constexpr std::int64_t kShuffleAll = kUnknownCardinality;

/// ShuffleDataset (count 1) and ShuffleAndRepeatDataset (count epochs, -1 for ever).
class ShuffleDataset final : public DatasetBase {
 public:
  /// Shuffles `input` through a buffer of `buffer_size` elements (kShuffleAll: an epoch).
  ShuffleDataset(std::string op, std::vector<DType> dtypes, std::vector<PartialShape> shapes,
                 std::shared_ptr<const DatasetBase> input, std::int64_t buffer_size,
                 std::int64_t count, std::shared_ptr<SeedGenerator> seed_generator)
      : DatasetBase(std::move(op), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        count_(count),
        seed_generator_(std::move(seed_generator)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override;

  std::int64_t cardinality() const override {
    const std::int64_t n = input_->cardinality();
    if (count_ == -1 || n == kInfiniteCardinality) return kInfiniteCardinality;
    if (n == kUnknownCardinality) return kUnknownCardinality;
    return n * count_;
  }

  const DatasetBase& input() const noexcept { return *input_; }
  std::int64_t buffer_size() const noexcept { return buffer_size_; }
  std::int64_t count() const noexcept { return count_; }
  /// The dataset's seed stream: shared, mutable state of an immutable dataset (each new
  /// iterator and each epoch takes the next seeds).
  SeedGenerator& seed_generator() const noexcept { return *seed_generator_; }

 private:
  std::shared_ptr<const DatasetBase> input_;
  std::int64_t buffer_size_;
  std::int64_t count_;
  std::shared_ptr<SeedGenerator> seed_generator_;
};

/// TensorFlow's ShuffleDatasetBase::Iterator. The buffer is a ring of `capacity_` slots
/// addressed by logical positions modulo `capacity_`; `slices_` holds, per buffered epoch,
/// the positions of its elements, and elements are drawn from the oldest epoch only.
class ShuffleIterator final : public IteratorBase {
 public:
  explicit ShuffleIterator(std::shared_ptr<const ShuffleDataset> dataset)
      : dataset_(std::move(dataset)),
        capacity_(dataset_->buffer_size() == kShuffleAll ? 0 : dataset_->buffer_size()),
        generator_(0, 0) {
    // Iterator::Initialize: the first epoch's seeds.
    reset_generator(dataset_->seed_generator().generate_seeds());
  }

  Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
    ACTORFLOW_RETURN_IF_ERROR(fill_buffer(env));
    if (num_elements_ == 0) {
      *end = true;
      return {};
    }
    *end = false;
    clear_empty_slices();
    // Choose an element uniformly at random from the first slice, then remove it.
    Slice& front = slices_.front();
    const auto offset = static_cast<std::int64_t>(
        generator_() % static_cast<std::uint64_t>(front.end - front.start));
    // Both positions hold elements of the slice, so their storage exists.
    auto& chosen = buffer_.at(static_cast<std::size_t>((front.start + offset) % capacity_));
    auto& first = buffer_.at(static_cast<std::size_t>(front.start % capacity_));
    *out = std::move(chosen);
    std::swap(chosen, first);
    first.clear();
    ++front.start;
    --num_elements_;
    return {};
  }

 private:
  /// The buffer positions of one epoch's elements: [start, end), modulo the capacity.
  struct Slice {
    std::int64_t start = 0;
    std::int64_t end = 0;
    bool reached_end_of_sequence = false;  ///< the epoch's input has ended
  };

  void reset_generator(RandomSeeds seeds) {
    generator_ = PhiloxSingleSample(static_cast<std::uint64_t>(seeds.seed),
                                    static_cast<std::uint64_t>(seeds.seed2));
  }

  // The storage behind position `index` (< capacity_), grown on first use so a large
  // buffer_size costs memory only for the elements it holds.
  std::vector<Tensor>& slot(std::int64_t index) {
    const auto i = static_cast<std::size_t>(index);
    if (i >= buffer_.size()) buffer_.resize(i + 1);
    return buffer_[i];
  }

  bool should_fill_buffer() const {
    if (!input_impl_ && dataset_->count() != -1 && epoch_ >= dataset_->count()) return false;
    // When the buffer spans more than kMaxEpochsInBuffer epochs it is not filled further (to
    // bound its memory by kMaxEpochsInBuffer * cardinality(input) + 1 elements).
    if (static_cast<std::int64_t>(slices_.size()) > kMaxEpochsInBuffer && num_elements_ > 0)
      return false;
    // Shuffling whole epochs: the buffer grows while the current epoch fills it.
    if (dataset_->buffer_size() == kShuffleAll &&
        (slices_.empty() || (!slices_.back().reached_end_of_sequence &&
                             slices_.back().end - slices_.back().start == capacity_)))
      return true;
    return num_elements_ < capacity_;
  }

  Status prepare_next_epoch() {
    const std::int64_t n = slices_.empty() ? 0 : slices_.back().end;
    slices_.push_back({n, n, false});
    input_impl_ = dataset_->input().make_iterator();
    ++epoch_;
    return {};
  }

  Status fill_buffer(const IteratorEnv& env) {
    while (should_fill_buffer()) {
      if (!input_impl_) ACTORFLOW_RETURN_IF_ERROR(prepare_next_epoch());
      std::vector<Tensor> element;
      bool end_of_input = false;
      ACTORFLOW_RETURN_IF_ERROR(input_impl_->get_next(env, &element, &end_of_input));
      if (!end_of_input) {
        add_to_buffer(std::move(element));
        continue;
      }
      input_impl_.reset();
      slices_.back().reached_end_of_sequence = true;
      // An input that ends before producing anything would repeat for ever without an
      // element: end the iteration instead.
      if (!data_produced_ && dataset_->count() == -1) return {};
    }
    return {};
  }

  void add_to_buffer(std::vector<Tensor> element) {
    data_produced_ = true;
    if (num_elements_ == capacity_) {
      // Only when shuffling whole epochs: a new slot at the end.
      slot(capacity_) = std::move(element);
      ++capacity_;
    } else {
      slot(slices_.back().end % capacity_) = std::move(element);
    }
    ++num_elements_;
    ++slices_.back().end;
  }

  // Drops the exhausted oldest epochs; the next one draws with a new epoch's seeds.
  void clear_empty_slices() {
    while (slices_.front().start == slices_.front().end) {
      slices_.pop_front();
      reset_generator(dataset_->seed_generator().generate_seeds());
    }
  }

  std::shared_ptr<const ShuffleDataset> dataset_;
  std::vector<std::vector<Tensor>> buffer_;  ///< the ring's storage (up to capacity_ slots)
  std::int64_t capacity_;                    ///< the ring's size (TensorFlow's buffer_->size())
  std::unique_ptr<IteratorBase> input_impl_;
  std::int64_t epoch_ = 0;
  std::int64_t num_elements_ = 0;
  std::deque<Slice> slices_;
  PhiloxSingleSample generator_;  ///< the current epoch's draws
  bool data_produced_ = false;
};

std::unique_ptr<IteratorBase> ShuffleDataset::make_iterator() const {
  return std::make_unique<ShuffleIterator>(std::static_pointer_cast<const ShuffleDataset>(self()));
}

/// The kernel of ShuffleDataset (inputs input_dataset, buffer_size, seed, seed2),
/// ShuffleDatasetV2 (input_dataset, buffer_size, seed_generator), ShuffleDatasetV3 (the
/// first's and seed_generator), ShuffleAndRepeatDataset (the first's and count) and
/// ShuffleAndRepeatDatasetV2 (that and seed_generator); attribute reshuffle_each_iteration
/// (default true). A seed generator input from AnonymousSeedGenerator decides the seeds and
/// the reshuffling; a DummySeedGenerator's leaves them to the op (ShuffleDatasetV2: fresh
/// random seeds, reshuffled each iteration).
class ShuffleDatasetOp final : public DatasetOpKernel {
 public:
  ShuffleDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s) {
    if (const bool* reshuffle = c.def.attr<bool>("reshuffle_each_iteration"))
      reshuffle_each_iteration_ = *reshuffle;
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    std::int64_t buffer_size = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "buffer_size", &buffer_size));
    if (buffer_size <= 0 && buffer_size != kShuffleAll)
      return invalid_argument("buffer_size must be greater than zero or UNKNOWN_CARDINALITY");
    const bool v2 = type() == "ShuffleDatasetV2";
    std::int64_t seed = 0;
    std::int64_t seed2 = 0;
    if (!v2) {
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "seed", &seed));
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 3, "seed2", &seed2));
    }
    const bool repeats = type().starts_with("ShuffleAndRepeatDataset");
    std::int64_t count = 1;
    if (repeats) {
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 4, "count", &count));
      if (count <= 0 && count != -1)
        return invalid_argument("count must be greater than zero or equal to -1.");
    }
    const RandomSeeds seeds = RandomSeeds::from(seed, seed2);
    std::shared_ptr<SeedGenerator> seed_generator;
    if (v2)
      ACTORFLOW_RETURN_IF_ERROR(seed_generator_input(ctx, 2, seeds, true, &seed_generator));
    else if (type() == "ShuffleDatasetV3" || type() == "ShuffleAndRepeatDatasetV2")
      ACTORFLOW_RETURN_IF_ERROR(seed_generator_input(ctx, repeats ? 5 : 4, seeds,
                                                     reshuffle_each_iteration_, &seed_generator));
    else
      seed_generator = std::make_shared<SeedGenerator>(seeds, reshuffle_each_iteration_);
    *out = std::make_shared<ShuffleDataset>(type(), dtypes_, shapes_, std::move(input), buffer_size,
                                            count, std::move(seed_generator));
    return {};
  }

 private:
  bool reshuffle_each_iteration_ = true;
};

/// RandomDataset (TensorFlow's random_dataset_op.cc): endless int64 scalars, each the next
/// 32-bit sample of PhiloxRandom(seed, seed2) for the seeds the iterator's epoch takes from
/// the seed generator (the op's seeds every time unless `rerandomize_each_iteration`).
class RandomDataset final : public DatasetBase {
 public:
  RandomDataset(std::string op, std::shared_ptr<SeedGenerator> seed_generator)
      : DatasetBase(std::move(op), {DType::int64}, {PartialShape(Shape{})}),
        seed_generator_(std::move(seed_generator)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<RandomDataset> {
      explicit It(const RandomDataset& d) : DatasetIterator(d), generator(start(d)) {}
      static PhiloxSingleSample start(const RandomDataset& d) {
        const RandomSeeds seeds = d.seed_generator_->generate_seeds();
        return PhiloxSingleSample(static_cast<std::uint64_t>(seeds.seed),
                                  static_cast<std::uint64_t>(seeds.seed2));
      }
      PhiloxSingleSample generator;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        out->assign(1, Tensor(static_cast<std::int64_t>(generator())));
        *end = false;
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override { return kInfiniteCardinality; }

 private:
  std::shared_ptr<SeedGenerator> seed_generator_;
};

/// The kernel of RandomDataset and ExperimentalRandomDataset (inputs seed, seed2) and of
/// RandomDatasetV2 (and seed_generator); attribute rerandomize_each_iteration (default false).
class RandomDatasetOp final : public DatasetOpKernel {
 public:
  RandomDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {
    if (const bool* rerandomize = c.def.attr<bool>("rerandomize_each_iteration"))
      rerandomize_ = *rerandomize;
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::int64_t seed = 0, seed2 = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 0, "seed", &seed));
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "seed2", &seed2));
    const RandomSeeds seeds = RandomSeeds::from(seed, seed2);
    std::shared_ptr<SeedGenerator> seed_generator;
    if (op_ == "RandomDatasetV2")
      ACTORFLOW_RETURN_IF_ERROR(seed_generator_input(ctx, 2, seeds, rerandomize_, &seed_generator));
    else
      seed_generator = std::make_shared<SeedGenerator>(seeds, rerandomize_);
    *out = std::make_shared<RandomDataset>(op_, std::move(seed_generator));
    return {};
  }

 private:
  std::string op_;
  bool rerandomize_ = false;
};

}  // namespace

void register_shuffle_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"ShuffleDataset", "ShuffleDatasetV2", "ShuffleDatasetV3",
                         "ShuffleAndRepeatDataset", "ShuffleAndRepeatDatasetV2"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<ShuffleDatasetOp>(op, "CPU"));
  }
  for (const char* op : {"RandomDataset", "RandomDatasetV2", "ExperimentalRandomDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<RandomDatasetOp>(op, "CPU"));
  }
}

}  // namespace af::data::detail
