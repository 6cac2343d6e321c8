// The datasets that transform other datasets without running functions (TensorFlow's
// repeat_dataset_op.cc, take_dataset_op.cc, skip_dataset_op.cc, batch_dataset_op.cc,
// padded_batch_dataset_op.cc, zip_dataset_op.cc, concatenate_dataset_op.cc,
// cache_dataset_ops.cc, prefetch_dataset_op.cc and the options-only datasets: model, optimize,
// rewrite, ...).
#include <cstring>
#include <mutex>

#include "background_iterator.hpp"
#include "dataset_base.hpp"
#include "dataset_registration.hpp"

namespace af::data::detail {

namespace {

// -- pass-through: prefetch, model, optimize, options, thread pools -------------------------

class PassThroughDataset final : public UnaryDataset {
 public:
  using UnaryDataset::UnaryDataset;
  std::unique_ptr<IteratorBase> make_iterator() const override { return input().make_iterator(); }
  std::int64_t cardinality() const override { return input().cardinality(); }
};

// -- PrefetchDataset: a thread of its own keeps up to buffer_size elements ready -------------

/// The buffer of `prefetch(tf.data.AUTOTUNE)` (TensorFlow tunes it at run time).
constexpr std::int64_t kAutotuneBuffer = 4;

class PrefetchDataset final : public UnaryDataset {
 public:
  PrefetchDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                  std::int64_t buffer_size, std::vector<DType> dtypes,
                  std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        buffer_size_(buffer_size == -1 ? kAutotuneBuffer : buffer_size) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    if (buffer_size_ == 0) return input().make_iterator();
    return make_background_iterator(input().make_iterator(), nullptr, 1,
                                    static_cast<std::size_t>(buffer_size_));
  }
  std::int64_t cardinality() const override { return input().cardinality(); }

 private:
  std::int64_t buffer_size_;
};

struct Prefetch {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t buffer_size = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "buffer_size", &buffer_size));
    if (buffer_size < 0 && buffer_size != -1)
      return invalid_argument(
          "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning");
    *out = std::make_shared<PrefetchDataset>(op, std::move(input), buffer_size, dtypes, shapes);
    return {};
  }
};

// -- RepeatDataset ----------------------------------------------------------------------------

class RepeatDataset final : public UnaryDataset {
 public:
  RepeatDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::int64_t count,
                std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        count_(count) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<RepeatDataset> {
      using DatasetIterator::DatasetIterator;
      std::int64_t epoch = 0;
      bool produced_this_epoch = false;
      std::unique_ptr<IteratorBase> input;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        const std::int64_t count = ds->count_;
        while (count < 0 || epoch < count) {
          if (!input) {
            input = ds->input().make_iterator();
            produced_this_epoch = false;
          }
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, &input_end));
          if (!input_end) {
            produced_this_epoch = true;
            *end = false;
            return {};
          }
          input.reset();
          // An input with no elements ends an endless repeat (TensorFlow's check).
          if (count < 0 && !produced_this_epoch) break;
          // A finite repeat makes its next input iterator at once, also after the last epoch
          // (TensorFlow's FiniteIterator: a shuffle's seed stream advances for it).
          if (count >= 0 && ++epoch >= 0) {
            input = ds->input().make_iterator();
            produced_this_epoch = false;
          }
        }
        *end = true;
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (count_ < 0) return n == 0 ? 0 : (n == kUnknownCardinality ? n : kInfiniteCardinality);
    if (n < 0) return count_ == 0 ? 0 : n;
    return n * count_;
  }

 private:
  std::int64_t count_;
};

// RepeatDataset, TakeDataset, SkipDataset: input 1 is the count.
template <class D>
struct WithCount {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t count = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "count", &count));
    *out = std::make_shared<D>(op, std::move(input), count, dtypes, shapes);
    return {};
  }
};

// -- TakeDataset, SkipDataset -------------------------------------------------------------------

class TakeSkipDataset final : public UnaryDataset {
 public:
  TakeSkipDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::int64_t count,
                  std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        take_(this->op() == "TakeDataset"),
        count_(count) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<TakeSkipDataset> {
      using DatasetIterator::DatasetIterator;
      std::int64_t seen = 0;
      std::unique_ptr<IteratorBase> input;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        if (ds->take_) {
          if (ds->count_ >= 0 && seen >= ds->count_) {
            *end = true;
            return {};
          }
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
          if (!*end) ++seen;
          return {};
        }
        // Skip: a negative count skips everything.
        while (ds->count_ < 0 || seen < ds->count_) {
          std::vector<Tensor> skipped;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &skipped, end));
          if (*end) return {};
          ++seen;
        }
        return input->get_next(env, out, end);
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (take_) {
      if (count_ == 0) return 0;
      if (n == kInfiniteCardinality) return count_ < 0 ? n : count_;
      if (n == kUnknownCardinality) return n;
      return count_ < 0 ? n : std::min(n, count_);
    }
    if (n == kInfiniteCardinality) return count_ < 0 ? 0 : n;
    if (n == kUnknownCardinality) return n;
    return count_ < 0 ? 0 : std::max<std::int64_t>(0, n - count_);
  }

 private:
  bool take_;
  std::int64_t count_;
};

}  // namespace

// Batching: batch_datasets.cpp; zip, concatenate and cache: combine_datasets.cpp.
void register_batch_datasets(OpRegistry& ops, KernelRegistry& kernels);
void register_combine_datasets(OpRegistry& ops, KernelRegistry& kernels);

void register_transform_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  // Options, tuning and graph rewrites: the elements pass through unchanged.
  for (const char* op :
       {"ModelDataset", "OptimizeDataset", "OptimizeDatasetV2", "OptionsDataset", "FinalizeDataset",
        "MaxIntraOpParallelismDataset", "PrivateThreadPoolDataset", "AssertNextDataset",
        "NonSerializableDataset", "RewriteDataset", "ExperimentalAssertNextDataset",
        "ExperimentalMaxIntraOpParallelismDataset", "ExperimentalPrivateThreadPoolDataset",
        "ExperimentalNonSerializableDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<UnaryDatasetOp<MakeUnary<PassThroughDataset>>>(op, "CPU"));
  }
  for (const char* op : {"PrefetchDataset", "RepeatDataset", "TakeDataset", "SkipDataset"})
    add_dataset_op(ops, op);
  kernels.add(make_kernel_def<UnaryDatasetOp<Prefetch>>("PrefetchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<WithCount<RepeatDataset>>>("RepeatDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<WithCount<TakeSkipDataset>>>("TakeDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<WithCount<TakeSkipDataset>>>("SkipDataset", "CPU"));
  register_batch_datasets(ops, kernels);
  register_combine_datasets(ops, kernels);
}

}  // namespace af::data::detail
