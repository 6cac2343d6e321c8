// The special functions of TensorFlow's math_ops and special_math_ops and their neighbours:
// the broadcasting binary ops MulNoNan, Xlog1py, NextAfter, Igamma, Igammac and IgammaGradA,
// Betainc (three inputs, each a scalar or of one shape), the unary Bessel functions
// (BesselI0, I0e, I1, I1e, J0, J1, K0, K0e, K1, K1e, Y0, Y1), Dawsn, Expint, FresnelCos,
// FresnelSin and Spence, PopulationCount and the reduction EuclideanNorm. CPU kernels with
// TensorFlow's element semantics (cwise_ops.h, special_math/special_math_op_misc_impl.h,
// betainc_op.cc, population_count_op.cc, reduction_ops_euclidean_norm.cc); their definitions
// are in ops/src/defs/math_special_ops.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_kernel_templates.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

// Eigen's Bessel functions, igamma, igammac, igamma_der_a and betainc: the implementations
// TensorFlow's kernels call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/SpecialFunctions>
#pragma GCC diagnostic pop

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery
using detail::index_values;
using detail::StatusKernel;

// -- binary functors ----------------------------------------------------------------------

// MulNoNan(x, y): 0 where y == 0 (even where x is NaN or infinite), else x * y (TensorFlow's
// mul_no_nan, scalar_mul_no_nan_op).
struct MulNoNanFn {
  static constexpr double kCycles = 2;
  template <class C>
  C operator()(C x, C y) const {
    return y == C(0) ? C(0) : x * y;
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    using S = typename X::Scalar;
    return (y == S(0)).select(S(0), x * y);
  }
};
// Xlog1py(x, y): x where x == 0 (a signed zero stays, as the packet form of TensorFlow's
// xlog1py_op selects x), else x * log1p(y).
struct Xlog1pyFn {
  static constexpr double kCycles = 21;
  template <class C>
  C operator()(C x, C y) const {
    return x == C(0) ? x : x * Eigen::numext::log1p(y);
  }
};
// NextAfter(x1, x2): the next representable value after x1 towards x2 (std::nextafter).
struct NextAfterFn {
  static constexpr double kCycles = 4;
  template <class C>
  C operator()(C x1, C x2) const {
    return std::nextafter(x1, x2);
  }
};
// Igamma(a, x): the regularized lower incomplete gamma function P(a, x); 0 at x == 0, NaN
// for a <= 0 or x < 0 (Eigen's igamma).
struct IgammaFn {
  static constexpr double kCycles = 200;
  template <class C>
  C operator()(C a, C x) const {
    return Eigen::numext::igamma(a, x);
  }
};
// Igammac(a, x): the regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x); NaN
// for a <= 0 or x < 0 (Eigen's igammac).
struct IgammacFn {
  static constexpr double kCycles = 200;
  template <class C>
  C operator()(C a, C x) const {
    return Eigen::numext::igammac(a, x);
  }
};
// IgammaGradA(a, x): d igamma(a, x) / da (Eigen's igamma_der_a).
struct IgammaGradAFn {
  static constexpr double kCycles = 400;
  template <class C>
  C operator()(C a, C x) const {
    return Eigen::numext::igamma_der_a(a, x);
  }
};

// -- Cephes ports of special_math_op_misc_impl.h -----------------------------------------
//
// TensorFlow evaluates Dawson's integral, the exponential integral Ei, the Fresnel integrals
// and Spence's integral with its own ports of Cephes (Stephen L. Moshier's library):
// rational approximations on intervals, the polynomials evaluated with Eigen's ppolevl
// (coefficients highest degree first). The same approximations are used here so values
// match; float evaluates them in float, as TensorFlow's scalar functors do.

template <class C, int N>
C polevl(C x, const C (&coefficients)[N + 1]) {
  return Eigen::internal::ppolevl<C, N>::run(x, coefficients);
}

