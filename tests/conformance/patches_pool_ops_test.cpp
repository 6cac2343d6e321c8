// ExtractImagePatches, ExtractVolumePatches, Dilation2D and its backprops, MaxPoolWithArgmax,
// MaxPoolGradWithArgmax, MaxPoolGradGradWithArgmax and MaxPoolGradGrad as TensorFlow 1.x
// builds, shapes, computes and refuses them (the values TensorFlow 2.21 computes for many more
// cases are in tests/data/tf_ops, made by scripts/peers/op_cases_patches_pool.py and checked by
// op_coverage_conformance_test.cpp).
#include "actorflow/ops/patches_pool_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::iota;
using af::test::refused_while_building;

const std::vector<std::int64_t> kOnes = {1, 1, 1, 1};

}  // namespace

BOOST_AUTO_TEST_SUITE(patches_pool_ops_test)

// The builders name their ops after their types and infer TensorFlow's static shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({2, 7, 6, 3}), "x");
  const Output p =
      af::nn::extract_image_patches(x, {1, 2, 3, 1}, {1, 2, 1, 1}, {1, 2, 1, 1}, "VALID");
  BOOST_TEST(p.name() == "ExtractImagePatches:0");
  // Rows: effective window 3, (7 - 3) / 2 + 1 = 3; columns: 6 - 3 + 1 = 4.
  BOOST_TEST(p.shape() == PartialShape({2, 3, 4, 18}));
  BOOST_TEST(af::nn::extract_image_patches(x, {1, 2, 2, 1}, {1, 3, 3, 1}, kOnes, "SAME").shape() ==
             PartialShape({2, 3, 2, 12}));
  const Output v = g.placeholder(DType::float64, PartialShape({1, 5, 4, 3, 2}), "v");
  const Output vp =
      af::nn::extract_volume_patches(v, {1, 2, 3, 2, 1}, {1, 2, 2, 1, 1}, "SAME", "vp");
  BOOST_TEST(vp.name() == "vp:0");
  BOOST_TEST(vp.shape() == PartialShape({1, 3, 2, 3, 24}));
  const Output w = g.placeholder(DType::float32, PartialShape({2, 2, 3}), "w");
  const Output d = af::nn::dilation2d(x, w, {1, 1, 2, 1}, {1, 2, 1, 1}, "VALID");
  BOOST_TEST(d.name() == "Dilation2D:0");
  BOOST_TEST(d.shape() == PartialShape({2, 5, 3, 3}));
  const auto mp = af::nn::max_pool_with_argmax(x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  BOOST_TEST(mp.output.shape() == PartialShape({2, 4, 3, 3}));
  BOOST_TEST(mp.argmax.dtype() == DType::int64);
  BOOST_TEST(*mp.output.node()->def().attr<bool>("include_batch_in_index") == false);
  const Output open = g.placeholder(DType::float32, PartialShape({-1, 7, -1, 3}), "open");
  BOOST_TEST(af::nn::extract_image_patches(open, {1, 2, 2, 1}, kOnes, kOnes, "VALID").shape() ==
             PartialShape({-1, 6, -1, 12}));
  refused_while_building(
      [&] {
        af::nn::extract_image_patches(x, {1, 2, 1}, kOnes, kOnes, "VALID");
      },
      "ExtractImagePatches requires the ksizes attribute to contain 4 values, but got: 3");
  refused_while_building([&] { af::nn::dilation2d(x, x, kOnes, kOnes, "SAME"); },
                         "Shape must be rank 3 but is rank 4");
}

