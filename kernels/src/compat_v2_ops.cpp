// Op types that TensorFlow 2.x writes into tf.compat.v1 graphs where TensorFlow 1.x wrote
// others, and the string ops of the sharded Saver: PlaceholderWithDefault, DivNoNan,
// SelectV2, BroadcastTo, LeakyRelu, LeakyReluGrad, StringJoin and ShardedFilename (the Saver's
// StaticRegexFullMatch is with the other RE2 kernels in regex_ops.cpp). CPU kernels, with
// TensorFlow's semantics and messages (array_ops.cc, math_ops.cc, nn_ops.cc, string_ops.cc and
// their kernels). Their definitions (shape functions) are in ops/src/defs/compat_v2_ops.cpp.
#include <array>
#include <cstdio>

#include "actorflow/ops/detail/shape_util.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;

std::string shape_string(const Shape& s) { return inference_shape_string(PartialShape(s)); }

/// Numpy broadcasting of static shapes; false when they do not broadcast.
bool broadcast_static(const Shape& a, const Shape& b, Shape* out) {
  PartialShape p;
  if (!broadcast_shapes(PartialShape(a), PartialShape(b), &p).ok()) return false;
  *out = *p.to_shape();
  return true;
}

/// Per output dimension, the step in `in`'s elements (0 where `in` is broadcast).
std::vector<Index> broadcast_strides(const Shape& in, const Shape& out) {
  const int rank = out.rank(), in_rank = in.rank();
  std::vector<Index> strides(static_cast<std::size_t>(rank), 0);
  Index stride = 1;
  for (int i = in_rank - 1; i >= 0; --i) {
    strides[static_cast<std::size_t>(rank - in_rank + i)] = in.dim(i) == 1 ? 0 : stride;
    stride *= in.dim(i);
  }
  return strides;
}

/// Calls `f(k, offsets)` for every element k of `out`, with each input's element offset.
template <std::size_t N, class F>
void broadcast_loop(const Shape& out, const std::array<std::vector<Index>, N>& strides, F f) {
  const int rank = out.rank();
  const Index n = out.num_elements();
  std::vector<Index> index(static_cast<std::size_t>(rank), 0);
  std::array<Index, N> offsets{};
  for (Index k = 0; k < n; ++k) {
    f(k, offsets);
    for (int d = rank - 1; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      ++index[du];
      for (std::size_t j = 0; j < N; ++j) offsets[j] += strides[j][du];
      if (index[du] < out.dim(d)) break;
      for (std::size_t j = 0; j < N; ++j) offsets[j] -= strides[j][du] * out.dim(d);
      index[du] = 0;
    }
  }
}

// -- PlaceholderWithDefault ---------------------------------------------------------------

class PlaceholderWithDefaultOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

// -- DivNoNan -----------------------------------------------------------------------------

// x / y, and 0 where y is 0 (even when x is 0, inf or NaN), as TensorFlow's div_no_nan_op.
struct DivNoNanFn {
  static constexpr double kCycles = 2;
  template <class C>
  C operator()(C x, C y) const {
    return y == C(0) ? C(0) : x / y;
  }
};
template <class T>
using DivNoNanKernel = BinaryOp<DivNoNanFn, T>;

// -- SelectV2 -----------------------------------------------------------------------------

template <class T>
class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor &cond = ctx.input(0), &t = ctx.input(1), &e = ctx.input(2);
    Shape te, out_shape;
    if (!broadcast_static(t.shape(), e.shape(), &te) ||
        !broadcast_static(cond.shape(), te, &out_shape))
      return ctx.fail(invalid_argument("condition " + shape_string(cond.shape()) + ", then " +
                                       shape_string(t.shape()) + ", and else " +
                                       shape_string(e.shape()) + " must be broadcastable"));
    Tensor& out = ctx.allocate_output_for_overwrite(0, t.dtype(), out_shape);
    const bool* c = cond.data<bool>();
    const T* a = t.data<T>();
    const T* b = e.data<T>();
    T* o = out.data<T>();
    broadcast_loop<3>(
        out_shape,
        {broadcast_strides(cond.shape(), out_shape), broadcast_strides(t.shape(), out_shape),
         broadcast_strides(e.shape(), out_shape)},
        [&](Index k, const std::array<Index, 3>& off) {
          o[k] = c[off[0]] ? a[off[1]] : b[off[2]];
        });
  }
};

// -- BroadcastTo --------------------------------------------------------------------------

