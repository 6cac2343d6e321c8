// actorflow-wide-deep: a wide & deep click-through model whose embedding table is larger than
// one machine should hold, trained between-graph across a cluster, one process per task.
//
//   actorflow-wide-deep --cluster SPEC --job ps --task K              # a parameter server
//   actorflow-wide-deep --cluster SPEC --job worker --task K
//       [--embedding-rows R] [--steps S] [--mode async|sync] [--checkpoint-dir D] ...
//
// The table `embeddings` [R, dim + 1] is cut into one part per ps task (--partitions) and
// replica_device_setter spreads the parts over the ps tasks; each step only the rows the
// batch touches cross to the worker, and only their gradients (IndexedSlices) come back to
// Adagrad's sparse update on the part's own task. Each worker draws its batches from the
// seeded click log (click_log.hpp); the chief (worker 0) initialises or restores from
// --checkpoint-dir, saves checkpoints, and at the end reports the test AUC and log loss
// beside the best a model can reach (the hidden truth's).
#include <signal.h>

#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "click_log.hpp"
#include "cluster_task.hpp"
#include "model.hpp"

namespace {

using af::apps::log_line;
using af::apps::ps_traffic;
using Clock = std::chrono::steady_clock;
namespace wd = af::apps::wide_deep;

struct Settings {
  std::string cluster, job;
  int task = -1;
  wd::ModelOptions model;
  wd::ClickLogOptions log;
  std::string checkpoint_dir;
  std::int64_t save_steps = 0;
  std::int64_t steps = 1000;
  std::int64_t batch = 256;
  int threads = 1;
  std::int64_t log_every = 100;
  std::int64_t step_timeout_ms = 0;
  int status_port = -1;
  bool evaluate = true;
  std::int64_t test_examples = 20000;
  std::int64_t rate_from = 0;
  bool report_bytes = false;
  bool log_device_placement = false;
};

/// This process's peak resident memory in MiB (VmHWM), 0 when /proc cannot say.
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib / 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

/// The chief's test: AUC and log loss of the model on a held-out log, beside the hidden
/// truth's (the best any model can do on it).
std::string evaluate(af::Session& sess, const wd::Model& m, const wd::ClickLog& log,
                     const Settings& s) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.log.seed) ^ 0x7e57da7aULL);
  std::vector<double> predicted, truth;
  std::vector<float> labels;
  for (std::int64_t done = 0; done < s.test_examples;) {
    const std::int64_t n = std::min<std::int64_t>(4096, s.test_examples - done);
    const wd::ClickBatch b = log.batch(rng, n);
    const af::Tensor p = sess.run(m.probability, {{m.features, b.features}});
    for (std::int64_t i = 0; i < n; ++i) {
      predicted.push_back(p.data<float>()[i]);
      labels.push_back(b.clicks.data<float>()[i]);
    }
    truth.insert(truth.end(), b.truth.begin(), b.truth.end());
    done += n;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(4) << "test AUC " << wd::auc(predicted, labels)
      << " (achievable " << wd::auc(truth, labels) << "), log loss "
      << wd::log_loss(predicted, labels) << " (achievable " << wd::log_loss(truth, labels)
      << ") on " << s.test_examples << " examples";
  return out.str();
}

