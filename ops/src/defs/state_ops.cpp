// Reference variables (VariableV2, Assign, AssignAdd, AssignSub, IsVariableInitialized) and
// resource variables (VarHandleOp, ReadVariableOp, AssignVariableOp, Assign{Add,Sub}VariableOp,
// VarIsInitializedOp, ResourceGather, VariableShape, as tf.compat.v1 builds them in TensorFlow
// 2): ops, shape functions and builders. Their CPU kernels are in kernels/src/state_ops.cpp.
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

Status expect_handle(InferenceContext& c, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 'resource' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  return {};
}

// Assign{,Add,Sub}VariableOp: a value of the attr's dtype, whose shape fits the variable's.
Status infer_assign_variable(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 2));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  if (c.input_types[1] != t)
    return invalid_argument("Input 'value' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[1])) +
                            " that does not match type " + std::string(data_type_string(t)) +
                            " of argument 'dtype'.");
  bool validate = c.node.op != "AssignVariableOp";
  if (auto v = c.node.attr<bool>("validate_shape")) validate = validate || *v;
  PartialShape merged;
  if (validate && !c.input_handle_shapes[0].merge_with(c.input_shapes[1], &merged).ok())
    return invalid_argument("Trying to assign to variable with tensor with wrong shape. Expected " +
                            c.input_handle_shapes[0].to_string() + " got " +
                            c.input_shapes[1].to_string());
  return {};
}

// ResourceGather: rows of the variable, `indices.shape + var.shape[1:]` (batch_dims 0 only).
Status infer_resource_gather(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 2));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tindices"));
  std::int64_t batch_dims = 0;
  c.get_attr("batch_dims", &batch_dims);
  if (batch_dims != 0)
    return unimplemented("ResourceGather with batch_dims = " + std::to_string(batch_dims) +
                         " is not supported (only 0)");
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  const PartialShape& params = c.input_handle_shapes[0];
  const PartialShape& indices = c.input_shapes[1];
  if (params.rank_known() && params.rank() < 1)
    return invalid_argument("Shape must be at least rank 1 but is rank 0");
  if (!params.rank_known() || !indices.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = indices.dims();
  dims.insert(dims.end(), params.dims().begin() + 1, params.dims().end());
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

Status infer_assign(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[0] != c.input_types[1])
    return invalid_argument("Input 'value' of '" + c.node.op + "' Op has type " +
                            std::string(dtype_name(c.input_types[1])) +
                            " that does not match type " +
                            std::string(dtype_name(c.input_types[0])) + " of argument 'ref'.");
  bool validate = true;
  if (auto v = c.node.attr<bool>("validate_shape")) validate = *v;
  PartialShape out = c.input_shapes[1];
  if (validate || c.node.op != "Assign") {
    PartialShape merged;
    Status s = c.input_shapes[0].merge_with(c.input_shapes[1], &merged);
    if (!s.ok())
      return invalid_argument("Shapes must be equal rank, but are " +
                              std::to_string(c.input_shapes[0].rank()) + " and " +
                              std::to_string(c.input_shapes[1].rank()));
    out = merged;
  }
  c.add_output(c.input_types[0], out, /*is_ref=*/true);
  return {};
}

Output assign_like(const char* type, const char* default_name, const Output& ref,
                   const Output& value, std::string_view name, bool locking_attrs) {
  AttrMap attrs{{"T", ref.dtype()}, {"use_locking", false}};
  if (locking_attrs) attrs["validate_shape"] = true;
  // Updates of a variable are colocated with it (as TensorFlow's state_ops do via ref edges).
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op(type, {ref, value}, attrs, name.empty() ? default_name : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_session_tensor_ops(OpRegistry& r);  // session_tensor_ops.cpp

void register_state_ops(OpRegistry& r) {
  register_session_tensor_ops(r);
  r.add({"VariableV2",
         [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(t, s, /*is_ref=*/true);
           return {};
         },
         true});
  r.add({"Assign", infer_assign, true, {0}});
  r.add({"AssignAdd", infer_assign, true, {0}});
  r.add({"AssignSub", infer_assign, true, {0}});
  r.add({"IsVariableInitialized",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           c.add_output(DType::boolean, PartialShape(Shape{}));
           return {};
         },
         true,
         {0}});
  // A resource handle travels as a reference edge: its consumers are colocated with the
  // VarHandleOp (as TensorFlow's placer colocates a resource's users) and get it unread.
  r.add({"VarHandleOp",
         [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(DType::resource, PartialShape(Shape{}), /*is_ref=*/true);
           c.output_handle_shapes = {s};
           return {};
         },
         true});
  r.add({"ReadVariableOp",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 1));
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           c.add_output(t, c.input_handle_shapes[0]);
           return {};
         },
         true,
         {0}});
  r.add({"AssignVariableOp", infer_assign_variable, true, {0}});
  r.add({"AssignAddVariableOp", infer_assign_variable, true, {0}});
  r.add({"AssignSubVariableOp", infer_assign_variable, true, {0}});
  r.add({"ResourceGather", infer_resource_gather, true, {0}});
  r.add({"VariableShape",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 1));
           DType t = DType::int32;
           c.get_attr("out_type", &t);
           ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(t, "out_type"));
           const PartialShape& h = c.input_handle_shapes[0];
           c.add_output(t, h.rank_known() ? PartialShape(Shape{h.rank()}) : PartialShape({-1}));
           return {};
         },
         true,
         {0}});
  r.add({"VarIsInitializedOp",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 1));
           c.add_output(DType::boolean, PartialShape(Shape{}));
           return {};
         },
         true,
         {0}});
  // TensorFlow 2's savers run it before reading a variable to save it (no outputs).
  r.add({"DisableCopyOnRead",
         [](InferenceContext& c) -> Status { return expect_handle(c, 1); },
         true,
         {0}});
}

}  // namespace detail

