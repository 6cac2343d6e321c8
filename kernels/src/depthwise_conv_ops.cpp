// DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput and
// DepthwiseConv2dNativeBackpropFilter: CPU kernels with TensorFlow's checks and messages
// (depthwise_conv_op.cc, depthwise_conv_grad_op.cc). Their definitions are in
// ops/src/defs/depthwise_conv_ops.cpp.
//
// NHWC only, and dilations 1 only for the forward op, as TensorFlow's CPU kernels (the
// backprop kernels ignore dilations, as TensorFlow's do). The loops are direct and sum in
// TensorFlow's order: taps in filter row-major order from zero, a tap outside the input
// contributing 0 * weight (TensorFlow multiplies zero padding too); the filter gradient sums
// each image's taps, then the images in order.
#include "actorflow/ops/depthwise_conv_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::register_for_types;
using detail::StatusKernel;

// The attrs the three kernels share, checked in TensorFlow's constructor order.
struct DepthwiseAttrs {
  std::vector<std::int64_t> strides, explicit_paddings, dilations;
  std::string padding, data_format = "NHWC";
  Index stride = 1;
  bool nchw = false;
};

// The backprop kernels check the strides' count before the data format; the forward one after.
Status read_depthwise_attrs(OpKernelConstruction& c, bool backprop, DepthwiseAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &a->strides));
  const Status count =
      a->strides.size() == 4
          ? Status{}
          : invalid_argument("Sliding window strides field must specify 4 dimensions");
  if (backprop) ACTORFLOW_RETURN_IF_ERROR(count);
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &a->data_format));
  if (a->data_format != "NHWC" && a->data_format != "NCHW")
    return invalid_argument("Invalid data format");
  a->nchw = a->data_format == "NCHW";
  ACTORFLOW_RETURN_IF_ERROR(count);
  const std::size_t h = a->nchw ? 2 : 1, w = a->nchw ? 3 : 2, depth = a->nchw ? 1 : 3;
  a->stride = a->strides[h];
  if (a->strides[h] != a->strides[w])
    return invalid_argument(
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  if (a->strides[0] != 1 || a->strides[depth] != 1)
    return invalid_argument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  c.get_attr("explicit_paddings", &a->explicit_paddings);
  ACTORFLOW_RETURN_IF_ERROR(check_valid_padding(a->padding, a->explicit_paddings, a->data_format));
  if (!backprop && c.get_attr("dilations", &a->dilations).ok()) {
    bool ones = true;
    std::string listed = "[";
    for (std::size_t i = 0; i < a->dilations.size(); ++i) {
      ones = ones && a->dilations[i] == 1;
      listed += (i ? " " : "") + std::to_string(a->dilations[i]);
    }
    if (!ones)
      return unimplemented("Current kernel implementation does not support dilations, received " +
                           listed + "]");
  }
  return {};
}

// DepthwiseArgs: the sizes of one depthwise convolution, NHWC-ordered.
struct DepthwiseArgs {
  Index batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  Index filter_rows = 0, filter_cols = 0, depth_multiplier = 0;
  Index stride = 1, pad_rows = 0, pad_cols = 0;
  Index out_rows = 0, out_cols = 0, out_depth = 0;
};

// Dimension `c` ('N', 'H', 'W' or 'C') of a 4-D shape in the attrs' data format.
Index dim_of(const Shape& s, const DepthwiseAttrs& a, char c) {
  switch (c) {
    case 'N':
      return s.dim(0);
    case 'H':
      return s.dim(a.nchw ? 2 : 1);
    case 'W':
      return s.dim(a.nchw ? 3 : 2);
    default:
      return s.dim(a.nchw ? 1 : 3);
  }
}

Shape shape_in_format(const DepthwiseAttrs& a, Index n, Index h, Index w, Index c) {
  return a.nchw ? Shape{n, c, h, w} : Shape{n, h, w, c};
}

