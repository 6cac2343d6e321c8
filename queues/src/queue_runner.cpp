// QueueRunner (tensorflow/python/training/queue_runner_impl.py): each enqueue loop is an
// event-based actor that starts a step, waits for its completion message and starts the
// next; no thread waits.
#include "actorflow/queues/queue_runner.hpp"

#include <algorithm>
#include <atomic>
#include <caf/all.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/logging.hpp"

namespace af {

namespace {

using loop_next_atom = caf::atom_constant<caf::atom("qr_next")>;
using loop_done_atom = caf::atom_constant<caf::atom("qr_done")>;

/// What the loops of one create_threads call share.
struct LoopGroup {
  Session::Handle session;
  std::optional<Coordinator> coord;
  Operation close_op;
  std::atomic<int> running{0};
  std::string queue_name;
  std::shared_ptr<std::mutex> errors_mu;
  std::shared_ptr<std::vector<Status>> errors;
  /// The codes that mean the queue was closed (queue_closed_exception_types).
  std::vector<Code> closed_codes;

  bool is_queue_closed(const Status& s) const {
    return std::find(closed_codes.begin(), closed_codes.end(), s.code()) != closed_codes.end();
  }
};

/// The steps of one enqueue loop. Each step's completion starts the next one right where it
/// arrives (the device actor's thread, for a one-partition step): the loop's actor hears
/// only of the end (an error, the queue's close, a stop request).
struct LoopSteps : std::enable_shared_from_this<LoopSteps> {
  std::shared_ptr<LoopGroup> group;
  Operation op;
  caf::actor loop;
  /// Whether this loop has taken itself off `group->running` (each loop does once).
  bool counted_out = false;

