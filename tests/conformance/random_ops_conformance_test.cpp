// RandomUniform / RandomStandardNormal: graph building, shape inference and kernels, with
// the kernels' output compared bit for bit with TensorFlow's.
//
// The reference values were produced with TensorFlow 2.21.0 (pip tensorflow-cpu, numpy
// 2.4.6, Linux x86-64) in TF1 graph mode, by fetching the raw random node twice in one
// session and printing the values' bit patterns, e.g.:
//
//   import numpy as np, tensorflow as tf
//   tf1 = tf.compat.v1; tf1.disable_eager_execution()
//   g = tf1.Graph()
//   with g.as_default():
//     tf1.set_random_seed(1)
//     x = tf1.random_uniform([5], minval=0.0, maxval=1.0, seed=7)   # seeds (1, 7)
//     raw = g.get_tensor_by_name("random_uniform/RandomUniform:0")
//     with tf1.Session() as s:
//       print([hex(v) for v in s.run(raw).view(np.uint32)])   # first run
//       print([hex(v) for v in s.run(raw).view(np.uint32)])   # second run
//
// (minval=0.0 as a float makes TF 2.x build TF 1.x's graph: shape, min, max, RandomUniform,
// sub, mul, random_uniform.) The other cases are the same with: tf1.random_normal([6],
// seed=7) under graph seed 1; tf1.random_uniform([7], minval=0.0, seed=3) with no graph
// seed (seeds (87654321, 3)); float64 random_uniform([2, 3], seed=5) and random_normal([5],
// seed=5) under graph seed 1234; bfloat16 random_uniform([6]) / random_normal([6]) with
// seeds (1, 7) (printed as float32); random_normal([1001], seed=7) under graph seed 1; and
// the scaled outputs of random_uniform([4], -2.0, 3.0, seed=7) and random_normal([4], 1.5,
// 0.25, seed=7) under graph seed 1 (fetching "random_uniform:0" / "random_normal:0").
#include <bit>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"

using namespace af;

namespace {

// A kernel built from a graph node, as the executor builds it on the CPU device.
struct KernelUnderTest {
  explicit KernelUnderTest(Operation op) : def(op.node_def()) {
    std::vector<DType> input_types;
    for (auto& in : op.node()->inputs()) input_types.push_back(in.dtype());
    OpKernelConstruction c{def, input_types, op.node()->output_types(), "CPU",
                           "/job:localhost/replica:0/task:0/device:CPU:0"};
    Status s = KernelRegistry::global().create(c, &kernel);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
    // The shape input is the value of the "shape" Const feeding the node.
    shape = *op.node()->inputs().at(0).node()->def().attr<Tensor>("value");
  }

  StatusOr<Tensor> run(Tensor shape_input) {
    OpKernelContext ctx(def, {std::move(shape_input)});
    ctx.set_num_outputs(1);
    kernel->compute(ctx);
    if (!ctx.ok()) return ctx.status();
    return ctx.outputs().at(0);
  }

  Tensor run() {
    auto out = run(shape);
    BOOST_REQUIRE_MESSAGE(out.ok(), out.status().message());
    return *out;
  }

  NodeDef def;
  Tensor shape;
  std::unique_ptr<OpKernel> kernel;
};

std::vector<std::uint32_t> bits_of_float(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float f : t.flat<float>()) out.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

std::vector<std::uint64_t> bits_of_double(const Tensor& t) {
  std::vector<std::uint64_t> out;
  for (double d : t.flat<double>()) out.push_back(std::bit_cast<std::uint64_t>(d));
  return out;
}

std::vector<float> bfloat16_as_float(const Tensor& t) {
  std::vector<float> out;
  for (bfloat16_t b : t.flat<bfloat16_t>()) out.push_back(static_cast<float>(b));
  return out;
}

template <class T>
void check_equal(const std::vector<T>& actual, const std::vector<T>& expected) {
  BOOST_CHECK_EQUAL_COLLECTIONS(actual.begin(), actual.end(), expected.begin(), expected.end());
}

// Evaluates a small graph by running each node's kernel once per `run`, keeping the kernels
// (and so the random state) across runs, as a session does.
class SubgraphEvaluator {
 public:
  Tensor run(const Output& out) {
    cache_.clear();
    return value(out.node()).at(static_cast<std::size_t>(out.index()));
  }

