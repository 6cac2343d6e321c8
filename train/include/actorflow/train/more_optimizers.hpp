#pragma once

#include <string>

#include "actorflow/train/optimizer.hpp"

/// More of TensorFlow 1.x's optimizers (`tf.compat.v1.train.FtrlOptimizer`,
/// `AdadeltaOptimizer`, `ProximalAdagradOptimizer`, `ProximalGradientDescentOptimizer`,
/// `AdagradDAOptimizer`), on `Optimizer`'s machinery: slots named, initialised and colocated
/// as TensorFlow does (`<var>/<optimizer name>`, then `_1`), so TensorFlow checkpoints restore
/// into them; dense gradients go to the Apply* ops (ResourceApply* for resource variables),
/// IndexedSlices, their duplicate indices summed, to the SparseApply* ops (ResourceSparse*).
namespace af::train {

/// Options of `FtrlOptimizer` (TensorFlow's defaults).
struct FtrlOptions {
  double learning_rate_power = -0.5;        ///< must be <= 0; 0 is a fixed learning rate
  double initial_accumulator_value = 0.1;   ///< the `accum` slots' start; must be >= 0
  double l1_regularization_strength = 0.0;  ///< must be >= 0
  double l2_regularization_strength = 0.0;  ///< must be >= 0
  bool use_locking = false;                 ///< serialise the updates of a variable
  std::string name = "Ftrl";                ///< the name scope of the ops
  /// Must be >= 0; above 0 the updates are ApplyFtrlV2 (a magnitude penalty on the weights).
  double l2_shrinkage_regularization_strength = 0.0;
  /// The paper's beta: adds `beta / (2 * learning_rate)` to the l2 strength.
  double beta = 0.0;
};

/// `tf.compat.v1.train.FtrlOptimizer`: slots `accum` (`<var>/Ftrl`, filled with
/// `initial_accumulator_value`) and `linear` (`<var>/Ftrl_1`, zeros); ApplyFtrl, or
/// ApplyFtrlV2 with `l2_shrinkage_regularization_strength > 0`. TensorFlow's `accum_name` /
/// `linear_name` (other slot suffixes) are not offered.
class FtrlOptimizer : public Optimizer {
 public:
  /// Throws InvalidArgumentError with TensorFlow's ValueError text for a negative
  /// initial_accumulator_value, l1, l2 or l2_shrinkage strength, or a positive
  /// learning_rate_power ("learning_rate_power 0.500000 needs to be negative or zero").
  explicit FtrlOptimizer(HyperParameter learning_rate, FtrlOptions options = {});

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyFtrl (SparseApplyFtrlV2 with shrinkage: only the rows named shrink).
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  FtrlOptions options_;
  Output lr_t_, l1_t_, l2_t_, l2_shrinkage_t_, lr_power_t_;
};

/// Options of `AdadeltaOptimizer` (TensorFlow's defaults).
struct AdadeltaOptions {
  HyperParameter rho = 0.95;      ///< decay rate
  HyperParameter epsilon = 1e-8;  ///< added to the accumulators under the square roots
  bool use_locking = false;       ///< serialise the updates of a variable
  std::string name = "Adadelta";  ///< the name scope of the ops
};

/// `tf.compat.v1.train.AdadeltaOptimizer`: slots `accum` (`<var>/Adadelta`) and
/// `accum_update` (`<var>/Adadelta_1`), zeros; ApplyAdadelta / SparseApplyAdadelta.
class AdadeltaOptimizer : public Optimizer {
 public:
  /// Builds nothing until `minimize` / `apply_gradients`.
  explicit AdadeltaOptimizer(HyperParameter learning_rate = 0.001, AdadeltaOptions options = {});

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyAdadelta.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  AdadeltaOptions options_;
  Output lr_t_, rho_t_, epsilon_t_;
};

/// `tf.compat.v1.train.ProximalAdagradOptimizer`: slot `accumulator` (`<var>/ProximalAdagrad`,
/// filled with `initial_accumulator_value`); ApplyProximalAdagrad / SparseApplyProximalAdagrad
/// (which fail at run time for a learning rate <= 0 or a negative strength).
class ProximalAdagradOptimizer : public Optimizer {
 public:
  /// Throws InvalidArgumentError "initial_accumulator_value must be positive: 0" when
  /// `initial_accumulator_value <= 0`.
  explicit ProximalAdagradOptimizer(HyperParameter learning_rate,
                                    double initial_accumulator_value = 0.1,
                                    HyperParameter l1_regularization_strength = 0.0,
                                    HyperParameter l2_regularization_strength = 0.0,
                                    bool use_locking = false, std::string name = "ProximalAdagrad");

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyProximalAdagrad.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  double initial_accumulator_value_;
  HyperParameter l1_, l2_;
  Output lr_t_, l1_t_, l2_t_;
};

/// `tf.compat.v1.train.ProximalGradientDescentOptimizer`: no slots;
/// ApplyProximalGradientDescent / SparseApplyProximalGradientDescent.
class ProximalGradientDescentOptimizer : public Optimizer {
 public:
  /// Builds nothing until `minimize` / `apply_gradients`.
  explicit ProximalGradientDescentOptimizer(HyperParameter learning_rate,
                                            HyperParameter l1_regularization_strength = 0.0,
                                            HyperParameter l2_regularization_strength = 0.0,
                                            bool use_locking = false,
                                            std::string name = "ProximalGradientDescent");

 protected:
  void create_slots(Graph&, const std::vector<Variable>&) override {}
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyProximalGradientDescent.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_, l1_, l2_;
  Output lr_t_, l1_t_, l2_t_;
};

/// Options of `AdagradDAOptimizer` (TensorFlow's defaults).
struct AdagradDAOptions {
  /// The `gradient_squared_accumulator` slots' start; must be > 0.
  double initial_gradient_squared_accumulator_value = 0.1;
  double l1_regularization_strength = 0.0;  ///< l1 strength
  double l2_regularization_strength = 0.0;  ///< l2 strength
  bool use_locking = false;                 ///< serialise the updates of a variable
  std::string name = "AdagradDA";           ///< the name scope of the ops
};

/// `tf.compat.v1.train.AdagradDAOptimizer`: slots `gradient_accumulator` (`<var>/AdagradDA`,
/// zeros) and `gradient_squared_accumulator` (`<var>/AdagradDA_1`); ApplyAdagradDA /
/// SparseApplyAdagradDA with `global_step + 1` (an int64 variable, cast when int32). As in
/// TensorFlow the optimizer reads the step but does not advance it: pass it to `minimize`.
class AdagradDAOptimizer : public Optimizer {
 public:
  /// Throws InvalidArgumentError "initial_gradient_squared_accumulator_value must be positive:
  /// 0" when that value is <= 0.
  AdagradDAOptimizer(HyperParameter learning_rate, Variable global_step,
                     AdagradDAOptions options = {});

 protected:
  void create_slots(Graph& g, const std::vector<Variable>& var_list) override;
  void prepare(Graph& g) override;
  Operation apply_dense(const Output& grad, const Variable& var) override;
  /// SparseApplyAdagradDA.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override;

 private:
  HyperParameter learning_rate_;
  Variable global_step_;
  AdagradDAOptions options_;
  Output lr_t_, l1_t_, l2_t_, global_step_on_worker_;
};

}  // namespace af::train
