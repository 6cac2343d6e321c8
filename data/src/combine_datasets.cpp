// Datasets that combine or keep others' elements (TensorFlow's zip_dataset_op.cc,
// concatenate_dataset_op.cc, directed_interleave_dataset_op.cc and cache_dataset_ops.cc).
#include <mutex>

#include "dataset_base.hpp"
#include "dataset_factories.hpp"
#include "dataset_registration.hpp"
#include "dataset_resources.hpp"

namespace af::data::detail {

namespace {

// -- ZipDataset -----------------------------------------------------------------------------

class ZipDataset final : public DatasetBase {
 public:
  ZipDataset(std::vector<std::shared_ptr<const DatasetBase>> inputs, std::vector<DType> dtypes,
             std::vector<PartialShape> shapes)
      : DatasetBase("ZipDataset", std::move(dtypes), std::move(shapes)),
        inputs_(std::move(inputs)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ZipDataset> {
      using DatasetIterator::DatasetIterator;
      std::vector<std::unique_ptr<IteratorBase>> inputs;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (inputs.empty())
          for (const auto& d : ds->inputs_) inputs.push_back(d->make_iterator());
        std::vector<Tensor> all;
        // As TensorFlow: every input is asked, and the zip ends when any of them does.
        bool any_end = false;
        for (auto& input : inputs) {
          std::vector<Tensor> part;
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &part, &input_end));
          any_end |= input_end;
          if (!input_end) all.insert(all.end(), part.begin(), part.end());
        }
        *end = any_end;
        if (!any_end) *out = std::move(all);
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    std::int64_t n = kInfiniteCardinality;
    for (const auto& d : inputs_) {
      const std::int64_t c = d->cardinality();
      if (c == kUnknownCardinality) return c;
      if (c != kInfiniteCardinality) n = n == kInfiniteCardinality ? c : std::min(n, c);
    }
    return n;
  }

 private:
  std::vector<std::shared_ptr<const DatasetBase>> inputs_;
};

class ZipDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::vector<std::shared_ptr<const DatasetBase>> inputs(
        static_cast<std::size_t>(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, i, &inputs[static_cast<std::size_t>(i)]));
    *out = std::make_shared<ZipDataset>(std::move(inputs), dtypes_, shapes_);
    return {};
  }
};

// -- DirectedInterleaveDataset: choose_from_datasets, sample_from_datasets --------------------

class DirectedInterleaveDataset final : public DatasetBase {
 public:
  DirectedInterleaveDataset(std::string op, std::shared_ptr<const DatasetBase> selector,
                            std::vector<std::shared_ptr<const DatasetBase>> inputs,
                            bool stop_on_empty, std::vector<DType> dtypes,
                            std::vector<PartialShape> shapes)
      : DatasetBase(std::move(op), std::move(dtypes), std::move(shapes)),
        selector_(std::move(selector)),
        inputs_(std::move(inputs)),
        stop_on_empty_(stop_on_empty) {}

  // TensorFlow's DirectedInterleaveDatasetOp::Dataset::Iterator::GetNextInternal: each
  // selector element names the input of the next element; an ended input is skipped (or ends
  // everything with stop_on_empty_dataset), and the last one ending ends the dataset.
  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<DirectedInterleaveDataset> {
      using DatasetIterator::DatasetIterator;
      bool started = false;
      std::unique_ptr<IteratorBase> selector;
      std::vector<std::unique_ptr<IteratorBase>> inputs;
      std::size_t active = 0;
      void reset() {
        selector.reset();
        inputs.clear();
        active = 0;
      }
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!started) {
          started = true;
          selector = ds->selector_->make_iterator();
          for (const auto& d : ds->inputs_) inputs.push_back(d->make_iterator());
          active = inputs.size();
        }
        *end = true;
        while (selector) {
          std::vector<Tensor> choice;
          bool selector_end = false;
          ACTORFLOW_RETURN_IF_ERROR(selector->get_next(env, &choice, &selector_end));
          if (selector_end) {
            reset();
            return {};
          }
          const std::int64_t i = choice[0].data<std::int64_t>()[0];
          if (i < 0 || i >= static_cast<std::int64_t>(inputs.size()))
            return invalid_argument("Selector index out of range: " + std::to_string(i) +
                                    " >= " + std::to_string(inputs.size()));
          auto& input = inputs[static_cast<std::size_t>(i)];
          if (!input) continue;
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, &input_end));
          if (!input_end) {
            *end = false;
            return {};
          }
          if (ds->stop_on_empty_) {
            reset();
            return {};
          }
          input.reset();
          if (--active == 0) reset();
        }
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    for (const auto& d : inputs_)
      if (d->cardinality() == kInfiniteCardinality) return kInfiniteCardinality;
    return kUnknownCardinality;
  }

 private:
  std::shared_ptr<const DatasetBase> selector_;
  std::vector<std::shared_ptr<const DatasetBase>> inputs_;
  bool stop_on_empty_;
};

