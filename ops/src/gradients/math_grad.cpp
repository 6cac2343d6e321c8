// Gradients of the math ops (TensorFlow 1.x's math_grad.py). Names follow TensorFlow's: the
// ops are created with the default names of the functions math_grad.py calls, inside the
// walk's `<op>_grad/` scope. Where TensorFlow computes a shape at every step but the shape
// is known while building, a Const stands in for it (fewer ops per step, same values).
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/batch_matmul_ops.hpp"
#include "actorflow/ops/complex_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"
#include "actorflow/ops/sparse_ops.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"
#include "gradient_helpers.hpp"
#include "sparse_segment_grad.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

Output scalar_const(const Output& like, double v, std::string_view name = "Const") {
  return scalar_like(like, v, name);
}

// _CastGrad's types: the floating-point and complex ones.
bool is_float(DType t) { return is_floating(t) || is_complex(t); }

// The shape of a reduction's input with the reduced axes set to 1, and the multiples that
// tile it back, when the rank and the axes are known while building. Unknown dims are
// filled from the input's Shape at run time.
struct ReducedShape {
  Output kept;       // int32 vector: input shape with reduced dims = 1
  Output multiples;  // int32 vector: 1 for kept dims, the input dim for reduced dims
};

std::optional<ReducedShape> reduced_shape(const Operation& op) {
  const Output x = input(op, 0);
  const PartialShape& s = x.shape();
  auto axes = constant_ints(input(op, 1));
  if (!s.rank_known() || !axes) return std::nullopt;
  const int rank = s.rank();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (auto a : *axes) reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
  Graph& g = op.graph();
  std::vector<std::int64_t> kept, multiples, kept_mask, reduce_mask;
  bool known = true;
  for (int d = 0; d < rank; ++d) {
    const bool r = reduced[static_cast<std::size_t>(d)];
    kept.push_back(r ? 1 : s.dim(d));
    multiples.push_back(r ? s.dim(d) : 1);
    kept_mask.push_back(r ? 0 : 1);
    reduce_mask.push_back(r ? 1 : 0);
    if (s.dim(d) < 0) known = false;
  }
  if (known) return ReducedShape{int_constant(g, kept), int_constant(g, multiples)};
  // shape * mask + (1 - mask): one Mul and one Add on int32 vectors.
  Output shape = shape_of(x);
  Output kept_out = add(mul(shape, int_constant(g, kept_mask)), int_constant(g, reduce_mask));
  Output mult_out = add(mul(shape, int_constant(g, reduce_mask)), int_constant(g, kept_mask));
  return ReducedShape{kept_out, mult_out};
}

// math_ops.reduced_shape at run time, for a rank or axes unknown while building (an
// imported loop's outputs): DynamicStitch of the input's shape and ones at the axes taken
// modulo the rank, and the multiples as _safe_shape_div(shape, kept).
ReducedShape dynamic_reduced_shape(const Operation& op) {
  Graph& g = op.graph();
  Output axes = input(op, 1);
  if (axes.dtype() != DType::int32) axes = cast(axes, DType::int32, "Cast");
  const Output shape = shape_of(input(op, 0));
  const Output rank = size(shape, DType::int32, "Size");
  const Output wrapped = binary("FloorMod", binary("AddV2", axes, rank, "add"), rank, "mod");
  const Output ones =
      fill(shape_of(wrapped, "Shape_1"), g.constant(Tensor(std::int32_t{1}), "Fill/value"));
  const Output kept =
      dynamic_stitch({range(rank, "range"), wrapped}, {shape, ones}, "DynamicStitch");
  const Output one = g.constant(Tensor(std::int32_t{1}), "Maximum/y");
  const Output multiples =
      binary("FloorDiv", shape, binary("Maximum", kept, one, "Maximum"), "floordiv");
  return ReducedShape{kept, multiples};
}

/// reduced_shape, or its run-time form when the rank or the axes are unknown.
ReducedShape any_reduced_shape(const Operation& op) {
  auto rs = reduced_shape(op);
  return rs ? *rs : dynamic_reduced_shape(op);
}

