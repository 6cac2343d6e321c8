// A partition's execution: the walk over its nodes, the same on every thread (see
// partition_execution.hpp); its StepDriver makes the decisions that depend on the thread.
#include "executor/partition_execution.hpp"

#include <chrono>
#include <new>
#include <thread>

#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/ops/stall_watch.hpp"

namespace af::detail {

namespace {

// flow_state_ bits.
constexpr std::uint8_t kDeadInput = 1;   // a dead input or dead control input arrived
constexpr std::uint8_t kMergeLive = 2;   // a Merge holds its first live input
constexpr std::uint8_t kMergeFired = 4;  // a Merge was made ready
constexpr std::uint8_t kDeadEnter = 8;   // a loop's Merge got a dead input from an Enter

// In a partition with while loops, the walk lets its thread take other messages after this
// many nodes.
constexpr int kYieldEvery = 1024;

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

void compute(OpKernel& kernel, OpKernelContext& ctx) {
  try {
    kernel.compute(ctx);
  } catch (const std::bad_alloc&) {
    ctx.fail(resource_exhausted("OOM when running the kernel on " + std::string(ctx.device_name)));
  } catch (...) {
    Status s = status_from_exception(std::current_exception());
    // A tensor the kernel could not allocate: say where, as TensorFlow's allocator does.
    if (s.code() == Code::resource_exhausted && s.message().rfind("OOM when allocating", 0) == 0)
      s = resource_exhausted(s.message() + " on " + std::string(ctx.device_name));
    ctx.fail(std::move(s));
  }
}

/// A StallWatch entry for the receive of `key` into a partition on `device` when its
/// sender is on another task (null otherwise); it ends with the last handler holding it.
std::shared_ptr<StallWatchScope> watch_remote_recv(const std::string& key,
                                                   const std::string& device,
                                                   std::int64_t step_id) {
  const auto task_of = [](std::string_view d) { return d.substr(0, d.find("/device:")); };
  const std::string_view source = std::string_view(key).substr(0, key.find(';'));
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
  w.step_id = step_id;
  w.waiting_for = [task = std::string(task_of(source))] { return "a tensor from " + task; };
  return std::make_shared<StallWatchScope>(std::move(w));
}

}  // namespace

const char* step_mode_name(StepMode mode) {
  switch (mode) {
    case StepMode::caller_cheap_only:
      return "caller_cheap_only";
    case StepMode::caller_waits:
      return "caller_waits";
    case StepMode::actor_for_master:
      return "actor_for_master";
    case StepMode::actor_ends_step:
      return "actor_ends_step";
  }
  return "unknown";
}

PartitionExecution::PartitionExecution(PartitionRunPtr run, StepDriver* driver)
    : driver_(driver),
      run_(std::move(run)),
      step_(run_->step.get()),
      impl_(step_->executors[run_->partition]) {
  root_.frame = &root_frame_;
  tracks_deadness_ = impl_->has_control_flow;
  init_iteration(root_, 0);
  ready_.reserve(impl_->items.size());
  for (int id : impl_->initial_ready) make_ready(id, root_);
}

PartitionExecution::~PartitionExecution() {
  if (driver_->mode() == StepMode::actor_ends_step && !finished_)
    // A cancellation that reached the partition (the session's close) is the reason.
    finish_step(*step_, status_.ok() ? cancelled("step " + std::to_string(step_->step_id) +
                                                 " was cancelled: its device shut down")
                                     : status_);
}

void PartitionExecution::track_deadness() {
  // Called when a _Recv brings a dead tensor into a partition without Switch, Merge or loop
  // (one frame): no node could be dead before, and there is no Merge to adjust.
  tracks_deadness_ = true;
  root_.flow.assign(impl_->items.size(), 0);
  root_.merge_controls.assign(impl_->items.size(), 0);
}

// -- StepServices ----------------------------------------------------------------------------

void PartitionExecution::send(const std::string& key, Tensor value) {
  if (step_->remote_send && step_->remote_send(step_->step_id, key, value)) return;
  driver_->send_tensor(*step_, key, std::move(value));
}

Async<StatusOr<Tensor>> PartitionExecution::recv(const std::string& key) {
  return {[this, key](Completion<StatusOr<Tensor>> c) {
    if (!status_.ok()) return c(cancelled("step aborted before recv of " + key));
    cancel_hooks_.emplace(next_hook_++, [c](const Status& s) { c(s); });
    // A tensor from another task: the wait is one a stall report names the task of.
    auto watch = watch_remote_recv(key, impl_->plan.device, step_->step_id);
    driver_->recv_tensor(*step_, key, [c, watch](StatusOr<Tensor> r) { c(std::move(r)); });
  }};
}

Async<Status> PartitionExecution::sleep(std::chrono::microseconds delay) {
  return {[this, delay](Completion<Status> c) {
    if (!status_.ok()) return c(cancelled("step aborted"));
    cancel_hooks_.emplace(next_hook_++, [c](const Status& s) { c(s); });
    driver_->post_after(delay, [c] { c(Status()); });
  }};
}

std::uint64_t PartitionExecution::add_cancel_hook(std::function<void(const Status&)> hook) {
  if (!status_.ok()) {
    hook(status_);
    return 0;
  }
  auto token = next_hook_++;
  cancel_hooks_.emplace(token, std::move(hook));
  return token;
}

// -- driving ---------------------------------------------------------------------------------

bool PartitionExecution::run() {
  if (in_loop_) return false;
  in_loop_ = true;
  while (any_ready() && !handoff_ctx_) {
    if (impl_->has_loops && ++since_yield_ >= kYieldEvery &&
        driver_->mode() != StepMode::caller_cheap_only) {
      // A loop may run long: the thread takes its other messages (a cancellation, the
      // deadline) before the walk goes on, in the one continuation posted for it.
      since_yield_ = 0;
      if (!yield_pending_) {
        yield_pending_ = true;
        ++outstanding_;
        driver_->poster()([this] {
          yield_pending_ = false;
          --outstanding_;
          run();
        });
      }
      break;
    }
    const ReadyNode r = ready_[ready_head_++];
    if (!any_ready()) {
      ready_.clear();  // drained: the next ready node goes to the front
      ready_head_ = 0;
    }
    if (!status_.ok()) continue;  // aborted: drain without running
    launch(r.id, *r.iter);
  }
  in_loop_ = false;
  return maybe_finish();
}

void PartitionExecution::cancel(const Status& why) {
  if (status_.ok()) status_ = why;
  ready_head_ = ready_.size();
  bool was_in_loop = std::exchange(in_loop_, true);
  auto hooks = std::move(cancel_hooks_);
  cancel_hooks_.clear();
  for (auto& [token, h] : hooks) h(why);
  in_loop_ = was_in_loop;
}

void PartitionExecution::adopt(StepDriver* driver) {
  driver_ = driver;
  schedule(handoff_id_, *handoff_iter_, std::move(handoff_ctx_));
  handoff_ctx_ = nullptr;
  run();
}

void PartitionExecution::fail(Status s) {
  if (!status_.ok()) return;
  cancel(s);
  driver_->first_error(*this, s);
}

std::vector<Tensor> PartitionExecution::gather_inputs(const ExecutorImpl::Item& item, IterState& it,
                                                      Status* s) {
  std::vector<Tensor> in;
  in.reserve(static_cast<std::size_t>(item.num_inputs));
  for (int k = 0; k < item.num_inputs; ++k) {
    Tensor& t = it.inputs[static_cast<std::size_t>(item.input_start + k)];
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

void PartitionExecution::launch_feed(int id) {
  const ExecNode& node = *impl_->items[static_cast<std::size_t>(id)].node;
  const Tensor& fed = step_->feeds[static_cast<std::size_t>(node.feed_index)];
  if (impl_->device->is_accelerator() && fed.is_initialized() && fed.dtype() != DType::resource &&
      fed.dtype() != DType::string && fed.dtype() != DType::variant) {
    // A feed into a GPU partition is copied into the device's memory first.
    ++outstanding_;
    impl_->device->copy_from_host(fed, posted<StatusOr<Tensor>>([this, id](StatusOr<Tensor> r) {
                                    --outstanding_;
                                    std::vector<Tensor> out(1);
                                    if (r.ok()) out[0] = std::move(*r);
                                    complete(id, root_, out, r.ok() ? Status() : r.status());
                                    run();
                                  }));
    return;
  }
  std::vector<Tensor> out{fed};
  complete(id, root_, out, Status());
}

void PartitionExecution::launch_dead(int id, IterState& it) {
  const auto& item = impl_->items[static_cast<std::size_t>(id)];
  // The live inputs it will not use go now, as a kernel's would.
  for (int k = 0; k < item.num_inputs; ++k)
    it.inputs[static_cast<std::size_t>(item.input_start + k)] = Tensor();
  if (item.is_send) {
    // TensorFlow runs transfer nodes when dead: the receiver learns the tensor is dead.
    if (auto key = item.node->def.attr<std::string>("key")) send(*key, Tensor::dead());
  }
  std::vector<Tensor> outputs(item.node->output_types.size(), Tensor::dead());
  complete(id, it, outputs, Status(), true);
}

void PartitionExecution::launch(int id, IterState& it) {
  const auto& item = impl_->items[static_cast<std::size_t>(id)];
  const ExecNode& node = *item.node;
  if (node.feed_index >= 0) return launch_feed(id);
  if (tracks_deadness_ && (it.flow[static_cast<std::size_t>(item.local_id)] & kDeadInput))
    return launch_dead(id, it);
  Status s;
  // On the stack: a kernel that runs here and now (most) needs no shared context; one that
  // waits or goes elsewhere takes it to the heap first.
  OpKernelContext local(node.def, gather_inputs(item, it, &s));
  if (!s.ok()) return fail(with_node(s, node.def.name));
  local.set_num_outputs(static_cast<int>(node.output_types.size()));
  local.resource_mgr = &impl_->device->resource_mgr();
  local.shared_resource_mgr = impl_->device->shared_resource_mgr();
  local.runtime = impl_->device->runtime();
  local.step = this;
  local.eigen_device = impl_->device->intra_op_device();
  local.intra_op_threads = impl_->device->intra_op_threads();
  local.device_name = impl_->device->name();
  local.device_context = impl_->device->device_context();
  OpKernel* kernel = item.kernel.get();
  if (item.is_async) {
    auto ctx = std::make_shared<OpKernelContext>(std::move(local));
    ++outstanding_;
    auto start = step_->trace ? now_us() : 0;
    auto tid = step_->trace ? thread_id() : 0;
    AsyncKernelTask task = kernel->compute_async(*ctx);
    task.start([this, id, &it, ctx, start, tid](std::exception_ptr e) {
      --outstanding_;
      if (e) ctx->fail(status_from_exception(e));
      if (step_->trace) record(id, tid, start, now_us(), true);
      complete(id, it, ctx->outputs(), ctx->status());
      run();
    });
    return;
  }
  if (kernel->is_expensive(local)) return run_expensive(id, it, local);
  run_here(id, it, local);
}

void PartitionExecution::run_expensive(int id, IterState& it, OpKernelContext& ctx) {
  const PartitionLoad load{any_ready(), outstanding_, pool_outstanding_};
  switch (driver_->place_expensive(*impl_->device, load)) {
    case KernelPlace::here:
      return run_here(id, it, ctx);
    case KernelPlace::pool:
      return schedule(id, it, std::make_shared<OpKernelContext>(std::move(ctx)));
    case KernelPlace::hand_off:
      // Stop here; the device actor adopts the rest (`adopt`).
      handoff_id_ = id;
      handoff_iter_ = &it;
      handoff_ctx_ = std::make_shared<OpKernelContext>(std::move(ctx));
      return;
  }
}

void PartitionExecution::run_here(int id, IterState& it, OpKernelContext& ctx) {
  auto start = step_->trace ? now_us() : 0;
  compute(*impl_->items[static_cast<std::size_t>(id)].kernel, ctx);
  if (step_->trace) record(id, thread_id(), start, now_us(), false);
  complete(id, it, ctx.outputs(), ctx.status());
}

void PartitionExecution::schedule(int id, IterState& it, std::shared_ptr<OpKernelContext> ctx) {
  OpKernel* kernel = impl_->items[static_cast<std::size_t>(id)].kernel.get();
  ++outstanding_;
  ++pool_outstanding_;
  auto impl = impl_;  // keeps kernels and device alive while the pool runs
  bool trace = step_->trace;
  impl_->device->schedule([this, id, &it, ctx = std::move(ctx), kernel, impl,
                           post = driver_->poster(), trace]() mutable {
    auto start = trace ? now_us() : 0;
    compute(*kernel, *ctx);
    auto end = trace ? now_us() : 0;
    auto tid = trace ? thread_id() : 0;
    post([this, id, &it, ctx = std::move(ctx), start, end, tid]() mutable {
      --outstanding_;
      --pool_outstanding_;
      if (step_->trace) record(id, tid, start, end, false);
      complete(id, it, ctx->outputs(), ctx->status());
      // The inputs go before the next kernels run: one that consumes this output may then
      // write over it in place (forward_input_or_allocate_output).
      ctx.reset();
      run();
    });
  });
}

void PartitionExecution::record(int id, std::uint64_t tid, std::int64_t start, std::int64_t end,
                                bool async) {
  const ExecNode& n = *impl_->items[static_cast<std::size_t>(id)].node;
  std::string transfer;
  if (n.def.op == "_Send" || n.def.op == "_Recv")
    if (auto key = n.def.attr<std::string>("key")) transfer = *key;
  stats_.push_back(
      {n.def.name, n.def.op, impl_->device->name(), tid, start, end, async, std::move(transfer)});
}

bool PartitionExecution::deliver_fetch(const ExecutorImpl::Item& item, int fetch, Tensor value) {
  if (value.is_dead()) {
    // The untaken side of a cond (TensorFlow's call frame says the same).
    fail(invalid_argument("Retval[" + std::to_string(fetch) + "] does not have value"));
    return false;
  }
  if (value.dtype() == DType::resource) {
    // A variable is fetched by value; other resources (queue handles) as handles.
    if (auto* var = dynamic_cast<Var*>(value.resource().get())) {
      Status r = var->read(&value);
      if (!r.ok()) {
        fail(with_node(r, item.node->def.name));
        return false;
      }
    }
  }
  auto& result = step_->results[static_cast<std::size_t>(fetch)];
  if (!value.on_device()) {
    result = std::move(value);
    return true;
  }
  if (driver_->polls_gpu_sync()) {
    // On the thread that waits for the step: the copy starts now and the partition's
    // final sync (try_sync_now) finishes it, with no callback per fetch.
    auto host = impl_->device->start_copy_to_host(value);
    if (!host.ok()) {
      fail(with_node(host.status(), item.node->def.name));
      return false;
    }
    result = std::move(*host);
    copies_in_flight_.push_back(std::move(value));
    return true;
  }
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
  return true;
}

void PartitionExecution::complete(int id, IterState& it, std::vector<Tensor>& outputs,
                                  const Status& s, bool dead) {
  const auto& item = impl_->items[static_cast<std::size_t>(id)];
  if (!s.ok()) return fail(with_node(s, item.node->def.name));
  if (!status_.ok()) return;
  for (auto& [fetch, output] : item.fetches) {
    // A loop's Exit is dead in every iteration but the last: only its live value is the
    // fetch's (or, for a loop that never ran, its dead one when the loop ends: finish_frame).
    if (item.is_exit && (dead || outputs[static_cast<std::size_t>(output)].is_dead())) continue;
    if (!deliver_fetch(item, fetch, outputs[static_cast<std::size_t>(output)])) return;
  }
  if (item.is_recv && outputs[0].is_dead()) {
    // A dead tensor from another partition's cond: the _Recv is dead like the node it stands
    // for (its control edges too, when it carries a control edge from another device), and
    // from now on deadness is tracked (no node could be dead before).
    dead = true;
    if (!tracks_deadness_) track_deadness();
  }
  if (tracks_deadness_) {
    propagate_with_deadness(id, it, outputs, dead);
    if (impl_->has_loops) node_done(it);
    return;
  }
  for (std::size_t o = 0; o < item.out_edges.size(); ++o) {
    const auto& edges = item.out_edges[o];
    for (std::size_t e = 0; e < edges.size(); ++e) {
      auto [dst, slot] = edges[e];
      auto& target = it.inputs[static_cast<std::size_t>(
          impl_->items[static_cast<std::size_t>(dst)].input_start + slot)];
      // The last consumer takes the tensor; the others share it.
      target = e + 1 == edges.size() ? std::move(outputs[o]) : outputs[o];
      if (--it.pending[static_cast<std::size_t>(dst)] == 0) make_ready(dst, it);
    }
  }
  for (int dst : item.control_out)
    if (--it.pending[static_cast<std::size_t>(dst)] == 0) make_ready(dst, it);
}

void PartitionExecution::propagate_with_deadness(int id, IterState& it,
                                                 std::vector<Tensor>& outputs, bool dead) {
  const auto& item = impl_->items[static_cast<std::size_t>(id)];
  IterState* dst = &it;
  if (impl_->has_loops) {
    if (item.is_enter) return enter_frame(id, it, outputs, dead);
    if (item.is_exit) {
      if (dead) {
        // Dead in every iteration but the last; the latest iteration's count when the loop
        // never ran (finish_frame).
        if (it.iter == it.frame->iteration_count) it.frame->dead_exits.push_back(id);
        return;
      }
      dst = it.frame->parent_iter;
    } else if (item.is_next_iteration) {
      if (dead) return;  // the loop's last iteration
      dst = next_iteration(id, it, outputs);
      if (dst == nullptr) return;
    }
  }
  activate(item, *dst, outputs, dead, false);
}

void PartitionExecution::activate(const ExecutorImpl::Item& item, IterState& it,
                                  std::vector<Tensor>& outputs, bool dead, bool from_enter) {
  const auto& items = impl_->items;
  // A ControlTrigger is never dead (TensorFlow's while-loop gradients wait on one).
  const bool control_dead = dead && !item.is_control_trigger;
  for (std::size_t o = 0; o < item.out_edges.size(); ++o) {
    const auto& edges = item.out_edges[o];
    const bool output_dead = dead || outputs[o].is_dead();
    for (std::size_t e = 0; e < edges.size(); ++e) {
      auto [dst, slot] = edges[e];
      const auto& target_item = items[static_cast<std::size_t>(dst)];
      if (target_item.is_merge) {
        merge_arrival(it, dst, slot, output_dead ? nullptr : &outputs[o], from_enter);
        continue;
      }
      const auto d = static_cast<std::size_t>(target_item.local_id);
      if (output_dead) {
        it.flow[d] |= kDeadInput;
      } else {
        auto& target = it.inputs[static_cast<std::size_t>(target_item.input_start + slot)];
        target = e + 1 == edges.size() ? std::move(outputs[o]) : outputs[o];
      }
      if (--it.pending[d] == 0) make_ready(dst, it);
    }
  }
  for (int dst : item.control_out) {
    const auto& target_item = items[static_cast<std::size_t>(dst)];
    const auto d = static_cast<std::size_t>(target_item.local_id);
    if (target_item.is_merge) {
      // A Merge's control inputs only gate it; their deadness does not count.
      --it.merge_controls[d];
      maybe_fire_merge(it, dst);
      continue;
    }
    if (control_dead) it.flow[d] |= kDeadInput;
    if (--it.pending[d] == 0) make_ready(dst, it);
  }
}

void PartitionExecution::merge_arrival(IterState& it, int node, int slot, Tensor* live,
                                       bool from_enter) {
  const auto& item = impl_->items[static_cast<std::size_t>(node)];
  const auto d = static_cast<std::size_t>(item.local_id);
  --it.pending[d];
  if (it.flow[d] & kMergeFired) return;  // a later input of a Merge that already ran
  if (live && !(it.flow[d] & kMergeLive)) {
    // Only the first live input is kept: the Merge kernel forwards the one it finds.
    it.inputs[static_cast<std::size_t>(item.input_start + slot)] = *live;
    it.flow[d] |= kMergeLive;
  }
  // A loop's Merge whose Enter is dead is dead (the loop sits in a cond's untaken branch):
  // its NextIteration input will never come.
  if (!live && from_enter) it.flow[d] |= kDeadEnter;
  maybe_fire_merge(it, node);
}

void PartitionExecution::maybe_fire_merge(IterState& it, int node) {
  const auto d = static_cast<std::size_t>(impl_->items[static_cast<std::size_t>(node)].local_id);
  if ((it.flow[d] & kMergeFired) || it.merge_controls[d] > 0) return;
  if (!(it.flow[d] & kMergeLive)) {
    // Still waiting for a live input, unless every data input (or an Enter) was dead.
    if (it.pending[d] > 0 && !(it.flow[d] & kDeadEnter)) return;
    it.flow[d] |= kDeadInput;
  }
  it.flow[d] |= kMergeFired;
  make_ready(node, it);
}

bool PartitionExecution::maybe_finish() {
  if (finished_ || in_loop_ || outstanding_ > 0 || handoff_ctx_ || (any_ready() && status_.ok()))
    return false;
  if (impl_->device->is_accelerator() && !synced_) {
    // A GPU partition is done when the work it enqueued is (TensorFlow's sync_on_finish).
    synced_ = true;
    std::optional<Status> now;
    // The thread that waits for the step polls the device until the step's deadline (a
    // callback and a wake-up cost tens of microseconds); a device actor never blocks: the
    // device answers from its stream's callback, by message.
    if (driver_->polls_gpu_sync()) now = impl_->device->try_sync_now(step_->deadline);
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
  if (impl_->has_loops && status_.ok()) {
    // A loop variable that went dead inside its loop leaves its Exit without a value: the
    // fetch was never delivered (TensorFlow's call frame says the same).
    for (const auto& f : impl_->plan.fetches)
      if (!step_->results[static_cast<std::size_t>(f.fetch_index)].is_initialized()) {
        fail(invalid_argument("Retval[" + std::to_string(f.fetch_index) + "] does not have value"));
        break;
      }
  }
  finished_ = true;
  if (!status_.ok())
    for (auto it = rollbacks_.rbegin(); it != rollbacks_.rend(); ++it) (*it)();
  if (!stats_.empty()) {
    std::lock_guard<std::mutex> guard(step_->stats_mu);
    step_->stats.insert(step_->stats.end(), stats_.begin(), stats_.end());
  }
  driver_->finished(*this, status_);  // may destroy *this
  return true;
}

}  // namespace af::detail
