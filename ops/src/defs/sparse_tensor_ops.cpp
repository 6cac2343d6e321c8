// The definitions of SparseTensorDenseMatMul, SparseAdd, SparseAddGrad, SparseTensorDenseAdd,
// SparseReduce{Sum,Max}[Sparse], SparseReorder, SparseConcat, SparseSlice, SparseSliceGrad,
// SparseSoftmax, SparseDenseCwise{Mul,Div,Add}, SparseSparse{Maximum,Minimum}, SparseCross,
// SparseCrossHashed and SparseCrossV2 (shape functions as TensorFlow's sparse_ops.cc and
// math_ops.cc). The builders are in sparse_tensor_builders.cpp, the kernels in
// kernels/src/sparse_tensor_ops.cpp and sparse_concat_cross_ops.cpp, the gradients in
// ops/src/gradients/sparse_tensor_grad.cpp.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::merge_dims;
using detail::vector_of;

using Index = std::int64_t;
using detail::with_rank;

// Dimension `i` of a shape of known rank, else -1.
Index dim_or_unknown(const PartialShape& s, int i) {
  return s.rank_known() && s.rank() > i ? s.dim(i) : -1;
}

PartialShape matrix_of(Index rows, Index cols) {
  return PartialShape(std::vector<std::int64_t>{rows, cols});
}

// Checks input `i` is int64 and of rank `rank`.
Status int64_of_rank(const InferenceContext& c, int i, int rank) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, DType::int64));
  return with_rank(c.input_shapes[static_cast<std::size_t>(i)], rank);
}

// A SparseTensor's three inputs from `first`: indices int64 [N, R], values [N], shape [R].
Status check_sparse_inputs(const InferenceContext& c, int first) {
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, first, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(first + 1)], 1));
  return int64_of_rank(c, first + 2, 1);
}

// SparseTensorDenseMatMul: [rows of op(a), columns of op(b)], the inner dimensions merged.
Status infer_dense_matmul(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[0], "Tindices"));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  if (c.input_types[3] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "b", c.input_types[3],
                                                         "a_values", c.input_types[1]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  PartialShape a_shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 2, &a_shape));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(a_shape, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 2));
  bool adjoint_a = false, adjoint_b = false;
  c.get_attr("adjoint_a", &adjoint_a);
  c.get_attr("adjoint_b", &adjoint_b);
  const PartialShape& b = c.input_shapes[3];
  const Index left = dim_or_unknown(a_shape, adjoint_a ? 1 : 0);
  const Index inner_left = dim_or_unknown(a_shape, adjoint_a ? 0 : 1);
  const Index inner_right = dim_or_unknown(b, adjoint_b ? 1 : 0);
  const Index right = dim_or_unknown(b, adjoint_b ? 0 : 1);
  Index inner = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(inner_left, inner_right, &inner));
  c.add_output(c.input_types[1], matrix_of(left, right));
  return {};
}

// SparseAdd: indices [?, R], values [?], the shape a's.
Status infer_sparse_add(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(7));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 3));
  if (c.input_types[4] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "b_values", c.input_types[4],
                                                         "a_values", c.input_types[1]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[6], 0));
  c.add_output(DType::int64, matrix_of(-1, dim_or_unknown(c.input_shapes[2], 0)));
  c.add_output(c.input_types[1], vector_of(-1));
  c.add_output(DType::int64, c.input_shapes[2]);
  return {};
}

// SparseAddGrad: [rows of a_indices] and [rows of b_indices].
Status infer_sparse_add_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  for (int i = 1; i < 4; ++i) ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, i, 2));
  c.add_output(c.input_types[0], vector_of(dim_or_unknown(c.input_shapes[1], 0)));
  c.add_output(c.input_types[0], vector_of(dim_or_unknown(c.input_shapes[2], 0)));
  return {};
}

// SparseTensorDenseAdd: the dense operand's shape.
Status infer_sparse_dense_add(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[0], "Tindices"));
  if (c.input_types[2] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "a_shape", c.input_types[2],
                                                         "a_indices", c.input_types[0]));
  if (c.input_types[3] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "b", c.input_types[3],
                                                         "a_values", c.input_types[1]));
  c.add_output(c.input_types[3], c.input_shapes[3]);
  return {};
}

