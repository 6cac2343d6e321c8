#include "step_channel.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "tcp_listener.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;

constexpr std::size_t kMaxConnections = 1024;
/// Request bodies are read in pieces of this size, so a length field promises nothing the
/// peer has not sent (no allocation up front).
constexpr std::size_t kReadChunk = 1u << 20;
/// A connection's receive buffer: a request's header and a small body in one recv(2).
constexpr std::size_t kReadBuffer = 16u << 10;

void put_u64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

/// A frame's 24-byte header (call id, code or token, length) followed by its body.
std::string frame(std::uint64_t a, std::uint64_t b, const std::string& body) {
  std::string out(24, '\0');
  put_u64(out.data(), a);
  put_u64(out.data() + 8, b);
  put_u64(out.data() + 16, body.size());
  out += body;
  return out;
}

}  // namespace

// -- server ---------------------------------------------------------------------------------

struct StepServer::Impl : std::enable_shared_from_this<StepServer::Impl> {
  struct Connection {
    explicit Connection(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    /// Bytes received and not yet taken (`in_begin` to `in_end` of `in`): a request's
    /// header and a small body arrive in one recv(2), and the next request's header may
    /// follow them.
    std::vector<char> in = std::vector<char>(kReadBuffer);
    std::size_t in_begin = 0, in_end = 0;
    std::uint64_t call = 0, token = 0, length = 0;
    std::string body;
    std::mutex mu;  ///< guards `out`, `writing` and `closed` (replies come from any thread)
    std::deque<std::string>
        out;               ///< reply frames waiting; the front one is being written when `writing`
    bool writing = false;  ///< the io thread has an async write in flight
    bool closed = false;
    bool authenticated = false;  ///< io thread: a request with a known token arrived
    std::chrono::steady_clock::time_point deadline;  ///< for the first request header
    std::string peer;
  };

  asio::io_context io;
  std::thread thread;
  std::string owner;
  Handler handler;
  TokenCheck known;
  /// The port's accept loop and bounds (tcp_listener.hpp).
  std::unique_ptr<TcpListener<Connection>> listener;
  std::vector<std::weak_ptr<Connection>> open;  ///< io thread only; pruned as it grows
  std::mutex mu;
  bool stopped = false;

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    listener->refuse(peer, reason, detail);
  }

  /// Io thread: the connection of a socket the listener accepted.
  std::shared_ptr<Connection> make(tcp::socket socket, std::string peer) {
    auto c = std::make_shared<Connection>(io);
    c->socket = std::move(socket);
    std::error_code ignored;
    c->socket.set_option(tcp::no_delay(true), ignored);
    c->peer = std::move(peer);
    if (open.size() >= 2 * listener->open() + 16)
      std::erase_if(open, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
    open.push_back(c);
    return c;
  }

  /// Io thread only.
  void close(const std::shared_ptr<Connection>& c) {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) return;
    c->closed = true;
    std::error_code ignored;
    c->socket.close(ignored);
    listener->closed();
  }

  /// Io thread: moves the bytes not yet taken to the front of `c->in`, receives what the
  /// socket holds after them (a request and its header in one recv(2); after each epoll
  /// wake-up Asio first tries a read, which finds nothing while the client waits for its
  /// reply: strace shows recv, sendmsg, recv = EAGAIN, epoll_wait per step), then reads the
  /// next header.
  void receive(const std::shared_ptr<Connection>& c) {
    std::memmove(c->in.data(), c->in.data() + c->in_begin, c->in_end - c->in_begin);
    c->in_end -= c->in_begin;
    c->in_begin = 0;
    c->socket.async_read_some(asio::buffer(c->in.data() + c->in_end, c->in.size() - c->in_end),
                              [this, c](std::error_code ec, std::size_t n) {
                                if (ec) return close(c);  // end of stream, or broken
                                c->in_end += n;
                                read_header(c);
                              });
  }

