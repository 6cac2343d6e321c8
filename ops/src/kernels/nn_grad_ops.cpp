// The ops that gradients of the nn and activation ops build: ReluGrad, SigmoidGrad,
// TanhGrad, BiasAddGrad, BroadcastGradientArgs, MaxPoolGrad, AvgPoolGrad, and the losses
// whose kernels compute their own backprop: SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits (and LogSoftmax beside them). Semantics and error
// texts follow TensorFlow 1.x's relu_op.h, cwise_ops.h (sigmoid/tanh grads), bias_op.cc,
// bcast.h, maxpooling_op.cc, avgpooling_op.cc, xent_op.cc and sparse_xent_op.cc.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"
#include "kernel_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;

constexpr Index kExpensiveWork = 64 * 1024;

const std::vector<DType> kGradTypes = {DType::float32, DType::float64};

using detail::node_suffix;

Status check_type(DType t, const std::vector<DType>& allowed, const char* attr = "T") {
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return {};
  std::string list;
  for (DType a : allowed) list += (list.empty() ? "" : ", ") + std::string(data_type_string(a));
  return invalid_argument("Value for attr '" + std::string(attr) + "' of " +
                          std::string(data_type_string(t)) +
                          " is not in the list of allowed values: " + list);
}

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

Status infer_same_shape_pair(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_type(t, kGradTypes));
  PartialShape merged;
  if (!c.input_shapes[0].merge_with(c.input_shapes[1], &merged).ok())
    return invalid_argument("Dimensions must be equal");
  c.add_output(t, merged);
  return {};
}

// -- BiasAddGrad -------------------------------------------------------------------------------

template <class T>
class BiasAddGradOp : public OpKernel {
 public:
  BiasAddGradOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC" && format != "NCHW")
      *s = invalid_argument("Invalid data format" + node_suffix(c.def.name));
    nchw_ = format == "NCHW";
  }
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

Status infer_bias_add_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_type(c.input_types[0], kGradTypes));
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  const PartialShape& in = c.input_shapes[0];
  if (in.rank_known() && in.rank() < 2)
    return invalid_argument("Shape must be at least rank 2 but is rank " +
                            std::to_string(in.rank()));
  std::int64_t channels = -1;
  if (in.rank_known()) channels = in.dim(format == "NCHW" ? 1 : in.rank() - 1);
  c.add_output(c.input_types[0], PartialShape{channels});
  return {};
}

// -- BroadcastGradientArgs ------------------------------------------------------------------

}  // namespace

namespace detail {

// TensorFlow's BCast reduction indices (bcast.h, §1.2 of the training notes): the dims of
// the broadcast result each input must be summed over.
Status broadcast_reduction_axes(const std::vector<std::int64_t>& sx,
                                const std::vector<std::int64_t>& sy, std::vector<std::int64_t>* rx,
                                std::vector<std::int64_t>* ry) {
  const std::size_t rank = std::max(sx.size(), sy.size());
  rx->clear();
  ry->clear();
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t dx = i + sx.size() >= rank ? sx[i + sx.size() - rank] : 1;
    const std::int64_t dy = i + sy.size() >= rank ? sy[i + sy.size() - rank] : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      auto str = [](const std::vector<std::int64_t>& s) {
        std::string out = "[";
        for (std::size_t k = 0; k < s.size(); ++k) out += (k ? "," : "") + std::to_string(s[k]);
        return out + "]";
      };
      return invalid_argument("Incompatible shapes: " + str(sx) + " vs. " + str(sy));
    }
    // A dim of 1 is summed over when the other side is larger, and on both sides when
    // both are 1 (padded dims count as 1).
    const auto d = static_cast<std::int64_t>(i);
    if (dx == 1) rx->push_back(d);
    if (dy == 1) ry->push_back(d);
  }
  return {};
}

}  // namespace detail

namespace {

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

Status infer_broadcast_gradient_args(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_type(t, {DType::int32, DType::int64}));
  c.add_output(t, PartialShape{-1});
  c.add_output(t, PartialShape{-1});
  return {};
}

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

