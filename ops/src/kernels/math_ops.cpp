// Add, Sub, Mul, RealDiv, Div, Neg, MatMul, Sum, Mean, Max, Min, Prod, Relu, Sigmoid, Tanh and
// Softmax: ops, shape functions, CPU kernels and graph-building functions. The element-wise
// machinery they share with the other element-wise ops lives in cwise_ops_common.hpp.
//
// Kernels are plain loops the compiler vectorises, or Eigen where Eigen is faster (matrix
// products, transcendental functions). Large inputs are split over the intra-op pool
// (`OpKernelContext::eigen_device`); small ones run inline and allocate nothing but their
// output, since the executor runs cheap kernels directly in the device actor.
#include <algorithm>
#include <atomic>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "cpu_gemm.hpp"
#include "cwise_ops_common.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// MatMuls with more multiply-adds than this are worth a pool thread.
constexpr Index kExpensiveMatMulFlops = 64 * 1024;
// Up to this many multiply-adds a plain loop beats Eigen's packing (and allocates nothing).
constexpr Index kNaiveMatMulFlops = 8 * 1024;

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
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveElements;
  }

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
      for (Index i = 0; i < n; ++i) out[i] = bfloat16_t(std::exp(static_cast<float>(x[i]) - max) / sum);
    }
  }
};

// -- MatMul -------------------------------------------------------------------------------

// out[m,n] = op(a) * op(b); `a` is [m,k] (or [k,m] when transposed), `b` is [k,n] (or [n,k]).
template <class T>
void naive_matmul(const T* a, const T* b, T* out, Index m, Index n, Index k, bool ta, bool tb) {
  std::fill(out, out + m * n, T(0));
  for (Index i = 0; i < m; ++i) {
    T* row = out + i * n;
    for (Index p = 0; p < k; ++p) {
      const T av = ta ? a[p * m + i] : a[i * k + p];
      if (tb) {
        for (Index j = 0; j < n; ++j) row[j] = wrapping_add(row[j], wrapping_mul(av, b[j * k + p]));
      } else {
        const T* brow = b + p * n;
        for (Index j = 0; j < n; ++j) row[j] = wrapping_add(row[j], wrapping_mul(av, brow[j]));
      }
    }
  }
}

template <class T>
void eigen_matmul(const OpKernelContext& ctx, const T* a, const T* b, T* out, Index m, Index n,
                  Index k, bool ta, bool tb) {
  using ConstMatrix = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Eigen::Index>>;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Eigen::Index>>;
  ConstMatrix am(a, ta ? k : m, ta ? m : k);
  ConstMatrix bm(b, tb ? n : k, tb ? k : n);
  Matrix om(out, m, n);
  // The contracted dimensions are runtime values, so one instantiation serves all four
  // transpose combinations.
  Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> dims{
      {Eigen::IndexPair<Eigen::Index>(ta ? 0 : 1, tb ? 1 : 0)}};
  // oneDNN and OpenBLAS pick their kernels for the CPU at run time (AVX2/AVX-512), which
  // Eigen built for baseline x86-64 cannot: 80 vs 11 GFLOP/s at 1024^3 on 2 cores (apps/bench
  // mm), and 3x on the products of a training step with one thread (apps/bench p6).
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if constexpr (std::is_same_v<T, float>) {
      if (detail::cpu_gemm(a, b, out, m, n, k, ta, tb, std::max(1, ctx.intra_op_threads), ctx.eigen_device)) return;
    } else {
      if (detail::cpu_gemm(a, b, out, m, n, k, ta, tb, std::max(1, ctx.intra_op_threads))) return;
    }
  }
  // With one intra-op thread, compute on the calling (inter-op) thread: a one-thread Eigen
  // pool would serialise independent matmuls running on different inter-op threads.
  if (ctx.eigen_device != nullptr && ctx.intra_op_threads > 1)
    om.device(*ctx.eigen_device) = am.contract(bm, dims);
  else
    om.device(Eigen::DefaultDevice()) = am.contract(bm, dims);
}

