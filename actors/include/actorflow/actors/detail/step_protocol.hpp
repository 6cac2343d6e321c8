#pragma once

// The step protocol inside a process: the types and atoms shared by the session, the
// master, the device actors, the rendezvous and, for partitions of other tasks, the net
// module's task proxy and worker service (see docs/architecture.md, "A step"). Not part of
// the public API: it may change with any release.
//
// Messages (payloads after the atom; all in one process, so shared pointers travel):
//
// clang-format off
// to             message                                     from               what
// master         run_atom, StepRunPtr                        session            start a step
// master         done_atom, int64 step, size_t part, Status  device actor/proxy a partition ended
// master         cancel_atom, int64 step, Status why         session            end the step
// master         timeout_atom, int64 step                    itself             deadline passed
// device actor   run_atom, PartitionRunPtr                   master             run one partition
// device actor   cancel_atom, int64 step, Status why         master, session    stop the step here
// device actor   timeout_atom, int64 step                    itself             deadline (direct)
// device actor   resume_atom, Closure                        pool threads       run a completion
// device actor   adopt_atom, AdoptionPtr                     caller threads     finish a partition
// device actor   cleanup_atom, int64 step                    master             (nothing to drop)
// task proxy     run_atom, PartitionRunPtr                   master             ship to its task
// task proxy     cancel_atom, int64 step, Status why         master             cancel it there
// task proxy     cleanup_atom, int64 step                    master             drop step there
// worker service done_atom, cancel_atom (a master)           device actors      a partition ended
// rendezvous     send_atom, int64 step, string key, Tensor   device actors      tensor for a recv
// rendezvous     recv_atom, int64 step, string key -> Tensor recv kernels       wait for a tensor
// rendezvous     abort_atom, int64 step, Status why          master, servers    fail waiting recvs
// rendezvous     cleanup_atom, int64 step                    master             forget its tensors
// A device actor and a task proxy answer `run_atom` with `done_atom` to `run->master`.
// clang-format on
// The typed interfaces (step_actors.hpp): `partition_runner` (device actors, task proxies),
// `device_actor_handle`, `partition_owner` (masters, worker services), `master_handle`.
#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "actorflow/actors/detail/step_actors.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/actors/device.hpp"
#include "actorflow/actors/step_stats.hpp"
#include "actorflow/ops/execution_plan.hpp"
#include "actorflow/ops/kernel.hpp"

