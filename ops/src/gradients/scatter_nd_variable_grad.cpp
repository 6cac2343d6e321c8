// Gradients of ScatterNdNonAliasingAdd (array_grad.py) and SparseSegment{Sum,Mean,SqrtN}
// WithNumSegments (math_grad.py: dense, or IndexedSlices with the attr sparse_gradient), and
// the N-d variable updates TensorFlow marks not differentiable (state_grad.py:
// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub; it registers nothing for ScatterNdMax/Min and
// the ResourceScatterNd* ops, so a gradient through them fails as through any op without
// one).
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/gather_nd_ops.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"
#include "gradient_helpers.hpp"
#include "sparse_segment_grad.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

}  // namespace

void register_scatter_nd_variable_gradients(GradientRegistry& r) {
  for (const char* type : {"ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"})
    r.add_not_differentiable(type);
  // _ScatterNdNonAliasingAddGrad: the gradient itself for the input, gathered at the indices
  // for the updates.
  r.add("ScatterNdNonAliasingAdd", [](const Operation& op, const Grads& g) -> Grads {
    return {g[0], Output(), gather_nd(g[0], input(op, 1), "GatherNd")};
  });
  // _SparseSegment{Sum,Mean,SqrtN}WithNumSegmentsGrad: the Grad op with `data`'s rows,
  // `array_ops.shape(data)[0]`; with the attr sparse_gradient, _SparseSegmentReduceGradV2's
  // IndexedSlices of the GradV2 op.
  for (const char* kind : {"Sum", "Mean", "SqrtN"})
    r.add_sparse(std::string("SparseSegment") + kind + "WithNumSegments",
                 [kind](const Operation& op, const std::vector<Gradient>& g) {
                   const Output grad = g[0].to_dense();
                   if (wants_sparse_segment_gradient(op))
                     return std::vector<Gradient>{sparse_segment_gradient_v2(op, grad, kind),
                                                  Gradient(), Gradient(), Gradient()};
                   const Output dim0 = strided_slice(shape_of(input(op, 0), "Shape"), {0}, {1}, {1},
                                                     {.shrink_axis_mask = 1}, "strided_slice");
                   return std::vector<Gradient>{
                       sparse_segment_reduction_grad(kind, grad, input(op, 1), input(op, 2), dim0),
                       Gradient(), Gradient(), Gradient()};
                 });
}

}  // namespace af::detail
