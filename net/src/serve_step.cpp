// Runs a client's step on a served session (serve_step.hpp), and the wire encoding of a
// step's request and reply around it.
#include "serve_step.hpp"

#include "actorflow/ops/graph_json.hpp"
#include "wire.hpp"

namespace af {

namespace {

/// Adds the nodes of a client's graph delta that the served graph does not have yet: a
/// client whose connection was lost sends again the nodes since the last step the server
/// answered, some of which it may have.
void import_delta(Graph& graph, const std::string& delta) {
  for (const NodeDef& node : graph_def_from_json(delta).nodes)
    if (!graph.contains(node.name)) graph.add_node_def(node);
}

}  // namespace

std::string encode_step_request(const StepRequest& request) {
  net::WireWriter out;
  out.str(request.graph_delta);
  out.u64(request.feeds.size());
  for (auto& [name, value] : request.feeds) {
    out.str(name);
    out.tensor(value);
  }
  for (auto* names : {&request.fetches, &request.targets}) {
    out.u64(names->size());
    for (auto& name : *names) out.str(name);
  }
  out.i64(request.options.timeout_in_ms);
  out.u8(request.options.trace ? 1 : 0);
  return out.take();
}

Status decode_step_request(const std::string& bytes, StepRequest* out) {
  net::WireReader in(bytes, "run request");
  std::uint64_t n = 0;
  std::int64_t timeout_ms = 0;
  std::uint8_t trace = 0;
  if (!in.str(&out->graph_delta)) return in.status();
  if (!in.count(&n, 9)) return in.status();
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string name;
    Tensor value;
    if (!in.str(&name) || !in.tensor(&value)) return in.status();
    out->feeds.emplace_back(std::move(name), std::move(value));
  }
  for (auto* names : {&out->fetches, &out->targets}) {
    if (!in.count(&n, 8)) return in.status();
    for (std::uint64_t i = 0; i < n; ++i) {
      std::string name;
      if (!in.str(&name)) return in.status();
      names->push_back(std::move(name));
    }
  }
  if (!in.i64(&timeout_ms) || !in.u8(&trace)) return in.status();
  if (!in.at_end()) return data_loss("malformed run request: trailing bytes");
  out->options.timeout_in_ms = timeout_ms;
  out->options.trace = trace != 0;
  return {};
}

std::string encode_step_reply(const std::vector<Tensor>& values, const RunMetadata* metadata,
                              net::BulkServer* bulk) {
  net::WireWriter out;
  out.u64(values.size());
  for (const auto& v : values) {
    if (bulk && v.is_initialized() && v.dtype() != DType::string && v.dtype() != DType::resource &&
        v.total_bytes() >= net::kBulkMinBytes)
      out.bulk_ref(v, bulk->port(), bulk->offer(v));
    else
      out.tensor(v);
  }
  // Step stats of every task the step ran on (traced steps).
  out.stats(metadata ? metadata->step_stats : std::vector<NodeExecStats>{});
  return out.take();
}

void serve_step(const std::shared_ptr<ServedSession>& served, StepRequest request,
                StepCaller caller, RunMetadata* metadata,
                const std::shared_ptr<ServerMetrics>& metrics,
                std::function<void(Status, std::vector<Tensor>)> done) {
  FeedDict feeds;
  std::vector<Output> fetches;
  std::vector<Operation> targets;
  std::unique_lock<std::mutex> lock(served->mu);
  try {
    if (!request.graph_delta.empty()) import_delta(served->graph, request.graph_delta);
    for (auto& [name, value] : request.feeds)
      feeds.emplace_back(served->graph.output(name), std::move(value));
    for (auto& name : request.fetches) fetches.push_back(served->graph.output(name));
    for (auto& name : request.targets) targets.push_back(served->graph.operation(name));
  } catch (...) {
    lock.unlock();
    return done(status_from_exception(std::current_exception()), {});
  }
  auto counted = [metrics, done = std::move(done)](Status s, std::vector<Tensor> values) {
    ++metrics->steps;
    if (!s.ok()) ++metrics->step_errors;
    done(std::move(s), std::move(values));
  };
  // A wire caller starts the step under the served session's lock: no other request
  // imports nodes into the graph while the step's plan reads it. The client's own thread
  // releases it first: its `done` may start the session's next step right here.
  if (caller == StepCaller::client_thread) lock.unlock();
  if (caller == StepCaller::actor)
    served->session->start_step(std::move(fetches), std::move(feeds), std::move(targets),
                                request.options, metadata, std::move(counted));
  else
    // A thread that must not block: a step without waiting kernels starts right here (and
    // hands its expensive kernels to the device actor).
    served->session->start_step_here(std::move(fetches), std::move(feeds), std::move(targets),
                                     request.options, metadata, std::move(counted));
}

void serve_encoded_step(const std::shared_ptr<ServedSession>& served, const std::string& request,
                        StepCaller caller, const std::shared_ptr<net::BulkServer>& bulk,
                        const std::shared_ptr<ServerMetrics>& metrics,
                        std::function<void(Status, std::string)> done) {
  metrics->client_bytes_received += request.size();
  StepRequest step;
  if (Status s = decode_step_request(request, &step); !s.ok()) return done(std::move(s), {});
  auto metadata = step.options.trace ? std::make_shared<RunMetadata>() : nullptr;
  RunMetadata* raw = metadata.get();
  serve_step(
      served, std::move(step), caller, raw, metrics,
      [bulk, metadata, metrics, done = std::move(done)](Status s, std::vector<Tensor> values) {
        std::string reply;
        if (s.ok()) {
          reply = encode_step_reply(values, metadata.get(), bulk.get());
          metrics->client_bytes_sent += reply.size();
        }
        done(std::move(s), std::move(reply));
      });
}

}  // namespace af
