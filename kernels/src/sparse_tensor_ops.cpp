// SparseTensorDenseMatMul, SparseAdd, SparseAddGrad, SparseTensorDenseAdd, SparseReduceSum,
// SparseReduceSumSparse, SparseReduceMax, SparseReduceMaxSparse, SparseReorder, SparseSoftmax,
// SparseDenseCwise{Mul,Div,Add} and SparseSparse{Maximum,Minimum}: CPU kernels with
// TensorFlow's checks and messages (sparse_tensor_dense_matmul_op.cc, sparse_add_op.cc,
// sparse_add_grad_op.cc, sparse_tensor_dense_add_op.cc, sparse_reduce_op.cc,
// sparse_reorder_op.cc, sparse_softmax_op.cc, sparse_dense_binary_op_shared.cc,
// sparse_sparse_binary_op_shared.cc, util/sparse/sparse_tensor.h and sparse_utils.cc). The
// definitions are in ops/src/defs/sparse_tensor_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;
using namespace detail::sparse;  // NOLINT: the shared sparse helpers of this family

// -- SparseTensorDenseMatMul --------------------------------------------------------------

// product = op(A) * op(B) for a SparseTensor A (rank 2, indices int32 or int64) and a dense
// matrix B; op transposes with the adjoint attrs. Entries of A repeated add up.
template <class T>
class SparseTensorDenseMatMulOp : public StatusKernel {
 public:
  SparseTensorDenseMatMulOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (auto v = c.def.attr<bool>("adjoint_a")) adjoint_a_ = *v;
    if (auto v = c.def.attr<bool>("adjoint_b")) adjoint_b_ = *v;
    *s = {};
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a_indices = ctx.input(0);
    const Tensor& a_values = ctx.input(1);
    const Tensor& a_shape = ctx.input(2);
    const Tensor& b = ctx.input(3);
    if (b.rank() != 2) return invalid_argument("Tensor 'b' is not a matrix");
    if (a_shape.rank() != 1) return invalid_argument("Tensor 'a_shape' is not a vector");
    if (a_shape.num_elements() != 2)
      return invalid_argument("Tensor 'a_shape' must have 2 elements");
    if (a_values.rank() != 1) return invalid_argument("Tensor 'a_values' is not a vector");
    if (a_indices.rank() != 2) return invalid_argument("Tensor 'a_indices' is not a matrix");
    const Index nnz = a_indices.shape().dim(0);
    if (nnz != a_values.num_elements())
      return invalid_argument(
          "Number of rows of a_indices does not match number of entries in a_values");
    if (a_indices.shape().dim(1) != a_shape.num_elements())
      return invalid_argument(
          "Number of columns of a_indices does not match number of entries in a_shape");
    const std::int64_t* dims = a_shape.data<std::int64_t>();
    const Index outer_left = adjoint_a_ ? dims[1] : dims[0];
    const Index inner_left = adjoint_a_ ? dims[0] : dims[1];
    const Index outer_right = adjoint_b_ ? b.shape().dim(0) : b.shape().dim(1);
    const Index inner_right = adjoint_b_ ? b.shape().dim(1) : b.shape().dim(0);
    if (inner_left != inner_right)
      return invalid_argument("Cannot multiply A and B because inner dimension does not match: " +
                              std::to_string(inner_left) + " vs. " + std::to_string(inner_right) +
                              ".  Did you forget a transpose?  Dimensions of A: [" +
                              std::to_string(dims[0]) + ", " + std::to_string(dims[1]) +
                              ").  Dimensions of B: " + b.shape().to_string());
    if (outer_left < 0 || outer_right < 0)
      return invalid_argument("Dimension " + std::to_string(std::min(outer_left, outer_right)) +
                              " must be >= 0");
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{outer_left, outer_right});
    if (out.num_elements() == 0 || nnz == 0 || b.num_elements() == 0) return {};
    const std::vector<Index> ix = detail::index_values(a_indices);
    const T* values = a_values.data<T>();
    const T* bm = b.data<T>();
    T* o = out.data<T>();
    const Index b_cols = b.shape().dim(1);
    const int lhs_index = adjoint_a_ ? 1 : 0, rhs_index = adjoint_a_ ? 0 : 1;
    for (Index i = 0; i < nnz; ++i) {
      const Index m = ix[static_cast<std::size_t>(i * 2 + lhs_index)];
      const Index k = ix[static_cast<std::size_t>(i * 2 + rhs_index)];
      if (k < 0 || k >= inner_right)
        return invalid_argument("k (" + std::to_string(k) + ") from index[" + std::to_string(i) +
                                "," + std::to_string(rhs_index) +
                                "] out of bounds (>=" + std::to_string(inner_right) + ")");
      if (m < 0 || m >= outer_left)
        return invalid_argument("m (" + std::to_string(m) + ") from index[" + std::to_string(i) +
                                "," + std::to_string(lhs_index) +
                                "] out of bounds (>=" + std::to_string(outer_left) + ")");
      const T a = adjoint_a_ ? cwise::conj_of(values[i]) : values[i];
      for (Index n = 0; n < outer_right; ++n)
        o[m * outer_right + n] +=
            a * (adjoint_b_ ? cwise::conj_of(bm[n * b_cols + k]) : bm[k * b_cols + n]);
    }
    return {};
  }

  bool adjoint_a_ = false;
  bool adjoint_b_ = false;
};

