// The definitions of ClipByValue, ApproximateEqual, Roll, LinSpace, Cross, the bitwise ops,
// UniqueWithCounts, UniqueV2, UniqueWithCountsV2, Bincount, DenseBincount, RandomUniformInt
// and Multinomial (TensorFlow's shape functions from math_ops.cc, manip_ops.cc,
// bitwise_ops.cc, array_ops.cc and random_ops.cc) and the builders of
// actorflow/ops/misc_math_ops.hpp, with those of the unary special functions whose shape
// functions are in cwise_unary_ops.cpp. The CPU kernels are in kernels/src/misc_math_ops.cpp,
// kernels/src/misc_math_count_ops.cpp and kernels/src/cwise_unary_ops.cpp.
#include "actorflow/ops/misc_math_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank_at_most;

using Index = std::int64_t;
using cwise::check_allowed_type;
using detail::check_index_type;
using detail::index_values;
using detail::op_def_types;
using detail::with_rank;
using detail::with_rank_at_least;

const std::vector<DType> kFloatOnly = {DType::float32, DType::float64};
const std::vector<DType> kBincountTypes = {DType::int32, DType::int64, DType::float32,
                                           DType::float64};

// Inputs [first, first + n) must have input `first`'s type (op_def_library's message).
Status same_types(const InferenceContext& c, const std::vector<const char*>& names) {
  for (std::size_t i = 1; i < names.size(); ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument(cwise::type_mismatch_message(c.node.op, names[i], c.input_types[i],
                                                           names[0], c.input_types[0]));
  return {};
}

// ClipByValue: UnchangedShape of t; the bounds of t's type.
Status infer_clip_by_value(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(same_types(c, {"t", "clip_value_min", "clip_value_max"}));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], op_def_types("ClipByValue")));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// ApproximateEqual: x and y merged, a bool of that shape.
Status infer_approximate_equal(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_binary_types(c, "x", "y", kFloatOnly));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[0], c.input_shapes[1], &merged));
  c.add_output(DType::boolean, merged);
  return {};
}

// Roll: input of rank >= 1, shift and axis of rank <= 1 and one shape; the input's shape.
Status infer_roll(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tshift"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Taxis"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[2], 1));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[1], c.input_shapes[2], &merged));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// LinSpace: scalars start, stop and num; a vector of num values (known when num is a Const).
Status infer_lin_space(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(same_types(c, {"start", "stop"}));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatOnly));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tidx"));
  const char* names[] = {" for 'start'", " for 'stop'", " for 'num'"};
  for (int i = 0; i < 3; ++i)
    if (Status s = with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0); !s.ok())
      return s.with_context(names[i]);
  Index num = -1;
  if (const Tensor* value = c.input_values[2]) {
    num = index_values(*value)[0];
    if (num <= 0) return invalid_argument("Requires num > 0: " + std::to_string(num));
  }
  c.add_output(c.input_types[0], PartialShape{num});
  return {};
}

// Cross: a and b of rank >= 1 merged, the last dimension 3.
Status infer_cross(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_binary_types(c, "a", "b", op_def_types("Cross")));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[0], c.input_shapes[1], &merged));
  if (merged.rank_known()) {
    const Index last = merged.dim(merged.rank() - 1);
    if (last >= 0 && last != 3)
      return invalid_argument("Dimension must be 3 but is " + std::to_string(last));
  }
  c.add_output(c.input_types[0], merged);
  return {};
}

// The out_idx attr (int32 unless set).
Status out_idx_type(const InferenceContext& c, DType* out) {
  *out = DType::int32;
  c.get_attr("out_idx", out);
  return check_index_type(*out, "out_idx");
}