  /// Io thread: the next request's header, from the buffer or once it has arrived.
  void read_header(const std::shared_ptr<Connection>& c) {
    if (c->in_end - c->in_begin < kStepHeaderBytes) return receive(c);
    const StepHeader h =
        decode_step_header(std::string_view(c->in.data() + c->in_begin, kStepHeaderBytes));
    c->in_begin += kStepHeaderBytes;
    on_header(c, h);
  }

  /// Io thread: checks a request's header, then reads its body.
  void on_header(const std::shared_ptr<Connection>& c, const StepHeader& h) {
    if (!h.magic) {
      refuse(c->peer, "not_step", "not the step protocol");
      return close(c);
    }
    c->call = h.call;
    c->token = h.token;
    c->length = h.length;
    if (c->length > kStepMaxRequest) {
      refuse(c->peer, "oversized",
             "a request of " + std::to_string(c->length) + " bytes, more than " +
                 std::to_string(kStepMaxRequest));
      return close(c);
    }
    if (known && !known(c->token)) {
      // Answered (the client learns why), then closed, before a byte of the body is read.
      refuse(c->peer, "unknown_token", "a request for a session that is not open here");
      const std::string task = owner.substr(owner.rfind(' ') + 1);
      return answer_and_close(
          c, frame(c->call, static_cast<std::uint64_t>(Code::aborted),
                   "Session is not open on " + task + " (closed, or its containers were reset)"));
    }
    c->authenticated = true;
    if (h.hello()) {
      // Accepted: the client sends its steps here only after this answer, so a refused or
      // never-accepted connection sends them over CAF instead.
      reply(c, 0, 0, {});
      return read_header(c);
    }
    // The body's first bytes are those received with the header: a body that came whole
    // with it is handled where it lies.
    const std::size_t buffered = std::min<std::size_t>(c->length, c->in_end - c->in_begin);
    const std::string_view received(c->in.data() + c->in_begin, buffered);
    c->in_begin += buffered;
    if (buffered == c->length) return dispatch(c, received);
    c->body.assign(received);
    read_body(c);
  }

  /// Io thread: writes `f` and closes the connection.
  void answer_and_close(const std::shared_ptr<Connection>& c, std::string f) {
    auto bytes = std::make_shared<std::string>(std::move(f));
    asio::async_write(c->socket, asio::buffer(*bytes),
                      [this, c, bytes](std::error_code, std::size_t) { close(c); });
  }

  void read_body(const std::shared_ptr<Connection>& c) {
    const std::size_t have = c->body.size();
    if (have == c->length) return dispatch(c, c->body);
    const std::size_t piece = std::min<std::size_t>(kReadChunk, c->length - have);
    c->body.resize(have + piece);
    asio::async_read(c->socket, asio::buffer(c->body.data() + have, piece),
                     [this, c](std::error_code ec, std::size_t) {
                       if (ec) return close(c);
                       read_body(c);
                     });
  }

  /// Io thread: hands the request `body` (in `c->in` or `c->body`) to the handler, then
  /// reads the next request.
  void dispatch(const std::shared_ptr<Connection>& c, std::string_view body) {
    const std::uint64_t call = c->call;
    std::weak_ptr<Impl> weak_self = shared_from_this();
    std::weak_ptr<Connection> weak_c = c;
    handler(c->token, body, [weak_self, weak_c, call](Status s, std::string reply) {
      auto self = weak_self.lock();
      if (!self) return;  // the server is gone: nobody to answer
      auto conn = weak_c.lock();
      if (!conn) return;
      if (s.ok())
        self->reply(conn, call, 0, std::move(reply));
      else
        self->reply(conn, call, static_cast<std::uint64_t>(s.code()), s.message());
    });
    c->body = std::string();
    // Requests are pipelined: read the next one while this step runs. One received with
    // this one is taken on a later turn of the io thread (no recursion per request).
    if (c->in_begin != c->in_end)
      asio::post(io, [this, c] { read_header(c); });
    else
      read_header(c);
  }

