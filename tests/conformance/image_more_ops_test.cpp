// DrawBoundingBoxes(V2), AdjustContrast, ExtractGlimpse(V2), ImageProjectiveTransformV2/V3,
// ScaleAndTranslate(Grad), CombinedNonMaxSuppression, NonMaxSuppressionWithOverlaps, the
// SampleDistortedBoundingBox ops and RandomCrop as TensorFlow 1.x builds, shapes, computes and
// refuses them. The values below are TensorFlow 2.21's; AdjustContrast and RandomCrop, which
// TensorFlow refuses in GraphDefs of version 2 and 8 onwards, were run there in a GraphDef of
// version 1 (tf.compat.v1.import_graph_def). The many more cases of
// scripts/peers/op_cases_image_more.py, gradients included, are checked by
// op_coverage_conformance_test.cpp.
#include "actorflow/ops/image_more_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <array>
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
using af::test::refused_when_run;
using af::test::refused_while_building;
using af::test::vec;

// The `n` floats `from`, `from + 1`, ...: from 0 unless told (op_test_util.hpp's iota
// starts at 1).
std::vector<float> iota(int n, float from = 0.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = from + static_cast<float>(i);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(image_more_ops_test)

// The builders name their ops and Consts as TensorFlow's Python does and infer TensorFlow's
// static shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output images = g.placeholder(DType::float32, PartialShape({-1, 5, 6, 3}), "images");
  const Output boxes = g.placeholder(DType::float32, PartialShape({-1, 2, 4}), "boxes");
  const Output drawn = af::image::draw_bounding_boxes(images, boxes);
  BOOST_TEST(drawn.name() == "DrawBoundingBoxes:0");
  BOOST_TEST(drawn.shape() == PartialShape({-1, 5, 6, 3}));
  const Output colors = g.placeholder(DType::float32, PartialShape({2, 4}), "colors");
  BOOST_TEST(af::image::draw_bounding_boxes(images, boxes, colors).name() ==
             "DrawBoundingBoxesV2:0");

  const Output offsets = g.placeholder(DType::float32, PartialShape({7, 2}), "offsets");
  const Output glimpse = af::image::extract_glimpse(images, {2, 3}, offsets);
  BOOST_TEST(glimpse.name() == "ExtractGlimpse:0");
  BOOST_TEST(g.operation("ExtractGlimpse/size").type() == "Const");
  BOOST_TEST(glimpse.shape() == PartialShape({7, 2, 3, 3}));
  const Output glimpse2 = af::image::extract_glimpse_v2(images, {4, 1}, offsets);
  BOOST_TEST(glimpse2.name() == "ExtractGlimpseV2:0");
  BOOST_TEST(!*glimpse2.node()->def().attr<bool>("uniform_noise"));
  BOOST_TEST(*glimpse2.node()->def().attr<std::string>("noise") == "uniform");

  const Output transforms = g.placeholder(DType::float32, PartialShape({1, 8}), "transforms");
  const Output moved = af::image::image_projective_transform_v3(
      g.placeholder(DType::uint8, PartialShape({2, 5, 6, 1}), "u8"), transforms, {3, 4}, 1.0f,
      "BILINEAR", "REFLECT");
  BOOST_TEST(moved.name() == "ImageProjectiveTransformV3:0");
  BOOST_TEST(moved.dtype() == DType::uint8);
  BOOST_TEST(moved.shape() == PartialShape({2, 3, 4, 1}));
  BOOST_TEST(g.operation("ImageProjectiveTransformV3/fill_value").type() == "Const");

  const Output scaled = af::image::scale_and_translate(images, {10, 12}, {2.0f, 2.0f}, {0.0f, 0.0f},
                                                       "keyscubic", false);
  BOOST_TEST(scaled.name() == "ScaleAndTranslate:0");
  BOOST_TEST(scaled.shape() == PartialShape({-1, 10, 12, 3}));
  BOOST_TEST(g.operation("ScaleAndTranslate/translation").type() == "Const");

  const Output nms_boxes = g.placeholder(DType::float32, PartialShape({2, 9, 1, 4}), "nms_boxes");
  const Output nms_scores = g.placeholder(DType::float32, PartialShape({2, 9, 3}), "nms_scores");
  const auto combined = af::image::combined_non_max_suppression(nms_boxes, nms_scores, 2, 5);
  BOOST_TEST(combined.nmsed_boxes.name() ==
             "combined_non_max_suppression/CombinedNonMaxSuppression:0");
  BOOST_TEST(g.operation("combined_non_max_suppression/CombinedNonMaxSuppression/"
                         "max_output_size_per_class")
                 .type() == "Const");
  BOOST_TEST(g.operation("combined_non_max_suppression/Const").type() == "Const");
  BOOST_TEST(combined.nmsed_boxes.shape() == PartialShape({2, 5, 4}));
  BOOST_TEST(combined.nmsed_classes.shape() == PartialShape({2, 5}));
  BOOST_TEST(combined.valid_detections.shape() == PartialShape({2}));
  const auto padded =
      af::image::combined_non_max_suppression(nms_boxes, nms_scores, 1, 5, 0.5f, 0.0f, true);
  BOOST_TEST(padded.nmsed_scores.shape() == PartialShape({2, 3}));

  const Output overlaps = g.placeholder(DType::float32, PartialShape({4, 4}), "overlaps");
  const Output scores = g.placeholder(DType::float32, PartialShape({4}), "scores");
  BOOST_TEST(af::image::non_max_suppression_with_overlaps(overlaps, scores, 3).name() ==
             "non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps:0");

  const Output size = vec<std::int32_t>(g, {100, 80, 3}, "size");
  const Output whole =
      g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4}), "whole");
  const auto sample = af::image::sample_distorted_bounding_box(size, whole, 3);
  BOOST_TEST(sample.begin.name() == "sample_distorted_bounding_box/SampleDistortedBoundingBoxV2:0");
  BOOST_TEST(*sample.begin.node()->def().attr<std::int64_t>("seed") == 87654321);
  BOOST_TEST(*sample.begin.node()->def().attr<std::int64_t>("seed2") == 3);
  BOOST_TEST(sample.bboxes.shape() == PartialShape({1, 1, 4}));
  const auto stateless = af::image::stateless_sample_distorted_bounding_box(
      size, whole, vec<std::int64_t>(g, {1, 2}, "seed"));
  BOOST_TEST(stateless.size.name() ==
             "stateless_sample_distorted_bounding_box/StatelessSampleDistortedBoundingBox:1");
  BOOST_TEST(stateless.size.shape() == PartialShape({3}));

  const Output crop =
      af::image::random_crop(g.placeholder(DType::int32, PartialShape({5, 7, 2}), "image"),
                             vec<std::int64_t>(g, {2, 3}, "crop_size"), 3, 4);
  BOOST_TEST(crop.name() == "RandomCrop:0");
  BOOST_TEST(crop.shape() == PartialShape({2, 3, 2}));
}

