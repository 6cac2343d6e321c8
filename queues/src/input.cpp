// Batching (tensorflow/python/training/input.py): batch, batch_join, shuffle_batch and
// shuffle_batch_join build a queue, a QueueRunner of enqueue ops and a dequeue.
#include "actorflow/queues/input.hpp"

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af {

namespace {

[[noreturn]] void invalid(const std::string& msg) {
  throw InvalidArgumentError(invalid_argument(msg));
}

/// The element shapes of `tensors` (TF's `_shapes`): given shapes, else the static shapes
/// (dimension 0 dropped with `enqueue_many`); unknown dimensions only with `dynamic_pad`.
std::vector<QueueShape> element_shapes(const std::vector<std::vector<Output>>& lists,
                                       const std::vector<QueueShape>& given, bool enqueue_many,
                                       bool dynamic_pad, const char* fn) {
  const auto& first = lists.front();
  if (!given.empty()) {
    if (given.size() != first.size())
      invalid(std::string(fn) + ": " + std::to_string(given.size()) + " shapes for " +
              std::to_string(first.size()) + " tensors");
    return given;
  }
  std::vector<QueueShape> shapes;
  for (std::size_t i = 0; i < first.size(); ++i) {
    PartialShape merged = PartialShape::unknown();
    for (const auto& list : lists) {
      PartialShape s = list[i].shape();
      // As input.py's batching functions, which need each tensor's rank.
      if (!s.rank_known())
        invalid(std::string(fn) + ": Cannot infer Tensor's rank: " + list[i].name());
      if (enqueue_many && s.rank_known()) {
        if (s.rank() == 0)
          invalid(std::string(fn) + ": enqueue_many needs tensors of rank >= 1: " + list[i].name());
        s = PartialShape(std::vector<std::int64_t>(s.dims().begin() + 1, s.dims().end()));
      }
      PartialShape out;
      Status st = merged.merge_with(s, &out);
      if (!st.ok())
        invalid(std::string(fn) + ": incompatible shapes for tensor " + std::to_string(i) + ": " +
                st.message());
      merged = out;
    }
    if (!merged.rank_known() || (!dynamic_pad && !merged.fully_defined()))
      invalid(std::string(fn) + ": All shapes must be fully defined: tensor " + first[i].name() +
              " has shape " + merged.to_string() +
              (dynamic_pad ? " (dynamic_pad needs a known rank)" : ""));
    shapes.emplace_back(merged.dims());
  }
  return shapes;
}

std::vector<DType> dtypes_of(const std::vector<std::vector<Output>>& lists, const char* fn) {
  std::vector<DType> types;
  for (const auto& t : lists.front()) types.push_back(t.dtype());
  for (const auto& list : lists) {
    if (list.size() != types.size())
      invalid(std::string(fn) + ": every tensor list must have the same length");
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].dtype() != types[i])
        invalid(std::string(fn) + ": tensor " + std::to_string(i) + " has dtype " +
                std::string(dtype_name(list[i].dtype())) + " in one list and " +
                std::string(dtype_name(types[i])) + " in another");
  }
  return types;
}

Graph& graph_of(const std::vector<std::vector<Output>>& lists, const char* fn) {
  if (lists.empty() || lists.front().empty())
    invalid(std::string(fn) + ": Cannot batch an empty list of tensors");
  return lists.front().front().graph();
}

struct BatchPlan {
  std::vector<std::vector<Output>> lists;
  bool shuffle = false;
  bool dynamic_pad = false;
  bool enqueue_many = false;
  bool allow_smaller_final_batch = false;
  std::int64_t batch_size = 1;
  std::int64_t capacity = 32;
  std::int64_t min_after_dequeue = 0;
  std::optional<std::int64_t> seed;
  std::vector<QueueShape> shapes;
  std::string shared_name;
  std::string name;
  const char* fn = "batch";
};

