// The definitions of the comparison ops (Equal, NotEqual, Less, LessEqual, Greater,
// GreaterEqual), the logical ops (LogicalNot, LogicalAnd, LogicalOr), TensorFlow 1.x's Select
// and Where (shape functions, builders); their CPU kernels are in
// kernels/src/cwise_compare_ops.cpp. Registered from cwise_ops.cpp.
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions

// -- shape functions ----------------------------------------------------------------------

// Binary ops of two bool inputs with broadcasting (LogicalAnd, LogicalOr).
Status infer_logical_binary(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const char* names[] = {"x", "y"};
  for (int i = 0; i < 2; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != DType::boolean)
      return invalid_argument(fixed_type_mismatch_message(
          c.node.op, names[i], c.input_types[static_cast<std::size_t>(i)], DType::boolean));
  return infer_binary(c, {DType::boolean});
}

Status infer_logical_not(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (c.input_types[0] != DType::boolean)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "x", c.input_types[0], DType::boolean));
  c.add_output(DType::boolean, c.input_shapes[0]);
  return {};
}

// TensorFlow 1.x's Select shape function: `t` and `e` merge; a scalar condition allows any
// shape, a vector condition of inputs of rank >= 1 must match their first dimension, any
// other condition merges with them.
Status infer_select(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[0] != DType::boolean)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "condition", c.input_types[0], DType::boolean));
  const DType t = c.input_types[1];
  if (c.input_types[2] != t)
    return invalid_argument(type_mismatch_message(c.node.op, "e", c.input_types[2], "t", t));
  PartialShape data;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[1], c.input_shapes[2], &data));
  const PartialShape& cond = c.input_shapes[0];
  if (cond.rank_known() && data.rank_known() && cond.rank() != 0) {
    if (cond.rank() != 1 || data.rank() == 0) {
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(data, cond, &data));
    } else {
      PartialShape unused;
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(cond, PartialShape{data.dim(0)}, &unused));
    }
  }
  c.add_output(t, data);
  return {};
}

Output logical_binary_op(const char* type, const Output& x, const Output& y,
                         std::string_view name) {
  if (x.dtype() != DType::boolean)
    throw InvalidArgumentError(
        invalid_argument(fixed_type_mismatch_message(type, "x", x.dtype(), DType::boolean)));
  if (y.dtype() != DType::boolean)
    throw InvalidArgumentError(
        invalid_argument(fixed_type_mismatch_message(type, "y", y.dtype(), DType::boolean)));
  return x.graph().create_op(type, {x, y}, {}, name.empty() ? type : name).output(0);
}

}  // namespace

namespace detail {

void register_cwise_compare_ops(OpRegistry& r) {
  r.add({"Where", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));  // bools or numbers
           const PartialShape& in = c.input_shapes[0];
           c.add_output(DType::int64, in.rank_known() ? PartialShape{-1, in.rank()}
                                                      : PartialShape::unknown_of_rank(2));
           return {};
         }});
  // Equal and NotEqual take any type of values; the orderings TensorFlow's OpDef's.
  for (const char* type : {"Equal", "NotEqual"})
    r.add({type, [](InferenceContext& c) { return infer_binary(c, kValueTypes, DType::boolean); }});
  for (const char* type : {"Less", "LessEqual", "Greater", "GreaterEqual"})
    r.add({type, [type](InferenceContext& c) {
             return infer_binary(c, op_def_types(type), DType::boolean);
           }});
  r.add({"LogicalNot", infer_logical_not});
  r.add({"LogicalAnd", infer_logical_binary});
  r.add({"LogicalOr", infer_logical_binary});
  r.add({"Select", infer_select});
}

}  // namespace detail

// -- builders -----------------------------------------------------------------------------

Output equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Equal", x, y, name, "Equal");
}
Output not_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("NotEqual", x, y, name, "NotEqual");
}
Output less(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Less", x, y, name, "Less");
}
Output less_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("LessEqual", x, y, name, "LessEqual");
}
Output greater(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Greater", x, y, name, "Greater");
}
Output greater_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("GreaterEqual", x, y, name, "GreaterEqual");
}

Output where(const Output& condition, std::string_view name) {
  return condition.graph()
      .create_op("Where", {condition}, {{"T", condition.dtype()}}, name.empty() ? "Where" : name)
      .output(0);
}

Output boolean_mask(const Output& tensor, const Output& mask, std::string_view name) {
  Graph& g = tensor.graph();
  auto scope = g.name_scope(name.empty() ? "boolean_mask" : name);
  if (mask.shape().rank_known() && mask.shape().rank() != 1)
    throw InvalidArgumentError(
        invalid_argument("boolean_mask: only a 1-D mask is supported, got rank " +
                         std::to_string(mask.shape().rank())));
  return gather(tensor, squeeze(where(mask), {1}), "Gather");
}

Output logical_not(const Output& x, std::string_view name) {
  if (x.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument(
        fixed_type_mismatch_message("LogicalNot", "x", x.dtype(), DType::boolean)));
  return x.graph().create_op("LogicalNot", {x}, {}, name.empty() ? "LogicalNot" : name).output(0);
}
Output logical_and(const Output& x, const Output& y, std::string_view name) {
  return logical_binary_op("LogicalAnd", x, y, name);
}
Output logical_or(const Output& x, const Output& y, std::string_view name) {
  return logical_binary_op("LogicalOr", x, y, name);
}

Output select(const Output& condition, const Output& t, const Output& e, std::string_view name) {
  if (condition.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument(
        fixed_type_mismatch_message("Select", "condition", condition.dtype(), DType::boolean)));
  if (t.dtype() != e.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("Select", "e", e.dtype(), "t", t.dtype())));
  return condition.graph()
      .create_op("Select", {condition, t, e}, {{"T", t.dtype()}}, name.empty() ? "Select" : name)
      .output(0);
}
Output where(const Output& condition, const Output& x, const Output& y, std::string_view name) {
  return select(condition, x, y, name);
}

}  // namespace af
