// The definitions of Qr, Svd, SelfAdjointEigV2, MatrixSolveLs, MatrixSquareRoot,
// TridiagonalSolve, TridiagonalMatMul, Lu, Eig, MatrixLogarithm, CholeskyGrad and
// BandedTriangularSolve (shape functions as TensorFlow's linalg_ops.cc: QrShapeFn,
// SvdShapeFn, SelfAdjointEigV2ShapeFn, MatrixSolveShapeFn(square=false),
// BatchUnchangedSquareShapeFn, TridiagonalSolveShapeFn, TridiagonalMatMulShapeFn, LuShapeFn,
// BandedTriangularSolveShapeFn) and the builders of tf.linalg.qr, svd, eigh, eigvalsh, lstsq,
// sqrtm, the compact tridiagonal ops, lu, eig, eigvals, logm and banded_triangular_solve.
// Their CPU kernels are in kernels/src/linalg_decomp_ops.cpp and linalg_more_ops.cpp, their
// gradients in ops/src/gradients/linalg_decomp_grad.cpp.
#include "actorflow/ops/linalg_decomp_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::with_rank;
using detail::with_rank_at_least;

// Attr T of each op: the types its OpDef lists that actorflow has, and TensorFlow's
// rendering of the whole list for the NodeDef validation message.
const std::vector<DType> kDecompTypes = {DType::float64, DType::float32};
constexpr const char* kDecompNames = "double, float, half, complex64, complex128";
constexpr const char* kTridiagonalNames = "double, float, complex64, complex128";
// Lu and BandedTriangularSolve: their OpDefs' list, half included (no CPU kernel takes it:
// the node builds and is refused when the session places it, as in TensorFlow).
const std::vector<DType> kLuTypes = {DType::float64, DType::float32, DType::float16,
                                     DType::complex64, DType::complex128};
const std::vector<DType> kEigTypes = {DType::float32, DType::float64, DType::complex64,
                                      DType::complex128};
constexpr const char* kEigNames = "float, double, complex64, complex128";
const std::vector<DType> kComplexTypes = {DType::complex64, DType::complex128};
constexpr const char* kComplexNames = "complex64, complex128";
const std::vector<DType> kCholeskyGradTypes = {DType::float16, DType::float32, DType::float64};
constexpr const char* kCholeskyGradNames = "half, float, double";

// `inputs` inputs, the first args.size() of them all of input 0's type T (op_def_library's
// message names the first that differs), T one of `allowed` (TensorFlow's whole list `names`).
Status check_types_in(const InferenceContext& c, int inputs,
                      std::initializer_list<const char*> args, const std::vector<DType>& allowed,
                      const char* names) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  const auto* arg = args.begin();
  for (int i = 1; i < static_cast<int>(args.size()); ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != c.input_types[0])
      return invalid_argument(cwise::type_mismatch_message(
          c.node.op, arg[i], c.input_types[static_cast<std::size_t>(i)], arg[0], c.input_types[0]));
  return detail::check_attr_type(c.input_types[0], "T", allowed, names);
}

// check_types_in for the float and double decompositions.
Status check_types(const InferenceContext& c, int inputs, std::initializer_list<const char*> args,
                   const char* names) {
  return check_types_in(c, inputs, args, kDecompTypes, names);
}

// The type attr `attr` of the node, or `fallback` (its OpDef default) where it has none.
DType type_attr_or(const InferenceContext& c, const char* attr, DType fallback) {
  const DType* t = c.node.attr<DType>(attr);
  return t ? *t : fallback;
}

// The leading dimensions of `s` (rank >= 2 or unknown) and its two innermost ones (-1
// unknown).
struct MatrixShape {
  PartialShape batch = PartialShape::unknown();
  Index rows = -1, cols = -1;
};

Status matrix_shape(const PartialShape& s, MatrixShape* out) {
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(s, 2));
  *out = MatrixShape{};
  if (!s.rank_known()) return {};
  out->batch = PartialShape(std::vector<std::int64_t>(s.dims().begin(), s.dims().end() - 2));
  out->rows = s.dim(s.rank() - 2);
  out->cols = s.dim(s.rank() - 1);
  return {};
}

