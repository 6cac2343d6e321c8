// actorflow-dist-train: the chapter's data-parallel training of an MLP (784-256-128-10) on
// Fashion-MNIST across a cluster, between-graph replicated: one process per task.
//
//   actorflow-dist-train --cluster SPEC --job ps --task 0            # a parameter server
//   actorflow-dist-train --cluster SPEC --job worker --task K
//       [--mode async|sync] [--replicas-to-aggregate N] [--total-replicas N] [--bf16-transfer]
//       [--checkpoint-dir D] [--steps S] [--device /gpu:0] ...       # a worker (task 0: chief)
//
// Workers build the same graph under replica_device_setter: variables round-robin on the ps
// tasks, everything else on the worker. Each trains on its own shard of the training split
// (example i goes to worker i % workers), fed from memory, through a MonitoredTrainingSession:
// the chief (worker 0) initialises or restores from --checkpoint-dir and saves checkpoints,
// the others wait for a ready model; all stop at global step --steps. --mode sync wraps Adam in
// SyncReplicasOptimizer; --bf16-transfer makes parameters and gradients cross tasks as
// bfloat16. --device /gpu:0 puts a worker's model on its GPU (the ps tasks stay on their CPUs;
// ops without a GPU kernel fall back to the CPU), --gpu-memory-fraction lets several workers
// share one GPU. scripts/dist_train.sh starts a local cluster of these processes.
#include <signal.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
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
#include "cluster_task.hpp"
#include "trainer.hpp"

