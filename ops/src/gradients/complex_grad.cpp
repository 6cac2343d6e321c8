// Gradients of the ops of complex numbers (math_grad.py: Real, Imag, Complex, Conj,
// ComplexAbs, Angle) and of the FFTs (fft_ops.py). TensorFlow's convention for a complex
// gradient is the conjugate-linear one: a linear map A gets A^H of the incoming gradient,
// and a real input the real part of that.
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/complex_ops.hpp"
#include "actorflow/ops/fft_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// A scalar constant 0 of `like`'s dtype named "Const" (Python's constant(0, dtype=...)).
Output zero_like(const Output& like) { return scalar_like(like, 0.0, "Const"); }

// The number of elements of the innermost `rank` dimensions of `x` as a scalar of `dtype`
// (fft_ops.py's _fft_size_for_grad, cast): a constant when they are static, otherwise
// Shape, StridedSlice, Prod and Cast.
Output fft_size(const Output& x, int rank, DType dtype) {
  Graph& g = x.graph();
  const PartialShape& s = x.shape();
  if (s.rank_known() && s.rank() >= rank) {
    std::int64_t n = 1;
    bool known = true;
    for (int i = s.rank() - rank; i < s.rank(); ++i) {
      known = known && s.dim(i) >= 0;
      n *= s.dim(i) >= 0 ? s.dim(i) : 1;
    }
    if (known) return cast(g.constant(Tensor(static_cast<std::int32_t>(n)), "Const"), dtype);
  }
  const Output dims =
      strided_slice(shape(x), std::vector<std::int64_t>{-rank}, std::vector<std::int64_t>{0},
                    std::vector<std::int64_t>{1}, {.end_mask = 1});
  return cast(reduce_prod(dims), dtype);
}

// The complex FFTs: the adjoint is the opposite transform, scaled by n (FFT) or 1/n (IFFT).
Grads complex_fft_grad(const Output& grad, int rank, bool forward) {
  const DType part = grad.dtype() == DType::complex128 ? DType::float64 : DType::float32;
  using Fn = Output (*)(const Output&, std::string_view);
  static constexpr Fn kForward[] = {signal::fft, signal::fft2d, signal::fft3d};
  static constexpr Fn kInverse[] = {signal::ifft, signal::ifft2d, signal::ifft3d};
  if (forward) {
    const Output size = fft_size(grad, rank, grad.dtype());
    return {mul(kInverse[rank - 1](grad, {}), size, "mul")};
  }
  const Output rsize = cast(reciprocal(fft_size(grad, rank, part)), grad.dtype());
  return {mul(kForward[rank - 1](grad, {}), rsize, "mul")};
}

// The static fft_length of a real transform (its Const input), or none.
std::optional<std::vector<std::int64_t>> fft_length_of(const Operation& op) {
  return constant_ints(input(op, 1));
}

// RFFT: Re(A^H G), A the nonnegative-frequency rows of the DFT: the incoming gradient padded
// with zeros to the full length, inverted unscaled, its real part; input entries past
// fft_length (cropped by the kernel) get zeros. Equal to fft_ops.py's _rfft_grad_helper.
Grads rfft_grad(const Operation& op, const Grads& g, int rank) {
  const Output x = input(op, 0);
  const auto length = fft_length_of(op);
  const PartialShape& xs = x.shape();
  const PartialShape& gs = g[0].shape();
  if (!length || !xs.rank_known() || !gs.rank_known())
    throw InvalidArgumentError(
        invalid_argument("The gradient of " + op.type() + " '" + op.name() +
                         "' needs a constant fft_length and inputs of known rank"));
  const int outer = xs.rank() - rank;
  std::vector<std::array<std::int64_t, 2>> spectrum_pad(static_cast<std::size_t>(gs.rank()),
                                                        std::array<std::int64_t, 2>{0, 0});
  const std::int64_t n = length->back();
  spectrum_pad.back()[1] = n - (n / 2 + 1);
  using Fn = Output (*)(const Output&, std::string_view);
  static constexpr Fn kInverse[] = {signal::ifft, signal::ifft2d, signal::ifft3d};
  Output full = n - (n / 2 + 1) > 0 ? pad(g[0], spectrum_pad) : g[0];
  const Output size = fft_size(full, rank, g[0].dtype());
  Output gx = real(mul(kInverse[rank - 1](full, {}), size, "mul"));
  std::vector<std::array<std::int64_t, 2>> crop_pad(static_cast<std::size_t>(xs.rank()),
                                                    std::array<std::int64_t, 2>{0, 0});
  bool cropped = false;
  for (int i = 0; i < rank; ++i) {
    const std::int64_t d = xs.dim(outer + i);
    const std::int64_t want = (*length)[static_cast<std::size_t>(i)];
    if (d < 0)
      throw InvalidArgumentError(invalid_argument("The gradient of " + op.type() + " '" +
                                                  op.name() + "' needs static inner dimensions"));
    if (d > want) {
      crop_pad[static_cast<std::size_t>(outer + i)][1] = d - want;
      cropped = true;
    }
  }
  if (cropped) gx = pad(gx, crop_pad);
  return {gx, Output()};
}

