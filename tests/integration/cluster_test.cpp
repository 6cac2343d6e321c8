// Several tasks of one cluster in this process (the chapter's footnote: useful for tests),
// talking over the middleman on loopback: "Pinning Operations Across Tasks" and
// "Sharing State Across Sessions Using Resource Containers" with x on the ps task.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "free_port.hpp"
#include "http_client.hpp"
#include "log_capture.hpp"
#include "pending_waits.hpp"

namespace {

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

/// ps:0, worker:0 and worker:1, each a Server in this process.
struct ThreeTasks {
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{
      {"ps", {address()}}, {"worker", {address(), address()}}}};
  af::Server ps{cluster, "ps", 0};
  af::Server worker0{cluster, "worker", 0};
  af::Server worker1{cluster, "worker", 1};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_test)

BOOST_AUTO_TEST_CASE(ops_pinned_to_other_tasks_run_there_and_tensors_cross_between_tasks,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  af::Graph g;
  af::Output a, b;
  {
    auto pin = g.device("/job:ps/task:0/cpu:0");
    a = g.constant(1.0f);
  }
  {
    auto pin = g.device("/job:worker/task:1");
    b = a + 2.0f;
  }
  auto c = a + b;  // unpinned: the cluster's first device (ps:0), whichever task is the master
  af::Session sess(g, tasks.worker0.target());
  BOOST_TEST(sess.run(c).scalar<float>() == 4.0f);
  BOOST_TEST(sess.run(b).scalar<float>() == 3.0f);
  // Feeds reach partitions on other tasks; fetches come back from them.
  auto x = g.placeholder(af::float32, af::PartialShape{2});
  af::Output y;
  {
    auto pin = g.device("/job:ps");
    y = x * 10.0f;
  }
  auto z = y + c;
  auto out = sess.run({y, z}, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f})}});
  BOOST_TEST(out[0].to_vector<float>() == (std::vector<float>{10.0f, 20.0f}));
  BOOST_TEST(out[1].to_vector<float>() == (std::vector<float>{14.0f, 24.0f}));
  auto devices = sess.list_devices();
  BOOST_TEST(devices.size() >= 1u);
}

BOOST_AUTO_TEST_CASE(the_chapters_simple_client_shares_its_unpinned_x_across_masters,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  // simple_client exactly as printed: x is not pinned. As TensorFlow's placer, an unpinned
  // node goes to the cluster's first device (by type, then full name: the ps task's CPU),
  // whichever task is the session's master, so every client uses the same x.
  auto simple_client = [](const std::string& target, bool init) {
    af::Graph g;
    auto x = g.variable(0.0f, {.name = "x"});
    auto increment_x = x.assign(x.value() + 1.0f);
    af::Session sess(g, target);
    if (init) sess.run(x.initializer());
    sess.run(increment_x);
    return sess.run(x.value()).scalar<float>();
  };
  BOOST_TEST(simple_client(tasks.worker0.target(), true) == 1.0f);
  BOOST_TEST(simple_client(tasks.worker1.target(), false) == 2.0f);
  BOOST_TEST(simple_client(tasks.ps.target(), false) == 3.0f);
}

BOOST_AUTO_TEST_CASE(a_variable_pinned_to_a_worker_is_that_workers_own,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  auto client = [](const std::string& target, const std::string& device, bool init) {
    af::Graph g;
    af::Variable x;
    {
      auto pin = g.device(device);
      x = g.variable(0.0f, {.name = "x"});
    }
    auto increment_x = x.assign(x.value() + 1.0f);
    af::Session sess(g, target);
    if (init) sess.run(x.initializer());
    sess.run(increment_x);
    return sess.run(x.value()).scalar<float>();
  };
  BOOST_TEST(client(tasks.worker0.target(), "/job:worker/task:0", true) == 1.0f);
  BOOST_TEST(client(tasks.worker1.target(), "/job:worker/task:0", false) == 2.0f);
  // worker:1's x is another variable, never initialized. The failing read on worker:1 ends
  // the step although the add between it and the assign runs on a third task (ps:0, the
  // cluster's first device) waiting for it.
  BOOST_CHECK_THROW(client(tasks.worker0.target(), "/job:worker/task:1", false),
                    af::FailedPreconditionError);
}

