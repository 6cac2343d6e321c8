// Gradients of the array ops (TensorFlow 1.x's array_grad.py): Reshape, ExpandDims, Squeeze,
// Identity, ConcatV2, Pack, Unpack, Split, SplitV, ReverseV2, Transpose, Tile, Fill, Select,
// GatherV2, Slice, StridedSlice, StridedSliceGrad, Pad, PadV2, MirrorPad, MirrorPadGrad,
// UnsortedSegmentSum (math_grad.py, kept here beside GatherV2), SparseToDense (sparse_grad.py),
// ResourceGather and ReadVariableOp (resource_variable_ops.py); and the ops that have none
// (shapes, sizes, StopGradient, ...). GatherV2 on a constant axis 0 and
// ResourceGather give IndexedSlices, which Identity and ReadVariableOp pass on unchanged.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/gather_nd_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/pad_ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// `_ReshapeToInput`.
Output reshape_to_input(const Operation& op, const Output& grad) {
  return reshape_op(grad, shape_of(input(op, 0), "Shape"), "Reshape");
}

// `_ConcatGrad` of ConcatV2 (values, then the axis) and of TensorFlow's first Concat (the
// dimension, then the values): a slice of the gradient per value; the axis gets none.
Grads concat_grad(const Operation& op, const Grads& g) {
  const int n = static_cast<int>(op.node()->inputs().size()) - 1;
  const bool v1 = op.type() == "Concat";
  const int first_value = v1 ? 1 : 0;
  const auto value = [&](int i) { return input(op, first_value + i); };
  Grads out(static_cast<std::size_t>(n) + 1);
  const auto grad_of = [&](int i) -> Output& {
    return out[static_cast<std::size_t>(first_value + i)];
  };
  if (n == 1) {
    grad_of(0) = g[0];
    return out;
  }
  Graph& gr = op.graph();
  auto axis = constant_ints(input(op, v1 ? 0 : n));
  const PartialShape& first = value(0).shape();
  if (!axis || !first.rank_known())
    throw UnimplementedError(unimplemented("gradient of " + op.type() + " '" + op.name() +
                                           "' with an axis or rank unknown while building"));
  const int rank = first.rank();
  const std::int64_t dim = ((*axis)[0] % rank + rank) % rank;
  bool known = true;
  for (int i = 0; i < n; ++i) known = known && value(i).shape().fully_defined();
  if (known) {
    // Offsets known while building: one Slice per input with Const begin and size.
    std::int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const auto& dims = value(i).shape().dims();
      std::vector<std::int64_t> begin(static_cast<std::size_t>(rank), 0);
      begin[static_cast<std::size_t>(dim)] = offset;
      offset += dims[static_cast<std::size_t>(dim)];
      Output b = int_constant(gr, begin, "Const");
      Output s = int_constant(gr, dims, "Const");
      grad_of(i) = gr.create_op("Slice", {g[0], b, s},
                                {{"T", g[0].dtype()}, {"Index", DType::int32}}, "Slice")
                       .output(0);
    }
    return out;
  }
  std::vector<Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(shape_of(value(i), "Shape"));
  Output concat_dim = gr.constant(Tensor(static_cast<std::int32_t>(dim)), "mod");
  std::vector<Output> offset_inputs{concat_dim};
  offset_inputs.insert(offset_inputs.end(), shapes.begin(), shapes.end());
  Operation offsets = gr.create_op("ConcatOffset", offset_inputs,
                                   {{"N", static_cast<std::int64_t>(n)}}, "ConcatOffset");
  for (int i = 0; i < n; ++i)
    grad_of(i) =
        gr.create_op("Slice", {g[0], offsets.output(i), shapes[static_cast<std::size_t>(i)]},
                     {{"T", g[0].dtype()}, {"Index", DType::int32}}, "Slice")
            .output(0);
  return out;
}

Grads pack_grad(const Operation& op, const Grads& g) {
  const auto n = *op.node_def().attr<std::int64_t>("N");
  std::int64_t axis = 0;
  if (auto a = op.node_def().attr<std::int64_t>("axis")) axis = *a;
  Operation unstack = op.graph().create_op(
      "Unpack", {g[0]}, {{"T", g[0].dtype()}, {"num", n}, {"axis", axis}}, "unstack");
  Grads out;
  for (int i = 0; i < n; ++i) out.push_back(unstack.output(i));
  return out;
}

