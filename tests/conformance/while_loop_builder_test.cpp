// `af::while_loop`, TensorFlow 1.x's `tf.compat.v1.while_loop` (control flow v1): the loops
// of TensorFlow's fixture (tests/data/tf_graph/while, make_graph_fixtures.py make-while)
// built here come out node for node as TensorFlow 2.21 wrote them and give its values;
// maximum_iterations, shape invariants, control dependencies around and inside a loop
// (TensorFlow's graph for them, from the same TensorFlow), the ops a session may not fetch
// or feed, tensors used across loops, and the errors for malformed loops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
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
using af::test::error_of;
using Vars = std::vector<Output>;

const std::filesystem::path while_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "while";

/// `op(x, number)` named as TensorFlow's Python names it: the number is "<op>/y".
template <class Fn>
Output with_number(const Output& x, double number, const char* op, Fn fn) {
  return af::detail::with_scalar(x, number, false, op,
                                 [&](auto& a, auto& b, auto name) { return fn(a, b, name); });
}

/// make_graph_fixtures.py make-while, built with `while_loop` and `cond`.
void build_tensorflows_fixture(af::Graph& g) {
  const Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  const Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
  auto i_below_n = [&](const Vars& v) { return af::less(v[0], n); };
  // A counter and an accumulator, with x a loop invariant.
  Vars sum = af::while_loop(i_below_n,
                            [&](const Vars& v) {
                              return Vars{v[0] + 1, v[1] + x * af::cast(v[0], af::float32)};
                            },
                            {g.constant(0), af::zeros(g, af::Shape{3})}, {.name = "sum"});
  af::identity(sum[1], "sum_out");
  // Nested loops: the inner loop's bound is the outer loop's variable.
  Vars nested = af::while_loop(i_below_n,
                               [&](const Vars& v) {
                                 Vars inner = af::while_loop(
                                     [&](const Vars& w) { return af::less_equal(w[0], v[0]); },
                                     [&](const Vars& w) {
                                       return Vars{w[0] + 1, w[1] + w[0]};
                                     },
                                     {g.constant(0), v[1]}, {.name = "inner"});
                                 return Vars{v[0] + 1, inner[1]};
                               },
                               {g.constant(0), g.constant(0)}, {.name = "outer"});
  af::identity(nested[1], "nested_out");
  // One iteration at a time, a matrix product per iteration.
  const Output w = g.constant(Tensor::from_vector<float>(
      {0.5f, 0.2f, 0.0f, 0.1f, 0.6f, 0.3f, 0.0f, 0.4f, 0.7f}, af::Shape{3, 3}));
  Vars power = af::while_loop(i_below_n,
                              [&](const Vars& v) {
                                return Vars{v[0] + 1, af::tanh(af::matmul(w, v[1]) + 0.1f)};
                              },
                              {g.constant(0), af::reshape(x, {3, 1})},
                              {.parallel_iterations = 1, .name = "power"});
  af::identity(power[1], "power_out");
  // A loop in a cond branch.
  const Output p =
      g.create_op("PlaceholderWithDefault", {g.constant(true, "p/input")},
                  {{"dtype", af::boolean}, {"shape", af::PartialShape(af::Shape{})}}, "p")
          .output(0);
  Output in_cond = af::cond(
      p,
      [&] {
        return af::while_loop([&](const Output& i) { return af::less(i, n); },
                              [&](const Output& i) { return i + 2; }, g.constant(0),
                              {.name = "by_two"});
      },
      [&] { return n * 10; }, "loop_in_cond");
  af::identity(in_cond, "loop_in_cond_out");
  // A cond in a loop body: the steps of the Collatz sequence from n.
  Vars collatz =
      af::while_loop([&](const Vars& v) { return with_number(v[0], 1, "Greater", af::greater); },
                     [&](const Vars& v) {
                       const Output even = with_number(
                           with_number(v[0], 2, "FloorMod", af::floormod), 0, "Equal", af::equal);
                       Output next = af::cond(
                           even, [&] { return with_number(v[0], 2, "floordiv", af::floordiv); },
                           [&] { return 3 * v[0] + 1; });
                       return Vars{next, v[1] + 1};
                     },
                     {n, g.constant(0)}, {.name = "collatz"});
  af::identity(collatz[1], "collatz_out");
  // A variable assigned in every iteration (a RefEnter of its reference).
  af::Variable counter =
      g.variable([](af::Graph& gg) { return gg.constant(Tensor(std::int32_t{0}), "zeros"); },
                 {.name = "counter"});
  Output counted = af::while_loop([&](const Output& i) { return af::less(i, n); },
                                  [&](const Output& i) {
                                    const std::string op = g.unique_name("AssignAdd", false);
                                    Output added = counter.assign_add(g.constant(1, op + "/value/"),
                                                                      "AssignAdd");
                                    auto deps = g.control_dependencies({added.op()});
                                    return i + 1;
                                  },
                                  g.constant(0), {.name = "count"});
  af::identity(counted, "count_out");
  g.global_variables_initializer();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(while_loop_builder_test)

// The fixture's loops built here are TensorFlow's graph, and run to TensorFlow's values;
// so does the graph after a GraphDef round trip.
BOOST_AUTO_TEST_CASE(builds_tensorflows_loops_and_gives_its_values,
                     *boost::unit_test::timeout(120)) {
  af::Graph g;
  build_tensorflows_fixture(g);
  af::test::expect_tensorflows_nodes(g.to_graph_def(),
                                     af::read_graph_def((while_dir / "graph.pb").string()));
  af::Graph copy;
  af::import_graph_def(copy, g.to_graph_def(), {.name = ""});
  std::ifstream in(while_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  const Tensor x = Tensor::from_vector(ref["x"].get<std::vector<float>>());
  for (af::Graph* graph : {&g, &copy}) {
    af::Session sess(*graph);
    sess.run({}, {}, {graph->operation("init")});
    for (const auto& run : ref["runs"]) {
      const int n = run["n"].get<int>();
      BOOST_TEST_CONTEXT("n = " << n << (graph == &g ? "" : ", imported")) {
        Vars fetches;
        for (const char* name :
             {"sum_out", "nested_out", "power_out", "loop_in_cond_out", "collatz_out", "count_out"})
          fetches.push_back(graph->output(name));
        auto out = sess.run(fetches, {{graph->output("n"), Tensor(n)}, {graph->output("x"), x}});
        BOOST_TEST(out[0].to_vector<float>() == run["sum"].get<std::vector<float>>(),
                   boost::test_tools::per_element());
        BOOST_TEST(out[1].scalar<std::int32_t>() == run["nested"].get<int>());
        const auto got = out[2].to_vector<float>();
        BOOST_TEST_REQUIRE(got.size() == run["power"].size());
        for (std::size_t k = 0; k < got.size(); ++k)
          BOOST_TEST(got[k] == run["power"][k][0].get<float>(),
                     boost::test_tools::tolerance(1e-5f));
        BOOST_TEST(out[3].scalar<std::int32_t>() == run["in_cond"].get<int>());
        BOOST_TEST(out[4].scalar<std::int32_t>() == run["collatz"].get<int>());
        BOOST_TEST(out[5].scalar<std::int32_t>() == run["count"].get<int>());
        auto other =
            sess.run(graph->output("loop_in_cond_out"),
                     {{graph->output("n"), Tensor(n)}, {graph->output("p"), Tensor(false)}});
        BOOST_TEST(other.scalar<std::int32_t>() == run["not_in_cond"].get<int>());
        BOOST_TEST(sess.run(graph->output("counter")).scalar<std::int32_t>() ==
                   run["counter"].get<int>());
      }
    }
  }
}

// maximum_iterations: a hidden counter "while/iteration_counter" and its bound
// "while/maximum_iterations" (an int32 Const, or the tensor given) stop the loop early.
BOOST_AUTO_TEST_CASE(maximum_iterations_stops_the_loop, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  Output r =
      af::while_loop([&](const Output& a) { return with_number(a, 100.0, "Less", af::less); },
                     [&](const Output& a) { return a * 2.0f; }, x, {.maximum_iterations = 3});
  // TensorFlow's graph (tf.compat.v1.while_loop(..., maximum_iterations=3)).
  const std::map<std::string, std::vector<std::string>> expected = {
      {"while/maximum_iterations", {}},
      {"while/iteration_counter", {}},
      {"while/Enter", {"while/iteration_counter"}},
      {"while/Less", {"while/Merge", "while/Less/Enter"}},
      {"while/Less/Enter", {"while/maximum_iterations"}},
      {"while/Less_1/y", {"^while/Merge"}},
      {"while/Less_1", {"while/Merge_1", "while/Less_1/y"}},
      {"while/LogicalAnd", {"while/Less", "while/Less_1"}},
      {"while/add/y", {"^while/Identity"}},
      {"while/add", {"while/Identity", "while/add/y"}},
      {"while/mul/y", {"^while/Identity"}},
      {"while/mul", {"while/Identity_1", "while/mul/y"}},
      {"while/NextIteration_1", {"while/mul"}},
  };
  for (const auto& [name, inputs] : expected)
    BOOST_TEST(g.operation(name).node()->def().inputs == inputs, name);
  BOOST_TEST(g.output("while/maximum_iterations").dtype() == af::int32);
  af::Session sess(g);
  BOOST_TEST(sess.run(r, {{x, Tensor(1.0f)}}).scalar<float>() == 8.0f);     // 3 iterations
  BOOST_TEST(sess.run(r, {{x, Tensor(30.0f)}}).scalar<float>() == 120.0f);  // the condition
  // The bound as an int64 tensor, with a condition that always holds.
  const Output bound = g.constant(Tensor(std::int64_t{3}));
  Output r2 = af::while_loop([&](const Output&) { return g.constant(true); },
                             [&](const Output& a) { return a + 1.0f; }, x,
                             {.maximum_iterations_tensor = bound, .name = "w4"});
  BOOST_TEST(g.output("w4/iteration_counter").dtype() == af::int64);
  BOOST_TEST(
      (g.operation("w4/Const").node()->def().inputs == std::vector<std::string>{"^w4/Merge"}));
  BOOST_TEST(sess.run(r2, {{x, Tensor(1.0f)}}).scalar<float>() == 4.0f);
  // A bound must be a scalar.
  const std::string e = error_of([&] {
    af::while_loop(
        [&](const Output& a) { return with_number(a, 1.0, "Less", af::less); },
        [&](const Output& a) { return a; }, x,
        {.maximum_iterations_tensor = g.constant(Tensor::from_vector<std::int32_t>({3}))});
  });
  BOOST_TEST(
      e.find("'maximum_iterations' must be a scalar. Received shape: (1,)") != std::string::npos,
      e);
}

// A loop variable that changes shape needs a shape invariant: the Enter, Merge and Exit
// take it; without one the loop is refused with TensorFlow's message, and an invariant the
// initial value does not fit too.
BOOST_AUTO_TEST_CASE(shape_invariants_let_a_loop_variable_grow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output start = af::zeros(g, af::Shape{1});
  auto small = [&](const Output& a) { return with_number(af::size(a), 10, "Less", af::less); };
  auto doubled = [&](const Output& a) { return af::concat({a, a}, 0); };
  Output r = af::while_loop(small, doubled, start, {.shape_invariants = {af::PartialShape{-1}}});
  BOOST_TEST(g.output("while/Enter").shape() == af::PartialShape{-1});
  BOOST_TEST(g.output("while/Merge").shape() == af::PartialShape{-1});
  BOOST_TEST(r.shape() == af::PartialShape{-1});
  af::Session sess(g);
  BOOST_TEST(sess.run(r).shape() == af::Shape{16});
  std::string e = error_of([&] { af::while_loop(small, doubled, start); });
  BOOST_TEST(e.find("Input tensor 'zeros:0' enters the loop with shape (1,), but has shape (2,) "
                    "after one iteration. To allow the shape to vary across iterations, use the "
                    "`shape_invariants` argument") != std::string::npos,
             e);
  e = error_of(
      [&] { af::while_loop(small, doubled, start, {.shape_invariants = {af::PartialShape{2}}}); });
  BOOST_TEST(e.find("The shape invariant specified for zeros:0 is not compatible with the "
                    "initial shape of the loop variable. It enters the loop with shape (1,), but "
                    "the specified shape invariant is (2,).") != std::string::npos,
             e);
}

// Control dependencies around a loop reach its Enters; inside it, one on an op outside
// becomes one on an Identity of its output made in the loop (a NoOp's is dropped), as
// TensorFlow 2.21 builds them; a body returning a tensor from outside gets an Enter.
BOOST_AUTO_TEST_CASE(control_dependencies_around_and_inside_a_loop,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  const Output c = g.constant(1.0f, "c");
  const af::Operation d = g.no_op("d");
  auto below_ten = [&](const Output& a) { return with_number(a, 10.0, "Less", af::less); };
  Output r;
  {
    auto deps = g.control_dependencies({c.op(), d});
    r = af::while_loop(
        below_ten, [&](const Output& a) { return a + x; }, x);
  }
  Output r2 = af::while_loop(below_ten,
                             [&](const Output& a) {
                               auto deps = g.control_dependencies({c.op()});
                               return a * 2.0f;
                             },
                             x, {.name = "w2"});
  Output r3 = af::while_loop(below_ten, [&](const Output&) { return x; }, x, {.name = "w3"});
  const std::map<std::string, std::set<std::string>> expected = {
      {"while/Enter", {"x", "^c", "^d"}},
      {"while/Less/y", {"^while/Less/Identity", "^while/Merge"}},
      {"while/Less/Identity", {"while/Less/Identity/Enter", "^while/Merge"}},
      {"while/Less/Identity/Enter", {"c"}},
      {"while/add", {"while/Identity", "while/add/Enter"}},
      {"while/add/Enter", {"x", "^c", "^d"}},
      {"w2/Enter", {"x"}},
      {"w2/mul/y", {"^w2/Identity", "^w2/mul/Identity"}},
      {"w2/mul/Identity", {"w2/mul/Identity/Enter", "^w2/Identity"}},
      {"w2/mul/Identity/Enter", {"c"}},
      {"w2/mul", {"w2/Identity", "w2/mul/y"}},
      {"w3/NextIteration", {"w3/NextIteration/Enter", "^w3/Identity"}},
      {"w3/NextIteration/Enter", {"x"}},
  };
  for (const auto& [name, inputs] : expected) {
    const auto& in = g.operation(name).node()->def().inputs;
    BOOST_TEST((std::set<std::string>(in.begin(), in.end()) == inputs), name);
  }
  af::Session sess(g);
  auto out = sess.run({r, r2}, {{x, Tensor(1.0f)}});
  BOOST_TEST(out[0].scalar<float>() == 10.0f);
  BOOST_TEST(out[1].scalar<float>() == 16.0f);
  BOOST_TEST(sess.run(r3, {{x, Tensor(20.0f)}}).scalar<float>() == 20.0f);
}

// The ops of a loop or cond branch are not fetchable, a loop's tensors not feedable; a
// top-level loop's Exits are both. A tensor of a loop cannot be used outside it or in
// another loop.
BOOST_AUTO_TEST_CASE(loop_internals_stay_inside, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  const Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  Output inside;
  Output r = af::while_loop([&](const Output& a) { return with_number(a, 10.0, "Less", af::less); },
                            [&](const Output& a) {
                              inside = a + x;
                              return inside;
                            },
                            x);
  Output branch_op;
  Output c = af::cond(
      p,
      [&] {
        branch_op = x + 1.0f;
        return branch_op;
      },
      [&] { return x * 2.0f; });
  af::Session sess(g);
  std::string e = error_of([&] { sess.run(inside, {{x, Tensor(1.0f)}}); });
  BOOST_TEST(e.find("Operation while/add has been marked as not fetchable") != std::string::npos,
             e);
  e = error_of([&] { sess.run(branch_op, {{x, Tensor(1.0f)}, {p, Tensor(true)}}); });
  BOOST_TEST(e.find("Operation cond/add has been marked as not fetchable") != std::string::npos, e);
  e = error_of([&] { sess.run(std::vector<Output>{}, {{x, Tensor(1.0f)}}, {inside.op()}); });
  BOOST_TEST(e.find("marked as not fetchable") != std::string::npos, e);
  e = error_of([&] { sess.run(r, {{g.output("while/Merge"), Tensor(1.0f)}, {x, Tensor(1.0f)}}); });
  BOOST_TEST(e.find("Tensor while/Merge:0 may not be fed.") != std::string::npos, e);
  BOOST_TEST(sess.run(r, {{x, Tensor(1.0f)}}).scalar<float>() == 10.0f);
  BOOST_TEST(sess.run(r, {{r, Tensor(3.0f)}}).scalar<float>() == 3.0f);  // an Exit may be fed
  BOOST_TEST(sess.run(c, {{x, Tensor(1.0f)}, {p, Tensor(true)}}).scalar<float>() == 2.0f);
  e = error_of([&] { af::identity(inside, "leak"); });
  BOOST_TEST(e.find("Cannot use 'while/add' as input to 'leak' because 'while/add' is in a "
                    "while loop.") != std::string::npos,
             e);
  e = error_of([&] {
    af::while_loop([&](const Output& a) { return with_number(a, 10.0, "Less", af::less); },
                   [&](const Output& a) { return a + inside; }, x, {.name = "other"});
  });
  BOOST_TEST(e.find("Cannot use 'while/add' as input to 'other/add' because they are in "
                    "different while loops.") != std::string::npos,
             e);
}

// Malformed loops fail as they are built, with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(malformed_loops_are_refused, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  auto below = [&](const Vars& v) { return with_number(v[0], 10.0, "Less", af::less); };
  auto same = [](const Vars& v) { return v; };
  auto refused = [&](auto&& build, const std::string& message) {
    const std::string e = error_of(build);
    BOOST_TEST(e.find(message) != std::string::npos, e);
    BOOST_CHECK_THROW(build(), af::InvalidArgumentError);
  };
  refused([&] { af::while_loop(below, same, {}); }, "'loop_vars' must be provided.");
  refused([&] { af::while_loop(nullptr, same, {x}); }, "'cond' must be callable.");
  refused([&] { af::while_loop(below, same, {x}, {.parallel_iterations = 0}); },
          "'parallel_iterations' must be a positive integer.");
  refused(
      [&] {
        af::while_loop(below, [&](const Vars& v) { return Vars{v[0], v[0]}; }, {x});
      },
      "'body' returned 2 tensors for 1 loop variables");
  refused([&] { af::while_loop([&](const Vars& v) { return v[0]; }, same, {x}); }, "LoopCond");
  refused(
      [&] {
        af::while_loop([&](const Vars&) { return g.constant(Tensor::from_vector<bool>({true})); },
                       same, {x});
      },
      "Shape must be rank 0 but is rank 1");
  refused([&] { af::while_loop(below, [&](const Vars&) { return Vars{g.constant(1)}; }, {x}); },
          "incompatible with expected float");
  refused(
      [&] {
        af::while_loop(below, same, {x}, {.shape_invariants = {{}, {}}});
      },
      "shape_invariants has 2 shapes for 1 loop variables");
}

BOOST_AUTO_TEST_SUITE_END()
