#pragma once

/// TensorBoard summaries as TensorFlow encodes them: serialized `tensorflow.Summary` protos
/// (what TensorFlow's ScalarSummary, HistogramSummary and MergeSummary kernels output), and
/// TensorFlow's histogram with its default bucket limits. `af::summary::FileWriter`
/// (event_file.hpp) writes them into an events file that TensorBoard reads.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "actorflow/ops/status_or.hpp"

namespace af::summary {

/// TensorFlow's default histogram bucket limits (`tensorflow/core/lib/histogram`): from
/// 1e-12, each limit 1.1 times the last (by repeated multiplication) while below 1e20, the
/// same mirrored below zero, 0 in the middle and ±DBL_MAX at the ends: 1551 limits.
const std::vector<double>& default_bucket_limits();

/// A histogram of doubles with TensorFlow's semantics: a value x lands in bucket
/// `upper_bound(limits, x)`, so bucket i counts [limits[i-1], limits[i]). Empty: min is
/// DBL_MAX, max is -DBL_MAX.
class Histogram {
 public:
  /// An empty histogram over `default_bucket_limits()`.
  Histogram();

  /// Adds one value (finite; callers reject NaN and infinities first, as the kernel does).
  void add(double value);

  /// Returns a serialized `tensorflow.HistogramProto` as TensorFlow's `EncodeToProto` with
  /// `preserve_zero_buckets=false` writes it: each non-empty bucket as (limit, count), each
  /// run of empty buckets as one (limit of its last bucket, 0), and (DBL_MAX, 0) when that
  /// leaves nothing.
  std::string encode() const;

  double min() const noexcept { return min_; }                  ///< smallest value added
  double max() const noexcept { return max_; }                  ///< largest value added
  double num() const noexcept { return num_; }                  ///< how many values were added
  double sum() const noexcept { return sum_; }                  ///< their sum
  double sum_squares() const noexcept { return sum_squares_; }  ///< the sum of their squares

 private:
  const std::vector<double>* limits_;
  std::vector<double> buckets_;
  double min_, max_, num_ = 0, sum_ = 0, sum_squares_ = 0;
};

/// Returns a serialized `tensorflow.Summary` with one value `{tag, simple_value}`, as
/// TensorFlow's ScalarSummary writes for a scalar.
std::string scalar(const std::string& tag, float value);

/// Returns a serialized `tensorflow.Summary` with one value `{tag, histo}` over `values`, as
/// TensorFlow's HistogramSummary kernel writes it. A NaN fails with InvalidArgument "Nan in
/// summary histogram for: <node>", an infinity with "Infinity in summary histogram for:
/// <node>" (`node` names the op; the tag when empty).
StatusOr<std::string> histogram(const std::string& tag, std::span<const double> values,
                                const std::string& node = {});

/// Returns a serialized `tensorflow.Summary` with one image value `{tag, image{height, width,
/// colorspace, encoded_image_string}}`; `png` is the encoded image, `colorspace` 1 (gray),
/// 2 (gray + alpha), 3 (RGB) or 4 (RGBA).
std::string image(const std::string& tag, int height, int width, int colorspace,
                  const std::string& png);

/// Encodes 8-bit pixels as a PNG (zlib's default compression, no filtering): `pixels` holds
/// `height` rows of `width` pixels of `channels` (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA)
/// bytes each, row-major. What TensorFlow's ImageSummary puts in `encoded_image_string`.
/// InvalidArgument for another channel count or a non-positive size.
StatusOr<std::string> encode_png(const std::uint8_t* pixels, int height, int width, int channels);

/// Returns a serialized `tensorflow.Summary` with one text value as TensorFlow's
/// `tf.summary.text` writes it: a DT_STRING scalar tensor with the `text` plugin's metadata.
std::string text(const std::string& tag, const std::string& value);

/// Merges serialized summaries into one, as TensorFlow's MergeSummary: the values in order.
/// A summary that does not parse fails with InvalidArgument "Could not parse one of the
/// summary inputs" (input index named); a tag seen twice with InvalidArgument "Duplicate tag
/// <tag> found in summary inputs".
StatusOr<std::string> merge(std::span<const std::string> summaries);

}  // namespace af::summary
