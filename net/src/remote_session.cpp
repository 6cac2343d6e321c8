// The client side of `caf://host:port` sessions: connects to a server's master service,
// ships the graph as it grows (only the nodes it has not sent yet) and runs steps there.
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/net/server.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph_json.hpp"
#include "bulk_channel.hpp"
#include "master_service.hpp"
#include "step_channel.hpp"
#include "tls_tunnel.hpp"
#include "master_protocol.hpp"
#include "wire.hpp"

namespace af {

namespace {

constexpr auto kControlTimeout = std::chrono::seconds(10);
/// Opening waits for the server to reach the other tasks of its cluster (ServerOptions::peer_wait).
constexpr auto kOpenTimeout = std::chrono::seconds(120);
/// How long after a step's deadline the client ends it itself when the server has not answered
/// (the server's own DeadlineExceeded, with its detail, normally comes first).
constexpr auto kClientDeadlineGrace = std::chrono::milliseconds(250);

/// One step in flight from this client; `done` fires once.
struct RemoteCall {
  std::string request;
  std::chrono::milliseconds timeout{0};
  std::function<void(Status, std::string)> done;
  std::atomic<bool> fired{false};
  void finish(Status s, std::string reply) {
    if (!fired.exchange(true)) done(std::move(s), std::move(reply));
  }
};

}  // namespace
}  // namespace af

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::RemoteCall>)

namespace af {

namespace {

std::pair<std::string, std::uint16_t> parse_target(const std::string& target) {
  const std::string prefix = "caf://";
  if (target.compare(0, prefix.size(), prefix) != 0)
    throw InvalidArgumentError(invalid_argument("Session target '" + target + "' is not caf://host:port"));
  try {
    return ClusterSpec::split_address(target.substr(prefix.size()));
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(invalid_argument("Session target '" + target + "': " + e.what()));
  }
}

/// Connects to the master service at `target` (never blocks longer than kControlTimeout);
/// with TLS through the runtime's loopback forwarder for it.
caf::actor connect(Runtime& runtime, const std::string& target) {
  auto& sys = runtime.system();
  auto [target_host, target_port] = parse_target(target);
  auto [whom, ask] = net::dial(runtime, target_host, target_port);
  caf::scoped_actor self{sys};
  caf::actor server;
  Status failure;
  self->request(whom, kControlTimeout, std::move(ask))
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
            server = caf::actor_cast<caf::actor>(ptr);
          },
          [&](caf::error& e) { failure = unavailable("cannot connect to " + target + ": " + sys.render(e)); });
  if (!failure.ok()) throw UnavailableError(failure);
  if (!server) throw UnavailableError(unavailable("no actorflow server is published at " + target));
  return server;
}

/// A blocking control request (open, close, reset, devices) with a finite timeout.
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

/// How long a large tensor read over CAF may take (the bulk port's fallback).
constexpr auto kFetchTimeout = std::chrono::seconds(120);
/// After the bulk port failed a client, its large tensors come over CAF for this long.
constexpr auto kBulkRefusedBackoff = std::chrono::seconds(10);

/// Reads offered tensor `ref` over CAF into `into`, for a client the server's bulk port does
/// not serve (refused, unreachable, flooded, out of descriptors). The server hands an offer
/// out once, whichever way asks first.
Status fetch_over_caf(caf::actor_system& sys, const caf::actor& server, const std::string& target,
                      const net::BulkRef& ref, Tensor& into) {
  std::string bytes;
  try {
    bytes = control<std::string>(sys, server, target, kFetchTimeout, net::master_fetch_atom::value, ref.transfer_id);
  } catch (const Error& e) {
    return e.status();
  }
  if (bytes.size() != into.total_bytes())
    return data_loss("bulk tensor transfer " + std::to_string(ref.transfer_id) + " from " + target + " has " +
                     std::to_string(bytes.size()) + " bytes, expected " + std::to_string(into.total_bytes()));
  std::memcpy(into.raw_data(), bytes.data(), bytes.size());
  return {};
}

/// Reads the large tensors of a reply, on the bulk client's thread: from the server's bulk
/// port, or over CAF when that port fails this client (and for a while after).
struct LargeTensorReader {
  caf::actor_system* sys;
  caf::actor server;
  std::string target;
  std::chrono::steady_clock::time_point bulk_refused_until{};  ///< bulk client's thread only

  Status read(net::BulkClient& client, const net::BulkRef& ref, Tensor& into) {
    const auto now = std::chrono::steady_clock::now();
    if (now < bulk_refused_until) return fetch_over_caf(*sys, server, target, ref, into);
    Status bulk = client.fetch(ref.port, ref.transfer_id, into.raw_data(), into.total_bytes());
    if (bulk.code() != Code::unavailable) return bulk;
    Status caf_path = fetch_over_caf(*sys, server, target, ref, into);
    if (!caf_path.ok())
      return Status(caf_path.code(), bulk.message() + "; over CAF: " + caf_path.message());
    bulk_refused_until = std::chrono::steady_clock::now() + kBulkRefusedBackoff;
    return caf_path;
  }
};

