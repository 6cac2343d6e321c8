// TensorFlow 1.x's control flow v1 for conds (control_flow_ops_py_test.py, the executor's
// dead tensors): Switch and Merge by hand, tf.cond's graph and names, values and gradients
// computed by TensorFlow 2.21 with control flow v2 disabled, side effects only in the taken
// branch, dead tensors across devices, TensorFlow's errors, and a TensorFlow-written
// training graph with nested conds (tests/data/tf_graph/cond) that restores and trains on to
// TensorFlow's losses.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;

const std::filesystem::path cond_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "cond";

std::vector<float> floats(const Tensor& t) { return t.to_vector<float>(); }

bool has_node(af::Graph& g, const std::string& name, const std::string& op,
              const std::vector<std::string>& inputs) {
  if (!g.contains(name)) return false;
  const auto& def = g.operation(name).node()->def();
  return def.op == op && def.inputs == inputs;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

af::Tensor matrix(const nlohmann::json& rows) {
  std::vector<float> values;
  for (const auto& row : rows)
    for (const auto& v : row) values.push_back(v.get<float>());
  return Tensor::from_vector(values, af::Shape{static_cast<std::int64_t>(rows.size()),
                                               static_cast<std::int64_t>(rows[0].size())});
}

/// The cond of TensorFlow's probe: `cond(p, x * w, square(x) + 1)` with x and p placeholders
/// and w = [1, 2] (TensorFlow 2.21 gives 3, 8 / 10, 17 for x = [3, 4]).
std::tuple<Output, Output, af::Variable, Output> probe_cond(af::Graph& g) {
  Output x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  auto w = g.variable(Tensor::from_vector<float>({1, 2}), {.name = "w"});
  Output r = af::cond(
      p, [&] { return x * w.value(); }, [&] { return af::square(x) + 1.0f; });
  return {x, p, w, r};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(control_flow_conformance_test)

// testSwitchMergeLess / AddIdentity / AddMul: a Merge forwards the live side.
BOOST_AUTO_TEST_CASE(switch_and_merge_forward_the_taken_side, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output data = g.constant(Tensor::from_vector<std::int32_t>({1, 2, 3, 4, 5, 6}), "data");
  Output less = af::less(g.constant(0), g.constant(1));
  auto s = af::switch_op(data, less);
  auto m = af::merge({s.output_false, s.output_true});
  Output ports = g.constant(false, "ports");
  auto s2 = af::switch_op(data, ports);
  auto added = af::merge({s2.output_false + g.constant(1), af::identity(s2.output_true)});
  Output t = g.constant(true);
  auto s3 = af::switch_op(data, t);
  auto mul = af::merge({s3.output_false + g.constant(1), s3.output_true * g.constant(5)});
  af::Session sess(g);
  auto out = sess.run({m.output, m.value_index, added.output, added.value_index, mul.output});
  BOOST_TEST(out[0].to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
  BOOST_TEST(out[1].scalar<std::int32_t>() == 1);
  BOOST_TEST(out[2].to_vector<std::int32_t>() == (std::vector<std::int32_t>{2, 3, 4, 5, 6, 7}));
  BOOST_TEST(out[3].scalar<std::int32_t>() == 0);
  BOOST_TEST(out[4].to_vector<std::int32_t>() ==
             (std::vector<std::int32_t>{5, 10, 15, 20, 25, 30}));
  // Shapes: Merge keeps what its inputs agree on; value_index is a scalar.
  BOOST_TEST(m.output.shape() == af::PartialShape({6}));
  BOOST_TEST(m.value_index.dtype() == af::int32);
}

// testSwitchDeadBranch: fetching the untaken side is TensorFlow's error; the step's other
// fetches are not returned.
BOOST_AUTO_TEST_CASE(fetching_a_dead_tensor_fails_the_step, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output data = g.constant(Tensor::from_vector<std::int32_t>({1, 2, 3}), "data");
  auto s = af::switch_op(data, g.constant(true, "ports"));
  Output dead = af::identity(s.output_false);
  af::Session sess(g);
  const std::string e = error_of([&] { sess.run(dead); });
  BOOST_TEST(e.find("Retval[0] does not have value") != std::string::npos, e);
  BOOST_CHECK_THROW(sess.run({s.output_true, dead}), af::InvalidArgumentError);
  // The live side is fine, and a dead node run as a target is no error (it just does not run).
  BOOST_TEST(sess.run(s.output_true).to_vector<std::int32_t>() ==
             (std::vector<std::int32_t>{1, 2, 3}));
  BOOST_CHECK_NO_THROW(sess.run(std::vector<Output>{}, {}, {dead.op()}));
}

// A Merge with control inputs: it waits for them, their deadness does not make it dead, and
// of two live inputs the first to arrive is forwarded. A ControlTrigger is never dead.
BOOST_AUTO_TEST_CASE(merge_control_inputs_and_control_triggers, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output data = g.constant(Tensor::from_vector<float>({1, 2}), "data");
  auto s = af::switch_op(data, g.constant(true));
  Output dead_side = af::identity(s.output_false, "dead_side");
  af::Operation trigger = g.create_op("ControlTrigger", {}, {}, "trigger", {dead_side.op()});
  af::MergeOutputs m;
  {
    auto deps = g.control_dependencies({dead_side.op()});
    m = af::merge({s.output_false, s.output_true});
  }
  BOOST_TEST(m.output.node()->control_inputs().size() == 1u);
  // Both inputs live: the Merge takes one and says which.
  Output a = g.constant(Tensor::from_vector<float>({7, 8}), "a");
  auto both = af::merge({a, a * 2.0f});
  Output after_trigger;
  {
    auto deps = g.control_dependencies({trigger});
    after_trigger = g.constant(5.0f, "after_trigger");
  }
  Output after_dead;
  {
    auto deps = g.control_dependencies({dead_side.op()});
    after_dead = g.constant(6.0f, "after_dead");
  }
  af::Session sess(g);
  auto out = sess.run({m.output, m.value_index, after_trigger});
  BOOST_TEST(floats(out[0]) == (std::vector<float>{1, 2}));
  BOOST_TEST(out[1].scalar<std::int32_t>() == 1);
  BOOST_TEST(out[2].scalar<float>() == 5.0f);
  const std::string e = error_of([&] { sess.run(after_dead); });
  BOOST_TEST(e.find("Retval[0] does not have value") != std::string::npos, e);
  auto b = sess.run({both.output, both.value_index});
  const std::int32_t k = b[1].scalar<std::int32_t>();
  BOOST_TEST((k == 0 || k == 1));
  BOOST_TEST(floats(b[0]) == (k == 0 ? std::vector<float>{7, 8} : std::vector<float>{14, 16}));
}

// Switch's shape function and kernel errors, TensorFlow's messages.
BOOST_AUTO_TEST_CASE(a_switch_wants_a_bool_scalar_predicate, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output data = g.constant(Tensor::from_vector<float>({1, 2}));
  const std::string rank = error_of([&] {
    af::switch_op(data, g.constant(Tensor::from_vector<bool>({true, false})));
  });
  BOOST_TEST(rank.find("Shape must be rank 0 but is rank 1") != std::string::npos, rank);
  BOOST_CHECK_THROW(af::switch_op(data, g.constant(1.0f)), af::InvalidArgumentError);
  Output p = g.placeholder(af::boolean);  // unknown shape: checked when the step runs
  auto s = af::switch_op(data, p);
  af::Session sess(g);
  const std::string run = error_of([&] {
    sess.run(s.output_true, {{p, Tensor::from_vector<bool>({true, true})}});
  });
  BOOST_TEST(
      run.find("The second input must be a scalar, but it has shape [2]") != std::string::npos,
      run);
}

// testRefSwitch: a reference through a RefSwitch is assigned to.
BOOST_AUTO_TEST_CASE(a_ref_switch_passes_the_variable_on, *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto v = g.variable(Tensor(7), {.name = "v"});
  auto s = af::switch_op(v.ref(), g.constant(true));
  BOOST_TEST(s.output_true.node()->type() == "RefSwitch");
  Output assigned =
      g.create_op("Assign", {s.output_true, g.constant(9)}, {{"T", af::int32}}).output(0);
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(assigned).scalar<std::int32_t>() == 9);
  BOOST_TEST(sess.run(v.value()).scalar<std::int32_t>() == 9);
}

// tf.cond's graph, names and values as TensorFlow 2.21's tf.compat.v1.cond builds them.
BOOST_AUTO_TEST_CASE(cond_builds_tensorflows_graph_and_runs_one_branch,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const auto [x, p, w, r] = probe_cond(g);
  BOOST_TEST(has_node(g, "cond/Switch", "Switch", {"p", "p"}));
  BOOST_TEST(has_node(g, "cond/switch_t", "Identity", {"cond/Switch:1"}));
  BOOST_TEST(has_node(g, "cond/switch_f", "Identity", {"cond/Switch"}));
  BOOST_TEST(has_node(g, "cond/pred_id", "Identity", {"p"}));
  BOOST_TEST(has_node(g, "cond/mul", "Mul", {"cond/mul/Switch:1", "cond/mul/Switch_1:1"}));
  BOOST_TEST(has_node(g, "cond/mul/Switch", "Switch", {"x", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/mul/Switch_1", "Switch", {"w/read", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/Square/Switch", "Switch", {"x", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/add/y", "Const", {"^cond/switch_f"}));
  BOOST_TEST(has_node(g, "cond/Merge", "Merge", {"cond/add", "cond/mul"}));
  BOOST_TEST(r.shape() == af::PartialShape({2}));
  // The data's Switch is colocated with it, as _SwitchRefOrTensor does.
  BOOST_TEST(g.operation("cond/mul/Switch_1").node()->colocation_names() ==
             (std::vector<std::string>{"w"}));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor xv = Tensor::from_vector<float>({3, 4});
  BOOST_TEST(floats(sess.run(r, {{x, xv}, {p, Tensor(true)}})) == (std::vector<float>{3, 8}));
  BOOST_TEST(floats(sess.run(r, {{x, xv}, {p, Tensor(false)}})) == (std::vector<float>{10, 17}));
}

// The gradients TensorFlow computes through a cond, and its backward graph's names.
BOOST_AUTO_TEST_CASE(gradients_flow_through_the_taken_branch, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const auto [x, p, w, r] = probe_cond(g);
  Output loss = af::reduce_sum(r);
  auto grads = af::gradients({loss}, {w.value(), x});
  BOOST_TEST(has_node(g, "gradients/cond/Merge_grad/cond_grad", "Switch",
                      {"gradients/Sum_grad/Tile", "cond/pred_id"}));
  BOOST_TEST(g.operation("gradients/cond/mul/Switch_grad/cond_grad").node()->type() == "Merge");
  BOOST_TEST(has_node(g, "gradients/Switch", "Switch", {"x", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "gradients/zeros/Const", "Const", {"^gradients/Identity"}));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor xv = Tensor::from_vector<float>({3, 4});
  auto t = sess.run({grads[0], grads[1]}, {{x, xv}, {p, Tensor(true)}});
  BOOST_TEST(floats(t[0]) == (std::vector<float>{3, 4}));
  BOOST_TEST(floats(t[1]) == (std::vector<float>{1, 2}));
  auto f = sess.run({grads[0], grads[1]}, {{x, xv}, {p, Tensor(false)}});
  BOOST_TEST(floats(f[0]) == (std::vector<float>{0, 0}));
  BOOST_TEST(floats(f[1]) == (std::vector<float>{6, 8}));
  // testCondInt: an int tensor has no gradient.
  af::Graph h;
  Output v = h.constant(10);
  Output y = af::cond(
      h.placeholder(af::boolean), [&] { return v + h.constant(1); },
      [&] { return v - h.constant(1); });
  BOOST_TEST(!af::gradients({y}, {v})[0].valid());
}

// A resource variable read inside a branch: its handle's Switch gets the taken branch's
// gradient merged with itself (TensorFlow's "cond_resource_grad").
BOOST_AUTO_TEST_CASE(a_resource_variable_read_in_a_branch_gets_its_gradient,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  auto rv = g.variable(Tensor::from_vector<float>({1, 2}), {.name = "rv", .use_resource = true});
  Output r = af::cond(
      p, [&] { return af::read_variable_op(rv.ref(), af::float32) * 3.0f; },
      [&] {
        return g.constant(Tensor::from_vector<float>({0, 0}));
      });
  auto grad = af::gradients({af::reduce_sum(r)}, {rv.ref()})[0];
  BOOST_REQUIRE(grad.valid());
  BOOST_TEST(g.contains("gradients/cond/ReadVariableOp/Switch_grad/cond_resource_grad"));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(floats(sess.run(grad, {{p, Tensor(true)}})) == (std::vector<float>{3, 3}));
}

// Nested conds (testCond_3), a branch returning an outside tensor (`lambda: x`), and the
// two Switches a tensor from outside both conds goes through.
BOOST_AUTO_TEST_CASE(nested_conds_and_outside_results, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  Output q = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "q");
  Output r = af::cond(
      p, [&] { return x; },
      [&] {
        return af::cond(
            q, [&] { return x + 2.0f; }, [&] { return x * 3.0f; });
      });
  BOOST_TEST(has_node(g, "cond/Switch_1", "Switch", {"x", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/cond/Switch/Switch", "Switch", {"q", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/cond/add/Switch", "Switch", {"x", "cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/cond/add/Switch_1", "Switch",
                      {"cond/cond/add/Switch", "cond/cond/pred_id"}));
  BOOST_TEST(has_node(g, "cond/Merge", "Merge", {"cond/cond/Merge", "cond/Switch_1:1"}));
  auto grad = af::gradients({af::reduce_sum(r)}, {x})[0];
  af::Session sess(g);
  const Tensor xv = Tensor::from_vector<float>({1, 2});
  auto run = [&](bool pv, bool qv) {
    return sess.run({r, grad}, {{x, xv}, {p, Tensor(pv)}, {q, Tensor(qv)}});
  };
  for (bool qv : {true, false}) {
    auto a = run(true, qv);
    BOOST_TEST(floats(a[0]) == (std::vector<float>{1, 2}));
    BOOST_TEST(floats(a[1]) == (std::vector<float>{1, 1}));
  }
  auto b = run(false, true);
  BOOST_TEST(floats(b[0]) == (std::vector<float>{3, 4}));
  BOOST_TEST(floats(b[1]) == (std::vector<float>{1, 1}));
  auto c = run(false, false);
  BOOST_TEST(floats(c[0]) == (std::vector<float>{3, 6}));
  BOOST_TEST(floats(c[1]) == (std::vector<float>{3, 3}));
}

// Side effects run only in the taken branch: an assign, and ops without inputs (they wait on
// the pivot), including one under control_dependencies.
BOOST_AUTO_TEST_CASE(only_the_taken_branch_has_side_effects, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  auto counter = g.variable(Tensor(0.0f), {.name = "counter"});
  Output r = af::cond(
      p, [&] { return counter.assign_add(g.constant(1.0f)); },
      [&] {
        auto deps = g.control_dependencies({counter.op()});
        return g.constant(-1.0f);
      });
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(r, {{p, Tensor(true)}}).scalar<float>() == 1.0f);
  BOOST_TEST(sess.run(r, {{p, Tensor(false)}}).scalar<float>() == -1.0f);
  BOOST_TEST(sess.run(r, {{p, Tensor(false)}}).scalar<float>() == -1.0f);
  BOOST_TEST(sess.run(r, {{p, Tensor(true)}}).scalar<float>() == 2.0f);
  BOOST_TEST(sess.run(counter.value()).scalar<float>() == 2.0f);
}

// Dead tensors and dead control edges cross devices through _Send/_Recv: branches on CPU:1,
// the predicate and the Merge on CPU:0.
BOOST_AUTO_TEST_CASE(dead_tensors_cross_devices, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  Output x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  Output p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  auto counter = g.variable(Tensor(0.0f), {.name = "counter"});
  Output r = af::cond(
      p,
      [&] {
        auto on = g.device("/cpu:1");
        return x * 2.0f;
      },
      [&] {
        auto on = g.device("/cpu:1");
        Output one = g.constant(1.0f);  // waits on switch_f (CPU:0) through a control edge
        return x + one;
      });
  Output counted;
  {
    auto on = g.device("/cpu:1");
    // Runs only when the true branch is taken: a control edge from the branch's pivot.
    auto deps = g.control_dependencies({g.operation("cond/switch_t")});
    counted = counter.assign_add(g.constant(1.0f));
  }
  af::Session sess(g, config);
  sess.run(g.global_variables_initializer());
  const Tensor xv = Tensor::from_vector<float>({1, 2});
  BOOST_TEST(floats(sess.run(r, {{x, xv}, {p, Tensor(true)}})) == (std::vector<float>{2, 4}));
  BOOST_TEST(floats(sess.run(r, {{x, xv}, {p, Tensor(false)}})) == (std::vector<float>{2, 3}));
  BOOST_TEST(sess.placement().at("cond/mul") == "/job:localhost/replica:0/task:0/device:CPU:1");
  sess.run(std::vector<Output>{}, {{p, Tensor(false)}}, {counted.op()});
  sess.run(std::vector<Output>{}, {{p, Tensor(true)}}, {counted.op()});
  sess.run(std::vector<Output>{}, {{p, Tensor(true)}}, {counted.op()});
  BOOST_TEST(sess.run(counter.value()).scalar<float>() == 2.0f);
}

// TensorFlow's refusals of a cond.
BOOST_AUTO_TEST_CASE(cond_refuses_what_tensorflow_refuses, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output p = g.placeholder(af::boolean);
  const std::string types = error_of([&] {
    af::cond(
        p, [&] { return g.constant(1.0f); }, [&] { return g.constant(1); });
  });
  BOOST_TEST(
      types.find("Outputs of true_fn and false_fn must have the same type(s)") != std::string::npos,
      types);
  const std::string empty = error_of([&] {
    af::cond(
        p, [] { return std::vector<Output>{}; },
        [&] { return std::vector<Output>{g.constant(1)}; });
  });
  BOOST_TEST(empty.find("true_fn must have a return value.") != std::string::npos, empty);
  BOOST_CHECK_THROW(
      af::cond(
          g.constant(1.0f), [&] { return g.constant(1.0f); }, [&] { return g.constant(2.0f); }),
      af::InvalidArgumentError);
}

// A training graph TensorFlow wrote with nested conds on placeholder_with_default predicates
// (its gradients through Switch and Merge are TensorFlow's own nodes): restored from its
// checkpoint, it trains on to TensorFlow's losses, and the eval branch's side effect runs once.
BOOST_AUTO_TEST_CASE(a_tensorflow_graph_with_conds_trains_to_tensorflows_losses,
                     *boost::unit_test::timeout(120)) {
  std::ifstream in(cond_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (cond_dir / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(g.operation("dropout_like/Merge").node()->type() == "Merge");
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<Output>(g.get_collection("losses")[0]);
  af::Session sess(g);
  saver->restore(sess, (cond_dir / ref["prefix"].get<std::string>()).string());
  const Tensor x = matrix(ref["x"]);
  std::vector<std::int64_t> labels;
  for (const auto& v : ref["y"]) labels.push_back(v.get<std::int64_t>());
  const Tensor y = Tensor::from_vector(labels);
  const Output xin = g.output("x:0"), yin = g.output("y:0");
  const Output training = g.output("is_training:0"), deep = g.output("deep:0");
  std::vector<float> losses, shallow;
  for (int i = 0; i < 3; ++i)
    losses.push_back(sess.run({loss}, {{xin, x}, {yin, y}, {training, Tensor(true)}}, {train})[0]
                         .scalar<float>());
  for (int i = 0; i < 2; ++i)
    shallow.push_back(
        sess.run({loss}, {{xin, x}, {yin, y}, {training, Tensor(true)}, {deep, Tensor(false)}},
                 {train})[0]
            .scalar<float>());
  for (std::size_t i = 0; i < 3; ++i)
    BOOST_TEST(losses[i] == ref["losses_after_restore"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  for (std::size_t i = 0; i < 2; ++i)
    BOOST_TEST(shallow[i] == ref["losses_shallow"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  const std::vector<float> probs = floats(sess.run(g.output("probs:0"), {{xin, x}}));
  std::size_t k = 0;
  for (const auto& row : ref["probs_after"])
    for (const auto& v : row)
      BOOST_TEST(probs[k++] == v.get<float>(), boost::test_tools::tolerance(1e-5f));
  BOOST_TEST(sess.run(g.output("evals:0")).scalar<float>() == ref["evals_after"].get<float>());
}

BOOST_AUTO_TEST_SUITE_END()
