#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/indexed_slices.hpp"

/// Gradient accumulators (TensorFlow's `tf.ConditionalAccumulator`, data_flow_ops.py), the
/// building block of `af::train::SyncReplicasOptimizer`, staging areas
/// (data_flow_ops.StagingArea) and barriers (data_flow_ops.Barrier).
namespace af {

/// Options of `ConditionalAccumulator` (the Python constructor's arguments).
struct ConditionalAccumulatorOptions {
  /// The gradients' shape; unknown dimensions accept any size (the first gradient fixes it
  /// until the next take).
  PartialShape shape;
  /// Sessions (and, on a cluster, worker clients) share the accumulator by (container,
  /// shared_name); empty = private to each session.
  std::string shared_name;
  /// The accumulator op's name.
  std::string name = "conditional_accumulator";
  /// "MEAN" (the default: the sum divided by the number of gradients taken) or "SUM".
  std::string reduction_type = "MEAN";
};

/// `tf.ConditionalAccumulator`: aggregates gradients tagged with the step they were computed
/// at. A gradient whose `local_step` is below the accumulator's global step is stale and
/// silently dropped; `take_grad(n)` waits until at least `n` gradients are in, returns their
/// average (or sum), resets the count and increments the accumulator's global step. Takes
/// complete in the order they came; a step's cancellation or deadline ends a waiting take
/// (Cancelled "TakeGrad operation was cancelled" / DeadlineExceeded) without consuming the
/// gradients. The accumulator lives on the device of its op, with variables: on a cluster,
/// every session of that task with the same shared name uses the same accumulator.
class ConditionalAccumulator {
 public:
  /// Adds the accumulator op (`ConditionalAccumulator`, attrs dtype, shape, container,
  /// shared_name, reduction_type) to `g`. Throws InvalidArgumentError for a dtype other than
  /// float16/32/64 or a reduction type other than MEAN / SUM.
  ConditionalAccumulator(Graph& g, DType dtype, ConditionalAccumulatorOptions options = {});

  /// The accumulator handle (TensorFlow's `accumulator_ref`).
  Output accumulator_ref() const noexcept { return handle_; }
  /// The gradients' dtype.
  DType dtype() const noexcept { return dtype_; }
  /// The declared gradient shape.
  const PartialShape& shape() const noexcept { return shape_; }
  /// The accumulator op's name.
  std::string name() const { return handle_.node()->name(); }

  /// Op AccumulatorApplyGradient: adds `grad` when `local_step` (cast to int64) is not
  /// stale. InvalidArgument at run time when the shape differs from the declared one or from
  /// the gradients already in ("Shape mismatch: expected [2], got [3]").
  Operation apply_grad(const Output& grad, const Output& local_step,
                       std::string_view name = {}) const;
  /// As above with `local_step` as a constant (default 0, as in Python).
  Operation apply_grad(const Output& grad, std::int64_t local_step = 0,
                       std::string_view name = {}) const;
  /// Op AccumulatorTakeGradient: waits for `num_required` (int32, > 0) gradients, then
  /// outputs their average (see the class comment). InvalidArgument "Argument num_required
  /// must be positive, but was 0" otherwise.
  Output take_grad(const Output& num_required, std::string_view name = {}) const;
  /// As above with a constant count.
  Output take_grad(std::int32_t num_required, std::string_view name = {}) const;
  /// Op AccumulatorSetGlobalStep: sets the accumulator's global step (a smaller value logs a
  /// warning, as TensorFlow).
  Operation set_global_step(const Output& new_global_step, std::string_view name = {}) const;
  /// Op AccumulatorNumAccumulated: the number of gradients in (int32 scalar).
  Output num_accumulated(std::string_view name = {}) const;

