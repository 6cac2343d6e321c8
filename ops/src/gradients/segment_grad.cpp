// Gradients of the segment reductions other than the sums (TensorFlow's math_grad.py):
// SegmentMean, SegmentMax, SegmentMin, SegmentProd (TensorFlow 2.x's _SegmentProdGrad; 1.x has
// none), UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd. The ops are built as
// math_grad.py builds them, with the default names of the functions it calls, inside the
// walk's `<op>_grad/` scope; `array_ops.where_v2` on operands of one shape is op Select here
// (TensorFlow 1.x's `where`), and shapes known while building are Consts.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// A scalar Const of `dtype` holding `value` (an int32 or int64 one for index inputs).
Output scalar_of(Graph& g, DType dtype, std::int64_t value, std::string_view name) {
  if (dtype == DType::int64) return g.constant(Tensor(value), name);
  return g.constant(Tensor(static_cast<std::int32_t>(value)), name);
}

// `_SegmentMeanGrad`: row i of data gets the gradient's row segment_ids[i] divided by the size
// of its segment, counted as a SegmentSum of ones shaped [n, 1, ..., 1].
Grads segment_mean_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output data = input(op, 0), ids = input(op, 1);
  const PartialShape& data_shape = data.shape();
  const PartialShape& ids_shape = ids.shape();
  Output ones_shape;
  if (data_shape.rank_known()) {
    const std::vector<std::int64_t> trailing(static_cast<std::size_t>(data_shape.rank() - 1), 1);
    if (ids_shape.fully_defined()) {
      std::vector<std::int64_t> dims = ids_shape.dims();
      dims.insert(dims.end(), trailing.begin(), trailing.end());
      ones_shape = int_constant(gr, dims, "concat");
    } else {
      ones_shape =
          concat({shape_of(ids, "Shape"), int_constant(gr, trailing, "ones")}, 0, "concat");
    }
  } else {
    // ones(expand_dims(rank(data) - 1, 0)) when the rank is known only at run time.
    const Output rank_minus_1 =
        sub(rank(data, "Rank"), scalar_of(gr, DType::int32, 1, "sub/y"), "sub");
    const Output remaining = fill(expand_dims(rank_minus_1, 0, "ExpandDims"),
                                  scalar_of(gr, DType::int32, 1, "ones/Const"), "ones");
    ones_shape = concat({shape_of(ids, "Shape"), remaining}, 0, "concat");
  }
  const Output ones = fill(ones_shape, scalar_like(g[0], 1.0, "ones_1/Const"), "ones_1");
  const Output scaled = binary("RealDiv", g[0], segment_sum(ones, ids, "SegmentSum"), "truediv");
  return {gather(scaled, ids, "GatherV2"), Output()};
}

// `_SegmentMinOrMaxGrad`: each segment's gradient divided equally among the elements equal to
// the segment's extremum; the others get 0.
Grads segment_min_max_grad(const Operation& op, const Grads& g) {
  const Output data = input(op, 0), ids = input(op, 1);
  const Output zeros = zeros_like(data, std::nullopt, "zeros_like");
  const Output gathered_outputs = gather(op.output(0), ids, "GatherV2");
  const Output is_selected = equal(data, gathered_outputs, "Equal");
  const Output num_selected =
      segment_sum(cast(is_selected, g[0].dtype(), "Cast"), ids, "SegmentSum");
  const Output weighted_grads = binary("RealDiv", g[0], num_selected, "truediv");
  const Output gathered_grads = gather(weighted_grads, ids, "GatherV2_1");
  return {select(is_selected, gathered_grads, zeros, "Select"), Output()};
}

// The three-case product gradient of SegmentProd and UnsortedSegmentProd: a segment without
// zeros divides its product by each element; with one zero, the zero gets the product of the
// others and the rest 0; with more zeros every element gets 0. `segment_sum` and
// `segment_prod` reduce by the op's segment ids, `gather_rows` gathers rows by them.
struct ProdParts {
  Output grad;                    // the incoming gradient, 0 for segments with several zeros
  Output gathered_non_zero_prod;  // per element: the product of its segment's nonzero elements
  Output gathered_prod;           // per element: its segment's product
  Output is_zero;                 // per element: data == 0
  Output non_zero_data;           // data with its zeros replaced by ones
};

