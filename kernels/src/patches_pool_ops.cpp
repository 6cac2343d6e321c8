// ExtractImagePatches, ExtractVolumePatches, Dilation2D with its two backprop ops,
// MaxPoolWithArgmax, MaxPoolGradWithArgmax, MaxPoolGradGradWithArgmax and MaxPoolGradGrad: CPU
// kernels with TensorFlow's checks and messages (extract_image_patches_op.cc,
// extract_volume_patches_op.cc, dilation_ops.cc, maxpooling_op.cc). Their definitions are in
// ops/src/defs/patches_pool_ops.cpp, their gradients in ops/src/gradients/patches_pool_grad.cpp.
//
// NHWC (NDHWC for volumes) only, as TensorFlow's CPU kernels. Loops are direct reference
// loops in TensorFlow's visiting order, so that ties resolve as TensorFlow's do.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// -- arithmetic on the element types ---------------------------------------------------------

// bfloat16 computes in float and rounds the result, as Eigen's bfloat16 operators.
template <class T>
auto widen(T v) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(v);
  else
    return v;
}

template <class T, class V>
T narrow(V v) {
  if constexpr (is_half_like_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Eigen::NumTraits<T>::lowest(): what a max over no element yields.
template <class T>
T lowest_value() {
  if constexpr (is_half_like_v<T>) {
    bfloat16_t b;
    b.bits = 0xff7f;
    return b;
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// a + b in T (integers wrap as Eigen's do; bfloat16 rounds the float sum).
template <class T>
T add_values(T a, T b) {
  return narrow<T>(widen(a) + widen(b));
}

template <class T>
bool greater(T a, T b) {
  return widen(a) > widen(b);
}

template <class T>
bool equal(T a, T b) {
  return widen(a) == widen(b);
}

// -- ExtractImagePatches and ExtractVolumePatches ------------------------------------------

// ParseAttributeVec4 / ParseAttributeVec5: `rank` values, 1 in batch and depth, at least 1 in
// between.
Status read_space_attr(OpKernelConstruction& c, const std::string& op, const char* name,
                       std::size_t rank, std::vector<std::int64_t>* out) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr(name, out));
  if (out->size() != rank)
    return invalid_argument(op + " requires the " + name + " attribute to contain " +
                            std::to_string(rank) +
                            " values, but got: " + std::to_string(out->size()));
  if ((*out)[0] != 1 || out->back() != 1)
    return unimplemented(std::string("Only support ") + name + " across space.");
  for (std::size_t d = 1; d + 1 < rank; ++d)
    if ((*out)[d] < 1) return out_of_range(std::string(name) + " is out of range.");
  return {};
}

// The sizes of a patch extraction over `spatial` dimensions.
struct PatchGeometry {
  Index batch = 0, depth = 0;
  std::vector<Index> in, ksize, stride, rate, out, pad;
  Index patch_elements() const {
    Index n = 1;
    for (Index k : ksize) n *= k;
    return n;
  }
};

// Fills `g`'s output sizes and paddings. ExtractImagePatches pads SAME as
// GetWindowedOutputSize (never negative); ExtractVolumePatches as Eigen's volume patches, half
// of a padding that may be negative, truncated toward zero.
Status set_patch_output(PatchGeometry& g, const std::string& padding, bool volume) {
  for (std::size_t d = 0; d < g.in.size(); ++d) {
    const Index eff = g.ksize[d] + (g.ksize[d] - 1) * (g.rate[d] - 1);
    auto w = windowed_output_size(g.in[d], eff, g.stride[d], padding);
    if (!w.ok()) return w.status();
    g.out.push_back(w->output);
    Index pad = w->pad_before;
    if (volume && padding == "SAME") pad = ((w->output - 1) * g.stride[d] + eff - g.in[d]) / 2;
    g.pad.push_back(pad);
  }
  return {};
}

// out[b, o..., (k...) * depth + c] = in[b, o * stride - pad + k * rate, c], 0 outside the
// input, the patch offsets k in row-major order.
template <class T>
void extract_patches(const PatchGeometry& g, const T* in, T* out) {
  const std::size_t rank = g.in.size();
  Index out_positions = 1;
  for (Index o : g.out) out_positions *= o;
  const Index patch = g.patch_elements();
  std::vector<Index> o(rank), k(rank);
  for (Index b = 0; b < g.batch; ++b)
    for (Index op = 0; op < out_positions; ++op) {
      Index rest = op;
      for (std::size_t d = rank; d-- > 0;) {
        o[d] = rest % g.out[d];
        rest /= g.out[d];
      }
      T* dst = out + (b * out_positions + op) * patch * g.depth;
      for (Index kp = 0; kp < patch; ++kp, dst += g.depth) {
        Index krest = kp;
        for (std::size_t d = rank; d-- > 0;) {
          k[d] = krest % g.ksize[d];
          krest /= g.ksize[d];
        }
        Index at = b;
        bool inside = true;
        for (std::size_t d = 0; d < rank && inside; ++d) {
          const Index i = o[d] * g.stride[d] - g.pad[d] + k[d] * g.rate[d];
          inside = i >= 0 && i < g.in[d];
          at = at * g.in[d] + i;
        }
        if (inside)
          std::copy(in + at * g.depth, in + (at + 1) * g.depth, dst);
        else
          std::fill(dst, dst + g.depth, T());
      }
    }
}

// ExtractImagePatches(images; ksizes, strides, rates, padding) and
// ExtractVolumePatches(input; ksizes, strides, padding).
template <class T>
class ExtractPatchesOp : public StatusKernel {
 public:
  ExtractPatchesOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c), volume_(c.def.op == "ExtractVolumePatches") {
    const std::size_t rank = volume_ ? 5 : 4;
    *s = read_space_attr(c, c.def.op, "ksizes", rank, &ksizes_);
    if (s->ok()) *s = read_space_attr(c, c.def.op, "strides", rank, &strides_);
    if (s->ok() && !volume_) *s = read_space_attr(c, c.def.op, "rates", rank, &rates_);
    if (s->ok()) *s = c.get_attr("padding", &padding_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int rank = volume_ ? 5 : 4;
    if (input.rank() != rank)
      return invalid_argument("input must be " + std::to_string(rank) + "-dimensional" +
                              input.shape().to_string());
    PatchGeometry g;
    g.batch = input.shape().dim(0);
    g.depth = input.shape().dim(rank - 1);
    for (int d = 1; d + 1 < rank; ++d) {
      const auto at = static_cast<std::size_t>(d);
      g.in.push_back(input.shape().dim(d));
      g.ksize.push_back(ksizes_[at]);
      g.stride.push_back(strides_[at]);
      g.rate.push_back(volume_ ? 1 : rates_[at]);
    }
    ACTORFLOW_RETURN_IF_ERROR(set_patch_output(g, padding_, volume_));
    std::vector<std::int64_t> dims{g.batch};
    dims.insert(dims.end(), g.out.begin(), g.out.end());
    dims.push_back(g.patch_elements() * g.depth);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape(dims));
    if (out.num_elements() == 0) return {};
    extract_patches(g, input.data<T>(), out.data<T>());
    return {};
  }

 private:
  bool volume_ = false;
  std::vector<std::int64_t> ksizes_, strides_, rates_;
  std::string padding_;
};

// -- Dilation2D ----------------------------------------------------------------------------

struct DilationAttrs {
  std::vector<std::int64_t> strides, rates;
  std::string padding;
};

// ParseAttributes of dilation_ops.cc.
Status read_dilation_attrs(OpKernelConstruction& c, DilationAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &a->strides));
  if (a->strides.size() != 4)
    return invalid_argument("Sliding window stride field must specify 4 dimensions");
  if (a->strides[0] != 1 || a->strides[3] != 1)
    return unimplemented("Stride is only supported across spatial dimensions.");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("rates", &a->rates));
  if (a->rates.size() != 4)
    return invalid_argument("Input stride (atrous rate) field must specify 4 dimensions");
  if (a->rates[0] != 1 || a->rates[3] != 1)
    return unimplemented("Rate is only supported across spatial dimensions.");
  return c.get_attr("padding", &a->padding);
}

