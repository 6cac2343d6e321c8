// SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth and DepthToSpace
// as TensorFlow 1.x builds, shapes, computes and refuses them (the values TensorFlow 2.21
// computes for many more cases are in tests/data/tf_ops, made by
// scripts/peers/op_cases_space_batch.py and checked by op_coverage_conformance_test.cpp).
#include "actorflow/ops/space_batch_ops.hpp"

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

}  // namespace

BOOST_AUTO_TEST_SUITE(space_batch_ops_test)

// The builders name their ops and Consts as TensorFlow's Python does and infer TensorFlow's
// static shapes, known or unknown dimension by dimension.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({2, 4, 6, 3}), "x");
  const Output s = af::space_to_batch_nd(x, {2, 3}, {{1, 1}, {0, 3}});
  BOOST_TEST(s.name() == "SpaceToBatchND:0");
  BOOST_TEST(g.operation("SpaceToBatchND/block_shape").type() == "Const");
  BOOST_TEST(g.operation("SpaceToBatchND/paddings").output(0).dtype() == DType::int32);
  BOOST_TEST(s.shape() == PartialShape({12, 3, 3, 3}));
  const Output back = af::batch_to_space_nd(s, {2, 3}, {{1, 1}, {0, 3}});
  BOOST_TEST(back.name() == "BatchToSpaceND:0");
  BOOST_TEST(g.operation("BatchToSpaceND/crops").type() == "Const");
  BOOST_TEST(back.shape() == PartialShape({2, 4, 6, 3}));
  // Unknown dimensions stay unknown; the batch is unknown without the block's value.
  const Output open = g.placeholder(DType::float32, PartialShape({-1, 4, -1, 5}), "open");
  BOOST_TEST(af::space_to_batch_nd(open, {2}, {{0, 0}}).shape() == PartialShape({-1, 2, -1, 5}));
  const Output block = g.placeholder(DType::int32, PartialShape({2}), "block");
  const Output pads =
      g.constant(Tensor::from_vector(std::vector<std::int64_t>{0, 0, 1, 1}, Shape{2, 2}));
  const Output any_block = af::space_to_batch_nd(x, block, pads, "any_block");
  BOOST_TEST(any_block.shape() == PartialShape({-1, -1, -1, 3}));
  BOOST_TEST(*any_block.node()->def().attr<DType>("Tpaddings") == DType::int64);
  BOOST_TEST(
      af::space_to_batch_nd(g.placeholder(DType::float32, PartialShape::unknown()), {2}, {{0, 0}})
          .shape() == PartialShape::unknown());
  // The legacy 4-D ops hold the block size as an attr.
  const Output v1 = af::space_to_batch(x, {{0, 0}, {1, 1}}, 2);
  BOOST_TEST(v1.name() == "SpaceToBatch:0");
  BOOST_TEST(*v1.node()->def().attr<std::int64_t>("block_size") == 2);
  BOOST_TEST(v1.shape() == PartialShape({8, 2, 4, 3}));
  const Output v1_back = af::batch_to_space(v1, {{0, 0}, {1, 1}}, 2);
  BOOST_TEST(v1_back.name() == "BatchToSpace:0");
  BOOST_TEST(*v1_back.node()->def().attr<DType>("Tidx") == DType::int32);
  BOOST_TEST(v1_back.shape() == PartialShape({2, 4, 6, 3}));
  // SpaceToDepth and DepthToSpace follow data_format in their static shapes.
  const Output d = af::space_to_depth(x, 2);
  BOOST_TEST(d.name() == "SpaceToDepth:0");
  BOOST_TEST(*d.node()->def().attr<std::string>("data_format") == "NHWC");
  BOOST_TEST(d.shape() == PartialShape({2, 2, 3, 12}));
  BOOST_TEST(af::depth_to_space(d, 2).shape() == PartialShape({2, 4, 6, 3}));
  const Output nchw = g.placeholder(DType::float32, PartialShape({1, 8, 2, 3}), "nchw");
  BOOST_TEST(af::depth_to_space(nchw, 2, "NCHW").shape() == PartialShape({1, 2, 4, 6}));
  const Output vect = g.placeholder(DType::float32, PartialShape({1, 2, 4, 4, 4}), "vect");
  BOOST_TEST(af::space_to_depth(vect, 2, "NCHW_VECT_C").shape() == PartialShape({1, 8, 2, 2, 4}));
}