// UniqueWithCounts: y [?], idx of the vector x's shape, count [?].
Status infer_unique_with_counts(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType out_idx;
  ACTORFLOW_RETURN_IF_ERROR(out_idx_type(c, &out_idx));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  c.add_output(c.input_types[0], PartialShape{-1});
  c.add_output(out_idx, c.input_shapes[0].rank_known() ? c.input_shapes[0] : PartialShape{-1});
  c.add_output(out_idx, PartialShape{-1});
  return {};
}

// UniqueV2 / UniqueWithCountsV2: y of x's rank with unknown dimensions, idx a vector (its
// length known for a Const axis), count [?].
Status infer_unique_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  DType out_idx;
  ACTORFLOW_RETURN_IF_ERROR(out_idx_type(c, &out_idx));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Taxis"));
  const PartialShape& x = c.input_shapes[0];
  Index idx_len = -1;
  if (const Tensor* axis = c.input_values[1]; axis != nullptr && x.rank_known()) {
    const std::vector<Index> a = index_values(*axis);
    if (a.empty() && x.rank() == 1) idx_len = x.dim(0);
    if (a.size() == 1) {
      const Index d = a[0] < 0 ? a[0] + x.rank() : a[0];
      if (d >= 0 && d < x.rank()) idx_len = x.dim(static_cast<int>(d));
    }
  }
  c.add_output(c.input_types[0],
               x.rank_known() ? PartialShape::unknown_of_rank(x.rank()) : PartialShape::unknown());
  c.add_output(out_idx, PartialShape{idx_len});
  if (c.node.op == "UniqueWithCountsV2") c.add_output(out_idx, PartialShape{-1});
  return {};
}

// Reads a Const size (int32 or int64); -1 when not constant. "size (-1) must be
// non-negative".
Status const_size(const InferenceContext& c, Index* size) {
  *size = -1;
  if (const Tensor* value = c.input_values[1]) {
    if (value->rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(value->rank()));
    *size = index_values(*value)[0];
    if (*size < 0)
      return invalid_argument("size (" + std::to_string(*size) + ") must be non-negative");
  }
  return {};
}

// Bincount(arr int32, size int32 scalar, weights T): [size].
Status infer_bincount(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  for (int i = 0; i < 2; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != DType::int32)
      return invalid_argument(cwise::fixed_type_mismatch_message(
          c.node.op, i == 0 ? "arr" : "size", c.input_types[static_cast<std::size_t>(i)],
          DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[2], kBincountTypes));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  Index size = -1;
  ACTORFLOW_RETURN_IF_ERROR(const_size(c, &size));
  c.add_output(c.input_types[2], PartialShape{size});
  return {};
}

// DenseBincount(input, size, weights): input of rank <= 2; [size] or [rows, size].
Status infer_dense_bincount(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(same_types(c, {"input", "size"}));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[2], kBincountTypes));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(input, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  Index size = -1;
  ACTORFLOW_RETURN_IF_ERROR(const_size(c, &size));
  if (c.input_values[1] == nullptr || !input.rank_known())
    c.add_output(c.input_types[2], PartialShape::unknown());
  else if (input.rank() == 2)
    c.add_output(c.input_types[2], PartialShape{input.dim(0), size});
  else
    c.add_output(c.input_types[2], PartialShape{size});
  return {};
}

// RandomUniformInt: scalar bounds of Tout (int32, int64); the shape input's value.
Status infer_random_uniform_int(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "T"));
  if (c.input_types[2] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "maxval", c.input_types[2],
                                                         "minval", c.input_types[1]));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tout"));
  const char* names[] = {"minval", "maxval"};
  for (int i = 1; i < 3; ++i) {
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
    if (s.rank_known() && s.rank() != 0)
      return invalid_argument(std::string(names[i - 1]) +
                              " must be a scalar; got a tensor of shape " +
                              detail::inference_shape_string(s));
  }
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(c.input_types[1], std::move(shape));
  return {};
}

