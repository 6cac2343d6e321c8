// The definitions of the session-tensor ops (TensorFlow's data_flow_ops.cc:
// GetSessionHandle, GetSessionHandleV2, GetSessionTensor, DeleteSessionTensor) and their
// builders (tf.compat.v1.get_session_handle, get_session_tensor, delete_session_tensor). The
// CPU kernels are in kernels/src/session_tensor_ops.cpp.
#include <string>
#include <string_view>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"

namespace af {

namespace {

// GetSessionHandle(value: T) -> handle: string scalar (V2: resource scalar).
Status infer_get_handle(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(c.node.op == "GetSessionHandleV2" ? DType::resource : DType::string,
               PartialShape(Shape{}));
  return {};
}

// GetSessionTensor(handle: string scalar; dtype) -> value of dtype, shape unknown.
Status infer_get_tensor(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  c.add_output(t, PartialShape::unknown());
  return {};
}

// DeleteSessionTensor(handle: string scalar).
Status infer_delete_tensor(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  return detail::with_rank(c.input_shapes[0], 0);
}

}  // namespace

namespace detail {

/// The session-tensor ops (called by register_state_ops, state_ops.cpp).
void register_session_tensor_ops(OpRegistry& r) {
  r.add({"GetSessionHandle", infer_get_handle, true});
  r.add({"GetSessionHandleV2", infer_get_handle, true});
  r.add({"GetSessionTensor", infer_get_tensor, true});
  r.add({"DeleteSessionTensor", infer_delete_tensor, true});
}

}  // namespace detail

Output get_session_handle(const Output& value, std::string_view name) {
  return value.graph()
      .create_op("GetSessionHandle", {value}, {{"T", value.dtype()}},
                 name.empty() ? "GetSessionHandle" : name)
      .output(0);
}

Output get_session_tensor(const Output& handle, DType dtype, std::string_view name) {
  return handle.graph()
      .create_op("GetSessionTensor", {handle}, {{"dtype", dtype}},
                 name.empty() ? "GetSessionTensor" : name)
      .output(0);
}

Operation delete_session_tensor(const Output& handle, std::string_view name) {
  return handle.graph().create_op("DeleteSessionTensor", {handle}, {},
                                  name.empty() ? "DeleteSessionTensor" : name);
}

}  // namespace af
