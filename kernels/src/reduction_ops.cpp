// Sum, Mean, Max, Min, Prod, Any and All: CPU kernels (a reduction over the middle of an [outer,
// middle, inner] view, split over the intra-op pool when large). Their definitions (shape
// function, builders) are in ops/src/defs/reduction_ops.cpp.
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

// -- reductions ---------------------------------------------------------------------------

enum class ReduceKind { sum, mean, max, min, prod, any, all };

// The type reductions accumulate in: float for bfloat16, for Mean 64-bit integers (as
// TensorFlow's MeanReducer specialisations do, so integer means do not overflow), bytes for
// Any and All.
template <ReduceKind K, class T>
struct accumulator {
  using type = compute_t<T>;
};
template <class T>
requires(std::is_integral_v<T> && sizeof(T) < 8) struct accumulator<ReduceKind::mean, T> {
  using type = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
};
// Any and All accumulate bools as bytes (std::vector<bool> packs bits).
template <>
struct accumulator<ReduceKind::any, bool> {
  using type = std::uint8_t;
};
template <>
struct accumulator<ReduceKind::all, bool> {
  using type = std::uint8_t;
};

template <ReduceKind K, class A>
struct Reducer {
  static A identity() {
    if constexpr (K == ReduceKind::max)
      return std::numeric_limits<A>::lowest();
    else if constexpr (K == ReduceKind::min)
      return std::numeric_limits<A>::max();
    else if constexpr (K == ReduceKind::prod)
      return A(1);
    else if constexpr (K == ReduceKind::all)
      return A(1);
    else
      return A(0);
  }
  static A combine(A a, A b) {
    if constexpr (K == ReduceKind::max)
      return a < b ? b : a;
    else if constexpr (K == ReduceKind::min)
      return b < a ? b : a;
    else if constexpr (K == ReduceKind::prod)
      return wrapping_mul(a, b);
    else if constexpr (K == ReduceKind::any)
      return static_cast<A>(a || b);
    else if constexpr (K == ReduceKind::all)
      return static_cast<A>(a && b);
    else
      return wrapping_add(a, b);
  }
  // Reduces n >= 1 contiguous values.
  static A reduce(const A* p, Index n) {
    if constexpr (std::is_floating_point_v<A>) {
      Eigen::Map<const Eigen::Array<A, Eigen::Dynamic, 1>> v(p, n);
      if constexpr (K == ReduceKind::max)
        return v.maxCoeff();
      else if constexpr (K == ReduceKind::min)
        return v.minCoeff();
      else if constexpr (K == ReduceKind::prod)
        return v.prod();
      else
        return v.sum();
    } else {
      // Independent lanes so the compiler vectorises (integer addition and multiplication
      // are associative).
      constexpr int kLanes = 8;
      std::array<A, kLanes> lanes;
      lanes.fill(identity());
      Index i = 0;
      for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l)
          lanes[static_cast<std::size_t>(l)] =
              combine(lanes[static_cast<std::size_t>(l)], p[i + l]);
      A acc = identity();
      for (A l : lanes) acc = combine(acc, l);
      for (; i < n; ++i) acc = combine(acc, p[i]);
      return acc;
    }
  }
};

