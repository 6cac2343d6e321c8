// AddN, ArgMax, ArgMin, L2Loss, CheckNumerics and Assert: CPU kernels, as TensorFlow's
// aggregate_ops.cc, argmax_op.cc, l2loss_op.cc, check_numerics_op.cc and logging_ops.cc.
// Registered from cwise_ops.cpp. Their definitions (shape functions, builders) are in
// ops/src/defs/cwise_aggregate_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// -- AddN ---------------------------------------------------------------------------------

// Sums N inputs of one shape element by element, left to right as TensorFlow's AddN
// functors do; bfloat16 sums in float and rounds once.
template <class T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 &&
           ctx.input(0).num_elements() * ctx.num_inputs() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const int num = ctx.num_inputs();
    if (num == 0)
      return ctx.fail(invalid_argument("AddN needs at least one input" + node_suffix(name())));
    const Tensor& first = ctx.input(0);
    for (int i = 1; i < num; ++i)
      if (ctx.input(i).shape() != first.shape())
        return ctx.fail(invalid_argument(
            "Inputs to operation " + name() + " of type " + type() +
            " must have the same size and shape.  Input 0: " + first.shape().to_string() +
            " != input " + std::to_string(i) + ": " + ctx.input(i).shape().to_string() +
            node_suffix(name())));
    if (num == 1) {
      ctx.set_output(0, first);
      return;
    }
    std::vector<const T*> inputs(static_cast<std::size_t>(num));
    for (int i = 0; i < num; ++i) inputs[static_cast<std::size_t>(i)] = ctx.input(i).data<T>();
    T* o = ctx.allocate_output(0, dtype_of_v<T>, first.shape()).template data<T>();
    const Index n = first.num_elements();
    parallel_for(ctx, n, n * num, elementwise_cost<T>(num, num), [&](Index b, Index e) {
      if constexpr (std::is_floating_point_v<T>) {
        ArrayMap<T> out(o + b, e - b);
        out = ConstArrayMap<T>(inputs[0] + b, e - b);
        for (int i = 1; i < num; ++i)
          out += ConstArrayMap<T>(inputs[static_cast<std::size_t>(i)] + b, e - b);
      } else {
        for (Index j = b; j < e; ++j) {
          compute_t<T> acc = to_compute(inputs[0][j]);
          for (int i = 1; i < num; ++i)
            acc = wrapping_add(acc, to_compute(inputs[static_cast<std::size_t>(i)][j]));
          o[j] = from_compute<T>(acc);
        }
      }
    });
  }
};

// -- ArgMax and ArgMin --------------------------------------------------------------------

// The index of the first maximum (Greater) or minimum (Less) along `dimension`, scanning from
// the lowest (highest) value as Eigen's arg reducers do: ties keep the first index, NaN never
// wins.
template <class T, class Out, class Better>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& dimension = ctx.input(1);
    if (dimension.rank() != 0)
      return ctx.fail(invalid_argument("dim must be a scalar, but received tensor of shape: " +
                                       dimension.shape().to_string() + node_suffix(name())));
    const Index dim = dimension.dtype() == DType::int64
                          ? dimension.data<std::int64_t>()[0]
                          : static_cast<Index>(dimension.data<std::int32_t>()[0]);
    const int input_dims = input.rank();
    const Index axis = dim < 0 ? dim + input_dims : dim;
    if (axis < 0 || axis >= input_dims)
      return ctx.fail(invalid_argument(
          "Expected dimension in the range [" + std::to_string(-input_dims) + ", " +
          std::to_string(input_dims) + "), but got " + std::to_string(dim) + node_suffix(name())));
    if (input.shape().dim(static_cast<int>(axis)) == 0)
      return ctx.fail(invalid_argument("Reduction axis " + std::to_string(dim) +
                                       " is empty in shape " + input.shape().to_string() +
                                       node_suffix(name())));
    std::vector<std::int64_t> out_dims;
    Index outer = 1, inner = 1;
    for (int d = 0; d < input_dims; ++d) {
      if (d == axis) continue;
      out_dims.push_back(input.shape().dim(d));
      (d < axis ? outer : inner) *= input.shape().dim(d);
    }
    const Index middle = input.shape().dim(static_cast<int>(axis));
    Out* o =
        ctx.allocate_output(0, dtype_of_v<Out>, Shape(std::move(out_dims))).template data<Out>();
    if (outer * inner == 0) return;
    const T* ip = input.data<T>();
    using C = compute_t<T>;
    const C start = Better::template start<C>();
    parallel_for(ctx, outer, input.num_elements(),
                 elementwise_cost<T>(1, 1) * static_cast<double>(middle * inner),
                 [&](Index b, Index e) {
                   Better better;
                   for (Index po = b; po < e; ++po)
                     for (Index pi = 0; pi < inner; ++pi) {
                       const T* p = ip + po * middle * inner + pi;
                       C best = start;
                       Index best_index = 0;
                       for (Index m = 0; m < middle; ++m) {
                         const C v = to_compute(p[m * inner]);
                         if (better(v, best)) {
                           best = v;
                           best_index = m;
                         }
                       }
                       o[po * inner + pi] = static_cast<Out>(best_index);
                     }
                 });
  }
};

