// Gradient loops (grad_loop_state.hpp): TensorFlow 1.x's _GradLoopState, _ControlFlowState
// and WhileContext's AddForwardLoopCounter, AddBackpropLoopCounter and
// AddBackpropAccumulator, with TensorFlow's node names ("f_count", "b_count", "f_acc",
// "b_acc", "b_sync").
#include "grad_loop_state.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "../gradients/gradient_helpers.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af::detail {

namespace {

using Access = ControlFlowAccess;

// The context of `op` as a shared pointer (null outside every context).
std::shared_ptr<ControlFlowContext> shared_context_of(Graph& g, const Node* op) {
  return std::const_pointer_cast<ControlFlowContext>(g.control_flow_context_of(op));
}

// TensorFlow's util.GetWhileContext(op): the loop `op` was built in; with `exit_outside`,
// for an Exit the loop around its own (where its value goes).
const WhileContext* while_context_of(const Graph& g, const Node* op, bool exit_outside = false) {
  const ControlFlowContext* c = Access::context_of(g, op);
  if (c && exit_outside && is_exit(op)) c = c->outer.get();
  return c ? c->while_context() : nullptr;
}

Node* node_of(const Output& o) { return o.node(); }
Node* node_of(const Operation& o) { return o.node(); }

// An op made outside every context and control dependency, then put in `context`
// (TensorFlow's ops whose _set_control_flow_context follows their creation).
template <class Build>
auto made_in(Graph& g, const std::shared_ptr<ControlFlowContext>& context, Build build) {
  decltype(build()) out;
  {
    auto no_controls = g.clear_control_dependencies();
    auto plain = g.control_flow_context(nullptr);
    out = build();
  }
  if (context) Access::record(g, context, node_of(out));
  return out;
}

// Appends `control` to `op`'s control inputs (TensorFlow's _add_control_input).
void add_control_input(Graph& g, Node* op, Node* control) {
  std::vector<Node*> controls = op->control_inputs();
  controls.push_back(control);
  Access::set_control_inputs(g, op, controls);
}

// An Enter of `data` into `loop` made as the loop's own (a loop variable: not constant).
Output loop_variable_enter(Graph& g, const std::shared_ptr<WhileContext>& loop, const Output& data,
                           std::string_view name) {
  loop->values.insert(data.name());
  Output e = made_in(g, loop, [&] {
    Output made = enter(data, loop->frame_name, false, loop->parallel_iterations, name);
    g.set_shape(made, data.shape());  // TensorFlow's _Enter(use_input_shape=True)
    return made;
  });
  loop->loop_enters.push_back(e);
  return e;
}

// TensorFlow's util.GetLoopConstantEnter: the loop invariant Enter behind `value`'s
// Identities and Switches, or null.
const Node* loop_constant_enter(const Output& value) {
  const Node* op = value.node();
  while (op->type() == "Switch" || op->type() == "RefSwitch" || op->type() == "Identity" ||
         op->type() == "RefIdentity")
    op = op->inputs()[0].node();
  return is_loop_constant_enter(op) ? op : nullptr;
}

// A Const of zeros of a fully defined shape.
Output zeros_constant(Graph& g, DType dtype, const Shape& shape, std::string_view name) {
  return g.constant(Tensor(dtype, shape), name);
}

// AddForwardLoopCounter: `n = 0; while (pivot) n++;` in `loop`, built from its outer
// context. Returns the count's Exit and the counter's NextIteration.
std::pair<Output, Output> add_forward_loop_counter(Graph& g,
                                                   const std::shared_ptr<WhileContext>& loop,
                                                   GradLoopState* outer) {
  const Output n = g.constant(Tensor(std::int32_t{0}), "f_count");
  // The pushes of an inner loop's run come after those of the run before.
  if (outer) add_control_input(g, n.node(), outer->forward_index.node()->inputs()[0].node());
  auto in_loop = g.control_flow_context(loop);
  const Output enter_n = loop_variable_enter(g, loop, n, "f_count");
  const Output merge_n = merge({enter_n, enter_n}).output;
  const SwitchOutputs switch_n = switch_op(merge_n, loop->pivot);
  const Output index = with_scalar(
      switch_n.output_true, 1.0, false, "Add",
      [](const Output& a, const Output& b, std::string_view name) { return add(a, b, name); });
  const Output next_n = next_iteration(index);
  g.update_input(merge_n.op(), 1, next_n);
  const Output total = exit_op(switch_n.output_false, "f_count");
  loop->loop_exits.push_back(total);
  if (loop->outer) loop->outer->values.insert(total.name());
  return {total, next_n};
}

// AddBackpropLoopCounter: `n = count; while (n >= 1) n--;`, the gradient loop's own
// condition, built from its outer context. Returns the counter's NextIteration.
Output add_backprop_loop_counter(Graph& g, const std::shared_ptr<GradWhileContext>& loop,
                                 const Output& count, GradLoopState* outer) {
  const Output one = g.constant(Tensor(std::int32_t{1}), "b_count");
  auto in_loop = g.control_flow_context(loop);
  const Output enter_count = loop_variable_enter(g, loop, count, "b_count");
  const Output merge_count = merge({enter_count, enter_count}).output;
  loop->pivot_for_pred = merge_count;
  const Output pred = greater_equal(merge_count, one);
  loop->pivot = loop_cond(pred, "b_count");
  const SwitchOutputs switch_count = switch_op(merge_count, loop->pivot);
  const Output index = sub(switch_count.output_true, one, "Sub");
  loop->pivot_for_body = index;
  const Output next_count = next_iteration(index);
  g.update_input(merge_count.op(), 1, next_count);
  const Output final_zero = exit_op(switch_count.output_false, "b_count");
  loop->loop_exits.push_back(final_zero);
  if (outer) add_control_input(g, outer->grad_sync(), final_zero.node());
  if (loop->outer) loop->outer->values.insert(final_zero.name());
  return next_count;
}

std::shared_ptr<GradWhileContext> new_grad_context(Graph& g, const WhileContext& forward,
                                                   GradLoopState* state) {
  auto c = std::make_shared<GradWhileContext>();
  c->outer = g.current_control_flow_context();
  c->frame_name = g.unique_name(forward.frame_name);
  c->parallel_iterations = forward.parallel_iterations;
  c->back_prop = forward.back_prop;
  c->maximum_iterations = forward.maximum_iterations;
  c->grad_state = state;
  return c;
}

}  // namespace

