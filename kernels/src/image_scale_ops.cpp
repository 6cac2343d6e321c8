// ScaleAndTranslate and ScaleAndTranslateGrad: CPU kernels with TensorFlow's checks, messages
// and float arithmetic (kernels/image/scale_and_translate_op.cc, sampling_kernels.{h,cc}).
// Each axis gets spans: for output pixel x the input pixels a kernel centred at
// (x + 0.5) / scale - translation / scale reaches, with their normalized weights; the image
// is resized along rows, then columns. The gradient spans are the forward spans transposed.
// Their definitions are in ops/src/defs/image_scale_ops.cpp.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
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

// functor::SamplingKernelType.
enum class SamplingKernel {
  lanczos1,
  lanczos3,
  lanczos5,
  gaussian,
  box,
  triangle,
  keys_cubic,
  mitchell_cubic,
  end
};

// SamplingKernelTypeFromString: case-insensitive; `end` when unknown.
SamplingKernel sampling_kernel_from_string(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (s == "lanczos1") return SamplingKernel::lanczos1;
  if (s == "lanczos3") return SamplingKernel::lanczos3;
  if (s == "lanczos5") return SamplingKernel::lanczos5;
  if (s == "gaussian") return SamplingKernel::gaussian;
  if (s == "box") return SamplingKernel::box;
  if (s == "triangle") return SamplingKernel::triangle;
  if (s == "keyscubic") return SamplingKernel::keys_cubic;
  if (s == "mitchellcubic") return SamplingKernel::mitchell_cubic;
  return SamplingKernel::end;
}

// LanczosKernelFunc with its radius (1, 3 or 5).
struct LanczosKernel {
  float radius;
  float operator()(float x) const {
    constexpr float kPI = 3.14159265359f;
    x = std::abs(x);
    if (x > radius) return 0.0f;
    if (x <= 1e-3f) return 1.0f;
    return radius * std::sin(kPI * x) * std::sin(kPI * x / radius) / (kPI * kPI * x * x);
  }
  float radius_value() const { return radius; }
};

// GaussianKernelFunc: radius 1.5, sigma 0.5, the exponent in double as TensorFlow's.
struct GaussianKernel {
  float radius = 1.5f;
  float sigma = 1.5f / 3.0f;
  float operator()(float x) const {
    x = std::abs(x);
    if (x >= radius) return 0.0f;
    return static_cast<float>(std::exp(-x * x / (2.0 * sigma * sigma)));
  }
  float radius_value() const { return radius; }
};

// BoxKernelFunc: 1 inside (-0.5, 0.5), 0.5 on its edge.
struct BoxKernel {
  float operator()(float x) const {
    x = std::abs(x);
    return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
  }
  float radius_value() const { return 1.0f; }
};

// TriangleKernelFunc: the hat of radius 1.
struct TriangleKernel {
  float operator()(float x) const {
    x = std::abs(x);
    return x < 1.0f ? 1.0f - x : 0.0f;
  }
  float radius_value() const { return 1.0f; }
};

// KeysCubicKernelFunc: Catmull-Rom.
struct KeysCubicKernel {
  float operator()(float x) const {
    x = std::abs(x);
    if (x >= 2.0f) return 0.0f;
    if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
    return ((1.5f * x - 2.5f) * x) * x + 1.0f;
  }
  float radius_value() const { return 2.0f; }
};

