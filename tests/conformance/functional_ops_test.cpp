// TensorFlow 2's functional control flow read from GraphDefs: While/StatelessWhile,
// If/StatelessIf, Case and PartitionedCall/StatefulPartitionedCall over a function library, as
// tf.compat.v1 writes them in TensorFlow 2 (control flow v2), lowered into Enter, Switch,
// Merge, ... with the functions inlined (TensorFlow's LowerFunctionalOpsPass). The fixture
// (tests/data/tf_graph/functional, scripts/peers/make_functional_fixtures.py) runs to
// TensorFlow 2.21's values; hand-written libraries check calls by name, control inputs and
// the errors for functions that cannot be inlined.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
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
using af::test::contains;

const std::filesystem::path functional_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "functional";

std::vector<float> floats(const nlohmann::json& v) { return v.get<std::vector<float>>(); }

void check_close(const Tensor& got, const std::vector<float>& want) {
  af::test::check_close(got.to_vector<float>(), want, 1e-5f);
}

/// A scalar Const (float32, or int32 with `type` "INT32"), as a FunctionDef node (or a
/// GraphDef node, `field` "node"), with `inputs` (control inputs, `input: '^x'`).
std::string const_node(const std::string& name, float value, const std::string& field = "node_def",
                       const std::string& type = "FLOAT", const std::string& inputs = "") {
  const std::string v = type == "FLOAT" ? "float_val: " + std::to_string(value)
                                        : "int_val: " + std::to_string(static_cast<int>(value));
  return field + " { name: '" + name + "' op: 'Const' " + inputs +
         " attr { key: 'dtype' value { type: DT_" + type +
         " } } attr { key: 'value' value { tensor { dtype: DT_" + type + " tensor_shape {} " + v +
         " } } } }";
}

/// A library function `name(x: float) -> y: float` whose body is `body` and returns `ret`.
std::string function(const std::string& name, const std::string& body, const std::string& ret,
                     const std::string& inputs = "input_arg { name: 'x' type: DT_FLOAT }") {
  return "function { signature { name: '" + name + "' " + inputs +
         " output_arg { name: 'y' type: DT_FLOAT } } " + body + " ret { key: 'y' value: '" + ret +
         "' } }";
}

const std::string kPlaceholder =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }";

const std::string kScale =
    function("scale",
             const_node("two", 2.0f) +
                 " node_def { name: 'mul' op: 'Mul' input: 'x' input: 'two:output:0' "
                 "attr { key: 'T' value { type: DT_FLOAT } } }",
             "mul:z:0");

/// A PartitionedCall of `f` on x, with the float types of one argument and one result.
std::string call_node(const std::string& name, const std::string& f,
                      const std::string& extra_inputs = "") {
  return "node { name: '" + name + "' op: 'PartitionedCall' input: 'x' " + extra_inputs +
         " attr { key: 'f' value { func { name: '" + f +
         "' } } } attr { key: 'Tin' value { list { type: DT_FLOAT } } } attr { key: 'Tout' "
         "value { list { type: DT_FLOAT } } } }";
}

