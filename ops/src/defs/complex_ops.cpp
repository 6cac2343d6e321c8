// The definitions of the ops of complex numbers (Complex, Real, Imag, Angle, ComplexAbs,
// Conj): shape functions and builders. Their CPU kernels are in kernels/src/complex_ops.cpp;
// the FFTs' definitions in fft_ops.cpp.
#include "actorflow/ops/complex_ops.hpp"

#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "complex_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace detail::complex_defs;  // NOLINT: the shared complex definitions

// Complex: BroadcastBinaryOpShapeFn of two parts of one type T; output Tout.
Status infer_complex(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType out = type_attr(c, "Tout", DType::complex64);
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(out, kComplexTypes, "Tout"));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "imag", c.input_types[1],
                                                         "real", c.input_types[0]));
  return cwise::infer_binary(c, kPartTypes, out);
}

// Real, Imag, Angle, ComplexAbs: a complex T in, Tout out, the shape unchanged.
Status infer_to_real(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kComplexTypes));
  const DType out = type_attr(c, "Tout", DType::float32);
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(out, kPartTypes, "Tout"));
  c.add_output(out, c.input_shapes[0]);
  return {};
}

}  // namespace

namespace detail {

void register_complex_ops(OpRegistry& r) {
  r.add({"Complex", infer_complex});
  for (const char* type : {"Real", "Imag", "Angle", "ComplexAbs"}) r.add({type, infer_to_real});
  r.add({"Conj", [](InferenceContext& c) { return cwise::infer_unary(c, kComplexTypes); }});
}

}  // namespace detail

Output complex(const Output& real, const Output& imag, std::string_view name) {
  if (real.dtype() != imag.dtype() ||
      (real.dtype() != DType::float32 && real.dtype() != DType::float64))
    throw InvalidArgumentError(invalid_argument(
        "The `real` and `imag` components have incorrect types: " +
        std::string(dtype_name(real.dtype())) + " " + std::string(dtype_name(imag.dtype())) +
        ". They must be consistent, and one of [tf.float32, tf.float64]"));
  return make_op("Complex", {real, imag}, {{"T", real.dtype()}, {"Tout", complex_of(real.dtype())}},
                 name, "Complex");
}

Output real(const Output& x, std::string_view name) {
  if (!is_complex(x.dtype())) return x;
  return make_op("Real", {x}, {{"T", x.dtype()}, {"Tout", part_of(x.dtype())}}, name, "Real");
}

Output imag(const Output& x, std::string_view name) {
  if (!is_complex(x.dtype())) return zeros_like(x);
  return make_op("Imag", {x}, {{"T", x.dtype()}, {"Tout", part_of(x.dtype())}}, name, "Imag");
}

Output angle(const Output& x, std::string_view name) {
  if (!is_complex(x.dtype())) {
    Graph& g = x.graph();
    auto scope = g.name_scope(name.empty() ? "Angle" : name);
    const Output negative = less(x, scalar_like(x, 0.0, "Less/y"));
    return select(negative, mul(scalar_like(x, std::numbers::pi, "mul/x"), ones_like(x)),
                  zeros_like(x));
  }
  return make_op("Angle", {x}, {{"T", x.dtype()}, {"Tout", part_of(x.dtype())}}, name, "Angle");
}

Output conj(const Output& x, std::string_view name) {
  if (!is_complex(x.dtype()) && x.dtype() != DType::variant) return x;
  return make_op("Conj", {x}, {{"T", x.dtype()}}, name, "Conj");
}

Output complex_abs(const Output& x, std::string_view name) {
  return make_op("ComplexAbs", {x}, {{"T", x.dtype()}, {"Tout", part_of(x.dtype())}}, name,
                 "ComplexAbs");
}
}  // namespace af