 private:
  Output handle_;
  DType dtype_;
  PartialShape shape_;
};

/// A sparse gradient accumulator (TensorFlow's `tf.SparseConditionalAccumulator`): sums
/// IndexedSlices gradients, e.g. an embedding's, for SyncReplicasOptimizer.
///
/// As the dense one, it drops gradients older than its global step and a take waits for
/// `num_required` of them. The sum is TensorFlow's: the first gradient as it is, each later
/// one merge-joined with the sum (indices assumed ascending, as TensorFlow assumes; equal
/// indices met at the same point are added, every other row is kept, so duplicates remain
/// and their sum is still right); MEAN divides each row by the number of gradients that
/// reached it. A take outputs indices, values and the dense shape, whose first dimension is
/// the declared one (-1 when the declared shape is `()`, as SyncReplicasOptimizer declares
/// it) and whose others are the values'. Example (TensorFlow's test): slices ([0,1],
/// [[1,0],[0,2]]) and ([0,2], [[0,1],[3,0]]) take as indices [0,1,2], MEAN values
/// [[0.5,0.5],[0,2],[3,0]], shape [-1,2].
class SparseConditionalAccumulator {
 public:
  /// Adds the accumulator op (`SparseConditionalAccumulator`, the attrs of
  /// ConditionalAccumulator) to `g`. Throws InvalidArgumentError for a dtype other than
  /// bfloat16/float32/float64 or a reduction type other than MEAN / SUM.
  SparseConditionalAccumulator(Graph& g, DType dtype, ConditionalAccumulatorOptions options = {});

  /// The accumulator handle.
  Output accumulator_ref() const noexcept { return handle_; }
  /// The values' dtype.
  DType dtype() const noexcept { return dtype_; }
  /// The declared dense shape.
  const PartialShape& shape() const noexcept { return shape_; }
  /// The accumulator op's name.
  std::string name() const { return handle_.node()->name(); }

  /// Op SparseAccumulatorApplyGradient of `grad` (indices cast to int64; the dense shape,
  /// when `grad` has one, checked against the declared shape: `has_known_shape`). Fails at
  /// run time with TensorFlow's texts: "Input indices should be vector but received shape:
  /// [2,1]", "Values cannot be 0-dimensional.", "Expected 2 non-empty input values, got 1",
  /// "Shape mismatch: index of slice 0 exceeded limits of shape; index is 3 exceeded 2",
  /// "Shape mismatch: expected values dim 1 to be 2, got 3", ...
  Operation apply_indexed_slices_grad(const IndexedSlices& grad, const Output& local_step,
                                      std::string_view name = {}) const;
  /// As above with `local_step` as a constant (default 0).
  Operation apply_indexed_slices_grad(const IndexedSlices& grad, std::int64_t local_step = 0,
                                      std::string_view name = {}) const;
  /// Op SparseAccumulatorTakeGradient: waits for `num_required` (int32, > 0) gradients and
  /// returns their sum or mean as slices (indices, values, dense shape).
  IndexedSlices take_indexed_slices_grad(const Output& num_required,
                                         std::string_view name = {}) const;
  /// As above with a constant count.
  IndexedSlices take_indexed_slices_grad(std::int32_t num_required,
                                         std::string_view name = {}) const;
  /// Op AccumulatorSetGlobalStep on this accumulator.
  Operation set_global_step(const Output& new_global_step, std::string_view name = {}) const;
  /// Op AccumulatorNumAccumulated on this accumulator (int32 scalar).
  Output num_accumulated(std::string_view name = {}) const;

