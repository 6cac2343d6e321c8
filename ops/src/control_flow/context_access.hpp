// The building blocks `cond` and `while_loop` share (TensorFlow's ControlFlowContext in
// control_flow_ops.py): what a context does with the ops created in it and with the
// tensors they take from outside. Defined in context.cpp, context_defs.cpp (contexts read
// from a MetaGraphDef), cond_context.cpp (a branch's Switches) and while_context.cpp (a
// loop's Enters).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/control_flow_ops.hpp"

namespace af::detail {

/// Helpers with access to the graph's control-flow bookkeeping; they run on the thread
/// building the graph.
struct ControlFlowAccess {
  // -- context.cpp ------------------------------------------------------------------------

  /// The context `op` was built in, or null (read without the graph's lock).
  static const ControlFlowContext* context_of(const Graph& g, const Node* op);
  /// TensorFlow's GetOutputContext: the context `op`'s outputs live in (an Exit's are in the
  /// loop's outer context).
  static const ControlFlowContext* output_context(const Graph& g, const Node* op);
  /// TensorFlow's AddValue: the tensor standing for `val` inside `context` (a Switch output
  /// in a branch, an Enter in a loop), made in the current name scope when new.
  static Output add_value(Graph& g, const std::shared_ptr<ControlFlowContext>& context,
                          const Output& val);
  /// Records `op` as built in `context`: its outputs (only output `only_output` when it is
  /// not -1: a branch's input Switch, as CondContext.AddValue) join the context's values
  /// (and, for a branch, the outer contexts'); it becomes unfetchable (a top-level loop's
  /// Exit excepted), and a loop's tensors unfeedable.
  static void record(Graph& g, const std::shared_ptr<ControlFlowContext>& context, Node* op,
                     int only_output = -1);
  /// Gives `op` exactly the control inputs `controls` (in order, without repeats).
  static void set_control_inputs(Graph& g, Node* op, const std::vector<Node*>& controls);
  /// The control inputs the control_dependencies scopes give an op reading `inputs`.
  static std::vector<Node*> control_stack_inputs(const Graph& g, const std::vector<Output>& inputs);
  /// Marks `op` as created inside every open control_dependencies scope (TensorFlow's
  /// _record_op_seen_by_control_dependencies), so that its consumers are not given them again.
  static void mark_seen_by_control_scopes(Graph& g, const Node* op);
  /// TensorFlow's WhileContext._FixControlInputsAndContext for an Enter of `loop` reading
  /// `input`: the control inputs of the open scopes that stay (those in a context around the
  /// loop but inside its enclosing loop).
  static std::vector<Node*> enter_control_inputs(const Graph& g, const WhileContext& loop,
                                                 const Output& input);

  // -- context_defs.cpp ---------------------------------------------------------------------

  /// Every context of `g` that holds an op, outer contexts before the ones nested in them,
  /// otherwise in the order of their first ops.
  static std::vector<std::shared_ptr<ControlFlowContext>> contexts_in_order(const Graph& g);
  /// Puts `op` (imported) in `context`, changing nothing else about it.
  static void set_context(Graph& g, Node* op, const std::shared_ptr<ControlFlowContext>& context);
  /// Sets the `frame_name` attribute of the Enter `op`.
  static void set_frame_name(Graph& g, Node* op, const std::string& frame_name);

  // -- cond_context.cpp ---------------------------------------------------------------------

  /// CondContext.AddValue (`as_result` false) and _ProcessOutputTensor (`as_result`).
  static Output cond_add_value(Graph& g, const std::shared_ptr<CondBranch>& branch,
                               const Output& val, bool as_result);

  // -- while_context.cpp --------------------------------------------------------------------

  /// WhileContext.AddValue: a loop invariant Enter (is_constant) "<scope>/Enter".
  static Output while_add_value(Graph& g, const std::shared_ptr<WhileContext>& loop,
                                const Output& val);
};

/// True for Switch and RefSwitch.
bool is_switch(const Node* n);
/// True for Enter and RefEnter.
bool is_enter(const Node* n);
/// True for Exit and RefExit.
bool is_exit(const Node* n);
/// True for an Enter of a loop invariant (`is_constant`).
bool is_loop_constant_enter(const Node* n);
/// TensorFlow's IsContainingContext: whether `inner` is `outer` or nested in it (everything
/// is nested in null).
bool context_contains(const ControlFlowContext* outer, const ControlFlowContext* inner);

}  // namespace af::detail
