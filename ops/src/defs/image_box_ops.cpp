// The definitions of CombinedNonMaxSuppression, NonMaxSuppressionWithOverlaps,
// SampleDistortedBoundingBox, SampleDistortedBoundingBoxV2, StatelessSampleDistortedBoundingBox
// and RandomCrop (shape functions as TensorFlow's image_ops.cc: CombinedNMSShapeFn and the
// ops' own) and their builders (actorflow/ops/image_more_ops.hpp). The CPU kernels are in
// kernels/src/image_box_ops.cpp; none of these ops has a gradient
// (ops/src/gradients/image_more_grad.cpp marks those TensorFlow marks).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/image_more_ops.hpp"
#include "image_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;
using detail::merge_dims;
using detail::with_value;

using Index = std::int64_t;
using detail::check_attr_type;
using detail::index_values;
using detail::with_rank;
using detail::imaging::fixed_input;

// The integer types of the bounding box ops within actorflow's, and TensorFlow's list.
const std::vector<DType> kBoxIntTypes = {DType::uint8, DType::int8, DType::int16, DType::int32,
                                         DType::int64};
constexpr const char* kBoxIntTypeNames = "uint8, int8, int16, int32, int64";
const std::vector<DType> kCropTypes = {DType::uint8, DType::int8,    DType::int16,  DType::int32,
                                       DType::int64, DType::float32, DType::float64};
constexpr const char* kCropTypeNames = "uint8, int8, int16, int32, int64, float, double";

// MakeDimForScalarInput: the value of the scalar Const at input `i`, else -1; "Dimension size,
// given by scalar input 3, must be non-negative but is -1".
Status scalar_input_dim(const InferenceContext& c, int i, Index* out) {
  *out = -1;
  if (const Tensor* v = c.input_values[static_cast<std::size_t>(i)]) {
    *out = index_values(*v)[0];
    if (*out < 0)
      return invalid_argument("Dimension size, given by scalar input " + std::to_string(i) +
                              ", must be non-negative but is " + std::to_string(*out));
  }
  return {};
}

// CombinedNMSShapeFn: boxes [batch, num_boxes, q, 4], scores [batch, num_boxes, num_classes],
// four scalars; boxes [batch, N, 4], scores and classes [batch, N], valid_detections int32
// [batch], N max_total_size (pad_per_class: min(max_total_size, max_output_size_per_class *
// num_classes)) when known.
Status infer_combined_nms(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(6));
  const char* names[] = {"boxes",          "scores",        "max_output_size_per_class",
                         "max_total_size", "iou_threshold", "score_threshold"};
  for (int i = 0; i < 6; ++i)
    ACTORFLOW_RETURN_IF_ERROR(
        fixed_input(c, i, names[i], i == 2 || i == 3 ? DType::int32 : DType::float32));
  const PartialShape& boxes = c.input_shapes[0];
  const PartialShape& scores = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(boxes, 4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(scores, 3));
  for (int i = 2; i < 6; ++i)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  Index unused = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(boxes, 0), dim_of(scores, 0), &unused));
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(boxes, 1), dim_of(scores, 1), &unused));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(boxes, 3), 4));
  const Index q = dim_of(boxes, 2);
  const Index classes = dim_of(scores, 2);
  if (q >= 0 && classes >= 0 && q != 1 && q != classes)
    return invalid_argument(
        "third dimension of boxes must be either 1 or equal to the third dimension of scores");
  Index total = -1, per_class = -1;
  ACTORFLOW_RETURN_IF_ERROR(scalar_input_dim(c, 3, &total));
  if (total == 0) return invalid_argument("max_total_size should be > 0 ");
  ACTORFLOW_RETURN_IF_ERROR(scalar_input_dim(c, 2, &per_class));
  bool pad_per_class = false;
  c.get_attr("pad_per_class", &pad_per_class);
  Index output_size = -1;
  if (!pad_per_class) {
    output_size = total;
  } else {
    if (per_class == 0)
      return invalid_argument(
          "max_output_size_per_class must be > 0 if pad_per_class is set to true ");
    if (per_class >= 0 && classes >= 0) output_size = std::min(total, per_class * classes);
  }
  const Index batch = dim_of(boxes, 0);
  c.add_output(DType::float32, PartialShape{batch, output_size, 4});
  c.add_output(DType::float32, PartialShape{batch, output_size});
  c.add_output(DType::float32, PartialShape{batch, output_size});
  c.add_output(DType::int32, PartialShape{batch});
  return {};
}

// NonMaxSuppressionWithOverlaps: overlaps [num_boxes, num_boxes], scores [num_boxes], three
// scalars; int32 [?].
Status infer_nms_with_overlaps(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  const char* names[] = {"overlaps", "scores", "max_output_size", "overlap_threshold",
                         "score_threshold"};
  for (int i = 0; i < 5; ++i)
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, i, names[i], i == 2 ? DType::int32 : DType::float32));
  const PartialShape& overlaps = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(overlaps, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  for (int i = 2; i < 5; ++i)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  Index unused = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(overlaps, 0), dim_of(c.input_shapes[1], 0), &unused));
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(overlaps, 0), dim_of(overlaps, 1), &unused));
  c.add_output(DType::int32, PartialShape{-1});
  return {};
}