// Dawson's integral: a rational approximation on [0, 3.25), two asymptotic forms to 1e9,
// then 1 / (2x); odd.
template <class C>
C dawsn(C x) {
  static const C AN[] = {C(1.13681498971755972054E-11), C(8.49262267667473811108E-10),
                         C(1.94434204175553054283E-8),  C(9.53151741254484363489E-7),
                         C(3.07828309874913200438E-6),  C(3.52513368520288738649E-4),
                         C(-8.50149846724410912031E-4), C(4.22618223005546594270E-2),
                         C(-9.17480371773452345351E-2), C(9.99999999999999994612E-1)};
  static const C AD[] = {
      C(2.40372073066762605484E-11), C(1.48864681368493396752E-9), C(5.21265281010541664570E-8),
      C(1.27258478273186970203E-6),  C(2.32490249820789513991E-5), C(3.25524741826057911661E-4),
      C(3.48805814657162590916E-3),  C(2.79448531198828973716E-2), C(1.58874241960120565368E-1),
      C(5.74918629489320327824E-1),  C(1.00000000000000000539E0)};
  static const C BN[] = {
      C(5.08955156417900903354E-1),  C(-2.44754418142697847934E-1), C(9.41512335303534411857E-2),
      C(-2.18711255142039025206E-2), C(3.66207612329569181322E-3),  C(-4.23209114460388756528E-4),
      C(3.59641304793896631888E-5),  C(-2.14640351719968974225E-6), C(9.10010780076391431042E-8),
      C(-2.40274520828250956942E-9), C(3.59233385440928410398E-11)};
  static const C BD[] = {C(1.0),
                         C(-6.31839869873368190192E-1),
                         C(2.36706788228248691528E-1),
                         C(-5.31806367003223277662E-2),
                         C(8.48041718586295374409E-3),
                         C(-9.47996768486665330168E-4),
                         C(7.81025592944552338085E-5),
                         C(-4.55875153252442634831E-6),
                         C(1.89100358111421846170E-7),
                         C(-4.91324691331920606875E-9),
                         C(7.18466403235734541950E-11)};
  static const C CN[] = {C(-5.90592860534773254987E-1), C(6.29235242724368800674E-1),
                         C(-1.72858975380388136411E-1), C(1.64837047825189632310E-2),
                         C(-4.86827613020462700845E-4)};
  static const C CD[] = {C(1.0),
                         C(-2.69820057197544900361E0),
                         C(1.73270799045947845857E0),
                         C(-3.93708582281939493482E-1),
                         C(3.44278924041233391079E-2),
                         C(-9.73655226040941223894E-4)};
  const C half = C(0.5);
  const C ax = std::abs(x);
  C y;
  if (ax < C(3.25)) {
    const C x2 = ax * ax;
    y = (ax * polevl<C, 9>(x2, AN)) / polevl<C, 10>(x2, AD);
  } else if (ax < C(6.25)) {
    const C inv = C(1) / ax;
    const C inv2 = inv * inv;
    const C z = polevl<C, 10>(inv2, BN) / (ax * polevl<C, 10>(inv2, BD));
    y = half * (inv2 * z + inv);
  } else if (ax < C(1.0e9)) {
    const C inv = C(1) / ax;
    const C inv2 = inv * inv;
    const C z = polevl<C, 4>(inv2, CN) / (ax * polevl<C, 5>(inv2, CD));
    y = half * (inv2 * z + inv);
  } else {
    // x's sign is in the quotient already and is flipped once more below, as TensorFlow
    // does (Dawsn(-1e10) is +5e-11 there).
    y = half / x;
  }
  return x < C(0) ? -y : y;
}

// x exp(-x) Ei(x) - 1 = (1/x) P(1/x) / Q(1/x) on one interval of [2, inf).
template <class C, int P, int Q>
C expint_asymptotic(C x, const C (&p)[P + 1], const C (&q)[Q + 1]) {
  const C w = C(1) / x;
  C f = polevl<C, P>(w, p) / polevl<C, Q>(w, q);
  f = w * f + C(1);
  return Eigen::numext::exp(x) * w * f;
}

