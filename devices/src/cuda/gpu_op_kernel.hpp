// What the GPU op kernels share (gpu_ops.cpp, gpu_nn_ops.cpp, gpu_training_ops.cpp): the
// kernel base class, element types, launch errors, reductions with scratch memory and the
// registration helper. Every kernel enqueues on the device's compute stream and returns at
// once (stream order keeps dependent kernels in order); the partition finishes when the
// stream has caught up. int32 tensors stay in host memory on a GPU device (TensorFlow's
// HostMemory convention): shapes, axes and sizes arrive readable by the host.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cuda_check.hpp"
#include "cuda_libraries.hpp"
#include "gpu_device.hpp"
#include "gpu_kernels.hpp"

namespace af::gpu {

/// The element type of the CUDA kernels for `t`.
inline ElemType elem_type(DType t) {
  switch (t) {
    case DType::float32:
      return ElemType::f32;
    case DType::float64:
      return ElemType::f64;
    case DType::bfloat16:
      return ElemType::bf16;
    case DType::int64:
      return ElemType::i64;
    case DType::uint8:
      return ElemType::u8;
    default:
      return ElemType::boolean;
  }
}

/// A kernel whose work runs on the GPU: `compute_gpu` enqueues it and returns.
class GpuOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) final {
    auto* g = dynamic_cast<GpuDeviceContext*>(ctx.device_context);
    if (g == nullptr)
      return ctx.fail(internal("GPU kernel " + type() + " ran without a GPU device context"));
    cudaSetDevice(g->state().cuda_id);
    Status s = compute_gpu(ctx, *g);
    if (!s.ok()) ctx.fail(s);
  }
  virtual Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) = 0;

 protected:
  // Input `i` in device memory (a host tensor is copied in on the compute stream).
  static Status device_input(OpKernelContext& ctx, GpuDeviceContext& g, int i, Tensor* out) {
    return g.to_device(ctx.input(i), out);
  }
};

/// The status of a kernel launch (`what` names it).
inline Status launch(cudaError_t e, const char* what) {
  return cuda_status(e, what, __FILE__, __LINE__);
}

// launch_reduce with the scratch memory it asks for. The scratch goes back to the allocator
// when this returns, with the kernels still queued: only later work on the compute stream
// (ordered after them) or a copy ordered after it (copy_from_host) can reuse it.
Status reduce_on_device(GpuDeviceContext& g, ReduceKind kind, DType t, const void* in, void* out,
                        std::int64_t outer, std::int64_t reduce, std::int64_t inner, double scale,
                        const char* what);

/// Floating-point types with bfloat16, and without.
inline const std::vector<DType> kFloat = {DType::float32, DType::float64, DType::bfloat16};
inline const std::vector<DType> kFloatOrDouble = {DType::float32, DType::float64};

/// Registers kernel class `K` for `op` on GPUs with type constraints `c`.
template <class K>
void add(KernelRegistry& r, const std::string& op,
         std::vector<std::pair<std::string, std::vector<DType>>> c = {}) {
  r.add(make_kernel_def<K>(op, "GPU", std::move(c)));
}

/// The kernels of gpu_nn_ops.cpp (MatMul, cuDNN, pooling, losses) and gpu_training_ops.cpp
/// (the Apply* updates); register_gpu_kernels calls them.
void register_gpu_nn_kernels(KernelRegistry& r);
void register_gpu_training_kernels(KernelRegistry& r);

}  // namespace af::gpu
