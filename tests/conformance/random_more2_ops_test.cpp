// The stateful samplers of actorflow/ops/random_more_ops.hpp and RandomGamma's derivative
// against TensorFlow's behaviour: RandomGammaGrad is Eigen's implicit derivative, RandomGamma's
// gradient is random_grad.py's _RandomGammaGrad, RandomPoisson(V2) and
// ParameterizedTruncatedNormal repeat TensorFlow's streams for (seed, seed2) on their first
// run, tf.random.gamma's graph is TensorFlow's, and bad input fails with TensorFlow's messages.
// The values were printed by TensorFlow 2.21 (tf.compat.v1 sessions, first runs), e.g.
//   tf.raw_ops.RandomPoissonV2(shape=[2], rate=tf.constant([0.5, 3.0, 55.5], tf.float64),
//                              seed=7, seed2=11)
// The op fixtures (scripts/peers/op_cases_random_more.py) hold every op, dtype and sampler.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/random_more_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::test::fails_with;
using af::test::refuses;
using af::test::values;
using af::test::vec;

template <class T>
Output scalar(af::Graph& g, T v, const std::string& name = {}) {
  return g.constant(Tensor(v), name);
}

// Expects `got` (float or double) to equal `want` within a relative `tolerance`.
template <class T>
void close_to(const Tensor& got, const std::vector<double>& want, double tolerance) {
  const std::vector<T> v = values<T>(got);
  BOOST_REQUIRE_EQUAL(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    BOOST_TEST(static_cast<double>(v[i]) == want[i], boost::test_tools::tolerance(tolerance));
}

// A raw stateful sampler `type` with (seed, seed2) and `attrs`.
Output sampler(af::Graph& g, const char* type, std::vector<Output> inputs, af::AttrMap attrs,
               std::int64_t seed, std::int64_t seed2) {
  attrs["seed"] = seed;
  attrs["seed2"] = seed2;
  return g.create_op(type, std::move(inputs), std::move(attrs), type).output(0);
}

// ParameterizedTruncatedNormal(shape, means, stdevs, minvals, maxvals) of float32.
Output truncated(af::Graph& g, const Output& shape, std::vector<Output> params, std::int64_t seed) {
  std::vector<Output> inputs = {shape};
  inputs.insert(inputs.end(), params.begin(), params.end());
  return sampler(g, "ParameterizedTruncatedNormal", std::move(inputs),
                 {{"dtype", params[0].dtype()}, {"T", shape.dtype()}}, seed, seed + 1);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(random_more2_ops_test)

BOOST_AUTO_TEST_CASE(random_gamma_grad_is_the_implicit_derivative_of_a_gamma_sample) {
  af::Graph g;
  const Output d64 =
      af::random_gamma_grad(vec<double>(g, {0.5, 2.0, 40.0}), vec<double>(g, {0.7, 1.5, 30.0}));
  BOOST_TEST(d64.name() == "RandomGammaGrad:0");
  // Broadcast: alpha [2, 1] against samples [2].
  const Output d32 = af::random_gamma_grad(
      g.constant(Tensor::from_vector(std::vector<float>{0.5f, 2.0f}, af::Shape{2, 1})),
      vec<float>(g, {0.7f, 3.0f}));
  BOOST_TEST(d32.shape() == af::PartialShape({2, 2}));
  // 0 at a zero sample, NaN for alpha <= 0 or a negative sample.
  const Output edges = af::random_gamma_grad(vec<double>(g, {0.5, 0.0, -1.0, 3.0}),
                                             vec<double>(g, {0.0, 1.0, 1.0, -2.0}));
  refuses([&] { af::random_gamma_grad(vec<float>(g, {1.0f}), vec<double>(g, {1.0})); },
          "Input 'sample' of 'RandomGammaGrad' Op has type float64 that does not match "
          "type float32 of argument 'alpha'.");
  refuses(
      [&] {
        af::random_gamma_grad(vec<float>(g, {1.0f, 2.0f}), vec<float>(g, {1.0f, 2.0f, 3.0f}));
      },
      "Dimensions must be equal, but are 2 and 3");
  refuses(
      [&] {
        g.create_op("RandomGammaGrad", {vec<std::int32_t>(g, {1}), vec<std::int32_t>(g, {1})},
                    {{"T", DType::int32}});
      },
      "Value for attr 'T' of int32 is not in the list of allowed values: float, double");
  const Output alpha = g.placeholder(DType::float32, af::PartialShape::unknown(), "alpha");
  const Output mismatched = af::random_gamma_grad(alpha, vec<float>(g, {1.0f, 2.0f, 3.0f}));
  af::Session sess(g);
  close_to<double>(sess.run(d64), {1.5867249444503853, 0.9366390678772176, 0.8666398251504482},
                   1e-12);
  close_to<float>(sess.run(d32),
                  {1.586724877357483, 2.9129440784454346, 0.6108531951904297, 1.32179856300354},
                  1e-5);
  const std::vector<double> e = values<double>(sess.run(edges));
  BOOST_TEST(e[0] == 0.0);
  BOOST_TEST(std::isnan(e[1]));
  BOOST_TEST(std::isnan(e[2]));
  BOOST_TEST(std::isnan(e[3]));
  fails_with(sess, mismatched, "Incompatible shapes: [2] vs. [3]",
             {{alpha, Tensor::from_vector(std::vector<float>{1.0f, 2.0f})}});
}

// tf.gradients(tf.reduce_sum(RandomGamma(shape=[3], alpha, seed=1, seed2=2) * w), alpha) in
// TensorFlow 2.21, the samples and the gradient from one (the first) run.
BOOST_AUTO_TEST_CASE(random_gamma_gradient_sums_the_implicit_derivative_over_samples) {
  af::Graph g;
  const Output alpha = vec<double>(g, {0.5, 2.0}, "alpha");
  const Output samples = sampler(g, "RandomGamma", {vec<std::int32_t>(g, {3}), alpha},
                                 {{"S", DType::int32}, {"T", DType::float64}}, 1, 2);
  const Output w = g.constant(
      Tensor::from_vector(std::vector<double>{1.0, 2.0, 0.5, 1.5, 1.0, -1.0}, af::Shape{3, 2}),
      "w");
  const Output loss = af::reduce_sum(af::mul(samples, w));
  const auto grads = af::gradients({loss}, {alpha});
  BOOST_REQUIRE(grads[0].valid());
  BOOST_TEST(grads[0].name() == "gradients/RandomGamma_grad/Sum:0");
  BOOST_TEST(g.contains("gradients/RandomGamma_grad/RandomGammaGrad"));
  BOOST_TEST(g.contains("gradients/RandomGamma_grad/ones/packed"));
  BOOST_TEST(grads[0].shape() == af::PartialShape({2}));
  af::Session sess(g);
  const auto v = sess.run({samples, grads[0]});
  close_to<double>(v[0],
                   {0.014439557851346523, 1.2996736500592585, 0.19106529193912436,
                    1.9279517711936067, 0.1917163381668231, 0.5654965077289306},
                   1e-12);
  close_to<double>(v[1], {1.2846169020143081, 2.7974631863560546}, 1e-10);
}

BOOST_AUTO_TEST_CASE(random_poisson_repeats_tensorflows_stream_for_seed_and_seed2) {
  af::Graph g;
  const Output shape = vec<std::int32_t>(g, {2}, "shape");
  const Output v2 =
      sampler(g, "RandomPoissonV2", {shape, vec<double>(g, {0.5, 3.0, 55.5})},
              {{"S", DType::int32}, {"R", DType::float64}, {"dtype", DType::int64}}, 7, 11);
  BOOST_TEST(v2.shape() == af::PartialShape({2, 3}));
  // The deprecated RandomPoisson draws as RandomPoissonV2 with rate and output of one type.
  const Output v1 = sampler(g, "RandomPoisson", {shape, vec<float>(g, {0.5f, 3.0f, 55.5f})},
                            {{"S", DType::int32}, {"dtype", DType::float32}}, 7, 11);
  const Output lam = vec<float>(g, {1.5f, 25.0f}, "lam");
  const Output built = af::random_poisson(af::Shape{3}, lam, DType::int32, 9);
  BOOST_TEST(built.name() == "random_poisson/RandomPoissonV2:0");
  BOOST_TEST(built.dtype() == DType::int32);
  BOOST_TEST(built.shape() == af::PartialShape({3, 2}));
  BOOST_TEST(g.contains("random_poisson/shape"));
  BOOST_CHECK_THROW(af::random_poisson(af::Shape{3}, lam, DType::boolean),
                    af::InvalidArgumentError);
  // TensorFlow registers no gradient for the Poisson samplers.
  const Output float_samples = af::random_poisson(af::Shape{3}, lam, DType::float32, 9, "floats");
  BOOST_CHECK_THROW(af::gradients({af::reduce_sum(float_samples)}, {lam}), af::NotFoundError);
  const Output dims = g.placeholder(DType::int32, af::PartialShape::unknown(), "dims");
  const Output unknown = af::random_poisson(af::Shape{1}, lam, DType::float32, 1, "unknown");
  const Output by_dims =
      sampler(g, "RandomPoissonV2", {dims, lam},
              {{"S", DType::int32}, {"R", DType::float32}, {"dtype", DType::float32}}, 1, 2);
  refuses(
      [&] {
        sampler(g, "RandomPoissonV2", {shape, lam},
                {{"S", DType::int32}, {"R", DType::float32}, {"dtype", DType::boolean}}, 1, 2);
      },
      "Value for attr 'dtype' of bool is not in the list of allowed values: half, float, "
      "double, int32, int64");
  af::Session sess(g);
  const auto v = sess.run({v2, v1});
  BOOST_TEST(values<std::int64_t>(v[0]) == (std::vector<std::int64_t>{0, 2, 61, 0, 3, 48}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(v[1]) == (std::vector<float>{0, 2, 61, 0, 3, 48}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(unknown).num_elements() == 2);
  fails_with(sess, by_dims, "Dimension -3 must be >= 0",
             {{dims, Tensor::from_vector(std::vector<std::int32_t>{-3})}});
  fails_with(sess, by_dims, "shape must be a vector of {int32,int64}, got shape [1,1]",
             {{dims, Tensor::from_vector(std::vector<std::int32_t>{2}, af::Shape{1, 1})}});
}

BOOST_AUTO_TEST_CASE(parameterized_truncated_normal_repeats_tensorflows_samplers) {
  af::Graph g;
  // The normal sampler ([-2, 2] around 0), the uniform one ([0.5, 1]), the exponential one
  // ([3, inf)) and per-batch parameters (batch 0 of mean 0 in [-1, 1], batch 1 of mean 10 in
  // [-1, 11]).
  const Output normal =
      truncated(g, vec<std::int32_t>(g, {5}),
                {scalar(g, 0.0f), scalar(g, 1.0f), scalar(g, -2.0f), scalar(g, 2.0f)}, 1);
  const Output uniform =
      truncated(g, vec<std::int32_t>(g, {4}),
                {scalar(g, 0.0), scalar(g, 1.0), scalar(g, 0.5), scalar(g, 1.0)}, 3);
  const Output exponential = truncated(g, vec<std::int32_t>(g, {4}),
                                       {scalar(g, 0.0f), scalar(g, 1.0f), scalar(g, 3.0f),
                                        scalar(g, std::numeric_limits<float>::infinity())},
                                       5);
  const Output per_batch = truncated(g, vec<std::int32_t>(g, {2, 3}),
                                     {vec<float>(g, {0.0f, 10.0f}), vec<float>(g, {1.0f}),
                                      scalar(g, -1.0f), vec<float>(g, {1.0f, 11.0f})},
                                     7);
  BOOST_TEST(per_batch.shape() == af::PartialShape({2, 3}));
  const Output built =
      af::parameterized_truncated_normal(vec<std::int64_t>(g, {2}), scalar(g, 0.0f),
                                         scalar(g, 1.0f), scalar(g, -1.0f), scalar(g, 1.0f), 3);
  BOOST_TEST(built.name() == "ParameterizedTruncatedNormal_4:0");
  BOOST_TEST(built.shape() == af::PartialShape({2}));
  // Not differentiable.
  const Output mean = scalar(g, 0.0f, "mean");
  const Output sample = af::parameterized_truncated_normal(
      vec<std::int32_t>(g, {3}), mean, scalar(g, 1.0f), scalar(g, -1.0f), scalar(g, 1.0f), 3);
  BOOST_TEST(!af::gradients({sample}, {mean})[0].valid());
  refuses(
      [&] {
        af::parameterized_truncated_normal(vec<std::int32_t>(g, {2}), scalar(g, 0.0f),
                                           scalar(g, 1.0), scalar(g, -1.0f), scalar(g, 1.0f));
      },
      "Input 'stdevs' of 'ParameterizedTruncatedNormal' Op has type float64 that does not "
      "match type float32 of argument 'means'.");
  af::Session sess(g);
  const auto v = sess.run({normal, uniform, exponential, per_batch});
  close_to<float>(v[0],
                  {-1.0467792749404907, 0.8397045731544495, 1.235836386680603, 0.3037427067756653,
                   1.2963250875473022},
                  1e-5);
  close_to<double>(
      v[1], {0.6949470298089371, 0.53757180316657, 0.547537802383259, 0.6497088248205691}, 1e-12);
  close_to<float>(
      v[2], {3.103630781173706, 3.114922285079956, 3.6940412521362305, 3.096431255340576}, 1e-5);
  close_to<float>(v[3],
                  {-0.4669308662414551, 0.3387022018432617, -0.3874857425689697, 10.40169620513916,
                   9.292131423950195, 8.684343338012695},
                  1e-5);
}

BOOST_AUTO_TEST_CASE(parameterized_truncated_normal_fails_with_tensorflows_messages) {
  af::Graph g;
  const Output shape = g.placeholder(DType::int32, af::PartialShape::unknown(), "shape");
  const Output means = g.placeholder(DType::float32, af::PartialShape::unknown(), "means");
  const Output stdevs = g.placeholder(DType::float32, af::PartialShape::unknown(), "stdevs");
  const Output y = truncated(g, shape, {means, stdevs, scalar(g, -1.0f), scalar(g, 1.0f)}, 1);
  auto ints = [](std::vector<std::int32_t> v, af::Shape s) {
    return Tensor::from_vector(std::move(v), std::move(s));
  };
  const Tensor one = Tensor(1.0f);
  const Tensor zero = Tensor(0.0f);
  af::Session sess(g);
  fails_with(sess, y, "Shape tensor must not be empty, got Tensor<type: int32 shape: [0] values: >",
             {{shape, ints({}, af::Shape{0})}, {means, zero}, {stdevs, one}});
  fails_with(sess, y, "Input shape should be a vector, got shape: [1,1]",
             {{shape, ints({2}, af::Shape{1, 1})}, {means, zero}, {stdevs, one}});
  fails_with(sess, y, "Dimension -2 must be >= 0",
             {{shape, ints({-2}, af::Shape{1})}, {means, zero}, {stdevs, one}});
  fails_with(sess, y, "Invalid parameters",
             {{shape, ints({3}, af::Shape{1})}, {means, zero}, {stdevs, Tensor(-1.0f)}});
  fails_with(sess, y, "Input means should have length 1 or shape[0], got shape: [3]",
             {{shape, ints({2, 2}, af::Shape{2})},
              {means, Tensor::from_vector(std::vector<float>{0.0f, 1.0f, 2.0f})},
              {stdevs, one}});
  fails_with(sess, y, "Input stddevs should be a scalar or vector, got shape: [1,1]",
             {{shape, ints({2, 2}, af::Shape{2})},
              {means, zero},
              {stdevs, Tensor::from_vector(std::vector<float>{1.0f}, af::Shape{1, 1})}});
  // An empty output draws nothing, whatever the parameters.
  BOOST_TEST(sess.run(y, {{shape, ints({0, 2}, af::Shape{2})}, {means, zero}, {stdevs, one}})
                 .num_elements() == 0);
}

// tf.random.gamma([3], alpha, beta, seed=4) in TensorFlow 2.21 with no graph seed: RandomGamma
// gets (87654321, 4).
BOOST_AUTO_TEST_CASE(random_gamma_builds_tensorflows_graph_and_values) {
  af::Graph g;
  const Output alpha = vec<float>(g, {0.5f, 2.0f}, "alpha");
  const Output beta =
      g.constant(Tensor::from_vector(std::vector<float>{1.0f, 3.0f}, af::Shape{2, 1}), "beta");
  const Output y = af::random_gamma(af::Shape{3}, alpha, beta, 4);
  BOOST_TEST(y.name() == "random_gamma/Maximum:0");
  for (const char* node :
       {"random_gamma/shape", "random_gamma/Shape_1", "random_gamma/Shape_2",
        "random_gamma/BroadcastArgs", "random_gamma/BroadcastTo", "random_gamma/RandomGamma",
        "random_gamma/truediv", "random_gamma/Maximum/x"})
    BOOST_TEST(g.contains(node), node);
  BOOST_TEST(*g.output("random_gamma/RandomGamma:0").node()->def().attr<std::int64_t>("seed") ==
             87654321);
  const Output y1 = af::random_gamma(vec<std::int32_t>(g, {2}), vec<double>(g, {1.0, 7.5}), {}, 5);
  BOOST_TEST(y1.name() == "random_gamma_1/Maximum:0");
  BOOST_TEST(g.contains("random_gamma_1/beta"));
  BOOST_TEST(y1.dtype() == DType::float64);
  // Differentiable with respect to alpha (through BroadcastTo) and beta.
  const auto grads = af::gradients({af::reduce_sum(y)}, {alpha, beta});
  BOOST_TEST(grads[0].valid());
  BOOST_TEST(grads[1].valid());
  refuses([&] { af::random_gamma(vec<std::int64_t>(g, {2}), alpha); },
          "Tensor conversion requested dtype int32 for Tensor with dtype int64");
  refuses([&] { af::random_gamma(af::Shape{2}, vec<std::int32_t>(g, {1})); },
          "random_gamma: invalid dtype int32");
  af::Session sess(g);
  close_to<float>(
      sess.run(y),
      {0.14378182590007782, 1.541883945465088, 0.10527008026838303, 0.5047351121902466,
       0.0029362584464251995, 4.158669948577881, 0.3660939335823059, 1.5830549001693726,
       0.11629976332187653, 0.171725794672966, 0.13765297830104828, 0.16179220378398895},
      1e-5);
  BOOST_TEST((sess.run(y1).shape().dims() == std::vector<std::int64_t>{2, 2}));
}

BOOST_AUTO_TEST_SUITE_END()
