#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af {

/// Bytes TensorFlow leaves to the system and other users of a GPU when
/// `per_process_gpu_memory_fraction` is 0: 225 MiB below 2 GiB available, otherwise the
/// larger of 300 MiB and 6% of what is available.
std::size_t min_system_memory(std::size_t available) noexcept;

/// The bytes a GPU device may take (TensorFlow's rules): `total * fraction` when
/// `per_process_gpu_memory_fraction` is set, otherwise `free - min_system_memory(free)`.
/// InvalidArgument for a fraction outside [0, 1]. Whether the memory is there is the
/// allocator's question (`BFCAllocator::reserve`).
StatusOr<std::size_t> gpu_memory_limit(const GPUOptions& options, std::size_t total,
                                       std::size_t free);

/// The CUDA device ids behind `/device:GPU:0, 1, ...`: `0 .. count-1` for an empty list,
/// otherwise the comma-separated ids of `visible_device_list` in their order (the list
/// applies on top of `CUDA_VISIBLE_DEVICES`, which the CUDA runtime has already applied
/// to `cuda_device_count`). InvalidArgument with TensorFlow's messages for an entry that
/// is not a number, an id not below the count, or a duplicate.
StatusOr<std::vector<int>> visible_gpu_ids(const std::string& visible_device_list,
                                           int cuda_device_count);

/// One GPU as actorflow sees it: what `nvidia-smi` tells about the same board.
struct GpuInfo {
  int index = 0;                 ///< N of `/device:GPU:N` with an empty visible_device_list
  std::string name;              ///< "NVIDIA H100 80GB HBM3"
  int compute_major = 0;         ///< compute capability, major
  int compute_minor = 0;         ///< compute capability, minor
  std::size_t memory_total = 0;  ///< bytes
  std::size_t memory_free = 0;   ///< bytes free now (other processes included)
  std::string pci_bus_id;        ///< "0000:65:00.0"
  int multiprocessors = 0;       ///< streaming multiprocessors
};

/// The GPUs CUDA shows this process, numbered after `CUDA_VISIBLE_DEVICES` ("3,2" makes
/// physical GPU 3 `GPU:0`). Empty in a build without CUDA, without a driver or without a
/// GPU; `gpu_unavailable_reason()` then says why.
std::vector<GpuInfo> list_gpus();

/// Why `list_gpus()` is empty ("" when it is not).
std::string gpu_unavailable_reason();

/// True when this build has CUDA devices compiled in.
bool built_with_cuda() noexcept;

/// A host tensor of `dtype` and `shape` in page-locked memory (PyTorch's `pin_memory`):
/// fed to a GPU op, it is copied straight from its buffer at the link's speed, with no
/// staging copy. Contents undefined. A plain host tensor where there is no CUDA or no GPU,
/// or when the memory cannot be locked. Page-locked memory is scarce: for large feeds
/// refilled step after step.
Tensor pinned_host_tensor(DType dtype, const Shape& shape);

/// Renders a byte count for people: "79.1 GiB", "512 MiB", "300 B".
std::string format_bytes(std::size_t bytes);

}  // namespace af
