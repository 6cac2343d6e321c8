// Qr, Svd, SelfAdjointEigV2, MatrixSolveLs, MatrixSquareRoot, TridiagonalSolve and
// TridiagonalMatMul: CPU kernels on the Eigen decompositions TensorFlow's kernels use
// (qr_op_impl.h: HouseholderQR, svd_op_impl.h: BDCSVD, self_adjoint_eig_v2_op_impl.h:
// SelfAdjointEigenSolver, matrix_solve_ls_op_impl.h: normal equations with LLT or
// CompleteOrthogonalDecomposition, matrix_square_root_op.cc: MatrixFunctions' sqrt,
// tridiagonal_solve_op.cc, tridiagonal_matmul_op.cc), with the checks and messages of
// linalg_ops_common.cc's LinearAlgebraOp: each matrix of the batch (the leading dimensions)
// on its own, row-major as TensorFlow maps them. float and double (TensorFlow's complex and
// half kernels have no actorflow dtype). Their definitions are in
// ops/src/defs/linalg_decomp_ops.cpp. Lu, Eig, MatrixLogarithm, CholeskyGrad and
// BandedTriangularSolve are in linalg_more_ops.cpp, registered from here.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "linalg_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::ConstMatrixMap;
using detail::Index;
using detail::LinearAlgebraKernel;
using detail::MatrixFunctionOp;
using detail::MatrixInputs;
using detail::MatrixMap;
using detail::RowMatrix;

// Qr(input; full_matrices): Q [..., M, M] and R [..., M, N] with full_matrices, else
// [..., M, P] and [..., P, N] (P = min(M, N)), by Householder reflections (LAPACK's sign
// convention: R's diagonal may be negative).
template <class T>
class QrOp : public LinearAlgebraKernel<1> {
 public:
  QrOp(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("full_matrices", &full_matrices_);
  }

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index m = in.rows[0], n = in.cols[0], p = std::min(m, n);
    const Index q_cols = full_matrices_ ? m : p, r_rows = full_matrices_ ? m : p;
    const Tensor& input = ctx.input(0);
    Tensor& q = ctx.allocate_output(0, input.dtype(), in.output({m, q_cols}));
    Tensor& r = ctx.allocate_output(1, input.dtype(), in.output({r_rows, n}));
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> a(input.data<T>() + b * m * n, m, n);
      MatrixMap<T> q_b(q.data<T>() + b * m * q_cols, m, q_cols);
      MatrixMap<T> r_b(r.data<T>() + b * r_rows * n, r_rows, n);
      // An empty matrix: no reflections, Q the identity (as Eigen expands it), R empty or 0.
      if (p == 0) {
        q_b.setIdentity();
        continue;
      }
      Eigen::HouseholderQR<RowMatrix<T>> qr(a);
      if (full_matrices_) {
        q_b = qr.householderQ();
        r_b = qr.matrixQR().template triangularView<Eigen::Upper>();
      } else {
        const RowMatrix<T> tmp = RowMatrix<T>::Identity(m, p);
        q_b = qr.householderQ() * tmp;
        r_b = qr.matrixQR().block(0, 0, p, n).template triangularView<Eigen::Upper>();
      }
    }
    return {};
  }

 private:
  bool full_matrices_ = false;
};

