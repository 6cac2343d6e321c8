// The complex numbers, the FFTs, float16 and the newer integer dtypes against TensorFlow:
// tests/data/tf_complex (scripts/peers/make_complex_fixtures.py) is a GraphDef TensorFlow 2.21
// built of Complex, Real, Imag, Angle, ComplexAbs, Conj, complex element-wise math, FFT ...
// IRFFT3D, float16 arithmetic, the Casts between the dtypes and the type-generic moves of
// each, with TensorFlow's values and gradients; its TensorFlow-written checkpoint holds a
// variable of each dtype. Then the builders (names, shapes, Python's padding and defaults),
// the kernels' errors, printing as NumPy prints, and the dtypes through TensorProtos.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/complex_ops.hpp>
#include <actorflow/ops/fft_ops.hpp>
#include <actorflow/ops/tensor_bundle.hpp>
#include <boost/test/unit_test.hpp>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "op_test_util.hpp"
#include "test_paths.hpp"

namespace {

using af::complex128_t;
using af::complex64_t;
using af::DType;
using af::half_t;
using af::Output;
using af::Shape;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_complex";

// True when `message` starts with `prefix` (the node's name follows TensorFlow's text).
bool starts_with(const std::string& message, const std::string& prefix) {
  return message.rfind(prefix, 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(complex_conformance_test)

// Every case's outputs and TensorFlow's own gradient graphs, imported and run here, give
// TensorFlow's values (FFTs to float rounding: they are computed in double here).
BOOST_AUTO_TEST_CASE(imported_cases_give_tensorflows_values, *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_imported_cases(m) > 400u);
}

// af::gradients through the imported forward ops (Complex, Real, Imag, ComplexAbs, Angle,
// Conj, complex Mul, Exp, Log, ..., the FFTs) equals tf.gradients.
BOOST_AUTO_TEST_CASE(gradients_built_here_equal_tensorflows, *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_built_gradients(m) > 80u);
}

// As tf.signal.rfft: fft_length defaults to the input's innermost dimension, a shorter input
// is padded ("rfft/Pad"), fft_length is the Const "rfft/fft_length"; the shapes follow.
BOOST_AUTO_TEST_CASE(rfft_builders_lay_out_pythons_ops) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, af::PartialShape({2, 6}), "x");
  const Output y = af::signal::rfft(x);
  BOOST_TEST(y.name() == "rfft:0");
  BOOST_TEST(y.dtype() == DType::complex64);
  BOOST_TEST(y.shape() == af::PartialShape({2, 4}));
  BOOST_TEST(g.operation("rfft/fft_length").type() == "Const");
  const Output padded = af::signal::rfft(x, {10});
  BOOST_TEST(padded.name() == "rfft_1:0");
  BOOST_TEST(g.operation("rfft_1/Pad").type() == "Pad");
  BOOST_TEST(padded.shape() == af::PartialShape({2, 6}));
  const Output back = af::signal::irfft(y);
  BOOST_TEST(back.dtype() == DType::float32);
  BOOST_TEST(back.shape() == af::PartialShape({2, 6}));
  const Output d = g.placeholder(DType::float64, af::PartialShape({3, 4, 5}), "d");
  BOOST_TEST(af::signal::rfft2d(d).shape() == af::PartialShape({3, 4, 3}));
  BOOST_TEST(af::signal::rfft2d(d).dtype() == DType::complex128);
  const Output unknown = g.placeholder(DType::float32, af::PartialShape({2, -1}), "u");
  BOOST_CHECK_THROW(af::signal::rfft(unknown), af::InvalidArgumentError);
  const Output c = g.placeholder(DType::complex64, af::PartialShape({4, 8}), "c");
  BOOST_TEST(af::signal::fft(c).name() == "FFT:0");
  BOOST_TEST(af::signal::ifft2d(c).shape() == af::PartialShape({4, 8}));
  BOOST_CHECK_THROW(af::signal::fft3d(c), af::InvalidArgumentError);  // rank 2 < 3
}

