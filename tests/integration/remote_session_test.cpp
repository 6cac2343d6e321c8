// caf:// sessions against a Server in this process, over the middleman on loopback:
// the chapter's "Opening a Session" and "Sharing State Across Sessions Using Resource
// Containers" (simple_client), reset, errors and a stopped server. These sessions take the
// network path (`use_local_master = false`), as a client in another process does; the last
// cases check the local master that sessions take by default.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <future>
#include <random>

#include "http_client.hpp"
#include "pending_waits.hpp"
#include "wire_session.hpp"

using af::test::over_the_wire;

BOOST_AUTO_TEST_SUITE(remote_session_test)

BOOST_AUTO_TEST_CASE(a_remote_session_evaluates_on_the_servers_devices,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  BOOST_TEST(server->target().rfind("caf://127.0.0.1:", 0) == 0);
  BOOST_TEST(server->port() != 0);
  af::Graph g;
  auto a = g.constant(1.0f);
  auto b = a + 2.0f;
  auto c = a * 3.0f;
  af::Session sess(g, server->target(), over_the_wire());
  BOOST_TEST(sess.run(c).scalar<float>() == 3.0f);
  BOOST_TEST(sess.run(b).scalar<float>() == 3.0f);
  auto devices = sess.list_devices();
  BOOST_REQUIRE(!devices.empty());
  BOOST_TEST(devices[0].name == "/job:localhost/replica:0/task:0/device:CPU:0");
  // The graph may grow after the session opened: new nodes travel with the next step.
  auto x = g.placeholder(af::float32, af::PartialShape{-1});
  auto y = x * 2.0f + c;
  auto out = sess.run(y, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f})}});
  BOOST_TEST(out.to_vector<float>() == (std::vector<float>{5.0f, 7.0f}));
}

BOOST_AUTO_TEST_CASE(the_clients_allow_soft_placement_reaches_the_servers_placer,
                     *boost::unit_test::timeout(60)) {
  // As TensorFlow's CreateSession carries the client's ConfigProto to the master: a node
  // pinned to a GPU no server has fails the step, unless the client allows soft placement.
  auto server = af::Server::create_local_server();
  af::Graph g;
  af::Output c;
  {
    auto pinned = g.device("/device:GPU:7");
    c = g.constant(2.0f) * 3.0f;
  }
  {
    af::Session strict(g, server->target(), over_the_wire());
    BOOST_CHECK_EXCEPTION(
        strict.run(c), af::InvalidArgumentError, [](const af::InvalidArgumentError& e) {
          return std::string(e.what()).find("Cannot assign a device") != std::string::npos;
        });
  }
  auto config = over_the_wire();
  config.allow_soft_placement = true;
  af::Session soft(g, server->target(), config);
  BOOST_TEST(soft.run(c).scalar<float>() == 6.0f);
}

BOOST_AUTO_TEST_CASE(variables_live_on_the_server_not_in_sessions, *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  // simple_client.py, run twice: "init" the first time.
  auto simple_client = [&](bool init) {
    af::Graph g;
    auto x = g.variable(0.0f, {.name = "x"});
    auto increment_x = x.assign(x.value() + 1.0f);
    af::Session sess(g, server->target(), over_the_wire());
    if (init) sess.run(x.initializer());
    sess.run(increment_x);
    return sess.run(x.value()).scalar<float>();
  };
  BOOST_TEST(simple_client(true) == 1.0f);
  BOOST_TEST(simple_client(false) == 2.0f);
  // Session.reset frees the default container: x must be initialized again.
  af::Session::reset(server->target(), {""});
  BOOST_CHECK_THROW(simple_client(false), af::FailedPreconditionError);
  BOOST_TEST(simple_client(true) == 1.0f);
}

BOOST_AUTO_TEST_CASE(a_server_started_again_in_the_process_starts_empty,
                     *boost::unit_test::timeout(60)) {
  // Shared queues live with their server: one started later under the same task name
  // (as a restarted process would be) does not see the stopped one's queue.
  auto size_after_enqueue = [](af::Server& server) {
    af::Graph g;
    af::FIFOQueue q(
        g, {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "restart_q"});
    auto enqueue = q.enqueue({g.constant(1.0f)});
    af::Session sess(g, server.target(), over_the_wire());
    sess.run(enqueue);
    return sess.run(q.size()).scalar<std::int32_t>();
  };
  auto first = af::Server::create_local_server();
  BOOST_TEST(size_after_enqueue(*first) == 1);
  BOOST_TEST(size_after_enqueue(*first) == 2);  // the same server keeps its queue
  first->stop();
  first.reset();
  auto second = af::Server::create_local_server();
  BOOST_TEST(size_after_enqueue(*second) == 1);
}

