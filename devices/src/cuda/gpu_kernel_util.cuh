// What actorflow's CUDA kernels share: the launch geometry of grid-stride loops, bfloat16
// as 16 bits computed in float, and Compute<T> (the type an element is computed in).
#pragma once

#include <cstdint>

namespace af::gpu {

constexpr int kThreads = 256;

inline int blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}

// -- element access: bfloat16 is 16 bits computed in float ----------------------------------

struct bf16 {
  std::uint16_t bits;
};

template <class T>
__device__ __forceinline__ T max_of(T a, T b) {
  return a > b ? a : b;
}
template <class T>
__device__ __forceinline__ T min_of(T a, T b) {
  return a < b ? a : b;
}

__device__ __forceinline__ float to_float(bf16 v) {
  return __uint_as_float(static_cast<std::uint32_t>(v.bits) << 16);
}

__device__ __forceinline__ bf16 to_bf16(float f) {
  std::uint32_t u = __float_as_uint(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return bf16{0x7fc0};
  const std::uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return bf16{static_cast<std::uint16_t>(u >> 16)};
}

template <class T>
struct Compute {
  using type = T;
  __device__ static T load(T v) { return v; }
  __device__ static T store(T v) { return v; }
};
template <>
struct Compute<bf16> {
  using type = float;
  __device__ static float load(bf16 v) { return to_float(v); }
  __device__ static bf16 store(float v) { return to_bf16(v); }
};

}  // namespace af::gpu
