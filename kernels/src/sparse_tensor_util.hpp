#pragma once

// What the SparseTensor kernels (sparse_tensor_ops.cpp, sparse_concat_cross_ops.cpp) share:
// TensorFlow's checks of a SparseTensor's three tensors (sparse_utils.cc's
// ValidateSparseTensor and SparseTensor::Create, with their messages), index comparison,
// SparseTensor::Reorder as a stable sort and SparseTensor::group. Private to the kernels module.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/tensor.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"

namespace af::detail::sparse {

// -- element arithmetic ----------------------------------------------------------------------
// One step on element type T as TensorFlow's sparse kernels take it: float16 and bfloat16
// computed in float and rounded to T (Eigen's half arithmetic), integers wrapping.

/// a + b.
template <class T>
T element_add(T a, T b) {
  if constexpr (is_half_like_v<T>)
    return T(static_cast<float>(a) + static_cast<float>(b));
  else
    return cwise::wrapping_add(a, b);
}

/// a * b.
template <class T>
T element_mul(T a, T b) {
  if constexpr (is_half_like_v<T>)
    return T(static_cast<float>(a) * static_cast<float>(b));
  else
    return cwise::wrapping_mul(a, b);
}

/// a / b; an integer division by zero gives 0.
template <class T>
T element_div(T a, T b) {
  if constexpr (is_half_like_v<T>)
    return T(static_cast<float>(a) / static_cast<float>(b));
  else if constexpr (std::is_integral_v<T>)
    return b == T(0) ? T(0) : static_cast<T>(a / b);
  else
    return a / b;
}

/// a < b for a real element type.
template <class T>
bool element_less(T a, T b) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(a) < static_cast<float>(b);
  else
    return a < b;
}

/// std::max(a, b): b when a < b, else a (NaNs as std::max).
template <class T>
T element_max(T a, T b) {
  return element_less(a, b) ? b : a;
}

/// std::min(a, b): b when b < a, else a.
template <class T>
T element_min(T a, T b) {
  return element_less(b, a) ? b : a;
}

/// |v| as a double (the modulus of a complex value).
template <class T>
double element_magnitude(T v) {
  if constexpr (is_complex_v<T>)
    return static_cast<double>(std::abs(v));
  else
    return std::abs(static_cast<double>(v));
}

/// Lexicographic comparison of two index rows of `dims` coordinates: -1, 0 or 1
/// (DimComparator::cmp).
inline int compare_rows(const std::int64_t* a, const std::int64_t* b, Index dims) {
  for (Index d = 0; d < dims; ++d) {
    if (a[d] < b[d]) return -1;
    if (a[d] > b[d]) return 1;
  }
  return 0;
}

/// Tensor::SummarizeValue of an int64 vector: its first `max` values joined by spaces ("2 2"),
/// "..." after them when there are more.
inline std::string summarize_ints(const Tensor& t, Index max = 10) {
  const std::vector<Index> v = index_values(t);
  std::string out;
  for (std::size_t i = 0; i < v.size() && static_cast<Index>(i) < max; ++i)
    out += (i ? " " : "") + std::to_string(v[i]);
  if (static_cast<Index>(v.size()) > max) out += "...";
  return out;
}

/// SparseAdd's and SparseSparseBinaryOpShared's dense-shape checks: both vectors ("Input
/// shapes should be a vector but received shapes [2] and [1,2]", only when `check_vectors`),
/// of one length ("Operands do not have the same ranks; got shapes: 2 2 and 2 2 2") and equal
/// ("Operands' shapes do not match: got 2 and 3 for dimension 1").
inline Status check_same_dense_shapes(const Tensor& a, const Tensor& b, bool check_vectors) {
  if (check_vectors && (a.rank() != 1 || b.rank() != 1))
    return invalid_argument("Input shapes should be a vector but received shapes " +
                            a.shape().to_string() + " and " + b.shape().to_string());
  if (a.num_elements() != b.num_elements())
    return invalid_argument("Operands do not have the same ranks; got shapes: " +
                            summarize_ints(a) + " and " + summarize_ints(b));
  const std::vector<Index> av = index_values(a), bv = index_values(b);
  for (std::size_t i = 0; i < av.size(); ++i)
    if (av[i] != bv[i])
      return invalid_argument("Operands' shapes do not match: got " + std::to_string(av[i]) +
                              " and " + std::to_string(bv[i]) + " for dimension " +
                              std::to_string(i));
  return {};
}

/// The value of a real scalar as a double (SparseAdd's thresh).
inline double scalar_as_double(const Tensor& t) {
  switch (t.dtype()) {
    case DType::float32:
      return t.data<float>()[0];
    case DType::float64:
      return t.data<double>()[0];
    case DType::bfloat16:
      return static_cast<float>(t.data<bfloat16_t>()[0]);
    default:
      return static_cast<double>(index_values(t).at(0));
  }
}

/// TensorShape::BuildTensorShape: "Dimension -2 must be >= 0", or "Shape [...] would have more
/// than 2**63 - 1 elements".
inline Status build_tensor_shape(const std::vector<Index>& dims) {
  Index count = 1;
  for (Index d : dims) {
    if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    if (d != 0 && count > std::numeric_limits<Index>::max() / d)
      return invalid_argument("Shape " + Shape(dims).to_string() +
                              " would have more than 2**63 - 1 elements");
    count *= d;
  }
  return {};
}