// The window of output (oy, ox) clipped to the input.
struct Window {
  Index y0, y1, x0, x1;
};
Window window_of(const Pool2DGeometry& g, Index oy, Index ox) {
  return {std::max<Index>(0, oy * g.stride_rows - g.pad_rows),
          std::min<Index>(g.in_rows, oy * g.stride_rows - g.pad_rows + g.window_rows),
          std::max<Index>(0, ox * g.stride_cols - g.pad_cols),
          std::min<Index>(g.in_cols, ox * g.stride_cols - g.pad_cols + g.window_cols)};
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
    auto geo = pool2d_geometry(input.shape(), attrs_.ksize, attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Pool2DGeometry& g = *geo;
    const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
    if (grad.shape() != out_shape)
      return ctx.fail(invalid_argument("Expected grad shape to be " + out_shape.to_string() +
                                       ", but got " + grad.shape().to_string() +
                                       node_suffix(name())));
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input.shape()).template data<T>();
    std::fill(dx, dx + input.num_elements(), T(0));
    const T* in = input.data<T>();
    const T* gp = grad.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const Window w = window_of(g, oy, ox);
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
    auto geo = pool2d_geometry(input_shape, attrs_.ksize, attrs_.strides, attrs_.padding);
    if (!geo.ok()) return ctx.fail(geo.status().with_context(node_suffix(name())));
    const Pool2DGeometry& g = *geo;
    const Shape out_shape{g.batch, g.out_rows, g.out_cols, g.depth};
    if (grad.shape() != out_shape)
      return ctx.fail(invalid_argument("Expected grad shape to be " + out_shape.to_string() +
                                       ", but got " + grad.shape().to_string() +
                                       node_suffix(name())));
    T* dx = ctx.allocate_output(0, dtype_of_v<T>, input_shape).template data<T>();
    std::fill(dx, dx + input_shape.num_elements(), T(0));
    const T* gp = grad.data<T>();
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy)
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          const Window w = window_of(g, oy, ox);
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

Status infer_max_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_type(t, kGradTypes));
  const PartialShape& in = c.input_shapes[0];
  if (in.rank_known() && in.rank() != 4)
    return invalid_argument("Shape must be rank 4 but is rank " + std::to_string(in.rank()));
  c.add_output(t, in.rank_known() ? in : PartialShape::unknown_of_rank(4));
  return {};
}

Status infer_avg_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_type(c.input_types[1], kGradTypes));
  PartialShape out = PartialShape::unknown_of_rank(4);
  if (const Tensor* sizes = c.input_values[0]; sizes && sizes->num_elements() == 4) {
    auto v = index_values(*sizes);
    out = PartialShape(v);
  }
  c.add_output(c.input_types[1], out);
  return {};
}

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

Status infer_xent(InferenceContext& c, bool sparse) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_type(t, kGradTypes));
  const PartialShape& logits = c.input_shapes[0];
  const PartialShape& labels = c.input_shapes[1];
  std::int64_t batch = -1;
  PartialShape bp = PartialShape::unknown_of_rank(2);
  if (sparse) {
    ACTORFLOW_RETURN_IF_ERROR(
        check_type(c.input_types[1], {DType::int32, DType::int64}, "Tlabels"));
    if (logits.rank_known() && logits.rank() != 2)
      return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(logits.rank()));
    if (labels.rank_known() && labels.rank() != 1)
      return invalid_argument("Shape must be rank 1 but is rank " + std::to_string(labels.rank()));
    if (logits.rank_known()) {
      batch = logits.dim(0);
      bp = logits;
    }
    if (labels.rank_known() && labels.dim(0) >= 0) {
      if (batch >= 0 && batch != labels.dim(0))
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(batch) +
                                " and " + std::to_string(labels.dim(0)));
      batch = labels.dim(0);
      bp = PartialShape{batch, logits.rank_known() ? logits.dim(1) : -1};
    }
  } else {
    if (c.input_types[1] != t)
      return invalid_argument("Inconsistent values for attr 'T' " +
                              std::string(data_type_string(t)) + " vs. " +
                              std::string(data_type_string(c.input_types[1])));
    PartialShape merged;
    for (const PartialShape* s : {&logits, &labels})
      if (s->rank_known() && s->rank() != 2)
        return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(s->rank()));
    if (!logits.merge_with(labels, &merged).ok())
      return invalid_argument("Dimensions must be equal, but are " +
                              detail::inference_shape_string(logits) + " and " +
                              detail::inference_shape_string(labels));
    if (merged.rank_known()) {
      bp = merged;
      batch = merged.dim(0);
    }
  }
  c.add_output(t, PartialShape{batch});
  c.add_output(t, bp);
  return {};
}

