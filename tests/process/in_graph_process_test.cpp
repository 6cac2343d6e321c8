// apps/in_graph (the chapter's in-graph replication): towers of the MLP on two CPU devices in
// one graph learn Fashion-MNIST, synchronously (averaged gradients) and asynchronously (an
// optimizer and a loop per tower), and so does the MLP split over two devices (model
// parallelism); then the same across the two tasks of a cluster of real actorflow-server
// processes, each task doing its share. Skips when Debian's dataset-fashion-mnist is not
// installed.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "free_port.hpp"
#include "http_client.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace std::chrono_literals;

namespace {

const char* kTwoTasks = "/job:worker/task:0/device:CPU:0,/job:worker/task:1/device:CPU:0";

/// One copy of the MLP's parameters (784-256-128-10, float32), in bytes.
constexpr double kParameterBytes = 235146.0 * 4;

/// Two actorflow-server tasks of one cluster, {"worker": [task 0, task 1]} on loopback, one
/// thread each, with their status ports.
struct TwoTaskCluster {
  af::test::TempDir dir{"af_in_graph_cluster"};
  af::test::ProcessGroup group;
  std::string target;  ///< caf:// of task 0, the sessions' master
  std::uint16_t status_port[2] = {0, 0};

  /// Starts the servers and waits until both listen. The CAF ports must be in the spec before
  /// either server starts, so they are picked first (below the ephemeral range, where no
  /// outgoing connection or bulk port lands) and bound by the servers later; another process
  /// may still take one in between. A server that cannot bind exits, and the cluster starts
  /// again on fresh ports. The status ports have no such gap: each server binds any free one
  /// (--status-port 0) and logs it.
  TwoTaskCluster() {
    for (int attempt = 0; attempt < 3; ++attempt) {
      const std::string addr[2] = {"127.0.0.1:" + std::to_string(af::test::free_port()),
                                   "127.0.0.1:" + std::to_string(af::test::free_port())};
      const std::string spec = R"({"worker": [")" + addr[0] + R"(", ")" + addr[1] + R"("]})";
      std::size_t server[2];
      for (int k = 0; k < 2; ++k)
        server[k] = group.spawn(
            {ACTORFLOW_SERVER_BINARY, "--cluster", spec, "--job", "worker", "--task",
             std::to_string(k), "--threads", "1", "--status-port", "0"},
            (dir.path / ("server" + std::to_string(k) + "." + std::to_string(attempt) + ".log"))
                .string());
      const auto port0 = listening_status_port(server[0]);
      const auto port1 = listening_status_port(server[1]);
      if (port0 && port1) {
        target = "caf://" + addr[0];
        status_port[0] = *port0;
        status_port[1] = *port1;
        return;
      }
      BOOST_TEST_MESSAGE("cluster on " << spec << " did not start (attempt " << attempt + 1
                                       << "):\n"
                                       << group.log(server[0]) << group.log(server[1]));
      group.kill(server[0]);
      group.kill(server[1]);
    }
    BOOST_FAIL(
        "the two servers did not start in three attempts; their logs are in the messages above");
  }

  /// The status port server `i` logs once its CAF port is bound; nullopt when it exits first
  /// or does not log it within 60 s.
  std::optional<std::uint16_t> listening_status_port(std::size_t i) {
    const std::regex serves(R"(serves /metrics and /status on http://127\.0\.0\.1:(\d+))");
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < until) {
      std::smatch m;
      const std::string log = group.log(i);
      if (std::regex_search(log, m, serves)) return static_cast<std::uint16_t>(std::stoi(m[1]));
      if (group.wait(i, 0ms) != -1) return std::nullopt;
      std::this_thread::sleep_for(50ms);
    }
    return std::nullopt;
  }

