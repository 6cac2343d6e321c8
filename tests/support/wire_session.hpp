#pragma once

// Sessions that reach a server of the test's own process over the network path.
#include <actorflow/actorflow.hpp>

namespace af::test {

/// A session config whose `caf://` sessions send steps over the step channel and the bulk
/// port even when their server is in this process (`use_local_master = false`): the path a
/// client in another process takes, which tests of those ports exercise.
inline af::SessionConfig over_the_wire() {
  af::SessionConfig config;
  config.use_local_master = false;
  return config;
}

}  // namespace af::test