std::shared_ptr<GradWhileContext> current_grad_context(Graph& g) {
  for (std::shared_ptr<ControlFlowContext> c = g.current_control_flow_context(); c; c = c->outer)
    if (dynamic_cast<WhileContext*>(c.get())) return std::dynamic_pointer_cast<GradWhileContext>(c);
  return nullptr;
}

Output add_backprop_accumulator(Graph& g, const std::shared_ptr<GradWhileContext>& loop,
                                const Operation& enter_op, const Output& grad) {
  Output acc;
  if (const std::optional<Shape> shape = grad.shape().to_shape()) {
    auto in_outer = g.control_flow_context(loop->outer);
    acc = zeros_constant(g, grad.dtype(), *shape, "b_acc");
  } else {
    // The zeros' shape comes from the forward value, known outside the loop (or, in a
    // nested loop, kept per outer iteration).
    const Output value = enter_op.node()->inputs()[0];
    auto* outer_grad = dynamic_cast<GradWhileContext*>(loop->outer.get());
    if (outer_grad && outer_grad->grad_state) {
      const auto& forward = loop->grad_state->forward_context;
      Output zeros_shape;
      {
        auto in_forward_outer = g.control_flow_context(forward->outer);
        zeros_shape = dynamic_shape(value);
      }
      GradLoopState* outer_state = loop->grad_state->outer_grad_state;
      Output history;
      {
        auto outside = g.control_flow_context(loop->grad_state->base);
        history = outer_state->add_forward_accumulator(zeros_shape);
      }
      auto in_outer = g.control_flow_context(loop->outer);
      const Output real_shape = outer_state->add_backprop_accumulated_value(history, zeros_shape);
      acc = zeros_of_shape(real_shape, grad.dtype());
    } else {
      auto in_outer = g.control_flow_context(loop->outer);
      acc = zeros_of_shape(dynamic_shape(value), grad.dtype());
    }
  }
  auto in_loop = g.control_flow_context(loop);
  const Output enter_acc = loop_variable_enter(g, loop, acc, "b_acc");
  const Output merge_acc = merge({enter_acc, enter_acc}, "b_acc").output;
  const SwitchOutputs switch_acc = switch_op(merge_acc, loop->pivot);
  const Output add_acc = add(switch_acc.output_true, grad, "Add");
  g.update_input(merge_acc.op(), 1, next_iteration(add_acc));
  const Output result = exit_op(switch_acc.output_false, "b_acc");
  loop->loop_exits.push_back(result);
  if (loop->outer) loop->outer->values.insert(result.name());
  return result;
}