BOOST_AUTO_TEST_CASE(containers_are_reset_one_by_one, *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  af::Graph g;
  af::Variable v1, v2;
  {
    auto scope = g.container("my_problem_1");
    v1 = g.variable(10.0f, {.name = "v"});
  }
  v2 = g.variable(20.0f, {.name = "w"});
  {
    af::Session sess(g, server->target(), over_the_wire());
    sess.run(g.global_variables_initializer());
  }
  af::Session::reset(server->target(), {"my_problem_1"});
  af::Session sess(g, server->target(), over_the_wire());
  BOOST_TEST(sess.run(v2.value()).scalar<float>() == 20.0f);
  BOOST_CHECK_THROW(sess.run(v1.value()), af::FailedPreconditionError);
}

BOOST_AUTO_TEST_CASE(errors_on_the_server_reach_the_client_with_their_type,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{});
  auto y = x + 1.0f;
  af::Session sess(g, server->target(), over_the_wire());
  try {
    sess.run(y);
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("Placeholder") != std::string::npos);
  }
  BOOST_TEST(sess.run(y, {{x, af::Tensor(1.0f)}}).scalar<float>() == 2.0f);
  // Pinned to a task this cluster does not have: the placer's error, naming the spec.
  af::Output z;
  {
    auto on_ps = g.device("/job:ps/task:0");
    z = g.constant(1.0f) * 2.0f;
  }
  try {
    sess.run(z);
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("'/job:ps/task:0'") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_closed_or_unreachable_server_is_an_error_not_a_hang,
                     *boost::unit_test::timeout(60)) {
  af::Graph empty;
  BOOST_CHECK_THROW(af::Session(empty, "caf://127.0.0.1:1"), af::UnavailableError);
  BOOST_CHECK_THROW(af::Session(empty, "grpc://127.0.0.1:1"), af::UnimplementedError);
  BOOST_CHECK_THROW(af::Session(empty, "caf://nohostport"), af::InvalidArgumentError);
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto c = g.constant(3.0f);
  af::Session sess(g, server->target(), over_the_wire());
  BOOST_TEST(sess.run(c).scalar<float>() == 3.0f);
  BOOST_TEST(!server->join_for(
      std::chrono::milliseconds(50)));  // still serving: the deadline ends the wait
  server->stop();
  BOOST_TEST(server->join_for(std::chrono::seconds(10)));
  server->join();
  BOOST_CHECK_THROW(sess.run(c), af::Error);
}

BOOST_AUTO_TEST_CASE(garbage_on_the_servers_port_leaves_it_serving,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  asio::io_context io;
  auto send_raw = [&](const std::string& bytes) {
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), server->port()});
    asio::error_code ec;
    asio::write(socket, asio::buffer(bytes), ec);
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  };
  std::mt19937 rng(7);
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng());
  send_raw(noise);                                // random bytes
  send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");  // another protocol
  send_raw(std::string(16, '\xff'));              // a truncated header
  std::string oversized(32, '\0');                // a BASP-sized header claiming ~4 GiB
  for (int i = 4; i < 8; ++i) oversized[static_cast<std::size_t>(i)] = '\xff';
  send_raw(oversized);
  af::Graph g;
  auto c = g.constant(4.0f) * 2.0f;
  af::Session sess(g, server->target(), over_the_wire());
  BOOST_TEST(sess.run(c).scalar<float>() == 8.0f);
}

