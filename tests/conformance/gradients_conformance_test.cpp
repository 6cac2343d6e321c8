// TensorFlow 1.x's tf.gradients (gradients_util.py and the registered gradient functions of
// math_grad.py, nn_grad.py, array_grad.py): values computed by TensorFlow, the names of the
// backward graph, the walk's rules (sums over consumers, unconnected xs, stop_gradients,
// ops without a gradient), and TensorFlow's numeric gradient check
// (gradient_checker.compute_gradient_error) for every registered gradient.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

Tensor random_tensor(const Shape& shape, std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (auto& x : v) x = u(rng);
  return Tensor::from_vector(v, shape);
}

// Values in [lo, hi] with magnitude at least `gap` and pairwise distinct, so kinks (Relu,
// Abs, Max) and ties are far from the finite differences.
Tensor spread_tensor(const Shape& shape, std::mt19937& rng, double lo, double hi,
                     double gap = 0.05) {
  const auto n = static_cast<std::size_t>(shape.num_elements());
  std::vector<double> v;
  std::uniform_real_distribution<double> u(lo, hi);
  while (v.size() < n) {
    double x = u(rng);
    if (std::abs(x) < gap) continue;
    if (std::any_of(v.begin(), v.end(), [&](double y) { return std::abs(x - y) < gap / 4; }))
      continue;
    v.push_back(x);
  }
  return Tensor::from_vector(v, shape);
}

// TensorFlow's compute_gradient_error: the largest difference between the Jacobian built from
// the backward graph (one run per output element, grad_ys one-hot) and central differences.
double gradient_error(af::Graph& g, const std::vector<Output>& xs,
                      const std::vector<Tensor>& values, const Output& y, double delta = 1e-6) {
  Output gy = g.placeholder(y.dtype(), y.shape(), "grad_y");
  std::vector<Output> grads = af::gradients({y}, xs, {gy});
  af::Session sess(g);
  af::FeedDict base;
  for (std::size_t i = 0; i < xs.size(); ++i) base.push_back({xs[i], values[i]});
  const Tensor y0 = sess.run(y, base);
  const auto ny = y0.num_elements();
  double worst = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    BOOST_REQUIRE_MESSAGE(grads[k].valid(),
                          "no gradient for input " << k << " of " << y.op().name());
    const auto nx = values[k].num_elements();
    std::vector<double> theoretical(static_cast<std::size_t>(nx * ny));
    for (std::int64_t j = 0; j < ny; ++j) {
      Tensor onehot(DType::float64, y0.shape());
      onehot.data<double>()[j] = 1.0;
      af::FeedDict feeds = base;
      feeds.push_back({gy, onehot});
      Tensor dx = sess.run(grads[k], feeds);
      BOOST_REQUIRE_EQUAL(dx.shape(), values[k].shape());
      for (std::int64_t i = 0; i < nx; ++i)
        theoretical[static_cast<std::size_t>(i * ny + j)] = dx.data<double>()[i];
    }
    for (std::int64_t i = 0; i < nx; ++i) {
      auto run_with = [&](double shift) {
        Tensor moved = values[k].deep_copy();
        moved.data<double>()[i] += shift;
        af::FeedDict feeds = base;
        feeds[k].second = moved;
        return sess.run(y, feeds);
      };
      Tensor plus = run_with(delta), minus = run_with(-delta);
      for (std::int64_t j = 0; j < ny; ++j) {
        const double numeric = (plus.data<double>()[j] - minus.data<double>()[j]) / (2 * delta);
        worst =
            std::max(worst, std::abs(numeric - theoretical[static_cast<std::size_t>(i * ny + j)]));
      }
    }
  }
  return worst;
}

struct Case {
  std::string name;
  std::vector<Shape> shapes;
  std::function<Output(af::Graph&, const std::vector<Output>&)> build;
  double lo = -2.0, hi = 2.0;
};

