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

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <future>
#include <list>
#include <random>
#include <thread>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "tcp_connect.hpp"
#include "tcp_listener.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;

constexpr auto kConnectTimeout = std::chrono::seconds(2);
constexpr auto kRetryAfter = std::chrono::seconds(1);
/// Bytes of a refused frame's tensor are read past in pieces of this size.
constexpr std::size_t kSkipPiece = 64 * 1024;

void set_timeout(int fd, int option, std::chrono::milliseconds wait) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(wait.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(wait.count() % 1000 * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

/// Reads exactly `n` bytes straight into `p` (false on end of stream or error).
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

/// Reads and drops `n` bytes (false on end of stream or error).
bool skip_exact(int fd, std::uint64_t n) {
  std::vector<char> scratch(static_cast<std::size_t>(std::min<std::uint64_t>(n, kSkipPiece)));
  while (n > 0) {
    const auto piece = static_cast<std::size_t>(std::min<std::uint64_t>(n, scratch.size()));
    if (!read_exact(fd, scratch.data(), piece)) return false;
    n -= piece;
  }
  return true;
}

/// Writes all of `bytes` on blocking `fd` (false on error or its send timeout).
bool write_exact(int fd, const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

/// Waits until `deadline` for the server's 16-byte answer to the hello on blocking `fd`:
/// OK when it accepted the connection.
Status await_answer(int fd, std::chrono::steady_clock::time_point deadline) {
  char answer[kPushHelloBytes];
  std::size_t have = 0;
  while (have < sizeof answer) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0)
      return unavailable("no answer to its hello within " +
                         std::to_string(std::chrono::milliseconds(kConnectTimeout).count()) +
                         " ms");
    if (r < 0) return unavailable(std::string("poll: ") + std::strerror(errno));
    const ssize_t k = ::recv(fd, answer + have, sizeof answer - have, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) return unavailable("the connection was closed before its hello was answered");
    if (k < 0) return unavailable(std::strerror(errno));
    have += static_cast<std::size_t>(k);
  }
  const PushHello a = decode_push_hello(std::string_view(answer, sizeof answer));
  if (!a.magic) return unavailable("not a push port's answer");
  if (a.token != 0) {
    const auto code = a.token <= static_cast<std::uint64_t>(Code::unauthenticated)
                          ? static_cast<Code>(a.token)
                          : Code::unknown;
    return unavailable(std::string("its hello was refused (") + std::string(code_name(code)) + ")");
  }
  return {};
}

}  // namespace

// -- the server ------------------------------------------------------------------------------

struct TensorPushServer::Impl : std::enable_shared_from_this<TensorPushServer::Impl> {
  /// A connection that has not been accepted yet (io thread only).
  struct Pending {
    explicit Pending(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    std::array<char, kPushHelloBytes> hello{};
    bool authenticated = false;
    bool closed = false;
    std::chrono::steady_clock::time_point deadline;  ///< for the whole hello, from accept
    std::string peer;
  };
  /// An accepted connection and the thread that reads its frames.
  struct Reader {
    int fd = -1;
    std::string peer;
    bool done = false;
    std::thread thread;
  };

  std::string owner;
  Deliver deliver;
  Fail fail;
  std::shared_ptr<Refusals> refusals;
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t token = 0;
  std::atomic<std::uint64_t> frames{0};

  asio::io_context io;
  std::thread io_thread;
  /// The port's accept loop and bounds (tcp_listener.hpp).
  std::unique_ptr<TcpListener<Pending>> listener;
  std::vector<std::weak_ptr<Pending>> pending;  ///< io thread: to close them all on stop

  mutable std::mutex mu;
  bool stopping = false;
  std::list<Reader> readers;  ///< guarded by mu

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    listener->refuse(peer, reason, detail);
  }

  // -- accepted connections and hellos (io thread) ----------------------------------------

  std::shared_ptr<Pending> make(tcp::socket socket, std::string peer) {
    auto c = std::make_shared<Pending>(io);
    c->socket = std::move(socket);
    c->peer = std::move(peer);
    if (pending.size() % 64 == 63)  // connections that ended leave their slot behind
      std::erase_if(pending, [](const std::weak_ptr<Pending>& w) { return w.expired(); });
    pending.push_back(c);
    return c;
  }

