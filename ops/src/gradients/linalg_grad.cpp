// Gradients of the band and diagonal ops (TensorFlow's array_grad.py) and of the linear
// algebra ops (linalg_grad.py), built of the ops Python's gradient functions build:
// math_ops.matmul as MatMul for two matrices and BatchMatMulV2 otherwise (adjoints are
// transposes for the real types), matrix_diag / matrix_diag_part / matrix_set_diag as the V3
// ops. Where Python builds a diagonal's shape at run time (a tf.cond on k) the zeros here are a
// ZerosLike of the forward op's diagonal, which has that shape.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/linalg_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"
#include "linalg_grad_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

std::string string_attr_or(const Operation& op, const char* name, const char* fallback) {
  const auto* v = op.node_def().attr<std::string>(name);
  return v ? *v : std::string(fallback);
}

// The V3 diagonal ops with k (and the sizes) given as tensors, named as Python names them.
Output diag_part_v3(const Output& input, const Output& k, const std::string& align) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name("diag_part");
  Output padding;
  {
    auto scope = g.name_scope(op_name + "/");
    padding = scalar_like(input, 0, "padding_value");
  }
  return g
      .create_op("MatrixDiagPartV3", {input, k, padding}, {{"T", input.dtype()}, {"align", align}},
                 op_name + "/")
      .output(0);
}

Output diag_v3(const Output& diagonal, const Output& k, std::int64_t rows, std::int64_t cols,
               const std::string& align) {
  Graph& g = diagonal.graph();
  const std::string op_name = g.unique_name("diag");
  std::vector<Output> inputs{diagonal, k};
  {
    auto scope = g.name_scope(op_name + "/");
    inputs.push_back(g.constant(Tensor(static_cast<std::int32_t>(rows)), "num_rows"));
    inputs.push_back(g.constant(Tensor(static_cast<std::int32_t>(cols)), "num_cols"));
    inputs.push_back(scalar_like(diagonal, 0, "padding_value"));
  }
  return g
      .create_op("MatrixDiagV3", inputs, {{"T", diagonal.dtype()}, {"align", align}}, op_name + "/")
      .output(0);
}

Output set_diag_v3(const Output& input, const Output& diagonal, const Output& k,
                   const std::string& align) {
  return input.graph()
      .create_op("MatrixSetDiagV3", {input, diagonal, k}, {{"T", input.dtype()}, {"align", align}},
                 "set_diag")
      .output(0);
}

// The innermost matrix size of `x` when both dimensions are known.
bool matrix_size(const Output& x, std::int64_t* rows, std::int64_t* cols) {
  const PartialShape& s = x.shape();
  if (!s.rank_known() || s.rank() < 2) return false;
  *rows = s.dim(s.rank() - 2);
  *cols = s.dim(s.rank() - 1);
  return *rows >= 0 && *cols >= 0;
}

// Zeros of the forward op's diagonal input `diagonal`: a Const (or Fill) when its shape is
// known, as array_ops.zeros makes it, else ZerosLike.
Output zeros_of(const Output& diagonal) {
  if (auto s = diagonal.shape().to_shape()) return zeros(diagonal.graph(), *s, diagonal.dtype());
  return zeros_like_op(diagonal);
}

// _MatrixDiagPartGrad (V1) and _MatrixDiagPartV2Grad / V3: the diagonals put back.
Grads matrix_diag_part_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0);
  std::int64_t rows = 0, cols = 0;
  const bool known = matrix_size(x, &rows, &cols);
  if (op.node()->inputs().size() == 1) {
    if (known && rows == cols) return {linalg::matrix_diag(g[0])};
    return {linalg::matrix_set_diag(zeros_like(x), g[0])};
  }
  const std::string align = string_attr_or(op, "align", "RIGHT_LEFT");
  const Output k = input(op, 1);
  if (known) return {diag_v3(g[0], k, rows, cols, align), Output(), Output()};
  return {set_diag_v3(zeros_like(x), g[0], k, align), Output(), Output()};
}

