#include "actorflow/devices/bfc_allocator.hpp"

#include <algorithm>

namespace af {

namespace {

// Regions grow from this size when `allow_growth` is set, doubling each time.
constexpr std::size_t kInitialGrowthRegion = std::size_t{2} << 20;

}  // namespace

BFCAllocator::BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator, std::size_t memory_limit,
                           bool allow_growth, std::string name)
    : sub_(std::move(sub_allocator)),
      limit_(memory_limit / kMinAllocationSize * kMinAllocationSize),
      allow_growth_(allow_growth),
      name_(std::move(name)),
      next_region_bytes_(kInitialGrowthRegion) {
  stats_.bytes_limit = limit_;
}

BFCAllocator::~BFCAllocator() {
  for (auto& [ptr, bytes] : regions_) sub_->free(ptr, bytes);
}

std::size_t BFCAllocator::rounded_bytes(std::size_t bytes) noexcept {
  const std::size_t n = std::max<std::size_t>(bytes, 1);
  return (n + kMinAllocationSize - 1) / kMinAllocationSize * kMinAllocationSize;
}

Status BFCAllocator::reserve() {
  std::lock_guard<std::mutex> guard(mu_);
  if (allow_growth_ || !regions_.empty() || limit_ == 0) return {};
  if (!extend(limit_))
    return resource_exhausted(
        "allocator " + name_ + " could not reserve " + std::to_string(limit_) +
        " bytes up front (per_process_gpu_memory_fraction or free memory too small)");
  return {};
}

bool BFCAllocator::extend(std::size_t min_bytes) {
  const std::size_t left = limit_ - stats_.bytes_reserved;
  if (min_bytes > left) return false;
  std::size_t bytes =
      allow_growth_ ? std::min(left, std::max(min_bytes, next_region_bytes_)) : left;
  void* ptr = sub_->alloc(bytes);
  if (ptr == nullptr && allow_growth_ && bytes > min_bytes) {
    bytes = min_bytes;  // the doubled region did not fit; the request alone may
    ptr = sub_->alloc(bytes);
  }
  if (ptr == nullptr) return false;
  if (allow_growth_) next_region_bytes_ = std::max(next_region_bytes_, bytes) * 2;
  Chunk c{bytes, regions_.size(), false};
  regions_.emplace_back(ptr, bytes);
  const auto at = reinterpret_cast<std::uintptr_t>(ptr);
  chunks_.emplace(at, c);
  insert_free(at, c);
  stats_.bytes_reserved += bytes;
  stats_.regions = regions_.size();
  return true;
}

void BFCAllocator::insert_free(std::uintptr_t at, const Chunk& c) { free_.emplace(c.size, at); }

void BFCAllocator::erase_free(std::uintptr_t at, const Chunk& c) { free_.erase({c.size, at}); }

void* BFCAllocator::allocate(std::size_t bytes) {
  const std::size_t want = rounded_bytes(bytes);
  std::lock_guard<std::mutex> guard(mu_);
  auto fit = free_.lower_bound({want, 0});
  if (fit == free_.end()) {
    if (!extend(want)) return nullptr;
    fit = free_.lower_bound({want, 0});
    if (fit == free_.end()) return nullptr;
  }
  const std::uintptr_t at = fit->second;
  free_.erase(fit);
  Chunk& c = chunks_.at(at);
  if (c.size - want >= kMinAllocationSize) {
    Chunk rest{c.size - want, c.region, false};
    c.size = want;
    chunks_.emplace(at + want, rest);
    insert_free(at + want, rest);
  }
  c.in_use = true;
  ++stats_.num_allocs;
  stats_.bytes_in_use += c.size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, c.size);
  return reinterpret_cast<void*>(at);
}

void BFCAllocator::deallocate(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> guard(mu_);
  auto it = chunks_.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == chunks_.end() || !it->second.in_use) return;  // not ours, or freed twice
  it->second.in_use = false;
  stats_.bytes_in_use -= it->second.size;
  // Merge with the next chunk, then with the previous one, inside the same region.
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use && next->second.region == it->second.region &&
      it->first + it->second.size == next->first) {
    erase_free(next->first, next->second);
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->second.region == it->second.region &&
        prev->first + prev->second.size == it->first) {
      erase_free(prev->first, prev->second);
      prev->second.size += it->second.size;
      chunks_.erase(it);
      it = prev;
    }
  }
  insert_free(it->first, it->second);
}

std::size_t BFCAllocator::allocated_size(const void* ptr) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto it = chunks_.find(reinterpret_cast<std::uintptr_t>(ptr));
  return it != chunks_.end() && it->second.in_use ? it->second.size : 0;
}

AllocatorStats BFCAllocator::stats() const {
  std::lock_guard<std::mutex> guard(mu_);
  AllocatorStats s = stats_;
  s.largest_free_block = free_.empty() ? 0 : free_.rbegin()->first;
  return s;
}

Status oom_error(const Shape& shape, std::string_view dtype, const std::string& device,
                 const BFCAllocator& allocator, std::size_t bytes) {
  const AllocatorStats s = allocator.stats();
  return resource_exhausted("OOM when allocating tensor with shape" + shape.to_string() +
                            " and type " + std::string(dtype) + " on " + device + " by allocator " +
                            allocator.name() + ": asked for " + std::to_string(bytes) + " bytes, " +
                            std::to_string(s.bytes_free()) + " bytes free of " +
                            std::to_string(s.bytes_limit) + " (largest free block " +
                            std::to_string(s.largest_free_block) + " bytes)");
}

}  // namespace af
