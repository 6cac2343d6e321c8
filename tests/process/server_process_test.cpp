// A cluster of real processes (apps/server) on loopback: the chapter's simple_client across
// two workers, a task killed (SIGKILL) or frozen (SIGSTOP) in the middle of a step, a task
// restarted, and the binary's signals and flags. Every child is reaped by ProcessGroup.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "free_port.hpp"
#include "http_client.hpp"
#include "log_capture.hpp"
#include "process.hpp"
#include "step_load.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;

/// `sh -c` script running "$0" "$@" with 96 descriptors. Under UBSan (scripts/sanitize.sh)
/// the vptr check reads memory through a pipe (sanitizer_common's IsAccessibleMemoryRange),
/// which a process out of descriptors cannot open: every virtual call then reports a false
/// "invalid vptr". Such a server runs with tests/data/ubsan_out_of_descriptors.supp.
const std::string kOutOfDescriptors =
    std::string(
        "if [ -n \"$UBSAN_OPTIONS\" ]; then export UBSAN_OPTIONS=\"$UBSAN_OPTIONS:suppressions=") +
    ACTORFLOW_TEST_DATA_DIR +
    "/ubsan_out_of_descriptors.supp\"; fi; ulimit -n 96 && exec \"$0\" \"$@\"";

/// `n` idle connections to `addr` (those that connect), open until destroyed.
struct IdleFlood {
  IdleFlood(const std::string& addr, int n) {
    const auto [host, port] = af::ClusterSpec::split_address(addr);
    for (int i = 0; i < n; ++i) {
      auto s = std::make_unique<asio::ip::tcp::socket>(io);
      std::error_code ec;
      s->connect(asio::ip::tcp::endpoint(asio::ip::make_address(host), port), ec);
      if (!ec) sockets.push_back(std::move(s));
    }
  }
  asio::io_context io;
  std::vector<std::unique_ptr<asio::ip::tcp::socket>> sockets;
};

/// A client runtime with the test cluster's certificate, key and CA.
af::RuntimeOptions tls_client_options() {
  const std::string tls = ACTORFLOW_TEST_DATA_DIR + "/tls/";
  af::RuntimeOptions o;
  o.tls_certificate = tls + "node.pem";
  o.tls_key = tls + "node.key";
  o.tls_ca_file = tls + "ca.pem";
  return o;
}

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

/// The log file of the server process `name` (its restarts append to it). The directory is
/// this test process's, emptied on first use: an earlier run with the same pid left its own.
std::string log_path(const std::string& name) {
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() / ("actorflow-process-test-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(d, ec);
    fs::create_directories(d);
    return d;
  }();
  return (dir / (name + ".log")).string();
}

/// ps:0, worker:0 and worker:1 as three actorflow-server processes.
struct ProcessCluster {
  std::string ps_address = address(), w0_address = address(), w1_address = address();
  std::string spec = R"({"ps": [")" + ps_address + R"("], "worker": [")" + w0_address + R"(", ")" +
                     w1_address + R"("]})";
  af::test::ProcessGroup group;
  std::size_t ps = 0, w0 = 0, w1 = 0;
  std::vector<std::string> extra_flags;  ///< e.g. the --tls-* flags

  explicit ProcessCluster(std::vector<std::string> extra = {}) : extra_flags(std::move(extra)) {
    ps = start("ps", 0);
    w0 = start("worker", 0);
    w1 = start("worker", 1);
  }
  std::size_t start(const std::string& job, int task) {
    std::vector<std::string> argv{ACTORFLOW_SERVER_BINARY,
                                  "--cluster",
                                  spec,
                                  "--job",
                                  job,
                                  "--task",
                                  std::to_string(task),
                                  "--heartbeat-ms",
                                  "300",
                                  "--connection-timeout-ms",
                                  "2000",
                                  "--peer-wait-ms",
                                  "20000"};
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
    return group.spawn(argv, log_path(job + std::to_string(task)));
  }
  static std::string target(const std::string& addr) { return "caf://" + addr; }
};

