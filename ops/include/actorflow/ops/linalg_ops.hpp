#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "actorflow/ops/graph.hpp"

/// Band and diagonal parts of batched matrices and linear algebra on them (TensorFlow's
/// `tf.linalg`, matrix_band_part_op.cc, matrix_diag_op.cc, matrix_set_diag_op.cc, diag_op.cc,
/// and the Eigen kernels of linalg_ops.cc). A "batched matrix" is a tensor of rank >= 2 whose
/// two innermost dimensions are the matrix and the leading ones a batch. Errors a kernel
/// finds fail the step with TensorFlow's text and the op named; the shape functions' errors
/// throw InvalidArgumentError when the op is built.
///
/// The diagonal ops take `k`, a diagonal or an inclusive range of them (`{-1, 2}`: the
/// subdiagonal, the main diagonal and two superdiagonals), 0 the main diagonal, positive
/// above. A range is packed one diagonal per row, the uppermost first, each row
/// `max_diag_len` long; `align` ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
/// says on which side superdiagonals and subdiagonals (in that order) sit in a row that is
/// longer than they are. RIGHT_LEFT is LAPACK's packing and the default.
namespace af::linalg {

/// A diagonal or an inclusive range of diagonals: `{lower, upper}`.
struct DiagonalRange {
  std::int64_t lower = 0;  ///< the lowest diagonal (negative: below the main one)
  std::int64_t upper = 0;  ///< the highest diagonal; lower <= upper
  /// The one diagonal `k`.
  DiagonalRange(std::int64_t k = 0) : lower(k), upper(k) {}  // NOLINT(google-explicit-constructor)
  /// The diagonals `lower` to `upper`.
  DiagonalRange(std::int64_t lower_k, std::int64_t upper_k) : lower(lower_k), upper(upper_k) {}
};

/// `tf.linalg.band_part(input, num_lower, num_upper)`: op MatrixBandPart (default name
/// "MatrixBandPart", the bounds int32 Consts "<op>/num_lower" and "<op>/num_upper"): each
/// innermost matrix with the entries outside the band zeroed, entry (i, j) kept where
/// (num_lower < 0 or i - j <= num_lower) and (num_upper < 0 or j - i <= num_upper). Any
/// dtype but string. Errors: "input must be at least 2-dim, received shape: [3]",
/// "num_lower must be negative or less or equal to number of rows (3) got: 5". Gradient:
/// the same band of the gradient.
Output band_part(const Output& input, std::int64_t num_lower, std::int64_t num_upper,
                 std::string_view name = {});

/// `tf.linalg.diag(diagonal, k, num_rows, num_cols, padding_value, align)`: op MatrixDiagV3
/// (default name "diag"; k, num_rows, num_cols int32 and padding_value of diagonal's dtype
/// as Consts "<op>/k" ...). For one diagonal, `diagonal` [..., L] gives matrices [..., M,
/// N]; for a range, [..., num_diags, L] gives [..., M, N]. num_rows / num_cols -1: the
/// smallest that holds the diagonals (both -1: square). Entries off the diagonals are
/// `padding_value`. Errors: "The number of rows is too small.", "The number of diagonals
/// provided in the input does not match the lower_diag_index and upper_diag_index range."
/// (shape-function messages at build time when k and the sizes are constants). Gradient:
/// matrix_diag_part of the gradient with the same k and align.
Output matrix_diag(const Output& diagonal, DiagonalRange k = {}, std::int64_t num_rows = -1,
                   std::int64_t num_cols = -1, double padding_value = 0,
                   std::string_view align = "RIGHT_LEFT", std::string_view name = {});

/// `tf.linalg.diag_part(input, k, padding_value, align)`: op MatrixDiagPartV3 (default name
/// "diag_part"): the diagonals k of each innermost matrix, [..., max_diag_len] for one
/// diagonal, [..., num_diags, max_diag_len] for a range, shorter diagonals padded with
/// `padding_value`. Errors: "lower_diag_index is out of bound: -5. It must be between -3 and
/// 4", "lower_diag_index must not be larger than upper_diag_index: 1 > 0". Gradient: the
/// diagonals put back with MatrixDiagV3 when the input's matrix size is known, else
/// MatrixSetDiagV3 into zeros.
Output matrix_diag_part(const Output& input, DiagonalRange k = {}, double padding_value = 0,
                        std::string_view align = "RIGHT_LEFT", std::string_view name = {});

/// `tf.linalg.set_diag(input, diagonal, k, align)`: op MatrixSetDiagV3 (default name
/// "set_diag"): input with its diagonals k replaced by `diagonal` (packed as
/// matrix_diag_part gives them; the padding is not read). Error when `diagonal`'s shape is
/// not that: "Either first dimensions of diagonal don't match input.shape[:-2], or
/// diagonal.shape[:-1] is not equal to the longests diagonal in range ...". Gradient: the
/// gradient with those diagonals zeroed for `input`, its diagonals k for `diagonal`.
Output matrix_set_diag(const Output& input, const Output& diagonal, DiagonalRange k = {},
                       std::string_view align = "RIGHT_LEFT", std::string_view name = {});

/// `tf.linalg.tensor_diag(diagonal)` (TensorFlow 1.x's `tf.diag`): op Diag (default name
/// "Diag"), of `diagonal` of shape s (rank >= 1) the tensor of shape s + s holding
/// diagonal[i...] at [i..., i...], zeros elsewhere. float, double, int32, int64. Error:
/// "Input must be at least rank 1, got 0" (shape function: "Shape must be at least rank 1 but
/// is rank 0"). Gradient: DiagPart of the gradient.
Output diag(const Output& diagonal, std::string_view name = {});

/// `tf.linalg.tensor_diag_part(input)` (`tf.diag_part`): op DiagPart (default name
/// "DiagPart"), of `input` of shape s + s the tensor of shape s holding input[i..., i...].
/// Errors: "Input must have even and non-zero rank, input rank is 3" (shape function),
/// "Invalid shape [3,4]: dimensions 0 and 1 do not match." Gradient: Diag of the gradient.
Output diag_part(const Output& input, std::string_view name = {});

/// `tf.linalg.inv(input, adjoint)`: op MatrixInverse (default name "MatrixInverse"), the
/// inverse of each square innermost matrix (of its adjoint with `adjoint`) by a partially
/// pivoted LU. float, double. Errors: "Input matrix must be square.", "Input is not
/// invertible." (an exactly zero pivot only: no condition estimate, as TensorFlow). Gradient:
/// -inv^H g inv^H (adjoints as TensorFlow's _MatrixInverseGrad places them).
Output matrix_inverse(const Output& input, bool adjoint = false, std::string_view name = {});

/// `tf.linalg.det(input)`: op MatrixDeterminant (default name "MatrixDeterminant"), the
/// determinant of each square innermost matrix, shape input.shape[:-2]; 1 for an empty
/// matrix, 0 for a singular one. float, double. Gradient: g det inv(input)^H.
Output matrix_determinant(const Output& input, std::string_view name = {});

/// `tf.linalg.slogdet(input)`: op LogMatrixDeterminant (default name
/// "LogMatrixDeterminant"): the sign of each determinant and the log of its magnitude (sign
/// 0 and -inf for a singular matrix). Gradient (through log_abs_determinant only):
/// g inv(input)^H.
std::pair<Output, Output> log_matrix_determinant(const Output& input, std::string_view name = {});

/// `tf.linalg.cholesky(input)`: op Cholesky (default name "Cholesky"), the lower
/// triangular L with L L^H = input for each symmetric positive definite innermost matrix,
/// read from its lower triangle. Where the decomposition fails the lower triangle is NaN, as
/// TensorFlow's CPU kernel (no error). float, double. Gradient: TensorFlow's _CholeskyGrad
/// (Murray's formula with MatrixTriangularSolve, MatrixSetDiagV3 and MatrixBandPart).
Output cholesky(const Output& input, std::string_view name = {});

/// `tf.linalg.solve(matrix, rhs, adjoint)`: op MatrixSolve (default name "MatrixSolve"), X
/// with matrix X = rhs (adjoint(matrix) X = rhs) per matrix of the batch; matrix [..., M,
/// M], rhs [..., M, K] with the same leading dimensions. float, double, complex64,
/// complex128. Errors: "Input matrix is not invertible.", "Input matrix and rhs are
/// incompatible.", "All input tensors must have the same outer dimensions.". Gradient:
/// MatrixSolve with the other adjoint for rhs, -grad_rhs X^H (or its adjoint) for matrix.
Output matrix_solve(const Output& matrix, const Output& rhs, bool adjoint = false,
                    std::string_view name = {});

/// `tf.linalg.triangular_solve(matrix, rhs, lower, adjoint)`: op MatrixTriangularSolve
/// (default name "triangular_solve/MatrixTriangularSolve"), X with T X = rhs for T the
/// lower (`lower`) or upper triangle of each matrix (its adjoint with `adjoint`); the other
/// triangle is never read and the leading dimensions broadcast. A zero on the diagonal gives
/// infinities and NaN (no error, as TensorFlow). Errors: "In[0] matrices in the last
/// dimensions must be square (4 =/= 3)", "In[0] mismatch In[1] shape: 2 vs. 3: [2,2] [3,1]
/// 1 0". Gradient: the triangle of -grad_rhs X^H for matrix, summed over broadcast
/// dimensions, as TensorFlow's _MatrixTriangularSolveGrad.
Output matrix_triangular_solve(const Output& matrix, const Output& rhs, bool lower = true,
                               bool adjoint = false, std::string_view name = {});

}  // namespace af::linalg
