// Datasets that run a function per element (TensorFlow's map_dataset_op.cc,
// parallel_map_dataset_op.cc, filter_dataset_op.cc, flat_map_dataset_op.cc,
// interleave_dataset_op.cc and parallel_interleave_dataset_op.cc). A parallel map runs its
// calls on num_parallel_calls threads of its own, ahead of the consumer
// (background_iterator.hpp), its elements in the input's order (what `deterministic` gives);
// the parallel interleaves call their function on the asking thread, in the deterministic
// order, and each open cycle element reads ahead on a thread of its own.
#include <algorithm>
#include <thread>

#include "background_iterator.hpp"
#include "dataset_base.hpp"
#include "dataset_factories.hpp"
#include "dataset_registration.hpp"
#include "function_runner.hpp"

namespace af::data::detail {

namespace {

/// How a function dataset's inputs are laid out: input 0 is the input dataset, then the
/// captured inputs, then `trailing` scalar arguments (num_parallel_calls, cycle_length, ...).
struct FunctionOpSpec {
  const char* op;
  const char* func_attr;
  int trailing;
};

enum class Kind { map, filter, flat_map, interleave };

class FunctionDataset final : public UnaryDataset {
 public:
  FunctionDataset(std::string op, Kind kind, std::shared_ptr<const DatasetBase> input,
                  std::shared_ptr<const CapturedFunction> f, std::int64_t cycle_length,
                  std::int64_t block_length, bool preserve_cardinality, int parallel_calls,
                  std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        kind_(kind),
        f_(std::move(f)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        preserve_cardinality_(preserve_cardinality),
        parallel_calls_(parallel_calls) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    switch (kind_) {
      case Kind::map:
        if (parallel_calls_ > 0) {
          auto self = std::static_pointer_cast<const FunctionDataset>(this->self());
          return make_background_iterator(
              input().make_iterator(),
              [self](const IteratorEnv& env, std::vector<Tensor> in, std::vector<Tensor>* out,
                     bool* end) { return self->map_element(env, std::move(in), out, end); },
              parallel_calls_, static_cast<std::size_t>(parallel_calls_) * 16);
        }
        return std::make_unique<MapIterator>(*this);
      case Kind::filter:
        return std::make_unique<FilterIterator>(*this);
      default:
        return std::make_unique<InterleaveIterator>(*this);
    }
  }
  std::int64_t cardinality() const override {
    return kind_ == Kind::map ? input().cardinality() : kUnknownCardinality;
  }

 private:
  struct MapIterator final : DatasetIterator<FunctionDataset> {
    using DatasetIterator::DatasetIterator;
    std::unique_ptr<IteratorBase> input;
    Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
      if (!input) input = ds->input().make_iterator();
      std::vector<Tensor> args;
      ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &args, end));
      if (*end) return {};
      return ds->map_element(env, std::move(args), out, end);
    }
  };

  /// The map function on one element; OutOfRange from it ends the sequence, unless the
  /// dataset preserves its cardinality (TensorFlow 2 sets preserve_cardinality).
  Status map_element(const IteratorEnv& env, std::vector<Tensor> args, std::vector<Tensor>* out,
                     bool* end) const {
    Status s = f_->run(env, std::move(args), out);
    if (s.code() == Code::out_of_range) {
      if (preserve_cardinality_)
        return invalid_argument("Function invocation produced OutOfRangeError: " + s.message());
      *end = true;
      return {};
    }
    ACTORFLOW_RETURN_IF_ERROR(s);
    return check_element(*out);
  }

