// The math_special family against TensorFlow's behaviour: the builders of
// actorflow/ops/math_special_ops.hpp name and shape their ops as TensorFlow's Python, the
// kernels give TensorFlow's values at the edges of each function's domain (including its
// quirks: Dawsn(-1e10) > 0, Igammac(0, 0) is NaN, integer Euclidean norms wrap), the
// gradients follow math_grad.py (the imputed limits at 0 and 1 included), and bad input fails
// with TensorFlow's messages. The values of every op and gradient against TensorFlow 2.21 are
// in the op fixtures (scripts/peers/op_cases_math_special.py).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/math_special_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::test::fails_with;
using af::test::refuses;
using af::test::values;
using af::test::vec;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

BOOST_AUTO_TEST_SUITE(math_special_ops_test)

BOOST_AUTO_TEST_CASE(mul_no_nan_xlog1py_and_nextafter_give_tensorflows_values) {
  af::Graph g;
  const Output x = vec<float>(g, {INFINITY, NAN, 0.0f, 2.0f, -0.0f});
  const Output y = vec<float>(g, {0.0f, 0.0f, NAN, -0.0f, 5.0f});
  const Output m = af::multiply_no_nan(x, y);
  BOOST_TEST(m.name() == "multiply_no_nan:0");
  BOOST_TEST(m.node()->type() == "MulNoNan");
  const Output l = af::xlog1py(vec<double>(g, {0.0, -0.0, 2.0, 2.0, 1.0}),
                               vec<double>(g, {kNan, -2.0, -1.0, kInf, std::exp(1.0) - 1.0}));
  BOOST_TEST(l.name() == "xlog1py/Xlog1py:0");
  const Output n = af::nextafter(vec<float>(g, {0.0f, 1.0f, 1.0f, -0.0f}),
                                 vec<float>(g, {1.0f, 2.0f, 0.0f, 0.0f}));
  BOOST_TEST(n.name() == "NextAfter:0");
  af::Session sess(g);
  const auto v = sess.run({m, l, n});
  const auto mv = values<float>(v[0]);
  BOOST_TEST(mv[0] == 0.0f);  // 0 where y == 0, even for inf and NaN
  BOOST_TEST(mv[1] == 0.0f);
  BOOST_TEST(std::isnan(mv[2]));  // NaN y is not 0
  BOOST_TEST(mv[3] == 0.0f);
  BOOST_TEST(std::signbit(mv[4]));  // -0 * 5
  const auto lv = values<double>(v[1]);
  BOOST_TEST(lv[0] == 0.0);         // x == 0 wins over NaN
  BOOST_TEST(std::signbit(lv[1]));  // x itself: -0
  BOOST_TEST(lv[2] == -kInf);
  BOOST_TEST(lv[3] == kInf);
  BOOST_TEST(lv[4] == 1.0, boost::test_tools::tolerance(1e-15));
  const auto nv = values<float>(v[2]);
  BOOST_TEST(nv[0] == std::numeric_limits<float>::denorm_min());
  BOOST_TEST(nv[1] == std::nextafter(1.0f, 2.0f));
  BOOST_TEST(nv[2] == std::nextafter(1.0f, 0.0f));
  BOOST_TEST(!std::signbit(nv[3]));  // x2 where they are equal
  refuses([&] { af::multiply_no_nan(x, af::cast(y, DType::float64)); },
          "Input 'y' of 'MulNoNan' Op has type float64 that does not match type float32 of "
          "argument 'x'.");
  refuses([&] { af::nextafter(af::cast(x, DType::bfloat16), af::cast(x, DType::bfloat16)); },
          "Value for attr 'T' of bfloat16 is not in the list of allowed values: float, double");
  refuses(
      [&] {
        af::multiply_no_nan(vec<float>(g, {1, 2}), vec<float>(g, {1, 2, 3}));
      },
      "Dimensions must be equal, but are 2 and 3");
}

