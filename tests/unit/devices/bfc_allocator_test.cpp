// White-box tests of the best-fit-with-coalescing allocator over host memory: the same
// allocator sub-allocates GPU memory from cudaMalloc'd regions.
#include "actorflow/devices/bfc_allocator.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace {

// Host regions that remember what was taken and given back; can refuse beyond a cap.
class CountingSubAllocator : public af::SubAllocator {
 public:
  explicit CountingSubAllocator(std::size_t cap, std::size_t* live) : cap_(cap), live_(live) {}
  void* alloc(std::size_t bytes) override {
    if (*live_ + bytes > cap_) return nullptr;
    *live_ += bytes;
    return std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  }
  void free(void* p, std::size_t bytes) override {
    *live_ -= bytes;
    std::free(p);
  }

 private:
  std::size_t cap_;
  std::size_t* live_;
};

constexpr std::size_t kMiB = std::size_t{1} << 20;

}  // namespace

BOOST_AUTO_TEST_SUITE(bfc_allocator_test)

BOOST_AUTO_TEST_CASE(requests_round_up_to_256_aligned_chunks) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 1 * kMiB, false,
                     "test_bfc");
  BOOST_REQUIRE(a.reserve().ok());
  BOOST_TEST(live == 1 * kMiB);  // the whole limit up front
  void* p = a.allocate(1);
  void* q = a.allocate(300);
  void* z = a.allocate(0);
  BOOST_REQUIRE(p && q && z);
  for (void* x : {p, q, z}) BOOST_TEST(reinterpret_cast<std::uintptr_t>(x) % 256 == 0);
  BOOST_TEST(a.allocated_size(p) == 256u);
  BOOST_TEST(a.allocated_size(q) == 512u);
  BOOST_TEST(a.allocated_size(z) == 256u);
  auto s = a.stats();
  BOOST_TEST(s.bytes_in_use == 1024u);
  BOOST_TEST(s.num_allocs == 3);
  BOOST_TEST(s.regions == 1u);
  a.deallocate(p);
  a.deallocate(q);
  a.deallocate(z);
  BOOST_TEST(a.stats().bytes_in_use == 0u);
  BOOST_TEST(a.stats().peak_bytes_in_use == 1024u);
}

BOOST_AUTO_TEST_CASE(freed_neighbours_coalesce_into_one_block) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 1 * kMiB, false,
                     "test_bfc");
  BOOST_REQUIRE(a.reserve().ok());
  std::vector<void*> quarter;
  for (int i = 0; i < 4; ++i) quarter.push_back(a.allocate(kMiB / 4));
  for (void* p : quarter) BOOST_REQUIRE(p != nullptr);
  BOOST_TEST(a.allocate(1) == nullptr);  // full
  BOOST_TEST(a.stats().largest_free_block == 0u);
  // Free 1 and 3, then 2: the middle one merges with both sides into 3/4 MiB.
  a.deallocate(quarter[1]);
  a.deallocate(quarter[3]);
  BOOST_TEST(a.stats().largest_free_block == kMiB / 4);
  BOOST_TEST(a.allocate(kMiB / 2) == nullptr);  // fragmented: no half-MiB block yet
  a.deallocate(quarter[2]);
  BOOST_TEST(a.stats().largest_free_block == 3 * kMiB / 4);
  void* big = a.allocate(3 * kMiB / 4);
  BOOST_TEST(big == quarter[1]);
  a.deallocate(big);
  a.deallocate(quarter[0]);
  BOOST_TEST(a.stats().largest_free_block == kMiB);
}

BOOST_AUTO_TEST_CASE(best_fit_takes_the_smallest_block_that_fits) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 1 * kMiB, false,
                     "test_bfc");
  BOOST_REQUIRE(a.reserve().ok());
  void* a1 = a.allocate(4096);
  void* sep1 = a.allocate(256);
  void* a2 = a.allocate(1024);
  void* sep2 = a.allocate(256);
  BOOST_REQUIRE(a1 && sep1 && a2 && sep2);
  a.deallocate(a1);                    // a 4 KiB hole
  a.deallocate(a2);                    // a 1 KiB hole
  BOOST_TEST(a.allocate(1000) == a2);  // the 1 KiB hole, not the 4 KiB one
  BOOST_TEST(a.allocate(2000) == a1);
}