// The output rows and columns with the padding before them (GetWindowedOutputSizeVerbose).
Status set_windows(const DepthwiseAttrs& a, DepthwiseArgs* args) {
  const bool expl = a.padding == "EXPLICIT";
  auto pad = [&](std::size_t d, std::size_t side) {
    return expl ? a.explicit_paddings[2 * d + side] : Index{0};
  };
  const std::size_t h = a.nchw ? 2 : 1, w = a.nchw ? 3 : 2;
  auto rows = windowed_output_size_explicit(args->in_rows, args->filter_rows, a.stride, a.padding,
                                            pad(h, 0), pad(h, 1));
  if (!rows.ok()) return rows.status();
  auto cols = windowed_output_size_explicit(args->in_cols, args->filter_cols, a.stride, a.padding,
                                            pad(w, 0), pad(w, 1));
  if (!cols.ok()) return cols.status();
  args->out_rows = rows->output;
  args->out_cols = cols->output;
  args->pad_rows = rows->pad_before;
  args->pad_cols = cols->pad_before;
  args->stride = a.stride;
  return {};
}

Status check_nhwc(const DepthwiseAttrs& a) {
  if (a.nchw)
    return unimplemented("Depthwise convolution on CPU is only supported for NHWC format");
  return {};
}

// EXTRACT_AND_VERIFY_DIMENSIONS of depthwise_conv_grad_op.cc.
Status backprop_args(const char* label, const DepthwiseAttrs& a, const Shape& input,
                     const Shape& filter, const Shape& dy, DepthwiseArgs* args) {
  const std::string l(label);
  if (input.rank() != 4) return invalid_argument(l + ": input must be 4-dimensional");
  if (filter.rank() != 4) return invalid_argument(l + ": filter must be 4-dimensional");
  if (dy.rank() != 4) return invalid_argument(l + ": out_backprop must be 4-dimensional");
  args->batch = dim_of(input, a, 'N');
  if (args->batch != dy.dim(0))
    return invalid_argument(l + ": input and out_backprop must have the same batch size");
  args->in_rows = dim_of(input, a, 'H');
  args->in_cols = dim_of(input, a, 'W');
  args->filter_rows = filter.dim(0);
  args->filter_cols = filter.dim(1);
  const Index dy_rows = dim_of(dy, a, 'H'), dy_cols = dim_of(dy, a, 'W');
  args->in_depth = dim_of(input, a, 'C');
  if (args->in_depth != filter.dim(2))
    return invalid_argument(l + ": input and filter must have the same in_depth");
  args->depth_multiplier = filter.dim(3);
  args->out_depth = dim_of(dy, a, 'C');
  if (args->depth_multiplier * args->in_depth != args->out_depth)
    return invalid_argument(l + ": depth_multiplier * in_depth not equal to out_depth");
  ACTORFLOW_RETURN_IF_ERROR(set_windows(a, args));
  if (dy_rows != args->out_rows)
    return invalid_argument(l + ": Number of rows of out_backprop doesn't match computed: " +
                            "actual = " + std::to_string(dy_rows) +
                            ", computed = " + std::to_string(args->out_rows));
  if (dy_cols != args->out_cols)
    return invalid_argument(l + ": Number of cols of out_backprop doesn't match computed: " +
                            "actual = " + std::to_string(dy_cols) +
                            ", computed = " + std::to_string(args->out_cols));
  return {};
}

// A 1-D int32 sizes input (input_sizes / filter_sizes) as a shape.
Status sizes_to_shape(const Tensor& t, const char* op, const char* what, Shape* out) {
  if (t.rank() != 1)
    return invalid_argument(std::string(op) + ": " + what + " input must be 1-dim, not " +
                            std::to_string(t.rank()));
  const std::vector<Index> v = detail::index_values(t);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] < 0)
      return invalid_argument("Dimension " + std::to_string(i) + " of " + what + " must be >= 0");
  *out = Shape(std::vector<std::int64_t>(v.begin(), v.end()));
  return {};
}

// -- the kernels ---------------------------------------------------------------------------

