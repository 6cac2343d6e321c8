// Queue ops (TensorFlow's V2 resource ops: FIFOQueueV2, QueueEnqueueV2, QueueDequeueManyV2,
// ...), their shape functions and kernels, and the graph API of queues.hpp.
#include <atomic>
#include <mutex>
#include <string>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/stall_watch.hpp"
#include "actorflow/queues/queues.hpp"
#include "queue_kernel_util.hpp"
#include "queues_registration.hpp"

namespace af {

namespace detail {

namespace {

std::atomic<std::int64_t> g_unique_queue_ids{0};

/// The queue's name in messages: its shared name or TensorFlow's generated `_N_node`.
std::string resource_name(const std::string& shared_name, const std::string& node) {
  if (!shared_name.empty()) return shared_name;
  return "_" + std::to_string(g_unique_queue_ids.fetch_add(1)) + "_" + node;
}

QueueKind kind_of_op(const std::string& op) {
  const std::string base = base_op(op);
  if (base == "RandomShuffleQueue") return QueueKind::random_shuffle;
  if (base == "PaddingFIFOQueue") return QueueKind::padding_fifo;
  if (base == "PriorityQueue") return QueueKind::priority;
  return QueueKind::fifo;
}

// -- kernels ---------------------------------------------------------------------------------

/// FIFOQueueV2 / RandomShuffleQueueV2 / PaddingFIFOQueueV2 / PriorityQueueV2: creates the
/// queue on first run (shared ones in the process-wide resources) and outputs its handle.
class QueueOp : public OpKernel {
 public:
  QueueOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    spec_.kind = kind_of_op(c.def.op);
    *s = c.get_attr("component_types", &spec_.dtypes);
    if (!s->ok()) return;
    c.get_attr("shapes", &spec_.shapes);
    c.get_attr("capacity", &spec_.capacity);
    c.get_attr("min_after_dequeue", &spec_.min_after_dequeue);
    c.get_attr("seed", &spec_.seed);
    c.get_attr("seed2", &spec_.seed2);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    if (spec_.kind == QueueKind::random_shuffle) {
      // As TensorFlow's RandomShuffleQueueOp constructor (random_shuffle_queue_op.cc); a
      // negative capacity is unbounded.
      if (spec_.min_after_dequeue < 0) {
        *s = invalid_argument("min_after_dequeue " + std::to_string(spec_.min_after_dequeue) +
                              " must be >= 0");
        return;
      }
      if (spec_.capacity >= 0 && spec_.min_after_dequeue >= spec_.capacity) {
        *s = invalid_argument("min_after_dequeue " + std::to_string(spec_.min_after_dequeue) +
                              " must be < capacity " + std::to_string(spec_.capacity));
        return;
      }
    }
    if (spec_.kind == QueueKind::priority) {
      spec_.dtypes.insert(spec_.dtypes.begin(), DType::int64);
      if (!spec_.shapes.empty()) spec_.shapes.insert(spec_.shapes.begin(), PartialShape(Shape{}));
    }
  }

  void compute(OpKernelContext& ctx) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (!queue_) {
      if (!ctx.runtime) return ctx.fail(internal(name() + ": no runtime to spawn the queue in"));
      ResourceMgr* mgr = shared_name_.empty() || !ctx.shared_resource_mgr ? ctx.resource_mgr
                                                                          : ctx.shared_resource_mgr;
      if (!mgr) return ctx.fail(internal("no resource manager for " + name()));
      QueueSpec spec = spec_;
      spec.name = resource_name(shared_name_, name());
      Status s =
          lookup_or_create_queue(*mgr, ctx.runtime->system(), container_, spec.name, spec, &queue_);
      if (!s.ok()) return ctx.fail(s);
    }
    ctx.set_output(0, Tensor::from_resource(queue_));
  }

