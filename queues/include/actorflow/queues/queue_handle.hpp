#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/queues/queue_spec.hpp"

namespace af {

namespace detail {
class QueueResource;
}

/// The request a queue actor answers for host actors:
/// `(queue_request_atom, QueueOp op, std::vector<Tensor> components, int64 n, int64 timeout_ms)`
/// -> `std::vector<Tensor>` (dequeued components; empty for other ops; size and is_closed
/// as a scalar) or an actorflow error. `timeout_ms < 0` waits without a deadline; the
/// queue enforces the timeout itself, so an expired request never takes an element.
using queue_request_atom = caf::atom_constant<caf::atom("q_request")>;

/// Operations of `queue_request_atom`, one per QueueHandle call of the same name
/// (`close_cancel_pending` is `close(true)`; `size` and `is_closed` answer a scalar).
enum class QueueOp : std::uint8_t {
  enqueue,
  enqueue_many,
  dequeue,
  dequeue_many,
  dequeue_up_to,
  close,
  close_cancel_pending,
  size,
  is_closed
};

/// Where a host handle finds its queue.
struct QueueHandleOptions {
  /// The device whose process-wide resources hold the queue (graph ops on this device
  /// with the same shared_name use the same queue).
  std::string device = "/job:localhost/replica:0/task:0/device:CPU:0";
  std::string container;       ///< the resource container ("" = the default one)
  Runtime* runtime = nullptr;  ///< default: Runtime::global()
};

/// A queue actor used directly by host code: the streaming-input case. Blocking calls
/// wait on the calling thread (never call them from inside an actor). A blocking call, a
/// QueueProducer or a QueueConsumer that finds the queue idle runs the queue's pending
/// work on its own thread instead of waking the queue actor (one thread at a time, a few
/// batches at most), so a handoff between two host threads needs no actor; do not hold a
/// lock that a callback of this queue's `async` calls takes while calling them. `async`
/// calls report through a callback that runs on the thread serving the queue at that
/// moment, the queue actor or such a host thread (keep it short). Host actors may instead
/// send `queue_request_atom` requests to `actor()`.
///
/// Semantics are the graph ops': enqueue waits while full, dequeue while empty, close,
/// OutOfRange, Cancelled, shape and dtype checks. Errors throw the matching af::Error.
/// Cheap to copy; the queue lives while any handle or session uses it.
class QueueHandle {
 public:
  /// An empty handle (`operator bool` is false): every blocking call throws
  /// FailedPreconditionError.
  QueueHandle() = default;

  /// Opens the queue `spec.name` (its shared name), creating it when absent. Throws
  /// InvalidArgumentError when `spec.name` is empty, `spec` is invalid, or a queue of that
  /// name exists with another spec.
  static QueueHandle open(const QueueSpec& spec, const QueueHandleOptions& options = {});

  /// How long a blocking call may wait, counted from the call: std::nullopt (the default)
  /// waits forever. At expiry the queue itself ends the still-pending attempt with
  /// DeadlineExceededError and gives back what it had reserved, so an expired dequeue takes
  /// nothing and an expired enqueue adds nothing (enqueue_many: rows already in stay). Zero
  /// (or negative) fails almost at once unless the call can be served right away. Only
  /// enqueue/dequeue calls take a timeout; the expiry is a timer message, so it may come late.
  using Timeout = std::optional<std::chrono::milliseconds>;

  /// Adds one element (a tensor per component), waiting while the queue is full (TF's
  /// QueueEnqueueV2). Throws InvalidArgumentError on a wrong component count, dtype or shape;
  /// CancelledError if the queue is closed (or closes with cancel_pending_enqueues while this
  /// waits, or is destroyed); DeadlineExceededError at `timeout` (nothing added).
  void enqueue(std::vector<Tensor> element, Timeout timeout = {}) const;
  /// Adds the rows of `batch` (every component shares dimension 0) as separate elements, in
  /// order, each as capacity frees up; a zero-row batch returns at once. Errors as `enqueue`,
  /// plus InvalidArgumentError on unequal batch sizes. Rows already added when it fails by
  /// timeout or cancellation stay in the queue.
  void enqueue_many(std::vector<Tensor> batch, Timeout timeout = {}) const;
  /// Takes one element, waiting while the queue is empty (a RandomShuffleQueue also waits
  /// while fewer than min_after_dequeue + 1 remain, until closed). Throws OutOfRangeError
  /// once the queue is closed and empty; DeadlineExceededError at `timeout` (nothing taken);
  /// CancelledError if the queue is destroyed meanwhile.
  std::vector<Tensor> dequeue(Timeout timeout = {}) const;
  /// Takes exactly `n` elements as one batch (each component gains a leading dimension `n`),
  /// waiting until `n` are there; `n == 0` returns an empty batch at once. Throws
  /// InvalidArgumentError when `n < 0` or a component shape is not fully specified;
  /// OutOfRangeError once the queue is closed with fewer than `n` left (those stay queued);
  /// DeadlineExceededError at `timeout`, having taken nothing (partly reserved rows go back in
  /// front).
  std::vector<Tensor> dequeue_many(std::int64_t n, Timeout timeout = {}) const;
  /// As `dequeue_many`, but once the queue is closed returns what is left (1 to `n` rows);
  /// OutOfRangeError only when it is closed and empty (TF's QueueDequeueUpToV2).
  std::vector<Tensor> dequeue_up_to(std::int64_t n, Timeout timeout = {}) const;
  /// Closes the queue (TF's QueueCloseV2): later enqueues fail with CancelledError, dequeues
  /// drain what is left and then fail with OutOfRangeError. Without
  /// `cancel_pending_enqueues`, blocks until the enqueues pending before it have completed and
  /// throws CancelledError if the queue was already closed; with it, fails the pending enqueues
  /// with CancelledError and returns at once (no error when already closed).
  void close(bool cancel_pending_enqueues = false) const;
  /// The number of elements in the queue now (pending enqueues not counted).
  std::int64_t size() const;
  /// Whether the queue has been closed.
  bool is_closed() const;

