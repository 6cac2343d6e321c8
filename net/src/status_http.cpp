#include "status_http.hpp"

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "tcp_listener.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;

constexpr std::size_t kMaxRequest = 8192;
constexpr auto kRequestTimeout = std::chrono::seconds(5);
constexpr std::size_t kMaxConnections = 64;

const char* reason(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Internal Server Error";
  }
}

}  // namespace

struct StatusHttpServer::Impl {
  struct Connection {
    explicit Connection(asio::io_context& io) : socket(io), timer(io) {}
    tcp::socket socket;
    asio::steady_timer timer;  ///< the request's deadline (kRequestTimeout)
    asio::streambuf request{kMaxRequest};
    std::string response;
    std::string peer;
    std::chrono::steady_clock::time_point deadline;  ///< set by the listener (unused here)
  };

  asio::io_context io;
  Handler handler;
  std::string owner;
  std::thread thread;
  bool stopped = false;
  /// The port's accept loop and bounds (tcp_listener.hpp); a request's own deadline is its
  /// connection's timer.
  std::unique_ptr<TcpListener<Connection>> listener;

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    listener->refuse(peer, reason, detail);
  }

  static std::string peer_of(const tcp::socket& socket) {
    std::error_code ignored;
    const auto remote = socket.remote_endpoint(ignored);
    return remote.address().to_string() + ":" + std::to_string(remote.port());
  }

  void close(const std::shared_ptr<Connection>& c) {
    if (!c->socket.is_open()) return;
    std::error_code ignored;
    c->socket.close(ignored);
    c->timer.cancel();
    listener->closed();
  }

  void respond(const std::shared_ptr<Connection>& c, int code, const std::string& body,
               const std::string& type) {
    std::ostringstream out;
    out << "HTTP/1.1 " << code << ' ' << reason(code) << "\r\nContent-Type: " << type
        << "\r\nContent-Length: " << body.size() << "\r\nConnection: close\r\n\r\n"
        << body;
    c->response = out.str();
    asio::async_write(c->socket, asio::buffer(c->response),
                      [this, c](std::error_code, std::size_t) {
                        std::error_code ignored;
                        c->socket.shutdown(tcp::socket::shutdown_both, ignored);
                        close(c);
                      });
  }

  void serve(const std::shared_ptr<Connection>& c) {
    c->timer.expires_after(kRequestTimeout);
    c->timer.async_wait([this, c](std::error_code ec) {
      if (ec || !c->socket.is_open()) return;
      refuse(peer_of(c->socket), "handshake_timeout",
             "no complete request within " +
                 std::to_string(std::chrono::milliseconds(kRequestTimeout).count()) + " ms");
      close(c);
    });
    asio::async_read_until(
        c->socket, c->request, "\r\n\r\n", [this, c](std::error_code ec, std::size_t) {
          if (ec == asio::error::not_found) {
            refuse(peer_of(c->socket), "oversized",
                   "a request over " + std::to_string(kMaxRequest) + " bytes");
            return respond(c, 431, "request too large\n", "text/plain");
          }
          if (ec) return close(c);
          const auto data = c->request.data();
          const HttpRequest request = parse_http_request(
              std::string_view(static_cast<const char*>(data.data()), data.size()));
          if (request.code == 400) return respond(c, 400, "bad request\n", "text/plain");
          if (request.code == 405) return respond(c, 405, "only GET\n", "text/plain");
          const std::string& path = request.path;
          std::string body, type = "text/plain";
          int code = 500;
          try {
            code = handler(path, &body, &type);
          } catch (const std::exception& e) {
            body = std::string(e.what()) + "\n";
            type = "text/plain";
          }
          respond(c, code, body, type);
        });
  }
};

StatusHttpServer::StatusHttpServer(const std::string& host, std::uint16_t port, Handler handler,
                                   std::string owner, std::shared_ptr<Refusals> refusals)
    : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  impl_->owner = std::move(owner);
  impl_->listener = std::make_unique<TcpListener<Impl::Connection>>(
      impl_->io, "status", ListenerLimits{kRequestTimeout, kMaxConnections, kMaxConnections},
      std::move(refusals));
  const std::error_code ec = impl_->listener->listen(host, port);
  if (ec)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open the status port " + host +
                                       ":" + std::to_string(port) + ": " + ec.message()));
  Impl* impl = impl_.get();
  impl_->listener->start(
      [impl](tcp::socket socket, std::string peer) {
        auto c = std::make_shared<Impl::Connection>(impl->io);
        c->socket = std::move(socket);
        c->peer = std::move(peer);
        return c;
      },
      // A request's deadline is its connection's own timer, which closes it unanswered.
      [](const Impl::Connection&) { return false; },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->close(c); },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->serve(c); });
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

StatusHttpServer::~StatusHttpServer() { stop(); }

void StatusHttpServer::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t StatusHttpServer::port() const noexcept { return impl_->listener->port(); }

}  // namespace af::net
