// ResizeBicubic, ResizeArea, CropAndResize and NonMaxSuppression (V1 to V5) as TensorFlow 1.x
// builds, shapes, computes and refuses them; the values below are TensorFlow 2.21's (the many
// more cases of scripts/peers/op_cases_image_proc.py, gradients included, are checked by
// op_coverage_conformance_test.cpp).
#include "actorflow/ops/image_proc_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <array>
#include <boost/test/unit_test.hpp>
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
using af::test::iota;
using af::test::refused_when_run;
using af::test::refused_while_building;

Tensor boxes_tensor(std::vector<float> corners) {
  const auto rows = static_cast<std::int64_t>(corners.size() / 4);
  return Tensor::from_vector(std::move(corners), Shape{rows, 4});
}

// The NMS example: two clusters of overlapping boxes and a lone one.
const std::vector<float> kNmsBoxes = {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                      0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101};
const std::vector<float> kNmsScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

}  // namespace

BOOST_AUTO_TEST_SUITE(image_proc_ops_test)

// The builders name their ops and Consts as TensorFlow's Python does and infer TensorFlow's
// static shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape({-1, 4, 4, 3}), "x");
  const Output bicubic = af::image::resize_bicubic(x, {5, 6});
  BOOST_TEST(bicubic.name() == "ResizeBicubic:0");
  BOOST_TEST(g.operation("ResizeBicubic/size").type() == "Const");
  BOOST_TEST(bicubic.shape() == PartialShape({-1, 5, 6, 3}));
  BOOST_TEST(bicubic.dtype() == DType::float32);
  const Output area = af::image::resize_area(
      g.placeholder(DType::uint8, PartialShape({2, 7, 7, 1}), "u8"), {3, 2}, true);
  BOOST_TEST(area.name() == "ResizeArea:0");
  BOOST_TEST(area.shape() == PartialShape({2, 3, 2, 1}));
  BOOST_TEST(*area.node()->def().attr<bool>("align_corners"));
  const Output size = g.placeholder(DType::int32, PartialShape({2}), "size");
  BOOST_TEST(af::image::resize_bicubic(x, size).shape() == PartialShape({-1, -1, -1, 3}));

  const Output boxes = g.placeholder(DType::float32, PartialShape({-1, 4}), "boxes");
  const Output box_ind = g.placeholder(DType::int32, PartialShape({7}), "box_ind");
  const Output crops = af::image::crop_and_resize(x, boxes, box_ind, {2, 3}, "nearest", -1.0f);
  BOOST_TEST(crops.name() == "CropAndResize:0");
  BOOST_TEST(g.operation("CropAndResize/crop_size").type() == "Const");
  BOOST_TEST(crops.shape() == PartialShape({7, 2, 3, 3}));
  BOOST_TEST(*crops.node()->def().attr<std::string>("method") == "nearest");
  BOOST_TEST(*crops.node()->def().attr<float>("extrapolation_value") == -1.0f);

  const Output scores = g.placeholder(DType::float32, PartialShape({-1}), "scores");
  const Output selected = af::image::non_max_suppression(boxes, scores, 3);
  BOOST_TEST(selected.name() == "non_max_suppression/NonMaxSuppressionV3:0");
  BOOST_TEST(g.operation("non_max_suppression/iou_threshold").type() == "Const");
  BOOST_TEST(g.operation("non_max_suppression/score_threshold").type() == "Const");
  BOOST_TEST(g.operation("non_max_suppression/NonMaxSuppressionV3/max_output_size").type() ==
             "Const");
  BOOST_TEST(selected.shape() == PartialShape({-1}));
  BOOST_TEST(selected.dtype() == DType::int32);
  const auto with_scores = af::image::non_max_suppression_with_scores(boxes, scores, 4);
  BOOST_TEST(with_scores.selected_indices.name() ==
             "non_max_suppression_with_scores/NonMaxSuppressionV5:0");
  BOOST_TEST(with_scores.selected_scores.dtype() == DType::float32);
  // Padded, V4's indices have the static length max_output_size.
  const Output five = g.constant(Tensor(std::int32_t{5}), "five");
  const Output half = g.constant(Tensor(0.5f), "half");
  const auto padded = af::image::non_max_suppression_v4(boxes, scores, five, half, half, true);
  BOOST_TEST(padded.selected_indices.shape() == PartialShape({5}));
  BOOST_TEST(padded.valid_outputs.shape() == PartialShape(std::vector<std::int64_t>{}));
  BOOST_TEST(af::image::non_max_suppression_v1(boxes, scores, five).name() ==
             "NonMaxSuppression:0");
  BOOST_TEST(af::image::non_max_suppression_v2(boxes, scores, five, half).name() ==
             "NonMaxSuppressionV2:0");
}

