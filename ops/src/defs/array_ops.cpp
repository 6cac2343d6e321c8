// Reshape, Pack, ConcatV2, Fill, Cast, Unique and ListDiff: ops, shape functions and
// graph-building functions (reshape, stack, concat, fill, zeros, ones, cast, unique,
// setdiff1d). Their CPU kernels are in kernels/src/array_ops.cpp.
#include "actorflow/ops/array_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/array_defs.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::index_tensor;

using Index = std::int64_t;

using detail::kCastTypes;

using detail::inference_shape_string;

using detail::index_values;

using detail::check_index_type;
using detail::with_rank;

using detail::list_type_mismatch_message;

// -- Reshape ------------------------------------------------------------------------------

Status infer_reshape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tshape"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  const DType t = c.input_types[0];
  const Tensor* sizes = c.input_values[1];
  if (sizes == nullptr) {
    const PartialShape& s = c.input_shapes[1];
    c.add_output(t, s.rank_known() && s.dim(0) >= 0
                        ? PartialShape::unknown_of_rank(static_cast<int>(s.dim(0)))
                        : PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims;
  int unknowns = 0;
  Index known = 1;
  for (Index v : index_values(*sizes)) {
    if (v < -1) return invalid_argument("Dimension " + std::to_string(v) + " must be >= -1");
    if (v == -1)
      ++unknowns;
    else
      known *= v;
    dims.push_back(v);
  }
  PartialShape out(dims);
  const Index n = c.input_shapes[0].num_elements();  // -1 unless fully defined
  if (n >= 0 && unknowns <= 1) {
    const bool ok = unknowns == 0 ? known == n : (known == 0 ? true : n % known == 0);
    if (!ok)
      return invalid_argument("Cannot reshape a tensor with " + std::to_string(n) +
                              " elements to shape " + inference_shape_string(out) + " (" +
                              std::to_string(known) + " elements)");
    if (unknowns == 1 && known > 0) {
      for (auto& d : dims)
        if (d == -1) d = n / known;
      out = PartialShape(dims);
    }
  }
  c.add_output(t, out);
  return {};
}

// -- Pack ---------------------------------------------------------------------------------

Status infer_pack(InferenceContext& c) {
  if (c.num_inputs() < 1) return invalid_argument("Pack needs at least one input");
  DType t = c.input_types[0];
  for (int i = 1; i < c.num_inputs(); ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != t)
      return invalid_argument(list_type_mismatch_message(c.node.op, "values", c.input_types));
  PartialShape merged = c.input_shapes[0];
  for (int i = 1; i < c.num_inputs(); ++i) {
    PartialShape next;
    if (!merged.merge_with(c.input_shapes[static_cast<std::size_t>(i)], &next).ok())
      return invalid_argument(
          "Shapes of all inputs must match: values[0].shape = " +
          inference_shape_string(c.input_shapes[0]) + " != values[" + std::to_string(i) +
          "].shape = " + inference_shape_string(c.input_shapes[static_cast<std::size_t>(i)]));
    merged = next;
  }
  std::int64_t axis = 0;
  c.get_attr("axis", &axis);
  if (!merged.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const int out_rank = merged.rank() + 1;
  if (axis < -out_rank || axis >= out_rank)
    return invalid_argument("Invalid axis: " + std::to_string(axis) + "; must be in [" +
                            std::to_string(-out_rank) + "," + std::to_string(out_rank) + ")");
  if (axis < 0) axis += out_rank;
  std::vector<std::int64_t> dims = merged.dims();
  dims.insert(dims.begin() + axis, c.num_inputs());
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- ConcatV2 -----------------------------------------------------------------------------

Status infer_concat(InferenceContext& c) {
  const int n = c.num_inputs() - 1;
  if (n < 1) return invalid_argument("ConcatV2 needs at least one value and an axis");
  std::vector<DType> value_types(c.input_types.begin(), c.input_types.begin() + n);
  const DType t = value_types[0];
  for (DType v : value_types)
    if (v != t)
      return invalid_argument(list_type_mismatch_message(c.node.op, "values", value_types));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[static_cast<std::size_t>(n)], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(n)], 0));
  int rank = -1;
  for (int i = 0; i < n; ++i)
    if (c.input_shapes[static_cast<std::size_t>(i)].rank_known()) {
      rank = c.input_shapes[static_cast<std::size_t>(i)].rank();
      break;
    }
  const Tensor* axis_value = c.input_values[static_cast<std::size_t>(n)];
  if (axis_value == nullptr || rank < 0) {
    c.add_output(t, rank < 0 ? PartialShape::unknown() : PartialShape::unknown_of_rank(rank));
    return {};
  }
  const Index axis = index_values(*axis_value).at(0);
  // TensorFlow's ConcatShapeHelper: the axis sets a minimum rank.
  const Index min_rank = axis < 0 ? -axis : axis + 1;
  std::vector<std::int64_t> dims;
  int first_known = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
    if (!s.rank_known()) continue;
    if (s.rank() < min_rank)
      return invalid_argument("Shape must be at least rank " + std::to_string(min_rank) +
                              " but is rank " + std::to_string(s.rank()));
    if (first_known < 0) {
      first_known = i;
      dims = s.dims();
      continue;
    }
    if (s.rank() != rank)
      return invalid_argument("Shape must be rank " + std::to_string(rank) + " but is rank " +
                              std::to_string(s.rank()));
  }
  const int ax = static_cast<int>(axis < 0 ? axis + rank : axis);
  // Merge the non-axis dimensions; sum the axis dimension.
  Index axis_total = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
    if (!s.rank_known()) {
      axis_total = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      auto& merged = dims[static_cast<std::size_t>(d)];
      if (d == ax) continue;
      const std::int64_t v = s.dim(d);
      if (merged >= 0 && v >= 0 && merged != v)
        return invalid_argument(
            "Dimension " + std::to_string(d) + " in both shapes must be equal, but are " +
            std::to_string(merged) + " and " + std::to_string(v) + ". Shapes are " +
            inference_shape_string(c.input_shapes[static_cast<std::size_t>(first_known)]) +
            " and " + inference_shape_string(s) + ".");
      if (merged < 0) merged = v;
    }
    if (axis_total >= 0) axis_total = s.dim(ax) < 0 ? -1 : axis_total + s.dim(ax);
  }
  dims[static_cast<std::size_t>(ax)] = axis_total;
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// TensorFlow's first Concat(concat_dim: int32, values...): ConcatV2's inference with the
// dimension moved behind the values.
Status infer_concat_v1(InferenceContext& c) {
  if (c.num_inputs() < 2)
    return invalid_argument("Concat needs a dimension and at least one value");
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  InferenceContext rotated = c;
  const auto rotate = [](auto& v) {
    if (!v.empty()) std::rotate(v.begin(), v.begin() + 1, v.end());
  };
  rotate(rotated.input_types);
  rotate(rotated.input_shapes);
  rotate(rotated.input_is_ref);
  rotate(rotated.input_values);
  if (rotated.input_handle_shapes.size() == rotated.input_types.size())
    rotate(rotated.input_handle_shapes);
  ACTORFLOW_RETURN_IF_ERROR(infer_concat(rotated));
  c.output_types = rotated.output_types;
  c.output_shapes = rotated.output_shapes;
  c.output_is_ref = rotated.output_is_ref;
  return {};
}