// _MatrixSetDiagGrad (V1) and _MatrixSetDiagGradV2 / V3: the gradient with the diagonals
// zeroed for the input, its diagonals for `diagonal`.
Grads matrix_set_diag_grad(const Operation& op, const Grads& g) {
  const Output grad = g[0], diagonal = input(op, 1);
  if (op.node()->inputs().size() == 2) {
    Output zeros_diag;
    const PartialShape& in = input(op, 0).shape();
    std::int64_t rows = 0, cols = 0;
    if (in.fully_defined() && matrix_size(input(op, 0), &rows, &cols)) {
      std::vector<std::int64_t> dims(in.dims().begin(), in.dims().end() - 2);
      dims.push_back(std::min(rows, cols));
      zeros_diag = zeros(grad.graph(), Shape(dims), grad.dtype());
    } else {
      zeros_diag = zeros_like_op(diagonal);
    }
    return {linalg::matrix_set_diag(grad, zeros_diag), linalg::matrix_diag_part(grad)};
  }
  const std::string align = string_attr_or(op, "align", "RIGHT_LEFT");
  const Output k = input(op, 2);
  const Output grad_input = set_diag_v3(grad, zeros_of(diagonal), k, align);
  return {grad_input, diag_part_v3(grad, k, align), Output()};
}

// _CholeskyGrad: l^{-H} ((l^H grad) * (tril(ones) - eye / 2)) l^{-1}, symmetrized.
Grads cholesky_grad(const Operation& op, const Grads& g) {
  const Output l = op.output(0), grad = g[0];
  Graph& gr = l.graph();
  const Output l_shape = shape_of(l, "Shape");
  const Output num_rows = strided_slice(l_shape, std::vector<std::int64_t>{-1},
                                        std::vector<std::int64_t>{0}, std::vector<std::int64_t>{1},
                                        StridedSliceMasks{.shrink_axis_mask = 1}, "strided_slice");
  const Output batch_shape = strided_slice(
      shape_of(l, "Shape_1"), std::vector<std::int64_t>{0}, std::vector<std::int64_t>{-2},
      std::vector<std::int64_t>{1}, StridedSliceMasks{.begin_mask = 1}, "strided_slice_1");
  Output eye;
  {
    auto scope = gr.name_scope("eye");
    const Output diag_shape =
        concat({batch_shape, stack({num_rows}, 0, "concat/values_1")}, 0, "concat");
    const Output ones = fill(diag_shape, scalar_like(l, 1, "ones/Const"), "ones");
    eye = linalg::matrix_diag(ones);
  }
  const Output l_inverse =
      linalg::matrix_triangular_solve(l, eye, true, false, "MatrixTriangularSolve");
  Output middle = mm(l, grad, true, false, "MatMul");
  const Output half_diag =
      mul(scalar_like(middle, 0.5, "mul/x"), linalg::matrix_diag_part(middle), "mul");
  middle = linalg::matrix_set_diag(middle, half_diag);
  middle = linalg::band_part(middle, -1, 0);
  Output grad_a =
      mm(mm(l_inverse, middle, true, false, "MatMul_1"), l_inverse, false, false, "MatMul_2");
  grad_a = add(grad_a, adjoint(grad_a), "add");
  return {mul(grad_a, scalar_like(grad_a, 0.5, "mul_1/y"), "mul_1")};
}

// _MatrixDeterminantGrad / _LogMatrixDeterminantGrad: the (scaled) gradient times
// inv(a)^H, broadcast over each matrix.
Output determinant_grad(const Output& a, const Output& scale, const Output& like) {
  Graph& g = a.graph();
  const Output a_adj_inv = linalg::matrix_inverse(a, true, "MatrixInverse");
  const Output shape =
      concat({shape_of(like, "Shape"), int_constant(g, {1, 1}, "concat/values_1")}, 0, "concat");
  return mul(reshape(scale, shape, "Reshape"), a_adj_inv, "mul");
}

