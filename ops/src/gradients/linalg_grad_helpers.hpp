#pragma once

// Building blocks of the linear algebra gradients (linalg_grad.cpp, linalg_decomp_grad.cpp):
// math_ops.matmul and linalg.adjoint, as TensorFlow's linalg_grad.py builds them (a complex
// adjoint conjugates). Private to the ops module.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_more_ops.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/complex_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

/// The bool attr `name` of `op`, or `fallback` where the node does not set it.
inline bool bool_attr_or(const Operation& op, const char* name, bool fallback) {
  const auto* v = op.node_def().attr<bool>(name);
  return v ? *v : fallback;
}

/// math_ops.matmul with adjoints: MatMul `name` when both operands are statically matrices
/// (rank 2), a complex operand taken as adjoint conjugated first (op Conj, as Python does),
/// else BatchMatMulV2 `name` with adj_x / adj_y (which conjugate complex operands).
inline Output mm(const Output& a, const Output& b, bool adj_a = false, bool adj_b = false,
                 const char* name = "MatMul") {
  const bool matrices = a.shape().rank_known() && a.shape().rank() == 2 && b.shape().rank_known() &&
                        b.shape().rank() == 2;
  if (!matrices) return batch_matmul(a, b, adj_a, adj_b, name);
  const Output lhs = adj_a && is_complex(a.dtype()) ? conj(a) : a;
  const Output rhs = adj_b && is_complex(b.dtype()) ? conj(b) : b;
  return matmul(lhs, rhs, adj_a, adj_b, name);
}

/// linalg.adjoint of a matrix batch: Transpose "transpose" swapping the two innermost
/// dimensions (ConjugateTranspose for the complex types). Of a known rank the permutation is
/// a Const; of an unknown rank it is computed as Python's matrix_transpose computes it (Rank,
/// Range, Stack and ConcatV2 beside it).
inline Output adjoint(const Output& x) {
  Graph& g = x.graph();
  const bool complex = is_complex(x.dtype());
  if (x.shape().rank_known()) {
    const int rank = x.shape().rank();
    std::vector<std::int64_t> perm;
    for (int i = 0; i < rank - 2; ++i) perm.push_back(i);
    perm.push_back(rank - 1);
    perm.push_back(rank - 2);
    return complex ? conjugate_transpose(x, perm, "transpose") : transpose(x, perm, "transpose");
  }
  const Output r = rank(x, "Rank");
  const Output two = g.constant(Tensor(std::int32_t{2}), "sub/y");
  const Output one = g.constant(Tensor(std::int32_t{1}), "sub_1/y");
  const Output front = range(g.constant(Tensor(std::int32_t{0}), "range/start"), sub(r, two, "sub"),
                             g.constant(Tensor(std::int32_t{1}), "range/delta"), "range");
  const Output back = stack({sub(r, one, "sub_1"), sub(r, two, "sub_2")}, 0, "stack");
  const Output perm = concat({front, back}, 0, "concat");
  return complex ? conjugate_transpose(x, perm, "transpose") : transpose(x, perm, "transpose");
}

/// adjoint(x) for the gradient of `what` where that needs the rank of `x` known: throws
/// UnimplementedError "gradient of <what> needs a known rank" when it is not.
inline Output adjoint(const Output& x, const char* what) {
  if (!x.shape().rank_known())
    throw UnimplementedError(
        unimplemented(std::string("gradient of ") + what + " needs a known rank"));
  return adjoint(x);
}

/// The gradients `grad_a` and `grad_b` of a solve's matrix `a` and right-hand side `b`, each
/// summed over the batch dimensions it was broadcast along and reshaped to its input
/// (BroadcastGradientArgs of the batch shapes, as TensorFlow's solve gradients); unchanged when
/// both batch shapes are known and equal. `first` numbers the nodes' names: Shape_<first>,
/// Shape_<first + 1>, strided_slice_<first>, ... ("" for 0).
inline std::vector<Output> sum_over_broadcast_batches(const Output& a, const Output& b,
                                                      Output grad_a, Output grad_b, int first) {
  const PartialShape& as = a.shape();
  const PartialShape& bs = b.shape();
  if (as.fully_defined() && bs.fully_defined() &&
      std::vector<std::int64_t>(as.dims().begin(), as.dims().end() - 2) ==
          std::vector<std::int64_t>(bs.dims().begin(), bs.dims().end() - 2))
    return {grad_a, grad_b};
  auto named = [](const char* base, int k) {
    return k == 0 ? std::string(base) : std::string(base) + "_" + std::to_string(k);
  };
  auto batch_of = [](const Output& shape, const std::string& name) {
    return strided_slice(shape, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{-2},
                         std::vector<std::int64_t>{1}, StridedSliceMasks{.begin_mask = 1}, name);
  };
  const Output a_shape = shape_of(a, named("Shape", first));
  const Output b_shape = shape_of(b, named("Shape", first + 1));
  const Operation args = a.graph().create_op("BroadcastGradientArgs",
                                             {batch_of(a_shape, named("strided_slice", first)),
                                              batch_of(b_shape, named("strided_slice", first + 1))},
                                             {{"T", DType::int32}}, "BroadcastGradientArgs");
  grad_a = reshape_op(sum_op(grad_a, args.output(0), false, "Sum"), a_shape, "Reshape");
  grad_b = reshape_op(sum_op(grad_b, args.output(1), false, "Sum_1"), b_shape, "Reshape_1");
  return {grad_a, grad_b};
}

}  // namespace af::detail