int run_worker(const Settings& s, const af::ClusterSpec& cluster, af::Server& server) {
  const int workers = cluster.num_tasks("worker");
  const std::string who = "/job:worker/task:" + std::to_string(s.task);
  const bool chief = s.task == 0;
  const wd::ClickLog log(s.log);
  wd::ModelOptions mo = s.model;
  if (mo.partitions <= 0) mo.partitions = std::max(1, cluster.num_tasks("ps"));
  mo.worker_device = who + "/device:CPU:0";
  const double table_mib =
      static_cast<double>(mo.rows) * static_cast<double>(mo.dim + 1) * 4 / (1 << 20);
  std::ostringstream intro;
  intro << std::fixed << std::setprecision(1) << "table " << mo.rows << " x " << mo.dim + 1 << " ("
        << table_mib << " MiB, " << 2 * table_mib << " MiB with Adagrad's slot) in "
        << mo.partitions << " parts, mode " << mo.mode
        << (mo.dense_gradients ? ", dense gradients" : "")
        << (mo.resource_variables ? ", resource variables" : "");
  log_line(who, intro.str());

  af::Graph g;
  wd::Model m = wd::build_model(g, cluster, mo, workers);
  std::vector<std::shared_ptr<af::train::SessionRunHook>> hooks = {
      std::make_shared<af::train::StopAtStepHook>(std::nullopt, s.steps)};
  if (m.sync) hooks.push_back(af::train::make_sync_replicas_hook(*m.sync, chief));
  af::train::MonitoredTrainingSessionOptions options{
      .master = server.target(),
      .is_chief = chief,
      .checkpoint_dir = s.checkpoint_dir,
      .hooks = hooks,
      .log_step_count_steps = 0,
      .recovery_wait = std::chrono::milliseconds(500)};
  options.config.device_filters = {"/job:ps", who};
  options.config.log_device_placement = s.log_device_placement;
  if (s.save_steps > 0) options.save_checkpoint_steps = s.save_steps;
  auto sess = af::train::MonitoredTrainingSession(g, options);
  const std::int64_t first_step =
      sess->raw_session().run(m.global_step.value()).scalar<std::int64_t>();
  log_line(who, "session ready at global step " + std::to_string(first_step));

  // A resumed run draws new rows: the stream depends on where it starts.
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.log.seed) * 1000003ULL +
                      static_cast<std::uint64_t>(s.task) * 7919ULL +
                      static_cast<std::uint64_t>(first_step));
  af::RunOptions run_options;
  run_options.timeout_in_ms = s.step_timeout_ms;
  std::int64_t local_steps = 0, global = first_step, window_steps = 0;
  double loss_sum = 0;
  const auto start = Clock::now();
  auto window = start;
  std::optional<std::pair<Clock::time_point, std::int64_t>> steady_from;
  std::pair<std::uint64_t, std::uint64_t> traffic_from{};
  double minimum_bytes = 0;  // one way, over the measured steps
  std::int64_t measured_steps = 0, touched_rows = 0;
  while (!sess->should_stop()) {
    const wd::ClickBatch b = log.batch(rng, s.batch);
    auto values =
        sess->run({m.loss, m.global_step.value(), m.unique_ids},
                  {{m.features, b.features}, {m.clicks, b.clicks}}, {m.train_op}, run_options);
    loss_sum += values[0].scalar<float>();
    global = values[1].scalar<std::int64_t>();
    const std::int64_t unique = values[2].scalar<std::int32_t>();
    if (steady_from) {
      // Every row touched, and every dense parameter, once each way.
      minimum_bytes += static_cast<double>(unique * (mo.dim + 1) + m.dense_parameters) * 4;
      touched_rows += unique;
      ++measured_steps;
    } else if (global >= s.rate_from) {
      steady_from.emplace(Clock::now(), global);
      traffic_from = ps_traffic(server);
    }
    ++local_steps;
    ++window_steps;
    if (s.log_every > 0 && local_steps % s.log_every == 0) {
      const double secs = std::chrono::duration<double>(Clock::now() - window).count();
      std::ostringstream line;
      line << std::fixed << std::setprecision(4) << "global step " << global << ", loss "
           << loss_sum / static_cast<double>(window_steps) << ", " << std::setprecision(1)
           << static_cast<double>(window_steps) / secs << " local steps/s";
      log_line(who, line.str());
      window = Clock::now();
      window_steps = 0;
      loss_sum = 0;
    }
  }
  const auto end = Clock::now();
  const double secs = std::chrono::duration<double>(end - start).count();
  global = sess->raw_session().run(m.global_step.value()).scalar<std::int64_t>();
  std::ostringstream done;
  done << std::fixed << std::setprecision(1) << "done: global step " << global << ", "
       << local_steps << " local steps in " << std::setprecision(2) << secs << " s ("
       << std::setprecision(1) << static_cast<double>(global - first_step) / std::max(secs, 1e-9)
       << " global steps/s)";
  if (steady_from && end > steady_from->first)
    done << ", steady "
         << static_cast<double>(global - steady_from->second) /
                std::chrono::duration<double>(end - steady_from->first).count()
         << " global steps/s from step " << steady_from->second;
  if (s.report_bytes && measured_steps > 0) {
    const auto [sent, received] = ps_traffic(server);
    const double n = static_cast<double>(measured_steps);
    const double to_ps = static_cast<double>(sent - traffic_from.first) / n;
    const double from_ps = static_cast<double>(received - traffic_from.second) / n;
    done << std::setprecision(0) << ", bytes per step: " << from_ps << " from ps, " << to_ps
         << " to ps, minimum " << minimum_bytes / n << " each way ("
         << static_cast<double>(touched_rows) / n << " rows touched, " << m.dense_parameters
         << " dense parameters), ratio " << std::setprecision(4)
         << (from_ps + to_ps) / (2 * minimum_bytes / n);
  }
  if (chief && s.evaluate) done << ", " << evaluate(sess->raw_session(), m, log, s);
  sess->close();
  log_line(who, done.str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  af::apps::App app("actorflow-wide-deep",
                    "Trains a wide & deep click-through model whose embedding table is "
                    "partitioned over the ps tasks,\n"
                    "one process per task, on a seeded click log with a known best AUC.");
  auto& cli = app.cli;
  cli.add_option("--cluster", s.cluster,
                 "the cluster: a JSON file or inline JSON {\"ps\": [...], \"worker\": [...]}");
  cli.add_option("--job", s.job, "ps or worker (default: TF_CONFIG's task.type)")
      ->check(CLI::IsMember({"ps", "worker"}));
  cli.add_option("--task", s.task, "this task's index in its job")->check(af::apps::integer_in(0));
  cli.add_option("--mode", s.model.mode,
                 "async (each worker applies its own gradients) or sync (SyncReplicasOptimizer)")
      ->check(CLI::IsMember({"async", "sync"}));
  cli.add_option("--replicas-to-aggregate", s.model.replicas_to_aggregate,
                 "sync: gradients per update (0: the workers)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--total-replicas", s.model.total_replicas,
                 "sync: workers computing gradients (0: the workers)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--embedding-rows", s.model.rows, "hash buckets: the table's rows")
      ->check(af::apps::integer_in(1));
  cli.add_option("--embedding-dim", s.model.dim, "the deep embedding's width")
      ->check(af::apps::integer_in(1));
  cli.add_option("--partitions", s.model.partitions, "parts of the table (0: one per ps task)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--hidden", s.model.hidden, "units of the MLP's hidden layers")
      ->delimiter(',')
      ->check(af::apps::integer_in(1));
  cli.add_option("--lr", s.model.lr, "Adagrad's learning rate")->check(af::apps::positive_real());
  cli.add_flag("--dense-gradients", s.model.dense_gradients,
               "densify the table's gradient before the update (to compare the bytes)");
  cli.add_flag("--resource-variables", s.model.resource_variables,
               "the table's parts as resource variables (TensorFlow 2's tf.compat.v1 default): "
               "ResourceGather and ResourceSparseApplyAdagrad");
  cli.add_option("--fields", s.log.fields, "categorical features per example")
      ->check(af::apps::integer_in(1, 1000));
  cli.add_option("--vocabulary", s.log.vocabulary, "the click log's values per field")
      ->check(af::apps::integer_in(1));
  cli.add_option("--zipf", s.log.zipf_exponent, "the values' Zipf exponent")
      ->check(af::apps::positive_real());
  cli.add_option("--seed", s.model.seed, "graph-level random seed, and the click log's")
      ->check(af::apps::integer_in(0));
  cli.add_option("--checkpoint-dir", s.checkpoint_dir,
                 "the chief restores from and saves to it (none if empty)");
  cli.add_option("--save-steps", s.save_steps, "checkpoint every N global steps (0: every 600 s)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--steps", s.steps, "stop at this global step")->check(af::apps::integer_in(1));
  cli.add_option("--batch", s.batch, "examples per worker step")->check(af::apps::integer_in(1));
  cli.add_option("--threads", s.threads, "threads of this task's pools (0: cores)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--log-every", s.log_every, "local steps between progress lines (0: none)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--step-timeout-ms", s.step_timeout_ms, "each step's deadline (0: none)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--status-port", s.status_port,
                 "serve /metrics and /status on this port (0: any; -1: none)")
      ->check(af::apps::integer_in(-1, 65535));
  cli.add_flag("!--no-eval", s.evaluate, "skip the chief's test AUC at the end");
  cli.add_option("--test-examples", s.test_examples, "rows of the chief's test log")
      ->check(af::apps::integer_in(1));
  cli.add_option("--rate-from", s.rate_from,
                 "report the steady rate (and bytes) from this global step on")
      ->check(af::apps::integer_in(0));
  cli.add_flag("--report-bytes", s.report_bytes,
               "report the bytes per step to and from the ps tasks against the minimum (the "
               "rows touched and the dense parameters, once each way)");
  cli.add_flag("--log-device-placement", s.log_device_placement,
               "log the device of each node of the worker's graph when first placed");
  if (auto code = app.parse(argc, argv)) return *code;
  s.log.seed = static_cast<std::uint64_t>(s.model.seed);
  try {
    af::apps::apply_tf_config(s.cluster, s.job, s.task);
  } catch (const std::exception& e) {
    std::cerr << "actorflow-wide-deep: " << e.what() << "\n";
    return 2;
  }
  if (s.cluster.empty() || s.job.empty() || s.task < 0) {
    std::cerr << "actorflow-wide-deep: --cluster, --job and --task are required, or TF_CONFIG "
                 "(see --help)\n";
    return 2;
  }
  if (s.job != "ps" && s.job != "worker") {
    std::cerr << "actorflow-wide-deep: the job must be ps or worker, got '" << s.job << "'\n";
    return 2;
  }
  const std::string who = "/job:" + s.job + "/task:" + std::to_string(s.task);
  af::set_log_sink([who](const std::string& line) { log_line(who, line); });
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  try {
    af::ClusterSpec cluster = af::ClusterSpec::from_json(af::apps::cluster_json(s.cluster));
    af::ServerOptions options;
    options.config.inter_op_parallelism_threads = s.threads;
    options.config.intra_op_parallelism_threads = s.threads;
    options.config.device_count["GPU"] = 0;
    options.status_port = s.status_port;
    af::Server server(cluster, s.job, s.task, options);
    std::thread waiter([signals, who] {
      int sig = 0;
      sigwait(&signals, &sig);
      std::ostringstream line;
      line << "received " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping; peak RSS "
           << std::fixed << std::setprecision(1) << peak_rss_mib() << " MiB";
      log_line(who, line.str());
      std::_Exit(130);
    });
    waiter.detach();
    if (s.job == "ps") {
      log_line(who, "serving " + server.target());
      server.join();
      return 0;
    }
    return run_worker(s, cluster, server);
  } catch (const af::Error& e) {
    return af::apps::report_failure("actorflow-wide-deep: " + who, e.status());
  } catch (const std::exception& e) {
    std::cerr << "actorflow-wide-deep: " << who << ": " << e.what() << "\n";
    return 1;
  }
}
