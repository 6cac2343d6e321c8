// Lu, Eig, MatrixLogarithm, CholeskyGrad and BandedTriangularSolve: CPU kernels on the Eigen
// algorithms TensorFlow's kernels use (lu_op.cc: PartialPivLU; eig_op_impl.h: EigenSolver of
// a real input, ComplexEigenSolver of a complex one; matrix_logarithm_op.cc: MatrixFunctions' log;
// cholesky_grad.cc: Murray's blocked backward pass; banded_triangular_solve_op.cc: a band
// limited substitution), with their checks and messages, each matrix of the batch (the
// leading dimensions) on its own, row-major as TensorFlow maps them. Registered from
// register_linalg_decomp_kernels; their definitions are in ops/src/defs/linalg_decomp_ops.cpp.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cstdint>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
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
using detail::MatrixFunctionOp;
using detail::MatrixInputs;
using detail::MatrixMap;
using detail::RowMatrix;
using detail::StatusKernel;

template <class T>
using Real = typename Eigen::NumTraits<T>::Real;

// Lu(input; output_idx_type): the packed factors of P input = L U for each square matrix
// (L's strict lower triangle with its unit diagonal implied, U's upper triangle) and the
// permutation p: row i of L U is row p[i] of the input. A partially pivoted LU of a
// column-major copy, as TensorFlow's kernel; an exactly zero pivot fails the step with
// "Input is not invertible." (the outputs are computed all the same). Not a LinearAlgebraOp
// in TensorFlow: its own rank message.
template <class T, class Tidx>
class LuOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int rank = input.rank();
    if (rank < 2)
      return invalid_argument("Input tensor must have rank >= 2, got " + std::to_string(rank));
    const Index n = input.shape().dim(rank - 2);
    if (input.shape().dim(rank - 1) != n) return invalid_argument("Input matrix must be square.");
    std::vector<std::int64_t> p_dims(input.shape().dims().begin(), input.shape().dims().end() - 1);
    Tensor& lu = ctx.allocate_output(0, input.dtype(), input.shape());
    Tensor& p = ctx.allocate_output(1, dtype_of_v<Tidx>, Shape(std::move(p_dims)));
    if (n == 0) return {};
    const Index count = input.num_elements() / (n * n);
    bool invertible = true;
    for (Index b = 0; b < count; ++b) {
      const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> a =
          ConstMatrixMap<T>(input.data<T>() + b * n * n, n, n);
      const Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> factors(a);
      MatrixMap<T> packed(lu.data<T>() + b * n * n, n, n);
      packed = factors.matrixLU();
      // Eigen's P sends row i of the input to row indices[i] of L U; p is its inverse.
      const auto& indices = factors.permutationP().indices();
      Tidx* rows = p.data<Tidx>() + b * n;
      for (Index i = 0; i < n; ++i) rows[indices(i)] = static_cast<Tidx>(i);
      if (!(packed.diagonal().cwiseAbs().minCoeff() > Real<T>(0))) invertible = false;
    }
    if (!invertible) return invalid_argument("Input is not invertible.");
    return {};
  }
};

// TensorFlow's DataType number of a complex output type (the "Invalid output dtype" message
// of a Tout that does not match the kernel's).
int tf_complex_type_number(DType t) { return t == DType::complex128 ? 18 : 8; }

