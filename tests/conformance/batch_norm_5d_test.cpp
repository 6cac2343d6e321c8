// 5-D fused batch norm as TensorFlow 1.x builds, shapes, computes and refuses it:
// FusedBatchNormV3 and FusedBatchNormGradV3 with data_format NDHWC and NCDHW, which
// TensorFlow's CPU kernel runs as NHWC and NCHW with D merged into H (the values TensorFlow
// 2.21 computes are in tests/data/tf_ops, made by scripts/peers/op_cases_batch_norm_5d.py and
// checked by op_coverage_conformance_test.cpp).
#include <actorflow/actorflow.hpp>
#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "actorflow/ops/batch_norm_ops.hpp"
#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::refused_while_building;

// n values spread over [-2, 2) with no pattern along any axis.
std::vector<float> wavy(int n, float phase = 0.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = 2.0f * std::sin(1.7f * static_cast<float>(i) + phase);
  return v;
}

Output vec(af::Graph& g, std::vector<float> v, const std::string& name) {
  return g.constant(Tensor::from_vector(std::move(v)), name);
}

// The same dtype, shape and bytes.
bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.num_elements() == b.num_elements() &&
         std::memcmp(a.data<float>(), b.data<float>(),
                     static_cast<std::size_t>(a.num_elements()) * sizeof(float)) == 0;
}

// Runs `out` and expects InvalidArgumentError naming `message`.
void refused_while_running(af::Graph& g, const Output& out, af::FeedDict feeds,
                           const std::string& message) {
  af::Session sess(g);
  try {
    sess.run(out, feeds);
    BOOST_ERROR("ran; expected " << message);
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
  }
}

