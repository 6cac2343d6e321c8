// OneHot, ConcatOffset and DecodeRaw: ops, shape functions and the graph-building functions
// one_hot, concat_offset and decode_raw. Registered from transform_ops.cpp; their CPU kernels
// are in kernels/src/transform_encode_ops.cpp.
//
// The shape functions follow TensorFlow 1.x (tensorflow/core/ops/array_ops.cc and
// parsing_ops.cc); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/transform_defs.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::kValueTypes;

using detail::index_values;

using detail::check_attr_type;

// op_def_library's message for an input of a fixed type.
Status check_input_type(const InferenceContext& c, int i, const char* input, DType want) {
  const DType got = c.input_types[static_cast<std::size_t>(i)];
  if (got == want) return {};
  return invalid_argument("Input '" + std::string(input) + "' of '" + c.node.op + "' Op has type " +
                          std::string(dtype_name(got)) + " that does not match expected type of " +
                          std::string(dtype_name(want)) + ".");
}

// -- OneHot -------------------------------------------------------------------------------

// TensorFlow's MakeDimForScalarInput: the value of scalar input `i` as a dimension.
Status dim_from_scalar_input(const InferenceContext& c, int i, Index* out) {
  const Tensor* t = c.input_values[static_cast<std::size_t>(i)];
  if (t == nullptr) {
    *out = -1;
    return {};
  }
  if (t->rank() != 0)
    return invalid_argument("Input must be scalar but has rank " + std::to_string(t->rank()));
  const Index v = index_values(*t).at(0);
  if (v < 0)
    return invalid_argument("Dimension size, given by scalar input " + std::to_string(i) +
                            ", must be non-negative but is " + std::to_string(v));
  *out = v;
  return {};
}

Status infer_one_hot(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], "OneHot", "TI"));
  ACTORFLOW_RETURN_IF_ERROR(check_input_type(c, 1, "depth", DType::int32));
  const DType t = c.input_types[2];
  if (c.input_types[3] != t)
    return invalid_argument(
        "Input 'off_value' of 'OneHot' Op has type " + std::string(dtype_name(c.input_types[3])) +
        " that does not match type " + std::string(dtype_name(t)) + " of argument 'on_value'.");
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(
      t, "T", kValueTypes, "float, double, int32, int64, uint8, bool, string, bfloat16"));
  std::int64_t axis = -1;
  c.get_attr("axis", &axis);
  if (axis < -1) return invalid_argument("axis must be >= -1");
  Index depth = -1;
  ACTORFLOW_RETURN_IF_ERROR(dim_from_scalar_input(c, 1, &depth));
  const PartialShape& indices = c.input_shapes[0];
  if (!indices.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const Index new_rank = indices.rank() + 1;
  // As TensorFlow: an axis past the end wraps here, and the kernel rejects it.
  const Index depth_index = (axis + new_rank) % new_rank;
  std::vector<std::int64_t> dims = indices.dims();
  dims.insert(dims.begin() + depth_index, depth);
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- ConcatOffset -------------------------------------------------------------------------

Status infer_concat_offset(InferenceContext& c) {
  const int n = c.num_inputs() - 1;
  if (n < 2)
    return invalid_argument("List argument 'shape' to 'ConcatOffset' Op with length " +
                            std::to_string(std::max(n, 0)) + " shorter than minimum length 2.");
  ACTORFLOW_RETURN_IF_ERROR(check_input_type(c, 0, "concat_dim", DType::int32));
  for (int i = 1; i <= n; ++i)
    ACTORFLOW_RETURN_IF_ERROR(check_input_type(c, i, "shape", DType::int32));
  for (int i = 1; i <= n; ++i)
    c.add_output(DType::int32, c.input_shapes[static_cast<std::size_t>(i)]);
  return {};
}

// -- DecodeRaw ----------------------------------------------------------------------------

Status infer_decode_raw(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_input_type(c, 0, "bytes", DType::string));
  DType out_type = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("out_type", &out_type));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(out_type, c.node.op, "out_type"));
  // The last dimension depends on the data.
  const PartialShape& s = c.input_shapes[0];
  if (!s.rank_known()) {
    c.add_output(out_type, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = s.dims();
  dims.push_back(-1);
  c.add_output(out_type, PartialShape(std::move(dims)));
  return {};
}

// -- builder helpers ----------------------------------------------------------------------

// A scalar of `dtype` holding `value` (convert_to_tensor(value, dtype)).
Tensor typed_scalar(DType dtype, double value) {
  Tensor t(dtype, Shape{});
  const bool ok = visit_numeric_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_half_like_v<T>)
      t.data<T>()[0] = T(static_cast<float>(value));
    else if constexpr (std::is_same_v<T, bool>)
      t.data<T>()[0] = value != 0.0;
    else
      t.data<T>()[0] = static_cast<T>(value);
  });
  if (!ok)
    throw InvalidArgumentError(invalid_argument("Cannot convert " + std::to_string(value) +
                                                " to a tensor of type " +
                                                std::string(dtype_name(dtype))));
  return t;
}

}  // namespace

namespace detail {

void register_transform_encode_ops(OpRegistry& r) {
  r.add({"OneHot", infer_one_hot});
  r.add({"ConcatOffset", infer_concat_offset});
  r.add({"DecodeRaw", infer_decode_raw});
}

}  // namespace detail

Output one_hot(const Output& indices, const Output& depth, const Output& on_value,
               const Output& off_value, std::int64_t axis, std::string_view name) {
  return indices.graph()
      .create_op("OneHot", {indices, depth, on_value, off_value},
                 {{"T", on_value.dtype()}, {"TI", indices.dtype()}, {"axis", axis}},
                 name.empty() ? "one_hot" : name)
      .output(0);
}

// tf.one_hot: under the name scope "one_hot", the Consts "on_value" and "off_value" of
// `dtype`, then OneHot named after the scope with its depth converted to "<scope>/depth".
Output one_hot(const Output& indices, std::int64_t depth, double on_value, double off_value,
               std::int64_t axis, DType dtype, std::string_view name) {
  Graph& g = indices.graph();
  const std::string op_name = g.unique_name(name.empty() ? "one_hot" : name);
  Output on, off, depth_t;
  {
    auto scope = g.name_scope(op_name + "/");
    on = g.constant(typed_scalar(dtype, on_value), "on_value");
    off = g.constant(typed_scalar(dtype, off_value), "off_value");
    if (depth < std::numeric_limits<std::int32_t>::min() ||
        depth > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgumentError(
          invalid_argument("one_hot: depth " + std::to_string(depth) + " does not fit int32"));
    depth_t = g.constant(Tensor(static_cast<std::int32_t>(depth)), "depth");
  }
  return one_hot(indices, depth_t, on, off, axis, op_name + "/");
}

std::vector<Output> concat_offset(const Output& concat_dim, const std::vector<Output>& shapes,
                                  std::string_view name) {
  std::vector<Output> inputs{concat_dim};
  inputs.insert(inputs.end(), shapes.begin(), shapes.end());
  Operation op = concat_dim.graph().create_op("ConcatOffset", inputs,
                                              {{"N", static_cast<std::int64_t>(shapes.size())}},
                                              name.empty() ? "ConcatOffset" : name);
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

Output decode_raw(const Output& bytes, DType out_type, bool little_endian, std::string_view name) {
  return bytes.graph()
      .create_op("DecodeRaw", {bytes}, {{"out_type", out_type}, {"little_endian", little_endian}},
                 name.empty() ? "DecodeRaw" : name)
      .output(0);
}

}  // namespace af