// Eig(input; compute_v, Tout): the eigenvalues [..., N] of each square matrix and, with
// compute_v, its eigenvectors as columns [..., N, N] of unit norm (else v is an empty [0]).
// As TensorFlow 2.21's kernels: a real matrix by Eigen's EigenSolver (real Schur form: the
// eigenvalues in the order of its diagonal blocks, a conjugate pair with the positive
// imaginary part first, real eigenvectors for real eigenvalues), a complex one by
// ComplexEigenSolver (complex Schur form, the eigenvalues sorted by increasing modulus). The
// kernel of input type `In` gives `Out` (float and complex64 give complex64, double and
// complex128 complex128); another Tout fails as TensorFlow's allocation does ("Invalid
// output dtype 18 vs 8"). A failed decomposition (NaN or infinite entries) fails the step.
template <class In, class Out>
class EigOp : public LinearAlgebraKernel<1, true> {
 public:
  EigOp(OpKernelConstruction& c, Status* s) : LinearAlgebraKernel(c) {
    *s = c.get_attr("compute_v", &compute_v_);
    if (s->ok()) *s = c.get_attr("Tout", &tout_);
  }

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    constexpr DType kOut = dtype_of_v<Out>;
    if (tout_ != kOut)
      return invalid_argument("Invalid output dtype " +
                              std::to_string(tf_complex_type_number(tout_)) + " vs " +
                              std::to_string(tf_complex_type_number(kOut)));
    const Index n = in.rows[0];
    const Tensor& input = ctx.input(0);
    Tensor& e = ctx.allocate_output(0, kOut, in.output({n}));
    Tensor& v = ctx.allocate_output(1, kOut, compute_v_ ? in.output({n, n}) : Shape({0}));
    if (n == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      const ConstMatrixMap<In> a(input.data<In>() + b * n * n, n, n);
      VectorMap e_b(e.data<Out>() + b * n, n);
      MatrixMap<Out> v_b(compute_v_ ? v.data<Out>() + b * n * n : nullptr, n, n);
      // TensorFlow's Eigen refuses a NaN or infinite entry (a complex 1 x 1 matrix is its own
      // Schur form and passes); Eigen 3.4 may not notice it, so it is checked here.
      const bool finite = a.allFinite() || (kComplexInput && n == 1);
      if (!finite || !decompose(a, e_b, v_b))
        return invalid_argument(
            "Eigen decomposition was not successful. The input might not be valid.");
    }
    return {};
  }

 private:
  using VectorMap = Eigen::Map<Eigen::Matrix<Out, Eigen::Dynamic, 1>>;
  static constexpr bool kComplexInput = Eigen::NumTraits<In>::IsComplex;

  // `a` decomposed into `e` and, with compute_v, `v` by the solver TensorFlow uses for the
  // input type; false when it fails.
  bool decompose(const ConstMatrixMap<In>& a, VectorMap& e, MatrixMap<Out>& v) const {
    if constexpr (kComplexInput)
      return store(Eigen::ComplexEigenSolver<RowMatrix<In>>(a, compute_v_), e, v);
    else
      return store(Eigen::EigenSolver<RowMatrix<In>>(a, compute_v_), e, v);
  }

  // The eigenvalues of the decomposition `eig` into `e` and, with compute_v, its eigenvectors
  // into `v`; false when the decomposition failed.
  template <class Solver>
  bool store(const Solver& eig, VectorMap& e, MatrixMap<Out>& v) const {
    if (eig.info() != Eigen::Success) return false;
    e = eig.eigenvalues();
    if (compute_v_) v = eig.eigenvectors();
    return true;
  }

  bool compute_v_ = true;
  DType tout_ = DType::complex64;
};

template <class T>
using EigFromOwnType = EigOp<T, T>;

// MatrixLogarithm(input): the principal logarithm of each square complex matrix (Eigen's
// MatrixFunctions: Schur decomposition and Parlett recurrence); a singular matrix gives NaN,
// as TensorFlow's kernel.
struct Logarithm {
  template <class M>
  static auto apply(const M& m) {
    return m.log();
  }
};
template <class T>
using MatrixLogarithmOp = MatrixFunctionOp<T, Logarithm>;

// CholeskyGrad(l, grad): the symmetrized gradient with respect to A of a loss whose gradient
// with respect to L = cholesky(A) is `grad`, both read from their lower triangles only
// (Iain Murray, "Differentiation of the Cholesky decomposition", 2016). TensorFlow's blocked
// algorithm: blocks of 32 columns from the last, each updating the rows below it and then
// itself column by column; the result is (G + G^T) / 2.
template <class T>
class CholeskyGradOp : public LinearAlgebraKernel<2> {
 public:
  using LinearAlgebraKernel::LinearAlgebraKernel;

