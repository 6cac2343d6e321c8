#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actorflow/actors/coordinator.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/queues/queues.hpp"

namespace af {

/// TensorFlow's GraphKeys.QUEUE_RUNNERS collection name.
inline constexpr const char* kQueueRunnersCollection = "queue_runners";

/// TensorFlow's `tf.train.QueueRunner`: runs each enqueue op in a loop of its own (an
/// actor, not an OS thread) until the queue is closed.
///
/// A loop ends when its op fails with one of `queue_closed_exception_types` (OutOfRange by
/// default: its input ran out or the queue closed); the last loop to end so runs
/// `close_op`. Any other error (Cancelled too, as in TensorFlow) is passed to the
/// coordinator's `request_stop`, or kept in `exceptions_raised` without one, and ends the
/// loop. With a coordinator, one more runner waits for the stop request and runs
/// `cancel_op` (close with cancel_pending_enqueues) so enqueues blocked on a full queue
/// wake up.
class QueueRunner {
 public:
  /// `close_op` defaults to `queue.close()`, `cancel_op` to `queue.close(true)`,
  /// `queue_closed_exception_types` (error codes) to {OutOfRange}.
  QueueRunner(const QueueBase& queue, std::vector<Operation> enqueue_ops,
              std::optional<Operation> close_op = {}, std::optional<Operation> cancel_op = {},
              std::vector<Code> queue_closed_exception_types = {});

  /// The enqueue ops, one loop each.
  const std::vector<Operation>& enqueue_ops() const noexcept;
  /// The queue's name.
  const std::string& name() const noexcept;

  /// The error codes that mean the queue was closed.
  const std::vector<Code>& queue_closed_exception_types() const noexcept;

  /// Creates the loops for `session` (one per enqueue op, plus the cancel waiter when a
  /// coordinator is given, registered with it). With `start` they run at once, else on
  /// `Runner::start`. While loops created earlier for the same Session object have not all
  /// ended (or were never started), it creates none and returns an empty list, as
  /// TensorFlow does; otherwise it forgets the errors kept in `exceptions_raised`. The
  /// session's graph must outlive the loops; the Session object may go (loops then end
  /// with errors that are ignored).
  std::vector<Runner> create_threads(Session& session, Coordinator* coord = nullptr,
                                     bool start = false) const;
  /// As above with a coordinator.
  std::vector<Runner> create_threads(Session& session, Coordinator& coord,
                                     bool start = false) const {
    return create_threads(session, &coord, start);
  }

  /// Errors that ended loops when no coordinator was given.
  std::vector<Status> exceptions_raised() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// Adds `runner` to the graph's QUEUE_RUNNERS collection (`tf.train.add_queue_runner`).
void add_queue_runner(Graph& g, const QueueRunner& runner);

/// Starts every QueueRunner of the graph's QUEUE_RUNNERS collection
/// (`tf.train.start_queue_runners`) and returns their runners.
std::vector<Runner> start_queue_runners(Session& session, Coordinator& coord, Graph& g);

}  // namespace af
