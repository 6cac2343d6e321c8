// The CPU kernels of the optimizers' update ops (TensorFlow 1.x's training_ops.cc):
// ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp and
// ApplyAdam. Each takes the variable and its slots by reference, updates them under their
// locks (always, also with `use_locking = false`: the update is the same, and a reader never
// sees half of it) and outputs the variable's reference. Their ResourceApply* twins take
// resource handles instead (resource variables) and output nothing. The arithmetic follows
// the Eigen expressions of training_ops.cc term by term, so trajectories match TensorFlow's
// in float32; float16 and bfloat16 variables update in float, each value rounded once. The
// ops' definitions (shape functions, builders) are in ops/src/defs/training_ops.cpp; the
// input layouts both share in actorflow/ops/detail/training_layout.hpp.
//
// A variable's value is never written in place: tensors fetched or still in flight share its
// buffer, so an update writes a new buffer and swaps it in (copy on write).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ACTORFLOW_ADAM_AVX 1
#endif

#define EIGEN_USE_THREADS
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/training_layout.hpp"
#include "actorflow/ops/kernel.hpp"
#include "exact_sqrt.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::node_suffix;

using detail::optimizer::Kind;
using detail::optimizer::Layout;
using detail::optimizer::layout_of;
using detail::optimizer::ref_name;

#if defined(ACTORFLOW_ADAM_AVX)
/// Adam's float32 update of elements [0, n), eight lanes at a time in one pass (the last
/// n % 8 one by one): the operations of training_ops.cc's Eigen expression in their order,
/// each rounded on its own (no FMA: GCC contracts nothing without it), and an exact square
/// root, as TensorFlow's Eigen takes it (Debian's Eigen 3.4.0 approximates `sqrt()` of SSE
/// packets under EIGEN_FAST_MATH). `in_*` and `out_*` may be the same arrays.
__attribute__((target("avx"))) void adam_float_avx(const float* g, const float* in_var,
                                                   const float* in_m, const float* in_v,
                                                   float* out_var, float* out_m, float* out_v,
                                                   Index n, float one_minus_beta1,
                                                   float one_minus_beta2, float beta1, float alpha,
                                                   float epsilon, bool nesterov) {
  const __m256 c1 = _mm256_set1_ps(one_minus_beta1), c2 = _mm256_set1_ps(one_minus_beta2);
  const __m256 b1 = _mm256_set1_ps(beta1), a = _mm256_set1_ps(alpha);
  const __m256 eps = _mm256_set1_ps(epsilon);
  for (Index i = 0; i + 8 <= n; i += 8) {
    const __m256 gi = _mm256_loadu_ps(g + i);
    const __m256 m0 = _mm256_loadu_ps(in_m + i), v0 = _mm256_loadu_ps(in_v + i);
    // m = m + (g - m) * (1 - beta1); v = v + (g * g - v) * (1 - beta2)
    const __m256 m = _mm256_add_ps(m0, _mm256_mul_ps(_mm256_sub_ps(gi, m0), c1));
    const __m256 v = _mm256_add_ps(v0, _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(gi, gi), v0), c2));
    _mm256_storeu_ps(out_m + i, m);
    _mm256_storeu_ps(out_v + i, v);
    // var - (m * alpha) / (sqrt(v) + epsilon); Nesterov: (g * (1 - beta1) + beta1 * m)
    const __m256 top = nesterov ? _mm256_add_ps(_mm256_mul_ps(gi, c1), _mm256_mul_ps(b1, m)) : m;
    const __m256 step = _mm256_div_ps(_mm256_mul_ps(top, a), _mm256_add_ps(_mm256_sqrt_ps(v), eps));
    _mm256_storeu_ps(out_var + i, _mm256_sub_ps(_mm256_loadu_ps(in_var + i), step));
  }
  for (Index i = n / 8 * 8; i < n; ++i) {
    const float gi = g[i];
    const float m = in_m[i] + (gi - in_m[i]) * one_minus_beta1;
    const float v = in_v[i] + (gi * gi - in_v[i]) * one_minus_beta2;
    out_m[i] = m;
    out_v[i] = v;
    const float top = nesterov ? gi * one_minus_beta1 + beta1 * m : m;
    out_var[i] = in_var[i] - (top * alpha) / (std::sqrt(v) + epsilon);
  }
}

