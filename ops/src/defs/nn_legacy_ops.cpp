// The definitions of the legacy nn ops (shape functions as TensorFlow's nn_ops.cc and
// array_ops.cc) and their builders: BatchNormWithGlobalNormalization and its Grad,
// QuantizeAndDequantizeV2/V3/V4 and V4Grad, FractionalMaxPool, FractionalAvgPool and their
// Grad ops, FusedPadConv2D and FusedResizeAndPadConv2D. The CPU kernels are in
// kernels/src/nn_legacy_ops.cpp and fractional_pool_ops.cpp, the gradients in
// ops/src/gradients/nn_legacy_grad.cpp.
#include "actorflow/ops/nn_legacy_ops.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;
using detail::merge_dims;

using Index = std::int64_t;
using detail::check_attr_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// The types of each OpDef that actorflow has, and the OpDef's list as messages name it.
const std::vector<DType> kNumberTypes = {DType::float32, DType::int32,   DType::uint8,
                                         DType::int64,   DType::float64, DType::bfloat16};
constexpr const char* kNumberTypeNames =
    "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64";
const std::vector<DType> kQuantizeTypes = {DType::bfloat16, DType::float32, DType::float64};
constexpr const char* kQuantizeTypeNames = "bfloat16, half, float, double";
const std::vector<DType> kFractionalTypes = {DType::float32, DType::float64, DType::int32,
                                             DType::int64};
constexpr const char* kFractionalTypeNames = "float, double, int32, int64";

// Input `i` (`arg`) must have input 0's (`first_arg`) type, as op_def_library says it.
Status same_type(const InferenceContext& c, int i, const char* arg, const char* first_arg) {
  if (c.input_types[static_cast<std::size_t>(i)] == c.input_types[0]) return {};
  return invalid_argument(cwise::type_mismatch_message(
      c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], first_arg, c.input_types[0]));
}

// Input `i` (`arg`) must have the fixed type `t`.
Status fixed_type(const InferenceContext& c, int i, const char* arg, DType t) {
  if (c.input_types[static_cast<std::size_t>(i)] == t) return {};
  return invalid_argument(cwise::fixed_type_mismatch_message(
      c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], t));
}

// The NodeDef check of a string attr with allowed values.
Status check_string_attr(const char* attr, const std::string& value,
                         const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (value == a) return {};
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i) list += (i ? ", \"" : "\"") + allowed[i] + "\"";
  return invalid_argument("Value for attr '" + std::string(attr) + "' of \"" + value +
                          "\" is not in the list of allowed values: " + list);
}

// strings::StrCat of a float: "%.6g", or "%.9g" where that does not read back.
std::string str_cat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v)
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// -- BatchNormWithGlobalNormalization ------------------------------------------------------

// t 4-D; m, v, beta, gamma (BN) or m, v, gamma (Grad, with backprop merged into t) vectors of
// t's depth.
Status infer_batch_norm(InferenceContext& c) {
  const bool grad = c.node.op == "BatchNormWithGlobalNormalizationGrad";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kNumberTypes, kNumberTypeNames));
  const std::vector<const char*> args =
      grad ? std::vector<const char*>{"m", "v", "gamma", "backprop"}
           : std::vector<const char*>{"m", "v", "beta", "gamma"};
  for (int i = 1; i < 5; ++i)
    ACTORFLOW_RETURN_IF_ERROR(same_type(c, i, args[static_cast<std::size_t>(i - 1)], "t"));
  float epsilon = 0;
  bool scale = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("variance_epsilon", &epsilon));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("scale_after_normalization", &scale));
  PartialShape input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, 4));
  if (!input.rank_known()) input = PartialShape::unknown_of_rank(4);
  if (grad) ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(input, c.input_shapes[4], &input));
  Index last = input.dim(3);
  for (int i = 1; i < (grad ? 4 : 5); ++i) {
    const PartialShape& vec = c.input_shapes[static_cast<std::size_t>(i)];
    ACTORFLOW_RETURN_IF_ERROR(with_rank(vec, 1));
    ACTORFLOW_RETURN_IF_ERROR(merge_dims(last, dim_of(vec, 0), &last));
  }
  std::vector<std::int64_t> dims = input.dims();
  dims[3] = last;
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  if (grad)
    for (int i = 0; i < 4; ++i) c.add_output(c.input_types[0], PartialShape{last});
  return {};
}

// -- QuantizeAndDequantize -----------------------------------------------------------------