// `_SumGrad`: the gradient reshaped to the kept dims and tiled back to the input's shape.
Output sum_grad(const Operation& op, const Output& grad) {
  const Output x = input(op, 0);
  Graph& g = op.graph();
  const PartialShape& s = x.shape();
  auto axes = constant_ints(input(op, 1));
  if (s.rank_known() && axes) {
    // Fast path of math_grad.py when every dim is reduced: Reshape to [1]*rank and Tile.
    const int rank = s.rank();
    bool all = static_cast<int>(axes->size()) == rank;
    for (int i = 0; all && i < rank; ++i) all = (*axes)[static_cast<std::size_t>(i)] == i;
    if (all) {
      // As Python's array_ops.reshape(grad, [1] * rank): the list is the Const "Reshape/shape".
      const std::string reshape = g.unique_name("Reshape");
      Output ones;
      {
        auto scope = g.name_scope(reshape + "/");
        ones =
            int_constant(g, std::vector<std::int64_t>(static_cast<std::size_t>(rank), 1), "shape");
      }
      Output r = reshape_op(grad, ones, reshape + "/");
      Output shape = s.fully_defined() ? int_constant(g, s.dims()) : shape_of(x);
      return tile_op(r, shape);
    }
  }
  const ReducedShape rs = any_reduced_shape(op);
  return tile_op(reshape_op(grad, rs.kept), rs.multiples);
}

Grads add_grad(const Operation& op, const Grads& g) {
  auto [gx, gy] = reduce_broadcast(op, g[0], g[0]);
  return {gx, gy};
}

Grads sub_grad(const Operation& op, const Grads& g) {
  auto [gx, gy] = reduce_broadcast(op, g[0], g[0]);
  return {gx, neg(gy, "Neg")};
}

Grads mul_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  // TensorFlow's fast path: x, y and the gradient of one fully defined shape.
  const PartialShape& s = x.shape();
  if (s.fully_defined() && y.shape() == s && g[0].shape() == s &&
      (g[0].dtype() == DType::float32 || g[0].dtype() == DType::int32))
    return {binary("Mul", g[0], y, "Mul"), binary("Mul", g[0], x, "Mul_1")};
  // Python's math_ops.conj: complex inputs conjugated, real ones as they are.
  Output gxy = binary("Mul", g[0], conj(y), "Mul");
  Output gyx = binary("Mul", conj(x), g[0], "Mul_1");
  auto [gx, gy] = reduce_broadcast(op, gxy, gyx);
  return {gx, gy};
}

Grads real_div_grad(const Operation& op, const Grads& g) {
  const Output x = conj(input(op, 0)), y = conj(input(op, 1));
  const char* div = op.type() == "Div" ? "Div" : "RealDiv";
  Output gx_full = binary(div, g[0], y, div);
  Output neg_x = neg(x, "Neg");
  Output gy_full = mul(g[0], binary(div, binary(div, neg_x, y), y), "mul");
  auto [gx, gy] = reduce_broadcast(op, gx_full, gy_full);
  return {gx, gy};
}

// TensorFlow's _DivNoNanGrad: div_no_nan(g, y) and g * div_no_nan(div_no_nan(-x, y), y).
Grads div_no_nan_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  Output gx_full = binary("DivNoNan", g[0], y, "div_no_nan");
  Output gy_full = mul(
      g[0],
      binary("DivNoNan", binary("DivNoNan", neg(x, "Neg"), y, "div_no_nan_1"), y, "div_no_nan_2"),
      "mul");
  auto [gx, gy] = reduce_broadcast(op, gx_full, gy_full);
  return {gx, gy};
}

