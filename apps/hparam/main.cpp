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
#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

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

/// The DNN's variables 784-h1-h2-10 (af::apps::mlp_variables) under the current name scope.
std::vector<af::Variable> dnn_variables(af::Graph& g, std::int64_t h1, std::int64_t h2) {
  return af::apps::mlp_variables(g, {kPixels, h1, h2, 10});
}

/// The names a trial's checkpoint holds ("hidden1/kernel": the variable's name without the
/// name scope of its model) -> the variables.
std::map<std::string, af::Variable> checkpoint_names(const std::vector<af::Variable>& vars) {
  std::map<std::string, af::Variable> m;
  for (const auto& v : vars) {
    const std::string& name = v.name();
    const auto kind = name.rfind('/');
    const auto layer =
        kind == std::string::npos || kind == 0 ? std::string::npos : name.rfind('/', kind - 1);
    m.emplace(layer == std::string::npos ? name : name.substr(layer + 1), v);
  }
  return m;
}

int train(const Settings& s) {
  auto [images, labels] = af::apps::load_fashion_mnist(s.data_dir, "train", kTrain + kValidation);
  const af::Tensor train_x = images.slice_rows(0, kTrain), train_y = labels.slice_rows(0, kTrain);
  const af::Tensor val_x = images.slice_rows(kTrain, kTrain + kValidation);
  const af::Tensor val_y = labels.slice_rows(kTrain, kTrain + kValidation);
  af::Graph g;
  g.set_random_seed(s.seed);
  af::Output x, y, accuracy;
  af::Operation train_op;
  std::vector<af::Variable> vars;
  std::unique_ptr<af::train::AdamOptimizer> adam;
  {
    auto container = g.container(s.container);
    af::ScopeGuard on = s.device.empty() ? af::ScopeGuard() : g.device(s.device);
    x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
    y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
    vars = dnn_variables(g, s.hidden1, s.hidden2);
    const af::Output logits = af::apps::mlp_logits(x, vars);
    adam = std::make_unique<af::train::AdamOptimizer>(s.lr);
    train_op =
        adam->minimize(af::losses::sparse_softmax_cross_entropy(y, logits), std::nullopt, vars);
    accuracy = af::metrics::batch_accuracy(y, af::argmax(logits, 1, af::DType::int32));
  }
  af::train::Saver saver(checkpoint_names(vars));
  {
    af::Session sess(g, s.target);
    sess.run(g.global_variables_initializer());
    af::apps::ShuffledBatches batches(train_x, train_y, s.batch,
                                      static_cast<std::uint64_t>(s.seed));
    for (std::int64_t step = 0; step < s.steps; ++step) {
      auto [bx, by] = batches.next();
      sess.run(train_op, {{x, bx}, {y, by}});
    }
    const float acc = sess.run(accuracy, {{x, val_x}, {y, val_y}}).scalar<float>();
    std::string path;
    if (!s.checkpoint.empty())
      path = saver.save(sess, s.checkpoint, std::nullopt, "checkpoint", /*write_state=*/false);
    std::cout << std::fixed << std::setprecision(4) << "VALIDATION " << acc << " " << path
              << " hidden " << s.hidden1 << ":" << s.hidden2 << " lr " << s.lr << " on "
              << (s.device.empty() ? "default" : s.device) << " container " << s.container << "\n";
  }
  // As the chapter: free the trial's variables on the server.
  if (!s.target.empty()) af::Session::reset(s.target, {s.container});
  return 0;
}

int ensemble(const Settings& s) {
  auto [test_x, test_y] = af::apps::load_fashion_mnist(s.data_dir, "t10k", 10000);
  const auto models = af::apps::split_list(s.models);
  const auto devices = af::apps::split_list(s.devices);
  if (models.empty()) throw af::InvalidArgumentError(af::invalid_argument("--models is empty"));
  af::Graph g;
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1, kPixels}, "x");
  af::Output y = g.placeholder(af::DType::int32, af::PartialShape{-1}, "y");
  std::vector<std::unique_ptr<af::train::Saver>> savers;
  std::vector<std::string> paths;
  std::vector<af::Output> probabilities, accuracies;
  for (std::size_t k = 0; k < models.size(); ++k) {
    const auto parts = af::apps::split_list(models[k], ':');
    if (parts.size() != 3)
      throw af::InvalidArgumentError(
          af::invalid_argument("--models: expected PATH:H1:H2, got '" + models[k] + "'"));
    af::ScopeGuard on = devices.empty() ? af::ScopeGuard() : g.device(devices[k % devices.size()]);
    auto scope = g.name_scope("model_" + std::to_string(k));
    const auto model = dnn_variables(g, std::stoll(parts[1]), std::stoll(parts[2]));
    const af::Output logits = af::apps::mlp_logits(x, model);
    probabilities.push_back(af::softmax(logits));
    accuracies.push_back(af::metrics::batch_accuracy(y, af::argmax(logits, 1, af::DType::int32)));
    savers.push_back(std::make_unique<af::train::Saver>(
        checkpoint_names(model), af::train::SaverOptions{.name = "save_" + std::to_string(k)}));
    paths.push_back(parts[0]);
  }
  const af::Output mean =
      af::div(af::add_n(probabilities), g.constant(af::Tensor(static_cast<float>(models.size()))));
  accuracies.push_back(af::metrics::batch_accuracy(y, af::argmax(mean, 1, af::DType::int32)));
  af::Session sess(g, s.target);
  for (std::size_t k = 0; k < savers.size(); ++k) savers[k]->restore(sess, paths[k]);
  const auto values = sess.run(accuracies, {{x, test_x}, {y, test_y}});
  for (std::size_t k = 0; k < models.size(); ++k)
    std::cout << std::fixed << std::setprecision(4) << "TEST model " << k << " (" << models[k]
              << "): " << values[k].scalar<float>() << "\n";
  std::cout << std::fixed << std::setprecision(4) << "TEST ensemble of " << models.size() << ": "
            << values.back().scalar<float>() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  af::apps::App app("actorflow-hparam",
                    "Exercise 8: trains one DNN on Fashion-MNIST on a given server, device and "
                    "resource container\n"
                    "and prints its validation accuracy (--role train). Exercise 9: ensembles "
                    "models restored from\n"
                    "their checkpoints, one per device (--role ensemble).");
  auto& cli = app.cli;
  cli.add_option("--role", s.role, "train or ensemble")
      ->check(CLI::IsMember({"train", "ensemble"}));
  cli.add_option("--target", s.target, "the server (caf://HOST:PORT; empty: in process)");
  cli.add_option("--device", s.device, "train: where the model goes (e.g. /job:worker/task:1)");
  cli.add_option("--container", s.container,
                 "train: the resource container of the trial's variables");
  cli.add_option("--hidden1", s.hidden1, "units of the first hidden layer")
      ->check(af::apps::integer_in(1));
  cli.add_option("--hidden2", s.hidden2, "units of the second hidden layer")
      ->check(af::apps::integer_in(1));
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