// The kernels' errors are TensorFlow's: too low a rank, a bad fft_length, too short an input
// (inputs of unknown shape, so that the shape functions pass them); the shape functions'
// own refusals throw when the graph is built.
BOOST_AUTO_TEST_CASE(fft_kernels_refuse_bad_inputs_as_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output c = g.placeholder(DType::complex64, af::PartialShape::unknown(), "c");
  const Output x = g.placeholder(DType::float32, af::PartialShape::unknown(), "x");
  const Output len = g.placeholder(DType::int32, af::PartialShape::unknown(), "len");
  const Output fft = g.create_op("FFT2D", {c}, {{"Tcomplex", DType::complex64}}, "f").output(0);
  const Output rfft = g.create_op("RFFT", {x, len},
                                  {{"Treal", DType::float32}, {"Tcomplex", DType::complex64}}, "r")
                          .output(0);
  af::Session sess(g);
  auto error = [&](const Output& fetch, const af::FeedDict& feeds) -> std::string {
    try {
      sess.run(fetch, feeds);
    } catch (const af::Error& e) {
      return e.what();
    }
    return "no error";
  };
  const Tensor five = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5});
  BOOST_TEST(
      starts_with(error(fft, {{c, Tensor::from_vector(std::vector<complex64_t>{{1, 2}}, Shape{})}}),
                  "Input must have rank of at least 2 but got: []"));
  BOOST_TEST(starts_with(
      error(rfft, {{x, five}, {len, Tensor::from_vector(std::vector<std::int32_t>{8})}}),
      "Input dimension 0 must have length of at least 8 but got: 5"));
  BOOST_TEST(starts_with(
      error(rfft, {{x, five}, {len, Tensor::from_vector(std::vector<std::int32_t>{-1})}}),
      "fft_length[0] must >= 0, but got: -1"));
  BOOST_TEST(starts_with(
      error(rfft, {{x, five}, {len, Tensor::from_vector(std::vector<std::int32_t>{4, 4})}}),
      "fft_length must be length 1 vector. Got: [2]"));
  // Built on a scalar of known shape, FFT2D's shape function refuses it.
  const Output scalar = g.constant(Tensor::from_vector(std::vector<complex64_t>{{1, 2}}, Shape{}));
  BOOST_CHECK_THROW(af::signal::fft2d(scalar), af::InvalidArgumentError);
}

// A transform and its inverse give the input back, for lengths with Bluestein's path (prime)
// and radix 2; a real signal's spectrum is Hermitian.
BOOST_AUTO_TEST_CASE(fft_round_trips_and_matches_a_direct_dft, *boost::unit_test::timeout(60)) {
  for (const std::int64_t n : {1, 2, 7, 16, 97}) {
    af::Graph g;
    std::vector<complex128_t> v;
    for (std::int64_t i = 0; i < n; ++i)
      v.emplace_back(std::sin(0.3 * static_cast<double>(i)),
                     std::cos(1.7 * static_cast<double>(i)));
    const Output x = g.constant(Tensor::from_vector(v));
    af::Session sess(g);
    const auto out = sess.run({af::signal::fft(x), af::signal::ifft(af::signal::fft(x))});
    for (std::int64_t k = 0; k < n; ++k) {
      complex128_t direct = 0;
      for (std::int64_t j = 0; j < n; ++j)
        direct +=
            v[static_cast<std::size_t>(j)] *
            std::polar(1.0, -2.0 * M_PI * static_cast<double>(j * k % n) / static_cast<double>(n));
      BOOST_TEST(std::abs(out[0].data<complex128_t>()[k] - direct) < 1e-9 * static_cast<double>(n));
      BOOST_TEST(std::abs(out[1].data<complex128_t>()[k] - v[static_cast<std::size_t>(k)]) < 1e-12);
    }
  }
}

// tf.complex refuses mismatched or non-float parts with Python's message; real, imag, conj
// and angle of a real tensor are Python's (no op, zeros, no op, where(x < 0, pi, 0)).
BOOST_AUTO_TEST_CASE(complex_builders_follow_python, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output a = g.constant(Tensor::from_vector(std::vector<float>{-1.5f, 2.0f, 0.0f}), "a");
  const Output d = g.constant(Tensor::from_vector(std::vector<double>{1.0, 2.0, 3.0}), "d");
  BOOST_CHECK_EXCEPTION(af::complex(a, d), af::InvalidArgumentError, [](const auto& e) {
    return std::string(e.what()).find(
               "The `real` and `imag` components have incorrect types: "
               "float32 float64") != std::string::npos;
  });
  BOOST_TEST(af::real(a).name() == a.name());
  BOOST_TEST(af::conj(a).name() == a.name());
  const Output z = af::complex(a, a);
  BOOST_TEST(z.name() == "Complex:0");
  BOOST_TEST(z.dtype() == DType::complex64);
  af::Session sess(g);
  const auto out = sess.run({af::imag(a), af::angle(a), af::complex_abs(z), af::conj(z)});
  BOOST_TEST(out[0].flat<float>()[0] == 0.0f);
  BOOST_TEST(out[1].flat<float>()[0] == static_cast<float>(M_PI));
  BOOST_TEST(out[1].flat<float>()[1] == 0.0f);
  BOOST_TEST(out[2].flat<float>()[0] == std::hypot(1.5f, 1.5f));
  BOOST_TEST(out[3].flat<complex64_t>()[1] == complex64_t(2.0f, -2.0f));
}