struct Greater {
  template <class C>
  static C start() {
    return std::numeric_limits<C>::lowest();
  }
  template <class C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};
struct Less {
  template <class C>
  static C start() {
    return std::numeric_limits<C>::max();
  }
  template <class C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};

// -- L2Loss -------------------------------------------------------------------------------

// sum(x^2) / 2 as a scalar: TensorFlow's (x.square() * 0.5).sum(); bfloat16 in float.
template <class T>
class L2LossOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    const Index n = x.num_elements();
    T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{}).template data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      o[0] = n == 0 ? T(0) : (ConstArrayMap<T>(xp, n).square() * T(0.5)).sum();
    } else {
      float acc = 0;
      for (Index i = 0; i < n; ++i) {
        const float v = to_compute(xp[i]);
        acc += v * v * 0.5f;
      }
      o[0] = from_compute<T>(acc);
    }
  }
};

// -- CheckNumerics ------------------------------------------------------------------------

// Passes the input through; fails with InvalidArgument "<message> : Tensor had NaN values"
// (or "Inf values", "Inf and NaN values") when an element is not finite.
template <class T>
class CheckNumericsOp : public UnaryKernelBase {
 public:
  CheckNumericsOp(OpKernelConstruction& c, Status* s) : UnaryKernelBase(c) {
    *s = c.get_attr("message", &message_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ctx.set_output(0, x);
    const T* xp = x.data<T>();
    bool has_inf = false, has_nan = false;
    for (Index i = 0, n = x.num_elements(); i < n; ++i) {
      const auto v = to_compute(xp[i]);
      if (std::isfinite(v)) continue;
      if (std::isinf(v))
        has_inf = true;
      else
        has_nan = true;
    }
    if (!has_inf && !has_nan) return;
    const char* status = has_inf && has_nan ? "Inf and NaN" : has_inf ? "Inf" : "NaN";
    ctx.fail(
        invalid_argument(message_ + " : Tensor had " + status + " values" + node_suffix(name())));
  }

 private:
  std::string message_;
};

// Assert(condition, data...): InvalidArgument "assertion failed: [d0] [d1] ..." when the
// condition is false, each data tensor summarized as logging_ops.cc's AssertOp does
// (Tensor::SummarizeValue: its first `summarize` elements separated by spaces, then "...").
std::string summarize_value(const Tensor& t, std::int64_t max_entries) {
  const Index n = t.num_elements();
  const Index limit = max_entries < 0 ? n : std::min<Index>(max_entries, n);
  std::string out;
  auto element = [&](Index i) -> std::string {
    switch (t.dtype()) {
      case DType::string: {
        // absl::Utf8SafeCEscape: quotes, backslashes and control characters escaped.
        std::string e;
        for (unsigned char c : t.data<std::string>()[i]) {
          switch (c) {
            case '\n':
              e += "\\n";
              break;
            case '\r':
              e += "\\r";
              break;
            case '\t':
              e += "\\t";
              break;
            case '"':
              e += "\\\"";
              break;
            case '\'':
              e += "\\'";
              break;
            case '\\':
              e += "\\\\";
              break;
            default:
              if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\%03o", c);
                e += buf;
              } else {
                e += static_cast<char>(c);
              }
          }
        }
        return e;
      }
      case DType::float32:
      case DType::bfloat16: {
        // strings::StrCat of a float: the shortest of %.6g and %.9g that reads back the same.
        const float v = t.dtype() == DType::float32 ? t.data<float>()[i]
                                                    : static_cast<float>(t.data<bfloat16_t>()[i]);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        if (std::strtof(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.9g", v);
        return buf;
      }
      case DType::float64: {
        const double v = t.data<double>()[i];
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.15g", v);
        if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
      }
      case DType::int32:
        return std::to_string(t.data<std::int32_t>()[i]);
      case DType::int64:
        return std::to_string(t.data<std::int64_t>()[i]);
      case DType::uint8:
        return std::to_string(t.data<std::uint8_t>()[i]);
      case DType::boolean:
        return t.data<bool>()[i] ? "1" : "0";
      default:
        return "?";
    }
  };
  if (t.rank() == 0 && n == 1) return element(0);
  for (Index i = 0; i < limit; ++i) {
    if (i > 0) out += ' ';
    out += element(i);
  }
  if (n > limit) out += "...";
  return out;
}

class AssertOp : public OpKernel {
 public:
  AssertOp(OpKernelConstruction& c, Status*) : OpKernel(c) { c.get_attr("summarize", &summarize_); }
  void compute(OpKernelContext& ctx) override {
    const Tensor& condition = ctx.input(0);
    if (condition.rank() != 0)
      return ctx.fail(invalid_argument(
          "In[0] should be a scalar: " + condition.shape().to_string() + node_suffix(name())));
    if (condition.scalar<bool>()) return;
    std::string message = "assertion failed: ";
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      message += "[" + summarize_value(ctx.input(i), summarize_) + "]";
      if (i + 1 < ctx.num_inputs()) message += " ";
    }
    ctx.fail(invalid_argument(message + node_suffix(name())));
  }

 private:
  std::int64_t summarize_ = 3;
};

template <class T>
using ArgMaxInt64Kernel = ArgOp<T, std::int64_t, Greater>;
template <class T>
using ArgMaxInt32Kernel = ArgOp<T, std::int32_t, Greater>;
template <class T>
using ArgMaxInt16Kernel = ArgOp<T, std::int16_t, Greater>;
template <class T>
using ArgMaxUInt16Kernel = ArgOp<T, std::uint16_t, Greater>;
template <class T>
using ArgMinInt64Kernel = ArgOp<T, std::int64_t, Less>;
template <class T>
using ArgMinInt32Kernel = ArgOp<T, std::int32_t, Less>;

// Registers `Kernel<T>` for each of `Ts` with output_type `out`.
template <template <class> class Kernel, class... Ts>
void register_arg_kernels(KernelRegistry& r, const std::string& op, DType out,
                          detail::TypeList<Ts...> /*types*/) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", {{"T", {dtype_of_v<Ts>}}, {"output_type", {out}}})),
   ...);
}

}  // namespace

