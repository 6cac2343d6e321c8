// The definitions of ResizeBicubic, ResizeBicubicGrad, ResizeArea, CropAndResize,
// CropAndResizeGradImage, CropAndResizeGradBoxes and NonMaxSuppression (V1 to V5) (shape
// functions as TensorFlow's image_ops.cc: ResizeShapeFn, SetOutputToSizedImage, NMSShapeFn,
// SoftNMSShapeFn and the grads' own) and their builders (actorflow/ops/image_proc_ops.hpp).
// The CPU kernels are in kernels/src/image_proc_ops.cpp and non_max_suppression_ops.cpp, the
// gradients in ops/src/gradients/image_proc_grad.cpp.
#include "actorflow/ops/image_proc_ops.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "image_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;
using detail::merge_dims;
using detail::with_value;

using Index = std::int64_t;
using detail::check_op_def_type;
using detail::index_values;
using detail::with_rank;
using detail::imaging::check_int32_pair;
using detail::imaging::fixed_input;
using detail::imaging::int32_pair_const;
using detail::imaging::set_output_to_sized_image;

// A string attr of allowed values: "Value for attr 'method' of \"area\" is not in the list of
// allowed values: \"bilinear\", \"nearest\"".
Status check_method(const InferenceContext& c, bool nearest_allowed) {
  std::string method = "bilinear";
  c.get_attr("method", &method);
  if (method == "bilinear" || (nearest_allowed && method == "nearest")) return {};
  return invalid_argument("Value for attr 'method' of \"" + method +
                          "\" is not in the list of allowed values: \"bilinear\"" +
                          (nearest_allowed ? ", \"nearest\"" : ""));
}

// ResizeShapeFn for ResizeBicubic and ResizeArea: float32 [batch, size[0], size[1],
// channels].
Status infer_resize(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "size", DType::int32));
  const PartialShape& images = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(images, 4));
  return set_output_to_sized_image(c, dim_of(images, 0), 1, dim_of(images, 3), DType::float32);
}

// ResizeBicubicGrad(grads: float, original_image: T): original_image's shape and dtype.
Status infer_resize_bicubic_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 0, "grads", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[1], c.node.op, "T"));
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

// CropAndResize: float32 [num_boxes, crop_size[0], crop_size[1], depth].
Status infer_crop_and_resize(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "boxes", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "box_ind", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "crop_size", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_method(c, true));
  const PartialShape& image = c.input_shapes[0];
  const PartialShape& boxes = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(image, 4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(boxes, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  Index num_boxes = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(boxes, 0), dim_of(c.input_shapes[2], 0), &num_boxes));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(boxes, 1), 4));
  return set_output_to_sized_image(c, num_boxes, 3, dim_of(image, 3), DType::float32);
}

// CropAndResizeGradImage: a T image of the shape image_size names (rank 4).
Status infer_crop_and_resize_grad_image(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 0, "grads", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "boxes", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "box_ind", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "image_size", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_method(c, true));
  DType t = DType::float32;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op, "T"));
  PartialShape out = PartialShape::unknown();
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 3, &out));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(out, 4));
  c.add_output(t, out.rank_known() ? out : PartialShape::unknown_of_rank(4));
  return {};
}

// CropAndResizeGradBoxes: float32 of boxes' shape.
Status infer_crop_and_resize_grad_boxes(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 0, "grads", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[1], c.node.op, "T"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "boxes", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "box_ind", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_method(c, false));
  c.add_output(DType::float32, c.input_shapes[2]);
  return {};
}