// Printing is NumPy's str(): float16 in float16's shortest digits, complex numbers with the
// real parts aligned together and the imaginary ones signed, the newer integers as integers.
BOOST_AUTO_TEST_CASE(tensors_of_the_new_dtypes_print_as_numpy) {
  auto halves = [](std::vector<float> v) {
    std::vector<half_t> h;
    for (float f : v) h.emplace_back(f);
    return Tensor::from_vector(h);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  BOOST_TEST(halves({0.1f, 1.5f, -2.25f, 65504.0f}).to_string() ==
             "[ 1.00e-01  1.50e+00 -2.25e+00  6.55e+04]");
  BOOST_TEST(Tensor::from_vector(std::vector<half_t>{half_t(0.1f)}, Shape{}).to_string() == "0.1");
  BOOST_TEST(halves({1e-5f, 3.0f, 70000.0f}).to_string() == "[1.e-05 3.e+00    inf]");
  BOOST_TEST(halves({nan, 1.0f, -inf}).to_string() == "[ nan   1. -inf]");
  const Tensor z = Tensor::from_vector(
      std::vector<complex64_t>{{1, 2}, {3.5f, -1}, {0, -0.25f}, {-1e-5f, 0}}, Shape{2, 2});
  BOOST_TEST(z.to_string() ==
             "[[ 1.0e+00+2.j    3.5e+00-1.j  ]\n [ 0.0e+00-0.25j -1.0e-05+0.j  ]]");
  BOOST_TEST(Tensor::from_vector(std::vector<complex64_t>{{1, 2}}, Shape{}).to_string() ==
             "(1+2j)");
  BOOST_TEST(Tensor::from_vector(std::vector<complex128_t>{{0, 2}}, Shape{}).to_string() == "2j");
  BOOST_TEST(Tensor::from_vector(std::vector<complex64_t>{{-1.5f, -0.5f}}, Shape{}).to_string() ==
             "(-1.5-0.5j)");
  const double dnan = std::numeric_limits<double>::quiet_NaN();
  const double dinf = std::numeric_limits<double>::infinity();
  BOOST_TEST(Tensor::from_vector(std::vector<complex128_t>{{1, 2}, {dnan, 1}, {dnan, -dinf}})
                 .to_string() == "[ 1. +2.j nan +1.j nan-infj]");
  BOOST_TEST(Tensor::from_vector(std::vector<std::int8_t>{-128, 5, 127}).to_string() ==
             "[-128    5  127]");
  BOOST_TEST(
      Tensor::from_vector(std::vector<std::uint64_t>{18446744073709551615ull, 0}).to_string() ==
      "[18446744073709551615                    0]");
}

// float16 conversion rounds to nearest even with subnormals, overflow to infinity and NaN kept.
BOOST_AUTO_TEST_CASE(float16_rounds_as_ieee) {
  BOOST_TEST(half_t(1.0f).bits == 0x3c00);
  BOOST_TEST(half_t(65504.0f).bits == 0x7bff);
  BOOST_TEST(half_t(65519.0f).bits == 0x7bff);
  BOOST_TEST(half_t(65520.0f).bits == 0x7c00);  // rounds up to infinity
  BOOST_TEST(half_t(-1e6f).bits == 0xfc00);
  BOOST_TEST(half_t(5.9604645e-8f).bits == 0x0001);   // the smallest subnormal
  BOOST_TEST(half_t(2.9802322e-8f).bits == 0x0000);   // half of it: ties to even (zero)
  BOOST_TEST(half_t(1.00048828125f).bits == 0x3c00);  // tie between 1 and 1+2^-10: even
  BOOST_TEST(half_t(1.00146484375f).bits == 0x3c02);  // tie: up to even
  BOOST_TEST(half_t(-0.0f).bits == 0x8000);
  BOOST_TEST(std::isnan(static_cast<float>(half_t(std::numeric_limits<float>::quiet_NaN()))));
  for (std::uint32_t bits = 0; bits < 0x7c00; ++bits) {  // every finite half round-trips
    half_t h;
    h.bits = static_cast<std::uint16_t>(bits);
    BOOST_REQUIRE_EQUAL(half_t(static_cast<float>(h)).bits, bits);
  }
  BOOST_TEST(static_cast<float>(std::numeric_limits<half_t>::max()) == 65504.0f);
  BOOST_TEST(static_cast<float>(std::numeric_limits<half_t>::lowest()) == -65504.0f);
}

// TensorFlow's checkpoint of a variable of each dtype reads back with its values; written here
// and read again, the bundle keeps them.
BOOST_AUTO_TEST_CASE(checkpoints_hold_the_new_dtypes, *boost::unit_test::timeout(60)) {
  af::BundleReader reader((dir / "ckpt" / "model").string());
  BOOST_REQUIRE(reader.status().ok());
  const auto want = af::test::fixture::Fixture(dir).ref["checkpoint"];
  std::size_t seen = 0;
  for (const auto& [name, value] : want.items()) {
    auto t = reader.lookup(name);
    BOOST_REQUIRE_MESSAGE(t.ok(), name);
    af::test::fixture::check(*t, value, {.exact = true});
    ++seen;
  }
  BOOST_TEST(seen == 8u);
}

BOOST_AUTO_TEST_SUITE_END()
