#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/indexed_slices.hpp"

namespace af::train {

/// A hyper-parameter given as a number or as a tensor (a learning-rate schedule, a
/// placeholder): TensorFlow's optimizers take either.
class HyperParameter {
 public:
  /// A number (a float32 Const, cast to each variable's dtype).
  HyperParameter(double value) : value_(value) {}  // NOLINT: as Python floats convert
  /// A tensor, evaluated in every step that applies the update.
  HyperParameter(const Output& tensor) : value_(tensor) {}  // NOLINT
  /// A variable's current value (read in every step).
  HyperParameter(const Variable& v) : value_(v.value()) {}  // NOLINT

  /// True when given as a tensor or variable.
  bool is_tensor() const noexcept { return std::holds_alternative<Output>(value_); }
  /// The number; throws std::bad_variant_access when `is_tensor()`.
  double number() const { return std::get<double>(value_); }
  /// The tensor; throws std::bad_variant_access unless `is_tensor()`.
  const Output& tensor() const { return std::get<Output>(value_); }

 private:
  std::variant<double, Output> value_;
};

/// How much `compute_gradients` serialises the gradient computation (TensorFlow's
/// `Optimizer.GATE_*`): `op` (the default) makes each op's input gradients available
/// together, so an update never overlaps a gradient still reading the old value.
enum class GateGradients { none = 0, op = 1, graph = 2 };

/// A gradient and the variable it belongs to; `grad` is invalid when the variable does not
/// affect the loss, and IndexedSlices when the loss reads the variable through a gather
/// (an embedding lookup), as `compute_gradients` returns it in TensorFlow.
struct GradAndVar {
  Gradient grad;  ///< the gradient (invalid: none)
  Variable var;   ///< the variable
};

/// Options of `compute_gradients` and `minimize`.
struct GradientOptions {
  GateGradients gate_gradients = GateGradients::op;  ///< see GateGradients
  bool colocate_gradients_with_ops = false;  ///< put each gradient op on its forward op's device
  /// Weights the loss's gradient (`grad_loss`); invalid means ones.
  Output grad_loss;
};

/// The base of the optimizers (TensorFlow's `tf.train.Optimizer`): computes gradients and
/// builds the ops that apply them.
///
/// Slot variables (`W/Adam`, `W/Momentum`, ...) are created on first use, named, initialised
/// and colocated with their variable exactly as TensorFlow does, so on a cluster they live on
/// the variable's ps task and TensorFlow checkpoints restore into them. A resource variable
/// (`VariableOptions::use_resource`, or imported from TensorFlow 2) gets resource slots and
/// is updated by the Resource* twins of the update ops (ResourceApplyAdam,
/// ResourceSparseApplyAdagrad, GradientDescent's ResourceScatterAdd, ...) as TensorFlow's
/// `_resource_apply_dense` / `_resource_apply_sparse` build them. Building is not
/// thread-safe (as building a Graph is not); the ops it builds may run concurrently.
class Optimizer {
 public:
  /// The variables it created stay in the graph.
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// The optimizer's name ("GradientDescent", "Adam", ...), the name scope of its ops.
  const std::string& name() const noexcept { return name_; }

  /// The gradients of `loss` with respect to `var_list` (default: the graph's
  /// TRAINABLE_VARIABLES), one pair per variable, in `var_list`'s order; IndexedSlices for a
  /// variable read only through gathers (see `gradients_with_slices`).
  /// Throws InvalidArgumentError when `loss` or a variable is not float16/32/64 or bfloat16,
  /// or when there is no variable to optimize.
  std::vector<GradAndVar> compute_gradients(const Output& loss,
                                            std::optional<std::vector<Variable>> var_list = {},
                                            const GradientOptions& options = {});

  /// Builds the update ops of every pair with a gradient, each under
  /// `<name>/update_<var>/` and colocated with its variable: the dense update for a dense
  /// gradient, the sparse one for IndexedSlices (their duplicate indices summed first,
  /// except by GradientDescent, whose ScatterSub applies each), so only the rows named
  /// change. Then `global_step += 1` after
  /// all of them when `global_step` is given. The returned op is named after the optimizer
  /// (`"Adam"`, made unique) and joins the TRAIN_OP collection. Throws InvalidArgumentError
  /// "No gradients provided for any variable" when every gradient is invalid.
  Operation apply_gradients(const std::vector<GradAndVar>& grads_and_vars,
                            std::optional<Variable> global_step = {}, std::string_view name = {});

