// MonitoredTrainingSession, Scaffold and the standard hooks in one process
// (monitored_session_test.py, basic_session_run_hooks_test.py, session_manager_test.py).
// The chief/worker split and SyncReplicas through it are in
// tests/integration/sync_replicas_cluster_test.cpp.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>

#include "log_capture.hpp"
#include "matchers.hpp"
#include "temp_dir.hpp"

using af::test::contains;
using af::test::error_of;

namespace {

std::string joined(af::test::LogCapture& log) {
  std::string all;
  for (const auto& line : log.take()) all += line + "\n";
  return all;
}

/// w -= 0.5 * 1 per step (loss = w * 1), global_step += 1.
struct CountingModel {
  af::Graph g;
  af::Variable global_step = af::train::get_or_create_global_step(g);
  af::Variable w = g.variable(af::Tensor(10.0f), {.name = "w"});
  af::train::GradientDescentOptimizer sgd{0.5};
  af::Operation train_op = sgd.minimize(w.value() * 1.0f, global_step);
};

}  // namespace

BOOST_AUTO_TEST_SUITE(monitored_session_test)

BOOST_AUTO_TEST_CASE(report_uninitialized_variables_lists_the_names_left_to_initialise,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto a = g.variable(af::Tensor(1.0f), {.name = "a"});
  auto b = g.variable(af::Tensor(2), {.name = "b"});
  auto local = g.variable(
      af::Tensor(3.0f), {.name = "l", .trainable = false, .collections = {{af::kLocalVariables}}});
  auto report = af::train::report_uninitialized_variables(g);
  auto none = af::train::report_uninitialized_variables(g, std::vector<af::Variable>{}, "none");
  af::Session sess(g);
  BOOST_TEST(sess.run(report).to_vector<std::string>() ==
             (std::vector<std::string>{"a", "b", "l"}));
  sess.run(b.initializer());
  BOOST_TEST(sess.run(report).to_vector<std::string>() == (std::vector<std::string>{"a", "l"}));
  sess.run(g.global_variables_initializer());
  sess.run(local.initializer());
  BOOST_TEST(sess.run(report).num_elements() == 0);
  BOOST_TEST(sess.run(none).num_elements() == 0);
  (void)a;
}

BOOST_AUTO_TEST_CASE(stop_at_step_hook_needs_exactly_one_bound, *boost::unit_test::timeout(60)) {
  BOOST_CHECK_THROW(af::train::StopAtStepHook(std::nullopt, std::nullopt),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::train::StopAtStepHook(1, 2), af::InvalidArgumentError);
}

// The chief initialises, stops at the last step, saves every 5 steps and at the end; a new
// MonitoredTrainingSession on the same directory restores the latest checkpoint instead of
// initialising, and StopAtStepHook(num_steps) counts from the restored step.
BOOST_AUTO_TEST_CASE(the_chief_saves_checkpoints_and_a_new_session_resumes_from_the_latest,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir("af_mts");
  {
    CountingModel m;
    auto sess = af::train::MonitoredTrainingSession(
        m.g, {.checkpoint_dir = dir.path.string(),
              .hooks = {std::make_shared<af::train::StopAtStepHook>(std::nullopt, 12)},
              .save_checkpoint_steps = 5});
    int runs = 0;
    while (!sess->should_stop() && runs < 100) {
      sess->run(m.train_op);
      ++runs;
    }
    BOOST_TEST(runs == 12);
    BOOST_TEST(sess->raw_session().run(m.w.value()).scalar<float>() == 10.0f - 6.0f);
    sess->close();
    BOOST_TEST(sess->should_stop());
  }
  // Saved at creation (0), every 5 steps, and at the end (12).
  auto state = af::train::get_checkpoint_state(dir.path.string());
  BOOST_REQUIRE(state.has_value());
  BOOST_TEST(std::filesystem::path(state->model_checkpoint_path).filename().string() ==
             "model.ckpt-12");
  BOOST_TEST(af::train::checkpoint_exists((dir.path / "model.ckpt-5").string()));
  BOOST_TEST(af::train::checkpoint_exists((dir.path / "model.ckpt-10").string()));
  {
    CountingModel m;
    auto sess = af::train::MonitoredTrainingSession(
        m.g, {.checkpoint_dir = dir.path.string(),
              .hooks = {std::make_shared<af::train::StopAtStepHook>(3)},
              .save_checkpoint_steps = 100});
    BOOST_TEST(sess->raw_session().run(m.global_step.value()).scalar<std::int64_t>() == 12);
    BOOST_TEST(sess->raw_session().run(m.w.value()).scalar<float>() == 4.0f);
    int runs = 0;
    while (!sess->should_stop() && runs < 100) {
      sess->run(m.train_op);
      ++runs;
    }
    BOOST_TEST(runs == 3);
    sess->close();
  }
  BOOST_TEST(
      af::train::latest_checkpoint(dir.path.string()).value_or("").ends_with("model.ckpt-15"));
}

// A worker (not the chief) never initialises: alone it waits for a ready model and gives up
// after max_wait with TensorFlow's message.
BOOST_AUTO_TEST_CASE(a_worker_waits_for_the_chief_and_gives_up_after_max_wait,
                     *boost::unit_test::timeout(60)) {
  CountingModel m;
  af::test::LogCapture log;
  auto e = error_of<af::DeadlineExceededError>([&] {
    af::train::MonitoredTrainingSession(m.g, {.is_chief = false,
                                              .max_wait = std::chrono::milliseconds(300),
                                              .recovery_wait = std::chrono::milliseconds(100)});
  });
  BOOST_TEST(contains(e, "Session was not ready after waiting"), e);
  const std::string lines = joined(log);
  BOOST_TEST(contains(lines, "Waiting for model to be ready"), lines);
}

// The step counter logs TensorFlow's progress line with the loss.
BOOST_AUTO_TEST_CASE(the_step_counter_hook_logs_steps_per_second_and_the_loss,
                     *boost::unit_test::timeout(60)) {
  CountingModel m;
  af::test::LogCapture log;
  auto loss = m.w.value() * 1.0f;
  auto sess = af::train::MonitoredTrainingSession(
      m.g, {.hooks = {std::make_shared<af::train::StepCounterHook>(2, loss),
                      std::make_shared<af::train::StopAtStepHook>(5)}});
  while (!sess->should_stop()) sess->run(m.train_op);
  const std::string lines = joined(log);
  BOOST_TEST(contains(lines, "global_step/sec: "), lines);
  BOOST_TEST(contains(lines, ", loss = "), lines);
}

BOOST_AUTO_TEST_SUITE_END()
