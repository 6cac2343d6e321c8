// White-box tests of the math ops: shape inference through the Graph builders, and the CPU
// kernels constructed and run directly (single-threaded and on an Eigen thread pool).
#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
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

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::construction_error;
using af::test::eval;
using af::test::tensor;
using std::int32_t;
using std::int64_t;

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// op(a) * op(b) by the definition, in double.
std::vector<double> naive_product(const std::vector<float>& a, const std::vector<float>& b, int m,
                                  int n, int k, bool ta, bool tb) {
  std::vector<double> out(static_cast<std::size_t>(m * n), 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) {
        double av =
            ta ? a[static_cast<std::size_t>(p * m + i)] : a[static_cast<std::size_t>(i * k + p)];
        double bv =
            tb ? b[static_cast<std::size_t>(j * k + p)] : b[static_cast<std::size_t>(p * n + j)];
        acc += av * bv;
      }
      out[static_cast<std::size_t>(i * n + j)] = acc;
    }
  return out;
}

void check_close(const Tensor& got, const std::vector<double>& want, double tol) {
  auto g = got.flat<float>();
  BOOST_REQUIRE_EQUAL(g.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_REQUIRE_MESSAGE(std::abs(g[i] - want[i]) <= tol,
                          "element " << i << ": " << g[i] << " vs " << want[i]);
}

// An Eigen pool with its device, as the runtime hands kernels an intra-op pool.
struct ThreadPool {
  explicit ThreadPool(int threads) : pool(threads), device(&pool, threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(math_ops_test)

// -- binary ops ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(add_of_equal_shapes_adds_element_by_element) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 2});
  auto y = g.placeholder(af::float32, {2, 2});
  auto z = af::add(x, y);
  BOOST_TEST(z.shape() == PartialShape({2, 2}));
  Tensor out =
      eval(z, {tensor<float>({1, 2, 3, 4}, {2, 2}), tensor<float>({10, 20, 30, 40}, {2, 2})});
  BOOST_TEST(out.shape() == Shape({2, 2}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({11, 22, 33, 44}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(add_broadcasts_a_vector_over_the_rows_of_a_matrix) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  auto y = g.placeholder(af::float32, {3});
  auto z = x + y;
  BOOST_TEST(z.shape() == PartialShape({2, 3}));
  Tensor out =
      eval(z, {tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}), tensor<float>({10, 20, 30}, {3})});
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({11, 22, 33, 14, 25, 36}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(mul_broadcasts_a_column_against_a_row) {
  Graph g;
  auto x = g.placeholder(af::int32, {2, 1});
  auto y = g.placeholder(af::int32, {1, 3});
  auto z = x * y;
  BOOST_TEST(z.shape() == PartialShape({2, 3}));
  Tensor out =
      eval(z, {tensor<std::int32_t>({2, 3}, {2, 1}), tensor<std::int32_t>({1, 10, 100}, {1, 3})});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  BOOST_TEST(out.to_vector<std::int32_t>() == std::vector<std::int32_t>({2, 20, 200, 3, 30, 300}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(broadcasting_covers_middle_and_leading_dimensions) {
  Graph g;
  auto x = g.placeholder(af::float64, {2, 1, 3});
  auto y = g.placeholder(af::float64, {4, 1});
  auto z = af::sub(x, y);
  BOOST_TEST(z.shape() == PartialShape({2, 4, 3}));
  std::vector<double> xv = {0, 1, 2, 3, 4, 5}, yv = {0, 10, 20, 30};
  Tensor out = eval(z, {tensor(xv, {2, 1, 3}), tensor(yv, {4, 1})});
  BOOST_TEST(out.shape() == Shape({2, 4, 3}));
  auto o = out.flat<double>();
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c)
        BOOST_TEST(o[static_cast<std::size_t>((a * 4 + b) * 3 + c)] ==
                   xv[static_cast<std::size_t>(a * 3 + c)] - yv[static_cast<std::size_t>(b)]);
}

BOOST_AUTO_TEST_CASE(scalars_broadcast_on_either_side) {
  Graph g;
  auto x = g.placeholder(af::float32, {3});
  auto left = 10.0f - x;
  auto right = x - 1.0f;
  Tensor xv = tensor<float>({1, 2, 3}, {3});
  BOOST_TEST(eval(left, {xv}).to_vector<float>() == std::vector<float>({9, 8, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(right, {xv}).to_vector<float>() == std::vector<float>({0, 1, 2}),
             boost::test_tools::per_element());
  // A one-element tensor of higher rank broadcasts the other way round.
  auto y = g.placeholder(af::float32, {1, 1});
  Tensor out = eval(x * y, {xv, tensor<float>({2}, {1, 1})});
  BOOST_TEST(out.shape() == Shape({1, 3}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({2, 4, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(broadcast_shape_inference_keeps_unknown_dimensions) {
  Graph g;
  auto x = g.placeholder(af::float32, {-1, 3});
  auto y = g.placeholder(af::float32, {3});
  BOOST_TEST((x + y).shape() == PartialShape({-1, 3}));
  auto u = g.placeholder(af::float32);
  BOOST_TEST(!(x + u).shape().rank_known());
  auto col = g.placeholder(af::float32, {-1, 1});
  BOOST_TEST((col * y).shape() == PartialShape({-1, 3}));
}

BOOST_AUTO_TEST_CASE(incompatible_static_shapes_fail_at_construction) {
  Graph g;
  auto x = g.placeholder(af::float32, {2});
  auto y = g.placeholder(af::float32, {3});
  std::string msg = construction_error([&] { (void)(x * y); });
  BOOST_TEST(msg ==
             "Dimensions must be equal, but are 2 and 3 for 'mul' (op: 'Mul') with input "
             "shapes: [2], [3].");
}

BOOST_AUTO_TEST_CASE(mismatched_input_types_fail_at_construction) {
  Graph g;
  auto x = g.placeholder(af::float32, {2});
  auto y = g.placeholder(af::int32, {2});
  BOOST_TEST(
      construction_error([&] { af::mul(x, y); }) ==
      "Input 'y' of 'Mul' Op has type int32 that does not match type float32 of argument 'x'.");
  BOOST_TEST(
      construction_error([&] { af::matmul(x, y); }) ==
      "Input 'b' of 'MatMul' Op has type int32 that does not match type float32 of argument 'a'.");
}

BOOST_AUTO_TEST_CASE(incompatible_runtime_shapes_fail_the_kernel) {
  Graph g;
  auto x = g.placeholder(af::float32);
  auto y = g.placeholder(af::float32);
  KernelResult r = run_kernel(x + y, {tensor<float>({1, 2}, {2}), tensor<float>({1, 2, 3}, {3})});
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  BOOST_TEST(r.status.message().rfind("Incompatible shapes: [2] vs. [3]", 0) == 0);
}

BOOST_AUTO_TEST_CASE(integer_division_truncates_and_rejects_zero_divisors) {
  Graph g;
  auto x = g.placeholder(af::int32, {4});
  auto y = g.placeholder(af::int32, {4});
  auto q = af::div(x, y);
  BOOST_TEST(q.op().type() == "Div");
  Tensor out =
      eval(q, {tensor<std::int32_t>({7, -7, 7, std::numeric_limits<std::int32_t>::min()}, {4}),
               tensor<std::int32_t>({2, 2, -2, -1}, {4})});
  BOOST_TEST(out.to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({3, -3, -3, std::numeric_limits<std::int32_t>::min()}),
             boost::test_tools::per_element());
  KernelResult r = run_kernel(
      q, {tensor<std::int32_t>({1, 2, 3, 4}, {4}), tensor<std::int32_t>({1, 0, 1, 1}, {4})});
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  BOOST_TEST(r.status.message().rfind("Integer division by zero", 0) == 0);
}

BOOST_AUTO_TEST_CASE(float_division_is_real_div) {
  Graph g;
  auto x = g.placeholder(af::float32, {2});
  auto q = af::div(x, g.constant(Tensor(4.0f)));
  BOOST_TEST(q.op().type() == "RealDiv");
  BOOST_TEST(q.op().name() == "truediv");
  Tensor out = eval(q, {tensor<float>({1, -2}, {2})});
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({0.25f, -0.5f}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(integer_arithmetic_wraps_around) {
  Graph g;
  auto x = g.placeholder(af::int32, {2});
  auto y = g.placeholder(af::int32, {2});
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  Tensor sum =
      eval(x + y, {tensor<std::int32_t>({max, 1}, {2}), tensor<std::int32_t>({1, 1}, {2})});
  BOOST_TEST(sum.to_vector<std::int32_t>()[0] == std::numeric_limits<std::int32_t>::min());
  auto a = g.placeholder(af::uint8, {2});
  auto b = g.placeholder(af::uint8, {2});
  Tensor bytes(af::uint8, Shape{2});
  bytes.data<std::uint8_t>()[0] = 200;
  bytes.data<std::uint8_t>()[1] = 16;
  Tensor prod = eval(af::mul(a, b), {bytes, bytes});
  BOOST_TEST(prod.data<std::uint8_t>()[0] == static_cast<std::uint8_t>(200 * 200));
  BOOST_TEST(prod.data<std::uint8_t>()[1] == 0);
}

BOOST_AUTO_TEST_CASE(default_names_follow_the_python_api) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 2}, "x");
  BOOST_TEST(af::add(x, x).op().name() == "Add");
  BOOST_TEST(af::sub(x, x).op().name() == "Sub");
  BOOST_TEST(af::mul(x, x).op().name() == "Mul");
  BOOST_TEST(af::div(x, x).op().name() == "truediv");
  BOOST_TEST(af::neg(x).op().name() == "Neg");
  BOOST_TEST(af::matmul(x, x).op().name() == "MatMul");
  BOOST_TEST(af::relu(x).op().name() == "Relu");
  BOOST_TEST(af::sigmoid(x).op().name() == "Sigmoid");
  BOOST_TEST(af::tanh(x).op().name() == "Tanh");
  BOOST_TEST(af::softmax(x).op().name() == "Softmax");
  // Names are unique regardless of case, as in TensorFlow: "Add" was taken.
  BOOST_TEST((x + x).op().name() == "add_1");
  auto custom = af::add(x, x, "my_sum");
  BOOST_TEST(custom.op().name() == "my_sum");
  BOOST_TEST(custom.op().node_def().inputs == std::vector<std::string>({"x", "x"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(operators_use_the_lower_case_names_of_python_operators) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 2}, "x");
  BOOST_TEST((x + x).op().name() == "add");
  BOOST_TEST((x - x).op().name() == "sub");
  BOOST_TEST((x * x).op().name() == "mul");
  BOOST_TEST((x * x).op().name() == "mul_1");
  BOOST_TEST((x / x).op().name() == "truediv");
  BOOST_TEST((-x).op().name() == "Neg");
}

// -- unary ops ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(neg_relu_sigmoid_and_tanh_apply_element_by_element) {
  Graph g;
  auto x = g.placeholder(af::float32, {4});
  Tensor in = tensor<float>({-2, -0.5f, 0, 3}, {4});
  BOOST_TEST(eval(af::neg(x), {in}).to_vector<float>() == std::vector<float>({2, 0.5f, -0.0f, -3}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::relu(x), {in}).to_vector<float>() == std::vector<float>({0, 0, 0, 3}),
             boost::test_tools::per_element());
  auto sig = eval(af::sigmoid(x), {in}).to_vector<float>();
  auto th = eval(af::tanh(x), {in}).to_vector<float>();
  const float xs[] = {-2, -0.5f, 0, 3};
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(sig[static_cast<std::size_t>(i)] == 1 / (1 + std::exp(-xs[i])),
               boost::test_tools::tolerance(1e-5f));
    BOOST_TEST(th[static_cast<std::size_t>(i)] == std::tanh(xs[i]),
               boost::test_tools::tolerance(1e-5f));
  }
  auto ints = g.placeholder(af::int32, {3});
  BOOST_TEST(
      eval(af::relu(ints), {tensor<std::int32_t>({-1, 0, 5}, {3})}).to_vector<std::int32_t>() ==
          std::vector<std::int32_t>({0, 0, 5}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(float_only_activations_reject_integer_inputs) {
  Graph g;
  auto x = g.placeholder(af::int32, {3});
  BOOST_CHECK_THROW(af::sigmoid(x), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::softmax(x), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(bfloat16_ops_compute_in_float_and_round_once) {
  Graph g;
  auto x = g.placeholder(af::bfloat16, {2, 2});
  auto y = g.placeholder(af::bfloat16, {2, 2});
  auto to_bf16 = [](std::vector<float> v) {
    Tensor t(af::bfloat16, Shape{2, 2});
    for (std::size_t i = 0; i < v.size(); ++i) t.data<af::bfloat16_t>()[i] = af::bfloat16_t(v[i]);
    return t;
  };
  Tensor a = to_bf16({1, 2, 3, 4}), b = to_bf16({0.5f, 0.25f, 1, 2});
  Tensor sum = eval(x + y, {a, b});
  std::vector<float> want = {1.5f, 2.25f, 4, 6};
  for (std::size_t i = 0; i < 4; ++i)
    BOOST_TEST(static_cast<float>(sum.data<af::bfloat16_t>()[i]) == want[i]);
  Tensor prod = eval(af::matmul(x, y), {a, b});
  std::vector<float> want_prod = {1 * 0.5f + 2 * 1, 1 * 0.25f + 2 * 2, 3 * 0.5f + 4 * 1,
                                  3 * 0.25f + 4 * 2};
  for (std::size_t i = 0; i < 4; ++i)
    BOOST_TEST(static_cast<float>(prod.data<af::bfloat16_t>()[i]) ==
               static_cast<float>(af::bfloat16_t(want_prod[i])));
}

// -- MatMul -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matmul_shape_inference_checks_ranks_and_inner_dimensions) {
  Graph g;
  auto a = g.placeholder(af::float32, {2, 3});
  auto b = g.placeholder(af::float32, {3, 5});
  BOOST_TEST(af::matmul(a, b).shape() == PartialShape({2, 5}));
  BOOST_TEST(af::matmul(a, a, false, true).shape() == PartialShape({2, 2}));
  BOOST_TEST(af::matmul(a, a, true, false).shape() == PartialShape({3, 3}));
  BOOST_TEST(af::matmul(a, g.placeholder(af::float32)).shape() == PartialShape({2, -1}));
  auto v = g.placeholder(af::float32, {3});
  BOOST_TEST(construction_error([&] {
               af::matmul(a, v);
             }).rfind("Shape must be rank 2 but is rank 1", 0) == 0);
  auto c = g.placeholder(af::float32, {4, 5});
  BOOST_TEST(construction_error([&] {
               af::matmul(a, c);
             }).rfind("Dimensions must be equal, but are 3 and 4", 0) == 0);
}

BOOST_AUTO_TEST_CASE(matmul_with_transposes_matches_the_naive_product) {
  // Small sizes take the plain loop; larger ones Eigen's contraction.
  for (auto [m, n, k] : {std::array<int, 3>{3, 4, 5}, std::array<int, 3>{33, 47, 29}}) {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Graph g;
        Shape sa = ta ? Shape{k, m} : Shape{m, k};
        Shape sb = tb ? Shape{n, k} : Shape{k, n};
        auto a = g.placeholder(af::float32, sa);
        auto b = g.placeholder(af::float32, sb);
        auto av = random_floats(static_cast<std::size_t>(m * k), 1);
        auto bv = random_floats(static_cast<std::size_t>(k * n), 2);
        auto c = af::matmul(a, b, ta, tb);
        BOOST_TEST(c.shape() == PartialShape({m, n}));
        Tensor out = eval(c, {tensor(av, sa), tensor(bv, sb)});
        BOOST_TEST(out.shape() == Shape({m, n}));
        check_close(out, naive_product(av, bv, m, n, k, ta, tb), 1e-4);
      }
  }
}

BOOST_AUTO_TEST_CASE(integer_matmul_is_exact) {
  Graph g;
  auto a = g.placeholder(af::int64, {2, 3});
  auto b = g.placeholder(af::int64, {3, 2});
  Tensor out = eval(af::matmul(a, b), {tensor<std::int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}),
                                       tensor<std::int64_t>({7, 8, 9, 10, 11, 12}, {3, 2})});
  BOOST_TEST(out.to_vector<std::int64_t>() == std::vector<std::int64_t>({58, 64, 139, 154}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(matmul_with_an_empty_inner_dimension_gives_zeros) {
  Graph g;
  auto a = g.placeholder(af::float32, {2, 0});
  auto b = g.placeholder(af::float32, {0, 3});
  Tensor out =
      eval(af::matmul(a, b), {Tensor(af::float32, Shape{2, 0}), Tensor(af::float32, Shape{0, 3})});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>(6, 0.0f),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(matmul_kernel_rejects_mismatched_runtime_shapes) {
  Graph g;
  auto a = g.placeholder(af::float32);
  auto b = g.placeholder(af::float32);
  KernelResult r = run_kernel(af::matmul(a, b),
                              {Tensor(af::float32, Shape{2, 3}), Tensor(af::float32, Shape{4, 5})});
  BOOST_TEST(r.status.message().rfind("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]", 0) ==
             0);
  r = run_kernel(af::matmul(a, b),
                 {Tensor(af::float32, Shape{3}), Tensor(af::float32, Shape{3, 5})});
  BOOST_TEST(r.status.message().rfind("In[0] is not a matrix. Instead it has shape [3]", 0) == 0);
}

BOOST_AUTO_TEST_CASE(large_matmul_on_a_thread_pool_matches_the_naive_product) {
  ThreadPool pool(4);
  const int m = 160, n = 130, k = 200;
  Graph g;
  auto a = g.placeholder(af::float32, {k, m});
  auto b = g.placeholder(af::float32, {k, n});
  auto av = random_floats(static_cast<std::size_t>(m * k), 3);
  auto bv = random_floats(static_cast<std::size_t>(k * n), 4);
  KernelResult r = run_kernel(af::matmul(a, b, true, false),
                              {tensor(av, {k, m}), tensor(bv, {k, n})}, &pool.device);
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.expensive);
  check_close(r.out(), naive_product(av, bv, m, n, k, true, false), 1e-3);
}

BOOST_AUTO_TEST_CASE(large_matmuls_split_over_a_pool_by_rows_or_columns_match_the_naive_product) {
  // Products split into blocks of rows (taller than wide) or of columns (wider than tall)
  // that the pool's threads compute, for every transpose combination.
  ThreadPool pool(3);
  for (auto [m, n, k] : {std::array<int, 3>{300, 40, 200}, std::array<int, 3>{40, 300, 200},
                         std::array<int, 3>{333, 17, 257}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Graph g;
        auto a = g.placeholder(af::float32);
        auto b = g.placeholder(af::float32);
        auto av = random_floats(static_cast<std::size_t>(m * k), 5);
        auto bv = random_floats(static_cast<std::size_t>(k * n), 6);
        const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
        KernelResult r =
            run_kernel(af::matmul(a, b, ta, tb), {tensor(av, as), tensor(bv, bs)}, &pool.device, 3);
        BOOST_TEST_INFO("m " << m << " n " << n << " k " << k << " ta " << ta << " tb " << tb);
        BOOST_REQUIRE(r.status.ok());
        check_close(r.out(), naive_product(av, bv, m, n, k, ta, tb), 1e-3);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(only_large_kernels_are_expensive) {
  Graph g;
  auto a = g.placeholder(af::float32);
  auto mm = af::matmul(a, a);
  BOOST_TEST(!run_kernel(mm, {Tensor(af::float32, Shape{8, 8}), Tensor(af::float32, Shape{8, 8})})
                  .expensive);
  BOOST_TEST(
      run_kernel(mm, {Tensor(af::float32, Shape{64, 64}), Tensor(af::float32, Shape{64, 64})})
          .expensive);
  BOOST_TEST(!run_kernel(a + a, {Tensor(af::float32, Shape{100}), Tensor(af::float32, Shape{100})})
                  .expensive);
  BOOST_TEST(
      run_kernel(a + a, {Tensor(af::float32, Shape{100000}), Tensor(af::float32, Shape{100000})})
          .expensive);
}

// -- reductions ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reducing_all_axes_adds_a_const_of_every_dimension) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto s = af::reduce_sum(x);
  BOOST_TEST(s.op().name() == "Sum");
  BOOST_TEST(s.shape() == PartialShape({}));
  BOOST_TEST(s.op().node_def().inputs == std::vector<std::string>({"x", "Const"}),
             boost::test_tools::per_element());
  BOOST_TEST(*s.op().node_def().attr<DType>("Tidx") == af::int32);
  BOOST_TEST(*s.op().node_def().attr<bool>("keep_dims") == false);
  Tensor out = eval(s, {tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  BOOST_TEST(out.shape() == Shape({}));
  BOOST_TEST(out.scalar<float>() == 21.0f);
  BOOST_TEST(af::reduce_mean(x).op().name() == "Mean");
  BOOST_TEST(af::reduce_max(x, std::vector<std::int64_t>{}).op().name() == "Max");
  BOOST_TEST(af::reduce_max(x).shape() == PartialShape({}));
}

BOOST_AUTO_TEST_CASE(explicit_axes_become_the_reduction_indices_input) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto s = af::reduce_sum(x, std::vector<std::int64_t>{1});
  BOOST_TEST(s.op().name() == "Sum");
  BOOST_TEST(s.op().node_def().inputs == std::vector<std::string>({"x", "Sum/reduction_indices"}),
             boost::test_tools::per_element());
  auto s2 = af::reduce_sum(x, std::vector<std::int64_t>{0}, false, "total");
  BOOST_TEST(s2.op().name() == "total");
  BOOST_TEST(s2.op().node_def().inputs[1] == "total/reduction_indices");
  BOOST_TEST(af::reduce_sum(x, std::vector<std::int64_t>{1}).op().name() == "Sum_1");
}

BOOST_AUTO_TEST_CASE(reductions_honour_keep_dims_and_negative_axes) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  Tensor in = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto rows = af::reduce_sum(x, std::vector<std::int64_t>{-1}, true);
  BOOST_TEST(rows.shape() == PartialShape({2, 1}));
  Tensor r = eval(rows, {in});
  BOOST_TEST(r.shape() == Shape({2, 1}));
  BOOST_TEST(r.to_vector<float>() == std::vector<float>({6, 15}), boost::test_tools::per_element());
  auto cols = af::reduce_mean(x, std::vector<std::int64_t>{-2});
  BOOST_TEST(cols.shape() == PartialShape({3}));
  BOOST_TEST(eval(cols, {in}).to_vector<float>() == std::vector<float>({2.5f, 3.5f, 4.5f}),
             boost::test_tools::per_element());
  auto maxes = af::reduce_max(x, std::vector<std::int64_t>{0, 1}, true);
  BOOST_TEST(maxes.shape() == PartialShape({1, 1}));
  Tensor m = eval(maxes, {in});
  BOOST_TEST(m.shape() == Shape({1, 1}));
  BOOST_TEST(m.to_vector<float>()[0] == 6.0f);
}

BOOST_AUTO_TEST_CASE(reductions_over_non_adjacent_axes) {
  Graph g;
  auto x = g.placeholder(af::int32, {2, 3, 4});
  std::vector<std::int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<std::size_t>(i)] = i;
  auto s = af::reduce_sum(x, std::vector<std::int64_t>{0, 2});
  BOOST_TEST(s.shape() == PartialShape({3}));
  Tensor out = eval(s, {tensor(v, {2, 3, 4})});
  std::vector<std::int32_t> want(3, 0);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        want[static_cast<std::size_t>(b)] += v[static_cast<std::size_t>((a * 3 + b) * 4 + c)];
  BOOST_TEST(out.to_vector<std::int32_t>() == want, boost::test_tools::per_element());
  // Integer means truncate.
  Tensor mean =
      eval(af::reduce_mean(x, std::vector<std::int64_t>{0, 2}, true), {tensor(v, {2, 3, 4})});
  BOOST_TEST(mean.shape() == Shape({1, 3, 1}));
  BOOST_TEST(mean.to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({want[0] / 8, want[1] / 8, want[2] / 8}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reductions_of_empty_tensors_yield_the_identity) {
  Graph g;
  auto x = g.placeholder(af::float32, {0, 3});
  Tensor empty(af::float32, Shape{0, 3});
  Tensor sum = eval(af::reduce_sum(x, std::vector<std::int64_t>{0}), {empty});
  BOOST_TEST(sum.to_vector<float>() == std::vector<float>(3, 0.0f),
             boost::test_tools::per_element());
  Tensor max = eval(af::reduce_max(x, std::vector<std::int64_t>{0}), {empty});
  BOOST_TEST(max.to_vector<float>() == std::vector<float>(3, std::numeric_limits<float>::lowest()),
             boost::test_tools::per_element());
  Tensor rows = eval(af::reduce_sum(x, std::vector<std::int64_t>{1}), {empty});
  BOOST_TEST(rows.shape() == Shape({0}));
}

BOOST_AUTO_TEST_CASE(out_of_range_reduction_axes_fail) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  std::string msg = construction_error([&] { af::reduce_sum(x, std::vector<std::int64_t>{5}); });
  BOOST_TEST(msg.rfind("Invalid reduction dimension 5 for input with 2 dimensions.", 0) == 0);
  auto unknown = g.placeholder(af::float32);
  auto s = af::reduce_sum(unknown, std::vector<std::int64_t>{2});
  BOOST_TEST(!s.shape().rank_known());
  KernelResult r = run_kernel(s, {Tensor(af::float32, Shape{2, 2})});
  BOOST_TEST(r.status.message().rfind(
                 "Invalid reduction dimension (2 for input with 2 dimension(s)", 0) == 0);
}

BOOST_AUTO_TEST_CASE(reducing_all_axes_of_unknown_rank_throws) {
  Graph g;
  auto x = g.placeholder(af::float32);
  BOOST_CHECK_THROW(af::reduce_sum(x), af::InvalidArgumentError);
}

// -- Prod and Min reductions --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reduce_prod_and_reduce_min_follow_the_reduction_layout) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  Tensor xv = tensor<float>({1, -2, 3, 4, 5, 0.5f}, {2, 3});
  auto prod = af::reduce_prod(x, std::vector<int64_t>{1});
  BOOST_TEST(prod.op().name() == "Prod");
  BOOST_TEST(
      prod.op().node_def().inputs == std::vector<std::string>({"x", "Prod/reduction_indices"}),
      boost::test_tools::per_element());
  check_close(eval(prod, {xv}), {-6, 10}, 1e-6);
  auto all = af::reduce_prod(x);
  BOOST_TEST(all.shape() == PartialShape({}));
  check_close(eval(all, {xv}), {-60}, 1e-6);
  auto mins = af::reduce_min(x, std::vector<int64_t>{0}, true);
  BOOST_TEST(mins.op().name() == "Min");
  BOOST_TEST(mins.shape() == PartialShape({1, 3}));
  check_close(eval(mins, {xv}), {1, -2, 0.5f}, 1e-6);
  auto i = g.placeholder(af::int32, {2, 2});
  Tensor iv = tensor<int32_t>({65536, 65536, -3, 7}, {2, 2});
  BOOST_TEST(eval(af::reduce_prod(i, std::vector<int64_t>{-1}), {iv}).to_vector<int32_t>() ==
                 std::vector<int32_t>({0, -21}),  // 2^32 wraps to 0
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::reduce_min(i), {iv}).scalar<int32_t>() == -3);
}

BOOST_AUTO_TEST_CASE(prod_and_min_of_nothing_are_their_identities) {
  Graph g;
  auto x = g.placeholder(af::float32, {-1, 2});
  Tensor empty(af::float32, Shape{0, 2});
  check_close(eval(af::reduce_prod(x, std::vector<int64_t>{0}), {empty}), {1, 1}, 1e-6);
  check_close(eval(af::reduce_min(x, std::vector<int64_t>{0}), {empty}),
              {std::numeric_limits<float>::max(), std::numeric_limits<float>::max()}, 1e-6);
  auto i = g.placeholder(af::int64, {-1});
  BOOST_TEST(eval(af::reduce_min(i, std::vector<int64_t>{0}), {Tensor(af::int64, Shape{0})})
                 .scalar<int64_t>() == std::numeric_limits<int64_t>::max());
}

BOOST_AUTO_TEST_CASE(large_prod_and_min_on_a_thread_pool_match_inline_results) {
  ThreadPool pool(4);
  Graph g;
  auto x = g.placeholder(af::float64, {400, 300});
  std::vector<double> xv(120000);
  for (std::size_t k = 0; k < xv.size(); ++k)
    xv[k] = 1.0 + static_cast<double>((k * 7919) % 1000) * 1e-6;
  const Tensor xt = tensor(xv, {400, 300});
  for (const Output& out : {af::reduce_prod(x, std::vector<int64_t>{0}),
                            af::reduce_min(x, std::vector<int64_t>{1}), af::reduce_min(x)}) {
    Tensor a = eval(out, {xt});
    Tensor b = eval(out, {xt}, &pool.device);
    const auto av = a.to_vector<double>(), bv = b.to_vector<double>();
    BOOST_REQUIRE_EQUAL(av.size(), bv.size());
    for (std::size_t k = 0; k < av.size(); ++k)
      BOOST_TEST(std::abs(av[k] - bv[k]) <= 1e-12 * std::abs(av[k]));
  }
  double min_all = xv[0];
  for (double v : xv) min_all = std::min(min_all, v);
  BOOST_TEST(eval(af::reduce_min(x), {xt}, &pool.device).scalar<double>() == min_all);
}

// -- Softmax ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(softmax_rows_sum_to_one) {
  Graph g;
  auto x = g.placeholder(af::float32, {3, 5});
  auto values = random_floats(15, 5);
  values[0] = 80.0f;  // large logits must not overflow
  Tensor out = eval(af::softmax(x), {tensor(values, {3, 5})});
  auto o = out.flat<float>();
  for (int r = 0; r < 3; ++r) {
    float sum = 0;
    float max_logit = -1e30f;
    for (int c = 0; c < 5; ++c) {
      sum += o[static_cast<std::size_t>(r * 5 + c)];
      max_logit = std::max(max_logit, values[static_cast<std::size_t>(r * 5 + c)]);
    }
    BOOST_TEST(sum == 1.0f, boost::test_tools::tolerance(1e-5f));
    for (int c = 0; c < 5; ++c) {
      float denom = 0;
      for (int j = 0; j < 5; ++j)
        denom += std::exp(values[static_cast<std::size_t>(r * 5 + j)] - max_logit);
      float want = std::exp(values[static_cast<std::size_t>(r * 5 + c)] - max_logit) / denom;
      BOOST_TEST(o[static_cast<std::size_t>(r * 5 + c)] == want,
                 boost::test_tools::tolerance(1e-5f));
    }
  }
  auto scalar = g.placeholder(af::float32, PartialShape({}));
  BOOST_TEST(construction_error([&] {
               af::softmax(scalar);
             }).rfind("Shape must be at least rank 1 but is rank 0", 0) == 0);
}

// -- thread pool --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(large_kernels_on_a_thread_pool_match_the_single_threaded_results) {
  ThreadPool pool(4);
  Graph g;
  auto x = g.placeholder(af::float32, {300, 400});
  auto row = g.placeholder(af::float32, {400});
  Tensor xv = tensor(random_floats(120000, 6), {300, 400});
  Tensor rv = tensor(random_floats(400, 7), {400});
  std::vector<Output> nodes = {x * row,
                               af::tanh(x),
                               af::softmax(x),
                               af::reduce_sum(x),
                               af::reduce_sum(x, std::vector<std::int64_t>{0}),
                               af::reduce_max(x, std::vector<std::int64_t>{1}),
                               af::reduce_mean(x, std::vector<std::int64_t>{0}, true)};
  for (auto& node : nodes) {
    std::vector<Tensor> inputs = {xv};
    if (node.op().type() == "Mul") inputs.push_back(rv);
    Tensor single = eval(node, inputs);
    KernelResult parallel = run_kernel(node, inputs, &pool.device);
    BOOST_REQUIRE(parallel.status.ok());
    BOOST_TEST(parallel.expensive);
    BOOST_TEST_CONTEXT(node.op().type()) {
      BOOST_TEST(parallel.out().shape() == single.shape());
      auto a = parallel.out().flat<float>();
      auto b = single.flat<float>();
      for (std::size_t i = 0; i < a.size(); ++i)
        BOOST_REQUIRE_MESSAGE(std::abs(a[i] - b[i]) <= 1e-3f * (1 + std::abs(b[i])),
                              "element " << i);
    }
  }
}

BOOST_AUTO_TEST_CASE(large_sums_are_accurate) {
  ThreadPool pool(2);
  Graph g;
  auto x = g.placeholder(af::float32, {1 << 20});
  Tensor ones(af::float32, Shape{1 << 20});
  for (auto& v : ones.flat<float>()) v = 1.0f;
  auto s = af::reduce_sum(x);
  BOOST_TEST(eval(s, {ones}).scalar<float>() == static_cast<float>(1 << 20));
  BOOST_TEST(eval(s, {ones}, &pool.device).scalar<float>() == static_cast<float>(1 << 20));
  auto m = af::reduce_mean(x);
  BOOST_TEST(eval(m, {ones}, &pool.device).scalar<float>() == 1.0f);
}

BOOST_AUTO_TEST_SUITE_END()