// FusedBatchNormGradV3 as Python's gen_nn_ops builds it.
af::Operation grad_v3(af::Graph& g, const Output& dy, const Output& x, const Output& scale,
                      const Output& mean, const Output& var, const std::string& format,
                      bool is_training) {
  const Output r3 = g.constant(Tensor(DType::float32, Shape{0}), "r3");
  return g.create_op("FusedBatchNormGradV3", {dy, x, scale, mean, var, r3},
                     {{"T", DType::float32},
                      {"U", DType::float32},
                      {"epsilon", 0.001f},
                      {"data_format", format},
                      {"is_training", is_training}},
                     "FusedBatchNormGradV3");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(batch_norm_5d_test)

// nn::fused_batch_norm of a 5-D x builds FusedBatchNormV3 with the 5-D format and
// TensorFlow's static shapes (FusedBatchNormShape: rank 5 for NDHWC and NCDHW, channels
// last or at 1); the gradient op keeps the format in training.
BOOST_AUTO_TEST_CASE(builds_5d_formats_with_tensorflows_shapes) {
  af::Graph g;
  const Output scale = vec(g, {1, 1, 1, 1}, "scale");
  const Output offset = vec(g, {0, 0, 0, 0}, "offset");
  const Output x = g.placeholder(DType::float32, PartialShape({2, 3, 2, 2, 4}), "x");
  const auto bn = af::nn::fused_batch_norm(x, scale, offset, {}, {}, 0.001f, "NDHWC");
  BOOST_TEST(bn.y.name() == "FusedBatchNormV3:0");
  BOOST_TEST(*bn.y.node()->def().attr<std::string>("data_format") == "NDHWC");
  BOOST_TEST(bn.y.shape() == PartialShape({2, 3, 2, 2, 4}));
  BOOST_TEST(bn.mean.shape() == PartialShape({4}));
  BOOST_TEST(bn.y.node()->output_shapes()[3] == PartialShape({4}));
  // NCDHW: channels at 1; an unknown one takes scale's.
  const Output nc = g.placeholder(DType::float32, PartialShape({-1, -1, 3, 2, 2}), "nc");
  const auto bn_nc = af::nn::fused_batch_norm(nc, scale, offset, {}, {}, 0.001f, "NCDHW");
  BOOST_TEST(bn_nc.y.shape() == PartialShape({-1, 4, 3, 2, 2}));
  BOOST_TEST(bn_nc.variance.shape() == PartialShape({4}));
  // An x of unknown rank gives a y of rank 5.
  const Output any = g.placeholder(DType::float32, PartialShape::unknown(), "any");
  BOOST_TEST(af::nn::fused_batch_norm(any, scale, offset, {}, {}, 0.001f, "NCDHW").y.shape() ==
             PartialShape::unknown_of_rank(5));
  // The gradient in training: FusedBatchNormGradV3 in NDHWC, x_backprop of x's shape.
  const auto grads = af::gradients({bn.y}, {x, scale, offset});
  BOOST_TEST(grads[0].node()->type() == "FusedBatchNormGradV3");
  BOOST_TEST(*grads[0].node()->def().attr<std::string>("data_format") == "NDHWC");
  BOOST_TEST(grads[0].shape() == PartialShape({2, 3, 2, 2, 4}));
  BOOST_TEST(grads[1].shape() == PartialShape({4}));
  // The gradient op's own shape function: rank 5, channels merged with scale's.
  const Output dy = g.placeholder(DType::float32, PartialShape({2, -1, 3, 2, 2}), "dy");
  const af::Operation gop = grad_v3(g, dy, nc, scale, scale, scale, "NCDHW", true);
  BOOST_TEST(gop.node()->output_shapes()[0] == PartialShape({2, 4, 3, 2, 2}));
  BOOST_TEST(gop.node()->output_shapes()[1] == PartialShape({4}));
  BOOST_TEST(gop.node()->output_shapes()[3] == PartialShape({0}));
}

// The shape functions tie x's rank to the format and refuse formats the OpDefs do not list
// (V1 and V2 know only NHWC and NCHW), with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(refuses_ranks_and_formats_while_building) {
  af::Graph g;
  const Output scale = vec(g, {1, 1, 1, 1}, "scale");
  const Output offset = vec(g, {0, 0, 0, 0}, "offset");
  const Output three = vec(g, {1, 1, 1}, "three");
  const Output x4 = g.placeholder(DType::float32, PartialShape({2, 3, 2, 4}), "x4");
  const Output x5 = g.placeholder(DType::float32, PartialShape({2, 3, 2, 2, 4}), "x5");
  const Output x6 = g.placeholder(DType::float32, PartialShape({1, 1, 1, 1, 1, 4}), "x6");
  refused_while_building(
      [&] { af::nn::fused_batch_norm(x4, scale, offset, {}, {}, 0.001f, "NDHWC"); },
      "Shape must be rank 5 but is rank 4");
  refused_while_building([&] { af::nn::fused_batch_norm(x5, scale, offset); },
                         "Shape must be rank 4 but is rank 5");
  refused_while_building(
      [&] { af::nn::fused_batch_norm(x6, scale, offset, {}, {}, 0.001f, "NCDHW"); },
      "Shape must be rank 5 but is rank 6");
  refused_while_building(
      [&] { af::nn::fused_batch_norm(x5, three, offset, {}, {}, 0.001f, "NDHWC"); },
      "Dimensions must be equal, but are 4 and 3");
  // Inference reads the statistics: the empty stand-ins do not match NCDHW's 3 channels.
  refused_while_building(
      [&] { af::nn::fused_batch_norm(x5, three, three, {}, {}, 0.001f, "NCDHW", false); },
      "Dimensions must be equal, but are 3 and 0");
  refused_while_building(
      [&] { af::nn::fused_batch_norm(x4, scale, offset, {}, {}, 0.001f, "NCHW_VECT_C"); },
      "Value for attr 'data_format' of \"NCHW_VECT_C\" is not in the list of allowed values: "
      "\"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\"");
  const Output empty = g.constant(Tensor(DType::float32, Shape{0}), "empty");
  for (const char* type : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    af::AttrMap attrs{{"T", DType::float32}, {"data_format", std::string("NDHWC")}};
    if (std::string(type) == "FusedBatchNormV2") attrs.emplace("U", DType::float32);
    refused_while_building(
        [&] {
          g.create_op(type, {x5, scale, offset, empty, empty}, attrs, type);
        },
        "Value for attr 'data_format' of \"NDHWC\" is not in the list of allowed values: "
        "\"NHWC\", \"NCHW\"");
  }
  refused_while_building([&] { grad_v3(g, x4, x4, scale, scale, scale, "NDHWC", true); },
                         "Shape must be rank 5 but is rank 4");
  refused_while_building([&] { grad_v3(g, x5, x4, scale, scale, scale, "NDHWC", true); },
                         "Shape must be rank 5 but is rank 4");
  refused_while_building([&] { grad_v3(g, x5, x5, three, scale, scale, "NDHWC", true); },
                         "Dimensions must be equal, but are 4 and 3");
}

