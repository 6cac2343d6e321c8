// The bulk side channel for large fetched tensors: bytes arrive intact over one reused
// connection, after a 64-byte header; unknown, collected or expired transfers are DataLoss;
// garbage on the port closes only that connection; a stopped server is Unavailable, never a
// hang; a job run on the caller's thread never runs beside a posted one.
#include "../../../net/src/bulk_channel.hpp"

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <array>
#include <asio.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstring>
#include <future>
#include <numeric>
#include <thread>

using namespace std::chrono_literals;

namespace {

af::Tensor iota_floats(std::int64_t n) {
  af::Tensor t(af::float32, af::Shape{n});
  std::iota(t.data<float>(), t.data<float>() + n, 0.0f);
  return t;
}

/// Fetches `id` on the client's own thread and waits for the result.
af::Status fetch(af::net::BulkClient& client, std::uint16_t port, std::uint64_t id,
                 af::Tensor& into, std::chrono::milliseconds stall = 5s) {
  std::promise<af::Status> done;
  client.post(
      [&] { done.set_value(client.fetch(port, id, into.raw_data(), into.total_bytes(), stall)); });
  return done.get_future().get();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bulk_channel_test)

BOOST_AUTO_TEST_CASE(offered_tensors_arrive_intact_over_one_connection,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  for (std::int64_t n : {1, 1000, 3 << 20}) {
    auto sent = iota_floats(n);
    auto id = server.offer(sent);
    BOOST_TEST(server.pending() == 1u);
    af::Tensor got(af::float32, af::Shape{n});
    auto s = fetch(client, server.port(), id, got);
    BOOST_TEST_REQUIRE(s.ok(), s.message());
    BOOST_TEST(std::memcmp(got.raw_data(), sent.raw_data(), sent.total_bytes()) == 0);
    BOOST_TEST(server.pending() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(unknown_collected_and_expired_transfers_are_data_loss,
                     *boost::unit_test::timeout(30)) {
  // `server` keeps a transfer a minute (longer than a loaded machine's scheduling delays);
  // `sweeping` only 50 ms, for the expiry.
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkServer sweeping("127.0.0.1", "test server", 50ms);
  af::net::BulkClient client("127.0.0.1", "test client");
  af::Tensor got(af::float32, af::Shape{4});
  auto s = fetch(client, server.port(), 42, got);
  BOOST_TEST(s.code() == af::Code::data_loss);
  BOOST_TEST(s.message().find("unknown to the server") != std::string::npos, s.message());
  auto id = server.offer(iota_floats(4));
  BOOST_TEST(fetch(client, server.port(), id, got).ok());
  BOOST_TEST(fetch(client, server.port(), id, got).code() ==
             af::Code::data_loss);  // collected once only
  auto expired = sweeping.offer(iota_floats(4));
  BOOST_TEST(sweeping.pending() == 1u);
  // Nobody collects it and nothing else is offered: the server's sweep frees it anyway.
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (sweeping.pending() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  BOOST_TEST(sweeping.pending() == 0u);
  BOOST_TEST(fetch(client, sweeping.port(), expired, got).code() == af::Code::data_loss);
  // A size other than the one the reply announced is refused.
  auto mismatched = server.offer(iota_floats(8));
  s = fetch(client, server.port(), mismatched, got);
  BOOST_TEST(s.code() == af::Code::data_loss);
  BOOST_TEST(s.message().find("expected 16") != std::string::npos, s.message());
}

BOOST_AUTO_TEST_CASE(garbage_on_the_bulk_port_closes_that_connection_only,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  asio::io_context io;
  // "AFBULK01": a client of the protocol's first version (16-byte answer headers) is closed
  // on, not answered in a header it would misread; it falls back to CAF.
  for (std::string garbage :
       {std::string("GET / HTTP/1.1\r\n\r\n"), std::string(16, '\0'), std::string("AFBULK0"),
        std::string("AFBULK01") + std::string(8, '\1'), std::string(1 << 16, 'x')}) {
    asio::ip::tcp::socket s(io);
    s.connect({asio::ip::make_address("127.0.0.1"), server.port()});
    std::error_code ec;
    asio::write(s, asio::buffer(garbage), ec);
    s.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
    char buf[64];
    std::size_t n = 0;
    for (;;) {  // the server closes without a reply
      auto k = s.read_some(asio::buffer(buf), ec);
      if (ec) break;
      n += k;
    }
    BOOST_TEST(n == 0u);
  }
  af::net::BulkClient client("127.0.0.1", "test client");
  auto sent = iota_floats(100);
  af::Tensor got(af::float32, af::Shape{100});
  BOOST_TEST(fetch(client, server.port(), server.offer(sent), got).ok());
  BOOST_TEST((got == sent));
}

BOOST_AUTO_TEST_CASE(an_offer_is_handed_out_once_either_way, *boost::unit_test::timeout(30)) {
  // take() is the CAF path's way to an offer: it and the bulk port share each offer once.
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  auto sent = iota_floats(1000);
  auto id = server.offer(sent);
  auto taken = server.take(id);
  BOOST_TEST_REQUIRE(taken.has_value());
  BOOST_TEST(std::memcmp(taken->raw_data(), sent.raw_data(), sent.total_bytes()) == 0);
  BOOST_TEST(!server.take(id).has_value());
  af::Tensor got(af::float32, af::Shape{1000});
  BOOST_TEST(fetch(client, server.port(), id, got).code() == af::Code::data_loss);
  auto fetched = server.offer(sent);
  BOOST_TEST(fetch(client, server.port(), fetched, got).ok());
  BOOST_TEST(!server.take(fetched).has_value());
  BOOST_TEST(!server.take(12345).has_value());
}

BOOST_AUTO_TEST_CASE(a_port_that_never_answers_is_unavailable_after_the_answer_wait,
                     *boost::unit_test::timeout(30)) {
  // A listening socket nobody accepts on (a server out of descriptors): the request sits in
  // its backlog. The fetch gives up after its answer wait, not after the 30 s stall time.
  asio::io_context io;
  asio::ip::tcp::acceptor backlog(io, {asio::ip::make_address("127.0.0.1"), 0});
  af::net::BulkClient client("127.0.0.1", "test client");
  af::Tensor got(af::float32, af::Shape{4});
  std::promise<af::Status> done;
  const auto start = std::chrono::steady_clock::now();
  client.post([&] {
    done.set_value(client.fetch(backlog.local_endpoint().port(), 1, got.raw_data(),
                                got.total_bytes(), 30s, 300ms));
  });
  auto s = done.get_future().get();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  BOOST_TEST(s.code() == af::Code::unavailable, s.message());
  BOOST_TEST(took.count() >= 290);
  BOOST_TEST(took.count() < 5000);
}

BOOST_AUTO_TEST_CASE(a_stopped_server_is_unavailable, *boost::unit_test::timeout(30)) {
  auto server = std::make_unique<af::net::BulkServer>("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  auto port = server->port();
  af::Tensor got(af::float32, af::Shape{4});
  BOOST_TEST(fetch(client, port, server->offer(iota_floats(4)), got).ok());
  auto id = server->offer(iota_floats(4));
  server.reset();
  auto s = fetch(client, port, id, got, 2s);
  BOOST_TEST(s.code() == af::Code::unavailable, s.message());
}

BOOST_AUTO_TEST_CASE(the_answer_header_is_64_bytes_so_tensor_bytes_stay_cache_line_aligned,
                     *boost::unit_test::timeout(30)) {
  // Status, length and zero padding: the tensor's bytes start 64 bytes into the stream (the
  // kernel's copies run at full speed only then), an unknown transfer gets the header alone.
  af::net::BulkServer server("127.0.0.1", "test server");
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), server.port()});
  auto sent = iota_floats(1001);  // 4,004 bytes: not a multiple of 64
  auto ask = [&](std::uint64_t id) {
    char request[16];
    std::memcpy(request, "AFBULK02", 8);
    std::memcpy(request + 8, &id, 8);  // little-endian, as on x86
    asio::write(s, asio::buffer(request));
    std::array<unsigned char, af::net::kBulkReplyHeaderBytes> header{};
    asio::read(s, asio::buffer(header));
    return header;
  };
  auto header = ask(server.offer(sent));
  BOOST_TEST(header.size() == 64u);
  std::uint64_t status = 1, length = 0;
  std::memcpy(&status, header.data(), 8);
  std::memcpy(&length, header.data() + 8, 8);
  BOOST_TEST(status == 0u);
  BOOST_TEST(length == sent.total_bytes());
  BOOST_TEST(
      std::all_of(header.begin() + 16, header.end(), [](unsigned char b) { return b == 0; }));
  af::Tensor got(af::float32, af::Shape{1001});
  asio::read(s, asio::buffer(got.raw_data(), got.total_bytes()));
  BOOST_TEST((got == sent));
  header = ask(4242);  // the same connection, a transfer never offered
  std::memcpy(&status, header.data(), 8);
  std::memcpy(&length, header.data() + 8, 8);
  BOOST_TEST(status == 1u);
  BOOST_TEST(length == 0u);
  header = ask(server.offer(sent));  // and the connection still serves
  std::memcpy(&status, header.data(), 8);
  BOOST_TEST(status == 0u);
  asio::read(s, asio::buffer(got.raw_data(), got.total_bytes()));
  BOOST_TEST((got == sent));
}

BOOST_AUTO_TEST_CASE(run_here_runs_on_the_caller_and_never_beside_another_job,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client");
  std::atomic<int> running{0}, most{0};
  auto enter = [&] {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
  };
  std::promise<void> started;
  client.post([&] {
    enter();
    started.set_value();
    std::this_thread::sleep_for(200ms);  // run_here must wait for this job to end
    --running;
  });
  started.get_future().wait();
  std::thread::id ran_on;
  auto sent = iota_floats(3 << 18);
  af::Tensor got(af::float32, af::Shape{3 << 18});
  af::Status s;
  client.run_here([&] {
    enter();
    ran_on = std::this_thread::get_id();
    s = client.fetch(server.port(), server.offer(sent), got.raw_data(), got.total_bytes());
    --running;
  });
  BOOST_TEST(ran_on == std::this_thread::get_id());
  BOOST_TEST(most.load() == 1);
  BOOST_TEST_REQUIRE(s.ok(), s.message());
  BOOST_TEST((got == sent));
  // The connection run_here opened serves posted jobs too.
  BOOST_TEST(fetch(client, server.port(), server.offer(sent), got).ok());
  BOOST_TEST((got == sent));
  // A posted job that runs a job here (a callback running a step of the same session)
  // runs it at once, on the client's thread.
  std::promise<bool> nested;
  client.post([&] {
    const auto outer = std::this_thread::get_id();
    bool same = false;
    client.run_here([&] { same = std::this_thread::get_id() == outer; });
    nested.set_value(same);
  });
  auto nested_done = nested.get_future();
  BOOST_REQUIRE((nested_done.wait_for(10s) == std::future_status::ready));
  BOOST_TEST(nested_done.get());
}

BOOST_AUTO_TEST_CASE(landing_buffers_of_dropped_tensors_are_reused_then_freed_when_idle,
                     *boost::unit_test::timeout(30)) {
  af::net::BulkServer server("127.0.0.1", "test server");
  af::net::BulkClient client("127.0.0.1", "test client", 200ms);
  const std::int64_t n = 1 << 20;  // 4 MiB
  auto first = client.landing_tensor(af::float32, af::Shape{n});
  const void* first_buffer = first.raw_data();
  BOOST_TEST(fetch(client, server.port(), server.offer(iota_floats(n)), first).ok());
  BOOST_TEST((first == iota_floats(n)));
  // Still held: a second landing tensor gets other memory and the first keeps its values.
  auto second = client.landing_tensor(af::float32, af::Shape{n});
  BOOST_TEST(second.raw_data() != first_buffer);
  std::memset(second.raw_data(), 0, second.total_bytes());
  BOOST_TEST((first == iota_floats(n)));
  BOOST_TEST(client.landing_pool_bytes() == 0u);
  first = af::Tensor();
  BOOST_TEST(client.landing_pool_bytes() == static_cast<std::size_t>(n) * 4);
  // Dropped: the next fetch of the same size (or a little smaller) lands in it.
  auto third = client.landing_tensor(af::float32, af::Shape{n - 100});
  BOOST_TEST(third.raw_data() == first_buffer);
  BOOST_TEST(third.num_elements() == n - 100);
  BOOST_TEST(client.landing_pool_bytes() == 0u);
  // Much smaller requests do not take a big buffer.
  third = af::Tensor();
  auto small = client.landing_tensor(af::float32, af::Shape{1000});
  BOOST_TEST(small.raw_data() != first_buffer);
  small = af::Tensor();
  second = af::Tensor();
  BOOST_TEST(client.landing_pool_bytes() > static_cast<std::size_t>(n) * 8);
  // Unused for longer than the idle time, the buffers go back to the system.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (client.landing_pool_bytes() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  BOOST_TEST(client.landing_pool_bytes() == 0u);
  // A tensor that outlives its client keeps its memory and frees it itself.
  af::Tensor survivor;
  {
    af::net::BulkClient short_lived("127.0.0.1", "short-lived client");
    survivor = short_lived.landing_tensor(af::float32, af::Shape{n});
    std::memset(survivor.raw_data(), 1, survivor.total_bytes());
  }
  BOOST_TEST(static_cast<const unsigned char*>(survivor.raw_data())[0] == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