template <class SegmentSum, class SegmentProd, class GatherRows>
ProdParts prod_parts(const Operation& op, const Output& incoming, SegmentSum&& segment_sum_of,
                     SegmentProd&& segment_prod_of, GatherRows&& gather_rows) {
  Graph& gr = op.graph();
  const Output data = input(op, 0);
  ProdParts p;
  p.is_zero = equal(data, scalar_like(data, 0.0, "Equal/y"), "Equal");
  const Output num_zeros = segment_sum_of(cast(p.is_zero, DType::int32, "Cast"));
  const Output several = greater(num_zeros, scalar_of(gr, DType::int32, 1, "Greater/y"), "Greater");
  p.grad = select(several, zeros_like(incoming, std::nullopt, "zeros_like"), incoming, "Select");
  p.non_zero_data = select(p.is_zero, ones_like(data, std::nullopt, "ones_like"), data, "Select_1");
  const Output non_zero_prod = segment_prod_of(p.non_zero_data);
  p.gathered_prod = gather_rows(op.output(0), "GatherV2");
  p.gathered_non_zero_prod = gather_rows(non_zero_prod, "GatherV2_1");
  return p;
}

// TensorFlow 2.x's `_SegmentProdGrad`.
Grads segment_prod_grad(const Operation& op, const Grads& g) {
  const Output ids = input(op, 1);
  const ProdParts p = prod_parts(
      op, g[0], [&](const Output& x) { return segment_sum(x, ids, "SegmentSum"); },
      [&](const Output& x) { return segment_prod(x, ids, "SegmentProd"); },
      [&](const Output& x, const char* name) { return gather(x, ids, name); });
  const Output prod_divided_by_el = binary("RealDiv", p.gathered_prod, p.non_zero_data, "truediv");
  const Output partial_derivative =
      select(p.is_zero, p.gathered_non_zero_prod, prod_divided_by_el, "Select_2");
  const Output gathered_grad = gather(p.grad, ids, "GatherV2_2");
  return {mul(gathered_grad, partial_derivative, "mul"), Output()};
}

// `_GatherDropNegatives`: the rows of `params` named by `ids` (clipped at 0), zeros where the
// id is negative; also the clipped ids and the mask of non-negative ids broadcast to the
// gathered shape, which a second call may pass back to reuse.
struct DroppedNegatives {
  Output gathered;
  Output zero_clipped_indices;
  Output is_positive;
};

DroppedNegatives gather_drop_negatives(const Output& params, const Output& ids,
                                       Output zero_clipped_indices = {}, Output is_positive = {}) {
  Graph& gr = params.graph();
  if (!zero_clipped_indices.valid())
    zero_clipped_indices = maximum(ids, zeros_like(ids, std::nullopt, "zeros_like"), "Maximum");
  const Output gathered = gather(params, zero_clipped_indices, "GatherV2");
  if (!is_positive.valid()) {
    is_positive =
        greater_equal(ids, scalar_of(gr, ids.dtype(), 0, "GreaterEqual/y"), "GreaterEqual");
    // Select wants the condition in the values' shape: ids' shape with a 1 for each dimension
    // of the rows, and'ed with ones of the gathered shape.
    const PartialShape& ids_shape = ids.shape();
    const PartialShape& gathered_shape = gathered.shape();
    if (ids_shape.rank_known() && gathered_shape.rank_known()) {
      const std::vector<std::int64_t> trailing(
          static_cast<std::size_t>(gathered_shape.rank() - ids_shape.rank()), 1);
      // Without row dimensions the mask has the gathered shape already.
      if (!trailing.empty()) {
        Output shape;
        if (ids_shape.fully_defined()) {
          std::vector<std::int64_t> dims = ids_shape.dims();
          dims.insert(dims.end(), trailing.begin(), trailing.end());
          shape = int_constant(gr, dims, "concat");
        } else {
          shape = concat({shape_of(is_positive, "Shape"), int_constant(gr, trailing, "ones")}, 0,
                         "concat");
        }
        is_positive = reshape_op(is_positive, shape, "Reshape");
        is_positive =
            logical_and(is_positive, ones_like(gathered, DType::boolean, "ones_like"), "and");
      }
    } else {
      // The ranks known only at run time: ones([rank(gathered) - rank(is_positive)]).
      const Output extra = sub(rank(gathered, "Rank"), rank(is_positive, "Rank_1"), "sub");
      const Output ones = fill(stack({extra}, 0, "ones/shape"),
                               scalar_of(gr, DType::int32, 1, "ones/Const"), "ones");
      const Output shape = concat({dynamic_shape(is_positive, "Shape"), ones}, 0, "concat");
      is_positive = reshape_op(is_positive, shape, "Reshape");
      is_positive =
          logical_and(is_positive, ones_like(gathered, DType::boolean, "ones_like"), "and");
    }
  }
  const Output zero_slice = zeros_like(gathered, std::nullopt, "zeros_like_1");
  return {select(is_positive, gathered, zero_slice, "Select"), zero_clipped_indices, is_positive};
}

