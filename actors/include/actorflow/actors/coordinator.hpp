#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/ops/status.hpp"

namespace caf {
class actor;
}  // namespace caf

namespace af {

/// A coordinated activity (what TensorFlow hands `Coordinator.join` as a thread): an
/// enqueue loop of a QueueRunner, or any actor registered with `Coordinator::monitor`.
/// Cheap to copy; all copies share the state.
class Runner {
 public:
  /// An empty runner: not alive, `join` returns true at once, `start` does nothing.
  Runner() = default;
  /// A runner named `name` that ends when `finish` is called; `start`, when given, is run
  /// by `Runner::start` (a runner without one is running at once).
  static Runner create(std::string name, std::function<void()>* finish,
                       std::function<void()> start = {});

  /// The runner's name ("" for an empty runner).
  const std::string& name() const;
  /// Starts a runner created unstarted (`create_threads(..., start = false)`); idempotent.
  void start() const;
  /// True from start until the activity ended.
  bool is_alive() const;
  /// Waits up to `timeout` for the activity to end; true when it has (or was never started).
  bool join(std::chrono::milliseconds timeout) const;
  /// True when both handles refer to the same activity.
  bool same_as(const Runner& other) const noexcept { return state_ == other.state_; }

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// TensorFlow's `tf.train.Coordinator`: stops a set of runners together and reports the
/// first error. Thread-safe; cheap to copy (copies share one coordinator). Actors talk to
/// it through `actor()`, host threads through the methods.
///
/// `request_stop(error)` records the first error; OutOfRange (or the codes given as
/// `clean_stop_exception_types`) is a clean stop (end of input): not an error, reported
/// once. `join` waits for the runners, gives them
/// `stop_grace_period` after a stop request, then re-raises the first error or names the
/// runners still running.
class Coordinator {
 public:
  /// A coordinator whose actor lives in `runtime` (which must outlive it).
  explicit Coordinator(Runtime& runtime = Runtime::global());
  /// As above, with the error codes that stop cleanly instead of OutOfRange alone
  /// (coordinator.py's `clean_stop_exception_types`; empty: none).
  explicit Coordinator(std::vector<Code> clean_stop_exception_types,
                       Runtime& runtime = Runtime::global());

  /// True once a stop was requested.
  bool should_stop() const noexcept;
  /// Requests a stop without an error.
  void request_stop() { request_stop(Status()); }
  /// Requests a stop. An error (other than a clean OutOfRange) is kept for `join` only when
  /// this call is the one that requests the stop: one reported after a stop was already
  /// requested is dropped. After `join` (until `clear_stop`) an error is thrown here at once,
  /// as coordinator.py raises it: nobody would join it any more.
  void request_stop(const Status& error);
  /// Requests a stop with an exception (`af::Error` subclasses map to their codes; any
  /// other exception is kept as is and re-raised by `join`); kept and thrown as above.
  void request_stop(std::exception_ptr error);
  /// Forgets the stop request and the error (TensorFlow's `clear_stop`).
  void clear_stop();
  /// Waits until a stop is requested, at most `timeout`; returns should_stop().
  bool wait_for_stop(std::optional<std::chrono::milliseconds> timeout = {}) const;
  /// Runs `fn(true)` once a stop is requested (at once when already requested), or
  /// `fn(false)` when the coordinator goes away without one. `fn` runs on the requesting
  /// thread and must not block.
  void on_stop(std::function<void(bool)> fn);

  /// Adds runners `join()` waits for besides those it is given.
  void register_runner(const Runner& runner);
  /// Monitors `actor` as a runner named `name`: it ends when the actor quits; an actor
  /// quitting with an error requests a stop with it.
  Runner monitor(const caf::actor& actor, std::string name);

  /// Waits for `runners` (and the registered ones) to end: until all ended, or until a
  /// stop was requested and `stop_grace_period` passed. Then throws the first error of
  /// `request_stop`, or, unless `ignore_live_runners`, InternalError "Coordinator stopped
  /// with threads still running: NAMES".
  void join(std::vector<Runner> runners = {},
            std::chrono::milliseconds stop_grace_period = std::chrono::seconds(120),
            bool ignore_live_runners = false);

  /// The first error requested (OK when none, or only a clean stop).
  Status error() const;
  /// True when `join` has been called since the last `clear_stop`.
  bool joined() const;

  /// The coordinator's actor: it understands `(coord_stop_atom, Status)` (request a stop)
  /// and `(coord_should_stop_atom)` -> bool, and monitors registered actors.
  caf::actor actor() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace af
