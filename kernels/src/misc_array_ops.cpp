// Bucketize, HistogramFixedWidth, CumulativeLogsumexp, BroadcastArgs, EnsureShape, Snapshot,
// the FakeQuant family and Print / PrintV2: CPU kernels with TensorFlow's checks and messages
// (bucketize_op.cc, histogram_op.cc, scan_ops.cc, bcast_ops.cc, ensure_shape_op.cc,
// snapshot_op.cc, fake_quant_ops.cc with fake_quant_ops_functor.h, logging_ops.cc). Their
// definitions are in ops/src/defs/misc_array_ops.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/logging.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "tensor_summary.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// -- Bucketize ----------------------------------------------------------------------------

// Bucketize(input; boundaries): for each element the index of the first boundary above it
// (std::upper_bound over the float boundaries, compared in the common type of T and float),
// int32, input's shape; NaN lands past the last boundary. Construction fails with "Expected
// sorted boundaries".
template <class T>
class BucketizeOp : public StatusKernel {
 public:
  BucketizeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (*s = c.get_attr("boundaries", &boundaries_); !s->ok()) return;
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end()))
      *s = invalid_argument("Expected sorted boundaries" + detail::node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::int32, input.shape());
    const T* in = input.data<T>();
    std::int32_t* o = out.data<std::int32_t>();
    for (Index i = 0; i < input.num_elements(); ++i)
      o[i] = static_cast<std::int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), in[i]) - boundaries_.begin());
    return {};
  }

 private:
  std::vector<float> boundaries_;
};

// -- HistogramFixedWidth ------------------------------------------------------------------

// HistogramFixedWidth(values, value_range, nbins; dtype): counts of `values` in `nbins` equal
// bins over [value_range[0], value_range[1]]; values below land in bin 0, above in the last.
// The bin is ((max(v, lo) - lo) computed in T, as double) / step, clipped to nbins - 1 and
// truncated (histogram_op.cc).
template <class T, class Tout>
class HistogramFixedWidthOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& values = ctx.input(0);
    const Tensor& range = ctx.input(1);
    const Tensor& nbins_t = ctx.input(2);
    if (range.rank() != 1) return invalid_argument("value_range should be a vector.");
    if (range.num_elements() != 2)
      return invalid_argument("value_range should be a vector of 2 elements.");
    if (nbins_t.rank() != 0) return invalid_argument("nbins should be a scalar.");
    const T lo = range.data<T>()[0], hi = range.data<T>()[1];
    const std::int32_t nbins = nbins_t.data<std::int32_t>()[0];
    if (!(lo < hi))
      return invalid_argument(
          "value_range should satisfy value_range[0] < value_range[1], but got '[" + number(lo) +
          ", " + number(hi) + "]'");
    if (nbins <= 0)
      return invalid_argument("nbins should be a positive number, but got '" +
                              std::to_string(nbins) + "'");
    Tensor& out = ctx.allocate_output(0, dtype_of_v<Tout>, Shape{nbins});
    const T* v = values.data<T>();
    const Index n = values.num_elements();
    if constexpr (std::is_floating_point_v<T>) {
      for (Index i = 0; i < n; ++i)
        if (std::isnan(v[i])) return invalid_argument("Histogram values must not contain NaN");
    }
    const double step = static_cast<double>(minus(hi, lo)) / nbins;
    const double last = static_cast<double>(nbins - 1);
    Tout* counts = out.data<Tout>();
    for (Index i = 0; i < n; ++i) {
      const T shifted = minus(std::max(v[i], lo), lo);
      const double bin = std::min(static_cast<double>(shifted) / step, last);
      counts[static_cast<std::int32_t>(bin)] += Tout{1};
    }
    return {};
  }

 private:
  // a - b in T; integers wrap as TensorFlow's Eigen arithmetic does in practice.
  static T minus(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
      return a - b;
    }
  }

  // strings::StrCat of a value_range entry.
  static std::string number(T v) {
    if constexpr (std::is_integral_v<T>) {
      return std::to_string(v);
    } else {
      char buf[40];
      const int digits = std::is_same_v<T, float> ? 6 : 15;
      std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
      if (static_cast<T>(std::strtod(buf, nullptr)) != v)
        std::snprintf(buf, sizeof buf, "%.*g", digits + 3, static_cast<double>(v));
      return buf;
    }
  }
};

