// actorflow-in-graph: the chapter's in-graph replication. One graph holds a replica (tower) of
// the MLP 784-256-128-10 per device, sharing one set of variables on the first device, and
// trains on Fashion-MNIST fed from memory. The devices are CPU devices of this process
// (/cpu:0 .. /cpu:N-1, SessionConfig::device_count) or, with --target and --devices, any
// devices of a cluster's tasks, the session's master being the server at --target:
//
//   actorflow-in-graph --mode sync  [--replicas N]   # each tower takes 1/N of the batch;
//                                                    # average_gradients, one Adam update
//   actorflow-in-graph --mode async [--replicas N]   # one Adam per tower and one loop
//                                                    # (thread) each, updates unsynchronised
//   actorflow-in-graph --mode split [--replicas N]   # model parallelism (exercise 10): each
//                                                    # hidden layer split by units over N
//                                                    # devices; N = 1 is the unsplit model
//   actorflow-in-graph --mode split --target caf://127.0.0.1:2222
//       --devices /job:worker/task:0/device:CPU:0,/job:worker/task:1/device:CPU:0
//                                                    # the same across two tasks, with
//                                                    # task 0's server as the master
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "trainer.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kPixels = 784;

struct Settings {
  std::string mode = "sync";
  int replicas = 2;
  std::int64_t steps = 500;
  std::int64_t batch = 128;
  double lr = 1e-3;
  /// The session's master (caf://HOST:PORT); empty: in process.
  std::string target;
  /// --devices as given: D0,D1,... (empty: /cpu:0 .. /cpu:N-1, N = replicas).
  std::string device_list;
  /// One device per tower or slice, from `device_list`; the first holds the variables.
  std::vector<std::string> devices;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::int64_t train_examples = 0;
  std::int64_t seed = 42;
  /// TensorBoard's events file: the graph, each tower's loss every `summary_every` steps,
  /// the test accuracy at the end (sync and async modes); empty: none.
  std::string logdir;
  std::int64_t summary_every = 50;
};

/// The session's configuration. In process: enough CPU devices for the highest CPU index
/// `s.devices` names (N for the default /cpu:0 .. /cpu:N-1). A server's session runs on the
/// cluster's devices, which its tasks created, so it sets nothing. Throws
/// InvalidArgumentError for a malformed device name.
af::SessionConfig session_config(const Settings& s) {
  af::SessionConfig config;
  if (!s.target.empty()) return config;
  int cpus = 1;
  for (const auto& name : s.devices) {
    const auto spec = af::DeviceSpec::parse(name);
    if (spec.device_type == "CPU" && spec.device_index)
      cpus = std::max(cpus, *spec.device_index + 1);
  }
  config.device_count["CPU"] = cpus;
  return config;
}

/// The MLP split vertically (model parallelism): each hidden layer's units in one slice per
/// device, slice k (its kernel columns and bias) on `devices[k]`, computed there from the
/// whole previous layer; the slices are concatenated on `devices[0]`, where the logits layer
/// lives.
struct SplitMlp {
  std::vector<std::vector<af::Variable>> layers;  // per layer: kernel, bias per part
  std::vector<std::string> devices;

  SplitMlp(af::Graph& g, std::vector<std::string> on_devices) : devices(std::move(on_devices)) {
    const std::vector<std::int64_t> sizes = {kPixels, 256, 128, 10};
    const int parts = static_cast<int>(devices.size());
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
      const bool last = i + 2 == sizes.size();
      const int n = last ? 1 : parts;
      std::vector<af::Variable> layer;
      for (int k = 0; k < n; ++k) {
        auto on = g.device(devices[static_cast<std::size_t>(k)]);
        const std::string base = (last ? std::string("logits") : "hidden" + std::to_string(i + 1)) +
                                 (n > 1 ? "_part" + std::to_string(k) : "");
        const std::int64_t units = sizes[i + 1] / n + (k < sizes[i + 1] % n ? 1 : 0);
        layer.push_back(af::apps::initialized_variable(
            g, base + "/kernel", af::Shape{sizes[i], units}, af::initializers::glorot_uniform()));
        layer.push_back(af::apps::initialized_variable(g, base + "/bias", af::Shape{units},
                                                       af::initializers::zeros()));
      }
      layers.push_back(layer);
    }
  }

  /// Every variable, layer by layer.
  std::vector<af::Variable> variables() const {
    std::vector<af::Variable> all;
    for (const auto& layer : layers) all.insert(all.end(), layer.begin(), layer.end());
    return all;
  }

  af::Output logits(af::Graph& g, const af::Output& x) const {
    af::Output h = x;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const auto& layer = layers[i];
      std::vector<af::Output> slices;
      for (std::size_t k = 0; k < layer.size(); k += 2) {
        auto on = g.device(devices[k / 2]);
        af::Output out = af::nn::bias_add(af::matmul(h, layer[k].value()), layer[k + 1].value());
        slices.push_back(i + 1 < layers.size() ? af::relu(out) : out);
      }
      auto on0 = g.device(devices[0]);
      h = slices.size() == 1 ? slices[0] : af::concat(slices, 1);
    }
    return h;
  }
};