  /// Runs actorflow-in-graph with `args` against task 0 over the two tasks' CPUs; requires a
  /// clean exit and returns its output.
  std::string run_in_graph(std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), ACTORFLOW_IN_GRAPH_BINARY);
    for (const char* more : {"--target", target.c_str(), "--devices", kTwoTasks})
      args.emplace_back(more);
    const auto i = group.spawn(args, (dir.path / log).string());
    const int status = group.wait(i, 200s);
    const std::string out = group.log(i);
    BOOST_TEST_INFO(out);
    BOOST_REQUIRE(status != -1);
    BOOST_REQUIRE(WIFEXITED(status));
    BOOST_REQUIRE(WEXITSTATUS(status) == 0);
    return out;
  }

  /// GET `path` on task `k`'s status port: the body.
  std::string status_of(int k, const std::string& path) const {
    return af::test::body_of(af::test::http_get(status_port[k], path));
  }
};

/// The sum of the `direction` ("sent" or "received") per-peer byte counters in `metrics` for
/// the peer /job:worker/task:`task` (named with or without its replica).
double peer_bytes(const std::string& metrics, const std::string& direction, int task) {
  const std::regex line("peer_bytes_" + direction +
                        R"(_total\{[^}]*peer="/job:worker(/replica:\d+)?/task:)" +
                        std::to_string(task) + R"("\} (\d+))");
  double sum = 0;
  for (auto it = std::sregex_iterator(metrics.begin(), metrics.end(), line);
       it != std::sregex_iterator(); ++it)
    sum += std::stod((*it)[2]);
  return sum;
}

/// The `actorflow_steps_total` counter in `metrics`, or -1.
double steps_total(const std::string& metrics) {
  std::smatch m;
  return std::regex_search(metrics, m, std::regex(R"(actorflow_steps_total\{[^}]*\} (\d+))"))
             ? std::stod(m[1])
             : -1;
}

