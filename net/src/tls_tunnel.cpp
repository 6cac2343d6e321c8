#include "tls_tunnel.hpp"

#include <array>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <caf/io/all.hpp>
#include <caf/io/basp_broker.hpp>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "basp_front_door.hpp"

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

using LocalSocket = asio::local::stream_protocol::socket;

/// A connected pair of local stream sockets: one end for the tunnel, one handed to CAF.
std::pair<int, int> socket_pair(const std::string& what) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw UnavailableError(unavailable("TLS: " + what + ": socketpair: " + std::strerror(errno)));
  return {fds[0], fds[1]};
}

/// One connection: the TLS side and the local side (a socket pair whose other end CAF
/// holds), bytes pumped both ways until either closes.
struct Pipe : std::enable_shared_from_this<Pipe> {
  Pipe(tcp::socket tls_socket, asio::ssl::context& ctx, asio::io_context& io)
      : tls(std::move(tls_socket), ctx), plain(io), timer(io) {}
  TlsStream tls;
  LocalSocket plain;
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
  using Handover = std::function<void(int fd, std::uint16_t port, const std::string& peer)>;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  asio::ssl::context ctx{asio::ssl::context::tls};
  std::thread thread;
  std::mutex mu;
  std::map<std::uint16_t, std::shared_ptr<tcp::acceptor>> servers;  // by public port
  std::chrono::steady_clock::time_point last_refusal_log{};

  void log_refusal(const std::string& owner, const tcp::endpoint& peer, const std::error_code& ec) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_refusal_log < std::chrono::seconds(10)) return;
    last_refusal_log = now;
    log_info(owner + ": refused a connection from " + peer.address().to_string() + ":" + std::to_string(peer.port()) +
             " (TLS handshake failed: " + ec.message() + ")");
  }

  void accept(std::shared_ptr<tcp::acceptor> acceptor, std::shared_ptr<const Handover> handover, std::string owner) {
    acceptor->async_accept([this, acceptor, handover, owner](std::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
      if (!ec) {
        std::error_code ignored;
        auto peer = socket.remote_endpoint(ignored);
        const auto port = acceptor->local_endpoint(ignored).port();
        socket.set_option(tcp::no_delay(true), ignored);
        auto pipe = std::make_shared<Pipe>(std::move(socket), ctx, io);
        pipe->arm_timer();
        pipe->tls.async_handshake(asio::ssl::stream_base::server, [this, pipe, handover, owner, peer, port](std::error_code hs) {
          if (hs) {
            log_refusal(owner, peer, hs);
            return pipe->close();
          }
          pipe->timer.cancel();
          std::pair<int, int> fds;
          try {
            fds = socket_pair(owner);
          } catch (const Error& e) {
            log_info(std::string(e.what()));
            return pipe->close();
          }
          std::error_code assigned;
          pipe->plain.assign(asio::local::stream_protocol(), fds.first, assigned);
          if (assigned) {
            ::close(fds.first);
            ::close(fds.second);
            return pipe->close();
          }
          pipe->start_pumps();
          (*handover)(fds.second, port, peer.address().to_string() + ":" + std::to_string(peer.port()));
        });
      }
      accept(acceptor, handover, owner);
    });
  }

  /// Connects `pipe`'s TLS side to `remote`, then pumps.
  void dial(std::shared_ptr<Pipe> pipe, tcp::endpoint remote) {
    pipe->arm_timer();
    pipe->tls.lowest_layer().async_connect(remote, [pipe](std::error_code c) {
      if (c) return pipe->close();
      std::error_code ignored;
      pipe->tls.lowest_layer().set_option(tcp::no_delay(true), ignored);
      pipe->tls.async_handshake(asio::ssl::stream_base::client, [pipe](std::error_code hs) {
        if (hs) return pipe->close();
        pipe->timer.cancel();
        pipe->start_pumps();
      });
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

std::uint16_t TlsTunnels::serve(const std::string& host, std::uint16_t port,
                                std::function<void(int fd, std::uint16_t port, const std::string& peer)> handover,
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
  auto shared = std::make_shared<const Impl::Handover>(std::move(handover));
  asio::post(impl_->io, [impl = impl_, acceptor, shared, owner] { impl->accept(acceptor, shared, owner); });
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

int TlsTunnels::connect(const std::string& host, std::uint16_t port) {
  tcp::endpoint remote(parse_host(host), port);
  auto fds = socket_pair("connecting to " + host + ":" + std::to_string(port));
  auto pipe = std::make_shared<Pipe>(tcp::socket(impl_->io), impl_->ctx, impl_->io);
  std::error_code ec;
  pipe->plain.assign(asio::local::stream_protocol(), fds.first, ec);
  if (ec) {
    ::close(fds.first);
    ::close(fds.second);
    throw UnavailableError(unavailable("TLS: connecting to " + host + ":" + std::to_string(port) + ": " + ec.message()));
  }
  asio::post(impl_->io, [impl = impl_, pipe, remote] { impl->dial(pipe, remote); });
  return fds.second;
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

std::pair<caf::actor, caf::message> dial(Runtime& runtime, const std::string& host, std::uint16_t port) {
  auto& mm = runtime.system().middleman();
  auto* tunnels = tls_tunnels(runtime);
  if (!tunnels)
    return {caf::actor_cast<caf::actor>(mm.actor_handle()), caf::make_message(caf::connect_atom::value, host, port)};
  int fd = tunnels->connect(host, port);
  auto scribe = mm.backend().new_scribe(fd);
  return {mm.named_broker<caf::io::basp_broker>(caf::atom("BASP")),
          caf::make_message(caf::connect_atom::value, std::move(scribe), port)};
}

std::uint16_t serve_over_tls(Runtime& runtime, const std::string& host, std::uint16_t port,
                             std::shared_ptr<BaspGuard> guard, const std::string& owner) {
  auto* tunnels = tls_tunnels(runtime);
  if (!tunnels) throw InternalError(internal(owner + ": serve_over_tls without TLS"));
  return tunnels->serve(
      host, port,
      [guard](int fd, std::uint16_t bound, const std::string& peer) { guard->adopt(fd, peer, bound); }, owner);
}

}  // namespace af::net
