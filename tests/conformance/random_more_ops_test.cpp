// The stateless random ops against TensorFlow's behaviour: the builders of
// actorflow/ops/random_more_ops.hpp make the graphs TF 2.x's tf.random.stateless_* make under
// tf.compat.v1, the kernels repeat TensorFlow's Philox streams for a seed bit for bit (the
// same values on every run), and bad input fails with TensorFlow's messages. The values were
// printed by TensorFlow 2.21 (tf.raw_ops in eager mode, bit patterns via numpy's view), e.g.
//   tf.raw_ops.StatelessRandomUniform(shape=[6], seed=tf.constant([1, 2], tf.int64))
//   tf.random.stateless_uniform([4], seed, minval=-2.0, maxval=3.0)
// The op fixtures (scripts/peers/op_cases_random_more.py) hold every op, dtype and shape.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/random_more_ops.hpp>
#include <bit>
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

std::vector<std::uint32_t> float_bits(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float f : values<float>(t)) out.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

std::vector<std::uint64_t> double_bits(const Tensor& t) {
  std::vector<std::uint64_t> out;
  for (double d : values<double>(t)) out.push_back(std::bit_cast<std::uint64_t>(d));
  return out;
}

// A raw V1 op (shape, seed[, extra]) of `dtype`.
Output v1_op(af::Graph& g, const char* type, const Output& shape, const Output& seed, DType dtype,
             std::vector<Output> extra = {}) {
  std::vector<Output> inputs = {shape, seed};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return g
      .create_op(type, inputs, {{"dtype", dtype}, {"T", shape.dtype()}, {"Tseed", seed.dtype()}},
                 type)
      .output(0);
}