template <class T>
class MatMulOp : public OpKernel {
 public:
  MatMulOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("transpose_a", &transpose_a_);
    if (s->ok()) *s = c.get_attr("transpose_b", &transpose_b_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    if (ctx.num_inputs() != 2 || ctx.input(0).rank() != 2 || ctx.input(1).rank() != 2) return false;
    const Shape& a = ctx.input(0).shape();
    const Shape& b = ctx.input(1).shape();
    return a.dim(0) * a.dim(1) * b.dim(transpose_b_ ? 0 : 1) > kExpensiveMatMulFlops;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    for (int i = 0; i < 2; ++i)
      if (ctx.input(i).rank() != 2)
        return ctx.fail(invalid_argument("In[" + std::to_string(i) +
                                         "] is not a matrix. Instead it has shape " +
                                         ctx.input(i).shape().to_string() + node_suffix(name())));
    const Index m = a.shape().dim(transpose_a_ ? 1 : 0);
    const Index k = a.shape().dim(transpose_a_ ? 0 : 1);
    const Index kb = b.shape().dim(transpose_b_ ? 1 : 0);
    const Index n = b.shape().dim(transpose_b_ ? 0 : 1);
    if (k != kb)
      return ctx.fail(invalid_argument("Matrix size-incompatible: In[0]: " + a.shape().to_string() +
                                       ", In[1]: " + b.shape().to_string() + node_suffix(name())));
    if (m == 0 || n == 0 || k == 0) {  // a zero-filled output
      ctx.allocate_output(0, dtype_of_v<T>, Shape{m, n});
      return;
    }
    Tensor& out = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, Shape{m, n});
    T* o = out.data<T>();
    if constexpr (std::is_same_v<T, bfloat16_t>) {
      // Products in float, rounded once; the conversions are cheap next to the product.
      std::vector<float> af(static_cast<std::size_t>(m * k)), bf(static_cast<std::size_t>(k * n)),
          of(static_cast<std::size_t>(m * n));
      const T* ap = a.data<T>();
      const T* bp = b.data<T>();
      for (std::size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>(ap[i]);
      for (std::size_t i = 0; i < bf.size(); ++i) bf[i] = static_cast<float>(bp[i]);
      multiply(ctx, af.data(), bf.data(), of.data(), m, n, k);
      for (std::size_t i = 0; i < of.size(); ++i) o[i] = bfloat16_t(of[i]);
    } else {
      multiply(ctx, a.data<T>(), b.data<T>(), o, m, n, k);
    }
  }

