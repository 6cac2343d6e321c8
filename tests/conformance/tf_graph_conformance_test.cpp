// Graphs TensorFlow 2.21 built in tf.compat.v1 mode (tests/data/tf_graph, written by
// scripts/peers/make_graph_fixtures.py): an MLP with Adam, a Saver and a merged scalar
// summary; the same MLP with resource variables (VarHandleOp, ResourceApplyAdam) and a
// histogram; a CNN with Momentum and image and text summaries. Each .meta imports with its
// Saver and collections, restores TensorFlow's checkpoint through the imported save ops and
// trains on to TensorFlow's losses step by step; the MLP's text and binary GraphDefs import
// alike; its frozen inference graph gives TensorFlow's outputs.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "free_port.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph";

nlohmann::json reference(const std::filesystem::path& d = dir) {
  std::ifstream in(d / "reference.json");
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
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(got[i] == expected[i], boost::test_tools::tolerance(tolerance));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tf_graph_conformance_test)

// Imports D/model-3.meta, restores D's checkpoint, trains 3 steps and checks TensorFlow's
// losses, the outputs, the global step and the size of the merged summary; then saves with
// the imported saver and restores that into a fresh import. Returns the merged summary.
std::string import_restore_and_train(const std::filesystem::path& d, std::size_t variables,
                                     std::size_t trainable, std::size_t summaries) {
  const auto ref = reference(d);
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (d / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(saver->restore_op().name() == "save/restore_all");
  BOOST_TEST(g.global_variables().size() == variables);
  BOOST_TEST(g.get_collection("trainable_variables").size() == trainable);
  BOOST_REQUIRE(g.get_collection("train_op").size() == 1u);
  BOOST_REQUIRE(g.get_collection("losses").size() == 1u);
  BOOST_REQUIRE(g.get_collection("summaries").size() == summaries);
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<af::Output>(g.get_collection("losses")[0]);
  af::Session sess(g);
  saver->restore(sess, (d / ref["prefix"].get<std::string>()).string());
  const af::Output x_in = g.output("x:0");
  af::Tensor x = matrix(ref["x"]);
  if (x_in.shape().rank() == 4) x = x.reshaped(af::Shape{6, 6, 6, 1});
  std::vector<std::int64_t> labels;
  for (const auto& v : ref["y"]) labels.push_back(v.get<std::int64_t>());
  const af::Tensor y = af::Tensor::from_vector(labels);
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i) {
    auto out = sess.run({loss}, {{x_in, x}, {g.output("y:0"), y}}, {train});
    losses.push_back(out[0].scalar<float>());
  }
  check_close(losses, ref["losses_after_restore"], 1e-5f);
  check_close(sess.run(g.output("probs:0"), {{x_in, x}}).to_vector<float>(), ref["probs_after"],
              1e-5f);
  BOOST_TEST(sess.run(g.output("global_step:0")).scalar<std::int64_t>() == 6);
  // The merged summary: TensorFlow's size (PNG bytes aside: zlib's output may differ).
  std::vector<af::Output> parts;
  for (const auto& s : g.get_collection("summaries")) parts.push_back(std::any_cast<af::Output>(s));
  af::Tensor bytes = sess.run(af::summary::merge(parts), {{x_in, x}, {g.output("y:0"), y}});
  const std::string merged = bytes.scalar<std::string>();
  if (!ref.contains("summary_tags"))
    BOOST_TEST(merged.size() == ref["summary_bytes"].get<std::size_t>());
  // And actorflow's saver of the imported graph writes a checkpoint and .meta it restores.
  af::test::TempDir out;
  const std::string prefix = saver->save(sess, (out.path / "again").string());
  BOOST_TEST(std::filesystem::exists(prefix + ".meta"));
  af::Graph h;
  auto again = af::train::import_meta_graph(h, prefix + ".meta");
  af::Session check(h);
  again->restore(check, prefix);
  check_close(check.run(h.output("probs:0"), {{h.output("x:0"), x}}).to_vector<float>(),
              ref["probs_after"], 1e-6f);
  return merged;
}

BOOST_AUTO_TEST_CASE(a_tensorflow_meta_graph_restores_and_trains_to_tensorflows_losses,
                     *boost::unit_test::timeout(60)) {
  // 4 weights, 8 Adam slots, 2 beta powers, global_step.
  import_restore_and_train(dir, 15, 4, 1);
}

