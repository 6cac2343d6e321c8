// actorflow's GPU benchmarks (P7 and the GPU step and copy figures). Each prints the median
// of several runs beside a direct CUDA-library call on the same device in the same run.
//
//   mm     MatMul 4096^2 float32 and bfloat16 through a session (one product per step and
//          eight per step) vs cublasSgemm / cublasGemmEx on the same device
//   conv   a ResNet-50 3x3 convolution (N=32, 56x56x64 -> 64, SAME): forward, backprop input
//          and backprop filter through a session vs the same cuDNN calls, algorithms chosen
//          by the same heuristic
//   step   step overhead of a trivial graph (c = a + b, fetched) on GPU:0 vs on CPU:0
//   copy   host->device (feed of a pageable tensor, and of af::pinned_host_tensor) and
//          device->host (fetch) GB/s of 256 MiB vs cudaMemcpyAsync from and to pinned memory
//   copyprobe  where a pageable feed's time goes: memcpy bandwidth, the driver's pageable
//          copy, cudaHostRegister
//
// Usage: actorflow-bench-gpu [all|mm|conv|step|copy|copyprobe] [--quick]
// Built only where CUDA is found; needs a GPU to run.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"

using Clock = std::chrono::steady_clock;

namespace {

bool quick = false;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(e));
    std::exit(2);
  }
}
void check(cudnnStatus_t e, const char* what) {
  if (e != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, cudnnGetErrorString(e));
    std::exit(2);
  }
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Times `f` `reps` times after `warm` untimed calls; milliseconds per call.
std::vector<double> time_ms(int warm, int reps, const std::function<void()>& f) {
  for (int i = 0; i < warm; ++i) f();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    f();
    ms.push_back(ms_since(t));
  }
  return ms;
}

