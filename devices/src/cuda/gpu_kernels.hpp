// Launchers of actorflow's own CUDA kernels (element-wise math, bias_add, reductions, cast,
// Philox random). Plain types only, so the .cu file needs no actorflow header and the
// C++ side needs no CUDA compiler. Every launcher enqueues on `stream` and returns the
// launch's error (cudaSuccess when enqueued).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace af::gpu {

/// Element types the kernels handle; bfloat16 is stored as its 16 bits, computed in float.
enum class ElemType : std::uint8_t { f32, f64, bf16, i64, u8, boolean };

enum class BinaryKind : std::uint8_t { add, sub, mul, div };
enum class UnaryKind : std::uint8_t { neg, relu, sigmoid, tanh };
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

cudaError_t launch_binary(BinaryKind op, ElemType t, const void* a, const void* b, void* out, std::int64_t n,
                          const BroadcastPlan& plan, cudaStream_t stream);

cudaError_t launch_unary(UnaryKind op, ElemType t, const void* in, void* out, std::int64_t n, cudaStream_t stream);

/// out[i] = x[i] + bias[i % channels] (NHWC and every layout with channels last).
cudaError_t launch_bias_add(ElemType t, const void* x, const void* bias, void* out, std::int64_t n,
                            std::int64_t channels, cudaStream_t stream);

/// Reduces the middle dimension of an [outer, reduce, inner] array into [outer, inner]
/// and multiplies each result by `scale` (1 for Sum and Max, 1/reduce for Mean).
cudaError_t launch_reduce(ReduceKind op, ElemType t, const void* in, void* out, std::int64_t outer,
                          std::int64_t reduce, std::int64_t inner, double scale, cudaStream_t stream);

cudaError_t launch_cast(ElemType from, ElemType to, const void* in, void* out, std::int64_t n,
                        cudaStream_t stream);

/// Fills `out` as TensorFlow's FillPhiloxRandom: group g of `group size` outputs is drawn
/// from the generator (key, counter) skipped by g, so values equal the CPU kernel's.
cudaError_t launch_philox_random(RandomKind kind, ElemType t, const std::uint32_t key[2],
                                 const std::uint32_t counter[4], void* out, std::int64_t n, cudaStream_t stream);

/// Max or average (padding not counted) pooling of an NHWC array.
struct PoolPlan {
  std::int64_t batch, in_rows, in_cols, depth, out_rows, out_cols;
  std::int64_t window_rows, window_cols, stride_rows, stride_cols, pad_rows, pad_cols;
};
cudaError_t launch_pool2d(bool max, ElemType t, const void* in, void* out, const PoolPlan& plan, cudaStream_t stream);

/// Copies NHWC `in` [n, h, w, c] into `out` [n, h + extra_rows, w + extra_cols, c] with
/// zeros after (pad) or copies the top-left [n, h, w, c] of `in` (crop) back out; the
/// asymmetric half of TensorFlow's SAME padding, which cuDNN cannot express.
cudaError_t launch_pad_nhwc(ElemType t, const void* in, void* out, std::int64_t n, std::int64_t h, std::int64_t w,
                            std::int64_t c, std::int64_t extra_rows, std::int64_t extra_cols, bool crop,
                            cudaStream_t stream);

/// Launch parameters of the device: set once per process from the device's properties.
int threads_per_block() noexcept;

}  // namespace af::gpu
