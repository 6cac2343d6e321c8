#pragma once

#include "actorflow/ops/graph.hpp"

namespace af {

/// `tf.SparseTensor`: the non-zero elements of a tensor of shape `dense_shape`, as outputs of
/// a graph. `indices` is int64 `[N, rank]` (row-major order for the ops that need it, as in
/// TensorFlow), `values` `[N]`, `dense_shape` int64 `[rank]`.
///
/// Example: a batch of 3 examples with the ids {1, 3, 3}, {} and {9, 0}:
///
///   af::SparseTensor ids{g.constant(Tensor::from_vector<std::int64_t>(
///                            {0, 0, 0, 1, 0, 2, 2, 0, 2, 1}, Shape{5, 2})),
///                        g.constant(Tensor::from_vector<std::int64_t>({1, 3, 3, 9, 0})),
///                        g.constant(Tensor::from_vector<std::int64_t>({3, 3}))};
struct SparseTensor {
  Output indices;      ///< int64 `[N, rank]`: where each value is
  Output values;       ///< `[N]`: the values
  Output dense_shape;  ///< int64 `[rank]`: the dense tensor's shape

  /// True when the three outputs are set.
  bool valid() const noexcept { return indices.valid() && values.valid() && dense_shape.valid(); }
};

}  // namespace af
