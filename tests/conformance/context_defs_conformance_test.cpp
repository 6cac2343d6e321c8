// Control-flow contexts in a MetaGraphDef (control_flow_ops.py's to_proto / from_proto):
// a forward graph TensorFlow exported with two while loops (one holding a cond) and a cond
// (tests/data/tf_graph/while/forward, make_graph_fixtures.py make-while-forward) imports with
// its contexts, so af::gradients builds its gradient loops and it trains to the losses
// TensorFlow computes after the same import; the contexts written here, for the imported
// graph and for the same graph built with af::while_loop and af::cond, are TensorFlow's.
#include <google/protobuf/util/message_differencer.h>

#include <actorflow/actorflow.hpp>
#include <actorflow/formats/meta_graph.hpp>
#include <actorflow/ops/control_flow_defs.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actorflow/tf/control_flow.pb.h"
#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using Vars = std::vector<Output>;

const std::filesystem::path forward_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "while" / "forward";

nlohmann::json reference() {
  std::ifstream in(forward_dir / "reference.json");
  return nlohmann::json::parse(in);
}

af::MetaGraphDef forward_meta() {
  return af::read_meta_graph_def((forward_dir / "forward.meta").string());
}

Tensor matrix(const nlohmann::json& rows) {
  std::vector<float> values;
  for (const auto& row : rows)
    for (const auto& v : row) values.push_back(v.get<float>());
  const auto n = static_cast<std::int64_t>(rows.size());
  return Tensor::from_vector(values, af::Shape{n, static_cast<std::int64_t>(values.size()) / n});
}

void check_matrix(const Tensor& got, const nlohmann::json& want, float tolerance) {
  const Tensor w = matrix(want);
  BOOST_REQUIRE(got.shape() == w.shape());
  for (std::int64_t i = 0; i < w.num_elements(); ++i)
    BOOST_TEST(got.data<float>()[i] == w.data<float>()[i], boost::test_tools::tolerance(tolerance));
}

/// Whether two serialized context messages of type M say the same (map order aside).
template <class M>
bool same_message(const std::string& a, const std::string& b, std::string* diff) {
  M ma, mb;
  BOOST_REQUIRE(ma.ParseFromString(a));
  BOOST_REQUIRE(mb.ParseFromString(b));
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(diff);
  return differ.Compare(ma, mb);
}

/// Checks that `written`'s while_context and cond_context collections are TensorFlow's.
void expect_tensorflows_contexts(const af::MetaGraphDef& written) {
  const af::MetaGraphDef tf = forward_meta();
  for (const std::string key : {"while_context", "cond_context"}) {
    BOOST_REQUIRE_MESSAGE(written.collections.count(key), key);
    const auto& want = tf.collections.at(key).bytes_list;
    const auto& got = written.collections.at(key).bytes_list;
    BOOST_REQUIRE_EQUAL(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      std::string diff;
      const bool same = key == "while_context"
                            ? same_message<tensorflow::WhileContextDef>(got[i], want[i], &diff)
                            : same_message<tensorflow::CondContextDef>(got[i], want[i], &diff);
      BOOST_TEST(same, key << " " << i << ":\n" << diff);
    }
  }
}

