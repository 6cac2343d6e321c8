#include "actorflow/actors/coroutine.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "actorflow/actors/runtime.hpp"

using namespace std::chrono_literals;
using get_atom = caf::atom_constant<caf::atom("get")>;
using go_atom = caf::atom_constant<caf::atom("go")>;

namespace {

caf::behavior adder(caf::event_based_actor*) {
  return {[](get_atom, int x) { return x + 1; }};
}

caf::behavior silent(caf::event_based_actor*) {
  return {[](get_atom, int) -> caf::result<int> { return caf::delegated<int>{}; }};
}

struct Probe {
  std::promise<std::string> result;
  std::atomic<bool> resumed{false};
  std::atomic<bool> frame_destroyed{false};
};

struct Sentinel {
  Probe* probe;
  ~Sentinel() { probe->frame_destroyed = true; }
};

af::ActorTask sum_three(caf::event_based_actor* self, caf::actor server, Probe* probe) {
  int total = 0;
  for (int i = 0; i < 3; ++i) {
    auto r = co_await af::request<int>(self, server, 1s, get_atom::value, i * 10);
    if (!r) {
      probe->result.set_value("error: " + caf::to_string(r.error()));
      co_return;
    }
    total += *r;
  }
  probe->result.set_value(std::to_string(total));
}

af::ActorTask wait_forever(caf::event_based_actor* self, caf::actor server, Probe* probe,
                           std::chrono::milliseconds timeout) {
  Sentinel sentinel{probe};
  auto r = co_await af::request<int>(self, server, timeout, get_atom::value, 1);
  probe->resumed = true;
  probe->result.set_value(r ? std::string("value") : caf::to_string(r.error()));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coroutine_test)

BOOST_AUTO_TEST_CASE(sequential_requests_resume_inside_the_actor_with_each_answer,
                     *boost::unit_test::timeout(30)) {
  af::Runtime rt;
  auto server = rt.system().spawn(adder);
  Probe probe;
  auto client = rt.system().spawn([&](caf::event_based_actor* self) -> caf::behavior {
    return {[=, &probe](go_atom) { sum_three(self, server, &probe); }};
  });
  caf::anon_send(client, go_atom::value);
  auto f = probe.result.get_future();
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  BOOST_TEST(f.get() == "33");  // (0+1) + (10+1) + (20+1)
  caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_request_without_an_answer_resumes_with_request_timeout,
                     *boost::unit_test::timeout(30)) {
  af::Runtime rt;
  auto server = rt.system().spawn(silent);
  Probe probe;
  auto client = rt.system().spawn([&](caf::event_based_actor* self) -> caf::behavior {
    return {[=, &probe](go_atom) { wait_forever(self, server, &probe, 100ms); }};
  });
  caf::anon_send(client, go_atom::value);
  auto f = probe.result.get_future();
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  BOOST_TEST(f.get().find("request_timeout") != std::string::npos);
  BOOST_TEST(probe.resumed.load());
  caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_coroutine_whose_actor_dies_is_destroyed_and_never_resumed,
                     *boost::unit_test::timeout(30)) {
  af::Runtime rt;
  auto server = rt.system().spawn(silent);
  Probe probe;
  auto client = rt.system().spawn([&](caf::event_based_actor* self) -> caf::behavior {
    return {[=, &probe](go_atom) { wait_forever(self, server, &probe, 10s); }};
  });
  caf::anon_send(client, go_atom::value);
  std::this_thread::sleep_for(100ms);  // let it suspend on the request
  BOOST_TEST(!probe.frame_destroyed.load());
  caf::anon_send_exit(client, caf::exit_reason::kill);
  for (int i = 0; i < 200 && !probe.frame_destroyed; ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(probe.frame_destroyed.load());
  BOOST_TEST(!probe.resumed.load());
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
