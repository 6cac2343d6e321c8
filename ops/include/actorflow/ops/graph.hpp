#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_slice.hpp"

namespace af {

/// A dataflow graph (below).
class Graph;
/// A node of a graph (below).
class Node;
/// A node handle (below).
class Operation;
/// A cond branch or while loop being built (control_flow_ops.hpp).
struct ControlFlowContext;
/// A branch of a cond being built (control_flow_ops.hpp).
struct CondBranch;
namespace detail {
struct ControlFlowAccess;
}  // namespace detail

/// The `index`-th output of a node (TensorFlow's `Tensor` in the Python graph API).
class Output {
 public:
  /// An invalid output (`valid()` is false); the accessors below need a valid one.
  Output() = default;
  /// Output `index` of `node` (not checked).
  Output(Node* node, int index) : node_(node), index_(index) {}

  /// The producing node (null when invalid).
  Node* node() const noexcept { return node_; }
  /// The output's index in its node.
  int index() const noexcept { return index_; }
  /// True when the output refers to a node.
  bool valid() const noexcept { return node_ != nullptr; }
  /// The graph of the node.
  Graph& graph() const;
  /// The producing operation.
  Operation op() const;
  /// `"mul:0"`.
  std::string name() const;
  /// The inferred dtype.
  DType dtype() const;
  /// The statically inferred shape.
  const PartialShape& shape() const;

  /// Same node and index.
  friend bool operator==(const Output&, const Output&) = default;
  /// Orders by node creation, then index (for maps and sets).
  friend bool operator<(const Output& a, const Output& b);

 private:
  Node* node_ = nullptr;
  int index_ = 0;
};

/// A node of the graph (TensorFlow's `Operation`): a cheap handle.
class Operation {
 public:
  /// An invalid operation (`valid()` is false); the accessors below need a valid one.
  Operation() = default;
  /// The operation of `node`.
  explicit Operation(Node* node) : node_(node) {}
  /// The operation producing `out`.
  Operation(const Output& out) : node_(out.node()) {}  // NOLINT: ops taking targets accept both

  /// The node (null when invalid).
  Node* node() const noexcept { return node_; }
  /// True when the operation refers to a node.
  bool valid() const noexcept { return node_ != nullptr; }
  /// The node's unique name.
  const std::string& name() const;
  /// The op type (`"MatMul"`).
  const std::string& type() const;
  /// The requested device (possibly partial), as TensorFlow's `op.device`.
  const std::string& device() const;
  /// The node as data (name, op, inputs, device, attrs).
  const NodeDef& node_def() const;
  /// The number of outputs.
  int num_outputs() const;
  /// Output `i` (not checked).
  Output output(int i) const { return Output(node_, i); }
  /// The graph owning the node.
  Graph& graph() const;

  /// Same node.
  friend bool operator==(const Operation&, const Operation&) = default;

 private:
  Node* node_ = nullptr;
};

/// A node with its inferred output types and shapes. Owned by its Graph; immutable once
/// created (except for the graph's bookkeeping).
class Node {
 public:
  /// The node's index in creation order.
  int id() const noexcept { return id_; }
  /// The unique node name.
  const std::string& name() const noexcept { return def_.name; }
  /// The op type.
  const std::string& type() const noexcept { return def_.op; }
  /// The node as data (after scopes were applied).
  const NodeDef& def() const noexcept { return def_; }
  /// The data inputs, in order.
  const std::vector<Output>& inputs() const noexcept { return inputs_; }
  /// The nodes this one runs after.
  const std::vector<Node*>& control_inputs() const noexcept { return control_inputs_; }
  /// The inferred output dtypes.
  const std::vector<DType>& output_types() const noexcept { return output_types_; }
  /// The inferred output shapes.
  const std::vector<PartialShape>& output_shapes() const noexcept { return output_shapes_; }
  /// True when output `i` is a reference to a resource (TensorFlow's `float32_ref`).
  bool output_is_ref(int i) const { return output_is_ref_.at(static_cast<std::size_t>(i)); }
  /// True when input `i` expects a reference; throws std::out_of_range for a bad `i`.
  bool input_is_ref(int i) const { return input_is_ref_.at(static_cast<std::size_t>(i)); }
  /// The shape of the variable behind resource output `i` (TensorFlow's handle data, set by
  /// VarHandleOp and passed on by Identity); unknown for other outputs or a bad `i`.
  PartialShape output_handle_shape(int i) const;
  /// The number of outputs.
  int num_outputs() const noexcept { return static_cast<int>(output_types_.size()); }
  /// False when a session may not fetch the node or run it as a target
  /// (`Graph::prevent_fetching`: the ops of a cond branch or while loop built here).
  bool fetchable() const noexcept { return fetchable_; }
  /// False when a session may not feed output `i` (`Graph::prevent_feeding`).
  bool feedable(int i) const noexcept {
    return i < 0 || static_cast<std::size_t>(i) >= not_feedable_.size() ||
           !not_feedable_[static_cast<std::size_t>(i)];
  }
  /// The owning graph.
  Graph& graph() const noexcept { return *graph_; }
  /// Names of the nodes this node must be colocated with (from `_class = ["loc:@x"]`).
  std::vector<std::string> colocation_names() const;

