#pragma once

// What a server's ports refused, and why: counted for /metrics and logged, at most one line
// per port and reason every few seconds (a flood must not become a flood of log lines).
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>

#include "actorflow/ops/logging.hpp"

namespace af::net {

class Refusals {
 public:
  explicit Refusals(std::string owner, std::chrono::seconds log_every = std::chrono::seconds(5))
      : owner_(std::move(owner)), log_every_(log_every) {}

  /// Counts a refusal on `port` ("caf", "step", "bulk", "status") for `reason` (a short
  /// metric label: "oversized", "handshake_timeout", ...) and logs `detail`, naming `peer`.
  void refuse(const std::string& port, const std::string& peer, const std::string& reason,
              const std::string& detail) {
    std::string line;
    {
      std::lock_guard<std::mutex> guard(mu_);
      Entry& e = entries_[{port, reason}];
      ++e.count;
      const auto now = std::chrono::steady_clock::now();
      if (e.count > 1 && now - e.last_log < log_every_) {
        ++e.unlogged;
        return;
      }
      line =
          owner_ + ": refused a connection on its " + port + " port from " + peer + ": " + detail;
      if (e.unlogged > 0)
        line += " (and " + std::to_string(e.unlogged) +
                " more for the same reason since the last line)";
      e.unlogged = 0;
      e.last_log = now;
    }
    log_info(line);
  }

  std::uint64_t count(const std::string& port, const std::string& reason) const {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = entries_.find({port, reason});
    return it == entries_.end() ? 0 : it->second.count;
  }

  /// `actorflow_refused_connections_total{task, port, reason}` lines (Prometheus text).
  void write_metrics(std::ostream& out, const std::string& task) const {
    std::lock_guard<std::mutex> guard(mu_);
    out << "# HELP actorflow_refused_connections_total Connections a port of this task refused or "
           "closed, by "
           "reason\n# TYPE actorflow_refused_connections_total counter\n";
    for (const auto& [key, e] : entries_)
      out << "actorflow_refused_connections_total{task=\"" << task << "\",port=\"" << key.first
          << "\",reason=\"" << key.second << "\"} " << e.count << "\n";
  }

 private:
  struct Entry {
    std::uint64_t count = 0;
    std::uint64_t unlogged = 0;
    std::chrono::steady_clock::time_point last_log{};
  };
  const std::string owner_;
  const std::chrono::seconds log_every_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
};

}  // namespace af::net
