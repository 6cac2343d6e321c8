// Summaries as TensorFlow's summary kernels encode them (tensorflow/core/kernels/
// summary_op.cc, tensorflow/core/lib/histogram/histogram.cc).
#include "actorflow/formats/summary.hpp"

#include <zlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>

#include "actorflow/tf/summary.pb.h"

namespace af::summary {

namespace {

std::vector<double> make_default_limits() {
  std::vector<double> positive;
  double v = 1.0e-12;
  while (v < 1.0e20) {
    positive.push_back(v);
    v *= 1.1;  // repeated multiplication, as TensorFlow does (not pow)
  }
  positive.push_back(DBL_MAX);
  std::vector<double> limits;
  limits.reserve(2 * positive.size() + 1);
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  return limits;
}

}  // namespace

const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = make_default_limits();
  return limits;
}

Histogram::Histogram()
    : limits_(&default_bucket_limits()),
      buckets_(limits_->size(), 0.0),
      min_(DBL_MAX),
      max_(-DBL_MAX) {}

void Histogram::add(double value) {
  auto b = static_cast<std::size_t>(std::upper_bound(limits_->begin(), limits_->end(), value) -
                                    limits_->begin());
  b = std::min(b, buckets_.size() - 1);  // DBL_MAX itself: the last bucket
  buckets_[b] += 1.0;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

std::string Histogram::encode() const {
  tensorflow::HistogramProto proto;
  proto.set_min(min_);
  proto.set_max(max_);
  proto.set_num(num_);
  proto.set_sum(sum_);
  proto.set_sum_squares(sum_squares_);
  for (std::size_t i = 0; i < buckets_.size();) {
    double end = (*limits_)[i];
    double count = buckets_[i];
    ++i;
    if (count <= 0.0) {  // a run of empty buckets becomes one
      while (i < buckets_.size() && buckets_[i] <= 0.0) {
        end = (*limits_)[i];
        count = buckets_[i];
        ++i;
      }
    }
    proto.add_bucket_limit(end);
    proto.add_bucket(count);
  }
  if (proto.bucket_size() == 0) {
    proto.add_bucket_limit(DBL_MAX);
    proto.add_bucket(0.0);
  }
  return proto.SerializeAsString();
}

std::string scalar(const std::string& tag, float value) {
  tensorflow::Summary s;
  auto* v = s.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return s.SerializeAsString();
}

StatusOr<std::string> histogram(const std::string& tag, std::span<const double> values,
                                const std::string& node) {
  const std::string& who = node.empty() ? tag : node;
  Histogram h;
  for (double x : values) {
    if (std::isnan(x)) return invalid_argument("Nan in summary histogram for: " + who);
    if (std::isinf(x)) return invalid_argument("Infinity in summary histogram for: " + who);
    h.add(x);
  }
  tensorflow::Summary s;
  auto* v = s.add_value();
  v->set_tag(tag);
  if (!v->mutable_histo()->ParseFromString(h.encode()))
    return internal("histogram: could not re-read its own encoding");
  return s.SerializeAsString();
}

std::string image(const std::string& tag, int height, int width, int colorspace,
                  const std::string& png) {
  tensorflow::Summary s;
  auto* v = s.add_value();
  v->set_tag(tag);
  auto* im = v->mutable_image();
  im->set_height(height);
  im->set_width(width);
  im->set_colorspace(colorspace);
  im->set_encoded_image_string(png);
  return s.SerializeAsString();
}

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

// One PNG chunk: length, type, data, and the CRC-32 of type and data.
void put_chunk(std::string& out, const char* type, const std::string& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.append(type, 4);
  out += data;
  const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(out.data() + start),
                           static_cast<uInt>(out.size() - start));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

StatusOr<std::string> encode_png(const std::uint8_t* pixels, int height, int width, int channels) {
  static const std::uint8_t kColorType[] = {0, 0, 4, 2,
                                            6};  // by channel count: gray, gray+alpha, RGB, RGBA
  if (channels < 1 || channels > 4)
    return invalid_argument("PNG: " + std::to_string(channels) + " channels; 1 to 4 expected");
  if (height <= 0 || width <= 0)
    return invalid_argument("PNG: an image of " + std::to_string(height) + "x" +
                            std::to_string(width) + " pixels");
  const std::size_t row = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
  std::string raw;
  raw.reserve((row + 1) * static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) {
    raw.push_back('\0');  // filter type None
    raw.append(reinterpret_cast<const char*>(pixels) + static_cast<std::size_t>(y) * row, row);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
                reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                Z_DEFAULT_COMPRESSION) != Z_OK)
    return internal("PNG encoding failed");
  packed.resize(size);
  std::string header;
  put_u32(header, static_cast<std::uint32_t>(width));
  put_u32(header, static_cast<std::uint32_t>(height));
  header += std::string{'\x08', static_cast<char>(kColorType[channels]), '\0', '\0',
                        '\0'};  // 8 bits, deflate, no interlace
  std::string png("\x89PNG\r\n\x1a\n", 8);
  put_chunk(png, "IHDR", header);
  put_chunk(png, "IDAT", packed);
  put_chunk(png, "IEND", {});
  return png;
}

std::string text(const std::string& tag, const std::string& value) {
  tensorflow::Summary s;
  auto* v = s.add_value();
  v->set_tag(tag);
  v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  auto* t = v->mutable_tensor();
  t->set_dtype(tensorflow::DT_STRING);
  t->mutable_tensor_shape();  // a scalar: a shape without dims
  t->add_string_val(value);
  return s.SerializeAsString();
}

StatusOr<std::string> merge(std::span<const std::string> summaries) {
  tensorflow::Summary out;
  std::set<std::string> tags;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    tensorflow::Summary in;
    if (!in.ParseFromString(summaries[i]))
      return invalid_argument("Could not parse one of the summary inputs");
    for (const auto& v : in.value()) {
      if (!v.tag().empty() && !tags.insert(v.tag()).second)
        return invalid_argument("Duplicate tag " + v.tag() + " found in summary inputs ");
      *out.add_value() = v;
    }
  }
  return out.SerializeAsString();
}

}  // namespace af::summary
