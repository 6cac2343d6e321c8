// BiasAdd, Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool and AvgPool: ops,
// shape functions, CPU kernels and graph-building functions.
//
// NHWC only on the CPU, as TensorFlow 1.x's CPU kernels ("Default Conv2DOp only supports
// NHWC."); filters are HWIO. Window arithmetic is TensorFlow's GetWindowedOutputSize: VALID
// gives ceil((in - k + 1) / stride), SAME gives ceil(in / stride) with the padding split
// before/after as pad_total / 2 and the rest. The loops are direct (no im2col buffer) with
// the output-channel loop innermost so it vectorises; these kernels are the reference the
// GPU kernels are checked against, and a correct baseline rather than a fast one.
#include "actorflow/ops/nn_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;

constexpr Index kExpensiveWork = 64 * 1024;

const std::vector<DType> kConvTypes = {DType::float32, DType::float64};

using detail::node_suffix;

std::string types_string(const std::vector<DType>& allowed) {
  std::string s;
  for (DType t : allowed) s += (s.empty() ? "" : ", ") + std::string(data_type_string(t));
  return s;
}

Status check_type(DType t, const std::vector<DType>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return {};
  return invalid_argument("Value for attr 'T' of " + std::string(data_type_string(t)) +
                          " is not in the list of allowed values: " + types_string(allowed));
}

// -- window geometry --------------------------------------------------------------------

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
  auto rows = windowed_output_size(g.in_rows, g.filter_rows, g.stride_rows, padding);
  if (!rows.ok()) return rows.status();
  auto cols = windowed_output_size(g.in_cols, g.filter_cols, g.stride_cols, padding);
  if (!cols.ok()) return cols.status();
  g.out_rows = rows->output;
  g.out_cols = cols->output;
  g.pad_rows = rows->pad_before;
  g.pad_cols = cols->pad_before;
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
  auto rows = windowed_output_size(g.in_rows, g.window_rows, g.stride_rows, padding);
  if (!rows.ok()) return rows.status();
  auto cols = windowed_output_size(g.in_cols, g.window_cols, g.stride_cols, padding);
  if (!cols.ok()) return cols.status();
  g.out_rows = rows->output;
  g.out_cols = cols->output;
  g.pad_rows = rows->pad_before;
  g.pad_cols = cols->pad_before;
  return g;
}

namespace {

// Attributes shared by the conv and pool kernels; errors name the node.
struct WindowAttrs {
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> ksize;
  std::string padding;
};

Status read_window_attrs(OpKernelConstruction& c, bool pool, WindowAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &a->strides));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  if (pool) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &a->ksize));
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format != "NHWC")
    return invalid_argument(std::string(pool ? "Default MaxPoolingOp" : "Default Conv2DOp") +
                            " only supports NHWC on device type CPU" + node_suffix(c.def.name));
  std::vector<std::int64_t> dilations;
  if (c.def.attr<std::vector<std::int64_t>>("dilations")) {
    dilations = *c.def.attr<std::vector<std::int64_t>>("dilations");
    for (auto d : dilations)
      if (d != 1)
        return invalid_argument(
            "Current implementation does not yet support dilations in the batch and depth "
            "dimensions and rates larger than 1 on device type CPU" +
            node_suffix(c.def.name));
  }
  return {};
}

// Reads a 1-D int32 tensor of 4 sizes (input_sizes / filter_sizes) into a shape.
Status sizes_to_shape(const Tensor& t, const char* what, Shape* out) {
  if (t.rank() != 1 || t.num_elements() != 4 || t.dtype() != DType::int32)
    return invalid_argument(std::string(what) + " must be a 1-D int32 tensor of 4 elements, got " +
                            t.shape().to_string());
  auto v = t.flat<std::int32_t>();
  *out = Shape{v[0], v[1], v[2], v[3]};
  return {};
}

// -- BiasAdd --------------------------------------------------------------------------------

