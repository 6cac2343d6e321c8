// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual), logical ops
// (LogicalNot, LogicalAnd, LogicalOr), TensorFlow 1.x's Select and Where: CPU kernels.
// Registered from cwise_ops.cpp. Their definitions (shape functions, builders) are in
// ops/src/defs/cwise_compare_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// -- functors -----------------------------------------------------------------------------

// Comparisons of the compute values (bfloat16 compares as float, exactly); NaN compares
// unequal to everything, as IEEE. Equality also compares strings.
struct EqualFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(const C& x, const C& y) const {
    return x == y;
  }
};
struct NotEqualFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(const C& x, const C& y) const {
    return x != y;
  }
};
struct LessFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(C x, C y) const {
    return x < y;
  }
};
struct LessEqualFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(C x, C y) const {
    return x <= y;
  }
};
struct GreaterFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(C x, C y) const {
    return x > y;
  }
};
struct GreaterEqualFn {
  static constexpr double kCycles = 1;
  template <class C>
  bool operator()(C x, C y) const {
    return x >= y;
  }
};
struct LogicalAndFn {
  static constexpr double kCycles = 1;
  bool operator()(bool x, bool y) const { return x && y; }
};
struct LogicalOrFn {
  static constexpr double kCycles = 1;
  bool operator()(bool x, bool y) const { return x || y; }
};
struct LogicalNotFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = false;
  bool operator()(bool x) const { return !x; }
};

template <class T>
using EqualKernel = BinaryOp<EqualFn, T, bool>;
template <class T>
using NotEqualKernel = BinaryOp<NotEqualFn, T, bool>;
template <class T>
using LessKernel = BinaryOp<LessFn, T, bool>;
template <class T>
using LessEqualKernel = BinaryOp<LessEqualFn, T, bool>;
template <class T>
using GreaterKernel = BinaryOp<GreaterFn, T, bool>;
template <class T>
using GreaterEqualKernel = BinaryOp<GreaterEqualFn, T, bool>;

// -- Select -------------------------------------------------------------------------------

// TensorFlow 1.x's Select (cwise_op_select.cc): a scalar condition picks a whole input; a
// vector condition with inputs of rank > 1 picks rows (the first dimension); otherwise the
// condition picks element by element and all three shapes must be equal.
template <class T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 3 && ctx.input(1).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& cond = ctx.input(0);
    const Tensor& then = ctx.input(1);
    const Tensor& other = ctx.input(2);
    if (cond.rank() == 0) {
      if (then.shape() != other.shape()) return fail_same_size(ctx, then, other);
      // The output is the chosen input itself: tensors are immutable and share buffers.
      ctx.set_output(0, cond.data<bool>()[0] ? then : other);
      return;
    }
    if (cond.rank() == 1 && then.rank() != 1) {
      if (then.rank() < 1)
        return ctx.fail(invalid_argument("'then' must be at least a vector, but saw shape: " +
                                         then.shape().to_string() + node_suffix(name())));
      if (then.shape().dim(0) != cond.num_elements())
        return ctx.fail(
            invalid_argument("Number of batches of 'then' must match size of 'cond', but saw: " +
                             std::to_string(then.shape().dim(0)) + " vs. " +
                             std::to_string(cond.num_elements()) + node_suffix(name())));
      if (then.shape() != other.shape()) return fail_same_size(ctx, then, other);
      select_rows(ctx, cond, then, other);
      return;
    }
    for (int i = 1; i < 3; ++i)
      if (ctx.input(i).shape() != cond.shape())
        return ctx.fail(invalid_argument(
            "Inputs to operation " + name() + " of type " + type() +
            " must have the same size and shape.  Input 0: " + cond.shape().to_string() +
            " != input " + std::to_string(i) + ": " + ctx.input(i).shape().to_string() +
            node_suffix(name())));
    const bool* c = cond.data<bool>();
    const T* t = then.data<T>();
    const T* e = other.data<T>();
    T* o = ctx.allocate_output(0, then.dtype(), then.shape()).template data<T>();
    const Index n = then.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(2, 1), [&](Index b, Index end) {
      for (Index i = b; i < end; ++i) o[i] = c[i] ? t[i] : e[i];
    });
  }

 private:
  void fail_same_size(OpKernelContext& ctx, const Tensor& then, const Tensor& other) const {
    ctx.fail(invalid_argument(
        "'then' and 'else' must have the same size.  but received: " + then.shape().to_string() +
        " vs. " + other.shape().to_string() + node_suffix(name())));
  }

  void select_rows(OpKernelContext& ctx, const Tensor& cond, const Tensor& then,
                   const Tensor& other) const {
    const bool* c = cond.data<bool>();
    const T* t = then.data<T>();
    const T* e = other.data<T>();
    T* o = ctx.allocate_output(0, then.dtype(), then.shape()).template data<T>();
    const Index rows = cond.num_elements();
    if (rows == 0) return;
    const Index row = then.num_elements() / rows;
    parallel_for(ctx, rows, then.num_elements(),
                 elementwise_cost<T>(1, 1) * static_cast<double>(row), [&](Index b, Index end) {
                   for (Index r = b; r < end; ++r) {
                     const T* src = (c[r] ? t : e) + r * row;
                     std::copy(src, src + row, o + r * row);
                   }
                 });
  }
};

/// Where (one input of bools or numbers): the coordinates of the true (nonzero) elements,
/// row-major, int64 [num_true, rank] (TensorFlow's WhereOp).
template <class T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const std::int64_t n = in.num_elements();
    std::vector<bool> v(static_cast<std::size_t>(n));
    const T* p = in.data<T>();
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = to_compute(p[i]) != compute_t<T>(0);
    const int rank = in.rank();
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < n; ++i) count += v[static_cast<std::size_t>(i)] ? 1 : 0;
    Tensor& out = ctx.allocate_output(0, DType::int64, Shape{count, rank});
    std::int64_t* o = out.data<std::int64_t>();
    const auto& dims = in.shape().dims();
    for (std::int64_t i = 0; i < n; ++i) {
      if (!v[static_cast<std::size_t>(i)]) continue;
      std::int64_t rest = i;
      for (int d = rank - 1; d >= 0; --d) {
        o[d] = rest % dims[static_cast<std::size_t>(d)];
        rest /= dims[static_cast<std::size_t>(d)];
      }
      o += rank;
    }
  }
};

}  // namespace

namespace detail {

void register_cwise_compare_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21.
  using EqualityTypes = Concat<NumberTypes, TypeList<bool, std::string>>;
  register_for_list<EqualKernel>(r, "Equal", EqualityTypes{});
  register_for_list<NotEqualKernel>(r, "NotEqual", EqualityTypes{});
  register_for_list<LessKernel>(r, "Less", RealNumberTypes{});
  register_for_list<LessEqualKernel>(r, "LessEqual", RealNumberTypes{});
  register_for_list<GreaterKernel>(r, "Greater", RealNumberTypes{});
  register_for_list<GreaterEqualKernel>(r, "GreaterEqual", RealNumberTypes{});
  r.add(make_kernel_def<UnaryOp<LogicalNotFn, bool>>("LogicalNot", "CPU"));
  r.add(make_kernel_def<BinaryOp<LogicalAndFn, bool>>("LogicalAnd", "CPU"));
  r.add(make_kernel_def<BinaryOp<LogicalOrFn, bool>>("LogicalOr", "CPU"));
  register_for_list<SelectOp>(r, "Select", EqualityTypes{});
  register_for_list<WhereOp>(r, "Where", Concat<NumberTypes, TypeList<bool>>{});
}

}  // namespace detail

}  // namespace af
