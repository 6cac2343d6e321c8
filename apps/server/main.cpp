// actorflow-server: runs one task of a cluster (TensorFlow's `tf.train.Server` in a process
// of its own) until SIGINT or SIGTERM.
//
//   actorflow-server --cluster cluster.json --job worker --task 0
//
// Logs go to stderr, each line prefixed with the task. The first SIGINT/SIGTERM stops the
// server (open sessions end with Cancelled, the port is released) and the process exits 0;
// a second one exits at once with status 130.
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli.hpp"

namespace {

struct Settings {
  std::string cluster;  // inline JSON or a file holding it
  std::string job;
  int task = -1;
  int heartbeat_ms = 500;
  int connection_timeout_ms = 3000;
  int peer_wait_ms = 30000;
  int log_every_ms = 10000;
  int status_port = -1;
  int max_message_mb = 512;
  int handshake_timeout_ms = 5000;
  int max_unauthenticated = 128;
  int stall_ms = 60000;
  std::string tls_cert, tls_key, tls_ca;
  int cpus = 1;
  int gpus = -1;
  int threads = 0;
};

void add_flags(CLI::App& cli, Settings& s) {
  cli.add_option("--cluster", s.cluster,
                 "the cluster: a JSON file, or inline JSON such as\n"
                 "'{\"ps\": [\"127.0.0.1:2221\"], \"worker\": [\"127.0.0.1:2222\"]}' (required, or "
                 "TF_CONFIG's cluster)")
      ->type_name("SPEC");
  cli.add_option("--job", s.job, "this task's job (required, or TF_CONFIG's task.type)")
      ->type_name("NAME");
  cli.add_option("--task", s.task,
                 "this task's index in its job (required, or TF_CONFIG's task.index)")
      ->type_name("N")
      ->check(af::apps::integer_in(0));
  cli.add_option("--heartbeat-ms", s.heartbeat_ms, "CAF heartbeat interval between tasks (0 = off)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--connection-timeout-ms", s.connection_timeout_ms, "drop a peer silent this long")
      ->check(af::apps::integer_in(1));
  cli.add_option("--peer-wait-ms", s.peer_wait_ms,
                 "how long opening a session waits for every task")
      ->check(af::apps::integer_in(0));
  cli.add_option("--log-every-ms", s.log_every_ms,
                 "how often start-up waits are repeated in the log")
      ->check(af::apps::integer_in(1));
  cli.add_option("--status-port", s.status_port,
                 "serve GET /metrics and /status over HTTP on this port of the task's host\n"
                 "(0 = any free port; -1: no status port)")
      ->check(af::apps::integer_in(-1, 65535));
  cli.add_option("--max-message-mb", s.max_message_mb,
                 "refuse BASP messages longer than N MiB on the CAF port")
      ->check(af::apps::integer_in(1, 4095));
  cli.add_option("--handshake-timeout-ms", s.handshake_timeout_ms,
                 "close connections that have not shaken hands (CAF) or made a first\n"
                 "request (step, bulk ports) this long after they came")
      ->check(af::apps::integer_in(1));
  cli.add_option("--max-unauthenticated", s.max_unauthenticated,
                 "connections per port waiting for that; a new one closes the oldest")
      ->check(af::apps::integer_in(1));
  cli.add_option("--stall-ms", s.stall_ms,
                 "log a wait in a step (a dequeue, an accumulator's take, a tensor from\n"
                 "another task) that lasts this long, naming what it waits for (0 = off)")
      ->check(af::apps::integer_in(0));
  auto* cert =
      cli.add_option("--tls-cert", s.tls_cert,
                     "this task's certificate chain (PEM); with --tls-key and --tls-ca every\n"
                     "connection to and from other processes is TLS with mutual certificates;\n"
                     "peers without one the CA signed are refused")
          ->check(CLI::ExistingFile);
  auto* key =
      cli.add_option("--tls-key", s.tls_key, "its private key (PEM)")->check(CLI::ExistingFile);
  auto* ca =
      cli.add_option("--tls-ca", s.tls_ca, "the cluster's CA (PEM)")->check(CLI::ExistingFile);
  cert->needs(key)->needs(ca);
  key->needs(cert);
  ca->needs(cert);
  cli.add_option("--cpus", s.cpus, "CPU devices of this task")->check(af::apps::integer_in(1));
  cli.add_option("--gpus", s.gpus, "GPU devices of this task (-1: every visible GPU)")
      ->check(af::apps::integer_in(-1, 1024));
  cli.add_option("--threads", s.threads, "inter-op and intra-op threads (0: cores)")
      ->check(af::apps::integer_in(0));
  cli.footer("Clients open sessions with target caf://HOST:PORT of any task.");
}

int signal_pipe[2] = {-1, -1};

void on_signal(int sig) {
  unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] auto n = ::write(signal_pipe[1], &b, 1);
}