// InferenceContext::Merge of two dimensions.
Status merge_dim(Index a, Index b, Index* out) {
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  *out = a >= 0 ? a : b;
  return {};
}

// InferenceContext::Min: known when both are, or when either is a known 0.
Index min_dim(Index a, Index b) {
  if (a == 0 || b == 0) return 0;
  return a >= 0 && b >= 0 ? std::min(a, b) : -1;
}

// `batch` + `dims` (an unknown rank stays unknown).
PartialShape append(const PartialShape& batch, std::initializer_list<Index> dims) {
  if (!batch.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> out = batch.dims();
  out.insert(out.end(), dims.begin(), dims.end());
  return PartialShape(std::move(out));
}

// QrShapeFn: q [..., M, M] and r [..., M, N] with full_matrices, else [..., M, P], [..., P, N].
Status infer_qr(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 1, {"input"}, kDecompNames));
  MatrixShape in;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &in));
  bool full_matrices = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("full_matrices", &full_matrices));
  const Index m = in.rows, n = in.cols, p = min_dim(m, n);
  const DType t = c.input_types[0];
  c.add_output(t, append(in.batch, {m, full_matrices ? m : p}));
  c.add_output(t, append(in.batch, {full_matrices ? m : p, n}));
  return {};
}

// SvdShapeFn: s [..., P]; u, v [..., M, M], [..., N, N] (full_matrices) or [..., M, P],
// [..., N, P], or [0] and [0] without compute_uv.
Status infer_svd(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 1, {"input"}, kDecompNames));
  MatrixShape in;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &in));
  bool compute_uv = true, full_matrices = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("compute_uv", &compute_uv));
  const Index m = in.rows, n = in.cols, p = min_dim(m, n);
  const DType t = c.input_types[0];
  c.add_output(t, append(in.batch, {p}));
  if (!compute_uv) {
    c.add_output(t, PartialShape{0});
    c.add_output(t, PartialShape{0});
    return {};
  }
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("full_matrices", &full_matrices));
  c.add_output(t, append(in.batch, {m, full_matrices ? m : p}));
  c.add_output(t, append(in.batch, {n, full_matrices ? n : p}));
  return {};
}

// MakeBatchSquareMatrix: the order of a batch of square matrices.
Status square(const PartialShape& s, MatrixShape* in, Index* n) {
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(s, in));
  return merge_dim(in->rows, in->cols, n);
}

// SelfAdjointEigV2ShapeFn: e [..., N]; v [..., N, N], or [0] without compute_v.
Status infer_self_adjoint_eig(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 1, {"input"}, kDecompNames));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  bool compute_v = true;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("compute_v", &compute_v));
  const DType t = c.input_types[0];
  c.add_output(t, append(in.batch, {n}));
  c.add_output(t, compute_v ? append(in.batch, {n, n}) : PartialShape{0});
  return {};
}

// BatchUnchangedSquareShapeFn: MatrixSquareRoot.
Status infer_square_unchanged(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 1, {"input"}, kDecompNames));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  c.add_output(c.input_types[0], append(in.batch, {n, n}));
  return {};
}

// MatrixSolveLs: l2_regularizer a float64 scalar, then MatrixSolveShapeFn(square=false):
// batch dimensions merged, rows merged, output batch + [N, K].
Status infer_matrix_solve_ls(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 3, {"matrix", "rhs"}, kDecompNames));
  if (c.input_types[2] != DType::float64)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "l2_regularizer",
                                                               c.input_types[2], DType::float64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  MatrixShape lhs, rhs;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &lhs));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[1], &rhs));
  PartialShape batch;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(lhs.batch, rhs.batch, &batch));
  Index m = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dim(lhs.rows, rhs.rows, &m));
  c.add_output(c.input_types[0], append(batch, {lhs.cols, rhs.cols}));
  return {};
}