Grads matmul_grad(const Operation& op, const Grads& g) {
  const bool ta = *op.node_def().attr<bool>("transpose_a");
  const bool tb = *op.node_def().attr<bool>("transpose_b");
  const Output a = conj(input(op, 0)), b = conj(input(op, 1)), grad = g[0];
  if (!ta && !tb)
    return {matmul(grad, b, false, true, "MatMul"), matmul(a, grad, true, false, "MatMul_1")};
  if (!ta && tb)
    return {matmul(grad, b, false, false, "MatMul"), matmul(grad, a, true, false, "MatMul_1")};
  if (ta && !tb)
    return {matmul(b, grad, false, true, "MatMul"), matmul(a, grad, false, false, "MatMul_1")};
  return {matmul(b, grad, true, true, "MatMul"), matmul(grad, a, true, true, "MatMul_1")};
}

// _BatchMatMul / _BatchMatMulV2: the products of matmul_grad with adjoints for transposes
// (conjugate transposes), each summed over the batch dimensions its input was broadcast along.
Grads batch_matmul_grad(const Operation& op, const Grads& g) {
  const bool ax = *op.node_def().attr<bool>("adj_x");
  const bool ay = *op.node_def().attr<bool>("adj_y");
  const Output x = input(op, 0), y = input(op, 1), grad = g[0];
  // math_ops.matmul: MatMul for two matrices, BatchMatMulV2 otherwise.
  auto mm = [](const Output& a, const Output& b, bool adj_a, bool adj_b, const char* name) {
    const bool matrices = a.shape().rank_known() && a.shape().rank() == 2 &&
                          b.shape().rank_known() && b.shape().rank() == 2;
    // MatMul transposes only: a complex adjoint conjugates first, as math_ops.matmul does.
    if (matrices) return matmul(adj_a ? conj(a) : a, adj_b ? conj(b) : b, adj_a, adj_b, name);
    return batch_matmul(a, b, adj_a, adj_b, name);
  };
  Output gx, gy;
  if (!ax && !ay) {
    gx = mm(grad, y, false, true, "MatMul");
    gy = mm(x, grad, true, false, "MatMul_1");
  } else if (!ax) {
    gx = mm(grad, y, false, false, "MatMul");
    gy = mm(grad, x, true, false, "MatMul_1");
  } else if (!ay) {
    gx = mm(y, grad, false, true, "MatMul");
    gy = mm(x, grad, false, false, "MatMul_1");
  } else {
    gx = mm(y, grad, true, true, "MatMul");
    gy = mm(grad, x, true, true, "MatMul_1");
  }
  if (op.type() == "BatchMatMul") return {gx, gy};  // batch dimensions equal
  const PartialShape& px = x.shape();
  const PartialShape& py = y.shape();
  const bool may_batch = !px.rank_known() || px.rank() > 2 || !py.rank_known() || py.rank() > 2;
  auto batch = [](const PartialShape& p) {
    return std::vector<std::int64_t>(p.dims().begin(), p.dims().end() - 2);
  };
  if (!may_batch || (px.fully_defined() && py.fully_defined() && batch(px) == batch(py) &&
                     gx.shape() == px && gy.shape() == py))
    return {gx, gy};
  Graph& gr = op.graph();
  if (px.fully_defined() && py.fully_defined()) {
    // Known while building: sum over the broadcast axes only, as Consts.
    std::vector<std::int64_t> rx, ry;
    throw_if_error(broadcast_reduction_axes(batch(px), batch(py), &rx, &ry));
    auto reduce = [&](const Output& full, const std::vector<std::int64_t>& axes,
                      const PartialShape& target, const char* sum_name, const char* reshape_name) {
      const Output summed =
          axes.empty() ? full : sum_op(full, int_constant(gr, axes, "Const"), false, sum_name);
      return reshape_op(summed, int_constant(gr, target.dims(), "Const"), reshape_name);
    };
    return {reduce(gx, rx, px, "Sum", "Reshape"), reduce(gy, ry, py, "Sum_1", "Reshape_1")};
  }
  const Output sx = dynamic_shape(x, "Shape"), sy = dynamic_shape(y, "Shape_1");
  const StridedSliceMasks begin_only{.begin_mask = 1};
  const Output bx = strided_slice(sx, {0}, {-2}, {1}, begin_only, "strided_slice");
  const Output by = strided_slice(sy, {0}, {-2}, {1}, begin_only, "strided_slice_1");
  Operation args = gr.create_op("BroadcastGradientArgs", {bx, by}, {{"T", DType::int32}},
                                "BroadcastGradientArgs");
  return {reshape_op(sum_op(gx, args.output(0), false, "Sum"), sx, "Reshape"),
          reshape_op(sum_op(gy, args.output(1), false, "Sum_1"), sy, "Reshape_1")};
}

