// `while_loop`: TensorFlow 1.x's WhileContext.BuildLoop (control_flow_ops.py) and
// `tf.compat.v1.while_loop` (while_loop.py) in C++. The loop variables enter the frame
// "<scope>/while_context" through Enters, meet their next values at Merges, and go to the
// body (an Identity of the Switch's true side) or out (an Exit of its false side) as the
// LoopCond decides; a NextIteration closes each back edge. While the loop is the graph's
// current context, a tensor from outside enters through a loop-invariant Enter (AddValue
// below), and ops without inputs wait on the pivot (context.cpp).
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "context_access.hpp"
#include "grad_loop_state.hpp"

namespace af {

namespace {

// TensorFlow's _ShapeLessThanOrEqual: `a` is at least as specific as `b`.
bool shape_at_most(const PartialShape& a, const PartialShape& b) {
  if (!b.rank_known()) return true;
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (b.dim(i) >= 0 && a.dim(i) != b.dim(i)) return false;
  return true;
}

std::vector<Output> tail(const std::vector<Output>& v) { return {v.begin() + 1, v.end()}; }

[[noreturn]] void fail(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

}  // namespace

namespace detail {

Output ControlFlowAccess::while_add_value(Graph& g, const std::shared_ptr<WhileContext>& loop,
                                          const Output& val) {
  const std::string name = val.name();
  if (loop->values.count(name) || context_of(g, val.node()) == loop.get()) {
    auto it = loop->external.find(name);
    return it == loop->external.end() ? val : it->second;
  }
  loop->values.insert(name);
  // Building a loop's gradient: a value of the loop being differentiated is read from its
  // history (GetRealValue).
  if (std::optional<Output> real = grad_loop_value(g, val)) {
    loop->external[name] = *real;
    return *real;
  }
  const Output real = loop->outer ? add_value(g, loop->outer, val) : val;
  const std::vector<Node*> controls = enter_control_inputs(g, *loop, real);
  Output e;
  {
    auto no_controls = g.clear_control_dependencies();
    auto plain = g.control_flow_context(nullptr);
    e = enter(real, loop->frame_name, /*is_constant=*/true, loop->parallel_iterations);
  }
  if (!controls.empty()) set_control_inputs(g, e.node(), controls);
  mark_seen_by_control_scopes(g, e.node());
  record(g, loop, e.node());
  loop->external[name] = e;
  return e;
}

}  // namespace detail

using detail::ControlFlowAccess;

std::vector<Output> while_loop(const LoopCondition& cond, const LoopBody& body,
                               const std::vector<Output>& loop_vars, const WhileOptions& options) {
  if (!cond) fail("'cond' must be callable.");
  if (!body) fail("'body' must be callable.");
  if (options.parallel_iterations < 1) fail("'parallel_iterations' must be a positive integer.");
  if (loop_vars.empty()) fail("'loop_vars' must be provided.");
  for (std::size_t i = 0; i < loop_vars.size(); ++i)
    if (!loop_vars[i].valid())
      fail("while_loop: loop variable " + std::to_string(i) + " is not a valid tensor");
  if (options.maximum_iterations && options.maximum_iterations_tensor.valid())
    fail("while_loop: give maximum_iterations or maximum_iterations_tensor, not both");
  if (!options.shape_invariants.empty() && options.shape_invariants.size() != loop_vars.size())
    fail("while_loop: shape_invariants has " + std::to_string(options.shape_invariants.size()) +
         " shapes for " + std::to_string(loop_vars.size()) + " loop variables");
  Graph& g = loop_vars[0].graph();
  auto scope = g.name_scope(options.name.empty() ? "while" : options.name);

  std::vector<Output> vars = loop_vars;
  std::vector<PartialShape> invariants = options.shape_invariants;
  if (invariants.empty())
    for (const auto& v : vars) invariants.push_back(v.shape());
  LoopCondition loop_cond_fn = cond;
  LoopBody loop_body = body;
  Output maximum = options.maximum_iterations_tensor;
  if (options.maximum_iterations) {
    const std::int64_t m = *options.maximum_iterations;
    const bool fits = m >= std::numeric_limits<std::int32_t>::min() &&
                      m <= std::numeric_limits<std::int32_t>::max();
    maximum =
        g.constant(fits ? Tensor(static_cast<std::int32_t>(m)) : Tensor(m), "maximum_iterations");
  }
  if (maximum.valid()) {
    // A hidden first loop variable counts the iterations (TensorFlow's own wrapping).
    if (maximum.shape().rank() != 0)
      fail("'maximum_iterations' must be a scalar. Received shape: " + maximum.shape().to_string());
    vars.insert(vars.begin(), scalar_like(maximum, 0.0, "iteration_counter"));
    invariants.insert(invariants.begin(), PartialShape(Shape{}));
    loop_cond_fn = [cond, maximum](const std::vector<Output>& v) {
      const Output below = less(v[0], maximum);
      return logical_and(below, cond(tail(v)));
    };
    loop_body = [body](const std::vector<Output>& v) {
      const Output next = v[0] + 1;
      std::vector<Output> out = body(tail(v));
      out.insert(out.begin(), next);
      return out;
    };
  }

  auto loop = std::make_shared<WhileContext>();
  loop->outer = g.current_control_flow_context();
  loop->frame_name = g.unique_name("while_context");
  loop->parallel_iterations = options.parallel_iterations;
  loop->back_prop = options.back_prop;
  loop->maximum_iterations = maximum;
  if (!loop->outer) g.add_to_collection("while_context", std::shared_ptr<const WhileContext>(loop));
  auto in_loop = g.control_flow_context(loop);

  // The Enters, made outside every control dependency and context; a loop variable from
  // outside an enclosing context comes through that context first.
  for (const auto& v : vars) loop->values.insert(v.name());
  Output outer_pivot;
  for (const ControlFlowContext* c = loop->outer.get(); c && !outer_pivot.valid();
       c = c->outer.get())
    outer_pivot = c->control_pivot();
  std::vector<Output> enters;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const Output real =
        loop->outer ? ControlFlowAccess::add_value(g, loop->outer, vars[i]) : vars[i];
    if (!shape_at_most(real.shape(), invariants[i]))
      fail("The shape invariant specified for " + real.name() +
           " is not compatible with the initial shape of the loop variable. It enters the loop "
           "with shape " +
           real.shape().to_string() + ", but the specified shape invariant is " +
           invariants[i].to_string() + ".");
    std::vector<Node*> controls = ControlFlowAccess::enter_control_inputs(g, *loop, real);
    if (outer_pivot.valid() && detail::is_loop_constant_enter(real.node()))
      controls.insert(controls.begin(), outer_pivot.node());
    Output e;
    {
      auto no_controls = g.clear_control_dependencies();
      auto plain = g.control_flow_context(nullptr);
      e = enter(real, loop->frame_name, /*is_constant=*/false, loop->parallel_iterations);
    }
    g.set_shape(e, invariants[i]);
    if (!controls.empty()) ControlFlowAccess::set_control_inputs(g, e.node(), controls);
    ControlFlowAccess::mark_seen_by_control_scopes(g, e.node());
    ControlFlowAccess::record(g, loop, e.node());
    enters.push_back(e);
  }
  loop->values.clear();
  for (const auto& e : enters) loop->values.insert(e.name());
  loop->loop_enters = enters;