BOOST_AUTO_TEST_CASE(incomplete_gamma_functions_give_tensorflows_values) {
  af::Graph g;
  const Output a = vec<double>(g, {1.0, 1.0, 0.0, 0.0, -1.0, 2.0, 1.0});
  const Output x = vec<double>(g, {2.0, 0.0, 0.0, 1.0, 1.0, kInf, -1.0});
  const Output p = af::igamma(a, x);
  const Output q = af::igammac(a, x);
  const Output d = af::igamma_grad_a(vec<double>(g, {0.5}), vec<double>(g, {1e-3}));
  BOOST_TEST(p.name() == "Igamma:0");
  BOOST_TEST(q.name() == "Igammac:0");
  BOOST_TEST(d.name() == "IgammaGradA:0");
  af::Session sess(g);
  const auto v = sess.run({p, q, d});
  const auto pv = values<double>(v[0]), qv = values<double>(v[1]);
  BOOST_TEST(pv[0] == 1.0 - std::exp(-2.0), boost::test_tools::tolerance(1e-13));
  BOOST_TEST(qv[0] == std::exp(-2.0), boost::test_tools::tolerance(1e-13));
  BOOST_TEST(pv[1] == 0.0);
  BOOST_TEST(qv[1] == 1.0);
  BOOST_TEST(pv[2] == 0.0);       // x == 0 is checked first
  BOOST_TEST(std::isnan(qv[2]));  // a <= 0 is checked first
  BOOST_TEST(std::isnan(pv[3]));
  BOOST_TEST(std::isnan(pv[4]));
  BOOST_TEST(pv[5] == 1.0);
  BOOST_TEST(qv[5] == 0.0);
  BOOST_TEST(std::isnan(pv[6]));
  BOOST_TEST(values<double>(v[2])[0] == -0.24772119046242067, boost::test_tools::tolerance(1e-9));
  refuses([&] { af::igamma(a, af::cast(x, DType::float32)); },
          "Input 'x' of 'Igamma' Op has type float32 that does not match type float64 of "
          "argument 'a'.");
}

