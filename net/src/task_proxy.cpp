// A task proxy: the local stand-in for the devices of one remote task. The master actor of a
// session sends it partitions exactly as it sends them to local device actors; the proxy
// registers each partition plan with the remote worker once, runs it there per step, copies
// the fetched values into the step and reports done. If the remote task goes away, every
// partition in flight and every later one fails with Unavailable naming the task.
#include <algorithm>
#include <map>
#include <random>
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

namespace {

constexpr auto kRegisterTimeout = std::chrono::seconds(30);
constexpr auto kRequestSlack = std::chrono::seconds(10);

struct Registration {
  std::weak_ptr<const detail::ExecutorImpl> executor;
  std::string scope;
  std::uint64_t handle = 0;  ///< 0 while the registration is in flight
  std::vector<detail::PartitionRunPtr> queued;
};

struct ProxyState {
  std::string peer_task;
  std::string peer_address;
  worker_service_handle worker;
  std::string local_task;
  detail::rendezvous_handle local_rendezvous;
  std::shared_ptr<Routes> routes;
  std::string incarnation;  ///< makes kernel scopes unique across master restarts
  std::map<const detail::ExecutorImpl*, Registration> registered;
  std::multimap<std::int64_t, detail::PartitionRunPtr> running;
  /// Of `running`: those sent over the push channel, by request id (their replies come back
  /// on this task's push port, or over CAF from a worker whose push to here failed).
  std::map<std::uint64_t, detail::PartitionRunPtr> pushed;
  Status down;  ///< set while the remote task is gone
  /// Runs started again after the worker did not know their partition (once each).
  std::set<detail::PartitionRunPtr> registered_again;
  static inline const char* name = "af.task_proxy";
};
using ProxyActor = caf::stateful_actor<ProxyState, task_proxy_handle::base>;

/// A failed request to the remote worker as a Status: a worker that is gone (before or
/// after its down message arrived) is Unavailable naming the task.
Status request_failure(ProxyActor* self, const caf::error& e, const std::string& what) {
  auto& st = self->state;
  if (!st.down.ok()) return st.down;
  if (e == caf::sec::request_receiver_down)
    return unavailable("Task " + st.peer_task + " at " + st.peer_address +
                       " is unavailable (its worker is gone)");
  return status_from_caf_error(e, what + " on " + st.peer_task);
}

void report(ProxyActor* self, const detail::PartitionRunPtr& run, const Status& status) {
  self->send(run->master, detail::done_atom::value, run->step->step_id, run->partition, status);
}

void run_partition(ProxyActor* self, const detail::PartitionRunPtr& run);

/// Takes `run` off the runs in flight; false when it was not in flight (it ended already).
bool take_running(ProxyActor* self, const detail::PartitionRunPtr& run) {
  std::erase_if(self->state.pushed, [&](const auto& entry) {
    if (entry.second != run) return false;
    self->state.routes->take_reply(entry.first);
    return true;
  });
  auto [begin, end] = self->state.running.equal_range(run->step->step_id);
  for (auto it = begin; it != end; ++it)
    if (it->second == run) {
      self->state.running.erase(it);
      return true;
    }
  return false;
}

void finish(ProxyActor* self, const detail::PartitionRunPtr& run, const Status& status) {
  auto& st = self->state;
  // The worker did not know the partition: it forgot this proxy's partitions when its
  // connection to this task was lost (possibly after this proxy had registered them again).
  // Registered anew and run once more; it had not started there.
  if (status.code() == Code::not_found && st.down.ok() && st.registered_again.insert(run).second) {
    if (!take_running(self, run)) return;
    st.registered.erase(run->step->executors[run->partition].get());
    return run_partition(self, run);
  }
  st.registered_again.erase(run);
  if (take_running(self, run)) report(self, run, status);
}

/// A partition's reply (its fetches, then its step stats) from the remote worker: the
/// fetches go into the step, the stats into its trace; then the partition is done.
void take_reply(ProxyActor* self, const detail::PartitionRunPtr& run, const std::string& reply,
                std::size_t bytes) {
  self->state.routes->count_received(self->state.peer_task, bytes);
  WireReader in(reply, "partition reply from " + self->state.peer_task);
  std::string fetch_blob;
  std::vector<NodeExecStats> stats;
  Status s;
  if (!in.str(&fetch_blob) || !in.stats(&stats)) s = in.status();
  std::vector<std::pair<int, Tensor>> fetched;
  if (s.ok())
    s = decode_indexed_tensors(fetch_blob, "fetches from " + self->state.peer_task, &fetched);
  if (s.ok())
    for (auto& [index, value] : fetched) {
      if (static_cast<std::size_t>(index) >= run->step->results.size()) {
        s = data_loss("fetch index " + std::to_string(index) + " from " + self->state.peer_task +
                      " out of range");
        break;
      }
      run->step->results[static_cast<std::size_t>(index)] = std::move(value);
    }
  if (s.ok() && run->step->trace && !stats.empty()) {
    std::lock_guard<std::mutex> lock(run->step->stats_mu);
    run->step->stats.insert(run->step->stats.end(), std::make_move_iterator(stats.begin()),
                            std::make_move_iterator(stats.end()));
  }
  finish(self, run, s);
}

/// worker_push_reply: the reply to a run sent over the push channel (worker_protocol.hpp),
/// from this task's push port (`frame_bytes` on the wire) or over CAF (0: the payload's).
void on_push_reply(ProxyActor* self, std::uint64_t id, const std::string& payload,
                   std::uint64_t frame_bytes) {
  auto& st = self->state;
  st.routes->take_reply(id);  // one that came over CAF is still expected on the push port
  auto it = st.pushed.find(id);
  if (it == st.pushed.end()) return;  // its step ended meanwhile (the task went down)
  auto run = it->second;
  const std::size_t bytes =
      frame_bytes > 0 ? static_cast<std::size_t>(frame_bytes) : payload.size();
  WireReader in(payload, "partition reply from " + st.peer_task);
  std::uint64_t echoed = 0;
  std::uint8_t ok = 0;
  std::string reply;
  if (in.u64(&echoed) && in.u8(&ok) && ok == 1 && in.str(&reply) && in.at_end())
    return take_reply(self, run, reply, bytes);
  st.routes->count_received(st.peer_task, bytes);
  Status s;
  if (ok != 0 || !in.error(&s) || !in.at_end())
    s = data_loss("malformed partition reply from " + st.peer_task +
                  (in.status().ok() ? std::string() : ": " + in.status().message()));
  finish(self, run, s);
}

/// The feeds of a run as `encode_indexed_tensors` writes them, gathered: the tensors' bytes
/// are written to the socket from the tensors themselves.
WireGather gather_feeds(const std::vector<std::pair<int, Tensor>>& feeds) {
  WireGather out;
  out.fields().u64(feeds.size());
  for (const auto& [index, t] : feeds) {
    out.fields().i64(index);
    out.tensor(t);
  }
  return out;
}

/// Sends run `run` of registered partition `handle` to the remote worker over the push
/// channel, its feeds' bytes not copied on the way; returns its request id, or 0 when the
/// task has none or it failed (the caller sends it over CAF).
std::uint64_t push_run(ProxyActor* self, const detail::PartitionRunPtr& run, std::uint64_t handle,
                       std::int64_t timeout_ms, const std::vector<std::pair<int, Tensor>>& feeds) {
  auto& st = self->state;
  auto link = st.routes->link(st.peer_task);
  if (!link || !link->pushes()) return 0;
  const std::uint64_t id = st.routes->next_request_id();
  WireGather feed_pieces = gather_feeds(feeds);
  WireWriter head;
  head.str(st.local_task);
  head.u64(id);
  head.u64(handle);
  head.i64(timeout_ms);
  head.u8(run->step->trace ? 1 : 0);
  head.u64(feed_pieces.size());  // the feeds as one length-prefixed string
  const std::string head_bytes = head.take();
  std::vector<std::string_view> pieces{head_bytes};
  for (auto piece : feed_pieces.pieces()) pieces.push_back(piece);
  // Expected before it is sent: the reply may come back before send() returns.
  st.routes->expect_reply(id, caf::actor_cast<caf::actor>(self));
  st.pushed.emplace(id, run);
  if (link->push(run->step->step_id, PushKind::run, pieces)) return id;
  st.routes->take_reply(id);
  st.pushed.erase(id);
  return 0;
}

void start(ProxyActor* self, const detail::PartitionRunPtr& run, std::uint64_t handle) {
  auto& step = *run->step;
  const auto& plan = step.executors[run->partition]->plan;
  std::vector<std::pair<int, Tensor>> feeds;
  for (auto& node : plan.nodes)
    if (node.feed_index >= 0)
      feeds.emplace_back(node.feed_index, step.feeds[static_cast<std::size_t>(node.feed_index)]);
  // Without a step deadline the request waits untimed (a CAF request timeout wakes CAF's
  // clock thread twice per step): the proxy monitors the remote worker, so a task that goes
  // away fails the partition Unavailable (on_peer_down) either way.
  std::int64_t timeout_ms = 0;
  caf::duration wait = caf::infinite;
  if (step.timeout) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        step.deadline - std::chrono::steady_clock::now());
    timeout_ms = std::max<std::int64_t>(1, left.count());
    wait = caf::duration{std::chrono::milliseconds(timeout_ms) + kRequestSlack};
  }
  self->state.running.emplace(step.step_id, run);
  // The push channel when the task has one: the run and its reply skip CAF's multiplexer
  // threads, one wake-up each way. A step with a deadline keeps the request timeout's
  // backstop: the master cancels it at its deadline, and this fails it later still if the
  // worker never answers.
  if (auto id = push_run(self, run, handle, timeout_ms, feeds); id != 0) {
    if (step.timeout)
      self->delayed_send(self, std::chrono::milliseconds(timeout_ms) + kRequestSlack,
                         push_timeout_atom::value, id);
    return;
  }
  auto feed_blob = encode_indexed_tensors(feeds);
  self->state.routes->count_sent(self->state.peer_task, feed_blob.size());
  self->request(self->state.worker, wait, worker_run_atom::value, handle, step.step_id, timeout_ms,
                step.trace, std::move(feed_blob))
      .then(
          [self, run](const std::string& reply) { take_reply(self, run, reply, reply.size()); },
          [self, run](caf::error& e) { finish(self, run, request_failure(self, e, "partition")); });
}

