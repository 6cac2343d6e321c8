#pragma once

// The tensor push channel: large tensors on cross-task edges go from the sending task straight
// into the receiving task's rendezvous over one plain TCP connection per pair of tasks,
// instead of through CAF's BASP, which copies a message twice more in user space on each side
// and wakes its multiplexer for every 64 KiB segment that arrives (CAF notes, "copies and
// large buffers"). TensorFlow split its bulk transports from gRPC in the same way.
//
// Protocol, on one TCP connection per (sending task, receiving task), little-endian:
//   hello (client):  "AFPUSH01" + u64 token, 16 bytes. The token is the receiving server's
//                    random secret, which a peer learns over CAF with its worker handle.
//   answer (server): "AFPUSH01" + u64 code, 16 bytes: 0 = accepted; else the af::Code of the
//                    refusal (Unauthenticated: a token this server never gave out), after
//                    which the server closes. A client sends no frame before an accepting
//                    answer: a connection the server refused, closed or never took (an idle
//                    flood, a server out of descriptors) costs no frame, whose tensor travels
//                    over CAF instead.
//   frames (client): u64 step id, u32 key length, u32 meta length, u64 data length (24
//                    bytes), then the key (a rendezvous key), the meta (u8 dtype, u8 rank,
//                    rank x i64 dims) and the tensor's raw bytes (x86 byte order, as on the
//                    CAF path).
// The server's Asio thread accepts and reads hellos; a connection whose hello is not
// complete by its deadline (the handshake timeout, counted from accept, however slowly its
// bytes trickle in) is closed, and so is the oldest of those waiting beyond
// `max_unauthenticated` (an idle flood cannot crowd a real peer out). An accepted connection
// gets a reading thread of its own, which reads each frame's bytes straight into the tensor
// it delivers. A frame whose header is sound but whose tensor cannot be taken (a dtype or
// shape that disagrees with its length, more bytes than this task can allocate) is skipped
// and fails its step on this task (`Fail`), so that the step ends with an error at once
// instead of waiting for a tensor that will never come; a header out of bounds closes the
// connection. Every refusal is logged (rate-limited) and counted.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "refusals.hpp"

namespace af::net {

/// Numeric host tensors at least this large cross tasks over the push channel.
inline constexpr std::size_t kPushMinBytes = 0;

/// Where a task takes pushed tensors; `port == 0`: it has no push channel (TLS, or it could
/// not open one), and tensors for it travel over CAF.
struct PushEndpoint {
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t token = 0;
};

/// The receiving side: a listening socket on the server's host (port chosen by the system),
/// an Asio thread for accepts and hellos, and one reading thread per accepted connection
/// (one per peer task that sends).
class TensorPushServer {
 public:
  /// Called on a connection's thread with each tensor received and the bytes of its frame.
  using Deliver = std::function<void(std::int64_t step_id, std::string key, Tensor value,
                                     std::size_t frame_bytes)>;
  /// Called on a connection's thread when the tensor of `key` in step `step_id` arrived but
  /// could not be taken (`why` names the key, its size and the peer): the step must fail.
  using Fail = std::function<void(std::int64_t step_id, const std::string& key, Status why)>;

  /// Listens on `host`:0; throws UnavailableError naming `owner` when it cannot.
  TensorPushServer(const std::string& host, std::string owner, Deliver deliver, Fail fail,
                   std::shared_ptr<Refusals> refusals,
                   std::chrono::milliseconds handshake_timeout = std::chrono::seconds(5),
                   std::size_t max_unauthenticated = 128);
  ~TensorPushServer();
  TensorPushServer(const TensorPushServer&) = delete;
  TensorPushServer& operator=(const TensorPushServer&) = delete;

  /// Closes the listening socket and every connection and joins the threads. Idempotent.
  void stop();
  /// This server's endpoint (its host, port and token) for peers.
  PushEndpoint endpoint() const;
  /// Tensors received and delivered so far.
  std::uint64_t frames_received() const noexcept;
  /// Connections accepted (their hello answered) and still open.
  std::size_t open_connections() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The sending side for one peer task: one connection, written by whichever thread sends
/// (one at a time).
class TensorPushClient {
 public:
  /// `what` names the peer in log lines. Connects on the first send. A write that makes no
  /// progress for `send_timeout` (a frozen or gone peer) breaks the connection.
  TensorPushClient(PushEndpoint endpoint, std::string what,
                   std::chrono::milliseconds send_timeout = std::chrono::seconds(10));
  ~TensorPushClient();
  TensorPushClient(const TensorPushClient&) = delete;
  TensorPushClient& operator=(const TensorPushClient&) = delete;

  /// Writes `value` (a numeric host tensor) as the tensor of `key` in step `step_id`; blocks
  /// until the kernel took its bytes (on loopback or a LAN, the time of a copy). Returns the
  /// bytes written, or 0 when the tensor was not sent: the server did not accept the
  /// connection within the connect timeout (2 s), refused its hello, or the connection
  /// broke. The caller then sends it another way; after a failure the client waits a second
  /// before it connects again.
  std::size_t send(std::int64_t step_id, const std::string& key, const Tensor& value);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::net
