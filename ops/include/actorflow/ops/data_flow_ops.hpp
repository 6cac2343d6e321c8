#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/indexed_slices.hpp"

/// Gradient accumulators (TensorFlow's `tf.ConditionalAccumulator`, data_flow_ops.py), the
/// building block of `af::train::SyncReplicasOptimizer`.
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

}  // namespace af