 private:
  QueueSpec spec_;
  std::string container_;
  std::string shared_name_;
  std::mutex mu_;
  std::shared_ptr<QueueResource> queue_;
};

/// The kernels that call the queue actor and wait for its answer.
class QueueCallOp : public OpKernel {
 public:
  QueueCallOp(OpKernelConstruction& c, Status*) : OpKernel(c) {
    const std::string op = base_op(c.def.op);
    if (op == "QueueEnqueue")
      kind_ = QueueCall::Kind::enqueue;
    else if (op == "QueueEnqueueMany")
      kind_ = QueueCall::Kind::enqueue_many;
    else if (op == "QueueDequeue")
      kind_ = QueueCall::Kind::dequeue;
    else if (op == "QueueDequeueMany")
      kind_ = QueueCall::Kind::dequeue_many;
    else if (op == "QueueDequeueUpTo")
      kind_ = QueueCall::Kind::dequeue_up_to;
    else if (op == "QueueClose")
      kind_ = QueueCall::Kind::close;
    else if (op == "QueueSize")
      kind_ = QueueCall::Kind::size;
    else
      kind_ = QueueCall::Kind::is_closed;
    bool cancel_pending = false;
    c.get_attr("cancel_pending_enqueues", &cancel_pending);
    if (kind_ == QueueCall::Kind::close && cancel_pending) kind_ = QueueCall::Kind::close_cancel;
  }

  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }

  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    auto queue = queue_input(ctx, 0);
    if (!queue) co_return;
    QueueCall call;
    call.kind = kind_;
    call.what = type() + " '" + name() + "'";
    switch (kind_) {
      case QueueCall::Kind::enqueue:
      case QueueCall::Kind::enqueue_many:
        for (int i = 1; i < ctx.num_inputs(); ++i) call.components.push_back(ctx.input(i));
        break;
      case QueueCall::Kind::dequeue_many:
      case QueueCall::Kind::dequeue_up_to:
        call.n = ctx.input(1).dtype() == DType::int64 ? ctx.input(1).scalar<std::int64_t>()
                                                      : ctx.input(1).scalar<std::int32_t>();
        break;
      default:
        break;
    }
    const bool enqueues =
        kind_ == QueueCall::Kind::enqueue || kind_ == QueueCall::Kind::enqueue_many;
    const bool dequeues = kind_ == QueueCall::Kind::dequeue ||
                          kind_ == QueueCall::Kind::dequeue_many ||
                          kind_ == QueueCall::Kind::dequeue_up_to;
    if (enqueues) queue->note_producer(ctx.step ? ctx.step->client_task() : std::string());
    // A dequeue that waits long is what a stall report names the producers of.
    StallWatchScope watch;
    if (dequeues)
      watch = StallWatchScope(StallingWait{
          "dequeue", queue->debug_string(), std::string(ctx.device_name),
          ctx.step ? ctx.step->step_id() : 0, -1, [weak = std::weak_ptr<QueueResource>(queue)] {
            auto q = weak.lock();
            return q ? q->waiting_for() : std::string("(queue gone)");
          }});
    QueueReply reply = co_await call_queue(ctx.step, queue, std::move(call));
    watch.end();
    if (!reply.status.ok()) {
      ctx.fail(reply.status);
      co_return;
    }
    if (dequeues) {
      // Should this step fail after all, its elements go back: a failed step takes nothing.
      ctx.step->add_rollback(
          [queue, components = reply.components, many = kind_ != QueueCall::Kind::dequeue] {
            queue->restore(components, many);
          });
      if (static_cast<int>(reply.components.size()) != ctx.num_outputs()) {
        ctx.fail(invalid_argument(
            name() + ": the queue returned " + std::to_string(reply.components.size()) +
            " components, the op has " + std::to_string(ctx.num_outputs()) + " outputs"));
        co_return;
      }
    }
    for (std::size_t i = 0; i < reply.components.size() && static_cast<int>(i) < ctx.num_outputs();
         ++i)
      ctx.set_output(static_cast<int>(i), std::move(reply.components[i]));
  }

 private:
  QueueCall::Kind kind_;
};

// -- shape functions -------------------------------------------------------------------------

Status infer_queue(InferenceContext& c) {
  std::vector<DType> types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("component_types", &types));
  c.add_output(DType::resource, PartialShape(Shape{}), /*is_ref=*/true);
  return {};
}

/// Dequeue outputs: the component types, shapes from the builder's `_output_shapes`.
Status infer_dequeue(InferenceContext& c) {
  std::vector<DType> types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("component_types", &types));
  std::vector<PartialShape> shapes;
  c.get_attr("_output_shapes", &shapes);
  for (std::size_t i = 0; i < types.size(); ++i)
    c.add_output(types[i], i < shapes.size() ? shapes[i] : PartialShape::unknown());
  return {};
}

Status infer_no_output(InferenceContext&) { return {}; }