/// Opens a session, retrying while the server process is still starting up.
std::unique_ptr<af::Session> open(af::Graph& g, const std::string& target,
                                  af::SessionConfig config = {}) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    try {
      return std::make_unique<af::Session>(g, target, config);
    } catch (const af::UnavailableError&) {
      if (std::chrono::steady_clock::now() > until) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

struct Counter {
  af::Graph g;
  af::Variable x;
  af::Output increment_x;
  Counter() {
    auto pin = g.device("/job:ps/task:0");
    x = g.variable(0.0f, {.name = "x"});
    increment_x = x.assign(x.value() + 1.0f);
  }
};

/// How a step ended that was running while `disturb` hit one of its tasks.
struct Outcome {
  af::Code code = af::Code::ok;
  std::string message;
  std::chrono::milliseconds detected{0};  ///< from the disturbance to the step's end
};

/// Sends SIGSTOP to child `i` and waits until it is stopped ('T' in /proc/PID/stat): a
/// signal is delivered when the process next runs.
void freeze(af::test::ProcessGroup& group, std::size_t i) {
  group.signal(i, SIGSTOP);
  for (int k = 0; k < 500; ++k) {
    std::ifstream stat("/proc/" + std::to_string(group.pid(i)) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (line.size() > line.rfind(')') + 2 && line[line.rfind(')') + 2] == 'T') return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Runs `f` (a step); how it ended and (in `detected`) how long it took.
Outcome ended(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  Outcome out;
  out.message = "the step succeeded";
  try {
    f();
  } catch (const af::Error& e) {
    out.code = e.code();
    out.message = e.what();
  }
  out.detected = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return out;
}

/// One actorflow-server process serving `{"local": [addr]}` with `flags`, and a session on it
/// of a graph computing y = 2x.
struct Doubler {
  std::string addr = address();
  af::test::ProcessGroup group;
  std::size_t server = 0;
  af::Graph g;
  af::Output x = g.placeholder(af::float32, af::PartialShape{});
  af::Output y = x * 2.0f;
  std::unique_ptr<af::Session> sess;

  Doubler(const std::string& log_name, const std::vector<std::string>& flags) {
    std::vector<std::string> argv{ACTORFLOW_SERVER_BINARY,
                                  "--cluster",
                                  R"({"local": [")" + addr + R"("]})",
                                  "--job",
                                  "local",
                                  "--task",
                                  "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    server = group.spawn(argv, log_path(log_name));
    sess = open(g, ProcessCluster::target(addr));
  }
  float run(float value) { return sess->run(y, {{x, af::Tensor(value)}}).scalar<float>(); }
};

Outcome run_while(af::Session& sess, const af::Output& fetch, const af::RunOptions& options,
                  const std::function<void()>& disturb) {
  std::chrono::steady_clock::time_point hit;
  std::thread disturber([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    hit = std::chrono::steady_clock::now();
    disturb();
  });
  Outcome out;
  try {
    sess.run(fetch, {}, options);
    out.message = "the step succeeded";
  } catch (const af::Error& e) {
    out.code = e.code();
    out.message = e.what();
  }
  disturber.join();
  out.detected =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - hit);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(server_process_test)

BOOST_AUTO_TEST_CASE(simple_client_shares_x_on_the_ps_task_across_two_worker_processes,
                     *boost::unit_test::timeout(120)) {
  ProcessCluster cluster;
  auto simple_client = [&](const std::string& addr, bool init) {
    Counter c;
    auto sess = open(c.g, ProcessCluster::target(addr));
    if (init) sess->run(c.x.initializer());
    sess->run(c.increment_x);
    return sess->run(c.x.value()).scalar<float>();
  };
  BOOST_TEST(simple_client(cluster.w0_address, true) == 1.0f);
  BOOST_TEST(simple_client(cluster.w1_address, false) == 2.0f);
  // SIGTERM stops each server; the processes exit 0.
  for (auto i : {cluster.w0, cluster.w1, cluster.ps}) cluster.group.signal(i, SIGTERM);
  for (auto i : {cluster.w0, cluster.w1, cluster.ps}) {
    int status = cluster.group.wait(i, std::chrono::seconds(15));
    BOOST_TEST_REQUIRE(status != -1, "a server did not exit after SIGTERM:\n"
                                         << cluster.group.log(i));
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
  }
  BOOST_TEST(cluster.group.log(cluster.w0).find("[/job:worker/task:0]") != std::string::npos);
}

// The chapter's training_data_loader.py and trainer.py: two clients share the queue "shared_q"
// by its shared_name through the cluster. First as in the chapter (both clients on the same
// server, the queue on that server's task), then with the queue pinned to the ps task and the
// clients on different worker processes. dequeue_many(2) with one element left waits; its
// deadline ends the wait without taking that element.
BOOST_AUTO_TEST_CASE(the_chapters_loader_and_trainer_clients_talk_through_one_shared_queue,
                     *boost::unit_test::timeout(120)) {
  ProcessCluster cluster;
  struct Client {
    af::Graph g;
    std::unique_ptr<af::FIFOQueue> q;
    explicit Client(const std::string& pin) {
      auto scope = g.device(pin);
      q = std::make_unique<af::FIFOQueue>(g, af::QueueOptions{.capacity = 10,
                                                              .dtypes = {af::float32},
                                                              .shapes = {{2}},
                                                              .name = "q",
                                                              .shared_name = "shared_q"});
    }
  };
  auto row = [](float a, float b) { return af::Tensor::from_vector<float>({a, b}, af::Shape{2}); };
  struct Case {
    std::string pin, loader_address, trainer_address;
  };
  for (const auto& c : {Case{"", cluster.w0_address, cluster.w0_address},
                        Case{"/job:ps/task:0", cluster.w0_address, cluster.w1_address}}) {
    BOOST_TEST_CONTEXT("queue pinned to '" << c.pin << "', loader on " << c.loader_address
                                           << ", trainer on " << c.trainer_address) {
      // training_data_loader.py: three instances one by one, then three with enqueue_many.
      Client loader(c.pin);
      auto instance = loader.g.placeholder(af::float32, af::PartialShape{2});
      auto enqueue = loader.q->enqueue({instance});
      auto instances = loader.g.placeholder(af::float32, af::PartialShape{-1, 2});
      auto enqueue_many = loader.q->enqueue_many({instances});
      auto loader_sess = open(loader.g, ProcessCluster::target(c.loader_address));
      loader_sess->run(enqueue, {{instance, row(1, 2)}});
      loader_sess->run(enqueue, {{instance, row(3, 4)}});
      loader_sess->run(enqueue, {{instance, row(5, 6)}});

      // trainer.py, in its own session on its own task.
      Client trainer(c.pin);
      auto dequeue = trainer.q->dequeue();
      auto dequeue_mini_batch = trainer.q->dequeue_many(2);
      auto trainer_sess = open(trainer.g, ProcessCluster::target(c.trainer_address));
      BOOST_TEST(trainer_sess->run(dequeue[0]).to_vector<float>() == (std::vector<float>{1, 2}));
      BOOST_TEST(trainer_sess->run(dequeue_mini_batch[0]).to_vector<float>() ==
                 (std::vector<float>{3, 4, 5, 6}));
      loader_sess->run(
          enqueue_many,
          {{instances, af::Tensor::from_vector<float>({7, 8, 9, 10, 11, 12}, af::Shape{3, 2})}});
      BOOST_TEST(trainer_sess->run(dequeue_mini_batch[0]).to_vector<float>() ==
                 (std::vector<float>{7, 8, 9, 10}));
      // One instance left: the mini-batch waits ("blocked waiting for another instance").
      af::RunOptions options;
      options.timeout_in_ms = 300;
      BOOST_CHECK_THROW(trainer_sess->run(dequeue_mini_batch[0], {}, options),
                        af::DeadlineExceededError);
      loader_sess->run(enqueue, {{instance, row(13, 14)}});
      BOOST_TEST(trainer_sess->run(dequeue_mini_batch[0]).to_vector<float>() ==
                     (std::vector<float>{11, 12, 13, 14}),
                 "the timed-out dequeue_many took nothing");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_killed_task_fails_the_step_waiting_on_it_with_unavailable_and_can_restart,
                     *boost::unit_test::timeout(120)) {
  ProcessCluster cluster;
  af::Graph g;
  af::FIFOQueue q(
      g,
      {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .name = "q", .shared_name = "q"});
  af::Output next;
  {
    auto pin = g.device("/job:ps/task:0");
    next = q.dequeue().at(0);
  }
  auto doubled = next * 2.0f;
  auto sess = open(g, ProcessCluster::target(cluster.w0_address));
  af::RunOptions options;
  options.timeout_in_ms = 15000;  // a missed detection ends in DeadlineExceeded, not Unavailable
  auto outcome = run_while(*sess, doubled, options, [&] { cluster.group.kill(cluster.ps); });
  BOOST_TEST_MESSAGE("SIGKILL of the ps task detected after " << outcome.detected.count() << " ms");
  BOOST_TEST(outcome.code == af::Code::unavailable, outcome.message);
  BOOST_TEST(outcome.message.find("/job:ps/replica:0/task:0") != std::string::npos,
             outcome.message);
  // A restarted ps task serves new sessions (its variables and queues are new).
  cluster.ps = cluster.start("ps", 0);
  Counter c;
  auto again = open(c.g, ProcessCluster::target(cluster.w1_address));
  again->run(c.x.initializer());
  BOOST_TEST(again->run(c.increment_x).scalar<float>() == 1.0f);
}

BOOST_AUTO_TEST_CASE(a_frozen_task_fails_the_step_waiting_on_it_with_unavailable,
                     *boost::unit_test::timeout(120)) {
  ProcessCluster cluster;
  af::Graph g;
  af::FIFOQueue q(
      g,
      {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .name = "q", .shared_name = "q"});
  af::Output next;
  {
    auto pin = g.device("/job:ps/task:0");
    next = q.dequeue().at(0);
  }
  auto sess = open(g, ProcessCluster::target(cluster.w1_address));
  af::RunOptions options;
  options.timeout_in_ms = 20000;
  auto outcome =
      run_while(*sess, next, options, [&] { cluster.group.signal(cluster.ps, SIGSTOP); });
  BOOST_TEST_MESSAGE("SIGSTOP of the ps task detected after " << outcome.detected.count() << " ms");
  BOOST_TEST(outcome.code == af::Code::unavailable, outcome.message);
  BOOST_TEST(outcome.message.find("/job:ps/replica:0/task:0") != std::string::npos,
             outcome.message);
}

BOOST_AUTO_TEST_CASE(a_server_takes_its_cluster_and_task_from_tf_config,
                     *boost::unit_test::timeout(60)) {
  // TF_CONFIG as cluster managers set it; no --cluster, --job or --task. The flags would win.
  const std::string ps_address = address(), worker_address = address();
  const std::string config = R"({"cluster": {"ps": [")" + ps_address + R"("], "worker": [")" +
                             worker_address + R"("]}, "task": {"type": "worker", "index": 0}})";
  af::Server ps(af::ClusterSpec::from_json(R"({"ps": [")" + ps_address + R"("], "worker": [")" +
                                           worker_address + R"("]})"),
                "ps", 0);
  af::test::ProcessGroup group;
  ::setenv("TF_CONFIG", config.c_str(), 1);
  auto worker = group.spawn({ACTORFLOW_SERVER_BINARY}, log_path("tf_config"));
  ::setenv("TF_CONFIG", "{\"task\": 3}", 1);
  auto bad = group.spawn({ACTORFLOW_SERVER_BINARY}, log_path("tf_config_bad"));
  ::unsetenv("TF_CONFIG");
  af::Graph g;
  af::Output on_ps;
  {
    auto pinned = g.device("/job:ps/task:0");
    on_ps = g.constant(2.0f) * 3.0f;
  }
  BOOST_TEST(open(g, ProcessCluster::target(worker_address))->run(on_ps).scalar<float>() == 6.0f);
  BOOST_TEST(group.log(worker).find("/job:worker/replica:0/task:0") != std::string::npos,
             group.log(worker));
  const int status = group.wait(bad, std::chrono::seconds(20));
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 2);
  BOOST_TEST(group.log(bad).find("TF_CONFIG: \"task\" must be") != std::string::npos,
             group.log(bad));
  group.kill(worker);
  ps.stop();
}

