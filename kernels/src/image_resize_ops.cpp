// ResizeBilinear, ResizeBilinearGrad, ResizeNearestNeighbor and ResizeNearestNeighborGrad: CPU
// kernels with TensorFlow's checks, messages and arithmetic (image/resize_bilinear_op.cc,
// image/resize_nearest_neighbor_op.cc, util/image_resizer_state.h). Bilinear interpolation
// runs in float in TensorFlow's order, so results match its CPU kernels bit for bit. Their
// definitions are in ops/src/defs/image_resize_ops.cpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "image_resizer_state.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::kBothModesMessage;
using detail::resize_scale;
using detail::ResizeKernel;
using detail::ResizerGradientState;
using detail::ResizerState;
using detail::StatusKernel;

// HalfPixelScaler (bilinear): pixel centres at 0.5, shifted back to the legacy coordinates.
float half_pixel_scale(Index x, float scale) {
  return (static_cast<float>(static_cast<int>(x)) + 0.5f) * scale - 0.5f;
}

// LegacyScaler: the top-left corner of output pixel x in input coordinates.
float legacy_scale(Index x, float scale) { return static_cast<float>(static_cast<int>(x)) * scale; }

// HalfPixelScalerForNN: the 0.5 TensorFlow leaves to the floor that follows.
float half_pixel_scale_nn(Index x, float scale) {
  return (static_cast<float>(static_cast<int>(x)) + 0.5f) * scale;
}

// -- bilinear ------------------------------------------------------------------------------

// CachedInterpolation: the two source rows (or columns) of an output one and the weight of
// the upper.
struct Interpolation {
  Index lower = 0, upper = 0;
  float lerp = 0;
};

// compute_interpolation_weights: where each of `out_size` outputs reads an input of
// `in_size`.
std::vector<Interpolation> interpolation_weights(bool half_pixel_centers, Index out_size,
                                                 Index in_size, float scale) {
  std::vector<Interpolation> out(static_cast<std::size_t>(out_size));
  for (Index i = out_size - 1; i >= 0; --i) {
    const float in = half_pixel_centers ? half_pixel_scale(i, scale) : legacy_scale(i, scale);
    const float in_f = std::floor(in);
    Interpolation& w = out[static_cast<std::size_t>(i)];
    w.lower = std::max(static_cast<Index>(in_f), Index{0});
    w.upper = std::min(static_cast<Index>(std::ceil(in)), in_size - 1);
    w.lerp = in - in_f;
  }
  return out;
}

// compute_lerp: two interpolations along x, then one along y, in float.
inline float compute_lerp(float top_left, float top_right, float bottom_left, float bottom_right,
                          float x_lerp, float y_lerp) {
  const float top = top_left + (top_right - top_left) * x_lerp;
  const float bottom = bottom_left + (bottom_right - bottom_left) * x_lerp;
  return top + (bottom - top) * y_lerp;
}

// ResizeBilinear(images, size; align_corners, half_pixel_centers): float32 images of the
// requested size, each pixel interpolated from the four around its source point.
template <class T>
class ResizeBilinearOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ResizerState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, DType::float32, align_corners_, half_pixel_centers_));
    if (st.output->num_elements() == 0) return {};
    const T* in = ctx.input(0).data<T>();
    float* out = st.output->data<float>();
    // The no-op resize is a cast.
    if (st.out_height == st.in_height && st.out_width == st.in_width) {
      const Index n = st.output->num_elements();
      for (Index i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
      return {};
    }
    const std::vector<Interpolation> ys =
        interpolation_weights(half_pixel_centers_, st.out_height, st.in_height, st.height_scale);
    const std::vector<Interpolation> xs =
        interpolation_weights(half_pixel_centers_, st.out_width, st.in_width, st.width_scale);
    const Index channels = st.channels;
    const Index in_row = st.in_width * channels;
    const Index in_image = st.in_height * in_row;
    for (Index b = 0; b < st.batch; ++b) {
      const T* image = in + b * in_image;
      for (Index y = 0; y < st.out_height; ++y) {
        const Interpolation& wy = ys[static_cast<std::size_t>(y)];
        const T* lower_row = image + wy.lower * in_row;
        const T* upper_row = image + wy.upper * in_row;
        for (Index x = 0; x < st.out_width; ++x) {
          const Interpolation& wx = xs[static_cast<std::size_t>(x)];
          const Index left = wx.lower * channels, right = wx.upper * channels;
          for (Index c = 0; c < channels; ++c) {
            *out++ = compute_lerp(static_cast<float>(lower_row[left + c]),
                                  static_cast<float>(lower_row[right + c]),
                                  static_cast<float>(upper_row[left + c]),
                                  static_cast<float>(upper_row[right + c]), wx.lerp, wy.lerp);
          }
        }
      }
    }
    return {};
  }
};

