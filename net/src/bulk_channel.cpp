// The bulk channel's server (bulk_channel.hpp): the offered tensors, awaits, and the port's io
// and sender threads.
#include "bulk_channel.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "tcp_listener.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxConnections = 256;
/// The most bytes one send of a transfer hands to the kernel.
constexpr std::size_t kSendPiece = 1u << 20;
/// The bytes of a transfer sent by the thread that starts it (BulkServer::Impl::push).
constexpr std::size_t kHeadStart = 256u << 10;
/// A transfer whose client takes no byte for this long fails (its connection is closed).
constexpr auto kSendStall = std::chrono::seconds(30);
/// A sender thread with no transfer for this long ends.
constexpr auto kSenderIdle = std::chrono::seconds(10);
/// A connection with no request for this long is closed (clients reconnect).
constexpr auto kIdleTimeout = std::chrono::seconds(120);
/// How long a sender thread keeps a connection after a transfer, waiting for its next
/// request itself, and on how many connections at once (BulkServer::Impl::serve_held).
constexpr auto kHoldIdle = std::chrono::seconds(2);
constexpr std::size_t kMaxHeld = 16;

/// Not an answer: an await waits for its step (the answers' statuses are in bulk_channel.hpp).
constexpr std::uint64_t kStatusParked = 3;

}  // namespace

// -- server ---------------------------------------------------------------------------------

struct BulkServer::Impl {
  struct Entry {
    Tensor value;
    Clock::time_point expires;
  };
  struct Connection {
    explicit Connection(asio::io_context& io) : socket(io), idle(io) {}
    tcp::socket socket;
    asio::steady_timer idle;
    std::array<char, 16> request{};
    std::array<char, kBulkReplyHeaderBytes> reply{};
    Tensor sending;
    bool authenticated = false;       ///< io thread: asked for an offered transfer
    bool send_timeout_set = false;    ///< sender thread: SO_SNDTIMEO is kSendStall
    std::uint64_t parked_ticket = 0;  ///< under mu: the await this connection waits on
    std::uint64_t parks = 0;          ///< under mu: awaits parked on it so far (every way)
    bool held = false;                ///< under mu: a sender thread serves it (serve_held)
    bool hold_timeout_set = false;    ///< sender thread: SO_RCVTIMEO is kHoldIdle
    std::size_t sent = 0;             ///< of the reply header and `sending`
    Clock::time_point deadline;       ///< for the first request
    std::string peer;
  };

  asio::io_context io;
  std::thread thread;
  std::string owner;
  std::chrono::milliseconds ttl{0};
  /// The port's accept loop and bounds (tcp_listener.hpp).
  std::unique_ptr<TcpListener<Connection>> listener;