template <template <class> class Kernel>
void register_float_kernels(KernelRegistry& r, const std::string& op) {
  r.add(make_kernel_def<Kernel<float>>(op, "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<Kernel<double>>(op, "CPU", {{"T", {DType::float64}}}));
}

template <class T>
using ReluGradKernel = ActivationGradOp<ActGrad::relu, T>;
template <class T>
using SigmoidGradKernel = ActivationGradOp<ActGrad::sigmoid, T>;
template <class T>
using TanhGradKernel = ActivationGradOp<ActGrad::tanh, T>;

Output activation_grad(const char* type, const Output& a, const Output& b, std::string_view name) {
  return a.graph()
      .create_op(type, {a, b}, {{"T", a.dtype()}}, name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_nn_grad_ops(OpRegistry& r) {
  for (const char* type : {"ReluGrad", "SigmoidGrad", "TanhGrad"})
    r.add({type, infer_same_shape_pair});
  r.add({"BiasAddGrad", infer_bias_add_grad});
  r.add({"BroadcastGradientArgs", infer_broadcast_gradient_args});
  r.add({"MaxPoolGrad", infer_max_pool_grad});
  r.add({"AvgPoolGrad", infer_avg_pool_grad});
  r.add(
      {"SoftmaxCrossEntropyWithLogits", [](InferenceContext& c) { return infer_xent(c, false); }});
  r.add({"SparseSoftmaxCrossEntropyWithLogits",
         [](InferenceContext& c) { return infer_xent(c, true); }});
  r.add({"LogSoftmax", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           ACTORFLOW_RETURN_IF_ERROR(check_type(c.input_types[0], kGradTypes));
           if (c.input_shapes[0].rank_known() && c.input_shapes[0].rank() < 1)
             return invalid_argument("Shape must be at least rank 1 but is rank 0");
           c.add_output(c.input_types[0], c.input_shapes[0]);
           return {};
         }});
}

void register_nn_grad_kernels(KernelRegistry& r) {
  register_float_kernels<ReluGradKernel>(r, "ReluGrad");
  register_float_kernels<SigmoidGradKernel>(r, "SigmoidGrad");
  register_float_kernels<TanhGradKernel>(r, "TanhGrad");
  register_float_kernels<BiasAddGradOp>(r, "BiasAddGrad");
  register_float_kernels<MaxPoolGradOp>(r, "MaxPoolGrad");
  register_float_kernels<AvgPoolGradOp>(r, "AvgPoolGrad");
  register_float_kernels<SoftmaxXentOp>(r, "SoftmaxCrossEntropyWithLogits");
  register_float_kernels<LogSoftmaxOp>(r, "LogSoftmax");
  r.add(make_kernel_def<BroadcastGradientArgsOp>("BroadcastGradientArgs", "CPU",
                                                 {{"T", {DType::int32, DType::int64}}}));
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

namespace nn {

Output relu_grad(const Output& gradients, const Output& features, std::string_view name) {
  return activation_grad("ReluGrad", gradients, features, name);
}
Output sigmoid_grad(const Output& y, const Output& dy, std::string_view name) {
  return activation_grad("SigmoidGrad", y, dy, name);
}
Output tanh_grad(const Output& y, const Output& dy, std::string_view name) {
  return activation_grad("TanhGrad", y, dy, name);
}

Output bias_add_grad(const Output& out_backprop, std::string_view name) {
  return out_backprop.graph()
      .create_op("BiasAddGrad", {out_backprop},
                 {{"T", out_backprop.dtype()}, {"data_format", std::string("NHWC")}},
                 name.empty() ? "BiasAddGrad" : name)
      .output(0);
}

std::pair<Output, Output> broadcast_gradient_args(const Output& s0, const Output& s1,
                                                  std::string_view name) {
  Operation op = s0.graph().create_op("BroadcastGradientArgs", {s0, s1}, {{"T", s0.dtype()}},
                                      name.empty() ? "BroadcastGradientArgs" : name);
  return {op.output(0), op.output(1)};
}

Output max_pool_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name) {
  return orig_input.graph()
      .create_op("MaxPoolGrad", {orig_input, orig_output, grad},
                 {{"T", orig_input.dtype()},
                  {"ksize", ksize},
                  {"strides", strides},
                  {"padding", padding},
                  {"data_format", std::string("NHWC")}},
                 name.empty() ? "MaxPoolGrad" : name)
      .output(0);
}

Output avg_pool_grad(const Output& orig_input_shape, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name) {
  return grad.graph()
      .create_op("AvgPoolGrad", {orig_input_shape, grad},
                 {{"T", grad.dtype()},
                  {"ksize", ksize},
                  {"strides", strides},
                  {"padding", padding},
                  {"data_format", std::string("NHWC")}},
                 name.empty() ? "AvgPoolGrad" : name)
      .output(0);
}

std::pair<Output, Output> softmax_cross_entropy_with_logits_op(const Output& logits,
                                                               const Output& labels,
                                                               std::string_view name) {
  Operation op = logits.graph().create_op("SoftmaxCrossEntropyWithLogits", {logits, labels},
                                          {{"T", logits.dtype()}},
                                          name.empty() ? "SoftmaxCrossEntropyWithLogits" : name);
  return {op.output(0), op.output(1)};
}

std::pair<Output, Output> sparse_softmax_cross_entropy_with_logits_op(const Output& logits,
                                                                      const Output& labels,
                                                                      std::string_view name) {
  Operation op =
      logits.graph().create_op("SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                               {{"T", logits.dtype()}, {"Tlabels", labels.dtype()}},
                               name.empty() ? "SparseSoftmaxCrossEntropyWithLogits" : name);
  return {op.output(0), op.output(1)};
}

namespace {

// nn_ops.py's softmax_cross_entropy_with_logits_v2_helper inside the scope `scope_name`
// (already unique): the op takes the scope's own name.
Output softmax_xent_in_scope(const Output& labels, const Output& logits,
                             const std::string& scope_name) {
  Graph& g = logits.graph();
  auto scope = g.name_scope(scope_name + "/");
  Output l = labels.dtype() == logits.dtype() ? labels : cast(labels, logits.dtype());
  return softmax_cross_entropy_with_logits_op(logits, l, scope_name + "/").first;
}

}  // namespace

Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                         std::string_view name) {
  Graph& g = logits.graph();
  // nn_ops.py (v1): the labels pass a StopGradient, then v2 runs in the same scope.
  const std::string scope_name =
      g.unique_name(name.empty() ? "softmax_cross_entropy_with_logits_sg" : name);
  Output stopped;
  {
    auto scope = g.name_scope(scope_name + "/");
    stopped = stop_gradient(labels, "labels_stop_gradient");
  }
  return softmax_xent_in_scope(stopped, logits, scope_name);
}

Output softmax_cross_entropy_with_logits_v2(const Output& labels, const Output& logits,
                                            std::string_view name) {
  Graph& g = logits.graph();
  return softmax_xent_in_scope(
      labels, logits, g.unique_name(name.empty() ? "softmax_cross_entropy_with_logits" : name));
}

Output sparse_softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                std::string_view name) {
  Graph& g = logits.graph();
  auto scope = g.name_scope(name.empty() ? "SparseSoftmaxCrossEntropyWithLogits" : name);
  return sparse_softmax_cross_entropy_with_logits_op(logits, labels).first;
}

Output log_softmax(const Output& logits, std::string_view name) {
  return logits.graph()
      .create_op("LogSoftmax", {logits}, {{"T", logits.dtype()}},
                 name.empty() ? "LogSoftmax" : name)
      .output(0);
}

}  // namespace nn

}  // namespace af
