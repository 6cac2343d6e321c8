#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace af {

/// One suspension of an asynchronous kernel: who resumes it and where the value goes.
/// Shared by the `Completion` handles given out for it; when the last one is dropped
/// without firing, the suspended coroutine frame is destroyed and never resumed.
template <class T>
struct SuspendState {
  std::coroutine_handle<> handle;    ///< the suspended coroutine (null once resumed)
  std::optional<T>* slot = nullptr;  ///< where the value goes (the awaiter's result)
  bool fired = false;                ///< a Completion was called
  bool in_suspend = false;           ///< still inside `await_suspend` (synchronous completion)

  /// Destroys the coroutine frame when no Completion fired.
  ~SuspendState() {
    if (!fired && handle) handle.destroy();
  }
};

/// A one-shot way to resume an asynchronous kernel with a value. Copyable; the first call
/// wins and later calls are ignored (a late reply after a cancellation, say). Must be called
/// in the context the kernel runs in (its device actor).
template <class T>
class Completion {
 public:
  /// An empty completion: calling it does nothing, `pending()` is false.
  Completion() = default;
  /// A completion of the suspension `state` (Async::Awaiter makes them).
  explicit Completion(std::shared_ptr<SuspendState<T>> state) : state_(std::move(state)) {}

  /// Resumes the waiting kernel with `value` unless already resumed.
  void operator()(T value) const {
    if (!state_ || state_->fired) return;
    state_->fired = true;
    state_->slot->emplace(std::move(value));
    if (state_->in_suspend) return;  // completed synchronously: the awaiter will not suspend
    auto h = std::exchange(state_->handle, {});
    h.resume();
  }

  /// True until the kernel was resumed.
  bool pending() const noexcept { return state_ && !state_->fired; }

 private:
  std::shared_ptr<SuspendState<T>> state_;
};

/// An awaitable an asynchronous kernel `co_await`s: `start` is called with a Completion
/// when the kernel suspends, and the kernel resumes with the value the completion gets.
template <class T>
struct Async {
  /// Starts the awaited work; it (or whoever it hands the Completion to) completes it once.
  std::function<void(Completion<T>)> start;

  /// The C++ awaiter: suspends, calls `start`, resumes with the completion's value (without
  /// suspending when `start` completes synchronously).
  struct Awaiter {
    std::function<void(Completion<T>)> start;  ///< as Async::start
    std::optional<T> result;                   ///< the value, once completed

    /// Coroutine protocol: always suspends.
    bool await_ready() const noexcept { return false; }
    /// Coroutine protocol: calls `start`; false (no suspension) when it completed at once.
    bool await_suspend(std::coroutine_handle<> h) {
      auto state = std::make_shared<SuspendState<T>>();
      state->handle = h;
      state->slot = &result;
      state->in_suspend = true;
      start(Completion<T>(state));
      state->in_suspend = false;
      if (state->fired) {
        state->handle = {};  // resumed synchronously: do not destroy the frame
        return false;
      }
      return true;
    }
    /// Coroutine protocol: the value.
    T await_resume() { return std::move(*result); }
  };

  /// Awaits once (an rvalue: `co_await af::request(...)`).
  Awaiter operator co_await() && { return Awaiter{std::move(start), std::nullopt}; }
};

/// The coroutine type asynchronous kernels return. Lazy: the executor starts it with
/// `start(on_done)`; `on_done` runs when the body finishes. If the frame is destroyed while
/// suspended (its actor died), `on_done` never runs.
class AsyncKernelTask {
 public:
  /// The C++ coroutine promise.
  struct promise_type {
    std::function<void(std::exception_ptr)> on_done;  ///< set by `start`
    std::exception_ptr exception;                     ///< what the body threw

    /// Coroutine protocol: the task owning the frame.
    AsyncKernelTask get_return_object() {
      return AsyncKernelTask{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    /// Coroutine protocol: lazy start.
    std::suspend_always initial_suspend() noexcept { return {}; }
    /// Coroutine protocol: frees the frame, then calls `on_done` with the exception.
    auto final_suspend() noexcept {
      struct Final {
        bool await_ready() noexcept { return false; }
        void await_suspend(std::coroutine_handle<promise_type> h) noexcept {
          auto done = std::move(h.promise().on_done);
          auto error = std::move(h.promise().exception);
          h.destroy();
          if (done) done(error);
        }
        void await_resume() noexcept {}
      };
      return Final{};
    }
    /// Coroutine protocol: no result.
    void return_void() noexcept {}
    /// Coroutine protocol: keeps the exception for `on_done`.
    void unhandled_exception() noexcept { exception = std::current_exception(); }
  };

  /// No coroutine (do not `start` it).
  AsyncKernelTask() = default;
  /// Owns the unstarted coroutine `h`.
  explicit AsyncKernelTask(std::coroutine_handle<promise_type> h) : h_(h) {}
  /// Move-only; the moved-from task owns nothing.
  AsyncKernelTask(AsyncKernelTask&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  /// Destroys an unstarted coroutine held, then takes `o`'s.
  AsyncKernelTask& operator=(AsyncKernelTask&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  /// Destroys the coroutine if it was never started.
  ~AsyncKernelTask() {
    if (h_) h_.destroy();
  }

  /// Runs the body until its first suspension; the frame then owns itself. `on_done` gets
  /// the exception the body threw, if any.
  void start(std::function<void(std::exception_ptr)> on_done) {
    auto h = std::exchange(h_, {});
    h.promise().on_done = std::move(on_done);
    h.resume();
  }

 private:
  std::coroutine_handle<promise_type> h_;
};

}  // namespace af