bool cpu_has_avx() {
  static const bool has = __builtin_cpu_supports("avx");
  return has;
}
#endif

// The update of variables of element type S, computed in T (float for float16 and
// bfloat16: widened, updated in float and rounded once, as TensorFlow's Eigen half
// arithmetic within rounding).
template <Kind K, class S, bool Resource = false>
class ApplyOp : public OpKernel {
  using T = std::conditional_t<is_half_like_v<S>, float, S>;

 public:
  ApplyOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("use_nesterov", &use_nesterov_);
    c.get_attr("update_slots", &update_slots_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 1 && ctx.input(ctx.num_inputs() - 1).num_elements() > 64 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    const Layout lay = layout_of(K);
    std::vector<Var*> vars;
    Status in = detail::variable_inputs(ctx, lay.refs, dtype_of<S>::value, Resource, &vars);
    if (!in.ok()) return ctx.fail(in);
    std::vector<T> scalars;
    for (auto [index, scalar_name] : lay.scalars) {
      const Tensor& t = ctx.input(index);
      if (t.rank() != 0)
        return ctx.fail(invalid_argument(std::string(scalar_name) + " is not a scalar: " +
                                         t.shape().to_string() + node_suffix(name())));
      scalars.push_back(static_cast<T>(t.data<S>()[0]));
    }
    const Tensor& grad = ctx.input(lay.grad);
    Status s = update_together(
        vars, [&](std::vector<Tensor*>& values) { return update(ctx, values, scalars, grad); });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
    if (!Resource) ctx.set_output(0, ctx.input(0));
  }