void fail_registration(ProxyActor* self, const detail::ExecutorImpl* key, const Status& why) {
  auto it = self->state.registered.find(key);
  if (it == self->state.registered.end()) return;
  auto queued = std::move(it->second.queued);
  self->state.registered.erase(it);
  for (auto& run : queued) report(self, run, why);
}

/// The remote task went away: every partition running or waiting there fails Unavailable,
/// naming the task (later ones fail at once).
void on_peer_down(ProxyActor* self, const caf::down_msg& msg) {
  auto& st = self->state;
  if (!st.down.ok() || msg.source != caf::actor_cast<caf::actor_addr>(st.worker))
    return;  // an older worker handle
  st.registered_again.clear();
  st.down = unavailable("Task " + st.peer_task + " at " + st.peer_address + " is unavailable (" +
                        self->system().render(msg.reason) + ")");
  auto running = std::move(st.running);
  st.running.clear();
  for (auto& [id, run] : st.pushed) st.routes->take_reply(id);
  st.pushed.clear();
  for (auto& [id, run] : running) report(self, run, st.down);
  auto registered = std::move(st.registered);
  st.registered.clear();
  for (auto& [key, reg] : registered)
    for (auto& run : reg.queued) report(self, run, st.down);
}

void on_exit(ProxyActor* self, const caf::exit_msg& msg) {
  auto& st = self->state;
  Status why = cancelled("Server " + st.local_task + " stopped");
  for (auto& [id, run] : st.running) report(self, run, why);
  st.running.clear();
  for (auto& [id, run] : st.pushed) st.routes->take_reply(id);
  st.pushed.clear();
  for (auto& [key, reg] : st.registered)
    for (auto& run : reg.queued) report(self, run, why);
  st.registered.clear();
  self->quit(msg.reason);
}

