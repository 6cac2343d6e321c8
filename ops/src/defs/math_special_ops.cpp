// The definitions of the ops of kernels/src/math_special_ops.cpp (shape functions as
// TensorFlow's math_ops.cc, special_math_ops.cc and bitwise_ops.cc, and the builders of
// actorflow/ops/math_special_ops.hpp): MulNoNan, Xlog1py, NextAfter, Igamma, Igammac,
// IgammaGradA, Betainc, the Bessel functions, Dawsn, Expint, FresnelCos, FresnelSin, Spence,
// PopulationCount and EuclideanNorm. Their gradients are in
// ops/src/gradients/math_special_grad.cpp.
#include "actorflow/ops/math_special_ops.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "reduction_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions
using detail::op_def_types;

// NextAfter, Igamma, Igammac, IgammaGradA and Betainc: float and double, as TensorFlow's CPU
// kernels. The other ops take the types TensorFlow's OpDef allows (op_def_types).
const std::vector<DType> kSpecialTypes = {DType::float32, DType::float64};

// The unary special functions (UnchangedShape, float and double).
const char* const kUnaryTypes[] = {
    "BesselI0", "BesselI0e", "BesselI1",   "BesselI1e",  "BesselJ0", "BesselJ1",
    "BesselK0", "BesselK0e", "BesselK1",   "BesselK1e",  "BesselY0", "BesselY1",
    "Dawsn",    "Expint",    "FresnelCos", "FresnelSin", "Spence"};

// BroadcastBinaryOpShapeFn for inputs named `first` and `second` (the names TensorFlow's
// type-mismatch message uses).
Status infer_named_binary(InferenceContext& c, const char* first, const char* second,
                          const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, first, second, allowed));
  return infer_binary(c, allowed);
}

// Betainc's shape function: the inputs of rank > 0 merge (TensorFlow's Merge messages); the
// output is that shape, the one input not known to be a scalar when the other two are, a
// scalar when all three are, and unknown when an input of unknown rank may be either.
Status infer_betainc(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  const DType t = c.input_types[0];
  const char* names[] = {"a", "b", "x"};
  for (int i = 1; i < 3; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != t)
      return invalid_argument(type_mismatch_message(
          c.node.op, names[i], c.input_types[static_cast<std::size_t>(i)], "a", t));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, kSpecialTypes));
  PartialShape output = PartialShape::unknown();
  PartialShape some_non_scalar = PartialShape::unknown();
  int scalars = 0;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& in = c.input_shapes[static_cast<std::size_t>(i)];
    if (!in.rank_known()) {
      some_non_scalar = in;
    } else if (in.rank() == 0) {
      ++scalars;
    } else {
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(output, in, &output));
      some_non_scalar = output;
    }
  }
  if (scalars == 2)
    output = some_non_scalar;
  else if (scalars == 3)
    output = c.input_shapes[0];
  c.add_output(t, output);
  return {};
}

// PopulationCount: UnchangedShape, uint8 elements.
Status infer_population_count(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], op_def_types("PopulationCount")));
  c.add_output(DType::uint8, c.input_shapes[0]);
  return {};
}

// EuclideanNorm: TensorFlow's ReductionShape. The indices are at most a vector; with their
// values and the input's rank known, the input's shape without (keep_dims: with 1 for) the
// reduced dimensions; else a shape of the input's rank (keep_dims) or unknown.
Status infer_euclidean_norm(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, op_def_types("EuclideanNorm")));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_reduction_indices_shape(c.input_shapes[1]));
  return detail::add_reduction_output(c, t);
}

// -- builder helpers ----------------------------------------------------------------------

// A binary op of inputs named `first` and `second` (attr T); op_def_library's message for
// mismatched dtypes.
Output named_binary(const char* type, const char* first, const char* second, const Output& a,
                    const Output& b, std::string_view name, const char* default_name) {
  if (a.dtype() != b.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message(type, second, b.dtype(), first, a.dtype())));
  return a.graph()
      .create_op(type, {a, b}, {{"T", a.dtype()}}, name.empty() ? default_name : name)
      .output(0);
}

// Op `type` (default name) inside the name scope `name` or `scope`, as special_math_ops.py's
// `with ops.name_scope(name, scope, [x])`.
Output scoped_unary(const char* scope, const char* type, const Output& x, std::string_view name) {
  auto guard = x.graph().name_scope(name.empty() ? std::string_view(scope) : name);
  return unary_op(type, x, {});
}

}  // namespace

