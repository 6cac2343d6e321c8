// DecodeWav, EncodeWav, AudioSpectrogram and Mfcc: CPU kernels with TensorFlow's checks and
// messages (kernels/decode_wav_op.cc, encode_wav_op.cc, spectrogram_op.cc, mfcc_op.cc). The
// arithmetic is in audio_dsp.cpp; the definitions in ops/src/defs/audio_ops.cpp. TensorFlow
// registers no gradient for any of them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "audio_dsp.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

namespace dsp = detail::audio;
using detail::Index;
using detail::node_suffix;
using detail::StatusKernel;

// DecodeWav(contents; desired_channels, desired_samples): audio float [samples, channels]
// (the last channel repeated up to desired_channels, zeros past the file's samples) and the
// header's sample_rate.
class DecodeWavOp : public StatusKernel {
 public:
  DecodeWavOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("desired_channels", &desired_channels_);
    if (s->ok()) *s = c.get_attr("desired_samples", &desired_samples_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& contents = ctx.input(0);
    if (contents.rank() != 0)
      return invalid_argument("contents must be scalar, got shape " + contents.shape().to_string());
    const std::string& wav = contents.data<std::string>()[0];
    if (wav.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      return invalid_argument("WAV contents are too large for int: " + std::to_string(wav.size()));
    std::vector<float> samples;
    std::uint32_t sample_count = 0, sample_rate = 0;
    std::uint16_t channel_count = 0;
    if (auto e = dsp::decode_wav(wav, &samples, &sample_count, &channel_count, &sample_rate);
        !e.empty())
      return invalid_argument(e);
    if (desired_channels_ < -1)
      return invalid_argument("desired_channels must be >= -1, got " +
                              std::to_string(desired_channels_));
    if (desired_samples_ < -1)
      return invalid_argument("desired_samples must be >= -1, got " +
                              std::to_string(desired_samples_));
    // int32 as TensorFlow's: a count of 2^31 frames or more turns negative and is refused.
    const auto out_samples = static_cast<std::int32_t>(
        desired_samples_ == -1 ? static_cast<std::int64_t>(sample_count) : desired_samples_);
    const auto out_channels = static_cast<std::int32_t>(
        desired_channels_ == -1 ? std::int64_t{channel_count} : desired_channels_);
    if (out_samples < 0)
      return invalid_argument("Output sample count must be >= 0, got " +
                              std::to_string(out_samples));
    if (out_channels < 0)
      return invalid_argument("Output channel count must be >= 0, got " +
                              std::to_string(out_channels));
    Tensor& audio = ctx.allocate_output(0, DType::float32, Shape{out_samples, out_channels});
    float* out = audio.data<float>();
    for (Index sample = 0; sample < out_samples; ++sample) {
      if (sample >= static_cast<Index>(sample_count)) break;  // zeros from here on
      for (Index channel = 0; channel < out_channels; ++channel) {
        const Index source = channel < channel_count ? channel : channel_count - 1;
        out[sample * out_channels + channel] =
            samples[static_cast<std::size_t>(sample * channel_count + source)];
      }
    }
    Tensor& rate = ctx.allocate_output(1, DType::int32, Shape{});
    rate.data<std::int32_t>()[0] = static_cast<std::int32_t>(sample_rate);
    return {};
  }

 private:
  std::int64_t desired_channels_ = -1;
  std::int64_t desired_samples_ = -1;
};

// EncodeWav(audio, sample_rate): a scalar 16-bit PCM WAV of float [frames, channels].
class EncodeWavOp : public StatusKernel {
 public:
  EncodeWavOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = {}; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& audio = ctx.input(0);
    if (audio.rank() != 2)
      return invalid_argument("audio must be 2-dimensional" + audio.shape().to_string());
    const Tensor& rate = ctx.input(1);
    if (rate.rank() != 0)
      return invalid_argument("Input sample_rate should be a scalar tensor, got " +
                              rate.shape().to_string() + " instead.");
    const std::int32_t sample_rate = rate.data<std::int32_t>()[0];
    if (audio.num_elements() >= std::numeric_limits<std::int32_t>::max())
      return invalid_argument("Cannot encode audio with >= max int32 elements");
    const auto channels = static_cast<std::int32_t>(audio.shape().dim(1));
    const auto frames = static_cast<std::int32_t>(audio.shape().dim(0));
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{});
    // An empty tensor has no data: TensorFlow's pointer is null then ("audio is null" when
    // there are frames but no channels). The int32 sample rate widens as TensorFlow's size_t.
    const float* data = audio.num_elements() == 0 ? nullptr : audio.data<float>();
    if (auto e = dsp::encode_wav(data, static_cast<std::size_t>(sample_rate),
                                 static_cast<std::size_t>(channels),
                                 static_cast<std::size_t>(frames), &out.data<std::string>()[0]);
        !e.empty())
      return invalid_argument(e);
    return {};
  }
};

