// A server's status port: /metrics in Prometheus text and /status as JSON, scraped while a
// step waits on a queue; bad requests get an error status and the port keeps serving.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "http_client.hpp"
#include "pending_waits.hpp"
#include "wire_session.hpp"

namespace {

using af::test::body_of;
using af::test::http;
std::string get(std::uint16_t port, const std::string& path) {
  return af::test::http_get(port, path);
}

/// The value of the metric line that starts with `series` (name and labels), or -1.
double metric(const std::string& text, const std::string& series) {
  auto pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 2));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(status_http_test)

BOOST_AUTO_TEST_CASE(metrics_and_status_describe_steps_queues_and_peers,
                     *boost::unit_test::timeout(60)) {
  auto addr = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster(
      std::map<std::string, std::vector<std::string>>{{"ps", {addr()}}, {"worker", {addr()}}});
  af::ServerOptions with_status;
  with_status.status_port = 0;
  af::Server ps(cluster, "ps", 0, with_status);
  af::Server worker(cluster, "worker", 0);
  BOOST_REQUIRE(ps.status_port() != 0);
  BOOST_TEST(worker.status_port() == 0);

  // A queue on ps with 2 elements, a tensor from worker:0 to ps, and a dequeue left waiting.
  af::Graph g;
  af::Output x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  af::FIFOQueue q = [&] {
    auto pin = g.device("/job:ps/task:0");
    return af::FIFOQueue(
        g, {.capacity = 7, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "status_q"});
  }();
  auto enqueue = q.enqueue({x});
  auto dequeue_many = q.dequeue_many(3)[0];
  af::Session on_ps(g, ps.target(), af::test::over_the_wire());  // its bytes are counted
  for (float v : {1.0f, 2.0f}) on_ps.run(enqueue, {{x, af::Tensor(v)}});
  af::Session on_worker(g, worker.target());
  on_worker.run(enqueue, {{x, af::Tensor(3.0f)}});
  on_ps.run(enqueue, {{x, af::Tensor(4.0f)}});
  auto waiting = std::async(std::launch::async, [&] {
    af::RunOptions o;
    o.timeout_in_ms = 20000;
    try {
      return on_ps.run(dequeue_many, {}, o).num_elements();
    } catch (const af::Error&) {
      return std::int64_t{-1};
    }
  });
  // 4 elements, then a dequeue_many(3) takes 3: 1 left. Then one that waits for 3 more
  // (holding the one left, as TensorFlow's waiting dequeue_many does: the size reads 0).
  BOOST_TEST(waiting.get() == 3);
  auto blocked = std::async(std::launch::async, [&] {
    af::RunOptions o;
    o.timeout_in_ms = 20000;
    try {
      return on_ps.run(dequeue_many, {}, o).num_elements();
    } catch (const af::Error&) {
      return std::int64_t{-1};
    }
  });
  // The dequeue reaches the queue: its waiter shows in /metrics.
  BOOST_REQUIRE(af::test::await_waits("dequeue", "status_q"));
  BOOST_REQUIRE(af::test::eventually([&] {
    return metric(
               body_of(get(ps.status_port(), "/metrics")),
               "actorflow_queue_waiters{task=\"/job:ps/replica:0/task:0\",container=\"localhost\","
               "queue=\"status_q\",side=\"dequeue\"}") == 1;
  }));

  auto response = get(ps.status_port(), "/metrics");
  BOOST_TEST(response.rfind("HTTP/1.1 200 OK\r\n", 0) == 0, response);
  BOOST_TEST(response.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  auto text = body_of(response);
  const std::string t = "task=\"/job:ps/replica:0/task:0\"";
  const std::string qs = t + ",container=\"localhost\",queue=\"status_q\"";
  BOOST_TEST(metric(text, "actorflow_steps_total{" + t + "}") >= 4, text);
  BOOST_TEST(metric(text, "actorflow_step_errors_total{" + t + "}") == 0);
  BOOST_TEST(metric(text, "actorflow_open_sessions{" + t + "}") ==
             1);  // on_ps (on_worker's master is worker:0)
  BOOST_TEST(metric(text, "actorflow_queue_size{" + qs + "}") == 0, text);
  BOOST_TEST(metric(text, "actorflow_queue_capacity{" + qs + "}") == 7);
  BOOST_TEST(metric(text, "actorflow_queue_waiters{" + qs + ",side=\"dequeue\"}") == 1);
  BOOST_TEST(metric(text, "actorflow_queue_waiters{" + qs + ",side=\"enqueue\"}") == 0);
  BOOST_TEST(metric(text, "actorflow_peer_bytes_received_total{" + t + ",peer=\"clients\"}") > 0);
  // worker:0's master shipped a partition and the fed value to ps.
  BOOST_TEST(metric(text, "actorflow_peer_bytes_received_total{" + t +
                              ",peer=\"/job:worker/replica:0/task:0\"}") > 0,
             text);
  BOOST_TEST(text.find("# TYPE actorflow_queue_size gauge") != std::string::npos);

  response = get(ps.status_port(), "/status?pretty=1");
  BOOST_TEST(response.find("Content-Type: application/json") != std::string::npos);
  auto j = nlohmann::json::parse(body_of(response));
  BOOST_TEST(j["task"] == "/job:ps/replica:0/task:0");
  BOOST_TEST(j["devices"][0]["name"] == "/job:ps/replica:0/task:0/device:CPU:0");
  BOOST_TEST(j["cluster"]["worker"].size() == 1u);
  BOOST_REQUIRE_MESSAGE(j["queues"].size() == 1u, j.dump());
  BOOST_TEST(j["queues"][0]["name"] == "status_q");
  BOOST_TEST(j["queues"][0]["kind"] == "FIFOQueue");
  BOOST_TEST(j["queues"][0]["size"] == 0);
  BOOST_TEST(j["queues"][0]["pending_dequeues"] == 1);
  BOOST_TEST(j["containers"].contains("localhost"));
  BOOST_TEST(j["peers"].contains("/job:worker/replica:0/task:0"));

  // Feed the waiting dequeue so that it ends.
  for (float v : {5.0f, 6.0f}) on_ps.run(enqueue, {{x, af::Tensor(v)}});
  BOOST_TEST(blocked.get() == 3);
}

BOOST_AUTO_TEST_CASE(bad_requests_get_an_error_and_the_port_keeps_serving,
                     *boost::unit_test::timeout(60)) {
  af::ServerOptions with_status;
  with_status.status_port = 0;
  auto server = af::Server::create_local_server(with_status);
  auto port = server->status_port();
  BOOST_TEST(get(port, "/nope").rfind("HTTP/1.1 404", 0) == 0);
  BOOST_TEST(http(port, "POST /metrics HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 405", 0) == 0);
  BOOST_TEST(http(port, "\x01\x02garbage\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
  BOOST_TEST(http(port, "GET /" + std::string(10000, 'a')).rfind("HTTP/1.1 431", 0) == 0);
  {
    // A client that connects and says nothing is dropped after the request timeout.
    asio::io_context io;
    asio::ip::tcp::socket idle(io);
    idle.connect({asio::ip::make_address("127.0.0.1"), port});
    BOOST_TEST(get(port, "/metrics").rfind("HTTP/1.1 200", 0) == 0);  // served meanwhile
  }
  BOOST_TEST(get(port, "/status").rfind("HTTP/1.1 200", 0) == 0);
  af::ServerOptions bad;
  bad.status_port = 70000;
  BOOST_CHECK_THROW(af::Server::create_local_server(bad), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(connections_over_the_status_ports_limit_are_counted_as_refusals,
                     *boost::unit_test::timeout(60)) {
  af::ServerOptions with_status;
  with_status.status_port = 0;
  auto server = af::Server::create_local_server(with_status);
  const std::uint16_t port = server->status_port();
  asio::io_context io;
  std::vector<std::unique_ptr<asio::ip::tcp::socket>> idle;
  for (int i = 0; i < 66; ++i) {  // the port serves 64 at once: two are closed at once
    auto s = std::make_unique<asio::ip::tcp::socket>(io);
    s->connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    idle.push_back(std::move(s));
  }
  // Wait until the server has closed two of them (a read ends with eof), then free the port.
  auto closed_by_server = [&] {
    int closed = 0;
    for (auto& s : idle) {
      s->non_blocking(true);
      char byte;
      asio::error_code ec;
      s->read_some(asio::buffer(&byte, 1), ec);
      if (ec == asio::error::eof || ec == asio::error::connection_reset) ++closed;
    }
    return closed;
  };
  BOOST_REQUIRE(af::test::eventually([&] { return closed_by_server() >= 2; }));
  BOOST_TEST(closed_by_server() == 2);
  idle.clear();
  const std::string text = body_of(get(port, "/metrics"));
  BOOST_TEST(metric(text,
                    "actorflow_refused_connections_total{task=\"/job:localhost/replica:0/"
                    "task:0\",port=\"status\","
                    "reason=\"full\"}") == 2.0,
             text);
}

BOOST_AUTO_TEST_CASE(tensors_between_two_workers_go_straight_from_one_to_the_other,
                     *boost::unit_test::timeout(60)) {
  // The master is worker:0; a tensor produced on ps:0 for worker:1 goes ps -> worker:1 without
  // passing through worker:0 (the status ports count each task's bytes per peer).
  auto addr = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"ps", {addr()}}, {"worker", {addr(), addr()}}});
  af::ServerOptions with_status;
  with_status.status_port = 0;
  af::Server ps(cluster, "ps", 0, with_status);
  af::Server worker0(cluster, "worker", 0, with_status);
  af::Server worker1(cluster, "worker", 1, with_status);
  af::Graph g;
  af::Output big, sum;
  {
    auto pin = g.device("/job:ps/task:0");
    big = af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({1 << 18})),
                   g.constant(1.0f));  // 1 MiB
  }
  {
    auto pin = g.device("/job:worker/task:1");
    sum = af::reduce_sum(big);
  }
  // Opening a session on ps:0 waits until ps:0 reaches every task (it may still be
  // connecting to worker:1; unconnected, it would route back through the master's proxy).
  af::Graph empty;
  af::Session on_ps(empty, ps.target());
  af::Session sess(g, worker0.target());
  BOOST_TEST(sess.run(sum).scalar<float>() == static_cast<float>(1 << 18));
  auto ps_metrics = body_of(get(ps.status_port(), "/metrics"));
  auto w0_metrics = body_of(get(worker0.status_port(), "/metrics"));
  const std::string ps_task = "task=\"/job:ps/replica:0/task:0\"";
  const std::string w0_task = "task=\"/job:worker/replica:0/task:0\"";
  BOOST_TEST(metric(ps_metrics, "actorflow_peer_bytes_sent_total{" + ps_task +
                                    ",peer=\"/job:worker/replica:0/task:1\"}") > 4.0 * (1 << 18),
             ps_metrics);
  // worker:0 (the master) forwarded none of those bytes.
  BOOST_TEST(metric(w0_metrics, "actorflow_peer_bytes_sent_total{" + w0_task +
                                    ",peer=\"/job:worker/replica:0/task:1\"}") < 4.0 * (1 << 18),
             w0_metrics);
}

BOOST_AUTO_TEST_SUITE_END()
