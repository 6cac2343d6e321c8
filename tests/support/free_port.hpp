#pragma once

// A loopback port nobody listens on right now (for cluster specs that must name their
// ports before the servers start). Another process may take it before the test binds it;
// on a test machine that is rare enough.
#include <cstdint>

#include <asio.hpp>

namespace af::test {

inline std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

}  // namespace af::test
