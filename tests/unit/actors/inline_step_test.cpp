// Steps that cannot wait run on the caller's thread (Session::start_step_here): cheap ones
// end, `done` included, before the call returns; on a thread that must not block, the run
// stops before an expensive kernel and the device actor finishes the step; steps with
// waiting kernels (queues) still go through the actors. Session::run, whose caller waits
// anyway, runs steps with waiting kernels on that thread too (run_step_waiting): replies,
// timers, the deadline and the session's close reach it there. Steps started from actors
// (Session::start_step: queue runners) with one partition on a host device go straight to
// the device actor, which keeps their deadline and ends them without the master.
#include <actorflow/actorflow.hpp>
#include <actorflow/actors/detail/session_testing.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <map>
#include <thread>

#include "pending_waits.hpp"

using namespace std::chrono_literals;

namespace {

struct Outcome {
  std::promise<std::pair<af::Status, std::vector<af::Tensor>>> promise;
  std::thread::id thread;
  std::function<void(af::Status, std::vector<af::Tensor>)> callback() {
    return [this](af::Status s, std::vector<af::Tensor> v) {
      thread = std::this_thread::get_id();
      promise.set_value({std::move(s), std::move(v)});
    };
  }
};

/// Starts a step on the calling thread: one that cannot wait runs there to its end when the
/// caller `may_block` (detail::SessionTestAccess), or up to its first expensive kernel
/// (`Session::start_step_here`, a thread that must not block).
void start_here(af::Session& sess, std::vector<af::Output> fetches,
                std::function<void(af::Status, std::vector<af::Tensor>)> done, bool may_block) {
  if (may_block)
    af::detail::SessionTestAccess::start_step_to_end(sess, std::move(fetches), {}, {}, {}, nullptr,
                                                     std::move(done));
  else
    sess.start_step_here(std::move(fetches), {}, {}, {}, nullptr, std::move(done));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(inline_step_test)

BOOST_AUTO_TEST_CASE(a_cheap_step_ends_on_the_calling_thread, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = g.variable(1.0f, {.name = "x"});
  auto bump = x.assign_add(g.constant(2.0f));
  af::Session sess(g);
  sess.run(x.initializer());
  for (bool may_block : {true, false}) {
    Outcome o;
    auto f = o.promise.get_future();
    start_here(sess, {bump}, o.callback(), may_block);
    BOOST_REQUIRE(f.wait_for(0s) == std::future_status::ready);  // done already ran
    BOOST_TEST(o.thread == std::this_thread::get_id());
    auto [s, v] = f.get();
    BOOST_REQUIRE(s.ok());
    BOOST_TEST(v.at(0).scalar<float>() == (may_block ? 3.0f : 5.0f));
  }
  // Errors of inline steps are the same as through the actors, node named.
  af::Graph h;
  auto y = h.variable(1.0f, {.name = "y"});
  af::Session fresh(h);
  Outcome o;
  auto f = o.promise.get_future();
  start_here(fresh, {y.value()}, o.callback(), true);
  auto [s, v] = f.get();
  BOOST_TEST(s.code() == af::Code::failed_precondition, s.message());
  BOOST_TEST(s.message().find("y") != std::string::npos, s.message());
}

BOOST_AUTO_TEST_CASE(an_expensive_kernel_goes_to_the_device_unless_the_caller_may_block,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  const std::int64_t n = 1 << 20;  // far above the elementwise ops' expensive threshold
  auto a = af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({n})), g.constant(1.5f));
  auto sum = af::reduce_sum(a + a);
  af::Session sess(g);
  {
    Outcome o;
    auto f = o.promise.get_future();
    start_here(sess, {sum}, o.callback(), /*may_block=*/false);
    BOOST_REQUIRE(f.wait_for(20s) == std::future_status::ready);
    auto [s, v] = f.get();
    BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
    BOOST_TEST(v.at(0).scalar<float>() == 3.0f * n);
    BOOST_TEST(o.thread != std::this_thread::get_id());  // finished by the device actor
  }
  {
    Outcome o;
    auto f = o.promise.get_future();
    start_here(sess, {sum}, o.callback(), /*may_block=*/true);
    BOOST_REQUIRE(f.wait_for(0s) == std::future_status::ready);
    BOOST_TEST(o.thread == std::this_thread::get_id());
    BOOST_TEST(f.get().second.at(0).scalar<float>() == 3.0f * n);
  }
}