Grads unpack_grad(const Operation& op, const Grads& g) {
  std::int64_t axis = 0;
  if (auto a = op.node_def().attr<std::int64_t>("axis")) axis = *a;
  return {stack(g, static_cast<int>(axis), "stack")};
}

// array_ops.concat(grads, axis) with a tensor axis: op ConcatV2 "concat" (Identity for one).
Output concat_on(const std::vector<Output>& grads, const Output& axis) {
  Graph& gr = axis.graph();
  if (grads.size() == 1)
    return gr.create_op("Identity", {grads[0]}, {{"T", grads[0].dtype()}}, "concat").output(0);
  std::vector<Output> inputs = grads;
  inputs.push_back(axis);
  return gr
      .create_op("ConcatV2", inputs,
                 {{"T", grads[0].dtype()},
                  {"N", static_cast<std::int64_t>(grads.size())},
                  {"Tidx", axis.dtype()}},
                 "concat")
      .output(0);
}

// _SplitGrad and _SplitVGrad: the slices' gradients concatenated along the split axis.
Grads split_grad(const Operation& op, const Grads& g) {
  return {Output(), concat_on(g, input(op, 0))};
}
Grads split_v_grad(const Operation& op, const Grads& g) {
  return {concat_on(g, input(op, 2)), Output(), Output()};
}

Grads transpose_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  Output perm = input(op, 1);
  Output inverse;
  if (auto p = constant_ints(perm)) {
    std::vector<std::int64_t> inv(p->size());
    for (std::size_t i = 0; i < p->size(); ++i)
      inv[static_cast<std::size_t>((*p)[i])] = static_cast<std::int64_t>(i);
    inverse = int_constant(gr, inv, "InvertPermutation");
  } else {
    inverse = gr.create_op("InvertPermutation", {perm}, {{"T", perm.dtype()}}, "InvertPermutation")
                  .output(0);
  }
  return {gr.create_op("Transpose", {g[0], inverse},
                       {{"T", g[0].dtype()}, {"Tperm", inverse.dtype()}}, "transpose")
              .output(0),
          Output()};
}

Grads tile_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0);
  auto multiples = constant_ints(input(op, 1));
  if (!multiples || !x.shape().fully_defined())
    throw UnimplementedError(
        unimplemented("gradient of Tile '" + op.name() +
                      "' with multiples or input shape unknown while building"));
  // The gradient seen as [m0, d0, m1, d1, ...], summed over the multiples' axes.
  std::vector<std::int64_t> split, axes;
  for (std::size_t i = 0; i < multiples->size(); ++i) {
    split.push_back((*multiples)[i]);
    split.push_back(x.shape().dim(static_cast<int>(i)));
    axes.push_back(static_cast<std::int64_t>(2 * i));
  }
  Output reshaped = reshape_op(g[0], int_constant(gr, split, "Const"), "Reshape");
  return {sum_op(reshaped, int_constant(gr, axes, "range"), false, "Sum"), Output()};
}

Grads select_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output c = input(op, 0), x = input(op, 1);
  Output zeros = zeros_like_op(x, "zeros_like");
  auto select = [&](const Output& a, const Output& b, const char* name) {
    return gr.create_op("Select", {c, a, b}, {{"T", a.dtype()}}, name).output(0);
  };
  return {Output(), select(g[0], zeros, "Select"), select(zeros, g[0], "Select_1")};
}

// `full` summed over the axes where `target` was broadcast, keeping dims, then reshaped to
// `target`'s shape (the reduction of TensorFlow's _SelectGradV2 and _BroadcastToGrad).
Output sum_to_shape_of(const Output& full, const Output& target_shape, const char* suffix) {
  Graph& gr = full.graph();
  Operation args = gr.create_op(
      "BroadcastGradientArgs", {target_shape, shape_of(full, std::string("Shape") + suffix)},
      {{"T", DType::int32}}, std::string("BroadcastGradientArgs") + suffix);
  Output summed = sum_op(full, args.output(0), true, std::string("Sum") + suffix);
  return reshape_op(summed, target_shape, std::string("Reshape") + suffix);
}