// A 5-D x computes exactly what the 4-D op computes with D merged into H (TensorFlow's
// kernel reshapes [N, D, H, W, C] to [N, D, H*W, C] and [N, C, D, H, W] to [N, C, D, H*W]):
// training, inference and a blending factor, outputs and gradients, bit for bit.
BOOST_AUTO_TEST_CASE(computes_as_the_4d_op_with_depth_merged) {
  struct Mode {
    bool training;
    float factor;
  };
  for (const bool nchw : {false, true})
    for (const Mode mode : {Mode{true, 1.0f}, Mode{false, 1.0f}, Mode{true, 0.3f}}) {
      BOOST_TEST_CONTEXT((nchw ? "NCDHW" : "NDHWC")
                         << " training " << mode.training << " factor " << mode.factor) {
        af::Graph g;
        const Shape s5 = nchw ? Shape{2, 4, 3, 2, 2} : Shape{2, 3, 2, 2, 4};
        const Shape s4 = nchw ? Shape{2, 4, 3, 4} : Shape{2, 3, 4, 4};
        const Output x5 = g.constant(Tensor::from_vector(wavy(96), s5), "x5");
        const Output x4 = g.constant(Tensor::from_vector(wavy(96), s4), "x4");
        const Output w5 = g.constant(Tensor::from_vector(wavy(96, 0.5f), s5), "w5");
        const Output w4 = g.constant(Tensor::from_vector(wavy(96, 0.5f), s4), "w4");
        const Output scale = vec(g, {0.5f, 1.0f, 1.5f, 2.0f}, "scale");
        const Output offset = vec(g, {0.1f, -0.2f, 0.3f, 0.0f}, "offset");
        const Output mean = vec(g, {0.2f, -0.1f, 0.0f, 0.4f}, "mean");
        const Output var = vec(g, {1.5f, 0.5f, 2.0f, 1.0f}, "var");
        const auto a =
            af::nn::fused_batch_norm(x5, scale, offset, mean, var, 0.001f, nchw ? "NCDHW" : "NDHWC",
                                     mode.training, mode.factor, "bn5");
        const auto b =
            af::nn::fused_batch_norm(x4, scale, offset, mean, var, 0.001f, nchw ? "NCHW" : "NHWC",
                                     mode.training, mode.factor, "bn4");
        const auto ga = af::gradients({a.y}, {x5, scale, offset}, {w5});
        const auto gb = af::gradients({b.y}, {x4, scale, offset}, {w4});
        af::Session sess(g);
        const auto v = sess.run({a.y, a.mean, a.variance, ga[0], ga[1], ga[2], b.y, b.mean,
                                 b.variance, gb[0], gb[1], gb[2]});
        BOOST_TEST(v[0].shape() == s5);
        BOOST_TEST(v[3].shape() == s5);
        for (std::size_t i = 0; i < 6; ++i) BOOST_TEST(same_bits(v[i], v[i + 6]), "output " << i);
      }
    }
}