// Box outlines in TensorFlow's colours; the deprecated contrast op's clamped values.
BOOST_AUTO_TEST_CASE(drawing_and_contrast_give_tensorflows_values) {
  af::Graph g;
  const Output canvas =
      g.constant(Tensor::from_vector(std::vector<float>(36, 0.0f), Shape{1, 3, 4, 3}), "canvas");
  const Output box =
      g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4}), "box");
  const Output drawn = af::image::draw_bounding_boxes(canvas, box);
  const Output x =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 5, 4, 9, 10, 0, 6, 7, 2, 2},
                                     Shape{1, 2, 3, 2}),
                 "x");
  const Output contrast = af::image::adjust_contrast_v1(x, 1.5f, 0.0f, 8.0f);
  const Output u8 =
      g.constant(Tensor::from_vector(
                     std::vector<std::uint8_t>{10, 200, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120},
                     Shape{2, 3, 2, 1}),
                 "u8");
  const Output contrast_u8 = af::image::adjust_contrast_v1(u8, -0.5f, 20.0f, 100.0f);
  af::Session sess(g);
  const auto v = sess.run({drawn, contrast, contrast_u8});
  std::vector<float> red, blue;
  const auto pixels = v[0].to_vector<float>();
  for (std::size_t p = 0; p < 12; ++p) {
    red.push_back(pixels[p * 3]);
    blue.push_back(pixels[p * 3 + 2]);
  }
  // Yellow (1, 1, 0) around the border, the inside untouched.
  BOOST_TEST(red == (std::vector<float>{1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(blue == std::vector<float>(12, 0.0f), boost::test_tools::per_element());
  BOOST_TEST(
      v[1].to_vector<float>() ==
          (std::vector<float>{0.0f, 0.9166667461395264f, 2.3333332538604736f, 5.4166669845581055f,
                              3.8333332538604736f, 8.0f, 8.0f, 0.0f, 6.8333330154418945f, 8.0f,
                              0.8333332538604736f, 0.9166667461395264f}),
      boost::test_tools::per_element());
  BOOST_TEST(
      v[2].to_vector<float>() == (std::vector<float>{92.5f, 20.0f, 82.5f, 77.5f, 72.5f, 67.5f,
                                                     100.0f, 100.0f, 97.5f, 92.5f, 87.5f, 82.5f}),
      boost::test_tools::per_element());
}

// Glimpses copy the window (V1 always removes half the window; zeros fill the outside), and
// projective transforms sample as TensorFlow's generator in each fill mode.
BOOST_AUTO_TEST_CASE(glimpses_and_transforms_give_tensorflows_values) {
  af::Graph g;
  const Output gl = g.constant(Tensor::from_vector(iota(40), Shape{2, 4, 5, 1}), "gl");
  const Output v2 = af::image::extract_glimpse_v2(
      gl, {3, 3}, g.constant(Tensor::from_vector(std::vector<float>{0, 0, -1, -1}, Shape{2, 2})),
      true, true, "zero");
  const Output v1 = af::image::extract_glimpse(
      gl, {2, 3}, g.constant(Tensor::from_vector(std::vector<float>{1, 1, 3, 4}, Shape{2, 2})),
      false, false, false, "zero");
  const Output im = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "im");
  const Output bilinear = af::image::image_projective_transform_v3(
      im,
      g.constant(Tensor::from_vector(std::vector<float>{1, 0, 0.5f, 0, 1, -1, 0, 0}, Shape{1, 8})),
      {3, 4}, -1.0f, "BILINEAR", "CONSTANT");
  const Output shift = g.constant(
      Tensor::from_vector(std::vector<float>{1, 0, -2, 0, 1, 1, 0, 0}, Shape{1, 8}), "shift");
  const Output four = vec<std::int32_t>(g, {4, 4}, "four");
  const Output reflect =
      af::image::image_projective_transform_v2(im, shift, four, "NEAREST", "REFLECT");
  const Output wrap = af::image::image_projective_transform_v2(im, shift, four, "NEAREST", "WRAP");
  af::Session sess(g);
  const auto v = sess.run({v2, v1, bilinear, reflect, wrap});
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{1, 2, 3, 6, 7, 8, 11, 12, 13, 0, 0, 0, 0, 20, 21, 0, 25, 26}),
             boost::test_tools::per_element());
  BOOST_TEST(
      v[1].to_vector<float>() == (std::vector<float>{0, 1, 2, 5, 6, 7, 32, 33, 34, 37, 38, 39}),
      boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() ==
                 (std::vector<float>{-1, -1, -1, -1, 0.5f, 1.5f, 2.5f, 1, 4.5f, 5.5f, 6.5f, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<float>() ==
                 (std::vector<float>{5, 4, 4, 5, 9, 8, 8, 9, 13, 12, 12, 13, 13, 12, 12, 13}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() ==
                 (std::vector<float>{6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1}),
             boost::test_tools::per_element());
}

// ScaleAndTranslate's spans (box averaging a halving, a translated triangle) and its
// gradient op.
BOOST_AUTO_TEST_CASE(scale_and_translate_gives_tensorflows_values) {
  af::Graph g;
  const Output im = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "im");
  const Output box = af::image::scale_and_translate(im, {2, 2}, {0.5f, 0.5f}, {0.0f, 0.0f}, "box");
  const Output tri =
      af::image::scale_and_translate(im, {3, 5}, {0.75f, 1.25f}, {0.25f, -0.5f}, "triangle", false);
  const auto gx = af::gradients({tri}, {im});
  BOOST_TEST(gx[0].node()->type() == "ScaleAndTranslateGrad");
  BOOST_TEST(*gx[0].node()->def().attr<std::string>("kernel_type") == "triangle");
  BOOST_TEST(gx[0].shape() == PartialShape({1, 4, 4, 1}));
  af::Session sess(g);
  const auto v = sess.run({box, tri, gx[0]});
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}),
             boost::test_tools::per_element());
  const std::vector<float> want = {0.30000001192092896f,
                                   1.100000023841858f,
                                   1.9000000953674316f,
                                   2.700000047683716f,
                                   3.0f,
                                   4.966666221618652f,
                                   5.766666412353516f,
                                   6.566666126251221f,
                                   7.366666316986084f,
                                   7.666666507720947f,
                                   10.30000114440918f,
                                   11.100001335144043f,
                                   11.900001525878906f,
                                   12.700000762939453f,
                                   13.000000953674316f};
  const auto got = v[1].to_vector<float>();
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(got[i] == want[i], boost::test_tools::tolerance(1e-6f));
  // Each of the 15 outputs spreads a gradient of 1 over weights summing to 1.
  float total = 0;
  for (float w : v[2].to_vector<float>()) total += w;
  BOOST_TEST(total == 15.0f, boost::test_tools::tolerance(1e-5f));
}