  /// `compute_gradients` then `apply_gradients`.
  Operation minimize(const Output& loss, std::optional<Variable> global_step = {},
                     std::optional<std::vector<Variable>> var_list = {},
                     const GradientOptions& options = {}, std::string_view name = {});

  /// The slot `slot_name` ("m", "v", "momentum", "accumulator", "rms", "mg") of `var`;
  /// throws NotFoundError when the optimizer has none.
  Variable get_slot(const Variable& var, const std::string& slot_name) const;
  /// The slot names this optimizer creates, sorted.
  std::vector<std::string> get_slot_names() const;
  /// Every variable the optimizer created: slots and non-slot variables such as Adam's
  /// `beta1_power`, sorted by name.
  std::vector<Variable> variables() const;

 protected:
  Optimizer(bool use_locking, std::string name)
      : use_locking_(use_locking), name_(std::move(name)) {}

  /// Creates the slots of `var_list` (called with the name scope cleared, as TensorFlow's
  /// `init_scope`).
  virtual void create_slots(Graph& g, const std::vector<Variable>& var_list) = 0;
  /// Turns the hyper-parameters into tensors, inside the optimizer's name scope.
  virtual void prepare(Graph& g) = 0;
  /// The update of one variable, inside `update_<var>/` and colocated with it.
  virtual Operation apply_dense(const Output& grad, const Variable& var) = 0;
  /// The sparse update of one variable from slices whose indices are unique (`_apply_sparse`),
  /// inside `update_<var>/` and colocated with it. The default throws UnimplementedError
  /// naming the optimizer.
  virtual Operation apply_sparse(const IndexedSlices& grad, const Variable& var);
  /// `_apply_sparse_duplicate_indices`: the rows of duplicate indices summed (Unique, then
  /// UnsortedSegmentSum), then `apply_sparse`.
  virtual Operation apply_sparse_duplicate_indices(const IndexedSlices& grad, const Variable& var);
  /// Groups the updates: by default a NoOp named `name` depending on all of them.
  virtual Operation finish(Graph& g, const std::vector<Operation>& update_ops,
                           std::string_view name);

  /// A slot of `var` filled with zeros (`_zeros_slot`): `<var>/<op_name>` made unique.
  Variable zeros_slot(const Variable& var, const std::string& slot_name);
  /// A slot of `var` filled with `value` (ones: `Initializer/ones`, else `Initializer/Const`).
  Variable constant_slot(const Variable& var, double value, const std::string& slot_name);
  /// A variable shared by all updates (`_create_non_slot_variable`), created once per graph
  /// in the current name scope and colocated with `colocate_with`.
  Variable non_slot_variable(Graph& g, double initial_value, const std::string& var_name,
                             const Variable& colocate_with);
  /// A variable created by `non_slot_variable`; throws NotFoundError when absent.
  Variable non_slot(const std::string& var_name) const;
  /// The tensor of a hyper-parameter: its tensor, or a Const named `const_name` (float32).
  Output hyper_tensor(Graph& g, const HyperParameter& h, const char* const_name);
  /// `h` cast to `var`'s dtype (no op when the dtypes agree).
  static Output cast_to(const Output& h, const Variable& var);

  bool use_locking_ = false;

 private:
  Variable slot_with_initial_value(const Variable& var, const std::string& slot_name,
                                   const std::function<Output(Graph&)>& make_initial);

  std::string name_;
  // slot name -> variable name -> slot
  std::map<std::string, std::map<std::string, Variable>> slots_;
  std::map<std::string, Variable> non_slots_;
};

/// `tf.train.GradientDescentOptimizer`: `var -= learning_rate * grad`.
class GradientDescentOptimizer : public Optimizer {
 public:
  /// `use_locking` serialises the updates of a variable (the apply op's attribute).
  explicit GradientDescentOptimizer(HyperParameter learning_rate, bool use_locking = false,
                                    std::string name = "GradientDescent");

