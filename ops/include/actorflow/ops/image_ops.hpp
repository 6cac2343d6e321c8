#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Resizing batches of images (TensorFlow 1.x's `tf.compat.v1.image.resize_bilinear` and
/// `resize_nearest_neighbor`, image/resize_bilinear_op.cc and resize_nearest_neighbor_op.cc).
///
/// Both take `images` of shape `[batch, height, width, channels]` and `size`, an int32 `[2]`
/// holding `[new_height, new_width]`, and give `[batch, new_height, new_width, channels]`
/// (height and width known statically when `size` is a Const). Output pixel `(y, x)` samples
/// the input at `y * scale` (and likewise for x), where `scale` is `in / out`, or
/// `(in - 1) / (out - 1)` with `align_corners` (corner pixels then line up exactly); with
/// `half_pixel_centers` pixel centres sit at `+ 0.5` (`(y + 0.5) * scale - 0.5`), as
/// `tf.image.resize` in TensorFlow 2 does. The two modes exclude each other.
///
/// Errors when the step runs (InvalidArgument, the op named): "If half_pixel_centers is True,
/// align_corners must be False.", "input must be 4-dimensional[2,3,4]", "image must have at
/// least one channel", "input image must be of non-zero size", "shape_t must be
/// 1-dimensional[1,2]", "shape_t must have two elements[3]", "output dimensions must be
/// positive". Building fails (InvalidArgumentError) when a rank is known to be wrong ("Shape
/// must be rank 4 but is rank 3", "Dimension must be 2 but is 3") or a dtype is not allowed.
namespace af::image {

/// `tf.compat.v1.image.resize_bilinear(images, size, align_corners, half_pixel_centers)`:
/// op ResizeBilinear (default name "ResizeBilinear"). `images` is float32, float64, int32,
/// int64, uint8 or bfloat16; the result is always float32, each pixel interpolated in float
/// from the four input pixels around its source point exactly as TensorFlow's CPU kernel
/// (a resize to the same size is a cast). Errors: see the namespace. Gradient: op
/// ResizeBilinearGrad ("<op>_grad/ResizeBilinearGrad") for `images` of a floating dtype
/// (float32, float64, bfloat16), none for `size`; ResizeBilinearGrad itself is not
/// differentiable.
Output resize_bilinear(const Output& images, const Output& size, bool align_corners = false,
                       bool half_pixel_centers = false, std::string_view name = {});
/// `resize_bilinear` with `size` the int32 Const "<op>/size" made of `{new_height, new_width}`,
/// as Python converts a list. Throws InvalidArgumentError when a value does not fit int32.
Output resize_bilinear(const Output& images, const std::array<std::int64_t, 2>& size,
                       bool align_corners = false, bool half_pixel_centers = false,
                       std::string_view name = {});

/// `tf.compat.v1.image.resize_nearest_neighbor(images, size, align_corners,
/// half_pixel_centers)`: op ResizeNearestNeighbor (default name "ResizeNearestNeighbor").
/// `images` is float32, float64, int32, int64, uint8 or bfloat16, and the result keeps that
/// dtype: each pixel is copied from the input pixel at its source point, floored (rounded half
/// away from zero with `align_corners`), clamped to the image. Errors: see the namespace, and
/// "nearest neighbor requires max height & width of 2^24". Gradient: op
/// ResizeNearestNeighborGrad ("<op>_grad/ResizeNearestNeighborGrad", its size the Const
/// "<that op>/size" when the input's height and width are static, else a strided slice of its
/// Shape) for float32, float64 and bfloat16 images, adding the gradient of each output pixel
/// to the input pixel it came from; none for `size`.
Output resize_nearest_neighbor(const Output& images, const Output& size, bool align_corners = false,
                               bool half_pixel_centers = false, std::string_view name = {});
/// `resize_nearest_neighbor` with `size` the int32 Const "<op>/size" made of `{new_height,
/// new_width}`. Throws InvalidArgumentError when a value does not fit int32.
Output resize_nearest_neighbor(const Output& images, const std::array<std::int64_t, 2>& size,
                               bool align_corners = false, bool half_pixel_centers = false,
                               std::string_view name = {});

}  // namespace af::image