// -- SparseAdd and SparseAddGrad ----------------------------------------------------------

// The sum of two SparseTensors of one dense shape, merged in the order of their indices
// (both assumed row-major ordered, as TensorFlow); a sum of two entries whose magnitude is
// below thresh is dropped.
template <class T>
class SparseAddOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a_indices = ctx.input(0);
    const Tensor& a_values = ctx.input(1);
    const Tensor& a_shape = ctx.input(2);
    const Tensor& b_indices = ctx.input(3);
    const Tensor& b_values = ctx.input(4);
    const Tensor& b_shape = ctx.input(5);
    const Tensor& thresh_t = ctx.input(6);
    if (a_indices.rank() != 2 || b_indices.rank() != 2)
      return invalid_argument(
          "Input indices should be matrices but received shapes: " + a_indices.shape().to_string() +
          " and " + b_indices.shape().to_string());
    if (a_indices.shape().dim(1) != b_indices.shape().dim(1))
      return invalid_argument("Input indices must have the same dimension, got " +
                              std::to_string(a_indices.shape().dim(1)) + " and " +
                              std::to_string(b_indices.shape().dim(1)));
    const Index a_nnz = a_indices.shape().dim(0), b_nnz = b_indices.shape().dim(0);
    if (a_values.rank() != 1 || b_values.rank() != 1)
      return invalid_argument(
          "Input values should be vectors but received shapes: " + a_values.shape().to_string() +
          " and " + b_values.shape().to_string());
    if (a_values.num_elements() != a_nnz || b_values.num_elements() != b_nnz)
      return invalid_argument("Expected " + std::to_string(a_nnz) + " and " +
                              std::to_string(b_nnz) + " non-empty input values, got " +
                              std::to_string(a_values.num_elements()) + " and " +
                              std::to_string(b_values.num_elements()));
    ACTORFLOW_RETURN_IF_ERROR(check_same_dense_shapes(a_shape, b_shape, true));
    if (a_indices.shape().dim(1) != a_shape.num_elements())
      return invalid_argument("Input indices should have " +
                              std::to_string(a_shape.num_elements()) + " columns but have " +
                              std::to_string(a_indices.shape().dim(1)));
    if (thresh_t.rank() != 0)
      return invalid_argument("The magnitude threshold must be a scalar: got shape " +
                              thresh_t.shape().to_string());
    const double thresh = scalar_as_double(thresh_t);
    const Index dims = a_shape.num_elements();
    const std::int64_t* ai = a_indices.data<std::int64_t>();
    const std::int64_t* bi = b_indices.data<std::int64_t>();
    const T* av = a_values.data<T>();
    const T* bv = b_values.data<T>();
    std::vector<const std::int64_t*> rows;
    std::vector<T> values;
    Index i = 0, j = 0;
    while (i < a_nnz && j < b_nnz) {
      const int c = compare_rows(ai + i * dims, bi + j * dims, dims);
      if (c < 0) {
        rows.push_back(ai + i * dims);
        values.push_back(av[i++]);
      } else if (c > 0) {
        rows.push_back(bi + j * dims);
        values.push_back(bv[j++]);
      } else {
        const T s = element_add(av[i], bv[j]);
        if (thresh <= element_magnitude(s)) {
          rows.push_back(ai + i * dims);
          values.push_back(s);
        }
        ++i;
        ++j;
      }
    }
    for (; i < a_nnz; ++i) rows.push_back(ai + i * dims), values.push_back(av[i]);
    for (; j < b_nnz; ++j) rows.push_back(bi + j * dims), values.push_back(bv[j]);
    const auto n = static_cast<Index>(values.size());
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{n, dims});
    Tensor& out_values = ctx.allocate_output(1, dtype_of_v<T>, Shape{n});
    for (Index k = 0; k < n; ++k)
      std::copy_n(rows[static_cast<std::size_t>(k)], dims,
                  out_indices.data<std::int64_t>() + k * dims);
    std::copy(values.begin(), values.end(), out_values.data<T>());
    ctx.set_output(2, a_shape);
    return {};
  }
};

