// The definitions (shape functions) of the op types that TensorFlow 2.x writes into
// tf.compat.v1 graphs where TensorFlow 1.x wrote others, and of the string ops of the sharded
// Saver: PlaceholderWithDefault, DivNoNan, SelectV2, BroadcastTo, LeakyRelu, LeakyReluGrad,
// StringJoin, ShardedFilename and StaticRegexFullMatch, with TensorFlow's messages
// (array_ops.cc, math_ops.cc, nn_ops.cc, string_ops.cc). Their CPU kernels are in
// kernels/src/compat_v2_ops.cpp.
#include <cstdint>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;

// -- PlaceholderWithDefault ---------------------------------------------------------------

Status infer_placeholder_with_default(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  if (c.input_types[0] != t)
    return invalid_argument(fixed_type_mismatch_message(c.node.op, "input", c.input_types[0], t));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape", &shape));
  if (!shape.is_compatible_with(c.input_shapes[0]))
    return invalid_argument(
        "PlaceholderWithDefault: input shape " + inference_shape_string(c.input_shapes[0]) +
        " is not compatible with the shape attribute " + inference_shape_string(shape));
  c.add_output(t, shape);
  return {};
}

// -- SelectV2 -----------------------------------------------------------------------------

Status infer_select_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[0] != DType::boolean)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "condition", c.input_types[0], DType::boolean));
  if (c.input_types[2] != c.input_types[1])
    return invalid_argument(
        type_mismatch_message(c.node.op, "e", c.input_types[2], "t", c.input_types[1]));
  PartialShape te, out;
  if (!broadcast_shapes(c.input_shapes[1], c.input_shapes[2], &te).ok() ||
      !broadcast_shapes(c.input_shapes[0], te, &out).ok())
    return invalid_argument("Incompatible shapes: condition " +
                            inference_shape_string(c.input_shapes[0]) + ", then " +
                            inference_shape_string(c.input_shapes[1]) + ", else " +
                            inference_shape_string(c.input_shapes[2]));
  c.add_output(c.input_types[1], out);
  return {};
}

// -- BroadcastTo --------------------------------------------------------------------------

Status infer_broadcast_to(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_allowed_type(c.input_types[1], {DType::int32, DType::int64}, "Tidx"));
  PartialShape target = PartialShape::unknown();
  if (const Tensor* shape = c.input_values[1]) {
    std::vector<std::int64_t> dims;
    for (Index i = 0; i < shape->num_elements(); ++i)
      dims.push_back(shape->dtype() == DType::int32
                         ? shape->flat<std::int32_t>()[static_cast<std::size_t>(i)]
                         : shape->flat<std::int64_t>()[static_cast<std::size_t>(i)]);
    target = PartialShape(std::move(dims));
    PartialShape out;
    if (!broadcast_shapes(c.input_shapes[0], target, &out).ok() ||
        (c.input_shapes[0].rank_known() && c.input_shapes[0].rank() > target.rank()))
      return invalid_argument("Incompatible shapes: " + inference_shape_string(c.input_shapes[0]) +
                              " vs. " + inference_shape_string(target));
  } else if (c.input_shapes[1].rank_known() && c.input_shapes[1].dim(0) >= 0) {
    target = PartialShape::unknown_of_rank(static_cast<int>(c.input_shapes[1].dim(0)));
  }
  c.add_output(c.input_types[0], target);
  return {};
}

// -- LeakyRelu ----------------------------------------------------------------------------

Status infer_leaky_relu_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[0], c.input_shapes[1], &out));
  c.add_output(c.input_types[0], out);
  return {};
}

// -- string ops ---------------------------------------------------------------------------

Status infer_string_join(InferenceContext& c) {
  PartialShape out = PartialShape(std::vector<std::int64_t>{});
  bool all_scalars = true;
  for (std::size_t i = 0; i < c.input_types.size(); ++i) {
    if (c.input_types[i] != DType::string)
      return invalid_argument(
          fixed_type_mismatch_message(c.node.op, "inputs", c.input_types[i], DType::string));
    const PartialShape& s = c.input_shapes[i];
    if (s.rank_known() && s.rank() == 0) continue;
    if (all_scalars) {
      out = s;
      all_scalars = false;
    } else {
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(out, s, &out));
    }
  }
  c.add_output(DType::string, out);
  return {};
}

}  // namespace

namespace detail {

void register_compat_v2_ops(OpRegistry& r) {
  r.add({"PlaceholderWithDefault", infer_placeholder_with_default});
  r.add(
      {"DivNoNan", [](InferenceContext& c) { return infer_binary(c, with_complex(kFloatTypes)); }});
  r.add({"SelectV2", infer_select_v2});
  r.add({"BroadcastTo", infer_broadcast_to});
  r.add({"LeakyRelu", [](InferenceContext& c) { return infer_unary(c, kFloatTypes); }});
  r.add({"LeakyReluGrad", infer_leaky_relu_grad});
  r.add({"StringJoin", infer_string_join});
  r.add({"ShardedFilename", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
           c.add_output(DType::string, PartialShape(std::vector<std::int64_t>{}));
           return {};
         }});
  r.add({"StaticRegexFullMatch", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           c.add_output(DType::boolean, c.input_shapes[0]);
           return {};
         }});
}

}  // namespace detail

}  // namespace af