 private:
  friend class Graph;
  friend struct detail::ControlFlowAccess;  // a context's control inputs and marks
  Graph* graph_ = nullptr;
  int id_ = 0;
  NodeDef def_;
  std::vector<Output> inputs_;
  std::vector<Node*> control_inputs_;
  std::vector<DType> output_types_;
  std::vector<PartialShape> output_shapes_;
  std::vector<bool> output_is_ref_;
  std::vector<bool> input_is_ref_;
  std::vector<PartialShape> output_handle_shapes_;
  bool fetchable_ = true;
  std::vector<bool> not_feedable_;
};

/// A device function: given the node being created, returns the device to request.
using DeviceFunction = std::function<std::string(const NodeDef&)>;

/// RAII guard restoring a Graph scope stack on destruction (Python's `with` block).
class ScopeGuard {
 public:
  /// A guard that does nothing.
  ScopeGuard() = default;
  /// Runs `on_exit` on destruction.
  explicit ScopeGuard(std::function<void()> on_exit) : on_exit_(std::move(on_exit)) {}
  /// Takes over `other`'s exit action (it then does nothing).
  ScopeGuard(ScopeGuard&& other) noexcept : on_exit_(std::exchange(other.on_exit_, nullptr)) {}
  ScopeGuard& operator=(ScopeGuard&&) = delete;
  ScopeGuard(const ScopeGuard&) = delete;
  /// Runs the exit action, if any.
  ~ScopeGuard() {
    if (on_exit_) on_exit_();
  }

 private:
  std::function<void()> on_exit_;
};

/// Options for creating a variable (`tf.Variable` keyword arguments).
struct VariableOptions {
  /// The variable's name (made unique under the name scope).
  std::string name = "Variable";
  /// Whether the variable joins TRAINABLE_VARIABLES.
  bool trainable = true;
  /// When set, the variable's static shape; default: the initial value's shape.
  std::optional<PartialShape> shape;
  /// Storage dtype; default: the initial value's dtype.
  std::optional<DType> dtype;
  /// Resource sharing name (default: the node name).
  std::string shared_name;
  /// The collections the variable joins (`tf.Variable(collections=...)`): absent, only
  /// GLOBAL_VARIABLES (kGlobalVariables); a local variable passes `{kLocalVariables}`. As
  /// in TensorFlow, a `trainable` variable also joins TRAINABLE_VARIABLES either way.
  std::optional<std::vector<std::string>> collections;
  /// For a part of a partitioned variable: where it sits in the full variable, which a
  /// Saver saves it as a slice of (`Variable._set_save_slice_info`).
  std::optional<SaveSliceInfo> save_slice_info;
  /// A resource variable (`tf.Variable(use_resource=True)`, what TensorFlow 2's
  /// `tf.compat.v1` makes by default): a VarHandleOp `<name>`, its initializer the
  /// AssignVariableOp `<name>/Assign`, its value the ReadVariableOp `<name>/Read/ReadVariableOp`,
  /// all colocated with the handle. The optimizers update it with the Resource* ops. Default: a
  /// reference variable (VariableV2, `<name>/Assign`, `<name>/read`), as TensorFlow 1.x.
  bool use_resource = false;
};

/// A variable (below).
class Variable;

/// A dataflow graph under construction (TensorFlow's `tf.Graph`).
///
/// Creating nodes runs shape inference at once, so malformed graphs fail at construction
/// time with InvalidArgumentError, as in TensorFlow. Scope methods (`device`,
/// `control_dependencies`, `name_scope`, `colocate_with`, `container`) return guards that
/// pop the scope when they go out of scope. Building a graph is meant for one thread at a
/// time; sessions read it under the graph's lock while running.
class Graph {
 public:
  /// An empty graph with no seed.
  Graph();
  /// Destroys the nodes: every Output, Operation and Variable of the graph dangles, and no
  /// session may use it any more.
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // -- generic node creation ---------------------------------------------------

