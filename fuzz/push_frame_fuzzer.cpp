// libFuzzer target for the tensor push port's decoders (net/src/wire_decoders.cpp): any
// bytes decode without a crash; a valid header is within its kind's bounds and re-encodes to
// its own bytes; a valid meta describes exactly the frame's data length and re-encodes to its
// own bytes.
//
// Input: 16 bytes of hello, 24 of frame header, then the meta (the rest).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "actorflow/ops/dtype.hpp"
#include "wire_decoders.hpp"

namespace {

void fail(const char* why) {
  std::fprintf(stderr, "push_frame_fuzzer: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const af::net::PushHello hello = af::net::decode_push_hello(in);
  if (hello.magic != (size >= af::net::kPushHelloBytes && std::memcmp(data, "AFPUSH02", 8) == 0))
    fail("hello magic decoded wrongly");
  if (size < af::net::kPushHelloBytes) return 0;
  const std::string_view rest = in.substr(af::net::kPushHelloBytes);
  const af::net::PushFrameHeader h = af::net::decode_push_frame_header(rest);
  if (h.valid && h.kind == af::net::PushKind::tensor &&
      (h.key_length == 0 || h.key_length > af::net::kPushMaxKeyBytes || h.meta_length < 2 ||
       h.meta_length > 2 + 8 * 32))
    fail("a tensor frame's header out of bounds was accepted");
  if (h.valid && h.kind != af::net::PushKind::tensor && (h.key_length != 0 || h.meta_length != 0))
    fail("a control frame with a key or a meta was accepted");
  if (h.valid && h.data_length > af::net::kPushMaxDataBytes) fail("too much data was accepted");
  if (rest.size() < af::net::kPushFrameHeaderBytes) return 0;
  if (h.valid && af::net::encode_push_frame_header(h.step_id, h.kind, h.key_length, h.meta_length,
                                                   h.data_length) !=
                     rest.substr(0, af::net::kPushFrameHeaderBytes))
    fail("a header does not re-encode to its bytes");
  const std::string_view meta = rest.substr(af::net::kPushFrameHeaderBytes);
  const af::net::PushMeta m = af::net::decode_push_meta(meta, h.data_length);
  if (!m.valid) return 0;
  std::uint64_t bytes = af::dtype_size(static_cast<af::DType>(m.dtype));
  for (auto d : m.dims) {
    if (d < 0) fail("a negative dimension was accepted");
    bytes *= static_cast<std::uint64_t>(d);
  }
  if (bytes != h.data_length) fail("a meta whose bytes differ from the data length was accepted");
  const std::string again = af::net::encode_push_meta(m.dtype, m.dims);
  if (again != meta) fail("the meta does not re-encode to its bytes");
  return 0;
}