struct DilationGeometry {
  Index batch = 0, in_rows = 0, in_cols = 0, depth = 0, filter_rows = 0, filter_cols = 0;
  Index stride_rows = 1, stride_cols = 1, rate_rows = 1, rate_cols = 1;
  Index out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
};

// ParseSizes of dilation_ops.cc.
StatusOr<DilationGeometry> dilation_geometry(const Shape& input, const Shape& filter,
                                             const DilationAttrs& a) {
  if (input.rank() != 4) return invalid_argument("input must be 4-dimensional" + input.to_string());
  if (filter.rank() != 3)
    return invalid_argument("filter must be 3-dimensional: " + filter.to_string());
  if (input.dim(3) != filter.dim(2))
    return invalid_argument("input and filter must have the same depth: " +
                            std::to_string(input.dim(3)) + " vs " + std::to_string(filter.dim(2)));
  DilationGeometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.depth = input.dim(3);
  g.filter_rows = filter.dim(0);
  g.filter_cols = filter.dim(1);
  g.stride_rows = a.strides[1];
  g.stride_cols = a.strides[2];
  g.rate_rows = a.rates[1];
  g.rate_cols = a.rates[2];
  auto rows = windowed_output_size(
      g.in_rows, g.filter_rows + (g.filter_rows - 1) * (g.rate_rows - 1), g.stride_rows, a.padding);
  if (!rows.ok()) return rows.status();
  auto cols = windowed_output_size(
      g.in_cols, g.filter_cols + (g.filter_cols - 1) * (g.rate_cols - 1), g.stride_cols, a.padding);
  if (!cols.ok()) return cols.status();
  g.out_rows = rows->output;
  g.out_cols = cols->output;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return g;
}

