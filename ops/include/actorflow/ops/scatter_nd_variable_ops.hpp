#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Updates of a variable by N-dimensional indices (TensorFlow's `tf.compat.v1.scatter_nd_*`,
/// `ResourceScatterNd*`, state_ops.cc and scatter_nd_op.cc), their tensor twin
/// `ScatterNdNonAliasingAdd`, and the sparse segment reductions with a given number of
/// segments (`tf.sparse.segment_*(..., num_segments=)`).
///
/// `indices` (int32 or int64) has shape `batch + [K]`, 1 <= K <= 7: each innermost row names
/// the slice `ref[i0, ..., iK-1]` of shape `ref.shape[K:]`; `updates` has shape `batch +
/// ref.shape[K:]`. The rows are applied in order: a slice named twice is updated twice (the
/// last update wins; Add adds both). Each variable update is built colocated with its
/// variable and runs under the variable's lock (`use_locking` is recorded on the node as in
/// TensorFlow; actorflow always locks).
///
/// Shapes known while building are checked then (InvalidArgumentError, TensorFlow's
/// ScatterNdShapeHelper texts: "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match
/// dimensions [0,1) of updates[shape=[3,2]] = [3]: Dimension 0 in both shapes must be equal,
/// but are 2 and 3. Shapes are [2] and [3]."). Running checks them again before anything is
/// written, so a mismatch leaves the variable as it was: "Output must be at least 1-D, got
/// shape: []", "Indices and updates specified for empty output.  indices shape: [1,1]",
/// "Dimensions [0,1) of indices[shape=[2,1]] = 2 must match dimensions [0,1) of
/// updates[shape=[3,2]] = 3", "Dimensions [1,2) of input[shape=[3,2]] must match dimensions
/// [1,2) of updates[shape=[2,3]]", "Only indices.shape[-1] values between 1 and 5 are currently
/// supported.  Requested rank: 8". A row out of range is skipped, the others are written, and
/// the step then fails naming the last such row: "indices[1] = [4] does not index into shape
/// [3,2]" (TensorFlow's CPU kernel does the same; the attr `bad_indices_policy` "IGNORE" skips
/// them without failing). A vector `indices` (only reachable when its shape is unknown while
/// building) is read as TensorFlow reads it: one row, its first index, with the first row of
/// `updates`.
///
/// An uninitialized reference variable fails with FailedPrecondition "Attempting to use
/// uninitialized value NAME", a resource variable never assigned with NotFound "Resource
/// localhost/NAME/N10tensorflow3VarE does not exist.", a resource variable of another dtype
/// with InvalidArgument "Trying to access resource NAME as int32 but it holds float"
/// (TensorFlow's kernel aborts the process there).
namespace af {

/// `tf.compat.v1.scatter_nd_update(ref, indices, updates)`: op ScatterNdUpdate (default name
/// "ScatterNdUpdate"), the slices replaced. Outputs `ref`. Any dtype (strings, bools too).
/// Not differentiable (TensorFlow registers it so).
Output scatter_nd_update(const Output& ref, const Output& indices, const Output& updates,
                         bool use_locking = true, std::string_view name = {});
/// `tf.compat.v1.scatter_nd_add`: op ScatterNdAdd, `ref[...] += updates`. Outputs `ref`.
/// float32, float64, int32, int64, uint8 (wrapping), bfloat16. Not differentiable.
Output scatter_nd_add(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking = false, std::string_view name = {});
/// `tf.compat.v1.scatter_nd_sub`: op ScatterNdSub, `ref[...] -= updates`. Outputs `ref`.
/// Dtypes as `scatter_nd_add`. Not differentiable.
Output scatter_nd_sub(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking = false, std::string_view name = {});
/// `tf.raw_ops.ScatterNdMax`: op ScatterNdMax, `ref[...] = max(ref[...], updates)`. Outputs
/// `ref`. Dtypes as `scatter_nd_add`. No gradient.
Output scatter_nd_max(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking = false, std::string_view name = {});
/// `tf.raw_ops.ScatterNdMin`: op ScatterNdMin, `ref[...] = min(ref[...], updates)`. Outputs
/// `ref`. Dtypes as `scatter_nd_add`. No gradient.
Output scatter_nd_min(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking = false, std::string_view name = {});

/// `ResourceVariable.scatter_nd_update`: op ResourceScatterNdUpdate (default name
/// "ResourceScatterNdUpdate") on the variable behind `handle` (a VarHandleOp's output), attr
/// T the dtype of `updates`. No output; run it as a target. Any dtype.
Operation resource_scatter_nd_update(const Output& handle, const Output& indices,
                                     const Output& updates, bool use_locking = true,
                                     std::string_view name = {});
/// `ResourceVariable.scatter_nd_add`: op ResourceScatterNdAdd. Dtypes as `scatter_nd_add`.
Operation resource_scatter_nd_add(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking = true,
                                  std::string_view name = {});
/// `ResourceVariable.scatter_nd_sub`: op ResourceScatterNdSub.
Operation resource_scatter_nd_sub(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking = true,
                                  std::string_view name = {});
/// `ResourceVariable.scatter_nd_max`: op ResourceScatterNdMax.
Operation resource_scatter_nd_max(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking = true,
                                  std::string_view name = {});
/// `ResourceVariable.scatter_nd_min`: op ResourceScatterNdMin.
Operation resource_scatter_nd_min(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking = true,
                                  std::string_view name = {});

/// `tf.raw_ops.ScatterNdNonAliasingAdd(input, indices, updates)`: op ScatterNdNonAliasingAdd
/// (default name "ScatterNdNonAliasingAdd"), a copy of `input` (at least a vector) plus the
/// scattered `updates`; `input` is never written. float32, float64, int32, int64, uint8,
/// bfloat16, bool (a logical or). Checks and messages as the variable updates. Gradient
/// (`_ScatterNdNonAliasingAddGrad`): the output's gradient for `input`, a GatherNd of it for
/// `updates`.
Output scatter_nd_non_aliasing_add(const Output& input, const Output& indices,
                                   const Output& updates, std::string_view name = {});

/// `tf.sparse.segment_sum(data, indices, segment_ids, num_segments)`: op
/// SparseSegmentSumWithNumSegments (default name "SparseSegmentSumWithNumSegments"), output
/// `[num_segments] + data.shape[1:]`, row `s` = the sum of `data[indices[i]]` over the i with
/// `segment_ids[i] == s` (sorted), rows no id names 0. `indices` and `segment_ids` are int32
/// or int64 vectors of one length, `num_segments` an int32 or int64 scalar; `data` float32,
/// float64, int32 or int64. A constant negative `num_segments` throws InvalidArgumentError
/// "Cannot specify a negative value for num_segments". Running fails with TensorFlow's texts:
/// "num_segments should be a scalar, not shape [1]", "segment ids must be >= 0" (a negative
/// `num_segments`), "segment ids must be < num_segments", "segment ids are not increasing",
/// "Segment id -1 out of range [0, 3), possibly because 'segment_ids' input is not sorted.",
/// "Bad: indices[1] == 4 out of range [0, 4)", "indices should be a vector.", "segment_ids
/// and indices should have same size.". Gradient: SparseSegmentSumGrad of the output's
/// gradient with `data`'s rows (with the attr `sparse_gradient`,
/// SparseSegmentSumGradV2's IndexedSlices of data's shape, as TensorFlow).
Output sparse_segment_sum_with_num_segments(const Output& data, const Output& indices,
                                            const Output& segment_ids, const Output& num_segments,
                                            std::string_view name = {});
/// As above with `num_segments` a Const "<op>/num_segments" (int32 unless it needs int64).
Output sparse_segment_sum_with_num_segments(const Output& data, const Output& indices,
                                            const Output& segment_ids, std::int64_t num_segments,
                                            std::string_view name = {});
/// `tf.sparse.segment_mean(..., num_segments)`: op SparseSegmentMeanWithNumSegments, the sum
/// divided by the segment's size (multiplied by 1/n below 10 rows, divided by n from 10, as
/// TensorFlow). `data` float32 or float64 (another dtype throws InvalidArgumentError "Value
/// for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float,
/// double"). Errors as the sum. Gradient: SparseSegmentMeanGrad.
Output sparse_segment_mean_with_num_segments(const Output& data, const Output& indices,
                                             const Output& segment_ids, const Output& num_segments,
                                             std::string_view name = {});
/// As above with `num_segments` a Const "<op>/num_segments".
Output sparse_segment_mean_with_num_segments(const Output& data, const Output& indices,
                                             const Output& segment_ids, std::int64_t num_segments,
                                             std::string_view name = {});
/// `tf.sparse.segment_sqrt_n(..., num_segments)`: op SparseSegmentSqrtNWithNumSegments, the
/// sum divided by the square root of the segment's size. Dtypes and errors as the mean.
/// Gradient: SparseSegmentSqrtNGrad.
Output sparse_segment_sqrt_n_with_num_segments(const Output& data, const Output& indices,
                                               const Output& segment_ids,
                                               const Output& num_segments,
                                               std::string_view name = {});
/// As above with `num_segments` a Const "<op>/num_segments".
Output sparse_segment_sqrt_n_with_num_segments(const Output& data, const Output& indices,
                                               const Output& segment_ids, std::int64_t num_segments,
                                               std::string_view name = {});

}  // namespace af
