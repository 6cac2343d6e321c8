// actorflow's own CUDA kernels of the layers and optimizers: pooling and its gradients, the
// SAME-padding copies, the softmax cross-entropies, LogSoftmax, L2Loss's terms and the Apply*
// updates, each following the CPU kernel term by term.
#include <cmath>
#include <cstdint>

#include "gpu_kernel_util.cuh"
#include "gpu_kernels.hpp"

namespace af::gpu {

namespace {

// -- training updates (training_ops.cc, term by term as the CPU kernels) -----------------------

template <class T>
__global__ void apply_gradient_descent_kernel(const T* var, const T* alpha, const T* grad,
                                              T* var_out, std::int64_t n) {
  const T lr = alpha[0];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    var_out[i] = var[i] - grad[i] * lr;
}

template <class T>
__global__ void apply_momentum_kernel(const T* var, const T* accum, const T* lr_ptr, const T* grad,
                                      const T* momentum_ptr, T* var_out, T* accum_out,
                                      std::int64_t n, bool use_nesterov) {
  const T lr = lr_ptr[0], momentum = momentum_ptr[0];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T a = accum[i] * momentum + grad[i];
    accum_out[i] = a;
    var_out[i] = use_nesterov ? var[i] - (grad[i] * lr + a * momentum * lr) : var[i] - a * lr;
  }
}

template <class T>
__global__ void apply_adam_kernel(const T* var, const T* m_in, const T* v_in,
                                  const T* beta1_power_ptr, const T* beta2_power_ptr,
                                  const T* lr_ptr, const T* beta1_ptr, const T* beta2_ptr,
                                  const T* epsilon_ptr, const T* grad, T* var_out, T* m_out,
                                  T* v_out, std::int64_t n, bool use_nesterov) {
  const T one(1);
  const T beta1_power = beta1_power_ptr[0], beta2_power = beta2_power_ptr[0], lr = lr_ptr[0];
  const T beta1 = beta1_ptr[0], beta2 = beta2_ptr[0], epsilon = epsilon_ptr[0];
  const T alpha = lr * sqrt(one - beta2_power) / (one - beta1_power);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T g = grad[i];
    const T m = m_in[i] + (g - m_in[i]) * (one - beta1);
    const T v = v_in[i] + (g * g - v_in[i]) * (one - beta2);
    m_out[i] = m;
    v_out[i] = v;
    if (use_nesterov)
      var_out[i] = var[i] - ((g * (one - beta1) + beta1 * m) * alpha) / (sqrt(v) + epsilon);
    else
      var_out[i] = var[i] - (m * alpha) / (sqrt(v) + epsilon);
  }
}

template <class T>
cudaError_t apply_adam_typed(const void* var, const void* m, const void* v, const AdamScalars& sc,
                             const void* grad, void* var_out, void* m_out, void* v_out,
                             std::int64_t n, bool use_nesterov, cudaStream_t s) {
  apply_adam_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(
      static_cast<const T*>(var), static_cast<const T*>(m), static_cast<const T*>(v),
      static_cast<const T*>(sc.beta1_power), static_cast<const T*>(sc.beta2_power),
      static_cast<const T*>(sc.lr), static_cast<const T*>(sc.beta1),
      static_cast<const T*>(sc.beta2), static_cast<const T*>(sc.epsilon),
      static_cast<const T*>(grad), static_cast<T*>(var_out), static_cast<T*>(m_out),
      static_cast<T*>(v_out), n, use_nesterov);
  return cudaGetLastError();
}

template <class T>
__global__ void apply_adagrad_kernel(const T* var, const T* accum, const T* lr_ptr, const T* grad,
                                     T* var_out, T* accum_out, std::int64_t n, bool update_slots) {
  const T lr = lr_ptr[0];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T g = grad[i];
    const T a = update_slots ? accum[i] + g * g : accum[i];
    accum_out[i] = a;
    var_out[i] = var[i] - g * lr * (T(1) / sqrt(a));
  }
}

// ApplyRMSProp, and ApplyCenteredRMSProp where mg is not null.
template <class T>
__global__ void apply_rms_prop_kernel(const T* var, const T* mg_in, const T* ms_in, const T* mom_in,
                                      RmsPropScalars scalars, const T* grad, T* var_out, T* mg_out,
                                      T* ms_out, T* mom_out, std::int64_t n) {
  const T one(1);
  const T lr = static_cast<const T*>(scalars.lr)[0], rho = static_cast<const T*>(scalars.rho)[0];
  const T momentum = static_cast<const T*>(scalars.momentum)[0],
          epsilon = static_cast<const T*>(scalars.epsilon)[0];
  const T one_minus_rho = one - rho;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T g = grad[i];
    const T ms = ms_in[i] + (g * g - ms_in[i]) * one_minus_rho;
    ms_out[i] = ms;
    T denominator = ms;
    if (mg_in != nullptr) {
      const T mg = mg_in[i] + (g - mg_in[i]) * one_minus_rho;
      mg_out[i] = mg;
      denominator = ms - mg * mg;
    }
    const T mom = mom_in[i] * momentum + (g * lr) / sqrt(denominator + epsilon);
    mom_out[i] = mom;
    var_out[i] = var[i] - mom;
  }
}