// The exponential integral Ei(x): NaN for x < 0, -inf at 0.
template <class C>
C expint(C x) {
  static const C A[] = {C(-5.350447357812542947283E0), C(2.185049168816613393830E2),
                        C(-4.176572384826693777058E3), C(5.541176756393557601232E4),
                        C(-3.313381331178144034309E5), C(1.592627163384945414220E6)};
  static const C B[] = {C(1.0),
                        C(-5.250547959112862969197E1),
                        C(1.259616186786790571525E3),
                        C(-1.756549581973534652631E4),
                        C(1.493062117002725991967E5),
                        C(-7.294949239640527645655E5),
                        C(1.592627163384945429726E6)};
  static const C A6[] = {C(1.981808503259689673238E-2),  C(-1.271645625984917501326E0),
                         C(-2.088160335681228318920E0),  C(2.755544509187936721172E0),
                         C(-4.409507048701600257171E-1), C(4.665623805935891391017E-2),
                         C(-1.545042679673485262580E-3), C(7.059980605299617478514E-5)};
  static const C B6[] = {C(1.0),
                         C(1.476498670914921440652E0),
                         C(5.629177174822436244827E-1),
                         C(1.699017897879307263248E-1),
                         C(2.291647179034212017463E-2),
                         C(4.450150439728752875043E-3),
                         C(1.727439612206521482874E-4),
                         C(3.953167195549672482304E-5)};
  static const C A5[] = {C(-1.373215375871208729803E0), C(-7.084559133740838761406E-1),
                         C(1.580806855547941010501E0),  C(-2.601500427425622944234E-1),
                         C(2.994674694113713763365E-2), C(-1.038086040188744005513E-3),
                         C(4.371064420753005429514E-5), C(2.141783679522602903795E-6)};
  static const C B5[] = {C(1.0),
                         C(8.585231423622028380768E-1),
                         C(4.483285822873995129957E-1),
                         C(7.687932158124475434091E-2),
                         C(2.449868241021887685904E-2),
                         C(8.832165941927796567926E-4),
                         C(4.590952299511353531215E-4),
                         C(-4.729848351866523044863E-6),
                         C(2.665195537390710170105E-6)};
  static const C A2[] = {C(-2.106934601691916512584E0),  C(1.732733869664688041885E0),
                         C(-2.423619178935841904839E-1), C(2.322724180937565842585E-2),
                         C(2.372880440493179832059E-4),  C(-8.343219561192552752335E-5),
                         C(1.363408795605250394881E-5),  C(-3.655412321999253963714E-7),
                         C(1.464941733975961318456E-8),  C(6.176407863710360207074E-10)};
  static const C B2[] = {C(1.0),
                         C(-2.298062239901678075778E-1),
                         C(1.105077041474037862347E-1),
                         C(-1.566542966630792353556E-2),
                         C(2.761106850817352773874E-3),
                         C(-2.089148012284048449115E-4),
                         C(1.708528938807675304186E-5),
                         C(-4.459311796356686423199E-7),
                         C(1.394634930353847498145E-8),
                         C(6.150865933977338354138E-10)};
  static const C A4[] = {C(-2.458119367674020323359E-1), C(-1.483382253322077687183E-1),
                         C(7.248291795735551591813E-2),  C(-1.348315687380940523823E-2),
                         C(1.342775069788636972294E-3),  C(-7.942465637159712264564E-5),
                         C(2.644179518984235952241E-6),  C(-4.239473659313765177195E-8)};
  static const C B4[] = {C(1.0),
                         C(-1.044225908443871106315E-1),
                         C(-2.676453128101402655055E-1),
                         C(9.695000254621984627876E-2),
                         C(-1.601745692712991078208E-2),
                         C(1.496414899205908021882E-3),
                         C(-8.462452563778485013756E-5),
                         C(2.728938403476726394024E-6),
                         C(-4.239462431819542051337E-8)};
  static const C A7[] = {C(1.212561118105456670844E-1), C(-5.823133179043894485122E-1),
                         C(2.348887314557016779211E-1), C(-3.040034318113248237280E-2),
                         C(1.510082146865190661777E-3), C(-2.523137095499571377122E-5)};
  static const C B7[] = {C(1.0),
                         C(-1.002252150365854016662E0),
                         C(2.928709694872224144953E-1),
                         C(-3.337004338674007801307E-2),
                         C(1.560544881127388842819E-3),
                         C(-2.523137093603234562648E-5)};
  static const C A3[] = {C(-7.657847078286127362028E-1), C(6.886192415566705051750E-1),
                         C(-2.132598113545206124553E-1), C(3.346107552384193813594E-2),
                         C(-3.076541477344756050249E-3), C(1.747119316454907477380E-4),
                         C(-6.103711682274170530369E-6), C(1.218032765428652199087E-7),
                         C(-1.086076102793290233007E-9)};
  static const C B3[] = {C(1.0),
                         C(-1.888802868662308731041E0),
                         C(1.066691687211408896850E0),
                         C(-2.751915982306380647738E-1),
                         C(3.930852688233823569726E-2),
                         C(-3.414684558602365085394E-3),
                         C(1.866844370703555398195E-4),
                         C(-6.345146083130515357861E-6),
                         C(1.239754287483206878024E-7),
                         C(-1.086076102793126632978E-9)};
  if (x < C(0)) return std::numeric_limits<C>::quiet_NaN();
  if (x < C(2)) {
    // Ei(x) - EUL - ln(x) = x A(x) / B(x)
    const C f = polevl<C, 5>(x, A) / polevl<C, 6>(x, B);
    return x * f + C(0.5772156649015329) + Eigen::numext::log(x);
  }
  if (x < C(4)) return expint_asymptotic<C, 7, 7>(x, A6, B6);
  if (x < C(8)) return expint_asymptotic<C, 7, 8>(x, A5, B5);
  if (x < C(16)) return expint_asymptotic<C, 9, 9>(x, A2, B2);
  if (x < C(32)) return expint_asymptotic<C, 7, 8>(x, A4, B4);
  if (x < C(64)) return expint_asymptotic<C, 5, 5>(x, A7, B7);
  return expint_asymptotic<C, 8, 9>(x, A3, B3);  // also NaN
}

