// The worker service: runs partitions that masters on other tasks registered here, on this
// task's device actors, and takes the tensors other tasks send on cross-task edges.
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/errors.hpp"
#include "cluster.hpp"
#include "partition_codec.hpp"
#include "wire.hpp"
#include "worker_protocol.hpp"

namespace af::net {

std::string encode_devices(const std::vector<DeviceAttributes>& devices) {
  WireWriter out;
  out.u64(devices.size());
  for (const auto& a : devices) {
    out.str(a.name);
    out.str(a.device_type);
    out.i64(a.memory_limit);
  }
  return out.take();
}

Status decode_devices(const std::string& blob, const std::string& what,
                      std::vector<DeviceAttributes>* out) {
  WireReader in(blob, what);
  std::uint64_t n = 0;
  if (in.count(&n, 24)) {
    for (std::uint64_t i = 0; i < n; ++i) {
      DeviceAttributes a;
      if (!in.str(&a.name) || !in.str(&a.device_type) || !in.i64(&a.memory_limit)) break;
      out->push_back(std::move(a));
    }
  }
  return in.status();
}

namespace {

struct Registered {
  std::string scope;
  std::shared_ptr<const detail::ExecutorImpl> executor;
  detail::partition_runner device_actor;
  task_proxy_handle owner;  ///< the master task's proxy that registered it
};

/// Where the reply of a run that came over the push channel goes: the push channel to the
/// master's task, or (when that fails) the proxy over CAF.
struct PushReply {
  std::string task;  ///< the master's
  std::uint64_t id = 0;
  std::int64_t step_id = 0;
  task_proxy_handle proxy;
};

struct Running {
  detail::partition_runner device_actor;
  detail::StepRunPtr step;
  caf::typed_response_promise<std::string> promise;  ///< a run that came as a CAF request
  std::optional<PushReply> push;                     ///< a run that came over the push channel
  caf::actor_addr requester;
  std::string master_task;
};

struct WorkerState {
  std::shared_ptr<DeviceSet> devices;
  std::shared_ptr<Routes> routes;
  std::map<std::uint64_t, Registered> partitions;
  std::uint64_t next_handle = 1;
  std::multimap<std::int64_t, Running> running;
  /// The masters' proxies this worker serves: when one goes away (its task stopped, was
  /// killed or lost), its steps here are cancelled and its partitions dropped.
  std::set<caf::actor_addr> masters;
  static inline const char* name = "af.worker_service";
};
using WorkerActor = caf::stateful_actor<WorkerState, worker_service_handle::base>;

/// The master's task of a partition scope (`/job:w/replica:0/task:0/<incarnation>/...`).
std::string master_task_of_scope(const std::string& scope) {
  auto pos = scope.find("/task:");
  if (pos == std::string::npos) return "unknown";
  return scope.substr(0, scope.find('/', pos + 1));
}

caf::actor_addr watch_sender(WorkerActor* self) {
  auto sender = caf::actor_cast<caf::actor_addr>(self->current_sender());
  if (sender && self->state.masters.insert(sender).second) self->monitor(sender);
  return sender;
}

void cancel_runs(WorkerActor* self, std::int64_t step_id, const Status& why) {
  auto [begin, end] = self->state.running.equal_range(step_id);
  for (auto it = begin; it != end; ++it)
    self->send(it->second.device_actor, detail::cancel_atom::value, step_id, why);
}

/// Stops a step's partitions here and ends its receives waiting in this task's rendezvous.
void abort_step(WorkerActor* self, std::int64_t step_id, const Status& why) {
  cancel_runs(self, step_id, why);
  self->send(self->state.devices->rendezvous, detail::abort_atom::value, step_id, why);
}

/// Drops the partitions of `scope` and their stateful kernels.
void forget_scope(WorkerActor* self, const std::string& scope) {
  auto& st = self->state;
  for (auto it = st.partitions.begin(); it != st.partitions.end();)
    it = it->second.scope == scope ? st.partitions.erase(it) : std::next(it);
  for (auto& d : st.devices->devices) d->forget_kernels(scope);
}

/// A master's task is gone: nothing will collect its steps' results, and a step blocked
/// here (a dequeue) must not take elements meant for live clients.
void on_master_down(WorkerActor* self, const caf::down_msg& msg) {
  auto& st = self->state;
  st.masters.erase(msg.source);
  Status why = aborted("Worker " + st.devices->task + ": the master of this step went away (" +
                       self->system().render(msg.reason) + ")");
  std::set<std::int64_t> steps;
  for (auto& [step_id, run] : st.running)
    if (run.requester == msg.source) steps.insert(step_id);
  for (auto step_id : steps) abort_step(self, step_id, why);
  std::set<std::string> scopes;
  for (auto& [handle, registered] : st.partitions)
    if (caf::actor_cast<caf::actor_addr>(registered.owner) == msg.source)
      scopes.insert(registered.scope);
  for (auto& scope : scopes) forget_scope(self, scope);
}

/// Answers a run: its fetches and step stats (`reply`) or the error that ended it.
void respond(WorkerActor* self, Running& run, const Status& status, std::string reply) {
  auto& routes = *self->state.routes;
  if (!run.push) {
    if (!status.ok()) {
      run.promise.deliver(to_caf_error(status));
      return;
    }
    routes.count_sent(run.master_task, reply.size());
    run.promise.deliver(std::move(reply));
    return;
  }
  const PushReply& push = *run.push;
  WireWriter out;
  out.u64(push.id);
  out.u8(status.ok() ? 1 : 0);
  if (status.ok())
    out.str(reply);
  else
    out.error(status);
  auto payload = out.take();
  if (auto link = routes.link(push.task);
      link && link->push(push.step_id, PushKind::reply, {payload}))
    return;
  if (!push.proxy) return;
  routes.count_sent(push.task, payload.size());
  self->send(push.proxy, worker_push_reply_atom::value, push.id, std::move(payload),
             static_cast<std::uint64_t>(0));
}

void on_exit(WorkerActor* self, const caf::exit_msg& msg) {
  for (auto& [step_id, run] : self->state.running)
    respond(self, run, cancelled("Worker " + self->state.devices->task + " stopped"), {});
  self->state.running.clear();
  self->state.partitions.clear();
  self->quit(msg.reason);
}

/// worker_register: builds the partition's executor on its device; answers its handle.
caf::result<std::uint64_t> register_partition(WorkerActor* self, const std::string& scope,
                                              const std::string& blob) {
  PartitionPlan plan;
  if (Status s = decode_partition(blob, &plan); !s.ok()) return to_caf_error(s);
  auto& st = self->state;
  std::shared_ptr<Device> device;
  for (auto& d : st.devices->devices)
    if (d->name() == plan.device) device = d;
  auto actor = st.devices->actors.find(plan.device);
  if (!device || actor == st.devices->actors.end())
    return to_caf_error(
        invalid_argument("Worker " + st.devices->task + " has no device " + plan.device));
  std::shared_ptr<detail::ExecutorImpl> executor;
  if (Status s = detail::ExecutorImpl::create(std::move(plan), device, &executor, scope); !s.ok())
    return to_caf_error(s);
  auto handle = st.next_handle++;
  st.routes->count_received(master_task_of_scope(scope), blob.size());
  watch_sender(self);
  st.partitions.emplace(handle,
                        Registered{scope, std::move(executor), actor->second,
                                   caf::actor_cast<task_proxy_handle>(self->current_sender())});
  return handle;
}

/// The step of a registered partition, with its feeds decoded, its results sized and its
/// deadline set; or the error naming what is wrong.
Status make_partition_step(const Registered& partition, std::int64_t step_id,
                           std::int64_t timeout_ms, bool trace, std::string_view feed_blob,
                           detail::StepRunPtr* out) {
  std::vector<std::pair<int, Tensor>> feeds;
  ACTORFLOW_RETURN_IF_ERROR(
      decode_indexed_tensors(feed_blob, "feeds of step " + std::to_string(step_id), &feeds));
  auto step = std::make_shared<detail::StepRun>();
  step->step_id = step_id;
  step->trace = trace;
  for (auto& [index, value] : feeds) {
    if (step->feeds.size() <= static_cast<std::size_t>(index))
      step->feeds.resize(static_cast<std::size_t>(index) + 1);
    step->feeds[static_cast<std::size_t>(index)] = std::move(value);
  }
  const auto& executor = partition.executor;
  for (auto& node : executor->plan.nodes)
    if (node.feed_index >= static_cast<int>(step->feeds.size()))
      return invalid_argument("step " + std::to_string(step_id) + ": feed " +
                              std::to_string(node.feed_index) + " is missing");
  std::size_t results = 0;
  for (auto& f : executor->plan.fetches)
    results = std::max(results, static_cast<std::size_t>(f.fetch_index) + 1);
  step->results.resize(results);
  if (timeout_ms > 0) {
    step->timeout = std::chrono::milliseconds(timeout_ms);
    step->deadline = std::chrono::steady_clock::now() + *step->timeout;
  }
  step->executors = {executor};
  step->device_actors = {partition.device_actor};
  *out = std::move(step);
  return {};
}

/// Prepares run `*out` of registered partition `handle` for step `step_id` (its reply not yet
/// set): counts the `received` bytes of the request, decodes the feeds and builds the step,
/// whose tensors for tasks this one is not connected to go back through `master_proxy`.
Status prepare_run(WorkerActor* self, std::uint64_t handle, std::int64_t step_id,
                   std::int64_t timeout_ms, bool trace, std::string_view feed_blob,
                   std::size_t received, task_proxy_handle master_proxy, Running* out) {
  auto& st = self->state;
  auto it = st.partitions.find(handle);
  if (it == st.partitions.end())
    return not_found(
        "Worker " + st.devices->task + ": partition " + std::to_string(handle) +
        " is not registered (its session closed, or its master's connection was lost)");
  const Registered& partition = it->second;
  st.routes->count_received(master_task_of_scope(partition.scope), received);
  detail::StepRunPtr step;
  ACTORFLOW_RETURN_IF_ERROR(
      make_partition_step(partition, step_id, timeout_ms, trace, feed_blob, &step));
  step->rendezvous = st.devices->rendezvous;
  step->client_task = master_task_of_scope(partition.scope);
  // A tensor for another task goes straight to that task's worker service (every task
  // delivers into the one rendezvous its sessions share); only when this task is not
  // connected to it does it go back through the master's proxy, which forwards it.
  step->remote_send = [master_proxy, routes = st.routes, local = st.devices->task,
                       master_task = master_task_of_scope(partition.scope)](
                          std::int64_t id, const std::string& key, const Tensor& value) {
    auto dst = destination_task(key);
    if (dst.empty() || dst == local) return false;
    if (routes->worker(dst)) return route_tensor(*routes, local, id, key, value);
    // Not (yet) connected to the destination: through the master's proxy, whose task
    // these bytes go to (and which forwards them when they are not for it).
    auto blob = encode_tensor(value);
    routes->count_sent(master_task, blob.size());
    caf::anon_send(master_proxy, worker_tensor_atom::value, id, key, std::move(blob));
    return true;
  };
  out->device_actor = partition.device_actor;
  out->step = std::move(step);
  out->master_task = master_task_of_scope(partition.scope);
  return {};
}

/// Starts a prepared run on its device actor; the reply follows when the device reports done.
void launch(WorkerActor* self, Running run) {
  auto partition_run = std::make_shared<detail::PartitionRun>();
  partition_run->step = run.step;
  partition_run->partition = 0;
  partition_run->master = caf::actor_cast<detail::partition_owner>(self);
  auto device_actor = run.device_actor;
  auto step_id = run.step->step_id;
  self->state.running.emplace(step_id, std::move(run));
  self->send(device_actor, detail::run_atom::value, std::move(partition_run));
}

/// worker_run: runs one step of a registered partition on its device actor; the reply (its
/// fetches, then its step stats) is delivered when the device reports done.
caf::result<std::string> run_partition(WorkerActor* self, std::uint64_t handle,
                                       std::int64_t step_id, std::int64_t timeout_ms, bool trace,
                                       const std::string& feed_blob) {
  auto reply_to = caf::actor_cast<task_proxy_handle>(self->current_sender());
  Running run;
  if (Status s = prepare_run(self, handle, step_id, timeout_ms, trace, feed_blob, feed_blob.size(),
                             reply_to, &run);
      !s.ok())
    return to_caf_error(s);
  run.requester = watch_sender(self);  // before make_response_promise takes the sender
  run.promise = self->make_response_promise<std::string>();
  launch(self, std::move(run));
  return caf::delegated<std::string>();
}

/// worker_push_run, from this task's push port: a run that a master's proxy sent over the
/// push channel (worker_protocol.hpp); its reply goes back the same way.
void run_pushed(WorkerActor* self, std::int64_t step_id, const std::string& payload,
                std::uint64_t frame_bytes) {
  WireReader in(payload,
                "partition run of step " + std::to_string(step_id) + " on the push channel");
  PushReply push;
  push.step_id = step_id;
  std::uint64_t handle = 0;
  std::int64_t timeout_ms = 0;
  std::uint8_t trace = 0;
  std::string_view feeds;  // in `payload`: decoded once, into the step's feed tensors
  if (!in.str(&push.task) || !in.u64(&push.id))
    return;  // nobody to answer: an authenticated peer's bad frame
  Running run;
  Status s;
  if (!in.u64(&handle) || !in.i64(&timeout_ms) || !in.u8(&trace) || !in.view(&feeds) ||
      !in.at_end())
    s = in.status().ok()
            ? data_loss("partition run of step " + std::to_string(step_id) + ": trailing bytes")
            : in.status();
  auto it = self->state.partitions.find(handle);
  if (it != self->state.partitions.end()) {
    push.proxy = it->second.owner;
    run.requester = caf::actor_cast<caf::actor_addr>(push.proxy);
  }
  if (s.ok())
    s = prepare_run(self, handle, step_id, timeout_ms, trace != 0, feeds,
                    static_cast<std::size_t>(frame_bytes), push.proxy, &run);
  run.push = std::move(push);
  if (!s.ok()) return respond(self, run, s, {});
  launch(self, std::move(run));
}

/// From a device actor: a partition ended; its reply goes to the master that ran it.
void on_partition_done(WorkerActor* self, std::int64_t step_id, const Status& status) {
  auto sender = self->current_sender();
  auto [begin, end] = self->state.running.equal_range(step_id);
  for (auto it = begin; it != end; ++it) {
    if (caf::actor_cast<caf::strong_actor_ptr>(it->second.device_actor) != sender) continue;
    auto run = std::move(it->second);
    self->state.running.erase(it);
    if (!status.ok()) return respond(self, run, status, {});
    std::vector<std::pair<int, Tensor>> fetched;
    for (auto& f : run.step->executors[0]->plan.fetches)
      fetched.emplace_back(f.fetch_index,
                           run.step->results[static_cast<std::size_t>(f.fetch_index)]);
    // The fetches, then the partition's step stats when the step is traced.
    WireWriter out;
    out.str(encode_indexed_tensors(fetched));
    {
      std::lock_guard<std::mutex> lock(run.step->stats_mu);
      out.stats(run.step->stats);
    }
    respond(self, run, Status(), out.take());
    return;
  }
}

/// worker_cancel: the master cancels the step (its deadline, another partition's error).
void cancel_step(WorkerActor* self, std::int64_t step_id, const detail::WireStatus& why) {
  Status s = detail::from_wire(why);
  if (s.ok()) s = cancelled("step " + std::to_string(step_id) + " was cancelled");
  abort_step(self, step_id, s);
}

/// worker_tensor: a tensor on a cross-task edge, for this task's rendezvous.
void receive_tensor(WorkerActor* self, std::int64_t step_id, const std::string& key,
                    const std::string& blob) {
  WireReader in(blob, "tensor " + key);
  Tensor value;
  if (!in.tensor(&value) || !in.at_end()) {
    if (auto source = source_task(key); !source.empty())
      self->state.routes->count_received(source, blob.size());
    return abort_step(
        self, step_id,
        in.status().ok() ? data_loss("malformed tensor " + key + ": trailing bytes") : in.status());
  }
  deliver_tensor(*self->state.routes, self->state.devices->rendezvous, step_id, key,
                 std::move(value), blob.size());
}

worker_service_handle::behavior_type worker_service(WorkerActor* self,
                                                    std::shared_ptr<DeviceSet> devices,
                                                    std::shared_ptr<Routes> routes) {
  self->state.devices = std::move(devices);
  self->state.routes = std::move(routes);
  self->set_down_handler([self](caf::down_msg& msg) { on_master_down(self, msg); });
  self->set_exit_handler([self](caf::exit_msg& msg) { on_exit(self, msg); });
  return {
      [self](worker_register_atom, const std::string& scope, const std::string& plan) {
        return register_partition(self, scope, plan);
      },
      [self](worker_run_atom, std::uint64_t handle, std::int64_t step, std::int64_t timeout_ms,
             bool trace, const std::string& feeds) {
        return run_partition(self, handle, step, timeout_ms, trace, feeds);
      },
      [self](worker_push_run_atom, std::int64_t step, const std::string& payload,
             std::uint64_t frame_bytes) { run_pushed(self, step, payload, frame_bytes); },
      // From a device actor: a partition failed (it reports done later); stop the step's
      // other partitions here at once, and end its receives waiting in this task's
      // rendezvous: a receive from a task that waits in turn for the failed partition would
      // otherwise hold the partition (and the step) forever.
      [self](detail::cancel_atom, std::int64_t step, const Status& why) {
        abort_step(self, step, why);
      },
      [self](detail::done_atom, std::int64_t step, std::size_t, const Status& s) {
        on_partition_done(self, step, s);
      },
      [self](worker_cancel_atom, std::int64_t step, const detail::WireStatus& why) {
        cancel_step(self, step, why);
      },
      [self](worker_cleanup_atom, std::int64_t step) {
        self->send(self->state.devices->rendezvous, detail::cleanup_atom::value, step);
      },
      [self](worker_tensor_atom, std::int64_t step, const std::string& key,
             const std::string& tensor) { receive_tensor(self, step, key, tensor); },
      [self](worker_forget_atom, const std::string& scope) { forget_scope(self, scope); },
  };
}

}  // namespace

worker_service_handle spawn_worker_service(caf::actor_system& sys,
                                           std::shared_ptr<DeviceSet> devices,
                                           std::shared_ptr<Routes> routes) {
  return sys.spawn(worker_service, std::move(devices), std::move(routes));
}

}  // namespace af::net
