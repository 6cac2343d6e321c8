// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve and
// MatrixTriangularSolve: CPU kernels on Eigen with TensorFlow's checks and messages
// (linalg_ops_common.cc, matrix_inverse_op.cc, determinant_op.cc, cholesky_op.cc,
// matrix_solve_op.cc, matrix_triangular_solve_op_impl.h), each matrix of the batch (the
// leading dimensions) on its own. float and double, as TensorFlow's real CPU kernels, and
// complex64 and complex128 for MatrixSolve (Eig's gradient solves with the eigenvectors).
// Their definitions are in ops/src/defs/linalg_ops.cpp.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "linalg_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::broadcast_batches;
using detail::ConstMatrixMap;
using detail::Index;
using detail::LinearAlgebraKernel;
using detail::MatrixInputs;
using detail::MatrixMap;
using detail::RowMatrix;
using detail::StatusKernel;

// The leading ("batch") dimensions of a tensor of rank >= 2.
std::vector<std::int64_t> batch_dims(const Shape& s) {
  std::vector<std::int64_t> dims = s.dims();
  dims.resize(dims.size() - 2);
  return dims;
}

std::vector<std::int64_t> with_matrix(std::vector<std::int64_t> dims, Index rows, Index cols) {
  dims.push_back(rows);
  dims.push_back(cols);
  return dims;
}

// MatrixInverse's and MatrixSolve's attr adjoint, and their factorization of each matrix;
// the inputs analyzed as LinearAlgebraKernel<kInputs, kSquare>.
template <int kInputs, bool kSquare>
class AdjointLuKernel : public LinearAlgebraKernel<kInputs, kSquare> {
 public:
  AdjointLuKernel(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel<kInputs, kSquare>(c) {
    *s = c.get_attr("adjoint", &adjoint_);
  }

 protected:
  // The partially pivoted LU of `a` (of its adjoint with `adjoint`) into `*lu`; false for an
  // exactly zero pivot, TensorFlow's guard against singular matrices (no estimate of the
  // condition number).
  template <class T>
  bool factor(const ConstMatrixMap<T>& a, Eigen::PartialPivLU<RowMatrix<T>>* lu) const {
    if (adjoint_)
      lu->compute(a.adjoint());
    else
      lu->compute(a);
    using Real = typename Eigen::NumTraits<T>::Real;
    return lu->matrixLU().diagonal().cwiseAbs().minCoeff() > Real(0);
  }

 private:
  bool adjoint_ = false;
};

// MatrixInverse(input; adjoint): the inverse of each matrix (of its adjoint with `adjoint`).
// An exactly zero pivot fails with "Input is not invertible.".
template <class T>
class MatrixInverseOp : public AdjointLuKernel<1, true> {
 public:
  using AdjointLuKernel::AdjointLuKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index n = in.rows[0], count = in.count;
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    if (n == 0) return {};  // an empty matrix's inverse is empty
    for (Index b = 0; b < count; ++b) {
      ConstMatrixMap<T> a(input.data<T>() + b * n * n, n, n);
      Eigen::PartialPivLU<RowMatrix<T>> lu(n);
      if (!this->factor(a, &lu)) return invalid_argument("Input is not invertible.");
      MatrixMap<T>(out.data<T>() + b * n * n, n, n).noalias() = lu.inverse();
    }
    return {};
  }
};

// SLogDet: the log of |det| of `a` and its sign, by a partially pivoted LU; 1 and 0 for an
// empty matrix, sign 0 and log -inf for a singular one.
template <class T>
T log_abs_determinant(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& a, T* sign) {
  T log_abs_det = 0;
  *sign = 1;
  if (a.size() > 0) {
    Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> lu(a);
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> factors = lu.matrixLU();
    *sign = static_cast<T>(lu.permutationP().determinant());
    const auto diag = factors.diagonal().array().eval();
    const auto abs_diag = diag.cwiseAbs().eval();
    log_abs_det += abs_diag.log().sum();
    *sign *= (diag / abs_diag).prod();
  }
  if (!std::isfinite(log_abs_det)) {
    *sign = 0;
    log_abs_det = log_abs_det > 0 ? -std::log(T(0)) : std::log(T(0));
  }
  return log_abs_det;
}

