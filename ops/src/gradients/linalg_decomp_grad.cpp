// Gradients of Qr, Svd, SelfAdjointEigV2, MatrixSolveLs, MatrixSquareRoot, TridiagonalSolve,
// TridiagonalMatMul, Eig and BandedTriangularSolve, built of the ops TensorFlow's
// linalg_grad.py builds: math_ops.matmul as MatMul for two matrices and BatchMatMulV2
// otherwise (adjoints are transposes for the real types, conj is the identity; complex
// adjoints conjugate), `x[..., :, a:b]` as StridedSlice with an ellipsis, matrix_diag /
// matrix_diag_part / matrix_set_diag as the V3 ops. Where Python needs the matrix dimensions
// (or builds a tf.cond on them) they must be known statically here. Lu, MatrixLogarithm and
// CholeskyGrad have no gradient, as in TensorFlow.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/complex_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/linalg_decomp_ops.hpp"
#include "actorflow/ops/linalg_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"
#include "linalg_grad_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;
using Index = std::int64_t;

// `x[..., rows, begin:end]` (axis -1) or `x[..., begin:end, :]` (axis -2) as Python's
// __getitem__ builds it: a StridedSlice with an ellipsis; `end` 0 with `to_end` runs to the
// last element, a negative `end` counts from it.
Output slice_last(const Output& x, int axis, Index begin, Index end, bool to_end) {
  StridedSliceMasks masks;
  masks.ellipsis_mask = 1;
  std::vector<std::int64_t> b{0, 0, 0}, e{0, 0, 0}, s{1, 1, 1};
  const int bit = axis == -1 ? 2 : 1;  // which of the two entries after "..." is sliced
  const int other = axis == -1 ? 1 : 2;
  masks.begin_mask = 1 << other;
  masks.end_mask = 1 << other;
  b[static_cast<std::size_t>(bit)] = begin;
  e[static_cast<std::size_t>(bit)] = end;
  if (begin == 0) masks.begin_mask |= 1 << bit;
  if (to_end) masks.end_mask |= 1 << bit;
  return strided_slice(x, b, e, s, masks, "strided_slice");
}

// The static innermost dimension `from_end` (1 last, 2 next-to-last) of x, -1 unknown.
Index static_dim(const Output& x, int from_end) {
  const PartialShape& s = x.shape();
  if (!s.rank_known() || s.rank() < from_end) return -1;
  return s.dim(s.rank() - from_end);
}

// _SafeReciprocal: x / (x^2 + 1e-20).
Output safe_reciprocal(const Output& x) {
  return mul(x,
             reciprocal(add(mul(x, x, "mul"), scalar_like(x, 1e-20, "add/y"), "add"), "Reciprocal"),
             "mul_1");
}

// f(i, j) = 1 / (e_j - e_i) off the diagonal, 0 on it (the matrix of _SvdGrad and
// _SelfAdjointEigV2Grad).
Output reciprocal_differences(const Output& e) {
  const Output diff =
      sub(expand_dims(e, -2, "ExpandDims"), expand_dims(e, -1, "ExpandDims_1"), "sub");
  return linalg::matrix_set_diag(safe_reciprocal(diff), zeros_like(e));
}

// _QrGrad's _TriangularSolve: x r^{-H} for upper triangular r.
Output triangular_solve_right(const Output& x, const Output& r) {
  return adjoint(linalg::matrix_triangular_solve(r, adjoint(x, "Qr"), false, false), "Qr");
}

// _QrGradSquareAndDeepMatrices (num_rows >= num_cols, full_matrices false).
Output qr_grad_deep(const Output& q, const Output& r, const Output& dq, const Output& dr) {
  const Output qdq = mm(q, dq, true, false);
  const Output qdq_ = sub(qdq, adjoint(qdq, "Qr"), "sub");
  const Output rdr = mm(r, dr, false, true);
  const Output rdr_ = sub(rdr, adjoint(rdr, "Qr"), "sub_1");
  const Output tril = linalg::band_part(add(qdq_, rdr_, "add"), -1, 0);
  const Output grad_a = mm(q, add(dr, triangular_solve_right(tril, r), "add_1"));
  const Output grad_b = triangular_solve_right(sub(dq, mm(q, qdq), "sub_2"), r);
  return add(grad_a, grad_b, "add_2");
}

