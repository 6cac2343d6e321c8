// Coordinator and Runner (tensorflow/python/training/coordinator.py as actors and shared
// state): the host API waits on a condition variable; the coordinator actor takes stop
// requests from actors and turns the exits of monitored actors into runner ends.
#include "actorflow/actors/coordinator.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"

namespace af {

// -- Runner --------------------------------------------------------------------------------

struct Runner::State {
  std::string name;
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  bool finished = false;
  std::function<void()> starter;
};

Runner Runner::create(std::string name, std::function<void()>* finish,
                      std::function<void()> start) {
  Runner r;
  r.state_ = std::make_shared<State>();
  r.state_->name = std::move(name);
  r.state_->starter = std::move(start);
  r.state_->started = !r.state_->starter;
  std::weak_ptr<State> weak = r.state_;
  *finish = [weak] {
    if (auto s = weak.lock()) {
      std::lock_guard<std::mutex> guard(s->mu);
      s->finished = true;
      s->cv.notify_all();
    }
  };
  return r;
}

const std::string& Runner::name() const {
  static const std::string empty;
  return state_ ? state_->name : empty;
}

void Runner::start() const {
  if (!state_) return;
  std::function<void()> starter;
  {
    std::lock_guard<std::mutex> guard(state_->mu);
    if (state_->started) return;
    state_->started = true;
    starter = std::move(state_->starter);
  }
  if (starter) starter();
}

bool Runner::is_alive() const {
  if (!state_) return false;
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->started && !state_->finished;
}

bool Runner::join(std::chrono::milliseconds timeout) const {
  if (!state_) return true;
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [&] { return state_->finished || !state_->started; });
}

// -- Coordinator ---------------------------------------------------------------------------

using coord_stop_atom = caf::atom_constant<caf::atom("co_stop")>;
using coord_should_stop_atom = caf::atom_constant<caf::atom("co_should")>;
using coord_monitor_atom = caf::atom_constant<caf::atom("co_mon")>;

struct Coordinator::State {
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  std::atomic<bool> stop{false};
  Status error;
  std::exception_ptr exception;
  bool clean_stop_reported = false;
  bool joined = false;
  /// Codes of errors that stop cleanly (clean_stop_exception_types).
  std::vector<Code> clean_codes{Code::out_of_range};
  std::vector<Runner> registered;
  std::vector<std::function<void(bool)>> stop_callbacks;
  caf::actor actor;

  ~State() {
    // Waiters for a stop that can no longer come are told so (they quit without acting).
    for (auto& f : stop_callbacks) f(false);
    if (actor) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }

  /// As coordinator.py's request_stop: an error counts only when it requests the stop (one
  /// after a plain request_stop() is not recorded); after join() an error has nobody left to
  /// report it, so it is raised here and now (`raise_late`; an actor's request only logs).
  void request_stop(const Status& s, std::exception_ptr ex, bool raise_late) {
    std::vector<std::function<void(bool)>> callbacks;
    {
      std::unique_lock<std::mutex> guard(mu);
      const bool clean = !s.ok() && std::find(clean_codes.begin(), clean_codes.end(), s.code()) !=
                                        clean_codes.end();
      const bool failed = !clean && (!s.ok() || ex);
      if (joined && failed) {
        if (!raise_late) {
          log_info("Coordinator: error reported after join, not recorded: " +
                   (s.ok() ? std::string("exception") : s.to_string()));
          return;
        }
        guard.unlock();
        if (ex) std::rethrow_exception(ex);
        throw_if_error(s);
      }
      if (clean) {
        // End of input (or another clean_stop_exception_types code) is a clean stop: not an
        // error, and logged once however many runners run into it.
        if (!clean_stop_reported) {
          clean_stop_reported = true;
          log_info("Coordinator: clean stop (" + s.to_string() + ")");
        }
      } else if (failed && !stop && error.ok() && !exception) {
        error = s;
        exception = ex;
        log_info("Coordinator: stop requested with error: " +
                 (s.ok() ? std::string("exception") : s.to_string()));
      }
      if (!stop.exchange(true)) callbacks = std::move(stop_callbacks);
      stop_callbacks.clear();
      cv.notify_all();
    }
    for (auto& f : callbacks) f(true);
  }
};

namespace {

struct CoordActorState {
  std::weak_ptr<void> owner;
  std::map<caf::actor_addr, std::function<void()>> monitored;
  static inline const char* name = "af.coordinator";
};

}  // namespace

Coordinator::Coordinator(std::vector<Code> clean_stop_exception_types, Runtime& runtime)
    : Coordinator(runtime) {
  state_->clean_codes = std::move(clean_stop_exception_types);
}

