// More element-wise math with TensorFlow's element semantics (cwise_ops.h): the unary ops
// Log1p, Expm1, Ceil, Round, Rint, Erf, Erfc, Tan, Atan, Asin, Acos, Sinh, Cosh, Asinh, Acosh,
// Atanh, Lgamma, Digamma, Erfinv and Ndtri, the predicates IsNan, IsInf and IsFinite, and the
// broadcasting binary ops Atan2, Xlogy, Xdivy, TruncateDiv, TruncateMod, the deprecated Mod,
// Polygamma and Zeta. CPU kernels; their definitions are in
// ops/src/defs/cwise_unary_ops.cpp.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "actorflow/ops/kernel.hpp"
#include "cwise_kernel_templates.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

// Eigen's erf, erfc, lgamma, digamma, ndtri, polygamma and zeta, the approximations
// TensorFlow's kernels use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/SpecialFunctions>
#pragma GCC diagnostic pop

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// A unary functor through one of Eigen's scalar functors, as TensorFlow's `base<T, F>`:
// packets where Eigen has them, the scalar form per element otherwise (and for bfloat16,
// computed in float).
template <template <class> class EigenOp, int Cycles>
struct EigenUnaryFn {
  static constexpr double kCycles = Cycles;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return EigenOp<C>()(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.unaryExpr(EigenOp<typename In::Scalar>());
  }
};

using Eigen::internal::scalar_acos_op;
using Eigen::internal::scalar_acosh_op;
using Eigen::internal::scalar_asin_op;
using Eigen::internal::scalar_asinh_op;
using Eigen::internal::scalar_atan_op;
using Eigen::internal::scalar_atanh_op;
using Eigen::internal::scalar_cosh_op;
using Eigen::internal::scalar_digamma_op;
using Eigen::internal::scalar_erf_op;
using Eigen::internal::scalar_erfc_op;
using Eigen::internal::scalar_expm1_op;
using Eigen::internal::scalar_lgamma_op;
using Eigen::internal::scalar_log1p_op;
using Eigen::internal::scalar_sinh_op;
using Eigen::internal::scalar_tan_op;

using Log1pFn = EigenUnaryFn<scalar_log1p_op, 20>;
using Expm1Fn = EigenUnaryFn<scalar_expm1_op, 20>;
using ErfFn = EigenUnaryFn<scalar_erf_op, 30>;
using ErfcFn = EigenUnaryFn<scalar_erfc_op, 30>;
using TanFn = EigenUnaryFn<scalar_tan_op, 20>;
using AtanFn = EigenUnaryFn<scalar_atan_op, 20>;
using AsinFn = EigenUnaryFn<scalar_asin_op, 20>;
using AcosFn = EigenUnaryFn<scalar_acos_op, 20>;
using SinhFn = EigenUnaryFn<scalar_sinh_op, 20>;
using CoshFn = EigenUnaryFn<scalar_cosh_op, 20>;
using AsinhFn = EigenUnaryFn<scalar_asinh_op, 20>;
using AcoshFn = EigenUnaryFn<scalar_acosh_op, 20>;
using AtanhFn = EigenUnaryFn<scalar_atanh_op, 20>;
// lgamma(-n) and lgamma(0) are +inf, digamma there NaN (Eigen's, as TensorFlow's kernels).
using LgammaFn = EigenUnaryFn<scalar_lgamma_op, 40>;
using DigammaFn = EigenUnaryFn<scalar_digamma_op, 40>;
// ndtri(p): the standard normal quantile; -inf at 0, +inf at 1, NaN outside [0, 1] (as
// TensorFlow's Eigen; Debian's Eigen 3.4 gives infinities there).
struct NdtriFn {
  static constexpr double kCycles = 40;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C p) const {
    if (!(p >= C(0) && p <= C(1))) return std::numeric_limits<C>::quiet_NaN();
    return Eigen::numext::ndtri(p);
  }
};

// TensorFlow's scalar_erfinv_op: ndtri((x + 1) / 2) / sqrt(2), so -1 and 1 give -inf and
// +inf and |x| > 1 NaN.
struct ErfinvFn {
  static constexpr double kCycles = 40;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    constexpr C half = C(0.5);
    return NdtriFn{}(half * x + half) * C(M_SQRT1_2);
  }
};

