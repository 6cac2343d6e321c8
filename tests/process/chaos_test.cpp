// A cluster chaos test: 1 ps and 2 workers, each an actorflow-server process, train
// synchronously (SyncReplicasOptimizer, 2 gradients per update, no spare) from replica
// loops in this process, while a driver, round after round, floods every port of every task
// with idle and garbage connections, freezes and thaws worker:1 and then the ps, and kills
// worker:1 and starts it again. Every replica retries a failed step (reopening its session
// when its server is gone) as a MonitoredSession would.
//
// Asserted: the chief's global step reaches its target; no step waits longer than its
// deadline (plus the client's grace); and nothing is lost or applied twice: the model's
// gradient is the same constant on every replica, so each update moves w by exactly -1, and
// w read back at the end equals the chief's last checkpoint (restored in this process)
// plus one update per global step logged after it, and w's start minus one per global step.
//
// The rounds: 2 by default (about a minute); `process_tests --run_test=chaos_test --
// --rounds N` runs N for a soak.
#include <signal.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "http_client.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace std::chrono_literals;

namespace {

constexpr int kElements = 4096;  // w's size: its tensors take the push channel
constexpr std::int64_t kStepDeadlineMs = 3000;
constexpr auto kClientGrace = 1000ms;  // the client ends a step 250 ms after its deadline
constexpr std::int64_t kTargetStep = 60;

int rounds_from_command_line() {
  auto& suite = boost::unit_test::framework::master_test_suite();
  for (int i = 1; i + 1 < suite.argc; ++i)
    if (std::string(suite.argv[i]) == "--rounds") return std::max(1, std::atoi(suite.argv[i + 1]));
  return 2;
}

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

/// The three server processes.
struct Tasks {
  af::test::TempDir dir{"af_chaos"};
  std::vector<std::string> addresses{address(), address(), address()};  // ps:0, worker:0, worker:1
  std::vector<std::uint16_t> status_ports{af::test::free_port(), af::test::free_port(),
                                          af::test::free_port()};
  std::string spec = R"({"ps": [")" + addresses[0] + R"("], "worker": [")" + addresses[1] +
                     R"(", ")" + addresses[2] + R"("]})";
  af::test::ProcessGroup group;
  std::vector<std::size_t> child{0, 0, 0};
  int starts = 0;

  void start(int i) {
    static const char* jobs[] = {"ps", "worker", "worker"};
    static const int tasks[] = {0, 0, 1};
    child[static_cast<std::size_t>(i)] = group.spawn(
        {ACTORFLOW_SERVER_BINARY, "--cluster", spec, "--job", jobs[i], "--task",
         std::to_string(tasks[i]), "--heartbeat-ms", "300", "--connection-timeout-ms", "1500",
         "--handshake-timeout-ms", "1000", "--peer-wait-ms", "20000", "--stall-ms", "2000",
         "--status-port", std::to_string(status_ports[static_cast<std::size_t>(i)])},
        (dir.path / ("task" + std::to_string(i) + "-" + std::to_string(starts++) + ".log"))
            .string());
  }
  std::size_t of(int i) const { return child[static_cast<std::size_t>(i)]; }
  std::string target(int i) const { return "caf://" + addresses[static_cast<std::size_t>(i)]; }

  /// Every port task `i` listens on, from its /status (empty when it does not answer).
  std::vector<std::uint16_t> ports(int i) const {
    try {
      const auto status = nlohmann::json::parse(af::test::body_of(
          af::test::http_get(status_ports[static_cast<std::size_t>(i)], "/status")));
      std::vector<std::uint16_t> out;
      for (const auto& [name, port] : status.at("ports").items())
        if (port.get<int>() != 0) out.push_back(port.get<std::uint16_t>());
      return out;
    } catch (const std::exception&) {
      return {};
    }
  }
};

/// One replica's graph (between-graph replication): w and the global step on the ps, its
/// loss sum(w * 1) so that its gradient is all ones whatever w is.
struct Replica {
  af::Graph g;
  af::Variable global_step, w;
  std::unique_ptr<af::train::GradientDescentOptimizer> sgd;
  std::unique_ptr<af::train::SyncReplicasOptimizer> sync;
  af::Operation train_op;
  std::unique_ptr<af::train::Saver> saver;

