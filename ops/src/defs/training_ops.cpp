// The definitions of the optimizers' update ops (TensorFlow 1.x's training_ops.cc):
// ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp and
// ApplyAdam, the sparse SparseApply{Momentum,Adagrad,RMSProp,CenteredRMSProp}, and their
// Resource* twins: shape functions and graph-building functions. Their CPU kernels are in
// kernels/src/training_ops.cpp and kernels/src/sparse_training_ops.cpp; the input layouts
// they share are in actorflow/ops/detail/training_layout.hpp.
#include "actorflow/ops/training_ops.hpp"

#include <string>
#include <vector>

#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/training_layout.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::optimizer::Kind;
using detail::optimizer::Layout;
using detail::optimizer::layout_of;
using detail::optimizer::ref_name;
using detail::optimizer::sparse_layout_of;

Status infer_apply(InferenceContext& c, Kind k) {
  const Layout lay = layout_of(k);
  const int expected = lay.inputs;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(expected));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  for (int i = 1; i < expected; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != t)
      return invalid_argument(
          "Input " + std::to_string(i) + " of '" + c.node.op + "' has type " +
          std::string(data_type_string(c.input_types[static_cast<std::size_t>(i)])) +
          " that does not match type " + std::string(data_type_string(t)) + " of var");
  PartialShape shape = c.input_shapes[0];
  for (int i = 1; i < lay.refs; ++i) {
    PartialShape merged;
    if (!shape.merge_with(c.input_shapes[static_cast<std::size_t>(i)], &merged).ok())
      return invalid_argument("Shapes of var and " + std::string(ref_name(k, i)) +
                              " must be equal");
    shape = merged;
  }
  for (auto [index, scalar_name] : lay.scalars) {
    const PartialShape& p = c.input_shapes[static_cast<std::size_t>(index)];
    if (p.rank_known() && p.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(p.rank()));
  }
  PartialShape merged;
  if (!shape.merge_with(c.input_shapes[static_cast<std::size_t>(lay.grad)], &merged).ok())
    return invalid_argument("Shapes of var and grad must be equal");
  c.add_output(t, merged, /*is_ref=*/true);
  return {};
}

// ResourceApply*: handles where Apply* takes references; T is the attr's; the gradient's
// shape must fit the variable's declared shape; no outputs.
Status infer_resource_apply(InferenceContext& c, Kind k) {
  const Layout lay = layout_of(k);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(lay.inputs));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  for (int i = 0; i < lay.inputs; ++i) {
    const DType want = i < lay.refs ? DType::resource : t;
    if (c.input_types[static_cast<std::size_t>(i)] != want)
      return invalid_argument(
          "Input " + std::to_string(i) + " of '" + c.node.op + "' has type " +
          std::string(data_type_string(c.input_types[static_cast<std::size_t>(i)])) +
          " that does not match type " + std::string(data_type_string(want)));
  }
  for (auto [index, scalar_name] : lay.scalars) {
    const PartialShape& p = c.input_shapes[static_cast<std::size_t>(index)];
    if (p.rank_known() && p.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(p.rank()));
  }
  PartialShape merged;
  if (!c.input_handle_shapes[0]
           .merge_with(c.input_shapes[static_cast<std::size_t>(lay.grad)], &merged)
           .ok())
    return invalid_argument("Shapes of var and grad must be equal");
  return {};
}

