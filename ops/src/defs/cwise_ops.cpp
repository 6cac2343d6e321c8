// The definitions of the element-wise math ops Square, Sqrt, Rsqrt, Exp, Log, Sin, Cos, Reciprocal,
// Abs, Sign, Floor, SqrtGrad, RsqrtGrad, ReciprocalGrad (and InvGrad, its old name), Pow,
// Maximum, Minimum, FloorDiv, FloorMod and SquaredDifference (shape functions, builders); their
// CPU kernels are in kernels/src/cwise_ops.cpp.
//
// This file also registers the ops of cwise_compare_ops.cpp (comparisons, logical ops, Select)
// and cwise_aggregate_ops.cpp (AddN, ArgMax, ArgMin, L2Loss, CheckNumerics).
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions

// -- shape functions ----------------------------------------------------------------------

// UnchangedShape for the gradient ops: inputs `y` and `dy` of one type in `allowed`.
Status infer_unary_grad(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, "y", "dy", allowed));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

}  // namespace

namespace detail {

void register_cwise_ops(OpRegistry& r) {
  // Each op takes the types TensorFlow's OpDef allows (its CPU kernels may take fewer).
  auto unary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_unary(c, op_def_types(type)); }});
  };
  for (const char* type : {"Square", "Sqrt", "Rsqrt", "Exp", "Log", "Sin", "Cos", "Reciprocal",
                           "Abs", "Sign", "Floor"})
    unary(type);
  for (const char* type : {"SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "InvGrad"})
    r.add({type, [type](InferenceContext& c) { return infer_unary_grad(c, op_def_types(type)); }});
  auto binary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_binary(c, op_def_types(type)); }});
  };
  for (const char* type :
       {"Pow", "Maximum", "Minimum", "FloorDiv", "FloorMod", "SquaredDifference"})
    binary(type);
  register_cwise_compare_ops(r);
  register_cwise_aggregate_ops(r);
}

}  // namespace detail

// -- builders -----------------------------------------------------------------------------

Output square(const Output& x, std::string_view name) { return unary_op("Square", x, name); }
Output sqrt(const Output& x, std::string_view name) { return unary_op("Sqrt", x, name); }
Output rsqrt(const Output& x, std::string_view name) { return unary_op("Rsqrt", x, name); }
Output exp(const Output& x, std::string_view name) { return unary_op("Exp", x, name); }
Output log(const Output& x, std::string_view name) { return unary_op("Log", x, name); }
Output reciprocal(const Output& x, std::string_view name) {
  return unary_op("Reciprocal", x, name);
}
Output abs(const Output& x, std::string_view name) { return unary_op("Abs", x, name); }
Output sign(const Output& x, std::string_view name) { return unary_op("Sign", x, name); }
Output floor(const Output& x, std::string_view name) { return unary_op("Floor", x, name); }

namespace {
Output unary_grad_op(const char* type, const Output& y, const Output& dy, std::string_view name) {
  if (y.dtype() != dy.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message(type, "dy", dy.dtype(), "y", y.dtype())));
  return y.graph()
      .create_op(type, {y, dy}, {{"T", y.dtype()}}, name.empty() ? type : name)
      .output(0);
}
}  // namespace

Output sqrt_grad(const Output& y, const Output& dy, std::string_view name) {
  return unary_grad_op("SqrtGrad", y, dy, name);
}
Output rsqrt_grad(const Output& y, const Output& dy, std::string_view name) {
  return unary_grad_op("RsqrtGrad", y, dy, name);
}
Output reciprocal_grad(const Output& y, const Output& dy, std::string_view name) {
  return unary_grad_op("ReciprocalGrad", y, dy, name);
}

Output pow(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Pow", x, y, name, "Pow");
}
Output maximum(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Maximum", x, y, name, "Maximum");
}
Output minimum(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Minimum", x, y, name, "Minimum");
}
Output floordiv(const Output& x, const Output& y, std::string_view name) {
  return binary_op("FloorDiv", x, y, name, "floordiv");
}
Output floormod(const Output& x, const Output& y, std::string_view name) {
  return binary_op("FloorMod", x, y, name, "FloorMod");
}
Output squared_difference(const Output& x, const Output& y, std::string_view name) {
  return binary_op("SquaredDifference", x, y, name, "SquaredDifference");
}

}  // namespace af
