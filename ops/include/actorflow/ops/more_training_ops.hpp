#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// More of the optimizers' update ops (TensorFlow's `gen_training_ops`): Ftrl, FtrlV2,
/// Adadelta, ProximalAdagrad, ProximalGradientDescent, AdagradDA, AdagradV2, AdaMax, AddSign,
/// PowerSign and KerasMomentum. As the ops of training_ops.hpp: the variable and its slots by
/// reference (`Variable::ref()`), the hyper-parameters as scalars of the variable's dtype
/// (float32 or float64; AdagradDA's `global_step` an int64 scalar), the gradient of the
/// variable's shape; running one updates the variable and slots under their locks and outputs
/// the variable's reference. The Resource* builders take handles and return the op (no
/// outputs); the Sparse* builders take `grad` rows (`[N] + var.shape[1:]`) and an int32/int64
/// vector `indices`, update the named rows in order (a row named twice twice) and leave the
/// others. Running one fails as TensorFlow's kernel does, with FailedPrecondition
/// "Attempting to use uninitialized value NAME" (Resource*: Internal "Invalid variable
/// reference."), InvalidArgument "var and accum do not have the same shape[3] [2]", "lr is
/// not a scalar: [2]", "lr is not a positive scalar: []" (Sparse Ftrl, ProximalAdagrad),
/// "var must be at least 1 dimensional", "indices must be one-dimensional", "var and grad
/// must match in dimension 1", "grad must be the same size as indices in the first
/// dimension.", "Inner dimension should be greater than zero." or "Index 7 at offset 1 in
/// indices is out of range" (KerasMomentum: "indices[1] = 7 is not in [0, 3)"). `use_locking`
/// is accepted for compatibility: updates always lock.
namespace af {

/// Op ApplyFtrl: `new_accum = accum + grad^2`; `linear += grad - (new_accum^-lr_power -
/// accum^-lr_power) / lr * var` (with `multiply_linear_by_lr`: `grad * lr - (...) * var`);
/// `var = |linear| > l1 ? (l1 * sign(linear) - linear) / (new_accum^-lr_power / lr + 2 * l2)
/// : 0` (l1 and the denominator times lr with `multiply_linear_by_lr`); `accum = new_accum`.
/// `lr_power == -0.5` takes square roots.
Output apply_ftrl(const Output& var, const Output& accum, const Output& linear, const Output& grad,
                  const Output& lr, const Output& l1, const Output& l2, const Output& lr_power,
                  bool use_locking = false, bool multiply_linear_by_lr = false,
                  std::string_view name = {});
/// Op ApplyFtrlV2: ApplyFtrl with `grad + 2 * l2_shrinkage * var` in place of `grad` in the
/// update of `linear`.
Output apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                     const Output& grad, const Output& lr, const Output& l1, const Output& l2,
                     const Output& l2_shrinkage, const Output& lr_power, bool use_locking = false,
                     bool multiply_linear_by_lr = false, std::string_view name = {});
/// Op ApplyAdadelta: `accum = accum * rho + grad^2 * (1 - rho)`; `update = sqrt(accum_update
/// + epsilon) * rsqrt(accum + epsilon) * grad`; `var -= update * lr`; `accum_update =
/// accum_update * rho + update^2 * (1 - rho)`.
Output apply_adadelta(const Output& var, const Output& accum, const Output& accum_update,
                      const Output& lr, const Output& rho, const Output& epsilon,
                      const Output& grad, bool use_locking = false, std::string_view name = {});
/// Op ApplyProximalAdagrad: `accum += grad^2`; `rate = lr * rsqrt(accum)`; `prox = var - grad *
/// rate`; `var = sign(prox) * max(|prox| - rate * l1, 0) / (1 + l2 * rate)` (l1 > 0; else
/// `prox / (1 + l2 * rate)`). Fails with "lr is not a positive scalar: []" for lr <= 0 and
/// "l1 regularization strength is not a non-negative scalar: []" for l1 (l2) < 0.
Output apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                              const Output& l1, const Output& l2, const Output& grad,
                              bool use_locking = false, std::string_view name = {});