/// sparse_utils' ValidateSparseTensor: indices a matrix, values and shape vectors, as many
/// values as index rows and as many shape entries as index columns; with `check_bounds` each
/// index inside the shape ("Sparse index tuple indices[0, :] = [0, 5] is out of bounds").
inline Status validate_sparse_tensor(const Tensor& indices, const Tensor& values,
                                     const Tensor& shape, bool check_bounds) {
  if (indices.rank() != 2)
    return invalid_argument("Sparse indices must be rank 2 but is rank " +
                            std::to_string(indices.rank()));
  if (values.rank() != 1)
    return invalid_argument("Sparse values must be rank 1 but is rank " +
                            std::to_string(values.rank()));
  if (shape.rank() != 1)
    return invalid_argument("Sparse shape must be rank 1 but is rank " +
                            std::to_string(shape.rank()));
  const Index nnz = indices.shape().dim(0), rank = indices.shape().dim(1);
  if (values.shape().dim(0) != nnz)
    return invalid_argument("Number of elements in indices (" + std::to_string(nnz) +
                            ") and values (" + std::to_string(values.shape().dim(0)) +
                            ") do not match");
  if (shape.num_elements() != rank)
    return invalid_argument("Index rank (" + std::to_string(rank) + ") and shape rank (" +
                            std::to_string(shape.num_elements()) + ") do not match");
  if (!check_bounds) return {};
  const std::vector<Index> dims = index_values(shape);
  const std::int64_t* ix = indices.data<std::int64_t>();
  for (Index i = 0; i < nnz; ++i)
    for (Index d = 0; d < rank; ++d)
      if (ix[i * rank + d] < 0 || ix[i * rank + d] >= dims[static_cast<std::size_t>(d)]) {
        std::string tuple;
        for (Index e = 0; e < rank; ++e)
          tuple += (e ? ", " : "") + std::to_string(ix[i * rank + e]);
        return invalid_argument("Sparse index tuple indices[" + std::to_string(i) + ", :] = [" +
                                tuple + "] is out of bounds");
      }
  return {};
}

/// SparseTensor::Create's checks of indices (int64 [N, ndims]) and values ([N]) for a dense
/// shape of `ndims` dimensions.
inline Status create_sparse_tensor(const Tensor& indices, const Tensor& values, Index ndims) {
  if (indices.rank() != 2)
    return invalid_argument("indices must be a matrix, but got: " + indices.shape().to_string());
  if (values.rank() != 1)
    return invalid_argument("values must be a vector, but got: " + values.shape().to_string());
  if (indices.shape().dim(0) != values.shape().dim(0))
    return invalid_argument("indices and values rows (indexing dimension) must match. (indices = " +
                            std::to_string(indices.shape().dim(0)) +
                            ", values = " + std::to_string(values.shape().dim(0)) + ")");
  if (indices.shape().dim(1) != ndims)
    return invalid_argument("Order length must be SparseTensor rank.");
  return {};
}

/// {0, 1, ..., rank - 1}: the standard (row-major) order of dimensions.
inline std::vector<Index> standard_dims(Index rank) {
  std::vector<Index> dims(static_cast<std::size_t>(rank));
  std::iota(dims.begin(), dims.end(), Index{0});
  return dims;
}

/// SparseTensor::Reorder(dims) as a permutation: the entries of the [nnz, rank] indices `ix`
/// sorted by the coordinates `dims` in that order, entries equal there keeping their order.
inline std::vector<Index> sorted_order(const std::int64_t* ix, Index nnz, Index rank,
                                       const std::vector<Index>& dims) {
  std::vector<Index> order(static_cast<std::size_t>(nnz));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
    for (Index d : dims) {
      const std::int64_t x = ix[a * rank + d], y = ix[b * rank + d];
      if (x != y) return x < y;
    }
    return false;
  });
  return order;
}

/// SparseTensor::group(dims): the entries of `order` in runs of equal coordinates `dims`.
inline std::vector<std::vector<Index>> group_runs(const std::int64_t* ix, Index rank,
                                                  const std::vector<Index>& order,
                                                  const std::vector<Index>& dims) {
  std::vector<std::vector<Index>> groups;
  for (Index entry : order) {
    bool same = !groups.empty();
    if (same) {
      const Index first = groups.back().front();
      for (Index d : dims) same = same && ix[first * rank + d] == ix[entry * rank + d];
    }
    if (!same) groups.emplace_back();
    groups.back().push_back(entry);
  }
  return groups;
}

/// Writes entries `order` of `indices` ([N, rank] int64) and `values` ([N], any dtype) to
/// `out_indices` and `out_values` (sized for them), in that order.
inline void gather_entries(const Tensor& indices, const Tensor& values,
                           const std::vector<Index>& order, Tensor& out_indices,
                           Tensor& out_values) {
  const Index rank = indices.shape().dim(1);
  const std::int64_t* ix = indices.data<std::int64_t>();
  std::int64_t* oi = out_indices.data<std::int64_t>();
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::copy_n(ix + order[k] * rank, rank, oi + static_cast<Index>(k) * rank);
    copy_elements(values, order[k], out_values, static_cast<Index>(k), 1);
  }
}

}  // namespace af::detail::sparse
