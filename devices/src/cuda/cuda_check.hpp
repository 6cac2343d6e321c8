// Errors of CUDA, cuBLAS and cuDNN calls as actorflow Statuses naming the call and
// file:line (Internal; out-of-memory is ResourceExhausted).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "actorflow/ops/status.hpp"
#include "cuda_libraries.hpp"

namespace af::gpu {

inline Status cuda_status(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return {};
  std::string m = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  return e == cudaErrorMemoryAllocation ? resource_exhausted(m) : internal(m);
}

inline Status cublas_status(cublasStatus_t e, const char* call, const char* file, int line) {
  if (e == CUBLAS_STATUS_SUCCESS) return {};
  std::string m = std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                  ": cuBLAS status " + std::to_string(static_cast<int>(e));
  return e == CUBLAS_STATUS_ALLOC_FAILED ? resource_exhausted(m) : internal(m);
}

inline Status cudnn_status(cudnnStatus_t e, const char* call, const char* file, int line) {
  if (e == CUDNN_STATUS_SUCCESS) return {};
  return internal(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cuda_libraries().cudnnGetErrorString(e));
}

}  // namespace af::gpu

#define ACTORFLOW_CUDA(call) ::af::gpu::cuda_status((call), #call, __FILE__, __LINE__)
#define ACTORFLOW_CUBLAS(call) ::af::gpu::cublas_status((call), #call, __FILE__, __LINE__)
#define ACTORFLOW_CUDNN(call) ::af::gpu::cudnn_status((call), #call, __FILE__, __LINE__)
