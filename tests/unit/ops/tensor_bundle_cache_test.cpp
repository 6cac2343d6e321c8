// Checkpoints and the page cache. Saving over an existing checkpoint: the writer drops the
// old data file's cached pages before it writes (so the new file's writes take pages just
// freed, which run at several times the speed of memory the VM has not touched lately), and
// the old checkpoint stays whole and readable until the new one is renamed into place.
// A tensor whose bytes start off a cache line in the file (after a 12-byte tensor) reads back
// whole over several pieces, its checksum still checked. (Reading it straight into its
// aligned buffer is as fast as an aligned one: the kernel's copies slow down for a
// misaligned destination, not a misaligned source.)
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

af::Tensor read_back(const std::string& prefix, const std::string& key = "w") {
  af::BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  auto t = reader.lookup(key);
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

BOOST_AUTO_TEST_CASE(a_tensor_off_a_cache_line_in_the_file_reads_back_whole_and_checked) {
  af::test::TempDir dir;
  const std::string prefix = dir.file("model").string();
  const std::int64_t n = (1 << 20) + 5;  // 4 MiB and 20 bytes: several pieces and a tail
  {
    af::BundleWriter writer(prefix);
    BOOST_REQUIRE(writer.add("a", iota_floats(3, 0.0f)).ok());  // 12 bytes: "b" starts at 12
    BOOST_REQUIRE(writer.add("b", iota_floats(n, 1.0f)).ok());
    BOOST_REQUIRE(writer.finish().ok());
  }
  BOOST_TEST((read_back(prefix, "b") == iota_floats(n, 1.0f)));
  BOOST_TEST((read_back(prefix, "a") == iota_floats(3, 0.0f)));
  // A byte flipped in the middle of "b" is still caught by its checksum.
  const std::string data = af::bundle_data_filename(prefix, 0, 1);
  {
    std::fstream f(data, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(12 + n * 2);
    char c = 0;
    f.read(&c, 1);
    f.seekp(12 + n * 2);
    c = static_cast<char>(c ^ 0x40);
    f.write(&c, 1);
  }
  af::BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  auto broken = reader.lookup("b");
  BOOST_TEST(broken.status().code() == af::Code::data_loss, broken.status().message());
}

BOOST_AUTO_TEST_SUITE_END()
