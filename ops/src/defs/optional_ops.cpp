// TensorFlow's optional ops (OptionalFromValue, OptionalNone, OptionalHasValue,
// OptionalGetValue): definitions. An optional is a scalar variant; TensorFlow 2's cond_v2
// gradient passes a branch's intermediates to the gradient branch in them (the other branch
// outputs OptionalNone). CPU kernels: kernels/src/variant_ops.cpp.
#include "actorflow/ops/detail/shape_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// OptionalFromValue(components: Toutput_types) -> optional.
Status infer_from_value(InferenceContext& c) {
  std::vector<DType> types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Toutput_types", &types));
  if (types.empty()) return invalid_argument("Toutput_types must not be empty");
  if (types != c.input_types) {
    auto names = [](const std::vector<DType>& ts) {
      std::string out;
      for (auto t : ts) out += (out.empty() ? "" : ", ") + std::string(dtype_name(t));
      return "[" + out + "]";
    };
    return invalid_argument("OptionalFromValue components have types " + names(c.input_types) +
                            ", Toutput_types says " + names(types));
  }
  c.add_output(DType::variant, PartialShape(Shape{}));
  return {};
}

// OptionalNone() -> optional.
Status infer_none(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
  c.add_output(DType::variant, PartialShape(Shape{}));
  return {};
}

// OptionalHasValue(optional) -> has_value: bool scalar.
Status infer_has_value(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::variant));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  c.add_output(DType::boolean, PartialShape(Shape{}));
  return {};
}

// OptionalGetValue(optional) -> components: output_types, shaped as output_shapes says.
Status infer_get_value(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::variant));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  std::vector<DType> types;
  std::vector<PartialShape> shapes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_types", &types));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_shapes", &shapes));
  if (types.empty() || types.size() != shapes.size())
    return invalid_argument(
        "output_types and output_shapes must be equal-length, non-empty "
        "lists; got " +
        std::to_string(types.size()) + " and " + std::to_string(shapes.size()));
  for (std::size_t i = 0; i < types.size(); ++i) c.add_output(types[i], shapes[i]);
  return {};
}

}  // namespace

namespace detail {

void register_optional_ops(OpRegistry& r) {
  r.add({"OptionalFromValue", infer_from_value});
  r.add({"OptionalNone", infer_none});
  r.add({"OptionalHasValue", infer_has_value});
  r.add({"OptionalGetValue", infer_get_value});
}

}  // namespace detail

}  // namespace af