bool is_loop_switch(const Node* op) {
  // A cond's own Switch(pred, pred) is made in the loop around it but is no loop Switch.
  if (!is_switch(op) || op->inputs()[0] == op->inputs()[1]) return false;
  const ControlFlowContext* c = Access::context_of(op->graph(), op);
  return dynamic_cast<const WhileContext*>(c) != nullptr;
}

// -- _GradLoopState ---------------------------------------------------------------------------

GradLoopState::GradLoopState(Graph& graph, std::shared_ptr<WhileContext> forward,
                             GradLoopState* outer, std::shared_ptr<ControlFlowContext> base_context)
    : g(graph),
      outer_grad_state(outer),
      forward_context(std::move(forward)),
      base(std::move(base_context)) {
  forward_loop_exits = forward_context->loop_exits;
  pending_exits_count = static_cast<int>(forward_loop_exits.size());
  const std::shared_ptr<ControlFlowContext> outer_forward =
      outer ? std::static_pointer_cast<ControlFlowContext>(outer->forward_context)
            : forward_context->outer;
  Output count;
  {
    auto in_outer = g.control_flow_context(outer_forward);
    std::tie(count, forward_index) = add_forward_loop_counter(g, forward_context, outer);
  }
  if (outer) {
    outer_forward->values.insert(count.name());
    const Output history_count = outer->add_forward_accumulator(count);
    auto in_outer_grad = g.control_flow_context(outer->grad_context);
    grad_context = new_grad_context(g, *forward_context, this);
    const Output real_count = outer->add_backprop_accumulated_value(history_count, count);
    grad_index = add_backprop_loop_counter(g, grad_context, real_count, outer);
  } else {
    auto in_outer = g.control_flow_context(outer_forward);
    grad_context = new_grad_context(g, *forward_context, this);
    grad_index = add_backprop_loop_counter(g, grad_context, count, nullptr);
  }
}

GradLoopState::~GradLoopState() {
  if (grad_context) grad_context->grad_state = nullptr;
}

Node* GradLoopState::forward_sync() {
  if (!forward_sync_) {
    forward_sync_ =
        made_in(g, forward_context, [&] { return control_trigger(g, "f_sync"); }).node();
    add_control_input(g, forward_index.node(), forward_sync_);
  }
  return forward_sync_;
}

Node* GradLoopState::grad_sync() {
  if (!grad_sync_) {
    grad_sync_ = made_in(g, grad_context, [&] { return control_trigger(g, "b_sync"); }).node();
    add_control_input(g, grad_index.node(), grad_sync_);
  }
  return grad_sync_;
}

