#include "status_http.hpp"

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "waiting_connections.hpp"
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
    asio::steady_timer timer;
    asio::streambuf request{kMaxRequest};
    std::string response;
  };

  asio::io_context io;
  tcp::acceptor acceptor{io};
  Handler handler;
  std::string owner;
  std::thread thread;
  std::uint16_t port = 0;
  std::atomic<std::size_t> connections{0};
  bool stopped = false;
  asio::steady_timer backoff{io};
  std::shared_ptr<Refusals> refusals;

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    if (refusals) refusals->refuse("status", peer, reason, detail);
  }

  static std::string peer_of(const tcp::socket& socket) {
    std::error_code ignored;
    const auto remote = socket.remote_endpoint(ignored);
    return remote.address().to_string() + ":" + std::to_string(remote.port());
  }

  void accept() {
    acceptor.async_accept([this](std::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (out_of_descriptors(ec)) {
        refuse("(not accepted)", "descriptors",
               "cannot accept: " + ec.message() + "; trying again in 100 ms");
        return accept_later(backoff, [this] { accept(); });
      }
      if (!ec) {
        if (connections.load() >= kMaxConnections) {
          refuse(peer_of(socket), "full",
                 std::to_string(kMaxConnections) + " status connections are open");
          socket.close(ec);
        } else {
          auto c = std::make_shared<Connection>(io);
          c->socket = std::move(socket);
          ++connections;
          serve(c);
        }
      }
      accept();
    });
  }

  void close(const std::shared_ptr<Connection>& c) {
    if (!c->socket.is_open()) return;
    std::error_code ignored;
    c->socket.close(ignored);
    c->timer.cancel();
    --connections;
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
  impl_->refusals = std::move(refusals);
  const std::error_code ec = listen_on(impl_->acceptor, host, port);
  if (ec)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open the status port " + host +
                                       ":" + std::to_string(port) + ": " + ec.message()));
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

StatusHttpServer::~StatusHttpServer() { stop(); }

void StatusHttpServer::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t StatusHttpServer::port() const noexcept { return impl_->port; }

}  // namespace af::net
