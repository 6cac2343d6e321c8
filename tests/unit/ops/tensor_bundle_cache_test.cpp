// Saving over an existing checkpoint: the writer drops the old data file's cached pages
// before it writes (so the new file's writes take pages just freed, which run at several
// times the speed of memory the VM has not touched lately), and the old checkpoint stays
// whole and readable until the new one is renamed into place.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "temp_dir.hpp"

namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr long kRamfsMagic = 0x858458f6;

/// Pages of `path` in the page cache, by mincore(2) over a mapping of the file.
std::size_t resident_pages(const std::string& path) {
  std::ifstream probe(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<std::size_t>(probe.tellg());
  const int fd = ::open(path.c_str(), O_RDONLY);
  BOOST_REQUIRE(fd >= 0);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  BOOST_REQUIRE(map != MAP_FAILED);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((size + page - 1) / page);
  BOOST_REQUIRE(::mincore(map, size, in_core.data()) == 0);
  ::munmap(map, size);
  std::size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1u;
  return resident;
}

af::Tensor iota_floats(std::int64_t n, float from) {
  af::Tensor t(af::float32, af::Shape{n});
  std::iota(t.data<float>(), t.data<float>() + n, from);
  return t;
}

af::Tensor read_back(const std::string& prefix) {
  af::BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  auto t = reader.lookup("w");
  BOOST_REQUIRE(t.ok());
  return *t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_bundle_cache_test)

BOOST_AUTO_TEST_CASE(saving_over_a_checkpoint_drops_its_cached_pages_and_keeps_it_readable) {
  af::test::TempDir dir;
  const std::string prefix = dir.file("model").string();
  const std::string data = af::bundle_data_filename(prefix, 0, 1);
  const std::int64_t n = 1 << 20;  // 4 MiB
  {
    af::BundleWriter first(prefix);
    BOOST_REQUIRE(first.add("w", iota_floats(n, 0.0f)).ok());
    BOOST_REQUIRE(first.finish().ok());
  }
  {
    std::ifstream in(data, std::ios::binary);  // read: every page cached
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    BOOST_REQUIRE(bytes.size() == static_cast<std::size_t>(n) * 4);
  }
  BOOST_TEST(resident_pages(data) > 0u);

  af::BundleWriter second(prefix);
  struct statfs fs {};
  BOOST_REQUIRE(::statfs(dir.path.c_str(), &fs) == 0);
  const long type = static_cast<long>(fs.f_type);
  if (type == kTmpfsMagic || type == kRamfsMagic)
    BOOST_TEST(resident_pages(data) > 0u);  // memory-backed: the pages are the file
  else
    BOOST_TEST(resident_pages(data) == 0u);
  // Until the new checkpoint is in place, the old one reads back whole.
  BOOST_TEST((read_back(prefix) == iota_floats(n, 0.0f)));
  BOOST_REQUIRE(second.add("w", iota_floats(n, 7.0f)).ok());
  BOOST_TEST((read_back(prefix) == iota_floats(n, 0.0f)));
  BOOST_REQUIRE(second.finish().ok());
  BOOST_TEST((read_back(prefix) == iota_floats(n, 7.0f)));
}

BOOST_AUTO_TEST_SUITE_END()
