// The device actor: runs partitions of steps. Cheap kernels run inline in the actor,
// expensive ones on the device's inter-op pool (completion comes back as a message),
// asynchronous ones as coroutines resumed inside the actor.
#include <chrono>
#include <deque>
#include <map>
#include <thread>
#include <unordered_map>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/kernels/cpu_kernels.hpp"  // the runtime runs the CPU kernels
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/stall_watch.hpp"

namespace af::detail {

namespace {

// The system clock: stats of the tasks of a distributed step share one time axis.
std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::uint64_t thread_id() {
  return static_cast<std::uint64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

Status with_node(Status s, const std::string& node) {
  if (s.ok() || s.message().find("[[") != std::string::npos) return s;
  return s.with_context("\n\t [[{{node " + node + "}}]]");
}

}  // namespace

// -- ExecutorImpl --------------------------------------------------------------------------

Status ExecutorImpl::create(PartitionPlan plan, std::shared_ptr<Device> device,
                            std::shared_ptr<ExecutorImpl>* out, const std::string& kernel_scope) {
  auto impl = std::make_shared<ExecutorImpl>();
  impl->plan = std::move(plan);
  impl->device = std::move(device);
  impl->kernel_scope = kernel_scope;
  auto& nodes = impl->plan.nodes;
  impl->items.resize(nodes.size());
  int slot = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto& item = impl->items[i];
    const ExecNode& n = nodes[i];
    item.node = &n;
    item.input_start = slot;
    item.num_inputs = static_cast<int>(n.inputs.size());
    slot += item.num_inputs;
    item.initial_pending = item.num_inputs + static_cast<int>(n.control_inputs.size());
    item.out_edges.resize(n.output_types.size());
    for (std::size_t k = 0; k < n.input_types.size(); ++k)
      if (n.input_types[k] != DType::resource && !n.input_is_ref[k]) item.needs_deref = true;
    if (n.def.op == "_Feed") continue;
    OpKernelConstruction c{n.def, n.input_types, n.output_types, impl->device->device_type(),
                           impl->device->name()};
    // Stateful kernels (queues, readers, variables) are one per session and device, shared
    // by every plan, as TensorFlow's OpSegment shares them between executors.
    const OpDef* op = OpRegistry::global().find(n.def.op);
    Status s = impl->device->find_or_create_kernel(
        kernel_scope + n.def.name, op && op->stateful, &item.kernel,
        [&](std::unique_ptr<OpKernel>* out) { return KernelRegistry::global().create(c, out); });
    if (!s.ok()) return s;
    item.is_async = item.kernel->is_async();
  }
  impl->total_inputs = slot;
  impl->inline_ok = impl->device && !impl->device->is_accelerator();
  // A GPU partition can run on the waiting thread too: its kernels only enqueue work, and its
  // copies and the end-of-step sync complete through callbacks posted to the wait loop.
  impl->waiting_ok = impl->device != nullptr;
  for (auto& item : impl->items) {
    const std::string& op = item.node->def.op;
    if (item.is_async || op == "_Send" || op == "_Recv") impl->inline_ok = false;
    if (op == "_Send" || op == "_Recv") impl->waiting_ok = false;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const ExecNode& n = nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      auto [src, output] = n.inputs[k];
      impl->items[static_cast<std::size_t>(src)]
          .out_edges[static_cast<std::size_t>(output)]
          .push_back({static_cast<int>(i), static_cast<int>(k)});
    }
    for (int c : n.control_inputs)
      impl->items[static_cast<std::size_t>(c)].control_out.push_back(static_cast<int>(i));
    if (impl->items[i].initial_pending == 0) impl->initial_ready.push_back(static_cast<int>(i));
  }
  for (auto& f : impl->plan.fetches)
    impl->items[static_cast<std::size_t>(f.node)].fetches.push_back({f.fetch_index, f.output});
  *out = std::move(impl);
  return {};
}

