#include "gpu_device.hpp"

#define EIGEN_USE_THREADS
#include <algorithm>
#include <cstring>
#include <map>
#include <thread>
#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/actors/session.hpp"
#include "actorflow/devices/gpu_device.hpp"
#include "cuda_check.hpp"
#include "cuda_libraries.hpp"

namespace af {

namespace gpu {

namespace {

constexpr std::size_t kPinnedLimit = std::size_t{64} << 30;
// Host-to-device copies stage and send this much at a time; slices of at least
// kParallelStaging bytes are staged by the intra-op threads together.
constexpr std::size_t kStagingSlice = std::size_t{16} << 20;
constexpr std::size_t kParallelStaging = std::size_t{1} << 20;

class CudaSubAllocator : public SubAllocator {
 public:
  explicit CudaSubAllocator(int cuda_id) : cuda_id_(cuda_id) {}
  void* alloc(std::size_t bytes) override {
    cudaSetDevice(cuda_id_);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // clear the error: running out is an answer, not a failure
      return nullptr;
    }
    return p;
  }
  void free(void* p, std::size_t) override {
    cudaSetDevice(cuda_id_);
    cudaFree(p);
  }

 private:
  int cuda_id_;
};

class PinnedSubAllocator : public SubAllocator {
 public:
  void* alloc(std::size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void free(void* p, std::size_t) override { cudaFreeHost(p); }
};

// Runs a closure from a stream's host callback (no CUDA calls allowed inside).
void CUDART_CB run_closure(void* data) {
  std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(data));
  (*fn)();
}

Status enqueue_host_callback(cudaStream_t stream, std::function<void()> fn) {
  auto* heap = new std::function<void()>(std::move(fn));
  Status s = ACTORFLOW_CUDA(cudaLaunchHostFunc(stream, run_closure, heap));
  if (!s.ok()) delete heap;
  return s;
}

std::mutex& states_mu() {
  static std::mutex mu;
  return mu;
}
std::map<int, std::shared_ptr<GpuState>>& states() {
  static auto* m = new std::map<int, std::shared_ptr<GpuState>>();  // lives to process exit
  return *m;
}

}  // namespace

bool is_device_type(DType dtype) noexcept {
  switch (dtype) {
    case DType::float32:
    case DType::float64:
    case DType::bfloat16:
    case DType::int64:
    case DType::uint8:
    case DType::boolean:
      return true;
    default:
      return false;
  }
}

StatusOr<std::shared_ptr<GpuState>> GpuState::get(int cuda_id, const GPUOptions& options) {
  std::lock_guard<std::mutex> guard(states_mu());
  if (auto it = states().find(cuda_id); it != states().end()) return it->second;
  auto state = std::make_shared<GpuState>();
  state->cuda_id = cuda_id;
  state->allocator_name = "GPU_" + std::to_string(cuda_id) + "_bfc";
  ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDA(cudaSetDevice(cuda_id)));
  if (auto libraries = load_cuda_libraries(); !libraries.ok()) return libraries.status();
  std::size_t free = 0, total = 0;
  ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDA(cudaMemGetInfo(&free, &total)));
  auto limit = gpu_memory_limit(options, total, free);
  if (!limit.ok()) return limit.status();
  state->allocator =
      std::make_unique<BFCAllocator>(std::make_unique<CudaSubAllocator>(cuda_id), *limit,
                                     options.allow_growth, state->allocator_name);
  if (Status s = state->allocator->reserve(); !s.ok())
    return resource_exhausted(s.message() + "; GPU " + std::to_string(cuda_id) + " has " +
                              format_bytes(free) + " free of " + format_bytes(total));
  state->pinned = std::make_unique<BFCAllocator>(std::make_unique<PinnedSubAllocator>(),
                                                 kPinnedLimit, true, "cuda_host_bfc");
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDA(cudaStreamCreateWithFlags(&state->compute, cudaStreamNonBlocking)));
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDA(cudaStreamCreateWithFlags(&state->host_to_device, cudaStreamNonBlocking)));
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDA(cudaStreamCreateWithFlags(&state->device_to_host, cudaStreamNonBlocking)));
  ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUBLAS(cuda_libraries().cublasCreate_v2(&state->cublas)));
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUBLAS(cuda_libraries().cublasSetStream_v2(state->cublas, state->compute)));
  ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreate(&state->cudnn)));
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDNN(cuda_libraries().cudnnSetStream(state->cudnn, state->compute)));
  states().emplace(cuda_id, state);
  return state;
}

GpuState::~GpuState() {
  // Process exit: the driver reclaims everything; only release what is cheap to release.
  if (cudnn) cuda_libraries().cudnnDestroy(cudnn);
  if (cublas) cuda_libraries().cublasDestroy_v2(cublas);
}

