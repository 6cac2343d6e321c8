#pragma once

// What the step-path tests reach that users do not: not part of the public API.
#include <functional>
#include <vector>

#include "actorflow/actors/session.hpp"

namespace af::detail {

/// Test access to a session's step paths.
struct SessionTestAccess {
  /// As `Session::start_step_here`, except that a step which cannot wait on anything runs to
  /// its end on the calling thread, expensive kernels too (on the device's pool only beside
  /// other work), `done` included before the return: `Session::run`'s path, with a callback.
  /// A step that may wait goes to its device actor as `start_step`'s.
  static void start_step_to_end(const Session& session, std::vector<Output> fetches, FeedDict feeds,
                                std::vector<Operation> targets, const RunOptions& options,
                                RunMetadata* metadata,
                                std::function<void(Status, std::vector<Tensor>)> done);
};

}  // namespace af::detail