  /// Sends the reply frame (call id `a`, code `b`, `body`) from whichever thread finished
  /// the step: header and body straight to the socket in one sendmsg(2) when nothing is
  /// queued before them and the socket takes them whole (no hop to the io thread, no copy
  /// into a frame), else what is left queued for the io thread to write.
  void reply(const std::shared_ptr<Connection>& c, std::uint64_t a, std::uint64_t b,
             std::string body) {
    char header[24];
    put_u64(header, a);
    put_u64(header + 8, b);
    put_u64(header + 16, body.size());
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) return;
    std::size_t sent = 0;
    if (!c->writing) {
      iovec parts[2] = {{header, sizeof header}, {body.data(), body.size()}};
      msghdr msg{};
      msg.msg_iov = parts;
      msg.msg_iovlen = body.empty() ? 1 : 2;
      ssize_t k;
      do {
        k = ::sendmsg(c->socket.native_handle(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
      } while (k < 0 && errno == EINTR);
      if (k == static_cast<ssize_t>(sizeof header + body.size())) return;
      if (k > 0) sent = static_cast<std::size_t>(k);
      // Errors other than a full socket surface in the io thread's write (which closes).
    }
    std::string f;
    if (sent < sizeof header) {
      f.reserve(sizeof header - sent + body.size());
      f.append(header + sent, sizeof header - sent).append(body);
    } else {
      f = std::move(body);
      f.erase(0, sent - sizeof header);
    }
    c->out.push_back(std::move(f));
    if (!c->writing) {
      c->writing = true;
      asio::post(io, [this, c] { write_front(c); });
    }
  }

  /// Io thread only.
  void write_front(const std::shared_ptr<Connection>& c) {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) return;
    asio::async_write(c->socket, asio::buffer(c->out.front()),
                      [this, c](std::error_code ec, std::size_t) {
                        if (ec) return close(c);
                        std::lock_guard<std::mutex> lock(c->mu);
                        c->out.pop_front();
                        if (c->out.empty()) {
                          c->writing = false;
                          return;
                        }
                        asio::post(io, [this, c] { write_front(c); });
                      });
  }
};

StepServer::StepServer(const std::string& host, std::string owner, Handler handler,
                       TokenCheck known, Limits limits, std::shared_ptr<Refusals> refusals)
    : impl_(std::make_shared<Impl>()) {
  impl_->owner = std::move(owner);
  impl_->handler = std::move(handler);
  impl_->known = std::move(known);
  impl_->listener = std::make_unique<TcpListener<Impl::Connection>>(
      impl_->io, "step",
      ListenerLimits{limits.handshake_timeout, limits.max_unauthenticated, kMaxConnections},
      std::move(refusals));
  const std::error_code ec = impl_->listener->listen(host, 0);
  if (ec)
    throw UnavailableError(
        unavailable(impl_->owner + ": cannot open the step port on " + host + ": " + ec.message()));
  Impl* impl = impl_.get();
  impl_->listener->start(
      [impl](tcp::socket socket, std::string peer) { return impl->make(std::move(socket), peer); },
      [](const Impl::Connection& c) { return !c.authenticated && !c.closed; },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->close(c); },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->read_header(c); });
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

StepServer::~StepServer() { stop(); }

void StepServer::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  // Close the listening socket and every connection on the io thread, so clients see the
  // end at once (not when the last of their steps finishes).
  std::promise<void> closed;
  asio::post(impl_->io, [impl = impl_.get(), &closed] {
    impl->listener->stop();
    for (auto& w : impl->open)
      if (auto c = w.lock()) impl->close(c);
    impl->open.clear();
    closed.set_value();
  });
  closed.get_future().wait_for(std::chrono::seconds(5));
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t StepServer::port() const noexcept { return impl_->listener->port(); }

// -- client ---------------------------------------------------------------------------------

