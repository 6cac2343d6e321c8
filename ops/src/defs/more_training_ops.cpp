// The definitions of the update ops of more_training_layout.hpp (TensorFlow 1.x's
// training_ops.cc): ApplyFtrl, ApplyFtrlV2, ApplyAdadelta, ApplyProximalAdagrad,
// ApplyProximalGradientDescent, ApplyAdagradDA, ApplyAdagradV2, ApplyAdaMax, ApplyAddSign,
// ApplyPowerSign, their Resource*, SparseApply* and ResourceSparseApply* forms where TensorFlow
// has them, and ResourceApplyKerasMomentum / ResourceSparseApplyKerasMomentum: shape functions
// (training_ops.cc's: the slots' shapes merge with the variable's, the hyper-parameters are
// scalars, the gradient fits) and builders. Kernels: kernels/src/more_training_ops.cpp and
// kernels/src/more_sparse_training_ops.cpp.
#include "actorflow/ops/more_training_ops.hpp"

#include <string>
#include <vector>

#include "actorflow/ops/detail/more_training_layout.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::more_optimizer::has_global_step;
using detail::more_optimizer::Kind;
using detail::more_optimizer::Layout;
using detail::more_optimizer::layout_of;
using detail::more_optimizer::ref_name;
using detail::more_optimizer::sparse_layout_of;

// The dtype input `i` must have: resource for the handles of Resource* ops, int64 for
// AdagradDA's global_step, else T.
DType want_type(Kind k, const Layout& lay, int i, bool resource, DType t) {
  if (resource && i < lay.refs) return DType::resource;
  if (has_global_step(k) && i == lay.inputs - 1) return DType::int64;
  return t;
}

Status check_inputs(InferenceContext& c, Kind k, const Layout& lay, bool resource, DType t,
                    int skip) {
  for (int i = 0; i < lay.inputs; ++i) {
    if (i == skip) continue;
    const DType want = want_type(k, lay, i, resource, t);
    const DType got = c.input_types[static_cast<std::size_t>(i)];
    if (got != want)
      return invalid_argument("Input " + std::to_string(i) + " of '" + c.node.op + "' has type " +
                              std::string(data_type_string(got)) + " that does not match type " +
                              std::string(data_type_string(want)));
  }
  return {};
}

// The hyper-parameters (and global_step) are scalars.
Status check_scalars(InferenceContext& c, Kind k, const Layout& lay) {
  std::vector<int> scalars;
  for (auto [index, scalar_name] : lay.scalars) scalars.push_back(index);
  if (has_global_step(k)) scalars.push_back(lay.inputs - 1);
  for (int index : scalars) {
    const PartialShape& p = c.input_shapes[static_cast<std::size_t>(index)];
    if (p.rank_known() && p.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(p.rank()));
  }
  return {};
}

// The variable's shape merged with its slots' (ShapeOrHandleShape of each reference input).
Status merged_var_shape(InferenceContext& c, Kind k, const Layout& lay, bool resource,
                        PartialShape* out) {
  auto shape_of = [&](int i) -> const PartialShape& {
    return resource ? c.input_handle_shapes[static_cast<std::size_t>(i)]
                    : c.input_shapes[static_cast<std::size_t>(i)];
  };
  PartialShape shape = shape_of(0);
  for (int i = 1; i < lay.refs; ++i) {
    PartialShape merged;
    if (!shape.merge_with(shape_of(i), &merged).ok())
      return invalid_argument("Shapes of var and " + std::string(ref_name(k, i)) +
                              " must be equal");
    shape = merged;
  }
  *out = shape;
  return {};
}

Status infer_apply(InferenceContext& c, Kind k, bool resource) {
  const Layout lay = layout_of(k);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(lay.inputs));
  DType t = c.input_types[0];
  if (resource) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  // TensorFlow's OpDef list (its CPU kernels: float, double and the half types).
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, k, lay, resource, t, -1));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(merged_var_shape(c, k, lay, resource, &shape));
  ACTORFLOW_RETURN_IF_ERROR(check_scalars(c, k, lay));
  PartialShape merged;
  if (!shape.merge_with(c.input_shapes[static_cast<std::size_t>(lay.grad)], &merged).ok())
    return invalid_argument("Shapes of var and grad must be equal");
  if (!resource) c.add_output(t, merged, /*is_ref=*/true);
  return {};
}

