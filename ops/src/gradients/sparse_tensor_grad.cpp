// Gradients of the SparseTensor ops as TensorFlow's sparse_grad.py registers them:
// SparseReorder, SparseAdd (SparseAddGrad), SparseTensorDenseAdd, SparseReduceSum,
// SparseSlice (SparseSliceGrad), SparseTensorDenseMatMul, SparseDenseCwise{Mul,Div} and
// SparseSoftmax; SparseAddGrad and SparseConcat are not differentiable, and
// SparseDenseCwiseAdd and SparseSparse{Maximum,Minimum} throw UnimplementedError as
// TensorFlow's NotImplementedError. Only the values (and dense operands) get gradients.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/gather_nd_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"
#include "actorflow/ops/sparse_tensor_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// `x[:, column]` of a matrix (StridedSlice, shrinking axis 1).
Output column(const Output& x, std::int64_t c, const char* name) {
  return strided_slice(x, {0, c}, {0, c + 1}, {1, 1},
                       StridedSliceMasks{.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2},
                       name);
}

// _SparseReorderGrad: the values' gradient gathered by the inverse of the permutation the
// reorder applied (found by reordering the entry numbers).
Grads sparse_reorder_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output indices = input(op, 0), shape_in = input(op, 2);
  const Output num_entries =
      strided_slice(shape(indices, DType::int32, "Shape"), {0}, {1}, {1},
                    StridedSliceMasks{.shrink_axis_mask = 1}, "strided_slice");
  const Output entries = range(gr.constant(Tensor(std::int32_t{0}), "range/start"), num_entries,
                               gr.constant(Tensor(std::int32_t{1}), "range/delta"), "range");
  const SparseTensor ordered =
      sparse_reorder(SparseTensor{indices, entries, shape_in}, "SparseReorder");
  const Output inverse = invert_permutation(ordered.values, "InvertPermutation");
  return {Output(), gather(g[1], inverse, "GatherV2"), Output()};
}

// _SparseReduceSumGrad: the output's gradient reshaped to the kept dims and gathered at each
// entry's index divided by the scale (dense_shape // kept dims).
Grads sparse_reduce_sum_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output indices = input(op, 0), sp_shape = input(op, 2), axes = input(op, 3);
  Output kept;
  const auto shape_value = constant_ints(sp_shape);
  const auto axes_value = constant_ints(axes);
  if (shape_value && axes_value) {
    // math_ops.reduced_shape with both known: numpy's int32 array, the axes set to 1.
    std::vector<std::int64_t> dims = *shape_value;
    const auto rank = static_cast<std::int64_t>(dims.size());
    for (auto a : *axes_value) dims[static_cast<std::size_t>(a < 0 ? a + rank : a)] = 1;
    kept = int_constant(gr, dims, "Const");
  } else {
    const Output rank = size(sp_shape, DType::int32, "Size");
    const Output wrapped = binary("FloorMod", add(axes, rank, "add"), rank, "mod");
    const Output ones_shape = shape(wrapped, DType::int32, "Shape");
    const Output ones =
        fill(ones_shape, gr.constant(Tensor(std::int64_t{1}), "ones/Const"), "ones");
    kept = dynamic_stitch({range(gr.constant(Tensor(std::int32_t{0}), "range/start"), rank,
                                 gr.constant(Tensor(std::int32_t{1}), "range/delta"), "range"),
                           wrapped},
                          {sp_shape, ones}, "DynamicStitch");
  }
  const Output reshaped = reshape(g[0], kept, "Reshape");
  const Output scale = floordiv(sp_shape, cast(kept, DType::int64, "Cast"), "floordiv");
  return {Output(), gather_nd(reshaped, floordiv(indices, scale, "floordiv_1"), "GatherNd"),
          Output(), Output()};
}

// _SparseTensorDenseMatMulGrad.
Grads sparse_dense_matmul_grad(const Operation& op, const Grads& g) {
  const Output a_indices = input(op, 0), a_values = input(op, 1), a_shape = input(op, 2);
  const Output b = input(op, 3), grad = g[0];
  const bool* adjoint_a = op.node_def().attr<bool>("adjoint_a");
  const bool* adjoint_b = op.node_def().attr<bool>("adjoint_b");
  const bool adj_a = adjoint_a && *adjoint_a, adj_b = adjoint_b && *adjoint_b;
  Output b_grad = sparse_tensor_dense_matmul(SparseTensor{a_indices, a_values, a_shape}, grad,
                                             !adj_a, false, "SparseTensorDenseMatMul");
  if (adj_b) b_grad = transpose(b_grad, std::vector<std::int64_t>{1, 0}, "transpose");
  const Output rows = column(a_indices, 0, "strided_slice");
  const Output cols = column(a_indices, 1, "strided_slice_1");
  const Output parts_a = gather(grad, adj_a ? cols : rows, "GatherV2");
  const Output parts_b =
      gather(adj_b ? transpose(b, std::vector<std::int64_t>{1, 0}, "transpose_1") : b,
             adj_a ? rows : cols, "GatherV2_1");
  Output values_grad;
  if (!adj_a && !adj_b)
    values_grad = batch_matmul(expand_dims(parts_a, -2, "ExpandDims"),
                               expand_dims(parts_b, -2, "ExpandDims_1"), false, true, "MatMul");
  else if (adj_a && !adj_b)
    values_grad = batch_matmul(expand_dims(parts_a, -1, "ExpandDims"),
                               expand_dims(parts_b, -1, "ExpandDims_1"), true, false, "MatMul");
  else if (!adj_a && adj_b)
    values_grad = batch_matmul(expand_dims(parts_a, -2, "ExpandDims"),
                               expand_dims(parts_b, -1, "ExpandDims_1"), false, false, "MatMul");
  else
    values_grad = batch_matmul(expand_dims(parts_a, -1, "ExpandDims"),
                               expand_dims(parts_b, -2, "ExpandDims_1"), true, true, "MatMul");
  return {Output(), squeeze(values_grad, {-2, -1}, "Squeeze"), Output(), b_grad};
}

