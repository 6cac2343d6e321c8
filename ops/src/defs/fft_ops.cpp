// The definitions of the spectral ops (FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT,
// RFFT2D, IRFFT2D, RFFT3D, IRFFT3D): shape functions and builders (Python's tf.signal
// wrappers). Their CPU kernels are in kernels/src/fft_ops.cpp.
#include "actorflow/ops/fft_ops.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "complex_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace detail::complex_defs;  // NOLINT: the shared complex definitions
using detail::with_rank;
using detail::with_rank_at_least;

// FFT ... IFFT3D: UnchangedShapeWithRankAtLeast(rank) of a complex Tcomplex.
Status infer_complex_fft(InferenceContext& c, int rank) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kComplexTypes, "Tcomplex"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], rank));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// RFFT ... IRFFT3D: TensorFlow's RFFTShape. fft_length must be a vector of `rank` int32;
// known, it sets the innermost dimensions (fft_length / 2 + 1 for the last of a forward
// transform), unknown leaves them unknown.
Status infer_real_fft(InferenceContext& c, int rank, bool forward) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType real = type_attr(c, "Treal", DType::float32);
  const DType cplx = type_attr(c, "Tcomplex", DType::complex64);
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(real, kPartTypes, "Treal"));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(cplx, kComplexTypes, "Tcomplex"));
  const DType in_type = forward ? real : cplx;
  if (c.input_types[0] != in_type)
    return invalid_argument("Input 'input' of '" + c.node.op + "' Op has type " +
                            std::string(dtype_name(c.input_types[0])) +
                            " that does not match expected type of " +
                            std::string(dtype_name(in_type)) + ".");
  if (c.input_types[1] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "fft_length",
                                                               c.input_types[1], DType::int32));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, rank));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_value(detail::dim_of(c.input_shapes[1], 0), rank));
  const DType out_type = forward ? cplx : real;
  if (!in.rank_known()) {
    c.add_output(out_type, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = in.dims();
  const Tensor* length = c.input_values.size() > 1 ? c.input_values[1] : nullptr;
  for (int i = 0; i < rank; ++i) {
    auto& d = dims[dims.size() - static_cast<std::size_t>(rank - i)];
    if (length == nullptr) {
      d = -1;
    } else {
      const std::int64_t n = length->data<std::int32_t>()[i];
      d = forward && i == rank - 1 && n != 0 ? n / 2 + 1 : n;
    }
  }
  c.add_output(out_type, PartialShape(std::move(dims)));
  return {};
}
Output complex_fft(const char* type, const Output& x, std::string_view name) {
  return make_op(type, {x}, {{"Tcomplex", x.dtype()}}, name, type);
}

// Python's _rfft / _irfft: fft_length defaults to the static innermost dimensions (irfft:
// 2 * (n - 1) for the last), the input is zero-padded up to what fft_length needs
// (_maybe_pad_for_rfft), and the op is named after the scope ("rfft").
Output real_fft(const char* type, const char* default_name, int rank, bool forward, const Output& x,
                std::vector<std::int32_t> fft_length, std::string_view name) {
  Graph& g = x.graph();
  const PartialShape& shape = x.shape();
  const std::string op_name = g.unique_name(name.empty() ? default_name : name);
  if (!shape.rank_known() || shape.rank() < rank)
    throw InvalidArgumentError(
        invalid_argument(std::string(default_name) + ": the input needs a known rank of at least " +
                         std::to_string(rank) + ", got shape " + shape.to_string()));
  const int outer = shape.rank() - rank;
  if (fft_length.empty()) {
    for (int i = 0; i < rank; ++i) {
      const std::int64_t d = shape.dim(outer + i);
      if (d < 0)
        throw InvalidArgumentError(invalid_argument(
            std::string(default_name) + ": fft_length is needed when the input's dimension " +
            std::to_string(outer + i) + " is unknown"));
      const bool inner = i == rank - 1;
      fft_length.push_back(static_cast<std::int32_t>(!forward && inner ? 2 * (d - 1) : d));
    }
  }
  if (static_cast<int>(fft_length.size()) != rank)
    throw InvalidArgumentError(invalid_argument(
        std::string(default_name) + ": fft_length has " + std::to_string(fft_length.size()) +
        " values for a transform of rank " + std::to_string(rank)));
  auto scope = g.name_scope(op_name + "/");
  Output input = x;
  std::vector<std::array<std::int64_t, 2>> paddings(static_cast<std::size_t>(shape.rank()),
                                                    std::array<std::int64_t, 2>{0, 0});
  bool pad = false;
  for (int i = 0; i < rank; ++i) {
    const std::int64_t d = shape.dim(outer + i);
    const bool inner = i == rank - 1;
    const std::int64_t need = !forward && inner ? fft_length[static_cast<std::size_t>(i)] / 2 + 1
                                                : fft_length[static_cast<std::size_t>(i)];
    if (d >= 0 && d < need) {
      paddings[static_cast<std::size_t>(outer + i)][1] = need - d;
      pad = true;
    }
  }
  if (pad) input = af::pad(x, paddings);
  const Output length = g.constant(Tensor::from_vector(fft_length), "fft_length");
  const DType real = forward ? x.dtype() : part_of(x.dtype());
  const DType cplx = forward ? complex_of(x.dtype()) : x.dtype();
  return g.create_op(type, {input, length}, {{"Treal", real}, {"Tcomplex", cplx}}, op_name + "/")
      .output(0);
}
}  // namespace

