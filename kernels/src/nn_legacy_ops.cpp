// The legacy nn ops of old TensorFlow GraphDefs: BatchNormWithGlobalNormalization and its Grad
// (batch_norm_op.cc), QuantizeAndDequantizeV2, V3, V4 and V4Grad
// (quantize_and_dequantize_op.cc/.h), and the graph-transform convolutions FusedPadConv2D and
// FusedResizeAndPadConv2D (conv_ops_fused_image_transform.cc): CPU kernels with TensorFlow's
// checks and messages. The fractional pools are in fractional_pool_ops.cpp; the definitions of
// all of them in ops/src/defs/nn_legacy_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "image_resizer_state.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "tensor_summary.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// strings::StrCat of a float or double, as TensorFlow's messages print values.
template <class T>
std::string str_cat(T v) {
  if constexpr (std::is_same_v<T, double>)
    return detail::format_double(v);
  else
    return detail::format_float(static_cast<float>(v));
}

// Tensor::DebugString(): "Tensor<type: int32 shape: [4,2] values: [0 0][0...]...>".
std::string debug_string(const Tensor& t) {
  return "Tensor<type: " + std::string(data_type_string(t.dtype())) +
         " shape: " + t.shape().to_string() + " values: " + detail::summarize_value(t, 3, false) +
         ">";
}

// -- BatchNormWithGlobalNormalization ------------------------------------------------------

// The attrs both batch norm kernels read.
struct BatchNormAttrs {
  float variance_epsilon = 0;
  bool scale_after_normalization = false;
};

Status read_batch_norm_attrs(OpKernelConstruction& c, BatchNormAttrs* a) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("variance_epsilon", &a->variance_epsilon));
  return c.get_attr("scale_after_normalization", &a->scale_after_normalization);
}

// TensorFlow's "<what> must be 1-dimensional[2,3]" for a vector input.
Status check_vector(const Tensor& t, const char* what) {
  if (t.rank() != 1)
    return invalid_argument(std::string(what) + " must be 1-dimensional" + t.shape().to_string());
  return {};
}

// TensorFlow's kernel reads `depth` values of each vector without checking its length (it
// reads past the end of a shorter one); actorflow refuses it.
Status check_depth(const Tensor& t, const char* what, Index depth) {
  if (t.num_elements() != depth)
    return invalid_argument(std::string(what) + " must have " + std::to_string(depth) +
                            " elements, the input's last dimension, but has " +
                            std::to_string(t.num_elements()));
  return {};
}

// A BatchNorm parameter (a per-channel vector) and its name in TensorFlow's messages.
struct BatchNormParam {
  const Tensor& t;
  const char* name;
};

// check_vector of each parameter, in order.
Status check_vectors(std::initializer_list<BatchNormParam> params) {
  for (const BatchNormParam& p : params) ACTORFLOW_RETURN_IF_ERROR(check_vector(p.t, p.name));
  return {};
}

// check_depth of each parameter, in order.
Status check_depths(std::initializer_list<BatchNormParam> params, Index depth) {
  for (const BatchNormParam& p : params) ACTORFLOW_RETURN_IF_ERROR(check_depth(p.t, p.name, depth));
  return {};
}

// BatchNormWithGlobalNormalization(t, m, v, beta, gamma): (t - m) * rsqrt(v + epsilon)
// [* gamma] + beta along the last dimension of a 4-D t (the functor of batch_norm_op.h, the
// per-channel factor computed first).
template <class T>
class BatchNormOp : public StatusKernel {
 public:
  BatchNormOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_batch_norm_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& mean = ctx.input(1);
    const Tensor& var = ctx.input(2);
    const Tensor& beta = ctx.input(3);
    const Tensor& gamma = ctx.input(4);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
    ACTORFLOW_RETURN_IF_ERROR(
        check_vectors({{mean, "mean"}, {var, "var"}, {beta, "beta"}, {gamma, "gamma"}}));
    const Index depth = input.shape().dim(3);
    ACTORFLOW_RETURN_IF_ERROR(
        check_depths({{mean, "mean"}, {var, "var"}, {beta, "beta"}, {gamma, "gamma"}}, depth));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    if (input.num_elements() == 0) return {};
    const T eps = static_cast<T>(attrs_.variance_epsilon);
    const T* m = mean.data<T>();
    const T* v = var.data<T>();
    const T* b = beta.data<T>();
    const T* g = gamma.data<T>();
    std::vector<T> factor(static_cast<std::size_t>(depth));
    for (Index c = 0; c < depth; ++c) {
      T f = T(1) / std::sqrt(v[c] + eps);
      if (attrs_.scale_after_normalization) f = f * g[c];
      factor[static_cast<std::size_t>(c)] = f;
    }
    const T* x = input.data<T>();
    T* y = out.data<T>();
    const Index rest = input.num_elements() / depth;
    for (Index r = 0; r < rest; ++r)
      for (Index c = 0; c < depth; ++c) {
        const Index at = r * depth + c;
        y[at] = (x[at] - m[c]) * factor[static_cast<std::size_t>(c)] + b[c];
      }
    return {};
  }

 private:
  BatchNormAttrs attrs_;
};

