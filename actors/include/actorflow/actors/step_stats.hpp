#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace af {

/// One node's execution in a traced step (TensorFlow's `NodeExecStats`).
struct NodeExecStats {
  std::string node_name;        ///< the node's name
  std::string op;               ///< the node's op type
  std::string device;           ///< the device it ran on
  std::uint64_t thread_id = 0;  ///< OS thread that started the kernel
  /// Microseconds since the Unix epoch (system clock), so that the stats of every task of a
  /// distributed step line up on one time axis.
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;  ///< when the kernel finished (same clock as `start_us`)
  bool async = false;       ///< an asynchronous kernel (recv, delay): it waited without a thread
  /// For `_Send` / `_Recv`: the rendezvous key (`src;dst;tensor;n`) pairing a send with its
  /// recv; empty otherwise.
  std::string transfer;
};

/// What a traced step reports (TensorFlow's `RunMetadata.step_stats`).
class RunMetadata {
 public:
  /// One entry per node executed in the step, from every task it ran on.
  std::vector<NodeExecStats> step_stats;

  /// Chrome trace-event JSON (Perfetto and chrome://tracing open it): one process track per
  /// task (`/job:ps/replica:0/task:0`), one thread track per device thread; async kernels
  /// that overlap other work go on extra tracks so every track holds properly nested events
  /// only. A tensor sent from one task to another is a flow arrow from its `_Send` to its
  /// `_Recv`. Stats of a distributed step come from every task it ran on.
  std::string chrome_trace() const;
  /// Writes `chrome_trace()` to `path`; throws af::Error (NotFound, ...) on failure.
  void write_chrome_trace(const std::string& path) const;
};

}  // namespace af