// The Fresnel integrals for x^2 >= 2.5625: the auxiliary functions f and g.
template <class C>
C fresnel_asymptotic(C x, bool sine) {
  static const C FN[] = {C(4.21543555043677546506E-1),  C(1.43407919780758885261E-1),
                         C(1.15220955073585758835E-2),  C(3.45017939782574027900E-4),
                         C(4.63613749287867322088E-6),  C(3.05568983790257605827E-8),
                         C(1.02304514164907233465E-10), C(1.72010743268161828879E-13),
                         C(1.34283276233062758925E-16), C(3.76329711269987889006E-20)};
  static const C FD[] = {C(1.0),
                         C(7.51586398353378947175E-1),
                         C(1.16888925859191382142E-1),
                         C(6.44051526508858611005E-3),
                         C(1.55934409164153020873E-4),
                         C(1.84627567348930545870E-6),
                         C(1.12699224763999035261E-8),
                         C(3.60140029589371370404E-11),
                         C(5.88754533621578410010E-14),
                         C(4.52001434074129701496E-17),
                         C(1.25443237090011264384E-20)};
  static const C GN[] = {
      C(5.04442073643383265887E-1),  C(1.97102833525523411709E-1),  C(1.87648584092575249293E-2),
      C(6.84079380915393090172E-4),  C(1.15138826111884280931E-5),  C(9.82852443688422223854E-8),
      C(4.45344415861750144738E-10), C(1.08268041139020870318E-12), C(1.37555460633261799868E-15),
      C(8.36354435630677421531E-19), C(1.86958710162783235106E-22)};
  static const C GD[] = {C(1.0),
                         C(1.47495759925128324529E0),
                         C(3.37748989120019970451E-1),
                         C(2.53603741420338795122E-2),
                         C(8.14679107184306179049E-4),
                         C(1.27545075667729118702E-5),
                         C(1.04314589657571990585E-7),
                         C(4.60680728146520428211E-10),
                         C(1.10273215066240270757E-12),
                         C(1.38796531259578871258E-15),
                         C(8.39158816283118707363E-19),
                         C(1.86958710162783236342E-22)};
  const C pi = C(EIGEN_PI);
  const C x2 = x * x;
  const C t = C(1) / (pi * x2);
  const C u = t * t;
  const C f = C(1) - u * (polevl<C, 9>(u, FN) / polevl<C, 10>(u, FD));
  const C g = t * polevl<C, 10>(u, GN) / polevl<C, 11>(u, GD);
  const C z = C(1.5707963267948966) * x2;
  const C c = Eigen::numext::cos(z);
  const C s = Eigen::numext::sin(z);
  const C y = C(1) / (pi * x);
  if (sine) {
    C v = f * c;
    v += g * s;
    return C(0.5) - v * y;
  }
  C v = f * s;
  v -= g * c;
  return C(0.5) + v * y;
}

