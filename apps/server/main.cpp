// actorflow-server: runs one task of a cluster (TensorFlow's `tf.train.Server` in a process
// of its own) until SIGINT or SIGTERM.
//
//   actorflow-server --cluster cluster.json --job worker --task 0
//
// Logs go to stderr, each line prefixed with the task. The first SIGINT/SIGTERM stops the
// server (open sessions end with Cancelled, the port is released) and the process exits 0;
// a second one exits at once with status 130.
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <actorflow/actorflow.hpp>

namespace {

const char* kUsage = R"(usage: actorflow-server --cluster SPEC --job NAME --task N [options]

Runs one task of an actorflow cluster until SIGINT/SIGTERM (a second signal exits at once).

  --cluster SPEC        the cluster: a JSON file, or inline JSON such as
                        '{"ps": ["127.0.0.1:2221"], "worker": ["127.0.0.1:2222"]}'
  --job NAME            this task's job
  --task N              this task's index in its job
  --config FILE.json    settings (the keys --dump-config prints); flags override them
  --dump-config         print the effective settings as JSON and exit
  --heartbeat-ms N      CAF heartbeat interval between tasks (0 = off; default 500)
  --connection-timeout-ms N
                        drop a peer silent this long (default 3000)
  --peer-wait-ms N      how long opening a session waits for every task (default 30000)
  --log-every-ms N      how often start-up waits are repeated in the log (default 10000)
  --status-port N       serve GET /metrics and /status over HTTP on this port of the task's
                        host (0 = any free port; default: no status port)
  --max-message-mb N    refuse BASP messages longer than N MiB on the CAF port (default 512)
  --handshake-timeout-ms N
                        close connections that have not shaken hands (CAF) or made a first
                        request (step, bulk ports) this long after they came (default 5000)
  --max-unauthenticated N
                        connections per port waiting for that; a new one closes the oldest
                        (default 128)
  --tls-cert FILE       this task's certificate chain (PEM); with --tls-key and --tls-ca
  --tls-key FILE        its private key (PEM)       every connection to and from other
  --tls-ca FILE         the cluster's CA (PEM)      processes is TLS with mutual certificates;
                                                    peers without one the CA signed are refused
  --cpus N              CPU devices of this task (default 1)
  --gpus N              GPU devices of this task (default: every visible GPU)
  --threads N           inter-op and intra-op threads (default: cores)
  --help                this text

Clients open sessions with target caf://HOST:PORT of any task.
)";

struct Settings {
  nlohmann::json cluster;
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
  std::string tls_cert, tls_key, tls_ca;
  int cpus = 1;
  int gpus = -1;
  int threads = 0;

  nlohmann::json to_json() const {
    return {{"cluster", cluster},
            {"job", job},
            {"task", task},
            {"heartbeat_ms", heartbeat_ms},
            {"connection_timeout_ms", connection_timeout_ms},
            {"peer_wait_ms", peer_wait_ms},
            {"log_every_ms", log_every_ms},
            {"status_port", status_port},
            {"max_message_mb", max_message_mb},
            {"handshake_timeout_ms", handshake_timeout_ms},
            {"max_unauthenticated", max_unauthenticated},
            {"tls_cert", tls_cert},
            {"tls_key", tls_key},
            {"tls_ca", tls_ca},
            {"cpus", cpus},
            {"gpus", gpus},
            {"threads", threads}};
  }