// TensorFlow's examples: SpaceToBatchND zero-pads and interleaves the blocks with the batch,
// BatchToSpaceND undoes it, SpaceToDepth and DepthToSpace move 2x2 blocks into the channels
// and back.
BOOST_AUTO_TEST_CASE(the_ops_compute_tensorflows_examples) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(16), Shape{2, 2, 4, 1}), "x");
  const Output s = af::space_to_batch_nd(x, {2, 2}, {{0, 0}, {2, 0}});
  const Output back = af::batch_to_space_nd(s, {2, 2}, {{0, 0}, {2, 0}});
  const Output ints =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 2, 3, 4}, Shape{1, 2, 2, 1}));
  const Output v1 = af::space_to_batch(ints, {{0, 0}, {0, 0}}, 2);
  const Output depth = g.constant(Tensor::from_vector(iota(16), Shape{1, 2, 2, 4}), "depth");
  const Output space = af::depth_to_space(depth, 2);
  const Output again = af::space_to_depth(space, 2);
  af::Session sess(g);
  const auto v = sess.run({s, back, v1, space, again});
  BOOST_TEST(v[0].shape() == Shape({8, 1, 3, 1}));
  BOOST_TEST(
      v[0].to_vector<float>() == (std::vector<float>{0, 1, 3, 0, 9,  11, 0, 2, 4, 0, 10, 12,
                                                     0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16}),
      boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() == iota(16), boost::test_tools::per_element());
  BOOST_TEST(v[2].shape() == Shape({4, 1, 1, 1}));
  BOOST_TEST(v[2].to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].shape() == Shape({1, 4, 4, 1}));
  BOOST_TEST(v[3].to_vector<float>() ==
                 (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() == iota(16), boost::test_tools::per_element());
}

// tf.nn.depthwise_conv2d with dilations 2 and SAME padding, as TensorFlow lays it out:
// SpaceToBatchND (paddings [[1, 2], [1, 2]]), the native op of dilation 1 with VALID padding,
// BatchToSpaceND (crops [[0, 1], [0, 1]]); each output sums the input 2 apart around it.
BOOST_AUTO_TEST_CASE(dilated_depthwise_convolution_goes_through_the_batch) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(25), Shape{1, 5, 5, 1}), "x");
  const Output w = g.constant(Tensor::from_vector(std::vector<float>(4, 1.0f), Shape{2, 2, 1, 1}));
  const Output s = af::space_to_batch_nd(x, {2, 2}, {{1, 2}, {1, 2}});
  const Output conv = af::nn::depthwise_conv2d_native(s, w, {1, 1, 1, 1}, "VALID");
  const Output y = af::batch_to_space_nd(conv, {2, 2}, {{0, 1}, {0, 1}});
  BOOST_TEST(y.shape() == PartialShape({1, 5, 5, 1}));
  const auto grads = af::gradients({y}, {x});
  BOOST_TEST(grads[0].node()->type() == "BatchToSpaceND");
  af::Session sess(g);
  const auto v = sess.run({y, grads[0]});
  const std::vector<float> in = iota(25);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      float want = 0;
      for (int ky = 0; ky < 2; ++ky)
        for (int kx = 0; kx < 2; ++kx) {
          const int r = i - 1 + 2 * ky, c = j - 1 + 2 * kx;
          if (r >= 0 && r < 5 && c >= 0 && c < 5) want += in[static_cast<std::size_t>(r * 5 + c)];
        }
      BOOST_TEST(v[0].data<float>()[i * 5 + j] == want);
    }
  // Each input feeds as many outputs as lie 1 before or after it (2 apart) in each direction.
  BOOST_TEST(v[1].data<float>()[0] == 1.0f);
  BOOST_TEST(v[1].data<float>()[12] == 4.0f);
}