namespace af::detail {

/// A partition's immutable executable form: kernels plus edge tables. Shared by all steps
/// that run the partition; built once per (session, feeds, fetches, targets).
struct ExecutorImpl {
  struct Item {
    const ExecNode* node = nullptr;
    std::shared_ptr<OpKernel> kernel;  // null for _Feed; stateful kernels shared by plans
    int input_start = 0;
    int num_inputs = 0;
    int initial_pending = 0;
    bool is_async = false;
    bool needs_deref = false;
    /// Merge/RefMerge: ready at its first live data input, or dead when all are dead.
    bool is_merge = false;
    /// _Send: runs even when dead, to send the dead tensor on.
    bool is_send = false;
    /// _Recv: a dead tensor received makes its control edges dead too (a cross-device
    /// control edge is a _Recv of a dummy value).
    bool is_recv = false;
    /// ControlTrigger: never dead, whatever its inputs.
    bool is_control_trigger = false;
    /// Enter/RefEnter: its outputs go into iteration 0 of frame `child_frame`'s instance
    /// for the iteration it ran in (all iterations, for a loop invariant: `is_constant`).
    bool is_enter = false;
    bool is_constant_enter = false;
    /// Exit/RefExit: its outputs go to the iteration its frame was entered from; a dead
    /// Exit's wait until the frame ends.
    bool is_exit = false;
    /// NextIteration/RefNextIteration: its outputs go to the next iteration; a dead one's stop.
    bool is_next_iteration = false;
    int frame = 0;         ///< the frame (index into `frames`) the node runs in
    int local_id = 0;      ///< its index in its frame's per-iteration state
    int child_frame = -1;  ///< Enter: the frame its outputs go to
    int num_control = 0;   ///< control inputs (a Merge counts them apart)
    std::vector<std::vector<std::pair<int, int>>> out_edges;  // per output: (dst, input slot)
    std::vector<int> control_out;
    std::vector<std::pair<int, int>> fetches;  // (fetch index, output)
  };
  /// A while loop's frame in the partition (TensorFlow's FrameInfo): the nodes an Enter
  /// with its `frame_name` leads to, up to and including the loop's Exits. Frame 0 is the
  /// root: every node outside loops. Each iteration of an instance of a frame keeps
  /// `initial_pending` and `num_inputs` input slots for its nodes (by `Item::local_id`;
  /// `Item::input_start` is an index into those slots).
  struct FrameInfo {
    std::string name;                  ///< the Enters' `frame_name` ("" for the root)
    int parent = -1;                   ///< the enclosing frame (-1 for the root)
    int num_enters = 0;                ///< Enters into the frame: iteration 0 waits for each
    int parallel_iterations = 1;       ///< iterations that may run at once (its Enters' attr)
    std::vector<int> nodes;            ///< its nodes' ids, by local id
    int num_inputs = 0;                ///< input slots of its nodes
    std::vector<int> initial_pending;  ///< by local id: the nodes' inputs and control inputs
  };
  PartitionPlan plan;
  /// Null for a partition that runs on another task (only `plan` is set; the device's proxy
  /// actor ships it there).
  std::shared_ptr<Device> device;
  /// Prefix of the stateful kernels' keys (one per session).
  std::string kernel_scope;
  std::vector<Item> items;
  std::vector<int> initial_ready;
  int total_inputs = 0;  ///< input slots of the root frame's nodes
  /// The partition's frames; `frames[0]` is the root (a partition without while loops has
  /// only it, and there a node's local id is its id).
  std::vector<FrameInfo> frames;
  /// The partition has while loops (`frames.size() > 1`): its executions keep per-frame,
  /// per-iteration state and never run inline on a caller's thread.
  bool has_loops = false;
  /// The partition can run to its end on any thread without waiting: a host device, no
  /// asynchronous kernel (queues, readers, recv, sleep), no send (see `run_step_inline`).
  bool inline_ok = false;
  /// The partition can run on a thread that waits for it (`run_step_waiting`): no send or
  /// recv; asynchronous kernels (and a GPU's copies and sync) allowed.
  bool waiting_ok = false;
  /// The partition has a Switch or a Merge (TensorFlow's control flow): its executions track
  /// dead tensors from the start. Others start to only when a _Recv brings a dead tensor
  /// (`PartitionExecution::track_deadness`); until then the walk never looks at deadness.
  bool has_control_flow = false;

  /// Builds kernels and edge tables; errors name the node.
  /// `kernel_scope` prefixes the keys of stateful kernels on the device (sessions sharing
  /// a server's devices keep theirs apart).
  static Status create(PartitionPlan plan, std::shared_ptr<Device> device,
                       std::shared_ptr<ExecutorImpl>* out, const std::string& kernel_scope = "");
};

/// One step, shared by everyone taking part in it.
struct StepRun {
  std::int64_t step_id = 0;
  /// The task whose master runs the step, for a partition shipped here by another task's
  /// master (StepServices::client_task); empty otherwise.
  std::string client_task;
  std::vector<Tensor> feeds;
  std::vector<Tensor> results;
  bool trace = false;
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::vector<std::shared_ptr<const ExecutorImpl>> executors;
  std::vector<partition_runner> device_actors;  // parallel to executors
  rendezvous_handle rendezvous;
  /// Routes tensors whose destination device is on another task (see DeviceSet::remote_send);
  /// empty in single-task sessions.
  std::function<bool(std::int64_t step_id, const std::string& key, const Tensor& value)>
      remote_send;
  std::function<void(Status, std::vector<Tensor>)> done;
  RunMetadata* metadata = nullptr;