// For each output (b, oy, ox, c): the maximum of input + filter over the taps inside the
// input, the first maximum's input row and column and filter row and column (the input's
// window start clipped to 0 and filter tap (0, 0) when no tap is inside), as dilation_ops.cc.
template <class T, class Visit>
void for_each_dilation_max(const DilationGeometry& g, const T* in, const T* filter, Visit&& visit) {
  for (Index b = 0; b < g.batch; ++b)
    for (Index oy = 0; oy < g.out_rows; ++oy) {
      const Index h_beg = oy * g.stride_rows - g.pad_top;
      for (Index ox = 0; ox < g.out_cols; ++ox) {
        const Index w_beg = ox * g.stride_cols - g.pad_left;
        for (Index c = 0; c < g.depth; ++c) {
          T best = lowest_value<T>();
          Index h_in_max = std::max<Index>(h_beg, 0), w_in_max = std::max<Index>(w_beg, 0);
          Index h_max = 0, w_max = 0;
          for (Index h = 0; h < g.filter_rows; ++h) {
            const Index h_in = h_beg + h * g.rate_rows;
            if (h_in < 0 || h_in >= g.in_rows) continue;
            for (Index w = 0; w < g.filter_cols; ++w) {
              const Index w_in = w_beg + w * g.rate_cols;
              if (w_in < 0 || w_in >= g.in_cols) continue;
              const T v = add_values(in[((b * g.in_rows + h_in) * g.in_cols + w_in) * g.depth + c],
                                     filter[(h * g.filter_cols + w) * g.depth + c]);
              if (greater(v, best)) {
                best = v;
                h_in_max = h_in;
                w_in_max = w_in;
                h_max = h;
                w_max = w;
              }
            }
          }
          visit(((b * g.out_rows + oy) * g.out_cols + ox) * g.depth + c, best,
                h_in_max < g.in_rows && w_in_max < g.in_cols
                    ? ((b * g.in_rows + h_in_max) * g.in_cols + w_in_max) * g.depth + c
                    : Index{-1},
                (h_max * g.filter_cols + w_max) * g.depth + c);
        }
      }
    }
}