std::vector<Case> gradient_cases() {
  using V = const std::vector<Output>&;
  using G = af::Graph&;
  std::vector<Case> cases = {
      {"Add broadcasting", {{2, 3}, {3}}, [](G, V x) { return x[0] + x[1]; }},
      {"Add of a column", {{2, 3}, {2, 1}}, [](G, V x) { return af::add(x[0], x[1]); }},
      {"Sub broadcasting", {{3}, {2, 3}}, [](G, V x) { return x[0] - x[1]; }},
      {"Mul broadcasting", {{2, 3}, {1, 3}}, [](G, V x) { return x[0] * x[1]; }},
      {"RealDiv", {{2, 3}, {2, 3}}, [](G, V x) { return x[0] / x[1]; }, 0.5, 2.0},
      {"Neg", {{4}}, [](G, V x) { return -x[0]; }},
      {"AddN", {{2, 2}, {2, 2}, {2, 2}}, [](G, V x) { return af::add_n(x); }},
      {"MatMul", {{2, 3}, {3, 4}}, [](G, V x) { return af::matmul(x[0], x[1]); }},
      {"MatMul transpose_a",
       {{3, 2}, {3, 4}},
       [](G, V x) { return af::matmul(x[0], x[1], true, false); }},
      {"MatMul transpose_b",
       {{2, 3}, {4, 3}},
       [](G, V x) { return af::matmul(x[0], x[1], false, true); }},
      {"MatMul transpose both",
       {{3, 2}, {4, 3}},
       [](G, V x) { return af::matmul(x[0], x[1], true, true); }},
      {"Sum over all", {{2, 3}}, [](G, V x) { return af::reduce_sum(x[0]); }},
      {"Sum over axis 1",
       {{2, 3, 2}},
       [](G, V x) { return af::reduce_sum(x[0], std::vector<std::int64_t>{1}); }},
      {"Sum keep_dims",
       {{2, 3}},
       [](G, V x) { return af::reduce_sum(x[0], std::vector<std::int64_t>{0}, true); }},
      {"Mean over axis 0",
       {{3, 2}},
       [](G, V x) { return af::reduce_mean(x[0], std::vector<std::int64_t>{0}); }},
      {"Mean over all", {{3, 2}}, [](G, V x) { return af::reduce_mean(x[0]); }},
      {"Max over axis 1",
       {{2, 4}},
       [](G, V x) { return af::reduce_max(x[0], std::vector<std::int64_t>{1}); }},
      {"Min over all", {{2, 3}}, [](G, V x) { return af::reduce_min(x[0]); }},
      {"Relu", {{2, 3}}, [](G, V x) { return af::relu(x[0]); }},
      {"Sigmoid", {{2, 3}}, [](G, V x) { return af::sigmoid(x[0]); }},
      {"Tanh", {{2, 3}}, [](G, V x) { return af::tanh(x[0]); }},
      {"Softmax", {{2, 4}}, [](G, V x) { return af::softmax(x[0]); }},
      {"LogSoftmax", {{2, 4}}, [](G, V x) { return af::nn::log_softmax(x[0]); }},
      {"Square", {{5}}, [](G, V x) { return af::square(x[0]); }},
      {"Sqrt", {{5}}, [](G, V x) { return af::sqrt(x[0]); }, 0.5, 2.0},
      {"Rsqrt", {{5}}, [](G, V x) { return af::rsqrt(x[0]); }, 0.5, 2.0},
      {"Exp", {{5}}, [](G, V x) { return af::exp(x[0]); }},
      {"Sin",
       {{5}},
       [](G g, V x) {
         return g.create_op("Sin", {x[0]}, {{"T", x[0].dtype()}}).output(0);
       }},
      {"Cos",
       {{5}},
       [](G g, V x) {
         return g.create_op("Cos", {x[0]}, {{"T", x[0].dtype()}}).output(0);
       }},
      {"IdentityN",
       {{2, 3}, {3}},
       [](G g, V x) {
         auto op = g.create_op("IdentityN", {x[0], x[1]},
                               {{"T", std::vector<af::DType>{x[0].dtype(), x[1].dtype()}}});
         return op.output(0) * 2.0f + af::reduce_sum(op.output(1));
       }},
      {"Log", {{5}}, [](G, V x) { return af::log(x[0]); }, 0.5, 2.0},
      {"Reciprocal", {{5}}, [](G, V x) { return af::reciprocal(x[0]); }, 0.5, 2.0},
      {"Abs", {{5}}, [](G, V x) { return af::abs(x[0]); }},
      {"Maximum broadcasting", {{2, 3}, {3}}, [](G, V x) { return af::maximum(x[0], x[1]); }},
      {"Minimum", {{2, 3}, {2, 3}}, [](G, V x) { return af::minimum(x[0], x[1]); }},
      {"Pow", {{2, 3}, {2, 3}}, [](G, V x) { return af::pow(x[0], x[1]); }, 0.5, 2.0},
      {"SquaredDifference",
       {{2, 3}, {3}},
       [](G, V x) { return af::squared_difference(x[0], x[1]); }},
      {"L2Loss", {{2, 3}}, [](G, V x) { return af::l2_loss(x[0]); }},
      {"Identity", {{3}}, [](G, V x) { return af::identity(x[0]); }},
      {"Reshape",
       {{2, 3}},
       [](G, V x) {
         return af::reshape(x[0], std::vector<std::int64_t>{3, 2});
       }},
      {"ExpandDims", {{2, 3}}, [](G, V x) { return af::expand_dims(x[0], 1); }},
      {"Squeeze", {{2, 1, 3}}, [](G, V x) { return af::squeeze(x[0]); }},
      {"ConcatV2",
       {{2, 3}, {2, 2}},
       [](G, V x) {
         return af::concat({x[0], x[1]}, 1);
       }},
      {"Pack",
       {{2, 3}, {2, 3}},
       [](G, V x) {
         return af::stack({x[0], x[1]}, 1);
       }},
      {"Unpack", {{3, 2}}, [](G, V x) { return af::unstack(x[0])[1]; }},
      {"Transpose",
       {{2, 3, 4}},
       [](G, V x) {
         return af::transpose(x[0], std::vector<std::int64_t>{2, 0, 1});
       }},
      {"Tile",
       {{2, 3}},
       [](G, V x) {
         return af::tile(x[0], std::vector<std::int64_t>{2, 3});
       }},
      {"Select",
       {{2, 3}, {2, 3}},
       [](G g, V x) {
         Tensor c = Tensor::from_vector(std::vector<bool>{true, false, true, false, false, true},
                                        Shape{2, 3});
         return af::select(g.constant(c), x[0], x[1]);
       }},
      {"Fill",
       {{}},
       [](G g, V x) {
         return af::fill(g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 3})), x[0]);
       }},
      {"BiasAdd", {{2, 3, 4}, {4}}, [](G, V x) { return af::nn::bias_add(x[0], x[1]); }},
      {"Conv2D VALID",
       {{1, 4, 4, 2}, {2, 2, 2, 3}},
       [](G, V x) {
         return af::nn::conv2d(x[0], x[1], {1, 1, 1, 1}, "VALID");
       }},
      {"Conv2D SAME strided",
       {{2, 5, 5, 1}, {3, 3, 1, 2}},
       [](G, V x) {
         return af::nn::conv2d(x[0], x[1], {1, 2, 2, 1}, "SAME");
       }},
      {"MaxPool",
       {{1, 4, 4, 2}},
       [](G, V x) {
         return af::nn::max_pool(x[0], {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
       }},
      {"AvgPool SAME",
       {{1, 5, 5, 1}},
       [](G, V x) {
         return af::nn::avg_pool(x[0], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
       }},
      {"SoftmaxCrossEntropyWithLogits",
       {{3, 4}, {3, 4}},
       [](G, V x) {
         return af::nn::softmax_cross_entropy_with_logits_v2(af::softmax(x[1]), x[0]);
       }},
      {"SparseSoftmaxCrossEntropyWithLogits",
       {{3, 4}},
       [](G g, V x) {
         Output labels = g.constant(Tensor::from_vector(std::vector<std::int32_t>{3, 0, 2}));
         return af::nn::sparse_softmax_cross_entropy_with_logits(labels, x[0]);
       }},
      {"Cast float64 to float32 and back",
       {{3}},
       [](G, V x) { return af::cast(af::cast(x[0], DType::float32) * 2.0f, DType::float64); }},
      // Index 2 is gathered twice: its gradient is the sum of both rows (the UnsortedSegmentSum).
      {"GatherV2 axis 0 with a repeated index",
       {{4, 3}},
       [](G g, V x) {
         return af::gather(x[0],
                           g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 0, 2})));
       }},
      {"GatherV2 axis 1 with a repeated index",
       {{2, 4, 3}},
       [](G g, V x) {
         Tensor indices = Tensor::from_vector(std::vector<std::int32_t>{1, 3, 1, 0}, Shape{2, 2});
         return af::gather(x[0], g.constant(indices), 1);
       }},
      {"GatherV2 axis 2 of a vector index",
       {{2, 3, 4}},
       [](G g, V x) {
         return af::gather(x[0],
                           g.constant(Tensor::from_vector(std::vector<std::int32_t>{3, 3, 0})), 2);
       }},
      {"Slice",
       {{3, 4}},
       [](G, V x) {
         return af::slice(x[0], {1, 0}, {2, 3});
       }},
      {"Slice to the end (size -1)",
       {{2, 3, 2}},
       [](G, V x) {
         return af::slice(x[0], {0, 1, 1}, {-1, -1, 1});
       }},
      {"Pad",
       {{2, 3}},
       [](G, V x) {
         return af::pad(x[0], {{1, 0}, {2, 1}});
       }},
      // Id -1 drops row 1; id 1 collects rows 0 and 2; segment 2 gets nothing.
      {"UnsortedSegmentSum with a negative id",
       {{4, 2}},
       [](G g, V x) {
         Tensor ids = Tensor::from_vector(std::vector<std::int32_t>{1, -1, 1, 0});
         return af::unsorted_segment_sum(x[0], g.constant(ids), 3);
       }},
      {"UnsortedSegmentSum of 2-D ids",
       {{2, 2, 3}},
       [](G g, V x) {
         Tensor ids = Tensor::from_vector(std::vector<std::int64_t>{0, 2, 2, -1}, Shape{2, 2});
         return af::unsorted_segment_sum(x[0], g.constant(ids), 3);
       }},
      {"Prod over axis 1",
       {{2, 3, 2}},
       [](G, V x) { return af::reduce_prod(x[0], std::vector<std::int64_t>{1}); }},
      {"Prod over axis -1 keep_dims",
       {{3, 2}},
       [](G, V x) { return af::reduce_prod(x[0], std::vector<std::int64_t>{-1}, true); }},
      {"Prod over axes 0 and 2",
       {{2, 3, 2}},
       [](G, V x) {
         return af::reduce_prod(x[0], std::vector<std::int64_t>{2, 0});
       }},
      {"Prod over all", {{2, 3}}, [](G, V x) { return af::reduce_prod(x[0]); }},
  };
  return cases;
}

