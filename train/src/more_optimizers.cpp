// TensorFlow 1.x's ftrl.py, adadelta.py, proximal_adagrad.py, proximal_gradient_descent.py
// and adagrad_da.py on optimizer.cpp's machinery: TensorFlow's slot names, hyper-parameter
// constants and update ops (the Resource* twins for resource variables, as
// `_resource_apply_dense` / `_resource_apply_sparse` build them).
#include "actorflow/train/more_optimizers.hpp"

#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/more_training_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af::train {

namespace {

// The update op for `var`: `resource_fn` for a resource variable, else `ref_fn`.
template <class RefFn, class ResourceFn, class... Args>
Operation apply_either(const Variable& var, RefFn ref_fn, ResourceFn resource_fn,
                       const Args&... args) {
  if (var.is_resource()) return resource_fn(args..., std::string_view{});
  return Operation(ref_fn(args..., std::string_view{}));
}

// Python's "%f".
std::string percent_f(double v) { return std::to_string(v); }

// Python's "%s" of a float (repr: "0.0", "-1.5", "0.1").
std::string percent_s(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw InvalidArgumentError(invalid_argument(message));
}

}  // namespace

// -- Ftrl ----------------------------------------------------------------------------------------

FtrlOptimizer::FtrlOptimizer(HyperParameter learning_rate, FtrlOptions options)
    : Optimizer(options.use_locking, options.name),
      learning_rate_(std::move(learning_rate)),
      options_(std::move(options)) {
  require(options_.initial_accumulator_value >= 0.0,
          "initial_accumulator_value " + percent_f(options_.initial_accumulator_value) +
              " needs to be positive or zero");
  require(options_.learning_rate_power <= 0.0, "learning_rate_power " +
                                                   percent_f(options_.learning_rate_power) +
                                                   " needs to be negative or zero");
  require(options_.l1_regularization_strength >= 0.0,
          "l1_regularization_strength " + percent_f(options_.l1_regularization_strength) +
              " needs to be positive or zero");
  require(options_.l2_regularization_strength >= 0.0,
          "l2_regularization_strength " + percent_f(options_.l2_regularization_strength) +
              " needs to be positive or zero");
  require(options_.l2_shrinkage_regularization_strength >= 0.0,
          "l2_shrinkage_regularization_strength " +
              percent_f(options_.l2_shrinkage_regularization_strength) +
              " needs to be positive or zero");
}

void FtrlOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) {
    // `ones(shape) * initial_accumulator_value`: the value itself.
    constant_slot(v, options_.initial_accumulator_value, "accum");
    zeros_slot(v, "linear");
  }
}

void FtrlOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  l1_t_ = hyper_tensor(g, options_.l1_regularization_strength, "l1_regularization_strength");
  if (options_.beta == 0.0 && !learning_rate_.is_tensor()) {
    // l2 + 0 / (2 * max(lr, 1e-36)) is l2.
    l2_t_ =
        hyper_tensor(g, options_.l2_regularization_strength, "adjusted_l2_regularization_strength");
  } else {
    // `l2 + beta / (2. * math_ops.maximum(learning_rate, 1e-36))`, in float32.
    auto c = [&](double v, const char* n) { return g.constant(Tensor(static_cast<float>(v)), n); };
    Output lr = cast(lr_t_, DType::float32, "Cast");
    Output floor = maximum(lr, c(1e-36, "Maximum/y"), "Maximum");
    Output twice = mul(c(2.0, "mul/x"), floor, "mul");
    Output ratio = div(c(options_.beta, "truediv/x"), twice, "truediv");
    l2_t_ = add(c(options_.l2_regularization_strength, "add/x"), ratio, "add");
  }
  l2_shrinkage_t_ = hyper_tensor(g, options_.l2_shrinkage_regularization_strength,
                                 "l2_shrinkage_regularization_strength");
  lr_power_t_ = hyper_tensor(g, options_.learning_rate_power, "learning_rate_power");
}

Operation FtrlOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable accum = get_slot(var, "accum");
  Variable linear = get_slot(var, "linear");
  const Output lr = cast_to(lr_t_, var), l1 = cast_to(l1_t_, var), l2 = cast_to(l2_t_, var);
  if (options_.l2_shrinkage_regularization_strength <= 0.0)
    return apply_either(var, apply_ftrl, resource_apply_ftrl, var.ref(), accum.ref(), linear.ref(),
                        grad, lr, l1, l2, cast_to(lr_power_t_, var), use_locking_, false);
  return apply_either(var, apply_ftrl_v2, resource_apply_ftrl_v2, var.ref(), accum.ref(),
                      linear.ref(), grad, lr, l1, l2, cast_to(l2_shrinkage_t_, var),
                      cast_to(lr_power_t_, var), use_locking_, false);
}

