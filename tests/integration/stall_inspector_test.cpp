// The stall inspector (ServerOptions::stall_period): waits that can stall a synchronous
// run, on a ps task of an in-process cluster, are logged and listed in /status and /metrics
// with what they wait for: an accumulator's take names the replica that has not applied
// its gradient for the global step; a dequeue names who enqueued last; a receive names the
// task its tensor comes from. The waits still end only at their deadlines.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "http_client.hpp"
#include "log_capture.hpp"
#include "matchers.hpp"
#include "pending_waits.hpp"

using namespace std::chrono_literals;
using af::test::contains;

namespace {

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

/// ps:0 (stall period 200 ms, a status port), worker:0 and worker:1, in this process.
struct Cluster {
  af::ClusterSpec spec{std::map<std::string, std::vector<std::string>>{
      {"ps", {address()}}, {"worker", {address(), address()}}}};
  std::unique_ptr<af::Server> ps, w0, w1;
  Cluster() {
    af::ServerOptions o;
    o.status_port = 0;
    o.stall_period = 200ms;
    ps = std::make_unique<af::Server>(spec, "ps", 0, o);
    w0 = std::make_unique<af::Server>(spec, "worker", 0);
    w1 = std::make_unique<af::Server>(spec, "worker", 1);
  }
  std::string metrics() const {
    return af::test::body_of(af::test::http_get(ps->status_port(), "/metrics"));
  }
  nlohmann::json status() const {
    return nlohmann::json::parse(
        af::test::body_of(af::test::http_get(ps->status_port(), "/status")));
  }
};

/// The stalled wait of `kind` on the ps, or null.
const af::StallWatch::Stalled* find(const std::vector<af::StallWatch::Stalled>& all,
                                    const std::string& kind) {
  for (const auto& s : all)
    if (s.kind == kind) return &s;
  return nullptr;
}

/// Runs `f` (a step with a deadline) and returns its error code and how long it took.
std::pair<af::Code, std::chrono::milliseconds> timed(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  af::Code code = af::Code::ok;
  try {
    f();
  } catch (const af::Error& e) {
    code = e.code();
  }
  return {code, std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start)};
}

