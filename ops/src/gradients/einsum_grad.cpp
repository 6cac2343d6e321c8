// The gradient of Einsum, as TensorFlow's _EinsumGrad (linalg_grad.py): the gradient of each
// input is an Einsum of the output's gradient (and the other input) with the equation turned
// around; labels only that input has are restored by reshaping and broadcasting (and one
// more Einsum for diagonals and transposes), and broadcast ellipsis dimensions are summed
// back (BroadcastGradientArgs, Sum, Reshape). Where TensorFlow iterates a Python set of
// labels, the labels go here in their order in the input subscript.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;
using Index = std::int64_t;

const std::string kEllipsis = "...";

Output einsum_node(const std::vector<Output>& inputs, const std::string& equation) {
  return inputs[0]
      .graph()
      .create_op("Einsum", inputs,
                 {{"equation", equation},
                  {"N", static_cast<std::int64_t>(inputs.size())},
                  {"T", inputs[0].dtype()}},
                 "Einsum")
      .output(0);
}

// array_ops.broadcast_to(x, shape).
Output broadcast_to(const Output& x, const Output& shape) {
  return x.graph()
      .create_op("BroadcastTo", {x, shape}, {{"T", x.dtype()}, {"Tidx", DType::int32}},
                 "BroadcastTo")
      .output(0);
}

// The labels of `subscripts` (in order, once each) that `excluded` does not hold.
std::string labels_not_in(const std::string& subscripts, const std::string& excluded) {
  std::string out;
  for (char ch : subscripts)
    if (excluded.find(ch) == std::string::npos && out.find(ch) == std::string::npos) out += ch;
  return out;
}

// `subscripts` without the labels in `removed`.
std::string without(const std::string& subscripts, const std::string& removed) {
  std::string out;
  for (char ch : subscripts)
    if (removed.find(ch) == std::string::npos) out += ch;
  return out;
}

// _GetAxisFromLabel: the axis of `label`, counted from the end after an ellipsis.
Index axis_from_label(const std::string& subscripts, char label) {
  const std::size_t ellipsis = subscripts.find(kEllipsis);
  const std::string before = subscripts.substr(0, ellipsis);
  if (const std::size_t at = before.find(label); at != std::string::npos)
    return static_cast<Index>(at);
  const std::string after = subscripts.substr(ellipsis + kEllipsis.size());
  return static_cast<Index>(after.find(label)) - static_cast<Index>(after.size());
}

// `shape[axis]` (a scalar) of an int32 shape vector, as Python's `input_shape[ax]` builds it.
Output element(const Output& shape, Index axis) {
  StridedSliceMasks masks;
  masks.shrink_axis_mask = 1;
  if (axis == -1) masks.end_mask = 1;
  return strided_slice(shape, {axis}, {axis == -1 ? 0 : axis + 1}, {1}, masks, "strided_slice");
}

// `shape[start:end]` (end none: to the last) of an int32 shape vector.
Output slice_of(const Output& shape, Index start, std::optional<Index> end) {
  StridedSliceMasks masks;
  if (!end) masks.end_mask = 1;
  return strided_slice(shape, {start}, {end.value_or(0)}, {1}, masks, "strided_slice");
}

// The same slice of a static shape.
std::vector<Index> slice_of(const std::vector<Index>& dims, Index start, std::optional<Index> end) {
  const auto rank = static_cast<Index>(dims.size());
  const Index from = std::min(start, rank);
  const Index to = end ? std::max(from, rank + *end) : rank;
  return std::vector<Index>(dims.begin() + from, dims.begin() + to);
}

// math_ops.reduced_shape(input_shape, axes): the shape with `axes` set to 1; a Const when the
// shape is known, else DynamicStitch of the shape and ones.
Output reduced_shape(const Output& input_shape, const PartialShape& known,
                     const std::vector<Index>& axes) {
  Graph& g = input_shape.graph();
  if (known.fully_defined()) {
    std::vector<Index> dims = known.dims();
    const auto rank = static_cast<Index>(dims.size());
    for (Index a : axes) dims[static_cast<std::size_t>((a + rank) % rank)] = 1;
    return int_constant(g, dims, "Const");
  }
  const Output rank = size(input_shape, DType::int32, "Size");
  const Output wrapped =
      binary("FloorMod", binary("AddV2", int_constant(g, axes, "Const"), rank, "add"), rank, "mod");
  const Output ones = fill(shape_of(wrapped, "Shape"), g.constant(Tensor(std::int32_t{1}), "ones"));
  return dynamic_stitch({range(rank, "range"), wrapped}, {input_shape, ones}, "DynamicStitch");
}