 private:
  Status update(const OpKernelContext& ctx, std::vector<Tensor*>& values, const std::vector<T>& s,
                const Tensor& grad) {
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i]->shape() != values[0]->shape())
        return invalid_argument(std::string("var and ") + ref_name(K, static_cast<int>(i)) +
                                " do not have the same shape" + values[0]->shape().to_string() +
                                " " + values[i]->shape().to_string() + node_suffix(name()));
    if (grad.shape() != values[0]->shape())
      return invalid_argument("var and grad do not have the same shape" +
                              values[0]->shape().to_string() + " " + grad.shape().to_string() +
                              node_suffix(name()));
    // Copy on write: fresh buffers for everything this op writes, unless the variables hold
    // the only references to their buffers (no read of them is still in flight: a read
    // takes its reference under the variables' lock, which the update holds). Then the
    // update is in place, as TensorFlow's, which saves a fresh buffer's page faults and
    // its cache misses per variable and slot every step.
    const bool in_place =
        std::all_of(values.begin(), values.end(), [](const Tensor* v) { return v->sole_owner(); });
    if constexpr (is_half_like_v<S>) return update_widened(values, s, grad, in_place);
    std::vector<Tensor> fresh;
    std::vector<T*> out;
    std::vector<const T*> in;
    for (Tensor* v : values) {
      if (in_place) {
        out.push_back(v->template data<T>());
      } else {
        fresh.emplace_back(v->dtype(), v->shape(), Tensor::for_overwrite);
        out.push_back(fresh.back().template data<T>());
      }
      in.push_back(v->template data<T>());
    }
    const T* g = grad.data<T>();
    const Index n = grad.num_elements();
    Eigen::ThreadPoolDevice* device = ctx.eigen_device;
    if (device == nullptr || ctx.intra_op_threads < 2 || n < kParallelElements) {
      compute_update(in, out, s, g, 0, n);
    } else {
      // Over the intra-op pool in blocks of whole cache lines: every block starts 64-byte
      // aligned, so Eigen computes each element in the same (packet or scalar) form as one
      // block would, and the result does not depend on the split.
      const Eigen::TensorOpCost cost(static_cast<double>(sizeof(T) * (in.size() + 1)),
                                     static_cast<double>(sizeof(T) * out.size()),
                                     4.0 * static_cast<double>(out.size()));
      device->parallelFor(
          n, cost, [](Eigen::Index b) { return (b + 15) / 16 * 16; },
          [&](Eigen::Index b, Eigen::Index e) { compute_update(in, out, s, g, b, e); });
    }
    if (!in_place)
      for (std::size_t i = 0; i < values.size(); ++i) *values[i] = std::move(fresh[i]);
    return {};
  }

  // float16 and bfloat16: the variable, its slots and the gradient widened to float, updated
  // there, rounded into the variables' buffers (fresh ones unless `in_place`).
  Status update_widened(std::vector<Tensor*>& values, const std::vector<T>& s, const Tensor& grad,
                        bool in_place) const {
    const Index n = grad.num_elements();
    std::vector<std::vector<float>> wide;
    std::vector<const float*> in;
    std::vector<float*> out;
    for (Tensor* v : values) wide.push_back(detail::widened_values<S>(*v));
    for (auto& w : wide) {
      in.push_back(w.data());
      out.push_back(w.data());
    }
    const std::vector<float> g = detail::widened_values<S>(grad);
    compute_update(in, out, s, g.data(), 0, n);
    for (std::size_t k = 0; k < values.size(); ++k) {
      Tensor rounded = in_place
                           ? *values[k]
                           : Tensor(values[k]->dtype(), values[k]->shape(), Tensor::for_overwrite);
      S* o = rounded.template data<S>();
      for (Index i = 0; i < n; ++i) o[i] = S(wide[k][static_cast<std::size_t>(i)]);
      if (!in_place) *values[k] = std::move(rounded);
    }
    return {};
  }

  // The updates of elements [from, to), block by block, each block's slots and variable
  // updated while its cache lines are still in L1: one pass over the arrays instead of one
  // per slot. `from` and the blocks are whole cache lines, so every element takes the same
  // (packet or scalar) form as in one pass over all of them.
  void compute_update(const std::vector<const T*>& in, const std::vector<T*>& out,
                      const std::vector<T>& s, const T* g, Index from, Index to) const {
    for (Index b = from; b < to; b += kCacheBlock)
      compute_block(in, out, s, g, b, std::min<Index>(kCacheBlock, to - b));
  }

  // The updates of elements [at, at + n) as Eigen array expressions (vectorised, sqrt
  // included), term by term as training_ops.cc writes them, so the float32 results are
  // TensorFlow's.
  void compute_block(const std::vector<const T*>& in, const std::vector<T*>& out,
                     const std::vector<T>& s, const T* g, Index at, Index n) const {
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    using In = Eigen::Map<const Array>;
    using Out = Eigen::Map<Array>;
    const T one(1);
    const detail::ExactSqrtOp<T> exact_sqrt;  // TensorFlow's square roots (exact_sqrt.hpp)
    In grad(g + at, n);
    In var(in[0] + at, n);
    Out new_var(out[0] + at, n);
    if constexpr (K == Kind::gradient_descent) {
      new_var = var - grad * s[0];
    } else if constexpr (K == Kind::momentum) {
      const T lr = s[0], momentum = s[1];
      Out accum(out[1] + at, n);
      accum = In(in[1] + at, n) * momentum + grad;
      if (use_nesterov_)
        new_var = var - (grad * lr + accum * momentum * lr);
      else
        new_var = var - accum * lr;
    } else if constexpr (K == Kind::adagrad) {
      const T lr = s[0];
      Out accum(out[1] + at, n);
      if (update_slots_)
        accum = In(in[1] + at, n) + grad.square();
      else
        accum = In(in[1] + at, n);
      new_var = var - grad * lr * accum.rsqrt();
    } else if constexpr (K == Kind::rms_prop) {
      const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
      Out ms(out[1] + at, n), mom(out[2] + at, n);
      In ms_in(in[1] + at, n);
      ms = ms_in + (grad.square() - ms_in) * (one - rho);
      mom = In(in[2] + at, n) * momentum + (grad * lr) / (ms + epsilon).unaryExpr(exact_sqrt);
      new_var = var - mom;
    } else if constexpr (K == Kind::centered_rms_prop) {
      const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
      const T one_minus_rho = one - rho;
      Out mg(out[1] + at, n), ms(out[2] + at, n), mom(out[3] + at, n);
      In mg_in(in[1] + at, n), ms_in(in[2] + at, n);
      ms = ms_in + (grad.square() - ms_in) * one_minus_rho;
      mg = mg_in + (grad - mg_in) * one_minus_rho;
      mom = In(in[3] + at, n) * momentum +
            (grad * lr) / ((ms - mg.square()) + epsilon).unaryExpr(exact_sqrt);
      new_var = var - mom;
    } else {  // Adam
      const T beta1_power = s[0], beta2_power = s[1], lr = s[2], beta1 = s[3], beta2 = s[4],
              epsilon = s[5];
      const T alpha = lr * std::sqrt(one - beta2_power) / (one - beta1_power);
#if defined(ACTORFLOW_ADAM_AVX)
      if constexpr (std::is_same_v<T, float>)
        if (cpu_has_avx())
          return adam_float_avx(g + at, in[0] + at, in[1] + at, in[2] + at, out[0] + at,
                                out[1] + at, out[2] + at, n, one - beta1, one - beta2, beta1, alpha,
                                epsilon, use_nesterov_);
#endif
      Out m(out[1] + at, n), v(out[2] + at, n);
      In m_in(in[1] + at, n), v_in(in[2] + at, n);
      m = m_in + (grad - m_in) * (one - beta1);
      v = v_in + (grad.square() - v_in) * (one - beta2);
      if (use_nesterov_)
        new_var = var - ((grad * (one - beta1) + beta1 * m) * alpha) /
                            (v.unaryExpr(exact_sqrt) + epsilon);
      else
        new_var = var - (m * alpha) / (v.unaryExpr(exact_sqrt) + epsilon);
    }
  }

  // Updates of more elements than this are split over the intra-op pool.
  static constexpr Index kParallelElements = 64 * 1024;
  // Elements per block of compute_update: a multiple of 16 (whole cache lines of float32
  // and float64 alike); Adam's four arrays take 16 KiB of float32 per block, within L1.
  static constexpr Index kCacheBlock = 1024;
  bool use_nesterov_ = false;
  bool update_slots_ = true;
};

