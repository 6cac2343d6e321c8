// Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D, AvgPool3D, MaxPool3DGrad,
// AvgPool3DGrad and MaxPool3DGradGrad: CPU kernels with TensorFlow's checks and messages
// (conv_ops_3d.cc, conv_grad_ops_3d.cc, pooling_ops_3d.cc). Their definitions are in
// ops/src/defs/conv3d_ops.cpp.
//
// NDHWC only, and dilation 1 only, as TensorFlow's CPU kernels. The convolutions go through
// an im2col buffer per image and the GEMM backend (cpu_gemm.hpp), as TensorFlow's custom
// backprop kernels do; the pooling gradients reproduce TensorFlow's CPU loops, windows clipped
// by GetBroadcastSize included.
#include "actorflow/ops/conv3d_ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "cpu_gemm.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::register_for_types;
using detail::StatusKernel;
using Dims3 = std::array<Index, 3>;  // planes, rows, cols

// -- window arithmetic -----------------------------------------------------------------------

// GetWindowedOutputSizeVerbose: the output size of one spatial dimension and the padding
// before it.
Status windowed(Index in, Index filter, Index dilation, Index stride, const std::string& padding,
                Index* out, Index* pad_before) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1)
    return invalid_argument("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  const Index effective = (filter - 1) * dilation + 1;
  *pad_before = 0;
  if (padding == "VALID") {
    *out = (in - effective + stride) / stride;
  } else {
    *out = (in + stride - 1) / stride;
    *pad_before = std::max<Index>(0, (*out - 1) * stride + effective - in) / 2;
  }
  if (*out < 0)
    return invalid_argument("Computed output size would be negative: " + std::to_string(*out) +
                            " [input_size: " + std::to_string(in) +
                            ", effective_filter_size: " + std::to_string(effective) +
                            ", stride: " + std::to_string(stride) + "]");
  return {};
}

// The index of dimension `c` ('N', '0', '1', '2' or 'C') in a 5-D list of `format`.
std::size_t dim_index(bool ncdhw, char c) {
  switch (c) {
    case 'N':
      return 0;
    case 'C':
      return ncdhw ? 1 : 4;
    default:
      return static_cast<std::size_t>(c - '0') + (ncdhw ? 2 : 1);
  }
}

// A 1-D int32/int64 shape tensor as a shape, with TensorShapeUtils::MakeShape's messages.
Status make_shape(const Tensor& t, const std::string& not_vector, Shape* out) {
  if (t.rank() != 1) return invalid_argument(not_vector);
  const std::vector<Index> v = index_values(t);
  for (Index d : v)
    if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
  *out = Shape(std::vector<std::int64_t>(v.begin(), v.end()));
  return {};
}

// -- the convolutions --------------------------------------------------------------------------

// The sizes of one 3-D convolution, NDHWC, and its im2col patch.
struct ConvGeometry {
  Index batch = 0, in_depth = 0, out_depth = 0;
  Dims3 in{}, filter{}, out{}, stride{}, pad{};

  Index in_image() const { return in[0] * in[1] * in[2] * in_depth; }
  Index out_spatial() const { return out[0] * out[1] * out[2]; }
  Index patch() const { return filter[0] * filter[1] * filter[2] * in_depth; }
};

// Calls `f(at)` for each cell of one image's im2col buffer in order (row o an output
// position, holding the filter-shaped window of the input at it): `at` the offset of the
// input position in the image (channel 0), -1 for a position outside it.
template <class F>
void for_each_patch_cell(const ConvGeometry& g, F&& f) {
  for (Index op = 0; op < g.out[0]; ++op)
    for (Index orow = 0; orow < g.out[1]; ++orow)
      for (Index ocol = 0; ocol < g.out[2]; ++ocol)
        for (Index kp = 0; kp < g.filter[0]; ++kp) {
          const Index ip = op * g.stride[0] - g.pad[0] + kp;
          for (Index kr = 0; kr < g.filter[1]; ++kr) {
            const Index ir = orow * g.stride[1] - g.pad[1] + kr;
            for (Index kc = 0; kc < g.filter[2]; ++kc) {
              const Index ic = ocol * g.stride[2] - g.pad[2] + kc;
              if (ip >= 0 && ip < g.in[0] && ir >= 0 && ir < g.in[1] && ic >= 0 && ic < g.in[2])
                f(((ip * g.in[1] + ir) * g.in[2] + ic) * g.in_depth);
              else
                f(Index{-1});
            }
          }
        }
}

// One image's patches, zeros outside the input (TensorFlow's Im2col).
template <class T>
void im2col(const ConvGeometry& g, const T* image, T* col) {
  for_each_patch_cell(g, [&](Index at) {
    if (at >= 0)
      std::copy_n(image + at, g.in_depth, col);
    else
      std::fill_n(col, g.in_depth, T(0));
    col += g.in_depth;
  });
}

