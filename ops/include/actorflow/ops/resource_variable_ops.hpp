#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Builders for TensorFlow's resource-variable ops (`tf.compat.v1` builds these in
/// TensorFlow 2 unless `disable_resource_variables`): a VarHandleOp names the variable and
/// the other ops reach it through that handle, colocated with it. Graphs imported from
/// TensorFlow use the same ops; the Apply* optimizers have ResourceApply* twins
/// (training_ops.hpp) and the Scatter* ops ResourceScatter* twins (scatter_ops.hpp) that take
/// handles.
namespace af {

/// Op VarHandleOp (default name "VarHandleOp"): the handle (a scalar DT_RESOURCE) of the
/// variable `shared_name` (empty: the node's name) in `container` (empty: the session's).
/// `shape` is the variable's declared shape: ReadVariableOp's static shape comes from it.
Output var_handle_op(Graph& g, DType dtype, const PartialShape& shape,
                     std::string_view shared_name = {}, std::string_view name = {},
                     std::string_view container = {});
/// Op ReadVariableOp: the variable's value. Running it fails with FailedPrecondition
/// "Could not find variable NAME. ..." before the first assignment, and with
/// InvalidArgument "Trying to read variable with wrong dtype. Expected X got Y".
Output read_variable_op(const Output& handle, DType dtype, std::string_view name = {});
/// Op AssignVariableOp (no outputs): sets the value. A value of another dtype fails with
/// InvalidArgument "Trying to assign variable with wrong dtype. ..."; with `validate_shape`
/// a value of another shape than the current one fails ("... with wrong shape. Expected
/// [2,3] got [3]"), without it the variable takes the new shape.
Operation assign_variable_op(const Output& handle, const Output& value, std::string_view name = {},
                             bool validate_shape = false);
/// Op AssignAddVariableOp (no outputs): adds `delta` (same shape) to the value. Before the
/// first assignment it fails with NotFound "Resource localhost/NAME/N10tensorflow3VarE does
/// not exist." as TensorFlow's.
Operation assign_add_variable_op(const Output& handle, const Output& delta,
                                 std::string_view name = {});
/// Op AssignSubVariableOp (no outputs): subtracts `delta` (same shape) from the value; fails
/// as AssignAddVariableOp.
Operation assign_sub_variable_op(const Output& handle, const Output& delta,
                                 std::string_view name = {});
/// Op ResourceGather (`ResourceVariable.sparse_read`): the rows `indices` (int32 or int64, any
/// shape) of the variable, shape `indices.shape + var.shape[1:]`, read under the variable's
/// lock without copying the rest; built colocated with the variable, so only the rows leave
/// its task. Its gradient is IndexedSlices of the variable's shape. Running it fails with
/// NotFound before the first assignment (as AssignAddVariableOp), InvalidArgument "indices[1]
/// = 7 is not in [0, 5)" for an index out of range, "params must be at least 1 dimensional"
/// for a scalar variable, and "Trying to access resource NAME as float but it holds int32".
Output resource_gather(const Output& handle, const Output& indices, DType dtype,
                       std::string_view name = {});
/// Op ResourceGatherNd (`ResourceVariable.gather_nd`, what `tf.gather_nd` of a resource
/// variable builds): `gather_nd` of the variable's value read under its lock, shape
/// `indices.shape[:-1] + var.shape[indices.shape[-1]:]`. Fails as `gather_nd` ("indices[1] =
/// [0, 4] does not index into param shape [2,3], node name: ...") and, before the first
/// assignment, with NotFound as `resource_gather`.
Output resource_gather_nd(const Output& handle, const Output& indices, DType dtype,
                          std::string_view name = {});
/// `resource_variable_ops.variable_shape`: the variable's shape as a vector of `out_type`
/// (int32 or int64): a Const when the handle's declared shape is fully defined, as TensorFlow's
/// Python returns, else op VariableShape (which fails with NotFound before the first
/// assignment).
Output variable_shape(const Output& handle, DType out_type = DType::int32,
                      std::string_view name = {});
/// Op VarIsInitializedOp: a bool scalar, true once the variable was assigned.
Output var_is_initialized_op(const Output& handle, std::string_view name = {});

}  // namespace af