// -- CumulativeLogsumexp ------------------------------------------------------------------

// A value of T from a float computation: bfloat16 rounds after every step, as Eigen's
// bfloat16 arithmetic does.
template <class T>
T narrow(double v) {
  if constexpr (is_half_like_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// scan_ops.h LogSumExp(a, b): log1p(exp(min - max)) + max with std::min / std::max (so a NaN
// `b` against a number `a` gives `a`), and max itself when it is -inf.
template <class T>
T log_sum_exp(T a, T b) {
  using C = std::conditional_t<is_half_like_v<T>, float, T>;
  const C ca = static_cast<C>(a), cb = static_cast<C>(b);
  const C mi = cb < ca ? cb : ca;
  const C ma = ca < cb ? cb : ca;
  if (ma < std::numeric_limits<C>::lowest()) return narrow<T>(ma);
  const C diff = static_cast<C>(narrow<T>(mi - ma));
  const C e = static_cast<C>(narrow<T>(std::exp(diff)));
  const C l = static_cast<C>(narrow<T>(std::log1p(e)));
  return narrow<T>(l + ma);
}

// CumulativeLogsumexp(x, axis; exclusive, reverse): log(cumsum(exp(x))) along `axis`
// without overflow; the scan starts from -inf (exclusive: the first output is -inf). Axis
// errors as ScanOp's.
template <class T>
class CumulativeLogsumexpOp : public StatusKernel {
 public:
  CumulativeLogsumexpOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (*s = c.get_attr("exclusive", &exclusive_); !s->ok()) return;
    *s = c.get_attr("reverse", &reverse_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& axis_tensor = ctx.input(1);
    if (axis_tensor.rank() != 0)
      return invalid_argument("ScanOp: axis must be a scalar, not " +
                              axis_tensor.shape().to_string());
    const Index axis_arg = index_values(axis_tensor)[0];
    const int rank = input.rank();
    const Index axis = axis_arg < 0 ? axis_arg + rank : axis_arg;
    if (axis < 0 || axis >= rank)
      return invalid_argument("ScanOp: Expected scan axis in the range [" + std::to_string(-rank) +
                              ", " + std::to_string(rank) + "), but got " +
                              std::to_string(axis_arg));
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    const Index n = input.shape().dim(static_cast<int>(axis));
    Index outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.shape().dim(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= input.shape().dim(d);
    const T* from = input.data<T>();
    T* to = out.data<T>();
    const T start = narrow<T>(-std::numeric_limits<double>::infinity());
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i) {
        T running = start;
        for (Index k = 0; k < n; ++k) {
          const Index j = reverse_ ? n - 1 - k : k;
          const Index at = (o * n + j) * inner + i;
          if (exclusive_) to[at] = running;
          running = log_sum_exp(running, from[at]);
          if (!exclusive_) to[at] = running;
        }
      }
    return {};
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

// -- BroadcastArgs ------------------------------------------------------------------------

// BroadcastArgs(s0, s1): the broadcast of two shape vectors (BCast: dimensions equal, or one
// of them 1), "Incompatible shapes: [2,3] vs. [4,3]" otherwise.
template <class T>
class BroadcastArgsOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::vector<std::int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = ctx.input(i);
      if (in.rank() != 1)
        return invalid_argument("In[" + std::to_string(i) + "] must be a vector." +
                                in.shape().to_string());
      shapes[i] = index_values(in);
    }
    const auto& x = shapes[0];
    const auto& y = shapes[1];
    const std::size_t rank = std::max(x.size(), y.size());
    std::vector<std::int64_t> result(rank);
    bool valid = true;
    for (std::size_t k = 0; k < rank; ++k) {
      const std::int64_t dx = k < rank - x.size() ? 1 : x[k - (rank - x.size())];
      const std::int64_t dy = k < rank - y.size() ? 1 : y[k - (rank - y.size())];
      if (dx == dy || dy == 1)
        result[k] = dx;
      else if (dx == 1)
        result[k] = dy;
      else
        valid = false;
    }
    if (!valid) {
      auto join = [](const std::vector<std::int64_t>& v) {
        std::string out;
        for (std::size_t k = 0; k < v.size(); ++k) out += (k ? "," : "") + std::to_string(v[k]);
        return out;
      };
      return invalid_argument("Incompatible shapes: [" + join(x) + "] vs. [" + join(y) + "]");
    }
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{static_cast<Index>(rank)});
    for (std::size_t k = 0; k < rank; ++k) out.data<T>()[k] = static_cast<T>(result[k]);
    return {};
  }
};