// QuantizeAndDequantizeV2/V3/V4 (the min and max inputs at 1 and 2) and V4Grad (at 2 and 3):
// min and max scalars, or with an axis vectors of the input's dimension there.
Status infer_quantize_and_dequantize(InferenceContext& c) {
  const std::string& op = c.node.op;
  const bool v3 = op == "QuantizeAndDequantizeV3";
  const bool grad = op == "QuantizeAndDequantizeV4Grad";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v3 || grad ? 4 : 3));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[0], "T", kQuantizeTypes, kQuantizeTypeNames));
  const char* first = grad ? "gradients" : "input";
  const std::vector<const char*> args =
      grad ? std::vector<const char*>{"input", "input_min", "input_max"}
           : std::vector<const char*>{"input_min", "input_max"};
  for (std::size_t i = 0; i < args.size(); ++i)
    ACTORFLOW_RETURN_IF_ERROR(same_type(c, static_cast<int>(i) + 1, args[i], first));
  if (v3) ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 3, "num_bits", DType::int32));
  std::int64_t axis = -1;
  c.get_attr("axis", &axis);
  if (!v3 && !grad) {
    std::string round_mode = "HALF_TO_EVEN";
    c.get_attr("round_mode", &round_mode);
    ACTORFLOW_RETURN_IF_ERROR(
        check_string_attr("round_mode", round_mode, {"HALF_TO_EVEN", "HALF_UP"}));
  }
  const std::size_t min_at = grad ? 2 : 1;
  const int minmax_rank = axis == -1 ? 0 : 1;
  PartialShape minmax = c.input_shapes[min_at];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(minmax, minmax_rank));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[min_at + 1], minmax, &minmax));
  if (!minmax.rank_known()) minmax = PartialShape::unknown_of_rank(minmax_rank);
  if (v3) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  if (axis < -1) return invalid_argument("axis should be at least -1, got " + std::to_string(axis));
  if (axis != -1) {
    const PartialShape& input = c.input_shapes[0];
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, axis + 1));
    Index depth = minmax.dim(0);
    ACTORFLOW_RETURN_IF_ERROR(merge_dims(depth, dim_of(input, static_cast<int>(axis)), &depth));
    if (minmax.dim(0) < 0) minmax = PartialShape{depth};
  }
  if (grad) {
    PartialShape inputs;
    ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[0], c.input_shapes[1], &inputs));
    c.add_output(c.input_types[0], inputs);
    c.add_output(c.input_types[0], minmax);
    c.add_output(c.input_types[0], minmax);
    return {};
  }
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// -- fractional pooling --------------------------------------------------------------------

// FractionalPoolShapeFn: [floor(d / ratio) for each dimension], computed in float as the
// kernel does, and the two cumulative sequences. TensorFlow's shape function gives the
// sequences out_rows and out_cols elements; its kernel returns one more, the static shape here.
Status infer_fractional_pool(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[0], "T", kFractionalTypes, kFractionalTypeNames));
  std::vector<float> ratio;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("pooling_ratio", &ratio));
  if (ratio.size() < 4)
    return invalid_argument("Length for attr 'pooling_ratio' of " + std::to_string(ratio.size()) +
                            " must be at least minimum 4");
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, 4));
  if (ratio.size() != 4) return invalid_argument("pooling_ratio field must specify 4 dimensions");
  for (float r : ratio)
    if (!(r >= 1))
      return invalid_argument("pooling_ratio cannot be smaller than 1, got: " + str_cat(r));
  std::vector<std::int64_t> dims(4, -1);
  for (int i = 0; i < 4; ++i) {
    const Index d = dim_of(input, i);
    if (d < 0) continue;
    const auto val =
        static_cast<Index>(std::floor(static_cast<float>(d) / ratio[static_cast<std::size_t>(i)]));
    if (val < 0)
      return invalid_argument("Size computed for dim " + std::to_string(i) +
                              " is negative: " + std::to_string(val));
    dims[static_cast<std::size_t>(i)] = val;
  }
  const Index rows = dims[1] < 0 ? -1 : dims[1] + 1;
  const Index cols = dims[2] < 0 ? -1 : dims[2] + 1;
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  c.add_output(DType::int64, PartialShape{rows});
  c.add_output(DType::int64, PartialShape{cols});
  return {};
}

// FractionalMaxPoolGrad: orig_input's shape (rank 4).
Status infer_fractional_max_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[0], "T", kFractionalTypes, kFractionalTypeNames));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, 1, "orig_output", "orig_input"));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, 2, "out_backprop", "orig_input"));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 3, "row_pooling_sequence", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 4, "col_pooling_sequence", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 4));
  c.add_output(c.input_types[0], c.input_shapes[0].rank_known() ? c.input_shapes[0]
                                                                : PartialShape::unknown_of_rank(4));
  return {};
}

