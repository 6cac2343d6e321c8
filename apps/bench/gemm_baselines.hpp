// OpenBLAS's and oneDNN's sgemm called directly, for the benchmarks' baselines: opened with
// dlopen on first use, as actorflow opens them (kernels/src/cpu_gemm.cpp). Linking
// OpenBLAS would start its thread pool with the process, whose threads spin (sched_yield) on
// the second core while the session under test runs: MM measured half its speed in one
// process out of two that way.
#pragma once

#include <dlfcn.h>

#include <cstdint>

namespace af::bench {

/// cblas_sgemm (row-major: order 101, no transpose 111, transpose 112) and
/// openblas_set_num_threads, or null when OpenBLAS is not installed.
struct OpenBlasBaseline {
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                float*, int) = nullptr;
  void (*set_num_threads)(int) = nullptr;
  void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
            const float* b, int ldb, float beta, float* c, int ldc) const {
    sgemm(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};
inline const OpenBlasBaseline* openblas_baseline() {
  static const OpenBlasBaseline blas = [] {
    OpenBlasBaseline b;
    void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return b;
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(lib, "cblas_sgemm"));
    b.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
    return b;
  }();
  return blas.sgemm && blas.set_num_threads ? &blas : nullptr;
}

/// dnnl_sgemm (row-major), or null when libdnnl is not installed.
using DnnlSgemm = int (*)(char, char, std::int64_t, std::int64_t, std::int64_t, float, const float*,
                          std::int64_t, const float*, std::int64_t, float, float*, std::int64_t);
inline DnnlSgemm dnnl_sgemm_fn() {
  static DnnlSgemm fn = [] {
    void* lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libdnnl.so.3", RTLD_NOW | RTLD_LOCAL);
    return lib ? reinterpret_cast<DnnlSgemm>(dlsym(lib, "dnnl_sgemm")) : nullptr;
  }();
  return fn;
}

/// oneDNN's threads for calls from this thread (Debian builds it on OpenMP).
inline void set_dnnl_threads(int threads) {
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
  if (auto set =
          gomp ? reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads")) : nullptr)
    set(threads);
}

}  // namespace af::bench
