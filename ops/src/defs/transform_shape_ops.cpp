// ExpandDims, Squeeze, Rank, ShapeN, ZerosLike, OnesLike, StopGradient and PreventGradient:
// ops, shape functions and the graph-building functions expand_dims, squeeze, rank, shape_n,
// zeros_like, ones_like, stop_gradient and prevent_gradient. Registered from
// transform_ops.cpp; their CPU kernels are in kernels/src/transform_shape_ops.cpp.
//
// The shape functions follow TensorFlow 1.x (tensorflow/core/ops/array_ops.cc); messages are
// TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/transform_defs.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::kIndexTypes;
using detail::kNumericTypes;

using detail::check_attr_type;

using detail::first_index;

using detail::infer_unchanged;
using detail::list_type_mismatch_message;

// -- ExpandDims ---------------------------------------------------------------------------

Status infer_expand_dims(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[1], "Tdim", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const Tensor* dim_t = c.input_values[1];
  if (dim_t != nullptr && dim_t->num_elements() != 1)
    return invalid_argument("'dim' input must be a tensor with a single value");
  if (dim_t == nullptr || !input.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  Index dim = first_index(*dim_t);
  const Index rank = input.rank();
  const Index min_dim = -1 * rank - 1;
  if (dim < min_dim || dim > rank)
    return invalid_argument("dim " + std::to_string(dim) + " not in the interval [" +
                            std::to_string(min_dim) + ", " + std::to_string(rank) + "].");
  if (dim < 0) dim += rank + 1;
  std::vector<std::int64_t> dims = input.dims();
  dims.insert(dims.begin() + dim, 1);
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- Squeeze ------------------------------------------------------------------------------

Status infer_squeeze(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  if (!input.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const Index rank = input.rank();
  std::vector<std::int64_t> squeeze_dims;
  c.get_attr("squeeze_dims", &squeeze_dims);
  for (std::size_t i = 0; i < squeeze_dims.size(); ++i) {
    if (squeeze_dims[i] < -rank || squeeze_dims[i] >= rank)
      return invalid_argument("squeeze_dims[" + std::to_string(i) + "] not in [" +
                              std::to_string(-rank) + "," + std::to_string(rank) + ").");
    if (squeeze_dims[i] < 0) squeeze_dims[i] += rank;
  }
  std::vector<std::int64_t> result;
  for (int i = 0; i < rank; ++i) {
    const bool explicit_match =
        std::find(squeeze_dims.begin(), squeeze_dims.end(), i) != squeeze_dims.end();
    const Index dim = input.dim(i);
    if (dim < 0) {
      if (explicit_match) continue;  // assumed to be 1 at run time
      if (squeeze_dims.empty()) {
        // Squeezing every 1 with an unknown dimension: the rank is unknown.
        c.add_output(t, PartialShape::unknown());
        return {};
      }
    } else if (dim == 1) {
      if (explicit_match || squeeze_dims.empty()) continue;
    } else if (explicit_match) {
      return invalid_argument("Can not squeeze dim[" + std::to_string(i) +
                              "], expected a dimension of 1, got " + std::to_string(dim));
    }
    result.push_back(dim);
  }
  c.add_output(t, PartialShape(std::move(result)));
  return {};
}

// -- Rank and ShapeN ----------------------------------------------------------------------

Status infer_rank(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(DType::int32, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

Status infer_shape_n(InferenceContext& c) {
  if (c.num_inputs() < 1) return invalid_argument("ShapeN needs at least one input");
  for (DType t : c.input_types)
    if (t != c.input_types[0])
      return invalid_argument(list_type_mismatch_message(c.node.op, "input", c.input_types));
  DType out = DType::int32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "out_type", kIndexTypes, "int32, int64"));
  for (const PartialShape& s : c.input_shapes) c.add_output(out, PartialShape{s.rank()});
  return {};
}

// -- ZerosLike and OnesLike ---------------------------------------------------------------

Status infer_ones_like(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kNumericTypes,
                                            "bfloat16, float, double, uint8, int32, int64, bool"));
  return infer_unchanged(c);
}

// -- builder helpers ----------------------------------------------------------------------

void check_out_type(DType out_type, const char* fn) {
  if (out_type != DType::int32 && out_type != DType::int64)
    throw InvalidArgumentError(invalid_argument(std::string(fn) +
                                                ": out_type must be int32 or int64, not " +
                                                std::string(dtype_name(out_type))));
}

// A scalar one of `dtype` (numeric or bool).
Tensor one_of(DType dtype) {
  Tensor t(dtype, Shape{});
  const bool ok = visit_numeric_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_half_like_v<T>)
      t.data<T>()[0] = T(1.0f);
    else
      t.data<T>()[0] = T(1);
  });
  if (!ok)
    throw InvalidArgumentError(
        invalid_argument("ones_like: no ones of dtype " + std::string(dtype_name(dtype))));
  return t;
}

}  // namespace

