// Add (numbers and strings), Sub, Mul, RealDiv, Div, Neg, Relu, Sigmoid, Tanh and Softmax: CPU
// kernels (MatMul is in matmul_op.cpp, the reductions in reduction_ops.cpp). Their definitions
// (shape functions, builders) are in ops/src/defs/math_ops.cpp. The element-wise machinery they
// share with the other element-wise ops lives in cwise_ops_common.hpp.
//
// Kernels are plain loops the compiler vectorises, or Eigen where Eigen is faster (matrix
// products, transcendental functions). Large inputs are split over the intra-op pool
// (`OpKernelContext::eigen_device`); small ones run inline and allocate nothing but their
// output, since the executor runs cheap kernels directly in the device actor.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// -- binary element-wise ops --------------------------------------------------------------

struct AddFn {
  static constexpr double kCycles = 1;
  static constexpr bool kChecksZero = false;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_add(a, b);
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x + y;
  }
};
struct SubFn {
  static constexpr double kCycles = 1;
  static constexpr bool kChecksZero = false;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_sub(a, b);
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x - y;
  }
};
struct MulFn {
  static constexpr double kCycles = 1;
  static constexpr bool kChecksZero = false;
  template <class C>
  C operator()(C a, C b) const {
    return wrapping_mul(a, b);
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x * y;
  }
};
// RealDiv and Div. Integer division truncates like C; the kernel rejects zero divisors
// before computing, and INT_MIN / -1 wraps instead of trapping.
struct DivFn {
  static constexpr double kCycles = 5;
  static constexpr bool kChecksZero = true;
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
      if (b == C(-1)) return wrapping_neg(a);
    }
    return static_cast<C>(a / b);
  }
  template <class X, class Y>
  static auto eigen(const X& x, const Y& y) {
    return x / y;
  }
};

// -- unary element-wise ops ---------------------------------------------------------------

struct NegFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return wrapping_neg(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = -in;
  }
};
// max(x, 0) as TensorFlow's Relu (Eigen's cwiseMax).
struct ReluFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    if constexpr (std::is_unsigned_v<C>)
      return a;
    else
      return a < C(0) ? C(0) : a;
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.cwiseMax(typename In::Scalar(0));
  }
};
struct SigmoidFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return C(1) / (C(1) + std::exp(-a));
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.sigmoid();
  }
};
struct TanhFn {
  static constexpr double kCycles = 20;
  static constexpr bool kEigen = true;
  template <class C>
  C operator()(C a) const {
    return std::tanh(a);
  }
  template <class Out, class In>
  static void eigen(Out& out, const In& in) {
    out = in.tanh();
  }
};

// -- Softmax ------------------------------------------------------------------------------

template <class T>
class SoftmaxOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 1)
      return ctx.fail(invalid_argument("logits must have >= 1 dimension, got " +
                                       x.shape().to_string() + node_suffix(name())));
    const T* xp = x.data<T>();
    T* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, x.shape()).template data<T>();
    const Index cols = x.shape().dim(x.rank() - 1);
    if (cols == 0 || x.num_elements() == 0) return;
    const Index rows = x.num_elements() / cols;
    auto cost = elementwise_cost<T>(1, 25) * static_cast<double>(cols);
    parallel_for(ctx, rows, x.num_elements(), cost, [&](Index b, Index e) {
      for (Index r = b; r < e; ++r) softmax_row(xp + r * cols, o + r * cols, cols);
    });
  }

 private:
  static void softmax_row(const T* x, T* out, Index n) {
    if constexpr (std::is_floating_point_v<T>) {
      // Eigen's vectorised max, exp and sum.
      Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> in(x, n);
      Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> o(out, n);
      const T max = in.maxCoeff();
      o = (in - max).exp();
      o *= T(1) / o.sum();
    } else {
      // Exponentials kept in float until normalised, so bfloat16 rounds once.
      float max = static_cast<float>(x[0]);
      for (Index i = 1; i < n; ++i) max = std::max(max, static_cast<float>(x[i]));
      float sum = 0;
      for (Index i = 0; i < n; ++i) sum += std::exp(static_cast<float>(x[i]) - max);
      for (Index i = 0; i < n; ++i) out[i] = T(std::exp(static_cast<float>(x[i]) - max) / sum);
    }
  }
};

