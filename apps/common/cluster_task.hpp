#pragma once

// What the training programs that run as one task of a cluster (actorflow-dist-train,
// actorflow-wide-deep) share: timestamped log lines and the bytes exchanged with the ps tasks.
#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace af::apps {

/// Writes "YYYY-MM-DD HH:MM:SS.mmm [who] line" to stderr in one write.
inline void log_line(const std::string& who, const std::string& line) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%F %T", std::localtime(&seconds));
  std::ostringstream out;
  out << stamp << "." << std::setw(3) << std::setfill('0') << ms << " [" << who << "] " << line
      << "\n";
  std::cerr << out.str();
}

/// Bytes this task has sent to and received from the ps tasks so far.
inline std::pair<std::uint64_t, std::uint64_t> ps_traffic(const af::Server& server) {
  std::uint64_t sent = 0, received = 0;
  for (const auto& [peer, t] : server.peer_traffic())
    if (peer.rfind("/job:ps/", 0) == 0) {
      sent += t.sent;
      received += t.received;
    }
  return {sent, received};
}

}  // namespace af::apps