// Dilation2D(input, filter) and its backprops Dilation2DBackpropInput and
// Dilation2DBackpropFilter(input, filter, out_backprop).
enum class DilationKind { forward, backprop_input, backprop_filter };

template <DilationKind Kind, class T>
class DilationOp : public StatusKernel {
 public:
  DilationOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_dilation_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    auto geo = dilation_geometry(input.shape(), filter.shape(), attrs_);
    if (!geo.ok()) return geo.status();
    const DilationGeometry& g = *geo;
    if constexpr (Kind == DilationKind::forward) {
      Tensor& out =
          ctx.allocate_output(0, dtype_of_v<T>, Shape{g.batch, g.out_rows, g.out_cols, g.depth});
      if (out.num_elements() == 0) return {};
      T* o = out.data<T>();
      for_each_dilation_max(g, input.data<T>(), filter.data<T>(),
                            [&](Index at, T best, Index, Index) { o[at] = best; });
    } else {
      const Tensor& dy = ctx.input(2);
      if (dy.rank() != 4)
        return invalid_argument("out_backprop must be 4-dimensional" + dy.shape().to_string());
      if (dy.shape() != Shape{g.batch, g.out_rows, g.out_cols, g.depth})
        return invalid_argument("out_backprop has incompatible size.");
      const bool to_input = Kind == DilationKind::backprop_input;
      const Shape& out_shape = to_input ? input.shape() : filter.shape();
      Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
      T* o = out.data<T>();
      std::fill(o, o + out.num_elements(), T());
      if (out.num_elements() == 0) return {};
      const T* d = dy.data<T>();
      for_each_dilation_max(g, input.data<T>(), filter.data<T>(),
                            [&](Index at, T, Index in_at, Index filter_at) {
                              const Index to = to_input ? in_at : filter_at;
                              if (to >= 0) o[to] = add_values(o[to], d[at]);
                            });
    }
    return {};
  }

 private:
  DilationAttrs attrs_;
};

// -- max pooling with argmax and MaxPoolGradGrad -------------------------------------------

struct ArgmaxPoolAttrs {
  std::vector<std::int64_t> ksize, strides;
  std::string padding;
  bool include_batch_in_index = false;
};

// The constructors' checks of maxpooling_op.cc.
Status read_argmax_pool_attrs(OpKernelConstruction& c, ArgmaxPoolAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &a->ksize));
  if (a->ksize.size() != 4)
    return invalid_argument("Sliding window ksize field must specify 4 dimensions");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &a->strides));
  if (a->strides.size() != 4)
    return invalid_argument("Sliding window stride field must specify 4 dimensions");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  if (a->ksize[0] != 1 || a->strides[0] != 1)
    return unimplemented("Pooling is not yet supported on the batch dimension.");
  c.get_attr("include_batch_in_index", &a->include_batch_in_index);
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format != "NHWC")
    return invalid_argument("Default MaxPoolingGradGradOp only supports NHWC on device type CPU");
  return {};
}

// PoolParameters: the pooling geometry, pooling over depth refused with `depth_message`.
StatusOr<Pool2DGeometry> argmax_pool_geometry(const Shape& input, const ArgmaxPoolAttrs& a,
                                              const char* depth_message) {
  if (a.ksize[3] != 1 || a.strides[3] != 1) return unimplemented(depth_message);
  return pool2d_geometry(input, a.ksize, a.strides, a.padding);
}

// The flat input offset of the first maximum of each output of the pooling `g` (input row
// then column order, as SpatialMaxPoolWithArgMaxHelper); -1 for an empty window.
template <class T, class Visit>
void for_each_pool_max(const Pool2DGeometry& g, const T* in, Visit&& visit) {
  for (Index b = 0; b < g.batch; ++b)
    for (Index oy = 0; oy < g.out_rows; ++oy)
      for (Index ox = 0; ox < g.out_cols; ++ox) {
        const detail::PoolWindow w = detail::pool_window(g, oy, ox);
        const Index out_at = ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
        for (Index c = 0; c < g.depth; ++c) {
          Index best = -1;
          for (Index y = w.y0; y < w.y1; ++y)
            for (Index x = w.x0; x < w.x1; ++x) {
              const Index at = ((b * g.in_rows + y) * g.in_cols + x) * g.depth + c;
              if (best < 0 || greater(in[at], in[best])) best = at;
            }
          visit(out_at + c, best, b);
        }
      }
}