Grads qr_grad(const Operation& op, const Grads& g) {
  const Output q = op.output(0), r = op.output(1);
  const Index r_rows = static_dim(r, 2), r_cols = static_dim(r, 1);
  if (r_rows < 0 || r_cols < 0)
    throw UnimplementedError(
        unimplemented("QrGrad not implemented with dynamic shapes. Received "
                      "r.shape: " +
                      inference_shape_string(r.shape())));
  const Index q_rows = static_dim(q, 2), q_cols = static_dim(q, 1);
  if (r_rows > r_cols && q_rows == q_cols)
    throw UnimplementedError(unimplemented(
        "QrGrad not implemented when nrows > ncols and full_matrices is true. Received r.shape=" +
        inference_shape_string(r.shape())));
  const Output dq = g[0], dr = g[1];
  if (q_rows >= r_cols) return {qr_grad_deep(q, r, dq, dr)};
  // Partition a = [x, y], r = [u, v] and reduce to the square case.
  const Output a = input(op, 0);
  const Output y = slice_last(a, -1, q_rows, 0, true);
  const Output u = slice_last(r, -1, 0, q_rows, false);
  const Output dv = slice_last(dr, -1, q_rows, 0, true);
  const Output du = slice_last(dr, -1, 0, q_rows, false);
  const Output dy = mm(q, dv);
  const Output dx = qr_grad_deep(q, u, add(dq, mm(y, dv, false, true), "add"), du);
  return {concat({dx, dy}, -1, "concat")};
}

Grads svd_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0);
  const Output grad_s_mat = linalg::matrix_diag(g[0]);
  if (!bool_attr_or(op, "compute_uv", true)) {
    const linalg::SvdOutputs full = linalg::svd(a, false, true, "Svd");
    return {mm(full.u, mm(grad_s_mat, full.v, false, true))};
  }
  const bool full_matrices = bool_attr_or(op, "full_matrices", false);
  Index m = static_dim(a, 2), n = static_dim(a, 1);
  if (m < 0) m = static_dim(g[1], 2);
  if (n < 0) n = static_dim(g[2], 2);
  if (m < 0 || n < 0)
    throw UnimplementedError(unimplemented(
        "SVD gradient has not been implemented for input with unknown inner matrix shape."));
  Output s = op.output(0), u = op.output(1), v = op.output(2);
  Output grad_u = g[1], grad_v = g[2];
  const bool use_adjoint = m > n;
  if (use_adjoint) {
    // The gradient of A^H = V S^T U^H, transposed at the end.
    std::swap(m, n);
    std::swap(u, v);
    std::swap(grad_u, grad_v);
  }
  if (full_matrices && n - m > 1)
    throw UnimplementedError(unimplemented(
        "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
        "Received: m=" +
        std::to_string(m) + " and n=" + std::to_string(n)));
  const Output s_mat = linalg::matrix_diag(s);
  const Output s2 = square(s, "Square");
  const Output f = reciprocal_differences(s2);
  const Output s_inv_mat = linalg::matrix_diag(safe_reciprocal(s));
  const Output v1 = slice_last(v, -1, 0, m, false);
  const Output grad_v1 = slice_last(grad_v, -1, 0, m, false);
  const Output u_gu = mm(u, grad_u, true, false);
  const Output v_gv = mm(v1, grad_v1, true, false);
  const Output f_u = mul(f, u_gu, "mul");
  const Output f_v = mul(f, v_gv, "mul_1");
  const Output term1_nouv =
      add(add(grad_s_mat, mm(add(f_u, adjoint(f_u, "Svd"), "add"), s_mat), "add_1"),
          mm(s_mat, add(f_v, adjoint(f_v, "Svd"), "add_2")), "add_3");
  const Output term1 = mm(u, mm(term1_nouv, v1, false, true));
  Output grad = term1;
  if (m != n) {
    const Output gv1t = adjoint(grad_v1, "Svd");
    const Output gv1t_v1 = mm(gv1t, v1);
    Output term2_nous = sub(gv1t, mm(gv1t_v1, v1, false, true), "sub");
    if (full_matrices) {
      const Output v2 = slice_last(v, -1, m, n, false);
      const Output grad_v2 = slice_last(grad_v, -1, m, n, false);
      const Output v1t_gv2 = mm(v1, grad_v2, true, false);
      term2_nous = sub(term2_nous, mm(v1t_gv2, v2, false, true), "sub_1");
    }
    const Output u_s_inv = mm(u, s_inv_mat);
    grad = add(term1, mm(u_s_inv, term2_nous), "add_4");
  }
  return {use_adjoint ? adjoint(grad, "Svd") : grad};
}

