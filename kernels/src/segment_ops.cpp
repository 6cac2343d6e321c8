// UnsortedSegmentSum, Cumsum and Cumprod: the CPU kernels (Pad's is in pad_ops.cpp). The
// ops' definitions (shape functions, graph-building functions) are in
// ops/src/defs/segment_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/segment_reduction_ops.cc,
// scan_ops.cc); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::kIndexTypes;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

using detail::index_values;
using detail::node_suffix;
using detail::slice_debug_string;

// Calls `add(T{})` for each type of `types`.
template <class... Ts, class F>
void register_typed(detail::TypeList<Ts...> /*types*/, F&& add) {
  (add(Ts{}), ...);
}

// a + b or a * b: integers in their unsigned type, so overflow wraps without UB; float16 and
// bfloat16 rounded at each step, as Eigen's half arithmetic in TensorFlow's kernels.
template <bool kSum, class T>
T combine(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(kSum ? static_cast<U>(a) + static_cast<U>(b)
                               : static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (is_half_like_v<T>) {
    const float x = static_cast<float>(a), y = static_cast<float>(b);
    return T(kSum ? x + y : x * y);
  } else {
    return kSum ? a + b : a * b;
  }
}

// -- UnsortedSegmentSum -------------------------------------------------------------------

// Sums the rows of `data` (the leading segment_ids.shape dims flattened) into the rows of
// the output named by segment_ids; negative ids are dropped, as TensorFlow's CPU functor does.
template <class T>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& segment_ids = ctx.input(1);
    const Tensor& num_segments = ctx.input(2);
    // UnsortedSegmentReductionDoValidation.
    if (num_segments.rank() != 0)
      return ctx.fail(invalid_argument("num_segments should be a scalar, not shape " +
                                       num_segments.shape().to_string() + node_suffix(name())));
    const Shape& ids_shape = segment_ids.shape();
    bool starts_with = data.rank() >= ids_shape.rank();
    for (int d = 0; starts_with && d < ids_shape.rank(); ++d)
      starts_with = data.shape().dim(d) == ids_shape.dim(d);
    if (!starts_with)
      return ctx.fail(invalid_argument("data.shape = " + data.shape().to_string() +
                                       " does not start with segment_ids.shape = " +
                                       ids_shape.to_string() + node_suffix(name())));
    const Index output_rows = index_values(num_segments)[0];
    if (output_rows < 0)
      return ctx.fail(invalid_argument("Input num_segments == " + std::to_string(output_rows) +
                                       " must not be negative." + node_suffix(name())));
    std::vector<std::int64_t> dims{output_rows};
    Index row = 1;
    for (int d = ids_shape.rank(); d < data.rank(); ++d) {
      dims.push_back(data.shape().dim(d));
      row *= data.shape().dim(d);
    }
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(std::move(dims)));
    T* output = out.data<T>();  // zeros
    const std::vector<Index> ids = index_values(segment_ids);
    const T* input = data.data<T>();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Index j = ids[i];
      if (j < 0) continue;
      if (j >= output_rows)
        return ctx.fail(invalid_argument("segment_ids" +
                                         slice_debug_string(ids_shape, static_cast<Index>(i)) +
                                         " = " + std::to_string(j) + " is out of range [0, " +
                                         std::to_string(output_rows) + ")" + node_suffix(name())));
      const T* from = input + static_cast<Index>(i) * row;
      T* to = output + j * row;
      for (Index k = 0; k < row; ++k) to[k] = combine<true>(to[k], from[k]);
    }
  }
};

// -- Cumsum and Cumprod -------------------------------------------------------------------

// The running sum or product along `axis`; `exclusive` leaves the current element out (the
// first is 0 or 1), `reverse` runs from the end (scan_ops.cc). Integers wrap around.
template <class T, bool kSum>
class ScanOp : public OpKernel {
 public:
  ScanOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("exclusive", &exclusive_);
    if (s->ok()) *s = c.get_attr("reverse", &reverse_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& axis_tensor = ctx.input(1);
    if (axis_tensor.rank() != 0)
      return ctx.fail(invalid_argument("ScanOp: axis must be a scalar, not " +
                                       axis_tensor.shape().to_string() + node_suffix(name())));
    const Index axis_arg = index_values(axis_tensor)[0];
    const int rank = input.rank();
    const Index axis = axis_arg < 0 ? axis_arg + rank : axis_arg;
    if (axis < 0 || axis >= rank)
      return ctx.fail(invalid_argument(
          "ScanOp: Expected scan axis in the range [" + std::to_string(-rank) + ", " +
          std::to_string(rank) + "), but got " + std::to_string(axis_arg) + node_suffix(name())));
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    const Index n = input.shape().dim(static_cast<int>(axis));
    Index outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.shape().dim(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= input.shape().dim(d);
    const T* from = input.data<T>();
    T* to = out.data<T>();
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i) {
        T running = kSum ? T{} : one();
        for (Index k = 0; k < n; ++k) {
          const Index j = reverse_ ? n - 1 - k : k;
          const Index at = (o * n + j) * inner + i;
          if (exclusive_) to[at] = running;
          running = combine<kSum>(running, from[at]);
          if (!exclusive_) to[at] = running;
        }
      }
  }

 private:
  static T one() {
    if constexpr (is_half_like_v<T>)
      return T(1.0f);
    else
      return T(1);
  }

  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

namespace detail {

// sparse_segment_ops.cpp: the sparse segment reductions, their gradients and SegmentSum.
void register_sparse_segment_kernels(KernelRegistry& r);

void register_segment_kernels(KernelRegistry& r) {
  register_sparse_segment_kernels(r);
  register_typed(NumberTypes{}, [&](auto tag) {
    using T = decltype(tag);
    const DType t = dtype_of<T>::value;
    r.add(make_kernel_def<UnsortedSegmentSumOp<T>>(
        "UnsortedSegmentSum", "CPU",
        {{"T", {t}}, {"Tindices", kIndexTypes}, {"Tnumsegments", kIndexTypes}}));
    r.add(make_kernel_def<ScanOp<T, false>>("Cumprod", "CPU", {{"T", {t}}, {"Tidx", kIndexTypes}}));
    r.add(make_kernel_def<ScanOp<T, true>>("Cumsum", "CPU", {{"T", {t}}, {"Tidx", kIndexTypes}}));
  });
}

}  // namespace detail

}  // namespace af
