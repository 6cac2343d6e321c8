// TensorFlow's WAV codec (lib/wav/wav_io.cc), spectrogram (kernels/spectrogram.cc) and MFCC
// (kernels/mfcc*.cc) arithmetic. The offsets of the WAV reader are int, as TensorFlow's, so
// that its overflow and range messages come out the same.
#include "audio_dsp.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

namespace af::detail::audio {

namespace {

// -- WAV -----------------------------------------------------------------------------------

// IncrementOffset: moves `old_offset` by `increment` within `max_size` bytes.
std::string increment_offset(int old_offset, std::int64_t increment, std::size_t max_size,
                             int* new_offset) {
  if (old_offset < 0) return "Negative offsets are not allowed: " + std::to_string(old_offset);
  if (increment < 0) return "Negative increment is not allowed: " + std::to_string(increment);
  if (static_cast<std::size_t>(old_offset) > max_size)
    return "Initial offset is outside data range: " + std::to_string(old_offset);
  // int arithmetic as TensorFlow's: an overflow wraps and is caught below.
  *new_offset = static_cast<int>(static_cast<std::int64_t>(old_offset) + increment);
  if (static_cast<std::size_t>(static_cast<std::int64_t>(*new_offset)) > max_size)
    return "Data too short when trying to read string";
  if (*new_offset < 0) return "Offset too large, overflowed: " + std::to_string(*new_offset);
  return {};
}

std::string read_string(const std::string& data, int length, std::string* value, int* offset) {
  int new_offset = 0;
  if (auto e = increment_offset(*offset, length, data.size(), &new_offset); !e.empty()) return e;
  value->assign(data, static_cast<std::size_t>(*offset),
                static_cast<std::size_t>(new_offset - *offset));
  *offset = new_offset;
  return {};
}

std::string expect_text(const std::string& data, const std::string& expected, int* offset) {
  std::string found;
  int at = *offset;
  if (auto e = read_string(data, static_cast<int>(expected.size()), &found, &at); !e.empty())
    return e;
  if (found != expected) return "Header mismatch: Expected " + expected + " but found " + found;
  *offset = at;
  return {};
}

// ReadValue: a little-endian integer.
template <class T>
std::string read_value(const std::string& data, T* value, int* offset) {
  int new_offset = 0;
  if (auto e = increment_offset(*offset, sizeof(T), data.size(), &new_offset); !e.empty()) return e;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[*offset + i])) << (8 * i);
  *value = static_cast<T>(v);
  *offset = new_offset;
  return {};
}

void put_le(char* out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// The chunks that may come between "WAVE" and "fmt ".
bool skippable_before_format(const std::string& id) {
  for (const char* s : {"JUNK", "bext", "iXML", "qlty", "mext", "levl", "link", "axml"})
    if (id == s) return true;
  return false;
}

#define AF_WAV_TRY(expr)                 \
  do {                                   \
    if (auto e_ = (expr); !e_.empty()) { \
      return e_;                         \
    }                                    \
  } while (false)

// -- FFT -----------------------------------------------------------------------------------

// An in-place radix-2 FFT of a power-of-two length (the sign of the exponent does not matter
// here: only magnitudes are used).
void fft(std::vector<std::complex<double>>* data) {
  auto& a = *data;
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double pi = std::atan(1.0) * 4;
  std::vector<std::complex<double>> twiddle(n / 2);
  for (std::size_t k = 0; k < n / 2; ++k) {
    const double angle = -2 * pi * static_cast<double>(k) / static_cast<double>(n);
    twiddle[k] = {std::cos(angle), std::sin(angle)};
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t step = n / len;
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = a[start + k];
        const std::complex<double> v = a[start + k + len / 2] * twiddle[k * step];
        a[start + k] = u + v;
        a[start + k + len / 2] = u - v;
      }
    }
  }
}

double freq_to_mel(double freq) { return 1127.0 * std::log1p(freq / 700.0); }

}  // namespace

