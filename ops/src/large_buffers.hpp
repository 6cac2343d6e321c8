// Large tensor buffers: kept for reuse after they are freed, the largest on transparent huge
// pages.
#pragma once

#include <cstddef>
#include <memory>

namespace af::detail {

/// Buffers of at least this many bytes come from `allocate_large`.
inline constexpr std::size_t kLargeBufferBytes = std::size_t{256} << 10;

/// A buffer of `bytes` (at least kLargeBufferBytes), 64-byte aligned (2 MiB-aligned and
/// advised onto transparent huge pages from 4 MiB), zero-filled when `zero`. When the last
/// reference goes, the buffer is kept (up to a bounded total, see large_buffers.cpp) for the
/// next request of the same rounded size, its pages still mapped. Left to malloc, such
/// buffers come fresh from the kernel again and again (mmap, or a heap top trimmed after each
/// training step): a page fault and the kernel's clearing of every page, which cost a
/// training step nearly half its time and a checkpoint restore two thirds (docs/training.md).
/// Null when memory is exhausted.
std::shared_ptr<void> allocate_large(std::size_t bytes, bool zero);

/// Bytes held for reuse now.
std::size_t large_buffers_cached_bytes();

}  // namespace af::detail
