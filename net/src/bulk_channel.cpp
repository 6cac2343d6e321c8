#include "bulk_channel.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>

#include <asio.hpp>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"

namespace af::net {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr char kMagic[8] = {'A', 'F', 'B', 'U', 'L', 'K', '0', '1'};
constexpr std::size_t kMaxConnections = 256;
/// A connection with no request for this long is closed (clients reconnect).
constexpr auto kIdleTimeout = std::chrono::seconds(120);

void put_u64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
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
    std::array<char, 16> reply{};
    Tensor sending;
  };

  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;
  std::string owner;
  std::chrono::milliseconds ttl{0};
  std::uint16_t port = 0;
  std::atomic<std::size_t> connections{0};

  mutable std::mutex mu;
  std::unordered_map<std::uint64_t, Entry> table;
  std::mt19937_64 rng{std::random_device{}()};
  bool stopped = false;

  void accept() {
    acceptor.async_accept([this](std::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) {
        if (connections.load() >= kMaxConnections) {
          socket.close();
        } else {
          auto c = std::make_shared<Connection>(io);
          c->socket = std::move(socket);
          c->socket.set_option(tcp::no_delay(true), ec);
          ++connections;
          read_request(c);
        }
      }
      accept();
    });
  }

  void close(const std::shared_ptr<Connection>& c) {
    if (!c->socket.is_open()) return;
    std::error_code ignored;
    c->socket.close(ignored);
    c->idle.cancel();
    --connections;
  }

  void read_request(const std::shared_ptr<Connection>& c) {
    c->idle.expires_after(kIdleTimeout);
    c->idle.async_wait([this, c](std::error_code ec) {
      if (!ec) close(c);
    });
    asio::async_read(c->socket, asio::buffer(c->request), [this, c](std::error_code ec, std::size_t) {
      if (ec) return close(c);
      if (std::memcmp(c->request.data(), kMagic, sizeof kMagic) != 0) return close(c);  // not our protocol
      std::uint64_t id = get_u64(c->request.data() + 8);
      std::uint64_t status = 1, length = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        auto it = table.find(id);
        if (it != table.end()) {
          c->sending = std::move(it->second.value);
          table.erase(it);
          status = 0;
          length = c->sending.total_bytes();
        }
      }
      put_u64(c->reply.data(), status);
      put_u64(c->reply.data() + 8, length);
      std::array<asio::const_buffer, 2> out{asio::buffer(c->reply),
                                            asio::buffer(status == 0 ? c->sending.raw_data() : nullptr, length)};
      asio::async_write(c->socket, out, [this, c](std::error_code ec, std::size_t) {
        c->sending = Tensor();
        if (ec) return close(c);
        read_request(c);
      });
    });
  }

  void expire_locked(Clock::time_point now) {
    for (auto it = table.begin(); it != table.end();) {
      if (it->second.expires <= now)
        it = table.erase(it);
      else
        ++it;
    }
  }
};

BulkServer::BulkServer(const std::string& host, std::string owner, std::chrono::milliseconds ttl)
    : impl_(std::make_shared<Impl>()) {
  impl_->owner = std::move(owner);
  impl_->ttl = ttl;
  std::error_code ec;
  auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (!ec) {
    tcp::endpoint endpoint(address, 0);
    impl_->acceptor.open(endpoint.protocol(), ec);
    if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) impl_->acceptor.bind(endpoint, ec);
    if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec)
    throw UnavailableError(unavailable(impl_->owner + ": cannot open the bulk tensor port on " + host + ": " +
                                       ec.message()));
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

BulkServer::~BulkServer() { stop(); }

void BulkServer::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    impl_->table.clear();
  }
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t BulkServer::port() const noexcept { return impl_->port; }

std::uint64_t BulkServer::offer(Tensor value) {
  auto now = Clock::now();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->expire_locked(now);
  std::uint64_t id = 0;
  do {
    id = impl_->rng();
  } while (id == 0 || impl_->table.count(id));
  impl_->table.emplace(id, Impl::Entry{std::move(value), now + impl_->ttl});
  return id;
}

std::size_t BulkServer::pending() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->table.size();
}

// -- client ---------------------------------------------------------------------------------

