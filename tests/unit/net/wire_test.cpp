// The remote-session byte format: tensors round-trip; truncated, oversized or random
// input decodes to DataLoss naming the offset, never a crash or a huge allocation.
#include "../../../net/src/wire.hpp"

#include <actorflow/actorflow.hpp>
#include <actorflow/actors/detail/wire_types.hpp>
#include <boost/test/unit_test.hpp>
#include <random>

BOOST_AUTO_TEST_SUITE(wire_test)

BOOST_AUTO_TEST_CASE(tensors_round_trip_bit_for_bit) {
  af::net::WireWriter out;
  af::Tensor f = af::Tensor::from_vector<float>({1.5f, -2.0f, 3.25f});
  af::Tensor s(af::string, af::Shape{2});
  s.data<std::string>()[0] = "a";
  s.data<std::string>()[1] = std::string("\0b", 2);
  out.tensor(f);
  out.tensor(s);
  out.tensor(af::Tensor(std::int64_t{7}));
  std::string bytes = out.take();
  af::net::WireReader in(bytes, "test");
  af::Tensor a, b, c;
  BOOST_REQUIRE(in.tensor(&a) && in.tensor(&b) && in.tensor(&c));
  BOOST_TEST(in.at_end());
  BOOST_TEST((a == f));
  BOOST_TEST((b == s));
  BOOST_TEST(c.scalar<std::int64_t>() == 7);
}

// Every value dtype crosses the wire, the newer ones (float16, the 8- to 64-bit integers,
// complex) included; a code past the last dtype, or a variant's, is refused.
BOOST_AUTO_TEST_CASE(every_value_dtype_round_trips_and_unknown_codes_are_refused) {
  std::vector<af::Tensor> tensors = {
      af::Tensor::from_vector(std::vector<af::half_t>{af::half_t(0.5f), af::half_t(-3.0f)}),
      af::Tensor::from_vector(std::vector<std::int8_t>{-128, 127}),
      af::Tensor::from_vector(std::vector<std::int16_t>{-3, 4}),
      af::Tensor::from_vector(std::vector<std::uint16_t>{65535}),
      af::Tensor::from_vector(std::vector<std::uint32_t>{4000000000u}),
      af::Tensor::from_vector(std::vector<std::uint64_t>{~std::uint64_t{0}}),
      af::Tensor::from_vector(std::vector<af::complex64_t>{{1.0f, -2.0f}}),
      af::Tensor::from_vector(std::vector<af::complex128_t>{{0.25, 8.0}}, af::Shape{1, 1})};
  af::net::WireWriter out;
  for (const auto& t : tensors) out.tensor(t);
  std::string bytes = out.take();
  af::net::WireReader in(bytes, "test");
  for (const auto& t : tensors) {
    af::Tensor back;
    BOOST_REQUIRE(in.tensor(&back));
    BOOST_TEST((back == t), af::dtype_name(t.dtype()));
  }
  BOOST_TEST(in.at_end());
  for (const std::uint8_t code : {static_cast<std::uint8_t>(af::DType::variant),
                                  static_cast<std::uint8_t>(af::net::kLastDTypeCode + 1)}) {
    af::net::WireWriter one;
    one.tensor(af::Tensor::from_vector(std::vector<std::int8_t>{1}));
    std::string b = one.take();
    b[0] = static_cast<char>(code);
    af::net::WireReader refused(b, "test");
    af::Tensor t;
    BOOST_TEST(!refused.tensor(&t));
    BOOST_TEST(refused.status().message().find("unknown dtype code " + std::to_string(code)) !=
               std::string::npos);
  }
}

// A dead tensor (the untaken side of a Switch) stays dead between tasks, distinct from an
// uninitialized one; a dead marker with a dtype is refused.
BOOST_AUTO_TEST_CASE(dead_tensors_round_trip_as_dead) {
  af::net::WireWriter out;
  out.tensor(af::Tensor::dead());
  out.tensor(af::Tensor());
  std::string bytes = out.take();
  af::net::WireReader in(bytes, "test");
  af::Tensor a, b;
  BOOST_REQUIRE(in.tensor(&a) && in.tensor(&b));
  BOOST_TEST(a.is_dead());
  BOOST_TEST(!b.is_dead());
  BOOST_TEST(!b.is_initialized());
  std::string bad = bytes.substr(0, 2);
  bad[0] = 1;  // float32 with the dead marker
  af::net::WireReader refused(bad, "test");
  af::Tensor c;
  BOOST_TEST(!refused.tensor(&c));
  BOOST_TEST(refused.status().message().find("a dead tensor has dtype code 1") !=
             std::string::npos);
}

