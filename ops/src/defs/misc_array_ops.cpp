// The definitions of Bucketize, HistogramFixedWidth, CumulativeLogsumexp, BroadcastArgs,
// EnsureShape, Snapshot, the FakeQuantWithMinMax* ops, Print and PrintV2 (shape functions as
// TensorFlow's math_ops.cc, array_ops.cc and logging_ops.cc) and their builders. Their CPU
// kernels are in kernels/src/misc_array_ops.cpp, the gradients in ops/src/gradients/
// misc_array_grad.cpp.
#include "actorflow/ops/misc_array_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank_at_most;

using Index = std::int64_t;
using cwise::merge_shapes;
using detail::check_index_type;
using detail::with_rank;
using detail::with_rank_at_least;

// The types Bucketize and HistogramFixedWidth take.
const std::vector<DType> kBucketTypes = {DType::int32, DType::int64, DType::float32,
                                         DType::float64};

// InferenceContext::Merge of two dimensions (-1 unknown): "Dimensions must be equal, but are
// 2 and 3".
Status merge_dims(Index a, Index b, Index* out = nullptr) {
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  if (out) *out = a >= 0 ? a : b;
  return {};
}

// Dimension `i` of `s` (negative from the end), -1 when unknown.
Index dim_of(const PartialShape& s, int i) {
  if (!s.rank_known()) return -1;
  return s.dim(i < 0 ? s.rank() + i : i);
}

// Every input of a FakeQuant op is float32 (op_def_library's message names the argument).
Status check_float_inputs(const InferenceContext& c, const std::vector<const char*>& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (c.input_types[i] != DType::float32)
      return invalid_argument(
          cwise::fixed_type_mismatch_message(c.node.op, args[i], c.input_types[i], DType::float32));
  return {};
}

// Bucketize: int32 of the input's shape.
Status infer_bucketize(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kBucketTypes));
  c.add_output(DType::int32, c.input_shapes[0]);
  return {};
}

// HistogramFixedWidth: value_range a 2-vector, nbins a scalar; [nbins] when nbins is known.
Status infer_histogram_fixed_width(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_binary_types(c, "values", "value_range", kBucketTypes));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int32));
  DType dtype = DType::int32;
  c.get_attr("dtype", &dtype);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(dtype, "dtype"));
  const PartialShape& range = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(range, 1));
  if (range.rank_known() && range.dim(0) >= 0 && range.dim(0) != 2)
    return invalid_argument("Dimension must be 2 but is " + std::to_string(range.dim(0)));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  Index nbins = -1;
  if (const Tensor* value = c.input_values[2]) {
    nbins = detail::index_values(*value)[0];
    if (nbins <= 0) return invalid_argument("Requires nbins > 0: " + std::to_string(nbins));
  }
  c.add_output(dtype, PartialShape{nbins});
  return {};
}

// CumulativeLogsumexp: x's type and shape (float types), an index-typed axis.
Status infer_cumulative_logsumexp(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], cwise::kFloatTypes));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// BroadcastArgsShape: two vectors; a vector of the longer length when both are known.
Status infer_broadcast_args(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_binary_types(c, "s0", "s1", detail::kIndexTypes));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  const Index x = dim_of(c.input_shapes[0], 0), y = dim_of(c.input_shapes[1], 0);
  c.add_output(c.input_types[0], PartialShape{x >= 0 && y >= 0 ? std::max(x, y) : -1});
  return {};
}

// EnsureShape: attr shape merged with the input's (its rank checked first).
Status infer_ensure_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  PartialShape desired;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape", &desired));
  // WithRank(input, desired rank), the rank -1 when `shape` is unknown: as TensorFlow, an
  // unknown `shape` refuses an input of known rank ("Shape must be rank -1 but is rank 2").
  const PartialShape& input = c.input_shapes[0];
  if (input.rank_known() && input.rank() != desired.rank())
    return invalid_argument("Shape must be rank " + std::to_string(desired.rank()) +
                            " but is rank " + std::to_string(input.rank()));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(desired, c.input_shapes[0], &merged));
  c.add_output(c.input_types[0], merged);
  return {};
}

Status infer_fake_quant_args(InferenceContext& c) {
  const bool gradient = c.node.op == "FakeQuantWithMinMaxArgsGradient";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(gradient ? 2 : 1));
  ACTORFLOW_RETURN_IF_ERROR(gradient ? check_float_inputs(c, {"gradients", "inputs"})
                                     : check_float_inputs(c, {"inputs"}));
  c.add_output(DType::float32, c.input_shapes[0]);
  return {};
}

Status infer_fake_quant_vars(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_float_inputs(c, {"inputs", "min", "max"}));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  c.add_output(DType::float32, c.input_shapes[0]);
  return {};
}