// FresnelCos / FresnelSin: odd; +-1/2 beyond |x| > 36974.
template <class C>
C fresnel(C x, bool sine) {
  static const C CN[] = {C(-4.98843114573573548651E-8), C(9.50428062829859605134E-6),
                         C(-6.45191435683965050962E-4), C(1.88843319396703850064E-2),
                         C(-2.05525900955013891793E-1), C(9.99999999999999998822E-1)};
  static const C CD[] = {C(3.99982968972495980367E-12), C(9.15439215774657478799E-10),
                         C(1.25001862479598821474E-7),  C(1.22262789024179030997E-5),
                         C(8.68029542941784300606E-4),  C(4.12142090722199792936E-2),
                         C(1.00000000000000000118E0)};
  static const C SN[] = {C(-2.99181919401019853726E3),  C(7.08840045257738576863E5),
                         C(-6.29741486205862506537E7),  C(2.54890880573376359104E9),
                         C(-4.42979518059697779103E10), C(3.18016297876567817986E11)};
  static const C SD[] = {C(1.0),
                         C(2.81376268889994315696E2),
                         C(4.55847810806532581675E4),
                         C(5.17343888770096400730E6),
                         C(4.19320245898111231129E8),
                         C(2.24411795645340920940E10),
                         C(6.07366389490084639049E11)};
  const C ax = std::abs(x);
  if (ax > C(36974.0)) return x < C(0) ? C(-0.5) : C(0.5);
  const C x2 = x * x;
  C v;
  if (x2 < C(2.5625)) {
    const C x4 = x2 * x2;
    v = sine ? (ax * x2) * polevl<C, 5>(x4, SN) / polevl<C, 6>(x4, SD)
             : ax * polevl<C, 5>(x4, CN) / polevl<C, 6>(x4, CD);
  } else {
    v = fresnel_asymptotic(ax, sine);
  }
  return x < C(0) ? -v : v;
}

// Spence's integral (the dilogarithm Li2(1 - x)): NaN for x < 0, pi^2 / 6 at 0, 0 at 1.
template <class C>
C spence(C x) {
  static const C A[] = {C(4.65128586073990045278E-5), C(7.31589045238094711071E-3),
                        C(1.33847639578309018650E-1), C(8.79691311754530315341E-1),
                        C(2.71149851196553469920E0),  C(4.25697156008121755724E0),
                        C(3.29771340985225106936E0),  C(1.00000000000000000126E0)};
  static const C B[] = {C(6.90990488912553276999E-4), C(2.54043763932544379113E-2),
                        C(2.82974860602568089943E-1), C(1.41172597751831069617E0),
                        C(3.63800533345137075418E0),  C(5.03278880143316990390E0),
                        C(3.54771340985225096217E0),  C(9.99999999999999998740E-1)};
  const C one = C(1), half = C(0.5);
  const C pi2o6 = C(EIGEN_PI * EIGEN_PI / 6.0);
  if (x < C(0)) return std::numeric_limits<C>::quiet_NaN();
  if (x == C(0)) return pi2o6;
  if (x == one) return C(0);
  const C y = x < C(2) ? x : one / x;
  C w;
  if (C(1.5) < y)
    w = one / y - one;
  else
    w = y < half ? -y : y - one;
  C s = -w * (polevl<C, 7>(w, A) / polevl<C, 7>(w, B));
  const C z = Eigen::numext::log(y);
  if (y < half) s = -z * Eigen::numext::log1p(-y) + pi2o6 - s;
  if (C(1.5) < x) s = -half * z * z - s;
  return s;
}

// -- unary functors -----------------------------------------------------------------------

// A unary functor through one of Eigen's scalar functors, element by element. TensorFlow
// runs the Bessel functions through Eigen's packets where its CPU has them and the scalar
// form for the rest of a tensor; the two agree to a few ulps and the scalar form is used
// here for every element, whatever the SIMD width.
template <template <class> class EigenOp, int Cycles>
struct EigenScalarFn {
  static constexpr double kCycles = Cycles;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return EigenOp<C>()(x);
  }
};