  mutable std::mutex mu;
  std::unordered_map<std::uint64_t, Entry> table;
  /// Awaits waiting for their step to settle, by ticket (at most one per connection).
  std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> parked;
  /// Tickets settled with nothing offered under them, and when each is forgotten.
  std::unordered_map<std::uint64_t, Clock::time_point> settled_empty;
  std::mt19937_64 rng{std::random_device{}()};
  bool stopped = false;
  /// Wakes held connections' awaits when their step settles, and at stop (with mu).
  std::condition_variable park_cv;

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
    return c;
  }

  void close(const std::shared_ptr<Connection>& c) {
    if (!c->socket.is_open()) return;
    {
      std::lock_guard<std::mutex> lock(mu);
      unpark_locked(c);
    }
    std::error_code ignored;
    c->socket.close(ignored);
    c->idle.cancel();
    listener->closed();
  }

  /// Under mu: takes `c` off the parked awaits; false when it was not parked.
  bool unpark_locked(const std::shared_ptr<Connection>& c) {
    if (c->parked_ticket == 0) return false;
    auto it = parked.find(std::exchange(c->parked_ticket, 0));
    if (it != parked.end() && it->second == c) parked.erase(it);
    return true;
  }

  /// The answer's header for `status`, with the length of what `c.sending` holds (none: 0).
  static void set_header(Connection& c, std::uint64_t status) {
    store_le64(c.reply.data(), status);
    store_le64(c.reply.data() + 8, c.sending.total_bytes());
    c.sent = 0;
  }

  /// Io thread: answers `status` with no bytes, then reads the next request (`then_close`:
  /// closes the connection instead).
  void answer(const std::shared_ptr<Connection>& c, std::uint64_t status, bool then_close = false) {
    set_header(*c, status);
    asio::async_write(c->socket, asio::buffer(c->reply),
                      [this, c, then_close](std::error_code ec, std::size_t) {
                        if (ec || then_close) return close(c);
                        read_request(c);
                      });
  }

  /// Any thread: sends what `c->sending` holds (its header set here): a head start of
  /// kHeadStart bytes from this thread, which the socket takes at once, then the rest from
  /// a sender thread. The client reads the first bytes while that thread wakes: on this
  /// VM a wake-up on a busy CPU was 20-50 us, the time a 4 MiB fetch had left over the
  /// stream (docs/benchmarks.md).
  void push(const std::shared_ptr<Connection>& c) {
    set_header(*c, kStatusOk);
    if (!send_from(*c, kHeadStart, MSG_DONTWAIT) || !hand_to_sender(c))
      asio::post(io, [this, c] { close(c); });
  }

  void read_request(const std::shared_ptr<Connection>& c) {
    c->idle.expires_after(kIdleTimeout);
    c->idle.async_wait([this, c](std::error_code ec) {
      if (!ec) close(c);
    });
    asio::async_read(
        c->socket, asio::buffer(c->request), [this, c](std::error_code ec, std::size_t) {
          if (ec) return close(c);
          const BulkRequest r =
              decode_bulk_request(std::string_view(c->request.data(), c->request.size()));
          if (!r.magic) {
            refuse(c->peer, "not_bulk", "not the bulk protocol");
            return close(c);
          }
          std::uint64_t status = kStatusUnknown, parks = 0;
          {
            std::lock_guard<std::mutex> lock(mu);
            status = claim_locked(c, r);
            parks = c->parks;
          }
          if (status == kStatusParked) return park(c, r.transfer_id, parks);
          if (status != kStatusOk && !c->authenticated) {
            // A first request for nothing offered: answered, then closed (a client asks only for
            // transfers its server named).
            refuse(c->peer, "unknown_transfer",
                   "a first request for a transfer that is not offered");
            return answer(c, status, /*then_close=*/true);
          }
          c->authenticated = true;
          if (status != kStatusOk) return answer(c, status);
          // The tensor's bytes go out from a sender thread in blocking 1 MiB writes: about 10%
          // faster on loopback than non-blocking writes woken by epoll for every piece the
          // socket buffer takes, and the io thread keeps serving the other connections.
          c->idle.cancel();
          push(c);
        });
  }

  /// Under mu: what request `r` on `c` gets: kStatusOk (`c->sending` holds the tensor now),
  /// kStatusNothing, kStatusParked (`c` waits for the ticket's step) or kStatusUnknown.
  std::uint64_t claim_locked(const std::shared_ptr<Connection>& c, const BulkRequest& r) {
    auto it = table.find(r.transfer_id);
    if (it != table.end()) {
      c->sending = std::move(it->second.value);
      table.erase(it);
      return kStatusOk;
    }
    if (!r.await || !c->authenticated) return kStatusUnknown;
    if (settled_empty.erase(r.transfer_id) > 0) return kStatusNothing;
    if (!parked.emplace(r.transfer_id, c).second) return kStatusUnknown;
    c->parked_ticket = r.transfer_id;
    ++c->parks;
    return kStatusParked;
  }

  /// Io thread: `c` waits for `ticket` to settle (BulkServer::settle answers it), for the
  /// time-to-live at most (then status 1). Its socket is not read meanwhile: the client
  /// sends nothing more before the answer. `park` is `c->parks` counting this park.
  void park(const std::shared_ptr<Connection>& c, std::uint64_t ticket, std::uint64_t park) {
    c->idle.expires_after(ttl);
    c->idle.async_wait([this, c, ticket, park](std::error_code ec) {
      if (ec) return;
      bool was_parked = false;
      {
        // Still this park: not one after it with the same ticket (a peer may send one
        // again), perhaps on the connection's sender thread by now.
        std::lock_guard<std::mutex> lock(mu);
        was_parked = c->parks == park && c->parked_ticket == ticket && !c->held && unpark_locked(c);
      }
      if (was_parked) answer(c, kStatusUnknown);
    });
  }

  // -- sender threads: blocking writes of tensors, as many threads as transfers at once ----

  std::mutex send_mu;
  std::condition_variable send_cv;
  std::deque<std::shared_ptr<Connection>> send_jobs;
  std::size_t senders = 0, idle_senders = 0;
  std::unordered_map<int, int> sending_fds;  ///< descriptors being written (stop shuts them down)
  bool senders_stopping = false;
  std::size_t held_now = 0;  ///< connections sender threads hold (serve_held)

  /// What a sender thread does next with a connection it holds.
  enum class Held { next, release, fail };

  /// Sender thread, after a transfer on `c`: serves `c`'s next requests itself while they
  /// come within kHoldIdle of each other, then hands `c` back (`release`) or fails it.
  Held hold_connection(const std::shared_ptr<Connection>& c) {
    if (!c->hold_timeout_set) {
      timeval timeout{};
      timeout.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(kHoldIdle).count();
      if (::setsockopt(c->socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
                       sizeof timeout) != 0)
        return Held::release;
      c->hold_timeout_set = true;
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      c->held = true;
    }
    Held next = Held::next;
    while (next == Held::next) next = serve_held(c);
    std::lock_guard<std::mutex> lock(mu);
    c->held = false;
    return next;
  }

  /// Sender thread: reads and answers one request of held connection `c` (a blocking
  /// socket), waiting for an await's step to settle: the raw stream's shape, one thread
  /// woken once per request, where the io thread's way wakes the io thread, then a sender,
  /// and re-arms the io thread's timers and polling each time. `release` when no request
  /// came within kHoldIdle.
  Held serve_held(const std::shared_ptr<Connection>& c) {
    const int fd = c->socket.native_handle();
    std::size_t got = 0;
    while (got < c->request.size()) {
      const ssize_t k = ::recv(fd, c->request.data() + got, c->request.size() - got, MSG_WAITALL);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && got == 0) return Held::release;
      if (k <= 0) return Held::fail;  // closed, broken, or a request cut off for kHoldIdle
      got += static_cast<std::size_t>(k);
    }
    const BulkRequest r =
        decode_bulk_request(std::string_view(c->request.data(), c->request.size()));
    if (!r.magic) {
      refuse(c->peer, "not_bulk", "not the bulk protocol");
      return Held::fail;
    }
    std::uint64_t status = kStatusUnknown;
    {
      std::unique_lock<std::mutex> lock(mu);
      status = claim_locked(c, r);
      if (status == kStatusParked) {
        // settle() takes `c` off the parked awaits, handing it what was offered.
        const bool settled =
            park_cv.wait_for(lock, ttl, [&] { return c->parked_ticket == 0 || stopped; });
        if (stopped || !settled) {
          unpark_locked(c);
          if (stopped) return Held::fail;
          status = kStatusUnknown;
        } else {
          status = c->sending.is_initialized() ? kStatusOk : kStatusNothing;
        }
      }
    }
    set_header(*c, status);
    const bool ok = send_from(*c, std::numeric_limits<std::size_t>::max(), 0);
    c->sending = Tensor();
    return ok ? Held::next : Held::fail;
  }

  bool hand_to_sender(std::shared_ptr<Connection> c) {
    {
      std::lock_guard<std::mutex> lock(send_mu);
      if (senders_stopping) return false;
      send_jobs.push_back(std::move(c));
      if (idle_senders == 0) {
        ++senders;
        std::thread([this] { sender_loop(); }).detach();
        return true;
      }
    }
    // Woken after the lock is released: a sender woken under it would sleep again on it.
    send_cv.notify_one();
    return true;
  }

  void sender_loop() {
    std::unique_lock<std::mutex> lock(send_mu);
    for (;;) {
      while (send_jobs.empty() && !senders_stopping) {
        ++idle_senders;
        auto woke = send_cv.wait_for(lock, kSenderIdle);
        --idle_senders;
        if (woke == std::cv_status::timeout && send_jobs.empty()) break;
      }
      if (send_jobs.empty() || senders_stopping) break;
      auto c = std::move(send_jobs.front());
      send_jobs.pop_front();
      const int fd = c->socket.native_handle();
      sending_fds[fd] = 1;
      const bool hold = held_now < kMaxHeld;
      if (hold) ++held_now;
      lock.unlock();
      Held next = send_tensor(*c) ? Held::release : Held::fail;
      if (hold) {
        if (next == Held::release) next = hold_connection(c);
        lock.lock();
        --held_now;
        lock.unlock();
      }
      std::error_code ec;
      if (next == Held::release) c->socket.native_non_blocking(true, ec);
      const bool ok = next == Held::release && !ec;
      lock.lock();
      sending_fds.erase(fd);
      if (!senders_stopping) {
        // Back to the io thread for the next request (or the end of the connection).
        asio::post(io, [this, c = std::move(c), ok] {
          if (ok)
            read_request(c);
          else
            close(c);
        });
      }
      c.reset();  // no connection may outlive the io_context (stop waits for every sender)
    }
    if (--senders == 0) send_cv.notify_all();
  }

  /// Writes the reply header and the rest of the tensor, the socket made blocking (the
  /// caller makes it non-blocking again for the io thread); a peer that stops reading for
  /// kSendStall fails the transfer.
  bool send_tensor(Connection& c) {
    const int fd = c.socket.native_handle();
    std::error_code ec;
    c.socket.native_non_blocking(false, ec);
    bool ok = !ec;
    if (ok && !c.send_timeout_set) {
      timeval timeout{};
      timeout.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(kSendStall).count();
      ok = c.send_timeout_set =
          ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) == 0;
    }
    ok = ok && send_from(c, std::numeric_limits<std::size_t>::max(), 0);
    c.sending = Tensor();
    return ok;
  }

  /// Sends the header and the tensor's bytes from `c.sent` on, `until` of them in all at
  /// most, in pieces of kSendPiece (the header with the first); with MSG_DONTWAIT in
  /// `flags` it stops where the socket takes no more. False when the connection failed.
  bool send_from(Connection& c, std::size_t until, int flags) {
    const int fd = c.socket.native_handle();
    const std::size_t header = c.reply.size();
    until = std::min(until, header + c.sending.total_bytes());
    const char* data = static_cast<const char*>(c.sending.raw_data());
    while (c.sent < until) {
      iovec parts[2];
      int count = 0;
      if (c.sent < header) parts[count++] = {c.reply.data() + c.sent, header - c.sent};
      const std::size_t start = std::max(c.sent, header);
      if (until > start)
        parts[count++] = {const_cast<char*>(data + (start - header)),
                          std::min(until - start, kSendPiece)};
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = static_cast<std::size_t>(count);
      const ssize_t k = ::sendmsg(fd, &message, MSG_NOSIGNAL | flags);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && (flags & MSG_DONTWAIT) && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (k <= 0) return false;
      c.sent += static_cast<std::size_t>(k);
    }
    return true;
  }

  /// Fails the transfers being written and waits for every sender thread to end.
  void stop_senders() {
    std::unique_lock<std::mutex> lock(send_mu);
    senders_stopping = true;
    send_jobs.clear();
    for (auto& [fd, unused] : sending_fds) ::shutdown(fd, SHUT_RDWR);
    send_cv.notify_all();
    send_cv.wait(lock, [this] { return senders == 0; });
  }

  /// Drops expired offers every half time-to-live, so a tensor nobody collects is freed
  /// even when no other tensor is offered after it.
  asio::steady_timer sweep_timer{io};
  void schedule_sweep() {
    sweep_timer.expires_after(
        std::max<std::chrono::milliseconds>(ttl / 2, std::chrono::milliseconds(10)));
    sweep_timer.async_wait([this](std::error_code ec) {
      if (ec) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        expire_locked(Clock::now());
      }
      schedule_sweep();
    });
  }

  void expire_locked(Clock::time_point now) {
    std::erase_if(table, [now](const auto& entry) { return entry.second.expires <= now; });
    std::erase_if(settled_empty, [now](const auto& entry) { return entry.second <= now; });
  }
};