// HandleGradAndIndicesInputs: indices a vector of int32/int64, grad `[N] + var.shape[1:]`.
Status infer_sparse_apply(InferenceContext& c, Kind k, bool resource) {
  const Layout lay = sparse_layout_of(k);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(lay.inputs));
  DType t = c.input_types[0];
  if (resource) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  // TensorFlow's OpDef list (its CPU kernels: float, double and, but for the proximal ones
  // and AdagradDA, the half types).
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  const int indices = lay.grad + 1;
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, k, lay, resource, t, indices));
  const DType index_type = c.input_types[static_cast<std::size_t>(indices)];
  if (index_type != DType::int32 && index_type != DType::int64)
    return invalid_argument("Value for attr 'Tindices' of " +
                            std::string(data_type_string(index_type)) +
                            " is not in the list of allowed values: int32, int64");
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(merged_var_shape(c, k, lay, resource, &shape));
  ACTORFLOW_RETURN_IF_ERROR(check_scalars(c, k, lay));
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

std::vector<int> ref_inputs(Kind k) {
  std::vector<int> refs;
  for (int i = 0; i < layout_of(k).refs; ++i) refs.push_back(i);
  return refs;
}

template <Kind K>
void register_apply(OpRegistry& r, const char* type, bool ref_form = true) {
  if (ref_form)
    r.add(
        {type, [](InferenceContext& c) { return infer_apply(c, K, false); }, true, ref_inputs(K)});
  r.add({std::string("Resource") + type,
         [](InferenceContext& c) { return infer_apply(c, K, true); }, true, ref_inputs(K)});
}

template <Kind K>
void register_sparse_apply(OpRegistry& r, const char* type, bool ref_form = true) {
  if (ref_form)
    r.add({std::string("Sparse") + type,
           [](InferenceContext& c) { return infer_sparse_apply(c, K, false); }, true,
           ref_inputs(K)});
  r.add({std::string("ResourceSparse") + type,
         [](InferenceContext& c) { return infer_sparse_apply(c, K, true); }, true, ref_inputs(K)});
}

// An Apply* or SparseApply* op: T the variable's dtype; `indices` the indices' input (-1: none).
Output apply_op(const char* type, const std::vector<Output>& inputs, int indices, AttrMap attrs,
                std::string_view name) {
  Graph& g = inputs[0].graph();
  attrs["T"] = inputs[0].dtype();
  if (indices >= 0) attrs["Tindices"] = inputs[static_cast<std::size_t>(indices)].dtype();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? type : name).output(0);
}

// A ResourceApply* or ResourceSparseApply* op: `refs` handles first, T the next input's dtype.
Operation resource_op(const char* type, const std::vector<Output>& inputs, int refs, int indices,
                      AttrMap attrs, std::string_view name) {
  Graph& g = inputs[0].graph();
  attrs["T"] = inputs[static_cast<std::size_t>(refs)].dtype();
  if (indices >= 0) attrs["Tindices"] = inputs[static_cast<std::size_t>(indices)].dtype();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? type : name);
}

AttrMap ftrl_attrs(bool use_locking, bool multiply_linear_by_lr) {
  return {{"use_locking", use_locking}, {"multiply_linear_by_lr", multiply_linear_by_lr}};
}

AttrMap locking(bool use_locking) { return {{"use_locking", use_locking}}; }

}  // namespace

namespace detail {

void register_more_training_ops(OpRegistry& r) {
  using more_optimizer::OpForms;
  more_optimizer::for_each_op_forms(
      [&]<Kind K>(const OpForms& op) { register_apply<K>(r, op.type, op.ref_form); });
  more_optimizer::for_each_op_forms([&]<Kind K>(const OpForms& op) {
    if (op.sparse) register_sparse_apply<K>(r, op.type, op.ref_form);
  });
}

}  // namespace detail

// -- Apply* ----------------------------------------------------------------------------------

