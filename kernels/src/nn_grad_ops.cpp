// The CPU kernels of the ops that gradients of the nn and activation ops build: ReluGrad,
// SigmoidGrad, TanhGrad, BiasAddGrad, BroadcastGradientArgs, MaxPoolGrad, AvgPoolGrad, and
// the losses whose kernels compute their own backprop: SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits (and LogSoftmax beside them). Semantics and error
// texts follow TensorFlow 1.x's relu_op.h, cwise_ops.h (sigmoid/tanh grads), bias_op.cc,
// bcast.h, maxpooling_op.cc, avgpooling_op.cc, xent_op.cc and sparse_xent_op.cc. The ops'
// definitions (shape functions, builders) are in ops/src/defs/nn_grad_ops.cpp.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/bcast.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using Index = std::int64_t;

constexpr Index kExpensiveWork = 64 * 1024;

using detail::bias_data_format_is_nchw;
using detail::kIndexTypes;
using detail::node_suffix;
using detail::pool_window;
using detail::PoolWindow;
using detail::register_for_types;
using detail::register_via_float;

// -- element-wise activation gradients -------------------------------------------------------

enum class ActGrad { relu, sigmoid, tanh };

// ReluGrad(gradients, features); SigmoidGrad(y, dy); TanhGrad(y, dy).
template <ActGrad K, class T>
class ActivationGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveWork;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape() != b.shape()) {
      if constexpr (K == ActGrad::relu)
        return ctx.fail(invalid_argument(
            "gradients and features must have the same shape: " + a.shape().to_string() + " vs " +
            b.shape().to_string() + node_suffix(name())));
      else
        return ctx.fail(invalid_argument("Incompatible shapes: " + a.shape().to_string() + " vs. " +
                                         b.shape().to_string() + node_suffix(name())));
    }
    const T* __restrict ap = a.data<T>();
    const T* __restrict bp = b.data<T>();
    T* __restrict o =
        ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, a.shape()).template data<T>();
    const Index n = a.num_elements();
    if constexpr (K == ActGrad::relu) {
      // TensorFlow's gradients * (features > 0), with Eigen's packet compare-and-mask: GCC
      // makes the loop a branch per element (random signs mispredict half the time) and will
      // not vectorise it. NaN gradients stay NaN, as in TF.
      using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
      Eigen::Map<Array>(o, n) = Eigen::Map<const Array>(ap, n) *
                                (Eigen::Map<const Array>(bp, n) > T(0)).template cast<T>();
      return;
    }
    for (Index i = 0; i < n; ++i) {
      if constexpr (K == ActGrad::sigmoid)
        o[i] = bp[i] * ap[i] * (T(1) - ap[i]);  // dy * y * (1 - y)
      else
        o[i] = bp[i] * (T(1) - ap[i] * ap[i]);  // dy * (1 - y^2)
    }
  }
};

// -- BiasAddGrad -------------------------------------------------------------------------------

template <class T>
class BiasAddGradOp : public OpKernel {
 public:
  BiasAddGradOp(OpKernelConstruction& c, Status* s)
      : OpKernel(c), nchw_(bias_data_format_is_nchw(c, s)) {}
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveWork;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& g = ctx.input(0);
    if (g.rank() < 2)
      return ctx.fail(invalid_argument(
          "Input tensor must be at least 2D: " + g.shape().to_string() + node_suffix(name())));
    const int channel_dim = nchw_ ? 1 : g.rank() - 1;
    const Index channels = g.shape().dim(channel_dim);
    T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{channels}).template data<T>();
    std::fill(o, o + channels, T(0));
    const T* gp = g.data<T>();
    const Index n = g.num_elements();
    if (n == 0) return;
    if (!nchw_) {
      for (Index i = 0; i < n; i += channels)
        for (Index c = 0; c < channels; ++c) o[c] += gp[i + c];
    } else {
      Index inner = 1;
      for (int d = 2; d < g.rank(); ++d) inner *= g.shape().dim(d);
      const Index outer = g.shape().dim(0);
      for (Index i = 0; i < outer; ++i)
        for (Index c = 0; c < channels; ++c) {
          const T* row = gp + (i * channels + c) * inner;
          T sum = 0;
          for (Index k = 0; k < inner; ++k) sum += row[k];
          o[c] += sum;
        }
    }
  }

 private:
  bool nchw_ = false;
};

// -- BroadcastGradientArgs ------------------------------------------------------------------

using detail::index_values;

