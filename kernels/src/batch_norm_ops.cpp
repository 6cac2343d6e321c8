// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 and their gradient ops: CPU kernels
// with TensorFlow's formulas, checks and messages (fused_batch_norm_op.cc) for float32 in
// NHWC and NCHW, and (V3) 5-D NDHWC and NCDHW, which TensorFlow's kernel runs as NHWC and NCHW
// with D merged into H. Per-channel sums accumulate in double. Their definitions are in
// ops/src/defs/batch_norm_ops.cpp.
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
using detail::node_suffix;

// x (rank 4 or 5) as [outer, C, inner]: NHWC is [N*H*W, C, 1], NCHW is [N, C, H*W]; 5-D
// NDHWC is [N*D*H*W, C, 1] and NCDHW [N, C, D*H*W], as TensorFlow's kernel reshapes them to
// [N, D, H*W, C] and [N, C, D, H*W] and runs the 4-D code.
struct Layout {
  Index outer = 0, channels = 0, inner = 0;

  Layout(const Shape& s, bool nchw) {
    const int rank = s.rank();
    channels = s.dim(nchw ? 1 : rank - 1);
    outer = s.dim(0);
    inner = 1;
    if (nchw) {
      for (int d = 2; d < rank; ++d) inner *= s.dim(d);
    } else {
      for (int d = 1; d < rank - 1; ++d) outer *= s.dim(d);
    }
  }
  /// The elements per channel.
  Index rest() const { return outer * inner; }
  /// Calls fn(flat index, channel) for every element, channel-contiguous runs inside.
  template <class F>
  void each(F&& fn) const {
    for (Index o = 0; o < outer; ++o)
      for (Index c = 0; c < channels; ++c) {
        const Index base = (o * channels + c) * inner;
        for (Index i = 0; i < inner; ++i) fn(base + i, c);
      }
  }
};

// The attributes every fused batch norm kernel reads.
struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool nchw = false;
  bool is_training = true;

  Status read(OpKernelConstruction& c) {
    c.get_attr("epsilon", &epsilon);
    c.get_attr("exponential_avg_factor", &exponential_avg_factor);
    c.get_attr("is_training", &is_training);
    // FormatFromString: NDHWC is FORMAT_NHWC and NCDHW FORMAT_NCHW, whatever x's rank (the
    // shape functions tie the rank to the format; the kernel takes 4 or 5 with either).
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC" && format != "NCHW" && format != "NDHWC" && format != "NCDHW")
      return invalid_argument("Invalid data format");
    nchw = format == "NCHW" || format == "NCDHW";
    return {};
  }
};

// x (and y_backprop) of rank 4 or 5.
Status expect_4_or_5d(const Tensor& t) {
  if (t.rank() != 4 && t.rank() != 5)
    return invalid_argument("input must be 4 or 5-dimensional" + t.shape().to_string());
  return {};
}

Status expect_vector(const Tensor& t, const char* what) {
  if (t.rank() != 1)
    return invalid_argument(std::string(what) + " must be 1-dimensional" + t.shape().to_string());
  return {};
}

Status expect_channels(const Tensor& t, const std::string& what, Index channels) {
  if (t.num_elements() != channels)
    return invalid_argument(what +
                            " must have the same number of elements as the channels of x, got " +
                            std::to_string(t.num_elements()) + " and " + std::to_string(channels));
  return {};
}

Tensor vector_of(Index n, float value) {
  Tensor t(DType::float32, Shape{n});
  std::fill(t.data<float>(), t.data<float>() + n, value);
  return t;
}