// -- per-step execution state ------------------------------------------------------------

namespace {

class ExecutorState;

struct DeviceActorState {
  std::shared_ptr<Device> device;
  // Keyed by (step id, partition index).
  std::map<std::pair<std::int64_t, std::size_t>, std::unique_ptr<ExecutorState>> steps;
  static inline const char* name = "af.device";
  DeviceActorState() = default;
  ~DeviceActorState();
};
using DeviceActor = caf::stateful_actor<DeviceActorState, device_actor_handle::base>;

}  // namespace

/// Hands a partition started on another thread (run_step_inline) to the device actor.
struct Adoption {
  std::function<void(DeviceActor*)> fn;
};

namespace {

/// One partition of one step, owned by the device actor running it.
class ExecutorState final : public StepServices {
 public:
  ExecutorState(DeviceActor* self, PartitionRunPtr run)
      : self_(self),
        run_(std::move(run)),
        step_(run_->step.get()),
        impl_(step_->executors[run_->partition]),
        ends_step_(run_->direct) {
    pending_.reserve(impl_->items.size());
    for (auto& item : impl_->items) pending_.push_back(item.initial_pending);
    inputs_.resize(static_cast<std::size_t>(impl_->total_inputs));
    ready_.assign(impl_->initial_ready.begin(), impl_->initial_ready.end());
  }

  // -- StepServices ------------------------------------------------------------------------

  std::int64_t step_id() const override { return step_->step_id; }
  const std::string& client_task() const override { return step_->client_task; }

  /// True when the partition runs on the caller's thread (run_step_inline), not in an actor.
  bool inline_mode() const { return self_ == nullptr; }

  void send(const std::string& key, Tensor value) override {
    if (step_->remote_send && step_->remote_send(step_->step_id, key, value)) return;
    self_->send(step_->rendezvous, send_atom::value, step_->step_id, key, std::move(value));
  }

  /// A StallWatch entry for the receive of `key` when its sender is on another task (null
  /// otherwise); it ends with the last handler holding it.
  std::shared_ptr<StallWatchScope> watch_remote_recv(const std::string& key) const {
    const auto task_of = [](std::string_view device) {
      return device.substr(0, device.find("/device:"));
    };
    const std::string_view source = std::string_view(key).substr(0, key.find(';'));
    const std::string& device = impl_->plan.device;
    if (source.find("/device:") == std::string_view::npos || task_of(source) == task_of(device))
      return nullptr;
    // The key is `src_device;dst_device;tensor;frame`: the report names the tensor.
    const auto tensor_at = key.find(';', source.size() + 1);
    StallingWait w;
    w.kind = "recv";
    w.what = tensor_at == std::string::npos
                 ? key
                 : key.substr(tensor_at + 1, key.find(';', tensor_at + 1) - tensor_at - 1);
    w.device = device;
    w.step_id = step_->step_id;
    w.waiting_for = [task = std::string(task_of(source))] { return "a tensor from " + task; };
    return std::make_shared<StallWatchScope>(std::move(w));
  }

  Async<StatusOr<Tensor>> recv(const std::string& key) override {
    return {[this, key](Completion<StatusOr<Tensor>> c) {
      if (!status_.ok()) return c(cancelled("step aborted before recv of " + key));
      if (inline_mode()) return c(internal("recv of " + key + " in a step without a device actor"));
      cancel_hooks_.emplace(next_hook_++, [c](const Status& s) { c(s); });
      // Without a deadline the receive waits untimed: a CAF request timeout costs a wake-up
      // of CAF's clock thread when set and another when cancelled (two per received tensor),
      // and a receive cannot be left hanging: the rendezvous fails every waiter when the
      // step is aborted or ends, and when the rendezvous itself stops.
      caf::duration wait = caf::infinite;
      if (step_->deadline != std::chrono::steady_clock::time_point::max())
        wait = caf::duration{std::chrono::duration_cast<std::chrono::milliseconds>(remaining())};
      // A tensor from another task: the wait is one a stall report names the task of.
      auto watch = watch_remote_recv(key);
      self_->request(step_->rendezvous, wait, recv_atom::value, step_->step_id, key)
          .then([c, watch](const Tensor& t) { c(t); },
                [c, key, watch](caf::error& e) { c(status_from_error(e, "recv " + key)); });
    }};
  }

