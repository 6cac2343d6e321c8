// The definitions of MatMul and the batched products BatchMatMul, BatchMatMulV2 and
// BatchMatMulV3 (shape functions as TensorFlow's common_shape_fns.cc, builders); their CPU
// kernels are in kernels/src/matmul_op.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions
using detail::op_def_types;

Status infer_matmul(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, "a", "b", allowed));
  const DType t = c.input_types[0];
  bool ta = false, tb = false;
  c.get_attr("transpose_a", &ta);
  c.get_attr("transpose_b", &tb);
  PartialShape a = c.input_shapes[0], b = c.input_shapes[1];
  for (const PartialShape* s : {&a, &b})
    if (s->rank_known() && s->rank() != 2)
      return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(s->rank()));
  if (!a.rank_known()) a = PartialShape::unknown_of_rank(2);
  if (!b.rank_known()) b = PartialShape::unknown_of_rank(2);
  const std::int64_t m = a.dim(ta ? 1 : 0), ka = a.dim(ta ? 0 : 1);
  const std::int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(ka) + " and " +
                            std::to_string(kb));
  c.add_output(t, PartialShape{m, n});
  return {};
}

// TensorFlow's BatchMatMulShape (`broadcast` false: batch dimensions merged) and
// BatchMatMulV2Shape (batch dimensions broadcast), for inputs of type `t`.
Status infer_batch_matmul(InferenceContext& c, bool broadcast, DType t) {
  bool adj_x = false, adj_y = false;
  c.get_attr("adj_x", &adj_x);
  c.get_attr("adj_y", &adj_y);
  PartialShape a = c.input_shapes[0], b = c.input_shapes[1];
  for (const PartialShape* s : {&a, &b})
    if (s->rank_known() && s->rank() < 2)
      return invalid_argument("Shape must be at least rank 2 but is rank " +
                              std::to_string(s->rank()));
  if (!a.rank_known() || !b.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const int ra = a.rank(), rb = b.rank();
  const std::int64_t rows = a.dim(adj_x ? ra - 1 : ra - 2);
  const std::int64_t cols = b.dim(adj_y ? rb - 2 : rb - 1);
  const std::int64_t ka = a.dim(adj_x ? ra - 2 : ra - 1), kb = b.dim(adj_y ? rb - 1 : rb - 2);
  const std::vector<std::int64_t>& ad = a.dims();
  const std::vector<std::int64_t>& bd = b.dims();
  const PartialShape a_batch(std::vector<std::int64_t>(ad.begin(), ad.end() - 2));
  const PartialShape b_batch(std::vector<std::int64_t>(bd.begin(), bd.end() - 2));
  PartialShape batch;
  if (!broadcast) {
    ACTORFLOW_RETURN_IF_ERROR(merge_shapes(a_batch, b_batch, &batch));
  } else if (!broadcast_shapes(a_batch, b_batch, &batch).ok()) {
    // BroadcastBinaryOpOutputShapeFnHelper merges the first pair of known dimensions > 1.
    const int rank = std::max(a_batch.rank(), b_batch.rank());
    for (int i = 0; i < rank; ++i) {
      const int ia = i - (rank - a_batch.rank()), ib = i - (rank - b_batch.rank());
      const std::int64_t da = ia >= 0 ? a_batch.dim(ia) : 1, db = ib >= 0 ? b_batch.dim(ib) : 1;
      if (da > 1 && db > 1 && da != db)
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(da) +
                                " and " + std::to_string(db));
    }
  }
  if (ka >= 0 && kb >= 0 && ka != kb)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(ka) + " and " +
                            std::to_string(kb));
  std::vector<std::int64_t> dims = batch.dims();
  dims.push_back(rows);
  dims.push_back(cols);
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

Status infer_batch_matmul_t(InferenceContext& c, bool broadcast) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, "x", "y", op_def_types(c.node.op)));
  return infer_batch_matmul(c, broadcast, c.input_types[0]);
}

// BatchMatMulV3: inputs of types Ta and Tb, the output of type Tout.
Status infer_batch_matmul_v3(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_allowed_type(c.input_types[0], op_def_types("BatchMatMulV3", "Ta"), "Ta"));
  ACTORFLOW_RETURN_IF_ERROR(
      check_allowed_type(c.input_types[1], op_def_types("BatchMatMulV3", "Tb"), "Tb"));
  DType out = c.input_types[0];
  c.get_attr("Tout", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(out, op_def_types("BatchMatMulV3", "Tout"), "Tout"));
  return infer_batch_matmul(c, true, out);
}

}  // namespace

namespace detail {

void register_matmul_ops(OpRegistry& r) {
  r.add({"MatMul", [](InferenceContext& c) { return infer_matmul(c, op_def_types("MatMul")); }});
  r.add({"BatchMatMul", [](InferenceContext& c) { return infer_batch_matmul_t(c, false); }});
  r.add({"BatchMatMulV2", [](InferenceContext& c) { return infer_batch_matmul_t(c, true); }});
  r.add({"BatchMatMulV3", infer_batch_matmul_v3});
}

}  // namespace detail

Output matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b,
              std::string_view name) {
  if (a.dtype() != b.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("MatMul", "b", b.dtype(), "a", a.dtype())));
  return a.graph()
      .create_op("MatMul", {a, b},
                 {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}, {"T", a.dtype()}},
                 name.empty() ? "MatMul" : name)
      .output(0);
}

Output batch_matmul(const Output& x, const Output& y, bool adj_x, bool adj_y,
                    std::string_view name) {
  if (x.dtype() != y.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("BatchMatMulV2", "y", y.dtype(), "x", x.dtype())));
  return x.graph()
      .create_op("BatchMatMulV2", {x, y}, {{"T", x.dtype()}, {"adj_x", adj_x}, {"adj_y", adj_y}},
                 name.empty() ? "MatMul" : name)
      .output(0);
}

}  // namespace af
