#pragma once

// The bulk side channel for large tensors (CAF notes, "size limits": CAF carries control and
// a transfer id, a raw TCP stream carries the bytes, as TensorFlow split gRPC from its bulk
// transports). A server offers a tensor and gets a transfer id; the reply that names the
// id travels over CAF; the client then reads the bytes from the server's bulk port straight
// into the tensor it returns.
//
// Protocol (version 02: version 01 answered with a 16-byte header) on one TCP connection,
// any number of requests in turn:
//   client -> server: "AFBULK02" + u64 transfer id (little-endian), 16 bytes: fetch it now
//                     "AFBULKA2" + u64 ticket: await it (below)
//   server -> client: u64 status (0 = ok, 1 = unknown or expired id, 2 = the step that
//                     carried the ticket offered nothing under it) + u64 length + 48 zero
//                     bytes (a 64-byte header), then the tensor's `length` raw bytes when
//                     the status is 0
// An await saves a round trip on a fetch the client expects to be large: it sends its step
// naming a random ticket (serve_step.hpp), then the await for the ticket; the step offers
// its first large value under the ticket, and once its reply is on its way (`settle`) the
// bytes follow on the awaiting connection, while the client still reads the reply (an
// await that comes after the settling is answered at once). The server answers an await when the
// step settles, or with status 1 after the time-to-live, and takes awaits only on connections that
// have fetched an offered transfer. Anything else makes the server close that connection; it keeps
// serving the others. A connection whose first request has not come within the handshake timeout,
// or whose first request names no offered transfer, is closed too, and at most
// `max_unauthenticated` connections wait for their first request (a new one closes the oldest):
// idle floods cannot crowd clients out. Refusals are logged (rate-limited) and counted.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "refusals.hpp"

namespace af::net {

/// The server's reply header: status, length and zero padding to 64 bytes. The kernel packs
/// a TCP stream's bytes into pages one after another, so the tensor's bytes start in those
/// pages at the header's length, and its copy into them runs at half speed when that
/// destination is not cache-line aligned: a 16-byte header cost 40 % of a 4 MiB fetch on
/// loopback (AMD EPYC VM, docs/benchmarks.md).
inline constexpr std::size_t kBulkReplyHeaderBytes = 64;

/// An answer's status: the tensor follows; the id is unknown or expired; the step that
/// carried the ticket offered nothing under it.
inline constexpr std::uint64_t kStatusOk = 0, kStatusUnknown = 1, kStatusNothing = 2;

/// Tensors at least this large travel over the bulk channel.
inline constexpr std::size_t kBulkMinBytes = 1 << 20;

/// Tickets settled with nothing offered that a server remembers at most (past these, one
/// is forgotten for each new one: an await for a forgotten ticket waits for the time-to-live).
inline constexpr std::size_t kBulkSettledKept = 4096;

/// What a client's landing pool keeps at most, and for how long an unused buffer stays.
inline constexpr std::size_t kLandingPoolBytes = std::size_t{512} << 20;
inline constexpr std::chrono::milliseconds kLandingPoolIdle{2000};

/// The server side: an Asio acceptor on the server's host (port chosen by the system),
/// one thread, and the table of offered tensors.
class BulkServer {
 public:
  /// Listens on `host`:0; throws UnavailableError naming `owner` when it cannot.
  /// `handshake_timeout` and `max_unauthenticated` bound the connections that have not made
  /// a request for an offered transfer yet.
  BulkServer(const std::string& host, std::string owner,
             std::chrono::milliseconds ttl = std::chrono::seconds(60),
             std::chrono::milliseconds handshake_timeout = std::chrono::seconds(5),
             std::size_t max_unauthenticated = 128, std::shared_ptr<Refusals> refusals = {});
  ~BulkServer();
  BulkServer(const BulkServer&) = delete;
  BulkServer& operator=(const BulkServer&) = delete;

