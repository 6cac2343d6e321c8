#include "tensor_push.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <list>
#include <random>
#include <thread>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

constexpr auto kSendTimeout = std::chrono::seconds(10);
constexpr auto kConnectTimeout = std::chrono::seconds(2);
constexpr auto kRetryAfter = std::chrono::seconds(1);

void set_timeout(int fd, int option, std::chrono::milliseconds wait) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(wait.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(wait.count() % 1000 * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

/// Reads exactly `n` bytes straight into `p` (false on end of stream, error or timeout).
bool read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    ssize_t k = ::recv(fd, p, n, MSG_WAITALL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

std::string peer_name(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "an unknown peer";
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "an unknown peer";
  return std::string(host) + ":" + port;
}

/// A listening or connected socket for `host` (numeric or a name), or -1 with `*error` set.
int open_socket(const std::string& host, std::uint16_t port, bool listen, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = listen ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    *error = ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (listen) {
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) break;
    } else {
      // A connect bounded by kConnectTimeout: non-blocking, then poll.
      int flags = ::fcntl(fd, F_GETFL, 0);
      ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
      int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
      if (rc != 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        rc = ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(kConnectTimeout).count())) == 1 ? 0 : -1;
        int so_error = 0;
        socklen_t len = sizeof so_error;
        if (rc == 0 && (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0)) {
          errno = so_error;
          rc = -1;
        }
      }
      if (rc == 0) {
        ::fcntl(fd, F_SETFL, flags);
        break;
      }
    }
    *error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  return fd;
}

}  // namespace

// -- the server ------------------------------------------------------------------------------

struct TensorPushServer::Impl {
  std::string host;
  std::string owner;
  Deliver deliver;
  std::shared_ptr<Refusals> refusals;
  std::chrono::milliseconds handshake_timeout;
  std::size_t max_unauthenticated;
  int listen_fd = -1;
  std::uint16_t port = 0;
  std::uint64_t token = 0;
  std::atomic<std::uint64_t> frames{0};
  std::thread acceptor;

  std::mutex mu;
  bool stopping = false;
  struct Connection {
    int fd = -1;
    bool authenticated = false;
    bool done = false;
    std::thread thread;
  };
  std::list<Connection> connections;

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    if (refusals) refusals->refuse("push", peer, reason, detail);
  }

  void accept_loop() {
    for (;;) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));  // out of descriptors: let some close
          continue;
        }
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) {
        ::close(fd);
        return;
      }
      // Threads of connections that ended are joined here, by the only thread that adds.
      for (auto it = connections.begin(); it != connections.end();) {
        if (!it->done) {
          ++it;
          continue;
        }
        if (it->thread.joinable()) it->thread.join();
        it = connections.erase(it);
      }
      std::size_t waiting = 0;
      for (auto& c : connections) waiting += !c.authenticated;
      if (waiting >= max_unauthenticated) {
        refuse(peer_name(fd), "too_many_unauthenticated", "too many connections waiting for their hello");
        ::close(fd);
        continue;
      }
      auto& c = connections.emplace_back();
      c.fd = fd;
      c.thread = std::thread([this, conn = &c] { serve(conn); });
    }
  }

  void serve(Connection* c) {
    const int fd = c->fd;
    const std::string peer = peer_name(fd);
    auto end = [&] {
      std::lock_guard<std::mutex> lock(mu);
      if (!stopping) {  // stop() closes it otherwise, after joining this thread
        ::close(fd);
        c->fd = -1;
      }
      c->done = true;
    };
    set_timeout(fd, SO_RCVTIMEO, handshake_timeout);
    char hello[kPushHelloBytes];
    if (!read_exact(fd, hello, sizeof hello)) {
      refuse(peer, "handshake_timeout", "no hello within " + std::to_string(handshake_timeout.count()) + " ms");
      return end();
    }
    if (const PushHello h = decode_push_hello(std::string_view(hello, sizeof hello)); !h.magic || h.token != token) {
      refuse(peer, "bad_hello", "not the push protocol, or a wrong token");
      return end();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      c->authenticated = true;
    }
    set_timeout(fd, SO_RCVTIMEO, std::chrono::milliseconds(0));  // a peer may be idle for long
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::string key, meta;
    for (;;) {
      char header[kPushFrameHeaderBytes];
      if (!read_exact(fd, header, sizeof header)) return end();  // the peer closed or went away
      const PushFrameHeader h = decode_push_frame_header(std::string_view(header, sizeof header));
      if (!h.valid) {
        refuse(peer, "bad_frame", "a frame header out of bounds");
        return end();
      }
      key.resize(h.key_length);
      meta.resize(h.meta_length);
      if (!read_exact(fd, key.data(), h.key_length) || !read_exact(fd, meta.data(), h.meta_length)) return end();
      PushMeta m = decode_push_meta(meta, h.data_length);
      if (!m.valid) {
        refuse(peer, "bad_frame", "tensor " + key + ": a dtype or shape that does not match its " +
                                      std::to_string(h.data_length) + " bytes");
        return end();
      }
      Tensor value;
      try {
        value = Tensor(static_cast<DType>(m.dtype), Shape(std::move(m.dims)), Tensor::for_overwrite);
      } catch (const std::exception& e) {  // bad_alloc: more than this task can hold
        refuse(peer, "oversized", "tensor " + key + " of " + std::to_string(h.data_length) + " bytes: " + e.what());
        return end();
      }
      if (!read_exact(fd, static_cast<char*>(value.raw_data()), h.data_length)) return end();
      ++frames;
      deliver(h.step_id, key, std::move(value), kPushFrameHeaderBytes + h.key_length + h.meta_length + h.data_length);
    }
  }

  void stop() {
    std::list<Connection> ending;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) return;
      stopping = true;
      if (listen_fd >= 0) ::shutdown(listen_fd, SHUT_RDWR);
      for (auto& c : connections)
        if (c.fd >= 0) ::shutdown(c.fd, SHUT_RDWR);
    }
    if (acceptor.joinable()) acceptor.join();
    {
      std::lock_guard<std::mutex> lock(mu);
      ending.splice(ending.end(), connections);
    }
    for (auto& c : ending) {
      if (c.thread.joinable()) c.thread.join();
      if (c.fd >= 0) ::close(c.fd);
    }
    if (listen_fd >= 0) ::close(listen_fd);
    listen_fd = -1;
  }
};