// Svd(input; compute_uv, full_matrices): the singular values [..., P] in decreasing order
// and, with compute_uv, U and V ([..., M, M] and [..., N, N] with full_matrices, else
// [..., M, P] and [..., N, P]); without compute_uv, u and v are empty [0] tensors, as
// TensorFlow's LinearAlgebraOp allocates the outputs a kernel does not produce. Eigen's
// BDCSVD; where it fails every output of that matrix is NaN (TensorFlow logs an error).
template <class T>
class SvdOp : public LinearAlgebraKernel<1> {
 public:
  SvdOp(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("compute_uv", &compute_uv_);
    if (s->ok()) *s = c.get_attr("full_matrices", &full_matrices_);
  }

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index m = in.rows[0], n = in.cols[0], p = std::min(m, n);
    const Index u_cols = full_matrices_ ? m : p, v_cols = full_matrices_ ? n : p;
    const Tensor& input = ctx.input(0);
    const DType dt = input.dtype();
    Tensor& s = ctx.allocate_output(0, dt, in.output({p}));
    Tensor* u = nullptr;
    Tensor* v = nullptr;
    if (compute_uv_) {
      u = &ctx.allocate_output(1, dt, in.output({m, u_cols}));
      v = &ctx.allocate_output(2, dt, in.output({n, v_cols}));
    } else {
      ctx.allocate_output(1, dt, Shape({0}));
      ctx.allocate_output(2, dt, Shape({0}));
    }
    unsigned int options = 0;  // singular values only
    if (compute_uv_)
      options = full_matrices_ ? Eigen::ComputeFullU | Eigen::ComputeFullV
                               : Eigen::ComputeThinU | Eigen::ComputeThinV;
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> a(input.data<T>() + b * m * n, m, n);
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> s_b(s.data<T>() + b * p, p);
      MatrixMap<T> u_b(u ? u->data<T>() + b * m * u_cols : nullptr, m, u_cols);
      MatrixMap<T> v_b(v ? v->data<T>() + b * n * v_cols : nullptr, n, v_cols);
      if (p == 0) {
        // For an empty matrix where only one dimension is zero, TensorFlow still sets U or V
        // to the unit matrix of the dimension that is not.
        if (compute_uv_ && full_matrices_) {
          if (m > 0)
            u_b.setIdentity();
          else
            v_b.setIdentity();
        }
        continue;
      }
      Eigen::BDCSVD<RowMatrix<T>> svd(a, options);
      if (svd.info() != Eigen::Success) {
        s_b.fill(std::numeric_limits<T>::quiet_NaN());
        if (compute_uv_) {
          u_b.fill(std::numeric_limits<T>::quiet_NaN());
          v_b.fill(std::numeric_limits<T>::quiet_NaN());
        }
        continue;
      }
      s_b = svd.singularValues();
      if (compute_uv_) {
        u_b = svd.matrixU();
        v_b = svd.matrixV();
      }
    }
    return {};
  }

 private:
  bool compute_uv_ = true;
  bool full_matrices_ = false;
};

// SelfAdjointEigV2(input; compute_v): the eigenvalues [..., N] in increasing order of each
// square matrix (read from its lower triangle) and, with compute_v, its eigenvectors as
// columns [..., N, N] (else v is an empty [0]). Eigen's SelfAdjointEigenSolver (Householder
// tridiagonalization and implicit symmetric QR); its failure fails the step.
template <class T>
class SelfAdjointEigV2Op : public LinearAlgebraKernel<1, true> {
 public:
  SelfAdjointEigV2Op(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("compute_v", &compute_v_);
  }

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index n = in.rows[0];
    const Tensor& input = ctx.input(0);
    Tensor& e = ctx.allocate_output(0, input.dtype(), in.output({n}));
    Tensor& v = ctx.allocate_output(1, input.dtype(), compute_v_ ? in.output({n, n}) : Shape({0}));
    if (n == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> a(input.data<T>() + b * n * n, n, n);
      Eigen::SelfAdjointEigenSolver<RowMatrix<T>> eig(
          a, compute_v_ ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
      if (eig.info() != Eigen::Success)
        return invalid_argument(
            "Self-adjoint eigen decomposition was not successful. The input might not be "
            "valid.");
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(e.data<T>() + b * n, n) = eig.eigenvalues();
      if (compute_v_) MatrixMap<T>(v.data<T>() + b * n * n, n, n) = eig.eigenvectors();
    }
    return {};
  }

 private:
  bool compute_v_ = true;
};

