// BatchNormWithGlobalNormalization, QuantizeAndDequantizeV2/V3/V4/V4Grad, FractionalMaxPool,
// FractionalAvgPool with their Grad ops, FusedPadConv2D and FusedResizeAndPadConv2D through
// their builders: static shapes, TensorFlow 2.21's values (the numbers below are what
// TensorFlow computed; BatchNormWithGlobalNormalization's in a graph of producer version 8,
// where TensorFlow still runs it), its error messages and the gradients' graphs. (The fixture
// comparison of many more cases is tests/data/tf_ops, built by
// scripts/peers/op_cases_nn_legacy.py.)
#include "actorflow/ops/nn_legacy_ops.hpp"

#include <actorflow/actorflow.hpp>
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
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::refuses;
using af::test::vec;

// Requires that running `y` with `feeds` fails with an error whose message holds `message`.
void fails(af::Session& s, const Output& y, const af::FeedDict& feeds, const std::string& message) {
  af::test::fails_with(s, y, message, feeds);
}

// Values equal to `expected` within a relative 1e-6 (TensorFlow's Eigen sums in its order).
void near(const std::vector<float>& got, const std::vector<float>& expected) {
  af::test::check_close(got, expected, 1e-6f);
}

// The [1, 5, 7, 2] input of the fractional pooling cases: i * 37 mod 29.
Tensor fractional_input() {
  std::vector<float> v(70);
  for (int i = 0; i < 70; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i * 37 % 29);
  return vec(v, Shape{1, 5, 7, 2});
}

const af::nn::FractionalPoolAttrs kSeeded{.deterministic = true, .seed = 3, .seed2 = 5};

Tensor paddings(std::int32_t top, std::int32_t bottom, std::int32_t left, std::int32_t right) {
  return vec<std::int32_t>({0, 0, top, bottom, left, right, 0, 0}, Shape{4, 2});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nn_legacy_ops_test)

// The builders name their ops after their types, hold TensorFlow's attrs and infer its static
// shapes (the fractional sequences one longer than TensorFlow's shape function says: the
// length they have).
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({2, 4, 5, 3}), "x");
  const Output c = g.placeholder(DType::float32, PartialShape({-1}), "c");
  const Output bn = af::nn::batch_norm_with_global_normalization(x, c, c, c, c, 0.001f, true);
  BOOST_TEST(bn.name() == "BatchNormWithGlobalNormalization:0");
  BOOST_TEST(bn.shape() == PartialShape({2, 4, 5, 3}));
  BOOST_TEST(*bn.node()->def().attr<float>("variance_epsilon") == 0.001f);
  const auto bng = af::nn::batch_norm_with_global_normalization_grad(x, c, c, c, x, 0.1f, false);
  BOOST_TEST(bng.dx.shape() == PartialShape({2, 4, 5, 3}));
  BOOST_TEST(bng.dg.shape() == PartialShape({3}));
  BOOST_TEST(bng.dx.name() == "BatchNormWithGlobalNormalizationGrad:0");

  const Output s = g.constant(Tensor(0.0f), "s");
  const Output q2 = af::quantize_and_dequantize_v2(x, s, s);
  BOOST_TEST(q2.name() == "QuantizeAndDequantizeV2:0");
  BOOST_TEST(*q2.node()->def().attr<std::string>("round_mode") == "HALF_TO_EVEN");
  BOOST_TEST(*q2.node()->def().attr<std::int64_t>("num_bits") == 8);
  BOOST_TEST(q2.shape() == PartialShape({2, 4, 5, 3}));
  const Output nb = g.constant(Tensor(std::int32_t{4}), "nb");
  BOOST_TEST(af::quantize_and_dequantize_v3(x, s, s, nb).name() == "QuantizeAndDequantizeV3:0");
  const Output q4 = af::quantize_and_dequantize_v4(x, c, c, {.axis = 2});
  BOOST_TEST(q4.shape() == PartialShape({2, 4, 5, 3}));
  const auto g4 = af::quantize_and_dequantize_v4_grad(x, x, c, c, 3);
  BOOST_TEST(g4.input_min_backprop.shape() == PartialShape({3}));

  const Output img = g.placeholder(DType::float32, PartialShape({1, 5, 7, 2}), "img");
  const auto fmp = af::nn::fractional_max_pool(img, {1, 1.44f, 1.73f, 1}, kSeeded);
  BOOST_TEST(fmp.output.name() == "FractionalMaxPool:0");
  BOOST_TEST(fmp.output.shape() == PartialShape({1, 3, 4, 2}));
  BOOST_TEST(fmp.row_pooling_sequence.shape() == PartialShape({4}));
  BOOST_TEST(fmp.col_pooling_sequence.shape() == PartialShape({5}));
  BOOST_TEST(fmp.row_pooling_sequence.dtype() == DType::int64);
  const auto fap = af::nn::fractional_avg_pool(img, {1, 2.5f, 3.5f, 1});
  BOOST_TEST(fap.output.shape() == PartialShape({1, 2, 2, 2}));
  BOOST_TEST(af::nn::fractional_max_pool_grad(img, fmp.output, fmp.output, fmp.row_pooling_sequence,
                                              fmp.col_pooling_sequence)
                 .shape() == PartialShape({1, 5, 7, 2}));
  const Output shape = g.constant(vec<std::int64_t>({1, 5, 7, 2}), "shape");
  BOOST_TEST(af::nn::fractional_avg_pool_grad(shape, fap.output, fap.row_pooling_sequence,
                                              fap.col_pooling_sequence)
                 .shape() == PartialShape({1, 5, 7, 2}));

  const Output in = g.placeholder(DType::float32, PartialShape({1, 3, 4, 2}), "in");
  const Output w = g.placeholder(DType::float32, PartialShape({2, 2, 2, 3}), "w");
  const Output p = g.constant(paddings(1, 2, 2, 1), "p");
  const Output fp = af::nn::fused_pad_conv2d(in, p, w, "REFLECT", {1, 1, 1, 1}, "VALID");
  BOOST_TEST(fp.name() == "FusedPadConv2D:0");
  BOOST_TEST(fp.shape() == PartialShape({1, 5, 6, 3}));
  BOOST_TEST(af::nn::fused_pad_conv2d(in, p, w, "SYMMETRIC", {1, 2, 3, 1}, "SAME").shape() ==
             PartialShape({1, 3, 3, 3}));
  const Output size = g.constant(vec<std::int32_t>({5, 6}), "size");
  const Output fr =
      af::nn::fused_resize_and_pad_conv2d(in, size, p, w, "REFLECT", {1, 2, 1, 1}, "SAME");
  BOOST_TEST(fr.name() == "FusedResizeAndPadConv2D:0");
  BOOST_TEST(fr.shape() == PartialShape({1, 4, 9, 3}));
  BOOST_TEST(*fr.node()->def().attr<bool>("resize_align_corners") == false);
  // Paddings of unknown value: the padded rows and columns, so the output's, are unknown.
  const Output any_p = g.placeholder(DType::int32, PartialShape({4, 2}), "any_p");
  BOOST_TEST(af::nn::fused_pad_conv2d(in, any_p, w, "REFLECT", {1, 1, 1, 1}, "VALID").shape() ==
             PartialShape({-1, -1, -1, 3}));
}