 protected:
  Status compute_matrices(OpKernelContext& ctx, const MatrixInputs& in) override {
    if (in.rows[0] != in.rows[1] || in.cols[0] != in.cols[1])
      return invalid_argument("Inputs (L and grad) must have the same shape.");
    if (in.rows[0] != in.cols[0]) return invalid_argument("Inputs must be a square matrices.");
    const Index n = in.rows[0];
    const Tensor& l_in = ctx.input(0);
    const Tensor& grad_in = ctx.input(1);
    Tensor& out = ctx.allocate_output(0, l_in.dtype(), in.output({n, n}));
    if (n == 0) return {};
    for (Index b = 0; b < in.count; ++b) {
      const RowMatrix<T> l = ConstMatrixMap<T>(l_in.data<T>() + b * n * n, n, n)
                                 .template triangularView<Eigen::Lower>();
      MatrixMap<T> g(out.data<T>() + b * n * n, n, n);
      g = ConstMatrixMap<T>(grad_in.data<T>() + b * n * n, n, n)
              .template triangularView<Eigen::Lower>();
      backprop_blocked(l, g);
      g = (T(0.5) * (g + g.transpose())).eval();
    }
    return {};
  }

 private:
  using ConstRef = Eigen::Ref<const RowMatrix<T>>;
  using Ref = Eigen::Ref<RowMatrix<T>>;

  // The blocked pass over `g` (the lower triangle of the gradient, replaced by the gradient
  // with respect to A's lower triangle). Per block D of columns [begin, end): R to its left,
  // C below it, B below R; the *_g blocks are the same places of g.
  static void backprop_blocked(const RowMatrix<T>& l, MatrixMap<T>& g) {
    constexpr Index kBlock = 32;
    const Index n = l.rows();
    for (Index end = n; end > 0; end -= kBlock) {
      const Index begin = std::max<Index>(0, end - kBlock);
      const Index size = end - begin, tail = n - end;
      const auto r = l.block(begin, 0, size, begin);
      const auto d = l.block(begin, begin, size, size);
      const auto c = l.block(end, begin, tail, size);
      const auto below_r = l.block(end, 0, tail, begin);
      auto r_g = g.block(begin, 0, size, begin);
      auto d_g = g.block(begin, begin, size, size);
      auto c_g = g.block(end, begin, tail, size);
      auto below_r_g = g.block(end, 0, tail, begin);
      // C_g D^{-1}: a solve with D^H from the left, transposed back.
      const RowMatrix<T> solved =
          d.adjoint().template triangularView<Eigen::Upper>().solve(c_g.adjoint());
      c_g = solved.adjoint();
      const RowMatrix<T> cc = c_g.adjoint() * c;
      d_g.template triangularView<Eigen::Lower>() -= cc;
      below_r_g -= c_g * r;
      r_g -= c_g.adjoint() * below_r;
      backprop_unblocked(d, d_g);
      r_g -= (d_g + d_g.adjoint()) * r;
    }
  }

  // The column-by-column pass inside one diagonal block: for each column k from the last,
  // with d = l(k, k), r the row to its left, c the column below it and B below r.
  static void backprop_unblocked(const ConstRef& l, Ref g) {
    const Index m = l.rows();
    for (Index k = m - 1; k >= 0; --k) {
      const Index below = m - (k + 1);
      const T d = l(k, k);
      const auto r = l.block(k, 0, 1, k);
      const auto c = l.block(k + 1, k, below, 1);
      const auto r_and_b = l.block(k, 0, below + 1, k);
      auto r_g = g.block(k, 0, 1, k);
      auto d_g = g.block(k, k, 1, 1);
      auto b_g = g.block(k + 1, 0, below, k);
      auto c_g = g.block(k + 1, k, below, 1);
      auto d_and_c_g = g.block(k, k, below + 1, 1);
      d_g -= (c.adjoint() * c_g) / d;
      d_and_c_g /= d;
      r_g -= d_and_c_g.adjoint() * r_and_b;
      b_g -= c_g * r;
      d_g /= T(2);
    }
  }
};