BulkServer::BulkServer(const std::string& host, std::string owner, std::chrono::milliseconds ttl,
                       std::chrono::milliseconds handshake_timeout, std::size_t max_unauthenticated,
                       std::shared_ptr<Refusals> refusals)
    : impl_(std::make_shared<Impl>()) {
  impl_->owner = std::move(owner);
  impl_->ttl = ttl;
  impl_->listener = std::make_unique<TcpListener<Impl::Connection>>(
      impl_->io, "bulk", ListenerLimits{handshake_timeout, max_unauthenticated, kMaxConnections},
      std::move(refusals));
  const std::error_code ec = impl_->listener->listen(host, 0);
  if (ec)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open the bulk tensor port on " +
                                       host + ": " + ec.message()));
  Impl* impl = impl_.get();
  impl_->listener->start(
      [impl](tcp::socket socket, std::string peer) { return impl->make(std::move(socket), peer); },
      [](const Impl::Connection& c) { return !c.authenticated && c.socket.is_open(); },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->close(c); },
      [impl](const std::shared_ptr<Impl::Connection>& c) { impl->read_request(c); });
  impl_->schedule_sweep();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

BulkServer::~BulkServer() { stop(); }

void BulkServer::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    impl_->table.clear();
    impl_->settled_empty.clear();
  }
  impl_->park_cv.notify_all();  // held connections' awaits end
  impl_->stop_senders();
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t BulkServer::port() const noexcept { return impl_->listener->port(); }