  void merge(const nlohmann::json& j, const std::string& where) {
    for (auto& [key, value] : j.items()) {
      if (key == "cluster") cluster = value;
      else if (key == "job") job = value.get<std::string>();
      else if (key == "task") task = value.get<int>();
      else if (key == "heartbeat_ms") heartbeat_ms = value.get<int>();
      else if (key == "connection_timeout_ms") connection_timeout_ms = value.get<int>();
      else if (key == "peer_wait_ms") peer_wait_ms = value.get<int>();
      else if (key == "log_every_ms") log_every_ms = value.get<int>();
      else if (key == "status_port") status_port = value.get<int>();
      else if (key == "max_message_mb") max_message_mb = value.get<int>();
      else if (key == "handshake_timeout_ms") handshake_timeout_ms = value.get<int>();
      else if (key == "max_unauthenticated") max_unauthenticated = value.get<int>();
      else if (key == "tls_cert") tls_cert = value.get<std::string>();
      else if (key == "tls_key") tls_key = value.get<std::string>();
      else if (key == "tls_ca") tls_ca = value.get<std::string>();
      else if (key == "cpus") cpus = value.get<int>();
      else if (key == "gpus") gpus = value.get<int>();
      else if (key == "threads") threads = value.get<int>();
      else throw std::runtime_error(where + ": unknown setting '" + key + "' (see --dump-config)");
    }
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json parse_json(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
}

int to_int(const std::string& flag, const std::string& value) {
  try {
    std::size_t used = 0;
    int v = std::stoi(value, &used);
    if (used == value.size()) return v;
  } catch (...) {
  }
  throw std::runtime_error(flag + ": expected an integer, got '" + value + "'");
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
  bool dump = false;
  try {
    // The config file first, so that flags override it wherever they stand.
    for (int i = 1; i + 1 < argc; ++i)
      if (std::string(argv[i]) == "--config") settings.merge(parse_json(read_file(argv[i + 1]), argv[i + 1]), argv[i + 1]);
    for (int i = 1; i < argc; ++i) {
      std::string flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::cout << kUsage;
        return 0;
      }
      if (flag == "--dump-config") {
        dump = true;
        continue;
      }
      if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value (see --help)");
      std::string value = argv[++i];
      if (flag == "--config") continue;
      if (flag == "--cluster") {
        auto first = value.find_first_not_of(" \t\n");
        settings.cluster = first != std::string::npos && value[first] == '{' ? parse_json(value, "--cluster")
                                                                             : parse_json(read_file(value), value);
      } else if (flag == "--job") settings.job = value;
      else if (flag == "--task") settings.task = to_int(flag, value);
      else if (flag == "--heartbeat-ms") settings.heartbeat_ms = to_int(flag, value);
      else if (flag == "--connection-timeout-ms") settings.connection_timeout_ms = to_int(flag, value);
      else if (flag == "--peer-wait-ms") settings.peer_wait_ms = to_int(flag, value);
      else if (flag == "--log-every-ms") settings.log_every_ms = to_int(flag, value);
      else if (flag == "--status-port") settings.status_port = to_int(flag, value);
      else if (flag == "--max-message-mb") settings.max_message_mb = to_int(flag, value);
      else if (flag == "--handshake-timeout-ms") settings.handshake_timeout_ms = to_int(flag, value);
      else if (flag == "--max-unauthenticated") settings.max_unauthenticated = to_int(flag, value);
      else if (flag == "--tls-cert") settings.tls_cert = value;
      else if (flag == "--tls-key") settings.tls_key = value;
      else if (flag == "--tls-ca") settings.tls_ca = value;
      else if (flag == "--cpus") settings.cpus = to_int(flag, value);
      else if (flag == "--gpus") settings.gpus = to_int(flag, value);
      else if (flag == "--threads") settings.threads = to_int(flag, value);
      else throw std::runtime_error("unknown option " + flag + " (see --help)");
    }
    if (dump) {
      std::cout << settings.to_json().dump(2) << "\n";
      return 0;
    }
    if (settings.cluster.is_null()) throw std::runtime_error("--cluster is required (see --help)");
    if (settings.job.empty()) throw std::runtime_error("--job is required (see --help)");
    if (settings.task < 0) throw std::runtime_error("--task is required (see --help)");
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
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  int status = 0;
  try {
    af::ClusterSpec cluster = af::ClusterSpec::from_json(settings.cluster.dump());
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
      if (settings.max_message_mb < 1 || settings.handshake_timeout_ms < 1 || settings.max_unauthenticated < 1)
        throw std::runtime_error("--max-message-mb, --handshake-timeout-ms and --max-unauthenticated must be positive");
      options.max_message_bytes = static_cast<std::size_t>(settings.max_message_mb) << 20;
      options.handshake_timeout = std::chrono::milliseconds(settings.handshake_timeout_ms);
      options.max_unauthenticated_connections = static_cast<std::size_t>(settings.max_unauthenticated);
      af::Server server(cluster, settings.job, settings.task, options);
      af::log_info("serving " + server.target() + " (" + std::to_string(server.devices().size()) + " devices)");
      std::thread waiter([&server] {
        int sig = next_signal();
        af::log_info(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
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
