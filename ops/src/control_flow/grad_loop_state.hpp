// Gradients through while loops: TensorFlow 1.x's _GradLoopState and _ControlFlowState
// (control_flow_state.py) and the gradient-side methods of its WhileContext
// (AddForwardLoopCounter, AddBackpropLoopCounter, AddBackpropAccumulator).
//
// For each loop between the ys and the xs the walk builds a *gradient loop*: a second frame
// "gradients/<loop>/while_context" that runs as many iterations as the forward loop did
// (a counter "f_count" added to the forward loop, counted down by "b_count"), in reverse.
// A forward value a gradient needs is pushed on a stack (StackV2 "f_acc", StackPushV2 in the
// forward loop) and popped (StackPopV2) in the gradient loop; a loop invariant's gradient is
// summed over the iterations by an accumulator loop variable ("b_acc"). Pushes keep the
// iteration order through control edges to the forward counter, pops through "b_sync".
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "context_access.hpp"

namespace af::detail {

struct GradLoopState;

/// The while context of a loop's gradient (TensorFlow's WhileContext with a grad_state).
struct GradWhileContext : WhileContext {
  /// The state building it; null once the `gradients` call that built it has returned.
  GradLoopState* grad_state = nullptr;
};

/// The innermost while context around the graph's current context when it is a gradient
/// loop's, else null.
std::shared_ptr<GradWhileContext> current_grad_context(Graph& g);

/// WhileContext.AddBackpropAccumulator: the gradient of the loop invariant `enter_op` (an
/// Enter with is_constant), `grad` summed over the iterations of the gradient loop `loop`
/// by a loop variable "b_acc"; returns its Exit.
Output add_backprop_accumulator(Graph& g, const std::shared_ptr<GradWhileContext>& loop,
                                const Operation& enter_op, const Output& grad);

/// The hook of WhileContext.AddValue while a gradient loop is being built: `val`'s value in
/// the current gradient iteration when it is a value of the loop being differentiated
/// (GetRealValue), else nullopt.
std::optional<Output> grad_loop_value(Graph& g, const Output& val);

/// The state of one forward loop's gradient (TensorFlow's _GradLoopState).
struct GradLoopState {
  /// Builds the forward loop's counter and the gradient loop with its counter, in the
  /// context `base` around them (null: the top level) or the outer loop's gradient loop.
  GradLoopState(Graph& g, std::shared_ptr<WhileContext> forward, GradLoopState* outer,
                std::shared_ptr<ControlFlowContext> base);
  /// Detaches the gradient loop's context, which outlives the `gradients` call.
  ~GradLoopState();
  GradLoopState(const GradLoopState&) = delete;
  GradLoopState& operator=(const GradLoopState&) = delete;

  Graph& g;
  GradLoopState* outer_grad_state;
  std::shared_ptr<WhileContext> forward_context;
  std::shared_ptr<ControlFlowContext> base;  ///< where gradients() was called
  Output forward_index;                      ///< the forward counter's NextIteration
  std::shared_ptr<GradWhileContext> grad_context;
  Output grad_index;  ///< the gradient loop counter's NextIteration
  /// Forward tensors (by name) -> their values in the gradient loop.
  std::unordered_map<std::string, Output> history_map;
  /// A forward loop's Switch -> the gradient loop's Merge "b_switch" made for it.
  std::unordered_map<const Node*, Output> switch_map;
  std::vector<Output> unused_exits;
  std::vector<Output> deferred_exits;
  std::vector<Output> forward_loop_exits;
  int pending_exits_count = 0;

  /// The ControlTrigger "f_sync" ordering pushes made in a cond of the forward loop.
  Node* forward_sync();
  /// The ControlTrigger "b_sync" ordering the pops of one gradient iteration.
  Node* grad_sync();
  /// A stack "f_acc" holding `value` of every forward iteration (pushed in the forward
  /// loop, or in the cond branch `value` is in).
  Output add_forward_accumulator(const Output& value, bool dead_branch = false);
  /// The pop of `history` in the gradient loop, guarded by the cond `value` is in.
  Output add_backprop_accumulated_value(const Output& history, const Output& value,
                                        bool dead_branch = false);
  /// TensorFlow's GetRealValue: the value of the forward tensor `value` in the current
  /// gradient iteration (a loop invariant's outside value, a constant's copy, or a pop).
  Output get_real_value(const Output& value);

 private:
  Node* forward_sync_ = nullptr;
  Node* grad_sync_ = nullptr;
};

/// The gradient loops of one `gradients` call (TensorFlow's _ControlFlowState).
class ControlFlowState {
 public:
  explicit ControlFlowState(Graph& g) : g_(g), base_(g.current_control_flow_context()) {}

  /// The gradient loop state of the loop `op` is in (an Exit's, `before` its gradient, is
  /// its outer loop's), or null.
  GradLoopState* grad_state(const Node* op, bool before) const;
  /// MaybeCreateControlFlowState: a state for the loop of every Exit in `between_list`; the
  /// loops' other Exits join the between ops. Null when there is none.
  static std::unique_ptr<ControlFlowState> create(Graph& g, std::vector<Node*>& between_list,
                                                  std::unordered_set<const Node*>& between);
  /// ProcessUnusedLoopExits: the Exits without a gradient whose loops have one.
  std::vector<Output> process_unused_loop_exits(std::unordered_map<const Node*, int>& pending,
                                                const std::unordered_set<const Node*>& to_ops);
  /// Makes `op`'s gradient loop the graph's current context while the guard lives.
  [[nodiscard]] ScopeGuard enter_grad_context(const Node* op, bool before) const;
  /// ZerosLikeForExit: zeros for an Exit without a gradient.
  Output zeros_like_for_exit(const Output& val);
  /// ZerosLikeV1WhileLoop: zeros for output `index` of `op` (invalid for a loop's Switch).
  Output zeros_like(const Operation& op, int index);
  /// PostProcessing: a loop variable whose gradient never came round gets zeros.
  void post_processing();

 private:
  void add_while_context(Node* exit, std::vector<Node*>& between_list,
                         std::unordered_set<const Node*>& between);
  Graph& g_;
  std::shared_ptr<ControlFlowContext> base_;
  std::map<const WhileContext*, std::unique_ptr<GradLoopState>> map_;
};

/// TensorFlow's IsLoopSwitch: a Switch of a loop (not a cond's, nor a cond's inside a loop).
bool is_loop_switch(const Node* op);

}  // namespace af::detail
