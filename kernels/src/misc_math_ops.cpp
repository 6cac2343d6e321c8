// ClipByValue, ApproximateEqual, Roll, LinSpace, Cross, BitwiseAnd, BitwiseOr, BitwiseXor,
// Invert, LeftShift and RightShift: CPU kernels with TensorFlow's checks and messages
// (cwise_op_clip.cc, cwise_ops.h's approximate_equal, roll_op.cc, sequence_ops.cc,
// cross_op.cc, cwise_op_bitwise_*.cc, cwise_op_invert.cc, cwise_op_*_shift.cc). Their
// definitions are in ops/src/defs/misc_math_ops.cpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_kernel_templates.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery
using detail::index_values;
using detail::StatusKernel;

// -- ClipByValue --------------------------------------------------------------------------

// ClipByValue(t, clip_value_min, clip_value_max): max(min(t, max), min) per element, each
// bound a scalar or of t's shape (no other broadcasting, as TensorFlow's ClipOp).
template <class T>
class ClipByValueOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    const Tensor& lo = ctx.input(1);
    const Tensor& hi = ctx.input(2);
    const bool lo_ok = lo.shape() == t.shape() || lo.rank() == 0;
    const bool hi_ok = hi.shape() == t.shape() || hi.rank() == 0;
    if (!lo_ok || !hi_ok)
      return invalid_argument(
          "clip_value_min and clip_value_max must be either of the same shape as input, or a "
          "scalar. input shape: " +
          t.shape().to_string() + "clip_value_min shape: " + lo.shape().to_string() +
          "clip_value_max shape: " + hi.shape().to_string());
    const Index n = t.num_elements();
    // Read the bounds before the output may take over t's buffer.
    const T* tp = t.data<T>();
    const T* lp = lo.data<T>();
    const T* hp = hi.data<T>();
    const Index lo_step = lo.rank() == 0 ? 0 : 1, hi_step = hi.rank() == 0 ? 0 : 1;
    if (n == 0) {
      ctx.allocate_output(0, t.dtype(), t.shape());
      return {};
    }
    T* o = forward_input_or_allocate_output<T>(ctx, 0, t.shape());
    parallel_for(ctx, n, n, elementwise_cost<T>(3, 2), [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) {
        const auto v = to_compute(tp[i]);
        const auto l = to_compute(lp[i * lo_step]);
        const auto h = to_compute(hp[i * hi_step]);
        o[i] = from_compute<T>(std::max(std::min(v, h), l));
      }
    });
    return {};
  }
};

// -- ApproximateEqual ---------------------------------------------------------------------

// ApproximateEqual(x, y; tolerance): |x - y| < tolerance, x and y of one shape.
template <class T>
class ApproximateEqualOp : public StatusKernel {
 public:
  ApproximateEqualOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    float tolerance = 1e-5f;
    *s = c.get_attr("tolerance", &tolerance);
    tolerance_ = static_cast<T>(tolerance);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.shape() != y.shape())
      return invalid_argument("x and y must be of the same shape. x shape: " +
                              x.shape().to_string() + ". y shape: " + y.shape().to_string());
    bool* o = ctx.allocate_output(0, DType::boolean, x.shape()).template data<bool>();
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    for (Index i = 0, n = x.num_elements(); i < n; ++i) o[i] = std::abs(xp[i] - yp[i]) < tolerance_;
    return {};
  }

 private:
  T tolerance_ = T(1e-5);
};

// -- Roll ---------------------------------------------------------------------------------