using BesselI0Fn = EigenScalarFn<Eigen::internal::scalar_bessel_i0_op, 80>;
using BesselI0eFn = EigenScalarFn<Eigen::internal::scalar_bessel_i0e_op, 70>;
using BesselI1Fn = EigenScalarFn<Eigen::internal::scalar_bessel_i1_op, 80>;
using BesselI1eFn = EigenScalarFn<Eigen::internal::scalar_bessel_i1e_op, 70>;
using BesselJ0Fn = EigenScalarFn<Eigen::internal::scalar_bessel_j0_op, 80>;
using BesselJ1Fn = EigenScalarFn<Eigen::internal::scalar_bessel_j1_op, 80>;
using BesselK0Fn = EigenScalarFn<Eigen::internal::scalar_bessel_k0_op, 80>;
using BesselK0eFn = EigenScalarFn<Eigen::internal::scalar_bessel_k0e_op, 80>;
using BesselK1Fn = EigenScalarFn<Eigen::internal::scalar_bessel_k1_op, 80>;
using BesselK1eFn = EigenScalarFn<Eigen::internal::scalar_bessel_k1e_op, 80>;
using BesselY0Fn = EigenScalarFn<Eigen::internal::scalar_bessel_y0_op, 100>;
using BesselY1Fn = EigenScalarFn<Eigen::internal::scalar_bessel_y1_op, 100>;

struct DawsnFn {
  static constexpr double kCycles = 40;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return dawsn(x);
  }
};
struct ExpintFn {
  static constexpr double kCycles = 50;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return expint(x);
  }
};
struct FresnelCosFn {
  static constexpr double kCycles = 60;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return fresnel(x, false);
  }
};
struct FresnelSinFn {
  static constexpr double kCycles = 60;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return fresnel(x, true);
  }
};
struct SpenceFn {
  static constexpr double kCycles = 50;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return spence(x);
  }
};

// -- PopulationCount ----------------------------------------------------------------------

// PopulationCount(x): the number of set bits of each element's two's complement
// representation, as uint8 (population_count_op.cc).
template <class T>
class PopulationCountOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    std::uint8_t* o =
        ctx.allocate_output_for_overwrite(0, DType::uint8, x.shape()).template data<std::uint8_t>();
    const Index n = x.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(1, 2), [&](Index b, Index e) {
      using U = std::make_unsigned_t<T>;
      for (Index i = b; i < e; ++i)
        o[i] = static_cast<std::uint8_t>(std::popcount(static_cast<U>(xp[i])));
    });
  }
};

// -- Betainc ------------------------------------------------------------------------------

// Betainc(a, b, x): the regularized incomplete beta function I_x(a, b) (Eigen's betainc). Each
// input is a scalar or of the one shape the others of rank > 0 have (betainc_op.cc: no other
// broadcasting); NaN outside a, b > 0 and 0 <= x <= 1.
template <class T>
class BetaincOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& x = ctx.input(2);
    auto consistent = [](const Tensor& p, const Tensor& q, const char* pn, const char* qn) {
      if (p.rank() > 0 && q.rank() > 0 && p.shape() != q.shape())
        return invalid_argument("Shapes of " + std::string(pn) + " and " + qn +
                                " are inconsistent: " + p.shape().to_string() + " vs. " +
                                q.shape().to_string());
      return Status{};
    };
    ACTORFLOW_RETURN_IF_ERROR(consistent(a, b, "a", "b"));
    ACTORFLOW_RETURN_IF_ERROR(consistent(a, x, "a", "x"));
    ACTORFLOW_RETURN_IF_ERROR(consistent(b, x, "b", "x"));
    Shape merged = a.shape();
    if (b.rank() > 0) merged = b.shape();
    if (x.rank() > 0) merged = x.shape();
    T* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, merged).template data<T>();
    const Index n = ctx.outputs()[0].num_elements();
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    const T* xp = x.data<T>();
    // A scalar input is read at 0 for every element, the others element by element.
    const Index sa = a.rank() > 0 ? 1 : 0, sb = b.rank() > 0 ? 1 : 0, sx = x.rank() > 0 ? 1 : 0;
    parallel_for(ctx, n, n, elementwise_cost<T>(3, 1000), [&](Index begin, Index end) {
      for (Index i = begin; i < end; ++i)
        o[i] = Eigen::numext::betainc(ap[i * sa], bp[i * sb], xp[i * sx]);
    });
    return {};
  }
};