// `_UnsortedSegmentMinOrMaxGrad`: as `_SegmentMinOrMaxGrad`, the rows of negative ids getting
// 0.
Grads unsorted_segment_min_max_grad(const Operation& op, const Grads& g) {
  const Output data = input(op, 0), ids = input(op, 1), num_segments = input(op, 2);
  const DroppedNegatives outputs = gather_drop_negatives(op.output(0), ids);
  const Output is_selected =
      logical_and(equal(data, outputs.gathered, "Equal"), outputs.is_positive, "LogicalAnd");
  const Output num_selected = unsorted_segment_sum(cast(is_selected, g[0].dtype(), "Cast"), ids,
                                                   num_segments, "UnsortedSegmentSum");
  const Output weighted_grads = binary("RealDiv", g[0], num_selected, "truediv");
  const Output gathered_grads =
      gather_drop_negatives(weighted_grads, ids, outputs.zero_clipped_indices, outputs.is_positive)
          .gathered;
  const Output zeros = zeros_like(gathered_grads, std::nullopt, "zeros_like");
  return {select(is_selected, gathered_grads, zeros, "Select"), Output(), Output()};
}

// `_UnsortedSegmentProdGrad`: as `_SegmentProdGrad`, the rows of negative ids getting 0 (the
// gradient's rows are gathered dropping them).
Grads unsorted_segment_prod_grad(const Operation& op, const Grads& g) {
  const Output data = input(op, 0), ids = input(op, 1), num_segments = input(op, 2);
  const Output zero_clipped_indices =
      maximum(ids, zeros_like(ids, std::nullopt, "zeros_like"), "Maximum");
  const ProdParts p = prod_parts(
      op, g[0],
      [&](const Output& x) {
        return unsorted_segment_sum(x, ids, num_segments, "UnsortedSegmentSum");
      },
      [&](const Output& x) {
        return unsorted_segment_prod(x, ids, num_segments, "UnsortedSegmentProd");
      },
      [&](const Output& x, const char* name) { return gather(x, zero_clipped_indices, name); });
  const Output prod_divided_by_el = binary("RealDiv", p.gathered_prod, data, "truediv");
  const Output partial_derivative =
      select(p.is_zero, p.gathered_non_zero_prod, prod_divided_by_el, "Select_2");
  const Output gathered_grad = gather_drop_negatives(p.grad, ids, zero_clipped_indices).gathered;
  return {mul(gathered_grad, partial_derivative, "mul"), Output(), Output()};
}

}  // namespace

void register_segment_gradients(GradientRegistry& r) {
  r.add("SegmentMean", segment_mean_grad);
  r.add("SegmentMax", segment_min_max_grad);
  r.add("SegmentMin", segment_min_max_grad);
  r.add("SegmentProd", segment_prod_grad);
  r.add("UnsortedSegmentMax", unsorted_segment_min_max_grad);
  r.add("UnsortedSegmentMin", unsorted_segment_min_max_grad);
  r.add("UnsortedSegmentProd", unsorted_segment_prod_grad);
}

}  // namespace af::detail