 private:
  Output handle_;
  DType dtype_;
  PartialShape shape_;
};

/// Options of `StagingArea` (the Python constructor's arguments).
struct StagingAreaOptions {
  /// Each component's static shape (empty: all unknown); a put of a value whose shape is
  /// incompatible is refused, and a get's outputs take them.
  std::vector<PartialShape> shapes;
  /// The name every op of the area shares it by (its ops' attr shared_name) and the prefix
  /// of their names; empty: the graph's unique name for "StagingArea".
  std::string shared_name;
  /// The most elements it holds (0: no limit); a put into a full area waits.
  std::int64_t capacity = 0;
  /// The most bytes its elements take (0: no limit); a put that would pass it waits, one
  /// larger than the limit fails.
  std::int64_t memory_limit = 0;
};

/// `data_flow_ops.StagingArea` (`tf.contrib.staging.StagingArea`): a FIFO of tuples of the
/// given dtypes, for overlapping a step's input transfer with the step before (put in one
/// step, get in the next). Its ops (Stage, Unstage, StagePeek, StageSize, StageClear) are
/// stateful and share the area by shared_name, in their device's resource container, each
/// colocated with the NoOp "<name>_root/NoOp" made with it. A get of an empty area, a peek
/// past its end and a put into a full one wait without holding a thread; the step's deadline
/// (DeadlineExceeded) or cancellation (Cancelled; "the Session has been closed" when it is)
/// ends the wait. A get whose step fails later puts its tuple back.
class StagingArea {
 public:
  /// Makes the area's colocation NoOp in `g`. Throws InvalidArgumentError when `shapes` is
  /// not as long as `dtypes` ("StagingArea shapes must be the same length as dtypes").
  StagingArea(Graph& g, std::vector<DType> dtypes, StagingAreaOptions options = {});

  /// `put(values)`: op Stage named `name` (default "<name>_put"). Throws InvalidArgumentError
  /// for more values than dtypes ("Unexpected number of inputs 3 vs 2"), a value of another
  /// dtype ("Datatypes do not match. Received val.dtype int32 and dtype float32") or shape.
  /// Running fails with ResourceExhausted "Attempted to insert tensors with combined size of
  /// '80' bytes into Staging Area with a memory limit of '64'." for a tuple past the limit.
  Operation put(const std::vector<Output>& values, std::string_view name = {}) const;
  /// `get()`: op Unstage named `name` (default "<name>_get"), one output per dtype, with the
  /// area's shapes; it takes the oldest tuple. As TensorFlow's, it adds a NoOp ("NoOp") to
  /// probe the device scope, and outputs pass an Identity when that is not the area's.
  std::vector<Output> get(std::string_view name = {}) const;
  /// `peek(index)`: op StagePeek (default "<name>_peek"), a copy of tuple `index` (an int32
  /// scalar; 0 the oldest), waiting until the area holds it. Running fails with "index must be
  /// scalar" for another shape.
  std::vector<Output> peek(const Output& index, std::string_view name = {}) const;
  /// As above with `index` as the int32 Const "<op>/index".
  std::vector<Output> peek(std::int32_t index, std::string_view name = {}) const;
  /// `size()`: op StageSize (default "<name>_size"), the number of tuples, int32.
  Output size(std::string_view name = {}) const;
  /// `clear()`: op StageClear (default "<name>_clear"), which drops every tuple.
  Operation clear(std::string_view name = {}) const;

  /// The area's name (its shared_name).
  const std::string& name() const noexcept { return name_; }
  /// The components' dtypes.
  const std::vector<DType>& dtypes() const noexcept { return dtypes_; }

 private:
  AttrMap attrs() const;
  std::vector<Output> outputs_of(const Operation& op) const;

  Graph* graph_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
  std::string name_;
  std::int64_t capacity_;
  std::int64_t memory_limit_;
  Operation coloc_op_;
};

/// Options of `MapStagingArea` (the Python constructor's arguments).
struct MapStagingAreaOptions {
  /// As StagingAreaOptions::shapes.
  std::vector<PartialShape> shapes;
  /// As StagingAreaOptions::shared_name; empty: the graph's unique name for "MapStagingArea".
  std::string shared_name;
  /// Ordered: MapUnstageNoKey takes the smallest key (ops OrderedMap*); else any (ops Map*).
  bool ordered = false;
  /// The most complete tuples it holds (0: no limit); a complete put into a full area waits.
  std::int64_t capacity = 0;
  /// The most bytes its components take (0: no limit), as StagingAreaOptions::memory_limit.
  std::int64_t memory_limit = 0;
};

/// `data_flow_ops.MapStagingArea`: tuples staged under int64 keys. A put may give some of a
/// tuple's components (their `indices`); the tuple is incomplete (`incomplete_size`) until
/// every component came, then a get or peek of its key can take it. A get takes the given
/// components of its key's tuple (all by default; the key goes when none is left), or, without
/// a key, those of the first key (the smallest when `ordered`). Gets and peeks of a key not
/// yet complete, gets of an empty area and complete puts into a full one wait as
/// StagingArea's do (no thread held; the step's deadline or cancellation ends them; a get
/// whose step fails puts its components back). Each op is colocated with "<name>_root/NoOp";
/// index lists become int32 Consts "<op>/indices". Throws InvalidArgumentError as StagingArea
/// does, and for an index past the dtypes.
class MapStagingArea {
 public:
  /// Makes the area's colocation NoOp in `g`.
  MapStagingArea(Graph& g, std::vector<DType> dtypes, MapStagingAreaOptions options = {});