  Async<Status> sleep(std::chrono::microseconds delay) override {
    return {[this, delay](Completion<Status> c) {
      if (!status_.ok()) return c(cancelled("step aborted"));
      cancel_hooks_.emplace(next_hook_++, [c](const Status& s) { c(s); });
      if (inline_mode())
        loop_->post_at(std::chrono::steady_clock::now() + delay, [c] { c(Status()); });
      else
        self_->delayed_send(self_, delay, resume_atom::value, Closure{[c] { c(Status()); }});
    }};
  }

  std::chrono::steady_clock::time_point deadline() const override { return step_->deadline; }

  std::function<void(std::function<void()>)> poster() override {
    if (inline_mode())
      return [loop = loop_](std::function<void()> fn) { loop->post(std::move(fn)); };
    return [me = caf::actor_cast<device_actor_handle>(self_)](std::function<void()> fn) {
      caf::anon_send(me, resume_atom::value, Closure{std::move(fn)});
    };
  }

  std::uint64_t add_cancel_hook(std::function<void(const Status&)> hook) override {
    if (!status_.ok()) {
      hook(status_);
      return 0;
    }
    auto token = next_hook_++;
    cancel_hooks_.emplace(token, std::move(hook));
    return token;
  }

  void remove_cancel_hook(std::uint64_t token) override { cancel_hooks_.erase(token); }

  void add_rollback(std::function<void()> undo) override { rollbacks_.push_back(std::move(undo)); }

  // -- driving -------------------------------------------------------------------------------

  /// Runs ready nodes until none is left; reports the partition when nothing is in flight.
  /// Returns true when the partition finished.
  bool run() {
    if (in_loop_) return false;
    in_loop_ = true;
    while (!ready_.empty() && !handoff_ctx_) {
      int id = ready_.front();
      ready_.pop_front();
      if (!status_.ok()) continue;  // aborted: drain without running
      launch(id);
    }
    in_loop_ = false;
    return maybe_finish();
  }

  const Status& status() const { return status_; }

  /// Aborts the partition: nothing new starts; waiting kernels resume with `why`.
  /// The caller runs `run()` afterwards (kernels resumed here must not finish the partition
  /// underneath it).
  void cancel(const Status& why) {
    if (status_.ok()) status_ = why;
    ready_.clear();
    bool was_in_loop = std::exchange(in_loop_, true);
    auto hooks = std::move(cancel_hooks_);
    cancel_hooks_.clear();
    for (auto& [token, h] : hooks) h(why);
    in_loop_ = was_in_loop;
  }

 private:
  /// What is left of a step's deadline (one that has one), at least 1 ms.
  std::chrono::steady_clock::duration remaining() const {
    auto left = step_->deadline - std::chrono::steady_clock::now();
    return std::max(left, std::chrono::steady_clock::duration(std::chrono::milliseconds(1)));
  }

  void fail(Status s) {
    bool first = status_.ok();
    if (first) {
      cancel(s);
      // Tell the master at once so it can cancel the other partitions.
      if (!inline_mode() && !ends_step_)
        self_->send(run_->master, cancel_atom::value, step_->step_id, s);
    }
  }