// FractionalAvgPoolGrad: the shape orig_input_tensor_shape holds when it is a constant, else
// an unknown one of rank 4 (neither checked further, as TensorFlow).
Status infer_fractional_avg_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 0, "orig_input_tensor_shape", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "T", kFractionalTypes, kFractionalTypeNames));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 2, "row_pooling_sequence", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 3, "col_pooling_sequence", DType::int64));
  PartialShape out = PartialShape::unknown_of_rank(4);
  if (c.input_values[0] != nullptr)
    ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &out));
  c.add_output(c.input_types[1], out);
  return {};
}

// -- fused convolutions --------------------------------------------------------------------

// GetWindowedOutputSizeFromDims: one output dimension (-1 when unknown).
Status windowed_dim(Index in, Index filter, Index stride, const std::string& padding, Index* out) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  *out = -1;
  if (in < 0) return {};
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    return {};
  }
  if (filter < 0) return {};
  if (in < filter)
    return invalid_argument("Negative dimension size caused by subtracting " +
                            std::to_string(filter) + " from " + std::to_string(in));
  *out = (in - filter + stride) / stride;
  return {};
}

// CommonFusedConvCalculations: the resized (FusedResizeAndPadConv2D, size a constant 2-vector)
// then padded input (paddings a constant [4, 2] int32 matrix), convolved as Conv2D.
Status infer_fused_conv(InferenceContext& c) {
  const bool resize = c.node.op == "FusedResizeAndPadConv2D";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(resize ? 4 : 3));
  const int paddings_at = resize ? 2 : 1, filter_at = resize ? 3 : 2;
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  if (resize) ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, 1, "size", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(fixed_type(c, paddings_at, "paddings", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, filter_at, "filter", "input"));
  std::string mode, padding;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("mode", &mode));
  ACTORFLOW_RETURN_IF_ERROR(check_string_attr("mode", mode, {"REFLECT", "SYMMETRIC"}));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  ACTORFLOW_RETURN_IF_ERROR(check_string_attr("padding", padding, {"SAME", "VALID"}));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 4));
  PartialShape resized =
      c.input_shapes[0].rank_known() ? c.input_shapes[0] : PartialShape::unknown_of_rank(4);
  if (resize) {
    PartialShape unused;
    ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[1], PartialShape{2}, &unused));
    std::vector<std::int64_t> dims = resized.dims();
    dims[1] = dims[2] = -1;
    if (const Tensor* size = c.input_values[1]) {
      const std::vector<std::int64_t> v = index_values(*size);
      dims[1] = v[0];
      dims[2] = v[1];
    }
    resized = PartialShape(std::move(dims));
  }
  const PartialShape& paddings = c.input_shapes[static_cast<std::size_t>(paddings_at)];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(paddings, 2));
  // WithRank(resized, paddings' first dimension): as TensorFlow, an unknown one (-1) is
  // refused ("Shape must be rank -1 but is rank 4").
  const Index pad_rows = dim_of(paddings, 0);
  if (pad_rows != 4)
    return invalid_argument("Shape must be rank " + std::to_string(pad_rows) + " but is rank 4");
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(paddings, PartialShape{4, 2}, &merged));
  std::vector<std::int64_t> padded(4, -1);
  if (const Tensor* value = c.input_values[static_cast<std::size_t>(paddings_at)]) {
    const std::vector<std::int64_t> p = index_values(*value);
    for (int i = 0; i < 4; ++i) {
      const Index p0 = p[static_cast<std::size_t>(2 * i)],
                  p1 = p[static_cast<std::size_t>(2 * i + 1)];
      if (p0 < 0 || p1 < 0) return invalid_argument("Paddings must be non-negative");
      const Index d = resized.dim(i), sum = p0 + p1;
      // InferenceContext::Add: unknown stays unknown; a negative total overflows.
      if (sum == 0 || d == -1) {
        padded[static_cast<std::size_t>(i)] = d == -1 ? -1 : d;
      } else if (d + sum < 0) {
        return invalid_argument("Dimension size overflow from adding " + std::to_string(d) +
                                " and " + std::to_string(sum));
      } else {
        padded[static_cast<std::size_t>(i)] = d + sum;
      }
    }
  }
  const PartialShape& filter = c.input_shapes[static_cast<std::size_t>(filter_at)];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(filter, 4));
  std::vector<std::int64_t> strides;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 4)
    return invalid_argument(
        "Operation requires the stride attribute to contain 4 values, but got: " +
        std::to_string(strides.size()));
  Index depth = padded[3];
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(depth, dim_of(filter, 2), &depth));
  Index out_rows = -1, out_cols = -1;
  ACTORFLOW_RETURN_IF_ERROR(
      windowed_dim(padded[1], dim_of(filter, 0), strides[1], padding, &out_rows));
  ACTORFLOW_RETURN_IF_ERROR(
      windowed_dim(padded[2], dim_of(filter, 1), strides[2], padding, &out_cols));
  c.add_output(c.input_types[0], PartialShape{padded[0], out_rows, out_cols, dim_of(filter, 3)});
  return {};
}