Operation FtrlOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable accum = get_slot(var, "accum");
  Variable linear = get_slot(var, "linear");
  const Output lr = cast_to(lr_t_, var), l1 = cast_to(l1_t_, var), l2 = cast_to(l2_t_, var);
  if (options_.l2_shrinkage_regularization_strength <= 0.0)
    return apply_either(var, sparse_apply_ftrl, resource_sparse_apply_ftrl, var.ref(), accum.ref(),
                        linear.ref(), grad.values, grad.indices, lr, l1, l2,
                        cast_to(lr_power_t_, var), use_locking_, false);
  return apply_either(var, sparse_apply_ftrl_v2, resource_sparse_apply_ftrl_v2, var.ref(),
                      accum.ref(), linear.ref(), grad.values, grad.indices, lr, l1, l2,
                      cast_to(l2_shrinkage_t_, var), cast_to(lr_power_t_, var), use_locking_,
                      false);
}

// -- Adadelta ------------------------------------------------------------------------------------

AdadeltaOptimizer::AdadeltaOptimizer(HyperParameter learning_rate, AdadeltaOptions options)
    : Optimizer(options.use_locking, options.name),
      learning_rate_(std::move(learning_rate)),
      options_(std::move(options)) {}

void AdadeltaOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) {
    zeros_slot(v, "accum");
    zeros_slot(v, "accum_update");
  }
}

void AdadeltaOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "lr");
  rho_t_ = hyper_tensor(g, options_.rho, "rho");
  epsilon_t_ = hyper_tensor(g, options_.epsilon, "epsilon");
}

Operation AdadeltaOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable accum = get_slot(var, "accum");
  Variable accum_update = get_slot(var, "accum_update");
  return apply_either(var, apply_adadelta, resource_apply_adadelta, var.ref(), accum.ref(),
                      accum_update.ref(), cast_to(lr_t_, var), cast_to(rho_t_, var),
                      cast_to(epsilon_t_, var), grad, use_locking_);
}

Operation AdadeltaOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable accum = get_slot(var, "accum");
  Variable accum_update = get_slot(var, "accum_update");
  return apply_either(var, sparse_apply_adadelta, resource_sparse_apply_adadelta, var.ref(),
                      accum.ref(), accum_update.ref(), cast_to(lr_t_, var), cast_to(rho_t_, var),
                      cast_to(epsilon_t_, var), grad.values, grad.indices, use_locking_);
}

// -- ProximalAdagrad -----------------------------------------------------------------------------

ProximalAdagradOptimizer::ProximalAdagradOptimizer(HyperParameter learning_rate,
                                                   double initial_accumulator_value,
                                                   HyperParameter l1_regularization_strength,
                                                   HyperParameter l2_regularization_strength,
                                                   bool use_locking, std::string name)
    : Optimizer(use_locking, std::move(name)),
      learning_rate_(std::move(learning_rate)),
      initial_accumulator_value_(initial_accumulator_value),
      l1_(std::move(l1_regularization_strength)),
      l2_(std::move(l2_regularization_strength)) {
  require(initial_accumulator_value > 0.0,
          "initial_accumulator_value must be positive: " + percent_s(initial_accumulator_value));
}

void ProximalAdagradOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) constant_slot(v, initial_accumulator_value_, "accumulator");
}

void ProximalAdagradOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  l1_t_ = hyper_tensor(g, l1_, "l1_regularization_strength");
  l2_t_ = hyper_tensor(g, l2_, "l2_regularization_strength");
}

Operation ProximalAdagradOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable acc = get_slot(var, "accumulator");
  return apply_either(var, apply_proximal_adagrad, resource_apply_proximal_adagrad, var.ref(),
                      acc.ref(), cast_to(lr_t_, var), cast_to(l1_t_, var), cast_to(l2_t_, var),
                      grad, use_locking_);
}

Operation ProximalAdagradOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable acc = get_slot(var, "accumulator");
  return apply_either(var, sparse_apply_proximal_adagrad, resource_sparse_apply_proximal_adagrad,
                      var.ref(), acc.ref(), cast_to(lr_t_, var), cast_to(l1_t_, var),
                      cast_to(l2_t_, var), grad.values, grad.indices, use_locking_);
}

