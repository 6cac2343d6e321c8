#pragma once

// Byte forms of what a master ships to a worker: a partition plan (registered once per
// session and partition) and the per-step feeds and fetched values.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/execution_plan.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::net {

/// Encodes `plan` (node defs as GraphDef JSON, edges and types as integers).
std::string encode_partition(const PartitionPlan& plan);
/// Decodes a plan written by `encode_partition`; DataLoss or InvalidArgument on bad input,
/// including edges that point outside the partition.
Status decode_partition(std::string_view bytes, PartitionPlan* plan);

/// (index, tensor) pairs: the feeds a remote partition reads, or the fetches it produced.
std::string encode_indexed_tensors(const std::vector<std::pair<int, Tensor>>& values);
Status decode_indexed_tensors(std::string_view bytes, const std::string& what,
                              std::vector<std::pair<int, Tensor>>* values);

}  // namespace af::net