  bool stopping() const { return group->coord && group->coord->should_stop(); }
  void next() {
    group->session.start_step(
        {}, {}, {op}, {}, nullptr, [me = shared_from_this()](Status s, std::vector<Tensor>) {
          if (!s.ok()) return caf::anon_send(me->loop, loop_done_atom::value, std::move(s));
          if (me->stopping()) return caf::anon_send(me->loop, loop_next_atom::value);  // it quits
          me->next();
        });
  }
};

caf::behavior enqueue_loop(caf::event_based_actor* self, std::shared_ptr<LoopGroup> group,
                           Operation op, std::function<void()> finish) {
  auto steps = std::make_shared<LoopSteps>();
  steps->group = group;
  steps->op = op;
  steps->loop = caf::actor_cast<caf::actor>(self);
  // Every end of the loop counts it out (queue_runner_impl.py's `finally`).
  self->attach_functor([finish, steps] {
    if (!steps->counted_out) --steps->group->running;
    finish();
  });
  auto next = [self, steps] {
    if (steps->stopping()) return self->quit();
    steps->next();
  };
  return {
      [next](loop_next_atom) { next(); },
      [self, group, steps, next](loop_done_atom, const Status& s) {
        if (s.ok()) return next();
        if (group->is_queue_closed(s)) {
          steps->counted_out = true;
          if (--group->running == 0) {
            // The last loop closes the queue; errors of the close are ignored, as in TF.
            group->session.start_step({}, {}, {group->close_op}, {}, nullptr,
                                      [](Status, std::vector<Tensor>) {});
          }
          return self->quit();
        }
        if (s.code() == Code::failed_precondition &&
            s.message().find("closed Session") != std::string::npos)
          return self->quit();  // the session went away under the loop
        if (group->coord) {
          try {
            group->coord->request_stop(s);
          } catch (const std::exception& e) {
            // The coordinator was joined already: the error is raised where it is reported
            // (coordinator.py), here the loop, which logs it and ends.
            log_info("Exception in QueueRunner after its coordinator was joined: " +
                     std::string(e.what()));
          }
        } else {
          log_info("Exception in QueueRunner: " + s.to_string());
          std::lock_guard<std::mutex> guard(*group->errors_mu);
          group->errors->push_back(s);
        }
        self->quit();
      },
  };
}

caf::behavior close_on_stop(caf::event_based_actor* self, Session::Handle session,
                            Coordinator coord, Operation cancel_op, std::function<void()> finish) {
  self->attach_functor([finish] { finish(); });
  auto me = caf::actor_cast<caf::actor>(self);
  coord.on_stop([me](bool stopped) {
    if (stopped)
      caf::anon_send(me, loop_next_atom::value);
    else
      caf::anon_send(me, loop_done_atom::value, Status());
  });
  return {
      [self, session, cancel_op](loop_next_atom) {
        auto me = caf::actor_cast<caf::actor>(self);
        session.start_step({}, {}, {cancel_op}, {}, nullptr, [me](Status, std::vector<Tensor>) {
          caf::anon_send(me, loop_done_atom::value, Status());
        });
      },
      [self](loop_done_atom, const Status&) { self->quit(); },
  };
}

}  // namespace

struct QueueRunner::Impl {
  std::string queue_name;
  std::vector<Operation> enqueue_ops;
  Operation close_op;
  Operation cancel_op;
  std::vector<Code> closed_codes;
  std::shared_ptr<std::mutex> errors_mu = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<Status>> errors = std::make_shared<std::vector<Status>>();
  /// The loops of each session (queue_runner_impl.py's `_runs_per_session`).
  std::mutex runs_mu;
  std::map<const Session*, std::weak_ptr<LoopGroup>> runs;
};

QueueRunner::QueueRunner(const QueueBase& queue, std::vector<Operation> enqueue_ops,
                         std::optional<Operation> close_op, std::optional<Operation> cancel_op,
                         std::vector<Code> queue_closed_exception_types)
    : impl_(std::make_shared<Impl>()) {
  impl_->queue_name = queue.name();
  impl_->enqueue_ops = std::move(enqueue_ops);
  impl_->close_op = close_op ? *close_op : queue.close();
  impl_->cancel_op = cancel_op ? *cancel_op : queue.close(true);
  impl_->closed_codes = queue_closed_exception_types.empty()
                            ? std::vector<Code>{Code::out_of_range}
                            : std::move(queue_closed_exception_types);
}

const std::vector<Code>& QueueRunner::queue_closed_exception_types() const noexcept {
  return impl_->closed_codes;
}

const std::vector<Operation>& QueueRunner::enqueue_ops() const noexcept {
  return impl_->enqueue_ops;
}
const std::string& QueueRunner::name() const noexcept { return impl_->queue_name; }

std::vector<Status> QueueRunner::exceptions_raised() const {
  std::lock_guard<std::mutex> guard(*impl_->errors_mu);
  return *impl_->errors;
}

std::vector<Runner> QueueRunner::create_threads(Session& session, Coordinator* coord,
                                                bool start) const {
  auto& sys = session.runtime().system();
  auto group = std::make_shared<LoopGroup>();
  {
    std::lock_guard<std::mutex> guard(impl_->runs_mu);
    std::erase_if(impl_->runs, [](const auto& entry) { return entry.second.expired(); });
    auto& earlier = impl_->runs[&session];
    if (auto loops = earlier.lock(); loops && loops->running > 0)
      return {};  // already started: no new loops
    earlier = group;
    std::lock_guard<std::mutex> errors_guard(*impl_->errors_mu);
    impl_->errors->clear();
  }
  group->session = session.handle();
  if (coord) group->coord = *coord;
  group->close_op = impl_->close_op;
  group->queue_name = impl_->queue_name;
  group->errors_mu = impl_->errors_mu;
  group->errors = impl_->errors;
  group->closed_codes = impl_->closed_codes;
  group->running = static_cast<int>(impl_->enqueue_ops.size());
  std::vector<Runner> runners;
  for (std::size_t i = 0; i < impl_->enqueue_ops.size(); ++i) {
    std::function<void()> finish;
    auto op = impl_->enqueue_ops[i];
    std::string name =
        "QueueRunner(" + impl_->queue_name + ")/" + op.name() + "#" + std::to_string(i);
    auto finish_holder = std::make_shared<std::function<void()>>();
    Runner r = Runner::create(name, &finish, [&sys, group, op, finish_holder] {
      auto a = sys.spawn(enqueue_loop, group, op, *finish_holder);
      caf::anon_send(a, loop_next_atom::value);
    });
    *finish_holder = finish;
    runners.push_back(r);
  }
  if (coord) {
    std::function<void()> finish;
    auto finish_holder = std::make_shared<std::function<void()>>();
    auto handle = session.handle();
    Coordinator c = *coord;
    Operation cancel_op = impl_->cancel_op;
    Runner r = Runner::create("QueueRunner(" + impl_->queue_name + ")/close_on_stop", &finish,
                              [&sys, handle, c, cancel_op, finish_holder] {
                                sys.spawn(close_on_stop, handle, c, cancel_op, *finish_holder);
                              });
    *finish_holder = finish;
    runners.push_back(r);
    for (auto& runner : runners) coord->register_runner(runner);
  }
  if (start)
    for (auto& r : runners) r.start();
  return runners;
}

void add_queue_runner(Graph& g, const QueueRunner& runner) {
  g.add_to_collection(kQueueRunnersCollection, runner);
}

std::vector<Runner> start_queue_runners(Session& session, Coordinator& coord, Graph& g) {
  std::vector<Runner> all;
  for (const auto& any : g.get_collection(kQueueRunnersCollection)) {
    const auto* qr = std::any_cast<QueueRunner>(&any);
    if (!qr) continue;
    auto r = qr->create_threads(session, &coord, true);
    all.insert(all.end(), r.begin(), r.end());
  }
  return all;
}

}  // namespace af
