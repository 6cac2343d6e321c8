#pragma once

// How a `caf://` session's steps reach the master that serves it: one MasterClient, chosen
// once when the session opens (`open_master_client`):
// - `local`: the server is in this process (TensorFlow's LocalMaster): `serve_step` is
//   called directly, the tensors passed as they are, no wire, no thread switch;
// - `step_channel`: the server's step port (step_channel.hpp), one TCP connection for the
//   session's requests in order; a request the channel cannot take goes over CAF;
// - `caf`: `master_run` requests to the master service actor (a TLS server, or one whose
//   step port cannot be reached).
// Large fetched tensors come from the server's bulk port (bulk_channel.hpp) on the wire
// kinds. A lost connection fails the steps in flight with Unavailable and the next step
// reconnects.
#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/ops/errors.hpp"
#include "serve_step.hpp"

namespace af {

/// How long a control request (open, close, reset, devices) may take.
inline constexpr auto kControlTimeout = std::chrono::seconds(10);

/// The host and port of a `caf://host:port` target; InvalidArgument names the target.
std::pair<std::string, std::uint16_t> parse_target(const std::string& target);

/// Connects to the master service at `target` (never blocks longer than kControlTimeout);
/// with TLS through the runtime's loopback forwarder for it. Unavailable names the target.
caf::actor connect(Runtime& runtime, const std::string& target);

/// A blocking control request to `server` with a finite timeout; errors name `target`.
template <class Result, class... Ts>
Result control(caf::actor_system& sys, const caf::actor& server, const std::string& target,
               caf::timespan timeout, Ts&&... xs) {
  caf::scoped_actor self{sys};
  Result result{};
  Status failure;
  self->request(server, timeout, std::forward<Ts>(xs)...)
      .receive([&](Result& r) { result = std::move(r); },
               [&](caf::error& e) { failure = status_from_caf_error(e, "server " + target); });
  throw_if_error(failure);
  return result;
}

/// Asks `server` for session `id`'s step channel: true with its `token` and `port`, false
/// when the server has none (TLS) or does not answer within `timeout`.
bool ask_step_port(caf::actor_system& sys, const caf::actor& server, const std::string& target,
                   std::uint64_t id, std::chrono::milliseconds timeout, std::uint64_t* token,
                   std::uint16_t* port);

/// The client graph's nodes as they reach the server: each step carries those added since
/// the previous one; after a lost connection, those since the last step the server answered
/// go again (the server skips the nodes it has). Called under the session's lock, which
/// keeps the deltas in order; what `on_answered` returns may run on any thread, later.
class GraphDeltas {
 public:
  /// The deltas of `graph`, none sent yet.
  explicit GraphDeltas(Graph& graph) : graph_(graph) {}
  /// JSON of the nodes added since the last `take` (empty when none); `end` receives the
  /// number of the graph's nodes the server has once it has these.
  std::string take(std::size_t* end);
  /// Run when the server answered a step that carried the graph's first `end` nodes (it
  /// has them now); it may outlive the GraphDeltas it came from.
  struct Answered {
    std::shared_ptr<std::atomic<std::size_t>> answered;
    std::size_t end = 0;
    /// Records that the server has the first `end` nodes.
    void operator()() const;
  };
  /// What to run when the server answered a step that carried the graph's first `end`
  /// nodes (a value, no allocation beyond a reference count).
  Answered on_answered(std::size_t end) const { return {answered_, end}; }
  /// The connection was lost: the next `take` starts at the last node the server has.
  void resend_unacknowledged();

 private:
  Graph& graph_;
  std::size_t sent_ = 0;
  std::shared_ptr<std::atomic<std::size_t>> answered_ =
      std::make_shared<std::atomic<std::size_t>>(0);
};

/// A step as a session hands it to its master client.
struct ClientStep {
  std::vector<Output> fetches;
  FeedDict feeds;
  std::vector<Operation> targets;
  /// The step's timeout (0: none), the session's default applied.
  std::int64_t timeout_ms = 0;
  /// Receives a traced step's stats; null when the step is not traced.
  RunMetadata* metadata = nullptr;
  /// Fires once, from any thread.
  std::function<void(Status, std::vector<Tensor>)> done;
};

/// `step` as a request by the served graph's names (serve_step.hpp), without a graph delta
/// (the local client imports its nodes itself); its feeds' tensors move into it.
StepRequest step_request_of(ClientStep& step);

/// The way a session's steps reach its master (see the top of this file).
class MasterClient {
 public:
  /// The three kinds.
  enum class Kind { local, step_channel, caf };
  virtual ~MasterClient() = default;
  /// Which kind this client is.
  virtual Kind kind() const = 0;
  /// Starts `step` with the graph's nodes the server lacks (`deltas`). Called under the
  /// session's `lock`, which keeps deltas and requests in order; the client releases it
  /// before anything that may run `step.done` on this thread.
  virtual void start(ClientStep step, GraphDeltas& deltas, std::unique_lock<std::mutex>& lock) = 0;
  /// Closes the session on the server; steps in flight end with Cancelled. Once only, and
  /// no `start` after it (RemoteSession keeps both promises).
  virtual void close() = 0;
  /// The master service's handle now (it changes when the client reconnects).
  virtual caf::actor server() const = 0;
};

/// The client of session `id`, opened on `server` (the master service at `target`), of the
/// kind that reaches it best (see the top of this file; `config.use_local_master` allows
/// `local`).
std::unique_ptr<MasterClient> open_master_client(Runtime& runtime, caf::actor server,
                                                 const std::string& target, std::uint64_t id,
                                                 const SessionConfig& config);

/// A wire client (`step_channel` when `step_channel`, else `caf`) of session `id` on
/// `server`; `open_master_client` chooses.
std::unique_ptr<MasterClient> open_wire_master_client(Runtime& runtime, caf::actor server,
                                                      const std::string& target, std::uint64_t id,
                                                      const SessionConfig& config,
                                                      bool step_channel);

}  // namespace af