class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 1 || b.rank() != 1)
      return ctx.fail(invalid_argument("In[0] and In[1] must be vectors: " + a.shape().to_string() +
                                       " " + b.shape().to_string() + node_suffix(name())));
    const bool wide = a.dtype() == DType::int64;
    auto sx = index_values(a);
    auto sy = index_values(b);
    std::vector<std::int64_t> rx, ry;
    Status s = detail::broadcast_reduction_axes(sx, sy, &rx, &ry);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    auto emit = [&](int i, const std::vector<std::int64_t>& r) {
      Tensor& t = ctx.allocate_output(i, a.dtype(), Shape{static_cast<std::int64_t>(r.size())});
      for (std::size_t k = 0; k < r.size(); ++k) {
        if (wide)
          t.data<std::int64_t>()[k] = r[k];
        else
          t.data<std::int32_t>()[k] = static_cast<std::int32_t>(r[k]);
      }
    };
    emit(0, rx);
    emit(1, ry);
  }
};

// -- pooling gradients ------------------------------------------------------------------------

struct PoolAttrs {
  std::vector<std::int64_t> ksize, strides;
  std::string padding;
};

Status read_pool_attrs(OpKernelConstruction& c, PoolAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ksize", &a->ksize));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &a->strides));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("padding", &a->padding));
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format != "NHWC")
    return invalid_argument("Default MaxPoolingGradOp only supports NHWC on device type CPU" +
                            node_suffix(c.def.name));
  return {};
}

// The geometry of the pooling of an input of `input_shape` whose gradient `grad` is, with
// `grad` checked against its output shape; errors without the node's suffix.
StatusOr<Pool2DGeometry> pool_grad_geometry(const Shape& input_shape, const PoolAttrs& attrs,
                                            const Tensor& grad) {
  auto geo = pool2d_geometry(input_shape, attrs.ksize, attrs.strides, attrs.padding);
  if (!geo.ok()) return geo.status();
  const Pool2DGeometry& g = *geo;
  const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
  if (grad.shape() != out_shape)
    return invalid_argument("Expected grad shape to be " + out_shape.to_string() + ", but got " +
                            grad.shape().to_string());
  return geo;
}

// MaxPoolGrad(orig_input, orig_output, grad): each output's gradient goes to the first
// maximum of its window in row-major scan order (TensorFlow's SpatialMaxPoolWithArgMax).
template <class T>
class MaxPoolGradOp : public OpKernel {
 public:
  MaxPoolGradOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_pool_attrs(c, &attrs_);
  }
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 3 && ctx.input(0).num_elements() > kExpensiveWork;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& grad = ctx.input(2);
    if (input.rank() != 4)
      return ctx.fail(invalid_argument("tensor_in must be 4-dimensional" + node_suffix(name())));
    auto geo = pool_grad_geometry(input.shape(), attrs_, grad);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Pool2DGeometry& g = *geo;
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input.shape()).template data<T>();
    std::fill(dx, dx + input.num_elements(), T(0));
    const T* in = input.data<T>();
    const T* gp = grad.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const PoolWindow w = pool_window(g, oy, ox);
          const T* go = gp + ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
          for (Index c = 0; c < g.depth; ++c) {
            Index best = -1;
            T best_value = std::numeric_limits<T>::lowest();
            for (Index y = w.y0; y < w.y1; ++y)
              for (Index x = w.x0; x < w.x1; ++x) {
                const Index at = ((b * g.in_rows + y) * g.in_cols + x) * g.depth + c;
                if (best < 0 || in[at] > best_value) {
                  best = at;
                  best_value = in[at];
                }
              }
            if (best >= 0) dx[best] += go[c];
          }
        }
  }

 private:
  PoolAttrs attrs_;
};

// AvgPoolGrad(orig_input_shape, grad): each output's gradient spread evenly over its
// window's cells inside the input (padding is not counted, as in the forward op).
template <class T>
class AvgPoolGradOp : public OpKernel {
 public:
  AvgPoolGradOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = read_pool_attrs(c, &attrs_);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& sizes = ctx.input(0);
    const Tensor& grad = ctx.input(1);
    if (sizes.rank() != 1 || sizes.num_elements() != 4)
      return ctx.fail(invalid_argument("out_backprop must be 1-dimensional and 4 elements" +
                                       node_suffix(name())));
    auto v = index_values(sizes);
    const Shape input_shape{v[0], v[1], v[2], v[3]};
    auto geo = pool_grad_geometry(input_shape, attrs_, grad);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Pool2DGeometry& g = *geo;
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape).template data<T>();
    std::fill(dx, dx + input_shape.num_elements(), T(0));
    const T* gp = grad.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const PoolWindow w = pool_window(g, oy, ox);
          const T count = static_cast<T>(std::max<Index>(1, (w.y1 - w.y0) * (w.x1 - w.x0)));
          const T* go = gp + ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
          for (Index y = w.y0; y < w.y1; ++y)
            for (Index x = w.x0; x < w.x1; ++x) {
              T* d = dx + ((b * g.in_rows + y) * g.in_cols + x) * g.depth;
              for (Index c = 0; c < g.depth; ++c) d[c] += go[c] / count;
            }
        }
  }

 private:
  PoolAttrs attrs_;
};

