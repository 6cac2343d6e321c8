// White-box tests of WaitLoop (actors/src/step.hpp), the event loop of a step that runs on
// the thread waiting for it: posted work runs in order on that thread, timers fire when due,
// a cancellation and the deadline are each reported once, and a closed loop drops posts.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "actorflow/actors/detail/step_protocol.hpp"

namespace {

using af::detail::WaitLoop;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// Waits until the loop reports something and runs the work it woke with.
WaitLoop::Wake wake_and_run(WaitLoop& loop, Clock::time_point deadline = Clock::time_point::max()) {
  auto wake = loop.wait(deadline);
  for (auto& fn : wake.work) fn();
  return wake;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wait_loop_test)

BOOST_AUTO_TEST_CASE(work_posted_from_other_threads_runs_in_order_on_the_waiting_thread,
                     *boost::unit_test::timeout(30)) {
  WaitLoop loop;
  std::vector<int> ran;
  const auto waiter = std::this_thread::get_id();
  std::vector<std::thread::id> threads;
  std::thread poster([&] {
    for (int i = 0; i < 100; ++i)
      loop.post([&, i] {
        ran.push_back(i);
        threads.push_back(std::this_thread::get_id());
      });
  });
  while (ran.size() < 100) wake_and_run(loop, Clock::now() + 10s);
  poster.join();
  for (int i = 0; i < 100; ++i) BOOST_TEST(ran[static_cast<std::size_t>(i)] == i);
  for (auto id : threads) BOOST_TEST((id == waiter));
}

BOOST_AUTO_TEST_CASE(a_timer_wakes_the_loop_when_it_is_due_and_not_before,
                     *boost::unit_test::timeout(30)) {
  WaitLoop loop;
  bool fired = false;
  const auto start = Clock::now();
  loop.post_at(start + 50ms, [&] { fired = true; });
  auto wake = wake_and_run(loop, start + 10s);
  BOOST_TEST(fired);
  BOOST_TEST(!wake.deadline);
  BOOST_TEST(!wake.cancel.has_value());
  BOOST_TEST((Clock::now() - start >= 50ms));
}

BOOST_AUTO_TEST_CASE(a_cancellation_is_reported_once_and_the_first_one_wins,
                     *boost::unit_test::timeout(30)) {
  WaitLoop loop;
  std::thread canceller([&] {
    loop.cancel(af::cancelled("first"));
    loop.cancel(af::cancelled("second"));
  });
  auto wake = wake_and_run(loop, Clock::now() + 10s);
  canceller.join();
  BOOST_TEST_REQUIRE(wake.cancel.has_value());
  BOOST_TEST(wake.cancel->message() == "first");
  // Reported once: the next wait blocks until its deadline (it used to return at once for
  // as long as the cancelled step had replies outstanding: a waiting thread spinning).
  wake = wake_and_run(loop, Clock::now() + 20ms);
  BOOST_TEST(!wake.cancel.has_value());
  BOOST_TEST(wake.deadline);
}

BOOST_AUTO_TEST_CASE(the_deadline_is_reported_once, *boost::unit_test::timeout(30)) {
  WaitLoop loop;
  const auto deadline = Clock::now() + 20ms;
  auto wake = wake_and_run(loop, deadline);
  BOOST_TEST(wake.deadline);
  BOOST_TEST((Clock::now() >= deadline));
  // A later wait with the same past deadline waits for work, not for the deadline again.
  loop.post([] {});
  wake = wake_and_run(loop, deadline);
  BOOST_TEST(!wake.deadline);
  BOOST_TEST(wake.work.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_closed_loop_drops_posts_timers_and_cancellations,
                     *boost::unit_test::timeout(30)) {
  WaitLoop loop;
  bool ran = false;
  loop.post([&] { ran = true; });
  loop.close();  // the step finished: what it started and left posted is dropped
  loop.post([&] { ran = true; });
  loop.post_at(Clock::now(), [&] { ran = true; });
  loop.cancel(af::cancelled("late"));
  auto wake = wake_and_run(loop, Clock::now() + 20ms);
  BOOST_TEST(!ran);
  BOOST_TEST(wake.work.empty());
  BOOST_TEST(!wake.cancel.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