// -- EnsureShape and Snapshot -------------------------------------------------------------

// EnsureShape(input; shape): the input, when its shape is compatible with attr `shape`.
class EnsureShapeOp : public StatusKernel {
 public:
  EnsureShapeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("shape", &expected_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    ctx.set_output(0, input);
    if (!expected_.is_compatible_with(PartialShape(input.shape())))
      return invalid_argument("Shape of tensor " + ctx.def().inputs[0] + " " +
                              input.shape().to_string() +
                              " is not compatible with expected shape " +
                              detail::inference_shape_string(expected_) + ".");
    return {};
  }

 private:
  PartialShape expected_;
};

// Snapshot(input): a fresh copy of the input (TensorFlow copies unless it may forward the
// buffer), so later in-place updates of the input do not show through.
class SnapshotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    detail::copy_elements(input, 0, out, 0, input.num_elements());
  }
};

// -- FakeQuant ----------------------------------------------------------------------------

// fake_quant_ops_functor.h Nudge: the range [min, max] moved so that 0 is a quantized value.
struct Nudged {
  float min, max, scale, inv_scale;
};

Nudged nudge(float min, float max, int quant_min, int quant_max) {
  const float quant_min_float = static_cast<float>(quant_min);
  const float quant_max_float = static_cast<float>(quant_max);
  Nudged n{};
  n.scale = (max - min) / (quant_max_float - quant_min_float);
  n.inv_scale = (quant_max_float - quant_min_float) / (max - min);
  const float zero_point_from_min = quant_min_float - min / n.scale;
  std::uint16_t nudged_zero_point;
  if (zero_point_from_min < quant_min_float)
    nudged_zero_point = static_cast<std::uint16_t>(quant_min);
  else if (zero_point_from_min > quant_max_float)
    nudged_zero_point = static_cast<std::uint16_t>(quant_max);
  else
    nudged_zero_point = static_cast<std::uint16_t>(std::round(zero_point_from_min));
  n.min = (quant_min_float - nudged_zero_point) * n.scale;
  n.max = (quant_max_float - nudged_zero_point) * n.scale;
  return n;
}

// std::max(std::min(x, hi), lo) as Eigen's cwiseMin / cwiseMax: NaN stays NaN.
float clamp_to(float x, float lo, float hi) {
  const float a = hi < x ? hi : x;
  return a < lo ? lo : a;
}

