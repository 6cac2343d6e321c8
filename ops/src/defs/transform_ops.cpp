// Tile, Transpose, InvertPermutation, Slice and Unpack: ops, shape functions and the
// graph-building functions tile, transpose, invert_permutation, slice and unstack. Their CPU
// kernels are in kernels/src/transform_ops.cpp. The shape-only ops (ExpandDims, Squeeze, Rank,
// ShapeN, ZerosLike, OnesLike, StopGradient, PreventGradient) live in transform_shape_ops.cpp;
// OneHot, ConcatOffset and DecodeRaw in transform_encode_ops.cpp; StridedSlice and
// StridedSliceGrad in strided_slice_ops.cpp (each split the same way).
//
// The shape functions follow TensorFlow 1.x (tensorflow/core/ops/array_ops.cc); messages are
// TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace detail {
// transform_shape_ops.cpp
void register_transform_shape_ops(OpRegistry& r);
// transform_encode_ops.cpp
void register_transform_encode_ops(OpRegistry& r);
// strided_slice_ops.cpp
void register_strided_slice_ops(OpRegistry& r);
}  // namespace detail

namespace {

using detail::with_value;

using detail::index_tensor;

using Index = std::int64_t;

using detail::inference_shape_string;

using detail::index_values;

using detail::check_attr_type;
using detail::kIndexTypes;
using detail::shape_from_shape_tensor;
using detail::with_rank;

// InferenceContext::Multiply: a zero wins, a one passes the other through.
Index multiply_dims(Index a, Index b) {
  if (a == 0 || b == 1) return a;
  if (b == 0 || a == 1) return b;
  if (a < 0 || b < 0) return -1;
  return a * b;
}

// InferenceContext::Subtract of a possibly unknown `b` from `a`.
Status subtract_dims(Index a, Index b, Index* out) {
  if (b == 0) {
    *out = a;
  } else if (a < 0 || b < 0) {
    *out = -1;
  } else if (a < b) {
    return invalid_argument("Negative dimension size caused by subtracting " + std::to_string(b) +
                            " from " + std::to_string(a));
  } else {
    *out = a - b;
  }
  return {};
}

// The dimension `i` of `s`, or -1 when the rank is unknown.
Index dim_or_unknown(const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : -1; }

// A shape's element count when all its dimensions are known, else -1.
Index known_num_elements(const PartialShape& s) { return s.num_elements(); }

// -- Tile ---------------------------------------------------------------------------------

Status infer_tile(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tmultiples", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  PartialShape input = c.input_shapes[0];
  PartialShape multiples;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 1, &multiples));
  if (input.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(multiples, input.rank()));
    if (!multiples.rank_known()) multiples = PartialShape::unknown_of_rank(input.rank());
  }
  if (!multiples.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const int rank = multiples.rank();
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, rank));
  std::vector<std::int64_t> dims;
  for (int i = 0; i < rank; ++i)
    dims.push_back(multiply_dims(dim_or_unknown(input, i), multiples.dim(i)));
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- Transpose ----------------------------------------------------------------------------

