// A minimal HTTP client for tests of a server's status port: one request per connection.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <string>
#include <system_error>

namespace af::test {

/// Sends `request` raw to 127.0.0.1:`port` and returns the whole response (the server closes
/// the connection).
inline std::string http(std::uint16_t port, const std::string& request) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(s, asio::buffer(request));
  std::string out;
  std::error_code ec;
  char buf[4096];
  for (;;) {
    auto n = s.read_some(asio::buffer(buf), ec);
    out.append(buf, n);
    if (ec) break;
  }
  return out;
}

inline std::string http_get(std::uint16_t port, const std::string& path) {
  return http(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
}

/// The body of a response (after the blank line), or empty.
inline std::string body_of(const std::string& response) {
  auto pos = response.find("\r\n\r\n");
  return pos == std::string::npos ? std::string() : response.substr(pos + 4);
}

/// The value of `actorflow_refused_connections_total{...port="<port>",reason="<reason>"}` in
/// the /metrics of the server whose status port is `status_port`; 0 when absent.
inline long refused_connections(std::uint16_t status_port, const std::string& reason,
                                const std::string& port = "caf") {
  const std::string body = http_get(status_port, "/metrics");
  const std::string key = "port=\"" + port + "\",reason=\"" + reason + "\"} ";
  auto at = body.find(key);
  return at == std::string::npos ? 0 : std::stol(body.substr(at + key.size()));
}

}  // namespace af::test
