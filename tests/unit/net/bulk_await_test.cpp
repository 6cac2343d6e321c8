// Awaits on the bulk port (bulk_channel.hpp): a client names a ticket before its step, the
// step offers its value under it, and the bytes follow the step's settling on the awaiting
// connection; a step that offered nothing answers status 2 and the connection stays usable;
// awaits before a connection has fetched are refused; a parked await ends after the
// time-to-live; a failed step's await connection is closed and the next fetch reconnects.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

#include "../../../net/src/bulk_channel.hpp"

using namespace std::chrono_literals;
using asio::ip::tcp;

namespace {

af::Tensor iota_floats(std::int64_t n, float from = 0.0f) {
  af::Tensor t(af::float32, af::Shape{n});
  std::iota(t.data<float>(), t.data<float>() + n, from);
  return t;
}

/// Runs `job` as a job of `client` on this thread: the job's lock is released when it
/// returns (a job posted to the client's thread may still hold it after its result is
/// set, and an await is sent only while no job runs).
template <class Job>
auto in_job(af::net::BulkClient& client, Job job) {
  decltype(job()) result{};
  client.run_here([&] { result = job(); });
  return result;
}

af::Status fetch(af::net::BulkClient& client, std::uint16_t port, std::uint64_t id,
                 af::Tensor& into) {
  return in_job(client,
                [&] { return client.fetch(port, id, into.raw_data(), into.total_bytes()); });
}

void end_await(af::net::BulkClient& client, std::uint64_t ticket, bool step_ok) {
  in_job(client, [&] {
    client.end_await(ticket, step_ok);
    return 0;
  });
}

/// Sends an await for a fresh ticket: the ticket, or 0 when none was sent.
std::uint64_t await(af::net::BulkClient& client, std::uint16_t port) {
  const std::uint64_t ticket = client.new_ticket();
  return client.await_transfer(port, ticket) ? ticket : 0;
}

/// Waits until `server` has `n` awaits parked (the await request travels on its own).
bool parked(const af::net::BulkServer& server, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server.parked() != n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  return server.parked() == n;
}

/// Waits until `server`'s sender threads hold `n` connections.
bool held(const af::net::BulkServer& server, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server.held() != n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  return server.held() == n;
}

/// A raw connection to the bulk port speaking the protocol by hand.
struct RawPeer {
  asio::io_context io;
  tcp::socket s{io};
  explicit RawPeer(std::uint16_t port) { s.connect({asio::ip::make_address("127.0.0.1"), port}); }
  void send(const char* magic, std::uint64_t id) {
    char request[16];
    std::memcpy(request, magic, 8);
    std::memcpy(request + 8, &id, 8);  // little-endian hosts only run these tests
    asio::write(s, asio::buffer(request));
  }
  /// The answer's status and length (its bytes read and dropped); ~0 when the server closed.
  std::pair<std::uint64_t, std::uint64_t> answer() {
    char header[af::net::kBulkReplyHeaderBytes];
    std::error_code ec;
    asio::read(s, asio::buffer(header), ec);
    if (ec) return {~std::uint64_t{0}, 0};
    std::uint64_t status = 0, length = 0;
    std::memcpy(&status, header, 8);
    std::memcpy(&length, header + 8, 8);
    std::string bytes(length, '\0');
    asio::read(s, asio::buffer(bytes), ec);
    return {status, length};
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(bulk_await_test)

BOOST_AUTO_TEST_CASE(an_await_receives_what_its_step_offers_under_the_ticket,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  // No connection has fetched yet: the server would refuse an await, so none is sent.
  BOOST_TEST(await(client, server.port()) == 0u);
  af::Tensor got(af::float32, af::Shape{1000});
  BOOST_TEST_REQUIRE(fetch(client, server.port(), server.offer(iota_floats(1000)), got).ok());
  BOOST_TEST(held(server, 1));  // its next requests go to the transfer's sender thread
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t ticket = await(client, server.port());
    BOOST_TEST_REQUIRE(ticket != 0u);
    BOOST_TEST_REQUIRE(parked(server, 1));  // the await waits on the server for its step
    auto sent = iota_floats(3 << 18, static_cast<float>(round));  // 3 MiB
    BOOST_TEST(server.offer(sent, ticket) == ticket);
    server.settle(ticket);  // pushed now, with no request of the client's
    BOOST_TEST(server.parked() == 0u);
    BOOST_TEST(server.pending() == 0u);
    af::Tensor value(af::float32, af::Shape{3 << 18});
    auto s = fetch(client, server.port(), ticket, value);
    BOOST_TEST_REQUIRE(s.ok(), s.message());
    BOOST_TEST(std::memcmp(value.raw_data(), sent.raw_data(), sent.total_bytes()) == 0);
    end_await(client, ticket, true);  // nothing left to do: the value was read
  }
}

BOOST_AUTO_TEST_CASE(a_step_that_offered_nothing_answers_its_await_and_the_connection_stays,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  af::Tensor got(af::float32, af::Shape{10});
  BOOST_TEST_REQUIRE(fetch(client, server.port(), server.offer(iota_floats(10)), got).ok());
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t ticket = await(client, server.port());
    BOOST_TEST_REQUIRE(ticket != 0u);
    BOOST_TEST_REQUIRE(parked(server, 1));
    server.settle(ticket);  // the step's values were all small
    BOOST_TEST(parked(server, 0));
    end_await(client, ticket, true);  // its answer, status 2, is read before the next use
    auto sent = iota_floats(10, 7.0f);
    BOOST_TEST_REQUIRE(fetch(client, server.port(), server.offer(sent), got).ok());
    BOOST_TEST((got == sent));
  }
  // A ticket settled before its await arrives: the await is answered at once.
  RawPeer peer(server.port());
  peer.send("AFBULK02", server.offer(iota_floats(4)));
  BOOST_TEST(peer.answer().first == 0u);
  server.settle(777);
  peer.send("AFBULKA2", 777);
  BOOST_TEST(peer.answer().first == 2u);
  // Offered and settled before the await: the value waits in the table for it.
  BOOST_TEST(server.offer(iota_floats(16), 778) == 778u);
  server.settle(778);
  peer.send("AFBULKA2", 778);
  const auto [status, length] = peer.answer();
  BOOST_TEST(status == 0u);
  BOOST_TEST(length == 64u);
  // A wanted id that is taken gets a fresh one.
  BOOST_TEST(server.offer(iota_floats(4), 779) == 779u);
  BOOST_TEST(server.offer(iota_floats(4), 779) != 779u);
}

BOOST_AUTO_TEST_CASE(awaits_wait_only_on_connections_that_fetched_and_only_for_the_ttl,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server", 1000ms);
  {
    // A first request that is an await names nothing offered: answered 1, then closed.
    RawPeer stranger(server.port());
    stranger.send("AFBULKA2", 5);
    BOOST_TEST(stranger.answer().first == 1u);
    BOOST_TEST(stranger.answer().first == ~std::uint64_t{0});  // closed
    BOOST_TEST(server.parked() == 0u);
  }
  RawPeer peer(server.port());
  peer.send("AFBULK02", server.offer(iota_floats(4)));
  BOOST_TEST(peer.answer().first == 0u);
  // A ticket no step settles: the await ends after the time-to-live, with status 1, and
  // the connection keeps serving.
  const auto start = std::chrono::steady_clock::now();
  peer.send("AFBULKA2", 12345);
  BOOST_TEST(parked(server, 1));
  BOOST_TEST(peer.answer().first == 1u);
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 900ms));
  BOOST_TEST(server.parked() == 0u);
  peer.send("AFBULK02", server.offer(iota_floats(4)));
  BOOST_TEST(peer.answer().first == 0u);
}

