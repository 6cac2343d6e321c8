#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/data_flow_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/queues/queue_runner.hpp"
#include "actorflow/queues/queues.hpp"
#include "actorflow/train/optimizer.hpp"

namespace af::train {

/// `tf.train.SyncReplicasOptimizer`: synchronous data parallelism over replicas that each
/// build the same graph (between-graph replication) or share one (in-graph).
///
/// `apply_gradients` builds, as TensorFlow does (sync_replicas_optimizer.py):
/// - `sync_rep_local_step`, a local int64 variable colocated with a NoOp of the current device
///   scope (each worker's own), and `local_step_init_op` = assign(local_step, global_step);
/// - per variable with a gradient, on the variable's device and under the optimizer's name
///   scope, a `ConditionalAccumulator` shared as `<var>:0/grad_accum`, the worker's
///   AccumulatorApplyGradient(local_step, grad) and the chief's take of
///   `replicas_to_aggregate` gradients (averaged); for a gradient that is IndexedSlices (an
///   embedding's), a `SparseConditionalAccumulator` of shape `()` instead, whose take gives
///   slices again, so only the rows the replicas touched are averaged and applied;
/// - on the global step's device: the wrapped optimizer's update of the averages (which
///   increments global_step), the token queue `sync_token_q` (unbounded, shared) and
///   `dummy_queue`;
/// - the worker train op: after every apply, dequeue a token and assign it to local_step;
/// - the chief's sync op: after the update, enqueue `tokens_per_step` copies of the new
///   global step; `get_chief_queue_runner()` runs it in a loop;
/// - `chief_init_op`: local_step_init_op plus every accumulator's SetGlobalStep(global_step).
///
/// A gradient computed at a local step below its accumulator's step is stale and dropped, so
/// with `total_num_replicas > replicas_to_aggregate` the spare replicas keep a slow or dead
/// worker from holding a step back. Without spares a dead worker stops every step: the
/// chief's take and the workers' dequeues wait (end them with `RunOptions::timeout_in_ms`).
class SyncReplicasOptimizer {
 public:
  /// Wraps `opt` (which must outlive this object). `total_num_replicas` defaults to
  /// `replicas_to_aggregate`. Throws InvalidArgumentError when either is < 1.
  SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate,
                        std::optional<int> total_num_replicas = {},
                        std::string name = "sync_replicas");

  /// The wrapped optimizer's `compute_gradients` (per-replica clipping stays possible).
  std::vector<GradAndVar> compute_gradients(const Output& loss,
                                            std::optional<std::vector<Variable>> var_list = {},
                                            const GradientOptions& options = {});
  /// Builds the graph above and returns the worker train op (the assign of the token to
  /// local_step). Throws InvalidArgumentError "Must supply at least one variable" for an
  /// empty list, and when called twice.
  Operation apply_gradients(const std::vector<GradAndVar>& grads_and_vars,
                            const Variable& global_step, std::string_view name = {});
  /// `compute_gradients` then `apply_gradients`.
  Operation minimize(const Output& loss, const Variable& global_step,
                     std::optional<std::vector<Variable>> var_list = {},
                     const GradientOptions& options = {});

  /// The QueueRunner running the chief's sync op (take the averages, update, hand out
  /// tokens). Throws FailedPreconditionError "Should be called after apply_gradients()".
  const QueueRunner& get_chief_queue_runner() const;
  /// The op that puts `num_tokens` tokens (-1: replicas_to_aggregate) holding global_step in
  /// the token queue; a NoOp "no_init_tokens" for 0. Throws InvalidArgumentError "Too few
  /// tokens to finish the first step: N (given) vs M (needed)".
  Operation get_init_tokens_op(int num_tokens = -1);
  /// The chief's local init: local_step := global_step, every accumulator's step :=
  /// global_step.
  Operation chief_init_op() const;
  /// Every worker's local init: local_step := global_step.
  Operation local_step_init_op() const;
  /// The worker's local step variable (`sync_rep_local_step`).
  Variable local_step() const;
  /// The token queue (`sync_token_q`).
  const FIFOQueue& sync_token_queue() const;

  /// The number of gradients each update averages.
  int replicas_to_aggregate() const noexcept { return replicas_to_aggregate_; }
  /// The number of replicas computing gradients.
  int total_num_replicas() const noexcept { return total_num_replicas_; }
  /// Tokens handed out per update: max(total_num_replicas, replicas_to_aggregate).
  int tokens_per_step() const noexcept { return tokens_per_step_; }
  /// The wrapped optimizer's slot (`get_slot`).
  Variable get_slot(const Variable& var, const std::string& slot_name) const {
    return opt_.get_slot(var, slot_name);
  }
  /// The wrapped optimizer's variables (not the local step).
  std::vector<Variable> variables() const { return opt_.variables(); }

 private:
  void require_applied(const char* what) const;

  Optimizer& opt_;
  int replicas_to_aggregate_;
  int total_num_replicas_;
  int tokens_per_step_;
  std::string name_;
  bool applied_ = false;
  std::optional<Variable> global_step_;
  Variable local_step_;
  Operation local_step_init_op_, chief_init_op_;
  std::optional<FIFOQueue> sync_token_queue_;
  std::optional<QueueRunner> chief_queue_runner_;
};

/// `average_gradients(tower_grads)` of the chapter's in-graph replication: for each variable,
/// the mean of the towers' gradients (an AddN divided by the tower count, on the variable's
/// device), paired with the first tower's variable. Every tower must list the same variables
/// in the same order (InvalidArgumentError otherwise); a variable without a gradient in every
/// tower keeps an invalid gradient.
std::vector<GradAndVar> average_gradients(const std::vector<std::vector<GradAndVar>>& tower_grads);

}  // namespace af::train
