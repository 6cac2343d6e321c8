// The step channel (caf:// sessions' fast path for steps): pipelined requests on one
// connection get their own replies even when they finish out of order; errors keep their
// code; garbage, a bad magic or an oversized length closes only that connection; a stopped
// server and fail_all end the calls in flight with Unavailable / the given reason; a client
// the server does not take (unknown token, never accepted) fails at connect, and a request
// it cannot send goes back to its caller (who runs it over CAF); a caller waiting for its
// reply reads it itself and hands the replies of others to the reader thread.
#include "../../../net/src/step_channel.hpp"

#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kToken = 0x5eed;

/// Answers "echo:<request>" for kToken, Aborted for other tokens; requests starting with
/// "late" are answered only when `release()` runs (in reverse order of arrival).
struct EchoHandler {
  std::mutex mu;
  std::vector<std::pair<std::string, std::function<void(af::Status, std::string)>>> held;

  af::net::StepServer::Handler handler() {
    return [this](std::uint64_t token, std::string_view request,
                  std::function<void(af::Status, std::string)> done) {
      if (token != kToken) return done(af::aborted("Session is not open"), {});
      if (request == "fail") return done(af::invalid_argument("bad step"), {});
      if (request.rfind("late", 0) == 0) {
        std::lock_guard<std::mutex> lock(mu);
        held.emplace_back(std::string(request), std::move(done));
        return;
      }
      done({}, "echo:" + std::string(request));
    };
  }
  std::size_t held_count() {
    std::lock_guard<std::mutex> lock(mu);
    return held.size();
  }
  void release() {
    std::vector<std::pair<std::string, std::function<void(af::Status, std::string)>>> h;
    {
      std::lock_guard<std::mutex> lock(mu);
      h.swap(held);
    }
    // From another thread, last first: replies go out in a different order than requests.
    std::thread([h = std::move(h)]() mutable {
      for (auto it = h.rbegin(); it != h.rend(); ++it) it->second({}, "echo:" + it->first);
    }).join();
  }
};

/// Runs `request` and waits for its outcome.
std::pair<af::Status, std::string> run(af::net::StepClient& client, const std::string& request) {
  std::promise<std::pair<af::Status, std::string>> p;
  if (!client.run(request, [&](af::Status s, std::string reply) {
        p.set_value({std::move(s), std::move(reply)});
      }))
    return {af::unavailable("not sent"), {}};
  auto f = p.get_future();
  BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
  return f.get();
}

/// Writes `bytes` on a fresh connection, ends its sending side and returns how many bytes
/// came back before the server closed it.
std::size_t reply_bytes_to(std::uint16_t port, const std::string& bytes) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), port});
  std::error_code ec;
  asio::write(s, asio::buffer(bytes), ec);
  s.shutdown(asio::ip::tcp::socket::shutdown_send, ec);  // the peer has nothing more to say
  char buf[256];
  std::size_t n = 0;
  for (;;) {
    auto k = s.read_some(asio::buffer(buf), ec);
    if (ec) break;
    n += k;
  }
  return n;
}

