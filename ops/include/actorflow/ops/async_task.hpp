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
  std::coroutine_handle<> handle;
  std::optional<T>* slot = nullptr;
  bool fired = false;
  bool in_suspend = false;

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
  Completion() = default;
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
  std::function<void(Completion<T>)> start;

  struct Awaiter {
    std::function<void(Completion<T>)> start;
    std::optional<T> result;

    bool await_ready() const noexcept { return false; }
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
    T await_resume() { return std::move(*result); }
  };

  Awaiter operator co_await() && { return Awaiter{std::move(start), std::nullopt}; }
};

/// The coroutine type asynchronous kernels return. Lazy: the executor starts it with
/// `start(on_done)`; `on_done` runs when the body finishes. If the frame is destroyed while
/// suspended (its actor died), `on_done` never runs.
class AsyncKernelTask {
 public:
  struct promise_type {
    std::function<void(std::exception_ptr)> on_done;
    std::exception_ptr exception;

    AsyncKernelTask get_return_object() {
      return AsyncKernelTask{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
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
    void return_void() noexcept {}
    void unhandled_exception() noexcept { exception = std::current_exception(); }
  };

  AsyncKernelTask() = default;
  explicit AsyncKernelTask(std::coroutine_handle<promise_type> h) : h_(h) {}
  AsyncKernelTask(AsyncKernelTask&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  AsyncKernelTask& operator=(AsyncKernelTask&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
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