// The inverse: each patch row added back to the input positions it came from (TensorFlow's
// Col2im); `image` starts zeroed.
template <class T>
void col2im(const ConvGeometry& g, const T* col, T* image) {
  for_each_patch_cell(g, [&](Index at) {
    if (at >= 0) {
      T* dst = image + at;
      for (Index d = 0; d < g.in_depth; ++d) dst[d] += col[d];
    }
    col += g.in_depth;
  });
}

// out[m,n] = op(a) * op(b), row-major, through the GEMM backend, else a direct loop.
template <class T>
void gemm(const OpKernelContext& ctx, const T* a, const T* b, T* out, Index m, Index n, Index k,
          bool ta, bool tb) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill_n(out, m * n, T(0));
    return;
  }
  const int threads = std::max(1, ctx.intra_op_threads);
  if constexpr (std::is_same_v<T, float>) {
    if (detail::cpu_gemm(a, b, out, m, n, k, ta, tb, threads, ctx.eigen_device)) return;
  } else {
    if (detail::cpu_gemm(a, b, out, m, n, k, ta, tb, threads)) return;
  }
  std::fill_n(out, m * n, T(0));
  for (Index i = 0; i < m; ++i) {
    T* row = out + i * n;
    for (Index p = 0; p < k; ++p) {
      const T av = ta ? a[p * m + i] : a[i * k + p];
      for (Index j = 0; j < n; ++j) row[j] += av * (tb ? b[j * k + p] : b[p * n + j]);
    }
  }
}

// The attrs of Conv3D and its two backprop ops, spatial values in planes, rows, cols order.
struct ConvAttrs {
  std::string padding, data_format = "NDHWC";
  bool ncdhw = false;
  Dims3 stride{1, 1, 1}, dilation{1, 1, 1};
};

// Conv3DOp's constructor checks.
Status read_conv3d_attrs(OpKernelConstruction& c, ConvAttrs* a) {
  c.get_attr("data_format", &a->data_format);
  if (a->data_format != "NDHWC" && a->data_format != "NCDHW")
    return invalid_argument("Invalid data format");
  a->ncdhw = a->data_format == "NCDHW";
  std::vector<std::int64_t> strides, dilations{1, 1, 1, 1, 1};
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 5)
    return invalid_argument("Sliding window strides field must specify 5 dimensions");
  auto at = [&](const std::vector<std::int64_t>& v, char d) { return v[dim_index(a->ncdhw, d)]; };
  if (at(strides, 'N') != 1 || at(strides, 'C') != 1)
    return invalid_argument(
        "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (at(strides, '0') <= 0 || at(strides, '1') <= 0 || at(strides, '2') <= 0)
    return invalid_argument("Spatial strides should be larger than 0.");
  c.get_attr("dilations", &dilations);
  if (dilations.size() != 5)
    return invalid_argument("Dilation rates field must specify 5 dimensions");
  if (at(dilations, 'N') != 1 || at(dilations, 'C') != 1)
    return invalid_argument(
        "Current implementation does not yet support dilation rates in the batch and depth "
        "dimensions.");
  if (at(dilations, '0') <= 0 || at(dilations, '1') <= 0 || at(dilations, '2') <= 0)
    return invalid_argument("Dilated rates should be larger than 0.");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  for (std::size_t i = 0; i < 3; ++i) {
    a->stride[i] = at(strides, static_cast<char>('0' + i));
    a->dilation[i] = at(dilations, static_cast<char>('0' + i));
  }
  return {};
}

// Conv3DCustomBackprop{Input,Filter}Op's constructor checks (`v2_label`:
// "Conv3DBackpropInputOpV2" or "Conv3DBackpropFilterOpV2").
Status read_backprop_attrs(OpKernelConstruction& c, const char* v2_label, ConvAttrs* a) {
  c.get_attr("data_format", &a->data_format);
  if (a->data_format != "NDHWC" && a->data_format != "NCDHW")
    return invalid_argument("Invalid data format");
  if (a->data_format != "NDHWC")
    return invalid_argument(std::string(v2_label) + " only supports NDHWC on the CPU.");
  std::vector<std::int64_t> strides, dilations{1, 1, 1, 1, 1};
  c.get_attr("dilations", &dilations);
  if (dilations.size() != 5)
    return invalid_argument("Dilation rates field must specify 5 dimensions");
  if (dilations[4] != 1 || dilations[0] != 1)
    return invalid_argument(
        "Current implementation does not yet support dilation rates in the batch and depth "
        "dimensions.");
  if (dilations[1] != 1 || dilations[2] != 1 || dilations[3] != 1)
    return invalid_argument(
        "Current CPU implementation does not yet support dilation rates larger than 1.");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 5)
    return invalid_argument("Sliding window strides field must specify 5 dimensions");
  if (strides[4] != 1 || strides[0] != 1)
    return invalid_argument(
        "Current implementation does not yet support strides in the batch and depth dimensions.");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  for (std::size_t i = 0; i < 3; ++i) a->stride[i] = strides[i + 1];
  return {};
}