Status infer_fake_quant_vars_gradient(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_float_inputs(c, {"gradients", "inputs", "min", "max"}));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  PartialShape inputs;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[0], c.input_shapes[1], &inputs));
  c.add_output(DType::float32, inputs);
  c.add_output(DType::float32, PartialShape(std::vector<std::int64_t>{}));
  c.add_output(DType::float32, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

Status infer_fake_quant_per_channel(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_float_inputs(c, {"inputs", "min", "max"}));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  const Index depth = dim_of(input, -1);
  const Index min = dim_of(c.input_shapes[1], 0), max = dim_of(c.input_shapes[2], 0);
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(depth, min));
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(depth, max));
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(min, max));
  c.add_output(DType::float32, input);
  return {};
}

Status infer_fake_quant_per_channel_gradient(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_float_inputs(c, {"gradients", "inputs", "min", "max"}));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 4));
  PartialShape inputs;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[0], c.input_shapes[1], &inputs));
  const PartialShape last_dim{dim_of(inputs, -1)};
  PartialShape min_max;
  for (int i = 2; i < 4; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 1));
    ACTORFLOW_RETURN_IF_ERROR(
        merge_shapes(c.input_shapes[static_cast<std::size_t>(i)], last_dim, &min_max));
  }
  c.add_output(DType::float32, inputs);
  c.add_output(DType::float32, min_max);
  c.add_output(DType::float32, min_max);
  return {};
}

// Print: input 0 passed through; the data inputs' types are attr U's.
Status infer_print(InferenceContext& c) {
  if (c.num_inputs() < 1) return invalid_argument("Print takes at least 1 input, got 0");
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// PrintV2: a string scalar in, nothing out.
Status infer_print_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  const PartialShape& s = c.input_shapes[0];
  if (s.rank_known() && s.rank() != 0)
    return invalid_argument("input must be a scalar, but has rank: " + std::to_string(s.rank()));
  return {};
}

// The attrs every FakeQuant op has.
AttrMap quant_attrs(std::int64_t num_bits, bool narrow_range) {
  return {{"num_bits", num_bits}, {"narrow_range", narrow_range}};
}

}  // namespace

namespace detail {

void register_misc_array_ops(OpRegistry& r) {
  r.add({"Bucketize", infer_bucketize});
  r.add({"HistogramFixedWidth", infer_histogram_fixed_width});
  r.add({"CumulativeLogsumexp", infer_cumulative_logsumexp});
  r.add({"BroadcastArgs", infer_broadcast_args});
  r.add({"EnsureShape", infer_ensure_shape});
  r.add({"Snapshot", infer_unchanged});
  r.add({"FakeQuantWithMinMaxArgs", infer_fake_quant_args});
  r.add({"FakeQuantWithMinMaxArgsGradient", infer_fake_quant_args});
  r.add({"FakeQuantWithMinMaxVars", infer_fake_quant_vars});
  r.add({"FakeQuantWithMinMaxVarsGradient", infer_fake_quant_vars_gradient});
  r.add({"FakeQuantWithMinMaxVarsPerChannel", infer_fake_quant_per_channel});
  r.add({"FakeQuantWithMinMaxVarsPerChannelGradient", infer_fake_quant_per_channel_gradient});
  r.add({"Print", infer_print, true});
  r.add({"PrintV2", infer_print_v2, true});
  r.add({"Timestamp",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
           c.add_output(DType::float64, PartialShape(Shape{}));
           return {};
         },
         true});
}

}  // namespace detail

Output bucketize(const Output& input, const std::vector<float>& boundaries, std::string_view name) {
  return input.graph()
      .create_op("Bucketize", {input}, {{"T", input.dtype()}, {"boundaries", boundaries}},
                 name.empty() ? "Bucketize" : name)
      .output(0);
}

Output histogram_fixed_width(const Output& values, const Output& value_range, const Output& nbins,
                             DType dtype, std::string_view name) {
  return values.graph()
      .create_op("HistogramFixedWidth", {values, value_range, nbins},
                 {{"T", values.dtype()}, {"dtype", dtype}},
                 name.empty() ? "HistogramFixedWidth" : name)
      .output(0);
}

Output histogram_fixed_width(const Output& values, const Output& value_range, std::int64_t nbins,
                             DType dtype, std::string_view name) {
  Graph& g = values.graph();
  const std::string op_name = g.unique_name(name.empty() ? "histogram_fixed_width" : name);
  Output nbins_t;
  {
    auto scope = g.name_scope(op_name + "/");
    nbins_t = g.constant(Tensor(static_cast<std::int32_t>(nbins)), "nbins");
  }
  return histogram_fixed_width(values, value_range, nbins_t, dtype, op_name + "/");
}

Output cumulative_logsumexp(const Output& x, std::int64_t axis, bool exclusive, bool reverse,
                            std::string_view name) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "CumulativeLogsumexp" : name);
  Output axis_t;
  {
    auto scope = g.name_scope(op_name + "/");
    axis_t = g.constant(detail::python_int(axis), "axis");
  }
  return g
      .create_op("CumulativeLogsumexp", {x, axis_t},
                 {{"T", x.dtype()},
                  {"Tidx", axis_t.dtype()},
                  {"exclusive", exclusive},
                  {"reverse", reverse}},
                 op_name + "/")
      .output(0);
}

