// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustSaturation and AdjustHue: CPU kernels with
// TensorFlow's checks, messages and arithmetic (kernels/image/colorspace_op.h,
// adjust_contrast_op.cc, adjust_saturation_op.cc, adjust_hue_op.cc). The colourspace
// conversions evaluate TensorFlow's Eigen expressions term by term in T (bfloat16 rounded
// after every operation, as Eigen's bfloat16 arithmetic does); the adjustments run
// TensorFlow's scalar loops in float, the contrast mean summed in its halving order. Their
// definitions are in ops/src/defs/image_color_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// The type T's arithmetic runs in (float for bfloat16) and the rounding back to T after each
// operation.
template <class T>
using Compute = std::conditional_t<is_half_like_v<T>, float, T>;

template <class T>
Compute<T> round_to(Compute<T> x) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(T(x));
  else
    return x;
}

template <class T>
Compute<T> load(const T& v) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(v);
  else
    return v;
}

template <class T>
T store(Compute<T> v) {
  if constexpr (is_half_like_v<T>)
    return T(v);
  else
    return v;
}

// The checks RGBToHSV and HSVToRGB share: rank >= 1, a last dimension of 3.
Status check_colorspace_input(const Tensor& input) {
  if (input.rank() < 1)
    return invalid_argument("input must be at least 1D" + input.shape().to_string());
  const Index channels = input.shape().dim(input.rank() - 1);
  if (channels != 3)
    return failed_precondition("input must have 3 channels but input only has " +
                               std::to_string(channels) + " channels.");
  return {};
}

// The loop RGBToHSV and HSVToRGB share: their checks, then `f(in, out)` for each pixel, with
// its three input and output values.
template <class T, class F>
Status convert_pixels(OpKernelContext& ctx, F&& f) {
  const Tensor& input = ctx.input(0);
  ACTORFLOW_RETURN_IF_ERROR(check_colorspace_input(input));
  Tensor& output = ctx.allocate_output_for_overwrite(0, input.dtype(), input.shape());
  const T* in = input.data<T>();
  T* out = output.data<T>();
  for (Index p = 0; p < input.num_elements() / 3; ++p) f(in + 3 * p, out + 3 * p);
  return {};
}

// RGBToHSV(images): hue, saturation and value of each RGB pixel (functor::RGBToHSV).
template <class T>
class RgbToHsvOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    using C = Compute<T>;
    const auto r = [](C x) { return round_to<T>(x); };
    const C one_sixth = r(C(1) / C(6)), two_sixths = r(C(2) / C(6)), four_sixths = r(C(4) / C(6));
    return convert_pixels<T>(ctx, [&](const T* in, T* out) {
      const C red = load(in[0]), green = load(in[1]), blue = load(in[2]);
      const C v = std::max(red, std::max(green, blue));
      const C range = r(v - std::min(red, std::min(green, blue)));
      const C s = v > C(0) ? r(range / v) : C(0);
      const C norm = r(r(C(1) / range) * one_sixth);
      C h = red == v     ? r(norm * r(green - blue))
            : green == v ? r(r(norm * r(blue - red)) + two_sixths)
                         : r(r(norm * r(red - green)) + four_sixths);
      if (!(range > C(0))) h = C(0);
      if (h < C(0)) h = r(h + C(1));
      out[0] = store<T>(h);
      out[1] = store<T>(s);
      out[2] = store<T>(v);
    });
  }
};

// HSVToRGB(images): functor::HSVToRGB's piecewise-linear channels.
template <class T>
class HsvToRgbOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    using C = Compute<T>;
    const auto r = [](C x) { return round_to<T>(x); };
    const auto clamp01 = [](C x) { return std::min(std::max(x, C(0)), C(1)); };
    return convert_pixels<T>(ctx, [&](const T* in, T* out) {
      const C h = load(in[0]), s = load(in[1]), v = load(in[2]);
      const C dh = r(h * C(6));
      const C dr = clamp01(r(std::abs(r(dh - C(3))) - C(1)));
      const C dg = clamp01(r(-std::abs(r(dh - C(2))) + C(2)));
      const C db = clamp01(r(-std::abs(r(dh - C(4))) + C(2)));
      const C one_s = r(-s + C(1));
      out[0] = store<T>(r(r(one_s + r(s * dr)) * v));
      out[1] = store<T>(r(r(one_s + r(s * dg)) * v));
      out[2] = store<T>(r(r(one_s + r(s * db)) * v));
    });
  }
};