namespace {

/// Reads the server's answer to the hello (a 24-byte frame, call 0) on blocking `fd`,
/// waiting until `deadline`: OK when it accepted the connection.
Status await_hello_answer(int fd, std::chrono::steady_clock::time_point deadline) {
  char answer[24];
  std::size_t have = 0;
  while (have < sizeof answer) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return unavailable("no answer to the hello in time");
    if (r < 0) return unavailable(std::string("poll: ") + std::strerror(errno));
    const ssize_t k = ::recv(fd, answer + have, sizeof answer - have, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) return unavailable("closed by the server");
    if (k < 0) return unavailable(std::strerror(errno));
    have += static_cast<std::size_t>(k);
  }
  const std::uint64_t call = get_u64(answer), code = get_u64(answer + 8),
                      length = get_u64(answer + 16);
  if (call != 0) return unavailable("a reply before the hello's answer");
  if (code != 0) {
    // A refusal with its reason (an unknown token), read if it is short.
    std::string why(static_cast<std::size_t>(std::min<std::uint64_t>(length, 1024)), '\0');
    std::size_t got = 0;
    while (got < why.size()) {
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, 1000) != 1) break;
      const ssize_t k = ::recv(fd, why.data() + got, why.size() - got, 0);
      if (k <= 0) break;
      got += static_cast<std::size_t>(k);
    }
    why.resize(got);
    return unavailable("refused (" + std::string(code_name(static_cast<Code>(code))) + "): " + why);
  }
  if (length != 0) return unavailable("a malformed answer to the hello");
  return {};
}

}  // namespace

struct StepClient::Impl {
  int fd = -1;
  std::uint64_t token = 0;
  std::string what;
  std::mutex write_mu;  ///< one frame at a time on the socket
  std::mutex mu;
  /// A call in flight: its `done`, and whether a thread waits for it (`wait`), reading
  /// replies itself while no one else reads.
  struct Pending {
    std::function<void(Status, std::string)> done;
    /// The waiting caller's slot (null when no thread waits): whoever reads the reply fills
    /// it before it gives up reading, so the caller never starts a read for a reply that is
    /// already in.
    std::shared_ptr<WaitedCall> waited;
  };
  std::map<std::uint64_t, Pending> pending;
  /// A reply frame as read from the connection.
  struct Frame {
    std::uint64_t call = 0, code = 0;
    std::string body;
  };
  /// Whether a thread (the reader or a waiting caller) is reading the connection; the others
  /// wait on `turn_cv`, which also wakes waiting callers when their reply is in.
  bool reading = false;
  std::condition_variable turn_cv;
  /// Replies a waiting caller read for other calls, for the reader thread to deliver.
  std::deque<Frame> handoff;
  std::uint64_t next_call = 1;
  Status broken;  ///< set once: every later call fails with it
  std::thread reader;
  std::atomic<bool> close_fd_on_exit{false};
  // Client-side deadlines: calls by the time they expire, served by `timer` (started with
  // the first call that has one).
  std::multimap<std::chrono::steady_clock::time_point, std::pair<std::uint64_t, std::int64_t>>
      deadlines;
  std::condition_variable timer_cv;
  std::thread timer;
  bool timer_stop = false;

  /// An eventfd that wakes the reader thread from its idle poll.
  int wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

