#pragma once

// TensorFlow's util/image_resizer_state.h for the resize kernels (image_resize_ops.cpp,
// image_proc_ops.cpp): the align_corners / half_pixel_centers attrs, the scale between sizes,
// and the checks and output allocation of a forward resize and of a resize gradient, with
// TensorFlow's messages.
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"

namespace af::detail {

inline constexpr const char* kBothModesMessage =
    "If half_pixel_centers is True, align_corners must be False.";

// CalculateResizeScale: the step in the input per step in the output (align_corners only
// between sizes above 1).
inline float resize_scale(Index in_size, Index out_size, bool align_corners) {
  return (align_corners && in_size > 1 && out_size > 1)
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

// A resize kernel: the attrs align_corners and half_pixel_centers every one reads (false
// where absent, as their defaults).
class ResizeKernel : public StatusKernel {
 public:
  explicit ResizeKernel(OpKernelConstruction& c) : StatusKernel(c) {
    if (!c.get_attr("align_corners", &align_corners_).ok()) align_corners_ = false;
    if (!c.get_attr("half_pixel_centers", &half_pixel_centers_).ok()) half_pixel_centers_ = false;
  }

 protected:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// ImageResizerState: validates images (input 0) and size (input 1) of a forward resize and
// allocates output 0 of dtype `out_type`, [batch, out_height, out_width, channels].
struct ResizerState {
  Index batch = 0, in_height = 0, in_width = 0, channels = 0;
  Index out_height = 0, out_width = 0;
  float height_scale = 0, width_scale = 0;
  Tensor* output = nullptr;

  Status validate_and_create_output(OpKernelContext& ctx, DType out_type, bool align_corners,
                                    bool half_pixel_centers) {
    if (half_pixel_centers && align_corners) return invalid_argument(kBothModesMessage);
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
    batch = input.shape().dim(0);
    channels = input.shape().dim(3);
    if (channels <= 0) return invalid_argument("image must have at least one channel");
    if (input.shape().dim(1) <= 0 || input.shape().dim(2) <= 0)
      return invalid_argument("input image must be of non-zero size");
    constexpr Index kInt32Max = std::numeric_limits<std::int32_t>::max();
    if (input.shape().dim(1) >= kInt32Max || input.shape().dim(2) >= kInt32Max)
      return invalid_argument("input sizes must be between 0 and max int32");
    in_height = input.shape().dim(1);
    in_width = input.shape().dim(2);
    const Tensor& size = ctx.input(1);
    if (size.rank() != 1)
      return invalid_argument("shape_t must be 1-dimensional" + size.shape().to_string());
    if (size.num_elements() != 2)
      return invalid_argument("shape_t must have two elements" + size.shape().to_string());
    const std::vector<std::int64_t> sizes = detail::index_values(size);
    out_height = sizes[0];
    out_width = sizes[1];
    if (out_height <= 0 || out_width <= 0)
      return invalid_argument("output dimensions must be positive");
    height_scale = resize_scale(in_height, out_height, align_corners);
    width_scale = resize_scale(in_width, out_width, align_corners);
    if (std::ceil(static_cast<float>(out_height - 1) * height_scale) >
        static_cast<float>(std::numeric_limits<std::int64_t>::max()))
      return invalid_argument("input image height scale would cause an overflow");
    if (std::ceil(static_cast<float>(out_width - 1) * width_scale) > static_cast<float>(INT_MAX))
      return invalid_argument("input image width scale would cause an overflow");
    output = &ctx.allocate_output(0, out_type, Shape{batch, out_height, out_width, channels});
    return {};
  }
};

// ImageResizerGradientState: validates grads (input 0, float32) against original_image
// (input 1) and allocates output 0 of T, [batch, original height, original width, channels].
struct ResizerGradientState {
  Index batch = 0, channels = 0, resized_height = 0, resized_width = 0;
  Index original_height = 0, original_width = 0;
  float height_scale = 0, width_scale = 0;
  Tensor* output = nullptr;

  Status validate_and_create_output(OpKernelContext& ctx, DType out_type, bool align_corners,
                                    bool half_pixel_centers) {
    if (half_pixel_centers && align_corners) return invalid_argument(kBothModesMessage);
    const Tensor& grads = ctx.input(0);
    if (grads.rank() != 4)
      return invalid_argument("input_grad must be 4-dimensional" + grads.shape().to_string());
    if (grads.dtype() != DType::float32)
      return invalid_argument("input_grad must be of type float" +
                              std::string(data_type_string(grads.dtype())));
    batch = grads.shape().dim(0);
    channels = grads.shape().dim(3);
    resized_height = grads.shape().dim(1);
    resized_width = grads.shape().dim(2);
    if (resized_height <= 0 || resized_width <= 0)
      return invalid_argument("resized dimensions must be positive");
    const Shape& original = ctx.input(1).shape();
    if (original.rank() != 4)
      return invalid_argument("original_image must be 4-dimensional" + original.to_string());
    original_height = original.dim(1);
    original_width = original.dim(2);
    if (original_height <= 0 || original_width <= 0)
      return invalid_argument("original dimensions must be positive");
    constexpr Index kInt32Max = std::numeric_limits<std::int32_t>::max();
    if (original_height >= kInt32Max || original_width >= kInt32Max)
      return invalid_argument("original sizes must be between 0 and max int32");
    height_scale = resize_scale(original_height, resized_height, align_corners);
    width_scale = resize_scale(original_width, resized_width, align_corners);
    output =
        &ctx.allocate_output(0, out_type, Shape{batch, original_height, original_width, channels});
    return {};
  }
};

}  // namespace af::detail
