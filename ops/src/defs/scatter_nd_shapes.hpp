#pragma once

// TensorFlow's ScatterNdShapeHelper, shared by the shape functions of ScatterNd and
// TensorScatter* (gather_nd_ops.cpp, which defines it) and of the N-d variable updates
// (scatter_nd_variable_ops.cpp). Private to the ops module.
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"

namespace af::detail {

/// InvalidArgument with TensorFlow's messages unless `updates` can be
/// `indices.shape[:-1] + output.shape[K:]` (K = indices' last dimension) where the shapes are
/// known, or when a known-empty `output` gets indices or updates ("Indices and updates
/// specified for empty input"). Index rows longer than the output's rank leave an empty
/// suffix, as TensorFlow's Subshape clamps.
Status check_scatter_nd_shapes(const PartialShape& indices, const PartialShape& updates,
                               const PartialShape& output);

}  // namespace af::detail