// The backprops' shape checks and ConvBackpropComputeDimensions (`label`:
// "Conv3DBackpropInputOp" or "Conv3DBackpropFilterOp"), all NDHWC.
Status backprop_geometry(const std::string& label, const ConvAttrs& a, const Shape& input,
                         const Shape& filter, const Shape& dy, ConvGeometry* g) {
  if (input.rank() != 5) return invalid_argument("input tensor must have 5 dimensions");
  if (filter.rank() != 5) return invalid_argument("filter_sizes tensor must have 5 dimensions");
  if (dy.rank() != 5) return invalid_argument("out_backprop tensor must have 5 dimensions");
  if (input.dim(4) != filter.dim(3))
    return invalid_argument("input and filter_sizes must have the same number of channels. Got " +
                            std::to_string(input.dim(4)) + " for input and " +
                            std::to_string(filter.dim(3)) + " for filter_sizes");
  if (dy.dim(4) != filter.dim(4))
    return invalid_argument(
        "out_backprop and filter_sizes must have the same number of channels. Got " +
        std::to_string(dy.dim(4)) + " for out_backprop and " + std::to_string(filter.dim(4)) +
        " for filter_sizes");
  g->batch = input.dim(0);
  if (g->batch != dy.dim(0))
    return invalid_argument(label + ": input and out_backprop must have the same batch size." +
                            " Input batch: " + std::to_string(g->batch) +
                            ", outbackprop batch: " + std::to_string(dy.dim(0)) + ", batch_dim: 0");
  g->in_depth = input.dim(4);
  if (filter.dim(3) <= 0)
    return invalid_argument(label + ": filter depth must be strictly greated than zero");
  if (g->in_depth % filter.dim(3) != 0)
    return invalid_argument(label + ": input depth must be evenly divisible by filter depth");
  g->out_depth = filter.dim(4);
  if (g->out_depth != dy.dim(4))
    return invalid_argument(label + ": filter and out_backprop must have the same out_depth");
  for (std::size_t i = 0; i < 3; ++i) {
    const int d = static_cast<int>(i) + 1;
    g->in[i] = input.dim(d);
    g->filter[i] = filter.dim(static_cast<int>(i));
    g->stride[i] = a.stride[i];
    Index out = 0;
    ACTORFLOW_RETURN_IF_ERROR(
        windowed(g->in[i], g->filter[i], 1, g->stride[i], a.padding, &out, &g->pad[i]));
    g->out[i] = dy.dim(d);
    if (g->out[i] != out)
      return invalid_argument(
          label + ": Size of out_backprop doesn't match computed: actual = " +
          std::to_string(g->out[i]) + ", computed = " + std::to_string(out) +
          " spatial_dim: " + std::to_string(d) + " input: " + std::to_string(g->in[i]) +
          " filter: " + std::to_string(g->filter[i]) + " output: " + std::to_string(g->out[i]) +
          " stride: " + std::to_string(g->stride[i]) + " dilation: 1");
  }
  return {};
}

// The custom kernels' refusal of a product without elements.
Status check_work(const ConvGeometry& g) {
  const Index work =
      g.out_spatial() * g.out_depth + g.patch() * g.out_depth + g.out_spatial() * g.patch();
  if (work <= 0)
    return invalid_argument(
        "input, filter_sizes and out_backprop tensors must all have at least 1 element");
  return {};
}

template <class T>
class Conv3DOp : public StatusKernel {
 public:
  Conv3DOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_conv3d_attrs(c, &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    if (input.rank() != 5) return invalid_argument("input must be 5-dimensional");
    if (filter.rank() != 5) return invalid_argument("filter must be 5-dimensional");
    const bool ncdhw = attrs_.ncdhw;
    auto in_dim = [&](char d) { return input.shape().dim(static_cast<int>(dim_index(ncdhw, d))); };
    ConvGeometry g;
    g.in_depth = in_dim('C');
    g.batch = in_dim('N');
    const Index filter_depth = filter.shape().dim(3);
    g.out_depth = filter.shape().dim(4);
    if (filter_depth == 0) return invalid_argument("filter_depth must be non-zero");
    if (g.in_depth % filter_depth != 0)
      return invalid_argument("Input depth must be evenly divisible by filter depth: " +
                              std::to_string(g.in_depth) + " vs " + std::to_string(filter_depth));
    if (filter.num_elements() <= 0)
      return invalid_argument(
          "filter must not have zero elements (i.e. all dimensions must be non-zero)");
    for (std::size_t i = 0; i < 3; ++i) {
      g.in[i] = in_dim(static_cast<char>('0' + i));
      g.filter[i] = filter.shape().dim(static_cast<int>(i));
      g.stride[i] = attrs_.stride[i];
      ACTORFLOW_RETURN_IF_ERROR(windowed(g.in[i], g.filter[i], attrs_.dilation[i], g.stride[i],
                                         attrs_.padding, &g.out[i], &g.pad[i]));
    }
    const Shape out_shape = ncdhw ? Shape{g.batch, g.out_depth, g.out[0], g.out[1], g.out[2]}
                                  : Shape{g.batch, g.out[0], g.out[1], g.out[2], g.out_depth};
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    if (out_shape.num_elements() == 0) return {};
    // LaunchConvOp<CPUDevice>'s checks, after the output is allocated.
    if (ncdhw)
      return invalid_argument(
          "CPU implementation of Conv3D currently only supports the NHWC tensor format.");
    if (attrs_.dilation != Dims3{1, 1, 1})
      return invalid_argument(
          "CPU implementation of Conv3D currently only supports dilated rates of 1.");
    if (filter_depth != g.in_depth)
      return invalid_argument("Number of channels in filter (" + std::to_string(filter_depth) +
                              ") must match last dimension of input (" +
                              std::to_string(g.in_depth) + ")");
    const Index out_spatial = g.out_spatial(), patch = g.patch();
    std::vector<T> col(static_cast<std::size_t>(out_spatial * patch));
    const T* in = input.data<T>();
    const T* w = filter.data<T>();
    T* out = output.data<T>();
    for (Index b = 0; b < g.batch; ++b) {
      im2col(g, in + b * g.in_image(), col.data());
      gemm(ctx, col.data(), w, out + b * out_spatial * g.out_depth, out_spatial, g.out_depth, patch,
           false, false);
    }
    return {};
  }