// ResizeBilinearGrad(grads, original_image; align_corners, half_pixel_centers): each float32
// gradient of a resized pixel spread over the four input pixels it was interpolated from, in
// the proportions they contributed; of shape [grads batch, original height, original width,
// grads channels] and original_image's dtype. bfloat16 accumulates in float, as TensorFlow.
template <class T>
class ResizeBilinearGradOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ResizerGradientState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, dtype_of_v<T>, align_corners_, half_pixel_centers_));
    const Tensor& grads = ctx.input(0);
    Tensor& output = *st.output;
    const Index batch = st.batch, channels = st.channels;
    const Index resized_height = st.resized_height, resized_width = st.resized_width;
    const Index original_height = st.original_height, original_width = st.original_width;
    const float height_scale = st.height_scale, width_scale = st.width_scale;
    // bfloat16 sums in float and rounds once at the end.
    using Acc = std::conditional_t<is_half_like_v<T>, float, T>;
    const Index n = output.num_elements();
    std::vector<Acc> acc(static_cast<std::size_t>(n), Acc(0));
    const float* g = grads.data<float>();
    const Index row = original_width * channels;
    const Index image = original_height * row;
    for (Index b = 0; b < batch; ++b) {
      Acc* out = acc.data() + b * image;
      for (Index y = 0; y < resized_height; ++y) {
        const float in_y =
            half_pixel_centers_ ? half_pixel_scale(y, height_scale) : legacy_scale(y, height_scale);
        const Index top = std::max(static_cast<Index>(std::floor(in_y)), Index{0});
        const Index bottom = std::min(static_cast<Index>(std::ceil(in_y)), original_height - 1);
        const float y_lerp = in_y - std::floor(in_y);
        const float inverse_y_lerp = 1.0f - y_lerp;
        for (Index x = 0; x < resized_width; ++x) {
          const float in_x =
              half_pixel_centers_ ? half_pixel_scale(x, width_scale) : legacy_scale(x, width_scale);
          const Index left = std::max(static_cast<Index>(std::floor(in_x)), Index{0});
          const Index right = std::min(static_cast<Index>(std::ceil(in_x)), original_width - 1);
          const float x_lerp = in_x - std::floor(in_x);
          const float inverse_x_lerp = 1.0f - x_lerp;
          Acc* top_left = out + top * row + left * channels;
          Acc* top_right = out + top * row + right * channels;
          Acc* bottom_left = out + bottom * row + left * channels;
          Acc* bottom_right = out + bottom * row + right * channels;
          for (Index c = 0; c < channels; ++c) {
            const float v = *g++;
            top_left[c] += static_cast<Acc>(v * inverse_y_lerp * inverse_x_lerp);
            top_right[c] += static_cast<Acc>(v * inverse_y_lerp * x_lerp);
            bottom_left[c] += static_cast<Acc>(v * y_lerp * inverse_x_lerp);
            bottom_right[c] += static_cast<Acc>(v * y_lerp * x_lerp);
          }
        }
      }
    }
    T* dst = output.data<T>();
    for (Index i = 0; i < n; ++i) dst[i] = static_cast<T>(acc[static_cast<std::size_t>(i)]);
    return {};
  }
};

// -- nearest neighbor ----------------------------------------------------------------------

// The source index of output `i` (compute_indices): rounded with align_corners, else floored;
// clamped to [0, in_size) (below only with half_pixel_centers, where it can go negative).
Index nearest_index(Index i, float scale, Index in_size, bool align_corners,
                    bool half_pixel_centers) {
  const float at = half_pixel_centers ? half_pixel_scale_nn(i, scale) : legacy_scale(i, scale);
  Index x = std::min(
      align_corners ? static_cast<Index>(std::round(at)) : static_cast<Index>(std::floor(at)),
      in_size - 1);
  if (half_pixel_centers) x = std::max(Index{0}, x);
  return x;
}