// The gradients of SparseAdd's two value vectors: each entry of A and B that reached the sum
// gets the sum's gradient there, the others (dropped by thresh) zero.
template <class T>
class SparseAddGradOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grad = ctx.input(0);
    const Tensor& a_indices = ctx.input(1);
    const Tensor& b_indices = ctx.input(2);
    const Tensor& sum_indices = ctx.input(3);
    if (a_indices.rank() != 2 || b_indices.rank() != 2 || sum_indices.rank() != 2)
      return invalid_argument(
          "Input indices should be matrices but received shapes: " + a_indices.shape().to_string() +
          " and " + b_indices.shape().to_string() + " and " + sum_indices.shape().to_string());
    if (grad.rank() != 1)
      return invalid_argument("Input backprop_val_grad should be a vector but received shape: " +
                              grad.shape().to_string());
    const Index dims = a_indices.shape().dim(1);
    if (b_indices.shape().dim(1) != dims || sum_indices.shape().dim(1) != dims)
      return invalid_argument(
          "The densified operands should have the same ndims; got: " + std::to_string(dims) + ", " +
          std::to_string(b_indices.shape().dim(1)) + ", " +
          std::to_string(sum_indices.shape().dim(1)));
    const Index a_nnz = a_indices.shape().dim(0), b_nnz = b_indices.shape().dim(0);
    const Index sum_nnz = sum_indices.shape().dim(0);
    if (grad.num_elements() != sum_nnz)
      return invalid_argument(
          "# elements of backprop_val_grad and # rows of sum_indices should match (#nnz of "
          "sum): got " +
          std::to_string(grad.num_elements()) + " and " + std::to_string(sum_nnz));
    Tensor& a_grad = ctx.allocate_output(0, dtype_of_v<T>, Shape{a_nnz});
    Tensor& b_grad = ctx.allocate_output(1, dtype_of_v<T>, Shape{b_nnz});
    const std::int64_t* ai = a_indices.data<std::int64_t>();
    const std::int64_t* bi = b_indices.data<std::int64_t>();
    const std::int64_t* si = sum_indices.data<std::int64_t>();
    const T* g = grad.data<T>();
    T* ag = a_grad.data<T>();
    T* bg = b_grad.data<T>();
    Index i = 0, j = 0, k = 0;
    auto take = [&](const std::int64_t* row, T* out, Index& at) {
      if (k < sum_nnz && compare_rows(row, si + k * dims, dims) == 0) out[at] = g[k++];
      ++at;
    };
    while (i < a_nnz && j < b_nnz && k < sum_nnz) {
      const int c = compare_rows(ai + i * dims, bi + j * dims, dims);
      if (c < 0) {
        take(ai + i * dims, ag, i);
      } else if (c > 0) {
        take(bi + j * dims, bg, j);
      } else {
        if (compare_rows(ai + i * dims, si + k * dims, dims) == 0) {
          ag[i] = g[k];
          bg[j] = g[k];
          ++k;
        }
        ++i;
        ++j;
      }
    }
    while (i < a_nnz && k < sum_nnz) take(ai + i * dims, ag, i);
    while (j < b_nnz && k < sum_nnz) take(bi + j * dims, bg, j);
    return {};
  }
};

// -- SparseTensorDenseAdd ------------------------------------------------------------------