Status infer_scalar(InferenceContext& c, DType t) {
  c.add_output(t, PartialShape(Shape{}));
  return {};
}

}  // namespace

void register_queue_ops_and_kernels() {
  auto& ops = OpRegistry::global();
  auto& kernels = KernelRegistry::global();
  // Each op twice: TensorFlow's V2 (resource handle) and its first form (Ref(string)).
  for (const std::string v : {"V2", ""}) {
    for (const char* op :
         {"FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue"}) {
      ops.add({op + v, infer_queue, true, {}});
      kernels.add(make_kernel_def<QueueOp>(op + v, "CPU"));
    }
    ops.add({"QueueEnqueue" + v, infer_no_output, true, {0}});
    ops.add({"QueueEnqueueMany" + v, infer_no_output, true, {0}});
    ops.add({"QueueDequeue" + v, infer_dequeue, true, {0}});
    ops.add({"QueueDequeueMany" + v, infer_dequeue, true, {0}});
    ops.add({"QueueDequeueUpTo" + v, infer_dequeue, true, {0}});
    ops.add({"QueueClose" + v, infer_no_output, true, {0}});
    ops.add({"QueueSize" + v,
             [](InferenceContext& c) { return infer_scalar(c, DType::int32); },
             true,
             {0}});
    ops.add({"QueueIsClosed" + v,
             [](InferenceContext& c) { return infer_scalar(c, DType::boolean); },
             true,
             {0}});
    for (const char* op : {"QueueEnqueue", "QueueEnqueueMany", "QueueDequeue", "QueueDequeueMany",
                           "QueueDequeueUpTo", "QueueClose", "QueueSize", "QueueIsClosed"})
      kernels.add(make_kernel_def<QueueCallOp>(op + v, "CPU"));
  }
}

}  // namespace detail

// -- graph API ------------------------------------------------------------------------------

namespace {

std::vector<PartialShape> to_partial(const std::vector<QueueShape>& shapes) {
  std::vector<PartialShape> out;
  out.reserve(shapes.size());
  for (const auto& s : shapes) out.emplace_back(s);
  return out;
}

const char* default_name(QueueKind kind) {
  switch (kind) {
    case QueueKind::fifo:
      return "fifo_queue";
    case QueueKind::random_shuffle:
      return "random_shuffle_queue";
    case QueueKind::padding_fifo:
      return "padding_fifo_queue";
    case QueueKind::priority:
      return "priority_queue";
  }
  return "queue";
}

const char* op_of(QueueKind kind) {
  switch (kind) {
    case QueueKind::fifo:
      return "FIFOQueueV2";
    case QueueKind::random_shuffle:
      return "RandomShuffleQueueV2";
    case QueueKind::padding_fifo:
      return "PaddingFIFOQueueV2";
    case QueueKind::priority:
      return "PriorityQueueV2";
  }
  return "FIFOQueueV2";
}

[[noreturn]] void throw_invalid(const std::string& msg) {
  throw InvalidArgumentError(invalid_argument(msg));
}

}  // namespace

QueueBase::QueueBase(Graph& g, QueueKind kind, const QueueOptions& o)
    : graph_(&g), kind_(kind), dtypes_(o.dtypes), shapes_(to_partial(o.shapes)) {
  register_queue_ops();
  std::string name = o.name.empty() ? default_name(kind) : o.name;
  if (o.dtypes.empty())
    throw_invalid(std::string(queue_kind_name(kind)) + " '" + name + "': dtypes must not be empty");
  if (!o.shapes.empty() && o.shapes.size() != o.dtypes.size())
    throw_invalid(std::string(queue_kind_name(kind)) + " '" + name +
                  "': " + std::to_string(o.shapes.size()) + " shapes for " +
                  std::to_string(o.dtypes.size()) + " dtypes");
  for (const auto& s : shapes_) {
    if (kind != QueueKind::padding_fifo && !s.fully_defined())
      throw_invalid(std::string(queue_kind_name(kind)) + " '" + name + "': shape " + s.to_string() +
                    " is not fully defined (use a PaddingFIFOQueue to pad unknown dimensions)");
  }
  if (kind == QueueKind::padding_fifo && shapes_.empty())
    throw_invalid("PaddingFIFOQueue '" + name + "': shapes must be specified");
  AttrMap attrs{{"component_types", o.dtypes},
                {"shapes", shapes_},
                {"capacity", o.capacity},
                {"container", std::string()},
                {"shared_name", o.shared_name}};
  if (kind == QueueKind::random_shuffle) {
    auto [seed, seed2] = g.get_seed(o.seed);
    attrs["min_after_dequeue"] = o.min_after_dequeue;
    attrs["seed"] = seed;
    attrs["seed2"] = seed2;
  }
  handle_ = g.create_op(op_of(kind), {}, std::move(attrs), name).output(0);
  if (kind == QueueKind::priority) {
    dtypes_.insert(dtypes_.begin(), DType::int64);
    if (!shapes_.empty()) shapes_.insert(shapes_.begin(), PartialShape(Shape{}));
  }
}

