// actorflow's own CUDA kernels for element-wise math, BiasAdd, activation gradients, fills,
// reductions, casts, random numbers (the Philox generator of the CPU kernels,
// tensorflow/core/lib/random) and Tile. The layers' and optimizers' kernels are in
// gpu_nn_kernels.cu.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "gpu_kernel_util.cuh"
#include "gpu_kernels.hpp"

namespace af::gpu {

namespace {

// -- binary ------------------------------------------------------------------------------------

template <BinaryKind Op, class C>
__device__ __forceinline__ C apply_binary(C x, C y) {
  if constexpr (Op == BinaryKind::add)
    return x + y;
  else if constexpr (Op == BinaryKind::sub)
    return x - y;
  else if constexpr (Op == BinaryKind::mul)
    return x * y;
  else
    return x / y;
}

template <BinaryKind Op, class T>
__global__ void binary_same(const T* a, const T* b, T* out, std::int64_t n) {
  using C = Compute<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = C::store(apply_binary<Op>(C::load(a[i]), C::load(b[i])));
}

template <BinaryKind Op, class T>
__global__ void binary_broadcast(const T* a, const T* b, T* out, std::int64_t n,
                                 BroadcastPlan plan) {
  using C = Compute<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    std::int64_t rest = i, ai = 0, bi = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const std::int64_t coord = rest % plan.dims[d];
      rest /= plan.dims[d];
      ai += coord * plan.a_strides[d];
      bi += coord * plan.b_strides[d];
    }
    out[i] = C::store(apply_binary<Op>(C::load(a[ai]), C::load(b[bi])));
  }
}

template <BinaryKind Op, class T>
cudaError_t binary_typed(const void* a, const void* b, void* out, std::int64_t n,
                         const BroadcastPlan& plan, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  bool same = true;
  for (int d = 0; d < plan.rank; ++d) {
    std::int64_t expect = 1;
    for (int e = d + 1; e < plan.rank; ++e) expect *= plan.dims[e];
    if (plan.a_strides[d] != expect || plan.b_strides[d] != expect) same = false;
  }
  if (same)
    binary_same<Op, T><<<blocks_for(n), kThreads, 0, s>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  else
    binary_broadcast<Op, T><<<blocks_for(n), kThreads, 0, s>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n, plan);
  return cudaGetLastError();
}

template <class T>
cudaError_t binary_op(BinaryKind op, const void* a, const void* b, void* out, std::int64_t n,
                      const BroadcastPlan& plan, cudaStream_t s) {
  switch (op) {
    case BinaryKind::add:
      return binary_typed<BinaryKind::add, T>(a, b, out, n, plan, s);
    case BinaryKind::sub:
      return binary_typed<BinaryKind::sub, T>(a, b, out, n, plan, s);
    case BinaryKind::mul:
      return binary_typed<BinaryKind::mul, T>(a, b, out, n, plan, s);
    case BinaryKind::div:
      return binary_typed<BinaryKind::div, T>(a, b, out, n, plan, s);
  }
  return cudaErrorInvalidValue;
}

// -- unary -------------------------------------------------------------------------------------

template <UnaryKind Op, class C>
__device__ __forceinline__ C apply_unary(C x) {
  if constexpr (Op == UnaryKind::neg)
    return -x;
  else if constexpr (Op == UnaryKind::relu)
    return x > C(0) ? x : C(0);
  else if constexpr (Op == UnaryKind::sigmoid)
    return C(1) / (C(1) + exp(-x));
  else if constexpr (Op == UnaryKind::tanh)
    return tanh(x);
  else if constexpr (Op == UnaryKind::square)
    return x * x;
  else if constexpr (Op == UnaryKind::sqrt)
    return sqrt(x);
  else if constexpr (Op == UnaryKind::rsqrt)
    return C(1) / sqrt(x);
  else if constexpr (Op == UnaryKind::exp)
    return exp(x);
  else if constexpr (Op == UnaryKind::log)
    return log(x);
  else
    return C(1) / x;
}

template <UnaryKind Op, class T>
__global__ void unary_kernel(const T* in, T* out, std::int64_t n) {
  using C = Compute<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = C::store(apply_unary<Op>(C::load(in[i])));
}

