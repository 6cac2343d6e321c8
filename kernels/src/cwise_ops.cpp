// Element-wise math for training: Square, Sqrt, Rsqrt, Exp, Log, Sin, Cos, Reciprocal, Abs, Sign,
// Floor, the gradient ops SqrtGrad, RsqrtGrad and ReciprocalGrad, and the broadcasting binary ops
// Pow, Maximum, Minimum, FloorDiv, FloorMod and SquaredDifference: CPU kernels, with
// TensorFlow's element semantics (cwise_ops.h). Their definitions (shape functions, builders)
// are in ops/src/defs/cwise_ops.cpp.
//
// This file also registers the kernels of cwise_compare_ops.cpp (comparisons, logical ops,
// Select) and cwise_aggregate_ops.cpp (AddN, ArgMax, ArgMin, L2Loss, CheckNumerics).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "exact_sqrt.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// -- unary functors -----------------------------------------------------------------------

struct SquareFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return wrapping_mul(a, a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.square();
  }
};
struct SqrtFn {
  static constexpr double kCycles = 5;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::sqrt(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.unaryExpr(detail::ExactSqrtOp<typename In::Scalar>());  // exact, as TensorFlow
  }
};
// 1 / sqrt(x): Eigen's rsqrt, as TensorFlow (vectorised with a Newton step for float).
struct RsqrtFn {
  static constexpr double kCycles = 6;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return C(1) / std::sqrt(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.rsqrt();
  }
};
struct ExpFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::exp(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.exp();
  }
};
struct SinFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::sin(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.unaryExpr(Eigen::internal::scalar_sin_op<typename In::Scalar>());  // as TensorFlow
  }
};
struct CosFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::cos(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.unaryExpr(Eigen::internal::scalar_cos_op<typename In::Scalar>());  // as TensorFlow
  }
};
// Natural logarithm: log(0) = -inf, log(x < 0) = NaN.
struct LogFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::log(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.log();
  }
};
// 1 / x: reciprocal(0) = inf.
struct ReciprocalFn {
  static constexpr double kCycles = 5;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return C(1) / a;
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.inverse();
  }
};
// |x|; the most negative integer stays itself (two's complement wrap-around).
struct AbsFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    if constexpr (std::is_integral_v<C>)
      return a < C(0) ? wrapping_neg(a) : a;
    else
      return std::fabs(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.abs();
  }
};
// -1, 0 or 1 as Eigen's scalar_sign_op for reals: (x > 0) - (x < 0), so sign(0) = sign(-0) = 0
// and sign(NaN) = 0.
struct SignFn {
  static constexpr double kCycles = 2;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C a) const {
    if constexpr (is_complex_v<C>) {  // x / |x|, and 0 at 0 (Eigen's complex sign)
      const auto m = std::abs(a);
      return m == 0 ? C(0) : C(a.real() / m, a.imag() / m);
    } else {
      return static_cast<C>(static_cast<int>(a > C(0)) - static_cast<int>(a < C(0)));
    }
  }
};
struct FloorFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::floor(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.floor();
  }
};

// -- gradient functors (inputs y, dy; cwise_ops_gradients.h) ------------------------------

// dy * 0.5 / y
struct SqrtGradFn {
  static constexpr double kCycles = 6;
  template <class C>
  C operator()(C y, C dy) const {
    return C(0.5) * dy / conj_of(y);
  }
  template <class X, class Y>
  static auto eigen(const X& y, const Y& dy) {
    using S = typename X::Scalar;
    return S(0.5) * dy / y;
  }
};
// dy * -0.5 * y^3, evaluated as TensorFlow does: -0.5 * (dy * y) * (y * y).
struct RsqrtGradFn {
  static constexpr double kCycles = 4;
  template <class C>
  C operator()(C y, C dy) const {
    const C yc = conj_of(y);
    return C(-0.5) * (dy * yc) * (yc * yc);
  }
  template <class X, class Y>
  static auto eigen(const X& y, const Y& dy) {
    using S = typename X::Scalar;
    return S(-0.5) * (dy * y) * (y * y);
  }
};
// -dy * y * y
struct ReciprocalGradFn {
  static constexpr double kCycles = 3;
  template <class C>
  C operator()(C y, C dy) const {
    const C yc = conj_of(y);
    return -dy * yc * yc;
  }
  template <class X, class Y>
  static auto eigen(const X& y, const Y& dy) {
    return -dy * y * y;
  }
};

