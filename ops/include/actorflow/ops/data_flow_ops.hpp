#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/graph.hpp"

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

}  // namespace af