// -- Fill ---------------------------------------------------------------------------------

Status infer_fill(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "index_type"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  const DType t = c.input_types[1];
  if (const Tensor* dims = c.input_values[0]) {
    std::vector<std::int64_t> sizes = index_values(*dims);
    for (auto d : sizes)
      if (d < 0) return invalid_argument("Fill dimensions must be >= 0");
    c.add_output(t, PartialShape(std::move(sizes)));
    return {};
  }
  const PartialShape& s = c.input_shapes[0];
  c.add_output(t, s.rank_known() && s.dim(0) >= 0
                      ? PartialShape::unknown_of_rank(static_cast<int>(s.dim(0)))
                      : PartialShape::unknown());
  return {};
}

// -- Cast ---------------------------------------------------------------------------------

Status infer_cast(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType src = DType::invalid, dst = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("SrcT", &src));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("DstT", &dst));
  if (src != c.input_types[0])
    return invalid_argument("Input 'x' of 'Cast' Op has type " +
                            std::string(dtype_name(c.input_types[0])) +
                            " that does not match SrcT " + std::string(dtype_name(src)));
  for (DType t : {src, dst})
    if (std::find(kCastTypes.begin(), kCastTypes.end(), t) == kCastTypes.end())
      return unimplemented("Cast " + std::string(dtype_name(src)) + " to " +
                           std::string(dtype_name(dst)) + " is not supported");
  c.add_output(dst, c.input_shapes[0]);
  return {};
}