// dense + SparseTensor, a dense tensor of the dense operand's shape (no broadcasting); entries
// repeated add up.
template <class T>
class SparseTensorDenseAddOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a_indices = ctx.input(0);
    const Tensor& a_values = ctx.input(1);
    const Tensor& a_shape = ctx.input(2);
    const Tensor& b = ctx.input(3);
    if (a_indices.rank() != 2)
      return invalid_argument("Input a_indices should be a matrix but received shape: " +
                              a_indices.shape().to_string());
    if (a_values.rank() != 1 || a_shape.rank() != 1)
      return invalid_argument(
          "Inputs a_values and a_shape should be vectors but received "
          "shapes: " +
          a_values.shape().to_string() + " and " + a_shape.shape().to_string());
    const Index nnz = a_indices.shape().dim(0);
    if (nnz != a_values.num_elements())
      return invalid_argument("Dimensions " + std::to_string(nnz) + " and " +
                              std::to_string(a_values.num_elements()) + " are not compatible");
    const std::vector<Index> dims = detail::index_values(a_shape);
    if (static_cast<Index>(dims.size()) != b.rank())
      return invalid_argument("Two operands have different ranks; received: " +
                              std::to_string(dims.size()) + " and " + std::to_string(b.rank()));
    for (int d = 0; d < b.rank(); ++d)
      if (dims[static_cast<std::size_t>(d)] != b.shape().dim(d))
        return invalid_argument("Dimension " + std::to_string(d) +
                                " does not equal (no broadcasting is supported): sparse side " +
                                std::to_string(dims[static_cast<std::size_t>(d)]) +
                                " vs dense side " + std::to_string(b.shape().dim(d)));
    const int rank = b.rank();
    if (rank < 1 || rank > 5)
      return invalid_argument(
          "Only tensors with ranks between 1 and 5 are currently supported.  Tensor rank: " +
          std::to_string(rank));
    if (a_indices.shape().dim(1) != rank)
      return invalid_argument("Input a_indices should have " + std::to_string(rank) +
                              " columns but has " + std::to_string(a_indices.shape().dim(1)));
    Tensor out(dtype_of_v<T>, b.shape(), Tensor::for_overwrite);
    std::copy_n(b.data<T>(), b.num_elements(), out.data<T>());
    const std::vector<Index> ix = detail::index_values(a_indices);
    const std::vector<Index> strides = detail::row_major_strides(b.shape());
    const T* v = a_values.data<T>();
    T* o = out.data<T>();
    for (Index i = 0; i < nnz; ++i) {
      Index at = 0;
      for (int d = 0; d < rank; ++d) {
        const Index x = ix[static_cast<std::size_t>(i * rank + d)];
        if (x < 0 || x >= b.shape().dim(d)) {
          std::string shape;
          for (int e = 0; e < rank; ++e) shape += (e ? " " : "") + std::to_string(b.shape().dim(e));
          return invalid_argument("Sparse tensor has an invalid index on dimension " +
                                  std::to_string(d) + ": a_indices(" + std::to_string(i) + "," +
                                  std::to_string(d) + ") = " + std::to_string(x) +
                                  ", dense tensor shape: " + shape);
        }
        at += x * strides[static_cast<std::size_t>(d)];
      }
      o[at] = element_add(o[at], v[i]);
    }
    ctx.set_output(0, std::move(out));
    return {};
  }
};

// -- SparseReduce{Sum,Max}[Sparse] ---------------------------------------------------------

struct SumReducer {
  template <class T>
  static T reduce(const T* v, const std::vector<Index>& at) {
    T s = T(0);
    for (Index i : at) s = element_add(s, v[i]);
    return s;
  }
};

struct MaxReducer {
  template <class T>
  static T reduce(const T* v, const std::vector<Index>& at) {
    T m = v[at.front()];
    for (Index i : at) m = element_max(m, v[i]);
    return m;
  }
};

