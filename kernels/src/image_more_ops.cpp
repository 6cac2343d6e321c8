// DrawBoundingBoxes, DrawBoundingBoxesV2, AdjustContrast (the deprecated v1 op with a value
// range), ExtractGlimpse, ExtractGlimpseV2, ImageProjectiveTransformV2 and
// ImageProjectiveTransformV3: CPU kernels with TensorFlow's checks, messages and arithmetic
// (kernels/image/draw_bounding_box_op.cc, adjust_contrast_op.{h,cc}, attention_ops.cc with
// eigen_attention.h, image_ops.{h,cc}). Their definitions are in
// ops/src/defs/image_more_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// -- conversions as TensorFlow's compiled code does them ------------------------------------

// The element as float (bfloat16 exactly, integers converted).
template <class T>
float to_float(T v) {
  return static_cast<float>(v);
}

// static_cast<T>(float): truncation for the integers, round to nearest even for bfloat16.
// Values an integer cannot hold give what x86's cvttss2si gives (the "integer indefinite"
// value, cut to the type), as TensorFlow's compiled static_cast does there.
template <class T>
T from_float(float v) {
  if constexpr (is_half_like_v<T>) {
    return T(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    if (!(v >= -0x1p63f && v < 0x1p63f)) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
  } else {
    // int32 and uint8 go through a 32-bit conversion.
    if (!(v >= -0x1p31f && v < 0x1p31f))
      return static_cast<T>(std::numeric_limits<std::int32_t>::min());
    return static_cast<T>(static_cast<std::int32_t>(v));
  }
}

// static_cast<int64_t>(float) as x86 computes it (INT64_MIN for NaN and out of range).
Index truncate_to_index(float v) { return from_float<std::int64_t>(v); }

// -- DrawBoundingBoxes ------------------------------------------------------------------------

// DefaultColorTable: ten RGBA colours; a grayscale image draws every box in 1.
std::vector<std::vector<float>> default_color_table(Index depth) {
  std::vector<std::vector<float>> table = {
      {1, 1, 0, 1},     {0, 0, 1, 1},   {1, 0, 0, 1},   {0, 1, 0, 1}, {0.5, 0, 0.5, 1},
      {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}};
  if (depth == 1)
    for (auto& color : table) color[0] = 1;
  return table;
}

// DrawBoundingBoxes(images, boxes) and DrawBoundingBoxesV2(images, boxes, colors): a copy of
// the images with each box's outline drawn one pixel wide in the colour of its index (cycling
// through `colors`, or the default table when V1 or `colors` is empty). A box's corners are
// `y * (height - 1)` and `x * (width - 1)` truncated; inverted boxes and boxes wholly outside
// the image are skipped (TensorFlow logs a warning), edges outside the image are not drawn.
template <class T>
class DrawBoundingBoxesOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& images = ctx.input(0);
    const Tensor& boxes = ctx.input(1);
    if (images.rank() != 4) return invalid_argument("The rank of the images should be 4");
    if (boxes.rank() != 3) return invalid_argument("The rank of the boxes tensor should be 3");
    if (images.shape().dim(0) != boxes.shape().dim(0))
      return invalid_argument("The batch sizes should be the same");
    const Index depth = images.shape().dim(3);
    if (depth != 4 && depth != 1 && depth != 3)
      return invalid_argument("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
    if (boxes.shape().dim(2) != 4)
      return invalid_argument("The size of the third dimension of the box must be 4. Received: " +
                              std::to_string(boxes.shape().dim(2)));
    const Index batch = images.shape().dim(0);
    const Index height = images.shape().dim(1);
    const Index width = images.shape().dim(2);
    std::vector<std::vector<float>> colors;
    if (ctx.num_inputs() == 3) {
      const Tensor& colors_t = ctx.input(2);
      if (colors_t.rank() != 2)
        return invalid_argument("colors must be a 2-D matrix" + colors_t.shape().to_string());
      if (colors_t.shape().dim(1) < depth)
        return invalid_argument(
            "colors must have equal or more channels than the image provided: " +
            colors_t.shape().to_string());
      const float* c = colors_t.data<float>();
      const Index columns = colors_t.shape().dim(1);
      for (Index i = 0; colors_t.num_elements() != 0 && i < colors_t.shape().dim(0); ++i)
        colors.emplace_back(c + i * columns, c + i * columns + depth);
    }
    if (colors.empty()) colors = default_color_table(depth);

    Tensor& output = ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
    std::copy_n(images.data<T>(), images.num_elements(), output.data<T>());
    T* canvas = output.data<T>();
    const float* box = boxes.data<float>();
    const Index num_boxes = boxes.shape().dim(1);
    auto paint = [&](Index b, Index row, Index col, const std::vector<float>& color) {
      T* pixel = canvas + ((b * height + row) * width + col) * depth;
      for (Index c = 0; c < depth; ++c)
        pixel[c] = from_float<T>(color[static_cast<std::size_t>(c)]);
    };
    for (Index b = 0; b < batch; ++b) {
      for (Index bb = 0; bb < num_boxes; ++bb) {
        const auto& color = colors[static_cast<std::size_t>(bb) % colors.size()];
        const float* corners = box + (b * num_boxes + bb) * 4;
        // float * int64 in float, then truncated, as TensorFlow's int64 initialisers.
        const Index min_row = truncate_to_index(corners[0] * static_cast<float>(height - 1));
        const Index max_row = truncate_to_index(corners[2] * static_cast<float>(height - 1));
        const Index min_col = truncate_to_index(corners[1] * static_cast<float>(width - 1));
        const Index max_col = truncate_to_index(corners[3] * static_cast<float>(width - 1));
        const Index min_row_clamp = std::max<Index>(min_row, 0);
        const Index max_row_clamp = std::min<Index>(max_row, height - 1);
        const Index min_col_clamp = std::max<Index>(min_col, 0);
        const Index max_col_clamp = std::min<Index>(max_col, width - 1);
        if (min_row > max_row || min_col > max_col) continue;  // inverted: not drawn
        if (min_row >= height || max_row < 0 || min_col >= width || max_col < 0) continue;
        if (min_row >= 0)
          for (Index j = min_col_clamp; j <= max_col_clamp; ++j) paint(b, min_row, j, color);
        if (max_row < height)
          for (Index j = min_col_clamp; j <= max_col_clamp; ++j) paint(b, max_row, j, color);
        if (min_col >= 0)
          for (Index i = min_row_clamp; i <= max_row_clamp; ++i) paint(b, i, min_col, color);
        if (max_col < width)
          for (Index i = min_row_clamp; i <= max_row_clamp; ++i) paint(b, i, max_col, color);
      }
    }
    return {};
  }
};

