// libFuzzer target for the status port's request parser (net/src/wire_decoders.cpp's
// parse_http_request). Checked: the answer is a GET path (0), 400 or 405; a path starts
// with '/' and holds no '?', blank or line break; a GET path comes only from a first line
// whose first word is GET.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "wire_decoders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const af::net::HttpRequest r = af::net::parse_http_request(in);
  auto fail = [](const char* what) {
    std::fprintf(stderr, "status_http_fuzzer: %s\n", what);
    std::abort();
  };
  if (r.code != 0 && r.code != 400 && r.code != 405) fail("an unexpected code");
  if (r.code != 0) {
    if (!r.path.empty()) fail("an error with a path");
    return 0;
  }
  if (r.path.empty() || r.path[0] != '/') fail("a path not starting with '/'");
  if (r.path.find_first_of("? \t\r\n") != std::string_view::npos)
    fail("a path with '?', a blank or a line break");
  const auto first = in.find_first_not_of(" \t");
  if (first == std::string_view::npos || in.substr(first, 3) != "GET")
    fail("a GET path from a request that is not a GET");
  return 0;
}