// SparseApply* (and with `resource` ResourceSparseApply*): the variable's and the slots'
// shapes agree, the scalars are scalars, `indices` is a vector of int32 or int64 of as many
// rows as `grad`, whose other dimensions are the variable's (`HandleGradAndIndicesInputs`).
Status infer_sparse_apply(InferenceContext& c, Kind k, bool resource) {
  const Layout lay = sparse_layout_of(k);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(lay.inputs));
  DType t = c.input_types[0];
  if (resource) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  const int indices = lay.grad + 1;
  for (int i = 0; i < lay.inputs; ++i) {
    if (i == indices) continue;
    const DType want = resource && i < lay.refs ? DType::resource : t;
    if (c.input_types[static_cast<std::size_t>(i)] != want)
      return invalid_argument(
          "Input " + std::to_string(i) + " of '" + c.node.op + "' has type " +
          std::string(data_type_string(c.input_types[static_cast<std::size_t>(i)])) +
          " that does not match type " + std::string(data_type_string(want)));
  }
  const DType index_type = c.input_types[static_cast<std::size_t>(indices)];
  if (index_type != DType::int32 && index_type != DType::int64)
    return invalid_argument("Value for attr 'Tindices' of " +
                            std::string(data_type_string(index_type)) +
                            " is not in the list of allowed values: int32, int64");
  PartialShape shape = resource ? c.input_handle_shapes[0] : c.input_shapes[0];
  for (int i = 1; i < lay.refs && !resource; ++i) {
    PartialShape merged;
    if (!shape.merge_with(c.input_shapes[static_cast<std::size_t>(i)], &merged).ok())
      return invalid_argument("Shapes of var and " + std::string(ref_name(k, i)) +
                              " must be equal");
    shape = merged;
  }
  for (auto [index, scalar_name] : lay.scalars) {
    const PartialShape& p = c.input_shapes[static_cast<std::size_t>(index)];
    if (p.rank_known() && p.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(p.rank()));
  }
  const PartialShape& ind = c.input_shapes[static_cast<std::size_t>(indices)];
  if (ind.rank_known() && ind.rank() != 1)
    return invalid_argument("Shape must be rank 1 but is rank " + std::to_string(ind.rank()));
  const PartialShape& grad = c.input_shapes[static_cast<std::size_t>(lay.grad)];
  if (shape.rank_known()) {
    if (shape.rank() == 0) return invalid_argument("Shape must be at least rank 1 but is rank 0");
    std::vector<std::int64_t> want = shape.dims();
    want[0] = ind.rank_known() ? ind.dim(0) : -1;
    PartialShape merged;
    if (!grad.merge_with(PartialShape(want), &merged).ok())
      return invalid_argument("Shapes of grad " + grad.to_string() + " and indices " +
                              ind.to_string() + " do not fit var " + shape.to_string());
  }
  if (!resource) c.add_output(t, shape, /*is_ref=*/true);
  return {};
}

template <Kind K>
void register_sparse_apply(OpRegistry& r, const char* type) {
  std::vector<int> refs;
  for (int i = 0; i < layout_of(K).refs; ++i) refs.push_back(i);
  r.add({std::string("Sparse") + type,
         [](InferenceContext& c) { return infer_sparse_apply(c, K, false); }, true, refs});
  r.add({std::string("ResourceSparse") + type,
         [](InferenceContext& c) { return infer_sparse_apply(c, K, true); }, true, refs});
}

template <Kind K>
void register_apply(OpRegistry& r, const char* type) {
  std::vector<int> refs;
  for (int i = 0; i < layout_of(K).refs; ++i) refs.push_back(i);
  r.add({type, [](InferenceContext& c) { return infer_apply(c, K); }, true, refs});
  r.add({std::string("Resource") + type,
         [](InferenceContext& c) { return infer_resource_apply(c, K); }, true, refs});
}

Output apply_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
                std::string_view name) {
  Graph& g = inputs[0].graph();
  attrs["T"] = inputs[0].dtype();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? type : name).output(0);
}

// A SparseApply* op: the indices are the input after the gradient.
Output sparse_apply_op(const char* type, const std::vector<Output>& inputs, int indices,
                       AttrMap attrs, std::string_view name) {
  attrs["Tindices"] = inputs[static_cast<std::size_t>(indices)].dtype();
  return apply_op(type, inputs, std::move(attrs), name);
}

// A ResourceApply* or ResourceSparseApply* op: `refs` handles first, T the first other
// input's dtype; `indices` is the indices' input (-1: none).
Operation resource_apply_op(const char* type, const std::vector<Output>& inputs, int refs,
                            int indices, AttrMap attrs, std::string_view name) {
  Graph& g = inputs[0].graph();
  attrs["T"] = inputs[static_cast<std::size_t>(refs)].dtype();
  if (indices >= 0) attrs["Tindices"] = inputs[static_cast<std::size_t>(indices)].dtype();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? type : name);
}

}  // namespace

