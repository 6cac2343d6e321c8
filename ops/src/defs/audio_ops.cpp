// The definitions of DecodeWav, EncodeWav, AudioSpectrogram and Mfcc with TensorFlow's shape
// functions (ops/audio_ops.cc: DecodeWavShapeFn, EncodeWavShapeFn, SpectrogramShapeFn,
// MfccShapeFn) and their builders (tf.audio.decode_wav / encode_wav, and the raw
// AudioSpectrogram and Mfcc). Kernels: kernels/src/audio_ops.cpp. TensorFlow registers no
// gradient for any of them.
#include "actorflow/ops/audio_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::with_rank;

// An int attr, `fallback` where the node has none (graphs imported without defaults).
Index int_attr(const InferenceContext& c, const char* name, Index fallback) {
  if (auto p = c.node.attr<std::int64_t>(name)) return *p;
  return fallback;
}

// DecodeWavShapeFn: audio [desired_samples, desired_channels] (unknown for -1), a scalar rate.
Status infer_decode_wav(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  const Index channels = int_attr(c, "desired_channels", -1);
  if (channels < -1)
    return invalid_argument("channels must be non-negative, got " + std::to_string(channels));
  const Index samples = int_attr(c, "desired_samples", -1);
  if (samples < -1)
    return invalid_argument("samples must be non-negative, got " + std::to_string(samples));
  c.add_output(DType::float32, PartialShape{samples, channels});
  c.add_output(DType::int32, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

// EncodeWavShapeFn: float audio of rank 2 and an int32 scalar rate to a scalar string.
Status infer_encode_wav(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  c.add_output(DType::string, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

// SpectrogramShapeFn: [channels, 1 + (length - window_size) / stride (0 when shorter than a
// window), 1 + NextPowerOfTwo(window_size) / 2] of float [length, channels].
Status infer_spectrogram(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::float32));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, 2));
  Index window_size = 0, stride = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("window_size", &window_size));
  if (window_size <= 1)
    return invalid_argument("window size must be > 1, got " + std::to_string(window_size));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("stride", &stride));
  if (stride <= 0)
    return invalid_argument("stride must be strictly positive, got " + std::to_string(stride));
  const Index channels = input.rank_known() ? input.dim(1) : -1;
  const Index length = input.rank_known() ? input.dim(0) : -1;
  Index windows = -1;
  if (length >= 0) windows = length < window_size ? 0 : 1 + (length - window_size) / stride;
  Index fft_length = 1;
  while (fft_length < window_size) fft_length <<= 1;
  c.add_output(DType::float32, PartialShape{channels, windows, 1 + fft_length / 2});
  return {};
}

// MfccShapeFn: [channels, windows, dct_coefficient_count] of a float spectrogram of rank 3 and
// an int32 scalar rate (a negative count: unknown, as MakeDim(-1)).
Status infer_mfcc(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  const PartialShape& spectrogram = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(spectrogram, 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  const Index coefficients = int_attr(c, "dct_coefficient_count", 13);
  const Index channels = spectrogram.rank_known() ? spectrogram.dim(0) : -1;
  const Index windows = spectrogram.rank_known() ? spectrogram.dim(1) : -1;
  c.add_output(DType::float32,
               PartialShape{channels, windows, coefficients < 0 ? -1 : coefficients});
  return {};
}

std::string op_name(std::string_view name, const char* default_name) {
  return std::string(name.empty() ? default_name : name);
}

}  // namespace

namespace detail {

void register_audio_ops(OpRegistry& r) {
  r.add({"DecodeWav", infer_decode_wav});
  r.add({"EncodeWav", infer_encode_wav});
  r.add({"AudioSpectrogram", infer_spectrogram});
  r.add({"Mfcc", infer_mfcc});
}

}  // namespace detail

namespace audio {

DecodeWavOutputs decode_wav(const Output& contents, std::int64_t desired_channels,
                            std::int64_t desired_samples, std::string_view name) {
  Operation op = contents.graph().create_op(
      "DecodeWav", {contents},
      {{"desired_channels", desired_channels}, {"desired_samples", desired_samples}},
      op_name(name, "DecodeWav"));
  return {op.output(0), op.output(1)};
}

Output encode_wav(const Output& audio, const Output& sample_rate, std::string_view name) {
  return audio.graph()
      .create_op("EncodeWav", {audio, sample_rate}, {}, op_name(name, "EncodeWav"))
      .output(0);
}

Output encode_wav(const Output& audio, std::int32_t sample_rate, std::string_view name) {
  Graph& g = audio.graph();
  const std::string full = g.unique_name(op_name(name, "EncodeWav"));
  Output rate;
  {
    auto scope = g.name_scope(full + "/");
    rate = g.constant(Tensor(sample_rate), "sample_rate");
  }
  return encode_wav(audio, rate, full + "/");
}

Output audio_spectrogram(const Output& input, std::int64_t window_size, std::int64_t stride,
                         bool magnitude_squared, std::string_view name) {
  return input.graph()
      .create_op("AudioSpectrogram", {input},
                 {{"window_size", window_size},
                  {"stride", stride},
                  {"magnitude_squared", magnitude_squared}},
                 op_name(name, "AudioSpectrogram"))
      .output(0);
}

Output mfcc(const Output& spectrogram, const Output& sample_rate, const MfccOptions& options,
            std::string_view name) {
  return spectrogram.graph()
      .create_op("Mfcc", {spectrogram, sample_rate},
                 {{"upper_frequency_limit", options.upper_frequency_limit},
                  {"lower_frequency_limit", options.lower_frequency_limit},
                  {"filterbank_channel_count", options.filterbank_channel_count},
                  {"dct_coefficient_count", options.dct_coefficient_count}},
                 op_name(name, "Mfcc"))
      .output(0);
}

Output mfcc(const Output& spectrogram, std::int32_t sample_rate, const MfccOptions& options,
            std::string_view name) {
  Graph& g = spectrogram.graph();
  const std::string full = g.unique_name(op_name(name, "Mfcc"));
  Output rate;
  {
    auto scope = g.name_scope(full + "/");
    rate = g.constant(Tensor(sample_rate), "sample_rate");
  }
  return mfcc(spectrogram, rate, options, full + "/");
}

}  // namespace audio

}  // namespace af