// MatrixDeterminant(input) and LogMatrixDeterminant(input) (`log`: outputs sign and
// log_abs_determinant): one value per matrix, of shape input.shape[:-2].
template <class T, bool log>
class DeterminantOp : public LinearAlgebraKernel<1, true> {
 public:
  using LinearAlgebraKernel::LinearAlgebraKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index n = in.rows[0], count = in.count;
    const Tensor& input = ctx.input(0);
    const Shape out_shape(in.batch);
    T* first = ctx.allocate_output(0, input.dtype(), out_shape).template data<T>();
    T* second = log ? ctx.allocate_output(1, input.dtype(), out_shape).template data<T>() : nullptr;
    for (Index b = 0; b < count; ++b) {
      const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> a =
          ConstMatrixMap<T>(input.data<T>() + b * n * n, n, n);
      T sign = 0;
      const T log_abs_det = log_abs_determinant(a, &sign);
      if (log) {
        first[b] = sign;
        second[b] = log_abs_det;
      } else {
        first[b] = sign * std::exp(log_abs_det);
      }
    }
    return {};
  }
};

// Cholesky(input): the lower triangular L of each matrix with L L^T = input, read from the
// input's lower triangle. Where the decomposition fails, TensorFlow fills the lower triangle
// with NaN (its upper triangle is left as allocated; here zeros).
template <class T>
class CholeskyOp : public LinearAlgebraKernel<1, true> {
 public:
  using LinearAlgebraKernel::LinearAlgebraKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index n = in.rows[0], count = in.count;
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    if (n == 0) return {};
    for (Index b = 0; b < count; ++b) {
      ConstMatrixMap<T> a(input.data<T>() + b * n * n, n, n);
      MatrixMap<T> l(out.data<T>() + b * n * n, n, n);
      Eigen::LLT<RowMatrix<T>> llt(a);
      if (llt.info() == Eigen::Success) {
        l = llt.matrixL();
      } else {
        l.setZero();
        l.template triangularView<Eigen::Lower>().fill(std::numeric_limits<T>::quiet_NaN());
      }
    }
    return {};
  }
};

// MatrixSolve(matrix, rhs; adjoint): X with matrix X = rhs (adjoint(matrix) X = rhs), each
// pair of the batch by a partially pivoted LU; an exactly zero pivot fails with "Input matrix
// is not invertible.".
template <class T>
class MatrixSolveOp : public AdjointLuKernel<2, false> {
 public:
  using AdjointLuKernel::AdjointLuKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Tensor& matrix = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    const Index rows = in.rows[0], n = in.cols[0];
    if (rows != n) return invalid_argument("First input (lhs) must be a square matrix.");
    const Index rhs_rows = in.rows[1], k = in.cols[1];
    if (rhs_rows != rows) return invalid_argument("Input matrix and rhs are incompatible.");
    Tensor& out = ctx.allocate_output(0, matrix.dtype(), in.output({n, k}));
    if (n == 0 || k == 0) return {};  // the empty system's solution is empty
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> a(matrix.data<T>() + b * n * n, n, n);
      ConstMatrixMap<T> r(rhs.data<T>() + b * n * k, n, k);
      Eigen::PartialPivLU<RowMatrix<T>> lu(n);
      if (!this->factor(a, &lu)) return invalid_argument("Input matrix is not invertible.");
      MatrixMap<T>(out.data<T>() + b * n * k, n, k) = lu.solve(r);
    }
    return {};
  }
};