/// The error of importing the text GraphDef `text`.
std::string import_error(const std::string& text) {
  return af::test::error_of<af::InvalidArgumentError>([&] {
    af::Graph g;
    af::import_graph_def(g, af::parse_graph_def_text(text), {.name = ""});
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_ops_test)

// The fixture's loops, conds and calls give TensorFlow's values, run after run, with the
// side effects of a loop body (a resource variable assigned per iteration), of a stateful
// tf.function and of a cond with no outputs.
BOOST_AUTO_TEST_CASE(tensorflow_written_functional_control_flow_gives_tensorflows_values,
                     *boost::unit_test::timeout(120)) {
  std::ifstream in(functional_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  const auto ops = ref["ops"].get<std::vector<std::string>>();
  for (const char* op : {"While", "StatelessWhile", "If", "StatelessIf", "PartitionedCall",
                         "StatefulPartitionedCall"})
    BOOST_TEST(std::count(ops.begin(), ops.end(), op) == 1, op);
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  sess.run({}, {}, {g.operation("init")});
  const Tensor x = Tensor::from_vector(floats(ref["x"]));
  const Output n_in = g.output("n"), x_in = g.output("x"), p_in = g.output("p");
  const Output calls = af::read_variable_op(g.output("calls"), af::float32, "read_calls");
  for (const auto& run : ref["runs"]) {
    const int n = run["n"].get<int>();
    BOOST_TEST_CONTEXT("n = " << n) {
      std::vector<Output> fetches;
      for (const char* name :
           {"sum_out", "nested_out", "power_out", "loop_in_cond_out", "collatz_out", "count_out",
            "call_out", "call_out_1", "stateful_call_out", "branch_out"})
        fetches.push_back(g.output(name));
      const auto out = sess.run(fetches, {{n_in, Tensor(n)}, {x_in, x}});
      check_close(out[0], floats(run["sum"]));
      BOOST_TEST(out[1].scalar<std::int32_t>() == run["nested"].get<int>());
      std::vector<float> power;
      for (const auto& row : run["power"]) power.push_back(row[0].get<float>());
      check_close(out[2], power);
      BOOST_TEST(out[3].scalar<std::int32_t>() == run["in_cond"].get<int>());
      BOOST_TEST(out[4].scalar<std::int32_t>() == run["collatz"].get<int>());
      BOOST_TEST(out[5].scalar<std::int32_t>() == run["count"].get<int>());
      check_close(out[6], floats(run["call"]));
      check_close(out[7], floats(run["call_1"]));
      BOOST_TEST(out[8].scalar<float>() == run["stateful_call"].get<float>(),
                 boost::test_tools::tolerance(1e-6f));
      check_close(out[9], floats(run["branch"]));
      const auto not_in_cond =
          sess.run(g.output("loop_in_cond_out"), {{n_in, Tensor(n)}, {p_in, Tensor(false)}});
      BOOST_TEST(not_in_cond.scalar<std::int32_t>() == run["not_in_cond"].get<int>());
      check_close(sess.run(g.output("branch_out"), {{x_in, x}, {p_in, Tensor(false)}}),
                  floats(run["branch_false"]));
      BOOST_TEST(sess.run(g.output("counter_out")).scalar<std::int32_t>() ==
                 run["counter"].get<int>());
      BOOST_TEST(sess.run(calls).scalar<float>() == run["calls"].get<float>());
      BOOST_TEST(
          sess.run(g.output("flips_out"), {{p_in, Tensor(n % 2 == 1)}}).scalar<std::int32_t>() ==
          run["flips"].get<int>());
    }
  }
}

// tf.switch_case's StatelessCase: the branch of the index, the last one for an index out of range.
BOOST_AUTO_TEST_CASE(a_tensorflow_switch_case_runs_the_branch_of_its_index,
                     *boost::unit_test::timeout(60)) {
  std::ifstream in(functional_dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  const auto ops = ref["ops"].get<std::vector<std::string>>();
  BOOST_TEST(std::count(ops.begin(), ops.end(), "StatelessCase") == 1);
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "graph.pb").string()), {.name = ""});
  BOOST_TEST(g.operation("pick/indexed_case").node()->type() == "IdentityN");
  BOOST_TEST(g.operation("pick/indexed_case/default_branch").node()->type() == "LogicalNot");
  af::Session sess(g);
  const Tensor x = Tensor::from_vector(floats(ref["x"]));
  const auto indices = ref["case_indices"].get<std::vector<int>>();
  BOOST_TEST_REQUIRE(indices.size() == ref["picks"].size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    BOOST_TEST_CONTEXT("index " << indices[i]) {
      check_close(
          sess.run(g.output("pick_out"), {{g.output("x"), x}, {g.output("k"), Tensor(indices[i])}}),
          floats(ref["picks"][i]));
    }
  }
}

// What the lowering leaves: an IdentityN under the functional node's name, the loop's
// frame named after it, the functions inlined under it; no functional node remains.
BOOST_AUTO_TEST_CASE(a_lowered_node_keeps_its_name_and_inlines_its_functions,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "graph.pb").string()), {.name = ""});
  BOOST_TEST(g.operation("sum").node()->type() == "IdentityN");
  BOOST_TEST(g.operation("sum").node()->num_outputs() == 6);  // counter and bound added
  BOOST_TEST(g.operation("sum/LoopCond").node()->type() == "LoopCond");
  const auto& enter = g.operation("sum/enter").node()->def();
  BOOST_TEST(enter.op == "Enter");
  BOOST_TEST(*enter.attr<std::string>("frame_name") == "sum");
  BOOST_TEST(g.operation("branch").node()->type() == "IdentityN");
  BOOST_TEST(g.operation("branch/switch_pred").node()->type() == "Switch");
  BOOST_TEST(g.operation("side_effect").node()->type() == "IdentityN");  // a bool output
  bool body_inlined = false, then_inlined = false;
  for (const af::Node* node : g.nodes()) {
    BOOST_TEST_CONTEXT(node->name()) {
      BOOST_TEST(!contains(node->type(), "While"));
      BOOST_TEST(!contains(node->type(), "If"));
      BOOST_TEST(!contains(node->type(), "PartitionedCall"));
    }
    body_inlined |= af::test::starts_with(node->name(), "sum/body/");
    then_inlined |= af::test::starts_with(node->name(), "branch/then/");
  }
  BOOST_TEST(body_inlined);
  BOOST_TEST(then_inlined);
}