// BatchNormWithGlobalNormalization and the gradient nn_grad.py builds for it.
BOOST_AUTO_TEST_CASE(batch_norm_with_global_normalization_computes_tensorflows_values) {
  af::Graph g;
  const Output x = g.constant(
      vec<float>({0.5f, -1, 2, 1.5f, 0.25f, -0.75f, -2, 1, 0.5f, 3, -0.5f, 1}, Shape{1, 2, 2, 3}),
      "x");
  const Output m = g.constant(vec<float>({0.1f, -0.2f, 0.3f}), "m");
  const Output v = g.constant(vec<float>({0.5f, 1.5f, 2}), "v");
  const Output beta = g.constant(vec<float>({1, -1, 0.5f}), "beta");
  const Output gamma = g.constant(vec<float>({2, 0.5f, -1}), "gamma");
  const Output y = af::nn::batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.001f, true);
  const Output y2 =
      af::nn::batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.001f, false);
  const Output w =
      g.constant(vec<float>({1, 2, 3, -1, 0.5f, 2, 1, 1, -2, 0.25f, 1, 3}, Shape{1, 2, 2, 3}), "w");
  const auto grads = af::gradients({af::reduce_sum(af::mul(y, w))}, {x, m, v, beta, gamma});
  BOOST_TEST(grads[0].node()->type() == "BatchNormWithGlobalNormalizationGrad");
  BOOST_TEST(grads[4].node() == grads[0].node());
  af::Session s(g);
  const auto r = s.run({y, y2, grads[0], grads[1], grads[2], grads[3], grads[4]});
  near(r[0].to_vector<float>(),
       {2.13024139f, -1.32648981f, -0.701781154f, 4.95584393f, -0.816349506f, 1.24227655f,
        -4.93376589f, -0.510265231f, 0.358613968f, 9.19424915f, -1.12243366f, 0.00514894724f});
  near(r[1].to_vector<float>(),
       {1.5651207f, -1.65297961f, 1.70178115f, 2.97792196f, -0.632699013f, -0.242276549f,
        -1.96688294f, -0.0205305219f, 0.641386032f, 5.09712458f, -1.24486732f, 0.994851053f});
  near(r[2].to_vector<float>(),
       {2.82560301f, 0.816224515f, -2.12079024f, -2.82560301f, 0.204056129f, -1.4138602f,
        2.82560301f, 0.408112258f, 1.4138602f, 0.706400752f, 0.408112258f, -2.12079024f});
  near(r[3].to_vector<float>(), {-3.53200388f, -1.83650517f, 4.24158049f});
  near(r[4].to_vector<float>(), {6.69741249f, 0.0645747185f, 0.830227792f});
  near(r[5].to_vector<float>(), {1.25f, 4.5f, 6.0f});
  near(r[6].to_vector<float>(), {-3.35540366f, -0.387706608f, 3.32257175f});
}

