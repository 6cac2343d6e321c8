// TensorFlow 1.x's while loops (control flow v1, the executor's frames and iterations):
// loops built by hand from Enter, Merge, LoopCond, Switch, NextIteration and Exit as
// control_flow_ops.py's _BuildLoop builds them, loop invariants, parallel_iterations, many
// iterations, a loop that never stops (the step's deadline ends it), a GraphDef round trip,
// the errors for malformed loops, and a TensorFlow-written GraphDef of loops
// (tests/data/tf_graph/while: nested loops, a loop in a cond, a cond in a loop, a variable
// assigned per iteration) against TensorFlow 2.21's values, and a TensorFlow training graph
// whose gradient runs through a loop (Stack ops) trained on to TensorFlow's losses.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/graph_json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using af::test::error_of;

const std::filesystem::path while_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "while";

/// A loop as _BuildLoop makes it: i from 0 while i < n, acc += x * i; n and x are loop
/// invariants (constant Enters), i and acc loop variables.
struct CountingLoop {
  Output i;       ///< the counter's Exit
  Output acc;     ///< the accumulator's Exit
  Output body_i;  ///< the counter inside the body (not fetchable)
};

CountingLoop counting_loop(af::Graph& g, const Output& n, const Output& x, const Output& acc0,
                           int parallel_iterations, const std::string& name) {
  auto scope = g.name_scope(name);
  const std::string frame = name + "/while_context";
  Output i0 = g.constant(0, "i0");
  Output enter_i = af::enter(i0, frame, false, parallel_iterations, "Enter");
  Output enter_acc = af::enter(acc0, frame, false, parallel_iterations, "Enter_1");
  auto merge_i = af::merge({enter_i, enter_i}, "Merge");
  auto merge_acc = af::merge({enter_acc, enter_acc}, "Merge_1");
  Output n_in = af::enter(n, frame, true, parallel_iterations, "n");
  Output x_in = af::enter(x, frame, true, parallel_iterations, "x");
  Output go = af::loop_cond(af::less(merge_i.output, n_in), "LoopCond");
  auto switch_i = af::switch_op(merge_i.output, go);
  auto switch_acc = af::switch_op(merge_acc.output, go);
  Output i = af::identity(switch_i.output_true, "Identity");
  Output acc = af::identity(switch_acc.output_true, "Identity_1");
  Output one;
  {
    // A constant in the body runs once per iteration: it waits on the pivot.
    auto deps = g.control_dependencies({i.op()});
    one = g.constant(1, "one");
  }
  Output i_next = i + one;
  Output acc_next = acc + x_in * af::cast(i, af::float32);
  g.update_input(merge_i.output.op(), 1, af::next_iteration(i_next, "NextIteration"));
  g.update_input(merge_acc.output.op(), 1, af::next_iteration(acc_next, "NextIteration_1"));
  return {af::exit_op(switch_i.output_false, "Exit"),
          af::exit_op(switch_acc.output_false, "Exit_1"), i_next};
}