// AudioSpectrogram(input; window_size, stride, magnitude_squared): float [channels, windows,
// 1 + fft_length / 2] of float [samples, channels].
class AudioSpectrogramOp : public StatusKernel {
 public:
  AudioSpectrogramOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = init(c);
    if (!s->ok()) *s = s->with_context(node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 2)
      return invalid_argument("input must be 2-dimensional" + input.shape().to_string());
    dsp::Spectrogram spectrogram;
    if (!spectrogram.initialize(window_size_, stride_))
      return invalid_argument("Spectrogram initialization failed for window size " +
                              std::to_string(window_size_) + " and stride " +
                              std::to_string(stride_));
    const Index samples = input.shape().dim(0), channels = input.shape().dim(1);
    const Index width = spectrogram.output_frequency_channels();
    const Index height = samples < window_size_ ? 0 : 1 + (samples - window_size_) / stride_;
    Tensor& output = ctx.allocate_output(0, DType::float32, Shape{channels, height, width});
    float* out = output.data<float>();
    const float* in = input.data<float>();
    std::vector<float> channel_samples(static_cast<std::size_t>(samples));
    std::vector<std::vector<float>> rows;
    for (Index channel = 0; channel < channels; ++channel) {
      for (Index i = 0; i < samples; ++i)
        channel_samples[static_cast<std::size_t>(i)] = in[i * channels + channel];
      spectrogram.compute_squared_magnitude(channel_samples, &rows);
      float* slice = out + channel * height * width;
      for (Index r = 0; r < height; ++r)
        for (Index i = 0; i < width; ++i) {
          const float v = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
          slice[r * width + i] = magnitude_squared_ ? v : std::sqrt(v);
        }
    }
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    std::int64_t window_size = 0, stride = 0;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("window_size", &window_size));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("stride", &stride));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("magnitude_squared", &magnitude_squared_));
    window_size_ = static_cast<std::int32_t>(window_size);
    stride_ = static_cast<std::int32_t>(stride);
    if (window_size_ <= 1)
      return invalid_argument("window_size must be > 1, got " + std::to_string(window_size_));
    if (stride_ <= 0) return invalid_argument("stride must be > 0, got " + std::to_string(stride_));
    return {};
  }

  std::int32_t window_size_ = 0, stride_ = 0;
  bool magnitude_squared_ = false;
};

// Mfcc(spectrogram, sample_rate; upper_frequency_limit, lower_frequency_limit,
// filterbank_channel_count, dct_coefficient_count): float [channels, windows, coefficients].
class MfccOp : public StatusKernel {
 public:
  MfccOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = init(c);
    if (!s->ok()) *s = s->with_context(node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& spectrogram = ctx.input(0);
    if (spectrogram.rank() != 3)
      return invalid_argument("spectrogram must be 3-dimensional" +
                              spectrogram.shape().to_string());
    const Tensor& rate = ctx.input(1);
    if (rate.rank() != 0)
      return invalid_argument("Input sample_rate should be a scalar tensor, got " +
                              rate.shape().to_string() + " instead.");
    const std::int32_t sample_rate = rate.data<std::int32_t>()[0];
    const Index bins = spectrogram.shape().dim(2), windows = spectrogram.shape().dim(1);
    const Index channels = spectrogram.shape().dim(0);
    dsp::Mfcc mfcc = mfcc_;
    if (!mfcc.initialize(static_cast<int>(bins), sample_rate))
      return invalid_argument("Mfcc initialization failed for channel count " +
                              std::to_string(static_cast<int>(bins)) + ", sample rate " +
                              std::to_string(sample_rate) + " and filterbank_channel_count " +
                              std::to_string(mfcc.filterbank_channel_count));
    const Index coefficients = mfcc.dct_coefficient_count;
    Tensor& output = ctx.allocate_output(0, DType::float32, Shape{channels, windows, coefficients});
    const float* in = spectrogram.data<float>();
    float* out = output.data<float>();
    std::vector<double> frame(static_cast<std::size_t>(bins)), coefficients_out;
    for (Index w = 0; w < channels * windows; ++w) {
      for (Index i = 0; i < bins; ++i) frame[static_cast<std::size_t>(i)] = in[w * bins + i];
      mfcc.compute(frame, &coefficients_out);
      for (Index i = 0; i < coefficients; ++i)
        out[w * coefficients + i] =
            static_cast<float>(coefficients_out[static_cast<std::size_t>(i)]);
    }
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    float upper = 4000, lower = 20;
    std::int64_t filterbank_channels = 40, coefficients = 13;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("upper_frequency_limit", &upper));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("lower_frequency_limit", &lower));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("filterbank_channel_count", &filterbank_channels));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dct_coefficient_count", &coefficients));
    // The attrs are float and int32 in TensorFlow's kernel; the Mfcc works in double.
    mfcc_.upper_frequency_limit = upper;
    mfcc_.lower_frequency_limit = lower;
    mfcc_.filterbank_channel_count = static_cast<std::int32_t>(filterbank_channels);
    mfcc_.dct_coefficient_count = static_cast<std::int32_t>(coefficients);
    return {};
  }

  dsp::Mfcc mfcc_;
};

}  // namespace

namespace detail {

void register_audio_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<DecodeWavOp>("DecodeWav", "CPU"));
  r.add(make_kernel_def<EncodeWavOp>("EncodeWav", "CPU"));
  r.add(make_kernel_def<AudioSpectrogramOp>("AudioSpectrogram", "CPU"));
  r.add(make_kernel_def<MfccOp>("Mfcc", "CPU"));
}

}  // namespace detail

}  // namespace af