// CAF's path between tasks (WireTensor) keeps a dead tensor dead too.
BOOST_AUTO_TEST_CASE(dead_tensors_stay_dead_on_cafs_path) {
  const af::detail::WireTensor w = af::detail::to_wire(af::Tensor::dead());
  BOOST_TEST(af::detail::from_wire(w).is_dead());
  const af::Tensor plain = af::detail::from_wire(af::detail::to_wire(af::Tensor()));
  BOOST_TEST(!plain.is_dead());
  BOOST_TEST(!plain.is_initialized());
}

BOOST_AUTO_TEST_CASE(truncated_input_is_data_loss_naming_the_offset) {
  af::net::WireWriter out;
  out.tensor(af::Tensor::from_vector<float>({1.0f, 2.0f}));
  std::string bytes = out.take();
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    af::net::WireReader in(std::string_view(bytes).substr(0, cut), "run request");
    af::Tensor t;
    BOOST_TEST(!in.tensor(&t));
    BOOST_TEST(in.status().code() == af::Code::data_loss);
    BOOST_TEST(in.status().message().find("malformed run request at byte") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(oversized_dimensions_are_refused_before_allocating) {
  af::net::WireWriter out;
  out.u8(static_cast<std::uint8_t>(af::DType::float32));
  out.u8(2);
  out.i64(1LL << 40);
  out.i64(1LL << 40);
  std::string bytes = out.take();
  af::net::WireReader in(bytes, "run request");
  af::Tensor t;
  BOOST_TEST(!in.tensor(&t));
  BOOST_TEST(in.status().message().find("larger than the message") != std::string::npos);
  af::net::WireWriter count;
  count.u64(~0ULL);
  std::string c = count.take();
  af::net::WireReader in2(c, "run request");
  std::uint64_t n = 0;
  BOOST_TEST(!in2.count(&n, 8));
}

BOOST_AUTO_TEST_CASE(random_bytes_never_crash_the_decoder) {
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (auto& ch : bytes) ch = static_cast<char>(rng());
    af::net::WireReader in(bytes, "fuzz");
    af::Tensor t;
    std::string s;
    while (in.tensor(&t) || in.str(&s)) {
    }
    // Decoding stopped at an error (random bytes rarely end exactly on a value).
    BOOST_TEST((!in.status().ok() || in.at_end()));
  }
}

BOOST_AUTO_TEST_CASE(a_bulk_reference_names_the_tensor_and_its_transfer) {
  af::net::WireWriter out;
  af::Tensor big(af::float32, af::Shape{3, 4});
  out.bulk_ref(big, 40123, 0x1234567890abcdefULL);
  std::string bytes = out.take();
  af::net::WireReader in(bytes, "test");
  af::Tensor t;
  af::net::BulkRef ref;
  BOOST_REQUIRE(in.tensor(&t, &ref));
  BOOST_TEST(in.at_end());
  BOOST_TEST(ref.present);
  BOOST_TEST(ref.port == 40123);
  BOOST_TEST(ref.transfer_id == 0x1234567890abcdefULL);
  BOOST_TEST(ref.dtype == af::float32);
  BOOST_TEST(ref.shape == (af::Shape{3, 4}));
  BOOST_TEST(!t.is_initialized(), "the reader of the bytes allocates the tensor");
  // Where no bulk transfer is expected (requests), a reference is malformed input.
  af::net::WireReader strict(bytes, "run request");
  BOOST_TEST(!strict.tensor(&t));
  BOOST_TEST(strict.status().message().find("unexpected bulk tensor reference") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_bulk_reference_with_absurd_dims_or_port_is_data_loss) {
  auto bad = [](std::int64_t dim, std::uint64_t port) {
    af::net::WireWriter out;
    out.u8(static_cast<std::uint8_t>(af::float32));
    out.u8(0xfe);
    out.u8(2);
    out.i64(dim);
    out.i64(dim);
    out.u64(port);
    out.u64(1);
    std::string bytes = out.take();
    af::net::WireReader in(bytes, "run reply");
    af::Tensor t;
    af::net::BulkRef ref;
    BOOST_TEST(!in.tensor(&t, &ref));
    BOOST_TEST(in.status().code() == af::Code::data_loss);
    BOOST_TEST(!ref.present);
  };
  bad(std::int64_t{1} << 40, 1000);  // 2^80 elements
  bad(-1, 1000);
  bad(2, 0);
  bad(2, 70000);
}

BOOST_AUTO_TEST_SUITE_END()