// Reduces the entries of a SparseTensor over reduction_axes: the entries are sorted by the
// kept dimensions, then the reduced ones (SparseTensor::Reorder), each run of one kept
// coordinate reduced to a value. SparseReduce{Sum,Max} write a dense tensor (zero where no
// entry fell, for Max too), the Sparse variants a SparseTensor of the groups.
template <class T, class Reducer, bool kSparseOutput>
class SparseReduceOp : public StatusKernel {
 public:
  SparseReduceOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (auto v = c.def.attr<bool>("keep_dims")) keep_dims_ = *v;
    *s = {};
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape_t = ctx.input(2);
    const Tensor& axes_t = ctx.input(3);
    if (shape_t.rank() != 1)
      return invalid_argument("Expected input_shape to be a vector; got shape: " +
                              shape_t.shape().to_string());
    if (axes_t.rank() > 1)
      return invalid_argument("Expected reduction_axes to be a scalar or a vector; got shape: " +
                              axes_t.shape().to_string());
    const Index ndims = shape_t.num_elements();
    const std::vector<Index> axes_in = detail::index_values(axes_t);
    for (Index axis : axes_in)
      if (axis < -ndims || axis >= ndims)
        return invalid_argument("Invalid reduction dimension " + std::to_string(axis) +
                                ", for input with " + std::to_string(ndims) + " dimensions.");
    const std::vector<Index> dense = detail::index_values(shape_t);
    ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(dense));
    ACTORFLOW_RETURN_IF_ERROR(create_sparse_tensor(indices, values, ndims));
    // group_by: the kept dimensions in order; reorder: those, then the reduced ones.
    std::vector<bool> reduced(static_cast<std::size_t>(ndims), false);
    for (Index axis : axes_in) reduced[static_cast<std::size_t>((axis + ndims) % ndims)] = true;
    std::vector<Index> group_by, reorder;
    for (Index d = 0; d < ndims; ++d)
      if (!reduced[static_cast<std::size_t>(d)]) group_by.push_back(d);
    reorder = group_by;
    for (Index d = 0; d < ndims; ++d)
      if (reduced[static_cast<std::size_t>(d)]) reorder.push_back(d);
    std::vector<std::int64_t> out_dims;
    for (Index d = 0; d < ndims; ++d) {
      if (!reduced[static_cast<std::size_t>(d)])
        out_dims.push_back(dense[static_cast<std::size_t>(d)]);
      else if (keep_dims_)
        out_dims.push_back(1);
    }
    const Index nnz = indices.shape().dim(0);
    const std::int64_t* ix = indices.data<std::int64_t>();
    const std::vector<Index> order = sorted_order(ix, nnz, ndims, reorder);
    const std::vector<std::vector<Index>> groups = group_runs(ix, ndims, order, group_by);
    const T* v = values.data<T>();
    if constexpr (kSparseOutput) {
      const auto out_rank = static_cast<Index>(out_dims.size());
      const auto n = static_cast<Index>(groups.size());
      Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{n, out_rank});
      Tensor& out_values = ctx.allocate_output(1, dtype_of_v<T>, Shape{n});
      Tensor& out_shape = ctx.allocate_output(2, DType::int64, Shape{out_rank});
      std::copy(out_dims.begin(), out_dims.end(), out_shape.data<std::int64_t>());
      std::int64_t* oi = out_indices.data<std::int64_t>();
      for (Index g = 0; g < n; ++g) {
        const auto& members = groups[static_cast<std::size_t>(g)];
        const std::int64_t* row = ix + members.front() * ndims;
        for (std::size_t k = 0; k < group_by.size(); ++k) {
          const Index column = keep_dims_ ? group_by[k] : static_cast<Index>(k);
          oi[g * out_rank + column] = row[group_by[k]];
        }
        out_values.data<T>()[g] = Reducer::reduce(v, members);
      }
      return {};
    } else {
      Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape(out_dims));
      T* o = out.data<T>();
      std::vector<Index> strides(group_by.size(), 1);
      for (std::size_t k = group_by.size(); k-- > 1;)
        strides[k - 1] = strides[k] * dense[static_cast<std::size_t>(group_by[k])];
      for (const auto& members : groups) {
        const std::int64_t* row = ix + members.front() * ndims;
        Index at = 0;
        for (std::size_t k = 0; k < group_by.size(); ++k) at += row[group_by[k]] * strides[k];
        if (at < 0 || at >= out.num_elements())
          return internal("Obtained a write index of " + std::to_string(at) +
                          " which is outside of bounds of [0, " +
                          std::to_string(out.num_elements()) + ")");
        o[at] = Reducer::reduce(v, members);
      }
      return {};
    }
  }

  bool keep_dims_ = false;
};

// -- SparseReorder -------------------------------------------------------------------------