  std::vector<Tensor> gather_inputs(const ExecutorImpl::Item& item, Status* s) {
    std::vector<Tensor> in;
    in.reserve(static_cast<std::size_t>(item.num_inputs));
    for (int k = 0; k < item.num_inputs; ++k) {
      Tensor& t = inputs_[static_cast<std::size_t>(item.input_start + k)];
      Var* var = nullptr;
      const auto ku = static_cast<std::size_t>(k);
      if (t.dtype() == DType::resource && !item.node->input_is_ref[ku] &&
          item.node->input_types[ku] != DType::resource &&
          (var = dynamic_cast<Var*>(t.resource().get())) != nullptr) {
        // A variable reference read by a kernel that wants the value (TensorFlow's deref);
        // a resource handle (VarHandleOp's) passes as it is.
        Tensor value;
        Status r = var->read(&value);
        if (!r.ok()) {
          *s = r;
          return in;
        }
        in.push_back(std::move(value));
      } else {
        in.push_back(std::move(t));
      }
    }
    return in;
  }

  void launch(int id) {
    const auto& item = impl_->items[static_cast<std::size_t>(id)];
    const ExecNode& node = *item.node;
    if (node.feed_index >= 0) {
      const Tensor& fed = step_->feeds[static_cast<std::size_t>(node.feed_index)];
      if (impl_->device->is_accelerator() && fed.is_initialized() &&
          fed.dtype() != DType::resource && fed.dtype() != DType::string) {
        // A feed into a GPU partition is copied into the device's memory first.
        ++outstanding_;
        impl_->device->copy_from_host(fed, posted<StatusOr<Tensor>>([this, id](StatusOr<Tensor> r) {
                                        --outstanding_;
                                        std::vector<Tensor> out(1);
                                        if (r.ok()) out[0] = std::move(*r);
                                        complete(id, out, r.ok() ? Status() : r.status());
                                        run();
                                      }));
        return;
      }
      std::vector<Tensor> out{fed};
      complete(id, out, Status());
      return;
    }
    Status s;
    auto ctx = std::make_shared<OpKernelContext>(node.def, gather_inputs(item, &s));
    if (!s.ok()) return fail(with_node(s, node.def.name));
    ctx->set_num_outputs(static_cast<int>(node.output_types.size()));
    ctx->resource_mgr = &impl_->device->resource_mgr();
    ctx->shared_resource_mgr = impl_->device->shared_resource_mgr();
    ctx->runtime = impl_->device->runtime();
    ctx->step = this;
    ctx->eigen_device = impl_->device->intra_op_device();
    ctx->intra_op_threads = impl_->device->intra_op_threads();
    ctx->device_name = impl_->device->name();
    ctx->device_context = impl_->device->device_context();
    OpKernel* kernel = item.kernel.get();
    if (item.is_async) {
      ++outstanding_;
      auto start = step_->trace ? now_us() : 0;
      auto tid = step_->trace ? thread_id() : 0;
      AsyncKernelTask task = kernel->compute_async(*ctx);
      task.start([this, id, ctx, start, tid](std::exception_ptr e) {
        --outstanding_;
        if (e) ctx->fail(status_from_exception(e));
        if (step_->trace) record(id, tid, start, now_us(), true);
        complete(id, ctx->outputs(), ctx->status());
        run();
      });
      return;
    }
    if (kernel->is_expensive(*ctx)) {
      if (!inline_mode()) {
        if (worth_the_pool()) return schedule(id, std::move(ctx));
      } else if (loop_) {
        // On the thread that waits for the step, which stands in for an inter-op thread (as
        // TensorFlow's executor keeps the last ready expensive node on its own thread): this
        // one goes to the pool only when the pool has threads to spare and there is other
        // work beside it, ready to run here or in flight on the pool (whose completions this
        // thread must stay free to take: two chains of products then run side by side). A
        // chain (a training step) runs with no hop at all.
        if ((!ready_.empty() || outstanding_ > 0) && impl_->device->inter_op_threads() > 1)
          return schedule(id, std::move(ctx));
      } else if (cheap_only_) {
        // A thread that must not block: stop here and hand the rest to the device actor.
        handoff_id_ = id;
        handoff_ctx_ = std::move(ctx);
        return;
      }
    }
    auto start = step_->trace ? now_us() : 0;
    compute(*kernel, *ctx);
    if (step_->trace) record(id, thread_id(), start, now_us(), false);
    complete(id, ctx->outputs(), ctx->status());
  }