// BatchNormWithGlobalNormalizationGrad(t, m, v, gamma, backprop): dx, dm, dv, db, dg as the
// BatchNormGrad functor computes them, the sums over the rows taken in row order.
template <class T>
class BatchNormGradOp : public StatusKernel {
 public:
  BatchNormGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_batch_norm_attrs(c, &attrs_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& mean = ctx.input(1);
    const Tensor& var = ctx.input(2);
    const Tensor& gamma = ctx.input(3);
    const Tensor& backprop = ctx.input(4);
    if (input.rank() != 4)
      return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
    ACTORFLOW_RETURN_IF_ERROR(check_vectors({{mean, "mean"}, {var, "var"}, {gamma, "gamma"}}));
    if (backprop.rank() != 4)
      return invalid_argument("out_backprop must be 4-dimensional" + backprop.shape().to_string());
    // TensorFlow reads out_backprop as if it had the input's shape; actorflow refuses another.
    if (backprop.shape() != input.shape())
      return invalid_argument("out_backprop must have the shape of the input " +
                              input.shape().to_string() + ", got " + backprop.shape().to_string());
    const Index depth = input.shape().dim(3);
    ACTORFLOW_RETURN_IF_ERROR(
        check_depths({{mean, "mean"}, {var, "var"}, {gamma, "gamma"}}, depth));
    Tensor& dx_t = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    Tensor& dm_t = ctx.allocate_output(1, dtype_of_v<T>, mean.shape());
    Tensor& dv_t = ctx.allocate_output(2, dtype_of_v<T>, var.shape());
    Tensor& db_t = ctx.allocate_output(3, dtype_of_v<T>, mean.shape());
    Tensor& dg_t = ctx.allocate_output(4, dtype_of_v<T>, gamma.shape());
    if (depth == 0) return {};
    const T eps = static_cast<T>(attrs_.variance_epsilon);
    const bool scale = attrs_.scale_after_normalization;
    const T* x = input.data<T>();
    const T* bp = backprop.data<T>();
    const T* m = mean.data<T>();
    const T* v = var.data<T>();
    const T* g = gamma.data<T>();
    T* dx = dx_t.data<T>();
    T* dm = dm_t.data<T>();
    T* dv = dv_t.data<T>();
    T* db = db_t.data<T>();
    T* dg = dg_t.data<T>();
    const Index rest = input.num_elements() / depth;
    // db = sum_over_rest(backprop); scratch2 = sum_over_rest(backprop * (x - m)).
    std::vector<T> scratch2(static_cast<std::size_t>(depth), T(0));
    for (Index r = 0; r < rest; ++r)
      for (Index c = 0; c < depth; ++c) {
        const Index at = r * depth + c;
        db[c] += bp[at];
        scratch2[static_cast<std::size_t>(c)] += bp[at] * (x[at] - m[c]);
      }
    std::vector<T> factor(static_cast<std::size_t>(depth));  // scratch1 [* gamma]
    for (Index c = 0; c < depth; ++c) {
      const T scratch1 = T(1) / std::sqrt(v[c] + eps);
      const std::size_t k = static_cast<std::size_t>(c);
      factor[k] = scale ? scratch1 * g[c] : scratch1;
      dm[c] = -db[c] * factor[k];
      dg[c] = scale ? scratch2[k] * scratch1 : T(0);
      // scratch1 = -1/2 * (v + epsilon) ^ (-3/2)
      const T half_cubed = scratch1 * static_cast<T>(-0.5f) / (v[c] + eps);
      dv[c] = scale ? scratch2[k] * (half_cubed * g[c]) : scratch2[k] * half_cubed;
    }
    for (Index r = 0; r < rest; ++r)
      for (Index c = 0; c < depth; ++c) {
        const Index at = r * depth + c;
        dx[at] = bp[at] * factor[static_cast<std::size_t>(c)];
      }
    return {};
  }

 private:
  BatchNormAttrs attrs_;
};

// -- QuantizeAndDequantize -----------------------------------------------------------------

// What the Eigen reductions of quantize_and_dequantize_op.h give for the minimum and maximum
// of values holding NaN, replayed: Eigen starts from the type's highest (lowest) value, takes
// whole packets (8 floats or 4 doubles, TensorFlow's AVX build) with a NaN-ignoring min, the
// rest one at a time with std::min, where a NaN replaces the running value and the next
// number replaces the NaN; so only a NaN last among the unpacketed values survives.
template <class T>
struct Extrema {
  T min = std::numeric_limits<T>::max();
  T max = std::numeric_limits<T>::lowest();
};

template <class T>
void take_sequential(T v, Extrema<T>* e) {
  e->min = (e->min < v) ? e->min : v;  // std::min(v, accum)
  e->max = (v < e->max) ? e->max : v;  // std::max(v, accum)
}