  /// `put(key, values, indices)`: op (Ordered)MapStage (default name "<name>_put"); `key` an
  /// int64 scalar, `indices` the components `values` are (empty: all, in order). Running
  /// fails with "The tensor for index '0' for key '3' was already initialized '2'." for a
  /// component given twice and with "Indices are not strictly ordered".
  Operation put(const Output& key, const std::vector<Output>& values, std::vector<int> indices = {},
                std::string_view name = {}) const;
  /// `peek(key, indices)`: op (Ordered)MapPeek (default name "<name>_pop", as TensorFlow's),
  /// copies of the components. Running fails with "Tensor at index '1' for key '3' has
  /// already been removed." for a component a get took.
  std::vector<Output> peek(const Output& key, std::vector<int> indices = {},
                           std::string_view name = {}) const;
  /// `get(key, indices)`: op (Ordered)MapUnstage (default "<name>_get"): `key` and the
  /// components.
  std::pair<Output, std::vector<Output>> get(const Output& key, std::vector<int> indices = {},
                                             std::string_view name = {}) const;
  /// `get(indices=...)` without a key: op (Ordered)MapUnstageNoKey (default
  /// "<name>_get_nokey"): the first key (int64) and its components.
  std::pair<Output, std::vector<Output>> get(std::vector<int> indices = {},
                                             std::string_view name = {}) const;
  /// `size()`: the complete tuples (int32), op (Ordered)MapSize ("<name>_size").
  Output size(std::string_view name = {}) const;
  /// `incomplete_size()`: the incomplete ones, op (Ordered)MapIncompleteSize.
  Output incomplete_size(std::string_view name = {}) const;
  /// `clear()`: drops every tuple, complete or not, op (Ordered)MapClear.
  Operation clear(std::string_view name = {}) const;

  /// The area's name (its shared_name).
  const std::string& name() const noexcept { return name_; }

 private:
  AttrMap attrs(const std::vector<DType>& dtypes) const;
  std::vector<int> all_or(std::vector<int> indices) const;
  Output indices_const(const std::string& op_name, const std::vector<int>& indices) const;
  std::vector<Output> take(const std::string& type, const Output* key, std::vector<int> indices,
                           const std::string& name, Output* key_out) const;

