#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Bicubic and area resizing, crops resized from boxes, and non-max suppression of boxes
/// (TensorFlow 1.x's `tf.compat.v1.image.resize_bicubic`, `resize_area`,
/// `tf.image.crop_and_resize`, `tf.image.non_max_suppression` and
/// `non_max_suppression_with_scores`; image/resize_bicubic_op.cc, resize_area_op.cc,
/// crop_and_resize_op.cc and non_max_suppression_op.cc).
///
/// The resizes take `images` `[batch, height, width, channels]` and `size`, int32 `[2]`
/// `[new_height, new_width]`, and give float32 `[batch, new_height, new_width, channels]`
/// (height and width known statically when `size` is a Const), computed in float exactly as
/// TensorFlow's CPU kernels. Errors when the step runs (InvalidArgument, the op named) are the
/// resize family's of image_ops.hpp: "If half_pixel_centers is True, align_corners must be
/// False.", "input must be 4-dimensional[2,3,4]", "image must have at least one channel",
/// "input image must be of non-zero size", "shape_t must be 1-dimensional[1,2]", "shape_t
/// must have two elements[3]", "output dimensions must be positive". Building fails
/// (InvalidArgumentError) when a rank is known to be wrong ("Shape must be rank 4 but is rank
/// 3") or a dtype is not allowed.
namespace af::image {

/// `tf.compat.v1.image.resize_bicubic(images, size, align_corners, half_pixel_centers)`: op
/// ResizeBicubic (default name "ResizeBicubic"). `images` is float32, float64, int32, int64,
/// uint8 or bfloat16. Each output pixel is a cubic convolution of the 4x4 input pixels around
/// its source point: Keys' kernel (a = -0.5) with `half_pixel_centers`, where taps outside
/// the image get no weight and the rest are renormalized, else a = -0.75 with the edge
/// pixels repeated, both from TensorFlow's 1025-entry table. Errors: see the namespace.
/// Gradient: op ResizeBicubicGrad ("<op>_grad/ResizeBicubicGrad") for float32 and float64
/// images, none for `size`; ResizeBicubicGrad has no gradient.
Output resize_bicubic(const Output& images, const Output& size, bool align_corners = false,
                      bool half_pixel_centers = false, std::string_view name = {});
/// `resize_bicubic` with `size` the int32 Const "<op>/size" made of `{new_height,
/// new_width}`. Throws InvalidArgumentError when a value does not fit int32.
Output resize_bicubic(const Output& images, const std::array<std::int64_t, 2>& size,
                      bool align_corners = false, bool half_pixel_centers = false,
                      std::string_view name = {});

/// `tf.compat.v1.image.resize_area(images, size, align_corners)`: op ResizeArea (default
/// name "ResizeArea"). `images` as resize_bicubic's. Each output pixel is the mean of the
/// input area it covers, cells partly covered weighted by the part. Errors: see the
/// namespace. TensorFlow registers no gradient: af::gradients through it fails as
/// TensorFlow's does.
Output resize_area(const Output& images, const Output& size, bool align_corners = false,
                   std::string_view name = {});
/// `resize_area` with `size` the int32 Const "<op>/size".
Output resize_area(const Output& images, const std::array<std::int64_t, 2>& size,
                   bool align_corners = false, std::string_view name = {});

/// `tf.image.crop_and_resize(image, boxes, box_ind, crop_size, method,
/// extrapolation_value)` (v1 argument names): op CropAndResize (default name
/// "CropAndResize"). `image` `[batch, height, width, depth]` is float32, float64, int32,
/// int64 or uint8; `boxes` float32 `[num_boxes, 4]` holds normalized `[y1, x1, y2, x2]`
/// (y1 > y2 flips the crop; values outside [0, 1] extrapolate); `box_ind` int32
/// `[num_boxes]` names each box's image; `crop_size` int32 `[crop_height, crop_width]`. The
/// float32 crops `[num_boxes, crop_height, crop_width, depth]` sample `y1 * (height - 1) + i
/// * (y2 - y1) * (height - 1) / (crop_height - 1)` (the box's centre when crop_height is 1)
/// bilinearly, or at the pixel rounded to with `method` "nearest"; samples outside the image
/// are `extrapolation_value`. Errors when the step runs: "box_index has values outside [0,
/// batch_size)" (OutOfRange), "Boxes contains at least one element that is not finite",
/// "crop dimensions must be positive", "boxes must have 4 columns", "box_index has
/// incompatible shape". Building fails on a known wrong rank, boxes not 4 wide ("Dimension
/// must be 4 but is 3"), boxes and box_ind of different lengths, or a `method` other than
/// "bilinear" and "nearest". Gradient: CropAndResizeGradImage for float images (its
/// image_size the Const "<that op>/image_size" when the image's shape is static, else
/// `Shape`) and CropAndResizeGradBoxes (the bilinear slope, for either method) for `boxes`;
/// none for box_ind and crop_size.
Output crop_and_resize(const Output& image, const Output& boxes, const Output& box_ind,
                       const Output& crop_size, const std::string& method = "bilinear",
                       float extrapolation_value = 0.0f, std::string_view name = {});
/// `crop_and_resize` with `crop_size` the int32 Const "<op>/crop_size".
Output crop_and_resize(const Output& image, const Output& boxes, const Output& box_ind,
                       const std::array<std::int64_t, 2>& crop_size,
                       const std::string& method = "bilinear", float extrapolation_value = 0.0f,
                       std::string_view name = {});

/// `tf.image.non_max_suppression(boxes, scores, max_output_size, iou_threshold,
/// score_threshold)`: op NonMaxSuppressionV3 ("non_max_suppression/NonMaxSuppressionV3", the
/// thresholds the float32 Consts "non_max_suppression/iou_threshold" and ".../score_threshold",
/// max_output_size the int32 Const "<op>/max_output_size"). `boxes` float32 `[num_boxes, 4]`
/// holds `[y1, x1, y2, x2]` corners in either order; `scores` float32 `[num_boxes]`. Gives
/// int32 `[M]`, M <= max_output_size: boxes taken greedily by descending score (the lower
/// index first among equal scores), only scores above `score_threshold`, each dropped whose
/// IoU with an already selected box exceeds `iou_threshold` (boxes without area overlap
/// nothing). Errors when the step runs: "iou_threshold must be in [0, 1]", "output size must
/// be non-negative", "boxes must have 4 columns (Dimension must be 4 but is 3)", "scores has
/// incompatible shape (Dimensions must be equal, but are 3 and 2)". Not differentiable.
Output non_max_suppression(const Output& boxes, const Output& scores, std::int64_t max_output_size,
                           float iou_threshold = 0.5f,
                           float score_threshold = -std::numeric_limits<float>::infinity(),
                           std::string_view name = {});

/// What `non_max_suppression_with_scores` returns.
struct NonMaxSuppressionWithScores {
  Output selected_indices;  ///< int32 `[M]`
  Output selected_scores;   ///< float32 `[M]`: the scores after soft suppression
};

/// `tf.image.non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold,
/// score_threshold, soft_nms_sigma)`: op NonMaxSuppressionV5
/// ("non_max_suppression_with_scores/NonMaxSuppressionV5", pad_to_max_output_size false).
/// With `soft_nms_sigma` 0 it is `non_max_suppression` returning the scores too; above 0 each
/// candidate's score decays by `exp(-0.5 / sigma * iou^2)` per selected box it overlaps (Soft
/// NMS; iou_threshold then has no effect) and a candidate is requeued while its score stays
/// above `score_threshold`. Errors as `non_max_suppression`'s and "soft_nms_sigma_val must be
/// >= 0". Not differentiable.
NonMaxSuppressionWithScores non_max_suppression_with_scores(
    const Output& boxes, const Output& scores, std::int64_t max_output_size,
    float iou_threshold = 0.5f, float score_threshold = -std::numeric_limits<float>::infinity(),
    float soft_nms_sigma = 0.0f, std::string_view name = {});

/// The generated `non_max_suppression` (v1): op NonMaxSuppression (default name
/// "NonMaxSuppression") with `iou_threshold` an attr and no score threshold;
/// `max_output_size` an int32 scalar. Errors as `non_max_suppression`'s. Not differentiable.
Output non_max_suppression_v1(const Output& boxes, const Output& scores,
                              const Output& max_output_size, float iou_threshold = 0.5f,
                              std::string_view name = {});

/// The generated `non_max_suppression_v2`: op NonMaxSuppressionV2 (default name
/// "NonMaxSuppressionV2"), `iou_threshold` a float32 scalar. Not differentiable.
Output non_max_suppression_v2(const Output& boxes, const Output& scores,
                              const Output& max_output_size, const Output& iou_threshold,
                              std::string_view name = {});

/// What `non_max_suppression_v4` returns.
struct NonMaxSuppressionPadded {
  Output selected_indices;  ///< int32 `[M]`, `[max_output_size]` when padded
  Output valid_outputs;     ///< int32 scalar: how many of them were selected
};

/// The generated `non_max_suppression_v4`: op NonMaxSuppressionV4 (default name
/// "NonMaxSuppressionV4"). With `pad_to_max_output_size` the indices are padded with 0 to
/// max_output_size (static when it is a Const) and `valid_outputs` says how many are real.
/// Not differentiable.
NonMaxSuppressionPadded non_max_suppression_v4(const Output& boxes, const Output& scores,
                                               const Output& max_output_size,
                                               const Output& iou_threshold,
                                               const Output& score_threshold,
                                               bool pad_to_max_output_size = false,
                                               std::string_view name = {});

}  // namespace af::image
