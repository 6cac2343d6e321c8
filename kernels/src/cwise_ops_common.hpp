#pragma once

// Machinery shared by the element-wise kernels (math_ops.cpp and the cwise_*.cpp files):
// element-type helpers, parallel loops, the broadcasting binary kernel `BinaryOp` and the
// unary kernel `UnaryOp`. Private to the kernels module (TensorFlow's cwise_ops_common.h plays
// this part there); the ops' shape functions and builders are in
// actorflow/ops/detail/cwise_defs.hpp.
//
// Functors describe one element operation:
//   unary:  `C operator()(C) const`, `kCycles`, `kEigen` and, when `kEigen`, a static
//           `eigen(out, in)` over Eigen tensor maps (floating-point types only).
//   binary: `R operator()(C, C) const`, `kCycles`; optionally `kChecksZero` (integer divisors
//           must be nonzero), `kChecksNegative` (integer exponents must be >= 0) and a static
//           `eigen(x, y)` over Eigen arrays used for float and double.
// `C` is the compute type (float for bfloat16); a binary functor returning bool (comparisons)
// produces a bool tensor.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
// Eigen 3.4's thread-pool code captures `this` implicitly, deprecated in C++20.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/CXX11/Tensor>
#pragma GCC diagnostic pop

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "kernel_helpers.hpp"

