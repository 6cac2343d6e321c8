// The rest of basic_session_run_hooks.py in monitored sessions (basic_session_run_hooks_test.py):
// SecondOrStepTimer, LoggingTensorHook, NanTensorHook, FeedFnHook and the feed conflicts,
// FinalOpsHook, GlobalStepWaiterHook and ProfilerHook's timelines and tagged run metadata.
#include <actorflow/actorflow.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <limits>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/tf/run_metadata.pb.h"
#include "log_capture.hpp"
#include "matchers.hpp"
#include "temp_dir.hpp"

using af::test::contains;
using af::test::error_of;
namespace train = af::train;

namespace {

/// w -= 0.5 per step (loss = w), global_step += 1.
struct Model {
  af::Graph g;
  af::Variable global_step = train::get_or_create_global_step(g);
  af::Variable w = g.variable(af::Tensor(10.0f), {.name = "w"});
  af::Output loss = af::identity(w.value(), "loss");
  train::GradientDescentOptimizer sgd{0.5};
  af::Operation train_op = sgd.minimize(loss, global_step);
};

std::vector<std::string> lines_with(af::test::LogCapture& log, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& l : log.take())
    if (contains(l, part)) out.push_back(l);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(basic_hooks_test)

BOOST_AUTO_TEST_CASE(second_or_step_timer_triggers_as_tensorflows, *boost::unit_test::timeout(30)) {
  BOOST_TEST(error_of([] { train::SecondOrStepTimer(std::nullopt, std::nullopt); }) ==
             "Either every_secs or every_steps should be provided.");
  BOOST_TEST(error_of([] { train::SecondOrStepTimer(1.0, 2); }) ==
             "Can not provide both every_secs and every_steps.");
  train::SecondOrStepTimer steps(std::nullopt, 3);
  BOOST_TEST(steps.should_trigger_for_step(7));  // never triggered
  BOOST_TEST(!steps.update_last_triggered_step(7).has_value());
  BOOST_TEST(!steps.should_trigger_for_step(7));
  BOOST_TEST(!steps.should_trigger_for_step(9));
  BOOST_TEST(steps.should_trigger_for_step(10));
  const auto elapsed = steps.update_last_triggered_step(10);
  BOOST_REQUIRE(elapsed.has_value());
  BOOST_TEST(elapsed->second == 3);
  BOOST_TEST(*steps.last_triggered_step() == 10);
  train::SecondOrStepTimer secs(0.05, std::nullopt);
  secs.update_last_triggered_step(1);
  BOOST_TEST(!secs.should_trigger_for_step(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  BOOST_TEST(secs.should_trigger_for_step(2));
  secs.reset();
  BOOST_TEST(secs.should_trigger_for_step(1));
}

BOOST_AUTO_TEST_CASE(logging_tensor_hook_logs_every_n_runs_and_at_end,
                     *boost::unit_test::timeout(60)) {
  BOOST_TEST(error_of([] { train::LoggingTensorHook(std::vector<std::string>{"w"}, {}); }) ==
             "either at_end and/or exactly one of every_n_iter and every_n_secs must be "
             "provided.");
  BOOST_TEST(error_of([] {
               train::LoggingTensorHook(std::vector<std::string>{"w"}, {.every_n_iter = 0});
             }) == "invalid every_n_iter=0.");
  Model m;
  af::test::LogCapture log;
  auto by_name = std::make_shared<train::LoggingTensorHook>(
      std::vector<std::string>{"loss", "global_step"},
      train::LoggingTensorHookOptions{.every_n_iter = 2, .at_end = true});
  {
    auto sess = train::MonitoredTrainingSession(
        m.g, {.hooks = {by_name}, .log_step_count_steps = 0, .save_summaries_steps = 0});
    for (int i = 0; i < 5; ++i) sess->run(m.train_op);
    sess->close();
  }
  const auto lines = lines_with(log, "loss = ");
  // Runs 0, 2 and 4 (the values fetched with each run, before its update), then the end.
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  BOOST_TEST(lines[0] == "loss = 10.0, global_step = 0");
  BOOST_TEST(
      std::regex_match(lines[1], std::regex(R"(loss = 9\.0, global_step = 2 \(\d+\.\d{3} sec\))")),
      lines[1]);
  BOOST_TEST(contains(lines[2], "loss = 8.0, global_step = 4 ("));
  BOOST_TEST(contains(lines[3], "loss = 7.5, global_step = 5"));
  {  // the same hook in another graph resolves its names there
    Model again;
    auto sess = train::MonitoredTrainingSession(
        again.g, {.hooks = {by_name}, .log_step_count_steps = 0, .save_summaries_steps = 0});
    sess->run(again.train_op);
    sess->close();
  }
  const auto again_lines = lines_with(log, "loss = ");  // its first run, then its end
  BOOST_REQUIRE_EQUAL(again_lines.size(), 2u);
  BOOST_TEST(again_lines[0] == "loss = 10.0, global_step = 0");
  BOOST_TEST(contains(again_lines[1], "loss = 9.5, global_step = 1"));

  Model m2;
  auto tagged = std::make_shared<train::LoggingTensorHook>(
      std::map<std::string, af::Output>{{"z_loss", m2.loss}, {"a_step", m2.global_step.value()}},
      train::LoggingTensorHookOptions{
          .every_n_secs = 3600.0,
          .formatter = [](const std::vector<std::pair<std::string, af::Tensor>>& v) {
            return "custom " + v[0].first + "," + v[1].first;
          }});
  {
    auto sess = train::MonitoredTrainingSession(
        m2.g, {.hooks = {tagged}, .log_step_count_steps = 0, .save_summaries_steps = 0});
    for (int i = 0; i < 3; ++i) sess->run(m2.train_op);
  }
  BOOST_TEST(lines_with(log, "custom ") == (std::vector<std::string>{"custom a_step,z_loss"}));

  Model m3;
  auto ambiguous = std::make_shared<train::LoggingTensorHook>(
      std::vector<std::string>{"GradientDescent/update_w/ApplyGradientDescent", "split"},
      train::LoggingTensorHookOptions{.at_end = true});
  m3.g.create_op("Unpack", {m3.g.constant(af::Tensor::from_vector<float>({1, 2}))},
                 {{"num", std::int64_t{2}}, {"axis", std::int64_t{0}}}, "split");
  BOOST_TEST(
      contains(error_of([&] { train::MonitoredTrainingSession(m3.g, {.hooks = {ambiguous}}); }),
               "Name split is ambiguous, as this `Operation` has multiple outputs (at least 2)."));
}

BOOST_AUTO_TEST_CASE(nan_tensor_hook_fails_or_stops_on_a_nan_loss, *boost::unit_test::timeout(60)) {
  for (bool fail : {true, false}) {
    af::Graph g;
    auto step = train::get_or_create_global_step(g);
    af::Output loss = g.placeholder(af::DType::float32, af::PartialShape(af::Shape{}), "loss");
    af::Operation bump = step.assign_add(g.constant(af::Tensor(std::int64_t{1}))).op();
    af::test::LogCapture log;
    auto sess = train::MonitoredTrainingSession(
        g, {.hooks = {std::make_shared<train::NanTensorHook>(loss, fail)},
            .log_step_count_steps = 0,
            .save_summaries_steps = 0});
    sess->run(bump, {{loss, af::Tensor(1.0f)}});
    BOOST_TEST(!sess->should_stop());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (fail) {
      BOOST_CHECK_EXCEPTION(sess->run(bump, {{loss, af::Tensor(nan)}}),
                            train::NanLossDuringTrainingError, [](const std::exception& e) {
                              return std::string(e.what()) == "NaN loss during training.";
                            });
    } else {
      sess->run(bump, {{loss, af::Tensor(nan)}});
      BOOST_TEST(sess->should_stop());
    }
    BOOST_TEST(lines_with(log, "Model diverged with loss = NaN.").size() == 1u);
  }
}

BOOST_AUTO_TEST_CASE(feed_fn_hooks_feed_and_conflicts_are_refused, *boost::unit_test::timeout(60)) {
  af::Graph g;
  train::get_or_create_global_step(g);
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape(af::Shape{}), "x");
  af::Output y = x * 2.0f;
  float next = 1.0f;
  auto feeder = std::make_shared<train::FeedFnHook>([&] {
    return af::FeedDict{{x, af::Tensor(next++)}};
  });
  auto sess = train::MonitoredTrainingSession(
      g, {.hooks = {feeder}, .log_step_count_steps = 0, .save_summaries_steps = 0});
  BOOST_TEST(sess->run(std::vector<af::Output>{y})[0].scalar<float>() == 2.0f);
  BOOST_TEST(sess->run(std::vector<af::Output>{y})[0].scalar<float>() == 4.0f);
  BOOST_TEST(error_of<af::InvalidArgumentError>([&] {
               sess->run(std::vector<af::Output>{y}, {{x, af::Tensor(5.0f)}});
             }) == "Same tensor is fed by a SessionRunHook and user. Conflict(s): ['x:0']");
  auto twice = train::MonitoredTrainingSession(
      g, {.hooks = {feeder, feeder}, .log_step_count_steps = 0, .save_summaries_steps = 0});
  BOOST_TEST(error_of<af::InvalidArgumentError>([&] { twice->run(std::vector<af::Output>{y}); }) ==
             "Same tensor is fed by two hooks. Conflict(s): ['x:0']");
}

BOOST_AUTO_TEST_CASE(final_ops_hook_runs_its_ops_when_the_session_ends,
                     *boost::unit_test::timeout(60)) {
  Model m;
  af::Output scale = m.g.placeholder(af::DType::float32, af::PartialShape(af::Shape{}), "scale");
  auto final_ops = std::make_shared<train::FinalOpsHook>(
      std::vector<af::Output>{m.loss * scale, m.global_step.value()},
      af::FeedDict{{scale, af::Tensor(2.0f)}});
  auto sess = train::MonitoredTrainingSession(
      m.g, {.hooks = {final_ops}, .log_step_count_steps = 0, .save_summaries_steps = 0});
  for (int i = 0; i < 3; ++i) sess->run(m.train_op);
  BOOST_TEST(final_ops->final_ops_values().empty());
  sess->close();
  BOOST_REQUIRE_EQUAL(final_ops->final_ops_values().size(), 2u);
  BOOST_TEST(final_ops->final_ops_values()[0].scalar<float>() == 17.0f);  // (10 - 1.5) * 2
  BOOST_TEST(final_ops->final_ops_values()[1].scalar<std::int64_t>() == 3);
}

BOOST_AUTO_TEST_CASE(global_step_waiter_hook_holds_the_first_run_until_the_step,
                     *boost::unit_test::timeout(60)) {
  Model m;
  af::Operation jump = m.global_step.assign(m.g.constant(af::Tensor(std::int64_t{5}))).op();
  BOOST_TEST(contains(error_of([] {
                        af::Graph none;
                        train::GlobalStepWaiterHook h(3);
                        h.begin(none);
                      }),
                      "Global step should be created to use _GlobalStepWaiterHook."));
  af::test::LogCapture log;
  auto waiter = std::make_shared<train::GlobalStepWaiterHook>(5, std::chrono::milliseconds(10));
  auto sess = train::MonitoredTrainingSession(
      m.g, {.hooks = {waiter}, .log_step_count_steps = 0, .save_summaries_steps = 0});
  std::atomic<bool> jumped{false};
  std::thread other([&] {  // another worker moves the step on
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    jumped = true;
    sess->raw_session().run(jump);
  });
  sess->run(m.train_op);
  const bool waited = jumped.load();
  other.join();
  BOOST_TEST(waited);
  BOOST_TEST(sess->run(std::vector<af::Output>{m.global_step.value()})[0].scalar<std::int64_t>() ==
             6);
  BOOST_TEST(lines_with(log, "Waiting for global step 5 before starting training.").size() == 1u);
}

BOOST_AUTO_TEST_CASE(profiler_hook_writes_timelines_and_tagged_run_metadata,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  Model m;
  af::test::LogCapture log;
  auto profiler = std::make_shared<train::ProfilerHook>(2, std::nullopt, dir.path.string());
  {
    auto sess = train::MonitoredTrainingSession(
        m.g, {.hooks = {profiler}, .log_step_count_steps = 0, .save_summaries_steps = 0});
    for (int i = 0; i < 5; ++i) sess->run(m.train_op);
  }
  // As TensorFlow's: not the first run; then at global steps 2 and 4.
  std::vector<std::string> timelines;
  for (const auto& e : std::filesystem::directory_iterator(dir.path))
    if (contains(e.path().filename().string(), "timeline-"))
      timelines.push_back(e.path().filename().string());
  std::sort(timelines.begin(), timelines.end());
  BOOST_TEST(timelines == (std::vector<std::string>{"timeline-2.json", "timeline-4.json"}));
  BOOST_TEST(lines_with(log, "Saving timeline for ").size() == 2u);
  const auto files = af::summary::event_files(dir.path.string());
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  std::vector<std::string> tags;
  for (const auto& e : af::summary::read_events(files[0])) {
    if (e.run_metadata_tag.empty()) continue;
    tags.push_back(e.run_metadata_tag);
    tensorflow::RunMetadata md;
    BOOST_REQUIRE(md.ParseFromString(e.run_metadata));
    BOOST_REQUIRE(md.step_stats().dev_stats_size() >= 1);
    const auto& dev = md.step_stats().dev_stats(0);
    BOOST_TEST(contains(dev.device(), "/device:CPU:0"));
    bool applied = false;
    for (const auto& n : dev.node_stats()) {
      applied = applied || n.node_name() == "GradientDescent/update_w/ApplyGradientDescent";
      BOOST_TEST(n.all_start_micros() > 0);
      BOOST_TEST(n.all_end_rel_micros() >= 0);
    }
    BOOST_TEST(applied);
  }
  BOOST_TEST(tags == (std::vector<std::string>{"step_2", "step_4"}));
}

BOOST_AUTO_TEST_CASE(file_writer_run_metadata_tags_are_unique, *boost::unit_test::timeout(30)) {
  af::test::TempDir dir;
  af::summary::FileWriter writer(dir.path.string());
  af::RunMetadata md;
  md.step_stats.push_back(
      {.node_name = "a", .op = "Add", .device = "/cpu", .start_us = 10, .end_us = 25});
  writer.add_run_metadata(md, "step1", 1);
  BOOST_TEST(
      contains(error_of<af::InvalidArgumentError>([&] { writer.add_run_metadata(md, "step1", 2); }),
               "The provided tag was already used for this event type"));
  writer.close();
  const auto events = af::summary::read_events(writer.path());
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  tensorflow::RunMetadata back;
  BOOST_REQUIRE(back.ParseFromString(events[1].run_metadata));
  BOOST_TEST(events[1].step == 1);
  const auto& n = back.step_stats().dev_stats(0).node_stats(0);
  BOOST_TEST(n.node_name() == "a");
  BOOST_TEST(n.all_start_micros() == 10);
  BOOST_TEST(n.all_end_rel_micros() == 15);
  BOOST_TEST(n.timeline_label() == "a = Add()");
}

BOOST_AUTO_TEST_SUITE_END()