  Graph* graph_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
  std::string name_;
  std::string prefix_;
  std::int64_t capacity_;
  std::int64_t memory_limit_;
  Operation coloc_op_;
};

/// Options of `Barrier` (the Python constructor's arguments).
struct BarrierOptions {
  /// One fully defined shape per component; empty: unconstrained, which TensorFlow's kernel
  /// reads as scalars. A shape without elements is refused.
  std::vector<PartialShape> shapes;
  /// Sessions share the barrier by this name (its errors name it); empty: private to each
  /// session, named "_<n>_<op name>".
  std::string shared_name;
  /// The Barrier op's name.
  std::string name = "barrier";
};

/// What `Barrier::take_many` outputs: the insertion indices (int64 [n]), the keys (string
/// [n]) and one batch per component ([n] + its shape).
struct BarrierTake {
  Output indices;
  Output keys;
  std::vector<Output> values;
};

/// `data_flow_ops.Barrier`: a map from string keys to tuples whose components arrive
/// separately (`insert_many` of one component for many keys). A key whose every component has
/// come is complete and waits to be taken; `take_many` takes complete ones in the order their
/// keys first entered (a per-insert index from -2^63 up; equal indices in TensorFlow's heap
/// order), waiting without a thread until enough are complete. After `close` no new key may
/// enter, keys already there may still complete, and a take that could never be served fails
/// with OutOfRange ("Barrier 'b' is closed and has insufficient elements (requested 4, total
/// size 3)"); `close(true)` also drops the incomplete keys and refuses every insert. Unlike
/// TensorFlow's, a take already waiting when that becomes true fails then (TensorFlow's may
/// wait forever), one with `allow_small_batch` gets the complete keys there are (TensorFlow's
/// drops them), and a take whose step fails puts its elements back. A step's deadline or
/// cancellation ends a waiting take. The barrier lives on the CPU of its op's task.
class Barrier {
 public:
  /// Adds op Barrier (attrs component_types, shapes, capacity -1, container, shared_name)
  /// to `g`. Throws InvalidArgumentError for no types, a shape count other than the types',
  /// a shape not fully defined, or one without elements ("Empty tensors are not supported,
  /// but received shape '[0]' at index 1").
  Barrier(Graph& g, std::vector<DType> types, BarrierOptions options = {});

  /// The barrier handle (TensorFlow's `barrier_ref`).
  Output barrier_ref() const noexcept { return handle_; }
  /// The Barrier op's name.
  std::string name() const;
  /// The components' dtypes.
  const std::vector<DType>& types() const noexcept { return types_; }

  /// `insert_many(component_index, keys, values)`: op BarrierInsertMany (default name
  /// "<name>_BarrierInsertMany"): row i of `values` becomes component `component_index` of key
  /// `keys[i]`. Running fails with InvalidArgument "Key k already has a value for component 1
  /// in barrier b", "The component ID is out of range 3 > num_components (= 3)", a
  /// "Signature mismatch" for a dtype other than the component's, "Shape mismatch in tuple
  /// component 2. Expected [2], got [3]", "Tensors with no elements are not supported", and
  /// with Cancelled once closed ("Barrier b is closed, but attempted to insert a brand new key:
  /// k"). Keys before a failing one stay inserted, as in TensorFlow.
  Operation insert_many(int component_index, const Output& keys, const Output& values,
                        std::string_view name = {}) const;
  /// `take_many(num_elements, allow_small_batch)`: op BarrierTakeMany (default name
  /// "<name>_BarrierTakeMany"). Outputs have batch dimension `num_elements` when it is a
  /// constant and small batches are not allowed, else unknown. Running fails with
  /// InvalidArgument "TakeManyOp requested -1 < 0 elements" for a negative count.
  BarrierTake take_many(const Output& num_elements, bool allow_small_batch = false,
                        std::string_view name = {}) const;
  /// As above with the count as the int32 Const "<op>/num_elements".
  BarrierTake take_many(std::int32_t num_elements, bool allow_small_batch = false,
                        std::string_view name = {}) const;
  /// `close(cancel_pending_enqueues)`: op BarrierClose (default "<name>_BarrierClose").
  /// Closing twice fails with Cancelled "Barrier 'b' is already closed." unless the second
  /// close cancels and the first did not.
  Operation close(bool cancel_pending_enqueues = false, std::string_view name = {}) const;
  /// `ready_size()`: the complete keys, int32 (op BarrierReadySize).
  Output ready_size(std::string_view name = {}) const;
  /// `incomplete_size()`: the incomplete keys, int32 (op BarrierIncompleteSize).
  Output incomplete_size(std::string_view name = {}) const;

 private:
  std::string op_name(std::string_view name, const char* suffix) const;

  Graph* graph_;
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
  Output handle_;
};

}  // namespace af