/// Op ApplyProximalGradientDescent: ApplyProximalAdagrad's proximal step with `rate = alpha`
/// and no accumulator; `delta` is the gradient.
Output apply_proximal_gradient_descent(const Output& var, const Output& alpha, const Output& l1,
                                       const Output& l2, const Output& delta,
                                       bool use_locking = false, std::string_view name = {});
/// Op ApplyAdagradDA: `gradient_accumulator += grad`; `gradient_squared_accumulator +=
/// grad^2`; `var = -lr * sign(g) * max(|g| - global_step * l1, 0) / (l2 * global_step * lr +
/// sqrt(gg))` (l1 > 0; else `-lr * g / (...)`), g and gg the accumulators.
Output apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                        const Output& gradient_squared_accumulator, const Output& grad,
                        const Output& lr, const Output& l1, const Output& l2,
                        const Output& global_step, bool use_locking = false,
                        std::string_view name = {});
/// Op ApplyAdagradV2: `accum += grad^2` (when `update_slots`); `var -= grad * lr /
/// (sqrt(accum) + epsilon)`.
Output apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                        const Output& epsilon, const Output& grad, bool use_locking = false,
                        bool update_slots = true, std::string_view name = {});
/// Op ApplyAdaMax: `m += (grad - m) * (1 - beta1)`; `v = max(beta2 * v, |grad|)`; `var -= lr /
/// (1 - beta1_power) * (m / (v + epsilon))`.
Output apply_ada_max(const Output& var, const Output& m, const Output& v, const Output& beta1_power,
                     const Output& lr, const Output& beta1, const Output& beta2,
                     const Output& epsilon, const Output& grad, bool use_locking = false,
                     std::string_view name = {});
/// Op ApplyAddSign: `m = m * beta + grad * (1 - beta)`; `var -= lr * (alpha + sign_decay *
/// sign(grad) * sign(m)) * grad`.
Output apply_add_sign(const Output& var, const Output& m, const Output& lr, const Output& alpha,
                      const Output& sign_decay, const Output& beta, const Output& grad,
                      bool use_locking = false, std::string_view name = {});
/// Op ApplyPowerSign: `m` as ApplyAddSign; `var -= lr * exp(logbase * sign_decay * sign(grad)
/// * sign(m)) * grad`.
Output apply_power_sign(const Output& var, const Output& m, const Output& lr, const Output& logbase,
                        const Output& sign_decay, const Output& beta, const Output& grad,
                        bool use_locking = false, std::string_view name = {});

/// Op SparseApplyFtrl (ApplyFtrl per named row). Fails also with "lr is not a positive
/// scalar: []", "l1 regularization strength is not a non-negative scalar: []" and "lr_power
/// is not a non-positive scalar: []".
Output sparse_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                         const Output& grad, const Output& indices, const Output& lr,
                         const Output& l1, const Output& l2, const Output& lr_power,
                         bool use_locking = false, bool multiply_linear_by_lr = false,
                         std::string_view name = {});
/// Op SparseApplyFtrlV2 (ApplyFtrlV2 per named row).
Output sparse_apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                            const Output& grad, const Output& indices, const Output& lr,
                            const Output& l1, const Output& l2, const Output& l2_shrinkage,
                            const Output& lr_power, bool use_locking = false,
                            bool multiply_linear_by_lr = false, std::string_view name = {});
/// Op SparseApplyAdadelta (ApplyAdadelta per named row; "var and accum_grad do not have the
/// same shape...").
Output sparse_apply_adadelta(const Output& var, const Output& accum, const Output& accum_update,
                             const Output& lr, const Output& rho, const Output& epsilon,
                             const Output& grad, const Output& indices, bool use_locking = false,
                             std::string_view name = {});
/// Op SparseApplyProximalAdagrad (ApplyProximalAdagrad per named row).
Output sparse_apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                                     const Output& l1, const Output& l2, const Output& grad,
                                     const Output& indices, bool use_locking = false,
                                     std::string_view name = {});
