#pragma once

#include <caf/event_based_actor.hpp>
#include <caf/expected.hpp>
#include <caf/sec.hpp>
#include <chrono>
#include <coroutine>
#include <exception>
#include <memory>
#include <tuple>
#include <utility>

#include "actorflow/ops/async_task.hpp"

/// The coroutine bridge: sequential asynchronous code inside event-based actors.
///
/// ```
/// af::ActorTask pump(caf::event_based_actor* self, caf::actor queue) {
///   auto value = co_await af::request<int>(self, queue, 1s, get_atom::value);
///   if (value) self->state... ;   // resumed inside the actor: state access needs no lock
/// }
/// ```
/// A coroutine resumes in its actor's context when the answer, an error or the request's
/// timeout arrives. If the actor terminates while the coroutine waits, CAF drops the
/// response handlers, the last `Completion` goes away and the frame is destroyed: code
/// after the `co_await` never runs and locals are destroyed (keep their destructors free
/// of `self` access).
namespace af {

/// Returns an awaitable that sends `xs...` to `dest` as a request with `timeout` and
/// resumes with `caf::expected<R>`: the response, or the error (`sec::request_timeout`,
/// `request_receiver_down`, an error returned by the receiver, ...). Must be awaited
/// inside `self`'s own coroutine. The timeout must be finite.
template <class R, class Handle, class Rep, class Period, class... Ts>
Async<caf::expected<R>> request(caf::event_based_actor* self, Handle dest,
                                std::chrono::duration<Rep, Period> timeout, Ts... xs) {
  return {[self, dest = std::move(dest), timeout,
           args = std::make_tuple(std::move(xs)...)](Completion<caf::expected<R>> c) mutable {
    std::apply(
        [&](auto&... ys) {
          self->request(dest, timeout, std::move(ys)...)
              .then([c](R& value) { c(caf::expected<R>(std::move(value))); },
                    [c](caf::error& err) { c(caf::expected<R>(std::move(err))); });
        },
        args);
  }};
}

/// A fire-and-forget coroutine running inside an actor (eager: runs until its first
/// `co_await` right away). An exception escaping the body makes the actor quit with
/// `sec::runtime_error`, as CAF's default exception handler does.
class ActorTask {
 public:
  /// The C++ coroutine promise: the coroutine's first parameter (after a lambda's closure)
  /// must be the actor's `self` pointer.
  struct promise_type {
    /// The actor the coroutine runs in.
    caf::event_based_actor* self = nullptr;

    /// Takes `self` from the coroutine's first argument.
    template <class Self, class... Ts>
    explicit promise_type(Self* s, Ts&...) : self(s) {}
    /// Lambda coroutines: the closure comes first.
    template <class Closure, class Self, class... Ts>
    requires std::is_convertible_v<Self*, caf::event_based_actor*>
    explicit promise_type(Closure&, Self* s, Ts&...) : self(s) {}

    /// Coroutine protocol: the task object carries no state.
    ActorTask get_return_object() noexcept { return {}; }
    /// Coroutine protocol: eager start.
    std::suspend_never initial_suspend() noexcept { return {}; }
    /// Coroutine protocol: the frame is freed when the body ends.
    std::suspend_never final_suspend() noexcept { return {}; }
    /// Coroutine protocol: no result.
    void return_void() noexcept {}
    /// Coroutine protocol: an escaping exception makes the actor quit with `sec::runtime_error`.
    void unhandled_exception() noexcept { self->quit(caf::sec::runtime_error); }
  };
};

}  // namespace af