template <class T>
cudaError_t unary_op(UnaryKind op, const void* in, void* out, std::int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  auto* i = static_cast<const T*>(in);
  auto* o = static_cast<T*>(out);
  switch (op) {
    case UnaryKind::neg:
      unary_kernel<UnaryKind::neg, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::relu:
      unary_kernel<UnaryKind::relu, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::sigmoid:
      unary_kernel<UnaryKind::sigmoid, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::tanh:
      unary_kernel<UnaryKind::tanh, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::square:
      unary_kernel<UnaryKind::square, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::sqrt:
      unary_kernel<UnaryKind::sqrt, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::rsqrt:
      unary_kernel<UnaryKind::rsqrt, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::exp:
      unary_kernel<UnaryKind::exp, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::log:
      unary_kernel<UnaryKind::log, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
    case UnaryKind::reciprocal:
      unary_kernel<UnaryKind::reciprocal, T><<<blocks_for(n), kThreads, 0, s>>>(i, o, n);
      break;
  }
  return cudaGetLastError();
}

// -- activation gradients ----------------------------------------------------------------------

template <ActivationGradKind Op, class T>
__global__ void activation_grad_kernel(const T* a, const T* b, T* out, std::int64_t n) {
  using C = Compute<T>;
  using V = typename C::type;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const V x = C::load(a[i]), y = C::load(b[i]);
    if constexpr (Op == ActivationGradKind::relu)
      out[i] = C::store(y > V(0) ? x : V(0));  // gradients where features > 0
    else if constexpr (Op == ActivationGradKind::sigmoid)
      out[i] = C::store(y * x * (V(1) - x));  // dy * y * (1 - y)
    else
      out[i] = C::store(y * (V(1) - x * x));  // dy * (1 - y^2)
  }
}

template <class T>
cudaError_t activation_grad_op(ActivationGradKind op, const void* a, const void* b, void* out,
                               std::int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  auto* o = static_cast<T*>(out);
  switch (op) {
    case ActivationGradKind::relu:
      activation_grad_kernel<ActivationGradKind::relu, T>
          <<<blocks_for(n), kThreads, 0, s>>>(x, y, o, n);
      break;
    case ActivationGradKind::sigmoid:
      activation_grad_kernel<ActivationGradKind::sigmoid, T>
          <<<blocks_for(n), kThreads, 0, s>>>(x, y, o, n);
      break;
    case ActivationGradKind::tanh:
      activation_grad_kernel<ActivationGradKind::tanh, T>
          <<<blocks_for(n), kThreads, 0, s>>>(x, y, o, n);
      break;
  }
  return cudaGetLastError();
}

// -- fill ----------------------------------------------------------------------------------------

template <class T>
__global__ void fill_kernel(T value, T* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = value;
}

template <class T>
cudaError_t fill_typed(T value, void* out, std::int64_t n, cudaStream_t s) {
  fill_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(value, static_cast<T*>(out), n);
  return cudaGetLastError();
}

// bfloat16 rounding of a host double, as to_bf16 does on the device (round to nearest even).
bf16 host_bf16(double value) {
  const float f = static_cast<float>(value);
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return bf16{0x7fc0};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<std::uint16_t>(u >> 16)};
}

// -- bias_add ---------------------------------------------------------------------------------

template <class T>
__global__ void bias_add_kernel(const T* x, const T* bias, T* out, std::int64_t n,
                                std::int64_t channels) {
  using C = Compute<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = C::store(C::load(x[i]) + C::load(bias[i % channels]));
}

// -- reductions -------------------------------------------------------------------------------

template <ReduceKind Op, class C>
__device__ __forceinline__ C combine(C a, C b) {
  if constexpr (Op == ReduceKind::sum)
    return a + b;
  else
    return a > b ? a : b;
}

template <ReduceKind Op, class C>
__device__ __forceinline__ C identity_of() {
  if constexpr (Op == ReduceKind::sum)
    return C(0);
  else
    return -INFINITY;
}

