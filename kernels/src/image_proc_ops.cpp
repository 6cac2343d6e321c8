// ResizeBicubic, ResizeBicubicGrad, ResizeArea, CropAndResize, CropAndResizeGradImage and
// CropAndResizeGradBoxes: CPU kernels with TensorFlow's checks, messages and arithmetic
// (image/resize_bicubic_op.cc, resize_area_op.cc, crop_and_resize_op.cc,
// util/image_resizer_state.h). They compute in float (double where TensorFlow promotes) in
// TensorFlow's order, so results match its CPU kernels bit for bit. Their definitions are in
// ops/src/defs/image_proc_ops.cpp.
#include <algorithm>
#include <array>
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
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::kBothModesMessage;
using detail::resize_scale;
using detail::ResizeKernel;
using detail::ResizerGradientState;
using detail::ResizerState;
using detail::StatusKernel;

// Bound: `value` clamped to [0, limit).
Index bound(Index value, Index limit) { return std::min(limit - 1, std::max(Index{0}, value)); }

// -- bicubic -------------------------------------------------------------------------------

constexpr Index kTableSize = 1 << 10;

// InitCoeffsTable: the cubic convolution kernel with parameter `a` sampled at kTableSize + 1
// points of [0, 1] (even entries) and [1, 2] (odd), computed in double as TensorFlow's.
std::vector<float> coefficients_table(double a) {
  std::vector<float> table(static_cast<std::size_t>((kTableSize + 1) * 2));
  for (Index i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(static_cast<double>(i) * 1.0 / static_cast<double>(kTableSize));
    table[static_cast<std::size_t>(i * 2)] =
        static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x = static_cast<float>(x + 1.0);
    table[static_cast<std::size_t>(i * 2 + 1)] =
        static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return table;
}

// GetCoeffsTable: Keys' cubic (a = -0.5) with half_pixel_centers, else the legacy -0.75.
const std::vector<float>& coefficients(bool use_keys_cubic) {
  static const std::vector<float> keys = coefficients_table(-0.5f);
  static const std::vector<float> legacy = coefficients_table(-0.75f);
  return use_keys_cubic ? keys : legacy;
}

// WeightsAndIndices: the four input rows (or columns) an output one reads and their weights.
struct CubicWeights {
  std::array<float, 4> weight{};
  std::array<Index, 4> index{};
};

// GetWeightsAndIndices: with half_pixel_centers (Keys' cubic) taps outside the image get
// weight 0 and the rest are renormalized to sum to 1; otherwise the edge taps repeat.
CubicWeights cubic_weights(float scale, Index out_loc, Index limit, bool half_pixel_centers) {
  const float in_loc_f = half_pixel_centers
                             ? (static_cast<float>(static_cast<int>(out_loc)) + 0.5f) * scale - 0.5f
                             : static_cast<float>(static_cast<int>(out_loc)) * scale;
  const auto in_loc = static_cast<Index>(std::floor(in_loc_f));
  const float delta = in_loc_f - static_cast<float>(in_loc);
  const auto offset = static_cast<Index>(std::lrint(delta * static_cast<float>(kTableSize)));
  const std::vector<float>& table = coefficients(half_pixel_centers);
  const std::array<float, 4> raw = {table[static_cast<std::size_t>(offset * 2 + 1)],
                                    table[static_cast<std::size_t>(offset * 2)],
                                    table[static_cast<std::size_t>((kTableSize - offset) * 2)],
                                    table[static_cast<std::size_t>((kTableSize - offset) * 2 + 1)]};
  CubicWeights w;
  for (int k = 0; k < 4; ++k) w.index[k] = bound(in_loc - 1 + k, limit);
  if (!half_pixel_centers) {
    w.weight = raw;
    return w;
  }
  for (int k = 0; k < 4; ++k) w.weight[k] = w.index[k] == in_loc - 1 + k ? raw[k] : 0.0f;
  const float sum = w.weight[0] + w.weight[1] + w.weight[2] + w.weight[3];
  if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
    const float one_over_sum = 1.0f / sum;
    for (float& x : w.weight) x *= one_over_sum;
  }
  return w;
}

// Interpolate1D: the weighted sum of four values, left to right, in float.
inline float interpolate_1d(const std::array<float, 4>& w, float v0, float v1, float v2, float v3) {
  return v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
}

