#pragma once

// The names and input layouts of the update ops of TensorFlow 1.x's training_ops.cc that
// training_layout.hpp does not cover: ApplyFtrl, ApplyFtrlV2, ApplyAdadelta,
// ApplyProximalAdagrad, ApplyProximalGradientDescent, ApplyAdagradDA, ApplyAdagradV2,
// ApplyAdaMax, ApplyAddSign, ApplyPowerSign, ResourceApplyKerasMomentum and
// ResourceApplyAdamWithAmsgrad, with their
// Resource* and (Resource)SparseApply* twins. Shared by their definitions
// (ops/src/defs/more_training_ops.cpp) and CPU kernels (kernels/src/more_training_ops.cpp,
// kernels/src/more_sparse_training_ops.cpp).
#include <cstddef>
#include <iterator>
#include <utility>

#include "actorflow/ops/detail/training_layout.hpp"

namespace af::detail::more_optimizer {

using optimizer::Layout;

/// The update an op computes.
enum class Kind {
  ftrl,
  ftrl_v2,
  adadelta,
  proximal_adagrad,
  proximal_gradient_descent,
  adagrad_da,
  adagrad_v2,
  ada_max,
  add_sign,
  power_sign,
  keras_momentum,
  adam_with_amsgrad
};

/// The dense op's input layout: reference inputs first, then the hyper-parameters of dtype T
/// (AdagradDA's int64 `global_step`, its last input, is not among `scalars`) and the gradient.
inline Layout layout_of(Kind k) {
  switch (k) {
    case Kind::ftrl:
      return {3, {{4, "lr"}, {5, "l1"}, {6, "l2"}, {7, "lr_power"}}, 3, 8};
    case Kind::ftrl_v2:
      return {3, {{4, "lr"}, {5, "l1"}, {6, "l2"}, {7, "l2_shrinkage"}, {8, "lr_power"}}, 3, 9};
    case Kind::adadelta:
      return {3, {{3, "lr"}, {4, "rho"}, {5, "epsilon"}}, 6, 7};
    case Kind::proximal_adagrad:
      return {2, {{2, "lr"}, {3, "l1"}, {4, "l2"}}, 5, 6};
    case Kind::proximal_gradient_descent:
      return {1, {{1, "alpha"}, {2, "l1"}, {3, "l2"}}, 4, 5};
    case Kind::adagrad_da:
      return {3, {{4, "lr"}, {5, "l1"}, {6, "l2"}}, 3, 8};
    case Kind::adagrad_v2:
      return {2, {{2, "lr"}, {3, "epsilon"}}, 4, 5};
    case Kind::ada_max:
      return {3, {{3, "beta1_power"}, {4, "lr"}, {5, "beta1"}, {6, "beta2"}, {7, "epsilon"}}, 8, 9};
    case Kind::add_sign:
      return {2, {{2, "lr"}, {3, "alpha"}, {4, "sign_decay"}, {5, "beta"}}, 6, 7};
    case Kind::power_sign:
      return {2, {{2, "lr"}, {3, "logbase"}, {4, "sign_decay"}, {5, "beta"}}, 6, 7};
    case Kind::keras_momentum:
      return {2, {{2, "lr"}, {4, "momentum"}}, 3, 5};
    case Kind::adam_with_amsgrad:
      return {4,
              {{4, "beta1_power"},
               {5, "beta2_power"},
               {6, "lr"},
               {7, "beta1"},
               {8, "beta2"},
               {9, "epsilon"}},
              10,
              11};
  }
  return {1, {}, 1, 2};
}

/// The sparse op's layout: the dense one's with `indices` at `grad + 1` and every later
/// input one place further.
inline Layout sparse_layout_of(Kind k) {
  Layout lay = layout_of(k);
  for (auto& scalar : lay.scalars)
    if (scalar.first > lay.grad) ++scalar.first;
  ++lay.inputs;
  return lay;
}

/// True for AdagradDA, whose last input is the int64 scalar `global_step`.
inline bool has_global_step(Kind k) { return k == Kind::adagrad_da; }

/// The OpDef's name of reference input `i` (below `layout_of(k).refs`).
inline const char* ref_name(Kind k, int i) {
  static const char* const accum[] = {"var", "accum"};
  static const char* const ftrl[] = {"var", "accum", "linear"};
  static const char* const adadelta[] = {"var", "accum", "accum_update"};
  static const char* const da[] = {"var", "gradient_accumulator", "gradient_squared_accumulator"};
  static const char* const m[] = {"var", "m"};
  static const char* const mv[] = {"var", "m", "v"};
  static const char* const mvv[] = {"var", "m", "v", "vhat"};
  switch (k) {
    case Kind::ftrl:
    case Kind::ftrl_v2:
      return ftrl[i];
    case Kind::adadelta:
      return adadelta[i];
    case Kind::adagrad_da:
      return da[i];
    case Kind::ada_max:
      return mv[i];
    case Kind::adam_with_amsgrad:
      return mvv[i];
    case Kind::add_sign:
    case Kind::power_sign:
      return m[i];
    case Kind::proximal_gradient_descent:
      return "var";
    case Kind::proximal_adagrad:
    case Kind::adagrad_v2:
    case Kind::keras_momentum:
      return accum[i];
  }
  return "var";
}

/// One update op family: `type` the Apply* name (the other forms prefix it with Resource,
/// Sparse and ResourceSparse), `ref_form` false where TensorFlow has only the Resource* forms,
/// `sparse` false where it has no (Resource)SparseApply* forms.
struct OpForms {
  Kind kind;
  const char* type;
  bool ref_form = true;
  bool sparse = true;
};

/// The families, in the order their definitions and kernels are registered.
inline constexpr OpForms kOpForms[] = {
    {Kind::ftrl, "ApplyFtrl"},
    {Kind::ftrl_v2, "ApplyFtrlV2"},
    {Kind::adadelta, "ApplyAdadelta"},
    {Kind::proximal_adagrad, "ApplyProximalAdagrad"},
    {Kind::proximal_gradient_descent, "ApplyProximalGradientDescent"},
    {Kind::adagrad_da, "ApplyAdagradDA"},
    {Kind::adagrad_v2, "ApplyAdagradV2"},
    {Kind::ada_max, "ApplyAdaMax", true, false},
    {Kind::add_sign, "ApplyAddSign", true, false},
    {Kind::power_sign, "ApplyPowerSign", true, false},
    {Kind::keras_momentum, "ApplyKerasMomentum", false, true},
    {Kind::adam_with_amsgrad, "ApplyAdamWithAmsgrad", false, false},
};

/// True where the family of `k` has (Resource)SparseApply* forms.
constexpr bool has_sparse_forms(Kind k) {
  for (const OpForms& op : kOpForms)
    if (op.kind == k) return op.sparse;
  return false;
}

namespace forms_detail {
template <class F, std::size_t... I>
void for_each(F& f, std::index_sequence<I...>) {
  (f.template operator()<kOpForms[I].kind>(kOpForms[I]), ...);
}
}  // namespace forms_detail

/// Calls `f.template operator()<K>(forms)` for each row of kOpForms in order, K its Kind.
template <class F>
void for_each_op_forms(F&& f) {
  forms_detail::for_each(f, std::make_index_sequence<std::size(kOpForms)>{});
}

}  // namespace af::detail::more_optimizer