bool has_node(af::Graph& g, const std::string& name, const std::string& type) {
  for (auto* n : g.nodes())
    if (n->name() == name) return n->type() == type;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gradients_conformance_test)

// Values from scripts/peers/make_training_references.py (TensorFlow 2.21, tf.compat.v1, float64):
// relu(x W1 + b1) W2 + b2 with the mean sparse softmax cross-entropy.
BOOST_AUTO_TEST_CASE(mlp_gradients_match_tensorflow, *boost::unit_test::timeout(60)) {
  const std::vector<double> k_loss = {1.12516485};
  const std::vector<double> k_w1 = {-0.0572564064, 0.0626391332, 0, 0, -0.0118134357,
                                    -0.054226264,  0.0501113066, 0, 0, -0.0210636994,
                                    -0.0511961217, 0.0375834799, 0, 0, -0.0303139631,
                                    -0.0481659793, 0.0250556533, 0, 0, -0.0395642268};
  const std::vector<double> k_b1 = {0.0303014236, -0.125278266, 0, 0, -0.0925026368};
  const std::vector<double> k_w2 = {0.0209797793,
                                    0.0862545247,
                                    -0.107234304,
                                    0.0243759254,
                                    0.0159784744,
                                    -0.0403543998,
                                    0,
                                    0,
                                    0,
                                    0,
                                    0,
                                    0,
                                    0.0338738219,
                                    -0.0844929093,
                                    0.0506190874};
  const std::vector<double> k_b2 = {0.0434367661, -0.0711532364, 0.0277164703};

  std::vector<double> x(12), w1(20), b1(5), w2(15);
  for (int i = 0; i < 12; ++i) x[i] = i / 10.0 - 0.5;
  for (int i = 0; i < 20; ++i) w1[i] = std::sin(i);
  for (int i = 0; i < 5; ++i) b1[i] = std::cos(i) / 4;
  for (int i = 0; i < 15; ++i) w2[i] = std::cos(i) / 2;
  af::Graph g;
  Output tx = g.constant(Tensor::from_vector(x, Shape{3, 4}));
  Output tw1 = g.constant(Tensor::from_vector(w1, Shape{4, 5}));
  Output tb1 = g.constant(Tensor::from_vector(b1));
  Output tw2 = g.constant(Tensor::from_vector(w2, Shape{5, 3}));
  Output tb2 = g.constant(Tensor::from_vector(std::vector<double>{0.1, -0.2, 0.3}));
  Output labels = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 0, 1}));
  Output h = af::relu(af::nn::bias_add(af::matmul(tx, tw1), tb1));
  Output logits = af::nn::bias_add(af::matmul(h, tw2), tb2);
  Output loss = af::reduce_mean(af::nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
  auto grads = af::gradients({loss}, {tw1, tb1, tw2, tb2});
  af::Session sess(g);
  auto values = sess.run({loss, grads[0], grads[1], grads[2], grads[3]});
  const std::vector<const std::vector<double>*> want = {&k_loss, &k_w1, &k_b1, &k_w2, &k_b2};
  for (std::size_t k = 0; k < want.size(); ++k) {
    auto got = values[k].to_vector<double>();
    BOOST_REQUIRE_EQUAL(got.size(), want[k]->size());
    for (std::size_t i = 0; i < got.size(); ++i)
      BOOST_TEST(got[i] == (*want[k])[i], boost::test_tools::tolerance(1e-7));
  }
}

