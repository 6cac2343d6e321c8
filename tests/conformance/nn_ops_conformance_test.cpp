// TensorFlow 1.x behaviour of the tf.nn ops on the CPU: the expected values are those of
// TensorFlow's kernel tests (python/kernel_tests/conv_ops_test.py, pooling_ops_test.py,
// bias_op_test.py; compiler/tests/conv2d_test.py), whose inputs are 1, 2, 3, ... in
// row-major order. These CPU kernels are also the reference the GPU kernels are checked
// against.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/nn_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

// 1, 2, 3, ... shaped as `shape` (TensorFlow's test inputs).
af::Tensor iota(const af::Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  std::iota(v.begin(), v.end(), 1.0f);
  return af::Tensor::from_vector(v, shape);
}

af::Tensor sizes(std::vector<std::int32_t> v) { return af::Tensor::from_vector(v); }

std::vector<float> run1(af::Graph& g, const af::Output& out) {
  af::Session sess(g);
  return sess.run(out).to_vector<float>();
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
  af::test::check_close(got, want, 1e-5f);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nn_ops_conformance_test)

// conv_ops_test.testConv2D1x1Filter.
BOOST_AUTO_TEST_CASE(conv2d_with_a_1x1_filter_is_a_per_pixel_matmul,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto y = af::nn::conv2d(g.constant(iota({1, 2, 3, 3})), g.constant(iota({1, 1, 3, 3})),
                          {1, 1, 1, 1}, "VALID");
  BOOST_TEST(y.shape() == (af::PartialShape{1, 2, 3, 3}));
  check_close(run1(g, y),
              {30, 36, 42, 66, 81, 96, 102, 126, 150, 138, 171, 204, 174, 216, 258, 210, 261, 312});
}

// conv_ops_test.testConv2D2x2Filter and testConv2D2x2FilterStride2Same.
BOOST_AUTO_TEST_CASE(conv2d_valid_and_same_padding_match_tensorflow,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto in = g.constant(iota({1, 2, 3, 3}));
  auto f = g.constant(iota({2, 2, 3, 3}));
  auto valid = af::nn::conv2d(in, f, {1, 1, 1, 1}, "VALID");
  auto same2 = af::nn::conv2d(in, f, {1, 2, 2, 1}, "SAME");
  BOOST_TEST(valid.shape() == (af::PartialShape{1, 1, 2, 3}));
  BOOST_TEST(same2.shape() == (af::PartialShape{1, 1, 2, 3}));
  af::Session sess(g);
  auto r = sess.run({valid, same2});
  check_close(r[0].to_vector<float>(), {2271, 2367, 2463, 2901, 3033, 3165});
  check_close(r[1].to_vector<float>(), {2271, 2367, 2463, 1230, 1305, 1380});
}

// conv_ops_test.testConv2D2x2Depth1ValidBackpropInput / ...BackpropFilter.
BOOST_AUTO_TEST_CASE(conv2d_gradients_match_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto dx =
      af::nn::conv2d_backprop_input(g.constant(sizes({1, 2, 3, 1})), g.constant(iota({2, 2, 1, 1})),
                                    g.constant(iota({1, 1, 2, 1})), {1, 1, 1, 1}, "VALID");
  auto dw = af::nn::conv2d_backprop_filter(g.constant(iota({1, 2, 3, 1})),
                                           g.constant(sizes({2, 2, 1, 1})),
                                           g.constant(iota({1, 1, 2, 1})), {1, 1, 1, 1}, "VALID");
  // compiler/tests/conv2d_test.py, Conv2DBackpropFilter 2x2 depth 3.
  auto dw3 = af::nn::conv2d_backprop_filter(g.constant(iota({1, 2, 3, 3})),
                                            g.constant(sizes({2, 2, 3, 3})),
                                            g.constant(iota({1, 1, 2, 3})), {1, 1, 1, 1}, "VALID");
  BOOST_TEST(dx.shape() == (af::PartialShape{1, 2, 3, 1}));
  af::Session sess(g);
  auto r = sess.run({dx, dw, dw3});
  check_close(r[0].to_vector<float>(), {1, 4, 4, 3, 10, 8});
  check_close(r[1].to_vector<float>(), {5, 8, 14, 17});
  check_close(r[2].to_vector<float>(),
              {17, 22, 27,  22, 29, 36,  27, 36, 45,  32, 43,  54,  37, 50,  63,  42, 57,  72,
               62, 85, 108, 67, 92, 117, 72, 99, 126, 77, 106, 135, 82, 113, 144, 87, 120, 153});
}