Output GradLoopState::add_forward_accumulator(const Output& value, bool dead_branch) {
  Output acc;
  {
    auto no_controls = g.clear_control_dependencies();
    auto colocate = g.colocate_with(value.op());
    const Output max_size = g.constant(Tensor(std::int32_t{-1}), "Const");
    acc = g.create_op("StackV2", {max_size},
                      {{"elem_type", value.dtype()}, {"stack_name", std::string()}}, "f_acc")
              .output(0);
  }
  const Output enter_acc = Access::add_value(g, forward_context, acc);
  const ControlFlowContext* value_context = Access::output_context(g, value.node());
  Output push;
  auto build_push = [&] {
    return g
        .create_op("StackPushV2", {enter_acc, value},
                   {{"T", value.dtype()}, {"swap_memory", false}}, "StackPushV2")
        .output(0);
  };
  if (value_context == forward_context.get()) {
    auto in_loop = g.control_flow_context(forward_context);
    push = build_push();
    add_control_input(g, forward_index.node(), push.node());
  } else {
    auto branch = std::dynamic_pointer_cast<CondBranch>(shared_context_of(g, value.node()));
    if (!branch)
      throw InternalError(internal("gradients: the forward value " + value.name() +
                                   " is neither in its loop nor in a cond inside it"));
    if (dead_branch) {
      {
        auto in_outer = g.control_flow_context(branch->outer);
        push = build_push();
      }
      Access::record(g, branch, push.node());
    } else {
      auto in_branch = g.control_flow_context(branch);
      push = build_push();
    }
    add_control_input(g, forward_sync(), push.node());
  }
  add_control_input(g, push.node(), forward_index.node()->inputs()[0].node());
  return acc;
}

Output GradLoopState::add_backprop_accumulated_value(const Output& history, const Output& value,
                                                     bool dead_branch) {
  const ControlFlowContext* history_context = Access::context_of(g, history.node());
  std::shared_ptr<const CondBranch> branch;
  for (auto c = g.control_flow_context_of(value.node()); c && c.get() != history_context;
       c = c->outer) {
    if (auto b = std::dynamic_pointer_cast<const CondBranch>(c)) {
      branch = b;
      break;
    }
  }
  Output pop;
  {
    auto no_controls = g.clear_control_dependencies();
    auto in_grad = g.control_flow_context(grad_context);
    Output source = history;
    if (branch) {
      Output pred;
      for (GradLoopState* s = this; s && !pred.valid(); s = s->outer_grad_state)
        if (auto it = s->history_map.find(branch->pred.name()); it != s->history_map.end())
          pred = it->second;
      if (!pred.valid()) pred = branch->pred;
      const int side = dead_branch ? 1 - branch->branch : branch->branch;
      auto colocate = g.colocate_with(history.op());
      SwitchOutputs s = switch_op(history, pred);
      source = side ? s.output_true : s.output_false;
    }
    pop =
        g.create_op("StackPopV2", {source}, {{"elem_type", value.dtype()}}, "StackPopV2").output(0);
    g.set_shape(pop, value.shape());
  }
  if (grad_context->parallel_iterations > 1) add_control_input(g, grad_sync(), pop.node());
  return pop;
}

Output GradLoopState::get_real_value(const Output& value) {
  if (auto it = history_map.find(value.name()); it != history_map.end()) return it->second;
  Output cur_value = value;
  GradLoopState* cur_state = this;
  Output real_value, history;
  for (;;) {
    if (const Node* e = loop_constant_enter(cur_value)) {
      cur_value = e->inputs()[0];
      cur_state = cur_state->outer_grad_state;
      if (!cur_state) {
        real_value = Access::add_value(g, grad_context, cur_value);
        break;
      }
    } else if (cur_value.node()->type() == "Const") {
      real_value = g.constant(*cur_value.node()->def().attr<Tensor>("value"), "Const");
      break;
    } else {
      auto outside = g.control_flow_context(base);
      history = cur_state->add_forward_accumulator(cur_value);
      break;
    }
  }
  if (!real_value.valid()) {
    real_value = cur_state->add_backprop_accumulated_value(history, cur_value);
    if (cur_state != this) real_value = Access::add_value(g, grad_context, real_value);
  }
  history_map[value.name()] = real_value;
  return real_value;
}