// The gradients are the opposite ops with the same blocks, as array_grad.py builds them; the
// legacy ops' gradients go through the ND ops with an int64 block_shape.
BOOST_AUTO_TEST_CASE(gradients_are_the_opposite_ops) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({2, 4, 4, 3}), "x");
  const Output s = af::space_to_batch_nd(x, {2, 2}, {{0, 0}, {1, 1}});
  const Output v1 = af::space_to_batch(x, {{0, 0}, {1, 1}}, 2);
  const Output d = af::space_to_depth(x, 2);
  const auto grads = af::gradients({s, v1, d}, {x});
  BOOST_TEST(grads[0].shape() == PartialShape({2, 4, 4, 3}));
  BOOST_TEST(g.operation("gradients/SpaceToBatchND_grad/BatchToSpaceND").type() ==
             "BatchToSpaceND");
  const af::Operation block = g.operation("gradients/SpaceToBatch_grad/BatchToSpaceND/block_shape");
  BOOST_TEST(block.output(0).dtype() == DType::int64);
  BOOST_TEST(g.operation("gradients/SpaceToDepth_grad/DepthToSpace").type() == "DepthToSpace");
  const Output b = af::batch_to_space(g.placeholder(DType::float32, PartialShape({8, 2, 3, 1})),
                                      {{0, 0}, {1, 1}}, 2);
  const Output e = af::depth_to_space(d, 2);
  const auto more = af::gradients({b, e}, {b.node()->inputs()[0], d});
  BOOST_TEST(more[0].node()->type() == "SpaceToBatchND");
  BOOST_TEST(more[1].node()->type() == "SpaceToDepth");
  const Output vect = g.placeholder(DType::float32, PartialShape({1, 2, 4, 4, 4}), "vect");
  const Output vd = af::space_to_depth(vect, 2, "NCHW_VECT_C");
  refused_while_building([&] { af::gradients({vd}, {vect}); },
                         "Cannot compute SpaceToDepth gradient with NCHW_VECT_C. NCHW_VECT_C "
                         "requires qint8 data type.");
}

