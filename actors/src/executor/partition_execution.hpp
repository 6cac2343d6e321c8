#pragma once

// One partition of one step being executed: ready nodes run, their outputs flow along the
// partition's edges, and the partition ends when nothing is ready or in flight. The same
// walk serves every thread a partition runs on; where it differs, its StepDriver decides
// (step_driver.hpp). The device actor (device_actor.cpp) and the caller's thread
// (caller_step.cpp) own executions.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "executor/step_driver.hpp"

namespace af::detail {

/// One partition of one step. Not thread-safe: everything runs on its driver's thread.
class PartitionExecution final : public StepServices {
 public:
  /// Prepares `run`'s partition, driven by `driver` (which must outlive it or be replaced
  /// by `adopt` first).
  PartitionExecution(PartitionRunPtr run, StepDriver* driver);
  /// A partition an actor ends the step of and drops unfinished (its device stopped) ends
  /// the step with its cancellation.
  ~PartitionExecution() override;

  // -- StepServices ------------------------------------------------------------------------

  std::int64_t step_id() const override { return step_->step_id; }
  const std::string& client_task() const override { return step_->client_task; }
  void send(const std::string& key, Tensor value) override;
  Async<StatusOr<Tensor>> recv(const std::string& key) override;
  Async<Status> sleep(std::chrono::microseconds delay) override;
  std::chrono::steady_clock::time_point deadline() const override { return step_->deadline; }
  std::function<void(std::function<void()>)> poster() override { return driver_->poster(); }
  std::uint64_t add_cancel_hook(std::function<void(const Status&)> hook) override;
  void remove_cancel_hook(std::uint64_t token) override { cancel_hooks_.erase(token); }
  void add_rollback(std::function<void()> undo) override { rollbacks_.push_back(std::move(undo)); }

  // -- driving -------------------------------------------------------------------------------

  /// Runs ready nodes until none is left (or one is handed off); when nothing is in flight
  /// the partition finishes and its driver is told (`StepDriver::finished`, which may
  /// destroy this execution). Returns true when the partition finished.
  bool run();
  /// Aborts the partition: nothing new starts; waiting kernels resume with `why`. The
  /// caller runs `run()` afterwards (kernels resumed here must not finish the partition
  /// underneath it).
  void cancel(const Status& why);
  /// Continues a partition stopped at an expensive kernel (`handed_off`) under `driver`
  /// (a device actor's `actor_ends_step`): that kernel goes to the device's pool.
  void adopt(StepDriver* driver);

  /// The partition's status so far (the first error wins).
  const Status& status() const { return status_; }
  /// Whether the partition finished.
  bool finished() const { return finished_; }
  /// True when the run stopped at an expensive kernel its driver would not run
  /// (`KernelPlace::hand_off`): a device actor must `adopt` it.
  bool handed_off() const { return handoff_ctx_ != nullptr; }
  /// The partition's run (its step, index and owner).
  const PartitionRunPtr& partition_run() const { return run_; }
  /// Its step.
  const StepRun& step() const { return *step_; }

 private:
  void fail(Status s);
  std::vector<Tensor> gather_inputs(const ExecutorImpl::Item& item, Status* s);
  void launch(int id);
  void launch_feed(int id);
  /// Runs an expensive kernel where the driver places it; `ctx` (the caller's) moves to the
  /// heap when the kernel does not run here and now.
  void run_expensive(int id, OpKernelContext& ctx);
  void schedule(int id, std::shared_ptr<OpKernelContext> ctx);
  void run_here(int id, OpKernelContext& ctx);
  /// Takes a node's outputs: fetches, then its consumers (`dead`: the node did not run).
  void complete(int id, std::vector<Tensor>& outputs, const Status& s, bool dead = false);
  /// Starts tracking dead tensors (`ExecutorImpl::has_control_flow`, or a dead tensor
  /// received): per-node state, and a Merge's pending count split from its control inputs.
  void track_deadness();
  /// Control flow (while tracking deadness): a node with a dead input does not run,
  /// and its outputs and control edges are dead; a _Send sends the dead tensor on.
  void launch_dead(int id);
  /// `complete`'s hand-off to consumers when dead tensors may flow (TensorFlow's
  /// ActivateNodes): a Merge is ready at its first live data input once its control inputs
  /// are done, or dead when every data input is dead; other nodes are dead when any input
  /// (or a control input's node) is.
  void propagate_with_deadness(const ExecutorImpl::Item& item, std::vector<Tensor>& outputs,
                               bool dead);
  void merge_arrival(int dst, int slot, Tensor* live);
  void maybe_fire_merge(int dst);
  bool deliver_fetch(const ExecutorImpl::Item& item, int fetch, Tensor value);
  bool maybe_finish();
  void record(int id, std::uint64_t tid, std::int64_t start, std::int64_t end, bool async);
  /// Wraps `fn` so that it runs on the driver's thread whichever thread calls it (copy
  /// completions come from CUDA's callback thread).
  template <class T>
  std::function<void(T)> posted(std::function<void(T)> fn) {
    return [post = driver_->poster(), fn = std::move(fn)](T value) mutable {
      post([fn, value = std::move(value)]() mutable { fn(std::move(value)); });
    };
  }

  StepDriver* driver_;
  PartitionRunPtr run_;
  StepRun* step_;
  std::shared_ptr<const ExecutorImpl> impl_;
  std::vector<int> pending_;
  bool tracks_deadness_ = false;
  /// While tracking deadness: per node, kDeadInput / kMergeLive / kMergeFired; and per Merge, its
  /// control inputs left (its `pending_` counts only data inputs).
  std::vector<std::uint8_t> flow_state_;
  std::vector<int> merge_controls_;
  std::vector<Tensor> inputs_;
  /// Nodes ready to run, oldest first: `ready_[ready_head_]` to the end, emptied whenever
  /// it drains. A node becomes ready once per step, so the vector, reserved for every node,
  /// never grows (and a step allocates nothing for it beyond that).
  std::vector<int> ready_;
  std::size_t ready_head_ = 0;
  bool any_ready() const noexcept { return ready_head_ < ready_.size(); }
  int outstanding_ = 0;
  int pool_outstanding_ = 0;  ///< of outstanding_: expensive kernels on the inter-op pool
  bool in_loop_ = false;
  int handoff_id_ = -1;
  std::shared_ptr<OpKernelContext> handoff_ctx_;
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

/// A partition started on a caller's thread that stopped at an expensive kernel, handed to
/// its device actor (`adopt_atom`), which finishes it and ends the step.
struct Adoption {
  std::unique_ptr<PartitionExecution> execution;
};

}  // namespace af::detail