// The full reduction (one scale) over `n` contiguous values.
template <class T>
Extrema<T> full_extrema(const T* x, Index n) {
  constexpr Index kPacket = std::is_same_v<T, double> ? 4 : 8;
  const Index vectorized = n / kPacket * kPacket;
  Extrema<T> packets, rest;
  for (Index i = 0; i < vectorized; ++i) {
    if (std::isnan(x[i])) continue;
    packets.min = std::min(packets.min, x[i]);
    packets.max = std::max(packets.max, x[i]);
  }
  for (Index i = vectorized; i < n; ++i) take_sequential(x[i], &rest);
  // finalizeBoth: std::min(scalar accumulator, packet result).
  Extrema<T> out;
  out.min = (packets.min < rest.min) ? packets.min : rest.min;
  out.max = (rest.max < packets.max) ? packets.max : rest.max;
  return out;
}

// ComputeQuantizationRange: the scale that keeps 0 fixed and fits [min, max] into the
// quantized range, and the range it adjusts.
template <class T>
void compute_quantization_range(bool signed_input, int num_bits, bool narrow_range, T* min_range,
                                T* max_range, T* scale, T* inverse_scale) {
  const std::int64_t half = std::int64_t{1} << (num_bits - 1);
  const std::int64_t min_quantized = signed_input ? (narrow_range ? -half + 1 : -half) : 0;
  const std::int64_t max_quantized = signed_input ? half - 1 : (std::int64_t{1} << num_bits) - 1;
  const T min_q = static_cast<T>(min_quantized);
  const T max_q = static_cast<T>(max_quantized);
  const T scale_from_min_side =
      (min_q * *min_range > T(0)) ? min_q / *min_range : std::numeric_limits<T>::max();
  const T scale_from_max_side =
      (max_q * *max_range > T(0)) ? max_q / *max_range : std::numeric_limits<T>::max();
  if (scale_from_min_side < scale_from_max_side) {
    *scale = scale_from_min_side;
    *inverse_scale = *min_range / min_q;
    *max_range = max_q * *inverse_scale;
  } else {
    *scale = scale_from_max_side;
    *inverse_scale = *max_range / max_q;
    *min_range = min_q * *inverse_scale;
  }
}

// The quantization every version shares, after its checks.
struct QuantizeParams {
  bool signed_input = true;
  int num_bits = 8;
  bool range_given = false;
  bool half_up = false;
  bool narrow_range = false;
  int axis = -1;
};

// Values quantized with the range [min_range, max_range]: ClampScaleAndRound when the range
// was given, else ScaleAndRound. HALF_TO_EVEN rounds as rint (signed zeros kept), HALF_UP as
// floor(x + 0.5), both in T.
template <class T>
class Quantizer {
 public:
  Quantizer(const QuantizeParams& p, T min_range, T max_range)
      : min_(min_range), max_(max_range), clamp_(p.range_given), half_up_(p.half_up) {
    compute_quantization_range(p.signed_input, p.num_bits, p.narrow_range, &min_, &max_, &scale_,
                               &inverse_scale_);
  }

  T operator()(T v) const {
    if (clamp_) {
      v = (max_ < v) ? max_ : v;  // cwiseMin(max_range)
      v = (v < min_) ? min_ : v;  // cwiseMax(min_range)
    }
    const T scaled = v * scale_;
    const T rounded = half_up_ ? std::floor(scaled + T(0.5)) : std::nearbyint(scaled);
    return rounded * inverse_scale_;
  }

 private:
  T min_, max_, scale_ = 0, inverse_scale_ = 0;
  bool clamp_, half_up_;
};

template <class T>
void quantize_and_dequantize(const Tensor& input, const Tensor& min_t, const Tensor& max_t,
                             const QuantizeParams& p, Tensor& output) {
  const T* x = input.data<T>();
  T* y = output.data<T>();
  if (p.axis == -1) {
    const Index n = input.num_elements();
    Extrema<T> e;
    if (p.range_given) {
      e.min = min_t.data<T>()[0];
      e.max = max_t.data<T>()[0];
    } else {
      e = full_extrema(x, n);
    }
    const Quantizer<T> q(p, e.min, e.max);
    for (Index i = 0; i < n; ++i) y[i] = q(x[i]);
    return;
  }
  // flat_inner_outer_dims<T, 3>(axis - 1): [outer, depth, inner], one range per channel.
  const Shape& s = input.shape();
  Index outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= s.dim(d);
  for (int d = p.axis + 1; d < s.rank(); ++d) inner *= s.dim(d);
  const Index depth = s.dim(p.axis);
  for (Index c = 0; c < depth; ++c) {
    Extrema<T> e;
    if (p.range_given) {
      e.min = min_t.data<T>()[c];
      e.max = max_t.data<T>()[c];
    } else {
      // Eigen reduces dims 0 and 2 one value at a time: std::min's NaN rule, in row order.
      for (Index o = 0; o < outer; ++o)
        for (Index i = 0; i < inner; ++i) take_sequential(x[(o * depth + c) * inner + i], &e);
    }
    const Quantizer<T> q(p, e.min, e.max);
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i) {
        const Index at = (o * depth + c) * inner + i;
        y[at] = q(x[at]);
      }
  }
}

// "num_bits is out of range: 0 with signed_input_ 1" (V3 quotes `signed_input_`).
Status check_num_bits(std::int64_t num_bits, bool signed_input, bool v3) {
  if (num_bits > 0 && num_bits < (signed_input ? 62 : 63)) return {};
  return invalid_argument("num_bits is out of range: " + std::to_string(num_bits) +
                          (v3 ? " with `signed_input_` " : " with signed_input_ ") +
                          (signed_input ? "1" : "0"));
}

