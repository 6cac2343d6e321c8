// The sparse updates of a variable, Scatter{Update,Add,Sub,Mul,Div,Min,Max} and their
// ResourceScatter* twins (TensorFlow's state_ops.cc and resource_variable_ops.cc): shape
// functions and builders. Their CPU kernels are in kernels/src/scatter_ops.cpp.
#include "actorflow/ops/scatter_ops.hpp"

#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

const char* const kScatterKinds[] = {"Update", "Add", "Sub", "Mul", "Div", "Min", "Max"};

Status check_indices(const InferenceContext& c) {
  const DType t = c.input_types[1];
  if (t != DType::int32 && t != DType::int64)
    return invalid_argument("Value for attr 'Tindices' of " + std::string(data_type_string(t)) +
                            " is not in the list of allowed values: int32, int64");
  return {};
}

// `ScatterUpdateShape`: updates are a scalar or of shape indices.shape + var.shape[1:].
Status check_updates(const PartialShape& var, const PartialShape& indices,
                     const PartialShape& updates) {
  // A scalar variable passes (TensorFlow's Subshape clamps); running fails.
  if (updates.rank_known() && updates.rank() == 0) return {};
  if (!var.rank_known() || var.rank() == 0 || !indices.rank_known()) return {};
  std::vector<std::int64_t> want = indices.dims();
  want.insert(want.end(), var.dims().begin() + 1, var.dims().end());
  PartialShape merged;
  return updates.merge_with(PartialShape(want), &merged);
}

Status infer_scatter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_indices(c));
  if (c.input_types[2] != c.input_types[0])
    return invalid_argument(
        "Input 'updates' of '" + c.node.op + "' Op has type " +
        std::string(data_type_string(c.input_types[2])) + " that does not match type " +
        std::string(data_type_string(c.input_types[0])) + " of argument 'ref'.");
  ACTORFLOW_RETURN_IF_ERROR(check_updates(c.input_shapes[0], c.input_shapes[1], c.input_shapes[2]));
  c.add_output(c.input_types[0], c.input_shapes[0], /*is_ref=*/true);
  return {};
}

Status infer_resource_scatter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 'resource' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  ACTORFLOW_RETURN_IF_ERROR(check_indices(c));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  if (c.input_types[2] != t)
    return invalid_argument("Input 'updates' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[2])) +
                            " that does not match type " + std::string(data_type_string(t)) +
                            " of argument 'dtype'.");
  return check_updates(c.input_handle_shapes[0], c.input_shapes[1], c.input_shapes[2]);
}

Output scatter(const char* kind, const Output& ref, const Output& indices, const Output& updates,
               bool use_locking, std::string_view name) {
  const std::string type = std::string("Scatter") + kind;
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op(type, {ref, indices, updates},
                 {{"T", ref.dtype()}, {"Tindices", indices.dtype()}, {"use_locking", use_locking}},
                 name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_scatter_ops(OpRegistry& r) {
  for (const char* kind : kScatterKinds) {
    r.add({std::string("Scatter") + kind, infer_scatter, true, {0}});
    r.add({std::string("ResourceScatter") + kind, infer_resource_scatter, true, {0}});
  }
}

}  // namespace detail

Output scatter_update(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking, std::string_view name) {
  return scatter("Update", ref, indices, updates, use_locking, name);
}
Output scatter_add(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Add", ref, indices, updates, use_locking, name);
}
Output scatter_sub(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Sub", ref, indices, updates, use_locking, name);
}
Output scatter_mul(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Mul", ref, indices, updates, use_locking, name);
}
Output scatter_div(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Div", ref, indices, updates, use_locking, name);
}
Output scatter_min(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Min", ref, indices, updates, use_locking, name);
}
Output scatter_max(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking, std::string_view name) {
  return scatter("Max", ref, indices, updates, use_locking, name);
}

Operation resource_scatter(std::string_view op, const Output& handle, const Output& indices,
                           const Output& updates, std::string_view name) {
  bool known = false;
  for (const char* kind : kScatterKinds) known = known || op == kind;
  if (!known)
    throw InvalidArgumentError(invalid_argument("resource_scatter: unknown update '" +
                                                std::string(op) +
                                                "' (one of Update, Add, Sub, Mul, Div, Min, Max)"));
  const std::string type = "ResourceScatter" + std::string(op);
  auto colocate = handle.graph().colocate_with(handle.op());
  return handle.graph().create_op(type, {handle, indices, updates},
                                  {{"dtype", updates.dtype()}, {"Tindices", indices.dtype()}},
                                  name.empty() ? type : name);
}

}  // namespace af