// MatrixTriangularSolve(matrix, rhs; lower, adjoint): X with T X = rhs for T the lower (or
// upper) triangle of matrix (its adjoint with `adjoint`), the other triangle never read; the
// batch dimensions broadcast. A zero on the diagonal gives infinities and NaN, as Eigen's
// substitution (TensorFlow does not check).
template <class T>
class MatrixTriangularSolveOp : public StatusKernel {
 public:
  MatrixTriangularSolveOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("lower", &lower_);
    if (s->ok()) *s = c.get_attr("adjoint", &adjoint_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& matrix = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    if (matrix.rank() < 2)
      return invalid_argument("In[0] ndims must be >= 2: " + std::to_string(matrix.rank()));
    if (rhs.rank() < 2)
      return invalid_argument("In[1] ndims must be >= 2: " + std::to_string(rhs.rank()));
    const Index d0 = matrix.shape().dim(matrix.rank() - 2);
    const Index d1 = matrix.shape().dim(matrix.rank() - 1);
    if (d0 != d1)
      return invalid_argument("In[0] matrices in the last dimensions must be square (" +
                              std::to_string(d1) + " =/= " + std::to_string(d0) + ")");
    std::vector<std::int64_t> batch;
    std::vector<Index> x_index, y_index;
    if (!broadcast_batches(batch_dims(matrix.shape()), batch_dims(rhs.shape()), &batch, &x_index,
                           &y_index))
      return invalid_argument("In[0] and In[1] must have compatible batch dimensions: " +
                              matrix.shape().to_string() + " vs. " + rhs.shape().to_string());
    const Index d2 = rhs.shape().dim(rhs.rank() - 2), d3 = rhs.shape().dim(rhs.rank() - 1);
    // The matrices are square, so the adjoint's swap of d0 and d1 changes nothing.
    if (d1 != d2)
      return invalid_argument("In[0] mismatch In[1] shape: " + std::to_string(d1) + " vs. " +
                              std::to_string(d2) + ": " + matrix.shape().to_string() + " " +
                              rhs.shape().to_string() + " " + (lower_ ? "1" : "0") + " " +
                              (adjoint_ ? "1" : "0"));
    Tensor& out = ctx.allocate_output(0, matrix.dtype(), Shape(with_matrix(batch, d0, d3)));
    if (out.num_elements() == 0) return {};
    for (std::size_t b = 0; b < x_index.size(); ++b) {
      ConstMatrixMap<T> a(matrix.data<T>() + x_index[b] * d0 * d0, d0, d0);
      ConstMatrixMap<T> r(rhs.data<T>() + y_index[b] * d2 * d3, d2, d3);
      MatrixMap<T> x(out.data<T>() + static_cast<Index>(b) * d0 * d3, d0, d3);
      if (lower_) {
        const auto triangle = a.template triangularView<Eigen::Lower>();
        if (adjoint_)
          x.noalias() = triangle.adjoint().solve(r);
        else
          x.noalias() = triangle.solve(r);
      } else {
        const auto triangle = a.template triangularView<Eigen::Upper>();
        if (adjoint_)
          x.noalias() = triangle.adjoint().solve(r);
        else
          x.noalias() = triangle.solve(r);
      }
    }
    return {};
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

template <class T>
using MatrixDeterminantOp = DeterminantOp<T, false>;
template <class T>
using LogMatrixDeterminantOp = DeterminantOp<T, true>;

}  // namespace

namespace detail {

void register_linalg_kernels(KernelRegistry& r) {
  register_for_types<MatrixInverseOp, float, double>(r, "MatrixInverse");
  register_for_types<MatrixDeterminantOp, float, double>(r, "MatrixDeterminant");
  register_for_types<LogMatrixDeterminantOp, float, double>(r, "LogMatrixDeterminant");
  register_for_types<CholeskyOp, float, double>(r, "Cholesky");
  register_for_types<MatrixSolveOp, float, double, complex64_t, complex128_t>(r, "MatrixSolve");
  register_for_types<MatrixTriangularSolveOp, float, double>(r, "MatrixTriangularSolve");
}

}  // namespace detail

}  // namespace af