// Fake-quantizes `count` values `stride` apart, the Args and PerChannel functors
// (`by_inverse`: shift * inv_scale) or the Vars functor (shift / scale).
void fake_quant(const float* in, float* out, Index count, Index stride, float min, float max,
                int quant_min, int quant_max, bool by_inverse) {
  const Nudged n = nudge(min, max, quant_min, quant_max);
  const float quant_zero = std::floor(-n.min * n.inv_scale + 0.5f);
  for (Index i = 0; i < count; ++i) {
    const float shifted = clamp_to(in[i * stride], n.min, n.max) - n.min;
    const float scaled = by_inverse ? shifted * n.inv_scale : shifted / n.scale;
    out[i * stride] = std::floor(scaled - quant_zero + 0.5f) * n.scale;
  }
}

// The gradient functors: the incoming gradient where the input lies in the nudged range,
// and the sums of it below (for min) and above (for max), summed in order (TensorFlow's
// Eigen reduction may order the sum otherwise: the last bits can differ).
void fake_quant_backprop(const float* grad, const float* in, float* dx, Index count, Index stride,
                         float min, float max, int quant_min, int quant_max, float* dmin,
                         float* dmax) {
  const Nudged n = nudge(min, max, quant_min, quant_max);
  float below = 0.0f, above = 0.0f;
  for (Index i = 0; i < count; ++i) {
    const float x = in[i * stride], g = grad[i * stride];
    // Products with a 0/1 mask, as TensorFlow's functor: a negative gradient masked out is -0.
    dx[i * stride] = g * static_cast<float>(x >= n.min && x <= n.max);
    below += g * static_cast<float>(x < n.min);
    above += g * static_cast<float>(x > n.max);
  }
  if (dmin) *dmin = below;
  if (dmax) *dmax = above;
}

// Attrs num_bits (2 to 16) and narrow_range of every FakeQuant kernel.
Status quant_range(OpKernelConstruction& c, int* quant_min, int* quant_max) {
  std::int64_t num_bits = 8;
  bool narrow_range = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_bits", &num_bits));
  if (num_bits < 2 || num_bits > 16)
    return invalid_argument("num_bits must be between 2 and 16, inclusive" +
                            detail::node_suffix(c.def.name));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("narrow_range", &narrow_range));
  *quant_min = narrow_range ? 1 : 0;
  *quant_max = (1 << num_bits) - 1;
  return {};
}

// FakeQuantWithMinMaxArgs(inputs; min, max, num_bits, narrow_range) and its Gradient
// (gradients, inputs): the range from attrs, which must satisfy min < max.
class FakeQuantArgsOp : public StatusKernel {
 public:
  FakeQuantArgsOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (*s = c.get_attr("min", &min_); !s->ok()) return;
    if (*s = c.get_attr("max", &max_); !s->ok()) return;
    if (!(min_ < max_)) {
      *s = invalid_argument("min has to be smaller than max, was: " + format_float(min_) +
                            " >= " + format_float(max_) + detail::node_suffix(c.def.name));
      return;
    }
    *s = quant_range(c, &quant_min_, &quant_max_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const bool gradient = ctx.num_inputs() == 2;
    const Tensor& input = ctx.input(gradient ? 1 : 0);
    if (gradient && ctx.input(0).shape() != input.shape())
      return invalid_argument(
          "Inputs to operation " + name() + " of type " + type() +
          " must have the same size and shape.  Input 0: " + ctx.input(0).shape().to_string() +
          " != input 1: " + input.shape().to_string());
    Tensor& out = ctx.allocate_output(0, DType::float32, input.shape());
    const Index n = input.num_elements();
    if (gradient)
      fake_quant_backprop(ctx.input(0).data<float>(), input.data<float>(), out.data<float>(), n, 1,
                          min_, max_, quant_min_, quant_max_, nullptr, nullptr);
    else
      fake_quant(input.data<float>(), out.data<float>(), n, 1, min_, max_, quant_min_, quant_max_,
                 true);
    return {};
  }

 private:
  // strings::StrCat of a float.
  static std::string format_float(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
    if (std::strtof(buf, nullptr) != v)
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
  }

  float min_ = -6.0f;
  float max_ = 6.0f;
  int quant_min_ = 0;
  int quant_max_ = 255;
};