namespace detail {

void register_cwise_aggregate_kernels(KernelRegistry& r) {
  register_for_list<AddNOp>(r, "AddN", NumberTypes{});
  using ArgTypes = Concat<RealNumberTypes, TypeList<bool>>;
  register_arg_kernels<ArgMaxInt64Kernel>(r, "ArgMax", DType::int64, ArgTypes{});
  register_arg_kernels<ArgMaxInt32Kernel>(r, "ArgMax", DType::int32, ArgTypes{});
  // ArgMax's output_type may also be int16 or uint16 (indices past their range wrap, as
  // TensorFlow's cast does).
  register_arg_kernels<ArgMaxInt16Kernel>(r, "ArgMax", DType::int16, ArgTypes{});
  register_arg_kernels<ArgMaxUInt16Kernel>(r, "ArgMax", DType::uint16, ArgTypes{});
  register_arg_kernels<ArgMinInt64Kernel>(r, "ArgMin", DType::int64, ArgTypes{});
  register_arg_kernels<ArgMinInt32Kernel>(r, "ArgMin", DType::int32, ArgTypes{});
  register_for_types<L2LossOp, float, double, bfloat16_t, half_t>(r, "L2Loss");
  register_for_types<CheckNumericsOp, float, double, bfloat16_t, half_t>(r, "CheckNumerics");
  r.add(make_kernel_def<AssertOp>("Assert", "CPU"));
}

}  // namespace detail

}  // namespace af