// The checks the three adjustments share: images of rank >= 3, a scalar `what` (input 1).
Status check_adjust_inputs(const Tensor& input, const Tensor& factor, const char* what) {
  if (input.rank() < 3)
    return invalid_argument("input must be at least 3-D, got shape" + input.shape().to_string());
  if (factor.rank() != 0)
    return invalid_argument(std::string(what) + " must be scalar: " + factor.shape().to_string());
  return {};
}

// AdjustContrastv2(images, contrast_factor): each channel of each image moved towards or
// away from its mean, `mean + factor * (x - mean)`.
class AdjustContrastV2Op : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    ACTORFLOW_RETURN_IF_ERROR(check_adjust_inputs(input, ctx.input(1), "contrast_factor"));
    Tensor& output = ctx.allocate_output_for_overwrite(0, DType::float32, input.shape());
    if (input.num_elements() == 0) return {};
    const int rank = input.rank();
    const Index height = input.shape().dim(rank - 3), width = input.shape().dim(rank - 2),
                channels = input.shape().dim(rank - 1);
    const Index image_size = height * width;
    const Index batch = input.num_elements() / (image_size * channels);
    const float factor = ctx.input(1).data<float>()[0];
    const float* in = input.data<float>();
    float* out = output.data<float>();
    const Index plane = image_size * channels;
    std::vector<float> mean(static_cast<std::size_t>(channels));
    for (Index b = 0; b < batch; ++b) {
      const float* x = in + b * plane;
      float* sum = out + b * plane;  // TensorFlow's scratch is the output
      // ReduceMeanAcrossImage: fold the plane in halves until one row of channels is left.
      Index remaining = image_size;
      int round = 0;
      do {
        const Index right = remaining / 2, left = remaining - right;
        if (round == 0) {
          for (Index i = 0; i < right * channels; ++i) sum[i] = x[left * channels + i] + x[i];
          if (left > right)
            std::memcpy(sum + right * channels, x + right * channels,
                        sizeof(float) * static_cast<std::size_t>(channels));
        } else {
          for (Index i = 0; i < right * channels; ++i) sum[i] += sum[left * channels + i];
        }
        remaining = left;
        ++round;
      } while (remaining > 1);
      const float mean_scaling = 1.0f / static_cast<float>(image_size);
      for (Index c = 0; c < channels; ++c)
        mean[static_cast<std::size_t>(c)] = sum[c] * mean_scaling;
      // BroadcastAcrossImage, then IncrementWithScaling.
      for (Index i = 0; i < image_size; ++i)
        for (Index c = 0; c < channels; ++c) {
          const float m = mean[static_cast<std::size_t>(c)];
          sum[i * channels + c] = m + factor * (x[i * channels + c] - m);
        }
    }
    return {};
  }
};

// adjust_saturation_op.cc's internal::rgb_to_hsv (its constants added in double, as there).
void rgb_to_hsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv)
    hh = norm * (g - b);
  else if (g == vv)
    hh = static_cast<float>(norm * (b - r) + 2.0 / 6.0);
  else
    hh = static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

// adjust_saturation_op.cc's internal::hsv_to_rgb.
void hsv_to_rgb(float h, float s, float v, float* r, float* g, float* b) {
  const float c = s * v;
  const float m = v - c;
  const float dh = h * 6;
  float rr, gg, bb;
  const int h_category = static_cast<int>(dh);
  float fmodu = dh;
  while (fmodu <= 0) fmodu += 2.0f;
  while (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  switch (h_category) {
    case 0:
      rr = c, gg = x, bb = 0;
      break;
    case 1:
      rr = x, gg = c, bb = 0;
      break;
    case 2:
      rr = 0, gg = c, bb = x;
      break;
    case 3:
      rr = 0, gg = x, bb = c;
      break;
    case 4:
      rr = x, gg = 0, bb = c;
      break;
    case 5:
      rr = c, gg = 0, bb = x;
      break;
    default:
      rr = 0, gg = 0, bb = 0;
  }
  *r = rr + m;
  *g = gg + m;
  *b = bb + m;
}

// The loop AdjustSaturation and AdjustHue share: the adjustments' checks (`what` input 1's
// name) and three channels, then `f(factor, rgb, out)` for each pixel, `factor` input 1.
template <class F>
Status adjust_pixels(OpKernelContext& ctx, const char* what, F&& f) {
  const Tensor& input = ctx.input(0);
  ACTORFLOW_RETURN_IF_ERROR(check_adjust_inputs(input, ctx.input(1), what));
  const Index channels = input.shape().dim(input.rank() - 1);
  if (channels != 3)
    return invalid_argument("input must have 3 channels but instead has " +
                            std::to_string(channels) + " channels.");
  Tensor& output = ctx.allocate_output_for_overwrite(0, DType::float32, input.shape());
  const float factor = ctx.input(1).data<float>()[0];
  const float* p = input.data<float>();
  float* q = output.data<float>();
  for (Index i = 0; i < input.num_elements() / 3; ++i, p += 3, q += 3) f(factor, p, q);
  return {};
}

// AdjustSaturation(images, scale): saturation scaled and clamped to [0, 1].
class AdjustSaturationOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    return adjust_pixels(ctx, "scale", [](float scale, const float* p, float* q) {
      float h, s, v;
      rgb_to_hsv(p[0], p[1], p[2], &h, &s, &v);
      s = std::min(1.0f, std::max(0.0f, s * scale));
      hsv_to_rgb(h, s, v, q, q + 1, q + 2);
    });
  }
};