 private:
  ConvAttrs attrs_;
};

// What Conv3DBackpropInputV2 (input_sizes, filter, out_backprop) and Conv3DBackpropFilterV2
// (input, filter_sizes, out_backprop) share: the attrs, and the shape their sizes input gives
// with the geometry of the convolution. `Filter`: the filter's gradient.
template <bool Filter>
class Conv3DBackpropKernel : public StatusKernel {
 public:
  Conv3DBackpropKernel(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_backprop_attrs(c, Filter ? "Conv3DBackpropFilterOpV2" : "Conv3DBackpropInputOpV2",
                             &attrs_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  // The sizes input as `*sized` (the filter's shape or the input's), and the geometry.
  Status geometry(const OpKernelContext& ctx, Shape* sized, ConvGeometry* g) const {
    const Tensor& sizes = ctx.input(Filter ? 1 : 0);
    const Tensor& other = ctx.input(Filter ? 0 : 1);
    const Tensor& dy = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(make_shape(
        sizes,
        Filter ? "filter_sizes shape must be rank 1 but is rank " + std::to_string(sizes.rank())
               : "shape must be a vector of {int32,int64}, got shape " + sizes.shape().to_string(),
        sized));
    return backprop_geometry(Filter ? "Conv3DBackpropFilterOp" : "Conv3DBackpropInputOp", attrs_,
                             Filter ? other.shape() : *sized, Filter ? *sized : other.shape(),
                             dy.shape(), g);
  }

 private:
  ConvAttrs attrs_;
};

template <class T>
class Conv3DBackpropInputOp : public Conv3DBackpropKernel<false> {
 public:
  using Conv3DBackpropKernel<false>::Conv3DBackpropKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    Shape input_shape;
    ConvGeometry g;
    ACTORFLOW_RETURN_IF_ERROR(geometry(ctx, &input_shape, &g));
    Tensor& dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape);
    ACTORFLOW_RETURN_IF_ERROR(check_work(g));
    if (input_shape.num_elements() == 0) return {};
    const Index out_spatial = g.out_spatial(), patch = g.patch();
    std::vector<T> col(static_cast<std::size_t>(out_spatial * patch));
    const T* w = ctx.input(1).data<T>();
    const T* grad = ctx.input(2).data<T>();
    T* out = dx.data<T>();
    for (Index b = 0; b < g.batch; ++b) {
      // col[o, patch] = dy[o, :] . filter[patch, :]
      gemm(ctx, grad + b * out_spatial * g.out_depth, w, col.data(), out_spatial, patch,
           g.out_depth, false, true);
      col2im(g, col.data(), out + b * g.in_image());
    }
    return {};
  }
};

template <class T>
class Conv3DBackpropFilterOp : public Conv3DBackpropKernel<true> {
 public:
  using Conv3DBackpropKernel<true>::Conv3DBackpropKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Shape filter_shape;
    ConvGeometry g;
    ACTORFLOW_RETURN_IF_ERROR(geometry(ctx, &filter_shape, &g));
    Tensor& dw = ctx.allocate_output(0, dtype_of_v<T>, filter_shape);
    if (input.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(check_work(g));
    const Index out_spatial = g.out_spatial(), patch = g.patch();
    const Index filter_size = patch * g.out_depth;
    if (filter_size == 0) return {};
    std::vector<T> col(static_cast<std::size_t>(out_spatial * patch));
    std::vector<T> image(static_cast<std::size_t>(filter_size));
    const T* in = input.data<T>();
    const T* grad = ctx.input(2).data<T>();
    T* out = dw.data<T>();
    for (Index b = 0; b < g.batch; ++b) {
      // dw[patch, :] += col[:, patch]^T . dy[:, :]
      im2col(g, in + b * g.in_image(), col.data());
      gemm(ctx, col.data(), grad + b * out_spatial * g.out_depth, image.data(), patch, g.out_depth,
           out_spatial, true, false);
      for (Index i = 0; i < filter_size; ++i) out[i] += image[static_cast<std::size_t>(i)];
    }
    return {};
  }
};