template <class T>
class BiasAddOp : public OpKernel {
 public:
  BiasAddOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC" && format != "NCHW")
      *s = invalid_argument("Invalid data format" + node_suffix(c.def.name));
    nchw_ = format == "NCHW";
  }
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveWork;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (value.rank() < 2)
      return ctx.fail(invalid_argument(
          "Input tensor must be at least 2D: " + value.shape().to_string() + node_suffix(name())));
    if (bias.rank() != 1)
      return ctx.fail(
          invalid_argument("Biases must be 1D: " + bias.shape().to_string() + node_suffix(name())));
    const int channel_dim = nchw_ ? 1 : value.rank() - 1;
    const Index channels = value.shape().dim(channel_dim);
    if (bias.num_elements() != channels)
      return ctx.fail(invalid_argument(
          "Must provide as many biases as the last dimension of the input tensor: " +
          bias.shape().to_string() + " vs. " + value.shape().to_string() + node_suffix(name())));
    const T* x = value.data<T>();
    const T* b = bias.data<T>();
    T* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, value.shape()).template data<T>();
    const Index n = value.num_elements();
    if (n == 0) return;
    if (!nchw_) {
      for (Index i = 0; i < n; i += channels)
        for (Index c = 0; c < channels; ++c) o[i + c] = add(x[i + c], b[c]);
    } else {
      Index inner = 1;
      for (int d = 2; d < value.rank(); ++d) inner *= value.shape().dim(d);
      const Index outer = value.shape().dim(0);
      for (Index i = 0; i < outer; ++i)
        for (Index c = 0; c < channels; ++c)
          for (Index k = 0; k < inner; ++k) {
            const Index at = (i * channels + c) * inner + k;
            o[at] = add(x[at], b[c]);
          }
    }
  }

 private:
  // bfloat16 adds in float, as TensorFlow's CPU kernels do.
  static T add(T a, T b) {
    if constexpr (std::is_same_v<T, bfloat16_t>)
      return T(static_cast<float>(a) + static_cast<float>(b));
    else
      return a + b;
  }
  bool nchw_ = false;
};

// -- Conv2D and its gradients ----------------------------------------------------------------

template <class T>
class Conv2DOp : public OpKernel {
 public:
  Conv2DOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_window_attrs(c, false, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    auto geo = conv2d_geometry(input.shape(), filter.shape(), attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Conv2DGeometry& g = *geo;
    T* out =
        ctx.allocate_output(0, dtype_of_v<T>, Shape{g.batch, g.out_rows, g.out_cols, g.out_depth})
            .template data<T>();
    const T* in = input.data<T>();
    const T* w = filter.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          T* o = out + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
          for (Index ky = 0; ky < g.filter_rows; ++ky) {
            const Index iy = oy * g.stride_rows - g.pad_rows + ky;
            if (iy < 0 || iy >= g.in_rows) continue;
            for (Index kx = 0; kx < g.filter_cols; ++kx) {
              const Index ix = ox * g.stride_cols - g.pad_cols + kx;
              if (ix < 0 || ix >= g.in_cols) continue;
              const T* src = in + ((b * g.in_rows + iy) * g.in_cols + ix) * g.in_depth;
              const T* wk = w + (ky * g.filter_cols + kx) * g.in_depth * g.out_depth;
              for (Index ci = 0; ci < g.in_depth; ++ci) {
                const T v = src[ci];
                const T* wr = wk + ci * g.out_depth;
                for (Index co = 0; co < g.out_depth; ++co) o[co] += v * wr[co];
              }
            }
          }
        }
  }

 private:
  WindowAttrs attrs_;
};