// Multinomial: logits [batch, classes], a scalar num_samples; [batch, num_samples].
Status infer_multinomial(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], cwise::kFloatTypes));
  if (c.input_types[1] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "num_samples",
                                                               c.input_types[1], DType::int32));
  DType output_dtype = DType::int64;
  c.get_attr("output_dtype", &output_dtype);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(output_dtype, "output_dtype"));
  const PartialShape& logits = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(logits, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  Index num_samples = -1;
  if (const Tensor* value = c.input_values[1]) {
    num_samples = index_values(*value)[0];
    if (num_samples < 0)
      return invalid_argument(
          "Dimension size, given by scalar input 1, must be non-negative but is " +
          std::to_string(num_samples));
  }
  c.add_output(output_dtype, PartialShape{logits.rank_known() ? logits.dim(0) : -1, num_samples});
  return {};
}

Output op1(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
           std::string_view name, const char* default_name) {
  Graph& g = inputs[0].graph();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? default_name : name).output(0);
}

// A Const made inside the op's own name scope ("<op>/<input>"), as op_def_library converts
// Python values.
template <class Make>
Output scoped_const(Graph& g, const std::string& op_name, const char* input, Make&& make) {
  auto scope = g.name_scope(op_name + "/");
  return g.constant(make(), input);
}

// A scalar Const of the float dtype `dtype`.
Tensor float_scalar(DType dtype, double v) {
  if (dtype == DType::float64) return Tensor(v);
  return Tensor(static_cast<float>(v));
}

// Tensor of int values of `dtype` (int32 or int64).
Tensor int_scalar(DType dtype, std::int64_t v) {
  if (dtype == DType::int64) return Tensor(v);
  return Tensor(static_cast<std::int32_t>(v));
}

}  // namespace

namespace detail {

void register_misc_math_ops(OpRegistry& r) {
  r.add({"ClipByValue", infer_clip_by_value});
  r.add({"ApproximateEqual", infer_approximate_equal});
  r.add({"Roll", infer_roll});
  r.add({"LinSpace", infer_lin_space});
  r.add({"Cross", infer_cross});
  for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"})
    r.add(
        {type, [type](InferenceContext& c) { return cwise::infer_binary(c, op_def_types(type)); }});
  r.add({"Invert",
         [](InferenceContext& c) { return cwise::infer_unary(c, op_def_types("Invert")); }});
  r.add({"UniqueWithCounts", infer_unique_with_counts});
  r.add({"UniqueV2", infer_unique_v2});
  r.add({"UniqueWithCountsV2", infer_unique_v2});
  r.add({"Bincount", infer_bincount});
  r.add({"DenseBincount", infer_dense_bincount});
  r.add({"RandomUniformInt", infer_random_uniform_int, true});
  r.add({"Multinomial", infer_multinomial, true});
}

}  // namespace detail

// -- unary special functions ------------------------------------------------------------------

Output asinh(const Output& x, std::string_view name) { return cwise::unary_op("Asinh", x, name); }
Output acosh(const Output& x, std::string_view name) { return cwise::unary_op("Acosh", x, name); }
Output atanh(const Output& x, std::string_view name) { return cwise::unary_op("Atanh", x, name); }
Output lgamma(const Output& x, std::string_view name) { return cwise::unary_op("Lgamma", x, name); }
Output digamma(const Output& x, std::string_view name) {
  return cwise::unary_op("Digamma", x, name);
}
Output erfinv(const Output& x, std::string_view name) { return cwise::unary_op("Erfinv", x, name); }
Output ndtri(const Output& x, std::string_view name) { return cwise::unary_op("Ndtri", x, name); }

Output polygamma(const Output& a, const Output& x, std::string_view name) {
  if (x.dtype() != a.dtype())
    throw InvalidArgumentError(invalid_argument(
        cwise::type_mismatch_message("Polygamma", "x", x.dtype(), "a", a.dtype())));
  return op1("Polygamma", {a, x}, {{"T", a.dtype()}}, name, "Polygamma");
}