 private:
  template <class C>
  void multiply(const OpKernelContext& ctx, const C* a, const C* b, C* out, Index m, Index n,
                Index k) const {
    if (m * n * k <= kNaiveMatMulFlops)
      naive_matmul(a, b, out, m, n, k, transpose_a_, transpose_b_);
    else
      eigen_matmul(ctx, a, b, out, m, n, k, transpose_a_, transpose_b_);
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// -- reductions ---------------------------------------------------------------------------

enum class ReduceKind { sum, mean, max, min, prod };

// The type reductions accumulate in: float for bfloat16 and, for Mean, 64-bit integers (as
// TensorFlow's MeanReducer specialisations do, so integer means do not overflow).
template <ReduceKind K, class T>
struct accumulator {
  using type = compute_t<T>;
};
template <>
struct accumulator<ReduceKind::mean, std::int32_t> {
  using type = std::int64_t;
};
template <>
struct accumulator<ReduceKind::mean, std::uint8_t> {
  using type = std::uint64_t;
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
        for (int l = 0; l < kLanes; ++l) lanes[static_cast<std::size_t>(l)] = combine(lanes[static_cast<std::size_t>(l)], p[i + l]);
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
        device->parallelFor(blocks, Eigen::TensorOpCost(sizeof(A) * block, 0, block),
                            [&](Eigen::Index b, Eigen::Index e) {
                              for (Eigen::Index i = b; i < e; ++i) {
                                const Index begin = i * block, end = std::min(middle, begin + block);
                                partial[static_cast<std::size_t>(i)] =
                                    begin < end ? R::reduce(row + begin, end - begin) : R::identity();
                              }
                            });
        A acc = partial[0];
        for (Index i = 1; i < blocks; ++i) acc = R::combine(acc, partial[static_cast<std::size_t>(i)]);
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
                   for (Index o = b; o < e; ++o) reduce_rows(in + o * middle * inner, middle, out + o * inner);
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
    device->parallelFor(blocks, Eigen::TensorOpCost(sizeof(A) * block * inner, sizeof(A) * inner, block * inner),
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
      for (std::size_t i = 0; i < converted.size(); ++i) converted[i] = static_cast<A>(to_compute(ip[i]));
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
      for (Index i = 0; i < n_out; ++i) final_dst[i] = static_cast<A>(final_dst[i] / static_cast<A>(count));
    }
    if constexpr (!std::is_same_v<A, T>) {
      for (Index i = 0; i < n_out; ++i) o[i] = from_compute<T>(static_cast<compute_t<T>>(final_dst[i]));
    }
  }

 private:
  // Reductions over no values: 0 for Sum, 1 for Prod, the lowest value for Max, the highest
  // for Min, NaN (0 for integers) for Mean.
  static void fill_empty(T* o, Index n) {
    T value{};
    if constexpr (K == ReduceKind::max) {
      if constexpr (std::is_same_v<T, bfloat16_t>)
        value.bits = 0xff7f;  // bfloat16's lowest finite value
      else
        value = std::numeric_limits<T>::lowest();
    } else if constexpr (K == ReduceKind::min) {
      if constexpr (std::is_same_v<T, bfloat16_t>)
        value.bits = 0x7f7f;  // bfloat16's highest finite value
      else
        value = std::numeric_limits<T>::max();
    } else if constexpr (K == ReduceKind::prod) {
      value = from_compute<T>(compute_t<T>(1));
    } else if constexpr (K == ReduceKind::mean && !std::is_integral_v<T>) {
      value = from_compute<T>(std::numeric_limits<compute_t<T>>::quiet_NaN());
    }
    std::fill(o, o + n, value);
  }

  bool keep_dims_ = false;
};

// -- shape functions ----------------------------------------------------------------------

Status infer_matmul(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  if (c.input_types[1] != t)
    return invalid_argument(type_mismatch_message(c.node.op, "b", c.input_types[1], "a", t));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, allowed));
  bool ta = false, tb = false;
  c.get_attr("transpose_a", &ta);
  c.get_attr("transpose_b", &tb);
  PartialShape a = c.input_shapes[0], b = c.input_shapes[1];
  for (const PartialShape* s : {&a, &b})
    if (s->rank_known() && s->rank() != 2)
      return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(s->rank()));
  if (!a.rank_known()) a = PartialShape::unknown_of_rank(2);
  if (!b.rank_known()) b = PartialShape::unknown_of_rank(2);
  const std::int64_t m = a.dim(ta ? 1 : 0), ka = a.dim(ta ? 0 : 1);
  const std::int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(ka) + " and " +
                            std::to_string(kb));
  c.add_output(t, PartialShape{m, n});
  return {};
}

Status infer_reduction(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, allowed));
  const DType index_type = c.input_types[1];
  if (index_type != DType::int32 && index_type != DType::int64)
    return invalid_argument("Value for attr 'Tidx' of " + std::string(data_type_string(index_type)) +
                            " is not in the list of allowed values: int32, int64");
  bool keep_dims = false;
  c.get_attr("keep_dims", &keep_dims);
  const PartialShape& in = c.input_shapes[0];
  const Tensor* indices = c.input_values[1];
  if (indices == nullptr || !in.rank_known()) {
    c.add_output(t, keep_dims && in.rank_known() ? PartialShape::unknown_of_rank(in.rank())
                                                 : PartialShape::unknown());
    return {};
  }
  if (indices->rank() > 1)
    return invalid_argument("Shape must be at most rank 1 but is rank " +
                            std::to_string(indices->rank()));
  const int rank = in.rank();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (Index i = 0; i < indices->num_elements(); ++i) {
    Index axis = indices->dtype() == DType::int64
                     ? indices->data<std::int64_t>()[i]
                     : static_cast<Index>(indices->data<std::int32_t>()[i]);
    if (axis < -rank || axis >= rank)
      return invalid_argument("Invalid reduction dimension " + std::to_string(axis) +
                              " for input with " + std::to_string(rank) + " dimensions.");
    reduced[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = true;
  }
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<std::size_t>(d)])
      dims.push_back(in.dim(d));
    else if (keep_dims)
      dims.push_back(1);
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