// MaxPoolWithArgmax(input) -> (output, argmax): argmax is the flat offset
// ((b * height + y) * width + x) * channels + c of the first maximum, without the batch term
// unless include_batch_in_index.
template <class T>
class MaxPoolWithArgmaxOp : public StatusKernel {
 public:
  MaxPoolWithArgmaxOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_argmax_pool_attrs(c, &attrs_);
    if (s->ok() && !c.get_attr("Targmax", &targmax_).ok()) targmax_ = DType::int64;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4) return invalid_argument("tensor_in must be 4-dimensional (2)");
    auto geo = argmax_pool_geometry(
        input.shape(), attrs_,
        "MaxPooling supports exactly one of pooling across depth or pooling across "
        "width/height.");
    if (!geo.ok()) return geo.status();
    const Pool2DGeometry& g = *geo;
    const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
    T* out = ctx.allocate_output(0, dtype_of_v<T>, out_shape).template data<T>();
    Tensor& argmax = ctx.allocate_output(1, targmax_, out_shape);
    const T* in = input.data<T>();
    const Index per_batch = g.in_rows * g.in_cols * g.depth;
    for_each_pool_max(g, in, [&](Index at, Index best, Index b) {
      out[at] = best >= 0 ? in[best] : lowest_value<T>();
      Index offset = best;
      if (best >= 0 && !attrs_.include_batch_in_index) offset -= b * per_batch;
      if (targmax_ == DType::int64)
        argmax.data<std::int64_t>()[at] = offset;
      else
        argmax.data<std::int32_t>()[at] = static_cast<std::int32_t>(offset);
    });
    return {};
  }

 private:
  ArgmaxPoolAttrs attrs_;
  DType targmax_ = DType::int64;
};