// NonMaxSuppression V1 to V5 (NMSShapeFn, SoftNMSShapeFn and V1's and V2's own): boxes
// [num_boxes, 4], scores [num_boxes], scalars; int32 [?] (V4 and V5 padded: [max_output_size]
// where it is a Const), V5's T scores alike, V4's and V5's int32 scalar valid_outputs.
Status infer_non_max_suppression(InferenceContext& c) {
  const std::string& op = c.node.op;
  const int version = op == "NonMaxSuppression" ? 1 : op.back() - '0';
  const int inputs = version == 1 ? 3 : version == 2 ? 4 : version == 5 ? 6 : 5;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (version == 1) {
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 0, "boxes", DType::float32));
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "scores", DType::float32));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
    if (c.input_types[1] != c.input_types[0])
      return invalid_argument(
          cwise::type_mismatch_message(op, "scores", c.input_types[1], "boxes", c.input_types[0]));
    for (int i = 3; i < inputs; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (version == 5 && c.input_types[at] != c.input_types[0])
        return invalid_argument(cwise::type_mismatch_message(op,
                                                             i == 3   ? "iou_threshold"
                                                             : i == 4 ? "score_threshold"
                                                                      : "soft_nms_sigma",
                                                             c.input_types[at], "boxes",
                                                             c.input_types[0]));
      if (version != 5)
        ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[at], c.node.op, "T_threshold"));
    }
    if (version >= 3 && version != 5 && c.input_types[4] != c.input_types[3])
      return invalid_argument(cwise::type_mismatch_message(op, "score_threshold", c.input_types[4],
                                                           "iou_threshold", c.input_types[3]));
  }
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "max_output_size", DType::int32));
  const PartialShape& boxes = c.input_shapes[0];
  const PartialShape& scores = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(boxes, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(scores, 1));
  for (int i = 2; i < inputs; ++i)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  Index unused = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(boxes, 0), dim_of(scores, 0), &unused));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(boxes, 1), 4));
  Index selected = -1;
  bool pad = false;
  if (version >= 4) c.get_attr("pad_to_max_output_size", &pad);
  if (pad) {
    // MakeDimForScalarInput(2).
    if (const Tensor* size = c.input_values[2]) {
      selected = index_values(*size)[0];
      if (selected < 0)
        return invalid_argument(
            "Dimension size, given by scalar input 2, must be non-negative but is " +
            std::to_string(selected));
    }
  }
  c.add_output(DType::int32, PartialShape{selected});
  if (version == 5) c.add_output(c.input_types[0], PartialShape{selected});
  if (version >= 4) c.add_output(DType::int32, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

// The op `type` with the images' T and `attrs`, named `name` (default `type`).
Output image_op(const char* type, std::vector<Output> inputs, AttrMap attrs,
                std::string_view name) {
  Graph& g = inputs[0].graph();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? std::string_view(type) : name)
      .output(0);
}

// The int32 Const `const_name` of two values inside the scope "<op>/", as Python's
// op_def_library converts a list; returns it and sets `op_name` to "<op>/".
Output pair_const(Graph& g, const char* type, std::string_view name, const char* const_name,
                  const std::array<std::int64_t, 2>& values, std::string* op_name) {
  check_int32_pair(values, const_name);  // before the op's name is taken
  *op_name = g.unique_name(name.empty() ? std::string_view(type) : name) + "/";
  return int32_pair_const(g, *op_name, const_name, values);
}

// The int32 Const "<op>/max_output_size" of the op `type` about to be made in the current
// scope; sets `op_name` to "<op>/".
Output max_output_size_const(Graph& g, const char* type, std::int64_t value, std::string* op_name) {
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max())
    throw InvalidArgumentError(invalid_argument("Value " + std::to_string(value) +
                                                " of max_output_size does not fit int32"));
  *op_name = g.unique_name(type) + "/";
  auto scope = g.name_scope(*op_name);
  return g.constant(Tensor(static_cast<std::int32_t>(value)), "max_output_size");
}

}  // namespace

namespace detail {

void register_image_proc_ops(OpRegistry& r) {
  r.add({"ResizeBicubic", infer_resize});
  r.add({"ResizeArea", infer_resize});
  r.add({"ResizeBicubicGrad", infer_resize_bicubic_grad});
  r.add({"CropAndResize", infer_crop_and_resize});
  r.add({"CropAndResizeGradImage", infer_crop_and_resize_grad_image});
  r.add({"CropAndResizeGradBoxes", infer_crop_and_resize_grad_boxes});
  for (const char* op : {"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
                         "NonMaxSuppressionV4", "NonMaxSuppressionV5"})
    r.add({op, infer_non_max_suppression});
}

}  // namespace detail