Grads mean_grad(const Operation& op, const Grads& g) {
  Output sum = sum_grad(op, g[0]);
  const PartialShape& in = input(op, 0).shape();
  const PartialShape& out = op.output(0).shape();
  Output factor;
  if (in.fully_defined() && out.fully_defined()) {
    const std::int64_t n_in = in.num_elements(),
                       n_out = std::max<std::int64_t>(out.num_elements(), 1);
    factor = scalar_const(sum, static_cast<double>(n_in / n_out), "Const");
  } else {
    // prod(shape(x)) / max(prod(shape(y)), 1), computed at run time.
    Graph& gr = op.graph();
    Output axis0 = int_constant(gr, {0});
    auto prod = [&](const Output& shape) {
      return gr
          .create_op("Prod", {shape, axis0},
                     {{"keep_dims", false}, {"T", DType::int32}, {"Tidx", DType::int32}}, "Prod")
          .output(0);
    };
    Output in_size = prod(shape_of(input(op, 0)));
    Output out_size = prod(shape_of(op.output(0), "Shape_1"));
    Output one = gr.constant(Tensor(std::int32_t{1}), "Maximum/y");
    Output safe = binary("Maximum", out_size, one, "Maximum");
    Output ratio = binary("FloorDiv", in_size, safe, "floordiv");
    factor = cast(ratio, sum.dtype(), "Cast");
  }
  return {binary("RealDiv", sum, factor, "truediv"), Output()};
}

// `_MinOrMaxGrad`: the gradient shared among the elements equal to the extremum.
Grads min_max_grad(const Operation& op, const Grads& g) {
  const ReducedShape rs = any_reduced_shape(op);
  Output y = reshape_op(op.output(0), rs.kept, "Reshape");
  Output grad = reshape_op(g[0], rs.kept, "Reshape_1");
  Output equal =
      op.graph().create_op("Equal", {y, input(op, 0)}, {{"T", y.dtype()}}, "Equal").output(0);
  Output indicators = cast(equal, grad.dtype(), "Cast");
  Output num_selected =
      reshape_op(sum_op(indicators, input(op, 1), false, "Sum"), rs.kept, "Reshape_2");
  return {mul(binary("RealDiv", indicators, num_selected, "truediv"), grad, "mul"), Output()};
}

// `_ProdGrad`: d prod / d x_i is the product of the other reduced elements, computed as
// TensorFlow does without dividing (so zeros are exact): the reduced axes transposed to the
// front and flattened into one, then the exclusive cumulative products from the left and
// from the right multiplied, moved back and scaled by the tiled gradient.
//
// With the rank or the axes known only at run time, the permutation is built when the step
// runs, as math_grad.py always does: the reduced axes taken modulo the rank, the others their
// ListDiff from range(rank).
Grads dynamic_prod_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0);
  const ReducedShape rs = dynamic_reduced_shape(op);
  const Output grad = tile_op(reshape_op(g[0], rs.kept, "Reshape"), rs.multiples, "Tile");
  const Output shape = shape_of(x, "Shape_1");
  const Output rank = size(shape, DType::int32, "Rank");
  Output axes = reshape_op(input(op, 1), int_constant(gr, {-1}, "Reshape_1/shape"), "Reshape_1");
  if (axes.dtype() != DType::int32) axes = cast(axes, DType::int32, "Cast");
  const Output reduced = binary("FloorMod", binary("AddV2", axes, rank, "add_1"), rank, "mod_1");
  const Output other = setdiff1d(range(rank, "range_1"), reduced, DType::int32, "ListDiff").first;
  const Output perm = concat({reduced, other}, 0, "concat");
  auto prod_of = [&](const Output& dims, const char* name) {
    return gr
        .create_op("Prod", {dims, int_constant(gr, {0}, std::string(name) + "/reduction_indices")},
                   {{"keep_dims", false}, {"T", DType::int32}, {"Tidx", DType::int32}}, name)
        .output(0);
  };
  const Output reduced_num = prod_of(gather(shape, reduced, "GatherV2"), "Prod");
  const Output other_num = prod_of(gather(shape, other, "GatherV2_1"), "Prod_1");
  const Output permuted = transpose(x, perm, "transpose");
  const Output reshaped =
      reshape_op(permuted, stack({reduced_num, other_num}, 0, "stack"), "Reshape_2");
  const Output left = cumprod(reshaped, 0, true, false, "Cumprod");
  const Output right = cumprod(reshaped, 0, true, true, "Cumprod_1");
  const Output y =
      reshape_op(mul(left, right, "mul"), dynamic_shape(permuted, "Shape_2"), "Reshape_3");
  const Output out = mul(
      grad, transpose(y, invert_permutation(perm, "InvertPermutation"), "transpose_1"), "mul_1");
  return {reshape_op(out, shape, "Reshape_4"), Output()};
}

