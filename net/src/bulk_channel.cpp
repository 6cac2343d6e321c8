#include "bulk_channel.hpp"

#include <poll.h>
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
/// The most bytes one receive of a transfer asks for.
constexpr std::size_t kReadPiece = 16u << 20;
/// A connection with no request for this long is closed (clients reconnect).
constexpr auto kIdleTimeout = std::chrono::seconds(120);
/// The connections to one bulk port a client keeps while none is in use.
constexpr std::size_t kIdleLinks = 2;

/// An answer's status (bulk_channel.hpp); kStatusParked is never sent.
constexpr std::uint64_t kStatusOk = 0, kStatusUnknown = 1, kStatusNothing = 2, kStatusParked = 3;

void put_u64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

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

  /// Io thread: answers `status` with no bytes, then reads the next request (`then_close`:
  /// closes the connection instead).
  void answer(const std::shared_ptr<Connection>& c, std::uint64_t status, bool then_close = false) {
    put_u64(c->reply.data(), status);
    put_u64(c->reply.data() + 8, 0);
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
    put_u64(c->reply.data(), kStatusOk);
    put_u64(c->reply.data() + 8, c->sending.total_bytes());
    c->sent = 0;
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
          const std::uint64_t id = r.transfer_id;
          std::uint64_t status = kStatusUnknown;
          {
            std::lock_guard<std::mutex> lock(mu);
            auto it = table.find(id);
            if (it != table.end()) {
              c->sending = std::move(it->second.value);
              table.erase(it);
              status = kStatusOk;
            } else if (r.await && c->authenticated) {
              if (settled_empty.erase(id) > 0) {
                status = kStatusNothing;
              } else if (parked.emplace(id, c).second) {
                c->parked_ticket = id;
                status = kStatusParked;
              }
            }
          }
          if (status == kStatusParked) return park(c, id);
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

  /// Io thread: `c` waits for `ticket` to settle (BulkServer::settle answers it), for the
  /// time-to-live at most (then status 1). Its socket is not read meanwhile: the client
  /// sends nothing more before the answer.
  void park(const std::shared_ptr<Connection>& c, std::uint64_t ticket) {
    c->idle.expires_after(ttl);
    c->idle.async_wait([this, c, ticket](std::error_code ec) {
      if (ec) return;
      bool was_parked = false;
      {
        std::lock_guard<std::mutex> lock(mu);
        was_parked = c->parked_ticket == ticket && unpark_locked(c);
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
      lock.unlock();
      const bool ok = send_tensor(*c);
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

  /// Writes the reply header and the rest of the tensor on a blocking socket; a peer that
  /// stops reading for kSendStall fails the transfer.
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
    if (ok) c.socket.native_non_blocking(true, ec);
    return ok && !ec;
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
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped || ticket == 0) return;
    auto waiting = impl_->parked.find(ticket);
    auto offered = impl_->table.find(ticket);
    if (waiting == impl_->parked.end()) {
      // The await comes later (or never): it finds the value in the table, or this.
      if (offered == impl_->table.end() && impl_->settled_empty.size() < kBulkSettledKept)
        impl_->settled_empty.emplace(ticket, Clock::now() + impl_->ttl);
      return;
    }
    c = std::move(waiting->second);
    impl_->parked.erase(waiting);
    c->parked_ticket = 0;
    if (offered != impl_->table.end()) {
      c->sending = std::move(offered->second.value);
      impl_->table.erase(offered);
    }
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

std::size_t BulkServer::parked() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->parked.size();
}

// -- client ---------------------------------------------------------------------------------

namespace {

/// Landing buffers of dropped tensors, by capacity; see BulkClient::landing_tensor.
class LandingPool : public std::enable_shared_from_this<LandingPool> {
 public:
  static constexpr std::size_t kAlign = 64;

  std::shared_ptr<void> get(std::size_t bytes, std::chrono::milliseconds idle) {
    sweep(idle);
    bytes = std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
    void* p = nullptr;
    std::size_t capacity = bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // The smallest free buffer that fits and wastes at most a quarter.
      auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first <= bytes + bytes / 4) {
        capacity = it->first;
        p = it->second.data;
        cached_ -= capacity;
        free_.erase(it);
      }
    }
    if (!p) p = ::operator new (capacity, std::align_val_t{kAlign});
    std::weak_ptr<LandingPool> weak = weak_from_this();
    return std::shared_ptr<void>(p, [weak, capacity](void* q) {
      if (auto pool = weak.lock())
        pool->put(q, capacity);
      else
        ::operator delete (q, std::align_val_t{kAlign});
    });
  }

  /// Frees the buffers unused for longer than `idle`.
  void sweep(std::chrono::milliseconds idle) {
    std::vector<void*> old;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto cutoff = Clock::now() - idle;
      for (auto it = free_.begin(); it != free_.end();) {
        if (it->second.since <= cutoff) {
          cached_ -= it->first;
          old.push_back(it->second.data);
          it = free_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (void* q : old) ::operator delete (q, std::align_val_t{kAlign});
  }

  std::size_t cached() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

  ~LandingPool() {
    for (auto& [capacity, buffer] : free_)
      ::operator delete (buffer.data, std::align_val_t{kAlign});
  }

 private:
  struct Buffer {
    void* data;
    Clock::time_point since;
  };

  void put(void* q, std::size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + capacity <= kLandingPoolBytes) {
        cached_ += capacity;
        free_.emplace(capacity, Buffer{q, Clock::now()});
        return;
      }
    }
    ::operator delete (q, std::align_val_t{kAlign});
  }

  std::mutex mu_;
  std::multimap<std::size_t, Buffer> free_;
  std::size_t cached_ = 0;
};

}  // namespace

struct BulkClient::Impl {
  std::string host;
  std::string what;
  asio::io_context io;
  /// A connection to a bulk port.
  struct Link {
    explicit Link(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    bool fetched = false;    ///< has fetched a transfer: the server takes awaits on it
    std::uint64_t owes = 0;  ///< an await's ticket whose answer (status 2) is still unread
    std::chrono::milliseconds receive_wait{-1};  ///< its SO_RCVTIMEO (-1: not set yet)
  };
  /// Connections not in use, by port; at most kIdleLinks each (jobs only).
  std::map<std::uint16_t, std::vector<std::unique_ptr<Link>>> idle;
  /// Connections with an await outstanding, by ticket, with their port (jobs only).
  std::unordered_map<std::uint64_t, std::pair<std::uint16_t, std::unique_ptr<Link>>> awaiting;
  std::mt19937_64 rng{std::random_device{}()};  ///< under mu
  std::shared_ptr<LandingPool> pool = std::make_shared<LandingPool>();
  std::chrono::milliseconds landing_idle = kLandingPoolIdle;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> jobs;
  /// Held while a job runs, on the client's thread or a caller's (run_here).
  std::mutex job_mu;
  /// The client whose job this thread runs now (a job's callback that runs a step of the
  /// same session needs no lock it already holds).
  static thread_local const Impl* running_here;

  /// Runs `job` holding job_mu, unless this thread holds it already.
  void run_job(const std::function<void()>& job) {
    if (running_here == this) return job();
    std::lock_guard<std::mutex> running(job_mu);
    struct Mark {
      const Impl* outer;
      ~Mark() { running_here = outer; }
    } mark{std::exchange(running_here, this)};
    job();
  }
  bool stopping = false;
  std::thread thread;

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        // Idle buffers of the landing pool go back to the system while no job comes.
        while (!stopping && jobs.empty()) {
          if (cv.wait_for(lock, landing_idle) == std::cv_status::timeout) {
            lock.unlock();
            pool->sweep(landing_idle);
            lock.lock();
          }
        }
        if (jobs.empty()) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      run_job(job);
    }
  }

  /// A new connection to `port`.
  Status connect(std::uint16_t port, std::chrono::milliseconds timeout,
                 std::unique_ptr<Link>* out) {
    std::error_code ec;
    auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
    if (ec) return unavailable(what + ": bad bulk host '" + host + "': " + ec.message());
    auto link = std::make_unique<Link>(io);
    tcp::socket& socket = link->socket;
    std::error_code result = asio::error::would_block;
    socket.async_connect(tcp::endpoint(address, port), [&](std::error_code e) { result = e; });
    io.restart();
    io.run_for(timeout);
    if (result == asio::error::would_block) {
      socket.close(ec);
      io.restart();
      io.run();
      return unavailable(what + ": connecting to the bulk tensor port " + std::to_string(port) +
                         " timed out");
    }
    if (result)
      return unavailable(what + ": cannot connect to the bulk tensor port " + std::to_string(port) +
                         ": " + result.message());
    socket.set_option(tcp::no_delay(true), ec);
    socket.native_non_blocking(false, ec);  // blocking reads with a timeout (read_exact)
    if (ec) return unavailable(what + ": bulk tensor connection: " + ec.message());
    *out = std::move(link);
    return {};
  }

  /// An idle connection to `port`, its owed answer read; null when there is none. With
  /// `for_await`, only one that has fetched and whose owed answer has come (no wait).
  std::unique_ptr<Link> take_idle(std::uint16_t port, bool for_await,
                                  std::chrono::milliseconds answer_wait) {
    auto& links = idle[port];
    const auto usable = [for_await](const std::unique_ptr<Link>& l) {
      if (!for_await) return true;
      pollfd ready{l->socket.native_handle(), POLLIN, 0};
      return l->fetched && (l->owes == 0 || ::poll(&ready, 1, 0) == 1);
    };
    while (!links.empty()) {
      auto it = std::find_if(links.rbegin(), links.rend(), usable);
      if (it == links.rend()) return nullptr;
      std::unique_ptr<Link> link = std::move(*it);
      links.erase(std::next(it).base());
      if (link->owes == 0 || settle_owed(*link, answer_wait)) return link;
    }
    return nullptr;
  }

  /// Reads the answer an await left unread (status 2, nothing offered under its ticket);
  /// false when it is anything else or does not come (the connection is unusable then).
  bool settle_owed(Link& link, std::chrono::milliseconds answer_wait) {
    char header[kBulkReplyHeaderBytes];
    bool got_any = false;
    const int fd = link.socket.native_handle();
    link.owes = 0;
    return receive_timeout(link, answer_wait).ok() &&
           read_exact(fd, header, sizeof header, answer_wait, &got_any).ok() &&
           get_u64(header) != 0 && get_u64(header + 8) == 0;
  }

  /// Keeps `link` for the next transfer to `port`, unless it is closed or enough are kept.
  void give_back(std::uint16_t port, std::unique_ptr<Link> link) {
    auto& links = idle[port];
    if (link->socket.is_open() && links.size() < kIdleLinks) links.push_back(std::move(link));
  }

  /// Reads exactly `n` bytes, waiting at most `stall` for each piece. `*got_any` says
  /// whether a byte arrived (a reused connection the server closed fails with none). The
  /// socket is blocking with a receive timeout of `stall`: one system call takes a whole
  /// piece (MSG_WAITALL) instead of a poll and a read per segment that happened to arrive.
  Status read_exact(int fd, char* p, std::size_t n, std::chrono::milliseconds stall,
                    bool* got_any) {
    while (n > 0) {
      ssize_t k = ::recv(fd, p, std::min<std::size_t>(n, kReadPiece), MSG_WAITALL);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return unavailable(what + ": bulk tensor transfer stalled for " +
                           std::to_string(stall.count()) + " ms");
      if (k <= 0)
        return unavailable(
            what + ": bulk tensor connection " +
            (k == 0 ? std::string("closed by the server") : std::string(std::strerror(errno))));
      *got_any = true;
      p += k;
      n -= static_cast<std::size_t>(k);
    }
    return {};
  }

  /// Sets the receive timeout of `link`'s blocking socket (one system call when it changes).
  Status receive_timeout(Link& link, std::chrono::milliseconds wait) {
    if (link.receive_wait == wait) return {};
    timeval timeout{};
    timeout.tv_sec = static_cast<time_t>(wait.count() / 1000);
    timeout.tv_usec = static_cast<suseconds_t>(wait.count() % 1000 * 1000);
    if (timeout.tv_sec == 0 && timeout.tv_usec == 0) timeout.tv_usec = 1;  // 0 would mean never
    if (::setsockopt(link.socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
                     sizeof timeout) != 0)
      return unavailable(what + ": bulk tensor connection: setsockopt: " + std::strerror(errno));
    link.receive_wait = wait;
    return {};
  }

  /// Sends `magic` + `id` on `link`.
  Status request(Link& link, const char (&magic)[8], std::uint64_t id) {
    char bytes[kBulkRequestBytes];
    std::memcpy(bytes, magic, sizeof magic);
    put_u64(bytes + 8, id);
    std::error_code ec;
    asio::write(link.socket, asio::buffer(bytes), ec);
    if (ec) return unavailable(what + ": bulk tensor request: " + ec.message());
    return {};
  }

  /// Reads an answer for transfer `id` on `link`: `*status` its status, and when that is 0
  /// its bytes into `out` (exactly `bytes` long: DataLoss, the connection closed, else).
  Status receive(Link& link, std::uint64_t id, void* out, std::size_t bytes,
                 std::chrono::milliseconds stall, std::chrono::milliseconds answer_wait,
                 bool* got_any, std::uint64_t* status) {
    char header[kBulkReplyHeaderBytes];
    int fd = link.socket.native_handle();
    // The answer's header comes at once from a server that took the connection; one that
    // did not (its backlog, out of descriptors) is given up on sooner than a stalled stream.
    const auto first = std::min(stall, answer_wait);
    ACTORFLOW_RETURN_IF_ERROR(receive_timeout(link, first));
    ACTORFLOW_RETURN_IF_ERROR(read_exact(fd, header, sizeof header, first, got_any));
    *status = get_u64(header);
    const std::uint64_t length = get_u64(header + 8);
    if (*status != kStatusOk) return {};
    if (length != bytes) {
      std::error_code ignored;
      link.socket.close(ignored);  // the stream is out of step now
      return data_loss(what + ": bulk tensor transfer " + std::to_string(id) + " has " +
                       std::to_string(length) + " bytes, expected " + std::to_string(bytes));
    }
    ACTORFLOW_RETURN_IF_ERROR(receive_timeout(link, stall));
    return read_exact(fd, static_cast<char*>(out), bytes, stall, got_any);
  }

  /// Reads the answer to the await for `ticket` into `out`: true when it carried the value.
  /// `*failed` is the error when the connection broke after the answer began (the value
  /// is lost with it); one that broke before (a server that restarted) fails nothing.
  bool collect(std::uint64_t ticket, void* out, std::size_t bytes, std::chrono::milliseconds stall,
               std::chrono::milliseconds answer_wait, Status* failed) {
    auto it = awaiting.find(ticket);
    if (it == awaiting.end()) return false;
    auto [port, link] = std::move(it->second);
    awaiting.erase(it);
    bool got_any = false;
    std::uint64_t status = kStatusUnknown;
    Status s = receive(*link, ticket, out, bytes, stall, answer_wait, &got_any, &status);
    if (!s.ok()) {
      if (got_any) *failed = std::move(s);
      return false;
    }
    if (status == kStatusOk) link->fetched = true;
    give_back(port, std::move(link));
    return status == kStatusOk;
  }
};

