// Datasets and ops whose functions carry state or regroup elements (TensorFlow's
// reduce_dataset_op.cc, scan_dataset_op.cc, take_while_dataset_op.cc,
// group_by_window_dataset_op.cc, group_by_reducer_dataset_op.cc and
// map_and_batch_dataset_op.cc).
#include <map>

#include "dataset_base.hpp"
#include "dataset_factories.hpp"
#include "dataset_registration.hpp"
#include "function_runner.hpp"

namespace af::data::detail {

namespace {

/// The function attribute `attr` of the node being built, runnable.
std::shared_ptr<const InstantiatedFunction> function_attr(OpKernelConstruction& c, const char* attr,
                                                          Status* s) {
  FunctionAttr f;
  if (s->ok()) *s = c.get_attr(attr, &f);
  return std::make_shared<InstantiatedFunction>(std::move(f), c.def.name);
}

/// The length of the list(type) attribute `attr` (0 when absent).
int list_length(OpKernelConstruction& c, const char* attr, Status* s) {
  std::vector<DType> types;
  if (s->ok() && c.def.attr<std::vector<DType>>(attr)) *s = c.get_attr(attr, &types);
  return static_cast<int>(types.size());
}

std::string type_list(const std::vector<Tensor>& ts) {
  std::string out;
  for (const auto& t : ts)
    out += (out.empty() ? "" : ", ") + std::string(data_type_string(t.dtype()));
  return "[" + out + "]";
}

/// TensorFlow's checks of a new state against the old one (ReduceDataset, ScanDataset).
Status check_state(const std::vector<Tensor>& state, const std::vector<Tensor>& next) {
  if (next.size() != state.size())
    return invalid_argument(
        "The number of components of the initial state and the reduce function output does "
        "not match. (initial_state=" +
        std::to_string(state.size()) + ", output=" + std::to_string(next.size()) + ").");
  for (std::size_t i = 0; i < state.size(); ++i)
    if (state[i].dtype() != next[i].dtype())
      return invalid_argument(
          "The element types for the new state must match the initial state. Expected " +
          type_list(state) + "; got " + type_list(next) + ".");
  return {};
}

/// "Function invocation produced OutOfRangeError: ..." (a function's OutOfRange where the
/// dataset preserves its cardinality).
Status out_of_range_in_function(const Status& s) {
  return invalid_argument("Function invocation produced OutOfRangeError: " + s.message());
}

// -- ReduceDataset: the final state of a fold over a dataset --------------------------------

class ReduceDatasetOp final : public StatusOpKernel {
 public:
  ReduceDatasetOp(OpKernelConstruction& c, Status* s) : StatusOpKernel(c) {
    f_ = function_attr(c, "f", s);
    num_state_ = list_length(c, "Tstate", s);
    if (s->ok()) *s = read_signature(c, &dtypes_, &shapes_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> dataset;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &dataset));
    std::vector<Tensor> state;
    for (int i = 1; i <= num_state_; ++i) state.push_back(ctx.input(i));
    auto f = make_captured_function(ctx, f_, 1 + num_state_, ctx.num_inputs());
    const IteratorEnv env = IteratorEnv::of(ctx);
    auto it = dataset->make_iterator();
    for (;;) {
      std::vector<Tensor> element;
      bool end = false;
      ACTORFLOW_RETURN_IF_ERROR(it->get_next(env, &element, &end));
      if (end) break;
      std::vector<Tensor> args = state;
      args.insert(args.end(), element.begin(), element.end());
      std::vector<Tensor> next;
      ACTORFLOW_RETURN_IF_ERROR(f->run(env, std::move(args), &next));
      ACTORFLOW_RETURN_IF_ERROR(check_state(state, next));
      for (std::size_t i = 0; i < next.size(); ++i)
        if (i < shapes_.size() && !shapes_[i].is_compatible_with(PartialShape(next[i].shape())))
          return invalid_argument(
              "The element shapes for the new state must match the initial state. Expected " +
              shapes_[i].to_string() + "; got " + next[i].shape().to_string() + ".");
      state = std::move(next);
    }
    set_outputs(ctx, std::move(state));
    return {};
  }