// -- builder helpers ----------------------------------------------------------------------

// A tensor of `dtype` and `shape` with every element `value`.
Tensor filled_tensor(DType dtype, const Shape& shape, double value) {
  Tensor t(dtype, shape);
  if (value == 0.0) return t;  // tensors start zero-filled (empty strings)
  bool ok = visit_numeric_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto o = t.flat<T>();
    T v;
    if constexpr (is_half_like_v<T>)
      v = T(static_cast<float>(value));
    else
      v = static_cast<T>(value);
    std::fill(o.begin(), o.end(), v);
  });
  if (!ok)
    throw InvalidArgumentError(invalid_argument("Cannot fill a " + std::string(dtype_name(dtype)) +
                                                " tensor with " + std::to_string(value)));
  return t;
}

// tf.zeros / tf.ones: a Const named `name` when small, else Fill under the name scope `name`
// (`<name>/shape_as_tensor`, `<name>/Const`, Fill `<name>`).
Output constant_fill(Graph& g, const Shape& shape, DType dtype, double value,
                     std::string_view name) {
  if (shape.num_elements() < 1000) return g.constant(filled_tensor(dtype, shape, value), name);
  const std::string op_name = g.unique_name(name);
  Output dims, scalar;
  {
    auto scope = g.name_scope(op_name + "/");
    dims = g.constant(index_tensor(shape.dims()), "shape_as_tensor");
    scalar = g.constant(filled_tensor(dtype, Shape{}, value), "Const");
  }
  return af::fill(dims, scalar, op_name + "/");
}

// Unique: y of the input's dtype, as long as it has distinct values (unknown while building);
// idx of `out_idx` (int32 or int64), one per input element.
Status infer_unique(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  const PartialShape& x = c.input_shapes[0];
  if (x.rank_known() && x.rank() != 1)
    return invalid_argument("Shape must be rank 1 but is rank " + std::to_string(x.rank()));
  DType out_idx = DType::int32;
  c.get_attr("out_idx", &out_idx);
  if (out_idx != DType::int32 && out_idx != DType::int64)
    return invalid_argument("Value for attr 'out_idx' of " +
                            std::string(data_type_string(out_idx)) +
                            " is not in the list of allowed values: int32, int64");
  c.add_output(c.input_types[0], PartialShape{-1});
  c.add_output(out_idx, x.rank_known() ? x : PartialShape{-1});
  return {};
}

// ListDiff(x, y): `out` and `idx`, vectors of a length known only when running.
Status infer_list_diff(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(
        cwise::type_mismatch_message(c.node.op, "y", c.input_types[1], "x", c.input_types[0]));
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
    if (s.rank_known() && s.rank() != 1)
      return invalid_argument("Shape must be rank 1 but is rank " + std::to_string(s.rank()));
  }
  DType out_idx = DType::int32;
  c.get_attr("out_idx", &out_idx);
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(out_idx, "out_idx"));
  c.add_output(c.input_types[0], PartialShape{-1});
  c.add_output(out_idx, PartialShape{-1});
  return {};
}

}  // namespace

namespace detail {

void register_array_ops(OpRegistry& r) {
  r.add({"Unique", infer_unique});
  r.add({"ListDiff", infer_list_diff});
  r.add({"Reshape", infer_reshape});
  r.add({"Pack", infer_pack});
  r.add({"ConcatV2", infer_concat});
  r.add({"Concat", infer_concat_v1});
  r.add({"Fill", infer_fill});
  r.add({"Cast", infer_cast});
}

}  // namespace detail

Output reshape(const Output& x, const Output& shape, std::string_view name) {
  return x.graph()
      .create_op("Reshape", {x, shape}, {{"T", x.dtype()}, {"Tshape", shape.dtype()}},
                 name.empty() ? "Reshape" : name)
      .output(0);
}

Output reshape(const Output& x, const std::vector<std::int64_t>& shape, std::string_view name) {
  // The list becomes the op's input "<op>/shape", as op_def_library names converted inputs.
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Reshape" : name);
  Output sizes;
  {
    auto scope = g.name_scope(op_name + "/");
    sizes = g.constant(index_tensor(shape), "shape");
  }
  return reshape(x, sizes, op_name + "/");
}

