#include "tls_tunnel.hpp"

#include <array>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <asio.hpp>
#include <asio/ssl.hpp>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;
using TlsStream = asio::ssl::stream<tcp::socket>;

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr std::size_t kPipeBuffer = 256 * 1024;

asio::ip::address parse_host(const std::string& host) {
  std::error_code ec;
  auto a = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) throw UnavailableError(unavailable("TLS: '" + host + "' is not an IP address: " + ec.message()));
  return a;
}

/// One connection: the TLS side and the plain loopback side, bytes pumped both ways until
/// either closes.
struct Pipe : std::enable_shared_from_this<Pipe> {
  Pipe(tcp::socket tls_socket, asio::ssl::context& ctx, tcp::socket plain_socket)
      : tls(std::move(tls_socket), ctx), plain(std::move(plain_socket)), timer(plain.get_executor()) {}
  TlsStream tls;
  tcp::socket plain;
  asio::steady_timer timer;
  std::array<char, kPipeBuffer> up{};    // plain -> tls
  std::array<char, kPipeBuffer> down{};  // tls -> plain
  bool closed = false;

  void close() {
    if (closed) return;
    closed = true;
    std::error_code ignored;
    timer.cancel();
    tls.lowest_layer().close(ignored);
    plain.close(ignored);
  }

  void start_pumps() {
    pump_down();
    pump_up();
  }
  void pump_down() {
    tls.async_read_some(asio::buffer(down), [self = shared_from_this()](std::error_code ec, std::size_t n) {
      if (ec) return self->close();
      asio::async_write(self->plain, asio::buffer(self->down.data(), n), [self](std::error_code ec2, std::size_t) {
        if (ec2) return self->close();
        self->pump_down();
      });
    });
  }
  void pump_up() {
    plain.async_read_some(asio::buffer(up), [self = shared_from_this()](std::error_code ec, std::size_t n) {
      if (ec) return self->close();
      asio::async_write(self->tls, asio::buffer(self->up.data(), n), [self](std::error_code ec2, std::size_t) {
        if (ec2) return self->close();
        self->pump_up();
      });
    });
  }
  void arm_timer() {
    timer.expires_after(kHandshakeTimeout);
    timer.async_wait([weak = weak_from_this()](std::error_code ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->close();
    });
  }
};

}  // namespace

struct TlsTunnels::Impl {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  asio::ssl::context ctx{asio::ssl::context::tls};
  std::thread thread;
  std::mutex mu;
  std::map<std::uint16_t, std::shared_ptr<tcp::acceptor>> servers;  // by public port
  std::map<std::pair<std::string, std::uint16_t>, std::uint16_t> forwarders;
  std::chrono::steady_clock::time_point last_refusal_log{};

  void log_refusal(const std::string& owner, const tcp::endpoint& peer, const std::error_code& ec) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_refusal_log < std::chrono::seconds(10)) return;
    last_refusal_log = now;
    log_info(owner + ": refused a connection from " + peer.address().to_string() + ":" + std::to_string(peer.port()) +
             " (TLS handshake failed: " + ec.message() + ")");
  }

  void accept(std::shared_ptr<tcp::acceptor> acceptor, std::uint16_t target_port, std::string owner) {
    acceptor->async_accept([this, acceptor, target_port, owner](std::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
      if (!ec) {
        std::error_code ignored;
        auto peer = socket.remote_endpoint(ignored);
        socket.set_option(tcp::no_delay(true), ignored);
        auto pipe = std::make_shared<Pipe>(std::move(socket), ctx, tcp::socket(io));
        pipe->arm_timer();
        pipe->tls.async_handshake(asio::ssl::stream_base::server, [this, pipe, target_port, owner, peer](std::error_code hs) {
          if (hs) {
            log_refusal(owner, peer, hs);
            return pipe->close();
          }
          pipe->plain.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), target_port),
                                    [pipe](std::error_code c) {
                                      if (c) return pipe->close();
                                      pipe->timer.cancel();
                                      std::error_code ignored2;
                                      pipe->plain.set_option(tcp::no_delay(true), ignored2);
                                      pipe->start_pumps();
                                    });
        });
      }
      accept(acceptor, target_port, owner);
    });
  }

  void forward(std::shared_ptr<tcp::acceptor> local, tcp::endpoint remote) {
    local->async_accept([this, local, remote](std::error_code ec, tcp::socket plain) {
      if (ec == asio::error::operation_aborted || !local->is_open()) return;
      if (!ec) {
        std::error_code ignored;
        plain.set_option(tcp::no_delay(true), ignored);
        auto pipe = std::make_shared<Pipe>(tcp::socket(io), ctx, std::move(plain));
        pipe->arm_timer();
        pipe->tls.lowest_layer().async_connect(remote, [pipe](std::error_code c) {
          if (c) return pipe->close();
          std::error_code ignored2;
          pipe->tls.lowest_layer().set_option(tcp::no_delay(true), ignored2);
          pipe->tls.async_handshake(asio::ssl::stream_base::client, [pipe](std::error_code hs) {
            if (hs) return pipe->close();
            pipe->timer.cancel();
            pipe->start_pumps();
          });
        });
      }
      forward(local, remote);
    });
  }
};

