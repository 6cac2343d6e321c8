// The activations Softplus, Softsign, Elu, Selu and Relu6 and their gradient ops
// SoftplusGrad, SoftsignGrad, EluGrad, SeluGrad and Relu6Grad: CPU kernels with TensorFlow's
// formulas (softplus_op.h, softsign_op.h, relu_op_functor.h). Relu, LeakyRelu, Sigmoid and
// Tanh are in math_ops.cpp and compat_v2_ops.cpp; the definitions of the ops here are in
// ops/src/defs/activation_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// Machine epsilon of the stored type T (bfloat16 keeps 7 fraction bits, float16 10).
template <class T>
constexpr double epsilon_of() {
  if constexpr (std::is_same_v<T, bfloat16_t>)
    return 0.0078125;
  else if constexpr (std::is_same_v<T, half_t>)
    return 0.0009765625;
  else
    return std::numeric_limits<T>::epsilon();
}

// softplus(x) = log(exp(x) + 1) with TensorFlow's thresholds: x itself where exp(x) + 1
// rounds to exp(x), exp(x) where adding 1 would lose it, log1p(exp(x)) between.
template <class T>
struct SoftplusFn {
  static constexpr double kCycles = 40;
  static constexpr bool kEigen = true;
  template <class C>
  static C threshold() {
    return static_cast<C>(std::log(epsilon_of<T>()) + 2.0);
  }
  template <class C>
  C operator()(C a) const {
    const C t = threshold<C>();
    if (a > -t) return a;
    if (a < t) return std::exp(a);
    return std::log1p(std::exp(a));
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    using S = typename In::Scalar;
    const S t = threshold<S>();
    out =
        (in > in.constant(-t)).select(in, (in < in.constant(t)).select(in.exp(), in.exp().log1p()));
  }
};
// x / (|x| + 1)
struct SoftsignFn {
  static constexpr double kCycles = 6;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return a / (std::fabs(a) + C(1));
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    using S = typename In::Scalar;
    out = in / (in.abs() + in.constant(S(1)));
  }
};
// exp(x) - 1 below 0, else x
struct EluFn {
  static constexpr double kCycles = 21;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return a < C(0) ? std::exp(a) - C(1) : a;
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    using S = typename In::Scalar;
    out = (in < in.constant(S(0))).select(in.exp() - in.constant(S(1)), in);
  }
};
// TensorFlow's SELU constants (relu_op_functor.h).
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;
// scale_alpha * (exp(x) - 1) below 0, else scale * x
struct SeluFn {
  static constexpr double kCycles = 22;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return a < C(0) ? C(kSeluScaleAlpha) * (std::exp(a) - C(1)) : C(kSeluScale) * a;
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    using S = typename In::Scalar;
    out = (in < in.constant(S(0)))
              .select(in.constant(S(kSeluScaleAlpha)) * (in.exp() - in.constant(S(1))),
                      in.constant(S(kSeluScale)) * in);
  }
};
// min(max(x, 0), 6) with NaN kept (cwiseMax / cwiseMin with PropagateNaN).
struct Relu6Fn {
  static constexpr double kCycles = 2;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
    }
    return std::min(std::max(a, C(0)), C(6));
  }
};

// -- gradient functors: (gradients, features or outputs), in the ops' input order ---------

