#pragma once

// How a task runs a client's step on one of its served sessions: one function, `serve_step`,
// whichever way the step came (the step channel's io thread, the master service's
// master_run over CAF, or a client in this same process). The two wire ways read and write
// the step in wire.hpp's encoding around it (`decode_step_request`, `encode_step_reply`).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "master_service.hpp"

namespace af {

/// A step as a client asks for it, by the served graph's names.
struct StepRequest {
  /// JSON of the client's nodes the served graph may lack (import_graph_json's format);
  /// empty when the client sent none (or imported them itself, in this process).
  std::string graph_delta;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  RunOptions options;  ///< timeout and trace
  /// Not 0: the ticket of the client's await on the bulk port (bulk_channel.hpp): the
  /// first large value is offered under it, and the ticket settled after the reply.
  std::uint64_t bulk_ticket = 0;
};

/// Where `serve_step` is called from, which decides how the step starts.
enum class StepCaller {
  io_thread,      ///< a thread that must not block: `Session::start_step_here`
  actor,          ///< an actor: `Session::start_step`
  client_thread,  ///< the client's own thread, in this process: `start_step_here`, the
                  ///< served session's lock released first (`done` may start the next step)
};

/// A step as the client's graph holds it: its feeds, fetches and targets by handle, named
/// only as they are written (`encode_step_request`), with no StepRequest built.
struct ClientStepView {
  std::string_view graph_delta;  ///< as StepRequest::graph_delta
  const FeedDict& feeds;
  const std::vector<Output>& fetches;
  const std::vector<Operation>& targets;
  RunOptions options;
  std::uint64_t bulk_ticket = 0;  ///< as StepRequest::bulk_ticket
};

/// Writes `step` in wire.hpp's master_run encoding (what the wire clients send), its names
/// written straight from the graph's nodes.
std::string encode_step_request(const ClientStepView& step);
/// Reads a run request in wire.hpp's master_run encoding; errors (DataLoss) name the field.
Status decode_step_request(std::string_view bytes, StepRequest* out);

/// The reply to a step in wire.hpp's encoding: the values (numeric ones of at least
/// kBulkMinBytes offered on `bulk`'s port, when there is one, the first under `bulk_ticket`
/// when that is not 0, the reply carrying their transfer ids) and the step stats of
/// `metadata` (null: none).
std::string encode_step_reply(const std::vector<Tensor>& values, const RunMetadata* metadata,
                              net::BulkServer* bulk, std::uint64_t bulk_ticket = 0);

/// Runs `request` on `served`: imports its graph delta (nodes the served graph has are
/// skipped: a client that lost its connection sends them again), resolves its names and
/// starts the step as `caller` may. `metadata` (may be null) receives a traced step's stats
/// and must live until `done`. `done` fires once, from any thread, with the fetched tensors.
/// Counts the step and its errors in `metrics`.
void serve_step(const std::shared_ptr<ServedSession>& served, StepRequest request,
                StepCaller caller, RunMetadata* metadata,
                const std::shared_ptr<ServerMetrics>& metrics,
                std::function<void(Status, std::vector<Tensor>)> done);

/// `serve_step` for a request in wire.hpp's encoding, answered in it (`encode_step_reply`):
/// what the step channel and master_run do. A request's bulk ticket is settled on `bulk`
/// once `done` has returned (the reply handed to the client's connection), whether the step
/// ran or failed. Counts the bytes both ways in `metrics`.
void serve_encoded_step(const std::shared_ptr<ServedSession>& served, std::string_view request,
                        StepCaller caller, const std::shared_ptr<net::BulkServer>& bulk,
                        const std::shared_ptr<ServerMetrics>& metrics,
                        std::function<void(Status, std::string)> done);

}  // namespace af
