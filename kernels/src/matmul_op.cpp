// MatMul and the batched products BatchMatMul, BatchMatMulV2 and BatchMatMulV3: their CPU
// kernels. Products go to the GEMM backend (cpu_gemm.cpp: oneDNN or OpenBLAS, opened on first
// use) for float, to Eigen for the other types, and to a plain loop when tiny. Their
// definitions (shape functions, builders) are in ops/src/defs/matmul_op.cpp.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cpu_gemm.hpp"
#include "cwise_ops_common.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// MatMuls with more multiply-adds than this are worth a pool thread.
constexpr Index kExpensiveMatMulFlops = 64 * 1024;
// Up to this many multiply-adds a plain loop beats Eigen's packing (and allocates nothing).
constexpr Index kNaiveMatMulFlops = 8 * 1024;

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
  // Eigen built for baseline x86-64 cannot, several times faster on large products and on
  // the products of a training step.
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if constexpr (std::is_same_v<T, float>) {
      if (detail::cpu_gemm(a, b, out, m, n, k, ta, tb, std::max(1, ctx.intra_op_threads),
                           ctx.eigen_device))
        return;
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

// out[m,n] = op(a) * op(b) by the cheapest route for its size.
template <class C>
void multiply(const OpKernelContext& ctx, const C* a, const C* b, C* out, Index m, Index n, Index k,
              bool ta, bool tb) {
  if (m * n * k <= kNaiveMatMulFlops)
    naive_matmul(a, b, out, m, n, k, ta, tb);
  else
    eigen_matmul(ctx, a, b, out, m, n, k, ta, tb);
}

// Runs `product(a, b, out)` over float copies of bfloat16 `a` and `b`, rounding the result
// into `out` once; the conversions are cheap next to the product.
template <class T, class Product>
void via_float(const Tensor& a, const Tensor& b, Tensor& out, Product product) {
  if constexpr (is_half_like_v<T>) {
    std::vector<float> af(static_cast<std::size_t>(a.num_elements())),
        bf(static_cast<std::size_t>(b.num_elements())),
        of(static_cast<std::size_t>(out.num_elements()));
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    for (std::size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>(ap[i]);
    for (std::size_t i = 0; i < bf.size(); ++i) bf[i] = static_cast<float>(bp[i]);
    product(af.data(), bf.data(), of.data());
    T* o = out.data<T>();
    for (std::size_t i = 0; i < of.size(); ++i) o[i] = T(of[i]);
  } else {
    product(a.data<T>(), b.data<T>(), out.data<T>());
  }
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
    via_float<T>(a, b, out, [&](const auto* ap, const auto* bp, auto* op) {
      multiply(ctx, ap, bp, op, m, n, k, transpose_a_, transpose_b_);
    });
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// -- BatchMatMul, BatchMatMulV2, BatchMatMulV3 ---------------------------------------------

// The batch dimensions of `x` and `y` (all but their last two) broadcast as NumPy's: the
// output's, and for each output matrix the matrix of x and of y it multiplies. False when
// they do not broadcast.
bool broadcast_batches(const Shape& x, const Shape& y, std::vector<std::int64_t>* out_batch,
                       std::vector<Index>* x_index, std::vector<Index>* y_index) {
  const int rx = x.rank() - 2, ry = y.rank() - 2, rank = std::max(rx, ry);
  std::vector<Index> dx(static_cast<std::size_t>(rank), 1), dy = dx;
  for (int i = 0; i < rx; ++i) dx[static_cast<std::size_t>(rank - rx + i)] = x.dim(i);
  for (int i = 0; i < ry; ++i) dy[static_cast<std::size_t>(rank - ry + i)] = y.dim(i);
  out_batch->assign(static_cast<std::size_t>(rank), 1);
  Index count = 1;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    if (dx[i] != dy[i] && dx[i] != 1 && dy[i] != 1) return false;
    (*out_batch)[i] = dx[i] == 1 ? dy[i] : dx[i];
    count *= (*out_batch)[i];
  }
  x_index->assign(static_cast<std::size_t>(count), 0);
  y_index->assign(static_cast<std::size_t>(count), 0);
  // Row-major strides of x's and y's batches, 0 along a broadcast dimension.
  Index sx = 1, sy = 1;
  Index span = 1;  // output matrices per step of dimension i
  for (std::size_t i = dx.size(); i-- > 0;) {
    const Index d = (*out_batch)[i];
    for (Index b = 0; b < count; ++b) {
      const Index at = (b / span) % d;
      if (dx[i] != 1) (*x_index)[static_cast<std::size_t>(b)] += at * sx;
      if (dy[i] != 1) (*y_index)[static_cast<std::size_t>(b)] += at * sy;
    }
    sx *= dx[i];
    sy *= dy[i];
    span *= d;
  }
  return true;
}

// The elements of complex tensor `t`, conjugated.
template <class T>
std::vector<T> conjugated(const Tensor& t) {
  const T* p = t.data<T>();
  std::vector<T> out(p, p + t.num_elements());
  for (T& v : out) v = std::conj(v);
  return out;
}

// BatchMatMul (`broadcast` false: ranks and batch dimensions equal) and BatchMatMulV2/V3
// (batch dimensions broadcast): out[..., m, n] = adj(x)[..., m, k] * adj(y)[..., k, n].
template <class T, bool broadcast>
class BatchMatMulOp : public OpKernel {
 public:
  BatchMatMulOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("adj_x", &adj_x_);
    if (s->ok()) *s = c.get_attr("adj_y", &adj_y_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    if (ctx.num_inputs() != 2 || ctx.input(0).rank() < 2 || ctx.input(1).rank() < 2) return false;
    const Shape& y = ctx.input(1).shape();
    return ctx.input(0).num_elements() * y.dim(y.rank() - (adj_y_ ? 2 : 1)) > kExpensiveMatMulFlops;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (Status s = validate(x.shape(), y.shape()); !s.ok())
      return ctx.fail(s.with_context(node_suffix(name())));
    std::vector<std::int64_t> dims;
    std::vector<Index> xi, yi;
    if (!broadcast_batches(x.shape(), y.shape(), &dims, &xi, &yi))
      return ctx.fail(invalid_argument(
          "In[0] and In[1] must have compatible batch dimensions: " + x.shape().to_string() +
          " vs. " + y.shape().to_string() + node_suffix(name())));
    Index d0 = x.shape().dim(x.rank() - 2), d1 = x.shape().dim(x.rank() - 1);
    Index d2 = y.shape().dim(y.rank() - 2), d3 = y.shape().dim(y.rank() - 1);
    if (adj_x_) std::swap(d0, d1);
    if (adj_y_) std::swap(d2, d3);
    if (d1 != d2)
      return ctx.fail(invalid_argument("Matrix size-incompatible: In[0]: " + x.shape().to_string() +
                                       ", In[1]: " + y.shape().to_string() + node_suffix(name())));
    dims.push_back(d0);
    dims.push_back(d3);
    const Shape out_shape(std::move(dims));
    if (out_shape.num_elements() == 0 || d1 == 0) {  // a zero-filled output
      ctx.allocate_output(0, dtype_of_v<T>, out_shape);
      return;
    }
    Tensor& out = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, out_shape);
    const Index x_size = d0 * d1, y_size = d2 * d3, out_size = d0 * d3;
    // The adjoint of a complex matrix conjugates it as well: multiply conjugated copies.
    std::vector<T> x_conj, y_conj;
    if constexpr (is_complex_v<T>) {
      if (adj_x_) x_conj = conjugated<T>(x);
      if (adj_y_) y_conj = conjugated<T>(y);
    }
    via_float<T>(x, y, out, [&](const auto* xp, const auto* yp, auto* op) {
      if constexpr (is_complex_v<T>) {
        if (adj_x_) xp = x_conj.data();
        if (adj_y_) yp = y_conj.data();
      }
      for (std::size_t b = 0; b < xi.size(); ++b)
        multiply(ctx, xp + xi[b] * x_size, yp + yi[b] * y_size,
                 op + static_cast<Index>(b) * out_size, d0, d3, d1, adj_x_, adj_y_);
    });
  }

 private:
  // TensorFlow's ValidateInputTensors of BatchMatMul and BatchMatMulV2.
  static Status validate(const Shape& x, const Shape& y) {
    if constexpr (broadcast) {
      if (x.rank() < 2)
        return invalid_argument("In[0] ndims must be >= 2: " + std::to_string(x.rank()));
      if (y.rank() < 2)
        return invalid_argument("In[1] ndims must be >= 2: " + std::to_string(y.rank()));
    } else {
      if (x.rank() != y.rank())
        return invalid_argument("In[0] and In[1] has different ndims: " + x.to_string() + " vs. " +
                                y.to_string());
      if (x.rank() < 2)
        return invalid_argument("In[0] and In[1] ndims must be >= 2: " + std::to_string(x.rank()));
      for (int i = 0; i < x.rank() - 2; ++i)
        if (x.dim(i) != y.dim(i))
          return invalid_argument("In[0].dim(" + std::to_string(i) + ") and In[1].dim(" +
                                  std::to_string(i) + ") must be the same: " + x.to_string() +
                                  " vs " + y.to_string());
    }
    return {};
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
};

template <class T>
using BatchMatMulV1Op = BatchMatMulOp<T, false>;
template <class T>
using BatchMatMulV2Op = BatchMatMulOp<T, true>;

// BatchMatMulV3 for Ta = Tb = Tout = each of Ts.
template <class... Ts>
void register_batch_matmul_v3(KernelRegistry& r, detail::TypeList<Ts...> /*types*/) {
  (r.add(make_kernel_def<BatchMatMulV2Op<Ts>>(
       "BatchMatMulV3", "CPU",
       {{"Ta", {dtype_of_v<Ts>}}, {"Tb", {dtype_of_v<Ts>}}, {"Tout", {dtype_of_v<Ts>}}})),
   ...);
}

}  // namespace

namespace detail {

void register_matmul_kernels(KernelRegistry& r) {
  // The types of each op's CPU kernels in TensorFlow 2.21 (BatchMatMulV3: also int16, not
  // float16).
  using Types = Concat<FloatTypes, TypeList<std::int32_t, std::int64_t>, ComplexTypes>;
  register_for_list<MatMulOp>(r, "MatMul", Types{});
  register_for_list<BatchMatMulV1Op>(r, "BatchMatMul", Types{});
  register_for_list<BatchMatMulV2Op>(r, "BatchMatMulV2", Concat<Types, TypeList<std::int16_t>>{});
  register_batch_matmul_v3(r, TypeList<float, double, bfloat16_t, std::int16_t, std::int32_t,
                                       std::int64_t, complex64_t, complex128_t>{});
}

}  // namespace detail

}  // namespace af
