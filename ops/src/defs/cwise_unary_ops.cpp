// The definitions of the element-wise ops of kernels/src/cwise_unary_ops.cpp (shape functions,
// builders): Log1p, Expm1, Ceil, Round, Rint, Erf, Erfc, Tan, Atan, Asin, Acos, Sinh, Cosh, the
// deprecated Inv (InvGrad is defined beside ReciprocalGrad), IsNan, IsInf, IsFinite, Atan2,
// Xlogy, Xdivy, TruncateDiv, TruncateMod and the deprecated Mod; the shape functions of Asinh,
// Acosh, Atanh, Lgamma, Digamma, Erfinv, Ndtri, Polygamma and Zeta (their builders are in
// misc_math_ops.cpp).
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

// Polygamma and Zeta: float and double.
const std::vector<DType> kSpecialTypes = {DType::float32, DType::float64};

// A bool tensor of the input's shape (IsNan, IsInf, IsFinite).
Status infer_predicate(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  c.add_output(DType::boolean, c.input_shapes[0]);
  return {};
}

// Polygamma(a, x) and Zeta(x, q): BroadcastBinaryOpShapeFn, the inputs named as TensorFlow's.
Status infer_special_binary(InferenceContext& c, const char* first, const char* second) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, first, second, kSpecialTypes));
  return infer_binary(c, kSpecialTypes);
}

}  // namespace

namespace detail {

void register_cwise_unary_ops(OpRegistry& r) {
  // Each op takes the types TensorFlow's OpDef allows (its CPU kernels may take fewer).
  auto unary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_unary(c, op_def_types(type)); }});
  };
  for (const char* type : {"Log1p", "Expm1", "Ceil",  "Rint",   "Erf",     "Erfc",   "Tan",
                           "Atan",  "Asin",  "Acos",  "Sinh",   "Cosh",    "Inv",    "Round",
                           "Asinh", "Acosh", "Atanh", "Lgamma", "Digamma", "Erfinv", "Ndtri"})
    unary(type);
  r.add({"Polygamma", [](InferenceContext& c) { return infer_special_binary(c, "a", "x"); }});
  r.add({"Zeta", [](InferenceContext& c) { return infer_special_binary(c, "x", "q"); }});
  for (const char* type : {"IsNan", "IsInf", "IsFinite"}) r.add({type, infer_predicate});
  auto binary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_binary(c, op_def_types(type)); }});
  };
  for (const char* type : {"Atan2", "Xlogy", "Xdivy", "TruncateDiv", "TruncateMod", "Mod"})
    binary(type);
}

}  // namespace detail

Output log1p(const Output& x, std::string_view name) { return unary_op("Log1p", x, name); }
Output expm1(const Output& x, std::string_view name) { return unary_op("Expm1", x, name); }
Output ceil(const Output& x, std::string_view name) { return unary_op("Ceil", x, name); }
Output round(const Output& x, std::string_view name) { return unary_op("Round", x, name); }
Output rint(const Output& x, std::string_view name) { return unary_op("Rint", x, name); }
Output erf(const Output& x, std::string_view name) { return unary_op("Erf", x, name); }
Output erfc(const Output& x, std::string_view name) { return unary_op("Erfc", x, name); }
Output tan(const Output& x, std::string_view name) { return unary_op("Tan", x, name); }
Output atan(const Output& x, std::string_view name) { return unary_op("Atan", x, name); }
Output asin(const Output& x, std::string_view name) { return unary_op("Asin", x, name); }
Output acos(const Output& x, std::string_view name) { return unary_op("Acos", x, name); }
Output sinh(const Output& x, std::string_view name) { return unary_op("Sinh", x, name); }
Output cosh(const Output& x, std::string_view name) { return unary_op("Cosh", x, name); }
Output is_nan(const Output& x, std::string_view name) { return unary_op("IsNan", x, name); }
Output is_inf(const Output& x, std::string_view name) { return unary_op("IsInf", x, name); }
Output is_finite(const Output& x, std::string_view name) { return unary_op("IsFinite", x, name); }

Output atan2(const Output& y, const Output& x, std::string_view name) {
  // TensorFlow names the inputs y and x: a mismatch names 'x' against 'y'.
  if (x.dtype() != y.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("Atan2", "x", x.dtype(), "y", y.dtype())));
  return binary_op("Atan2", y, x, name, "Atan2");
}
Output xlogy(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Xlogy", x, y, name, "Xlogy");
}
Output xdivy(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Xdivy", x, y, name, "Xdivy");
}
Output truncatediv(const Output& x, const Output& y, std::string_view name) {
  return binary_op("TruncateDiv", x, y, name, "truncatediv");
}
Output truncatemod(const Output& x, const Output& y, std::string_view name) {
  return binary_op("TruncateMod", x, y, name, "truncatemod");
}

}  // namespace af