 private:
  std::shared_ptr<const InstantiatedFunction> f_;
  int num_state_ = 0;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// -- ScanDataset ----------------------------------------------------------------------------

class ScanDataset final : public UnaryDataset {
 public:
  ScanDataset(std::string op, std::shared_ptr<const DatasetBase> input,
              std::shared_ptr<const CapturedFunction> f, std::vector<Tensor> initial_state,
              bool preserve_cardinality, std::vector<DType> dtypes,
              std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        f_(std::move(f)),
        initial_state_(std::move(initial_state)),
        preserve_cardinality_(preserve_cardinality) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ScanDataset> {
      explicit It(const ScanDataset& d) : DatasetIterator(d), state(d.initial_state_) {}
      std::unique_ptr<IteratorBase> input;
      std::vector<Tensor> state;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        std::vector<Tensor> element;
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
        if (*end) return {};
        std::vector<Tensor> args = state;
        args.insert(args.end(), element.begin(), element.end());
        std::vector<Tensor> result;
        Status s = ds->f_->run(env, std::move(args), &result);
        if (s.code() == Code::out_of_range) {
          if (ds->preserve_cardinality_) return out_of_range_in_function(s);
          *end = true;
          return {};
        }
        ACTORFLOW_RETURN_IF_ERROR(s);
        const std::size_t n = state.size();
        if (result.size() != n + ds->dtypes().size())
          return invalid_argument("Scan function " + ds->f_->name() + " returned " +
                                  std::to_string(result.size()) + " tensors; " +
                                  std::to_string(n + ds->dtypes().size()) +
                                  " expected (the state, then the output)");
        for (std::size_t i = 0; i < n; ++i)
          if (result[i].dtype() != state[i].dtype())
            return invalid_argument("Data type mismatch at component " + std::to_string(i) +
                                    ": expected " +
                                    std::string(data_type_string(state[i].dtype())) + " but got " +
                                    std::string(data_type_string(result[i].dtype())) + ".");
        std::vector<Tensor> output(result.begin() + static_cast<std::ptrdiff_t>(n), result.end());
        ACTORFLOW_RETURN_IF_ERROR(verify_element(ds->dtypes(), ds->shapes(), output));
        result.resize(n);
        state = std::move(result);
        *out = std::move(output);
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    return preserve_cardinality_ ? input().cardinality() : kUnknownCardinality;
  }

 private:
  std::shared_ptr<const CapturedFunction> f_;
  std::vector<Tensor> initial_state_;
  bool preserve_cardinality_;
};

class ScanDatasetOp final : public DatasetOpKernel {
 public:
  ScanDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {
    f_ = function_attr(c, "f", s);
    num_state_ = list_length(c, "Tstate", s);
    if (const auto* p = c.def.attr<bool>("preserve_cardinality")) preserve_cardinality_ = *p;
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    std::vector<Tensor> state;
    for (int i = 1; i <= num_state_; ++i) state.push_back(ctx.input(i));
    auto f = make_captured_function(ctx, f_, 1 + num_state_, ctx.num_inputs());
    *out = std::make_shared<ScanDataset>(op_, std::move(input), std::move(f), std::move(state),
                                         preserve_cardinality_, dtypes_, shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const InstantiatedFunction> f_;
  int num_state_ = 0;
  bool preserve_cardinality_ = false;
};

// -- TakeWhileDataset -----------------------------------------------------------------------

class TakeWhileDataset final : public UnaryDataset {
 public:
  TakeWhileDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                   std::shared_ptr<const CapturedFunction> predicate, std::vector<DType> dtypes,
                   std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        predicate_(std::move(predicate)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<TakeWhileDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool done = false;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        *end = true;
        if (done) return {};
        std::vector<Tensor> element;
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
        if (*end) {
          done = true;
          return {};
        }
        std::vector<Tensor> result;
        ACTORFLOW_RETURN_IF_ERROR(ds->predicate_->run(env, element, &result));
        if (result.size() != 1 || result[0].dtype() != DType::boolean ||
            result[0].num_elements() != 1)
          return invalid_argument("`predicate` must returns a scalar bool tensor.");
        if (!result[0].data<bool>()[0]) {
          done = true;
          *end = true;
          return {};
        }
        *out = std::move(element);
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }

 private:
  std::shared_ptr<const CapturedFunction> predicate_;
};

class TakeWhileDatasetOp final : public DatasetOpKernel {
 public:
  TakeWhileDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {
    f_ = function_attr(c, "predicate", s);
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    *out = std::make_shared<TakeWhileDataset>(op_, std::move(input),
                                              make_captured_function(ctx, f_, 1, ctx.num_inputs()),
                                              dtypes_, shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const InstantiatedFunction> f_;
};

// -- GroupByWindowDataset -------------------------------------------------------------------

struct GroupFunctions {
  std::shared_ptr<const CapturedFunction> key, reduce, window_size;
};

class GroupByWindowDataset final : public UnaryDataset {
 public:
  GroupByWindowDataset(std::string op, std::shared_ptr<const DatasetBase> input, GroupFunctions f,
                       std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        f_(std::move(f)) {}

  // TensorFlow's GroupByWindowDatasetOp iterator: elements gather in per-key groups; a group
  // reaching its key's window size goes to reduce_func, whose dataset is walked to its end;
  // at the input's end the remaining groups go, smallest key first.
  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<GroupByWindowDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool end_of_input = false;
      std::map<std::int64_t, std::vector<std::vector<Tensor>>> groups;
      std::map<std::int64_t, std::int64_t> window_sizes;
      std::unique_ptr<IteratorBase> current;
      std::int64_t current_key = 0;

      Status start_flushing(const IteratorEnv& env, std::int64_t key) {
        const auto& in = ds->input();
        auto window = elements_dataset(groups[key], in.dtypes(), in.shapes());
        std::vector<Tensor> result;
        ACTORFLOW_RETURN_IF_ERROR(
            ds->f_.reduce->run(env, {Tensor(key), dataset_tensor(std::move(window))}, &result));
        std::shared_ptr<const DatasetBase> dataset;
        if (result.size() == 1 && result[0].dtype() == DType::variant &&
            result[0].shape().rank() == 0)
          dataset =
              std::dynamic_pointer_cast<const DatasetBase>(result[0].data<Variant>()[0].value());
        if (!dataset)
          return invalid_argument("`reduce_func` must return a single scalar of dtype DT_VARIANT.");
        current_key = key;
        current = dataset->make_iterator();
        return {};
      }

      Status scalar_int64_result(const CapturedFunction& f, const IteratorEnv& env,
                                 std::vector<Tensor> args, const char* name, std::int64_t* out) {
        std::vector<Tensor> result;
        ACTORFLOW_RETURN_IF_ERROR(f.run(env, std::move(args), &result));
        if (result.size() != 1 || result[0].dtype() != DType::int64 ||
            result[0].num_elements() != 1)
          return invalid_argument("`" + std::string(name) + "` must return a scalar int64.");
        *out = result[0].data<std::int64_t>()[0];
        return {};
      }

      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        do {
          if (current) {
            bool group_end = false;
            ACTORFLOW_RETURN_IF_ERROR(current->get_next(env, out, &group_end));
            if (!group_end) {
              *end = false;
              return verify_element(ds->dtypes(), ds->shapes(), *out);
            }
            current.reset();
            groups.erase(current_key);
          }
          while (!end_of_input) {
            std::vector<Tensor> element;
            ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, &end_of_input));
            if (end_of_input) break;
            std::int64_t key = 0;
            ACTORFLOW_RETURN_IF_ERROR(
                scalar_int64_result(*ds->f_.key, env, element, "key_func", &key));
            if (!window_sizes.count(key)) {
              std::int64_t size = 0;
              ACTORFLOW_RETURN_IF_ERROR(scalar_int64_result(*ds->f_.window_size, env, {Tensor(key)},
                                                            "window_size_func", &size));
              if (size <= 0)
                return invalid_argument("Window size must be greater than zero, but got " +
                                        std::to_string(size) + ".");
              window_sizes[key] = size;
            }
            auto& group = groups[key];
            group.push_back(std::move(element));
            if (static_cast<std::int64_t>(group.size()) == window_sizes[key]) {
              ACTORFLOW_RETURN_IF_ERROR(start_flushing(env, key));
              break;
            }
          }
          if (end_of_input && !current && !groups.empty())
            ACTORFLOW_RETURN_IF_ERROR(start_flushing(env, groups.begin()->first));
        } while (current || !end_of_input);
        *end = true;
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }

 private:
  GroupFunctions f_;
};

class GroupByWindowDatasetOp final : public DatasetOpKernel {
 public:
  GroupByWindowDatasetOp(OpKernelConstruction& c, Status* s)
      : DatasetOpKernel(c, s), op_(c.def.op) {
    key_ = function_attr(c, "key_func", s);
    reduce_ = function_attr(c, "reduce_func", s);
    window_size_ = function_attr(c, "window_size_func", s);
    num_key_args_ = list_length(c, "Tkey_func_other_arguments", s);
    num_reduce_args_ = list_length(c, "Treduce_func_other_arguments", s);
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    const int reduce_begin = 1 + num_key_args_;
    const int window_begin = reduce_begin + num_reduce_args_;
    if (window_begin > ctx.num_inputs())
      return invalid_argument(op_ + " '" + ctx.node_name() + "' has " +
                              std::to_string(ctx.num_inputs()) + " inputs; its attributes need " +
                              std::to_string(window_begin) + " or more");
    GroupFunctions f{make_captured_function(ctx, key_, 1, reduce_begin),
                     make_captured_function(ctx, reduce_, reduce_begin, window_begin),
                     make_captured_function(ctx, window_size_, window_begin, ctx.num_inputs())};
    *out = std::make_shared<GroupByWindowDataset>(op_, std::move(input), std::move(f), dtypes_,
                                                  shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const InstantiatedFunction> key_, reduce_, window_size_;
  int num_key_args_ = 0, num_reduce_args_ = 0;
};

// -- GroupByReducerDataset ------------------------------------------------------------------

struct ReducerFunctions {
  std::shared_ptr<const CapturedFunction> key, init, reduce, finalize;
};

class GroupByReducerDataset final : public UnaryDataset {
 public:
  GroupByReducerDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                        ReducerFunctions f, std::vector<DType> dtypes,
                        std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        f_(std::move(f)) {}

  // TensorFlow's GroupByReducerDatasetOp iterator: the first element waits for the whole
  // input. Each input element's key_func gives its key; a key seen for the first time gets
  // init_func(key) as its state, then reduce_func(state, element) is the key's new state. At
  // the input's end each key's finalize_func(state) is one element, smallest key first (the
  // order of TensorFlow's std::map). An error loses the element it came with (a failed
  // reduce leaves the key's state as it was, a fresh key's being init_func's) and the next
  // call goes on with the next element, or the next key when a finalize failed.
  std::unique_ptr<IteratorBase> make_iterator() const override {
    using States = std::map<std::int64_t, std::vector<Tensor>>;
    struct It final : DatasetIterator<GroupByReducerDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool end_of_input = false;
      States states;
      States::const_iterator next_state;  // the next key to finalize, once end_of_input

      Status fold_in(const IteratorEnv& env, std::vector<Tensor> element) {
        std::vector<Tensor> key;
        ACTORFLOW_RETURN_IF_ERROR(ds->f_.key->run(env, element, &key));
        // TensorFlow checks the element count only: a key of shape [1] passes.
        if (key.size() != 1 || key[0].dtype() != DType::int64 || key[0].num_elements() != 1)
          return invalid_argument("`key_func` must return a scalar int64.");
        const std::int64_t k = key[0].data<std::int64_t>()[0];
        auto state = states.find(k);
        if (state == states.end()) {
          std::vector<Tensor> initial;
          ACTORFLOW_RETURN_IF_ERROR(ds->f_.init->run(env, std::move(key), &initial));
          state = states.emplace(k, std::move(initial)).first;
        }
        std::vector<Tensor> args = state->second;
        args.insert(args.end(), element.begin(), element.end());
        std::vector<Tensor> next;
        ACTORFLOW_RETURN_IF_ERROR(ds->f_.reduce->run(env, std::move(args), &next));
        state->second = std::move(next);
        return {};
      }

      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        while (!end_of_input) {
          std::vector<Tensor> element;
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, &input_end));
          if (input_end) {
            end_of_input = true;
            next_state = states.cbegin();
            break;
          }
          ACTORFLOW_RETURN_IF_ERROR(fold_in(env, std::move(element)));
        }
        if (next_state == states.cend()) {
          *end = true;
          return {};
        }
        const std::vector<Tensor>& state = (next_state++)->second;
        *end = false;
        return ds->f_.finalize->run(env, state, out);
      }
    };
    return std::make_unique<It>(*this);
  }

