// A session's MasterClient (master_client.hpp): which kind reaches its server, the `local`
// kind (a server in this process), and what every kind shares: the target's address, the
// connection to its master service, the graph deltas.
#include "master_client.hpp"

#include <caf/io/all.hpp>

#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph_json.hpp"
#include "basp_dial.hpp"
#include "master_protocol.hpp"
#include "master_service.hpp"
#include "serve_step.hpp"
#include "wire.hpp"

namespace af {

std::pair<std::string, std::uint16_t> parse_target(const std::string& target) {
  const std::string prefix = "caf://";
  if (target.compare(0, prefix.size(), prefix) != 0)
    throw InvalidArgumentError(
        invalid_argument("Session target '" + target + "' is not caf://host:port"));
  try {
    return ClusterSpec::split_address(target.substr(prefix.size()));
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(invalid_argument("Session target '" + target + "': " + e.what()));
  }
}

caf::actor connect(Runtime& runtime, const std::string& target) {
  auto& sys = runtime.system();
  auto [target_host, target_port] = parse_target(target);
  auto [whom, ask] = net::dial(runtime, target_host, target_port);
  caf::scoped_actor self{sys};
  caf::actor server;
  Status failure;
  self->request(whom, kControlTimeout, std::move(ask))
      .receive([&](const caf::node_id&, caf::strong_actor_ptr& ptr,
                   const std::set<std::string>&) { server = caf::actor_cast<caf::actor>(ptr); },
               [&](caf::error& e) {
                 failure = unavailable("cannot connect to " + target + ": " + sys.render(e));
               });
  if (!failure.ok()) throw UnavailableError(failure);
  if (!server) throw UnavailableError(unavailable("no actorflow server is published at " + target));
  return server;
}

bool ask_step_port(caf::actor_system& sys, const caf::actor& server, const std::string& target,
                   std::uint64_t id, std::chrono::milliseconds timeout, std::uint64_t* token,
                   std::uint16_t* port) {
  std::string blob;
  try {
    blob =
        control<std::string>(sys, server, target, timeout, net::master_step_port_atom::value, id);
  } catch (const Error&) {
    return false;
  }
  net::WireReader in(blob, "step channel of " + target);
  std::uint64_t t = 0, p = 0;
  if (!in.u64(&t) || !in.u64(&p) || p == 0 || p > 65535) return false;
  *token = t;
  *port = static_cast<std::uint16_t>(p);
  return true;
}

StepRequest step_request_of(ClientStep& step) {
  StepRequest request;
  request.feeds.reserve(step.feeds.size());
  for (auto& [o, t] : step.feeds) request.feeds.emplace_back(o.name(), std::move(t));
  for (auto& f : step.fetches) request.fetches.push_back(f.name());
  for (auto& t : step.targets) request.targets.push_back(t.name());
  request.options.timeout_in_ms = step.timeout_ms;
  request.options.trace = step.metadata != nullptr;
  return request;
}

// -- GraphDeltas -----------------------------------------------------------------------------

std::string GraphDeltas::take(std::size_t* end) {
  *end = sent_;
  // Nothing added since the last step (the common case): no copy of the graph's nodes.
  if (static_cast<std::size_t>(graph_.num_nodes()) <= sent_) return {};
  GraphDef def = graph_.to_graph_def();
  if (def.nodes.size() <= sent_) return {};
  GraphDef delta;
  delta.version = def.version;
  delta.nodes.assign(
      std::make_move_iterator(def.nodes.begin() + static_cast<std::ptrdiff_t>(sent_)),
      std::make_move_iterator(def.nodes.end()));
  std::string json = graph_def_to_json(delta, -1);
  sent_ = *end = def.nodes.size();
  return json;
}

void GraphDeltas::Answered::operator()() const {
  for (std::size_t seen = answered->load();
       seen < end && !answered->compare_exchange_weak(seen, end);) {
  }
}

void GraphDeltas::resend_unacknowledged() { sent_ = std::min(sent_, answered_->load()); }

namespace {

/// The `local` kind: the session is served by a server of this process, found through its
/// step registry by the step channel's token. Steps call `serve_step` on the caller's
/// thread with the tensors as they are. When that server or session is gone, steps take
/// `fallback`'s CAF path, which reports why; closing goes there too.
class LocalMasterClient final : public MasterClient {
 public:
  LocalMasterClient(std::weak_ptr<StepRegistry> registry, std::uint64_t token,
                    std::unique_ptr<MasterClient> fallback)
      : registry_(std::move(registry)), token_(token), fallback_(std::move(fallback)) {}

  Kind kind() const override { return Kind::local; }
  caf::actor server() const override { return fallback_->server(); }
  void close() override { fallback_->close(); }

  void start(ClientStep step, GraphDeltas& deltas, std::unique_lock<std::mutex>& lock) override {
    auto registry = registry_.lock();
    auto served = registry && registry->port != 0 ? registry->find(token_) : nullptr;
    if (!served) return fallback_->start(std::move(step), deltas, lock);
    try {
      // Graph deltas reach the served graph in order: taken and imported under the
      // session's lock; `serve_step` runs the step outside it.
      std::size_t end = 0;
      if (std::string delta = deltas.take(&end); !delta.empty()) {
        std::lock_guard<std::mutex> served_lock(served->mu);
        import_graph_json(served->graph, delta);
      }
      deltas.on_answered(end)();
    } catch (...) {
      lock.unlock();
      return step.done(status_from_exception(std::current_exception()), {});
    }
    lock.unlock();
    serve_step(served, step_request_of(step), StepCaller::client_thread, step.metadata,
               registry->metrics, std::move(step.done));
  }

 private:
  std::weak_ptr<StepRegistry> registry_;
  std::uint64_t token_;
  std::unique_ptr<MasterClient> fallback_;
};

}  // namespace

std::unique_ptr<MasterClient> open_master_client(Runtime& runtime, caf::actor server,
                                                 const std::string& target, std::uint64_t id,
                                                 const SessionConfig& config) {
  if (config.use_local_master) {
    // The step channel's token and port name the served session; a registry of this
    // process holding both is its server.
    std::uint64_t token = 0;
    std::uint16_t port = 0;
    if (ask_step_port(runtime.system(), server, target, id, kControlTimeout, &token, &port))
      if (auto registry = find_local_step_registry(token, port))
        return std::make_unique<LocalMasterClient>(
            registry, token,
            open_wire_master_client(runtime, std::move(server), target, id, config, false));
  }
  return open_wire_master_client(runtime, std::move(server), target, id, config, true);
}

}  // namespace af
