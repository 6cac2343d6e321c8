// The definition of MatMul (shape function, builder); its CPU kernel is in
// kernels/src/matmul_op.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions

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

// Element types by op, as TensorFlow's CPU kernels.
const std::vector<DType> kMatMulTypes = {DType::float32, DType::float64, DType::int32, DType::int64,
                                         DType::bfloat16};

}  // namespace

namespace detail {

void register_matmul_ops(OpRegistry& r) {
  r.add({"MatMul", [](InferenceContext& c) { return infer_matmul(c, kMatMulTypes); }});
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

}  // namespace af
