#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// The largest entries of each row (TensorFlow's `tf.nn.top_k` and `tf.nn.in_top_k`,
/// topk_op.cc and in_topk_op.cc).
namespace af::nn {

/// What `top_k` returns.
struct TopKOutputs {
  Output values;   ///< `input.shape[:-1] + [k]`, input's dtype
  Output indices;  ///< the same shape, int32: where each value sits in its row
};

/// `tf.nn.top_k(input, k, sorted)`: op TopKV2 (default name "TopKV2", `k` the int32 Const
/// "<op>/k") over the last dimension of a real-valued `input` of rank at least 1. Equal
/// values keep their order (the lower index first), as TensorFlow's stable selection; with
/// `sorted` the values come largest first (TensorFlow's CPU kernel sorts either way). NaN
/// compares as std::greater does. Errors, the op named: "input must have at least k
/// columns. Had 3, needed 5", "Need k >= 0, got -1". Gradient: the values' gradient
/// scattered to the positions `indices` names, zeros elsewhere; none for `k`.
TopKOutputs top_k(const Output& input, std::int64_t k = 1, bool sorted = true,
                  std::string_view name = {});
/// `top_k` with `k` an int32 scalar computed in the graph.
TopKOutputs top_k(const Output& input, const Output& k, bool sorted = true,
                  std::string_view name = {});

/// `tf.nn.in_top_k(predictions, targets, k)`: op InTopKV2 (default name "in_top_k/InTopKV2",
/// `k` a Const of targets' dtype), a bool `[batch]`: whether `predictions[i, targets[i]]`
/// (float32 `[batch, classes]`) is among the `k` largest of its row, a tie at the boundary
/// counting as in, as TensorFlow. A target out of range or a non-finite prediction in a row
/// gives false. Errors: "predictions must be 2-dimensional", "First dimension of
/// predictions 3 must match length of targets 2". Not differentiable.
Output in_top_k(const Output& predictions, const Output& targets, std::int64_t k,
                std::string_view name = {});

}  // namespace af::nn
