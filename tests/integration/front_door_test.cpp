// A server's front doors against probes, with the server in this process. The CAF port
// (net/src/basp_front_door.hpp): a BASP header claiming 4 GiB, bytes that are not BASP, a
// peer that never shakes hands and a flood of idle connections. The step port
// (step_channel.hpp): a request for an unknown session claiming a 64 MiB body, a peer that
// never sends a request, an idle flood. Each is refused (closed, counted in /metrics) while
// real clients keep running steps, memory stays put and no descriptor leaks.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "http_client.hpp"
#include "pending_waits.hpp"
#include "process_stats.hpp"
#include "wire_session.hpp"

using namespace std::chrono_literals;
using asio::ip::tcp;

namespace {

using af::test::open_descriptors;
using af::test::rss_kib;

std::unique_ptr<tcp::socket> raw_connect(asio::io_context& io, std::uint16_t port) {
  auto s = std::make_unique<tcp::socket>(io);
  s->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

/// True when the server closes `s` within `limit` (whatever it sent before).
bool closed_within(tcp::socket& s, std::chrono::milliseconds limit) {
  timeval tv{};
  tv.tv_sec = 0;
  tv.tv_usec = 100 * 1000;
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const auto until = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  while (std::chrono::steady_clock::now() < until) {
    const auto n = ::recv(s.native_handle(), buf, sizeof buf, 0);
    if (n == 0) return true;  // orderly close
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return true;  // reset
  }
  return false;
}

using af::test::refused_connections;

/// The server's `which` ("step", "bulk") port, from /status.
std::uint16_t port_of(const af::Server& server, const std::string& which) {
  const auto json =
      nlohmann::json::parse(af::test::body_of(af::test::http_get(server.status_port(), "/status")));
  return json.at("ports").at(which).get<std::uint16_t>();
}
std::uint16_t step_port(const af::Server& server) { return port_of(server, "step"); }

void put_u64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>((v >> (8 * i)) & 0xff);
}

/// How soon a real client must be served beside garbage or a flood: far above what a step
/// takes on a loaded machine, well below the handshake deadlines (5 s, 30 s) a server that
/// let the bad peers hold it would keep it waiting for. Not a speed measure (see apps/bench).
constexpr std::chrono::milliseconds kPromptly{4000};

/// A real client: opens a session and runs a step; returns how long the step took.
std::chrono::milliseconds real_step(const af::Server& server) {
  af::Graph g;
  auto c = g.constant(2.0f) * 3.0f;
  const auto start = std::chrono::steady_clock::now();
  af::Session sess(g, server.target(), af::test::over_the_wire());
  BOOST_TEST(sess.run(c).scalar<float>() == 6.0f);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

std::unique_ptr<af::Server> make_server(std::chrono::milliseconds handshake_timeout,
                                        std::size_t max_waiting = 128) {
  af::ServerOptions o;
  o.status_port = 0;
  o.handshake_timeout = handshake_timeout;
  o.max_unauthenticated_connections = max_waiting;
  o.max_message_bytes = 64u << 20;
  return std::make_unique<af::Server>(
      af::ClusterSpec(
          std::map<std::string, std::vector<std::string>>{{"localhost", {"127.0.0.1:0"}}}),
      "localhost", 0, std::move(o));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(front_door_test)

BOOST_AUTO_TEST_CASE(a_basp_header_claiming_four_gigabytes_is_refused_before_anything_is_allocated,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(5000ms);
  real_step(*server);  // warm: the runtime's pools and a first session exist
  const long rss_before = rss_kib();
  asio::io_context io;
  tcp::socket unused(io);  // the io_context's own descriptors come before the count
  unused.open(tcp::v4());
  const std::size_t fds_before = open_descriptors();
  for (int i = 0; i < 3; ++i) {
    auto s = raw_connect(io, server->port());
    // A client handshake header (operation 0x01, no actors) whose payload length is
    // 0xFFFFFFFF: CAF 0.17 alone allocates and zeroes 4 GiB for it.
    unsigned char header[32] = {};
    header[0] = 0x01;
    for (int b = 4; b < 8; ++b) header[b] = 0xff;
    asio::write(*s, asio::buffer(header));
    BOOST_TEST(closed_within(*s, 3000ms));
  }
  BOOST_TEST(refused_connections(server->status_port(), "oversized") == 3);
  BOOST_TEST(real_step(*server) < kPromptly);
  BOOST_TEST(rss_kib() - rss_before < 64 * 1024);
  // The session's own connections at most, once the server has closed the refused ones.
  BOOST_TEST(af::test::eventually([&] { return open_descriptors() <= fds_before + 2; }, 10000ms));
}

BOOST_AUTO_TEST_CASE(
    a_handshake_claiming_more_than_a_handshake_has_is_refused_below_the_message_limit,
    *boost::unit_test::timeout(60)) {
  // Four connections each send a client handshake header claiming 60 MiB, under the 64 MiB
  // message limit: a peer that has not shaken hands may claim only the few KiB a handshake
  // has, so nothing is allocated for them and they are closed at once.
  auto server = make_server(5000ms);
  real_step(*server);
  const long rss_before = rss_kib();
  asio::io_context io;
  std::vector<std::unique_ptr<tcp::socket>> claims;
  for (int i = 0; i < 4; ++i) {
    auto s = raw_connect(io, server->port());
    unsigned char header[32] = {};
    header[0] = 0x01;
    const std::uint32_t claim = 60u << 20;
    for (int b = 0; b < 4; ++b)
      header[4 + b] = static_cast<unsigned char>((claim >> (8 * (3 - b))) & 0xff);
    asio::write(*s, asio::buffer(header));
    claims.push_back(std::move(s));
  }
  for (auto& s : claims) BOOST_TEST(closed_within(*s, 3000ms));
  BOOST_TEST(refused_connections(server->status_port(), "oversized") == 4);
  BOOST_TEST(rss_kib() - rss_before < 16 * 1024);
  BOOST_TEST(real_step(*server) < kPromptly);
}

BOOST_AUTO_TEST_CASE(a_connection_its_peer_closes_before_the_handshake_gives_back_its_descriptor,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(30000ms);
  real_step(*server);
  std::this_thread::sleep_for(200ms);
  asio::io_context io;
  tcp::socket unused(io);  // the io_context's own descriptors come before the count
  unused.open(tcp::v4());
  const std::size_t fds_before = open_descriptors();
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(raw_connect(io, server->port()));
  std::this_thread::sleep_for(300ms);                 // the server accepts them meanwhile
  BOOST_TEST(open_descriptors() >= fds_before + 20);  // ours and the server's ends
  idle.clear();
  // Not held until the handshake deadline (30 s): let go of within a sweep or two.
  BOOST_TEST(af::test::eventually([&] { return open_descriptors() <= fds_before + 1; }, 10000ms));
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_a_basp_handshake_close_the_connection,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(5000ms);
  asio::io_context io;
  auto s = raw_connect(io, server->port());
  const std::string garbage =
      "GET / HTTP/1.1\r\nHost: nothing-here\r\n\r\n";  // 37 bytes: a header and change
  asio::write(*s, asio::buffer(garbage));
  BOOST_TEST(closed_within(*s, 3000ms));
  BOOST_TEST(refused_connections(server->status_port(), "not_basp") == 1);
  BOOST_TEST(real_step(*server) < kPromptly);
}

BOOST_AUTO_TEST_CASE(a_peer_that_never_shakes_hands_is_closed_after_the_timeout,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(300ms);
  asio::io_context io;
  const auto start = std::chrono::steady_clock::now();
  auto s = raw_connect(io, server->port());
  BOOST_TEST(closed_within(*s, 5000ms));
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 250ms));
  BOOST_TEST(refused_connections(server->status_port(), "handshake_timeout") == 1);
  // A real client's handshake takes milliseconds: it is not affected.
  BOOST_TEST(real_step(*server) < kPromptly);
}

BOOST_AUTO_TEST_CASE(an_idle_flood_does_not_lock_out_a_real_client,
                     *boost::unit_test::timeout(120)) {
  auto server = make_server(30000ms, 16);
  real_step(*server);  // warm: the client's own connection to the server exists
  asio::io_context io;
  tcp::socket unused(io);  // the io_context's own descriptors come before the count
  unused.open(tcp::v4());
  const std::size_t fds_before = open_descriptors();
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 300; ++i) idle.push_back(raw_connect(io, server->port()));
  // A client arriving during the flood is served at once.
  BOOST_TEST(real_step(*server) < kPromptly);
  // All but the newest 16 idle connections were closed to make room.
  int closed = 0;
  for (auto& s : idle) closed += closed_within(*s, 20ms) ? 1 : 0;
  BOOST_TEST(closed >= 300 - 16 - 1);
  BOOST_TEST(refused_connections(server->status_port(), "crowded") >= 300 - 16 - 1);
  idle.clear();
  // The server lets go of the idle ones too once their peer closed them (within a few
  // seconds, however loaded the machine); the session's own connections may linger.
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (open_descriptors() > fds_before + 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(50ms);
  BOOST_TEST(open_descriptors() <= fds_before + 2);
}

// -- the step port -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_step_request_for_an_unknown_session_is_answered_and_closed_before_its_body,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(5000ms);
  real_step(*server);
  const long rss_before = rss_kib();
  asio::io_context io;
  auto s = raw_connect(io, step_port(*server));
  // A header for a random token promising a 64 MiB body, and only the first MiB of it.
  unsigned char header[32] = {'A', 'F', 'S', 'T', 'E', 'P', '0', '1'};
  put_u64(header + 8, 7);
  put_u64(header + 16, 0x5eed5eed5eedULL);
  put_u64(header + 24, 64u << 20);
  asio::write(*s, asio::buffer(header));
  std::vector<char> some(1 << 20, 'x');
  std::error_code ec;
  asio::write(*s, asio::buffer(some), ec);  // may fail: the server closes without reading it
  // The reply: call 7, code Aborted, the reason.
  unsigned char reply[24] = {};
  asio::read(*s, asio::buffer(reply), ec);
  BOOST_REQUIRE(!ec);
  BOOST_TEST(reply[0] == 7);
  BOOST_TEST(reply[8] == static_cast<unsigned char>(af::Code::aborted));
  BOOST_TEST(closed_within(*s, 3000ms));
  BOOST_TEST(refused_connections(server->status_port(), "unknown_token", "step") == 1);
  BOOST_TEST(rss_kib() - rss_before < 32 * 1024);
  BOOST_TEST(real_step(*server) < kPromptly);
}