// Ceil, Rint and Round per element through libm: Eigen 3.4's packet forms drop the sign of a
// zero result (ceil(-0.5) must be -0, as TensorFlow's). Round is half to even (TensorFlow's
// scalar_round_half_to_even_op): nearbyint under the default rounding mode; integers are
// already whole.
struct CeilFn {
  static constexpr double kCycles = 4;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C a) const {
    return std::ceil(a);
  }
};
struct RintFn {
  static constexpr double kCycles = 4;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C a) const {
    return std::rint(a);
  }
};
struct RoundFn {
  static constexpr double kCycles = 4;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C a) const {
    if constexpr (std::is_integral_v<C>)
      return a;
    else
      return std::nearbyint(a);
  }
};

// -- predicates: a bool per element -------------------------------------------------------

struct IsNanFn {
  template <class C>
  bool operator()(C a) const {
    return std::isnan(a);
  }
};
struct IsInfFn {
  template <class C>
  bool operator()(C a) const {
    return std::isinf(a);
  }
};
struct IsFiniteFn {
  template <class C>
  bool operator()(C a) const {
    return std::isfinite(a);
  }
};

// A bool tensor of the input's shape.
template <class Fn, class T>
class PredicateOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    bool* o = ctx.allocate_output_for_overwrite(0, DType::boolean, x.shape()).template data<bool>();
    const Index n = x.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(1, 1), [&](Index b, Index e) {
      Fn fn;
      for (Index i = b; i < e; ++i) o[i] = fn(to_compute(xp[i]));
    });
  }
};

// -- binary functors ----------------------------------------------------------------------

// atan2(y, x), the angle of the point (x, y).
struct Atan2Fn {
  static constexpr double kCycles = 20;
  template <class C>
  C operator()(C y, C x) const {
    return std::atan2(y, x);
  }
};
// 0 where x == 0, else x * log(y) (TensorFlow's xlogy_op, scalar form).
struct XlogyFn {
  static constexpr double kCycles = 21;
  template <class C>
  C operator()(C x, C y) const {
    return x == C(0) ? C(0) : x * std::log(y);
  }
};
// 0 where x == 0, else x / y (xdivy_op).
struct XdivyFn {
  static constexpr double kCycles = 6;
  template <class C>
  C operator()(C x, C y) const {
    return x == C(0) ? C(0) : x / y;
  }
};
// C's truncating quotient of integers (safe_div): zero divisors are refused before computing;
// INT_MIN / -1 wraps. Of floats, trunc(x / y).
struct TruncateDivFn {
  static constexpr double kCycles = 8;
  static constexpr bool kChecksZero = true;
  template <class C>
  C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::trunc(x / y);  // TensorFlow's truncate_div_real
    } else {
      if constexpr (std::is_signed_v<C>) {
        if (y == C(-1)) return wrapping_neg(x);
      }
      return static_cast<C>(x / y);
    }
  }
};
// C's remainder (safe_mod for integers, fmod for floats): the dividend's sign.
struct TruncateModFn {
  static constexpr double kCycles = 8;
  static constexpr bool kChecksZero = true;
  template <class C>
  C operator()(C x, C y) const {
    if constexpr (std::is_integral_v<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (y == C(-1)) return C(0);
      }
      return static_cast<C>(x % y);
    } else {
      return std::fmod(x, y);
    }
  }
};

// Polygamma(a, x): the a-th derivative of digamma at x (Eigen's; NaN unless a is a
// nonnegative integer).
struct PolygammaFn {
  static constexpr double kCycles = 80;
  template <class C>
  C operator()(C a, C x) const {
    // Every derivative of digamma vanishes at +inf (TensorFlow's Eigen; Debian's gives NaN).
    if (x == std::numeric_limits<C>::infinity() && a >= C(1) && a == std::floor(a)) return C(0);
    return Eigen::numext::polygamma(a, x);
  }
};
// Zeta(x, q): the Hurwitz zeta function, sum over n >= 0 of (n + q)^-x (Eigen's).
struct ZetaFn {
  static constexpr double kCycles = 80;
  template <class C>
  C operator()(C x, C q) const {
    // Every term vanishes at q = +inf when the sum converges (x > 1), as in TensorFlow.
    if (q == std::numeric_limits<C>::infinity() && x > C(1)) return C(0);
    return Eigen::numext::zeta(x, q);
  }
};

