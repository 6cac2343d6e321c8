// Large tensor buffers: on transparent huge pages, and kept for reuse after they are freed.
#pragma once

#include <cstddef>
#include <memory>

namespace af::detail {

/// Buffers of at least this many bytes come from `allocate_large`.
inline constexpr std::size_t kLargeBufferBytes = std::size_t{4} << 20;

/// A buffer of `bytes` (at least kLargeBufferBytes), 2 MiB-aligned and advised onto
/// transparent huge pages, zero-filled when `zero`. When the last reference goes, the buffer
/// is kept (up to a bounded total, see large_buffers.cpp) for the next request of the same
/// rounded size, its pages still mapped: a fresh one costs a page fault and the kernel's
/// clearing of every page, which made a checkpoint restore a third of a plain read. Null
/// when memory is exhausted.
std::shared_ptr<void> allocate_large(std::size_t bytes, bool zero);

/// Bytes held for reuse now (for tests and /metrics).
std::size_t large_buffers_cached_bytes();

}  // namespace af::detail