Grads self_adjoint_eig_grad(const Operation& op, const Grads& g) {
  const Output e = op.output(0), grad_e = g[0];
  Output grad_a;
  if (bool_attr_or(op, "compute_v", true)) {
    const Output v = op.output(1), grad_v = g[1];
    const Output f = reciprocal_differences(e);
    grad_a =
        mm(v, mm(add(linalg::matrix_diag(grad_e), mul(f, mm(v, grad_v, true, false), "mul"), "add"),
                 v, false, true));
  } else {
    const Output v = linalg::self_adjoint_eig(input(op, 0), "SelfAdjointEigV2").v;
    grad_a = mm(v, mm(linalg::matrix_diag(grad_e), v, false, true));
  }
  // The forward op reads only the lower triangle: symmetrize and keep that triangle.
  grad_a = linalg::band_part(add(grad_a, adjoint(grad_a, "SelfAdjointEigV2"), "add_1"), -1, 0);
  return {linalg::matrix_set_diag(
      grad_a, mul(scalar_like(grad_a, 0.5, "mul_1/x"), linalg::matrix_diag_part(grad_a), "mul_1"))};
}

// linalg_ops._RegularizedGramianCholesky with a tensor regularizer: the Cholesky factor of
// A^H A + l2 I (first kind) or A A^H + l2 I.
Output regularized_gramian_cholesky(const Output& a, const Output& l2, bool first_kind) {
  const Output gramian = mm(a, a, first_kind, !first_kind);
  const PartialShape& s = a.shape();
  const Index small = first_kind ? static_dim(a, 1) : static_dim(a, 2);
  std::vector<std::int64_t> dims(s.dims().begin(), s.dims().end() - 2);
  dims.push_back(small);
  Output identity;
  if (PartialShape(dims).fully_defined()) {
    identity = linalg::matrix_diag(ones(a.graph(), Shape(dims), a.dtype(), "ones"));
  } else {
    // The batch dimensions known only at run time: ones of the gramian's diagonal's shape.
    identity = linalg::matrix_diag(ones_like(linalg::matrix_diag_part(gramian)));
  }
  return linalg::cholesky(add(gramian, mul(l2, identity, "mul"), "add"), "Cholesky");
}

// linalg_ops.cholesky_solve: two triangular solves with the lower factor.
Output cholesky_solve(const Output& chol, const Output& rhs) {
  const Output y = linalg::matrix_triangular_solve(chol, rhs, true, false);
  return linalg::matrix_triangular_solve(chol, y, true, true);
}

Grads matrix_solve_ls_grad(const Operation& op, const Grads& g) {
  if (!bool_attr_or(op, "fast", true))
    throw InvalidArgumentError(invalid_argument("Gradient not defined for fast=False"));
  const Output a = input(op, 0), b = input(op, 1), grad = g[0];
  const Index rows = static_dim(a, 2), cols = static_dim(a, 1);
  if (rows < 0 || cols < 0 || !a.shape().rank_known())
    throw UnimplementedError(unimplemented(
        "gradient of MatrixSolveLs needs the matrix dimensions known when the graph is built "
        "(TensorFlow builds a tf.cond on them)"));
  const Output l2 = cast(input(op, 2), a.dtype(), "Cast");
  if (rows >= cols) {
    // X = (A^T A + l2 I)^{-1} A^T B.
    const Output x = op.output(0);
    const Output chol = regularized_gramian_cholesky(a, l2, true);
    const Output z = cholesky_solve(chol, grad);
    const Output xzt = mm(x, z, false, true);
    const Output zx_sym = add(xzt, adjoint(xzt, "MatrixSolveLs"), "add_1");
    const Output grad_a = add(neg(mm(a, zx_sym), "Neg"), mm(b, z, false, true), "add_2");
    return {grad_a, mm(a, z), Output()};
  }
  // X = A^T (A A^T + l2 I)^{-1} B.
  const Output chol = regularized_gramian_cholesky(a, l2, false);
  const Output grad_b = cholesky_solve(chol, mm(a, grad));
  const Output tmp = cholesky_solve(chol, b);
  const Output a1 = neg(mm(grad_b, mm(tmp, a, true, false)), "Neg");
  const Output a2 = mm(tmp, sub(grad, mm(a, grad_b, true, false), "sub"), false, true);
  return {add(a1, a2, "add_1"), grad_b, Output()};
}