// -- sparse softmax cross entropy ----------------------------------------------------------------

// One thread per row, the CPU kernel's loops and order of operations.
template <class T>
__global__ void sparse_xent_kernel(const T* logits, const std::int64_t* labels, T* loss,
                                   T* backprop, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T* x = logits + r * cols;
    T* bp = backprop + r * cols;
    T row_max = x[0];
    for (std::int64_t c = 1; c < cols; ++c) row_max = max_of(row_max, x[c]);
    T sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += exp(x[c] - row_max);
    const T log_sum = log(sum);
    const std::int64_t label = labels[r];
    for (std::int64_t c = 0; c < cols; ++c)
      bp[c] = exp(x[c] - row_max) / sum - (c == label ? T(1) : T(0));
    T l = 0;
    l -= (x[label] - row_max) - log_sum;
    loss[r] = l;
  }
}

// SoftmaxCrossEntropyWithLogits with dense labels: one thread per row, the CPU kernel's
// xent_rows term by term.
template <class T>
__global__ void softmax_xent_kernel(const T* logits, const T* labels, T* loss, T* backprop,
                                    std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T* x = logits + r * cols;
    const T* y = labels + r * cols;
    T* bp = backprop + r * cols;
    T row_max = x[0];
    for (std::int64_t c = 1; c < cols; ++c) row_max = max_of(row_max, x[c]);
    T sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += exp(x[c] - row_max);
    const T log_sum = log(sum);
    T l = 0;
    for (std::int64_t c = 0; c < cols; ++c) {
      const T shifted = x[c] - row_max;
      if (y[c] != T(0)) l -= y[c] * (shifted - log_sum);
      bp[c] = exp(shifted) / sum - y[c];
    }
    loss[r] = l;
  }
}

// LogSoftmax over the last dimension: one thread per row, as the CPU kernel.
template <class T>
__global__ void log_softmax_kernel(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T* x = in + r * cols;
    T* o = out + r * cols;
    T row_max = x[0];
    for (std::int64_t c = 1; c < cols; ++c) row_max = max_of(row_max, x[c]);
    T sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += exp(x[c] - row_max);
    const T log_sum = log(sum);
    for (std::int64_t c = 0; c < cols; ++c) o[c] = x[c] - row_max - log_sum;
  }
}

// x^2 / 2 element-wise (L2Loss's terms, summed by a reduction after).
template <class T>
__global__ void half_square_kernel(const T* in, T* out, std::int64_t n) {
  using C = Compute<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const auto v = C::load(in[i]);
    out[i] = C::store(v * v * static_cast<decltype(v)>(0.5));
  }
}

// -- pooling and padding ---------------------------------------------------------------------

// Element i of an NHWC array [batch, rows, cols, depth] as (b, y, x, c).
struct Nhwc {
  std::int64_t b, y, x, c;
};
__device__ __forceinline__ Nhwc nhwc_of(std::int64_t i, std::int64_t rows, std::int64_t cols,
                                        std::int64_t depth) {
  return {i / (depth * cols * rows), (i / (depth * cols)) % rows, (i / depth) % cols, i % depth};
}

// The window of output (oy, ox), clipped to the input: rows [y0, y1), columns [x0, x1).
struct Window {
  std::int64_t y0, y1, x0, x1;
};
__device__ __forceinline__ Window window_of(const PoolPlan& p, std::int64_t oy, std::int64_t ox) {
  return {max_of(std::int64_t{0}, oy * p.stride_rows - p.pad_rows),
          min_of(p.in_rows, oy * p.stride_rows - p.pad_rows + p.window_rows),
          max_of(std::int64_t{0}, ox * p.stride_cols - p.pad_cols),
          min_of(p.in_cols, ox * p.stride_cols - p.pad_cols + p.window_cols)};
}