  explicit Replica(const af::ClusterSpec& cluster, int task) {
    auto setter = g.device(af::replica_device_setter(
        cluster, {.worker_device = "/job:worker/task:" + std::to_string(task)}));
    global_step = af::train::get_or_create_global_step(g);
    w = g.variable(af::zeros(g, af::Shape{kElements}), {.name = "w"});
    auto loss = af::reduce_sum(w.value() * af::ones(g, af::Shape{kElements}));
    sgd = std::make_unique<af::train::GradientDescentOptimizer>(1.0);
    sync = std::make_unique<af::train::SyncReplicasOptimizer>(*sgd, 2, 2);
    train_op = sync->minimize(loss, global_step);
    saver = std::make_unique<af::train::Saver>(std::vector<af::Variable>{w, global_step});
  }
};

/// Steps of one loop: how many succeeded, failed, and the longest.
struct LoopStats {
  std::atomic<int> ok{0}, failed{0};
  std::atomic<std::int64_t> longest_ms{0};
  std::mutex mu;
  std::vector<std::string> errors;  ///< distinct error kinds seen (for the report)

  void record(std::chrono::steady_clock::time_point start, const af::Error* e) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    for (auto seen = longest_ms.load(); ms > seen && !longest_ms.compare_exchange_weak(seen, ms);) {
    }
    if (!e) {
      ++ok;
      return;
    }
    ++failed;
    std::lock_guard<std::mutex> lock(mu);
    // The error's kind and message, its numbers (steps, ports) cut off.
    std::string kind =
        std::string(af::code_name(e->code())) + ": " + std::string(e->what()).substr(0, 160);
    kind.erase(std::remove_if(kind.begin(), kind.end(),
                              [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }),
               kind.end());
    if (std::find(errors.begin(), errors.end(), kind) == errors.end()) errors.push_back(kind);
  }
};

/// Opens a session on `target` (retrying while its server is away, until `stop`).
std::unique_ptr<af::Session> open_session(af::Graph& g, const std::string& target,
                                          const std::atomic<bool>& stop) {
  while (!stop) {
    try {
      return std::make_unique<af::Session>(g, target);
    } catch (const af::Error&) {
      std::this_thread::sleep_for(200ms);
    }
  }
  return nullptr;
}

/// Idle and garbage connections to every port of every task, held `hold`.
void flood(const Tasks& tasks, std::chrono::milliseconds hold) {
  asio::io_context io;
  std::vector<std::unique_ptr<asio::ip::tcp::socket>> sockets;
  std::mt19937 rng(7);
  for (int i = 0; i < 3; ++i)
    for (std::uint16_t port : tasks.ports(i))
      for (int k = 0; k < 40; ++k) {
        auto s = std::make_unique<asio::ip::tcp::socket>(io);
        std::error_code ec;
        s->connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
        if (ec) continue;
        if (k % 4 == 0) {  // garbage: random bytes, a claimed length among them
          std::string junk(64, '\0');
          for (auto& ch : junk) ch = static_cast<char>(rng());
          asio::write(*s, asio::buffer(junk), ec);
        }
        sockets.push_back(std::move(s));
      }
  std::this_thread::sleep_for(hold);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chaos_test)

