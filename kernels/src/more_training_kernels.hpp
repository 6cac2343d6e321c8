#pragma once

// What the CPU kernels of the update ops of more_training_layout.hpp share (private to the
// kernels module): their attributes, the binding of the variable and its slots under their
// locks, their validation, in the order and words of TensorFlow's training_ops.cc kernels, and
// the element updates of training_ops.cc's functors, term by term.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/more_training_layout.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "variable_inputs.hpp"

namespace af::detail::more_optimizer {

using Index = std::int64_t;

/// What a hyper-parameter must be besides a scalar (TensorFlow checks the value too for some).
enum class Req { any, positive, non_negative, non_positive };

/// One of a kernel's checks.
struct Check {
  enum What {
    same_shape,      ///< reference input `arg` has the variable's shape ("var and TEXT ...")
    grad_shape,      ///< the gradient has the variable's shape ("var and TEXT ...")
    scalar,          ///< `lay.scalars[arg]` (or, with arg -1, `global_step`) is a scalar
    rank,            ///< the variable is at least a vector
    indices_vector,  ///< `indices` is a vector
    grad_dims,       ///< the gradient's inner dimensions are the variable's
    grad_rows,       ///< the gradient has a row per index
    inner_positive,  ///< the variable's rows are not empty
  } what;
  int arg = 0;            ///< reference input or position in `lay.scalars`
  const char* text = "";  ///< the name or the message's start
  Req req = Req::any;     ///< scalar's requirement on the value
};

/// TensorFlow's `sgn`: 0 for 0, else -1 or 1.
template <class T>
inline T sgn(T x) {
  return x == T(0) ? T(0) : (x < T(0) ? T(-1) : T(1));
}

/// Runs `checks` on the bound values (`values[0]` the variable) and the kernel's inputs;
/// `grad` is the gradient's input index, `indices` the indices' (-1: dense).
template <class T>
Status run_checks(const OpKernelContext& ctx, const Layout& lay, const std::vector<Check>& checks,
                  const std::vector<Tensor*>& values, int indices) {
  const Shape& var = values[0]->shape();
  const Tensor& grad = ctx.input(lay.grad);
  for (const Check& c : checks) {
    switch (c.what) {
      case Check::same_shape: {
        const Shape& other = values[static_cast<std::size_t>(c.arg)]->shape();
        if (other != var)
          return invalid_argument(std::string("var and ") + c.text + " do not have the same shape" +
                                  var.to_string() + " " + other.to_string());
        break;
      }
      case Check::grad_shape:
        if (grad.shape() != var)
          return invalid_argument(std::string("var and ") + c.text + " do not have the same shape" +
                                  var.to_string() + " " + grad.shape().to_string());
        break;
      case Check::scalar: {
        const int input =
            c.arg < 0 ? lay.inputs - 1 : lay.scalars[static_cast<std::size_t>(c.arg)].first;
        const Tensor& t = ctx.input(input);
        bool ok = t.rank() == 0;
        // float16 and bfloat16 compared in float; the complex kinds (Adadelta, AdagradV2,
        // KerasMomentum) have no sign checks.
        if constexpr (!is_complex_v<T>) {
          if (ok && c.req != Req::any) {
            using C = std::conditional_t<is_half_like_v<T>, float, T>;
            const C v = static_cast<C>(t.data<T>()[0]);
            ok = c.req == Req::positive       ? v > C(0)
                 : c.req == Req::non_negative ? v >= C(0)
                                              : v <= C(0);
          }
        }
        if (!ok) return invalid_argument(std::string(c.text) + t.shape().to_string());
        break;
      }
      case Check::rank:
        if (var.rank() < 1) return invalid_argument("var must be at least 1 dimensional");
        break;
      case Check::indices_vector:
        if (ctx.input(indices).rank() != 1)
          return invalid_argument("indices must be one-dimensional");
        break;
      case Check::grad_dims:
        // TensorFlow reads grad.dim_size(d) for d < var.dims() only; a gradient of another
        // rank fails here at the first dimension that cannot match.
        if (grad.rank() != var.rank())
          return invalid_argument("var and grad must match in dimension " +
                                  std::to_string(std::min(var.rank(), std::max(grad.rank(), 1))));
        for (int d = 1; d < var.rank(); ++d)
          if (var.dim(d) != grad.shape().dim(d))
            return invalid_argument("var and grad must match in dimension " + std::to_string(d));
        break;
      case Check::grad_rows:
        if (grad.shape().dim(0) != ctx.input(indices).shape().dim(0))
          return invalid_argument("grad must be the same size as indices in the first dimension.");
        break;
      case Check::inner_positive: {
        Index inner = 1;
        for (int d = 1; d < var.rank(); ++d) inner *= var.dim(d);
        if (inner <= 0) return invalid_argument("Inner dimension should be greater than zero.");
        break;
      }
    }
  }
  return {};
}

/// The attributes and the path an update takes.
struct Flags {
  bool multiply_linear_by_lr = false;  ///< Ftrl's attr
  bool update_slots = true;            ///< AdagradV2's attr
  bool use_nesterov = false;           ///< KerasMomentum's attr
  bool sparse = false;                 ///< a SparseApply* row (Ftrl: the clamp form)
  bool scalar_path = false;            ///< a SparseApply* kernel's path for rows of one element
  std::int64_t global_step = 0;        ///< AdagradDA's input
};

/// The attributes of an update kernel (those its op lacks keep their defaults); `sparse` for
/// the SparseApply* kernels.
inline Flags read_flags(OpKernelConstruction& c, bool sparse) {
  Flags f;
  c.get_attr("multiply_linear_by_lr", &f.multiply_linear_by_lr);
  c.get_attr("update_slots", &f.update_slots);
  c.get_attr("use_nesterov", &f.use_nesterov);
  f.sparse = sparse;
  return f;
}

/// The hyper-parameters of `lay` (tensors of S), as T, in layout order; AdagradDA's
/// `global_step` into `f`.
template <class S, class T = S>
std::vector<T> read_scalars(const OpKernelContext& ctx, const Layout& lay, Kind k, Flags* f) {
  std::vector<T> scalars;
  for (auto [index, scalar_name] : lay.scalars)
    scalars.push_back(static_cast<T>(ctx.input(index).template data<S>()[0]));
  if (has_global_step(k)) f->global_step = ctx.input(lay.inputs - 1).data<std::int64_t>()[0];
  return scalars;
}

/// The bound values' data for writing: a buffer still shared with a read in flight is copied
/// first (copy on write); `d[i]` that of `values[i]`, null past them.
template <class T, std::size_t N>
void writable_data(std::vector<Tensor*>& values, T* (&d)[N]) {
  for (Tensor* v : values)
    if (!v->sole_owner()) *v = v->deep_copy();
  for (std::size_t i = 0; i < N; ++i)
    d[i] = i < values.size() ? values[i]->template data<T>() : nullptr;
}

/// An update kernel's compute: binds the variables behind the first `lay.refs` inputs
/// (resource handles with `resource`) and, under their locks, runs `checks` (`indices` the
/// indices' input, -1: dense) and then `update(values)`, which returns a Status; outputs the
/// variable's reference unless `resource`. The checks' failures, and any other failure that
/// is not InvalidArgument, get the node's name.
template <class T, class Update>
void compute_update(const OpKernel& op, OpKernelContext& ctx, const Layout& lay, bool resource,
                    const std::vector<Check>& checks, int indices, Update&& update) {
  std::vector<Var*> vars;
  Status in = variable_inputs(ctx, lay.refs, dtype_of<T>::value, resource, &vars);
  if (!in.ok()) return ctx.fail(in);
  Status s = update_together(vars, [&](std::vector<Tensor*>& values) {
    Status checked = run_checks<T>(ctx, lay, checks, values, indices);
    if (!checked.ok()) return checked.with_context(node_suffix(op.name()));
    return update(values);
  });
  if (!s.ok()) {
    if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(op.name()));
    return ctx.fail(s);
  }
  if (!resource) ctx.set_output(0, ctx.input(0));
}