std::uint64_t BulkServer::offer(Tensor value, std::uint64_t wanted) {
  auto now = Clock::now();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->expire_locked(now);
  std::uint64_t id = wanted;
  while (id == 0 || impl_->table.count(id) || impl_->settled_empty.count(id)) id = impl_->rng();
  impl_->table.emplace(id, Impl::Entry{std::move(value), now + impl_->ttl});
  return id;
}

void BulkServer::settle(std::uint64_t ticket) {
  std::shared_ptr<Impl::Connection> c;
  bool held = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped || ticket == 0) return;
    auto waiting = impl_->parked.find(ticket);
    auto offered = impl_->table.find(ticket);
    if (waiting == impl_->parked.end()) {
      // The await comes later (or never): it finds the value in the table, or this.
      if (offered == impl_->table.end()) {
        if (impl_->settled_empty.size() >= kBulkSettledKept)
          impl_->settled_empty.erase(impl_->settled_empty.begin());  // bounded: one goes
        impl_->settled_empty.emplace(ticket, Clock::now() + impl_->ttl);
      }
      return;
    }
    c = std::move(waiting->second);
    impl_->parked.erase(waiting);
    c->parked_ticket = 0;
    held = c->held;
    if (offered != impl_->table.end()) {
      c->sending = std::move(offered->second.value);
      impl_->table.erase(offered);
    }
  }
  if (held) {
    impl_->park_cv.notify_all();  // its sender thread sends what it was handed
    return;
  }
  // The park's timer stays armed; it finds the connection no longer parked.
  if (c->sending.is_initialized())
    impl_->push(c);
  else
    asio::post(impl_->io, [impl = impl_.get(), c] { impl->answer(c, kStatusNothing); });
}

std::optional<Tensor> BulkServer::take(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->expire_locked(Clock::now());
  auto it = impl_->table.find(id);
  if (it == impl_->table.end()) return std::nullopt;
  Tensor value = std::move(it->second.value);
  impl_->table.erase(it);
  return value;
}

std::size_t BulkServer::pending() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->table.size();
}

std::size_t BulkServer::held() const {
  std::lock_guard<std::mutex> lock(impl_->send_mu);
  return impl_->held_now;
}

std::size_t BulkServer::parked() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->parked.size();
}

}  // namespace af::net
