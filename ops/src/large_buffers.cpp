#include "large_buffers.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace af::detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeFrom = std::size_t{4} << 20;  // buffers this large go on huge pages
constexpr std::size_t kGranule = std::size_t{64} << 10;  // smaller ones round up to this

/// Freed large buffers by rounded size. At most `limit` bytes are kept (default 512 MiB or a
/// sixteenth of physical memory, whichever is less; ACTORFLOW_BUFFER_CACHE_MB sets it, 0
/// turns the cache off); beyond it a freed buffer goes back to the system.
class Cache {
 public:
  Cache() : limit_(default_limit()) {}

  void* take(std::size_t rounded) {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = free_.find(rounded);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= rounded;
    return p;
  }

  void give(void* p, std::size_t rounded) {
    {
      std::lock_guard<std::mutex> guard(mu_);
      if (cached_ + rounded <= limit_) {
        free_[rounded].push_back(p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }

  std::size_t cached() {
    std::lock_guard<std::mutex> guard(mu_);
    return cached_;
  }

  /// Gives every cached buffer back to the system (an allocation failed: the cache must not
  /// hold memory a tensor needs).
  void release() {
    std::map<std::size_t, std::vector<void*>> held;
    {
      std::lock_guard<std::mutex> guard(mu_);
      held.swap(free_);
      cached_ = 0;
    }
    for (auto& [size, buffers] : held)
      for (void* p : buffers) std::free(p);
  }

 private:
  static std::size_t default_limit() {
    if (const char* env = std::getenv("ACTORFLOW_BUFFER_CACHE_MB"))
      return static_cast<std::size_t>(std::strtoull(env, nullptr, 10)) << 20;
    std::size_t limit = std::size_t{512} << 20;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
      limit =
          std::min(limit, static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 16);
    return limit;
  }

  std::mutex mu_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t cached_ = 0;
  const std::size_t limit_;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: buffers may be freed during exit
  return *c;
}

}  // namespace

std::shared_ptr<void> allocate_large(std::size_t bytes, bool zero) {
  const bool huge = bytes >= kHugeFrom;
  const std::size_t unit = huge ? kHugePage : kGranule;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + unit - 1) / unit * unit;
  void* p = cache().take(rounded);
  if (p == nullptr) {
    p = std::aligned_alloc(huge ? kHugePage : 64, rounded);
    if (p == nullptr && cache().cached() > 0) {
      cache().release();
      p = std::aligned_alloc(huge ? kHugePage : 64, rounded);
    }
    if (p == nullptr) return nullptr;
    if (huge) (void)::madvise(p, rounded, MADV_HUGEPAGE);
    if (zero) std::memset(p, 0, bytes);  // fresh pages are zero, but malloc's may not be
  } else if (zero) {
    std::memset(p, 0, bytes);
  }
  return {p, [rounded](void* q) { cache().give(q, rounded); }};
}

std::size_t large_buffers_cached_bytes() { return cache().cached(); }

}  // namespace af::detail
