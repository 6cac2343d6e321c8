// The CPU kernels of the dense update ops of TensorFlow 1.x's training_ops.cc that
// training_ops.cpp does not cover: ApplyFtrl, ApplyFtrlV2, ApplyAdadelta,
// ApplyProximalAdagrad, ApplyProximalGradientDescent, ApplyAdagradDA, ApplyAdagradV2,
// ApplyAdaMax, ApplyAddSign, ApplyPowerSign, their ResourceApply* twins and
// ResourceApplyKerasMomentum. As the other Apply* kernels, each updates the variable and its
// slots under their locks (whatever `use_locking` says) and outputs the variable's reference
// (the Resource* twins output nothing). The checks come in the order and words of
// training_ops.cc; the arithmetic is its functors' (more_training_kernels.hpp). The ops'
// definitions are in ops/src/defs/more_training_ops.cpp.
//
// A buffer still shared with a read in flight is copied before it is written (copy on
// write); otherwise the update is in place.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/more_training_layout.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "more_training_kernels.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using detail::node_suffix;
using detail::more_optimizer::Check;
using detail::more_optimizer::Flags;
using detail::more_optimizer::Index;
using detail::more_optimizer::Kind;
using detail::more_optimizer::Layout;
using detail::more_optimizer::layout_of;
using detail::more_optimizer::Req;

// training_ops.cc's checks of each dense kernel, in its order. ApplyAdadelta does not check
// accum_update's shape (a mismatch reads out of bounds there); here it is checked last.
std::vector<Check> dense_checks(Kind k) {
  using C = Check;
  const C l1{C::scalar, 1, "l1 regularization strength is not a scalar: "};
  const C l2{C::scalar, 2, "l2 regularization strength is not a scalar: "};
  switch (k) {
    case Kind::ftrl:
    case Kind::ftrl_v2: {
      std::vector<C> out = {{C::same_shape, 1, "accum"},
                            {C::same_shape, 2, "linear"},
                            {C::grad_shape, 0, "grad"},
                            {C::scalar, 0, "lr is not a scalar: "},
                            l1,
                            l2,
                            {C::scalar, k == Kind::ftrl ? 3 : 4, "lr_power is not a scalar"}};
      if (k == Kind::ftrl_v2)
        out.push_back({C::scalar, 3, "l2 shrinkage regularization strength is not a scalar: "});
      return out;
    }
    case Kind::adadelta:
      return {{C::scalar, 0, "lr is not a scalar: "},
              {C::scalar, 1, "rho is not a scalar: "},
              {C::scalar, 2, "epsilon is not a scalar: "},
              {C::same_shape, 1, "accum"},
              {C::grad_shape, 0, "grad"},
              {C::same_shape, 2, "accum_update"}};
    case Kind::proximal_adagrad:
      return {{C::same_shape, 1, "accum"},
              {C::scalar, 0, "lr is not a positive scalar: ", Req::positive},
              {C::scalar, 1,
               "l1 regularization strength is not a non-negative scalar: ", Req::non_negative},
              {C::scalar, 2,
               "l2 regularization strength is not a non-negative scalar: ", Req::non_negative},
              {C::grad_shape, 0, "grad"}};
    case Kind::proximal_gradient_descent:
      return {{C::scalar, 0, "alpha is not a scalar: "}, l1, l2, {C::grad_shape, 0, "delta"}};
    case Kind::adagrad_da:
      return {{C::same_shape, 1, "accum"},
              {C::same_shape, 2, "accum"},
              {C::grad_shape, 0, "grad"},
              {C::scalar, 0, "lr is not a scalar: "},
              l1,
              l2,
              {C::scalar, -1, "global_step is not a scalar: "}};
    case Kind::adagrad_v2:
      return {{C::scalar, 0, "lr is not a scalar: "},
              {C::scalar, 1, "epsilon is not a scalar: "},
              {C::same_shape, 1, "accum"},
              {C::grad_shape, 0, "grad"}};
    case Kind::ada_max:
      return {{C::scalar, 0, "beta1_power is not a scalar: "},
              {C::scalar, 1, "lr is not a scalar : "},
              {C::scalar, 2, "beta1 is not a scalar: "},
              {C::scalar, 3, "beta2 is not a scalar: "},
              {C::scalar, 4, "epsilon is not a scalar: "},
              {C::same_shape, 1, "m"},
              {C::same_shape, 2, "v"},
              {C::grad_shape, 0, "grad"}};
    case Kind::add_sign:
    case Kind::power_sign:
      // TensorFlow tests alpha's (logbase's) shape for sign_decay, then reads sign_decay as
      // a scalar; here sign_decay's own shape is checked.
      return {{C::scalar, 0, "lr is not a scalar: "},
              {C::scalar, 1,
               k == Kind::add_sign ? "alpha is not a scalar: " : "logbase is not a scalar: "},
              {C::scalar, 2, "sign_decay is not a scalar: "},
              {C::scalar, 3, "beta is not a scalar: "},
              {C::same_shape, 1, "m"},
              {C::grad_shape, 0, "grad"}};
    case Kind::keras_momentum:
      return {{C::scalar, 0, "lr is not a scalar: "},
              {C::same_shape, 1, "accum"},
              {C::grad_shape, 0, "grad"},
              {C::scalar, 1, "momentum is not a scalar: "}};
  }
  return {};
}