template <class T>
__global__ void pool_kernel(bool max, const T* in, T* out, PoolPlan p) {
  using C = Compute<T>;
  using V = typename C::type;
  const std::int64_t n = p.batch * p.out_rows * p.out_cols * p.depth;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const Nhwc o = nhwc_of(i, p.out_rows, p.out_cols, p.depth);
    const Window w = window_of(p, o.y, o.x);
    V acc = max ? static_cast<V>(-INFINITY) : V(0);
    for (std::int64_t y = w.y0; y < w.y1; ++y)
      for (std::int64_t x = w.x0; x < w.x1; ++x) {
        const V v = C::load(in[((o.b * p.in_rows + y) * p.in_cols + x) * p.depth + o.c]);
        acc = max ? (v > acc ? v : acc) : acc + v;
      }
    if (!max) acc /= static_cast<V>(max_of(std::int64_t{1}, (w.y1 - w.y0) * (w.x1 - w.x0)));
    out[i] = C::store(acc);
  }
}

// The outputs whose windows contain input row y: [first, last] (empty when first > last).
__device__ __forceinline__ void covering(std::int64_t y, std::int64_t pad, std::int64_t window,
                                         std::int64_t stride, std::int64_t outputs,
                                         std::int64_t* first, std::int64_t* last) {
  const std::int64_t t = y + pad - window + 1;
  *first = t <= 0 ? 0 : (t + stride - 1) / stride;
  *last = min_of(outputs - 1, (y + pad) / stride);
}

// MaxPoolGrad gathered per input element: the gradients of the outputs whose window's first
// maximum (row-major scan, as the CPU kernel and TensorFlow's SpatialMaxPoolWithArgMax) is
// this element, summed in the CPU kernel's order (outputs row-major): no atomics, the CPU's
// values bit for bit.
template <class T>
__global__ void max_pool_grad_kernel(const T* in, const T* grad, T* dx, PoolPlan p) {
  using C = Compute<T>;
  using V = typename C::type;
  const std::int64_t n = p.batch * p.in_rows * p.in_cols * p.depth;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const Nhwc e = nhwc_of(i, p.in_rows, p.in_cols, p.depth);
    std::int64_t oy0, oy1, ox0, ox1;
    covering(e.y, p.pad_rows, p.window_rows, p.stride_rows, p.out_rows, &oy0, &oy1);
    covering(e.x, p.pad_cols, p.window_cols, p.stride_cols, p.out_cols, &ox0, &ox1);
    const T* plane = in + e.b * p.in_rows * p.in_cols * p.depth + e.c;
    V acc = V(0);
    for (std::int64_t oy = oy0; oy <= oy1; ++oy)
      for (std::int64_t ox = ox0; ox <= ox1; ++ox) {
        const Window w = window_of(p, oy, ox);
        std::int64_t best = -1;
        V best_value = V(0);
        for (std::int64_t wy = w.y0; wy < w.y1; ++wy)
          for (std::int64_t wx = w.x0; wx < w.x1; ++wx) {
            const std::int64_t at = wy * p.in_cols + wx;
            const V v = C::load(plane[at * p.depth]);
            if (best < 0 || v > best_value) {
              best = at;
              best_value = v;
            }
          }
        if (best == e.y * p.in_cols + e.x)
          acc += C::load(grad[((e.b * p.out_rows + oy) * p.out_cols + ox) * p.depth + e.c]);
      }
    dx[i] = C::store(acc);
  }
}

// AvgPoolGrad gathered per input element: each covering output's gradient divided by its
// window's size inside the input, in the CPU kernel's order.
template <class T>
__global__ void avg_pool_grad_kernel(const T* grad, T* dx, PoolPlan p) {
  using C = Compute<T>;
  using V = typename C::type;
  const std::int64_t n = p.batch * p.in_rows * p.in_cols * p.depth;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const Nhwc e = nhwc_of(i, p.in_rows, p.in_cols, p.depth);
    std::int64_t oy0, oy1, ox0, ox1;
    covering(e.y, p.pad_rows, p.window_rows, p.stride_rows, p.out_rows, &oy0, &oy1);
    covering(e.x, p.pad_cols, p.window_cols, p.stride_cols, p.out_cols, &ox0, &ox1);
    V acc = V(0);
    for (std::int64_t oy = oy0; oy <= oy1; ++oy)
      for (std::int64_t ox = ox0; ox <= ox1; ++ox) {
        const Window w = window_of(p, oy, ox);
        const V count = static_cast<V>(max_of(std::int64_t{1}, (w.y1 - w.y0) * (w.x1 - w.x0)));
        acc += C::load(grad[((e.b * p.out_rows + oy) * p.out_cols + ox) * p.depth + e.c]) / count;
      }
    dx[i] = C::store(acc);
  }
}