Grads prod_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0);
  auto rs = reduced_shape(op);
  if (!rs) return dynamic_prod_grad(op, g);
  Output grad = tile_op(reshape_op(g[0], rs->kept, "Reshape"), rs->multiples, "Tile");
  const PartialShape& s = x.shape();
  const int rank = s.rank();
  std::vector<std::int64_t> reduced;
  std::vector<bool> is_reduced(static_cast<std::size_t>(rank), false);
  const std::vector<std::int64_t> axes =
      *constant_ints(input(op, 1));  // known: reduced_shape checked
  for (auto a : axes) {
    const std::int64_t d = (a % rank + rank) % rank;
    if (is_reduced[static_cast<std::size_t>(d)]) continue;  // setdiff1d keeps each axis once
    is_reduced[static_cast<std::size_t>(d)] = true;
    reduced.push_back(d);
  }
  std::vector<std::int64_t> perm = reduced;
  for (int d = 0; d < rank; ++d)
    if (!is_reduced[static_cast<std::size_t>(d)]) perm.push_back(d);
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  // [reduced_num, other_num]: the reduced elements of each output element in a column.
  Output flat_shape;
  if (s.fully_defined()) {
    std::int64_t reduced_num = 1;
    for (auto d : reduced) reduced_num *= s.dim(static_cast<int>(d));
    const std::int64_t other_num = reduced_num == 0 ? 0 : s.num_elements() / reduced_num;
    flat_shape = int_constant(gr, {reduced_num, other_num}, "Reshape/shape");
  } else {
    Output dims = gather(shape_of(x, "Shape"), int_constant(gr, reduced, "reduced"), "GatherV2");
    Output reduced_num =
        gr.create_op("Prod", {dims, int_constant(gr, {0}, "Const")},
                     {{"keep_dims", true}, {"T", DType::int32}, {"Tidx", DType::int32}}, "Prod")
            .output(0);
    flat_shape = concat({reduced_num, int_constant(gr, {-1}, "Const_1")}, 0, "concat");
  }
  Output permuted = transpose(x, int_constant(gr, perm, "concat_1"), "transpose");
  Output reshaped = reshape_op(permuted, flat_shape, "Reshape_1");
  Output left = cumprod(reshaped, 0, true, false, "Cumprod");
  Output right = cumprod(reshaped, 0, true, true, "Cumprod_1");
  Output y = reshape_op(mul(left, right, "mul"), shape_of(permuted, "Shape_1"), "Reshape_2");
  Output out = mul(
      grad, transpose(y, int_constant(gr, inverse, "InvertPermutation"), "transpose_1"), "mul_1");
  return {reshape_op(out, shape_of(x, "Shape_2"), "Reshape_3"), Output()};
}

Grads unary_with_output(const char* grad_op, const Operation& op, const Grads& g,
                        bool conjugate = false) {
  Output y = op.output(0);
  auto deps = op.graph().control_dependencies({g[0].op()});
  if (conjugate) y = conj(y);  // Python's math_ops.conj: complex outputs only
  return {binary(grad_op, y, g[0], grad_op)};
}