  /// Starts `op` and calls `done(status, components)` once (see the class comment for the
  /// thread; never inside the `async` call itself, except that an empty handle gets
  /// FailedPrecondition at once). Errors arrive as the Status (nothing is thrown); `n` is
  /// used by the dequeue_many/up_to ops, `components` by the enqueue ops.
  void async(QueueOp op, std::vector<Tensor> components, std::int64_t n, Timeout timeout,
             std::function<void(Status, std::vector<Tensor>)> done) const;

  /// The queue's spec; throws FailedPreconditionError on an empty handle.
  const QueueSpec& spec() const;
  /// The queue actor (understands `queue_request_atom`).
  caf::actor actor() const;
  /// Whether the handle refers to a queue (not default-constructed).
  explicit operator bool() const noexcept { return queue_ != nullptr; }

 private:
  friend class QueueProducer;
  friend class QueueConsumer;
  std::vector<Tensor> call(QueueOp op, std::vector<Tensor> components, std::int64_t n,
                           Timeout timeout) const;
  std::shared_ptr<detail::QueueResource> queue_;
};

namespace detail {
struct PipeState;
}

/// Pipelined enqueues from one host thread: each call returns once its request is sent,
/// with at most `window` requests in flight (the caller waits while the window is full,
/// and the queue's capacity still holds requests back). The first error a request gets
/// is thrown by the next call (after that call's own request was sent) or by `flush()`;
/// requests after a failed one still run.
/// Not thread-safe; use one per producing thread.
class QueueProducer {
 public:
  /// Uses `queue` (throws FailedPreconditionError when empty); a `window` of 0 counts as 1.
  explicit QueueProducer(QueueHandle queue, std::size_t window = 16);
  /// Waits for the requests in flight (as a blocking enqueue would); errors are dropped:
  /// call `flush()` first to see them.
  ~QueueProducer();
  QueueProducer(const QueueProducer&) = delete;
  QueueProducer& operator=(const QueueProducer&) = delete;

  /// Sends a QueueHandle::enqueue without a timeout (waits only while the window is full);
  /// throws the first error of an earlier request (see the class comment).
  void enqueue(std::vector<Tensor> element);
  /// Sends a QueueHandle::enqueue_many without a timeout; errors as `enqueue`.
  void enqueue_many(std::vector<Tensor> batch);
  /// Waits until every request sent so far has completed; throws the first error.
  void flush();

 private:
  void send(QueueOp op, std::vector<Tensor> components);
  QueueHandle queue_;
  std::size_t window_;
  std::shared_ptr<detail::PipeState> state_;
};

/// Prefetching dequeues for one host thread: keeps `window` dequeue_many(n) (or, with
/// `up_to`, dequeue_up_to(n)) requests in flight and hands their batches out in order.
/// A failed request (OutOfRange once the queue is closed and drained) stops prefetching;
/// `next()` throws its error. Destruction cancels the requests still waiting (they take
/// nothing) and puts batches received but not taken back at the front of the queue, so
/// prefetching loses nothing. Not thread-safe; use one per consuming thread.
class QueueConsumer {
 public:
  /// Batches of `n` from `queue` (no timeout); requests start at the first `next()`.
  /// Throws FailedPreconditionError on an empty handle, InvalidArgumentError when `n < 0`;
  /// a `window` of 0 counts as 1.
  QueueConsumer(QueueHandle queue, std::int64_t n, std::size_t window = 4, bool up_to = false);
  /// Cancels the waiting requests, waits until none is in flight, and restores untaken batches.
  ~QueueConsumer();
  QueueConsumer(const QueueConsumer&) = delete;
  QueueConsumer& operator=(const QueueConsumer&) = delete;

  /// The next batch, in request order; blocks until it arrives and throws the request's
  /// error (OutOfRangeError once the queue is closed and drained). After a failure, batches
  /// already requested are still handed out, then every call throws OutOfRangeError.
  std::vector<Tensor> next();

 private:
  void top_up();
  QueueHandle queue_;
  std::int64_t n_;
  std::size_t window_;
  bool up_to_;
  bool ended_ = false;
  std::uint64_t next_seq_ = 0;     ///< sequence number of the next request to send
  std::deque<std::uint64_t> ids_;  ///< queue call ids of the requests not yet taken
  std::shared_ptr<detail::PipeState> state_;
};

}  // namespace af
