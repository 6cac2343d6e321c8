// The definitions of MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky,
// MatrixSolve and MatrixTriangularSolve (shape functions as TensorFlow's linalg_ops.cc:
// BatchUnchangedSquareShapeFn, MatrixSolveShapeFn, MatrixTriangularSolveShapeFn) and the
// builders of tf.linalg.inv, det, slogdet, cholesky, solve and triangular_solve. Their CPU
// kernels are in kernels/src/linalg_ops.cpp, their gradients in
// ops/src/gradients/linalg_grad.cpp.
#include "actorflow/ops/linalg_ops.hpp"

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
using detail::with_rank_at_least;

// Attr T of each op: the types its OpDef lists that actorflow has, and TensorFlow's
// rendering of the whole list for the NodeDef validation message.
struct LinalgTypes {
  std::vector<DType> allowed;
  const char* names;
};
const LinalgTypes kInverseTypes{{DType::float64, DType::float32},
                                "double, float, half, complex64, complex128"};
// MatrixSolve takes complex too (Eig's gradient solves with complex eigenvectors).
const LinalgTypes kSolveTypes{{DType::float64, DType::float32, DType::complex64, DType::complex128},
                              "double, float, half, complex64, complex128"};
const LinalgTypes kDeterminantTypes{{DType::float32, DType::float64},
                                    "half, float, double, complex64, complex128"};
const LinalgTypes kTriangularTypes{{DType::bfloat16, DType::float64, DType::float32},
                                   "bfloat16, double, float, half, complex64, complex128"};

Status check_types(const InferenceContext& c, const LinalgTypes& types, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (inputs == 2 && c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "rhs", c.input_types[1],
                                                         "matrix", c.input_types[0]));
  return detail::check_attr_type(c.input_types[0], "T", types.allowed, types.names);
}

// MakeBatchSquareMatrix: rank >= 2 with the two innermost dimensions merged; returns the
// batch dimensions and the order (-1 unknown), or an unknown rank.
Status batch_square(const PartialShape& s, PartialShape* batch, Index* n) {
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(s, 2));
  *batch = PartialShape::unknown();
  *n = -1;
  if (!s.rank_known()) return {};
  const Index rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  if (rows >= 0 && cols >= 0 && rows != cols)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(rows) + " and " +
                            std::to_string(cols));
  *n = rows >= 0 ? rows : cols;
  *batch = PartialShape(std::vector<std::int64_t>(s.dims().begin(), s.dims().end() - 2));
  return {};
}

// `batch` + `dims` (unknown rank stays unknown).
PartialShape append(const PartialShape& batch, std::initializer_list<Index> dims) {
  if (!batch.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> out = batch.dims();
  out.insert(out.end(), dims.begin(), dims.end());
  return PartialShape(std::move(out));
}

// BatchUnchangedSquareShapeFn: MatrixInverse, Cholesky.
Status infer_square_unchanged(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, kInverseTypes, 1));
  PartialShape batch;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(batch_square(c.input_shapes[0], &batch, &n));
  c.add_output(c.input_types[0], append(batch, {n, n}));
  return {};
}

// MatrixDeterminant and LogMatrixDeterminant: one value (two) per matrix of the batch.
Status infer_determinant(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, kDeterminantTypes, 1));
  PartialShape batch;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(batch_square(c.input_shapes[0], &batch, &n));
  c.add_output(c.input_types[0], batch);
  if (c.node.op == "LogMatrixDeterminant") c.add_output(c.input_types[0], batch);
  return {};
}

// The start of MatrixSolve's and MatrixTriangularSolve's shape functions: the types, lhs a
// batch of square matrices (its batch dimensions and order n), rhs of rank >= 2.
Status solve_inputs(InferenceContext& c, const LinalgTypes& types, PartialShape* lhs_batch,
                    Index* n) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, types, 2));
  ACTORFLOW_RETURN_IF_ERROR(batch_square(c.input_shapes[0], lhs_batch, n));
  return with_rank_at_least(c.input_shapes[1], 2);
}

// The order `n` of lhs merged with the rows `m` of rhs (-1 unknown) into `*rows`.
Status merge_rows(Index n, Index m, Index* rows) {
  if (n >= 0 && m >= 0 && n != m)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(n) + " and " +
                            std::to_string(m));
  *rows = n >= 0 ? n : m;
  return {};
}

// MatrixSolveShapeFn(square): batch dimensions merged, rows merged, output batch + [n, k].
Status infer_matrix_solve(InferenceContext& c) {
  PartialShape lhs_batch;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(solve_inputs(c, kSolveTypes, &lhs_batch, &n));
  const PartialShape& rhs = c.input_shapes[1];
  PartialShape rhs_batch = PartialShape::unknown();
  Index m = -1, k = -1;
  if (rhs.rank_known()) {
    rhs_batch = PartialShape(std::vector<std::int64_t>(rhs.dims().begin(), rhs.dims().end() - 2));
    m = rhs.dim(rhs.rank() - 2);
    k = rhs.dim(rhs.rank() - 1);
  }
  PartialShape batch;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(lhs_batch, rhs_batch, &batch));
  Index rows = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_rows(n, m, &rows));
  c.add_output(c.input_types[0], append(batch, {rows, k}));
  return {};
}

