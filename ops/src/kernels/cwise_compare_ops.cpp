// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual), logical ops
// (LogicalNot, LogicalAnd, LogicalOr) and TensorFlow 1.x's Select: ops, shape functions, CPU
// kernels and graph-building functions. Registered from cwise_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "cwise_ops_common.hpp"
#include "standard_ops.hpp"

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

// -- shape functions ----------------------------------------------------------------------

// Binary ops of two bool inputs with broadcasting (LogicalAnd, LogicalOr).
Status infer_logical_binary(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const char* names[] = {"x", "y"};
  for (int i = 0; i < 2; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != DType::boolean)
      return invalid_argument(fixed_type_mismatch_message(
          c.node.op, names[i], c.input_types[static_cast<std::size_t>(i)], DType::boolean));
  return infer_binary(c, {DType::boolean});
}

Status infer_logical_not(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (c.input_types[0] != DType::boolean)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "x", c.input_types[0], DType::boolean));
  c.add_output(DType::boolean, c.input_shapes[0]);
  return {};
}

// TensorFlow 1.x's Select shape function: `t` and `e` merge; a scalar condition allows any
// shape, a vector condition of inputs of rank >= 1 must match their first dimension, any
// other condition merges with them.
Status infer_select(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[0] != DType::boolean)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "condition", c.input_types[0], DType::boolean));
  const DType t = c.input_types[1];
  if (c.input_types[2] != t)
    return invalid_argument(type_mismatch_message(c.node.op, "e", c.input_types[2], "t", t));
  PartialShape data;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[1], c.input_shapes[2], &data));
  const PartialShape& cond = c.input_shapes[0];
  if (cond.rank_known() && data.rank_known() && cond.rank() != 0) {
    if (cond.rank() != 1 || data.rank() == 0) {
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(data, cond, &data));
    } else {
      PartialShape unused;
      ACTORFLOW_RETURN_IF_ERROR(merge_shapes(cond, PartialShape{data.dim(0)}, &unused));
    }
  }
  c.add_output(t, data);
  return {};
}

// Element types by op, as TensorFlow's CPU kernels (within actorflow's dtypes).
const std::vector<DType> kComparisonTypes = {DType::float32, DType::float64, DType::int32,
                                             DType::int64,   DType::uint8,   DType::bfloat16};
const std::vector<DType> kEqualityTypes = {DType::float32, DType::float64, DType::int32,
                                           DType::int64,   DType::uint8,   DType::bfloat16,
                                           DType::boolean, DType::string};

Output logical_binary_op(const char* type, const Output& x, const Output& y,
                         std::string_view name) {
  if (x.dtype() != DType::boolean)
    throw InvalidArgumentError(
        invalid_argument(fixed_type_mismatch_message(type, "x", x.dtype(), DType::boolean)));
  if (y.dtype() != DType::boolean)
    throw InvalidArgumentError(
        invalid_argument(fixed_type_mismatch_message(type, "y", y.dtype(), DType::boolean)));
  return x.graph().create_op(type, {x, y}, {}, name.empty() ? type : name).output(0);
}

/// Where (one input, boolean): the coordinates of the true elements, row-major, int64
/// [num_true, rank] (TensorFlow's WhereOp).
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const bool* v = in.data<bool>();
    const std::int64_t n = in.num_elements();
    const int rank = in.rank();
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < n; ++i) count += v[i] ? 1 : 0;
    Tensor& out = ctx.allocate_output(0, DType::int64, Shape{count, rank});
    std::int64_t* o = out.data<std::int64_t>();
    const auto& dims = in.shape().dims();
    for (std::int64_t i = 0; i < n; ++i) {
      if (!v[i]) continue;
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

void register_cwise_compare_ops(OpRegistry& r) {
  r.add({"Where", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::boolean));
           const PartialShape& in = c.input_shapes[0];
           c.add_output(DType::int64, in.rank_known() ? PartialShape{-1, in.rank()}
                                                      : PartialShape::unknown_of_rank(2));
           return {};
         }});
  auto compare = [&](const char* type, const std::vector<DType>& allowed) {
    r.add({type,
           [allowed](InferenceContext& c) { return infer_binary(c, allowed, DType::boolean); }});
  };
  compare("Equal", kEqualityTypes);
  compare("NotEqual", kEqualityTypes);
  compare("Less", kComparisonTypes);
  compare("LessEqual", kComparisonTypes);
  compare("Greater", kComparisonTypes);
  compare("GreaterEqual", kComparisonTypes);
  r.add({"LogicalNot", infer_logical_not});
  r.add({"LogicalAnd", infer_logical_binary});
  r.add({"LogicalOr", infer_logical_binary});
  r.add({"Select", infer_select});
}

