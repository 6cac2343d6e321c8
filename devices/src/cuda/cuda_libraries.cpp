#include "cuda_libraries.hpp"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>

namespace af::gpu {

namespace {

CudaLibraries libraries;
std::atomic<bool> loaded{false};

// The library's versioned name first (the one the headers were written for), then the
// development symlink.
void* open_library(const std::string& base, int major, Status* error) {
  const std::string versioned = base + ".so." + std::to_string(major);
  if (void* h = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const char* why = dlerror();
  const std::string first = why ? why : "not found";
  if (void* h = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  *error = failed_precondition("cannot open " + versioned + " for the GPU devices: " + first +
                               " (is its directory on LD_LIBRARY_PATH?)");
  return nullptr;
}

template <class Fn>
bool resolve(void* library, const char* library_name, const char* symbol, Fn* out, Status* error) {
  *out = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (*out == nullptr)
    *error = failed_precondition(std::string(library_name) + " has no symbol " + symbol);
  return *out != nullptr;
}

Status load() {
  Status error;
  void* cublas = open_library("libcublas", CUBLAS_VER_MAJOR, &error);
  if (!cublas) return error;
  void* cudnn = open_library("libcudnn", CUDNN_MAJOR, &error);
  if (!cudnn) return error;
#define ACTORFLOW_RESOLVE_CUBLAS(fn) \
  if (!resolve(cublas, "libcublas", #fn, &libraries.fn, &error)) return error;
#define ACTORFLOW_RESOLVE_CUDNN(fn) \
  if (!resolve(cudnn, "libcudnn", #fn, &libraries.fn, &error)) return error;
  ACTORFLOW_CUBLAS_FUNCTIONS(ACTORFLOW_RESOLVE_CUBLAS)
  ACTORFLOW_RESOLVE_CUBLAS(cublasGemmEx)
  ACTORFLOW_CUDNN_FUNCTIONS(ACTORFLOW_RESOLVE_CUDNN)
#undef ACTORFLOW_RESOLVE_CUBLAS
#undef ACTORFLOW_RESOLVE_CUDNN
  return {};
}

}  // namespace

StatusOr<const CudaLibraries*> load_cuda_libraries() {
  static std::once_flag once;
  static Status outcome;
  std::call_once(once, [] {
    outcome = load();
    loaded = outcome.ok();
  });
  if (!outcome.ok()) return outcome;
  return &libraries;
}

const CudaLibraries& cuda_libraries() { return libraries; }

bool cuda_libraries_loaded() noexcept { return loaded; }

}  // namespace af::gpu