// SparseReduceShapeFn: with the dense shape and the axes Consts, the reduced shape; else
// unknown. The Sparse variants: indices [?, ?], values [?], shape [?].
Status infer_sparse_reduce(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(3, DType::int32));
  const DType t = c.input_types[1];
  if (c.node.op == "SparseReduceSumSparse" || c.node.op == "SparseReduceMaxSparse") {
    c.add_output(DType::int64, matrix_of(-1, -1));
    c.add_output(t, vector_of(-1));
    c.add_output(DType::int64, vector_of(-1));
    return {};
  }
  bool keep_dims = false;
  c.get_attr("keep_dims", &keep_dims);
  const Tensor* shape = c.input_values[2];
  const Tensor* axes = c.input_values[3];
  if (shape == nullptr || axes == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const std::vector<Index> dims = detail::index_values(*shape);
  const auto ndims = static_cast<Index>(dims.size());
  if (ndims == 0) return invalid_argument("Number of dims in shape tensor must not be 0");
  std::set<Index> reduced;
  for (Index axis : detail::index_values(*axes)) reduced.insert(((axis % ndims) + ndims) % ndims);
  std::vector<std::int64_t> out;
  for (Index d = 0; d < ndims; ++d) {
    if (!reduced.count(d))
      out.push_back(dims[static_cast<std::size_t>(d)]);
    else if (keep_dims)
      out.push_back(1);
  }
  c.add_output(t, PartialShape(std::move(out)));
  return {};
}

// SparseReorder: indices and values keep their shapes.
Status infer_sparse_reorder(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  c.add_output(DType::int64, c.input_shapes[0]);
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

// SparseConcat: indices [sum of N, R], values [sum of N], the shapes merged.
Status infer_sparse_concat(InferenceContext& c) {
  const int n = c.num_inputs() / 3;
  if (n < 1 || c.num_inputs() != 3 * n)
    return invalid_argument("SparseConcat takes N indices, N values and N shapes");
  Index rows = 0, cols = -1, rank = -1;
  for (int i = 0; i < n; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, i, 2));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(n + i)], 1));
    ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 2 * n + i, 1));
    if (c.input_types[static_cast<std::size_t>(n + i)] !=
        c.input_types[static_cast<std::size_t>(n)])
      return invalid_argument(detail::list_type_mismatch_message(
          c.node.op, "values",
          std::vector<DType>(c.input_types.begin() + n, c.input_types.begin() + 2 * n)));
    const PartialShape& ind = c.input_shapes[static_cast<std::size_t>(i)];
    Index count = -1;
    ACTORFLOW_RETURN_IF_ERROR(
        merge_dims(dim_or_unknown(ind, 0),
                   dim_or_unknown(c.input_shapes[static_cast<std::size_t>(n + i)], 0), &count));
    rows = rows < 0 || count < 0 ? -1 : rows + count;
    ACTORFLOW_RETURN_IF_ERROR(merge_dims(cols, dim_or_unknown(ind, 1), &cols));
    ACTORFLOW_RETURN_IF_ERROR(merge_dims(
        rank, dim_or_unknown(c.input_shapes[static_cast<std::size_t>(2 * n + i)], 0), &rank));
  }
  c.add_output(DType::int64, matrix_of(rows, cols));
  c.add_output(c.input_types[static_cast<std::size_t>(n)], vector_of(rows));
  c.add_output(DType::int64, vector_of(rank));
  return {};
}

// SparseSlice: indices [?, R], values [?], shape [R].
Status infer_sparse_slice(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 3, 1));
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 4, 1));
  const Index rank = dim_or_unknown(c.input_shapes[2], 0);
  c.add_output(DType::int64, matrix_of(-1, rank));
  c.add_output(c.input_types[1], vector_of(-1));
  c.add_output(DType::int64, vector_of(rank));
  return {};
}

// SparseSliceGrad: [rows of input_indices].
Status infer_sparse_slice_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 1, 2));
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 2, 1));
  ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, 3, 2));
  c.add_output(c.input_types[0], vector_of(dim_or_unknown(c.input_shapes[1], 0)));
  return {};
}