 protected:
  void create_slots(Graph&, const std::vector<Variable>&) override {}
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// `var[indices] -= learning_rate * values` by ScatterSub, duplicates applied in turn.
  Operation apply_sparse_duplicate_indices(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  Output lr_t_;
};

/// `tf.train.MomentumOptimizer`: slot `momentum` (`<var>/Momentum`), zeros.
class MomentumOptimizer : public Optimizer {
 public:
  /// `use_nesterov` applies Nesterov momentum (TensorFlow's ApplyMomentum).
  MomentumOptimizer(HyperParameter learning_rate, HyperParameter momentum, bool use_locking = false,
                    std::string name = "Momentum", bool use_nesterov = false);

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyMomentum.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_, momentum_;
  bool use_nesterov_;
  Output lr_t_, momentum_t_;
};

/// `tf.train.AdagradOptimizer`: slot `accumulator` (`<var>/Adagrad`) starting at
/// `initial_accumulator_value`, which must be > 0 (InvalidArgumentError otherwise).
class AdagradOptimizer : public Optimizer {
 public:
  /// Throws InvalidArgumentError when `initial_accumulator_value <= 0`.
  explicit AdagradOptimizer(HyperParameter learning_rate, double initial_accumulator_value = 0.1,
                            bool use_locking = false, std::string name = "Adagrad");

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyAdagrad.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  double initial_accumulator_value_;
  Output lr_t_;
};

/// Options of `RMSPropOptimizer` (TensorFlow's defaults).
struct RMSPropOptions {
  double decay = 0.9;            ///< discounting factor of the gradient history
  double momentum = 0.0;         ///< momentum of the update
  double epsilon = 1e-10;        ///< added to the denominator for stability
  bool use_locking = false;      ///< serialise the updates of a variable
  bool centered = false;         ///< normalise by the estimated variance (adds slot `mg`)
  std::string name = "RMSProp";  ///< the name scope of the ops
};

/// `tf.train.RMSPropOptimizer`: slots `rms` (`<var>/RMSProp`, ones), `mg` when centered
/// (`<var>/RMSProp_1`, zeros) and `momentum` (`<var>/RMSProp_1`, or `_2` when centered).
class RMSPropOptimizer : public Optimizer {
 public:
  /// Builds nothing until `minimize` / `apply_gradients`.
  explicit RMSPropOptimizer(HyperParameter learning_rate, RMSPropOptions options = {});

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyRMSProp, or SparseApplyCenteredRMSProp when centered.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  RMSPropOptions options_;
  Output lr_t_, decay_t_, momentum_t_, epsilon_t_;
};

/// Options of `AdamOptimizer` (TensorFlow's defaults).
struct AdamOptions {
  double beta1 = 0.9;         ///< decay of the first-moment estimate
  double beta2 = 0.999;       ///< decay of the second-moment estimate
  double epsilon = 1e-8;      ///< added to the denominator for stability
  bool use_locking = false;   ///< serialise the updates of a variable
  std::string name = "Adam";  ///< the name scope of the ops
};

/// `tf.train.AdamOptimizer`: slots `m` (`<var>/Adam`) and `v` (`<var>/Adam_1`), zeros, and
/// the non-slot variables `beta1_power` / `beta2_power` (initially beta1 / beta2), colocated
/// with the variable whose name sorts first and multiplied by beta1 / beta2 after every
/// update.
class AdamOptimizer : public Optimizer {
 public:
  /// Builds nothing until `minimize` / `apply_gradients`.
  explicit AdamOptimizer(HyperParameter learning_rate = 0.001, AdamOptions options = {});

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// `_apply_sparse_shared`: `m = m * beta1` over the whole slot, then ScatterAdd of
  /// `(1 - beta1) * g` into the named rows; `v` likewise with `(1 - beta2) * g^2`; then
  /// `var -= lr_t * m / (sqrt(v) + epsilon)` over every row (rows without a gradient move
  /// while their m is not zero, as in TensorFlow).
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;
  Operation finish(Graph& g, const std::vector<Operation>& update_ops,
                   std::string_view name) override;

 private:
  HyperParameter learning_rate_;
  AdamOptions options_;
  Output lr_t_, beta1_t_, beta2_t_, epsilon_t_;
};

}  // namespace af::train
