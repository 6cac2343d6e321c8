#pragma once

// The step channel: a fast path for `caf://` sessions' steps. A step over CAF crosses the
// client's proxy actor, both middleman multiplexer threads and the master actor (about 100 µs
// on loopback); over the step channel the client's thread writes the run request straight
// to a TCP connection, the server's Asio thread starts the step on the served session, and
// the reply comes back on the same connection, read by the thread waiting for it (`wait`)
// or, for a step no thread waits for, by the client's reader thread. Sessions are
// still opened, closed and monitored over CAF (which also detects a dead or frozen server);
// only `master_run` requests take this path. Plain TCP: servers with TLS do not offer it.
//
// Protocol on one TCP connection per client session, requests pipelined, replies in any
// order (little-endian integers):
//   client -> server: "AFSTEP01" + u64 call id + u64 session token + u64 length, then
//                     `length` bytes of run request (the master_run encoding, wire.hpp); first,
//                     at connect, a hello: call id 0, length 0
//   server -> client: u64 call id + u64 code (0 = ok, else af::Code) + u64 length, then the
//                     run reply (ok) or the error message; the hello's answer (call id 0,
//                     code 0, length 0) says the server took the connection: a client sends
//                     no step before it, and one that gets no answer within its connect
//                     timeout (a server out of descriptors, flooded, refusing the token) runs
//                     its steps over CAF
// A bad magic, an unknown token or a length over kStepMaxRequest closes that connection
// (unknown tokens after answering Aborted), before a byte of the body is read; so does a
// connection whose first request header has not arrived within the handshake timeout, and
// the oldest of those waiting for it beyond `max_unauthenticated`. Each refusal is logged
// (rate-limited) and counted. The server keeps serving the others.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "actorflow/ops/status.hpp"
#include "refusals.hpp"

namespace af::net {

/// Requests larger than this (large feeds) go over CAF instead.
inline constexpr std::size_t kStepMaxRequest = 64u << 20;

/// How long a step connection may wait before its first request header (the client's
/// hello), and how many may wait at once (a new one closes the oldest).
struct StepServerLimits {
  std::chrono::milliseconds handshake_timeout{5000};
  std::size_t max_unauthenticated = 128;
};

/// The server side: an Asio acceptor on the server's host (system-chosen port), one thread.
class StepServer {
 public:
  /// Runs a request for the session with `token`; `done` may be called from any thread,
  /// once. Unknown tokens are answered with `done(aborted(...), {})`. `request` views the
  /// connection's buffer, valid only until the handler returns (a handler that keeps it
  /// copies it): a small request is read from the buffer it arrived in, uncopied.
  using Handler = std::function<void(std::uint64_t token, std::string_view request,
                                     std::function<void(Status, std::string)> done)>;

  /// Whether a session token is one the server serves (checked before a body is read).
  using TokenCheck = std::function<bool(std::uint64_t token)>;
  using Limits = StepServerLimits;

  /// Listens on `host`:0; throws UnavailableError naming `owner` when it cannot.
  StepServer(const std::string& host, std::string owner, Handler handler, TokenCheck known = {},
             Limits limits = {}, std::shared_ptr<Refusals> refusals = {});
  ~StepServer();
  StepServer(const StepServer&) = delete;
  StepServer& operator=(const StepServer&) = delete;

  /// Closes the acceptor and every connection and joins the thread. Idempotent; replies of
  /// steps still running are dropped.
  void stop();
  std::uint16_t port() const noexcept;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The client side for one session: one connection; replies are read by the thread that
/// waits for them (`send_waited` + `wait`) or by a reader thread (`run`), one at a time.
class StepClient {
 public:
  /// Connects to `host`:`port` and waits for the server to answer the hello (both within
  /// `connect_timeout`); throws UnavailableError naming `what` when it cannot or the server
  /// refuses the token.
  StepClient(const std::string& host, std::uint16_t port, std::uint64_t token, std::string what,
             std::chrono::milliseconds connect_timeout = std::chrono::seconds(5));
  /// Fails the calls in flight with Cancelled and joins the reader thread.
  ~StepClient();
  StepClient(const StepClient&) = delete;
  StepClient& operator=(const StepClient&) = delete;

  /// Sends `request` on the calling thread and returns true; `done` fires once, on the
  /// reader thread, or with DeadlineExceeded on the client's timer thread when no reply came
  /// by `deadline` (`timeout_ms` is for the message): a frozen or flooded server cannot hold
  /// a step past its deadline. Returns false, without calling `done`, when the request was
  /// not sent and so not run: the connection is broken, or it is larger than
  /// kStepMaxRequest; the caller runs it another way (over CAF).
  bool run(
      const std::string& request, std::function<void(Status, std::string)> done,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
      std::int64_t timeout_ms = 0);
  /// A call whose caller's thread waits for its reply (`send_waited`, then `wait`).
  struct WaitedCall {
    std::uint64_t call = 0;
    std::chrono::steady_clock::time_point deadline;
    bool done = false;  ///< these three are guarded by the client's lock
    Status status;
    std::string reply;
  };
  /// As `run`, for a caller that will do nothing but `wait` for the reply: null when the
  /// request was not sent (run it another way). Sends on the calling thread, under whatever
  /// lock the caller holds to keep its requests in order; release it before `wait`.
  std::shared_ptr<WaitedCall> send_waited(
      const std::string& request,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
      std::int64_t timeout_ms = 0);
  /// Waits for `call`'s reply: the reply body, or the server's error, DeadlineExceeded at its
  /// deadline, or the error that broke the connection. The calling thread reads the
  /// connection itself while no other thread does (no hand-off from the reader thread, one
  /// wake-up fewer); replies it reads for other calls go to the reader thread, which calls
  /// their `done`. Once per call.
  std::pair<Status, std::string> wait(const std::shared_ptr<WaitedCall>& call);
  /// Fails every call in flight with `why` and closes the connection (the server went
  /// away, as CAF's monitoring found). Later calls fail with `why` too.
  void fail_all(const Status& why);
  /// False once the connection broke or fail_all ran.
  bool usable() const;

 private:
  struct Impl;
  /// Registers a call (`waited`: the slot of a caller that waits in `wait`; null when none
  /// does) and sends it: its id, or none when it was not sent.
  std::optional<std::uint64_t> send(const std::string& request,
                                    std::function<void(Status, std::string)> done,
                                    std::shared_ptr<WaitedCall> waited,
                                    std::chrono::steady_clock::time_point deadline,
                                    std::int64_t timeout_ms);
  std::shared_ptr<Impl> impl_;
};

}  // namespace af::net