void register_cwise_compare_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  using std::uint8_t;
  register_for_types<EqualKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t, bool,
                     std::string>(r, "Equal");
  register_for_types<NotEqualKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t, bool,
                     std::string>(r, "NotEqual");
  register_for_types<LessKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Less");
  register_for_types<LessEqualKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(
      r, "LessEqual");
  register_for_types<GreaterKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(
      r, "Greater");
  register_for_types<GreaterEqualKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(
      r, "GreaterEqual");
  r.add(make_kernel_def<UnaryOp<LogicalNotFn, bool>>("LogicalNot", "CPU"));
  r.add(make_kernel_def<BinaryOp<LogicalAndFn, bool>>("LogicalAnd", "CPU"));
  r.add(make_kernel_def<BinaryOp<LogicalOrFn, bool>>("LogicalOr", "CPU"));
  register_for_types<SelectOp, float, double, int32_t, int64_t, uint8_t, bfloat16_t, bool,
                     std::string>(r, "Select");
  r.add(make_kernel_def<WhereOp>("Where", "CPU", {{"T", {DType::boolean}}}));
}

}  // namespace detail

// -- builders -----------------------------------------------------------------------------

Output equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Equal", x, y, name, "Equal");
}
Output not_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("NotEqual", x, y, name, "NotEqual");
}
Output less(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Less", x, y, name, "Less");
}
Output less_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("LessEqual", x, y, name, "LessEqual");
}
Output greater(const Output& x, const Output& y, std::string_view name) {
  return binary_op("Greater", x, y, name, "Greater");
}
Output greater_equal(const Output& x, const Output& y, std::string_view name) {
  return binary_op("GreaterEqual", x, y, name, "GreaterEqual");
}

Output where(const Output& condition, std::string_view name) {
  return condition.graph()
      .create_op("Where", {condition}, {{"T", condition.dtype()}}, name.empty() ? "Where" : name)
      .output(0);
}

Output boolean_mask(const Output& tensor, const Output& mask, std::string_view name) {
  Graph& g = tensor.graph();
  auto scope = g.name_scope(name.empty() ? "boolean_mask" : name);
  if (mask.shape().rank_known() && mask.shape().rank() != 1)
    throw InvalidArgumentError(
        invalid_argument("boolean_mask: only a 1-D mask is supported, got rank " +
                         std::to_string(mask.shape().rank())));
  return gather(tensor, squeeze(where(mask), {1}), "Gather");
}

Output logical_not(const Output& x, std::string_view name) {
  if (x.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument(
        fixed_type_mismatch_message("LogicalNot", "x", x.dtype(), DType::boolean)));
  return x.graph().create_op("LogicalNot", {x}, {}, name.empty() ? "LogicalNot" : name).output(0);
}
Output logical_and(const Output& x, const Output& y, std::string_view name) {
  return logical_binary_op("LogicalAnd", x, y, name);
}
Output logical_or(const Output& x, const Output& y, std::string_view name) {
  return logical_binary_op("LogicalOr", x, y, name);
}

Output select(const Output& condition, const Output& t, const Output& e, std::string_view name) {
  if (condition.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument(
        fixed_type_mismatch_message("Select", "condition", condition.dtype(), DType::boolean)));
  if (t.dtype() != e.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("Select", "e", e.dtype(), "t", t.dtype())));
  return condition.graph()
      .create_op("Select", {condition, t, e}, {{"T", t.dtype()}}, name.empty() ? "Select" : name)
      .output(0);
}
Output where(const Output& condition, const Output& x, const Output& y, std::string_view name) {
  return select(condition, x, y, name);
}

}  // namespace af