// The backward graph of `reduce_mean(square(matmul(x, w) + b - 1))`, named as TensorFlow 2.21's
// tf.compat.v1.gradients names it (see the script's output).
BOOST_AUTO_TEST_CASE(backward_graph_names_follow_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.placeholder(DType::float32, af::PartialShape{-1, 3}, "x");
  af::Variable w =
      g.variable(Tensor::from_vector(std::vector<float>(6, 1.0f), Shape{3, 2}), {.name = "w"});
  af::Variable b = g.variable(Tensor::from_vector(std::vector<float>(2, 0.0f)), {.name = "b"});
  Output y = af::matmul(x, w) + b;
  Output loss = af::reduce_mean(af::square(y - 1.0f));
  auto grads = af::gradients({loss}, {w.value(), b.value()});
  BOOST_TEST(has_node(g, "gradients/Shape", "Const"));
  BOOST_TEST(has_node(g, "gradients/grad_ys_0/Const", "Const"));
  BOOST_TEST(has_node(g, "gradients/grad_ys_0", "Fill"));
  BOOST_TEST(has_node(g, "gradients/Mean_grad/Reshape", "Reshape"));
  BOOST_TEST(has_node(g, "gradients/Mean_grad/Tile", "Tile"));
  BOOST_TEST(has_node(g, "gradients/Mean_grad/truediv", "RealDiv"));
  BOOST_TEST(has_node(g, "gradients/Square_grad/Const", "Const"));
  BOOST_TEST(has_node(g, "gradients/Square_grad/Mul", "Mul"));
  BOOST_TEST(has_node(g, "gradients/Square_grad/Mul_1", "Mul"));
  BOOST_TEST(has_node(g, "gradients/sub_grad/Neg", "Neg"));
  BOOST_TEST(has_node(g, "gradients/add_grad/Sum", "Sum"));
  BOOST_TEST(grads[0].op().name() == "gradients/MatMul_grad/MatMul_1");
  BOOST_TEST(grads[0].op().type() == "MatMul");
  BOOST_TEST(grads[1].op().name() == "gradients/add_grad/Reshape_1");
  // A second call builds under "gradients_1".
  auto again = af::gradients({loss}, {w.value()});
  BOOST_TEST(again[0].op().name() == "gradients_1/MatMul_grad/MatMul_1");
  // With gate_gradients, each op's input gradients leave through tuple/control_dependency.
  auto gated = af::gradients({loss}, {w.value()}, {}, {.gate_gradients = true});
  BOOST_TEST(gated[0].op().name() == "gradients_2/MatMul_grad/tuple/control_dependency_1");
  BOOST_TEST(has_node(g, "gradients_2/MatMul_grad/tuple/group_deps", "NoOp"));
  BOOST_REQUIRE(gated[0].op().node()->control_inputs().size() == 1u);
  // The gate waits only for what a requested gradient needs: the gradient of the
  // placeholder x (MatMul_grad/MatMul) is built but never run.
  const af::Node* gate = gated[0].op().node()->control_inputs()[0];
  BOOST_TEST(gate->control_inputs().size() == 1u);
  BOOST_TEST(gate->control_inputs()[0]->name() == "gradients_2/MatMul_grad/MatMul_1");
}

