#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Segment reductions (TensorFlow's `tf.sparse.segment_*` and `tf.math.segment_*` /
/// `tf.math.unsorted_segment_*`, math_ops.cc): the sparse ones are what
/// `embedding_lookup_sparse` combines the rows of one example with. Sorted segment ids give
/// an output of `last id + 1` rows, rows no id names being 0 (1 for `segment_prod`); unsorted
/// ids give `num_segments` rows, rows no id names holding the reduction's initial value (0,
/// 1, or the type's lowest / highest value for max / min), and rows with a negative id are
/// dropped. Running fails with TensorFlow's texts: "segment ids are not increasing",
/// "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.",
/// "segment ids must be >= 0", "Bad: indices[1] == 12 out of range [0, 12)", "segment_ids
/// and indices should have same size.", "indices should be a vector.", "segment_ids[2] = 5 is
/// out of range [0, 3)", "Input num_segments == -1 must not be negative.".
namespace af {

/// `tf.sparse.segment_sum`: op SparseSegmentSum, output row `s` = the sum of
/// `data[indices[i]]` over the i with `segment_ids[i] == s` (indices and segment ids int32 or
/// int64, `[N]`; data float32 or float64). Its gradient is SparseSegmentSumGrad.
Output sparse_segment_sum(const Output& data, const Output& indices, const Output& segment_ids,
                          std::string_view name = {});
/// `tf.sparse.segment_mean`: op SparseSegmentMean, the sum divided by the segment's size
/// (multiplied by 1/n below 10 rows, divided by n from 10, as TensorFlow). Gradient:
/// SparseSegmentMeanGrad.
Output sparse_segment_mean(const Output& data, const Output& indices, const Output& segment_ids,
                           std::string_view name = {});
/// `tf.sparse.segment_sqrt_n`: op SparseSegmentSqrtN, the sum divided by the square root of
/// the segment's size. Gradient: SparseSegmentSqrtNGrad. With the attr `sparse_gradient` (set
/// by TensorFlow 2's `sparse_gradient=True` and `embedding_lookup_sparse`) the gradient of
/// each of the three is SparseSegment*GradV2's IndexedSlices.
Output sparse_segment_sqrt_n(const Output& data, const Output& indices, const Output& segment_ids,
                             std::string_view name = {});
/// The gradient ops (`tf.raw_ops.SparseSegment{Sum,Mean,SqrtN}Grad`): output `[output_dim0] +
/// grad.shape[1:]`, row `indices[i]` getting `grad[segment_ids[i]]` scaled as the forward op
/// scaled it (rows named twice get the sum). `kind` is "Sum", "Mean" or "SqrtN"; `output_dim0`
/// an int32 scalar. Errors: "Index 12 out of range [0, 12).", "Segment id 3 out of range [0,
/// 3).", "Invalid number of segments".
Output sparse_segment_reduction_grad(std::string_view kind, const Output& grad,
                                     const Output& indices, const Output& segment_ids,
                                     const Output& output_dim0, std::string_view name = {});
/// The sparse gradient ops (`tf.raw_ops.SparseSegment{Sum,Mean,SqrtN}GradV2`, what the
/// gradient of a reduction with the attr `sparse_gradient` builds; default name
/// "SparseSegment<kind>GradV2"): output 0 is `[U] + grad.shape[1:]`, output 1 the U sorted
/// unique `indices` (their dtype). Row k of output 0 is row `sorted_unique_indices[k]` of what
/// `sparse_segment_reduction_grad` would give with `dense_output_dim0` rows, so the pair is
/// that gradient as IndexedSlices. `kind` is "Sum", "Mean" or "SqrtN" (another throws
/// InvalidArgumentError); `grad` float32 or float64 of rank at least 1, `indices` and
/// `segment_ids` int32 or int64 vectors of one length, `dense_output_dim0` an int32 scalar.
/// Running fails with TensorFlow's texts: "dense_output_dim0 should be a scalar.", "Expected
/// a non-negative size, got -1", "Invalid number of segments", "Index 5 out of range [0, 5).",
/// "Segment id -1 out of range [0, 3).". Not differentiable.
Operation sparse_segment_reduction_grad_v2(std::string_view kind, const Output& grad,
                                           const Output& indices, const Output& segment_ids,
                                           const Output& dense_output_dim0,
                                           std::string_view name = {});
/// `tf.math.segment_sum`: op SegmentSum, output row `s` = the sum of the rows of `data` whose
/// sorted `segment_ids` (`[data.shape[0]]`) is `s`. Gradient: a gather of the gradient's
/// rows by segment id. Error: "segment_ids should be the same size as dimension 0 of input.".
Output segment_sum(const Output& data, const Output& segment_ids, std::string_view name = {});
/// `tf.math.segment_mean`: op SegmentMean (default name "SegmentMean"), output row `s` = the
/// mean of the rows of `data` (float32, float64, int32 or int64, at least a vector) whose
/// sorted `segment_ids` (int32 or int64, `[data.shape[0]]`) is `s`: the sum divided by the
/// count, integers truncating toward zero (-7 / 2 = -3); rows no id names are 0. Errors as
/// `segment_max`. Gradient (`_SegmentMeanGrad`): the gradient's row of each id divided by its
/// segment's size.
Output segment_mean(const Output& data, const Output& segment_ids, std::string_view name = {});
/// `tf.math.segment_max`: op SegmentMax (default name "SegmentMax"), output row `s` = the
/// element-wise maximum of the rows whose sorted id is `s`; rows no id names are 0. A scalar
/// `data` throws InvalidArgumentError ("Shape must be at least rank 1 but is rank 0");
/// running fails with "segment_ids should be the same size as dimension 0 of input.",
/// "segment ids are not increasing", "Segment id -1 out of range [0, 4), possibly because
/// 'segment_ids' input is not sorted." or "segment ids must be >= 0". Gradient
/// (`_SegmentMinOrMaxGrad`): each segment's gradient shared equally among the elements equal
/// to its maximum.
Output segment_max(const Output& data, const Output& segment_ids, std::string_view name = {});
/// `tf.math.segment_min`: op SegmentMin (default name "SegmentMin"), the element-wise minimum;
/// rows no id names are 0. Errors and gradient as `segment_max`.
Output segment_min(const Output& data, const Output& segment_ids, std::string_view name = {});
/// `tf.math.segment_prod`: op SegmentProd (default name "SegmentProd"), the element-wise
/// product (integers wrap around); rows no id names are 1. Errors as `segment_max`. Gradient
/// (TensorFlow 2.x's `_SegmentProdGrad`): the product of the segment's other elements, exact
/// with zeros (0 for every element of a segment holding two zeros or more).
Output segment_prod(const Output& data, const Output& segment_ids, std::string_view name = {});

/// `tf.math.unsorted_segment_max`: op UnsortedSegmentMax (default name "UnsortedSegmentMax"),
/// output `[num_segments] + data.shape[rank(segment_ids):]`, row `s` = the element-wise
/// maximum of the rows of `data` (float32, float64, int32 or int64; its leading dims are
/// `segment_ids.shape`) whose id is `s`, in any order; rows with a negative id are dropped,
/// rows no id names hold the type's lowest value (-3.4028235e38 for float32, not -inf).
/// `segment_ids` and the scalar `num_segments` are int32 or int64. Shapes known while building
/// that disagree throw InvalidArgumentError ("Dimensions must be equal, but are 3 and 2",
/// "Dimension size, given by scalar input 2, must be non-negative but is -1"); running fails
/// with "segment_ids[2] = 5 is out of range [0, 3)", "data.shape = [3] does not start with
/// segment_ids.shape = [2]" or "Input num_segments == -1 must not be negative.". Gradient
/// (`_UnsortedSegmentMinOrMaxGrad`): each segment's gradient shared equally among the
/// elements equal to its maximum, none for the dropped rows.
Output unsorted_segment_max(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name = {});
/// `tf.math.unsorted_segment_max` with `num_segments` as the Const "<op>/num_segments" (int32
/// unless it needs int64).
Output unsorted_segment_max(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name = {});
/// `tf.math.unsorted_segment_min`: op UnsortedSegmentMin (default name "UnsortedSegmentMin"),
/// the element-wise minimum; rows no id names hold the type's highest value (3.4028235e38 for
/// float32). Errors and gradient as `unsorted_segment_max`.
Output unsorted_segment_min(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name = {});
/// `tf.math.unsorted_segment_min` with `num_segments` as the Const "<op>/num_segments".
Output unsorted_segment_min(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name = {});
/// `tf.math.unsorted_segment_prod`: op UnsortedSegmentProd (default name
/// "UnsortedSegmentProd"), the element-wise product (integers wrap around); rows no id names
/// are 1. Errors as `unsorted_segment_max`. Gradient (`_UnsortedSegmentProdGrad`): the product
/// of the segment's other elements, exact with zeros, none for the dropped rows.
Output unsorted_segment_prod(const Output& data, const Output& segment_ids,
                             const Output& num_segments, std::string_view name = {});
/// `tf.math.unsorted_segment_prod` with `num_segments` as the Const "<op>/num_segments".
Output unsorted_segment_prod(const Output& data, const Output& segment_ids,
                             std::int64_t num_segments, std::string_view name = {});

}  // namespace af