Output broadcast_dynamic_shape(const Output& shape_x, const Output& shape_y,
                               std::string_view name) {
  return shape_x.graph()
      .create_op("BroadcastArgs", {shape_x, shape_y}, {{"T", shape_x.dtype()}},
                 name.empty() ? "BroadcastArgs" : name)
      .output(0);
}

Output ensure_shape(const Output& x, const PartialShape& shape, std::string_view name) {
  return x.graph()
      .create_op("EnsureShape", {x}, {{"T", x.dtype()}, {"shape", shape}},
                 name.empty() ? "EnsureShape" : name)
      .output(0);
}

Output snapshot(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("Snapshot", {input}, {{"T", input.dtype()}}, name.empty() ? "Snapshot" : name)
      .output(0);
}

Output fake_quant_with_min_max_args(const Output& inputs, float min, float max,
                                    std::int64_t num_bits, bool narrow_range,
                                    std::string_view name) {
  AttrMap attrs = quant_attrs(num_bits, narrow_range);
  attrs["min"] = min;
  attrs["max"] = max;
  return inputs.graph()
      .create_op("FakeQuantWithMinMaxArgs", {inputs}, std::move(attrs),
                 name.empty() ? "FakeQuantWithMinMaxArgs" : name)
      .output(0);
}

Output fake_quant_with_min_max_args_gradient(const Output& gradients, const Output& inputs,
                                             float min, float max, std::int64_t num_bits,
                                             bool narrow_range, std::string_view name) {
  AttrMap attrs = quant_attrs(num_bits, narrow_range);
  attrs["min"] = min;
  attrs["max"] = max;
  return inputs.graph()
      .create_op("FakeQuantWithMinMaxArgsGradient", {gradients, inputs}, std::move(attrs),
                 name.empty() ? "FakeQuantWithMinMaxArgsGradient" : name)
      .output(0);
}

Output fake_quant_with_min_max_vars(const Output& inputs, const Output& min, const Output& max,
                                    std::int64_t num_bits, bool narrow_range,
                                    std::string_view name) {
  return inputs.graph()
      .create_op("FakeQuantWithMinMaxVars", {inputs, min, max}, quant_attrs(num_bits, narrow_range),
                 name.empty() ? "FakeQuantWithMinMaxVars" : name)
      .output(0);
}

FakeQuantGradients fake_quant_with_min_max_vars_gradient(const Output& gradients,
                                                         const Output& inputs, const Output& min,
                                                         const Output& max, std::int64_t num_bits,
                                                         bool narrow_range, std::string_view name) {
  Operation op = inputs.graph().create_op(
      "FakeQuantWithMinMaxVarsGradient", {gradients, inputs, min, max},
      quant_attrs(num_bits, narrow_range), name.empty() ? "FakeQuantWithMinMaxVarsGradient" : name);
  return {op.output(0), op.output(1), op.output(2)};
}

Output fake_quant_with_min_max_vars_per_channel(const Output& inputs, const Output& min,
                                                const Output& max, std::int64_t num_bits,
                                                bool narrow_range, std::string_view name) {
  return inputs.graph()
      .create_op("FakeQuantWithMinMaxVarsPerChannel", {inputs, min, max},
                 quant_attrs(num_bits, narrow_range),
                 name.empty() ? "FakeQuantWithMinMaxVarsPerChannel" : name)
      .output(0);
}

FakeQuantGradients fake_quant_with_min_max_vars_per_channel_gradient(
    const Output& gradients, const Output& inputs, const Output& min, const Output& max,
    std::int64_t num_bits, bool narrow_range, std::string_view name) {
  Operation op =
      inputs.graph().create_op("FakeQuantWithMinMaxVarsPerChannelGradient",
                               {gradients, inputs, min, max}, quant_attrs(num_bits, narrow_range),
                               name.empty() ? "FakeQuantWithMinMaxVarsPerChannelGradient" : name);
  return {op.output(0), op.output(1), op.output(2)};
}

Output print(const Output& input, const std::vector<Output>& data, const std::string& message,
             std::int64_t first_n, std::int64_t summarize, std::string_view name) {
  std::vector<Output> inputs{input};
  std::vector<DType> types;
  for (const Output& d : data) {
    inputs.push_back(d);
    types.push_back(d.dtype());
  }
  return input.graph()
      .create_op("Print", inputs,
                 {{"T", input.dtype()},
                  {"U", types},
                  {"message", message},
                  {"first_n", first_n},
                  {"summarize", summarize}},
                 name.empty() ? "Print" : name)
      .output(0);
}

Operation print_v2(const Output& input, std::string_view output_stream, std::string_view end,
                   std::string_view name) {
  return input.graph().create_op(
      "PrintV2", {input},
      {{"output_stream", std::string(output_stream)}, {"end", std::string(end)}},
      name.empty() ? "PrintV2" : name);
}

Output timestamp(Graph& g, std::string_view name) {
  return g.create_op("Timestamp", {}, {}, name.empty() ? "Timestamp" : name).output(0);
}

}  // namespace af
