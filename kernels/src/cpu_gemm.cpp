#include "cpu_gemm.hpp"

#define EIGEN_USE_THREADS
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <unsupported/Eigen/CXX11/Tensor>

namespace af::detail {

namespace {

// cblas.h's enums and oneDNN's sgemm, declared here so that neither header is needed.
enum CblasOrder { kRowMajor = 101 };
enum CblasTranspose { kNoTrans = 111, kTrans = 112 };
using cblas_sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int,
                                const float*, int, float, float*, int);
using cblas_dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int,
                                const double*, int, double, double*, int);
// dnnl_status_t dnnl_sgemm(char transa, char transb, dnnl_dim_t M, N, K, float alpha, const float*
// A,
//                          dnnl_dim_t lda, const float* B, dnnl_dim_t ldb, float beta, float* C,
//                          dnnl_dim_t ldc),
// row-major (oneapi/dnnl/dnnl.h).
using dnnl_sgemm_fn = int (*)(char, char, std::int64_t, std::int64_t, std::int64_t, float,
                              const float*, std::int64_t, const float*, std::int64_t, float, float*,
                              std::int64_t);

void* open_first(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
  return nullptr;
}

/// OpenBLAS, loaded on the first product that needs it: loading it starts its thread pool,
/// whose threads spin (sched_yield) for about 0.1 s before they sleep, in every process,
/// matmul or not (measured: 17% of the CPU of a short csv_pipeline run).
struct OpenBlas {
  cblas_sgemm_fn sgemm = nullptr;
  cblas_dgemm_fn dgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;

  // Debian's OpenBLAS 0.3.21 does not know AMD's AVX-512 cores (Zen 4 and later) and runs
  // its Haswell (AVX2) kernels there; its SkylakeX kernels need only AVX-512 F/CD/BW/DQ/VL,
  // which those cores have, and are clearly faster on a training step's products. The
  // choice is made when the library loads; a user's OPENBLAS_CORETYPE wins.
  static void prefer_avx512_kernels() {
#if defined(__x86_64__) && defined(__GNUC__)
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
    __builtin_cpu_init();
    if (__builtin_cpu_is("amd") && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      ::setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
#endif
  }

  /// Null when OpenBLAS cannot be loaded.
  static const OpenBlas* get(int threads) {
    static OpenBlas blas;
    static std::once_flag loaded;
    std::call_once(loaded, [threads] {
      prefer_avx512_kernels();
      void* lib = open_first({"libopenblas.so.0", "libopenblas.so"});
      if (lib == nullptr) return;
      blas.sgemm = reinterpret_cast<cblas_sgemm_fn>(dlsym(lib, "cblas_sgemm"));
      blas.dgemm = reinterpret_cast<cblas_dgemm_fn>(dlsym(lib, "cblas_dgemm"));
      blas.set_num_threads =
          reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
      if (blas.set_num_threads) blas.set_num_threads(threads);
    });
    return blas.sgemm && blas.dgemm ? &blas : nullptr;
  }
};

template <class T>
bool openblas_gemm(const T* a, const T* b, T* out, std::int64_t m, std::int64_t n, std::int64_t k,
                   bool ta, bool tb, int threads) {
  const OpenBlas* blas = OpenBlas::get(threads);
  if (blas == nullptr) return false;
  // OpenBLAS's thread count is process-wide: it follows the calling kernel's intra-op
  // threads. One thread computes on the caller, so such products may run side by side on
  // the inter-op threads. A multi-threaded product takes OpenBLAS's whole pool: two of them
  // at once would spin in exec_blas_async waiting for each other's workers (a two-thread
  // training step took four times as long), so they run one at a time.
  static std::shared_mutex pool_mu;
  static std::atomic<int> current_threads{-1};
  std::unique_lock<std::shared_mutex> exclusive(pool_mu, std::defer_lock);
  std::shared_lock<std::shared_mutex> shared(pool_mu, std::defer_lock);
  if (threads > 1 || current_threads.load(std::memory_order_relaxed) != threads) {
    exclusive.lock();
    if (blas->set_num_threads && current_threads.load(std::memory_order_relaxed) != threads) {
      blas->set_num_threads(threads);
      current_threads.store(threads, std::memory_order_relaxed);
    }
    if (threads == 1) {  // single-threaded products may share the library
      exclusive.unlock();
      shared.lock();
    }
  } else {
    shared.lock();
  }
  const int op_a = ta ? kTrans : kNoTrans, op_b = tb ? kTrans : kNoTrans;
  const auto lda = static_cast<int>(ta ? m : k), ldb = static_cast<int>(tb ? k : n);
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>)
    blas->sgemm(kRowMajor, op_a, op_b, mi, ni, ki, 1.0f, a, lda, b, ldb, 0.0f, out, ni);
  else
    blas->dgemm(kRowMajor, op_a, op_b, mi, ni, ki, 1.0, a, lda, b, ldb, 0.0, out, ni);
  return true;
}