// _SparseDenseCwiseMulOrDivGrad: the dense values each entry met (GatherNd at the indices
// scaled down to the dense operand's broadcast shape); the dense operand's gradient summed
// there by SparseTensorDenseAdd onto zeros.
Grads sparse_dense_cwise_grad(const Operation& op, const Grads& g, bool is_mul) {
  Graph& gr = op.graph();
  const Output x_indices = input(op, 0), x_values = input(op, 1), x_shape = input(op, 2);
  const Output y = input(op, 3), grad = g[0];
  const Output y_shape = cast(shape(y, DType::int32, "Shape"), DType::int64, "Cast");
  const Output num_added = expand_dims(
      sub(size(x_shape, DType::int32, "Size"), size(y_shape, DType::int32, "Size_1"), "sub"), 0,
      "ExpandDims");
  const Output ones = fill(num_added, gr.constant(Tensor(std::int64_t{1}), "ones/Const"), "ones");
  const Output augmented = concat({ones, y_shape}, 0, "concat");
  const Output scaling = floordiv(x_shape, augmented, "floordiv");
  Output scaled = floordiv(x_indices, scaling, "floordiv_1");
  const Output begin =
      concat({int_constant(gr, {0}, "concat_1/values_0"), num_added}, 0, "concat_1");
  scaled = slice(scaled, begin, int_constant(gr, {-1, -1}, "Slice/size"), "Slice");
  const Output dense_vals = gather_nd(y, scaled, "GatherNd");
  Output dx, dy_val;
  if (is_mul) {
    dx = mul(grad, dense_vals, "mul");
    dy_val = mul(grad, x_values, "mul_1");
  } else {
    dx = div(grad, dense_vals, "truediv");
    dy_val = mul(grad, div(neg(x_values, "Neg"), square(dense_vals, "Square"), "truediv_1"), "mul");
  }
  const Output dy =
      sparse_tensor_dense_add(SparseTensor{scaled, dy_val, y_shape},
                              zeros_like(y, std::nullopt, "zeros_like"), "SparseTensorDenseAdd");
  return {Output(), dx, Output(), dy};
}

// _SparseSoftmaxGrad: (grad - sum(grad * softmax) over the last dimension) * softmax, on
// the entries present.
Grads sparse_softmax_grad(const Operation& op, const Grads& g) {
  const Output indices = input(op, 0), shape_in = input(op, 2);
  const Output out_vals = op.output(0), grad = g[0];
  const Output product = mul(out_vals, grad, "mul");
  const Output summed = sparse_reduce_sum(SparseTensor{indices, product, shape_in},
                                          std::vector<std::int64_t>{-1}, true, "SparseReduceSum");
  const SparseTensor sp_sum = sparse_dense_cwise_add(SparseTensor{indices, grad, shape_in},
                                                     neg(summed, "Neg"), "SparseDenseCwiseAdd");
  return {Output(), mul(sp_sum.values, out_vals, "mul_1"), Output()};
}

// TensorFlow's gradient functions that raise NotImplementedError.
GradientFunction not_implemented(std::string type) {
  return [type](const Operation&, const Grads&) -> Grads {
    throw UnimplementedError(unimplemented("Gradient for " + type + " is not implemented."));
  };
}

}  // namespace

void register_sparse_tensor_gradients(GradientRegistry& r) {
  r.add_not_differentiable("SparseAddGrad");
  r.add_not_differentiable("SparseConcat");
  r.add("SparseReorder", sparse_reorder_grad);
  // _SparseAddGrad: SparseAddGrad of the sum's values' gradient.
  r.add("SparseAdd", [](const Operation& op, const Grads& g) -> Grads {
    const auto [a_grad, b_grad] =
        sparse_add_grad(g[1], input(op, 0), input(op, 3), op.output(0), "SparseAddGrad");
    return {Output(), a_grad, Output(), Output(), b_grad, Output(), Output()};
  });
  // _SparseTensorDenseAddGrad.
  r.add("SparseTensorDenseAdd", [](const Operation& op, const Grads& g) -> Grads {
    return {Output(), gather_nd(g[0], input(op, 0), "GatherNd"), Output(), g[0]};
  });
  r.add("SparseReduceSum", sparse_reduce_sum_grad);
  // _SparseSliceGrad: SparseSliceGrad of the slice's values' gradient.
  r.add("SparseSlice", [](const Operation& op, const Grads& g) -> Grads {
    return {Output(),
            sparse_slice_grad(g[1], input(op, 0), input(op, 3), op.output(0), "SparseSliceGrad"),
            Output(), Output(), Output()};
  });
  r.add("SparseTensorDenseMatMul", sparse_dense_matmul_grad);
  r.add("SparseDenseCwiseMul",
        [](const Operation& op, const Grads& g) { return sparse_dense_cwise_grad(op, g, true); });
  r.add("SparseDenseCwiseDiv",
        [](const Operation& op, const Grads& g) { return sparse_dense_cwise_grad(op, g, false); });
  r.add("SparseSoftmax", sparse_softmax_grad);
  for (const char* type : {"SparseDenseCwiseAdd", "SparseSparseMaximum", "SparseSparseMinimum"})
    r.add(type, not_implemented(type));
}

}  // namespace af::detail
