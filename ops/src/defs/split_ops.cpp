// The definitions of Split, SplitV and ReverseV2 (shape functions as TensorFlow's
// array_ops.cc, builders as tf.split and tf.reverse); their CPU kernels are in
// kernels/src/split_ops.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "attr_checks.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;

// The split axis of a constant scalar input, in [0, rank) once the rank is known; -1 when the
// value or the rank is unknown.
Status known_split_axis(const InferenceContext& c, int input, const PartialShape& value,
                        Index* axis) {
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(input)], 0));
  *axis = -1;
  const Tensor* t = c.input_values[static_cast<std::size_t>(input)];
  if (t == nullptr || !value.rank_known()) return {};
  const Index rank = value.rank(), given = index_values(*t)[0];
  const Index a = given < 0 ? given + rank : given;
  if (a < 0 || a >= rank)
    return invalid_argument("Dimension must be in range [" + std::to_string(-rank) + ", " +
                            std::to_string(rank) + "), but is " + std::to_string(given));
  *axis = a;
  return {};
}

// Attr num_split, at least 1.
Status num_split_attr(const InferenceContext& c, std::int64_t* num_split) {
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "num_split", 1, num_split));
  return {};
}

// Split(split_dim, value; num_split): num_split outputs of value's shape with the split
// dimension divided.
Status infer_split(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[0] != DType::int32)
    return invalid_argument(
        cwise::fixed_type_mismatch_message(c.node.op, "split_dim", c.input_types[0], DType::int32));
  std::int64_t num_split = 0;
  ACTORFLOW_RETURN_IF_ERROR(num_split_attr(c, &num_split));
  const PartialShape& value = c.input_shapes[1];
  Index axis = -1;
  ACTORFLOW_RETURN_IF_ERROR(known_split_axis(c, 0, value, &axis));
  PartialShape out =
      value.rank_known() ? PartialShape::unknown_of_rank(value.rank()) : PartialShape::unknown();
  if (axis >= 0) {
    std::vector<std::int64_t> dims = value.dims();
    const std::int64_t d = dims[static_cast<std::size_t>(axis)];
    if (d >= 0 && d % num_split != 0)
      return invalid_argument("Dimension size must be evenly divisible by " +
                              std::to_string(num_split) + " but is " + std::to_string(d));
    if (d >= 0) dims[static_cast<std::size_t>(axis)] = d / num_split;
    out = PartialShape(std::move(dims));
  }
  for (std::int64_t i = 0; i < num_split; ++i) c.add_output(c.input_types[1], out);
  return {};
}

// SplitV(value, size_splits, split_dim; num_split): the sizes where they are constant, the
// one -1 resolved against a known dimension.
Status infer_split_v(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[1], "SplitV", "Tlen"));
  if (c.input_types[2] != DType::int32)
    return invalid_argument(
        cwise::fixed_type_mismatch_message(c.node.op, "split_dim", c.input_types[2], DType::int32));
  std::int64_t num_split = 0;
  ACTORFLOW_RETURN_IF_ERROR(num_split_attr(c, &num_split));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  const PartialShape& value = c.input_shapes[0];
  Index axis = -1;
  ACTORFLOW_RETURN_IF_ERROR(known_split_axis(c, 2, value, &axis));
  const Tensor* sizes_t = c.input_values[1];
  const PartialShape unknown =
      value.rank_known() ? PartialShape::unknown_of_rank(value.rank()) : PartialShape::unknown();
  if (axis < 0 || sizes_t == nullptr) {
    for (std::int64_t i = 0; i < num_split; ++i) c.add_output(c.input_types[0], unknown);
    return {};
  }
  std::vector<std::int64_t> sizes;
  if (sizes_t->dtype() == DType::int8) {  // index_values leaves int8 out
    const std::int8_t* p = sizes_t->data<std::int8_t>();
    sizes.assign(p, p + sizes_t->num_elements());
  } else {
    sizes = index_values(*sizes_t);
  }
  if (static_cast<std::int64_t>(sizes.size()) != num_split)
    return invalid_argument("Length of size_splits should be equal to num_outputs, but got " +
                            std::to_string(sizes.size()) + " and " + std::to_string(num_split));
  const std::int64_t dim = value.dim(static_cast<int>(axis));
  std::int64_t determined = 0;
  int unknown_at = -1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == -1) {
      if (unknown_at != -1) return invalid_argument("size_splits can only have one -1 element.");
      unknown_at = static_cast<int>(k);
    } else {
      determined += sizes[k];
    }
  }
  if (dim >= 0 && !(determined == dim || (unknown_at >= 0 && determined <= dim)))
    return invalid_argument(
        "Determined shape must either match input shape along split_dim exactly if fully "
        "specified, or be less than the size of the input along split_dim if not fully "
        "specified.  Got: " +
        std::to_string(determined));
  if (unknown_at >= 0)
    sizes[static_cast<std::size_t>(unknown_at)] = dim >= 0 ? dim - determined : -1;
  for (std::int64_t size : sizes) {
    std::vector<std::int64_t> dims = value.dims();
    dims[static_cast<std::size_t>(axis)] = size;
    c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  }
  return {};
}

