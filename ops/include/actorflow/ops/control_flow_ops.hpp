#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// TensorFlow 1.x's conditional execution (control flow v1): ops Switch, RefSwitch, Merge,
/// RefMerge and ControlTrigger, and `tf.cond` built from them.
///
/// A Switch forwards its data to one output and makes the other *dead*. A node with a dead
/// input does not run; its outputs are dead too, and so are its control edges. A Merge runs at
/// its first live input (once its control inputs are done) and forwards it with the index of
/// that input; when every data input is dead, the Merge is dead. Dead tensors cross devices
/// and tasks like any other (`_Send` runs when dead and tells its `_Recv`). Fetching a dead
/// tensor fails the step with InvalidArgument "Retval[K] does not have value", as
/// TensorFlow's session does. The kernels run on CPUs and GPUs (a Switch reads its predicate
/// on the host).
///
/// `cond` builds the graph TensorFlow 1.x's `tf.compat.v1.cond` builds (with control flow
/// v2 disabled), with its names: "cond/Switch", "cond/switch_t", "cond/switch_f",
/// "cond/pred_id", a Switch "<op>/Switch" for each tensor from outside a branch that an op of
/// the branch uses, "^cond/switch_t" on ops without inputs, and "cond/Merge" per output.
/// Graphs TensorFlow writes with such conds import and run. The ops of a branch are not
/// fetchable (`Graph::prevent_fetching`), as in TensorFlow. `gradients` differentiates
/// through them as TensorFlow does (a Merge's gradient is a Switch on the cond's predicate,
/// a Switch's gradient a Merge of the taken branch's gradient and zeros built on the other
/// branch).
///
/// While loops run as TensorFlow's executor runs them: an `enter` puts a tensor into a
/// child *frame* (one per `frame_name`, a new instance per iteration of the enclosing
/// frame), a Merge in the frame takes the Enter's value in iteration 0 and the
/// `next_iteration`'s in later ones, a `loop_cond` feeds the Switches that send each loop
/// variable to the body (true) or to an `exit_op` (false), which hands it back to the
/// enclosing frame. Up to `parallel_iterations` iterations run at once; a loop invariant
/// (`is_constant`) reaches every iteration. Graphs TensorFlow writes with
/// `tf.compat.v1.while_loop` (control flow v1) import and run, their loop gradients too (the
/// Stack ops); `while_loop` builds such loops, and `gradients` differentiates through them
/// with TensorFlow's gradient loops (see docs/control-flow.md).
namespace af {

/// The two outputs of a Switch: `output_false` carries the data when the predicate is
/// false, `output_true` when it is true; the other one is dead.
struct SwitchOutputs {
  Output output_false;  ///< output 0
  Output output_true;   ///< output 1
};

/// The two outputs of a Merge.
struct MergeOutputs {
  Output output;       ///< the live input's value
  Output value_index;  ///< int32 scalar: which input was live
};

/// `tf.raw_ops.Switch` (default name "Switch"): RefSwitch when `data` is a reference (a
/// VariableV2's output), so that the outputs stay references, as `_SwitchRefOrTensor`.
/// `pred` must be a bool scalar: a known rank above 0 throws "Shape must be rank 0 but is
/// rank 1"; at run time a non-scalar fails with "The second input must be a scalar, but it
/// has shape [2]".
SwitchOutputs switch_op(const Output& data, const Output& pred, std::string_view name = {});

/// `tf.raw_ops.Merge` (default name "Merge"): RefMerge when every input is a reference.
/// The inputs share one dtype (InvalidArgumentError otherwise); the output's static shape
/// is the inputs' where they agree (dimensions that differ unknown, the rank unknown where
/// ranks differ).
MergeOutputs merge(const std::vector<Output>& inputs, std::string_view name = {});

/// `tf.raw_ops.ControlTrigger` (default name "ControlTrigger"): a no-op that is never dead,
/// whatever its control inputs.
Operation control_trigger(Graph& g, std::string_view name = {});

/// `tf.raw_ops.Enter` (default name "Enter"; a RefEnter, default name "RefEnter", when `data`
/// is a reference): makes
/// `data` known in the child frame `frame_name`, in iteration 0, or, with `is_constant`, in
/// every iteration (a loop invariant). `parallel_iterations` (at least 1) bounds the
/// iterations of the frame that run at once; every Enter of a frame should agree.
Output enter(const Output& data, const std::string& frame_name, bool is_constant = false,
             int parallel_iterations = 10, std::string_view name = {});

/// `tf.raw_ops.Exit` (default name "Exit"; RefExit for a reference): hands `data` from a
/// loop's frame back to the frame it was entered from. Only a live Exit passes a value on;
/// the Exits of a loop that never ran (a dead Enter) are dead in the enclosing frame.
Output exit_op(const Output& data, std::string_view name = {});

/// `tf.raw_ops.NextIteration` (default name "NextIteration"; RefNextIteration for a
/// reference): makes `data` the input of the next iteration of its frame, where it reaches
/// the loop's Merge (made before it, with `Graph::update_input` giving the Merge this back
/// edge). A dead NextIteration ends the loop's iterations.
Output next_iteration(const Output& data, std::string_view name = {});

/// `tf.raw_ops.LoopCond` (default name "LoopCond"): forwards the bool scalar `pred` that
/// decides whether the loop runs another iteration; the loop's Switches take it.
Output loop_cond(const Output& pred, std::string_view name = {});

struct WhileContext;

/// A cond branch or while loop being built (TensorFlow's `ControlFlowContext`): ops created
/// while it is the graph's current context (`Graph::control_flow_context`) take the tensors
/// they use from outside it through a Switch (a branch) or an Enter (a loop), one per
/// tensor, and ops without inputs wait on its pivot. Contexts nest through `outer`.
struct ControlFlowContext {
  virtual ~ControlFlowContext() = default;
  std::shared_ptr<ControlFlowContext> outer;  ///< the context this one was built in, or null
  /// Names of the tensors known in the context: its ops' outputs and the Switches or Enters
  /// made for it.
  std::set<std::string> values;
  /// A tensor from outside (by name) -> the Switch or Enter output standing for it inside.
  std::unordered_map<std::string, Output> external;
  /// The loop this context is or is nested in (TensorFlow's `GetWhileContext`); null
  /// outside every loop.
  virtual const WhileContext* while_context() const {
    return outer ? outer->while_context() : nullptr;
  }
  /// The output ops without inputs wait on; invalid while a loop builds its condition's
  /// first op.
  virtual Output control_pivot() const = 0;
};

/// A branch of a cond being built (TensorFlow's `CondContext`).
struct CondBranch : ControlFlowContext {
  Output pred;     ///< the cond's "pred_id"
  Output pivot;    ///< "switch_t" (true branch) or "switch_f"
  int branch = 0;  ///< 1 for the true branch, 0 for the false one
  /// The pivot.
  Output control_pivot() const override { return pivot; }
};

/// A while loop being built or built (TensorFlow's `WhileContext`): its frame and the ops
/// that gradients and nested contexts need.
struct WhileContext : ControlFlowContext {
  std::string frame_name;           ///< "while/while_context": every Enter's `frame_name`
  int parallel_iterations = 10;     ///< every Enter's `parallel_iterations`
  bool back_prop = true;            ///< whether gradients may flow through the loop
  Output maximum_iterations;        ///< the bound given to `while_loop`, or invalid
  Output pivot_for_pred;            ///< the first Merge: what the condition's ops wait on
  Output pivot_for_body;            ///< the first Identity: what the body's ops wait on
  Output pivot;                     ///< the LoopCond
  std::vector<Output> loop_enters;  ///< one Enter per loop variable
  std::vector<Output> loop_exits;   ///< one Exit per loop variable
  /// Itself.
  const WhileContext* while_context() const override { return this; }
  /// `pivot_for_body` once the body is being built, else `pivot_for_pred`.
  Output control_pivot() const override {
    return pivot_for_body.valid() ? pivot_for_body : pivot_for_pred;
  }
};

/// The condition of a `while_loop`: given the loop variables, a bool scalar.
using LoopCondition = std::function<Output(const std::vector<Output>&)>;
/// The body of a `while_loop`: given the loop variables, their values for the next iteration.
using LoopBody = std::function<std::vector<Output>(const std::vector<Output>&)>;

/// `tf.compat.v1.while_loop`'s keyword arguments.
struct WhileOptions {
  /// One shape per loop variable that its values keep in every iteration (a variable whose
  /// shape changes needs a less specific one, such as `{-1}`); empty: each variable's
  /// initial shape.
  std::vector<PartialShape> shape_invariants;
  /// How many iterations may run at once (at least 1).
  int parallel_iterations = 10;
  /// Whether gradients may flow through the loop (kept on the WhileContext).
  bool back_prop = true;
  /// An upper bound on the number of iterations: a constant "maximum_iterations" of int32
  /// (int64 when it does not fit), as a Python int becomes.
  std::optional<std::int64_t> maximum_iterations;
  /// The same bound as an integer scalar tensor; at most one of the two may be set.
  Output maximum_iterations_tensor;
  /// The name scope of the loop's ops (made unique: "while", "while_1", ...).
  std::string name = "while";
};

/// `tf.compat.v1.while_loop(cond, body, loop_vars)` with control flow v1: repeats `body`
/// while `cond` holds and returns the loop variables' final values (one Exit each). Builds
/// the graph TensorFlow builds, with its names: Enters "while/Enter", ... in the frame
/// "while/while_context", Merges, "while/LoopCond", Switches, Identities (what `cond` and
/// `body` get), NextIterations, Exits; a tensor from outside the loop that its ops use enters
/// through an Enter "<op>/Enter" marked `is_constant`; ops without inputs, and ops that use
/// only such invariants, wait on the loop's pivot. With a maximum, an int counter
/// "while/iteration_counter" runs as a hidden first loop variable. Loops nest, and nest in
/// and around `cond`. Throws InvalidArgumentError with TensorFlow's messages: no loop
/// variables ("'loop_vars' must be provided."), `parallel_iterations` below 1, a condition
/// that is not a bool scalar, a body returning another number of tensors or a value of
/// another dtype, a shape beyond its invariant ("Input tensor 'x:0' enters the loop with
/// shape (), but has shape (2,) after one iteration. ..."), an invariant the initial value
/// does not fit, a non-scalar maximum. Ops built inside are not fetchable, their tensors not
/// feedable; the returned Exits are (TensorFlow's prevent_fetching).
std::vector<Output> while_loop(const LoopCondition& cond, const LoopBody& body,
                               const std::vector<Output>& loop_vars,
                               const WhileOptions& options = {});
/// `while_loop` with one loop variable.
Output while_loop(const std::function<Output(const Output&)>& cond,
                  const std::function<Output(const Output&)>& body, const Output& loop_var,
                  const WhileOptions& options = {});

/// `tf.compat.v1.cond(pred, true_fn, false_fn)` (default name "cond"): runs the ops of
/// `true_fn` when the bool scalar `pred` is true, those of `false_fn` otherwise, and returns
/// one "cond/Merge" per output. Both branches must return as many tensors, of the same
/// dtypes (InvalidArgumentError "Outputs of true_fn and false_fn must have the same type(s)"
/// otherwise), and at least one ("true_fn must have a return value."). A returned tensor
/// from outside the branch goes through a Switch of its own, as in TensorFlow.
std::vector<Output> cond(const Output& pred, const std::function<std::vector<Output>()>& true_fn,
                         const std::function<std::vector<Output>()>& false_fn,
                         std::string_view name = "cond");
/// `cond` with one output per branch.
Output cond(const Output& pred, const std::function<Output()>& true_fn,
            const std::function<Output()>& false_fn, std::string_view name = "cond");

}  // namespace af