  struct FilterIterator final : DatasetIterator<FunctionDataset> {
    using DatasetIterator::DatasetIterator;
    std::unique_ptr<IteratorBase> input;
    Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
      if (!input) input = ds->input().make_iterator();
      for (;;) {
        std::vector<Tensor> element;
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
        if (*end) return {};
        std::vector<Tensor> result;
        ACTORFLOW_RETURN_IF_ERROR(ds->f_->run(env, element, &result));
        if (result.size() != 1 || result[0].dtype() != DType::boolean ||
            result[0].num_elements() != 1 || result[0].shape().rank() != 0)
          return invalid_argument("Filter predicate `predicate` must return a scalar bool.");
        if (result[0].data<bool>()[0]) {
          *out = std::move(element);
          return {};
        }
      }
    }
  };

  // FlatMap is an interleave of one cycle element, block length 1.
  struct InterleaveIterator final : DatasetIterator<FunctionDataset> {
    using DatasetIterator::DatasetIterator;
    std::unique_ptr<IteratorBase> input;
    bool end_of_input = false;
    std::vector<std::unique_ptr<IteratorBase>> current;
    std::size_t cycle_index = 0;
    std::int64_t block_index = 0;
    int num_open = 0;

    void advance_to_next_in_cycle() {
      block_index = 0;
      cycle_index = (cycle_index + 1) % current.size();
    }

    Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
      if (!input) {
        input = ds->input().make_iterator();
        current.resize(static_cast<std::size_t>(ds->cycle_length_));
      }
      // TensorFlow's InterleaveDatasetOp::Dataset::Iterator::GetNextInternal, step by step.
      while (!end_of_input || num_open > 0) {
        if (current[cycle_index]) {
          bool element_end = false;
          ACTORFLOW_RETURN_IF_ERROR(current[cycle_index]->get_next(env, out, &element_end));
          if (!element_end) {
            if (++block_index == ds->block_length_) advance_to_next_in_cycle();
            *end = false;
            return ds->check_element(*out);
          }
          current[cycle_index].reset();
          --num_open;
          advance_to_next_in_cycle();
        } else if (!end_of_input) {
          std::vector<Tensor> args;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &args, &end_of_input));
          if (!end_of_input) {
            std::vector<Tensor> result;
            ACTORFLOW_RETURN_IF_ERROR(ds->f_->run(env, std::move(args), &result));
            std::shared_ptr<const DatasetBase> dataset;
            if (result.size() == 1 && result[0].dtype() == DType::variant &&
                result[0].num_elements() == 1)
              dataset = std::dynamic_pointer_cast<const DatasetBase>(
                  result[0].data<Variant>()[0].value());
            if (!dataset)
              return invalid_argument("Function " + ds->f_->name() + " of " + ds->op() +
                                      " must return a single scalar of dtype DT_VARIANT.");
            // A parallel interleave reads each open element ahead on a thread of its own;
            // the cycle's order stays the plain interleave's.
            current[cycle_index] =
                ds->parallel_calls_ > 0
                    ? make_background_iterator(dataset->make_iterator(), nullptr, 1,
                                               static_cast<std::size_t>(ds->parallel_calls_))
                    : dataset->make_iterator();
            ++num_open;
          }
        } else {
          advance_to_next_in_cycle();
        }
      }
      *end = true;
      return {};
    }
  };

  /// InvalidArgument unless `element` matches the dataset's output types and shapes.
  Status check_element(const std::vector<Tensor>& element) const {
    return verify_element(dtypes(), shapes(), element);
  }

  Kind kind_;
  std::shared_ptr<const CapturedFunction> f_;
  std::int64_t cycle_length_, block_length_;
  bool preserve_cardinality_;
  // A map: its calls' threads (0: calls on the asking thread). An interleave: the elements
  // each open cycle element reads ahead on a thread of its own (0: none).
  int parallel_calls_;
};

/// The threads of num_parallel_calls `n` (AUTOTUNE, -1: one per core).
int parallel_threads(std::int64_t n) {
  const auto cores = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  return static_cast<int>(n == -1 ? cores : std::min<std::int64_t>(n, 4 * cores));
}

/// The elements a parallel interleave's open cycle elements read ahead: its
/// buffer_output_elements where it has one (legacy and V4 forms), else 4.
Status read_ahead(const OpKernelContext& ctx, int first_trailing, int* out) {
  const std::string& op = ctx.def().op;
  int at = -1;  // the buffer_output_elements input
  if (op == "ParallelInterleaveDataset" || op == "ExperimentalParallelInterleaveDataset")
    at = first_trailing + 3;  // cycle_length, block_length, sloppy, buffer_output_elements
  else if (op == "LegacyParallelInterleaveDatasetV2" || op == "ParallelInterleaveDatasetV4")
    at = first_trailing + 2;  // cycle_length, block_length, buffer_output_elements
  std::int64_t n = 4;
  if (at >= 0) {
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, at, "buffer_output_elements", &n));
    if (n <= 0) n = 4;  // AUTOTUNE
  }
  *out = static_cast<int>(std::min<std::int64_t>(n, 1024));
  return {};
}