  /// Adds a node of op `type`. Applies the current name scope (`name` made unique),
  /// control dependencies, device functions, colocation and container scopes, then infers
  /// output types and shapes. Throws InvalidArgumentError (naming the node) when inference
  /// fails or `type` is unknown.
  Operation create_op(const std::string& type, const std::vector<Output>& inputs,
                      AttrMap attrs = {}, std::string_view name = {},
                      const std::vector<Operation>& control_inputs = {});

  /// Adds a node exactly as described (import); the name must be unique and inputs must
  /// exist. Scopes are not applied.
  Operation add_node_def(const NodeDef& def);

  /// Makes input `index` of `op` read `value` instead (TensorFlow's `Operation._update_input`):
  /// how a while loop's Merge, built before its NextIteration, gets its back edge. The node's
  /// NodeDef follows; its inferred shapes do not change. Throws InvalidArgumentError when
  /// `index` is out of range, when `value` belongs to another graph, or when its dtype differs
  /// from the input's ("Input 1 of node while/Merge was passed int32 from x:0 incompatible
  /// with expected float").
  void update_input(const Operation& op, int index, const Output& value);

  /// Refines the static shape of `t` (Python's `Tensor.set_shape`): merges `shape` into the
  /// inferred one. Throws InvalidArgumentError when they are incompatible ("Shapes (2,) and
  /// (3,) are incompatible"). Consumers made before keep the shape they saw.
  void set_shape(const Output& t, const PartialShape& shape);
  /// Marks `op` as not fetchable (`tf.Graph.prevent_fetching`): a session run that fetches
  /// it, or runs it as a target, fails with InvalidArgumentError "Operation x has been
  /// marked as not fetchable". `cond` and `while_loop` mark the ops they build inside a
  /// branch or loop (a top-level loop's Exits stay fetchable).
  void prevent_fetching(const Operation& op);
  /// Marks `t` as not feedable (`tf.Graph.prevent_feeding`): a session run feeding it fails
  /// with InvalidArgumentError "Tensor x:0 may not be fed." `while_loop` marks the tensors
  /// of its loop.
  void prevent_feeding(const Output& t);

  // -- lookup --------------------------------------------------------------------

  /// The operation named `name`; throws NotFoundError otherwise.
  Operation operation(std::string_view name) const;
  /// Whether the graph has an operation named `name`.
  bool contains(std::string_view name) const;
  /// The output `"name:i"` (or `"name"` for output 0); throws NotFoundError otherwise.
  Output output(std::string_view name) const;
  /// All nodes in creation order.
  std::vector<Node*> nodes() const;
  /// All nodes in creation order; the caller holds `mutex()`.
  std::vector<Node*> nodes_locked() const;
  /// The number of nodes (takes the graph's lock).
  int num_nodes() const;
  /// A counter bumped by every node creation.
  std::uint64_t version() const noexcept { return version_; }

  // -- scopes ----------------------------------------------------------------------

  /// Pins nodes created in the scope to `spec`, merged into enclosing device scopes as
  /// TensorFlow merges them (inner fields win, unset fields are inherited).
  [[nodiscard]] ScopeGuard device(std::string_view spec);
  /// Calls `fn` for every node created in the scope; its result is merged with enclosing
  /// device scopes.
  [[nodiscard]] ScopeGuard device(DeviceFunction fn);
  /// Clears enclosing device scopes (Python's `tf.device(None)`).
  [[nodiscard]] ScopeGuard device(std::nullptr_t);