BOOST_AUTO_TEST_CASE(gradients_of_several_consumers_are_summed_with_add_n,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(3.0, "x");
  Output y = x * x + x * 4.0;  // dy/dx = 2x + 4 = 10
  Output dx = af::gradient(y, x);
  BOOST_TEST(dx.op().type() == "AddN");
  BOOST_TEST(dx.op().name() == "gradients/AddN");
  af::Session sess(g);
  BOOST_TEST(sess.run(dx).scalar<double>() == 10.0);
}

// tf.gradients' docstring: with stop_gradients=[a, b], d(a + b)/d[a, b] is [1, 1]; without,
// it is [3, 1] since b = 2a.
BOOST_AUTO_TEST_CASE(stop_gradients_give_partial_derivatives, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output a = g.constant(0.0f, "a");
  Output b = 2.0f * a;
  auto partial = af::gradients({a + b}, {a, b}, {}, {.stop_gradients = {a, b}});
  auto total = af::gradients({a + b}, {a, b});
  af::Session sess(g);
  BOOST_TEST(sess.run(partial[0]).scalar<float>() == 1.0f);
  BOOST_TEST(sess.run(partial[1]).scalar<float>() == 1.0f);
  BOOST_TEST(sess.run(total[0]).scalar<float>() == 3.0f);
  BOOST_TEST(sess.run(total[1]).scalar<float>() == 1.0f);
}

BOOST_AUTO_TEST_CASE(an_unconnected_x_gets_none_or_zeros, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(Tensor::from_vector(std::vector<float>{1, 2}), "x");
  Output z = g.constant(Tensor::from_vector(std::vector<float>{5, 6, 7}), "z");
  Output y = af::reduce_sum(x * x);
  auto none = af::gradients({y}, {x, z});
  BOOST_TEST(none[0].valid());
  BOOST_TEST(!none[1].valid());
  auto zero = af::gradients({y}, {z}, {}, {.unconnected_zero = true});
  af::Session sess(g);
  BOOST_TEST(sess.run(zero[0]).to_vector<float>() == std::vector<float>({0, 0, 0}),
             boost::test_tools::per_element());
  // An integer path (a shape) is never followed: the Size of x does not connect it.
  Output n = af::cast(af::size(af::identity(x) * 2.0f), DType::float32);
  BOOST_TEST(!af::gradient(n, x).valid());
}

