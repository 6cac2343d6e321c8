#pragma once

// A server's stall inspector (ServerOptions::stall_period): a thread that looks at the
// process's StallWatch every quarter period (between 10 ms and 1 s) and logs each wait on
// the task's devices that has lasted a period, naming what it waits for, then again every
// period while it lasts. Reports and /status read the same list.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/ops/stall_watch.hpp"

namespace af::net {

class StallInspector {
 public:
  /// Watches the devices of `task` (`/job:ps/replica:0/task:0`); `period` > 0.
  StallInspector(std::string task, std::chrono::milliseconds period);
  /// Stops (see `stop`).
  ~StallInspector();
  StallInspector(const StallInspector&) = delete;
  StallInspector& operator=(const StallInspector&) = delete;

  /// Ends the thread. Idempotent.
  void stop();
  /// The task's waits that have lasted a period, longest first.
  std::vector<StallWatch::Stalled> stalled() const;
  /// A log line's words for `s` ("step 12 has waited 61 s in a take of ...").
  static std::string describe(const StallWatch::Stalled& s);

 private:
  void run();

  std::string task_;
  std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace af::net
