#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Splitting a tensor's rows by partition and stitching rows back together (TensorFlow's
/// `tf.dynamic_partition` and `tf.dynamic_stitch`): how an embedding lookup sends each id to
/// the part of the table that holds it and puts the rows back in the ids' order.
namespace af {

/// `tf.dynamic_partition`: op DynamicPartition (default name "DynamicPartition"), the
/// `num_partitions` tensors of the rows of `data` whose `partitions` entry (int32, a prefix
/// of data's shape) is i, in their order. Output i has shape `[n_i] + data.shape[rank(
/// partitions):]`. Running it fails with InvalidArgument "partitions[2] = 5 is not in [0, 2)"
/// and "data.shape must start with partitions.shape, got data.shape = [3,2], partitions.shape
/// = [2]".
std::vector<Output> dynamic_partition(const Output& data, const Output& partitions,
                                      std::int64_t num_partitions, std::string_view name = {});

/// `tf.dynamic_stitch`: op DynamicStitch (default name "DynamicStitch"), the tensor whose
/// row `indices[m][i]` is `data[m][i]` (a later m wins for an index named twice), of
/// `max(indices) + 1` rows of `data[0].shape[rank(indices[0]):]`. `indices` are int32. The
/// gradient gathers the output's gradient by each `indices[m]`. Running it fails with
/// InvalidArgument "data[1].shape = [3] does not start with indices[1].shape = [2]" and
/// "indices[1] = -1 is out of range".
Output dynamic_stitch(const std::vector<Output>& indices, const std::vector<Output>& data,
                      std::string_view name = {});

/// `tf.parallel_dynamic_stitch` (op ParallelDynamicStitch): as `dynamic_stitch`; which of
/// several values of one index wins is unspecified.
Output parallel_dynamic_stitch(const std::vector<Output>& indices, const std::vector<Output>& data,
                               std::string_view name = {});

}  // namespace af
