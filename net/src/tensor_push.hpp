#pragma once

// The tensor push channel: large tensors on cross-task edges go from the sending task straight
// into the receiving task's rendezvous over one plain TCP connection per pair of tasks,
// instead of through CAF's BASP, which copies a message twice more in user space on each side
// and wakes its multiplexer for every 64 KiB segment that arrives (CAF notes, "copies and
// large buffers"). TensorFlow split its bulk transports from gRPC in the same way.
//
// Protocol, on one TCP connection per (sending task, receiving task), little-endian:
//   hello (client):  "AFPUSH02" + u64 token, 16 bytes. The token is the receiving server's
//                    random secret, which a peer learns over CAF with its worker handle.
//   answer (server): "AFPUSH02" + u64 code, 16 bytes: 0 = accepted; else the af::Code of the
//                    refusal (Unauthenticated: a token this server never gave out), after
//                    which the server closes. A client sends no frame before an accepting
//                    answer: a connection the server refused, closed or never took (an idle
//                    flood, a server out of descriptors) costs no frame, whose tensor travels
//                    over CAF instead.
//   frames (client): u64 step id, u8 kind, u8 0, u16 meta length, u32 key length, u64 data
//                    length (24 bytes; wire_decoders.hpp), then the key, the meta and the
//                    data. A `tensor` frame's key is a rendezvous key, its meta (u8 dtype,
//                    u8 rank, rank x i64 dims) and data the tensor's raw bytes (x86 byte
//                    order, as on the CAF path). A control frame (`run`, `reply`, `cancel`,
//                    `cleanup`: worker_protocol.hpp) has no key and no meta, its payload in
//                    the data.
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
#include <string_view>
#include <vector>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "refusals.hpp"
#include "wire_decoders.hpp"

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
  /// What a frame brought: a tensor (`key`, `value`) or a control frame's `payload`.
  struct Frame {
    std::int64_t step_id = 0;
    PushKind kind = PushKind::tensor;
    std::string key;              ///< a tensor frame's rendezvous key
    Tensor value;                 ///< a tensor frame's tensor
    std::string payload;          ///< a control frame's bytes, read straight from the socket
    std::size_t frame_bytes = 0;  ///< the whole frame's, header included
  };
  /// Called on a connection's thread with each frame received.
  using Deliver = std::function<void(Frame frame)>;
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
  /// Writes a control frame of `kind` for step `step_id` whose payload is `pieces` one after
  /// the other, gathered into one write (a tensor's bytes among them are not copied). As
  /// `send` otherwise.
  std::size_t send_control(std::int64_t step_id, PushKind kind,
                           const std::vector<std::string_view>& pieces);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::net
