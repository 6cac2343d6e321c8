#pragma once

// How the staging and barrier kernels (stage_ops.cpp, map_stage_ops.cpp, barrier_ops.cpp)
// wait on their area without a thread: the area queues the request and calls back when it is
// served; the callback resumes the kernel in its device actor; a cancellation of the step (its
// deadline, the session's close) ends the queued request. Also how they count a tuple's bytes.
// Private to the kernels module.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"

namespace af::detail {

/// Tensor::TotalBytes of a tuple: each buffer's bytes, a string element counted as
/// TensorFlow's tstring (24 bytes), as the memory limits count them.
inline std::size_t staging_bytes(const std::vector<Tensor>& tuple) {
  std::size_t bytes = 0;
  for (const Tensor& t : tuple)
    bytes += t.dtype() == DType::string ? 24 * static_cast<std::size_t>(t.num_elements())
                                        : t.total_bytes();
  return bytes;
}

/// A fresh id for a queued staging request (what `cancel(id, why)` names).
inline std::uint64_t next_staging_wait_id() {
  static std::atomic<std::uint64_t> id{0};
  return ++id;
}

/// Callbacks an area queues while it holds its lock, to run once it has let go.
using Fired = std::vector<std::function<void()>>;

/// Runs `f(fire)` holding `mu`, then the callbacks `f` queued in `fire`, unlocked (a callback
/// may call back into the area); returns what `f` returns.
template <class F>
auto locked_then_fire(std::mutex& mu, F&& f) {
  Fired fire;
  if constexpr (std::is_void_v<std::invoke_result_t<F&, Fired&>>) {
    {
      std::lock_guard<std::mutex> lock(mu);
      f(fire);
    }
    for (auto& g : fire) g();
  } else {
    auto result = [&] {
      std::lock_guard<std::mutex> lock(mu);
      return f(fire);
    }();
    for (auto& g : fire) g();
    return result;
  }
}

/// Under the area's lock: removes the waiting request `id` from `waits` (structs with `id` and
/// `done`) and returns what ends it with `why`, to run once unlocked; empty when no request
/// there has that id.
template <class Waits>
std::function<void()> take_waiting(Waits& waits, std::uint64_t id, const Status& why) {
  for (auto it = waits.begin(); it != waits.end(); ++it)
    if (it->id == id) {
      std::function<void()> fire = [done = std::move(it->done), why] { done(why); };
      waits.erase(it);
      return fire;
    }
  return {};
}

/// Awaits `start(area, id, done)`, which queues request `id` in `area` and calls `done(T)`
/// once, from any thread; a step cancellation calls `area->cancel(id, why)` (a deadline's
/// status, else Cancelled `cancelled_message`). Build the result into a named local before
/// `co_await`ing it (GCC 12 and lambda temporaries, docs/architecture.md).
template <class T, class Area, class Start>
Async<T> staging_wait(StepServices* step, std::shared_ptr<Area> area, Start start,
                      const char* cancelled_message = "Staging area operation was cancelled") {
  return {[step, area = std::move(area), start = std::move(start),
           cancelled_message](Completion<T> c) {
    auto post = step->poster();
    auto token = std::make_shared<std::uint64_t>(0);
    const std::uint64_t id = next_staging_wait_id();
    start(*area, id, [post, c, step, token](T r) {
      post([c, step, token, r = std::move(r)]() mutable {
        if (*token) step->remove_cancel_hook(*token);
        c(std::move(r));
      });
    });
    *token = step->add_cancel_hook([area, id, cancelled_message](const Status& why) {
      area->cancel(id, why.code() == Code::deadline_exceeded ? why : cancelled(cancelled_message));
    });
  }};
}

}  // namespace af::detail