Output assign(const Output& ref, const Output& value, std::string_view name) {
  return assign_like("Assign", "Assign", ref, value, name, true);
}
Output assign_add(const Output& ref, const Output& delta, std::string_view name) {
  return assign_like("AssignAdd", "AssignAdd", ref, delta, name, false);
}
Output is_variable_initialized(const Output& ref, std::string_view name) {
  if (ref.dtype() == DType::resource)
    return var_is_initialized_op(ref, name.empty() ? "VarIsInitializedOp" : name);
  return ref.graph()
      .create_op("IsVariableInitialized", {ref}, {{"dtype", ref.dtype()}},
                 name.empty() ? "IsVariableInitialized" : name)
      .output(0);
}

Output assign_sub(const Output& ref, const Output& delta, std::string_view name) {
  return assign_like("AssignSub", "AssignSub", ref, delta, name, false);
}

Output var_handle_op(Graph& g, DType dtype, const PartialShape& shape, std::string_view shared_name,
                     std::string_view name, std::string_view container) {
  // An empty shared_name is the node's own name (the kernel's default, as VariableV2's).
  AttrMap attrs{{"dtype", dtype},
                {"shape", shape},
                {"container", std::string(container)},
                {"shared_name", std::string(shared_name)},
                {"allowed_devices", std::vector<std::string>{}}};
  return g.create_op("VarHandleOp", {}, std::move(attrs), name.empty() ? "VarHandleOp" : name)
      .output(0);
}

Output read_variable_op(const Output& handle, DType dtype, std::string_view name) {
  return handle.graph()
      .create_op("ReadVariableOp", {handle}, {{"dtype", dtype}},
                 name.empty() ? "ReadVariableOp" : name)
      .output(0);
}

Operation assign_variable_op(const Output& handle, const Output& value, std::string_view name,
                             bool validate_shape) {
  return handle.graph().create_op("AssignVariableOp", {handle, value},
                                  {{"dtype", value.dtype()}, {"validate_shape", validate_shape}},
                                  name.empty() ? "AssignVariableOp" : name);
}

Operation assign_add_variable_op(const Output& handle, const Output& delta, std::string_view name) {
  return handle.graph().create_op("AssignAddVariableOp", {handle, delta},
                                  {{"dtype", delta.dtype()}},
                                  name.empty() ? "AssignAddVariableOp" : name);
}

Operation assign_sub_variable_op(const Output& handle, const Output& delta, std::string_view name) {
  return handle.graph().create_op("AssignSubVariableOp", {handle, delta},
                                  {{"dtype", delta.dtype()}},
                                  name.empty() ? "AssignSubVariableOp" : name);
}

Output var_is_initialized_op(const Output& handle, std::string_view name) {
  return handle.graph()
      .create_op("VarIsInitializedOp", {handle}, {}, name.empty() ? "VarIsInitializedOp" : name)
      .output(0);
}

Output resource_gather(const Output& handle, const Output& indices, DType dtype,
                       std::string_view name) {
  return handle.graph()
      .create_op("ResourceGather", {handle, indices},
                 {{"dtype", dtype},
                  {"Tindices", indices.dtype()},
                  {"batch_dims", std::int64_t{0}},
                  {"validate_indices", true}},
                 name.empty() ? "ResourceGather" : name)
      .output(0);
}

Output resource_gather_nd(const Output& handle, const Output& indices, DType dtype,
                          std::string_view name) {
  return handle.graph()
      .create_op("ResourceGatherNd", {handle, indices},
                 {{"dtype", dtype}, {"Tindices", indices.dtype()}},
                 name.empty() ? "ResourceGatherNd" : name)
      .output(0);
}

Output variable_shape(const Output& handle, DType out_type, std::string_view name) {
  Graph& g = handle.graph();
  const PartialShape declared = handle.node()->output_handle_shape(handle.index());
  if (declared.fully_defined()) {
    Tensor dims(out_type, Shape{declared.rank()});
    for (int d = 0; d < declared.rank(); ++d) {
      if (out_type == DType::int64)
        dims.data<std::int64_t>()[d] = declared.dim(d);
      else
        dims.data<std::int32_t>()[d] = static_cast<std::int32_t>(declared.dim(d));
    }
    return g.constant(dims, name.empty() ? "Const" : name);
  }
  return g
      .create_op("VariableShape", {handle}, {{"out_type", out_type}},
                 name.empty() ? "VariableShape" : name)
      .output(0);
}

}  // namespace af