// -- pooling ---------------------------------------------------------------------------------

// The attrs of the pooling kernels; windows and strides in planes, rows, cols order.
struct PoolAttrs {
  std::string padding, data_format = "NDHWC";
  Dims3 window{1, 1, 1}, stride{1, 1, 1};
};

// Pooling3DOp's, MaxPooling3dGradOp's and AvgPooling3dGradOp's constructor checks;
// `cpu_message` is the refusal of NCDHW.
Status read_pool_attrs(OpKernelConstruction& c, const std::string& cpu_message, bool forward,
                       PoolAttrs* a) {
  c.get_attr("data_format", &a->data_format);
  if (a->data_format != "NDHWC" && a->data_format != "NCDHW")
    return invalid_argument("Invalid data format");
  if (a->data_format != "NDHWC") return invalid_argument(cpu_message);
  std::vector<std::int64_t> ksize, strides;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &ksize));
  if (ksize.size() != 5)
    return invalid_argument("Sliding window ksize field must specify 5 dimensions");
  if (forward)
    for (auto k : ksize)
      if (k <= 0)
        return invalid_argument("Sliding window ksize field must have non-negative dimensions");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
  if (strides.size() != 5)
    return invalid_argument("Sliding window stride field must specify 5 dimensions");
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  if (ksize[0] != 1 || strides[0] != 1)
    return unimplemented("Pooling is not yet supported on the batch dimension.");
  if (ksize[4] != 1 || strides[4] != 1)
    return unimplemented("Pooling is not yet supported on the depth dimension.");
  for (std::size_t i = 0; i < 3; ++i) {
    a->window[i] = ksize[i + 1];
    a->stride[i] = strides[i + 1];
  }
  return {};
}

// The sizes of one 3-D pooling of an NDHWC input.
struct PoolGeometry {
  Index batch = 0, depth = 0;
  Dims3 in{}, out{}, pad{};
  Shape out_shape() const { return Shape{batch, out[0], out[1], out[2], depth}; }
};

// Get3dOutputSize for a 5-D NDHWC `input`.
Status pool_geometry(const Shape& input, const PoolAttrs& a, PoolGeometry* g) {
  g->batch = input.dim(0);
  g->depth = input.dim(4);
  for (std::size_t i = 0; i < 3; ++i) {
    g->in[i] = input.dim(static_cast<int>(i) + 1);
    ACTORFLOW_RETURN_IF_ERROR(
        windowed(g->in[i], a.window[i], 1, a.stride[i], a.padding, &g->out[i], &g->pad[i]));
  }
  return {};
}

// GetBroadcastSize: the input range [*start, *start + *size) the pooling gradients spread
// output `index` over.
Status broadcast_size(Index index, Index in_size, Index ksize, Index stride, Index pad,
                      Index* start, Index* size) {
  if (index * stride > in_size)
    return invalid_argument("index * stride must be less than or equal to input size");
  *start = index * stride;
  *size = ksize;
  if (*start < pad) {
    *size = ksize + *start - pad;
    *start = 0;
  } else {
    *start -= pad;
  }
  if (*start + ksize > in_size) *size = std::min(in_size - *start, ksize);
  return {};
}

// Calls `f(b, o, start, size)` for each output window of the pooling gradients in
// TensorFlow's order (columns outermost, then rows, then planes), `o` the output position
// (planes, rows, cols) and `start`/`size` its GetBroadcastSize range per dimension.
template <class F>
Status for_each_broadcast(const PoolGeometry& g, const PoolAttrs& a, const Dims3& out, F&& f) {
  Dims3 start{}, size{};
  for (Index c = 0; c < out[2]; ++c) {
    ACTORFLOW_RETURN_IF_ERROR(
        broadcast_size(c, g.in[2], a.window[2], a.stride[2], g.pad[2], &start[2], &size[2]));
    for (Index r = 0; r < out[1]; ++r) {
      ACTORFLOW_RETURN_IF_ERROR(
          broadcast_size(r, g.in[1], a.window[1], a.stride[1], g.pad[1], &start[1], &size[1]));
      for (Index p = 0; p < out[0]; ++p) {
        ACTORFLOW_RETURN_IF_ERROR(
            broadcast_size(p, g.in[0], a.window[0], a.stride[0], g.pad[0], &start[0], &size[0]));
        if (size[0] > 0 && size[1] > 0 && size[2] > 0) f(Dims3{p, r, c}, start, size);
      }
    }
  }
  return {};
}

enum class PoolKind { max, avg };

