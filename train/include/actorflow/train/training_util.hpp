#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/train/optimizer.hpp"

namespace af::train {

/// The collection holding the global step (`tf.GraphKeys.GLOBAL_STEP`).
inline constexpr const char* kGlobalStep = "global_step";
/// The collection the optimizers add their train ops to (`tf.GraphKeys.TRAIN_OP`).
inline constexpr const char* kTrainOp = "train_op";

/// The graph's global step (`tf.train.get_global_step`): the variable of the GLOBAL_STEP
/// collection, or nullopt when there is none. Throws InvalidArgumentError when the
/// collection holds more than one.
std::optional<Variable> get_global_step(Graph& g);

/// Creates the global step (`tf.train.create_global_step`): an int64 scalar variable named
/// "global_step" at the root name scope, initialised to 0 ("global_step/Initializer/zeros"),
/// not trainable, in GLOBAL_VARIABLES and GLOBAL_STEP. Device scopes apply (a
/// `replica_device_setter` puts it on a ps task). Throws InvalidArgumentError "global_step
/// already exists." when there is one.
Variable create_global_step(Graph& g);

/// `tf.train.get_or_create_global_step`.
Variable get_or_create_global_step(Graph& g);

/// `tf.train.exponential_decay`: `learning_rate * decay_rate ^ (global_step / decay_steps)`,
/// with the exponent floored when `staircase`; ops under the name scope "ExponentialDecay"
/// (the Mul takes the scope's name). The step is cast to float32.
Output exponential_decay(HyperParameter learning_rate, const Output& global_step,
                         double decay_steps, double decay_rate, bool staircase = false,
                         std::string_view name = {});

/// `tf.train.piecewise_constant`: `values[0]` while `x <= boundaries[0]`, `values[i]` while
/// `boundaries[i-1] < x <= boundaries[i]`, `values.back()` after the last boundary. The
/// boundaries are cast to `x`'s dtype; ops under the name scope "PiecewiseConstant". Throws
/// InvalidArgumentError unless `values.size() == boundaries.size() + 1`.
Output piecewise_constant(const Output& x, const std::vector<double>& boundaries,
                          const std::vector<double>& values, std::string_view name = {});

}  // namespace af::train
