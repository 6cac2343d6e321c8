#pragma once

// Internal step protocol types shared by the session, the master, the device actors and
// the rendezvous (all in one process; see ARCHITECTURE.md "A step").
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <caf/all.hpp>

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
    std::vector<std::vector<std::pair<int, int>>> out_edges;  // per output: (dst, input slot)
    std::vector<int> control_out;
    std::vector<std::pair<int, int>> fetches;  // (fetch index, output)
  };
  PartitionPlan plan;
  /// Null for a partition that runs on another task (only `plan` is set; the device's proxy
  /// actor ships it there).
  std::shared_ptr<Device> device;
  /// Prefix of the stateful kernels' keys (one per session).
  std::string kernel_scope;
  std::vector<Item> items;
  std::vector<int> initial_ready;
  int total_inputs = 0;
  /// The partition can run to its end on any thread without waiting: a host device, no
  /// asynchronous kernel (queues, readers, recv, sleep), no send (see `run_step_inline`).
  bool inline_ok = false;

  /// Builds kernels and edge tables; errors name the node.
  /// `kernel_scope` prefixes the keys of stateful kernels on the device (sessions sharing
  /// a server's devices keep theirs apart).
  static Status create(PartitionPlan plan, std::shared_ptr<Device> device,
                       std::shared_ptr<ExecutorImpl>* out, const std::string& kernel_scope = "");
};

/// One step, shared by everyone taking part in it.
struct StepRun {
  std::int64_t step_id = 0;
  std::vector<Tensor> feeds;
  std::vector<Tensor> results;
  bool trace = false;
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::vector<std::shared_ptr<const ExecutorImpl>> executors;
  std::vector<caf::actor> device_actors;  // parallel to executors
  caf::actor rendezvous;
  /// Routes tensors whose destination device is on another task (see DeviceSet::remote_send);
  /// empty in single-task sessions.
  std::function<bool(std::int64_t step_id, const std::string& key, const Tensor& value)> remote_send;
  std::function<void(Status, std::vector<Tensor>)> done;
  RunMetadata* metadata = nullptr;

  std::mutex stats_mu;
  std::vector<NodeExecStats> stats;
};

using StepRunPtr = std::shared_ptr<StepRun>;

/// What a device actor gets to run one partition of a step.
struct PartitionRun {
  StepRunPtr step;
  std::size_t partition = 0;
  caf::actor master;
};
using PartitionRunPtr = std::shared_ptr<PartitionRun>;

/// Runs a step of one partition whose executor is `inline_ok` on the calling thread,
/// without the master (TensorFlow runs such steps in the caller's thread too), and calls
/// `step->done`. With `may_block`, expensive kernels run here as well (a user's thread in
/// `Session::run`); without, the run stops before the first expensive kernel and the
/// device actor (`step->device_actors[0]`) takes the step over and ends it (an io thread
/// that serves other connections). Never call it from an actor.
void run_step_inline(const StepRunPtr& step, bool may_block);

/// Spawns the actor executing partitions on `device`.
caf::actor spawn_device_actor(caf::actor_system& sys, std::shared_ptr<Device> device);
/// Spawns a step rendezvous (cross-device send/recv) actor.
caf::actor spawn_rendezvous(caf::actor_system& sys);
/// Spawns a session's master actor (fans steps out, enforces deadlines, first error wins).
caf::actor spawn_master(caf::actor_system& sys);

/// The safety net for waits without a deadline (never `infinite`, see CAF notes §2).
inline constexpr std::chrono::hours kNoDeadlineWait{24};

}  // namespace af::detail

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::StepRunPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::PartitionRunPtr)