  void start(const std::shared_ptr<Pending>& c) {
    asio::async_read(
        c->socket, asio::buffer(c->hello),
        [self = shared_from_this(), c](std::error_code ec, std::size_t) {
          if (ec || c->closed) return self->close(c);  // the peer left, or its deadline closed it
          const PushHello h = decode_push_hello(std::string_view(c->hello.data(), c->hello.size()));
          if (!h.magic) {
            self->refuse(c->peer, "not_push", "not the push protocol");
            return self->close(c);
          }
          if (h.token != self->token) {
            self->refuse(c->peer, "unknown_token",
                         "a hello with a token this server never gave out");
            return self->answer_and_close(c, static_cast<std::uint64_t>(Code::unauthenticated));
          }
          c->authenticated = true;
          self->hand_to_reader(c);
        });
  }

  static bool is_waiting(const Pending& c) { return !c.authenticated && !c.closed; }

  void close(const std::shared_ptr<Pending>& c) {
    if (c->closed) return;
    c->closed = true;
    std::error_code ignored;
    c->socket.close(ignored);
    listener->closed();
  }

  void answer_and_close(const std::shared_ptr<Pending>& c, std::uint64_t code) {
    auto bytes = std::make_shared<std::string>(encode_push_hello(code));
    asio::async_write(
        c->socket, asio::buffer(*bytes),
        [self = shared_from_this(), c, bytes](std::error_code, std::size_t) { self->close(c); });
  }

  /// The hello was right: the connection leaves the io thread for a reading thread of its
  /// own, which answers the hello first.
  void hand_to_reader(const std::shared_ptr<Pending>& c) {
    std::error_code ec;
    const int fd = c->socket.release(ec);
    c->closed = true;
    listener->closed();  // it leaves the listener for a reading thread
    if (ec || fd < 0) return;
    const int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // Asio made it non-blocking
    std::lock_guard<std::mutex> lock(mu);
    if (stopping) {
      ::close(fd);
      return;
    }
    // Threads of connections that ended are joined here, by the only thread that adds.
    for (auto it = readers.begin(); it != readers.end();) {
      if (!it->done) {
        ++it;
        continue;
      }
      if (it->thread.joinable()) it->thread.join();
      it = readers.erase(it);
    }
    auto& r = readers.emplace_back();
    r.fd = fd;
    r.peer = c->peer;
    r.thread = std::thread([this, reader = &r] { serve(reader); });
  }

  // -- reading frames (a thread per accepted connection) ----------------------------------

  void serve(Reader* r) {
    const int fd = r->fd;
    const std::string& peer = r->peer;
    auto end = [&] {
      std::lock_guard<std::mutex> lock(mu);
      if (!stopping) {  // stop() closes it otherwise, after joining this thread
        ::close(fd);
        r->fd = -1;
      }
      r->done = true;
    };
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    set_timeout(fd, SO_SNDTIMEO, std::chrono::seconds(5));
    if (!write_exact(fd, encode_push_hello(0))) return end();  // accepted: frames may come
    std::string key, meta;
    for (;;) {
      char header[kPushFrameHeaderBytes];
      if (!read_exact(fd, header, sizeof header)) return end();  // the peer closed or went away
      const PushFrameHeader h = decode_push_frame_header(std::string_view(header, sizeof header));
      if (!h.valid) {
        refuse(peer, "bad_frame", "a frame header out of bounds");
        return end();  // nothing tells where the next frame starts
      }
      const std::size_t frame_bytes =
          kPushFrameHeaderBytes + h.key_length + h.meta_length + h.data_length;
      if (h.kind != PushKind::tensor) {
        // A control frame: its payload is read straight into the string delivered.
        Frame frame{h.step_id, h.kind, {}, {}, {}, frame_bytes};
        try {
          frame.payload.resize(h.data_length);
        } catch (const std::exception& e) {  // bad_alloc: more than this task can hold
          refuse(peer, "oversized",
                 owner + ": cannot take a " + push_kind_name(h.kind) + " frame of " +
                     std::to_string(h.data_length) + " bytes pushed by " + peer + ": " + e.what());
          return end();
        }
        if (!read_exact(fd, frame.payload.data(), h.data_length)) return end();
        ++frames;
        deliver(std::move(frame));
        continue;
      }
      key.resize(h.key_length);
      meta.resize(h.meta_length);
      if (!read_exact(fd, key.data(), h.key_length) || !read_exact(fd, meta.data(), h.meta_length))
        return end();
      PushMeta m = decode_push_meta(meta, h.data_length);
      Tensor value;
      Status refused;
      if (!m.valid) {
        refused = data_loss(owner + ": tensor " + key + " pushed by " + peer +
                            " has a dtype or shape that does not match its " +
                            std::to_string(h.data_length) + " bytes");
        refuse(peer, "bad_frame", refused.message());
      } else {
        try {
          value =
              Tensor(static_cast<DType>(m.dtype), Shape(std::move(m.dims)), Tensor::for_overwrite);
        } catch (const std::exception& e) {  // bad_alloc: more than this task can hold
          refused = resource_exhausted(owner + ": cannot take tensor " + key + " of " +
                                       std::to_string(h.data_length) + " bytes pushed by " + peer +
                                       ": " + e.what());
          refuse(peer, "oversized", refused.message());
        }
      }
      if (!refused.ok()) {
        // The frame is read past, so that the frames after it still arrive, and its step
        // fails here at once.
        if (fail) fail(h.step_id, key, refused);
        if (!skip_exact(fd, h.data_length)) return end();
        continue;
      }
      if (!read_exact(fd, static_cast<char*>(value.raw_data()), h.data_length)) return end();
      ++frames;
      deliver(Frame{h.step_id, PushKind::tensor, key, std::move(value), {}, frame_bytes});
    }
  }

