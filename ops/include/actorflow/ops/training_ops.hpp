#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// The optimizers' update ops (TensorFlow's `gen_training_ops`). Each takes the variable and
/// its slots as reference outputs (`Variable::ref()`), the hyper-parameters as scalars of the
/// variable's dtype (float32 or float64) and the gradient of the variable's shape; running it
/// updates the variable and slots under their locks and outputs the variable's reference.
/// Running one on an uninitialized variable or slot fails with FailedPrecondition "Attempting
/// to use uninitialized value <name>"; shapes that differ fail with InvalidArgument "var and
/// grad do not have the same shape[..] [..]"; a non-scalar hyper-parameter with
/// InvalidArgument "<name> is not a scalar: [..]". `use_locking` is accepted for
/// compatibility: updates always lock, so concurrent updates never interleave within a
/// variable.
namespace af {

/// Op ApplyGradientDescent: `var -= delta * alpha`.
Output apply_gradient_descent(const Output& var, const Output& alpha, const Output& delta,
                              bool use_locking = false, std::string_view name = {});

/// Op ApplyMomentum: `accum = accum * momentum + grad`, then `var -= accum * lr`, or with
/// Nesterov `var -= grad * lr + accum * momentum * lr`.
Output apply_momentum(const Output& var, const Output& accum, const Output& lr, const Output& grad,
                      const Output& momentum, bool use_locking = false, bool use_nesterov = false,
                      std::string_view name = {});

/// Op ApplyAdagrad: `accum += grad^2` (when `update_slots`), `var -= grad * lr * rsqrt(accum)`.
Output apply_adagrad(const Output& var, const Output& accum, const Output& lr, const Output& grad,
                     bool use_locking = false, bool update_slots = true,
                     std::string_view name = {});

/// Op ApplyRMSProp: `ms += (grad^2 - ms) * (1 - rho)`, `mom = mom * momentum + grad * lr /
/// sqrt(ms + epsilon)`, `var -= mom`.
Output apply_rms_prop(const Output& var, const Output& ms, const Output& mom, const Output& lr,
                      const Output& rho, const Output& momentum, const Output& epsilon,
                      const Output& grad, bool use_locking = false, std::string_view name = {});

/// Op ApplyCenteredRMSProp: as ApplyRMSProp with `mg += (grad - mg) * (1 - rho)` and the
/// denominator `sqrt(ms - mg^2 + epsilon)`.
Output apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                               const Output& mom, const Output& lr, const Output& rho,
                               const Output& momentum, const Output& epsilon, const Output& grad,
                               bool use_locking = false, std::string_view name = {});

/// Op ApplyAdam: `alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`,
/// `m += (grad - m) * (1 - beta1)`, `v += (grad^2 - v) * (1 - beta2)`,
/// `var -= m * alpha / (sqrt(v) + epsilon)` (Nesterov: `(grad * (1 - beta1) + beta1 * m)`
/// in place of `m`).
Output apply_adam(const Output& var, const Output& m, const Output& v, const Output& beta1_power,
                  const Output& beta2_power, const Output& lr, const Output& beta1,
                  const Output& beta2, const Output& epsilon, const Output& grad,
                  bool use_locking = false, bool use_nesterov = false, std::string_view name = {});

/// The sparse updates (`SparseApply*`): as the dense ops, on the rows of the variable and its
/// slots that `indices` (an int32 or int64 vector) names; `grad` holds one row per index
/// (shape `[N] + var.shape[1:]`). Rows named twice are updated twice, in order (the
/// optimizers sum duplicates first); rows not named keep their values and slots. Running one
/// fails with FailedPrecondition "Attempting to use uninitialized value NAME", and with
/// InvalidArgument "var and accum do not have the same shape[3,2] [4,2]", "var must be at
/// least 1 dimensional", "lr is not a scalar: [1]" (Momentum: "lr is not a scalar : [1]"),
/// "indices must be one-dimensional", "var and grad must match in dimension 1", "grad must be
/// the same size as indices in the first dimension." or "Index 7 at offset 1 in indices is
/// out of range". Momentum checks an index when it reaches it (the rows before it are
/// updated); Adagrad and RMSProp check them all first, as TensorFlow's kernels do.

/// Op SparseApplyMomentum: per named row, `accum = accum * momentum + grad`, `var -= accum *
/// lr` (Nesterov: `var -= grad * lr + accum * lr * momentum`).
Output sparse_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                             const Output& grad, const Output& indices, const Output& momentum,
                             bool use_locking = false, bool use_nesterov = false,
                             std::string_view name = {});