BOOST_AUTO_TEST_CASE(errors_on_a_remote_task_fail_the_step_and_keep_the_session_usable,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1});
  af::Output y;
  {
    auto pin = g.device("/job:ps/task:0");
    y = af::reshape(x * 2.0f, std::vector<std::int64_t>{2});
  }
  auto z = y + 1.0f;
  af::Session sess(g, tasks.worker1.target());
  BOOST_CHECK_THROW(sess.run(z, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f, 3.0f})}}),
                    af::InvalidArgumentError);
  BOOST_TEST(sess.run(z, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f})}}).to_vector<float>() ==
             (std::vector<float>{3.0f, 5.0f}));
}

BOOST_AUTO_TEST_CASE(a_step_needing_a_stopped_task_fails_with_unavailable_naming_it,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  af::Graph g;
  af::Output a;
  {
    auto pin = g.device("/job:ps/task:0");
    a = g.constant(1.0f);
  }
  auto b = a + 1.0f;
  af::Session sess(g, tasks.worker0.target());
  BOOST_TEST(sess.run(b).scalar<float>() == 2.0f);
  tasks.ps.stop();
  try {
    sess.run(b);
    BOOST_FAIL("the step ran without its ps task");
  } catch (const af::UnavailableError& e) {
    BOOST_TEST(std::string(e.what()).find("/job:ps/replica:0/task:0") != std::string::npos,
               e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_replica_device_setter_graph_keeps_variables_on_two_ps_tasks,
                     *boost::unit_test::timeout(60)) {
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{
      {"ps", {address(), address()}}, {"worker", {address()}}}};
  af::Server ps0{cluster, "ps", 0};
  af::Server ps1{cluster, "ps", 1};
  af::Server worker{cluster, "worker", 0};
  af::Graph g;
  af::Variable v, w;
  af::Output sum, step;
  {
    auto setter =
        g.device(af::replica_device_setter(cluster, {.worker_device = "/job:worker/task:0"}));
    v = g.variable(af::Tensor::from_vector<float>({1.0f, 2.0f}), {.name = "v"});
    w = g.variable(af::Tensor::from_vector<float>({10.0f, 20.0f}), {.name = "w"});
    sum = v + w;
    step = w.assign_add(sum);
  }
  BOOST_TEST(v.op().device() == "/job:ps/task:0");
  BOOST_TEST(w.op().device() == "/job:ps/task:1");
  af::Session sess(g, worker.target());
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(sum).to_vector<float>() == (std::vector<float>{11.0f, 22.0f}));
  sess.run(step);
  // w lives on ps:1: a session opened there reads the updated value by pinning to it.
  af::Graph reader;
  af::Variable w_again;
  {
    auto pin = reader.device("/job:ps/task:1");
    w_again = reader.variable(af::Tensor::from_vector<float>({0.0f, 0.0f}), {.name = "w"});
  }
  af::Session on_ps1(reader, ps1.target());
  BOOST_TEST(on_ps1.run(w_again.value()).to_vector<float>() == (std::vector<float>{21.0f, 42.0f}));
}

