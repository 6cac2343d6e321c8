#pragma once

// One listening port of a server, in front of its protocol: the accept loop and the bounds
// every port keeps, in one place for the step, bulk, push and status ports.
// - Accepting backs off 100 ms when the process is out of descriptors (instead of spinning
//   on the pending connection), counted as a `descriptors` refusal.
// - Beyond `max_connections` open connections a new one is closed at once (`full`).
// - A connection that has not completed its handshake (its first valid request) by its
//   deadline, counted from accept however slowly its bytes come, is closed
//   (`handshake_timeout`), and so is the oldest of those waiting beyond
//   `max_unauthenticated` (`crowded`): an idle flood cannot crowd real peers out. The
//   waiting list is swept every 100 ms.
// Everything runs on the thread that runs `io`. Refusals are counted and logged
// (refusals.hpp) under the port's name.
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "refusals.hpp"
#include "waiting_connections.hpp"

namespace af::net {

/// The bounds of one listening port (see above).
struct ListenerLimits {
  std::chrono::milliseconds handshake_timeout{5000};
  std::size_t max_unauthenticated = 128;
  std::size_t max_connections = std::numeric_limits<std::size_t>::max();
};

/// A listening port whose connections are `Connection`s, a type with `peer` (a string) and
/// `deadline` (a steady_clock time point, which the listener sets) members.
template <class Connection>
class TcpListener {
 public:
  using Ptr = std::shared_ptr<Connection>;
  /// Makes the connection of an accepted socket from `peer` ("address:port").
  using Make = std::function<Ptr(asio::ip::tcp::socket socket, std::string peer)>;
  /// Whether a connection still waits for its handshake.
  using Waiting = std::function<bool(const Connection&)>;
  /// Closes a connection (the listener's bounds, or the server's stop).
  using Close = std::function<void(const Ptr&)>;
  /// Starts serving an accepted connection (reads its handshake).
  using Start = std::function<void(const Ptr&)>;

  /// A listener for the port named `name` (in refusals) on `io`.
  TcpListener(asio::io_context& io, std::string name, ListenerLimits limits,
              std::shared_ptr<Refusals> refusals)
      : acceptor_(io),
        sweeper_(io),
        backoff_(io),
        name_(std::move(name)),
        limits_(limits),
        refusals_(refusals),
        waiting_(name_, limits.handshake_timeout, limits.max_unauthenticated, std::move(refusals)) {
  }

  /// Listens on `host`:`port` (port 0: the system chooses); the error when it cannot.
  std::error_code listen(const std::string& host, std::uint16_t port) {
    auto ec = listen_on(acceptor_, host, port);
    if (!ec) port_ = acceptor_.local_endpoint().port();
    return ec;
  }
  /// The port listened on.
  std::uint16_t port() const { return port_; }

  /// Starts accepting (call once, after `listen`).
  void start(Make make, Waiting waiting, Close close, Start start) {
    make_ = std::move(make);
    is_waiting_ = std::move(waiting);
    close_ = std::move(close);
    start_ = std::move(start);
    accept();
    sweep();
  }

  /// Io thread: stops accepting and sweeping (connections are the server's to close).
  void stop() {
    std::error_code ignored;
    acceptor_.close(ignored);
    sweeper_.cancel();
    backoff_.cancel();
  }

  /// A connection ended (the server calls it once per connection it made; any thread).
  void closed() { --open_; }
  /// Connections open now.
  std::size_t open() const { return open_.load(); }

  /// Counts and logs a refusal of `peer` on this port.
  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) {
    if (refusals_) refusals_->refuse(name_, peer, reason, detail);
  }

 private:
  void accept() {
    acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
      if (out_of_descriptors(ec)) {
        refuse("(not accepted)", "descriptors",
               "cannot accept: " + ec.message() + "; trying again in 100 ms");
        return accept_later(backoff_, [this] { accept(); });
      }
      if (!ec) admit(std::move(socket));
      accept();
    });
  }

  void admit(asio::ip::tcp::socket socket) {
    std::error_code ignored;
    const auto remote = socket.remote_endpoint(ignored);
    std::string peer = remote.address().to_string() + ":" + std::to_string(remote.port());
    if (open_ >= limits_.max_connections) {
      refuse(peer, "full",
             std::to_string(limits_.max_connections) + " " + name_ + " connections are open");
      socket.close(ignored);
      return;
    }
    Ptr c = make_(std::move(socket), std::move(peer));
    if (!c) return;
    ++open_;
    c->deadline = waiting_.deadline_from_now();
    waiting_.add(c, is_waiting_, close_);
    start_(c);
  }

  void sweep() {
    sweeper_.expires_after(std::chrono::milliseconds(100));
    sweeper_.async_wait([this](std::error_code ec) {
      if (ec || !acceptor_.is_open()) return;
      waiting_.trim(is_waiting_, close_);
      sweep();
    });
  }

  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer sweeper_;
  asio::steady_timer backoff_;
  std::string name_;
  ListenerLimits limits_;
  std::shared_ptr<Refusals> refusals_;
  WaitingConnections<Connection> waiting_;
  std::uint16_t port_ = 0;
  std::atomic<std::size_t> open_{0};
  Make make_;
  Waiting is_waiting_;
  Close close_;
  Start start_;
};

}  // namespace af::net