// TensorFlow's TransposeShapeFn.
Status infer_transpose(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tperm", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& perm_shape = c.input_shapes[1];
  const Tensor* perm = c.input_values[1];
  const Index perm_elems = known_num_elements(perm_shape);
  if (!input.rank_known() && perm_elems < 0 && perm == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  Index rank = input.rank_known() ? input.rank()
               : perm_elems >= 0  ? perm_elems
                                  : perm->num_elements();
  if (!input.rank_known() && rank < 2) {
    // A one-element permutation is ambiguous: a scalar or a vector, both unchanged.
    c.add_output(t, input);
    return {};
  }
  ACTORFLOW_RETURN_IF_ERROR(with_rank(perm_shape, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_value(perm_elems, rank));
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), -1);
  if (perm != nullptr) {
    const std::vector<Index> data = index_values(*perm);
    for (Index i = 0; i < rank; ++i) {
      const Index in_idx = data[static_cast<std::size_t>(i)];
      if (in_idx >= rank || in_idx < -rank)
        return invalid_argument("perm dim " + std::to_string(in_idx) +
                                " is out of range of input rank " + std::to_string(rank));
      // As InferenceContext::Dim, a negative index counts from the end.
      const Index d = in_idx < 0 ? in_idx + rank : in_idx;
      dims[static_cast<std::size_t>(i)] = dim_or_unknown(input, static_cast<int>(d));
    }
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- InvertPermutation --------------------------------------------------------------------

Status infer_invert_permutation(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kIndexTypes, "int32, int64"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  c.add_output(c.input_types[0],
               c.input_shapes[0].rank_known() ? c.input_shapes[0] : PartialShape{-1});
  return {};
}

// -- Slice --------------------------------------------------------------------------------

// TensorFlow's shape_inference::SliceShape.
Status infer_slice(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[1] != c.input_types[2])
    return invalid_argument("Input 'size' of 'Slice' Op has type " +
                            std::string(dtype_name(c.input_types[2])) +
                            " that does not match type " +
                            std::string(dtype_name(c.input_types[1])) + " of argument 'begin'.");
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Index", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& begin_shape = c.input_shapes[1];
  const PartialShape& sizes_shape = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_shape, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(sizes_shape, 1));
  const Index begin_len = dim_or_unknown(begin_shape, 0);
  const Index sizes_len = dim_or_unknown(sizes_shape, 0);
  if (begin_len >= 0 && sizes_len >= 0 && begin_len != sizes_len)
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(begin_len) + " and " + std::to_string(sizes_len) +
                            ". Shapes are " + inference_shape_string(begin_shape) + " and " +
                            inference_shape_string(sizes_shape) + ".");
  const Index ndims = begin_len >= 0 ? begin_len : sizes_len;
  if (ndims >= 0) ACTORFLOW_RETURN_IF_ERROR(with_rank(input, static_cast<int>(ndims)));
  PartialShape begin_value;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 1, &begin_value));
  if (const Tensor* sizes = c.input_values[2]) {
    const std::vector<Index> size_values = index_values(*sizes);
    const auto n = static_cast<int>(size_values.size());
    ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_value, n));
    std::vector<std::int64_t> dims;
    for (int i = 0; i < n; ++i) {
      const Index dim = dim_or_unknown(input, i);
      const Index s = size_values[static_cast<std::size_t>(i)];
      if (s != -1) {
        if (s < 0)
          return invalid_argument("Out of bounds slicing on dimension " + std::to_string(i) +
                                  " of length " + std::to_string(dim) +
                                  ": sizes vector cannot be < -1, but was " + std::to_string(s));
        dims.push_back(s);
      } else {
        Index rest = -1;
        ACTORFLOW_RETURN_IF_ERROR(subtract_dims(dim, dim_or_unknown(begin_value, i), &rest));
        dims.push_back(rest);
      }
    }
    c.add_output(t, PartialShape(std::move(dims)));
    return {};
  }
  PartialShape sizes_value;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 2, &sizes_value));
  if (sizes_value.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_value, sizes_value.rank()));
    c.add_output(t, sizes_value);
  } else {
    c.add_output(t, input.rank_known() ? PartialShape::unknown_of_rank(input.rank())
                                       : PartialShape::unknown());
  }
  return {};
}

// -- Unpack -------------------------------------------------------------------------------

Status infer_unpack(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  std::int64_t num = 0, axis = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num", &num));
  c.get_attr("axis", &axis);
  if (num < 0)
    return invalid_argument("Value for attr 'num' of " + std::to_string(num) +
                            " must be at least minimum 0");
  const DType t = c.input_types[0];
  const PartialShape& s = c.input_shapes[0];
  PartialShape out;
  if (s.rank_known()) {
    const Index rank = s.rank();
    if (axis < -rank || axis >= rank)
      return invalid_argument("Invalid axis: " + std::to_string(axis) + "; must be in [" +
                              std::to_string(-rank) + "," + std::to_string(rank) + ")");
    if (axis < 0) axis += rank;
    ACTORFLOW_RETURN_IF_ERROR(with_value(s.dim(static_cast<int>(axis)), num));
    std::vector<std::int64_t> dims = s.dims();
    dims.erase(dims.begin() + axis);
    out = PartialShape(std::move(dims));
  }
  for (std::int64_t i = 0; i < num; ++i) c.add_output(t, out);
  return {};
}

// -- builder helpers ----------------------------------------------------------------------

// Creates op `type` named `name` (default `default_name`) after adding the Consts `consts`
// (input name, value) under its name scope, as op_def_library names converted inputs.
Operation op_with_consts(Graph& g, const std::string& type, std::vector<Output> inputs,
                         const std::vector<std::pair<std::string, Tensor>>& consts, AttrMap attrs,
                         std::string_view name, std::string_view default_name) {
  const std::string op_name = g.unique_name(name.empty() ? default_name : name);
  {
    auto scope = g.name_scope(op_name + "/");
    for (auto& [input_name, value] : consts) inputs.push_back(g.constant(value, input_name));
  }
  return g.create_op(type, inputs, std::move(attrs), op_name + "/");
}

}  // namespace

namespace detail {

void register_transform_ops(OpRegistry& r) {
  r.add({"Tile", infer_tile});
  r.add({"Transpose", infer_transpose});
  r.add({"InvertPermutation", infer_invert_permutation});
  r.add({"Slice", infer_slice});
  r.add({"Unpack", infer_unpack});
  register_transform_shape_ops(r);
  register_transform_encode_ops(r);
  register_strided_slice_ops(r);
}

}  // namespace detail

Output tile(const Output& input, const Output& multiples, std::string_view name) {
  return input.graph()
      .create_op("Tile", {input, multiples},
                 {{"T", input.dtype()}, {"Tmultiples", multiples.dtype()}},
                 name.empty() ? "Tile" : name)
      .output(0);
}

