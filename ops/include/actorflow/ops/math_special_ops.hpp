#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// TensorFlow's further special functions and their neighbours (`tf.math`, `tf.math.special`,
/// `tf.bitwise`): NaN-safe products, the incomplete gamma and beta functions, the Bessel
/// functions, Dawson's, the exponential, the Fresnel and Spence's integrals, NextAfter,
/// PopulationCount and the Euclidean-norm reduction. Each builder adds one op (within the
/// name scope TensorFlow's Python opens, where it opens one); mismatched dtypes or shapes
/// throw InvalidArgumentError while building, with TensorFlow's shape-function message, and
/// the kernels fail the step with TensorFlow's message, the node named. The values are
/// TensorFlow's approximations (Eigen's and its Cephes ports), NaN outside each function's
/// domain as there.
namespace af {

// -- broadcasting binary functions ------------------------------------------------------------

/// `tf.math.multiply_no_nan(x, y)`: op MulNoNan (default name "multiply_no_nan"; float32,
/// float64, bfloat16; NumPy broadcasting): 0 where `y` is 0, even where `x` is NaN or
/// infinite, else x * y. Gradient: mul_no_nan(grad, y) to x, mul_no_nan(x, grad) to y, each
/// summed to its input's shape.
Output multiply_no_nan(const Output& x, const Output& y, std::string_view name = {});

/// `tf.math.xlog1py(x, y)`: op Xlog1py in scope "xlog1py" (float32, float64, bfloat16;
/// broadcasting): x * log1p(y), and x itself (a zero) where x == 0, even where log1p(y) is
/// -inf or NaN. Gradient: xlog1py(x != 0, y) to x, xdivy(x, y + 1) to y.
Output xlog1py(const Output& x, const Output& y, std::string_view name = {});

/// `tf.math.nextafter(x1, x2)`: op NextAfter (float32, float64; broadcasting), the next
/// representable value after x1 towards x2 (denormals included); x2 where they are equal.
/// Gradient as TensorFlow's: the gradient itself to x1, zeros to x2.
Output nextafter(const Output& x1, const Output& x2, std::string_view name = {});

/// `tf.math.igamma(a, x)`: op Igamma (float32, float64; broadcasting), the regularized lower
/// incomplete gamma function P(a, x): 0 where x == 0, NaN where a <= 0 or x < 0 (and a NaN
/// input). Gradient: IgammaGradA(a, x) to a, exp(-x + (a - 1) log x - lgamma(a)) to x.
Output igamma(const Output& a, const Output& x, std::string_view name = {});
/// `tf.math.igammac(a, x)`: op Igammac, the upper function Q(a, x) = 1 - P(a, x); NaN where
/// a <= 0 or x < 0 (x == 0 included when a <= 0). Gradient: the negated Igamma gradients.
Output igammac(const Output& a, const Output& x, std::string_view name = {});
/// `tf.raw_ops.IgammaGradA(a, x)`: op IgammaGradA (float32, float64; broadcasting),
/// d igamma(a, x) / da. Not differentiable (TensorFlow registers no gradient).
Output igamma_grad_a(const Output& a, const Output& x, std::string_view name = {});

/// `tf.math.betainc(a, b, x)`: op Betainc (float32, float64), the regularized incomplete beta
/// function I_x(a, b); NaN where a <= 0, b <= 0 or x is outside [0, 1]. No NumPy
/// broadcasting: each input is a scalar or of the one shape the others of rank > 0 have
/// ("Shapes of a and x are inconsistent: [2] vs. [3]" when running; "Dimension 0 in both
/// shapes must be equal, ..." while building for known shapes). Gradient to x only (none to
/// a and b, as TensorFlow): grad * x^(a-1) (1-x)^(b-1) / B(a, b), summed to x's shape; as
/// TensorFlow, it assumes x is a scalar or of a's shape (a scalar x with a scalar a and a
/// non-scalar b fails building the gradient's Reshape).
Output betainc(const Output& a, const Output& b, const Output& x, std::string_view name = {});

// -- unary special functions (float32, float64) -----------------------------------------------

/// `tf.math.bessel_i0(x)`: op BesselI0 in scope "bessel_i0", the modified Bessel function of
/// the first kind of order 0. Gradient grad * bessel_i1(x).
Output bessel_i0(const Output& x, std::string_view name = {});
/// `tf.math.bessel_i0e(x)`: op BesselI0e in scope "bessel_i0e", exp(-|x|) i0(x). Gradient
/// grad * (bessel_i1e(x) - sign(x) y).
Output bessel_i0e(const Output& x, std::string_view name = {});
/// `tf.math.bessel_i1(x)`: op BesselI1 in scope "bessel_i1". Gradient grad * (i0(x) - y / x),
/// 1 at x == 0.
Output bessel_i1(const Output& x, std::string_view name = {});
/// `tf.math.bessel_i1e(x)`: op BesselI1e in scope "bessel_i1e", exp(-|x|) i1(x). Gradient
/// grad * (i0e(x) - y (sign(x) + 1 / x)), 0.5 at x == 0.
Output bessel_i1e(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_j0(x)`: op BesselJ0 in scope "bessel_j0", the Bessel function of
/// the first kind of order 0; NaN at +-inf. Gradient -grad * bessel_j1(x).
Output bessel_j0(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_j1(x)`: op BesselJ1 in scope "bessel_j1". Gradient
/// grad * (j0(x) - y / x), 0.5 at x == 0.
Output bessel_j1(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_k0(x)`: op BesselK0 in scope "bessel_k0", the modified Bessel
/// function of the second kind of order 0; +inf for x <= 0. Gradient -grad * bessel_k1(x).
Output bessel_k0(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_k0e(x)`: op BesselK0e in scope "bessel_k0e", exp(x) k0(x).
/// Gradient grad * (y - bessel_k1e(x)).
Output bessel_k0e(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_k1(x)`: op BesselK1 in scope "bessel_k1"; +inf for x <= 0.
/// Gradient grad * (-k0(x) - y / x).
Output bessel_k1(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_k1e(x)`: op BesselK1e in scope "bessel_k1e", exp(x) k1(x).
/// Gradient grad * (y (1 - 1 / x) - k0e(x)).
Output bessel_k1e(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_y0(x)`: op BesselY0 in scope "bessel_y0", the Bessel function of
/// the second kind of order 0; -inf for x <= 0. Gradient -grad * bessel_y1(x).
Output bessel_y0(const Output& x, std::string_view name = {});
/// `tf.math.special.bessel_y1(x)`: op BesselY1 in scope "bessel_y1"; -inf below 0 (float32:
/// NaN at 0, float64: -inf, as Eigen). Gradient grad * (y0(x) - y / x).
Output bessel_y1(const Output& x, std::string_view name = {});

/// `tf.math.special.dawsn(x)`: op Dawsn in scope "dawsn", Dawson's integral. Gradient
/// grad * (1 - 2 x y).
Output dawsn(const Output& x, std::string_view name = {});
/// `tf.math.special.expint(x)`: op Expint in scope "expint", the exponential integral Ei(x);
/// NaN below 0, -inf at 0. Gradient grad * exp(x) / x.
Output expint(const Output& x, std::string_view name = {});
/// `tf.math.special.fresnel_cos(x)`: op FresnelCos in scope "fresnel_cos", the integral of
/// cos(pi t^2 / 2) from 0 to x. Gradient grad * cos(pi x^2 / 2).
Output fresnel_cos(const Output& x, std::string_view name = {});
/// `tf.math.special.fresnel_sin(x)`: op FresnelSin in scope "fresnel_sin". Gradient
/// grad * sin(pi x^2 / 2).
Output fresnel_sin(const Output& x, std::string_view name = {});
/// `tf.math.special.spence(x)`: op Spence in scope "spence", the integral of log(t) / (1 - t)
/// from 1 to x; NaN below 0. Gradient grad * log(x) / (1 - x), -grad at x == 1.
Output spence(const Output& x, std::string_view name = {});

// -- bits and reductions ----------------------------------------------------------------------

/// `tf.raw_ops.PopulationCount(x)` (bitwise_ops.population_count): op PopulationCount, the
/// number of set bits of each element (int32, int64, uint8; negative values in two's
/// complement) as uint8. Not differentiable.
Output population_count(const Output& x, std::string_view name = {});

/// `tf.math.reduce_euclidean_norm`: op EuclideanNorm, sqrt(sum(x^2)) over `axes`, laid out as
/// `reduce_sum` (ops.hpp): absent `axes` reduces all dimensions (a Const "Const" beside the
/// op; throws InvalidArgumentError when the rank is unknown), explicit axes become the Const
/// "<op>/reduction_indices". float32, float64, bfloat16, int32, int64, uint8; integer
/// squares and sums wrap and the root is truncated; a reduction of no values is 0; reducing
/// no axis still gives |x|. Errors: "Invalid reduction dimension 2 for input with 2
/// dimensions." (building), "Invalid reduction arguments: Axes contains duplicate dimension:
/// 0" (running). Gradient x / (y / grad), y and grad reshaped to the kept dimensions.
Output reduce_euclidean_norm(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                             bool keep_dims = false, std::string_view name = {});

}  // namespace af