  /// Closes the acceptor and every connection and joins the thread. Idempotent.
  void stop();
  std::uint16_t port() const noexcept;
  /// Keeps `value` (a numeric tensor, shared, not copied: kernels never write a buffer they
  /// have output) until a client collects it or the time-to-live passes; its id is `wanted`
  /// (a client's ticket) when that is not 0 and names nothing offered or settled, else a
  /// fresh random one. Thread-safe.
  std::uint64_t offer(Tensor value, std::uint64_t wanted = 0);
  /// The step that carried `ticket` has sent its reply: an await parked for the ticket gets
  /// what was offered under it (sent from a sender thread now), or status 2 when nothing
  /// was; an await that comes later gets the same (status 2 is kept for the time-to-live,
  /// for kBulkSettledKept tickets at most). Call it after the reply has been handed to the
  /// client's connection: the bytes then follow the reply instead of delaying it. Thread-safe.
  void settle(std::uint64_t ticket);
  /// Collects offer `id` without the bulk port (for the CAF path of a client the port does
  /// not serve): the value, once, whichever way asks first; nullopt when it is unknown,
  /// collected or expired. Thread-safe.
  std::optional<Tensor> take(std::uint64_t id);
  /// Tensors offered and not yet collected or expired.
  std::size_t pending() const;
  /// Awaits waiting for their ticket's step to settle.
  std::size_t parked() const;
  /// Connections a sender thread serves itself now (for 2 s after a transfer, at most 16).
  std::size_t held() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The client side: one connection per server bulk port, used by one job at a time: on a
/// thread of its own, so that blocking reads never run on CAF's workers, or on a caller's
/// thread that blocks for the result anyway.
class BulkClient {
 public:
  /// `host` is the server's host; `what` names it in errors; unused landing buffers are
  /// freed after `landing_idle`.
  BulkClient(std::string host, std::string what,
             std::chrono::milliseconds landing_idle = kLandingPoolIdle);
  ~BulkClient();
  BulkClient(const BulkClient&) = delete;
  BulkClient& operator=(const BulkClient&) = delete;

  /// Runs `job` on the client's thread, in order.
  void post(std::function<void()> job);
  /// Runs `job` on the calling thread now, once no other job (posted or run here) is
  /// running; jobs already queued may run before or after it. For a thread that would wait
  /// for the job's result anyway (a synchronous Session::run): the two thread hand-offs of
  /// post() cost more than a loopback round trip on small VMs. Called from inside a job of
  /// this client (a step run by a job's callback), it runs `job` at once. Never call it on
  /// a CAF worker.
  void run_here(const std::function<void()>& job);
  /// A host tensor to read a transfer into, its bytes uninitialized. Its buffer comes from
  /// the client's landing pool: buffers of tensors the caller has dropped are kept (at most
  /// kLandingPoolBytes together, each for `landing_idle` after its last use) and reused
  /// for fetches of about their size, so a repeated fetch lands in memory already mapped
  /// instead of faulting in (and zeroing) fresh pages, as TensorFlow's BFC allocator keeps
  /// its regions. Thread-safe; tensors may outlive the client.
  Tensor landing_tensor(DType dtype, const Shape& shape);
  /// Bytes of unused buffers the landing pool holds now.
  std::size_t landing_pool_bytes() const;
  /// A fresh random ticket for a step's await (never 0). Thread-safe.
  std::uint64_t new_ticket();
  /// Sends an await for `ticket` (named in a step's request) to `port` (bulk_channel's
  /// protocol above); false when it sends none: no idle connection to `port` has fetched a
  /// transfer yet (the server takes awaits only on those), a job of this client runs on
  /// another thread now (it never waits for one: the caller may hold a lock a job's
  /// callback takes), or the request cannot be sent. The step's value is then fetched with
  /// a request, as any other. Call it from the thread that will wait for the step, after
  /// the step's request is sent: the server runs the step first. `fetch` of the ticket's id
  /// reads the answer; `end_await` after the step, in a job, in any case.
  bool await_transfer(std::uint16_t port, std::uint64_t ticket);
  /// Whether an await for `ticket` is outstanding. Call it only from a job.
  bool awaiting(std::uint64_t ticket) const;
  /// The step that carried `ticket` is over and its value, if any, fetched: the await's
  /// connection goes back to the pool (its answer, status 2, is read before its next use)
  /// or, when the step failed (`step_ok` false: the server may never answer), is closed.
  /// Nothing when the ticket's value was fetched or `ticket` is 0. Call it only from a job.
  void end_await(std::uint64_t ticket, bool step_ok);
  /// Reads transfer `id` from `port` into `out` (exactly `bytes` long): the answer to an
  /// await when `id` is its ticket (a new request when that answer carries nothing). Call
  /// it only from a job (posted or run here). Unavailable when the server cannot be reached, does
  /// not answer the request within `answer_wait` (connecting included), or the connection breaks or
  /// stalls for `stall` without a byte; DataLoss when the transfer is unknown or its size differs.
  Status fetch(std::uint16_t port, std::uint64_t id, void* out, std::size_t bytes,
               std::chrono::milliseconds stall = std::chrono::seconds(30),
               std::chrono::milliseconds answer_wait = std::chrono::seconds(5));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace af::net