  ~Impl() {
    if (close_fd_on_exit) ::close(fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  /// Ends calls whose deadline passed with DeadlineExceeded (a late reply finds no call).
  void timer_loop() {
    std::unique_lock<std::mutex> lock(mu);
    while (!timer_stop) {
      if (deadlines.empty()) {
        timer_cv.wait(lock);
        continue;
      }
      auto first = deadlines.begin();
      if (timer_cv.wait_until(lock, first->first) != std::cv_status::timeout && !timer_stop)
        continue;
      const auto now = std::chrono::steady_clock::now();
      std::vector<std::pair<std::function<void(Status, std::string)>, std::int64_t>> expired;
      while (!deadlines.empty() && deadlines.begin()->first <= now) {
        auto [call, timeout_ms] = deadlines.begin()->second;
        deadlines.erase(deadlines.begin());
        auto it = pending.find(call);
        if (it == pending.end()) continue;  // answered
        expired.emplace_back(std::move(it->second.done), timeout_ms);
        pending.erase(it);
      }
      lock.unlock();
      for (auto& [done, timeout_ms] : expired)
        done(deadline_exceeded("Timed out waiting for notification: " + what +
                               ": the step exceeded its deadline of " + std::to_string(timeout_ms) +
                               " ms with no reply from the server"),
             {});
      lock.lock();
    }
  }

  /// Takes every pending call and marks the client broken (first reason wins).
  void fail_all(const Status& why) {
    std::map<std::uint64_t, Pending> calls;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (broken.ok()) broken = why;
      calls.swap(pending);
    }
    ::shutdown(fd, SHUT_RDWR);  // wakes whoever is reading
    turn_cv.notify_all();       // and the reader thread waiting for calls
    for (auto& [id, call] : calls) call.done(why, {});
  }

  /// Whether a call whose caller does not wait is in flight (the reader thread reads then).
  bool unwaited_pending() const {
    return std::any_of(pending.begin(), pending.end(),
                       [](const auto& entry) { return entry.second.waited == nullptr; });
  }

  /// Under `mu`: when `frame` answers a call a thread waits for, fills that call's slot and
  /// ends the call (the caller wakes on `turn_cv`); false for any other frame.
  bool fill_waited(Frame& frame) {
    auto it = pending.find(frame.call);
    if (it == pending.end() || !it->second.waited) return false;
    WaitedCall& slot = *it->second.waited;
    if (frame.code == 0)
      slot.reply = std::move(frame.body);
    else
      slot.status = Status(static_cast<Code>(frame.code), std::move(frame.body));
    slot.done = true;
    pending.erase(it);
    return true;
  }

  /// Takes call `frame.call`'s `done` (none when it ended already) and calls it.
  void deliver(Frame frame) {
    std::function<void(Status, std::string)> done;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = pending.find(frame.call);
      if (it == pending.end()) return;  // failed or expired already
      done = std::move(it->second.done);
      pending.erase(it);
    }
    if (frame.code == 0)
      done({}, std::move(frame.body));
    else
      done(Status(static_cast<Code>(frame.code), std::move(frame.body)), {});
  }

  /// Bytes received and not yet taken (`unread_begin` to `unread_end` of `unread`): a reply's
  /// header and a small body arrive in one recv(2).
  std::vector<char> unread = std::vector<char>(16 << 10);
  std::size_t unread_begin = 0, unread_end = 0;

