// The definitions of Add, AddV2, Sub, Mul, RealDiv, Div, Neg, Relu, Sigmoid, Tanh and Softmax
// (shape functions, builders); their CPU kernels are in kernels/src/math_ops.cpp. MatMul is in
// matmul_op.cpp, the reductions in reduction_ops.cpp.
#include "actorflow/ops/math_ops.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions

// -- shape functions ----------------------------------------------------------------------

Status infer_softmax(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  const PartialShape& s = c.input_shapes[0];
  if (s.rank_known() && s.rank() < 1)
    return invalid_argument("Shape must be at least rank 1 but is rank " +
                            std::to_string(s.rank()));
  c.add_output(c.input_types[0], s);
  return {};
}

}  // namespace

namespace detail {

void register_math_ops(OpRegistry& r) {
  // Each op takes the types TensorFlow's OpDef allows (its CPU kernels may take fewer); Add
  // also concatenates strings, AddV2 (what TensorFlow 2.x's tf.add and `+` emit) does not.
  auto binary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_binary(c, op_def_types(type)); }});
  };
  for (const char* type : {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv"}) binary(type);
  auto unary = [&](const char* type) {
    r.add({type, [type](InferenceContext& c) { return infer_unary(c, op_def_types(type)); }});
  };
  for (const char* type : {"Neg", "Relu", "Sigmoid", "Tanh"}) unary(type);
  r.add({"Softmax", infer_softmax});
}

}  // namespace detail

// -- builders -----------------------------------------------------------------------------

Output add(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Add", a, b, name, "Add");
}
Output sub(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Sub", a, b, name, "Sub");
}
Output mul(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Mul", a, b, name, "Mul");
}
Output div(const Output& a, const Output& b, std::string_view name) {
  // tf.truediv on floats; C-style truncating division on integers.
  const bool integral = is_integer(a.dtype());
  return binary_op(integral ? "Div" : "RealDiv", a, b, name, "truediv");
}
Output neg(const Output& x, std::string_view name) { return unary_op("Neg", x, name); }

Output relu(const Output& x, std::string_view name) { return unary_op("Relu", x, name); }
Output sigmoid(const Output& x, std::string_view name) { return unary_op("Sigmoid", x, name); }
Output tanh(const Output& x, std::string_view name) { return unary_op("Tanh", x, name); }
Output softmax(const Output& x, std::string_view name) { return unary_op("Softmax", x, name); }

}  // namespace af
