// ThreadPools: the session's inter-op and intra-op pools (Eigen's), owned by shared_ptr from
// devices and the closures they run.
#include <actorflow/actorflow.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <future>
#include <memory>
#include <thread>

BOOST_AUTO_TEST_SUITE(thread_pools_test)

// The last owner can be a closure running on the pool itself (a kernel's completion that
// held the session's devices while the session closed): its destruction must not join the
// thread it runs on (Eigen's pool would throw EDEADLK from a destructor: terminate).
BOOST_AUTO_TEST_CASE(pools_released_by_their_own_threads_end_cleanly,
                     *boost::unit_test::timeout(30)) {
  for (int round = 0; round < 20; ++round) {
    auto pools = std::make_shared<af::ThreadPools>(2, 2);
    std::atomic<bool> go{false};
    std::promise<void> released;
    pools->schedule([p = pools, &go, &released]() mutable {
      while (!go.load()) std::this_thread::yield();
      p.reset();  // the last reference: ~ThreadPools runs on an inter-op thread
      released.set_value();
    });
    pools.reset();
    go = true;
    BOOST_TEST(
        (released.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready));
  }
}

BOOST_AUTO_TEST_SUITE_END()
