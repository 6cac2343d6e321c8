#pragma once

// While loops in a partition's execution (TensorFlow's frames and iterations): the static
// side, which frame each node runs in (`assign_frames`), and the state one instance of a
// frame keeps while it runs (`IterState`, `FrameState`), which partition_execution.cpp and
// loop_frames.cpp walk. See docs/control-flow.md.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "actorflow/actors/detail/step_protocol.hpp"

namespace af::detail {

/// Assigns every node of `impl` (its edge tables built) its frame, local id and input slots,
/// and fills `impl.frames`, as TensorFlow's BuildControlFlowInfo: from the nodes without
/// inputs (the root frame), an Enter's consumers are in the child frame its `frame_name`
/// names, an Exit's in the frame it was entered from, every other node's in its producers'.
/// Errors (InvalidArgument, naming the nodes): a node whose inputs come from two frames, an
/// Exit outside every loop, a node no input reaches (a cycle without an Enter), a fetch, a
/// _Send or a _Recv inside a loop.
Status assign_frames(ExecutorImpl& impl);

struct FrameState;

/// One iteration of one instance of a frame: its nodes' pending counts and input slots (by
/// local id). The root frame's only iteration lives as long as the partition.
struct IterState {
  std::vector<int> pending;
  std::vector<Tensor> inputs;
  /// While tracking deadness: per node, the executor's flow bits, and per Merge, its control
  /// inputs left (its `pending` then counts only data inputs).
  std::vector<std::uint8_t> flow;
  std::vector<int> merge_controls;
  FrameState* frame = nullptr;
  std::int64_t iter = 0;
  int outstanding_ops = 0;     ///< nodes made ready in it that have not completed
  int outstanding_frames = 0;  ///< child frame instances entered from it, not finished
};

/// One instance of a frame: the loop entered from one iteration of its enclosing frame.
struct FrameState {
  int info = 0;                      ///< index into ExecutorImpl::frames
  IterState* parent_iter = nullptr;  ///< where it was entered from (null for the root)
  std::int64_t iteration_count = 0;  ///< the latest iteration started
  std::int64_t first_iter = 0;       ///< the oldest iteration not finished
  int num_outstanding_iterations = 1;
  int num_pending_inputs = 0;  ///< Enters not arrived yet
  /// first_iter .. iteration_count: at most `parallel_iterations` of them, so dropping
  /// the oldest from the front moves a few pointers (and the root frame, which has none,
  /// allocates nothing per step, as a deque would).
  std::vector<std::unique_ptr<IterState>> iterations;
  std::vector<std::pair<int, Tensor>> invariants;  ///< (constant Enter, value)
  std::vector<int> dead_exits;                     ///< Exits dead in the latest iteration
  /// NextIterations held back while `parallel_iterations` iterations run: (node, value).
  std::vector<std::pair<int, Tensor>> next_iter_roots;

  /// Iteration `i`, or null when it finished or has not started.
  IterState* get(std::int64_t i) {
    if (i < first_iter || i > iteration_count) return nullptr;
    return iterations[static_cast<std::size_t>(i - first_iter)].get();
  }
};

}  // namespace af::detail