/// run_atom from a master: runs a partition on the remote task, registering its plan there
/// first (once per plan; runs arriving meanwhile wait for the handle).
void run_partition(ProxyActor* self, const detail::PartitionRunPtr& run) {
  auto& st = self->state;
  if (!st.down.ok()) return report(self, run, st.down);
  const auto& executor = run->step->executors[run->partition];
  const detail::ExecutorImpl* key = executor.get();
  auto it = st.registered.find(key);
  if (it != st.registered.end() && it->second.executor.expired()) {
    st.registered.erase(it);  // a new plan at a recycled address
    it = st.registered.end();
  }
  if (it != st.registered.end()) {
    if (it->second.handle != 0) return start(self, run, it->second.handle);
    it->second.queued.push_back(run);
    return;
  }
  auto scope = st.local_task + "/" + st.incarnation + "/" + executor->kernel_scope;
  auto& reg = st.registered[key];
  reg.executor = executor;
  reg.scope = executor->kernel_scope;
  reg.queued.push_back(run);
  std::string blob;
  try {
    blob = encode_partition(executor->plan);
  } catch (...) {
    return fail_registration(self, key, status_from_exception(std::current_exception()));
  }
  st.routes->count_sent(st.peer_task, blob.size());
  self->request(st.worker, kRegisterTimeout, worker_register_atom::value, scope, std::move(blob))
      .then(
          [self, key](std::uint64_t handle) {
            auto it = self->state.registered.find(key);
            if (it == self->state.registered.end()) return;
            it->second.handle = handle;
            auto queued = std::move(it->second.queued);
            it->second.queued.clear();
            for (auto& r : queued) start(self, r, handle);
          },
          [self, key](caf::error& e) {
            fail_registration(self, key, request_failure(self, e, "registering a partition"));
          });
}