  /// Nodes created in the scope run only after `deps` (TensorFlow's control_dependencies).
  [[nodiscard]] ScopeGuard control_dependencies(const std::vector<Operation>& deps);
  /// Prefixes names created in the scope with `name/`.
  [[nodiscard]] ScopeGuard name_scope(std::string_view name);
  /// Colocates nodes created in the scope with `op`.
  [[nodiscard]] ScopeGuard colocate_with(const Operation& op);
  /// Stateful ops created in the scope keep their resources in `container`.
  [[nodiscard]] ScopeGuard container(std::string_view name);
  /// Ops created in the scope belong to the control-flow context `context` (TensorFlow's
  /// control-flow context; `cond` and `while_loop` in control_flow_ops.hpp set it):
  /// `create_op` routes the tensors they use from outside it through Switches (a cond
  /// branch) or Enters (a loop), and makes ops without inputs wait on its pivot. Null: outside
  /// every cond and loop.
  [[nodiscard]] ScopeGuard control_flow_context(std::shared_ptr<ControlFlowContext> context);
  /// The control-flow context being built, or null.
  const std::shared_ptr<ControlFlowContext>& current_control_flow_context() const noexcept {
    return context_;
  }
  /// The context `op` was built in (a Switch or Enter made for a context belongs to it), or
  /// null (ops outside every cond and loop, and every imported op).
  std::shared_ptr<const ControlFlowContext> control_flow_context_of(const Node* op) const;
  /// `control_flow_context_of(op)` when it is a cond branch, else null.
  std::shared_ptr<const CondBranch> cond_branch_of(const Node* op) const;
  /// Suspends every control_dependencies scope until the guard goes (the control half of
  /// Python's `control_dependencies(None)`; the context half is `control_flow_context`'s).
  [[nodiscard]] ScopeGuard clear_control_dependencies();

  /// Returns `base` made unique under the current name scope, as TensorFlow does
  /// (`"mul"`, `"mul_1"`, ...).
  std::string unique_name(std::string_view base, bool mark_as_used = true);

  // -- building blocks -----------------------------------------------------------

  /// A constant (op `Const`, default name `"Const"`).
  Output constant(const Tensor& value, std::string_view name = {});
  /// A placeholder that must be fed (op `Placeholder`); `shape` defaults to unknown rank.
  Output placeholder(DType dtype, PartialShape shape = {}, std::string_view name = {});
  /// A variable initialised from `initial_value` (ops `VariableV2`, `<name>/initial_value`,
  /// `<name>/Assign`, `<name>/read`; with `options.use_resource` VarHandleOp,
  /// `<name>/Initializer/initial_value`, `<name>/Assign`, `<name>/Read/ReadVariableOp`), added
  /// to `options.collections` (default GLOBAL_VARIABLES) and, when trainable, to
  /// TRAINABLE_VARIABLES.
  Variable variable(const Tensor& initial_value, VariableOptions options = {});
  /// A variable initialised from the output of another op (e.g. random_normal).
  Variable variable(const Output& initial_value, VariableOptions options = {});
  /// A variable initialised by `make_initial(*this)`, TensorFlow's callable initial value
  /// (what `get_variable` passes): its ops are built under `<name>/Initializer/`, outside
  /// every device scope and colocated with the variable, so on a cluster the initial value
  /// is computed on the variable's task (its ps) and never crosses the network.
  Variable variable(const std::function<Output(Graph&)>& make_initial, VariableOptions options);
  /// A no-op (op `NoOp`).
  Operation no_op(std::string_view name = {});
  /// A no-op depending on every op of `ops` (`tf.group`).
  Operation group(const std::vector<Operation>& ops, std::string_view name = {});
  /// Groups the initializers of all global variables (`tf.global_variables_initializer`).
  Operation global_variables_initializer();
  /// Groups the initializers of `vars` (`tf.variables_initializer`).
  Operation variables_initializer(const std::vector<Variable>& vars,
                                  std::string_view name = "init");
  /// The variables of the GLOBAL_VARIABLES collection, in creation order (every variable
  /// created without explicit `collections`).
  std::vector<Variable> global_variables() const;
  /// The variables of the LOCAL_VARIABLES collection (`tf.local_variables()`), in creation
  /// order: per-session state such as the epoch counters of `limit_epochs`.
  std::vector<Variable> local_variables() const;
  /// Groups the initializers of all local variables (`tf.local_variables_initializer()`,
  /// a NoOp named "init" made unique, so "init_1" after `global_variables_initializer`).
  Operation local_variables_initializer();