// IRFFT: fft_ops.py's _irfft_grad_helper, RFFT(G) * (mask / N): the mask [1, 2, ..., 2, 1]
// (no final 1 for an odd length) counts each nonnegative frequency's Hermitian twin. Input
// entries past what fft_length reads (cropped by the kernel) get zeros.
Grads irfft_grad(const Operation& op, const Grads& g, int rank) {
  const Output x = input(op, 0);
  const auto length = fft_length_of(op);
  const PartialShape& xs = x.shape();
  if (!length || !xs.rank_known())
    throw InvalidArgumentError(
        invalid_argument("The gradient of " + op.type() + " '" + op.name() +
                         "' needs a constant fft_length and an input of known rank"));
  Graph& graph = x.graph();
  const DType complex_type = x.dtype();
  const std::int64_t n_last = length->back();
  const std::int64_t m = n_last / 2 + 1, odd = n_last % 2;
  std::vector<double> mask{1.0};
  for (std::int64_t i = 0; i < m - 2 + odd; ++i) mask.push_back(2.0);
  for (std::int64_t i = 0; i < 1 - odd; ++i) mask.push_back(1.0);
  mask.resize(static_cast<std::size_t>(m));
  double n = 1;
  for (std::int64_t d : *length) n *= static_cast<double>(d);
  Tensor scaled(complex_type, Shape{m});
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (complex_type == DType::complex128)
      scaled.data<complex128_t>()[i] = complex128_t(mask[i] / n, 0);
    else
      scaled.data<complex64_t>()[i] = complex64_t(static_cast<float>(mask[i] / n), 0);
  }
  std::vector<std::int32_t> fft_length(length->begin(), length->end());
  using Fn = Output (*)(const Output&, std::vector<std::int32_t>, std::string_view);
  static constexpr Fn kForward[] = {signal::rfft, signal::rfft2d, signal::rfft3d};
  const Output the_rfft = kForward[rank - 1](g[0], fft_length, {});
  Output gx = mul(the_rfft, graph.constant(scaled, "Cast"), "mul");
  const int outer = xs.rank() - rank;
  std::vector<std::array<std::int64_t, 2>> crop_pad(static_cast<std::size_t>(xs.rank()),
                                                    std::array<std::int64_t, 2>{0, 0});
  bool cropped = false;
  for (int i = 0; i < rank; ++i) {
    const std::int64_t d = xs.dim(outer + i);
    const std::int64_t read = i == rank - 1 ? m : (*length)[static_cast<std::size_t>(i)];
    if (d > read) {
      crop_pad[static_cast<std::size_t>(outer + i)][1] = d - read;
      cropped = true;
    }
  }
  if (cropped) gx = pad(gx, crop_pad);
  return {gx, Output()};
}

}  // namespace

void register_complex_gradients(GradientRegistry& r) {
  r.add("Real",
        [](const Operation&, const Grads& g) -> Grads { return {complex(g[0], zero_like(g[0]))}; });
  r.add("Imag",
        [](const Operation&, const Grads& g) -> Grads { return {complex(zero_like(g[0]), g[0])}; });
  r.add("Complex", [](const Operation& op, const Grads& g) -> Grads {
    auto [gx, gy] = reduce_broadcast(op, real(g[0]), imag(g[0]));
    return {gx, gy};
  });
  r.add("Conj", [](const Operation&, const Grads& g) -> Grads { return {conj(g[0])}; });
  r.add("ComplexAbs", [](const Operation& op, const Grads& g) -> Grads {
    const Output x = input(op, 0), y = op.output(0);
    const Output num = mul(complex(g[0], zeros_like(g[0])), x, "mul");
    return {binary("DivNoNan", num, complex(y, zeros_like(y)), "div_no_nan")};
  });
  r.add("Angle", [](const Operation& op, const Grads& g) -> Grads {
    Output z;
    {
      auto deps = op.graph().control_dependencies({g[0].op()});
      const Output x = input(op, 0);
      z = reciprocal(complex(imag(x), real(x)));
    }
    const Output complex_grad = complex(g[0], zero_like(g[0]));
    return {mul(neg(complex_grad, "Neg"), z, "mul")};
  });
  const char* forward[] = {"FFT", "FFT2D", "FFT3D"};
  const char* inverse[] = {"IFFT", "IFFT2D", "IFFT3D"};
  const char* rfft[] = {"RFFT", "RFFT2D", "RFFT3D"};
  const char* irfft[] = {"IRFFT", "IRFFT2D", "IRFFT3D"};
  for (int rank = 1; rank <= 3; ++rank) {
    const auto i = static_cast<std::size_t>(rank - 1);
    r.add(forward[i],
          [rank](const Operation&, const Grads& g) { return complex_fft_grad(g[0], rank, true); });
    r.add(inverse[i],
          [rank](const Operation&, const Grads& g) { return complex_fft_grad(g[0], rank, false); });
    r.add(rfft[i], [rank](const Operation& op, const Grads& g) { return rfft_grad(op, g, rank); });
    r.add(irfft[i],
          [rank](const Operation& op, const Grads& g) { return irfft_grad(op, g, rank); });
  }
}

}  // namespace af::detail