// -- _ControlFlowState ------------------------------------------------------------------------

GradLoopState* ControlFlowState::grad_state(const Node* op, bool before) const {
  const WhileContext* forward = while_context_of(g_, op, before);
  if (!forward) return nullptr;
  auto it = map_.find(forward);
  return it == map_.end() ? nullptr : it->second.get();
}

std::unique_ptr<ControlFlowState> ControlFlowState::create(
    Graph& g, std::vector<Node*>& between_list, std::unordered_set<const Node*>& between) {
  std::unique_ptr<ControlFlowState> state;
  // between_list grows while it is walked: index, not iterators.
  for (std::size_t i = 0; i < between_list.size(); ++i) {
    Node* op = between_list[i];
    if (!is_exit(op) || !Access::context_of(g, op)) continue;
    if (!state) state = std::make_unique<ControlFlowState>(g);
    state->add_while_context(op, between_list, between);
  }
  return state;
}

void ControlFlowState::add_while_context(Node* exit, std::vector<Node*>& between_list,
                                         std::unordered_set<const Node*>& between) {
  auto forward = std::dynamic_pointer_cast<WhileContext>(shared_context_of(g_, exit));
  if (!forward || map_.count(forward.get())) return;
  if (dynamic_cast<const GradWhileContext*>(forward.get()))
    throw UnimplementedError(unimplemented("Second-order gradient for while loops not supported."));
  const ControlFlowContext* outer = forward->outer.get();
  const WhileContext* outer_forward = outer ? outer->while_context() : nullptr;
  GradLoopState* outer_state = nullptr;
  if (outer_forward)
    if (auto it = map_.find(outer_forward); it != map_.end()) outer_state = it->second.get();
  auto state = std::make_unique<GradLoopState>(g_, forward, outer_state, base_);
  for (const Output& loop_exit : state->forward_loop_exits)
    if (between.insert(loop_exit.node()).second) between_list.push_back(loop_exit.node());
  map_[forward.get()] = std::move(state);
}

std::vector<Output> ControlFlowState::process_unused_loop_exits(
    std::unordered_map<const Node*, int>& pending, const std::unordered_set<const Node*>& to_ops) {
  std::vector<Output> loop_exits;
  for (auto& [forward, state] : map_) {
    for (const Output& y : state->forward_loop_exits) {
      if (pending[y.node()] != 0) continue;
      --state->pending_exits_count;
      if (!to_ops.count(y.node())) state->unused_exits.push_back(y);
      if (state->pending_exits_count == 0)
        loop_exits.insert(loop_exits.end(), state->unused_exits.begin(), state->unused_exits.end());
    }
    for (const Output& y : state->forward_context->loop_enters)
      if (pending[y.node()] == 0) pending[y.node()] = 1;
  }
  return loop_exits;
}

ScopeGuard ControlFlowState::enter_grad_context(const Node* op, bool before) const {
  if (GradLoopState* state = grad_state(op, before))
    return g_.control_flow_context(state->grad_context);
  return ScopeGuard();
}

Output ControlFlowState::zeros_like_for_exit(const Output& val) {
  // The gradient loop of the loop around val's own, when it has one.
  GradLoopState* outer_state = grad_state(val.node(), true);
  const std::optional<Shape> shape = val.shape().to_shape();
  if (!outer_state) {
    if (shape) return zeros(g_, *shape, val.dtype());
    return zeros_like_op(val, "zeros_like");
  }
  if (shape) {
    auto in_grad = g_.control_flow_context(outer_state->grad_context);
    return zeros(g_, *shape, val.dtype());
  }
  Output val_shape;
  {
    auto in_outer = g_.control_flow_context(shared_context_of(g_, val.node())->outer);
    val_shape = dynamic_shape(val);
  }
  const Output history = outer_state->add_forward_accumulator(val_shape);
  auto in_grad = g_.control_flow_context(outer_state->grad_context);
  const Output real_shape = outer_state->add_backprop_accumulated_value(history, val_shape);
  return zeros_of_shape(real_shape, val.dtype());
}

