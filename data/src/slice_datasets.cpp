// Datasets that regroup or filter their input's elements without running functions
// (TensorFlow's shard_dataset_op.cc, unbatch_dataset_op.cc, window_dataset_op.cc,
// assert_cardinality_dataset_op.cc, unique_dataset_op.cc and ignore_errors_dataset_op.cc).
#include <cstring>
#include <deque>
#include <unordered_set>

#include "dataset_base.hpp"
#include "dataset_registration.hpp"

namespace af::data::detail {

namespace {

// -- ShardDataset -------------------------------------------------------------------------------

class ShardDataset final : public UnaryDataset {
 public:
  ShardDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::int64_t num_shards,
               std::int64_t index, bool require_non_empty, std::vector<DType> dtypes,
               std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        num_shards_(num_shards),
        index_(index),
        require_non_empty_(require_non_empty) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ShardDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      std::int64_t next_index = 0;
      bool done = false;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        *end = done;
        // Element i of the input belongs to shard i % num_shards.
        while (!done) {
          std::vector<Tensor> element;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
          if (*end) {
            done = true;
            if (ds->require_non_empty_ && next_index < ds->num_shards_)
              return invalid_argument(
                  "Could not apply FILE based sharding: the dataset only has " +
                  std::to_string(next_index) + " file(s), which is not enough for the required " +
                  std::to_string(ds->num_shards_) +
                  " shards/workers. If you are using datasets with distribution strategy, "
                  "consider setting the auto sharding policy to either DATA or OFF using the "
                  "`experimental_distribute.auto_shard_policy` option of `tf.data.Options()`. "
                  "Or, split your input files into a larger number of small files such that "
                  "number of files is greater than number of shards/workers.");
            return {};
          }
          if (next_index++ % ds->num_shards_ == ds->index_) {
            *out = std::move(element);
            return {};
          }
        }
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }

 private:
  std::int64_t num_shards_, index_;
  bool require_non_empty_;
};

struct Shard {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t num_shards = 0, index = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "num_shards", &num_shards));
    if (num_shards <= 0)
      return invalid_argument(
          "Number of shards must be greater than zero (currently num_shards = " +
          std::to_string(num_shards) + ").");
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "index", &index));
    if (index < 0 || index >= num_shards)
      return invalid_argument("Index must be between 0 and " + std::to_string(num_shards - 1) +
                              " (currently index = " + std::to_string(index) + ").");
    bool require_non_empty = false;
    if (const auto* attr = ctx.def().attr<bool>("require_non_empty")) require_non_empty = *attr;
    *out = std::make_shared<ShardDataset>(op, std::move(input), num_shards, index,
                                          require_non_empty, dtypes, shapes);
    return {};
  }
};

// -- UnbatchDataset -----------------------------------------------------------------------------

class UnbatchDataset final : public UnaryDataset {
 public:
  using UnaryDataset::UnaryDataset;

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<UnbatchDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool done = false;
      std::vector<Tensor> batch;
      std::int64_t index = 0, size = 0;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        while (!done) {
          if (index < size) {
            out->clear();
            for (const auto& t : batch) out->push_back(row_of(t, index));
            ++index;
            *end = false;
            return {};
          }
          index = size = 0;
          batch.clear();
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &batch, &input_end));
          if (input_end) {
            done = true;
            break;
          }
          for (std::size_t i = 0; i < batch.size(); ++i) {
            if (batch[i].shape().rank() == 0)
              return invalid_argument(
                  "Input element must have a non-scalar value in each component.");
            if (batch[i].shape().dim(0) != batch[0].shape().dim(0))
              return invalid_argument(
                  "Input element must have the same batch size in each component. Component 0 "
                  "had size " +
                  std::to_string(batch[0].shape().dim(0)) + " but component " + std::to_string(i) +
                  " had size, " + std::to_string(batch[i].shape().dim(0)) + ".");
          }
          size = batch.empty() ? 0 : batch[0].shape().dim(0);
        }
        *end = true;
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (n < 0) return n;
    // The batch size, where a component's shape knows it.
    for (const auto& s : input().shapes())
      if (s.rank_known() && s.rank() > 0 && s.dim(0) > 0) return n * s.dim(0);
    return kUnknownCardinality;
  }
};

// -- WindowDataset ------------------------------------------------------------------------------

class WindowDataset final : public UnaryDataset {
 public:
  WindowDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::int64_t size,
                std::int64_t shift, std::int64_t stride, bool drop_remainder,
                std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        shift_(shift),
        stride_(stride),
        drop_remainder_(drop_remainder),
        target_(static_cast<std::size_t>((size - 1) * stride + 1)) {}