BOOST_AUTO_TEST_CASE(a_step_connection_that_never_sends_a_request_is_closed_after_the_timeout,
                     *boost::unit_test::timeout(60)) {
  auto server = make_server(300ms);
  asio::io_context io;
  auto s = raw_connect(io, step_port(*server));
  BOOST_TEST(closed_within(*s, 5000ms));
  BOOST_TEST(refused_connections(server->status_port(), "handshake_timeout", "step") == 1);
  // A real session's step connection presents its token at once: it stays, and so does the
  // fast path, however long the session waits before its first step.
  af::Graph g;
  auto c = g.constant(1.0f) + 1.0f;
  af::Session sess(g, server->target(), af::test::over_the_wire());
  std::this_thread::sleep_for(600ms);
  BOOST_TEST(sess.run(c).scalar<float>() == 2.0f);
  BOOST_TEST(refused_connections(server->status_port(), "handshake_timeout", "step") == 1);
}

BOOST_AUTO_TEST_CASE(an_idle_flood_on_the_step_port_does_not_lock_out_new_sessions,
                     *boost::unit_test::timeout(120)) {
  auto server = make_server(30000ms, 16);
  const std::uint16_t port = step_port(*server);
  asio::io_context io;
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 300; ++i) idle.push_back(raw_connect(io, port));
  BOOST_TEST(real_step(*server) < kPromptly);
  BOOST_TEST(refused_connections(server->status_port(), "crowded", "step") >= 300 - 16 - 1);
}