// A raw V2 op (shape, key, counter, alg[, extra]) of `dtype`.
Output v2_op(af::Graph& g, const char* type, const Output& shape, const Output& key,
             const Output& counter, const Output& alg, DType dtype,
             std::vector<Output> extra = {}) {
  std::vector<Output> inputs = {shape, key, counter, alg};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return g.create_op(type, inputs, {{"dtype", dtype}, {"Tshape", shape.dtype()}}, type).output(0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(random_more_ops_test)

BOOST_AUTO_TEST_CASE(v1_ops_repeat_tensorflows_streams_for_a_seed) {
  af::Graph g;
  const Output seed = vec<std::int64_t>(g, {1, 2}, "seed");
  const Output uniform =
      v1_op(g, "StatelessRandomUniform", vec<std::int32_t>(g, {6}), seed, DType::float32);
  const Output normal =
      v1_op(g, "StatelessRandomNormal", vec<std::int32_t>(g, {5}), seed, DType::float32);
  const Output truncated =
      v1_op(g, "StatelessTruncatedNormal", vec<std::int32_t>(g, {3}), seed, DType::float64);
  const Output ints = v1_op(
      g, "StatelessRandomUniformInt", vec<std::int32_t>(g, {6}), vec<std::int32_t>(g, {-5, 7}),
      DType::int32, {g.constant(Tensor(std::int32_t{-3})), g.constant(Tensor(std::int32_t{10}))});
  const Output full =
      v1_op(g, "StatelessRandomUniformFullInt", vec<std::int32_t>(g, {3}), seed, DType::int64);
  BOOST_TEST(uniform.shape() == af::PartialShape({6}));
  af::Session sess(g);
  const auto v = sess.run({uniform, normal, truncated, ints, full});
  BOOST_TEST(float_bits(v[0]) == (std::vector<std::uint32_t>{0x3f581458, 0x3e44a788, 0x3f7f087c,
                                                             0x3e243c98, 0x3e8b424c, 0x3f263b8a}),
             boost::test_tools::per_element());
  BOOST_TEST(float_bits(v[1]) == (std::vector<std::uint32_t>{0x3f0b4acd, 0x3e545b81, 0x3d96a8e4,
                                                             0x3d3e3228, 0xbfa69a7f}),
             boost::test_tools::per_element());
  BOOST_TEST(double_bits(v[2]) == (std::vector<std::uint64_t>{
                                      0xbfc23745fceed393, 0x3fe7b30df7adce2e, 0xbfe1ad29167909a9}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[3]) == (std::vector<std::int32_t>{6, 0, -3, 3, 0, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int64_t>(v[4]) ==
                 (std::vector<std::int64_t>{7464880146280614444, 1591045637757961278,
                                            -1057468755545501549}),
             boost::test_tools::per_element());
  // Stateless: a second run gives the same values.
  BOOST_TEST(float_bits(sess.run(uniform)) == float_bits(v[0]), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(key_counter_ops_scramble_the_seed_as_generate_key) {
  af::Graph g;
  const Output seed = vec<std::int64_t>(g, {1, 2}, "seed");
  const auto kc = af::stateless_random_get_key_counter(seed);
  const auto kca = af::stateless_random_get_key_counter_alg(seed);
  const Output alg = af::stateless_random_get_alg(g);
  BOOST_TEST(kc.key.name() == "StatelessRandomGetKeyCounter:0");
  BOOST_TEST(!kc.alg.valid());
  BOOST_TEST(kca.key.shape() == af::PartialShape({1}));
  BOOST_TEST(kca.counter.shape() == af::PartialShape({2}));
  BOOST_TEST(kca.alg.shape() == af::PartialShape(af::Shape{}));
  // The V2 op on the key and counter equals the V1 op on the seed.
  const Output v2 = v2_op(g, "StatelessRandomUniformV2", vec<std::int32_t>(g, {6}), kc.key,
                          kc.counter, g.constant(Tensor(std::int32_t{3})), DType::float32);
  af::Session sess(g);
  const auto v = sess.run({kc.key, kc.counter, kca.alg, alg, v2});
  // TensorFlow's uint64 key 10413732777507651514 and counter {0, 17830669156045600267}.
  BOOST_TEST(values<std::int64_t>(v[0]) == (std::vector<std::int64_t>{-8033011296201900102}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int64_t>(v[1]) == (std::vector<std::int64_t>{0, -616074917663951349}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[2])[0] == 1);
  BOOST_TEST(values<std::int32_t>(v[3])[0] == 1);
  BOOST_TEST(float_bits(v[4]) == (std::vector<std::uint32_t>{0x3f581458, 0x3e44a788, 0x3f7f087c,
                                                             0x3e243c98, 0x3e8b424c, 0x3f263b8a}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(builders_make_tensorflow_2_graphs_and_values) {
  af::Graph g;
  const Output seed = vec<std::int64_t>(g, {1, 2}, "seed");
  const Output u = af::stateless_random_uniform(af::Shape{4}, seed, DType::float32, -2.0, 3.0);
  BOOST_TEST(u.name() == "stateless_random_uniform:0");
  BOOST_TEST(u.node()->type() == "AddV2");
  BOOST_TEST(g.contains("stateless_random_uniform/StatelessRandomUniformV2"));
  BOOST_TEST(g.contains("stateless_random_uniform/StatelessRandomUniformV2/alg"));
  BOOST_TEST(g.contains("stateless_random_uniform/StatelessRandomGetKeyCounter"));
  const Output n = af::stateless_random_normal(af::Shape{3}, seed, DType::float64, 1.5, 0.25);
  BOOST_TEST(n.name() == "stateless_random_normal:0");
  const Output i = af::stateless_random_uniform_int(af::Shape{5}, seed, -7, 100, DType::int32);
  BOOST_TEST(i.name() == "stateless_random_uniform_1:0");
  BOOST_TEST(i.node()->type() == "StatelessRandomUniformIntV2");
  BOOST_TEST(g.contains("stateless_random_uniform_1/alg"));
  const Output f = af::stateless_random_uniform_full_int(af::Shape{2, 0}, seed);
  BOOST_TEST(f.node()->type() == "StatelessRandomUniformFullIntV2");
  BOOST_TEST(f.dtype() == DType::int64);
  const Output t = af::stateless_truncated_normal(af::Shape{2}, seed);
  BOOST_TEST(t.name() == "stateless_truncated_normal:0");
  const Output logits = g.constant(
      Tensor::from_vector(
          std::vector<float>{std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f),
                             std::log(0.7f), std::log(0.1f), std::log(0.1f), std::log(0.1f)},
          af::Shape{2, 4}),
      "logits");
  const Output c = af::stateless_categorical(logits, 6, seed);
  BOOST_TEST(c.name() == "stateless_categorical/StatelessMultinomial:0");
  BOOST_TEST(c.shape() == af::PartialShape({2, 6}));
  BOOST_CHECK_THROW(af::stateless_random_uniform(af::Shape{2}, seed, DType::int32),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::stateless_categorical(logits, 2, seed, DType::float32),
                    af::InvalidArgumentError);
  af::Session sess(g);
  const auto v = sess.run({u, n, i, f, c});
  BOOST_TEST(float_bits(v[0]) ==
                 (std::vector<std::uint32_t>{0x400e196e, 0xbf85174b, 0x403eca9c, 0xbf995a21}),
             boost::test_tools::per_element());
  BOOST_TEST(double_bits(v[1]) == (std::vector<std::uint64_t>{
                                      0x3ff76e45d0188963, 0x3ffaf661bef5b9c6, 0x3ff21fb1f7bde4de}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(v[2]) == (std::vector<std::int32_t>{74, 54, 95, 7, 73}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].num_elements() == 0);
  BOOST_TEST(
      values<std::int64_t>(v[4]) == (std::vector<std::int64_t>{3, 3, 1, 3, 2, 3, 2, 0, 2, 2, 1, 0}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shape_functions_refuse_bad_seeds_dtypes_and_bounds) {
  af::Graph g;
  const Output shape = vec<std::int32_t>(g, {2});
  const Output seed = vec<std::int64_t>(g, {1, 2});
  refuses(
      [&] {
        v1_op(g, "StatelessRandomUniform", shape, vec<std::int64_t>(g, {1, 2, 3}), DType::float32);
      },
      "Dimension must be 2 but is 3");
  refuses([&] { v1_op(g, "StatelessRandomNormal", shape, seed, DType::int32); },
          "Value for attr 'dtype' of int32 is not in the list of allowed values: half, "
          "bfloat16, float, double");
  refuses(
      [&] {
        v1_op(g, "StatelessRandomUniformInt", shape, seed, DType::int32,
              {vec<std::int32_t>(g, {1}), g.constant(Tensor(std::int32_t{5}))});
      },
      "minval must be a scalar; got a tensor of shape [1]");
  refuses(
      [&] {
        v2_op(g, "StatelessRandomUniformV2", shape, vec<std::int64_t>(g, {1, 2}),
              vec<std::int64_t>(g, {0, 0}), g.constant(Tensor(std::int32_t{1})), DType::float32);
      },
      "Dimension must be 1 but is 2");
  refuses(
      [&] {
        g.create_op("StatelessMultinomial",
                    {vec<float>(g, {1.0f, 2.0f}), g.constant(Tensor(std::int32_t{1})), seed},
                    {{"T", DType::float32}, {"Tseed", DType::int64}});
      },
      "Shape must be rank 2 but is rank 1");
}

BOOST_AUTO_TEST_CASE(kernels_fail_with_tensorflows_messages) {
  af::Graph g;
  const Output shape = g.placeholder(DType::int32, af::PartialShape::unknown(), "shape");
  const Output seed = g.placeholder(DType::int64, af::PartialShape::unknown(), "seed");
  const Output uniform = v1_op(g, "StatelessRandomUniform", shape, seed, DType::float32);
  const Output lo = g.constant(Tensor(std::int32_t{5}));
  const Output ints = v1_op(g, "StatelessRandomUniformInt", shape, seed, DType::int32, {lo, lo});
  const auto kc = af::stateless_random_get_key_counter(seed);
  const Output alg = g.placeholder(DType::int32, af::PartialShape::unknown(), "alg");
  const Output v2 =
      v2_op(g, "StatelessRandomUniformV2", shape, kc.key, kc.counter, alg, DType::float32);
  const Output logits = g.placeholder(DType::float32, af::PartialShape::unknown(), "logits");
  const Output draws =
      g.create_op("StatelessMultinomial", {logits, g.constant(Tensor(std::int32_t{2})), seed},
                  {{"T", DType::float32}, {"Tseed", DType::int64}, {"output_dtype", DType::int64}})
          .output(0);
  const Tensor good_seed = Tensor::from_vector(std::vector<std::int64_t>{1, 2});
  const Tensor shape3 = Tensor::from_vector(std::vector<std::int32_t>{3});
  af::Session sess(g);
  fails_with(sess, uniform, "seed must have shape [2], not [3]",
             {{shape, shape3}, {seed, Tensor::from_vector(std::vector<std::int64_t>{1, 2, 3})}});
  fails_with(sess, uniform, "Dimension -1 must be >= 0",
             {{shape, Tensor::from_vector(std::vector<std::int32_t>{-1})}, {seed, good_seed}});
  fails_with(sess, ints, "Need minval < maxval, got 5 >= 5", {{shape, shape3}, {seed, good_seed}});
  // An empty output never checks the bounds.
  const Tensor empty = sess.run(
      ints, {{shape, Tensor::from_vector(std::vector<std::int32_t>{0})}, {seed, good_seed}});
  BOOST_TEST(empty.num_elements() == 0);
  fails_with(sess, v2, "Unsupported algorithm id: 2",
             {{shape, shape3}, {seed, good_seed}, {alg, Tensor(std::int32_t{2})}});
  fails_with(sess, v2, "input 3 (0-based) must have shape [], not [2]",
             {{shape, shape3},
              {seed, good_seed},
              {alg, Tensor::from_vector(std::vector<std::int32_t>{1, 1})}});
  fails_with(sess, v2,
             "counter must be a vector with length at least 7; got shape: [2]. (Note that "
             "batched counters are not supported yet.)",
             {{shape, shape3}, {seed, good_seed}, {alg, Tensor(std::int32_t{7})}});
  fails_with(sess, draws, "num_classes should be positive, got 0",
             {{logits, Tensor(DType::float32, af::Shape{2, 0})}, {seed, good_seed}});
  fails_with(sess, draws, "logits should be a matrix, got shape [2]",
             {{logits, Tensor::from_vector(std::vector<float>{1.0f, 2.0f})}, {seed, good_seed}});
}

BOOST_AUTO_TEST_CASE(stateless_ops_are_not_differentiable) {
  af::Graph g;
  const Output seed = vec<std::int64_t>(g, {1, 2});
  const Output x = vec<float>(g, {0.5f, -1.0f, 2.0f});
  const Output r = af::stateless_random_normal(af::Shape{3}, seed);
  // The gradient flows through the Mul only: d(x * r)/dx = r.
  const Output dx = af::gradient(af::mul(x, r), x);
  const Output logits = g.constant(Tensor(DType::float32, af::Shape{1, 3}));
  const Output draws = af::stateless_categorical(logits, 2, seed);
  const auto none = af::gradients({af::cast(draws, DType::float32)}, {logits});
  BOOST_TEST(!none[0].valid());
  af::Session sess(g);
  const auto v = sess.run({dx, r});
  BOOST_TEST(float_bits(v[0]) == float_bits(v[1]), boost::test_tools::per_element());
}

// tf.random.stateless_binomial([4, 2], seed, counts=[10., 40.], probs=[0.3, 0.6]) and
// tf.random.stateless_parameterized_truncated_normal([3], seed, 0., 1., -1., 2.) (float64
// parameters) with seed [1, 2] in TensorFlow 2.21 under tf.compat.v1.
BOOST_AUTO_TEST_CASE(binomial_and_truncated_normal_builders_make_tensorflows_graphs_and_values) {
  af::Graph g;
  const Output seed = vec<std::int64_t>(g, {1, 2}, "seed");
  const Output counts = vec<float>(g, {10.0f, 40.0f}, "counts");
  const Output probs = vec<float>(g, {0.3f, 0.6f}, "probs");
  const Output b = af::stateless_random_binomial(af::Shape{4, 2}, seed, counts, probs);
  BOOST_TEST(b.name() == "stateless_random_binomial/StatelessRandomBinomial:0");
  BOOST_TEST(g.contains("stateless_random_binomial/shape"));
  BOOST_TEST(b.dtype() == DType::int32);
  BOOST_TEST(b.shape() == af::PartialShape({4, 2}));
  const Output mean = g.constant(Tensor(0.0), "mean");
  const Output stddev = g.constant(Tensor(1.0), "stddev");
  const Output lo = g.constant(Tensor(-1.0), "lo");
  const Output hi = g.constant(Tensor(2.0), "hi");
  const Output t =
      af::stateless_parameterized_truncated_normal(af::Shape{3}, seed, mean, stddev, lo, hi);
  BOOST_TEST(t.name() ==
             "stateless_parameterized_truncated_normal/StatelessParameterizedTruncatedNormal:0");
  BOOST_TEST(t.dtype() == DType::float64);
  BOOST_CHECK_THROW(
      af::stateless_random_binomial(af::Shape{2}, seed, counts, probs, DType::boolean),
      af::InvalidArgumentError);
  refuses(
      [&] {
        af::stateless_parameterized_truncated_normal(af::Shape{2}, seed, vec<double>(g, {0.0, 1.0}),
                                                     vec<double>(g, {1.0, 1.0, 1.0}), lo, hi);
      },
      "Dimensions must be equal, but are 2 and 3");
  af::Session sess(g);
  const auto v = sess.run({b, t});
  BOOST_TEST(values<std::int32_t>(v[0]) == (std::vector<std::int32_t>{5, 27, 5, 21, 5, 24, 4, 24}),
             boost::test_tools::per_element());
  BOOST_TEST(double_bits(v[1]) == (std::vector<std::uint64_t>{
                                      0xbfc23745fceed393, 0x3fe7b30df7adce2e, 0x3ff25d2c6f1a9e3a}),
             boost::test_tools::per_element());
}

// tf.raw_ops.RandomGamma(shape=[4], alpha=tf.constant([0.5, 1.0, 2.5], tf.float64), seed=7,
// seed2=11) in TensorFlow 2.21: output [4, 3], column j drawn with alpha[j].
BOOST_AUTO_TEST_CASE(random_gamma_repeats_tensorflows_stream_for_seed_and_seed2) {
  af::Graph g;
  const Output shape = vec<std::int32_t>(g, {4}, "shape");
  const Output alpha = vec<double>(g, {0.5, 1.0, 2.5}, "alpha");
  const Output gamma = g.create_op("RandomGamma", {shape, alpha},
                                   {{"seed", std::int64_t{7}},
                                    {"seed2", std::int64_t{11}},
                                    {"S", DType::int32},
                                    {"T", DType::float64}},
                                   "gamma")
                           .output(0);
  BOOST_TEST(gamma.shape() == af::PartialShape({4, 3}));
  // tf.random.gamma's graph (random_more2_ops_test.cpp pins it) around op RandomGamma.
  const Output built = af::random_gamma(shape, vec<float>(g, {1.0f, 2.0f}), {}, 3);
  BOOST_TEST(built.name() == "random_gamma/Maximum:0");
  BOOST_TEST(*g.output("random_gamma/RandomGamma:0").node()->def().attr<std::int64_t>("seed2") ==
             3);
  const Output negative = af::random_gamma(
      g.placeholder(DType::int32, af::PartialShape::unknown(), "dims"), alpha, {}, 3, "negative");
  af::Session sess(g);
  const std::vector<double> expected = {
      0.061787459470181445, 1.343275282504163,   3.3697176126458857,   0.2728356457321164,
      0.21876772371560974,  0.6702226727226832,  0.017987980862767733, 0.7111925564524799,
      0.6143695984833959,   0.17928838968426167, 0.11878533799742005,  5.3739472717766645};
  const std::vector<double> got = values<double>(sess.run(gamma));
  BOOST_REQUIRE_EQUAL(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(got[i] == expected[i], boost::test_tools::tolerance(1e-12));
  // A second run continues the stream: other values.
  BOOST_TEST(values<double>(sess.run(gamma))[0] != expected[0]);
  fails_with(sess, negative, "Dimension -2 must be >= 0",
             {{g.output("dims:0"), Tensor::from_vector(std::vector<std::int32_t>{-2})}});
}

BOOST_AUTO_TEST_SUITE_END()