template <class T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  Conv2DBackpropInputOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_window_attrs(c, false, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }
  void compute(OpKernelContext& ctx) override {
    Shape input_shape;
    Status st = sizes_to_shape(ctx.input(0), "Conv2DBackpropInput: input_sizes", &input_shape);
    if (!st.ok()) return ctx.fail(st.with_context(node_suffix(name())));
    const Tensor& filter = ctx.input(1);
    const Tensor& dy = ctx.input(2);
    auto geo = conv2d_geometry(input_shape, filter.shape(), attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Conv2DGeometry& g = *geo;
    if (dy.shape() != Shape{g.batch, g.out_rows, g.out_cols, g.out_depth})
      return ctx.fail(invalid_argument(
          "Conv2DBackpropInput: Size of out_backprop doesn't match computed: actual = " +
          dy.shape().to_string() + ", computed = " +
          Shape{g.batch, g.out_rows, g.out_cols, g.out_depth}.to_string() + node_suffix(name())));
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape).template data<T>();
    const T* w = filter.data<T>();
    const T* d = dy.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const T* grad = d + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
          for (Index ky = 0; ky < g.filter_rows; ++ky) {
            const Index iy = oy * g.stride_rows - g.pad_rows + ky;
            if (iy < 0 || iy >= g.in_rows) continue;
            for (Index kx = 0; kx < g.filter_cols; ++kx) {
              const Index ix = ox * g.stride_cols - g.pad_cols + kx;
              if (ix < 0 || ix >= g.in_cols) continue;
              T* dst = dx + ((b * g.in_rows + iy) * g.in_cols + ix) * g.in_depth;
              const T* wk = w + (ky * g.filter_cols + kx) * g.in_depth * g.out_depth;
              for (Index ci = 0; ci < g.in_depth; ++ci) {
                const T* wr = wk + ci * g.out_depth;
                T acc = 0;
                for (Index co = 0; co < g.out_depth; ++co) acc += grad[co] * wr[co];
                dst[ci] += acc;
              }
            }
          }
        }
  }

 private:
  WindowAttrs attrs_;
};

template <class T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  Conv2DBackpropFilterOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_window_attrs(c, false, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Shape filter_shape;
    Status st = sizes_to_shape(ctx.input(1), "Conv2DBackpropFilter: filter_sizes", &filter_shape);
    if (!st.ok()) return ctx.fail(st.with_context(node_suffix(name())));
    const Tensor& dy = ctx.input(2);
    auto geo = conv2d_geometry(input.shape(), filter_shape, attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Conv2DGeometry& g = *geo;
    if (dy.shape() != Shape{g.batch, g.out_rows, g.out_cols, g.out_depth})
      return ctx.fail(invalid_argument(
          "Conv2DBackpropFilter: Size of out_backprop doesn't match computed: actual = " +
          dy.shape().to_string() + ", computed = " +
          Shape{g.batch, g.out_rows, g.out_cols, g.out_depth}.to_string() + node_suffix(name())));
    T* dw = ctx.allocate_output(0, dtype_of_v<T>, filter_shape).template data<T>();
    const T* in = input.data<T>();
    const T* d = dy.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const T* grad = d + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
          for (Index ky = 0; ky < g.filter_rows; ++ky) {
            const Index iy = oy * g.stride_rows - g.pad_rows + ky;
            if (iy < 0 || iy >= g.in_rows) continue;
            for (Index kx = 0; kx < g.filter_cols; ++kx) {
              const Index ix = ox * g.stride_cols - g.pad_cols + kx;
              if (ix < 0 || ix >= g.in_cols) continue;
              const T* src = in + ((b * g.in_rows + iy) * g.in_cols + ix) * g.in_depth;
              T* wk = dw + (ky * g.filter_cols + kx) * g.in_depth * g.out_depth;
              for (Index ci = 0; ci < g.in_depth; ++ci) {
                const T v = src[ci];
                T* wr = wk + ci * g.out_depth;
                for (Index co = 0; co < g.out_depth; ++co) wr[co] += v * grad[co];
              }
            }
          }
        }
  }

 private:
  WindowAttrs attrs_;
};