// ResizeBicubic(images, size; align_corners, half_pixel_centers): float32 images of the
// requested size, each pixel the cubic interpolation of the 4x4 input pixels around its
// source point: along y per column, then along x.
template <class T>
class ResizeBicubicOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ResizerState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, DType::float32, align_corners_, half_pixel_centers_));
    if (st.output->num_elements() == 0) return {};
    std::vector<CubicWeights> xs(static_cast<std::size_t>(st.out_width));
    for (Index x = 0; x < st.out_width; ++x)
      xs[static_cast<std::size_t>(x)] =
          cubic_weights(st.width_scale, x, st.in_width, half_pixel_centers_);
    const T* in = ctx.input(0).data<T>();
    float* out = st.output->data<float>();
    const Index channels = st.channels;
    const Index in_row = st.in_width * channels;
    for (Index b = 0; b < st.batch; ++b) {
      const T* image = in + b * st.in_height * in_row;
      for (Index y = 0; y < st.out_height; ++y) {
        const CubicWeights wy =
            cubic_weights(st.height_scale, y, st.in_height, half_pixel_centers_);
        std::array<const T*, 4> rows{};
        for (int k = 0; k < 4; ++k) rows[k] = image + wy.index[k] * in_row;
        for (Index x = 0; x < st.out_width; ++x) {
          const CubicWeights& wx = xs[static_cast<std::size_t>(x)];
          for (Index c = 0; c < channels; ++c) {
            float column[4];
            for (int k = 0; k < 4; ++k) {
              const Index at = wx.index[k] * channels + c;
              column[k] = interpolate_1d(
                  wy.weight, static_cast<float>(rows[0][at]), static_cast<float>(rows[1][at]),
                  static_cast<float>(rows[2][at]), static_cast<float>(rows[3][at]));
            }
            *out++ = interpolate_1d(wx.weight, column[0], column[1], column[2], column[3]);
          }
        }
      }
    }
    return {};
  }
};

// ResizeBicubicGrad(grads, original_image; align_corners, half_pixel_centers): each float32
// gradient of a resized pixel spread over the 16 input pixels it was interpolated from with
// the forward weights; of original_image's shape and dtype (float32 or float64).
template <class T>
class ResizeBicubicGradOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ResizerGradientState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, dtype_of_v<T>, align_corners_, half_pixel_centers_));
    T* out = st.output->data<T>();
    std::fill_n(out, st.output->num_elements(), T(0));
    std::vector<CubicWeights> xs(static_cast<std::size_t>(st.resized_width));
    for (Index x = 0; x < st.resized_width; ++x)
      xs[static_cast<std::size_t>(x)] =
          cubic_weights(st.width_scale, x, st.original_width, half_pixel_centers_);
    const float* g = ctx.input(0).data<float>();
    const Index channels = st.channels;
    const Index row = st.original_width * channels;
    for (Index b = 0; b < st.batch; ++b) {
      T* image = out + b * st.original_height * row;
      for (Index y = 0; y < st.resized_height; ++y) {
        const CubicWeights wy =
            cubic_weights(st.height_scale, y, st.original_height, half_pixel_centers_);
        for (Index x = 0; x < st.resized_width; ++x) {
          const CubicWeights& wx = xs[static_cast<std::size_t>(x)];
          for (Index c = 0; c < channels; ++c) {
            const T grad = static_cast<T>(*g++);
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j)
                image[wy.index[i] * row + wx.index[j] * channels + c] +=
                    static_cast<T>(grad * wy.weight[i] * wx.weight[j]);
          }
        }
      }
    }
    return {};
  }
};

// -- area ----------------------------------------------------------------------------------

// CachedInterpolation of ResizeArea: the input cells [start, end) an output cell covers and
// the fractions of the first and last it covers.
struct AreaSpan {
  Index start = 0, end = 0;
  float start_scale = 0, end_minus_one_scale = 0;
};

// The covered fraction of input cell `v` for an output cell spanning [in, in1) in input
// coordinates, as TensorFlow writes it.
float covered(Index v, float in, float in1, float scale) {
  const auto vf = static_cast<float>(v);
  if (vf < in) return vf + 1 > in1 ? scale : vf + 1 - in;
  return vf + 1 > in1 ? in1 - vf : 1.0f;
}

