#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Initializers (`tf.initializers` / `tf.*_initializer`): each builds a variable's initial
/// value inside the variable's `<name>/Initializer/` scope. Random ones take their seeds as
/// TensorFlow's ops do (`Graph::get_seed`).
namespace af::initializers {

/// Builds the initial value of a variable of `shape` and `dtype`.
using Initializer = std::function<Output(Graph& g, const Shape& shape, DType dtype)>;

/// Zeros ("zeros").
Initializer zeros();
/// Ones ("ones").
Initializer ones();
/// A constant value ("Const").
Initializer constant(double value);
/// `tf.random_uniform_initializer(minval, maxval, seed)` ("random_uniform").
Initializer random_uniform(double minval = -0.05, double maxval = 0.05,
                           std::optional<std::int64_t> seed = {});
/// `tf.truncated_normal_initializer(mean, stddev, seed)` ("truncated_normal").
Initializer truncated_normal(double mean = 0.0, double stddev = 1.0,
                             std::optional<std::int64_t> seed = {});
/// `tf.variance_scaling_initializer(scale, mode, distribution, seed)`: `mode` is "fan_in",
/// "fan_out" or "fan_avg"; `distribution` "truncated_normal" (stddev sqrt(scale / n) /
/// .87962566103423978), "untruncated_normal" or "uniform" (limit sqrt(3 scale / n)). Fans of
/// a conv kernel count the receptive field. Throws InvalidArgumentError for another mode,
/// distribution or a scale <= 0.
Initializer variance_scaling(double scale = 1.0, std::string mode = "fan_in",
                             std::string distribution = "truncated_normal",
                             std::optional<std::int64_t> seed = {});
/// `tf.glorot_uniform_initializer`: variance_scaling(1, "fan_avg", "uniform"); the default
/// kernel initializer of the layers below.
Initializer glorot_uniform(std::optional<std::int64_t> seed = {});
/// `tf.glorot_normal_initializer`: variance_scaling(1, "fan_avg", "truncated_normal").
Initializer glorot_normal(std::optional<std::int64_t> seed = {});

}  // namespace af::initializers

/// Layers (`tf.layers`, TensorFlow 1.x's functional interface): each call creates its
/// variables (`<layer>/kernel`, `<layer>/bias`, trainable, in GLOBAL_VARIABLES) and its ops
/// under the layer's name ("dense", "dense_1", ...), as TensorFlow names them, so checkpoints
/// of TensorFlow models restore into actorflow graphs.
namespace af::layers {

/// An activation applied to a layer's output (`tf.nn.relu`, ...); empty for none.
using Activation = std::function<Output(const Output&)>;

/// Options of `dense`.
struct DenseOptions {
  Activation activation;  ///< applied last; empty for none
  bool use_bias = true;   ///< add a `bias` variable and a BiasAdd
  /// Default: glorot_uniform.
  initializers::Initializer kernel_initializer;
  /// Default: zeros.
  initializers::Initializer bias_initializer;
  bool trainable = true;  ///< put the variables in TRAINABLE_VARIABLES
  std::string name;       ///< the layer's name, made unique (default "dense")
};

/// `tf.layers.dense`: `activation(inputs · kernel + bias)` for inputs of rank 2 with a known
/// last dimension (kernel `[in, units]`; ops MatMul, BiasAdd, then the activation). Throws
/// InvalidArgumentError when the last dimension of `inputs` is unknown.
Output dense(const Output& inputs, std::int64_t units, const DenseOptions& options = {});

/// Options of `conv2d`.
struct Conv2DOptions {
  std::vector<std::int64_t> strides = {
      1, 1};                      ///< (height, width); InvalidArgumentError unless 2 values
  std::string padding = "valid";  ///< "valid" or "same" (case-insensitive)
  Activation activation;          ///< applied last; empty for none
  bool use_bias = true;           ///< add a `bias` variable and a BiasAdd
  initializers::Initializer kernel_initializer;  ///< default: glorot_uniform
  initializers::Initializer bias_initializer;    ///< default: zeros
  bool trainable = true;                         ///< put the variables in TRAINABLE_VARIABLES
  std::string name;  ///< the layer's name, made unique (default "conv2d")
};

/// `tf.layers.conv2d` on NHWC inputs with a known channel count: kernel
/// `[kh, kw, in, filters]`, ops Conv2D, BiasAdd, activation.
Output conv2d(const Output& inputs, std::int64_t filters,
              std::pair<std::int64_t, std::int64_t> kernel_size, const Conv2DOptions& options = {});

/// `tf.layers.max_pooling2d` (NHWC): op MaxPool under "max_pooling2d".
Output max_pooling2d(const Output& inputs, std::pair<std::int64_t, std::int64_t> pool_size,
                     std::pair<std::int64_t, std::int64_t> strides,
                     const std::string& padding = "valid", std::string_view name = {});

/// `tf.layers.flatten`: `[batch, ...]` to `[batch, prod(...)]` (op Reshape under "flatten").
/// Throws InvalidArgumentError when the dimensions after the first are not known.
Output flatten(const Output& inputs, std::string_view name = {});

/// `tf.layers.dropout`: when `training`, each element is kept with probability `1 - rate`
/// and scaled by `1 / (1 - rate)`; otherwise the inputs pass through (Identity). Throws
/// InvalidArgumentError unless `0 <= rate < 1`.
Output dropout(const Output& inputs, double rate = 0.5, bool training = false,
               std::optional<std::int64_t> seed = {}, std::string_view name = {});
/// As above with `training` a bool scalar fed at run time (e.g. a placeholder).
Output dropout(const Output& inputs, double rate, const Output& training,
               std::optional<std::int64_t> seed = {}, std::string_view name = {});

}  // namespace af::layers