namespace {

using af::apps::log_line;
using af::apps::ps_traffic;
using Clock = std::chrono::steady_clock;
constexpr std::int64_t kPixels = 784;

struct Settings {
  std::string cluster, job;
  int task = -1;
  std::string mode = "async";
  int replicas_to_aggregate = 0;
  int total_replicas = 0;
  bool bf16_transfer = false;
  std::string checkpoint_dir;
  std::int64_t save_steps = 0;
  std::int64_t steps = 1000;
  std::int64_t batch = 128;
  double lr = 1e-3;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::int64_t train_examples = 0;
  int threads = 1;
  std::int64_t log_every = 100;
  std::int64_t step_timeout_ms = 0;
  int status_port = -1;
  std::int64_t seed = 42;
  bool evaluate = true;
  std::int64_t rate_from = 0;
  std::vector<std::int64_t> hidden = {256, 128};
  bool report_bytes = false;
  std::int64_t eval_every = 0;
  double target_accuracy = 0.85;
  std::string device = "/cpu:0";
  double gpu_memory_fraction = 0;
  std::string logdir;
  std::int64_t summary_every = 100;
};

/// The worker's device spec (`/device:GPU:0` for `--device /gpu:0`); throws InvalidArgument
/// naming a malformed or job-qualified spec.
af::DeviceSpec worker_device(const Settings& s) {
  af::DeviceSpec d = af::DeviceSpec::parse(s.device);
  if (d.job || d.replica || d.task)
    throw af::InvalidArgumentError(af::invalid_argument(
        "--device names a device of this task (/cpu:0, /gpu:0), got '" + s.device + "'"));
  return d;
}

bool on_gpu(const Settings& s) {
  return s.job == "worker" && worker_device(s).device_type == "GPU";
}

struct Model {
  af::Output x, y, loss, accuracy;
  /// --logdir: the cluster's examples/s, fed by the chief each step (0 elsewhere).
  af::Output examples_per_sec;
  af::Operation train_op;
  af::Variable global_step;
  std::int64_t parameters = 0;  ///< elements of the model's variables
  std::unique_ptr<af::train::AdamOptimizer> adam;
  std::unique_ptr<af::train::SyncReplicasOptimizer> sync;
};

/// The MLP under replica_device_setter. With `bf16`, each variable is read through a cast to
/// bfloat16 colocated with it (on its ps) and a cast back on the worker, and gradients are
/// colocated with their ops, so the gradient of the first cast (bfloat16) is what crosses back.
Model build(af::Graph& g, const af::ClusterSpec& cluster, const Settings& s, int workers) {
  Model m;
  const std::string task = "/job:worker/task:" + std::to_string(s.task);
  auto setter = g.device(
      af::replica_device_setter(cluster, {.worker_device = task + worker_device(s).to_string()}));
  g.set_random_seed(s.seed);
  m.global_step = af::train::get_or_create_global_step(g);
  m.x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
  m.y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
  auto read = [&](const af::Variable& v) -> af::Output {
    if (!s.bf16_transfer) return v.value();
    af::Output half;
    {
      auto colocate = g.colocate_with(v.op());
      half = af::cast(v.value(), af::DType::bfloat16, v.name() + "_bf16");
    }
    return af::cast(half, af::DType::float32, v.name() + "_f32");
  };
  std::vector<std::int64_t> sizes = {kPixels};
  sizes.insert(sizes.end(), s.hidden.begin(), s.hidden.end());
  sizes.push_back(10);
  const auto variables = af::apps::mlp_variables(g, sizes);
  for (const auto& v : variables) m.parameters += v.value().shape().num_elements();
  const af::Output h = af::apps::mlp_logits(m.x, variables, read);
  m.loss = af::losses::sparse_softmax_cross_entropy(m.y, h);
  m.accuracy = af::metrics::batch_accuracy(m.y, af::argmax(h, 1, af::DType::int32));
  if (!s.logdir.empty()) {
    // The chief's SummarySaverHook writes them (with the graph and global_step/sec); the
    // chief feeds its examples/s each step.
    af::summary::scalar("loss", m.loss);
    af::summary::scalar("accuracy", m.accuracy);
    af::summary::scalar("learning_rate",
                        g.constant(af::Tensor(static_cast<float>(s.lr)), "learning_rate_value"));
    m.examples_per_sec =
        g.create_op("PlaceholderWithDefault", {g.constant(af::Tensor(0.0f), "no_rate_yet")},
                    {{"dtype", af::DType::float32}, {"shape", af::PartialShape(af::Shape{})}},
                    "examples_per_sec_value")
            .output(0);
    af::summary::scalar("examples_per_sec", m.examples_per_sec);
    for (const auto& v : variables) af::summary::histogram(v.op().name() + "/values", v.value());
  }
  m.adam = std::make_unique<af::train::AdamOptimizer>(s.lr);
  const af::train::GradientOptions gopts{.colocate_gradients_with_ops = s.bf16_transfer};
  if (s.mode == "sync") {
    const int to_aggregate = s.replicas_to_aggregate > 0 ? s.replicas_to_aggregate : workers;
    const int total = s.total_replicas > 0 ? s.total_replicas : workers;
    m.sync = std::make_unique<af::train::SyncReplicasOptimizer>(*m.adam, to_aggregate, total);
    m.train_op = m.sync->minimize(m.loss, m.global_step, std::nullopt, gopts);
  } else {
    m.train_op = m.adam->minimize(m.loss, m.global_step, std::nullopt, gopts);
  }
  return m;
}

/// This worker's shard of the training split: example i goes to worker i % workers.
std::pair<af::Tensor, af::Tensor> shard(const Settings& s, int workers) {
  const std::int64_t total =
      s.train_examples > 0 ? std::min<std::int64_t>(s.train_examples, 60000) : 60000;
  auto [images, labels] = af::apps::load_fashion_mnist(s.data_dir, "train", total);
  std::vector<std::int64_t> mine;
  for (std::int64_t i = s.task; i < total; i += workers) mine.push_back(i);
  af::Tensor x(af::DType::float32, af::Shape{static_cast<std::int64_t>(mine.size()), kPixels});
  af::Tensor y(af::DType::int32, af::Shape{static_cast<std::int64_t>(mine.size())});
  for (std::size_t r = 0; r < mine.size(); ++r) {
    std::copy_n(images.data<float>() + mine[r] * kPixels, kPixels,
                x.data<float>() + static_cast<std::int64_t>(r) * kPixels);
    y.data<std::int32_t>()[r] = labels.data<std::int32_t>()[mine[r]];
  }
  return {x, y};
}

int run_worker(const Settings& s, const af::ClusterSpec& cluster, af::Server& server) {
  const int workers = cluster.num_tasks("worker");
  const std::string who = "/job:worker/task:" + std::to_string(s.task);
  const bool chief = s.task == 0;
  auto [train_x, train_y] = shard(s, workers);
  const std::int64_t n = train_x.shape().dim(0);
  log_line(who, "shard of " + std::to_string(n) + " training examples, mode " + s.mode +
                    (s.bf16_transfer ? ", bfloat16 transfer" : "") + ", model on " +
                    worker_device(s).to_string());

  af::Graph g;
  Model m = build(g, cluster, s, workers);
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
  // As TensorFlow's between-graph examples: a worker's sessions see only the ps tasks and
  // itself, so a lost or not yet started worker never holds another one's session back.
  options.config.device_filters = {"/job:ps", who};
  // ArgMax (the accuracy) and the like have no GPU kernel: they fall back to the CPU.
  options.config.allow_soft_placement = true;
  if (s.save_steps > 0) options.save_checkpoint_steps = s.save_steps;
  options.summary_dir = s.logdir;
  options.save_summaries_steps = s.summary_every;
  auto sess = af::train::MonitoredTrainingSession(g, options);
  const std::int64_t first_step =
      sess->raw_session().run(m.global_step.value()).scalar<std::int64_t>();
  log_line(who, "session ready at global step " + std::to_string(first_step));

  af::apps::ShuffledBatches batches(
      train_x, train_y, s.batch,
      static_cast<std::uint64_t>(s.seed) * 1000 + static_cast<std::uint64_t>(s.task));
  af::RunOptions run_options;
  run_options.timeout_in_ms = s.step_timeout_ms;
  std::int64_t local_steps = 0, global = first_step;
  double loss_sum = 0;
  const auto start = Clock::now();
  auto window = start;
  std::int64_t window_steps = 0, window_global = first_step;
  // The steady rate: from the first step at or past --rate-from (warm-up excluded).
  std::optional<std::pair<Clock::time_point, std::int64_t>> steady_from;
  std::pair<std::uint64_t, std::uint64_t> traffic_from{};
  std::int64_t local_from = 0;
  // Exercise 10: the chief checks the test accuracy every --eval-every global steps.
  std::optional<std::pair<af::Tensor, af::Tensor>> test_set;
  if (chief && s.eval_every > 0) test_set = af::apps::load_fashion_mnist(s.data_dir, "t10k", 10000);
  std::int64_t next_eval = s.eval_every, reached_at = -1;
  // --logdir: the cluster's examples/s as the chief sees the global step advance, over
  // windows of --summary-every global steps (each global step is one batch, or in sync mode
  // one batch from each of the replicas aggregated).
  const double examples_per_global_step =
      static_cast<double>(s.batch) *
      (s.mode == "sync" ? (s.replicas_to_aggregate > 0 ? s.replicas_to_aggregate : workers) : 1);
  float examples_per_sec = 0;
  auto rate_since = start;
  std::int64_t rate_global = first_step;
  while (!sess->should_stop()) {
    auto [bx, by] = batches.next();
    af::FeedDict feeds{{m.x, bx}, {m.y, by}};
    if (m.examples_per_sec.valid())
      feeds.emplace_back(m.examples_per_sec, af::Tensor(examples_per_sec));
    auto values = sess->run({m.loss, m.global_step.value()}, feeds, {m.train_op}, run_options);
    loss_sum += values[0].scalar<float>();
    global = values[1].scalar<std::int64_t>();
    if (!steady_from && global >= s.rate_from) {
      steady_from.emplace(Clock::now(), global);
      traffic_from = ps_traffic(server);  // this step's bytes included: it is not counted below
      local_from = local_steps + 1;
    }
    ++local_steps;
    if (global - rate_global >= std::max<std::int64_t>(1, s.summary_every)) {
      const double secs = std::chrono::duration<double>(Clock::now() - rate_since).count();
      examples_per_sec = static_cast<float>(static_cast<double>(global - rate_global) *
                                            examples_per_global_step / std::max(secs, 1e-9));
      rate_since = Clock::now();
      rate_global = global;
    }
    if (test_set && global >= next_eval && reached_at < 0) {
      const double acc = sess->raw_session()
                             .run(m.accuracy, {{m.x, test_set->first}, {m.y, test_set->second}})
                             .scalar<float>();
      next_eval = (global / s.eval_every + 1) * s.eval_every;
      if (acc >= s.target_accuracy) {
        reached_at = global;
        std::ostringstream line;
        line << std::fixed << std::setprecision(4) << "test accuracy " << acc
             << " >= " << s.target_accuracy << " at global step " << global;
        log_line(who, line.str());
      }
    }
    ++window_steps;
    if (s.log_every > 0 && local_steps % s.log_every == 0) {
      const double secs = std::chrono::duration<double>(Clock::now() - window).count();
      std::ostringstream line;
      line << std::fixed << std::setprecision(4) << "global step " << global << ", loss "
           << loss_sum / static_cast<double>(window_steps) << ", " << std::setprecision(1)
           << static_cast<double>(window_steps) / secs << " local steps/s, "
           << static_cast<double>(global - window_global) / secs << " global steps/s";
      log_line(who, line.str());
      window = Clock::now();
      window_steps = 0;
      window_global = global;
      loss_sum = 0;
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const auto end = Clock::now();
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
  if (s.report_bytes && steady_from && local_steps > local_from) {
    // Bytes per local step to and from the ps tasks, against the minimum: every parameter
    // once to this worker and its gradient once back, per step.
    const auto [sent, received] = ps_traffic(server);
    const double n = static_cast<double>(local_steps - local_from);
    const double minimum = static_cast<double>(m.parameters) * (s.bf16_transfer ? 2.0 : 4.0);
    const double to_ps = static_cast<double>(sent - traffic_from.first) / n;
    const double from_ps = static_cast<double>(received - traffic_from.second) / n;
    done << std::fixed << std::setprecision(0) << ", bytes per step: " << from_ps << " from ps, "
         << to_ps << " to ps, minimum " << minimum << " each way (" << m.parameters
         << " parameters), ratio " << std::setprecision(4) << (from_ps + to_ps) / (2 * minimum);
  }
  if (reached_at >= 0)
    done << std::setprecision(2) << ", reached " << s.target_accuracy << " at global step "
         << reached_at;
  if (chief && s.evaluate) {
    auto [test_x, test_y] = af::apps::load_fashion_mnist(s.data_dir, "t10k", 10000);
    const double acc =
        sess->raw_session().run(m.accuracy, {{m.x, test_x}, {m.y, test_y}}).scalar<float>();
    done << std::setprecision(4) << ", test accuracy " << acc;
  }
  sess->close();
  log_line(who, done.str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  af::apps::App app(
      "actorflow-dist-train",
      "Trains an MLP (784-256-128-10 unless --hidden) on Fashion-MNIST across a cluster, one "
      "process\n"
      "per task "
      "(between-graph replication: ps tasks hold the variables, worker 0 is the chief).");
  auto& cli = app.cli;
  cli.add_option("--cluster", s.cluster,
                 "the cluster: a JSON file or inline JSON {\"ps\": [...], \"worker\": [...]}");
  cli.add_option("--job", s.job, "ps or worker (default: TF_CONFIG's task.type)")
      ->check(CLI::IsMember({"ps", "worker"}));
  cli.add_option("--task", s.task, "this task's index in its job")->check(af::apps::integer_in(0));
  cli.add_option("--mode", s.mode,
                 "async (each worker applies its own gradients) or sync (SyncReplicasOptimizer)")
      ->check(CLI::IsMember({"async", "sync"}));
  cli.add_option("--replicas-to-aggregate", s.replicas_to_aggregate,
                 "sync: gradients per update (0: the workers)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--total-replicas", s.total_replicas,
                 "sync: workers computing gradients (0: the workers)")
      ->check(af::apps::integer_in(0));
  cli.add_flag("--bf16-transfer", s.bf16_transfer,
               "parameters and gradients cross tasks as bfloat16");
  cli.add_option("--checkpoint-dir", s.checkpoint_dir,
                 "the chief restores from and saves to it (none if empty)");
  cli.add_option("--save-steps", s.save_steps, "checkpoint every N global steps (0: every 600 s)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--steps", s.steps, "stop at this global step")->check(af::apps::integer_in(1));
  cli.add_option("--batch", s.batch, "examples per worker step")->check(af::apps::integer_in(1));
  cli.add_option("--lr", s.lr, "Adam's learning rate")->check(af::apps::positive_real());
  cli.add_option("--data-dir", s.data_dir, "the gzip IDX files");
  cli.add_option("--train-examples", s.train_examples,
                 "use the file's first N training examples (0: all)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--threads", s.threads, "threads of this task's pools (0: cores)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--log-every", s.log_every, "local steps between progress lines (0: none)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--step-timeout-ms", s.step_timeout_ms, "each step's deadline (0: none)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--status-port", s.status_port,
                 "serve /metrics and /status on this port (0: any; -1: none)")
      ->check(af::apps::integer_in(-1, 65535));
  cli.add_option("--seed", s.seed, "graph-level random seed")->check(af::apps::integer_in(0));
  cli.add_flag("!--no-eval", s.evaluate, "skip the chief's test accuracy at the end");
  cli.add_option("--rate-from", s.rate_from,
                 "report the steady rate from this global step on (warm-up excluded)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--hidden", s.hidden, "units of the hidden layers (784-H1-H2-...-10)")
      ->delimiter(',')
      ->check(af::apps::integer_in(1));
  cli.add_flag("--report-bytes", s.report_bytes,
               "report the bytes per step to and from the ps tasks (from --rate-from on) against "
               "the minimum");
  cli.add_option(
         "--eval-every", s.eval_every,
         "chief: test accuracy every N global steps until it reaches --target-accuracy (0: never)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--target-accuracy", s.target_accuracy, "the accuracy --eval-every looks for")
      ->check(CLI::Range(0.0, 1.0));
  cli.add_option(
      "--logdir", s.logdir,
      "chief: TensorBoard's events file (graph, loss, accuracy, global_step/sec) goes here");
  cli.add_option("--summary-every", s.summary_every,
                 "global steps between the chief's summaries in --logdir")
      ->check(af::apps::integer_in(1));
  cli.add_option("--device", s.device,
                 "worker: the device of its model, /cpu:0 or /gpu:N (ps tasks use their CPU)");
  cli.add_option(
         "--gpu-memory-fraction", s.gpu_memory_fraction,
         "worker on a GPU: the share of the GPU's memory it takes (0: TensorFlow's default)")
      ->check(CLI::Range(0.0, 1.0));
  if (auto code = app.parse(argc, argv)) return *code;
  try {
    af::apps::apply_tf_config(s.cluster, s.job, s.task);  // fills what the flags leave unset
  } catch (const std::exception& e) {
    std::cerr << "actorflow-dist-train: " << e.what() << "\n";
    return 2;
  }
  if (s.cluster.empty() || s.job.empty() || s.task < 0) {
    std::cerr << "actorflow-dist-train: --cluster, --job and --task are required, or TF_CONFIG "
                 "(see --help)\n";
    return 2;
  }
  if (s.job != "ps" && s.job != "worker") {
    std::cerr << "actorflow-dist-train: the job must be ps or worker, got '" << s.job << "'\n";
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
    options.status_port = s.status_port;
    // Only a worker given --device /gpu:N opens GPUs; ps tasks and CPU workers never reserve
    // a GPU's memory or place ops there.
    const bool gpu = on_gpu(s);
    options.config.device_count["GPU"] = gpu ? worker_device(s).device_index.value_or(0) + 1 : 0;
    if (gpu && s.gpu_memory_fraction > 0)
      options.config.gpu_options.per_process_gpu_memory_fraction = s.gpu_memory_fraction;
    af::Server server(cluster, s.job, s.task, options);
    std::thread waiter([&server, signals, who] {
      int sig = 0;
      sigwait(&signals, &sig);
      log_line(who,
               std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
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
    return af::apps::report_failure("actorflow-dist-train: " + who, e.status());
  } catch (const std::exception& e) {
    std::cerr << "actorflow-dist-train: " << who << ": " << e.what() << "\n";
    return 1;
  }
}