template <class T>
class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& shape = ctx.input(1);
    if (shape.rank() != 1)
      return ctx.fail(
          invalid_argument("shape must be a vector, got " + shape_string(shape.shape())));
    std::vector<std::int64_t> dims;
    for (Index i = 0; i < shape.num_elements(); ++i) {
      const std::int64_t d = shape.dtype() == DType::int32
                                 ? shape.flat<std::int32_t>()[static_cast<std::size_t>(i)]
                                 : shape.flat<std::int64_t>()[static_cast<std::size_t>(i)];
      if (d < 0)
        return ctx.fail(invalid_argument("Dimension " + std::to_string(d) + " must be >= 0"));
      dims.push_back(d);
    }
    const Shape target(dims);
    Shape out_shape;
    if (in.rank() > target.rank() || !broadcast_static(in.shape(), target, &out_shape) ||
        !(out_shape == target))
      return ctx.fail(invalid_argument("Unable to broadcast tensor of shape " +
                                       shape_string(in.shape()) + " to tensor of shape " +
                                       shape_string(target)));
    if (in.shape() == target) return ctx.set_output(0, in);
    Tensor& out = ctx.allocate_output_for_overwrite(0, in.dtype(), target);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    broadcast_loop<1>(target, {broadcast_strides(in.shape(), target)},
                      [&](Index k, const std::array<Index, 1>& off) { o[k] = x[off[0]]; });
  }
};

// -- LeakyRelu ----------------------------------------------------------------------------

template <class T>
class LeakyReluOp : public OpKernel {
 public:
  LeakyReluOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    alpha_ = 0.2f;
    c.get_attr("alpha", &alpha_);
    (void)s;
  }
  void compute(OpKernelContext& ctx) override {
    const bool grad = type() == "LeakyReluGrad";
    const Tensor& features = ctx.input(grad ? 1 : 0);
    const Tensor& g = ctx.input(0);
    if (grad && g.shape() != features.shape())
      return ctx.fail(invalid_argument(
          "gradients and features must have the same shape: " + shape_string(g.shape()) + " vs. " +
          shape_string(features.shape())));
    Tensor& out = ctx.allocate_output_for_overwrite(0, features.dtype(), features.shape());
    const T* f = features.data<T>();
    const T* d = g.data<T>();
    T* o = out.data<T>();
    const auto alpha = static_cast<compute_t<T>>(alpha_);
    for (Index i = 0; i < features.num_elements(); ++i) {
      const auto fi = to_compute(f[i]);
      const auto v = to_compute(d[i]);  // features themselves for LeakyRelu
      o[i] = from_compute<T>(fi > 0 ? v : v * alpha);
    }
  }

 private:
  float alpha_;
};

// -- string ops ---------------------------------------------------------------------------

class StringJoinOp : public OpKernel {
 public:
  StringJoinOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    (void)c.get_attr("separator", &separator_), (void)s;
  }
  void compute(OpKernelContext& ctx) override {
    const Shape* shape = nullptr;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.rank() == 0) continue;
      if (shape && !(*shape == t.shape()))
        return ctx.fail(invalid_argument("Input shapes do not match: " + shape_string(*shape) +
                                         " vs. " + shape_string(t.shape())));
      shape = &t.shape();
    }
    Tensor& out = ctx.allocate_output(0, DType::string, shape ? *shape : Shape{});
    std::string* o = out.data<std::string>();
    for (Index k = 0; k < out.num_elements(); ++k)
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& t = ctx.input(i);
        if (i > 0) o[k] += separator_;
        o[k] += t.data<std::string>()[t.rank() == 0 ? 0 : k];
      }
  }

 private:
  std::string separator_;
};

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor &base = ctx.input(0), &shard = ctx.input(1), &shards = ctx.input(2);
    for (const Tensor* t : {&base, &shard, &shards})
      if (t->num_elements() != 1)
        return ctx.fail(invalid_argument("ShardedFilename expects scalars, got a tensor of shape " +
                                         shape_string(t->shape())));
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d", shard.data<std::int32_t>()[0],
                  shards.data<std::int32_t>()[0]);
    ctx.allocate_output(0, DType::string, Shape{}).data<std::string>()[0] =
        base.data<std::string>()[0] + suffix;
  }
};

}  // namespace

namespace detail {

void register_compat_v2_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<PlaceholderWithDefaultOp>("PlaceholderWithDefault", "CPU",
                                                  {{"dtype", detail::kValueTypes}}));
  register_for_list<DivNoNanKernel>(r, "DivNoNan", FloatComplexTypes{});
  using AllValues = Concat<NumberTypes, TypeList<bool, std::string>>;
  register_for_list<SelectV2Op>(r, "SelectV2", AllValues{});
  register_for_list<BroadcastToOp>(r, "BroadcastTo", AllValues{});
  register_for_types<LeakyReluOp, float, double, bfloat16_t, half_t>(r, "LeakyRelu");
  register_for_types<LeakyReluOp, float, double, bfloat16_t, half_t>(r, "LeakyReluGrad");
  r.add(make_kernel_def<StringJoinOp>("StringJoin", "CPU"));
  r.add(make_kernel_def<ShardedFilenameOp>("ShardedFilename", "CPU"));
}

}  // namespace detail

}  // namespace af
