// SyncReplicasOptimizer across a cluster (between-graph replication): one ps task and worker
// tasks, each a Server in this process on loopback. Every replica builds the same graph with
// replica_device_setter and its own worker device, so w, global_step, the accumulators and
// the token queue are shared on the ps while each replica's local step lives on its own task.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "matchers.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;

namespace {

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

/// One replica: its graph (loss = sum(w * c), so each gradient of w is c whatever w is) and
/// its session on its own worker task.
struct Replica {
  af::Graph g;
  af::Variable global_step, w;
  af::Output c;
  std::unique_ptr<af::train::GradientDescentOptimizer> sgd;
  std::unique_ptr<af::train::SyncReplicasOptimizer> sync;
  af::Operation train_op;
  std::unique_ptr<af::Session> sess;

  Replica(const af::ClusterSpec& cluster, const af::Server* server, int task, int to_aggregate,
          int total) {
    {
      auto setter = g.device(af::replica_device_setter(
          cluster, {.worker_device = "/job:worker/task:" + std::to_string(task)}));
      global_step = af::train::get_or_create_global_step(g);
      w = g.variable(af::Tensor::from_vector<float>({10.0f, 20.0f}), {.name = "w"});
      c = g.placeholder(af::float32, af::PartialShape{2}, "c");
      auto loss = af::reduce_sum(w.value() * c);
      sgd = std::make_unique<af::train::GradientDescentOptimizer>(0.5);
      sync = std::make_unique<af::train::SyncReplicasOptimizer>(*sgd, to_aggregate, total);
      train_op = sync->minimize(loss, global_step);
    }
    if (server) sess = std::make_unique<af::Session>(g, server->target());
  }