Output apply_ftrl(const Output& var, const Output& accum, const Output& linear, const Output& grad,
                  const Output& lr, const Output& l1, const Output& l2, const Output& lr_power,
                  bool use_locking, bool multiply_linear_by_lr, std::string_view name) {
  return apply_op("ApplyFtrl", {var, accum, linear, grad, lr, l1, l2, lr_power}, -1,
                  ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Output apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                     const Output& grad, const Output& lr, const Output& l1, const Output& l2,
                     const Output& l2_shrinkage, const Output& lr_power, bool use_locking,
                     bool multiply_linear_by_lr, std::string_view name) {
  return apply_op("ApplyFtrlV2", {var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power}, -1,
                  ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Output apply_adadelta(const Output& var, const Output& accum, const Output& accum_update,
                      const Output& lr, const Output& rho, const Output& epsilon,
                      const Output& grad, bool use_locking, std::string_view name) {
  return apply_op("ApplyAdadelta", {var, accum, accum_update, lr, rho, epsilon, grad}, -1,
                  locking(use_locking), name);
}

Output apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                              const Output& l1, const Output& l2, const Output& grad,
                              bool use_locking, std::string_view name) {
  return apply_op("ApplyProximalAdagrad", {var, accum, lr, l1, l2, grad}, -1, locking(use_locking),
                  name);
}

Output apply_proximal_gradient_descent(const Output& var, const Output& alpha, const Output& l1,
                                       const Output& l2, const Output& delta, bool use_locking,
                                       std::string_view name) {
  return apply_op("ApplyProximalGradientDescent", {var, alpha, l1, l2, delta}, -1,
                  locking(use_locking), name);
}

Output apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                        const Output& gradient_squared_accumulator, const Output& grad,
                        const Output& lr, const Output& l1, const Output& l2,
                        const Output& global_step, bool use_locking, std::string_view name) {
  return apply_op(
      "ApplyAdagradDA",
      {var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step}, -1,
      locking(use_locking), name);
}

Output apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                        const Output& epsilon, const Output& grad, bool use_locking,
                        bool update_slots, std::string_view name) {
  return apply_op("ApplyAdagradV2", {var, accum, lr, epsilon, grad}, -1,
                  {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Output apply_ada_max(const Output& var, const Output& m, const Output& v, const Output& beta1_power,
                     const Output& lr, const Output& beta1, const Output& beta2,
                     const Output& epsilon, const Output& grad, bool use_locking,
                     std::string_view name) {
  return apply_op("ApplyAdaMax", {var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad}, -1,
                  locking(use_locking), name);
}

Output apply_add_sign(const Output& var, const Output& m, const Output& lr, const Output& alpha,
                      const Output& sign_decay, const Output& beta, const Output& grad,
                      bool use_locking, std::string_view name) {
  return apply_op("ApplyAddSign", {var, m, lr, alpha, sign_decay, beta, grad}, -1,
                  locking(use_locking), name);
}

Output apply_power_sign(const Output& var, const Output& m, const Output& lr, const Output& logbase,
                        const Output& sign_decay, const Output& beta, const Output& grad,
                        bool use_locking, std::string_view name) {
  return apply_op("ApplyPowerSign", {var, m, lr, logbase, sign_decay, beta, grad}, -1,
                  locking(use_locking), name);
}

// -- SparseApply* ----------------------------------------------------------------------------

Output sparse_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                         const Output& grad, const Output& indices, const Output& lr,
                         const Output& l1, const Output& l2, const Output& lr_power,
                         bool use_locking, bool multiply_linear_by_lr, std::string_view name) {
  return apply_op("SparseApplyFtrl", {var, accum, linear, grad, indices, lr, l1, l2, lr_power}, 4,
                  ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Output sparse_apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                            const Output& grad, const Output& indices, const Output& lr,
                            const Output& l1, const Output& l2, const Output& l2_shrinkage,
                            const Output& lr_power, bool use_locking, bool multiply_linear_by_lr,
                            std::string_view name) {
  return apply_op("SparseApplyFtrlV2",
                  {var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power}, 4,
                  ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Output sparse_apply_adadelta(const Output& var, const Output& accum, const Output& accum_update,
                             const Output& lr, const Output& rho, const Output& epsilon,
                             const Output& grad, const Output& indices, bool use_locking,
                             std::string_view name) {
  return apply_op("SparseApplyAdadelta",
                  {var, accum, accum_update, lr, rho, epsilon, grad, indices}, 7,
                  locking(use_locking), name);
}

Output sparse_apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                                     const Output& l1, const Output& l2, const Output& grad,
                                     const Output& indices, bool use_locking,
                                     std::string_view name) {
  return apply_op("SparseApplyProximalAdagrad", {var, accum, lr, l1, l2, grad, indices}, 6,
                  locking(use_locking), name);
}

Output sparse_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                              const Output& l1, const Output& l2,
                                              const Output& grad, const Output& indices,
                                              bool use_locking, std::string_view name) {
  return apply_op("SparseApplyProximalGradientDescent", {var, alpha, l1, l2, grad, indices}, 5,
                  locking(use_locking), name);
}

Output sparse_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                               const Output& gradient_squared_accumulator, const Output& grad,
                               const Output& indices, const Output& lr, const Output& l1,
                               const Output& l2, const Output& global_step, bool use_locking,
                               std::string_view name) {
  return apply_op("SparseApplyAdagradDA",
                  {var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1,
                   l2, global_step},
                  4, locking(use_locking), name);
}

Output sparse_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                               const Output& epsilon, const Output& grad, const Output& indices,
                               bool use_locking, bool update_slots, std::string_view name) {
  return apply_op("SparseApplyAdagradV2", {var, accum, lr, epsilon, grad, indices}, 5,
                  {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

// -- ResourceApply* --------------------------------------------------------------------------

Operation resource_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                              const Output& grad, const Output& lr, const Output& l1,
                              const Output& l2, const Output& lr_power, bool use_locking,
                              bool multiply_linear_by_lr, std::string_view name) {
  return resource_op("ResourceApplyFtrl", {var, accum, linear, grad, lr, l1, l2, lr_power}, 3, -1,
                     ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Operation resource_apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                                 const Output& grad, const Output& lr, const Output& l1,
                                 const Output& l2, const Output& l2_shrinkage,
                                 const Output& lr_power, bool use_locking,
                                 bool multiply_linear_by_lr, std::string_view name) {
  return resource_op("ResourceApplyFtrlV2",
                     {var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power}, 3, -1,
                     ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Operation resource_apply_adadelta(const Output& var, const Output& accum,
                                  const Output& accum_update, const Output& lr, const Output& rho,
                                  const Output& epsilon, const Output& grad, bool use_locking,
                                  std::string_view name) {
  return resource_op("ResourceApplyAdadelta", {var, accum, accum_update, lr, rho, epsilon, grad}, 3,
                     -1, locking(use_locking), name);
}

Operation resource_apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                                          const Output& l1, const Output& l2, const Output& grad,
                                          bool use_locking, std::string_view name) {
  return resource_op("ResourceApplyProximalAdagrad", {var, accum, lr, l1, l2, grad}, 2, -1,
                     locking(use_locking), name);
}

Operation resource_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                                   const Output& l1, const Output& l2,
                                                   const Output& delta, bool use_locking,
                                                   std::string_view name) {
  return resource_op("ResourceApplyProximalGradientDescent", {var, alpha, l1, l2, delta}, 1, -1,
                     locking(use_locking), name);
}

Operation resource_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                                    const Output& gradient_squared_accumulator, const Output& grad,
                                    const Output& lr, const Output& l1, const Output& l2,
                                    const Output& global_step, bool use_locking,
                                    std::string_view name) {
  return resource_op(
      "ResourceApplyAdagradDA",
      {var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step}, 3,
      -1, locking(use_locking), name);
}

Operation resource_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                                    const Output& epsilon, const Output& grad, bool use_locking,
                                    bool update_slots, std::string_view name) {
  return resource_op("ResourceApplyAdagradV2", {var, accum, lr, epsilon, grad}, 2, -1,
                     {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Operation resource_apply_ada_max(const Output& var, const Output& m, const Output& v,
                                 const Output& beta1_power, const Output& lr, const Output& beta1,
                                 const Output& beta2, const Output& epsilon, const Output& grad,
                                 bool use_locking, std::string_view name) {
  return resource_op("ResourceApplyAdaMax",
                     {var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad}, 3, -1,
                     locking(use_locking), name);
}

Operation resource_apply_add_sign(const Output& var, const Output& m, const Output& lr,
                                  const Output& alpha, const Output& sign_decay, const Output& beta,
                                  const Output& grad, bool use_locking, std::string_view name) {
  return resource_op("ResourceApplyAddSign", {var, m, lr, alpha, sign_decay, beta, grad}, 2, -1,
                     locking(use_locking), name);
}

Operation resource_apply_power_sign(const Output& var, const Output& m, const Output& lr,
                                    const Output& logbase, const Output& sign_decay,
                                    const Output& beta, const Output& grad, bool use_locking,
                                    std::string_view name) {
  return resource_op("ResourceApplyPowerSign", {var, m, lr, logbase, sign_decay, beta, grad}, 2, -1,
                     locking(use_locking), name);
}

Operation resource_apply_keras_momentum(const Output& var, const Output& accum, const Output& lr,
                                        const Output& grad, const Output& momentum,
                                        bool use_locking, bool use_nesterov,
                                        std::string_view name) {
  return resource_op("ResourceApplyKerasMomentum", {var, accum, lr, grad, momentum}, 2, -1,
                     {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

Operation resource_apply_adam_with_amsgrad(const Output& var, const Output& m, const Output& v,
                                           const Output& vhat, const Output& beta1_power,
                                           const Output& beta2_power, const Output& lr,
                                           const Output& beta1, const Output& beta2,
                                           const Output& epsilon, const Output& grad,
                                           bool use_locking, std::string_view name) {
  return resource_op("ResourceApplyAdamWithAmsgrad",
                     {var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad},
                     4, -1, locking(use_locking), name);
}

// -- ResourceSparseApply* --------------------------------------------------------------------

Operation resource_sparse_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                                     const Output& grad, const Output& indices, const Output& lr,
                                     const Output& l1, const Output& l2, const Output& lr_power,
                                     bool use_locking, bool multiply_linear_by_lr,
                                     std::string_view name) {
  return resource_op("ResourceSparseApplyFtrl",
                     {var, accum, linear, grad, indices, lr, l1, l2, lr_power}, 3, 4,
                     ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Operation resource_sparse_apply_ftrl_v2(const Output& var, const Output& accum,
                                        const Output& linear, const Output& grad,
                                        const Output& indices, const Output& lr, const Output& l1,
                                        const Output& l2, const Output& l2_shrinkage,
                                        const Output& lr_power, bool use_locking,
                                        bool multiply_linear_by_lr, std::string_view name) {
  return resource_op("ResourceSparseApplyFtrlV2",
                     {var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power}, 3, 4,
                     ftrl_attrs(use_locking, multiply_linear_by_lr), name);
}

Operation resource_sparse_apply_adadelta(const Output& var, const Output& accum,
                                         const Output& accum_update, const Output& lr,
                                         const Output& rho, const Output& epsilon,
                                         const Output& grad, const Output& indices,
                                         bool use_locking, std::string_view name) {
  return resource_op("ResourceSparseApplyAdadelta",
                     {var, accum, accum_update, lr, rho, epsilon, grad, indices}, 3, 7,
                     locking(use_locking), name);
}

Operation resource_sparse_apply_proximal_adagrad(const Output& var, const Output& accum,
                                                 const Output& lr, const Output& l1,
                                                 const Output& l2, const Output& grad,
                                                 const Output& indices, bool use_locking,
                                                 std::string_view name) {
  return resource_op("ResourceSparseApplyProximalAdagrad", {var, accum, lr, l1, l2, grad, indices},
                     2, 6, locking(use_locking), name);
}

Operation resource_sparse_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                                          const Output& l1, const Output& l2,
                                                          const Output& grad, const Output& indices,
                                                          bool use_locking, std::string_view name) {
  return resource_op("ResourceSparseApplyProximalGradientDescent",
                     {var, alpha, l1, l2, grad, indices}, 1, 5, locking(use_locking), name);
}

Operation resource_sparse_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                                           const Output& gradient_squared_accumulator,
                                           const Output& grad, const Output& indices,
                                           const Output& lr, const Output& l1, const Output& l2,
                                           const Output& global_step, bool use_locking,
                                           std::string_view name) {
  return resource_op("ResourceSparseApplyAdagradDA",
                     {var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr,
                      l1, l2, global_step},
                     3, 4, locking(use_locking), name);
}

Operation resource_sparse_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                                           const Output& epsilon, const Output& grad,
                                           const Output& indices, bool use_locking,
                                           bool update_slots, std::string_view name) {
  return resource_op("ResourceSparseApplyAdagradV2", {var, accum, lr, epsilon, grad, indices}, 2, 5,
                     {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

Operation resource_sparse_apply_keras_momentum(const Output& var, const Output& accum,
                                               const Output& lr, const Output& grad,
                                               const Output& indices, const Output& momentum,
                                               bool use_locking, bool use_nesterov,
                                               std::string_view name) {
  return resource_op("ResourceSparseApplyKerasMomentum", {var, accum, lr, grad, indices, momentum},
                     2, 4, {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

}  // namespace af