BOOST_AUTO_TEST_CASE(large_fetches_arrive_intact_beside_small_ones,
                     *boost::unit_test::timeout(60)) {
  // Tensors of 1 MiB and more travel over the server's bulk port, the rest in the reply.
  auto server = af::Server::create_local_server();
  af::Graph g;
  const std::int64_t n = 3 << 20;  // 12 MiB of floats
  auto x = g.placeholder(af::float32, af::PartialShape{-1});
  auto big = x * 2.0f;
  auto v =
      g.variable(af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({n})), g.constant(0.5f)),
                 {.name = "big"});
  auto small = af::reduce_sum(x);
  af::Session sess(g, server->target(), over_the_wire());
  sess.run(v.initializer());
  std::vector<float> input(1 << 19);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 1000);
  for (int round = 0; round < 3; ++round) {
    auto out = sess.run({big, v.value(), small}, {{x, af::Tensor::from_vector<float>(input)}});
    BOOST_REQUIRE(out.size() == 3u);
    auto doubled = out[0].to_vector<float>();
    BOOST_REQUIRE(doubled.size() == input.size());
    bool same = true;
    for (std::size_t i = 0; i < input.size(); ++i) same = same && doubled[i] == 2.0f * input[i];
    BOOST_TEST(same);
    BOOST_REQUIRE(out[1].num_elements() == n);
    const float* p = out[1].data<float>();
    BOOST_TEST((p[0] == 0.5f && p[n / 2] == 0.5f && p[n - 1] == 0.5f));
    BOOST_TEST(out[2].scalar<float>() > 0.0f);
  }
}

BOOST_AUTO_TEST_CASE(a_fetch_that_turns_small_or_fails_keeps_the_bulk_port_in_step,
                     *boost::unit_test::timeout(60)) {
  // A waited step whose fetches were large last time awaits its value on the bulk port
  // before it runs (bulk_channel.hpp): the step may then fetch only small values, or fail,
  // and the next large fetch still gets its own bytes.
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1});
  auto shape = g.placeholder(af::int64, af::PartialShape{1});
  auto y = af::reshape(x, shape) * 2.0f;
  af::Session sess(g, server->target(), over_the_wire());
  const auto run = [&](std::int64_t n, std::int64_t reshaped, float from) {
    std::vector<float> input(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = from + static_cast<float>(i % 977);
    return sess.run(y, {{x, af::Tensor::from_vector<float>(input)},
                        {shape, af::Tensor::from_vector<std::int64_t>({reshaped})}});
  };
  const auto check = [](const af::Tensor& out, std::int64_t n, float from) {
    BOOST_REQUIRE(out.num_elements() == n);
    const float* p = out.data<float>();
    bool same = true;
    for (std::int64_t i = 0; i < n; ++i)
      same = same && p[i] == 2.0f * (from + static_cast<float>(i % 977));
    BOOST_TEST(same);
  };
  const std::int64_t large = 1 << 19, small = 100;  // 2 MiB: over the bulk port
  for (float round : {0.0f, 1.0f, 2.0f}) {
    check(run(large, large, round), large, round);          // awaited from the second round on
    check(run(small, small, round), small, round);          // awaited; answered "nothing offered"
    check(run(large, large, round + 5), large, round + 5);  // a plain request: forecast reset
    BOOST_CHECK_THROW(run(large, large + 1, round), af::Error);  // its await is closed
    check(run(large, large, round + 9), large, round + 9);       // a plain request again
  }
}

BOOST_AUTO_TEST_CASE(resetting_the_server_cancels_a_blocked_dequeue,
                     *boost::unit_test::timeout(60)) {
  // As TensorFlow: Session.reset closes the server's sessions; a step blocked in a dequeue
  // ends with Cancelled ("was cancelled"), later steps of that session with Aborted.
  auto server = af::Server::create_local_server();
  af::Graph g;
  af::FIFOQueue q(
      g,
      {.capacity = 4, .dtypes = {af::float32}, .shapes = {{}}, .shared_name = "reset_blocked_q"});
  auto dequeue = q.dequeue()[0];
  af::Session sess(g, server->target(), over_the_wire());
  sess.run(q.size());
  auto blocked = std::async(std::launch::async, [&]() -> std::string {
    try {
      sess.run(dequeue);
      return "no error";
    } catch (const af::CancelledError& e) {
      return e.what();
    }
  });
  BOOST_TEST((blocked.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout));
  BOOST_REQUIRE(af::test::await_waits("dequeue", "reset_blocked_q"));
  af::Session::reset(server->target(), {});
  BOOST_REQUIRE((blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready));
  const std::string message = blocked.get();
  BOOST_TEST(message.find("was cancelled") != std::string::npos, message);
  BOOST_CHECK_THROW(sess.run(q.size()), af::AbortedError);
}

