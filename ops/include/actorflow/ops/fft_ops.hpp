#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Graph-building functions for TensorFlow's spectral ops (`tf.signal.fft` ... `irfft3d`).
/// The transforms act on the innermost 1, 2 or 3 dimensions; the inverse ones scale by
/// 1/n. Computed in double precision on the CPU and rounded once into the output type
/// (TensorFlow computes complex64 in float: results agree to float rounding). Errors when
/// running are InvalidArgument naming the node: "Input must have rank of at least 2 but got:
/// [3]", "fft_length must be length 1 vector. Got: [2]", "fft_length[0] must >= 0, but got:
/// -1", "Input dimension 1 must have length of at least 8 but got: 5". The gradients are
/// TensorFlow's (fft_ops.py): FFT's is IFFT(grad) * n, IFFT's FFT(grad) / n, and the real
/// transforms' their adjoints.
namespace af::signal {

/// `tf.signal.fft(x)`: op FFT (default name "FFT") over the innermost dimension of a
/// complex64 or complex128 tensor of rank >= 1; the output has x's shape and type.
Output fft(const Output& x, std::string_view name = {});
/// `tf.signal.ifft(x)`: op IFFT, the inverse transform (scaled by 1/n).
Output ifft(const Output& x, std::string_view name = {});
/// `tf.signal.fft2d(x)`: op FFT2D over the two innermost dimensions (rank >= 2).
Output fft2d(const Output& x, std::string_view name = {});
/// `tf.signal.ifft2d(x)`: op IFFT2D.
Output ifft2d(const Output& x, std::string_view name = {});
/// `tf.signal.fft3d(x)`: op FFT3D over the three innermost dimensions (rank >= 3).
Output fft3d(const Output& x, std::string_view name = {});
/// `tf.signal.ifft3d(x)`: op IFFT3D.
Output ifft3d(const Output& x, std::string_view name = {});

/// `tf.signal.rfft(x, fft_length)`: op RFFT (default name "rfft") of a float32 (complex64
/// out) or float64 (complex128 out) tensor: the fft_length[0] / 2 + 1 nonnegative
/// frequencies of the innermost dimension. As Python's wrapper, an empty `fft_length` takes
/// the input's static innermost dimension (InvalidArgument when it is unknown), a shorter
/// input is zero-padded with a Pad node ("rfft/Pad") and a longer one is cropped by the
/// kernel; `fft_length` is a Const "rfft/fft_length".
Output rfft(const Output& x, std::vector<std::int32_t> fft_length = {}, std::string_view name = {});
/// `tf.signal.irfft(x, fft_length)`: op IRFFT (default name "irfft"), the real signal of
/// length fft_length[0] whose nonnegative frequencies x holds (its innermost dimension
/// fft_length[0] / 2 + 1, padded or cropped as rfft's). An empty `fft_length` is
/// 2 * (n - 1) for x's static innermost dimension n.
Output irfft(const Output& x, std::vector<std::int32_t> fft_length = {},
             std::string_view name = {});
/// `tf.signal.rfft2d`: op RFFT2D (default name "rfft2d") over the two innermost dimensions.
Output rfft2d(const Output& x, std::vector<std::int32_t> fft_length = {},
              std::string_view name = {});
/// `tf.signal.irfft2d`: op IRFFT2D (default name "irfft2d").
Output irfft2d(const Output& x, std::vector<std::int32_t> fft_length = {},
               std::string_view name = {});
/// `tf.signal.rfft3d`: op RFFT3D (default name "rfft3d") over the three innermost dimensions.
Output rfft3d(const Output& x, std::vector<std::int32_t> fft_length = {},
              std::string_view name = {});
/// `tf.signal.irfft3d`: op IRFFT3D (default name "irfft3d").
Output irfft3d(const Output& x, std::vector<std::int32_t> fft_length = {},
               std::string_view name = {});

}  // namespace af::signal
