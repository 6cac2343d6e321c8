#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/logging.hpp"

namespace af::test {

/// Captures log lines while alive (restores the previous sink after).
class LogCapture {
 public:
  LogCapture() {
    previous_ = set_log_sink([this](const std::string& line) {
      std::lock_guard<std::mutex> guard(mu_);
      lines_.push_back(line);
    });
  }
  ~LogCapture() { set_log_sink(previous_); }

  std::vector<std::string> take() {
    std::lock_guard<std::mutex> guard(mu_);
    return std::exchange(lines_, {});
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
  LogSink previous_;
};

}  // namespace af::test