// Bicubic resizing with TensorFlow's legacy kernel (a = -0.75) and Keys' (a = -0.5, half
// pixel centres), and area resizing as the mean of the area covered.
BOOST_AUTO_TEST_CASE(resizes_compute_tensorflows_values) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(12), Shape{1, 3, 4, 1}), "x");
  const Output legacy = af::image::resize_bicubic(x, {2, 3});
  const Output keys = af::image::resize_bicubic(x, {2, 3}, false, true);
  const Output area = af::image::resize_area(x, {2, 2});
  af::Session sess(g);
  const auto v = sess.run({legacy, keys, area});
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{1.0f, 2.3700990676879883f, 3.7410120964050293f, 7.375f,
                                     8.745100021362305f, 10.116012573242188f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() ==
                 (std::vector<float>{1.7746145725250244f, 3.1715331077575684f, 4.568450927734375f,
                                     8.431549072265625f, 9.828468322753906f, 11.225384712219238f}),
             boost::test_tools::per_element());
  BOOST_TEST(
      v[2].to_vector<float>() == (std::vector<float>{2.8333334922790527f, 4.833333492279053f,
                                                     8.166666984558105f, 10.166666984558105f}),
      boost::test_tools::per_element());
}

// ResizeBicubic's gradient is ResizeBicubicGrad; CropAndResize's are CropAndResizeGradImage
// (its image_size a Const of the static shape) and CropAndResizeGradBoxes.
BOOST_AUTO_TEST_CASE(gradients_use_tensorflows_grad_ops) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "x");
  const Output y = af::image::resize_bicubic(x, {3, 5}, false, true);
  const auto gx = af::gradients({y}, {x});
  BOOST_TEST(gx[0].node()->type() == "ResizeBicubicGrad");
  BOOST_TEST(*gx[0].node()->def().attr<bool>("half_pixel_centers"));
  const Output boxes = g.constant(boxes_tensor({0, 0, 1, 1, 0.2f, 0.1f, 0.7f, 0.9f}), "boxes");
  const Output box_ind =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 0}), "box_ind");
  const Output crops = af::image::crop_and_resize(x, boxes, box_ind, {3, 3});
  const auto gc = af::gradients({crops}, {x, boxes});
  BOOST_TEST(gc[0].node()->type() == "CropAndResizeGradImage");
  BOOST_TEST(gc[0].shape() == PartialShape({1, 4, 4, 1}));
  BOOST_TEST(gc[1].node()->type() == "CropAndResizeGradBoxes");
  BOOST_TEST(gc[1].shape() == PartialShape({2, 4}));
  af::Session sess(g);
  const auto v = sess.run({gx[0], gc[0], gc[1]});
  // Each output's gradient of 1 spreads over weights that sum to 1.
  float total = 0;
  for (float w : v[0].to_vector<float>()) total += w;
  BOOST_TEST(total == 15.0f, boost::test_tools::tolerance(1e-4f));
  total = 0;
  for (float w : v[1].to_vector<float>()) total += w;
  BOOST_TEST(total == 18.0f, boost::test_tools::tolerance(1e-4f));
}

