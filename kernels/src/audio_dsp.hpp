#pragma once

// The signal processing behind TensorFlow's audio ops, ported from its math: 16-bit PCM WAV
// reading and writing (lib/wav/wav_io.cc), the Hann-windowed power spectrogram
// (kernels/spectrogram.cc, whose real FFT this replaces with a radix-2 FFT in double) and
// MFCCs (kernels/mfcc.cc, mfcc_mel_filterbank.cc, mfcc_dct.cc). Private to the kernels
// module (kernels/src/audio_ops.cpp is the only user). Errors are TensorFlow's
// InvalidArgument messages, returned as strings (empty: success).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace af::detail::audio {

// -- WAV -----------------------------------------------------------------------------------

/// wav::DecodeLin16WaveAsFloatVector: the interleaved samples of a 16-bit PCM WAV, each
/// int16 times 1/32768, with the frame count, channel count and sample rate of its header.
/// Skips JUNK/bext/iXML/qlty/mext/levl/link/axml chunks before "fmt " and any chunk but
/// "data" after it. Returns "" or TensorFlow's message ("Header mismatch: Expected RIFF but
/// found RIFX", "Data too short when trying to read string", "Can only read 16-bit WAV
/// files, but received 8", "No data chunk found in WAV", ...).
std::string decode_wav(const std::string& wav, std::vector<float>* samples,
                       std::uint32_t* sample_count, std::uint16_t* channel_count,
                       std::uint32_t* sample_rate);

/// wav::EncodeAudioAsS16LEWav: a 44-byte header and `num_frames * num_channels` samples, each
/// roundf(x * 32768) clamped to int16. `audio` may be null only when `num_frames` is 0.
/// Returns "" or "audio is null", "sample_rate must be in (0, 2^32), got: 0",
/// "num_channels must be in (0, 2^16), got: 0", "Provided channels and frames cannot be
/// encoded as a WAV.".
std::string encode_wav(const float* audio, std::size_t sample_rate, std::size_t num_channels,
                       std::size_t num_frames, std::string* wav);

// -- spectrogram ---------------------------------------------------------------------------

/// The smallest power of two >= `n` (TensorFlow's NextPowerOfTwo; 1 for n <= 1).
std::int64_t next_power_of_two(std::int64_t n);

/// Spectrogram::Initialize(window_length, step_length) and ComputeSquaredMagnitudeSpectrogram:
/// for each window of `window_length` samples starting every `step_length` samples (as many
/// as fit), |FFT|^2 of the samples times a periodic Hann window, zero-padded to the next
/// power of two: `1 + fft_length / 2` values a window, computed in double, stored as float.
class Spectrogram {
 public:
  /// False (as TensorFlow's Initialize) for a window shorter than 2 or a step below 1.
  bool initialize(int window_length, int step_length);
  /// The number of values a window gives (`1 + fft_length / 2`).
  int output_frequency_channels() const { return fft_length_ / 2 + 1; }
  /// The squared magnitudes of every whole window of `input`, one row per window.
  void compute_squared_magnitude(const std::vector<float>& input,
                                 std::vector<std::vector<float>>* output) const;

 private:
  int window_length_ = 0, step_length_ = 0, fft_length_ = 0;
  std::vector<double> window_;
};

// -- MFCC ----------------------------------------------------------------------------------

/// Mfcc::Initialize and Compute: a triangular mel filterbank (HTK style, DC excluded) over the
/// square roots of a squared-magnitude spectrum, the log of each band (floored at 1e-12) and
/// a DCT-II scaled by sqrt(2 / channels), keeping the first coefficients.
class Mfcc {
 public:
  /// TensorFlow's attrs and their defaults.
  double upper_frequency_limit = 4000, lower_frequency_limit = 20;
  int filterbank_channel_count = 40, dct_coefficient_count = 13;

  /// False (as TensorFlow's Initialize) for fewer than 1 filterbank channel, a sample rate
  /// <= 0, an input shorter than 2, a negative lower limit, an upper limit not above the
  /// lower, fewer than 1 coefficient or more coefficients than filterbank channels.
  bool initialize(int input_length, double input_sample_rate);
  /// The coefficients of one spectrum of `input_length` values. When the filterbank's upper
  /// bin lies beyond the input (an upper limit above half the sample rate), TensorFlow's
  /// filterbank gives nothing and every coefficient is 0; so here.
  void compute(const std::vector<double>& spectrum, std::vector<double>* output) const;

 private:
  int input_length_ = 0, start_index_ = 0, end_index_ = 0;
  std::vector<int> band_mapper_;
  std::vector<double> weights_;
  std::vector<std::vector<double>> cosines_;
};

}  // namespace af::detail::audio
