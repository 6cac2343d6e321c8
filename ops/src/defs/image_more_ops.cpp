// The definitions of DrawBoundingBoxes, DrawBoundingBoxesV2, AdjustContrast, ExtractGlimpse,
// ExtractGlimpseV2, ImageProjectiveTransformV2, ImageProjectiveTransformV3,
// ScaleAndTranslate and ScaleAndTranslateGrad (shape functions as TensorFlow's image_ops.cc:
// SetOutputToSizedImage, ResizeShapeFn and the ops' own) and their builders
// (actorflow/ops/image_more_ops.hpp). The CPU kernels are in kernels/src/image_more_ops.cpp
// and image_scale_ops.cpp, the gradients in ops/src/gradients/image_more_grad.cpp.
#include "actorflow/ops/image_more_ops.hpp"

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
using detail::check_attr_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;
using detail::imaging::fixed_input;
using detail::imaging::int32_pair_const;
using detail::imaging::set_output_to_sized_image;

// The dtypes the ops take within actorflow's, and TensorFlow's lists as its errors name them.
const std::vector<DType> kDrawTypes = {DType::float32, DType::float16};
constexpr const char* kDrawTypeNames = "float, half";
const std::vector<DType> kContrastTypes = {DType::uint8,  DType::int8,  DType::int16,
                                           DType::int32,  DType::int64, DType::float32,
                                           DType::float64};
constexpr const char* kContrastTypeNames = "uint8, int8, int16, int32, int64, float, double";

// DrawBoundingBoxes: images [batch, height, width, depth] (depth 1, 3 or 4 when known) and
// boxes [batch, num_boxes, 4]; images' shape. DrawBoundingBoxesV2 (colors) only asks rank >= 3
// (UnchangedShapeWithRankAtLeast).
Status infer_draw_bounding_boxes(InferenceContext& c) {
  const bool v2 = c.node.op == "DrawBoundingBoxesV2";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v2 ? 3 : 2));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kDrawTypes, kDrawTypeNames));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "boxes", DType::float32));
  const PartialShape& images = c.input_shapes[0];
  if (v2) {
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "colors", DType::float32));
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(images, 3));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(images, 4));
    const Index depth = dim_of(images, 3);
    if (depth >= 0 && depth != 1 && depth != 3 && depth != 4)
      return invalid_argument("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 3));
    ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(c.input_shapes[1], 2), 4));
  }
  c.add_output(c.input_types[0], images);
  return {};
}

// AdjustContrast: float images of the input's shape (rank >= 3), the three scalars float.
Status infer_adjust_contrast(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[0], "T", kContrastTypes, kContrastTypeNames));
  const char* names[] = {"images", "contrast_factor", "min_value", "max_value"};
  for (int i = 1; i < 4; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, i, names[i], DType::float32));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  }
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 3));
  c.add_output(DType::float32, c.input_shapes[0]);
  return {};
}

// ExtractGlimpse and V2: input [batch, h, w, c], offsets [batch, 2]; float [batch, size[0],
// size[1], c]. uniform_noise with a noise other than "uniform" is refused.
Status infer_extract_glimpse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 0, "input", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "size", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "offsets", DType::float32));
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& offsets = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, 4));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(offsets, 2));
  Index batch = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(input, 0), dim_of(offsets, 0), &batch));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(offsets, 1), 2));
  bool uniform_noise = true;
  std::string noise = "uniform";
  c.get_attr("uniform_noise", &uniform_noise);
  c.get_attr("noise", &noise);
  if (uniform_noise && !noise.empty() && noise != "uniform")
    return invalid_argument("The uniform_noise and noise should not be specified at the same time");
  return set_output_to_sized_image(c, batch, 1, dim_of(input, 3), DType::float32);
}

// ImageProjectiveTransformV2 and V3: images [batch, h, w, c] of attr dtype, transforms float,
// output_shape int32 [2], V3's fill_value float; [batch, output_shape..., c] of dtype.
Status infer_image_projective_transform(InferenceContext& c) {
  const bool v3 = c.node.op == "ImageProjectiveTransformV3";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v3 ? 4 : 3));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op, "dtype"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "transforms", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "output_shape", DType::int32));
  if (v3) ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "fill_value", DType::float32));
  std::string interpolation;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("interpolation", &interpolation));
  const PartialShape& images = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(images, 4));
  return set_output_to_sized_image(c, dim_of(images, 0), 2, dim_of(images, 3), c.input_types[0]);
}

