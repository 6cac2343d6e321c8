#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/resource.hpp"

namespace af {

/// A queue's state as its actor reports it (for `/metrics` and `/status`).
struct QueueStats {
  std::string container;              ///< the resource container holding the queue
  std::string name;                   ///< the queue's shared name
  std::string kind;                   ///< "FIFOQueue", "RandomShuffleQueue", ...
  std::int64_t size = 0;              ///< elements in the queue
  std::int64_t capacity = -1;         ///< negative: unbounded
  std::int64_t pending_enqueues = 0;  ///< enqueue (and close) attempts waiting
  std::int64_t pending_dequeues = 0;  ///< dequeue attempts waiting
  bool closed = false;                ///< whether the queue is closed
};

/// The state of every queue kept in `resources`, asked of each queue actor in turn; a queue
/// that does not answer within `timeout` is left out. Any thread; blocks meanwhile.
std::vector<QueueStats> queue_stats(const ResourceMgr& resources,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(1));

}  // namespace af
