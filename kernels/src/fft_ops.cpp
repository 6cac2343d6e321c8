// The discrete Fourier transforms of TensorFlow's spectral ops (fft_ops.cc): FFT, IFFT,
// FFT2D, IFFT2D, FFT3D, IFFT3D over the innermost 1, 2 or 3 dimensions of a complex tensor,
// and the real ones RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D with their `fft_length`
// input. CPU kernels; their definitions are in ops/src/defs/fft_ops.cpp.
//
// Every transform runs in double precision (TensorFlow's CPU kernels compute complex64 in
// float) and is rounded once into the output type: radix 2 for lengths that are powers of
// two, Bluestein's chirp z-transform through a power-of-two convolution for the others. The
// inverse transforms scale by 1/n, as TensorFlow's. IRFFT rebuilds the full spectrum as
// TensorFlow's DoRealBackwardFFT does: the outer dimensions' inverse transforms first, then
// the innermost dimension's negative frequencies as the conjugates of the positive ones, and
// the real part of its inverse (an imaginary part at frequency 0 or n/2 is dropped).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using cwise::parallel_for;
using detail::Index;
using detail::StatusKernel;
using Cd = std::complex<double>;

// -- one-dimensional transforms -----------------------------------------------------------

// A plan for transforms of one length (any n >= 1).
class Fft1d {
 public:
  explicit Fft1d(std::size_t n) : n_(n) {
    if (is_pow2(n)) {
      twiddles_ = twiddles(n);
      return;
    }
    // Bluestein: X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}), w_j = exp(-i pi j^2 / n), the sum
    // a cyclic convolution of length m >= 2n - 1.
    m_ = 1;
    while (m_ < 2 * n - 1) m_ *= 2;
    twiddles_ = twiddles(m_);
    chirp_.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      // j^2 mod 2n keeps the angle exact for large j.
      const auto sq = static_cast<double>((static_cast<unsigned __int128>(j) * j) % (2 * n));
      chirp_[j] = std::polar(1.0, -std::numbers::pi * sq / static_cast<double>(n));
    }
    kernel_.assign(m_, Cd(0));
    kernel_[0] = std::conj(chirp_[0]);
    for (std::size_t j = 1; j < n; ++j) kernel_[j] = kernel_[m_ - j] = std::conj(chirp_[j]);
    radix2(kernel_.data(), m_, false);
  }

  // The unscaled transform of `data` (n elements) in place: exp(-2 pi i jk / n) forward,
  // exp(+2 pi i jk / n) backward. `scratch` is the caller's (reused between calls).
  void run(Cd* data, bool forward, std::vector<Cd>& scratch) const {
    if (n_ == 1) return;
    if (m_ == 0) return radix2(data, n_, !forward);
    // The backward transform is the conjugate of the forward one of the conjugate.
    scratch.assign(m_, Cd(0));
    for (std::size_t j = 0; j < n_; ++j)
      scratch[j] = (forward ? data[j] : std::conj(data[j])) * chirp_[j];
    radix2(scratch.data(), m_, false);
    for (std::size_t j = 0; j < m_; ++j) scratch[j] *= kernel_[j];
    radix2(scratch.data(), m_, true);
    const double scale = 1.0 / static_cast<double>(m_);
    for (std::size_t k = 0; k < n_; ++k) {
      const Cd v = scratch[k] * scale * chirp_[k];
      data[k] = forward ? v : std::conj(v);
    }
  }

 private:
  static bool is_pow2(std::size_t n) { return (n & (n - 1)) == 0; }

  // exp(-2 pi i k / m) for k < m / 2.
  static std::vector<Cd> twiddles(std::size_t m) {
    std::vector<Cd> w(m / 2);
    for (std::size_t k = 0; k < m / 2; ++k)
      w[k] = std::polar(1.0,
                        -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(m));
    return w;
  }

  // The iterative radix-2 transform of m (a power of two, twiddles_ of length m / 2) points.
  void radix2(Cd* a, std::size_t m, bool backward) const {
    for (std::size_t i = 1, j = 0; i < m; ++i) {
      std::size_t bit = m >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (std::size_t len = 2; len <= m; len <<= 1) {
      const std::size_t step = m / len, half = len / 2;
      for (std::size_t i = 0; i < m; i += len) {
        for (std::size_t k = 0; k < half; ++k) {
          const Cd w = backward ? std::conj(twiddles_[k * step]) : twiddles_[k * step];
          const Cd u = a[i + k], v = a[i + k + half] * w;
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  }

  std::size_t n_;
  std::size_t m_ = 0;  // Bluestein's convolution length; 0 for radix 2
  std::vector<Cd> twiddles_;
  std::vector<Cd> chirp_;
  std::vector<Cd> kernel_;  // the transformed conj(chirp) sequence
};

// Transforms `buf` (row-major `dims`) along axis `axis`, unscaled: each line of the axis is
// gathered, transformed and scattered back, the lines split over the intra-op pool.
void transform_axis(const OpKernelContext& ctx, std::vector<Cd>& buf,
                    const std::vector<Index>& dims, int axis, bool forward) {
  const Index length = dims[static_cast<std::size_t>(axis)];
  if (length <= 1 || buf.empty()) return;
  Index stride = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < dims.size(); ++d) stride *= dims[d];
  const Index lines = static_cast<Index>(buf.size()) / length;
  const Fft1d plan(static_cast<std::size_t>(length));
  const double log_n = std::log2(static_cast<double>(length)) + 1;
  const Eigen::TensorOpCost cost(static_cast<double>(length * 16), static_cast<double>(length * 16),
                                 static_cast<double>(length) * log_n * 10);
  parallel_for(
      ctx, lines, static_cast<Index>(buf.size()) * static_cast<Index>(log_n), cost,
      [&](Index begin, Index end) {
        std::vector<Cd> line(static_cast<std::size_t>(length)), scratch;
        for (Index l = begin; l < end; ++l) {
          const Index base = (l / stride) * length * stride + l % stride;
          for (Index j = 0; j < length; ++j)
            line[static_cast<std::size_t>(j)] = buf[static_cast<std::size_t>(base + j * stride)];
          plan.run(line.data(), forward, scratch);
          for (Index j = 0; j < length; ++j)
            buf[static_cast<std::size_t>(base + j * stride)] = line[static_cast<std::size_t>(j)];
        }
      });
}

// Copies the block of `from` (row-major `from_dims`) that starts at the origin and has
// `sizes` into `to` (row-major `to_dims`), converting with `convert`.
template <class S, class D, class Convert>
void copy_block(const S* from, const std::vector<Index>& from_dims, D* to,
                const std::vector<Index>& to_dims, const std::vector<Index>& sizes,
                Convert convert) {
  Index total = 1;
  for (Index s : sizes) total *= s;
  if (total == 0) return;
  const std::size_t rank = sizes.size();
  std::vector<Index> coord(rank, 0);
  for (Index i = 0; i < total; ++i) {
    Index f = 0, t = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      f = f * from_dims[d] + coord[d];
      t = t * to_dims[d] + coord[d];
    }
    to[t] = convert(from[f]);
    for (std::size_t d = rank; d-- > 0;) {
      if (++coord[d] < sizes[d]) break;
      coord[d] = 0;
    }
  }
}

// One FFT op: `rank` innermost dimensions, forward or inverse, complex or real. R is the real
// type (float or double), the complex type std::complex<R>.
template <class R>
class FftOp : public StatusKernel {
 public:
  FftOp(OpKernelConstruction& c, int rank, bool forward, bool real)
      : StatusKernel(c), rank_(rank), forward_(forward), real_(real) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    using C = std::complex<R>;
    const Tensor& in = ctx.input(0);
    const Shape& in_shape = in.shape();
    if (in_shape.rank() < rank_)
      return invalid_argument("Input must have rank of at least " + std::to_string(rank_) +
                              " but got: " + in_shape.to_string());
    const int outer = in_shape.rank() - rank_;
    std::vector<Index> out_dims = in_shape.dims();
    std::vector<Index> fft(static_cast<std::size_t>(rank_));
    if (real_) {
      const Tensor& length = ctx.input(1);
      if (length.rank() != 1 || length.num_elements() != rank_)
        return invalid_argument("fft_length must be length " + std::to_string(rank_) +
                                " vector. Got: " + length.shape().to_string());
      const std::int32_t* lv = length.data<std::int32_t>();
      for (int i = 0; i < rank_; ++i) {
        if (lv[i] < 0)
          return invalid_argument("fft_length[" + std::to_string(i) +
                                  "] must >= 0, but got: " + std::to_string(lv[i]));
        fft[static_cast<std::size_t>(i)] = lv[i];
        const bool inner = i == rank_ - 1;
        const Index min_length = !forward_ && inner ? lv[i] / 2 + 1 : lv[i];
        const int index = outer + i;
        if (in_shape.dim(index) != 0 && in_shape.dim(index) < min_length)
          return invalid_argument("Input dimension " + std::to_string(index) +
                                  " must have length of at least " + std::to_string(min_length) +
                                  " but got: " + std::to_string(in_shape.dim(index)));
        out_dims[static_cast<std::size_t>(index)] =
            forward_ && inner && lv[i] != 0 ? lv[i] / 2 + 1 : lv[i];
      }
    } else {
      for (int i = 0; i < rank_; ++i) fft[static_cast<std::size_t>(i)] = in_shape.dim(outer + i);
    }
    const DType out_type = real_ && !forward_ ? dtype_of_v<R> : dtype_of_v<C>;
    Tensor& out = ctx.allocate_output(0, out_type, Shape(out_dims));
    if (in.num_elements() == 0 || out.num_elements() == 0) return {};

    // The work buffer: the outer dimensions and the transform's lengths.
    std::vector<Index> full(in_shape.dims().begin(), in_shape.dims().begin() + outer);
    full.insert(full.end(), fft.begin(), fft.end());
    Index total = 1;
    for (Index d : full) total *= d;
    std::vector<Cd> buf(static_cast<std::size_t>(total));
    double scale = 1;
    for (Index n : fft) scale /= static_cast<double>(n);
    const int last = static_cast<int>(full.size()) - 1;

    if (!real_) {
      const C* x = in.data<C>();
      for (Index i = 0; i < total; ++i) buf[static_cast<std::size_t>(i)] = Cd(x[i]);
      for (int a = outer; a <= last; ++a) transform_axis(ctx, buf, full, a, forward_);
      C* o = out.data<C>();
      for (Index i = 0; i < total; ++i)
        o[i] = C(forward_ ? buf[static_cast<std::size_t>(i)]
                          : buf[static_cast<std::size_t>(i)] * scale);
      return {};
    }
    if (forward_) {  // RFFT: the input cropped to fft_length, the nonnegative frequencies kept
      copy_block(in.data<R>(), in_shape.dims(), buf.data(), full, full,
                 [](R v) { return Cd(static_cast<double>(v), 0.0); });
      for (int a = outer; a <= last; ++a) transform_axis(ctx, buf, full, a, true);
      copy_block(buf.data(), full, out.data<C>(), out_dims, out_dims, [](Cd v) { return C(v); });
      return {};
    }
    // IRFFT: the nonnegative frequencies of the input, inverted along the outer axes, the
    // innermost axis completed by Hermitian symmetry and inverted, its real part kept.
    std::vector<Index> half = full;
    const Index n = full[static_cast<std::size_t>(last)];
    half[static_cast<std::size_t>(last)] = n / 2 + 1;
    copy_block(in.data<C>(), in_shape.dims(), buf.data(), full, half, [](C v) { return Cd(v); });
    for (int a = outer; a < last; ++a) transform_axis(ctx, buf, full, a, false);
    const Index rows = total / n;
    for (Index r = 0; r < rows; ++r) {
      Cd* row = buf.data() + r * n;
      for (Index j = n / 2 + 1; j < n; ++j) row[j] = std::conj(row[n - j]);
    }
    transform_axis(ctx, buf, full, last, false);
    R* o = out.data<R>();
    for (Index i = 0; i < total; ++i)
      o[i] = static_cast<R>(buf[static_cast<std::size_t>(i)].real() * scale);
    return {};
  }

 private:
  int rank_;
  bool forward_;
  bool real_;
};