// Shapes and Consts that cannot work are refused while building with TensorFlow's shape
// function messages; bad attrs with its NodeDef checks.
BOOST_AUTO_TEST_CASE(bad_shapes_and_attrs_are_refused_while_building) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({1, 3, 4, 1}), "x");
  const Output two = g.placeholder(DType::float32, PartialShape({1, 4}), "two");
  refused_while_building(
      [&] {
        af::space_to_batch_nd(x, {2}, {{0, 0}});
      },
      "Dimension size must be evenly divisible by 2 but is 3");
  refused_while_building(
      [&] {
        af::space_to_batch_nd(x, {0}, {{0, 0}});
      },
      "block_shape must be positive");
  refused_while_building(
      [&] {
        af::space_to_batch_nd(x, {2}, {{-1, 2}});
      },
      "paddings cannot be negative");
  refused_while_building(
      [&] {
        af::space_to_batch_nd(two, {2, 2}, {{0, 0}, {0, 0}});
      },
      "Shape must be at least rank 3 but is rank 2");
  refused_while_building(
      [&] {
        af::space_to_batch_nd(x, {2, 2}, {{0, 0}});
      },
      "Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are [1,2] and [2,2].");
  const Output unknown_rank = g.placeholder(DType::int32, PartialShape::unknown(), "ur");
  const Output unknown_size = g.placeholder(DType::int32, PartialShape({-1}), "us");
  const Output pads = g.placeholder(DType::int32, PartialShape({1, 2}), "pads");
  refused_while_building([&] { af::space_to_batch_nd(x, unknown_rank, pads); },
                         "block_shape must have rank 1.");
  refused_while_building([&] { af::batch_to_space_nd(x, unknown_size, pads); },
                         "block_shape must have known size.");
  const Output batch3 = g.placeholder(DType::float32, PartialShape({3, 2, 1}), "batch3");
  refused_while_building(
      [&] {
        af::batch_to_space_nd(batch3, {2}, {{0, 0}});
      },
      "Dimension size must be evenly divisible by 2 but is 3");
  const Output batch2 = g.placeholder(DType::float32, PartialShape({2, 2, 1}), "batch2");
  refused_while_building(
      [&] {
        af::batch_to_space_nd(batch2, {2}, {{3, 2}});
      },
      "Negative dimension size caused by subtracting 2 from 1");
  refused_while_building(
      [&] {
        af::batch_to_space_nd(batch2, {2}, {{-1, 0}});
      },
      "crops cannot be negative");
  refused_while_building(
      [&] {
        af::space_to_batch(batch2, {{0, 0}, {0, 0}}, 2);
      },
      "Shape must be rank 4 but is rank 3");
  refused_while_building(
      [&] {
        af::space_to_batch(x, {{0, 0}, {0, 0}}, 1);
      },
      "Value for attr 'block_size' of 1 must be at least minimum 2");
  refused_while_building([&] { af::space_to_depth(x, 2); },
                         "Dimension size must be evenly divisible by 2 but is 3");
  refused_while_building([&] { af::depth_to_space(x, 2); },
                         "Dimension size must be evenly divisible by 4 but is 1");
  refused_while_building([&] { af::space_to_depth(batch2, 2); },
                         "Shape must be rank 4 but is rank 3");
  refused_while_building([&] { af::depth_to_space(x, 1); },
                         "Value for attr 'block_size' of 1 must be at least minimum 2");
  refused_while_building([&] { af::space_to_depth(x, 2, "NCWH"); },
                         "Value for attr 'data_format' of \"NCWH\" is not in the list of allowed "
                         "values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"");
}

