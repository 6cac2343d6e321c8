// Gradients of GatherNd, ResourceGatherNd, ScatterNd and TensorScatter{Update,Add,Sub,Max,Min}
// (TensorFlow's array_grad.py). A GatherNd by one index per row ([N, 1] indices) gives
// IndexedSlices, as TensorFlow's; the others are dense.
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/gather_nd_ops.hpp"
#include "actorflow/ops/indexed_slices.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _GatherNdGrad: IndexedSlices of the gradient's rows for [N, 1] indices, else the gradient
// scattered back with ScatterNd (rows named twice add up).
// _ResourceGatherNdGrad alike, the variable's shape read by VariableShape.
std::vector<Gradient> gather_nd_grad(const Operation& op, const std::vector<Gradient>& g) {
  const Output ref = input(op, 0), indices = input(op, 1), grad = g[0].to_dense();
  const Output ref_shape = ref.dtype() == DType::resource
                               ? variable_shape(ref, indices.dtype(), "VariableShape")
                               : shape(ref, indices.dtype(), "Shape");
  const PartialShape& is = indices.shape();
  if (is.rank_known() && is.rank() == 2 && is.dim(1) == 1)
    return {IndexedSlices{grad, squeeze(indices, {-1}, "Squeeze"), ref_shape}, Gradient()};
  return {scatter_nd(indices, grad, ref_shape, "ScatterNd"), Gradient()};
}

// _TensorScatterMinOrMaxGrad: the gradient split evenly between the tensor's entries and the
// updates that equal the result.
Grads tensor_scatter_min_max_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), indices = input(op, 1), y = input(op, 2), grad = g[0];
  const Output out = op.output(0);
  const Output x_ind = cast(equal(x, out, "Equal"), grad.dtype(), "Cast");
  const Output y_out = gather_nd(out, indices, "GatherNd");
  const Output y_ind = cast(equal(y, y_out, "Equal_1"), grad.dtype(), "Cast_1");
  const Output ys_ind = scatter_nd(indices, y_ind, shape(x, indices.dtype(), "Shape"), "ScatterNd");
  const Output ind = add(x_ind, ys_ind, "add");
  const Output x_grad = div(mul(grad, x_ind, "mul"), ind, "truediv");
  const Output y_grad =
      mul(gather_nd(div(grad, ind, "truediv_1"), indices, "GatherNd_1"), y_ind, "mul_1");
  return {x_grad, Output(), y_grad};
}

}  // namespace

void register_gather_nd_gradients(GradientRegistry& r) {
  r.add_sparse("GatherNd", gather_nd_grad);
  r.add_sparse("ResourceGatherNd", gather_nd_grad);
  // _ScatterNdGrad: the updates gather the output's gradient.
  r.add("ScatterNd", [](const Operation& op, const Grads& g) -> Grads {
    return {Output(), gather_nd(g[0], input(op, 0), "GatherNd"), Output()};
  });
  // _TensorScatterUpdateGrad: the replaced slices get no gradient from the tensor.
  r.add("TensorScatterUpdate", [](const Operation& op, const Grads& g) -> Grads {
    const Output indices = input(op, 1);
    const Output updates_grad = gather_nd(g[0], indices, "GatherNd");
    const Output zeros = zeros_like(input(op, 2), std::nullopt, "zeros_like");
    return {
        tensor_scatter_update(identity(g[0], "Identity"), indices, zeros, "TensorScatterUpdate"),
        Output(), updates_grad};
  });
  r.add("TensorScatterAdd", [](const Operation& op, const Grads& g) -> Grads {
    const Output updates_grad = gather_nd(g[0], input(op, 1), "GatherNd");
    return {identity(g[0], "Identity"), Output(), updates_grad};
  });
  r.add("TensorScatterSub", [](const Operation& op, const Grads& g) -> Grads {
    const Output updates_grad = gather_nd(g[0], input(op, 1), "GatherNd");
    return {identity(g[0], "Identity"), Output(), neg(updates_grad, "Neg")};
  });
  r.add("TensorScatterMax", tensor_scatter_min_max_grad);
  r.add("TensorScatterMin", tensor_scatter_min_max_grad);
}

}  // namespace af::detail