/// Op SparseApplyProximalGradientDescent (ApplyProximalGradientDescent per named row).
Output sparse_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                              const Output& l1, const Output& l2,
                                              const Output& grad, const Output& indices,
                                              bool use_locking = false, std::string_view name = {});
/// Op SparseApplyAdagradDA (ApplyAdagradDA per named row).
Output sparse_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                               const Output& gradient_squared_accumulator, const Output& grad,
                               const Output& indices, const Output& lr, const Output& l1,
                               const Output& l2, const Output& global_step,
                               bool use_locking = false, std::string_view name = {});
/// Op SparseApplyAdagradV2 (ApplyAdagradV2 per named row).
Output sparse_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                               const Output& epsilon, const Output& grad, const Output& indices,
                               bool use_locking = false, bool update_slots = true,
                               std::string_view name = {});

/// Op ResourceApplyFtrl.
Operation resource_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                              const Output& grad, const Output& lr, const Output& l1,
                              const Output& l2, const Output& lr_power, bool use_locking = false,
                              bool multiply_linear_by_lr = false, std::string_view name = {});
/// Op ResourceApplyFtrlV2.
Operation resource_apply_ftrl_v2(const Output& var, const Output& accum, const Output& linear,
                                 const Output& grad, const Output& lr, const Output& l1,
                                 const Output& l2, const Output& l2_shrinkage,
                                 const Output& lr_power, bool use_locking = false,
                                 bool multiply_linear_by_lr = false, std::string_view name = {});
/// Op ResourceApplyAdadelta.
Operation resource_apply_adadelta(const Output& var, const Output& accum,
                                  const Output& accum_update, const Output& lr, const Output& rho,
                                  const Output& epsilon, const Output& grad,
                                  bool use_locking = false, std::string_view name = {});
/// Op ResourceApplyProximalAdagrad.
Operation resource_apply_proximal_adagrad(const Output& var, const Output& accum, const Output& lr,
                                          const Output& l1, const Output& l2, const Output& grad,
                                          bool use_locking = false, std::string_view name = {});
/// Op ResourceApplyProximalGradientDescent.
Operation resource_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                                   const Output& l1, const Output& l2,
                                                   const Output& delta, bool use_locking = false,
                                                   std::string_view name = {});
/// Op ResourceApplyAdagradDA.
Operation resource_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                                    const Output& gradient_squared_accumulator, const Output& grad,
                                    const Output& lr, const Output& l1, const Output& l2,
                                    const Output& global_step, bool use_locking = false,
                                    std::string_view name = {});
/// Op ResourceApplyAdagradV2.
Operation resource_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                                    const Output& epsilon, const Output& grad,
                                    bool use_locking = false, bool update_slots = true,
                                    std::string_view name = {});
/// Op ResourceApplyAdaMax.
Operation resource_apply_ada_max(const Output& var, const Output& m, const Output& v,
                                 const Output& beta1_power, const Output& lr, const Output& beta1,
                                 const Output& beta2, const Output& epsilon, const Output& grad,
                                 bool use_locking = false, std::string_view name = {});
/// Op ResourceApplyAddSign.
Operation resource_apply_add_sign(const Output& var, const Output& m, const Output& lr,
                                  const Output& alpha, const Output& sign_decay, const Output& beta,
                                  const Output& grad, bool use_locking = false,
                                  std::string_view name = {});
/// Op ResourceApplyPowerSign.
Operation resource_apply_power_sign(const Output& var, const Output& m, const Output& lr,
                                    const Output& logbase, const Output& sign_decay,
                                    const Output& beta, const Output& grad,
                                    bool use_locking = false, std::string_view name = {});
