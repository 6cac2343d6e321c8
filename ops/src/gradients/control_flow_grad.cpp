// Gradients of the control-flow ops (TensorFlow's control_flow_grad.py): Switch, RefSwitch,
// Merge and RefMerge of conds and of while loops, Enter, Exit and NextIteration (the
// gradient loop's side: grad_loop_state.hpp), and the zeros the walk gives a cond Switch
// output that got no gradient (control_flow_state.ZerosLikeOutsideLoop): built on the other
// branch, so they are live exactly when the branch whose gradient is missing is taken.
#include "../control_flow/grad_loop_state.hpp"
#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

Output zeros_for_missing_gradient(const Operation& op, int i) {
  const Output val = op.output(i);
  std::shared_ptr<const CondBranch> branch;
  if (is_switch(op.node())) branch = op.graph().cond_branch_of(op.node());
  if (!branch) return zeros_like_op(val, "zeros_like");
  Graph& g = op.graph();
  SwitchOutputs s = switch_op(input(op, 0), branch->pred);
  const Output switch_val = branch->branch ? s.output_false : s.output_true;
  const Output pivot = identity(switch_val, "Identity");
  const Output shape = dynamic_shape(switch_val);
  auto deps = g.control_dependencies({pivot.op()});
  return zeros_of_shape(shape, val.dtype());
}

namespace {

// _SwitchGrad of a loop's Switch: visited first from its Exit (output 0), where the
// gradient loop's Merge "b_switch" starts with the Exit's gradient, then from the body
// (output 1), whose gradient becomes that Merge's back edge.
std::vector<Output> loop_switch_grad(const Operation& op, const std::vector<Output>& grads) {
  Graph& g = op.graph();
  const auto grad_context = current_grad_context(g);
  if (!grad_context || !grad_context->grad_state)
    throw InternalError(internal("gradients: the loop Switch " + op.name() +
                                 " is differentiated outside its gradient loop"));
  auto& switch_map = grad_context->grad_state->switch_map;
  if (auto it = switch_map.find(op.node()); it != switch_map.end()) {
    if (grads[1].valid()) g.update_input(it->second.op(), 1, next_iteration(grads[1]));
    return {Output(), Output()};
  }
  if (!grads[0].valid()) return {Output(), Output()};
  const Output merge_grad = merge({grads[0], grads[0]}, "b_switch").output;
  switch_map[op.node()] = merge_grad;
  return {merge_grad, Output()};
}

// _ExitGrad: the gradient enters the gradient loop.
std::vector<Output> exit_grad(const Operation& op, const std::vector<Output>& grads) {
  Graph& g = op.graph();
  const auto grad_context = current_grad_context(g);
  if (!grad_context || !grad_context->back_prop) return {Output()};
  if (dynamic_cast<const GradWhileContext*>(ControlFlowAccess::context_of(g, op.node())))
    throw UnimplementedError(unimplemented("Second-order gradient for while loops not supported."));
  grad_context->values.insert(grads[0].name());
  Output result;
  {
    auto plain = g.control_flow_context(nullptr);
    result = enter(grads[0], grad_context->frame_name, false, grad_context->parallel_iterations,
                   "b_exit");
    op.graph().set_shape(result, grads[0].shape());
  }
  ControlFlowAccess::record(g, grad_context, result.node());
  grad_context->loop_enters.push_back(result);
  return {result};
}

// _EnterGrad: a loop variable's gradient leaves the gradient loop; a loop invariant's is
// summed over the iterations.
std::vector<Output> enter_grad(const Operation& op, const std::vector<Output>& grads) {
  Graph& g = op.graph();
  const auto grad_context = current_grad_context(g);
  if (!grad_context || !grad_context->back_prop || !grad_context->grad_state) return {grads[0]};
  if (is_loop_constant_enter(op.node()))
    return {add_backprop_accumulator(g, grad_context, op, grads[0])};
  const Output result = exit_op(grads[0]);
  grad_context->loop_exits.push_back(result);
  if (grad_context->outer) grad_context->outer->values.insert(result.name());
  return {result};
}

}  // namespace

void register_control_flow_gradients(GradientRegistry& r) {
  auto switch_grad = [](const Operation& op, const std::vector<Output>& grads) {
    if (dynamic_cast<const WhileContext*>(ControlFlowAccess::context_of(op.graph(), op.node())))
      return loop_switch_grad(op, grads);
    if (auto branch = op.graph().cond_branch_of(op.node())) {
      // The taken branch's gradient and the other branch's zeros: one of them is live.
      if (!grads[0].valid() || !grads[1].valid()) {
        // A resource handle gets no zeros: its one gradient, merged with itself.
        const Output taken = grads[static_cast<std::size_t>(branch->branch)];
        if (taken.valid() && input(op, 0).dtype() == DType::resource)
          return std::vector<Output>{merge({taken, taken}, "cond_resource_grad").output, Output()};
        return std::vector<Output>{Output(), Output()};
      }
      return std::vector<Output>{merge({grads[0], grads[1]}, "cond_grad").output, Output()};
    }
    // A Switch outside any cond built here (an imported graph's, or a bare one).
    const Output pred = input(op, 1);
    const Output false_grad = switch_op(grads[0], pred).output_false;
    const Output true_grad = switch_op(grads[1], pred).output_true;
    return std::vector<Output>{merge({false_grad, true_grad}).output, Output()};
  };
  r.add("Switch", switch_grad);
  r.add("RefSwitch", switch_grad);
  auto merge_grad = [](const Operation& op, const std::vector<Output>& grads) {
    const int n = static_cast<int>(op.node()->inputs().size());
    // A loop's Merge: its gradient goes to the Enter when the gradient loop ends, to the
    // NextIteration while it runs.
    if (dynamic_cast<const WhileContext*>(
            ControlFlowAccess::output_context(op.graph(), input(op, 0).node()))) {
      const auto grad_context = current_grad_context(op.graph());
      if (!grad_context)
        throw InternalError(internal("gradients: the loop Merge " + op.name() +
                                     " is differentiated outside its gradient loop"));
      auto colocate = op.graph().colocate_with(grads[0].op());
      SwitchOutputs s = switch_op(grads[0], grad_context->pivot);
      return std::vector<Output>{s.output_false, s.output_true};
    }
    if (auto branch = op.graph().cond_branch_of(input(op, 0).node()); branch && n == 2) {
      SwitchOutputs s = switch_op(grads[0], branch->pred, "cond_grad");
      return std::vector<Output>{s.output_false, s.output_true};
    }
    // Each input's gradient is live when value_index names it.
    std::vector<Output> out;
    for (int i = 0; i < n; ++i) {
      Graph& g = op.graph();
      const Output index = g.constant(Tensor(static_cast<std::int32_t>(i)), "Equal/y");
      const Output is_i =
          g.create_op("Equal", {op.output(1), index}, {{"T", DType::int32}}, "Equal").output(0);
      out.push_back(switch_op(grads[0], is_i).output_true);
    }
    return out;
  };
  r.add("Merge", merge_grad);
  r.add("RefMerge", merge_grad);
  r.add_not_differentiable("ControlTrigger");
  r.add_not_differentiable("LoopCond");
  r.add("Exit", exit_grad);
  r.add("RefExit", exit_grad);
  r.add("Enter", enter_grad);
  r.add("RefEnter", enter_grad);
  auto next_iteration_grad = [](const Operation&, const std::vector<Output>& grads) {
    return std::vector<Output>{grads[0]};
  };
  r.add("NextIteration", next_iteration_grad);
  r.add("RefNextIteration", next_iteration_grad);
}

}  // namespace af::detail