// -- pooling ---------------------------------------------------------------------------------

enum class PoolKind { max, avg };

template <PoolKind Kind, class T>
class Pool2DOp : public OpKernel {
 public:
  Pool2DOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_window_attrs(c, true, &attrs_);
  }
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveWork;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    auto geo = pool2d_geometry(input.shape(), attrs_.ksize, attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Pool2DGeometry& g = *geo;
    T* out = ctx.allocate_output(0, dtype_of_v<T>, Shape{g.batch, g.out_rows, g.out_cols, g.depth})
                 .template data<T>();
    const T* in = input.data<T>();
    std::vector<T> acc(static_cast<std::size_t>(g.depth));
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const Index y0 = std::max<Index>(0, oy * g.stride_rows - g.pad_rows);
          const Index y1 =
              std::min<Index>(g.in_rows, oy * g.stride_rows - g.pad_rows + g.window_rows);
          const Index x0 = std::max<Index>(0, ox * g.stride_cols - g.pad_cols);
          const Index x1 =
              std::min<Index>(g.in_cols, ox * g.stride_cols - g.pad_cols + g.window_cols);
          std::fill(acc.begin(), acc.end(),
                    Kind == PoolKind::max ? std::numeric_limits<T>::lowest() : T(0));
          for (Index y = y0; y < y1; ++y)
            for (Index x = x0; x < x1; ++x) {
              const T* src = in + ((b * g.in_rows + y) * g.in_cols + x) * g.depth;
              for (Index c = 0; c < g.depth; ++c) {
                if constexpr (Kind == PoolKind::max)
                  acc[static_cast<std::size_t>(c)] =
                      std::max(acc[static_cast<std::size_t>(c)], src[c]);
                else
                  acc[static_cast<std::size_t>(c)] += src[c];
              }
            }
          T* o = out + ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
          // Average pooling divides by the window's elements inside the input (TensorFlow
          // leaves the padding out of the count).
          const T count = static_cast<T>(std::max<Index>(1, (y1 - y0) * (x1 - x0)));
          for (Index c = 0; c < g.depth; ++c)
            o[c] = Kind == PoolKind::max ? acc[static_cast<std::size_t>(c)]
                                         : acc[static_cast<std::size_t>(c)] / count;
        }
  }

 private:
  WindowAttrs attrs_;
};

// -- shape functions -------------------------------------------------------------------------

Status attr_list(const InferenceContext& c, const char* name, std::vector<std::int64_t>* out) {
  return c.get_attr(name, out);
}

Status infer_bias_add(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_type(c.input_types[0],
                 {DType::float32, DType::float64, DType::bfloat16, DType::int32, DType::int64}));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument("Inputs to BiasAdd must share one type: " +
                            std::string(data_type_string(c.input_types[0])) + " vs " +
                            std::string(data_type_string(c.input_types[1])));
  const PartialShape& v = c.input_shapes[0];
  if (v.rank_known() && v.rank() < 2)
    return invalid_argument("Shape must be at least rank 2 but is rank " +
                            std::to_string(v.rank()));
  const PartialShape& b = c.input_shapes[1];
  if (b.rank_known() && b.rank() != 1)
    return invalid_argument("Shape must be rank 1 but is rank " + std::to_string(b.rank()));
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
  ACTORFLOW_RETURN_IF_ERROR(check_type(c.input_types[0], kConvTypes));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument("Inputs to Conv2D must share one type");
  std::vector<std::int64_t> strides;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "strides", &strides));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& f = c.input_shapes[1];
  for (const PartialShape* s : {&in, &f})
    if (s->rank_known() && s->rank() != 4)
      return invalid_argument("Shape must be rank 4 but is rank " + std::to_string(s->rank()));
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
      check_type(c.input_types[static_cast<std::size_t>(type_input)], kConvTypes));
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
  ACTORFLOW_RETURN_IF_ERROR(check_type(c.input_types[0], kConvTypes));
  std::vector<std::int64_t> strides, ksize;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "strides", &strides));
  ACTORFLOW_RETURN_IF_ERROR(attr_list(c, "ksize", &ksize));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &padding));
  if (strides.size() != 4 || ksize.size() != 4)
    return invalid_argument(c.node.op +
                            " requires the ksize and stride attributes to contain 4 values");
  const PartialShape& in = c.input_shapes[0];
  if (in.rank_known() && in.rank() != 4)
    return invalid_argument("Shape must be rank 4 but is rank " + std::to_string(in.rank()));
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

