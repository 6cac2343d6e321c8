// LRN and LRNGrad: CPU kernels with TensorFlow's checks, messages and arithmetic
// (lrn_op.cc). Their definitions are in ops/src/defs/lrn_ops.cpp.
//
// LRN follows TensorFlow's two CPU paths: the band-matrix product (every depth's square
// times 0 or 1, summed over the whole depth, then * alpha + bias) and, for a depth above 384
// with beta 0.5 or 1, the running window sum of alpha * x^2 (SingleThreadedLRN).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::register_for_types;
using detail::StatusKernel;

constexpr Index kSingleThreadedLRNDepthCutoff = 384;

// The attrs of LRN and LRNGrad (floats converted to T, as TensorFlow's kernels do).
template <class T>
struct LrnAttrs {
  Index depth_radius = 5;
  T bias = 1, alpha = 1, beta = T(0.5);
};

template <class T>
Status read_lrn_attrs(OpKernelConstruction& c, LrnAttrs<T>* a) {
  std::int64_t radius = 5;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("depth_radius", &radius));
  if (radius < 0 || radius >= std::numeric_limits<int>::max())
    return invalid_argument("depth_radius = " + std::to_string(radius) + " larger than int max");
  a->depth_radius = radius;
  float v = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("bias", &v));
  a->bias = T(v);
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("alpha", &v));
  a->alpha = T(v);
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("beta", &v));
  a->beta = T(v);
  return {};
}

template <class T>
class LRNOp : public StatusKernel {
 public:
  LRNOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = read_lrn_attrs(c, &attrs_); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 4) return invalid_argument("in must be 4-dimensional");
    if (in.num_elements() > std::numeric_limits<int>::max())
      return invalid_argument("argument to LRN too large");
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, in.shape());
    const Index depth = in.shape().dim(3);
    if (in.num_elements() == 0) return {};
    const Index rows = in.num_elements() / depth;
    const T* x = in.data<T>();
    T* out = output.data<T>();
    const LrnAttrs<T>& a = attrs_;
    const Index r = a.depth_radius;
    // The denominator's base (bias + alpha * window sum) of each element, into `out`.
    if (depth > kSingleThreadedLRNDepthCutoff && (a.beta == T(0.5) || a.beta == T(1))) {
      std::vector<T> padded(static_cast<std::size_t>(depth + 2 * r), T(0));
      for (Index row = 0; row < rows; ++row) {
        const T* xr = x + row * depth;
        for (Index d = 0; d < depth; ++d)
          padded[static_cast<std::size_t>(r + d)] = xr[d] * xr[d] * a.alpha;
        T scale = 0;
        for (Index i = 0; i < 2 * r; ++i) scale += padded[static_cast<std::size_t>(i)];
        for (Index d = 0; d < depth; ++d) {
          scale += padded[static_cast<std::size_t>(d + 2 * r)];
          out[row * depth + d] = a.bias + scale;
          scale -= padded[static_cast<std::size_t>(d)];
        }
      }
    } else {
      std::vector<T> squares(static_cast<std::size_t>(depth));
      for (Index row = 0; row < rows; ++row) {
        const T* xr = x + row * depth;
        for (Index k = 0; k < depth; ++k) squares[static_cast<std::size_t>(k)] = xr[k] * xr[k];
        for (Index d = 0; d < depth; ++d) {
          // The band matrix's column d: ones on rows d - r .. d + r.
          T sum = 0;
          for (Index k = 0; k < depth; ++k)
            sum += squares[static_cast<std::size_t>(k)] * (k >= d - r && k <= d + r ? T(1) : T(0));
          out[row * depth + d] = sum * a.alpha + a.bias;
        }
      }
    }
    const Index n = in.num_elements();
    for (Index i = 0; i < n; ++i) {
      const T base = out[i];
      if (a.beta == T(1))
        out[i] = x[i] * (T(1) / base);
      else if (a.beta == T(0.5))
        out[i] = x[i] * (T(1) / std::sqrt(base));
      else
        out[i] = x[i] * std::exp(std::log(base) * -a.beta);
    }
    return {};
  }

 private:
  LrnAttrs<T> attrs_;
};

template <class T>
class LRNGradOp : public StatusKernel {
 public:
  LRNGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_lrn_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& in_grads = ctx.input(0);
    const Tensor& in_image = ctx.input(1);
    const Tensor& out_image = ctx.input(2);
    if (in_grads.rank() != 4 || in_image.rank() != 4)
      return invalid_argument("inputs must be 4-dimensional");
    if (in_image.shape() != in_grads.shape() || out_image.shape() != in_grads.shape())
      return invalid_argument("input_grads, input_image, and out_image should have the same shape");
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, in_grads.shape());
    const Index n = in_grads.num_elements();
    T* out = output.data<T>();
    for (Index i = 0; i < n; ++i) out[i] = T(0);
    if (n == 0) return {};
    const Index depth = in_grads.shape().dim(3);
    const Index rows = n / depth;
    const T* grads = in_grads.data<T>();
    const T* x = in_image.data<T>();
    const T* y = out_image.data<T>();
    const LrnAttrs<T>& a = attrs_;
    const T alpha_beta_2 = T(-2) * a.alpha * a.beta;
    for (Index row = 0; row < rows; ++row) {
      const T* g = grads + row * depth;
      const T* xr = x + row * depth;
      const T* yr = y + row * depth;
      T* o = out + row * depth;
      for (Index j = 0; j < depth; ++j) {
        T gs = g[j];
        if (gs == T(0)) continue;
        const Index begin = std::max<Index>(0, j - a.depth_radius);
        const Index end = std::min<Index>(depth, j + a.depth_radius + 1);
        T norm = 0;
        for (Index k = begin; k < end; ++k) norm += xr[k] * xr[k];
        norm = a.alpha * norm + a.bias;
        const T pre_computed_pow = std::pow(norm, -a.beta);
        const T activations_ab2 = alpha_beta_2 * yr[j];
        for (Index k = begin; k < end; ++k) {
          T dyi = xr[k] * activations_ab2 / norm;
          if (k == j) dyi += pre_computed_pow;
          dyi *= gs;
          o[k] += dyi;
        }
      }
    }
    return {};
  }

 private:
  LrnAttrs<T> attrs_;
};

}  // namespace

namespace detail {

void register_lrn_kernels(KernelRegistry& r) {
  // TensorFlow's CPU kernels: float and half (below); LRN's OpDef has no double.
  register_for_types<LRNOp, float>(r, "LRN");
  register_for_types<LRNGradOp, float>(r, "LRNGrad");
  // float16 through the float kernels (TensorFlow's: float and half).
  register_via_float<half_t>(r, "LRN", make_kernel_def<LRNOp<float>>("LRN", "CPU").factory);
  register_via_float<half_t>(r, "LRNGrad",
                             make_kernel_def<LRNGradOp<float>>("LRNGrad", "CPU").factory);
}

}  // namespace detail

}  // namespace af