template <Kind K, class T, bool Resource>
class MoreApplyOp : public OpKernel {
 public:
  MoreApplyOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("multiply_linear_by_lr", &flags_.multiply_linear_by_lr);
    c.get_attr("update_slots", &flags_.update_slots);
    c.get_attr("use_nesterov", &flags_.use_nesterov);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(layout_of(K).grad).num_elements() > 64 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    const Layout lay = layout_of(K);
    std::vector<Var*> vars;
    Status in = detail::variable_inputs(ctx, lay.refs, dtype_of<T>::value, Resource, &vars);
    if (!in.ok()) return ctx.fail(in);
    Status s = update_together(vars, [&](std::vector<Tensor*>& values) {
      Status checked = detail::more_optimizer::run_checks<T>(ctx, lay, checks_, values, -1);
      if (!checked.ok()) return checked.with_context(node_suffix(name()));
      update(ctx, lay, values);
      return Status{};
    });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
    if (!Resource) ctx.set_output(0, ctx.input(0));
  }

 private:
  void update(const OpKernelContext& ctx, const Layout& lay, std::vector<Tensor*>& values) const {
    std::vector<T> scalars;
    for (auto [index, scalar_name] : lay.scalars)
      scalars.push_back(ctx.input(index).template data<T>()[0]);
    Flags f = flags_;
    if (detail::more_optimizer::has_global_step(K))
      f.global_step = ctx.input(lay.inputs - 1).data<std::int64_t>()[0];
    for (Tensor* v : values)
      if (!v->sole_owner()) *v = v->deep_copy();
    T* d[3] = {nullptr, nullptr, nullptr};
    for (std::size_t i = 0; i < values.size() && i < 3; ++i) d[i] = values[i]->template data<T>();
    const Tensor& grad = ctx.input(lay.grad);
    detail::more_optimizer::update_span<K, T>(d, grad.data<T>(), grad.num_elements(), scalars, f);
  }

  const std::vector<Check> checks_ = dense_checks(K);
  Flags flags_;
};

template <Kind K>
void register_apply(KernelRegistry& r, const char* type, bool ref_form = true) {
  const std::string resource = std::string("Resource") + type;
  if (ref_form) {
    r.add(make_kernel_def<MoreApplyOp<K, float, false>>(type, "CPU", {{"T", {DType::float32}}}));
    r.add(make_kernel_def<MoreApplyOp<K, double, false>>(type, "CPU", {{"T", {DType::float64}}}));
  }
  r.add(make_kernel_def<MoreApplyOp<K, float, true>>(resource, "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<MoreApplyOp<K, double, true>>(resource, "CPU", {{"T", {DType::float64}}}));
}

}  // namespace

namespace detail {

void register_more_training_kernels(KernelRegistry& r) {
  register_apply<Kind::ftrl>(r, "ApplyFtrl");
  register_apply<Kind::ftrl_v2>(r, "ApplyFtrlV2");
  register_apply<Kind::adadelta>(r, "ApplyAdadelta");
  register_apply<Kind::proximal_adagrad>(r, "ApplyProximalAdagrad");
  register_apply<Kind::proximal_gradient_descent>(r, "ApplyProximalGradientDescent");
  register_apply<Kind::adagrad_da>(r, "ApplyAdagradDA");
  register_apply<Kind::adagrad_v2>(r, "ApplyAdagradV2");
  register_apply<Kind::ada_max>(r, "ApplyAdaMax");
  register_apply<Kind::add_sign>(r, "ApplyAddSign");
  register_apply<Kind::power_sign>(r, "ApplyPowerSign");
  register_apply<Kind::keras_momentum>(r, "ApplyKerasMomentum", /*ref_form=*/false);
}

}  // namespace detail

}  // namespace af