namespace af::cwise {

/// TensorFlow's `forward_input_or_allocate_output` for element-wise kernels: when input
/// `input` is a host tensor of `R` and `shape` whose buffer no one else holds (not a
/// variable's value, a feed or a constant), it becomes output 0 and the kernel writes over
/// what it reads, element by element; otherwise a fresh output. An initializer's
/// `RandomUniform * scale + min` then needs one buffer, not three.
template <class R>
R* forward_input_or_allocate_output(OpKernelContext& ctx, int input, const Shape& shape) {
  const Tensor& in = ctx.input(input);
  if (in.dtype() == dtype_of_v<R> && !in.on_device() && in.sole_owner() && in.shape() == shape) {
    ctx.set_output(0, in);
    return ctx.outputs()[0].template data<R>();
  }
  return ctx.allocate_output_for_overwrite(0, dtype_of_v<R>, shape).template data<R>();
}

// Kernels with more elements than this are worth a pool thread (and are split over the
// intra-op pool); below it the hand-off costs more than the work.
inline constexpr Index kExpensiveElements = 16 * 1024;
// Collapsed ranks supported by the broadcasting and reduction loops.
inline constexpr int kMaxCollapsedRank = 16;

// -- element types ------------------------------------------------------------------------

// bfloat16 and float16 are computed in float, as TensorFlow's CPU kernels do.
template <class T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<bfloat16_t> {
  using type = float;
};
template <>
struct compute_type<half_t> {
  using type = float;
};
template <class T>
using compute_t = typename compute_type<T>::type;

template <class T>
compute_t<T> to_compute(T v) {
  return static_cast<compute_t<T>>(v);
}
template <class T>
T from_compute(compute_t<T> v) {
  if constexpr (is_half_like_v<T>)
    return T(v);
  else
    return v;
}
// The complex conjugate of a complex compute value; real values are their own (what the
// gradient functors apply to an op's output, as TensorFlow's numext::conj).
template <class C>
C conj_of(C v) {
  if constexpr (is_complex_v<C>)
    return std::conj(v);
  else
    return v;
}

// Stores a functor's result as output element type R (bool results stay bool).
template <class R, class V>
R to_output(V v) {
  if constexpr (std::is_same_v<R, bool>)
    return static_cast<bool>(v);
  else
    return from_compute<R>(v);
}

// Integer arithmetic wraps around (as TensorFlow's kernels do in practice) without the
// undefined behaviour of signed overflow.
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // uint8 operands promote to int; their product always fits.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <class T>
T wrapping_neg(T a) {
  return wrapping_sub(T(0), a);
}

// -- parallel loops -----------------------------------------------------------------------

/// Runs `fn(begin, end)` over [0, n): split over the intra-op pool when `total_work` (element
/// operations) pays for the hand-off, else inline on the calling thread without allocating.
template <class F>
void parallel_for(const OpKernelContext& ctx, Index n, Index total_work,
                  const Eigen::TensorOpCost& unit_cost, F&& fn) {
  Eigen::ThreadPoolDevice* device = ctx.eigen_device;
  if (device != nullptr && n > 1 && total_work >= kExpensiveElements && device->numThreads() > 1) {
    device->parallelFor(n, unit_cost, [&fn](Eigen::Index begin, Eigen::Index end) {
      fn(static_cast<Index>(begin), static_cast<Index>(end));
    });
  } else {
    fn(Index{0}, n);
  }
}

template <class T>
Eigen::TensorOpCost elementwise_cost(int inputs, double cycles) {
  return Eigen::TensorOpCost(static_cast<double>(inputs * sizeof(T)),
                             static_cast<double>(sizeof(T)), cycles);
}

// -- binary element-wise ops --------------------------------------------------------------

// Floating-point loops go through Eigen's explicit SIMD packets where the functor has an
// Eigen form: the project builds at -O2, where GCC does not vectorise loops of unknown trip
// count. Integer and bfloat16 loops are plain (integer arithmetic must wrap, bfloat16
// converts per element).
template <class T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

/// True when binary functor `Fn` has an Eigen form for element type T (float and double).
template <class Fn, class T>
concept EigenBinary = std::is_floating_point_v<T> && requires(ConstArrayMap<T> a) {
  Fn::eigen(a, a);
};
/// True when integer divisors of `Fn` must be nonzero (Div, FloorDiv, FloorMod).
template <class Fn>
concept ChecksZero = requires {
  requires Fn::kChecksZero;
};
/// True when integer exponents of `Fn` must be nonnegative (Pow).
template <class Fn>
concept ChecksNegative = requires {
  requires Fn::kChecksNegative;
};

template <class Fn, class T, class R>
void binary_vv(const T* __restrict x, const T* __restrict y, R* __restrict out, Index n) {
  if constexpr (EigenBinary<Fn, T>) {
    ArrayMap<R>(out, n) = Fn::eigen(ConstArrayMap<T>(x, n), ConstArrayMap<T>(y, n));
  } else {
    Fn fn;
    for (Index i = 0; i < n; ++i) out[i] = to_output<R>(fn(to_compute(x[i]), to_compute(y[i])));
  }
}
template <class Fn, class T, class R>
void binary_sv(T x, const T* __restrict y, R* __restrict out, Index n) {
  if constexpr (EigenBinary<Fn, T>) {
    ArrayMap<R>(out, n) =
        Fn::eigen(Eigen::Array<T, Eigen::Dynamic, 1>::Constant(n, x), ConstArrayMap<T>(y, n));
  } else {
    Fn fn;
    auto xv = to_compute(x);
    for (Index i = 0; i < n; ++i) out[i] = to_output<R>(fn(xv, to_compute(y[i])));
  }
}
template <class Fn, class T, class R>
void binary_vs(const T* __restrict x, T y, R* __restrict out, Index n) {
  if constexpr (EigenBinary<Fn, T>) {
    ArrayMap<R>(out, n) =
        Fn::eigen(ConstArrayMap<T>(x, n), Eigen::Array<T, Eigen::Dynamic, 1>::Constant(n, y));
  } else {
    Fn fn;
    auto yv = to_compute(y);
    for (Index i = 0; i < n; ++i) out[i] = to_output<R>(fn(to_compute(x[i]), yv));
  }
}

/// NumPy broadcasting of two shapes, with adjacent dimensions of the same broadcasting
/// pattern collapsed into one, so loops see few dimensions (often two).
struct BroadcastPlan {
  int rank = 0;
  std::array<Index, kMaxCollapsedRank> dims{};
  std::array<Index, kMaxCollapsedRank> x_strides{};  // 0 where x is broadcast
  std::array<Index, kMaxCollapsedRank> y_strides{};
};

/// Plans the broadcast of `x` and `y`; InvalidArgument "Incompatible shapes: [2] vs. [3]".
inline Status make_broadcast_plan(const Shape& x, const Shape& y, Shape* out_shape,
                                  BroadcastPlan* plan) {
  const int rx = x.rank(), ry = y.rank(), rank = std::max(rx, ry);
  std::vector<std::int64_t> out_dims(static_cast<std::size_t>(rank));
  std::array<int, kMaxCollapsedRank> patterns{};
  int prev_pattern = -1;
  plan->rank = 0;
  for (int i = 0; i < rank; ++i) {
    Index dx = i >= rank - rx ? x.dim(i - (rank - rx)) : 1;
    Index dy = i >= rank - ry ? y.dim(i - (rank - ry)) : 1;
    if (dx != dy && dx != 1 && dy != 1)
      return invalid_argument("Incompatible shapes: " + x.to_string() + " vs. " + y.to_string());
    Index d = dx == 1 ? dy : dx;
    out_dims[static_cast<std::size_t>(i)] = d;
    if (d == 1) continue;
    int pattern = (dx == 1 ? 1 : 0) | (dy == 1 ? 2 : 0);
    if (pattern == prev_pattern) {
      plan->dims[static_cast<std::size_t>(plan->rank - 1)] *= d;
      continue;
    }
    if (plan->rank == kMaxCollapsedRank)
      return unimplemented("Broadcast between " + x.to_string() + " and " + y.to_string() +
                           " is not supported yet.");
    plan->dims[static_cast<std::size_t>(plan->rank)] = d;
    patterns[static_cast<std::size_t>(plan->rank)] = pattern;
    ++plan->rank;
    prev_pattern = pattern;
  }
  Index sx = 1, sy = 1;
  for (int i = plan->rank - 1; i >= 0; --i) {
    auto u = static_cast<std::size_t>(i);
    plan->x_strides[u] = (patterns[u] & 1) ? 0 : sx;
    plan->y_strides[u] = (patterns[u] & 2) ? 0 : sy;
    if (!(patterns[u] & 1)) sx *= plan->dims[u];
    if (!(patterns[u] & 2)) sy *= plan->dims[u];
  }
  *out_shape = Shape(std::move(out_dims));
  return {};
}

// Computes rows [row_begin, row_end) of a broadcast, a row being the innermost collapsed
// dimension.
template <class Fn, class T, class R>
void broadcast_rows(const BroadcastPlan& plan, const T* x, const T* y, R* out, Index row_begin,
                    Index row_end) {
  const int outer = plan.rank - 1;
  const auto last = static_cast<std::size_t>(outer);
  const Index inner = plan.dims[last];
  const bool x_vec = plan.x_strides[last] != 0, y_vec = plan.y_strides[last] != 0;
  std::array<Index, kMaxCollapsedRank> coord{};
  Index xo = 0, yo = 0;
  {
    Index r = row_begin;
    for (int d = outer - 1; d >= 0; --d) {
      auto u = static_cast<std::size_t>(d);
      coord[u] = r % plan.dims[u];
      r /= plan.dims[u];
      xo += coord[u] * plan.x_strides[u];
      yo += coord[u] * plan.y_strides[u];
    }
  }
  for (Index row = row_begin; row < row_end; ++row) {
    R* o = out + row * inner;
    if (x_vec && y_vec)
      binary_vv<Fn>(x + xo, y + yo, o, inner);
    else if (x_vec)
      binary_vs<Fn>(x + xo, y[yo], o, inner);
    else
      binary_sv<Fn>(x[xo], y + yo, o, inner);
    for (int d = outer - 1; d >= 0; --d) {
      auto u = static_cast<std::size_t>(d);
      xo += plan.x_strides[u];
      yo += plan.y_strides[u];
      if (++coord[u] < plan.dims[u]) break;
      xo -= plan.x_strides[u] * plan.dims[u];
      yo -= plan.y_strides[u] * plan.dims[u];
      coord[u] = 0;
    }
  }
}

/// A binary element-wise kernel with NumPy broadcasting: inputs of element type T, output of
/// element type R (bool for comparisons).
template <class Fn, class T, class R = T>
class BinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 &&
           std::max(ctx.input(0).num_elements(), ctx.input(1).num_elements()) > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    // TensorFlow fails these after computing, when an element met the bad divisor or
    // exponent; nothing is computed here, the same error. An empty result meets none.
    if (x.num_elements() > 0 && y.num_elements() > 0) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const Index ny = y.num_elements();
        if constexpr (ChecksZero<Fn>) {
          if (std::find(yp, yp + ny, T(0)) != yp + ny)
            return ctx.fail(invalid_argument("Integer division by zero" + node_suffix(name())));
        }
        if constexpr (ChecksNegative<Fn> && std::is_signed_v<T>) {
          if (std::any_of(yp, yp + ny, [](T v) { return v < T(0); }))
            return ctx.fail(invalid_argument("Integers to negative integer powers are not allowed" +
                                             node_suffix(name())));
        }
      }
    }
    const auto cost = elementwise_cost<T>(2, Fn::kCycles);
    if (x.shape() == y.shape()) {
      R* o = ctx.input(0).sole_owner() ? forward_input_or_allocate_output<R>(ctx, 0, x.shape())
                                       : forward_input_or_allocate_output<R>(ctx, 1, x.shape());
      const Index n = x.num_elements();
      parallel_for(ctx, n, n, cost,
                   [&](Index b, Index e) { binary_vv<Fn>(xp + b, yp + b, o + b, e - b); });
      return;
    }
    if (y.num_elements() == 1 && y.rank() <= x.rank()) {
      R* o = forward_input_or_allocate_output<R>(ctx, 0, x.shape());
      const Index n = x.num_elements();
      const T yv = yp[0];
      parallel_for(ctx, n, n, cost,
                   [&](Index b, Index e) { binary_vs<Fn>(xp + b, yv, o + b, e - b); });
      return;
    }
    if (x.num_elements() == 1 && x.rank() <= y.rank()) {
      R* o = forward_input_or_allocate_output<R>(ctx, 1, y.shape());
      const Index n = y.num_elements();
      const T xv = xp[0];
      parallel_for(ctx, n, n, cost,
                   [&](Index b, Index e) { binary_sv<Fn>(xv, yp + b, o + b, e - b); });
      return;
    }
    BroadcastPlan plan;
    Shape out_shape;
    Status s = make_broadcast_plan(x.shape(), y.shape(), &out_shape, &plan);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    R* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<R>, std::move(out_shape))
               .template data<R>();
    const Index n = ctx.outputs()[0].num_elements();
    if (n == 0) return;
    if (plan.rank == 0) {  // every dimension is 1
      o[0] = to_output<R>(Fn{}(to_compute(xp[0]), to_compute(yp[0])));
      return;
    }
    const Index inner = plan.dims[static_cast<std::size_t>(plan.rank - 1)];
    const Index rows = n / inner;
    auto row_cost = elementwise_cost<T>(2, Fn::kCycles) * static_cast<double>(inner);
    parallel_for(ctx, rows, n, row_cost,
                 [&](Index b, Index e) { broadcast_rows<Fn>(plan, xp, yp, o, b, e); });
  }
};

