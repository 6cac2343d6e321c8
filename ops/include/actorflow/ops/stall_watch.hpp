#pragma once

// Waits inside steps that can stall a synchronous training run, and what they wait for: a
// dequeue from a queue (SyncReplicas' token queue), an accumulator's take (the chief waiting
// for the replicas' gradients), a receive of a tensor from another task. Kernels register
// such a wait when it starts and end it when it is over; a server's stall inspector (as
// Horovod's) lists the waits older than its stall period, with the replicas or tasks they
// wait for, in its log, `/status` and `/metrics`. Registering changes nothing about the
// wait itself, which still ends only at its deadline.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace af {

/// One wait, as a kernel registers it.
struct StallingWait {
  std::string kind;          ///< "dequeue", "take", "recv", "stage" (a staging put) or "unstage"
  std::string what;          ///< the queue, the accumulator, or the tensor (its rendezvous key)
  std::string device;        ///< the device the waiting kernel runs on (full name)
  std::int64_t step_id = 0;  ///< the step that waits
  std::int64_t global_step = -1;  ///< the training step it waits for, where known
  /// Names what the wait is for (replicas, tasks, counts), asked when it is reported: it
  /// may read state that changes while the wait lasts. Called without the registry's lock;
  /// must not call back into it.
  std::function<std::string()> waiting_for;
};

/// The process's registry of waits that may stall. Thread-safe.
class StallWatch {
 public:
  /// What a report shows of a wait older than the stall period.
  struct Stalled {
    std::string kind, what, device;
    std::int64_t step_id = 0;
    std::int64_t global_step = -1;
    std::string waiting_for;
    std::chrono::milliseconds waited{0};
    std::uint64_t id = 0;  ///< stable while the wait lasts (a reporter logs each once)
  };

  /// The registry of this process.
  static StallWatch& global();

  /// Registers `wait`, started now; returns its id for `end`.
  std::uint64_t begin(StallingWait wait);
  /// Ends wait `id`; unknown or already ended ids are ignored.
  void end(std::uint64_t id);
  /// The waits on devices whose name starts with `device_prefix` (a task's name) that have
  /// lasted `period` or longer, longest first.
  std::vector<Stalled> stalled(const std::string& device_prefix,
                               std::chrono::milliseconds period) const;
  /// Waits registered and not ended (all devices).
  std::size_t size() const;

 private:
  struct Entry {
    StallingWait wait;
    std::chrono::steady_clock::time_point since;
  };
  mutable std::mutex mu_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, Entry> waits_;
};

/// Ends a registered wait when destroyed (or at `end()`, once).
class StallWatchScope {
 public:
  StallWatchScope() = default;
  explicit StallWatchScope(StallingWait wait) : id_(StallWatch::global().begin(std::move(wait))) {}
  ~StallWatchScope() { end(); }
  StallWatchScope(const StallWatchScope&) = delete;
  StallWatchScope& operator=(const StallWatchScope&) = delete;
  StallWatchScope(StallWatchScope&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  StallWatchScope& operator=(StallWatchScope&& other) noexcept {
    if (this != &other) {
      end();
      id_ = std::exchange(other.id_, 0);
    }
    return *this;
  }
  /// Ends the wait now (idempotent).
  void end() {
    if (id_ != 0) StallWatch::global().end(id_);
    id_ = 0;
  }

 private:
  std::uint64_t id_ = 0;
};

}  // namespace af