// MatrixSolveLs(matrix, rhs, l2_regularizer; fast): the least-squares solution [..., N, K]
// of matrix [..., M, N] X = rhs [..., M, K]. fast: the normal equations (A^T A + l2 I) X =
// A^T B for M >= N, else X = A^T (A A^T + l2 I)^{-1} B, by Cholesky; not fast: Eigen's
// complete orthogonal decomposition (the minimum-norm solution; l2_regularizer ignored, as
// TensorFlow's kernel).
template <class T>
class MatrixSolveLsOp : public LinearAlgebraKernel<2> {
 public:
  MatrixSolveLsOp(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("fast", &fast_);
  }

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    // ValidateSolver.
    if (in.rows[0] != in.rows[1]) return invalid_argument("Input matrix and rhs are incompatible.");
    const Index rows = in.rows[0], cols = in.cols[0], k = in.cols[1];
    const Tensor& matrix = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.allocate_output(0, matrix.dtype(), in.output({cols, k}));
    if (in.count == 0) return {};
    // TensorFlow reads the regularizer inside each matrix's computation: a batch without
    // matrices never checks it.
    const Tensor& l2_in = ctx.input(2);
    if (l2_in.rank() != 0)
      return invalid_argument("l2_regularizer must be scalar, got shape " +
                              l2_in.shape().to_string());
    const double l2 = l2_in.data<double>()[0];
    if (!(l2 >= 0)) return invalid_argument("l2_regularizer must be >= 0.");
    // The result is the empty matrix (here zeros where it has entries: TensorFlow leaves
    // them as allocated).
    if (rows == 0 || cols == 0 || k == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> a(matrix.data<T>() + b * rows * cols, rows, cols);
      ConstMatrixMap<T> r(rhs.data<T>() + b * rows * k, rows, k);
      MatrixMap<T> x(out.data<T>() + b * cols * k, cols, k);
      if (!fast_) {
        x = a.completeOrthogonalDecomposition().solve(r);
        continue;
      }
      const Index order = rows >= cols ? cols : rows;
      RowMatrix<T> gramian = RowMatrix<T>::Zero(order, order);
      if (rows >= cols)
        gramian.template triangularView<Eigen::Lower>() = a.adjoint() * a;
      else
        gramian.template triangularView<Eigen::Lower>() = a * a.adjoint();
      if (l2 > 0) gramian += (static_cast<T>(l2) * RowMatrix<T>::Ones(order, 1)).asDiagonal();
      const Eigen::LLT<Eigen::Ref<RowMatrix<T>>, Eigen::Lower> llt(gramian);
      if (llt.info() != Eigen::Success)
        return invalid_argument(std::string("Input matrix was rank deficient or "
                                            "ill-conditioned. Try setting fast=False or ") +
                                (rows >= cols ? "provide a larger l2_regularizer > 0."
                                              : "provide an l2_regularizer > 0."));
      if (rows >= cols) {
        x.noalias() = a.adjoint() * r;
        llt.solveInPlace(x);
      } else {
        x.noalias() = a.adjoint() * llt.solve(r);
      }
    }
    return {};
  }

 private:
  bool fast_ = true;
};

// MatrixSquareRoot(input): the principal square root of each square matrix by Eigen's
// MatrixFunctions (real Schur form); a matrix with negative real eigenvalues gives NaN, as
// TensorFlow's kernel.
struct SquareRoot {
  template <class M>
  static auto apply(const M& m) {
    return m.sqrt();
  }
};
template <class T>
using MatrixSquareRootOp = MatrixFunctionOp<T, SquareRoot>;

// TridiagonalSolve(diagonals, rhs; partial_pivoting, perturb_singular): X [..., M, K] with
// T X = rhs for T given by diagonals [..., 3, M] (superdiagonal, diagonal, subdiagonal; the
// superdiagonal's last and the subdiagonal's first entries are not read). A singular system
// gives NaN (TensorFlow logs a warning, no error).
template <class T>
class TridiagonalSolveOp : public LinearAlgebraKernel<2> {
 public:
  TridiagonalSolveOp(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("partial_pivoting", &pivoting_);
    if (!s->ok()) return;
    if (!c.get_attr("perturb_singular", &perturb_singular_).ok()) perturb_singular_ = false;
    if (!pivoting_ && perturb_singular_)
      *s = invalid_argument("Setting perturb_singular requires also setting partial_pivoting.");
  }