Grads square_grad(const Operation& op, const Grads& g) {
  Output x = input(op, 0);
  Output two;
  Output x2;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    two = scalar_const(x, 2.0, "Const");
    x2 = binary("Mul", conj(x), two, "Mul");
  }
  return {binary("Mul", g[0], x2, "Mul_1")};
}

Grads exp_grad(const Operation& op, const Grads& g) {
  auto deps = op.graph().control_dependencies({g[0].op()});
  return {mul(g[0], conj(op.output(0)), "mul")};
}

// `type`(x) of the op's input, computed after the incoming gradient (TensorFlow's
// `with ops.control_dependencies([grad])` in _SinGrad, _CosGrad, _LogGrad).
Output unary_of_input_after(const Operation& op, const Grads& g, const char* type) {
  auto deps = op.graph().control_dependencies({g[0].op()});
  return unary(type, conj(input(op, 0)), type);
}

// TensorFlow's _SinGrad: grad * cos(x).
Grads sin_grad(const Operation& op, const Grads& g) {
  return {mul(g[0], unary_of_input_after(op, g, "Cos"), "mul")};
}

// TensorFlow's _CosGrad: -grad * sin(x).
Grads cos_grad(const Operation& op, const Grads& g) {
  const Output s = unary_of_input_after(op, g, "Sin");
  return {mul(unary("Neg", g[0], "Neg"), s, "mul")};
}

Grads log_grad(const Operation& op, const Grads& g) {
  return {mul(g[0], unary_of_input_after(op, g, "Reciprocal"), "mul")};
}

Grads abs_grad(const Operation& op, const Grads& g) {
  return {mul(g[0], unary("Sign", input(op, 0), "Sign"), "mul")};
}

// `_MaximumMinimumGrad`: the gradient goes to the side the selector picked.
Grads max_min_grad(const Operation& op, const Grads& g, const char* selector) {
  const Output x = input(op, 0), y = input(op, 1);
  Output zeros = zeros_like_op(g[0], "zeros");
  Output mask = op.graph().create_op(selector, {x, y}, {{"T", x.dtype()}}, selector).output(0);
  auto select = [&](const Output& a, const Output& b, const char* name) {
    return op.graph().create_op("Select", {mask, a, b}, {{"T", a.dtype()}}, name).output(0);
  };
  Output xgrad = select(g[0], zeros, "Select");
  Output ygrad = select(zeros, g[0], "Select_1");
  auto [gx, gy] = reduce_broadcast(op, xgrad, ygrad);
  return {gx, gy};
}

Grads pow_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  // Python's conj: complex operands only; log(x) is safe where complex x is nonzero.
  const Output x = conj(input(op, 0)), y = conj(input(op, 1)), z = conj(op.output(0));
  Output y_minus_1 = sub(y, scalar_const(y, 1.0, "sub/y"), "sub");
  Output gx_full = mul(mul(g[0], y, "mul"), binary("Pow", x, y_minus_1, "Pow"), "mul_1");
  const bool complex = is_complex(x.dtype());
  Output mask = gr.create_op(complex ? "NotEqual" : "Greater",
                             {x, scalar_const(x, 0.0, complex ? "NotEqual/y" : "Greater/y")},
                             {{"T", x.dtype()}}, complex ? "NotEqual" : "Greater")
                    .output(0);
  Output ones = gr.create_op("OnesLike", {x}, {{"T", x.dtype()}}, "ones_like").output(0);
  Output safe_x = gr.create_op("Select", {mask, x, ones}, {{"T", x.dtype()}}, "Select").output(0);
  Output log_x =
      gr.create_op("Select", {mask, unary("Log", safe_x, "Log"), zeros_like_op(x, "zeros_like")},
                   {{"T", x.dtype()}}, "Select_1")
          .output(0);
  Output gy_full = mul(mul(g[0], z, "mul_2"), log_x, "mul_3");
  auto [gx, gy] = reduce_broadcast(op, gx_full, gy_full);
  return {gx, gy};
}