BOOST_AUTO_TEST_CASE(a_feed_too_large_for_the_step_channel_goes_over_caf,
                     *boost::unit_test::timeout(120)) {
  // The step channel takes requests up to 64 MiB; a larger one (a 72 MiB feed) is not sent
  // there (the server would refuse it) but over CAF, and the session keeps its step channel.
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1});
  auto total = af::reduce_sum(x);
  af::Session sess(g, server->target(), over_the_wire());
  const std::int64_t n = 18 << 20;
  af::Tensor feed(af::float32, af::Shape{n});
  std::fill(feed.data<float>(), feed.data<float>() + n, 0.0f);
  feed.data<float>()[0] = 1.0f;
  feed.data<float>()[n - 1] = 2.0f;
  BOOST_TEST(sess.run(total, {{x, feed}}).scalar<float>() == 3.0f);
  BOOST_TEST(sess.run(total, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f})}}).scalar<float>() ==
             3.0f);
}

BOOST_AUTO_TEST_CASE(a_traced_remote_step_returns_the_servers_step_stats,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto a = g.constant(1.0f, "a");
  auto b = af::add(a, g.constant(2.0f), "b");
  af::Session sess(g, server->target(), over_the_wire());
  af::RunMetadata meta;
  BOOST_TEST(sess.run({b}, {}, {}, {.trace = true}, &meta)[0].scalar<float>() == 3.0f);
  bool saw_b = false;
  for (auto& s : meta.step_stats) {
    saw_b |= s.node_name == "b" && s.op == "Add";
    BOOST_TEST(s.device == "/job:localhost/replica:0/task:0/device:CPU:0");
  }
  BOOST_TEST(saw_b);
  BOOST_TEST(meta.chrome_trace().find("/job:localhost/replica:0/task:0") != std::string::npos);
}

// -- the local master ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_session_on_a_server_of_this_process_runs_steps_on_its_master_directly,
                     *boost::unit_test::timeout(60)) {
  af::ServerOptions with_status;
  with_status.status_port = 0;
  auto server = af::Server::create_local_server(with_status);
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1}, "x");
  auto v = g.variable(
      af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({1 << 20})), g.constant(0.5f)),
      {.name = "big"});
  auto doubled = x * 2.0f;
  af::Session sess(g, server->target());
  sess.run(v.initializer());
  std::vector<float> input(1 << 18, 3.0f);
  auto out = sess.run({doubled, v.value()}, {{x, af::Tensor::from_vector<float>(input)}});
  BOOST_TEST(out[0].num_elements() == (1 << 18));
  BOOST_TEST(out[0].data<float>()[12345] == 6.0f);
  BOOST_TEST(out[1].data<float>()[(1 << 20) - 1] == 0.5f);
  // The graph may grow between steps, as over the network.
  auto sum = af::reduce_sum(doubled);
  BOOST_TEST(sess.run(sum, {{x, af::Tensor::from_vector<float>({1.0f, 2.0f})}}).scalar<float>() ==
             6.0f);
  // The steps ran on the server, and no byte of them crossed the step channel or bulk port.
  auto text = af::test::http_get(server->status_port(), "/metrics");
  const std::string t = "{task=\"/job:localhost/replica:0/task:0\"";
  BOOST_TEST(text.find("actorflow_steps_total" + t + "} 3\n") != std::string::npos, text);
  BOOST_TEST(text.find("actorflow_peer_bytes_received_total" + t + ",peer=\"clients\"} 0\n") !=
                 std::string::npos,
             text);
  // Errors are the server's, as over the network.
  BOOST_CHECK_THROW(sess.run(doubled), af::InvalidArgumentError);  // x is not fed
  sess.close();
  BOOST_CHECK_THROW(sess.run(sum, {{x, af::Tensor::from_vector<float>({1.0f})}}),
                    af::FailedPreconditionError);
}

BOOST_AUTO_TEST_CASE(a_local_session_whose_server_stopped_fails_instead_of_waiting,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  af::Graph g;
  auto c = g.constant(2.0f) * 4.0f;
  af::Session sess(g, server->target());
  BOOST_TEST(sess.run(c).scalar<float>() == 8.0f);
  server->stop();
  BOOST_CHECK_THROW(sess.run(c), af::Error);
}

BOOST_AUTO_TEST_SUITE_END()