/// Op ResourceApplyKerasMomentum (Keras' SGD): `accum = accum * momentum - grad * lr`; `var +=
/// accum` (Nesterov: `var += accum * momentum - grad * lr`). No ref-variable form (as in
/// TensorFlow).
Operation resource_apply_keras_momentum(const Output& var, const Output& accum, const Output& lr,
                                        const Output& grad, const Output& momentum,
                                        bool use_locking = false, bool use_nesterov = false,
                                        std::string_view name = {});
/// Op ResourceApplyAdamWithAmsgrad (Keras' Adam with `amsgrad=True`): Adam's `m` and `v`
/// updates, `vhat = max(vhat, v)`, `var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) *
/// m / (sqrt(vhat) + epsilon)`. No ref-variable or sparse form (as in TensorFlow).
Operation resource_apply_adam_with_amsgrad(const Output& var, const Output& m, const Output& v,
                                           const Output& vhat, const Output& beta1_power,
                                           const Output& beta2_power, const Output& lr,
                                           const Output& beta1, const Output& beta2,
                                           const Output& epsilon, const Output& grad,
                                           bool use_locking = false, std::string_view name = {});
/// Op ResourceSparseApplyFtrl.
Operation resource_sparse_apply_ftrl(const Output& var, const Output& accum, const Output& linear,
                                     const Output& grad, const Output& indices, const Output& lr,
                                     const Output& l1, const Output& l2, const Output& lr_power,
                                     bool use_locking = false, bool multiply_linear_by_lr = false,
                                     std::string_view name = {});
/// Op ResourceSparseApplyFtrlV2.
Operation resource_sparse_apply_ftrl_v2(const Output& var, const Output& accum,
                                        const Output& linear, const Output& grad,
                                        const Output& indices, const Output& lr, const Output& l1,
                                        const Output& l2, const Output& l2_shrinkage,
                                        const Output& lr_power, bool use_locking = false,
                                        bool multiply_linear_by_lr = false,
                                        std::string_view name = {});
/// Op ResourceSparseApplyAdadelta.
Operation resource_sparse_apply_adadelta(const Output& var, const Output& accum,
                                         const Output& accum_update, const Output& lr,
                                         const Output& rho, const Output& epsilon,
                                         const Output& grad, const Output& indices,
                                         bool use_locking = false, std::string_view name = {});
/// Op ResourceSparseApplyProximalAdagrad.
Operation resource_sparse_apply_proximal_adagrad(const Output& var, const Output& accum,
                                                 const Output& lr, const Output& l1,
                                                 const Output& l2, const Output& grad,
                                                 const Output& indices, bool use_locking = false,
                                                 std::string_view name = {});
/// Op ResourceSparseApplyProximalGradientDescent.
Operation resource_sparse_apply_proximal_gradient_descent(const Output& var, const Output& alpha,
                                                          const Output& l1, const Output& l2,
                                                          const Output& grad, const Output& indices,
                                                          bool use_locking = false,
                                                          std::string_view name = {});
/// Op ResourceSparseApplyAdagradDA.
Operation resource_sparse_apply_adagrad_da(const Output& var, const Output& gradient_accumulator,
                                           const Output& gradient_squared_accumulator,
                                           const Output& grad, const Output& indices,
                                           const Output& lr, const Output& l1, const Output& l2,
                                           const Output& global_step, bool use_locking = false,
                                           std::string_view name = {});
/// Op ResourceSparseApplyAdagradV2.
Operation resource_sparse_apply_adagrad_v2(const Output& var, const Output& accum, const Output& lr,
                                           const Output& epsilon, const Output& grad,
                                           const Output& indices, bool use_locking = false,
                                           bool update_slots = true, std::string_view name = {});
/// Op ResourceSparseApplyKerasMomentum (ResourceApplyKerasMomentum per named row; an index
/// out of range fails with "indices[1] = 7 is not in [0, 3)" after the rows before it).
Operation resource_sparse_apply_keras_momentum(const Output& var, const Output& accum,
                                               const Output& lr, const Output& grad,
                                               const Output& indices, const Output& momentum,
                                               bool use_locking = false, bool use_nesterov = false,
                                               std::string_view name = {});

}  // namespace af
