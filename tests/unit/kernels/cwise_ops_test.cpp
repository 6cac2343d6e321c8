// White-box tests of the element-wise ops of math_ops.hpp: shape and type inference through
// the builders, and the CPU kernels constructed and run directly (single-threaded and on an
// Eigen thread pool). Expected values are computed by hand or taken from TensorFlow's docs.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#define EIGEN_USE_THREADS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/CXX11/Tensor>
#pragma GCC diagnostic pop

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_runner.hpp"
#include "matchers.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using std::int32_t;
using std::int64_t;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::construction_error;
using af::test::eval;
using af::test::tensor;

// Runs the kernel and returns its error message (requires an InvalidArgument failure).
std::string kernel_error(const Output& node, std::vector<Tensor> inputs) {
  KernelResult r = run_kernel(node, std::move(inputs));
  BOOST_REQUIRE_MESSAGE(!r.status.ok(), "the kernel succeeded");
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  return r.status.message();
}

Tensor bools(std::vector<bool> values, Shape shape) { return Tensor::from_vector(values, shape); }
Tensor bf16(const std::vector<float>& values, Shape shape) {
  std::vector<af::bfloat16_t> v;
  for (float f : values) v.emplace_back(f);
  return Tensor::from_vector(v, shape);
}
std::vector<float> bf16_values(const Tensor& t) {
  std::vector<float> out;
  for (auto v : t.flat<af::bfloat16_t>()) out.push_back(static_cast<float>(v));
  return out;
}
std::vector<bool> bool_values(const Tensor& t) {
  auto f = t.flat<bool>();
  return {f.begin(), f.end()};
}

// Checks floats against expectations within a relative tolerance; NaN must match NaN and
// infinities must match exactly.
void check_floats(const std::vector<float>& got, const std::vector<float>& want,
                  float rel = 1e-6f) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      BOOST_TEST(std::isnan(got[i]), "element " << i << ": " << got[i] << " is not NaN");
    } else if (std::isinf(want[i])) {
      BOOST_TEST(got[i] == want[i], "element " << i << ": " << got[i] << " vs " << want[i]);
    } else {
      BOOST_TEST(std::abs(got[i] - want[i]) <= rel * std::max(1.0f, std::abs(want[i])),
                 "element " << i << ": " << got[i] << " vs " << want[i]);
    }
  }
}