BulkClient::BulkClient(std::string host, std::string what, std::chrono::milliseconds landing_idle)
    : impl_(std::make_unique<Impl>()) {
  impl_->landing_idle = landing_idle;
  impl_->host = std::move(host);
  impl_->what = std::move(what);
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

BulkClient::~BulkClient() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void BulkClient::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->jobs.push_back(std::move(job));
  }
  impl_->cv.notify_one();
}

thread_local const BulkClient::Impl* BulkClient::Impl::running_here = nullptr;

void BulkClient::run_here(const std::function<void()>& job) { impl_->run_job(job); }

Tensor BulkClient::landing_tensor(DType dtype, const Shape& shape) {
  const std::size_t bytes = static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype);
  return Tensor::from_buffer(dtype, shape, impl_->pool->get(bytes, impl_->landing_idle),
                             /*on_device=*/false);
}

std::size_t BulkClient::landing_pool_bytes() const { return impl_->pool->cached(); }

std::uint64_t BulkClient::new_ticket() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::uint64_t ticket = 0;
  while (ticket == 0) ticket = impl_->rng();
  return ticket;
}

bool BulkClient::await_transfer(std::uint16_t port, std::uint64_t ticket) {
  std::unique_lock<std::mutex> running(impl_->job_mu, std::defer_lock);
  if (Impl::running_here != impl_.get() && !running.try_lock()) return false;
  if (ticket == 0 || impl_->awaiting.count(ticket)) return false;
  auto link = impl_->take_idle(port, /*for_await=*/true, std::chrono::seconds(5));
  if (!link || !impl_->request(*link, kBulkAwaitMagic, ticket).ok()) return false;
  impl_->awaiting.emplace(ticket, std::make_pair(port, std::move(link)));
  return true;
}