BOOST_AUTO_TEST_CASE(a_step_that_may_wait_is_not_run_inline, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}});
  auto dequeue = q.dequeue()[0];
  auto enqueue = q.enqueue({g.constant(7.0f)});
  af::Session sess(g);
  Outcome o;
  auto f = o.promise.get_future();
  // The dequeue waits for an element: the call must return at once, the step still pending.
  start_here(sess, {dequeue}, o.callback(), /*may_block=*/true);
  BOOST_TEST((f.wait_for(50ms) == std::future_status::timeout));
  sess.run(enqueue);
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto [s, v] = f.get();
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(v.at(0).scalar<float>() == 7.0f);
}

// -- Session::run: steps with waiting kernels on the waiting thread --------------------------

BOOST_AUTO_TEST_CASE(a_waiting_run_is_woken_by_another_thread, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}});
  auto dequeue = q.dequeue()[0];
  auto x = g.placeholder(af::float32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  af::Session sess(g);
  auto waiting = std::async(std::launch::async, [&] { return sess.run(dequeue).scalar<float>(); });
  BOOST_TEST((waiting.wait_for(50ms) == std::future_status::timeout));
  sess.run(enqueue, {{x, af::Tensor(7.0f)}});
  BOOST_TEST(waiting.get() == 7.0f);
  // Many in a row, the producer on another thread: every value arrives once, in order.
  auto producer = std::async(std::launch::async, [&] {
    for (int i = 0; i < 2000; ++i) sess.run(enqueue, {{x, af::Tensor(static_cast<float>(i))}});
  });
  for (int i = 0; i < 2000; ++i)
    BOOST_REQUIRE(sess.run(dequeue).scalar<float>() == static_cast<float>(i));
  producer.get();
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 0);
}

BOOST_AUTO_TEST_CASE(closing_the_session_cancels_a_waiting_run, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4,
                      .dtypes = {af::int32},
                      .shapes = {{}},
                      .shared_name = "close_cancels_waiting_q"});
  auto dequeue = q.dequeue()[0];
  auto enqueue = q.enqueue({g.constant(5)});
  auto sess = std::make_unique<af::Session>(g);
  af::Session other(g);  // keeps the shared queue alive past the close
  other.run(q.size());
  auto waiting = std::async(std::launch::async, [&]() -> std::string {
    try {
      sess->run(dequeue);
      return "no error";
    } catch (const af::CancelledError& e) {
      return e.what();
    }
  });
  BOOST_TEST((waiting.wait_for(50ms) == std::future_status::timeout));
  BOOST_REQUIRE(af::test::await_waits("dequeue", "close_cancels_waiting_q"));
  sess->close();
  BOOST_REQUIRE((waiting.wait_for(10s) == std::future_status::ready));
  const std::string message = waiting.get();
  BOOST_TEST(message.find("Session has been closed.") != std::string::npos, message);
  BOOST_TEST(message.find("was cancelled") != std::string::npos,
             message);  // what TensorFlow's tests match
  // The cancelled dequeue took nothing: an element enqueued now stays for the next one.
  other.run(enqueue);
  BOOST_TEST(other.run(q.size()).scalar<std::int32_t>() == 1);
  BOOST_TEST(other.run(dequeue).scalar<std::int32_t>() == 5);
  BOOST_CHECK_THROW(sess->run(dequeue), af::FailedPreconditionError);
}