/// A device buffer of `bytes` filled with small random values by cuRAND-free means (a host
/// fill copied once).
void* device_random(std::size_t count, bool bf16) {
  std::vector<float> host(count);
  std::uint32_t s = 12345;
  for (auto& v : host) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
  void* d = nullptr;
  if (bf16) {
    std::vector<std::uint16_t> b(count);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &host[i], 4);
      b[i] = static_cast<std::uint16_t>(bits >> 16);
    }
    check(cudaMalloc(&d, count * 2), "cudaMalloc");
    check(cudaMemcpy(d, b.data(), count * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
  } else {
    check(cudaMalloc(&d, count * 4), "cudaMalloc");
    check(cudaMemcpy(d, host.data(), count * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  return d;
}

void print_row(const std::string& what, const std::vector<double>& session_ms,
               const std::vector<double>& direct_ms, double flop_per_call) {
  const double s = af::bench::median_of(session_ms), d = af::bench::median_of(direct_ms);
  if (flop_per_call > 0)
    std::printf(
        "%-44s session %.3f ms (%.1f TFLOP/s, %s) direct %.3f ms (%.1f TFLOP/s, %s) ratio %.2fx\n",
        what.c_str(), s, flop_per_call / s / 1e9, af::bench::spread(session_ms).c_str(), d,
        flop_per_call / d / 1e9, af::bench::spread(direct_ms).c_str(), d / s);
  else
    std::printf("%-44s session %.3f ms (%s) direct %.3f ms (%s) ratio %.2fx\n", what.c_str(), s,
                af::bench::spread(session_ms).c_str(), d, af::bench::spread(direct_ms).c_str(),
                d / s);
  std::fflush(stdout);
}

// -- MatMul ---------------------------------------------------------------------------------

void bench_matmul() {
  const std::int64_t n = 4096;
  const int reps = quick ? 5 : 20;
  const double flop = 2.0 * n * n * n;
  for (af::DType t : {af::DType::float32, af::DType::bfloat16}) {
    const bool bf16 = t == af::DType::bfloat16;
    const std::string name = bf16 ? "bfloat16" : "float32";
    // Through a session: operands are variables in GPU memory; the products are run as
    // targets (nothing fetched), so a step is the products and the step's own overhead.
    for (int per_step : {1, 8}) {
      af::Graph g;
      af::Operation products;
      std::vector<af::Variable> vars;
      {
        auto on_gpu = g.device("/device:GPU:0");
        auto a = af::random_uniform(g, af::Shape{n, n}, af::DType::float32, -0.5, 0.5, 1);
        auto b = af::random_uniform(g, af::Shape{n, n}, af::DType::float32, -0.5, 0.5, 2);
        vars.push_back(g.variable(bf16 ? af::cast(a, t) : a, {.name = "a"}));
        vars.push_back(g.variable(bf16 ? af::cast(b, t) : b, {.name = "b"}));
        std::vector<af::Operation> ops;
        for (int i = 0; i < per_step; ++i)
          ops.push_back(af::matmul(vars[0].value(), vars[1].value()).op());
        products = g.group(ops);
      }
      af::Session sess(g);
      for (auto& v : vars) sess.run(v.initializer());
      auto session_ms = time_ms(3, reps, [&] { sess.run(products); });
      for (auto& m : session_ms) m /= per_step;
      // Direct: the same products with cuBLAS on one stream, synchronised per call group.
      cublasHandle_t h;
      check(cublasCreate(&h), "cublasCreate");
      cudaStream_t stream;
      check(cudaStreamCreate(&stream), "cudaStreamCreate");
      check(cublasSetStream(h, stream), "cublasSetStream");
      void* a = device_random(static_cast<std::size_t>(n * n), bf16);
      void* b = device_random(static_cast<std::size_t>(n * n), bf16);
      void* c = nullptr;
      check(cudaMalloc(&c, static_cast<std::size_t>(n * n) * (bf16 ? 2 : 4)), "cudaMalloc");
      const float one = 1, zero = 0;
      const int N = static_cast<int>(n);
      auto direct_ms = time_ms(3, reps, [&] {
        for (int i = 0; i < per_step; ++i) {
          if (bf16)
            check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, b, CUDA_R_16BF, N, a,
                               CUDA_R_16BF, N, &zero, c, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT),
                  "cublasGemmEx");
          else
            check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one,
                              static_cast<const float*>(b), N, static_cast<const float*>(a), N,
                              &zero, static_cast<float*>(c), N),
                  "cublasSgemm");
        }
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      });
      for (auto& m : direct_ms) m /= per_step;
      print_row("P7 MatMul 4096^2 " + name + ", " + std::to_string(per_step) + "/step", session_ms,
                direct_ms, flop);
      cudaFree(a);
      cudaFree(b);
      cudaFree(c);
      cublasDestroy(h);
      cudaStreamDestroy(stream);
    }
  }
}

// -- Convolution ----------------------------------------------------------------------------