  // -- stopping ------------------------------------------------------------------------------

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) return;
      stopping = true;
      for (auto& r : readers)
        if (r.fd >= 0) ::shutdown(r.fd, SHUT_RDWR);
    }
    std::promise<void> closed;
    asio::post(io, [this, &closed] {
      listener->stop();
      for (auto& w : pending)
        if (auto c = w.lock()) close(c);
      pending.clear();
      closed.set_value();
    });
    closed.get_future().wait_for(std::chrono::seconds(5));
    // No io.stop(): the handlers of the closed acceptor, timers and connections run (they
    // end at once) and the io thread returns with nothing left; stopped, their queued
    // handlers would keep this Impl (shared_from_this) and all it holds alive for good.
    if (io_thread.joinable()) io_thread.join();
    std::list<Reader> ending;
    {
      std::lock_guard<std::mutex> lock(mu);
      ending.splice(ending.end(), readers);
    }
    for (auto& r : ending) {
      if (r.thread.joinable()) r.thread.join();
      if (r.fd >= 0) ::close(r.fd);
    }
  }
};

TensorPushServer::TensorPushServer(const std::string& host, std::string owner, Deliver deliver,
                                   Fail fail, std::shared_ptr<Refusals> refusals,
                                   std::chrono::milliseconds handshake_timeout,
                                   std::size_t max_unauthenticated)
    : impl_(std::make_shared<Impl>()) {
  impl_->host = host;
  impl_->owner = std::move(owner);
  impl_->deliver = std::move(deliver);
  impl_->fail = std::move(fail);
  impl_->refusals = refusals;
  impl_->listener = std::make_unique<TcpListener<Impl::Pending>>(
      impl_->io, "push",
      ListenerLimits{handshake_timeout, std::max<std::size_t>(1, max_unauthenticated)},
      std::move(refusals));
  const std::error_code ec = impl_->listener->listen(host, 0);
  if (ec)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open its tensor push port on " +
                                       host + ": " + ec.message()));
  impl_->port = impl_->listener->port();
  std::random_device rd;
  do {
    impl_->token = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  } while (impl_->token == 0);
  Impl* impl = impl_.get();
  impl_->listener->start(
      [impl](tcp::socket socket, std::string peer) { return impl->make(std::move(socket), peer); },
      Impl::is_waiting, [impl](const std::shared_ptr<Impl::Pending>& c) { impl->close(c); },
      [impl](const std::shared_ptr<Impl::Pending>& c) { impl->start(c); });
  impl_->io_thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

TensorPushServer::~TensorPushServer() { stop(); }

void TensorPushServer::stop() { impl_->stop(); }

PushEndpoint TensorPushServer::endpoint() const { return {impl_->host, impl_->port, impl_->token}; }

std::uint64_t TensorPushServer::frames_received() const noexcept { return impl_->frames.load(); }

std::size_t TensorPushServer::open_connections() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& r : impl_->readers) n += !r.done;
  return n;
}

