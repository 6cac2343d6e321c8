// TLS between processes (RuntimeOptions::tls_*): a client whose certificate the cluster's CA
// signed runs steps; a plain-TCP client and clients with a certificate from another CA are
// refused, and the server keeps serving old and new clients. Each "process" is a Runtime of
// its own here (its own CAF actor system and connections); tests/data/tls/make_certs.sh made
// the PKI.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "http_client.hpp"
#include "process_stats.hpp"
#include "test_paths.hpp"

namespace {

const std::string kTls = ACTORFLOW_TEST_DATA_DIR + "/tls/";

af::RuntimeOptions tls_options(const std::string& node, const std::string& ca = "ca") {
  af::RuntimeOptions o;
  o.scheduler_threads = 2;
  o.tls_certificate = kTls + node + ".pem";
  o.tls_key = kTls + node + ".key";
  o.tls_ca_file = kTls + ca + ".pem";
  return o;
}

float run_on(af::Runtime& runtime, const std::string& target) {
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape(af::Shape{}), "x");
  auto y = x * 3.0f;
  af::SessionConfig config;
  config.runtime = &runtime;
  af::Session sess(g, target, config);
  return sess.run(y, {{x, af::Tensor(2.0f)}}).scalar<float>();
}

/// The "ip:port" (hex, as /proc/net/tcp writes it) of every TCP socket this process listens
/// on.
std::set<std::string> own_listening_sockets() {
  std::set<std::string> inodes;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::set<std::string> out;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state == "0A" && inodes.count(inode)) out.insert(local);
    }
  }
  return out;
}

using af::test::rss_kib;

}  // namespace

BOOST_AUTO_TEST_SUITE(tls_test)

BOOST_AUTO_TEST_CASE(with_tls_nothing_but_the_specs_address_listens,
                     *boost::unit_test::timeout(120)) {
  // CAF is handed the tunnel's connections: no loopback port that a local user could
  // reach without a certificate, on the server or on its clients.
  const auto before = own_listening_sockets();
  auto server_runtime = std::make_unique<af::Runtime>(tls_options("node"));
  af::ServerOptions options;
  options.config.runtime = server_runtime.get();
  const auto port = af::test::free_port();
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"local", {"127.0.0.1:" + std::to_string(port)}}});
  af::Server server(cluster, "local", 0, options);
  auto client = std::make_unique<af::Runtime>(tls_options("node"));
  BOOST_TEST(run_on(*client, server.target()) == 6.0f);
  std::set<std::string> added;
  for (const auto& s : own_listening_sockets())
    if (!before.count(s)) added.insert(s);
  char expected[16];
  std::snprintf(expected, sizeof expected, "0100007F:%04X", port);
  BOOST_TEST(added.size() == 1u);
  BOOST_TEST(
      added.count(expected) == 1u, "listening: " << [&] {
        std::string all;
        for (auto& a : added) all += a + " ";
        return all;
      }());
  server.stop();
}

BOOST_AUTO_TEST_CASE(only_peers_with_a_certificate_of_the_clusters_ca_are_served,
                     *boost::unit_test::timeout(120)) {
  auto server_runtime = std::make_unique<af::Runtime>(tls_options("node"));
  af::ServerOptions options;
  options.config.runtime = server_runtime.get();
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"local", {"127.0.0.1:" + std::to_string(af::test::free_port())}}});
  af::Server server(cluster, "local", 0, options);
  const auto target = server.target();

  auto good = std::make_unique<af::Runtime>(tls_options("node"));
  BOOST_TEST(run_on(*good, target) == 6.0f);

  af::RuntimeOptions plain_options;
  plain_options.scheduler_threads = 2;
  auto plain = std::make_unique<af::Runtime>(plain_options);
  BOOST_CHECK_THROW(run_on(*plain, target), af::UnavailableError);

  auto rogue = std::make_unique<af::Runtime>(tls_options("rogue_node", "rogue_ca"));
  BOOST_CHECK_THROW(run_on(*rogue, target), af::UnavailableError);

  // A rogue client that trusts the cluster's CA still has no certificate the server accepts.
  auto half_rogue = std::make_unique<af::Runtime>(tls_options("rogue_node", "ca"));
  BOOST_CHECK_THROW(run_on(*half_rogue, target), af::UnavailableError);

  // Still serving: the first client's connection and a new client run steps.
  BOOST_TEST(run_on(*good, target) == 6.0f);
  auto fresh = std::make_unique<af::Runtime>(tls_options("node"));
  BOOST_TEST(run_on(*fresh, target) == 6.0f);
  server.stop();
}