// -- unary element-wise ops ---------------------------------------------------------------

template <class T>
using ConstVector = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::Index>>;
template <class T>
using Vector = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::Index>>;

/// The base of the element-wise kernels of one input (UnaryOp, Softmax, L2Loss,
/// CheckNumerics): worth a pool thread beyond kExpensiveElements elements.
class UnaryKernelBase : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveElements;
  }
};

/// A unary element-wise kernel: output of the input's shape and element type.
template <class Fn, class T>
class UnaryOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    T* o = forward_input_or_allocate_output<T>(ctx, 0, x.shape());
    const Index n = x.num_elements();
    if constexpr (Fn::kEigen && std::is_floating_point_v<T>) {
      // Eigen's vectorised exp / tanh on chunks of whole blocks, on the calling thread. Its
      // packet and scalar forms may differ in the last bit; chunks that start on block
      // boundaries compute every element in the same form however the work is split.
      constexpr Index kBlock = 64;
      const Index blocks = (n + kBlock - 1) / kBlock;
      parallel_for(ctx, blocks, n,
                   elementwise_cost<T>(1, Fn::kCycles) * static_cast<double>(kBlock),
                   [&](Index b, Index e) {
                     const Index begin = b * kBlock, end = std::min(n, e * kBlock);
                     Vector<T> out(o + begin, end - begin);
                     ConstVector<T> in(xp + begin, end - begin);
                     Fn::eigen(out, in);
                   });
    } else {
      parallel_for(ctx, n, n, elementwise_cost<T>(1, Fn::kCycles), [&](Index b, Index e) {
        Fn fn;
        for (Index i = b; i < e; ++i) o[i] = from_compute<T>(fn(to_compute(xp[i])));
      });
    }
  }
};

// -- registration and builders ------------------------------------------------------------

/// Registers `Kernel<T>` for `op` on the CPU for each of `Ts`, constrained on attr "T"
/// (kernel_helpers.hpp).
using detail::register_for_types;

}  // namespace af::cwise

namespace af::detail {

// Registration of the op families split over the cwise_*.cpp files; called from
// register_cwise_kernels (cwise_ops.cpp).
void register_cwise_compare_kernels(KernelRegistry& r);    // comparisons, logical ops, Select
void register_cwise_aggregate_kernels(KernelRegistry& r);  // AddN, ArgMax, ArgMin, L2Loss, ...

}  // namespace af::detail