// MaxPool3D and AvgPool3D (Eigen's CuboidMaxPooling / CuboidAvgPooling): the maximum, or the
// mean of the elements inside the input, of each window.
template <PoolKind Kind, class T>
class Pool3DOp : public StatusKernel {
 public:
  Pool3DOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_pool_attrs(c, "Default Pooling3DOp only supports NDHWC on device type CPU", true,
                         &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 5) return invalid_argument("tensor_in must be 5-dimensional");
    PoolGeometry g;
    ACTORFLOW_RETURN_IF_ERROR(pool_geometry(input.shape(), attrs_, &g));
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, g.out_shape());
    if (output.num_elements() == 0) return {};
    const T* in = input.data<T>();
    T* out = output.data<T>();
    std::vector<T> acc(static_cast<std::size_t>(g.depth));
    for (Index b = 0; b < g.batch; ++b)
      for (Index op = 0; op < g.out[0]; ++op)
        for (Index orow = 0; orow < g.out[1]; ++orow)
          for (Index ocol = 0; ocol < g.out[2]; ++ocol) {
            const Dims3 o{op, orow, ocol};
            Dims3 lo{}, hi{};
            for (std::size_t i = 0; i < 3; ++i) {
              lo[i] = std::max<Index>(0, o[i] * attrs_.stride[i] - g.pad[i]);
              hi[i] =
                  std::min<Index>(g.in[i], o[i] * attrs_.stride[i] - g.pad[i] + attrs_.window[i]);
            }
            std::fill(acc.begin(), acc.end(),
                      Kind == PoolKind::max ? std::numeric_limits<T>::lowest() : T(0));
            for (Index p = lo[0]; p < hi[0]; ++p)
              for (Index r = lo[1]; r < hi[1]; ++r)
                for (Index c = lo[2]; c < hi[2]; ++c) {
                  const T* src = in + (((b * g.in[0] + p) * g.in[1] + r) * g.in[2] + c) * g.depth;
                  for (Index d = 0; d < g.depth; ++d) {
                    T& a = acc[static_cast<std::size_t>(d)];
                    if constexpr (Kind == PoolKind::max)
                      a = src[d] > a ? src[d] : a;
                    else
                      a += src[d];
                  }
                }
            T* dst = out + (((b * g.out[0] + op) * g.out[1] + orow) * g.out[2] + ocol) * g.depth;
            const Index count = std::max<Index>(0, hi[0] - lo[0]) *
                                std::max<Index>(0, hi[1] - lo[1]) *
                                std::max<Index>(0, hi[2] - lo[2]);
            for (Index d = 0; d < g.depth; ++d)
              dst[d] = Kind == PoolKind::max || count == 0
                           ? acc[static_cast<std::size_t>(d)]
                           : acc[static_cast<std::size_t>(d)] / static_cast<T>(count);
          }
    return {};
  }

 private:
  PoolAttrs attrs_;
};

template <class T>
using MaxPool3DOp = Pool3DOp<PoolKind::max, T>;
template <class T>
using AvgPool3DOp = Pool3DOp<PoolKind::avg, T>;

// "Expected <what> shape to be [..], but got [..]".
Status expect_shape(const char* what, const Shape& want, const Shape& got) {
  if (want == got) return {};
  return invalid_argument(std::string("Expected ") + what + " shape to be " + want.to_string() +
                          ", but got " + got.to_string());
}

