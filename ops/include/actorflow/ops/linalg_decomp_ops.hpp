#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Decompositions and solvers of batched matrices (TensorFlow's `tf.linalg.qr`, `svd`,
/// `eigh`, `eigvalsh`, `lstsq`, `sqrtm` and the compact tridiagonal ops; the Eigen kernels of
/// qr_op_impl.h, svd_op_impl.h, self_adjoint_eig_v2_op_impl.h, matrix_solve_ls_op_impl.h,
/// matrix_square_root_op.cc, tridiagonal_solve_op.cc and tridiagonal_matmul_op.cc). A
/// "batched matrix" has rank >= 2: its two innermost dimensions are the matrix, the leading
/// ones a batch, each matrix computed on its own. float and double. Errors a kernel finds
/// fail the step with TensorFlow's text and the op named ("Input tensor 0 must have rank >=
/// 2, got 1", "Input matrix must be square."); the shape functions' errors throw
/// InvalidArgumentError when the op is built.
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

}  // namespace af::linalg
