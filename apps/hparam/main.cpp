// actorflow-hparam: the chapter's exercises 8 and 9 on Fashion-MNIST.
//
//   actorflow-hparam --role train --target caf://HOST:PORT --device /job:worker/task:1
//       --container trial_3 --hidden1 256 --hidden2 128 --lr 0.001 --checkpoint DIR/trial_3
//     trains one DNN (784-h1-h2-10, Adam) on the first 50,000 training examples, on that
//     device of that server, its variables in their own resource container; prints the
//     validation accuracy (the last 10,000 training examples), saves a checkpoint and resets
//     the container.
//   actorflow-hparam --role ensemble --target caf://HOST:PORT
//       --models DIR/trial_3:256:128,DIR/trial_1:128:64,... --devices D1,D2,D3
//     builds one graph holding the models restored from their checkpoints, each on its own
//     device, averages their softmax outputs and prints each model's test accuracy and the
//     ensemble's.
// scripts/hparam_search.sh runs a search across a local cluster and ensembles the top three.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>

#include "cli.hpp"
#include "trainer.hpp"

namespace {

constexpr std::int64_t kPixels = 784;
constexpr std::int64_t kTrain = 50000, kValidation = 10000;

struct Settings {
  std::string role = "train";
  std::string target;
  std::string device;
  std::string container;
  std::int64_t hidden1 = 256, hidden2 = 128;
  double lr = 1e-3;
  std::int64_t steps = 1000;
  std::int64_t batch = 128;
  std::string checkpoint;
  std::string models;
  std::string devices;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::int64_t seed = 42;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// The DNN's variables, named as in its checkpoints (hidden1/kernel, ...), under the
/// current name scope.
struct Dnn {
  std::vector<af::Variable> vars;
  std::vector<std::string> names;

  Dnn(af::Graph& g, std::int64_t h1, std::int64_t h2) {
    const std::vector<std::int64_t> sizes = {kPixels, h1, h2, 10};
    const char* layers[] = {"hidden1", "hidden2", "logits"};
    for (std::size_t i = 0; i < 3; ++i) {
      for (const bool kernel : {true, false}) {
        const std::string name = std::string(layers[i]) + (kernel ? "/kernel" : "/bias");
        af::Output initial;
        {
          auto scope = g.name_scope(name + "/Initializer");
          initial = kernel ? af::initializers::glorot_uniform()(g, af::Shape{sizes[i], sizes[i + 1]}, af::DType::float32)
                           : af::initializers::zeros()(g, af::Shape{sizes[i + 1]}, af::DType::float32);
        }
        vars.push_back(g.variable(initial, {.name = name}));
        names.push_back(name);
      }
    }
  }

  af::Output logits(const af::Output& x) const {
    af::Output h = x;
    for (std::size_t i = 0; i < vars.size(); i += 2) {
      h = af::nn::bias_add(af::matmul(h, vars[i].value()), vars[i + 1].value());
      if (i + 2 < vars.size()) h = af::relu(h);
    }
    return h;
  }