Coordinator::Coordinator(Runtime& runtime) : state_(std::make_shared<State>()) {
  std::weak_ptr<State> weak = state_;
  state_->actor =
      runtime.system().spawn([weak](caf::stateful_actor<CoordActorState>* self) -> caf::behavior {
        self->set_down_handler([self, weak](caf::down_msg& msg) {
          auto it = self->state.monitored.find(msg.source);
          if (it == self->state.monitored.end()) return;
          auto finish = std::move(it->second);
          self->state.monitored.erase(it);
          if (msg.reason && msg.reason != caf::exit_reason::user_shutdown &&
              msg.reason != caf::exit_reason::normal)
            if (auto s = weak.lock())
              s->request_stop(detail::status_from_error(msg.reason, "a coordinated actor"), nullptr,
                              false);
          finish();
        });
        return {
            [weak](coord_stop_atom, const Status& s) {
              if (auto st = weak.lock()) st->request_stop(s, nullptr, false);
            },
            [weak](coord_should_stop_atom) {
              auto st = weak.lock();
              return st ? st->stop.load() : true;
            },
            [self](coord_monitor_atom, const caf::actor& a, const detail::Closure& finish) {
              self->monitor(a);
              self->state.monitored.emplace(a.address(), finish.fn);
            },
        };
      });
}

bool Coordinator::should_stop() const noexcept { return state_->stop.load(); }

void Coordinator::request_stop(const Status& error) { state_->request_stop(error, nullptr, true); }

void Coordinator::request_stop(std::exception_ptr error) {
  if (!error) return request_stop(Status());
  state_->request_stop(status_from_exception(error), error, true);
}

void Coordinator::clear_stop() {
  std::lock_guard<std::mutex> guard(state_->mu);
  state_->stop = false;
  state_->error = Status();
  state_->exception = nullptr;
  state_->clean_stop_reported = false;
  state_->joined = false;
}

bool Coordinator::wait_for_stop(std::optional<std::chrono::milliseconds> timeout) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  auto stopped = [&] { return state_->stop.load(); };
  if (!timeout) {
    state_->cv.wait(lock, stopped);
    return true;
  }
  return state_->cv.wait_for(lock, *timeout, stopped);
}

void Coordinator::on_stop(std::function<void(bool)> fn) {
  {
    std::lock_guard<std::mutex> guard(state_->mu);
    if (!state_->stop) {
      state_->stop_callbacks.push_back(std::move(fn));
      return;
    }
  }
  fn(true);
}

void Coordinator::register_runner(const Runner& runner) {
  std::lock_guard<std::mutex> guard(state_->mu);
  state_->registered.push_back(runner);
}

Runner Coordinator::monitor(const caf::actor& actor, std::string name) {
  std::function<void()> finish;
  Runner r = Runner::create(std::move(name), &finish);
  caf::anon_send(state_->actor, coord_monitor_atom::value, actor, detail::Closure{finish});
  register_runner(r);
  return r;
}

void Coordinator::join(std::vector<Runner> runners, std::chrono::milliseconds stop_grace_period,
                       bool ignore_live_runners) {
  {
    std::lock_guard<std::mutex> guard(state_->mu);
    runners.insert(runners.end(), state_->registered.begin(), state_->registered.end());
  }
  // A runner given and registered is joined once.
  std::vector<Runner> unique;
  for (auto& r : runners) {
    bool seen = false;
    for (auto& u : unique) seen = seen || u.same_as(r);
    if (!seen) unique.push_back(r);
  }
  runners.swap(unique);
  auto any_alive = [&] {
    for (auto& r : runners)
      if (r.is_alive()) return true;
    return false;
  };
  // Wait until every runner ended or a stop was requested.
  while (any_alive() && !wait_for_stop(std::chrono::milliseconds(10))) {
  }
  // After a stop request the runners get the grace period.
  auto deadline = std::chrono::steady_clock::now() + stop_grace_period;
  for (auto& r : runners) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    r.join(std::max(left, std::chrono::milliseconds(0)));
  }
  std::string stragglers;
  for (auto& r : runners)
    if (r.is_alive()) stragglers += (stragglers.empty() ? "" : " ") + r.name();
  Status error;
  std::exception_ptr exception;
  {
    std::lock_guard<std::mutex> guard(state_->mu);
    state_->joined = true;
    state_->registered.clear();
    error = state_->error;
    exception = state_->exception;
  }
  if (exception) std::rethrow_exception(exception);
  throw_if_error(error);
  if (!stragglers.empty()) {
    if (ignore_live_runners)
      log_info("Coordinator stopped with threads still running: " + stragglers);
    else
      throw InternalError(
          internal("Coordinator stopped with threads still running: " + stragglers));
  }
}

Status Coordinator::error() const {
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->error;
}

bool Coordinator::joined() const {
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->joined;
}

caf::actor Coordinator::actor() const { return state_->actor; }

}  // namespace af
