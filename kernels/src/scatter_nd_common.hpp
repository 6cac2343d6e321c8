#pragma once

// What the kernels that index by N-dimensional rows share (gather_nd_ops.cpp,
// scatter_nd_variable_ops.cpp): TensorFlow's bad_indices_policy, the decoding of index rows
// against a shape, and the element updates of DoScatterNd (scatter_nd_op.cc). Private to the
// kernels module.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"

namespace af::detail {

/// TensorFlow's bad_indices_policy: "" and "DEFAULT" and "ERROR" fail the step at a row out
/// of range; "IGNORE" (`*ignore`) leaves its slice zero (gathers) or unwritten (scatters).
/// Another value: InvalidArgument "Unknown bad indices handling attribute: FOO". A node
/// without the attr (graphs older than it) reads as "".
inline Status read_ignore_policy(OpKernelConstruction& c, bool* ignore) {
  std::string policy;
  if (!c.get_attr("bad_indices_policy", &policy).ok()) policy.clear();  // older graphs
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE")
    return invalid_argument("Unknown bad indices handling attribute: " + policy);
  *ignore = policy == "IGNORE";
  return {};
}

/// The longest index row TensorFlow's N-d kernels take (their functors are instantiated up to
/// 7).
constexpr Index kMaxIndexDepth = 7;

/// DoScatterNd's refusal of an index depth outside 1..7 (checked only when the output has
/// elements). TensorFlow's text still says 5, and has two spaces after the period.
inline Status scatter_nd_depth_error(Index slice_dim) {
  return invalid_argument(
      "Only indices.shape[-1] values between 1 and 5 are currently supported.  Requested rank: " +
      std::to_string(slice_dim));
}

/// The index rows of `indices` against the leading dimensions of `shape`: for each row the
/// slice it names (its offset in slices of `shape[K:]`), or -1 when it is out of range. A row
/// is the innermost dimension of `indices` (shape `batch + [K]`).
struct IndexRows {
  Index k = 0;             ///< the row length, indices.shape[-1]
  Index rows = 0;          ///< how many rows
  Index slice = 1;         ///< elements per slice, prod(shape[K:])
  std::vector<Index> raw;  ///< the indices, row by row
  Index last_bad = -1;     ///< the last row out of range (the one TensorFlow's CPU
                           ///< functors report: they go on past a bad row, keeping the latest)

  IndexRows(const Tensor& indices, const Shape& shape) : raw(index_values(indices)) {
    k = indices.shape().dim(indices.rank() - 1);
    rows = 1;
    for (int d = 0; d < indices.rank() - 1; ++d) rows *= indices.shape().dim(d);
    for (int d = static_cast<int>(k); d < shape.rank(); ++d) slice *= shape.dim(d);
    offsets.resize(static_cast<std::size_t>(rows));
    for (Index r = 0; r < rows; ++r) {
      Index at = 0;
      for (Index j = 0; j < k; ++j) {
        const Index v = raw[static_cast<std::size_t>(r * k + j)];
        const Index dim = shape.dim(static_cast<int>(j));
        if (v < 0 || v >= dim) {
          at = -1;
          break;
        }
        at = at * dim + v;
      }
      offsets[static_cast<std::size_t>(r)] = at;
      if (at < 0) last_bad = r;
    }
  }

  /// The slice row `r` names, -1 when it is out of range.
  Index offset(Index r) const { return offsets[static_cast<std::size_t>(r)]; }

  /// "indices[1] = [4, 0]": the row named as TensorFlow's messages name it (`indices` is the
  /// tensor whose leading dims number the rows).
  std::string describe(const Tensor& indices, Index r) const {
    std::vector<std::int64_t> batch = indices.shape().dims();
    batch.pop_back();
    std::string out = "indices" + slice_debug_string(Shape(std::move(batch)), r) + " = [";
    for (Index j = 0; j < k; ++j)
      out += (j ? ", " : "") + std::to_string(raw[static_cast<std::size_t>(r * k + j)]);
    return out + "]";
  }

 private:
  std::vector<Index> offsets;
};

/// How a scatter combines an update with the element it lands on (scatter_nd_op::UpdateOp).
enum class ScatterNdKind { update, add, sub, max, min };

/// `dst` updated by `src` (bfloat16 through float, rounded once; std::max/min as Eigen's
/// cwiseMax/cwiseMin; bool adds as a logical or).
template <ScatterNdKind K, class T>
T scatter_nd_combine(T dst, T src) {
  if constexpr (is_half_like_v<T>) {
    return T(scatter_nd_combine<K>(static_cast<float>(dst), static_cast<float>(src)));
  } else if constexpr (K == ScatterNdKind::update) {
    return src;
  } else if constexpr (K == ScatterNdKind::add) {
    return static_cast<T>(dst + src);
  } else if constexpr (K == ScatterNdKind::sub) {
    return static_cast<T>(dst - src);
  } else if constexpr (K == ScatterNdKind::max) {
    return std::max(dst, src);
  } else {
    return std::min(dst, src);
  }
}

}  // namespace af::detail