// The checks MaxPoolGradWithArgmax and MaxPoolGradGradWithArgmax share: the geometry of the
// pooling of `input`, `grad` and `argmax` of the shape `grad_shape` picks.
StatusOr<Pool2DGeometry> with_argmax_geometry(const Tensor& input, const Tensor& grad,
                                              const Tensor& argmax, const ArgmaxPoolAttrs& a,
                                              bool grad_is_input_shaped) {
  if (input.rank() != 4)
    return invalid_argument("tensor_in_shape must have 2 spatial dimensions. " +
                            std::to_string(input.rank()) + " 0");
  auto geo = argmax_pool_geometry(
      input.shape(), a,
      "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
  if (!geo.ok()) return geo.status();
  const Pool2DGeometry& g = *geo;
  const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
  const Shape& grad_expected = grad_is_input_shaped ? input.shape() : out_shape;
  if (grad.shape() != grad_expected)
    return invalid_argument("Expected grad shape to be " + grad_expected.to_string() +
                            ", but got " + grad.shape().to_string());
  if (argmax.shape() != out_shape)
    return invalid_argument("Expected argmax shape to be " + out_shape.to_string() + ", but got " +
                            argmax.shape().to_string());
  return geo;
}

// The flat input offset argmax element `i` (of batch `b`) names, checked to lie in that
// batch's input as TensorFlow CHECKs (a failed step here rather than an abort).
Status argmax_target(const std::vector<Index>& argmax, Index i, Index b, Index per_batch,
                     bool include_batch_in_index, Index* target) {
  Index at = argmax[static_cast<std::size_t>(i)];
  if (!include_batch_in_index) at += b * per_batch;
  if (at < b * per_batch || at >= (b + 1) * per_batch)
    return invalid_argument("Invalid output gradient index: " + std::to_string(at) + ", " +
                            std::to_string(b * per_batch) + ", " +
                            std::to_string((b + 1) * per_batch));
  *target = at;
  return {};
}

// MaxPoolGradWithArgmax(input, grad, argmax): each grad element added at the input offset
// its argmax names. MaxPoolGradGradWithArgmax(input, grad, argmax): each output takes the
// element of the input-shaped grad its argmax names.
template <class T>
class MaxPoolGradWithArgmaxOp : public StatusKernel {
 public:
  MaxPoolGradWithArgmaxOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c), grad_grad_(c.def.op == "MaxPoolGradGradWithArgmax") {
    *s = read_argmax_pool_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& grad = ctx.input(1);
    const Tensor& argmax_t = ctx.input(2);
    auto geo = with_argmax_geometry(input, grad, argmax_t, attrs_, grad_grad_);
    if (!geo.ok()) return geo.status();
    const Pool2DGeometry& g = *geo;
    const std::vector<Index> argmax = detail::index_values(argmax_t);
    const Index per_batch = g.in_rows * g.in_cols * g.depth;
    const Index out_per_batch = g.out_rows * g.out_cols * g.depth;
    const T* gp = grad.data<T>();
    const Shape& out_shape = grad_grad_ ? argmax_t.shape() : input.shape();
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    T* o = out.data<T>();
    std::fill(o, o + out.num_elements(), T());
    for (Index b = 0; b < g.batch; ++b)
      for (Index i = b * out_per_batch; i < (b + 1) * out_per_batch; ++i) {
        Index target = 0;
        ACTORFLOW_RETURN_IF_ERROR(
            argmax_target(argmax, i, b, per_batch, attrs_.include_batch_in_index, &target));
        if (grad_grad_)
          o[i] = gp[target];
        else
          o[target] = add_values(o[target], gp[i]);
      }
    return {};
  }

 private:
  bool grad_grad_ = false;
  ArgmaxPoolAttrs attrs_;
};

// MaxPoolGradGrad(orig_input, orig_output, grad): each output takes the element of the
// input-shaped grad at the first input position of its window equal to orig_output there
// (0 when none is), as MaxPoolingGradGradOp.
template <class T>
class MaxPoolGradGradOp : public StatusKernel {
 public:
  MaxPoolGradGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_argmax_pool_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& orig_output = ctx.input(1);
    const Tensor& grad = ctx.input(2);
    if (input.rank() != 4) return invalid_argument("tensor_in must be 4-dimensional");
    if (orig_output.rank() != 4) return invalid_argument("tensor_out must be 4-dimensional");
    auto geo = argmax_pool_geometry(
        input.shape(), attrs_, "MaxPoolingGradGrad is not yet supported on the depth dimension.");
    if (!geo.ok()) return geo.status();
    const Pool2DGeometry& g = *geo;
    const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
    if (orig_output.shape() != out_shape)
      return invalid_argument("Expected orig_output shape to be " + out_shape.to_string() +
                              ", but got " + orig_output.shape().to_string());
    if (grad.shape() != input.shape())
      return invalid_argument("Expected grad shape to be " + input.shape().to_string() +
                              ", but got " + grad.shape().to_string());
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    T* o = out.data<T>();
    std::fill(o, o + out.num_elements(), T());
    const T* in = input.data<T>();
    const T* y = orig_output.data<T>();
    const T* gp = grad.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const detail::PoolWindow w = detail::pool_window(g, oy, ox);
          const Index out_at = ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
          for (Index c = 0; c < g.depth; ++c) {
            bool found = false;
            for (Index yy = w.y0; yy < w.y1 && !found; ++yy)
              for (Index x = w.x0; x < w.x1 && !found; ++x) {
                const Index at = ((b * g.in_rows + yy) * g.in_cols + x) * g.depth + c;
                if (equal(y[out_at + c], in[at])) {
                  o[out_at + c] = gp[at];
                  found = true;
                }
              }
          }
        }
    return {};
  }

 private:
  ArgmaxPoolAttrs attrs_;
};

