// The definitions of the optimizers' update ops (TensorFlow 1.x's training_ops.cc):
// ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp and
// ApplyAdam, and their ResourceApply* twins: shape functions and graph-building functions.
// Their CPU kernels are in kernels/src/training_ops.cpp; the input layouts both share are in
// actorflow/ops/detail/training_layout.hpp.
#include "actorflow/ops/training_ops.hpp"

#include <string>
#include <vector>

#include "actorflow/ops/detail/training_layout.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::optimizer::Kind;
using detail::optimizer::Layout;
using detail::optimizer::layout_of;
using detail::optimizer::ref_name;

Status infer_apply(InferenceContext& c, Kind k) {
  const Layout lay = layout_of(k);
  const int expected = lay.inputs;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(expected));
  const DType t = c.input_types[0];
  if (t != DType::float32 && t != DType::float64)
    return invalid_argument("Value for attr 'T' of " + std::string(data_type_string(t)) +
                            " is not in the list of allowed values: float, double");
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
  if (t != DType::float32 && t != DType::float64)
    return invalid_argument("Value for attr 'T' of " + std::string(data_type_string(t)) +
                            " is not in the list of allowed values: float, double");
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

}  // namespace

namespace detail {

void register_training_ops(OpRegistry& r) {
  register_apply<Kind::gradient_descent>(r, "ApplyGradientDescent");
  register_apply<Kind::momentum>(r, "ApplyMomentum");
  register_apply<Kind::adagrad>(r, "ApplyAdagrad");
  register_apply<Kind::rms_prop>(r, "ApplyRMSProp");
  register_apply<Kind::centered_rms_prop>(r, "ApplyCenteredRMSProp");
  register_apply<Kind::adam>(r, "ApplyAdam");
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