// A range of two scalars: "Invalid range: input_min 2 > input_max 1" unless min <= max.
template <class T>
Status check_scalar_range(const Tensor& min_t, const Tensor& max_t) {
  const T min_val = min_t.data<T>()[0], max_val = max_t.data<T>()[0];
  if (!(min_val <= max_val))
    return invalid_argument("Invalid range: input_min " + str_cat(min_val) + " > input_max " +
                            str_cat(max_val));
  return {};
}

// A range given per slice along an axis: both vectors ("Shape must be rank 1 for
// input_min_tensor when the axis is specified").
Status check_range_vectors(const Tensor& min_t, const Tensor& max_t) {
  if (min_t.rank() != 1)
    return invalid_argument("Shape must be rank 1 for input_min_tensor when the axis is specified");
  if (max_t.rank() != 1)
    return invalid_argument("Shape must be rank 1 for input_max_tensor when the axis is specified");
  return {};
}

// QuantizeAndDequantizeV2 and V4 (one kernel in TensorFlow): num_bits an attr, round_mode
// HALF_TO_EVEN or HALF_UP. As TensorFlow 2.21's kernel, a given range must be two scalars, so
// with an axis it is always refused.
template <class T>
class QuantizeAndDequantizeV2Op : public StatusKernel {
 public:
  QuantizeAndDequantizeV2Op(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = init(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int dims = input.rank();
    if (p_.axis < -1)
      return invalid_argument("Axis must be at least -1. Found " + std::to_string(p_.axis));
    if (p_.axis != -1 && p_.axis >= dims)
      return invalid_argument("Shape must be at least rank " + std::to_string(p_.axis + 1) +
                              " but is rank " + std::to_string(dims));
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    const Tensor& min_t = ctx.input(1);
    const Tensor& max_t = ctx.input(2);
    if (p_.range_given) {
      if (p_.axis != -1 && min_t.rank() != 1)
        return invalid_argument(
            "Shape must be rank 1 for input_min_tensor when the axis is specified");
      if (min_t.rank() != 0) return invalid_argument("input_min must be a scalar.");
      if (p_.axis != -1 && max_t.rank() != 1)
        return invalid_argument(
            "Shape must be rank 1 for input_max_tensor when the axis is specified");
      if (max_t.rank() != 0) return invalid_argument("input_max must be a scalar.");
      ACTORFLOW_RETURN_IF_ERROR(check_scalar_range<T>(min_t, max_t));
    }
    quantize_and_dequantize<T>(input, min_t, max_t, p_, output);
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    std::int64_t axis = -1, num_bits = 8;
    c.get_attr("signed_input", &p_.signed_input);
    c.get_attr("axis", &axis);
    c.get_attr("num_bits", &num_bits);
    p_.axis = static_cast<int>(axis);
    ACTORFLOW_RETURN_IF_ERROR(check_num_bits(num_bits, p_.signed_input, false));
    p_.num_bits = static_cast<int>(num_bits);
    c.get_attr("range_given", &p_.range_given);
    std::string round_mode = "HALF_TO_EVEN";
    c.get_attr("round_mode", &round_mode);
    if (round_mode != "HALF_UP" && round_mode != "HALF_TO_EVEN")
      return invalid_argument("Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', is '" +
                              round_mode + "'");
    p_.half_up = round_mode == "HALF_UP";
    c.get_attr("narrow_range", &p_.narrow_range);
    return {};
  }

  QuantizeParams p_;
};

// QuantizeAndDequantizeV3: num_bits an int32 scalar input, rounding half to even, a range
// (given by default) of scalars or, with an axis, of one value per slice.
template <class T>
class QuantizeAndDequantizeV3Op : public StatusKernel {
 public:
  QuantizeAndDequantizeV3Op(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::int64_t axis = -1;
    p_.range_given = true;
    c.get_attr("signed_input", &p_.signed_input);
    c.get_attr("range_given", &p_.range_given);
    c.get_attr("narrow_range", &p_.narrow_range);
    c.get_attr("axis", &axis);
    p_.axis = static_cast<int>(axis);
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int dims = input.rank();
    if (!(-dims <= p_.axis && p_.axis < dims))
      return invalid_argument(
          "Axis requested is larger than input dimensions. Axis: " + std::to_string(p_.axis) +
          " Input Dimensions: " + std::to_string(dims));
    // Below -1 TensorFlow's kernel crashes (dim_size of a negative index).
    if (p_.axis < -1)
      return invalid_argument("Axis must be at least -1. Found " + std::to_string(p_.axis));
    const Index depth = p_.axis == -1 ? 1 : input.shape().dim(p_.axis);
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    const Tensor& num_bits_t = ctx.input(3);
    if (num_bits_t.rank() != 0)
      return invalid_argument(
          "Invalid shape. The `num_bits` tensor should be a scalar. Got dimensions: " +
          std::to_string(num_bits_t.rank()));
    const std::int64_t num_bits = index_values(num_bits_t)[0];
    ACTORFLOW_RETURN_IF_ERROR(check_num_bits(num_bits, p_.signed_input, true));
    QuantizeParams p = p_;
    p.num_bits = static_cast<int>(num_bits);
    const Tensor& min_t = ctx.input(1);
    const Tensor& max_t = ctx.input(2);
    if (p.range_given) {
      if (p.axis == -1) {
        // TensorFlow reads scalar<T>() of each, which crashes for other than one element.
        if (min_t.num_elements() != 1) return invalid_argument("input_min must be a scalar.");
        if (max_t.num_elements() != 1) return invalid_argument("input_max must be a scalar.");
        ACTORFLOW_RETURN_IF_ERROR(check_scalar_range<T>(min_t, max_t));
      } else {
        ACTORFLOW_RETURN_IF_ERROR(check_range_vectors(min_t, max_t));
        for (const auto& [t, name] :
             {std::pair{&min_t, "input_min_tensor"}, std::pair{&max_t, "input_max_tensor"}})
          if (t->shape().dim(0) != depth)
            return invalid_argument(std::string(name) + " has incorrect size, was " +
                                    std::to_string(t->shape().dim(0)) + " expected " +
                                    std::to_string(depth) + " to match dim " +
                                    std::to_string(p.axis) + " of the input " +
                                    t->shape().to_string());
      }
    }
    quantize_and_dequantize<T>(input, min_t, max_t, p, output);
    return {};
  }