/// One replica's graph: a shared accumulator on the ps, fed from the replica's worker.
struct AccumulatorGraph {
  af::Graph g;
  af::Output grad, local_step, taken;
  af::Operation apply;
  explicit AccumulatorGraph(int task) {
    {
      auto on_worker = g.device("/job:worker/task:" + std::to_string(task));
      grad = g.placeholder(af::float32, af::PartialShape{1}, "grad");
      local_step = g.placeholder(af::int64, af::PartialShape{}, "local_step");
    }
    auto on_ps = g.device("/job:ps/task:0");
    af::ConditionalAccumulator acc(g, af::float32,
                                   {.shape = af::PartialShape{1}, .shared_name = "stall_acc"});
    apply = acc.apply_grad(grad, local_step);
    taken = acc.take_grad(2);
  }
  af::FeedDict feed(float g_value, std::int64_t step) const {
    return {{grad, af::Tensor::from_vector<float>({g_value})}, {local_step, af::Tensor(step)}};
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(stall_inspector_test)

BOOST_AUTO_TEST_CASE(a_take_waiting_for_a_replica_names_it_and_still_ends_at_its_deadline,
                     *boost::unit_test::timeout(120)) {
  Cluster cluster;
  AccumulatorGraph r0(0), r1(1);
  af::Session s0(r0.g, cluster.w0->target()), s1(r1.g, cluster.w1->target());
  // Global step 0: both replicas apply, the chief (replica 0) takes.
  s1.run(r1.apply, r1.feed(1.0f, 0));
  s0.run(r0.apply, r0.feed(3.0f, 0));
  BOOST_TEST(s0.run(r0.taken).data<float>()[0] == 2.0f);
  // Global step 1: only replica 0 applies; the chief's take waits for replica 1.
  s0.run(r0.apply, r0.feed(5.0f, 1));
  af::test::LogCapture log;
  auto take = std::async(std::launch::async, [&] {
    return timed([&] { s0.run({r0.taken}, {}, {}, {.timeout_in_ms = 2000}); });
  });
  // Reported once it has waited the stall period (200 ms); the deadline is 2 s away.
  std::vector<af::StallWatch::Stalled> stalled;
  BOOST_REQUIRE(af::test::eventually(
      [&] {
        stalled = cluster.ps->stalled_waits();
        return find(stalled, "take") != nullptr;
      },
      1500ms));
  const auto* s = find(stalled, "take");
  BOOST_REQUIRE(s != nullptr);
  BOOST_TEST(s->what == "stall_acc");
  BOOST_TEST(s->global_step == 1);
  BOOST_TEST(contains(s->waiting_for, "1 of 2 gradients for global step 1"), s->waiting_for);
  BOOST_TEST(contains(s->waiting_for, "none yet from /job:worker/replica:0/task:1"),
             s->waiting_for);
  BOOST_TEST(!contains(s->waiting_for, "task:0"), s->waiting_for);
  BOOST_TEST(s->waited >= 200ms);
  // /status lists it, /metrics counts it, the log names the missing replica.
  const auto status = cluster.status();
  BOOST_REQUIRE(status.at("stalls").size() >= 1u);
  BOOST_TEST(status.at("stall_period_ms").get<int>() == 200);
  bool listed = false;
  for (const auto& w : status.at("stalls"))
    listed = listed ||
             (w.at("kind") == "take" && contains(w.at("waiting_for").get<std::string>(), "task:1"));
  BOOST_TEST(listed);
  BOOST_TEST(
      contains(cluster.metrics(),
               "actorflow_stalled_waits{task=\"/job:ps/replica:0/task:0\",kind=\"take\"} 1\n"));
  bool logged = false;
  af::test::eventually(
      [&] {
        for (const auto& line : log.take())
          logged =
              logged || (contains(line, "stalled:") && contains(line, "accumulator 'stall_acc'") &&
                         contains(line, "none yet from /job:worker/replica:0/task:1"));
        return logged;
      },
      1000ms);
  BOOST_TEST(logged);
  // The wait still ends only at its deadline.
  const auto [code, took] = take.get();
  BOOST_TEST(code == af::Code::deadline_exceeded);
  BOOST_TEST(took >= 1900ms);
  BOOST_TEST(find(cluster.ps->stalled_waits(), "take") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_dequeue_and_a_receive_waiting_on_the_ps_name_who_they_wait_for,
                     *boost::unit_test::timeout(120)) {
  Cluster cluster;
  af::Graph g;
  af::Output x;
  {
    auto on_worker = g.device("/job:worker/task:0");
    x = g.placeholder(af::float32, af::PartialShape{}, "x");
  }
  af::Operation enqueue;
  af::Output dequeued, doubled;
  {
    auto on_ps = g.device("/job:ps/task:0");
    af::FIFOQueue q(
        g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "stall_q"});
    enqueue = q.enqueue({x});
    dequeued = q.dequeue()[0];
  }
  af::Output from_w1;
  {
    auto on_w1 = g.device("/job:worker/task:1");
    af::FIFOQueue empty(
        g, {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "w1_q"});
    from_w1 = empty.dequeue()[0];
  }
  {
    auto on_ps = g.device("/job:ps/task:0");
    doubled = from_w1 * 2.0f;  // the ps receives it from worker:1
  }
  af::Session sess(g, cluster.w0->target());
  sess.run(enqueue, {{x, af::Tensor(1.0f)}});
  BOOST_TEST(sess.run(dequeued).scalar<float>() == 1.0f);
  auto dequeue = std::async(std::launch::async, [&] {
    return timed([&] { sess.run({dequeued}, {}, {}, {.timeout_in_ms = 1500}); });
  });
  auto receive = std::async(std::launch::async, [&] {
    return timed([&] { sess.run({doubled}, {}, {}, {.timeout_in_ms = 1500}); });
  });
  // Both reported once they have waited the stall period (200 ms); the deadlines are 1.5 s away.
  std::vector<af::StallWatch::Stalled> stalled;
  BOOST_REQUIRE(af::test::eventually(
      [&] {
        stalled = cluster.ps->stalled_waits();
        return find(stalled, "dequeue") != nullptr && find(stalled, "recv") != nullptr;
      },
      1200ms));
  const auto* d = find(stalled, "dequeue");
  BOOST_REQUIRE(d != nullptr);
  BOOST_TEST(contains(d->what, "stall_q"), d->what);
  BOOST_TEST(contains(d->waiting_for, "last enqueued by /job:worker/replica:0/task:0"),
             d->waiting_for);
  const auto* r = find(stalled, "recv");
  BOOST_REQUIRE(r != nullptr);
  BOOST_TEST(r->waiting_for == "a tensor from /job:worker/replica:0/task:1");
  BOOST_TEST(contains(r->what, "_Dequeue:0"), r->what);  // the tensor, not the whole key
  BOOST_TEST(contains(r->device, "/job:ps/replica:0/task:0/"));
  const std::string m = cluster.metrics();
  BOOST_TEST(
      contains(m,
               "actorflow_stalled_waits{task=\"/job:ps/replica:0/task:0\",kind=\"dequeue\"} 1\n"),
      m);
  BOOST_TEST(
      contains(m, "actorflow_stalled_waits{task=\"/job:ps/replica:0/task:0\",kind=\"recv\"} 1\n"),
      m);
  BOOST_TEST((dequeue.get().first == af::Code::deadline_exceeded));
  BOOST_TEST((receive.get().first == af::Code::deadline_exceeded));
}

BOOST_AUTO_TEST_SUITE_END()