// -- ProximalGradientDescent ---------------------------------------------------------------------

ProximalGradientDescentOptimizer::ProximalGradientDescentOptimizer(
    HyperParameter learning_rate, HyperParameter l1_regularization_strength,
    HyperParameter l2_regularization_strength, bool use_locking, std::string name)
    : Optimizer(use_locking, std::move(name)),
      learning_rate_(std::move(learning_rate)),
      l1_(std::move(l1_regularization_strength)),
      l2_(std::move(l2_regularization_strength)) {}

void ProximalGradientDescentOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  l1_t_ = hyper_tensor(g, l1_, "l1_regularization_strength");
  l2_t_ = hyper_tensor(g, l2_, "l2_regularization_strength");
}

Operation ProximalGradientDescentOptimizer::apply_dense(const Output& grad, const Variable& var) {
  return apply_either(var, apply_proximal_gradient_descent,
                      resource_apply_proximal_gradient_descent, var.ref(), cast_to(lr_t_, var),
                      cast_to(l1_t_, var), cast_to(l2_t_, var), grad, use_locking_);
}

Operation ProximalGradientDescentOptimizer::apply_sparse(const IndexedSlices& grad,
                                                         const Variable& var) {
  return apply_either(var, sparse_apply_proximal_gradient_descent,
                      resource_sparse_apply_proximal_gradient_descent, var.ref(),
                      cast_to(lr_t_, var), cast_to(l1_t_, var), cast_to(l2_t_, var), grad.values,
                      grad.indices, use_locking_);
}

// -- AdagradDA -----------------------------------------------------------------------------------

AdagradDAOptimizer::AdagradDAOptimizer(HyperParameter learning_rate, Variable global_step,
                                       AdagradDAOptions options)
    : Optimizer(options.use_locking, options.name),
      learning_rate_(std::move(learning_rate)),
      global_step_(std::move(global_step)),
      options_(std::move(options)) {
  require(options_.initial_gradient_squared_accumulator_value > 0.0,
          "initial_gradient_squared_accumulator_value must be positive: " +
              percent_s(options_.initial_gradient_squared_accumulator_value));
}

void AdagradDAOptimizer::create_slots(Graph&, const std::vector<Variable>& var_list) {
  for (auto& v : var_list) {
    zeros_slot(v, "gradient_accumulator");
    constant_slot(v, options_.initial_gradient_squared_accumulator_value,
                  "gradient_squared_accumulator");
  }
}

void AdagradDAOptimizer::prepare(Graph& g) {
  lr_t_ = hyper_tensor(g, learning_rate_, "learning_rate");
  l1_t_ = hyper_tensor(g, options_.l1_regularization_strength, "l1_regularization_strength");
  l2_t_ = hyper_tensor(g, options_.l2_regularization_strength, "l2_regularization_strength");
  // `array_ops.identity(global_step) + 1`, colocated with the learning rate.
  auto colocate = g.colocate_with(lr_t_.op());
  Output step = identity(global_step_.value(), "Identity");
  if (step.dtype() != DType::int64) step = cast(step, DType::int64, "Cast");
  global_step_on_worker_ =
      add(step, g.constant(Tensor(static_cast<std::int64_t>(1)), "add/y"), "add");
}

Operation AdagradDAOptimizer::apply_dense(const Output& grad, const Variable& var) {
  Variable g_acc = get_slot(var, "gradient_accumulator");
  Variable gg_acc = get_slot(var, "gradient_squared_accumulator");
  Output step = identity(global_step_on_worker_, "Identity");
  return apply_either(var, apply_adagrad_da, resource_apply_adagrad_da, var.ref(), g_acc.ref(),
                      gg_acc.ref(), grad, cast_to(lr_t_, var), cast_to(l1_t_, var),
                      cast_to(l2_t_, var), step, use_locking_);
}

Operation AdagradDAOptimizer::apply_sparse(const IndexedSlices& grad, const Variable& var) {
  Variable g_acc = get_slot(var, "gradient_accumulator");
  Variable gg_acc = get_slot(var, "gradient_squared_accumulator");
  Output step = identity(global_step_on_worker_, "Identity");
  return apply_either(var, sparse_apply_adagrad_da, resource_sparse_apply_adagrad_da, var.ref(),
                      g_acc.ref(), gg_acc.ref(), grad.values, grad.indices, cast_to(lr_t_, var),
                      cast_to(l1_t_, var), cast_to(l2_t_, var), step, use_locking_);
}

}  // namespace af::train