TlsTunnels::TlsTunnels(const RuntimeOptions& options) : impl_(std::make_shared<Impl>()) {
  auto& ctx = impl_->ctx;
  ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                  asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  if (!options.tls_passphrase.empty())
    ctx.set_password_callback([p = options.tls_passphrase](std::size_t, asio::ssl::context::password_purpose) { return p; });
  auto load = [&](const std::string& what, const std::string& file, auto&& fn) {
    std::error_code ec;
    fn(ec);
    if (ec) throw InvalidArgumentError(invalid_argument("TLS " + what + " " + file + ": " + ec.message()));
  };
  load("certificate", options.tls_certificate, [&](std::error_code& ec) { ctx.use_certificate_chain_file(options.tls_certificate, ec); });
  load("key", options.tls_key, [&](std::error_code& ec) { ctx.use_private_key_file(options.tls_key, asio::ssl::context::pem, ec); });
  load("CA file", options.tls_ca_file, [&](std::error_code& ec) { ctx.load_verify_file(options.tls_ca_file, ec); });
  ctx.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

TlsTunnels::~TlsTunnels() {
  impl_->work.reset();
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t TlsTunnels::serve(const std::string& host, std::uint16_t port, std::uint16_t target_port,
                                std::string owner) {
  auto acceptor = std::make_shared<tcp::acceptor>(impl_->io);
  tcp::endpoint endpoint(parse_host(host), port);
  std::error_code ec;
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw UnavailableError(unavailable(owner + ": cannot listen on " + host + ":" + std::to_string(port) + ": " +
                                       ec.message()));
  auto bound = acceptor->local_endpoint().port();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->servers[bound] = acceptor;
  }
  asio::post(impl_->io, [impl = impl_, acceptor, target_port, owner] { impl->accept(acceptor, target_port, owner); });
  return bound;
}

void TlsTunnels::stop_serving(std::uint16_t port) {
  std::shared_ptr<tcp::acceptor> acceptor;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->servers.find(port);
    if (it == impl_->servers.end()) return;
    acceptor = it->second;
    impl_->servers.erase(it);
  }
  asio::post(impl_->io, [acceptor] {
    std::error_code ignored;
    acceptor->close(ignored);
  });
}

std::uint16_t TlsTunnels::local_port_for(const std::string& host, std::uint16_t port) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto key = std::make_pair(host, port);
  if (auto it = impl_->forwarders.find(key); it != impl_->forwarders.end()) return it->second;
  auto local = std::make_shared<tcp::acceptor>(impl_->io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto local_port = local->local_endpoint().port();
  tcp::endpoint remote(parse_host(host), port);
  asio::post(impl_->io, [impl = impl_, local, remote] { impl->forward(local, remote); });
  impl_->forwarders.emplace(key, local_port);
  return local_port;
}

TlsTunnels* tls_tunnels(const Runtime& runtime) {
  if (!runtime.tls()) return nullptr;
  static std::mutex mu;
  static auto* by_files = new std::map<std::tuple<std::string, std::string, std::string>, TlsTunnels*>();
  const auto& o = runtime.options();
  auto key = std::make_tuple(o.tls_certificate, o.tls_key, o.tls_ca_file);
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*by_files)[key];
  if (!slot) slot = new TlsTunnels(o);  // never destroyed: connections may outlive any owner
  return slot;
}

std::pair<std::string, std::uint16_t> dial_address(const Runtime& runtime, const std::string& host,
                                                   std::uint16_t port) {
  if (auto* tunnels = tls_tunnels(runtime)) return {"127.0.0.1", tunnels->local_port_for(host, port)};
  return {host, port};
}

}  // namespace af::net
