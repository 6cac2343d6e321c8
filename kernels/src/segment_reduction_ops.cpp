// SegmentMean, SegmentMax, SegmentMin and SegmentProd (sorted segment ids) and
// UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd: the CPU kernels, with
// TensorFlow's checks, messages and values (segment_reduction_ops_impl.h), registered by
// register_segment_reduction_kernels. SegmentSum on int32 and int64 is registered here too
// (its float kernels are in sparse_segment_ops.cpp): SegmentProd's gradient counts zeros with
// it. The definitions are in ops/src/defs/segment_reduction_ops.cpp, the gradients in
// ops/src/gradients/segment_grad.cpp.
//
// A sorted reduction has `last id + 1` rows. A segment of one row is that row; a longer one
// folds its rows in order into Eigen's initial value (0 for sums and means, 1 for products,
// -inf / +inf for float max / min, the type's lowest / highest for integers), and the mean
// divides the sum by the number of rows at the end (integers truncate, as C++ does). Rows no
// id names get 0 (1 for SegmentProd). An unsorted reduction starts every output row at 0, 1
// or the type's lowest / highest value (for floats -FLT_MAX and FLT_MAX, not infinities:
// TensorFlow's Lowest and Highest) and folds the rows of each id in order; rows of a negative
// id are dropped. Max and min fold as std::max(row, acc) and std::min(row, acc): a NaN row
// makes the value NaN and a later number replaces it, as TensorFlow's scalar code does.
// Integers wrap around.
//
// TensorFlow's sorted kernels reduce a segment with Eigen, which takes whole SIMD packets of
// columns (8 floats or 4 doubles with AVX) where a row has them: there Max and Min skip NaN,
// and Prod over 16 rows or more multiplies four interleaved partial products (the last bit
// may differ). Those paths depend on the machine's vector width; these kernels take the
// scalar order everywhere.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "segment_walk.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::kIndexTypes;
using detail::slice_debug_string;
using detail::StatusKernel;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

enum class Reduction { sum, mean, max, min, prod };

// a + b and a * b; integers in their unsigned type (unsigned int below it: no promotion to
// int), so overflow wraps without UB.
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = Wide<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = Wide<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// One reduction over elements of type T: its initial values and its step.
template <Reduction R, class T>
struct Reducer {
  // Eigen's initial value of a sorted segment of several rows (SumReducer, MeanReducer,
  // ProdReducer, MaxReducer, MinReducer).
  static T sorted_initial() {
    if constexpr (R == Reduction::prod) {
      return T(1);
    } else if constexpr (R == Reduction::max) {
      if constexpr (std::numeric_limits<T>::has_infinity)
        return -std::numeric_limits<T>::infinity();
      else
        return std::numeric_limits<T>::lowest();
    } else if constexpr (R == Reduction::min) {
      if constexpr (std::numeric_limits<T>::has_infinity)
        return std::numeric_limits<T>::infinity();
      else
        return std::numeric_limits<T>::max();
    } else {
      return T(0);
    }
  }

  // The rows of a sorted reduction that no id names (SegmentReductionOp's default_value).
  static T gap_value() { return R == Reduction::prod ? T(1) : T(0); }

  // The initial value of every output row of an unsorted reduction (functor::Zero, One,
  // Lowest, Highest), of element type L's range (float16's and bfloat16's when computed in
  // float for them).
  template <class L = T>
  static T unsorted_initial() {
    if constexpr (R == Reduction::prod)
      return T(1);
    else if constexpr (R == Reduction::max)
      return static_cast<T>(std::numeric_limits<L>::lowest());
    else if constexpr (R == Reduction::min)
      return static_cast<T>(std::numeric_limits<L>::max());
    else
      return T(0);
  }

  // Folds `row` into `acc`: std::max(row, acc) and std::min(row, acc) for max and min.
  static T combine(T row, T acc) {
    if constexpr (R == Reduction::prod)
      return wrapping_mul(acc, row);
    else if constexpr (R == Reduction::max)
      return row < acc ? acc : row;
    else if constexpr (R == Reduction::min)
      return acc < row ? acc : row;
    else
      return wrapping_add(acc, row);
  }
};

