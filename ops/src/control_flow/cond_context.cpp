// `cond` and its branches: TensorFlow 1.x's CondContext (control_flow_ops.py) in C++. While
// a branch is the graph's current context, every op created takes the tensors it uses from
// outside the branch through a Switch on the cond's predicate (AddValue), one Switch per
// tensor and branch, named under the op; ops without inputs wait on the branch's pivot
// (context.cpp). A tensor from outside an outer context first goes through that context's
// Switch or Enter, so a tensor from outside two nested conds goes through two Switches.
#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "context_access.hpp"

namespace af {

namespace detail {

Output ControlFlowAccess::cond_add_value(Graph& g, const std::shared_ptr<CondBranch>& branch,
                                         const Output& val, bool as_result) {
  const std::string name = val.name();
  if (branch->values.count(name)) {
    auto it = branch->external.find(name);
    return it == branch->external.end() ? val : it->second;
  }
  branch->values.insert(name);
  Output real = val;
  if (branch->outer) {
    real = add_value(g, branch->outer, val);
    branch->values.insert(real.name());
    branch->external[real.name()] = real;
  }
  Output result;
  if (as_result) {
    // A result's Switch is an op of the branch (its inputs are known there).
    auto colocate = g.colocate_with(real.op());
    SwitchOutputs s = switch_op(real, branch->pred);
    result = branch->branch ? s.output_true : s.output_false;
  } else {
    // An input's Switch is made outside every control dependency and context, then joins
    // the branch.
    {
      auto controls = g.clear_control_dependencies();
      auto plain = g.control_flow_context(nullptr);
      auto colocate = g.colocate_with(real.op());
      SwitchOutputs s = switch_op(real, branch->pred);
      result = branch->branch ? s.output_true : s.output_false;
    }
    record(g, branch, result.node(), result.index());  // only the taken output is a value
  }
  branch->external[name] = result;
  return result;
}

}  // namespace detail

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
                   const std::function<std::vector<Output>()>& fn, const char* fn_name,
                   std::shared_ptr<const CondBranch>* made) {
    auto branch = std::make_shared<CondBranch>();
    *made = branch;
    branch->pred = pred_id;
    branch->pivot = pivot;
    branch->branch = branch_index;
    branch->outer = g.current_control_flow_context();
    branch->values = {pred_id.name(), pivot.name()};
    branch->external[pred_id.name()] = pred_id;
    detail::ControlFlowAccess::record(g, branch, pivot.node());
    std::vector<Output> out;
    {
      auto in_branch = g.control_flow_context(branch);
      out = fn();
      if (out.empty())
        throw InvalidArgumentError(
            invalid_argument(std::string(fn_name) + " must have a return value."));
      for (auto& v : out) {
        if (!v.valid())
          throw InvalidArgumentError(
              invalid_argument(std::string(fn_name) + " returned an invalid tensor"));
        v = detail::ControlFlowAccess::cond_add_value(g, branch, v, true);
      }
    }
    return out;
  };
  std::shared_ptr<const CondBranch> context_t, context_f;
  std::vector<Output> res_t = build(pivot_t, 1, true_fn, "true_fn", &context_t);
  std::vector<Output> res_f = build(pivot_f, 0, false_fn, "false_fn", &context_f);
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
  // Only a cond outside every context is listed; nested ones are in their outer context's
  // (a MetaGraphDef writes them inside it).
  if (!context_t->outer) {
    g.add_to_collection("cond_context", context_t);
    g.add_to_collection("cond_context", context_f);
  }
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