template <class T>
__global__ void pad_kernel(const T* in, T* out, std::int64_t n, std::int64_t h, std::int64_t w,
                           std::int64_t c, std::int64_t extra_rows, std::int64_t extra_cols,
                           bool crop) {
  const std::int64_t H = h + extra_rows, W = w + extra_cols;
  const std::int64_t total = crop ? n * h * w * c : n * H * W * c;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    if (crop) {  // i indexes the small array
      const std::int64_t ch = i % c, x = (i / c) % w, y = (i / (c * w)) % h, b = i / (c * w * h);
      out[i] = in[((b * H + y) * W + x) * c + ch];
    } else {  // i indexes the large array
      const std::int64_t ch = i % c, x = (i / c) % W, y = (i / (c * W)) % H, b = i / (c * W * H);
      out[i] = y < h && x < w ? in[((b * h + y) * w + x) * c + ch] : T{};
    }
  }
}

template <class T>
cudaError_t pad_typed(const void* in, void* out, std::int64_t n, std::int64_t h, std::int64_t w,
                      std::int64_t c, std::int64_t er, std::int64_t ec, bool crop, cudaStream_t s) {
  const std::int64_t total = crop ? n * h * w * c : n * (h + er) * (w + ec) * c;
  if (total == 0) return cudaSuccess;
  pad_kernel<T><<<blocks_for(total), kThreads, 0, s>>>(
      static_cast<const T*>(in), static_cast<T*>(out), n, h, w, c, er, ec, crop);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_pool2d(bool max, ElemType t, const void* in, void* out, const PoolPlan& plan,
                          cudaStream_t stream) {
  const std::int64_t n = plan.batch * plan.out_rows * plan.out_cols * plan.depth;
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      pool_kernel<<<blocks_for(n), kThreads, 0, stream>>>(max, static_cast<const float*>(in),
                                                          static_cast<float*>(out), plan);
      break;
    case ElemType::f64:
      pool_kernel<<<blocks_for(n), kThreads, 0, stream>>>(max, static_cast<const double*>(in),
                                                          static_cast<double*>(out), plan);
      break;
    case ElemType::bf16:
      pool_kernel<<<blocks_for(n), kThreads, 0, stream>>>(max, static_cast<const bf16*>(in),
                                                          static_cast<bf16*>(out), plan);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_max_pool_grad(ElemType t, const void* in, const void* grad, void* dx,
                                 const PoolPlan& plan, cudaStream_t stream) {
  const std::int64_t n = plan.batch * plan.in_rows * plan.in_cols * plan.depth;
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      max_pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const float*>(in),
                                                                   static_cast<const float*>(grad),
                                                                   static_cast<float*>(dx), plan);
      break;
    case ElemType::f64:
      max_pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const double*>(in),
                                                                   static_cast<const double*>(grad),
                                                                   static_cast<double*>(dx), plan);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_avg_pool_grad(ElemType t, const void* grad, void* dx, const PoolPlan& plan,
                                 cudaStream_t stream) {
  const std::int64_t n = plan.batch * plan.in_rows * plan.in_cols * plan.depth;
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      avg_pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const float*>(grad),
                                                                   static_cast<float*>(dx), plan);
      break;
    case ElemType::f64:
      avg_pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const double*>(grad),
                                                                   static_cast<double*>(dx), plan);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_pad_nhwc(ElemType t, const void* in, void* out, std::int64_t n, std::int64_t h,
                            std::int64_t w, std::int64_t c, std::int64_t extra_rows,
                            std::int64_t extra_cols, bool crop, cudaStream_t stream) {
  switch (t) {
    case ElemType::f32:
      return pad_typed<float>(in, out, n, h, w, c, extra_rows, extra_cols, crop, stream);
    case ElemType::f64:
      return pad_typed<double>(in, out, n, h, w, c, extra_rows, extra_cols, crop, stream);
    case ElemType::bf16:
      return pad_typed<bf16>(in, out, n, h, w, c, extra_rows, extra_cols, crop, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_apply_gradient_descent(ElemType t, const void* var, const void* alpha,
                                          const void* grad, void* var_out, std::int64_t n,
                                          cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      apply_gradient_descent_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const float*>(var), static_cast<const float*>(alpha),
          static_cast<const float*>(grad), static_cast<float*>(var_out), n);
      break;
    case ElemType::f64:
      apply_gradient_descent_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const double*>(var), static_cast<const double*>(alpha),
          static_cast<const double*>(grad), static_cast<double*>(var_out), n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_apply_momentum(ElemType t, const void* var, const void* accum, const void* lr,
                                  const void* grad, const void* momentum, void* var_out,
                                  void* accum_out, std::int64_t n, bool use_nesterov,
                                  cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      apply_momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const float*>(var), static_cast<const float*>(accum),
          static_cast<const float*>(lr), static_cast<const float*>(grad),
          static_cast<const float*>(momentum), static_cast<float*>(var_out),
          static_cast<float*>(accum_out), n, use_nesterov);
      break;
    case ElemType::f64:
      apply_momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const double*>(var), static_cast<const double*>(accum),
          static_cast<const double*>(lr), static_cast<const double*>(grad),
          static_cast<const double*>(momentum), static_cast<double*>(var_out),
          static_cast<double*>(accum_out), n, use_nesterov);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_apply_adam(ElemType t, const void* var, const void* m, const void* v,
                              const AdamScalars& scalars, const void* grad, void* var_out,
                              void* m_out, void* v_out, std::int64_t n, bool use_nesterov,
                              cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      return apply_adam_typed<float>(var, m, v, scalars, grad, var_out, m_out, v_out, n,
                                     use_nesterov, stream);
    case ElemType::f64:
      return apply_adam_typed<double>(var, m, v, scalars, grad, var_out, m_out, v_out, n,
                                      use_nesterov, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_apply_adagrad(ElemType t, const void* var, const void* accum, const void* lr,
                                 const void* grad, void* var_out, void* accum_out, std::int64_t n,
                                 bool update_slots, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      apply_adagrad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const float*>(var), static_cast<const float*>(accum),
          static_cast<const float*>(lr), static_cast<const float*>(grad),
          static_cast<float*>(var_out), static_cast<float*>(accum_out), n, update_slots);
      break;
    case ElemType::f64:
      apply_adagrad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const double*>(var), static_cast<const double*>(accum),
          static_cast<const double*>(lr), static_cast<const double*>(grad),
          static_cast<double*>(var_out), static_cast<double*>(accum_out), n, update_slots);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_apply_rms_prop(ElemType t, const void* var, const void* mg, const void* ms,
                                  const void* mom, const RmsPropScalars& scalars, const void* grad,
                                  void* var_out, void* mg_out, void* ms_out, void* mom_out,
                                  std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      apply_rms_prop_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const float*>(var), static_cast<const float*>(mg),
          static_cast<const float*>(ms), static_cast<const float*>(mom), scalars,
          static_cast<const float*>(grad), static_cast<float*>(var_out),
          static_cast<float*>(mg_out), static_cast<float*>(ms_out), static_cast<float*>(mom_out),
          n);
      break;
    case ElemType::f64:
      apply_rms_prop_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const double*>(var), static_cast<const double*>(mg),
          static_cast<const double*>(ms), static_cast<const double*>(mom), scalars,
          static_cast<const double*>(grad), static_cast<double*>(var_out),
          static_cast<double*>(mg_out), static_cast<double*>(ms_out), static_cast<double*>(mom_out),
          n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_softmax_xent(ElemType t, const void* logits, const void* labels, void* loss,
                                void* backprop, std::int64_t rows, std::int64_t cols,
                                cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      softmax_xent_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const float*>(logits), static_cast<const float*>(labels),
          static_cast<float*>(loss), static_cast<float*>(backprop), rows, cols);
      break;
    case ElemType::f64:
      softmax_xent_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const double*>(logits), static_cast<const double*>(labels),
          static_cast<double*>(loss), static_cast<double*>(backprop), rows, cols);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_log_softmax(ElemType t, const void* in, void* out, std::int64_t rows,
                               std::int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      log_softmax_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const float*>(in), static_cast<float*>(out), rows, cols);
      break;
    case ElemType::f64:
      log_softmax_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const double*>(in), static_cast<double*>(out), rows, cols);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_half_square(ElemType t, const void* in, void* out, std::int64_t n,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      half_square_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const float*>(in),
                                                                 static_cast<float*>(out), n);
      break;
    case ElemType::f64:
      half_square_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const double*>(in),
                                                                 static_cast<double*>(out), n);
      break;
    case ElemType::bf16:
      half_square_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const bf16*>(in),
                                                                 static_cast<bf16*>(out), n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_sparse_softmax_xent(ElemType t, const void* logits, const std::int64_t* labels,
                                       void* loss, void* backprop, std::int64_t rows,
                                       std::int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      sparse_xent_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const float*>(logits), labels, static_cast<float*>(loss),
          static_cast<float*>(backprop), rows, cols);
      break;
    case ElemType::f64:
      sparse_xent_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(
          static_cast<const double*>(logits), labels, static_cast<double*>(loss),
          static_cast<double*>(backprop), rows, cols);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace af::gpu
