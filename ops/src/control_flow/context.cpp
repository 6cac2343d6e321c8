// The graph's control-flow contexts (TensorFlow's ControlFlowContext, control_flow_ops.py
// and control_flow_util.py): which context every op was built in, what `create_op` does
// inside a cond branch or a while loop, and which inputs may cross contexts.
//
// Inside a context an op takes the tensors it uses from outside through the context's
// AddValue (a Switch for a branch, an Enter for a loop), named in the op's name scope as
// TensorFlow's op builders name them; control inputs from outside the enclosing loop are
// dropped (a loop turns each into a control input on an Identity of its first output, made
// inside); an op without inputs waits on the context's pivot, and so does a loop op that
// reads only loop invariants.
#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "actorflow/ops/ops.hpp"
#include "context_access.hpp"
#include "grad_loop_state.hpp"

namespace af {

namespace detail {

bool is_switch(const Node* n) { return n->type() == "Switch" || n->type() == "RefSwitch"; }

bool is_enter(const Node* n) { return n->type() == "Enter" || n->type() == "RefEnter"; }

bool is_exit(const Node* n) { return n->type() == "Exit" || n->type() == "RefExit"; }

bool is_loop_constant_enter(const Node* n) {
  if (!is_enter(n)) return false;
  const bool* c = n->def().attr<bool>("is_constant");
  return c && *c;
}

bool context_contains(const ControlFlowContext* outer, const ControlFlowContext* inner) {
  for (const ControlFlowContext* c = inner; c; c = c->outer.get())
    if (c == outer) return true;
  return outer == nullptr;
}

const ControlFlowContext* ControlFlowAccess::context_of(const Graph& g, const Node* op) {
  auto it = g.context_of_.find(op);
  return it == g.context_of_.end() ? nullptr : it->second.get();
}

const ControlFlowContext* ControlFlowAccess::output_context(const Graph& g, const Node* op) {
  const ControlFlowContext* c = context_of(g, op);
  return c && is_exit(op) ? c->outer.get() : c;
}

Output ControlFlowAccess::add_value(Graph& g, const std::shared_ptr<ControlFlowContext>& context,
                                    const Output& val) {
  if (auto branch = std::dynamic_pointer_cast<CondBranch>(context))
    return cond_add_value(g, branch, val, false);
  return while_add_value(g, std::static_pointer_cast<WhileContext>(context), val);
}

void ControlFlowAccess::record(Graph& g, const std::shared_ptr<ControlFlowContext>& context,
                               Node* op, int only_output) {
  const bool loop = dynamic_cast<const WhileContext*>(context.get()) != nullptr;
  {
    std::unique_lock<std::shared_mutex> lock(g.mu_);
    g.context_of_[op] = context;
    // TensorFlow's _AddOpInternal: everything inside is unfetchable but a top-level loop's
    // results; a loop's tensors are unfeedable too.
    if (context->outer || !is_exit(op)) {
      op->fetchable_ = false;
      if (loop) op->not_feedable_.assign(static_cast<std::size_t>(op->num_outputs()), true);
    }
  }
  // A branch's values are known in its outer contexts too; a loop's only in the loop.
  for (ControlFlowContext* c = context.get(); c; c = loop ? nullptr : c->outer.get())
    for (int i = 0; i < op->num_outputs(); ++i)
      if (only_output < 0 || i == only_output) c->values.insert(Output(op, i).name());
}

void ControlFlowAccess::set_control_inputs(Graph& g, Node* op, const std::vector<Node*>& controls) {
  std::unique_lock<std::shared_mutex> lock(g.mu_);
  auto& def_inputs = op->def_.inputs;
  def_inputs.erase(std::remove_if(def_inputs.begin(), def_inputs.end(),
                                  [](const std::string& s) { return !s.empty() && s[0] == '^'; }),
                   def_inputs.end());
  op->control_inputs_.clear();
  for (Node* c : controls) {
    if (std::find(op->control_inputs_.begin(), op->control_inputs_.end(), c) !=
        op->control_inputs_.end())
      continue;
    op->control_inputs_.push_back(c);
    def_inputs.push_back("^" + c->name());
  }
  ++g.version_;
}

std::vector<Node*> ControlFlowAccess::control_stack_inputs(const Graph& g,
                                                           const std::vector<Output>& inputs) {
  return g.control_stack_inputs(inputs);
}

void ControlFlowAccess::mark_seen_by_control_scopes(Graph& g, const Node* op) {
  for (auto& frame : g.control_stack_) frame.created.insert(op);
}

std::vector<Node*> ControlFlowAccess::enter_control_inputs(const Graph& g, const WhileContext& loop,
                                                           const Output& input) {
  const ControlFlowContext* outer = loop.outer.get();
  const WhileContext* outer_loop = outer ? outer->while_context() : nullptr;
  std::vector<Node*> kept;
  for (Node* c : g.control_stack_inputs({input})) {
    const ControlFlowContext* op_context = output_context(g, c);
    bool keep = true;
    for (const ControlFlowContext* o = outer; o != op_context; o = o->outer.get()) {
      if (o == nullptr || o == outer_loop) {
        keep = false;
        break;
      }
    }
    if (keep) kept.push_back(c);
  }
  return kept;
}

}  // namespace detail

using detail::ControlFlowAccess;

ScopeGuard Graph::control_flow_context(std::shared_ptr<ControlFlowContext> context) {
  auto saved = std::exchange(context_, std::move(context));
  return ScopeGuard([this, saved = std::move(saved)]() mutable { context_ = std::move(saved); });
}

std::shared_ptr<const ControlFlowContext> Graph::control_flow_context_of(const Node* op) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = context_of_.find(op);
  return it == context_of_.end() ? nullptr : it->second;
}

