// The definitions of BiasAdd, Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool and
// AvgPool: window geometry, shape functions and graph-building functions; their CPU kernels
// are in kernels/src/nn_ops.cpp.
//
// Window arithmetic is TensorFlow's GetWindowedOutputSize: VALID gives
// ceil((in - k + 1) / stride), SAME gives ceil(in / stride) with the padding split
// before/after as pad_total / 2 and the rest.
#include "actorflow/ops/nn_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_op_def_type;
using detail::with_rank;
using detail::with_rank_at_least;

// -- window geometry --------------------------------------------------------------------

// Sets the output size and the padding before of both spatial dimensions of `g` (a
// Conv2DGeometry or Pool2DGeometry with its input sizes and strides set) for a window of
// `window_rows` x `window_cols`.
template <class Geometry>
Status set_output_window(Geometry& g, std::int64_t window_rows, std::int64_t window_cols,
                         const std::string& padding) {
  auto rows = windowed_output_size(g.in_rows, window_rows, g.stride_rows, padding);
  if (!rows.ok()) return rows.status();
  auto cols = windowed_output_size(g.in_cols, window_cols, g.stride_cols, padding);
  if (!cols.ok()) return cols.status();
  g.out_rows = rows->output;
  g.out_cols = cols->output;
  g.pad_rows = rows->pad_before;
  g.pad_cols = cols->pad_before;
  return {};
}

}  // namespace

StatusOr<WindowDim> windowed_output_size(std::int64_t in, std::int64_t window, std::int64_t stride,
                                         const std::string& padding) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  if (window <= 0)
    return invalid_argument("Window size must be > 0, but got " + std::to_string(window));
  WindowDim d;
  if (padding == "VALID") {
    d.output = (in - window + stride) / stride;
    d.pad_before = 0;
  } else if (padding == "SAME") {
    d.output = (in + stride - 1) / stride;
    const std::int64_t needed = std::max<std::int64_t>(0, (d.output - 1) * stride + window - in);
    d.pad_before = needed / 2;
  } else {
    return invalid_argument("Invalid padding '" + padding + "': expected SAME or VALID");
  }
  if (d.output < 0)
    return invalid_argument("Computed output size would be negative: " + std::to_string(d.output) +
                            " [input_size: " + std::to_string(in) + ", effective_filter_size: " +
                            std::to_string(window) + ", stride: " + std::to_string(stride) + "]");
  return d;
}

StatusOr<Conv2DGeometry> conv2d_geometry(const Shape& input, const Shape& filter,
                                         const std::vector<std::int64_t>& strides,
                                         const std::string& padding) {
  if (input.rank() != 4) return invalid_argument("input must be 4-dimensional" + input.to_string());
  if (filter.rank() != 4)
    return invalid_argument("filter must be 4-dimensional: " + filter.to_string());
  if (strides.size() != 4)
    return invalid_argument("Sliding window strides field must specify 4 dimensions");
  if (strides[0] != 1 || strides[3] != 1)
    return invalid_argument(
        "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (input.dim(3) != filter.dim(2))
    return invalid_argument("input and filter must have the same depth: " +
                            std::to_string(input.dim(3)) + " vs " + std::to_string(filter.dim(2)));
  Conv2DGeometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.in_depth = input.dim(3);
  g.filter_rows = filter.dim(0);
  g.filter_cols = filter.dim(1);
  g.out_depth = filter.dim(3);
  g.stride_rows = strides[1];
  g.stride_cols = strides[2];
  if (Status s = set_output_window(g, g.filter_rows, g.filter_cols, padding); !s.ok()) return s;
  return g;
}

StatusOr<Pool2DGeometry> pool2d_geometry(const Shape& input, const std::vector<std::int64_t>& ksize,
                                         const std::vector<std::int64_t>& strides,
                                         const std::string& padding) {
  if (input.rank() != 4) return invalid_argument("input must be 4-dimensional");
  if (ksize.size() != 4)
    return invalid_argument("Sliding window ksize field must specify 4 dimensions");
  if (strides.size() != 4)
    return invalid_argument("Sliding window stride field must specify 4 dimensions");
  if (ksize[0] != 1 || strides[0] != 1)
    return invalid_argument("Pooling is not yet supported on the batch dimension.");
  if (ksize[3] != 1 || strides[3] != 1)
    return invalid_argument("Pooling is not yet supported on the depth dimension.");
  Pool2DGeometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.depth = input.dim(3);
  g.window_rows = ksize[1];
  g.window_cols = ksize[2];
  g.stride_rows = strides[1];
  g.stride_cols = strides[2];
  if (Status s = set_output_window(g, g.window_rows, g.window_cols, padding); !s.ok()) return s;
  return g;
}

namespace {

// -- shape functions -------------------------------------------------------------------------

Status attr_list(const InferenceContext& c, const char* name, std::vector<std::int64_t>* out) {
  return c.get_attr(name, out);
}

Status infer_bias_add(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument("Inputs to BiasAdd must share one type: " +
                            std::string(data_type_string(c.input_types[0])) + " vs " +
                            std::string(data_type_string(c.input_types[1])));
  const PartialShape& v = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(v, 2));
  const PartialShape& b = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(b, 1));
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format == "NHWC" && v.rank_known() && b.rank_known() && v.dim(v.rank() - 1) >= 0 &&
      b.dim(0) >= 0 && v.dim(v.rank() - 1) != b.dim(0))
    return invalid_argument("Dimensions must be equal, but are " +
                            std::to_string(v.dim(v.rank() - 1)) + " and " +
                            std::to_string(b.dim(0)));
  c.add_output(c.input_types[0], v);
  return {};
}