  /// Seed of the graph, as `tf.set_random_seed`; nullopt when unset.
  std::optional<std::int64_t> seed() const noexcept { return seed_; }
  /// Sets the graph seed (`tf.set_random_seed`) for ops created afterwards.
  void set_random_seed(std::int64_t seed) { seed_ = seed; }
  /// The (seed, seed2) pair for an op, as `tf.get_seed(op_seed)`.
  std::pair<std::int64_t, std::int64_t> get_seed(std::optional<std::int64_t> op_seed);

  // -- collections -------------------------------------------------------------

  /// Appends `value` to collection `name` (`tf.add_to_collection`).
  void add_to_collection(const std::string& name, std::any value);
  /// The values of collection `name` in insertion order.
  const std::vector<std::any>& get_collection(const std::string& name) const;
  /// The names of every collection holding a value, sorted (`tf.Graph.get_all_collection_keys`).
  std::vector<std::string> get_all_collection_keys() const;

  // -- serialisation -----------------------------------------------------------

  /// A snapshot of all nodes as data.
  GraphDef to_graph_def() const;
  /// Adds all nodes of `def` (in order; inputs must precede their consumers).
  void import_graph_def(const GraphDef& def);

  /// The lock sessions take to read the graph while other threads may be adding nodes.
  std::shared_mutex& mutex() const noexcept { return mu_; }

 private:
  struct ControlFrame {
    std::vector<Node*> deps;
    std::set<const Node*> created;
  };
  struct DeviceEntry {
    DeviceFunction fn;  // null entry = clear (tf.device(None))
  };
  Node* finish_node(std::unique_ptr<Node> node, bool apply_scopes);
  // create_op's plain half: `apply_control_stack` false leaves the control_dependencies
  // scopes out of the node's control inputs (a control-flow context has decided them);
  // `context` is the context the node is for (null: none), whose inputs are checked.
  Operation create_op_plain(const std::string& type, const std::vector<Output>& inputs,
                            AttrMap attrs, std::string_view name,
                            const std::vector<Operation>& control_inputs, bool apply_control_stack,
                            const ControlFlowContext* context);
  // The control inputs the control_dependencies scopes give an op with `inputs`
  // (TensorFlow's _control_dependencies_for_inputs).
  std::vector<Node*> control_stack_inputs(const std::vector<Output>& inputs) const;
  // create_op inside a control-flow context (control_flow/context.cpp): TensorFlow's
  // ControlFlowContext._AddOpInternal around the plain creation.
  Operation create_op_in_context(const std::string& type, const std::vector<Output>& inputs,
                                 AttrMap attrs, std::string_view name,
                                 const std::vector<Operation>& control_inputs);
  // TensorFlow's CheckInputFromValidContext for an op of context `op_context`.
  void check_input_context(const ControlFlowContext* op_context, const std::string& type,
                           const std::string& op_name, const Output& input) const;
  friend struct detail::ControlFlowAccess;  // cond's and while_loop's building blocks
  std::string apply_device_functions(const NodeDef& def) const;
  // The resource variable of `variable(Output, options)` (options.use_resource).
  Variable resource_variable(const Output& init, DType dtype, const PartialShape& shape,
                             const std::string& scope_name, const VariableOptions& options);
  // Sets the slice info and joins the collections.
  Variable add_variable(Variable v, const VariableOptions& options);