BOOST_AUTO_TEST_CASE(without_growth_the_limit_is_all_there_is) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 2 * kMiB, false,
                     "GPU_0_bfc");
  BOOST_REQUIRE(a.reserve().ok());
  void* p = a.allocate(2 * kMiB);
  BOOST_REQUIRE(p != nullptr);
  BOOST_TEST(a.allocate(256) == nullptr);
  auto oom = af::oom_error(af::Shape{4096, 4096}, "float",
                           "/job:localhost/replica:0/task:0/device:GPU:0", a, 64 * kMiB);
  BOOST_TEST(oom.code() == af::Code::resource_exhausted);
  BOOST_TEST(oom.message().find(
                 "OOM when allocating tensor with shape[4096,4096] and type float on "
                 "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc") == 0u);
  BOOST_TEST(oom.message().find("asked for 67108864 bytes, 0 bytes free of 2097152") !=
             std::string::npos);
  a.deallocate(p);
  BOOST_TEST(live == 2 * kMiB);  // nothing given back while the allocator lives
}

BOOST_AUTO_TEST_CASE(reserving_more_than_the_memory_there_is_resource_exhausted) {
  std::size_t live = 0;
  // Two "processes" with 40% of a 10 MiB board coexist; a third does not fit.
  af::BFCAllocator first(std::make_unique<CountingSubAllocator>(10 * kMiB, &live), 4 * kMiB, false,
                         "GPU_0_bfc");
  af::BFCAllocator second(std::make_unique<CountingSubAllocator>(10 * kMiB, &live), 4 * kMiB, false,
                          "GPU_0_bfc");
  af::BFCAllocator third(std::make_unique<CountingSubAllocator>(10 * kMiB, &live), 4 * kMiB, false,
                         "GPU_0_bfc");
  BOOST_TEST(first.reserve().ok());
  BOOST_TEST(second.reserve().ok());
  af::Status s = third.reserve();
  BOOST_TEST(s.code() == af::Code::resource_exhausted);
  BOOST_TEST(s.message().find("GPU_0_bfc could not reserve 4194304 bytes") != std::string::npos);
  BOOST_TEST(third.allocate(256) == nullptr);
}

BOOST_AUTO_TEST_CASE(growth_takes_regions_on_demand_and_never_gives_them_back) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 16 * kMiB, true,
                     "GPU_0_bfc");
  BOOST_REQUIRE(a.reserve().ok());
  BOOST_TEST(live == 0u);  // nothing up front
  void* p = a.allocate(1000);
  BOOST_REQUIRE(p != nullptr);
  BOOST_TEST(live == 2 * kMiB);  // the first region
  void* q = a.allocate(3 * kMiB);
  BOOST_REQUIRE(q != nullptr);
  BOOST_TEST(a.stats().regions == 2u);
  const std::size_t grown = live;
  BOOST_TEST(grown >= 5 * kMiB);
  a.deallocate(p);
  a.deallocate(q);
  BOOST_TEST(live == grown);                     // never given back
  BOOST_TEST(a.allocate(17 * kMiB) == nullptr);  // beyond the limit
  // Chunks of different regions never merge: the largest block is one region.
  BOOST_TEST(a.stats().largest_free_block <= a.stats().bytes_reserved - 2 * kMiB);
}

BOOST_AUTO_TEST_CASE(random_allocations_never_overlap_and_account_exactly) {
  std::size_t live = 0;
  af::BFCAllocator a(std::make_unique<CountingSubAllocator>(64 * kMiB, &live), 8 * kMiB, true,
                     "test_bfc");
  std::mt19937 rng(42);
  std::map<std::uintptr_t, std::size_t> held;  // address -> chunk size
  std::size_t in_use = 0;
  for (int i = 0; i < 20000; ++i) {
    if (held.empty() || rng() % 3 != 0) {
      std::size_t bytes = 1 + rng() % (64 * 1024);
      void* p = a.allocate(bytes);
      if (p == nullptr) continue;
      auto at = reinterpret_cast<std::uintptr_t>(p);
      std::size_t size = a.allocated_size(p);
      BOOST_REQUIRE_GE(size, bytes);
      auto next = held.lower_bound(at);
      if (next != held.end()) BOOST_REQUIRE_LE(at + size, next->first);
      if (next != held.begin())
        BOOST_REQUIRE_LE(std::prev(next)->first + std::prev(next)->second, at);
      held.emplace(at, size);
      in_use += size;
    } else {
      auto it = held.begin();
      std::advance(it, static_cast<long>(rng() % held.size()));
      in_use -= it->second;
      a.deallocate(reinterpret_cast<void*>(it->first));
      held.erase(it);
    }
    BOOST_REQUIRE_EQUAL(a.stats().bytes_in_use, in_use);
  }
  for (auto& [at, size] : held) a.deallocate(reinterpret_cast<void*>(at));
  BOOST_TEST(a.stats().bytes_in_use == 0u);
  BOOST_TEST(a.stats().bytes_reserved <= 8 * kMiB);
}

BOOST_AUTO_TEST_SUITE_END()