// -- EuclideanNorm ------------------------------------------------------------------------

// EuclideanNorm(input, reduction_indices; keep_dims): sqrt(sum(x * x)) over the reduced axes
// (TensorFlow's EuclideanNormReducer: squares and sums in T, float for bfloat16, then sqrt).
// Integer squares and sums wrap and the root is truncated (a wrapped negative sum gives the
// type's lowest value, what x86 makes of sqrt's NaN). Axes may repeat only as an error:
// "Invalid reduction arguments: Axes contains duplicate dimension: 0". Reducing nothing, or
// only dimensions of size 1, still squares and roots each element (|x|). An empty reduction
// gives 0.
template <class T>
class EuclideanNormOp : public StatusKernel {
 public:
  EuclideanNormOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    c.get_attr("keep_dims", &keep_dims_);
    *s = {};
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveElements;
  }

 protected:
  using A = std::conditional_t<std::is_integral_v<T>, T, compute_t<T>>;

  Status run(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const int rank = in.rank();
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (Index axis : index_values(ctx.input(1))) {
      if (axis < -rank || axis >= rank)
        return invalid_argument("Invalid reduction dimension (" + std::to_string(axis) +
                                " for input with " + std::to_string(rank) + " dimension(s)");
      const Index d = (axis + rank) % rank;
      if (reduced[static_cast<std::size_t>(d)])
        return invalid_argument("Invalid reduction arguments: Axes contains duplicate dimension: " +
                                std::to_string(d));
      reduced[static_cast<std::size_t>(d)] = true;
    }
    // The kept and the reduced dimensions as runs of adjacent dimensions of one kind (size-1
    // dimensions dropped), each a size and an element stride in the input.
    std::vector<std::int64_t> out_dims;
    std::vector<Index> kept_sizes, kept_strides, reduced_sizes, reduced_strides;
    const std::vector<Index> strides = detail::row_major_strides(in.shape());
    int last_kind = -1;  // 0 kept, 1 reduced
    for (int d = 0; d < rank; ++d) {
      const auto u = static_cast<std::size_t>(d);
      const Index size = in.shape().dim(d);
      if (reduced[u] && keep_dims_) out_dims.push_back(1);
      if (!reduced[u]) out_dims.push_back(size);
      if (size == 1) continue;
      auto& sizes = reduced[u] ? reduced_sizes : kept_sizes;
      auto& run_strides = reduced[u] ? reduced_strides : kept_strides;
      const int kind = reduced[u] ? 1 : 0;
      if (kind == last_kind) {
        sizes.back() *= size;  // row-major: the run's stride becomes this dimension's
        run_strides.back() = strides[u];
      } else {
        sizes.push_back(size);
        run_strides.push_back(strides[u]);
      }
      last_kind = kind;
    }
    T* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, Shape(std::move(out_dims)))
               .template data<T>();
    const Index n_out = ctx.outputs()[0].num_elements();
    if (n_out == 0) return {};
    Index count = 1;  // the elements each output sums
    for (Index size : reduced_sizes) count *= size;
    if (count == 0) {
      std::fill(o, o + n_out, root(A(0)));
      return {};
    }
    // The innermost reduced run is walked in a loop, the others by an odometer.
    const Index inner = reduced_sizes.empty() ? 1 : reduced_sizes.back();
    const Index inner_stride = reduced_sizes.empty() ? 0 : reduced_strides.back();
    const std::size_t outer_runs = reduced_sizes.empty() ? 0 : reduced_sizes.size() - 1;
    const T* ip = in.data<T>();
    parallel_for(ctx, n_out, n_out * count, elementwise_cost<T>(1, 3) * static_cast<double>(count),
                 [&](Index b, Index e) {
                   std::vector<Index> coord(outer_runs);
                   for (Index i = b; i < e; ++i) {
                     Index base = 0, rest = i;
                     for (std::size_t k = kept_sizes.size(); k-- > 0;) {
                       base += (rest % kept_sizes[k]) * kept_strides[k];
                       rest /= kept_sizes[k];
                     }
                     A sum = A(0);
                     std::fill(coord.begin(), coord.end(), Index{0});
                     Index offset = base;
                     while (true) {
                       const T* p = ip + offset;
                       for (Index j = 0; j < inner; ++j) {
                         const A v = static_cast<A>(to_compute(p[j * inner_stride]));
                         sum = wrapping_add(sum, wrapping_mul(v, conj_of(v)));  // |v|^2
                       }
                       std::size_t k = outer_runs;
                       for (; k-- > 0;) {
                         offset += reduced_strides[k];
                         if (++coord[k] < reduced_sizes[k]) break;
                         offset -= reduced_strides[k] * reduced_sizes[k];
                         coord[k] = 0;
                       }
                       if (k == static_cast<std::size_t>(-1)) break;  // every run wrapped
                     }
                     o[i] = root(sum);
                   }
                 });
    return {};
  }

 private:
  static T root(A sum) {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (sum < A(0)) return std::numeric_limits<T>::min();
      }
      return static_cast<T>(std::sqrt(static_cast<double>(sum)));
    } else {
      return from_compute<T>(std::sqrt(sum));
    }
  }

  bool keep_dims_ = false;
};

