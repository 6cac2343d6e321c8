#pragma once

// How a partition's execution meets the thread it runs on. A PartitionExecution
// (partition_execution.hpp) walks the graph the same way on every thread; what differs
// between threads is made in one place, here, as four decisions of its StepDriver:
//
// clang-format off
// mode               runs on                      1. expensive kernel       2. completions   3. GPU sync ends        4. who is told at the end
// caller_cheap_only  a thread that must not block stops: hand_off to the    (none: no waits)  (none: host only)       the caller reads the status
//                    (start_step_here, io threads) device actor, which
//                                                  adopts the partition
// caller_waits       the thread waiting for the   here; on the pool beside  its WaitLoop     polled on this thread   the caller reads the status
//                    step (Session::run)          other work, pool > 1                       until the deadline
// actor_for_master   a device actor, the step     here for a chain; the     resume_atom to   answered by callback,   done_atom to the owner
//                    owned by a master or worker  pool beside other work    the actor        as a message            (cancel_atom at once on
//                    service                                                                                         the first error)
// actor_ends_step    a device actor ending the    as actor_for_master       as above         as above                the step's `done`
//                    step itself (direct step,                                                                       (finish_step)
//                    or a partition adopted)
// clang-format on
//
// The step's path (StepPath, chosen by the session) picks the mode: caller_inline →
// caller_cheap_only (then actor_ends_step once adopted), caller_waits → caller_waits,
// device_direct → actor_ends_step, via_master → actor_for_master (and a worker service's
// partitions are actor_for_master too, the service being their owner).
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "actorflow/actors/detail/step_protocol.hpp"

namespace af::detail {

class PartitionExecution;

/// The ways a partition runs, named once (see the table above).
enum class StepMode {
  caller_cheap_only,  ///< a thread that must not block: stops before an expensive kernel
  caller_waits,       ///< the thread that waits for the step, serving its WaitLoop
  actor_for_master,   ///< a device actor; the partition's owner hears how it ended
  actor_ends_step,    ///< a device actor that ends the step itself
};

/// The mode's name, for messages and logs.
const char* step_mode_name(StepMode mode);

/// What a partition has going on when it asks where an expensive kernel should run.
struct PartitionLoad {
  bool other_ready = false;  ///< another node is ready to run
  int in_flight = 0;         ///< kernels, copies and syncs not yet completed
  int on_pool = 0;           ///< of `in_flight`: expensive kernels on the inter-op pool
};

/// Where an expensive kernel runs (decision 1).
enum class KernelPlace {
  here,      ///< on the current thread, now
  pool,      ///< on the device's inter-op pool; its completion is posted back
  hand_off,  ///< nowhere yet: the partition stops and its device actor adopts it
};

/// Makes a partition's four thread-dependent decisions (see the table above). A driver
/// outlives every execution that points at it: an actor's live in its state, a waiting
/// caller's on its stack, the cheap-only one is static.
class StepDriver {
 public:
  /// A driver of mode `mode`.
  explicit StepDriver(StepMode mode) : mode_(mode) {}
  virtual ~StepDriver() = default;
  StepDriver(const StepDriver&) = delete;
  StepDriver& operator=(const StepDriver&) = delete;

  /// This driver's mode.
  StepMode mode() const { return mode_; }
  /// True for the modes that run on a caller's thread rather than in a device actor.
  bool on_caller_thread() const {
    return mode_ == StepMode::caller_cheap_only || mode_ == StepMode::caller_waits;
  }

  /// 1. Where an expensive kernel of a partition on `device`, with `load` going on, runs.
  virtual KernelPlace place_expensive(const Device& device, const PartitionLoad& load) const = 0;

  /// 2. How completions come back: a function that runs its argument on this driver's
  /// thread (the actor, or the waiting thread's loop), callable from any thread.
  virtual std::function<void(std::function<void()>)> poster() = 0;
  /// 2. Runs `fn` on this driver's thread after `delay` (a sleep's timer).
  virtual void post_after(std::chrono::microseconds delay, std::function<void()> fn) = 0;
  /// 2. Hands `value`, sent under `key`, to `step`'s rendezvous (actors only: the caller
  /// modes' partitions have no send kernel).
  virtual void send_tensor(const StepRun& step, const std::string& key, Tensor value) = 0;
  /// 2. Asks `step`'s rendezvous for `key`, waiting until the step's deadline (untimed
  /// without one); `done` runs on this driver's thread. The caller modes' partitions have
  /// no recv kernel: they answer Internal.
  virtual void recv_tensor(const StepRun& step, const std::string& key,
                           std::function<void(StatusOr<Tensor>)> done) = 0;

  /// 3. Whether a GPU partition's end of work is polled on this thread (until the step's
  /// deadline, its fetched tensors' copies riding with the same sync) rather than answered
  /// by the device's callback.
  bool polls_gpu_sync() const { return mode_ == StepMode::caller_waits; }

  /// 4. The partition of `execution` failed first with `why` (its owner may cancel the
  /// step's other partitions at once).
  virtual void first_error(const PartitionExecution& execution, const Status& why) = 0;
  /// 4. The partition finished with `status`: tells whoever the mode names. May destroy
  /// `execution` (an actor drops it); the caller must not touch it afterwards.
  virtual void finished(PartitionExecution& execution, Status status) = 0;

 private:
  StepMode mode_;
};

}  // namespace af::detail