// Roll(input, shift, axis): elements shifted along each named axis, wrapping around; shifts
// of a repeated axis add up. Any element type (elements move without being read).
class RollOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& shift = ctx.input(1);
    const Tensor& axis = ctx.input(2);
    if (input.rank() < 1) return invalid_argument("input must be 1-D or higher");
    if (shift.rank() > 1)
      return invalid_argument("shift must be a scalar or a 1-D vector. Found: " +
                              shift.shape().to_string());
    if (axis.rank() > 1)
      return invalid_argument("axis must be a scalar or a 1-D vector. Found: " +
                              axis.shape().to_string());
    if (shift.shape() != axis.shape())
      return invalid_argument("shift and axis must have the same size");
    const int rank = input.rank();
    const std::vector<Index> shifts = index_values(shift);
    const std::vector<Index> axes = index_values(axis);
    // TensorFlow's shift_mod_sum: each dimension's total shift modulo its size (an int64
    // shift truncated to int32 first, as the kernel's static_cast<int>).
    std::vector<Index> total(static_cast<std::size_t>(rank), 0);
    for (std::size_t i = 0; i < shifts.size(); ++i) {
      Index a = axes[i];
      if (a < 0) a += rank;
      if (a < 0 || a >= rank)
        return invalid_argument("axis " + std::to_string(a) + " is out of range");
      const Index ds = std::max<Index>(input.shape().dim(static_cast<int>(a)), 1);
      const Index sum = total[static_cast<std::size_t>(a)] + static_cast<std::int32_t>(shifts[i]);
      total[static_cast<std::size_t>(a)] = (sum % ds + ds) % ds;
    }
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    const Index n = input.num_elements();
    if (n == 0) return {};
    const std::vector<Index> strides = detail::row_major_strides(input.shape());
    detail::visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E* in = detail::elements<E>(input);
      E* o = detail::elements<E>(out);
      std::vector<Index> coord(static_cast<std::size_t>(rank), 0);
      for (Index i = 0; i < n; ++i) {
        Index to = 0;
        for (int d = 0; d < rank; ++d) {
          const auto u = static_cast<std::size_t>(d);
          const Index size = input.shape().dim(d);
          Index c = coord[u] + total[u];
          if (c >= size) c -= size;
          to += c * strides[u];
        }
        o[to] = in[i];
        for (int d = rank - 1; d >= 0; --d) {
          const auto u = static_cast<std::size_t>(d);
          if (++coord[u] < input.shape().dim(d)) break;
          coord[u] = 0;
        }
      }
    });
    return {};
  }
};

// -- LinSpace -----------------------------------------------------------------------------

// LinSpace(start, stop, num): num values, start + step * i with step (stop - start) / (num -
// 1), the last exactly stop.
template <class T>
class LinSpaceOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& start_t = ctx.input(0);
    const Tensor& stop_t = ctx.input(1);
    const Tensor& num_t = ctx.input(2);
    if (start_t.rank() != 0)
      return invalid_argument("start must be a scalar, not shape " + start_t.shape().to_string());
    if (stop_t.rank() != 0)
      return invalid_argument("stop must be a scalar, not shape " + stop_t.shape().to_string());
    if (num_t.rank() != 0)
      return invalid_argument("num must be a scalar, not shape " + num_t.shape().to_string());
    const T start = start_t.data<T>()[0];
    const T stop = stop_t.data<T>()[0];
    const Index num = index_values(num_t)[0];
    if (num <= 0) return invalid_argument("Requires num > 0: " + std::to_string(num));
    T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{num}).template data<T>();
    o[0] = start;
    if (num > 1) {
      const T step = (stop - start) / static_cast<T>(num - 1);
      for (Index i = 1; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
      o[num - 1] = stop;
    }
    return {};
  }
};

// -- Cross --------------------------------------------------------------------------------

