// TensorFlow 1.x's optimizer.py, slot_creator.py and the five optimizers built on it, with
// TensorFlow's op names, slot names and colocation. A resource variable gets resource slots
// and the Resource* twins of the update ops (`_resource_apply_dense`, `_resource_apply_sparse`).
#include "actorflow/train/optimizer.hpp"

#include <algorithm>
#include <any>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/gradients.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "actorflow/ops/scatter_ops.hpp"
#include "actorflow/ops/training_ops.hpp"
#include "actorflow/train/layers.hpp"
#include "actorflow/train/training_util.hpp"

namespace af::train {

namespace {

bool valid_dtype(DType t) {
  return t == DType::float32 || t == DType::float64 || t == DType::bfloat16;
}

void assert_valid_dtype(DType t, const std::string& what) {
  if (!valid_dtype(t))
    throw InvalidArgumentError(invalid_argument("Invalid type " + std::string(data_type_string(t)) +
                                                " for " + what +
                                                ", expected: [float32, float64, bfloat16]."));
}

std::vector<Variable> trainable_variables(Graph& g) {
  std::vector<Variable> out;
  for (auto& a : g.get_collection(kTrainableVariables)) out.push_back(std::any_cast<Variable>(a));
  return out;
}

// `control_flow_ops.tuple` over a list with gaps: every gradient waits for all of them.
std::vector<Gradient> tuple(Graph& g, std::vector<Gradient> tensors) {
  std::vector<Operation> gating;
  for (auto& t : tensors)
    if (t.valid() && std::find(gating.begin(), gating.end(), t.op()) == gating.end())
      gating.push_back(t.op());
  return tuple_after(g, std::move(tensors), std::move(gating));
}

// The update op for `var`: `resource_fn` (a ResourceApply* builder) for a resource variable,
// else `ref_fn` (its Apply* twin); both take `args` then the default name.
template <class RefFn, class ResourceFn, class... Args>
Operation apply_either(const Variable& var, RefFn ref_fn, ResourceFn resource_fn,
                       const Args&... args) {
  if (var.is_resource()) return resource_fn(args..., std::string_view{});
  return Operation(ref_fn(args..., std::string_view{}));
}

// `scatter_add(v, indices, updates)` returning the variable's new value: ScatterAdd's
// reference, or for a resource variable a read after ResourceScatterAdd (Adam's
// `_resource_scatter_add`).
Output scatter_add_value(const Variable& v, const Output& indices, const Output& updates,
                         bool use_locking, std::string_view name) {
  if (!v.is_resource()) return scatter_add(v.ref(), indices, updates, use_locking, name);
  Graph& g = v.graph();
  Operation update = resource_scatter("Add", v.ref(), indices, updates, name);
  auto deps = g.control_dependencies({update});
  return read_variable_op(v.ref(), v.dtype());
}

Tensor float_scalar(DType dtype, double v) {
  if (dtype == DType::float64) return Tensor(v);
  if (dtype == DType::bfloat16) return Tensor(bfloat16_t(static_cast<float>(v)));
  return Tensor(static_cast<float>(v));
}

}  // namespace

// -- Optimizer ------------------------------------------------------------------------------------

std::vector<GradAndVar> Optimizer::compute_gradients(const Output& loss,
                                                     std::optional<std::vector<Variable>> var_list,
                                                     const GradientOptions& options) {
  if (!loss.valid())
    throw InvalidArgumentError(invalid_argument("compute_gradients: invalid loss"));
  assert_valid_dtype(loss.dtype(), loss.name());
  if (options.grad_loss.valid())
    assert_valid_dtype(options.grad_loss.dtype(), options.grad_loss.name());
  Graph& g = loss.graph();
  std::vector<Variable> vars = var_list ? *var_list : trainable_variables(g);
  if (vars.empty()) throw InvalidArgumentError(invalid_argument("No variables to optimize."));
  std::vector<Output> refs;
  for (auto& v : vars) refs.push_back(v.ref());
  GradientsOptions gopts;
  gopts.gate_gradients = options.gate_gradients == GateGradients::op;
  gopts.colocate_gradients_with_ops = options.colocate_gradients_with_ops;
  std::vector<Output> grad_ys;
  if (options.grad_loss.valid()) grad_ys.push_back(options.grad_loss);
  std::vector<Gradient> grads = gradients_with_slices({loss}, refs, grad_ys, gopts);
  if (options.gate_gradients == GateGradients::graph) grads = tuple(g, grads);
  std::vector<GradAndVar> out;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (grads[i].valid()) assert_valid_dtype(vars[i].dtype(), vars[i].name());
    out.push_back({grads[i], vars[i]});
  }
  return out;
}