// Boxes sampled bilinearly, a degenerate box at its centre, samples outside the image
// extrapolated, and nearest sampling.
BOOST_AUTO_TEST_CASE(crop_and_resize_samples_as_tensorflow) {
  af::Graph g;
  const Output img = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "img");
  const Output boxes =
      g.constant(boxes_tensor({0, 0, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f, -1, 0, 0, 1}), "boxes");
  const Output box_ind =
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 0, 0}), "box_ind");
  const Output bilinear = af::image::crop_and_resize(img, boxes, box_ind, {2, 2}, "bilinear", -1);
  const Output whole = g.constant(boxes_tensor({0, 0, 1, 1}), "whole");
  const Output first = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0}), "first");
  const Output nearest = af::image::crop_and_resize(img, whole, first, {3, 3}, "nearest");
  af::Session sess(g);
  const auto v = sess.run({bilinear, nearest});
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{1, 4, 13, 16, 8.5f, 8.5f, 8.5f, 8.5f, -1, -1, 1, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{1, 3, 4, 9, 11, 12, 13, 15, 16}),
             boost::test_tools::per_element());
}

// Greedy selection by score, hard and soft; V4 pads with 0 and counts the valid ones.
BOOST_AUTO_TEST_CASE(non_max_suppression_selects_as_tensorflow) {
  af::Graph g;
  const Output boxes = g.constant(boxes_tensor(kNmsBoxes), "boxes");
  const Output scores = g.constant(Tensor::from_vector(kNmsScores), "scores");
  const Output hard = af::image::non_max_suppression(boxes, scores, 3);
  const auto soft = af::image::non_max_suppression_with_scores(boxes, scores, 6, 0.5f, 0.0f, 0.5f);
  const auto padded = af::image::non_max_suppression_v4(
      boxes, scores, g.constant(Tensor(std::int32_t{5}), "five"), g.constant(Tensor(0.5f), "iou"),
      g.constant(Tensor(0.4f), "score"), true);
  af::Session sess(g);
  const auto v = sess.run({hard, soft.selected_indices, soft.selected_scores,
                           padded.selected_indices, padded.valid_outputs});
  BOOST_TEST(v[0].to_vector<std::int32_t>() == (std::vector<std::int32_t>{3, 0, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int32_t>() == (std::vector<std::int32_t>{3, 0, 1, 5, 4, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(
      v[2].to_vector<float>() ==
          (std::vector<float>{0.949999988079071f, 0.8999999761581421f, 0.38400354981422424f,
                              0.30000001192092896f, 0.25600260496139526f, 0.19697244465351105f}),
      boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::int32_t>() == (std::vector<std::int32_t>{3, 0, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].scalar<std::int32_t>() == 2);
}

// Building fails where TensorFlow's shape functions do.
BOOST_AUTO_TEST_CASE(building_refuses_what_tensorflows_shape_functions_refuse) {
  af::Graph g;
  const Output boxes = g.placeholder(DType::float32, PartialShape({-1, 4}), "boxes");
  const Output scores = g.placeholder(DType::float32, PartialShape({-1}), "scores");
  const Output rank3 = g.placeholder(DType::float32, PartialShape({1, 4, 4}), "rank3");
  const Output image = g.placeholder(DType::float32, PartialShape({1, 4, 4, 1}), "image");
  refused_while_building(
      [&] {
        af::image::non_max_suppression(
            boxes, g.placeholder(DType::float32, PartialShape({-1, 2}), "s2"), 3);
      },
      "Shape must be rank 1 but is rank 2");
  refused_while_building(
      [&] {
        af::image::non_max_suppression(g.placeholder(DType::float32, PartialShape({3, 3}), "b3"),
                                       scores, 3);
      },
      "Dimension must be 4 but is 3");
  refused_while_building(
      [&] {
        af::image::non_max_suppression(g.placeholder(DType::float32, PartialShape({3, 4}), "b4"),
                                       g.placeholder(DType::float32, PartialShape({2}), "s"), 3);
      },
      "Dimensions must be equal, but are 3 and 2");
  const Output ind = g.placeholder(DType::int32, PartialShape({-1}), "ind");
  refused_while_building(
      [&] {
        af::image::crop_and_resize(rank3, boxes, ind, {2, 2});
      },
      "Shape must be rank 4 but is rank 3");
  refused_while_building(
      [&] {
        af::image::crop_and_resize(image, g.placeholder(DType::float32, PartialShape({2, 4}), "b"),
                                   g.placeholder(DType::int32, PartialShape({3}), "i"), {2, 2});
      },
      "Dimensions must be equal, but are 2 and 3");
  refused_while_building(
      [&] {
        af::image::crop_and_resize(image, boxes, ind, {2, 2}, "area");
      },
      "Value for attr 'method' of \"area\" is not in the list of allowed "
      "values: \"bilinear\", \"nearest\"");
  refused_while_building(
      [&] {
        af::image::resize_bicubic(rank3, {2, 2});
      },
      "Shape must be rank 4 but is rank 3");
  refused_while_building(
      [&] {
        af::image::resize_area(g.placeholder(DType::boolean, PartialShape({1, 2, 2, 1}), "bools"),
                               {1, 1});
      },
      "Value for attr 'T' of bool is not in the list of allowed values");
}

// The kernels refuse what TensorFlow's do, with its messages and the node named.
BOOST_AUTO_TEST_CASE(kernels_refuse_what_tensorflow_refuses) {
  {
    af::Graph g;
    const Output boxes = g.constant(boxes_tensor(kNmsBoxes), "boxes");
    const Output scores = g.constant(Tensor::from_vector(kNmsScores), "scores");
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::non_max_suppression(boxes, scores, 3, 1.5f),
        "iou_threshold must be in [0, 1]", "non_max_suppression/NonMaxSuppressionV3");
    refused_when_run<af::InvalidArgumentError>(g, af::image::non_max_suppression(boxes, scores, -1),
                                               "output size must be non-negative",
                                               "NonMaxSuppressionV3");
    refused_when_run<af::InvalidArgumentError>(
        g,
        af::image::non_max_suppression_with_scores(boxes, scores, 3, 0.5f, 0.0f, -1.0f)
            .selected_indices,
        "soft_nms_sigma_val must be >= 0", "NonMaxSuppressionV5");
    // Three scores for six boxes: refused while building when the shapes are known, so the
    // scores come through a PlaceholderWithDefault of unknown shape.
    const Output three =
        g.create_op("PlaceholderWithDefault",
                    {g.constant(Tensor::from_vector(std::vector<float>{0.9f, 0.8f, 0.7f}))},
                    {{"dtype", DType::float32}, {"shape", PartialShape::unknown()}}, "three")
            .output(0);
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::non_max_suppression(boxes, three, 3),
        "scores has incompatible shape (Dimensions must be equal, but are 6 and 3)",
        "NonMaxSuppressionV3");
  }
  {
    af::Graph g;
    const Output img = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "img");
    const Output whole = g.constant(boxes_tensor({0, 0, 1, 1}), "whole");
    const Output bad = g.constant(boxes_tensor({0, 0, std::numeric_limits<float>::infinity(), 1}));
    const Output zero = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0}), "zero");
    const Output one = g.constant(Tensor::from_vector(std::vector<std::int32_t>{1}), "one");
    refused_when_run<af::OutOfRangeError>(g, af::image::crop_and_resize(img, whole, one, {2, 2}),
                                          "box_index has values outside [0, batch_size)",
                                          "CropAndResize");
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::crop_and_resize(img, bad, zero, {2, 2}),
        "Boxes contains at least one element that is not finite", "CropAndResize");
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::crop_and_resize(img, whole, zero, std::array<std::int64_t, 2>{0, 2}),
        "crop dimensions must be positive", "CropAndResize");
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::resize_bicubic(img, {2, 2}, true, true),
        "If half_pixel_centers is True, align_corners must be False.", "ResizeBicubic");
    refused_when_run<af::InvalidArgumentError>(
        g, af::image::resize_area(img, std::array<std::int64_t, 2>{0, 2}),
        "output dimensions must be positive", "ResizeArea");
  }
}

BOOST_AUTO_TEST_SUITE_END()