Grads select_v2_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output c = input(op, 0), x = input(op, 1), y = input(op, 2);
  Output zeros = zeros_like_op(g[0], "zeros_like");
  auto select = [&](const Output& a, const Output& b, const char* name) {
    return gr.create_op("SelectV2", {c, a, b}, {{"T", a.dtype()}}, name).output(0);
  };
  Output gx = sum_to_shape_of(select(g[0], zeros, "SelectV2"), shape_of(x, "Shape"), "");
  Output gy = sum_to_shape_of(select(zeros, g[0], "SelectV2_1"), shape_of(y, "Shape_2"), "_1");
  return {Output(), gx, gy};
}

Grads broadcast_to_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0);
  Graph& gr = op.graph();
  Output x_shape = shape_of(x, "Shape");
  Operation args = gr.create_op("BroadcastGradientArgs", {input(op, 1), x_shape},
                                {{"T", input(op, 1).dtype()}}, "BroadcastGradientArgs");
  Output summed = sum_op(g[0], args.output(1), true, "Sum");
  return {reshape_op(summed, x_shape, "Reshape"), Output()};
}

// The int32 form of an index vector (`Slice` wants begin and size of one type; shapes are
// int32).
Output as_int32(const Output& x) {
  return x.dtype() == DType::int32 ? x : cast(x, DType::int32, "Cast");
}

// `_GatherV2Grad` on axis 0: IndexedSlices of the gradient's rows, one per index (values
// reshaped to [N] + params.shape[1:], the indices flattened), with params' shape as their
// dense shape. Shapes known while building are Consts; otherwise Shape(params), colocated
// with params, as TensorFlow computes it. ResourceGather's params are its handle's variable:
// the declared shape, else VariableShape (`_GatherGrad` of resource_variable_ops.py).
IndexedSlices gather_axis0_grad(const Operation& op, const Output& grad) {
  Graph& gr = op.graph();
  const Output params = input(op, 0), indices = input(op, 1);
  const bool resource = params.dtype() == DType::resource;
  const PartialShape ps =
      resource ? params.node()->output_handle_shape(params.index()) : params.shape();
  Output params_shape, values_shape;
  if (ps.fully_defined()) {
    std::vector<std::int64_t> tail(ps.dims().begin() + 1, ps.dims().end());
    tail.insert(tail.begin(), -1);
    params_shape = int_constant(gr, ps.dims(), "Shape");
    values_shape = int_constant(gr, tail, "concat");
  } else {
    {
      auto colocate = gr.colocate_with(params.op());
      params_shape = resource ? variable_shape(params, DType::int32, "VariableShape")
                              : shape_of(params, "Shape");
    }
    Output tail = slice(params_shape, int_constant(gr, {1}, "Slice/begin"),
                        int_constant(gr, {-1}, "Slice/size"), "Slice");
    values_shape = concat({int_constant(gr, {-1}, "Const"), tail}, 0, "concat");
  }
  Output values = reshape_op(grad, values_shape, "Reshape");
  Output flat = reshape_op(indices, int_constant(gr, {-1}, "Reshape_1/shape"), "Reshape_1");
  return IndexedSlices{values, flat, params_shape};
}