// Small cases worked by hand, with the gradients TensorFlow registers.
BOOST_AUTO_TEST_CASE(the_ops_and_their_gradients_compute_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(9), Shape{1, 3, 3, 1}), "x");
  const Output patches = af::nn::extract_image_patches(x, {1, 2, 2, 1}, kOnes, kOnes, "VALID");
  const Output zeros =
      g.constant(Tensor::from_vector(std::vector<float>(4, 0.0f), Shape{2, 2, 1}), "zeros");
  const Output dilated = af::nn::dilation2d(x, zeros, kOnes, kOnes, "VALID");
  const auto patch_grad = af::gradients({patches}, {x});
  const auto dilation_grads = af::gradients({dilated}, {x, zeros});
  af::Session sess(g);
  const auto v = sess.run({patches, patch_grad[0], dilated, dilation_grads[0], dilation_grads[1]});
  BOOST_TEST(v[0].shape() == Shape({1, 2, 2, 4}));
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}),
             boost::test_tools::per_element());
  // Each pixel's gradient counts the patches holding it.
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{5, 6, 8, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<float>() == (std::vector<float>{0, 0, 0, 0, 1, 1, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() == (std::vector<float>{0, 0, 0, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(max_pool_with_argmax_counts_the_batch_only_when_asked) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(8), Shape{2, 2, 2, 1}), "x");
  const auto plain = af::nn::max_pool_with_argmax(x, {1, 2, 2, 1}, kOnes, "VALID");
  const auto batched =
      af::nn::max_pool_with_argmax(x, {1, 2, 2, 1}, kOnes, "VALID", DType::int32, true);
  const auto grad = af::gradients({plain.output}, {x});
  const Output y = af::nn::max_pool(x, {1, 2, 2, 1}, kOnes, "VALID");
  const Output dx = g.constant(Tensor::from_vector(iota(8, 10.0f), Shape{2, 2, 2, 1}), "dx");
  const Output gg = af::nn::max_pool_grad_grad(x, y, dx, {1, 2, 2, 1}, kOnes, "VALID");
  af::Session sess(g);
  const auto v = sess.run({plain.output, plain.argmax, batched.argmax, grad[0], gg});
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{4, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int32_t>() == (std::vector<std::int32_t>{3, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<float>() == (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1}),
             boost::test_tools::per_element());
  // MaxPoolGradGrad picks the gradient at each window's maximum.
  BOOST_TEST(v[4].to_vector<float>() == (std::vector<float>{13, 17}),
             boost::test_tools::per_element());
}

// The integer types add as TensorFlow's kernels do (uint8 wraps).
BOOST_AUTO_TEST_CASE(integer_types_extract_and_dilate) {
  af::Graph g;
  const Output x = g.constant(
      Tensor::from_vector(std::vector<std::uint8_t>{250, 1, 2, 3}, Shape{1, 2, 2, 1}), "x");
  const Output w =
      g.constant(Tensor::from_vector(std::vector<std::uint8_t>{10}, Shape{1, 1, 1}), "w");
  const Output p = af::nn::extract_image_patches(x, {1, 2, 2, 1}, kOnes, kOnes, "SAME");
  const Output d = af::nn::dilation2d(x, w, kOnes, kOnes, "VALID");
  af::Session sess(g);
  const auto v = sess.run({p, d});
  BOOST_TEST(v[0].to_vector<std::uint8_t>() ==
                 (std::vector<std::uint8_t>{250, 1, 2, 3, 1, 0, 3, 0, 2, 3, 0, 0, 3, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::uint8_t>() == (std::vector<std::uint8_t>{4, 11, 12, 13}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_input_fails_when_running_with_tensorflows_messages) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output w = g.placeholder(DType::float32, PartialShape::unknown(), "w");
  const Output dy = g.placeholder(DType::float32, PartialShape::unknown(), "dy");
  const Output am = g.placeholder(DType::int64, PartialShape::unknown(), "am");
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    af::test::fails_with(sess, y, message, feeds);
  };
  const Tensor image(DType::float32, Shape{1, 4, 4, 2});
  const Output eip = af::nn::extract_image_patches(x, {1, 2, 2, 1}, kOnes, kOnes, "SAME", "eip");
  fails_with(eip, {{x, Tensor(DType::float32, Shape{4, 4, 2})}},
             "input must be 4-dimensional[4,4,2]");
  fails_with(af::nn::extract_image_patches(x, {2, 2, 2, 1}, kOnes, kOnes, "SAME", "batch"),
             {{x, image}}, "Only support ksizes across space.");
  fails_with(af::nn::extract_image_patches(x, kOnes, {1, 0, 1, 1}, kOnes, "SAME", "zero"),
             {{x, image}}, "strides is out of range.");
  fails_with(af::nn::extract_volume_patches(x, {1, 1, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME", "evp"),
             {{x, image}}, "input must be 5-dimensional[1,4,4,2]");
  const Output dil = af::nn::dilation2d(x, w, kOnes, kOnes, "SAME", "dil");
  fails_with(dil, {{x, image}, {w, Tensor(DType::float32, Shape{2, 2})}},
             "filter must be 3-dimensional: [2,2]");
  fails_with(dil, {{x, image}, {w, Tensor(DType::float32, Shape{2, 2, 3})}},
             "input and filter must have the same depth: 2 vs 3");
  fails_with(af::nn::dilation2d(x, w, {2, 1, 1, 1}, kOnes, "SAME", "dil_batch"),
             {{x, image}, {w, Tensor(DType::float32, Shape{2, 2, 2})}},
             "Stride is only supported across spatial dimensions.");
  fails_with(af::nn::dilation2d_backprop_input(x, w, dy, kOnes, kOnes, "SAME", "dbi"),
             {{x, image},
              {w, Tensor(DType::float32, Shape{2, 2, 2})},
              {dy, Tensor(DType::float32, Shape{1, 3, 3, 2})}},
             "out_backprop has incompatible size.");
  fails_with(
      af::nn::max_pool_with_argmax(x, {2, 2, 2, 1}, kOnes, "SAME", DType::int64, false, "mp_batch")
          .output,
      {{x, image}}, "Pooling is not yet supported on the batch dimension.");
  fails_with(
      af::nn::max_pool_with_argmax(x, {1, 2, 2, 1}, kOnes, "SAME", DType::int64, false, "mp_rank")
          .output,
      {{x, Tensor(DType::float32, Shape{4, 4, 2})}}, "tensor_in must be 4-dimensional (2)");
  const Output mpg =
      af::nn::max_pool_grad_with_argmax(x, dy, am, {1, 2, 2, 1}, kOnes, "SAME", false, "mpg");
  fails_with(mpg,
             {{x, image},
              {dy, Tensor(DType::float32, Shape{1, 3, 3, 2})},
              {am, Tensor(DType::int64, Shape{1, 3, 3, 2})}},
             "Expected grad shape to be [1,4,4,2], but got [1,3,3,2]");
  fails_with(mpg,
             {{x, image},
              {dy, image},
              {am, Tensor::from_vector(std::vector<std::int64_t>(32, 100), Shape{1, 4, 4, 2})}},
             "Invalid output gradient index: 100, 0, 32");
  const Output mgg = af::nn::max_pool_grad_grad(x, w, dy, {1, 2, 2, 1}, kOnes, "SAME", "mgg");
  fails_with(mgg, {{x, image}, {w, Tensor(DType::float32, Shape{1, 3, 3, 2})}, {dy, image}},
             "Expected orig_output shape to be [1,4,4,2], but got [1,3,3,2]");
  fails_with(af::nn::max_pool_grad_grad(x, w, dy, {1, 2, 2, 2}, kOnes, "SAME", "mgg_depth"),
             {{x, image}, {w, image}, {dy, image}},
             "MaxPoolingGradGrad is not yet supported on the depth dimension.");
}

BOOST_AUTO_TEST_SUITE_END()