void bench_conv() {
  const int N = 32, H = 56, W = 56, C = 64, K = 64, R = 3, S = 3;
  const int reps = quick ? 5 : 20;
  const double flop = 2.0 * N * H * W * K * C * R * S;
  // Through a session: one op per step, and eight per step (the step's overhead shared).
  std::vector<double> session_ms[2][3];
  for (int variant = 0; variant < 2; ++variant) {
    const int per_step = variant == 0 ? 1 : 8;
    af::Graph g;
    std::vector<af::Operation> ops[3];
    std::vector<af::Variable> vars;
    {
      auto on_gpu = g.device("/device:GPU:0");
      auto x =
          g.variable(af::random_uniform(g, af::Shape{N, H, W, C}, af::DType::float32, -1, 1, 1),
                     {.name = "x"});
      auto w =
          g.variable(af::random_uniform(g, af::Shape{R, S, C, K}, af::DType::float32, -0.1, 0.1, 2),
                     {.name = "w"});
      auto dy =
          g.variable(af::random_uniform(g, af::Shape{N, H, W, K}, af::DType::float32, -1, 1, 3),
                     {.name = "dy"});
      vars = {x, w, dy};
      const std::vector<std::int64_t> strides{1, 1, 1, 1};
      auto input_sizes = g.constant(af::Tensor::from_vector<std::int32_t>({N, H, W, C}));
      auto filter_sizes = g.constant(af::Tensor::from_vector<std::int32_t>({R, S, C, K}));
      for (int i = 0; i < per_step; ++i) {
        ops[0].push_back(af::nn::conv2d(x.value(), w.value(), strides, "SAME").op());
        ops[1].push_back(
            af::nn::conv2d_backprop_input(input_sizes, w.value(), dy.value(), strides, "SAME")
                .op());
        ops[2].push_back(
            af::nn::conv2d_backprop_filter(x.value(), filter_sizes, dy.value(), strides, "SAME")
                .op());
      }
    }
    af::Session sess(g);
    for (auto& v : vars) sess.run(v.initializer());
    for (int k = 0; k < 3; ++k) {
      af::Operation step = g.group(ops[k]);
      session_ms[variant][k] = time_ms(3, reps, [&] { sess.run(step); });
      for (auto& m : session_ms[variant][k]) m /= per_step;
    }
  }

  // Direct cuDNN: NHWC data, KRSC filter, the first algorithm the v7 heuristic offers that
  // succeeds with a workspace of at most 1 GiB.
  cudnnHandle_t h;
  check(cudnnCreate(&h), "cudnnCreate");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  check(cudnnSetStream(h, stream), "cudnnSetStream");
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  check(cudnnCreateTensorDescriptor(&xd), "desc");
  check(cudnnCreateTensorDescriptor(&yd), "desc");
  check(cudnnCreateFilterDescriptor(&wd), "desc");
  check(cudnnCreateConvolutionDescriptor(&cd), "desc");
  check(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W), "x desc");
  check(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, K, H, W), "y desc");
  check(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, K, C, R, S), "w desc");
  check(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT),
        "conv desc");
  check(cudnnSetConvolutionMathType(cd, CUDNN_DEFAULT_MATH), "math type");
  float* x = static_cast<float*>(device_random(static_cast<std::size_t>(N) * H * W * C, false));
  float* w = static_cast<float*>(device_random(static_cast<std::size_t>(K) * R * S * C, false));
  float* dy = static_cast<float*>(device_random(static_cast<std::size_t>(N) * H * W * K, false));
  float *y = nullptr, *dx = nullptr, *dw = nullptr;
  check(cudaMalloc(&y, sizeof(float) * N * H * W * K), "cudaMalloc");
  check(cudaMalloc(&dx, sizeof(float) * N * H * W * C), "cudaMalloc");
  check(cudaMalloc(&dw, sizeof(float) * K * R * S * C), "cudaMalloc");
  const std::size_t max_ws = std::size_t{1} << 30;
  void* ws = nullptr;
  check(cudaMalloc(&ws, max_ws), "cudaMalloc workspace");
  const float one = 1, zero = 0;
  int found = 0;
  cudnnConvolutionFwdAlgoPerf_t fp[8];
  check(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &found, fp), "fwd heuristic");
  cudnnConvolutionFwdAlgo_t fa = fp[0].algo;
  for (int i = 0; i < found; ++i)
    if (fp[i].status == CUDNN_STATUS_SUCCESS && fp[i].memory <= max_ws) {
      fa = fp[i].algo;
      break;
    }
  cudnnConvolutionBwdDataAlgoPerf_t dp[8];
  check(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd, yd, cd, xd, 8, &found, dp),
        "bwd data heuristic");
  cudnnConvolutionBwdDataAlgo_t da = dp[0].algo;
  for (int i = 0; i < found; ++i)
    if (dp[i].status == CUDNN_STATUS_SUCCESS && dp[i].memory <= max_ws) {
      da = dp[i].algo;
      break;
    }
  cudnnConvolutionBwdFilterAlgoPerf_t wp[8];
  check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd, yd, cd, wd, 8, &found, wp),
        "bwd filter heuristic");
  cudnnConvolutionBwdFilterAlgo_t wa = wp[0].algo;
  for (int i = 0; i < found; ++i)
    if (wp[i].status == CUDNN_STATUS_SUCCESS && wp[i].memory <= max_ws) {
      wa = wp[i].algo;
      break;
    }
  auto sync = [&] { check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); };
  // Per call, `per` calls between synchronisations (as the session's steps).
  auto direct_ms = [&](int per, const std::function<void()>& call) {
    auto ms = time_ms(3, reps, [&] {
      for (int i = 0; i < per; ++i) call();
      sync();
    });
    for (auto& m : ms) m /= per;
    return ms;
  };
  std::vector<std::function<void()>> calls = {
      [&] {
        check(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, fa, ws, max_ws, &zero, yd, y),
              "forward");
      },
      [&] {
        check(
            cudnnConvolutionBackwardData(h, &one, wd, w, yd, dy, cd, da, ws, max_ws, &zero, xd, dx),
            "backward data");
      },
      [&] {
        check(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, dy, cd, wa, ws, max_ws, &zero, wd,
                                             dw),
              "backward filter");
      }};
  const char* names[3] = {"P7 Conv2D 3x3 N32 56x56x64->64 fwd",
                          "P7 Conv2DBackpropInput (same layer)",
                          "P7 Conv2DBackpropFilter (same layer)"};
  for (int variant = 0; variant < 2; ++variant)
    for (int k = 0; k < 3; ++k)
      print_row(std::string(names[k]) + (variant == 0 ? ", 1/step" : ", 8/step"),
                session_ms[variant][k],
                direct_ms(variant == 0 ? 1 : 8, calls[static_cast<std::size_t>(k)]), flop);
  // What the HWIO filter costs: a session's conv kernels first transpose TensorFlow's HWIO
  // filter to cuDNN's OHWI (a cuBLAS geam, as TensorFlow transforms its filter too). The
  // direct call with that transpose before it bounds what a session can reach.
  {
    cublasHandle_t blas;
    check(cublasCreate(&blas), "cublasCreate");
    check(cublasSetStream(blas, stream), "cublasSetStream");
    float* ohwi = nullptr;
    check(cudaMalloc(&ohwi, sizeof(float) * K * R * S * C), "cudaMalloc");
    const int hwi = R * S * C;
    auto transposed = [&] {
      check(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, hwi, K, &one, w, K, &zero, ohwi, hwi, ohwi,
                        hwi),
            "geam");
      check(cudnnConvolutionBackwardData(h, &one, wd, ohwi, yd, dy, cd, da, ws, max_ws, &zero, xd,
                                         dx),
            "backward data");
    };
    print_row("P7 Conv2DBackpropInput, 1/step, direct+transpose", session_ms[0][1],
              direct_ms(1, transposed), flop);
    cudaFree(ohwi);
    cublasDestroy(blas);
  }
  for (void* p : {static_cast<void*>(x), static_cast<void*>(w), static_cast<void*>(dy),
                  static_cast<void*>(y), static_cast<void*>(dx), static_cast<void*>(dw), ws})
    cudaFree(p);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroy(h);
  cudaStreamDestroy(stream);
}

