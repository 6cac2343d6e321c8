// pick_unused_port: bindable ports below the kernel's ephemeral range.
#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <set>

BOOST_AUTO_TEST_SUITE(port_picker_test)

BOOST_AUTO_TEST_CASE(picked_ports_are_bindable_and_below_the_ephemeral_range) {
  int ephemeral_low = 32768;
  if (std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range"); range) range >> ephemeral_low;
  std::set<std::uint16_t> seen;
  for (int i = 0; i < 20; ++i) {
    auto port = af::pick_unused_port();
    BOOST_TEST(port >= 10000);
    BOOST_TEST(port < ephemeral_low);
    seen.insert(port);
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io);
    asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    acceptor.open(endpoint.protocol());
    // As a server binds (and the picker checks): with SO_REUSEADDR, so a port some earlier
    // connection of another test left in TIME_WAIT is bindable, as it is for the servers
    // (without it, bind failed with "Address already in use" once in eight suite runs).
    acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true));
    std::error_code ec;
    acceptor.bind(endpoint, ec);
    BOOST_TEST(!ec, "port " << port << ": " << ec.message());
  }
  BOOST_TEST(seen.size() > 1u);  // random, not one fixed port
}

BOOST_AUTO_TEST_CASE(a_malformed_host_is_unavailable) {
  BOOST_CHECK_THROW(af::pick_unused_port("not an address"), af::UnavailableError);
}

BOOST_AUTO_TEST_SUITE_END()