  /// In a device actor: whether an expensive kernel is better run on the inter-op pool than
  /// on the actor's own thread. The pool costs two thread wake-ups (there and back, tens of
  /// microseconds each on a virtual machine) and buys overlap only with other work: another
  /// ready node of this step, a kernel of it already on the pool, another partition of this
  /// device, or a message waiting for the actor. Without any of these (a chain, as a training
  /// step's forward and backward passes are) the kernel runs here, as TensorFlow's executor
  /// runs the last ready node on the thread that made it ready. An accelerator's kernels only
  /// enqueue work and always go to the pool.
  bool worth_the_pool() const {
    return !ready_.empty() || pool_outstanding_ > 0 || impl_->device->is_accelerator() ||
           self_->state.steps.size() != 1 || !self_->mailbox().empty();
  }

  /// Runs node `id`'s expensive kernel on the device's inter-op pool; its completion comes
  /// back to the device actor (or to the wait loop of the thread waiting for the step).
  void schedule(int id, std::shared_ptr<OpKernelContext> ctx) {
    OpKernel* kernel = impl_->items[static_cast<std::size_t>(id)].kernel.get();
    ++outstanding_;
    ++pool_outstanding_;
    auto impl = impl_;  // keeps kernels and device alive while the pool runs
    bool trace = step_->trace;
    impl_->device->schedule([this, id, ctx, kernel, impl, post = poster(), trace] {
      auto start = trace ? now_us() : 0;
      compute(*kernel, *ctx);
      auto end = trace ? now_us() : 0;
      auto tid = trace ? thread_id() : 0;
      post([this, id, ctx, start, end, tid] {
        --outstanding_;
        --pool_outstanding_;
        if (step_->trace) record(id, tid, start, end, false);
        complete(id, ctx->outputs(), ctx->status());
        run();
      });
    });
  }

 public:
  /// Inline mode on a thread that must not block: expensive kernels are not run here (see
  /// `handed_off`).
  void set_cheap_only() { cheap_only_ = true; }
  /// Inline mode on a thread that waits for the step: asynchronous kernels post their
  /// completions (and sleeps their timers) to `loop`, which that thread serves.
  void set_loop(std::shared_ptr<WaitLoop> loop) { loop_ = std::move(loop); }
  bool finished() const { return finished_; }
  const StepRun* step() const { return step_; }
  int outstanding() const { return outstanding_; }
  /// True when an inline run stopped at an expensive kernel: `adopt` it in the device actor.
  bool handed_off() const { return handoff_ctx_ != nullptr; }
  /// Continues a handed-off partition inside device actor `self`: the pending expensive
  /// kernel goes to the pool and the step ends there, calling the step's `done` itself (a
  /// one-partition step has no master).
  void adopt(DeviceActor* self) {
    self_ = self;
    ends_step_ = true;
    schedule(handoff_id_, std::move(handoff_ctx_));
    handoff_ctx_ = nullptr;
    run();
  }
  ~ExecutorState() override {
    if (ends_step_ && !finished_)
      // A cancellation that reached the partition (the session's close) is the reason.
      finish_step(*step_, status_.ok() ? cancelled("step " + std::to_string(step_->step_id) +
                                                   " was cancelled: its device shut down")
                                       : status_);
  }

 private:
  static void compute(OpKernel& kernel, OpKernelContext& ctx) {
    try {
      kernel.compute(ctx);
    } catch (...) {
      ctx.fail(status_from_exception(std::current_exception()));
    }
  }