Status GpuState::order_after(cudaStream_t first, cudaStream_t ordered) {
  cudaEvent_t event;
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)));
  Status s = ACTORFLOW_CUDA(cudaEventRecord(event, first));
  if (s.ok()) s = ACTORFLOW_CUDA(cudaStreamWaitEvent(ordered, event, 0));
  cudaEventDestroy(event);  // released once the event has completed
  return s;
}

Status GpuState::ensure_workspace(std::size_t bytes) {
  if (bytes <= workspace_bytes) return {};
  if (workspace) allocator->deallocate(workspace);
  workspace = nullptr;
  workspace_bytes = 0;
  workspace = allocator->allocate(bytes);
  if (!workspace)
    return resource_exhausted("cuDNN workspace of " + std::to_string(bytes) + " bytes on " +
                              allocator_name);
  workspace_bytes = bytes;
  return {};
}

// -- GpuDeviceContext -----------------------------------------------------------------------

Status GpuDeviceContext::allocate(DType dtype, const Shape& shape, Tensor* out) {
  if (!is_device_type(dtype)) {
    *out = Tensor(dtype, shape);  // int32 (and the rest) live in host memory
    return {};
  }
  const std::size_t bytes = static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype);
  BFCAllocator* allocator = state_->allocator.get();
  void* p = allocator->allocate(bytes);
  if (p == nullptr) return oom_error(shape, dtype_name(dtype), device_name_, *allocator, bytes);
  std::shared_ptr<void> buffer(p, [allocator](void* q) { allocator->deallocate(q); });
  *out = Tensor::from_buffer(dtype, shape, std::move(buffer), true);
  return {};
}

Status GpuDeviceContext::allocate_output(OpKernelContext& ctx, int i, DType dtype,
                                         const Shape& shape, Tensor** out) {
  Tensor t;
  ACTORFLOW_RETURN_IF_ERROR(allocate(dtype, shape, &t));
  ctx.set_output(i, std::move(t));
  *out = &ctx.outputs()[static_cast<std::size_t>(i)];
  return {};
}

Status GpuDeviceContext::to_device(const Tensor& host, Tensor* out) {
  if (host.on_device() || !is_device_type(host.dtype())) {
    *out = host;
    return {};
  }
  ACTORFLOW_RETURN_IF_ERROR(allocate(host.dtype(), host.shape(), out));
  if (host.total_bytes() == 0) return {};
  // Pageable source: the runtime stages it before returning, so `host` may go after.
  return ACTORFLOW_CUDA(cudaMemcpyAsync(out->raw_data(), host.raw_data(), host.total_bytes(),
                                        cudaMemcpyHostToDevice, state_->compute));
}

// -- GpuDevice ----------------------------------------------------------------------------------

GpuDevice::GpuDevice(DeviceAttributes attributes, std::shared_ptr<GpuState> state,
                     std::shared_ptr<ThreadPools> pools)
    : Device(attributes),
      state_(state),
      pools_(std::move(pools)),
      context_(state, attributes.name) {
  context_.owner = this;
}

void GpuDevice::schedule(std::function<void()> fn) { pools_->schedule(std::move(fn)); }
Eigen::ThreadPoolDevice* GpuDevice::intra_op_device() noexcept { return pools_->intra_op_device(); }
int GpuDevice::intra_op_threads() const noexcept { return pools_->intra_op_threads(); }

Tensor GpuDevice::host_buffer_for(const Tensor& value) {
  const std::size_t bytes = value.total_bytes();
  BFCAllocator* pinned = state_->pinned.get();
  std::shared_ptr<void> host(pinned->allocate(bytes), [pinned](void* p) { pinned->deallocate(p); });
  if (!host.get()) return Tensor(value.dtype(), value.shape());  // pinned memory exhausted
  return Tensor::from_buffer(value.dtype(), value.shape(), std::move(host), false);
}

void GpuDevice::copy_to_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) {
  if (!value.on_device()) return done(value);
  if (value.total_bytes() == 0) return done(Tensor(value.dtype(), value.shape()));
  cudaSetDevice(state_->cuda_id);
  Tensor host = host_buffer_for(value);
  // The copy stream waits for the kernels that produce `value`, then copies while later
  // kernels run on the compute stream.
  Status s = state_->order_after(state_->compute, state_->device_to_host);
  if (s.ok())
    s = ACTORFLOW_CUDA(cudaMemcpyAsync(host.raw_data(), value.raw_data(), value.total_bytes(),
                                       cudaMemcpyDeviceToHost, state_->device_to_host));
  if (s.ok())
    s = enqueue_host_callback(state_->device_to_host, [value, host, done] { done(host); });
  if (!s.ok()) done(s);
}