// The elements of one row of `t` (its dims from `first` on).
Index row_size(const Tensor& t, int first) {
  Index n = 1;
  for (int d = first; d < t.rank(); ++d) n *= t.shape().dim(d);
  return n;
}

// -- sorted segment ids --------------------------------------------------------------------

// Segment{Sum,Mean,Max,Min,Prod}(data, segment_ids): TensorFlow's SegmentReductionOp.
template <Reduction R, class T>
class SegmentReductionOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

 private:
  using Red = Reducer<R, T>;

  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& segment_ids = ctx.input(1);
    // ValidateSegmentReduction.
    if (data.rank() < 1) return invalid_argument("input must be at least rank 1");
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (segment_ids.num_elements() != data.shape().dim(0))
      return invalid_argument("segment_ids should be the same size as dimension 0 of input.");
    const std::vector<Index> ids = index_values(segment_ids);
    const Index output_rows = ids.empty() ? 0 : ids.back() + 1;
    if (output_rows < 0) return invalid_argument("segment ids must be >= 0");
    std::vector<std::int64_t> dims = data.shape().dims();
    dims[0] = output_rows;
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(std::move(dims)));
    if (ids.empty()) return {};
    if (output_rows <= 0) return invalid_argument("segment ids must be >= 0");
    const Index row = row_size(data, 1);
    const T* input = data.data<T>();
    T* output = out.data<T>();
    // Each run of equal ids is one segment; the rows between segments get the gap value.
    return detail::for_each_segment(
        ids, output_rows,
        [&](Index out_row, Index begin, Index end) -> Status {
          reduce(input + begin * row, end - begin, row, output + out_row * row);
          return {};
        },
        [&](Index from, Index to) {
          std::fill(output + from * row, output + to * row, Red::gap_value());
        });
  }

  // Reduces the `rows` rows of `row` elements at `in` into the row at `out`.
  static void reduce(const T* in, Index rows, Index row, T* out) {
    if (rows == 1) {
      std::copy(in, in + row, out);
      return;
    }
    std::fill(out, out + row, Red::sorted_initial());
    for (Index r = 0; r < rows; ++r) {
      const T* src = in + r * row;
      for (Index c = 0; c < row; ++c) out[c] = Red::combine(src[c], out[c]);
    }
    if constexpr (R == Reduction::mean) {
      const T count = static_cast<T>(rows);
      for (Index c = 0; c < row; ++c) out[c] = out[c] / count;
    }
  }
};

// -- unsorted segment ids ------------------------------------------------------------------

// UnsortedSegment{Max,Min,Prod}(data, segment_ids, num_segments): TensorFlow's
// UnsortedSegmentReductionOp with its CPU UnsortedSegmentFunctor. The leading
// segment_ids.shape dims of `data` are flattened into rows.
// `L`: the element type whose range gives the initial values (T's, or the float16 or
// bfloat16 a float kernel computes for).
template <Reduction R, class T, class L = T>
class UnsortedSegmentReductionOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

 private:
  using Red = Reducer<R, T>;

  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& segment_ids = ctx.input(1);
    const Tensor& num_segments = ctx.input(2);
    // ValidateUnsortedSegmentReduction.
    if (num_segments.rank() != 0)
      return invalid_argument("num_segments should be a scalar, not shape " +
                              num_segments.shape().to_string());
    const Shape& ids_shape = segment_ids.shape();
    bool starts_with = data.rank() >= ids_shape.rank();
    for (int d = 0; starts_with && d < ids_shape.rank(); ++d)
      starts_with = data.shape().dim(d) == ids_shape.dim(d);
    if (!starts_with)
      return invalid_argument("data.shape = " + data.shape().to_string() +
                              " does not start with segment_ids.shape = " + ids_shape.to_string());
    const Index output_rows = index_values(num_segments)[0];
    if (output_rows < 0)
      return invalid_argument("Input num_segments == " + std::to_string(output_rows) +
                              " must not be negative.");
    std::vector<std::int64_t> dims{output_rows};
    for (int d = ids_shape.rank(); d < data.rank(); ++d) dims.push_back(data.shape().dim(d));
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(std::move(dims)));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), Red::template unsorted_initial<L>());
    if (data.num_elements() == 0) return {};
    const std::vector<Index> ids = index_values(segment_ids);
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] >= output_rows)
        return invalid_argument(
            "segment_ids" + slice_debug_string(ids_shape, static_cast<Index>(i)) + " = " +
            std::to_string(ids[i]) + " is out of range [0, " + std::to_string(output_rows) + ")");
    const Index row = row_size(data, ids_shape.rank());
    const T* input = data.data<T>();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      const T* src = input + static_cast<Index>(i) * row;
      T* dst = output + ids[i] * row;
      for (Index c = 0; c < row; ++c) dst[c] = Red::combine(src[c], dst[c]);
    }
    return {};
  }
};

}  // namespace