template <template <class> class Kernel, class... Ts>
void register_for_types(KernelRegistry& r, const std::string& op) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", {{"T", {dtype_of_v<Ts>}}})), ...);
}

template <class T>
using MaxPoolKernel = Pool2DOp<PoolKind::max, T>;
template <class T>
using AvgPoolKernel = Pool2DOp<PoolKind::avg, T>;

AttrMap window_attrs(const Output& x, const std::vector<std::int64_t>& strides,
                     const std::string& padding) {
  return {{"T", x.dtype()},
          {"strides", strides},
          {"padding", padding},
          {"data_format", std::string("NHWC")}};
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

void register_nn_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  register_for_types<BiasAddOp, float, double, bfloat16_t, int32_t, int64_t>(r, "BiasAdd");
  register_for_types<Conv2DOp, float, double>(r, "Conv2D");
  register_for_types<Conv2DBackpropInputOp, float, double>(r, "Conv2DBackpropInput");
  register_for_types<Conv2DBackpropFilterOp, float, double>(r, "Conv2DBackpropFilter");
  register_for_types<MaxPoolKernel, float, double>(r, "MaxPool");
  register_for_types<AvgPoolKernel, float, double>(r, "AvgPool");
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
  AttrMap attrs = window_attrs(input, strides, padding);
  attrs["dilations"] = std::vector<std::int64_t>{1, 1, 1, 1};
  return input.graph()
      .create_op("Conv2D", {input, filter}, std::move(attrs), name.empty() ? "Conv2D" : name)
      .output(0);
}

Output conv2d_backprop_input(const Output& input_sizes, const Output& filter,
                             const Output& out_backprop, const std::vector<std::int64_t>& strides,
                             const std::string& padding, std::string_view name) {
  AttrMap attrs = window_attrs(filter, strides, padding);
  attrs["dilations"] = std::vector<std::int64_t>{1, 1, 1, 1};
  return filter.graph()
      .create_op("Conv2DBackpropInput", {input_sizes, filter, out_backprop}, std::move(attrs),
                 name.empty() ? "Conv2DBackpropInput" : name)
      .output(0);
}

Output conv2d_backprop_filter(const Output& input, const Output& filter_sizes,
                              const Output& out_backprop, const std::vector<std::int64_t>& strides,
                              const std::string& padding, std::string_view name) {
  AttrMap attrs = window_attrs(input, strides, padding);
  attrs["dilations"] = std::vector<std::int64_t>{1, 1, 1, 1};
  return input.graph()
      .create_op("Conv2DBackpropFilter", {input, filter_sizes, out_backprop}, std::move(attrs),
                 name.empty() ? "Conv2DBackpropFilter" : name)
      .output(0);
}

Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name) {
  AttrMap attrs = window_attrs(value, strides, padding);
  attrs["ksize"] = ksize;
  return value.graph()
      .create_op("MaxPool", {value}, std::move(attrs), name.empty() ? "MaxPool" : name)
      .output(0);
}

Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name) {
  AttrMap attrs = window_attrs(value, strides, padding);
  attrs["ksize"] = ksize;
  return value.graph()
      .create_op("AvgPool", {value}, std::move(attrs), name.empty() ? "AvgPool" : name)
      .output(0);
}

}  // namespace nn

}  // namespace af