template <DilationKind Kind>
struct DilationKernel {
  template <class T>
  using type = DilationOp<Kind, T>;
};

// The real types TensorFlow's CPU kernels register (TF_CALL_REAL_NUMBER_TYPES but half,
// which goes through float where TensorFlow's half kernels do).
template <template <class> class Kernel>
void register_real(KernelRegistry& r, const std::string& op) {
  detail::register_for_types<Kernel, float, double, std::int8_t, std::int16_t, std::int32_t,
                             std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t,
                             std::uint64_t, bfloat16_t>(r, op);
}

template <template <class> class Kernel, class... Ts>
void register_with_argmax(KernelRegistry& r, const std::string& op,
                          const std::vector<DType>& argmax_types) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU",
                                     {{"T", {dtype_of_v<Ts>}}, {"Targmax", argmax_types}})),
   ...);
}

template <template <class> class Kernel>
void register_real_with_argmax(KernelRegistry& r, const std::string& op,
                               const std::vector<DType>& argmax_types) {
  register_with_argmax<Kernel, float, double, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                       std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, bfloat16_t>(
      r, op, argmax_types);
}

}  // namespace

namespace detail {

void register_patches_pool_kernels(KernelRegistry& r) {
  register_real<ExtractPatchesOp>(r, "ExtractImagePatches");
  register_real<ExtractPatchesOp>(r, "ExtractVolumePatches");
  // Patches are copies: float16 directly, and ExtractImagePatches' complex types.
  detail::register_for_types<ExtractPatchesOp, half_t>(r, "ExtractVolumePatches");
  detail::register_for_types<ExtractPatchesOp, half_t, std::complex<float>, std::complex<double>>(
      r, "ExtractImagePatches");
  register_real<DilationKernel<DilationKind::forward>::type>(r, "Dilation2D");
  register_real<DilationKernel<DilationKind::backprop_input>::type>(r, "Dilation2DBackpropInput");
  register_real<DilationKernel<DilationKind::backprop_filter>::type>(r, "Dilation2DBackpropFilter");
  register_real<MaxPoolGradGradOp>(r, "MaxPoolGradGrad");
  // Targmax is read at run time. TensorFlow's CPU MaxPoolGradWithArgmax takes int64 only;
  // MaxPoolGradGradWithArgmax has no CPU kernel there (this one takes both, as its GPU one).
  register_real_with_argmax<MaxPoolWithArgmaxOp>(r, "MaxPoolWithArgmax", detail::kIndexTypes);
  register_real_with_argmax<MaxPoolGradWithArgmaxOp>(r, "MaxPoolGradWithArgmax", {DType::int64});
  register_real_with_argmax<MaxPoolGradWithArgmaxOp>(r, "MaxPoolGradGradWithArgmax",
                                                     detail::kIndexTypes);
  // float16 through the float kernels, as TensorFlow's half kernels.
  auto half = [&](const char* op, const KernelFactory& f, DTypeConstraints more = {}) {
    register_via_float<half_t>(r, op, f, "T", more);
  };
  half("MaxPoolGradGrad", make_kernel_def<MaxPoolGradGradOp<float>>("", "").factory);
  half("MaxPoolWithArgmax", make_kernel_def<MaxPoolWithArgmaxOp<float>>("", "").factory,
       {{"Targmax", detail::kIndexTypes}});
  half("MaxPoolGradWithArgmax", make_kernel_def<MaxPoolGradWithArgmaxOp<float>>("", "").factory,
       {{"Targmax", {DType::int64}}});
  half("Dilation2D",
       make_kernel_def<DilationKernel<DilationKind::forward>::type<float>>("", "").factory);
  half("Dilation2DBackpropInput",
       make_kernel_def<DilationKernel<DilationKind::backprop_input>::type<float>>("", "").factory);
  half("Dilation2DBackpropFilter",
       make_kernel_def<DilationKernel<DilationKind::backprop_filter>::type<float>>("", "").factory);
}

}  // namespace detail

}  // namespace af
