// Gradients of the image_more family (TensorFlow's image_grad.py, image_ops.py and
// image_ops_impl.py): ScaleAndTranslate gives ScaleAndTranslateGrad; ImageProjectiveTransformV2
// and V3 give the same op applied to the incoming gradient with the inverted transforms;
// RandomCrop, DrawBoundingBoxes, SampleDistortedBoundingBox(V2), ExtractGlimpse and
// NonMaxSuppressionWithOverlaps are marked not differentiable. The other ops of the family
// (DrawBoundingBoxesV2, AdjustContrast, ExtractGlimpseV2, CombinedNonMaxSuppression,
// StatelessSampleDistortedBoundingBox, ScaleAndTranslateGrad) have no gradient registered, as
// in TensorFlow, so af::gradients through them fails as tf.gradients does.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/image_more_ops.hpp"
#include "actorflow/ops/linalg_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "grad_attrs.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _ScaleAndTranslateGrad: ScaleAndTranslateGrad(grad, images, scale, translation) with the
// op's kernel_type and antialias; none for size, scale and translation. As in TensorFlow,
// images other than float32 are refused (the grad op's T is the gradient's float).
Grads scale_and_translate_grad(const Operation& op, const Grads& g) {
  const Output grad = image::scale_and_translate_grad(
      g[0], input(op, 0), input(op, 2), input(op, 3), string_attr(op, "kernel_type", "lanczos3"),
      bool_attr(op, "antialias", true), "ScaleAndTranslateGrad");
  return {grad, Output(), Output(), Output()};
}

// flat_transforms_to_matrices, MatrixInverse and matrices_to_flat_transforms of image_ops.py:
// the flat transforms [N, 8] of the inverse mappings.
Output inverted_transforms(const Output& transforms) {
  Graph& g = transforms.graph();
  Output matrices;
  {
    auto scope = g.name_scope("flat_transforms_to_matrices");
    const Output flat = reshape_op(transforms, int_constant(g, {-1, 8}, "Const"), "Reshape");
    const Output count =
        strided_slice(af::shape(flat), std::vector<std::int64_t>{0}, std::vector<std::int64_t>{1},
                      std::vector<std::int64_t>{1}, {.shrink_axis_mask = 1}, "strided_slice");
    const std::string ones_name = g.unique_name("ones") + "/";
    Output packed, one;
    {
      auto ones_scope = g.name_scope(ones_name);
      packed = af::stack({count, g.constant(Tensor(std::int32_t{1}), "packed/1")}, 0, "packed");
      one = g.constant(Tensor(1.0f), "Const");
    }
    const Output ones = af::fill(packed, one, ones_name);
    const Output joined = af::concat({flat, ones}, 1, "concat");
    matrices = reshape_op(joined, int_constant(g, {-1, 3, 3}, "Const_1"), "Reshape_1");
  }
  const Output inverse = linalg::matrix_inverse(matrices, false, "MatrixInverse");
  auto scope = g.name_scope("matrices_to_flat_transforms");
  const Output nine = reshape_op(inverse, int_constant(g, {-1, 9}, "Const"), "Reshape");
  const Output last = strided_slice(
      nine, std::vector<std::int64_t>{0, 8}, std::vector<std::int64_t>{0, 9},
      std::vector<std::int64_t>{1, 1}, {.begin_mask = 1, .end_mask = 1}, "strided_slice");
  const Output scaled = af::div(nine, last, "truediv");
  return strided_slice(scaled, std::vector<std::int64_t>{0, 0}, std::vector<std::int64_t>{0, 8},
                       std::vector<std::int64_t>{1, 1}, {.begin_mask = 3, .end_mask = 1},
                       "strided_slice_1");
}

// _image_projective_transform_grad and _v3_grad: the transform of the gradient by the inverse
// transforms onto the images' height and width (V3 with fill_value 0); none for the
// transforms, output_shape and fill_value. Images outside image_ops.py's _IMAGE_DTYPES
// (bfloat16 here) are refused, as TensorFlow raises TypeError.
Grads image_projective_transform_grad(const Operation& op, const Grads& g) {
  const Output images = input(op, 0);
  const DType t = images.dtype();
  if (t != DType::uint8 && t != DType::int32 && t != DType::int64 && t != DType::float32 &&
      t != DType::float64)
    throw InvalidArgumentError(invalid_argument("gradient of '" + op.name() + "': Invalid dtype " +
                                                std::string(dtype_name(t)) + "."));
  const Output transforms = inverted_transforms(input(op, 1));
  const Output size =
      strided_slice(af::shape(images), std::vector<std::int64_t>{1}, std::vector<std::int64_t>{3},
                    std::vector<std::int64_t>{1}, {}, "strided_slice");
  const std::string interpolation = string_attr(op, "interpolation", "NEAREST");
  const std::string fill_mode = string_attr(op, "fill_mode", "CONSTANT");
  if (op.type() == "ImageProjectiveTransformV2")
    return {image::image_projective_transform_v2(g[0], transforms, size, interpolation, fill_mode,
                                                 "ImageProjectiveTransformV2"),
            Output(), Output()};
  Graph& graph = op.graph();
  const std::string name = graph.unique_name("ImageProjectiveTransformV3") + "/";
  Output fill;
  {
    auto scope = graph.name_scope(name);
    fill = graph.constant(Tensor(0.0f), "fill_value");
  }
  return {image::image_projective_transform_v3(g[0], transforms, size, fill, interpolation,
                                               fill_mode, name),
          Output(), Output(), Output()};
}

}  // namespace

void register_image_more_gradients(GradientRegistry& r) {
  r.add("ScaleAndTranslate", scale_and_translate_grad);
  r.add("ImageProjectiveTransformV2", image_projective_transform_grad);
  r.add("ImageProjectiveTransformV3", image_projective_transform_grad);
  for (const char* type :
       {"RandomCrop", "DrawBoundingBoxes", "SampleDistortedBoundingBox",
        "SampleDistortedBoundingBoxV2", "ExtractGlimpse", "NonMaxSuppressionWithOverlaps"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
