#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Drawing boxes, the deprecated contrast op, glimpses, projective transforms, scaling with
/// sampling kernels, batched and overlap-based non-max suppression, distorted bounding boxes
/// and the deprecated random crop (TensorFlow's `tf.image.draw_bounding_boxes`,
/// `extract_glimpse`, `combined_non_max_suppression`, `non_max_suppression_overlaps`,
/// `sample_distorted_bounding_box`, `stateless_sample_distorted_bounding_box` and the raw ops
/// AdjustContrast, ImageProjectiveTransformV2/V3, ScaleAndTranslate(Grad) and RandomCrop;
/// kernels/image/draw_bounding_box_op.cc, adjust_contrast_op.cc, attention_ops.cc,
/// image_ops.cc, scale_and_translate_op.cc, non_max_suppression_op.cc,
/// sample_distorted_bounding_box_op.cc, random_crop_op.cc).
///
/// Each builder creates its node in the graph of its first input and throws
/// InvalidArgumentError, naming the node, when the static shapes or dtypes are refused
/// ("Shape must be rank 4 but is rank 3", "Value for attr 'T' of int32 is not in the list of
/// allowed values: float, half"). Running a node checks again with TensorFlow's kernel
/// messages (InvalidArgument unless said otherwise), the node named.
namespace af::image {

/// `tf.compat.v1.image.draw_bounding_boxes(images, boxes)`: op DrawBoundingBoxes (default name
/// "DrawBoundingBoxes"). `images` float32 `[batch, height, width, depth]` (depth 1, 3 or 4),
/// `boxes` float32 `[batch, num_boxes, 4]` of normalized `[y_min, x_min, y_max, x_max]`.
/// Returns a copy of the images with each box's one-pixel outline drawn in TensorFlow's
/// default colours (yellow, blue, red, lime, ... by box index; 1 for grayscale); corners are
/// `y * (height - 1)` and `x * (width - 1)` truncated, edges outside the image are left out,
/// inverted boxes and boxes wholly outside are skipped. Errors when run: "The rank of the
/// images should be 4", "The rank of the boxes tensor should be 3", "The batch sizes should
/// be the same", "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)", "The size
/// of the third dimension of the box must be 4. Received: 3". Not differentiable.
Output draw_bounding_boxes(const Output& images, const Output& boxes, std::string_view name = {});
/// `tf.image.draw_bounding_boxes(images, boxes, colors)`: op DrawBoundingBoxesV2 (default
/// name "DrawBoundingBoxesV2"); box `i` takes row `i % rows` of `colors` (float32 `[rows,
/// >= depth]`), the default colours when `colors` is empty. Further errors: "colors must be a
/// 2-D matrix[2]", "colors must have equal or more channels than the image provided: [2,2]".
/// TensorFlow registers no gradient.
Output draw_bounding_boxes(const Output& images, const Output& boxes, const Output& colors,
                           std::string_view name = {});

/// The raw op AdjustContrast (default name "AdjustContrast"; TensorFlow refuses it in
/// GraphDefs of version 2 and later, actorflow runs it): float32 `(x - mean) *
/// contrast_factor + mean` clamped to `[min_value, max_value]`, the mean per image and
/// channel of `images` (uint8, int32, int64, float32 or float64, rank >= 3, the last three
/// dimensions height, width, channels; int64 has no kernel, as in TensorFlow). The three
/// other inputs are float32 scalars. Errors when run: "input must be at least 3-D, got
/// shape[2,2]", "contrast_factor must be scalar: [2]", "min_value must be scalar: [2]",
/// "max_value must be scalar: [2]". TensorFlow registers no gradient.
Output adjust_contrast_v1(const Output& images, const Output& contrast_factor,
                          const Output& min_value, const Output& max_value,
                          std::string_view name = {});
/// `adjust_contrast_v1` with the scalars the float32 Consts "<op>/contrast_factor",
/// "<op>/min_value" and "<op>/max_value".
Output adjust_contrast_v1(const Output& images, float contrast_factor, float min_value,
                          float max_value, std::string_view name = {});

/// `tf.compat.v1.image.extract_glimpse(input, size, offsets, centered, normalized,
/// uniform_noise)`: op ExtractGlimpse (default name "ExtractGlimpse"). `input` float32
/// `[batch, height, width, channels]`, `size` int32 `[glimpse_height, glimpse_width]`,
/// `offsets` float32 `[batch, 2]` of (y, x): normalized offsets are fractions of the image,
/// centered ones relative to its centre (-1 to 1 when normalized), otherwise pixels; the
/// window's corner is the offset less half the window, truncated toward zero. A window
/// touching or crossing the border is filled with noise first: uniform over the image's
/// range (`noise` "uniform"), gaussian per channel ("gaussian", or "" with `uniform_noise`
/// false), or zeros ("zero"); the random noise is not TensorFlow's draw. Returns float32
/// `[batch, glimpse_height, glimpse_width, channels]`. Building fails for `uniform_noise`
/// with another `noise` ("The uniform_noise and noise should not be specified at the same
/// time"); errors when run: "input must be 4-dimensional (batch_size, height, width,
/// depth)[1,3,3]", "input must be a vector of size 2 (height, width)[3]", "first dimension
/// should be batch[2,2]", "second dimension should be of size 2 (y,x)[1,3]", "Expected a
/// non-negative size, got -2", "The noise could only be uniform, gaussian, or zero, gotfoo".
/// Not differentiable.
Output extract_glimpse(const Output& input, const Output& size, const Output& offsets,
                       bool centered = true, bool normalized = true, bool uniform_noise = true,
                       const std::string& noise = "uniform", std::string_view name = {});
/// `extract_glimpse` with `size` the int32 Const "<op>/size".
Output extract_glimpse(const Output& input, const std::array<std::int64_t, 2>& size,
                       const Output& offsets, bool centered = true, bool normalized = true,
                       bool uniform_noise = true, const std::string& noise = "uniform",
                       std::string_view name = {});

/// `tf.image.extract_glimpse(input, size, offsets, centered, normalized, noise)`: op
/// ExtractGlimpseV2 (default name "ExtractGlimpseV2", uniform_noise false). As
/// `extract_glimpse` except that only normalized and centered offsets lose half the window,
/// and unnormalized centered offsets are pixels from the centre. TensorFlow registers no
/// gradient.
Output extract_glimpse_v2(const Output& input, const Output& size, const Output& offsets,
                          bool centered = true, bool normalized = true,
                          const std::string& noise = "uniform", std::string_view name = {});
/// `extract_glimpse_v2` with `size` the int32 Const "<op>/size".
Output extract_glimpse_v2(const Output& input, const std::array<std::int64_t, 2>& size,
                          const Output& offsets, bool centered = true, bool normalized = true,
                          const std::string& noise = "uniform", std::string_view name = {});

/// The raw op ImageProjectiveTransformV2 (default name "ImageProjectiveTransformV2"): output
/// pixel (x, y) of image b reads the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) /
/// k), k = c0 x + c1 y + 1, from `transforms` float32 `[batch or 1, 8]` = [a0, a1, a2, b0,
/// b1, b2, c0, c1]; `interpolation` "NEAREST" or "BILINEAR"; points outside the image map
/// back by `fill_mode` "REFLECT", "WRAP", "NEAREST" or stay outside ("CONSTANT"), and pixels
/// outside read as 0. `images` uint8, int32, int64, float32, float64 or bfloat16 `[batch, h,
/// w, c]`, `output_shape` int32 `[2]`; returns `[batch, output_shape[0], output_shape[1], c]`
/// of images' dtype. Errors when run: "Input images must have rank 4", "Input transform
/// should be num_images x 8 or 1 x 8", "output shape must be 1-dimensional[2,2]", "output
/// shape must have two elements[3]", "output dimensions must be positive"; an unknown
/// interpolation or fill mode fails the kernel's creation ("Invalid interpolation CUBIC.
/// Supported types: NEAREST, BILINEAR"; TensorFlow logs it and runs on). Gradient (as
/// TensorFlow's image_ops.py): the same op on the incoming gradient with the inverted
/// transforms (MatrixInverse of the 3x3 matrices) and output_shape the images' height and
/// width; none for the transforms.
Output image_projective_transform_v2(const Output& images, const Output& transforms,
                                     const Output& output_shape, const std::string& interpolation,
                                     const std::string& fill_mode = "CONSTANT",
                                     std::string_view name = {});
/// The raw op ImageProjectiveTransformV3 (default name "ImageProjectiveTransformV3"):
/// `image_projective_transform_v2` with pixels outside the image reading `fill_value` (a
/// float32 scalar cast to the images' dtype; "fill_value must be a scalar[1]"). Gradient as
/// V2's, through V3 with fill_value 0.
Output image_projective_transform_v3(const Output& images, const Output& transforms,
                                     const Output& output_shape, const Output& fill_value,
                                     const std::string& interpolation,
                                     const std::string& fill_mode = "CONSTANT",
                                     std::string_view name = {});
/// `image_projective_transform_v3` with `output_shape` and `fill_value` the Consts
/// "<op>/output_shape" (int32) and "<op>/fill_value" (float32).
Output image_projective_transform_v3(const Output& images, const Output& transforms,
                                     const std::array<std::int64_t, 2>& output_shape,
                                     float fill_value, const std::string& interpolation,
                                     const std::string& fill_mode = "CONSTANT",
                                     std::string_view name = {});

/// The raw op ScaleAndTranslate (default name "ScaleAndTranslate"), what `tf.image.resize`
/// runs for its lanczos, gaussian and mitchellcubic methods: float32 `[batch, size[0],
/// size[1], channels]` where input pixel centre i + 0.5 lands on (i + 0.5) * scale +
/// translation per axis (`scale` and `translation` float32 `[2]`, rows first), resampled
/// with `kernel_type` "lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle",
/// "keyscubic" or "mitchellcubic" (case-insensitive), widened by 1 / scale when `antialias`
/// and shrinking; the weights of each output pixel are normalized, outputs whose centre maps
/// outside the input are 0. `images` uint8, int32, int64, float32, float64 or bfloat16.
/// Errors when run: "input must be 4-dimensional[2,2]", "output_shape_t must have two
/// elements[3]", "output dimensions must be positive", "image must have at least one
/// channel", "input image must be of non-zero size", "t must have two elements[3]", "Scale
/// must be greater than zero."; an unknown kernel fails the kernel's creation
/// ("Unrecognized kernel type: cubic"). Gradient: op ScaleAndTranslateGrad
/// ("<op>_grad/ScaleAndTranslateGrad") for the images, none for the rest.
Output scale_and_translate(const Output& images, const Output& size, const Output& scale,
                           const Output& translation, const std::string& kernel_type = "lanczos3",
                           bool antialias = true, std::string_view name = {});
/// `scale_and_translate` with the Consts "<op>/size" (int32), "<op>/scale" and
/// "<op>/translation" (float32).
Output scale_and_translate(const Output& images, const std::array<std::int64_t, 2>& size,
                           const std::array<float, 2>& scale,
                           const std::array<float, 2>& translation,
                           const std::string& kernel_type = "lanczos3", bool antialias = true,
                           std::string_view name = {});
/// The raw op ScaleAndTranslateGrad (default name "ScaleAndTranslateGrad"): the gradient of
/// `scale_and_translate` for `original_image`'s height and width, from `grads` (float32, as
/// `original_image`). Errors when run: "input_grad must be 4-dimensional[2,2]",
/// "original_image must be 4-dimensional[3]", "Scale must be greater than zero.". TensorFlow
/// registers no gradient of it.
Output scale_and_translate_grad(const Output& grads, const Output& original_image,
                                const Output& scale, const Output& translation,
                                const std::string& kernel_type = "lanczos3", bool antialias = true,
                                std::string_view name = {});

/// What `combined_non_max_suppression` returns.
struct CombinedNonMaxSuppressionOutputs {
  Output nmsed_boxes;       ///< float32 `[batch, N, 4]`
  Output nmsed_scores;      ///< float32 `[batch, N]`
  Output nmsed_classes;     ///< float32 `[batch, N]`: each box's class index
  Output valid_detections;  ///< int32 `[batch]`: how many of the N are real
};

/// `tf.image.combined_non_max_suppression(boxes, scores, max_output_size_per_class,
/// max_total_size, iou_threshold, score_threshold, pad_per_class, clip_boxes)`: op
/// CombinedNonMaxSuppression ("combined_non_max_suppression/CombinedNonMaxSuppression", the
/// thresholds the float32 Consts ".../iou_threshold" and ".../score_threshold",
/// max_total_size ".../Const", max_output_size_per_class "<op>/max_output_size_per_class").
/// `boxes` float32 `[batch, num_boxes, q, 4]` (q 1, or one box per class), `scores` float32
/// `[batch, num_boxes, num_classes]`. Per image and class, greedy hard NMS keeps at most
/// max_output_size_per_class boxes scoring above score_threshold; the best max_total_size of
/// all classes come out by descending score (TensorFlow's std::sort and priority queue, so
/// ties fall as there), clipped to [0, 1] with `clip_boxes`, zero-padded to N =
/// max_total_size, or with `pad_per_class` to min(max_total_size,
/// max_output_size_per_class * num_classes). Building fails for "max_total_size should be >
/// 0 " and a q that is neither 1 nor num_classes; errors when run: "max_size_per_class must
/// be positive", "max_total_size must be > 0", "iou_threshold must be in [0, 1]", "boxes
/// must have 4 columns", "scores has incompatible shape", "boxes and scores must have same
/// batch size", "third dimension of boxes must be either 1 or num classes". TensorFlow
/// registers no gradient.
CombinedNonMaxSuppressionOutputs combined_non_max_suppression(
    const Output& boxes, const Output& scores, std::int64_t max_output_size_per_class,
    std::int64_t max_total_size, float iou_threshold = 0.5f,
    float score_threshold = -std::numeric_limits<float>::infinity(), bool pad_per_class = false,
    bool clip_boxes = true, std::string_view name = {});

/// `tf.image.non_max_suppression_overlaps(overlaps, scores, max_output_size,
/// overlap_threshold, score_threshold)`: op NonMaxSuppressionWithOverlaps
/// ("non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps", overlap_threshold the
/// float32 Const ".../overlap_threshold", max_output_size and score_threshold Consts in the
/// op's scope). As `non_max_suppression` with the similarity of boxes i and j read from
/// `overlaps[i, j]` (float32 `[num_boxes, num_boxes]`) and no range check on the threshold.
/// Errors when run: "overlaps must be 2-D[3]", "overlaps must be square[3,4]", "scores has
/// incompatible shape (Dimensions must be equal, but are 3 and 2)", "output size must be
/// non-negative". Not differentiable.
Output non_max_suppression_with_overlaps(
    const Output& overlaps, const Output& scores, std::int64_t max_output_size,
    float overlap_threshold = 0.5f, float score_threshold = -std::numeric_limits<float>::infinity(),
    std::string_view name = {});

/// The attrs of the sample_distorted_bounding_box ops (TensorFlow's defaults).
struct DistortedBoxOptions {
  std::vector<float> aspect_ratio_range{0.75f, 1.33f};  ///< width / height of the crop
  std::vector<float> area_range{0.05f, 1.0f};           ///< fraction of the image's area
  std::int64_t max_attempts = 100;                      ///< crops tried before the image
  bool use_image_if_no_bounding_boxes = false;          ///< the image as box when none given
};

/// What the sample_distorted_bounding_box builders return.
struct SampleDistortedBoundingBoxOutputs {
  Output begin;   ///< `[offset_y, offset_x, 0]` of image_size's dtype
  Output size;    ///< `[target_height, target_width, -1]`
  Output bboxes;  ///< float32 `[1, 1, 4]`: the crop, normalized
};

/// `tf.image.sample_distorted_bounding_box(image_size, bounding_boxes, seed,
/// min_object_covered, ...)` (v2): op SampleDistortedBoundingBoxV2
/// ("sample_distorted_bounding_box/SampleDistortedBoundingBoxV2", min_object_covered the
/// float32 Const "<op>/min_object_covered"), stateful; seeds `g.get_seed(seed)` for a nonzero
/// `seed`, else (0, 0) (fresh random seeds). `image_size` uint8, int32 or int64 `[height,
/// width, channels]`, `bounding_boxes` float32 `[batch, N, 4]` normalized. Up to
/// max_attempts times a crop is drawn (aspect ratio uniform in the range, height uniform
/// between the area bounds, corner uniform) until it covers at least min_object_covered of
/// one box; else the whole image. Each run continues TensorFlow's Philox sequence for the
/// seeds (the same crops as TensorFlow's). Errors when run: "image_size must contain 3
/// elements[2]", "input boxes must be 3-dimensional [batch, num_boxes, coords]: [2,4]", "All
/// bounding box coordinates must be in [0.0, 1.0]: 1.5", "Min object covered must be
/// non-negative: -0.1", "No bounding boxes provided as input. One must enable
/// use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes."; bad attrs
/// fail the kernel's creation ("Area range must be less then or equal to 1.0: [0.05, 1.5]",
/// "Max attempts must be non-negative: 0"). Not differentiable.
SampleDistortedBoundingBoxOutputs sample_distorted_bounding_box(
    const Output& image_size, const Output& bounding_boxes, std::int64_t seed = 0,
    float min_object_covered = 0.1f, const DistortedBoxOptions& options = {},
    std::string_view name = {});
/// The raw op SampleDistortedBoundingBox (default name "SampleDistortedBoundingBox"):
/// min_object_covered an attr and (seed, seed2) the attrs as given. Not differentiable.
SampleDistortedBoundingBoxOutputs sample_distorted_bounding_box_v1(
    const Output& image_size, const Output& bounding_boxes, std::int64_t seed = 0,
    std::int64_t seed2 = 0, float min_object_covered = 0.1f,
    const DistortedBoxOptions& options = {}, std::string_view name = {});
/// `tf.image.stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
/// min_object_covered, ...)`: op StatelessSampleDistortedBoundingBox
/// ("stateless_sample_distorted_bounding_box/StatelessSampleDistortedBoundingBox"), `seed` an
/// int32 or int64 `[2]`: the same crop for the same inputs, bit for bit TensorFlow's
/// (GenerateKey's Philox key and counter). Errors as `sample_distorted_bounding_box`'s and
/// "seed must have shape [2], not [3]". TensorFlow registers no gradient.
SampleDistortedBoundingBoxOutputs stateless_sample_distorted_bounding_box(
    const Output& image_size, const Output& bounding_boxes, const Output& seed,
    float min_object_covered = 0.1f, const DistortedBoxOptions& options = {},
    std::string_view name = {});

/// The raw op RandomCrop (default name "RandomCrop"; TensorFlow refuses it in GraphDefs of
/// version 8 and later and `tf.image.random_crop` is Python, actorflow runs it), stateful:
/// the `[size[0], size[1], channels]` window of `image` (uint8, int32, int64, float32 or
/// float64 `[h, w, channels]`; `size` int64 `[2]`) at a random corner, drawn as TensorFlow's
/// for (seed, seed2). Errors when run: "input must be 3-dimensional[2,2]", "shape_t must have
/// two elements[3]", FailedPrecondition "width must be >= target_width: width = 3,
/// target_width = 4". Not differentiable.
Output random_crop(const Output& image, const Output& size, std::int64_t seed = 0,
                   std::int64_t seed2 = 0, std::string_view name = {});

}  // namespace af::image