// Cross(a, b): the cross products of the 3-vectors along the last dimension. Integers wrap;
// bfloat16 rounds each product and difference, as Eigen's bfloat16 arithmetic.
template <class T>
class CrossOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape() != b.shape())
      return invalid_argument("Both inputs must be of same shape: " + a.shape().to_string() +
                              " vs. " + b.shape().to_string());
    if (a.rank() < 1) return invalid_argument("Input must be at least 1D" + a.shape().to_string());
    if (a.shape().dim(a.rank() - 1) != 3)
      return failed_precondition("Cross-products are only defined for 3-element vectors.");
    T* o = ctx.allocate_output(0, dtype_of_v<T>, a.shape()).template data<T>();
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    auto cross = [](T a1, T a2, T b1, T b2) {
      // a1 * b2 - a2 * b1
      if constexpr (is_half_like_v<T>) {
        const auto p = T(static_cast<float>(a1) * static_cast<float>(b2));
        const auto q = T(static_cast<float>(a2) * static_cast<float>(b1));
        return T(static_cast<float>(p) - static_cast<float>(q));
      } else {
        return wrapping_sub(wrapping_mul(a1, b2), wrapping_mul(a2, b1));
      }
    };
    for (Index v = 0, rows = a.num_elements() / 3; v < rows; ++v) {
      const T* x = ap + 3 * v;
      const T* y = bp + 3 * v;
      T* z = o + 3 * v;
      z[0] = cross(x[1], x[2], y[1], y[2]);
      z[1] = cross(x[2], x[0], y[2], y[0]);
      z[2] = cross(x[0], x[1], y[0], y[1]);
    }
    return {};
  }
};

// -- bitwise ops --------------------------------------------------------------------------

struct BitwiseAndFn {
  static constexpr double kCycles = 1;
  template <class C>
  C operator()(C x, C y) const {
    return static_cast<C>(x & y);
  }
};
struct BitwiseOrFn {
  static constexpr double kCycles = 1;
  template <class C>
  C operator()(C x, C y) const {
    return static_cast<C>(x | y);
  }
};
struct BitwiseXorFn {
  static constexpr double kCycles = 1;
  template <class C>
  C operator()(C x, C y) const {
    return static_cast<C>(x ^ y);
  }
};
// TensorFlow's left_shift_op / right_shift_op: the shift is clamped to [0, bits - 1], so a
// negative shift moves nothing and one of the width or more moves by bits - 1; left shifts
// drop the bits shifted out (as unsigned), right shifts of signed values copy the sign.
template <class C>
C clamp_shift(C y) {
  constexpr C kMax = static_cast<C>(sizeof(C) * CHAR_BIT - 1);
  return std::max<C>(std::min<C>(y, kMax), C(0));
}
struct LeftShiftFn {
  static constexpr double kCycles = 2;
  template <class C>
  C operator()(C x, C y) const {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(x) << static_cast<U>(clamp_shift(y))));
  }
};
struct RightShiftFn {
  static constexpr double kCycles = 2;
  template <class C>
  C operator()(C x, C y) const {
    return static_cast<C>(x >> clamp_shift(y));
  }
};
struct InvertFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C x) const {
    return static_cast<C>(~x);
  }
};

}  // namespace

namespace detail {

void register_misc_math_kernels(KernelRegistry& r) {
  register_for_list<ClipByValueOp>(
      r, "ClipByValue",
      Concat<FloatTypes, TypeList<std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                                  std::uint8_t, std::uint16_t>>{});
  register_for_types<ApproximateEqualOp, float, double>(r, "ApproximateEqual");
  r.add(make_kernel_def<RollOp>(
      "Roll", "CPU", {{"T", kValueTypes}, {"Tshift", kIndexTypes}, {"Taxis", kIndexTypes}}));
  register_for_types<LinSpaceOp, float, double>(r, "LinSpace");
  register_for_list<CrossOp>(r, "Cross", RealNumberTypes{});
  register_for_list<Binary<BitwiseAndFn>::Kernel>(r, "BitwiseAnd", IntegralTypes{});
  register_for_list<Binary<BitwiseOrFn>::Kernel>(r, "BitwiseOr", IntegralTypes{});
  register_for_list<Binary<BitwiseXorFn>::Kernel>(r, "BitwiseXor", IntegralTypes{});
  register_for_list<Binary<LeftShiftFn>::Kernel>(r, "LeftShift", IntegralTypes{});
  register_for_list<Binary<RightShiftFn>::Kernel>(r, "RightShift", IntegralTypes{});
  register_for_list<Unary<InvertFn>::Kernel>(r, "Invert", IntegralTypes{});
}

}  // namespace detail

}  // namespace af