BOOST_AUTO_TEST_CASE(sync_training_survives_floods_freezes_and_a_killed_worker_losing_nothing,
                     *boost::unit_test::timeout(600)) {
  const int rounds = rounds_from_command_line();
  Tasks tasks;
  for (int i = 0; i < 3; ++i) tasks.start(i);
  const af::ClusterSpec cluster = af::ClusterSpec::from_json(tasks.spec);
  Replica chief(cluster, 0), other(cluster, 1);
  std::atomic<bool> stop{false};

  // The chief initialises: variables, the accumulators' steps, the first tokens.
  auto chief_sess = open_session(chief.g, tasks.target(1), stop);
  BOOST_REQUIRE(chief_sess);
  chief_sess->run(chief.g.global_variables_initializer());
  chief_sess->run(chief.sync->chief_init_op());
  const af::Operation init_tokens = chief.sync->get_init_tokens_op();
  chief_sess->run(init_tokens);
  const af::Operation sync_op = chief.sync->get_chief_queue_runner().enqueue_ops().at(0);

  LoopStats train_stats, sync_stats;
  std::mutex log_mu;
  std::vector<std::int64_t> updates;  // the global step after each update the chief saw succeed
  struct Checkpoint {
    std::string prefix;
    std::int64_t step = -1;
    std::size_t logged = 0;  // updates logged when it was taken
  } last_checkpoint;
  std::atomic<std::int64_t> global_step{0};

  // A replica's train loop: its session reopened (and its local step reset) after its
  // server went away.
  auto train_loop = [&](Replica& r, int task_index, std::unique_ptr<af::Session> sess) {
    bool fresh = true;
    while (!stop) {
      if (!sess) sess = open_session(r.g, tasks.target(task_index), stop), fresh = true;
      if (!sess) return;
      const auto start = std::chrono::steady_clock::now();
      try {
        if (fresh) sess->run(r.sync->local_step_init_op());
        fresh = false;
        sess->run({r.train_op.output(0)}, {}, {}, {.timeout_in_ms = kStepDeadlineMs});
        train_stats.record(start, nullptr);
      } catch (const af::Error& e) {
        train_stats.record(start, &e);
        if (e.code() == af::Code::aborted || e.code() == af::Code::failed_precondition)
          sess.reset();
        if (e.code() == af::Code::unavailable) {
          fresh = true;
          std::this_thread::sleep_for(100ms);
        }
      }
    }
  };
  // The chief's sync loop (its queue runner's op, retried), logging each update, with a
  // checkpoint every 10 updates. A sync step that failed with Unavailable or Aborted may have
  // taken the gradients and not handed out the next tokens: the chief then runs its init
  // again (the accumulators' step := global step, fresh tokens), as SyncReplicasOptimizer's
  // hook does on the session a MonitoredSession recovers.
  std::thread sync_loop([&] {
    bool recover = false;
    while (!stop) {
      const auto start = std::chrono::steady_clock::now();
      try {
        if (recover) {
          chief_sess->run({}, {}, {chief.sync->chief_init_op()},
                          {.timeout_in_ms = kStepDeadlineMs});
          chief_sess->run({}, {}, {init_tokens}, {.timeout_in_ms = kStepDeadlineMs});
          recover = false;
        }
        chief_sess->run({}, {}, {sync_op}, {.timeout_in_ms = kStepDeadlineMs});
        sync_stats.record(start, nullptr);
        const auto gs =
            chief_sess
                ->run({chief.global_step.value()}, {}, {}, {.timeout_in_ms = kStepDeadlineMs})[0]
                .scalar<std::int64_t>();
        global_step = gs;
        std::lock_guard<std::mutex> lock(log_mu);
        updates.push_back(gs);
        if (gs % 10 == 0) {
          const std::string prefix =
              chief.saver->save(*chief_sess, (tasks.dir.path / "model.ckpt").string(), gs);
          last_checkpoint = {prefix, gs, updates.size()};
        }
      } catch (const af::Error& e) {
        sync_stats.record(start, &e);
        if (e.code() == af::Code::unavailable || e.code() == af::Code::aborted) {
          recover = true;
          std::this_thread::sleep_for(100ms);
        }
      }
    }
  });
  std::thread chief_train([&] { train_loop(chief, 1, nullptr); });
  std::thread other_train([&] { train_loop(other, 2, nullptr); });
  // The chief's train loop has its own session: the one above runs the sync op.

  auto wait_for_step = [&](std::int64_t at_least, std::chrono::seconds limit) {
    const auto start = std::chrono::steady_clock::now();
    while (global_step < at_least && std::chrono::steady_clock::now() < start + limit)
      std::this_thread::sleep_for(50ms);
    BOOST_TEST_MESSAGE("  global step " << global_step << " after "
                                        << std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::steady_clock::now() - start)
                                               .count()
                                        << " ms");
    if (global_step >= at_least) return true;
    for (int i = 0; i < 3; ++i) {  // what the tasks said, for the report
      const std::string log = tasks.group.log(tasks.of(i));
      BOOST_TEST_MESSAGE("task " << i << " log (end):\n"
                                 << log.substr(log.size() > 4000 ? log.size() - 4000 : 0));
    }
    return false;
  };
  BOOST_REQUIRE(wait_for_step(3, 60s));

  for (int round = 0; round < rounds; ++round) {
    BOOST_TEST_MESSAGE("round " << round << " at global step " << global_step);
    flood(tasks, 1500ms);
    BOOST_TEST(wait_for_step(global_step + 2, 30s), "after the flood of round " << round);
    tasks.group.signal(tasks.of(2), SIGSTOP);
    std::this_thread::sleep_for(2s);
    tasks.group.signal(tasks.of(2), SIGCONT);
    BOOST_TEST(wait_for_step(global_step + 2, 30s), "after worker:1's freeze in round " << round);
    tasks.group.signal(tasks.of(0), SIGSTOP);
    std::this_thread::sleep_for(2s);
    tasks.group.signal(tasks.of(0), SIGCONT);
    BOOST_TEST(wait_for_step(global_step + 2, 30s), "after the ps's freeze in round " << round);
    tasks.group.kill(tasks.of(2));
    std::this_thread::sleep_for(1s);
    tasks.start(2);
    BOOST_TEST(wait_for_step(global_step + 2, 30s), "after worker:1's restart in round " << round);
  }
  BOOST_TEST(wait_for_step(kTargetStep, 60s));
  stop = true;
  sync_loop.join();
  chief_train.join();
  other_train.join();

  BOOST_TEST_MESSAGE("train steps: "
                     << train_stats.ok << " ok, " << train_stats.failed << " failed, longest "
                     << train_stats.longest_ms << " ms; sync steps: " << sync_stats.ok << " ok, "
                     << sync_stats.failed << " failed, longest " << sync_stats.longest_ms << " ms");
  for (const auto& e : train_stats.errors) BOOST_TEST_MESSAGE("train step error seen: " << e);
  for (const auto& e : sync_stats.errors) BOOST_TEST_MESSAGE("sync step error seen: " << e);
  // No step waited longer than its deadline.
  const auto bound = std::chrono::milliseconds(kStepDeadlineMs) + kClientGrace;
  BOOST_TEST(train_stats.longest_ms <= bound.count());
  BOOST_TEST(sync_stats.longest_ms <= bound.count());

  // Nothing lost, nothing applied twice.
  af::Tensor w_end;
  std::int64_t gs_end = -1;
  for (int attempt = 0; attempt < 20 && gs_end < 0; ++attempt) {
    try {
      auto values = chief_sess->run({chief.w.value(), chief.global_step.value()}, {}, {},
                                    {.timeout_in_ms = 5000});
      w_end = values[0];
      gs_end = values[1].scalar<std::int64_t>();
    } catch (const af::Error&) {
      std::this_thread::sleep_for(200ms);
    }
  }
  BOOST_REQUIRE(gs_end >= kTargetStep);
  BOOST_REQUIRE(!last_checkpoint.prefix.empty());
  af::Graph restored;
  auto w_ckpt = restored.variable(af::zeros(restored, af::Shape{kElements}), {.name = "w"});
  auto gs_ckpt = restored.variable(af::Tensor(std::int64_t{0}), {.name = "global_step"});
  af::train::Saver reader(std::vector<af::Variable>{w_ckpt, gs_ckpt});
  af::Session local(restored);
  reader.restore(local, last_checkpoint.prefix);
  const af::Tensor w_at_ckpt = local.run(w_ckpt.value());
  BOOST_TEST(local.run(gs_ckpt.value()).scalar<std::int64_t>() == last_checkpoint.step);
  const std::int64_t logged_after =
      static_cast<std::int64_t>(updates.size() - last_checkpoint.logged);
  BOOST_TEST_MESSAGE("checkpoint at global step "
                     << last_checkpoint.step << ", " << logged_after
                     << " updates logged after it, global step at the end " << gs_end);
  // Each global step after the checkpoint is one update of -1 (an update whose reply was
  // lost to a frozen ps still counts as a step: the global step moved with it).
  BOOST_TEST(logged_after <= gs_end - last_checkpoint.step);
  int mismatches = 0;
  for (int i = 0; i < kElements; ++i) {
    const float expected_from_ckpt =
        w_at_ckpt.data<float>()[i] - static_cast<float>(gs_end - last_checkpoint.step);
    const float expected_from_start = -static_cast<float>(gs_end);
    mismatches += w_end.data<float>()[i] != expected_from_ckpt ||
                  w_end.data<float>()[i] != expected_from_start;
  }
  BOOST_TEST(mismatches == 0, "w[0] = " << w_end.data<float>()[0] << " at global step " << gs_end);
}

BOOST_AUTO_TEST_SUITE_END()
