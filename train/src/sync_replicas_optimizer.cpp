// tf.train.SyncReplicasOptimizer (sync_replicas_optimizer.py) and the chapter's
// average_gradients helper for in-graph replication.
#include "actorflow/train/sync_replicas_optimizer.hpp"

#include <algorithm>
#include <functional>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af::train {

namespace {

/// Opens a device scope for `device` unless it is empty (TensorFlow's `ops.device("")`
/// changes nothing either).
std::optional<ScopeGuard> device_scope(Graph& g, const std::string& device) {
  std::optional<ScopeGuard> scope;
  if (!device.empty()) scope.emplace(g.device(device));
  return scope;
}

}  // namespace

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate,
                                             std::optional<int> total_num_replicas,
                                             std::string name)
    : opt_(opt),
      replicas_to_aggregate_(replicas_to_aggregate),
      total_num_replicas_(total_num_replicas.value_or(replicas_to_aggregate)),
      tokens_per_step_(std::max(total_num_replicas_, replicas_to_aggregate)),
      name_(std::move(name)) {
  if (replicas_to_aggregate_ < 1 || total_num_replicas_ < 1)
    throw InvalidArgumentError(
        invalid_argument("SyncReplicasOptimizer needs replicas_to_aggregate (" +
                         std::to_string(replicas_to_aggregate_) + ") and total_num_replicas (" +
                         std::to_string(total_num_replicas_) + ") of at least 1"));
}

std::vector<GradAndVar> SyncReplicasOptimizer::compute_gradients(
    const Output& loss, std::optional<std::vector<Variable>> var_list,
    const GradientOptions& options) {
  return opt_.compute_gradients(loss, std::move(var_list), options);
}

Operation SyncReplicasOptimizer::apply_gradients(const std::vector<GradAndVar>& grads_and_vars,
                                                 const Variable& global_step,
                                                 std::string_view name) {
  if (grads_and_vars.empty())
    throw InvalidArgumentError(invalid_argument("Must supply at least one variable"));
  if (applied_)
    throw InvalidArgumentError(
        invalid_argument("SyncReplicasOptimizer " + name_ +
                         ": apply_gradients was already called (a second sync train op in one "
                         "graph leaves the other replicas waiting for tokens)"));
  Graph& g = global_step.graph();
  global_step_ = global_step;
  const std::string& gs_device = global_step.op().device();

  // The local step lives on this worker: colocated with a NoOp of the current device scope.
  const Operation local_anchor = g.no_op();
  {
    auto colocate = g.colocate_with(local_anchor);
    local_step_ = g.variable(
        Tensor(std::int64_t{0}),
        {.name = "sync_rep_local_step", .trainable = false, .collections = {{kLocalVariables}}});
  }
  {
    auto colocate = g.colocate_with(local_step_.op());
    local_step_init_op_ = local_step_.assign(global_step.value()).op();
  }
  std::vector<Operation> chief_init_ops = {local_step_init_op_};

  std::vector<Operation> train_ops;
  std::vector<GradAndVar> aggregated;
  // Each accumulator's SetGlobalStep for the chief's init op, and the variable's device.
  std::vector<std::pair<std::function<Operation(const Output&)>, std::string>> accumulators;
  Operation train_op;
  {
    auto scope = g.name_scope(name_);
    for (const auto& [grad, var] : grads_and_vars) {
      if (!grad.valid()) {
        aggregated.push_back({Gradient(), var});
        continue;
      }
      const std::string& var_device = var.op().device();
      auto on_var = device_scope(g, var_device);
      if (grad.is_slices()) {
        // Slices (an embedding's rows) stay slices: a SparseConditionalAccumulator of shape
        // (), so only the rows the replicas touched travel and are applied.
        SparseConditionalAccumulator accum(
            g, grad.dtype(),
            {.shape = PartialShape(Shape{}), .shared_name = var.name() + ":0/grad_accum"});
        train_ops.push_back(accum.apply_indexed_slices_grad(grad.slices(), local_step_.value()));
        aggregated.push_back(
            {Gradient(accum.take_indexed_slices_grad(replicas_to_aggregate_)), var});
        accumulators.emplace_back(
            [accum](const Output& step) { return accum.set_global_step(step, "SetGlobalStep"); },
            var_device);
        continue;
      }
      ConditionalAccumulator accum(
          g, grad.dtype(), {.shape = var.shape(), .shared_name = var.name() + ":0/grad_accum"});
      train_ops.push_back(accum.apply_grad(grad.dense(), local_step_.value()));
      aggregated.push_back({accum.take_grad(replicas_to_aggregate_), var});
      accumulators.emplace_back(
          [accum](const Output& step) { return accum.set_global_step(step, "SetGlobalStep"); },
          var_device);
    }

    Operation update_op;
    {
      auto on_gs = device_scope(g, gs_device);
      auto root = g.name_scope("/");
      update_op = opt_.apply_gradients(aggregated, global_step, name);
      sync_token_queue_.emplace(g, QueueOptions{.capacity = -1,
                                                .dtypes = {global_step.dtype()},
                                                .shapes = std::vector<QueueShape>{QueueShape{}},
                                                .name = "sync_token_q",
                                                .shared_name = "sync_token_q"});
      FIFOQueue dummy_queue(g, {.capacity = 1,
                                .dtypes = {DType::int32},
                                .shapes = std::vector<QueueShape>{QueueShape{}},
                                .name = "dummy_queue",
                                .shared_name = "dummy_queue"});
      Output token;
      {
        auto deps = g.control_dependencies(train_ops);
        token = sync_token_queue_->dequeue()[0];
      }
      {
        // The assign goes with local_step, to the worker (a reference edge).
        auto colocate = g.colocate_with(local_step_.op());
        train_op = local_step_.assign(token).op();
      }
      Operation sync_op;
      {
        auto deps = g.control_dependencies({update_op});
        // The tokens hold the *new* global step. TensorFlow's read of a ref variable aliases
        // its buffer, so its Fill sees the update; here a read made under the control
        // dependency does.
        const Output updated_step = identity(global_step.ref(), "read_global_step");
        const Output tokens =
            fill(g.constant(Tensor::from_vector<std::int32_t>({tokens_per_step_})), updated_step);
        sync_op = sync_token_queue_->enqueue_many({tokens});
      }
      chief_queue_runner_.emplace(dummy_queue, std::vector<Operation>{sync_op});
    }
    for (auto& [set_global_step, device] : accumulators) {
      auto on_device = device_scope(g, device);
      chief_init_ops.push_back(set_global_step(global_step.value()));
    }
    chief_init_op_ = g.group(chief_init_ops);
  }
  applied_ = true;
  return train_op;
}