// -- binary functors ----------------------------------------------------------------------

// x^y: std::pow for floats; integers by repeated squaring with wrap-around, negative integer
// exponents rejected before computing ("Integers to negative integer powers are not
// allowed").
struct PowFn {
  static constexpr double kCycles = 20;
  static constexpr bool kChecksNegative = true;
  template <class C>
  C operator()(C x, C y) const {
    if constexpr (std::is_integral_v<C>) {
      C result = 1;
      using U = std::make_unsigned_t<C>;
      for (U e = static_cast<U>(y); e != 0; e >>= 1) {
        if (e & 1) result = wrapping_mul(result, x);
        x = wrapping_mul(x, x);
      }
      return result;
    } else {
      return std::pow(x, y);
    }
  }
};
// x > y ? x : y with std::max's NaN behaviour (a NaN x wins), as Eigen's scalar_max_op.
struct MaximumFn {
  static constexpr double kCycles = 1;
  template <class C>
  C operator()(C x, C y) const {
    return x < y ? y : x;
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x.max(y);
  }
};
// x < y ? x : y with std::min's NaN behaviour (a NaN x wins), as Eigen's scalar_min_op.
struct MinimumFn {
  static constexpr double kCycles = 1;
  template <class C>
  C operator()(C x, C y) const {
    return y < x ? y : x;
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x.min(y);
  }
};
// Truncated quotient and remainder of integers; INT_MIN / -1 wraps instead of trapping.
template <class C>
C truncated_div(C x, C y) {
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return wrapping_neg(x);
  }
  return static_cast<C>(x / y);
}
template <class C>
C truncated_mod(C x, C y) {
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return C(0);
  }
  return static_cast<C>(x % y);
}
// floor(x / y): google_floor_div for integers (zero divisors rejected), floor of the real
// quotient for floats.
struct FloorDivFn {
  static constexpr double kCycles = 8;
  static constexpr bool kChecksZero = true;
  template <class C>
  C operator()(C x, C y) const {
    if constexpr (std::is_integral_v<C>) {
      C q = truncated_div(x, y);
      if constexpr (std::is_signed_v<C>) {
        if (truncated_mod(x, y) != C(0) && ((x < C(0)) != (y < C(0)))) q = wrapping_sub(q, C(1));
      }
      return q;
    } else {
      return std::floor(x / y);
    }
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return (x / y).floor();
  }
};
// x - floor(x / y) * y, the remainder with the divisor's sign (Python's %): google_floor_mod
// for integers (zero divisors rejected), google_floor_fmod for floats.
struct FloorModFn {
  static constexpr double kCycles = 8;
  static constexpr bool kChecksZero = true;
  template <class C>
  C operator()(C x, C y) const {
    if constexpr (std::is_unsigned_v<C>) return truncated_mod(x, y);  // never negative
    C trunc_mod;
    if constexpr (std::is_integral_v<C>)
      trunc_mod = truncated_mod(x, y);
    else
      trunc_mod = std::fmod(x, y);
    return trunc_mod != C(0) && ((y < C(0)) != (trunc_mod < C(0))) ? wrapping_add(trunc_mod, y)
                                                                   : trunc_mod;
  }
};
// (x - y)^2; of complex numbers (x - y) * conj(x - y), as TensorFlow's.
struct SquaredDifferenceFn {
  static constexpr double kCycles = 2;
  template <class C>
  C operator()(C x, C y) const {
    const C d = wrapping_sub(x, y);
    return wrapping_mul(d, conj_of(d));
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return (x - y).square();
  }
};

// -- kernels ------------------------------------------------------------------------------

template <class T>
using SquareKernel = UnaryOp<SquareFn, T>;
template <class T>
using SqrtKernel = UnaryOp<SqrtFn, T>;
template <class T>
using RsqrtKernel = UnaryOp<RsqrtFn, T>;
template <class T>
using ExpKernel = UnaryOp<ExpFn, T>;
template <class T>
using LogKernel = UnaryOp<LogFn, T>;
template <class T>
using SinKernel = UnaryOp<SinFn, T>;
template <class T>
using CosKernel = UnaryOp<CosFn, T>;
template <class T>
using ReciprocalKernel = UnaryOp<ReciprocalFn, T>;
template <class T>
using AbsKernel = UnaryOp<AbsFn, T>;
template <class T>
using SignKernel = UnaryOp<SignFn, T>;
template <class T>
using FloorKernel = UnaryOp<FloorFn, T>;
template <class T>
using PowKernel = BinaryOp<PowFn, T>;
template <class T>
using MaximumKernel = BinaryOp<MaximumFn, T>;
template <class T>
using MinimumKernel = BinaryOp<MinimumFn, T>;
template <class T>
using FloorDivKernel = BinaryOp<FloorDivFn, T>;
template <class T>
using FloorModKernel = BinaryOp<FloorModFn, T>;
template <class T>
using SquaredDifferenceKernel = BinaryOp<SquaredDifferenceFn, T>;

