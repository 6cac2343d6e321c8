// The misc_math family against TensorFlow's behaviour: the builders of
// actorflow/ops/misc_math_ops.hpp name and shape their ops as TensorFlow, the kernels give
// TensorFlow's values on edge cases (shifts out of range, poles, domains), seeded sampling
// repeats TensorFlow's Philox streams, and bad input fails with TensorFlow's messages. The
// values of every op against TensorFlow 2.21 are in the op fixtures
// (scripts/peers/op_cases_misc_math.py).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/misc_math_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::test::fails_with;
using af::test::values;
using af::test::vec;

}  // namespace

BOOST_AUTO_TEST_SUITE(misc_math_ops_test)

BOOST_AUTO_TEST_CASE(special_functions_give_tensorflows_edge_values) {
  af::Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const Output x = vec<float>(g, {0.0f, -1.0f, 1.0f, 2.0f});
  const Output p = vec<float>(g, {0.0f, 1.0f, 0.5f, 1.5f});
  af::Session sess(g);
  const auto v = sess.run(
      {af::lgamma(x), af::digamma(x), af::ndtri(p), af::erfinv(x), af::atanh(x), af::acosh(x)});
  BOOST_TEST(values<float>(v[0])[0] == inf);  // pole at 0
  BOOST_TEST(values<float>(v[0])[1] == inf);  // pole at -1
  BOOST_TEST(values<float>(v[0])[2] == 0.0f);
  BOOST_TEST(std::isnan(values<float>(v[1])[0]));
  BOOST_TEST(values<float>(v[1])[2] == -0.5772157f, boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(values<float>(v[2])[0] == -inf);
  BOOST_TEST(values<float>(v[2])[1] == inf);
  BOOST_TEST(values<float>(v[2])[2] == 0.0f);
  BOOST_TEST(std::isnan(values<float>(v[2])[3]));
  BOOST_TEST(values<float>(v[3])[1] == -inf);
  BOOST_TEST(values<float>(v[3])[2] == inf);
  BOOST_TEST(std::isnan(values<float>(v[3])[3]));
  BOOST_TEST(values<float>(v[4])[1] == -inf);
  BOOST_TEST(std::isnan(values<float>(v[5])[0]));
  BOOST_TEST(values<float>(v[5])[2] == 0.0f);
  BOOST_TEST(af::polygamma(x, x).name() == "Polygamma:0");
  // TensorFlow's OpDef takes bfloat16 (its CPU kernels do not), not integers.
  BOOST_CHECK_THROW(af::lgamma(af::cast(x, DType::int32)), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::zeta(x, af::cast(x, DType::float64)), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(special_function_gradients_follow_math_grad) {
  af::Graph g;
  const Output x = vec<double>(g, {0.5, 2.0, 3.5});
  const auto gl = af::gradients({af::reduce_sum(af::lgamma(x))}, {x});
  const auto gd = af::gradients({af::reduce_sum(af::digamma(x))}, {x});
  af::Session sess(g);
  const auto v = sess.run({gl[0], gd[0]});
  // d lgamma = digamma; d digamma = trigamma (pi^2 / 2 at 1/2).
  BOOST_TEST(values<double>(v[0])[1] == 0.42278433509846713, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(values<double>(v[1])[0] == 4.934802200544679, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(clip_by_value_takes_scalar_or_same_shape_bounds) {
  af::Graph g;
  const Output t = vec<float>(g, {-3.0f, 0.5f, 4.0f});
  const Output lo = g.constant(Tensor(-1.0f));
  const Output hi = vec<float>(g, {0.0f, 1.0f, 2.0f});
  const Output c = af::clip_by_value(t, lo, hi);
  BOOST_TEST(c.name() == "clip_by_value:0");
  BOOST_TEST(c.node()->type() == "ClipByValue");
  const auto grads = af::gradients({af::reduce_sum(c)}, {t, lo, hi});
  const Output bad = af::clip_by_value(t, vec<float>(g, {0.0f, 1.0f}), lo, "bad");
  af::Session sess(g);
  const auto v = sess.run({c, grads[0], grads[1], grads[2]});
  BOOST_TEST(values<float>(v[0]) == (std::vector<float>{-1.0f, 0.5f, 2.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[1]) == (std::vector<float>{0.0f, 1.0f, 0.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[2])[0] == 1.0f);  // below the scalar minimum once
  BOOST_TEST(values<float>(v[3]) == (std::vector<float>{0.0f, 0.0f, 1.0f}),
             boost::test_tools::per_element());
  fails_with(sess, bad,
             "clip_value_min and clip_value_max must be either of the same shape as input, or a "
             "scalar. input shape: [3]clip_value_min shape: [2]clip_value_max shape: []");
}

BOOST_AUTO_TEST_CASE(roll_cross_and_lin_space_build_and_run_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(
      Tensor::from_vector(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}, af::Shape{2, 3}), "x");
  const Output r = af::roll(x, {1, -4}, {1, -1});
  BOOST_TEST(r.name() == "Roll:0");
  BOOST_TEST(g.operation("Roll/shift").type() == "Const");
  BOOST_TEST(r.shape() == af::PartialShape({2, 3}));
  const Output a = vec<float>(g, {1.0f, 0.0f, 0.0f});
  const Output b = vec<float>(g, {0.0f, 1.0f, 0.0f});
  const Output c = af::cross(a, b);
  const Output l = af::lin_space(g, 0.0, 1.0, 5);
  BOOST_TEST(l.shape() == af::PartialShape({5}));
  BOOST_CHECK_THROW(af::cross(vec<float>(g, {1.0f, 2.0f}), vec<float>(g, {1.0f, 2.0f})),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::lin_space(g, 0.0, 1.0, 0), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::roll(g.constant(Tensor(1.0f)), {1}, {0}), af::InvalidArgumentError);
  af::Session sess(g);
  const auto v = sess.run({r, c, l});
  // Shifts of one axis add up: 1 - 4 = -3, a full turn of 3.
  BOOST_TEST(values<std::int32_t>(v[0]) == (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[1]) == (std::vector<float>{0.0f, 0.0f, 1.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[2]) == (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f}),
             boost::test_tools::per_element());
  const Output bad_axis = af::roll(x, {1}, {2}, "bad_axis");
  fails_with(sess, bad_axis, "axis 2 is out of range");
}

BOOST_AUTO_TEST_CASE(shifts_out_of_range_clamp_as_tensorflow) {
  af::Graph g;
  const Output x = vec<std::int32_t>(g, {1, 1, 1, -8, 5});
  const Output s = vec<std::int32_t>(g, {31, 32, -1, 40, 100});
  af::Session sess(g);
  const auto v =
      sess.run({af::left_shift(x, s), af::right_shift(x, s), af::invert(x), af::bitwise_xor(x, s)});
  const std::int32_t min = std::numeric_limits<std::int32_t>::min();
  BOOST_TEST(values<std::int32_t>(v[0]) == (std::vector<std::int32_t>{min, min, 1, 0, min}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[1]) == (std::vector<std::int32_t>{0, 0, 1, -1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[2])[0] == -2);
  BOOST_TEST(values<std::int32_t>(v[3])[0] == 30);
  BOOST_CHECK_THROW(af::bitwise_and(x, af::cast(x, DType::int64)), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::invert(af::cast(x, DType::float32)), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(unique_and_bincount_count_as_tensorflow) {
  af::Graph g;
  const Output x = vec<std::int32_t>(g, {4, 1, 4, 4, 2, 7});
  const auto u = af::unique_with_counts(x, DType::int64);
  BOOST_TEST(u.y.name() == "UniqueWithCounts:0");
  BOOST_TEST(u.idx.dtype() == DType::int64);
  const Output m = g.constant(
      Tensor::from_vector(std::vector<std::int32_t>{1, 2, 1, 3, 4, 3}, af::Shape{2, 3}), "m");
  const auto cols = af::unique_with_counts_v2(m, {-1});
  BOOST_TEST(g.operation("UniqueWithCountsV2/axis").type() == "Const");
  const Output none = vec<float>(g, {});
  const Output bins = af::bincount(x, g.constant(Tensor(std::int32_t{5})), none);
  BOOST_TEST(bins.shape() == af::PartialShape({5}));
  const Output dense = af::dense_bincount(m, g.constant(Tensor(std::int32_t{4})), none, true);
  BOOST_TEST(dense.shape() == af::PartialShape({2, 4}));
  const Output negative = af::bincount(vec<std::int32_t>(g, {1, -1}),
                                       g.constant(Tensor(std::int32_t{3})), none, "negative");
  BOOST_CHECK_THROW(af::unique_with_counts(m), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::bincount(x, g.constant(Tensor(std::int32_t{-1})), none),
                    af::InvalidArgumentError);
  af::Session sess(g);
  const auto v = sess.run({u.y, u.idx, u.count, cols.y, cols.idx, cols.count, bins, dense});
  BOOST_TEST(values<std::int32_t>(v[0]) == (std::vector<std::int32_t>{4, 1, 2, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int64_t>(v[1]) == (std::vector<std::int64_t>{0, 1, 0, 0, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int64_t>(v[2]) == (std::vector<std::int64_t>{3, 1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].shape() == af::Shape({2, 2}));
  BOOST_TEST(values<std::int32_t>(v[4]) == (std::vector<std::int32_t>{0, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[5]) == (std::vector<std::int32_t>{2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[6]) == (std::vector<float>{0, 1, 1, 0, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[7]) == (std::vector<float>{0, 1, 1, 0, 0, 0, 0, 1}),
             boost::test_tools::per_element());
  fails_with(sess, negative, "Input arr must be non-negative!");
}

// The values were printed by TensorFlow 2.21 in graph mode: tf1.random_uniform([3, 5],
// minval=-3, maxval=10, dtype=tf.int32, seed=11) and tf1.multinomial(logits, 7, seed=8), seeds
// (87654321, 11) and (87654321, 8) without a graph seed; the op fixtures hold more streams.
BOOST_AUTO_TEST_CASE(seeded_sampling_repeats_tensorflows_philox_streams) {
  af::Graph g;
  const Output ints = af::random_uniform_int(g, af::Shape{3, 5}, -3, 10, DType::int32, 11);
  BOOST_TEST(ints.name() == "random_uniform:0");
  BOOST_TEST(ints.node()->type() == "RandomUniformInt");
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Output logits = g.constant(
      Tensor::from_vector(std::vector<float>{-inf, 0.0f, nan, 1.0f, inf, 0.0f, 0.0f, -inf},
                          af::Shape{2, 4}),
      "logits");
  const Output draws = af::multinomial(logits, 7, 8);
  BOOST_TEST(draws.name() == "multinomial/Multinomial:0");
  BOOST_TEST(draws.shape() == af::PartialShape({2, 7}));
  BOOST_CHECK_THROW(af::multinomial(logits, -1), af::InvalidArgumentError);
  const Output empty = af::random_uniform_int(g, af::Shape{0}, 5, 5, DType::int64, 1, "empty");
  const Output equal = af::random_uniform_int(g, af::Shape{2}, 5, 5, DType::int64, 1, "equal");
  af::Session sess(g);
  const auto v = sess.run({ints, draws, empty});
  BOOST_TEST(values<std::int32_t>(v[0]) ==
                 (std::vector<std::int32_t>{-2, 8, 6, 6, 7, 4, 2, 8, 2, -3, 7, -3, 1, -2, 8}),
             boost::test_tools::per_element());
  // Non-finite logits (classes 0 and 2 of row 0, 0 and 3 of row 1) are never drawn.
  BOOST_TEST(values<std::int64_t>(v[1]) ==
                 (std::vector<std::int64_t>{1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 2, 1, 2, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].num_elements() == 0);
  fails_with(sess, equal, "Need minval < maxval, got 5 >= 5");
}

BOOST_AUTO_TEST_CASE(approximate_equal_refuses_broadcasting) {
  af::Graph g;
  const Output x = vec<float>(g, {1.0f, 1.0f});
  const Output y = vec<float>(g, {1.000001f, 1.1f});
  const Output ok = af::approximate_equal(x, y);
  BOOST_CHECK_THROW(af::approximate_equal(x, vec<float>(g, {1.0f})), af::InvalidArgumentError);
  const Output open = g.placeholder(DType::float32, af::PartialShape({-1}), "open");
  const Output bad = af::approximate_equal(x, open, 1e-5f, "bad");
  af::Session sess(g);
  BOOST_TEST(values<bool>(sess.run(ok)) == (std::vector<bool>{true, false}),
             boost::test_tools::per_element());
  fails_with(sess, bad, "x and y must be of the same shape. x shape: [2]. y shape: [3]",
             {{open, Tensor::from_vector(std::vector<float>{1, 2, 3})}});
}

BOOST_AUTO_TEST_SUITE_END()