Grads squared_difference_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  Output x_grad;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    x_grad = mul(mul(scalar_const(g[0], 2.0, "scalar"), g[0], "Mul"), sub(x, y, "sub"), "mul");
  }
  auto [gx, gy] = reduce_broadcast(op, x_grad, x_grad);
  return {gx, neg(gy, "Neg")};
}

Grads softmax_grad(const Operation& op, const Grads& g) {
  Output s = op.output(0);
  Output sum_channels = reduce_sum(mul(g[0], s, "mul"), std::vector<std::int64_t>{-1}, true, "Sum");
  return {mul(sub(g[0], sum_channels, "sub"), s, "mul_1")};
}

Grads log_softmax_grad(const Operation& op, const Grads& g) {
  Output softmax = unary("Exp", op.output(0), "Exp");
  Output sum = reduce_sum(g[0], std::vector<std::int64_t>{-1}, true, "Sum");
  return {sub(g[0], mul(sum, softmax, "mul"), "sub")};
}

// `_CastGrad`: IndexedSlices stay slices, their values cast.
std::vector<Gradient> cast_grad(const Operation& op, const std::vector<Gradient>& g) {
  const DType src = input(op, 0).dtype();
  if (!is_float(src) || !is_float(op.output(0).dtype())) return {Gradient()};
  if (g[0].is_slices()) {
    const IndexedSlices& s = g[0].slices();
    return {IndexedSlices{cast(s.values, src, "Cast"), s.indices, s.dense_shape}};
  }
  return {cast(g[0].dense(), src, "Cast")};
}

}  // namespace