// The quantization grid, the two round modes, V3's tensor num_bits and Eigen's NaN rule.
BOOST_AUTO_TEST_CASE(quantize_and_dequantize_rounds_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(vec<float>({-1.0f, -0.5f, 0, 0.3f, 0.8f, 0.55f, 0.6f}), "x");
  const Output zero = g.constant(Tensor(0.0f), "zero");
  const Output computed = af::quantize_and_dequantize_v2(x, zero, zero);
  const Output given = af::quantize_and_dequantize_v4(
      x, g.constant(Tensor(-0.5f), "lo"), g.constant(Tensor(0.5f), "hi"), {.range_given = true});
  const Output v3 = af::quantize_and_dequantize_v3(x, g.constant(Tensor(-1.0f), "lo3"),
                                                   g.constant(Tensor(1.0f), "hi3"),
                                                   g.constant(Tensor(std::int32_t{4}), "nb"));
  const Output halves =
      g.constant(vec<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f}), "halves");
  const Output lo = g.constant(Tensor(-127.0f), "lo127"), hi = g.constant(Tensor(127.0f), "hi127");
  const Output even = af::quantize_and_dequantize_v2(halves, lo, hi, {.range_given = true});
  const Output up = af::quantize_and_dequantize_v2(halves, lo, hi,
                                                   {.range_given = true, .round_mode = "HALF_UP"});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Output nan_last =
      af::quantize_and_dequantize_v2(g.constant(vec<float>({1, -2, nan}), "nl"), zero, zero);
  const Output nan_first =
      af::quantize_and_dequantize_v2(g.constant(vec<float>({nan, 1, -1}), "nf"), zero, zero);
  af::Session s(g);
  BOOST_TEST(s.run(computed).to_vector<float>() ==
                 (std::vector<float>{-1.0f, -0.5f, 0, 0.296875f, 0.796875f, 0.546875f, 0.6015625f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(given).to_vector<float>() ==
                 (std::vector<float>{-0.503937006f, -0.5f, 0, 0.299212605f, 0.5f, 0.5f, 0.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(v3).to_vector<float>() ==
                 (std::vector<float>{-1.0f, -0.571428597f, 0, 0.285714298f, 0.857142925f,
                                     0.571428597f, 0.571428597f}),
             boost::test_tools::per_element());
  const auto e = s.run(even).to_vector<float>();
  BOOST_TEST(e == (std::vector<float>{0, 2, 2, -0.0f, -2, -2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(std::signbit(e[3]));  // rint keeps the sign of -0.5's zero
  BOOST_TEST(s.run(up).to_vector<float>() == (std::vector<float>{1, 2, 3, 0, -1, -2, 1}),
             boost::test_tools::per_element());
  // A NaN last among the values Eigen reduces one at a time survives into the range.
  for (float v : s.run(nan_last).to_vector<float>()) BOOST_TEST(std::isnan(v));
  const auto f = s.run(nan_first).to_vector<float>();
  BOOST_TEST(std::isnan(f[0]));
  BOOST_TEST(f[1] == 1.0f);
  BOOST_TEST(f[2] == -1.0f);
}

// V2's gradient passes through, V4's is V4Grad's mask; V4Grad masks per slice.
BOOST_AUTO_TEST_CASE(quantize_and_dequantize_gradients_are_array_grad_pys) {
  af::Graph g;
  const Output x = g.constant(vec<float>({-1.0f, -0.5f, 0, 0.3f, 0.8f, 0.55f}, Shape{2, 3}), "x");
  const Output lo = g.constant(Tensor(-0.5f), "lo"), hi = g.constant(Tensor(0.6f), "hi");
  const Output v2 = af::quantize_and_dequantize_v2(x, lo, hi, {.range_given = true});
  const Output v4 = af::quantize_and_dequantize_v4(x, lo, hi, {.range_given = true});
  const auto d2 = af::gradients({v2}, {x, lo, hi});
  BOOST_TEST(!d2[1].valid());
  const auto d4 = af::gradients({v4}, {x, lo, hi});
  BOOST_TEST(d4[0].node()->type() == "QuantizeAndDequantizeV4Grad");
  const Output los = g.constant(vec<float>({-0.5f, -0.3f, 0.0f}), "los");
  const Output his = g.constant(vec<float>({0.5f, 0.0f, 0.3f}), "his");
  const auto per_axis = af::quantize_and_dequantize_v4_grad(x, x, los, his, 1);
  af::Session s(g);
  BOOST_TEST(s.run(d2[0]).to_vector<float>() == std::vector<float>(6, 1.0f),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(d4[0]).to_vector<float>() == (std::vector<float>{0, 1, 1, 1, 0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(d4[1]).to_vector<float>()[0] == 0.0f);
  BOOST_TEST(s.run(per_axis.input_backprop).to_vector<float>() ==
                 (std::vector<float>{-0.0f, -0.0f, 0, 0.3f, 0, 0}),
             boost::test_tools::per_element());
}

// With deterministic seeds the cells are TensorFlow's (its GuardedPhiloxRandom stream).
BOOST_AUTO_TEST_CASE(fractional_pools_draw_tensorflows_cells) {
  af::Graph g;
  const Output x = g.constant(fractional_input(), "x");
  const auto random = af::nn::fractional_max_pool(x, {1, 1.44f, 1.73f, 1}, kSeeded);
  auto pseudo_attrs = kSeeded;
  pseudo_attrs.pseudo_random = true;
  pseudo_attrs.overlapping = true;
  const auto pseudo = af::nn::fractional_max_pool(x, {1, 1.44f, 1.73f, 1}, pseudo_attrs);
  pseudo_attrs.overlapping = false;
  const auto avg = af::nn::fractional_avg_pool(x, {1, 1.44f, 1.73f, 1}, pseudo_attrs);
  const Output xi = af::cast(x, DType::int32);
  const auto avg_int =
      af::nn::fractional_avg_pool(xi, {1, 1.5f, 1.73f, 1}, {.deterministic = true, .seed = 1});
  af::Session s(g);
  const auto r =
      s.run({random.output, random.row_pooling_sequence, random.col_pooling_sequence, pseudo.output,
             pseudo.row_pooling_sequence, pseudo.col_pooling_sequence, avg.output, avg_int.output});
  BOOST_TEST(r[0].to_vector<float>() ==
                 (std::vector<float>{25, 24, 28, 11, 19, 27, 22, 26, 21, 25, 24, 28,
                                     27, 19, 26, 22, 13, 21, 16, 24, 19, 27, 22, 14}),
             boost::test_tools::per_element());
  BOOST_TEST(r[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 2, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(r[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 2, 3, 5, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(r[3].to_vector<float>() ==
                 (std::vector<float>{28, 24, 28, 27, 22, 26, 22, 26, 28, 28, 28, 28,
                                     27, 26, 26, 26, 20, 28, 23, 28, 23, 27, 26, 18}),
             boost::test_tools::per_element());
  BOOST_TEST(r[4].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1, 3, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(r[5].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 2, 4, 5, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(r[6].to_vector<float>() ==
                 (std::vector<float>{8,     16,    11,    19,    6,     14,    15.5f, 9,
                                     16.5f, 10,    19.5f, 13,    14.5f, 8,     9.5f,  17.5f,
                                     8.5f,  16.5f, 11.5f, 19.5f, 21,    14.5f, 16,    9.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(r[7].to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{12, 6,  14, 15, 10, 18, 13, 14, 19, 12, 14, 14,
                                            17, 10, 12, 13, 13, 21, 8,  16, 11, 19, 14, 7}),
             boost::test_tools::per_element());
}

// nn_grad.py's gradients: FractionalMaxPoolGrad to each cell's maximum, FractionalAvgPoolGrad
// of the static shape spread over each (overlapping) cell.
BOOST_AUTO_TEST_CASE(fractional_pool_gradients_are_nn_grad_pys) {
  af::Graph g;
  const Output x = g.constant(fractional_input(), "x");
  std::vector<float> ramp(24);
  for (int i = 0; i < 24; ++i) ramp[static_cast<std::size_t>(i)] = static_cast<float>(i);
  const Output w = g.constant(vec(ramp, Shape{1, 3, 4, 2}), "w");
  const auto mp = af::nn::fractional_max_pool(x, {1, 1.44f, 1.73f, 1}, kSeeded);
  auto overlapping = kSeeded;
  overlapping.overlapping = true;
  const auto ap = af::nn::fractional_avg_pool(x, {1, 1.44f, 1.73f, 1}, overlapping);
  const Output dmax = af::gradients({af::reduce_sum(af::mul(mp.output, w))}, {x})[0];
  const Output davg = af::gradients({af::reduce_sum(af::mul(ap.output, w))}, {x})[0];
  BOOST_TEST(dmax.node()->type() == "FractionalMaxPoolGrad");
  BOOST_TEST(davg.node()->type() == "FractionalAvgPoolGrad");
  BOOST_TEST(davg.node()->inputs()[0].node()->type() == "Const");
  af::Session s(g);
  BOOST_TEST(s.run(dmax).to_vector<float>() ==
                 (std::vector<float>{0,  0, 0,  1,  0, 3, 4,  5,  0, 0, 6,  0,  0, 0,  0,  0, 0, 0,
                                     2,  0, 0,  0,  0, 0, 0,  7,  0, 0, 8,  0,  0, 0,  10, 0, 0, 13,
                                     12, 0, 0,  15, 0, 0, 0,  9,  0, 0, 0,  11, 0, 0,  0,  0, 0, 0,
                                     14, 0, 16, 17, 0, 0, 18, 19, 0, 0, 20, 21, 0, 23, 22, 0}),
             boost::test_tools::per_element());
  const auto a = s.run(davg).to_vector<float>();
  BOOST_TEST(a[3] == 0.111111112f, boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(a[60] == 16.8888893f, boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(a[69] == 14.0f, boost::test_tools::tolerance(1e-6f));
}

// TensorFlow's fused kernel places its windows by its own offsets (here a stride of 5 starts
// one or two pixels in, where Conv2D starts at 0) and, its row cache not being refilled
// between images, gives every image of a batch the first one's result.
BOOST_AUTO_TEST_CASE(fused_convolutions_keep_tensorflows_kernel_quirks) {
  af::Graph g;
  std::vector<float> ramp(100);
  for (int i = 0; i < 100; ++i) ramp[static_cast<std::size_t>(i)] = static_cast<float>(i);
  const Output x = g.constant(vec(ramp, Shape{1, 10, 10, 1}), "x");
  const Output one = g.constant(vec<float>({1}, Shape{1, 1, 1, 1}), "one");
  const Output none = g.constant(paddings(0, 0, 0, 0), "none");
  const Output valid = af::nn::fused_pad_conv2d(x, none, one, "REFLECT", {1, 5, 5, 1}, "VALID");
  const Output same = af::nn::fused_pad_conv2d(x, none, one, "REFLECT", {1, 5, 5, 1}, "SAME");
  std::vector<float> small(12);
  for (int i = 0; i < 12; ++i) small[static_cast<std::size_t>(i)] = static_cast<float>(i);
  const Output two = g.constant(vec(small, Shape{2, 2, 3, 1}), "two");
  const Output w = g.constant(vec<float>({1, 10, 100, 1000}, Shape{2, 2, 1, 1}), "w");
  const Output p = g.constant(paddings(1, 0, 0, 1), "p");
  const Output sym = af::nn::fused_pad_conv2d(two, p, w, "SYMMETRIC", {1, 1, 1, 1}, "VALID");
  const Output refl = af::nn::fused_pad_conv2d(two, p, w, "REFLECT", {1, 1, 1, 1}, "SAME");
  const Output first = af::slice(two, {0, 0, 0, 0}, {1, 2, 3, 1});
  const Output resized = af::nn::fused_resize_and_pad_conv2d(
      first, g.constant(vec<std::int32_t>({3, 5}), "size"), g.constant(paddings(1, 1, 0, 1), "rp"),
      w, "REFLECT", {1, 1, 2, 1}, "VALID", true);
  af::Session s(g);
  BOOST_TEST(s.run(valid).to_vector<float>() == (std::vector<float>{11, 16, 61, 66}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(same).to_vector<float>() == (std::vector<float>{22, 27, 72, 77}),
             boost::test_tools::per_element());
  BOOST_TEST(
      s.run(sym).to_vector<float>() == (std::vector<float>{1010, 2121, 2222, 4310, 5421, 5522, 1010,
                                                           2121, 2222, 4310, 5421, 5522}),
      boost::test_tools::per_element());
  BOOST_TEST(s.run(refl).to_vector<float>() ==
                 (std::vector<float>{1043, 2154, 1245, 104, 4310, 5421, 4512, 401, 43, 54, 45, 4,
                                     1043, 2154, 1245, 104, 4310, 5421, 4512, 401, 43, 54, 45, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(resized).to_vector<float>() ==
                 (std::vector<float>{521.5f, 1632.5f, 1733.5f, 2155, 3266, 3367, 3821.5f, 4932.5f,
                                     5033.5f, 2188, 3299, 3400}),
             boost::test_tools::per_element());
  // No gradient, as in TensorFlow.
  BOOST_CHECK_THROW(af::gradients({valid}, {x}), af::Error);
}

// Shapes and attrs that cannot work are refused while building with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(bad_shapes_and_attrs_are_refused_while_building) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({1, 2, 4, 3}), "x");
  const Output x3 = g.placeholder(DType::float32, PartialShape({2, 4, 3}), "x3");
  const Output c3 = g.placeholder(DType::float32, PartialShape({3}), "c3");
  const Output c2 = g.placeholder(DType::float32, PartialShape({2}), "c2");
  const Output d3 = g.placeholder(DType::float64, PartialShape({3}), "d3");
  refuses([&] { af::nn::batch_norm_with_global_normalization(x3, c3, c3, c3, c3, 0, true); },
          "Shape must be rank 4 but is rank 3");
  refuses([&] { af::nn::batch_norm_with_global_normalization(x, c2, c3, c3, c3, 0, true); },
          "Dimensions must be equal, but are 3 and 2");
  refuses([&] { af::nn::batch_norm_with_global_normalization(x, d3, c3, c3, c3, 0, true); },
          "Input 'm' of 'BatchNormWithGlobalNormalization' Op has type float64 that does not "
          "match type float32 of argument 't'.");
  refuses(
      [&] {
        af::nn::batch_norm_with_global_normalization_grad(
            x, c3, c3, c3, g.placeholder(DType::float32, PartialShape({1, 1, 4, 3})), 0, true);
      },
      "Dimension 1 in both shapes must be equal, but are 2 and 1. Shapes are [1,2,4,3] and "
      "[1,1,4,3].");

  const Output v7 = g.placeholder(DType::float32, PartialShape({7}), "v7");
  const Output s = g.placeholder(DType::float32, PartialShape({}), "s");
  const Output one = g.placeholder(DType::float32, PartialShape({1}), "one");
  refuses([&] { af::quantize_and_dequantize_v2(v7, one, one); },
          "Shape must be rank 0 but is rank 1");
  refuses([&] { af::quantize_and_dequantize_v2(v7, c2, c2, {.axis = 0}); },
          "Dimensions must be equal, but are 2 and 7");
  refuses([&] { af::quantize_and_dequantize_v2(v7, one, one, {.axis = 1}); },
          "Shape must be at least rank 2 but is rank 1");
  refuses([&] { af::quantize_and_dequantize_v2(v7, one, one, {.axis = -2}); },
          "axis should be at least -1, got -2");
  refuses([&] { af::quantize_and_dequantize_v2(v7, s, s, {.round_mode = "FOO"}); },
          "Value for attr 'round_mode' of \"FOO\" is not in the list of allowed values: "
          "\"HALF_TO_EVEN\", \"HALF_UP\"");
  const Output i7 = g.placeholder(DType::int32, PartialShape({7}), "i7");
  const Output is = g.placeholder(DType::int32, PartialShape({}), "is");
  refuses([&] { af::quantize_and_dequantize_v2(i7, is, is); },
          "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
          "float, double");
  refuses([&] { af::quantize_and_dequantize_v3(v7, s, s, g.constant(vec<std::int32_t>({4}))); },
          "Shape must be rank 0 but is rank 1");
  refuses([&] { af::quantize_and_dequantize_v4_grad(c2, v7, s, s); },
          "Dimension 0 in both shapes must be equal, but are 2 and 7. Shapes are [2] and [7].");

  const Output img = g.placeholder(DType::float32, PartialShape({1, 5, 7, 2}), "img");
  refuses(
      [&] {
        af::nn::fractional_max_pool(img, {1, 0.5f, 1.73f, 1});
      },
      "pooling_ratio cannot be smaller than 1, got: 0.5");
  refuses(
      [&] {
        af::nn::fractional_avg_pool(img, {1, 1.5f, 1.73f});
      },
      "Length for attr 'pooling_ratio' of 3 must be at least minimum 4");
  refuses(
      [&] {
        af::nn::fractional_max_pool(x3, {1, 1.5f, 1.5f, 1});
      },
      "Shape must be rank 4 but is rank 3");

  const Output in = g.placeholder(DType::float32, PartialShape({1, 3, 4, 2}), "in");
  const Output w = g.placeholder(DType::float32, PartialShape({2, 2, 2, 3}), "w");
  const Output p = g.constant(paddings(1, 2, 2, 1), "p");
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(in, p, w, "CONSTANT", {1, 1, 1, 1}, "VALID");
      },
      "Value for attr 'mode' of \"CONSTANT\" is not in the list of allowed values: "
      "\"REFLECT\", \"SYMMETRIC\"");
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(in, p, w, "REFLECT", {1, 1, 1}, "VALID");
      },
      "Operation requires the stride attribute to contain 4 values, but got: 3");
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(
            in, g.constant(vec<std::int32_t>({0, 0, -1, 0, 0, 0, 0, 0}, Shape{4, 2})), w, "REFLECT",
            {1, 1, 1, 1}, "VALID");
      },
      "Paddings must be non-negative");
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(in, p, g.placeholder(DType::float32, PartialShape({9, 2, 2, 3})),
                                 "REFLECT", {1, 1, 1, 1}, "VALID");
      },
      "Negative dimension size caused by subtracting 9 from 6");
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(in, p, g.placeholder(DType::float32, PartialShape({2, 2, 1, 3})),
                                 "REFLECT", {1, 1, 1, 1}, "VALID");
      },
      "Dimensions must be equal, but are 2 and 1");
  // As TensorFlow, paddings whose first dimension is unknown are refused.
  refuses(
      [&] {
        af::nn::fused_pad_conv2d(in, g.placeholder(DType::int32, PartialShape({-1, 2})), w,
                                 "REFLECT", {1, 1, 1, 1}, "VALID");
      },
      "Shape must be rank -1 but is rank 4");
  refuses(
      [&] {
        af::nn::fused_resize_and_pad_conv2d(in, g.constant(vec<std::int32_t>({5, 6, 7})), p, w,
                                            "REFLECT", {1, 1, 1, 1}, "VALID");
      },
      "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2].");
}

// What the shapes only show when the step runs fails with TensorFlow's kernel messages.
BOOST_AUTO_TEST_CASE(bad_input_fails_when_running_with_tensorflows_messages) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output lo = g.placeholder(DType::float32, PartialShape::unknown(), "lo");
  const Output hi = g.placeholder(DType::float32, PartialShape::unknown(), "hi");
  const Output nb = g.placeholder(DType::int32, PartialShape::unknown(), "nb");
  af::Session s(g);
  const Tensor seven = vec<float>({-1.0f, -0.5f, 0, 0.3f, 0.8f, 0.55f, 0.6f});
  const Tensor half(0.5f), minus_half(-0.5f);
  const Output bn = af::nn::batch_norm_with_global_normalization(x, lo, lo, lo, lo, 0.1f, true);
  fails(s, bn, {{x, Tensor(DType::float32, Shape{2, 4, 3})}, {lo, vec<float>({1, 1, 1})}},
        "input must be 4-dimensional[2,4,3]");
  fails(s, bn,
        {{x, Tensor(DType::float32, Shape{1, 2, 4, 3})}, {lo, Tensor(DType::float32, Shape{1, 3})}},
        "mean must be 1-dimensional[1,3]");
  const Output q2 = af::quantize_and_dequantize_v2(x, lo, hi, {.range_given = true}, "q2");
  fails(s, q2, {{x, seven}, {lo, half}, {hi, minus_half}},
        "Invalid range: input_min 0.5 > input_max -0.5");
  fails(s, q2, {{x, seven}, {lo, vec<float>({0})}, {hi, half}}, "input_min must be a scalar.");
  const Output axis0 =
      af::quantize_and_dequantize_v2(x, lo, hi, {.range_given = true, .axis = 0}, "axis0");
  fails(s, axis0, {{x, seven}, {lo, half}, {hi, half}},
        "Shape must be rank 1 for input_min_tensor when the axis is specified");
  fails(s, axis0, {{x, seven}, {lo, vec<float>(std::vector<float>(7, 0))}, {hi, half}},
        "input_min must be a scalar.");
  const Output bits0 = af::quantize_and_dequantize_v4(x, lo, hi, {.num_bits = 0}, "bits0");
  fails(s, bits0, {{x, seven}, {lo, half}, {hi, half}},
        "num_bits is out of range: 0 with signed_input_ 1");
  const Output v3 = af::quantize_and_dequantize_v3(x, lo, hi, nb, true, true, false, 0, "v3");
  fails(s, v3,
        {{x, seven},
         {lo, vec<float>({0, 1})},
         {hi, vec<float>({0, 1})},
         {nb, Tensor(std::int32_t{8})}},
        "input_min_tensor has incorrect size, was 2 expected 7 to match dim 0 of the input [2]");
  const Output v3s = af::quantize_and_dequantize_v3(x, lo, hi, nb, false, true, false, -1, "v3s");
  fails(s, v3s, {{x, seven}, {lo, minus_half}, {hi, half}, {nb, Tensor(std::int32_t{63})}},
        "num_bits is out of range: 63 with `signed_input_` 0");
  fails(s, v3s, {{x, seven}, {lo, minus_half}, {hi, half}, {nb, vec<std::int32_t>({8})}},
        "Invalid shape. The `num_bits` tensor should be a scalar. Got dimensions: 1");
  const Output v3a = af::quantize_and_dequantize_v3(x, lo, hi, nb, true, true, false, 5, "v3a");
  fails(s, v3a, {{x, seven}, {lo, half}, {hi, half}, {nb, Tensor(std::int32_t{8})}},
        "Axis requested is larger than input dimensions. Axis: 5 Input Dimensions: 1");
  const auto vg = af::quantize_and_dequantize_v4_grad(x, hi, lo, lo, 2, "vg");
  fails(s, vg.input_backprop, {{x, seven}, {hi, seven}, {lo, half}},
        "Axis should be -1 or 0 or a positive value less than 1but given axis value was 2");
  const auto vg0 = af::quantize_and_dequantize_v4_grad(x, hi, lo, lo, -1, "vg0");
  fails(s, vg0.input_backprop, {{x, seven}, {hi, vec<float>({1, 2})}, {lo, half}},
        "gradient and input must be the same size");
  fails(s, vg0.input_backprop, {{x, seven}, {hi, seven}, {lo, vec<float>({0.5f})}},
        "input_min must be a scalar if axis is unspecified");

  const auto fmp = af::nn::fractional_max_pool(x, {1, 6, 1.73f, 1}, kSeeded, "fmp");
  fails(s, fmp.output, {{x, fractional_input()}},
        "Pooling ratio is higher than input dimension size for dimension 1. Input dim size: 5 "
        "pooling ratio: 6");
  fails(s, fmp.output, {{x, Tensor(DType::float32, Shape{5, 7, 2})}},
        "tensor_in must be 4-dimensional");
  const auto batch = af::nn::fractional_avg_pool(x, {2, 1.5f, 1.5f, 1}, kSeeded, "batch");
  fails(s, batch.output, {{x, fractional_input()}},
        "Fractional average pooling is not yet supported on the batch nor channel dimension.");
  const auto unseeded = af::nn::fractional_max_pool(x, {1, 1.5f, 1.5f, 1}, {.seed = 3}, "uns");
  fails(s, unseeded.output, {{x, fractional_input()}},
        "Both seed and seed2 should be 0 if deterministic is false.");
  const Output rows = g.placeholder(DType::int64, PartialShape::unknown(), "rows");
  const Output cols = g.placeholder(DType::int64, PartialShape::unknown(), "cols");
  const Output shape = g.placeholder(DType::int64, PartialShape::unknown(), "shape");
  const Output apg = af::nn::fractional_avg_pool_grad(shape, x, rows, cols, false, "apg");
  const Tensor dy(DType::float32, Shape{1, 3, 4, 2});
  fails(s, apg,
        {{shape, vec<std::int64_t>({1, 5, 7})},
         {x, dy},
         {rows, vec<std::int64_t>({0, 2, 4, 5})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "original input tensor shape must be1-dimensional and 4 elements");
  fails(s, apg,
        {{shape, vec<std::int64_t>({1, 5, 7, 2})},
         {x, dy},
         {rows, vec<std::int64_t>({0, 2, 4})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "Given out_backprop shape [1,3,4,2], row_seq_tensor must have at least 4 elements, but "
        "got 3");
  fails(s, apg,
        {{shape, vec<std::int64_t>({1, 5, 7, 2})},
         {x, dy},
         {rows, vec<std::int64_t>({0, -2, 4, 5})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "Row sequence tensor values must not be negative, got  0 -2  4  5");
  fails(s, apg,
        {{shape, vec<std::int64_t>({1, 0, 7, 2})},
         {x, dy},
         {rows, vec<std::int64_t>({0, 2, 4, 5})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "Rows dimension of input must not be 0");
  const Output mpg = af::nn::fractional_max_pool_grad(x, lo, hi, rows, cols, false, "mpg");
  fails(s, mpg,
        {{x, Tensor(DType::float32, Shape{1, 0, 3, 1})},
         {lo, dy},
         {hi, dy},
         {rows, vec<std::int64_t>({0})},
         {cols, vec<std::int64_t>({0})}},
        "orig_input must not be empty, got Tensor<type: float shape: [1,0,3,1] values: >");
  fails(s, mpg,
        {{x, fractional_input()},
         {lo, dy},
         {hi, dy},
         {rows, vec<std::int64_t>({0, 2, 4, 5}, Shape{1, 4})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "row_pooling_sequence must be a vector, received shape [1,4]");
  fails(s, mpg,
        {{x, fractional_input()},
         {lo, dy},
         {hi, dy},
         {rows, vec<std::int64_t>({0, 2, 4, 5})},
         {cols, vec<std::int64_t>({0, 2, 3, 5, 7})}},
        "tensor_out_dup is not the same as tensor_out");

  const Output p = g.placeholder(DType::int32, PartialShape({4, 2}), "p");
  const Output w = g.placeholder(DType::float32, PartialShape::unknown(), "w");
  const Output fp = af::nn::fused_pad_conv2d(x, p, w, "REFLECT", {1, 1, 1, 1}, "VALID", "fp");
  const Tensor image(DType::float32, Shape{1, 3, 4, 2});
  const Tensor filter(DType::float32, Shape{2, 2, 2, 3});
  fails(s, fp, {{x, image}, {p, paddings(3, 0, 0, 0)}, {w, filter}},
        "paddings must be less than the dimension size: 3, 0 not less than 3");
  fails(s, fp,
        {{x, Tensor(DType::float32, Shape{0, 3, 4, 2})}, {p, paddings(0, 0, 0, 0)}, {w, filter}},
        "Input tensor can't be empty");
  fails(s, fp,
        {{x, image}, {p, vec<std::int32_t>({0, 0, 0, 0, 0, 0, 0, 1}, Shape{4, 2})}, {w, filter}},
        "Fused mirror padding only support spatial padding, not channels: Tensor<type: int32 "
        "shape: [4,2] values: [0 0][0...]...>");
  fails(s, fp,
        {{x, image}, {p, paddings(0, 0, 0, 0)}, {w, Tensor(DType::float32, Shape{2, 2, 2, 0})}},
        "Output tensor can't be empty");
  const Output sym = af::nn::fused_pad_conv2d(x, p, w, "SYMMETRIC", {1, 1, 1, 1}, "VALID", "sym");
  fails(s, sym, {{x, image}, {p, paddings(4, 0, 0, 0)}, {w, filter}},
        "paddings must be no greater than the dimension size: 4, 0 greater than 3");
  const Output strided = af::nn::fused_pad_conv2d(x, p, w, "REFLECT", {2, 1, 1, 1}, "VALID", "st");
  fails(s, strided, {{x, image}, {p, paddings(0, 0, 0, 0)}, {w, filter}},
        "Current implementation does not yet support strides in the batch and depth dimensions.");
  const Output size = g.placeholder(DType::int32, PartialShape({2}), "size");
  const Output fr = af::nn::fused_resize_and_pad_conv2d(x, size, p, w, "REFLECT", {1, 1, 1, 1},
                                                        "VALID", false, "fr");
  fails(s, fr,
        {{x, image}, {size, vec<std::int32_t>({0, 6})}, {p, paddings(0, 0, 0, 0)}, {w, filter}},
        "output dimensions must be positive");
}

BOOST_AUTO_TEST_SUITE_END()