namespace detail {

void register_fft_ops(OpRegistry& r) {
  const struct {
    const char* type;
    int rank;
  } complex_ffts[] = {{"FFT", 1},    {"IFFT", 1},  {"FFT2D", 2},
                      {"IFFT2D", 2}, {"FFT3D", 3}, {"IFFT3D", 3}};
  for (const auto& f : complex_ffts) {
    const int rank = f.rank;
    r.add({f.type, [rank](InferenceContext& c) { return infer_complex_fft(c, rank); }});
  }
  const struct {
    const char* type;
    int rank;
    bool forward;
  } real_ffts[] = {{"RFFT", 1, true},     {"IRFFT", 1, false}, {"RFFT2D", 2, true},
                   {"IRFFT2D", 2, false}, {"RFFT3D", 3, true}, {"IRFFT3D", 3, false}};
  for (const auto& f : real_ffts) {
    const int rank = f.rank;
    const bool forward = f.forward;
    r.add({f.type,
           [rank, forward](InferenceContext& c) { return infer_real_fft(c, rank, forward); }});
  }
}

}  // namespace detail
namespace signal {

Output fft(const Output& x, std::string_view name) { return complex_fft("FFT", x, name); }
Output ifft(const Output& x, std::string_view name) { return complex_fft("IFFT", x, name); }
Output fft2d(const Output& x, std::string_view name) { return complex_fft("FFT2D", x, name); }
Output ifft2d(const Output& x, std::string_view name) { return complex_fft("IFFT2D", x, name); }
Output fft3d(const Output& x, std::string_view name) { return complex_fft("FFT3D", x, name); }
Output ifft3d(const Output& x, std::string_view name) { return complex_fft("IFFT3D", x, name); }

Output rfft(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("RFFT", "rfft", 1, true, x, std::move(fft_length), name);
}
Output irfft(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("IRFFT", "irfft", 1, false, x, std::move(fft_length), name);
}
Output rfft2d(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("RFFT2D", "rfft2d", 2, true, x, std::move(fft_length), name);
}
Output irfft2d(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("IRFFT2D", "irfft2d", 2, false, x, std::move(fft_length), name);
}
Output rfft3d(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("RFFT3D", "rfft3d", 3, true, x, std::move(fft_length), name);
}
Output irfft3d(const Output& x, std::vector<std::int32_t> fft_length, std::string_view name) {
  return real_fft("IRFFT3D", "irfft3d", 3, false, x, std::move(fft_length), name);
}

}  // namespace signal
}  // namespace af