BOOST_AUTO_TEST_CASE(a_waiting_run_keeps_its_deadline_and_timers, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::int32}, .shapes = {{}}});
  auto dequeue = q.dequeue()[0];
  auto enqueue = q.enqueue({g.constant(9)});
  auto one = g.constant(1.0f);
  auto short_delay = af::delay(one, 20ms) + 1.0f;
  auto long_delay = af::delay(one, 30s);
  af::Session sess(g);
  auto start = std::chrono::steady_clock::now();
  BOOST_TEST(sess.run(short_delay).scalar<float>() == 2.0f);
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 20ms));
  start = std::chrono::steady_clock::now();
  BOOST_CHECK_THROW(sess.run(long_delay, {}, {.timeout_in_ms = 50}), af::DeadlineExceededError);
  BOOST_CHECK_THROW(sess.run(dequeue, {}, {.timeout_in_ms = 50}), af::DeadlineExceededError);
  BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
  // The expired dequeue took nothing.
  sess.run(enqueue);
  BOOST_TEST(sess.run(dequeue, {}, {.timeout_in_ms = 5000}).scalar<std::int32_t>() == 9);
}

BOOST_AUTO_TEST_CASE(a_waiting_run_hands_an_expensive_kernel_to_the_device,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}});
  auto x = g.placeholder(af::float32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  const std::int64_t n = 1 << 20;  // far above the elementwise ops' expensive threshold
  auto a = af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({n})), q.dequeue()[0]);
  auto sum = af::reduce_sum(a + a);
  af::Session sess(g);
  sess.run(enqueue, {{x, af::Tensor(1.5f)}});
  BOOST_TEST(sess.run(sum).scalar<float>() == 3.0f * n);
  // The same when the dequeue has to wait first.
  auto waiting = std::async(std::launch::async, [&] { return sess.run(sum).scalar<float>(); });
  BOOST_TEST((waiting.wait_for(50ms) == std::future_status::timeout));
  sess.run(enqueue, {{x, af::Tensor(0.5f)}});
  BOOST_TEST(waiting.get() == 1.0f * n);
}

// -- Session::start_step: one-partition steps on their device actor, no master ---------------

BOOST_AUTO_TEST_CASE(a_started_step_waits_and_ends_on_its_device_actor,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}});
  auto dequeue = q.dequeue()[0];
  auto x = g.placeholder(af::float32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  const std::int64_t n = 1 << 20;  // an expensive kernel after the wait: the device's pool
  auto sum =
      af::reduce_sum(af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({n})), dequeue));
  af::Session sess(g);
  Outcome o;
  auto f = o.promise.get_future();
  sess.start_step({dequeue}, {}, {}, {}, nullptr, o.callback());
  BOOST_TEST((f.wait_for(50ms) == std::future_status::timeout));
  sess.run(enqueue, {{x, af::Tensor(7.0f)}});
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto [s, v] = f.get();
  BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
  BOOST_TEST(v.at(0).scalar<float>() == 7.0f);
  BOOST_TEST(o.thread != std::this_thread::get_id());
  Outcome big;
  auto fb = big.promise.get_future();
  sess.start_step({sum}, {}, {}, {}, nullptr, big.callback());
  sess.run(enqueue, {{x, af::Tensor(0.5f)}});
  BOOST_REQUIRE(fb.wait_for(20s) == std::future_status::ready);
  auto [sb, vb] = fb.get();
  BOOST_REQUIRE_MESSAGE(sb.ok(), sb.message());
  BOOST_TEST(vb.at(0).scalar<float>() == 0.5f * n);
  // A failing node fails the step, named, and cancels the waiting dequeue with it.
  auto y = g.variable(1.0f, {.name = "never_initialized"});
  Outcome bad;
  auto fe = bad.promise.get_future();
  sess.start_step({dequeue, y.value()}, {}, {}, {}, nullptr, bad.callback());
  BOOST_REQUIRE(fe.wait_for(10s) == std::future_status::ready);
  auto [se, ve] = fe.get();
  BOOST_TEST(se.code() == af::Code::failed_precondition, se.message());
  BOOST_TEST(se.message().find("never_initialized") != std::string::npos, se.message());
  sess.run(enqueue, {{x, af::Tensor(3.0f)}});
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 1);  // the failed step took nothing
}

