#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Segment reductions over sorted segment ids (TensorFlow's `tf.sparse.segment_sum`,
/// `tf.math.segment_sum`, math_ops.cc): what `embedding_lookup_sparse` combines the rows of
/// one example with. Segment ids are sorted; the output has `last id + 1` rows, rows no id
/// names being 0. Running fails with TensorFlow's texts: "segment ids are not increasing",
/// "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.",
/// "Bad: indices[1] == 12 out of range [0, 12)", "segment_ids and indices should have same
/// size.", "indices should be a vector.".
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
/// the segment's size. Gradient: SparseSegmentSqrtNGrad.
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
/// `tf.math.segment_sum`: op SegmentSum, output row `s` = the sum of the rows of `data` whose
/// sorted `segment_ids` (`[data.shape[0]]`) is `s`. Gradient: a gather of the gradient's
/// rows by segment id. Error: "segment_ids should be the same size as dimension 0 of input.".
Output segment_sum(const Output& data, const Output& segment_ids, std::string_view name = {});

}  // namespace af