// -- softmax cross-entropies and LogSoftmax ------------------------------------------------

// loss[r] = -sum(labels * log_softmax(logits)), backprop[r] = softmax(logits) - labels,
// computed with the row's max subtracted first (xent_op.h).
template <class T, class LabelAt>
void xent_rows(const T* logits, Index rows, Index cols, LabelAt label_at, T* loss, T* backprop) {
  for (Index r = 0; r < rows; ++r) {
    const T* x = logits + r * cols;
    T* bp = backprop + r * cols;
    T max = x[0];
    for (Index c = 1; c < cols; ++c) max = std::max(max, x[c]);
    T sum = 0;
    for (Index c = 0; c < cols; ++c) sum += std::exp(x[c] - max);
    const T log_sum = std::log(sum);
    T l = 0;
    for (Index c = 0; c < cols; ++c) {
      const T shifted = x[c] - max;
      const T label = label_at(r, c);
      if (label != T(0)) l -= label * (shifted - log_sum);
      bp[c] = std::exp(shifted) / sum - label;
    }
    loss[r] = l;
  }
}

template <class T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveWork / 4;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    if (logits.rank() != 2 || labels.rank() != 2 || logits.shape() != labels.shape()) {
      if (logits.rank() == 2 && labels.rank() == 2)
        return ctx.fail(invalid_argument(
            "logits and labels must be broadcastable: logits_size=" + logits.shape().to_string() +
            " labels_size=" + labels.shape().to_string() + node_suffix(name())));
      return ctx.fail(invalid_argument(
          "logits and labels must be 2-dimensional: logits_size=" + logits.shape().to_string() +
          " labels_size=" + labels.shape().to_string() + node_suffix(name())));
    }
    const Index rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    T* loss = ctx.allocate_output(0, dtype_of_v<T>, Shape{rows}).template data<T>();
    T* bp = ctx.allocate_output(1, dtype_of_v<T>, logits.shape()).template data<T>();
    if (cols == 0) {
      std::fill(loss, loss + rows, T(0));
      return;
    }
    const T* lp = labels.data<T>();
    xent_rows<T>(
        logits.data<T>(), rows, cols, [&](Index r, Index c) { return lp[r * cols + c]; }, loss, bp);
  }
};

template <class T, class L>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveWork / 4;
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    if (logits.rank() != 2)
      return ctx.fail(invalid_argument("logits must be 2-D, but got shape " +
                                       logits.shape().to_string() + node_suffix(name())));
    if (labels.rank() != 1)
      return ctx.fail(invalid_argument("labels must be 1-D, but got shape " +
                                       labels.shape().to_string() + node_suffix(name())));
    const Index rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    if (labels.shape().dim(0) != rows)
      return ctx.fail(invalid_argument(
          "logits and labels must have the same first dimension, got logits shape " +
          logits.shape().to_string() + " and labels shape " + labels.shape().to_string() +
          node_suffix(name())));
    if (cols == 0 && rows > 0)
      return ctx.fail(invalid_argument("Must have at least one class, but got logits shape " +
                                       logits.shape().to_string() + node_suffix(name())));
    const L* lp = labels.data<L>();
    for (Index r = 0; r < rows; ++r) {
      if (lp[r] < 0 || lp[r] >= cols) {
        std::string all;
        for (Index k = 0; k < rows; ++k) all += (k ? " " : "") + std::to_string(lp[k]);
        return ctx.fail(invalid_argument("Received a label value of " + std::to_string(lp[r]) +
                                         " which is outside the valid range of [0, " +
                                         std::to_string(cols) + ").  Label values: " + all +
                                         node_suffix(name())));
      }
    }
    T* loss = ctx.allocate_output(0, dtype_of_v<T>, Shape{rows}).template data<T>();
    T* bp = ctx.allocate_output(1, dtype_of_v<T>, logits.shape()).template data<T>();
    if (rows == 0) return;
    xent_rows<T>(
        logits.data<T>(), rows, cols,
        [&](Index r, Index c) { return c == static_cast<Index>(lp[r]) ? T(1) : T(0); }, loss, bp);
  }
};