BOOST_AUTO_TEST_CASE(a_started_step_keeps_its_deadline, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::int32}, .shapes = {{}}});
  auto dequeue = q.dequeue()[0];
  auto enqueue = q.enqueue({g.constant(9)});
  auto long_delay = af::delay(g.constant(1.0f), 30s);
  af::Session sess(g);
  const auto start = std::chrono::steady_clock::now();
  for (const af::Output& fetch : {dequeue, long_delay}) {
    Outcome o;
    auto f = o.promise.get_future();
    sess.start_step({fetch}, {}, {}, {.timeout_in_ms = 50}, nullptr, o.callback());
    BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
    auto [s, v] = f.get();
    BOOST_TEST(s.code() == af::Code::deadline_exceeded, s.message());
  }
  BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
  // The expired dequeue took nothing; a step that ends before its deadline stands.
  sess.run(enqueue);
  Outcome o;
  auto f = o.promise.get_future();
  sess.start_step({dequeue}, {}, {}, {.timeout_in_ms = 5000}, nullptr, o.callback());
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto [s, v] = f.get();
  BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
  BOOST_TEST(v.at(0).scalar<std::int32_t>() == 9);
}

BOOST_AUTO_TEST_CASE(closing_the_session_cancels_a_started_step, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 4,
                      .dtypes = {af::int32},
                      .shapes = {{}},
                      .shared_name = "close_cancels_started_q"});
  auto dequeue = q.dequeue()[0];
  auto enqueue = q.enqueue({g.constant(5)});
  auto sess = std::make_unique<af::Session>(g);
  af::Session other(g);  // keeps the shared queue alive past the close
  other.run(q.size());
  Outcome o;
  auto f = o.promise.get_future();
  sess->start_step({dequeue}, {}, {}, {}, nullptr, o.callback());
  BOOST_TEST((f.wait_for(50ms) == std::future_status::timeout));
  sess->close();
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto [s, v] = f.get();
  BOOST_TEST(s.code() == af::Code::cancelled, s.message());
  BOOST_TEST(s.message().find("Session has been closed.") != std::string::npos, s.message());
  other.run(enqueue);
  BOOST_TEST(other.run(q.size()).scalar<std::int32_t>() ==
             1);  // the cancelled dequeue took nothing
  Outcome late;
  auto fl = late.promise.get_future();
  sess->start_step({dequeue}, {}, {}, {}, nullptr, late.callback());
  BOOST_REQUIRE(fl.wait_for(10s) == std::future_status::ready);
  BOOST_TEST(fl.get().first.code() == af::Code::failed_precondition);
}