  /// Fills `p` with the next `n` bytes of the connection: first what was received already,
  /// then straight from the socket when the rest is larger than the buffer (no copy of a
  /// large body), else through the buffer. False when the connection ended.
  bool read_exact(char* p, std::size_t n) {
    const std::size_t buffered = std::min(n, unread_end - unread_begin);
    std::memcpy(p, unread.data() + unread_begin, buffered);
    unread_begin += buffered;
    p += buffered;
    n -= buffered;
    while (n > 0) {
      const bool direct = n >= unread.size();
      ssize_t k = direct ? ::recv(fd, p, n, 0) : ::recv(fd, unread.data(), unread.size(), 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      std::size_t got = static_cast<std::size_t>(k);
      if (!direct) {
        unread_begin = std::min(n, got);
        unread_end = got;
        std::memcpy(p, unread.data(), unread_begin);
        got = unread_begin;
      }
      p += got;
      n -= got;
    }
    return true;
  }

  /// Reads the next reply frame. Not OK when the connection ended or the frame is malformed
  /// (the status says which, for fail_all).
  Status read_frame(Frame* frame) {
    char header[24];
    if (!read_exact(header, sizeof header))
      return unavailable(what + ": the step connection was closed by the server");
    frame->call = get_u64(header);
    frame->code = get_u64(header + 8);
    const std::uint64_t length = get_u64(header + 16);
    if (length > (std::uint64_t{1} << 40) ||
        frame->code > static_cast<std::uint64_t>(Code::unauthenticated))
      return data_loss(what + ": malformed reply on the step connection");
    frame->body.assign(static_cast<std::size_t>(length), '\0');
    if (!read_exact(frame->body.data(), frame->body.size()))
      return unavailable(what + ": the step connection was closed by the server");
    return {};
  }

  /// Wakes the reader thread from its idle poll (a call it must read for, or a reply to
  /// deliver).
  void wake_reader() {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
  }

  /// The reader thread: delivers the replies waiting callers read for others, and reads the
  /// connection while a call no thread waits for is in flight, or the server has closed it,
  /// and no one else reads. Idle, it polls for the server closing the connection (not for
  /// replies, which a waiting caller reads) and for `wake_reader`.
  void read_loop() {
    std::unique_lock<std::mutex> lock(mu);
    bool peer_closed = false;
    for (;;) {
      if (!handoff.empty()) {
        Frame frame = std::move(handoff.front());
        handoff.pop_front();
        lock.unlock();
        deliver(std::move(frame));
        lock.lock();
        continue;
      }
      if (!broken.ok()) return;
      if (reading) {  // a waiting caller reads; it wakes this thread when it is done
        turn_cv.wait(lock);
        continue;
      }
      if (peer_closed || unwaited_pending()) {
        reading = true;
        lock.unlock();
        Frame frame;
        Status s = read_frame(&frame);
        lock.lock();
        reading = false;
        if (!s.ok()) {
          lock.unlock();
          turn_cv.notify_all();
          return fail_all(s);
        }
        const bool filled = fill_waited(frame);
        const bool callers_wait = std::any_of(
            pending.begin(), pending.end(), [](const auto& entry) { return entry.second.waited; });
        lock.unlock();
        if (filled || callers_wait) turn_cv.notify_all();  // its caller; or one may read next
        if (!filled) deliver(std::move(frame));
        lock.lock();
        continue;
      }
      lock.unlock();
      pollfd watch[2] = {{fd, POLLRDHUP, 0}, {wake_fd, POLLIN, 0}};
      while (::poll(watch, 2, -1) < 0 && errno == EINTR) {
      }
      if (watch[1].revents & POLLIN) {
        std::uint64_t count = 0;
        [[maybe_unused]] auto n = ::read(wake_fd, &count, sizeof count);
      }
      // The server closed (or the connection broke): read what is left, then the end.
      if (watch[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) peer_closed = true;
      lock.lock();
    }
  }

  /// Waits for `slot`'s reply, reading the connection on this thread whenever
  /// no one else reads: a reply read here for another call goes to the reader thread. Polls
  /// while reading so that its deadline (when the timer ends the call) is seen.
  void wait_for(const std::shared_ptr<WaitedCall>& slot) {
    const std::uint64_t call = slot->call;
    const auto deadline = slot->deadline;
    std::unique_lock<std::mutex> lock(mu);
    while (!slot->done) {
      if (reading) {
        turn_cv.wait(lock);
        continue;
      }
      reading = true;
      lock.unlock();
      Frame frame;
      Status s;
      bool got = true;
      if (unread_begin == unread_end && deadline != std::chrono::steady_clock::time_point::max()) {
        // Without a deadline the read itself waits (fail_all's shutdown wakes it).
        const int wait_ms = static_cast<int>(std::clamp<std::int64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                  std::chrono::steady_clock::now())
                    .count() +
                1,
            1, 1000));
        pollfd pfd{fd, POLLIN, 0};
        got = ::poll(&pfd, 1, wait_ms) != 0;  // errors: the read below says what broke
      }
      if (got) s = read_frame(&frame);
      lock.lock();
      reading = false;
      if (!got) continue;  // the deadline: the timer ends the call
      if (!s.ok()) {
        lock.unlock();
        turn_cv.notify_all();
        fail_all(s);
        lock.lock();
        continue;
      }
      if (fill_waited(frame)) {
        if (frame.call != call) {  // another waiting caller's
          lock.unlock();
          turn_cv.notify_all();
          lock.lock();
        }
      } else if (pending.count(frame.call) > 0) {
        handoff.push_back(std::move(frame));
        lock.unlock();
        // The reader thread delivers it, whether it is idle in its poll or waiting its turn.
        wake_reader();
        turn_cv.notify_all();
        lock.lock();
      }
    }
    // Calls still in flight: their callers, or the reader thread, read next (no system call
    // when no one waits).
    lock.unlock();
    turn_cv.notify_all();
  }
};