// ScaleAndTranslate (ResizeShapeFn): float [batch, size[0], size[1], channels].
Status infer_scale_and_translate(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 1, "size", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "scale", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "translation", DType::float32));
  const PartialShape& images = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(images, 4));
  return set_output_to_sized_image(c, dim_of(images, 0), 1, dim_of(images, 3), DType::float32);
}

// ScaleAndTranslateGrad(grads: T, original_image: T): original_image's shape, T float only.
Status infer_scale_and_translate_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "original_image", c.input_types[1], "grads", c.input_types[0]));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", {DType::float32}, "float"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 2, "scale", DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_input(c, 3, "translation", DType::float32));
  c.add_output(c.input_types[0], c.input_shapes[1]);
  return {};
}

// The name of an op `type` about to be made (`name`, else `type`, made unique) with a trailing
// "/", so that Consts made in that scope sit under it, as op_def_library converts arguments.
std::string op_scope_name(Graph& g, std::string_view type, std::string_view name) {
  return g.unique_name(name.empty() ? type : name) + "/";
}

// A float32 Const of `values` named `const_name` in the scope `op_name`.
Output float_const(Graph& g, const std::string& op_name, const char* const_name,
                   std::vector<float> values, bool scalar) {
  auto scope = g.name_scope(op_name);
  if (scalar) return g.constant(Tensor(values[0]), const_name);
  return g.constant(Tensor::from_vector(std::move(values)), const_name);
}

}  // namespace

namespace detail {

void register_image_more_ops(OpRegistry& r) {
  r.add({"DrawBoundingBoxes", infer_draw_bounding_boxes});
  r.add({"DrawBoundingBoxesV2", infer_draw_bounding_boxes});
  r.add({"AdjustContrast", infer_adjust_contrast});
  r.add({"ExtractGlimpse", infer_extract_glimpse});
  r.add({"ExtractGlimpseV2", infer_extract_glimpse});
  r.add({"ImageProjectiveTransformV2", infer_image_projective_transform});
  r.add({"ImageProjectiveTransformV3", infer_image_projective_transform});
  r.add({"ScaleAndTranslate", infer_scale_and_translate});
  r.add({"ScaleAndTranslateGrad", infer_scale_and_translate_grad});
}

}  // namespace detail