class DirectedInterleaveDatasetOp final : public DatasetOpKernel {
 public:
  DirectedInterleaveDatasetOp(OpKernelConstruction& c, Status* s)
      : DatasetOpKernel(c, s), op_(c.def.op) {
    if (const auto* stop = c.def.attr<bool>("stop_on_empty_dataset")) stop_on_empty_ = *stop;
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> selector;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &selector));
    if (selector->dtypes().size() != 1 || selector->dtypes()[0] != DType::int64 ||
        selector->shapes().size() != 1 ||
        !selector->shapes()[0].is_compatible_with(PartialShape(Shape{})))
      return invalid_argument("The selector input must be a dataset of scalar int64 elements.");
    std::vector<std::shared_ptr<const DatasetBase>> inputs;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      std::shared_ptr<const DatasetBase> input;
      ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, i, &input));
      if (!inputs.empty() && input->dtypes() != inputs[0]->dtypes())
        return invalid_argument(
            "All inputs must have the same output_dtypes. First input has types " +
            type_list(inputs[0]->dtypes()) + ", and input " + std::to_string(i - 1) +
            " has types " + type_list(input->dtypes()));
      inputs.push_back(std::move(input));
    }
    *out = std::make_shared<DirectedInterleaveDataset>(op_, std::move(selector), std::move(inputs),
                                                       stop_on_empty_, dtypes_, shapes_);
    return {};
  }

 private:
  static std::string type_list(const std::vector<DType>& types) {
    std::string out;
    for (DType t : types) out += (out.empty() ? "" : ", ") + std::string(data_type_string(t));
    return out;
  }

  std::string op_;
  bool stop_on_empty_ = false;
};

// -- ConcatenateDataset -----------------------------------------------------------------------

class ConcatenateDataset final : public DatasetBase {
 public:
  ConcatenateDataset(std::shared_ptr<const DatasetBase> first,
                     std::shared_ptr<const DatasetBase> second, std::vector<DType> dtypes,
                     std::vector<PartialShape> shapes)
      : DatasetBase("ConcatenateDataset", std::move(dtypes), std::move(shapes)),
        first_(std::move(first)),
        second_(std::move(second)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ConcatenateDataset> {
      using DatasetIterator::DatasetIterator;
      int part = 0;
      std::unique_ptr<IteratorBase> input;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        while (part < 2) {
          if (!input) input = (part == 0 ? ds->first_ : ds->second_)->make_iterator();
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
          if (!*end) return {};
          input.reset();
          ++part;
        }
        *end = true;
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t a = first_->cardinality(), b = second_->cardinality();
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) return kInfiniteCardinality;
    if (a < 0 || b < 0) return kUnknownCardinality;
    return a + b;
  }

 private:
  std::shared_ptr<const DatasetBase> first_, second_;
};

class ConcatenateDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> first, second;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &first));
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 1, &second));
    if (first->dtypes() != second->dtypes())
      return invalid_argument(
          "input dataset and dataset to concatenate have different types of components");
    *out =
        std::make_shared<ConcatenateDataset>(std::move(first), std::move(second), dtypes_, shapes_);
    return {};
  }
};

// -- CacheDataset: the first complete pass, kept in memory ------------------------------------

class CacheDataset final : public UnaryDataset {
 public:
  /// Reads `input` through `cache` (shared with the other datasets of an AnonymousMemoryCache).
  CacheDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::vector<DType> dtypes,
               std::vector<PartialShape> shapes, std::shared_ptr<MemoryCache> cache)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        cache_(std::move(cache)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<CacheDataset> {
      using DatasetIterator::DatasetIterator;
      std::shared_ptr<const std::vector<std::vector<Tensor>>> cached;  // set: read from it
      std::size_t next = 0;
      std::unique_ptr<IteratorBase> input;
      std::vector<std::vector<Tensor>> writing;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!cached && !input) {
          cached = ds->cache_->get();
          if (!cached) input = ds->input().make_iterator();
        }
        if (cached) {
          *end = next >= cached->size();
          if (!*end) *out = (*cached)[next++];
          return {};
        }
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
        if (!*end) {
          writing.push_back(*out);
          return {};
        }
        // A complete pass: later iterators read it (the first one to finish wins).
        ds->cache_->complete(std::move(writing));
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override { return input().cardinality(); }

 private:
  std::shared_ptr<MemoryCache> cache_;
};

// CacheDataset (input_dataset, filename) and CacheDatasetV2 (and cache: an
// AnonymousMemoryCache's handle, or a DummyMemoryCache's for a cache of the dataset's own).
struct Cache {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::string filename;
    ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 1, "filename", &filename));
    if (!filename.empty()) {
      *out = make_file_cache_dataset(op, std::move(input), filename, dtypes, shapes);
      return {};
    }
    auto cache = std::make_shared<MemoryCache>();
    if (op == "CacheDatasetV2") ACTORFLOW_RETURN_IF_ERROR(memory_cache_input(ctx, 2, &cache));
    *out = std::make_shared<CacheDataset>(op, std::move(input), dtypes, shapes, std::move(cache));
    return {};
  }
};

}  // namespace

void register_combine_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"ZipDataset", "ConcatenateDataset", "CacheDataset", "CacheDatasetV2",
                         "DirectedInterleaveDataset", "ExperimentalDirectedInterleaveDataset"})
    add_dataset_op(ops, op);
  kernels.add(make_kernel_def<ZipDatasetOp>("ZipDataset", "CPU"));
  for (const char* op : {"DirectedInterleaveDataset", "ExperimentalDirectedInterleaveDataset"})
    kernels.add(make_kernel_def<DirectedInterleaveDatasetOp>(op, "CPU"));
  kernels.add(make_kernel_def<ConcatenateDatasetOp>("ConcatenateDataset", "CPU"));
  for (const char* op : {"CacheDataset", "CacheDatasetV2"})
    kernels.add(make_kernel_def<UnaryDatasetOp<Cache>>(op, "CPU"));
}

}  // namespace af::data::detail
