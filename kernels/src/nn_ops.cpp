// BiasAdd, Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool and AvgPool: the CPU
// kernels. The ops' definitions (window geometry, shape functions, graph-building functions)
// are in ops/src/defs/nn_ops.cpp.
//
// NHWC only on the CPU, as TensorFlow 1.x's CPU kernels ("Default Conv2DOp only supports
// NHWC."); filters are HWIO. The loops are direct (no im2col buffer) with
// the output-channel loop innermost so it vectorises; these kernels are the reference the
// GPU kernels are checked against, and a correct baseline rather than a fast one.
#include "actorflow/ops/nn_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using Index = std::int64_t;

constexpr Index kExpensiveWork = 64 * 1024;

using detail::bias_data_format_is_nchw;
using detail::node_suffix;
using detail::pool_window;
using detail::PoolWindow;
using detail::register_for_types;

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

// The geometry of the Conv2D whose gradient `op` (Conv2DBackpropInput or
// Conv2DBackpropFilter) computes, with `dy` checked against its output shape; errors without
// the node's suffix.
StatusOr<Conv2DGeometry> backprop_geometry(const char* op, const Shape& input, const Shape& filter,
                                           const WindowAttrs& attrs, const Tensor& dy) {
  auto geo = conv2d_geometry(input, filter, attrs.strides, attrs.padding);
  if (!geo.ok()) return geo.status();
  const Conv2DGeometry& g = *geo;
  if (dy.shape() != Shape{g.batch, g.out_rows, g.out_cols, g.out_depth})
    return invalid_argument(
        std::string(op) +
        ": Size of out_backprop doesn't match computed: actual = " + dy.shape().to_string() +
        ", computed = " + Shape{g.batch, g.out_rows, g.out_cols, g.out_depth}.to_string());
  return geo;
}

// Calls `tap(out_at, in_at, filter_at)` for each output pixel (b, oy, ox), in row-major order,
// and each filter tap (ky, kx) whose input pixel (b, iy, ix) lies inside the input: the
// offsets of the output pixel's out_depth values, of the input pixel's in_depth values and of
// the tap's in_depth x out_depth weights (HWIO).
template <class Tap>
void for_each_conv_tap(const Conv2DGeometry& g, Tap&& tap) {
  for (Index b = 0; b < g.batch; ++b)
    for (Index oy = 0; oy < g.out_rows; ++oy)
      for (Index ox = 0; ox < g.out_cols; ++ox) {
        const Index out_at = ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
        for (Index ky = 0; ky < g.filter_rows; ++ky) {
          const Index iy = oy * g.stride_rows - g.pad_rows + ky;
          if (iy < 0 || iy >= g.in_rows) continue;
          for (Index kx = 0; kx < g.filter_cols; ++kx) {
            const Index ix = ox * g.stride_cols - g.pad_cols + kx;
            if (ix < 0 || ix >= g.in_cols) continue;
            tap(out_at, ((b * g.in_rows + iy) * g.in_cols + ix) * g.in_depth,
                (ky * g.filter_cols + kx) * g.in_depth * g.out_depth);
          }
        }
      }
}

// -- BiasAdd --------------------------------------------------------------------------------

template <class T>
class BiasAddOp : public OpKernel {
 public:
  BiasAddOp(OpKernelConstruction& c, Status* s)
      : OpKernel(c), nchw_(bias_data_format_is_nchw(c, s)) {}
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
    if constexpr (is_half_like_v<T>)
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
    for_each_conv_tap(g, [&](Index out_at, Index in_at, Index filter_at) {
      T* o = out + out_at;
      const T* src = in + in_at;
      const T* wk = w + filter_at;
      for (Index ci = 0; ci < g.in_depth; ++ci) {
        const T v = src[ci];
        const T* wr = wk + ci * g.out_depth;
        for (Index co = 0; co < g.out_depth; ++co) o[co] += v * wr[co];
      }
    });
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
    auto geo = backprop_geometry("Conv2DBackpropInput", input_shape, filter.shape(), attrs_, dy);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Conv2DGeometry& g = *geo;
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape).template data<T>();
    const T* w = filter.data<T>();
    const T* d = dy.data<T>();
    for_each_conv_tap(g, [&](Index out_at, Index in_at, Index filter_at) {
      const T* grad = d + out_at;
      T* dst = dx + in_at;
      const T* wk = w + filter_at;
      for (Index ci = 0; ci < g.in_depth; ++ci) {
        const T* wr = wk + ci * g.out_depth;
        T acc = 0;
        for (Index co = 0; co < g.out_depth; ++co) acc += grad[co] * wr[co];
        dst[ci] += acc;
      }
    });
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
    auto geo = backprop_geometry("Conv2DBackpropFilter", input.shape(), filter_shape, attrs_, dy);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Conv2DGeometry& g = *geo;
    T* dw = ctx.allocate_output(0, dtype_of_v<T>, filter_shape).template data<T>();
    const T* in = input.data<T>();
    const T* d = dy.data<T>();
    for_each_conv_tap(g, [&](Index out_at, Index in_at, Index filter_at) {
      const T* grad = d + out_at;
      const T* src = in + in_at;
      T* wk = dw + filter_at;
      for (Index ci = 0; ci < g.in_depth; ++ci) {
        const T v = src[ci];
        T* wr = wk + ci * g.out_depth;
        for (Index co = 0; co < g.out_depth; ++co) wr[co] += v * grad[co];
      }
    });
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
          const PoolWindow w = pool_window(g, oy, ox);
          std::fill(acc.begin(), acc.end(),
                    Kind == PoolKind::max ? std::numeric_limits<T>::lowest() : T(0));
          for (Index y = w.y0; y < w.y1; ++y)
            for (Index x = w.x0; x < w.x1; ++x) {
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
          const T count = static_cast<T>(std::max<Index>(1, (w.y1 - w.y0) * (w.x1 - w.x0)));
          for (Index c = 0; c < g.depth; ++c)
            o[c] = Kind == PoolKind::max ? acc[static_cast<std::size_t>(c)]
                                         : acc[static_cast<std::size_t>(c)] / count;
        }
  }

 private:
  WindowAttrs attrs_;
};

template <class T>
using MaxPoolKernel = Pool2DOp<PoolKind::max, T>;
template <class T>
using AvgPoolKernel = Pool2DOp<PoolKind::avg, T>;

}  // namespace

namespace detail {

void register_nn_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21; float16 and bfloat16 convolutions
  // and pools through the float kernel.
  register_for_list<BiasAddOp>(r, "BiasAdd", NumberTypes{});
  register_for_types<Conv2DOp, float, double, std::int32_t>(r, "Conv2D");
  register_via_float<Conv2DOp<float>>(r, "Conv2D");
  register_for_types<Conv2DBackpropInputOp, float, double, std::int32_t>(r, "Conv2DBackpropInput");
  register_via_float<Conv2DBackpropInputOp<float>>(r, "Conv2DBackpropInput");
  register_floating<Conv2DBackpropFilterOp>(r, "Conv2DBackpropFilter");
  register_for_list<MaxPoolKernel>(r, "MaxPool",
                                   TypeList<float, double, std::int8_t, std::int16_t, std::int32_t,
                                            std::int64_t, std::uint8_t, std::uint16_t>{});
  register_via_float<MaxPoolKernel<float>>(r, "MaxPool");
  register_floating<AvgPoolKernel>(r, "AvgPool");
}

}  // namespace detail

}  // namespace af