Operation Optimizer::apply_gradients(const std::vector<GradAndVar>& grads_and_vars,
                                     std::optional<Variable> global_step, std::string_view name) {
  std::vector<GradAndVar> with_grads;
  for (auto& gv : grads_and_vars)
    if (gv.grad.valid()) with_grads.push_back(gv);
  if (with_grads.empty()) {
    std::string names;
    for (auto& gv : grads_and_vars) names += (names.empty() ? "" : ", ") + gv.var.name();
    throw InvalidArgumentError(
        invalid_argument("No gradients provided for any variable, check your graph for ops that do "
                         "not support gradients, "
                         "between variables [" +
                         names + "] and loss."));
  }
  Graph& g = with_grads[0].var.graph();
  std::vector<Variable> var_list;
  for (auto& gv : with_grads) var_list.push_back(gv.var);
  create_slots(g, var_list);
  const std::string scope_name = g.unique_name(name.empty() ? std::string_view(name_) : name);
  auto scope = g.name_scope(scope_name + "/");
  prepare(g);
  std::vector<Operation> update_ops;
  for (auto& gv : with_grads) {
    auto update_scope = g.name_scope("update_" + gv.var.name());
    auto colocate = g.colocate_with(gv.var.op());
    if (gv.grad.is_slices())
      update_ops.push_back(apply_sparse_duplicate_indices(gv.grad.slices(), gv.var));
    else
      update_ops.push_back(apply_dense(gv.grad.dense(), gv.var));
  }
  Operation apply_updates;
  if (!global_step) {
    apply_updates = finish(g, update_ops, scope_name + "/");
  } else {
    Operation finished = finish(g, update_ops, "update");
    auto deps = g.control_dependencies({finished});
    auto colocate = g.colocate_with(global_step->op());
    Tensor one(global_step->dtype(), Shape{});
    if (one.dtype() == DType::int64)
      one.data<std::int64_t>()[0] = 1;
    else if (one.dtype() == DType::int32)
      one.data<std::int32_t>()[0] = 1;
    else
      throw InvalidArgumentError(
          invalid_argument("global_step " + global_step->name() + " must be int32 or int64"));
    Output value = g.constant(one, "value");
    apply_updates = global_step->is_resource()
                        ? assign_add_variable_op(global_step->ref(), value, scope_name + "/")
                        : Operation(assign_add(global_step->ref(), value, scope_name + "/"));
  }
  g.add_to_collection(kTrainOp, apply_updates);
  return apply_updates;
}

Operation Optimizer::minimize(const Output& loss, std::optional<Variable> global_step,
                              std::optional<std::vector<Variable>> var_list,
                              const GradientOptions& options, std::string_view name) {
  auto grads_and_vars = compute_gradients(loss, std::move(var_list), options);
  bool any = std::any_of(grads_and_vars.begin(), grads_and_vars.end(),
                         [](auto& gv) { return gv.grad.valid(); });
  if (!any) {
    std::string names;
    for (auto& gv : grads_and_vars) names += (names.empty() ? "" : ", ") + gv.var.name();
    throw InvalidArgumentError(
        invalid_argument("No gradients provided for any variable, check your graph for ops that do "
                         "not support gradients, "
                         "between variables [" +
                         names + "] and loss " + loss.name() + "."));
  }
  return apply_gradients(grads_and_vars, std::move(global_step), name);
}

Operation Optimizer::apply_sparse(const IndexedSlices&, const Variable& var) {
  throw UnimplementedError(
      unimplemented("Optimizer " + name_ + " has no sparse update (variable " + var.name() + ")"));
}

