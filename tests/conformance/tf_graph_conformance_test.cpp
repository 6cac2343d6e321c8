// Graphs TensorFlow 2.21 built in tf.compat.v1 mode (tests/data/tf_graph, written by
// scripts/peers/make_graph_fixtures.py): an MLP with Adam, a Saver and a merged scalar
// summary. Its .meta imports with its Saver and collections, restores TensorFlow's
// checkpoint through the imported save ops and trains on to TensorFlow's losses step by
// step; its text and binary GraphDefs import alike; its frozen inference graph gives
// TensorFlow's outputs.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <actorflow/actorflow.hpp>

#include "temp_dir.hpp"

namespace {

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph";

nlohmann::json reference() {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

af::Tensor matrix(const nlohmann::json& rows) {
  std::vector<float> values;
  for (const auto& row : rows)
    for (const auto& v : row) values.push_back(v.get<float>());
  return af::Tensor::from_vector(values, af::Shape{static_cast<std::int64_t>(rows.size()),
                                                   static_cast<std::int64_t>(rows[0].size())});
}

void check_close(const std::vector<float>& got, const nlohmann::json& want, float tolerance) {
  std::vector<float> expected;
  for (const auto& row : want)
    if (row.is_array())
      for (const auto& v : row) expected.push_back(v.get<float>());
    else
      expected.push_back(row.get<float>());
  BOOST_REQUIRE_EQUAL(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) BOOST_TEST(got[i] == expected[i], boost::test_tools::tolerance(tolerance));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tf_graph_conformance_test)

BOOST_AUTO_TEST_CASE(a_tensorflow_meta_graph_restores_and_trains_to_tensorflows_losses, *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (dir / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(saver->restore_op().name() == "save/restore_all");
  BOOST_TEST(g.global_variables().size() == 15u);  // 4 weights, 8 Adam slots, 2 beta powers, global_step
  BOOST_TEST(g.get_collection("trainable_variables").size() == 4u);
  BOOST_REQUIRE(g.get_collection("train_op").size() == 1u);
  BOOST_REQUIRE(g.get_collection("losses").size() == 1u);
  BOOST_REQUIRE(g.get_collection("summaries").size() == 1u);
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<af::Output>(g.get_collection("losses")[0]);
  af::Session sess(g);
  saver->restore(sess, (dir / ref["prefix"].get<std::string>()).string());
  const af::Tensor x = matrix(ref["x"]);
  std::vector<std::int64_t> labels;
  for (const auto& v : ref["y"]) labels.push_back(v.get<std::int64_t>());
  const af::Tensor y = af::Tensor::from_vector(labels);
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i) {
    auto out = sess.run({loss}, {{g.output("x:0"), x}, {g.output("y:0"), y}}, {train});
    losses.push_back(out[0].scalar<float>());
  }
  check_close(losses, ref["losses_after_restore"], 1e-5f);
  check_close(sess.run(g.output("probs:0"), {{g.output("x:0"), x}}).to_vector<float>(), ref["probs_after"], 1e-5f);
  BOOST_TEST(sess.run(g.output("global_step:0")).scalar<std::int64_t>() == 6);
  // The merged summary is a tensorflow.Summary of the one scalar.
  const auto summary = std::any_cast<af::Output>(g.get_collection("summaries")[0]);
  af::Tensor bytes = sess.run(af::summary::merge({summary}), {{g.output("x:0"), x}, {g.output("y:0"), y}});
  BOOST_TEST(bytes.scalar<std::string>().size() == ref["summary_bytes"].get<std::size_t>());
  // And actorflow's saver of the imported graph writes a checkpoint and .meta TensorFlow can read.
  af::test::TempDir out;
  const std::string prefix = saver->save(sess, (out.path / "again").string());
  BOOST_TEST(std::filesystem::exists(prefix + ".meta"));
  af::Graph h;
  auto again = af::train::import_meta_graph(h, prefix + ".meta");
  af::Session check(h);
  again->restore(check, prefix);
  check_close(check.run(h.output("probs:0"), {{h.output("x:0"), x}}).to_vector<float>(), ref["probs_after"], 1e-6f);
}

BOOST_AUTO_TEST_CASE(tensorflows_text_and_binary_graph_defs_import_alike, *boost::unit_test::timeout(60)) {
  const af::GraphDef text = af::read_graph_def((dir / "graph.pbtxt").string());
  const af::GraphDef binary = af::read_graph_def((dir / "graph.pb").string());
  BOOST_TEST((text == binary));
  BOOST_TEST(text.version == 2474);
  // Written back as TensorFlow writes it: the same text, byte for byte, but for the
  // experimental_type blocks of TensorFlow's type inference, which actorflow drops.
  std::ifstream in(dir / "graph.pbtxt");
  std::string original, line;
  for (bool skipping = false; std::getline(in, line);) {
    if (line == "  experimental_type {") skipping = true;
    if (!skipping) original += line + "\n";
    if (skipping && line == "  }") skipping = false;
  }
  BOOST_TEST(af::graph_def_to_text(text) == original);
  af::Graph g;
  auto out = af::import_graph_def(g, binary, {.return_elements = {"probs:0", "Adam"}});
  BOOST_TEST(std::get<af::Output>(out[0]).name() == "import/probs:0");
  BOOST_TEST(std::get<af::Operation>(out[1]).name() == "import/Adam");
}

BOOST_AUTO_TEST_CASE(a_frozen_inference_graph_gives_tensorflows_outputs, *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  af::Graph g;
  auto out = af::import_graph_def(g, af::read_graph_def((dir / "frozen.pb").string()),
                                  {.return_elements = {"x:0", "probs:0"}, .name = ""});
  af::Session sess(g);
  auto probs = sess.run(std::get<af::Output>(out[1]), {{std::get<af::Output>(out[0]), matrix(ref["x"])}});
  check_close(probs.to_vector<float>(), ref["frozen_probs"], 1e-6f);
}

BOOST_AUTO_TEST_SUITE_END()
