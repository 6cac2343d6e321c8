#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"

namespace af {

/// Where an allocator gets its regions: `cudaMalloc` for a GPU, `cudaHostAlloc` for pinned
/// host memory, `malloc` in tests. Called with the allocator's lock held.
class SubAllocator {
 public:
  /// Owned by its allocator.
  virtual ~SubAllocator() = default;
  /// Returns `bytes` bytes aligned to at least 256, or null when the memory is not there.
  virtual void* alloc(std::size_t bytes) = 0;
  /// Gives back a region `alloc` returned.
  virtual void free(void* ptr, std::size_t bytes) = 0;
};

/// What an allocator holds (TensorFlow's `AllocatorStats`).
struct AllocatorStats {
  std::int64_t num_allocs = 0;         ///< allocations ever made
  std::size_t bytes_in_use = 0;        ///< bytes in allocated chunks
  std::size_t peak_bytes_in_use = 0;   ///< the most `bytes_in_use` has been
  std::size_t largest_alloc_size = 0;  ///< the largest chunk ever handed out
  std::size_t bytes_limit = 0;         ///< the most the allocator may reserve
  std::size_t bytes_reserved = 0;      ///< bytes of regions taken from the sub-allocator
  std::size_t largest_free_block = 0;  ///< the largest free chunk in the reserved regions
  std::size_t regions = 0;             ///< regions taken from the sub-allocator

  /// Bytes that may still be handed out: `bytes_limit - bytes_in_use`.
  std::size_t bytes_free() const noexcept {
    return bytes_limit > bytes_in_use ? bytes_limit - bytes_in_use : 0;
  }
};

/// A best-fit allocator with coalescing over large regions (TensorFlow's BFCAllocator):
/// requests are rounded up to 256 bytes, served from the smallest free chunk that fits
/// (split when the rest is at least 256 bytes), and freed chunks merge with free
/// neighbours of the same region. Without `allow_growth` the whole limit is one region
/// taken by `reserve()`; with it, regions are taken on demand (doubling from 2 MiB, capped
/// by the limit) and never given back while the allocator lives. Thread-safe.
class BFCAllocator {
 public:
  /// Granularity and alignment of every chunk.
  static constexpr std::size_t kMinAllocationSize = 256;

  /// An allocator named `name` (`GPU_0_bfc`) that may reserve up to `memory_limit` bytes
  /// from `sub_allocator`.
  BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator, std::size_t memory_limit,
               bool allow_growth, std::string name);
  /// Gives every region back. Chunks still allocated are freed with it.
  ~BFCAllocator();

  BFCAllocator(const BFCAllocator&) = delete;
  BFCAllocator& operator=(const BFCAllocator&) = delete;

  /// Takes the whole limit up front (no-op with `allow_growth` or once reserved).
  /// ResourceExhausted naming the allocator and the bytes when the sub-allocator refuses.
  Status reserve();

  /// Returns `bytes` bytes (at least one chunk of 256 for 0), or null when no free chunk
  /// fits and no region can be added within the limit. Never throws, never blocks.
  void* allocate(std::size_t bytes);
  /// Frees a pointer `allocate` returned; null is ignored.
  void deallocate(void* ptr);

  /// The size of the chunk behind `ptr` (the request rounded up, or more after a split
  /// was not worth it); 0 for unknown pointers.
  std::size_t allocated_size(const void* ptr) const;

  /// A snapshot of the counters (thread-safe).
  AllocatorStats stats() const;
  /// The allocator's name (`GPU_0_bfc`), as OOM messages print it.
  const std::string& name() const noexcept { return name_; }
  /// Whether regions are taken on demand.
  bool allow_growth() const noexcept { return allow_growth_; }

  /// Rounds a request up to the allocation granularity.
  static std::size_t rounded_bytes(std::size_t bytes) noexcept;

 private:
  struct Chunk {
    std::size_t size = 0;
    std::size_t region = 0;
    bool in_use = false;
  };
  bool extend(std::size_t min_bytes);
  void insert_free(std::uintptr_t at, const Chunk& c);
  void erase_free(std::uintptr_t at, const Chunk& c);

  mutable std::mutex mu_;
  std::unique_ptr<SubAllocator> sub_;
  std::size_t limit_;
  bool allow_growth_;
  std::string name_;
  std::size_t next_region_bytes_;
  std::vector<std::pair<void*, std::size_t>> regions_;
  std::map<std::uintptr_t, Chunk> chunks_;                 // by address
  std::set<std::pair<std::size_t, std::uintptr_t>> free_;  // (size, address)
  AllocatorStats stats_;
};

/// TensorFlow's out-of-memory error: ResourceExhausted "OOM when allocating tensor with
/// shape[4096,4096] and type float on <device> by allocator GPU_0_bfc", followed by the
/// bytes asked for, the bytes free under the limit and the largest free block. The
/// executor appends the node that asked.
Status oom_error(const Shape& shape, std::string_view dtype, const std::string& device,
                 const BFCAllocator& allocator, std::size_t bytes);

}  // namespace af
