#pragma once

// Fashion-MNIST training: reader actors over the gzip IDX files -> shuffle_batch -> an MLP or
// a small CNN -> Adam, with test accuracy and a checkpoint after each epoch.
#include <actorflow/ops/graph.hpp>
#include <actorflow/ops/tensor.hpp>
#include <actorflow/train/layers.hpp>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace af::apps {

struct TrainOptions {
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string model = "mlp";  ///< "mlp" (784-256-128-10) or "cnn"
  int epochs = 5;
  std::int64_t batch_size = 128;
  double learning_rate = 1e-3;
  /// Where checkpoints go (`<dir>/model.ckpt-<step>`); empty: none.
  std::string checkpoint_dir;
  /// Resume from the latest checkpoint in `checkpoint_dir`.
  bool restore = false;
  /// Stop after this many steps in total (0: `epochs` epochs).
  std::int64_t max_steps = 0;
  /// Training examples used per epoch (0: all 60000); the first ones of the file.
  std::int64_t train_examples = 0;
  /// Threads of the session's pools (0: one per CPU this process may run on).
  int threads = 0;
  std::int64_t seed = 42;
  /// Print a progress bar per epoch.
  bool progress = true;
  /// Stop as soon as the test accuracy, checked every `eval_every` steps, reaches this
  /// (0: never); the time to it is reported.
  double target_accuracy = 0.0;
  std::int64_t eval_every = 0;
  /// Read the training split once with the reader actors and feed batches shuffled each
  /// epoch from memory (what the peers' scripts do), instead of the queue pipeline.
  bool feed_from_memory = false;
  /// The device the model, its loss and its optimizer are pinned to ("/gpu:0", say); the
  /// input pipeline stays on the CPU. Ops without a kernel there fall back to the CPU (soft
  /// placement). Empty: the placer's default.
  std::string device;
  /// Where TensorBoard's events file goes (the graph, the training loss and batch accuracy
  /// and the weights' histograms every `summary_every` steps, the test accuracy and
  /// examples/s per epoch); empty: none.
  std::string logdir;
  /// Steps between training summaries in `logdir`.
  std::int64_t summary_every = 100;
  /// Print where each op runs (`log_device_placement`).
  bool log_device_placement = false;
};

struct EpochReport {
  int epoch = 0;
  std::int64_t global_step = 0;
  double mean_loss = 0;
  double test_accuracy = 0;
  double examples_per_second = 0;
  std::string checkpoint;
};

struct TrainReport {
  std::vector<EpochReport> epochs;
  std::int64_t first_step = 0;  ///< the global step training started from (after a restore)
  std::int64_t global_step = 0;
  double test_accuracy = 0;
  double train_seconds = 0;       ///< wall time in training steps (evaluation excluded)
  double seconds_to_target = -1;  ///< training time until `target_accuracy` was reached
  std::string restored_from;
};

/// The split "train" or "t10k" of the gzip IDX files in `dir`, read once by reader actors:
/// images float32 [count, 784] in [0, 1] and labels int32 [count]. Throws NotFoundError naming
/// a missing file, DataLossError for a short one.
std::pair<Tensor, Tensor> load_fashion_mnist(const std::string& dir, const char* split,
                                             std::int64_t count);

/// Batches of `rows` examples of `images` (float32 [n, 784]) and `labels` (int32 [n]), in a
/// fresh random order each pass over them; each batch is a new pair of tensors. The data
/// must outlive this object.
class ShuffledBatches {
 public:
  ShuffledBatches(const Tensor& images, const Tensor& labels, std::int64_t rows,
                  std::uint64_t seed);
  /// The next batch: images [rows, 784], labels [rows].
  std::pair<Tensor, Tensor> next();

 private:
  const Tensor& images_;
  const Tensor& labels_;
  std::int64_t rows_;
  std::mt19937_64 rng_;
  std::vector<std::int64_t> order_;
  std::size_t cursor_;
};

/// A float32 variable `name` (under the current name scope) initialised by `init`, its
/// initial value built under `<name>/Initializer` and colocated with it, as TensorFlow's
/// get_variable does.
Variable initialized_variable(Graph& g, const std::string& name, const Shape& shape,
                              const initializers::Initializer& init);

/// The variables of an MLP with layer sizes `sizes` (784, hidden..., 10): kernel then bias
/// per layer, named hidden1/kernel, hidden1/bias, ..., logits/kernel, logits/bias,
/// glorot-uniform kernels and zero biases.
std::vector<Variable> mlp_variables(Graph& g, const std::vector<std::int64_t>& sizes);

/// The MLP's logits for `x`: bias_add(matmul) per layer, ReLU between them. `read` gives the
/// tensor used for a variable (default: its value).
Output mlp_logits(const Output& x, const std::vector<Variable>& vars,
                  const std::function<Output(const Variable&)>& read = {});

/// Trains as `options` say, printing progress to `log`. Throws af::Error subclasses for
/// missing or corrupt data files (naming the file) and checkpoint errors.
TrainReport train_fashion_mnist(const TrainOptions& options, std::ostream& log);

}  // namespace af::apps