BOOST_AUTO_TEST_CASE(a_killed_peer_is_reported_as_lost, *boost::unit_test::timeout(60)) {
  // The ps is a server of this process (its log lines captured), the worker a process.
  af::test::LogCapture log;
  const std::string ps_address = address(), worker_address = address();
  const std::string spec =
      R"({"ps": [")" + ps_address + R"("], "worker": [")" + worker_address + R"("]})";
  af::Server ps(af::ClusterSpec::from_json(spec), "ps", 0);
  af::test::ProcessGroup group;
  auto worker =
      group.spawn({ACTORFLOW_SERVER_BINARY, "--cluster", spec, "--job", "worker", "--task", "0"},
                  log_path("killed_peer"));
  af::Graph g;
  auto c = g.constant(1.0f) + 1.0f;
  open(g, ProcessCluster::target(worker_address))->run(c);
  af::Session(g, ps.target()).run(c);  // opens once the ps reached the worker too
  group.kill(worker);
  bool reported = false;
  for (int i = 0; i < 100 && !reported; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& l : log.take())
      reported = reported || (l.find("lost /job:worker/replica:0/task:0") != std::string::npos &&
                              l.find("reconnecting") != std::string::npos);
  }
  BOOST_TEST(reported);
  ps.stop();
}

BOOST_AUTO_TEST_CASE(a_session_whose_ps_froze_past_the_connection_timeout_runs_again_after_the_thaw,
                     *boost::unit_test::timeout(120)) {
  // worker:1 drops the ps after 2 s of silence; the ps comes back as the same process, with
  // x intact: the session that placed x there goes on (it used to fail for good through the
  // proxy retired with the lost connection).
  ProcessCluster cluster;
  Counter c;
  auto sess = open(c.g, ProcessCluster::target(cluster.w1_address));
  sess->run(c.x.initializer());
  BOOST_TEST(sess->run(c.increment_x).scalar<float>() == 1.0f);
  freeze(cluster.group, cluster.ps);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  cluster.group.signal(cluster.ps, SIGCONT);
  af::RunOptions options;
  options.timeout_in_ms = 3000;
  float value = 0.0f;
  std::string last_error;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (value == 0.0f && std::chrono::steady_clock::now() < until) {
    try {
      value = sess->run({c.increment_x}, {}, {}, options)[0].scalar<float>();
    } catch (const af::Error& e) {  // Unavailable while the tasks reconnect
      last_error = e.what();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  BOOST_TEST(value == 2.0f, "last error: " << last_error);
}

BOOST_AUTO_TEST_CASE(a_step_against_a_frozen_server_ends_at_its_own_deadline_on_the_client,
                     *boost::unit_test::timeout(120)) {
  // CAF would notice the frozen server only after its 30 s connection timeout: the step's own
  // deadline must end it first, on the client, whatever the server does.
  Doubler d("frozen_deadline", {"--heartbeat-ms", "1000", "--connection-timeout-ms", "30000"});
  BOOST_TEST(d.run(1.5f) == 3.0f);
  freeze(d.group, d.server);
  af::RunOptions options;
  options.timeout_in_ms = 2000;
  const Outcome out = ended([&] { d.sess->run(d.y, {{d.x, af::Tensor(2.0f)}}, options); });
  d.group.signal(d.server, SIGCONT);
  BOOST_TEST_MESSAGE("the step against the frozen server ended after " << out.detected.count()
                                                                       << " ms: " << out.message);
  BOOST_TEST(out.code == af::Code::deadline_exceeded, out.message);
  BOOST_TEST(out.detected.count() >= 1900);
  BOOST_TEST(out.detected.count() < 4000);
  // The thawed server serves the session again.
  BOOST_TEST(d.run(4.0f) == 8.0f);
}

BOOST_AUTO_TEST_CASE(a_session_that_lost_its_connection_fails_the_steps_in_flight_and_reconnects,
                     *boost::unit_test::timeout(120)) {
  // The server is frozen for 6 s, past this client's CAF connection timeout (3 s, with 500 ms
  // heartbeats): the connection is dropped. The step in flight, which has no deadline, fails
  // with Unavailable once the loss is noticed; after the thaw the same session reconnects on
  // its next step, and nodes added to the graph meanwhile reach the server.
  Doubler d("lost_connection", {"--heartbeat-ms", "300", "--connection-timeout-ms", "2000"});
  BOOST_TEST(d.run(1.5f) == 3.0f);
  const auto& o = af::Runtime::global().options();
  const auto bound = std::chrono::milliseconds(o.connection_timeout_ms + o.heartbeat_interval_ms);

  freeze(d.group, d.server);
  const auto frozen_at = std::chrono::steady_clock::now();
  auto w = d.y * 3.0f;  // its node travels with the step that is lost
  const Outcome out = ended([&] { d.sess->run(w, {{d.x, af::Tensor(2.0f)}}); });  // no deadline
  BOOST_TEST_MESSAGE("the lost connection failed the step after " << out.detected.count()
                                                                  << " ms: " << out.message);
  BOOST_TEST(out.code == af::Code::unavailable, out.message);
  BOOST_TEST(out.detected.count() < bound.count() + 1500);
  std::this_thread::sleep_until(frozen_at + std::chrono::seconds(6));
  d.group.signal(d.server, SIGCONT);

  // The same session, not a new one: its next steps reconnect and run, with nodes added
  // after the loss.
  auto z = d.y + 1.0f;
  af::RunOptions options;
  options.timeout_in_ms = 10000;
  BOOST_TEST(d.sess->run({d.y}, {{d.x, af::Tensor(4.0f)}}, {}, options)[0].scalar<float>() == 8.0f);
  BOOST_TEST(d.sess->run({z}, {{d.x, af::Tensor(4.0f)}}, {}, options)[0].scalar<float>() == 9.0f);
  BOOST_TEST(d.sess->run(z, {{d.x, af::Tensor(0.5f)}}).scalar<float>() == 2.0f);
  BOOST_TEST(d.sess->run(w, {{d.x, af::Tensor(0.5f)}}).scalar<float>() == 3.0f);
}

/// The server runs with 96 descriptors (and `extra` flags); 200 connections to its CAF port
/// exhaust them. Its accept loop must wait 100 ms after each accept that failed for want of
/// a descriptor (not spin at 100% of a core), and once the flood goes, serve. Every failed
/// accept counts in /metrics (`reason="descriptors"`): backing off, the CAF port fails at
/// most ten a second, however starved of CPU the machine is; a loop that spins fails
/// thousands. (The server's CPU share is printed, not asserted: on a loaded machine it says
/// more about the neighbours than about the server.) `config` is the client's (its runtime,
/// for TLS).
void check_out_of_descriptors_backs_off_and_recovers(const std::string& name,
                                                     const std::vector<std::string>& extra,
                                                     const af::SessionConfig& config) {
  const std::string addr = address();
  const std::uint16_t status = af::test::free_port();
  af::test::ProcessGroup group;
  std::vector<std::string> argv{"/bin/sh",         "-c",
                                kOutOfDescriptors, ACTORFLOW_SERVER_BINARY,
                                "--cluster",       R"({"local": [")" + addr + R"("]})",
                                "--job",           "local",
                                "--task",          "0",
                                "--status-port",   std::to_string(status)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto server = group.spawn(argv, log_path(name));
  af::Graph g;
  auto c = g.constant(3.0f) * 2.0f;
  {
    auto warm = open(g, ProcessCluster::target(addr), config);
    BOOST_TEST(warm->run(c).scalar<float>() == 6.0f);
  }
  auto cpu_ticks = [&] {
    std::ifstream stat("/proc/" + std::to_string(group.pid(server)) + "/stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string skip;
    for (int i = 0; i < 11; ++i) fields >> skip;  // fields 3..13
    long utime = 0, stime = 0;
    fields >> utime >> stime;
    return utime + stime;
  };
  const auto flood_began = std::chrono::steady_clock::now();
  auto flood = std::make_unique<IdleFlood>(addr, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long before = cpu_ticks();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double used =
      static_cast<double>(cpu_ticks() - before) / static_cast<double>(::sysconf(_SC_CLK_TCK)) / 2.0;
  BOOST_TEST_MESSAGE(name << ": server CPU while out of descriptors: " << used * 100
                          << "% of a core");
  flood.reset();
  const double flood_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - flood_began).count();
  // The flood gone, the server serves again within a few seconds (its waiting connections
  // close at the handshake timeout at the latest).
  auto sess = open(g, ProcessCluster::target(addr), config);
  BOOST_TEST(sess->run(c).scalar<float>() == 6.0f);
  const double failed = static_cast<double>(af::test::refused_connections(status, "descriptors"));
  BOOST_TEST_MESSAGE(name << ": " << failed << " accepts failed for want of descriptors in "
                          << flood_s << " s of flood");
  BOOST_TEST(failed >= 1.0);  // it did run out
  // Ten a second while the flood lasted, and the second or so its connections take to close.
  BOOST_TEST(failed <= 10.0 * (flood_s + 2.0) + 5.0);
}

BOOST_AUTO_TEST_CASE(a_server_out_of_descriptors_backs_off_instead_of_spinning_and_recovers,
                     *boost::unit_test::timeout(120)) {
  check_out_of_descriptors_backs_off_and_recovers("descriptors", {}, {});
}

BOOST_AUTO_TEST_CASE(a_tls_server_out_of_descriptors_backs_off_instead_of_spinning_and_recovers,
                     *boost::unit_test::timeout(120)) {
  const std::string tls = ACTORFLOW_TEST_DATA_DIR + "/tls/";
  af::Runtime client(tls_client_options());
  af::SessionConfig config;
  config.runtime = &client;
  check_out_of_descriptors_backs_off_and_recovers(
      "tls_descriptors",
      {"--tls-cert", tls + "node.pem", "--tls-key", tls + "node.key", "--tls-ca", tls + "ca.pem"},
      config);
}

BOOST_AUTO_TEST_CASE(when_the_step_and_bulk_ports_cannot_take_a_client_its_session_runs_over_caf,
                     *boost::unit_test::timeout(120)) {
  // The server runs with 96 descriptors and keeps unauthenticated connections for 30 s; 200
  // idle connections to its CAF port use up its descriptors, so neither its step port nor
  // its bulk port can accept a new connection (they wait in the backlog, unanswered). The
  // client's CAF connection is already up: a session opened now must run its steps and
  // fetch its large tensors over CAF, not wait on ports that never answer.
  const std::string addr = address();
  af::test::ProcessGroup group;
  group.spawn({"/bin/sh", "-c", kOutOfDescriptors, ACTORFLOW_SERVER_BINARY, "--cluster",
               R"({"local": [")" + addr + R"("]})", "--job", "local", "--task", "0",
               "--handshake-timeout-ms", "30000"},
              log_path("fallback"));
  af::Graph g;
  auto small = g.constant(3.0f) * 2.0f;
  auto large =
      af::ones(g, af::Shape{1 << 19}) * 2.0f;  // 2 MiB: fetched over the bulk port normally
  {
    auto warm =
        open(g, ProcessCluster::target(addr));  // the client's CAF connection, kept by the runtime
    BOOST_TEST(warm->run(small).scalar<float>() == 6.0f);
  }
  auto flood = std::make_unique<IdleFlood>(addr, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto sess = open(g, ProcessCluster::target(addr));
  af::RunOptions options;
  options.timeout_in_ms = 20000;
  BOOST_TEST(sess->run(small, {}, options).scalar<float>() == 6.0f);
  const auto fetched = sess->run(large, {}, options);
  BOOST_TEST_REQUIRE(fetched.num_elements() == std::int64_t{1} << 19);
  BOOST_TEST(fetched.data<float>()[0] == 2.0f);
  BOOST_TEST(fetched.data<float>()[(1 << 19) - 1] == 2.0f);
  // Later large fetches skip the bulk port for a while: no second wait.
  const auto start = std::chrono::steady_clock::now();
  BOOST_TEST(sess->run(large, {}, options).data<float>()[7] == 2.0f);
  const auto again = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  BOOST_TEST(again.count() < 3000);
  flood.reset();
}

BOOST_AUTO_TEST_CASE(the_server_binary_explains_bad_flags_and_exits_cleanly,
                     *boost::unit_test::timeout(60)) {
  af::test::ProcessGroup group;
  auto help = group.spawn({ACTORFLOW_SERVER_BINARY, "--help"}, log_path("help"));
  int status = group.wait(help, std::chrono::seconds(10));
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  BOOST_TEST(group.log(help).find("usage: actorflow-server") != std::string::npos);
  auto bad = group.spawn({ACTORFLOW_SERVER_BINARY, "--cluster", "{\"w\": [\"127.0.0.1:0\"]}",
                          "--job", "w", "--task", "x"},
                         log_path("bad"));
  status = group.wait(bad, std::chrono::seconds(10));
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 2));
  BOOST_TEST(group.log(bad).find("--task: expected an integer >= 0, got 'x'") != std::string::npos,
             group.log(bad));
  auto missing = group.spawn({ACTORFLOW_SERVER_BINARY, "--cluster", "{\"w\": [\"127.0.0.1:0\"]}",
                              "--job", "ps", "--task", "0"},
                             log_path("missing"));
  status = group.wait(missing, std::chrono::seconds(10));
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 1));
  BOOST_TEST(group.log(missing).find("ps") != std::string::npos, group.log(missing));
}

BOOST_AUTO_TEST_CASE(the_server_binary_reads_a_config_file_that_flags_override,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir("af_server_config");
  const std::string config = (dir.path / "server.json").string();
  {
    std::ofstream out(config);
    out << R"({"cluster": {"w": ["127.0.0.1:0"]}, "job": "w", "heartbeat_ms": 100, "status_port": 0})";
  }
  af::test::ProcessGroup group;
  auto dump = group.spawn(
      {ACTORFLOW_SERVER_BINARY, "--config", config, "--status-port", "9", "--dump-config"},
      log_path("dump"));
  int status = group.wait(dump, std::chrono::seconds(10));
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  const auto settings = nlohmann::json::parse(group.log(dump));
  BOOST_TEST(settings["cluster"] == nlohmann::json::parse(R"({"w": ["127.0.0.1:0"]})"));
  BOOST_TEST(settings["job"] == "w");
  BOOST_TEST(settings["heartbeat_ms"] == 100);            // from the file
  BOOST_TEST(settings["status_port"] == 9);               // the flag wins
  BOOST_TEST(settings["connection_timeout_ms"] == 3000);  // the default
  {
    std::ofstream out(config);
    out << R"({"heartbeat_ms": 100, "no_such_setting": 1})";
  }
  auto unknown = group.spawn({ACTORFLOW_SERVER_BINARY, "--config", config, "--dump-config"},
                             log_path("unknown"));
  status = group.wait(unknown, std::chrono::seconds(10));
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 2));
  BOOST_TEST(group.log(unknown).find("unknown setting 'no_such_setting'") != std::string::npos,
             group.log(unknown));
}