// BandedTriangularSolve(matrix, rhs; lower, adjoint): X [..., M, N] with A X = rhs (A^H X =
// rhs with `adjoint`) for the triangular A of K bands given as matrix [..., K, M], packed as
// matrix_diag_part's LEFT_RIGHT: lower, row r holds the r-th subdiagonal, A(i, i - r) in
// column i (row 0 the diagonal); upper, row K - 1 - r holds the r-th superdiagonal, A(i, i +
// r) in column i (row K - 1 the diagonal). The batch dimensions broadcast. Only the first
// matrix's diagonal is checked for zeros ("Input matrix is not invertible."); a zero in
// another gives infinities and NaN, as TensorFlow.
template <class T>
class BandedTriangularSolveOp : public StatusKernel {
 public:
  BandedTriangularSolveOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("lower", &lower_);
    if (s->ok()) *s = c.get_attr("adjoint", &adjoint_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& bands = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    if (bands.rank() < 2)
      return invalid_argument("In[0] ndims must be >= 2: " + std::to_string(bands.rank()));
    if (rhs.rank() < 2)
      return invalid_argument("In[1] ndims must be >= 2: " + std::to_string(rhs.rank()));
    if (bands.num_elements() == 0)
      return invalid_argument("In[0] must not be an empty tensor: " + empty_debug_string(bands));
    if (rhs.num_elements() == 0)
      return invalid_argument("In[1] must not be an empty tensor: " + empty_debug_string(rhs));
    const auto& bands_dims = bands.shape().dims();
    const auto& rhs_dims = rhs.shape().dims();
    const std::vector<std::int64_t> bands_batch(bands_dims.begin(), bands_dims.end() - 2);
    const std::vector<std::int64_t> rhs_batch(rhs_dims.begin(), rhs_dims.end() - 2);
    std::vector<std::int64_t> batch;
    std::vector<Index> band_index, rhs_index;
    if (!broadcast_batches(bands_batch, rhs_batch, &batch, &band_index, &rhs_index))
      return invalid_argument("In[0] and In[1] must have compatible batch dimensions: " +
                              bands.shape().to_string() + " vs. " + rhs.shape().to_string());
    const Index num_bands = bands_dims[bands_dims.size() - 2], m = bands_dims.back();
    const Index rhs_rows = rhs_dims[rhs_dims.size() - 2], k = rhs_dims.back();
    if (m != rhs_rows)
      return invalid_argument("In[0] mismatch In[1] shape: " + std::to_string(m) + " vs. " +
                              std::to_string(rhs_rows) + ": " + bands.shape().to_string() + " " +
                              rhs.shape().to_string() + " " + (lower_ ? "1" : "0") + " " +
                              (adjoint_ ? "1" : "0"));
    batch.push_back(m);
    batch.push_back(k);
    Tensor& out = ctx.allocate_output(0, bands.dtype(), Shape(std::move(batch)));
    if (out.num_elements() == 0) return {};
    // The diagonal of the first matrix only, as TensorFlow checks it.
    const ConstMatrixMap<T> first(bands.data<T>(), num_bands, m);
    const Real<T> min_abs_pivot = first.row(lower_ ? 0 : num_bands - 1).cwiseAbs().minCoeff();
    if (!(min_abs_pivot > Real<T>(0))) return invalid_argument("Input matrix is not invertible.");
    for (std::size_t b = 0; b < band_index.size(); ++b) {
      const ConstMatrixMap<T> a(bands.data<T>() + band_index[b] * num_bands * m, num_bands, m);
      const ConstMatrixMap<T> r(rhs.data<T>() + rhs_index[b] * m * k, m, k);
      MatrixMap<T> x(out.data<T>() + static_cast<Index>(b) * m * k, m, k);
      if (lower_ && !adjoint_)
        solve_lower(a, r, x);
      else if (lower_)
        solve_lower_adjoint(a, r, x);
      else if (!adjoint_)
        solve_upper(a, r, x);
      else
        solve_upper_adjoint(a, r, x);
    }
    return {};
  }

 private:
  // Tensor::DebugString of an empty tensor: "Tensor<type: float shape: [2,0] values: >".
  static std::string empty_debug_string(const Tensor& t) {
    return "Tensor<type: " + std::string(data_type_string(t.dtype())) +
           " shape: " + t.shape().to_string() + " values: >";
  }

