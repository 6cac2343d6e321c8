// Load on one server in this process: 50 clients with 20 steps in flight each (1,000
// concurrent steps). Nothing is lost, mixed up or deadlocked. The multi-process version is
// tests/process/server_process_test.cpp; the 10-minute soak is a benchmark run, not a test.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>

#include "step_load.hpp"

BOOST_AUTO_TEST_SUITE(load_test)

BOOST_AUTO_TEST_CASE(a_thousand_concurrent_steps_from_fifty_clients_all_complete,
                     *boost::unit_test::timeout(180)) {
  auto server = af::Server::create_local_server();
  auto r = af::test::run_step_load(server->target(), 50, 20, std::chrono::seconds(150));
  BOOST_REQUIRE_MESSAGE(r.finished_clients == 50,
                        "only " << r.finished_clients << " of 50 clients finished");
  BOOST_TEST(r.failed == 0, "first error: " << r.first_error);
  BOOST_TEST(r.wrong == 0);
  BOOST_TEST(r.counter == 1000.0f);
}

BOOST_AUTO_TEST_SUITE_END()