 private:
  ReducerFunctions f_;
};

class GroupByReducerDatasetOp final : public DatasetOpKernel {
 public:
  GroupByReducerDatasetOp(OpKernelConstruction& c, Status* s)
      : DatasetOpKernel(c, s), op_(c.def.op) {
    key_ = function_attr(c, "key_func", s);
    init_ = function_attr(c, "init_func", s);
    reduce_ = function_attr(c, "reduce_func", s);
    finalize_ = function_attr(c, "finalize_func", s);
    num_key_args_ = list_length(c, "Tkey_func_other_arguments", s);
    num_init_args_ = list_length(c, "Tinit_func_other_arguments", s);
    num_reduce_args_ = list_length(c, "Treduce_func_other_arguments", s);
  }

 protected:
  // Inputs: input_dataset, then the other arguments of key_func, init_func, reduce_func and
  // finalize_func.
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    const int init_begin = 1 + num_key_args_;
    const int reduce_begin = init_begin + num_init_args_;
    const int finalize_begin = reduce_begin + num_reduce_args_;
    if (finalize_begin > ctx.num_inputs())
      return invalid_argument(op_ + " '" + ctx.node_name() + "' has " +
                              std::to_string(ctx.num_inputs()) + " inputs; its attributes need " +
                              std::to_string(finalize_begin) + " or more");
    ReducerFunctions f{make_captured_function(ctx, key_, 1, init_begin),
                       make_captured_function(ctx, init_, init_begin, reduce_begin),
                       make_captured_function(ctx, reduce_, reduce_begin, finalize_begin),
                       make_captured_function(ctx, finalize_, finalize_begin, ctx.num_inputs())};
    *out = std::make_shared<GroupByReducerDataset>(op_, std::move(input), std::move(f), dtypes_,
                                                   shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const InstantiatedFunction> key_, init_, reduce_, finalize_;
  int num_key_args_ = 0, num_init_args_ = 0, num_reduce_args_ = 0;
};

// -- MapAndBatchDataset: a map, then a batch ------------------------------------------------

class MapAndBatchDatasetOp final : public DatasetOpKernel {
 public:
  MapAndBatchDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {
    f_ = function_attr(c, "f", s);
    if (const auto* p = c.def.attr<bool>("preserve_cardinality")) preserve_cardinality_ = *p;
  }