int next_signal() {
  unsigned char b = 0;
  while (::read(signal_pipe[0], &b, 1) != 1) {
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  af::apps::App app("actorflow-server",
                    "Runs one task of an actorflow cluster until SIGINT/SIGTERM (a second signal "
                    "exits at once).");
  add_flags(app.cli, settings);
  if (auto code = app.parse(argc, argv)) return *code;
  std::string cluster_text;
  try {
    // TF_CONFIG fills what the flags leave unset, as TensorFlow's TFConfigClusterResolver.
    af::apps::apply_tf_config(settings.cluster, settings.job, settings.task);
    // Checked here rather than by CLI11 so that --dump-config works without them.
    for (auto [flag, missing] : {std::pair{"--cluster", settings.cluster.empty()},
                                 {"--job", settings.job.empty()},
                                 {"--task", settings.task < 0}})
      if (missing) throw std::runtime_error(std::string(flag) + " is required (see --help)");
    cluster_text = af::apps::cluster_json(settings.cluster);
  } catch (const std::exception& e) {
    std::cerr << "actorflow-server: " << e.what() << "\n";
    return 2;
  }

  const std::string identity = "/job:" + settings.job + "/task:" + std::to_string(settings.task);
  af::set_log_sink([identity](const std::string& line) {
    std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%F %T", std::localtime(&now));
    std::cerr << stamp << " [" << identity << "] " << line << "\n";
  });

  // Signal handlers only write the signal number to a pipe; a thread reads it (any thread
  // of the process may take the signal, some start before main).
  if (::pipe(signal_pipe) != 0) {
    std::perror("actorflow-server: pipe");
    return 1;
  }
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  int status = 0;
  try {
    af::ClusterSpec cluster = af::ClusterSpec::from_json(cluster_text);
    af::RuntimeOptions runtime_options;
    runtime_options.heartbeat_interval_ms = settings.heartbeat_ms;
    runtime_options.tls_certificate = settings.tls_cert;
    runtime_options.tls_key = settings.tls_key;
    runtime_options.tls_ca_file = settings.tls_ca;
    runtime_options.connection_timeout_ms = settings.connection_timeout_ms;
    af::Runtime runtime(runtime_options);
    {
      af::ServerOptions options;
      options.config.runtime = &runtime;
      options.config.device_count["CPU"] = settings.cpus;
      if (settings.gpus >= 0) options.config.device_count["GPU"] = settings.gpus;
      options.config.inter_op_parallelism_threads = settings.threads;
      options.config.intra_op_parallelism_threads = settings.threads;
      options.peer_wait = std::chrono::milliseconds(settings.peer_wait_ms);
      options.log_every = std::chrono::milliseconds(settings.log_every_ms);
      options.status_port = settings.status_port;
      options.max_message_bytes = static_cast<std::size_t>(settings.max_message_mb) << 20;
      options.handshake_timeout = std::chrono::milliseconds(settings.handshake_timeout_ms);
      options.max_unauthenticated_connections =
          static_cast<std::size_t>(settings.max_unauthenticated);
      options.stall_period = std::chrono::milliseconds(settings.stall_ms);
      af::Server server(cluster, settings.job, settings.task, options);
      af::log_info("serving " + server.target() + " (" + std::to_string(server.devices().size()) +
                   " devices)");
      std::thread waiter([&server] {
        int sig = next_signal();
        af::log_info(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                     ", stopping");
        server.stop();
        next_signal();
        std::cerr << "actorflow-server: second signal, exiting now\n";
        std::_Exit(130);
      });
      waiter.detach();
      server.join();
      af::log_info("stopped");
    }
    // Every actor of the server has quit by now. In this binary CAF 0.17's actor_system
    // destructor then waits forever in await_detached_threads (its detached-thread count never
    // reaches zero; not yet understood, the same sequence in a plain program exits), so the
    // wait is bounded; nothing is left to lose when it runs out.
    std::promise<void> shut;
    auto done = shut.get_future();
    std::thread([&runtime, &shut] {
      runtime.shutdown();
      shut.set_value();
    }).detach();
    if (done.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
      af::log_info("runtime shutdown did not finish within 2 s; exiting anyway");
      std::cerr.flush();
      std::_Exit(status);
    }
  } catch (const std::exception& e) {
    af::log_info(std::string("error: ") + e.what());
    status = 1;
  }
  return status;
}