  // Wraps `fn` so that it runs inside this device actor whichever thread calls it (copy
  // completions come from CUDA's callback thread).
  template <class T>
  std::function<void(T)> posted(std::function<void(T)> fn) {
    return [post = poster(), fn = std::move(fn)](T value) mutable {
      post([fn, value = std::move(value)]() mutable { fn(std::move(value)); });
    };
  }

  void record(int id, std::uint64_t tid, std::int64_t start, std::int64_t end, bool async) {
    const ExecNode& n = *impl_->items[static_cast<std::size_t>(id)].node;
    std::string transfer;
    if (n.def.op == "_Send" || n.def.op == "_Recv")
      if (auto key = n.def.attr<std::string>("key")) transfer = *key;
    stats_.push_back(
        {n.def.name, n.def.op, impl_->device->name(), tid, start, end, async, std::move(transfer)});
  }

  void complete(int id, std::vector<Tensor>& outputs, const Status& s) {
    const auto& item = impl_->items[static_cast<std::size_t>(id)];
    if (!s.ok()) return fail(with_node(s, item.node->def.name));
    if (!status_.ok()) return;
    for (auto& [fetch, output] : item.fetches) {
      Tensor value = outputs[static_cast<std::size_t>(output)];
      if (value.dtype() == DType::resource) {
        // A variable is fetched by value; other resources (queue handles) as handles.
        if (auto* var = dynamic_cast<Var*>(value.resource().get())) {
          Status r = var->read(&value);
          if (!r.ok()) return fail(with_node(r, item.node->def.name));
        }
      }
      if (value.on_device() && inline_mode()) {
        // On the thread that waits for the step: the copy starts now and the partition's
        // final sync (try_sync_now) finishes it, with no callback per fetch.
        auto host = impl_->device->start_copy_to_host(value);
        if (!host.ok()) return fail(with_node(host.status(), item.node->def.name));
        step_->results[static_cast<std::size_t>(fetch)] = std::move(*host);
        copies_in_flight_.push_back(std::move(value));
        continue;
      }
      if (value.on_device()) {
        // Fetched from a GPU: the client gets a host copy once the copy has finished.
        ++outstanding_;
        impl_->device->copy_to_host(
            value, posted<StatusOr<Tensor>>([this, fetch, node = item.node](StatusOr<Tensor> r) {
              --outstanding_;
              if (!r.ok())
                fail(with_node(r.status(), node->def.name));
              else
                step_->results[static_cast<std::size_t>(fetch)] = std::move(*r);
              run();
            }));
        continue;
      }
      step_->results[static_cast<std::size_t>(fetch)] = std::move(value);
    }
    for (std::size_t o = 0; o < item.out_edges.size(); ++o) {
      const auto& edges = item.out_edges[o];
      for (std::size_t e = 0; e < edges.size(); ++e) {
        auto [dst, slot] = edges[e];
        auto& target = inputs_[static_cast<std::size_t>(
            impl_->items[static_cast<std::size_t>(dst)].input_start + slot)];
        // The last consumer takes the tensor; the others share it.
        target = e + 1 == edges.size() ? std::move(outputs[o]) : outputs[o];
        if (--pending_[static_cast<std::size_t>(dst)] == 0) ready_.push_back(dst);
      }
    }
    for (int dst : item.control_out)
      if (--pending_[static_cast<std::size_t>(dst)] == 0) ready_.push_back(dst);
  }

  bool maybe_finish();