// A builder's op name: `name`, or the op type.
std::string op_name(std::string_view name, const char* type) {
  return name.empty() ? std::string(type) : std::string(name);
}

}  // namespace

namespace detail {

void register_nn_legacy_ops(OpRegistry& r) {
  r.add({"BatchNormWithGlobalNormalization", infer_batch_norm});
  r.add({"BatchNormWithGlobalNormalizationGrad", infer_batch_norm});
  for (const char* type : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
                           "QuantizeAndDequantizeV4", "QuantizeAndDequantizeV4Grad"})
    r.add({type, infer_quantize_and_dequantize});
  r.add({"FractionalMaxPool", infer_fractional_pool});
  r.add({"FractionalAvgPool", infer_fractional_pool});
  r.add({"FractionalMaxPoolGrad", infer_fractional_max_pool_grad});
  r.add({"FractionalAvgPoolGrad", infer_fractional_avg_pool_grad});
  r.add({"FusedPadConv2D", infer_fused_conv});
  r.add({"FusedResizeAndPadConv2D", infer_fused_conv});
}

}  // namespace detail

namespace nn {

Output batch_norm_with_global_normalization(const Output& t, const Output& m, const Output& v,
                                            const Output& beta, const Output& gamma,
                                            float variance_epsilon, bool scale_after_normalization,
                                            std::string_view name) {
  return t.graph()
      .create_op("BatchNormWithGlobalNormalization", {t, m, v, beta, gamma},
                 {{"T", t.dtype()},
                  {"variance_epsilon", variance_epsilon},
                  {"scale_after_normalization", scale_after_normalization}},
                 op_name(name, "BatchNormWithGlobalNormalization"))
      .output(0);
}

BatchNormWithGlobalNormalizationGradOutputs batch_norm_with_global_normalization_grad(
    const Output& t, const Output& m, const Output& v, const Output& gamma, const Output& backprop,
    float variance_epsilon, bool scale_after_normalization, std::string_view name) {
  Operation op =
      t.graph().create_op("BatchNormWithGlobalNormalizationGrad", {t, m, v, gamma, backprop},
                          {{"T", t.dtype()},
                           {"variance_epsilon", variance_epsilon},
                           {"scale_after_normalization", scale_after_normalization}},
                          op_name(name, "BatchNormWithGlobalNormalizationGrad"));
  return {op.output(0), op.output(1), op.output(2), op.output(3), op.output(4)};
}

namespace {

FractionalPoolOutputs fractional_pool(const char* type, const Output& value,
                                      const std::vector<float>& pooling_ratio,
                                      const FractionalPoolAttrs& attrs, std::string_view name) {
  Operation op = value.graph().create_op(type, {value},
                                         {{"T", value.dtype()},
                                          {"pooling_ratio", pooling_ratio},
                                          {"pseudo_random", attrs.pseudo_random},
                                          {"overlapping", attrs.overlapping},
                                          {"deterministic", attrs.deterministic},
                                          {"seed", attrs.seed},
                                          {"seed2", attrs.seed2}},
                                         op_name(name, type));
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace

FractionalPoolOutputs fractional_max_pool(const Output& value,
                                          const std::vector<float>& pooling_ratio,
                                          const FractionalPoolAttrs& attrs, std::string_view name) {
  return fractional_pool("FractionalMaxPool", value, pooling_ratio, attrs, name);
}

FractionalPoolOutputs fractional_avg_pool(const Output& value,
                                          const std::vector<float>& pooling_ratio,
                                          const FractionalPoolAttrs& attrs, std::string_view name) {
  return fractional_pool("FractionalAvgPool", value, pooling_ratio, attrs, name);
}

Output fractional_max_pool_grad(const Output& orig_input, const Output& orig_output,
                                const Output& out_backprop, const Output& row_pooling_sequence,
                                const Output& col_pooling_sequence, bool overlapping,
                                std::string_view name) {
  return orig_input.graph()
      .create_op(
          "FractionalMaxPoolGrad",
          {orig_input, orig_output, out_backprop, row_pooling_sequence, col_pooling_sequence},
          {{"T", orig_input.dtype()}, {"overlapping", overlapping}},
          op_name(name, "FractionalMaxPoolGrad"))
      .output(0);
}

Output fractional_avg_pool_grad(const Output& orig_input_tensor_shape, const Output& out_backprop,
                                const Output& row_pooling_sequence,
                                const Output& col_pooling_sequence, bool overlapping,
                                std::string_view name) {
  return out_backprop.graph()
      .create_op(
          "FractionalAvgPoolGrad",
          {orig_input_tensor_shape, out_backprop, row_pooling_sequence, col_pooling_sequence},
          {{"T", out_backprop.dtype()}, {"overlapping", overlapping}},
          op_name(name, "FractionalAvgPoolGrad"))
      .output(0);
}

Output fused_pad_conv2d(const Output& input, const Output& paddings, const Output& filter,
                        const std::string& mode, const std::vector<std::int64_t>& strides,
                        const std::string& padding, std::string_view name) {
  return input.graph()
      .create_op("FusedPadConv2D", {input, paddings, filter},
                 {{"T", input.dtype()}, {"mode", mode}, {"strides", strides}, {"padding", padding}},
                 op_name(name, "FusedPadConv2D"))
      .output(0);
}

Output fused_resize_and_pad_conv2d(const Output& input, const Output& size, const Output& paddings,
                                   const Output& filter, const std::string& mode,
                                   const std::vector<std::int64_t>& strides,
                                   const std::string& padding, bool resize_align_corners,
                                   std::string_view name) {
  return input.graph()
      .create_op("FusedResizeAndPadConv2D", {input, size, paddings, filter},
                 {{"T", input.dtype()},
                  {"resize_align_corners", resize_align_corners},
                  {"mode", mode},
                  {"strides", strides},
                  {"padding", padding}},
                 op_name(name, "FusedResizeAndPadConv2D"))
      .output(0);
}

}  // namespace nn

namespace {

AttrMap quantize_attrs(DType t, const QuantizeAndDequantizeAttrs& a) {
  return {{"T", t},
          {"signed_input", a.signed_input},
          {"num_bits", a.num_bits},
          {"range_given", a.range_given},
          {"round_mode", a.round_mode},
          {"narrow_range", a.narrow_range},
          {"axis", a.axis}};
}

}  // namespace

Output quantize_and_dequantize_v2(const Output& input, const Output& input_min,
                                  const Output& input_max, const QuantizeAndDequantizeAttrs& attrs,
                                  std::string_view name) {
  return input.graph()
      .create_op("QuantizeAndDequantizeV2", {input, input_min, input_max},
                 quantize_attrs(input.dtype(), attrs), op_name(name, "QuantizeAndDequantizeV2"))
      .output(0);
}

Output quantize_and_dequantize_v4(const Output& input, const Output& input_min,
                                  const Output& input_max, const QuantizeAndDequantizeAttrs& attrs,
                                  std::string_view name) {
  return input.graph()
      .create_op("QuantizeAndDequantizeV4", {input, input_min, input_max},
                 quantize_attrs(input.dtype(), attrs), op_name(name, "QuantizeAndDequantizeV4"))
      .output(0);
}

Output quantize_and_dequantize_v3(const Output& input, const Output& input_min,
                                  const Output& input_max, const Output& num_bits,
                                  bool signed_input, bool range_given, bool narrow_range,
                                  std::int64_t axis, std::string_view name) {
  return input.graph()
      .create_op("QuantizeAndDequantizeV3", {input, input_min, input_max, num_bits},
                 {{"T", input.dtype()},
                  {"signed_input", signed_input},
                  {"range_given", range_given},
                  {"narrow_range", narrow_range},
                  {"axis", axis}},
                 op_name(name, "QuantizeAndDequantizeV3"))
      .output(0);
}

QuantizeAndDequantizeV4GradOutputs quantize_and_dequantize_v4_grad(
    const Output& gradients, const Output& input, const Output& input_min, const Output& input_max,
    std::int64_t axis, std::string_view name) {
  Operation op = input.graph().create_op(
      "QuantizeAndDequantizeV4Grad", {gradients, input, input_min, input_max},
      {{"T", gradients.dtype()}, {"axis", axis}}, op_name(name, "QuantizeAndDequantizeV4Grad"));
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace af