/// The update of `n` elements: `d[0]` the variable's, `d[1]` to `d[3]` the slots' (already
/// offset to the row), `g` the gradient's, `s` the T hyper-parameters in layout order; the
/// functor of training_ops.cc (a SparseApply* kernel's row expression when `f.sparse`).
/// AdagradDA's sparse update is the sparse kernels' own.
template <Kind K, class T>
void update_span(T* const* d, const T* g, Index n, const std::vector<T>& s, const Flags& f) {
  // Unqualified, so that float16 and bfloat16 (HalfSteps) find their own.
  using std::abs;
  using std::exp;
  using std::pow;
  using std::sqrt;
  T* var = d[0];
  const T one(1);
  if constexpr (K == Kind::ftrl || K == Kind::ftrl_v2) {
    constexpr bool v2 = K == Kind::ftrl_v2;
    const T lr = s[0], l1 = s[1], l2 = s[2];
    const T shrink = v2 ? s[3] : T(0);
    const T lr_power = v2 ? s[4] : s[3];
    const bool half = lr_power == T(-0.5);
    const bool mult = f.multiply_linear_by_lr;
    T* accum = d[1];
    T* linear = d[2];
    for (Index i = 0; i < n; ++i) {
      const T gi = g[i], v = var[i], a = accum[i];
      const T gs = v2 ? gi + T(2) * shrink * v : gi;
      const T na = a + gi * gi;
      const T p = half ? sqrt(na) : pow(na, -lr_power);
      // The scalar path takes pow() for -0.5 too, and sums left to right.
      const T sigma =
          (half && !f.scalar_path) ? sqrt(na) - sqrt(a) : pow(na, -lr_power) - pow(a, -lr_power);
      T l;
      if (f.scalar_path)
        l = mult ? linear[i] + gs * lr - sigma * v : linear[i] + gs - sigma / lr * v;
      else
        l = mult ? linear[i] + (gs * lr - sigma * v) : linear[i] + (gs - sigma / lr * v);
      const T y = mult ? p + T(2) * l2 * lr : p / lr + T(2) * l2;
      const T limit = mult ? l1 * lr : l1;
      if (f.sparse)
        var[i] = (std::max(std::min(l, limit), -limit) - l) / y;
      else
        var[i] = abs(l) > limit ? (limit * sgn(l) - l) / y : T(0);
      linear[i] = l;
      accum[i] = na;
    }
  } else if constexpr (K == Kind::adadelta) {
    const T lr = s[0], rho = s[1], eps = s[2];
    T* accum = d[1];
    T* accum_update = d[2];
    for (Index i = 0; i < n; ++i) {
      const T gi = g[i];
      const T a = accum[i] * rho + gi * gi * (one - rho);
      accum[i] = a;
      const T au = accum_update[i];
      const T update = sqrt(au + eps) * (one / sqrt(a + eps)) * gi;
      var[i] -= update * lr;
      accum_update[i] = au * rho + update * update * (one - rho);
    }
  } else if constexpr (K == Kind::proximal_gradient_descent || K == Kind::proximal_adagrad) {
    constexpr bool adagrad = K == Kind::proximal_adagrad;
    const T lr = s[0], l1 = s[1], l2 = s[2];
    for (Index i = 0; i < n; ++i) {
      const T gi = g[i];
      T rate = lr;
      if constexpr (adagrad) {
        const T a = d[1][i] + gi * gi;
        d[1][i] = a;
        rate = f.scalar_path ? lr / sqrt(a) : lr * (one / sqrt(a));
      }
      const T prox = var[i] - gi * rate;
      const T num = l1 > T(0) ? sgn(prox) * std::max(abs(prox) - rate * l1, T(0)) : prox;
      if (f.scalar_path)  // `(1.0 + l2 * lr)`: a double denominator
        var[i] = static_cast<T>(static_cast<double>(num) / (1.0 + static_cast<double>(l2 * rate)));
      else
        var[i] = num / (one + l2 * rate);
    }
  } else if constexpr (K == Kind::adagrad_da) {
    const T lr = s[0], l1 = s[1], l2 = s[2];
    const T gs = static_cast<T>(static_cast<float>(f.global_step));
    T* ga = d[1];
    T* gg = d[2];
    for (Index i = 0; i < n; ++i) {
      ga[i] += g[i];
      gg[i] += g[i] * g[i];
      const T denom = l2 * (gs * lr) + sqrt(gg[i]);
      if (l1 > T(0))
        var[i] = lr * T(-1) * sgn(ga[i]) * std::max(abs(ga[i]) - gs * l1, T(0)) / denom;
      else
        var[i] = lr * ga[i] * T(-1) / denom;
    }
  } else if constexpr (K == Kind::adagrad_v2) {
    const T lr = s[0], eps = s[1];
    T* accum = d[1];
    for (Index i = 0; i < n; ++i) {
      if (f.update_slots) accum[i] += g[i] * g[i];
      var[i] -= g[i] * lr / (sqrt(accum[i]) + eps);
    }
  } else if constexpr (K == Kind::ada_max) {
    const T beta1_power = s[0], lr = s[1], beta1 = s[2], beta2 = s[3], eps = s[4];
    const T rate = lr / (one - beta1_power);
    T* m = d[1];
    T* v = d[2];
    for (Index i = 0; i < n; ++i) {
      m[i] += (g[i] - m[i]) * (one - beta1);
      v[i] = std::max(beta2 * v[i], abs(g[i]));
      var[i] -= rate * (m[i] / (v[i] + eps));
    }
  } else if constexpr (K == Kind::add_sign || K == Kind::power_sign) {
    const T lr = s[0], base = s[1], sign_decay = s[2], beta = s[3];
    T* m = d[1];
    for (Index i = 0; i < n; ++i) {
      m[i] = m[i] * beta + g[i] * (one - beta);
      const T sign_gm = sgn(g[i]) * sgn(m[i]);
      if constexpr (K == Kind::add_sign)
        var[i] -= lr * (base + sign_decay * sign_gm) * g[i];
      else
        var[i] -= lr * exp(base * sign_decay * sign_gm) * g[i];
    }
  } else if constexpr (K == Kind::adam_with_amsgrad) {
    const T beta1_power = s[0], beta2_power = s[1], lr = s[2], beta1 = s[3], beta2 = s[4],
            eps = s[5];
    const T alpha = lr * sqrt(one - beta2_power) / (one - beta1_power);
    T* m = d[1];
    T* v = d[2];
    T* vhat = d[3];
    for (Index i = 0; i < n; ++i) {
      m[i] += (g[i] - m[i]) * (one - beta1);
      v[i] += (g[i] * g[i] - v[i]) * (one - beta2);
      vhat[i] = std::max(vhat[i], v[i]);
      var[i] -= (m[i] * alpha) / (sqrt(vhat[i]) + eps);
    }
  } else {  // KerasMomentum
    const T lr = s[0], momentum = s[1];
    T* accum = d[1];
    for (Index i = 0; i < n; ++i) {
      accum[i] = accum[i] * momentum - g[i] * lr;
      if (f.use_nesterov)
        var[i] += accum[i] * momentum - g[i] * lr;
      else
        var[i] += accum[i];
    }
  }
}

}  // namespace af::detail::more_optimizer
