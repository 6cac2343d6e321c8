// `cond` and the graph's bookkeeping of cond branches: TensorFlow 1.x's CondContext
// (control_flow_ops.py) in C++. While a branch is the graph's current one, every op created
// takes the tensors it uses from outside the branch through a Switch on the cond's
// predicate (AddValue), one Switch per tensor and branch, named under the op; ops without
// inputs wait on the branch's pivot. The Switches of a nested cond's branch are made in the
// outer branch, so a tensor from outside both goes through two.
#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af {

namespace {

bool in_branch(const std::shared_ptr<const CondBranch>& of, const CondBranch* branch) {
  for (const CondBranch* c = of.get(); c; c = c->outer.get())
    if (c == branch) return true;
  return false;
}

}  // namespace

namespace detail {

/// cond's access to the graph's branch bookkeeping.
struct CondAccess {
  /// Records `op` as built in `branch` (its outputs known there and in the outer branches).
  static void record(Graph& g, const std::shared_ptr<CondBranch>& branch, const Node* op) {
    g.cond_record(branch, op);
  }
  /// The Switch output standing for `val` in `branch`: CondContext.AddValue for an input of
  /// an op of the branch, and _ProcessOutputTensor for a result (`as_result`, `lambda: x`).
  /// A tensor from outside an outer branch first goes through that branch's Switch.
  static Output switched(Graph& g, const std::shared_ptr<CondBranch>& branch, const Output& val,
                         bool as_result) {
    const std::string name = val.name();
    if (branch->values.count(name)) {
      auto it = branch->external.find(name);
      return it == branch->external.end() ? val : it->second;
    }
    branch->values.insert(name);
    Output real = val;
    if (branch->outer) {
      real = switched(g, branch->outer, val, false);
      branch->values.insert(real.name());
      branch->external[real.name()] = real;
    }
    Output result;
    {
      // An input's Switch is made outside every control dependency, in the outer branch (so
      // that its own inputs come through the outer cond's Switches); a result's in the branch.
      std::optional<ScopeGuard> controls, outer;
      if (!as_result) {
        controls.emplace(g.clear_control_dependencies());
        outer.emplace(g.cond_branch(branch->outer));
      }
      auto colocate = g.colocate_with(real.op());
      SwitchOutputs s = switch_op(real, branch->pred);
      result = branch->branch ? s.output_true : s.output_false;
    }
    if (!as_result) g.cond_record(branch, result.node());
    branch->external[name] = result;
    return result;
  }
};

}  // namespace detail

// -- Graph's side ------------------------------------------------------------------------------

ScopeGuard Graph::cond_branch(std::shared_ptr<CondBranch> branch) {
  auto saved = std::exchange(cond_branch_, std::move(branch));
  return ScopeGuard(
      [this, saved = std::move(saved)]() mutable { cond_branch_ = std::move(saved); });
}

std::shared_ptr<const CondBranch> Graph::cond_branch_of(const Node* op) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = cond_of_.find(op);
  return it == cond_of_.end() ? nullptr : it->second;
}

ScopeGuard Graph::clear_control_dependencies() {
  auto saved = std::make_shared<std::vector<ControlFrame>>(std::move(control_stack_));
  control_stack_.clear();
  return ScopeGuard([this, saved] { control_stack_ = std::move(*saved); });
}

void Graph::cond_record(const std::shared_ptr<CondBranch>& branch, const Node* op) {
  {
    std::unique_lock<std::shared_mutex> lock(mu_);
    cond_of_[op] = branch;
  }
  for (CondBranch* c = branch.get(); c; c = c->outer.get())
    for (int i = 0; i < op->num_outputs(); ++i)
      c->values.insert(op->name() + ":" + std::to_string(i));
}

Output Graph::cond_add_value(const std::shared_ptr<CondBranch>& branch, const Output& val) {
  return detail::CondAccess::switched(*this, branch, val, false);
}

