// cuBLAS and cuDNN opened at run time: a process maps them only once it creates a GPU device.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af::gpu {

// The entry points actorflow calls, by their exported names (cublas_v2.h maps cublasSgemm
// to cublasSgemm_v2 and so on). cublasGemmEx, which cublas_api.h overloads for C++, is a
// member of its own.
#define ACTORFLOW_CUBLAS_FUNCTIONS(F) \
  F(cublasCreate_v2)                  \
  F(cublasDestroy_v2)                 \
  F(cublasSetStream_v2)               \
  F(cublasSgemm_v2)                   \
  F(cublasDgemm_v2)                   \
  F(cublasSgeam)                      \
  F(cublasDgeam)

#define ACTORFLOW_CUDNN_FUNCTIONS(F)               \
  F(cudnnCreate)                                   \
  F(cudnnDestroy)                                  \
  F(cudnnSetStream)                                \
  F(cudnnGetErrorString)                           \
  F(cudnnCreateTensorDescriptor)                   \
  F(cudnnDestroyTensorDescriptor)                  \
  F(cudnnSetTensor4dDescriptor)                    \
  F(cudnnCreateFilterDescriptor)                   \
  F(cudnnDestroyFilterDescriptor)                  \
  F(cudnnSetFilter4dDescriptor)                    \
  F(cudnnCreateConvolutionDescriptor)              \
  F(cudnnDestroyConvolutionDescriptor)             \
  F(cudnnSetConvolution2dDescriptor)               \
  F(cudnnSetConvolutionMathType)                   \
  F(cudnnGetConvolutionForwardAlgorithm_v7)        \
  F(cudnnGetConvolutionBackwardDataAlgorithm_v7)   \
  F(cudnnGetConvolutionBackwardFilterAlgorithm_v7) \
  F(cudnnConvolutionForward)                       \
  F(cudnnConvolutionBackwardData)                  \
  F(cudnnConvolutionBackwardFilter)                \
  F(cudnnSoftmaxForward)

/// cuBLAS and cuDNN, resolved with dlopen/dlsym the first time a GPU device is created (as
/// TensorFlow's DSO loader does). Linking them instead maps several hundred MB into every
/// process of a CUDA build, GPU or not.
struct CudaLibraries {
#define ACTORFLOW_CUDA_LIBRARY_MEMBER(fn) decltype(&::fn) fn = nullptr;
  ACTORFLOW_CUBLAS_FUNCTIONS(ACTORFLOW_CUDA_LIBRARY_MEMBER)
  ACTORFLOW_CUDNN_FUNCTIONS(ACTORFLOW_CUDA_LIBRARY_MEMBER)
#undef ACTORFLOW_CUDA_LIBRARY_MEMBER
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                 int, const void*, const void*, cudaDataType, int, const void*,
                                 cudaDataType, int, const void*, void*, cudaDataType, int,
                                 cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

/// Opens cuBLAS and cuDNN once per process (thread-safe; later calls return the first
/// outcome): FailedPrecondition naming the library or symbol and the loader's message when
/// one cannot be opened.
StatusOr<const CudaLibraries*> load_cuda_libraries();

/// The opened libraries. Only after `load_cuda_libraries()` succeeded (a GPU device exists).
const CudaLibraries& cuda_libraries();

/// Whether this process has opened them (for tests of the lazy loading).
bool cuda_libraries_loaded() noexcept;

}  // namespace af::gpu