// FusedBatchNorm{,V2,V3}(x, scale, offset, mean, variance): y, batch_mean, batch_variance,
// reserve_space_1 (the batch mean), reserve_space_2 (its variance without Bessel's correction)
// and, for V3, reserve_space_3 (a scalar 0 on the CPU).
class FusedBatchNormOp : public OpKernel {
 public:
  FusedBatchNormOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = attrs_.read(c); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 5 && ctx.input(0).num_elements() > 16 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    if (Status s = run(ctx); !s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 private:
  Status run(OpKernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor& offset = ctx.input(2);
    const Tensor& old_mean = ctx.input(3);
    const Tensor& old_var = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(expect_4_or_5d(x));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(scale, "scale"));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(offset, "offset"));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(old_mean, "estimated_mean"));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(old_var, "estimated_variance"));
    const Layout l(x.shape(), attrs_.nchw);
    const Index C = l.channels;
    ACTORFLOW_RETURN_IF_ERROR(expect_channels(scale, "scale", C));
    ACTORFLOW_RETURN_IF_ERROR(expect_channels(offset, "offset", C));
    const bool blend = attrs_.exponential_avg_factor != 1.0f;
    if (!attrs_.is_training || blend) {
      const std::string prefix =
          attrs_.is_training ? "When exponential_avg_factor != 1" : "When is_training=false";
      ACTORFLOW_RETURN_IF_ERROR(expect_channels(old_mean, prefix + ", mean", C));
      ACTORFLOW_RETURN_IF_ERROR(expect_channels(old_var, prefix + ", variance", C));
    }
    Tensor y(DType::float32, x.shape(), Tensor::for_overwrite);
    Tensor out_mean = vector_of(C, 0.0f), out_var = vector_of(C, 0.0f);
    Tensor saved_mean = vector_of(C, 0.0f), saved_var = vector_of(C, 0.0f);
    const float* xp = x.data<float>();
    const float* sp = scale.data<float>();
    const float* op = offset.data<float>();
    const Index rest = l.rest();
    if (x.num_elements() == 0) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      out_mean = vector_of(C, nan);
      out_var = vector_of(C, nan);
    } else if (attrs_.is_training) {
      std::vector<double> sum(static_cast<std::size_t>(C), 0.0), sq(sum);
      l.each([&](Index i, Index c) { sum[static_cast<std::size_t>(c)] += xp[i]; });
      std::vector<float> mean(static_cast<std::size_t>(C)), var(mean);
      for (Index c = 0; c < C; ++c)
        mean[static_cast<std::size_t>(c)] =
            static_cast<float>(sum[static_cast<std::size_t>(c)] / static_cast<double>(rest));
      l.each([&](Index i, Index c) {
        const double d = static_cast<double>(xp[i]) - mean[static_cast<std::size_t>(c)];
        sq[static_cast<std::size_t>(c)] += d * d;
      });
      for (Index c = 0; c < C; ++c)
        var[static_cast<std::size_t>(c)] =
            static_cast<float>(sq[static_cast<std::size_t>(c)] / static_cast<double>(rest));
      normalize(l, xp, mean.data(), var.data(), sp, op, y.data<float>());
      // Bessel's correction for the variance kept; a factor below 1 blends in the old values.
      const float adjust = static_cast<float>(rest) / static_cast<float>(rest > 1 ? rest - 1 : 1);
      const float f = attrs_.exponential_avg_factor;
      for (Index c = 0; c < C; ++c) {
        const auto u = static_cast<std::size_t>(c);
        saved_mean.data<float>()[c] = mean[u];
        saved_var.data<float>()[c] = var[u];
        out_mean.data<float>()[c] =
            blend ? (1.0f - f) * old_mean.data<float>()[c] + f * mean[u] : mean[u];
        out_var.data<float>()[c] =
            blend ? (1.0f - f) * old_var.data<float>()[c] + (f * adjust) * var[u] : var[u] * adjust;
      }
    } else {
      normalize(l, xp, old_mean.data<float>(), old_var.data<float>(), sp, op, y.data<float>());
      out_mean = old_mean;
      out_var = old_var;
    }
    ctx.set_output(0, std::move(y));
    ctx.set_output(1, std::move(out_mean));
    ctx.set_output(2, std::move(out_var));
    ctx.set_output(3, std::move(saved_mean));
    ctx.set_output(4, std::move(saved_var));
    if (ctx.num_outputs() > 5) ctx.set_output(5, Tensor(0.0f));
    return {};
  }

  // y = (x - mean) * (rsqrt(var + epsilon) * scale) + offset, the factor in float first.
  void normalize(const Layout& l, const float* x, const float* mean, const float* var,
                 const float* scale, const float* offset, float* y) const {
    std::vector<float> factor(static_cast<std::size_t>(l.channels));
    for (Index c = 0; c < l.channels; ++c)
      factor[static_cast<std::size_t>(c)] = scale[c] / std::sqrt(var[c] + attrs_.epsilon);
    l.each([&](Index i, Index c) {
      y[i] = (x[i] - mean[c]) * factor[static_cast<std::size_t>(c)] + offset[c];
    });
  }

  BatchNormAttrs attrs_;
};