// The kernels whose range is an input, FakeQuantWithMinMaxVars(PerChannel)(inputs, min, max)
// and their Gradients (gradients, inputs, min, max): the quantized range of their attrs.
class FakeQuantVarsKernel : public StatusKernel {
 public:
  FakeQuantVarsKernel(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = quant_range(c, &quant_min_, &quant_max_);
  }

 protected:
  // Whether this run is a Gradient's (four inputs, the gradients first, which must have the
  // inputs' shape), and `*first` the index of input `inputs` (min and max follow it).
  static Status gradient_inputs(OpKernelContext& ctx, bool* gradient, int* first) {
    *gradient = ctx.num_inputs() == 4;
    *first = *gradient ? 1 : 0;
    if (*gradient && ctx.input(0).shape() != ctx.input(*first).shape())
      return invalid_argument("gradient and input must be the same size");
    return {};
  }

  int quant_min_ = 0;
  int quant_max_ = 255;
};

// FakeQuantWithMinMaxVars(inputs, min, max) and FakeQuantWithMinMaxVarsGradient(gradients,
// inputs, min, max) with scalar min and max; a [0, 0] range gives zeros (the gradient passes
// whole to the inputs).
class FakeQuantVarsOp : public FakeQuantVarsKernel {
 public:
  using FakeQuantVarsKernel::FakeQuantVarsKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    bool gradient = false;
    int first = 0;
    ACTORFLOW_RETURN_IF_ERROR(gradient_inputs(ctx, &gradient, &first));
    const Tensor& input = ctx.input(first);
    const Tensor& min_t = ctx.input(first + 1);
    const Tensor& max_t = ctx.input(first + 2);
    if (min_t.rank() != 0)
      return invalid_argument("`min` must be rank 0 but is rank " + std::to_string(min_t.rank()));
    if (max_t.rank() != 0)
      return invalid_argument("`max` must be rank 0 but is rank " + std::to_string(max_t.rank()));
    const float min = min_t.data<float>()[0], max = max_t.data<float>()[0];
    const Index n = input.num_elements();
    Tensor& out = ctx.allocate_output(0, DType::float32, input.shape());
    if (!gradient) {
      if (min == 0.0f && max == 0.0f) return {};  // zero-filled
      fake_quant(input.data<float>(), out.data<float>(), n, 1, min, max, quant_min_, quant_max_,
                 false);
      return {};
    }
    Tensor& dmin = ctx.allocate_output(1, DType::float32, Shape{});
    Tensor& dmax = ctx.allocate_output(2, DType::float32, Shape{});
    if (min == 0.0f && max == 0.0f) {
      detail::copy_elements(ctx.input(0), 0, out, 0, n);
      return {};
    }
    fake_quant_backprop(ctx.input(0).data<float>(), input.data<float>(), out.data<float>(), n, 1,
                        min, max, quant_min_, quant_max_, dmin.data<float>(), dmax.data<float>());
    return {};
  }
};