// -- AdjustContrast ---------------------------------------------------------------------------

// AdjustContrast(images, contrast_factor, min_value, max_value), deprecated since GraphDef
// version 2: float images `(x - mean) * contrast_factor + mean` clamped to [min_value,
// max_value], the mean per image and channel. functor::AdjustContrast sums in float over the
// width outermost and the height innermost (Eigen's reduction order), then divides by
// height * width; the clamp is Eigen's cwiseMin then cwiseMax (NaN passes through).
template <class T>
class AdjustContrastOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& factor = ctx.input(1);
    const Tensor& min_value = ctx.input(2);
    const Tensor& max_value = ctx.input(3);
    if (input.rank() < 3)
      return invalid_argument("input must be at least 3-D, got shape" + input.shape().to_string());
    const Index height = input.shape().dim(input.rank() - 3);
    const Index width = input.shape().dim(input.rank() - 2);
    const Index channels = input.shape().dim(input.rank() - 1);
    if (factor.rank() != 0)
      return invalid_argument("contrast_factor must be scalar: " + factor.shape().to_string());
    if (min_value.rank() != 0)
      return invalid_argument("min_value must be scalar: " + min_value.shape().to_string());
    if (max_value.rank() != 0)
      return invalid_argument("max_value must be scalar: " + max_value.shape().to_string());
    Tensor& output = ctx.allocate_output_for_overwrite(0, DType::float32, input.shape());
    if (input.num_elements() == 0) return {};
    const Index batch = input.num_elements() / (height * width * channels);
    const float f = factor.data<float>()[0];
    const float lo = min_value.data<float>()[0];
    const float hi = max_value.data<float>()[0];
    const float num_reduced = static_cast<float>(height * width);
    const T* in = input.data<T>();
    float* out = output.data<float>();
    for (Index b = 0; b < batch; ++b) {
      const Index base = b * height * width * channels;
      for (Index c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (Index x = 0; x < width; ++x)
          for (Index y = 0; y < height; ++y)
            sum += to_float(in[base + (y * width + x) * channels + c]);
        const float mean = sum / num_reduced;
        for (Index p = 0; p < height * width; ++p) {
          const Index at = base + p * channels + c;
          float v = (to_float(in[at]) - mean) * f + mean;
          v = hi < v ? hi : v;  // cwiseMin(max)
          v = v < lo ? lo : v;  // cwiseMax(min)
          out[at] = v;
        }
      }
    }
    return {};
  }
};

