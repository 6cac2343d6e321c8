// Gradients of Switch, RefSwitch, Merge and RefMerge (TensorFlow's control_flow_grad.py for
// conds), and the zeros the walk gives a Switch output that got no gradient
// (control_flow_state.ZerosLikeOutsideLoop): built on the other branch, so they are live
// exactly when the branch whose gradient is missing is taken.
#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

bool is_switch(const Operation& op) { return op.type() == "Switch" || op.type() == "RefSwitch"; }

}  // namespace

Output zeros_for_missing_gradient(const Operation& op, int i) {
  const Output val = op.output(i);
  std::shared_ptr<const CondBranch> branch;
  if (is_switch(op)) branch = op.graph().cond_branch_of(op.node());
  if (!branch) return zeros_like_op(val, "zeros_like");
  Graph& g = op.graph();
  SwitchOutputs s = switch_op(input(op, 0), branch->pred);
  const Output switch_val = branch->branch ? s.output_false : s.output_true;
  const Output pivot = identity(switch_val, "Identity");
  const Output shape = g.create_op("Shape", {switch_val},
                                   {{"T", switch_val.dtype()}, {"out_type", DType::int32}}, "Shape")
                           .output(0);
  auto deps = g.control_dependencies({pivot.op()});
  const std::string name = g.unique_name("zeros");
  Output zero;
  {
    auto scope = g.name_scope(name + "/");
    Tensor z(val.dtype(), Shape{});
    zero = g.constant(z, "Const");
  }
  return g
      .create_op("Fill", {shape, zero}, {{"T", val.dtype()}, {"index_type", DType::int32}},
                 name + "/")
      .output(0);
}

void register_control_flow_gradients(GradientRegistry& r) {
  auto switch_grad = [](const Operation& op, const std::vector<Output>& grads) {
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
}

}  // namespace af::detail
