// Steps that cannot wait run on the caller's thread (Session::start_step_here): cheap ones
// end, `done` included, before the call returns; on a thread that must not block, the run
// stops before an expensive kernel and the device actor finishes the step; steps with
// waiting kernels (queues) still go through the actors.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <thread>

#include <actorflow/actorflow.hpp>

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
    sess.start_step_here({bump}, {}, {}, {}, nullptr, o.callback(), may_block);
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
  fresh.start_step_here({y.value()}, {}, {}, {}, nullptr, o.callback(), true);
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
    sess.start_step_here({sum}, {}, {}, {}, nullptr, o.callback(), /*may_block=*/false);
    BOOST_REQUIRE(f.wait_for(20s) == std::future_status::ready);
    auto [s, v] = f.get();
    BOOST_REQUIRE_MESSAGE(s.ok(), s.message());
    BOOST_TEST(v.at(0).scalar<float>() == 3.0f * n);
    BOOST_TEST(o.thread != std::this_thread::get_id());  // finished by the device actor
  }
  {
    Outcome o;
    auto f = o.promise.get_future();
    sess.start_step_here({sum}, {}, {}, {}, nullptr, o.callback(), /*may_block=*/true);
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
  sess.start_step_here({dequeue}, {}, {}, {}, nullptr, o.callback(), /*may_block=*/true);
  BOOST_TEST((f.wait_for(50ms) == std::future_status::timeout));
  sess.run(enqueue);
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto [s, v] = f.get();
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(v.at(0).scalar<float>() == 7.0f);
}

BOOST_AUTO_TEST_SUITE_END()