// actorflow's own gradients run through a lowered If (its Switches and Merges).
BOOST_AUTO_TEST_CASE(gradients_run_through_a_lowered_cond, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "graph.pb").string()), {.name = ""});
  const Output x_in = g.output("x"), p_in = g.output("p");
  const Output dx = af::gradients({g.output("branch_out")}, {x_in})[0];
  af::Session sess(g);
  const std::vector<float> xs = {0.5f, -1.0f, 2.0f};
  std::vector<float> then_grad, else_grad;
  for (float v : xs) {
    then_grad.push_back(std::cos(v) * v + std::sin(v));  // d(sin(x) x)
    else_grad.push_back(2 * v - 1);                      // d(x^2 - x)
  }
  check_close(sess.run(dx, {{x_in, Tensor::from_vector(xs)}}), then_grad);
  check_close(sess.run(dx, {{x_in, Tensor::from_vector(xs)}, {p_in, Tensor(false)}}), else_grad);
}

// A function called by name and through PartitionedCall, one call waiting on the other.
BOOST_AUTO_TEST_CASE(library_functions_are_called_by_name_and_through_partitioned_call,
                     *boost::unit_test::timeout(60)) {
  const std::string text = kPlaceholder + " node { name: 'direct' op: 'scale' input: 'x' } " +
                           call_node("call", "scale", "input: '^direct'") + " library { " + kScale +
                           " }";
  af::Graph g;
  af::import_graph_def(g, af::parse_graph_def_text(text), {.name = ""});
  BOOST_TEST(g.operation("direct").node()->type() == "IdentityN");
  BOOST_TEST(g.operation("direct/mul").node()->type() == "Mul");
  // The call's control input reaches the inlined body through its argument's Identity.
  const auto& input = g.operation("call/input").node()->def();
  BOOST_TEST(input.inputs == std::vector<std::string>({"x", "^call/input_control_node"}));
  af::Session sess(g);
  const auto out = sess.run({g.output("direct"), g.output("call")},
                            {{g.output("x"), Tensor::from_vector<float>({1.5f, -2.0f})}});
  check_close(out[0], {3.0f, -4.0f});
  check_close(out[1], {3.0f, -4.0f});
}

// An If without outputs, run for the stateful node of its then branch (the function's
// control_ret): `^c` waits for the branch taken, and the else branch does nothing.
BOOST_AUTO_TEST_CASE(a_cond_without_outputs_completes_after_its_branchs_control_outputs,
                     *boost::unit_test::timeout(60)) {
  const std::string text =
      "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } } } "
      "node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape {} } } attr { key: 'shared_name' value { s: 'v' } } } " +
      const_node("zero", 0.0f, "node") +
      " node { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'zero' attr { key: "
      "'dtype' value { type: DT_FLOAT } } } "
      "node { name: 'c' op: 'If' input: 'p' input: 'v' attr { key: 'Tcond' value { type: "
      "DT_BOOL } } attr { key: 'Tin' value { list { type: DT_RESOURCE } } } attr { key: 'Tout' "
      "value { list { } } } attr { key: 'then_branch' value { func { name: 'bump' } } } attr { "
      "key: 'else_branch' value { func { name: 'skip' } } } } "
      "node { name: 'r' op: 'ReadVariableOp' input: 'v' input: '^c' attr { key: 'dtype' value "
      "{ type: DT_FLOAT } } } "
      "library { function { signature { name: 'bump' input_arg { name: 'h' type: DT_RESOURCE } "
      "control_output: 'add' } " +
      const_node("one", 1.0f) +
      " node_def { name: 'add' op: 'AssignAddVariableOp' input: 'h' input: 'one:output:0' attr "
      "{ key: 'dtype' value { type: DT_FLOAT } } } control_ret { key: 'add' value: 'add' } } "
      "function { signature { name: 'skip' input_arg { name: 'h' type: DT_RESOURCE } } } }";
  af::Graph g;
  af::import_graph_def(g, af::parse_graph_def_text(text), {.name = ""});
  const auto& c = g.operation("c").node()->def();
  BOOST_TEST(c.op == "NoOp");
  BOOST_TEST(c.inputs == std::vector<std::string>({"^c/branch_executed"}));
  af::Session sess(g);
  sess.run({}, {}, {g.operation("init")});
  const Output p = g.output("p"), r = g.output("r");
  std::vector<float> values;
  for (bool taken : {true, false, true, true, false})
    values.push_back(sess.run(r, {{p, Tensor(taken)}}).scalar<float>());
  BOOST_TEST(values == std::vector<float>({1, 1, 2, 3, 3}), boost::test_tools::per_element());
}