Operation Optimizer::apply_sparse_duplicate_indices(const IndexedSlices& grad,
                                                    const Variable& var) {
  // `_deduplicate_indexed_slices`.
  auto [unique_indices, positions] = unique(grad.indices, DType::int32, "Unique");
  Output count =
      strided_slice(shape(unique_indices, DType::int32, "Shape"), std::vector<std::int64_t>{0},
                    std::vector<std::int64_t>{1}, std::vector<std::int64_t>{1},
                    {.shrink_axis_mask = 1}, "strided_slice");
  Output summed = unsorted_segment_sum(grad.values, positions, count, "UnsortedSegmentSum");
  return apply_sparse(IndexedSlices{summed, unique_indices, grad.dense_shape}, var);
}

Operation Optimizer::finish(Graph& g, const std::vector<Operation>& update_ops,
                            std::string_view name) {
  return g.group(update_ops, name);
}

Variable Optimizer::get_slot(const Variable& var, const std::string& slot_name) const {
  auto it = slots_.find(slot_name);
  if (it != slots_.end())
    if (auto v = it->second.find(var.name()); v != it->second.end()) return v->second;
  throw NotFoundError(not_found("Optimizer " + name_ + " has no slot '" + slot_name +
                                "' for variable " + var.name()));
}

std::vector<std::string> Optimizer::get_slot_names() const {
  std::vector<std::string> out;
  for (auto& [n, vars] : slots_) out.push_back(n);
  return out;
}

std::vector<Variable> Optimizer::variables() const {
  std::vector<Variable> out;
  for (auto& [n, vars] : slots_)
    for (auto& [v, slot] : vars) out.push_back(slot);
  for (auto& [n, v] : non_slots_) out.push_back(v);
  std::sort(out.begin(), out.end(),
            [](const Variable& a, const Variable& b) { return a.name() < b.name(); });
  return out;
}

Variable Optimizer::slot_with_initial_value(const Variable& var, const std::string& slot_name,
                                            const std::function<Output(Graph&)>& make_initial) {
  auto& by_var = slots_[slot_name];
  if (auto it = by_var.find(var.name()); it != by_var.end()) return it->second;
  Graph& g = var.graph();
  if (!var.shape().fully_defined())
    throw UnimplementedError(unimplemented("slot '" + slot_name + "' of " + var.name() +
                                           ": the variable's shape must be fully defined"));
  // slot_creator: variable scope `<var>/<optimizer name>` made unique, absolute (variable
  // scopes ignore name scopes), colocated with the primary.
  auto root = g.name_scope("/");
  const std::string slot_var = g.unique_name(var.name() + "/" + name_);
  auto colocate = g.colocate_with(var.op());
  Output initial;
  {
    auto init_scope = g.name_scope(slot_var + "/Initializer/");
    initial = make_initial(g);
  }
  VariableOptions options;
  options.name = slot_var + "/";
  options.trainable = false;
  options.use_resource = var.is_resource();
  // A part's slot is the same part of the full variable's slot (slot_creator: the slot
  // `emb/part_0/Adam` is a slice of `emb/Adam`), so slots save and re-partition too.
  if (const SaveSliceInfo* info = var.save_slice_info()) {
    SaveSliceInfo slot_info = *info;
    slot_info.full_name += slot_var.substr(var.name().size());
    options.save_slice_info = std::move(slot_info);
  }
  Variable slot = g.variable(initial, options);
  by_var.emplace(var.name(), slot);
  return slot;
}

Variable Optimizer::zeros_slot(const Variable& var, const std::string& slot_name) {
  return slot_with_initial_value(var, slot_name, [&](Graph& g) {
    return zeros(g, *var.shape().to_shape(), var.dtype(), "zeros");
  });
}

Variable Optimizer::constant_slot(const Variable& var, double value, const std::string& slot_name) {
  return slot_with_initial_value(var, slot_name, [&](Graph& g) {
    const Shape shape = *var.shape().to_shape();
    if (value == 1.0) return ones(g, shape, var.dtype(), "ones");
    // init_ops.Constant ("Const"; a Fill for large shapes, see initializers::constant).
    return initializers::constant(value)(g, shape, var.dtype());
  });
}