template <class T>
class DepthwiseConv2dNativeOp : public StatusKernel {
 public:
  DepthwiseConv2dNativeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_depthwise_attrs(c, false, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
    if (filter.rank() != 4)
      return invalid_argument("filter must be 4-dimensional: " + filter.shape().to_string());
    DepthwiseArgs a;
    a.in_depth = dim_of(input.shape(), attrs_, 'C');
    if (a.in_depth != filter.shape().dim(2))
      return invalid_argument(
          "input and filter must have the same depth: " + std::to_string(a.in_depth) + " vs " +
          std::to_string(filter.shape().dim(2)));
    a.depth_multiplier = filter.shape().dim(3);
    a.out_depth = a.in_depth * a.depth_multiplier;
    a.in_rows = dim_of(input.shape(), attrs_, 'H');
    a.in_cols = dim_of(input.shape(), attrs_, 'W');
    a.filter_rows = filter.shape().dim(0);
    a.filter_cols = filter.shape().dim(1);
    a.batch = input.shape().dim(0);
    ACTORFLOW_RETURN_IF_ERROR(set_windows(attrs_, &a));
    const Shape out_shape = shape_in_format(attrs_, a.batch, a.out_rows, a.out_cols, a.out_depth);
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    if (out_shape.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(check_nhwc(attrs_));
    const T* in = input.data<T>();
    const T* w = filter.data<T>();
    T* out = output.data<T>();
    for (Index b = 0; b < a.batch; ++b)
      for (Index oy = 0; oy < a.out_rows; ++oy)
        for (Index ox = 0; ox < a.out_cols; ++ox) {
          T* o = out + ((b * a.out_rows + oy) * a.out_cols + ox) * a.out_depth;
          for (Index d = 0; d < a.out_depth; ++d) {
            const Index c = d / a.depth_multiplier;
            T acc = 0;
            for (Index ky = 0; ky < a.filter_rows; ++ky) {
              const Index iy = oy * a.stride - a.pad_rows + ky;
              for (Index kx = 0; kx < a.filter_cols; ++kx) {
                const Index ix = ox * a.stride - a.pad_cols + kx;
                const bool inside = iy >= 0 && iy < a.in_rows && ix >= 0 && ix < a.in_cols;
                const T v =
                    inside ? in[((b * a.in_rows + iy) * a.in_cols + ix) * a.in_depth + c] : T(0);
                acc += w[(ky * a.filter_cols + kx) * a.out_depth + d] * v;
              }
            }
            o[d] = acc;
          }
        }
    return {};
  }

 private:
  DepthwiseAttrs attrs_;
};

template <class T>
class DepthwiseConv2dNativeBackpropInputOp : public StatusKernel {
 public:
  DepthwiseConv2dNativeBackpropInputOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_depthwise_attrs(c, true, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    Shape input_shape;
    ACTORFLOW_RETURN_IF_ERROR(
        sizes_to_shape(ctx.input(0), "Conv2DBackpropInput", "input_sizes", &input_shape));
    const Tensor& filter = ctx.input(1);
    const Tensor& dy = ctx.input(2);
    DepthwiseArgs a;
    ACTORFLOW_RETURN_IF_ERROR(backprop_args("DepthwiseConv2DBackpropInput", attrs_, input_shape,
                                            filter.shape(), dy.shape(), &a));
    Tensor& dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape);
    if (input_shape.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(check_nhwc(attrs_));
    const T* w = filter.data<T>();
    const T* g = dy.data<T>();
    T* out = dx.data<T>();
    // TensorFlow's ComputeBackpropInput: per output channel the taps' sum, then the channel
    // multiplier's outputs of one input channel summed in order.
    std::vector<T> per_output(static_cast<std::size_t>(a.out_depth));
    for (Index b = 0; b < a.batch; ++b)
      for (Index iy = 0; iy < a.in_rows; ++iy)
        for (Index ix = 0; ix < a.in_cols; ++ix) {
          for (Index d = 0; d < a.out_depth; ++d) {
            T acc = 0;
            for (Index ky = 0; ky < a.filter_rows; ++ky) {
              const Index ry = iy + a.pad_rows - ky;
              const bool row_ok = ry >= 0 && ry % a.stride == 0 && ry / a.stride < a.out_rows;
              for (Index kx = 0; kx < a.filter_cols; ++kx) {
                const Index rx = ix + a.pad_cols - kx;
                const bool ok =
                    row_ok && rx >= 0 && rx % a.stride == 0 && rx / a.stride < a.out_cols;
                const T v = ok ? g[((b * a.out_rows + ry / a.stride) * a.out_cols + rx / a.stride) *
                                       a.out_depth +
                                   d]
                               : T(0);
                acc += w[(ky * a.filter_cols + kx) * a.out_depth + d] * v;
              }
            }
            per_output[static_cast<std::size_t>(d)] = acc;
          }
          T* o = out + ((b * a.in_rows + iy) * a.in_cols + ix) * a.in_depth;
          for (Index c = 0; c < a.in_depth; ++c) {
            if (a.depth_multiplier == 1) {
              o[c] = per_output[static_cast<std::size_t>(c)];
              continue;
            }
            T sum = 0;
            for (Index m = 0; m < a.depth_multiplier; ++m)
              sum += per_output[static_cast<std::size_t>(c * a.depth_multiplier + m)];
            o[c] = sum;
          }
        }
    return {};
  }

