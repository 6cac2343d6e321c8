#include "actorflow/net/port_picker.hpp"

#include <asio.hpp>
#include <fstream>
#include <random>

#include "actorflow/ops/errors.hpp"

namespace af {

namespace {

bool bindable(const asio::ip::address& address, std::uint16_t port) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io);
  std::error_code ec;
  asio::ip::tcp::endpoint endpoint(address, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  return !ec;
}

}  // namespace

std::uint16_t pick_unused_port(const std::string& host) {
  std::error_code ec;
  auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec)
    throw UnavailableError(
        unavailable("pick_unused_port: bad host '" + host + "': " + ec.message()));
  int ephemeral_low = 32768;
  if (std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range"); range) range >> ephemeral_low;
  const int low = 10000, high = ephemeral_low - 1;
  if (high > low) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> pick(low, high);
    for (int attempt = 0; attempt < 200; ++attempt) {
      auto port = static_cast<std::uint16_t>(pick(rng));
      if (bindable(address, port)) return port;
    }
  }
  // No room below the ephemeral range: let the system choose.
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(address, 0));
  return acceptor.local_endpoint().port();
}

}  // namespace af