template <Kind K>
class FunctionDatasetOp final : public DatasetOpKernel {
 public:
  FunctionDatasetOp(OpKernelConstruction& c, Status* s, int trailing, const char* func_attr)
      : DatasetOpKernel(c, s), op_(c.def.op), trailing_(trailing) {
    FunctionAttr f;
    if (s->ok()) *s = c.get_attr(func_attr, &f);
    f_ = std::make_shared<InstantiatedFunction>(std::move(f), c.def.name);
    if (const auto* p = c.def.attr<bool>("preserve_cardinality")) preserve_cardinality_ = *p;
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    const int end_captured = ctx.num_inputs() - trailing_;
    std::int64_t cycle_length = 1, block_length = 1;
    if (K == Kind::interleave) {
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, end_captured, "cycle_length", &cycle_length));
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, end_captured + 1, "block_length", &block_length));
      // AUTOTUNE (-1): TensorFlow takes the machine's parallelism; one cycle element per
      // core of this machine is the same rule.
      if (cycle_length == -1)
        cycle_length = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
      if (cycle_length <= 0) return invalid_argument("cycle_length must be greater than zero.");
      if (block_length <= 0) return invalid_argument("block_length must be greater than zero.");
    }
    int parallel_calls = 0;
    if (K == Kind::interleave && trailing_ > 2)  // the parallel interleaves
      ACTORFLOW_RETURN_IF_ERROR(read_ahead(ctx, end_captured, &parallel_calls));
    if (K == Kind::map && trailing_ == 1) {  // ParallelMapDataset(V2)
      std::int64_t n = 0;
      ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, end_captured, "num_parallel_calls", &n));
      if (n <= 0 && n != -1)
        return invalid_argument("num_parallel_calls must be greater than zero.");
      parallel_calls = parallel_threads(n);
    }
    auto f = make_captured_function(ctx, f_, 1, end_captured);
    *out = std::make_shared<FunctionDataset>(op_, K, std::move(input), std::move(f), cycle_length,
                                             block_length, preserve_cardinality_, parallel_calls,
                                             dtypes_, shapes_);
    return {};
  }

 private:
  std::string op_;
  int trailing_;
  std::shared_ptr<const InstantiatedFunction> f_;
  bool preserve_cardinality_ = false;
};

template <Kind K>
KernelDef function_kernel(const std::string& op, int trailing, const char* func_attr) {
  KernelDef d;
  d.op = op;
  d.device_type = "CPU";
  d.factory = [trailing, func_attr](OpKernelConstruction& c, Status* s) {
    return std::unique_ptr<OpKernel>(new FunctionDatasetOp<K>(c, s, trailing, func_attr));
  };
  return d;
}

}  // namespace

std::shared_ptr<const DatasetBase> make_map_dataset(
    std::string op, std::shared_ptr<const DatasetBase> input,
    std::shared_ptr<const CapturedFunction> f, bool preserve_cardinality,
    std::int64_t parallel_calls, std::vector<DType> dtypes, std::vector<PartialShape> shapes) {
  return std::make_shared<FunctionDataset>(
      std::move(op), Kind::map, std::move(input), std::move(f), 1, 1, preserve_cardinality,
      parallel_calls == 0 ? 0 : parallel_threads(parallel_calls), std::move(dtypes),
      std::move(shapes));
}

void register_function_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  struct Entry {
    const char* op;
    Kind kind;
    int trailing;
    const char* func_attr;
  };
  const Entry entries[] = {
      {"MapDataset", Kind::map, 0, "f"},
      {"ParallelMapDataset", Kind::map, 1, "f"},
      {"ParallelMapDatasetV2", Kind::map, 1, "f"},
      {"FilterDataset", Kind::filter, 0, "predicate"},
      {"FlatMapDataset", Kind::flat_map, 0, "f"},
      {"InterleaveDataset", Kind::interleave, 2, "f"},
      {"ParallelInterleaveDatasetV2", Kind::interleave, 3, "f"},
      {"ParallelInterleaveDatasetV3", Kind::interleave, 3, "f"},
      {"ParallelInterleaveDatasetV4", Kind::interleave, 5, "f"},
      {"ParallelInterleaveDataset", Kind::interleave, 5, "f"},
      // tf.data.experimental.parallel_interleave: TensorFlow 2's name (cycle_length,
      // block_length, buffer_output_elements, prefetch_input_elements) and 1.15's (with
      // sloppy after block_length).
      {"LegacyParallelInterleaveDatasetV2", Kind::interleave, 4, "f"},
      {"ExperimentalParallelInterleaveDataset", Kind::interleave, 5, "f"},
  };
  for (const auto& e : entries) {
    add_dataset_op(ops, e.op);
    switch (e.kind) {
      case Kind::map:
        kernels.add(function_kernel<Kind::map>(e.op, e.trailing, e.func_attr));
        break;
      case Kind::filter:
        kernels.add(function_kernel<Kind::filter>(e.op, e.trailing, e.func_attr));
        break;
      case Kind::flat_map:
        kernels.add(function_kernel<Kind::flat_map>(e.op, e.trailing, e.func_attr));
        break;
      case Kind::interleave:
        kernels.add(function_kernel<Kind::interleave>(e.op, e.trailing, e.func_attr));
        break;
    }
  }
}

}  // namespace af::data::detail
