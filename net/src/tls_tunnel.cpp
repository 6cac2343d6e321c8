#include "tls_tunnel.hpp"

#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <caf/io/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "basp_front_door.hpp"
#include "waiting_connections.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;
using TlsStream = asio::ssl::stream<tcp::socket>;

/// How long an outgoing connection may take to connect and shake hands.
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr std::size_t kPipeBuffer = 256 * 1024;
/// Memory freed by closed connections goes back to the system at most this often.
constexpr auto kTrimEvery = std::chrono::seconds(1);

asio::ip::address parse_host(const std::string& host) {
  std::error_code ec;
  auto a = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec)
    throw UnavailableError(
        unavailable("TLS: '" + host + "' is not an IP address: " + ec.message()));
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
/// holds), bytes pumped both ways until either closes. The pump buffers are allocated once
/// the TLS handshake is done: a connection that has not authenticated holds only OpenSSL's
/// state.
struct Pipe : std::enable_shared_from_this<Pipe> {
  Pipe(tcp::socket tls_socket, asio::ssl::context& ctx, asio::io_context& io)
      : tls(std::move(tls_socket), ctx), plain(io), timer(io) {}
  TlsStream tls;
  LocalSocket plain;
  asio::steady_timer timer;
  std::unique_ptr<char[]> up;    // plain -> tls
  std::unique_ptr<char[]> down;  // tls -> plain
  bool closed = false;
  bool authenticated = false;  ///< accepted connections: the TLS handshake went through
  std::chrono::steady_clock::time_point deadline;  ///< accepted connections: for the handshake
  std::string peer;
  std::function<void()> on_close;

  void close() {
    if (closed) return;
    closed = true;
    std::error_code ignored;
    timer.cancel();
    tls.lowest_layer().close(ignored);
    plain.close(ignored);
    if (on_close) std::exchange(on_close, nullptr)();
  }