namespace detail {

void register_segment_reduction_kernels(KernelRegistry& r) {
  // TensorFlow 2.21's types: Max and Min of real numbers, Mean and Prod of every number,
  // SegmentSum here of the integers and complex numbers (of floats: sparse_segment_ops.cpp);
  // float16 and bfloat16 through the float kernels.
  auto constraints = [](DType t, bool sorted) {
    std::vector<std::pair<std::string, std::vector<DType>>> c{{"T", {t}},
                                                              {"Tindices", kIndexTypes}};
    if (!sorted) c.push_back({"Tnumsegments", kIndexTypes});
    return c;
  };
  auto add = [&]<Reduction R>(auto tag, const char* sorted_op, const char* unsorted_op) {
    using T = decltype(tag);
    const DType t = dtype_of_v<T>;
    if (sorted_op)
      r.add(make_kernel_def<SegmentReductionOp<R, T>>(sorted_op, "CPU", constraints(t, true)));
    if (unsorted_op)
      r.add(make_kernel_def<UnsortedSegmentReductionOp<R, T>>(unsorted_op, "CPU",
                                                              constraints(t, false)));
    if constexpr (std::is_same_v<T, float>) {
      if (sorted_op)
        register_via_float<SegmentReductionOp<R, float>>(r, sorted_op, "T",
                                                         {{"Tindices", kIndexTypes}});
      if (unsorted_op) {
        const std::vector<std::pair<std::string, std::vector<DType>>> more{
            {"Tindices", kIndexTypes}, {"Tnumsegments", kIndexTypes}};
        register_via_float<half_t>(
            r, unsorted_op,
            make_kernel_def<UnsortedSegmentReductionOp<R, float, half_t>>("", "").factory, "T",
            more);
        register_via_float<bfloat16_t>(
            r, unsorted_op,
            make_kernel_def<UnsortedSegmentReductionOp<R, float, bfloat16_t>>("", "").factory, "T",
            more);
      }
    }
  };
  auto add_real = [&](auto tag) {
    add.template operator()<Reduction::max>(tag, "SegmentMax", "UnsortedSegmentMax");
    add.template operator()<Reduction::min>(tag, "SegmentMin", "UnsortedSegmentMin");
  };
  auto add_number = [&](auto tag) {
    using T = decltype(tag);
    add.template operator()<Reduction::mean>(tag, "SegmentMean", nullptr);
    add.template operator()<Reduction::prod>(tag, "SegmentProd", "UnsortedSegmentProd");
    if constexpr (!std::is_floating_point_v<T>)
      add.template operator()<Reduction::sum>(tag, "SegmentSum", nullptr);
  };
  auto both = [&](auto tag) {
    add_real(tag);
    add_number(tag);
  };
  both(float{});
  both(double{});
  both(std::int8_t{});
  both(std::int16_t{});
  both(std::int32_t{});
  both(std::int64_t{});
  both(std::uint8_t{});
  both(std::uint16_t{});
  both(std::uint32_t{});
  both(std::uint64_t{});
  add_number(complex64_t{});
  add_number(complex128_t{});
}

}  // namespace detail

}  // namespace af
