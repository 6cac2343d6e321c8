#pragma once

#include <string_view>
#include <variant>

#include "actorflow/ops/graph.hpp"

namespace af {

/// TensorFlow's `tf.IndexedSlices`: the rows of a tensor that are not zero, as a gradient of a
/// gather or an embedding lookup is. It stands for the dense tensor of `dense_shape` in which
/// `dense[indices[i]] += values[i]` for every i: rows named twice are summed.
///
/// `values` has shape `[N, d1, ...]`, `indices` is an int32 or int64 vector of N rows and
/// `dense_shape`, when known, the int32 or int64 vector `[d0, d1, ...]` of the dense tensor.
struct IndexedSlices {
  Output values;       ///< the rows, `[N, d1, ...]`
  Output indices;      ///< which row of the dense tensor each is, `[N]`
  Output dense_shape;  ///< the dense tensor's shape; invalid when unknown

  /// True when values and indices are set.
  bool valid() const noexcept { return values.valid() && indices.valid(); }
  /// The values' dtype.
  DType dtype() const { return values.dtype(); }
  /// The op of the values (`IndexedSlices.op`): what gating and colocation follow.
  Operation op() const { return values.op(); }
};

/// Densifies `slices` as `tf.convert_to_tensor` does: `UnsortedSegmentSum(values, indices,
/// dense_shape[0])`, the duplicate rows summed. Logs TensorFlow's warning "Converting sparse
/// IndexedSlices to a dense Tensor with N elements. This may consume a large amount of
/// memory." when the constant dense shape has 100,000,000 elements or more, and "... of
/// unknown shape ..." when the shape is not constant. Throws InvalidArgumentError (Python's
/// ValueError) "Tensor conversion requested for IndexedSlices without dense_shape: ..." when
/// `dense_shape` is invalid.
Output to_dense(const IndexedSlices& slices, std::string_view name = {});

/// A gradient as the gradient walk hands it on: a dense tensor, or IndexedSlices (what
/// `tf.gradients` returns for a variable read by a gather). Default: none (TensorFlow's
/// None).
class Gradient {
 public:
  /// No gradient.
  Gradient() = default;
  /// A dense gradient; an invalid Output is no gradient.
  Gradient(Output dense) : value_(std::move(dense)) {}  // NOLINT: a Tensor is a gradient
  /// A sparse gradient.
  Gradient(IndexedSlices slices) : value_(std::move(slices)) {}  // NOLINT

  /// True unless this is no gradient.
  bool valid() const noexcept;
  /// True for IndexedSlices.
  bool is_slices() const noexcept { return std::holds_alternative<IndexedSlices>(value_); }
  /// The dense gradient; throws InvalidArgumentError when `is_slices()` (use `to_dense()`).
  const Output& dense() const;
  /// The slices; throws InvalidArgumentError unless `is_slices()`.
  const IndexedSlices& slices() const;
  /// The gradient as a dense tensor: `dense()`, or `af::to_dense(slices())` (which builds
  /// ops; see there). An invalid Output for no gradient.
  Output to_dense(std::string_view name = {}) const;
  /// The dtype of the values.
  DType dtype() const;
  /// The op producing the values.
  Operation op() const;

 private:
  std::variant<Output, IndexedSlices> value_;
};

}  // namespace af
