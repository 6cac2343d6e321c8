// libFuzzer target for the bulk port's request decoder (net/src/wire_decoders.cpp): any
// bytes decode without a crash, a request with either magic (fetch or await) always decodes
// as that request, and a decoded one re-encodes to the same 16 bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "wire_decoders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const af::net::BulkRequest r = af::net::decode_bulk_request(in);
  const bool fetch = size >= af::net::kBulkRequestBytes && std::memcmp(data, "AFBULK02", 8) == 0;
  const bool await = size >= af::net::kBulkRequestBytes && std::memcmp(data, "AFBULKA2", 8) == 0;
  if (r.magic != (fetch || await) || r.await != await) {
    std::fprintf(stderr, "bulk_request_fuzzer: magic decoded wrongly\n");
    std::abort();
  }
  if (r.magic) {
    std::string again = r.await ? "AFBULKA2" : "AFBULK02";
    for (int i = 0; i < 8; ++i)
      again.push_back(static_cast<char>((r.transfer_id >> (8 * i)) & 0xff));
    if (again != in.substr(0, af::net::kBulkRequestBytes)) {
      std::fprintf(stderr, "bulk_request_fuzzer: the request does not re-encode to its bytes\n");
      std::abort();
    }
  }
  return 0;
}