// An Eigen pool with its device, as the runtime hands kernels an intra-op pool.
struct ThreadPool {
  explicit ThreadPool(int threads) : pool(threads), device(&pool, threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cwise_ops_test)

BOOST_AUTO_TEST_CASE(square_sqrt_rsqrt_and_reciprocal_apply_element_by_element) {
  Graph g;
  auto x = g.placeholder(af::float32, {4});
  check_floats(eval(af::square(x), {tensor<float>({-3, 0.5f, 0, 2}, {4})}).to_vector<float>(),
               {9, 0.25f, 0, 4});
  check_floats(eval(af::sqrt(x), {tensor<float>({4, 2.25f, 0, -1}, {4})}).to_vector<float>(),
               {2, 1.5f, 0, kNaN});
  check_floats(eval(af::rsqrt(x), {tensor<float>({4, 0.25f, 0, 100}, {4})}).to_vector<float>(),
               {0.5f, 2, kInf, 0.1f}, 1e-6f);
  check_floats(eval(af::reciprocal(x), {tensor<float>({2, -4, 0, 0.5f}, {4})}).to_vector<float>(),
               {0.5f, -0.25f, kInf, 2});
  auto d = g.placeholder(af::float64, {2});
  Tensor roots = eval(af::sqrt(d), {tensor<double>({2, 9}, {2})});
  BOOST_TEST(roots.to_vector<double>() == std::vector<double>({std::sqrt(2.0), 3.0}),
             boost::test_tools::per_element());
  Tensor rroots = eval(af::rsqrt(d), {tensor<double>({4, 16}, {2})});
  BOOST_TEST(rroots.to_vector<double>() == std::vector<double>({0.5, 0.25}),
             boost::test_tools::per_element());
}

// TensorFlow's float Sqrt is the square-root instruction, correctly rounded in packets as
// in the scalar tail: every element equals std::sqrt's (Eigen 3.4.0's fast packet sqrt gives
// 0.0316227749 for sqrt(0.001f), not 0.0316227786).
BOOST_AUTO_TEST_CASE(float_sqrt_is_correctly_rounded_in_every_element) {
  const std::int64_t n = 1027;  // packets and a scalar tail
  std::vector<float> values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(static_cast<float>(i) * 1e-3f + 1e-3f);
  Graph g;
  const auto got =
      eval(af::sqrt(g.placeholder(af::float32, {n})), {tensor(values, {n})}).to_vector<float>();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (got[i] != std::sqrt(values[i])) ++differ;
  BOOST_TEST(differ == 0u, differ << " of " << n << " roots differ from std::sqrt");
}

BOOST_AUTO_TEST_CASE(exp_and_log_follow_ieee_at_the_edges) {
  Graph g;
  auto x = g.placeholder(af::float32, {5});
  check_floats(eval(af::exp(x), {tensor<float>({0, 1, -1, -kInf, 2}, {5})}).to_vector<float>(),
               {1, std::exp(1.0f), std::exp(-1.0f), 0, std::exp(2.0f)}, 1e-6f);
  check_floats(
      eval(af::log(x), {tensor<float>({1, std::exp(1.0f), 0, -1, kInf}, {5})}).to_vector<float>(),
      {0, 1, -kInf, kNaN, kInf}, 1e-6f);
}

BOOST_AUTO_TEST_CASE(abs_sign_and_floor_cover_floats_and_integers) {
  Graph g;
  auto f = g.placeholder(af::float32, {5});
  Tensor in = tensor<float>({-2.5f, -0.0f, 0, 3.25f, -kInf}, {5});
  check_floats(eval(af::abs(f), {in}).to_vector<float>(), {2.5f, 0, 0, 3.25f, kInf});
  // sign(0) = sign(-0) = 0.
  check_floats(eval(af::sign(f), {in}).to_vector<float>(), {-1, 0, 0, 1, -1});
  check_floats(
      eval(af::floor(f), {tensor<float>({-1.5f, 2.7f, -3, 0.2f, -0.2f}, {5})}).to_vector<float>(),
      {-2, 2, -3, 0, -1});
  auto i = g.placeholder(af::int32, {4});
  const int32_t min = std::numeric_limits<int32_t>::min();
  Tensor ints = tensor<int32_t>({-3, 0, 5, min}, {4});
  BOOST_TEST(eval(af::abs(i), {ints}).to_vector<int32_t>() == std::vector<int32_t>({3, 0, 5, min}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::sign(i), {ints}).to_vector<int32_t>() == std::vector<int32_t>({-1, 0, 1, -1}),
             boost::test_tools::per_element());
  auto l = g.placeholder(af::int64, {2});
  BOOST_TEST(eval(af::square(l), {tensor<int64_t>({-3, 3000000000}, {2})}).to_vector<int64_t>() ==
                 std::vector<int64_t>({9, 9000000000000000000}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bfloat16_unary_ops_compute_in_float) {
  Graph g;
  auto x = g.placeholder(af::bfloat16, {3});
  BOOST_TEST(bf16_values(eval(af::sqrt(x), {bf16({4, 9, 0.25f}, {3})})) ==
                 std::vector<float>({2, 3, 0.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(bf16_values(eval(af::square(x), {bf16({-3, 0.5f, 8}, {3})})) ==
                 std::vector<float>({9, 0.25f, 64}),
             boost::test_tools::per_element());
  BOOST_TEST(bf16_values(eval(af::floor(x), {bf16({-1.5f, 2.5f, 3}, {3})})) ==
                 std::vector<float>({-2, 2, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(float_only_unary_ops_reject_integer_inputs) {
  Graph g;
  auto x = g.placeholder(af::int32, {2});
  BOOST_TEST(construction_error([&] { af::sqrt(x); }) ==
             "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
             "float, double, complex64, complex128 for 'Sqrt' (op: 'Sqrt') with input shapes: "
             "[2].");
  BOOST_TEST(construction_error([&] { af::log(x); }) != "<no error>");
  BOOST_TEST(construction_error([&] { af::floor(x); }) != "<no error>");
  auto b = g.placeholder(af::uint8, {2});
  BOOST_TEST(construction_error([&] { af::abs(b); }) ==
             "Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, "
             "float, double, int8, int16, int32, int64 for 'Abs' (op: 'Abs') with input shapes: "
             "[2].");
}

BOOST_AUTO_TEST_CASE(unary_ops_keep_the_input_shape_and_default_names) {
  Graph g;
  auto x = g.placeholder(af::float32, {-1, 3}, "x");
  for (auto [out, name] :
       std::vector<std::pair<Output, std::string>>{{af::square(x), "Square"},
                                                   {af::sqrt(x), "Sqrt"},
                                                   {af::rsqrt(x), "Rsqrt"},
                                                   {af::exp(x), "Exp"},
                                                   {af::log(x), "Log"},
                                                   {af::reciprocal(x), "Reciprocal"},
                                                   {af::abs(x), "Abs"},
                                                   {af::sign(x), "Sign"},
                                                   {af::floor(x), "Floor"}}) {
    BOOST_TEST(out.op().name() == name);
    BOOST_TEST(out.op().type() == name);
    BOOST_TEST(out.shape() == PartialShape({-1, 3}));
    BOOST_TEST((out.dtype() == af::float32));
  }
}

BOOST_AUTO_TEST_CASE(large_unary_and_binary_kernels_on_a_thread_pool_match_inline_results) {
  ThreadPool pool(4);
  Graph g;
  auto x = g.placeholder(af::float32, {300, 200});
  auto y = g.placeholder(af::float32, {200});
  std::vector<float> xv(60000), yv(200);
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 97) * 0.25f - 12.0f;
  for (std::size_t i = 0; i < yv.size(); ++i) yv[i] = static_cast<float>(i % 13) - 6.5f;  // nonzero
  const Tensor xt = tensor(xv, {300, 200}), yt = tensor(yv, {200});
  for (const Output& out : {af::exp(x), af::abs(x), af::maximum(x, y), af::floormod(x, y),
                            af::squared_difference(x, y)}) {
    KernelResult inline_run = run_kernel(out, {xt, yt});
    KernelResult pooled = run_kernel(out, {xt, yt}, &pool.device);
    BOOST_REQUIRE(inline_run.status.ok());
    BOOST_REQUIRE(pooled.status.ok());
    BOOST_TEST(pooled.expensive);
    BOOST_TEST(pooled.out() == inline_run.out());
  }
  // Spot checks of the broadcast results against the definitions.
  Tensor mx = eval(af::maximum(x, y), {xt, yt}, &pool.device);
  Tensor sd = eval(af::squared_difference(x, y), {xt, yt}, &pool.device);
  for (std::size_t i : {0UL, 1234UL, 59999UL}) {
    const float a = xv[i], b = yv[i % 200];
    BOOST_TEST(mx.flat<float>()[i] == std::max(a, b));
    BOOST_TEST(sd.flat<float>()[i] == (a - b) * (a - b));
  }
}

// -- gradients of unary math --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(unary_gradient_ops_follow_their_formulas) {
  Graph g;
  auto y = g.placeholder(af::float32, {3});
  auto dy = g.placeholder(af::float32, {3});
  Tensor yv = tensor<float>({2, 4, 0.5f}, {3});
  Tensor dyv = tensor<float>({1, 2, 4}, {3});
  // dy * 0.5 / y
  check_floats(eval(af::sqrt_grad(y, dy), {yv, dyv}).to_vector<float>(), {0.25f, 0.25f, 4});
  // dy * -0.5 * y^3
  check_floats(eval(af::rsqrt_grad(y, dy), {yv, dyv}).to_vector<float>(), {-4, -64, -0.25f});
  // -dy * y * y
  check_floats(eval(af::reciprocal_grad(y, dy), {yv, dyv}).to_vector<float>(), {-4, -32, -1});
  auto yd = g.placeholder(af::float64, {2});
  auto dyd = g.placeholder(af::float64, {2});
  Tensor out =
      eval(af::rsqrt_grad(yd, dyd), {tensor<double>({3, -1}, {2}), tensor<double>({2, 6}, {2})});
  BOOST_TEST(out.to_vector<double>() == std::vector<double>({-27, 3}),
             boost::test_tools::per_element());
  auto yb = g.placeholder(af::bfloat16, {2});
  auto dyb = g.placeholder(af::bfloat16, {2});
  BOOST_TEST(
      bf16_values(eval(af::sqrt_grad(yb, dyb), {bf16({2, 0.25f}, {2}), bf16({1, 1}, {2})})) ==
          std::vector<float>({0.25f, 2}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unary_gradient_ops_check_types_and_element_counts) {
  Graph g;
  auto y = g.placeholder(af::float32, {3}, "y");
  auto dy = g.placeholder(af::float64, {3});
  BOOST_TEST(construction_error([&] { af::sqrt_grad(y, dy); }) ==
             "Input 'dy' of 'SqrtGrad' Op has type float64 that does not match type float32 of "
             "argument 'y'.");
  auto iy = g.placeholder(af::int32, {3});
  BOOST_TEST(construction_error([&] { af::reciprocal_grad(iy, iy); }) ==
             "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
             "float, double, complex64, complex128 for 'ReciprocalGrad' (op: 'ReciprocalGrad') "
             "with input shapes: [3], [3].");
  auto a = g.placeholder(af::float32);
  auto b = g.placeholder(af::float32);
  auto grad = af::rsqrt_grad(a, b);
  BOOST_TEST(grad.op().name() == "RsqrtGrad");
  BOOST_TEST(kernel_error(grad, {tensor<float>({1, 2}, {2}), tensor<float>({1, 2, 3}, {3})}) ==
             "The two arguments to a cwise op must have same number of elements, got 2 and 3"
             "\n\t [[{{node RsqrtGrad}}]]");
  // Equal element counts of other shapes: the output takes y's shape, as TensorFlow.
  Tensor out = eval(grad, {tensor<float>({1, 1}, {2, 1}), tensor<float>({2, 4}, {2})});
  BOOST_TEST(out.shape() == Shape({2, 1}));
  check_floats(out.to_vector<float>(), {-1, -2});
}

// -- binary math --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(pow_matches_the_documented_example_for_floats_and_integers) {
  Graph g;
  // tf.pow docs: [[2, 2], [3, 3]] ^ [[8, 16], [2, 3]] = [[256, 65536], [9, 27]].
  auto xi = g.placeholder(af::int32, {2, 2});
  auto yi = g.placeholder(af::int32, {2, 2});
  Tensor ints = eval(af::pow(xi, yi), {tensor<int32_t>({2, 2, 3, 3}, {2, 2}),
                                       tensor<int32_t>({8, 16, 2, 3}, {2, 2})});
  BOOST_TEST(ints.to_vector<int32_t>() == std::vector<int32_t>({256, 65536, 9, 27}),
             boost::test_tools::per_element());
  auto xf = g.placeholder(af::float32, {2, 2});
  auto yf = g.placeholder(af::float32, {2, 2});
  check_floats(eval(af::pow(xf, yf),
                    {tensor<float>({2, 2, 3, 3}, {2, 2}), tensor<float>({8, 16, 2, 3}, {2, 2})})
                   .to_vector<float>(),
               {256, 65536, 9, 27});
  // Negative and fractional float exponents; x^0 = 1 even for 0.
  auto s = g.placeholder(af::float32, {4});
  auto e = g.placeholder(af::float32, {4});
  check_floats(
      eval(af::pow(s, e), {tensor<float>({2, 4, 0, -8}, {4}), tensor<float>({-1, 0.5f, 0, 3}, {4})})
          .to_vector<float>(),
      {0.5f, 2, 1, -512});
  // Integer powers wrap around; x^0 = 1.
  auto xl = g.placeholder(af::int32, {3});
  Tensor wrapped = eval(af::pow(xl, g.constant(tensor<int32_t>({31, 0, 1}, {3}))),
                        {tensor<int32_t>({2, 0, -7}, {3})});
  BOOST_TEST(wrapped.to_vector<int32_t>() ==
                 std::vector<int32_t>({std::numeric_limits<int32_t>::min(), 1, -7}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(integer_pow_rejects_negative_exponents) {
  Graph g;
  auto x = g.placeholder(af::int64, {2});
  auto y = g.placeholder(af::int64, {2});
  auto p = af::pow(x, y);
  BOOST_TEST(p.op().name() == "Pow");
  BOOST_TEST(kernel_error(p, {tensor<int64_t>({2, 3}, {2}), tensor<int64_t>({1, -1}, {2})}) ==
             "Integers to negative integer powers are not allowed\n\t [[{{node Pow}}]]");
}

BOOST_AUTO_TEST_CASE(maximum_and_minimum_broadcast_rows_and_scalars) {
  Graph g;
  auto x = g.placeholder(af::int32, {2, 3});
  auto y = g.placeholder(af::int32, {3});
  Tensor xv = tensor<int32_t>({1, 5, -2, 7, 0, 3}, {2, 3});
  Tensor yv = tensor<int32_t>({2, 2, 2}, {3});
  auto mx = af::maximum(x, y);
  BOOST_TEST(mx.shape() == PartialShape({2, 3}));
  BOOST_TEST(eval(mx, {xv, yv}).to_vector<int32_t>() == std::vector<int32_t>({2, 5, 2, 7, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::minimum(x, y), {xv, yv}).to_vector<int32_t>() ==
                 std::vector<int32_t>({1, 2, -2, 2, 0, 2}),
             boost::test_tools::per_element());
  auto f = g.placeholder(af::float64, {3});
  auto zero = g.constant(Tensor(0.0));
  Tensor relu = eval(af::maximum(f, zero), {tensor<double>({-1.5, 0.5, 2}, {3})});
  BOOST_TEST(relu.to_vector<double>() == std::vector<double>({0, 0.5, 2}),
             boost::test_tools::per_element());
  Tensor clipped = eval(af::minimum(zero, f), {tensor<double>({-1.5, 0.5, 2}, {3})});
  BOOST_TEST(clipped.to_vector<double>() == std::vector<double>({-1.5, 0, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(floordiv_rounds_toward_negative_infinity) {
  Graph g;
  auto x = g.placeholder(af::int32, {6});
  auto y = g.placeholder(af::int32, {6});
  auto q = af::floordiv(x, y);
  BOOST_TEST(q.op().name() == "floordiv");
  BOOST_TEST(q.op().type() == "FloorDiv");
  const int32_t min = std::numeric_limits<int32_t>::min();
  Tensor ints = eval(q, {tensor<int32_t>({7, -7, 7, -7, 0, min}, {6}),
                         tensor<int32_t>({2, 2, -2, -2, -3, -1}, {6})});
  BOOST_TEST(ints.to_vector<int32_t>() == std::vector<int32_t>({3, -4, -4, 3, 0, min}),
             boost::test_tools::per_element());
  auto f = g.placeholder(af::float32, {4});
  auto d = g.placeholder(af::float32, {4});
  check_floats(eval(af::floordiv(f, d),
                    {tensor<float>({7.5f, -7.5f, 1, -1}, {4}), tensor<float>({2, 2, 0, 0}, {4})})
                   .to_vector<float>(),
               {3, -4, kInf, -kInf});
  auto u = g.placeholder(af::uint8, {2});
  Tensor bytes(af::uint8, Shape{2});
  bytes.data<std::uint8_t>()[0] = 200;
  bytes.data<std::uint8_t>()[1] = 7;
  Tensor uq = eval(af::floordiv(u, u), {bytes, bytes});
  BOOST_TEST(uq.data<std::uint8_t>()[0] == 1);
  BOOST_TEST(uq.data<std::uint8_t>()[1] == 1);
}

BOOST_AUTO_TEST_CASE(floormod_takes_the_sign_of_the_divisor) {
  Graph g;
  auto x = g.placeholder(af::int64, {5});
  auto y = g.placeholder(af::int64, {5});
  const int64_t min = std::numeric_limits<int64_t>::min();
  Tensor ints = eval(af::floormod(x, y), {tensor<int64_t>({7, -7, 7, -7, min}, {5}),
                                          tensor<int64_t>({3, 3, -3, -3, -1}, {5})});
  BOOST_TEST(ints.to_vector<int64_t>() == std::vector<int64_t>({1, 2, -2, -1, 0}),
             boost::test_tools::per_element());
  auto f = g.placeholder(af::float32, {4});
  auto d = g.placeholder(af::float32, {4});
  auto m = af::floormod(f, d);
  BOOST_TEST(m.op().name() == "FloorMod_1");
  BOOST_TEST(m.op().type() == "FloorMod");
  check_floats(
      eval(m, {tensor<float>({7.5f, -7.5f, 7.5f, 6}, {4}), tensor<float>({2, 2, -2, 3}, {4})})
          .to_vector<float>(),
      {1.5f, 0.5f, -0.5f, 0});
  // floordiv(x, y) * y + floormod(x, y) == x for integers.
  auto a = g.placeholder(af::int32, {8});
  auto b = g.placeholder(af::int32, {8});
  Tensor av = tensor<int32_t>({9, -9, 9, -9, 1, -1, 0, 17}, {8});
  Tensor bv = tensor<int32_t>({4, 4, -4, -4, 5, 5, 3, -5}, {8});
  auto qv = eval(af::floordiv(a, b), {av, bv}).to_vector<int32_t>();
  auto rv = eval(af::floormod(a, b), {av, bv}).to_vector<int32_t>();
  for (std::size_t i = 0; i < 8; ++i)
    BOOST_TEST(qv[i] * bv.flat<int32_t>()[i] + rv[i] == av.flat<int32_t>()[i]);
}

BOOST_AUTO_TEST_CASE(integer_floordiv_and_floormod_reject_zero_divisors) {
  Graph g;
  auto x = g.placeholder(af::int32, {2});
  auto y = g.placeholder(af::int32, {2});
  Tensor xv = tensor<int32_t>({4, 5}, {2}), yv = tensor<int32_t>({1, 0}, {2});
  BOOST_TEST(kernel_error(af::floordiv(x, y), {xv, yv}) ==
             "Integer division by zero\n\t [[{{node floordiv}}]]");
  BOOST_TEST(kernel_error(af::floormod(x, y), {xv, yv}) ==
             "Integer division by zero\n\t [[{{node FloorMod}}]]");
}

// An empty result divides nothing: no error, as TensorFlow's functors flag only the elements
// they compute (math_ops.reduced_shape takes `axes % rank` of a scalar's empty axes, rank 0).
BOOST_AUTO_TEST_CASE(an_empty_result_meets_no_zero_divisor) {
  Graph g;
  auto x = g.placeholder(af::int32, af::PartialShape{-1});
  auto y = g.placeholder(af::int32, af::PartialShape{});
  const Tensor empty = tensor<int32_t>({}, {0}), zero = tensor<int32_t>({0}, {});
  BOOST_TEST(eval(af::floormod(x, y), {empty, zero}).num_elements() == 0);
  BOOST_TEST(eval(af::floordiv(x, y), {empty, zero}).num_elements() == 0);
  BOOST_TEST(kernel_error(af::floormod(x, y), {tensor<int32_t>({3}, {1}), zero}) ==
             "Integer division by zero\n\t [[{{node FloorMod_1}}]]");
}

BOOST_AUTO_TEST_CASE(squared_difference_broadcasts) {
  Graph g;
  auto x = g.placeholder(af::int32, {2, 2});
  auto y = g.placeholder(af::int32, {2});
  auto sd = af::squared_difference(x, y);
  BOOST_TEST(sd.op().name() == "SquaredDifference");
  BOOST_TEST(eval(sd, {tensor<int32_t>({1, 5, -2, 0}, {2, 2}), tensor<int32_t>({3, -1}, {2})})
                     .to_vector<int32_t>() == std::vector<int32_t>({4, 36, 25, 1}),
             boost::test_tools::per_element());
  auto f = g.placeholder(af::float32, {2, 1});
  auto h = g.placeholder(af::float32, {1, 3});
  Tensor out = eval(af::squared_difference(f, h),
                    {tensor<float>({1, -1}, {2, 1}), tensor<float>({0, 1, 2.5f}, {1, 3})});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  check_floats(out.to_vector<float>(), {1, 0, 2.25f, 1, 4, 12.25f});
}

BOOST_AUTO_TEST_CASE(binary_math_checks_types_and_shapes) {
  Graph g;
  auto x = g.placeholder(af::float32, {2});
  auto i = g.placeholder(af::int32, {2});
  BOOST_TEST(
      construction_error([&] { af::maximum(x, i); }) ==
      "Input 'y' of 'Maximum' Op has type int32 that does not match type float32 of argument 'x'.");
  // TensorFlow's OpDef of FloorMod allows the integers and floats, not complex numbers.
  auto u = g.placeholder(af::complex64, {2});
  BOOST_TEST(construction_error([&] { af::floormod(u, u); }) ==
             "Value for attr 'T' of complex64 is not in the list of allowed values: int8, int16, "
             "int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double for "
             "'FloorMod' (op: 'FloorMod') with input shapes: [2], [2].");
  auto z = g.placeholder(af::float32, {3});
  BOOST_TEST(construction_error([&] { af::pow(x, z); }) ==
             "Dimensions must be equal, but are 2 and 3 for 'Pow' (op: 'Pow') with input shapes: "
             "[2], [3].");
  auto a = g.placeholder(af::float32);
  auto b = g.placeholder(af::float32);
  std::string msg =
      kernel_error(af::minimum(a, b), {tensor<float>({1, 2}, {2}), tensor<float>({1, 2, 3}, {3})});
  BOOST_TEST(msg == "Incompatible shapes: [2] vs. [3]\n\t [[{{node Minimum}}]]");
}

// -- comparisons and logic ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(comparisons_give_bool_tensors_of_the_broadcast_shape) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  auto y = g.placeholder(af::float32, {3});
  Tensor xv = tensor<float>({1, 2, 3, 4, 2, kNaN}, {2, 3});
  Tensor yv = tensor<float>({2, 2, 2}, {3});
  auto eq = af::equal(x, y);
  BOOST_TEST(eq.shape() == PartialShape({2, 3}));
  BOOST_TEST((eq.dtype() == af::boolean));
  BOOST_TEST(bool_values(eval(eq, {xv, yv})) ==
                 std::vector<bool>({false, true, false, false, true, false}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::not_equal(x, y), {xv, yv})) ==
                 std::vector<bool>({true, false, true, true, false, true}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::less(x, y), {xv, yv})) ==
                 std::vector<bool>({true, false, false, false, false, false}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::less_equal(x, y), {xv, yv})) ==
                 std::vector<bool>({true, true, false, false, true, false}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::greater(x, y), {xv, yv})) ==
                 std::vector<bool>({false, false, true, true, false, false}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::greater_equal(x, y), {xv, yv})) ==
                 std::vector<bool>({false, true, true, true, true, false}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(comparisons_cover_integers_bfloat16_and_bools) {
  Graph g;
  auto a = g.placeholder(af::int64, {3});
  auto s = g.constant(Tensor(int64_t{5}));
  BOOST_TEST(bool_values(eval(af::greater(s, a), {tensor<int64_t>({4, 5, 6}, {3})})) ==
                 std::vector<bool>({true, false, false}),
             boost::test_tools::per_element());
  auto h = g.placeholder(af::bfloat16, {2});
  BOOST_TEST(bool_values(eval(af::less(h, h), {bf16({1, 2}, {2}), bf16({1.5f, 2}, {2})})) ==
                 std::vector<bool>({true, false}),
             boost::test_tools::per_element());
  auto p = g.placeholder(af::boolean, {4});
  auto q = g.placeholder(af::boolean, {4});
  Tensor pv = bools({true, true, false, false}, {4}), qv = bools({true, false, true, false}, {4});
  BOOST_TEST(
      bool_values(eval(af::equal(p, q), {pv, qv})) == std::vector<bool>({true, false, false, true}),
      boost::test_tools::per_element());
  auto words = g.placeholder(af::string, {3});
  auto b = g.constant(Tensor("b"));
  Tensor wv = tensor<std::string>({"a", "b", "bb"}, {3});
  BOOST_TEST(
      bool_values(eval(af::equal(words, b), {wv})) == std::vector<bool>({false, true, false}),
      boost::test_tools::per_element());
  BOOST_TEST(
      bool_values(eval(af::not_equal(b, words), {wv})) == std::vector<bool>({true, false, true}),
      boost::test_tools::per_element());
  BOOST_TEST(
      construction_error([&] { af::less(p, q); }) ==
      "Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, "
      "uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64 for 'Less_1' (op: "
      "'Less') with input shapes: [4], [4].");
}

BOOST_AUTO_TEST_CASE(logical_ops_broadcast_bool_tensors) {
  Graph g;
  auto p = g.placeholder(af::boolean, {2, 2});
  auto q = g.placeholder(af::boolean, {2});
  Tensor pv = bools({true, true, false, false}, {2, 2}), qv = bools({true, false}, {2});
  auto both = af::logical_and(p, q);
  BOOST_TEST(both.op().name() == "LogicalAnd");
  BOOST_TEST(both.shape() == PartialShape({2, 2}));
  BOOST_TEST(bool_values(eval(both, {pv, qv})) == std::vector<bool>({true, false, false, false}),
             boost::test_tools::per_element());
  BOOST_TEST(bool_values(eval(af::logical_or(p, q), {pv, qv})) ==
                 std::vector<bool>({true, true, true, false}),
             boost::test_tools::per_element());
  auto n = af::logical_not(p);
  BOOST_TEST(n.op().name() == "LogicalNot");
  BOOST_TEST(bool_values(eval(n, {pv})) == std::vector<bool>({false, false, true, true}),
             boost::test_tools::per_element());
  auto f = g.placeholder(af::float32, {2});
  BOOST_TEST(
      construction_error([&] { af::logical_and(f, q); }) ==
      "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected type of bool.");
  BOOST_TEST(
      construction_error([&] { af::logical_not(f); }) ==
      "Input 'x' of 'LogicalNot' Op has type float32 that does not match expected type of bool.");
}

// -- Select -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(select_with_a_condition_of_the_inputs_shape_picks_elements) {
  Graph g;
  auto c = g.placeholder(af::boolean, {2, 2});
  auto t = g.placeholder(af::int32, {2, 2});
  auto e = g.placeholder(af::int32, {2, 2});
  auto s = af::where(c, t, e);
  BOOST_TEST(s.op().name() == "Select");
  BOOST_TEST(s.op().type() == "Select");
  BOOST_TEST(s.shape() == PartialShape({2, 2}));
  // TensorFlow's documented example.
  Tensor out =
      eval(s, {bools({true, false, false, true}, {2, 2}), tensor<int32_t>({1, 2, 3, 4}, {2, 2}),
               tensor<int32_t>({5, 6, 7, 8}, {2, 2})});
  BOOST_TEST(out.to_vector<int32_t>() == std::vector<int32_t>({1, 6, 7, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(select_with_a_vector_condition_picks_rows) {
  Graph g;
  auto c = g.placeholder(af::boolean, {2});
  auto t = g.placeholder(af::float32, {2, 3});
  auto e = g.placeholder(af::float32, {2, 3});
  auto s = af::select(c, t, e);
  BOOST_TEST(s.shape() == PartialShape({2, 3}));
  Tensor tv = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor ev = tensor<float>({-1, -2, -3, -4, -5, -6}, {2, 3});
  BOOST_TEST(eval(s, {bools({true, false}, {2}), tv, ev}).to_vector<float>() ==
                 std::vector<float>({1, 2, 3, -4, -5, -6}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(s, {bools({false, true}, {2}), tv, ev}).to_vector<float>() ==
                 std::vector<float>({-1, -2, -3, 4, 5, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(select_with_a_scalar_condition_picks_a_whole_input) {
  Graph g;
  auto c = g.placeholder(af::boolean, PartialShape(std::vector<int64_t>{}));
  auto t = g.placeholder(af::string, {2});
  auto e = g.placeholder(af::string, {2});
  auto s = af::select(c, t, e);
  Tensor tv = tensor<std::string>({"a", "b"}, {2}), ev = tensor<std::string>({"c", "d"}, {2});
  BOOST_TEST(eval(s, {Tensor(true), tv, ev}).to_vector<std::string>() ==
                 std::vector<std::string>({"a", "b"}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(s, {Tensor(false), tv, ev}).to_vector<std::string>() ==
                 std::vector<std::string>({"c", "d"}),
             boost::test_tools::per_element());
  // A scalar condition allows inputs of any shape.
  auto m = g.placeholder(af::float32, {2, 3});
  BOOST_TEST(af::select(c, m, m).shape() == PartialShape({2, 3}));
}

BOOST_AUTO_TEST_CASE(select_rejects_conditions_that_fit_neither_mode) {
  Graph g;
  auto c3 = g.placeholder(af::boolean, {3});
  auto t = g.placeholder(af::float32, {2, 2});
  BOOST_TEST(
      construction_error([&] { af::select(c3, t, t); }) ==
      "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]. for "
      "'Select' (op: 'Select') with input shapes: [3], [2,2], [2,2].");
  auto c22 = g.placeholder(af::boolean, {2, 3});
  BOOST_TEST(
      construction_error([&] { af::select(c22, t, t); }) ==
      "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [2,2] and [2,3]. "
      "for 'Select_1' (op: 'Select') with input shapes: [2,3], [2,2], [2,2].");
  auto f = g.placeholder(af::float32, {2});
  BOOST_TEST(construction_error([&] { af::select(f, f, f); }) ==
             "Input 'condition' of 'Select' Op has type float32 that does not match expected type "
             "of bool.");
  auto i = g.placeholder(af::int32, {2, 2});
  BOOST_TEST(
      construction_error([&] { af::select(c3, t, i); }) ==
      "Input 'e' of 'Select' Op has type int32 that does not match type float32 of argument 't'.");
  // Unknown static shapes: the kernel applies TensorFlow's checks.
  Graph h;
  auto c = h.placeholder(af::boolean);
  auto u = h.placeholder(af::float32);
  auto v = h.placeholder(af::float32);
  auto s = af::select(c, u, v);
  Tensor m22 = tensor<float>({1, 2, 3, 4}, {2, 2});
  BOOST_TEST(kernel_error(s, {bools({true, false, true}, {3}), m22, m22}) ==
             "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3\n\t [[{{node "
             "Select}}]]");
  BOOST_TEST(
      kernel_error(s, {bools({true, false}, {2}), tensor<float>({1, 2, 3}, {3}),
                       tensor<float>({1, 2, 3}, {3})}) ==
      "Inputs to operation Select of type Select must have the same size and shape.  Input 0: [2] "
      "!= input 1: [3]\n\t [[{{node Select}}]]");
  BOOST_TEST(kernel_error(s, {bools({true, false}, {2}), m22, tensor<float>({1, 2}, {2})}) ==
             "'then' and 'else' must have the same size.  but received: [2,2] vs. [2]\n\t [[{{node "
             "Select}}]]");
  BOOST_TEST(kernel_error(s, {Tensor(true), m22, tensor<float>({1, 2}, {2})}) ==
             "'then' and 'else' must have the same size.  but received: [2,2] vs. [2]\n\t [[{{node "
             "Select}}]]");
}

// -- AddN ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(add_n_sums_inputs_of_one_shape) {
  Graph g;
  auto a = g.placeholder(af::float32, {-1, 3});
  auto b = g.placeholder(af::float32, {2, -1});
  auto c = g.placeholder(af::float32);
  auto sum = af::add_n({a, b, c});
  BOOST_TEST(sum.op().name() == "AddN");
  BOOST_TEST(*sum.op().node_def().attr<std::int64_t>("N") == 3);
  BOOST_TEST(sum.shape() == PartialShape({2, 3}));
  Tensor out = eval(sum, {tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                          tensor<float>({10, 20, 30, 40, 50, 60}, {2, 3}),
                          tensor<float>({0.5f, 0.5f, 0.5f, 0.5f, 0.5f, -100}, {2, 3})});
  check_floats(out.to_vector<float>(), {11.5f, 22.5f, 33.5f, 44.5f, 55.5f, -34});
  auto i = g.placeholder(af::int32, {2});
  Tensor ints =
      eval(af::add_n({i, i, i, i}), {tensor<int32_t>({1, -2}, {2}), tensor<int32_t>({3, 4}, {2}),
                                     tensor<int32_t>({5, 6}, {2}), tensor<int32_t>({7, 8}, {2})});
  BOOST_TEST(ints.to_vector<int32_t>() == std::vector<int32_t>({16, 16}),
             boost::test_tools::per_element());
  auto h = g.placeholder(af::bfloat16, {2});
  BOOST_TEST(bf16_values(eval(af::add_n({h, h}), {bf16({1, 2}, {2}), bf16({0.5f, -4}, {2})})) ==
                 std::vector<float>({1.5f, -2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(add_n_of_one_input_returns_it) {
  Graph g;
  auto a = g.placeholder(af::float32, {2}, "a");
  BOOST_TEST((af::add_n({a}) == a));
  auto named = af::add_n({a}, "total");
  BOOST_TEST(named.op().type() == "Identity");
  BOOST_TEST(named.op().name() == "total");
}

BOOST_AUTO_TEST_CASE(add_n_rejects_mixed_types_and_shapes) {
  Graph g;
  auto a = g.placeholder(af::float32, {2});
  auto b = g.placeholder(af::float32, {3});
  auto i = g.placeholder(af::int32, {2});
  BOOST_TEST(construction_error([&] { af::add_n({}); }) != "<no error>");
  BOOST_TEST(
      construction_error([&] {
        af::add_n({a, i});
      }) ==
      "Tensors in list passed to 'inputs' of 'AddN' Op have types [float32, int32] that don't "
      "all match.");
  BOOST_TEST(
      construction_error([&] {
        af::add_n({a, b});
      }) ==
      "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].\n\t"
      "From merging shape 0 with other shapes. for 'AddN' (op: 'AddN') with input shapes: [2], "
      "[3].");
  // A failed construction still takes its name, as in TensorFlow.
  auto u = g.placeholder(af::float32);
  auto v = g.placeholder(af::float32);
  BOOST_TEST(
      kernel_error(af::add_n({u, v}),
                   {tensor<float>({1, 2}, {2}), tensor<float>({1, 2}, {1, 2})}) ==
      "Inputs to operation AddN_1 of type AddN must have the same size and shape.  Input 0: [2] != "
      "input 1: [1,2]\n\t [[{{node AddN_1}}]]");
}

// -- ArgMax and ArgMin --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(argmax_and_argmin_return_the_first_extreme_index) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 4}, "x");
  Tensor xv = tensor<float>({3, 7, 7, 1, 5, -5, 7, -5}, {2, 4});
  auto rows = af::argmax(x, 1);
  BOOST_TEST(rows.op().name() == "ArgMax");
  BOOST_TEST((rows.dtype() == af::int64));
  BOOST_TEST(rows.shape() == PartialShape({2}));
  BOOST_TEST(rows.op().node_def().inputs == std::vector<std::string>({"x", "ArgMax/dimension"}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(rows, {xv}).to_vector<int64_t>() == std::vector<int64_t>({1, 2}),
             boost::test_tools::per_element());
  auto cols = af::argmax(x, -2, af::int32);
  BOOST_TEST(cols.op().name() == "ArgMax_1");
  BOOST_TEST((cols.dtype() == af::int32));
  BOOST_TEST(cols.shape() == PartialShape({4}));
  BOOST_TEST(eval(cols, {xv}).to_vector<int32_t>() == std::vector<int32_t>({1, 0, 0, 0}),
             boost::test_tools::per_element());
  auto mins = af::argmin(x, 1);
  BOOST_TEST(mins.op().name() == "ArgMin");
  BOOST_TEST(eval(mins, {xv}).to_vector<int64_t>() == std::vector<int64_t>({3, 1}),
             boost::test_tools::per_element());
  auto v = g.placeholder(af::int32, {5});
  auto scalar = af::argmin(v);
  BOOST_TEST(scalar.shape() == PartialShape({}));
  BOOST_TEST(eval(scalar, {tensor<int32_t>({4, -9, 0, -9, 8}, {5})}).scalar<int64_t>() == 1);
}

BOOST_AUTO_TEST_CASE(argmax_along_a_middle_axis_with_a_tensor_axis) {
  Graph g;
  auto x = g.placeholder(af::int32, {2, 3, 2});
  auto axis = g.placeholder(af::int64, PartialShape(std::vector<int64_t>{}));
  auto out = af::argmax(x, axis);
  BOOST_TEST(out.shape() == PartialShape({-1, -1}));
  // x[a][b][c] = values; argmax over b.
  Tensor xv = tensor<int32_t>({1, 9, 5, 2, 3, 9, 0, 0, -1, 4, 7, 4}, {2, 3, 2});
  Tensor r = eval(out, {xv, Tensor(int64_t{1})});
  BOOST_TEST(r.shape() == Shape({2, 2}));
  BOOST_TEST(r.to_vector<int64_t>() == std::vector<int64_t>({1, 0, 2, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(argmax_rejects_empty_and_out_of_range_axes) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, -1});
  auto out = af::argmax(x, 1);
  BOOST_TEST(kernel_error(out, {Tensor(af::float32, Shape{2, 0})}) ==
             "Reduction axis 1 is empty in shape [2,0]\n\t [[{{node ArgMax}}]]");
  BOOST_TEST(
      construction_error([&] { af::argmax(x, 2); }) ==
      "Dimension (2) must be in the range [-2, 2), where 2 is the number of dimensions in the "
      "input. for 'ArgMax_1' (op: 'ArgMax') with input shapes: [2,?], [].");
  auto u = g.placeholder(af::float32);
  auto any = af::argmax(u, 2);
  BOOST_TEST(kernel_error(any, {tensor<float>({1, 2, 3, 4}, {2, 2})}) ==
             "Expected dimension in the range [-2, 2), but got 2\n\t [[{{node ArgMax_2}}]]");
  auto axis = g.placeholder(af::int32, {1});
  BOOST_TEST(construction_error([&] { af::argmax(x, axis); }) ==
             "Shape must be rank 0 but is rank 1 for 'ArgMax_3' (op: 'ArgMax') with input shapes: "
             "[2,?], [1].");
  BOOST_TEST(
      construction_error([&] { af::argmin(x, 0, af::float32); }) ==
      "Value for attr 'output_type' of float is not in the list of allowed values: int32, int64 "
      "for 'ArgMin' (op: 'ArgMin') with input shapes: [2,?], [].");
}

// -- L2Loss and CheckNumerics -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(l2_loss_is_half_the_sum_of_squares) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 2});
  auto loss = af::l2_loss(x);
  BOOST_TEST(loss.op().name() == "L2Loss");
  BOOST_TEST(loss.shape() == PartialShape({}));
  BOOST_TEST(eval(loss, {tensor<float>({1, -2, 3, 0.5f}, {2, 2})}).scalar<float>() == 7.125f);
  auto d = g.placeholder(af::float64, {-1});
  BOOST_TEST(eval(af::l2_loss(d), {tensor<double>({3, 4}, {2})}).scalar<double>() == 12.5);
  BOOST_TEST(eval(af::l2_loss(d), {Tensor(af::float64, Shape{0})}).scalar<double>() == 0.0);
  auto h = g.placeholder(af::bfloat16, {2});
  BOOST_TEST(static_cast<float>(
                 eval(af::l2_loss(h), {bf16({2, 4}, {2})}).scalar<af::bfloat16_t>()) == 10.0f);
  Graph ints;
  auto i = ints.placeholder(af::int32, {2});
  BOOST_TEST(
      construction_error([&] { af::l2_loss(i); }) ==
      "Value for attr 'T' of int32 is not in the list of allowed values: float, double, bfloat16, "
      "half for 'L2Loss' (op: 'L2Loss') with input shapes: [2].");
}

BOOST_AUTO_TEST_CASE(check_numerics_passes_finite_values_through) {
  Graph g;
  auto x = g.placeholder(af::float32, {-1, 2});
  auto checked = af::check_numerics(x, "loss");
  BOOST_TEST(checked.op().name() == "CheckNumerics");
  BOOST_TEST(*checked.op().node_def().attr<std::string>("message") == "loss");
  BOOST_TEST(checked.shape() == PartialShape({-1, 2}));
  Tensor in = tensor<float>({1, -2, 3e38f, 0}, {2, 2});
  Tensor out = eval(checked, {in});
  BOOST_TEST(out.shares_buffer_with(in));
  BOOST_TEST(out == in);
}

BOOST_AUTO_TEST_CASE(check_numerics_fails_on_nan_and_inf_with_the_message) {
  Graph g;
  auto x = g.placeholder(af::float32, {3});
  auto checked = af::check_numerics(x, "logits", "check");
  BOOST_TEST(kernel_error(checked, {tensor<float>({1, kNaN, 2}, {3})}) ==
             "logits : Tensor had NaN values\n\t [[{{node check}}]]");
  BOOST_TEST(kernel_error(checked, {tensor<float>({1, -kInf, 2}, {3})}) ==
             "logits : Tensor had Inf values\n\t [[{{node check}}]]");
  BOOST_TEST(kernel_error(checked, {tensor<float>({kInf, kNaN, 2}, {3})}) ==
             "logits : Tensor had Inf and NaN values\n\t [[{{node check}}]]");
  auto d = g.placeholder(af::float64, {1});
  BOOST_TEST(kernel_error(af::check_numerics(d, "w"), {tensor<double>({std::nan("")}, {1})}) ==
             "w : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]");
  auto i = g.placeholder(af::int32, {1});
  BOOST_TEST(construction_error([&] { af::check_numerics(i, "m"); }) != "<no error>");
}

BOOST_AUTO_TEST_SUITE_END()