  DeviceActor* self_;
  PartitionRunPtr run_;
  StepRun* step_;
  std::shared_ptr<const ExecutorImpl> impl_;
  std::vector<int> pending_;
  std::vector<Tensor> inputs_;
  std::deque<int> ready_;
  int outstanding_ = 0;
  int pool_outstanding_ = 0;  ///< of outstanding_: expensive kernels on the inter-op pool
  bool in_loop_ = false;
  bool cheap_only_ = false;
  /// No master: this partition calls the step's `done` (adopted, or started direct).
  bool ends_step_ = false;
  int handoff_id_ = -1;
  std::shared_ptr<OpKernelContext> handoff_ctx_;
  std::shared_ptr<WaitLoop> loop_;  ///< run_step_waiting's
  bool finished_ = false;
  bool synced_ = false;
  /// Device tensors being copied out for fetches (start_copy_to_host), kept until the sync.
  std::vector<Tensor> copies_in_flight_;
  Status status_;
  std::map<std::uint64_t, std::function<void(const Status&)>> cancel_hooks_;
  std::uint64_t next_hook_ = 1;
  std::vector<std::function<void()>> rollbacks_;
  std::vector<NodeExecStats> stats_;
};

DeviceActorState::~DeviceActorState() = default;

bool ExecutorState::maybe_finish() {
  if (finished_ || in_loop_ || outstanding_ > 0 || handoff_ctx_ ||
      (!ready_.empty() && status_.ok()))
    return false;
  if (impl_->device->is_accelerator() && !synced_) {
    // A GPU partition is done when the work it enqueued is (TensorFlow's sync_on_finish).
    synced_ = true;
    std::optional<Status> now;
    // The thread that waits for the step polls the device until the step's deadline (a
    // callback and a wake-up cost tens of microseconds); a device actor never blocks: the
    // device answers from its stream's callback, by message.
    if (inline_mode()) now = impl_->device->try_sync_now(step_->deadline);
    if (!now) {
      ++outstanding_;
      impl_->device->sync(posted<Status>([this](Status s) {
        --outstanding_;
        copies_in_flight_.clear();
        if (!s.ok()) fail(s);
        run();
      }));
      return false;
    }
    copies_in_flight_.clear();
    if (!now->ok()) fail(*now);
  }
  finished_ = true;
  if (!status_.ok())
    for (auto it = rollbacks_.rbegin(); it != rollbacks_.rend(); ++it) (*it)();
  if (!stats_.empty()) {
    std::lock_guard<std::mutex> guard(step_->stats_mu);
    step_->stats.insert(step_->stats.end(), stats_.begin(), stats_.end());
  }
  if (inline_mode()) return true;  // run_step_inline reads the status
  if (ends_step_) {
    StepRunPtr step = run_->step;
    Status status = status_;
    self_->state.steps.erase({step->step_id, run_->partition});  // destroys *this
    finish_step(*step, std::move(status));
    return true;
  }
  self_->send(run_->master, done_atom::value, step_->step_id, run_->partition, status_);
  self_->state.steps.erase({step_->step_id, run_->partition});  // destroys *this
  return true;
}

device_actor_handle::behavior_type device_actor(DeviceActor* self, std::shared_ptr<Device> device) {
  self->state.device = std::move(device);
  // Stopping (its session closed, its server stopped) with partitions still running: they
  // are cancelled first, so that what they wait for hears of it. A queue drops a waiting
  // dequeue then; otherwise the dequeue stayed queued for good, its reply holding the
  // queue alive (a cycle that outlived the session).
  self->set_exit_handler([self](caf::exit_msg& msg) {
    std::vector<ExecutorState*> running;
    for (auto& [key, state] : self->state.steps) running.push_back(state.get());
    const Status why = cancelled("device " + self->state.device->name() + " stopped (" +
                                 self->system().render(msg.reason) + ")");
    for (auto* s : running) s->cancel(why);
    self->quit(msg.reason);
  });
  return {
      [self](run_atom, const PartitionRunPtr& run) {
        auto key = std::make_pair(run->step->step_id, run->partition);
        auto state = std::make_unique<ExecutorState>(self, run);
        auto* raw = state.get();
        self->state.steps.emplace(key, std::move(state));
        if (run->direct && run->step->timeout)
          self->delayed_send(self, *run->step->timeout, timeout_atom::value, run->step->step_id);
        raw->run();
      },
      [self](timeout_atom, std::int64_t step_id) {
        // A direct step's deadline (the master's job otherwise). One that finished first
        // is gone and stands.
        auto it = self->state.steps.find({step_id, std::size_t{0}});
        if (it == self->state.steps.end()) return;
        ExecutorState* s = it->second.get();
        const auto& step = *s->step();
        s->cancel(deadline_exceeded("Timed out waiting for notification: step " +
                                    std::to_string(step_id) + " exceeded its deadline of " +
                                    std::to_string(step.timeout->count()) + " ms"));
        s->run();
      },
      [self](cancel_atom, std::int64_t step_id, const Status& why) {
        std::vector<ExecutorState*> targets;
        for (auto& [key, state] : self->state.steps)
          if (key.first == step_id) targets.push_back(state.get());
        for (auto* s : targets) {
          s->cancel(why);
          s->run();
        }
      },
      [](resume_atom, const Closure& c) { c.fn(); },
      [self](adopt_atom, const AdoptionPtr& a) { a->fn(self); },
      [](cleanup_atom, std::int64_t) {},  // nothing of a step stays here once it ended
  };
}

}  // namespace

