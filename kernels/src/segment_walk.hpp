#pragma once

// What the kernels of the sorted segment reductions share (sparse_segment_ops.cpp,
// segment_reduction_ops.cpp): TensorFlow's walk over runs of equal segment ids.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// TensorFlow's walk of sorted segment ids (SegmentReductionOp, SparseSegmentReductionOpBase):
/// calls `reduce(out_row, begin, end)` (returning a Status) for each run of equal ids
/// [begin, end), and `fill(from, to)` for the output rows no id names, up to `output_rows`.
/// Returns the first error, TensorFlow's text: "segment ids are not increasing", "Segment id 4
/// out of range [0, 3), possibly because 'segment_ids' input is not sorted.", or reduce's.
/// `ids` must not be empty.
template <class Reduce, class Fill>
Status for_each_segment(const std::vector<std::int64_t>& ids, std::int64_t output_rows,
                        Reduce&& reduce, Fill&& fill) {
  const auto n = static_cast<std::int64_t>(ids.size());
  std::int64_t start = 0, end = 1, uninitialized = 0, out_index = ids[0];
  for (;;) {
    std::int64_t next = 0;
    if (end < n) {
      next = ids[static_cast<std::size_t>(end)];
      if (out_index == next) {
        ++end;
        continue;
      }
      if (!(out_index < next)) return invalid_argument("segment ids are not increasing");
    }
    if (out_index < 0 || out_index >= output_rows)
      return invalid_argument("Segment id " + std::to_string(out_index) + " out of range [0, " +
                              std::to_string(output_rows) +
                              "), possibly because 'segment_ids' input is not sorted.");
    if (out_index > uninitialized) fill(uninitialized, out_index);
    ACTORFLOW_RETURN_IF_ERROR(reduce(out_index, start, end));
    start = end;
    ++end;
    uninitialized = out_index + 1;
    out_index = next;
    if (end > n) break;
  }
  if (uninitialized < output_rows) fill(uninitialized, output_rows);
  return {};
}

}  // namespace af::detail