BOOST_AUTO_TEST_CASE(refused_tls_handshakes_are_counted, *boost::unit_test::timeout(120)) {
  auto server_runtime = std::make_unique<af::Runtime>(tls_options("node"));
  af::ServerOptions options;
  options.config.runtime = server_runtime.get();
  options.status_port = 0;
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"local", {"127.0.0.1:" + std::to_string(af::test::free_port())}}});
  af::Server server(cluster, "local", 0, options);
  auto rogue = std::make_unique<af::Runtime>(tls_options("rogue_node", "rogue_ca"));
  BOOST_CHECK_THROW(run_on(*rogue, server.target()), af::UnavailableError);
  // The rogue client gives up first (it does not trust the server's certificate); the server
  // counts its side of the failed handshake when it sees the connection end, a moment later.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (af::test::refused_connections(server.status_port(), "tls_handshake") < 1 &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BOOST_TEST(af::test::refused_connections(server.status_port(), "tls_handshake") >= 1);
}

BOOST_AUTO_TEST_CASE(an_idle_flood_on_the_tls_port_holds_little_memory_and_gives_it_back,
                     *boost::unit_test::timeout(120)) {
  // 600 connections that never start their TLS handshake: at most 128 may wait at once (the
  // oldest are closed), each holding only OpenSSL's state, and their memory goes back to the
  // system once they close.
  auto server_runtime = std::make_unique<af::Runtime>(tls_options("node"));
  af::ServerOptions options;
  options.config.runtime = server_runtime.get();
  options.status_port = 0;
  options.handshake_timeout = std::chrono::seconds(30);
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"local", {"127.0.0.1:" + std::to_string(af::test::free_port())}}});
  af::Server server(cluster, "local", 0, options);
  auto good = std::make_unique<af::Runtime>(tls_options("node"));
  BOOST_TEST(run_on(*good, server.target()) == 6.0f);
  const long rss_before = rss_kib();
  {
    asio::io_context io;
    std::vector<std::unique_ptr<asio::ip::tcp::socket>> idle;
    for (int i = 0; i < 600; ++i) {
      auto s = std::make_unique<asio::ip::tcp::socket>(io);
      s->connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
      idle.push_back(std::move(s));
    }
    // The server takes (and closes the oldest of) the connections at its own pace: on a
    // loaded machine it may not have seen all 600 in the first half second.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    while (af::test::refused_connections(server.status_port(), "crowded") < 600 - 128 - 1 &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const long rss_flooded = rss_kib();
    BOOST_TEST_MESSAGE("RSS with 600 idle TLS connections: +" << (rss_flooded - rss_before) / 1024
                                                              << " MiB");
    BOOST_TEST(rss_flooded - rss_before < 48 * 1024);
    BOOST_TEST(af::test::refused_connections(server.status_port(), "crowded") >= 600 - 128 - 1);
    // A real client is served during the flood.
    BOOST_TEST(run_on(*good, server.target()) == 6.0f);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const long rss_after = rss_kib();
  BOOST_TEST_MESSAGE("RSS after they closed: +" << (rss_after - rss_before) / 1024 << " MiB");
  BOOST_TEST(rss_after - rss_before < 16 * 1024);
}

BOOST_AUTO_TEST_CASE(partial_tls_settings_are_invalid_argument) {
  af::RuntimeOptions o;
  o.tls_certificate = kTls + "node.pem";
  BOOST_CHECK_THROW(af::Runtime{o}, af::InvalidArgumentError);
  o.tls_key = kTls + "node.key";
  o.tls_ca_file = kTls + "missing.pem";
  BOOST_CHECK_THROW(af::Runtime{o}, af::NotFoundError);
}

BOOST_AUTO_TEST_SUITE_END()
