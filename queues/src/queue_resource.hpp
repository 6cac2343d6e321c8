#pragma once

// A queue as a resource: the queue actor's handle plus its spec, kept in a ResourceMgr
// under (container, shared name). Destroying the resource tells the actor to quit; pending
// waiters then fail with Cancelled.
#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/queues/queue_handle.hpp"
#include "actorflow/queues/queue_spec.hpp"
#include "adaptive_mutex.hpp"
#include "queue_core.hpp"

namespace af {
class Runtime;
}

namespace af::detail {

using queue_deadline_atom = caf::atom_constant<caf::atom("q_dline")>;
using queue_drain_atom = caf::atom_constant<caf::atom("q_drain")>;

/// What a caller asks of a queue; `reply` runs once, on the thread that drains the queue's
/// inbox (the queue actor, or a host thread using a host handle); if the call is dropped, it
/// runs from the destructor with Cancelled.
struct QueueCall {
  enum class Kind : std::uint8_t {
    enqueue,
    enqueue_many,
    dequeue,
    dequeue_many,
    dequeue_up_to,
    close,
    close_cancel,
    size,
    is_closed,
    stats
  };
  Kind kind = Kind::dequeue;
  std::uint64_t id = 0;
  Tuple components;
  std::int64_t n = 0;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Added to DeadlineExceeded messages ("" = generic).
  std::string what;
  std::shared_ptr<ReplyOnce> reply;
};

/// Ends the pending attempt `id` with `why`.
struct QueueCancel {
  std::uint64_t id = 0;
  Status why;
};

/// Puts dequeued components back.
struct QueueRestore {
  Tuple components;
  bool many = false;
};

/// What callers hand a queue actor through its inbox, in the order they handed it.
using QueueInboxItem = std::variant<QueueCall, QueueCancel, QueueRestore>;

/// A queue's inbox and state: calls, cancels and restores from `QueueResource` (graph ops,
/// readers, host handles) wait in `items`, in the order they came; whoever drains them runs
/// them on the `QueueCore`. Only one thread drains at a time (`draining`), and it alone
/// touches `core`. A push that finds nobody draining either drains right there (host
/// handles and queue kernels in device actors: a handoff then needs no queue actor at
/// all, as a mutex queue would) or sends the queue actor one `queue_drain_atom` (readers,
/// reply callbacks, cancels from kernels): a burst of calls costs one message. The actor also
/// drains, keeps the deadlines (timer messages that come back as cancels through the inbox) and
/// closes the queue when it quits.
struct QueueInbox {
  AdaptiveMutex mu;
  std::condition_variable idle;  ///< signalled when `draining` goes false
  std::vector<QueueInboxItem> items;
  bool drain_sent = false;  ///< a drain message is on its way; the actor clears it
  bool draining = false;    ///< a thread is running items; it owns `core` meanwhile
  bool closed = false;      ///< the actor quit: pushes are dropped (replies fire Cancelled)
  caf::actor actor;         ///< the queue actor (reset when it quits, breaking the cycle)
  /// The queue itself; only the draining thread (or the actor once `closed`) touches it.
  std::unique_ptr<QueueCore> core;
  std::vector<QueueInboxItem> taken;  ///< the drainer's batch (its capacity is reused)
};

/// A fresh attempt id (process-wide).
std::uint64_t next_queue_call_id();

/// How many batches a host thread runs before it leaves the rest to the queue actor.
inline constexpr int kQueueHostDrainRounds = 16;

/// Pushes `item` to `box` (any thread; see QueueResource::call for `drain_here`). The queue
/// actor uses it for its own timers and requests (queue_actor.cpp).
void push_to_inbox(QueueInbox& box, QueueInboxItem item, bool drain_here);

/// Spawns the actor that serves `inbox` (queue_actor.cpp).
caf::actor spawn_queue_actor(caf::actor_system& sys, std::shared_ptr<QueueInbox> inbox);

/// The resource that owns a queue actor (queue_resource.cpp).
class QueueResource final : public ResourceBase {
 public:
  QueueResource(caf::actor_system& sys, QueueSpec spec);
  ~QueueResource() override;

  const QueueSpec& spec() const noexcept { return spec_; }
  const caf::actor& actor() const noexcept { return actor_; }
  std::string debug_string() const override;

  /// Hands `call` to the queue (any thread). With `drain_here` the calling thread may run
  /// the queue's pending work itself before returning, replies of other callers included:
  /// only for threads that may block briefly and hold no lock a reply callback could take
  /// (host handles; device actors, whose queue kernels get their reply by message);
  /// otherwise the queue actor runs it.
  void call(QueueCall call, bool drain_here = false) const;
  /// Ends the pending attempt `id` with `why` (a no-op if it completed).
  void cancel(std::uint64_t id, const Status& why, bool drain_here = false) const;
  /// Puts dequeued components back in the queue.
  void restore(Tuple components, bool many, bool drain_here = false) const;

  /// Notes that a step of `task` ("" : this task's own sessions) enqueued: a stall report
  /// of a dequeue names who fed the queue last.
  void note_producer(const std::string& task);
  /// What a waiting dequeue waits for, in a stall report's words.
  std::string waiting_for() const;

  /// InvalidArgument when `requested` (another node's attributes) differs from this
  /// shared queue, in TensorFlow's words ("Shared queue 'q' has capacity 10 but requested
  /// capacity was 5").
  Status matches(const QueueSpec& requested) const;

 private:
  void push(QueueInboxItem item, bool drain_here) const;
  QueueSpec spec_;
  std::shared_ptr<QueueInbox> inbox_;
  caf::actor actor_;
  mutable std::mutex producers_mu_;
  std::vector<std::string> producers_;  ///< the tasks that enqueued last, most recent first (a few)
};

/// Finds or creates the queue (container, shared_name) in `mgr`, spawning its actor in
/// `sys`. An existing queue must match `spec` (InvalidArgument otherwise).
Status lookup_or_create_queue(ResourceMgr& mgr, caf::actor_system& sys,
                              const std::string& container, const std::string& shared_name,
                              const QueueSpec& spec, std::shared_ptr<QueueResource>* out);

}  // namespace af::detail

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::QueueCall)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::QueueOp)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::QueueReply)