  /// Checkpoint name -> variable.
  std::map<std::string, af::Variable> var_map() const {
    std::map<std::string, af::Variable> m;
    for (std::size_t i = 0; i < vars.size(); ++i) m.emplace(names[i], vars[i]);
    return m;
  }
};

af::Tensor rows(const af::Tensor& t, std::int64_t begin, std::int64_t end) { return t.slice_rows(begin, end); }

int train(const Settings& s) {
  auto [images, labels] = af::apps::load_fashion_mnist(s.data_dir, "train", kTrain + kValidation);
  const af::Tensor train_x = rows(images, 0, kTrain), train_y = rows(labels, 0, kTrain);
  const af::Tensor val_x = rows(images, kTrain, kTrain + kValidation), val_y = rows(labels, kTrain, kTrain + kValidation);
  af::Graph g;
  g.set_random_seed(s.seed);
  af::Output x, y, accuracy;
  af::Operation train_op;
  std::unique_ptr<Dnn> dnn;
  std::unique_ptr<af::train::AdamOptimizer> adam;
  {
    auto container = g.container(s.container);
    af::ScopeGuard on = s.device.empty() ? af::ScopeGuard() : g.device(s.device);
    x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
    y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
    dnn = std::make_unique<Dnn>(g, s.hidden1, s.hidden2);
    const af::Output logits = dnn->logits(x);
    adam = std::make_unique<af::train::AdamOptimizer>(s.lr);
    train_op = adam->minimize(af::losses::sparse_softmax_cross_entropy(y, logits), std::nullopt, dnn->vars);
    accuracy = af::metrics::batch_accuracy(y, af::argmax(logits, 1, af::DType::int32));
  }
  af::train::Saver saver(dnn->var_map());
  {
    af::Session sess(g, s.target);
    sess.run(g.global_variables_initializer());
    std::mt19937_64 rng(static_cast<std::uint64_t>(s.seed));
    std::vector<std::int64_t> order(static_cast<std::size_t>(kTrain));
    std::iota(order.begin(), order.end(), 0);
    std::size_t cursor = order.size();
    af::Tensor bx(af::DType::float32, af::Shape{s.batch, kPixels});
    af::Tensor by(af::DType::int32, af::Shape{s.batch});
    for (std::int64_t step = 0; step < s.steps; ++step) {
      for (std::int64_t r = 0; r < s.batch; ++r) {
        if (cursor == order.size()) {
          std::shuffle(order.begin(), order.end(), rng);
          cursor = 0;
        }
        const std::int64_t i = order[cursor++];
        std::copy_n(train_x.data<float>() + i * kPixels, kPixels, bx.data<float>() + r * kPixels);
        by.data<std::int32_t>()[r] = train_y.data<std::int32_t>()[i];
      }
      sess.run(train_op, {{x, bx}, {y, by}});
    }
    const float acc = sess.run(accuracy, {{x, val_x}, {y, val_y}}).scalar<float>();
    std::string path;
    if (!s.checkpoint.empty()) path = saver.save(sess, s.checkpoint, std::nullopt, "checkpoint", /*write_state=*/false);
    std::cout << std::fixed << std::setprecision(4) << "VALIDATION " << acc << " " << path << " hidden " << s.hidden1
              << ":" << s.hidden2 << " lr " << s.lr << " on " << (s.device.empty() ? "default" : s.device)
              << " container " << s.container << "\n";
  }
  // As the chapter: free the trial's variables on the server.
  if (!s.target.empty()) af::Session::reset(s.target, {s.container});
  return 0;
}

int ensemble(const Settings& s) {
  auto [test_x, test_y] = af::apps::load_fashion_mnist(s.data_dir, "t10k", 10000);
  const auto models = split(s.models, ',');
  const auto devices = split(s.devices, ',');
  if (models.empty()) throw af::InvalidArgumentError(af::invalid_argument("--models is empty"));
  af::Graph g;
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
  af::Output y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
  std::vector<std::unique_ptr<Dnn>> dnns;
  std::vector<std::unique_ptr<af::train::Saver>> savers;
  std::vector<std::string> paths;
  std::vector<af::Output> probabilities, accuracies;
  for (std::size_t k = 0; k < models.size(); ++k) {
    const auto parts = split(models[k], ':');
    if (parts.size() != 3)
      throw af::InvalidArgumentError(af::invalid_argument("--models: expected PATH:H1:H2, got '" + models[k] + "'"));
    af::ScopeGuard on = devices.empty() ? af::ScopeGuard() : g.device(devices[k % devices.size()]);
    auto scope = g.name_scope("model_" + std::to_string(k));
    dnns.push_back(std::make_unique<Dnn>(g, std::stoll(parts[1]), std::stoll(parts[2])));
    const af::Output logits = dnns.back()->logits(x);
    probabilities.push_back(af::softmax(logits));
    accuracies.push_back(af::metrics::batch_accuracy(y, af::argmax(logits, 1, af::DType::int32)));
    savers.push_back(std::make_unique<af::train::Saver>(
        dnns.back()->var_map(), af::train::SaverOptions{.name = "save_" + std::to_string(k)}));
    paths.push_back(parts[0]);
  }
  const af::Output mean = af::div(af::add_n(probabilities), g.constant(af::Tensor(static_cast<float>(models.size()))));
  accuracies.push_back(af::metrics::batch_accuracy(y, af::argmax(mean, 1, af::DType::int32)));
  af::Session sess(g, s.target);
  for (std::size_t k = 0; k < savers.size(); ++k) savers[k]->restore(sess, paths[k]);
  const auto values = sess.run(accuracies, {{x, test_x}, {y, test_y}});
  for (std::size_t k = 0; k < models.size(); ++k)
    std::cout << std::fixed << std::setprecision(4) << "TEST model " << k << " (" << models[k] << "): "
              << values[k].scalar<float>() << "\n";
  std::cout << std::fixed << std::setprecision(4) << "TEST ensemble of " << models.size() << ": "
            << values.back().scalar<float>() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  af::apps::App app("actorflow-hparam",
                    "Exercise 8: trains one DNN on Fashion-MNIST on a given server, device and resource container\n"
                    "and prints its validation accuracy (--role train). Exercise 9: ensembles models restored from\n"
                    "their checkpoints, one per device (--role ensemble).");
  auto& cli = app.cli;
  cli.add_option("--role", s.role, "train or ensemble")->check(CLI::IsMember({"train", "ensemble"}));
  cli.add_option("--target", s.target, "the server (caf://HOST:PORT; empty: in process)");
  cli.add_option("--device", s.device, "train: where the model goes (e.g. /job:worker/task:1)");
  cli.add_option("--container", s.container, "train: the resource container of the trial's variables");
  cli.add_option("--hidden1", s.hidden1, "units of the first hidden layer")->check(af::apps::integer_in(1));
  cli.add_option("--hidden2", s.hidden2, "units of the second hidden layer")->check(af::apps::integer_in(1));
  cli.add_option("--lr", s.lr, "Adam's learning rate")->check(af::apps::positive_real());
  cli.add_option("--steps", s.steps, "training steps")->check(af::apps::integer_in(1));
  cli.add_option("--batch", s.batch, "examples per step")->check(af::apps::integer_in(1));
  cli.add_option("--checkpoint", s.checkpoint, "train: the checkpoint prefix to save to");
  cli.add_option("--models", s.models, "ensemble: PATH:H1:H2,... of the models");
  cli.add_option("--devices", s.devices, "ensemble: one device per model (cycled)");
  cli.add_option("--data-dir", s.data_dir, "the gzip IDX files");
  cli.add_option("--seed", s.seed, "graph-level random seed")->check(af::apps::integer_in(0));
  if (auto code = app.parse(argc, argv)) return *code;
  try {
    return s.role == "train" ? train(s) : ensemble(s);
  } catch (const af::Error& e) {
    std::cerr << "actorflow-hparam: " << e.what() << "\n";
    return 1;
  }
}