struct ProxyState {
  caf::actor server;
  std::shared_ptr<net::StepClient> step;  ///< failed too when the server goes away
  std::string target;
  std::map<std::uint64_t, std::shared_ptr<RemoteCall>> pending;
  std::uint64_t next = 0;
  static inline const char* name = "af.remote_session";
};
using ProxyActor = caf::stateful_actor<ProxyState>;

/// Sends the client's steps to the server, one request each, and fails them all if the
/// server goes away (a down message) or the session closes.
caf::behavior remote_session_proxy(ProxyActor* self, caf::actor server, std::string target, std::uint64_t id,
                                   std::shared_ptr<net::StepClient> step) {
  self->state.server = server;
  self->state.step = std::move(step);
  self->state.target = target;
  self->monitor(server);
  auto fail_all = [self](const Status& why) {
    auto pending = std::move(self->state.pending);
    self->state.pending.clear();
    for (auto& [k, call] : pending) call->finish(why, {});
  };
  self->set_down_handler([self, fail_all](caf::down_msg& msg) {
    Status why = unavailable("server " + self->state.target + " is unavailable: " + self->system().render(msg.reason));
    // Steps on the step channel learn of a dead or frozen server from CAF's monitoring too.
    if (self->state.step) self->state.step->fail_all(why);
    fail_all(why);
  });
  self->set_exit_handler([self, fail_all](caf::exit_msg& msg) {
    fail_all(cancelled("Session on " + self->state.target + " was closed"));
    self->quit(msg.reason);
  });
  return {
      [self, id](net::master_call_atom, std::shared_ptr<RemoteCall> call) {
        auto key = self->state.next++;
        self->state.pending.emplace(key, call);
        // The server ends a step at its deadline; this ends it here too, a little later, when
        // the server does not answer (frozen, flooded): the deadline holds on every path.
        auto timeout = call->timeout.count() > 0 ? call->timeout + kClientDeadlineGrace : std::chrono::hours(24);
        self->request(self->state.server, timeout, net::master_run_atom::value, id, call->request)
            .then(
                [self, key](std::string& reply) {
                  auto it = self->state.pending.find(key);
                  if (it == self->state.pending.end()) return;
                  auto c = it->second;
                  self->state.pending.erase(it);
                  c->finish({}, std::move(reply));
                },
                [self, key](caf::error& e) {
                  auto it = self->state.pending.find(key);
                  if (it == self->state.pending.end()) return;
                  auto c = it->second;
                  self->state.pending.erase(it);
                  if (e == caf::sec::request_timeout && c->timeout.count() > 0)
                    return c->finish(deadline_exceeded("Timed out waiting for notification: step on " +
                                                       self->state.target + " exceeded its deadline of " +
                                                       std::to_string(c->timeout.count()) +
                                                       " ms with no reply from the server"),
                                     {});
                  c->finish(status_from_caf_error(e, "step on " + self->state.target), {});
                });
      },
  };
}

class RemoteSession final : public SessionBackend {
 public:
  RemoteSession(Graph& graph, const std::string& target, const SessionConfig& config)
      : graph_(graph), target_(target), config_(config),
        runtime_(config.runtime ? config.runtime : &Runtime::global()) {
    auto& sys = runtime_->system();
    server_ = connect(*runtime_, target_);
    id_ = control<std::uint64_t>(sys, server_, target_, kOpenTimeout, net::master_open_atom::value,
                                 config_.device_filters);
    step_ = open_step_channel();
    proxy_ = sys.spawn(remote_session_proxy, server_, target_, id_, step_);
    bulk_ = std::make_shared<net::BulkClient>(parse_target(target_).first, "Session on " + target_);
    large_ = std::make_shared<LargeTensorReader>(LargeTensorReader{&sys, server_, target_});
  }
  ~RemoteSession() override { close(); }

