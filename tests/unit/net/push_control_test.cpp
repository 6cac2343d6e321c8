// What a task's push port does with each frame (net/src/cluster.hpp deliver_pushed): tensors go
// to the rendezvous, counted; a partition run, a step's cancellation and its cleanup go to the
// worker service; a reply goes to the proxy that waits for it, once.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <string>

#include "../../../net/src/cluster.hpp"
#include "../../../net/src/wire.hpp"
#include "../../../net/src/worker_protocol.hpp"
#include "actorflow/actors/detail/step_protocol.hpp"

namespace {

constexpr auto kWait = std::chrono::seconds(5);

struct Fixture {
  caf::actor_system& sys = af::Runtime::global().system();
  af::net::Routes routes;
  caf::scoped_actor rendezvous{sys};
  caf::scoped_actor worker{sys};
  caf::scoped_actor proxy{sys};

  void deliver(af::net::TensorPushServer::Frame frame) {
    // The scoped actors stand in for the typed rendezvous and worker service.
    af::net::deliver_pushed(routes, caf::actor_cast<af::detail::rendezvous_handle>(rendezvous),
                            caf::actor_cast<af::net::worker_service_handle>(worker),
                            std::move(frame));
  }
  /// A tensor frame.
  void deliver(std::int64_t step, const std::string& key, const af::Tensor& value,
               std::size_t bytes) {
    deliver({step, af::net::PushKind::tensor, key, value, {}, bytes});
  }
  /// A control frame of `kind`.
  void deliver(std::int64_t step, af::net::PushKind kind, std::string payload, std::size_t bytes) {
    deliver({step, kind, {}, {}, std::move(payload), bytes});
  }
};

/// `who` receives nothing within a short while.
void expect_nothing(caf::scoped_actor& who, const std::string& what) {
  bool got = false;
  who->receive(
      caf::others >> [&](caf::message_view&) -> caf::result<caf::message> {
        got = true;
        return caf::message{};
      },
      caf::after(std::chrono::milliseconds(100)) >> [] {});
  BOOST_TEST(!got, what);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(push_control_test, Fixture)

BOOST_AUTO_TEST_CASE(a_tensor_goes_to_the_rendezvous_counted_from_its_source_task,
                     *boost::unit_test::timeout(30)) {
  const std::string key =
      "/job:ps/replica:0/task:0/device:CPU:0;/job:worker/replica:0/task:0/device:CPU:0;w;0";
  deliver(7, key, af::Tensor::from_vector<float>({1.0f, 2.0f}), 60);
  bool got = false;
  rendezvous->receive(
      [&](af::detail::send_atom, std::int64_t step, const std::string& k, const af::Tensor& t) {
        got = step == 7 && k == key && t.to_vector<float>() == std::vector<float>{1.0f, 2.0f};
      },
      caf::after(kWait) >> [] {});
  BOOST_TEST(got);
  BOOST_TEST(routes.traffic()["/job:ps/replica:0/task:0"].received == 60u);
  BOOST_TEST(routes.pushed().tensors == 1u);
  BOOST_TEST(routes.pushed().control == 0u);
  expect_nothing(worker, "a tensor is not for the worker service");
}

BOOST_AUTO_TEST_CASE(runs_cancellations_and_cleanups_go_to_the_worker_service,
                     *boost::unit_test::timeout(30)) {
  deliver(3, af::net::PushKind::run, "run payload", 47);
  deliver(
      3, af::net::PushKind::cancel,
      [] {
        af::net::WireWriter out;
        out.u8(static_cast<std::uint8_t>(af::Code::cancelled));
        out.str("step 3 was cancelled");
        return out.take();
      }(),
      40);
  deliver(3, af::net::PushKind::cleanup, {}, 32);
  // In the order they came: the run, then its cancellation, then its cleanup.
  int seen = 0;
  worker->receive(
      [&](af::net::worker_push_run_atom, std::int64_t step, const std::string& payload,
          std::uint64_t bytes) { seen += step == 3 && payload == "run payload" && bytes == 47u; },
      caf::after(kWait) >> [] {});
  worker->receive(
      [&](af::net::worker_cancel_atom, std::int64_t step, const af::detail::WireStatus& why) {
        seen += step == 3 && why.code == static_cast<std::uint8_t>(af::Code::cancelled) &&
                why.message == "step 3 was cancelled";
      },
      caf::after(kWait) >> [] {});
  worker->receive([&](af::net::worker_cleanup_atom, std::int64_t step) { seen += step == 3; },
                  caf::after(kWait) >> [] {});
  BOOST_TEST(seen == 3);
  BOOST_TEST(routes.pushed().control == 3u);
  BOOST_TEST(routes.pushed().tensors == 0u);
  expect_nothing(rendezvous, "a control frame never reaches the rendezvous");
  // A cancellation that does not parse is dropped.
  deliver(4, af::net::PushKind::cancel, "\x01", 25);
  expect_nothing(worker, "a malformed cancellation");
}

BOOST_AUTO_TEST_CASE(a_reply_goes_to_the_proxy_waiting_for_it_once,
                     *boost::unit_test::timeout(30)) {
  const std::uint64_t id = routes.next_request_id();
  routes.expect_reply(id, caf::actor_cast<caf::actor>(proxy));
  af::net::WireWriter out;
  out.u64(id);
  out.u8(1);
  out.str("fetches");
  const std::string payload = out.take();
  deliver(9, af::net::PushKind::reply, payload, 64);
  bool got = false;
  proxy->receive([&](af::net::worker_push_reply_atom, std::uint64_t rid, const std::string& p,
                     std::uint64_t bytes) { got = rid == id && p == payload && bytes == 64u; },
                 caf::after(kWait) >> [] {});
  BOOST_TEST(got);
  // Nobody waits for it any more (a duplicate, or the task went down meanwhile): dropped.
  deliver(9, af::net::PushKind::reply, payload, 64);
  expect_nothing(proxy, "a reply is delivered once");
  BOOST_TEST(!routes.take_reply(id));
  // A reply too short to name its request is dropped.
  deliver(9, af::net::PushKind::reply, "\x01", 25);
  expect_nothing(proxy, "a reply without a request id");
  expect_nothing(worker, "a reply is not for the worker service");
  BOOST_TEST(routes.pushed().control == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