/// Losses (`tf.losses`): each adds its loss to the "losses" collection.
namespace af::losses {

/// The collection the losses join (`tf.GraphKeys.LOSSES`).
inline constexpr const char* kLosses = "losses";

/// `tf.losses.sparse_softmax_cross_entropy(labels, logits)` with weights 1 and reduction
/// SUM_BY_NONZERO_WEIGHTS: the mean over the batch of the per-example cross-entropies,
/// under the name scope "sparse_softmax_cross_entropy_loss".
Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits,
                                    std::string_view name = {});

/// `tf.losses.softmax_cross_entropy(onehot_labels, logits)`: the mean of the per-example
/// cross-entropies ("softmax_cross_entropy_loss").
Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits,
                             std::string_view name = {});

/// `tf.losses.mean_squared_error(labels, predictions)`: the mean of
/// `(predictions - labels)^2` ("mean_squared_error"). Throws InvalidArgumentError when the
/// static shapes are incompatible.
Output mean_squared_error(const Output& labels, const Output& predictions,
                          std::string_view name = {});

/// `tf.losses.sigmoid_cross_entropy(multi_class_labels, logits)` with weights 1: the mean
/// over every element of `tf.nn.sigmoid_cross_entropy_with_logits`, in TensorFlow's stable
/// form `max(x, 0) - x * z + log(1 + exp(-|x|))` ("sigmoid_cross_entropy_loss"). The labels
/// are cast to the logits' dtype. Throws InvalidArgumentError when the static shapes are
/// incompatible.
Output sigmoid_cross_entropy(const Output& labels, const Output& logits,
                             std::string_view name = {});

}  // namespace af::losses

/// Metrics (`tf.metrics`): a value and an update op over local variables (initialise them
/// with `Graph::local_variables_initializer`).
namespace af::metrics {

/// `tf.metrics.accuracy(labels, predictions)`: (accuracy, update_op). Local variables
/// "accuracy/total" and "accuracy/count" accumulate the correct predictions and the
/// predictions seen; the update op adds a batch and returns the new accuracy; the value is
/// `total / count` (0 before any update). Labels and predictions must have one dtype.
std::pair<Output, Output> accuracy(const Output& labels, const Output& predictions,
                                   std::string_view name = {});

/// The fraction of `predictions == labels` in one batch (a stateless accuracy op).
Output batch_accuracy(const Output& labels, const Output& predictions, std::string_view name = {});

}  // namespace af::metrics