// Apply<type> and ResourceApply<type> for float, double, float16, bfloat16 and the complex
// types, as TensorFlow's CPU kernels (complex updates: the same expressions in complex
// arithmetic, principal square roots).
template <Kind K>
void register_apply_kernels(KernelRegistry& r, const char* type) {
  const std::string resource = std::string("Resource") + type;
  auto add = [&](auto tag) {
    using S = decltype(tag);
    r.add(make_kernel_def<ApplyOp<K, S>>(type, "CPU", {{"T", {dtype_of_v<S>}}}));
    r.add(make_kernel_def<ApplyOp<K, S, true>>(resource, "CPU", {{"T", {dtype_of_v<S>}}}));
  };
  add(float{});
  add(double{});
  add(half_t{});
  add(bfloat16_t{});
  add(std::complex<float>{});
  add(std::complex<double>{});
}

}  // namespace

namespace detail {

void register_training_kernels(KernelRegistry& r) {
  register_apply_kernels<Kind::gradient_descent>(r, "ApplyGradientDescent");
  register_apply_kernels<Kind::momentum>(r, "ApplyMomentum");
  register_apply_kernels<Kind::adagrad>(r, "ApplyAdagrad");
  register_apply_kernels<Kind::rms_prop>(r, "ApplyRMSProp");
  register_apply_kernels<Kind::centered_rms_prop>(r, "ApplyCenteredRMSProp");
  register_apply_kernels<Kind::adam>(r, "ApplyAdam");
}

}  // namespace detail

}  // namespace af