// -- the bulk port -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_idle_flood_on_the_bulk_port_does_not_stop_large_fetches,
                     *boost::unit_test::timeout(120)) {
  auto server = make_server(30000ms, 16);
  const std::uint16_t port = port_of(*server, "bulk");
  BOOST_REQUIRE(port != 0);
  asio::io_context io;
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 300; ++i) idle.push_back(raw_connect(io, port));  // the old cap was 256
  // A 4 MiB fetch travels over the bulk port.
  af::Graph g;
  auto big =
      af::fill(g.constant(af::Tensor::from_vector<std::int32_t>({1 << 20})), g.constant(1.5f));
  af::Session sess(g, server->target(), af::test::over_the_wire());
  const auto start = std::chrono::steady_clock::now();
  auto value = sess.run(big);
  BOOST_TEST((std::chrono::steady_clock::now() - start < kPromptly));
  BOOST_TEST(value.num_elements() == (1 << 20));
  BOOST_TEST(value.data<float>()[12345] == 1.5f);
  BOOST_TEST(refused_connections(server->status_port(), "crowded", "bulk") >= 300 - 16 - 1);
  // A first request for a transfer nobody offered is answered and closed.
  auto s = raw_connect(io, port);
  unsigned char request[16] = {'A', 'F', 'B', 'U', 'L', 'K', '0', '2'};
  put_u64(request + 8, 0xabcdefULL);
  asio::write(*s, asio::buffer(request));
  unsigned char reply[64] = {};  // the answer header (bulk_channel.hpp)
  std::error_code ec;
  asio::read(*s, asio::buffer(reply), ec);
  BOOST_TEST(!ec);
  BOOST_TEST(reply[0] == 1);  // unknown transfer
  BOOST_TEST(closed_within(*s, 3000ms));
  BOOST_TEST(refused_connections(server->status_port(), "unknown_transfer", "bulk") == 1);
}

