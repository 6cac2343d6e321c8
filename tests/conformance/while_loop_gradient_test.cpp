// `af::gradients` through loops built by `af::while_loop`: TensorFlow 1.x's gradient loops
// (control_flow_state.py). A loop's gradient runs as a second loop of as many iterations,
// in reverse, reading each forward iteration's values from stacks. Checked against the
// closed forms of simple loops, central differences (a matrix recurrence, nested loops, a
// cond in a loop, a bounded loop), TensorFlow's names for the gradient loop's nodes, and a
// recurrence built here and trained from TensorFlow's checkpoint to TensorFlow's losses
// (tests/data/tf_graph/while/train, make_graph_fixtures.py make-while-train).
#include <actorflow/actorflow.hpp>
#include <actorflow/formats/meta_graph.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "graph_compare.hpp"
#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using Vars = std::vector<Output>;

const std::filesystem::path train_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "while" / "train";

Output scalar_placeholder(af::Graph& g, af::DType dtype, const std::string& name) {
  return g.placeholder(dtype, af::PartialShape(af::Shape{}), name);
}

/// The largest difference between d(sum y)/dx from the backward graph and central
/// differences, over every element of the float64 placeholder `x` fed `value`.
double gradient_error(af::Graph& g, const Output& x, const Tensor& value, const Output& y,
                      af::FeedDict others = {}) {
  const Output loss = af::reduce_sum(y);
  const Output grad = af::gradients({loss}, {x})[0];
  af::Session sess(g);
  af::FeedDict feeds = others;
  feeds.push_back({x, value});
  const Tensor theoretical = sess.run(grad, feeds);
  BOOST_REQUIRE(theoretical.shape() == value.shape());
  double worst = 0;
  for (std::int64_t i = 0; i < value.num_elements(); ++i) {
    auto at = [&](double shift) {
      Tensor moved = value.deep_copy();
      moved.data<double>()[i] += shift;
      af::FeedDict f = others;
      f.push_back({x, moved});
      return sess.run(loss, f).scalar<double>();
    };
    const double delta = 1e-6;
    const double numeric = (at(delta) - at(-delta)) / (2 * delta);
    worst = std::max(worst, std::abs(numeric - theoretical.data<double>()[i]));
  }
  return worst;
}