/// Model parallelism: trains the split MLP and prints the median step time.
int run_split(const Settings& s, const af::Tensor& train_x, const af::Tensor& train_y,
              const af::Tensor& test_x, const af::Tensor& test_y) {
  af::Graph g;
  g.set_random_seed(s.seed);
  af::Variable global_step;
  {
    auto on_first = g.device(s.devices[0]);
    global_step = af::train::get_or_create_global_step(g);
  }
  SplitMlp mlp(g, s.devices);
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
  af::Output y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
  af::Output logits = mlp.logits(g, x);
  af::Operation train;
  {
    auto on_first = g.device(s.devices[0]);
    af::train::AdamOptimizer adam(s.lr);
    // Each variable's gradient and update run on its own device.
    train = adam.minimize(af::losses::sparse_softmax_cross_entropy(y, logits), global_step,
                          mlp.variables(), {.colocate_gradients_with_ops = true});
  }
  af::Output accuracy = af::metrics::batch_accuracy(y, af::argmax(logits, 1, af::DType::int32));
  af::Session sess(g, s.target, session_config(s));
  sess.run(g.global_variables_initializer());
  af::apps::ShuffledBatches feeder(train_x, train_y, s.batch, static_cast<std::uint64_t>(s.seed));
  std::vector<double> step_ms;
  const auto start = Clock::now();
  for (std::int64_t step = 0; step < s.steps; ++step) {
    auto [bx, by] = feeder.next();
    const auto t = Clock::now();
    sess.run(train, {{x, bx}, {y, by}});
    step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::nth_element(step_ms.begin(),
                   step_ms.begin() + static_cast<std::ptrdiff_t>(step_ms.size() / 2),
                   step_ms.end());
  const float acc = sess.run(accuracy, {{x, test_x}, {y, test_y}}).scalar<float>();
  std::cout << std::fixed << "split over " << s.replicas << " device"
            << (s.replicas == 1 ? "" : "s") << ": " << s.steps << " steps in "
            << std::setprecision(2) << secs << " s, median step " << std::setprecision(3)
            << step_ms[step_ms.size() / 2] << " ms, test accuracy " << std::setprecision(4) << acc
            << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  af::apps::App app(
      "actorflow-in-graph",
      "In-graph replication: one MLP tower per device in one graph, trained on Fashion-MNIST\n"
      "synchronously (averaged gradients) or asynchronously (an optimizer and a loop per tower),\n"
      "or the MLP's hidden layers split over the devices (--mode split). The devices are CPU\n"
      "devices of this process, or with --target and --devices those of a cluster's tasks.");
  auto& cli = app.cli;
  cli.add_option("--mode", s.mode, "sync, async (data parallelism) or split (model parallelism)")
      ->check(CLI::IsMember({"sync", "async", "split"}));
  cli.add_option("--replicas", s.replicas,
                 "towers (sync, async) or slices of each layer (split), one per CPU device\n"
                 "/cpu:0 .. /cpu:N-1 (with --devices: one per device listed)")
      ->check(af::apps::integer_in(1, 64));
  cli.add_option("--target", s.target,
                 "the session's master (caf://HOST:PORT of a task; empty: in process)");
  cli.add_option(
         "--devices", s.device_list,
         "D0,D1,...: the towers' or slices' devices instead of /cpu:k, the variables on D0\n"
         "(e.g. /job:worker/task:0/device:CPU:0,/job:worker/task:1/device:CPU:0)")
      ->type_name("LIST");
  cli.add_option("--steps", s.steps, "sync: updates; async: updates per tower")
      ->check(af::apps::integer_in(1));
  cli.add_option("--batch", s.batch, "examples per update (sync: split between the towers)")
      ->check(af::apps::integer_in(1));
  cli.add_option("--lr", s.lr, "Adam's learning rate")->check(af::apps::positive_real());
  cli.add_option("--data-dir", s.data_dir, "the gzip IDX files");
  cli.add_option(
      "--logdir", s.logdir,
      "sync/async: TensorBoard's events file (the graph, each tower's loss, the test accuracy)");
  cli.add_option("--summary-every", s.summary_every,
                 "steps between the towers' loss summaries in --logdir")
      ->check(af::apps::integer_in(1));
  cli.add_option("--train-examples", s.train_examples,
                 "use the file's first N training examples (0: all)")
      ->check(af::apps::integer_in(0));
  if (auto code = app.parse(argc, argv)) return *code;
  s.devices = af::apps::split_list(s.device_list);
  if (s.devices.empty())
    for (int k = 0; k < s.replicas; ++k) s.devices.push_back("/cpu:" + std::to_string(k));
  else
    s.replicas = static_cast<int>(s.devices.size());
  try {
    const std::int64_t n =
        s.train_examples > 0 ? std::min<std::int64_t>(s.train_examples, 60000) : 60000;
    auto [train_x, train_y] = af::apps::load_fashion_mnist(s.data_dir, "train", n);
    auto [test_x, test_y] = af::apps::load_fashion_mnist(s.data_dir, "t10k", 10000);

    if (s.mode == "split") {
      if (!s.logdir.empty())
        throw af::InvalidArgumentError(af::invalid_argument("--logdir: sync and async modes only"));
      return run_split(s, train_x, train_y, test_x, test_y);
    }
    af::Graph g;
    g.set_random_seed(s.seed);
    af::Variable global_step;
    std::vector<af::Variable> vars;
    {
      auto on_first = g.device(s.devices[0]);
      global_step = af::train::get_or_create_global_step(g);
      vars = af::apps::mlp_variables(g, {kPixels, 256, 128, 10});
    }
    const std::int64_t rows =
        s.mode == "sync" ? std::max<std::int64_t>(1, s.batch / s.replicas) : s.batch;
    std::vector<af::Output> xs, ys;
    std::vector<std::vector<af::train::GradAndVar>> tower_grads;
    std::vector<std::unique_ptr<af::train::AdamOptimizer>> optimizers;
    std::vector<af::Operation> train_ops;
    std::vector<af::Output> tower_summaries;
    for (int k = 0; k < s.replicas; ++k) {
      auto on = g.device(s.devices[static_cast<std::size_t>(k)]);
      auto tower = g.name_scope("tower_" + std::to_string(k));
      xs.push_back(g.placeholder(af::DType::float32, af::PartialShape{rows, kPixels}, "x"));
      ys.push_back(g.placeholder(af::DType::int32, af::PartialShape{rows}, "y"));
      const af::Output loss = af::losses::sparse_softmax_cross_entropy(
          ys.back(), af::apps::mlp_logits(xs.back(), vars));
      if (!s.logdir.empty())
        tower_summaries.push_back(af::summary::scalar("loss", loss));  // tag tower_k/loss
      if (s.mode == "sync") {
        if (optimizers.empty())
          optimizers.push_back(std::make_unique<af::train::AdamOptimizer>(s.lr));
        tower_grads.push_back(optimizers[0]->compute_gradients(loss, vars));
      } else {
        optimizers.push_back(std::make_unique<af::train::AdamOptimizer>(
            s.lr, af::train::AdamOptions{.name = "Adam_" + std::to_string(k)}));
        train_ops.push_back(optimizers.back()->minimize(loss, global_step, vars));
      }
    }
    if (s.mode == "sync") {
      auto on_first = g.device(s.devices[0]);
      train_ops.push_back(
          optimizers[0]->apply_gradients(af::train::average_gradients(tower_grads), global_step));
    }
    af::Output test_x_in =
        g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "test_x");
    af::Output test_y_in = g.placeholder(af::DType::int32, af::PartialShape{-1}, "test_y");
    af::Output accuracy = af::metrics::batch_accuracy(
        test_y_in, af::argmax(af::apps::mlp_logits(test_x_in, vars), 1, af::DType::int32));

    // TensorBoard: the graph now, the towers' losses while training (a lock around the
    // writer: async towers write from their own threads).
    std::unique_ptr<af::summary::FileWriter> writer;
    std::mutex writer_mu;
    af::Output all_summaries;
    if (!s.logdir.empty()) {
      // With the towers' losses: the learning rate and the weights' histograms (in async mode
      // tower 0 writes them).
      std::vector<af::Output> extras{af::summary::scalar(
          "learning_rate",
          g.constant(af::Tensor(static_cast<float>(s.lr)), "learning_rate_value"))};
      for (const auto& v : vars)
        extras.push_back(af::summary::histogram(v.op().name() + "/values", v.value()));
      std::vector<af::Output> everything = tower_summaries;
      everything.insert(everything.end(), extras.begin(), extras.end());
      all_summaries = af::summary::merge(everything);
      extras.insert(extras.begin(), tower_summaries[0]);
      tower_summaries[0] = af::summary::merge(extras);
      writer = std::make_unique<af::summary::FileWriter>(s.logdir);
      writer->add_graph(af::serialize_graph_def(af::export_graph_def(g, true)));
    }
    // The global step fetched with the update is read before it (as SummarySaverHook's stale
    // step): the summary belongs to the step after it.
    // With each write, the examples/s since the last one: a global step is one tower's batch
    // (async) or every tower's (sync).
    const double examples_per_global_step =
        static_cast<double>(rows) * (s.mode == "sync" ? s.replicas : 1);
    auto last_write = Clock::now();
    std::int64_t last_global = 0;
    auto write = [&](const af::Tensor& summary, const af::Tensor& stale_step) {
      std::lock_guard<std::mutex> lock(writer_mu);
      const std::int64_t step = stale_step.scalar<std::int64_t>() + 1;
      writer->add_summary(summary.scalar<std::string>(), step);
      const auto now = Clock::now();
      const double secs = std::chrono::duration<double>(now - last_write).count();
      if (step > last_global && secs > 0)
        writer->add_summary(
            af::summary::scalar("examples_per_sec",
                                static_cast<float>(static_cast<double>(step - last_global) *
                                                   examples_per_global_step / secs)),
            step);
      last_write = now;
      last_global = step;
    };
    af::Session sess(g, s.target, session_config(s));
    sess.run(g.global_variables_initializer());
    const auto start = Clock::now();
    last_write = start;
    if (s.mode == "sync") {
      std::vector<af::apps::ShuffledBatches> feeders;
      for (int k = 0; k < s.replicas; ++k)
        feeders.emplace_back(train_x, train_y, rows, static_cast<std::uint64_t>(s.seed + k));
      for (std::int64_t step = 0; step < s.steps; ++step) {
        af::FeedDict feeds;
        for (int k = 0; k < s.replicas; ++k) {
          auto [bx, by] = feeders[static_cast<std::size_t>(k)].next();
          feeds.emplace_back(xs[static_cast<std::size_t>(k)], bx);
          feeds.emplace_back(ys[static_cast<std::size_t>(k)], by);
        }
        if (writer && (step + 1) % s.summary_every == 0) {
          auto out = sess.run({all_summaries, global_step.value()}, feeds, {train_ops[0]});
          write(out[0], out[1]);
        } else {
          sess.run(train_ops[0], feeds);
        }
      }
    } else {
      std::vector<std::thread> loops;
      for (int k = 0; k < s.replicas; ++k)
        loops.emplace_back([&, k] {
          af::apps::ShuffledBatches feeder(train_x, train_y, rows,
                                           static_cast<std::uint64_t>(s.seed + k));
          for (std::int64_t step = 0; step < s.steps; ++step) {
            auto [bx, by] = feeder.next();
            const af::FeedDict feeds = {{xs[static_cast<std::size_t>(k)], bx},
                                        {ys[static_cast<std::size_t>(k)], by}};
            if (writer && (step + 1) % s.summary_every == 0) {
              auto out =
                  sess.run({tower_summaries[static_cast<std::size_t>(k)], global_step.value()},
                           feeds, {train_ops[static_cast<std::size_t>(k)]});
              write(out[0], out[1]);
            } else {
              sess.run(train_ops[static_cast<std::size_t>(k)], feeds);
            }
          }
        });
      for (auto& t : loops) t.join();
    }
    const double secs = std::chrono::duration<double>(Clock::now() - start).count();
    const auto global = sess.run(global_step.value()).scalar<std::int64_t>();
    const float acc =
        sess.run(accuracy, {{test_x_in, test_x}, {test_y_in, test_y}}).scalar<float>();
    if (writer) {
      writer->add_summary(af::summary::scalar("test_accuracy", acc), global);
      writer->close();
    }
    std::cout << std::fixed << std::setprecision(1) << s.mode << ", " << s.replicas
              << " towers: global step " << global << " in " << std::setprecision(2) << secs
              << " s (" << std::setprecision(1) << static_cast<double>(global) / secs
              << " updates/s), test accuracy " << std::setprecision(4) << acc << "\n";
    return 0;
  } catch (const af::Error& e) {
    return af::apps::report_failure("actorflow-in-graph", e.status());
  }
}