// The output shape of a windowed op where every input dimension used is known, else
// unknown dimensions of rank 4.
Status infer_conv2d(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument("Inputs to Conv2D must share one type");
  std::vector<std::int64_t> strides;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "strides", &strides));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& f = c.input_shapes[1];
  for (const PartialShape* s : {&in, &f}) ACTORFLOW_RETURN_IF_ERROR(with_rank(*s, 4));
  if (strides.size() != 4)
    return invalid_argument("Conv2D requires the stride attribute to contain 4 values, but got: " +
                            std::to_string(strides.size()));
  std::vector<std::int64_t> out{-1, -1, -1, -1};
  if (in.rank_known()) out[0] = in.dim(0);
  if (f.rank_known()) out[3] = f.dim(3);
  if (in.rank_known() && f.rank_known() && in.dim(3) >= 0 && f.dim(2) >= 0 && in.dim(3) != f.dim(2))
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(in.dim(3)) +
                            " and " + std::to_string(f.dim(2)));
  for (int d = 1; d <= 2; ++d) {
    if (!in.rank_known() || !f.rank_known() || in.dim(d) < 0 || f.dim(d - 1) < 0) continue;
    auto w = windowed_output_size(in.dim(d), f.dim(d - 1), strides[static_cast<std::size_t>(d)],
                                  padding);
    if (!w.ok()) return w.status();
    out[static_cast<std::size_t>(d)] = w->output;
  }
  c.add_output(c.input_types[0], PartialShape(out));
  return {};
}

// Backprop ops output the shape named by their `*_sizes` input when it is a constant.
Status infer_from_sizes(InferenceContext& c, int sizes_input, int type_input) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(
      check_op_def_type(c.input_types[static_cast<std::size_t>(type_input)], c.node.op));
  if (c.input_types[static_cast<std::size_t>(sizes_input)] != DType::int32)
    return invalid_argument(c.node.op + ": the sizes input must be int32");
  if (const Tensor* sizes = c.input_values[static_cast<std::size_t>(sizes_input)]) {
    if (sizes->num_elements() != 4)
      return invalid_argument(c.node.op + ": the sizes input must hold 4 values, got " +
                              sizes->shape().to_string());
    auto v = sizes->flat<std::int32_t>();
    c.add_output(c.input_types[static_cast<std::size_t>(type_input)],
                 PartialShape{v[0], v[1], v[2], v[3]});
    return {};
  }
  c.add_output(c.input_types[static_cast<std::size_t>(type_input)],
               PartialShape::unknown_of_rank(4));
  return {};
}