namespace detail {

void register_math_special_ops(OpRegistry& r) {
  for (const char* type : {"MulNoNan", "Xlog1py"})
    r.add({type, [type](InferenceContext& c) {
             return infer_named_binary(c, "x", "y", op_def_types(type));
           }});
  r.add({"NextAfter",
         [](InferenceContext& c) { return infer_named_binary(c, "x1", "x2", kSpecialTypes); }});
  for (const char* type : {"Igamma", "Igammac", "IgammaGradA"})
    r.add(
        {type, [](InferenceContext& c) { return infer_named_binary(c, "a", "x", kSpecialTypes); }});
  r.add({"Betainc", infer_betainc});
  for (const char* type : kUnaryTypes)
    r.add({type, [type](InferenceContext& c) { return infer_unary(c, op_def_types(type)); }});
  r.add({"PopulationCount", infer_population_count});
  r.add({"EuclideanNorm", infer_euclidean_norm});
}

}  // namespace detail

Output multiply_no_nan(const Output& x, const Output& y, std::string_view name) {
  return named_binary("MulNoNan", "x", "y", x, y, name, "multiply_no_nan");
}

Output xlog1py(const Output& x, const Output& y, std::string_view name) {
  auto guard = x.graph().name_scope(name.empty() ? std::string_view("xlog1py") : name);
  return named_binary("Xlog1py", "x", "y", x, y, {}, "Xlog1py");
}

Output nextafter(const Output& x1, const Output& x2, std::string_view name) {
  return named_binary("NextAfter", "x1", "x2", x1, x2, name, "NextAfter");
}

Output igamma(const Output& a, const Output& x, std::string_view name) {
  return named_binary("Igamma", "a", "x", a, x, name, "Igamma");
}
Output igammac(const Output& a, const Output& x, std::string_view name) {
  return named_binary("Igammac", "a", "x", a, x, name, "Igammac");
}
Output igamma_grad_a(const Output& a, const Output& x, std::string_view name) {
  return named_binary("IgammaGradA", "a", "x", a, x, name, "IgammaGradA");
}

Output betainc(const Output& a, const Output& b, const Output& x, std::string_view name) {
  for (const auto& [input, arg] : {std::pair{&b, "b"}, std::pair{&x, "x"}})
    if (input->dtype() != a.dtype())
      throw InvalidArgumentError(
          invalid_argument(type_mismatch_message("Betainc", arg, input->dtype(), "a", a.dtype())));
  return a.graph()
      .create_op("Betainc", {a, b, x}, {{"T", a.dtype()}}, name.empty() ? "Betainc" : name)
      .output(0);
}

Output bessel_i0(const Output& x, std::string_view name) {
  return scoped_unary("bessel_i0", "BesselI0", x, name);
}
Output bessel_i0e(const Output& x, std::string_view name) {
  return scoped_unary("bessel_i0e", "BesselI0e", x, name);
}
Output bessel_i1(const Output& x, std::string_view name) {
  return scoped_unary("bessel_i1", "BesselI1", x, name);
}
Output bessel_i1e(const Output& x, std::string_view name) {
  return scoped_unary("bessel_i1e", "BesselI1e", x, name);
}
Output bessel_j0(const Output& x, std::string_view name) {
  return scoped_unary("bessel_j0", "BesselJ0", x, name);
}
Output bessel_j1(const Output& x, std::string_view name) {
  return scoped_unary("bessel_j1", "BesselJ1", x, name);
}
Output bessel_k0(const Output& x, std::string_view name) {
  return scoped_unary("bessel_k0", "BesselK0", x, name);
}
Output bessel_k0e(const Output& x, std::string_view name) {
  return scoped_unary("bessel_k0e", "BesselK0e", x, name);
}
Output bessel_k1(const Output& x, std::string_view name) {
  return scoped_unary("bessel_k1", "BesselK1", x, name);
}
Output bessel_k1e(const Output& x, std::string_view name) {
  return scoped_unary("bessel_k1e", "BesselK1e", x, name);
}
Output bessel_y0(const Output& x, std::string_view name) {
  return scoped_unary("bessel_y0", "BesselY0", x, name);
}
Output bessel_y1(const Output& x, std::string_view name) {
  return scoped_unary("bessel_y1", "BesselY1", x, name);
}
Output dawsn(const Output& x, std::string_view name) {
  return scoped_unary("dawsn", "Dawsn", x, name);
}
Output expint(const Output& x, std::string_view name) {
  return scoped_unary("expint", "Expint", x, name);
}
Output fresnel_cos(const Output& x, std::string_view name) {
  return scoped_unary("fresnel_cos", "FresnelCos", x, name);
}
Output fresnel_sin(const Output& x, std::string_view name) {
  return scoped_unary("fresnel_sin", "FresnelSin", x, name);
}
Output spence(const Output& x, std::string_view name) {
  return scoped_unary("spence", "Spence", x, name);
}

Output population_count(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("PopulationCount", {x}, {{"T", x.dtype()}},
                 name.empty() ? "PopulationCount" : name)
      .output(0);
}

Output reduce_euclidean_norm(const Output& x, std::optional<std::vector<std::int64_t>> axes,
                             bool keep_dims, std::string_view name) {
  return detail::reduction_op("EuclideanNorm", x, axes, keep_dims, name);
}

}  // namespace af