std::string decode_wav(const std::string& wav, std::vector<float>* samples,
                       std::uint32_t* sample_count, std::uint16_t* channel_count,
                       std::uint32_t* sample_rate) {
  int offset = 0;
  AF_WAV_TRY(expect_text(wav, "RIFF", &offset));
  std::uint32_t total_file_size = 0;
  AF_WAV_TRY(read_value(wav, &total_file_size, &offset));
  AF_WAV_TRY(expect_text(wav, "WAVE", &offset));
  std::string found;
  AF_WAV_TRY(read_string(wav, 4, &found, &offset));
  while (found != "fmt ") {
    if (!skippable_before_format(found)) return "Unexpected field " + found;
    std::uint32_t chunk_size = 0;
    AF_WAV_TRY(read_value(wav, &chunk_size, &offset));
    AF_WAV_TRY(increment_offset(offset, chunk_size, wav.size(), &offset));
    AF_WAV_TRY(read_string(wav, 4, &found, &offset));
  }
  std::uint32_t format_chunk_size = 0;
  AF_WAV_TRY(read_value(wav, &format_chunk_size, &offset));
  if (format_chunk_size != 16 && format_chunk_size != 18)
    return "Bad format chunk size for WAV: Expected 16 or 18, but got" +
           std::to_string(format_chunk_size);
  std::uint16_t audio_format = 0;
  AF_WAV_TRY(read_value(wav, &audio_format, &offset));
  if (audio_format != 1)
    return "Bad audio format for WAV: Expected 1 (PCM), but got" + std::to_string(audio_format);
  AF_WAV_TRY(read_value(wav, channel_count, &offset));
  if (*channel_count < 1)
    return "Bad number of channels for WAV: Expected at least 1, but got " +
           std::to_string(*channel_count);
  AF_WAV_TRY(read_value(wav, sample_rate, &offset));
  std::uint32_t bytes_per_second = 0;
  AF_WAV_TRY(read_value(wav, &bytes_per_second, &offset));
  // "Bytes per sample" is the block: every channel's bytes of one frame.
  std::uint16_t bytes_per_sample = 0;
  AF_WAV_TRY(read_value(wav, &bytes_per_sample, &offset));
  std::uint16_t bits_per_sample = 0;
  AF_WAV_TRY(read_value(wav, &bits_per_sample, &offset));
  if (bits_per_sample != 16)
    return "Can only read 16-bit WAV files, but received " + std::to_string(bits_per_sample);
  const std::uint32_t expected_bytes_per_sample = (bits_per_sample * *channel_count + 7) / 8;
  if (bytes_per_sample != expected_bytes_per_sample)
    return "Bad bytes per sample in WAV header: Expected " +
           std::to_string(expected_bytes_per_sample) + " but got " +
           std::to_string(bytes_per_sample);
  const std::uint32_t expected_bytes_per_second = bytes_per_sample * *sample_rate;
  if (bytes_per_second != expected_bytes_per_second)
    return "Bad bytes per second in WAV header: Expected " +
           std::to_string(expected_bytes_per_second) + " but got " +
           std::to_string(bytes_per_second) + " (sample_rate=" + std::to_string(*sample_rate) +
           ", bytes_per_sample=" + std::to_string(bytes_per_sample) + ")";
  if (format_chunk_size == 18) offset += 2;  // the unused extension size

  bool was_data_found = false;
  while (offset >= 0 && static_cast<std::size_t>(offset) < wav.size()) {
    std::string chunk_id;
    AF_WAV_TRY(read_string(wav, 4, &chunk_id, &offset));
    std::uint32_t chunk_size = 0;
    AF_WAV_TRY(read_value(wav, &chunk_size, &offset));
    if (chunk_size > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()))
      return "WAV data chunk '" + chunk_id + "' is too large: " + std::to_string(chunk_size) +
             " bytes, but the limit is " + std::to_string(std::numeric_limits<std::int32_t>::max());
    if (chunk_id == "data") {
      if (was_data_found) return "More than one data chunk found in WAV";
      was_data_found = true;
      *sample_count = chunk_size / bytes_per_sample;
      const std::uint32_t data_count = *sample_count * *channel_count;
      // The data must be there before anything is allocated for it.
      int unused = 0;
      AF_WAV_TRY(increment_offset(offset,
                                  static_cast<std::int64_t>(sizeof(std::int16_t)) * data_count,
                                  wav.size(), &unused));
      samples->resize(data_count);
      for (std::uint32_t i = 0; i < data_count; ++i) {
        std::uint16_t raw = 0;
        AF_WAV_TRY(read_value(wav, &raw, &offset));
        (*samples)[i] = static_cast<float>(static_cast<std::int16_t>(raw)) * (1.0f / 32768);
      }
    } else {
      offset = static_cast<int>(static_cast<std::int64_t>(offset) + chunk_size);
    }
  }
  if (!was_data_found) return "No data chunk found in WAV";
  return {};
}