// -- the tensor push port ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(garbage_on_the_push_port_is_refused_and_tensors_still_cross_tasks,
                     *boost::unit_test::timeout(120)) {
  auto addr = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster(
      std::map<std::string, std::vector<std::string>>{{"ps", {addr()}}, {"worker", {addr()}}});
  af::ServerOptions o;
  o.status_port = 0;
  o.handshake_timeout = 500ms;
  af::Server ps(cluster, "ps", 0, o);
  af::Server worker(cluster, "worker", 0);
  const std::uint16_t port = port_of(ps, "push");
  BOOST_REQUIRE(port != 0);
  asio::io_context io;
  // Not the protocol: closed at once.
  auto garbage = raw_connect(io, port);
  asio::write(*garbage, asio::buffer(std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n")));
  BOOST_TEST(closed_within(*garbage, 5000ms));
  // The protocol's hello with a token the server never gave out: closed.
  auto forged = raw_connect(io, port);
  unsigned char hello[16] = {'A', 'F', 'P', 'U', 'S', 'H', '0', '2'};
  put_u64(hello + 8, 0x1234567890abcdefULL);
  asio::write(*forged, asio::buffer(hello));
  BOOST_TEST(closed_within(*forged, 5000ms));
  // Silence: closed after the handshake timeout.
  auto silent = raw_connect(io, port);
  BOOST_TEST(closed_within(*silent, 5000ms));
  BOOST_TEST(refused_connections(ps.status_port(), "not_push", "push") == 1);
  BOOST_TEST(refused_connections(ps.status_port(), "unknown_token", "push") == 1);
  BOOST_TEST(refused_connections(ps.status_port(), "handshake_timeout", "push") == 1);

  // Tensors of a step still cross in both directions, through the push port: a 1 MiB
  // variable on ps is read on the worker and its update comes back.
  af::Graph g;
  auto v = [&] {
    auto pin = g.device("/job:ps/task:0");
    return g.variable(
        af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({1 << 18})), g.constant(1.0f)),
        {.name = "pushed"});
  }();
  af::Output doubled;
  {
    auto pin = g.device("/job:worker/task:0");
    doubled = v.value() * 2.0f;
  }
  auto update = v.assign(doubled);
  af::Session sess(g, worker.target());
  sess.run(v.initializer());
  sess.run(update);
  auto value = sess.run(v.value());
  BOOST_TEST(value.data<float>()[(1 << 18) - 1] == 2.0f);
  const std::string body = af::test::http_get(ps.status_port(), "/metrics");
  const std::string key =
      "actorflow_pushed_tensors_received_total{task=\"/job:ps/replica:0/task:0\"} ";
  const auto at = body.find(key);
  BOOST_REQUIRE(at != std::string::npos);
  BOOST_TEST(std::stol(body.substr(at + key.size())) >= 1);
}