 private:
  QuantizeParams p_;
};

// QuantizeAndDequantizeV4Grad(gradients, input, input_min, input_max): the gradient where
// the input lies inside [min, max] (per slice along `axis`), else 0 (a signed zero, as
// gradient * 0); zeros for min and max.
template <class T>
class QuantizeAndDequantizeV4GradOp : public StatusKernel {
 public:
  QuantizeAndDequantizeV4GradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::int64_t axis = -1;
    c.get_attr("axis", &axis);
    axis_ = static_cast<int>(axis);
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& gradient = ctx.input(0);
    const Tensor& input = ctx.input(1);
    Tensor& backprop = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    const int dims = input.rank();
    if (axis_ < -1)
      return invalid_argument("Axis must be at least -1. Found " + std::to_string(axis_));
    if (axis_ != -1 && axis_ >= dims)
      return invalid_argument("Axis should be -1 or 0 or a positive value less than " +
                              std::to_string(dims) + "but given axis value was " +
                              std::to_string(axis_));
    if (input.shape() != gradient.shape())
      return invalid_argument("gradient and input must be the same size");
    const Index depth = axis_ == -1 ? 1 : input.shape().dim(axis_);
    const Tensor& min_t = ctx.input(2);
    const Tensor& max_t = ctx.input(3);
    if (min_t.rank() > 1)
      return invalid_argument("Input min tensor must have dimension 0 or 1. Received " +
                              std::to_string(min_t.rank()) + ".");
    if (max_t.rank() > 1)
      return invalid_argument("Input max tensor must have dimension 0 or 1. Received " +
                              std::to_string(max_t.rank()) + ".");
    if (axis_ != -1) {
      ACTORFLOW_RETURN_IF_ERROR(check_range_vectors(min_t, max_t));
      if (min_t.shape().dim(0) != depth)
        return invalid_argument("min has incorrect size, expected " + std::to_string(depth) +
                                " was " + std::to_string(min_t.shape().dim(0)));
      if (max_t.shape().dim(0) != depth)
        return invalid_argument("max has incorrect size, expected " + std::to_string(depth) +
                                " was " + std::to_string(max_t.shape().dim(0)));
    }
    ctx.allocate_output(1, dtype_of_v<T>, min_t.shape());
    ctx.allocate_output(2, dtype_of_v<T>, min_t.shape());
    if (axis_ == -1) {
      if (min_t.rank() != 0)
        return invalid_argument("input_min must be a scalar if axis is unspecified");
      if (max_t.rank() != 0)
        return invalid_argument("input_max must be a scalar if axis is unspecified");
    }
    const Shape& s = input.shape();
    Index outer = 1, inner = 1;
    if (axis_ != -1) {
      for (int d = 0; d < axis_; ++d) outer *= s.dim(d);
      for (int d = axis_ + 1; d < dims; ++d) inner *= s.dim(d);
    } else {
      inner = input.num_elements();
    }
    const T* g = gradient.data<T>();
    const T* x = input.data<T>();
    T* dx = backprop.data<T>();
    for (Index o = 0; o < outer; ++o)
      for (Index c = 0; c < depth; ++c) {
        const T lo = min_t.data<T>()[c], hi = max_t.data<T>()[c];
        for (Index i = 0; i < inner; ++i) {
          const Index at = (o * depth + c) * inner + i;
          dx[at] = g[at] * ((x[at] >= lo && x[at] <= hi) ? T(1) : T(0));
        }
      }
    return {};
  }

 private:
  int axis_ = -1;
};

// -- FusedPadConv2D and FusedResizeAndPadConv2D --------------------------------------------

// The arithmetic type of a convolution of T: bfloat16 sums in float, rounded once.
template <class T>
using Acc = std::conditional_t<is_half_like_v<T>, float, T>;

