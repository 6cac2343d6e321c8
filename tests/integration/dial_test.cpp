// Dialing a server's CAF port (net/src/basp_dial.hpp) when its handshake is slow to come:
// CAF 0.17.6 would drop such a connection at the client's next heartbeat tick (its
// connecting context starts at the clock's epoch). A proxy between client and server holds
// the server's first bytes back for a while; a client whose heartbeat ticks every few
// milliseconds still connects, and runs steps.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "wire_session.hpp"

using namespace std::chrono_literals;

namespace {

/// A loopback TCP proxy to `target_port` that forwards both ways, holding back what the
/// server sends first for `delay`.
class DelayingProxy {
 public:
  DelayingProxy(std::uint16_t target_port, std::chrono::milliseconds delay)
      : target_port_(target_port), delay_(delay) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("proxy: cannot listen");
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~DelayingProxy() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    acceptor_.join();
    for (auto& t : pumps_) t.join();
    for (int fd : fds_) ::close(fd);
    ::close(listener_);
  }
  std::uint16_t port() const { return port_; }
  /// Connections the proxy accepted so far.
  int accepted() const { return accepted_; }

 private:
  void accept_loop() {
    while (!stopping_) {
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) return;
      const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(target_port_);
      if (::connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      ++accepted_;
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(client);
      fds_.push_back(server);
      pumps_.emplace_back([=, this] { pump(client, server, {}); });
      pumps_.emplace_back([=, this] { pump(server, client, delay_); });
    }
  }
  static void pump(int from, int to, std::chrono::milliseconds first_delay) {
    char buf[65536];
    bool first = true;
    while (true) {
      const auto n = ::recv(from, buf, sizeof buf, 0);
      if (n <= 0) break;
      if (first) std::this_thread::sleep_for(first_delay);
      first = false;
      if (::send(to, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) break;
    }
    ::shutdown(to, SHUT_WR);
  }

  std::uint16_t target_port_;
  std::chrono::milliseconds delay_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> pumps_;
  std::thread acceptor_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(dial_test)

BOOST_AUTO_TEST_CASE(a_handshake_slower_than_the_clients_heartbeat_still_connects,
                     *boost::unit_test::timeout(60)) {
  auto server = af::Server::create_local_server();
  DelayingProxy proxy(server->port(), 300ms);
  // Ticks every 5 ms: one is certain to come while the server's handshake is held back.
  af::RuntimeOptions o;
  o.heartbeat_interval_ms = 5;
  o.connection_timeout_ms = 3000;
  af::Runtime client(o);
  auto config = af::test::over_the_wire();
  config.runtime = &client;
  af::Graph g;
  auto c = g.constant(2.0f) * 3.0f;
  for (int i = 0; i < 3; ++i) {
    af::Session sess(g, "caf://127.0.0.1:" + std::to_string(proxy.port()), config);
    BOOST_TEST(sess.run(c).scalar<float>() == 6.0f);
  }
  BOOST_TEST(proxy.accepted() >= 1);
}

BOOST_AUTO_TEST_CASE(a_port_nothing_listens_on_fails_the_session_naming_the_address,
                     *boost::unit_test::timeout(60)) {
  // A port that was just free: bind it, read it, close it.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0);
  BOOST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  const std::string where = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  af::Graph g;
  BOOST_CHECK_EXCEPTION(af::Session(g, "caf://" + where), af::UnavailableError,
                        [&](const af::UnavailableError& e) {
                          const std::string what = e.what();
                          return what.find("cannot connect to " + where) != std::string::npos &&
                                 what.find("refused") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_SUITE_END()