// The entries in row-major order of their indices (entries of one index keep their order).
class SparseReorderOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(indices, values, shape, false));
    ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(detail::index_values(shape)));
    const Index nnz = indices.shape().dim(0), rank = indices.shape().dim(1);
    const std::int64_t* ix = indices.data<std::int64_t>();
    const std::vector<Index> order = sorted_order(ix, nnz, rank, standard_dims(rank));
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, indices.shape());
    Tensor& out_values = ctx.allocate_output(1, values.dtype(), values.shape());
    gather_entries(indices, values, order, out_indices, out_values);
    return {};
  }
};

// -- SparseSoftmax -------------------------------------------------------------------------

// The checks SparseSoftmax and the SparseDenseCwise kernels open with: sp_indices a matrix,
// sp_values and sp_shape vectors.
Status check_sp_operands(const Tensor& indices, const Tensor& values, const Tensor& shape) {
  if (indices.rank() != 2)
    return invalid_argument("Input sp_indices should be a matrix but received shape: " +
                            indices.shape().to_string());
  if (values.rank() != 1 || shape.rank() != 1)
    return invalid_argument(
        "Inputs sp_values and sp_shape should be vectors but received shapes: " +
        values.shape().to_string() + " and " + shape.shape().to_string());
  return {};
}

// Softmax over the last dimension of each run of entries sharing the other coordinates, the
// output values in the row-major order of the indices (the kernel sorts a copy).
template <class T>
class SparseSoftmaxOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(check_sp_operands(indices, values, shape));
    if (shape.num_elements() < 2)
      return invalid_argument("Input should have rank >= 2, but received shape: " +
                              summarize_ints(shape, 3));
    const Index ndims = shape.num_elements();
    ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(detail::index_values(shape)));
    ACTORFLOW_RETURN_IF_ERROR(create_sparse_tensor(indices, values, ndims));
    const Index nnz = indices.shape().dim(0);
    const std::int64_t* ix = indices.data<std::int64_t>();
    const std::vector<Index> order = sorted_order(ix, nnz, ndims, standard_dims(ndims));
    std::vector<Index> leading = standard_dims(ndims);
    leading.pop_back();
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{nnz});
    const T* v = values.data<T>();
    T* o = out.data<T>();
    Index count = 0;
    for (const auto& members : group_runs(ix, ndims, order, leading)) {
      T top = v[members.front()];
      for (Index i : members) top = std::max(top, v[i]);
      T sum = T(0);
      for (std::size_t k = 0; k < members.size(); ++k) {
        o[count + static_cast<Index>(k)] = std::exp(v[members[k]] - top);
        sum += o[count + static_cast<Index>(k)];
      }
      for (std::size_t k = 0; k < members.size(); ++k) o[count + static_cast<Index>(k)] /= sum;
      count += static_cast<Index>(members.size());
    }
    return {};
  }
};

// -- SparseDenseCwise{Mul,Div,Add} ---------------------------------------------------------

struct MulFn {
  template <class T>
  static T apply(T a, T b) {
    return element_mul(a, b);
  }
};
struct DivFn {
  template <class T>
  static T apply(T a, T b) {
    return element_div(a, b);
  }
};
struct AddFn {
  template <class T>
  static T apply(T a, T b) {
    return element_add(a, b);
  }
};