std::shared_ptr<const CondBranch> Graph::cond_branch_of(const Node* op) const {
  return std::dynamic_pointer_cast<const CondBranch>(control_flow_context_of(op));
}

ScopeGuard Graph::clear_control_dependencies() {
  auto saved = std::make_shared<std::vector<ControlFrame>>(std::move(control_stack_));
  control_stack_.clear();
  return ScopeGuard([this, saved] { control_stack_ = std::move(*saved); });
}

void Graph::check_input_context(const ControlFlowContext* op_context, const std::string& type,
                                const std::string& op_name, const Output& input) const {
  // TensorFlow's CheckInputFromValidContext (its second-order gradient case aside).
  const ControlFlowContext* input_context = ControlFlowAccess::output_context(*this, input.node());
  if (input_context == nullptr || input_context == op_context) return;
  const WhileContext* loop = op_context ? op_context->while_context() : nullptr;
  const WhileContext* input_loop = input_context->while_context();
  if (loop == nullptr) {
    // Enters and Switches are made outside the context they serve.
    if (input_loop == nullptr || type == "Enter" || type == "RefEnter" || type == "Switch" ||
        type == "RefSwitch")
      return;
    throw InvalidArgumentError(invalid_argument("Cannot use '" + input.node()->name() +
                                                "' as input to '" + op_name + "' because '" +
                                                input.node()->name() + "' is in a while loop."));
  }
  if (detail::context_contains(input_loop, loop)) return;
  // A gradient loop reads its forward loop (and the loops around or inside it); the forward
  // loop feeds its gradient loop's stacks.
  const auto* grad = dynamic_cast<const detail::GradWhileContext*>(loop);
  if (grad && grad->grad_state) {
    const WhileContext* forward = grad->grad_state->forward_context.get();
    if (detail::context_contains(input_loop, forward) || input_loop->outer.get() == forward) return;
  }
  const auto* input_grad = dynamic_cast<const detail::GradWhileContext*>(input_loop);
  if (input_grad && input_grad->grad_state && input_grad->grad_state->forward_context.get() == loop)
    return;
  throw InvalidArgumentError(invalid_argument("Cannot use '" + input.node()->name() +
                                              "' as input to '" + op_name +
                                              "' because they are in different while loops."));
}