// _MatrixSquareRootGrad: the Sylvester equation R dR + dR R = dA solved as (I (x) R^T + R (x)
// I) vec(dR^T) = vec(dA^T) with one MatrixSolve of order N^2 per matrix. The batch is
// flattened into the leading dimension (Python computes the same shapes at run time).
Grads matrix_square_root_grad(const Operation& op, const Grads& g) {
  const Output sqrtm = op.output(0), grad = g[0];
  const Index n = static_dim(sqrtm, 1);
  if (n < 0 || !sqrtm.shape().rank_known())
    throw UnimplementedError(unimplemented(
        "gradient of MatrixSquareRoot needs the matrix order known when the graph is built"));
  if (n == 0) return {zeros_like(grad)};
  Graph& gr = sqrtm.graph();
  // A batch of identities: zeros of R's shape plus the n x n identity.
  const Output eye_batch = add(
      zeros_like(sqrtm), linalg::matrix_diag(ones(gr, Shape({n}), sqrtm.dtype(), "ones")), "add");
  auto kronecker = [n](const Output& b1, const Output& b2) {
    const Output r1 = reshape(b1, std::vector<std::int64_t>{-1, n, 1, n, 1}, "Reshape");
    const Output r2 = reshape(b2, std::vector<std::int64_t>{-1, 1, n, 1, n}, "Reshape_1");
    return reshape(mul(r1, r2, "mul"), std::vector<std::int64_t>{-1, n * n, n * n}, "Reshape_2");
  };
  const Output k1 = kronecker(eye_batch, adjoint(sqrtm, "MatrixSquareRoot"));
  const Output k2 = kronecker(sqrtm, eye_batch);
  const Output ksum = add(k1, k2, "Add");
  const Output vec_da = reshape(adjoint(grad, "MatrixSquareRoot"),
                                std::vector<std::int64_t>{-1, n * n, 1}, "Reshape_3");
  const Output vec_dsqrtm = linalg::matrix_solve(ksum, vec_da, false, "MatrixSolve");
  const Output dsqrtm_transpose = reshape_op(vec_dsqrtm, shape_of(sqrtm, "Shape"), "Reshape_4");
  return {adjoint(dsqrtm_transpose, "MatrixSquareRoot")};
}

// x[..., 1:, :] padded with a zero row at the end (_LeftShift) or x[..., :-1, :] padded at
// the front (_RightShift), for x of known rank.
Output shift_rows(const Output& x, bool left) {
  const int rank = x.shape().rank();
  const Output part = left ? slice_last(x, -2, 1, 0, true) : slice_last(x, -2, 0, -1, false);
  std::vector<std::array<std::int64_t, 2>> paddings(static_cast<std::size_t>(rank), {0, 0});
  paddings[static_cast<std::size_t>(rank - 2)] =
      left ? std::array<std::int64_t, 2>{0, 1} : std::array<std::int64_t, 2>{1, 0};
  return pad(part, paddings, "Pad");
}

void require_rank(const Output& x, const char* what) {
  if (!x.shape().rank_known())
    throw UnimplementedError(
        unimplemented(std::string("gradient of ") + what + " needs a known rank"));
}

Grads tridiagonal_matmul_grad(const Operation& op, const Grads& g) {
  const Output superdiag = input(op, 0), maindiag = input(op, 1), subdiag = input(op, 2);
  const Output rhs = input(op, 3), grad = g[0];
  require_rank(rhs, "TridiagonalMatMul");
  const int rank = rhs.shape().rank();
  const std::vector<std::int64_t> last{rank - 1};
  const Output super_t = adjoint(superdiag, "TridiagonalMatMul");
  const Output main_t = adjoint(maindiag, "TridiagonalMatMul");
  const Output sub_t = adjoint(subdiag, "TridiagonalMatMul");
  const Output super_grad = reduce_sum(mul(shift_rows(rhs, true), grad, "mul"), last, false, "Sum");
  const Output main_grad = reduce_sum(mul(rhs, grad, "mul_1"), last, false, "Sum_1");
  const Output sub_grad =
      reduce_sum(mul(shift_rows(rhs, false), grad, "mul_2"), last, false, "Sum_2");
  const Output rhs_grad =
      add(add(shift_rows(mul(super_t, grad, "mul_3"), false), mul(main_t, grad, "mul_4"), "add"),
          shift_rows(mul(sub_t, grad, "mul_5"), true), "add_1");
  return {expand_dims(super_grad, -2, "ExpandDims"), expand_dims(main_grad, -2, "ExpandDims_1"),
          expand_dims(sub_grad, -2, "ExpandDims_2"), rhs_grad};
}

