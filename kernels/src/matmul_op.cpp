// MatMul: its CPU kernel. Products go to the GEMM backend (cpu_gemm.cpp: oneDNN or OpenBLAS,
// opened on first use) for float, to Eigen for the other types, and to a plain loop when tiny.
// Its definition (shape function, builder) is in ops/src/defs/matmul_op.cpp.
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

}  // namespace

namespace detail {

void register_matmul_kernels(KernelRegistry& r) {
  register_for_types<MatMulOp, float, double, std::int32_t, std::int64_t, bfloat16_t>(r, "MatMul");
}

}  // namespace detail

}  // namespace af
