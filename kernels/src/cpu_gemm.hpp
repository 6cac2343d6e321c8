// Matrix products on the CPU through the fastest library the machine has, loaded at run time.
#pragma once

#include <cstdint>

namespace Eigen {
class ThreadPoolDevice;
}

namespace af::detail {

/// out[m,n] = op(a) * op(b), row-major; `a` is [m,k] (or [k,m] when `ta`), `b` is [k,n] (or
/// [n,k] when `tb`), with `threads` threads (the calling kernel's intra-op threads, `pool` its
/// intra-op pool, may be null). False when no library is there: the caller computes with Eigen.
///
/// float goes to oneDNN's sgemm (Debian's libdnnl2), else OpenBLAS (libopenblas0); double to
/// OpenBLAS. Both are opened with dlopen on the first product, never linked: a process that
/// multiplies no matrices maps neither, and neither is needed to build or run actorflow.
/// ACTORFLOW_GEMM=openblas or =eigen (read once) chooses a library for comparisons.
bool cpu_gemm(const float* a, const float* b, float* out, std::int64_t m, std::int64_t n,
              std::int64_t k, bool ta, bool tb, int threads,
              Eigen::ThreadPoolDevice* pool = nullptr);
bool cpu_gemm(const double* a, const double* b, double* out, std::int64_t m, std::int64_t n,
              std::int64_t k, bool ta, bool tb, int threads);

/// The library float products use: "onednn", "openblas" or "eigen" (loads them if needed).
const char* cpu_gemm_library();

}  // namespace af::detail
