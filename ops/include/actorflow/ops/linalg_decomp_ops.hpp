#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Decompositions and solvers of batched matrices (TensorFlow's `tf.linalg.qr`, `svd`,
/// `eigh`, `eigvalsh`, `lstsq`, `sqrtm`, the compact tridiagonal ops, `lu`, `eig`,
/// `eigvals`, `logm` and `banded_triangular_solve`; the Eigen kernels of qr_op_impl.h,
/// svd_op_impl.h, self_adjoint_eig_v2_op_impl.h, matrix_solve_ls_op_impl.h,
/// matrix_square_root_op.cc, tridiagonal_solve_op.cc, tridiagonal_matmul_op.cc, lu_op.cc,
/// eig_op_impl.h, matrix_logarithm_op.cc, cholesky_grad.cc and
/// banded_triangular_solve_op.cc). A "batched matrix" has rank >= 2: its two innermost
/// dimensions are the matrix, the leading ones a batch, each matrix computed on its own.
/// float and double, and complex where each op says so. Errors a kernel finds fail the step
/// with TensorFlow's text and the op named ("Input tensor 0 must have rank >= 2, got 1",
/// "Input matrix must be square."); the shape functions' errors throw InvalidArgumentError
/// when the op is built.
namespace af::linalg {

/// What `qr` returns.
struct QrOutputs {
  Output q;  ///< [..., M, M] with full_matrices, else [..., M, min(M, N)]: orthonormal columns
  Output r;  ///< [..., M, N] with full_matrices, else [..., min(M, N), N]: upper triangular
};

/// `tf.linalg.qr(input, full_matrices)`: op Qr (default name "Qr"), input = q r for each
/// [..., M, N] matrix by Householder reflections (Eigen's HouseholderQR, as TensorFlow's
/// CPU kernel: r's diagonal may be negative). An empty matrix gives q the identity.
/// Gradient: TensorFlow's _QrGrad (MatrixTriangularSolve, MatrixBandPart, BatchMatMulV2);
/// refused, as TensorFlow, with "QrGrad not implemented when nrows > ncols and
/// full_matrices is true." and for unknown matrix dimensions.
QrOutputs qr(const Output& input, bool full_matrices = false, std::string_view name = {});

/// What `svd` returns.
struct SvdOutputs {
  Output s;  ///< [..., min(M, N)]: the singular values, largest first
  Output u;  ///< [..., M, M] (full_matrices) or [..., M, min(M, N)]; [0] without compute_uv
  Output v;  ///< [..., N, N] (full_matrices) or [..., N, min(M, N)]; [0] without compute_uv
};

/// `tf.linalg.svd(input, full_matrices, compute_uv)`: op Svd (default name "svd/Svd"),
/// input = u diag(s) v^T for each [..., M, N] matrix by Eigen's BDCSVD (as TensorFlow's CPU
/// kernel, so the signs of the singular vectors match it). A matrix where Eigen fails gives
/// NaN everywhere (no error). An empty matrix with full_matrices gives u or v the identity.
/// Gradient: TensorFlow's _SvdGrad; refused, as TensorFlow, for full_matrices with |M - N|
/// > 1 and for unknown matrix dimensions.
SvdOutputs svd(const Output& input, bool full_matrices = false, bool compute_uv = true,
               std::string_view name = {});

/// What `self_adjoint_eig` returns.
struct EighOutputs {
  Output e;  ///< [..., N]: the eigenvalues, increasing
  Output v;  ///< [..., N, N]: the eigenvectors, as columns in the order of e
};

/// `tf.linalg.eigh(input)`: op SelfAdjointEigV2 with compute_v (default name
/// "SelfAdjointEigV2"): the eigen decomposition of each symmetric [..., N, N] matrix, read
/// from its lower triangle, by Eigen's SelfAdjointEigenSolver. Errors: "Input matrix must
/// be square.", "Self-adjoint eigen decomposition was not successful. The input might not be
/// valid.". Gradient: TensorFlow's _SelfAdjointEigV2Grad (lower triangle of the symmetrized
/// result; NaN or infinite for repeated eigenvalues).
EighOutputs self_adjoint_eig(const Output& input, std::string_view name = {});

/// `tf.linalg.eigvalsh(input)`: op SelfAdjointEigV2 without compute_v (default name
/// "SelfAdjointEigV2"): the eigenvalues [..., N] only; the op's output v is an empty [0].
/// Gradient: v diag(grad) v^T with v from a second SelfAdjointEigV2, as TensorFlow.
Output self_adjoint_eigvals(const Output& input, std::string_view name = {});

/// `gen_linalg_ops.matrix_solve_ls(matrix, rhs, l2_regularizer, fast)`: op MatrixSolveLs
/// (default name "MatrixSolveLs"): the least-squares X [..., N, K] of matrix [..., M, N] X =
/// rhs [..., M, K] (same batch dimensions). fast: Cholesky of the regularized normal
/// equations, (A^T A + l2 I) X = A^T B for M >= N, X = A^T (A A^T + l2 I)^{-1} B otherwise;
/// not fast: the minimum-norm solution by a complete orthogonal decomposition (l2 ignored).
/// `l2_regularizer` is a float64 scalar. Errors: "Input matrix and rhs are incompatible.",
/// "l2_regularizer must be scalar, got shape [2]", "l2_regularizer must be >= 0.", "Input
/// matrix was rank deficient or ill-conditioned. Try setting fast=False or provide a larger
/// l2_regularizer > 0.". Gradient (fast only; "Gradient not defined for fast=False"
/// otherwise): TensorFlow's _MatrixSolveLsGrad, for matrix and rhs.
Output matrix_solve_ls(const Output& matrix, const Output& rhs, const Output& l2_regularizer,
                       bool fast = true, std::string_view name = {});
/// `matrix_solve_ls` with the regularizer a float64 Const "l2_regularizer".
Output matrix_solve_ls(const Output& matrix, const Output& rhs, double l2_regularizer = 0.0,
                       bool fast = true, std::string_view name = {});

/// `tf.linalg.sqrtm(input)`: op MatrixSquareRoot (default name "MatrixSquareRoot"): the
/// principal square root of each [..., N, N] matrix (Eigen's MatrixFunctions, real Schur
/// form); a matrix with real negative eigenvalues gives NaN. Error: "Input matrix must be
/// square.". Gradient: TensorFlow's _MatrixSquareRootGrad (a Sylvester equation solved as an
/// N^2 x N^2 MatrixSolve of Kronecker products).
Output matrix_square_root(const Output& input, std::string_view name = {});

/// `tf.linalg.tridiagonal_solve(diagonals, rhs, "compact", partial_pivoting,
/// perturb_singular)`: op TridiagonalSolve (default name "TridiagonalSolve"): X [..., M, K]
/// with T X = rhs, T given by diagonals [..., 3, M]: superdiagonal (its last entry unused),
/// diagonal, subdiagonal (its first entry unused). Without partial_pivoting the Thomas
/// algorithm. A singular system gives NaN (TensorFlow only logs). Errors: "Expected
/// diagonals to be provided as a matrix with 3 rows, got 2 rows.", "Expected the same number
/// of left-hand sides and right-hand sides, got 3 and 4.", "Setting perturb_singular
/// requires also setting partial_pivoting.". Gradient: a TridiagonalSolve with the
/// transposed diagonals for rhs, minus the three diagonals of grad_rhs x^T for diagonals.
Output tridiagonal_solve(const Output& diagonals, const Output& rhs, bool partial_pivoting = true,
                         bool perturb_singular = false, std::string_view name = {});

/// `tf.linalg.tridiagonal_matmul` in its op's form: op TridiagonalMatMul (default name
/// "TridiagonalMatMul"): T rhs for T given by superdiag, maindiag and subdiag, each [..., 1,
/// M] (superdiag's last and subdiag's first entries unused), rhs [..., M, N]; the batch
/// dimensions must be equal. Errors: "Invalid superdiagonal shape.", "Invalid main diagonal
/// shape.", "Invalid subdiagonal shape.". Gradient: TensorFlow's _TridiagonalMatMulGrad.
Output tridiagonal_matmul(const Output& superdiag, const Output& maindiag, const Output& subdiag,
                          const Output& rhs, std::string_view name = {});

/// What `lu` returns.
struct LuOutputs {
  Output lu;  ///< [..., N, N]: L's strict lower triangle (unit diagonal implied) and U
  Output p;   ///< [..., N] of output_idx_type: row i of L U is row p[i] of the input
};

/// `tf.linalg.lu(input, output_idx_type)`: op Lu (default name "Lu"), the partially pivoted
/// LU decomposition P input = L U of each square [..., N, N] matrix by Eigen's PartialPivLU,
/// as TensorFlow's CPU kernel (the same pivots). float, double, complex64, complex128;
/// `output_idx_type` int32 or int64. Errors: "Input tensor must have rank >= 2, got 1",
/// "Input matrix must be square.", "Input is not invertible." (an exactly zero pivot in any
/// matrix of the batch); "Dimensions must be equal, but are 2 and 3" when built on known
/// shapes. No gradient: TensorFlow 2.21 registers none (af::gradients throws NotFoundError
/// "No gradient defined for operation 'Lu' (op type: Lu)").
LuOutputs lu(const Output& input, DType output_idx_type = DType::int32, std::string_view name = {});

/// What `eig` returns.
struct EigOutputs {
  Output e;  ///< [..., N] complex: the eigenvalues
  Output v;  ///< [..., N, N] complex: unit eigenvectors as columns, in the order of e
};

/// `tf.linalg.eig(input)`: op Eig with compute_v (default name "Eig"), the eigen
/// decomposition of each square matrix as TensorFlow 2.21's CPU kernels compute it: a real
/// matrix by Eigen's EigenSolver (the eigenvalues in the order of the real Schur form, a
/// conjugate pair with the positive imaginary part first, real eigenvectors for real
/// eigenvalues), a complex one by ComplexEigenSolver (the eigenvalues sorted by modulus);
/// eigenvectors of unit norm, their sign or phase the decomposition's. float and complex64
/// give complex64, double and complex128 complex128. Errors: "Input matrix must be square.",
/// "Eigen decomposition was not successful. The input might not be valid." (NaN or infinite
/// entries). Gradient: TensorFlow's _EigGrad (distinct eigenvalues only: repeated ones give
/// infinities or NaN; a complex MatrixSolve with the eigenvectors' adjoint, cast back to
/// the input's dtype, so the real part for a real input).
EigOutputs eig(const Output& input, std::string_view name = {});

/// `tf.linalg.eigvals(input)`: op Eig without compute_v (default name "Eig"): the
/// eigenvalues only; the op's output v is an empty [0]. Gradient: v^{-H} diag(grad) v^H with
/// v from a second Eig, as TensorFlow.
Output eigvals(const Output& input, std::string_view name = {});

/// `tf.linalg.logm(input)`: op MatrixLogarithm (default name "MatrixLogarithm"), the
/// principal logarithm of each square complex64 or complex128 matrix (Eigen's
/// MatrixFunctions, as TensorFlow's kernel; no real kernel, as TensorFlow). A singular matrix
/// gives NaN. Error: "Input matrix must be square.". No gradient (TensorFlow registers none).
Output matrix_logarithm(const Output& input, std::string_view name = {});

/// `gen_linalg_ops.cholesky_grad(l, grad)`: op CholeskyGrad (default name "CholeskyGrad"),
/// which TensorFlow's first _CholeskyGrad built and old GraphDefs hold: the symmetrized
/// gradient with respect to A of a loss whose gradient with respect to l = cholesky(A) is
/// `grad` (both [..., M, M], read from their lower triangles), by Murray's blocked algorithm
/// as TensorFlow's kernel. float and double. Errors: "Inputs (L and grad) must have the same
/// shape.", "Inputs must be a square matrices.", "All input tensors must have the same outer
/// dimensions.". No gradient (TensorFlow registers none).
Output cholesky_grad(const Output& l, const Output& grad, std::string_view name = {});

/// `tf.linalg.banded_triangular_solve(bands, rhs, lower, adjoint)`: op BandedTriangularSolve
/// (default name "banded_triangular_solve/BandedTriangularSolve"), X [..., M, N] with A X =
/// rhs (A^H X = rhs with `adjoint`) for the triangular A of K bands given as `bands` [..., K,
/// M] in matrix_diag_part's LEFT_RIGHT packing: lower, row 0 the diagonal and row r the r-th
/// subdiagonal (its first r entries unused); upper, row K - 1 the diagonal and row K - 1 - r
/// the r-th superdiagonal (its last r entries unused). The batch dimensions broadcast.
/// float, double, complex64, complex128. Errors: "Number of bands 3 cannot exceed the size
/// of the matrix 2", "Number of bands must be positive, but is 0" (built on known shapes),
/// "In[0] must not be an empty tensor: Tensor<type: float shape: [0,2,3] values: >", "In[0]
/// mismatch In[1] shape: 3 vs. 4: [2,3] [4,1] 1 0", "Input matrix is not invertible." (a
/// zero on the first matrix's diagonal only: elsewhere infinities and NaN, as TensorFlow).
/// Gradient: TensorFlow's _BandedTriangularSolveGrad (the bands of -grad_rhs X^H, summed
/// over broadcast dimensions).
Output banded_triangular_solve(const Output& bands, const Output& rhs, bool lower = true,
                               bool adjoint = false, std::string_view name = {});

}  // namespace af::linalg