AreaSpan area_span(Index i, float scale) {
  AreaSpan s;
  const float in = static_cast<float>(i) * scale;
  const float in1 = static_cast<float>(i + 1) * scale;
  s.start = static_cast<Index>(std::floor(in));
  s.start_scale = covered(s.start, in, in1, scale);
  s.end = static_cast<Index>(std::ceil(in1));
  s.end_minus_one_scale = covered(s.end - 1, in, in1, scale);
  return s;
}

// ResizeArea(images, size; align_corners): float32 images of the requested size, each pixel
// the mean of the input area it covers, partial cells weighted by the fraction covered.
template <class T>
class ResizeAreaOp : public ResizeKernel {
 public:
  using ResizeKernel::ResizeKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    // TensorFlow passes half_pixel_centers false: the op always centred pixels correctly.
    ResizerState st;
    ACTORFLOW_RETURN_IF_ERROR(
        st.validate_and_create_output(ctx, DType::float32, align_corners_, false));
    if (st.output->num_elements() == 0) return {};
    std::vector<AreaSpan> xs(static_cast<std::size_t>(st.out_width));
    for (Index x = 0; x < st.out_width; ++x)
      xs[static_cast<std::size_t>(x)] = area_span(x, st.width_scale);
    const T* in = ctx.input(0).data<T>();
    float* out = st.output->data<float>();
    const Index channels = st.channels;
    const Index in_row = st.in_width * channels;
    const auto scale =
        static_cast<float>(1.0 / static_cast<double>(st.height_scale * st.width_scale));
    std::vector<float> y_scales;
    std::vector<const T*> y_rows;
    for (Index b = 0; b < st.batch; ++b) {
      for (Index y = 0; y < st.out_height; ++y) {
        const float in_y = static_cast<float>(y) * st.height_scale;
        const float in_y1 = static_cast<float>(y + 1) * st.height_scale;
        const auto y_start = static_cast<Index>(std::floor(in_y));
        const auto y_end = static_cast<Index>(std::ceil(in_y1));
        y_scales.clear();
        y_rows.clear();
        for (Index i = y_start; i < y_end; ++i) {
          y_scales.push_back(covered(i, in_y, in_y1, st.height_scale));
          y_rows.push_back(in + b * st.in_height * in_row + bound(i, st.in_height) * in_row);
        }
        for (Index x = 0; x < st.out_width; ++x) {
          const AreaSpan& sx = xs[static_cast<std::size_t>(x)];
          for (Index c = 0; c < channels; ++c) {
            float sum = 0;
            for (std::size_t i = 0; i < y_rows.size(); ++i) {
              const T* row = y_rows[i];
              auto at = [&](Index col) {
                return static_cast<float>(row[bound(col, st.in_width) * channels + c]);
              };
              float sum_y = at(sx.start) * sx.start_scale;
              if (sx.start + 1 != sx.end) {
                for (Index col = sx.start + 1; col < sx.end - 1; ++col) sum_y += at(col);
                sum_y += at(sx.end - 1) * sx.end_minus_one_scale;
              }
              sum += sum_y * y_scales[i];
            }
            *out++ = sum * scale;
          }
        }
      }
    }
    return {};
  }
};

// -- crop and resize -----------------------------------------------------------------------

// ParseAndCheckBoxSizes: boxes [num_boxes, 4] and box_index [num_boxes]; both empty is zero
// boxes whatever their shapes.
Status parse_box_sizes(const Tensor& boxes, const Tensor& box_index, Index* num_boxes) {
  if (boxes.num_elements() == 0 && box_index.num_elements() == 0) {
    *num_boxes = 0;
    return {};
  }
  if (boxes.rank() != 2) return invalid_argument("boxes must be 2-D" + boxes.shape().to_string());
  *num_boxes = boxes.shape().dim(0);
  if (boxes.shape().dim(1) != 4) return invalid_argument("boxes must have 4 columns");
  if (box_index.rank() != 1)
    return invalid_argument("box_index must be 1-D" + box_index.shape().to_string());
  if (box_index.shape().dim(0) != *num_boxes)
    return invalid_argument("box_index has incompatible shape");
  return {};
}

// RunIfBoxIndexIsValid: every box_index in [0, batch).
Status check_box_index(const Tensor& box_index, Index batch) {
  const std::int32_t* index = box_index.data<std::int32_t>();
  for (Index b = 0; b < box_index.num_elements(); ++b)
    if (index[b] < 0 || index[b] >= batch)
      return out_of_range("box_index has values outside [0, batch_size)");
  return {};
}