// g / (exp(-x) + 1)
struct SoftplusGradFn {
  static constexpr double kCycles = 25;
  template <class C>
  C operator()(C g, C x) const {
    return g / (std::exp(-x) + C(1));
  }
  template <class G, class X>
  static auto eigen(const G& g, const X& x) {
    using S = typename X::Scalar;
    return g / ((-x).exp() + S(1));
  }
};
// g / (|x| + 1)^2
struct SoftsignGradFn {
  static constexpr double kCycles = 6;
  template <class C>
  C operator()(C g, C x) const {
    const C d = std::fabs(x) + C(1);
    return g / (d * d);
  }
  template <class G, class X>
  static auto eigen(const G& g, const X& x) {
    using S = typename X::Scalar;
    return g / (x.abs() + S(1)).square();
  }
};
// (y + 1) * g where the output y < 0, else g
struct EluGradFn {
  static constexpr double kCycles = 3;
  template <class C>
  C operator()(C g, C y) const {
    return y < C(0) ? (y + C(1)) * g : g;
  }
  template <class G, class Y>
  static auto eigen(const G& g, const Y& y) {
    using S = typename Y::Scalar;
    return (y < S(0)).select((y + S(1)) * g, g);
  }
};
// g * (y + scale_alpha) where the output y < 0, else g * scale
struct SeluGradFn {
  static constexpr double kCycles = 3;
  template <class C>
  C operator()(C g, C y) const {
    return y < C(0) ? g * (y + C(kSeluScaleAlpha)) : g * C(kSeluScale);
  }
  template <class G, class Y>
  static auto eigen(const G& g, const Y& y) {
    using S = typename Y::Scalar;
    return (y < S(0)).select(g * (y + S(kSeluScaleAlpha)), g * S(kSeluScale));
  }
};
// g * (0 < x < 6), the indicator multiplied in (so inf * 0 is NaN, as TensorFlow)
struct Relu6GradFn {
  static constexpr double kCycles = 3;
  template <class C>
  C operator()(C g, C x) const {
    return wrapping_mul(g, static_cast<C>(x > C(0) && x < C(6)));
  }
};

template <class T>
using SoftplusKernel = UnaryOp<SoftplusFn<T>, T>;
template <class Fn>
struct Unary {
  template <class T>
  using Kernel = UnaryOp<Fn, T>;
};
// The gradient ops: (gradients, features or outputs) of one shape (TensorFlow's
// ReluHelpers::ValidateSameSize), element by element.
template <class Fn, class T>
class ActivationGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& g = ctx.input(0);
    const Tensor& a = ctx.input(1);
    if (g.shape() != a.shape())
      return ctx.fail(invalid_argument("g and a must be the same size" + node_suffix(name())));
    const T* gp = g.data<T>();
    const T* ap = a.data<T>();
    T* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, g.shape()).template data<T>();
    const Index n = g.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(2, Fn::kCycles),
                 [&](Index b, Index e) { binary_vv<Fn>(gp + b, ap + b, o + b, e - b); });
  }
};
template <class Fn>
struct Grad {
  template <class T>
  using Kernel = ActivationGradOp<Fn, T>;
};

}  // namespace

namespace detail {

void register_activation_kernels(KernelRegistry& r) {
  register_for_types<SoftplusKernel, float, double, bfloat16_t, half_t>(r, "Softplus");
  register_for_types<Unary<SoftsignFn>::Kernel, float, double, bfloat16_t, half_t>(r, "Softsign");
  register_for_types<Unary<EluFn>::Kernel, float, double, bfloat16_t, half_t>(r, "Elu");
  register_for_types<Unary<SeluFn>::Kernel, float, double, bfloat16_t, half_t>(r, "Selu");
  register_for_list<Unary<Relu6Fn>::Kernel>(r, "Relu6", RealNumberTypes{});
  register_for_types<Grad<SoftplusGradFn>::Kernel, float, double, bfloat16_t, half_t>(
      r, "SoftplusGrad");
  register_for_types<Grad<SoftsignGradFn>::Kernel, float, double, bfloat16_t, half_t>(
      r, "SoftsignGrad");
  register_for_types<Grad<EluGradFn>::Kernel, float, double, bfloat16_t, half_t>(r, "EluGrad");
  register_for_types<Grad<SeluGradFn>::Kernel, float, double, bfloat16_t, half_t>(r, "SeluGrad");
  register_for_list<Grad<Relu6GradFn>::Kernel>(r, "Relu6Grad", RealNumberTypes{});
}

}  // namespace detail

}  // namespace af