// -- Step overhead --------------------------------------------------------------------------

void bench_step() {
  const int reps = quick ? 500 : 5000;
  auto median_step_us = [&](const char* device) {
    af::Graph g;
    af::Output c;
    {
      auto pinned = g.device(device);
      c = g.constant(1.0f, "a") + g.constant(2.0f, "b");
    }
    af::Session sess(g);
    auto ms = time_ms(200, reps, [&] { sess.run(c); });
    return ms;
  };
  auto gpu = median_step_us("/device:GPU:0");
  auto cpu = median_step_us("/cpu:0");
  const double gs = af::bench::median_of(gpu) * 1000, cs = af::bench::median_of(cpu) * 1000;
  std::printf(
      "GPU step overhead (c = a + b on GPU:0, fetched): median %.1f us; on CPU:0 %.1f us; ratio "
      "%.2fx\n",
      gs, cs, gs / cs);
  // The same kernel run as a target: the step's own cost without the fetch's copy, against a
  // direct launch of a kernel and a stream synchronisation.
  {
    af::Graph g;
    af::Operation target;
    {
      auto pinned = g.device("/device:GPU:0");
      target = (g.constant(1.0f, "a") + g.constant(2.0f, "b")).op();
    }
    af::Session sess(g);
    const double ts = af::bench::median_of(time_ms(200, reps, [&] { sess.run(target); })) * 1000;
    void* d = nullptr;
    check(cudaMalloc(&d, 4), "cudaMalloc");
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    const double ds =
        af::bench::median_of(time_ms(200, reps,
                                     [&] {
                                       check(cudaMemsetAsync(d, 0, 4, stream), "cudaMemsetAsync");
                                       check(cudaStreamSynchronize(stream), "sync");
                                     })) *
        1000;
    std::printf(
        "GPU step overhead (c = a + b on GPU:0, a target): median %.1f us; a memset + sync %.1f "
        "us\n",
        ts, ds);
    cudaFree(d);
    cudaStreamDestroy(stream);
  }
  std::fflush(stdout);
}