namespace detail {

void register_transform_shape_ops(OpRegistry& r) {
  r.add({"ExpandDims", infer_expand_dims});
  r.add({"Squeeze", infer_squeeze});
  r.add({"Rank", infer_rank});
  r.add({"ShapeN", infer_shape_n});
  r.add({"ZerosLike", infer_unchanged});
  r.add({"OnesLike", infer_ones_like});
  r.add({"StopGradient", infer_unchanged});
  r.add({"PreventGradient", infer_unchanged});
}

}  // namespace detail

Output expand_dims(const Output& input, const Output& axis, std::string_view name) {
  return input.graph()
      .create_op("ExpandDims", {input, axis}, {{"T", input.dtype()}, {"Tdim", axis.dtype()}},
                 name.empty() ? "ExpandDims" : name)
      .output(0);
}

Output expand_dims(const Output& input, std::int64_t axis, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "ExpandDims" : name);
  Output dim;
  {
    auto scope = g.name_scope(op_name + "/");
    dim = g.constant(axis >= std::numeric_limits<std::int32_t>::min() &&
                             axis <= std::numeric_limits<std::int32_t>::max()
                         ? Tensor(static_cast<std::int32_t>(axis))
                         : Tensor(axis),
                     "dim");
  }
  return expand_dims(input, dim, op_name + "/");
}

Output squeeze(const Output& input, const std::vector<std::int64_t>& axis, std::string_view name) {
  return input.graph()
      .create_op("Squeeze", {input}, {{"T", input.dtype()}, {"squeeze_dims", axis}},
                 name.empty() ? "Squeeze" : name)
      .output(0);
}

Output rank(const Output& input, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Rank" : name);
  if (input.shape().rank_known())
    return g.constant(Tensor(static_cast<std::int32_t>(input.shape().rank())), op_name + "/");
  return g.create_op("Rank", {input}, {{"T", input.dtype()}}, op_name + "/").output(0);
}

std::vector<Output> shape_n(const std::vector<Output>& inputs, DType out_type,
                            std::string_view name) {
  if (inputs.empty())
    throw InvalidArgumentError(invalid_argument("shape_n needs at least one input"));
  check_out_type(out_type, "shape_n");
  Operation op = inputs[0].graph().create_op("ShapeN", inputs,
                                             {{"N", static_cast<std::int64_t>(inputs.size())},
                                              {"T", inputs[0].dtype()},
                                              {"out_type", out_type}},
                                             name.empty() ? "ShapeN" : name);
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

// TensorFlow 1.x's zeros_like_impl (optimize=True).
Output zeros_like(const Output& x, std::optional<DType> dtype, std::string_view name) {
  Graph& g = x.graph();
  const DType out_type = dtype.value_or(x.dtype());
  const std::string_view base = name.empty() ? "zeros_like" : name;
  if (auto shape = x.shape().to_shape()) return zeros(g, *shape, out_type, base);
  const std::string op_name = g.unique_name(base);
  if (out_type != x.dtype()) {
    Output dims;
    {
      auto scope = g.name_scope(op_name + "/");
      dims = af::shape(x, DType::int32, "Shape");
    }
    Tensor zero(out_type, Shape{});
    Output value;
    {
      auto scope = g.name_scope(op_name + "/");
      value = g.constant(zero, "Const");
    }
    return af::fill(dims, value, op_name + "/");
  }
  return g.create_op("ZerosLike", {x}, {{"T", x.dtype()}}, op_name + "/").output(0);
}

// TensorFlow 1.x's ones_like_impl: shape_internal "Shape", the one "Const", Fill.
Output ones_like(const Output& x, std::optional<DType> dtype, std::string_view name) {
  Graph& g = x.graph();
  const DType out_type = dtype.value_or(x.dtype());
  Tensor one = one_of(out_type);
  const std::string op_name = g.unique_name(name.empty() ? "ones_like" : name);
  Output dims, value;
  {
    auto scope = g.name_scope(op_name + "/");
    dims = af::shape(x, DType::int32, "Shape");
    value = g.constant(one, "Const");
  }
  return af::fill(dims, value, op_name + "/");
}

Output stop_gradient(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("StopGradient", {x}, {{"T", x.dtype()}}, name.empty() ? "StopGradient" : name)
      .output(0);
}

Output prevent_gradient(const Output& x, std::string_view message, std::string_view name) {
  return x.graph()
      .create_op("PreventGradient", {x}, {{"T", x.dtype()}, {"message", std::string(message)}},
                 name.empty() ? "PreventGradient" : name)
      .output(0);
}

}  // namespace af
