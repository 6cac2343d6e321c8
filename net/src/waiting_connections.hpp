#pragma once

// What the step, bulk and push ports share in front of their protocols (and the status and
// CAF ports their listening socket): the connections that have
// not made a first valid request yet, closed when their deadline passes or, oldest first,
// when more than a limit wait (an idle flood cannot crowd real clients out), and the test
// for an accept that failed for want of descriptors (the loop waits instead of spinning).
#include <asio/error.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <system_error>

#include "refusals.hpp"

namespace af::net {

/// Opens `acceptor` on `host`:`port` (an IP address or "localhost"; port 0: the system
/// chooses), with address reuse, and listens; the error when it cannot.
inline std::error_code listen_on(asio::ip::tcp::acceptor& acceptor, const std::string& host,
                                 std::uint16_t port) {
  std::error_code ec;
  const auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return ec;
  const asio::ip::tcp::endpoint endpoint(address, port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  return ec;
}

/// True when an accept failed because the process (or system) is out of descriptors or
/// memory: accepting again at once would spin on the pending connection.
inline bool out_of_descriptors(const std::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE ||
         ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
}

/// After an accept failed for want of descriptors: calls `accept` again in 100 ms (the
/// timer's cancellation drops it).
template <class F>
void accept_later(asio::steady_timer& timer, F accept) {
  timer.expires_after(std::chrono::milliseconds(100));
  timer.async_wait([accept = std::move(accept)](std::error_code ec) {
    if (!ec) accept();
  });
}

/// `Connection` has `peer` (a string) and `deadline` (a steady_clock time point); `waiting`
/// (io thread only) says whether one still waits for its first request, `close` closes it.
template <class Connection>
class WaitingConnections {
 public:
  WaitingConnections() = default;
  WaitingConnections(std::string port, std::chrono::milliseconds timeout, std::size_t limit,
                     std::shared_ptr<Refusals> refusals)
      : port_(std::move(port)), timeout_(timeout), limit_(limit), refusals_(std::move(refusals)) {}

  std::chrono::steady_clock::time_point deadline_from_now() const {
    return std::chrono::steady_clock::now() + timeout_;
  }

  template <class Waiting, class Close>
  void add(const std::shared_ptr<Connection>& c, Waiting&& waiting, Close&& close) {
    list_.push_back(c);
    trim(waiting, close);
  }

  /// Closes the connections past their deadline, then the oldest beyond the limit.
  template <class Waiting, class Close>
  void trim(Waiting&& waiting, Close&& close) {
    const auto now = std::chrono::steady_clock::now();
    std::size_t alive = 0;
    for (auto it = list_.begin(); it != list_.end();) {
      auto c = it->lock();
      if (!c || !waiting(*c)) {
        it = list_.erase(it);
      } else if (now >= c->deadline) {
        refuse(c->peer, "handshake_timeout",
               "no request within " + std::to_string(timeout_.count()) + " ms");
        close(c);
        it = list_.erase(it);
      } else {
        ++alive;
        ++it;
      }
    }
    while (alive > limit_ && !list_.empty()) {
      if (auto c = list_.front().lock(); c && waiting(*c)) {
        refuse(c->peer, "crowded",
               "more than " + std::to_string(limit_) +
                   " connections without a request: the oldest is closed");
        close(c);
        --alive;
      }
      list_.pop_front();
    }
  }

  void refuse(const std::string& peer, const std::string& reason, const std::string& detail) const {
    if (refusals_) refusals_->refuse(port_, peer, reason, detail);
  }

 private:
  std::string port_;
  std::chrono::milliseconds timeout_{5000};
  std::size_t limit_ = 128;
  std::shared_ptr<Refusals> refusals_;
  std::deque<std::weak_ptr<Connection>> list_;  ///< oldest first
};

}  // namespace af::net