// `_GatherV2Grad`: IndexedSlices on a constant axis 0 (above); on another axis the dense
// gradient, reshaped to [outer..., N, inner...] (N the number of indices), the gathered axis
// moved to the front, summed per index by UnsortedSegmentSum and moved back. Shapes known
// while building are Consts; otherwise they are sliced from Shape(params) at run time, as
// TensorFlow does.
std::vector<Gradient> gather_grad(const Operation& op, const std::vector<Gradient>& grads) {
  Graph& gr = op.graph();
  const Output params = input(op, 0), indices = input(op, 1);
  auto axis_value = constant_ints(input(op, 2));
  const PartialShape& ps = params.shape();
  if (!axis_value || !ps.rank_known())
    throw UnimplementedError(
        unimplemented("gradient of GatherV2 '" + op.name() +
                      "' with the axis or the params rank unknown while building"));
  const int rank = ps.rank();
  const auto axis = static_cast<int>(((*axis_value)[0] % rank + rank) % rank);
  const Grads g{grads[0].to_dense()};
  if (axis == 0 && (*axis_value)[0] == 0)
    return {gather_axis0_grad(op, g[0]), Gradient(), Gradient()};
  Output values_shape, num_segments;
  if (ps.fully_defined()) {
    const std::vector<std::int64_t>& dims = ps.dims();
    std::vector<std::int64_t> shape(dims.begin(), dims.begin() + axis);
    shape.push_back(-1);
    shape.insert(shape.end(), dims.begin() + axis + 1, dims.end());
    values_shape = int_constant(gr, shape, "concat");
    num_segments = gr.constant(
        Tensor(static_cast<std::int32_t>(dims[static_cast<std::size_t>(axis)])), "Const");
  } else {
    Output params_shape = shape_of(params, "Shape");
    Output outer = slice(params_shape, int_constant(gr, {0}, "Slice/begin"),
                         int_constant(gr, {axis}, "Slice/size"), "Slice");
    Output inner = slice(params_shape, int_constant(gr, {axis + 1}, "Slice_1/begin"),
                         int_constant(gr, {-1}, "Slice_1/size"), "Slice_1");
    values_shape = concat({outer, int_constant(gr, {-1}, "Const"), inner}, 0, "concat");
    Output dim = slice(params_shape, int_constant(gr, {axis}, "Slice_2/begin"),
                       int_constant(gr, {1}, "Slice_2/size"), "Slice_2");
    num_segments = reshape_op(dim, int_constant(gr, {}, "Reshape/shape"), "Reshape");
  }
  Output values = reshape_op(g[0], values_shape, "Reshape_1");
  Output flat_indices = reshape_op(indices, int_constant(gr, {-1}, "Reshape_2/shape"), "Reshape_2");
  if (axis == 0)
    return {unsorted_segment_sum(values, flat_indices, num_segments), Gradient(), Gradient()};
  std::vector<std::int64_t> to_front{axis}, back;
  for (int d = 0; d < axis; ++d) {
    to_front.push_back(d);
    back.push_back(d + 1);
  }
  back.push_back(0);
  for (int d = axis + 1; d < rank; ++d) {
    to_front.push_back(d);
    back.push_back(d);
  }
  Output moved = transpose(values, int_constant(gr, to_front, "concat_1"), "transpose");
  Output summed = unsorted_segment_sum(moved, flat_indices, num_segments);
  return {transpose(summed, int_constant(gr, back, "concat_2"), "transpose_1"), Gradient(),
          Gradient()};
}

// `_SliceGrad`: the gradient padded back to the input's shape, `begin` before and the rest
// after each dimension.
Grads slice_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), begin = input(op, 1), y = op.output(0);
  if (!x.shape().rank_known())
    throw UnimplementedError(unimplemented("gradient of Slice '" + op.name() +
                                           "' with the input rank unknown while building"));
  const int rank = x.shape().rank();
  auto begin_value = constant_ints(begin);
  if (begin_value && x.shape().fully_defined() && y.shape().fully_defined()) {
    std::vector<std::array<std::int64_t, 2>> paddings;
    for (int d = 0; d < rank; ++d) {
      const std::int64_t b = (*begin_value)[static_cast<std::size_t>(d)];
      paddings.push_back({b, x.shape().dim(d) - y.shape().dim(d) - b});
    }
    return {pad(g[0], paddings, "Pad"), Output(), Output()};
  }
  Output column = int_constant(gr, {rank, 1}, "stack");
  Output begin32 = as_int32(begin);
  Output before = reshape_op(begin32, column, "Reshape");
  Output rest = sub(sub(shape_of(x, "Shape"), shape_of(y, "Shape_1"), "sub"), begin32, "sub_1");
  Output after = reshape_op(rest, column, "Reshape_1");
  return {pad(g[0], concat({before, after}, 1, "concat"), "Pad"), Output(), Output()};
}

// `_StridedSliceGrad`: the gradient put back where the slice took it, zeros elsewhere
// (StridedSliceGrad of the input's shape, in the bounds' dtype, with the same bounds and
// masks). The bounds get none.
Grads strided_slice_grad(const Operation& op, const Grads& g) {
  const Output begin = input(op, 1);
  Output x_shape = af::shape(input(op, 0), begin.dtype(), "Shape");
  Output dx = af::strided_slice_grad(x_shape, begin, input(op, 2), input(op, 3), g[0],
                                     strided_slice_masks(op.node_def()));
  return {dx, Output(), Output(), Output()};
}