BOOST_AUTO_TEST_CASE(closing_the_session_ends_a_receive_waiting_without_a_deadline,
                     *boost::unit_test::timeout(30)) {
  // cpu:0 waits for a tensor that cpu:1 never sends (its dequeue waits): without a deadline
  // the receive waits untimed, and the close still ends it.
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output sent;
  {
    auto cpu1 = g.device("/cpu:1");
    af::FIFOQueue q(g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}});
    sent = q.dequeue()[0];
  }
  af::Output received;
  {
    auto cpu0 = g.device("/cpu:0");
    received = sent + 1.0f;
  }
  auto sess = std::make_unique<af::Session>(g, config);
  auto waiting = std::async(std::launch::async, [&]() -> std::string {
    try {
      sess->run(received);
      return "no error";
    } catch (const af::CancelledError& e) {
      return e.what();
    }
  });
  BOOST_TEST((waiting.wait_for(100ms) == std::future_status::timeout));
  BOOST_REQUIRE(af::test::await_waits("dequeue", "FIFOQueue"));
  sess->close();
  BOOST_REQUIRE((waiting.wait_for(10s) == std::future_status::ready));
  const std::string message = waiting.get();
  BOOST_TEST(message.find("Session has been closed.") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(closing_the_session_cancels_a_dequeue_waiting_in_a_two_device_step,
                     *boost::unit_test::timeout(30)) {
  // The step has a partition on each device, so device actors run it (not the caller's
  // thread). Closing the session stops them; the dequeue they wait in must leave the shared
  // queue, or it takes the next element enqueued by anyone.
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output dequeued, enqueue_value, size;
  af::Operation enqueue;
  {
    auto cpu1 = g.device("/cpu:1");
    af::FIFOQueue q(g, {.capacity = 4,
                        .dtypes = {af::float32},
                        .shapes = {{}},
                        .shared_name = "two_device_close_q"});
    dequeued = q.dequeue()[0];
    enqueue = q.enqueue({g.constant(5.0f)});
    size = q.size();
  }
  af::Output used;
  {
    auto cpu0 = g.device("/cpu:0");
    used = dequeued + 1.0f;
  }
  auto sess = std::make_unique<af::Session>(g, config);
  af::Session other(g, config);  // keeps the shared queue alive past the close
  other.run(size);
  auto waiting = std::async(std::launch::async, [&]() -> std::string {
    try {
      sess->run(used);
      return "no error";
    } catch (const af::CancelledError& e) {
      return e.what();
    }
  });
  BOOST_TEST((waiting.wait_for(100ms) == std::future_status::timeout));
  BOOST_REQUIRE(af::test::await_waits("dequeue", "two_device_close_q"));
  sess->close();
  BOOST_REQUIRE((waiting.wait_for(10s) == std::future_status::ready));
  BOOST_TEST(waiting.get() != "no error");
  // The closed session's dequeue took nothing: the element stays for the next one.
  other.run(enqueue);
  BOOST_TEST(other.run(size).scalar<std::int32_t>() == 1);
  BOOST_TEST(other.run(dequeued).scalar<float>() == 5.0f);
}

// -- A device actor's expensive kernels: its own thread for a chain, the pool beside other work

namespace {

/// The thread each node of a traced step ran on, by node name.
std::map<std::string, std::uint64_t> threads_of(const af::RunMetadata& meta) {
  std::map<std::string, std::uint64_t> out;
  for (auto& s : meta.step_stats) out[s.node_name] = s.thread_id;
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_device_actor_runs_a_chain_itself_and_parallel_kernels_on_its_pool,
                     *boost::unit_test::timeout(60)) {
  // Two devices: the partition on cpu:0 receives its input, so its device actor runs it (not
  // the caller's thread), starting with a cheap Identity on the actor's thread.
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  config.inter_op_parallelism_threads = 2;
  const std::int64_t n = 1 << 20;  // far above the elementwise ops' expensive threshold
  af::Output x;
  {
    auto cpu1 = g.device("/cpu:1");
    x = af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({n})), g.constant(1.0f));
  }
  af::Output chain, parallel;
  {
    auto cpu0 = g.device("/cpu:0");
    auto in = af::identity(x, "in");
    auto a = af::identity(in + 1.0f, "a");  // expensive, alone: the actor's thread
    auto b = af::identity(a * 2.0f, "b");   // the next link: the same thread
    chain = af::reduce_sum(b);
    auto p = af::identity(in * 3.0f, "p");  // two at once: the pool, beside each other
    auto q = af::identity(in * 5.0f, "q");
    parallel = af::reduce_sum(p + q);
  }
  af::Session sess(g, config);
  for (int i = 0; i < 3; ++i) {  // a steady state, not only a first step
    af::RunMetadata meta;
    BOOST_TEST(sess.run({chain}, {}, {}, {.trace = true}, &meta)[0].scalar<float>() == 4.0f * n);
    auto t = threads_of(meta);
    BOOST_REQUIRE(t.count("in") && t.count("add") && t.count("mul"));
    BOOST_TEST(t["add"] == t["in"], "a lone expensive kernel ran on the device actor's thread");
    BOOST_TEST(t["mul"] == t["in"], "so did the next one of the chain");
  }
  for (int i = 0; i < 3; ++i) {
    af::RunMetadata meta;
    BOOST_TEST(sess.run({parallel}, {}, {}, {.trace = true}, &meta)[0].scalar<float>() == 8.0f * n);
    auto t = threads_of(meta);
    BOOST_REQUIRE(t.count("in") && t.count("mul_1") && t.count("mul_2"));
    BOOST_TEST(t["mul_1"] != t["in"],
               "an expensive kernel with another ready beside it went to the pool");
    BOOST_TEST(t["mul_2"] != t["in"], "and so did the other, while the first was on the pool");
  }
}

BOOST_AUTO_TEST_SUITE_END()