// Worked by hand: x = {1, 3} in one channel (along D in NDHWC, along H in NCDHW) has mean 2
// and variance 1, so y = -+1 / sqrt(1 + epsilon); the variance kept has Bessel's correction
// (2), and blended (factor 0.5) with a running mean 0 and variance 4 they are 1 and 3.
BOOST_AUTO_TEST_CASE(normalizes_over_depth_height_and_width) {
  af::Graph g;
  const Output x =
      g.constant(Tensor::from_vector(std::vector<float>{1, 3}, Shape{1, 2, 1, 1, 1}), "x");
  const Output xc =
      g.constant(Tensor::from_vector(std::vector<float>{1, 3}, Shape{1, 1, 1, 2, 1}), "xc");
  const Output one = vec(g, {1}, "one");
  const Output zero = vec(g, {0}, "zero");
  const Output four = vec(g, {4}, "four");
  const auto bn = af::nn::fused_batch_norm(x, one, zero, {}, {}, 0.001f, "NDHWC");
  const auto blend =
      af::nn::fused_batch_norm(xc, one, zero, zero, four, 0.001f, "NCDHW", true, 0.5f, "blend");
  af::Session sess(g);
  const auto v = sess.run({bn.y, bn.mean, bn.variance, blend.y, blend.mean, blend.variance});
  const float y = 1.0f / std::sqrt(1.0f + 0.001f);
  BOOST_TEST(v[0].data<float>()[0] == -y);
  BOOST_TEST(v[0].data<float>()[1] == y);
  BOOST_TEST(v[1].data<float>()[0] == 2.0f);
  BOOST_TEST(v[2].data<float>()[0] == 2.0f);
  BOOST_TEST(v[3].shape() == Shape({1, 1, 1, 2, 1}));
  BOOST_TEST(v[3].data<float>()[1] == y);
  BOOST_TEST(v[4].data<float>()[0] == 1.0f);  // 0.5 * 0 + 0.5 * 2
  BOOST_TEST(v[5].data<float>()[0] == 3.0f);  // 0.5 * 4 + 0.5 * 1 * 2
}

// In inference Python's gradient transposes NCDHW to NDHWC around FusedBatchNormGradV3
// (whose CPU kernel takes only NHWC and NDHWC there); NDHWC goes straight.
BOOST_AUTO_TEST_CASE(inference_gradient_transposes_ncdhw_as_python) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(wavy(96), Shape{2, 4, 3, 2, 2}), "x");
  const Output scale = vec(g, {0.5f, 1.0f, 1.5f, 2.0f}, "scale");
  const Output offset = vec(g, {0.1f, -0.2f, 0.3f, 0.0f}, "offset");
  const Output mean = vec(g, {0.2f, -0.1f, 0.0f, 0.4f}, "mean");
  const Output var = vec(g, {1.5f, 0.5f, 2.0f, 1.0f}, "var");
  const auto bn = af::nn::fused_batch_norm(x, scale, offset, mean, var, 0.001f, "NCDHW", false);
  const auto grads = af::gradients({bn.y}, {x, scale});
  BOOST_TEST(grads[0].node()->type() == "Transpose");
  BOOST_TEST(grads[0].name() == "gradients/FusedBatchNormV3_grad/transpose_2:0");
  BOOST_TEST(grads[0].shape() == PartialShape({2, 4, 3, 2, 2}));
  const af::Node* grad = grads[1].node();
  BOOST_TEST(grad->type() == "FusedBatchNormGradV3");
  BOOST_TEST(*grad->def().attr<std::string>("data_format") == "NDHWC");
  BOOST_TEST(grad->inputs()[1].node()->type() == "Transpose");
  BOOST_TEST(grad->inputs()[1].shape() == PartialShape({2, 3, 2, 2, 4}));
  // dx = dy * scale / sqrt(var + epsilon), channel by channel.
  af::Session sess(g);
  const Tensor dx = sess.run(grads[0]);
  const std::array<float, 4> scales{0.5f, 1.0f, 1.5f, 2.0f}, vars{1.5f, 0.5f, 2.0f, 1.0f};
  for (std::size_t c = 0; c < 4; ++c) {
    const float want = scales[c] * (1.0f / std::sqrt(vars[c] + 0.001f));
    BOOST_TEST(dx.data<float>()[c * 12 + 5] == want, boost::test_tools::tolerance(1e-6f));
  }
}