// `_StridedSliceGradGrad`: the same slice of the gradient; only dy gets one.
Grads strided_slice_grad_grad(const Operation& op, const Grads& g) {
  Output ddy = af::strided_slice(g[0], input(op, 1), input(op, 2), input(op, 3),
                                 strided_slice_masks(op.node_def()), "StridedSlice");
  return {Output(), Output(), Output(), Output(), ddy};
}

// `_TensorStridedSliceUpdateGrad`: the input gets the gradient with the slice zeroed, the
// value the gradient's slice summed over the axes it was broadcast along; the bounds none.
Grads tensor_strided_slice_update_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output begin = input(op, 1), end = input(op, 2), strides = input(op, 3);
  const StridedSliceMasks masks = strided_slice_masks(op.node_def());
  Output dy = af::strided_slice(g[0], begin, end, strides, masks, "StridedSlice");
  Output dx =
      af::tensor_strided_slice_update(g[0], begin, end, strides, zeros_like_op(dy, "zeros_like"),
                                      masks, "TensorStridedSliceUpdate");
  Output slice_shape = af::shape(dy, begin.dtype(), "Shape");
  Output value_shape = af::shape(input(op, 4), begin.dtype(), "Shape_1");
  Operation args = gr.create_op("BroadcastGradientArgs", {slice_shape, value_shape},
                                {{"T", begin.dtype()}}, "BroadcastGradientArgs");
  Output summed = sum_op(dy, args.output(1), true, "Sum");
  return {dx, Output(), Output(), Output(), reshape_op(summed, value_shape, "Reshape")};
}

// `_PadGrad`: the slice of the gradient where the input lies.
Grads pad_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), paddings = input(op, 1);
  if (!x.shape().rank_known())
    throw UnimplementedError(unimplemented("gradient of Pad '" + op.name() +
                                           "' with the input rank unknown while building"));
  const int rank = x.shape().rank();
  Output begin;
  if (auto p = constant_ints(paddings)) {
    std::vector<std::int64_t> before;
    for (int d = 0; d < rank; ++d) before.push_back((*p)[static_cast<std::size_t>(2 * d)]);
    begin = int_constant(gr, before, "Reshape");
  } else {
    Output first_column = slice(paddings, int_constant(gr, {0, 0}, "Slice/begin"),
                                int_constant(gr, {rank, 1}, "stack"), "Slice");
    begin = reshape_op(as_int32(first_column), int_constant(gr, {-1}), "Reshape");
  }
  return {slice(g[0], begin, shape_of(x, "Shape"), "Slice_1"), Output()};
}

// `_MirrorPadGrad` and `_MirrorPadGradGrad`: MirrorPadGrad (MirrorPad) of the gradient with
// the op's paddings and mode; the paddings get none.
Grads mirror_pad_grads(const Operation& op, const Grads& g, bool forward) {
  std::string mode;
  if (auto m = op.node_def().attr<std::string>("mode")) mode = *m;
  const Output paddings = input(op, 1);
  return {forward ? mirror_pad_grad(g[0], paddings, mode, "MirrorPadGrad")
                  : mirror_pad(g[0], paddings, mode, "MirrorPad"),
          Output()};
}

// sparse_grad.py's `_SparseToDenseGrad`: the gradient gathered at the indices for the
// values, its sum less theirs for the default value, zeros for the indices and the shape.
Grads sparse_to_dense_grad(const Operation& op, const Grads& g) {
  const Output indices = input(op, 0), output_shape = input(op, 1);
  const Output values_grad = gather_nd(g[0], indices, "GatherNd");
  // Built one after the other, as TensorFlow names them: Sum, then Sum_1.
  const Output total = reduce_sum(g[0], std::nullopt, false, "Sum");
  const Output at_indices = reduce_sum(values_grad, std::nullopt, false, "Sum");
  const Output default_grad = sub(total, at_indices, "sub");
  const Output indices_grad = zeros_like_op(indices, "zeros_like");
  const Output shape_grad = zeros_like_op(output_shape, "zeros_like");
  return {indices_grad, shape_grad, values_grad, default_grad};
}