  // Forward substitution: x_i = (b_i - sum_{r=1..K-1} A(i, i - r) x_{i-r}) / A(i, i).
  static void solve_lower(const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& rhs,
                          MatrixMap<T>& x) {
    const Index num_bands = a.rows(), m = a.cols();
    x.row(0) = rhs.row(0) / a(0, 0);
    for (Index i = 1; i < m; ++i) {
      const Index span = std::min(i, num_bands - 1);
      x.row(i).noalias() = (rhs.row(i) - a.block(1, i, span, 1).reverse().transpose() *
                                             x.middleRows(i - span, span)) /
                           a(0, i);
    }
  }

  // Back substitution with the adjoint (upper triangular) of lower bands.
  static void solve_lower_adjoint(const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& rhs,
                                  MatrixMap<T>& x) {
    const Index num_bands = a.rows(), m = a.cols();
    for (Index i = m - 1; i >= 0; --i) {
      x.row(i) = rhs.row(i);
      for (Index j = i + 1; j < std::min(m, i + num_bands); ++j)
        x.row(i) -= Eigen::numext::conj(a(j - i, j)) * x.row(j);
      x.row(i) /= Eigen::numext::conj(a(0, i));
    }
  }

  // Back substitution: x_i = (b_i - sum_{r=1..K-1} A(i, i + r) x_{i+r}) / A(i, i).
  static void solve_upper(const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& rhs,
                          MatrixMap<T>& x) {
    const Index num_bands = a.rows(), m = a.cols();
    const Index diag = num_bands - 1;
    x.row(m - 1) = rhs.row(m - 1) / a(diag, m - 1);
    for (Index i = 1; i < m; ++i) {
      const Index row = m - 1 - i, span = std::min(i, num_bands - 1);
      x.row(row).noalias() =
          (rhs.row(row) -
           a.block(diag - span, row, span, 1).reverse().transpose() * x.middleRows(row + 1, span)) /
          a(diag, row);
    }
  }

  // Forward substitution with the adjoint (lower triangular) of upper bands.
  static void solve_upper_adjoint(const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& rhs,
                                  MatrixMap<T>& x) {
    const Index num_bands = a.rows(), m = a.cols();
    const Index diag = num_bands - 1;
    x.row(0) = rhs.row(0) / Eigen::numext::conj(a(diag, 0));
    for (Index i = 1; i < m; ++i) {
      x.row(i) = rhs.row(i);
      for (Index j = std::max<Index>(0, i - diag); j < i; ++j)
        x.row(i) -= Eigen::numext::conj(a(diag - (i - j), j)) * x.row(j);
      x.row(i) /= Eigen::numext::conj(a(diag, i));
    }
  }

  bool lower_ = true;
  bool adjoint_ = false;
};

// Lu for element type T with each index type.
template <class T>
void register_lu(KernelRegistry& r) {
  r.add(make_kernel_def<LuOp<T, std::int32_t>>(
      "Lu", "CPU", {{"T", {dtype_of_v<T>}}, {"output_idx_type", {DType::int32}}}));
  r.add(make_kernel_def<LuOp<T, std::int64_t>>(
      "Lu", "CPU", {{"T", {dtype_of_v<T>}}, {"output_idx_type", {DType::int64}}}));
}

}  // namespace

namespace detail {

void register_linalg_more_kernels(KernelRegistry& r) {
  register_lu<float>(r);
  register_lu<double>(r);
  register_lu<complex64_t>(r);
  register_lu<complex128_t>(r);
  // As TensorFlow, each Eig kernel is constrained on T only.
  r.add(make_kernel_def<EigOp<float, complex64_t>>("Eig", "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<EigOp<double, complex128_t>>("Eig", "CPU", {{"T", {DType::float64}}}));
  register_for_types<EigFromOwnType, complex64_t, complex128_t>(r, "Eig");
  // TensorFlow registers no real MatrixLogarithm (it would return the real part only).
  register_for_types<MatrixLogarithmOp, complex64_t, complex128_t>(r, "MatrixLogarithm");
  register_for_types<CholeskyGradOp, float, double>(r, "CholeskyGrad");
  register_for_types<BandedTriangularSolveOp, float, double, complex64_t, complex128_t>(
      r, "BandedTriangularSolve");
}

}  // namespace detail

}  // namespace af