// -- registration -------------------------------------------------------------------------

template <class... Ts>
void register_euclidean_norm(KernelRegistry& r, detail::TypeList<Ts...> /*types*/) {
  detail::register_for_types_on<EuclideanNormOp, Ts...>(r, "EuclideanNorm", "T",
                                                        {{"Tidx", detail::kIndexTypes}});
}

// For float, double and `More` (the Bessel functions: float16, as TensorFlow's).
template <class Fn, class... More>
void register_real_unary(KernelRegistry& r, const char* op) {
  register_for_types<Unary<Fn>::template Kernel, float, double, More...>(r, op);
}

}  // namespace

namespace detail {

void register_math_special_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  using std::uint8_t;
  register_for_list<Binary<MulNoNanFn>::Kernel>(r, "MulNoNan", FloatComplexTypes{});
  register_for_list<Binary<Xlog1pyFn>::Kernel>(r, "Xlog1py", FloatComplexTypes{});
  register_for_types<Binary<NextAfterFn>::Kernel, float, double>(r, "NextAfter");
  register_for_types<Binary<IgammaFn>::Kernel, float, double>(r, "Igamma");
  register_for_types<Binary<IgammacFn>::Kernel, float, double>(r, "Igammac");
  register_for_types<Binary<IgammaGradAFn>::Kernel, float, double>(r, "IgammaGradA");
  register_for_types<BetaincOp, float, double>(r, "Betainc");
  register_real_unary<BesselI0Fn, half_t>(r, "BesselI0");
  register_real_unary<BesselI0eFn, half_t>(r, "BesselI0e");
  register_real_unary<BesselI1Fn, half_t>(r, "BesselI1");
  register_real_unary<BesselI1eFn, half_t>(r, "BesselI1e");
  register_real_unary<BesselJ0Fn, half_t>(r, "BesselJ0");
  register_real_unary<BesselJ1Fn, half_t>(r, "BesselJ1");
  register_real_unary<BesselK0Fn, half_t>(r, "BesselK0");
  register_real_unary<BesselK0eFn, half_t>(r, "BesselK0e");
  register_real_unary<BesselK1Fn, half_t>(r, "BesselK1");
  register_real_unary<BesselK1eFn, half_t>(r, "BesselK1e");
  register_real_unary<BesselY0Fn, half_t>(r, "BesselY0");
  register_real_unary<BesselY1Fn, half_t>(r, "BesselY1");
  register_real_unary<DawsnFn>(r, "Dawsn");
  register_real_unary<ExpintFn>(r, "Expint");
  register_real_unary<FresnelCosFn>(r, "FresnelCos");
  register_real_unary<FresnelSinFn>(r, "FresnelSin");
  register_real_unary<SpenceFn>(r, "Spence");
  register_for_list<PopulationCountOp>(r, "PopulationCount", IntegralTypes{});
  register_euclidean_norm(r, NumberTypes{});
}

}  // namespace detail

}  // namespace af