BOOST_AUTO_TEST_CASE(a_stopped_masters_blocked_dequeue_on_another_task_takes_nothing,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  auto client = [](af::Graph& g) {
    auto pin = g.device("/job:ps/task:0");
    return af::FIFOQueue(
        g, {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "shared_q"});
  };
  af::Graph g0;
  auto q0 = client(g0);
  auto dequeue0 = q0.dequeue()[0];
  std::promise<void> opened;
  auto blocked = std::async(std::launch::async, [&] {
    try {
      af::Session sess(g0, tasks.worker0.target());
      opened.set_value();
      sess.run(dequeue0);
      return std::string("returned a value");
    } catch (const af::Error& e) {
      return std::string("opening or running failed: ") + e.what();
    }
  });
  // Opening can be slow on a loaded machine: stop worker:0 only once its session is open
  // and its dequeue waits on ps:0.
  BOOST_REQUIRE(
      (opened.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready));
  BOOST_REQUIRE(af::test::await_waits("dequeue", "shared_q"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its attempt reaches the queue
  tasks.worker0.stop();
  BOOST_TEST((blocked.wait_for(std::chrono::seconds(20)) == std::future_status::ready));
  BOOST_TEST(blocked.get() != "returned a value");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the ps task learns it is gone
  // The element enqueued next belongs to the live client, not to the dead step.
  af::Graph g1;
  auto q1 = client(g1);
  auto enqueue1 = q1.enqueue({g1.constant(42.0f)});
  auto dequeue1 = q1.dequeue()[0];
  // Only the ps task is needed: with device_filters, opening does not wait for worker:0.
  af::SessionConfig config;
  config.device_filters = {"/job:ps"};
  af::Session sess(g1, tasks.worker1.target(), config);
  sess.run(enqueue1);
  af::RunOptions options;
  options.timeout_in_ms = 5000;
  BOOST_TEST(sess.run(dequeue1, {}, options).scalar<float>() == 42.0f);
}

BOOST_AUTO_TEST_CASE(device_filters_limit_the_tasks_a_session_waits_for_and_sees,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  tasks.worker0.stop();
  af::Graph g;
  af::Output a;
  {
    auto pin = g.device("/job:ps/task:0");
    a = g.constant(2.0f);
  }
  auto b = a * 3.0f;
  af::SessionConfig config;
  config.device_filters = {"/job:ps"};
  af::Session sess(g, tasks.worker1.target(), config);
  BOOST_TEST(sess.run(b).scalar<float>() == 6.0f);
  auto devices = sess.list_devices();
  // Devices outside the filters are not candidates for placement.
  af::Graph other;
  {
    auto pin = other.device("/job:worker/task:0");
    other.constant(1.0f, "on_worker0");
  }
  af::Session filtered(other, tasks.worker1.target(), config);
  BOOST_CHECK_THROW(filtered.run(other.output("on_worker0")), af::InvalidArgumentError);
  // A malformed filter is InvalidArgument naming it.
  config.device_filters = {"/job:ps/bogus:1"};
  try {
    af::Session bad(g, tasks.worker1.target(), config);
    BOOST_FAIL("a malformed device filter was accepted");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("device_filters") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_traced_distributed_step_merges_every_tasks_stats_into_one_chrome_trace,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  af::Graph g;
  af::Output a, b;
  {
    auto pin = g.device("/job:ps/task:0");
    a = g.constant(1.0f, "a");
  }
  {
    auto pin = g.device("/job:worker/task:1");
    b = af::add(a, g.constant(2.0f), "b");
  }
  af::Output c;
  {
    auto pin = g.device("/job:worker/task:0");  // the master's task
    c = af::add(a, b, "c");
  }
  af::Session sess(g, tasks.worker0.target());
  af::RunMetadata meta;
  auto out = sess.run({c}, {}, {}, {.trace = true}, &meta);
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
  std::set<std::string> tasks_seen;
  std::map<std::string, std::string> sent_from, received_on;  // transfer key -> task
  for (auto& s : meta.step_stats) {
    auto task = s.device.substr(0, s.device.find("/device:"));
    tasks_seen.insert(task);
    BOOST_TEST(s.end_us >= s.start_us);
    if (s.op == "_Send") sent_from[s.transfer] = task;
    if (s.op == "_Recv") received_on[s.transfer] = task;
  }
  BOOST_TEST(tasks_seen.count("/job:ps/replica:0/task:0") == 1u);
  BOOST_TEST(tasks_seen.count("/job:worker/replica:0/task:0") == 1u);
  BOOST_TEST(tasks_seen.count("/job:worker/replica:0/task:1") == 1u);
  int cross_task = 0;
  for (auto& [key, from] : sent_from)
    if (received_on.count(key) && received_on[key] != from) ++cross_task;
  BOOST_TEST(cross_task >= 3);  // ps -> worker:1, ps -> worker:0, worker:1 -> worker:0
  // One process track per task, and a flow arrow (s then f) per cross-task transfer.
  auto trace = nlohmann::json::parse(meta.chrome_trace());
  std::set<std::string> processes;
  int flow_starts = 0, flow_ends = 0;
  for (auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "s") ++flow_starts;
    if (e["ph"] == "f") ++flow_ends;
  }
  BOOST_TEST(processes ==
             (std::set<std::string>{"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                                    "/job:worker/replica:0/task:1"}));
  BOOST_TEST(flow_starts == cross_task);
  BOOST_TEST(flow_ends == cross_task);
  // An untraced step carries no stats.
  af::RunMetadata none;
  sess.run({c}, {}, {}, {}, &none);
  BOOST_TEST(none.step_stats.empty());
}

BOOST_AUTO_TEST_CASE(partition_runs_and_their_replies_take_the_push_channel,
                     *boost::unit_test::timeout(60)) {
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{{"ps", {address()}},
                                                                          {"worker", {address()}}}};
  af::ServerOptions o;
  o.status_port = 0;
  af::Server ps(cluster, "ps", 0, o);
  af::Server worker(cluster, "worker", 0, o);
  auto control_frames = [](const af::Server& s) {
    const std::string body = af::test::http_get(s.status_port(), "/metrics");
    const std::string key =
        "actorflow_pushed_control_frames_received_total{task=\"/job:" + s.job() +
        "/replica:0/task:0\"} ";
    const auto at = body.find(key);
    BOOST_REQUIRE(at != std::string::npos);
    return std::stol(body.substr(at + key.size()));
  };
  af::Graph g;
  af::Variable v, never;
  af::Output waiting;
  {
    auto pin = g.device("/job:ps/task:0");
    v = g.variable(1.0f, {.name = "v"});
    never = g.variable(0.0f, {.name = "never_initialized"});
    af::FIFOQueue q(g, {.capacity = 1, .dtypes = {af::float32}, .shapes = {{}}});
    waiting = q.dequeue()[0];
  }
  auto bump = v.assign_add(g.constant(1.0f));
  af::Session sess(g, worker.target());
  sess.run(v.initializer());
  // A session on the ps opens once the ps is connected to the worker too: replies go to the
  // worker's push port from then on (over CAF before).
  af::Session on_ps(g, ps.target());
  BOOST_TEST(on_ps.run(v.value()).scalar<float>() == 1.0f);
  // Each step runs one partition on the ps (the master is the worker's): its run goes to the
  // ps's push port and its reply (the fetched value) comes back to the worker's before the
  // step ends; the step's cleanup follows its end to the ps's.
  const long ps_before = control_frames(ps), worker_before = control_frames(worker);
  for (int i = 0; i < 5; ++i) BOOST_TEST(sess.run(bump).scalar<float>() == 2.0f + i);
  BOOST_TEST(control_frames(worker) - worker_before == 5);
  BOOST_TEST(control_frames(ps) - ps_before >=
             9);  // 5 runs, and the cleanups of all but maybe the last
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       control_frames(ps) - ps_before < 10 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  BOOST_TEST(control_frames(ps) - ps_before == 10);
  // A failing partition's error comes back the same way, code and message intact.
  try {
    sess.run(never.value());
    BOOST_FAIL("reading an uninitialized variable on the ps succeeded");
  } catch (const af::FailedPreconditionError& e) {
    BOOST_TEST(std::string(e.what()).find("never_initialized") != std::string::npos, e.what());
  }
  BOOST_TEST(control_frames(worker) - worker_before == 6);
  // A pushed run that waits past the step's deadline ends DeadlineExceeded, and the session
  // goes on.
  BOOST_CHECK_THROW(sess.run(waiting, {}, {.timeout_in_ms = 200}), af::DeadlineExceededError);
  BOOST_TEST(sess.run(v.value()).scalar<float>() == 6.0f);
}

BOOST_AUTO_TEST_CASE(tasks_that_start_and_stop_in_order_log_no_alarm,
                     *boost::unit_test::timeout(60)) {
  af::test::LogCapture log;
  af::ClusterSpec spec(std::map<std::string, std::vector<std::string>>{{"ps", {address()}},
                                                                       {"worker", {address()}}});
  auto ps = std::make_unique<af::Server>(spec, "ps", 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the worker starts a little later
  auto worker = std::make_unique<af::Server>(spec, "worker", 0);
  af::Graph g;
  af::Output a;
  {
    auto pin = g.device("/job:ps/task:0");
    a = g.constant(2.0f);
  }
  auto b = a * 3.0f;
  {
    af::Session sess(g, worker->target());
    BOOST_TEST(sess.run(b).scalar<float>() == 6.0f);
    af::Session on_ps(g, ps->target());  // opens once the ps reached the worker too
    BOOST_TEST(on_ps.run(b).scalar<float>() == 6.0f);
  }
  auto alarms = [](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines)
      for (const char* word : {"ip_connect failed", "waiting for", "reconnecting", "lost "})
        if (l.find(word) != std::string::npos) out.push_back(l);
    return out;
  };
  auto started = alarms(log.take());
  BOOST_TEST(started.empty(), "at start: " << (started.empty() ? "" : started.front()));
  // An orderly stop is said once, as a stop; nothing dials the stopped task again.
  worker->stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto lines = log.take();
  int stops = 0;
  for (const auto& l : lines)
    stops +=
        l.find("/job:ps/replica:0/task:0: /job:worker/replica:0/task:0 at") != std::string::npos &&
        l.find(" stopped") != std::string::npos;
  BOOST_TEST(stops == 1);
  auto stopped = alarms(lines);
  BOOST_TEST(stopped.empty(), "at stop: " << (stopped.empty() ? "" : stopped.front()));
  ps->stop();
}

// A cond whose branches run on another task: the dead side crosses the network as dead
// (TensorFlow's RecvTensorResponse.is_dead), and so does a dead control edge.
BOOST_AUTO_TEST_CASE(a_cond_spans_tasks_and_its_dead_side_crosses_them,
                     *boost::unit_test::timeout(60)) {
  ThreeTasks tasks;
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  auto p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), "p");
  af::Output r;
  {
    auto pin = g.device("/job:worker/task:0");
    r = af::cond(
        p,
        [&] {
          auto there = g.device("/job:worker/task:1");
          return x * 2.0f;
        },
        [&] {
          auto there = g.device("/job:ps/task:0");
          return x + g.constant(1.0f);  // the constant waits on switch_f across tasks
        });
  }
  af::Session sess(g, tasks.worker0.target());
  const af::Tensor xv = af::Tensor::from_vector<float>({1.0f, 2.0f});
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(sess.run(r, {{x, xv}, {p, af::Tensor(true)}}).to_vector<float>() ==
               (std::vector<float>{2.0f, 4.0f}));
    BOOST_TEST(sess.run(r, {{x, xv}, {p, af::Tensor(false)}}).to_vector<float>() ==
               (std::vector<float>{2.0f, 3.0f}));
  }
  // Traced: only the taken branch's ops ran, each on its task.
  auto ran = [&](bool taken) {
    af::RunMetadata meta;
    sess.run({r}, {{x, xv}, {p, af::Tensor(taken)}}, {}, {.trace = true}, &meta);
    std::map<std::string, std::string> where;
    for (auto& s : meta.step_stats) where[s.node_name] = s.device;
    return where;
  };
  auto t = ran(true);
  BOOST_TEST(t["cond/mul"].find("/job:worker/replica:0/task:1") == 0u);
  BOOST_TEST(t.count("cond/add") == 0u);
  auto f = ran(false);
  BOOST_TEST(f["cond/add"].find("/job:ps/replica:0/task:0") == 0u);
  BOOST_TEST(f.count("cond/mul") == 0u);
  // The untaken side read on the task it is on (the branch's own ops are not fetchable):
  // TensorFlow's error, and the session goes on.
  af::Output untaken;
  {
    auto there = g.device("/job:worker/task:1");
    untaken = af::identity(g.output("cond/mul"), "untaken");
  }
  BOOST_CHECK_EXCEPTION(sess.run(untaken, {{x, xv}, {p, af::Tensor(false)}}),
                        af::InvalidArgumentError, [](const af::InvalidArgumentError& e) {
                          return std::string(e.what()).find("does not have value") !=
                                 std::string::npos;
                        });
  BOOST_TEST(sess.run(r, {{x, xv}, {p, af::Tensor(true)}}).to_vector<float>() ==
             (std::vector<float>{2.0f, 4.0f}));
}

BOOST_AUTO_TEST_SUITE_END()