namespace detail {

void register_training_ops(OpRegistry& r) {
  register_apply<Kind::gradient_descent>(r, "ApplyGradientDescent");
  register_apply<Kind::momentum>(r, "ApplyMomentum");
  register_apply<Kind::adagrad>(r, "ApplyAdagrad");
  register_apply<Kind::rms_prop>(r, "ApplyRMSProp");
  register_apply<Kind::centered_rms_prop>(r, "ApplyCenteredRMSProp");
  register_apply<Kind::adam>(r, "ApplyAdam");
  register_sparse_apply<Kind::momentum>(r, "ApplyMomentum");
  register_sparse_apply<Kind::adagrad>(r, "ApplyAdagrad");
  register_sparse_apply<Kind::rms_prop>(r, "ApplyRMSProp");
  register_sparse_apply<Kind::centered_rms_prop>(r, "ApplyCenteredRMSProp");
}

}  // namespace detail

Output apply_gradient_descent(const Output& var, const Output& alpha, const Output& delta,
                              bool use_locking, std::string_view name) {
  return apply_op("ApplyGradientDescent", {var, alpha, delta}, {{"use_locking", use_locking}},
                  name);
}

Output apply_momentum(const Output& var, const Output& accum, const Output& lr, const Output& grad,
                      const Output& momentum, bool use_locking, bool use_nesterov,
                      std::string_view name) {
  return apply_op("ApplyMomentum", {var, accum, lr, grad, momentum},
                  {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

Output apply_adagrad(const Output& var, const Output& accum, const Output& lr, const Output& grad,
                     bool use_locking, bool update_slots, std::string_view name) {
  return apply_op("ApplyAdagrad", {var, accum, lr, grad},
                  {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Output apply_rms_prop(const Output& var, const Output& ms, const Output& mom, const Output& lr,
                      const Output& rho, const Output& momentum, const Output& epsilon,
                      const Output& grad, bool use_locking, std::string_view name) {
  return apply_op("ApplyRMSProp", {var, ms, mom, lr, rho, momentum, epsilon, grad},
                  {{"use_locking", use_locking}}, name);
}

Output apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                               const Output& mom, const Output& lr, const Output& rho,
                               const Output& momentum, const Output& epsilon, const Output& grad,
                               bool use_locking, std::string_view name) {
  return apply_op("ApplyCenteredRMSProp", {var, mg, ms, mom, lr, rho, momentum, epsilon, grad},
                  {{"use_locking", use_locking}}, name);
}

Output apply_adam(const Output& var, const Output& m, const Output& v, const Output& beta1_power,
                  const Output& beta2_power, const Output& lr, const Output& beta1,
                  const Output& beta2, const Output& epsilon, const Output& grad, bool use_locking,
                  bool use_nesterov, std::string_view name) {
  return apply_op("ApplyAdam",
                  {var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad},
                  {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

}  // namespace af

namespace af {

Output sparse_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                             const Output& grad, const Output& indices, const Output& momentum,
                             bool use_locking, bool use_nesterov, std::string_view name) {
  return sparse_apply_op("SparseApplyMomentum", {var, accum, lr, grad, indices, momentum}, 4,
                         {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

Output sparse_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                            const Output& grad, const Output& indices, bool use_locking,
                            bool update_slots, std::string_view name) {
  return sparse_apply_op("SparseApplyAdagrad", {var, accum, lr, grad, indices}, 4,
                         {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Output sparse_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                             const Output& lr, const Output& rho, const Output& momentum,
                             const Output& epsilon, const Output& grad, const Output& indices,
                             bool use_locking, std::string_view name) {
  return sparse_apply_op("SparseApplyRMSProp",
                         {var, ms, mom, lr, rho, momentum, epsilon, grad, indices}, 8,
                         {{"use_locking", use_locking}}, name);
}

Output sparse_apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                                      const Output& mom, const Output& lr, const Output& rho,
                                      const Output& momentum, const Output& epsilon,
                                      const Output& grad, const Output& indices, bool use_locking,
                                      std::string_view name) {
  return sparse_apply_op("SparseApplyCenteredRMSProp",
                         {var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices}, 9,
                         {{"use_locking", use_locking}}, name);
}

}  // namespace af

namespace af {

Operation resource_apply_gradient_descent(const Output& var, const Output& alpha,
                                          const Output& delta, bool use_locking,
                                          std::string_view name) {
  return resource_apply_op("ResourceApplyGradientDescent", {var, alpha, delta}, 1, -1,
                           {{"use_locking", use_locking}}, name);
}

Operation resource_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                                  const Output& grad, const Output& momentum, bool use_locking,
                                  bool use_nesterov, std::string_view name) {
  return resource_apply_op("ResourceApplyMomentum", {var, accum, lr, grad, momentum}, 2, -1,
                           {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

Operation resource_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                                 const Output& grad, bool use_locking, bool update_slots,
                                 std::string_view name) {
  return resource_apply_op("ResourceApplyAdagrad", {var, accum, lr, grad}, 2, -1,
                           {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Operation resource_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                                  const Output& lr, const Output& rho, const Output& momentum,
                                  const Output& epsilon, const Output& grad, bool use_locking,
                                  std::string_view name) {
  return resource_apply_op("ResourceApplyRMSProp", {var, ms, mom, lr, rho, momentum, epsilon, grad},
                           3, -1, {{"use_locking", use_locking}}, name);
}

Operation resource_apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                                           const Output& mom, const Output& lr, const Output& rho,
                                           const Output& momentum, const Output& epsilon,
                                           const Output& grad, bool use_locking,
                                           std::string_view name) {
  return resource_apply_op("ResourceApplyCenteredRMSProp",
                           {var, mg, ms, mom, lr, rho, momentum, epsilon, grad}, 4, -1,
                           {{"use_locking", use_locking}}, name);
}

Operation resource_apply_adam(const Output& var, const Output& m, const Output& v,
                              const Output& beta1_power, const Output& beta2_power,
                              const Output& lr, const Output& beta1, const Output& beta2,
                              const Output& epsilon, const Output& grad, bool use_locking,
                              bool use_nesterov, std::string_view name) {
  return resource_apply_op(
      "ResourceApplyAdam", {var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad},
      3, -1, {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

Operation resource_sparse_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                                         const Output& grad, const Output& indices,
                                         const Output& momentum, bool use_locking,
                                         bool use_nesterov, std::string_view name) {
  return resource_apply_op("ResourceSparseApplyMomentum", {var, accum, lr, grad, indices, momentum},
                           2, 4, {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}},
                           name);
}

Operation resource_sparse_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                                        const Output& grad, const Output& indices, bool use_locking,
                                        bool update_slots, std::string_view name) {
  return resource_apply_op("ResourceSparseApplyAdagrad", {var, accum, lr, grad, indices}, 2, 4,
                           {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Operation resource_sparse_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                                         const Output& lr, const Output& rho,
                                         const Output& momentum, const Output& epsilon,
                                         const Output& grad, const Output& indices,
                                         bool use_locking, std::string_view name) {
  return resource_apply_op("ResourceSparseApplyRMSProp",
                           {var, ms, mom, lr, rho, momentum, epsilon, grad, indices}, 3, 8,
                           {{"use_locking", use_locking}}, name);
}

Operation resource_sparse_apply_centered_rms_prop(const Output& var, const Output& mg,
                                                  const Output& ms, const Output& mom,
                                                  const Output& lr, const Output& rho,
                                                  const Output& momentum, const Output& epsilon,
                                                  const Output& grad, const Output& indices,
                                                  bool use_locking, std::string_view name) {
  return resource_apply_op("ResourceSparseApplyCenteredRMSProp",
                           {var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices}, 4, 9,
                           {{"use_locking", use_locking}}, name);
}

}  // namespace af
