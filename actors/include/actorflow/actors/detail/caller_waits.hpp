#pragma once

// A mark that `Session::run` sets on its thread while it starts a step on a remote backend:
// the thread will do nothing but wait for that step's `done`, so the backend may read the
// step's reply on this thread instead of handing it over from another (one thread wake-up
// fewer per remote step). Internal to the session and the remote backends.

namespace af::detail {

/// Marks this thread as waiting for the step started while the mark lives (when `waits`);
/// restores the previous mark when it ends.
class CallerWaitsMark {
 public:
  explicit CallerWaitsMark(bool waits) noexcept;
  ~CallerWaitsMark();
  CallerWaitsMark(const CallerWaitsMark&) = delete;
  CallerWaitsMark& operator=(const CallerWaitsMark&) = delete;

 private:
  bool previous_;
};

/// True when this thread is marked, and clears the mark: only the first step started under
/// it (not a step that step's callbacks start) is the one waited for.
bool take_caller_waits() noexcept;

}  // namespace af::detail