template <class Fn>
struct Predicate {
  template <class T>
  using Kernel = PredicateOp<Fn, T>;
};

template <class Fn>
void register_float_unary(KernelRegistry& r, const char* op) {
  register_for_types<Unary<Fn>::template Kernel, float, double, bfloat16_t, half_t>(r, op);
}

}  // namespace

namespace detail {

void register_cwise_unary_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  using std::uint8_t;
  register_for_list<Unary<Log1pFn>::Kernel>(r, "Log1p", FloatComplexTypes{});
  register_for_list<Unary<Expm1Fn>::Kernel>(r, "Expm1", FloatComplexTypes{});
  register_float_unary<CeilFn>(r, "Ceil");
  register_for_types<Unary<RoundFn>::Kernel, float, double, int32_t, int64_t, bfloat16_t, half_t>(
      r, "Round");
  register_for_types<Unary<RintFn>::Kernel, float, double>(r, "Rint");
  register_float_unary<ErfFn>(r, "Erf");
  register_float_unary<ErfcFn>(r, "Erfc");
  register_for_list<Unary<TanFn>::Kernel>(r, "Tan", FloatComplexTypes{});
  register_for_list<Unary<AtanFn>::Kernel>(r, "Atan", FloatComplexTypes{});
  register_for_list<Unary<AsinFn>::Kernel>(r, "Asin", FloatComplexTypes{});
  register_for_list<Unary<AcosFn>::Kernel>(r, "Acos", FloatComplexTypes{});
  register_for_list<Unary<SinhFn>::Kernel>(r, "Sinh", FloatComplexTypes{});
  register_for_list<Unary<CoshFn>::Kernel>(r, "Cosh", FloatComplexTypes{});
  register_for_list<Unary<AsinhFn>::Kernel>(r, "Asinh", FloatComplexTypes{});
  register_for_list<Unary<AcoshFn>::Kernel>(r, "Acosh", FloatComplexTypes{});
  register_for_list<Unary<AtanhFn>::Kernel>(r, "Atanh", FloatComplexTypes{});
  // TensorFlow's special functions take float and double (Lgamma and Digamma half too).
  register_for_types<Unary<LgammaFn>::Kernel, float, double, half_t>(r, "Lgamma");
  register_for_types<Unary<DigammaFn>::Kernel, float, double, half_t>(r, "Digamma");
  register_for_types<Unary<ErfinvFn>::Kernel, float, double>(r, "Erfinv");
  register_for_types<Unary<NdtriFn>::Kernel, float, double>(r, "Ndtri");
  register_for_types<Binary<PolygammaFn>::Kernel, float, double>(r, "Polygamma");
  register_for_types<Binary<ZetaFn>::Kernel, float, double>(r, "Zeta");
  register_for_types<Predicate<IsNanFn>::Kernel, float, double, bfloat16_t, half_t>(r, "IsNan");
  register_for_types<Predicate<IsInfFn>::Kernel, float, double, bfloat16_t, half_t>(r, "IsInf");
  register_for_types<Predicate<IsFiniteFn>::Kernel, float, double, bfloat16_t, half_t>(r,
                                                                                       "IsFinite");
  register_for_types<Binary<Atan2Fn>::Kernel, float, double, bfloat16_t, half_t>(r, "Atan2");
  register_for_list<Binary<XlogyFn>::Kernel>(r, "Xlogy", FloatComplexTypes{});
  register_for_list<Binary<XdivyFn>::Kernel>(r, "Xdivy", FloatComplexTypes{});
  register_for_list<Binary<TruncateDivFn>::Kernel>(r, "TruncateDiv", RealNumberTypes{});
  for (const char* op : {"TruncateMod", "Mod"})
    register_for_types<Binary<TruncateModFn>::Kernel, float, double, int32_t, int64_t>(r, op);
}

}  // namespace detail

}  // namespace af