// _TransposeTridiagonalMatrix: the compact diagonals of T^T (the superdiagonal is T's
// subdiagonal moved left, the subdiagonal T's superdiagonal moved right), by Pad as Python
// does for shapes not fully defined.
Output transpose_tridiagonal(const Output& diags) {
  const int rank = diags.shape().rank();
  // diags[..., k, :] and a slice of its last axis.
  auto row = [](const Output& x, Index k, Index begin, Index end, bool to_end) {
    StridedSliceMasks masks;
    masks.ellipsis_mask = 1;
    masks.shrink_axis_mask = 2;
    if (begin == 0) masks.begin_mask |= 4;
    if (to_end) masks.end_mask |= 4;
    return strided_slice(x, std::vector<std::int64_t>{0, k, begin},
                         std::vector<std::int64_t>{0, k + 1, end},
                         std::vector<std::int64_t>{1, 1, 1}, masks, "strided_slice");
  };
  std::vector<std::array<std::int64_t, 2>> super_pad(static_cast<std::size_t>(rank - 1), {0, 0});
  std::vector<std::array<std::int64_t, 2>> sub_pad = super_pad;
  super_pad.back() = {0, 1};
  sub_pad.back() = {1, 0};
  const Output diag = row(diags, 1, 0, 0, true);
  const Output superdiag = pad(row(diags, 2, 1, 0, true), super_pad, "Pad");
  const Output subdiag = pad(row(diags, 0, 0, -1, false), sub_pad, "Pad_1");
  return stack({superdiag, diag, subdiag}, rank - 2, "stack");
}

// _MatmulExtractingThreeDiagonals: the three diagonals of x y_tr^T in compact form.
Output matmul_three_diagonals(const Output& x, const Output& y_tr) {
  const int rank = x.shape().rank();
  const std::vector<std::int64_t> last{rank - 1};
  const Output diag = reduce_sum(mul(x, y_tr, "mul"), last, false, "Sum");
  const Output superdiag =
      reduce_sum(mul(x, shift_rows(y_tr, true), "mul_1"), last, false, "Sum_1");
  const Output subdiag = reduce_sum(mul(x, shift_rows(y_tr, false), "mul_2"), last, false, "Sum_2");
  return stack({superdiag, diag, subdiag}, rank - 2, "stack");
}

Grads tridiagonal_solve_grad(const Operation& op, const Grads& g) {
  const Output diags = input(op, 0), x = op.output(0);
  require_rank(diags, "TridiagonalSolve");
  require_rank(x, "TridiagonalSolve");
  const Output grad_rhs = linalg::tridiagonal_solve(
      transpose_tridiagonal(diags), g[0], bool_attr_or(op, "partial_pivoting", true),
      bool_attr_or(op, "perturb_singular", false), "TridiagonalSolve");
  return {neg(matmul_three_diagonals(grad_rhs, x), "Neg"), grad_rhs};
}

