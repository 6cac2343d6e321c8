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

#include "executor/loop_frames.hpp"
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
  /// A node ready to run in an iteration of a frame.
  struct ReadyNode {
    int id;
    IterState* iter;
  };
  void fail(Status s);
  std::vector<Tensor> gather_inputs(const ExecutorImpl::Item& item, IterState& it, Status* s);
  void launch(int id, IterState& it);
  void launch_feed(int id);
  /// Runs an expensive kernel where the driver places it; `ctx` (the caller's) moves to the
  /// heap when the kernel does not run here and now.
  void run_expensive(int id, IterState& it, OpKernelContext& ctx);
  void schedule(int id, IterState& it, std::shared_ptr<OpKernelContext> ctx);
  void run_here(int id, IterState& it, OpKernelContext& ctx);
  /// Takes a node's outputs: fetches, then its consumers (`dead`: the node did not run).
  void complete(int id, IterState& it, std::vector<Tensor>& outputs, const Status& s,
                bool dead = false);
  /// Starts tracking dead tensors (`ExecutorImpl::has_control_flow`, or a dead tensor
  /// received): per-node state, and a Merge's pending count split from its control inputs.
  void track_deadness();
  /// Control flow (while tracking deadness): a node with a dead input does not run,
  /// and its outputs and control edges are dead; a _Send sends the dead tensor on.
  void launch_dead(int id, IterState& it);
  /// `complete`'s hand-off to consumers when dead tensors may flow (TensorFlow's
  /// PropagateOutputs): an Enter's outputs go into its child frame, an Exit's to the
  /// iteration its frame was entered from, a NextIteration's to the next iteration; then
  /// `activate`.
  void propagate_with_deadness(int id, IterState& it, std::vector<Tensor>& outputs, bool dead);
  /// TensorFlow's ActivateNodes, in iteration `dst`: a Merge is ready at its first live data
  /// input once its control inputs are done, or dead when every data input is dead (or a dead
  /// one came from an Enter); other nodes are dead when any input (or a control input's node)
  /// is. `from_enter`: `item` is an Enter.
  void activate(const ExecutorImpl::Item& item, IterState& dst, std::vector<Tensor>& outputs,
                bool dead, bool from_enter);
  void merge_arrival(IterState& dst, int node, int slot, Tensor* live, bool from_enter);
  void maybe_fire_merge(IterState& dst, int node);
  void make_ready(int id, IterState& it) {
    ready_.push_back({id, &it});
    ++it.outstanding_ops;
  }
  // -- while loops (loop_frames.cpp) --
  /// Sets up iteration state for frame `frame`'s nodes.
  void init_iteration(IterState& s, int frame);
  /// The instance of `frame` entered from iteration `from` (made on the first Enter).
  FrameState& child_frame(IterState& from, int frame);
  /// An Enter's outputs into its child frame: iteration 0, or every iteration for an invariant.
  void enter_frame(int id, IterState& from, std::vector<Tensor>& outputs, bool dead);
  /// Where a live NextIteration's outputs go (starting the iteration), or null when
  /// `parallel_iterations` are running and it waits.
  IterState* next_iteration(int id, IterState& from, std::vector<Tensor>& outputs);
  void increment_iteration(FrameState& f);
  /// A node of iteration `s` completed: finished iterations and frames are cleaned up.
  void node_done(IterState& s);
  bool iteration_done(FrameState& f, std::int64_t i);
  /// Drops the finished iterations of `f` from `i` on; ends `f` when all are done.
  void cleanup(FrameState& f, std::int64_t i);
  /// Ends a frame instance: its dead Exits reach the enclosing frame; `f` is destroyed.
  void finish_frame(FrameState& f);
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
  bool tracks_deadness_ = false;
  /// The root frame and its one iteration: every node outside while loops.
  FrameState root_frame_;
  IterState root_;
  /// The running instances of loop frames, by (iteration entered from, frame).
  std::map<std::pair<const IterState*, int>, std::unique_ptr<FrameState>> frames_;
  /// Nodes ready to run, oldest first: `ready_[ready_head_]` to the end, emptied whenever
  /// it drains. Outside loops a node becomes ready once per step, so the vector, reserved
  /// for every node, never grows (and a step allocates nothing for it beyond that).
  std::vector<ReadyNode> ready_;
  std::size_t ready_head_ = 0;
  bool any_ready() const noexcept { return ready_head_ < ready_.size(); }
  int outstanding_ = 0;
  int pool_outstanding_ = 0;  ///< of outstanding_: expensive kernels on the inter-op pool
  bool in_loop_ = false;
  int handoff_id_ = -1;
  IterState* handoff_iter_ = nullptr;
  /// Nodes launched since the walk last let its thread take other messages (loops only).
  int since_yield_ = 0;
  bool yield_pending_ = false;  ///< a continuation of the walk is posted
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