  void start_pumps() {
    up = std::make_unique<char[]>(kPipeBuffer);
    down = std::make_unique<char[]>(kPipeBuffer);
    pump_down();
    pump_up();
  }
  void pump_down() {
    tls.async_read_some(asio::buffer(down.get(), kPipeBuffer),
                        [self = shared_from_this()](std::error_code ec, std::size_t n) {
                          if (ec) return self->close();
                          asio::async_write(self->plain, asio::buffer(self->down.get(), n),
                                            [self](std::error_code ec2, std::size_t) {
                                              if (ec2) return self->close();
                                              self->pump_down();
                                            });
                        });
  }
  void pump_up() {
    plain.async_read_some(asio::buffer(up.get(), kPipeBuffer),
                          [self = shared_from_this()](std::error_code ec, std::size_t n) {
                            if (ec) return self->close();
                            asio::async_write(self->tls, asio::buffer(self->up.get(), n),
                                              [self](std::error_code ec2, std::size_t) {
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
  /// A port served: its acceptor, the connections still shaking hands, and its timers.
  struct Served {
    Served(asio::io_context& io, TlsServeLimits l, Handover h, std::string o)
        : acceptor(io),
          backoff(io),
          sweeper(io),
          limits(std::move(l)),
          handover(std::move(h)),
          owner(std::move(o)),
          waiting("caf", limits.handshake_timeout, limits.max_unauthenticated, limits.refusals) {}
    tcp::acceptor acceptor;
    asio::steady_timer backoff;
    asio::steady_timer sweeper;
    TlsServeLimits limits;
    Handover handover;
    std::string owner;
    WaitingConnections<Pipe> waiting;  ///< tunnel thread
    std::vector<std::weak_ptr<Pipe>>
        pipes;  ///< tunnel thread: every accepted one, to close on stop
  };

  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  asio::ssl::context ctx{asio::ssl::context::tls};
  std::thread thread;
  std::mutex mu;
  std::map<std::uint16_t, std::shared_ptr<Served>> servers;  // by public port
  bool trim_pending = false;  ///< tunnel thread: pipes closed since the last trim
  std::chrono::steady_clock::time_point last_trim{};

  static bool shaking_hands(const Pipe& p) { return !p.authenticated && !p.closed; }

  void refuse(Served& served, const std::string& peer, const std::string& reason,
              const std::string& detail) {
    served.waiting.refuse(peer, reason, detail);
  }

  void accept(std::shared_ptr<Served> served) {
    served->acceptor.async_accept([this, served](std::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !served->acceptor.is_open()) return;
      if (out_of_descriptors(ec)) {
        refuse(*served, "(not accepted)", "descriptors",
               "cannot accept: " + ec.message() + "; trying again in 100 ms");
        return accept_later(served->backoff, [this, served] {
          if (served->acceptor.is_open()) accept(served);
        });
      }
      if (!ec) start(served, std::move(socket));
      accept(served);
    });
  }

  void start(const std::shared_ptr<Served>& served, tcp::socket socket) {
    std::error_code ignored;
    const auto peer = socket.remote_endpoint(ignored);
    const auto port = served->acceptor.local_endpoint(ignored).port();
    socket.set_option(tcp::no_delay(true), ignored);
    auto pipe = std::make_shared<Pipe>(std::move(socket), ctx, io);
    pipe->peer = peer.address().to_string() + ":" + std::to_string(peer.port());
    pipe->deadline = served->waiting.deadline_from_now();
    pipe->on_close = [this] { trim_pending = true; };
    if (served->pipes.size() % 64 == 63)
      std::erase_if(served->pipes, [](const std::weak_ptr<Pipe>& w) { return w.expired(); });
    served->pipes.push_back(pipe);
    served->waiting.add(pipe, shaking_hands, [](const std::shared_ptr<Pipe>& p) { p->close(); });
    pipe->tls.async_handshake(
        asio::ssl::stream_base::server, [this, served, pipe, port](std::error_code hs) {
          if (pipe->closed) return;  // its deadline, or the limit, closed it
          if (hs) {
            refuse(*served, pipe->peer, "tls_handshake", "TLS handshake failed: " + hs.message());
            return pipe->close();
          }
          pipe->authenticated = true;
          std::pair<int, int> fds;
          try {
            fds = socket_pair(served->owner);
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
          served->handover(fds.second, port, pipe->peer);
        });
  }

  /// Every 100 ms while `served` is open: closes connections past their handshake deadline,
  /// runs the owner's tick, and gives memory of closed connections back to the system.
  void sweep(std::shared_ptr<Served> served) {
    served->sweeper.expires_after(std::chrono::milliseconds(100));
    served->sweeper.async_wait([this, served](std::error_code ec) {
      if (ec || !served->acceptor.is_open()) return;
      served->waiting.trim(shaking_hands, [](const std::shared_ptr<Pipe>& p) { p->close(); });
      if (served->limits.tick) served->limits.tick();
      trim_memory();
      sweep(served);
    });
  }

  /// A flood of connections leaves glibc's arenas holding their memory after they close
  /// (their buffers came from the heap, not from mmap): hand it back, at most every second.
  void trim_memory() {
    const auto now = std::chrono::steady_clock::now();
    if (!trim_pending || now - last_trim < kTrimEvery) return;
    trim_pending = false;
    last_trim = now;
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
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
                  asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                  asio::ssl::context::no_tlsv1_1);
  if (!options.tls_passphrase.empty())
    ctx.set_password_callback([p = options.tls_passphrase](
                                  std::size_t, asio::ssl::context::password_purpose) { return p; });
  auto load = [&](const std::string& what, const std::string& file, auto&& fn) {
    std::error_code ec;
    fn(ec);
    if (ec)
      throw InvalidArgumentError(
          invalid_argument("TLS " + what + " " + file + ": " + ec.message()));
  };
  load("certificate", options.tls_certificate,
       [&](std::error_code& ec) { ctx.use_certificate_chain_file(options.tls_certificate, ec); });
  load("key", options.tls_key, [&](std::error_code& ec) {
    ctx.use_private_key_file(options.tls_key, asio::ssl::context::pem, ec);
  });
  load("CA file", options.tls_ca_file,
       [&](std::error_code& ec) { ctx.load_verify_file(options.tls_ca_file, ec); });
  ctx.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

TlsTunnels::~TlsTunnels() {
  impl_->work.reset();
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t TlsTunnels::serve(
    const std::string& host, std::uint16_t port,
    std::function<void(int fd, std::uint16_t port, const std::string& peer)> handover,
    std::string owner, TlsServeLimits limits) {
  auto served =
      std::make_shared<Impl::Served>(impl_->io, std::move(limits), std::move(handover), owner);
  auto& acceptor = served->acceptor;
  const std::error_code ec = listen_on(acceptor, host, port);
  if (ec)
    throw UnavailableError(unavailable(owner + ": cannot listen on " + host + ":" +
                                       std::to_string(port) + ": " + ec.message()));
  auto bound = acceptor.local_endpoint().port();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->servers[bound] = served;
  }
  asio::post(impl_->io, [impl = impl_, served] {
    impl->accept(served);
    impl->sweep(served);
  });
  return bound;
}

void TlsTunnels::stop_serving(std::uint16_t port) {
  std::shared_ptr<Impl::Served> served;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->servers.find(port);
    if (it == impl_->servers.end()) return;
    served = it->second;
    impl_->servers.erase(it);
  }
  // Connections still shaking hands close; those piped to CAF stay until either side closes.
  asio::post(impl_->io, [served] {
    std::error_code ignored;
    served->acceptor.close(ignored);
    served->backoff.cancel();
    served->sweeper.cancel();
    for (auto& w : served->pipes)
      if (auto p = w.lock(); p && !p->authenticated) p->close();
    served->pipes.clear();
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
    throw UnavailableError(unavailable("TLS: connecting to " + host + ":" + std::to_string(port) +
                                       ": " + ec.message()));
  }
  asio::post(impl_->io, [impl = impl_, pipe, remote] { impl->dial(pipe, remote); });
  return fds.second;
}

TlsTunnels* tls_tunnels(const Runtime& runtime) {
  if (!runtime.tls()) return nullptr;
  static std::mutex mu;
  static auto* by_files =
      new std::map<std::tuple<std::string, std::string, std::string>, TlsTunnels*>();
  const auto& o = runtime.options();
  auto key = std::make_tuple(o.tls_certificate, o.tls_key, o.tls_ca_file);
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*by_files)[key];
  if (!slot) slot = new TlsTunnels(o);  // never destroyed: connections may outlive any owner
  return slot;
}

std::uint16_t serve_over_tls(Runtime& runtime, const std::string& host, std::uint16_t port,
                             std::shared_ptr<BaspGuard> guard, const std::string& owner,
                             TlsServeLimits limits) {
  auto* tunnels = tls_tunnels(runtime);
  if (!tunnels) throw InternalError(internal(owner + ": serve_over_tls without TLS"));
  // The guard's handshake deadlines are enforced on the tunnel's timer.
  limits.tick = [guard] { guard->sweep(); };
  return tunnels->serve(
      host, port,
      [guard](int fd, std::uint16_t bound, const std::string& peer) {
        guard->adopt(fd, peer, bound);
      },
      owner, std::move(limits));
}

}  // namespace af::net