// -- ExtractGlimpse ---------------------------------------------------------------------------

// How the part of a glimpse outside the image is filled (Eigen::ExtractGlimpsesNoiseMode).
enum class GlimpseNoise { uniform, gaussian, zero };

// The generator of the noise TensorFlow draws from Eigen's unseeded generators: the values
// are random in TensorFlow too, so only their distribution matters.
std::mt19937& noise_engine() {
  thread_local std::mt19937 engine{std::random_device{}()};
  return engine;
}

// ExtractGlimpse(input, size, offsets) and ExtractGlimpseV2: the [glimpse_height,
// glimpse_width] window of each image at its (y, x) offset, GlimpseExtractionOp's
// arithmetic: normalized offsets scale by the image size, centered ones are relative to the
// image centre, and the window's top-left corner is the offset truncated toward zero (V1
// always subtracts half the window; V2 only for normalized and centered offsets). A window
// that touches or crosses the border is first filled with noise: uniform between the image's
// minimum and maximum, gaussian with each channel's mean and deviation clipped to its range,
// or zeros; then the covered part is copied.
class ExtractGlimpseOp : public StatusKernel {
 public:
  ExtractGlimpseOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    version_ = c.def.op == "ExtractGlimpse" ? 1 : 2;
    bool uniform_noise = true;
    std::string noise = "uniform";
    if (*s = c.get_attr("normalized", &normalized_); !s->ok()) return;
    if (*s = c.get_attr("centered", &centered_); !s->ok()) return;
    if (*s = c.get_attr("uniform_noise", &uniform_noise); !s->ok()) return;
    if (*s = c.get_attr("noise", &noise); !s->ok()) return;
    if (uniform_noise && !noise.empty() && noise != "uniform") {
      *s = invalid_argument("The uniform_noise and noise could not be specified at the same time");
      return;
    }
    if (noise.empty()) {
      noise_ = uniform_noise ? GlimpseNoise::uniform : GlimpseNoise::gaussian;
    } else if (noise == "uniform") {
      noise_ = GlimpseNoise::uniform;
    } else if (noise == "gaussian") {
      noise_ = GlimpseNoise::gaussian;
    } else if (noise == "zero") {
      noise_ = GlimpseNoise::zero;
    } else {
      *s = invalid_argument("The noise could only be uniform, gaussian, or zero, got" + noise);
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional (batch_size, height, width, depth)" +
                              input.shape().to_string());
    const Index batch = input.shape().dim(0);
    const Tensor& window = ctx.input(1);
    if (window.rank() != 1 || window.shape().dim(0) != 2)
      return invalid_argument("input must be a vector of size 2 (height, width)" +
                              window.shape().to_string());
    const Index glimpse_height = window.data<std::int32_t>()[0];
    const Index glimpse_width = window.data<std::int32_t>()[1];
    for (Index d : {glimpse_height, glimpse_width})
      if (d < 0) return invalid_argument("Expected a non-negative size, got " + std::to_string(d));
    const Tensor& offsets = ctx.input(2);
    if (offsets.rank() != 2)
      return invalid_argument("input must be a matrix" + offsets.shape().to_string());
    if (offsets.shape().dim(0) != batch)
      return invalid_argument("first dimension should be batch" + offsets.shape().to_string());
    if (offsets.shape().dim(1) != 2)
      return invalid_argument("second dimension should be of size 2 (y,x)" +
                              offsets.shape().to_string());
    const Index height = input.shape().dim(1);
    const Index width = input.shape().dim(2);
    const Index channels = input.shape().dim(3);
    Tensor& output = ctx.allocate_output(0, DType::float32,
                                         Shape{batch, glimpse_height, glimpse_width, channels});
    if (output.num_elements() == 0) return {};
    const float* in = input.data<float>();
    float* out = output.data<float>();
    const float* off = offsets.data<float>();
    const Index in_image = height * width * channels;
    const Index out_image = glimpse_height * glimpse_width * channels;
    for (Index i = 0; i < batch; ++i) {
      float y = off[i * 2];
      float x = off[i * 2 + 1];
      place(x, width, glimpse_width);
      place(y, height, glimpse_height);
      const Index offset_x = truncate_to_index(x);
      const Index offset_y = truncate_to_index(y);
      // slice_offset, slice_extent and base_offset of GlimpseExtractionOp, per axis.
      Axis ax = clip(offset_x, glimpse_width, width);
      Axis ay = clip(offset_y, glimpse_height, height);
      const float* image = in + i * in_image;
      float* glimpse = out + i * out_image;
      if (ax.partial || ay.partial) {
        fill_noise(image, height * width, channels, glimpse, glimpse_height * glimpse_width);
        if (ax.visible == 0 || ay.visible == 0) continue;
      }
      for (Index r = 0; r < ay.extent; ++r)
        for (Index col = 0; col < ax.extent; ++col)
          std::copy_n(image + ((ay.source + r) * width + ax.source + col) * channels, channels,
                      glimpse + ((ay.base + r) * glimpse_width + ax.base + col) * channels);
    }
    return {};
  }

 private:
  // One axis of a glimpse: where the copied part starts in the image (`source`) and in the
  // glimpse (`base`), its length, the glimpse's length inside the image, and whether the
  // glimpse reaches the border.
  struct Axis {
    Index source = 0, base = 0, extent = 0, visible = 0;
    bool partial = false;
  };

  static Axis clip(Index offset, Index size, Index image) {
    Axis a;
    a.source = offset;
    a.extent = size;
    a.visible = size;
    if (offset < 0) {
      a.source = 0;
      a.visible = std::max<Index>(0, size + offset);
      a.extent = a.visible;
      a.base = size - a.visible;
      a.partial = true;
    } else if (offset + size >= image) {
      a.visible = std::max<Index>(0, image - offset);
      a.extent = a.visible;
      a.partial = true;
    }
    a.extent = std::min(image, a.extent);
    return a;
  }

  // The window's corner on one axis from its offset, in float as TensorFlow.
  void place(float& v, Index image, Index size) const {
    const auto image_f = static_cast<float>(image);
    const auto size_f = static_cast<float>(size);
    const bool remove_half = version_ == 1 || (normalized_ && centered_);
    if (normalized_) v *= image_f;
    if (centered_ && (normalized_ || version_ == 1)) {
      v /= 2.0f;
      v += image_f / 2.0f;
    } else if (centered_) {
      v += image_f / 2.0f;
    }
    if (remove_half) v -= size_f / 2.0f;
  }

  // Fills a glimpse of `pixels` pixels with the noise of the image of `image_pixels` pixels.
  void fill_noise(const float* image, Index image_pixels, Index channels, float* glimpse,
                  Index pixels) const {
    if (noise_ == GlimpseNoise::zero) {
      std::fill_n(glimpse, pixels * channels, 0.0f);
      return;
    }
    if (image_pixels * channels == 0) {
      // Eigen reduces an empty image to infinities and 0 / 0: the noise is NaN.
      std::fill_n(glimpse, pixels * channels, std::numeric_limits<float>::quiet_NaN());
      return;
    }
    std::mt19937& engine = noise_engine();
    if (noise_ == GlimpseNoise::uniform) {
      const auto [lo, hi] = std::minmax_element(image, image + image_pixels * channels);
      const float range = *hi - *lo;
      std::uniform_real_distribution<float> unit(0.0f, 1.0f);
      for (Index k = 0; k < pixels * channels; ++k) glimpse[k] = *lo + unit(engine) * range;
      return;
    }
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (Index c = 0; c < channels; ++c) {
      float sum = 0.0f, lo = image[c], hi = image[c];
      for (Index p = 0; p < image_pixels; ++p) {
        const float v = image[p * channels + c];
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const float mean = sum / static_cast<float>(image_pixels);
      float squares = 0.0f;
      for (Index p = 0; p < image_pixels; ++p) {
        const float d = image[p * channels + c] - mean;
        squares += d * d;
      }
      const float sigma = std::sqrt(squares / static_cast<float>(image_pixels));
      for (Index p = 0; p < pixels; ++p)
        glimpse[p * channels + c] = std::max(std::min(mean + normal(engine) * sigma, hi), lo);
    }
  }

  int version_ = 1;
  bool normalized_ = true;
  bool centered_ = true;
  GlimpseNoise noise_ = GlimpseNoise::uniform;
};