// MitchellCubicKernelFunc.
struct MitchellCubicKernel {
  float operator()(float x) const {
    x = std::abs(x);
    if (x >= 2.0f) return 0.0f;
    if (x >= 1.0f) return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
    return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
  float radius_value() const { return 2.0f; }
};

// functor::Spans: per output pixel the first input pixel and span_size weights.
struct Spans {
  int span_size = 0;
  std::vector<std::int32_t> starts;
  std::vector<float> weights;
};

// ComputeSpansCore.
template <class Kernel>
Status compute_spans_core(const Kernel& kernel, Index output_size, Index input_size, float scale,
                          float translate, bool antialias, Spans* spans) {
  const auto inv_scale = static_cast<float>(1.0 / scale);
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = kernel.radius_value();
  spans->span_size = std::min(2 * static_cast<int>(std::ceil(radius * kernel_scale)) + 1,
                              static_cast<int>(input_size));
  spans->starts.assign(static_cast<std::size_t>(output_size), 0);
  spans->weights.assign(static_cast<std::size_t>(spans->span_size * output_size), 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> temp_weights;
  for (Index x = 0; x < output_size; ++x) {
    const float col_f = static_cast<float>(x) + 0.5f;
    const float sample_f = col_f * inv_scale + inv_translate;
    // No span where the sampling location is outside the source image.
    if (sample_f < 0 || sample_f > static_cast<float>(input_size)) continue;
    auto span_start = static_cast<Index>(std::ceil(sample_f - radius * kernel_scale - 0.5f));
    auto span_end = static_cast<Index>(std::floor(sample_f + radius * kernel_scale - 0.5f));
    span_start = std::clamp<Index>(span_start, 0, input_size - 1);
    span_end = std::clamp<Index>(span_end, 0, input_size - 1) + 1;
    const auto this_span_size = static_cast<int>(span_end - span_start);
    if (this_span_size > spans->span_size)
      return internal("Span is too large: " + std::to_string(this_span_size) + " vs " +
                      std::to_string(spans->span_size) + ".");
    float total_weight_sum = 0.0f;
    temp_weights.clear();
    for (Index source = span_start; source < span_end; ++source) {
      const float kernel_pos = static_cast<float>(source) + 0.5f - sample_f;
      const float weight = kernel(std::abs(kernel_pos * one_over_kernel_scale));
      total_weight_sum += weight;
      temp_weights.push_back(weight);
    }
    if (std::abs(total_weight_sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float one_over_total_weight_sum = 1.0f / total_weight_sum;
      Index out_index = spans->span_size * x;
      for (float weight : temp_weights)
        spans->weights[static_cast<std::size_t>(out_index++)] = weight * one_over_total_weight_sum;
    }
    spans->starts[static_cast<std::size_t>(x)] = static_cast<std::int32_t>(span_start);
  }
  return {};
}

// ComputeSpans: the spans of `kernel` for an axis of `input_size` pixels scaled and
// translated to `output_size`.
Status compute_spans(SamplingKernel kernel, Index output_size, Index input_size, float scale,
                     float translate, bool antialias, Spans* spans) {
  switch (kernel) {
    case SamplingKernel::lanczos1:
      return compute_spans_core(LanczosKernel{1.0f}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::lanczos3:
      return compute_spans_core(LanczosKernel{3.0f}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::lanczos5:
      return compute_spans_core(LanczosKernel{5.0f}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::gaussian:
      return compute_spans_core(GaussianKernel{}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::box:
      return compute_spans_core(BoxKernel{}, output_size, input_size, scale, translate, antialias,
                                spans);
    case SamplingKernel::triangle:
      return compute_spans_core(TriangleKernel{}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::keys_cubic:
      return compute_spans_core(KeysCubicKernel{}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::mitchell_cubic:
      return compute_spans_core(MitchellCubicKernel{}, output_size, input_size, scale, translate,
                                antialias, spans);
    case SamplingKernel::end:
      break;
  }
  return invalid_argument("Unrecognized kernel type: " + std::to_string(static_cast<int>(kernel)));
}

// ComputeGradSpans: for each input pixel, the output pixels whose spans reach it (ordered)
// and the weights they gave it, as spans over the output.
Status compute_grad_spans(SamplingKernel kernel, Index forward_output_size,
                          Index forward_input_size, float scale, float translate, bool antialias,
                          Spans* grad_spans) {
  Spans spans;
  ACTORFLOW_RETURN_IF_ERROR(compute_spans(kernel, forward_output_size, forward_input_size, scale,
                                          translate, antialias, &spans));
  struct GradComponent {
    int index;
    float weight;
  };
  std::vector<std::vector<GradComponent>> components(static_cast<std::size_t>(forward_input_size));
  for (Index output_index = 0; output_index < forward_output_size; ++output_index) {
    Index input_index = spans.starts[static_cast<std::size_t>(output_index)];
    for (int j = 0; j < spans.span_size; ++j, ++input_index) {
      const float weight =
          spans.weights[static_cast<std::size_t>(output_index * spans.span_size + j)];
      if (weight != 0.0f && input_index < forward_input_size)
        components[static_cast<std::size_t>(input_index)].push_back(
            GradComponent{static_cast<int>(output_index), weight});
    }
  }
  int max_size = 0;
  for (auto& gc : components) {
    if (gc.empty()) continue;
    std::sort(gc.begin(), gc.end(),
              [](const GradComponent& a, const GradComponent& b) { return a.index < b.index; });
    max_size = std::max(gc.back().index - gc.front().index + 1, max_size);
  }
  grad_spans->span_size = max_size;
  grad_spans->starts.assign(static_cast<std::size_t>(forward_input_size), 0);
  grad_spans->weights.assign(static_cast<std::size_t>(max_size * forward_input_size), 0.0f);
  for (Index input_index = 0; input_index < forward_input_size; ++input_index) {
    const auto& gc = components[static_cast<std::size_t>(input_index)];
    if (gc.empty()) continue;
    const int start = gc.front().index;
    grad_spans->starts[static_cast<std::size_t>(input_index)] = start;
    for (const GradComponent& c : gc)
      grad_spans->weights[static_cast<std::size_t>(input_index * max_size + c.index - start)] +=
          c.weight;
  }
  return {};
}

// GatherRows then GatherColumns of functor::GatherSpans, per image: each intermediate row a
// weighted sum of input rows, each output pixel a weighted sum of intermediate pixels, in
// float in the spans' order.
template <class T>
void gather_spans(const Spans& rows, const Spans& cols, const T* images, Index batch,
                  Index input_height, Index input_width, Index output_height, Index output_width,
                  Index channels, float* output) {
  const Index in_row_size = input_width * channels;
  std::vector<float> intermediate(static_cast<std::size_t>(output_height * in_row_size));
  for (Index b = 0; b < batch; ++b) {
    const T* image = images + b * input_height * in_row_size;
    for (Index y = 0; y < output_height; ++y) {
      float* out_row = intermediate.data() + y * in_row_size;
      std::fill(out_row, out_row + in_row_size, 0.0f);
      const std::int32_t start = rows.starts[static_cast<std::size_t>(y)];
      const T* in_row = image + in_row_size * start;
      const Index real_span = std::min<Index>(start + rows.span_size, input_height) - start;
      const float* weights = rows.weights.data() + y * rows.span_size;
      for (Index k = 0; k < real_span; ++k, in_row += in_row_size)
        for (Index i = 0; i < in_row_size; ++i)
          out_row[i] += weights[k] * static_cast<float>(in_row[i]);
    }
    float* out = output + b * output_height * output_width * channels;
    for (Index y = 0; y < output_height; ++y) {
      const float* row = intermediate.data() + y * in_row_size;
      for (Index x = 0; x < output_width; ++x) {
        float* pixel = out + (y * output_width + x) * channels;
        const std::int32_t start = cols.starts[static_cast<std::size_t>(x)];
        const float* in_pix = row + start * channels;
        const Index real_span = std::min<Index>(start + cols.span_size, input_width) - start;
        const float* weights = cols.weights.data() + x * cols.span_size;
        std::fill(pixel, pixel + channels, 0.0f);
        for (Index k = 0; k < real_span; ++k, in_pix += channels)
          for (Index c = 0; c < channels; ++c) pixel[c] += weights[k] * in_pix[c];
      }
    }
  }
}

// GetValues: a float vector of two at input `i`: "t must be 1-dimensional[2,2]", "t must
// have two elements[3]".
Status two_values(const OpKernelContext& ctx, int i, float* v1, float* v2) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 1) return invalid_argument("t must be 1-dimensional" + t.shape().to_string());
  if (t.num_elements() != 2)
    return invalid_argument("t must have two elements" + t.shape().to_string());
  *v1 = t.data<float>()[0];
  *v2 = t.data<float>()[1];
  return {};
}

// The (row, col) scale at input 2, both positive ("Scale must be greater than zero."), and the
// (row, col) translation at input 3.
Status scale_and_translation(const OpKernelContext& ctx, float* row_scale, float* col_scale,
                             float* row_translation, float* col_translation) {
  ACTORFLOW_RETURN_IF_ERROR(two_values(ctx, 2, row_scale, col_scale));
  if (!(*row_scale > 0 && *col_scale > 0))
    return invalid_argument("Scale must be greater than zero.");
  return two_values(ctx, 3, row_translation, col_translation);
}

// Reads attrs kernel_type and antialias: "Unrecognized kernel type: cubic".
Status read_kernel_attrs(OpKernelConstruction& c, SamplingKernel* kernel, bool* antialias) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("antialias", antialias));
  std::string name;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("kernel_type", &name));
  *kernel = sampling_kernel_from_string(name);
  if (*kernel == SamplingKernel::end) return invalid_argument("Unrecognized kernel type: " + name);
  return {};
}

// ScaleAndTranslate(images, size, scale, translation): float [batch, size[0], size[1],
// channels], input pixel (i + 0.5) landing on output (i + 0.5) * scale + translation per
// axis, resampled with `kernel_type` (widened by 1 / scale when antialiasing a shrink).
template <class T>
class ScaleAndTranslateOp : public StatusKernel {
 public:
  ScaleAndTranslateOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_kernel_attrs(c, &kernel_, &antialias_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
    const Tensor& size = ctx.input(1);
    if (size.rank() != 1)
      return invalid_argument("output_shape_t must be 1-dimensional" + size.shape().to_string());
    if (size.num_elements() != 2)
      return invalid_argument("output_shape_t must have two elements" + size.shape().to_string());
    const Index output_height = size.data<std::int32_t>()[0];
    const Index output_width = size.data<std::int32_t>()[1];
    const Index int32_max = std::numeric_limits<std::int32_t>::max();
    if (!(input.shape().dim(1) < int32_max && input.shape().dim(2) < int32_max))
      return invalid_argument("input sizes must be between 0 and max int32");
    const Index batch = input.shape().dim(0);
    const Index input_height = input.shape().dim(1);
    const Index input_width = input.shape().dim(2);
    const Index channels = input.shape().dim(3);
    if (output_height <= 0 || output_width <= 0)
      return invalid_argument("output dimensions must be positive");
    if (channels <= 0) return invalid_argument("image must have at least one channel");
    if (input_height <= 0 || input_width <= 0)
      return invalid_argument("input image must be of non-zero size");
    float row_scale = 0, col_scale = 0, row_translation = 0, col_translation = 0;
    ACTORFLOW_RETURN_IF_ERROR(
        scale_and_translation(ctx, &row_scale, &col_scale, &row_translation, &col_translation));
    Tensor& output = ctx.allocate_output_for_overwrite(
        0, DType::float32, Shape{batch, output_height, output_width, channels});
    if (output.num_elements() == 0) return {};
    Spans col_spans, row_spans;
    ACTORFLOW_RETURN_IF_ERROR(compute_spans(kernel_, output_width, input_width, col_scale,
                                            col_translation, antialias_, &col_spans));
    ACTORFLOW_RETURN_IF_ERROR(compute_spans(kernel_, output_height, input_height, row_scale,
                                            row_translation, antialias_, &row_spans));
    gather_spans(row_spans, col_spans, input.data<T>(), batch, input_height, input_width,
                 output_height, output_width, channels, output.data<float>());
    return {};
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 4096;
  }

 private:
  SamplingKernel kernel_ = SamplingKernel::lanczos3;
  bool antialias_ = true;
};

// ScaleAndTranslateGrad(grads, original_image, scale, translation): the gradient of
// ScaleAndTranslate for original_image's height and width (float only).
class ScaleAndTranslateGradOp : public StatusKernel {
 public:
  ScaleAndTranslateGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_kernel_attrs(c, &kernel_, &antialias_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grads = ctx.input(0);
    const Tensor& original = ctx.input(1);
    if (grads.rank() != 4)
      return invalid_argument("input_grad must be 4-dimensional" + grads.shape().to_string());
    if (grads.dtype() != DType::float32)
      return invalid_argument("input_grad must be of type float" +
                              std::string(data_type_string(grads.dtype())));
    if (original.rank() != 4)
      return invalid_argument("original_image must be 4-dimensional" +
                              original.shape().to_string());
    const Index batch = grads.shape().dim(0);
    const Index channels = grads.shape().dim(3);
    const Index forward_input_height = original.shape().dim(1);
    const Index forward_input_width = original.shape().dim(2);
    const Index int32_max = std::numeric_limits<std::int32_t>::max();
    if (!(forward_input_height < int32_max && forward_input_width < int32_max))
      return invalid_argument("original sizes must be between 0 and max int32");
    Tensor& output = ctx.allocate_output_for_overwrite(
        0, DType::float32, Shape{batch, forward_input_height, forward_input_width, channels});
    float row_scale = 0, col_scale = 0, row_translation = 0, col_translation = 0;
    ACTORFLOW_RETURN_IF_ERROR(
        scale_and_translation(ctx, &row_scale, &col_scale, &row_translation, &col_translation));
    const Index forward_output_height = grads.shape().dim(1);
    const Index forward_output_width = grads.shape().dim(2);
    Spans col_spans, row_spans;
    ACTORFLOW_RETURN_IF_ERROR(compute_grad_spans(kernel_, forward_output_width, forward_input_width,
                                                 col_scale, col_translation, antialias_,
                                                 &col_spans));
    ACTORFLOW_RETURN_IF_ERROR(compute_grad_spans(kernel_, forward_output_height,
                                                 forward_input_height, row_scale, row_translation,
                                                 antialias_, &row_spans));
    gather_spans(row_spans, col_spans, grads.data<float>(), batch, forward_output_height,
                 forward_output_width, forward_input_height, forward_input_width, channels,
                 output.data<float>());
    return {};
  }

 private:
  SamplingKernel kernel_ = SamplingKernel::lanczos3;
  bool antialias_ = true;
};

}  // namespace

namespace detail {

void register_image_scale_kernels(KernelRegistry& r) {
  // TensorFlow registers every real type; these are the ones the op allows within
  // actorflow's.
  register_for_types<ScaleAndTranslateOp, std::uint8_t, std::int32_t, std::int64_t, bfloat16_t,
                     float, double>(r, "ScaleAndTranslate");
  register_via_float<half_t>(r, "ScaleAndTranslate",
                             make_kernel_def<ScaleAndTranslateOp<float>>("", "").factory);
  r.add(make_kernel_def<ScaleAndTranslateGradOp>("ScaleAndTranslateGrad", "CPU",
                                                 {{"T", {DType::float32}}}));
}

}  // namespace detail

}  // namespace af