// adjust_hue_op.cc's rgb_to_hv_range: hue in [0, 6) and the smallest and largest channel.
void rgb_to_hv_range(float r, float g, float b, float* h, float* v_min, float* v_max) {
  float v_mid;
  int h_category;
  if (r < g) {
    if (b < r) {
      *v_max = g, v_mid = r, *v_min = b, h_category = 1;
    } else if (b > g) {
      *v_max = b, v_mid = g, *v_min = r, h_category = 3;
    } else {
      *v_max = g, v_mid = b, *v_min = r, h_category = 2;
    }
  } else {
    if (b < g) {
      *v_max = r, v_mid = g, *v_min = b, h_category = 0;
    } else if (b > r) {
      *v_max = b, v_mid = r, *v_min = g, h_category = 4;
    } else {
      *v_max = r, v_mid = b, *v_min = g, h_category = 5;
    }
  }
  if (*v_max == *v_min) {
    *h = 0;
    return;
  }
  const float ratio = (v_mid - *v_min) / (*v_max - *v_min);
  const bool increase = (h_category & 0x1) == 0;
  *h = static_cast<float>(h_category) + (increase ? ratio : (1 - ratio));
}

// adjust_hue_op.cc's hv_range_to_rgb.
void hv_range_to_rgb(float h, float v_min, float v_max, float* r, float* g, float* b) {
  const int h_category = static_cast<int>(h);
  float ratio = h - static_cast<float>(h_category);
  const bool increase = (h_category & 0x1) == 0;
  if (!increase) ratio = 1 - ratio;
  const float v_mid = v_min + ratio * (v_max - v_min);
  switch (h_category) {
    case 0:
      *r = v_max, *g = v_mid, *b = v_min;
      break;
    case 1:
      *r = v_mid, *g = v_max, *b = v_min;
      break;
    case 2:
      *r = v_min, *g = v_max, *b = v_mid;
      break;
    case 3:
      *r = v_min, *g = v_mid, *b = v_max;
      break;
    case 4:
      *r = v_mid, *g = v_min, *b = v_max;
      break;
    default:
      *r = v_max, *g = v_min, *b = v_mid;
  }
}

// AdjustHue(images, delta): hue rotated by `delta` turns.
class AdjustHueOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    constexpr int kChannelRange = 6;
    return adjust_pixels(ctx, "delta", [](float delta, const float* p, float* q) {
      float h, v_min, v_max;
      rgb_to_hv_range(p[0], p[1], p[2], &h, &v_min, &v_max);
      h += delta * kChannelRange;
      while (h < 0) h += kChannelRange;
      while (h >= kChannelRange) h -= kChannelRange;
      hv_range_to_rgb(h, v_min, v_max, q, q + 1, q + 2);
    });
  }
};

}  // namespace

namespace detail {

void register_image_color_kernels(KernelRegistry& r) {
  register_for_list<RgbToHsvOp>(r, "RGBToHSV", FloatTypes{});
  register_for_list<HsvToRgbOp>(r, "HSVToRGB", FloatTypes{});
  r.add(make_kernel_def<AdjustContrastV2Op>("AdjustContrastv2", "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<AdjustSaturationOp>("AdjustSaturation", "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<AdjustHueOp>("AdjustHue", "CPU", {{"T", {DType::float32}}}));
}

}  // namespace detail

}  // namespace af