  /// Runs the train op until its token (the new global step) reaches `last_step` or `max_runs`
  /// runs are done; the error message, or "<no error>".
  std::string run(std::int64_t last_step, int max_runs) {
    const af::Tensor ones = af::Tensor::from_vector<float>({1.0f, 2.0f});
    return af::test::error_of([&] {
      std::int64_t token = 0;
      for (int i = 0; i < max_runs && token < last_step; ++i)
        token = sess->run(train_op.output(0), {{c, ones}}, {.timeout_in_ms = 30000})
                    .scalar<std::int64_t>();
    });
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sync_replicas_cluster_test)

// Two workers, two gradients per update, one with a spare (three workers, one of which
// stops after three runs): every update averages two fresh gradients, the global step
// reaches 10, and w moved by exactly ten updates. The local step lives on each worker.
BOOST_AUTO_TEST_CASE(replicas_on_worker_tasks_update_the_ps_variables_in_lockstep,
                     *boost::unit_test::timeout(180)) {
  for (const int workers : {2, 3}) {
    BOOST_TEST_CONTEXT("workers " << workers) {
      std::map<std::string, std::vector<std::string>> jobs{{"ps", {address()}}, {"worker", {}}};
      for (int k = 0; k < workers; ++k) jobs["worker"].push_back(address());
      af::ClusterSpec cluster{jobs};
      af::Server ps{cluster, "ps", 0};
      std::vector<std::unique_ptr<af::Server>> servers;
      for (int k = 0; k < workers; ++k)
        servers.push_back(std::make_unique<af::Server>(cluster, "worker", k));
      std::vector<std::unique_ptr<Replica>> replicas;
      for (int k = 0; k < workers; ++k)
        replicas.push_back(std::make_unique<Replica>(
            cluster, servers[static_cast<std::size_t>(k)].get(), k, 2, workers));

      Replica& chief = *replicas[0];
      BOOST_TEST(chief.sync->local_step().op().device().find("/job:worker/task:0") !=
                 std::string::npos);
      BOOST_TEST(chief.w.op().device().find("/job:ps/task:0") != std::string::npos);
      chief.sess->run(chief.g.global_variables_initializer());
      for (auto& r : replicas) r->sess->run(r->sync->local_step_init_op());
      chief.sess->run(chief.sync->chief_init_op());
      chief.sess->run(chief.sync->get_init_tokens_op());
      af::Coordinator coord;
      auto runners =
          chief.sync->get_chief_queue_runner().create_threads(*chief.sess, coord, /*start=*/true);

      std::vector<std::future<std::string>> running;
      for (int k = 0; k < workers; ++k) {
        // With a spare, the last worker stops after three runs.
        const int max_runs = workers == 3 && k == 2 ? 3 : 200;
        running.push_back(std::async(std::launch::async, [&, k, max_runs] {
          return replicas[static_cast<std::size_t>(k)]->run(10, max_runs);
        }));
      }
      for (auto& f : running) BOOST_TEST(f.get() == "<no error>");
      // Every local step is its own: each worker's holds the token it got last.
      for (int k = 0; k < 2; ++k) {
        Replica& r = *replicas[static_cast<std::size_t>(k)];
        BOOST_TEST(r.sess->run(r.sync->local_step().value()).scalar<std::int64_t>() == 10);
      }
      BOOST_TEST(chief.sess->run(chief.global_step.value()).scalar<std::int64_t>() == 10);
      BOOST_TEST(replicas[1]->sess->run(replicas[1]->w.value()).to_vector<float>() ==
                 (std::vector<float>{10.0f - 5.0f, 20.0f - 10.0f}));
      coord.request_stop();
      chief.sess->close();  // cancels the chief's waiting take
      coord.join(runners, 10s, /*ignore_live_runners=*/true);
    }
  }
}

// The chapter's between-graph synchronous training through monitored sessions: the worker
// starts first and waits for the chief to initialise the model; the SyncReplicas hook runs
// each one's local init, and on the chief the initial tokens and the queue runner; both stop
// at global step 10 (StopAtStepHook) and the chief's checkpoints (at the start, past every
// 5 steps, at the end) are on disk.
BOOST_AUTO_TEST_CASE(monitored_sessions_run_a_chief_and_a_worker_in_sync,
                     *boost::unit_test::timeout(180)) {
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{
      {"ps", {address()}}, {"worker", {address(), address()}}}};
  af::Server ps{cluster, "ps", 0};
  af::Server w0{cluster, "worker", 0};
  af::Server w1{cluster, "worker", 1};
  af::test::TempDir dir("af_sync_mts");
  auto replica = [&](int task, const af::Server& server) {
    Replica r(cluster, nullptr, task, 2, 2);
    const bool chief = task == 0;
    auto sess = af::train::MonitoredTrainingSession(
        r.g, {.master = server.target(),
              .is_chief = chief,
              .checkpoint_dir = chief ? dir.path.string() : "",
              .hooks = {af::train::make_sync_replicas_hook(*r.sync, chief),
                        std::make_shared<af::train::StopAtStepHook>(std::nullopt, 10)},
              .save_checkpoint_steps = 5,
              .recovery_wait = std::chrono::milliseconds(100)});
    const af::Tensor ones = af::Tensor::from_vector<float>({1.0f, 2.0f});
    int runs = 0;
    while (!sess->should_stop() && runs < 200) {
      sess->run(r.train_op, {{r.c, ones}}, {.timeout_in_ms = 30000});
      ++runs;
    }
    const auto w = sess->raw_session().run(r.w.value()).to_vector<float>();
    sess->close();
    return std::make_pair(runs, w);
  };
  auto worker = std::async(std::launch::async, [&] { return replica(1, w1); });
  std::this_thread::sleep_for(300ms);  // the worker is now waiting for a ready model
  auto chief = std::async(std::launch::async, [&] { return replica(0, w0); });
  const auto [chief_runs, chief_w] = chief.get();
  const auto [worker_runs, worker_w] = worker.get();
  // Ten updates of two fresh gradients each; the accumulator counts gradients, not
  // workers, so one replica may have pushed more of them.
  BOOST_TEST(chief_runs + worker_runs >= 20);
  BOOST_TEST(worker_runs >= 1);
  BOOST_TEST(chief_w == (std::vector<float>{5.0f, 10.0f}));
  BOOST_TEST(
      af::train::latest_checkpoint(dir.path.string()).value_or("").ends_with("model.ckpt-10"));
  // At creation (step 0), once the step passed 5, and at the end.
  auto state = af::train::get_checkpoint_state(dir.path.string());
  BOOST_REQUIRE(state.has_value());
  BOOST_TEST(state->all_model_checkpoint_paths.size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