// sp_values[i] (op) dense[indices[i]], the dense side broadcast to the sparse side's shape
// (only that way); the result has the sparse operand's indices.
template <class T, class Fn>
class SparseDenseCwiseOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    const Tensor& dense = ctx.input(3);
    ACTORFLOW_RETURN_IF_ERROR(check_sp_operands(indices, values, shape));
    const Index nnz = indices.shape().dim(0);
    if (values.num_elements() != nnz)
      return invalid_argument("The first dimension of values and indices should match. (" +
                              std::to_string(values.num_elements()) + " vs. " +
                              std::to_string(nnz) + ")");
    const std::vector<Index> lhs = detail::index_values(shape);
    const auto ndims = static_cast<Index>(lhs.size());
    if (indices.shape().dim(1) != ndims)
      return invalid_argument("Number of dimensions must match second dimension of indices. Got " +
                              std::to_string(ndims) +
                              " dimensions, indices shape: " + indices.shape().to_string());
    const std::vector<std::int64_t>& rhs = dense.shape().dims();
    bool ok = lhs.size() >= rhs.size();
    for (std::size_t i = 0; ok && i < rhs.size(); ++i) {
      const Index l = lhs[lhs.size() - 1 - i], r = rhs[rhs.size() - 1 - i];
      ok = l >= r && (r == 1 || l == r);
    }
    if (!ok) {
      auto join = [](const std::vector<Index>& d) {
        std::string s;
        for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
        return s;
      };
      return invalid_argument(
          "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
          "shapes: [" +
          join(lhs) + "] vs. [" + join(std::vector<Index>(rhs.begin(), rhs.end())) + "]");
    }
    if (ndims < 1 || ndims > 5)
      return invalid_argument(
          "Only tensors with ranks between 1 and 5 are currently supported.  Tensor rank: " +
          std::to_string(ndims));
    // The dense side as `ndims` dims (ones in front), each stride 0 where it broadcasts.
    const Index pad = ndims - static_cast<Index>(rhs.size());
    std::vector<Index> strides(static_cast<std::size_t>(ndims), 0);
    Index stride = 1;
    for (Index d = ndims; d-- > pad;) {
      const Index size = rhs[static_cast<std::size_t>(d - pad)];
      if (size != 1) strides[static_cast<std::size_t>(d)] = stride;
      stride *= size;
    }
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{nnz});
    const std::int64_t* ix = indices.data<std::int64_t>();
    const T* v = values.data<T>();
    const T* dv = dense.data<T>();
    T* o = out.data<T>();
    for (Index i = 0; i < nnz; ++i) {
      Index at = 0;
      for (Index d = 0; d < ndims; ++d) {
        const Index x = ix[i * ndims + d];
        if (x < 0 || x >= lhs[static_cast<std::size_t>(d)])
          return invalid_argument(
              "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape");
        at += x * strides[static_cast<std::size_t>(d)];
      }
      o[i] = Fn::apply(v[i], dv[at]);
    }
    return {};
  }
};

// -- SparseSparse{Maximum,Minimum} ---------------------------------------------------------

struct MaxFn {
  template <class T>
  static T apply(T a, T b) {
    return element_max(a, b);
  }
};
struct MinFn {
  template <class T>
  static T apply(T a, T b) {
    return element_min(a, b);
  }
};

// The union of two SparseTensors' indices (merged in index order), each value the op of
// both sides' values there, an absent side counting as zero.
template <class T, class Fn>
class SparseSparseBinaryOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a_indices = ctx.input(0);
    const Tensor& a_values = ctx.input(1);
    const Tensor& a_shape = ctx.input(2);
    const Tensor& b_indices = ctx.input(3);
    const Tensor& b_values = ctx.input(4);
    const Tensor& b_shape = ctx.input(5);
    ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(a_indices, a_values, a_shape, true));
    ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(b_indices, b_values, b_shape, true));
    ACTORFLOW_RETURN_IF_ERROR(check_same_dense_shapes(a_shape, b_shape, false));
    const Index dims = a_shape.num_elements();
    const Index a_nnz = a_indices.shape().dim(0), b_nnz = b_indices.shape().dim(0);
    const std::int64_t* ai = a_indices.data<std::int64_t>();
    const std::int64_t* bi = b_indices.data<std::int64_t>();
    const T* av = a_values.data<T>();
    const T* bv = b_values.data<T>();
    std::vector<const std::int64_t*> rows;
    std::vector<T> out;
    Index i = 0, j = 0;
    while (i < a_nnz && j < b_nnz) {
      const int c = compare_rows(ai + i * dims, bi + j * dims, dims);
      if (c < 0) {
        rows.push_back(ai + i * dims);
        out.push_back(Fn::apply(av[i++], T(0)));
      } else if (c > 0) {
        rows.push_back(bi + j * dims);
        out.push_back(Fn::apply(T(0), bv[j++]));
      } else {
        rows.push_back(ai + i * dims);
        out.push_back(Fn::apply(av[i++], bv[j++]));
      }
    }
    for (; i < a_nnz; ++i) rows.push_back(ai + i * dims), out.push_back(Fn::apply(av[i], T(0)));
    for (; j < b_nnz; ++j) rows.push_back(bi + j * dims), out.push_back(Fn::apply(T(0), bv[j]));
    const auto n = static_cast<Index>(out.size());
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{n, dims});
    Tensor& out_values = ctx.allocate_output(1, dtype_of_v<T>, Shape{n});
    for (Index k = 0; k < n; ++k)
      std::copy_n(rows[static_cast<std::size_t>(k)], dims,
                  out_indices.data<std::int64_t>() + k * dims);
    std::copy(out.begin(), out.end(), out_values.data<T>());
    return {};
  }
};