// FakeQuantWithMinMaxVarsPerChannel(inputs, min, max) and its Gradient: one range per entry
// of the last dimension (min and max of shape [d]).
class FakeQuantPerChannelOp : public FakeQuantVarsKernel {
 public:
  using FakeQuantVarsKernel::FakeQuantVarsKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    bool gradient = false;
    int first = 0;
    ACTORFLOW_RETURN_IF_ERROR(gradient_inputs(ctx, &gradient, &first));
    const Tensor& input = ctx.input(first);
    // TensorFlow reads the last dimension of a scalar input and aborts; refused here.
    if (input.rank() < 1) return invalid_argument("inputs must be at least rank 1 but is rank 0");
    const Index depth = input.shape().dim(input.rank() - 1);
    const char* names[2] = {"min", "max"};
    for (int k = 0; k < 2; ++k) {
      const Tensor& t = ctx.input(first + 1 + k);
      if (t.rank() != 1)
        return invalid_argument("`" + std::string(names[k]) + "` must be rank 1 but is rank " +
                                std::to_string(t.rank()));
      if (t.shape().dim(0) != depth)
        return invalid_argument(std::string(names[k]) + " has incorrect size, expected " +
                                std::to_string(depth) + " was " + std::to_string(t.shape().dim(0)));
    }
    const float* min = ctx.input(first + 1).data<float>();
    const float* max = ctx.input(first + 2).data<float>();
    const Index n = input.num_elements();
    const Index rows = depth == 0 ? 0 : n / depth;
    Tensor& out = ctx.allocate_output(0, DType::float32, input.shape());
    float* dmin = nullptr;
    float* dmax = nullptr;
    if (gradient) {
      dmin = ctx.allocate_output(1, DType::float32, Shape{depth}).data<float>();
      dmax = ctx.allocate_output(2, DType::float32, Shape{depth}).data<float>();
    }
    for (Index c = 0; c < depth; ++c) {
      const float lo = min[c], hi = max[c];
      if (lo == 0.0f && hi == 0.0f) {
        // Zeros forward; the gradient passes whole to the inputs.
        if (gradient)
          for (Index r = 0; r < rows; ++r)
            out.data<float>()[r * depth + c] = ctx.input(0).data<float>()[r * depth + c];
        continue;
      }
      if (gradient)
        fake_quant_backprop(ctx.input(0).data<float>() + c, input.data<float>() + c,
                            out.data<float>() + c, rows, depth, lo, hi, quant_min_, quant_max_,
                            dmin + c, dmax + c);
      else
        fake_quant(input.data<float>() + c, out.data<float>() + c, rows, depth, lo, hi, quant_min_,
                   quant_max_, true);
    }
    return {};
  }
};

// -- Print and PrintV2 --------------------------------------------------------------------

// Print(input, data; message, first_n, summarize): passes input 0 through and writes the
// message then "[<summary>]" of each data input to std::cerr, one line; with first_n >= 0
// only on its first `first_n` runs (a counter under a lock, kept across steps).
class PrintOp : public OpKernel {
 public:
  PrintOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    if (*s = c.get_attr("message", &message_); !s->ok()) return;
    if (*s = c.get_attr("first_n", &first_n_); !s->ok()) return;
    *s = c.get_attr("summarize", &summarize_);
  }

  void compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    if (first_n_ >= 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (calls_ >= first_n_) return;
      ++calls_;
    }
    std::string msg = message_;
    for (int i = 1; i < ctx.num_inputs(); ++i)
      msg += "[" + detail::summarize_value(ctx.input(i), summarize_, /*print_v2=*/false) + "]";
    std::cerr << msg << std::endl;
  }

 private:
  std::mutex mu_;
  std::int64_t calls_ = 0;
  std::int64_t first_n_ = -1;
  std::int64_t summarize_ = 3;
  std::string message_;
};

// Timestamp: the seconds since the Unix epoch, as TensorFlow's (microseconds / 1e6).
class TimestampOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    ctx.set_output(0, Tensor(static_cast<double>(us) / 1000000));
  }
};