// What the shapes only show when the step runs fails with TensorFlow's kernel messages, the
// op named; NCHW is refused on the CPU; bool has no SpaceToBatchND kernel, as in TensorFlow.
BOOST_AUTO_TEST_CASE(bad_input_fails_when_running_with_tensorflows_messages) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output pads = g.placeholder(DType::int32, PartialShape::unknown(), "pads");
  const Output block1 = g.placeholder(DType::int32, PartialShape({1}), "block1");
  const Output block2 = g.placeholder(DType::int32, PartialShape({2}), "block2");
  const Output block5 = g.placeholder(DType::int32, PartialShape({5}), "block5");
  const Output s = af::space_to_batch_nd(x, block1, pads, "s");
  const Output s2 = af::space_to_batch_nd(x, block2, pads, "s2");
  const Output s5 = af::space_to_batch_nd(x, block5, pads, "s5");
  const Output b = af::batch_to_space_nd(x, block1, pads, "b");
  const Output v1 = af::space_to_batch(x, pads, 2, "v1");
  const Output b_v1 = af::batch_to_space(x, pads, 2, "b_v1");
  const Output d = af::space_to_depth(x, 2, "NHWC", "d");
  const Output e = af::depth_to_space(x, 2, "NHWC", "e");
  const Output nchw = af::depth_to_space(
      g.constant(Tensor(DType::float32, Shape{1, 8, 2, 2}), "planes"), 2, "NCHW", "nchw");
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  auto pairs = [](std::vector<std::int32_t> v) {
    const auto rows = static_cast<std::int64_t>(v.size() / 2);
    return Tensor::from_vector(std::move(v), Shape{rows, 2});
  };
  const Tensor one_block = Tensor::from_vector(std::vector<std::int32_t>{2});
  const Tensor image(DType::float32, Shape{1, 3, 4, 1});
  fails_with(s, {{x, image}, {block1, one_block}, {pads, pairs({0, 0})}},
             "padded_shape[0]=3 is not divisible by block_shape[0]=2");
  fails_with(s, {{x, image}, {block1, one_block}, {pads, pairs({-1, 0})}},
             "Paddings must be non-negative");
  fails_with(s, {{x, image}, {block1, one_block}, {pads, pairs({0, 0, 0, 0})}},
             "paddings should have shape [1, 2] instead of [2,2]");
  fails_with(s, {{x, Tensor(DType::float32, Shape{2})}, {block1, one_block}, {pads, pairs({0, 0})}},
             "input rank should be >= 2 instead of 1");
  fails_with(s2,
             {{x, image},
              {block2, Tensor::from_vector(std::vector<std::int32_t>{1, 0})},
              {pads, pairs({0, 0, 0, 0})}},
             "All values in block_shape must be positive, got value, 0 at index 1.");
  fails_with(s5,
             {{x, Tensor(DType::float32, Shape{1, 2, 2, 2, 2, 2})},
              {block5, Tensor::from_vector(std::vector<std::int32_t>{2, 2, 2, 2, 2})},
              {pads, pairs({0, 0, 0, 0, 0, 0, 0, 0, 0, 0})}},
             "Maximum number of non-combined block dimensions is 5 but must not exceed 4");
  fails_with(
      b, {{x, Tensor(DType::float32, Shape{3, 2, 1})}, {block1, one_block}, {pads, pairs({0, 0})}},
      "Input batch dimension (3) is not divisible by product of block sizes (2)");
  fails_with(
      b, {{x, Tensor(DType::float32, Shape{2, 2, 1})}, {block1, one_block}, {pads, pairs({3, 2})}},
      "cropped_shape[0]=-1 must be non-negative");
  fails_with(
      b, {{x, Tensor(DType::float32, Shape{2, 2, 1})}, {block1, one_block}, {pads, pairs({0, -1})}},
      "Crops must be non-negative");
  fails_with(b,
             {{x, Tensor(DType::float32, Shape{2, 2, 1})},
              {block1, one_block},
              {pads, pairs({0, 0, 0, 0})}},
             "crops should have shape [1, 2] instead of [2,2]");
  fails_with(v1, {{x, Tensor(DType::float32, Shape{1, 4, 4})}, {pads, pairs({0, 0, 0, 0})}},
             "Input rank should be: 4instead of: 3");
  fails_with(b_v1, {{x, Tensor(DType::float32, Shape{3, 2, 2, 1})}, {pads, pairs({0, 0, 0, 0})}},
             "Input batch dimension (3) is not divisible by product of block sizes (4)");
  fails_with(d, {{x, image}}, "Image width 4 and height 3 should be divisible by block_size: 2");
  fails_with(d, {{x, Tensor(DType::float32, Shape{4, 4, 1})}},
             "Input rank should be 4 instead of 3");
  fails_with(e, {{x, Tensor(DType::float32, Shape{1, 2, 2, 3})}},
             "Input depth dimension 3 should be divisible by: 4");
  fails_with(e, {{x, Tensor(DType::float32, Shape{2, 2, 4})}},
             "Input rank should be: 4 instead of: 3");
  try {
    sess.run(nchw);
    BOOST_ERROR("DepthToSpace ran NCHW on the CPU");
  } catch (const af::Error& e) {
    BOOST_TEST(std::string(e.what()).find("Only NHWC data_format supported on CPU. Got NCHW") !=
                   std::string::npos,
               e.what());
  }
  // No kernel takes booleans (as in TensorFlow); the placer says so for the whole graph, so
  // the op gets a graph of its own.
  af::Graph bools;
  const Output flags =
      af::space_to_batch_nd(bools.constant(Tensor(DType::boolean, Shape{1, 2, 1})), {2}, {{0, 0}});
  af::Session bool_sess(bools);
  BOOST_CHECK_THROW(bool_sess.run(flags), af::Error);
}

BOOST_AUTO_TEST_SUITE_END()