Output zeta(const Output& x, const Output& q, std::string_view name) {
  if (q.dtype() != x.dtype())
    throw InvalidArgumentError(
        invalid_argument(cwise::type_mismatch_message("Zeta", "q", q.dtype(), "x", x.dtype())));
  return op1("Zeta", {x, q}, {{"T", x.dtype()}}, name, "Zeta");
}

// -- clipping, comparison, sequences ----------------------------------------------------------

Output clip_by_value(const Output& t, const Output& clip_value_min, const Output& clip_value_max,
                     std::string_view name) {
  return op1("ClipByValue", {t, clip_value_min, clip_value_max}, {{"T", t.dtype()}}, name,
             "clip_by_value");
}

Output approximate_equal(const Output& x, const Output& y, float tolerance, std::string_view name) {
  return op1("ApproximateEqual", {x, y}, {{"T", x.dtype()}, {"tolerance", tolerance}}, name,
             "ApproximateEqual");
}

Output roll(const Output& input, const Output& shift, const Output& axis, std::string_view name) {
  return op1("Roll", {input, shift, axis},
             {{"T", input.dtype()}, {"Tshift", shift.dtype()}, {"Taxis", axis.dtype()}}, name,
             "Roll");
}

Output roll(const Output& input, const std::vector<std::int64_t>& shift,
            const std::vector<std::int64_t>& axis, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Roll" : name);
  const Output s = scoped_const(g, op_name, "shift", [&] { return detail::index_tensor(shift); });
  const Output a = scoped_const(g, op_name, "axis", [&] { return detail::index_tensor(axis); });
  return roll(input, s, a, op_name + "/");
}

Output lin_space(const Output& start, const Output& stop, const Output& num,
                 std::string_view name) {
  return op1("LinSpace", {start, stop, num}, {{"T", start.dtype()}, {"Tidx", num.dtype()}}, name,
             "LinSpace");
}

Output lin_space(Graph& g, double start, double stop, std::int64_t num, DType dtype,
                 std::string_view name) {
  const std::string op_name = g.unique_name(name.empty() ? "LinSpace" : name);
  const Output s = scoped_const(g, op_name, "start", [&] { return float_scalar(dtype, start); });
  const Output e = scoped_const(g, op_name, "stop", [&] { return float_scalar(dtype, stop); });
  const Output n = scoped_const(g, op_name, "num", [&] { return detail::python_int(num); });
  return lin_space(s, e, n, op_name + "/");
}

Output cross(const Output& a, const Output& b, std::string_view name) {
  return cwise::binary_op("Cross", a, b, name, "Cross");
}

// -- bitwise ------------------------------------------------------------------------------------

Output bitwise_and(const Output& x, const Output& y, std::string_view name) {
  return cwise::binary_op("BitwiseAnd", x, y, name, "BitwiseAnd");
}
Output bitwise_or(const Output& x, const Output& y, std::string_view name) {
  return cwise::binary_op("BitwiseOr", x, y, name, "BitwiseOr");
}
Output bitwise_xor(const Output& x, const Output& y, std::string_view name) {
  return cwise::binary_op("BitwiseXor", x, y, name, "BitwiseXor");
}
Output invert(const Output& x, std::string_view name) { return cwise::unary_op("Invert", x, name); }
Output left_shift(const Output& x, const Output& y, std::string_view name) {
  return cwise::binary_op("LeftShift", x, y, name, "LeftShift");
}
Output right_shift(const Output& x, const Output& y, std::string_view name) {
  return cwise::binary_op("RightShift", x, y, name, "RightShift");
}

// -- unique values and bin counts -----------------------------------------------------------------

UniqueWithCountsOutputs unique_with_counts(const Output& x, DType out_idx, std::string_view name) {
  Operation op =
      x.graph().create_op("UniqueWithCounts", {x}, {{"T", x.dtype()}, {"out_idx", out_idx}},
                          name.empty() ? "UniqueWithCounts" : name);
  return {op.output(0), op.output(1), op.output(2)};
}