// _EigGrad (Boeddeker et al., eq. 4.77; distinct eigenvalues only, repeated ones give
// infinities or NaN): with the eigenvectors, V^{-H} (diag(grad_e) + conj(F) o (V^H grad_v -
// V^H V diag(Re(V^H grad_v)))) V^H, F(i, j) = 1 / (e_j - e_i) off the diagonal; without,
// V^{-H} diag(grad_e) V^H with V from a second Eig. Cast to the input's dtype (a real input
// takes the real part).
Grads eig_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), grad_e = g[0];
  Output grad_a;
  if (bool_attr_or(op, "compute_v", true)) {
    const Output e = op.output(0), v = op.output(1), grad_v = g[1];
    const Output vt = adjoint(v, "Eig");
    const Output f = conj(reciprocal_differences(e), "Conj");
    const Output vgv = mm(vt, grad_v);
    const Output diag_grad_part =
        linalg::matrix_diag(linalg::matrix_diag_part(cast(real(vgv, "Real"), vgv.dtype(), "Cast")));
    const Output mid =
        add(linalg::matrix_diag(grad_e),
            mul(f, sub(vgv, mm(mm(vt, v), diag_grad_part), "sub_1"), "mul_2"), "add_1");
    grad_a = linalg::matrix_solve(vt, mm(mid, vt), false, "MatrixSolve");
  } else {
    const Output v = linalg::eig(a, "Eig").v;
    const Output vt = adjoint(v, "Eig");
    grad_a = linalg::matrix_solve(vt, mm(linalg::matrix_diag(grad_e), vt), false, "MatrixSolve");
  }
  return {cast(grad_a, a.dtype(), "Cast_1")};
}

// The k of _BandedTriangularSolveGrad's matrix_diag_part: (-(K - 1), 0) for lower bands,
// (0, K - 1) for upper ones, K = bands.shape[-2]; a Const pair when K is known, else built
// from the bands' Shape as Python builds it.
Output band_diagonals(const Output& bands, bool lower) {
  Graph& g = bands.graph();
  const Index num_bands = static_dim(bands, 2);
  if (num_bands >= 0)
    return int_constant(g,
                        lower ? std::vector<std::int64_t>{-(num_bands - 1), 0}
                              : std::vector<std::int64_t>{0, num_bands - 1},
                        "k");
  const Output shape = shape_of(bands, "Shape");
  const Output k = strided_slice(shape, std::vector<std::int64_t>{-2},
                                 std::vector<std::int64_t>{-1}, std::vector<std::int64_t>{1},
                                 StridedSliceMasks{.shrink_axis_mask = 1}, "strided_slice");
  const Output far = sub(k, g.constant(Tensor(std::int32_t{1}), "sub/y"), "sub");
  const Output zero = g.constant(Tensor(std::int32_t{0}), "zero");
  return lower ? stack({neg(far, "Neg_1"), zero}, 0, "stack") : stack({zero, far}, 0, "stack");
}

// _BandedTriangularSolveGrad: a BandedTriangularSolve with the other adjoint for rhs; for
// the bands, the bands of -grad_rhs X^H (-X grad_rhs^H with adjoint) read back with
// matrix_diag_part (LEFT_RIGHT); each summed over the batch dimensions it was broadcast
// along.
Grads banded_triangular_solve_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), b = input(op, 1), c = op.output(0);
  const bool adj = bool_attr_or(op, "adjoint", false);
  const bool lower = bool_attr_or(op, "lower", true);
  Graph& gr = a.graph();
  Output grad_b = linalg::banded_triangular_solve(a, g[0], lower, !adj);
  Output grad_a =
      adj ? neg(mm(c, grad_b, false, true), "Neg") : neg(mm(grad_b, c, false, true), "Neg");
  const Output k = band_diagonals(a, lower);
  {
    const std::string diag_name = gr.unique_name("diag_part");
    Output padding;
    {
      auto scope = gr.name_scope(diag_name + "/");
      padding = scalar_like(grad_a, 0, "padding_value");
    }
    grad_a =
        gr.create_op("MatrixDiagPartV3", {grad_a, k, padding},
                     {{"T", grad_a.dtype()}, {"align", std::string("LEFT_RIGHT")}}, diag_name + "/")
            .output(0);
  }
  return sum_over_broadcast_batches(a, b, grad_a, grad_b, 1);
}

}  // namespace

void register_linalg_decomp_gradients(GradientRegistry& r) {
  r.add("Qr", qr_grad);
  r.add("Svd", svd_grad);
  r.add("SelfAdjointEigV2", self_adjoint_eig_grad);
  r.add("MatrixSolveLs", matrix_solve_ls_grad);
  r.add("MatrixSquareRoot", matrix_square_root_grad);
  r.add("TridiagonalMatMul", tridiagonal_matmul_grad);
  r.add("TridiagonalSolve", tridiagonal_solve_grad);
  r.add("Eig", eig_grad);
  r.add("BandedTriangularSolve", banded_triangular_solve_grad);
}

}  // namespace af::detail