// -- ImageProjectiveTransform -----------------------------------------------------------------

enum class Interpolation { nearest, bilinear };
enum class FillMode { reflect, wrap, constant, nearest };

// MapCoordinate: an input coordinate outside [0, len - 1] brought back as scipy.ndimage does
// (reflect [dcba|abcd|dcba], wrap [abcd|abcd|abcd], nearest: clamped) or kept (constant). The
// arithmetic mixes float and int64 as TensorFlow's functors do; the clamp is Eigen's
// scalar_clamp_op (max, then min: -1 for an empty axis, NaN kept).
float map_coordinate(FillMode mode, float in, Index len) {
  const float last = static_cast<float>(len - 1);
  switch (mode) {
    case FillMode::reflect:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const Index sz2 = 2 * len;
          if (in < static_cast<float>(sz2))
            in = static_cast<float>(sz2 * static_cast<Index>(-in / static_cast<float>(sz2))) + in;
          in = in < static_cast<float>(-len) ? in + static_cast<float>(sz2) : -in - 1;
        }
      } else if (in > last) {
        if (len <= 1) {
          in = 0;
        } else {
          const Index sz2 = 2 * len;
          in -= static_cast<float>(sz2 * static_cast<Index>(in / static_cast<float>(sz2)));
          if (in >= static_cast<float>(len)) in = static_cast<float>(sz2) - in - 1;
        }
      }
      return std::min(std::max(in, 0.0f), last);
    case FillMode::wrap:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const Index sz = len - 1;
          in += static_cast<float>(len * (static_cast<Index>(-in / static_cast<float>(sz)) + 1));
        }
      } else if (in > last) {
        if (len <= 1) {
          in = 0;
        } else {
          const Index sz = len - 1;
          in -= static_cast<float>(len * static_cast<Index>(in / static_cast<float>(sz)));
        }
      }
      return std::min(std::max(in, 0.0f), last);
    case FillMode::nearest:
      return std::min(std::max(in, 0.0f), last);
    case FillMode::constant:
      break;
  }
  return in;
}