  std::vector<Output> merges;
  for (const auto& e : enters) merges.push_back(merge({e, e}).output);
  loop->pivot_for_pred = merges[0];
  const Output pred = loop_cond_fn(merges);
  if (!pred.valid()) fail("while_loop: cond returned an invalid tensor");
  loop->pivot = loop_cond(pred, "LoopCond");
  std::vector<SwitchOutputs> switches;
  for (const auto& m : merges) {
    auto colocate = g.colocate_with(m.op());
    switches.push_back(switch_op(m, loop->pivot));
  }
  std::vector<Output> body_vars;
  for (const auto& s : switches) body_vars.push_back(identity(s.output_true));
  loop->pivot_for_body = body_vars[0];
  const std::vector<Output> result = loop_body(body_vars);
  if (result.size() != merges.size())
    fail("The two structures don't have the same nested structure: 'body' returned " +
         std::to_string(result.size()) + " tensors for " + std::to_string(merges.size()) +
         " loop variables.");
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!result[i].valid())
      fail("while_loop: body returned an invalid tensor for loop variable " + std::to_string(i));
    const Output next = next_iteration(result[i]);
    if (!shape_at_most(next.shape(), merges[i].shape())) {
      const Output input = enters[i].node()->inputs()[0];
      fail("Input tensor '" + input.name() + "' enters the loop with shape " +
           input.shape().to_string() + ", but has shape " + next.shape().to_string() +
           " after one iteration. To allow the shape to vary across iterations, use the "
           "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.");
    }
    g.update_input(merges[i].op(), 1, next);
  }
  std::vector<Output> exits;
  for (const auto& s : switches) exits.push_back(exit_op(s.output_false));
  loop->loop_exits = exits;
  if (loop->outer)
    for (const auto& e : exits) loop->outer->values.insert(e.name());
  return maximum.valid() ? tail(exits) : exits;
}

Output while_loop(const std::function<Output(const Output&)>& cond,
                  const std::function<Output(const Output&)>& body, const Output& loop_var,
                  const WhileOptions& options) {
  if (!cond) fail("'cond' must be callable.");
  if (!body) fail("'body' must be callable.");
  return while_loop([&](const std::vector<Output>& v) { return cond(v[0]); },
                    [&](const std::vector<Output>& v) { return std::vector<Output>{body(v[0])}; },
                    {loop_var}, options)[0];
}

}  // namespace af
