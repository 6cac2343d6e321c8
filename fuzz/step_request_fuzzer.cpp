// libFuzzer target for the step port's decoders: the request header
// (net/src/wire_decoders.cpp) and the run request that follows it (the rs_run encoding read
// with WireReader, net/src/wire.cpp, as the server's decode_step_request reads it, graph names
// unresolved). Checked besides the sanitizers: a decoded header re-encodes to the same 32
// bytes; a body decodes to a value or an error status, never past the input; a value
// re-encodes to exactly the bytes read.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "wire.hpp"
#include "wire_decoders.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "step_request_fuzzer: %s\n", what);
  std::abort();
}

void check_header(std::string_view in) {
  const af::net::StepHeader h = af::net::decode_step_header(in);
  if (!h.magic) {
    if (in.size() >= 8 && in.size() >= af::net::kStepHeaderBytes &&
        std::memcmp(in.data(), "AFSTEP01", 8) == 0)
      fail("a header with the magic was refused");
    return;
  }
  af::net::WireWriter w;
  w.u64(h.call);
  w.u64(h.token);
  w.u64(h.length);
  const std::string again = "AFSTEP01" + w.take();
  if (again != in.substr(0, af::net::kStepHeaderBytes))
    fail("the header does not re-encode to its bytes");
  if (h.hello() != (h.call == 0 && h.length == 0)) fail("hello() disagrees with the fields");
}

void check_body(std::string_view in) {
  af::net::WireReader r(in, "fuzz run request");
  af::net::WireWriter w;
  std::string delta;
  std::uint64_t n = 0;
  auto run = [&]() -> bool {
    if (!r.str(&delta)) return false;
    w.str(delta);
    if (!r.count(&n, 9)) return false;
    w.u64(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::string name;
      af::Tensor value;
      if (!r.str(&name)) return false;
      w.str(name);
      const std::size_t at = w.size();  // what was read so far re-encoded to the same bytes
      if (!r.tensor(&value)) return false;
      if (value.is_initialized()) {
        w.tensor(value);
      } else {  // no value: the dtype byte (none or resource) is not kept
        w.u8(static_cast<std::uint8_t>(in[at]));
        w.u8(0xff);
      }
    }
    for (int list = 0; list < 2; ++list) {  // fetches, then targets
      if (!r.count(&n, 8)) return false;
      w.u64(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        std::string name;
        if (!r.str(&name)) return false;
        w.str(name);
      }
    }
    std::int64_t timeout = 0;
    std::uint8_t trace = 0;
    if (!r.i64(&timeout) || !r.u8(&trace)) return false;
    w.i64(timeout);
    w.u8(trace);
    // The optional bulk ticket (serve_step.hpp).
    if (r.at_end()) return true;
    std::uint64_t ticket = 0;
    if (!r.u64(&ticket)) return false;
    w.u64(ticket);
    return true;
  };
  if (!run()) {
    if (r.status().ok()) fail("a failed read left an OK status");
    return;
  }
  if (!r.status().ok()) fail("a complete read has an error status");
  // Everything read re-encodes to the bytes it came from (tensors have one encoding).
  const std::string again = w.take();
  if (again.size() > in.size() || std::string_view(again) != in.substr(0, again.size()))
    fail("a decoded request does not re-encode to its bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  check_header(in);
  check_body(in);
  return 0;
}
