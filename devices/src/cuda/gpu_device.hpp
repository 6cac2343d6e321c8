// The CUDA device: process-wide state per GPU (streams, library handles, allocators), the
// context GPU kernels see, and the Device the executor drives. Private to the devices
// module; no CUDA type leaves it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actorflow/actors/device.hpp"
#include "actorflow/devices/bfc_allocator.hpp"
#include "actorflow/devices/gpu_options.hpp"
#include "actorflow/ops/kernel.hpp"

namespace af::gpu {

/// One GPU's process-wide state: created by the first session that uses the GPU (its
/// gpu_options win, as in TensorFlow) and kept while the process lives. Kernels of every
/// session run on `compute`; host-to-device and device-to-host copies have streams of
/// their own and are ordered against compute with events.
class GpuState {
 public:
  /// The state of CUDA device `cuda_id`, created with `options` on first use.
  /// ResourceExhausted when the memory the options ask for cannot be reserved.
  static StatusOr<std::shared_ptr<GpuState>> get(int cuda_id, const GPUOptions& options);
  ~GpuState();

  int cuda_id = 0;
  std::string allocator_name;  ///< "GPU_0_bfc"
  cudaStream_t compute = nullptr;
  cudaStream_t host_to_device = nullptr;
  cudaStream_t device_to_host = nullptr;
  cublasHandle_t cublas = nullptr;
  cudnnHandle_t cudnn = nullptr;
  /// Device memory under gpu_options.
  std::unique_ptr<BFCAllocator> allocator;
  /// Pinned host memory for copies (grows on demand up to 64 GiB, like cuda_host_bfc).
  std::unique_ptr<BFCAllocator> pinned;
  /// Guards the library handles and the cuDNN workspace: sessions' device actors share them.
  std::mutex library_mu;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  /// The cuDNN convolution algorithm (and its workspace bytes) chosen per layer shape, so the
  /// heuristic runs once per shape (with `library_mu` held).
  std::map<std::string, std::pair<int, std::size_t>> conv_algorithms;

  /// Makes `ordered` wait for the work enqueued on `first` so far.
  Status order_after(cudaStream_t first, cudaStream_t ordered);
  /// Grows the cuDNN workspace to `bytes` (with `library_mu` held).
  Status ensure_workspace(std::size_t bytes);
};

/// What GPU kernels see through `OpKernelContext::device_context`.
class GpuDevice;

class GpuDeviceContext : public DeviceContext {
 public:
  /// The device this context belongs to (its copies).
  GpuDevice* owner = nullptr;

  GpuDeviceContext(std::shared_ptr<GpuState> state, std::string device_name)
      : state_(std::move(state)), device_name_(std::move(device_name)) {}

  GpuState& state() noexcept { return *state_; }
  cudaStream_t stream() const noexcept { return state_->compute; }
  const std::string& device_name() const noexcept { return device_name_; }

  /// A device tensor of `dtype` and `shape` from the GPU's allocator (contents undefined).
  /// int32 tensors stay in host memory, as TensorFlow keeps them on GPU devices.
  /// ResourceExhausted (TensorFlow's OOM message) when the allocator has no room.
  Status allocate(DType dtype, const Shape& shape, Tensor* out);
  /// Allocates output `i` of `ctx`.
  Status allocate_output(OpKernelContext& ctx, int i, DType dtype, const Shape& shape,
                         Tensor** out);
  /// A device tensor holding `host`'s bytes, copied on the compute stream (kernels use it
  /// after). Device tensors and int32 tensors pass through.
  Status to_device(const Tensor& host, Tensor* out);

 private:
  std::shared_ptr<GpuState> state_;
  std::string device_name_;
};

/// `/device:GPU:N`: a Device whose kernels enqueue on the GPU's compute stream and whose
/// partitions finish when that stream has caught up (a host callback, by message).
class GpuDevice : public Device {
 public:
  GpuDevice(DeviceAttributes attributes, std::shared_ptr<GpuState> state,
            std::shared_ptr<ThreadPools> pools);

  void schedule(std::function<void()> fn) override;
  Eigen::ThreadPoolDevice* intra_op_device() noexcept override;
  int intra_op_threads() const noexcept override;

  DeviceContext* device_context() noexcept override { return &context_; }
  bool is_accelerator() const noexcept override { return true; }
  void copy_to_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) override;
  void copy_from_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) override;
  void sync(std::function<void(Status)> done) override;
  StatusOr<Tensor> start_copy_to_host(const Tensor& value) override;
  std::optional<Status> try_sync_now(std::chrono::steady_clock::time_point deadline) override;

 private:
  /// A host buffer of `bytes` for a copy out: pinned, or pageable when pinned memory is
  /// exhausted (a slower copy); the host tensor of `value`'s dtype and shape over it.
  Tensor host_buffer_for(const Tensor& value);
  /// The first asynchronous error of work enqueued earlier (a faulting kernel), cleared.
  Status sticky_error();

  std::shared_ptr<GpuState> state_;
  std::shared_ptr<ThreadPools> pools_;
  GpuDeviceContext context_;
};

/// The element type of the CUDA kernels for `dtype` (false for string/resource/int32).
bool is_device_type(DType dtype) noexcept;

/// Registers the GPU kernels (called once by the GPU device factory).
void register_gpu_kernels(KernelRegistry& r);

}  // namespace af::gpu