Output ControlFlowState::zeros_like(const Operation& op, int index) {
  Node* n = op.node();
  if (is_loop_switch(n)) return Output();
  const bool dead_branch = is_switch(n);
  const WhileContext* forward = while_context_of(g_, n);
  auto it = forward ? map_.find(forward) : map_.end();
  if (it == map_.end()) return zeros_for_missing_gradient(op, index);
  GradLoopState& state = *it->second;
  const auto op_context = shared_context_of(g_, n);
  const auto branch = std::dynamic_pointer_cast<CondBranch>(op_context);
  const Output val = op.output(index);
  if (const std::optional<Shape> shape = val.shape().to_shape()) {
    Output result = zeros_constant(g_, val.dtype(), *shape, "Const");
    if (dead_branch && branch) {
      auto found = state.history_map.find(branch->pred.name());
      if (found == state.history_map.end())
        throw InternalError(internal("gradients: the predicate of the cond of " + op.name() +
                                     " has no value in the gradient loop"));
      const Output pred = found->second;
      SwitchOutputs s = switch_op(result, pred);
      result = branch->branch ? s.output_false : s.output_true;
    }
    return result;
  }
  Output zeros_shape;
  if (dead_branch && branch) {
    Output other;
    {
      auto in_outer = g_.control_flow_context(branch->outer);
      SwitchOutputs s = switch_op(n->inputs()[0], branch->pred);
      other = branch->branch ? s.output_false : s.output_true;
      zeros_shape = dynamic_shape(other);
    }
    Access::record(g_, branch, other.node());
    Access::record(g_, branch, zeros_shape.node());
  } else {
    auto in_op = g_.control_flow_context(op_context);
    zeros_shape = dynamic_shape(val);
  }
  Output history;
  {
    auto outside = g_.control_flow_context(base_);
    history = state.add_forward_accumulator(zeros_shape, dead_branch);
  }
  const Output shape = state.add_backprop_accumulated_value(history, zeros_shape, dead_branch);
  return zeros_of_shape(shape, val.dtype());
}

void ControlFlowState::post_processing() {
  for (auto& [forward, state] : map_) {
    for (auto& [sw, b_merge] : state->switch_map) {
      const auto& inputs = b_merge.node()->inputs();
      if (inputs[0] != inputs[1]) continue;
      // The loop variable's value does not depend on its value in the previous iteration:
      // its gradient's back edge gets zeros.
      const Output first = inputs[0];
      Output next;
      if (const std::optional<Shape> shape = first.shape().to_shape()) {
        auto in_grad = g_.control_flow_context(state->grad_context);
        next = next_iteration(zeros_constant(g_, first.dtype(), *shape, "Const"));
      } else {
        Output value;
        {
          auto in_outer = g_.control_flow_context(state->grad_context->outer);
          const Output enter_grad = first.node()->inputs()[0];
          value = zeros_of_shape(dynamic_shape(enter_grad), first.dtype());
        }
        auto in_grad = g_.control_flow_context(state->grad_context);
        next = next_iteration(value);
      }
      g_.update_input(b_merge.op(), 1, next);
    }
  }
}

// -- gradient loops in WhileContext::AddValue (while_context.cpp) -----------------------------

std::optional<Output> grad_loop_value(Graph& g, const Output& val) {
  const std::shared_ptr<GradWhileContext> grad = current_grad_context(g);
  if (!grad || !grad->grad_state) return std::nullopt;
  const WhileContext* forward = while_context_of(g, val.node(), true);
  if (!forward || forward != grad->grad_state->forward_context.get()) return std::nullopt;
  return grad->grad_state->get_real_value(val);
}

}  // namespace af::detail
