#pragma once

// The sparse form of the gradients of SparseSegment{Sum,Mean,SqrtN} (math_grad.cpp) and
// SparseSegment{Sum,Mean,SqrtN}WithNumSegments (scatter_nd_variable_grad.cpp): math_grad.py's
// _SparseSegmentReduceGradV2, which TensorFlow builds when the op has the attr
// sparse_gradient (tf.sparse.segment_*(..., sparse_gradient=True), and
// tf.nn.embedding_lookup_sparse without weights in TensorFlow 2.x). Private to the ops
// module.
#include <string_view>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/indexed_slices.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

/// True when the sparse segment reduction `op` has the attr `sparse_gradient` set (TensorFlow's
/// `_GetOpAttrOrNone(op, "sparse_gradient")`; absent is false).
inline bool wants_sparse_segment_gradient(const Operation& op) {
  const auto v = op.node_def().attr<bool>("sparse_gradient");
  return v && *v;
}

/// `_SparseSegmentReduceGradV2(op, grad, norm)`: `data_shape = array_ops.shape(data)` ("Shape",
/// a Const when data's shape is fully defined), its `[0]` (StridedSlice "strided_slice"), and
/// SparseSegment<kind>GradV2 of `grad` with the op's indices and segment ids; returns
/// IndexedSlices of its output (the rows), its sorted unique indices, and data_shape as the
/// dense shape. Built in the caller's scope (the walk's `<op>_grad/`).
inline IndexedSlices sparse_segment_gradient_v2(const Operation& op, const Output& grad,
                                                std::string_view kind) {
  const Output data_shape = shape_of(input(op, 0), "Shape");
  const Output dim0 =
      strided_slice(data_shape, {0}, {1}, {1}, {.shrink_axis_mask = 1}, "strided_slice");
  const Operation v2 =
      sparse_segment_reduction_grad_v2(kind, grad, input(op, 1), input(op, 2), dim0);
  return IndexedSlices{v2.output(0), v2.output(1), data_shape};
}

}  // namespace af::detail
