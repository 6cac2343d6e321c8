// The tensor push channel on its own (net/src/tensor_push.hpp): a client counts a frame as
// sent only on a connection whose hello the server accepted; idle connections cannot keep a
// real peer out; a hello must be complete by its deadline from accept, however slowly it
// trickles in; a frame the server cannot take fails its step and the frames after it still
// arrive; a control frame carries its kind and its payload, gathered from pieces.
#include "../../../net/src/tensor_push.hpp"

#include <actorflow/actorflow.hpp>
#include <asio.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../../net/src/wire_decoders.hpp"

using namespace std::chrono_literals;
using asio::ip::tcp;

namespace {

/// What a push server delivered and failed, with a wait for either.
struct Received {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::int64_t, std::string>> delivered;  ///< (step id, key)
  std::vector<af::net::TensorPushServer::Frame> frames;         ///< all of each, in order
  std::vector<std::pair<std::int64_t, af::Status>> failed;      ///< (step id, why)

  af::net::TensorPushServer::Deliver deliver() {
    return [this](af::net::TensorPushServer::Frame frame) {
      std::lock_guard<std::mutex> lock(mu);
      delivered.emplace_back(frame.step_id, frame.key);
      frames.push_back(std::move(frame));
      cv.notify_all();
    };
  }
  af::net::TensorPushServer::Fail fail() {
    return [this](std::int64_t step, const std::string&, af::Status why) {
      std::lock_guard<std::mutex> lock(mu);
      failed.emplace_back(step, std::move(why));
      cv.notify_all();
    };
  }
  bool wait_delivered(std::size_t n, std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, limit, [&] { return delivered.size() >= n; });
  }
  bool wait_failed(std::size_t n, std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, limit, [&] { return failed.size() >= n; });
  }
};

struct Fixture {
  Received received;
  std::shared_ptr<af::net::Refusals> refusals = std::make_shared<af::net::Refusals>("push test");
  std::unique_ptr<af::net::TensorPushServer> server;
  asio::io_context io;

  void start(std::chrono::milliseconds handshake_timeout, std::size_t max_waiting) {
    server = std::make_unique<af::net::TensorPushServer>("127.0.0.1", "push test server",
                                                         received.deliver(), received.fail(),
                                                         refusals, handshake_timeout, max_waiting);
  }
  std::unique_ptr<tcp::socket> raw() {
    auto s = std::make_unique<tcp::socket>(io);
    s->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server->endpoint().port));
    return s;
  }
};