 private:
  const std::vector<Tensor>& value(Node* node) {
    if (auto it = cache_.find(node); it != cache_.end()) return it->second;
    std::vector<Tensor> inputs;
    std::vector<DType> input_types;
    for (auto& in : node->inputs()) {
      inputs.push_back(value(in.node()).at(static_cast<std::size_t>(in.index())));
      input_types.push_back(in.dtype());
    }
    auto& kernel = kernels_[node];
    if (!kernel) {
      OpKernelConstruction c{node->def(), input_types, node->output_types(), "CPU",
                             "/job:localhost/replica:0/task:0/device:CPU:0"};
      Status s = KernelRegistry::global().create(c, &kernel);
      BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
    }
    OpKernelContext ctx(node->def(), std::move(inputs));
    ctx.set_num_outputs(node->num_outputs());
    kernel->compute(ctx);
    BOOST_REQUIRE_MESSAGE(ctx.ok(), ctx.status().message());
    return cache_[node] = ctx.outputs();
  }

  std::map<Node*, std::unique_ptr<OpKernel>> kernels_;
  std::map<Node*, std::vector<Tensor>> cache_;
};

// The RandomUniform / RandomStandardNormal node below a builder's result.
Operation raw_node(const Output& result) {
  return result.node()->inputs().at(0).node()->inputs().at(0).op();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(random_ops_conformance_test)

BOOST_AUTO_TEST_CASE(random_uniform_builds_tensorflow_1_x_graph) {
  Graph g;
  g.set_random_seed(1);
  Output x = random_uniform(g, Shape{5}, DType::float32, 0.0, 1.0, 7);
  std::vector<std::string> names, types;
  for (Node* n : g.nodes()) {
    names.push_back(n->name());
    types.push_back(n->type());
  }
  check_equal(names, {"random_uniform/shape", "random_uniform/min", "random_uniform/max",
                      "random_uniform/RandomUniform", "random_uniform/sub", "random_uniform/mul",
                      "random_uniform"});
  check_equal(types, {"Const", "Const", "Const", "RandomUniform", "Sub", "Mul", "Add"});
  BOOST_CHECK_EQUAL(x.name(), "random_uniform:0");
  BOOST_CHECK(x.shape() == PartialShape({5}));
  const NodeDef& def = g.operation("random_uniform/RandomUniform").node_def();
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed"), 1);
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed2"), 7);
  BOOST_CHECK(*def.attr<DType>("dtype") == DType::float32);
  BOOST_CHECK(*def.attr<DType>("T") == DType::int32);
  BOOST_CHECK(g.operation("random_uniform/shape").node()->output_types()[0] == DType::int32);
}

BOOST_AUTO_TEST_CASE(random_normal_builds_tensorflow_1_x_graph) {
  Graph g;
  Output y = random_normal(g, Shape{2, 3}, DType::float64, 0.0, 1.0, 7);
  std::vector<std::string> names;
  for (Node* n : g.nodes()) names.push_back(n->name());
  check_equal(names, {"random_normal/shape", "random_normal/mean", "random_normal/stddev",
                      "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal"});
  BOOST_CHECK(y.dtype() == DType::float64);
  BOOST_CHECK(y.shape() == PartialShape({2, 3}));
  // No graph seed, an op seed: TensorFlow's default graph seed 87654321.
  const NodeDef& def = g.operation("random_normal/RandomStandardNormal").node_def();
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed"), 87654321);
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed2"), 7);
}

BOOST_AUTO_TEST_CASE(repeated_builders_get_unique_scopes_named_after_the_add) {
  Graph g;
  Output a = random_uniform(g, Shape{2});
  Output b = random_uniform(g, Shape{2});
  Output c = random_normal(g, Shape{2}, DType::float32, 0.0, 1.0, {}, "noise");
  BOOST_CHECK_EQUAL(a.op().name(), "random_uniform");
  BOOST_CHECK_EQUAL(b.op().name(), "random_uniform_1");
  BOOST_CHECK_EQUAL(c.op().name(), "noise");
  BOOST_CHECK(g.operation("random_uniform_1/RandomUniform").valid());
  BOOST_CHECK(g.operation("noise/RandomStandardNormal").valid());
  // Without any seed both seeds are 0 (the kernel then seeds itself randomly).
  const NodeDef& def = g.operation("random_uniform_1/RandomUniform").node_def();
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed"), 0);
  BOOST_CHECK_EQUAL(*def.attr<std::int64_t>("seed2"), 0);
}

BOOST_AUTO_TEST_CASE(builders_reject_non_floating_dtypes) {
  Graph g;
  BOOST_CHECK_THROW(random_uniform(g, Shape{2}, DType::int32), InvalidArgumentError);
  BOOST_CHECK_THROW(random_normal(g, Shape{2}, DType::string), InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(shape_inference_uses_the_shape_input) {
  Graph g;
  Output known = g.constant(Tensor::from_vector<std::int32_t>({4, 0, 2}));
  Output from_const = g.create_op("RandomUniform", {known},
                                  {{"seed", std::int64_t{0}},
                                   {"seed2", std::int64_t{0}},
                                   {"dtype", DType::float32},
                                   {"T", DType::int32}})
                          .output(0);
  BOOST_CHECK(from_const.shape() == PartialShape({4, 0, 2}));
  Output p = g.placeholder(DType::int64, PartialShape({3}));
  Output from_placeholder = g.create_op("RandomStandardNormal", {p},
                                        {{"seed", std::int64_t{0}},
                                         {"seed2", std::int64_t{0}},
                                         {"dtype", DType::float64},
                                         {"T", DType::int64}})
                                .output(0);
  BOOST_CHECK(from_placeholder.shape() == PartialShape::unknown_of_rank(3));
  BOOST_CHECK(from_placeholder.dtype() == DType::float64);
  Output matrix = g.placeholder(DType::int32, PartialShape({2, 2}));
  BOOST_CHECK_THROW(g.create_op("RandomUniform", {matrix},
                                {{"seed", std::int64_t{0}},
                                 {"seed2", std::int64_t{0}},
                                 {"dtype", DType::float32},
                                 {"T", DType::int32}}),
                    InvalidArgumentError);
  BOOST_CHECK_THROW(g.create_op("RandomUniform", {known},
                                {{"seed", std::int64_t{0}},
                                 {"seed2", std::int64_t{0}},
                                 {"dtype", DType::int32},
                                 {"T", DType::int32}}),
                    InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(uniform_float32_matches_tensorflow_on_successive_runs) {
  Graph g;
  g.set_random_seed(1);
  KernelUnderTest k(raw_node(random_uniform(g, Shape{5}, DType::float32, 0.0, 1.0, 7)));
  check_equal(bits_of_float(k.run()),
              {0x3f49b062u, 0x3f334d46u, 0x3f677974u, 0x3f2eb544u, 0x3f194e28u});
  check_equal(bits_of_float(k.run()),
              {0x3f00c726u, 0x3ebfa8b4u, 0x3ef96db4u, 0x3ec02798u, 0x3e24cd88u});
}

BOOST_AUTO_TEST_CASE(normal_float32_matches_tensorflow_on_successive_runs) {
  Graph g;
  g.set_random_seed(1);
  KernelUnderTest k(raw_node(random_normal(g, Shape{6}, DType::float32, 0.0, 1.0, 7)));
  check_equal(bits_of_float(k.run()),
              {0xbf28459eu, 0xbe58d735u, 0xbed16599u, 0xbe3d3d86u, 0x3eb87868u, 0xbf72478au});
  check_equal(bits_of_float(k.run()),
              {0xbf07d039u, 0xbff5cf8eu, 0xbe975fc0u, 0xbf8b0387u, 0xbceafa85u, 0x3f9b2340u});
}

BOOST_AUTO_TEST_CASE(op_seed_without_graph_seed_matches_tensorflow) {
  Graph g;
  KernelUnderTest k(raw_node(random_uniform(g, Shape{7}, DType::float32, 0.0, 1.0, 3)));
  check_equal(bits_of_float(k.run()), {0x3ec61b9cu, 0x3eb8555cu, 0x3f7a14c8u, 0x3db12f80u,
                                       0x3f00f91eu, 0x3eb78d90u, 0x3e565900u});
}

BOOST_AUTO_TEST_CASE(float64_uniform_and_normal_match_tensorflow) {
  Graph g;
  g.set_random_seed(1234);
  KernelUnderTest u(raw_node(random_uniform(g, Shape{2, 3}, DType::float64, 0.0, 1.0, 5)));
  KernelUnderTest n(raw_node(random_normal(g, Shape{5}, DType::float64, 0.0, 1.0, 5)));
  Tensor first = u.run();
  BOOST_CHECK(first.shape() == Shape({2, 3}));
  check_equal(bits_of_double(first),
              {0x3fc3a0e5bd08dbd0u, 0x3fde8332f656b320u, 0x3fe9ede87f819cb0u, 0x3fdce555cb098cc8u,
               0x3fe37a37b11d961au, 0x3fee4223a3d0ac04u});
  check_equal(bits_of_double(u.run()),
              {0x3fe7e19214eaa650u, 0x3fecd7441aa32a5au, 0x3fdd48f0a83739d8u, 0x3fccaf74df29f6e8u,
               0x3fcce14d911c30e0u, 0x3fe124ed6caec478u});
  check_equal(bits_of_double(n.run()),
              {0x3fd208f0aa86099bu, 0xbffea78a5d3c3792u, 0x3fc8e9783a0b1236u, 0xbfe3ccbf266b41ddu,
               0xbfd562e9e22dbaa9u});
  check_equal(bits_of_double(n.run()),
              {0xbfd4dd70fcea59c1u, 0xbff424e27160ae56u, 0x3fd42c1fb3036e39u, 0xbfd71d082e021bb0u,
               0xbff4037cfa6ca146u});
}

BOOST_AUTO_TEST_CASE(bfloat16_uniform_and_normal_match_tensorflow) {
  Graph g;
  g.set_random_seed(1);
  KernelUnderTest u(raw_node(random_uniform(g, Shape{6}, DType::bfloat16, 0.0, 1.0, 7)));
  KernelUnderTest n(raw_node(random_normal(g, Shape{6}, DType::bfloat16, 0.0, 1.0, 7)));
  check_equal(bfloat16_as_float(u.run()),
              {0.3828125f, 0.2734375f, 0.453125f, 0.265625f, 0.15625f, 0.8828125f});
  check_equal(bfloat16_as_float(n.run()),
              {-0.65625f, -0.2119140625f, -0.408203125f, -0.1845703125f, 0.359375f, -0.9453125f});
}

BOOST_AUTO_TEST_CASE(partial_last_group_and_large_reservation_match_tensorflow) {
  // 1001 elements: 250 full groups plus one element of a 251st; the second run starts
  // 1001 * 256 Philox samples later.
  Graph g;
  g.set_random_seed(1);
  KernelUnderTest k(raw_node(random_normal(g, Shape{1001}, DType::float32, 0.0, 1.0, 7)));
  auto first = bits_of_float(k.run());
  check_equal(std::vector<std::uint32_t>(first.begin(), first.begin() + 4),
              {0xbf28459eu, 0xbe58d735u, 0xbed16599u, 0xbe3d3d86u});
  check_equal(std::vector<std::uint32_t>(first.end() - 5, first.end()),
              {0x3f833b71u, 0x3f0edd88u, 0x3f911d56u, 0xbe80a3cau, 0x3eac0fe2u});
  auto second = bits_of_float(k.run());
  check_equal(std::vector<std::uint32_t>(second.begin(), second.begin() + 3),
              {0xbee2c0d4u, 0x3eee85f0u, 0x3ebd3f75u});
}

BOOST_AUTO_TEST_CASE(builder_outputs_match_tensorflow_after_scaling) {
  // Runs the whole builder subgraph (consts, the random op, Sub/Mul/Add) twice.
  Graph g;
  g.set_random_seed(1);
  Output u = random_uniform(g, Shape{4}, DType::float32, -2.0, 3.0, 7);
  Output n = random_normal(g, Shape{4}, DType::float32, 1.5, 0.25, 7);
  SubgraphEvaluator eval;
  check_equal(bits_of_float(eval.run(u)), {0x3ff838f4u, 0x3fc04130u, 0x402157d0u, 0x3fb4c52au});
  check_equal(bits_of_float(eval.run(n)), {0x3faaf74cu, 0x3fb93946u, 0x3fb2e9a6u, 0x3fba1614u});
  // The second run continues the sequences: TensorFlow's second run of "random_uniform:0"
  // is the raw second run scaled the same way.
  Graph raw_graph;
  raw_graph.set_random_seed(1);
  KernelUnderTest raw(raw_node(random_uniform(raw_graph, Shape{4}, DType::float32, -2.0, 3.0, 7)));
  raw.run();
  std::vector<std::uint32_t> expected;
  for (float r : raw.run().to_vector<float>())
    expected.push_back(std::bit_cast<std::uint32_t>(r * 5.0f + -2.0f));
  check_equal(bits_of_float(eval.run(u)), expected);
}

BOOST_AUTO_TEST_CASE(same_seeds_give_the_same_sequence_in_new_kernels) {
  Graph g;
  Operation op = raw_node(random_uniform(g, Shape{64}, DType::float32, 0.0, 1.0, 42));
  KernelUnderTest a(op), b(op);
  Tensor a1 = a.run(), a2 = a.run();
  BOOST_CHECK(b.run() == a1);
  BOOST_CHECK(b.run() == a2);
  BOOST_CHECK(!(a1 == a2));
  Graph other;
  KernelUnderTest c(raw_node(random_uniform(other, Shape{64}, DType::float32, 0.0, 1.0, 43)));
  BOOST_CHECK(!(c.run() == a1));
}

BOOST_AUTO_TEST_CASE(unseeded_kernels_draw_different_sequences) {
  Graph g;
  Operation op = raw_node(random_normal(g, Shape{16}));
  KernelUnderTest a(op), b(op);
  BOOST_CHECK(!(a.run() == b.run()));
}

BOOST_AUTO_TEST_CASE(uniform_samples_have_the_expected_statistics) {
  Graph g;
  KernelUnderTest k(raw_node(random_uniform(g, Shape{100000}, DType::float32, 0.0, 1.0, 11)));
  Tensor t = k.run();
  double sum = 0, sum_sq = 0;
  for (float v : t.flat<float>()) {
    BOOST_REQUIRE(v >= 0.0f && v < 1.0f);
    sum += v;
    sum_sq += double(v) * v;
  }
  const double n = 100000, mean = sum / n, var = sum_sq / n - mean * mean;
  BOOST_CHECK_SMALL(mean - 0.5, 0.005);
  BOOST_CHECK_SMALL(var - 1.0 / 12, 0.002);

  KernelUnderTest d(raw_node(random_uniform(g, Shape{100000}, DType::float64, 0.0, 1.0, 11)));
  sum = 0;
  const Tensor doubles = d.run();
  for (double v : doubles.flat<double>()) {
    BOOST_REQUIRE(v >= 0.0 && v < 1.0);
    sum += v;
  }
  BOOST_CHECK_SMALL(sum / n - 0.5, 0.005);
}

BOOST_AUTO_TEST_CASE(normal_samples_have_the_expected_statistics) {
  Graph g;
  for (DType dtype : {DType::float32, DType::float64}) {
    KernelUnderTest k(raw_node(random_normal(g, Shape{100, 1000}, dtype, 0.0, 1.0, 13)));
    Tensor t = k.run();
    BOOST_CHECK(t.shape() == Shape({100, 1000}));
    double sum = 0, sum_sq = 0, beyond_3 = 0;
    auto add = [&](double v) {
      BOOST_REQUIRE(std::isfinite(v));
      sum += v;
      sum_sq += v * v;
      beyond_3 += std::abs(v) > 3;
    };
    if (dtype == DType::float32)
      for (float v : t.flat<float>()) add(v);
    else
      for (double v : t.flat<double>()) add(v);
    const double n = 100000, mean = sum / n, var = sum_sq / n - mean * mean;
    BOOST_CHECK_SMALL(mean, 0.015);
    BOOST_CHECK_SMALL(var - 1.0, 0.02);
    BOOST_CHECK_SMALL(beyond_3 / n - 0.0027, 0.001);
  }
}

BOOST_AUTO_TEST_CASE(empty_and_scalar_shapes_are_supported) {
  Graph g;
  KernelUnderTest scalar(raw_node(random_uniform(g, Shape{}, DType::float32, 0.0, 1.0, 5)));
  Tensor s = scalar.run();
  BOOST_CHECK(s.shape() == Shape{});
  BOOST_CHECK_EQUAL(s.num_elements(), 1);
  KernelUnderTest empty(raw_node(random_normal(g, Shape{3, 0}, DType::float32, 0.0, 1.0, 5)));
  BOOST_CHECK(empty.run().shape() == Shape({3, 0}));
}

BOOST_AUTO_TEST_CASE(kernel_rejects_bad_shape_inputs) {
  Graph g;
  KernelUnderTest k(raw_node(random_uniform(g, Shape{2}, DType::float32, 0.0, 1.0, 5)));
  auto matrix = k.run(Tensor::from_vector<std::int32_t>({1, 2, 3, 4}, Shape{2, 2}));
  BOOST_REQUIRE(!matrix.ok());
  BOOST_CHECK(matrix.status().code() == Code::invalid_argument);
  BOOST_CHECK_EQUAL(matrix.status().message(),
                    "shape must be a vector of {int32,int64}, got shape [2,2]");
  auto negative = k.run(Tensor::from_vector<std::int32_t>({2, -1}));
  BOOST_REQUIRE(!negative.ok());
  BOOST_CHECK(negative.status().code() == Code::invalid_argument);
  // A fed int64 shape works too.
  auto fed = k.run(Tensor::from_vector<std::int64_t>({3}));
  BOOST_REQUIRE(fed.ok());
  BOOST_CHECK(fed->shape() == Shape{3});
}

BOOST_AUTO_TEST_SUITE_END()