// MaxPool3DGrad(orig_input, orig_output, grad): TensorFlow's CPU loop, each window's gradient
// to every element of its broadcast range within 1e-5 of the window's output.
template <class T>
class MaxPool3DGradOp : public StatusKernel {
 public:
  MaxPool3DGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_pool_attrs(c, "Default MaxPooling3dGradOp only supports NDHWC on device type CPU",
                         false, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.input(1);
    const Tensor& grad = ctx.input(2);
    if (input.rank() != 5) return invalid_argument("tensor_in must be 5-dimensional");
    if (output.rank() != 5) return invalid_argument("tensor_out must be 5-dimensional");
    if (grad.rank() != 5) return invalid_argument("out_backprop must be 5-dimensional");
    PoolGeometry g;
    ACTORFLOW_RETURN_IF_ERROR(pool_geometry(input.shape(), attrs_, &g));
    ACTORFLOW_RETURN_IF_ERROR(expect_shape("orig_output", g.out_shape(), output.shape()));
    ACTORFLOW_RETURN_IF_ERROR(expect_shape("grad", g.out_shape(), grad.shape()));
    Tensor& dx = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    if (input.num_elements() == 0 || grad.num_elements() == 0) return {};
    const T* in = input.data<T>();
    const T* out = output.data<T>();
    const T* gp = grad.data<T>();
    T* d = dx.data<T>();
    return for_each_broadcast(
        g, attrs_, g.out, [&](const Dims3& o, const Dims3& s, const Dims3& n) {
          for (Index b = 0; b < g.batch; ++b) {
            const Index at =
                (((b * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]) * g.depth;
            for (Index p = s[0]; p < s[0] + n[0]; ++p)
              for (Index r = s[1]; r < s[1] + n[1]; ++r)
                for (Index c = s[2]; c < s[2] + n[2]; ++c) {
                  const Index i = (((b * g.in[0] + p) * g.in[1] + r) * g.in[2] + c) * g.depth;
                  for (Index k = 0; k < g.depth; ++k)
                    if (std::abs(in[i + k] - out[at + k]) < T(1e-5)) d[i + k] += gp[at + k];
                }
          }
        });
  }

 private:
  PoolAttrs attrs_;
};

// AvgPool3DGrad(orig_input_shape, grad): TensorFlow's CPU loop, each gradient times 1 / (the
// broadcast range's size) added over the range, for the positions `grad` has.
template <class T>
class AvgPool3DGradOp : public StatusKernel {
 public:
  AvgPool3DGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_pool_attrs(c, "Default AvgPooling3dGradOp only supports NDHWC on device type CPU",
                         false, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& sizes = ctx.input(0);
    const Tensor& grad = ctx.input(1);
    if (sizes.rank() != 1 || sizes.num_elements() != 5)
      return invalid_argument("tensor_in must be 1-dimensional and 5 elements");
    if (grad.rank() != 5) return invalid_argument("out_backprop must be 5-dimensional");
    const std::vector<Index> v = index_values(sizes);
    for (Index s : v)
      if (s < 0) return invalid_argument("Expected a non-negative size, got " + std::to_string(s));
    const Shape input_shape(std::vector<std::int64_t>(v.begin(), v.end()));
    Tensor& dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape);
    PoolGeometry g;
    ACTORFLOW_RETURN_IF_ERROR(pool_geometry(input_shape, attrs_, &g));
    if (g.batch != grad.shape().dim(0))
      return invalid_argument(
          "Expected first dimension of tensor_in_shape and out_backprop to match, got " +
          std::to_string(g.batch) + " and " + std::to_string(grad.shape().dim(0)));
    if (g.depth != grad.shape().dim(4))
      return invalid_argument(
          "Expected last dimension of tensor_in_shape and out_backprop to match, got " +
          std::to_string(g.depth) + " and " + std::to_string(grad.shape().dim(4)));
    if (input_shape.num_elements() == 0 || grad.num_elements() == 0) return {};
    const Dims3 grad_out{grad.shape().dim(1), grad.shape().dim(2), grad.shape().dim(3)};
    const T* gp = grad.data<T>();
    T* d = dx.data<T>();
    return for_each_broadcast(
        g, attrs_, grad_out, [&](const Dims3& o, const Dims3& s, const Dims3& n) {
          // TensorFlow multiplies by the reciprocal of the range's size, computed in float.
          const float scale = 1.0f / static_cast<float>(n[0] * n[1] * n[2]);
          for (Index b = 0; b < g.batch; ++b) {
            const Index at =
                (((b * grad_out[0] + o[0]) * grad_out[1] + o[1]) * grad_out[2] + o[2]) * g.depth;
            for (Index p = s[0]; p < s[0] + n[0]; ++p)
              for (Index r = s[1]; r < s[1] + n[1]; ++r)
                for (Index c = s[2]; c < s[2] + n[2]; ++c) {
                  T* dst = d + (((b * g.in[0] + p) * g.in[1] + r) * g.in[2] + c) * g.depth;
                  for (Index k = 0; k < g.depth; ++k) dst[k] += gp[at + k] * static_cast<T>(scale);
                }
          }
        });
  }

 private:
  PoolAttrs attrs_;
};