namespace {

/// Gives a partition stopped at an expensive kernel on a caller's thread to the device
/// actor, which finishes it and calls the step's `done`.
void hand_off(const StepRunPtr& step, std::shared_ptr<std::unique_ptr<ExecutorState>> state) {
  // An inline step's only partition is on a device of this process: its runner is a device
  // actor.
  auto device = caf::actor_cast<device_actor_handle>(step->device_actors.at(0));
  auto adoption = std::make_shared<Adoption>();
  adoption->fn = [state](DeviceActor* self) {
    auto owned = std::move(*state);
    auto* raw = owned.get();
    self->state.steps.emplace(std::make_pair(raw->step_id(), std::size_t{0}), std::move(owned));
    raw->adopt(self);
  };
  caf::anon_send(device, adopt_atom::value, std::move(adoption));
}

}  // namespace

void run_step_inline(const StepRunPtr& step, bool may_block) {
  auto run = std::make_shared<PartitionRun>();
  run->step = step;
  auto state = std::make_shared<std::unique_ptr<ExecutorState>>(
      std::make_unique<ExecutorState>(nullptr, std::move(run)));
  ExecutorState& s = **state;
  if (!may_block) s.set_cheap_only();
  if (s.run()) return finish_step(*step, s.status());
  if (!s.handed_off())
    return finish_step(*step, internal("step " + std::to_string(step->step_id) +
                                       " stopped on its thread unfinished"));
  hand_off(step, std::move(state));
}

void run_step_waiting(const StepRunPtr& step, const std::shared_ptr<WaitLoop>& loop) {
  auto run = std::make_shared<PartitionRun>();
  run->step = step;
  ExecutorState s(nullptr, std::move(run));
  s.set_loop(loop);
  s.run();
  while (!s.finished()) {
    auto wake = loop->wait(step->deadline);
    for (auto& fn : wake.work) fn();
    // As the master: a step that finished before its cancellation or deadline came stands.
    if (!s.finished() && wake.cancel) s.cancel(*wake.cancel);
    if (!s.finished() && wake.deadline)
      s.cancel(deadline_exceeded("Timed out waiting for notification: step " +
                                 std::to_string(step->step_id) + " exceeded its deadline of " +
                                 std::to_string(step->timeout->count()) + " ms"));
    s.run();
  }
  loop->close();
  finish_step(*step, s.status());
}

void start_step_direct(const StepRunPtr& step) {
  auto run = std::make_shared<PartitionRun>();
  run->step = step;
  run->direct = true;
  caf::anon_send(step->device_actors.at(0), run_atom::value, std::move(run));
}

device_actor_handle spawn_device_actor(caf::actor_system& sys, std::shared_ptr<Device> device) {
  return sys.spawn(device_actor, std::move(device));
}

}  // namespace af::detail