/// Imports forward.meta into `g` under `scope`; returns the loss.
Output import_forward(af::Graph& g, const std::string& scope = {}) {
  af::train::import_meta_graph(g, forward_meta(), {.import_scope = scope});
  return g.output(scope.empty() ? "loss" : scope + "/loss");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(context_defs_conformance_test)

BOOST_AUTO_TEST_CASE(tensorflows_forward_graph_trains_through_its_imported_loops_and_conds,
                     *boost::unit_test::timeout(120)) {
  const auto ref = reference();
  af::Graph g;
  const Output loss = import_forward(g);
  BOOST_TEST(g.get_collection("while_context").size() == ref["while_contexts"].get<std::size_t>());
  BOOST_TEST(g.get_collection("cond_context").size() == ref["cond_contexts"].get<std::size_t>());
  const Output x = g.output("x"), y = g.output("y"), steps = g.output("steps"),
               training = g.output("training");
  const Vars grads = af::gradients(
      {loss}, {x, g.output("in/kernel"), g.output("rec/kernel"), g.output("out/kernel")});
  af::train::GradientDescentOptimizer opt(0.5);
  const af::Operation train = opt.minimize(loss);
  af::Session sess(g);
  sess.run({}, {}, {g.global_variables_initializer()});
  const af::FeedDict feed = {{x, matrix(ref["x"])},
                             {y, Tensor::from_vector(ref["y"].get<std::vector<std::int64_t>>())}};
  const std::vector<Tensor> first = sess.run(grads, feed);
  for (std::size_t i = 0; i < grads.size(); ++i) check_matrix(first[i], ref["gradients"][i], 1e-4f);
  for (std::size_t i = 0; i < 3; ++i)
    BOOST_TEST(sess.run({loss}, feed, {train})[0].scalar<float>() == ref["losses"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  af::FeedDict longer = feed;
  longer.push_back({steps, Tensor(5)});
  longer.push_back({training, Tensor(false)});
  for (std::size_t i = 0; i < 2; ++i)
    BOOST_TEST(sess.run({loss}, longer, {train})[0].scalar<float>() ==
                   ref["losses_5_steps_not_training"][i].get<float>(),
               boost::test_tools::tolerance(1e-5f));
  check_matrix(sess.run(g.output("probs"), {feed[0]}), ref["probs_after"], 1e-5f);
}

BOOST_AUTO_TEST_CASE(an_imported_graph_writes_its_contexts_back_as_tensorflow_wrote_them,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  import_forward(g);
  expect_tensorflows_contexts(af::train::export_meta_graph(g));
}

BOOST_AUTO_TEST_CASE(loops_and_conds_built_here_write_tensorflows_contexts,
                     *boost::unit_test::timeout(60)) {
  // make_graph_fixtures.py make_while_forward's graph, op for op.
  af::Graph g;
  const Output x = g.placeholder(af::float32, af::PartialShape{-1, 4}, "x");
  const Output y = g.placeholder(af::int64, af::PartialShape{-1}, "y");
  auto with_default = [&](Tensor value, af::DType dtype, const std::string& name) {
    return g
        .create_op("PlaceholderWithDefault", {g.constant(value, name + "/input")},
                   {{"dtype", dtype}, {"shape", af::PartialShape(af::Shape{})}}, name)
        .output(0);
  };
  const Output steps = with_default(Tensor(3), af::int32, "steps");
  const Output training = with_default(Tensor(true), af::boolean, "training");
  auto variable = [&](const std::string& name, af::Shape shape) {
    std::vector<float> ramp(static_cast<std::size_t>(shape.num_elements()));
    for (std::size_t i = 0; i < ramp.size(); ++i)
      ramp[i] = 0.02f * static_cast<float>(static_cast<int>(i % 11) - 5);
    return g.variable(Tensor::from_vector(ramp, shape), {.name = name});
  };
  af::Variable w = variable("in/kernel", af::Shape{4, 8});
  af::Variable u = variable("rec/kernel", af::Shape{8, 8});
  af::Variable v = variable("out/kernel", af::Shape{8, 3});
  const Output h0 = af::tanh(af::matmul(x, w));
  Vars rnn = af::while_loop([&](const Vars& s) { return af::less(s[0], steps); },
                            [&](const Vars& s) {
                              return Vars{s[0] + 1, af::tanh(af::matmul(s[1], u) + h0)};
                            },
                            {g.constant(0), h0}, {.name = "rnn"});
  const Output scaled = af::cond(
      training, [&] { return rnn[1] * 0.9f; }, [&] { return af::identity(rnn[1]); }, "scale");
  // `i < 2` and `i > 0`: Python's comparison operators, the number a Const "<op>/y".
  auto less_than = [](const Output& a, double b) {
    return af::detail::with_scalar(a, b, false, "Less",
                                   [](auto& l, auto& r, auto n) { return af::less(l, r, n); });
  };
  auto greater_than = [](const Output& a, double b) {
    return af::detail::with_scalar(a, b, false, "Greater",
                                   [](auto& l, auto& r, auto n) { return af::greater(l, r, n); });
  };
  Vars twice =
      af::while_loop([&](const Vars& s) { return less_than(s[0], 2); },
                     [&](const Vars& s) {
                       const Output a = s[1];
                       return Vars{s[0] + 1, af::cond(
                                                 greater_than(s[0], 0), [&] { return a * 1.5f; },
                                                 [&] { return a + 0.25f; })};
                     },
                     {g.constant(0), scaled}, {.name = "twice"});
  const Output logits = af::matmul(twice[1], v);
  af::identity(af::reduce_mean(af::nn::sparse_softmax_cross_entropy_with_logits(y, logits)),
               "loss");
  // For TensorFlow's Python to differentiate (make_graph_fixtures.py check-loop-meta).
  const char* keep = std::getenv("ACTORFLOW_WRITE_LOOP_META");
  expect_tensorflows_contexts(af::train::export_meta_graph(g, keep ? keep : ""));
}

BOOST_AUTO_TEST_CASE(an_import_scope_names_the_contexts_and_their_frames,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  af::Graph g;
  const Output loss = import_forward(g, "m");
  const auto* frame = g.operation("m/rnn/Enter").node()->def().attr<std::string>("frame_name");
  BOOST_REQUIRE(frame);
  BOOST_TEST(*frame == "m/rnn/while_context");
  const Vars grads = af::gradients({loss}, {g.output("m/rec/kernel")});
  af::Session sess(g);
  sess.run({}, {}, {g.global_variables_initializer()});
  check_matrix(
      sess.run(grads[0],
               {{g.output("m/x"), matrix(ref["x"])},
                {g.output("m/y"), Tensor::from_vector(ref["y"].get<std::vector<std::int64_t>>())}}),
      ref["gradients"][2], 1e-4f);
}

BOOST_AUTO_TEST_CASE(a_bad_context_entry_is_refused_naming_the_collection,
                     *boost::unit_test::timeout(60)) {
  af::MetaGraphDef meta = forward_meta();
  meta.collections["while_context"].bytes_list[0] = "\xff\xff not a message";
  af::Graph g;
  std::string e = af::test::error_of([&] { af::train::import_meta_graph(g, meta); });
  BOOST_TEST(af::test::contains(e, "collection 'while_context': not a binary WhileContextDef"), e);

  meta = forward_meta();
  tensorflow::CondContextDef def;
  BOOST_REQUIRE(def.ParseFromString(meta.collections["cond_context"].bytes_list[0]));
  def.set_pivot_name("scale/nowhere:0");
  meta.collections["cond_context"].bytes_list[0] = def.SerializeAsString();
  af::Graph h;
  e = af::test::error_of<af::NotFoundError>([&] { af::train::import_meta_graph(h, meta); });
  BOOST_TEST(af::test::contains(e, "collection 'cond_context': no tensor 'scale/nowhere:0'"), e);
}

BOOST_AUTO_TEST_SUITE_END()