Operation Graph::create_op_in_context(const std::string& type, const std::vector<Output>& inputs,
                                      AttrMap attrs, std::string_view name,
                                      const std::vector<Operation>& control_inputs) {
  const std::shared_ptr<ControlFlowContext> context = context_;
  // TensorFlow's WhileContext.AddOp: in a gradient loop, the shape of a value of the forward
  // loop is taken in the forward loop (and kept per iteration), not the value itself.
  if ((type == "Shape" || type == "Size" || type == "Rank") && !inputs.empty() &&
      inputs[0].valid()) {
    const auto grad = detail::current_grad_context(*this);
    const ControlFlowContext* input_context =
        ControlFlowAccess::context_of(*this, inputs[0].node());
    if (grad && grad->grad_state && input_context &&
        input_context->while_context() == grad->grad_state->forward_context.get()) {
      auto in_forward = control_flow_context(context_of_.at(inputs[0].node()));
      return create_op(type, inputs, std::move(attrs), name, control_inputs);
    }
  }
  const bool loop = dynamic_cast<const WhileContext*>(context.get()) != nullptr;
  const std::string requested(name.empty() ? std::string_view(type) : name);
  const std::string op_name = !requested.empty() && requested.back() == '/'
                                  ? requested.substr(0, requested.size() - 1)
                                  : unique_name(requested);
  // Helpers are named in the scope TensorFlow's builders open: the op's own, but a Const's
  // (made without one) is the scope around it.
  std::string helper_scope = op_name + "/";
  if (type == "Const") helper_scope = helper_scope.substr(0, op_name.rfind('/') + 1);
  auto in_helper_scope = [&] {
    return helper_scope.empty() ? name_scope("/") : name_scope(helper_scope);
  };
  // The control inputs the op gets as built: its own and the scopes' (for the inputs as
  // given, before the context replaces them).
  std::vector<Node*> controls;
  for (const auto& c : control_inputs)
    if (c.valid()) controls.push_back(c.node());
  for (Node* d : control_stack_inputs(inputs)) controls.push_back(d);
  for (const auto& in : inputs)
    if (in.valid() && &in.graph() == this) check_input_context(context.get(), type, op_name, in);
  std::vector<Output> real = inputs;
  {
    auto scope = in_helper_scope();
    for (auto& in : real) {
      if (!in.valid() || &in.graph() != this) continue;  // create_op_plain reports it
      const bool back_edge =
          (type == "Merge" || type == "RefMerge") &&
          (in.node()->type() == "NextIteration" || in.node()->type() == "RefNextIteration");
      if (!back_edge) in = ControlFlowAccess::add_value(*this, context, in);
    }
  }
  // TensorFlow's _RemoveExternalControlEdges: control inputs from outside the enclosing loop
  // cannot reach into its frame.
  const WhileContext* enclosing = context->while_context();
  std::vector<Node*> internal, external;
  for (Node* c : controls) {
    const ControlFlowContext* c_context = ControlFlowAccess::output_context(*this, c);
    const bool inside =
        enclosing == nullptr || (c_context && c_context->while_context() == enclosing);
    (inside ? internal : external).push_back(c);
  }
  const Output pivot = context->control_pivot();
  if (real.empty()) {
    // An op without inputs runs when the context does: it waits on the pivot unless a
    // control input of its own is inside already.
    bool waits = !internal.empty();
    if (!loop)
      waits = std::any_of(internal.begin(), internal.end(), [&](Node* c) {
        return detail::context_contains(context.get(), ControlFlowAccess::context_of(*this, c));
      });
    if (!waits && pivot.valid()) internal.push_back(pivot.node());
  } else if (loop && internal.empty() && pivot.valid() &&
             std::all_of(real.begin(), real.end(), [](const Output& in) {
               return in.valid() && detail::is_loop_constant_enter(in.node());
             })) {
    // Reading only loop invariants, the op would run once for all iterations.
    internal.push_back(pivot.node());
  }
  if (loop && !external.empty()) {
    // An outside control input becomes one on an Identity of its first output, made inside
    // (before the op, so that the graph stays in topological order).
    auto no_controls = clear_control_dependencies();
    auto scope = in_helper_scope();
    for (Node* x : external)
      if (x->num_outputs() > 0) internal.push_back(identity(Output(x, 0)).node());
  }
  std::vector<Operation> final_controls;
  for (Node* c : internal) final_controls.emplace_back(c);
  Operation op;
  {
    auto plain = control_flow_context(nullptr);
    op = create_op_plain(type, real, std::move(attrs), op_name + "/", final_controls, false,
                         context.get());
  }
  Node* node = op.node();
  ControlFlowAccess::record(*this, context, node);
  return op;
}

}  // namespace af