template <class T>
class LogSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 1)
      return ctx.fail(invalid_argument("logits must have >= 1 dimension, got " +
                                       x.shape().to_string() + node_suffix(name())));
    T* o = ctx.allocate_output(0, dtype_of_v<T>, x.shape()).template data<T>();
    const Index cols = x.shape().dim(x.rank() - 1);
    if (cols == 0 || x.num_elements() == 0) return;
    const Index rows = x.num_elements() / cols;
    const T* xp = x.data<T>();
    for (Index r = 0; r < rows; ++r) {
      const T* in = xp + r * cols;
      T* out = o + r * cols;
      T max = *std::max_element(in, in + cols);
      T sum = 0;
      for (Index c = 0; c < cols; ++c) sum += std::exp(in[c] - max);
      const T log_sum = std::log(sum);
      for (Index c = 0; c < cols; ++c) out[c] = in[c] - max - log_sum;
    }
  }
};

template <class T>
using ReluGradKernel = ActivationGradOp<ActGrad::relu, T>;
template <class T>
using SigmoidGradKernel = ActivationGradOp<ActGrad::sigmoid, T>;
template <class T>
using TanhGradKernel = ActivationGradOp<ActGrad::tanh, T>;

}  // namespace

namespace detail {

void register_nn_grad_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21; float16 and bfloat16 through the
  // float kernel.
  using FloatDouble = TypeList<float, double>;
  register_for_list<ReluGradKernel>(r, "ReluGrad", Concat<FloatDouble, IntegralTypes>{});
  register_via_float<ReluGradKernel<float>>(r, "ReluGrad");
  register_for_list<SigmoidGradKernel>(r, "SigmoidGrad", Concat<FloatDouble, ComplexTypes>{});
  register_via_float<SigmoidGradKernel<float>>(r, "SigmoidGrad");
  register_for_list<TanhGradKernel>(r, "TanhGrad", Concat<FloatDouble, ComplexTypes>{});
  register_via_float<TanhGradKernel<float>>(r, "TanhGrad");
  register_for_list<BiasAddGradOp>(r, "BiasAddGrad",
                                   Concat<FloatDouble, IntegralTypes, ComplexTypes>{});
  register_via_float<BiasAddGradOp<float>>(r, "BiasAddGrad");
  register_for_list<MaxPoolGradOp>(r, "MaxPoolGrad", Concat<FloatDouble, IntegralTypes>{});
  register_via_float<MaxPoolGradOp<float>>(r, "MaxPoolGrad");
  register_floating<AvgPoolGradOp>(r, "AvgPoolGrad");
  register_floating<SoftmaxXentOp>(r, "SoftmaxCrossEntropyWithLogits");
  register_floating<LogSoftmaxOp>(r, "LogSoftmax");
  register_via_float<SparseSoftmaxXentOp<float, std::int32_t>>(
      r, "SparseSoftmaxCrossEntropyWithLogits", "T", {{"Tlabels", {DType::int32}}});
  register_via_float<SparseSoftmaxXentOp<float, std::int64_t>>(
      r, "SparseSoftmaxCrossEntropyWithLogits", "T", {{"Tlabels", {DType::int64}}});
  r.add(make_kernel_def<BroadcastGradientArgsOp>("BroadcastGradientArgs", "CPU",
                                                 {{"T", kIndexTypes}}));
  r.add(make_kernel_def<SparseSoftmaxXentOp<float, std::int32_t>>(
      "SparseSoftmaxCrossEntropyWithLogits", "CPU",
      {{"T", {DType::float32}}, {"Tlabels", {DType::int32}}}));
  r.add(make_kernel_def<SparseSoftmaxXentOp<float, std::int64_t>>(
      "SparseSoftmaxCrossEntropyWithLogits", "CPU",
      {{"T", {DType::float32}}, {"Tlabels", {DType::int64}}}));
  r.add(make_kernel_def<SparseSoftmaxXentOp<double, std::int32_t>>(
      "SparseSoftmaxCrossEntropyWithLogits", "CPU",
      {{"T", {DType::float64}}, {"Tlabels", {DType::int32}}}));
  r.add(make_kernel_def<SparseSoftmaxXentOp<double, std::int64_t>>(
      "SparseSoftmaxCrossEntropyWithLogits", "CPU",
      {{"T", {DType::float64}}, {"Tlabels", {DType::int64}}}));
}

}  // namespace detail

}  // namespace af