// Element conversions for the reductions, whose partial results are kept in the compute
// type (float for bfloat16).
template <class V, class In>
__device__ __forceinline__ V load_as(In v) {
  if constexpr (std::is_same_v<In, bf16>)
    return to_float(v);
  else
    return static_cast<V>(v);
}
template <class Out, class V>
__device__ __forceinline__ Out store_as(V v) {
  if constexpr (std::is_same_v<Out, bf16>)
    return to_bf16(static_cast<float>(v));
  else
    return static_cast<Out>(v);
}

// The shapes of an [outer, reduce, inner] reduction, each with a kernel of its own:
//   rows        inner == 1, long rows: a block per (row, split), a shared-memory tree;
//   short rows  inner == 1, rows shorter than a block: a thread per row;
//   columns     inner > 1: a block of 32 columns x 8 rows per (outer, split, 32-column tile),
//               coalesced over the columns, a shared-memory tree over the rows.
// A split is a chunk of the reduced dimension: when the outputs alone would leave the GPU
// idle, each block reduces one chunk into a partial, and a second pass reduces the partials.
enum class ReduceShape { rows, short_rows, columns };
constexpr int kColumnTile = 32, kRowsPerBlock = 8;

ReduceShape reduce_shape(std::int64_t reduce, std::int64_t inner) {
  if (inner > 1) return ReduceShape::columns;
  return reduce >= kThreads ? ReduceShape::rows : ReduceShape::short_rows;
}

template <ReduceKind Op, class V, class In, class Out>
__global__ void reduce_rows(const In* in, Out* out, std::int64_t reduce, std::int64_t splits,
                            std::int64_t chunk, double scale) {
  __shared__ V partial[kThreads];
  const std::int64_t b = blockIdx.x, row = b / splits, split = b % splits;
  const In* p = in + row * reduce;
  const std::int64_t begin = split * chunk, end = min(reduce, begin + chunk);
  V acc = identity_of<Op, V>();
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    acc = combine<Op>(acc, load_as<V>(p[i]));
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width)
      partial[threadIdx.x] = combine<Op>(partial[threadIdx.x], partial[threadIdx.x + width]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[b] = store_as<Out>(static_cast<V>(partial[0] * static_cast<V>(scale)));
}

template <ReduceKind Op, class V, class In, class Out>
__global__ void reduce_short_rows(const In* in, Out* out, std::int64_t outer, std::int64_t reduce,
                                  double scale) {
  for (std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       row < outer; row += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const In* p = in + row * reduce;
    V acc = identity_of<Op, V>();
    for (std::int64_t i = 0; i < reduce; ++i) acc = combine<Op>(acc, load_as<V>(p[i]));
    out[row] = store_as<Out>(static_cast<V>(acc * static_cast<V>(scale)));
  }
}