BOOST_AUTO_TEST_CASE(a_thousand_concurrent_steps_from_fifty_clients_on_a_server_process,
                     *boost::unit_test::timeout(240)) {
  af::test::ProcessGroup group;
  auto addr = address();
  auto i = group.spawn({ACTORFLOW_SERVER_BINARY, "--cluster", R"({"local": [")" + addr + R"("]})",
                        "--job", "local", "--task", "0"},
                       log_path("load"));
  af::Graph probe;
  open(probe, ProcessCluster::target(addr));  // waits until the server listens
  auto r = af::test::run_step_load(ProcessCluster::target(addr), 50, 20, std::chrono::seconds(200));
  BOOST_TEST_INFO("server log:\n" << group.log(i));
  BOOST_REQUIRE_MESSAGE(r.finished_clients == 50,
                        "only " << r.finished_clients << " of 50 clients finished");
  BOOST_TEST(r.failed == 0, "first error: " << r.first_error);
  BOOST_TEST(r.wrong == 0);
  BOOST_TEST(r.counter == 1000.0f);
  group.signal(i, SIGTERM);
  int status = group.wait(i, std::chrono::seconds(20));
  BOOST_TEST(status != -1);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
}

BOOST_AUTO_TEST_CASE(a_tls_cluster_of_processes_runs_steps_across_tasks_and_refuses_plain_clients,
                     *boost::unit_test::timeout(120)) {
  const std::string tls = ACTORFLOW_TEST_DATA_DIR + "/tls/";
  auto ps_address = address(), worker_address = address();
  std::string spec =
      R"({"ps": [")" + ps_address + R"("], "worker": [")" + worker_address + R"("]})";
  af::test::ProcessGroup group;
  for (auto [job, name] :
       {std::pair<const char*, const char*>{"ps", "tls_ps"}, {"worker", "tls_worker"}})
    group.spawn(
        {ACTORFLOW_SERVER_BINARY, "--cluster", spec, "--job", job, "--task", "0", "--tls-cert",
         tls + "node.pem", "--tls-key", tls + "node.key", "--tls-ca", tls + "ca.pem"},
        log_path(name));
  af::Runtime client(tls_client_options());
  af::Graph g;
  af::Output a;
  {
    auto pin = g.device("/job:ps/task:0");
    a = g.constant(20.0f);
  }
  auto b = a + 1.0f;  // on worker:0, the master
  af::SessionConfig config;
  config.runtime = &client;
  std::unique_ptr<af::Session> sess;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {  // the servers are still starting
    try {
      sess = std::make_unique<af::Session>(g, ProcessCluster::target(worker_address), config);
      break;
    } catch (const af::UnavailableError&) {
      if (std::chrono::steady_clock::now() > until) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  BOOST_TEST(sess->run(b).scalar<float>() == 21.0f);  // worker:0 reached ps:0 over TLS too
  // A client without TLS is refused.
  af::Graph plain_graph;
  auto c = plain_graph.constant(1.0f);
  BOOST_CHECK_THROW(af::Session(plain_graph, ProcessCluster::target(worker_address)).run(c),
                    af::UnavailableError);
  for (std::size_t i = 0; i < 2; ++i) group.signal(i, SIGTERM);
  for (std::size_t i = 0; i < 2; ++i) {
    int status = group.wait(i, std::chrono::seconds(20));
    BOOST_TEST(status != -1);
  }
}

BOOST_AUTO_TEST_CASE(through_tls_a_killed_or_frozen_task_still_fails_the_step_with_unavailable,
                     *boost::unit_test::timeout(120)) {
  const std::string tls = ACTORFLOW_TEST_DATA_DIR + "/tls/";
  ProcessCluster cluster(
      {"--tls-cert", tls + "node.pem", "--tls-key", tls + "node.key", "--tls-ca", tls + "ca.pem"});
  af::Runtime client(tls_client_options());
  af::SessionConfig config;
  config.runtime = &client;
  af::Graph g;
  af::FIFOQueue q(
      g,
      {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .name = "q", .shared_name = "q"});
  af::Output next;
  {
    auto pin = g.device("/job:ps/task:0");
    next = q.dequeue().at(0);
  }
  af::RunOptions options;
  options.timeout_in_ms = 20000;
  // Frozen worker:1 (the step's ps partition keeps waiting; heartbeats stop crossing the tunnel).
  {
    af::Graph g1;
    af::FIFOQueue q1(g1, {.capacity = 10,
                          .dtypes = {af::float32},
                          .shapes = {{}},
                          .name = "q1",
                          .shared_name = "q1"});
    af::Output on_w1;
    {
      auto pin = g1.device("/job:worker/task:1");
      on_w1 = q1.dequeue().at(0);
    }
    auto sess = open(g1, ProcessCluster::target(cluster.w0_address), config);
    auto frozen =
        run_while(*sess, on_w1, options, [&] { cluster.group.signal(cluster.w1, SIGSTOP); });
    BOOST_TEST_MESSAGE("through TLS, SIGSTOP of worker:1 detected after " << frozen.detected.count()
                                                                          << " ms");
    BOOST_TEST(frozen.code == af::Code::unavailable, frozen.message);
    BOOST_TEST(frozen.message.find("/job:worker/replica:0/task:1") != std::string::npos,
               frozen.message);
    cluster.group.kill(cluster.w1);
  }
  // Killed ps:0.
  auto sess = open(g, ProcessCluster::target(cluster.w0_address), [&] {
    af::SessionConfig c = config;
    c.device_filters = {"/job:ps"};  // worker:1 is gone
    return c;
  }());
  auto killed = run_while(*sess, next, options, [&] { cluster.group.kill(cluster.ps); });
  BOOST_TEST_MESSAGE("through TLS, SIGKILL of ps:0 detected after " << killed.detected.count()
                                                                    << " ms");
  BOOST_TEST(killed.code == af::Code::unavailable, killed.message);
  BOOST_TEST(killed.message.find("/job:ps/replica:0/task:0") != std::string::npos, killed.message);
}

BOOST_AUTO_TEST_SUITE_END()