BOOST_AUTO_TEST_CASE(an_await_on_a_connection_idle_past_the_hold_waits_on_the_io_thread,
                     *boost::unit_test::timeout(30)) {
  // After a transfer a sender thread serves the connection's requests itself for 2 s; then
  // the io thread reads them again, and parks an await until its step settles.
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  af::Tensor got(af::float32, af::Shape{10});
  BOOST_TEST_REQUIRE(fetch(client, server.port(), server.offer(iota_floats(10)), got).ok());
  for (int round = 0; round < 2; ++round) {
    BOOST_TEST(held(server, 1));  // the transfer's sender thread waits for the next request
    std::this_thread::sleep_for(2500ms);
    BOOST_TEST(held(server, 0));  // and after 2 s hands the connection back
    const std::uint64_t ticket = await(client, server.port());
    BOOST_TEST_REQUIRE(ticket != 0u);
    BOOST_TEST_REQUIRE(parked(server, 1));
    auto sent = iota_floats(1 << 18, static_cast<float>(round));  // 1 MiB: a head start and more
    BOOST_TEST(server.offer(sent, ticket) == ticket);
    server.settle(ticket);
    af::Tensor value(af::float32, af::Shape{1 << 18});
    auto s = fetch(client, server.port(), ticket, value);
    BOOST_TEST_REQUIRE(s.ok(), s.message());
    BOOST_TEST((value == sent));
    end_await(client, ticket, true);
  }
}

BOOST_AUTO_TEST_CASE(a_failed_steps_await_is_closed_and_the_next_fetch_connects_again,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  af::Tensor got(af::float32, af::Shape{10});
  BOOST_TEST_REQUIRE(fetch(client, server.port(), server.offer(iota_floats(10)), got).ok());
  const std::uint64_t ticket = await(client, server.port());
  BOOST_TEST_REQUIRE(ticket != 0u);
  BOOST_TEST_REQUIRE(parked(server, 1));
  end_await(client, ticket, false);  // its step failed: the server may never answer it
  auto sent = iota_floats(10, 3.0f);
  auto s = fetch(client, server.port(), server.offer(sent), got);
  BOOST_TEST_REQUIRE(s.ok(), s.message());
  BOOST_TEST((got == sent));
  // The closed connection's await is dropped when its ticket settles.
  server.settle(ticket);
  BOOST_TEST(parked(server, 0));
  // An await whose connection the server closed before answering: the fetch of its ticket
  // asks for the value anew.
  const std::uint64_t next = await(client, server.port());
  BOOST_TEST_REQUIRE(next != 0u);
  BOOST_TEST_REQUIRE(parked(server, 1));
  server.stop();
  s = in_job(client, [&] {
    return client.fetch(server.port(), next, got.raw_data(), got.total_bytes(), 5s, 500ms);
  });
  BOOST_TEST(s.code() == af::Code::unavailable, s.message());
  end_await(client, next, false);
}

BOOST_AUTO_TEST_SUITE_END()
