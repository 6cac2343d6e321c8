#pragma once

// Waiting until a step has reached the wait a test is about, instead of sleeping and hoping:
// a thread started with std::async may not even have begun its step after a fixed pause on
// a loaded machine. Kernels that block register in the process's StallWatch while they
// wait (dequeues, accumulator takes, receives from other tasks), servers in this process
// included; queues count their pending enqueues and dequeues (queue_stats).
#include <actorflow/actors/runtime.hpp>
#include <actorflow/ops/stall_watch.hpp>
#include <actorflow/queues/queue_stats.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

namespace af::test {

/// Polls `ready` every few milliseconds until it returns true or `limit` passes; returns
/// its last answer.
template <class F>
bool eventually(F&& ready, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// The waits of `kind` ("dequeue", "take", "recv") registered now in this process whose
/// subject (a queue's description, an accumulator's name, a tensor's key) contains `what`.
inline std::size_t registered_waits(const std::string& kind, const std::string& what = "") {
  std::size_t n = 0;
  for (const auto& w : StallWatch::global().stalled("", std::chrono::milliseconds(0)))
    if (w.kind == kind && w.what.find(what) != std::string::npos) ++n;
  return n;
}

/// Waits until `n` waits of `kind` on `what` are registered (see registered_waits); returns
/// whether they were within `limit`. A kernel registers just before it hands its attempt to
/// the queue or accumulator, so a caller that needs the attempt to have arrived there (not
/// only the step to be waiting) pauses briefly after, or polls what the attempt changes.
inline bool await_waits(const std::string& kind, const std::string& what, std::size_t n = 1,
                        std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  return eventually([&] { return registered_waits(kind, what) >= n; }, limit);
}

/// The state of the queue with shared name `name` on this process's local CPU:0 (a queue
/// of an in-process session with a `shared_name`); a default QueueStats (size 0, no name)
/// when there is none.
inline QueueStats shared_queue_stats(const std::string& name) {
  auto mgr = Runtime::global().shared_resource_mgr("/job:localhost/replica:0/task:0/device:CPU:0");
  for (auto& q : queue_stats(*mgr))
    if (q.name == name) return q;
  return {};
}

/// Waits until the shared queue `name` (see shared_queue_stats) has `n` enqueue attempts
/// pending (closes waiting behind enqueues count too); returns whether it did within `limit`.
/// The queue answers in the order attempts reach it, so a pending attempt has arrived.
inline bool await_pending_enqueues(const std::string& name, std::int64_t n,
                                   std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  return eventually([&] { return shared_queue_stats(name).pending_enqueues >= n; }, limit);
}

/// As await_pending_enqueues, for dequeue attempts.
inline bool await_pending_dequeues(const std::string& name, std::int64_t n,
                                   std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  return eventually([&] { return shared_queue_stats(name).pending_dequeues >= n; }, limit);
}

}  // namespace af::test