bool have_data() {
  return std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(in_graph_process_test)

BOOST_AUTO_TEST_CASE(towers_on_two_cpu_devices_learn_in_sync_and_async_modes,
                     *boost::unit_test::timeout(240)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_in_graph");
  for (const std::string mode : {"sync", "async"}) {
    af::test::ProcessGroup group;
    auto i = group.spawn({ACTORFLOW_IN_GRAPH_BINARY, "--mode", mode, "--replicas", "2", "--steps",
                          "200", "--train-examples", "12000"},
                         (dir.path / (mode + ".log")).string());
    const int status = group.wait(i, std::chrono::seconds(200));
    const std::string out = group.log(i);
    BOOST_TEST_INFO(out);
    BOOST_REQUIRE(status != -1);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    std::smatch m;
    BOOST_REQUIRE(std::regex_search(
        out, m, std::regex(mode + ", 2 towers: global step (\\d+) .* test accuracy ([0-9.]+)")));
    // sync: 200 averaged updates; async: 200 updates from each tower.
    BOOST_TEST(std::stoi(m[1]) == (mode == "sync" ? 200 : 400));
    BOOST_TEST(std::stod(m[2]) > 0.75);
  }
}

// Model parallelism (exercise 10): the MLP's hidden layers split by units over two CPU
// devices still learn.
BOOST_AUTO_TEST_CASE(logdir_gets_the_graph_and_each_towers_loss, *boost::unit_test::timeout(240)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_in_graph_logdir");
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_IN_GRAPH_BINARY, "--mode", "sync", "--replicas", "2", "--steps",
                        "40", "--train-examples", "4000", "--logdir", (dir.path / "run").string(),
                        "--summary-every", "20"},
                       (dir.path / "out.log").string());
  const int status = group.wait(i, std::chrono::seconds(200));
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 0, group.log(i));
  const auto files = af::summary::event_files((dir.path / "run").string());
  BOOST_REQUIRE(files.size() == 1u);
  std::map<std::string, std::vector<std::int64_t>> steps;
  bool graph = false;
  for (const auto& e : af::summary::read_events(files[0])) {
    graph = graph || !e.graph_def.empty();
    for (const auto& v : e.summary) steps[v.tag].push_back(e.step);
  }
  BOOST_TEST(graph);
  BOOST_TEST(steps["tower_0/loss"] == (std::vector<std::int64_t>{20, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(steps["learning_rate"] == (std::vector<std::int64_t>{20, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(steps["examples_per_sec"] == (std::vector<std::int64_t>{20, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(steps["hidden1/kernel/values"] == (std::vector<std::int64_t>{20, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(steps["tower_1/loss"] == (std::vector<std::int64_t>{20, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(steps["test_accuracy"] == (std::vector<std::int64_t>{40}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_mlp_split_over_two_devices_learns, *boost::unit_test::timeout(240)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_split");
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_IN_GRAPH_BINARY, "--mode", "split", "--replicas", "2", "--steps",
                        "200", "--train-examples", "12000"},
                       (dir.path / "split.log").string());
  const int status = group.wait(i, std::chrono::seconds(200));
  const std::string out = group.log(i);
  BOOST_TEST_INFO(out);
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 0);
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(
      out, m, std::regex("split over 2 devices: 200 steps .* test accuracy ([0-9.]+)")));
  BOOST_TEST(std::stod(m[1]) > 0.75);
}

// --target and --devices: one tower on each task's CPU, the variables on task 0. Task 0 runs
// the steps as the master; task 1 computes its tower, so the parameters cross to it and its
// gradients back every step.
BOOST_AUTO_TEST_CASE(sync_towers_on_two_tasks_of_a_cluster_learn_with_each_task_computing_one,
                     *boost::unit_test::timeout(300)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  TwoTaskCluster c;
  const std::string out = c.run_in_graph(
      {"--mode", "sync", "--steps", "200", "--train-examples", "12000"}, "sync_two_tasks.log");
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(
      out, m, std::regex("sync, 2 towers: global step (\\d+) .* test accuracy ([0-9.]+)")));
  BOOST_TEST(std::stoi(m[1]) == 200);
  BOOST_TEST(std::stod(m[2]) > 0.75);
  const std::string master = c.status_of(0, "/metrics");
  BOOST_TEST_INFO(master);
  BOOST_TEST(steps_total(master) >= 200);
  const std::string metrics = c.status_of(1, "/metrics");
  BOOST_TEST_INFO(metrics);
  // Every one of the 200 steps brought task 1 the parameters and took their gradients back.
  BOOST_TEST(peer_bytes(metrics, "received", 0) >= 200 * kParameterBytes);
  BOOST_TEST(peer_bytes(metrics, "sent", 0) >= 200 * kParameterBytes);
}

// Model parallelism across tasks: each hidden layer's second slice lives and is computed on
// task 1, the first slice and the logits layer on task 0.
BOOST_AUTO_TEST_CASE(the_mlp_split_over_two_tasks_of_a_cluster_learns_with_a_slice_on_each,
                     *boost::unit_test::timeout(300)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  TwoTaskCluster c;
  const std::string out = c.run_in_graph(
      {"--mode", "split", "--steps", "200", "--train-examples", "12000"}, "split_two_tasks.log");
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(
      out, m, std::regex("split over 2 devices: 200 steps .* test accuracy ([0-9.]+)")));
  BOOST_TEST(std::stod(m[1]) > 0.75);
  // The variables outlive the session on the servers' devices: each task holds its slices.
  const std::string task0 = c.status_of(0, "/status"), task1 = c.status_of(1, "/status");
  BOOST_TEST_INFO("task 0:\n" << task0 << "task 1:\n" << task1);
  BOOST_TEST(task1.find("hidden1_part1/kernel") != std::string::npos);
  BOOST_TEST(task1.find("hidden2_part1/kernel") != std::string::npos);
  BOOST_TEST(task1.find("hidden1_part0/kernel") == std::string::npos);
  BOOST_TEST(task0.find("hidden1_part0/kernel") != std::string::npos);
  BOOST_TEST(task0.find("logits/kernel") != std::string::npos);
  const std::string metrics = c.status_of(1, "/metrics");
  BOOST_TEST_INFO(metrics);
  // Task 1 takes each batch's images (128 x 784 floats) for its first-layer slice and returns
  // at least that slice's activations (128 x 128), every one of the 200 steps.
  BOOST_TEST(peer_bytes(metrics, "received", 0) >= 200 * 128 * 784 * 4.0);
  BOOST_TEST(peer_bytes(metrics, "sent", 0) >= 200 * 128 * 128 * 4.0);
}

BOOST_AUTO_TEST_SUITE_END()