Operation Graph::create_op_in_branch(const std::string& type, const std::vector<Output>& inputs,
                                     AttrMap attrs, std::string_view name,
                                     const std::vector<Operation>& control_inputs) {
  const std::shared_ptr<CondBranch> branch = cond_branch_;
  const std::string requested(name.empty() ? std::string_view(type) : name);
  const std::string op_name = !requested.empty() && requested.back() == '/'
                                  ? requested.substr(0, requested.size() - 1)
                                  : unique_name(requested);
  std::vector<Output> real = inputs;
  {
    auto scope = name_scope(op_name + "/");
    for (auto& in : real)
      if (in.valid() && &in.graph() == this) in = cond_add_value(branch, in);
  }
  std::vector<Operation> controls = control_inputs;
  if (inputs.empty()) {
    // An op without inputs runs only when the branch is taken: it waits on the pivot unless
    // a control input of its own is in the branch already.
    bool internal = false;
    for (const auto& c : control_inputs)
      if (c.valid() && in_branch(cond_branch_of(c.node()), branch.get())) internal = true;
    for (const auto& frame : control_stack_)
      for (const Node* d : frame.deps)
        if (in_branch(cond_branch_of(d), branch.get())) internal = true;
    if (!internal) controls.push_back(branch->pivot.op());
  }
  Operation op;
  {
    auto plain = cond_branch(nullptr);
    op = create_op(type, real, std::move(attrs), op_name + "/", controls);
  }
  cond_record(branch, op.node());
  return op;
}

// -- cond ----------------------------------------------------------------------------------

std::vector<Output> cond(const Output& pred, const std::function<std::vector<Output>()>& true_fn,
                         const std::function<std::vector<Output>()>& false_fn,
                         std::string_view name) {
  if (!pred.valid()) throw InvalidArgumentError(invalid_argument("cond: invalid pred"));
  if (pred.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument("cond: pred must be a bool tensor, not " +
                                                std::string(dtype_name(pred.dtype()))));
  if (!true_fn) throw InvalidArgumentError(invalid_argument("true_fn must be callable."));
  if (!false_fn) throw InvalidArgumentError(invalid_argument("false_fn must be callable."));
  Graph& g = pred.graph();
  auto scope = g.name_scope(name.empty() ? "cond" : name);
  SwitchOutputs s = switch_op(pred, pred);
  Output pivot_t = identity(s.output_true, "switch_t");
  Output pivot_f = identity(s.output_false, "switch_f");
  Output pred_id = identity(pred, "pred_id");
  auto build = [&](const Output& pivot, int branch_index,
                   const std::function<std::vector<Output>()>& fn, const char* fn_name) {
    auto branch = std::make_shared<CondBranch>();
    branch->pred = pred_id;
    branch->pivot = pivot;
    branch->branch = branch_index;
    branch->outer = g.current_cond_branch();
    branch->values = {pred_id.name(), pivot.name()};
    branch->external[pred_id.name()] = pred_id;
    detail::CondAccess::record(g, branch, pivot.node());
    std::vector<Output> out;
    {
      auto in_branch = g.cond_branch(branch);
      out = fn();
      if (out.empty())
        throw InvalidArgumentError(
            invalid_argument(std::string(fn_name) + " must have a return value."));
      for (auto& v : out) {
        if (!v.valid())
          throw InvalidArgumentError(
              invalid_argument(std::string(fn_name) + " returned an invalid tensor"));
        v = detail::CondAccess::switched(g, branch, v, true);
      }
    }
    return out;
  };
  std::vector<Output> res_t = build(pivot_t, 1, true_fn, "true_fn");
  std::vector<Output> res_f = build(pivot_f, 0, false_fn, "false_fn");
  if (res_t.size() != res_f.size())
    throw InvalidArgumentError(invalid_argument(
        "true_fn and false_fn must return the same number of tensors, but true_fn returns " +
        std::to_string(res_t.size()) + " and false_fn " + std::to_string(res_f.size())));
  for (std::size_t i = 0; i < res_t.size(); ++i)
    if (res_t[i].dtype() != res_f[i].dtype())
      throw InvalidArgumentError(invalid_argument(
          "Outputs of true_fn and false_fn must have the same type(s). Got " +
          std::string(dtype_name(res_t[i].dtype())) + " and " +
          std::string(dtype_name(res_f[i].dtype())) + " for output " + std::to_string(i)));
  std::vector<Output> merges;
  for (std::size_t i = 0; i < res_t.size(); ++i)
    merges.push_back(merge({res_f[i], res_t[i]}).output);
  return merges;
}

Output cond(const Output& pred, const std::function<Output()>& true_fn,
            const std::function<Output()>& false_fn, std::string_view name) {
  if (!true_fn) throw InvalidArgumentError(invalid_argument("true_fn must be callable."));
  if (!false_fn) throw InvalidArgumentError(invalid_argument("false_fn must be callable."));
  return cond(
      pred, [&] { return std::vector<Output>{true_fn()}; },
      [&] { return std::vector<Output>{false_fn()}; }, name)[0];
}

}  // namespace af