// Batched NMS per class then across classes, and NMS over an overlap matrix.
BOOST_AUTO_TEST_CASE(batched_and_overlap_nms_select_as_tensorflow) {
  af::Graph g;
  const Output boxes = g.constant(
      Tensor::from_vector(std::vector<float>{0, 0,    1, 1,  0, 0.1f, 1,    1.1f, 0,    -0.1f,
                                             1, 0.9f, 0, 10, 1, 11,   0.5f, 0.5f, 1.5f, 1.5f},
                          Shape{1, 5, 1, 4}),
      "boxes");
  const Output scores = g.constant(
      Tensor::from_vector(
          std::vector<float>{0.9f, 0.1f, 0.75f, 0.8f, 0.6f, 0.3f, 0.95f, 0.2f, 0.5f, 0.7f},
          Shape{1, 5, 2}),
      "scores");
  const auto clipped = af::image::combined_non_max_suppression(boxes, scores, 2, 4, 0.5f, 0.15f);
  const auto raw =
      af::image::combined_non_max_suppression(boxes, scores, 2, 4, 0.5f, 0.15f, true, false);
  const Output overlaps =
      g.constant(Tensor::from_vector(
                     std::vector<float>{1, 0.7f, 0.2f, 0.7f, 1, 0.6f, 0.2f, 0.6f, 1}, Shape{3, 3}),
                 "overlaps");
  const Output selected = af::image::non_max_suppression_with_overlaps(
      overlaps, vec<float>(g, {0.5f, 0.9f, 0.4f}, "ov_scores"), 3, 0.65f);
  af::Session sess(g);
  const auto v = sess.run({clipped.nmsed_boxes, clipped.nmsed_scores, clipped.nmsed_classes,
                           clipped.valid_detections, raw.nmsed_boxes, selected});
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{0, 1, 1, 1, 0, 0, 1, 1, 0, 0.1f, 1, 1, 0.5f, 0.5f, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{0.95f, 0.9f, 0.8f, 0.7f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{0, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::int32_t>() == (std::vector<std::int32_t>{4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() == (std::vector<float>{0, 10, 1, 11, 0, 0, 1, 1, 0, 0.1f, 1,
                                                            1.1f, 0.5f, 0.5f, 1.5f, 1.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[5].to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2}),
             boost::test_tools::per_element());
}

// The samplers draw TensorFlow's crops for their seeds: the stateless op the same crop on
// every run, the stateful ones continuing TensorFlow's sequence run after run.
BOOST_AUTO_TEST_CASE(samplers_draw_tensorflows_crops_for_their_seeds) {
  af::Graph g;
  const Output box = g.constant(
      Tensor::from_vector(std::vector<float>{0.1f, 0.2f, 0.5f, 0.7f}, Shape{1, 1, 4}), "box");
  const auto stateless = af::image::stateless_sample_distorted_bounding_box(
      vec<std::int32_t>(g, {40, 60, 3}, "size"), box, vec<std::int64_t>(g, {1, 2}, "seed"));
  const Output whole =
      g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4}), "whole");
  af::image::DistortedBoxOptions options;
  options.aspect_ratio_range = {0.5f, 2.0f};
  options.area_range = {0.1f, 0.9f};
  options.max_attempts = 50;
  const auto stateful = af::image::sample_distorted_bounding_box(
      vec<std::int32_t>(g, {100, 80, 3}, "size2"), whole, 3, 0.5f, options);
  const Output crop =
      af::image::random_crop(g.constant(Tensor::from_vector(iota(70), Shape{5, 7, 2}), "image"),
                             vec<std::int64_t>(g, {2, 3}, "crop_size"), 3, 4);
  af::Session sess(g);
  for (int run = 0; run < 2; ++run) {
    const auto v = sess.run({stateless.begin, stateless.size, stateless.bboxes});
    BOOST_TEST(v[0].to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 3, 0}),
               boost::test_tools::per_element());
    BOOST_TEST(v[1].to_vector<std::int32_t>() == (std::vector<std::int32_t>{39, 48, -1}),
               boost::test_tools::per_element());
    BOOST_TEST(
        v[2].to_vector<float>() == (std::vector<float>{0.0f, 0.05000000074505806f,
                                                       0.9750000238418579f, 0.8500000238418579f}),
        boost::test_tools::per_element());
  }
  // SampleDistortedBoundingBoxV2 with seeds (87654321, 3): TensorFlow's first draw.
  const auto s = sess.run({stateful.begin, stateful.size, stateful.bboxes});
  BOOST_TEST(s[0].to_vector<std::int32_t>() == (std::vector<std::int32_t>{5, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(s[1].to_vector<std::int32_t>() == (std::vector<std::int32_t>{61, 77, -1}),
             boost::test_tools::per_element());
  BOOST_TEST(
      s[2].to_vector<float>() == (std::vector<float>{0.05000000074505806f, 0.012500000186264515f,
                                                     0.6600000262260437f, 0.9750000238418579f}),
      boost::test_tools::per_element());
  // RandomCrop with seeds (3, 4): TensorFlow's crops of three successive runs (channel 0).
  const std::vector<std::vector<float>> crops = {
      {2, 4, 6, 16, 18, 20}, {8, 10, 12, 22, 24, 26}, {14, 16, 18, 28, 30, 32}};
  for (const auto& want : crops) {
    const auto c = sess.run(crop).to_vector<float>();
    std::vector<float> channel0;
    for (std::size_t i = 0; i < c.size(); i += 2) channel0.push_back(c[i]);
    BOOST_TEST(channel0 == want, boost::test_tools::per_element());
  }
}

// The raw stateful op with explicit seeds continues TensorFlow's sequence run after run.
BOOST_AUTO_TEST_CASE(stateful_sampler_continues_tensorflows_sequence) {
  af::Graph g;
  const Output whole =
      g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4}), "whole");
  const Output covered = g.constant(Tensor(0.5f), "covered");
  af::Operation op = g.create_op("SampleDistortedBoundingBoxV2",
                                 {vec<std::int32_t>(g, {100, 80, 3}, "size"), whole, covered},
                                 {{"T", DType::int32},
                                  {"seed", std::int64_t{3}},
                                  {"seed2", std::int64_t{4}},
                                  {"aspect_ratio_range", std::vector<float>{0.5f, 2.0f}},
                                  {"area_range", std::vector<float>{0.1f, 0.9f}},
                                  {"max_attempts", std::int64_t{50}},
                                  {"use_image_if_no_bounding_boxes", false}},
                                 "sample");
  af::Session sess(g);
  const std::vector<std::vector<std::int32_t>> begins = {{3, 0, 0}, {12, 0, 0}};
  const std::vector<std::vector<std::int32_t>> sizes = {{77, 79, -1}, {84, 67, -1}};
  for (std::size_t run = 0; run < 2; ++run) {
    const auto v = sess.run({op.output(0), op.output(1)});
    BOOST_TEST(v[0].to_vector<std::int32_t>() == begins[run], boost::test_tools::per_element());
    BOOST_TEST(v[1].to_vector<std::int32_t>() == sizes[run], boost::test_tools::per_element());
  }
}