// FusedResizeConv2DUsingGemmOp: a bilinear resize (FusedResizeAndPadConv2D, the legacy
// corner-aligned arithmetic without half-pixel centers) or none (FusedPadConv2D), a REFLECT or
// SYMMETRIC mirror padding of H and W, then a Conv2D. As TensorFlow's functor, the first
// window starts where its own offsets put it: ((out - 1) * stride + filter - padded [+ 1 for
// VALID]) / 2 before the padded image, which for a stride above the filter differs from
// Conv2D's (TensorFlow's values are kept).
template <class T, bool kResize>
class FusedConvOp : public StatusKernel {
 public:
  FusedConvOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = init(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.num_elements() <= 0) return invalid_argument("Input tensor can't be empty");
    // The image the padding mirrors: the input, or its resize.
    Index batch = 0, rows = 0, cols = 0, depth = 0;
    std::vector<Acc<T>> image;
    if constexpr (kResize) {
      detail::ResizerState st;
      ACTORFLOW_RETURN_IF_ERROR(
          st.validate_and_create_output(ctx, dtype_of_v<T>, align_corners_, false));
      batch = st.batch;
      rows = st.out_height;
      cols = st.out_width;
      depth = st.channels;
      image = resize(input, st);
    } else {
      // TensorFlow reads dims 0 to 3 unchecked (crashing below rank 4).
      if (input.rank() != 4)
        return invalid_argument("input must be 4-dimensional" + input.shape().to_string());
      batch = input.shape().dim(0);
      rows = input.shape().dim(1);
      cols = input.shape().dim(2);
      depth = input.shape().dim(3);
      const T* x = input.data<T>();
      image.resize(static_cast<std::size_t>(input.num_elements()));
      for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<Acc<T>>(x[i]);
    }
    const Shape resized{batch, rows, cols, depth};
    const Tensor& paddings = ctx.input(kResize ? 2 : 1);
    if (paddings.rank() != 2 || paddings.shape().dim(1) != 2)
      return invalid_argument("paddings must be a matrix with 2 columns: " +
                              paddings.shape().to_string());
    if (paddings.shape().dim(0) != 4)
      return invalid_argument("The first dimension of paddings must be the rank of inputs: 4 " +
                              paddings.shape().to_string() + " " + resized.to_string());
    const std::vector<std::int64_t> pads = index_values(paddings);
    std::vector<std::int64_t> padded(4);
    for (int d = 0; d < 4; ++d) {
      const std::int64_t before = pads[static_cast<std::size_t>(2 * d)];
      const std::int64_t after = pads[static_cast<std::size_t>(2 * d + 1)];
      const Index size = resized.dim(d);
      if (before < 0 || after < 0)
        return invalid_argument("paddings must be non-negative: " + std::to_string(before) + " " +
                                std::to_string(after));
      if (offset_ == 0 && (before > size || after > size))
        return invalid_argument(
            "paddings must be no greater than the dimension size: " + std::to_string(before) +
            ", " + std::to_string(after) + " greater than " + std::to_string(size));
      if (offset_ == 1 && (before >= size || after >= size))
        return invalid_argument(
            "paddings must be less than the dimension size: " + std::to_string(before) + ", " +
            std::to_string(after) + " not less than " + std::to_string(size));
      padded[static_cast<std::size_t>(d)] = before + size + after;
    }
    if (pads[0] != 0 || pads[1] != 0)
      return invalid_argument("Fused mirror padding only support spatial padding, not batches: " +
                              debug_string(paddings));
    if (pads[6] != 0 || pads[7] != 0)
      return invalid_argument("Fused mirror padding only support spatial padding, not channels: " +
                              debug_string(paddings));
    const Tensor& filter = ctx.input(kResize ? 3 : 2);
    if (filter.rank() != 4)
      return invalid_argument("filter must be 4-dimensional: " + filter.shape().to_string());
    if (depth != filter.shape().dim(2))
      return invalid_argument(
          "input and filter must have the same depth: " + std::to_string(depth) + " vs " +
          std::to_string(filter.shape().dim(2)));
    const Index filter_rows = filter.shape().dim(0), filter_cols = filter.shape().dim(1);
    const Index out_depth = filter.shape().dim(3);
    const Index padded_rows = padded[1], padded_cols = padded[2];
    auto out_rows = windowed_output_size(padded_rows, filter_rows, strides_[1], padding_);
    if (!out_rows.ok()) return out_rows.status();
    auto out_cols = windowed_output_size(padded_cols, filter_cols, strides_[2], padding_);
    if (!out_cols.ok()) return out_cols.status();
    const Shape out_shape{batch, out_rows->output, out_cols->output, out_depth};
    if (out_shape.num_elements() <= 0) return invalid_argument("Output tensor can't be empty");
    Tensor& output = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    Geometry g;
    g.batch = batch;
    g.rows = rows;
    g.cols = cols;
    g.depth = depth;
    g.padded_rows = padded_rows;
    g.padded_cols = padded_cols;
    g.top = pads[2];
    g.left = pads[4];
    g.filter_rows = filter_rows;
    g.filter_cols = filter_cols;
    g.out_depth = out_depth;
    g.out_rows = out_rows->output;
    g.out_cols = out_cols->output;
    g.stride_rows = strides_[1];
    g.stride_cols = strides_[2];
    return convolve(image, g, filter.data<T>(), output.data<T>());
  }

 private:
  struct Geometry {
    Index batch = 0, rows = 0, cols = 0, depth = 0;  // the image before padding
    Index padded_rows = 0, padded_cols = 0, top = 0, left = 0;
    Index filter_rows = 0, filter_cols = 0, out_depth = 0;
    Index out_rows = 0, out_cols = 0, stride_rows = 1, stride_cols = 1;
  };

  Status init(OpKernelConstruction& c) {
    if (kResize && !c.get_attr("resize_align_corners", &align_corners_).ok())
      align_corners_ = false;
    std::string mode;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("mode", &mode));
    if (mode == "SYMMETRIC")
      offset_ = 0;
    else if (mode == "REFLECT")
      offset_ = 1;
    else
      return invalid_argument("mode must be either REFLECT or SYMMETRIC.");
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("strides", &strides_));
    if (strides_.size() != 4)
      return invalid_argument("Sliding window strides field must specify 4 dimensions");
    if (strides_[0] != 1 || strides_[3] != 1)
      return invalid_argument(
          "Current implementation does not yet support strides in the batch and depth "
          "dimensions.");
    return c.get_attr("padding", &padding_);
  }

  // The mirror of padded coordinate `at` into [0, size): `offset_` 1 leaves the edge out
  // (REFLECT), 0 repeats it (SYMMETRIC); the paddings are checked to need one reflection.
  Index mirror(Index at, Index before, Index size) const {
    Index in = at - before;
    if (in < 0) return -(in + 1 - offset_);
    if (in >= size) return size * 2 - (in + 1 + offset_);
    return in;
  }

  // The bilinear resize of `input` to st's size as the functor samples it (float
  // coordinates, lerps rounded to float, interpolation in T).
  static std::vector<Acc<T>> resize(const Tensor& input, const detail::ResizerState& st) {
    const Index in_rows = st.in_height, in_cols = st.in_width, depth = st.channels;
    std::vector<Acc<T>> out(
        static_cast<std::size_t>(st.batch * st.out_height * st.out_width * depth));
    const T* x = input.data<T>();
    for (Index b = 0; b < st.batch; ++b)
      for (Index oy = 0; oy < st.out_height; ++oy) {
        const float in_y = static_cast<float>(oy) * st.height_scale;
        const auto top = static_cast<Index>(std::floor(in_y));
        const Index bottom = std::min(static_cast<Index>(std::ceil(in_y)), in_rows - 1);
        const T y_lerp = static_cast<T>(in_y - static_cast<float>(top));
        for (Index ox = 0; ox < st.out_width; ++ox) {
          const float in_x = static_cast<float>(ox) * st.width_scale;
          const auto left = static_cast<Index>(std::floor(in_x));
          const Index right = std::min(static_cast<Index>(std::ceil(in_x)), in_cols - 1);
          const T x_lerp = static_cast<T>(in_x - static_cast<float>(left));
          const T* tl = x + ((b * in_rows + top) * in_cols + left) * depth;
          const T* tr = x + ((b * in_rows + top) * in_cols + right) * depth;
          const T* bl = x + ((b * in_rows + bottom) * in_cols + left) * depth;
          const T* br = x + ((b * in_rows + bottom) * in_cols + right) * depth;
          Acc<T>* o = out.data() + ((b * st.out_height + oy) * st.out_width + ox) * depth;
          for (Index c = 0; c < depth; ++c) {
            const T t = tl[c] + (tr[c] - tl[c]) * x_lerp;
            const T bo = bl[c] + (br[c] - bl[c]) * x_lerp;
            o[c] = t + (bo - t) * y_lerp;
          }
        }
      }
    return out;
  }

  // The convolution of the mirrored image, zero outside the padded image, each output a sum
  // over (filter row, filter column, input channel) in that order. The rows come through
  // TensorFlow's resize cache, replayed: a ring of `cache_height` rows (y modulo the height)
  // filled only while the rows needed run past the last one filled. That mark is not reset
  // between the images of a batch, so every image after the first reads the rows the first
  // left in the ring (its own rows never computed), as TensorFlow's kernel does.
  Status convolve(const std::vector<Acc<T>>& image, const Geometry& g, const T* filter,
                  T* out) const {
    constexpr Index kMaxChunkSize = 16 * 1024 * 1024;
    constexpr Index kResizeCacheSize = 8 * 1024 * 1024;
    const bool valid = padding_ == "VALID";
    const Index top_offset =
        ((g.out_rows - 1) * g.stride_rows + g.filter_rows - g.padded_rows + (valid ? 1 : 0)) / 2;
    const Index left_offset =
        ((g.out_cols - 1) * g.stride_cols + g.filter_cols - g.padded_cols + (valid ? 1 : 0)) / 2;
    const auto element = static_cast<Index>(sizeof(T));
    if (g.filter_cols * g.filter_rows * g.depth * element > kMaxChunkSize)
      return invalid_argument("Im2Col patch too large for buffer");
    const Index cache_start_x = -left_offset;
    const Index cache_end_x = ((g.out_cols - 1) * g.stride_cols - left_offset) + g.filter_cols;
    const Index cache_line_width = cache_end_x - cache_start_x;
    const Index cache_height = kResizeCacheSize / (cache_line_width * g.depth);
    if (g.filter_rows * cache_line_width * g.depth * element > kResizeCacheSize)
      return invalid_argument("Input too large for resize cache");
    // The ring's slots: which image and padded row each holds.
    std::unordered_map<Index, std::pair<Index, Index>> slots;
    auto slot_of = [cache_height](Index y) {
      return y < 0 ? cache_height + (y % cache_height) : y % cache_height;
    };
    std::vector<Acc<T>> w(
        static_cast<std::size_t>(g.filter_rows * g.filter_cols * g.depth * g.out_depth));
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<Acc<T>>(filter[i]);
    std::vector<Acc<T>> sum(static_cast<std::size_t>(g.out_depth));
    Index end_cached_lines = std::numeric_limits<int>::min();
    const Index in_y_end = (g.out_rows * g.stride_rows - top_offset) + g.filter_rows;
    for (Index b = 0; b < g.batch; ++b)
      for (Index oy = 0; oy < g.out_rows; ++oy) {
        const Index in_y_origin = oy * g.stride_rows - top_offset;
        if (end_cached_lines < in_y_origin + g.filter_rows) {
          const Index cache_start_y = std::max(in_y_origin, end_cached_lines);
          const Index cache_end_y =
              std::min(in_y_end, std::max(in_y_origin + cache_height, end_cached_lines));
          for (Index y = cache_start_y; y < cache_end_y; ++y) slots[slot_of(y)] = {b, y};
          end_cached_lines = cache_end_y;
        }
        for (Index ox = 0; ox < g.out_cols; ++ox) {
          std::fill(sum.begin(), sum.end(), Acc<T>(0));
          for (Index fy = 0; fy < g.filter_rows; ++fy) {
            const auto [rb, py] = slots.at(slot_of(in_y_origin + fy));
            if (py < 0 || py >= g.padded_rows) continue;
            const Index iy = mirror(py, g.top, g.rows);
            for (Index fx = 0; fx < g.filter_cols; ++fx) {
              const Index px = ox * g.stride_cols - left_offset + fx;
              if (px < 0 || px >= g.padded_cols) continue;
              const Index ix = mirror(px, g.left, g.cols);
              const Acc<T>* pixel = image.data() + ((rb * g.rows + iy) * g.cols + ix) * g.depth;
              const Acc<T>* taps = w.data() + (fy * g.filter_cols + fx) * g.depth * g.out_depth;
              for (Index ci = 0; ci < g.depth; ++ci) {
                const Acc<T> v = pixel[ci];
                const Acc<T>* row = taps + ci * g.out_depth;
                for (Index co = 0; co < g.out_depth; ++co)
                  sum[static_cast<std::size_t>(co)] += v * row[co];
              }
            }
          }
          T* o = out + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
          for (Index co = 0; co < g.out_depth; ++co)
            o[co] = static_cast<T>(sum[static_cast<std::size_t>(co)]);
        }
      }
    return {};
  }

  bool align_corners_ = false;
  int offset_ = 1;
  std::vector<std::int64_t> strides_;
  std::string padding_;
};