BOOST_AUTO_TEST_CASE(betainc_takes_scalars_or_one_shape) {
  af::Graph g;
  const Output x = vec<double>(g, {0.0, 0.25, 0.5, 1.0, 1.5});
  // I_x(1, 1) = x and I_x(2, 1) = x^2; NaN outside [0, 1] and for a <= 0.
  const Output uniform = af::betainc(g.constant(Tensor(1.0)), g.constant(Tensor(1.0)), x);
  const Output square =
      af::betainc(vec<double>(g, {2.0, 2.0, 2.0, 2.0, 2.0}), g.constant(Tensor(1.0)), x, "square");
  const Output bad =
      af::betainc(g.constant(Tensor(0.0)), g.constant(Tensor(1.0)), g.constant(Tensor(0.5)));
  BOOST_TEST(uniform.name() == "Betainc:0");
  BOOST_TEST(uniform.shape() == af::PartialShape({5}));
  BOOST_TEST(bad.shape() == af::PartialShape(std::vector<std::int64_t>{}));
  // Unknown shapes: the kernel's checks.
  const Output pa = g.placeholder(DType::float32, af::PartialShape::unknown(), "pa");
  const Output pb = g.placeholder(DType::float32, af::PartialShape::unknown(), "pb");
  const Output px = g.placeholder(DType::float32, af::PartialShape::unknown(), "px");
  const Output fed = af::betainc(pa, pb, px);
  BOOST_TEST(!fed.shape().rank_known());
  af::Session sess(g);
  const auto v = sess.run({uniform, square, bad});
  const auto uv = values<double>(v[0]), sv = values<double>(v[1]);
  BOOST_TEST(uv[0] == 0.0);
  BOOST_TEST(uv[1] == 0.25, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(uv[3] == 1.0);
  BOOST_TEST(std::isnan(uv[4]));
  BOOST_TEST(sv[2] == 0.25, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(std::isnan(values<double>(v[2])[0]));
  const Tensor two = Tensor::from_vector(std::vector<float>{1.0f, 2.0f});
  const Tensor three = Tensor::from_vector(std::vector<float>{0.1f, 0.2f, 0.3f});
  fails_with(sess, fed, "Shapes of a and b are inconsistent: [2] vs. [3]",
             {{pa, two}, {pb, three}, {px, Tensor(0.5f)}});
  fails_with(sess, fed, "Shapes of a and x are inconsistent: [2] vs. [3]",
             {{pa, two}, {pb, Tensor(1.0f)}, {px, three}});
  fails_with(sess, fed, "Shapes of b and x are inconsistent: [2] vs. [3]",
             {{pa, Tensor(1.0f)}, {pb, two}, {px, three}});
  const auto ok = sess.run(fed, {{pa, Tensor(1.0f)}, {pb, two}, {px, Tensor(0.5f)}});
  BOOST_TEST(ok.shape() == af::Shape({2}));
  refuses(
      [&] {
        af::betainc(vec<float>(g, {1, 2}), vec<float>(g, {1, 2, 3}), pa);
      },
      "Dimension 0 in both shapes must be equal, but are 2 and 3");
  refuses([&] { af::betainc(pa, pb, af::cast(px, DType::float64)); },
          "Input 'x' of 'Betainc' Op has type float64 that does not match type float32 of "
          "argument 'a'.");
}

BOOST_AUTO_TEST_CASE(bessel_functions_and_integrals_give_tensorflows_values) {
  af::Graph g;
  const Output one = vec<double>(g, {1.0});
  const Output edge = vec<double>(g, {0.0, -1e10, -kInf, -1.0, kInf, kNan});
  const Output i0 = af::bessel_i0(one);
  BOOST_TEST(i0.name() == "bessel_i0/BesselI0:0");
  BOOST_TEST(af::bessel_i0(one).name() == "bessel_i0_1/BesselI0:0");
  BOOST_TEST(af::bessel_y1(one, "y").name() == "y/BesselY1:0");
  const std::vector<Output> at_one = {
      i0,
      af::bessel_i0e(one),
      af::bessel_i1(one),
      af::bessel_i1e(one),
      af::bessel_j0(one),
      af::bessel_j1(one),
      af::bessel_k0(one),
      af::bessel_k0e(one),
      af::bessel_k1(one),
      af::bessel_k1e(one),
      af::bessel_y0(one),
      af::bessel_y1(one),
      af::dawsn(one),
      af::expint(one),
      af::fresnel_cos(one),
      af::fresnel_sin(one),
      af::spence(vec<double>(g, {2.0})),
  };
  // scipy.special's values at 1 (spence at 2: -pi^2 / 12).
  const std::vector<double> want = {1.2660658777520082,
                                    0.46575960759364043,
                                    0.5651591039924851,
                                    0.2079104153497085,
                                    0.7651976865579666,
                                    0.44005058574493355,
                                    0.42102443824070834,
                                    1.1444630798068949,
                                    0.6019072301972346,
                                    1.636153486263258,
                                    0.08825696421567696,
                                    -0.7812128213002887,
                                    0.5380795069127684,
                                    1.8951178163559368,
                                    0.7798934003768228,
                                    0.4382591473903548,
                                    -std::numbers::pi * std::numbers::pi / 12.0};
  af::Session sess(g);
  const auto v = sess.run(at_one);
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(values<double>(v[i])[0] == want[i], boost::test_tools::tolerance(1e-13));
  const auto e = sess.run({af::bessel_k0(edge), af::bessel_y0(edge), af::dawsn(edge),
                           af::expint(edge), af::fresnel_cos(edge), af::spence(edge),
                           af::bessel_j0(edge), af::bessel_i1e(edge)});
  BOOST_TEST(values<double>(e[0])[0] == kInf);                                        // k0(0)
  BOOST_TEST(values<double>(e[0])[3] == kInf);                                        // k0 below 0
  BOOST_TEST(values<double>(e[1])[0] == -kInf);                                       // y0(0)
  BOOST_TEST(values<double>(e[2])[1] == 5e-11, boost::test_tools::tolerance(1e-12));  // quirk
  BOOST_TEST(values<double>(e[2])[2] == 0.0);
  BOOST_TEST(values<double>(e[3])[0] == -kInf);  // Ei(0)
  BOOST_TEST(std::isnan(values<double>(e[3])[3]));
  BOOST_TEST(values<double>(e[4])[2] == -0.5);
  BOOST_TEST(values<double>(e[4])[4] == 0.5);
  BOOST_TEST(values<double>(e[5])[0] == std::numbers::pi * std::numbers::pi / 6.0,
             boost::test_tools::tolerance(1e-15));
  BOOST_TEST(std::isnan(values<double>(e[5])[3]));
  BOOST_TEST(values<double>(e[6])[0] == 1.0);
  BOOST_TEST(std::isnan(values<double>(e[6])[4]));
  BOOST_TEST(values<double>(e[7])[4] == 0.0);
  for (const auto& t : e) BOOST_TEST(std::isnan(values<double>(t)[5]));
  // TensorFlow's OpDefs allow bfloat16 and half; its CPU kernels are float, double and (the
  // Bessel functions) half: a bfloat16 BesselJ0 is built and refused when run.
  for (DType t : {DType::bfloat16, DType::float16}) {
    af::Graph h;
    const Output y = af::bessel_j0(af::cast(vec<double>(h, {1.0}), t));
    af::Session s(h);
    if (t == DType::bfloat16) {
      fails_with(s, y, "No OpKernel was registered to support Op 'BesselJ0'");
    } else {
      const Tensor j0 = s.run(y);
      BOOST_TEST(static_cast<float>(j0.data<af::half_t>()[0]) == 0.76513671875f);  // J0(1)
    }
  }
  refuses([&] { af::dawsn(af::cast(one, DType::int32)); },
          "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
          "float, double");
}

BOOST_AUTO_TEST_CASE(special_function_gradients_follow_math_grad) {
  af::Graph g;
  const Output x = vec<double>(g, {0.0, 1.0, 2.0});
  auto grad = [&](const Output& y) { return af::gradients({af::reduce_sum(y)}, {x})[0]; };
  const std::vector<Output> grads = {
      grad(af::bessel_i0(x)), grad(af::bessel_i1(x)), grad(af::bessel_i1e(x)),
      grad(af::bessel_j1(x)), grad(af::dawsn(x)),     grad(af::fresnel_sin(x)),
      grad(af::spence(x)),    grad(af::bessel_j0(x)),
  };
  const Output a = vec<double>(g, {1.0, 2.0});
  const Output s = vec<double>(g, {0.5, 3.0});
  const auto ig = af::gradients({af::reduce_sum(af::igamma(a, s))}, {a, s});
  const auto icg = af::gradients({af::reduce_sum(af::igammac(a, s))}, {a, s});
  const Output bx = vec<double>(g, {0.25, 0.5});
  const Output bb = g.constant(Tensor(1.0));
  const auto bg = af::gradients({af::reduce_sum(af::betainc(a, bb, bx))}, {a, bb, bx});
  BOOST_TEST(!bg[0].valid());  // none to a and b, as TensorFlow
  BOOST_TEST(!bg[1].valid());
  const Output n1 = vec<double>(g, {1.0, 2.0}), n2 = g.constant(Tensor(0.0));
  const auto ng = af::gradients({af::reduce_sum(af::nextafter(n1, n2))}, {n1, n2});
  const Output my = vec<double>(g, {0.0, 3.0});
  const auto mg = af::gradients({af::reduce_sum(af::multiply_no_nan(n1, my))}, {n1, my});
  af::Session sess(g);
  const auto v = sess.run(grads);
  const auto at = [&](std::size_t i, std::size_t k) { return values<double>(v[i])[k]; };
  const auto tol = boost::test_tools::tolerance(1e-12);
  BOOST_TEST(at(0, 1) == 0.5651591039924851, tol);  // i1(1)
  BOOST_TEST(at(1, 0) == 1.0);                      // imputed at 0
  BOOST_TEST(at(2, 0) == 0.5);
  BOOST_TEST(at(3, 0) == 0.5);
  BOOST_TEST(at(4, 1) == 1.0 - 2.0 * 0.5380795069127684, tol);  // 1 - 2 x dawsn(x)
  BOOST_TEST(at(5, 1) == 1.0, tol);                             // sin(pi / 2)
  BOOST_TEST(at(6, 1) == -1.0);                                 // imputed at 1
  BOOST_TEST(at(6, 2) == std::log(2.0) / (1.0 - 2.0), tol);
  BOOST_TEST(at(7, 1) == -0.44005058574493355, tol);  // -j1(1)
  const auto w = sess.run({ig[1], icg[1], icg[0], ig[0], bg[2], ng[0], ng[1], mg[0], mg[1]});
  // d igamma / dx = x^(a-1) e^-x / Gamma(a); igammac's is its negation.
  BOOST_TEST(values<double>(w[0])[0] == std::exp(-0.5), tol);
  BOOST_TEST(values<double>(w[0])[1] == 3.0 * std::exp(-3.0), tol);
  BOOST_TEST(values<double>(w[1])[1] == -3.0 * std::exp(-3.0), tol);
  BOOST_TEST(values<double>(w[2])[0] == -values<double>(w[3])[0], tol);
  // d I_x(a, 1) / dx = a x^(a-1).
  BOOST_TEST(values<double>(w[4])[0] == 1.0, tol);
  BOOST_TEST(values<double>(w[4])[1] == 2.0 * 0.5, tol);
  BOOST_TEST(values<double>(w[5]) == (std::vector<double>{1.0, 1.0}),
             boost::test_tools::per_element());
  BOOST_TEST(values<double>(w[6])[0] == 0.0);  // zeros to x2, summed to its scalar shape
  BOOST_TEST(values<double>(w[7]) == (std::vector<double>{0.0, 3.0}),
             boost::test_tools::per_element());  // mul_no_nan(grad, y)
  BOOST_TEST(values<double>(w[8]) == (std::vector<double>{1.0, 2.0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(population_count_counts_bits_as_uint8) {
  af::Graph g;
  const Output p = af::population_count(vec<std::int32_t>(g, {0, -1, 7, INT32_MIN}));
  const Output q = af::population_count(vec<std::int64_t>(g, {-1, 1LL << 40}));
  const Output r = af::population_count(vec<std::uint8_t>(g, {255, 128}));
  BOOST_TEST(p.name() == "PopulationCount:0");
  BOOST_TEST(p.dtype() == DType::uint8);
  BOOST_TEST(p.shape() == af::PartialShape({4}));
  af::Session sess(g);
  const auto v = sess.run({p, q, r});
  BOOST_TEST(values<std::uint8_t>(v[0]) == (std::vector<std::uint8_t>{0, 32, 3, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::uint8_t>(v[1]) == (std::vector<std::uint8_t>{64, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::uint8_t>(v[2]) == (std::vector<std::uint8_t>{8, 1}),
             boost::test_tools::per_element());
  refuses([&] { af::population_count(vec<float>(g, {1.0f})); },
          "Value for attr 'T' of float is not in the list of allowed values: int8, int16, "
          "int32, int64, uint8, uint16, uint32, uint64");
}

BOOST_AUTO_TEST_CASE(euclidean_norm_reduces_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(
      Tensor::from_vector(std::vector<float>{3.0f, 4.0f, -5.0f, 12.0f}, af::Shape{2, 2}), "x");
  const Output rows = af::reduce_euclidean_norm(x, std::vector<std::int64_t>{1});
  BOOST_TEST(rows.name() == "EuclideanNorm:0");
  BOOST_TEST(g.operation("EuclideanNorm/reduction_indices").type() == "Const");
  const Output kept = af::reduce_euclidean_norm(x, std::vector<std::int64_t>{-1}, true);
  BOOST_TEST(kept.shape() == af::PartialShape({2, 1}));
  const Output all = af::reduce_euclidean_norm(x);
  BOOST_TEST(all.shape() == af::PartialShape(std::vector<std::int64_t>{}));
  const Output none = af::reduce_euclidean_norm(x, std::vector<std::int64_t>{});
  const Output ints = af::reduce_euclidean_norm(vec<std::int32_t>(g, {50000, 0, 3, 4}),
                                                std::vector<std::int64_t>{0}, false, "ints");
  const Output empty = af::reduce_euclidean_norm(
      g.constant(Tensor::from_vector(std::vector<float>{}, af::Shape{0, 3})),
      std::vector<std::int64_t>{0});
  const auto grads = af::gradients({af::reduce_sum(rows)}, {x});
  const Output axes = g.placeholder(DType::int32, af::PartialShape::unknown(), "axes");
  const Output fed = af::reduce_euclidean_norm(x, std::nullopt, false, "fed");
  const Output dynamic =
      g.create_op("EuclideanNorm", {x, axes},
                  {{"T", DType::float32}, {"Tidx", DType::int32}, {"keep_dims", false}}, "dynamic")
          .output(0);
  BOOST_TEST(!dynamic.shape().rank_known());
  af::Session sess(g);
  const auto v = sess.run({rows, kept, all, none, ints, empty, grads[0], fed});
  BOOST_TEST(values<float>(v[0]) == (std::vector<float>{5.0f, 13.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].shape() == af::Shape({2, 1}));
  BOOST_TEST(values<float>(v[2])[0] == std::sqrt(194.0f), boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(values<float>(v[7])[0] == values<float>(v[2])[0]);
  BOOST_TEST(values<float>(v[3]) == (std::vector<float>{3.0f, 4.0f, 5.0f, 12.0f}),
             boost::test_tools::per_element());  // no axis: |x|
  // 50000^2 wraps to a negative int32: the lowest value, as TensorFlow on x86.
  BOOST_TEST(values<std::int32_t>(v[4])[0] == INT32_MIN);
  BOOST_TEST(values<float>(v[5]) == (std::vector<float>{0.0f, 0.0f, 0.0f}),
             boost::test_tools::per_element());
  const std::vector<float> x_over_norm = {0.6f, 0.8f, -5.0f / 13.0f, 12.0f / 13.0f};
  for (std::size_t i = 0; i < x_over_norm.size(); ++i)
    BOOST_TEST(values<float>(v[6])[i] == x_over_norm[i], boost::test_tools::tolerance(1e-6f));
  fails_with(sess, dynamic, "Invalid reduction arguments: Axes contains duplicate dimension: 0",
             {{axes, Tensor::from_vector(std::vector<std::int32_t>{0, -2})}});
  fails_with(sess, dynamic, "Invalid reduction dimension (2 for input with 2 dimension(s)",
             {{axes, Tensor::from_vector(std::vector<std::int32_t>{2})}});
  refuses([&] { af::reduce_euclidean_norm(x, std::vector<std::int64_t>{2}); },
          "Invalid reduction dimension 2 for input with 2 dimensions.");
  refuses([&] { af::reduce_euclidean_norm(vec<std::string>(g, {"a"})); },
          "Value for attr 'T' of string is not in the list of allowed values");
}

BOOST_AUTO_TEST_SUITE_END()