// ImageProjectiveTransformV2(images, transforms, output_shape) and V3 (fill_value): output
// pixel (x, y) samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x
// + c1 y + 1 (the fill value where k is 0), mapped by fill_mode and read by nearest (std::round)
// or bilinear interpolation in float; pixels outside the image read as the fill value (0 for
// V2). One transform row serves every image, or one per image.
template <class T>
class ImageProjectiveTransformOp : public StatusKernel {
 public:
  ImageProjectiveTransformOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string interpolation;
    if (*s = c.get_attr("interpolation", &interpolation); !s->ok()) return;
    std::string mode = "CONSTANT";
    if (*s = c.get_attr("fill_mode", &mode); !s->ok()) return;
    // TensorFlow logs these and runs with an unset member; refused here.
    if (interpolation == "NEAREST") {
      interpolation_ = Interpolation::nearest;
    } else if (interpolation == "BILINEAR") {
      interpolation_ = Interpolation::bilinear;
    } else {
      *s = invalid_argument("Invalid interpolation " + interpolation +
                            ". Supported types: NEAREST, BILINEAR");
      return;
    }
    if (mode == "REFLECT") {
      mode_ = FillMode::reflect;
    } else if (mode == "WRAP") {
      mode_ = FillMode::wrap;
    } else if (mode == "CONSTANT") {
      mode_ = FillMode::constant;
    } else if (mode == "NEAREST") {
      mode_ = FillMode::nearest;
    } else {
      *s = invalid_argument("Invalid mode " + mode +
                            ". Supported types: REFLECT, WRAP, CONSTANT, NEAREST");
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& images = ctx.input(0);
    const Tensor& transforms = ctx.input(1);
    if (images.rank() != 4) return invalid_argument("Input images must have rank 4");
    if (transforms.rank() != 2 ||
        (transforms.shape().dim(0) != images.shape().dim(0) && transforms.shape().dim(0) != 1) ||
        transforms.shape().dim(1) != 8)
      return invalid_argument("Input transform should be num_images x 8 or 1 x 8");
    const Tensor& shape_t = ctx.input(2);
    if (shape_t.rank() != 1)
      return invalid_argument("output shape must be 1-dimensional" + shape_t.shape().to_string());
    if (shape_t.num_elements() != 2)
      return invalid_argument("output shape must have two elements" + shape_t.shape().to_string());
    const Index out_height = shape_t.data<std::int32_t>()[0];
    const Index out_width = shape_t.data<std::int32_t>()[1];
    if (out_height <= 0 || out_width <= 0)
      return invalid_argument("output dimensions must be positive");
    T fill_value{};
    if (ctx.num_inputs() >= 4) {
      const Tensor& fill_t = ctx.input(3);
      if (fill_t.rank() != 0)
        return invalid_argument("fill_value must be a scalar" + fill_t.shape().to_string());
      fill_value = from_float<T>(fill_t.data<float>()[0]);
    }
    const Index batch = images.shape().dim(0);
    const Index height = images.shape().dim(1);
    const Index width = images.shape().dim(2);
    const Index channels = images.shape().dim(3);
    Tensor& output = ctx.allocate_output_for_overwrite(
        0, images.dtype(), Shape{batch, out_height, out_width, channels});
    const T* in = images.data<T>();
    T* out = output.data<T>();
    const float* all = transforms.data<float>();
    auto read = [&](Index b, Index y, Index x, Index c) -> T {
      return (0 <= y && y < height && 0 <= x && x < width)
                 ? in[((b * height + y) * width + x) * channels + c]
                 : fill_value;
    };
    for (Index b = 0; b < batch; ++b) {
      const float* t = transforms.shape().dim(0) == 1 ? all : all + 8 * b;
      for (Index oy = 0; oy < out_height; ++oy) {
        for (Index ox = 0; ox < out_width; ++ox) {
          T* pixel = out + ((b * out_height + oy) * out_width + ox) * channels;
          const auto fx = static_cast<float>(ox), fy = static_cast<float>(oy);
          const float projection = t[6] * fx + t[7] * fy + 1.f;
          if (projection == 0) {
            std::fill_n(pixel, channels, fill_value);
            continue;
          }
          const float input_x = (t[0] * fx + t[1] * fy + t[2]) / projection;
          const float input_y = (t[3] * fx + t[4] * fy + t[5]) / projection;
          const float x = map_coordinate(mode_, input_x, width);
          const float y = map_coordinate(mode_, input_y, height);
          for (Index c = 0; c < channels; ++c) {
            if (interpolation_ == Interpolation::nearest) {
              pixel[c] =
                  read(b, truncate_to_index(std::round(y)), truncate_to_index(std::round(x)), c);
              continue;
            }
            const float y_floor = std::floor(y), x_floor = std::floor(x);
            const float y_ceil = y_floor + 1, x_ceil = x_floor + 1;
            const Index yf = truncate_to_index(y_floor), yc = truncate_to_index(y_ceil);
            const Index xf = truncate_to_index(x_floor), xc = truncate_to_index(x_ceil);
            const float value_yfloor = (x_ceil - x) * to_float(read(b, yf, xf, c)) +
                                       (x - x_floor) * to_float(read(b, yf, xc, c));
            const float value_yceil = (x_ceil - x) * to_float(read(b, yc, xf, c)) +
                                      (x - x_floor) * to_float(read(b, yc, xc, c));
            pixel[c] = from_float<T>((y_ceil - y) * value_yfloor + (y - y_floor) * value_yceil);
          }
        }
      }
    }
    return {};
  }