// -- registration --------------------------------------------------------------------------

// TensorFlow 2.21's CPU types of each op (sparse_add_op.cc and the others).
using SparseAddTypes = detail::TypeList<float, double, std::int64_t, std::int32_t, std::int16_t,
                                        std::int8_t, complex64_t, complex128_t>;
using MatMulTypes = detail::TypeList<float, double, std::int32_t, complex64_t, complex128_t>;

}  // namespace

namespace detail {

void register_sparse_tensor_kernels(KernelRegistry& r) {
  for_each_type(SparseAddTypes{}, [&](auto tag) {
    using T = decltype(tag);
    const DType t = dtype_of_v<T>;
    r.add(make_kernel_def<SparseAddOp<T>>("SparseAdd", "CPU", {{"T", {t}}}));
    r.add(make_kernel_def<SparseAddGradOp<T>>("SparseAddGrad", "CPU", {{"T", {t}}}));
  });
  for_each_type(NumberTypes{}, [&](auto tag) {
    using T = decltype(tag);
    const DType t = dtype_of_v<T>;
    r.add(make_kernel_def<SparseTensorDenseAddOp<T>>("SparseTensorDenseAdd", "CPU",
                                                     {{"T", {t}}, {"Tindices", kIndexTypes}}));
    r.add(make_kernel_def<SparseReduceOp<T, SumReducer, false>>("SparseReduceSum", "CPU",
                                                                {{"T", {t}}}));
    r.add(make_kernel_def<SparseReduceOp<T, SumReducer, true>>("SparseReduceSumSparse", "CPU",
                                                               {{"T", {t}}}));
  });
  for_each_type(RealNumberTypes{}, [&](auto tag) {
    using T = decltype(tag);
    const DType t = dtype_of_v<T>;
    r.add(make_kernel_def<SparseReduceOp<T, MaxReducer, false>>("SparseReduceMax", "CPU",
                                                                {{"T", {t}}}));
    r.add(make_kernel_def<SparseReduceOp<T, MaxReducer, true>>("SparseReduceMaxSparse", "CPU",
                                                               {{"T", {t}}}));
    r.add(
        make_kernel_def<SparseDenseCwiseOp<T, MulFn>>("SparseDenseCwiseMul", "CPU", {{"T", {t}}}));
    r.add(
        make_kernel_def<SparseDenseCwiseOp<T, DivFn>>("SparseDenseCwiseDiv", "CPU", {{"T", {t}}}));
    r.add(
        make_kernel_def<SparseDenseCwiseOp<T, AddFn>>("SparseDenseCwiseAdd", "CPU", {{"T", {t}}}));
    r.add(make_kernel_def<SparseSparseBinaryOp<T, MaxFn>>("SparseSparseMaximum", "CPU",
                                                          {{"T", {t}}}));
    r.add(make_kernel_def<SparseSparseBinaryOp<T, MinFn>>("SparseSparseMinimum", "CPU",
                                                          {{"T", {t}}}));
  });
  register_for_list<SparseTensorDenseMatMulOp>(r, "SparseTensorDenseMatMul", MatMulTypes{});
  // float16 and bfloat16 products are summed in float and rounded once, as TensorFlow's
  // (SumType); float16 softmax computes in float.
  register_via_float<SparseTensorDenseMatMulOp<float>>(r, "SparseTensorDenseMatMul");
  r.add(make_kernel_def<SparseSoftmaxOp<float>>("SparseSoftmax", "CPU", {{"T", {DType::float32}}}));
  r.add(
      make_kernel_def<SparseSoftmaxOp<double>>("SparseSoftmax", "CPU", {{"T", {DType::float64}}}));
  register_via_float<half_t>(
      r, "SparseSoftmax", make_kernel_def<SparseSoftmaxOp<float>>("SparseSoftmax", "CPU").factory);
  r.add(make_kernel_def<SparseReorderOp>("SparseReorder", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
