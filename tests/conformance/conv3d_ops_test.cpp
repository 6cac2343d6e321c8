// Conv3D, its V2 backprops, MaxPool3D, AvgPool3D and their gradient ops as TensorFlow 1.x
// builds, shapes, computes and refuses them (the values TensorFlow 2.21 computes for many more
// cases are in tests/data/tf_ops, made by scripts/peers/op_cases_conv3d.py and checked by
// op_coverage_conformance_test.cpp).
#include "actorflow/ops/conv3d_ops.hpp"

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

const std::vector<std::int64_t> kOnes = {1, 1, 1, 1, 1};

}  // namespace

BOOST_AUTO_TEST_SUITE(conv3d_ops_test)

// The builders name their ops after their types, as TensorFlow's Python does, hold
// TensorFlow's attrs and infer its static shapes, known or unknown dimension by dimension.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({2, 4, 5, 6, 3}), "x");
  const Output w = g.placeholder(DType::float32, PartialShape({2, 3, 2, 3, 4}), "w");
  const Output same = af::nn::conv3d(x, w, kOnes, "SAME");
  BOOST_TEST(same.name() == "Conv3D:0");
  BOOST_TEST(same.shape() == PartialShape({2, 4, 5, 6, 4}));
  BOOST_TEST(*same.node()->def().attr<std::string>("data_format") == "NDHWC");
  BOOST_TEST(*same.node()->def().attr<std::vector<std::int64_t>>("dilations") == kOnes);
  BOOST_TEST(af::nn::conv3d(x, w, kOnes, "VALID").shape() == PartialShape({2, 3, 3, 5, 4}));
  BOOST_TEST(af::nn::conv3d(x, w, {1, 2, 1, 3, 1}, "SAME").shape() ==
             PartialShape({2, 2, 5, 2, 4}));
  BOOST_TEST(af::nn::conv3d(x, w, {1, 2, 2, 2, 1}, "VALID").shape() ==
             PartialShape({2, 2, 2, 3, 4}));
  // NCDHW builds with TensorFlow's static shape (the CPU kernel refuses it when running).
  const Output nc = g.placeholder(DType::float32, PartialShape({2, 3, 4, 5, 6}), "nc");
  BOOST_TEST(af::nn::conv3d(nc, w, kOnes, "VALID", "NCDHW").shape() ==
             PartialShape({2, 4, 3, 3, 5}));
  // As TensorFlow's Conv3DShape, the dilation at the rows' position widens the columns.
  const Output big = g.placeholder(DType::float32, PartialShape({1, 7, 9, 11, 3}), "big");
  const Output w3 = g.placeholder(DType::float32, PartialShape({3, 3, 3, 3, 2}), "w3");
  BOOST_TEST(af::nn::conv3d(big, w3, kOnes, "VALID", "NDHWC", {1, 1, 2, 1, 1}).shape() ==
             PartialShape({1, 5, 7, 7, 2}));
  // Unknown dimensions stay unknown.
  const Output open = g.placeholder(DType::float32, PartialShape({-1, 4, -1, 6, 3}), "open");
  BOOST_TEST(af::nn::conv3d(open, w, kOnes, "VALID").shape() == PartialShape({-1, 3, -1, 5, 4}));
  // The backprops take the shape their sizes name, rank 5 when the sizes are not constant.
  const Output sizes =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 4, 5, 6, 3}, Shape{5}), "sizes");
  const Output dy = g.placeholder(DType::float32, PartialShape({2, 4, 5, 6, 4}), "dy");
  const Output dx = af::nn::conv3d_backprop_input_v2(sizes, w, dy, kOnes, "SAME");
  BOOST_TEST(dx.name() == "Conv3DBackpropInputV2:0");
  BOOST_TEST(*dx.node()->def().attr<DType>("Tshape") == DType::int32);
  BOOST_TEST(dx.shape() == PartialShape({2, 4, 5, 6, 3}));
  const Output any_sizes = g.placeholder(DType::int64, PartialShape({5}), "any_sizes");
  BOOST_TEST(af::nn::conv3d_backprop_input_v2(any_sizes, w, dy, kOnes, "SAME").shape() ==
             PartialShape::unknown_of_rank(5));
  const Output fsizes =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 3, 2, 3, 4}, Shape{5}), "fsizes");
  const Output dw = af::nn::conv3d_backprop_filter_v2(x, fsizes, dy, kOnes, "SAME");
  BOOST_TEST(dw.name() == "Conv3DBackpropFilterV2:0");
  BOOST_TEST(dw.shape() == PartialShape({2, 3, 2, 3, 4}));
  // Pools.
  const Output mp = af::nn::max_pool3d(x, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  BOOST_TEST(mp.name() == "MaxPool3D:0");
  BOOST_TEST(mp.shape() == PartialShape({2, 2, 3, 3, 3}));
  const Output ap = af::nn::avg_pool3d(x, {1, 2, 3, 2, 1}, {1, 1, 2, 1, 1}, "VALID");
  BOOST_TEST(ap.name() == "AvgPool3D:0");
  BOOST_TEST(ap.shape() == PartialShape({2, 3, 2, 5, 3}));
  BOOST_TEST(af::nn::max_pool3d(nc, {1, 1, 2, 2, 3}, {1, 1, 2, 2, 3}, "VALID", "NCDHW").shape() ==
             PartialShape({2, 3, 2, 2, 2}));
  const Output mg = af::nn::max_pool3d_grad(x, mp, mp, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  BOOST_TEST(mg.name() == "MaxPool3DGrad:0");
  BOOST_TEST(*mg.node()->def().attr<DType>("TInput") == DType::float32);
  BOOST_TEST(mg.shape() == PartialShape({2, 4, 5, 6, 3}));
  const Output ag = af::nn::avg_pool3d_grad(sizes, mp, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  BOOST_TEST(ag.name() == "AvgPool3DGrad:0");
  BOOST_TEST(ag.shape() == PartialShape({2, 4, 5, 6, 3}));
  const Output gg =
      af::nn::max_pool3d_grad_grad(x, mp, x, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  BOOST_TEST(gg.name() == "MaxPool3DGradGrad:0");
  BOOST_TEST(gg.shape() == PartialShape({2, 2, 3, 3, 3}));
}

// Small cases worked by hand: a filter of ones sums each window, the pools take the window's
// maximum and mean, and the gradients of their sums spread ones back.
BOOST_AUTO_TEST_CASE(the_ops_compute_windows_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(8), Shape{1, 2, 2, 2, 1}), "x");
  const Output ones =
      g.constant(Tensor::from_vector(std::vector<float>(8, 1.0f), Shape{2, 2, 2, 1, 1}), "ones");
  const Output valid = af::nn::conv3d(x, ones, kOnes, "VALID");
  const Output same = af::nn::conv3d(x, ones, kOnes, "SAME");
  const Output mp = af::nn::max_pool3d(x, {1, 2, 2, 2, 1}, kOnes, "SAME");
  const Output ap = af::nn::avg_pool3d(x, {1, 2, 2, 2, 1}, kOnes, "SAME");
  const auto grads = af::gradients({valid}, {x, ones});
  const auto pool_grads = af::gradients({mp, ap}, {x});
  af::Session sess(g);
  const auto v = sess.run({valid, same, mp, ap, grads[0], grads[1], pool_grads[0]});
  BOOST_TEST(v[0].shape() == Shape({1, 1, 1, 1, 1}));
  BOOST_TEST(v[0].data<float>()[0] == 36.0f);
  // SAME pads after: output (p, r, c) sums the input from (p, r, c) on.
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{36, 20, 22, 12, 26, 14, 15, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{8, 8, 8, 8, 8, 8, 8, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<float>() == (std::vector<float>{4.5f, 5, 5.5f, 6, 6.5f, 7, 7.5f, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() == std::vector<float>(8, 1.0f),
             boost::test_tools::per_element());
  BOOST_TEST(v[5].to_vector<float>() == iota(8), boost::test_tools::per_element());
  // MaxPool3D sends every window's gradient to the 8; AvgPool3D spreads each over its window.
  const std::vector<float> pool = v[6].to_vector<float>();
  BOOST_TEST(pool[7] == 8.0f + 1.0f / 8 + 1.0f / 4 + 1.0f / 4 + 1.0f / 2 + 1.0f / 4 + 1.0f / 2 +
                            1.0f / 2 + 1.0f,
             boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(pool[0] == 1.0f / 8, boost::test_tools::tolerance(1e-6f));
}

// The gradients are the ops nn_grad.py builds: a ShapeN and the V2 backprops for Conv3D,
// MaxPool3DGrad, AvgPool3DGrad of the input's shape, and the gradient ops' own gradients.
BOOST_AUTO_TEST_CASE(gradients_are_the_ops_nn_grad_py_builds) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({1, 3, 3, 3, 2}), "x");
  const Output w = g.placeholder(DType::float32, PartialShape({2, 2, 2, 2, 3}), "w");
  const Output y = af::nn::conv3d(x, w, kOnes, "SAME");
  const auto grads = af::gradients({y}, {x, w});
  BOOST_TEST(grads[0].node()->type() == "Conv3DBackpropInputV2");
  BOOST_TEST(grads[1].node()->type() == "Conv3DBackpropFilterV2");
  BOOST_TEST(grads[0].node()->inputs()[0].node()->type() == "ShapeN");
  BOOST_TEST(grads[0].shape() == PartialShape({1, 3, 3, 3, 2}));
  const auto second = af::gradients({grads[0]}, {w});
  BOOST_TEST(second[0].node()->type() == "Conv3DBackpropFilterV2");
  const Output mp = af::nn::max_pool3d(x, {1, 2, 2, 2, 1}, kOnes, "VALID");
  const Output ap = af::nn::avg_pool3d(x, {1, 2, 2, 2, 1}, kOnes, "VALID");
  BOOST_TEST(af::gradients({mp}, {x})[0].node()->type() == "MaxPool3DGrad");
  BOOST_TEST(af::gradients({ap}, {x})[0].node()->type() == "AvgPool3DGrad");
  const Output dy = g.placeholder(DType::float32, PartialShape({1, 2, 2, 2, 2}), "dy");
  const Output mg = af::nn::max_pool3d_grad(x, mp, dy, {1, 2, 2, 2, 1}, kOnes, "VALID");
  BOOST_TEST(af::gradients({mg}, {dy})[0].node()->type() == "MaxPool3DGradGrad");
  const Output top = g.placeholder(DType::float32, PartialShape({1, 3, 3, 3, 2}), "top");
  const Output gg = af::nn::max_pool3d_grad_grad(x, mp, top, {1, 2, 2, 2, 1}, kOnes, "VALID");
  BOOST_TEST(af::gradients({gg}, {top})[0].node()->type() == "MaxPool3DGrad");
}

// Shapes and attrs that cannot work are refused while building with TensorFlow's shape
// function and NodeDef messages.
BOOST_AUTO_TEST_CASE(bad_shapes_and_attrs_are_refused_while_building) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({1, 4, 5, 6, 2}), "x");
  const Output x4 = g.placeholder(DType::float32, PartialShape({1, 4, 4, 4, 4}), "x4");
  const Output w = g.placeholder(DType::float32, PartialShape({2, 2, 2, 3, 3}), "w");
  const Output w2 = g.placeholder(DType::float32, PartialShape({2, 2, 2, 2, 3}), "w2");
  const Output tall = g.placeholder(DType::float32, PartialShape({5, 2, 2, 2, 3}), "tall");
  refused_while_building([&] { af::nn::conv3d(x, w, kOnes, "SAME"); },
                         "Depth of input (2) is not a multiple of input depth of filter (3)");
  refused_while_building([&] { af::nn::conv3d(x4, w2, kOnes, "VALID"); },
                         "Depth of output (3) is not a multiple of the number of groups (2)");
  refused_while_building([&] { af::nn::conv3d(x, tall, kOnes, "VALID"); },
                         "Negative dimension size caused by subtracting 5 from 4");
  refused_while_building(
      [&] {
        af::nn::conv3d(x, w2, {1, 1, 1, 1}, "SAME");
      },
      "Conv3D requires the stride attribute to contain 5 values, but got: 4");
  refused_while_building(
      [&] {
        af::nn::conv3d(x, w2, kOnes, "SAME", "NDHWC", {1, 1, 1, 1});
      },
      "Conv3D requires the dilation attribute to contain 5 values, but got: 4");
  refused_while_building(
      [&] {
        af::nn::conv3d(x, w2, {1, 0, 1, 1, 1}, "SAME");
      },
      "Stride must be > 0, but got 0");
  refused_while_building([&] { af::nn::conv3d(x, w2, kOnes, "EXPLICIT"); },
                         "Value for attr 'padding' of \"EXPLICIT\" is not in the list of allowed "
                         "values: \"SAME\", \"VALID\"");
  const Output flat = g.placeholder(DType::float32, PartialShape({4, 5, 6, 2}), "flat");
  refused_while_building([&] { af::nn::conv3d(flat, w2, kOnes, "SAME"); },
                         "Shape must be rank 5 but is rank 4");
  refused_while_building(
      [&] {
        af::nn::max_pool3d(x, {1, 5, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
      },
      "Negative dimension size caused by subtracting 5 from 4");
  refused_while_building(
      [&] {
        af::nn::avg_pool3d(x, {1, 2, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
      },
      "Pool3D ops require the stride attribute to contain 5 values, but got: 4");
  refused_while_building(
      [&] {
        af::nn::avg_pool3d(x, {1, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
      },
      "Pool3D requires the ksize attribute to contain 5 values, but got: 4");
  const Output d = g.placeholder(DType::float64, PartialShape({1, 4, 4, 4, 1}), "d");
  refused_while_building(
      [&] {
        af::nn::max_pool3d(d, {1, 2, 2, 2, 1}, kOnes, "SAME");
      },
      "Value for attr 'T' of double is not in the list of allowed values: "
      "half, bfloat16, float");
  const Output mp = af::nn::max_pool3d(x, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  const Output half = g.placeholder(DType::float32, PartialShape({1, 1, 5, 6, 2}), "half");
  refused_while_building(
      [&] {
        af::nn::max_pool3d_grad_grad(x, mp, half, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
      },
      "Dimension 1 in both shapes must be equal, but are 4 and 1. Shapes are [1,4,5,6,2] and "
      "[1,1,5,6,2].");
  const Output four =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 4, 5, 6}, Shape{4}), "four");
  refused_while_building(
      [&] {
        af::nn::avg_pool3d_grad(four, mp, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
      },
      "Shape must be rank 5 but is rank 4");
  refused_while_building([&] { af::nn::conv3d_backprop_filter_v2(x, four, mp, kOnes, "SAME"); },
                         "Shape must be rank 5 but is rank 4");
}

// What the shapes only show when the step runs fails with TensorFlow's CPU kernel messages,
// the node named; NCDHW and dilations are refused on the CPU.
BOOST_AUTO_TEST_CASE(bad_input_fails_when_running_with_tensorflows_messages) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output w = g.placeholder(DType::float32, PartialShape::unknown(), "w");
  const Output dy = g.placeholder(DType::float32, PartialShape::unknown(), "dy");
  const Output sizes = g.placeholder(DType::int32, PartialShape::unknown(), "sizes");
  const Output conv = af::nn::conv3d(x, w, kOnes, "SAME", "NDHWC", kOnes, "conv");
  const Output ncdhw = af::nn::conv3d(x, w, kOnes, "SAME", "NCDHW", kOnes, "ncdhw");
  const Output dilated = af::nn::conv3d(x, w, kOnes, "SAME", "NDHWC", {1, 2, 2, 2, 1}, "dilated");
  const Output bi =
      af::nn::conv3d_backprop_input_v2(sizes, w, dy, kOnes, "SAME", "NDHWC", kOnes, "bi");
  const Output bf =
      af::nn::conv3d_backprop_filter_v2(x, sizes, dy, kOnes, "SAME", "NDHWC", kOnes, "bf");
  const Output pool =
      af::nn::max_pool3d(x, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME", "NDHWC", "pool");
  const Output ag =
      af::nn::avg_pool3d_grad(sizes, dy, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME", "NDHWC", "ag");
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    af::test::fails_with(sess, y, message, feeds);
  };
  auto ints = [](std::vector<std::int32_t> v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return Tensor::from_vector(std::move(v), Shape{n});
  };
  const Tensor image(DType::float32, Shape{1, 4, 5, 6, 2});
  const Tensor filter(DType::float32, Shape{2, 2, 2, 2, 3});
  fails_with(conv, {{x, Tensor(DType::float32, Shape{4, 5, 6, 2})}, {w, filter}},
             "input must be 5-dimensional");
  fails_with(conv, {{x, image}, {w, Tensor(DType::float32, Shape{2, 2, 2, 3, 3})}},
             "Input depth must be evenly divisible by filter depth: 2 vs 3");
  fails_with(conv, {{x, Tensor(DType::float32, Shape{1, 4, 5, 6, 4})}, {w, filter}},
             "Number of channels in filter (2) must match last dimension of input (4)");
  fails_with(conv, {{x, image}, {w, Tensor(DType::float32, Shape{0, 2, 2, 2, 3})}},
             "filter must not have zero elements (i.e. all dimensions must be non-zero)");
  fails_with(ncdhw, {{x, Tensor(DType::float32, Shape{1, 2, 4, 5, 6})}, {w, filter}},
             "CPU implementation of Conv3D currently only supports the NHWC tensor format.");
  fails_with(dilated, {{x, image}, {w, filter}},
             "CPU implementation of Conv3D currently only supports dilated rates of 1.");
  const Tensor grad(DType::float32, Shape{1, 4, 5, 6, 3});
  fails_with(bi,
             {{sizes, ints({1, 4, 5, 6, 2})},
              {w, filter},
              {dy, Tensor(DType::float32, Shape{1, 3, 5, 6, 3})}},
             "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 3, "
             "computed = 4 spatial_dim: 1 input: 4 filter: 2 output: 3 stride: 1 dilation: 1");
  fails_with(bi, {{sizes, ints({2, 4, 5, 6, 2})}, {w, filter}, {dy, grad}},
             "Conv3DBackpropInputOp: input and out_backprop must have the same batch size. Input "
             "batch: 2, outbackprop batch: 1, batch_dim: 0");
  fails_with(bi, {{sizes, ints({1, 4, 5, 6, 3})}, {w, filter}, {dy, grad}},
             "input and filter_sizes must have the same number of channels. Got 3 for input and 2 "
             "for filter_sizes");
  fails_with(bi, {{sizes, ints({1, 4, 5, 6})}, {w, filter}, {dy, grad}},
             "input tensor must have 5 dimensions");
  fails_with(bi, {{sizes, ints({1, 4, 5, -6, 2})}, {w, filter}, {dy, grad}},
             "Dimension -6 must be >= 0");
  fails_with(bf, {{x, image}, {sizes, ints({2, 2, 2, 2, 4})}, {dy, grad}},
             "out_backprop and filter_sizes must have the same number of channels. Got 3 for "
             "out_backprop and 4 for filter_sizes");
  fails_with(bf,
             {{x, image},
              {sizes, Tensor::from_vector(std::vector<std::int32_t>{2, 2, 2, 2, 3}, Shape{1, 5})},
              {dy, grad}},
             "filter_sizes shape must be rank 1 but is rank 2");
  fails_with(pool, {{x, Tensor(DType::float32, Shape{4, 5, 6, 2})}},
             "tensor_in must be 5-dimensional");
  const Tensor pooled(DType::float32, Shape{1, 2, 3, 3, 2});
  fails_with(ag, {{sizes, ints({1, 4, 5, 6})}, {dy, pooled}},
             "tensor_in must be 1-dimensional and 5 elements");
  fails_with(ag, {{sizes, ints({2, 4, 5, 6, 2})}, {dy, pooled}},
             "Expected first dimension of tensor_in_shape and out_backprop to match, got 2 and 1");
  fails_with(ag, {{sizes, ints({1, 4, 5, 6, 3})}, {dy, pooled}},
             "Expected last dimension of tensor_in_shape and out_backprop to match, got 3 and 2");
}

// MaxPool3DGrad checks orig_output and grad against the pooled shape; pooling over the depth
// is Unimplemented, as in TensorFlow.
BOOST_AUTO_TEST_CASE(pooling_gradients_check_their_inputs_when_running) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output y = g.placeholder(DType::float32, PartialShape::unknown(), "y");
  const Output dy = g.placeholder(DType::float32, PartialShape::unknown(), "dy");
  const Output mg =
      af::nn::max_pool3d_grad(x, y, dy, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME", "NDHWC", "mg");
  const Output gg = af::nn::max_pool3d_grad_grad(x, y, dy, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME",
                                                 "NDHWC", "gg");
  af::Session sess(g);
  auto fails_with = [&](const Output& out, af::FeedDict feeds, const std::string& message) {
    af::test::fails_with(sess, out, message, feeds);
  };
  const Tensor in(DType::float32, Shape{1, 4, 5, 6, 2});
  const Tensor out(DType::float32, Shape{1, 2, 3, 3, 2});
  const Tensor thin(DType::float32, Shape{1, 1, 3, 3, 2});
  fails_with(mg, {{x, in}, {y, thin}, {dy, out}},
             "Expected orig_output shape to be [1,2,3,3,2], but got [1,1,3,3,2]");
  fails_with(mg, {{x, in}, {y, out}, {dy, thin}},
             "Expected grad shape to be [1,2,3,3,2], but got [1,1,3,3,2]");
  fails_with(gg, {{x, in}, {y, out}, {dy, Tensor(DType::float32, Shape{1, 1, 5, 6, 2})}},
             "Expected grad shape to be [1,4,5,6,2], but got [1,1,5,6,2]");
  fails_with(gg,
             {{x, Tensor(DType::float32, Shape{0, 4, 5, 6, 2})},
              {y, Tensor(DType::float32, Shape{0, 2, 3, 3, 2})},
              {dy, Tensor(DType::float32, Shape{0, 4, 5, 6, 2})}},
             "received empty tensor tensor_in: Tensor<type: float shape: [0,4,5,6,2] values: >");
}

// Attrs the CPU kernels refuse fail the step that runs them, as TensorFlow's kernel
// constructors do (each op in a graph of its own).
BOOST_AUTO_TEST_CASE(attrs_the_cpu_kernels_refuse_fail_the_step) {
  auto fails_with = [](auto build, const std::string& message) {
    af::Graph g;
    const Output x = g.constant(Tensor(DType::float32, Shape{1, 4, 4, 4, 2}), "x");
    const Output y = build(x);
    af::Session sess(g);
    af::test::fails_with(sess, y, message);
  };
  fails_with(
      [](const Output& x) {
        return af::nn::avg_pool3d(x, {1, 1, 2, 2, 2}, {1, 1, 2, 2, 2}, "SAME", "NCDHW");
      },
      "Default Pooling3DOp only supports NDHWC on device type CPU");
  fails_with(
      [](const Output& x) {
        return af::nn::max_pool3d(x, {1, 2, 2, 2, 2}, {1, 2, 2, 2, 1}, "SAME");
      },
      "Pooling is not yet supported on the depth dimension.");
  fails_with(
      [](const Output& x) {
        return af::nn::max_pool3d(x, {1, 0, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
      },
      "Sliding window ksize field must have non-negative dimensions");
  fails_with(
      [](const Output& x) {
        const Output w = x.graph().constant(Tensor(DType::float32, Shape{1, 1, 1, 2, 2}), "w");
        return af::nn::conv3d(x, w, {2, 1, 1, 1, 1}, "SAME");
      },
      "Current implementation does not yet support strides in the batch and depth dimensions.");
  fails_with(
      [](const Output& x) {
        const Output sizes = x.graph().constant(
            Tensor::from_vector(std::vector<std::int32_t>{1, 1, 1, 2, 2}, Shape{5}), "sizes");
        return af::nn::conv3d_backprop_filter_v2(x, sizes, x, kOnes, "SAME", "NDHWC",
                                                 {1, 2, 1, 1, 1});
      },
      "Current CPU implementation does not yet support dilation rates larger than 1.");
}

BOOST_AUTO_TEST_SUITE_END()
