// Launchers of actorflow's own CUDA kernels (element-wise math, bias_add, reductions, cast,
// Philox random). Plain types only, so the .cu file needs no actorflow header and the
// C++ side needs no CUDA compiler. Every launcher enqueues on `stream` and returns the
// launch's error (cudaSuccess when enqueued).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace af::gpu {

/// Element types the kernels handle; bfloat16 is stored as its 16 bits, computed in float.
enum class ElemType : std::uint8_t { f32, f64, bf16, i64, u8, boolean };

enum class BinaryKind : std::uint8_t { add, sub, mul, div };
enum class UnaryKind : std::uint8_t {
  neg,
  relu,
  sigmoid,
  tanh,
  square,
  sqrt,
  rsqrt,
  exp,
  log,
  reciprocal
};
/// ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy).
enum class ActivationGradKind : std::uint8_t { relu, sigmoid, tanh };
enum class ReduceKind : std::uint8_t { sum, max };
enum class RandomKind : std::uint8_t { uniform, normal };

constexpr int kMaxBroadcastRank = 8;

/// NumPy broadcasting in element strides: output dims, and for each operand its stride per
/// output dimension (0 where broadcast). Ranks are collapsed by the caller.
struct BroadcastPlan {
  int rank = 0;
  std::int64_t dims[kMaxBroadcastRank] = {};
  std::int64_t a_strides[kMaxBroadcastRank] = {};
  std::int64_t b_strides[kMaxBroadcastRank] = {};
};

cudaError_t launch_binary(BinaryKind op, ElemType t, const void* a, const void* b, void* out,
                          std::int64_t n, const BroadcastPlan& plan, cudaStream_t stream);

cudaError_t launch_unary(UnaryKind op, ElemType t, const void* in, void* out, std::int64_t n,
                         cudaStream_t stream);

/// out[i] = x[i] + bias[i % channels] (NHWC and every layout with channels last).
cudaError_t launch_bias_add(ElemType t, const void* x, const void* bias, void* out, std::int64_t n,
                            std::int64_t channels, cudaStream_t stream);

/// The device memory `launch_reduce` needs for partial results (0: it reduces in one pass).
std::size_t reduce_scratch_bytes(ElemType t, std::int64_t outer, std::int64_t reduce,
                                 std::int64_t inner);

/// Reduces the middle dimension of an [outer, reduce, inner] array into [outer, inner]
/// and multiplies each result by `scale` (1 for Sum and Max, 1/reduce for Mean). Where few
/// outputs would leave the GPU idle, the reduced dimension is split across blocks and the
/// partials (in `scratch`, `reduce_scratch_bytes` of device memory, stream-ordered) are
/// reduced by a second pass.
cudaError_t launch_reduce(ReduceKind op, ElemType t, const void* in, void* out, std::int64_t outer,
                          std::int64_t reduce, std::int64_t inner, double scale, void* scratch,
                          cudaStream_t stream);

cudaError_t launch_cast(ElemType from, ElemType to, const void* in, void* out, std::int64_t n,
                        cudaStream_t stream);

/// Fills `out` as TensorFlow's FillPhiloxRandom: group g of `group size` outputs is drawn
/// from the generator (key, counter) skipped by g, so values equal the CPU kernel's.
cudaError_t launch_philox_random(RandomKind kind, ElemType t, const std::uint32_t key[2],
                                 const std::uint32_t counter[4], void* out, std::int64_t n,
                                 cudaStream_t stream);

/// Max or average (padding not counted) pooling of an NHWC array.
struct PoolPlan {
  std::int64_t batch, in_rows, in_cols, depth, out_rows, out_cols;
  std::int64_t window_rows, window_cols, stride_rows, stride_cols, pad_rows, pad_cols;
};
cudaError_t launch_pool2d(bool max, ElemType t, const void* in, void* out, const PoolPlan& plan,
                          cudaStream_t stream);

/// MaxPoolGrad (f32, f64): dx (shaped as `in`) gets each output's gradient at the first
/// maximum of its window, as the CPU kernel.
cudaError_t launch_max_pool_grad(ElemType t, const void* in, const void* grad, void* dx,
                                 const PoolPlan& plan, cudaStream_t stream);

/// AvgPoolGrad (f32, f64): each output's gradient spread over its window inside the input.
cudaError_t launch_avg_pool_grad(ElemType t, const void* grad, void* dx, const PoolPlan& plan,
                                 cudaStream_t stream);

/// out[i] = *value for the `n` elements of `element_size` bytes (`value` in device memory).
cudaError_t launch_broadcast_scalar(std::size_t element_size, const void* value, void* out,
                                    std::int64_t n, cudaStream_t stream);

/// Tile: `out` (out_dims, row-major) repeats `in` (in_dims) along every dimension.
constexpr int kMaxTileRank = 8;
struct TilePlan {
  int rank = 0;
  std::int64_t in_dims[kMaxTileRank] = {}, out_dims[kMaxTileRank] = {},
               in_strides[kMaxTileRank] = {};
};
cudaError_t launch_tile(std::size_t element_size, const void* in, void* out, std::int64_t n,
                        const TilePlan& plan, cudaStream_t stream);