// -- the client ------------------------------------------------------------------------------

struct TensorPushClient::Impl {
  PushEndpoint endpoint;
  std::string what;
  std::chrono::milliseconds send_timeout{10000};
  std::mutex mu;
  int fd = -1;
  std::chrono::steady_clock::time_point retry_at{};

  /// Connects and waits for the server to accept the hello; false (and the connection
  /// closed) when it does not.
  bool connect_locked() {
    if (fd >= 0) return true;
    if (std::chrono::steady_clock::now() < retry_at) return false;
    const auto deadline = std::chrono::steady_clock::now() + kConnectTimeout;
    std::string error;
    fd = connect_tcp(endpoint.host, endpoint.port, deadline, &error);
    if (fd >= 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      set_timeout(fd, SO_SNDTIMEO, send_timeout);
      if (!write_exact(fd, encode_push_hello(endpoint.token))) {
        error = std::strerror(errno);
      } else if (Status answered = await_answer(fd, deadline); !answered.ok()) {
        error = answered.message();
      } else {
        return true;
      }
    }
    fail_locked("cannot use its tensor push port " + endpoint.host + ":" +
                std::to_string(endpoint.port) + ": " + error);
    return false;
  }

  /// Writes the frame `parts` (gathered, at most IOV_MAX at a time) on the connection,
  /// connecting first; the bytes written, or 0 when the frame could not be sent.
  std::size_t write_frame(std::vector<iovec>& parts) {
    std::size_t total = 0;
    for (const auto& p : parts) total += p.iov_len;
    std::lock_guard<std::mutex> lock(mu);
    if (!connect_locked()) return 0;
    iovec* part = parts.data();
    std::size_t left = parts.size();
    while (left > 0) {
      msghdr msg{};
      msg.msg_iov = part;
      msg.msg_iovlen = std::min<std::size_t>(left, IOV_MAX);
      ssize_t k = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        // Part of a frame may have gone out: the server drops the connection's partial
        // frame when it closes, and the caller sends the whole frame another way.
        fail_locked(std::string("write failed: ") +
                    (k == 0 ? "nothing written" : std::strerror(errno)));
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

  void fail_locked(const std::string& why) {
    if (fd >= 0) ::close(fd);
    fd = -1;
    retry_at = std::chrono::steady_clock::now() + kRetryAfter;
    log_info("tensor push to " + what + ": " + why + "; its tensors travel over CAF meanwhile");
  }
};

TensorPushClient::TensorPushClient(PushEndpoint endpoint, std::string what,
                                   std::chrono::milliseconds send_timeout)
    : impl_(std::make_unique<Impl>()) {
  impl_->endpoint = std::move(endpoint);
  impl_->what = std::move(what);
  impl_->send_timeout = send_timeout;
}

TensorPushClient::~TensorPushClient() {
  if (impl_->fd >= 0) ::close(impl_->fd);
}

std::size_t TensorPushClient::send(std::int64_t step_id, const std::string& key,
                                   const Tensor& value) {
  const std::string meta =
      encode_push_meta(static_cast<std::uint8_t>(value.dtype()), value.shape().dims());
  const std::string header =
      encode_push_frame_header(step_id, PushKind::tensor, static_cast<std::uint32_t>(key.size()),
                               static_cast<std::uint32_t>(meta.size()), value.total_bytes());
  std::vector<iovec> parts = {{const_cast<char*>(header.data()), header.size()},
                              {const_cast<char*>(key.data()), key.size()},
                              {const_cast<char*>(meta.data()), meta.size()},
                              {const_cast<void*>(value.raw_data()), value.total_bytes()}};
  return impl_->write_frame(parts);
}

std::size_t TensorPushClient::send_control(std::int64_t step_id, PushKind kind,
                                           const std::vector<std::string_view>& pieces) {
  std::uint64_t length = 0;
  for (auto piece : pieces) length += piece.size();
  const std::string header = encode_push_frame_header(step_id, kind, 0, 0, length);
  std::vector<iovec> parts;
  parts.reserve(pieces.size() + 1);
  parts.push_back({const_cast<char*>(header.data()), header.size()});
  for (auto piece : pieces)
    if (!piece.empty()) parts.push_back({const_cast<char*>(piece.data()), piece.size()});
  return impl_->write_frame(parts);
}

}  // namespace af::net