bool BulkClient::awaiting(std::uint64_t ticket) const { return impl_->awaiting.count(ticket) > 0; }

void BulkClient::end_await(std::uint64_t ticket, bool step_ok) {
  auto it = impl_->awaiting.find(ticket);
  if (it == impl_->awaiting.end()) return;
  auto [port, link] = std::move(it->second);
  impl_->awaiting.erase(it);
  if (!step_ok) return;  // closed: a server that never ran the step never answers
  link->owes = ticket;
  impl_->give_back(port, std::move(link));
}

Status BulkClient::fetch(std::uint16_t port, std::uint64_t id, void* out, std::size_t bytes,
                         std::chrono::milliseconds stall, std::chrono::milliseconds answer_wait) {
  // The answer to this client's await, when `id` is its ticket.
  Status awaited;
  if (impl_->collect(id, out, bytes, stall, answer_wait, &awaited)) return {};
  if (!awaited.ok()) return awaited;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto link = impl_->take_idle(port, /*for_await=*/false, answer_wait);
    const bool reused = link != nullptr;
    if (!link) ACTORFLOW_RETURN_IF_ERROR(impl_->connect(port, std::min(stall, answer_wait), &link));
    bool got_any = false;
    std::uint64_t status = kStatusUnknown;
    Status s = impl_->request(*link, kBulkMagic, id);
    if (s.ok()) s = impl_->receive(*link, id, out, bytes, stall, answer_wait, &got_any, &status);
    if (s.ok() && status != kStatusOk)
      s = data_loss(impl_->what + ": bulk tensor transfer " + std::to_string(id) +
                    " is unknown to the server (expired or already collected)");
    if (s.code() != Code::unavailable) {
      if (s.ok()) link->fetched = true;
      impl_->give_back(port, std::move(link));
      return s;
    }
    // A connection the server closed while idle fails before any byte: reconnect once.
    if (!(reused && !got_any)) return s;
  }
  return unavailable(impl_->what + ": bulk tensor transfer failed");
}

}  // namespace af::net