// The sampling positions of one box along one axis: the source coordinate of each of the
// `crop` outputs in an image of `size`, as TensorFlow computes them (float; the single
// output's centre in double).
struct CropAxis {
  float scale = 0;
  float start = 0, end = 0;
  int size = 0, crop = 0;

  float at(int i) const {
    return crop > 1 ? start * static_cast<float>(size - 1) + static_cast<float>(i) * scale
                    : static_cast<float>(0.5 * static_cast<double>(start + end) *
                                         static_cast<double>(size - 1));
  }
  bool outside(float v) const { return v < 0 || v > static_cast<float>(size - 1); }
};

CropAxis crop_axis(float start, float end, int size, int crop) {
  CropAxis a;
  a.start = start;
  a.end = end;
  a.size = size;
  a.crop = crop;
  a.scale =
      crop > 1 ? (end - start) * static_cast<float>(size - 1) / static_cast<float>(crop - 1) : 0.0f;
  return a;
}

// The method attr of the crop kernels: "bilinear" or "nearest" (only "bilinear" where
// `bilinear_only`).
Status crop_method(OpKernelConstruction& c, bool bilinear_only, std::string* method) {
  *method = "bilinear";
  c.get_attr("method", method);
  if (bilinear_only) {
    if (*method != "bilinear") return invalid_argument("method must be 'bilinear'" + *method);
  } else if (*method != "bilinear" && *method != "nearest") {
    return invalid_argument("method must be 'bilinear' or 'nearest'" + *method);
  }
  return {};
}

// CropAndResize(image, boxes, box_ind, crop_size; method, extrapolation_value): float32
// crops [num_boxes, crop_height, crop_width, depth], each box of normalized corners
// [y1, x1, y2, x2] sampled bilinearly or at the nearest pixel; samples outside the image are
// extrapolation_value.
template <class T>
class CropAndResizeOp : public StatusKernel {
 public:
  CropAndResizeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = crop_method(c, false, &method_);
    if (!c.get_attr("extrapolation_value", &extrapolation_value_).ok()) extrapolation_value_ = 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& image = ctx.input(0);
    const Tensor& boxes = ctx.input(1);
    const Tensor& box_index = ctx.input(2);
    const Tensor& crop_size = ctx.input(3);
    if (image.rank() != 4)
      return invalid_argument("input image must be 4-D" + image.shape().to_string());
    const Index batch = image.shape().dim(0);
    const auto height = static_cast<int>(image.shape().dim(1));
    const auto width = static_cast<int>(image.shape().dim(2));
    const Index depth = image.shape().dim(3);
    if (height <= 0 || width <= 0) return invalid_argument("image dimensions must be positive");
    if (boxes.rank() != 2)
      return invalid_argument("boxes must be 2-D, got: " + boxes.shape().to_string());
    if (box_index.rank() != 1)
      return invalid_argument("box_indices must be rank 1 but is shape " +
                              box_index.shape().to_string());
    Index num_boxes = 0;
    ACTORFLOW_RETURN_IF_ERROR(parse_box_sizes(boxes, box_index, &num_boxes));
    if (crop_size.rank() != 1)
      return invalid_argument("crop_size must be 1-D" + crop_size.shape().to_string());
    if (crop_size.shape().dim(0) != 2)
      return invalid_argument("crop_size must have two elements" + crop_size.shape().to_string());
    const int crop_height = crop_size.data<std::int32_t>()[0];
    const int crop_width = crop_size.data<std::int32_t>()[1];
    if (crop_height <= 0 || crop_width <= 0)
      return invalid_argument("crop dimensions must be positive");
    Tensor& output =
        ctx.allocate_output(0, DType::float32, Shape{num_boxes, crop_height, crop_width, depth});
    ACTORFLOW_RETURN_IF_ERROR(check_box_index(box_index, batch));
    const float* box = boxes.data<float>();
    for (Index i = 0; i < num_boxes * 4; ++i)
      if (!std::isfinite(box[i]))
        return invalid_argument("Boxes contains at least one element that is not finite");
    const T* in = image.data<T>();
    float* out = output.data<float>();
    const Index row = width * depth;
    const bool bilinear = method_ == "bilinear";
    for (Index b = 0; b < num_boxes; ++b, box += 4) {
      const T* src = in + static_cast<Index>(box_index.data<std::int32_t>()[b]) * height * row;
      const CropAxis ay = crop_axis(box[0], box[2], height, crop_height);
      const CropAxis ax = crop_axis(box[1], box[3], width, crop_width);
      for (int y = 0; y < crop_height; ++y) {
        const float in_y = ay.at(y);
        if (ay.outside(in_y)) {
          out = std::fill_n(out, crop_width * depth, extrapolation_value_);
          continue;
        }
        const auto top = static_cast<Index>(std::floor(in_y));
        const auto bottom = static_cast<Index>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        for (int x = 0; x < crop_width; ++x) {
          const float in_x = ax.at(x);
          if (ax.outside(in_x)) {
            out = std::fill_n(out, depth, extrapolation_value_);
            continue;
          }
          if (bilinear) {
            const auto left = static_cast<Index>(std::floor(in_x));
            const auto right = static_cast<Index>(std::ceil(in_x));
            const float x_lerp = in_x - static_cast<float>(left);
            for (Index d = 0; d < depth; ++d) {
              const auto top_left = static_cast<float>(src[top * row + left * depth + d]);
              const auto top_right = static_cast<float>(src[top * row + right * depth + d]);
              const auto bottom_left = static_cast<float>(src[bottom * row + left * depth + d]);
              const auto bottom_right = static_cast<float>(src[bottom * row + right * depth + d]);
              const float t = top_left + (top_right - top_left) * x_lerp;
              const float u = bottom_left + (bottom_right - bottom_left) * x_lerp;
              *out++ = t + (u - t) * y_lerp;
            }
          } else {
            const auto cx = static_cast<Index>(std::round(in_x));
            const auto cy = static_cast<Index>(std::round(in_y));
            for (Index d = 0; d < depth; ++d)
              *out++ = static_cast<float>(src[cy * row + cx * depth + d]);
          }
        }
      }
    }
    return {};
  }

 private:
  std::string method_;
  float extrapolation_value_ = 0;
};

