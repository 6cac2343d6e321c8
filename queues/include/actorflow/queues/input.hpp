#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/queues/queue_runner.hpp"
#include "actorflow/queues/queues.hpp"

namespace af {

/// Options of the input producers (`tf.train.input_producer` and friends).
struct InputProducerOptions {
  /// Passes over the input before the queue closes (OutOfRange downstream); nullopt =
  /// forever. Needs `local_variables_initializer()` to run first, as in TensorFlow.
  std::optional<std::int64_t> num_epochs;
  /// Shuffle the input once per epoch (`tf.random_shuffle`).
  bool shuffle = true;
  std::optional<std::int64_t> seed;  ///< the shuffle's op seed (combined with the graph seed)
  std::int64_t capacity = 32;        ///< the queue's capacity
  std::string shared_name;           ///< the queue's shared name ("" = private to each session)
  std::string name;                  ///< the name scope of the ops (default "input_producer")
  /// The op the queue runner runs on stop (default: close with cancel_pending_enqueues).
  std::optional<Operation> cancel_op;
  /// The shape of one element (input_producer's `element_shape`), merged with the input's
  /// shape past dimension 0; needed when that shape is not fully defined.
  std::optional<PartialShape> element_shape;
};

/// `tf.train.limit_epochs`: `tensor`, erroring with OutOfRange after `num_epochs`
/// evaluations (a local `epochs` counter variable); `tensor` itself when nullopt.
Output limit_epochs(const Output& tensor, std::optional<std::int64_t> num_epochs,
                    std::string_view name = {});

/// `tf.train.input_producer`: a FIFOQueue fed with the rows of `input_tensor` (shuffled
/// each epoch when `shuffle`) by a QueueRunner added to QUEUE_RUNNERS. Throws
/// InvalidArgumentError when neither the input's shape past dimension 0 nor
/// `element_shape` defines the element shape fully, or when they disagree.
FIFOQueue input_producer(const Output& input_tensor, const InputProducerOptions& options = {});

/// `tf.train.string_input_producer`: file names for readers.
FIFOQueue string_input_producer(const Output& string_tensor,
                                const InputProducerOptions& options = {});
/// As above with `strings` as a constant; throws InvalidArgumentError when it is empty.
FIFOQueue string_input_producer(Graph& g, const std::vector<std::string>& strings,
                                const InputProducerOptions& options = {});

/// `tf.train.range_input_producer`: the integers 0 .. limit-1.
FIFOQueue range_input_producer(const Output& limit, const InputProducerOptions& options = {});
/// As above with `limit` as a constant.
FIFOQueue range_input_producer(Graph& g, std::int32_t limit,
                               const InputProducerOptions& options = {});

/// `tf.train.slice_input_producer`: one row of each tensor per dequeue (all tensors
/// share dimension 0).
std::vector<Output> slice_input_producer(const std::vector<Output>& tensors,
                                         const InputProducerOptions& options = {});

/// Options of `batch` and `batch_join` (`tf.train.batch`).
struct BatchOptions {
  std::int64_t batch_size = 1;  ///< elements per dequeued batch (must be > 0)
  /// Enqueue loops (`batch`); `batch_join` runs one per tensor list.
  int num_threads = 1;
  std::int64_t capacity = 32;  ///< the queue's capacity
  /// The tensors are batches already (dimension 0 is split into elements).
  bool enqueue_many = false;
  /// Element shapes; default: the tensors' static shapes.
  std::vector<QueueShape> shapes;
  /// Pad variable-size elements to the batch maximum (a PaddingFIFOQueue).
  bool dynamic_pad = false;
  /// The last batch may be smaller (dequeue_up_to) instead of failing with OutOfRange.
  bool allow_smaller_final_batch = false;
  std::string shared_name;  ///< the queue's shared name ("" = private to each session)
  std::string name;         ///< the name scope of the ops (default: the function's name)
};

/// Options of `shuffle_batch` and `shuffle_batch_join` (`tf.train.shuffle_batch`).
struct ShuffleBatchOptions {
  std::int64_t batch_size = 1;  ///< elements per dequeued batch (must be > 0)
  std::int64_t capacity = 32;   ///< the queue's capacity
  std::int64_t min_after_dequeue =
      0;                ///< kept for mixing until close; InvalidArgumentError unless < capacity
  int num_threads = 1;  ///< enqueue loops (`shuffle_batch`); the join runs one per list
  std::optional<std::int64_t> seed;        ///< the queue's op seed (combined with the graph seed)
  bool enqueue_many = false;               ///< the tensors are batches already
  std::vector<QueueShape> shapes;          ///< element shapes; default: the tensors' static shapes
  bool allow_smaller_final_batch = false;  ///< the last batch may be smaller (dequeue_up_to)
  std::string shared_name;  ///< the queue's shared name ("" = private to each session)
  std::string name;         ///< the name scope of the ops (default: the function's name)
};

/// `tf.train.batch`: a FIFOQueue (PaddingFIFOQueue with `dynamic_pad`) fed by
/// `num_threads` loops of one enqueue of `tensors` (a QueueRunner added to QUEUE_RUNNERS),
/// and a dequeue of `batch_size` elements. Throws InvalidArgumentError when a shape is not
/// fully defined (without `dynamic_pad`) or the tensors are empty.
std::vector<Output> batch(const std::vector<Output>& tensors, const BatchOptions& options);

/// `tf.train.batch_join`: one enqueue loop per tensor list (each list must have the same
/// dtypes), all into one queue.
std::vector<Output> batch_join(const std::vector<std::vector<Output>>& tensors_list,
                               const BatchOptions& options);

/// `tf.train.shuffle_batch`: like `batch` through a RandomShuffleQueue.
std::vector<Output> shuffle_batch(const std::vector<Output>& tensors,
                                  const ShuffleBatchOptions& options);

/// `tf.train.shuffle_batch_join`.
std::vector<Output> shuffle_batch_join(const std::vector<std::vector<Output>>& tensors_list,
                                       const ShuffleBatchOptions& options);

}  // namespace af