// `_UnsortedSegmentSumGrad` (`_GatherDropNegatives`): row i of data gets the gradient's row
// segment_ids[i], or zeros where the id is negative (the row was dropped).
Grads unsorted_segment_sum_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output ids = input(op, 1);
  const PartialShape& ids_shape = ids.shape();
  const PartialShape& data_shape = input(op, 0).shape();
  if (!ids_shape.rank_known() || !data_shape.rank_known())
    throw UnimplementedError(unimplemented("gradient of UnsortedSegmentSum '" + op.name() +
                                           "' with ranks unknown while building"));
  Output clipped = binary("Maximum", ids, zeros_like_op(ids, "zeros_like"), "Maximum");
  Output gathered = gather(g[0], clipped, "GatherV2");
  Output zero_id = ids.dtype() == DType::int64
                       ? gr.constant(Tensor(std::int64_t{0}), "GreaterEqual/y")
                       : gr.constant(Tensor(std::int32_t{0}), "GreaterEqual/y");
  Output is_positive =
      gr.create_op("GreaterEqual", {ids, zero_id}, {{"T", ids.dtype()}}, "GreaterEqual").output(0);
  const int ids_rank = ids_shape.rank();
  const int rank = data_shape.rank();
  if (rank > ids_rank) {
    // The condition broadcast over the rows' trailing dims (Select wants equal shapes).
    std::vector<std::int64_t> kept_mask(static_cast<std::size_t>(rank), 1),
        inner_mask(static_cast<std::size_t>(rank), 0);
    for (int d = ids_rank; d < rank; ++d) {
      kept_mask[static_cast<std::size_t>(d)] = 0;
      inner_mask[static_cast<std::size_t>(d)] = 1;
    }
    Output gathered_shape = shape_of(gathered, "Shape");
    Output kept =
        add(mul(gathered_shape, int_constant(gr, kept_mask)), int_constant(gr, inner_mask), "add");
    Output multiples = add(mul(gathered_shape, int_constant(gr, inner_mask)),
                           int_constant(gr, kept_mask), "add_1");
    is_positive = tile_op(reshape_op(is_positive, kept, "Reshape"), multiples, "Tile");
  }
  Output zeros = zeros_like_op(gathered, "zeros_like_1");
  Output selected =
      gr.create_op("Select", {is_positive, gathered, zeros}, {{"T", gathered.dtype()}}, "Select")
          .output(0);
  return {selected, Output(), Output()};
}

// `_DynamicStitchGrads`: each data input gets the output's gradient (densified when it is
// IndexedSlices) gathered by its indices; the indices get none.
std::vector<Gradient> dynamic_stitch_grad(const Operation& op, const std::vector<Gradient>& g) {
  const std::size_t n = op.node()->inputs().size() / 2;
  std::vector<Gradient> out(2 * n);
  Output grad;
  if (g[0].is_slices()) {
    const IndexedSlices& s = g[0].slices();
    Output rows = strided_slice(shape_of(op.output(0), "Shape"), std::vector<std::int64_t>{0},
                                std::vector<std::int64_t>{1}, std::vector<std::int64_t>{1},
                                {.shrink_axis_mask = 1}, "strided_slice");
    grad = unsorted_segment_sum(s.values, s.indices, rows, "UnsortedSegmentSum");
  } else {
    grad = g[0].dense();
  }
  for (std::size_t i = 0; i < n; ++i)
    out[n + i] = gather(grad, input(op, static_cast<int>(i)), "GatherV2");
  return out;
}

}  // namespace

