// Tensors into summary values (see summary_convert.hpp).
#include "summary_convert.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "actorflow/formats/summary.hpp"
#include "audio_dsp.hpp"
#include "tf_proto.hpp"

namespace af::summary::detail {

Status to_doubles(const Tensor& t, std::vector<double>* out, bool allow_bool) {
  out->resize(static_cast<std::size_t>(t.num_elements()));
  const bool real = (allow_bool || t.dtype() != DType::boolean) && !is_complex(t.dtype()) &&
                    visit_numeric_dtype(t.dtype(), [&](auto tag) {
                      using T = decltype(tag);
                      const T* p = t.data<T>();
                      for (std::size_t i = 0; i < out->size(); ++i) {
                        if constexpr (is_complex_v<T>)
                          (*out)[i] = 0;  // refused above
                        else if constexpr (is_half_like_v<T>)
                          (*out)[i] = static_cast<double>(static_cast<float>(p[i]));
                        else
                          (*out)[i] = static_cast<double>(p[i]);
                      }
                    });
  if (!real)
    return invalid_argument("summary values must be real numbers, not " +
                            std::string(dtype_name(t.dtype())));
  return {};
}

Status tensor_proto(const Tensor& t, tensorflow::TensorProto* out, const std::string& where) {
  ACTORFLOW_RETURN_IF_ERROR(tfproto::to_proto(t, out, where));
  if (t.dtype() == DType::string) return {};
  const auto shape = out->tensor_shape();
  out->Clear();
  out->set_dtype(tfproto::to_proto(t.dtype()));
  *out->mutable_tensor_shape() = shape;
  if (t.num_elements() > 0)
    out->set_tensor_content(std::string(static_cast<const char*>(t.raw_data()), t.total_bytes()));
  return {};
}

Status add_scalar(const Tensor& t, const std::string& tag, tensorflow::Summary* s) {
  if (t.num_elements() == 0)
    return invalid_argument("the value of scalar summary '" + tag + "' has no elements: shape " +
                            t.shape().to_string());
  std::vector<double> v;
  ACTORFLOW_RETURN_IF_ERROR(to_doubles(t, &v, true));
  auto* value = s->add_value();
  value->set_tag(tag);
  value->set_simple_value(static_cast<float>(v[0]));
  return {};
}

Status add_histogram(const Tensor& t, const std::string& tag, tensorflow::Summary* s) {
  std::vector<double> v;
  ACTORFLOW_RETURN_IF_ERROR(to_doubles(t, &v, true));
  auto one = histogram(tag, v);  // the errors name the tag, as the writer's converter does
  if (!one.ok()) return one.status();
  if (!s->MergeFromString(*one)) return internal("histogram: could not re-read its own summary");
  return {};
}

namespace {

// NormalizeFloatImage: one image of `pixels` pixels of `depth` channels into uint8.
template <class T>
void normalize(const T* values, std::size_t pixels, int depth,
               std::span<const std::uint8_t> bad_color, std::uint8_t* image) {
  const auto c = static_cast<std::size_t>(depth);
  auto finite = [&](std::size_t i) {
    for (std::size_t j = 0; j < c; ++j)
      if (!std::isfinite(values[i * c + j])) return false;
    return true;
  };
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < pixels; ++i)
    if (finite(i))
      for (std::size_t j = 0; j < c; ++j) {
        lo = std::min(lo, static_cast<float>(values[i * c + j]));
        hi = std::max(hi, static_cast<float>(values[i * c + j]));
      }
  constexpr float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (lo < 0) {
    const float max_val = std::max(std::abs(lo), std::abs(hi));
    scale = T(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = T(128.0f);
  } else {
    scale = T(hi < kZeroThreshold ? 0.0f : 255.0f / hi);
    offset = T(0.0f);
  }
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t j = 0; j < c; ++j)
      image[i * c + j] =
          finite(i) ? static_cast<std::uint8_t>(values[i * c + j] * scale + offset) : bad_color[j];
}

}  // namespace

