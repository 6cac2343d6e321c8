#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Audio: WAV decoding and encoding, spectrograms and MFCCs (TensorFlow's `tf.audio.decode_wav`,
/// `tf.audio.encode_wav`, `tf.raw_ops.AudioSpectrogram` and `tf.raw_ops.Mfcc`;
/// lib/wav/wav_io.cc, kernels/spectrogram.cc, mfcc.cc, mfcc_mel_filterbank.cc, mfcc_dct.cc).
///
/// Only 16-bit PCM WAV is read and written; samples are int16 / 32768 as float. Errors when
/// the step runs are InvalidArgument with TensorFlow's message and the node named ("Header
/// mismatch: Expected RIFF but found RIFX", "Can only read 16-bit WAV files, but received 8",
/// "Bad bytes per second in WAV header: Expected 32000 but got 3 (sample_rate=8000,
/// bytes_per_sample=4)", "No data chunk found in WAV", "Data too short when trying to read
/// string", "sample_rate must be in (0, 2^32), got: 0", "Mfcc initialization failed for
/// channel count 9, sample rate 8000 and filterbank_channel_count 40"). Building fails
/// (InvalidArgumentError) on a bad rank ("Shape must be rank 2 but is rank 3") or attr
/// ("window size must be > 1, got 1", "stride must be strictly positive, got 0", "samples must
/// be non-negative, got -3"). None of these ops is differentiable: TensorFlow registers no
/// gradient, so `gradients` through them fails with "No gradient defined for operation".
namespace af::audio {

/// What `decode_wav` returns.
struct DecodeWavOutputs {
  Output audio;        ///< float `[samples, channels]`, values in [-1, 1)
  Output sample_rate;  ///< int32 scalar: the rate in the WAV header
};

/// `tf.audio.decode_wav(contents, desired_channels, desired_samples)`: op DecodeWav (default
/// name "DecodeWav") of a scalar string. With `desired_channels` (-1: as the file) the last
/// channel repeats to give more, extra channels are dropped; with `desired_samples` (-1: as
/// the file) the audio is cut or padded with zeros. The static shape is `[desired_samples,
/// desired_channels]`, unknown where -1. JUNK, bext and the other padding chunks TensorFlow
/// knows may come before "fmt ", any chunk after it; an 18-byte format chunk is accepted.
DecodeWavOutputs decode_wav(const Output& contents, std::int64_t desired_channels = -1,
                            std::int64_t desired_samples = -1, std::string_view name = {});

/// `tf.audio.encode_wav(audio, sample_rate)`: op EncodeWav (default name "EncodeWav"), float
/// `[frames, channels]` as a scalar 16-bit PCM WAV string byte for byte TensorFlow's: samples
/// roundf(x * 32768) clamped to [-32768, 32767]. Errors: "num_channels must be in (0, 2^16),
/// got: 0", "audio is null" (frames but no channels), "sample_rate must be in (0, 2^32),
/// got: 0" (a negative rate shows as its 64-bit unsigned wrap, as TensorFlow's).
Output encode_wav(const Output& audio, const Output& sample_rate, std::string_view name = {});
/// `encode_wav` with the rate the int32 Const "<op>/sample_rate", as Python converts it.
Output encode_wav(const Output& audio, std::int32_t sample_rate, std::string_view name = {});

/// `tf.raw_ops.AudioSpectrogram(input, window_size, stride, magnitude_squared)`: op
/// AudioSpectrogram (default name "AudioSpectrogram"), float `[channels, windows, 1 +
/// fft_length / 2]` of float `[samples, channels]`: each window of `window_size` samples
/// (starting every `stride` samples, as many as fit whole) times a periodic Hann window,
/// zero-padded to `fft_length`, the next power of two, and Fourier-transformed in double;
/// `|X|^2` rounded to float, or its float square root unless `magnitude_squared`. Values equal
/// TensorFlow's within float rounding. Needs `window_size > 1` and `stride > 0`.
Output audio_spectrogram(const Output& input, std::int64_t window_size, std::int64_t stride,
                         bool magnitude_squared = false, std::string_view name = {});

/// The attrs of Mfcc, with TensorFlow's defaults.
struct MfccOptions {
  float upper_frequency_limit = 4000;          ///< Hz, the top of the highest mel band
  float lower_frequency_limit = 20;            ///< Hz, the bottom of the lowest mel band (>= 0)
  std::int64_t filterbank_channel_count = 40;  ///< mel bands
  std::int64_t dct_coefficient_count = 13;     ///< coefficients kept (<= the bands)
};

/// `tf.raw_ops.Mfcc(spectrogram, sample_rate, ...)`: op Mfcc (default name "Mfcc"), float
/// `[channels, windows, dct_coefficient_count]` of a squared-magnitude spectrogram `[channels,
/// windows, bins]`: HTK-style triangular mel bands over the bins' square roots (DC excluded),
/// the log of each band floored at 1e-12, a DCT-II scaled by sqrt(2 / bands), in double as
/// TensorFlow. When the upper limit lies above half the sample rate TensorFlow's filterbank
/// gives nothing and every coefficient is 0; so here. Fails when the filterbank cannot be set
/// up (fewer than 2 bins, a rate <= 0, lower > upper, more coefficients than bands).
Output mfcc(const Output& spectrogram, const Output& sample_rate, const MfccOptions& options = {},
            std::string_view name = {});
/// `mfcc` with the rate the int32 Const "<op>/sample_rate".
Output mfcc(const Output& spectrogram, std::int32_t sample_rate, const MfccOptions& options = {},
            std::string_view name = {});

}  // namespace af::audio