// SampleDistortedBoundingBox, V2 (min_object_covered input) and the stateless op (a seed
// [2] of Tseed): image_size [3] of T, bounding_boxes [batch, N, 4]; begin and size T [3],
// bboxes float [1, 1, 4].
Status infer_sample_distorted_bounding_box(InferenceContext& c) {
  const std::string& op = c.node.op;
  const int inputs = op == "SampleDistortedBoundingBox"     ? 2
                     : op == "SampleDistortedBoundingBoxV2" ? 3
                                                            : 4;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kBoxIntTypes, kBoxIntTypeNames));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "bounding_boxes", DType::float32));
  if (inputs >= 3)
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "min_object_covered", DType::float32));
  if (inputs == 4)
    ACTORFLOW_RETURN_IF_ERROR(
        check_attr_type(c.input_types[3], "Tseed", detail::kIndexTypes, "int32, int64"));
  const PartialShape& image_size = c.input_shapes[0];
  const PartialShape& boxes = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(image_size, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(boxes, 3));
  if (inputs >= 3) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  if (inputs == 4) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(image_size, 0), 3));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(boxes, 2), 4));
  if (inputs == 4) ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(c.input_shapes[3], 0), 2));
  c.add_output(c.input_types[0], PartialShape{3});
  c.add_output(c.input_types[0], PartialShape{3});
  c.add_output(DType::float32, PartialShape{1, 1, 4});
  return {};
}

// RandomCrop: image [h, w, c], size int64 [2]; [size[0], size[1], c] (known when size is a
// Const).
Status infer_random_crop(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kCropTypes, kCropTypeNames));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "size", DType::int64));
  const PartialShape& image = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(image, 3));
  PartialShape unused;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[1], PartialShape{2}, &unused));
  Index h = -1, w = -1;
  if (const Tensor* size = c.input_values[1]) {
    const std::vector<std::int64_t> v = index_values(*size);
    for (std::int64_t d : v)
      if (d < -1) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    h = v[0];
    w = v[1];
  }
  c.add_output(c.input_types[0], PartialShape{h, w, dim_of(image, 2)});
  return {};
}

// The attrs the sample_distorted_bounding_box builders share.
AttrMap distortion_attrs(DType t, const image::DistortedBoxOptions& options) {
  return {{"T", t},
          {"aspect_ratio_range", options.aspect_ratio_range},
          {"area_range", options.area_range},
          {"max_attempts", options.max_attempts},
          {"use_image_if_no_bounding_boxes", options.use_image_if_no_bounding_boxes}};
}

image::SampleDistortedBoundingBoxOutputs outputs_of(const Operation& op) {
  return {op.output(0), op.output(1), op.output(2)};
}

// A Const in the scope `op_name` (a name with a trailing "/").
Output scoped_const(Graph& g, const std::string& op_name, const Tensor& value, const char* name) {
  auto scope = g.name_scope(op_name);
  return g.constant(value, name);
}

// An int32 Const of a Python int argument (convert_to_tensor), refused when out of range.
Tensor int32_value(std::int64_t v, const char* what) {
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
    throw InvalidArgumentError(
        invalid_argument("Value " + std::to_string(v) + " of " + what + " does not fit int32"));
  return Tensor(static_cast<std::int32_t>(v));
}

}  // namespace

namespace detail {

void register_image_box_ops(OpRegistry& r) {
  r.add({"CombinedNonMaxSuppression", infer_combined_nms});
  r.add({"NonMaxSuppressionWithOverlaps", infer_nms_with_overlaps});
  r.add({"SampleDistortedBoundingBox", infer_sample_distorted_bounding_box, true});
  r.add({"SampleDistortedBoundingBoxV2", infer_sample_distorted_bounding_box, true});
  r.add({"StatelessSampleDistortedBoundingBox", infer_sample_distorted_bounding_box});
  r.add({"RandomCrop", infer_random_crop, true});
}

}  // namespace detail