template <ReduceKind Op, class V, class In, class Out>
__global__ void reduce_columns(const In* in, Out* out, std::int64_t reduce, std::int64_t inner,
                               std::int64_t splits, std::int64_t chunk, double scale) {
  __shared__ V partial[kRowsPerBlock][kColumnTile + 1];
  const std::int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
  const std::int64_t b = blockIdx.x, tile = b % tiles, split = (b / tiles) % splits,
                     o = b / (tiles * splits);
  const std::int64_t k = tile * kColumnTile + threadIdx.x;
  const std::int64_t begin = split * chunk, end = min(reduce, begin + chunk);
  V acc = identity_of<Op, V>();
  if (k < inner) {
    const In* p = in + o * reduce * inner + k;
    for (std::int64_t r = begin + threadIdx.y; r < end; r += kRowsPerBlock)
      acc = combine<Op>(acc, load_as<V>(p[r * inner]));
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  for (int h = kRowsPerBlock / 2; h > 0; h /= 2) {
    if (threadIdx.y < h)
      partial[threadIdx.y][threadIdx.x] =
          combine<Op>(partial[threadIdx.y][threadIdx.x], partial[threadIdx.y + h][threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.y == 0 && k < inner)
    out[(o * splits + split) * inner + k] =
        store_as<Out>(static_cast<V>(partial[0][threadIdx.x] * static_cast<V>(scale)));
}

struct ReduceSplit {
  std::int64_t splits = 1, chunk = 0;
};

// Splits when the outputs give fewer than about 512 blocks, in chunks of at least 2048
// elements (rows) or 64 rows (columns).
ReduceSplit split_for(std::int64_t outer, std::int64_t reduce, std::int64_t inner) {
  ReduceSplit r{1, reduce};
  const ReduceShape shape = reduce_shape(reduce, inner);
  if (shape == ReduceShape::short_rows) return r;
  constexpr std::int64_t kWantBlocks = 512;
  const std::int64_t blocks =
      shape == ReduceShape::rows ? outer : outer * ((inner + kColumnTile - 1) / kColumnTile);
  const std::int64_t min_chunk = shape == ReduceShape::rows ? 2048 : 64;
  if (blocks >= kWantBlocks || reduce < 2 * min_chunk) return r;
  r.splits =
      std::max<std::int64_t>(1, std::min((kWantBlocks + blocks - 1) / blocks, reduce / min_chunk));
  r.chunk = (reduce + r.splits - 1) / r.splits;
  r.splits = (reduce + r.chunk - 1) / r.chunk;
  return r;
}

template <ReduceKind Op, class V, class In, class Out>
void reduce_pass(const In* in, Out* out, std::int64_t outer, std::int64_t reduce,
                 std::int64_t inner, const ReduceSplit& split, double scale, cudaStream_t s) {
  switch (reduce_shape(reduce, inner)) {
    case ReduceShape::rows:
      reduce_rows<Op, V><<<static_cast<unsigned>(outer * split.splits), kThreads, 0, s>>>(
          in, out, reduce, split.splits, split.chunk, scale);
      break;
    case ReduceShape::short_rows:
      reduce_short_rows<Op, V>
          <<<blocks_for(outer), kThreads, 0, s>>>(in, out, outer, reduce, scale);
      break;
    case ReduceShape::columns: {
      const std::int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
      reduce_columns<Op, V>
          <<<static_cast<unsigned>(outer * split.splits * tiles), dim3(kColumnTile, kRowsPerBlock),
             0, s>>>(in, out, reduce, inner, split.splits, split.chunk, scale);
      break;
    }
  }
}

template <ReduceKind Op, class T>
cudaError_t reduce_typed(const void* in, void* out, std::int64_t outer, std::int64_t reduce,
                         std::int64_t inner, double scale, void* scratch, cudaStream_t s) {
  using V = typename Compute<T>::type;
  if (outer * inner == 0) return cudaSuccess;
  auto* i = static_cast<const T*>(in);
  auto* o = static_cast<T*>(out);
  const ReduceSplit split = split_for(outer, reduce, inner);
  if (split.splits == 1 || scratch == nullptr) {
    reduce_pass<Op, V>(i, o, outer, reduce, inner, ReduceSplit{1, reduce}, scale, s);
  } else {
    // Partials [outer, splits, inner] in the compute type, then one pass over the splits.
    auto* partial = static_cast<V*>(scratch);
    reduce_pass<Op, V>(i, partial, outer, reduce, inner, split, 1.0, s);
    reduce_pass<Op, V>(static_cast<const V*>(partial), o, outer, split.splits, inner,
                       ReduceSplit{1, split.splits}, scale, s);
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t reduce_op(ReduceKind op, const void* in, void* out, std::int64_t outer,
                      std::int64_t reduce, std::int64_t inner, double scale, void* scratch,
                      cudaStream_t s) {
  return op == ReduceKind::sum
             ? reduce_typed<ReduceKind::sum, T>(in, out, outer, reduce, inner, scale, scratch, s)
             : reduce_typed<ReduceKind::max, T>(in, out, outer, reduce, inner, scale, scratch, s);
}

// -- cast --------------------------------------------------------------------------------------

template <class From, class To>
__device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<From, bf16> && std::is_same_v<To, bf16>)
    return v;
  else if constexpr (std::is_same_v<From, bf16>)
    return static_cast<To>(to_float(v));
  else if constexpr (std::is_same_v<To, bf16>)
    return to_bf16(static_cast<float>(v));
  else if constexpr (std::is_same_v<To, bool>)
    return v != From(0);
  else
    return static_cast<To>(v);
}

template <class From, class To>
__global__ void cast_kernel(const From* in, To* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = convert<From, To>(in[i]);
}

template <class From>
cudaError_t cast_from(ElemType to, const void* in, void* out, std::int64_t n, cudaStream_t s) {
  auto* i = static_cast<const From*>(in);
  const int blocks = blocks_for(n);
  switch (to) {
    case ElemType::f32:
      cast_kernel<From, float><<<blocks, kThreads, 0, s>>>(i, static_cast<float*>(out), n);
      break;
    case ElemType::f64:
      cast_kernel<From, double><<<blocks, kThreads, 0, s>>>(i, static_cast<double*>(out), n);
      break;
    case ElemType::bf16:
      cast_kernel<From, bf16><<<blocks, kThreads, 0, s>>>(i, static_cast<bf16*>(out), n);
      break;
    case ElemType::i64:
      cast_kernel<From, std::int64_t>
          <<<blocks, kThreads, 0, s>>>(i, static_cast<std::int64_t*>(out), n);
      break;
    case ElemType::u8:
      cast_kernel<From, std::uint8_t>
          <<<blocks, kThreads, 0, s>>>(i, static_cast<std::uint8_t*>(out), n);
      break;
    case ElemType::boolean:
      cast_kernel<From, bool><<<blocks, kThreads, 0, s>>>(i, static_cast<bool*>(out), n);
      break;
  }
  return cudaGetLastError();
}

// -- Philox ------------------------------------------------------------------------------------

struct Philox {
  std::uint32_t counter[4];
  std::uint32_t key[2];

  __device__ void skip(std::uint64_t count) {
    const auto lo = static_cast<std::uint32_t>(count);
    auto hi = static_cast<std::uint32_t>(count >> 32);
    counter[0] += lo;
    if (counter[0] < lo) ++hi;
    counter[1] += hi;
    if (counter[1] < hi) {
      if (++counter[2] == 0) ++counter[3];
    }
  }

  __device__ void next(std::uint32_t out[4]) const {
    std::uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
    std::uint32_t k[2] = {key[0], key[1]};
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
      }
      const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c[0];
      const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c[2];
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0];
      const std::uint32_t n1 = static_cast<std::uint32_t>(p1);
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1];
      const std::uint32_t n3 = static_cast<std::uint32_t>(p0);
      c[0] = n0;
      c[1] = n1;
      c[2] = n2;
      c[3] = n3;
    }
    for (int i = 0; i < 4; ++i) out[i] = c[i];
  }
};