std::vector<Output> build(const BatchPlan& p) {
  Graph& g = graph_of(p.lists, p.fn);
  if (p.batch_size <= 0) invalid(std::string(p.fn) + ": batch_size must be positive");
  // input.py's shuffle_batch checks this when it builds the graph, not when the queue opens.
  if (p.shuffle && p.capacity <= p.min_after_dequeue)
    invalid(std::string(p.fn) + ": capacity " + std::to_string(p.capacity) +
            " must be bigger than min_after_dequeue " + std::to_string(p.min_after_dequeue) + ".");
  auto scope = g.name_scope(p.name.empty() ? p.fn : p.name);
  auto types = dtypes_of(p.lists, p.fn);
  auto shapes = element_shapes(p.lists, p.shapes, p.enqueue_many, p.dynamic_pad, p.fn);
  QueueOptions qo{.capacity = p.capacity,
                  .min_after_dequeue = p.min_after_dequeue,
                  .dtypes = types,
                  .shapes = shapes,
                  .name = "",
                  .shared_name = p.shared_name,
                  .seed = p.seed};
  std::optional<QueueBase> queue;
  if (p.shuffle)
    queue.emplace(RandomShuffleQueue(g, qo));
  else if (p.dynamic_pad)
    queue.emplace(PaddingFIFOQueue(g, qo));
  else
    queue.emplace(FIFOQueue(g, qo));
  std::vector<Operation> enqueue_ops;
  for (const auto& list : p.lists)
    enqueue_ops.push_back(p.enqueue_many ? queue->enqueue_many(list) : queue->enqueue(list));
  add_queue_runner(g, QueueRunner(*queue, enqueue_ops));
  auto n = static_cast<std::int32_t>(p.batch_size);
  return p.allow_smaller_final_batch ? queue->dequeue_up_to(n) : queue->dequeue_many(n);
}

}  // namespace

std::vector<Output> batch(const std::vector<Output>& tensors, const BatchOptions& o) {
  BatchPlan p;
  for (int i = 0; i < std::max(1, o.num_threads); ++i) p.lists.push_back(tensors);
  p.dynamic_pad = o.dynamic_pad;
  p.enqueue_many = o.enqueue_many;
  p.allow_smaller_final_batch = o.allow_smaller_final_batch;
  p.batch_size = o.batch_size;
  p.capacity = o.capacity;
  p.shapes = o.shapes;
  p.shared_name = o.shared_name;
  p.name = o.name;
  p.fn = "batch";
  return build(p);
}

std::vector<Output> batch_join(const std::vector<std::vector<Output>>& tensors_list,
                               const BatchOptions& o) {
  BatchPlan p;
  p.lists = tensors_list;
  p.dynamic_pad = o.dynamic_pad;
  p.enqueue_many = o.enqueue_many;
  p.allow_smaller_final_batch = o.allow_smaller_final_batch;
  p.batch_size = o.batch_size;
  p.capacity = o.capacity;
  p.shapes = o.shapes;
  p.shared_name = o.shared_name;
  p.name = o.name;
  p.fn = "batch_join";
  return build(p);
}

std::vector<Output> shuffle_batch(const std::vector<Output>& tensors,
                                  const ShuffleBatchOptions& o) {
  BatchPlan p;
  for (int i = 0; i < std::max(1, o.num_threads); ++i) p.lists.push_back(tensors);
  p.shuffle = true;
  p.enqueue_many = o.enqueue_many;
  p.allow_smaller_final_batch = o.allow_smaller_final_batch;
  p.batch_size = o.batch_size;
  p.capacity = o.capacity;
  p.min_after_dequeue = o.min_after_dequeue;
  p.seed = o.seed;
  p.shapes = o.shapes;
  p.shared_name = o.shared_name;
  p.name = o.name;
  p.fn = "shuffle_batch";
  return build(p);
}

std::vector<Output> shuffle_batch_join(const std::vector<std::vector<Output>>& tensors_list,
                                       const ShuffleBatchOptions& o) {
  BatchPlan p;
  p.lists = tensors_list;
  p.shuffle = true;
  p.enqueue_many = o.enqueue_many;
  p.allow_smaller_final_batch = o.allow_smaller_final_batch;
  p.batch_size = o.batch_size;
  p.capacity = o.capacity;
  p.min_after_dequeue = o.min_after_dequeue;
  p.seed = o.seed;
  p.shapes = o.shapes;
  p.shared_name = o.shared_name;
  p.name = o.name;
  p.fn = "shuffle_batch_join";
  return build(p);
}

// -- input producers ---------------------------------------------------------------------

Output limit_epochs(const Output& tensor, std::optional<std::int64_t> num_epochs,
                    std::string_view name) {
  if (!num_epochs) return tensor;
  if (*num_epochs <= 0) invalid("num_epochs must be > 0 not " + std::to_string(*num_epochs) + ".");
  Graph& g = tensor.graph();
  auto scope = g.name_scope(name.empty() ? "limit_epochs" : name);
  Variable epochs = g.variable(Tensor(std::int64_t{0}),
                               {.name = "epochs",
                                .trainable = false,
                                .collections = std::vector<std::string>{kLocalVariables}});
  Output counter = count_up_to(epochs, *num_epochs);
  auto deps = g.control_dependencies({counter});
  return identity(tensor);
}