// TridiagonalSolveShapeFn: diagonals [..., 3, M], rhs [..., M, K] with the same batch
// dimensions; the output has rhs's shape.
Status infer_tridiagonal_solve(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, 2, {"diagonals", "rhs"}, kTridiagonalNames));
  MatrixShape lhs, rhs;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &lhs));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[1], &rhs));
  PartialShape batch;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(lhs.batch, rhs.batch, &batch));
  Index m = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dim(lhs.cols, rhs.rows, &m));
  if (lhs.rows >= 0 && lhs.rows != 3)
    return invalid_argument("Dimension must be 3 but is " + std::to_string(lhs.rows));
  c.add_output(c.input_types[0], c.input_shapes[1]);
  return {};
}

// TridiagonalMatMulShapeFn: three diagonals [..., 1, M] and rhs [..., M, N] with the same
// batch dimensions; the output has rhs's shape.
Status infer_tridiagonal_matmul(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(
      check_types(c, 4, {"superdiag", "maindiag", "subdiag", "rhs"}, kTridiagonalNames));
  MatrixShape super, main, sub, rhs;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &super));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[1], &main));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[2], &sub));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[3], &rhs));
  PartialShape diag_shape, batch;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[0], c.input_shapes[1], &diag_shape));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(main.batch, rhs.batch, &batch));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(sub.batch, batch, &batch));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[2], diag_shape, &diag_shape));
  Index m = -1;
  const Index diag_rows = diag_shape.rank_known() ? diag_shape.dim(diag_shape.rank() - 2) : -1;
  const Index diag_cols = diag_shape.rank_known() ? diag_shape.dim(diag_shape.rank() - 1) : -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dim(diag_cols, rhs.rows, &m));
  if (diag_rows >= 0 && diag_rows != 1)
    return invalid_argument("Dimension must be 1 but is " + std::to_string(diag_rows));
  c.add_output(c.input_types[0], c.input_shapes[3]);
  return {};
}

// LuShapeFn: lu [..., N, N] and p [..., N] of type output_idx_type (int32 or int64).
Status infer_lu(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types_in(c, 1, {"input"}, kLuTypes, kDecompNames));
  const DType idx = type_attr_or(c, "output_idx_type", DType::int32);
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(idx, "output_idx_type"));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  c.add_output(c.input_types[0], append(in.batch, {n, n}));
  c.add_output(idx, append(in.batch, {n}));
  return {};
}

// Eig: SelfAdjointEigV2ShapeFn with the outputs of type Tout (complex64 or complex128).
Status infer_eig(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types_in(c, 1, {"input"}, kEigTypes, kEigNames));
  DType out = DType::complex64;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tout", &out));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_attr_type(out, "Tout", kComplexTypes, kComplexNames));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  bool compute_v = true;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("compute_v", &compute_v));
  c.add_output(out, append(in.batch, {n}));
  c.add_output(out, compute_v ? append(in.batch, {n, n}) : PartialShape{0});
  return {};
}

// BatchUnchangedSquareShapeFn of MatrixLogarithm (complex only).
Status infer_matrix_logarithm(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types_in(c, 1, {"input"}, kComplexTypes, kComplexNames));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  c.add_output(c.input_types[0], append(in.batch, {n, n}));
  return {};
}

// BatchUnchangedSquareShapeFn of CholeskyGrad: input 0's shape alone (l and grad of one
// type; their shapes are compared when the kernel runs).
Status infer_cholesky_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(
      check_types_in(c, 2, {"l", "grad"}, kCholeskyGradTypes, kCholeskyGradNames));
  MatrixShape in;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(square(c.input_shapes[0], &in, &n));
  c.add_output(c.input_types[0], append(in.batch, {n, n}));
  return {};
}