__device__ float uint32_to_float(std::uint32_t x) {
  return __uint_as_float((127u << 23) | (x & 0x7fffffu)) - 1.0f;
}

__device__ double uint64_to_double(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t man = (static_cast<std::uint64_t>(x0 & 0xfffffu) << 32) | x1;
  return __longlong_as_double(static_cast<long long>((std::uint64_t{1023} << 52) | man)) - 1.0;
}

__device__ void box_muller_float(std::uint32_t x0, std::uint32_t x1, float* f0, float* f1) {
  float u1 = uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const auto v1 = static_cast<float>(2.0 * M_PI * static_cast<double>(uint32_to_float(x1)));
  const float u2 = sqrtf(-2.0f * logf(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

__device__ void box_muller_double(const std::uint32_t s[4], double* d0, double* d1) {
  double u1 = uint64_to_double(s[0], s[1]);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * uint64_to_double(s[2], s[3]);
  const double u2 = sqrt(-2.0 * log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// One thread per group: float and bfloat16 groups hold 4 values, double groups 2.
template <RandomKind Kind, class T>
__global__ void philox_kernel(Philox base, T* out, std::int64_t n) {
  constexpr int kGroup = std::is_same_v<T, double> ? 2 : 4;
  const std::int64_t groups = (n + kGroup - 1) / kGroup;
  for (std::int64_t g = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       g < groups; g += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    Philox gen = base;
    gen.skip(static_cast<std::uint64_t>(g));
    std::uint32_t s[4];
    gen.next(s);
    T values[kGroup];
    if constexpr (std::is_same_v<T, double>) {
      if constexpr (Kind == RandomKind::uniform) {
        values[0] = uint64_to_double(s[0], s[1]);
        values[1] = uint64_to_double(s[2], s[3]);
      } else {
        box_muller_double(s, &values[0], &values[1]);
      }
    } else {
      float f[4];
      if constexpr (Kind == RandomKind::uniform) {
        for (int i = 0; i < 4; ++i)
          f[i] = std::is_same_v<T, bf16> ? static_cast<float>(s[i] & 0x7fu) / 128.0f
                                         : uint32_to_float(s[i]);
      } else {
        box_muller_float(s[0], s[1], &f[0], &f[1]);
        box_muller_float(s[2], s[3], &f[2], &f[3]);
      }
      for (int i = 0; i < 4; ++i) {
        if constexpr (std::is_same_v<T, bf16>)
          values[i] = to_bf16(f[i]);
        else
          values[i] = f[i];
      }
    }
    for (int i = 0; i < kGroup && g * kGroup + i < n; ++i) out[g * kGroup + i] = values[i];
  }
}

template <RandomKind Kind>
cudaError_t philox_typed(ElemType t, const Philox& base, void* out, std::int64_t n,
                         cudaStream_t s) {
  const std::int64_t groups = (n + 3) / 2;  // an upper bound for every group size
  switch (t) {
    case ElemType::f32:
      philox_kernel<Kind, float>
          <<<blocks_for(groups), kThreads, 0, s>>>(base, static_cast<float*>(out), n);
      break;
    case ElemType::f64:
      philox_kernel<Kind, double>
          <<<blocks_for(groups), kThreads, 0, s>>>(base, static_cast<double*>(out), n);
      break;
    case ElemType::bf16:
      philox_kernel<Kind, bf16>
          <<<blocks_for(groups), kThreads, 0, s>>>(base, static_cast<bf16*>(out), n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class T>
__global__ void broadcast_scalar_kernel(const T* value, T* out, std::int64_t n) {
  const T v = *value;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)
    out[i] = v;
}

// Tile: output element i reads input element sum_d ((i_d mod in_dim_d) * in_stride_d).
template <class T>
__global__ void tile_kernel(const T* in, T* out, std::int64_t n, TilePlan p) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    std::int64_t rest = i, from = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const std::int64_t coordinate = rest % p.out_dims[d];
      rest /= p.out_dims[d];
      from += (coordinate % p.in_dims[d]) * p.in_strides[d];
    }
    out[i] = in[from];
  }
}

}  // namespace

cudaError_t launch_broadcast_scalar(std::size_t element_size, const void* value, void* out,
                                    std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      broadcast_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint8_t*>(value), static_cast<std::uint8_t*>(out), n);
      break;
    case 2:
      broadcast_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint16_t*>(value), static_cast<std::uint16_t*>(out), n);
      break;
    case 4:
      broadcast_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint32_t*>(value), static_cast<std::uint32_t*>(out), n);
      break;
    case 8:
      broadcast_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint64_t*>(value), static_cast<std::uint64_t*>(out), n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_tile(std::size_t element_size, const void* in, void* out, std::int64_t n,
                        const TilePlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      tile_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const std::uint8_t*>(in),
                                                          static_cast<std::uint8_t*>(out), n, plan);
      break;
    case 2:
      tile_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), n, plan);
      break;
    case 4:
      tile_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), n, plan);
      break;
    case 8:
      tile_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const std::uint64_t*>(in), static_cast<std::uint64_t*>(out), n, plan);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_binary(BinaryKind op, ElemType t, const void* a, const void* b, void* out,
                          std::int64_t n, const BroadcastPlan& plan, cudaStream_t stream) {
  switch (t) {
    case ElemType::f32:
      return binary_op<float>(op, a, b, out, n, plan, stream);
    case ElemType::f64:
      return binary_op<double>(op, a, b, out, n, plan, stream);
    case ElemType::bf16:
      return binary_op<bf16>(op, a, b, out, n, plan, stream);
    case ElemType::i64:
      return binary_op<std::int64_t>(op, a, b, out, n, plan, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_unary(UnaryKind op, ElemType t, const void* in, void* out, std::int64_t n,
                         cudaStream_t stream) {
  switch (t) {
    case ElemType::f32:
      return unary_op<float>(op, in, out, n, stream);
    case ElemType::f64:
      return unary_op<double>(op, in, out, n, stream);
    case ElemType::bf16:
      return unary_op<bf16>(op, in, out, n, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_bias_add(ElemType t, const void* x, const void* bias, void* out, std::int64_t n,
                            std::int64_t channels, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      bias_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const float*>(x), static_cast<const float*>(bias), static_cast<float*>(out),
          n, channels);
      break;
    case ElemType::f64:
      bias_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const double*>(x), static_cast<const double*>(bias),
          static_cast<double*>(out), n, channels);
      break;
    case ElemType::bf16:
      bias_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const bf16*>(x),
                                                              static_cast<const bf16*>(bias),
                                                              static_cast<bf16*>(out), n, channels);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

std::size_t reduce_scratch_bytes(ElemType t, std::int64_t outer, std::int64_t reduce,
                                 std::int64_t inner) {
  const ReduceSplit split = split_for(outer, reduce, inner);
  if (split.splits == 1) return 0;
  const std::size_t element = t == ElemType::f64 ? sizeof(double) : sizeof(float);
  return static_cast<std::size_t>(outer * split.splits * inner) * element;
}

cudaError_t launch_reduce(ReduceKind op, ElemType t, const void* in, void* out, std::int64_t outer,
                          std::int64_t reduce, std::int64_t inner, double scale, void* scratch,
                          cudaStream_t stream) {
  switch (t) {
    case ElemType::f32:
      return reduce_op<float>(op, in, out, outer, reduce, inner, scale, scratch, stream);
    case ElemType::f64:
      return reduce_op<double>(op, in, out, outer, reduce, inner, scale, scratch, stream);
    case ElemType::bf16:
      return reduce_op<bf16>(op, in, out, outer, reduce, inner, scale, scratch, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_cast(ElemType from, ElemType to, const void* in, void* out, std::int64_t n,
                        cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (from) {
    case ElemType::f32:
      return cast_from<float>(to, in, out, n, stream);
    case ElemType::f64:
      return cast_from<double>(to, in, out, n, stream);
    case ElemType::bf16:
      return cast_from<bf16>(to, in, out, n, stream);
    case ElemType::i64:
      return cast_from<std::int64_t>(to, in, out, n, stream);
    case ElemType::u8:
      return cast_from<std::uint8_t>(to, in, out, n, stream);
    case ElemType::boolean:
      return cast_from<bool>(to, in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_philox_random(RandomKind kind, ElemType t, const std::uint32_t key[2],
                                 const std::uint32_t counter[4], void* out, std::int64_t n,
                                 cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  Philox base{{counter[0], counter[1], counter[2], counter[3]}, {key[0], key[1]}};
  return kind == RandomKind::uniform ? philox_typed<RandomKind::uniform>(t, base, out, n, stream)
                                     : philox_typed<RandomKind::normal>(t, base, out, n, stream);
}

cudaError_t launch_activation_grad(ActivationGradKind op, ElemType t, const void* a, const void* b,
                                   void* out, std::int64_t n, cudaStream_t stream) {
  switch (t) {
    case ElemType::f32:
      return activation_grad_op<float>(op, a, b, out, n, stream);
    case ElemType::f64:
      return activation_grad_op<double>(op, a, b, out, n, stream);
    case ElemType::bf16:
      return activation_grad_op<bf16>(op, a, b, out, n, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_fill(ElemType t, double value, void* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case ElemType::f32:
      return fill_typed<float>(static_cast<float>(value), out, n, stream);
    case ElemType::f64:
      return fill_typed<double>(value, out, n, stream);
    case ElemType::bf16:
      return fill_typed<bf16>(host_bf16(value), out, n, stream);
    case ElemType::i64:
      return fill_typed<std::int64_t>(static_cast<std::int64_t>(value), out, n, stream);
    case ElemType::u8:
      return fill_typed<std::uint8_t>(static_cast<std::uint8_t>(value), out, n, stream);
    case ElemType::boolean:
      return fill_typed<bool>(value != 0, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

int threads_per_block() noexcept { return kThreads; }

}  // namespace af::gpu