 protected:
  // Inputs: input_dataset, other_arguments..., batch_size, num_parallel_calls,
  // drop_remainder.
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    const int n = ctx.num_inputs();
    std::int64_t batch_size = 0, parallel = 0;
    bool drop = false;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, n - 3, "batch_size", &batch_size));
    if (batch_size <= 0) return invalid_argument("batch_size must be greater than zero.");
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, n - 2, "num_parallel_calls", &parallel));
    if (parallel <= 0 && parallel != -1)
      return invalid_argument("num_parallel_calls must be greater than zero.");
    ACTORFLOW_RETURN_IF_ERROR(scalar_bool(ctx, n - 1, "drop_remainder", &drop));
    // The map's elements are the batch's rows.
    std::vector<PartialShape> row_shapes;
    for (const auto& s : shapes_)
      row_shapes.push_back(
          s.rank_known() && s.rank() > 0
              ? PartialShape(std::vector<std::int64_t>(s.dims().begin() + 1, s.dims().end()))
              : PartialShape());
    auto mapped = make_map_dataset(op_, std::move(input), make_captured_function(ctx, f_, 1, n - 3),
                                   preserve_cardinality_, parallel, dtypes_, std::move(row_shapes));
    *out = make_batch_dataset(op_, std::move(mapped), batch_size, drop, dtypes_, shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const InstantiatedFunction> f_;
  bool preserve_cardinality_ = false;
};

}  // namespace

void register_fold_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  ops.add({"ReduceDataset", element_outputs, true, {}});
  kernels.add(make_kernel_def<ReduceDatasetOp>("ReduceDataset", "CPU"));
  for (const char* op : {"ScanDataset", "ExperimentalScanDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<ScanDatasetOp>(op, "CPU"));
  }
  for (const char* op : {"TakeWhileDataset", "ExperimentalTakeWhileDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<TakeWhileDatasetOp>(op, "CPU"));
  }
  for (const char* op : {"GroupByWindowDataset", "ExperimentalGroupByWindowDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<GroupByWindowDatasetOp>(op, "CPU"));
  }
  for (const char* op : {"GroupByReducerDataset", "ExperimentalGroupByReducerDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<GroupByReducerDatasetOp>(op, "CPU"));
  }
  for (const char* op : {"MapAndBatchDataset", "ExperimentalMapAndBatchDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<MapAndBatchDatasetOp>(op, "CPU"));
  }
}

}  // namespace af::data::detail
