#pragma once

// What the kernels of SparseTensor indices share: SparseTensor::IndicesValid
// (util/sparse/sparse_tensor.cc) in the standard (row-major) order with TensorFlow's messages
// (SparseToDense in sparse_ops.cpp, set_ops.cpp, sparse_serialize_ops.cpp, CTCLoss in
// seq_ctc_ops.cpp), and ReshapeSparseTensor's rewriting of index rows (SparseReshape in
// sparse_ops.cpp, DeserializeManySparse in sparse_serialize_ops.cpp). Private to the kernels
// module.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "kernel_helpers.hpp"

namespace af::detail::sparse {

/// Every one of the `nnz` index rows of `ix` (row-major, shape.size() coordinates each)
/// inside `shape`, the rows strictly increasing; else InvalidArgument naming the first row
/// that is not: "indices[1] = [2,0] is out of bounds: need 0 <= index < [2,1]", "... is out
/// of order. Many sparse ops require sorted indices. ...", "... is repeated".
inline Status indices_valid(const std::int64_t* ix, std::int64_t nnz,
                            const std::vector<std::int64_t>& shape) {
  const auto dims = static_cast<std::int64_t>(shape.size());
  for (std::int64_t n = 0; n < nnz; ++n) {
    bool valid = true, increasing = true, different = n == 0;
    for (std::int64_t d = 0; d < dims; ++d) {
      const std::int64_t v = ix[n * dims + d];
      if (v < 0 || v >= shape[static_cast<std::size_t>(d)]) valid = false;
      if (n == 0) continue;
      const std::int64_t diff = v - ix[(n - 1) * dims + d];
      if (diff > 0) different = true;
      if (!different && diff < 0) increasing = false;
    }
    if (valid && increasing && different) continue;
    // "indices[2] = [1,0]": TensorFlow closes the bracket after the last coordinate only.
    std::string index = "indices[" + std::to_string(n) + "] = [";
    for (std::int64_t d = 0; d < dims; ++d)
      index += std::to_string(ix[n * dims + d]) + (d < dims - 1 ? "," : "]");
    if (!valid) {
      std::string bounds;
      for (std::int64_t d = 0; d < dims; ++d)
        bounds += (d ? "," : "") + std::to_string(shape[static_cast<std::size_t>(d)]);
      return invalid_argument(index + " is out of bounds: need 0 <= index < [" + bounds + "]");
    }
    if (!increasing)
      return invalid_argument(index +
                              " is out of order. Many sparse ops require sorted indices.\n"
                              "    Use `tf.sparse.reorder` to create a correctly ordered "
                              "copy.\n\n");
    return invalid_argument(index + " is repeated");
  }
  return {};
}

/// ReshapeSparseTensor's loop: each of the `nnz` index rows of `in` (coordinates in
/// `in_shape`) rewritten to `out` as the coordinates in `out_shape` of the same row-major
/// offset.
inline void reshape_indices(const std::int64_t* in, std::int64_t nnz, const Shape& in_shape,
                            const Shape& out_shape, std::int64_t* out) {
  const std::int64_t in_rank = in_shape.rank(), out_rank = out_shape.rank();
  const std::vector<std::int64_t> in_strides = row_major_strides(in_shape);
  const std::vector<std::int64_t> out_strides = row_major_strides(out_shape);
  for (std::int64_t i = 0; i < nnz; ++i) {
    std::int64_t offset = 0;
    for (std::int64_t j = 0; j < in_rank; ++j)
      offset += in[i * in_rank + j] * in_strides[static_cast<std::size_t>(j)];
    for (std::int64_t j = 0; j < out_rank; ++j) {
      out[i * out_rank + j] = offset / out_strides[static_cast<std::size_t>(j)];
      offset %= out_strides[static_cast<std::size_t>(j)];
    }
  }
}

}  // namespace af::detail::sparse