/// oneDNN's sgemm: its AVX-512 kernels (the ones TensorFlow's CPU build multiplies with) are
/// faster than OpenBLAS's on a training step's products. Debian builds it
/// on OpenMP: a multi-threaded product runs on its OpenMP team when no other one does, else
/// it is split into blocks of rows (or columns) that the intra-op pool computes with one
/// OpenMP thread each (see onednn_gemm).
struct OneDnn {
  dnnl_sgemm_fn sgemm = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;

  static const OneDnn* get() {
    static OneDnn dnnl;
    static std::once_flag loaded;
    std::call_once(loaded, [] {
      void* lib = open_first({"libdnnl.so.3", "libdnnl.so.2", "libdnnl.so"});
      if (lib == nullptr) return;
      void* gomp = open_first({"libgomp.so.1"});
      dnnl.omp_set_num_threads =
          gomp ? reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads")) : nullptr;
      if (dnnl.omp_set_num_threads == nullptr) return;  // no way to bound its threads
      dnnl.sgemm = reinterpret_cast<dnnl_sgemm_fn>(dlsym(lib, "dnnl_sgemm"));
    });
    return dnnl.sgemm ? &dnnl : nullptr;
  }
};

/// Sets the calling thread's OpenMP team size for oneDNN (cached: the call is not free).
void set_team_size(const OneDnn& dnnl, int threads) {
  thread_local int current = 0;
  if (current != threads) {
    dnnl.omp_set_num_threads(threads);
    current = threads;
  }
}

/// One single-threaded oneDNN product of the block rows [r0, r1) and columns [c0, c1) of `out`.
bool onednn_block(const OneDnn& dnnl, const float* a, const float* b, float* out, std::int64_t m,
                  std::int64_t n, std::int64_t k, bool ta, bool tb, std::int64_t r0,
                  std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  set_team_size(dnnl, 1);
  const float* ab = ta ? a + r0 : a + r0 * k;  // a is [k,m] or [m,k]
  const float* bb = tb ? b + c0 * k : b + c0;  // b is [n,k] or [k,n]
  return dnnl.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', r1 - r0, c1 - c0, k, 1.0f, ab, ta ? m : k, bb,
                    tb ? k : n, 0.0f, out + r0 * n + c0, n) == 0;
}

// Products smaller than this many multiply-adds stay on one thread (a block costs a wake-up).
constexpr std::int64_t kSplitWork = std::int64_t{1} << 20;