std::string header(const char magic[8], std::uint64_t call, std::uint64_t token,
                   std::uint64_t length) {
  std::string h(magic, 8);
  for (std::uint64_t v : {call, token, length})
    for (int i = 0; i < 8; ++i) h.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return h;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(step_channel_test)

BOOST_AUTO_TEST_CASE(pipelined_requests_get_their_own_replies_in_any_order,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  af::net::StepServer server("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server.port(), kToken, "test session");
  auto [s, reply] = run(client, "hello");
  BOOST_TEST_REQUIRE(s.ok(), s.message());
  BOOST_TEST(reply == "echo:hello");
  // Ten held requests and a large one, answered in reverse order.
  std::mutex mu;
  std::vector<std::string> got(11);
  std::promise<void> all;
  int left = 11;
  for (int i = 0; i < 11; ++i) {
    std::string request = "late" + std::to_string(i) + (i == 10 ? std::string(3 << 20, 'z') : "");
    client.run(request, [&, i](af::Status st, std::string r) {
      std::lock_guard<std::mutex> lock(mu);
      got[static_cast<std::size_t>(i)] = st.ok() ? r : st.message();
      if (--left == 0) all.set_value();
    });
  }
  for (int i = 0; i < 500 && echo.held_count() < 11; ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST_REQUIRE(echo.held_count() == 11u);
  echo.release();
  BOOST_TEST_REQUIRE((all.get_future().wait_for(10s) == std::future_status::ready));
  for (int i = 0; i < 10; ++i)
    BOOST_TEST(got[static_cast<std::size_t>(i)] == "echo:late" + std::to_string(i));
  BOOST_TEST(got[10].size() == 5 + 6 + (3u << 20));
  // Errors keep their code and message.
  auto [e, none] = run(client, "fail");
  BOOST_TEST(e.code() == af::Code::invalid_argument);
  BOOST_TEST(e.message() == "bad step");
  BOOST_TEST(none.empty());
}

BOOST_AUTO_TEST_CASE(an_unknown_token_is_refused_at_the_hello, *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  // The server's token check: a client whose token it does not know learns why at connect.
  af::net::StepServer server("127.0.0.1", "test server", echo.handler(),
                             [](std::uint64_t token) { return token == kToken; });
  try {
    af::net::StepClient stranger("127.0.0.1", server.port(), 12345, "stranger");
    BOOST_ERROR("a client with an unknown token was taken");
  } catch (const af::UnavailableError& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("did not take the connection") != std::string::npos, what);
    BOOST_TEST(what.find("Session is not open") != std::string::npos, what);
  }
  // Without a token check the handler answers the step itself: Aborted.
  af::net::StepServer open_door("127.0.0.1", "test server", echo.handler());
  af::net::StepClient stranger("127.0.0.1", open_door.port(), 12345, "stranger");
  auto [s, reply] = run(stranger, "hello");
  BOOST_TEST(s.code() == af::Code::aborted, s.message());
}

BOOST_AUTO_TEST_CASE(a_port_that_never_takes_the_connection_fails_the_client_at_connect,
                     *boost::unit_test::timeout(30)) {
  // A listening socket nobody accepts on: the connection completes in its backlog, as on a
  // server out of descriptors, and no answer to the hello ever comes.
  asio::io_context io;
  asio::ip::tcp::acceptor backlog(io, {asio::ip::make_address("127.0.0.1"), 0});
  const auto start = std::chrono::steady_clock::now();
  BOOST_CHECK_THROW(af::net::StepClient("127.0.0.1", backlog.local_endpoint().port(), kToken,
                                        "unanswered", 300ms),
                    af::UnavailableError);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  BOOST_TEST(took.count() >= 290);
  BOOST_TEST(took.count() < 5000);
}

BOOST_AUTO_TEST_CASE(requests_it_cannot_send_go_back_to_the_caller,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  auto server = std::make_unique<af::net::StepServer>("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server->port(), kToken, "test session");
  bool called = false;
  // Larger than the server takes: not sent (the caller runs it over CAF), the channel intact.
  BOOST_TEST(!client.run(std::string(af::net::kStepMaxRequest + 1, 'x'),
                         [&](af::Status, std::string) { called = true; }));
  BOOST_TEST(!called);
  BOOST_TEST(client.usable());
  BOOST_TEST(run(client, "small").second == "echo:small");
  // Once the connection is gone, nothing is sent and `done` is not called either.
  server->stop();
  for (int i = 0; i < 500 && client.usable(); ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST_REQUIRE(!client.usable());
  BOOST_TEST(!client.run("after", [&](af::Status, std::string) { called = true; }));
  BOOST_TEST(!called);
}

BOOST_AUTO_TEST_CASE(garbage_on_the_step_port_closes_that_connection_only,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  af::net::StepServer server("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server.port(), kToken, "test session");
  const char magic[8] = {'A', 'F', 'S', 'T', 'E', 'P', '0', '1'};
  const char wrong[8] = {'A', 'F', 'S', 'T', 'E', 'P', '9', '9'};
  for (const std::string& garbage :
       {std::string("GET / HTTP/1.1\r\n\r\n") + std::string(32, ' '), std::string(64, '\0'),
        header(wrong, 1, kToken, 1) + "x",
        header(magic, 1, kToken, af::net::kStepMaxRequest + 1),  // oversized length: no allocation
        header(magic, 1, kToken, ~std::uint64_t{0})}) {
    BOOST_TEST(reply_bytes_to(server.port(), garbage) == 0u);
  }
  // A truncated request is never dispatched: the connection just ends.
  BOOST_TEST(reply_bytes_to(server.port(), header(magic, 1, kToken, 100) + "short") == 0u);
  // The server still serves its clients.
  auto [s, reply] = run(client, "still here");
  BOOST_TEST(s.ok(), s.message());
  BOOST_TEST(reply == "echo:still here");
}

BOOST_AUTO_TEST_CASE(requests_in_one_write_or_in_pieces_are_each_answered,
                     *boost::unit_test::timeout(30)) {
  // The server reads what the socket holds at once: a hello, three requests and the first
  // bytes of a fourth in one write; then the fourth's rest a byte at a time.
  EchoHandler echo;
  af::net::StepServer server("127.0.0.1", "test server", echo.handler());
  const char magic[8] = {'A', 'F', 'S', 'T', 'E', 'P', '0', '1'};
  std::string fourth = header(magic, 4, kToken, 5) + "fourt";
  std::string bytes = header(magic, 0, kToken, 0) + header(magic, 1, kToken, 3) + "one" +
                      header(magic, 2, kToken, 0) + header(magic, 3, kToken, 5) + "three" +
                      fourth.substr(0, 10);
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), server.port()});
  s.set_option(asio::ip::tcp::no_delay(true));
  asio::write(s, asio::buffer(bytes));
  for (std::size_t i = 10; i < fourth.size(); ++i) {
    std::this_thread::sleep_for(2ms);
    asio::write(s, asio::buffer(fourth.data() + i, 1));
  }
  // Replies: (call, code 0, length) + body, in request order (the handler answers at once).
  std::string expected;
  for (auto [call, body] : std::vector<std::pair<std::uint64_t, std::string>>{
           {0, ""}, {1, "echo:one"}, {2, "echo:"}, {3, "echo:three"}, {4, "echo:fourt"}}) {
    std::string h = header(magic, call, 0, body.size()).substr(8);
    expected += h + body;
  }
  std::string got(expected.size(), '\0');
  asio::read(s, asio::buffer(got));
  BOOST_TEST(got == expected);
}

BOOST_AUTO_TEST_CASE(a_stopped_server_fails_the_calls_in_flight_with_unavailable,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  auto server = std::make_unique<af::net::StepServer>("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server->port(), kToken, "test session");
  std::promise<af::Status> pending;
  client.run("late-forever", [&](af::Status s, std::string) { pending.set_value(s); });
  for (int i = 0; i < 500 && echo.held_count() < 1; ++i) std::this_thread::sleep_for(10ms);
  server->stop();
  auto f = pending.get_future();
  BOOST_TEST_REQUIRE((f.wait_for(10s) == std::future_status::ready));
  auto s = f.get();
  BOOST_TEST(s.code() == af::Code::unavailable, s.message());
  BOOST_TEST(!client.usable());
  BOOST_TEST(
      !client.run("again", [](af::Status, std::string) {}));  // the caller's to run elsewhere
  echo.release();  // the late reply has nowhere to go: dropped
}

BOOST_AUTO_TEST_CASE(fail_all_ends_the_calls_in_flight_with_its_reason,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  af::net::StepServer server("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server.port(), kToken, "test session");
  std::promise<af::Status> pending;
  client.run("late", [&](af::Status s, std::string) { pending.set_value(s); });
  for (int i = 0; i < 500 && echo.held_count() < 1; ++i) std::this_thread::sleep_for(10ms);
  client.fail_all(af::unavailable("server went away"));
  auto s = pending.get_future().get();
  BOOST_TEST(s.code() == af::Code::unavailable);
  BOOST_TEST(s.message() == "server went away");
  BOOST_TEST(!client.usable());
  BOOST_TEST(!client.run("x", [](af::Status, std::string) {}));
  echo.release();
  BOOST_CHECK_THROW(af::net::StepClient("127.0.0.1", 1, kToken, "nobody", 1s),
                    af::UnavailableError);
}

BOOST_AUTO_TEST_CASE(a_waiting_caller_reads_its_reply_and_hands_the_others_on,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  af::net::StepServer server("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server.port(), kToken, "test session");
  // Alone: the reply, and a server error with its code.
  auto waited = client.send_waited("alone");
  BOOST_TEST_REQUIRE(waited != nullptr);
  auto [status, reply] = client.wait(waited);
  BOOST_TEST(status.ok());
  BOOST_TEST(reply == "echo:alone");
  auto failed = client.wait(client.send_waited("fail"));
  BOOST_TEST(failed.first.code() == af::Code::invalid_argument);
  BOOST_TEST(failed.first.message() == "bad step");
  // Calls no one waits for, sent while a caller waits (and reads): their replies come
  // while its own is held, it reads them and the reader thread calls their `done` at once.
  auto mine = client.send_waited("late-mine");
  BOOST_TEST_REQUIRE(mine != nullptr);
  std::promise<std::pair<af::Status, std::string>> got;
  std::thread waiter([&] { got.set_value(client.wait(mine)); });
  std::this_thread::sleep_for(50ms);  // the waiter is reading by now (either way is correct)
  for (const std::string name : {"quick-1", "quick-2"}) {
    std::promise<std::string> done;
    BOOST_TEST_REQUIRE(client.run(
        name, [&](af::Status s, std::string r) { done.set_value(s.ok() ? r : s.message()); }));
    auto f = done.get_future();
    BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
    BOOST_TEST(f.get() == "echo:" + name);
  }
  // Other waiting callers, answered while the first still waits (and reads), end too: none
  // is left reading for a reply that another thread has already read.
  for (int i = 0; i < 300; ++i) {
    const std::string name = "second-" + std::to_string(i);
    BOOST_TEST_REQUIRE(client.wait(client.send_waited(name)).second == "echo:" + name);
  }
  auto mine_reply = got.get_future();
  BOOST_TEST((mine_reply.wait_for(100ms) == std::future_status::timeout));  // still held
  for (int i = 0; i < 500 && echo.held_count() < 1; ++i) std::this_thread::sleep_for(10ms);
  echo.release();
  BOOST_REQUIRE(mine_reply.wait_for(10s) == std::future_status::ready);
  waiter.join();
  const auto [mine_status, mine_body] = mine_reply.get();
  BOOST_TEST(mine_status.ok());
  BOOST_TEST(mine_body == "echo:late-mine");
  // And the connection goes on serving both kinds.
  BOOST_TEST(run(client, "after").second == "echo:after");
  BOOST_TEST(client.wait(client.send_waited("after-waited")).second == "echo:after-waited");
}

BOOST_AUTO_TEST_CASE(a_waiting_caller_gets_deadline_exceeded_or_the_broken_connection,
                     *boost::unit_test::timeout(30)) {
  EchoHandler echo;
  auto server = std::make_unique<af::net::StepServer>("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server->port(), kToken, "test session");
  // Never answered: DeadlineExceeded by the deadline, while this thread reads.
  const auto start = std::chrono::steady_clock::now();
  auto timed = client.send_waited("late-never", start + 300ms, 300);
  BOOST_TEST_REQUIRE(timed != nullptr);
  auto [status, reply] = client.wait(timed);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  BOOST_TEST(status.code() == af::Code::deadline_exceeded, status.message());
  BOOST_TEST(status.message().find("300 ms") != std::string::npos);
  BOOST_TEST(took >= 290);
  BOOST_TEST(took < 5000);
  // A waiting caller whose server stops: Unavailable, and later calls are not sent.
  auto pending = client.send_waited("late-too");
  BOOST_TEST_REQUIRE(pending != nullptr);
  std::thread stopper([&] {
    for (int i = 0; i < 500 && echo.held_count() < 2; ++i) std::this_thread::sleep_for(10ms);
    server->stop();
  });
  auto broken = client.wait(pending);
  stopper.join();
  BOOST_TEST(broken.first.code() == af::Code::unavailable, broken.first.message());
  BOOST_TEST(!client.usable());
  BOOST_TEST(client.send_waited("after") == nullptr);
}

BOOST_AUTO_TEST_CASE(an_idle_client_sees_the_server_close_the_connection,
                     *boost::unit_test::timeout(30)) {
  // No call in flight and no one reading: the reader thread still notices the close.
  EchoHandler echo;
  auto server = std::make_unique<af::net::StepServer>("127.0.0.1", "test server", echo.handler());
  af::net::StepClient client("127.0.0.1", server->port(), kToken, "test session");
  BOOST_TEST(client.wait(client.send_waited("one")).second == "echo:one");
  server->stop();
  for (int i = 0; i < 500 && client.usable(); ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(!client.usable());
}

BOOST_AUTO_TEST_SUITE_END()