std::vector<float> sum_reference(int n, const std::vector<float>& x) {
  std::vector<float> acc(x.size(), 0.0f);
  for (int i = 0; i < n; ++i)
    for (std::size_t k = 0; k < x.size(); ++k) acc[k] += x[k] * static_cast<float>(i);
  return acc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(while_loop_conformance_test)

// The loop's graph as TensorFlow writes it: a Merge's back edge comes from its NextIteration.
BOOST_AUTO_TEST_CASE(a_loop_built_by_hand_counts_and_accumulates, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
  auto loop =
      counting_loop(g, n, x, g.constant(Tensor::from_vector<float>({0, 0, 0})), 10, "while");
  const auto& merge = g.operation("while/Merge").node_def();
  BOOST_TEST(merge.inputs == (std::vector<std::string>{"while/Enter", "while/NextIteration"}));
  BOOST_TEST(g.operation("while/Enter").node_def().op == "Enter");
  BOOST_TEST(*g.operation("while/n").node_def().attr<bool>("is_constant"));
  BOOST_TEST(loop.i.dtype() == af::int32);
  af::Session sess(g);
  const std::vector<float> xs = {0.5f, -1.0f, 2.0f};
  for (int k : {0, 1, 2, 5, 17}) {
    auto out = sess.run({loop.i, loop.acc}, {{n, Tensor(k)}, {x, Tensor::from_vector(xs)}});
    BOOST_TEST(out[0].scalar<std::int32_t>() == k);
    BOOST_TEST(out[1].to_vector<float>() == sum_reference(k, xs));
  }
  // A loop variable that enters dead (a Switch's untaken side) stays dead: its Exit has no
  // value, while the counter beside it runs on.
  auto untaken = af::switch_op(g.constant(Tensor::from_vector<float>({0, 0, 0})), g.constant(true));
  auto half_dead = counting_loop(g, n, x, untaken.output_false, 10, "half_dead");
  const af::FeedDict feeds = {{n, Tensor(3)}, {x, Tensor::from_vector(xs)}};
  BOOST_TEST(sess.run(half_dead.i, feeds).scalar<std::int32_t>() == 3);
  const std::string e = error_of([&] { sess.run(half_dead.acc, feeds); });
  BOOST_TEST(e.find("Retval[0] does not have value") != std::string::npos, e);
}

// parallel_iterations bounds the iterations in flight, never the result; many iterations
// free what they used (each finished iteration is dropped).
BOOST_AUTO_TEST_CASE(parallel_iterations_and_many_iterations, *boost::unit_test::timeout(120)) {
  af::Graph g;
  Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  Output zeros = g.constant(Tensor::from_vector<float>({0, 0}));
  auto one_at_a_time = counting_loop(g, n, x, zeros, 1, "serial");
  auto many = counting_loop(g, n, x, zeros, 32, "wide");
  af::Session sess(g);
  const std::vector<float> xs = {1.0f, 0.001f};
  for (int k : {3, 20000}) {
    auto out = sess.run({one_at_a_time.i, one_at_a_time.acc, many.i, many.acc},
                        {{n, Tensor(k)}, {x, Tensor::from_vector(xs)}});
    BOOST_TEST(out[0].scalar<std::int32_t>() == k);
    BOOST_TEST(out[2].scalar<std::int32_t>() == k);
    const auto want = sum_reference(k, xs);
    BOOST_TEST(out[1].to_vector<float>() == want);
    BOOST_TEST(out[3].to_vector<float>() == want);
  }
}

// A loop whose LoopCond is always true runs until the step's deadline, which ends it (the
// walk lets the thread take the deadline); the session runs the next step as usual.
BOOST_AUTO_TEST_CASE(a_loop_that_never_ends_meets_the_deadline, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output forever = g.constant(true, "forever");
  const std::string frame = "spin/while_context";
  Output start = af::enter(g.constant(0), frame);
  auto m = af::merge({start, start}, "spin/Merge");
  Output go = af::loop_cond(af::enter(forever, frame, true));
  auto s = af::switch_op(m.output, go);
  Output next;
  {
    auto deps = g.control_dependencies({s.output_true.op()});
    next = s.output_true + g.constant(1);
  }
  g.update_input(m.output.op(), 1, af::next_iteration(next));
  Output done = af::exit_op(s.output_false);
  af::Session sess(g);
  BOOST_CHECK_THROW(sess.run(done, {}, {.timeout_in_ms = 200}), af::DeadlineExceededError);
  BOOST_TEST(sess.run(g.constant(3)).scalar<std::int32_t>() == 3);
}

// A hand-built loop goes through a GraphDef and back (the importer takes the Merge's back
// edge once the NextIteration exists) and runs the same.
BOOST_AUTO_TEST_CASE(a_loop_survives_a_graph_def_round_trip, *boost::unit_test::timeout(60)) {
  af::GraphDef def;
  {
    af::Graph g;
    Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
    Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
    counting_loop(g, n, x, g.constant(Tensor::from_vector<float>({1, 1, 1})), 10, "while");
    def = af::parse_graph_def(af::serialize_graph_def(g.to_graph_def()));
  }
  af::Graph g;
  af::import_graph_def(g, def, {.name = ""});
  BOOST_TEST(g.operation("while/Merge").node_def().inputs ==
             (std::vector<std::string>{"while/Enter", "while/NextIteration"}));
  af::Session sess(g);
  auto out = sess.run(
      {g.output("while/Exit"), g.output("while/Exit_1")},
      {{g.output("n"), Tensor(4)}, {g.output("x"), Tensor::from_vector<float>({1, 2, 3})}});
  BOOST_TEST(out[0].scalar<std::int32_t>() == 4);
  BOOST_TEST(out[1].to_vector<float>() == (std::vector<float>{7, 13, 19}));
  // Under the default prefix ("import/"), and through actorflow's JSON form.
  af::import_graph_def(g, def);
  BOOST_TEST(g.operation("import/while/Merge").node_def().inputs ==
             (std::vector<std::string>{"import/while/Enter", "import/while/NextIteration"}));
  af::Graph from_json;
  af::import_graph_json(from_json, af::export_graph_json(g));
  af::Session json_sess(from_json);
  for (const std::string prefix : {"", "import/"}) {
    auto again =
        json_sess.run(from_json.output(prefix + "while/Exit_1"),
                      {{from_json.output(prefix + "n"), Tensor(4)},
                       {from_json.output(prefix + "x"), Tensor::from_vector<float>({1, 2, 3})}});
    BOOST_TEST(again.to_vector<float>() == (std::vector<float>{7, 13, 19}));
  }
}

// What the executor and the planner refuse, naming the nodes.
BOOST_AUTO_TEST_CASE(malformed_loops_get_clear_errors, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
  auto loop =
      counting_loop(g, n, x, g.constant(Tensor::from_vector<float>({0, 0, 0})), 10, "while");
  const af::FeedDict feeds = {{n, Tensor(2)}, {x, Tensor::from_vector<float>({1, 2, 3})}};
  af::Session sess(g);
  // A tensor inside the loop is not fetchable.
  const std::string fetch = error_of([&] { sess.run(loop.body_i, feeds); });
  BOOST_TEST(fetch.find("'while/add'") != std::string::npos, fetch);
  BOOST_TEST(fetch.find("inside while loop frame 'while/while_context'") != std::string::npos,
             fetch);
  // A tensor from outside used in the body without an Enter.
  Output stray = loop.body_i + n;
  const std::string frames = error_of([&] { sess.run({}, feeds, {stray.op()}); });
  BOOST_TEST(frames.find("has inputs from two frames") != std::string::npos, frames);
  // An Exit outside every loop.
  Output lone = af::exit_op(g.constant(1.0f), "lone_exit");
  const std::string exit = error_of([&] { sess.run(lone); });
  BOOST_TEST(exit.find("'lone_exit'") != std::string::npos, exit);
  BOOST_TEST(exit.find("no Enter leads to it") != std::string::npos, exit);
  // A NextIteration beside a loop but outside it.
  Output stray_next = af::next_iteration(g.constant(2.0f), "stray_next");
  const std::string next =
      error_of([&] { sess.run(std::vector<Output>{loop.i}, feeds, {stray_next.op()}); });
  BOOST_TEST(
      next.find("NextIteration 'stray_next' is outside every while loop") != std::string::npos,
      next);
  // The loop still runs.
  BOOST_TEST(sess.run(loop.i, feeds).scalar<std::int32_t>() == 2);
  // Shape functions: LoopCond wants a bool scalar, Enter a frame name.
  BOOST_CHECK_THROW(af::loop_cond(g.constant(1)), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::enter(n, ""), af::InvalidArgumentError);
  BOOST_CHECK_THROW(g.update_input(loop.i.op(), 0, g.constant(1.0f)), af::InvalidArgumentError);
}

// The gradient of a loop built by hand (or imported) has no WhileContext to build
// TensorFlow's gradient loop from: a clear refusal rather than a gradient silently missing.
// Gradients beside a loop work. (Loops built by while_loop differentiate:
// while_loop_gradient_test.cpp.)
BOOST_AUTO_TEST_CASE(the_gradient_of_a_loop_is_refused_clearly, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
  auto loop =
      counting_loop(g, n, x, g.constant(Tensor::from_vector<float>({0, 0, 0})), 10, "while");
  const std::string e = error_of(
      [&] { af::gradients({af::reduce_sum(loop.acc, std::vector<std::int64_t>{0})}, {x}); });
  BOOST_TEST(e.find("the gradient of a while loop not built by while_loop (an imported one) is "
                    "not supported yet") != std::string::npos,
             e);
  BOOST_CHECK_THROW(af::gradients({af::reduce_sum(loop.acc, std::vector<std::int64_t>{0})}, {x}),
                    af::UnimplementedError);
  Output beside = af::reduce_sum(af::square(x)) * af::cast(loop.i, af::float32);
  auto grads = af::gradients({beside}, {x});
  af::Session sess(g);
  auto out = sess.run(grads[0], {{n, Tensor(2)}, {x, Tensor::from_vector<float>({1, 2, 3})}});
  BOOST_TEST(out.to_vector<float>() == (std::vector<float>{4, 8, 12}));
}

// A loop split over two devices is refused by the planner, with the frame and devices named.
BOOST_AUTO_TEST_CASE(a_loop_spanning_devices_is_refused, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  Output n = g.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x = g.placeholder(af::float32, af::PartialShape{3}, "x");
  CountingLoop loop;
  {
    auto on = g.device("/cpu:0");
    loop = counting_loop(g, n, x, g.constant(Tensor::from_vector<float>({0, 0, 0})), 10, "while");
  }
  Output after;
  {
    auto on = g.device("/cpu:1");
    after = loop.acc * 2.0f;  // the Exit's value crosses devices outside the loop: fine
  }
  af::Session sess(g, config);
  const af::FeedDict feeds = {{n, Tensor(3)}, {x, Tensor::from_vector<float>({1, 2, 3})}};
  BOOST_TEST(sess.run(after, feeds).to_vector<float>() == (std::vector<float>{6, 12, 18}));
  af::Graph g2;
  Output n2 = g2.placeholder(af::int32, af::PartialShape(af::Shape{}), "n");
  Output x2 = g2.placeholder(af::float32, af::PartialShape{3}, "x");
  CountingLoop split;
  {
    auto on = g2.device("/cpu:0");
    split =
        counting_loop(g2, n2, x2, g2.constant(Tensor::from_vector<float>({0, 0, 0})), 10, "while");
  }
  af::GraphDef def = g2.to_graph_def();
  for (auto& node : def.nodes)
    if (node.name == "while/add_1") node.device = "/cpu:1";  // acc + x * i
  af::Graph g3;
  af::import_graph_def(g3, def, {.name = ""});
  af::Session sess3(g3, config);
  const std::string e = error_of([&] {
    sess3.run(g3.output("while/Exit_1"), {{g3.output("n"), Tensor(3)},
                                          {g3.output("x"), Tensor::from_vector<float>({1, 2, 3})}});
  });
  BOOST_TEST(e.find("While loop frame 'while/while_context' spans devices") != std::string::npos,
             e);
}

// TensorFlow's GraphDef of while loops (scripts/peers/make_graph_fixtures.py make-while):
// every loop gives TensorFlow 2.21's values, including a loop in a cond's untaken branch
// (dead Exits), a cond in a loop body and a variable assigned in every iteration.
BOOST_AUTO_TEST_CASE(tensorflow_written_loops_give_tensorflows_values,
                     *boost::unit_test::timeout(120)) {
  std::ifstream in(while_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((while_dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  sess.run({}, {}, {g.operation("init")});
  const Tensor x = Tensor::from_vector(ref["x"].get<std::vector<float>>());
  const std::vector<std::string> names = {"sum_out",          "nested_out",  "power_out",
                                          "loop_in_cond_out", "collatz_out", "count_out"};
  for (const auto& run : ref["runs"]) {
    const int n = run["n"].get<int>();
    BOOST_TEST_CONTEXT("n = " << n) {
      std::vector<Output> fetches;
      for (const auto& name : names) fetches.push_back(g.output(name));
      auto out = sess.run(fetches, {{g.output("n"), Tensor(n)}, {g.output("x"), x}});
      BOOST_TEST(out[0].to_vector<float>() == run["sum"].get<std::vector<float>>(),
                 boost::test_tools::per_element());
      BOOST_TEST(out[1].scalar<std::int32_t>() == run["nested"].get<int>());
      std::vector<float> power;
      for (const auto& row : run["power"]) power.push_back(row[0].get<float>());
      const auto got = out[2].to_vector<float>();
      BOOST_TEST_REQUIRE(got.size() == power.size());
      for (std::size_t k = 0; k < got.size(); ++k)
        BOOST_TEST(got[k] == power[k], boost::test_tools::tolerance(1e-5f));
      BOOST_TEST(out[3].scalar<std::int32_t>() == run["in_cond"].get<int>());
      BOOST_TEST(out[4].scalar<std::int32_t>() == run["collatz"].get<int>());
      BOOST_TEST(out[5].scalar<std::int32_t>() == run["count"].get<int>());
      auto other = sess.run(g.output("loop_in_cond_out"),
                            {{g.output("n"), Tensor(n)}, {g.output("p"), Tensor(false)}});
      BOOST_TEST(other.scalar<std::int32_t>() == run["not_in_cond"].get<int>());
      BOOST_TEST(sess.run(g.output("counter")).scalar<std::int32_t>() == run["counter"].get<int>());
    }
  }
}

// TensorFlow's training graph through a loop (make_graph_fixtures.py make-while-train): a
// recurrence h = tanh(h U + h0) for `steps` iterations, trained with GradientDescent through
// TensorFlow's own loop gradients (a gradient loop popping what StackPushV2 kept of each
// forward iteration). Restored from TensorFlow's checkpoint, it trains on to TensorFlow's
// losses, and with more iterations than it was saved with.
BOOST_AUTO_TEST_CASE(a_tensorflow_loop_trains_through_its_gradient_loop,
                     *boost::unit_test::timeout(120)) {
  const auto dir = while_dir / "train";
  std::ifstream in(dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (dir / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(g.operation("gradients/rnn/Tanh_grad/TanhGrad/f_acc").node()->type() == "StackV2");
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<Output>(g.get_collection("losses")[0]);
  af::Session sess(g);
  saver->restore(sess, (dir / ref["prefix"].get<std::string>()).string());
  std::vector<float> xs;
  for (const auto& row : ref["x"])
    for (const auto& v : row) xs.push_back(v.get<float>());
  const Tensor x =
      Tensor::from_vector(xs, af::Shape{static_cast<std::int64_t>(ref["x"].size()), 4});
  const Tensor y = Tensor::from_vector(ref["y"].get<std::vector<std::int64_t>>());
  const Output xin = g.output("x:0"), yin = g.output("y:0"), steps = g.output("steps:0");
  for (std::size_t i = 0; i < 3; ++i) {
    const float got = sess.run({loss}, {{xin, x}, {yin, y}}, {train})[0].scalar<float>();
    BOOST_TEST(got == ref["losses_after_restore"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const float got =
        sess.run({loss}, {{xin, x}, {yin, y}, {steps, Tensor(5)}}, {train})[0].scalar<float>();
    BOOST_TEST(got == ref["losses_5_steps"][i].get<float>(), boost::test_tools::tolerance(1e-5f));
  }
  const auto probs = sess.run(g.output("probs:0"), {{xin, x}}).to_vector<float>();
  std::size_t k = 0;
  for (const auto& row : ref["probs_after"])
    for (const auto& v : row)
      BOOST_TEST(probs[k++] == v.get<float>(), boost::test_tools::tolerance(1e-5f));
}

// The stack ops' errors, TensorFlow's words: a pop from an empty stack, a push past max_size.
BOOST_AUTO_TEST_CASE(stack_ops_keep_values_in_order_and_refuse_misuse,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto stack = [&](int max_size) {
    return g
        .create_op("StackV2", {g.constant(max_size)},
                   {{"elem_type", af::float32}, {"stack_name", std::string("s")}})
        .output(0);
  };
  auto push = [&](const Output& h, const Output& v, const std::vector<af::Operation>& after) {
    return g.create_op("StackPushV2", {h, v}, {{"T", af::float32}}, {}, after).output(0);
  };
  auto pop = [&](const Output& h, const std::vector<af::Operation>& after) {
    return g.create_op("StackPopV2", {h}, {{"elem_type", af::float32}}, {}, after).output(0);
  };
  Output h = stack(-1);
  Output a = push(h, g.constant(1.0f), {});
  Output b = push(h, g.constant(2.0f), {a.op()});
  Output first = pop(h, {b.op()});
  Output second = pop(h, {first.op()});
  Output third = pop(h, {second.op()});
  af::Session sess(g);
  auto out = sess.run({first, second});
  BOOST_TEST(out[0].scalar<float>() == 2.0f);
  BOOST_TEST(out[1].scalar<float>() == 1.0f);
  const std::string empty = error_of([&] { sess.run(third); });
  BOOST_TEST(empty.find("is empty.") != std::string::npos, empty);
  Output small = stack(1);
  Output one = push(small, g.constant(1.0f), {});
  Output two = push(small, g.constant(2.0f), {one.op()});
  const std::string full = error_of([&] { sess.run(two); });
  BOOST_TEST(full.find("overflowed its max_size (1)") != std::string::npos, full);
}

BOOST_AUTO_TEST_SUITE_END()