Operation SyncReplicasOptimizer::minimize(const Output& loss, const Variable& global_step,
                                          std::optional<std::vector<Variable>> var_list,
                                          const GradientOptions& options) {
  return apply_gradients(compute_gradients(loss, std::move(var_list), options), global_step);
}

void SyncReplicasOptimizer::require_applied(const char* what) const {
  if (!applied_)
    throw FailedPreconditionError(
        failed_precondition(std::string(what) + " should be called after apply_gradients()."));
}

const QueueRunner& SyncReplicasOptimizer::get_chief_queue_runner() const {
  require_applied("get_chief_queue_runner()");
  return *chief_queue_runner_;
}

Operation SyncReplicasOptimizer::get_init_tokens_op(int num_tokens) {
  require_applied("get_init_tokens_op()");
  const int tokens_needed = replicas_to_aggregate_ - total_num_replicas_;
  if (num_tokens == -1) {
    num_tokens = replicas_to_aggregate_;
  } else if (num_tokens < tokens_needed) {
    throw InvalidArgumentError(
        invalid_argument("Too few tokens to finish the first step: " + std::to_string(num_tokens) +
                         " (given) vs " + std::to_string(tokens_needed) + " (needed)"));
  }
  Graph& g = global_step_->graph();
  if (num_tokens <= 0) return g.no_op("no_init_tokens");
  auto on_gs = device_scope(g, global_step_->op().device());
  auto root = g.name_scope("/");
  const Output tokens =
      fill(g.constant(Tensor::from_vector<std::int32_t>({num_tokens})), global_step_->value());
  return sync_token_queue_->enqueue_many({tokens});
}

Operation SyncReplicasOptimizer::chief_init_op() const {
  require_applied("chief_init_op");
  return chief_init_op_;
}

Operation SyncReplicasOptimizer::local_step_init_op() const {
  require_applied("local_step_init_op");
  return local_step_init_op_;
}

Variable SyncReplicasOptimizer::local_step() const {
  require_applied("local_step");
  return local_step_;
}

const FIFOQueue& SyncReplicasOptimizer::sync_token_queue() const {
  require_applied("sync_token_queue");
  return *sync_token_queue_;
}

std::vector<GradAndVar> average_gradients(const std::vector<std::vector<GradAndVar>>& tower_grads) {
  if (tower_grads.empty()) return {};
  const auto& first = tower_grads.front();
  for (std::size_t t = 1; t < tower_grads.size(); ++t) {
    if (tower_grads[t].size() != first.size())
      throw InvalidArgumentError(invalid_argument("average_gradients: tower " + std::to_string(t) +
                                                  " has " + std::to_string(tower_grads[t].size()) +
                                                  " gradients, tower 0 has " +
                                                  std::to_string(first.size())));
    for (std::size_t i = 0; i < first.size(); ++i)
      if (tower_grads[t][i].var.name() != first[i].var.name())
        throw InvalidArgumentError(invalid_argument(
            "average_gradients: tower " + std::to_string(t) + " lists " +
            tower_grads[t][i].var.name() + " where tower 0 lists " + first[i].var.name()));
  }
  std::vector<GradAndVar> averaged;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const Variable& var = first[i].var;
    std::vector<Output> grads;
    for (const auto& tower : tower_grads)
      if (tower[i].grad.valid()) grads.push_back(tower[i].grad.to_dense());
    if (grads.size() != tower_grads.size()) {
      averaged.push_back({Gradient(), var});
      continue;
    }
    Graph& g = var.graph();
    auto colocate = g.colocate_with(var.op());
    const Output sum = grads.size() == 1 ? grads[0] : add_n(grads);
    const Output count = cast(g.constant(Tensor(static_cast<float>(grads.size()))), sum.dtype());
    averaged.push_back({div(sum, count), var});
  }
  return averaged;
}

}  // namespace af::train