namespace {

Operation unique_axis_op(const char* type, const Output& x, const std::vector<std::int64_t>& axis,
                         DType out_idx, std::string_view name) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? type : name);
  const Output a = scoped_const(g, op_name, "axis", [&] { return Tensor::from_vector(axis); });
  return g.create_op(type, {x, a},
                     {{"T", x.dtype()}, {"Taxis", DType::int64}, {"out_idx", out_idx}},
                     op_name + "/");
}

}  // namespace

UniqueOutputs unique_v2(const Output& x, const std::vector<std::int64_t>& axis, DType out_idx,
                        std::string_view name) {
  Operation op = unique_axis_op("UniqueV2", x, axis, out_idx, name);
  return {op.output(0), op.output(1)};
}

UniqueWithCountsOutputs unique_with_counts_v2(const Output& x,
                                              const std::vector<std::int64_t>& axis, DType out_idx,
                                              std::string_view name) {
  Operation op = unique_axis_op("UniqueWithCountsV2", x, axis, out_idx, name);
  return {op.output(0), op.output(1), op.output(2)};
}

Output bincount(const Output& arr, const Output& size, const Output& weights,
                std::string_view name) {
  return op1("Bincount", {arr, size, weights}, {{"T", weights.dtype()}}, name, "Bincount");
}

Output dense_bincount(const Output& input, const Output& size, const Output& weights,
                      bool binary_output, std::string_view name) {
  return op1("DenseBincount", {input, size, weights},
             {{"Tidx", input.dtype()}, {"T", weights.dtype()}, {"binary_output", binary_output}},
             name, "DenseBincount");
}

// -- sampling -------------------------------------------------------------------------------------

// TF 1.x random_ops.random_uniform with an integer dtype: consts "shape", "min", "max" under
// the scope, then RandomUniformInt named after the scope itself; the seeds drawn after the
// consts exist, as in TensorFlow.
Output random_uniform_int(Graph& g, const Shape& shape, std::int64_t minval, std::int64_t maxval,
                          DType dtype, std::optional<std::int64_t> seed, std::string_view name) {
  if (dtype != DType::int32 && dtype != DType::int64)
    throw InvalidArgumentError(invalid_argument("random_uniform_int: invalid dtype " +
                                                std::string(dtype_name(dtype)) +
                                                " (expected int32 or int64)"));
  const std::string scope = g.unique_name(name.empty() ? "random_uniform" : name);
  Output shape_t, min_t, max_t;
  {
    auto guard = g.name_scope(scope + "/");
    shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
    min_t = g.constant(int_scalar(dtype, minval), "min");
    max_t = g.constant(int_scalar(dtype, maxval), "max");
  }
  auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op("RandomUniformInt", {shape_t, min_t, max_t},
                 {{"seed", seed1}, {"seed2", seed2}, {"Tout", dtype}, {"T", shape_t.dtype()}},
                 scope + "/")
      .output(0);
}

// TF 1.x random_ops.multinomial: under the scope "multinomial", op Multinomial with its
// num_samples Const "multinomial/Multinomial/num_samples".
Output multinomial(const Output& logits, std::int64_t num_samples, std::optional<std::int64_t> seed,
                   DType output_dtype, std::string_view name) {
  Graph& g = logits.graph();
  auto outer = g.name_scope(name.empty() ? "multinomial" : name);
  const std::string op_name = g.unique_name("Multinomial");
  const Output n = scoped_const(g, op_name, "num_samples",
                                [&] { return Tensor(static_cast<std::int32_t>(num_samples)); });
  auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op("Multinomial", {logits, n},
                 {{"seed", seed1},
                  {"seed2", seed2},
                  {"T", logits.dtype()},
                  {"output_dtype", output_dtype}},
                 op_name + "/")
      .output(0);
}

}  // namespace af
