// Runs a client's step on a served session (serve_step.hpp), and the wire encoding of a
// step's request and reply around it.
#include "serve_step.hpp"

#include <charconv>
#include <type_traits>
#include <utility>

#include "actorflow/ops/graph_json.hpp"
#include "wire.hpp"

namespace af {

namespace {

/// Adds the nodes of a client's graph delta that the served graph does not have yet: a
/// client whose connection was lost sends again the nodes since the last step the server
/// answered, some of which it may have.
void import_delta(Graph& graph, std::string_view delta) {
  for (const NodeDef& node : graph_def_from_json(delta).nodes)
    if (!graph.contains(node.name)) graph.add_node_def(node);
}

/// ":index", the part of an output's name after its node's, written into `buf`.
std::string_view index_suffix(const Output& o, char (&buf)[16]) {
  buf[0] = ':';
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf, o.index());
  return {buf, static_cast<std::size_t>(end - buf)};
}

/// The length of an output's name, "node:index".
std::size_t name_size(const Output& o) {
  char buf[16];
  return o.node()->name().size() + index_suffix(o, buf).size();
}

/// Writes an output's name, "node:index", as WireWriter::str writes a string.
void write_name(net::WireWriter& out, const Output& o) {
  char buf[16];
  const std::string_view suffix = index_suffix(o, buf);
  const std::string& node = o.node()->name();
  out.u64(node.size() + suffix.size());
  out.raw(node);
  out.raw(suffix);
}

/// A request as `decode_request` reads it for the wire ways, its names and graph delta
/// viewing the request's bytes (no name copied).
struct StepRequestView {
  std::string_view graph_delta;
  std::vector<std::pair<std::string_view, Tensor>> feeds;
  std::vector<std::string_view> fetches;
  std::vector<std::string_view> targets;
  RunOptions options;
  std::uint64_t bulk_ticket = 0;
};

bool read_name(net::WireReader& in, std::string* name) { return in.str(name); }
bool read_name(net::WireReader& in, std::string_view* name) { return in.view(name); }

/// Reads a run request into a StepRequest or a StepRequestView.
template <class Request>
Status decode_request(std::string_view bytes, Request* out) {
  net::WireReader in(bytes, "run request");
  std::uint64_t n = 0;
  std::int64_t timeout_ms = 0;
  std::uint8_t trace = 0;
  if (!read_name(in, &out->graph_delta)) return in.status();
  if (!in.count(&n, 9)) return in.status();
  out->feeds.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    typename decltype(out->feeds)::value_type feed;
    if (!read_name(in, &feed.first) || !in.tensor(&feed.second)) return in.status();
    out->feeds.push_back(std::move(feed));
  }
  for (auto* names : {&out->fetches, &out->targets}) {
    if (!in.count(&n, 8)) return in.status();
    names->reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      typename std::remove_pointer_t<decltype(names)>::value_type name;
      if (!read_name(in, &name)) return in.status();
      names->push_back(std::move(name));
    }
  }
  if (!in.i64(&timeout_ms) || !in.u8(&trace)) return in.status();
  // The bulk ticket is optional: a request without an await ends here.
  if (!in.at_end() && !in.u64(&out->bulk_ticket)) return in.status();
  if (!in.at_end()) return data_loss("malformed run request: trailing bytes");
  out->options.timeout_in_ms = timeout_ms;
  out->options.trace = trace != 0;
  return {};
}

