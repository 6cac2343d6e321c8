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
#include <complex>
#include <string>
#include <vector>

#include "actorflow/ops/detail/more_training_layout.hpp"
#include "actorflow/ops/kernel.hpp"
#include "half_steps.hpp"
#include "more_training_kernels.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

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
    case Kind::adam_with_amsgrad:
      return {{C::scalar, 0, "beta1_power is not a scalar: "},
              {C::scalar, 1, "beta2_power is not a scalar: "},
              {C::scalar, 2, "lr is not a scalar: "},
              {C::scalar, 3, "beta1 is not a scalar: "},
              {C::scalar, 4, "beta2 is not a scalar: "},
              {C::scalar, 5, "epsilon is not a scalar: "},
              {C::same_shape, 1, "m"},
              {C::same_shape, 2, "v"},
              {C::same_shape, 3, "vhat"},
              {C::grad_shape, 0, "grad"}};
  }
  return {};
}

// The update of variables of element type S, computed in T (for float16 and bfloat16,
// HalfSteps: each step in float rounded to the type, as TensorFlow's Eigen half).
template <Kind K, class S, bool Resource>
class MoreApplyOp : public OpKernel {
  using T = std::conditional_t<is_half_like_v<S>, detail::HalfSteps<S>, S>;

 public:
  MoreApplyOp(OpKernelConstruction& c, Status* /*s*/)
      : OpKernel(c), flags_(detail::more_optimizer::read_flags(c, /*sparse=*/false)) {}

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(layout_of(K).grad).num_elements() > 64 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    const Layout lay = layout_of(K);
    detail::more_optimizer::compute_update<S>(*this, ctx, lay, Resource, checks_, -1,
                                              [&](std::vector<Tensor*>& values) {
                                                update(ctx, lay, values);
                                                return Status{};
                                              });
  }

 private:
  void update(const OpKernelContext& ctx, const Layout& lay, std::vector<Tensor*>& values) const {
    Flags f = flags_;
    const std::vector<T> scalars = detail::more_optimizer::read_scalars<S, T>(ctx, lay, K, &f);
    const Tensor& grad = ctx.input(lay.grad);
    const Index n = grad.num_elements();
    if constexpr (is_half_like_v<S>) {
      // Copies of the variable, its slots and the gradient in HalfSteps, stored back after.
      auto steps = [](const Tensor& t) {
        const S* p = t.data<S>();
        return std::vector<T>(p, p + t.num_elements());
      };
      std::vector<std::vector<T>> held;
      for (Tensor* v : values) held.push_back(steps(*v));
      T* d[4] = {nullptr, nullptr, nullptr, nullptr};
      for (std::size_t i = 0; i < held.size() && i < 4; ++i) d[i] = held[i].data();
      const std::vector<T> g = steps(grad);
      detail::more_optimizer::update_span<K, T>(d, g.data(), n, scalars, f);
      S* out[4];
      detail::more_optimizer::writable_data(values, out);
      for (std::size_t k = 0; k < held.size() && k < 4; ++k)
        for (Index i = 0; i < n; ++i) out[k][i] = S(held[k][static_cast<std::size_t>(i)]);
    } else {
      T* d[4];
      detail::more_optimizer::writable_data(values, d);
      detail::more_optimizer::update_span<K, T>(d, grad.data<T>(), n, scalars, f);
    }
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
  // float16 and bfloat16 (AdaMax: float16 only), as TensorFlow's, where it has them.
  if constexpr (K != Kind::proximal_gradient_descent && K != Kind::proximal_adagrad &&
                K != Kind::adagrad_da) {
    auto add = [&](auto tag) {
      using S = decltype(tag);
      if (ref_form)
        r.add(make_kernel_def<MoreApplyOp<K, S, false>>(type, "CPU", {{"T", {dtype_of_v<S>}}}));
      r.add(make_kernel_def<MoreApplyOp<K, S, true>>(resource, "CPU", {{"T", {dtype_of_v<S>}}}));
    };
    add(half_t{});
    if constexpr (K != Kind::ada_max) add(bfloat16_t{});
    // The complex types where TensorFlow's CPU kernels take them.
    if constexpr (K == Kind::adadelta || K == Kind::adagrad_v2 || K == Kind::keras_momentum) {
      add(std::complex<float>{});
      add(std::complex<double>{});
    }
  }
}

}  // namespace

namespace detail {

void register_more_training_kernels(KernelRegistry& r) {
  more_optimizer::for_each_op_forms([&]<Kind K>(const more_optimizer::OpForms& op) {
    register_apply<K>(r, op.type, op.ref_form);
  });
}

}  // namespace detail

}  // namespace af