 private:
  Interpolation interpolation_ = Interpolation::nearest;
  FillMode mode_ = FillMode::constant;
};

template <template <class> class Kernel, class... Ts>
void register_on(KernelRegistry& r, const char* op, const char* attr) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", {{attr, {dtype_of_v<Ts>}}})), ...);
}

}  // namespace

namespace detail {

void register_image_more_kernels(KernelRegistry& r) {
  // TensorFlow registers half and float (half here through the float kernel).
  for (const char* op : {"DrawBoundingBoxes", "DrawBoundingBoxesV2"}) {
    register_on<DrawBoundingBoxesOp, float>(r, op, "T");
    register_via_float<half_t>(r, op, make_kernel_def<DrawBoundingBoxesOp<float>>("", "").factory);
  }
  // uint8, int8, int16, int32, float, double, as TensorFlow's (int64 has none).
  register_on<AdjustContrastOp, std::uint8_t, std::int8_t, std::int16_t, std::int32_t, float,
              double>(r, "AdjustContrast", "T");
  r.add(make_kernel_def<ExtractGlimpseOp>("ExtractGlimpse", "CPU"));
  r.add(make_kernel_def<ExtractGlimpseOp>("ExtractGlimpseV2", "CPU"));
  for (const char* op : {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    register_on<ImageProjectiveTransformOp, std::uint8_t, std::int32_t, std::int64_t, float, double,
                bfloat16_t>(r, op, "dtype");
    register_via_float<half_t>(
        r, op, make_kernel_def<ImageProjectiveTransformOp<float>>("", "").factory, "dtype");
  }
}

}  // namespace detail

}  // namespace af