// ReverseV2(tensor, axis): tensor's shape; constant axes checked against a known rank.
Status infer_reverse_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  const PartialShape& in = c.input_shapes[0];
  if (in.rank_known() && in.rank() > 8)
    return invalid_argument("reverse does not work on tensors with more than 8 dimensions");
  if (const Tensor* axes = c.input_values[1]; axes != nullptr && in.rank_known()) {
    const int rank = in.rank();
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    const std::vector<std::int64_t> given = index_values(*axes);
    for (std::size_t i = 0; i < given.size(); ++i) {
      const std::int64_t a = given[i] < 0 ? given[i] + rank : given[i];
      if (a < 0 || a >= rank)
        return invalid_argument("'axis'[" + std::to_string(i) + "] = " + std::to_string(given[i]) +
                                " is out of valid range [0, " + std::to_string(rank - 1) + "]");
      if (seen[static_cast<std::size_t>(a)])
        return invalid_argument("axis " + std::to_string(a) + " specified more than once.");
      seen[static_cast<std::size_t>(a)] = true;
    }
  }
  c.add_output(c.input_types[0], in);
  return {};
}

// Reverse (the first form): a bool per dimension of the input.
Status infer_reverse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[1] != DType::boolean)
    return invalid_argument("Reverse: dims must be bool, not " +
                            std::string(dtype_name(c.input_types[1])));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  PartialShape in = c.input_shapes[0];
  if (c.input_shapes[1].rank_known() && c.input_shapes[1].dim(0) >= 0)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(in, static_cast<int>(c.input_shapes[1].dim(0))));
  if (in.rank_known() && in.rank() > 8)
    return invalid_argument("reverse does not work on tensors with more than 8 dimensions");
  if (!in.rank_known() && c.input_shapes[1].rank_known() && c.input_shapes[1].dim(0) >= 0)
    in = PartialShape::unknown_of_rank(static_cast<int>(c.input_shapes[1].dim(0)));
  c.add_output(c.input_types[0], in);
  return {};
}

std::vector<Output> outputs_of(const Operation& op) {
  std::vector<Output> out;
  for (int i = 0; i < op.num_outputs(); ++i) out.push_back(op.output(i));
  return out;
}

}  // namespace

namespace detail {

void register_split_ops(OpRegistry& r) {
  r.add({"Split", infer_split});
  r.add({"SplitV", infer_split_v});
  r.add({"ReverseV2", infer_reverse_v2});
  r.add({"Reverse", infer_reverse});
}

}  // namespace detail

std::vector<Output> split(const Output& value, std::int64_t num_split, std::int64_t axis,
                          std::string_view name) {
  Graph& g = value.graph();
  const std::string op_name = g.unique_name(name.empty() ? "split" : name);
  Output split_dim;
  {
    auto scope = g.name_scope(op_name + "/");
    split_dim = g.constant(Tensor(static_cast<std::int32_t>(axis)), "split_dim");
  }
  return outputs_of(g.create_op("Split", {split_dim, value},
                                {{"T", value.dtype()}, {"num_split", num_split}}, op_name + "/"));
}

std::vector<Output> split(const Output& value, const std::vector<std::int64_t>& size_splits,
                          std::int64_t axis, std::string_view name) {
  Graph& g = value.graph();
  // As tf.split: the sizes converted before the op's scope opens, the axis inside it.
  const Output sizes = g.constant(detail::index_tensor(size_splits), "Const");
  const std::string op_name = g.unique_name(name.empty() ? "split" : name);
  Output split_dim;
  {
    auto scope = g.name_scope(op_name + "/");
    split_dim = g.constant(Tensor(static_cast<std::int32_t>(axis)), "split_dim");
  }
  return outputs_of(g.create_op("SplitV", {value, sizes, split_dim},
                                {{"T", value.dtype()},
                                 {"Tlen", sizes.dtype()},
                                 {"num_split", static_cast<std::int64_t>(size_splits.size())}},
                                op_name + "/"));
}

Output reverse(const Output& tensor, const std::vector<std::int64_t>& axis, std::string_view name) {
  Graph& g = tensor.graph();
  const std::string op_name = g.unique_name(name.empty() ? "ReverseV2" : name);
  Output axes;
  {
    auto scope = g.name_scope(op_name + "/");
    axes = g.constant(detail::index_tensor(axis), "axis");
  }
  return g
      .create_op("ReverseV2", {tensor, axes}, {{"T", tensor.dtype()}, {"Tidx", axes.dtype()}},
                 op_name + "/")
      .output(0);
}

}  // namespace af