/// Copies NHWC `in` [n, h, w, c] into `out` [n, h + extra_rows, w + extra_cols, c] with
/// zeros after (pad) or copies the top-left [n, h, w, c] of `in` (crop) back out; the
/// asymmetric half of TensorFlow's SAME padding, which cuDNN cannot express.
cudaError_t launch_pad_nhwc(ElemType t, const void* in, void* out, std::int64_t n, std::int64_t h,
                            std::int64_t w, std::int64_t c, std::int64_t extra_rows,
                            std::int64_t extra_cols, bool crop, cudaStream_t stream);

/// out[i] = the activation gradient of (a[i], b[i]) in the operand order of the op.
cudaError_t launch_activation_grad(ActivationGradKind op, ElemType t, const void* a, const void* b,
                                   void* out, std::int64_t n, cudaStream_t stream);

/// out[i] = value (f32, f64, bf16, i64, u8, boolean).
cudaError_t launch_fill(ElemType t, double value, void* out, std::int64_t n, cudaStream_t stream);

/// ApplyGradientDescent (f32, f64): var_out = var - grad * alpha[0]. Scalars are device
/// pointers to one element, so no host round trip is needed.
cudaError_t launch_apply_gradient_descent(ElemType t, const void* var, const void* alpha,
                                          const void* grad, void* var_out, std::int64_t n,
                                          cudaStream_t stream);

/// ApplyMomentum (f32, f64), as training_ops.cc: accum_out = accum * momentum + grad;
/// var_out = var - accum_out * lr (Nesterov: var - (grad * lr + accum_out * momentum * lr)).
cudaError_t launch_apply_momentum(ElemType t, const void* var, const void* accum, const void* lr,
                                  const void* grad, const void* momentum, void* var_out,
                                  void* accum_out, std::int64_t n, bool use_nesterov,
                                  cudaStream_t stream);

/// The scalar inputs of ApplyAdam, each a device pointer to one element.
struct AdamScalars {
  const void* beta1_power;
  const void* beta2_power;
  const void* lr;
  const void* beta1;
  const void* beta2;
  const void* epsilon;
};
/// ApplyAdam (f32, f64), the CPU kernel's formulas term by term.
cudaError_t launch_apply_adam(ElemType t, const void* var, const void* m, const void* v,
                              const AdamScalars& scalars, const void* grad, void* var_out,
                              void* m_out, void* v_out, std::int64_t n, bool use_nesterov,
                              cudaStream_t stream);

/// ApplyAdagrad (f32, f64), as training_ops.cc: accum_out = accum + grad^2 (accum as it is
/// without update_slots); var_out = var - grad * lr * rsqrt(accum_out).
cudaError_t launch_apply_adagrad(ElemType t, const void* var, const void* accum, const void* lr,
                                 const void* grad, void* var_out, void* accum_out, std::int64_t n,
                                 bool update_slots, cudaStream_t stream);

/// The scalar inputs of ApplyRMSProp and ApplyCenteredRMSProp, device pointers to one element.
struct RmsPropScalars {
  const void* lr;
  const void* rho;
  const void* momentum;
  const void* epsilon;
};
/// ApplyRMSProp (mg and mg_out null) and ApplyCenteredRMSProp (f32, f64), term by term as
/// the CPU kernels: ms += (grad^2 - ms) (1 - rho); [mg += (grad - mg) (1 - rho);]
/// mom = mom momentum + grad lr / sqrt(ms [- mg^2] + epsilon); var -= mom.
cudaError_t launch_apply_rms_prop(ElemType t, const void* var, const void* mg, const void* ms,
                                  const void* mom, const RmsPropScalars& scalars, const void* grad,
                                  void* var_out, void* mg_out, void* ms_out, void* mom_out,
                                  std::int64_t n, cudaStream_t stream);

/// SoftmaxCrossEntropyWithLogits (f32, f64) with dense [rows, cols] labels, as the CPU
/// kernel's xent_rows.
cudaError_t launch_softmax_xent(ElemType t, const void* logits, const void* labels, void* loss,
                                void* backprop, std::int64_t rows, std::int64_t cols,
                                cudaStream_t stream);

/// LogSoftmax (f32, f64) over the last dimension of [rows, cols].
cudaError_t launch_log_softmax(ElemType t, const void* in, void* out, std::int64_t rows,
                               std::int64_t cols, cudaStream_t stream);

/// out[i] = in[i]^2 / 2 (f32, f64, bf16): L2Loss's terms.
cudaError_t launch_half_square(ElemType t, const void* in, void* out, std::int64_t n,
                               cudaStream_t stream);

/// SparseSoftmaxCrossEntropyWithLogits (f32, f64) on [rows, cols] logits, as the CPU
/// kernel's xent_rows: loss[r] = log_sum_exp(row) - logits[r, label], backprop = softmax -
/// one_hot(label). `labels` (device memory) are already checked to lie in [0, cols).
cudaError_t launch_sparse_softmax_xent(ElemType t, const void* logits, const std::int64_t* labels,
                                       void* loss, void* backprop, std::int64_t rows,
                                       std::int64_t cols, cudaStream_t stream);

/// Launch parameters of the device: set once per process from the device's properties.
int threads_per_block() noexcept;

}  // namespace af::gpu