Status infer_softmax(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  const PartialShape& s = c.input_shapes[0];
  if (s.rank_known() && s.rank() < 1)
    return invalid_argument("Shape must be at least rank 1 but is rank " + std::to_string(s.rank()));
  c.add_output(c.input_types[0], s);
  return {};
}

// -- registration helpers -----------------------------------------------------------------

template <class T> using AddKernel = BinaryOp<AddFn, T>;
template <class T> using SubKernel = BinaryOp<SubFn, T>;
template <class T> using MulKernel = BinaryOp<MulFn, T>;
template <class T> using DivKernel = BinaryOp<DivFn, T>;
template <class T> using NegKernel = UnaryOp<NegFn, T>;
template <class T> using ReluKernel = UnaryOp<ReluFn, T>;
template <class T> using SigmoidKernel = UnaryOp<SigmoidFn, T>;
template <class T> using TanhKernel = UnaryOp<TanhFn, T>;
template <class T> using SumKernel = ReductionOp<ReduceKind::sum, T>;
template <class T> using MeanKernel = ReductionOp<ReduceKind::mean, T>;
template <class T> using MaxKernel = ReductionOp<ReduceKind::max, T>;
template <class T> using MinKernel = ReductionOp<ReduceKind::min, T>;
template <class T> using ProdKernel = ReductionOp<ReduceKind::prod, T>;

// Element types by op, as TensorFlow's CPU kernels.
const std::vector<DType> kMatMulTypes = {DType::float32, DType::float64, DType::int32,
                                         DType::int64, DType::bfloat16};

// -- builders -----------------------------------------------------------------------------