StepClient::StepClient(const std::string& host, std::uint16_t port, std::uint64_t token,
                       std::string what, std::chrono::milliseconds connect_timeout)
    : impl_(std::make_shared<Impl>()) {
  const auto started = std::chrono::steady_clock::now();
  impl_->token = token;
  impl_->what = std::move(what);
  if (impl_->wake_fd < 0)
    throw UnavailableError(unavailable(impl_->what + ": eventfd: " + std::strerror(errno)));
  std::error_code ec;
  auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec)
    throw UnavailableError(
        unavailable(impl_->what + ": bad step host '" + host + "': " + ec.message()));
  tcp::endpoint endpoint(address, port);
  int fd = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw UnavailableError(unavailable(impl_->what + ": socket: " + std::strerror(errno)));
  int r = ::connect(fd, endpoint.data(), static_cast<socklen_t>(endpoint.size()));
  if (r < 0 && errno == EINPROGRESS) {
    pollfd pfd{fd, POLLOUT, 0};
    r = ::poll(&pfd, 1, static_cast<int>(connect_timeout.count()));
    int err = 0;
    socklen_t len = sizeof err;
    if (r == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
      r = 0;
    else
      errno = r == 0 ? ETIMEDOUT : (err ? err : errno), r = -1;
  }
  if (r < 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    throw UnavailableError(unavailable(impl_->what + ": cannot connect to the step port " +
                                       std::to_string(port) + ": " + why));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // Hello: call 0, no body. It presents the session's token at once, so the server counts
  // the connection as a client's however long the first step takes to come.
  char hello[32];
  std::memcpy(hello, kStepMagic, sizeof kStepMagic);
  put_u64(hello + 8, 0);
  put_u64(hello + 16, token);
  put_u64(hello + 24, 0);
  if (::send(fd, hello, sizeof hello, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof hello)) {
    std::string why = std::strerror(errno);
    ::close(fd);
    throw UnavailableError(unavailable(impl_->what + ": cannot greet the step port " +
                                       std::to_string(port) + ": " + why));
  }
  // The server's answer to the hello: until it comes the connection may sit unaccepted in a
  // flooded or descriptor-starved server's backlog, and a step sent there would wait for
  // nothing. No answer by the connect deadline, or a refusal, and the session uses CAF.
  if (Status answer = await_hello_answer(fd, started + connect_timeout); !answer.ok()) {
    ::close(fd);
    throw UnavailableError(unavailable(impl_->what + ": the step port " + std::to_string(port) +
                                       " did not take the connection: " + answer.message()));
  }
  impl_->fd = fd;
  impl_->reader = std::thread([impl = impl_] { impl->read_loop(); });
}

StepClient::~StepClient() {
  impl_->fail_all(cancelled(impl_->what + " was closed"));
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->timer_stop = true;
  }
  impl_->timer_cv.notify_all();
  if (impl_->timer.joinable()) {
    if (impl_->timer.get_id() == std::this_thread::get_id())
      impl_->timer.detach();  // destroyed by an expired step's callback: the loop ends by itself
    else
      impl_->timer.join();
  }
  if (impl_->reader.get_id() == std::this_thread::get_id()) {
    // Destroyed by a step's callback on the reader thread: it ends by itself (the socket is
    // shut down) and owns the Impl; the descriptor is closed with it.
    impl_->reader.detach();
    impl_->close_fd_on_exit = true;
    return;
  }
  if (impl_->reader.joinable()) impl_->reader.join();
  ::close(impl_->fd);
}