// The gradients are the adjoints of the convolution: <dy, conv(x, w)> equals
// <backprop_input(dy, w), x> and <backprop_filter(x, dy), w>, for SAME padding and strides.
BOOST_AUTO_TEST_CASE(conv2d_gradients_are_adjoints_of_the_convolution,
                     *boost::unit_test::timeout(60)) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  auto random = [&](const af::Shape& s) {
    std::vector<float> v(static_cast<std::size_t>(s.num_elements()));
    for (auto& x : v) x = u(rng);
    return af::Tensor::from_vector(v, s);
  };
  const af::Shape xs{2, 7, 6, 3}, ws{3, 2, 3, 4};
  const std::vector<std::int64_t> strides{1, 2, 2, 1};
  af::Graph g;
  auto x = g.constant(random(xs));
  auto w = g.constant(random(ws));
  auto y = af::nn::conv2d(x, w, strides, "SAME");
  BOOST_TEST(y.shape() == (af::PartialShape{2, 4, 3, 4}));
  auto dy = g.constant(random({2, 4, 3, 4}));
  auto dx = af::nn::conv2d_backprop_input(g.constant(sizes({2, 7, 6, 3})), w, dy, strides, "SAME");
  auto dw = af::nn::conv2d_backprop_filter(x, g.constant(sizes({3, 2, 3, 4})), dy, strides, "SAME");
  auto lhs = af::reduce_sum(dy * y);
  auto via_x = af::reduce_sum(dx * x);
  auto via_w = af::reduce_sum(dw * w);
  af::Session sess(g);
  auto r = sess.run({lhs, via_x, via_w});
  BOOST_TEST(r[1].scalar<float>() == r[0].scalar<float>(), boost::test_tools::tolerance(1e-4f));
  BOOST_TEST(r[2].scalar<float>() == r[0].scalar<float>(), boost::test_tools::tolerance(1e-4f));
}

// pooling_ops_test: testAvgPoolValidPadding, testAvgPoolSamePadding,
// testMaxPoolValidPadding, testMaxPoolSamePadding.
BOOST_AUTO_TEST_CASE(pooling_matches_tensorflow_and_ignores_padding,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto avg_valid =
      af::nn::avg_pool(g.constant(iota({1, 3, 3, 3})), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto avg_same =
      af::nn::avg_pool(g.constant(iota({1, 2, 4, 3})), {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto max_valid =
      af::nn::max_pool(g.constant(iota({1, 3, 3, 3})), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto max_same =
      af::nn::max_pool(g.constant(iota({1, 2, 3, 3})), {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  // testAvgPoolSamePaddingNonSquareWindow: 1x2 window over [1,2,2,1], SAME.
  auto avg_edge =
      af::nn::avg_pool(g.constant(iota({1, 2, 2, 1})), {1, 1, 2, 1}, {1, 1, 1, 1}, "SAME");
  BOOST_TEST(max_same.shape() == (af::PartialShape{1, 1, 2, 3}));
  af::Session sess(g);
  auto r = sess.run({avg_valid, avg_same, max_valid, max_same, avg_edge});
  check_close(r[0].to_vector<float>(), {7, 8, 9});
  check_close(r[1].to_vector<float>(), {8.5f, 9.5f, 10.5f, 14.5f, 15.5f, 16.5f});
  check_close(r[2].to_vector<float>(), {13, 14, 15});
  check_close(r[3].to_vector<float>(), {13, 14, 15, 16, 17, 18});
  check_close(r[4].to_vector<float>(), {1.5f, 2.0f, 3.5f, 4.0f});
}

// bias_op_test: the bias is added along the last dimension; a length mismatch is an error.
BOOST_AUTO_TEST_CASE(bias_add_adds_along_the_last_dimension, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto v = g.constant(af::Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, af::Shape{3, 2}));
  auto y = af::nn::bias_add(v, g.constant(af::Tensor::from_vector<float>({10, 20})));
  check_close(run1(g, y), {10, 21, 12, 23, 14, 25});
  af::Graph bad;
  auto value = bad.placeholder(af::DType::float32, af::PartialShape{-1, -1}, "value");
  auto b = af::nn::bias_add(value, bad.constant(af::Tensor::from_vector<float>({1, 2, 3})), "bias");
  af::Session sess(bad);
  try {
    sess.run(b, {{value, af::Tensor::from_vector<float>({1, 2, 3, 4}, af::Shape{2, 2})}});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("Must provide as many biases as the last dimension") !=
               std::string::npos);
    BOOST_TEST(std::string(e.what()).find("bias") != std::string::npos);
  }
}

// Shape and attribute errors are TensorFlow's.
BOOST_AUTO_TEST_CASE(window_errors_are_invalid_argument, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = g.constant(iota({1, 2, 3, 3}));
  BOOST_CHECK_THROW(af::nn::conv2d(x, g.constant(iota({1, 1, 2, 3})), {1, 1, 1, 1}, "VALID"),
                    af::InvalidArgumentError);  // depth 3 vs 2
  BOOST_CHECK_THROW(af::nn::conv2d(x, g.constant(iota({1, 1, 3, 3})), {1, 1, 1}, "VALID"),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::nn::max_pool(x, {1, 2, 2, 1}, {1, 1, 1, 1}, "FULL"),
                    af::InvalidArgumentError);
  auto geo =
      af::conv2d_geometry(af::Shape{1, 4, 4, 1}, af::Shape{2, 2, 1, 1}, {2, 1, 1, 1}, "SAME");
  BOOST_TEST(!geo.ok());
  BOOST_TEST(geo.status().message().find("strides in the batch and depth") != std::string::npos);
  auto pool = af::pool2d_geometry(af::Shape{1, 4, 4, 2}, {1, 2, 2, 2}, {1, 1, 1, 1}, "SAME");
  BOOST_TEST(!pool.ok());
  BOOST_TEST(pool.status().message().find("depth dimension") != std::string::npos);
  auto same = af::windowed_output_size(5, 3, 2, "SAME");
  BOOST_REQUIRE(same.ok());
  BOOST_TEST(same->output == 3);
  BOOST_TEST(same->pad_before == 1);
}

BOOST_AUTO_TEST_SUITE_END()