// A call in a loop body: the called function's Consts run in the loop's frame, once per
// iteration, as the body's own.
BOOST_AUTO_TEST_CASE(a_call_in_a_loop_body_runs_in_the_loops_frame,
                     *boost::unit_test::timeout(60)) {
  const std::string int_arg = "input_arg { name: 'i' type: DT_INT32 }";
  const std::string text =
      const_node("zero", 0, "node", "INT32") +
      " node { name: 'w' op: 'While' input: 'zero' attr { key: 'T' value { list { type: DT_INT32 "
      "} } } attr { key: 'cond' value { func { name: 'below5' } } } attr { key: 'body' value { "
      "func { name: 'step' } } } } library { function { signature { name: 'below5' " +
      int_arg + " output_arg { name: 'b' type: DT_BOOL } } " +
      const_node("five", 5, "node_def", "INT32") +
      " node_def { name: 'less' op: 'Less' input: 'i' input: 'five:output:0' attr { key: 'T' "
      "value { type: DT_INT32 } } } ret { key: 'b' value: 'less:z:0' } } function { signature { "
      "name: 'step' " +
      int_arg +
      " output_arg { name: 'o' type: DT_INT32 } } node_def { name: 'call' op: 'PartitionedCall' "
      "input: 'i' attr { key: 'f' value { func { name: 'addone' } } } attr { key: 'Tin' value { "
      "list { type: DT_INT32 } } } attr { key: 'Tout' value { list { type: DT_INT32 } } } } ret "
      "{ key: 'o' value: 'call:output:0' } } function { signature { name: 'addone' " +
      int_arg + " output_arg { name: 'y' type: DT_INT32 } } " +
      const_node("one", 1, "node_def", "INT32") +
      " node_def { name: 'add' op: 'AddV2' input: 'i' input: 'one:output:0' attr { key: 'T' "
      "value { type: DT_INT32 } } } ret { key: 'y' value: 'add:z:0' } } }";
  af::Graph g;
  af::import_graph_def(g, af::parse_graph_def_text(text), {.name = ""});
  af::Session sess(g);
  BOOST_TEST(sess.run(g.output("w")).scalar<std::int32_t>() == 5);
}

// A branch node whose only input is a control input from an argument runs in its branch
// only: `^x` is dead where x's Switch output is.
BOOST_AUTO_TEST_CASE(a_control_input_from_an_argument_is_dead_in_the_branch_not_taken,
                     *boost::unit_test::timeout(60)) {
  const std::string text =
      kPlaceholder +
      " node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } } } node "
      "{ name: 'c' op: 'If' input: 'p' input: 'x' attr { key: 'Tin' value { list { type: "
      "DT_FLOAT } } } attr { key: 'Tout' value { list { type: DT_FLOAT } } } attr { key: "
      "'then_branch' value { func { name: 'one' } } } attr { key: 'else_branch' value { func { "
      "name: 'two' } } } } library { " +
      function("one", const_node("k", 1, "node_def", "FLOAT", "input: '^x'"), "k:output:0") + " " +
      function("two", const_node("k", 2, "node_def", "FLOAT", "input: '^x'"), "k:output:0") + " }";
  af::Graph g;
  af::import_graph_def(g, af::parse_graph_def_text(text), {.name = ""});
  af::Session sess(g);
  const Tensor x = Tensor::from_vector<float>({0.5f});
  for (int run = 0; run < 20; ++run) {  // both Consts live would let either win the Merge
    BOOST_TEST(sess.run(g.output("c"), {{g.output("x"), x}, {g.output("p"), Tensor(true)}})
                   .scalar<float>() == 1.0f);
    BOOST_TEST(sess.run(g.output("c"), {{g.output("x"), x}, {g.output("p"), Tensor(false)}})
                   .scalar<float>() == 2.0f);
  }
}

