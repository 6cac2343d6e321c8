#pragma once

// The input layouts of the optimizers' update ops (Apply* and their ResourceApply* twins),
// which their definitions (ops/src/defs/training_ops.cpp) and their CPU kernels
// (kernels/src/training_ops.cpp) share. In a namespace of their own: Kind and Layout are too
// generic a pair of names for af::detail.
#include <utility>
#include <vector>

namespace af::detail::optimizer {

/// The update an Apply* op (and its ResourceApply* twin) computes.
enum class Kind { gradient_descent, momentum, adagrad, rms_prop, centered_rms_prop, adam };

/// Input layout of each op: how many reference inputs (the variable first, then its slots),
/// the input index and name of each scalar hyper-parameter, and where the gradient is
/// (ApplyMomentum takes `momentum` after `grad`).
struct Layout {
  int refs;                                          ///< how many reference inputs
  std::vector<std::pair<int, const char*>> scalars;  ///< (input index, name) per scalar
  int grad;                                          ///< the gradient's input index
  int inputs;                                        ///< how many inputs in all
};

/// The input layout of the ops of kind `k`.
inline Layout layout_of(Kind k) {
  switch (k) {
    case Kind::gradient_descent:
      return {1, {{1, "alpha"}}, 2, 3};
    case Kind::momentum:
      return {2, {{2, "lr"}, {4, "momentum"}}, 3, 5};
    case Kind::adagrad:
      return {2, {{2, "lr"}}, 3, 4};
    case Kind::rms_prop:
      return {3, {{3, "lr"}, {4, "rho"}, {5, "momentum"}, {6, "epsilon"}}, 7, 8};
    case Kind::centered_rms_prop:
      return {4, {{4, "lr"}, {5, "rho"}, {6, "momentum"}, {7, "epsilon"}}, 8, 9};
    case Kind::adam:
      return {3,
              {{3, "beta1_power"},
               {4, "beta2_power"},
               {5, "lr"},
               {6, "beta1"},
               {7, "beta2"},
               {8, "epsilon"}},
              9,
              10};
  }
  return {1, {}, 1, 2};
}

/// The input layout of the SparseApply* op of kind `k` (and its ResourceSparseApply* twin):
/// the dense op's, with `indices` right after `grad` (at `grad + 1`) and the inputs after
/// the gradient one place later.
inline Layout sparse_layout_of(Kind k) {
  Layout lay = layout_of(k);
  for (auto& scalar : lay.scalars)
    if (scalar.first > lay.grad) ++scalar.first;
  ++lay.inputs;
  return lay;
}

/// The names TensorFlow gives the reference inputs in its error messages: reference input
/// `i` (below `layout_of(k).refs`) of the ops of kind `k`.
inline const char* ref_name(Kind k, int i) {
  static const char* const momentum[] = {"var", "accum"};
  static const char* const rms[] = {"var", "ms", "mom"};
  static const char* const centered[] = {"var", "mg", "ms", "mom"};
  static const char* const adam[] = {"var", "m", "v"};
  switch (k) {
    case Kind::gradient_descent:
      return "var";
    case Kind::momentum:
    case Kind::adagrad:
      return momentum[i];
    case Kind::rms_prop:
      return rms[i];
    case Kind::centered_rms_prop:
      return centered[i];
    case Kind::adam:
      return adam[i];
  }
  return "var";
}

}  // namespace af::detail::optimizer