// SparseSoftmax: the values' shape.
Status infer_sparse_softmax(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[1], c.node.op));
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

// SparseDenseCwise*: [rows of sp_indices].
Status infer_sparse_dense_cwise(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  if (c.input_types[3] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "dense", c.input_types[3],
                                                         "sp_values", c.input_types[1]));
  c.add_output(c.input_types[1], vector_of(dim_or_unknown(c.input_shapes[0], 0)));
  return {};
}

// SparseSparse{Maximum,Minimum}: indices [?, R], values [?].
Status infer_sparse_sparse_binary(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(6));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c, 3));
  if (c.input_types[4] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "b_values", c.input_types[4],
                                                         "a_values", c.input_types[1]));
  c.add_output(DType::int64, matrix_of(-1, dim_or_unknown(c.input_shapes[0], 1)));
  c.add_output(c.input_types[1], vector_of(-1));
  return {};
}

// SparseCross, SparseCrossHashed and SparseCrossV2: indices [?, 2], values [?], shape [2];
// the sparse inputs' indices and shapes int64 of ranks 2 and 1, values string or int64.
Status infer_sparse_cross(InferenceContext& c) {
  std::int64_t n = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("N", &n));
  const int trailing = c.node.op == "SparseCrossHashed" ? 3 : c.node.op == "SparseCrossV2" ? 1 : 0;
  const int num_dense = c.num_inputs() - 3 * static_cast<int>(n) - trailing;
  if (num_dense < 0)
    return invalid_argument(c.node.op + " has too few inputs for N = " + std::to_string(n));
  const std::vector<DType> string_or_int64 = {DType::int64, DType::string};
  for (int i = 0; i < n; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, i, 2));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(n + i)], 1));
    ACTORFLOW_RETURN_IF_ERROR(detail::check_attr_type(
        c.input_types[static_cast<std::size_t>(n + i)], "sparse_types", string_or_int64));
    ACTORFLOW_RETURN_IF_ERROR(int64_of_rank(c, static_cast<int>(2 * n) + i, 1));
  }
  for (int i = 0; i < num_dense; ++i) {
    const auto at = static_cast<std::size_t>(3 * n + i);
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[at], 2));
    ACTORFLOW_RETURN_IF_ERROR(
        detail::check_attr_type(c.input_types[at], "dense_types", string_or_int64));
  }
  DType out = DType::int64;
  if (c.node.op == "SparseCrossV2") {
    out = DType::string;
  } else if (c.node.op == "SparseCross") {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("out_type", &out));
    ACTORFLOW_RETURN_IF_ERROR(detail::check_attr_type(out, "out_type", string_or_int64));
  }
  c.add_output(DType::int64, matrix_of(-1, 2));
  c.add_output(out, vector_of(-1));
  c.add_output(DType::int64, vector_of(2));
  return {};
}

}  // namespace

namespace detail {

void register_sparse_tensor_ops(OpRegistry& r) {
  r.add({"SparseTensorDenseMatMul", infer_dense_matmul});
  r.add({"SparseAdd", infer_sparse_add});
  r.add({"SparseAddGrad", infer_sparse_add_grad});
  r.add({"SparseTensorDenseAdd", infer_sparse_dense_add});
  for (const char* type :
       {"SparseReduceSum", "SparseReduceSumSparse", "SparseReduceMax", "SparseReduceMaxSparse"})
    r.add({type, infer_sparse_reduce});
  r.add({"SparseReorder", infer_sparse_reorder});
  r.add({"SparseConcat", infer_sparse_concat});
  r.add({"SparseSlice", infer_sparse_slice});
  r.add({"SparseSliceGrad", infer_sparse_slice_grad});
  r.add({"SparseSoftmax", infer_sparse_softmax});
  for (const char* type : {"SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseDenseCwiseAdd"})
    r.add({type, infer_sparse_dense_cwise});
  r.add({"SparseSparseMaximum", infer_sparse_sparse_binary});
  r.add({"SparseSparseMinimum", infer_sparse_sparse_binary});
  for (const char* type : {"SparseCross", "SparseCrossHashed", "SparseCrossV2"})
    r.add({type, infer_sparse_cross});
}

}  // namespace detail

}  // namespace af