// _MatrixTriangularSolveGrad: the triangle of -grad_b c^H (c^H grad_b ... for adjoint),
// each summed over the batch dimensions it was broadcast along.
Grads triangular_solve_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), b = input(op, 1), c = op.output(0);
  const bool adj = bool_attr_or(op, "adjoint", false);
  const bool lower = bool_attr_or(op, "lower", true);
  Output grad_b = linalg::matrix_triangular_solve(a, g[0], lower, !adj, "MatrixTriangularSolve");
  Output grad_a = adj ? neg(mm(c, grad_b, false, true, "MatMul"), "Neg")
                      : neg(mm(grad_b, c, false, true, "MatMul"), "Neg");
  grad_a = lower ? linalg::band_part(grad_a, -1, 0) : linalg::band_part(grad_a, 0, -1);
  return sum_over_broadcast_batches(a, b, grad_a, grad_b, 0);
}

}  // namespace

void register_linalg_gradients(GradientRegistry& r) {
  r.add("Diag",
        [](const Operation&, const Grads& g) -> Grads { return {linalg::diag_part(g[0])}; });
  r.add("DiagPart", [](const Operation&, const Grads& g) -> Grads { return {linalg::diag(g[0])}; });
  r.add("MatrixDiag",
        [](const Operation&, const Grads& g) -> Grads { return {linalg::matrix_diag_part(g[0])}; });
  // _MatrixDiagV2Grad reads the diagonals back aligned RIGHT_LEFT although MatrixDiagV2 packs
  // them LEFT_LEFT; kept as TensorFlow has it.
  for (const char* type : {"MatrixDiagV2", "MatrixDiagV3"})
    r.add(type, [](const Operation& op, const Grads& g) -> Grads {
      const std::string align = string_attr_or(op, "align", "RIGHT_LEFT");
      return {diag_part_v3(g[0], input(op, 1), align), Output(), Output(), Output(), Output()};
    });
  for (const char* type : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"})
    r.add(type, matrix_diag_part_grad);
  for (const char* type : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"})
    r.add(type, matrix_set_diag_grad);
  r.add("MatrixBandPart", [](const Operation& op, const Grads& g) -> Grads {
    const Output lower = input(op, 1), upper = input(op, 2);
    const Output band =
        op.graph()
            .create_op("MatrixBandPart", {g[0], lower, upper},
                       {{"T", g[0].dtype()}, {"Tindex", lower.dtype()}}, "MatrixBandPart")
            .output(0);
    return {band, Output(), Output()};
  });
  r.add("MatrixInverse", [](const Operation& op, const Grads& g) -> Grads {
    const Output ainv = op.output(0);
    const bool adj = bool_attr_or(op, "adjoint", false);
    const Output inner = mm(g[0], ainv, adj, !adj, "MatMul");
    return {neg(mm(ainv, inner, !adj, false, "MatMul_1"), "Neg")};
  });
  r.add("MatrixDeterminant", [](const Operation& op, const Grads& g) -> Grads {
    const Output c = op.output(0);
    return {determinant_grad(input(op, 0), mul(g[0], c, "mul"), c)};
  });
  r.add("LogMatrixDeterminant", [](const Operation& op, const Grads& g) -> Grads {
    return {determinant_grad(input(op, 0), g[1], op.output(1))};
  });
  r.add("Cholesky", cholesky_grad);
  r.add("MatrixSolve", [](const Operation& op, const Grads& g) -> Grads {
    const Output a = input(op, 0), c = op.output(0);
    const bool adj = bool_attr_or(op, "adjoint", false);
    const Output grad_b = linalg::matrix_solve(a, g[0], !adj, "MatrixSolve");
    const Output grad_a = adj ? neg(mm(c, grad_b, false, true, "MatMul"), "Neg")
                              : neg(mm(grad_b, c, false, true, "MatMul"), "Neg");
    return {grad_a, grad_b};
  });
  r.add("MatrixTriangularSolve", triangular_solve_grad);
}

}  // namespace af::detail