StatusOr<Tensor> GpuDevice::start_copy_to_host(const Tensor& value) {
  if (!value.on_device()) return value;
  if (value.total_bytes() == 0) return Tensor(value.dtype(), value.shape());
  cudaSetDevice(state_->cuda_id);
  Tensor host = host_buffer_for(value);
  ACTORFLOW_RETURN_IF_ERROR(state_->order_after(state_->compute, state_->device_to_host));
  ACTORFLOW_RETURN_IF_ERROR(
      ACTORFLOW_CUDA(cudaMemcpyAsync(host.raw_data(), value.raw_data(), value.total_bytes(),
                                     cudaMemcpyDeviceToHost, state_->device_to_host)));
  return host;
}

void GpuDevice::copy_from_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) {
  if (value.on_device() || !is_device_type(value.dtype())) return done(value);
  cudaSetDevice(state_->cuda_id);
  Tensor device;
  if (Status s = context_.allocate(value.dtype(), value.shape(), &device); !s.ok()) return done(s);
  const std::size_t bytes = value.total_bytes();
  if (bytes == 0) return done(device);
  // A page-locked source (pinned_host_tensor) is sent as it is: no staging copy. `done`
  // comes once the copy has read it (the caller holds it until then; the callback's copy of
  // the tensor is never the last one, so no CUDA call runs in the callback).
  if (bytes >= kParallelStaging) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, value.raw_data()) == cudaSuccess &&
        attributes.type == cudaMemoryTypeHost) {
      Status s = state_->order_after(state_->compute, state_->host_to_device);
      if (s.ok())
        s = ACTORFLOW_CUDA(cudaMemcpyAsync(device.raw_data(), value.raw_data(), bytes,
                                           cudaMemcpyHostToDevice, state_->host_to_device));
      if (s.ok()) s = state_->order_after(state_->host_to_device, state_->compute);
      if (s.ok())
        s = enqueue_host_callback(state_->host_to_device, [value, device, done] { done(device); });
      if (!s.ok()) done(s);
      return;
    }
    cudaGetLastError();
  }
  BFCAllocator* pinned = state_->pinned.get();
  void* staging = pinned->allocate(bytes);
  Status s;
  if (staging == nullptr) {
    // No pinned memory left: a pageable copy on the compute stream.
    s = ACTORFLOW_CUDA(cudaMemcpyAsync(device.raw_data(), value.raw_data(), bytes,
                                       cudaMemcpyHostToDevice, state_->compute));
    if (!s.ok()) return done(s);
    return done(device);
  }
  // The copy waits for compute work enqueued before (the chunk may have been freed by it
  // just now); kernels enqueued after wait for the copy.
  s = state_->order_after(state_->compute, state_->host_to_device);
  // Staged a slice at a time: each slice is copied into pinned memory by the intra-op threads
  // together, then sent while the next one is staged (one thread's memcpy alone is a fifth
  // of the link's speed).
  const auto* from = static_cast<const char*>(value.raw_data());
  auto* pinned_to = static_cast<char*>(staging);
  auto* device_to = static_cast<char*>(device.raw_data());
  Eigen::ThreadPoolDevice* threads = pools_->intra_op_device();
  for (std::size_t offset = 0; s.ok() && offset < bytes; offset += kStagingSlice) {
    const std::size_t length = std::min(kStagingSlice, bytes - offset);
    if (threads != nullptr && length >= kParallelStaging) {
      const Eigen::TensorOpCost cost(1.0, 1.0, 0.0);  // per byte: one load, one store
      threads->parallelFor(
          static_cast<Eigen::Index>(length), cost,
          [](Eigen::Index b) { return (b + 4095) / 4096 * 4096; },
          [&](Eigen::Index b, Eigen::Index e) {
            std::memcpy(pinned_to + offset + b, from + offset + b, static_cast<std::size_t>(e - b));
          });
    } else {
      std::memcpy(pinned_to + offset, from + offset, length);
    }
    s = ACTORFLOW_CUDA(cudaMemcpyAsync(device_to + offset, pinned_to + offset, length,
                                       cudaMemcpyHostToDevice, state_->host_to_device));
  }
  if (s.ok()) s = state_->order_after(state_->host_to_device, state_->compute);
  if (s.ok())
    s = enqueue_host_callback(state_->host_to_device,
                              [pinned, staging] { pinned->deallocate(staging); });
  if (!s.ok()) {
    pinned->deallocate(staging);
    return done(s);
  }
  done(device);
}

Status GpuDevice::sticky_error() {
  if (cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_status(e, "a kernel enqueued earlier", __FILE__, __LINE__)
        .with_context(" on " + name());
  }
  return {};
}