Output reduction_op(const char* type, const Output& x,
                    const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                    std::string_view name) {
  Graph& g = x.graph();
  AttrMap attrs{{"keep_dims", keep_dims}, {"T", x.dtype()}, {"Tidx", DType::int32}};
  std::string requested(name.empty() ? std::string_view(type) : name);
  if (!axes) {
    // TensorFlow's _ReductionDims: a Const of range(rank) beside the op.
    if (!x.shape().rank_known())
      throw InvalidArgumentError(invalid_argument(
          std::string(type) + " over all axes of '" + x.name() +
          "' needs its rank, which is unknown; pass the axes explicitly"));
    std::vector<std::int32_t> all(static_cast<std::size_t>(x.shape().rank()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int32_t>(i);
    Output indices = g.constant(Tensor::from_vector(all), "Const");
    return g.create_op(type, {x, indices}, std::move(attrs), requested).output(0);
  }
  // Explicit axes become the op's input "<op>/reduction_indices", as op_def_library names them.
  std::vector<std::int32_t> values;
  for (auto a : *axes) values.push_back(static_cast<std::int32_t>(a));
  const std::string op_name = g.unique_name(requested);
  Output indices;
  {
    auto scope = g.name_scope(op_name + "/");
    indices = g.constant(Tensor::from_vector(values), "reduction_indices");
  }
  return g.create_op(type, {x, indices}, std::move(attrs), op_name + "/").output(0);
}

}  // namespace

namespace detail {

void register_math_ops(OpRegistry& r) {
  auto binary = [&](const char* type, const std::vector<DType>& allowed) {
    r.add({type, [allowed](InferenceContext& c) { return infer_binary(c, allowed); }});
  };
  binary("Add", kArithmeticTypes);
  binary("Sub", kArithmeticTypes);
  binary("Mul", kArithmeticTypes);
  binary("Div", kArithmeticTypes);
  binary("RealDiv", kFloatTypes);
  auto unary = [&](const char* type, const std::vector<DType>& allowed) {
    r.add({type, [allowed](InferenceContext& c) { return infer_unary(c, allowed); }});
  };
  unary("Neg", kSignedTypes);
  unary("Relu", kArithmeticTypes);
  unary("Sigmoid", kFloatTypes);
  unary("Tanh", kFloatTypes);
  r.add({"Softmax", infer_softmax});
  r.add({"MatMul", [](InferenceContext& c) { return infer_matmul(c, kMatMulTypes); }});
  for (const char* type : {"Sum", "Mean", "Max", "Min", "Prod"})
    r.add({type, [](InferenceContext& c) { return infer_reduction(c, kArithmeticTypes); }});
}

void register_math_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  using std::uint8_t;
  register_for_types<AddKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Add");
  register_for_types<SubKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Sub");
  register_for_types<MulKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Mul");
  register_for_types<DivKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Div");
  register_for_types<DivKernel, float, double, bfloat16_t>(r, "RealDiv");
  register_for_types<NegKernel, float, double, int32_t, int64_t, bfloat16_t>(r, "Neg");
  register_for_types<ReluKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Relu");
  register_for_types<SigmoidKernel, float, double, bfloat16_t>(r, "Sigmoid");
  register_for_types<TanhKernel, float, double, bfloat16_t>(r, "Tanh");
  register_for_types<SoftmaxOp, float, double, bfloat16_t>(r, "Softmax");
  register_for_types<MatMulOp, float, double, int32_t, int64_t, bfloat16_t>(r, "MatMul");
  register_for_types<SumKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Sum");
  register_for_types<MeanKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Mean");
  register_for_types<MaxKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Max");
  register_for_types<MinKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Min");
  register_for_types<ProdKernel, float, double, int32_t, int64_t, uint8_t, bfloat16_t>(r, "Prod");
}

}  // namespace detail

Output add(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Add", a, b, name, "Add");
}
Output sub(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Sub", a, b, name, "Sub");
}
Output mul(const Output& a, const Output& b, std::string_view name) {
  return binary_op("Mul", a, b, name, "Mul");
}
Output div(const Output& a, const Output& b, std::string_view name) {
  // tf.truediv on floats; C-style truncating division on integers.
  const bool integral = is_integer(a.dtype());
  return binary_op(integral ? "Div" : "RealDiv", a, b, name, "truediv");
}
Output neg(const Output& x, std::string_view name) { return unary_op("Neg", x, name); }

Output matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b,
              std::string_view name) {
  if (a.dtype() != b.dtype())
    throw InvalidArgumentError(
        invalid_argument(type_mismatch_message("MatMul", "b", b.dtype(), "a", a.dtype())));
  return a.graph()
      .create_op("MatMul", {a, b},
                 {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}, {"T", a.dtype()}},
                 name.empty() ? "MatMul" : name)
      .output(0);
}

Output reduce_sum(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Sum", x, axes, keep_dims, name);
}
Output reduce_mean(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                   std::string_view name) {
  return reduction_op("Mean", x, axes, keep_dims, name);
}
Output reduce_max(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Max", x, axes, keep_dims, name);
}
Output reduce_min(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Min", x, axes, keep_dims, name);
}
Output reduce_prod(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                   std::string_view name) {
  return reduction_op("Prod", x, axes, keep_dims, name);
}

Output relu(const Output& x, std::string_view name) { return unary_op("Relu", x, name); }
Output sigmoid(const Output& x, std::string_view name) { return unary_op("Sigmoid", x, name); }
Output tanh(const Output& x, std::string_view name) { return unary_op("Tanh", x, name); }
Output softmax(const Output& x, std::string_view name) { return unary_op("Softmax", x, name); }

}  // namespace af