// MaxPool3DGradGrad(orig_input, orig_output, grad): each window takes `grad` at the first
// input of its clipped window (planes, rows, cols order) equal to its output.
template <class T>
class MaxPool3DGradGradOp : public StatusKernel {
 public:
  MaxPool3DGradGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = read(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.input(1);
    const Tensor& grad = ctx.input(2);
    if (input.rank() != 5) return invalid_argument("tensor_in must be 5-dimensional");
    if (output.rank() != 5) return invalid_argument("tensor_out must be 5-dimensional");
    if (grad.rank() != 5) return invalid_argument("out_grad_backprop must be 5-dimensional");
    PoolGeometry g;
    if (!ncdhw_) {  // NCDHW is refused below, after the checks that hold for any format
      ACTORFLOW_RETURN_IF_ERROR(pool_geometry(input.shape(), attrs_, &g));
      ACTORFLOW_RETURN_IF_ERROR(expect_shape("orig_output", g.out_shape(), output.shape()));
      ACTORFLOW_RETURN_IF_ERROR(expect_shape("grad", input.shape(), grad.shape()));
    }
    Tensor& result = ctx.allocate_output(0, dtype_of_v<T>, output.shape());
    const std::array<std::pair<const char*, const Tensor*>, 3> named{
        {{"tensor_in", &input}, {"tensor_out", &output}, {"out_grad_backprop", &grad}}};
    for (const auto& [what, t] : named)
      if (t->num_elements() == 0)
        return invalid_argument(std::string("received empty tensor ") + what +
                                ": Tensor<type: " + std::string(data_type_string(t->dtype())) +
                                " shape: " + t->shape().to_string() + " values: >");
    if (ncdhw_)
      return invalid_argument(
          "Default MaxPooling3dGradGradOp only supportsNDHWC on CPU device type");
    const T* in = input.data<T>();
    const T* out = output.data<T>();
    const T* gp = grad.data<T>();
    T* r = result.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index op = 0; op < g.out[0]; ++op)
        for (Index orow = 0; orow < g.out[1]; ++orow)
          for (Index ocol = 0; ocol < g.out[2]; ++ocol) {
            const Dims3 o{op, orow, ocol};
            Dims3 lo{}, hi{};
            for (std::size_t i = 0; i < 3; ++i) {
              const Index start = o[i] * attrs_.stride[i] - g.pad[i];
              hi[i] = std::min<Index>(start + attrs_.window[i], g.in[i]);
              lo[i] = std::max<Index>(start, 0);
            }
            const Index at = (((b * g.out[0] + op) * g.out[1] + orow) * g.out[2] + ocol) * g.depth;
            for (Index d = 0; d < g.depth; ++d) {
              bool found = false;
              for (Index p = lo[0]; p < hi[0] && !found; ++p)
                for (Index rr = lo[1]; rr < hi[1] && !found; ++rr)
                  for (Index c = lo[2]; c < hi[2] && !found; ++c) {
                    const Index i =
                        (((b * g.in[0] + p) * g.in[1] + rr) * g.in[2] + c) * g.depth + d;
                    if (out[at + d] == in[i]) {
                      r[at + d] = gp[i];
                      found = true;
                    }
                  }
            }
          }
    return {};
  }

 private:
  // MaxPooling3dGradGradOp's constructor: no CPU format check (its launch has one).
  Status read(OpKernelConstruction& c) {
    c.get_attr("data_format", &attrs_.data_format);
    if (attrs_.data_format != "NDHWC" && attrs_.data_format != "NCDHW")
      return invalid_argument("Invalid data format");
    ncdhw_ = attrs_.data_format == "NCDHW";
    std::vector<std::int64_t> ksize, strides;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &ksize));
    if (ksize.size() != 5)
      return invalid_argument("Sliding window ksize field must specify 5 dimensions");
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides));
    if (strides.size() != 5)
      return invalid_argument("Sliding window strides field must specify 5 dimensions");
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &attrs_.padding));
    if (ksize[0] != 1 || strides[0] != 1)
      return unimplemented("Pooling is not yet supported on the batch dimension.");
    const std::size_t depth = dim_index(ncdhw_, 'C');
    if (ksize[depth] != 1 || strides[depth] != 1)
      return unimplemented("MaxPooling3dGradGrad is not yet supported on the depth dimension.");
    for (std::size_t i = 0; i < 3; ++i) {
      attrs_.window[i] = ksize[dim_index(ncdhw_, static_cast<char>('0' + i))];
      attrs_.stride[i] = strides[dim_index(ncdhw_, static_cast<char>('0' + i))];
    }
    return {};
  }

  PoolAttrs attrs_;
  bool ncdhw_ = false;
};

}  // namespace

namespace detail {

void register_conv3d_kernels(KernelRegistry& r) {
  register_floating<Conv3DOp>(r, "Conv3D");
  register_floating<Conv3DBackpropInputOp>(r, "Conv3DBackpropInputV2");
  register_floating<Conv3DBackpropFilterOp>(r, "Conv3DBackpropFilterV2");
  // TensorFlow's CPU pooling kernels are float only.
  register_for_types<MaxPool3DOp, float>(r, "MaxPool3D");
  register_for_types<AvgPool3DOp, float>(r, "AvgPool3D");
  r.add(make_kernel_def<MaxPool3DGradOp<float>>(
      "MaxPool3DGrad", "CPU", {{"T", {DType::float32}}, {"TInput", {DType::float32}}}));
  register_for_types<AvgPool3DGradOp, float>(r, "AvgPool3DGrad");
  register_for_types<MaxPool3DGradGradOp, float>(r, "MaxPool3DGradGrad");
  // bfloat16 pools through the float kernels (the convolutions: register_floating).
  auto bf16 = [&](const char* op, const KernelFactory& f, DTypeConstraints more = {}) {
    register_via_float<bfloat16_t>(r, op, f, "T", more);
  };
  bf16("MaxPool3D", make_kernel_def<MaxPool3DOp<float>>("", "").factory);
  bf16("AvgPool3D", make_kernel_def<AvgPool3DOp<float>>("", "").factory);
  bf16("MaxPool3DGrad", make_kernel_def<MaxPool3DGradOp<float>>("", "").factory,
       {{"TInput", {DType::bfloat16}}});
  bf16("AvgPool3DGrad", make_kernel_def<AvgPool3DGradOp<float>>("", "").factory);
  bf16("MaxPool3DGradGrad", make_kernel_def<MaxPool3DGradGradOp<float>>("", "").factory);
}

}  // namespace detail

}  // namespace af