void register_array_gradients(GradientRegistry& r) {
  r.add_sparse("DynamicStitch", dynamic_stitch_grad);
  r.add_sparse("ParallelDynamicStitch", dynamic_stitch_grad);
  r.add_sparse("Identity", [](const Operation&, const std::vector<Gradient>& g) {
    return std::vector<Gradient>{g[0]};
  });
  r.add_sparse("IdentityN", [](const Operation&, const std::vector<Gradient>& g) { return g; });
  r.add("Reshape", [](const Operation& op, const Grads& g) -> Grads {
    return {reshape_to_input(op, g[0]), Output()};
  });
  r.add("ExpandDims", [](const Operation& op, const Grads& g) -> Grads {
    return {reshape_to_input(op, g[0]), Output()};
  });
  r.add("Squeeze",
        [](const Operation& op, const Grads& g) -> Grads { return {reshape_to_input(op, g[0])}; });
  r.add("ConcatV2", concat_grad);
  r.add("Concat", concat_grad);
  r.add("Pack", pack_grad);
  r.add("Unpack", unpack_grad);
  r.add("Split", split_grad);
  r.add("SplitV", split_v_grad);
  // _ReverseV2Grad: the gradient reversed along the same axes.
  r.add("ReverseV2", [](const Operation& op, const Grads& g) -> Grads {
    const Output axis = input(op, 1);
    return {op.graph()
                .create_op("ReverseV2", {g[0], axis}, {{"T", g[0].dtype()}, {"Tidx", axis.dtype()}},
                           "ReverseV2")
                .output(0),
            Output()};
  });
  // _ReverseGrad: the gradient reversed along the same dims.
  r.add("Reverse", [](const Operation& op, const Grads& g) -> Grads {
    return {op.graph()
                .create_op("Reverse", {g[0], input(op, 1)}, {{"T", g[0].dtype()}}, "Reverse")
                .output(0),
            Output()};
  });
  r.add("Transpose", transpose_grad);
  r.add("Tile", tile_grad);
  r.add("Select", select_grad);
  r.add("SelectV2", select_v2_grad);
  r.add("BroadcastTo", broadcast_to_grad);
  r.add("PlaceholderWithDefault", [](const Operation&, const Grads& g) -> Grads { return {g[0]}; });
  r.add_sparse("GatherV2", gather_grad);
  // _GatherGrad of the first Gather (axis 0): IndexedSlices of the gathered rows.
  r.add_sparse("Gather", [](const Operation& op, const std::vector<Gradient>& g) {
    return std::vector<Gradient>{gather_axis0_grad(op, g[0].to_dense()), Gradient()};
  });
  r.add_sparse("ResourceGather", [](const Operation& op, const std::vector<Gradient>& g) {
    return std::vector<Gradient>{gather_axis0_grad(op, g[0].to_dense()), Gradient()};
  });
  // `_ReadGrad`: the value's gradient is the handle's (slices pass on unchanged).
  r.add_sparse("ReadVariableOp", [](const Operation&, const std::vector<Gradient>& g) {
    return std::vector<Gradient>{g[0]};
  });
  r.add("Slice", slice_grad);
  r.add("StridedSlice", strided_slice_grad);
  r.add("StridedSliceGrad", strided_slice_grad_grad);
  r.add("TensorStridedSliceUpdate", tensor_strided_slice_update_grad);
  r.add("Pad", pad_grad);
  // `_PadGrad` for PadV2: constant_values gets none either.
  r.add("PadV2", [](const Operation& op, const Grads& g) -> Grads {
    Grads out = pad_grad(op, g);
    out.push_back(Output());
    return out;
  });
  r.add("MirrorPad",
        [](const Operation& op, const Grads& g) { return mirror_pad_grads(op, g, true); });
  r.add("MirrorPadGrad",
        [](const Operation& op, const Grads& g) { return mirror_pad_grads(op, g, false); });
  r.add("SparseToDense", sparse_to_dense_grad);
  r.add("UnsortedSegmentSum", unsorted_segment_sum_grad);
  r.add("Fill", [](const Operation&, const Grads& g) -> Grads {
    return {Output(), reduce_sum(g[0], std::nullopt, false, "Sum")};
  });
  r.add("PreventGradient", [](const Operation& op, const Grads&) -> Grads {
    std::string message;
    if (auto m = op.node_def().attr<std::string>("message")) message = *m;
    throw NotFoundError(not_found("Gradient explicitly disabled. Reason: " + message));
  });
  for (const char* type :
       {"Shape", "ShapeN", "Size", "Rank", "StopGradient", "ZerosLike", "OnesLike", "OneHot",
        "ConcatOffset", "InvertPermutation", "VariableShape", "VarIsInitializedOp"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