BOOST_AUTO_TEST_CASE(a_push_hello_trickling_in_is_closed_at_its_deadline_from_accept,
                     *boost::unit_test::timeout(60)) {
  // One byte every 100 ms: every byte restarting an idle timer kept such a connection open
  // for as long as the peer liked. The deadline runs from accept.
  auto addr = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster(
      std::map<std::string, std::vector<std::string>>{{"ps", {addr()}}, {"worker", {addr()}}});
  af::ServerOptions o;
  o.status_port = 0;
  o.handshake_timeout = 300ms;
  af::Server ps(cluster, "ps", 0, o);
  const std::uint16_t port = port_of(ps, "push");
  BOOST_REQUIRE(port != 0);
  asio::io_context io;
  auto s = raw_connect(io, port);
  const auto start = std::chrono::steady_clock::now();
  const unsigned char hello[16] = {'A', 'F', 'P', 'U', 'S', 'H', '0', '1', 1, 2, 3, 4, 5, 6, 7, 8};
  bool closed = false;
  for (std::size_t i = 0; i < sizeof hello && !closed; ++i) {
    std::error_code ec;
    asio::write(*s, asio::buffer(hello + i, 1), ec);
    closed = ec || closed_within(*s, 100ms);
  }
  const auto took = std::chrono::steady_clock::now() - start;
  BOOST_TEST(closed);
  BOOST_TEST((took < 1500ms));  // all 16 bytes take 1.6 s
  BOOST_TEST(refused_connections(ps.status_port(), "handshake_timeout", "push") == 1);
}

BOOST_AUTO_TEST_CASE(idle_connections_on_the_push_port_do_not_lose_the_first_cross_task_step,
                     *boost::unit_test::timeout(120)) {
  // 140 idle connections wait on the ps's push port (more than may wait for a hello) when a
  // fresh worker runs its first cross-task step. The worker's connection used to be refused
  // after its frames had been counted as sent: the initializer's value was lost and the step
  // ran into its deadline. Now the push port closes the oldest idle connection instead, and a
  // sender counts a frame only on a connection whose hello was answered.
  auto addr = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster(
      std::map<std::string, std::vector<std::string>>{{"ps", {addr()}}, {"worker", {addr()}}});
  af::ServerOptions o;
  o.status_port = 0;
  o.handshake_timeout = 20s;  // the idle connections outlive the step
  af::Server ps(cluster, "ps", 0, o);
  af::Server worker(cluster, "worker", 0);
  const std::uint16_t port = port_of(ps, "push");
  BOOST_REQUIRE(port != 0);
  asio::io_context io;
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 140; ++i) idle.push_back(raw_connect(io, port));
  std::this_thread::sleep_for(300ms);

  af::Graph g;
  af::Output initial;
  {
    auto pin = g.device("/job:worker/task:0");
    initial = af::fill(g.constant(af::Tensor::from_vector<std::int64_t>({4096})), g.constant(3.0f));
  }
  auto v = [&] {
    auto pin = g.device("/job:ps/task:0");
    return g.variable(initial, {.name = "pushed_initial"});
  }();
  af::Session sess(g, worker.target());
  sess.run({}, {}, {v.initializer()}, {.timeout_in_ms = 10000});
  const af::Tensor value = sess.run({v.value()}, {}, {}, {.timeout_in_ms = 10000})[0];
  BOOST_TEST(value.data<float>()[0] == 3.0f);
  BOOST_TEST(value.data<float>()[4095] == 3.0f);
}

BOOST_AUTO_TEST_SUITE_END()