// The kernel of one op type: its rank and direction fixed at compile time.
template <class R, int Rank, bool Forward, bool Real>
class FftKernel : public FftOp<R> {
 public:
  FftKernel(OpKernelConstruction& c, Status* /*s*/) : FftOp<R>(c, Rank, Forward, Real) {}
};

template <int Rank, bool Forward>
void register_complex_fft(KernelRegistry& r, const char* op) {
  r.add(make_kernel_def<FftKernel<float, Rank, Forward, false>>(
      op, "CPU", {{"Tcomplex", {DType::complex64}}}));
  r.add(make_kernel_def<FftKernel<double, Rank, Forward, false>>(
      op, "CPU", {{"Tcomplex", {DType::complex128}}}));
}

template <int Rank, bool Forward>
void register_real_fft(KernelRegistry& r, const char* op) {
  r.add(make_kernel_def<FftKernel<float, Rank, Forward, true>>(
      op, "CPU", {{"Treal", {DType::float32}}, {"Tcomplex", {DType::complex64}}}));
  r.add(make_kernel_def<FftKernel<double, Rank, Forward, true>>(
      op, "CPU", {{"Treal", {DType::float64}}, {"Tcomplex", {DType::complex128}}}));
}

}  // namespace

namespace detail {

void register_fft_kernels(KernelRegistry& r) {
  register_complex_fft<1, true>(r, "FFT");
  register_complex_fft<1, false>(r, "IFFT");
  register_complex_fft<2, true>(r, "FFT2D");
  register_complex_fft<2, false>(r, "IFFT2D");
  register_complex_fft<3, true>(r, "FFT3D");
  register_complex_fft<3, false>(r, "IFFT3D");
  register_real_fft<1, true>(r, "RFFT");
  register_real_fft<1, false>(r, "IRFFT");
  register_real_fft<2, true>(r, "RFFT2D");
  register_real_fft<2, false>(r, "IRFFT2D");
  register_real_fft<3, true>(r, "RFFT3D");
  register_real_fft<3, false>(r, "IRFFT3D");
}

}  // namespace detail

}  // namespace af
