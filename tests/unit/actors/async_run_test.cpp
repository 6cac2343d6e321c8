#include <actorflow/actorflow.hpp>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>

using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(async_run_test)

BOOST_AUTO_TEST_CASE(async_run_completes_a_callback_with_the_values,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output c = g.constant(2.0f) * 3.0f;
  af::Session sess(g);
  std::promise<float> got;
  sess.async_run({c}, [&](std::exception_ptr e, std::vector<af::Tensor> v) {
    if (e)
      got.set_exception(e);
    else
      got.set_value(v.at(0).scalar<float>());
  });
  auto f = got.get_future();
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  BOOST_TEST(f.get() == 6.0f);
}

BOOST_AUTO_TEST_CASE(async_run_with_use_future_reports_errors_as_exceptions,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output p = g.placeholder(af::float32, {}, "p");
  af::Session sess(g);
  auto ok = sess.async_run({p + 1.0f}, {{p, af::Tensor(1.0f)}}, {}, {}, asio::use_future);
  BOOST_TEST(ok.get().at(0).scalar<float>() == 2.0f);
  auto bad = sess.async_run({p}, asio::use_future);
  BOOST_CHECK_THROW(bad.get(), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(async_run_is_awaitable_on_an_io_context, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output x = g.placeholder(af::float32, {}, "x");
  af::Output y = x * x;
  af::Session sess(g);
  asio::io_context io;
  float sum = 0;
  std::thread::id completion_thread;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (int i = 1; i <= 3; ++i) {
          // (GCC 12 rejects braced temporaries inside co_await expressions: name them.)
          std::vector<af::Output> fetches{y};
          af::FeedDict feeds{{x, af::Tensor(static_cast<float>(i))}};
          auto r = co_await sess.async_run(fetches, feeds, {}, {}, asio::use_awaitable);
          sum += r[0].scalar<float>();
          completion_thread = std::this_thread::get_id();
        }
      },
      [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
      });
  io.run();
  BOOST_TEST(sum == 14.0f);
  BOOST_TEST((completion_thread == std::this_thread::get_id()),
             "resumed on the io_context's thread");
}

BOOST_AUTO_TEST_CASE(a_traced_step_writes_a_nested_chrome_trace, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output a;
  {
    auto cpu0 = g.device("/cpu:0");  // unpinned, a constant would go with its consumer
    a = g.constant(1.0f, "a");
  }
  af::Output b;
  {
    auto cpu1 = g.device("/cpu:1");
    b = af::delay(a, 2ms) + 1.0f;
  }
  af::Session sess(g, config);
  af::RunMetadata meta;
  auto r = sess.run({b}, {}, {}, {.trace = true}, &meta);
  BOOST_TEST(r[0].scalar<float>() == 2.0f);
  bool saw_recv = false, saw_delay = false;
  for (auto& s : meta.step_stats) {
    BOOST_TEST(s.end_us >= s.start_us);
    saw_recv |= s.op == "_Recv";
    saw_delay |= s.op == "_Delay" && s.end_us - s.start_us >= 2000;
  }
  BOOST_TEST(saw_recv);
  BOOST_TEST(saw_delay);
  std::string trace = meta.chrome_trace();
  BOOST_TEST(trace.find("\"traceEvents\"") != std::string::npos);
  BOOST_TEST(trace.find("device:CPU:1") != std::string::npos);
  BOOST_TEST(trace.find("\"ph\": \"X\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_first_session_creates_the_pools_and_later_ones_reuse_them,
                     *boost::unit_test::timeout(30)) {
  auto& rt = af::Runtime::global();
  auto first = rt.shared_pools(2, 2);
  auto second = rt.shared_pools(7, 7);
  BOOST_TEST(first.get() == second.get());
  BOOST_TEST(second->inter_op_threads() == first->inter_op_threads());
  af::Graph g;
  af::Output c = g.constant(1.0f);
  af::SessionConfig own;
  own.use_per_session_threads = true;
  own.inter_op_parallelism_threads = 3;
  af::Session sess(g, own);
  BOOST_TEST(sess.run(c).scalar<float>() == 1.0f);
}

BOOST_AUTO_TEST_SUITE_END()