// _GetGradReduced: the gradient of a one-input einsum `input_subs->output_subs` that sums
// over the labels `reduced`.
Output grad_reduced(const Output& output_grad, const std::string& output_subs,
                    const std::string& input_subs, const Output& input_shape,
                    const PartialShape& input_known, const std::string& reduced) {
  Graph& g = output_grad.graph();
  std::vector<Index> axes;
  for (char label : reduced) axes.push_back(axis_from_label(input_subs, label));
  const bool has_repeated_labels =
      std::set<char>(input_subs.begin(), input_subs.end()).size() +
          std::set<char>(output_subs.begin(), output_subs.end()).size() <
      input_subs.size() + output_subs.size();
  // Without diagonals or transposes ("abcd->ac"), reshaping to keep_dims and broadcasting
  // is the whole gradient.
  if (!has_repeated_labels && without(input_subs, reduced) == output_subs)
    return broadcast_to(
        reshape_op(output_grad, reduced_shape(input_shape, input_known, axes), "Reshape"),
        input_shape);
  // Else the reduced labels go first ("aabbcd->ca": "bdca->ca" by broadcasting, then
  // "bdca->aabbcd" by an Einsum).
  std::vector<Output> dims;
  for (Index axis : axes) dims.push_back(element(input_shape, axis));
  const Output reduced_dims = stack(dims, 0, "stack");
  const Output grad_shape = shape_of(output_grad, "Shape");
  const Output with_reduced = concat({reduced_dims, grad_shape}, 0, "concat");
  const Output keep_dims = concat(
      {int_constant(g, std::vector<Index>(reduced.size(), 1), "ones"), grad_shape}, 0, "concat_1");
  const Output broadcasted =
      broadcast_to(reshape_op(output_grad, keep_dims, "Reshape"), with_reduced);
  return einsum_node({broadcasted}, reduced + output_subs + "->" + input_subs);
}

// _GetGradWrt: the gradient of one input of a two-input einsum, before unbroadcasting.
Output grad_wrt(const Output& output_grad, const Output& other, const Output& input_shape,
                const PartialShape& input_known, const std::string& input_subs,
                const std::string& other_subs, const std::string& output_subs) {
  const std::string reduced = labels_not_in(input_subs, output_subs + other_subs + ".");
  const std::string left_subs = without(input_subs, reduced);
  const Output grad =
      einsum_node({output_grad, other}, output_subs + "," + other_subs + "->" + left_subs);
  if (reduced.empty()) return grad;
  return grad_reduced(grad, left_subs, input_subs, input_shape, input_known, reduced);
}

// _GetBcastSubshape: the slice [start:end] of a shape the ellipsis covers (end none: to the
// last axis); [0:0] without an ellipsis.
std::pair<Index, std::optional<Index>> bcast_subshape(const std::string& subscripts) {
  const std::size_t start = subscripts.find(kEllipsis);
  if (start == std::string::npos) return {0, Index{0}};
  const auto remaining = static_cast<Index>(subscripts.size() - (start + kEllipsis.size()));
  return {static_cast<Index>(start),
          remaining > 0 ? std::optional<Index>(-remaining) : std::nullopt};
}

Grads einsum_grad(const Operation& op, const Grads& g) {
  const std::string equation = *op.node_def().attr<std::string>("equation");
  const std::size_t arrow = equation.find("->");
  const std::string input_subs = equation.substr(0, arrow);
  const std::string output_subs = equation.substr(arrow + 2);
  const Output grad = g[0];

  if (op.node()->inputs().size() == 1) {
    const Output x = input(op, 0);
    const Output input_shape = shape_of(x, "Shape");
    const std::string reduced = labels_not_in(input_subs, output_subs + kEllipsis);
    if (reduced.empty()) return {einsum_node({grad}, output_subs + "->" + input_subs)};
    return {grad_reduced(grad, output_subs, input_subs, input_shape, x.shape(), reduced)};
  }

  const std::size_t comma = input_subs.find(',');
  std::string x_subs = input_subs.substr(0, comma), y_subs = input_subs.substr(comma + 1);
  // "...ij,jk->...ik" turned around must name the ellipsis in both inputs.
  const bool output_has_ellipsis = output_subs.find(kEllipsis) != std::string::npos;
  if (output_has_ellipsis) {
    if (x_subs.find(kEllipsis) == std::string::npos) x_subs += kEllipsis;
    if (y_subs.find(kEllipsis) == std::string::npos) y_subs += kEllipsis;
  }
  const Output x = input(op, 0), y = input(op, 1);
  const Output x_shape = shape_of(x, "Shape");
  const Output y_shape = shape_of(y, "Shape_1");
  Output grad_x = grad_wrt(grad, y, x_shape, x.shape(), x_subs, y_subs, output_subs);
  Output grad_y = grad_wrt(grad, x, y_shape, y.shape(), y_subs, x_subs, output_subs);
  if (!output_has_ellipsis) return {grad_x, grad_y};

  // Sum the gradients over the ellipsis dimensions the other input broadcast.
  const auto [bx_start, bx_end] = bcast_subshape(x_subs);
  const auto [by_start, by_end] = bcast_subshape(y_subs);
  if (x.shape().fully_defined() && y.shape().fully_defined() &&
      slice_of(x.shape().dims(), bx_start, bx_end) == slice_of(y.shape().dims(), by_start, by_end))
    return {grad_x, grad_y};
  Graph& graph = op.graph();
  const auto [rx, ry] =
      nn::broadcast_gradient_args(slice_of(x_shape, bx_start, bx_end),
                                  slice_of(y_shape, by_start, by_end), "BroadcastGradientArgs");
  const Output x_axes = binary(
      "AddV2", graph.constant(Tensor(static_cast<std::int32_t>(bx_start)), "add/x"), rx, "add");
  const Output y_axes = binary(
      "AddV2", graph.constant(Tensor(static_cast<std::int32_t>(by_start)), "add_1/x"), ry, "add_1");
  grad_x = reshape_op(sum_op(grad_x, x_axes, false, "Sum"), x_shape, "Reshape");
  grad_y = reshape_op(sum_op(grad_y, y_axes, false, "Sum_1"), y_shape, "Reshape_1");
  return {grad_x, grad_y};
}

}  // namespace

void register_einsum_gradients(GradientRegistry& r) { r.add("Einsum", einsum_grad); }

}  // namespace af::detail