// CropAndResizeGradImage(grads, boxes, box_ind, image_size; method): the gradient of the
// image of `image_size` (int32 [batch, height, width, depth]) and dtype T: each crop
// gradient added to the pixels its sample read, in the bilinear weights.
template <class T>
class CropAndResizeGradImageOp : public StatusKernel {
 public:
  CropAndResizeGradImageOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = crop_method(c, false, &method_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grads = ctx.input(0);
    const Tensor& boxes = ctx.input(1);
    const Tensor& box_index = ctx.input(2);
    const Tensor& image_size = ctx.input(3);
    if (grads.rank() != 4)
      return invalid_argument("grads image must be 4-D" + grads.shape().to_string());
    const auto crop_height = static_cast<int>(grads.shape().dim(1));
    const auto crop_width = static_cast<int>(grads.shape().dim(2));
    if (crop_height <= 0 || crop_width <= 0)
      return invalid_argument("grads dimensions must be positive");
    Index num_boxes = 0;
    ACTORFLOW_RETURN_IF_ERROR(parse_box_sizes(boxes, box_index, &num_boxes));
    if (grads.shape().dim(0) != num_boxes)
      return invalid_argument("boxes and grads have incompatible shape");
    if (image_size.rank() != 1)
      return invalid_argument("image_size must be 1-D" + image_size.shape().to_string());
    if (image_size.shape().dim(0) != 4)
      return invalid_argument("image_size must have 4 elements" + image_size.shape().to_string());
    const std::int32_t* sizes = image_size.data<std::int32_t>();
    const int batch = sizes[0], height = sizes[1], width = sizes[2], depth = sizes[3];
    if (height <= 0 || width <= 0) return invalid_argument("image dimensions must be positive");
    if (grads.shape().dim(3) != depth)
      return invalid_argument("image_size and grads are incompatible");
    // TensorShape::AddDimWithStatus.
    if (batch < 0)
      return invalid_argument("Expected a non-negative size, got " + std::to_string(batch));
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, Shape{batch, height, width, depth});
    T* out = output.data<T>();
    std::fill_n(out, output.num_elements(), T(0));
    ACTORFLOW_RETURN_IF_ERROR(check_box_index(box_index, batch));
    const float* box = boxes.data<float>();
    const float* g = grads.data<float>();
    const Index row = static_cast<Index>(width) * depth;
    const bool bilinear = method_ == "bilinear";
    for (Index b = 0; b < num_boxes; ++b, box += 4) {
      T* dst = out + static_cast<Index>(box_index.data<std::int32_t>()[b]) * height * row;
      const CropAxis ay = crop_axis(box[0], box[2], height, crop_height);
      const CropAxis ax = crop_axis(box[1], box[3], width, crop_width);
      const float* gb = g + b * crop_height * crop_width * depth;
      for (int y = 0; y < crop_height; ++y) {
        const float in_y = ay.at(y);
        if (ay.outside(in_y)) continue;
        const auto top = static_cast<Index>(std::floor(in_y));
        const auto bottom = static_cast<Index>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        for (int x = 0; x < crop_width; ++x) {
          const float in_x = ax.at(x);
          if (ax.outside(in_x)) continue;
          const float* gp = gb + (static_cast<Index>(y) * crop_width + x) * depth;
          if (bilinear) {
            const auto left = static_cast<Index>(std::floor(in_x));
            const auto right = static_cast<Index>(std::ceil(in_x));
            const float x_lerp = in_x - static_cast<float>(left);
            for (Index d = 0; d < depth; ++d) {
              const float dtop = (1 - y_lerp) * gp[d];
              dst[top * row + left * depth + d] += static_cast<T>((1 - x_lerp) * dtop);
              dst[top * row + right * depth + d] += static_cast<T>(x_lerp * dtop);
              const float dbottom = y_lerp * gp[d];
              dst[bottom * row + left * depth + d] += static_cast<T>((1 - x_lerp) * dbottom);
              dst[bottom * row + right * depth + d] += static_cast<T>(x_lerp * dbottom);
            }
          } else {
            const auto cx = static_cast<Index>(std::round(in_x));
            const auto cy = static_cast<Index>(std::round(in_y));
            for (Index d = 0; d < depth; ++d)
              dst[cy * row + cx * depth + d] += static_cast<T>(gp[d]);
          }
        }
      }
    }
    return {};
  }

 private:
  std::string method_;
};