/// Op SparseApplyAdagrad: per named row, `accum += grad^2` (when `update_slots`), `var -=
/// grad * lr * rsqrt(accum)`.
Output sparse_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                            const Output& grad, const Output& indices, bool use_locking = false,
                            bool update_slots = true, std::string_view name = {});

/// Op SparseApplyRMSProp: per named row, `ms = ms * rho + grad^2 * (1 - rho)`, `mom = mom *
/// momentum + rsqrt(ms + epsilon) * lr * grad`, `var -= mom`.
Output sparse_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                             const Output& lr, const Output& rho, const Output& momentum,
                             const Output& epsilon, const Output& grad, const Output& indices,
                             bool use_locking = false, std::string_view name = {});

/// Op SparseApplyCenteredRMSProp: as SparseApplyRMSProp with `mg = mg * rho + grad * (1 -
/// rho)` and the denominator `rsqrt(ms + epsilon - mg^2)`.
Output sparse_apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                                      const Output& mom, const Output& lr, const Output& rho,
                                      const Output& momentum, const Output& epsilon,
                                      const Output& grad, const Output& indices,
                                      bool use_locking = false, std::string_view name = {});

/// The resource variables' twins (`ResourceApply*`, `ResourceSparseApply*`, as TensorFlow's
/// optimizers build them for `use_resource` variables): the variable and its slots given by
/// their handles (a VarHandleOp's output, `Variable::ref()` of a resource variable), the
/// other inputs and the semantics as above, T the hyper-parameters' dtype; no outputs. Each
/// is built colocated with the variable (its handle's consumers are). Running one fails as
/// its twin does, and with Internal "Invalid variable reference." when a variable or slot was
/// never assigned, InvalidArgument "Trying to access resource NAME as double but it holds
/// float" when a handle's dtype is not T.

/// Op ResourceApplyGradientDescent.
Operation resource_apply_gradient_descent(const Output& var, const Output& alpha,
                                          const Output& delta, bool use_locking = false,
                                          std::string_view name = {});
/// Op ResourceApplyMomentum.
Operation resource_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                                  const Output& grad, const Output& momentum,
                                  bool use_locking = false, bool use_nesterov = false,
                                  std::string_view name = {});
/// Op ResourceApplyAdagrad.
Operation resource_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                                 const Output& grad, bool use_locking = false,
                                 bool update_slots = true, std::string_view name = {});
/// Op ResourceApplyRMSProp.
Operation resource_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                                  const Output& lr, const Output& rho, const Output& momentum,
                                  const Output& epsilon, const Output& grad,
                                  bool use_locking = false, std::string_view name = {});
/// Op ResourceApplyCenteredRMSProp.
Operation resource_apply_centered_rms_prop(const Output& var, const Output& mg, const Output& ms,
                                           const Output& mom, const Output& lr, const Output& rho,
                                           const Output& momentum, const Output& epsilon,
                                           const Output& grad, bool use_locking = false,
                                           std::string_view name = {});
/// Op ResourceApplyAdam.
Operation resource_apply_adam(const Output& var, const Output& m, const Output& v,
                              const Output& beta1_power, const Output& beta2_power,
                              const Output& lr, const Output& beta1, const Output& beta2,
                              const Output& epsilon, const Output& grad, bool use_locking = false,
                              bool use_nesterov = false, std::string_view name = {});
/// Op ResourceSparseApplyMomentum.
Operation resource_sparse_apply_momentum(const Output& var, const Output& accum, const Output& lr,
                                         const Output& grad, const Output& indices,
                                         const Output& momentum, bool use_locking = false,
                                         bool use_nesterov = false, std::string_view name = {});
/// Op ResourceSparseApplyAdagrad.
Operation resource_sparse_apply_adagrad(const Output& var, const Output& accum, const Output& lr,
                                        const Output& grad, const Output& indices,
                                        bool use_locking = false, bool update_slots = true,
                                        std::string_view name = {});
/// Op ResourceSparseApplyRMSProp.
Operation resource_sparse_apply_rms_prop(const Output& var, const Output& ms, const Output& mom,
                                         const Output& lr, const Output& rho,
                                         const Output& momentum, const Output& epsilon,
                                         const Output& grad, const Output& indices,
                                         bool use_locking = false, std::string_view name = {});
/// Op ResourceSparseApplyCenteredRMSProp.
Operation resource_sparse_apply_centered_rms_prop(
    const Output& var, const Output& mg, const Output& ms, const Output& mom, const Output& lr,
    const Output& rho, const Output& momentum, const Output& epsilon, const Output& grad,
    const Output& indices, bool use_locking = false, std::string_view name = {});

}  // namespace af