Variable Optimizer::non_slot_variable(Graph& g, double initial_value, const std::string& var_name,
                                      const Variable& colocate_with) {
  if (auto it = non_slots_.find(var_name); it != non_slots_.end()) return it->second;
  auto colocate = g.colocate_with(colocate_with.op());
  VariableOptions options;
  options.name = var_name;
  options.trainable = false;
  options.use_resource = colocate_with.is_resource();
  Variable v = g.variable(float_scalar(colocate_with.dtype(), initial_value), options);
  non_slots_.emplace(var_name, v);
  return v;
}

Variable Optimizer::non_slot(const std::string& var_name) const {
  auto it = non_slots_.find(var_name);
  if (it == non_slots_.end())
    throw NotFoundError(not_found("Optimizer " + name_ + " has no variable " + var_name));
  return it->second;
}

Output Optimizer::hyper_tensor(Graph& g, const HyperParameter& h, const char* const_name) {
  if (h.is_tensor()) return h.tensor();
  return g.constant(Tensor(static_cast<float>(h.number())), const_name);
}

Output Optimizer::cast_to(const Output& h, const Variable& var) {
  return cast(h, var.dtype(), "Cast");
}

// -- GradientDescent --------------------------------------------------------------------------

GradientDescentOptimizer::GradientDescentOptimizer(HyperParameter learning_rate, bool use_locking,
                                                   std::string name)
    : Optimizer(use_locking, std::move(name)), learning_rate_(std::move(learning_rate)) {}

void GradientDescentOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
}

Operation GradientDescentOptimizer::apply_dense(const Output& grad, const Variable& var) {
  return apply_either(var, apply_gradient_descent, resource_apply_gradient_descent, var.ref(),
                      cast_to(lr_t_, var), grad, use_locking_);
}

Operation GradientDescentOptimizer::apply_sparse_duplicate_indices(const IndexedSlices& grad,
                                                                   const Variable& var) {
  if (var.is_resource()) {
    // `resource_scatter_add(handle, indices, -grad * lr)`.
    Output delta = mul(neg(grad.values, "Neg"), cast_to(lr_t_, var), "mul");
    return resource_scatter("Add", var.ref(), grad.indices, delta, "ResourceScatterAdd");
  }
  Output delta = mul(grad.values, cast_to(lr_t_, var), "mul");
  return Operation(scatter_sub(var.ref(), grad.indices, delta, use_locking_, "ScatterSub"));
}

// -- Momentum ------------------------------------------------------------------------------------

MomentumOptimizer::MomentumOptimizer(HyperParameter learning_rate, HyperParameter momentum,
                                     bool use_locking, std::string name, bool use_nesterov)
    : Optimizer(use_locking, std::move(name)),
      learning_rate_(std::move(learning_rate)),
      momentum_(std::move(momentum)),
      use_nesterov_(use_nesterov) {}

void MomentumOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) zeros_slot(v, "momentum");
}

void MomentumOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  momentum_t_ = hyper_tensor(g, momentum_, "momentum");
}

Operation MomentumOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable mom = get_slot(var, "momentum");
  return apply_either(var, apply_momentum, resource_apply_momentum, var.ref(), mom.ref(),
                      cast_to(lr_t_, var), grad, cast_to(momentum_t_, var), use_locking_,
                      use_nesterov_);
}

Operation MomentumOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable mom = get_slot(var, "momentum");
  return apply_either(var, sparse_apply_momentum, resource_sparse_apply_momentum, var.ref(),
                      mom.ref(), cast_to(lr_t_, var), grad.values, grad.indices,
                      cast_to(momentum_t_, var), use_locking_, use_nesterov_);
}

// -- Adagrad
// ----------------------------------------------------------------------------------------

AdagradOptimizer::AdagradOptimizer(HyperParameter learning_rate, double initial_accumulator_value,
                                   bool use_locking, std::string name)
    : Optimizer(use_locking, std::move(name)),
      learning_rate_(std::move(learning_rate)),
      initial_accumulator_value_(initial_accumulator_value) {
  if (!(initial_accumulator_value > 0.0))
    throw InvalidArgumentError(invalid_argument("initial_accumulator_value must be positive: " +
                                                std::to_string(initial_accumulator_value)));
}

void AdagradOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) constant_slot(v, initial_accumulator_value_, "accumulator");
}

void AdagradOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
}

Operation AdagradOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable acc = get_slot(var, "accumulator");
  return apply_either(var, apply_adagrad, resource_apply_adagrad, var.ref(), acc.ref(),
                      cast_to(lr_t_, var), grad, use_locking_, true);
}

Operation AdagradOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable acc = get_slot(var, "accumulator");
  return apply_either(var, sparse_apply_adagrad, resource_sparse_apply_adagrad, var.ref(),
                      acc.ref(), cast_to(lr_t_, var), grad.values, grad.indices, use_locking_,
                      true);
}

// -- RMSProp
// ------------------------------------------------------------------------------------------

RMSPropOptimizer::RMSPropOptimizer(HyperParameter learning_rate, RMSPropOptions options)
    : Optimizer(options.use_locking, options.name),
      learning_rate_(std::move(learning_rate)),
      options_(std::move(options)) {}

void RMSPropOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) {
    constant_slot(v, 1.0, "rms");
    if (options_.centered) zeros_slot(v, "mg");
    zeros_slot(v, "momentum");
  }
}

void RMSPropOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  decay_t_ = hyper_tensor(g, options_.decay, "decay");
  momentum_t_ = hyper_tensor(g, options_.momentum, "momentum");
  epsilon_t_ = hyper_tensor(g, options_.epsilon, "epsilon");
}

Operation RMSPropOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable rms = get_slot(var, "rms");
  Variable mom = get_slot(var, "momentum");
  if (options_.centered) {
    Variable mg = get_slot(var, "mg");
    return apply_either(var, apply_centered_rms_prop, resource_apply_centered_rms_prop, var.ref(),
                        mg.ref(), rms.ref(), mom.ref(), cast_to(lr_t_, var), cast_to(decay_t_, var),
                        cast_to(momentum_t_, var), cast_to(epsilon_t_, var), grad, use_locking_);
  }
  return apply_either(var, apply_rms_prop, resource_apply_rms_prop, var.ref(), rms.ref(), mom.ref(),
                      cast_to(lr_t_, var), cast_to(decay_t_, var), cast_to(momentum_t_, var),
                      cast_to(epsilon_t_, var), grad, use_locking_);
}

Operation RMSPropOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable rms = get_slot(var, "rms");
  Variable mom = get_slot(var, "momentum");
  if (options_.centered) {
    Variable mg = get_slot(var, "mg");
    return apply_either(var, sparse_apply_centered_rms_prop,
                        resource_sparse_apply_centered_rms_prop, var.ref(), mg.ref(), rms.ref(),
                        mom.ref(), cast_to(lr_t_, var), cast_to(decay_t_, var),
                        cast_to(momentum_t_, var), cast_to(epsilon_t_, var), grad.values,
                        grad.indices, use_locking_);
  }
  return apply_either(var, sparse_apply_rms_prop, resource_sparse_apply_rms_prop, var.ref(),
                      rms.ref(), mom.ref(), cast_to(lr_t_, var), cast_to(decay_t_, var),
                      cast_to(momentum_t_, var), cast_to(epsilon_t_, var), grad.values,
                      grad.indices, use_locking_);
}

// -- Adam
// --------------------------------------------------------------------------------------------

AdamOptimizer::AdamOptimizer(HyperParameter learning_rate, AdamOptions options)
    : Optimizer(options.use_locking, options.name),
      learning_rate_(std::move(learning_rate)),
      options_(std::move(options)) {}

void AdamOptimizer::create_slots(Graph& g, const std::vector<Variable>& var_list) {
  // The variable whose name sorts first holds the beta powers, so every worker of a
  // cluster picks the same ps task.
  const Variable& first =
      *std::min_element(var_list.begin(), var_list.end(),
                        [](const Variable& a, const Variable& b) { return a.name() < b.name(); });
  non_slot_variable(g, options_.beta1, "beta1_power", first);
  non_slot_variable(g, options_.beta2, "beta2_power", first);
  for (auto& v : var_list) {
    zeros_slot(v, "m");
    zeros_slot(v, "v");
  }
}

void AdamOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  beta1_t_ = hyper_tensor(g, options_.beta1, "beta1");
  beta2_t_ = hyper_tensor(g, options_.beta2, "beta2");
  epsilon_t_ = hyper_tensor(g, options_.epsilon, "epsilon");
}

Operation AdamOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable m = get_slot(var, "m");
  Variable v = get_slot(var, "v");
  Variable beta1_power = non_slot("beta1_power");
  Variable beta2_power = non_slot("beta2_power");
  return apply_either(var, apply_adam, resource_apply_adam, var.ref(), m.ref(), v.ref(),
                      cast_to(beta1_power.value(), var), cast_to(beta2_power.value(), var),
                      cast_to(lr_t_, var), cast_to(beta1_t_, var), cast_to(beta2_t_, var),
                      cast_to(epsilon_t_, var), grad, use_locking_, false);
}

Operation AdamOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Graph& g = var.graph();
  Variable m = get_slot(var, "m");
  Variable v = get_slot(var, "v");
  Output beta1_power = cast_to(non_slot("beta1_power").value(), var);
  Output beta2_power = cast_to(non_slot("beta2_power").value(), var);
  Output lr_t = cast_to(lr_t_, var), beta1_t = cast_to(beta1_t_, var);
  Output beta2_t = cast_to(beta2_t_, var), epsilon_t = cast_to(epsilon_t_, var);
  auto one = [&](const char* name) { return g.constant(float_scalar(var.dtype(), 1.0), name); };
  // lr = lr_t * sqrt(1 - beta2_power) / (1 - beta1_power)
  Output lr = div(mul(lr_t, sqrt(sub(one("sub/x"), beta2_power, "sub"), "Sqrt"), "mul"),
                  sub(one("sub_1/x"), beta1_power, "sub_1"), "truediv");
  // m_t = beta1 * m + (1 - beta1) * g_t
  Output m_scaled = mul(grad.values, sub(one("sub_2/x"), beta1_t, "sub_2"), "mul_1");
  Output m_t = m.assign(mul(m.value(), beta1_t, "mul_2"), "Assign");
  {
    auto deps = g.control_dependencies({m_t.op()});
    m_t = scatter_add_value(m, grad.indices, m_scaled, use_locking_, "ScatterAdd");
  }
  // v_t = beta2 * v + (1 - beta2) * (g_t * g_t)
  Output v_scaled =
      mul(mul(grad.values, grad.values, "mul_3"), sub(one("sub_3/x"), beta2_t, "sub_3"), "mul_4");
  Output v_t = v.assign(mul(v.value(), beta2_t, "mul_5"), "Assign_1");
  {
    auto deps = g.control_dependencies({v_t.op()});
    v_t = scatter_add_value(v, grad.indices, v_scaled, use_locking_, "ScatterAdd_1");
  }
  Output v_sqrt = sqrt(v_t, "Sqrt_1");
  Output var_update = var.assign_sub(
      div(mul(lr, m_t, "mul_6"), add(v_sqrt, epsilon_t, "add"), "truediv_1"), "AssignSub");
  return g.group({var_update.op(), m_t.op(), v_t.op()}, "");
}

Operation AdamOptimizer::finish(Graph& g, const std::vector<Operation>& update_ops,
                                std::string_view name) {
  Variable beta1_power = non_slot("beta1_power");
  Variable beta2_power = non_slot("beta2_power");
  Output update_beta1, update_beta2;
  {
    auto deps = g.control_dependencies(update_ops);
    auto colocate = g.colocate_with(beta1_power.op());
    update_beta1 =
        beta1_power.assign(mul(beta1_power.value(), cast(beta1_t_, beta1_power.dtype()), "mul"));
    update_beta2 =
        beta2_power.assign(mul(beta2_power.value(), cast(beta2_t_, beta2_power.dtype()), "mul"));
  }
  std::vector<Operation> all = update_ops;
  all.push_back(update_beta1.op());
  all.push_back(update_beta2.op());
  return g.group(all, name);
}

}  // namespace af::train
