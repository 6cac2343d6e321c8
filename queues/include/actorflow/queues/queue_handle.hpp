#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>

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

/// Operations of `queue_request_atom`.
enum class QueueOp : std::uint8_t {
  enqueue, enqueue_many, dequeue, dequeue_many, dequeue_up_to, close, close_cancel_pending, size,
  is_closed
};

/// Where a host handle finds its queue.
struct QueueHandleOptions {
  /// The device whose process-wide resources hold the queue (graph ops on this device
  /// with the same shared_name use the same queue).
  std::string device = "/job:localhost/replica:0/task:0/device:CPU:0";
  std::string container;
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
  QueueHandle() = default;

  /// Opens the queue `spec.name` (its shared name), creating it when absent. Throws
  /// InvalidArgumentError when a queue of that name exists with another spec.
  static QueueHandle open(const QueueSpec& spec, const QueueHandleOptions& options = {});

  using Timeout = std::optional<std::chrono::milliseconds>;

  void enqueue(std::vector<Tensor> element, Timeout timeout = {}) const;
  void enqueue_many(std::vector<Tensor> batch, Timeout timeout = {}) const;
  std::vector<Tensor> dequeue(Timeout timeout = {}) const;
  std::vector<Tensor> dequeue_many(std::int64_t n, Timeout timeout = {}) const;
  std::vector<Tensor> dequeue_up_to(std::int64_t n, Timeout timeout = {}) const;
  void close(bool cancel_pending_enqueues = false) const;
  std::int64_t size() const;
  bool is_closed() const;

  /// Starts `op` and calls `done(status, components)` once (see the class comment for the
  /// thread; never inside the `async` call itself).
  void async(QueueOp op, std::vector<Tensor> components, std::int64_t n, Timeout timeout,
             std::function<void(Status, std::vector<Tensor>)> done) const;

  const QueueSpec& spec() const;
  /// The queue actor (understands `queue_request_atom`).
  caf::actor actor() const;
  explicit operator bool() const noexcept { return queue_ != nullptr; }

 private:
  friend class QueueProducer;
  friend class QueueConsumer;
  std::vector<Tensor> call(QueueOp op, std::vector<Tensor> components, std::int64_t n, Timeout timeout) const;
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
  explicit QueueProducer(QueueHandle queue, std::size_t window = 16);
  /// Waits for the requests in flight (as a blocking enqueue would); errors are dropped:
  /// call `flush()` first to see them.
  ~QueueProducer();
  QueueProducer(const QueueProducer&) = delete;
  QueueProducer& operator=(const QueueProducer&) = delete;

  void enqueue(std::vector<Tensor> element);
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
  QueueConsumer(QueueHandle queue, std::int64_t n, std::size_t window = 4, bool up_to = false);
  ~QueueConsumer();
  QueueConsumer(const QueueConsumer&) = delete;
  QueueConsumer& operator=(const QueueConsumer&) = delete;

  /// The next batch, in request order; throws the request's error.
  std::vector<Tensor> next();

 private:
  void top_up();
  QueueHandle queue_;
  std::int64_t n_;
  std::size_t window_;
  bool up_to_;
  bool ended_ = false;
  std::uint64_t next_seq_ = 0;   ///< sequence number of the next request to send
  std::deque<std::uint64_t> ids_;  ///< queue call ids of the requests not yet taken
  std::shared_ptr<detail::PipeState> state_;
};

}  // namespace af
