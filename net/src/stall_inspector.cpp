#include "stall_inspector.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "actorflow/ops/logging.hpp"

namespace af::net {

StallInspector::StallInspector(std::string task, std::chrono::milliseconds period)
    : task_(std::move(task)), period_(std::max(period, std::chrono::milliseconds(1))) {
  thread_ = std::thread([this] { run(); });
}

StallInspector::~StallInspector() { stop(); }

void StallInspector::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<StallWatch::Stalled> StallInspector::stalled() const {
  return StallWatch::global().stalled(task_ + "/", period_);
}

std::string StallInspector::describe(const StallWatch::Stalled& s) {
  std::string what = s.kind == "take"      ? "a take of accumulator '" + s.what + "'"
                     : s.kind == "dequeue" ? "a dequeue from " + s.what
                                           : "a receive of " + s.what;
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f s", static_cast<double>(s.waited.count()) / 1000.0);
  std::string line = "step " + std::to_string(s.step_id) + " has waited " + waited + " in " + what +
                     " on " + s.device;
  if (s.global_step >= 0) line += " (global step " + std::to_string(s.global_step) + ")";
  if (!s.waiting_for.empty()) line += ": waiting for " + s.waiting_for;
  return line;
}

void StallInspector::run() {
  const auto tick =
      std::clamp(period_ / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
  std::map<std::uint64_t, std::chrono::steady_clock::time_point> logged;  // wait id -> last line
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, tick, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    std::map<std::uint64_t, std::chrono::steady_clock::time_point> still;
    for (const auto& s : stalled()) {
      auto it = logged.find(s.id);
      if (it != logged.end() && now - it->second < period_) {
        still.emplace(s.id, it->second);
        continue;
      }
      log_info(task_ + ": stalled: " + describe(s));
      still.emplace(s.id, now);
    }
    logged.swap(still);
    lock.lock();
  }
}

}  // namespace af::net