namespace {

/// TensorFlow names queue ops after the last component of the queue's name
/// (`QueueBase._name = queue_ref.op.name.split("/")[-1]`), inside the current scope.
std::string scoped(const QueueBase& q, std::string_view name, const char* suffix) {
  if (!name.empty()) return std::string(name);
  std::string base = q.name();
  if (auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  return base + suffix;
}

}  // namespace

Operation QueueBase::enqueue(const std::vector<Output>& components, std::string_view name) const {
  std::string what = std::string(queue_kind_name(kind_)) + " '" + this->name() + "'";
  if (components.size() != dtypes_.size())
    throw_invalid("Enqueue to " + what + ": expected " + std::to_string(dtypes_.size()) +
                  " components, got " + std::to_string(components.size()));
  std::vector<Output> inputs{handle_};
  std::vector<DType> types;
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (components[i].dtype() != dtypes_[i])
      throw_invalid("Enqueue to " + what + ": component " + std::to_string(i) + " has dtype " +
                    std::string(dtype_name(components[i].dtype())) + ", expected " +
                    std::string(dtype_name(dtypes_[i])));
    if (!shapes_.empty() && !shapes_[i].is_compatible_with(components[i].shape()))
      throw_invalid("Enqueue to " + what + ": component " + std::to_string(i) + " has shape " +
                    components[i].shape().to_string() + ", expected " + shapes_[i].to_string());
    inputs.push_back(components[i]);
    types.push_back(dtypes_[i]);
  }
  return graph_->create_op("QueueEnqueueV2", inputs,
                           {{"Tcomponents", types}, {"timeout_ms", std::int64_t{-1}}},
                           scoped(*this, name, "_enqueue"));
}

Operation QueueBase::enqueue_many(const std::vector<Output>& components,
                                  std::string_view name) const {
  std::string what = std::string(queue_kind_name(kind_)) + " '" + this->name() + "'";
  if (components.size() != dtypes_.size())
    throw_invalid("EnqueueMany to " + what + ": expected " + std::to_string(dtypes_.size()) +
                  " components, got " + std::to_string(components.size()));
  std::vector<Output> inputs{handle_};
  std::vector<DType> types;
  // Every component's dimension 0 is the batch: they must agree where known
  // (data_flow_ops.py merges them).
  std::int64_t batch = -1;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const PartialShape& s = components[i].shape();
    if (!s.rank_known() || s.rank() == 0 || s.dim(0) < 0) continue;
    if (batch >= 0 && s.dim(0) != batch)
      throw_invalid("EnqueueMany to " + what + ": Dimensions " + std::to_string(batch) + " and " +
                    std::to_string(s.dim(0)) + " are not compatible (component " +
                    std::to_string(i) + "'s batch dimension)");
    batch = s.dim(0);
  }
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (components[i].dtype() != dtypes_[i])
      throw_invalid("EnqueueMany to " + what + ": component " + std::to_string(i) + " has dtype " +
                    std::string(dtype_name(components[i].dtype())) + ", expected " +
                    std::string(dtype_name(dtypes_[i])));
    const PartialShape& s = components[i].shape();
    if (s.rank_known() && s.rank() == 0)
      throw_invalid("EnqueueMany to " + what + ": component " + std::to_string(i) +
                    " is a scalar; enqueue_many needs a batch dimension");
    if (!shapes_.empty() && s.rank_known()) {
      std::vector<std::int64_t> rest(s.dims().begin() + 1, s.dims().end());
      if (!shapes_[i].is_compatible_with(PartialShape(rest)))
        throw_invalid("EnqueueMany to " + what + ": component " + std::to_string(i) +
                      " has shape " + s.to_string() +
                      ", expected (?, ...) with elements of shape " + shapes_[i].to_string());
    }
    inputs.push_back(components[i]);
    types.push_back(dtypes_[i]);
  }
  return graph_->create_op("QueueEnqueueManyV2", inputs,
                           {{"Tcomponents", types}, {"timeout_ms", std::int64_t{-1}}},
                           scoped(*this, name, "_EnqueueMany"));
}

