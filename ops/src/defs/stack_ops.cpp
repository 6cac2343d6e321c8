// StackV2, StackPushV2, StackPopV2, StackCloseV2: definitions (shape functions). TensorFlow's
// while loop gradients keep each forward iteration's values on such a stack (pushed in the
// forward loop, popped in the gradient loop); graphs TensorFlow writes with loop gradients
// hold them. Their CPU kernels are in kernels/src/stack_ops.cpp.
#include "actorflow/ops/detail/shape_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// StackV2(max_size: int32) -> handle: a resource scalar.
Status infer_stack(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  DType elem = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("elem_type", &elem));
  c.add_output(DType::resource, PartialShape(Shape{}));
  return {};
}

// StackPushV2(handle, elem: T) -> elem.
Status infer_push(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::resource));
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

// StackPopV2(handle) -> elem: elem_type, of a shape only the run knows.
Status infer_pop(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::resource));
  DType elem = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("elem_type", &elem));
  c.add_output(elem, PartialShape::unknown());
  return {};
}

Status infer_close(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  return c.expect_input_type(0, DType::resource);
}

}  // namespace

namespace detail {

void register_stack_ops(OpRegistry& r) {
  r.add({"StackV2", infer_stack, true});
  r.add({"StackPushV2", infer_push, true});
  r.add({"StackPopV2", infer_pop, true});
  r.add({"StackCloseV2", infer_close, true});
}

}  // namespace detail

}  // namespace af