namespace image {

CombinedNonMaxSuppressionOutputs combined_non_max_suppression(
    const Output& boxes, const Output& scores, std::int64_t max_output_size_per_class,
    std::int64_t max_total_size, float iou_threshold, float score_threshold, bool pad_per_class,
    bool clip_boxes, std::string_view name) {
  Graph& g = boxes.graph();
  auto outer = g.name_scope(name.empty() ? "combined_non_max_suppression" : name);
  const Output iou = g.constant(Tensor(iou_threshold), "iou_threshold");
  const Output score = g.constant(Tensor(score_threshold), "score_threshold");
  // convert_to_tensor(max_total_size) without a dtype: int64 when it needs it, which the op
  // then refuses, as TensorFlow's.
  const Output total = g.constant(max_total_size >= std::numeric_limits<std::int32_t>::min() &&
                                          max_total_size <= std::numeric_limits<std::int32_t>::max()
                                      ? Tensor(static_cast<std::int32_t>(max_total_size))
                                      : Tensor(max_total_size),
                                  "Const");
  const std::string op_name = g.unique_name("CombinedNonMaxSuppression") + "/";
  const Output per_class =
      scoped_const(g, op_name, int32_value(max_output_size_per_class, "max_output_size_per_class"),
                   "max_output_size_per_class");
  Operation op =
      g.create_op("CombinedNonMaxSuppression", {boxes, scores, per_class, total, iou, score},
                  {{"pad_per_class", pad_per_class}, {"clip_boxes", clip_boxes}}, op_name);
  return {op.output(0), op.output(1), op.output(2), op.output(3)};
}

Output non_max_suppression_with_overlaps(const Output& overlaps, const Output& scores,
                                         std::int64_t max_output_size, float overlap_threshold,
                                         float score_threshold, std::string_view name) {
  Graph& g = overlaps.graph();
  auto outer = g.name_scope(name.empty() ? "non_max_suppression_overlaps" : name);
  const Output overlap = g.constant(Tensor(overlap_threshold), "overlap_threshold");
  const std::string op_name = g.unique_name("NonMaxSuppressionWithOverlaps") + "/";
  const Output size =
      scoped_const(g, op_name, int32_value(max_output_size, "max_output_size"), "max_output_size");
  const Output score = scoped_const(g, op_name, Tensor(score_threshold), "score_threshold");
  return g
      .create_op("NonMaxSuppressionWithOverlaps", {overlaps, scores, size, overlap, score}, {},
                 op_name)
      .output(0);
}

SampleDistortedBoundingBoxOutputs sample_distorted_bounding_box(
    const Output& image_size, const Output& bounding_boxes, std::int64_t seed,
    float min_object_covered, const DistortedBoxOptions& options, std::string_view name) {
  Graph& g = image_size.graph();
  std::pair<std::int64_t, std::int64_t> seeds{0, 0};
  if (seed != 0) seeds = g.get_seed(seed);
  auto outer = g.name_scope(name.empty() ? "sample_distorted_bounding_box" : name);
  const std::string op_name = g.unique_name("SampleDistortedBoundingBoxV2") + "/";
  const Output covered = scoped_const(g, op_name, Tensor(min_object_covered), "min_object_covered");
  AttrMap attrs = distortion_attrs(image_size.dtype(), options);
  attrs["seed"] = seeds.first;
  attrs["seed2"] = seeds.second;
  return outputs_of(g.create_op("SampleDistortedBoundingBoxV2",
                                {image_size, bounding_boxes, covered}, std::move(attrs), op_name));
}

SampleDistortedBoundingBoxOutputs sample_distorted_bounding_box_v1(
    const Output& image_size, const Output& bounding_boxes, std::int64_t seed, std::int64_t seed2,
    float min_object_covered, const DistortedBoxOptions& options, std::string_view name) {
  AttrMap attrs = distortion_attrs(image_size.dtype(), options);
  attrs["seed"] = seed;
  attrs["seed2"] = seed2;
  attrs["min_object_covered"] = min_object_covered;
  return outputs_of(image_size.graph().create_op(
      "SampleDistortedBoundingBox", {image_size, bounding_boxes}, std::move(attrs),
      name.empty() ? "SampleDistortedBoundingBox" : name));
}

SampleDistortedBoundingBoxOutputs stateless_sample_distorted_bounding_box(
    const Output& image_size, const Output& bounding_boxes, const Output& seed,
    float min_object_covered, const DistortedBoxOptions& options, std::string_view name) {
  Graph& g = image_size.graph();
  auto outer = g.name_scope(name.empty() ? "stateless_sample_distorted_bounding_box" : name);
  const std::string op_name = g.unique_name("StatelessSampleDistortedBoundingBox") + "/";
  const Output covered = scoped_const(g, op_name, Tensor(min_object_covered), "min_object_covered");
  AttrMap attrs = distortion_attrs(image_size.dtype(), options);
  attrs["Tseed"] = seed.dtype();
  return outputs_of(g.create_op("StatelessSampleDistortedBoundingBox",
                                {image_size, bounding_boxes, covered, seed}, std::move(attrs),
                                op_name));
}

Output random_crop(const Output& image, const Output& size, std::int64_t seed, std::int64_t seed2,
                   std::string_view name) {
  return image.graph()
      .create_op("RandomCrop", {image, size},
                 {{"T", image.dtype()}, {"seed", seed}, {"seed2", seed2}},
                 name.empty() ? "RandomCrop" : name)
      .output(0);
}

}  // namespace image

}  // namespace af