struct BulkClient::Impl {
  std::string host;
  std::string what;
  asio::io_context io;
  std::map<std::uint16_t, std::unique_ptr<tcp::socket>> sockets;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> jobs;
  bool stopping = false;
  std::thread thread;

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (jobs.empty()) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      job();
    }
  }

  Status connect(std::uint16_t port, std::chrono::milliseconds timeout, tcp::socket** out) {
    auto& slot = sockets[port];
    if (slot && slot->is_open()) {
      *out = slot.get();
      return {};
    }
    std::error_code ec;
    auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
    if (ec) return unavailable(what + ": bad bulk host '" + host + "': " + ec.message());
    slot = std::make_unique<tcp::socket>(io);
    std::error_code result = asio::error::would_block;
    slot->async_connect(tcp::endpoint(address, port), [&](std::error_code e) { result = e; });
    io.restart();
    io.run_for(timeout);
    if (result == asio::error::would_block) {
      slot->close(ec);
      io.restart();
      io.run();
      return unavailable(what + ": connecting to the bulk tensor port " + std::to_string(port) + " timed out");
    }
    if (result) {
      slot->close(ec);
      return unavailable(what + ": cannot connect to the bulk tensor port " + std::to_string(port) + ": " +
                         result.message());
    }
    slot->set_option(tcp::no_delay(true), ec);
    *out = slot.get();
    return {};
  }

  /// Reads exactly `n` bytes, waiting at most `stall` for each piece. `*got_any` says
  /// whether a byte arrived (a reused connection the server closed fails with none).
  Status read_exact(int fd, char* p, std::size_t n, std::chrono::milliseconds stall, bool* got_any) {
    while (n > 0) {
      pollfd pfd{fd, POLLIN, 0};
      int r = ::poll(&pfd, 1, static_cast<int>(stall.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r == 0)
        return unavailable(what + ": bulk tensor transfer stalled for " + std::to_string(stall.count()) + " ms");
      if (r < 0) return unavailable(what + ": bulk tensor transfer: poll: " + std::strerror(errno));
      ssize_t k = ::recv(fd, p, std::min<std::size_t>(n, 16u << 20), 0);
      if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (k <= 0)
        return unavailable(what + ": bulk tensor connection " +
                           (k == 0 ? std::string("closed by the server") : std::string(std::strerror(errno))));
      *got_any = true;
      p += k;
      n -= static_cast<std::size_t>(k);
    }
    return {};
  }

  Status transact(tcp::socket& socket, std::uint64_t id, void* out, std::size_t bytes,
                  std::chrono::milliseconds stall, bool* got_any) {
    char request[16];
    std::memcpy(request, kMagic, sizeof kMagic);
    put_u64(request + 8, id);
    std::error_code ec;
    asio::write(socket, asio::buffer(request), ec);
    if (ec) return unavailable(what + ": bulk tensor request: " + ec.message());
    char header[16];
    int fd = socket.native_handle();
    ACTORFLOW_RETURN_IF_ERROR(read_exact(fd, header, sizeof header, stall, got_any));
    std::uint64_t status = get_u64(header), length = get_u64(header + 8);
    if (status != 0)
      return data_loss(what + ": bulk tensor transfer " + std::to_string(id) +
                       " is unknown to the server (expired or already collected)");
    if (length != bytes) {
      std::error_code ignored;
      socket.close(ignored);  // the stream is out of step now
      return data_loss(what + ": bulk tensor transfer " + std::to_string(id) + " has " + std::to_string(length) +
                       " bytes, expected " + std::to_string(bytes));
    }
    return read_exact(fd, static_cast<char*>(out), bytes, stall, got_any);
  }
};

BulkClient::BulkClient(std::string host, std::string what) : impl_(std::make_unique<Impl>()) {
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

Status BulkClient::fetch(std::uint16_t port, std::uint64_t id, void* out, std::size_t bytes,
                         std::chrono::milliseconds stall) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = impl_->sockets.count(port) && impl_->sockets[port] && impl_->sockets[port]->is_open();
    tcp::socket* socket = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(impl_->connect(port, stall, &socket));
    bool got_any = false;
    Status s = impl_->transact(*socket, id, out, bytes, stall, &got_any);
    if (s.ok()) return s;
    if (s.code() == Code::unavailable) {
      std::error_code ignored;
      socket->close(ignored);
    }
    // A connection the server closed while idle fails before any byte: reconnect once.
    if (!(reused && !got_any && s.code() == Code::unavailable)) return s;
  }
  return unavailable(impl_->what + ": bulk tensor transfer failed");
}

}  // namespace af::net