std::string encode_wav(const float* audio, std::size_t sample_rate, std::size_t num_channels,
                       std::size_t num_frames, std::string* wav) {
  constexpr std::size_t kHeaderSize = 44, kBytesPerSample = 2;
  constexpr std::size_t kUint32Max = std::numeric_limits<std::uint32_t>::max();
  if (audio == nullptr && num_frames > 0) return "audio is null";
  if (sample_rate == 0 || sample_rate > kUint32Max)
    return "sample_rate must be in (0, 2^32), got: " + std::to_string(sample_rate);
  if (num_channels == 0 || num_channels > std::numeric_limits<std::uint16_t>::max())
    return "num_channels must be in (0, 2^16), got: " + std::to_string(num_channels);
  const std::size_t num_samples = num_frames * num_channels;
  const std::size_t data_size = num_samples * kBytesPerSample;
  const std::size_t file_size = kHeaderSize + data_size;
  if (file_size > kUint32Max) return "Provided channels and frames cannot be encoded as a WAV.";
  wav->assign(file_size, '\0');
  char* p = wav->data();
  std::memcpy(p, "RIFF", 4);
  put_le(p + 4, file_size - 8, 4);
  std::memcpy(p + 8, "WAVEfmt ", 8);
  put_le(p + 16, 16, 4);  // format chunk size
  put_le(p + 20, 1, 2);   // PCM
  put_le(p + 22, num_channels, 2);
  put_le(p + 24, sample_rate, 4);
  put_le(p + 28, sample_rate * kBytesPerSample * num_channels, 4);
  put_le(p + 32, kBytesPerSample * num_channels, 2);
  put_le(p + 34, 16, 2);
  std::memcpy(p + 36, "data", 4);
  put_le(p + 40, data_size, 4);
  for (std::size_t i = 0; i < num_samples; ++i) {
    // FloatToInt16Sample: rounded, clamped in float.
    const float scaled = std::roundf(audio[i] * 32768.0f);
    const float clamped = std::min<float>(std::max<float>(scaled, -32768.0f), 32767.0f);
    put_le(p + kHeaderSize + 2 * i, static_cast<std::uint16_t>(static_cast<std::int16_t>(clamped)),
           2);
  }
  return {};
}

