#pragma once

// What the element-wise ops' definitions and their CPU kernels share: the index type, the
// element types by op, TensorFlow's type-check and shape-merge messages, the broadcasting and
// unchanged shape functions and the graph-building helpers. The kernels' machinery is in the
// kernels module (kernels/src/cwise_ops_common.hpp); this part is the ops module's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"

namespace af::cwise {

using detail::inference_shape_string;
using detail::node_suffix;

using detail::Index;  // element counts, offsets and axes

// Element types by op, as TensorFlow's CPU kernels.
/// Floating-point ops (Sigmoid, Tanh, Softmax, Exp, ...).
inline const std::vector<DType> kFloatTypes = {DType::float32, DType::float64, DType::bfloat16,
                                               DType::float16};
/// Arithmetic ops (Add, Mul, Maximum, ...).
inline const std::vector<DType> kArithmeticTypes = {DType::float32, DType::float64, DType::int32,
                                                    DType::int64,   DType::uint8,   DType::bfloat16,
                                                    DType::float16};
/// `types` and complex64, complex128 (the ops TensorFlow also has complex CPU kernels of).
inline std::vector<DType> with_complex(std::vector<DType> types) {
  types.push_back(DType::complex64);
  types.push_back(DType::complex128);
  return types;
}
/// Ops defined for signed types only (Neg, Abs, Sign, ...).
inline const std::vector<DType> kSignedTypes = {DType::float32, DType::float64,  DType::int32,
                                                DType::int64,   DType::bfloat16, DType::float16};

/// TensorFlow's attr check: "Value for attr 'T' of int32 is not in the list of allowed
/// values: float, double" (detail::check_attr_type naming the list's types).
inline Status check_allowed_type(DType t, const std::vector<DType>& allowed,
                                 const char* attr = "T") {
  return detail::check_attr_type(t, attr, allowed);
}

/// TensorFlow's op_def_library message for mismatched inputs of one type attribute.
inline std::string type_mismatch_message(const std::string& op, const char* arg, DType got,
                                         const char* first_arg, DType expected) {
  return "Input '" + std::string(arg) + "' of '" + op + "' Op has type " +
         std::string(dtype_name(got)) + " that does not match type " +
         std::string(dtype_name(expected)) + " of argument '" + first_arg + "'.";
}

/// TensorFlow's op_def_library message for an input of a fixed type: "Input 'x' of
/// 'LogicalNot' Op has type float32 that does not match expected type of bool.".
inline std::string fixed_type_mismatch_message(const std::string& op, const char* arg, DType got,
                                               DType expected) {
  return "Input '" + std::string(arg) + "' of '" + op + "' Op has type " +
         std::string(dtype_name(got)) + " that does not match expected type of " +
         std::string(dtype_name(expected)) + ".";
}

/// TensorFlow's InferenceContext::Merge of two shapes: "Shapes must be equal rank, but are 1
/// and 2" or "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and
/// [3]."; unknown dimensions take the other's value.
inline Status merge_shapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.rank_known()) {
    *out = b;
    return {};
  }
  if (!b.rank_known()) {
    *out = a;
    return {};
  }
  if (a.rank() != b.rank())
    return invalid_argument("Shapes must be equal rank, but are " + std::to_string(a.rank()) +
                            " and " + std::to_string(b.rank()));
  std::vector<std::int64_t> dims(static_cast<std::size_t>(a.rank()));
  for (int i = 0; i < a.rank(); ++i) {
    const std::int64_t da = a.dim(i), db = b.dim(i);
    if (da >= 0 && db >= 0 && da != db)
      return invalid_argument(
          "Dimension " + std::to_string(i) + " in both shapes must be equal, but are " +
          std::to_string(da) + " and " + std::to_string(db) + ". Shapes are " +
          inference_shape_string(a) + " and " + inference_shape_string(b) + ".");
    dims[static_cast<std::size_t>(i)] = da >= 0 ? da : db;
  }
  *out = PartialShape(std::move(dims));
  return {};
}

// -- shape functions ----------------------------------------------------------------------

/// The type check of an op of two inputs of one type attribute: input 1 (`arg`) must have
/// input 0's (`first_arg`) type (op_def_library's message), which must be in `allowed`.
inline Status check_binary_types(const InferenceContext& c, const char* first_arg, const char* arg,
                                 const std::vector<DType>& allowed) {
  const DType t = c.input_types[0];
  if (c.input_types[1] != t)
    return invalid_argument(type_mismatch_message(c.node.op, arg, c.input_types[1], first_arg, t));
  return check_allowed_type(t, allowed);
}

/// TensorFlow's BroadcastBinaryOpOutputShapeFnHelper: the NumPy broadcast of `a` and `b`
/// into `*out`, or InvalidArgument "Dimensions must be equal, but are 2 and 3" (else
/// "Incompatible shapes: [2] vs. [3]").
inline Status broadcast_binary_shapes(const PartialShape& a, const PartialShape& b,
                                      PartialShape* out) {
  if (broadcast_shapes(a, b, out).ok()) return {};
  const int rank = std::max(a.rank(), b.rank());
  for (int i = 0; i < rank; ++i) {
    const std::int64_t da = i >= rank - a.rank() ? a.dim(i - (rank - a.rank())) : 1;
    const std::int64_t db = i >= rank - b.rank() ? b.dim(i - (rank - b.rank())) : 1;
    if (da > 1 && db > 1 && da != db)
      return invalid_argument("Dimensions must be equal, but are " + std::to_string(da) + " and " +
                              std::to_string(db));
  }
  return invalid_argument("Incompatible shapes: " + inference_shape_string(a) + " vs. " +
                          inference_shape_string(b));
}

/// TensorFlow's BroadcastBinaryOpShapeFn for inputs `x` and `y` of one type T in `allowed`;
/// the output has type `out_type` (T when `DType::invalid`).
inline Status infer_binary(InferenceContext& c, const std::vector<DType>& allowed,
                           DType out_type = DType::invalid) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, "x", "y", allowed));
  const DType t = c.input_types[0];
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(broadcast_binary_shapes(c.input_shapes[0], c.input_shapes[1], &out));
  c.add_output(out_type == DType::invalid ? t : out_type, out);
  return {};
}

/// UnchangedShape for one input of a type in `allowed`.
inline Status infer_unary(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], allowed));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// -- builders ----------------------------------------------------------------------------

/// Adds a binary op `type` of inputs `x`, `y` (attr T) named `name` (or `default_name`);
/// throws InvalidArgumentError for mismatched dtypes, as op_def_library does.
inline Output binary_op(const char* type, const Output& x, const Output& y, std::string_view name,
                        const char* default_name) {
  if (x.dtype() != y.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message(type, "y", y.dtype(), "x", x.dtype())));
  return x.graph()
      .create_op(type, {x, y}, {{"T", x.dtype()}}, name.empty() ? default_name : name)
      .output(0);
}

/// Adds a unary op `type` of input `x` (attr T) named `name` (or `type`).
inline Output unary_op(const char* type, const Output& x, std::string_view name) {
  return x.graph().create_op(type, {x}, {{"T", x.dtype()}}, name.empty() ? type : name).output(0);
}

}  // namespace af::cwise