  // TensorFlow's WindowDatasetOp::Dataset::Iterator::GetNextInternal: a buffer of the next
  // (size - 1) * stride + 1 elements; each window takes every stride-th of them, then the
  // buffer moves on by shift (reading and discarding elements when shift passes its end).
  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<WindowDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool started = false;
      std::deque<std::vector<Tensor>> buffer;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!started) {
          input = ds->input().make_iterator();
          started = true;
        }
        const std::size_t target = ds->target_;
        *end = false;
        while (input && buffer.size() < target) {
          std::vector<Tensor> element;
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, &input_end));
          if (input_end)
            input.reset();
          else
            buffer.push_back(std::move(element));
        }
        if (buffer.empty() || (ds->drop_remainder_ && buffer.size() < target)) {
          *end = true;
          return {};
        }
        const std::size_t stride = static_cast<std::size_t>(ds->stride_);
        const std::size_t count = 1 + (buffer.size() - 1) / stride;
        std::vector<std::vector<Tensor>> window;
        for (std::size_t i = 0; i < count; ++i) window.push_back(buffer[i * stride]);
        const std::size_t shift = static_cast<std::size_t>(ds->shift_);
        if (shift >= buffer.size()) {
          for (std::size_t i = buffer.size(); input && i < shift; ++i) {
            std::vector<Tensor> discarded;
            bool input_end = false;
            // As TensorFlow, a discarded element's error is ignored.
            (void)input->get_next(env, &discarded, &input_end);
            if (input_end) input.reset();
          }
          buffer.clear();
        } else {
          buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(shift));
        }
        // One dataset per component, over that component of the window's elements.
        out->clear();
        const auto& in = ds->input();
        for (std::size_t c = 0; c < in.dtypes().size(); ++c) {
          std::vector<std::vector<Tensor>> component;
          for (auto& element : window) component.push_back({std::move(element[c])});
          out->push_back(dataset_tensor(
              elements_dataset(std::move(component), {in.dtypes()[c]},
                               {c < in.shapes().size() ? in.shapes()[c] : PartialShape()})));
        }
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (n < 0) return n;
    if (drop_remainder_) {
      const std::int64_t rest = n - static_cast<std::int64_t>(target_);
      return rest < 0 ? 0 : rest / shift_ + 1;
    }
    return n / shift_ + (n % shift_ == 0 ? 0 : 1);
  }

 private:
  std::int64_t shift_, stride_;
  bool drop_remainder_;
  std::size_t target_;
};

struct Window {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t size = 0, shift = 0, stride = 0;
    bool drop = false;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "size", &size));
    if (size <= 0) return invalid_argument("Window size must be greater than zero.");
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "shift", &shift));
    if (shift <= 0) return invalid_argument("Window shift must be greater than zero.");
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 3, "stride", &stride));
    if (stride <= 0) return invalid_argument("Window stride must be greater than zero.");
    ACTORFLOW_RETURN_IF_ERROR(scalar_bool(ctx, 4, "drop_remainder", &drop));
    if (size - 1 > (std::int64_t{1} << 40) / stride)
      return invalid_argument(
          "Window target buffer size overflow: (window_size=" + std::to_string(size) +
          " - 1) * window_stride=" + std::to_string(stride) + " + 1 is not representable.");
    if (dtypes.size() != input->dtypes().size())
      return invalid_argument(op + " has " + std::to_string(dtypes.size()) +
                              " output types but its input has " +
                              std::to_string(input->dtypes().size()) + " components");
    *out = std::make_shared<WindowDataset>(op, std::move(input), size, shift, stride, drop, dtypes,
                                           shapes);
    return {};
  }
};

// -- AssertCardinalityDataset -------------------------------------------------------------------

std::string element_count(std::int64_t n) {
  if (n == kInfiniteCardinality) return "an infinite number of elements";
  return std::to_string(n) + (n == 1 ? " element" : " elements");
}

class AssertCardinalityDataset final : public UnaryDataset {
 public:
  AssertCardinalityDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                           std::int64_t count, std::vector<DType> dtypes,
                           std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        count_(count) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<AssertCardinalityDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      std::int64_t seen = 0;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
        if (!*end) ++seen;
        if (*end && seen != ds->count_)
          return failed_precondition("Input dataset was expected to contain " +
                                     element_count(ds->count_) + " but contained only " +
                                     element_count(seen) + ".");
        if (ds->count_ != kInfiniteCardinality && seen > ds->count_)
          return failed_precondition("Input dataset was expected to contain " +
                                     element_count(ds->count_) + " but contained at least " +
                                     element_count(seen) + ".");
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override { return count_; }