void GpuDevice::sync(std::function<void(Status)> done) {
  cudaSetDevice(state_->cuda_id);
  if (Status e = sticky_error(); !e.ok()) return done(e);
  // Copies out started earlier finish before the callback too.
  Status s = state_->order_after(state_->device_to_host, state_->compute);
  if (s.ok()) s = enqueue_host_callback(state_->compute, [done] { done(Status()); });
  if (!s.ok()) done(s);
}

std::optional<Status> GpuDevice::try_sync_now(std::chrono::steady_clock::time_point deadline) {
  cudaSetDevice(state_->cuda_id);
  if (Status e = sticky_error(); !e.ok()) return e;
  cudaEvent_t event;
  Status s = ACTORFLOW_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  if (!s.ok()) return s;
  s = state_->order_after(state_->device_to_host, state_->compute);
  if (s.ok()) s = ACTORFLOW_CUDA(cudaEventRecord(event, state_->compute));
  std::optional<Status> outcome;
  while (s.ok()) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) {
      s = cuda_status(e, "cudaEventQuery", __FILE__, __LINE__).with_context(" on " + name());
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      cudaEventDestroy(event);  // released once it has completed
      return std::nullopt;
    }
    std::this_thread::yield();
  }
  cudaEventDestroy(event);
  return s;
}

}  // namespace gpu

namespace {

class GpuDeviceFactory : public DeviceFactory {
 public:
  void create_devices(Runtime& runtime, const SessionConfig& config, const std::string& prefix,
                      std::vector<std::unique_ptr<Device>>* out) override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      return;  // no driver or no GPU: no GPU devices
    }
    static std::once_flag kernels_once;
    std::call_once(kernels_once, [] { gpu::register_gpu_kernels(KernelRegistry::global()); });
    auto ids = visible_gpu_ids(config.gpu_options.visible_device_list, count);
    throw_if_error(ids.status());
    std::size_t limit = ids->size();
    if (auto it = config.device_count.find("GPU"); it != config.device_count.end())
      limit = std::min<std::size_t>(limit, static_cast<std::size_t>(std::max(0, it->second)));
    auto pools = config.use_per_session_threads
                     ? std::make_shared<ThreadPools>(config.inter_op_parallelism_threads,
                                                     config.intra_op_parallelism_threads)
                     : runtime.shared_pools(config.inter_op_parallelism_threads,
                                            config.intra_op_parallelism_threads);
    for (std::size_t i = 0; i < limit; ++i) {
      const int cuda_id = (*ids)[i];
      auto state = gpu::GpuState::get(cuda_id, config.gpu_options);
      throw_if_error(state.status());
      cudaDeviceProp prop{};
      cudaGetDeviceProperties(&prop, cuda_id);
      char bus[32] = {0};
      cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_id);
      DeviceAttributes attrs;
      attrs.name = prefix + "/device:GPU:" + std::to_string(i);
      attrs.device_type = "GPU";
      // TensorFlow's physical_device_desc.
      attrs.description =
          "device: " + std::to_string(cuda_id) + ", name: " + prop.name + ", pci bus id: " + bus +
          ", compute capability: " + std::to_string(prop.major) + "." + std::to_string(prop.minor);
      attrs.memory_limit = static_cast<std::int64_t>((*state)->allocator->stats().bytes_limit);
      out->push_back(std::make_unique<gpu::GpuDevice>(attrs, *state, pools));
    }
  }
};

}  // namespace

bool register_gpu_device_factory() {
  // Called during static initialisation (gpu_device.hpp): the kernels register later, when
  // the first GPU device is created, since the kernel registry's tables may not exist yet.
  static const bool once = [] {
    DeviceFactory::register_factory("GPU", 200, std::make_unique<GpuDeviceFactory>());
    return true;
  }();
  return once;
}

std::vector<GpuInfo> list_gpus() {
  std::vector<GpuInfo> out;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuInfo info;
    info.index = i;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) info.pci_bus_id = bus;
    std::size_t free = 0, total = prop.totalGlobalMem;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess)
      info.memory_free = free;
    info.memory_total = total;
    out.push_back(info);
  }
  cudaGetLastError();
  return out;
}

std::string gpu_unavailable_reason() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("CUDA reports ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  }
  return count == 0 ? "CUDA shows no GPU to this process (CUDA_VISIBLE_DEVICES?)" : "";
}

bool built_with_cuda() noexcept { return true; }

Tensor pinned_host_tensor(DType dtype, const Shape& shape) {
  const std::size_t bytes = static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype);
  int count = 0;
  void* p = nullptr;
  if (dtype == DType::string || dtype == DType::resource || dtype == DType::variant || bytes == 0 ||
      cudaGetDeviceCount(&count) != cudaSuccess || count == 0 ||
      cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return Tensor(dtype, shape, Tensor::for_overwrite);
  }
  return Tensor::from_buffer(dtype, shape,
                             std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); }), false);
}

}  // namespace af