Status add_images(const Tensor& t, const std::string& tag, int max_images,
                  std::span<const std::uint8_t> bad_color, tensorflow::Summary* s) {
  const auto& d = t.shape().dims();
  if (d.size() != 4 || (d[3] != 1 && d[3] != 3 && d[3] != 4))
    return invalid_argument("Tensor must be 4-D with last dim 1, 3, or 4, not " +
                            t.shape().to_string());
  if (d[0] >= (std::int64_t{1} << 31) || d[1] >= (std::int64_t{1} << 31) ||
      d[2] >= (std::int64_t{1} << 31) || d[1] * d[2] >= (std::int64_t{1} << 29))
    return invalid_argument("Tensor too large for summary " + t.shape().to_string());
  if (t.dtype() != DType::uint8 && t.dtype() != DType::float32 && t.dtype() != DType::float64)
    return invalid_argument(
        "Only DT_INT8, DT_HALF, DT_DOUBLE, and DT_FLOAT images are supported. Got " +
        std::string(data_type_string(t.dtype())));
  const int batch = static_cast<int>(d[0]), h = static_cast<int>(d[1]), w = static_cast<int>(d[2]),
            depth = static_cast<int>(d[3]);
  if (t.dtype() != DType::uint8 && bad_color.size() < static_cast<std::size_t>(depth))
    return invalid_argument(
        "expected depth <= bad_color.size, got depth = " + std::to_string(depth) +
        ", bad_color.size = " + std::to_string(bad_color.size()));
  const std::size_t pixels = static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
  std::vector<std::uint8_t> image(pixels * static_cast<std::size_t>(depth));
  for (int i = 0; i < std::min(max_images, batch); ++i) {
    const std::size_t offset = static_cast<std::size_t>(i) * image.size();
    if (t.dtype() == DType::uint8) {
      const std::uint8_t* p = t.data<std::uint8_t>() + offset;
      std::copy(p, p + image.size(), image.begin());
    } else if (t.dtype() == DType::float32) {
      normalize(t.data<float>() + offset, pixels, depth, bad_color, image.data());
    } else {
      normalize(t.data<double>() + offset, pixels, depth, bad_color, image.data());
    }
    auto png = encode_png(image.data(), h, w, depth);
    if (!png.ok()) return png.status();
    auto* v = s->add_value();
    v->set_tag(max_images > 1 ? tag + "/image/" + std::to_string(i) : tag + "/image");
    auto* im = v->mutable_image();
    im->set_height(h);
    im->set_width(w);
    im->set_colorspace(depth);
    im->set_encoded_image_string(std::move(png).value());
  }
  return {};
}

Status add_audio(const Tensor& t, const std::string& tag, int max_outputs, float sample_rate,
                 tensorflow::Summary* s) {
  if (t.rank() < 2 || t.rank() > 3)
    return invalid_argument("Tensor must be 3-D or 2-D, got: " + t.shape().to_string());
  if (!(sample_rate > 0.0f)) return invalid_argument("sample_rate must be > 0");
  if (t.dtype() != DType::float32)
    return invalid_argument("audio must be float, not " + std::string(dtype_name(t.dtype())));
  const std::int64_t batch = t.shape().dim(0), frames = t.shape().dim(1);
  const std::int64_t channels = t.rank() == 2 ? 1 : t.shape().dim(2);
  long rounded = std::lrint(sample_rate);
  const std::size_t rate = rounded <= 0 ? 1 : static_cast<std::size_t>(rounded);
  for (std::int64_t i = 0; i < std::min<std::int64_t>(max_outputs, batch); ++i) {
    auto* v = s->add_value();
    v->set_tag(max_outputs > 1 ? tag + "/audio/" + std::to_string(i) : tag + "/audio");
    auto* a = v->mutable_audio();
    a->set_sample_rate(sample_rate);
    a->set_num_channels(channels);
    a->set_length_frames(frames);
    a->set_content_type("audio/wav");
    const float* data = t.num_elements() == 0 ? nullptr : t.data<float>() + i * frames * channels;
    if (auto e = af::detail::audio::encode_wav(data, rate, static_cast<std::size_t>(channels),
                                               static_cast<std::size_t>(frames),
                                               a->mutable_encoded_audio_string());
        !e.empty())
      return invalid_argument(e);
  }
  return {};
}

}  // namespace af::summary::detail
