// The bulk channel's client (bulk_channel.hpp): connections to servers' bulk ports, awaits,
// and the landing pool that fetched tensors are read into.
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <asio.hpp>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "bulk_channel.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

/// The most bytes one receive of a transfer asks for.
constexpr std::size_t kReadPiece = 16u << 20;
/// The connections to one bulk port a client keeps while none is in use.
constexpr std::size_t kIdleLinks = 2;

}  // namespace

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

  /// An idle connection to `port` whose owed answer, if any, has come (it is read here: no
  /// wait), one that has fetched when `for_await`; null when there is none.
  std::unique_ptr<Link> take_idle(std::uint16_t port, bool for_await) {
    auto& links = idle[port];
    // A link whose owed answer has not come yet waits for a later use (read it then).
    const auto usable = [for_await](const std::unique_ptr<Link>& l) {
      pollfd ready{l->socket.native_handle(), POLLIN, 0};
      return (l->fetched || !for_await) && (l->owes == 0 || ::poll(&ready, 1, 0) == 1);
    };
    while (!links.empty()) {
      auto it = std::find_if(links.rbegin(), links.rend(), usable);
      if (it == links.rend()) return nullptr;
      std::unique_ptr<Link> link = std::move(*it);
      links.erase(std::next(it).base());
      if (link->owes == 0 || settle_owed(*link)) return link;
    }
    return nullptr;
  }

  /// Reads the answer an await left unread, which has begun to arrive (status 2, nothing
  /// offered under its ticket); false when it is anything else (the connection is unusable
  /// then).
  bool settle_owed(Link& link) {
    char header[kBulkReplyHeaderBytes];
    bool got_any = false;
    link.owes = 0;
    return read_exact(link, header, sizeof header, link.receive_wait, &got_any).ok() &&
           load_le64(header) != 0 && load_le64(header + 8) == 0;
  }

  /// Keeps `link` for the next transfer to `port`, unless it is closed or enough are kept.
  void give_back(std::uint16_t port, std::unique_ptr<Link> link) {
    auto& links = idle[port];
    if (link->socket.is_open() && links.size() < kIdleLinks) links.push_back(std::move(link));
  }

  /// Reads exactly `n` bytes, waiting at most `stall` for each piece. `*got_any` says
  /// whether a byte arrived (a reused connection the server closed fails with none). The
  /// socket is blocking with a receive timeout (`link.receive_wait`, set once: a timeout
  /// changed per read cost two system calls a fetch): one system call takes a whole piece
  /// (MSG_WAITALL) instead of a poll and a read per segment that happened to arrive, and
  /// timeouts in a row count towards `stall`.
  Status read_exact(Link& link, char* p, std::size_t n, std::chrono::milliseconds stall,
                    bool* got_any) {
    std::chrono::milliseconds quiet{0};  // waited since the last byte
    while (n > 0) {
      ssize_t k =
          ::recv(link.socket.native_handle(), p, std::min<std::size_t>(n, kReadPiece), MSG_WAITALL);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        quiet += link.receive_wait;
        if (quiet < stall) continue;
        return unavailable(what + ": bulk tensor transfer stalled for " +
                           std::to_string(stall.count()) + " ms");
      }
      if (k <= 0)
        return unavailable(
            what + ": bulk tensor connection " +
            (k == 0 ? std::string("closed by the server") : std::string(std::strerror(errno))));
      *got_any = true;
      quiet = std::chrono::milliseconds(0);
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
    store_le64(bytes + 8, id);
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
    // The answer's header comes at once from a server that took the connection; one that
    // did not (its backlog, out of descriptors) is given up on sooner than a stalled stream.
    const auto first = std::min(stall, answer_wait);
    ACTORFLOW_RETURN_IF_ERROR(receive_timeout(link, first));
    ACTORFLOW_RETURN_IF_ERROR(read_exact(link, header, sizeof header, first, got_any));
    *status = load_le64(header);
    const std::uint64_t length = load_le64(header + 8);
    if (*status != kStatusOk) return {};
    if (length != bytes) {
      std::error_code ignored;
      link.socket.close(ignored);  // the stream is out of step now
      return data_loss(what + ": bulk tensor transfer " + std::to_string(id) + " has " +
                       std::to_string(length) + " bytes, expected " + std::to_string(bytes));
    }
    return read_exact(link, static_cast<char*>(out), bytes, stall, got_any);
  }

  /// Reads the answer to the await for `ticket` into `out`: true when it carried the value.
  /// `*failed` is the error when the connection broke after the answer began (the value
  /// is lost with it); one that broke before (a server that restarted) fails nothing.
  bool collect(std::uint64_t ticket, void* out, std::size_t bytes, std::chrono::milliseconds stall,
               Status* failed) {
    auto it = awaiting.find(ticket);
    if (it == awaiting.end()) return false;
    auto [port, link] = std::move(it->second);
    awaiting.erase(it);
    bool got_any = false;
    std::uint64_t status = kStatusUnknown;
    // The server took the await and answers it once the step's reply is out (the reply is
    // here): its answer may take as long as a stalled stream.
    Status s = receive(*link, ticket, out, bytes, stall, stall, &got_any, &status);
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
  auto link = impl_->take_idle(port, /*for_await=*/true);
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
  if (impl_->collect(id, out, bytes, stall, &awaited)) return {};
  if (!awaited.ok()) return awaited;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto link = impl_->take_idle(port, /*for_await=*/false);
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
