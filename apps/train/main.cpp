// actorflow-train: Fashion-MNIST end to end (the chapter's exercise 7 with --restore).
//
//   actorflow-train [--model mlp|cnn] [--epochs N] [--checkpoint-dir D] [--restore] [--logdir L]
//   ...
//   (--help lists every flag)
#include <actorflow/ops/errors.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli.hpp"
#include "trainer.hpp"

int main(int argc, char** argv) {
  af::apps::TrainOptions o;
  af::apps::App app(
      "actorflow-train",
      "Trains an MLP or a small CNN on Fashion-MNIST (Debian's dataset-fashion-mnist) with Adam,\n"
      "printing a progress bar, the test accuracy and a checkpoint per epoch.");
  auto& cli = app.cli;
  cli.add_option("--model", o.model, "mlp (784-256-128-10) or cnn")
      ->check(CLI::IsMember({"mlp", "cnn"}));
  cli.add_option("--epochs", o.epochs, "epochs to train")->check(af::apps::integer_in(1));
  cli.add_option("--batch", o.batch_size, "examples per step")->check(af::apps::integer_in(1));
  cli.add_option("--lr", o.learning_rate, "Adam's learning rate")->check(af::apps::positive_real());
  cli.add_option("--checkpoint-dir", o.checkpoint_dir,
                 "where checkpoints go (<dir>/model.ckpt-<step>); none if empty");
  cli.add_flag("--restore", o.restore, "resume from the latest checkpoint in --checkpoint-dir");
  cli.add_option("--max-steps", o.max_steps,
                 "stop after this many steps in all (0: --epochs epochs)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--train-examples", o.train_examples,
                 "training examples per epoch, the file's first (0: all 60000)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--threads", o.threads,
                 "threads of the session's pools (0: one per CPU the process may run on)")
      ->check(af::apps::integer_in(0));
  cli.add_option("--data-dir", o.data_dir, "the gzip IDX files");
  cli.add_option("--device", o.device,
                 "pin the model and optimizer to this device (/gpu:0, say); the input pipeline "
                 "stays on the CPU");
  cli.add_option("--seed", o.seed, "graph-level random seed")->check(af::apps::integer_in(0));
  auto* target =
      cli.add_option("--target-accuracy", o.target_accuracy,
                     "stop once the test accuracy, checked every --eval-every steps, reaches this")
          ->check(CLI::Range(0.0, 1.0));
  cli.add_option("--eval-every", o.eval_every,
                 "steps between accuracy checks for --target-accuracy")
      ->check(af::apps::integer_in(0));
  cli.add_flag("--from-memory", o.feed_from_memory,
               "read the training split once, then feed batches shuffled each epoch from memory");
  cli.add_flag("--log-device-placement", o.log_device_placement,
               "print the device each op is placed on");
  cli.add_option(
      "--logdir", o.logdir,
      "write TensorBoard's events file here: the graph, loss, accuracy, histograms, test accuracy");
  cli.add_option("--summary-every", o.summary_every,
                 "steps between the training summaries in --logdir")
      ->check(af::apps::integer_in(1));
  bool quiet = false;
  cli.add_flag("--quiet", quiet, "no progress bar");
  if (auto code = app.parse(argc, argv)) return *code;
  o.progress = !quiet;
  if (target->count() > 0 && o.target_accuracy > 0 && o.eval_every < 1) {
    std::cerr << "actorflow-train: --target-accuracy needs --eval-every N (see --help)\n";
    return 2;
  }
  try {
    auto report = af::apps::train_fashion_mnist(o, std::cout);
    std::cout << "final: global step " << report.global_step << ", test accuracy "
              << report.test_accuracy << ", training time " << report.train_seconds << " s";
    if (report.seconds_to_target >= 0)
      std::cout << ", reached " << o.target_accuracy << " after " << report.seconds_to_target
                << " s";
    std::cout << "\n";
    return 0;
  } catch (const af::Error& e) {
    std::cerr << "actorflow-train: " << e.what() << "\n";
    return 1;
  }
}