 private:
  std::int64_t count_;
};

// -- UniqueDataset ------------------------------------------------------------------------------

/// A tensor's shape and contents as one byte string (the set key of UniqueDataset).
std::string tensor_key(const Tensor& t) {
  std::string key = t.shape().to_string();
  key.push_back('\0');
  if (t.dtype() == DType::string) {
    for (std::int64_t i = 0; i < t.num_elements(); ++i) {
      const std::string& s = t.data<std::string>()[i];
      const std::uint64_t size = s.size();
      key.append(reinterpret_cast<const char*>(&size), sizeof size);
      key += s;
    }
  } else {
    key.append(static_cast<const char*>(t.raw_data()),
               static_cast<std::size_t>(t.num_elements()) * dtype_size(t.dtype()));
  }
  return key;
}

class UniqueDataset final : public UnaryDataset {
 public:
  using UnaryDataset::UnaryDataset;

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<UniqueDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      std::unordered_set<std::string> seen;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        for (;;) {
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
          if (*end || seen.insert(tensor_key(out->front())).second) return {};
        }
      }
    };
    return std::make_unique<It>(*this);
  }
};

struct Unique {
  static Status make(OpKernelContext&, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    if (input->dtypes().size() != 1)
      return invalid_argument("UniqueDataset only supports inputs with a single component.");
    const DType t = input->dtypes()[0];
    if (t != DType::int32 && t != DType::int64 && t != DType::string)
      return invalid_argument(
          "UniqueDataset only supports inputs with a single `tf.int32`, `tf.int64`, or "
          "`tf.string` component.");
    *out = std::make_shared<UniqueDataset>(op, std::move(input), dtypes, shapes);
    return {};
  }
};

// -- IgnoreErrorsDataset ------------------------------------------------------------------------

class IgnoreErrorsDataset final : public UnaryDataset {
 public:
  using UnaryDataset::UnaryDataset;

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<IgnoreErrorsDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool done = false;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        *end = done;
        while (!done) {
          out->clear();
          Status s = input->get_next(env, out, end);
          if (s.ok()) {
            done = *end;
            return {};
          }
          // The failed element is dropped; the next one is asked for.
        }
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
};

// IgnoreErrorsDataset has no output_types or output_shapes: its input's signature is its own.
class IgnoreErrorsDatasetOp final : public StatusOpKernel {
 public:
  IgnoreErrorsDatasetOp(OpKernelConstruction& c, Status*) : StatusOpKernel(c), op_(c.def.op) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    auto dtypes = input->dtypes();
    auto shapes = input->shapes();
    ctx.set_output(0, dataset_tensor(std::make_shared<IgnoreErrorsDataset>(
                          op_, std::move(input), std::move(dtypes), std::move(shapes))));
    return {};
  }

 private:
  std::string op_;
};

struct AssertCardinality {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t count = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "cardinality", &count));
    *out = std::make_shared<AssertCardinalityDataset>(op, std::move(input), count, dtypes, shapes);
    return {};
  }
};

}  // namespace

void register_slice_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op :
       {"ShardDataset", "UnbatchDataset", "ExperimentalUnbatchDataset", "WindowDataset",
        "AssertCardinalityDataset", "UniqueDataset", "ExperimentalUniqueDataset",
        "IgnoreErrorsDataset", "ExperimentalIgnoreErrorsDataset"})
    add_dataset_op(ops, op);
  kernels.add(make_kernel_def<UnaryDatasetOp<Shard>>("ShardDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<MakeUnary<UnbatchDataset>>>("UnbatchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<MakeUnary<UnbatchDataset>>>(
      "ExperimentalUnbatchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Window>>("WindowDataset", "CPU"));
  kernels.add(
      make_kernel_def<UnaryDatasetOp<AssertCardinality>>("AssertCardinalityDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Unique>>("UniqueDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Unique>>("ExperimentalUniqueDataset", "CPU"));
  kernels.add(make_kernel_def<IgnoreErrorsDatasetOp>("IgnoreErrorsDataset", "CPU"));
  kernels.add(make_kernel_def<IgnoreErrorsDatasetOp>("ExperimentalIgnoreErrorsDataset", "CPU"));
}

}  // namespace af::data::detail