// ResizeNearestNeighbor(images, size; align_corners, half_pixel_centers): images of the
// requested size and their own dtype, each pixel copied from its nearest source pixel.
template <class T>
class ResizeNearestNeighborOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ResizerState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, dtype_of_v<T>, align_corners_, half_pixel_centers_));
    if (st.in_height >= (Index{1} << 24) || st.in_width >= (Index{1} << 24))
      return invalid_argument("nearest neighbor requires max height & width of 2^24");
    if (st.output->num_elements() == 0) return {};
    std::vector<Index> xs(static_cast<std::size_t>(st.out_width));
    for (Index x = 0; x < st.out_width; ++x)
      xs[static_cast<std::size_t>(x)] =
          nearest_index(x, st.width_scale, st.in_width, align_corners_, half_pixel_centers_);
    const T* in = ctx.input(0).data<T>();
    T* out = st.output->data<T>();
    const Index channels = st.channels;
    const Index in_row = st.in_width * channels;
    for (Index b = 0; b < st.batch; ++b) {
      const T* image = in + b * st.in_height * in_row;
      for (Index y = 0; y < st.out_height; ++y) {
        const Index in_y =
            nearest_index(y, st.height_scale, st.in_height, align_corners_, half_pixel_centers_);
        for (Index x = 0; x < st.out_width; ++x) {
          out = std::copy_n(image + in_y * in_row + xs[static_cast<std::size_t>(x)] * channels,
                            channels, out);
        }
      }
    }
    return {};
  }
};

// ResizeNearestNeighborGrad(grads, size; align_corners, half_pixel_centers): the gradient of
// each resized pixel added to the source pixel the forward op copied it from, an image of
// `size` (int32 [height, width]) and grads' dtype. TensorFlow checks neither that the two
// modes exclude each other nor that grads is non-empty here.
template <class T>
class ResizeNearestNeighborGradOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grads = ctx.input(0);
    if (grads.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + grads.shape().to_string());
    const Tensor& size = ctx.input(1);
    if (size.rank() != 1)
      return invalid_argument("shape_t must be 1-dimensional" + size.shape().to_string());
    if (size.num_elements() != 2)
      return invalid_argument("shape_t must have two elements" + size.shape().to_string());
    const std::vector<std::int64_t> sizes = detail::index_values(size);
    if (sizes[0] <= 0 || sizes[1] <= 0)
      return invalid_argument("shape_t's elements must be positive");
    const Index batch = grads.shape().dim(0), channels = grads.shape().dim(3);
    const Index in_height = grads.shape().dim(1), in_width = grads.shape().dim(2);
    const Index out_height = sizes[0], out_width = sizes[1];
    Tensor& output =
        ctx.allocate_output(0, dtype_of_v<T>, Shape{batch, out_height, out_width, channels});
    const Index n = output.num_elements();
    T* out = output.data<T>();
    std::fill_n(out, n, T{});
    if (n == 0) return {};
    // The scales of the forward op that made grads from an image of `size`.
    const float height_scale = resize_scale(out_height, in_height, align_corners_);
    const float width_scale = resize_scale(out_width, in_width, align_corners_);
    std::vector<Index> xs(static_cast<std::size_t>(in_width));
    for (Index x = 0; x < in_width; ++x)
      xs[static_cast<std::size_t>(x)] =
          nearest_index(x, width_scale, out_width, align_corners_, half_pixel_centers_);
    const T* g = grads.data<T>();
    const Index out_row = out_width * channels;
    for (Index b = 0; b < batch; ++b) {
      T* image = out + b * out_height * out_row;
      for (Index y = 0; y < in_height; ++y) {
        const Index out_y =
            nearest_index(y, height_scale, out_height, align_corners_, half_pixel_centers_);
        for (Index x = 0; x < in_width; ++x) {
          T* dst = image + out_y * out_row + xs[static_cast<std::size_t>(x)] * channels;
          for (Index c = 0; c < channels; ++c) dst[c] = add(dst[c], *g++);
        }
      }
    }
    return {};
  }

 private:
  // T's +=: bfloat16 adds in float and rounds each sum, as Eigen's bfloat16; integers wrap.
  static T add(T a, T b) {
    if constexpr (is_half_like_v<T>)
      return T(static_cast<float>(a) + static_cast<float>(b));
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                            static_cast<std::make_unsigned_t<T>>(b));
    else
      return a + b;
  }
};

}  // namespace

namespace detail {

void register_image_resize_kernels(KernelRegistry& r) {
  // TensorFlow 2.21's types: every real number (the bilinear gradient: the floating-point
  // types).
  register_for_list<ResizeBilinearOp>(r, "ResizeBilinear", RealNumberTypes{});
  register_for_list<ResizeBilinearGradOp>(r, "ResizeBilinearGrad", FloatTypes{});
  register_for_list<ResizeNearestNeighborOp>(r, "ResizeNearestNeighbor", RealNumberTypes{});
  register_for_list<ResizeNearestNeighborGradOp>(r, "ResizeNearestNeighborGrad", RealNumberTypes{});
}

}  // namespace detail

}  // namespace af