FIFOQueue input_producer(const Output& input, const InputProducerOptions& o) {
  Graph& g = input.graph();
  auto scope = g.name_scope(o.name.empty() ? "input_producer" : o.name);
  const PartialShape& s = input.shape();
  if (!s.rank_known() || s.rank() < 1)
    invalid("input_producer: input_tensor must have rank >= 1: " + input.name());
  PartialShape element(std::vector<std::int64_t>(s.dims().begin() + 1, s.dims().end()));
  if (o.element_shape) {
    PartialShape merged;
    if (Status m = element.merge_with(*o.element_shape, &merged); !m.ok())
      invalid("input_producer: " + m.message());
    element = merged;
  }
  if (!element.fully_defined())  // input.py's message
    invalid(
        "input_producer: Either `input_tensor` must have a fully defined shape or `element_shape` "
        "must be "
        "specified (element shape " +
        element.to_string() + ")");
  Output values = input;
  if (o.shuffle) values = random_shuffle(values, o.seed);
  values = limit_epochs(values, o.num_epochs);
  FIFOQueue q(g, {.capacity = o.capacity,
                  .dtypes = {input.dtype()},
                  .shapes = {element.dims()},
                  .name = "fifo_queue",
                  .shared_name = o.shared_name});
  Operation enqueue = q.enqueue_many({values});
  add_queue_runner(g, QueueRunner(q, {enqueue}, std::nullopt, o.cancel_op));
  return q;
}

FIFOQueue string_input_producer(const Output& strings, const InputProducerOptions& o) {
  if (strings.dtype() != DType::string)
    invalid("string_input_producer: expected a string tensor, got " +
            std::string(dtype_name(strings.dtype())));
  Graph& g = strings.graph();
  InputProducerOptions opts = o;
  // One scope for the check and the producer (input.py hands its scope to input_producer).
  if (opts.name.empty() || opts.name.back() != '/')
    opts.name = g.unique_name(opts.name.empty() ? "input_producer" : opts.name) + "/";
  Output checked;
  {
    // input.py: an empty tensor is caught when the queue runner runs, by an Assert the
    // strings depend on.
    auto scope = g.name_scope(opts.name);
    Operation non_empty = assert_that(
        greater(size(strings), g.constant(Tensor(std::int32_t{0}))),
        {g.constant(
            Tensor(std::string("string_input_producer requires a non-null input tensor")))});
    auto after = g.control_dependencies({non_empty});
    checked = identity(strings);
  }
  return input_producer(checked, opts);
}

FIFOQueue string_input_producer(Graph& g, const std::vector<std::string>& strings,
                                const InputProducerOptions& o) {
  if (strings.empty()) invalid("string_input_producer requires a non-null input tensor");
  return string_input_producer(g.constant(Tensor::from_vector<std::string>(strings)), o);
}

FIFOQueue range_input_producer(const Output& limit, const InputProducerOptions& o) {
  Graph& g = limit.graph();
  Output values;
  {
    auto scope = g.name_scope(o.name.empty() ? "input_producer" : o.name);
    values = range(limit);
  }
  return input_producer(values, o);
}

FIFOQueue range_input_producer(Graph& g, std::int32_t limit, const InputProducerOptions& o) {
  return range_input_producer(g.constant(Tensor(limit)), o);
}

std::vector<Output> slice_input_producer(const std::vector<Output>& tensors,
                                         const InputProducerOptions& o) {
  if (tensors.empty()) invalid("Expected at least one tensor in slice_input_producer().");
  Graph& g = tensors.front().graph();
  Output rows;
  const PartialShape& s = tensors.front().shape();
  if (s.rank_known() && s.rank() >= 1 && s.dim(0) >= 0) {
    rows = g.constant(Tensor(static_cast<std::int32_t>(s.dim(0))));
  } else {
    rows = gather(shape(tensors.front()), g.constant(Tensor(std::int32_t{0})));
  }
  FIFOQueue q = range_input_producer(rows, o);
  auto index = q.dequeue();
  std::vector<Output> out;
  for (const auto& t : tensors) out.push_back(gather(t, index[0]));
  return out;
}

}  // namespace af