// Run-time checks with TensorFlow's messages: the kernels take rank 4 or 5 under any of the
// formats (the format maps to NHWC or NCHW), count channels in the 5-D layout, and the
// gradient in inference refuses NCDHW.
BOOST_AUTO_TEST_CASE(refuses_while_running_as_tensorflow) {
  af::Graph g;
  const Output scale = vec(g, {1, 1, 1, 1}, "scale");
  const Output offset = vec(g, {0, 0, 0, 0}, "offset");
  const Output any = g.placeholder(DType::float32, PartialShape::unknown(), "any");
  const Output any_dy = g.placeholder(DType::float32, PartialShape::unknown(), "any_dy");
  const auto bn = af::nn::fused_batch_norm(any, scale, offset, {}, {}, 0.001f, "NDHWC");
  const auto bn_nc =
      af::nn::fused_batch_norm(any, scale, offset, {}, {}, 0.001f, "NCDHW", true, 1.0f, "nc");
  const af::Operation infer_nc = grad_v3(g, any_dy, any, scale, scale, scale, "NCDHW", false);
  const af::Operation train = grad_v3(g, any_dy, any, scale, scale, scale, "NDHWC", true);
  refused_while_running(g, bn.y, {{any, Tensor(DType::float32, Shape{2, 4})}},
                        "input must be 4 or 5-dimensional[2,4]");
  refused_while_running(g, bn.y, {{any, Tensor(DType::float32, Shape{1, 1, 1, 1, 1, 4})}},
                        "input must be 4 or 5-dimensional[1,1,1,1,1,4]");
  // TensorFlow's kernel runs a 4-D x under NDHWC as NHWC.
  {
    af::Session sess(g);
    BOOST_TEST(sess.run(bn.y, {{any, Tensor(DType::float32, Shape{1, 2, 1, 4})}}).shape() ==
               Shape({1, 2, 1, 4}));
  }
  refused_while_running(g, bn_nc.y, {{any, Tensor(DType::float32, Shape{1, 3, 2, 2, 2})}},
                        "scale must have the same number of elements as the channels of x, got "
                        "4 and 3");
  const Tensor x5(DType::float32, Shape{1, 4, 2, 1, 2});
  refused_while_running(g, infer_nc.output(0), {{any, x5}, {any_dy, x5}},
                        "The implementation of FusedBatchNormGrad with is_training=False only "
                        "support NHWC tensor format for now.");
  refused_while_running(g, train.output(0),
                        {{any, Tensor(DType::float32, Shape{1, 2, 1, 2, 4})},
                         {any_dy, Tensor(DType::float32, Shape{1, 2, 2, 1, 4})}},
                        "x and y_backprop must have same shape, but x has shape [1,2,1,2,4] and "
                        "y_backprop has shape [1,2,2,1,4]");
  refused_while_running(g, train.output(0),
                        {{any, Tensor(DType::float32, Shape{1, 2, 1, 2, 3})},
                         {any_dy, Tensor(DType::float32, Shape{1, 2, 1, 2, 3})}},
                        "scale must have the same number of elements as the channels of x, got "
                        "4 and 3");
}

// An empty 5-D batch: NaN statistics, an empty y, zero scale and offset gradients and an
// empty x gradient of x's shape (TensorFlow's kernel returns it in the merged 4-D shape).
BOOST_AUTO_TEST_CASE(empty_batches_give_nan_statistics) {
  af::Graph g;
  const Output x = g.constant(Tensor(DType::float32, Shape{0, 4, 2, 1, 2}), "x");
  const Output scale = vec(g, {1, 1, 1, 1}, "scale");
  const Output offset = vec(g, {0, 0, 0, 0}, "offset");
  const auto bn = af::nn::fused_batch_norm(x, scale, offset, {}, {}, 0.001f, "NCDHW");
  const auto grads = af::gradients({bn.y}, {x, scale, offset});
  af::Session sess(g);
  const auto v = sess.run({bn.y, bn.mean, bn.variance, grads[0], grads[1], grads[2]});
  BOOST_TEST(v[0].shape() == Shape({0, 4, 2, 1, 2}));
  BOOST_TEST(std::isnan(v[1].data<float>()[0]));
  BOOST_TEST(std::isnan(v[2].data<float>()[3]));
  BOOST_TEST(v[3].shape() == Shape({0, 4, 2, 1, 2}));
  for (int c = 0; c < 4; ++c) {
    BOOST_TEST(v[4].data<float>()[c] == 0.0f);
    BOOST_TEST(v[5].data<float>()[c] == 0.0f);
  }
}

BOOST_AUTO_TEST_SUITE_END()