// FusedBatchNormGrad{,V2,V3}(y_backprop, x, scale, reserve_space_1, reserve_space_2[,
// reserve_space_3]): x_backprop, scale_backprop, offset_backprop and two empty placeholders.
// In training the reserve spaces are the batch's mean and variance; in inference the
// population's, and only NHWC or NDHWC is taken (Python transposes NCHW and NCDHW around it).
class FusedBatchNormGradOp : public OpKernel {
 public:
  FusedBatchNormGradOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = attrs_.read(c); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() >= 5 && ctx.input(1).num_elements() > 16 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    if (Status s = run(ctx); !s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 private:
  Status run(OpKernelContext& ctx) {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& scale = ctx.input(2);
    const Tensor& mean = ctx.input(3);
    const Tensor& var = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(expect_4_or_5d(dy));
    ACTORFLOW_RETURN_IF_ERROR(expect_4_or_5d(x));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(scale, "scale"));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(mean, "saved mean"));
    ACTORFLOW_RETURN_IF_ERROR(expect_vector(var, "saved variance"));
    if (x.shape() != dy.shape())
      return invalid_argument("x and y_backprop must have same shape, but x has shape " +
                              x.shape().to_string() + " and y_backprop has shape " +
                              dy.shape().to_string());
    const Layout l(x.shape(), attrs_.nchw);
    const Index C = l.channels;
    ACTORFLOW_RETURN_IF_ERROR(expect_channels(scale, "scale", C));
    ACTORFLOW_RETURN_IF_ERROR(expect_channels(mean, "reserve_space_1", C));
    ACTORFLOW_RETURN_IF_ERROR(expect_channels(var, "reserve_space_2", C));
    // TensorFlow returns zero scale and offset gradients for an empty x before this check.
    if (!attrs_.is_training && attrs_.nchw && x.num_elements() > 0)
      return invalid_argument(
          "The implementation of FusedBatchNormGrad with is_training=False only support NHWC "
          "tensor format for now.");
    Tensor dx(DType::float32, x.shape());
    Tensor dscale = vector_of(C, 0.0f), doffset = vector_of(C, 0.0f);
    if (x.num_elements() > 0) {
      const float* dyp = dy.data<float>();
      const float* xp = x.data<float>();
      const float* sp = scale.data<float>();
      const float* mp = mean.data<float>();
      const float* vp = var.data<float>();
      float* dxp = dx.data<float>();
      std::vector<float> coef0(static_cast<std::size_t>(C));
      for (Index c = 0; c < C; ++c)
        coef0[static_cast<std::size_t>(c)] = 1.0f / std::sqrt(vp[c] + attrs_.epsilon);
      // sum(dy) and sum(dy * (x - mean)) per channel.
      std::vector<double> sum_dy(static_cast<std::size_t>(C), 0.0), sum_dy_xc(sum_dy);
      l.each([&](Index i, Index c) {
        const auto u = static_cast<std::size_t>(c);
        sum_dy[u] += dyp[i];
        sum_dy_xc[u] += static_cast<double>(dyp[i]) * (xp[i] - mp[c]);
      });
      for (Index c = 0; c < C; ++c) {
        const auto u = static_cast<std::size_t>(c);
        doffset.data<float>()[c] = static_cast<float>(sum_dy[u]);
        dscale.data<float>()[c] = static_cast<float>(sum_dy_xc[u] * coef0[u]);
      }
      if (attrs_.is_training) {
        // dx = scale * coef0 * (dy - mean(dy) - (x - mean) * coef0^2 * mean(dy * (x - mean)))
        const auto rest = static_cast<double>(l.rest());
        std::vector<float> coef1(static_cast<std::size_t>(C)), coef2(coef1), dy_mean(coef1);
        for (Index c = 0; c < C; ++c) {
          const auto u = static_cast<std::size_t>(c);
          coef1[u] = sp[c] * coef0[u];
          coef2[u] = coef0[u] * coef0[u] * static_cast<float>(sum_dy_xc[u] / rest);
          dy_mean[u] = static_cast<float>(sum_dy[u] / rest);
        }
        l.each([&](Index i, Index c) {
          const auto u = static_cast<std::size_t>(c);
          dxp[i] = coef1[u] * ((dyp[i] - dy_mean[u]) - (xp[i] - mp[c]) * coef2[u]);
        });
      } else {
        l.each([&](Index i, Index c) {
          const auto u = static_cast<std::size_t>(c);
          dxp[i] = dyp[i] * (coef0[u] * sp[c]);
        });
      }
    }
    ctx.set_output(0, std::move(dx));
    ctx.set_output(1, std::move(dscale));
    ctx.set_output(2, std::move(doffset));
    ctx.set_output(3, Tensor(DType::float32, Shape{0}));
    ctx.set_output(4, Tensor(DType::float32, Shape{0}));
    return {};
  }

  BatchNormAttrs attrs_;
};

}  // namespace

namespace detail {

void register_batch_norm_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<FusedBatchNormOp>("FusedBatchNorm", "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<FusedBatchNormGradOp>("FusedBatchNormGrad", "CPU",
                                              {{"T", {DType::float32}}}));
  // V2 and V3 take float16 and bfloat16 x (float statistics) through the float kernels.
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    r.add(make_kernel_def<FusedBatchNormOp>(op, "CPU",
                                            {{"T", {DType::float32}}, {"U", {DType::float32}}}));
    register_via_float<FusedBatchNormOp>(r, op, "T", {{"U", {DType::float32}}});
  }
  for (const char* op : {"FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    r.add(make_kernel_def<FusedBatchNormGradOp>(
        op, "CPU", {{"T", {DType::float32}}, {"U", {DType::float32}}}));
    register_via_float<FusedBatchNormGradOp>(r, op, "T", {{"U", {DType::float32}}});
  }
}

}  // namespace detail

}  // namespace af