// -- registration helpers -----------------------------------------------------------------

template <class T>
using AddKernel = BinaryOp<AddFn, T>;
template <class T>
using SubKernel = BinaryOp<SubFn, T>;
template <class T>
using MulKernel = BinaryOp<MulFn, T>;
template <class T>
using DivKernel = BinaryOp<DivFn, T>;
template <class T>
using NegKernel = UnaryOp<NegFn, T>;
template <class T>
using ReluKernel = UnaryOp<ReluFn, T>;
template <class T>
using SigmoidKernel = UnaryOp<SigmoidFn, T>;
template <class T>
using TanhKernel = UnaryOp<TanhFn, T>;

// Add of strings: the element-wise concatenation, broadcast as the numeric kernels are.
class StringAddKernel final : public OpKernel {
 public:
  StringAddKernel(OpKernelConstruction& c, Status*) : OpKernel(c) {}
  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    Shape shape;
    BroadcastPlan plan;
    if (Status s = make_broadcast_plan(x.shape(), y.shape(), &shape, &plan); !s.ok()) {
      ctx.fail(std::move(s));
      return;
    }
    Tensor& out = ctx.allocate_output(0, DType::string, shape);
    const std::string* xs = x.data<std::string>();
    const std::string* ys = y.data<std::string>();
    std::string* os = out.data<std::string>();
    std::array<Index, kMaxCollapsedRank> coord{};
    Index xo = 0, yo = 0;
    for (Index i = 0; i < out.num_elements(); ++i) {
      os[i].reserve(xs[xo].size() + ys[yo].size());
      os[i].assign(xs[xo]).append(ys[yo]);
      for (int d = plan.rank - 1; d >= 0; --d) {
        const auto u = static_cast<std::size_t>(d);
        xo += plan.x_strides[u];
        yo += plan.y_strides[u];
        if (++coord[u] < plan.dims[u]) break;
        xo -= plan.x_strides[u] * plan.dims[u];
        yo -= plan.y_strides[u] * plan.dims[u];
        coord[u] = 0;
      }
    }
  }
};

}  // namespace

namespace detail {

void register_math_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21: Add has no uint16, uint32 or
  // uint64 kernel (AddV2 has), and adds strings.
  r.add(make_kernel_def<StringAddKernel>("Add", "CPU", {{"T", {DType::string}}}));
  using Int8To64 = TypeList<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
  register_for_list<AddKernel>(
      r, "Add", Concat<FloatTypes, Int8To64, TypeList<std::uint8_t>, ComplexTypes>{});
  register_for_list<AddKernel>(r, "AddV2", NumberTypes{});
  register_for_list<SubKernel>(r, "Sub", NumberTypes{});
  register_for_list<MulKernel>(r, "Mul", NumberTypes{});
  register_for_list<DivKernel>(r, "Div", NumberTypes{});
  register_for_list<DivKernel>(r, "RealDiv", FloatComplexTypes{});
  register_for_list<NegKernel>(r, "Neg", Concat<FloatTypes, Int8To64, ComplexTypes>{});
  register_for_list<ReluKernel>(r, "Relu", RealNumberTypes{});
  register_for_list<SigmoidKernel>(r, "Sigmoid", FloatComplexTypes{});
  register_for_list<TanhKernel>(r, "Tanh", FloatComplexTypes{});
  register_for_types<SoftmaxOp, float, double, bfloat16_t, half_t>(r, "Softmax");
}

}  // namespace detail

}  // namespace af
