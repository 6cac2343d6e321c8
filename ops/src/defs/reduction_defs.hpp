#pragma once

// What the definitions of the reductions share: TensorFlow's ReductionShape
// (common_shape_fns.cc), which the shape functions of the reductions (reduction_ops.cpp),
// ReduceJoin (string_ops.cpp) and EuclideanNorm (math_special_ops.cpp) run after checking their
// own types, and the graph builder of the reductions and EuclideanNorm (defined in
// reduction_ops.cpp). Private to the ops module.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::detail {

/// "Shape must be at most rank 1 but is rank N" for reduction indices of a known rank above 1.
inline Status check_reduction_indices_shape(const PartialShape& indices_shape) {
  if (indices_shape.rank_known() && indices_shape.rank() > 1)
    return invalid_argument("Shape must be at most rank 1 but is rank " +
                            std::to_string(indices_shape.rank()));
  return {};
}

/// Adds the output of element type `t`: with the reduction indices' values (input 1) and the
/// input's rank known, the input's shape without (keep_dims: with 1 for) the reduced
/// dimensions; else a shape of the input's rank (keep_dims) or unknown. InvalidArgument for an
/// index outside [-rank, rank).
inline Status add_reduction_output(InferenceContext& c, DType t) {
  bool keep_dims = false;
  c.get_attr("keep_dims", &keep_dims);
  const PartialShape& in = c.input_shapes[0];
  const Tensor* indices = c.input_values[1];
  if (indices == nullptr || !in.rank_known()) {
    c.add_output(t, keep_dims && in.rank_known() ? PartialShape::unknown_of_rank(in.rank())
                                                 : PartialShape::unknown());
    return {};
  }
  const int rank = in.rank();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (std::int64_t axis : index_values(*indices)) {
    if (axis < -rank || axis >= rank)
      return invalid_argument("Invalid reduction dimension " + std::to_string(axis) +
                              " for input with " + std::to_string(rank) + " dimensions.");
    reduced[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = true;
  }
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<std::size_t>(d)])
      dims.push_back(in.dim(d));
    else if (keep_dims)
      dims.push_back(1);
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

/// The reduction op `type` (Sum, Mean, Max, Min, Prod, Any, All or EuclideanNorm) of `x` over
/// `axes`, as tf.math.reduce_*: without axes over all of x's (known) rank, a Const of
/// range(rank) beside the op; else the int32 Const "<op>/reduction_indices".
Output reduction_op(const char* type, const Output& x,
                    const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                    std::string_view name);

}  // namespace af::detail
