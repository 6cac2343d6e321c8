#pragma once

// A small HTTP/1.1 server for a task's status port (`/metrics`, `/status`): Asio, one
// thread, one request per connection (Connection: close), at most 64 connections at once.
// Requests larger than 8 KiB, or not complete within 5 s, or not `GET`, are answered with an
// error status or dropped; the server keeps serving. Connections closed unanswered (over
// the 64, timed out, or not accepted for want of descriptors) and requests too large are
// counted and logged as refusals of port "status".
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "refusals.hpp"

namespace af::net {

class StatusHttpServer {
 public:
  /// Answers `path` (without the query string): returns the HTTP status code and fills
  /// `body` and `content_type`. Runs on the server's thread.
  using Handler =
      std::function<int(const std::string& path, std::string* body, std::string* content_type)>;

  /// Listens on `host`:`port` (0: the system chooses); throws UnavailableError naming
  /// `owner` when it cannot. Refusals are counted in `refusals` (none: logged only).
  StatusHttpServer(const std::string& host, std::uint16_t port, Handler handler, std::string owner,
                   std::shared_ptr<Refusals> refusals = {});
  ~StatusHttpServer();
  StatusHttpServer(const StatusHttpServer&) = delete;
  StatusHttpServer& operator=(const StatusHttpServer&) = delete;

  /// Closes the port and joins the thread. Idempotent.
  void stop();
  std::uint16_t port() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::net