/// Checks the nodes of the loop's gradient against TensorFlow's (`theirs`): every node of
/// TensorFlow's named "gradients/rnn/..." or of the counters ("gradients/f_count",
/// "gradients/b_count", their Merges, Switches, ...) is in `g`, as `expect_same_node`
/// compares them.
void expect_tensorflows_gradient_loop(af::Graph& g, const af::GraphDef& theirs) {
  const std::set<std::string> counters = {"gradients/f_count",
                                          "gradients/f_count_1",
                                          "gradients/f_count_2",
                                          "gradients/Merge",
                                          "gradients/Switch",
                                          "gradients/Add/y",
                                          "gradients/Add",
                                          "gradients/NextIteration",
                                          "gradients/b_count",
                                          "gradients/b_count_1",
                                          "gradients/Merge_1",
                                          "gradients/GreaterEqual",
                                          "gradients/GreaterEqual/Enter",
                                          "gradients/b_count_2",
                                          "gradients/Switch_1",
                                          "gradients/Sub",
                                          "gradients/NextIteration_1",
                                          "gradients/b_count_3"};
  int compared = 0;
  for (const auto& t : theirs.nodes) {
    if (t.name.rfind("gradients/rnn/", 0) != 0 && !counters.count(t.name)) continue;
    BOOST_TEST_CONTEXT("node " << t.name) {
      BOOST_TEST_REQUIRE(g.contains(t.name), "missing");
      af::test::expect_same_node(g.operation(t.name).node()->def(), t);
      ++compared;
    }
  }
  BOOST_TEST(compared > 80);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(while_loop_gradient_test)

// a = a0 * x^n: d a / d x = n a0 x^(n-1) (x a loop invariant: an accumulator sums each
// iteration's part), d a / d a0 = x^n (a loop variable: its gradient leaves the gradient
// loop); no iteration gives 0 and 1. The gradient loop has TensorFlow's nodes.
BOOST_AUTO_TEST_CASE(a_power_loop_has_the_closed_form_gradients, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = scalar_placeholder(g, af::float64, "x");
  const Output a0 = scalar_placeholder(g, af::float64, "a0");
  const Output n = scalar_placeholder(g, af::int32, "n");
  Vars out = af::while_loop([&](const Vars& v) { return af::less(v[0], n); },
                            [&](const Vars& v) {
                              return Vars{v[0] + 1, v[1] * x};
                            },
                            {g.constant(0), a0});
  Vars grads = af::gradients({out[1]}, {x, a0});
  // TensorFlow's gradient loop, by name.
  BOOST_TEST(g.operation("gradients/f_count").node()->type() == "Const");
  BOOST_TEST(g.operation("gradients/f_count_1").node()->type() == "Enter");
  BOOST_TEST(*g.operation("gradients/f_count_1").node()->def().attr<std::string>("frame_name") ==
             "while/while_context");
  BOOST_TEST(g.operation("gradients/f_count_2").node()->type() == "Exit");
  BOOST_TEST(g.operation("gradients/b_count_2").node()->type() == "LoopCond");
  BOOST_TEST(*g.operation("gradients/b_count_1").node()->def().attr<std::string>("frame_name") ==
             "gradients/while/while_context");
  BOOST_TEST(g.operation("gradients/while/Exit_1_grad/b_exit").node()->type() == "Enter");
  BOOST_TEST(g.operation("gradients/while/Switch_1_grad/b_switch").node()->type() == "Merge");
  BOOST_TEST(g.operation("gradients/while/Merge_1_grad/Switch").node()->type() == "Switch");
  BOOST_TEST(g.operation("gradients/while/Enter_1_grad/Exit").node()->type() == "Exit");
  BOOST_TEST(g.operation("gradients/while/mul_grad/Mul_1/f_acc").node()->type() == "StackV2");
  BOOST_TEST(g.operation("gradients/while/mul_grad/Mul_1/StackPushV2").node()->type() ==
             "StackPushV2");
  BOOST_TEST(g.operation("gradients/while/mul_grad/Mul_1/StackPopV2").node()->type() ==
             "StackPopV2");
  BOOST_TEST(g.operation("gradients/while/mul/Enter_grad/b_acc").node()->type() == "Const");
  af::Session sess(g);
  for (int steps : {0, 1, 3, 7}) {
    BOOST_TEST_CONTEXT("n = " << steps) {
      auto r = sess.run({out[1], grads[0], grads[1]},
                        {{x, Tensor(1.5)}, {a0, Tensor(2.0)}, {n, Tensor(steps)}});
      BOOST_TEST(r[0].scalar<double>() == 2.0 * std::pow(1.5, steps),
                 boost::test_tools::tolerance(1e-12));
      BOOST_TEST(
          r[1].scalar<double>() == (steps == 0 ? 0.0 : 2.0 * steps * std::pow(1.5, steps - 1)),
          boost::test_tools::tolerance(1e-12));
      BOOST_TEST(r[2].scalar<double>() == std::pow(1.5, steps),
                 boost::test_tools::tolerance(1e-12));
    }
  }
}

// h <- tanh(h W + b) three times: the gradients with respect to W, b and h0 match central
// differences (values of each iteration come back off the stacks in reverse).
BOOST_AUTO_TEST_CASE(a_matrix_recurrence_matches_central_differences,
                     *boost::unit_test::timeout(120)) {
  const Tensor w = Tensor::from_vector<double>({0.5, -0.3, 0.8, 0.2}, af::Shape{2, 2});
  const Tensor b = Tensor::from_vector<double>({0.1, -0.2}, af::Shape{1, 2});
  const Tensor h0 = Tensor::from_vector<double>({0.3, -0.7, 0.9, 0.4}, af::Shape{2, 2});
  for (int which = 0; which < 3; ++which) {
    af::Graph g;
    const Output wp = g.placeholder(af::float64, af::PartialShape{2, 2}, "w");
    const Output bp = g.placeholder(af::float64, af::PartialShape{1, 2}, "b");
    const Output hp = g.placeholder(af::float64, af::PartialShape{-1, 2}, "h0");
    Vars out = af::while_loop([&](const Vars& v) { return af::less(v[0], g.constant(3)); },
                              [&](const Vars& v) {
                                return Vars{v[0] + 1, af::tanh(af::matmul(v[1], wp) + bp)};
                              },
                              {g.constant(0), hp});
    const Output y = af::square(out[1]);
    const std::vector<Output> xs = {wp, bp, hp};
    const std::vector<Tensor> values = {w, b, h0};
    af::FeedDict others;
    for (int k = 0; k < 3; ++k)
      if (k != which)
        others.push_back({xs[static_cast<std::size_t>(k)], values[static_cast<std::size_t>(k)]});
    BOOST_TEST_CONTEXT("input " << which) {
      BOOST_TEST(gradient_error(g, xs[static_cast<std::size_t>(which)],
                                values[static_cast<std::size_t>(which)], y, others) < 1e-6);
    }
  }
}

// A loop in a loop: a <- a * x four times over (2 x 2 iterations); the inner loop's
// gradient loop runs once per outer gradient iteration, its count kept on a stack.
BOOST_AUTO_TEST_CASE(nested_loops_differentiate, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = scalar_placeholder(g, af::float64, "x");
  Vars out = af::while_loop([&](const Vars& v) { return af::less(v[0], g.constant(2)); },
                            [&](const Vars& v) {
                              Vars inner = af::while_loop(
                                  [&](const Vars& w) { return af::less(w[0], v[0] + 1); },
                                  [&](const Vars& w) {
                                    return Vars{w[0] + 1, w[1] * x};
                                  },
                                  {g.constant(0), v[1]}, {.name = "inner"});
                              return Vars{v[0] + 1, inner[1]};
                            },
                            {g.constant(0), g.constant(1.0)});
  // Iterations: i = 0 runs the inner loop once, i = 1 twice: a = x^3.
  const Output grad = af::gradients({out[1]}, {x})[0];
  af::Session sess(g);
  auto r = sess.run({out[1], grad}, {{x, Tensor(1.5)}});
  BOOST_TEST(r[0].scalar<double>() == std::pow(1.5, 3), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r[1].scalar<double>() == 3 * std::pow(1.5, 2), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(gradient_error(g, x, Tensor(0.8), out[1]) < 1e-6);
}

// A cond in the body: which branch ran in each iteration is kept with the values, so the
// gradient loop takes the same branches in reverse.
BOOST_AUTO_TEST_CASE(a_cond_in_a_loop_differentiates, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.placeholder(af::float64, af::PartialShape{2}, "x");
  const Output c = scalar_placeholder(g, af::float64, "c");
  Vars out =
      af::while_loop([&](const Vars& v) { return af::less(v[0], g.constant(4)); },
                     [&](const Vars& v) {
                       const Output big = af::greater(af::reduce_sum(v[1]), g.constant(1.0));
                       Output next = af::cond(
                           big, [&] { return v[1] * c; }, [&] { return af::square(v[1]) + c; });
                       return Vars{v[0] + 1, next};
                     },
                     {g.constant(0), x});
  BOOST_TEST(gradient_error(g, x, Tensor::from_vector<double>({0.3, 0.4}), out[1],
                            {{c, Tensor(0.9)}}) < 1e-6);
  BOOST_TEST(gradient_error(g, c, Tensor(0.9), out[1],
                            {{x, Tensor::from_vector<double>({0.3, 0.4})}}) < 1e-6);
}

// maximum_iterations' hidden counter is a loop variable without a gradient.
BOOST_AUTO_TEST_CASE(a_bounded_loop_differentiates, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = scalar_placeholder(g, af::float64, "x");
  Output r = af::while_loop([&](const Output& a) { return af::less(a, g.constant(100.0)); },
                            [&](const Output& a) { return a * x; }, x, {.maximum_iterations = 3});
  const Output grad = af::gradients({r}, {x})[0];
  af::Session sess(g);
  // x = 2: 2 -> 4 -> 8 -> 16, r = x^4.
  BOOST_TEST(sess.run(grad, {{x, Tensor(2.0)}}).scalar<double>() == 4 * 8.0,
             boost::test_tools::tolerance(1e-12));
}

// TensorFlow's recurrence (make_graph_fixtures.py make-while-train) built with while_loop,
// restored from TensorFlow's checkpoint and trained with GradientDescent through its
// gradient loop: TensorFlow's losses, also with more iterations than it was saved with.
BOOST_AUTO_TEST_CASE(a_recurrence_trains_to_tensorflows_losses, *boost::unit_test::timeout(120)) {
  std::ifstream in(train_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape{-1, 4}, "x");
  const Output y = g.placeholder(af::int64, af::PartialShape{-1}, "y");
  const Output steps =
      g.create_op("PlaceholderWithDefault", {g.constant(3, "steps/input")},
                  {{"dtype", af::int32}, {"shape", af::PartialShape(af::Shape{})}}, "steps")
          .output(0);
  auto variable = [&](const std::string& name, af::Shape shape) {
    return g.variable(Tensor(af::float32, shape), {.name = name});
  };
  af::Variable w = variable("in/kernel", af::Shape{4, 8});
  af::Variable u = variable("rec/kernel", af::Shape{8, 8});
  af::Variable v = variable("out/kernel", af::Shape{8, 3});
  const Output h0 = af::tanh(af::matmul(x, w));
  Vars out = af::while_loop([&](const Vars& s) { return af::less(s[0], steps); },
                            [&](const Vars& s) {
                              return Vars{s[0] + 1, af::tanh(af::matmul(s[1], u) + h0)};
                            },
                            {g.constant(0), h0}, {.name = "rnn"});
  const Output logits = af::matmul(out[1], v);
  const Output loss = af::reduce_mean(af::nn::sparse_softmax_cross_entropy_with_logits(y, logits));
  af::Variable step = af::train::get_or_create_global_step(g);
  af::train::GradientDescentOptimizer opt(0.5);
  af::Operation train = opt.minimize(loss, step);
  af::train::Saver saver(g);
  expect_tensorflows_gradient_loop(
      g, af::read_meta_graph_def((train_dir / "model-3.meta").string()).graph_def);
  af::Session sess(g);
  sess.run({}, {}, {g.global_variables_initializer()});
  saver.restore(sess, (train_dir / ref["prefix"].get<std::string>()).string());
  std::vector<float> xs;
  for (const auto& row : ref["x"])
    for (const auto& val : row) xs.push_back(val.get<float>());
  const Tensor xv =
      Tensor::from_vector(xs, af::Shape{static_cast<std::int64_t>(ref["x"].size()), 4});
  const Tensor yv = Tensor::from_vector(ref["y"].get<std::vector<std::int64_t>>());
  for (std::size_t i = 0; i < 3; ++i) {
    const float got = sess.run({loss}, {{x, xv}, {y, yv}}, {train})[0].scalar<float>();
    BOOST_TEST(got == ref["losses_after_restore"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const float got =
        sess.run({loss}, {{x, xv}, {y, yv}, {steps, Tensor(5)}}, {train})[0].scalar<float>();
    BOOST_TEST(got == ref["losses_5_steps"][i].get<float>(), boost::test_tools::tolerance(1e-5f));
  }
  BOOST_TEST(sess.run(step.value()).scalar<std::int64_t>() == 8);
}

// Gradients built inside a loop body: with respect to the body's variable they stay in the
// loop; with respect to a loop variable's initial value they are refused with TensorFlow's
// message.
BOOST_AUTO_TEST_CASE(gradients_inside_a_loop_body, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = scalar_placeholder(g, af::float64, "x");
  std::string refused;
  Output r = af::while_loop([&](const Output& a) { return af::less(a, g.constant(10.0)); },
                            [&](const Output& a) {
                              refused = af::test::error_of([&] { af::gradients({a * a}, {x}); });
                              return a + af::gradients({a * x}, {a})[0];
                            },
                            x);
  BOOST_TEST(refused.find("Cannot compute gradient inside while loop with respect to op 'x'. We "
                          "do not support taking the gradient wrt or through the initial value "
                          "of a loop variable.") != std::string::npos,
             refused);
  af::Session sess(g);
  BOOST_TEST(sess.run(r, {{x, Tensor(1.0)}}).scalar<double>() == 10.0);
  BOOST_TEST(sess.run(r, {{x, Tensor(4.0)}}).scalar<double>() == 12.0);
}

// Loops without a WhileContext (an imported graph's) are still refused, by name.
BOOST_AUTO_TEST_CASE(an_imported_loop_is_refused, *boost::unit_test::timeout(60)) {
  af::Graph built;
  const Output x = scalar_placeholder(built, af::float32, "x");
  af::while_loop([&](const Output& a) { return af::less(a, built.constant(10.0f)); },
                 [&](const Output& a) { return a * x; }, x);
  af::Graph g;
  af::import_graph_def(g, built.to_graph_def(), {.name = ""});
  const std::string e =
      af::test::error_of([&] { af::gradients({g.output("while/Exit")}, {g.output("x")}); });
  BOOST_TEST(e.find("not built by while_loop") != std::string::npos, e);
}

BOOST_AUTO_TEST_SUITE_END()
