#pragma once

// What the linear algebra kernels (linalg_ops.cpp, linalg_decomp_ops.cpp, linalg_more_ops.cpp)
// share: row-major Eigen views of a tensor's matrices, linalg_ops_common.cc's LinearAlgebraOp
// (its view of the inputs, AnalyzeInputs and ValidateSingleSquareMatrix, with its messages,
// and a kernel base that analyzes them before its work) and MatMulBCast's broadcast of two
// batches of matrices. Private to the kernels module.
#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"

namespace af::detail {

/// A dense row-major matrix of T, as TensorFlow maps a tensor's innermost matrices.
template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// A read-only row-major view of a matrix in a tensor's memory.
template <class T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
/// A writable row-major view of a matrix in a tensor's memory.
template <class T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;

/// The inputs' matrices as LinearAlgebraOp::AnalyzeInputs sees them: the shape of each of the
/// first `count` inputs' innermost matrices, the batch dimensions (input 0's leading ones) and
/// how many matrices there are.
struct MatrixInputs {
  std::vector<std::int64_t> batch;  ///< input 0's dimensions but the last two
  Index count = 1;                  ///< the product of `batch`: matrices per input
  std::vector<Index> rows;          ///< per input, its matrices' rows
  std::vector<Index> cols;          ///< per input, its matrices' columns

  /// `batch` + [rows, cols], or `batch` + [size] for a vector output.
  Shape output(std::initializer_list<Index> matrix) const {
    std::vector<std::int64_t> dims = batch;
    dims.insert(dims.end(), matrix.begin(), matrix.end());
    return Shape(std::move(dims));
  }
};

/// AnalyzeInputs for the first `count` (at least 1) inputs of `ctx`: input 0 of rank >= 2,
/// the others of its rank and leading dimensions, else InvalidArgument ("Input tensor 0 must
/// have rank >= 2, got 1", "All input tensors must have the same rank.", "All input tensors
/// must have the same outer dimensions."). Appends to `in`'s rows and cols, so `in` should
/// be fresh.
inline Status analyze_inputs(const OpKernelContext& ctx, int count, MatrixInputs* in) {
  const Tensor& first = ctx.input(0);
  const int rank = first.rank();
  if (rank < 2)
    return invalid_argument("Input tensor 0 must have rank >= 2, got " + std::to_string(rank));
  in->batch.assign(first.shape().dims().begin(), first.shape().dims().end() - 2);
  in->count = 1;
  for (auto d : in->batch) in->count *= d;
  for (int i = 0; i < count; ++i) {
    const Tensor& t = ctx.input(i);
    if (i > 0) {
      if (t.rank() != rank) return invalid_argument("All input tensors must have the same rank.");
      for (int d = 0; d < rank - 2; ++d)
        if (t.shape().dim(d) != first.shape().dim(d))
          return invalid_argument("All input tensors must have the same outer dimensions.");
    }
    in->rows.push_back(t.shape().dim(rank - 2));
    in->cols.push_back(t.shape().dim(rank - 1));
  }
  return {};
}

/// ValidateSingleSquareMatrix, the default check of the single-input ops: analyze_inputs of
/// input 0, whose matrices must be square ("Input matrix must be square.").
inline Status square_input(const OpKernelContext& ctx, MatrixInputs* in) {
  ACTORFLOW_RETURN_IF_ERROR(analyze_inputs(ctx, 1, in));
  if (in->rows[0] != in->cols[0]) return invalid_argument("Input matrix must be square.");
  return {};
}

/// A kernel of LinearAlgebraOp's kind: each run first analyzes the first `kInputs` inputs
/// (analyze_inputs, or with `kSquare` square_input of the one input), failing the run with
/// that status, then hands them to compute_matrices.
template <int kInputs, bool kSquare = false>
class LinearAlgebraKernel : public StatusKernel {
  static_assert(kInputs >= 1 && (!kSquare || kInputs == 1));

 public:
  using StatusKernel::StatusKernel;

 protected:
  /// The kernel's work on the analyzed inputs `in`; a non-OK status fails the step.
  virtual Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) = 0;

  /// Analyzes the inputs, then runs compute_matrices.
  Status run(OpKernelContext& ctx) final {
    MatrixInputs in;
    if constexpr (kSquare)
      ACTORFLOW_RETURN_IF_ERROR(square_input(ctx, &in));
    else
      ACTORFLOW_RETURN_IF_ERROR(analyze_inputs(ctx, kInputs, &in));
    return compute_matrices(ctx, in);
  }
};

/// MatMulBCast: the NumPy broadcast `*out` of the batch shapes `x` and `y` and, per output
/// matrix in row-major order, the index of the matrix of x and of y it reads. False when
/// they do not broadcast.
inline bool broadcast_batches(const std::vector<std::int64_t>& x,
                              const std::vector<std::int64_t>& y, std::vector<std::int64_t>* out,
                              std::vector<Index>* x_index, std::vector<Index>* y_index) {
  const std::size_t rank = std::max(x.size(), y.size());
  out->assign(rank, 1);
  std::vector<std::int64_t> xd(rank, 1), yd(rank, 1);
  std::copy(x.begin(), x.end(), xd.begin() + static_cast<std::ptrdiff_t>(rank - x.size()));
  std::copy(y.begin(), y.end(), yd.begin() + static_cast<std::ptrdiff_t>(rank - y.size()));
  for (std::size_t i = 0; i < rank; ++i) {
    if (xd[i] != yd[i] && xd[i] != 1 && yd[i] != 1) return false;
    (*out)[i] = xd[i] == 1 ? yd[i] : xd[i];
  }
  Index total = 1;
  for (auto d : *out) total *= d;
  x_index->assign(static_cast<std::size_t>(total), 0);
  y_index->assign(static_cast<std::size_t>(total), 0);
  std::vector<Index> coord(rank, 0);
  for (Index o = 0; o < total; ++o) {
    Index xi = 0, yi = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      xi = xi * xd[i] + (xd[i] == 1 ? 0 : coord[i]);
      yi = yi * yd[i] + (yd[i] == 1 ? 0 : coord[i]);
    }
    (*x_index)[static_cast<std::size_t>(o)] = xi;
    (*y_index)[static_cast<std::size_t>(o)] = yi;
    for (std::size_t i = rank; i-- > 0;) {
      if (++coord[i] < (*out)[i]) break;
      coord[i] = 0;
    }
  }
  return true;
}

/// A kernel applying one function of square matrices to each matrix of its input (MatrixSquareRoot,
/// MatrixLogarithm): `Fn::apply(m)` of each RowMatrix<T> `m`, for Eigen's MatrixFunctions,
/// which the kernel's file includes.
template <class T, class Fn>
class MatrixFunctionOp : public LinearAlgebraKernel<1, true> {
 public:
  using LinearAlgebraKernel::LinearAlgebraKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index n = in.rows[0];
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    if (n == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      const RowMatrix<T> tmp = ConstMatrixMap<T>(input.data<T>() + b * n * n, n, n);
      MatrixMap<T>(out.data<T>() + b * n * n, n, n) = Fn::apply(tmp);
    }
    return {};
  }
};

}  // namespace af::detail