  std::mutex stats_mu;
  std::vector<NodeExecStats> stats;
};

/// What a device actor gets to run one partition of a step.
struct PartitionRun {
  StepRunPtr step;
  std::size_t partition = 0;
  /// Told when the partition ends (`done`); null for a direct step.
  partition_owner master;
  /// A one-partition step sent straight to its device actor, without a master
  /// (`start_step_direct`): the device actor enforces the deadline and calls `step->done`.
  bool direct = false;
};

/// Runs a step of one partition whose executor is `inline_ok` on the calling thread, a
/// thread that must not block (an io thread serving other connections), without the master
/// (TensorFlow runs such steps in the caller's thread too). The run stops before the first
/// expensive kernel and the device actor (`step->device_actors[0]`) takes the step over and
/// ends it; a step without one ends here, `step->done` called before the return
/// (StepMode::caller_cheap_only, executor/step_driver.hpp). Never call it from an actor.
void run_step_inline(const StepRunPtr& step);

/// The event loop of a step that runs on the thread waiting for it (`run_step_waiting`):
/// the replies of queues and readers and the timers of sleeps, posted from any thread, run
/// there in order; the session posts a cancellation when it closes.
class WaitLoop {
 public:
  using Clock = std::chrono::steady_clock;

  /// Queues `fn` to run on the loop's thread; dropped once the loop is closed (its step
  /// finished: nothing it started is still waiting).
  void post(std::function<void()> fn) {
    std::lock_guard<std::mutex> guard(mu_);
    if (closed_) return;
    posted_.push_back(std::move(fn));
    if (waiting_) cv_.notify_one();
  }
  /// Queues `fn` to run on the loop's thread at `when`.
  void post_at(Clock::time_point when, std::function<void()> fn) {
    std::lock_guard<std::mutex> guard(mu_);
    if (closed_) return;
    timers_.emplace(when, std::move(fn));
    if (waiting_) cv_.notify_one();
  }
  /// Asks the step to stop with `why` (from any thread; the first request wins).
  void cancel(Status why) {
    std::lock_guard<std::mutex> guard(mu_);
    if (closed_ || cancel_) return;
    cancel_ = std::move(why);
    if (waiting_) cv_.notify_one();
  }