// The gradients TensorFlow registers: projective transforms invert their transforms; the
// ops image_ops_impl.py marks have none.
BOOST_AUTO_TEST_CASE(gradients_follow_tensorflows_registrations) {
  af::Graph g;
  const Output im = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "im");
  const Output scale = g.constant(
      Tensor::from_vector(std::vector<float>{2, 0, 1, 0, 0.5f, -1, 0, 0}, Shape{1, 8}), "scale");
  const Output moved = af::image::image_projective_transform_v2(
      im, scale, vec<std::int32_t>(g, {4, 4}, "out"), "NEAREST", "CONSTANT");
  const auto gm = af::gradients({moved}, {im, scale});
  BOOST_TEST(gm[0].node()->type() == "ImageProjectiveTransformV2");
  BOOST_TEST(!gm[1].valid());
  const Output boxes =
      g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4}), "boxes");
  const auto gd = af::gradients({af::image::draw_bounding_boxes(im, boxes)}, {im});
  BOOST_TEST(!gd[0].valid());
  af::Session sess(g);
  // Output (x, y) reads input (2x + 1, y / 2 - 1); the gradient reads the incoming ones
  // through the inverse, ((x - 1) / 2, 2y + 2), as TensorFlow's.
  const auto v = sess.run({moved, gm[0]});
  BOOST_TEST(v[0].to_vector<float>() ==
                 (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 5, 7, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() ==
                 (std::vector<float>{0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
             boost::test_tools::per_element());
}

// Building fails where TensorFlow's shape functions do.
BOOST_AUTO_TEST_CASE(building_refuses_what_tensorflows_shape_functions_refuse) {
  af::Graph g;
  const Output rank3 = g.placeholder(DType::float32, PartialShape({4, 4, 3}), "rank3");
  const Output image = g.placeholder(DType::float32, PartialShape({1, 4, 4, 3}), "image");
  const Output boxes = g.placeholder(DType::float32, PartialShape({1, 2, 4}), "boxes");
  refused_while_building([&] { af::image::draw_bounding_boxes(rank3, boxes); },
                         "Shape must be rank 4 but is rank 3");
  refused_while_building(
      [&] {
        af::image::draw_bounding_boxes(
            g.placeholder(DType::float32, PartialShape({1, 4, 4, 2}), "two"), boxes);
      },
      "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
  refused_while_building(
      [&] {
        af::image::draw_bounding_boxes(
            g.placeholder(DType::int32, PartialShape({1, 4, 4, 3}), "ints"), boxes);
      },
      "Value for attr 'T' of int32 is not in the list of allowed values: float, half");
  const Output offsets = g.placeholder(DType::float32, PartialShape({1, 2}), "offsets");
  refused_while_building(
      [&] {
        af::image::extract_glimpse(image, {2, 2}, offsets, true, true, true, "gaussian");
      },
      "The uniform_noise and noise should not be specified at the same time");
  refused_while_building(
      [&] {
        af::image::extract_glimpse(image, {2, 2},
                                   g.placeholder(DType::float32, PartialShape({2, 2}), "o2"));
      },
      "Dimensions must be equal, but are 1 and 2");
  refused_while_building(
      [&] {
        af::image::scale_and_translate(g.placeholder(DType::boolean, PartialShape({1, 2, 2, 1})),
                                       {2, 2}, {1.0f, 1.0f}, {0.0f, 0.0f});
      },
      "Value for attr 'T' of bool is not in the list of allowed values");
  const Output nms_boxes = g.placeholder(DType::float32, PartialShape({1, 3, 2, 4}), "nb");
  refused_while_building(
      [&] {
        af::image::combined_non_max_suppression(
            nms_boxes, g.placeholder(DType::float32, PartialShape({1, 3, 3}), "ns"), 2, 4);
      },
      "third dimension of boxes must be either 1 or equal to the third dimension of scores");
  refused_while_building(
      [&] {
        af::image::combined_non_max_suppression(
            nms_boxes, g.placeholder(DType::float32, PartialShape({1, 3, 2}), "ns2"), 2, 0);
      },
      "max_total_size should be > 0");
  refused_while_building(
      [&] {
        af::image::non_max_suppression_with_overlaps(
            g.placeholder(DType::float32, PartialShape({3, 4}), "ov"),
            g.placeholder(DType::float32, PartialShape({3}), "sc"), 2);
      },
      "Dimensions must be equal, but are 3 and 4");
  refused_while_building(
      [&] {
        af::image::sample_distorted_bounding_box(vec<std::int32_t>(g, {4, 4}, "size2"), boxes);
      },
      "Dimension must be 3 but is 2");
  refused_while_building(
      [&] {
        af::image::random_crop(image, vec<std::int64_t>(g, {2, 2}, "cs"));
      },
      "Shape must be rank 3 but is rank 4");
  refused_while_building(
      [&] {
        af::image::adjust_contrast_v1(g.placeholder(DType::float32, PartialShape({2, 2}), "flat"),
                                      1.0f, 0.0f, 1.0f);
      },
      "Shape must be at least rank 3 but is rank 2");
}

// The kernels refuse what TensorFlow's do, with its messages and the node named.
BOOST_AUTO_TEST_CASE(kernels_refuse_what_tensorflow_refuses) {
  {
    af::Graph g;
    const Output image = g.constant(Tensor::from_vector(iota(48), Shape{1, 4, 4, 3}), "image");
    refused_when_run(g,
                     af::image::draw_bounding_boxes(
                         image, g.constant(Tensor::from_vector(iota(4), Shape{1, 1, 4})),
                         g.constant(Tensor::from_vector(iota(4), Shape{2, 2}))),
                     "colors must have equal or more channels than the image provided: [2,2]",
                     "DrawBoundingBoxesV2");
  }
  {
    // Offsets of unknown shape pass the shape function; the kernel checks them.
    af::Graph g;
    const Output image = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "image");
    const Output offsets = g.placeholder(DType::float32, PartialShape::unknown(), "offsets");
    const Output glimpse = af::image::extract_glimpse(image, {2, 2}, offsets);
    af::Session sess(g);
    try {
      sess.run(glimpse, {{offsets, Tensor::from_vector(iota(3), Shape{1, 3})}});
      BOOST_ERROR("ran; expected the offsets refused");
    } catch (const af::InvalidArgumentError& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("second dimension should be of size 2 (y,x)[1,3]") != std::string::npos,
                 what);
      BOOST_TEST(what.find("ExtractGlimpse") != std::string::npos, what);
    }
  }
  {
    af::Graph g;
    const Output image = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "image");
    const Output t = g.constant(Tensor::from_vector(iota(16), Shape{2, 8}), "t");
    refused_when_run(g,
                     af::image::image_projective_transform_v2(
                         image, t, vec<std::int32_t>(g, {3, 3}, "s"), "NEAREST"),
                     "Input transform should be num_images x 8 or 1 x 8",
                     "ImageProjectiveTransformV2");
  }
  {
    af::Graph g;
    const Output image = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "image");
    const Output t = g.constant(Tensor::from_vector(iota(8), Shape{1, 8}), "t");
    refused_when_run(g,
                     af::image::image_projective_transform_v2(
                         image, t, vec<std::int32_t>(g, {3, 3}, "s"), "CUBIC", "CONSTANT", "cubic"),
                     "Invalid interpolation CUBIC. Supported types: NEAREST, BILINEAR", "cubic");
  }
  {
    af::Graph g;
    const Output image = g.constant(Tensor::from_vector(iota(16), Shape{1, 4, 4, 1}), "image");
    refused_when_run(g, af::image::scale_and_translate(image, {2, 2}, {0.0f, 1.0f}, {0.0f, 0.0f}),
                     "Scale must be greater than zero.", "ScaleAndTranslate");
    refused_when_run(g,
                     af::image::scale_and_translate(image, {2, 2}, {1.0f, 1.0f}, {0.0f, 0.0f},
                                                    "cubic", true, "bad_kernel"),
                     "Unrecognized kernel type: cubic", "bad_kernel");
  }
  {
    af::Graph g;
    const Output boxes = g.constant(Tensor::from_vector(iota(12), Shape{1, 3, 1, 4}), "boxes");
    const Output scores = g.constant(Tensor::from_vector(iota(6), Shape{1, 3, 2}), "scores");
    refused_when_run(g, af::image::combined_non_max_suppression(boxes, scores, 0, 4).nmsed_boxes,
                     "max_size_per_class must be positive", "CombinedNonMaxSuppression");
    refused_when_run(g,
                     af::image::combined_non_max_suppression(boxes, scores, 2, 4, 1.5f).nmsed_boxes,
                     "iou_threshold must be in [0, 1]", "CombinedNonMaxSuppression");
  }
  {
    af::Graph g;
    const Output size = vec<std::int32_t>(g, {10, 10, 3}, "size");
    refused_when_run(
        g,
        af::image::sample_distorted_bounding_box(
            size,
            g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1.5f, 1}, Shape{1, 1, 4})), 1)
            .begin,
        "All bounding box coordinates must be in [0.0, 1.0]: 1.5", "SampleDistortedBoundingBoxV2");
    refused_when_run(
        g,
        af::image::sample_distorted_bounding_box(
            size, g.constant(Tensor::from_vector(std::vector<float>{}, Shape{1, 0, 4})), 1)
            .begin,
        "No bounding boxes provided as input. One must enable "
        "use_image_if_no_bounding_boxes if you wish to not provide any bounding "
        "boxes.",
        "SampleDistortedBoundingBoxV2");
    af::image::DistortedBoxOptions bad;
    bad.area_range = {0.05f, 1.5f};
    refused_when_run(
        g,
        af::image::sample_distorted_bounding_box(
            size, g.constant(Tensor::from_vector(std::vector<float>{0, 0, 1, 1}, Shape{1, 1, 4})),
            1, 0.1f, bad)
            .begin,
        "Area range must be less then or equal to 1.0: [0.05, 1.5]",
        "SampleDistortedBoundingBoxV2");
  }
  {
    af::Graph g;
    refused_when_run<af::FailedPreconditionError>(
        g,
        af::image::random_crop(g.constant(Tensor::from_vector(iota(18), Shape{3, 3, 2})),
                               vec<std::int64_t>(g, {2, 4}, "size"), 1, 2),
        "width must be >= target_width: width = 3, target_width = 4", "RandomCrop");
  }
}

BOOST_AUTO_TEST_SUITE_END()
