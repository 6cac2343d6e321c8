// libFuzzer target for the CAF port guard's decisions (net/src/wire_decoders.cpp's
// BaspConnectionCheck, which basp_front_door.cpp's scribe follows). The input is a BASP
// byte stream as a peer would send it: the target plays CAF's broker, reading a 32-byte
// header, then the payload length it claims, and so on, asking the guard before each read.
// Checked: no read larger than the limit (before the handshake, kBaspMaxHandshakeBytes)
// is ever allowed; a stream whose first header is
// not a client handshake is refused at once; the connection counts as handshaken exactly
// when its first message (header and payload) went through.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "wire_decoders.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "basp_front_door_fuzzer: %s\n", what);
  std::abort();
}

std::uint32_t payload_length(std::string_view header) {  // big-endian, bytes 4..7
  std::uint32_t v = 0;
  for (int i = 4; i < 8; ++i)
    v = (v << 8) | static_cast<unsigned char>(header[static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // Byte 0 picks the limit (64 bytes to 64 KiB), the rest is the stream.
  const std::size_t limit = std::size_t{64} << (data[0] % 11);
  std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  af::net::BaspConnectionCheck check(limit);
  std::size_t want = af::net::kBaspHeaderBytes;
  bool header = true;
  int messages = 0;
  while (true) {
    // Before the handshake went through, a read may claim at most kBaspMaxHandshakeBytes.
    const std::size_t allowed =
        check.handshaken() ? limit : std::min(limit, af::net::kBaspMaxHandshakeBytes);
    if (!check.may_read(want)) {
      if (want <= allowed) fail("a read within the limit was refused");
      return 0;  // refused before reading: nothing allocated
    }
    if (want > allowed) fail("a read beyond the limit was allowed");
    if (stream.size() < want) return 0;  // the peer stopped sending
    const std::string_view piece = stream.substr(0, want);
    stream.remove_prefix(want);
    const bool was_handshaken = check.handshaken();
    if (!check.consumed(piece)) {
      if (messages != 0 || static_cast<unsigned char>(piece[0]) == 0x01)
        fail("a client handshake was refused");
      return 0;
    }
    if (messages == 0 && static_cast<unsigned char>(piece[0]) != 0x01)
      fail("a first message not a handshake passed");
    ++messages;
    if (!was_handshaken && check.handshaken() && messages != 2)
      fail("handshaken before the first message ended");
    if (header) {
      const std::uint32_t payload = payload_length(piece);
      if (payload > 0) {
        want = payload;
        header = false;
      }
    } else {
      want = af::net::kBaspHeaderBytes;
      header = true;
    }
  }
}
