#pragma once

// What the kernels of the sorted segment reductions share (sparse_segment_ops.cpp,
// segment_reduction_ops.cpp, scatter_nd_variable_ops.cpp): TensorFlow's walk over runs of
// equal segment ids, and the reduction of one segment of a sparse segment reduction.
#include <cmath>
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

/// What a sparse segment reduction does with the rows of a segment.
enum class SegmentReduction { sum, mean, sqrtn };

/// SparseSegmentReductionOpBase's ReduceImpl: writes to `dst` (`row` elements) the reduction of
/// the rows `input[idx[i]]` (`row` elements each, of `rows`) for i in [start, end), a non-empty
/// segment. The rows are added in TensorFlow's order: a first group of n mod 8 rows (8 for a
/// multiple of 8, 9 for 1 mod 8, 1 for a single row), which the mean and sqrt-n multiply by
/// 1/n (1/sqrt(n)) below 10 rows, then groups of 8 each summed first; from 10 rows the mean and
/// sqrt-n divide the total by n (sqrt(n)). So the values are TensorFlow's to the bit. Fails
/// with "Bad: indices[1] == 12 out of range [0, 12)" (nothing written) for an index out of
/// range.
template <class T>
Status reduce_sparse_segment(SegmentReduction reduction, const T* input, std::int64_t rows,
                             std::int64_t row, const std::vector<std::int64_t>& idx,
                             std::int64_t start, std::int64_t end, T* dst) {
  const std::int64_t num = end - start;
  for (std::int64_t i = start; i < end; ++i)
    if (idx[static_cast<std::size_t>(i)] < 0 || idx[static_cast<std::size_t>(i)] >= rows)
      return invalid_argument("Bad: indices[" + std::to_string(i) +
                              "] == " + std::to_string(idx[static_cast<std::size_t>(i)]) +
                              " out of range [0, " + std::to_string(rows) + ")");
  auto at = [&](std::int64_t i, std::int64_t c) {
    return input[idx[static_cast<std::size_t>(i)] * row + c];
  };
  const std::int64_t first = num == 1 ? 1 : (num & 7) == 0 ? 8 : (num & 7) == 1 ? 9 : (num & 7);
  T scale(1);
  if (num < 10 && reduction == SegmentReduction::mean) scale = T(1) / T(num);
  if (num < 10 && reduction == SegmentReduction::sqrtn) scale = T(1) / T(std::sqrt(num));
  for (std::int64_t c = 0; c < row; ++c) {
    T v = at(start, c);
    for (std::int64_t k = 1; k < first; ++k) v = static_cast<T>(v + at(start + k, c));
    if (num > 1) v = static_cast<T>(v * scale);
    for (std::int64_t r = first; r < num; r += 8) {
      T block = at(start + r, c);
      for (std::int64_t k = 1; k < 8; ++k) block = static_cast<T>(block + at(start + r + k, c));
      v = static_cast<T>(v + block);
    }
    if (num >= 10 && reduction == SegmentReduction::mean) v = v / T(num);
    if (num >= 10 && reduction == SegmentReduction::sqrtn) v = v / T(std::sqrt(num));
    dst[c] = v;
  }
  return {};
}

}  // namespace af::detail