  /// What woke the loop's thread: closures to run (in order), and a cancellation or the
  /// deadline when they came.
  struct Wake {
    std::deque<std::function<void()>> work;
    std::optional<Status> cancel;
    bool deadline = false;
  };
  /// Waits until something is posted, a timer is due, a cancellation is asked for or
  /// `deadline` passes.
  Wake wait(Clock::time_point deadline) {
    Wake w;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      const auto now = Clock::now();
      while (!timers_.empty() && timers_.begin()->first <= now) {
        posted_.push_back(std::move(timers_.begin()->second));
        timers_.erase(timers_.begin());
      }
      if (!posted_.empty() || (cancel_ && !cancel_reported_) ||
          (deadline <= now && !deadline_reported_))
        break;
      auto until = deadline_reported_ ? Clock::time_point::max() : deadline;
      if (!timers_.empty()) until = std::min(until, timers_.begin()->first);
      waiting_ = true;
      if (until == Clock::time_point::max())
        cv_.wait(lock);  // a post or a cancellation notifies
      else
        cv_.wait_until(lock, until);
      waiting_ = false;
    }
    w.work.swap(posted_);
    if (cancel_ && !cancel_reported_) {
      cancel_reported_ = true;
      w.cancel = cancel_;
    }
    if (!deadline_reported_ && deadline <= Clock::now()) {
      deadline_reported_ = true;
      w.deadline = true;
    }
    return w;
  }
  /// Ends the loop: later posts are dropped.
  void close() {
    std::lock_guard<std::mutex> guard(mu_);
    closed_ = true;
    posted_.clear();
    timers_.clear();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> posted_;
  std::multimap<Clock::time_point, std::function<void()>> timers_;
  std::optional<Status> cancel_;
  bool cancel_reported_ = false;
  bool deadline_reported_ = false;
  bool waiting_ = false;
  bool closed_ = false;
};

/// Runs a step of one partition whose executor is `waiting_ok` on the calling thread, which
/// waits for it: kernels run here, and the replies of the queues and readers it calls come
/// back through `loop` (no master, no device actor, no message). The step's deadline and
/// `loop`'s cancellation end it as the master would. Expensive kernels run here too, the
/// thread standing in for an inter-op thread; one that is ready beside other nodes, or while
/// others run on the pool, goes to the device's inter-op pool when that has more than one
/// thread, its completion posted to `loop` (TensorFlow's executor keeps the last ready
/// expensive node on its thread and schedules the others). Calls `step->done` on this thread. Never
/// call it from an actor.
void run_step_waiting(const StepRunPtr& step, const std::shared_ptr<WaitLoop>& loop);

/// Starts a step of one partition whose executor is `waiting_ok` on its device actor
/// directly, the master left out (two messages fewer each way: a queue runner's step is a
/// round trip runner -> device actor -> runner). The device actor arms the step's deadline,
/// ends it as the master would and calls `step->done`; a `cancel_atom` sent to the device
/// actor with the step's id cancels it (the session's close does).
void start_step_direct(const StepRunPtr& step);

/// How a step runs, chosen once per step by the session (`Session::Handle::start`); the
/// thread a partition then runs on is one of four StepModes (actors/src/executor/
/// step_driver.hpp), whose driver makes the decisions that depend on it:
/// - `caller_inline`: one `inline_ok` partition on the calling thread (`run_step_inline`);
/// - `caller_waits`: one `waiting_ok` partition on the thread that waits for the step,
///   queue and reader replies coming back through a WaitLoop (`run_step_waiting`);
/// - `device_direct`: one `waiting_ok` partition sent straight to its device actor, which
///   ends it (`start_step_direct`);
/// - `via_master`: everything else (several partitions, devices of other tasks, traced
///   steps): the session's master actor fans the step out and ends it.
enum class StepPath { caller_inline, caller_waits, device_direct, via_master };

/// Every step ends here, whatever its path: calls `step.done` once (later calls do
/// nothing) with `status` and, when it is OK, the step's results.
inline void finish_step(StepRun& step, Status status) {
  auto done = std::move(step.done);
  step.done = nullptr;
  if (!done) return;
  std::vector<Tensor> results = status.ok() ? std::move(step.results) : std::vector<Tensor>{};
  done(std::move(status), std::move(results));
}

/// Spawns the actor executing partitions on `device`.
device_actor_handle spawn_device_actor(caf::actor_system& sys, std::shared_ptr<Device> device);
/// Spawns a step rendezvous (cross-device send/recv) actor.
rendezvous_handle spawn_rendezvous(caf::actor_system& sys);
/// Spawns a session's master actor (fans steps out, enforces deadlines, first error wins).
master_handle spawn_master(caf::actor_system& sys);

/// How a step with a timeout ends when its deadline passes first, whoever keeps it (the
/// master, a device actor, the waiting thread).
inline Status step_deadline_exceeded(const StepRun& step) {
  return deadline_exceeded("Timed out waiting for notification: step " +
                           std::to_string(step.step_id) + " exceeded its deadline of " +
                           std::to_string(step.timeout ? step.timeout->count() : 0) + " ms");
}

/// How a step still running (a dequeue blocked on its queue, say) ends when its session is
/// closed or reset: Cancelled, worded so that TensorFlow's checks ("was cancelled") match.
inline Status session_closed_cancellation() {
  return cancelled("Step was cancelled: the Session has been closed.");
}

}  // namespace af::detail
