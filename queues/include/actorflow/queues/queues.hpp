#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/queues/queue_spec.hpp"

namespace af {

/// A component shape of a queue: `{}` is a scalar, `{2}` a vector of two, and -1 marks a
/// dimension a `PaddingFIFOQueue` pads (Python's `None`).
using QueueShape = std::vector<std::int64_t>;

/// Construction options shared by the queue classes (the arguments of `tf.FIFOQueue`,
/// `tf.RandomShuffleQueue`, ... in the order designated initialisers need).
struct QueueOptions {
  /// Elements held before enqueues wait; negative = unbounded.
  std::int64_t capacity = -1;
  /// RandomShuffleQueue only: elements kept after a dequeue until the queue is closed.
  std::int64_t min_after_dequeue = 0;
  /// Component dtypes (a PriorityQueue's exclude the int64 priority it prepends).
  std::vector<DType> dtypes;
  /// Component shapes, or empty when unspecified (then no `dequeue_many`).
  std::vector<QueueShape> shapes;
  /// The queue op's name (default "fifo_queue", "random_shuffle_queue", ...).
  std::string name;
  /// Sessions of this process (and later of a cluster) share queues by (container,
  /// shared_name); empty = private to each session.
  std::string shared_name;
  /// RandomShuffleQueue: the op seed combined with the graph seed (`tf.get_seed`).
  std::optional<std::int64_t> seed;
};

/// Makes sure the queue and reader ops and kernels are registered (idempotent; the graph
/// API calls it, so only code importing GraphDefs needs it).
void register_queue_ops();

/// A queue in a graph (TensorFlow's `tf.QueueBase`): its builder methods add the ops that
/// run against the queue actor. Cheap to copy; refers to the graph it was built in.
///
/// Blocking semantics (TensorFlow 1.x): an enqueue waits while the queue is full; a dequeue
/// waits until enough elements are there. After `close`, enqueues fail with Cancelled,
/// pending enqueues finish (or fail with Cancelled when `cancel_pending_enqueues`), dequeues
/// drain what is left and then fail with OutOfRange. A step's deadline or cancellation
/// ends a waiting op without taking any element.
class QueueBase {
 public:
  /// The queue handle (a resource tensor), TensorFlow's `queue_ref`.
  Output queue_ref() const noexcept { return handle_; }
  /// The queue op's name.
  std::string name() const { return handle_.node()->name(); }
  /// Component dtypes (a PriorityQueue's start with its int64 priority).
  const std::vector<DType>& dtypes() const noexcept { return dtypes_; }
  /// Component shapes (empty when unspecified).
  const std::vector<PartialShape>& shapes() const noexcept { return shapes_; }
  /// The queue's kind.
  QueueKind kind() const noexcept { return kind_; }

  /// Enqueues one element (one tensor per component). Throws InvalidArgumentError naming
  /// the queue and component when a dtype or static shape does not fit.
  Operation enqueue(const std::vector<Output>& components, std::string_view name = {}) const;
  /// Enqueues the rows of `components` (dimension 0 is the batch); zero rows is a no-op.
  Operation enqueue_many(const std::vector<Output>& components, std::string_view name = {}) const;
  /// Dequeues one element.
  std::vector<Output> dequeue(std::string_view name = {}) const;
  /// Dequeues `n` elements stacked along a new dimension 0. InvalidArgument at run time
  /// on a queue without shapes; OutOfRange when closed with fewer than `n` left (those
  /// stay in the queue).
  std::vector<Output> dequeue_many(const Output& n, std::string_view name = {}) const;
  /// As above with `n` as a constant.
  std::vector<Output> dequeue_many(std::int32_t n, std::string_view name = {}) const;
  /// Like `dequeue_many`, but after close returns the remaining elements (at least one).
  std::vector<Output> dequeue_up_to(const Output& n, std::string_view name = {}) const;
  /// As above with `n` as a constant.
  std::vector<Output> dequeue_up_to(std::int32_t n, std::string_view name = {}) const;
  /// Closes the queue (see the class comment).
  Operation close(bool cancel_pending_enqueues = false, std::string_view name = {}) const;
  /// The number of elements in the queue (int32 scalar).
  Output size(std::string_view name = {}) const;
  /// Whether the queue is closed (bool scalar).
  Output is_closed(std::string_view name = {}) const;

  /// The graph the queue op was built in.
  Graph& graph() const noexcept { return *graph_; }

 protected:
  /// Adds the queue op of `kind` to `g`; see the subclasses' constructors.
  QueueBase(Graph& g, QueueKind kind, const QueueOptions& options);

 private:
  std::vector<Output> dequeue_impl(const std::string& op, const Output* n, std::string_view name,
                                   const char* suffix) const;
  Graph* graph_;
  QueueKind kind_;
  Output handle_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

/// `tf.FIFOQueue`: elements leave in the order they came.
class FIFOQueue : public QueueBase {
 public:
  /// Adds the queue op to `g`. Throws InvalidArgumentError when `dtypes` is empty, the shape
  /// count differs from it, or a shape is not fully defined.
  FIFOQueue(Graph& g, const QueueOptions& options);
};

/// `tf.RandomShuffleQueue`: dequeues a random element while more than `min_after_dequeue`
/// stay (the minimum is lifted once the queue is closed).
class RandomShuffleQueue : public QueueBase {
 public:
  /// Adds the queue op to `g` (seeds from `options.seed` and the graph seed). Throws
  /// InvalidArgumentError as FIFOQueue's constructor does.
  RandomShuffleQueue(Graph& g, const QueueOptions& options);
};

/// `tf.PaddingFIFOQueue`: a FIFO whose shapes may have unknown dimensions (-1, rank
/// fixed); `dequeue_many` / `dequeue_up_to` pad each to the batch's largest with zeros.
class PaddingFIFOQueue : public QueueBase {
 public:
  /// Adds the queue op to `g`. Throws InvalidArgumentError when `dtypes` is empty, `shapes`
  /// is empty or its count differs from it.
  PaddingFIFOQueue(Graph& g, const QueueOptions& options);
};

/// `tf.PriorityQueue`: component 0 is an int64 priority (prepended to `dtypes`); the
/// smallest priority leaves first.
class PriorityQueue : public QueueBase {
 public:
  /// Adds the queue op to `g`. Throws InvalidArgumentError as FIFOQueue's constructor does.
  PriorityQueue(Graph& g, const QueueOptions& options);
};

}  // namespace af