std::vector<Output> QueueBase::dequeue_impl(const std::string& op, const Output* n,
                                            std::string_view name, const char* suffix) const {
  std::vector<PartialShape> out_shapes;
  if (!shapes_.empty()) {
    for (const auto& s : shapes_) {
      if (!n) {
        out_shapes.push_back(s);
        continue;
      }
      std::vector<std::int64_t> dims{-1};
      if (op == "QueueDequeueManyV2" && n->node()->type() == "Const") {
        const Tensor* v = n->node()->def().attr<Tensor>("value");
        if (v)
          dims[0] =
              v->dtype() == DType::int64 ? v->scalar<std::int64_t>() : v->scalar<std::int32_t>();
      }
      for (auto d : s.dims()) dims.push_back(kind_ == QueueKind::padding_fifo ? -1 : d);
      if (kind_ == QueueKind::padding_fifo)
        for (std::size_t k = 0; k < s.dims().size(); ++k)
          if (s.dims()[k] >= 0) dims[k + 1] = s.dims()[k];
      out_shapes.emplace_back(dims);
    }
  }
  std::vector<Output> inputs{handle_};
  if (n) inputs.push_back(*n);
  AttrMap attrs{{"component_types", dtypes_}, {"timeout_ms", std::int64_t{-1}}};
  if (!out_shapes.empty()) attrs["_output_shapes"] = out_shapes;
  Operation o = graph_->create_op(op, inputs, std::move(attrs), scoped(*this, name, suffix));
  std::vector<Output> outs;
  for (std::size_t i = 0; i < dtypes_.size(); ++i) outs.push_back(o.output(static_cast<int>(i)));
  return outs;
}

std::vector<Output> QueueBase::dequeue(std::string_view name) const {
  return dequeue_impl("QueueDequeueV2", nullptr, name, "_Dequeue");
}

std::vector<Output> QueueBase::dequeue_many(const Output& n, std::string_view name) const {
  return dequeue_impl("QueueDequeueManyV2", &n, name, "_DequeueMany");
}

std::vector<Output> QueueBase::dequeue_many(std::int32_t n, std::string_view name) const {
  Output count = graph_->constant(Tensor(n), scoped(*this, name, "_DequeueMany") + "/n");
  return dequeue_many(count, name);
}

std::vector<Output> QueueBase::dequeue_up_to(const Output& n, std::string_view name) const {
  return dequeue_impl("QueueDequeueUpToV2", &n, name, "_DequeueUpTo");
}

std::vector<Output> QueueBase::dequeue_up_to(std::int32_t n, std::string_view name) const {
  Output count = graph_->constant(Tensor(n), scoped(*this, name, "_DequeueUpTo") + "/n");
  return dequeue_up_to(count, name);
}

Operation QueueBase::close(bool cancel_pending_enqueues, std::string_view name) const {
  return graph_->create_op("QueueCloseV2", {handle_},
                           {{"cancel_pending_enqueues", cancel_pending_enqueues}},
                           scoped(*this, name, "_Close"));
}

Output QueueBase::size(std::string_view name) const {
  return graph_->create_op("QueueSizeV2", {handle_}, {}, scoped(*this, name, "_Size")).output(0);
}

Output QueueBase::is_closed(std::string_view name) const {
  return graph_->create_op("QueueIsClosedV2", {handle_}, {}, scoped(*this, name, "_IsClosed"))
      .output(0);
}

FIFOQueue::FIFOQueue(Graph& g, const QueueOptions& o) : QueueBase(g, QueueKind::fifo, o) {}
RandomShuffleQueue::RandomShuffleQueue(Graph& g, const QueueOptions& o)
    : QueueBase(g, QueueKind::random_shuffle, o) {}
PaddingFIFOQueue::PaddingFIFOQueue(Graph& g, const QueueOptions& o)
    : QueueBase(g, QueueKind::padding_fifo, o) {}
PriorityQueue::PriorityQueue(Graph& g, const QueueOptions& o)
    : QueueBase(g, QueueKind::priority, o) {}

}  // namespace af