// Reduces the middle dimension of `in` viewed as [outer, middle, inner] into `out` [outer, inner].
template <ReduceKind K, class A>
void reduce_middle(const OpKernelContext& ctx, const A* in, A* out, Index outer, Index middle,
                   Index inner) {
  using R = Reducer<K, A>;
  const Index total = outer * middle * inner;
  if (inner == 1) {
    Eigen::ThreadPoolDevice* device = ctx.eigen_device;
    const int threads = device ? device->numThreads() : 1;
    if (device && threads > 1 && total >= kExpensiveElements && outer < 2 * threads) {
      // Few long rows (a full reduction): split each row into blocks, then combine.
      constexpr Index kMaxBlocks = 64;
      const Index blocks = std::min<Index>({kMaxBlocks, 4 * threads, middle});
      const Index block = (middle + blocks - 1) / blocks;
      std::array<A, kMaxBlocks> partial;
      for (Index o = 0; o < outer; ++o) {
        const A* row = in + o * middle;
        device->parallelFor(
            blocks, Eigen::TensorOpCost(sizeof(A) * block, 0, block),
            [&](Eigen::Index b, Eigen::Index e) {
              for (Eigen::Index i = b; i < e; ++i) {
                const Index begin = i * block, end = std::min(middle, begin + block);
                partial[static_cast<std::size_t>(i)] =
                    begin < end ? R::reduce(row + begin, end - begin) : R::identity();
              }
            });
        A acc = partial[0];
        for (Index i = 1; i < blocks; ++i)
          acc = R::combine(acc, partial[static_cast<std::size_t>(i)]);
        out[o] = acc;
      }
      return;
    }
    parallel_for(ctx, outer, total, Eigen::TensorOpCost(sizeof(A) * middle, sizeof(A), middle),
                 [&](Index b, Index e) {
                   for (Index o = b; o < e; ++o) out[o] = R::reduce(in + o * middle, middle);
                 });
    return;
  }
  // Accumulate whole rows of `inner` values: contiguous, vectorised.
  auto reduce_rows = [inner](const A* __restrict src, Index rows, A* __restrict dst) {
    std::copy(src, src + inner, dst);
    for (Index m = 1; m < rows; ++m) {
      const A* row = src + m * inner;
      if constexpr (std::is_floating_point_v<A>) {
        ArrayMap<A> acc(dst, inner);
        if constexpr (K == ReduceKind::max)
          acc = acc.max(ConstArrayMap<A>(row, inner));
        else if constexpr (K == ReduceKind::min)
          acc = acc.min(ConstArrayMap<A>(row, inner));
        else if constexpr (K == ReduceKind::prod)
          acc *= ConstArrayMap<A>(row, inner);
        else
          acc += ConstArrayMap<A>(row, inner);
      } else {
        for (Index c = 0; c < inner; ++c) dst[c] = R::combine(dst[c], row[c]);
      }
    }
  };
  Eigen::ThreadPoolDevice* device = ctx.eigen_device;
  const int threads = device ? device->numThreads() : 1;
  if (outer >= 2 * threads || total < kExpensiveElements || threads == 1 || middle < 2) {
    parallel_for(ctx, outer, total,
                 Eigen::TensorOpCost(sizeof(A) * middle * inner, sizeof(A) * inner, middle * inner),
                 [&](Index b, Index e) {
                   for (Index o = b; o < e; ++o)
                     reduce_rows(in + o * middle * inner, middle, out + o * inner);
                 });
    return;
  }
  // Few outer slices (e.g. a sum over rows): each pool task streams a contiguous block of
  // rows into a partial result of its own, then the partials are combined.
  const Index blocks = std::min<Index>(threads, middle);
  const Index block = (middle + blocks - 1) / blocks;
  std::vector<A> partial(static_cast<std::size_t>(blocks * inner));
  for (Index o = 0; o < outer; ++o) {
    const A* src = in + o * middle * inner;
    device->parallelFor(
        blocks, Eigen::TensorOpCost(sizeof(A) * block * inner, sizeof(A) * inner, block * inner),
        [&](Eigen::Index b, Eigen::Index e) {
          for (Eigen::Index i = b; i < e; ++i) {
            const Index begin = i * block, end = std::min(middle, begin + block);
            if (begin < end)
              reduce_rows(src + begin * inner, end - begin, partial.data() + i * inner);
          }
        });
    A* dst = out + o * inner;
    reduce_rows(partial.data(), std::min<Index>(blocks, (middle + block - 1) / block), dst);
  }
}

template <ReduceKind K, class T>
class ReductionOp : public OpKernel {
 public:
  using A = typename accumulator<K, T>::type;

  ReductionOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    c.get_attr("keep_dims", &keep_dims_);
    (void)s;
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 2 && ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const int rank = in.rank();
    if (indices.rank() > 1)
      return ctx.fail(invalid_argument("reduction_indices must be a scalar or vector, got shape " +
                                       indices.shape().to_string() + node_suffix(name())));
    if (rank > 64)
      return ctx.fail(unimplemented("Reductions of rank " + std::to_string(rank) +
                                    " tensors are not supported" + node_suffix(name())));
    std::uint64_t reduced = 0;
    for (Index i = 0; i < indices.num_elements(); ++i) {
      Index axis = indices.dtype() == DType::int64
                       ? indices.data<std::int64_t>()[i]
                       : static_cast<Index>(indices.data<std::int32_t>()[i]);
      if (axis < -rank || axis >= rank)
        return ctx.fail(invalid_argument("Invalid reduction dimension (" + std::to_string(axis) +
                                         " for input with " + std::to_string(rank) +
                                         " dimension(s)" + node_suffix(name())));
      if (axis < 0) axis += rank;
      reduced |= std::uint64_t{1} << axis;
    }
    std::vector<std::int64_t> out_dims;
    out_dims.reserve(static_cast<std::size_t>(rank));
    Index count = 1;  // values reduced into each output
    // Groups of adjacent dimensions that are all reduced or all kept, size-1 dims skipped.
    std::array<Index, kMaxCollapsedRank * 4> group_size{};
    std::array<bool, kMaxCollapsedRank * 4> group_reduced{};
    int groups = 0;
    for (int d = 0; d < rank; ++d) {
      const bool r = (reduced >> d) & 1;
      const Index size = in.shape().dim(d);
      if (r) {
        count *= size;
        if (keep_dims_) out_dims.push_back(1);
      } else {
        out_dims.push_back(size);
      }
      if (size == 1) continue;
      if (groups > 0 && group_reduced[static_cast<std::size_t>(groups - 1)] == r) {
        group_size[static_cast<std::size_t>(groups - 1)] *= size;
      } else {
        group_size[static_cast<std::size_t>(groups)] = size;
        group_reduced[static_cast<std::size_t>(groups)] = r;
        ++groups;
      }
    }
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape(std::move(out_dims)));
    T* o = out.data<T>();
    const Index n_out = out.num_elements();
    if (n_out == 0) return;
    if (in.num_elements() == 0) return fill_empty(o, n_out);
    const T* ip = in.data<T>();
    if (count == 1) {  // nothing to reduce
      std::copy(ip, ip + n_out, o);
      return;
    }
    // Accumulate in A; convert the input first where A differs from T.
    std::vector<A> converted;
    const A* src;
    if constexpr (std::is_same_v<A, T>) {
      src = ip;
    } else {
      converted.resize(static_cast<std::size_t>(in.num_elements()));
      for (std::size_t i = 0; i < converted.size(); ++i)
        converted[i] = static_cast<A>(to_compute(ip[i]));
      src = converted.data();
    }
    // One pass per reduced group, innermost first; all but the last pass into scratch.
    std::vector<A> scratch[2];
    int first_reduced = -1;
    for (int g = groups - 1; g >= 0; --g)
      if (group_reduced[static_cast<std::size_t>(g)]) first_reduced = g;
    std::vector<A> final_scratch;
    A* final_dst;
    if constexpr (std::is_same_v<A, T>) {
      final_dst = o;
    } else {
      final_scratch.resize(static_cast<std::size_t>(n_out));
      final_dst = final_scratch.data();
    }
    Index inner_kept = 1;  // product of kept groups after the current one
    int pass = 0;
    for (int g = groups - 1; g >= 0; --g) {
      const auto u = static_cast<std::size_t>(g);
      if (!group_reduced[u]) {
        inner_kept *= group_size[u];
        continue;
      }
      Index outer = 1;
      for (int h = 0; h < g; ++h) outer *= group_size[static_cast<std::size_t>(h)];
      A* dst;
      if (g == first_reduced) {
        dst = final_dst;
      } else {
        auto& buf = scratch[pass % 2];
        buf.resize(static_cast<std::size_t>(outer * inner_kept));
        dst = buf.data();
      }
      reduce_middle<K>(ctx, src, dst, outer, group_size[u], inner_kept);
      src = dst;
      ++pass;
    }
    if constexpr (K == ReduceKind::mean) {
      for (Index i = 0; i < n_out; ++i)
        final_dst[i] = static_cast<A>(final_dst[i] / static_cast<A>(count));
    }
    if constexpr (!std::is_same_v<A, T>) {
      for (Index i = 0; i < n_out; ++i)
        o[i] = from_compute<T>(static_cast<compute_t<T>>(final_dst[i]));
    }
  }

 private:
  // Reductions over no values: 0 for Sum, 1 for Prod, the lowest value for Max, the highest
  // for Min, NaN (0 for integers) for Mean, false for Any, true for All.
  static void fill_empty(T* o, Index n) {
    T value{};
    if constexpr (K == ReduceKind::max) {
      value = std::numeric_limits<T>::lowest();  // the lowest finite value (bfloat16, float16 too)
    } else if constexpr (K == ReduceKind::min) {
      value = std::numeric_limits<T>::max();
    } else if constexpr (K == ReduceKind::prod) {
      value = from_compute<T>(compute_t<T>(1));
    } else if constexpr (K == ReduceKind::all) {
      value = true;
    } else if constexpr (K == ReduceKind::mean && is_complex_v<T>) {
      const auto nan = std::numeric_limits<typename T::value_type>::quiet_NaN();
      value = T(nan, nan);
    } else if constexpr (K == ReduceKind::mean && !std::is_integral_v<T>) {
      value = from_compute<T>(std::numeric_limits<compute_t<T>>::quiet_NaN());
    }
    std::fill(o, o + n, value);
  }

  bool keep_dims_ = false;
};

template <class T>
using SumKernel = ReductionOp<ReduceKind::sum, T>;
template <class T>
using MeanKernel = ReductionOp<ReduceKind::mean, T>;
template <class T>
using MaxKernel = ReductionOp<ReduceKind::max, T>;
template <class T>
using MinKernel = ReductionOp<ReduceKind::min, T>;
template <class T>
using ProdKernel = ReductionOp<ReduceKind::prod, T>;

}  // namespace

namespace detail {

void register_reduction_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21.
  register_for_list<SumKernel>(r, "Sum", NumberTypes{});
  register_for_list<MeanKernel>(r, "Mean", NumberTypes{});
  register_for_list<MaxKernel>(r, "Max", RealNumberTypes{});
  register_for_list<MinKernel>(r, "Min", RealNumberTypes{});
  register_for_list<ProdKernel>(r, "Prod", NumberTypes{});
  // Any and All reduce bool tensors: no T attribute to constrain.
  r.add(make_kernel_def<ReductionOp<ReduceKind::any, bool>>("Any", "CPU", {}));
  r.add(make_kernel_def<ReductionOp<ReduceKind::all, bool>>("All", "CPU", {}));
}

}  // namespace detail

}  // namespace af