BOOST_AUTO_TEST_CASE(given_grad_ys_weight_each_y, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3}), "x");
  Output y = x * x;
  Output w = g.constant(Tensor::from_vector(std::vector<float>{1, 0, -1}), "w");
  auto dx = af::gradients({y}, {x}, {w});
  BOOST_TEST(has_node(g, "gradients/grad_ys_0", "Identity"));
  af::Session sess(g);
  BOOST_TEST(sess.run(dx[0]).to_vector<float>() == std::vector<float>({2, 0, -6}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(af::gradients({y}, {x}, {w, w}), af::InvalidArgumentError);
}

// gradients_util.py raises LookupError("No gradient defined for operation '...' (op type: ...)").
BOOST_AUTO_TEST_CASE(an_op_without_a_gradient_fails_naming_it_and_its_type,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(Tensor::from_vector(std::vector<float>{1, 2}), "x");
  // _Delay (an actorflow op) has no gradient registered.
  Output y = af::delay(x, std::chrono::microseconds(1), "waiting");
  try {
    af::gradient(y, x);
    BOOST_FAIL("expected an error");
  } catch (const af::NotFoundError& e) {
    BOOST_TEST(std::string(e.what()).find(
                   "No gradient defined for operation 'waiting' (op type: _Delay)") !=
               std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(every_registered_gradient_passes_the_numeric_gradient_check,
                     *boost::unit_test::timeout(240)) {
  std::mt19937 rng(1234);
  for (const Case& c : gradient_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      af::Graph g;
      std::vector<Output> xs;
      std::vector<Tensor> values;
      for (std::size_t i = 0; i < c.shapes.size(); ++i) {
        xs.push_back(g.placeholder(DType::float64, c.shapes[i], "x" + std::to_string(i)));
        values.push_back(c.lo > 0 ? random_tensor(c.shapes[i], rng, c.lo, c.hi)
                                  : spread_tensor(c.shapes[i], rng, c.lo, c.hi));
      }
      Output y = c.build(g, xs);
      const double delta = y.op().type() == "Cast" ? 1e-3 : 1e-6;
      const double tolerance = y.op().type() == "Cast" ? 1e-3 : 1e-6;
      BOOST_TEST(gradient_error(g, xs, values, y, delta) < tolerance);
    }
  }
}

// math_grad.py's _ProdGrad multiplies exclusive cumulative products instead of dividing
// prod / x, so a zero gets the product of the others and a row with two zeros gets none.
// Values from TensorFlow 2.21 (tf.compat.v1 graph mode).
BOOST_AUTO_TEST_CASE(prod_gradient_is_exact_where_the_input_holds_zeros,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(
      Tensor::from_vector(std::vector<float>{0, 2, 3, 4, 0, 0, 1, 0, 5}, Shape{3, 3}), "x");
  af::Session sess(g);
  using V = std::vector<float>;
  BOOST_TEST(sess.run(af::gradient(af::reduce_prod(x, std::vector<std::int64_t>{1}), x))
                     .to_vector<float>() == V({6, 0, 0, 0, 0, 0, 0, 5, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(af::gradient(af::reduce_prod(x, std::vector<std::int64_t>{0}), x))
                     .to_vector<float>() == V({4, 0, 0, 0, 0, 15, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(af::gradient(af::reduce_prod(x), x)).to_vector<float>() == V(9, 0.0f),
             boost::test_tools::per_element());
  Output one_zero =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 0, 3}, Shape{2, 2}), "one_zero");
  BOOST_TEST(sess.run(af::gradient(af::reduce_prod(one_zero), one_zero)).to_vector<float>() ==
                 V({0, 0, 6, 0}),
             boost::test_tools::per_element());
}

// The shapes and offsets known only when running: _SliceGrad's and _PadGrad's paddings and
// begin computed by ops, _GatherV2Grad's shapes sliced from Shape(params), and
// _UnsortedSegmentSumGrad over data of unknown rows. Values from TensorFlow 2.21.
BOOST_AUTO_TEST_CASE(slice_pad_gather_and_segment_gradients_with_run_time_shapes_match_tensorflow,
                     *boost::unit_test::timeout(30)) {
  using V = std::vector<float>;
  af::Graph g;
  Output x = g.constant(
      Tensor::from_vector(std::vector<float>{0, 2, 3, 4, 0, 0, 1, 0, 5}, Shape{3, 3}), "x");
  Output begin = g.placeholder(DType::int32, af::PartialShape{2}, "begin");
  Output sliced =
      af::slice(x, begin, g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 2})));
  Output dy = g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), "dy");
  Output dx_slice = af::gradients({sliced}, {x}, {dy})[0];
  Output paddings = g.placeholder(DType::int32, af::PartialShape{2, 2}, "paddings");
  Output padded = af::pad(x, paddings);
  std::vector<float> ramp(24);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i);
  Output dz = g.constant(Tensor::from_vector(ramp, Shape{4, 6}), "dz");
  Output dx_pad = af::gradients({padded}, {x}, {dz})[0];
  Output data = g.placeholder(DType::float32, af::PartialShape{-1, 2}, "data");
  Output summed = af::unsorted_segment_sum(
      data, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, -1, 1, 0})), 3);
  Output du =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{3, 2}), "du");
  Output dd = af::gradients({summed}, {data}, {du})[0];
  Output params = g.placeholder(DType::float32, af::PartialShape{-1, 3}, "params");
  Output rows =
      af::gather(params, g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 0, 2})));
  std::vector<float> ramp9(9), ramp16(16);
  for (std::size_t i = 0; i < ramp9.size(); ++i) ramp9[i] = static_cast<float>(i + 1);
  for (std::size_t i = 0; i < ramp16.size(); ++i) ramp16[i] = static_cast<float>(i + 1);
  Output drows =
      af::gradients({rows}, {params}, {g.constant(Tensor::from_vector(ramp9, Shape{3, 3}))})[0];
  Output columns = af::gather(
      params, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 1, 0, 2}, Shape{2, 2})),
      1);
  Output dcolumns = af::gradients({columns}, {params},
                                  {g.constant(Tensor::from_vector(ramp16, Shape{4, 2, 2}))})[0];
  af::Session sess(g);
  af::FeedDict feeds{
      {begin, Tensor::from_vector(std::vector<std::int32_t>{1, 1})},
      {paddings, Tensor::from_vector(std::vector<std::int32_t>{1, 0, 2, 1}, Shape{2, 2})},
      {data, Tensor::from_vector(std::vector<float>(8, 1.0f), Shape{4, 2})}};
  BOOST_TEST(sess.run(dx_slice, feeds).to_vector<float>() == V({0, 0, 0, 0, 1, 2, 0, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(dx_pad, feeds).to_vector<float>() == V({8, 9, 10, 14, 15, 16, 20, 21, 22}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(dd, feeds).to_vector<float>() == V({3, 4, 0, 0, 3, 4, 1, 2}),
             boost::test_tools::per_element());
  std::vector<float> p(12);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<float>(i);
  feeds.push_back({params, Tensor::from_vector(p, Shape{4, 3})});
  BOOST_TEST(sess.run(drows, feeds).to_vector<float>() == V({4, 5, 6, 0, 0, 0, 8, 10, 12, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(dcolumns, feeds).to_vector<float>() ==
                 V({3, 3, 4, 7, 11, 8, 11, 19, 12, 15, 27, 16}),
             boost::test_tools::per_element());
}

// _SumGrad, _MeanGrad and _MinOrMaxGrad when the input's rank or the axes are known only at
// run time (a loop's output imported from a MetaGraphDef): math_ops.reduced_shape in the
// graph, a scalar's empty axes included.
BOOST_AUTO_TEST_CASE(reduction_gradients_with_run_time_rank_and_axes,
                     *boost::unit_test::timeout(30)) {
  using V = std::vector<float>;
  af::Graph g;
  Output x = g.placeholder(DType::float32, af::PartialShape(), "x");
  Output axes = g.placeholder(DType::int32, af::PartialShape{-1}, "axes");
  auto reduce = [&](const char* type) {
    return g
        .create_op(type, {x, axes},
                   {{"keep_dims", false}, {"T", DType::float32}, {"Tidx", DType::int32}})
        .output(0);
  };
  Output dsum = af::gradients({reduce("Sum")}, {x})[0];
  Output dmean = af::gradients({reduce("Mean")}, {x})[0];
  Output dmax = af::gradients({reduce("Max")}, {x})[0];
  Output dprod = af::gradients({reduce("Prod")}, {x})[0];
  af::Session sess(g);
  auto run = [&](const Output& d, const Tensor& xv, std::vector<std::int32_t> a) {
    return sess.run(d, {{x, xv}, {axes, Tensor::from_vector(a, Shape{std::ssize(a)})}})
        .to_vector<float>();
  };
  const Tensor m = Tensor::from_vector(V{1, 5, 5, 2, 0, 3}, Shape{2, 3});
  BOOST_TEST(run(dsum, m, {1}) == V({1, 1, 1, 1, 1, 1}), boost::test_tools::per_element());
  BOOST_TEST(run(dsum, m, {-1, 0}) == V({1, 1, 1, 1, 1, 1}), boost::test_tools::per_element());
  BOOST_TEST(run(dmean, m, {0}) == V({0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(run(dmax, m, {1}) == V({0, 0.5f, 0.5f, 0, 0, 1}), boost::test_tools::per_element());
  BOOST_TEST(run(dsum, Tensor(4.0f), {}) == V({1}), boost::test_tools::per_element());
  // Prod: the product of the other reduced elements, zeros exact (no division).
  BOOST_TEST(run(dprod, m, {1}) == V({25, 5, 5, 0, 6, 0}), boost::test_tools::per_element());
  BOOST_TEST(run(dprod, m, {0, -1}) == V({0, 0, 0, 0, 150, 0}), boost::test_tools::per_element());
  const Tensor cube = Tensor::from_vector(V{1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2});
  BOOST_TEST(run(dprod, cube, {2, 0}) == V({60, 30, 224, 168, 12, 10, 96, 84}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_differentiable_op_type_has_a_registered_gradient,
                     *boost::unit_test::timeout(30)) {
  auto& registry = af::GradientRegistry::global();
  for (const char* type : {"Add",
                           "Sub",
                           "Mul",
                           "RealDiv",
                           "Neg",
                           "AddN",
                           "MatMul",
                           "Sum",
                           "Mean",
                           "Max",
                           "Min",
                           "Relu",
                           "Sigmoid",
                           "Tanh",
                           "Softmax",
                           "LogSoftmax",
                           "Square",
                           "Sqrt",
                           "Rsqrt",
                           "Exp",
                           "Sin",
                           "Cos",
                           "IdentityN",
                           "Log",
                           "Reciprocal",
                           "Abs",
                           "Maximum",
                           "Minimum",
                           "Pow",
                           "SquaredDifference",
                           "L2Loss",
                           "Cast",
                           "Identity",
                           "Reshape",
                           "ExpandDims",
                           "Squeeze",
                           "ConcatV2",
                           "Pack",
                           "Unpack",
                           "Transpose",
                           "Tile",
                           "Select",
                           "Fill",
                           "BiasAdd",
                           "Conv2D",
                           "MaxPool",
                           "AvgPool",
                           "SoftmaxCrossEntropyWithLogits",
                           "SparseSoftmaxCrossEntropyWithLogits",
                           "CheckNumerics",
                           "StopGradient",
                           "Shape",
                           "Size",
                           "Equal",
                           "ArgMax",
                           "GatherV2",
                           "Slice",
                           "Pad",
                           "UnsortedSegmentSum",
                           "Prod",
                           "Log1p",
                           "Expm1",
                           "Erf",
                           "Atan2",
                           "Xlogy",
                           "Cumsum",
                           "Softplus",
                           "Elu",
                           "Selu",
                           "Relu6",
                           "Split",
                           "SplitV",
                           "ReverseV2",
                           "FusedBatchNormV3"})
    BOOST_TEST(registry.contains(type), type);
}

BOOST_AUTO_TEST_CASE(stop_gradient_blocks_the_walk, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(2.0f, "x");
  Output y = x * af::stop_gradient(x);  // d/dx = stop(x) = 2
  af::Session sess(g);
  BOOST_TEST(sess.run(af::gradient(y, x)).scalar<float>() == 2.0f);
}

// colocate_gradients_with_ops: each op's gradient ops are colocated with the op, so a
// gradient is computed where its forward op runs (a ps task's variable, another device).
BOOST_AUTO_TEST_CASE(colocated_gradients_take_their_ops_device, *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output x = g.constant(Tensor::from_vector(std::vector<float>{1, 2}), "x");
  Output h;
  {
    auto on = g.device("/job:ps/task:1");
    h = af::square(x, "h");
  }
  Output y = af::reduce_sum(h * 3.0f, std::nullopt, false, "y");
  auto colocated = af::gradients({y}, {x}, {}, {.colocate_gradients_with_ops = true});
  auto plain = af::gradients({y}, {x});
  BOOST_TEST(colocated[0].op().name() == "gradients/h_grad/Mul_1");
  BOOST_TEST(colocated[0].op().device() == "/job:ps/task:1");
  const auto* groups = colocated[0].op().node_def().attr<std::vector<std::string>>("_class");
  BOOST_REQUIRE(groups != nullptr);
  BOOST_TEST(groups->at(0) == "loc:@h");
  BOOST_TEST(plain[0].op().device().empty());
}

// tf.compat.v1.nn.softmax_cross_entropy_with_logits wraps its labels in
// `stop_gradient(labels, name="labels_stop_gradient")` under the scope
// "softmax_cross_entropy_with_logits_sg" (tensorflow/python/ops/nn_ops.py): no gradient
// reaches the labels. The _v2 form back-propagates into them: -g * log_softmax(logits).
BOOST_AUTO_TEST_CASE(xent_v1_stops_the_labels_gradient_and_v2_does_not,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  Output logits =
      g.constant(Tensor::from_vector(std::vector<float>{1.0f, 2.0f, 0.5f}, Shape{1, 3}), "logits");
  Output labels =
      g.constant(Tensor::from_vector(std::vector<float>{0.2f, 0.7f, 0.1f}, Shape{1, 3}), "labels");
  Output v1 = af::nn::softmax_cross_entropy_with_logits(labels, logits);
  BOOST_TEST(v1.node()->name() == "softmax_cross_entropy_with_logits_sg");
  BOOST_TEST(g.contains("softmax_cross_entropy_with_logits_sg/labels_stop_gradient"));
  auto g1 = af::gradients({v1}, {logits, labels});
  BOOST_TEST(g1[0].valid());
  BOOST_TEST(!g1[1].valid());  // TensorFlow's None

  Output v2 = af::nn::softmax_cross_entropy_with_logits_v2(labels, logits);
  BOOST_TEST(v2.node()->name() == "softmax_cross_entropy_with_logits");
  auto g2 = af::gradients({v2}, {logits, labels});
  BOOST_REQUIRE(g2[1].valid());
  af::Session sess(g);
  auto values = sess.run({v1, v2, g1[0], g2[0], g2[1]});
  BOOST_TEST(values[0].to_vector<float>()[0] == values[1].to_vector<float>()[0]);
  const std::vector<float> x = {1.0f, 2.0f, 0.5f};
  const float lse = std::log(std::exp(x[0]) + std::exp(x[1]) + std::exp(x[2]));
  const std::vector<float> want = {lse - x[0], lse - x[1], lse - x[2]};  // -log_softmax
  auto d_labels = values[4].to_vector<float>();
  for (int i = 0; i < 3; ++i)
    BOOST_TEST(d_labels[i] == want[i], boost::test_tools::tolerance(1e-5f));
  auto d1 = values[2].to_vector<float>(), d2 = values[3].to_vector<float>();
  for (int i = 0; i < 3; ++i) BOOST_TEST(d1[i] == d2[i]);  // the logits' gradient is the same
}

BOOST_AUTO_TEST_SUITE_END()