/// cancel_atom from a master: cancels the step's partition on the remote task; one still
/// waiting for its registration never starts (started later, it would wait for tensors of
/// partitions that already ended).
void cancel_step(ProxyActor* self, std::int64_t step_id, const Status& why) {
  auto& st = self->state;
  if (st.running.count(step_id)) {
    // After a run sent over the push channel, on that channel too: over CAF the cancellation
    // could reach the worker before the run and leave it running (a dequeue never ends).
    bool pushed = std::any_of(st.pushed.begin(), st.pushed.end(), [&](const auto& entry) {
      return entry.second->step->step_id == step_id;
    });
    if (auto link = st.routes->link(st.peer_task))
      link->cancel(caf::actor_cast<caf::actor>(self), step_id,
                   why.ok() ? cancelled("step " + std::to_string(step_id) + " was cancelled") : why,
                   pushed);
  }
  for (auto& [key, reg] : st.registered) {
    std::vector<detail::PartitionRunPtr> cancelled_runs;
    std::erase_if(reg.queued, [&](const detail::PartitionRunPtr& run) {
      if (run->step->step_id != step_id) return false;
      cancelled_runs.push_back(run);
      return true;
    });
    for (auto& run : cancelled_runs) report(self, run, why);
  }
}

/// worker_tensor from the remote task: a tensor one of its partitions sent to another task,
/// delivered here or forwarded to its task.
void forward_tensor(ProxyActor* self, std::int64_t step_id, const std::string& key,
                    const std::string& blob) {
  auto& st = self->state;
  st.routes->count_received(st.peer_task, blob.size());
  auto dst = destination_task(key);
  if (dst != st.local_task) {
    if (auto link = st.routes->link(dst))
      link->tensor_encoded(caf::actor_cast<caf::actor>(self), step_id, key, blob);
    return;
  }
  WireReader in(blob, "tensor " + key + " from " + st.peer_task);
  Tensor value;
  if (!in.tensor(&value) || !in.at_end()) {
    Status s =
        in.status().ok() ? data_loss("malformed tensor " + key + ": trailing bytes") : in.status();
    self->send(st.local_rendezvous, detail::abort_atom::value, step_id, s);
    return;
  }
  self->send(st.local_rendezvous, detail::send_atom::value, step_id, key, std::move(value));
}