bool StepClient::run(const std::string& request, std::function<void(Status, std::string)> done,
                     std::chrono::steady_clock::time_point deadline, std::int64_t timeout_ms) {
  return send(request, std::move(done), nullptr, deadline, timeout_ms).has_value();
}

std::shared_ptr<StepClient::WaitedCall> StepClient::send_waited(
    const std::string& request, std::chrono::steady_clock::time_point deadline,
    std::int64_t timeout_ms) {
  auto slot = std::make_shared<WaitedCall>();
  slot->deadline = deadline;
  Impl* impl = impl_.get();  // alive while a call of its is pending
  auto done = [impl, slot](Status s, std::string reply) {
    {
      std::lock_guard<std::mutex> lock(impl->mu);
      slot->status = std::move(s);
      slot->reply = std::move(reply);
      slot->done = true;
    }
    impl->turn_cv.notify_all();
  };
  auto call = send(request, std::move(done), slot, deadline, timeout_ms);
  if (!call) return nullptr;
  slot->call = *call;
  return slot;
}

std::pair<Status, std::string> StepClient::wait(const std::shared_ptr<WaitedCall>& call) {
  impl_->wait_for(call);
  return {std::move(call->status), std::move(call->reply)};
}

std::optional<std::uint64_t> StepClient::send(const std::string& request,
                                              std::function<void(Status, std::string)> done,
                                              std::shared_ptr<WaitedCall> waited,
                                              std::chrono::steady_clock::time_point deadline,
                                              std::int64_t timeout_ms) {
  if (request.size() > kStepMaxRequest) return std::nullopt;  // the server would refuse it
  const bool unwaited = waited == nullptr;
  std::uint64_t call = 0;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->broken.ok()) return std::nullopt;
    call = impl_->next_call++;
    impl_->pending.emplace(call, Impl::Pending{std::move(done), std::move(waited)});
    if (deadline != std::chrono::steady_clock::time_point::max()) {
      const bool earliest = impl_->deadlines.empty() || deadline < impl_->deadlines.begin()->first;
      impl_->deadlines.emplace(deadline, std::make_pair(call, timeout_ms));
      if (!impl_->timer.joinable())
        impl_->timer = std::thread([impl = impl_] { impl->timer_loop(); });
      else if (earliest)
        impl_->timer_cv.notify_one();
    }
  }
  // A call no thread waits for: the reader thread reads its reply.
  if (unwaited) impl_->wake_reader();
  char header[32];
  std::memcpy(header, kStepMagic, sizeof kStepMagic);
  put_u64(header + 8, call);
  put_u64(header + 16, impl_->token);
  put_u64(header + 24, request.size());
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  iovec iov[2] = {{header, sizeof header}, {const_cast<char*>(request.data()), request.size()}};
  std::size_t skip = 0, total = sizeof header + request.size();
  while (skip < total) {
    // Advance past what was written.
    iovec v[2];
    int n = 0;
    std::size_t s = skip;
    for (auto& part : iov) {
      if (s >= part.iov_len) {
        s -= part.iov_len;
        continue;
      }
      v[n++] = {static_cast<char*>(part.iov_base) + s, part.iov_len - s};
      s = 0;
    }
    msghdr msg{};
    msg.msg_iov = v;
    msg.msg_iovlen = static_cast<std::size_t>(n);
    ssize_t k = ::sendmsg(impl_->fd, &msg, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      const std::string why = std::strerror(errno);
      // Not sent whole, so not run: this call goes back to the caller; the others in flight
      // fail (the connection is gone).
      bool mine = false;
      {
        std::lock_guard<std::mutex> pending_lock(impl_->mu);
        mine = impl_->pending.erase(call) > 0;
      }
      impl_->fail_all(unavailable(impl_->what + ": sending the step failed: " + why));
      if (mine) return std::nullopt;
      return call;
    }
    skip += static_cast<std::size_t>(k);
  }
  return call;
}

void StepClient::fail_all(const Status& why) { impl_->fail_all(why); }

bool StepClient::usable() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->broken.ok();
}

}  // namespace af::net