  mutable std::shared_mutex mu_;
  std::vector<std::unique_ptr<Node>> nodes_;
  /// Hashes a name as a string_view, so a lookup by string_view copies nothing.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, Node*, NameHash, std::equal_to<>> by_name_;
  std::unordered_map<std::string, int> name_counts_;
  std::vector<std::string> name_scopes_;
  std::vector<DeviceEntry> device_stack_;
  std::vector<ControlFrame> control_stack_;
  std::vector<std::vector<std::string>> colocation_stack_;
  std::vector<std::string> container_stack_;
  std::map<std::string, std::vector<std::any>> collections_;
  std::optional<std::int64_t> seed_;
  std::uint64_t version_ = 0;
  std::shared_ptr<ControlFlowContext> context_;
  std::unordered_map<const Node*, std::shared_ptr<ControlFlowContext>> context_of_;
};

/// A variable (TensorFlow's `tf.Variable`): the VariableV2 node plus its initializer and
/// snapshot. Converts to its value (`<name>/read`) where an Output is expected.
class Variable {
 public:
  /// An invalid variable.
  Variable() = default;
  /// Wraps existing nodes (`Graph::variable` makes them).
  Variable(Output ref, Operation initializer, Output value, Output initial_value)
      : ref_(ref), initializer_(initializer), value_(value), initial_value_(initial_value) {}

  /// The snapshot of the current value (`<name>/read`).
  Output value() const { return value_; }
  /// As `value()`.
  operator Output() const { return value_; }  // NOLINT: as tf.Variable converts to a tensor
  /// The reference output of the VariableV2 node.
  Output ref() const { return ref_; }
  /// The VariableV2 op.
  Operation op() const { return ref_.op(); }
  /// The `<name>/Assign` op that sets the initial value.
  Operation initializer() const { return initializer_; }
  /// The initial value's tensor.
  Output initial_value() const { return initial_value_; }
  /// The VariableV2 op's name.
  const std::string& name() const { return ref_.op().name(); }
  /// True for a resource variable (`ref()` is a VarHandleOp's handle, `value()` its
  /// ReadVariableOp), as TensorFlow 2's `tf.compat.v1` makes them and graphs imported from it hold.
  bool is_resource() const { return ref_.valid() && ref_.dtype() == DType::resource; }
  /// The value's dtype (the ref output's; a resource variable's snapshot's).
  DType dtype() const { return is_resource() ? value_.dtype() : ref_.dtype(); }
  /// The static shape (a resource variable's snapshot's).
  const PartialShape& shape() const { return is_resource() ? value_.shape() : ref_.shape(); }
  /// The graph of the variable.
  Graph& graph() const { return ref_.graph(); }
  /// For a part of a partitioned variable, where it sits in the full variable
  /// (`Variable._save_slice_info`); null otherwise.
  const SaveSliceInfo* save_slice_info() const noexcept { return save_slice_info_.get(); }
  /// Marks the variable as a part of a partitioned variable. Collections hold copies: set it
  /// before the variable joins them (`VariableOptions::save_slice_info` does).
  void set_save_slice_info(SaveSliceInfo info) {
    save_slice_info_ = std::make_shared<const SaveSliceInfo>(std::move(info));
  }

  /// `tf.assign(v, value)`; returns the assigned value (a resource variable: an
  /// AssignVariableOp and a ReadVariableOp after it).
  Output assign(const Output& value, std::string_view name = {}) const;
  /// `tf.assign_add(v, delta)`; returns the new value.
  Output assign_add(const Output& delta, std::string_view name = {}) const;
  /// `tf.assign_sub(v, delta)`; returns the new value.
  Output assign_sub(const Output& delta, std::string_view name = {}) const;

 private:
  Output ref_;
  Operation initializer_;
  Output value_;
  Output initial_value_;
  std::shared_ptr<const SaveSliceInfo> save_slice_info_;
};

/// The collection holding the variables shared across sessions and saved by default
/// (`tf.GraphKeys.GLOBAL_VARIABLES`).
inline constexpr const char* kGlobalVariables = "variables";
/// The collection holding per-session variables such as epoch counters
/// (`tf.GraphKeys.LOCAL_VARIABLES`).
inline constexpr const char* kLocalVariables = "local_variables";
/// The collection holding trainable Variables (`tf.GraphKeys.TRAINABLE_VARIABLES`).
inline constexpr const char* kTrainableVariables = "trainable_variables";
/// The collection holding the queue runners of input pipelines
/// (`tf.GraphKeys.QUEUE_RUNNERS`).
inline constexpr const char* kQueueRunners = "queue_runners";

/// Prints `Output("name:0", dtype=..., shape=...)`.
std::ostream& operator<<(std::ostream& os, const Output& o);

}  // namespace af