Output stack(const std::vector<Output>& values, int axis, std::string_view name) {
  if (values.empty())
    throw InvalidArgumentError(invalid_argument("stack needs at least one value"));
  std::vector<DType> types;
  for (auto& v : values) types.push_back(v.dtype());
  if (std::any_of(types.begin(), types.end(), [&](DType t) { return t != types[0]; }))
    throw InvalidArgumentError(
        invalid_argument(list_type_mismatch_message("Pack", "values", types)));
  return values[0]
      .graph()
      .create_op("Pack", values,
                 {{"N", static_cast<std::int64_t>(values.size())},
                  {"T", types[0]},
                  {"axis", static_cast<std::int64_t>(axis)}},
                 name.empty() ? "stack" : name)
      .output(0);
}

Output concat(const std::vector<Output>& values, int axis, std::string_view name) {
  if (values.empty())
    throw InvalidArgumentError(invalid_argument("concat needs at least one value"));
  Graph& g = values[0].graph();
  const std::string op_name = g.unique_name(name.empty() ? "concat" : name);
  if (values.size() == 1) {
    // As tf.concat: a single value passes through an Identity (after checking the axis).
    {
      auto scope = g.name_scope(op_name + "/");
      g.constant(Tensor(static_cast<std::int32_t>(axis)), "concat_dim");
    }
    return identity(values[0], op_name + "/");
  }
  std::vector<DType> types;
  for (auto& v : values) types.push_back(v.dtype());
  if (std::any_of(types.begin(), types.end(), [&](DType t) { return t != types[0]; }))
    throw InvalidArgumentError(
        invalid_argument(list_type_mismatch_message("ConcatV2", "values", types)));
  Output axis_tensor;
  {
    auto scope = g.name_scope(op_name + "/");
    axis_tensor = g.constant(Tensor(static_cast<std::int32_t>(axis)), "axis");
  }
  std::vector<Output> inputs = values;
  inputs.push_back(axis_tensor);
  return g
      .create_op("ConcatV2", inputs,
                 {{"N", static_cast<std::int64_t>(values.size())},
                  {"T", types[0]},
                  {"Tidx", DType::int32}},
                 op_name + "/")
      .output(0);
}

Output fill(const Output& dims, const Output& value, std::string_view name) {
  return dims.graph()
      .create_op("Fill", {dims, value}, {{"T", value.dtype()}, {"index_type", dims.dtype()}},
                 name.empty() ? "Fill" : name)
      .output(0);
}

Output zeros(Graph& g, const Shape& shape, DType dtype, std::string_view name) {
  return constant_fill(g, shape, dtype, 0.0, name.empty() ? "zeros" : name);
}

Output ones(Graph& g, const Shape& shape, DType dtype, std::string_view name) {
  return constant_fill(g, shape, dtype, 1.0, name.empty() ? "ones" : name);
}

std::pair<Output, Output> unique(const Output& x, DType out_idx, std::string_view name) {
  Operation op = x.graph().create_op("Unique", {x}, {{"T", x.dtype()}, {"out_idx", out_idx}},
                                     name.empty() ? "Unique" : name);
  return {op.output(0), op.output(1)};
}

std::pair<Output, Output> setdiff1d(const Output& x, const Output& y, DType index_dtype,
                                    std::string_view name) {
  if (x.dtype() != y.dtype())
    throw InvalidArgumentError(
        invalid_argument(cwise::type_mismatch_message("ListDiff", "y", y.dtype(), "x", x.dtype())));
  Operation op =
      x.graph().create_op("ListDiff", {x, y}, {{"T", x.dtype()}, {"out_idx", index_dtype}},
                          name.empty() ? "ListDiff" : name);
  return {op.output(0), op.output(1)};
}

Output cast(const Output& x, DType dtype, std::string_view name) {
  if (x.dtype() == dtype) return x;  // as tf.cast: no op for a cast to the same type
  return x.graph()
      .create_op("Cast", {x}, {{"SrcT", x.dtype()}, {"DstT", dtype}, {"Truncate", false}},
                 name.empty() ? "Cast" : name)
      .output(0);
}

}  // namespace af
