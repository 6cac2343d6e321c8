#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/indexed_slices.hpp"

namespace af {

/// Options of `gradients` (the keyword arguments of `tf.gradients`).
struct GradientsOptions {
  /// Tensors held constant: the walk does not go through their ops
  /// (`tf.gradients(stop_gradients=...)`).
  std::vector<Output> stop_gradients;
  /// Builds each op's gradient colocated with the op (`colocate_gradients_with_ops`), so a
  /// gradient is computed on the device (or ps task) of its forward op.
  bool colocate_gradients_with_ops = false;
  /// Wraps each op's input gradients in `tuple()` (Identity ops `.../tuple/control_dependency`
  /// that wait for all of them), as `Optimizer.compute_gradients` asks with GATE_OP.
  bool gate_gradients = false;
  /// What an x not connected to the ys gets: an invalid Output (TensorFlow's None), or
  /// zeros of x's shape (`unconnected_gradients='zero'`).
  bool unconnected_zero = false;
  /// The name scope of the backward graph: "gradients", then "gradients_1", ...
  std::string name = "gradients";
};

/// Builds the symbolic derivatives of `sum(ys)` with respect to each of `xs`
/// (`tf.gradients`): TensorFlow 1.x's reverse-mode walk over the ops between `xs` and `ys`.
///
/// `grad_ys` (empty, or one entry per y, an invalid Output meaning "ones") weights each y;
/// the default is ones of y's shape (a Fill named `grad_ys_<i>`). Gradients of an output
/// consumed several times are summed with AddN. Each op's gradient is built under
/// `<name>/<op name>_grad/`. Returns one entry per x: the gradient, or an invalid Output when
/// x does not reach any y (see `unconnected_zero`). An x may be a variable's value or its
/// reference output (`Variable::ref()`), as `Optimizer.compute_gradients` passes it.
///
/// Gradients flow through conds and through loops built by `while_loop`: each loop gets
/// TensorFlow's gradient loop ("gradients/<loop>/while_context"), which runs as many
/// iterations as the loop did, in reverse, reading each iteration's values from stacks
/// (StackV2 "f_acc", pushed in the loop, popped in the gradient loop); a loop invariant's
/// gradient is summed over the iterations. A dense gradient takes its input's static shape.
///
/// Throws NotFoundError (TensorFlow's LookupError) "No gradient defined for operation 'n' (op type:
/// T)" when the walk meets an op without a registered gradient, and InvalidArgumentError for
/// xs or ys from another graph or a y of a dtype that cannot be differentiated, or a
/// gradient whose shape does not fit its input ("Incompatible shapes between op input and
/// calculated input gradient"); UnimplementedError for a loop imported without its
/// WhileContext (not built by `while_loop`) between the xs and the ys.
std::vector<Output> gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys = {},
                              const GradientsOptions& options = {});

/// The gradients as `tf.gradients` returns them: as `gradients`, except that an x whose
/// gradient is IndexedSlices gets them, not a dense tensor. Slices come from GatherV2 on a
/// constant axis 0, ResourceGather and (Resource)GatherNd by one index per row, and pass
/// through Identity, ReadVariableOp and Cast. Several gradients of one tensor that
/// are all IndexedSlices are concatenated (`_AggregateIndexedSlicesGradients`: duplicate rows
/// kept), never summed densely; with a dense one among them all are densified and summed, as
/// TensorFlow 2's tf.compat.v1 does. Any other op's gradient function sees its output
/// gradients dense (`to_dense`, with TensorFlow's warning above 100,000,000 elements).
std::vector<Gradient> gradients_with_slices(const std::vector<Output>& ys,
                                            const std::vector<Output>& xs,
                                            const std::vector<Output>& grad_ys = {},
                                            const GradientsOptions& options = {});

/// The gradient of one y with respect to one x (`tf.gradients(y, x)[0]`); an invalid Output
/// when x does not reach y.
Output gradient(const Output& y, const Output& x, const GradientsOptions& options = {});

/// `control_flow_ops.tuple(tensors, control_inputs=...)` as the gradient gates build it: one
/// NoOp `tuple/group_deps` runs after `gating` (taken in creation order), and each valid entry
/// of `tensors` is replaced by an Identity `tuple/control_dependency` of it (colocated with
/// its producer) that runs after that NoOp; IndexedSlices wait through their values. Invalid
/// entries stay invalid; with `gating` empty `tensors` come back unchanged.
std::vector<Gradient> tuple_after(Graph& g, std::vector<Gradient> tensors,
                                  std::vector<Operation> gating);

/// A gradient function: given the forward op and the gradient of each of its outputs (an
/// invalid Output where an output has none), returns one gradient per input of the op (an
/// invalid Output for inputs without one, such as axes and shapes). Runs inside the op's
/// `_grad` name scope; creates nodes in the op's graph.
using GradientFunction =
    std::function<std::vector<Output>(const Operation& op, const std::vector<Output>& grads)>;

/// A gradient function that takes and gives IndexedSlices where they occur (Identity, Cast,
/// GatherV2): as GradientFunction, with `Gradient`s in place of Outputs. An op registered
/// with one gets its output gradients as the walk has them, slices included.
using SparseGradientFunction =
    std::function<std::vector<Gradient>(const Operation& op, const std::vector<Gradient>& grads)>;

/// Gradient functions by op type (TensorFlow's `ops.RegisterGradient` table), beside the op
/// and kernel registries. Thread-safe; the standard gradients register on first use.
class GradientRegistry {
 public:
  /// The process-wide registry, created (with the standard gradients) on first use.
  static GradientRegistry& global();

  /// Registers `fn` for op `type` (replacing an earlier one).
  void add(const std::string& type, GradientFunction fn);
  /// Registers `fn` for op `type`, replacing an earlier function of either kind.
  void add_sparse(const std::string& type, SparseGradientFunction fn);
  /// The slice-aware function of `type`, or null.
  const SparseGradientFunction* find_sparse(const std::string& type) const;
  /// Marks `type` as not differentiable (`ops.NotDifferentiable`): its inputs get no gradient.
  void add_not_differentiable(const std::string& type);
  /// True when `type` has an entry (a function or "not differentiable").
  bool contains(const std::string& type) const;
  /// The function of `type`: null when not differentiable, unknown (see `contains`) or
  /// registered with `add_sparse` (see `find_sparse`).
  const GradientFunction* find(const std::string& type) const;
  /// The op types with an entry.
  std::vector<std::string> types() const;

 private:
  GradientRegistry() = default;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<GradientFunction>> functions_;
  std::map<std::string, std::shared_ptr<SparseGradientFunction>> sparse_functions_;
};

/// Registers the standard gradient functions (called once by `GradientRegistry::global()`).
void register_standard_gradients(GradientRegistry& r);

}  // namespace af