// PrintV2(input; output_stream, end): writes the string scalar and `end` to std::cout
// ("stdout"), std::cerr ("stderr"), actorflow's log sink ("log(info)", "log(warning)",
// "log(error)") or appends it to a file ("file://<path>").
class PrintV2Op : public StatusKernel {
 public:
  PrintV2Op(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (*s = c.get_attr("output_stream", &stream_); !s->ok()) return;
    if (*s = c.get_attr("end", &end_); !s->ok()) return;
    if (stream_.rfind("file://", 0) == 0) {
      file_path_ = stream_.substr(7);
      return;
    }
    if (std::find(std::begin(kStreams), std::end(kStreams), stream_) == std::end(kStreams)) {
      std::string msg = "Unknown output stream: " + stream_ + ", Valid streams are:";
      for (const char* valid : kStreams) msg += std::string(" ") + valid;
      *s = invalid_argument(msg + detail::node_suffix(c.def.name));
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 0)
      return invalid_argument("Input is expected to be scalar, but got " +
                              input.shape().to_string());
    const std::string ended = input.data<std::string>()[0] + end_;
    if (!file_path_.empty()) {
      std::ofstream file(file_path_, std::ios::binary | std::ios::app);
      if (!file) return not_found(file_path_ + "; No such file or directory");
      file << ended;
      file.close();
      if (!file) return internal("Failed to write to " + file_path_);
      return {};
    }
    if (stream_ == "stdout")
      std::cout << ended << std::flush;
    else if (stream_ == "stderr")
      std::cerr << ended << std::flush;
    else
      log_info(ended);
    return {};
  }

 private:
  static constexpr const char* kStreams[5] = {"stdout", "stderr", "log(info)", "log(warning)",
                                              "log(error)"};
  std::string stream_;
  std::string end_;
  std::string file_path_;
};

// Registers HistogramFixedWidthOp<T, int32> and <T, int64> for each of `Ts`.
template <class... Ts>
void register_histogram(KernelRegistry& r) {
  (r.add(make_kernel_def<HistogramFixedWidthOp<Ts, std::int32_t>>(
       "HistogramFixedWidth", "CPU", {{"T", {dtype_of_v<Ts>}}, {"dtype", {DType::int32}}})),
   ...);
  (r.add(make_kernel_def<HistogramFixedWidthOp<Ts, std::int64_t>>(
       "HistogramFixedWidth", "CPU", {{"T", {dtype_of_v<Ts>}}, {"dtype", {DType::int64}}})),
   ...);
}

// Registers CumulativeLogsumexpOp<T> for each of `Ts`, any Tidx.
template <class... Ts>
void register_cumulative_logsumexp(KernelRegistry& r) {
  (r.add(make_kernel_def<CumulativeLogsumexpOp<Ts>>(
       "CumulativeLogsumexp", "CPU", {{"T", {dtype_of_v<Ts>}}, {"Tidx", detail::kIndexTypes}})),
   ...);
}

}  // namespace

namespace detail {

void register_misc_array_kernels(KernelRegistry& r) {
  register_for_types<BucketizeOp, std::int32_t, std::int64_t, float, double>(r, "Bucketize");
  register_histogram<std::int32_t, std::int64_t, float, double>(r);
  register_cumulative_logsumexp<float, double, bfloat16_t, half_t>(r);
  register_for_types<BroadcastArgsOp, std::int32_t, std::int64_t>(r, "BroadcastArgs");
  // TensorFlow's EnsureShape kernel takes every type; Snapshot the plain-old-data ones (every
  // number and bool).
  r.add(make_kernel_def<EnsureShapeOp>("EnsureShape", "CPU"));
  r.add(make_kernel_def<SnapshotOp>("Snapshot", "CPU",
                                    {{"T", dtypes_of(Concat<NumberTypes, TypeList<bool>>{})}}));
  for (const char* type : {"FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient"})
    r.add(make_kernel_def<FakeQuantArgsOp>(type, "CPU"));
  for (const char* type : {"FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsGradient"})
    r.add(make_kernel_def<FakeQuantVarsOp>(type, "CPU"));
  for (const char* type :
       {"FakeQuantWithMinMaxVarsPerChannel", "FakeQuantWithMinMaxVarsPerChannelGradient"})
    r.add(make_kernel_def<FakeQuantPerChannelOp>(type, "CPU"));
  r.add(make_kernel_def<PrintOp>("Print", "CPU"));
  r.add(make_kernel_def<PrintV2Op>("PrintV2", "CPU"));
  r.add(make_kernel_def<TimestampOp>("Timestamp", "CPU"));
}

}  // namespace detail

}  // namespace af