 private:
  DepthwiseAttrs attrs_;
};

template <class T>
class DepthwiseConv2dNativeBackpropFilterOp : public StatusKernel {
 public:
  DepthwiseConv2dNativeBackpropFilterOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_depthwise_attrs(c, true, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Shape filter_shape;
    ACTORFLOW_RETURN_IF_ERROR(
        sizes_to_shape(ctx.input(1), "Conv2DBackpropFilter", "filter_sizes", &filter_shape));
    const Tensor& dy = ctx.input(2);
    DepthwiseArgs a;
    ACTORFLOW_RETURN_IF_ERROR(backprop_args("DepthwiseConv2DBackpropFilter", attrs_, input.shape(),
                                            filter_shape, dy.shape(), &a));
    Tensor& dw = ctx.allocate_output(0, dtype_of_v<T>, filter_shape);
    if (filter_shape.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(check_nhwc(attrs_));
    const T* in = input.data<T>();
    const T* g = dy.data<T>();
    T* out = dw.data<T>();
    const Index taps = a.filter_rows * a.filter_cols;
    std::vector<T> image(static_cast<std::size_t>(taps * a.out_depth));
    for (Index i = 0; i < taps * a.out_depth; ++i) out[i] = T(0);
    for (Index b = 0; b < a.batch; ++b) {
      std::fill(image.begin(), image.end(), T(0));
      for (Index oy = 0; oy < a.out_rows; ++oy)
        for (Index ox = 0; ox < a.out_cols; ++ox) {
          const T* grad = g + ((b * a.out_rows + oy) * a.out_cols + ox) * a.out_depth;
          for (Index ky = 0; ky < a.filter_rows; ++ky) {
            const Index iy = oy * a.stride - a.pad_rows + ky;
            for (Index kx = 0; kx < a.filter_cols; ++kx) {
              const Index ix = ox * a.stride - a.pad_cols + kx;
              const bool inside = iy >= 0 && iy < a.in_rows && ix >= 0 && ix < a.in_cols;
              const Index at = inside ? ((b * a.in_rows + iy) * a.in_cols + ix) * a.in_depth : 0;
              T* acc = image.data() + (ky * a.filter_cols + kx) * a.out_depth;
              for (Index d = 0; d < a.out_depth; ++d)
                acc[d] += grad[d] * (inside ? in[at + d / a.depth_multiplier] : T(0));
            }
          }
        }
      for (Index i = 0; i < taps * a.out_depth; ++i) out[i] += image[static_cast<std::size_t>(i)];
    }
    return {};
  }

 private:
  DepthwiseAttrs attrs_;
};

}  // namespace

namespace detail {

void register_depthwise_conv_kernels(KernelRegistry& r) {
  // float16 and bfloat16 through the float kernels, as TensorFlow 2.21 has them.
  register_floating<DepthwiseConv2dNativeOp>(r, "DepthwiseConv2dNative");
  register_floating<DepthwiseConv2dNativeBackpropInputOp>(r, "DepthwiseConv2dNativeBackpropInput");
  register_floating<DepthwiseConv2dNativeBackpropFilterOp>(r,
                                                           "DepthwiseConv2dNativeBackpropFilter");
}

}  // namespace detail

}  // namespace af