bool onednn_gemm(const float* a, const float* b, float* out, std::int64_t m, std::int64_t n,
                 std::int64_t k, bool ta, bool tb, int threads, Eigen::ThreadPoolDevice* pool) {
  const OneDnn* dnnl = OneDnn::get();
  if (dnnl == nullptr) return false;
  const std::int64_t work = m * n * k;
  // One product at a time runs on oneDNN's own OpenMP team of `threads`, which shares its
  // packing and blocking across the team: a two-thread training step is faster so than with
  // the product split into row blocks on the intra-op pool. A
  // product that comes while a team computes (another inter-op thread) is split on the
  // intra-op pool instead, so teams never pile up on the same cores.
  static std::atomic<int> teams{0};
  if (threads > 1 && work >= kSplitWork) {
    if (teams.fetch_add(1, std::memory_order_acq_rel) == 0) {
      set_team_size(*dnnl, threads);
      const bool ok = dnnl->sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, ta ? m : k, b,
                                  tb ? k : n, 0.0f, out, n) == 0;
      teams.fetch_sub(1, std::memory_order_acq_rel);
      return ok;
    }
    teams.fetch_sub(1, std::memory_order_acq_rel);
  }
  int blocks = pool == nullptr ? 1 : std::min<int>(threads, pool->numThreadsInPool() + 1);
  if (work < kSplitWork) blocks = 1;
  // Split the longer side of `out`, in multiples of 16 (a cache line of floats, and a
  // multiple of the kernels' register blocks).
  const bool by_rows = m >= n;
  const std::int64_t side = by_rows ? m : n;
  blocks = static_cast<int>(std::min<std::int64_t>(blocks, std::max<std::int64_t>(1, side / 16)));
  if (blocks <= 1) return onednn_block(*dnnl, a, b, out, m, n, k, ta, tb, 0, m, 0, n);
  const std::int64_t step = (side / blocks + 15) / 16 * 16;
  std::atomic<bool> ok{true};
  auto block = [&](int i) {
    const std::int64_t lo = std::min(side, i * step),
                       hi = i + 1 == blocks ? side : std::min(side, (i + 1) * step);
    if (lo >= hi) return;
    bool r = by_rows ? onednn_block(*dnnl, a, b, out, m, n, k, ta, tb, lo, hi, 0, n)
                     : onednn_block(*dnnl, a, b, out, m, n, k, ta, tb, 0, m, lo, hi);
    if (!r) ok = false;
  };
  Eigen::Barrier barrier(static_cast<unsigned>(blocks - 1));
  for (int i = 1; i < blocks; ++i) pool->enqueue_with_barrier(&barrier, block, i);
  block(0);  // the calling thread takes the first block
  barrier.Wait();
  return ok;
}

enum class Choice { any, openblas, eigen };

Choice choice() {
  static const Choice c = [] {
    const char* env = std::getenv("ACTORFLOW_GEMM");
    if (env == nullptr) return Choice::any;
    if (std::strcmp(env, "openblas") == 0) return Choice::openblas;
    if (std::strcmp(env, "eigen") == 0) return Choice::eigen;
    return Choice::any;
  }();
  return c;
}

}  // namespace

bool cpu_gemm(const float* a, const float* b, float* out, std::int64_t m, std::int64_t n,
              std::int64_t k, bool ta, bool tb, int threads, Eigen::ThreadPoolDevice* pool) {
  const Choice c = choice();
  if (c == Choice::eigen) return false;
  if (c == Choice::any && onednn_gemm(a, b, out, m, n, k, ta, tb, threads, pool)) return true;
  return openblas_gemm(a, b, out, m, n, k, ta, tb, threads);
}

bool cpu_gemm(const double* a, const double* b, double* out, std::int64_t m, std::int64_t n,
              std::int64_t k, bool ta, bool tb, int threads) {
  if (choice() == Choice::eigen) return false;
  return openblas_gemm(a, b, out, m, n, k, ta, tb, threads);
}

const char* cpu_gemm_library() {
  const Choice c = choice();
  if (c == Choice::eigen) return "eigen";
  if (c == Choice::any && OneDnn::get() != nullptr) return "onednn";
  return OpenBlas::get(1) != nullptr ? "openblas" : "eigen";
}

}  // namespace af::detail