template <class T>
using FusedPadConvOp = FusedConvOp<T, false>;
template <class T>
using FusedResizeAndPadConvOp = FusedConvOp<T, true>;

}  // namespace

namespace detail {

void register_nn_legacy_kernels(KernelRegistry& r) {
  // TensorFlow registers half too (here through the float kernels).
  register_for_types<BatchNormOp, float, double>(r, "BatchNormWithGlobalNormalization");
  register_for_types<BatchNormGradOp, float, double>(r, "BatchNormWithGlobalNormalizationGrad");
  register_via_float<half_t>(r, "BatchNormWithGlobalNormalization",
                             make_kernel_def<BatchNormOp<float>>("", "").factory);
  register_via_float<half_t>(r, "BatchNormWithGlobalNormalizationGrad",
                             make_kernel_def<BatchNormGradOp<float>>("", "").factory);
  register_for_types<QuantizeAndDequantizeV2Op, float, double>(r, "QuantizeAndDequantizeV2");
  register_for_types<QuantizeAndDequantizeV2Op, float, double>(r, "QuantizeAndDequantizeV4");
  register_for_types<QuantizeAndDequantizeV3Op, float, double>(r, "QuantizeAndDequantizeV3");
  register_for_types<QuantizeAndDequantizeV4GradOp, float, double>(r,
                                                                   "QuantizeAndDequantizeV4Grad");
  register_for_types<FusedPadConvOp, bfloat16_t, float, double>(r, "FusedPadConv2D");
  register_for_types<FusedResizeAndPadConvOp, float, double>(r, "FusedResizeAndPadConv2D");
  register_via_float<half_t>(r, "FusedPadConv2D",
                             make_kernel_def<FusedPadConvOp<float>>("", "").factory);
  register_via_float<half_t>(r, "FusedResizeAndPadConv2D",
                             make_kernel_def<FusedResizeAndPadConvOp<float>>("", "").factory);
}

}  // namespace detail

}  // namespace af