BOOST_AUTO_TEST_CASE(a_meta_graph_of_resource_variables_trains_to_tensorflows_losses,
                     *boost::unit_test::timeout(60)) {
  // VarHandleOp, ReadVariableOp, AssignVariableOp, ResourceApplyAdam, AssignAddVariableOp.
  const std::string merged = import_restore_and_train(dir / "resource", 15, 4, 2);
  BOOST_TEST(merged.size() == reference(dir / "resource")["summary_bytes"].get<std::size_t>());
  af::Graph g;
  af::train::import_meta_graph(g, (dir / "resource" / "model-3.meta").string());
  const auto vars = g.global_variables();
  BOOST_TEST(vars[0].is_resource());
  BOOST_TEST(vars[0].dtype() == af::float32);
  BOOST_TEST(vars[0].shape().to_string() == "(4, 8)");
  // Uninitialized, a resource variable reads as TensorFlow's ReadVariableOp fails.
  af::Session sess(g);
  try {
    sess.run(vars[0].value());
    BOOST_FAIL("read an uninitialized resource variable");
  } catch (const af::FailedPreconditionError& e) {
    BOOST_TEST(std::string(e.what()).find("Could not find variable hidden/kernel") !=
               std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_tensorflow_cnn_with_momentum_and_image_and_text_summaries_trains_alike,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference(dir / "cnn");
  // Conv kernel and bias, dense kernel and bias, their 4 momentum slots, global_step.
  const std::string merged = import_restore_and_train(dir / "cnn", 9, 4, 3);
  // The merged summary, written and read back, holds TensorFlow's tags: the loss, two 6x6
  // gray PNGs, the text of the text plugin.
  af::test::TempDir logdir;
  {
    af::summary::FileWriter writer(logdir.path.string());
    writer.add_summary(merged, 6);
  }
  const auto events =
      af::summary::read_events(af::summary::event_files(logdir.path.string()).at(0));
  BOOST_REQUIRE(events.size() == 2u);
  const auto& values = events[1].summary;
  std::vector<std::string> tags;
  for (const auto& v : values) tags.push_back(v.tag);
  std::vector<std::string> want;
  for (const auto& t : ref["summary_tags"]) want.push_back(t.get<std::string>());
  BOOST_TEST(tags == want, boost::test_tools::per_element());
  BOOST_REQUIRE(values.size() == 4u);
  BOOST_TEST((values[1].kind == af::summary::SummaryValue::Kind::image));
  BOOST_TEST(values[1].image_height == 6);
  BOOST_TEST(values[1].image_width == 6);
  BOOST_TEST(values[1].image_colorspace == 1);
  BOOST_TEST(values[1].encoded.rfind("\x89PNG\r\n\x1a\n", 0) == 0u);
  BOOST_TEST((values[3].kind == af::summary::SummaryValue::Kind::tensor));
  BOOST_TEST(values[3].plugin_name == "text");
}

BOOST_AUTO_TEST_CASE(a_graph_built_under_replica_device_setter_trains_on_actorflow_servers,
                     *boost::unit_test::timeout(120)) {
  // TensorFlow built it for 2 ps tasks and a worker, trained it on its own servers and saved
  // it with a sharded Saver (a shard per ps). The same .meta, devices kept, restores and
  // trains on an actorflow cluster to TensorFlow's losses; its Saver writes shards again.
  const auto d = dir / "dist";
  const auto ref = reference(d);
  auto address = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{
      {"ps", {address(), address()}}, {"worker", {address()}}}};
  af::Server ps0{cluster, "ps", 0};
  af::Server ps1{cluster, "ps", 1};
  af::Server worker{cluster, "worker", 0};
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (d / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(g.operation("hidden/kernel").device() == "/job:ps/task:0");
  BOOST_TEST(g.operation("hidden/bias").device() == "/job:ps/task:1");
  BOOST_TEST(g.operation("MatMul").device() == "/job:worker/task:0");
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<af::Output>(g.get_collection("losses")[0]);
  af::Session sess(g, worker.target());
  saver->restore(sess, (d / ref["prefix"].get<std::string>()).string());
  const af::Tensor x = matrix(ref["x"]);
  std::vector<std::int64_t> labels;
  for (const auto& v : ref["y"]) labels.push_back(v.get<std::int64_t>());
  const af::Tensor y = af::Tensor::from_vector(labels);
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i)
    losses.push_back(
        sess.run({loss}, {{g.output("x:0"), x}, {g.output("y:0"), y}}, {train})[0].scalar<float>());
  check_close(losses, ref["losses_after_restore"], 1e-5f);
  // The variables live on the ps tasks: a session on ps 1 reads hidden/bias's trained value.
  af::Graph on_ps1;
  af::Output bias;
  {
    auto pin = on_ps1.device("/job:ps/task:1");
    bias = on_ps1
               .variable(af::Tensor::from_vector<float>(std::vector<float>(8, 0.0f)),
                         {.name = "hidden/bias"})
               .value();
  }
  af::Session ps1_session(on_ps1, ps1.target());
  BOOST_TEST(ps1_session.run(bias).to_vector<float>() ==
                 sess.run(g.output("hidden/bias:0")).to_vector<float>(),
             boost::test_tools::per_element());
  // TensorFlow's sharded Saver, run by actorflow: a shard per ps, merged into one index.
  af::test::TempDir out;
  const std::string prefix = saver->save(sess, (out.path / "again").string());
  BOOST_TEST(std::filesystem::exists(prefix + ".data-00000-of-00002"));
  BOOST_TEST(std::filesystem::exists(prefix + ".data-00001-of-00002"));
  af::BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  BOOST_TEST(reader.lookup("global_step").value().scalar<std::int64_t>() == 6);
}

BOOST_AUTO_TEST_CASE(tensorflows_text_and_binary_graph_defs_import_alike,
                     *boost::unit_test::timeout(60)) {
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

BOOST_AUTO_TEST_CASE(a_frozen_inference_graph_gives_tensorflows_outputs,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  af::Graph g;
  auto out = af::import_graph_def(g, af::read_graph_def((dir / "frozen.pb").string()),
                                  {.return_elements = {"x:0", "probs:0"}, .name = ""});
  af::Session sess(g);
  auto probs =
      sess.run(std::get<af::Output>(out[1]), {{std::get<af::Output>(out[0]), matrix(ref["x"])}});
  check_close(probs.to_vector<float>(), ref["frozen_probs"], 1e-6f);
}

BOOST_AUTO_TEST_SUITE_END()