namespace image {

Output draw_bounding_boxes(const Output& images, const Output& boxes, std::string_view name) {
  return images.graph()
      .create_op("DrawBoundingBoxes", {images, boxes}, {{"T", images.dtype()}},
                 name.empty() ? "DrawBoundingBoxes" : name)
      .output(0);
}

Output draw_bounding_boxes(const Output& images, const Output& boxes, const Output& colors,
                           std::string_view name) {
  return images.graph()
      .create_op("DrawBoundingBoxesV2", {images, boxes, colors}, {{"T", images.dtype()}},
                 name.empty() ? "DrawBoundingBoxesV2" : name)
      .output(0);
}

Output adjust_contrast_v1(const Output& images, const Output& contrast_factor,
                          const Output& min_value, const Output& max_value, std::string_view name) {
  return images.graph()
      .create_op("AdjustContrast", {images, contrast_factor, min_value, max_value},
                 {{"T", images.dtype()}}, name.empty() ? "AdjustContrast" : name)
      .output(0);
}

Output adjust_contrast_v1(const Output& images, float contrast_factor, float min_value,
                          float max_value, std::string_view name) {
  Graph& g = images.graph();
  const std::string op_name = op_scope_name(g, "AdjustContrast", name);
  const Output f = float_const(g, op_name, "contrast_factor", {contrast_factor}, true);
  const Output lo = float_const(g, op_name, "min_value", {min_value}, true);
  const Output hi = float_const(g, op_name, "max_value", {max_value}, true);
  return adjust_contrast_v1(images, f, lo, hi, op_name);
}

Output extract_glimpse(const Output& input, const Output& size, const Output& offsets,
                       bool centered, bool normalized, bool uniform_noise, const std::string& noise,
                       std::string_view name) {
  return input.graph()
      .create_op("ExtractGlimpse", {input, size, offsets},
                 {{"centered", centered},
                  {"normalized", normalized},
                  {"uniform_noise", uniform_noise},
                  {"noise", noise}},
                 name.empty() ? "ExtractGlimpse" : name)
      .output(0);
}

Output extract_glimpse(const Output& input, const std::array<std::int64_t, 2>& size,
                       const Output& offsets, bool centered, bool normalized, bool uniform_noise,
                       const std::string& noise, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = op_scope_name(g, "ExtractGlimpse", name);
  const Output s = int32_pair_const(g, op_name, "size", size);
  return extract_glimpse(input, s, offsets, centered, normalized, uniform_noise, noise, op_name);
}

Output extract_glimpse_v2(const Output& input, const Output& size, const Output& offsets,
                          bool centered, bool normalized, const std::string& noise,
                          std::string_view name) {
  return input.graph()
      .create_op("ExtractGlimpseV2", {input, size, offsets},
                 {{"centered", centered},
                  {"normalized", normalized},
                  {"uniform_noise", false},
                  {"noise", noise}},
                 name.empty() ? "ExtractGlimpseV2" : name)
      .output(0);
}

Output extract_glimpse_v2(const Output& input, const std::array<std::int64_t, 2>& size,
                          const Output& offsets, bool centered, bool normalized,
                          const std::string& noise, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = op_scope_name(g, "ExtractGlimpseV2", name);
  const Output s = int32_pair_const(g, op_name, "size", size);
  return extract_glimpse_v2(input, s, offsets, centered, normalized, noise, op_name);
}

Output image_projective_transform_v2(const Output& images, const Output& transforms,
                                     const Output& output_shape, const std::string& interpolation,
                                     const std::string& fill_mode, std::string_view name) {
  return images.graph()
      .create_op(
          "ImageProjectiveTransformV2", {images, transforms, output_shape},
          {{"dtype", images.dtype()}, {"interpolation", interpolation}, {"fill_mode", fill_mode}},
          name.empty() ? "ImageProjectiveTransformV2" : name)
      .output(0);
}

Output image_projective_transform_v3(const Output& images, const Output& transforms,
                                     const Output& output_shape, const Output& fill_value,
                                     const std::string& interpolation, const std::string& fill_mode,
                                     std::string_view name) {
  return images.graph()
      .create_op(
          "ImageProjectiveTransformV3", {images, transforms, output_shape, fill_value},
          {{"dtype", images.dtype()}, {"interpolation", interpolation}, {"fill_mode", fill_mode}},
          name.empty() ? "ImageProjectiveTransformV3" : name)
      .output(0);
}

Output image_projective_transform_v3(const Output& images, const Output& transforms,
                                     const std::array<std::int64_t, 2>& output_shape,
                                     float fill_value, const std::string& interpolation,
                                     const std::string& fill_mode, std::string_view name) {
  Graph& g = images.graph();
  const std::string op_name = op_scope_name(g, "ImageProjectiveTransformV3", name);
  const Output shape = int32_pair_const(g, op_name, "output_shape", output_shape);
  const Output fill = float_const(g, op_name, "fill_value", {fill_value}, true);
  return image_projective_transform_v3(images, transforms, shape, fill, interpolation, fill_mode,
                                       op_name);
}

Output scale_and_translate(const Output& images, const Output& size, const Output& scale,
                           const Output& translation, const std::string& kernel_type,
                           bool antialias, std::string_view name) {
  return images.graph()
      .create_op("ScaleAndTranslate", {images, size, scale, translation},
                 {{"T", images.dtype()}, {"kernel_type", kernel_type}, {"antialias", antialias}},
                 name.empty() ? "ScaleAndTranslate" : name)
      .output(0);
}

Output scale_and_translate(const Output& images, const std::array<std::int64_t, 2>& size,
                           const std::array<float, 2>& scale,
                           const std::array<float, 2>& translation, const std::string& kernel_type,
                           bool antialias, std::string_view name) {
  Graph& g = images.graph();
  const std::string op_name = op_scope_name(g, "ScaleAndTranslate", name);
  const Output s = int32_pair_const(g, op_name, "size", size);
  const Output sc = float_const(g, op_name, "scale", {scale[0], scale[1]}, false);
  const Output tr = float_const(g, op_name, "translation", {translation[0], translation[1]}, false);
  return scale_and_translate(images, s, sc, tr, kernel_type, antialias, op_name);
}

Output scale_and_translate_grad(const Output& grads, const Output& original_image,
                                const Output& scale, const Output& translation,
                                const std::string& kernel_type, bool antialias,
                                std::string_view name) {
  return grads.graph()
      .create_op("ScaleAndTranslateGrad", {grads, original_image, scale, translation},
                 {{"T", grads.dtype()}, {"kernel_type", kernel_type}, {"antialias", antialias}},
                 name.empty() ? "ScaleAndTranslateGrad" : name)
      .output(0);
}

}  // namespace image

}  // namespace af