// -- Host <-> device copies -----------------------------------------------------------------

void bench_copy() {
  const std::int64_t count = 64 << 20;  // 256 MiB of float
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(float);
  const int reps = quick ? 5 : 15;
  const double gb = static_cast<double>(bytes) / 1e9;
  // Host -> device: feed a host tensor to a GPU op (a sum: 0.1 ms of 256 MiB at device speed).
  af::Graph g;
  af::Output fed, sum, held;
  af::Variable v;
  {
    auto on_gpu = g.device("/device:GPU:0");
    fed = g.placeholder(af::DType::float32, af::PartialShape{count}, "fed");
    sum = af::reduce_sum(fed);
    v = g.variable(af::random_uniform(g, af::Shape{count}, af::DType::float32, 0, 1, 1),
                   {.name = "held"});
    held = v.value();
  }
  af::Session sess(g);
  sess.run(v.initializer());
  af::Tensor host(af::DType::float32, af::Shape{count}, af::Tensor::for_overwrite);
  std::fill(host.data<float>(), host.data<float>() + count, 0.5f);
  auto h2d = time_ms(2, reps, [&] { sess.run(sum, {{fed, host}}); });
  af::Tensor pinned_host = af::pinned_host_tensor(af::DType::float32, af::Shape{count});
  std::fill(pinned_host.data<float>(), pinned_host.data<float>() + count, 0.5f);
  auto h2d_pinned = time_ms(2, reps, [&] { sess.run(sum, {{fed, pinned_host}}); });
  auto d2h = time_ms(2, reps, [&] { (void)sess.run(held); });
  // Direct: cudaMemcpyAsync to and from pinned memory on a stream of its own.
  void* pinned = nullptr;
  void* dev = nullptr;
  check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  std::memset(pinned, 0, bytes);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  auto direct_h2d = time_ms(2, reps, [&] {
    check(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, stream), "h2d");
    check(cudaStreamSynchronize(stream), "sync");
  });
  auto direct_d2h = time_ms(2, reps, [&] {
    check(cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, stream), "d2h");
    check(cudaStreamSynchronize(stream), "sync");
  });
  auto row = [&](const char* what, const std::vector<double>& s, const std::vector<double>& d) {
    const double sm = af::bench::median_of(s), dm = af::bench::median_of(d);
    std::printf(
        "%-44s session %.1f GB/s (%.2f ms, %s) cudaMemcpyAsync pinned %.1f GB/s (%.2f ms) ratio "
        "%.2fx\n",
        what, gb / sm * 1e3, sm, af::bench::spread(s).c_str(), gb / dm * 1e3, dm, dm / sm);
    std::fflush(stdout);
  };
  row("host->device 256 MiB (feed to a GPU op)", h2d, direct_h2d);
  row("host->device 256 MiB (feed, pinned_host_tensor)", h2d_pinned, direct_h2d);
  row("device->host 256 MiB (fetch a GPU variable)", d2h, direct_d2h);
  cudaFreeHost(pinned);
  cudaFree(dev);
  cudaStreamDestroy(stream);
}