// MatrixTriangularSolveShapeFn: batch dimensions broadcast, rows merged.
Status infer_triangular_solve(InferenceContext& c) {
  PartialShape lhs_batch;
  Index n = -1;
  ACTORFLOW_RETURN_IF_ERROR(solve_inputs(c, kTriangularTypes, &lhs_batch, &n));
  const PartialShape& rhs = c.input_shapes[1];
  if (!lhs_batch.rank_known() || !rhs.rank_known()) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  const PartialShape rhs_batch(std::vector<std::int64_t>(rhs.dims().begin(), rhs.dims().end() - 2));
  PartialShape batch;
  if (!broadcast_shapes(lhs_batch, rhs_batch, &batch).ok()) {
    // BroadcastBinaryOpOutputShapeFnHelper: the first pair of known dimensions > 1 that
    // differ.
    const int rank = std::max(lhs_batch.rank(), rhs_batch.rank());
    for (int i = 0; i < rank; ++i) {
      const int ia = i - (rank - lhs_batch.rank()), ib = i - (rank - rhs_batch.rank());
      const Index da = ia >= 0 ? lhs_batch.dim(ia) : 1, db = ib >= 0 ? rhs_batch.dim(ib) : 1;
      if (da > 1 && db > 1 && da != db)
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(da) +
                                " and " + std::to_string(db));
    }
    return invalid_argument("Incompatible shapes: " + detail::inference_shape_string(lhs_batch) +
                            " vs. " + detail::inference_shape_string(rhs_batch));
  }
  Index rows = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_rows(n, rhs.dim(rhs.rank() - 2), &rows));
  c.add_output(c.input_types[0], append(batch, {rows, rhs.dim(rhs.rank() - 1)}));
  return {};
}

// op_def_library's check of two inputs of one type T.
void check_same_type(const char* op, const Output& matrix, const Output& rhs) {
  if (rhs.dtype() != matrix.dtype())
    throw InvalidArgumentError(invalid_argument(
        cwise::type_mismatch_message(op, "rhs", rhs.dtype(), "matrix", matrix.dtype())));
}

}  // namespace

namespace detail {

void register_linalg_ops(OpRegistry& r) {
  r.add({"MatrixInverse", infer_square_unchanged});
  r.add({"Cholesky", infer_square_unchanged});
  r.add({"MatrixDeterminant", infer_determinant});
  r.add({"LogMatrixDeterminant", infer_determinant});
  r.add({"MatrixSolve", infer_matrix_solve});
  r.add({"MatrixTriangularSolve", infer_triangular_solve});
}

}  // namespace detail

namespace linalg {

Output matrix_inverse(const Output& input, bool adjoint, std::string_view name) {
  return input.graph()
      .create_op("MatrixInverse", {input}, {{"adjoint", adjoint}, {"T", input.dtype()}},
                 name.empty() ? "MatrixInverse" : name)
      .output(0);
}

Output matrix_determinant(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("MatrixDeterminant", {input}, {{"T", input.dtype()}},
                 name.empty() ? "MatrixDeterminant" : name)
      .output(0);
}

std::pair<Output, Output> log_matrix_determinant(const Output& input, std::string_view name) {
  Operation op = input.graph().create_op("LogMatrixDeterminant", {input}, {{"T", input.dtype()}},
                                         name.empty() ? "LogMatrixDeterminant" : name);
  return {op.output(0), op.output(1)};
}

Output cholesky(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("Cholesky", {input}, {{"T", input.dtype()}}, name.empty() ? "Cholesky" : name)
      .output(0);
}

Output matrix_solve(const Output& matrix, const Output& rhs, bool adjoint, std::string_view name) {
  check_same_type("MatrixSolve", matrix, rhs);
  return matrix.graph()
      .create_op("MatrixSolve", {matrix, rhs}, {{"adjoint", adjoint}, {"T", matrix.dtype()}},
                 name.empty() ? "MatrixSolve" : name)
      .output(0);
}

Output matrix_triangular_solve(const Output& matrix, const Output& rhs, bool lower, bool adjoint,
                               std::string_view name) {
  check_same_type("MatrixTriangularSolve", matrix, rhs);
  Graph& g = matrix.graph();
  // tf.linalg.triangular_solve opens the scope "triangular_solve" around the op.
  const std::string op_name = name.empty()
                                  ? g.unique_name("triangular_solve") + "/MatrixTriangularSolve/"
                                  : std::string(name);
  return g
      .create_op("MatrixTriangularSolve", {matrix, rhs},
                 {{"lower", lower}, {"adjoint", adjoint}, {"T", matrix.dtype()}}, op_name)
      .output(0);
}

}  // namespace linalg

}  // namespace af