void register_math_gradients(GradientRegistry& r) {
  r.add("Add", add_grad);
  r.add("AddV2", add_grad);
  r.add("Sub", sub_grad);
  r.add("Mul", mul_grad);
  r.add("RealDiv", real_div_grad);
  r.add("DivNoNan", div_no_nan_grad);
  r.add("LeakyRelu", [](const Operation& op, const Grads& g) -> Grads {
    float alpha = 0.2f;
    if (auto a = op.node_def().attr<float>("alpha")) alpha = *a;
    return {op.graph()
                .create_op("LeakyReluGrad", {g[0], input(op, 0)},
                           {{"T", g[0].dtype()}, {"alpha", alpha}}, "LeakyReluGrad")
                .output(0)};
  });
  r.add("Div", real_div_grad);
  // math_grad.py's _SparseSegment{Sum,Mean,SqrtN}Grad: the Grad op, with the data's rows; with
  // the attr sparse_gradient, _SparseSegmentReduceGradV2's IndexedSlices of the GradV2 op.
  for (const char* kind : {"Sum", "Mean", "SqrtN"})
    r.add_sparse(std::string("SparseSegment") + kind, [kind](const Operation& op,
                                                             const std::vector<Gradient>& g) {
      const Output grad = g[0].to_dense();
      if (wants_sparse_segment_gradient(op))
        return std::vector<Gradient>{sparse_segment_gradient_v2(op, grad, kind), Gradient(),
                                     Gradient()};
      Graph& gr = op.graph();
      const Output dim0 = gather(shape_of(input(op, 0), "Shape"),
                                 gr.constant(Tensor(std::int32_t{0}), "Const"), "strided_slice");
      return std::vector<Gradient>{
          sparse_segment_reduction_grad(kind, grad, input(op, 1), input(op, 2), dim0), Gradient(),
          Gradient()};
    });
  // sparse_grad.py's _SparseFillEmptyRowsGrad: to the values and the default value.
  r.add("SparseFillEmptyRows", [](const Operation& op, const Grads& g) -> Grads {
    if (g.size() < 2 || !g[1].valid()) return {Output(), Output(), Output(), Output()};
    auto [d_values, d_default] = sparse_fill_empty_rows_grad(op.output(3), g[1]);
    return {Output(), d_values, Output(), d_default};
  });
  // TensorFlow registers no gradient for SparseReshape: its inputs and outputs are int64, so
  // backprop never reaches it (the values pass beside it, through an Identity).
  r.add_not_differentiable("SparseReshape");
  // _SegmentSumGrad: each row gets its segment's gradient.
  r.add("SegmentSum", [](const Operation& op, const Grads& g) -> Grads {
    return {gather(g[0], input(op, 1), "GatherV2"), Output()};
  });
  r.add("Neg", [](const Operation&, const Grads& g) -> Grads { return {neg(g[0], "Neg")}; });
  r.add("AddN", [](const Operation& op, const Grads& g) {
    return Grads(op.node()->inputs().size(), g[0]);
  });
  r.add("MatMul", matmul_grad);
  for (const char* type : {"BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})
    r.add(type, batch_matmul_grad);
  r.add("Sum", [](const Operation& op, const Grads& g) -> Grads {
    return {sum_grad(op, g[0]), Output()};
  });
  r.add("Mean", mean_grad);
  r.add("Max", min_max_grad);
  r.add("Min", min_max_grad);
  r.add("Prod", prod_grad);
  r.add("Relu", [](const Operation& op, const Grads& g) -> Grads {
    return {binary("ReluGrad", g[0], op.output(0), "ReluGrad")};
  });
  r.add("Sigmoid", [](const Operation& op, const Grads& g) {
    return unary_with_output("SigmoidGrad", op, g, true);
  });
  r.add("Tanh", [](const Operation& op, const Grads& g) {
    return unary_with_output("TanhGrad", op, g, true);
  });
  r.add("Sqrt",
        [](const Operation& op, const Grads& g) { return unary_with_output("SqrtGrad", op, g); });
  r.add("Rsqrt",
        [](const Operation& op, const Grads& g) { return unary_with_output("RsqrtGrad", op, g); });
  for (const char* type : {"Reciprocal", "Inv"})  // Inv: Reciprocal's old name, _InvGrad
    r.add(type, [](const Operation& op, const Grads& g) {
      return unary_with_output("ReciprocalGrad", op, g);
    });
  r.add("Softmax", softmax_grad);
  r.add("LogSoftmax", log_softmax_grad);
  r.add("Square", square_grad);
  r.add("Exp", exp_grad);
  r.add("Log", log_grad);
  r.add("Sin", sin_grad);
  r.add("Cos", cos_grad);
  r.add("Abs", abs_grad);
  r.add("Maximum",
        [](const Operation& op, const Grads& g) { return max_min_grad(op, g, "GreaterEqual"); });
  r.add("Minimum",
        [](const Operation& op, const Grads& g) { return max_min_grad(op, g, "LessEqual"); });
  r.add("Pow", pow_grad);
  r.add("SquaredDifference", squared_difference_grad);
  r.add("L2Loss", [](const Operation& op, const Grads& g) -> Grads {
    return {mul(input(op, 0), g[0], "mul")};
  });
  r.add_sparse("Cast", cast_grad);
  r.add("Sign", [](const Operation& op, const Grads&) -> Grads {
    return {zeros_like_op(input(op, 0), "zeros_like")};
  });
  r.add("Floor", [](const Operation&, const Grads&) -> Grads { return {Output()}; });
  r.add("FloorDiv", [](const Operation&, const Grads&) -> Grads { return {Output(), Output()}; });
  for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                           "LogicalNot", "LogicalAnd", "LogicalOr", "ArgMax", "ArgMin", "Range",
                           "RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                           "RandomShuffle", "Where", "IsVariableInitialized"})
    r.add_not_differentiable(type);
  // array_grad.py: the gradient is checked as well.
  r.add("CheckNumerics", [](const Operation& op, const Grads& g) -> Grads {
    std::string message = "Not a number (NaN) or infinity (Inf) values detected in gradient. ";
    if (auto m = op.node_def().attr<std::string>("message")) message += *m;
    return {op.graph()
                .create_op("CheckNumerics", {g[0]}, {{"T", g[0].dtype()}, {"message", message}},
                           "CheckNumerics")
                .output(0)};
  });
}

}  // namespace af::detail