// -- Where a pageable feed's time goes ------------------------------------------------------

/// The ceilings of a pageable host->device feed of 256 MiB, each the median of `reps`: a
/// pinned cudaMemcpyAsync, host memcpy into pinned memory by 1 and by every core's thread
/// (what staging can reach), the driver's own pageable cudaMemcpyAsync, and
/// cudaHostRegister + copy + unregister.
void bench_copy_probe() {
  const std::size_t bytes = std::size_t{256} << 20;
  const int reps = quick ? 5 : 11;
  const double gb = static_cast<double>(bytes) / 1e9;
  std::vector<char> pageable(bytes, 1);
  void* pinned = nullptr;
  void* dev = nullptr;
  check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  std::memset(pinned, 0, bytes);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto parallel_copy = [&](char* to, const char* from, std::size_t n, int threads) {
    std::vector<std::thread> pool;
    const std::size_t per = (n / threads + 4095) / 4096 * 4096;
    for (int t = 0; t < threads; ++t) {
      const std::size_t b = std::min(n, per * t), e = std::min(n, per * (t + 1));
      if (b < e) pool.emplace_back([=] { std::memcpy(to + b, from + b, e - b); });
    }
    for (auto& th : pool) th.join();
  };
  auto report = [&](const std::string& what, const std::vector<double>& ms) {
    const double m = af::bench::median_of(ms);
    std::printf("  %-52s %6.1f GB/s (%.2f ms, %s)\n", what.c_str(), gb / m * 1e3, m,
                af::bench::spread(ms).c_str());
    std::fflush(stdout);
  };
  std::printf("pageable host->device 256 MiB, where the time goes (%d cores):\n", cores);
  report("cudaMemcpyAsync from pinned memory", time_ms(2, reps, [&] {
           check(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, stream), "h2d");
           check(cudaStreamSynchronize(stream), "sync");
         }));
  report("memcpy pageable->pinned, 1 thread",
         time_ms(1, reps, [&] { std::memcpy(pinned, pageable.data(), bytes); }));
  report("memcpy pageable->pinned, " + std::to_string(cores) + " threads", time_ms(1, reps, [&] {
           parallel_copy(static_cast<char*>(pinned), pageable.data(), bytes, cores);
         }));
  report("cudaMemcpyAsync from pageable memory (the driver stages)", time_ms(2, reps, [&] {
           check(cudaMemcpyAsync(dev, pageable.data(), bytes, cudaMemcpyHostToDevice, stream),
                 "h2d");
           check(cudaStreamSynchronize(stream), "sync");
         }));
  report("cudaHostRegister + cudaMemcpyAsync + unregister", time_ms(1, reps, [&] {
           check(cudaHostRegister(pageable.data(), bytes, cudaHostRegisterDefault),
                 "cudaHostRegister");
           check(cudaMemcpyAsync(dev, pageable.data(), bytes, cudaMemcpyHostToDevice, stream),
                 "h2d");
           check(cudaStreamSynchronize(stream), "sync");
           check(cudaHostUnregister(pageable.data()), "cudaHostUnregister");
         }));
  cudaFreeHost(pinned);
  cudaFree(dev);
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) {
  std::string which = "all";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: actorflow-bench-gpu [all|mm|conv|step|copy|copyprobe] [--quick]\n");
      return 0;
    } else
      which = argv[i];
  }
  auto gpus = af::list_gpus();
  if (gpus.empty()) {
    std::fprintf(stderr, "actorflow-bench-gpu: no GPU visible: %s\n",
                 af::gpu_unavailable_reason().c_str());
    return 1;
  }
  std::printf("device: %s\n", gpus[0].name.c_str());
  if (which == "all" || which == "step") bench_step();
  if (which == "all" || which == "copy") bench_copy();
  if (which == "all" || which == "copyprobe") bench_copy_probe();
  if (which == "all" || which == "mm") bench_matmul();
  if (which == "all" || which == "conv") bench_conv();
  return 0;
}
