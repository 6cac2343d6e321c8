// An example host application: an Asio io_context whose coroutine co_awaits session steps,
// while the host's own CAF actor, spawned in actorflow's actor system, keeps a running
// total of the results and answers the host through its io_context.
#include <actorflow/actorflow.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <caf/all.hpp>
#include <cstdio>
#include <string>

using add_atom = caf::atom_constant<caf::atom("add")>;

namespace {

struct TotalState {
  double total = 0;
};

/// The host's actor: adds each value and reports the total back on the host's io_context.
caf::behavior accumulator(caf::stateful_actor<TotalState>* self, asio::io_context* io) {
  return {[self, io](add_atom, double value, int step) {
    self->state.total += value;
    double total = self->state.total;
    asio::post(*io,
               [total, step] { std::printf("host: step %d, running total %.1f\n", step, total); });
    if (step == 4) self->quit();
  }};
}

asio::awaitable<void> drive(af::Session& sess, af::Output out, af::Output x, caf::actor acc) {
  for (int step = 0; step < 5; ++step) {
    af::FeedDict feeds{{x, af::Tensor(static_cast<float>(step))}};
    std::vector<af::Output> fetches{out};  // GCC 12: no braced temporaries inside co_await
    std::vector<af::Tensor> r =
        co_await sess.async_run(fetches, feeds, {}, {}, asio::use_awaitable);
    double value = r[0].scalar<float>();
    std::printf("host: step %d -> %.1f\n", step, value);
    caf::anon_send(acc, add_atom::value, value, step);
  }
  try {
    // Running without the feed fails: the error arrives as an exception.
    std::vector<af::Output> fetches{out};
    co_await sess.async_run(fetches, {}, {}, {}, asio::use_awaitable);
  } catch (const af::InvalidArgumentError& e) {
    std::printf("host: expected error: %.60s...\n", e.what());
  }
}

}  // namespace

int main() {
  af::Graph g;
  af::Output x = g.placeholder(af::float32, {}, "x");
  af::Output out = x * 10.0f + 1.0f;
  af::Session sess(g);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  caf::actor acc = af::Runtime::global().system().spawn(accumulator, &io);
  asio::co_spawn(io, drive(sess, out, x, acc), [&](std::exception_ptr e) {
    if (e) std::printf("host: failed\n");
    work.reset();
  });
  io.run();
  return 0;
}