// Functions that cannot be inlined: the error names the node and the function.
BOOST_AUTO_TEST_CASE(functions_that_cannot_be_inlined_get_clear_errors,
                     *boost::unit_test::timeout(60)) {
  std::string e =
      import_error(kPlaceholder + call_node("call", "missing") + " library { " + kScale + " }");
  BOOST_TEST(contains(e,
                      "node 'call' (PartitionedCall): function 'missing' is not in the "
                      "graph's library"),
             e);
  e = import_error(kPlaceholder + " node { name: 'c' op: 'scale' input: 'x' input: 'x' } " +
                   "library { " + kScale + " }");
  BOOST_TEST(contains(e, "node 'c' (scale): function 'scale' takes 1 arguments, given 2"), e);
  // A function calling itself.
  e = import_error(
      kPlaceholder + " node { name: 'r' op: 'again' input: 'x' } library { " +
      function("again", "node_def { name: 'inner' op: 'again' input: 'x' }", "inner:y:0") + " }");
  BOOST_TEST(contains(e, "inlined more than 64 levels deep"), e);
  // Calls nested many times over (each level calling the next twice: 2^40 nodes) stop at a
  // bound on what inlining may make of the input.
  std::string fanout = kPlaceholder + " node { name: 'top' op: 'f0' input: 'x' } library { ";
  for (int level = 0; level < 40; ++level) {
    const std::string next = "f" + std::to_string(level + 1);
    fanout += function("f" + std::to_string(level),
                       "node_def { name: 'a' op: '" + next + "' input: 'x' } node_def { name: " +
                           "'b' op: '" + next + "' input: 'a:y:0' }",
                       "b:y:0");
  }
  e = import_error(fanout + function("f40", "", "x") + " }");
  BOOST_TEST(contains(e, "inlining makes more than"), e);
  // A function cannot take an op's name (TensorFlow's FunctionLibraryDefinition).
  e = import_error(kPlaceholder + " node { name: 'n' op: 'NoOp' } library { " +
                   function("NoOp", "", "x") + " }");
  BOOST_TEST(contains(e, "library function 'NoOp' has the name of an op"), e);
  // An output argument the op does not have, and an input naming nothing.
  e = import_error(kPlaceholder + call_node("bad", "f") + " library { " +
                   function("f",
                            "node_def { name: 'u' op: 'Unique' input: 'x' attr { key: 'T' "
                            "value { type: DT_FLOAT } } }",
                            "u:nope:0") +
                   " }");
  BOOST_TEST(contains(e, "function 'f', output 'y': Unique has no output 'nope:0'"), e);
  e = import_error(kPlaceholder + call_node("bad", "f") + " library { " +
                   function("f",
                            "node_def { name: 'i' op: 'Identity' input: 'ghost' attr { key: "
                            "'T' value { type: DT_FLOAT } } }",
                            "i:output:0") +
                   " }");
  BOOST_TEST(contains(e, "function 'f', node 'i': input 'ghost' names no argument or node"), e);
  // A loop whose body gives fewer values than it has loop variables.
  const std::string loop =
      kPlaceholder +
      " node { name: 'w' op: 'While' input: 'x' input: 'x' attr { key: 'T' value { list { "
      "type: DT_FLOAT type: DT_FLOAT } } } attr { key: 'cond' value { func { name: 'c' } } } "
      "attr { key: 'body' value { func { name: 'b' } } } } library { " +
      function("c",
               "node_def { name: 'k' op: 'Const' attr { key: 'dtype' value { type: DT_BOOL } } "
               "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: "
               "false } } } }",
               "k:output:0",
               "input_arg { name: 'x' type: DT_FLOAT } input_arg { name: 'z' type: DT_FLOAT }") +
      " " +
      function("b", "", "x",
               "input_arg { name: 'x' type: DT_FLOAT } input_arg { name: 'z' type: DT_FLOAT }") +
      " }";
  e = import_error(loop);
  BOOST_TEST(contains(e, "node 'w' (While): body function 'b' has 1 outputs for 2 loop variables"),
             e);
}

BOOST_AUTO_TEST_SUITE_END()
