// MonitoredTrainingSession's TensorBoard side (basic_session_run_hooks_test.py,
// monitored_session.py): the chief's SummarySaverHook, StepCounterHook and
// CheckpointSaverHook write the graph, the meta graph, SessionLog START, the merged
// summaries and global_step/sec into one events file.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace {

/// w -= 0.5 per step (loss = w), global_step += 1, a scalar summary of the loss.
struct SummarizedModel {
  af::Graph g;
  af::Variable global_step = af::train::get_or_create_global_step(g);
  af::Variable w = g.variable(af::Tensor(10.0f), {.name = "w"});
  af::Output loss = w.value() * 1.0f;
  af::Output summary = af::summary::scalar("loss", loss);
  af::train::GradientDescentOptimizer sgd{0.5};
  af::Operation train_op = sgd.minimize(loss, global_step);
};

struct Written {
  std::map<std::string, std::vector<std::int64_t>> steps_by_tag;
  std::map<std::string, std::vector<float>> values_by_tag;
  int graphs = 0, meta_graphs = 0;
  std::vector<std::int64_t> starts;
};

Written read_dir(const std::string& dir) {
  Written w;
  const auto files = af::summary::event_files(dir);
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  for (const auto& e : af::summary::read_events(files[0])) {
    if (!e.graph_def.empty()) ++w.graphs;
    if (!e.meta_graph_def.empty()) ++w.meta_graphs;
    if (e.session_log_status == 1) w.starts.push_back(e.step);
    for (const auto& v : e.summary) {
      w.steps_by_tag[v.tag].push_back(e.step);
      w.values_by_tag[v.tag].push_back(v.simple_value);
    }
  }
  return w;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(summary_hooks_test)

BOOST_AUTO_TEST_CASE(the_chief_writes_graph_summaries_and_step_rate_into_its_checkpoint_dir,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  SummarizedModel m;
  const std::string ckpt = (dir.path / "ckpt").string();
  {
    auto sess = af::train::MonitoredTrainingSession(m.g, {.checkpoint_dir = ckpt,
                                                          .save_checkpoint_steps = 100,
                                                          .log_step_count_steps = 2,
                                                          .save_summaries_steps = 2});
    for (int i = 0; i < 5; ++i) sess->run(m.train_op);
    sess->close();
  }
  BOOST_TEST(std::filesystem::exists(std::filesystem::path(ckpt) / "graph.pbtxt"));
  BOOST_TEST(
      af::read_graph_def((std::filesystem::path(ckpt) / "graph.pbtxt").string()).nodes.size() >
      10u);
  const Written w = read_dir(ckpt);
  BOOST_TEST(w.graphs == 1);
  BOOST_TEST(w.meta_graphs == 1);
  BOOST_TEST(w.starts == (std::vector<std::int64_t>{1}), boost::test_tools::per_element());
  // The first run, then every 2 global steps; the value is the loss before each update.
  BOOST_TEST(w.steps_by_tag.at("loss") == (std::vector<std::int64_t>{1, 3, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(w.values_by_tag.at("loss") == (std::vector<float>{10.0f, 9.0f, 8.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(w.steps_by_tag.count("global_step/sec") == 1u);
  BOOST_TEST(!w.steps_by_tag.at("global_step/sec").empty());
}

BOOST_AUTO_TEST_CASE(a_summary_dir_alone_gets_summaries_and_no_checkpoint,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  SummarizedModel m;
  const std::string logs = (dir.path / "logs").string();
  {
    auto sess =
        af::train::MonitoredTrainingSession(m.g, {.save_summaries_steps = 1, .summary_dir = logs});
    for (int i = 0; i < 3; ++i) sess->run(m.train_op);
    sess->close();
  }
  const Written w = read_dir(logs);
  BOOST_TEST(w.steps_by_tag.at("loss") == (std::vector<std::int64_t>{1, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(w.graphs == 0);  // the graph comes with the checkpoint saver, as in TensorFlow
  BOOST_TEST(!af::train::latest_checkpoint(logs).has_value());
}

BOOST_AUTO_TEST_CASE(a_summary_saver_hook_needs_one_period_and_a_writer,
                     *boost::unit_test::timeout(30)) {
  af::test::TempDir dir;
  auto writer = std::make_shared<af::summary::FileWriter>(dir.path.string());
  BOOST_CHECK_THROW(af::train::SummarySaverHook(std::nullopt, std::nullopt, writer),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::train::SummarySaverHook(1, 1.0, writer), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::train::SummarySaverHook(1, std::nullopt, nullptr),
                    af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