namespace image {

Output resize_bicubic(const Output& images, const Output& size, bool align_corners,
                      bool half_pixel_centers, std::string_view name) {
  return image_op("ResizeBicubic", {images, size},
                  {{"T", images.dtype()},
                   {"align_corners", align_corners},
                   {"half_pixel_centers", half_pixel_centers}},
                  name);
}

Output resize_bicubic(const Output& images, const std::array<std::int64_t, 2>& size,
                      bool align_corners, bool half_pixel_centers, std::string_view name) {
  std::string op_name;
  const Output s = pair_const(images.graph(), "ResizeBicubic", name, "size", size, &op_name);
  return resize_bicubic(images, s, align_corners, half_pixel_centers, op_name);
}

Output resize_area(const Output& images, const Output& size, bool align_corners,
                   std::string_view name) {
  return image_op("ResizeArea", {images, size},
                  {{"T", images.dtype()}, {"align_corners", align_corners}}, name);
}

Output resize_area(const Output& images, const std::array<std::int64_t, 2>& size,
                   bool align_corners, std::string_view name) {
  std::string op_name;
  const Output s = pair_const(images.graph(), "ResizeArea", name, "size", size, &op_name);
  return resize_area(images, s, align_corners, op_name);
}

Output crop_and_resize(const Output& image, const Output& boxes, const Output& box_ind,
                       const Output& crop_size, const std::string& method,
                       float extrapolation_value, std::string_view name) {
  return image_op(
      "CropAndResize", {image, boxes, box_ind, crop_size},
      {{"T", image.dtype()}, {"method", method}, {"extrapolation_value", extrapolation_value}},
      name);
}

Output crop_and_resize(const Output& image, const Output& boxes, const Output& box_ind,
                       const std::array<std::int64_t, 2>& crop_size, const std::string& method,
                       float extrapolation_value, std::string_view name) {
  std::string op_name;
  const Output s =
      pair_const(image.graph(), "CropAndResize", name, "crop_size", crop_size, &op_name);
  return crop_and_resize(image, boxes, box_ind, s, method, extrapolation_value, op_name);
}

Output non_max_suppression(const Output& boxes, const Output& scores, std::int64_t max_output_size,
                           float iou_threshold, float score_threshold, std::string_view name) {
  Graph& g = boxes.graph();
  auto outer = g.name_scope(name.empty() ? "non_max_suppression" : name);
  const Output iou = g.constant(Tensor(iou_threshold), "iou_threshold");
  const Output score = g.constant(Tensor(score_threshold), "score_threshold");
  std::string op_name;
  const Output size = max_output_size_const(g, "NonMaxSuppressionV3", max_output_size, &op_name);
  return g
      .create_op("NonMaxSuppressionV3", {boxes, scores, size, iou, score},
                 {{"T", boxes.dtype()}, {"T_threshold", DType::float32}}, op_name)
      .output(0);
}

NonMaxSuppressionWithScores non_max_suppression_with_scores(
    const Output& boxes, const Output& scores, std::int64_t max_output_size, float iou_threshold,
    float score_threshold, float soft_nms_sigma, std::string_view name) {
  Graph& g = boxes.graph();
  auto outer = g.name_scope(name.empty() ? "non_max_suppression_with_scores" : name);
  const Output iou = g.constant(Tensor(iou_threshold), "iou_threshold");
  const Output score = g.constant(Tensor(score_threshold), "score_threshold");
  const Output sigma = g.constant(Tensor(soft_nms_sigma), "soft_nms_sigma");
  std::string op_name;
  const Output size = max_output_size_const(g, "NonMaxSuppressionV5", max_output_size, &op_name);
  Operation op = g.create_op("NonMaxSuppressionV5", {boxes, scores, size, iou, score, sigma},
                             {{"T", boxes.dtype()}, {"pad_to_max_output_size", false}}, op_name);
  return {op.output(0), op.output(1)};
}

Output non_max_suppression_v1(const Output& boxes, const Output& scores,
                              const Output& max_output_size, float iou_threshold,
                              std::string_view name) {
  return image_op("NonMaxSuppression", {boxes, scores, max_output_size},
                  {{"iou_threshold", iou_threshold}}, name);
}

Output non_max_suppression_v2(const Output& boxes, const Output& scores,
                              const Output& max_output_size, const Output& iou_threshold,
                              std::string_view name) {
  return image_op("NonMaxSuppressionV2", {boxes, scores, max_output_size, iou_threshold},
                  {{"T", boxes.dtype()}, {"T_threshold", iou_threshold.dtype()}}, name);
}

NonMaxSuppressionPadded non_max_suppression_v4(const Output& boxes, const Output& scores,
                                               const Output& max_output_size,
                                               const Output& iou_threshold,
                                               const Output& score_threshold,
                                               bool pad_to_max_output_size, std::string_view name) {
  Operation op = boxes.graph().create_op(
      "NonMaxSuppressionV4", {boxes, scores, max_output_size, iou_threshold, score_threshold},
      {{"T", boxes.dtype()},
       {"T_threshold", iou_threshold.dtype()},
       {"pad_to_max_output_size", pad_to_max_output_size}},
      name.empty() ? "NonMaxSuppressionV4" : name);
  return {op.output(0), op.output(1)};
}

}  // namespace image

}  // namespace af