// CropAndResizeGradBoxes(grads, image, boxes, box_ind; method "bilinear"): the float32
// gradient [num_boxes, 4] of the box corners, from the image's bilinear slope at each
// sample inside the image.
template <class T>
class CropAndResizeGradBoxesOp : public StatusKernel {
 public:
  CropAndResizeGradBoxesOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string method;
    *s = crop_method(c, true, &method);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grads = ctx.input(0);
    const Tensor& image = ctx.input(1);
    const Tensor& boxes = ctx.input(2);
    const Tensor& box_index = ctx.input(3);
    if (grads.rank() != 4)
      return invalid_argument("grads image must be 4-D" + grads.shape().to_string());
    const auto crop_height = static_cast<int>(grads.shape().dim(1));
    const auto crop_width = static_cast<int>(grads.shape().dim(2));
    const Index depth = grads.shape().dim(3);
    if (crop_height <= 0 || crop_width <= 0)
      return invalid_argument("grads dimensions must be positive");
    if (image.rank() != 4)
      return invalid_argument("input image must be 4-D" + image.shape().to_string());
    const Index batch = image.shape().dim(0);
    const auto height = static_cast<int>(image.shape().dim(1));
    const auto width = static_cast<int>(image.shape().dim(2));
    if (height <= 0 || width <= 0) return invalid_argument("image dimensions must be positive");
    if (image.shape().dim(3) != depth) return invalid_argument("image, grads depth differ");
    Index num_boxes = 0;
    ACTORFLOW_RETURN_IF_ERROR(parse_box_sizes(boxes, box_index, &num_boxes));
    if (grads.shape().dim(0) != num_boxes)
      return invalid_argument("boxes and grads have incompatible shape");
    Tensor& output = ctx.allocate_output(0, DType::float32, Shape{num_boxes, 4});
    float* out = output.data<float>();
    std::fill_n(out, output.num_elements(), 0.0f);
    ACTORFLOW_RETURN_IF_ERROR(check_box_index(box_index, batch));
    const T* in = image.data<T>();
    const float* box = boxes.data<float>();
    const float* g = grads.data<float>();
    const Index row = static_cast<Index>(width) * depth;
    const float height_ratio =
        crop_height > 1 ? static_cast<float>(height - 1) / static_cast<float>(crop_height - 1)
                        : 0.0f;
    const float width_ratio =
        crop_width > 1 ? static_cast<float>(width - 1) / static_cast<float>(crop_width - 1) : 0.0f;
    for (Index b = 0; b < num_boxes; ++b, box += 4, out += 4) {
      const T* src = in + static_cast<Index>(box_index.data<std::int32_t>()[b]) * height * row;
      // The scales as this kernel computes them: (y2 - y1) * ratio.
      CropAxis ay = crop_axis(box[0], box[2], height, crop_height);
      CropAxis ax = crop_axis(box[1], box[3], width, crop_width);
      ay.scale = crop_height > 1 ? (box[2] - box[0]) * height_ratio : 0.0f;
      ax.scale = crop_width > 1 ? (box[3] - box[1]) * width_ratio : 0.0f;
      const float* gb = g + b * crop_height * crop_width * depth;
      for (int y = 0; y < crop_height; ++y) {
        const float in_y = ay.at(y);
        if (ay.outside(in_y)) continue;
        const auto top = static_cast<Index>(std::floor(in_y));
        const auto bottom = static_cast<Index>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        for (int x = 0; x < crop_width; ++x) {
          const float in_x = ax.at(x);
          if (ax.outside(in_x)) continue;
          const auto left = static_cast<Index>(std::floor(in_x));
          const auto right = static_cast<Index>(std::ceil(in_x));
          const float x_lerp = in_x - static_cast<float>(left);
          const float* gp = gb + (static_cast<Index>(y) * crop_width + x) * depth;
          for (Index d = 0; d < depth; ++d) {
            const auto top_left = static_cast<float>(src[top * row + left * depth + d]);
            const auto top_right = static_cast<float>(src[top * row + right * depth + d]);
            const auto bottom_left = static_cast<float>(src[bottom * row + left * depth + d]);
            const auto bottom_right = static_cast<float>(src[bottom * row + right * depth + d]);
            float image_grad_y =
                (1 - x_lerp) * (bottom_left - top_left) + x_lerp * (bottom_right - top_right);
            float image_grad_x =
                (1 - y_lerp) * (top_right - top_left) + y_lerp * (bottom_right - bottom_left);
            const float top_grad = gp[d];
            image_grad_y *= top_grad;
            image_grad_x *= top_grad;
            // A float += double sums in double, as C++ does in TensorFlow's kernel.
            if (crop_height > 1) {
              out[0] += image_grad_y *
                        (static_cast<float>(height - 1) - static_cast<float>(y) * height_ratio);
              out[2] += image_grad_y * (static_cast<float>(y) * height_ratio);
            } else {
              out[0] = static_cast<float>(out[0] + image_grad_y * 0.5 * (height - 1));
              out[2] = static_cast<float>(out[2] + image_grad_y * 0.5 * (height - 1));
            }
            if (crop_width > 1) {
              out[1] += image_grad_x *
                        (static_cast<float>(width - 1) - static_cast<float>(x) * width_ratio);
              out[3] += image_grad_x * (static_cast<float>(x) * width_ratio);
            } else {
              out[1] = static_cast<float>(out[1] + image_grad_x * 0.5 * (width - 1));
              out[3] = static_cast<float>(out[3] + image_grad_x * 0.5 * (width - 1));
            }
          }
        }
      }
    }
    return {};
  }
};

}  // namespace

namespace detail {

void register_image_proc_kernels(KernelRegistry& r) {
  // TensorFlow 2.21's types: every real number but in the gradients of ResizeBicubic (float
  // and double) and CropAndResize's image (float, double, half).
  register_for_list<ResizeBicubicOp>(r, "ResizeBicubic", RealNumberTypes{});
  register_for_types<ResizeBicubicGradOp, float, double>(r, "ResizeBicubicGrad");
  register_for_list<ResizeAreaOp>(r, "ResizeArea", RealNumberTypes{});
  register_for_list<CropAndResizeOp>(r, "CropAndResize", RealNumberTypes{});
  register_for_types<CropAndResizeGradImageOp, float, double>(r, "CropAndResizeGradImage");
  register_via_float<half_t>(
      r, "CropAndResizeGradImage",
      make_kernel_def<CropAndResizeGradImageOp<float>>("CropAndResizeGradImage", "CPU").factory);
  register_for_list<CropAndResizeGradBoxesOp>(r, "CropAndResizeGradBoxes", RealNumberTypes{});
}

}  // namespace detail

}  // namespace af