af::Tensor floats(std::int64_t n) {
  af::Tensor t(af::DType::float32, af::Shape{n}, af::Tensor::for_overwrite);
  for (std::int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

/// True once the peer closed `s` (read returns end of stream or an error), polling without
/// blocking.
bool closed_now(tcp::socket& s) {
  char byte;
  const auto n = ::recv(s.native_handle(), &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_push_test)

BOOST_FIXTURE_TEST_CASE(a_frame_goes_out_only_on_a_connection_whose_hello_was_accepted, Fixture,
                        *boost::unit_test::timeout(30)) {
  start(5s, 128);
  // A wrong token: the server answers with a refusal and closes; the client reports the
  // frame as not sent (its caller sends the tensor over CAF) instead of counting bytes the
  // server will never read.
  af::net::PushEndpoint wrong = server->endpoint();
  wrong.token ^= 0x5a5a;
  af::net::TensorPushClient stranger(wrong, "/job:ps/replica:0/task:0");
  BOOST_TEST(stranger.send(1, "a;b;x;0", floats(16)) == 0u);
  BOOST_TEST(refusals->count("push", "unknown_token") == 1u);

  af::net::TensorPushClient peer(server->endpoint(), "/job:ps/replica:0/task:0");
  BOOST_TEST(peer.send(2, "a;b;y;0", floats(16)) > 64u);
  BOOST_REQUIRE(received.wait_delivered(1, 5s));
  BOOST_TEST(received.delivered.size() == 1u);
  BOOST_TEST(received.delivered[0].first == 2);
  BOOST_TEST(received.delivered[0].second == "a;b;y;0");
}

BOOST_FIXTURE_TEST_CASE(idle_connections_do_not_keep_a_real_peer_out, Fixture,
                        *boost::unit_test::timeout(30)) {
  start(5s, 8);
  // More idle connections than may wait for their hello: the oldest are closed, and the
  // peer that says hello at once gets in.
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(raw());
  std::this_thread::sleep_for(200ms);  // all accepted
  af::net::TensorPushClient peer(server->endpoint(), "/job:worker/replica:0/task:0");
  BOOST_TEST(peer.send(7, "w;p;t;0", floats(1024)) > 4096u);
  BOOST_TEST(received.wait_delivered(1, 5s));
  BOOST_TEST(refusals->count("push", "crowded") >= 12u);
  BOOST_TEST(server->open_connections() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_hello_trickling_in_is_closed_at_its_deadline_from_accept, Fixture,
                        *boost::unit_test::timeout(30)) {
  start(300ms, 128);
  // One byte of a hello every 100 ms would take 1.6 s; every byte restarting an idle timer
  // kept such a connection open for as long as the peer liked.
  auto s = raw();
  const auto start_time = std::chrono::steady_clock::now();
  const std::string hello = af::net::encode_push_hello(server->endpoint().token);
  bool closed = false;
  std::chrono::milliseconds closed_after{0};
  for (std::size_t i = 0; i < hello.size() && !closed; ++i) {
    std::error_code ec;
    asio::write(*s, asio::buffer(hello.data() + i, 1), ec);
    for (int k = 0; k < 10 && !closed; ++k) {
      std::this_thread::sleep_for(10ms);
      closed = ec || closed_now(*s);
    }
    closed_after = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start_time);
  }
  BOOST_TEST(closed);
  BOOST_TEST(closed_after.count() < 1000);
  BOOST_TEST(refusals->count("push", "handshake_timeout") == 1u);
  BOOST_TEST(server->open_connections() == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_frame_the_server_cannot_take_fails_its_step_and_later_frames_arrive,
                        Fixture, *boost::unit_test::timeout(30)) {
  start(5s, 128);
  auto s = raw();
  asio::write(*s, asio::buffer(af::net::encode_push_hello(server->endpoint().token)));
  char answer[16];
  asio::read(*s, asio::buffer(answer));
  BOOST_TEST(af::net::decode_push_hello(std::string_view(answer, 16)).magic);
  BOOST_TEST(af::net::decode_push_hello(std::string_view(answer, 16)).token == 0u);
  // A float32 [4] frame that says it has 12 bytes: its header is sound, its tensor is not.
  const std::string bad_key = "src;dst;bad;0";
  const std::string bad_meta =
      af::net::encode_push_meta(static_cast<std::uint8_t>(af::DType::float32), {4});
  std::string frames =
      af::net::encode_push_frame_header(11, af::net::PushKind::tensor,
                                        static_cast<std::uint32_t>(bad_key.size()),
                                        static_cast<std::uint32_t>(bad_meta.size()), 12) +
      bad_key + bad_meta + std::string(12, '\0');
  const std::string good_key = "src;dst;good;0";
  const std::string good_meta =
      af::net::encode_push_meta(static_cast<std::uint8_t>(af::DType::float32), {2});
  frames += af::net::encode_push_frame_header(12, af::net::PushKind::tensor,
                                              static_cast<std::uint32_t>(good_key.size()),
                                              static_cast<std::uint32_t>(good_meta.size()), 8) +
            good_key + good_meta + std::string(8, '\0');
  asio::write(*s, asio::buffer(frames));
  BOOST_REQUIRE(received.wait_failed(1, 5s));
  BOOST_TEST(received.failed[0].first == 11);
  BOOST_TEST(received.failed[0].second.message().find("src;dst;bad;0") != std::string::npos);
  BOOST_REQUIRE(received.wait_delivered(1, 5s));
  BOOST_TEST(received.delivered[0].first == 12);
  BOOST_TEST(received.delivered[0].second == good_key);
  BOOST_TEST(refusals->count("push", "bad_frame") == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_control_frame_arrives_with_its_kind_and_its_gathered_payload, Fixture,
                        *boost::unit_test::timeout(30)) {
  start(5s, 128);
  af::net::TensorPushClient peer(server->endpoint(), "/job:ps/replica:0/task:0");
  // A run's payload in three pieces, one of them a tensor's bytes (sent from the tensor).
  const af::Tensor feed = floats(1000);
  const std::string_view feed_bytes(static_cast<const char*>(feed.raw_data()), feed.total_bytes());
  const std::size_t sent =
      peer.send_control(21, af::net::PushKind::run, {"head", feed_bytes, "tail"});
  BOOST_TEST(sent == af::net::kPushFrameHeaderBytes + 8 + feed.total_bytes());
  BOOST_TEST(peer.send_control(21, af::net::PushKind::cleanup, {}) ==
             af::net::kPushFrameHeaderBytes);
  BOOST_REQUIRE(received.wait_delivered(2, 5s));
  const auto& run = received.frames[0];
  BOOST_TEST(run.step_id == 21);
  BOOST_TEST((run.kind == af::net::PushKind::run));
  BOOST_TEST(run.key.empty());
  BOOST_TEST(run.payload == "head" + std::string(feed_bytes) + "tail");
  BOOST_TEST(run.frame_bytes == sent);
  BOOST_TEST((received.frames[1].kind == af::net::PushKind::cleanup));
  BOOST_TEST(received.frames[1].payload.empty());
  // A tensor frame after them still arrives as a tensor.
  BOOST_TEST(peer.send(22, "a;b;z;0", floats(4)) > 0u);
  BOOST_REQUIRE(received.wait_delivered(3, 5s));
  BOOST_TEST((received.frames[2].kind == af::net::PushKind::tensor));
  BOOST_TEST(received.frames[2].value.to_vector<float>() == (std::vector<float>{0, 1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(a_frame_header_names_its_kind_and_a_control_frame_has_no_key_or_meta) {
  using af::net::PushKind;
  const auto header = af::net::encode_push_frame_header(5, PushKind::reply, 0, 0, 77);
  BOOST_REQUIRE(header.size() == af::net::kPushFrameHeaderBytes);
  auto h = af::net::decode_push_frame_header(header);
  BOOST_TEST(h.valid);
  BOOST_TEST((h.kind == PushKind::reply));
  BOOST_TEST(h.step_id == 5);
  BOOST_TEST(h.data_length == 77u);
  // A control frame with a key, a tensor frame without one, an unknown kind, a reserved
  // byte that is not 0: none is a frame of ours.
  BOOST_TEST(!af::net::decode_push_frame_header(
                  af::net::encode_push_frame_header(5, PushKind::run, 3, 0, 1))
                  .valid);
  BOOST_TEST(!af::net::decode_push_frame_header(
                  af::net::encode_push_frame_header(5, PushKind::tensor, 0, 2, 4))
                  .valid);
  std::string unknown = header;
  unknown[8] = 5;
  BOOST_TEST(!af::net::decode_push_frame_header(unknown).valid);
  std::string reserved = header;
  reserved[9] = 1;
  BOOST_TEST(!af::net::decode_push_frame_header(reserved).valid);
  BOOST_TEST(std::string(af::net::push_kind_name(PushKind::cancel)) == "cancel");
}

BOOST_AUTO_TEST_SUITE_END()