  void start_step(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                  const RunOptions& options, RunMetadata* metadata,
                  std::function<void(Status, std::vector<Tensor>)> done) override {
    const bool trace = options.trace && metadata != nullptr;
    if (local_token_ != 0 && start_local_step(fetches, feeds, targets, options, trace ? metadata : nullptr, done))
      return;
    auto call = std::make_shared<RemoteCall>();
    std::int64_t timeout = options.timeout_in_ms > 0 ? options.timeout_in_ms : config_.operation_timeout_in_ms;
    call->timeout = std::chrono::milliseconds(timeout);
    const std::size_t expected = fetches.size();
    call->done = [done = std::move(done), expected, target = target_, metadata, large = large_,
                  weak_bulk = std::weak_ptr<net::BulkClient>(bulk_)](Status s, std::string reply) mutable {
      if (!s.ok()) return done(std::move(s), {});
      net::WireReader in(reply, "run reply from " + target);
      std::uint64_t n = 0;
      std::vector<Tensor> values;
      std::vector<std::pair<std::size_t, net::BulkRef>> refs;
      if (in.count(&n, 2)) {
        for (std::uint64_t i = 0; i < n; ++i) {
          Tensor t;
          net::BulkRef ref;
          if (!in.tensor(&t, &ref)) break;
          if (ref.present) refs.emplace_back(values.size(), ref);
          values.push_back(std::move(t));
        }
      }
      std::vector<NodeExecStats> stats;
      if (in.status().ok()) in.stats(&stats);
      if (!in.status().ok()) return done(in.status(), {});
      if (metadata) metadata->step_stats = std::move(stats);
      if (values.size() != expected)
        return done(data_loss("run reply from " + target + " has " + std::to_string(values.size()) +
                              " values for " + std::to_string(expected) + " fetches"),
                    {});
      if (refs.empty()) return done({}, std::move(values));
      // Large tensors: read their bytes from the server's bulk port on the bulk client's
      // thread, straight into the tensors returned.
      auto bulk = weak_bulk.lock();
      if (!bulk) return done(cancelled("Session on " + target + " was closed"), {});
      bulk->post([client = bulk.get(), large = std::move(large), done = std::move(done), values = std::move(values),
                  refs = std::move(refs)]() mutable {
        for (auto& [index, ref] : refs) {
          Tensor& t = values[index];
          t = client->landing_tensor(ref.dtype, ref.shape);
          Status fetched = large->read(*client, ref, t);
          if (!fetched.ok()) return done(std::move(fetched), {});
        }
        done({}, std::move(values));
      });
    };
    caf::actor proxy;
    {
      // Graph deltas must reach the server in order: encode and send under one lock.
      std::lock_guard<std::mutex> lock(mu_);
      if (!proxy_) return call->finish(failed_precondition("Attempted to use a closed Session."), {});
      net::WireWriter out;
      try {
        out.str(graph_delta());
      } catch (...) {
        return call->finish(status_from_exception(std::current_exception()), {});
      }
      out.u64(feeds.size());
      for (auto& [o, t] : feeds) {
        out.str(o.name());
        out.tensor(t);
      }
      out.u64(fetches.size());
      for (auto& f : fetches) out.str(f.name());
      out.u64(targets.size());
      for (auto& t : targets) out.str(t.name());
      out.i64(timeout);
      out.u8(trace ? 1 : 0);
      call->request = out.take();
      if (step_) {
        // The step channel keeps every request of this session in order on one connection;
        // a request it does not send (the connection broke, the server refused it, or the
        // request is too large for it) takes the CAF path.
        const auto deadline = timeout > 0 ? std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout) +
                                                kClientDeadlineGrace
                                          : std::chrono::steady_clock::time_point::max();
        if (step_->run(
                call->request, [call](Status s, std::string reply) { call->finish(std::move(s), std::move(reply)); },
                deadline, timeout))
          return;
      }
      caf::anon_send(proxy_, net::master_call_atom::value, call);
    }
  }

  void close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!proxy_) return;
      caf::anon_send(server_, net::master_close_atom::value, id_);
      caf::anon_send_exit(proxy_, caf::exit_reason::user_shutdown);
      proxy_ = caf::actor();
    }
    // Outside the lock: the failed steps' callbacks may call back into this session.
    if (step_) step_->fail_all(cancelled("Session on " + target_ + " was closed"));
  }

  std::vector<DeviceAttributes> list_devices() const override {
    auto blob = control<std::string>(runtime_->system(), server_, target_, kControlTimeout, net::master_devices_atom::value);
    net::WireReader in(blob, "device list from " + target_);
    std::uint64_t n = 0;
    std::vector<DeviceAttributes> out;
    if (in.count(&n, 24)) {
      for (std::uint64_t i = 0; i < n; ++i) {
        DeviceAttributes a;
        if (!in.str(&a.name) || !in.str(&a.device_type) || !in.i64(&a.memory_limit)) break;
        out.push_back(std::move(a));
      }
    }
    throw_if_error(in.status());
    return out;
  }

 private:
  /// The server's step channel for this session, or null (a TLS server has none; then
  /// steps travel over CAF).
  std::shared_ptr<net::StepClient> open_step_channel() {
    std::string blob;
    try {
      blob = control<std::string>(runtime_->system(), server_, target_, kControlTimeout, net::master_step_port_atom::value, id_);
    } catch (const Error&) {
      return nullptr;
    }
    net::WireReader in(blob, "step channel of " + target_);
    std::uint64_t token = 0, port = 0;
    if (!in.u64(&token) || !in.u64(&port) || port == 0 || port > 65535) return nullptr;
    if (auto registry = config_.use_local_master ? find_local_step_registry(token, static_cast<std::uint16_t>(port))
                                                 : nullptr) {
      local_ = registry;
      local_token_ = token;
      return nullptr;
    }
    try {
      return std::make_shared<net::StepClient>(parse_target(target_).first, static_cast<std::uint16_t>(port), token,
                                               "Session on " + target_);
    } catch (const Error&) {
      return nullptr;  // CAF still works
    }
  }

  /// Runs a step on the served session of a server in this process, its tensors passed as
  /// they are; false (nothing done) when that server or session is gone, so that the CAF
  /// path reports it.
  bool start_local_step(const std::vector<Output>& fetches, const FeedDict& feeds,
                        const std::vector<Operation>& targets, const RunOptions& options, RunMetadata* metadata,
                        std::function<void(Status, std::vector<Tensor>)>& done) {
    auto registry = local_.lock();
    auto served = registry && registry->port != 0 ? registry->find(local_token_) : nullptr;
    if (!served) return false;
    std::vector<std::pair<std::string, Tensor>> named_feeds;
    named_feeds.reserve(feeds.size());
    for (auto& [o, t] : feeds) named_feeds.emplace_back(o.name(), t);
    std::vector<std::string> fetch_names, target_names;
    for (auto& f : fetches) fetch_names.push_back(f.name());
    for (auto& t : targets) target_names.push_back(t.name());
    {
      // Graph deltas reach the served graph in order: taken and imported under one lock.
      std::lock_guard<std::mutex> lock(mu_);
      if (!proxy_) {
        done(failed_precondition("Attempted to use a closed Session."), {});
        return true;
      }
      try {
        std::string delta = graph_delta();
        if (!delta.empty()) {
          std::lock_guard<std::mutex> served_lock(served->mu);
          import_graph_json(served->graph, delta);
        }
      } catch (...) {
        done(status_from_exception(std::current_exception()), {});
        return true;
      }
    }
    RunOptions served_options = options;
    if (served_options.timeout_in_ms <= 0) served_options.timeout_in_ms = config_.operation_timeout_in_ms;
    run_local_request(served, named_feeds, fetch_names, target_names, served_options, metadata, registry->metrics,
                      std::move(done));
    return true;
  }

  /// JSON of the nodes added since the last step (caller holds mu_).
  std::string graph_delta() {
    // Nothing added since the last step (the common case): no copy of the graph's nodes.
    if (static_cast<std::size_t>(graph_.num_nodes()) <= sent_nodes_) return {};
    GraphDef def = graph_.to_graph_def();
    if (def.nodes.size() <= sent_nodes_) return {};
    GraphDef delta;
    delta.version = def.version;
    delta.nodes.assign(std::make_move_iterator(def.nodes.begin() + static_cast<std::ptrdiff_t>(sent_nodes_)),
                       std::make_move_iterator(def.nodes.end()));
    std::string json = graph_def_to_json(delta, -1);
    sent_nodes_ = def.nodes.size();
    return json;
  }

  Graph& graph_;
  std::string target_;
  SessionConfig config_;
  Runtime* runtime_;
  caf::actor server_;
  std::uint64_t id_ = 0;
  std::mutex mu_;
  caf::actor proxy_;
  std::size_t sent_nodes_ = 0;
  std::shared_ptr<net::BulkClient> bulk_;  ///< reads large fetched tensors (bulk_channel.hpp)
  std::shared_ptr<net::StepClient> step_;  ///< runs steps (step_channel.hpp); null: over CAF
  std::shared_ptr<LargeTensorReader> large_;  ///< used on bulk_'s thread only
  /// The step registry of the server in this process that serves this session (TensorFlow's
  /// LocalMaster): steps skip the step channel and the wire; `local_token_` is 0 otherwise.
  std::weak_ptr<StepRegistry> local_;
  std::uint64_t local_token_ = 0;
};

void reset_containers(const std::string& target, const std::vector<std::string>& containers) {
  auto& sys = Runtime::global().system();
  auto server = connect(Runtime::global(), target);
  net::WireWriter out;
  out.u64(containers.size());
  for (auto& c : containers) out.str(c);
  control<std::string>(sys, server, target, kControlTimeout, net::master_reset_atom::value, out.take());
}

}  // namespace

bool register_caf_session_target() {
  static const bool done = [] {
    register_session_target(
        "caf", SessionTarget{[](Graph& g, const std::string& target, const SessionConfig& config) {
                               return std::unique_ptr<SessionBackend>(new RemoteSession(g, target, config));
                             },
                             reset_containers});
    return true;
  }();
  return done;
}

}  // namespace af