Status infer_pool(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
  std::vector<std::int64_t> strides, ksize;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "strides", &strides));
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "ksize", &ksize));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  if (strides.size() != 4 || ksize.size() != 4)
    return invalid_argument(c.node.op +
                            " requires the ksize and stride attributes to contain 4 values");
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 4));
  std::vector<std::int64_t> out{-1, -1, -1, -1};
  if (in.rank_known()) {
    out[0] = in.dim(0);
    out[3] = in.dim(3);
    for (int d = 1; d <= 2; ++d) {
      if (in.dim(d) < 0) continue;
      auto w = windowed_output_size(in.dim(d), ksize[static_cast<std::size_t>(d)],
                                    strides[static_cast<std::size_t>(d)], padding);
      if (!w.ok()) return w.status();
      out[static_cast<std::size_t>(d)] = w->output;
    }
  }
  c.add_output(c.input_types[0], PartialShape(out));
  return {};
}

AttrMap window_attrs(const Output& x, const std::vector<std::int64_t>& strides,
                     const std::string& padding) {
  return {{"T", x.dtype()},
          {"strides", strides},
          {"padding", padding},
          {"data_format", std::string("NHWC")}};
}

// The Conv2D-family op `type` of `inputs` (attr T of `typed`, NHWC, dilations 1) named
// `name` (or `type`).
Output conv_op(const char* type, const std::vector<Output>& inputs, const Output& typed,
               const std::vector<std::int64_t>& strides, const std::string& padding,
               std::string_view name) {
  AttrMap attrs = window_attrs(typed, strides, padding);
  attrs["dilations"] = std::vector<std::int64_t>{1, 1, 1, 1};
  return typed.graph()
      .create_op(type, inputs, std::move(attrs), name.empty() ? type : name)
      .output(0);
}

// The pooling op `type` of `value` (NHWC) named `name` (or `type`).
Output pool_op(const char* type, const Output& value, const std::vector<std::int64_t>& ksize,
               const std::vector<std::int64_t>& strides, const std::string& padding,
               std::string_view name) {
  AttrMap attrs = window_attrs(value, strides, padding);
  attrs["ksize"] = ksize;
  return value.graph()
      .create_op(type, {value}, std::move(attrs), name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_nn_ops(OpRegistry& r) {
  r.add({"BiasAdd", infer_bias_add});
  r.add({"Conv2D", infer_conv2d});
  r.add({"Conv2DBackpropInput", [](InferenceContext& c) { return infer_from_sizes(c, 0, 1); }});
  r.add({"Conv2DBackpropFilter", [](InferenceContext& c) { return infer_from_sizes(c, 1, 0); }});
  r.add({"MaxPool", infer_pool});
  r.add({"AvgPool", infer_pool});
}

}  // namespace detail

namespace nn {

Output bias_add(const Output& value, const Output& bias, std::string_view name) {
  if (value.dtype() != bias.dtype())
    throw InvalidArgumentError(
        invalid_argument("BiasAdd: value is " + std::string(data_type_string(value.dtype())) +
                         " but bias is " + std::string(data_type_string(bias.dtype()))));
  return value.graph()
      .create_op("BiasAdd", {value, bias},
                 {{"T", value.dtype()}, {"data_format", std::string("NHWC")}},
                 name.empty() ? "BiasAdd" : name)
      .output(0);
}

Output conv2d(const Output& input, const Output& filter, const std::vector<std::int64_t>& strides,
              const std::string& padding, std::string_view name) {
  return conv_op("Conv2D", {input, filter}, input, strides, padding, name);
}

Output conv2d_backprop_input(const Output& input_sizes, const Output& filter,
                             const Output& out_backprop, const std::vector<std::int64_t>& strides,
                             const std::string& padding, std::string_view name) {
  return conv_op("Conv2DBackpropInput", {input_sizes, filter, out_backprop}, filter, strides,
                 padding, name);
}

Output conv2d_backprop_filter(const Output& input, const Output& filter_sizes,
                              const Output& out_backprop, const std::vector<std::int64_t>& strides,
                              const std::string& padding, std::string_view name) {
  return conv_op("Conv2DBackpropFilter", {input, filter_sizes, out_backprop}, input, strides,
                 padding, name);
}

Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name) {
  return pool_op("MaxPool", value, ksize, strides, padding, name);
}

Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name) {
  return pool_op("AvgPool", value, ksize, strides, padding, name);
}

}  // namespace nn

}  // namespace af