 protected:
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;

  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    if (in.rows[0] != 3)
      return invalid_argument("Expected diagonals to be provided as a matrix with 3 rows, got " +
                              std::to_string(in.rows[0]) + " rows.");
    if (in.cols[0] != in.rows[1])
      return invalid_argument(
          "Expected the same number of left-hand sides and right-hand sides, got " +
          std::to_string(in.cols[0]) + " and " + std::to_string(in.rows[1]) + ".");
    const Index m = in.cols[0], k = in.cols[1];
    const Tensor& diagonals = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.allocate_output(0, rhs.dtype(), rhs.shape());
    if (m == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      ConstMatrixMap<T> diags(diagonals.data<T>() + b * 3 * m, 3, m);
      ConstMatrixMap<T> r(rhs.data<T>() + b * m * k, m, k);
      MatrixMap<T> x(out.data<T>() + b * m * k, m, k);
      const Row super = diags.row(0), diag = diags.row(1), sub = diags.row(2);
      if (pivoting_ && perturb_singular_)
        solve_perturbed(super, diag, sub, r, x);
      else if (m == 1 && diag(0) == T(0))
        x.fill(std::numeric_limits<T>::quiet_NaN());  // "... it is a scalar with value zero."
      else if (m == 1)
        x.row(0) = r.row(0) / diag(0);
      else if (pivoting_)
        solve_pivoting(super, diag, sub, r, x);
      else
        solve_thomas(super, diag, sub, r, x);
    }
    return {};
  }

 private:
  // MaybePerturbPivot (from LAPACK's xLAGTS): moves a tiny pivot away from zero, or scales
  // it and the row up, so that neither rhs / pivot nor 1 / pivot overflows.
  static void perturb_pivot(T perturb, T& pivot, Row& row) {
    constexpr T one(1);
    constexpr T tiny = std::numeric_limits<T>::min();
    constexpr T small = one / std::numeric_limits<T>::max();
    constexpr T safemin = small < tiny ? tiny : (one + std::numeric_limits<T>::epsilon()) * small;
    constexpr T bignum = one / safemin;
    T abs_pivot = std::abs(pivot);
    if (abs_pivot >= one) return;
    perturb = std::max(std::abs(perturb), safemin);
    perturb = std::copysign(perturb, pivot);
    bool stop = false;
    const T max_factor = row.array().abs().maxCoeff();
    while (abs_pivot < one && !stop) {
      if (abs_pivot < safemin) {
        if (abs_pivot == 0 || max_factor * safemin > abs_pivot) {
          pivot += perturb;
          perturb *= 2;
        } else {
          pivot *= bignum;
          row *= bignum;
          stop = true;
        }
      } else if (max_factor > abs_pivot * bignum) {
        pivot += perturb;
        perturb *= 2;
      } else {
        stop = true;
      }
      abs_pivot = std::abs(pivot);
    }
  }

  // SolveWithGaussianEliminationWithPivotingAndPerturbSingular (LAPACK's xLAGTF + xLAGTS).
  static void solve_perturbed(const Row& super, const Row& diag, const Row& sub,
                              const ConstMatrixMap<T>& rhs, MatrixMap<T>& x) {
    constexpr T zero(0), one(1);
    constexpr T eps = std::numeric_limits<T>::epsilon();
    const Index n = diag.size();
    if (n == 1) {
      T denom = diag(0);
      Row row = rhs.row(0);
      perturb_pivot(eps * std::abs(denom), denom, row);
      x = row * (one / denom);
      return;
    }
    Eigen::Array<T, Eigen::Dynamic, 3> u(n, 3);
    u(0, 0) = diag(0);
    u(0, 1) = super(0);
    T max_abs_u = std::max(std::abs(u(0, 0)), std::abs(u(0, 1)));
    T scale1 = std::abs(u(0, 0)) + std::abs(u(0, 1));
    x.row(0) = rhs.row(0);
    for (Index k = 0; k < n - 1; ++k) {
      u(k + 1, 0) = diag(k + 1);
      T scale2 = std::abs(sub(k + 1)) + std::abs(u(k + 1, 0));
      if (k < n - 2) scale2 += std::abs(super(k + 1));
      if (sub(k + 1) == zero) {
        scale1 = scale2;
        u(k + 1, 1) = super(k + 1);
        u(k, 2) = zero;
        x.row(k + 1) = rhs.row(k + 1);
      } else {
        const T piv1 = u(k, 0) == zero ? zero : std::abs(u(k, 0)) / scale1;
        const T piv2 = std::abs(sub(k + 1)) / scale2;
        if (piv2 <= piv1) {
          scale1 = scale2;
          const T factor = sub(k + 1) / u(k, 0);
          u(k + 1, 0) = diag(k + 1) - factor * u(k, 1);
          u(k + 1, 1) = super(k + 1);
          u(k, 2) = zero;
          x.row(k + 1) = rhs.row(k + 1) - factor * x.row(k);
        } else {
          const T factor = u(k, 0) / sub(k + 1);
          u(k, 0) = sub(k + 1);
          u(k + 1, 0) = u(k, 1) - factor * diag(k + 1);
          u(k, 1) = diag(k + 1);
          if (k < n - 2) {
            u(k, 2) = super(k + 1);
            u(k + 1, 1) = -factor * super(k + 1);
          }
          x.row(k + 1) = x.row(k) - factor * rhs.row(k + 1);
          x.row(k) = rhs.row(k + 1);
        }
      }
      if (k < n - 2)
        for (int i = 0; i < 3; ++i) max_abs_u = std::max(max_abs_u, std::abs(u(k, i)));
    }
    max_abs_u = std::max(max_abs_u, std::abs(u(n - 1, 0)));
    const T tol = eps * max_abs_u;
    T denom = u(n - 1, 0);
    Row row = x.row(n - 1);
    perturb_pivot(tol, denom, row);
    x.row(n - 1) = row * (one / denom);
    denom = u(n - 2, 0);
    row = x.row(n - 2) - u(n - 2, 1) * x.row(n - 1);
    perturb_pivot(std::copysign(tol, denom), denom, row);
    x.row(n - 2) = row * (one / denom);
    for (Index k = n - 3; k >= 0; --k) {
      row = x.row(k) - u(k, 1) * x.row(k + 1) - u(k, 2) * x.row(k + 2);
      denom = u(k, 0);
      perturb_pivot(std::copysign(tol, denom), denom, row);
      x.row(k) = row * (one / denom);
    }
  }

  // SolveWithGaussianEliminationWithPivoting (LAPACK's dgtsv without overwriting the input).
  static void solve_pivoting(const Row& super, const Row& diag, const Row& sub,
                             const ConstMatrixMap<T>& rhs, MatrixMap<T>& x) {
    const Index n = diag.size();
    const T zero(0);
    Eigen::Array<T, Eigen::Dynamic, 3> u(n, 3);
    u(0, 0) = diag(0);
    u(0, 1) = super(0);
    x.row(0) = rhs.row(0);
    for (Index i = 0; i < n - 1; ++i) {
      if (std::abs(u(i, 0)) >= std::abs(sub(i + 1))) {
        if (u(i, 0) == zero) {
          x.fill(std::numeric_limits<T>::quiet_NaN());  // "The matrix is not invertible."
          return;
        }
        const T factor = sub(i + 1) / u(i, 0);
        u(i + 1, 0) = diag(i + 1) - factor * u(i, 1);
        x.row(i + 1) = rhs.row(i + 1) - factor * x.row(i);
        if (i != n - 2) {
          u(i + 1, 1) = super(i + 1);
          u(i, 2) = 0;
        }
      } else {
        const T factor = u(i, 0) / sub(i + 1);
        u(i, 0) = sub(i + 1);
        u(i + 1, 0) = u(i, 1) - factor * diag(i + 1);
        u(i, 1) = diag(i + 1);
        x.row(i + 1) = x.row(i) - factor * rhs.row(i + 1);
        x.row(i) = rhs.row(i + 1);
        if (i != n - 2) {
          u(i, 2) = super(i + 1);
          u(i + 1, 1) = -factor * super(i + 1);
        }
      }
    }
    if (u(n - 1, 0) == zero) {
      x.fill(std::numeric_limits<T>::quiet_NaN());
      return;
    }
    x.row(n - 1) /= u(n - 1, 0);
    x.row(n - 2) = (x.row(n - 2) - u(n - 2, 1) * x.row(n - 1)) / u(n - 2, 0);
    for (Index i = n - 3; i >= 0; --i)
      x.row(i) = (x.row(i) - u(i, 1) * x.row(i + 1) - u(i, 2) * x.row(i + 2)) / u(i, 0);
  }

  // SolveWithThomasAlgorithm: no pivoting; a zero pivot gives NaN ("The matrix is either not
  // invertible, or requires pivoting. Try setting partial_pivoting = True.").
  static void solve_thomas(const Row& super, const Row& diag, const Row& sub,
                           const ConstMatrixMap<T>& rhs, MatrixMap<T>& x) {
    const Index n = diag.size();
    const T zero(0);
    Eigen::Matrix<T, Eigen::Dynamic, 1> u(n);
    if (diag(0) == zero) {
      x.fill(std::numeric_limits<T>::quiet_NaN());
      return;
    }
    u(0) = super(0) / diag(0);
    x.row(0) = rhs.row(0) / diag(0);
    for (Index i = 1; i < n; ++i) {
      const T denom = diag(i) - sub(i) * u(i - 1);
      if (denom == zero) {
        x.fill(std::numeric_limits<T>::quiet_NaN());
        return;
      }
      u(i) = super(i) / denom;
      x.row(i) = (rhs.row(i) - sub(i) * x.row(i - 1)) / denom;
    }
    for (Index i = n - 2; i >= 0; --i) x.row(i) -= u(i) * x.row(i + 1);
  }

  bool pivoting_ = true;
  bool perturb_singular_ = false;
};