/// `serve_step` for a StepRequest or a StepRequestView (its feeds' tensors move out);
/// `done` is any callable `void(Status, std::vector<Tensor>)`, wrapped once, with the count.
template <class Request, class Done>
void serve_names(const std::shared_ptr<ServedSession>& served, Request& request, StepCaller caller,
                 RunMetadata* metadata, const std::shared_ptr<ServerMetrics>& metrics, Done done) {
  FeedDict feeds;
  std::vector<Output> fetches;
  std::vector<Operation> targets;
  std::unique_lock<std::mutex> lock(served->mu);
  try {
    if (!request.graph_delta.empty()) import_delta(served->graph, request.graph_delta);
    feeds.reserve(request.feeds.size());
    for (auto& [name, value] : request.feeds)
      feeds.emplace_back(served->graph.output(name), std::move(value));
    fetches.reserve(request.fetches.size());
    for (auto& name : request.fetches) fetches.push_back(served->graph.output(name));
    targets.reserve(request.targets.size());
    for (auto& name : request.targets) targets.push_back(served->graph.operation(name));
  } catch (...) {
    lock.unlock();
    return done(status_from_exception(std::current_exception()), {});
  }
  auto counted = [metrics, done = std::move(done)](Status s, std::vector<Tensor> values) mutable {
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

}  // namespace

std::string encode_step_request(const ClientStepView& step) {
  // Room for the fields and names (one allocation for a request without large feeds).
  std::size_t size = 64 + step.graph_delta.size();
  for (auto& f : step.fetches) size += 8 + name_size(f);
  for (auto& t : step.targets) size += 8 + t.node()->name().size();
  for (auto& [key, value] : step.feeds) size += 48 + name_size(key);
  net::WireWriter out(size);
  out.str(step.graph_delta);
  out.u64(step.feeds.size());
  for (auto& [key, value] : step.feeds) {
    write_name(out, key);
    out.tensor(value);
  }
  out.u64(step.fetches.size());
  for (auto& f : step.fetches) write_name(out, f);
  out.u64(step.targets.size());
  for (auto& t : step.targets) out.str(t.node()->name());
  out.i64(step.options.timeout_in_ms);
  out.u8(step.options.trace ? 1 : 0);
  if (step.bulk_ticket != 0) out.u64(step.bulk_ticket);
  return out.take();
}

Status decode_step_request(std::string_view bytes, StepRequest* out) {
  return decode_request(bytes, out);
}

std::string encode_step_reply(const std::vector<Tensor>& values, const RunMetadata* metadata,
                              net::BulkServer* bulk, std::uint64_t bulk_ticket) {
  std::size_t size = 16;  // room for the counts and small values' headers and bytes
  for (const auto& v : values)
    size += 48 + (v.is_initialized() && v.total_bytes() < net::kBulkMinBytes ? v.total_bytes() : 0);
  net::WireWriter out(size);
  out.u64(values.size());
  for (const auto& v : values) {
    if (bulk && v.is_initialized() && v.dtype() != DType::string && v.dtype() != DType::resource &&
        v.total_bytes() >= net::kBulkMinBytes)
      out.bulk_ref(v, bulk->port(), bulk->offer(v, std::exchange(bulk_ticket, 0)));
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
  serve_names(served, request, caller, metadata, metrics, std::move(done));
}

void serve_encoded_step(const std::shared_ptr<ServedSession>& served, std::string_view request,
                        StepCaller caller, const std::shared_ptr<net::BulkServer>& bulk,
                        const std::shared_ptr<ServerMetrics>& metrics,
                        std::function<void(Status, std::string)> done) {
  metrics->client_bytes_received += request.size();
  // The names view `request`, which outlives the resolving of them in `serve_names`.
  StepRequestView step;
  if (Status s = decode_request(request, &step); !s.ok()) return done(std::move(s), {});
  auto metadata = step.options.trace ? std::make_shared<RunMetadata>() : nullptr;
  RunMetadata* raw = metadata.get();
  serve_names(served, step, caller, raw, metrics,
              [bulk, metadata, metrics, ticket = bulk ? step.bulk_ticket : 0,
               done = std::move(done)](Status s, std::vector<Tensor> values) {
                std::string reply;
                if (s.ok()) {
                  reply = encode_step_reply(values, metadata.get(), bulk.get(), ticket);
                  metrics->client_bytes_sent += reply.size();
                }
                done(std::move(s), std::move(reply));
                // The value's bytes follow the reply on the client's awaiting connection.
                if (ticket != 0) bulk->settle(ticket);
              });
}

}  // namespace af
