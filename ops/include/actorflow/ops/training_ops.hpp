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

}  // namespace af