// TridiagonalMatMul(superdiag, maindiag, subdiag, rhs): T rhs for the tridiagonal T given
// by three [..., 1, M] diagonals (the superdiagonal's last and the subdiagonal's first
// entries not read) and rhs [..., M, N]; the batch dimensions do not broadcast.
template <class T>
class TridiagonalMatMulOp : public LinearAlgebraKernel<4> {
 public:
  using LinearAlgebraKernel::LinearAlgebraKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    const Index m = in.rows[3], k = in.cols[3];
    static const char* const kWhat[] = {"superdiagonal", "main diagonal", "subdiagonal"};
    for (int i = 0; i < 3; ++i)
      if (in.rows[i] != 1 || in.cols[i] != m)
        return invalid_argument(std::string("Invalid ") + kWhat[i] + " shape.");
    const Tensor& rhs = ctx.input(3);
    Tensor& out = ctx.allocate_output(0, rhs.dtype(), rhs.shape());
    if (m == 0 || k == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      const T* super = ctx.input(0).data<T>() + b * m;
      const T* main = ctx.input(1).data<T>() + b * m;
      const T* sub = ctx.input(2).data<T>() + b * m;
      ConstMatrixMap<T> r(rhs.data<T>() + b * m * k, m, k);
      MatrixMap<T> result(out.data<T>() + b * m * k, m, k);
      // TensorFlow's order: the diagonal product, then the subdiagonal's, then the
      // superdiagonal's terms added.
      for (Index i = 0; i < m; ++i) result.row(i) = r.row(i) * main[i];
      for (Index i = 1; i < m; ++i) result.row(i) += r.row(i - 1) * sub[i];
      for (Index i = 0; i + 1 < m; ++i) result.row(i) += r.row(i + 1) * super[i];
    }
    return {};
  }
};

}  // namespace

namespace detail {

void register_linalg_decomp_kernels(KernelRegistry& r) {
  register_for_types<QrOp, float, double>(r, "Qr");
  register_for_types<SvdOp, float, double>(r, "Svd");
  register_for_types<SelfAdjointEigV2Op, float, double>(r, "SelfAdjointEigV2");
  register_for_types<MatrixSolveLsOp, float, double>(r, "MatrixSolveLs");
  register_for_types<MatrixSquareRootOp, float, double>(r, "MatrixSquareRoot");
  register_for_types<TridiagonalSolveOp, float, double>(r, "TridiagonalSolve");
  register_for_types<TridiagonalMatMulOp, float, double>(r, "TridiagonalMatMul");
  register_linalg_more_kernels(r);
}

}  // namespace detail

}  // namespace af