// BandedTriangularSolveShapeFn: bands [..., K, M] (0 < K <= M where known) and rhs [..., M,
// N]; the batch dimensions broadcast; the output [..., M, N].
Status infer_banded_triangular_solve(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types_in(c, 2, {"matrix", "rhs"}, kLuTypes, kDecompNames));
  MatrixShape lhs, rhs;
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[0], &lhs));
  ACTORFLOW_RETURN_IF_ERROR(matrix_shape(c.input_shapes[1], &rhs));
  const Index num_bands = lhs.rows;
  if (num_bands == 0)
    return invalid_argument("Number of bands must be positive, but is " +
                            std::to_string(num_bands));
  if (num_bands >= 0 && lhs.cols >= 0 && num_bands > lhs.cols)
    return invalid_argument("Number of bands " + std::to_string(num_bands) +
                            " cannot exceed the size of the matrix " + std::to_string(lhs.cols));
  PartialShape batch;
  ACTORFLOW_RETURN_IF_ERROR(cwise::broadcast_binary_shapes(lhs.batch, rhs.batch, &batch));
  Index m = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dim(lhs.cols, rhs.rows, &m));
  c.add_output(c.input_types[0], append(batch, {m, rhs.cols}));
  return {};
}

// op_def_library's check that the inputs share type T.
void check_same_type(const char* op, const char* first_arg, const Output& first, const char* arg,
                     const Output& other) {
  if (other.dtype() != first.dtype())
    throw InvalidArgumentError(invalid_argument(
        cwise::type_mismatch_message(op, arg, other.dtype(), first_arg, first.dtype())));
}

// The name of an op Python builds inside `with name_scope(name or scope)`: "<scope>/<type>"
// (the scope made unique), or `name` verbatim.
std::string scoped_name(Graph& g, std::string_view name, const char* scope, const char* type) {
  if (!name.empty()) return std::string(name);
  return g.unique_name(scope) + "/" + type + "/";
}

}  // namespace

namespace detail {

void register_linalg_decomp_ops(OpRegistry& r) {
  r.add({"Qr", infer_qr});
  r.add({"Svd", infer_svd});
  r.add({"SelfAdjointEigV2", infer_self_adjoint_eig});
  r.add({"MatrixSolveLs", infer_matrix_solve_ls});
  r.add({"MatrixSquareRoot", infer_square_unchanged});
  r.add({"TridiagonalSolve", infer_tridiagonal_solve});
  r.add({"TridiagonalMatMul", infer_tridiagonal_matmul});
  r.add({"Lu", infer_lu});
  r.add({"Eig", infer_eig});
  r.add({"MatrixLogarithm", infer_matrix_logarithm});
  r.add({"CholeskyGrad", infer_cholesky_grad});
  r.add({"BandedTriangularSolve", infer_banded_triangular_solve});
}

}  // namespace detail

