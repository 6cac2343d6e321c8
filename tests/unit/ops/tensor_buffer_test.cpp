// A tensor's bytes: one allocation with their reference counts, 64-byte aligned, zeroed,
// alive as long as any tensor (copy, slice, row range) refers to them; large ones are kept
// for reuse once freed.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "actorflow/ops/tensor.hpp"

BOOST_AUTO_TEST_SUITE(tensor_buffer_test)

BOOST_AUTO_TEST_CASE(buffers_are_64_byte_aligned_and_zeroed_for_every_size) {
  for (std::int64_t n : {0, 1, 3, 7, 15, 16, 17, 63, 64, 65, 1000, 4096, 100'000, 1 << 20}) {
    for (af::DType t : {af::DType::uint8, af::DType::float32, af::DType::float64}) {
      af::Tensor x(t, af::Shape{n});
      auto address = reinterpret_cast<std::uintptr_t>(x.raw_data());
      BOOST_TEST_INFO("n " << n << " dtype " << af::dtype_name(t));
      BOOST_TEST(address % 64 == 0u);
      const auto* bytes = static_cast<const unsigned char*>(x.raw_data());
      const auto size = static_cast<std::size_t>(n) * af::dtype_size(t);
      bool zero = true;
      for (std::size_t i = 0; i < size; ++i) zero = zero && bytes[i] == 0;
      BOOST_TEST(zero);
      // Writing every byte stays inside the allocation (checked under ASan/valgrind).
      std::vector<unsigned char> pattern(size, 0xAB);
      if (size > 0) std::memcpy(x.raw_data(), pattern.data(), size);
    }
  }
}

BOOST_AUTO_TEST_CASE(large_buffers_are_reused_and_still_zeroed_when_asked) {
  // 8 MiB: above the size whose buffers are kept for reuse after they are freed, and on huge pages.
  const af::Shape shape{2 * 1024 * 1024};
  const void* first = nullptr;
  {
    af::Tensor dirty(af::DType::float32, shape, af::Tensor::for_overwrite);
    first = dirty.raw_data();
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(first) % (2u << 20) == 0u);  // huge-page aligned
    std::memset(dirty.raw_data(), 0xAB, 8u << 20);
  }
  {
    af::Tensor again(af::DType::float32, shape, af::Tensor::for_overwrite);
    BOOST_TEST(again.raw_data() == first);  // the freed buffer, pages still mapped
  }
  af::Tensor zeroed(af::DType::float32, shape);
  BOOST_TEST(zeroed.raw_data() == first);
  const auto* bytes = static_cast<const unsigned char*>(zeroed.raw_data());
  bool zero = true;
  for (std::size_t i = 0; i < (8u << 20); ++i) zero = zero && bytes[i] == 0;
  BOOST_TEST(zero);
  // A view keeps a large buffer from being handed out again.
  af::Tensor view = zeroed.slice_rows(0, 1);
  zeroed = af::Tensor();
  af::Tensor other(af::DType::float32, shape, af::Tensor::for_overwrite);
  BOOST_TEST(other.raw_data() != first);
  BOOST_TEST(view.data<float>()[0] == 0.0f);
}

BOOST_AUTO_TEST_CASE(views_keep_the_bytes_alive_after_the_tensor_goes) {
  af::Tensor rows;
  af::Tensor one;
  {
    af::Tensor x(af::DType::int64, af::Shape{8, 2});
    auto* d = x.data<std::int64_t>();
    for (int i = 0; i < 16; ++i) d[i] = 100 + i;
    d[4] = 0;
    rows = x.slice_rows(2, 5);
    one = x.slice(7);
    d[4] = 104;  // a view: it sees later writes
    BOOST_TEST(rows.data<std::int64_t>()[0] == 104);
  }
  BOOST_TEST(rows.shape() == af::Shape({3, 2}));
  BOOST_TEST(rows.data<std::int64_t>()[0] == 104);
  BOOST_TEST(rows.data<std::int64_t>()[5] == 109);
  BOOST_TEST(one.data<std::int64_t>()[1] == 115);
  af::Tensor copy = rows;
  rows = af::Tensor();
  BOOST_TEST(copy.data<std::int64_t>()[2] == 106);
}

BOOST_AUTO_TEST_SUITE_END()