TensorPushServer::TensorPushServer(const std::string& host, std::string owner, Deliver deliver,
                                   std::shared_ptr<Refusals> refusals, std::chrono::milliseconds handshake_timeout,
                                   std::size_t max_unauthenticated)
    : impl_(std::make_shared<Impl>()) {
  impl_->host = host;
  impl_->owner = std::move(owner);
  impl_->deliver = std::move(deliver);
  impl_->refusals = std::move(refusals);
  impl_->handshake_timeout = handshake_timeout;
  impl_->max_unauthenticated = std::max<std::size_t>(1, max_unauthenticated);
  std::string error;
  impl_->listen_fd = open_socket(host, 0, /*listen=*/true, &error);
  if (impl_->listen_fd < 0)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open its tensor push port on " + host + ": " + error));
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl_->port = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  std::random_device rd;
  do {
    impl_->token = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  } while (impl_->token == 0);
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

TensorPushServer::~TensorPushServer() { stop(); }

void TensorPushServer::stop() { impl_->stop(); }

PushEndpoint TensorPushServer::endpoint() const { return {impl_->host, impl_->port, impl_->token}; }

std::uint64_t TensorPushServer::frames_received() const noexcept { return impl_->frames.load(); }

// -- the client ------------------------------------------------------------------------------

struct TensorPushClient::Impl {
  PushEndpoint endpoint;
  std::string what;
  std::mutex mu;
  int fd = -1;
  std::chrono::steady_clock::time_point retry_at{};

  bool connect_locked() {
    if (fd >= 0) return true;
    if (std::chrono::steady_clock::now() < retry_at) return false;
    std::string error;
    fd = open_socket(endpoint.host, endpoint.port, /*listen=*/false, &error);
    if (fd >= 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      set_timeout(fd, SO_SNDTIMEO, kSendTimeout);
      const std::string hello = encode_push_hello(endpoint.token);
      if (::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(hello.size())) return true;
      error = std::strerror(errno);
    }
    fail_locked("cannot connect to its tensor push port " + endpoint.host + ":" + std::to_string(endpoint.port) + ": " +
                error);
    return false;
  }

  void fail_locked(const std::string& why) {
    if (fd >= 0) ::close(fd);
    fd = -1;
    retry_at = std::chrono::steady_clock::now() + kRetryAfter;
    log_info("tensor push to " + what + ": " + why + "; its tensors travel over CAF meanwhile");
  }
};

TensorPushClient::TensorPushClient(PushEndpoint endpoint, std::string what) : impl_(std::make_unique<Impl>()) {
  impl_->endpoint = std::move(endpoint);
  impl_->what = std::move(what);
}

TensorPushClient::~TensorPushClient() {
  if (impl_->fd >= 0) ::close(impl_->fd);
}

std::size_t TensorPushClient::send(std::int64_t step_id, const std::string& key, const Tensor& value) {
  const std::string meta = encode_push_meta(static_cast<std::uint8_t>(value.dtype()), value.shape().dims());
  std::string header = encode_push_frame_header(step_id, static_cast<std::uint32_t>(key.size()),
                                                static_cast<std::uint32_t>(meta.size()), value.total_bytes());
  iovec parts[4] = {{header.data(), header.size()},
                    {const_cast<char*>(key.data()), key.size()},
                    {const_cast<char*>(meta.data()), meta.size()},
                    {const_cast<void*>(value.raw_data()), value.total_bytes()}};
  const std::size_t total = header.size() + key.size() + meta.size() + value.total_bytes();
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->connect_locked()) return 0;
  iovec* part = parts;
  int left = 4;
  while (left > 0) {
    msghdr msg{};
    msg.msg_iov = part;
    msg.msg_iovlen = static_cast<std::size_t>(left);
    ssize_t k = ::sendmsg(impl_->fd, &msg, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      // Part of a frame may have gone out: the server drops the connection's partial frame
      // when it closes, and the caller sends the whole tensor another way.
      impl_->fail_locked(std::string("write failed: ") + (k == 0 ? "nothing written" : std::strerror(errno)));
      return 0;
    }
    auto written = static_cast<std::size_t>(k);
    while (left > 0 && written >= part->iov_len) {
      written -= part->iov_len;
      ++part;
      --left;
    }
    if (left > 0) {
      part->iov_base = static_cast<char*>(part->iov_base) + written;
      part->iov_len -= written;
    }
  }
  return total;
}

}  // namespace af::net