// The gradient ops take (y, dy) element by element: TensorFlow's SimpleBinaryOp, which needs
// equal element counts and gives the output y's shape.
template <class Fn, class T>
class UnaryGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& y = ctx.input(0);
    const Tensor& dy = ctx.input(1);
    if (y.num_elements() != dy.num_elements())
      return ctx.fail(invalid_argument(
          "The two arguments to a cwise op must have same number of elements, got " +
          std::to_string(y.num_elements()) + " and " + std::to_string(dy.num_elements()) +
          node_suffix(name())));
    const T* yp = y.data<T>();
    const T* dyp = dy.data<T>();
    T* o = ctx.allocate_output(0, dtype_of_v<T>, y.shape()).template data<T>();
    const Index n = y.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(2, Fn::kCycles),
                 [&](Index b, Index e) { binary_vv<Fn>(yp + b, dyp + b, o + b, e - b); });
  }
};
template <class T>
using SqrtGradKernel = UnaryGradOp<SqrtGradFn, T>;
template <class T>
using RsqrtGradKernel = UnaryGradOp<RsqrtGradFn, T>;
template <class T>
using ReciprocalGradKernel = UnaryGradOp<ReciprocalGradFn, T>;

}  // namespace

namespace detail {

void register_cwise_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21.
  using SignedTypes =
      Concat<FloatTypes, TypeList<std::int8_t, std::int16_t, std::int32_t, std::int64_t>>;
  register_for_list<SquareKernel>(r, "Square", NumberTypes{});
  register_for_list<SqrtKernel>(r, "Sqrt", FloatComplexTypes{});
  register_for_list<RsqrtKernel>(r, "Rsqrt", FloatComplexTypes{});
  register_for_list<ExpKernel>(r, "Exp", FloatComplexTypes{});
  register_for_list<LogKernel>(r, "Log", FloatComplexTypes{});
  register_for_list<SinKernel>(r, "Sin", FloatComplexTypes{});
  register_for_list<CosKernel>(r, "Cos", FloatComplexTypes{});
  register_for_list<ReciprocalKernel>(r, "Reciprocal", FloatComplexTypes{});
  register_for_list<ReciprocalKernel>(r, "Inv", FloatComplexTypes{});  // its old name
  register_for_list<AbsKernel>(r, "Abs", SignedTypes{});
  register_for_list<SignKernel>(r, "Sign", Concat<SignedTypes, ComplexTypes>{});
  register_for_list<FloorKernel>(r, "Floor", FloatTypes{});
  register_for_list<SqrtGradKernel>(r, "SqrtGrad", FloatComplexTypes{});
  register_for_list<RsqrtGradKernel>(r, "RsqrtGrad", FloatComplexTypes{});
  register_for_list<ReciprocalGradKernel>(r, "ReciprocalGrad", FloatComplexTypes{});
  register_for_list<ReciprocalGradKernel>(r, "InvGrad", FloatComplexTypes{});
  register_for_list<PowKernel>(r, "Pow", Concat<SignedTypes, ComplexTypes>{});
  register_for_list<MaximumKernel>(r, "Maximum", RealNumberTypes{});
  register_for_list<MinimumKernel>(r, "Minimum", RealNumberTypes{});
  register_for_list<FloorDivKernel>(r, "FloorDiv", RealNumberTypes{});
  register_for_list<FloorModKernel>(r, "FloorMod", RealNumberTypes{});
  register_for_list<SquaredDifferenceKernel>(
      r, "SquaredDifference",
      Concat<FloatTypes, TypeList<std::int32_t, std::int64_t>, ComplexTypes>{});
  register_cwise_compare_kernels(r);
  register_cwise_aggregate_kernels(r);
}

}  // namespace detail

}  // namespace af