/// worker_forget from a session of this task that closed: the remote worker drops its
/// partitions and kernels.
void forget_scope(ProxyActor* self, const std::string& kernel_scope) {
  auto& st = self->state;
  for (auto it = st.registered.begin(); it != st.registered.end();)
    it = it->second.scope == kernel_scope && it->second.queued.empty() ? st.registered.erase(it)
                                                                       : std::next(it);
  if (st.down.ok())
    self->send(st.worker, worker_forget_atom::value,
               st.local_task + "/" + st.incarnation + "/" + kernel_scope);
}

task_proxy_handle::behavior_type task_proxy(ProxyActor* self, std::string peer_task,
                                            std::string peer_address, caf::actor worker,
                                            std::string local_task,
                                            detail::rendezvous_handle local_rendezvous,
                                            std::shared_ptr<Routes> routes) {
  auto& st = self->state;
  st.peer_task = std::move(peer_task);
  st.peer_address = std::move(peer_address);
  st.worker = caf::actor_cast<worker_service_handle>(std::move(worker));
  st.local_task = std::move(local_task);
  st.local_rendezvous = std::move(local_rendezvous);
  st.routes = std::move(routes);
  std::random_device rd;
  st.incarnation = std::to_string((static_cast<std::uint64_t>(rd()) << 32) | rd());
  self->monitor(st.worker);
  self->set_down_handler([self](caf::down_msg& msg) { on_peer_down(self, msg); });
  self->set_exit_handler([self](caf::exit_msg& msg) { on_exit(self, msg); });
  return {
      [self](detail::run_atom, const detail::PartitionRunPtr& run) { run_partition(self, run); },
      [self](detail::cancel_atom, std::int64_t step, const Status& why) {
        cancel_step(self, step, why);
      },
      [self](detail::cleanup_atom, std::int64_t step) {
        auto& st = self->state;
        if (!st.down.ok()) return;
        if (auto link = st.routes->link(st.peer_task))
          link->cleanup(caf::actor_cast<caf::actor>(self), step);
      },
      [self](worker_tensor_atom, std::int64_t step, const std::string& key,
             const std::string& tensor) { forward_tensor(self, step, key, tensor); },
      [self](worker_forget_atom, const std::string& kernel_scope) {
        forget_scope(self, kernel_scope);
      },
      [self](worker_push_reply_atom, std::uint64_t id, const std::string& payload,
             std::uint64_t frame_bytes) { on_push_reply(self, id, payload, frame_bytes); },
      [self](proxy_revive_atom, caf::actor worker) {
        // The same process is back (a freeze, a broken link): serve again. Its worker
        // forgot this proxy's partitions with the lost connection; they are registered anew.
        auto& st = self->state;
        st.worker = caf::actor_cast<worker_service_handle>(std::move(worker));
        self->monitor(st.worker);
        st.down = Status();
        st.registered.clear();
      },
      [self](push_timeout_atom, std::uint64_t id) {
        // The request timeout's backstop for a pushed run of a step with a deadline.
        auto it = self->state.pushed.find(id);
        if (it == self->state.pushed.end()) return;
        auto run = it->second;
        finish(self, run,
               request_failure(self, caf::make_error(caf::sec::request_timeout), "partition"));
      },
  };
}

}  // namespace

task_proxy_handle spawn_task_proxy(caf::actor_system& sys, std::string peer_task,
                                   std::string peer_address, caf::actor remote_worker,
                                   std::string local_task,
                                   detail::rendezvous_handle local_rendezvous,
                                   std::shared_ptr<Routes> routes) {
  return sys.spawn(task_proxy, std::move(peer_task), std::move(peer_address),
                   std::move(remote_worker), std::move(local_task), std::move(local_rendezvous),
                   std::move(routes));
}

}  // namespace af::net