std::int64_t next_power_of_two(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

bool Spectrogram::initialize(int window_length, int step_length) {
  if (window_length < 2 || step_length < 1) return false;
  window_length_ = window_length;
  step_length_ = step_length;
  fft_length_ = static_cast<int>(next_power_of_two(window_length));
  // GetPeriodicHann.
  const double pi = std::atan(1.0) * 4;
  window_.resize(static_cast<std::size_t>(window_length));
  for (int i = 0; i < window_length; ++i)
    window_[static_cast<std::size_t>(i)] = 0.5 - 0.5 * std::cos((2 * pi * i) / window_length);
  return true;
}

void Spectrogram::compute_squared_magnitude(const std::vector<float>& input,
                                            std::vector<std::vector<float>>* output) const {
  output->clear();
  const auto n = static_cast<std::int64_t>(input.size());
  std::vector<std::complex<double>> buffer;
  for (std::int64_t start = 0; start + window_length_ <= n; start += step_length_) {
    buffer.assign(static_cast<std::size_t>(fft_length_), 0.0);
    for (int j = 0; j < window_length_; ++j)
      buffer[static_cast<std::size_t>(j)] =
          static_cast<double>(input[static_cast<std::size_t>(start + j)]) *
          window_[static_cast<std::size_t>(j)];
    fft(&buffer);
    std::vector<float>& row = output->emplace_back(output_frequency_channels());
    for (int i = 0; i < output_frequency_channels(); ++i) {
      const double re = buffer[static_cast<std::size_t>(i)].real();
      const double im = buffer[static_cast<std::size_t>(i)].imag();
      row[static_cast<std::size_t>(i)] = static_cast<float>(re * re + im * im);
    }
  }
}

bool Mfcc::initialize(int input_length, double input_sample_rate) {
  const int channels = filterbank_channel_count;
  const double lower = lower_frequency_limit, upper = upper_frequency_limit;
  // MfccMelFilterbank::Initialize.
  if (channels < 1 || input_sample_rate <= 0 || input_length < 2 || lower < 0 || upper <= lower)
    return false;
  input_length_ = input_length;
  std::vector<double> centers(static_cast<std::size_t>(channels) + 1);
  const double mel_low = freq_to_mel(lower), mel_hi = freq_to_mel(upper);
  const double mel_spacing = (mel_hi - mel_low) / static_cast<double>(channels + 1);
  for (int i = 0; i < channels + 1; ++i)
    centers[static_cast<std::size_t>(i)] = mel_low + mel_spacing * (i + 1);
  // Always exclude DC, as HTK.
  const double hz_per_sbin = 0.5 * input_sample_rate / static_cast<double>(input_length - 1);
  start_index_ = static_cast<int>(1.5 + lower / hz_per_sbin);
  end_index_ = static_cast<int>(upper / hz_per_sbin);
  // Each used bin feeds the right side of channel band_mapper_[i]'s triangle (weights_[i])
  // and the left side of the next one's (1 - weights_[i]).
  band_mapper_.assign(static_cast<std::size_t>(input_length), -2);
  weights_.assign(static_cast<std::size_t>(input_length), 0.0);
  int channel = 0;
  for (int i = 0; i < input_length; ++i) {
    if (i < start_index_ || i > end_index_) continue;
    const double melf = freq_to_mel(i * hz_per_sbin);
    while (channel < channels && centers[static_cast<std::size_t>(channel)] < melf) ++channel;
    const int band = channel - 1;
    band_mapper_[static_cast<std::size_t>(i)] = band;
    weights_[static_cast<std::size_t>(i)] =
        band >= 0 ? (centers[static_cast<std::size_t>(band) + 1] - melf) /
                        (centers[static_cast<std::size_t>(band) + 1] -
                         centers[static_cast<std::size_t>(band)])
                  : (centers[0] - melf) / (centers[0] - mel_low);
  }
  // MfccDct::Initialize.
  const int coefficients = dct_coefficient_count;
  if (coefficients < 1 || coefficients > channels) return false;
  const double fnorm = std::sqrt(2.0 / channels);
  const double arg = std::atan(1.0) * 4 / channels;
  cosines_.assign(static_cast<std::size_t>(coefficients),
                  std::vector<double>(static_cast<std::size_t>(channels)));
  for (int i = 0; i < coefficients; ++i)
    for (int j = 0; j < channels; ++j)
      cosines_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
          fnorm * std::cos(i * arg * (j + 0.5));
  return true;
}

void Mfcc::compute(const std::vector<double>& spectrum, std::vector<double>* output) const {
  // MfccMelFilterbank::Compute (nothing when the input stops before the last bin used).
  std::vector<double> bands;
  if (spectrum.size() > static_cast<std::size_t>(std::max(end_index_, 0))) {
    bands.assign(static_cast<std::size_t>(filterbank_channel_count), 0.0);
    for (int i = start_index_; i <= end_index_; ++i) {
      const double value = std::sqrt(spectrum[static_cast<std::size_t>(i)]);
      const double weighted = value * weights_[static_cast<std::size_t>(i)];
      int channel = band_mapper_[static_cast<std::size_t>(i)];
      if (channel >= 0) bands[static_cast<std::size_t>(channel)] += weighted;
      ++channel;
      if (channel < filterbank_channel_count)
        bands[static_cast<std::size_t>(channel)] += value - weighted;
    }
  }
  for (double& v : bands) v = std::log(std::max(v, 1e-12));
  // MfccDct::Compute.
  output->assign(cosines_.size(), 0.0);
  const std::size_t length =
      std::min(bands.size(), static_cast<std::size_t>(filterbank_channel_count));
  for (std::size_t i = 0; i < cosines_.size(); ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < length; ++j) sum += cosines_[i][j] * bands[j];
    (*output)[i] = sum;
  }
}

}  // namespace af::detail::audio