namespace linalg {

QrOutputs qr(const Output& input, bool full_matrices, std::string_view name) {
  Operation op = input.graph().create_op("Qr", {input},
                                         {{"full_matrices", full_matrices}, {"T", input.dtype()}},
                                         name.empty() ? "Qr" : name);
  return {op.output(0), op.output(1)};
}

SvdOutputs svd(const Output& input, bool full_matrices, bool compute_uv, std::string_view name) {
  Graph& g = input.graph();
  Operation op = g.create_op(
      "Svd", {input},
      {{"compute_uv", compute_uv}, {"full_matrices", full_matrices}, {"T", input.dtype()}},
      scoped_name(g, name, "svd", "Svd"));
  return {op.output(0), op.output(1), op.output(2)};
}

EighOutputs self_adjoint_eig(const Output& input, std::string_view name) {
  Operation op = input.graph().create_op("SelfAdjointEigV2", {input},
                                         {{"compute_v", true}, {"T", input.dtype()}},
                                         name.empty() ? "SelfAdjointEigV2" : name);
  return {op.output(0), op.output(1)};
}

Output self_adjoint_eigvals(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("SelfAdjointEigV2", {input}, {{"compute_v", false}, {"T", input.dtype()}},
                 name.empty() ? "SelfAdjointEigV2" : name)
      .output(0);
}

Output matrix_solve_ls(const Output& matrix, const Output& rhs, const Output& l2_regularizer,
                       bool fast, std::string_view name) {
  check_same_type("MatrixSolveLs", "matrix", matrix, "rhs", rhs);
  return matrix.graph()
      .create_op("MatrixSolveLs", {matrix, rhs, l2_regularizer},
                 {{"T", matrix.dtype()}, {"fast", fast}}, name.empty() ? "MatrixSolveLs" : name)
      .output(0);
}

Output matrix_solve_ls(const Output& matrix, const Output& rhs, double l2_regularizer, bool fast,
                       std::string_view name) {
  const Output l2 = matrix.graph().constant(Tensor(l2_regularizer), "l2_regularizer");
  return matrix_solve_ls(matrix, rhs, l2, fast, name);
}

Output matrix_square_root(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("MatrixSquareRoot", {input}, {{"T", input.dtype()}},
                 name.empty() ? "MatrixSquareRoot" : name)
      .output(0);
}

Output tridiagonal_solve(const Output& diagonals, const Output& rhs, bool partial_pivoting,
                         bool perturb_singular, std::string_view name) {
  check_same_type("TridiagonalSolve", "diagonals", diagonals, "rhs", rhs);
  return diagonals.graph()
      .create_op("TridiagonalSolve", {diagonals, rhs},
                 {{"partial_pivoting", partial_pivoting},
                  {"perturb_singular", perturb_singular},
                  {"T", diagonals.dtype()}},
                 name.empty() ? "TridiagonalSolve" : name)
      .output(0);
}

Output tridiagonal_matmul(const Output& superdiag, const Output& maindiag, const Output& subdiag,
                          const Output& rhs, std::string_view name) {
  check_same_type("TridiagonalMatMul", "superdiag", superdiag, "maindiag", maindiag);
  check_same_type("TridiagonalMatMul", "superdiag", superdiag, "subdiag", subdiag);
  check_same_type("TridiagonalMatMul", "superdiag", superdiag, "rhs", rhs);
  return superdiag.graph()
      .create_op("TridiagonalMatMul", {superdiag, maindiag, subdiag, rhs},
                 {{"T", superdiag.dtype()}}, name.empty() ? "TridiagonalMatMul" : name)
      .output(0);
}

LuOutputs lu(const Output& input, DType output_idx_type, std::string_view name) {
  Operation op = input.graph().create_op(
      "Lu", {input}, {{"T", input.dtype()}, {"output_idx_type", output_idx_type}},
      name.empty() ? "Lu" : name);
  return {op.output(0), op.output(1)};
}

namespace {

// tf.linalg.eig's Tout: complex128 for float64 and complex128 input, else complex64.
DType eig_output_type(DType t) {
  return t == DType::float64 || t == DType::complex128 ? DType::complex128 : DType::complex64;
}

Operation eig_op(const Output& input, bool compute_v, std::string_view name) {
  return input.graph().create_op(
      "Eig", {input},
      {{"compute_v", compute_v}, {"T", input.dtype()}, {"Tout", eig_output_type(input.dtype())}},
      name.empty() ? "Eig" : name);
}

}  // namespace

EigOutputs eig(const Output& input, std::string_view name) {
  Operation op = eig_op(input, true, name);
  return {op.output(0), op.output(1)};
}

Output eigvals(const Output& input, std::string_view name) {
  return eig_op(input, false, name).output(0);
}

Output matrix_logarithm(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("MatrixLogarithm", {input}, {{"T", input.dtype()}},
                 name.empty() ? "MatrixLogarithm" : name)
      .output(0);
}

Output cholesky_grad(const Output& l, const Output& grad, std::string_view name) {
  check_same_type("CholeskyGrad", "l", l, "grad", grad);
  return l.graph()
      .create_op("CholeskyGrad", {l, grad}, {{"T", l.dtype()}},
                 name.empty() ? "CholeskyGrad" : name)
      .output(0);
}

Output banded_triangular_solve(const Output& bands, const Output& rhs, bool lower, bool adjoint,
                               std::string_view name) {
  check_same_type("BandedTriangularSolve", "matrix", bands, "rhs", rhs);
  Graph& g = bands.graph();
  return g
      .create_op("BandedTriangularSolve", {bands, rhs},
                 {{"lower", lower}, {"adjoint", adjoint}, {"T", bands.dtype()}},
                 scoped_name(g, name, "banded_triangular_solve", "BandedTriangularSolve"))
      .output(0);
}

}  // namespace linalg

}  // namespace af