Output tile(const Output& input, const std::vector<std::int64_t>& multiples,
            std::string_view name) {
  Tensor m = index_tensor(multiples);
  const DType index_type = m.dtype();
  return op_with_consts(input.graph(), "Tile", {input}, {{"multiples", m}},
                        {{"T", input.dtype()}, {"Tmultiples", index_type}}, name, "Tile")
      .output(0);
}

Output transpose(const Output& x, const Output& perm, std::string_view name) {
  return x.graph()
      .create_op("Transpose", {x, perm}, {{"T", x.dtype()}, {"Tperm", perm.dtype()}},
                 name.empty() ? "transpose" : name)
      .output(0);
}

Output transpose(const Output& x, const std::vector<std::int64_t>& perm, std::string_view name) {
  Tensor p = index_tensor(perm);
  const DType index_type = p.dtype();
  return op_with_consts(x.graph(), "Transpose", {x}, {{"perm", p}},
                        {{"T", x.dtype()}, {"Tperm", index_type}}, name, "transpose")
      .output(0);
}

// tf.transpose(a) in TensorFlow 1.x: with a known non-zero rank the reversed permutation is
// the Const "<scope>/perm"; otherwise (`not a.get_shape().ndims`, scalars included) it is
// computed as (Rank - 1) - Range(0, Rank, 1).
Output transpose(const Output& x, std::string_view name) {
  Graph& g = x.graph();
  const PartialShape& s = x.shape();
  if (s.rank_known() && s.rank() > 0) {
    std::vector<std::int64_t> perm;
    for (int i = s.rank() - 1; i >= 0; --i) perm.push_back(i);
    return transpose(x, perm, name);
  }
  const std::string op_name = g.unique_name(name.empty() ? "transpose" : name);
  Output perm;
  {
    auto scope = g.name_scope(op_name + "/");
    Output rank_t = g.create_op("Rank", {x}, {{"T", x.dtype()}}, "Rank").output(0);
    Output last = rank_t - 1;  // "<scope>/sub/y", "<scope>/sub"
    const std::string range_name = g.unique_name("Range");
    Output start, delta;
    {
      auto range_scope = g.name_scope(range_name + "/");
      start = g.constant(Tensor(std::int32_t{0}), "start");
      delta = g.constant(Tensor(std::int32_t{1}), "delta");
    }
    Output range =
        g.create_op("Range", {start, rank_t, delta}, {{"Tidx", DType::int32}}, range_name + "/")
            .output(0);
    perm = sub(last, range, "sub");  // "<scope>/sub_1"
  }
  return transpose(x, perm, op_name + "/");
}

Output invert_permutation(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("InvertPermutation", {x}, {{"T", x.dtype()}},
                 name.empty() ? "InvertPermutation" : name)
      .output(0);
}

Output slice(const Output& input, const Output& begin, const Output& size, std::string_view name) {
  return input.graph()
      .create_op("Slice", {input, begin, size}, {{"T", input.dtype()}, {"Index", begin.dtype()}},
                 name.empty() ? "Slice" : name)
      .output(0);
}

Output slice(const Output& input, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size, std::string_view name) {
  std::vector<std::int64_t> all = begin;
  all.insert(all.end(), size.begin(), size.end());
  // begin and size share the Index attr: both int64 when either needs it.
  const DType index_type = index_tensor(all).dtype();
  auto as_index = [&](const std::vector<std::int64_t>& v) {
    return index_type == DType::int64 ? Tensor::from_vector(v) : index_tensor(v);
  };
  return op_with_consts(input.graph(), "Slice", {input},
                        {{"begin", as_index(begin)}, {"size", as_index(size)}},
                        {{"T", input.dtype()}, {"Index", index_type}}, name, "Slice")
      .output(0);
}

std::vector<Output> unstack(const Output& value, std::optional<std::int64_t> num, std::int64_t axis,
                            std::string_view name) {
  const PartialShape& s = value.shape();
  if (!num) {
    if (s.rank_known()) {
      if (axis < -s.rank() || axis >= s.rank())
        throw InvalidArgumentError(invalid_argument("axis = " + std::to_string(axis) + " not in [" +
                                                    std::to_string(-s.rank()) + ", " +
                                                    std::to_string(s.rank()) + ")"));
      const std::int64_t d = s.dim(static_cast<int>(axis < 0 ? axis + s.rank() : axis));
      if (d >= 0) num = d;
    }
    if (!num)
      throw InvalidArgumentError(invalid_argument("Cannot infer num from shape " + s.to_string()));
  }
  Operation op = value.graph().create_op("Unpack", {value},
                                         {{"T", value.dtype()}, {"num", *num}, {"axis", axis}},
                                         name.empty() ? "unstack" : name);
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

}  // namespace af
