// A task's master service (master_protocol.hpp): opens served sessions on the task's
// devices and the other tasks' (through their proxies), runs their steps (serve_step.hpp),
// closes and resets.
#include "master_service.hpp"

#include <algorithm>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/errors.hpp"
#include "cluster_agent_protocol.hpp"
#include "master_protocol.hpp"
#include "serve_step.hpp"
#include "wire.hpp"
#include "worker_protocol.hpp"

namespace af {

namespace {

struct LocalRegistries {
  std::mutex mu;
  std::vector<std::weak_ptr<StepRegistry>> registries;
};

LocalRegistries& local_registries() {
  static auto* registries =
      new LocalRegistries;  // never destroyed: servers may outlive main's statics
  return *registries;
}

}  // namespace

void add_local_step_registry(const std::shared_ptr<StepRegistry>& registry) {
  auto& local = local_registries();
  std::lock_guard<std::mutex> lock(local.mu);
  std::erase_if(local.registries, [](const std::weak_ptr<StepRegistry>& r) { return r.expired(); });
  local.registries.push_back(registry);
}

std::shared_ptr<StepRegistry> find_local_step_registry(std::uint64_t token, std::uint16_t port) {
  auto& local = local_registries();
  std::lock_guard<std::mutex> lock(local.mu);
  for (auto& weak : local.registries)
    if (auto registry = weak.lock();
        registry && port != 0 && registry->port == port && registry->find(token))
      return registry;
  return nullptr;
}

namespace {

struct MasterState {
  std::shared_ptr<DeviceSet> devices;
  SessionConfig config;
  std::string task_name;  ///< "/job:worker/replica:0/task:0"
  caf::actor worker;
  caf::actor agent;                       ///< null in a single-task cluster
  std::shared_ptr<net::BulkServer> bulk;  ///< null when the bulk port could not be opened
  std::shared_ptr<net::Routes> routes;
  std::shared_ptr<ServerMetrics> metrics;
  std::shared_ptr<StepRegistry> steps;
  std::int64_t peer_wait_ms = 0;
  std::map<std::uint64_t, std::shared_ptr<ServedSession>> sessions;
  std::uint64_t next_session = 1;
  std::map<std::uint64_t, caf::response_promise> pending;
  std::uint64_t next_pending = 1;
  static inline const char* name = "af.master_service";
};
using MasterActor = caf::stateful_actor<MasterState>;

void close_all(MasterState& st) {
  st.steps->clear();
  for (auto& [id, s] : st.sessions) s->session->close();
  st.sessions.clear();
  st.metrics->open_sessions = 0;
}

/// The devices a session of this task sees: its own plus those of every other task, which
/// run through the tasks' proxies.
std::shared_ptr<const DeviceSet> cluster_view(MasterState& st, const net::PeerList& peers,
                                              const std::vector<DeviceSpec>& filters) {
  if (!peers || peers->empty()) return st.devices;
  auto view = std::make_shared<DeviceSet>(*st.devices);
  view->owned_resources.clear();  // the task's set owns them
  auto wanted = [&](const std::string& device) {
    if (filters.empty()) return true;
    DeviceSpec d = DeviceSpec::parse(device);
    return std::any_of(filters.begin(), filters.end(),
                       [&](const DeviceSpec& f) { return f.matches(d); });
  };
  for (const auto& peer : *peers)
    for (const auto& d : peer.devices) {
      if (!wanted(d.name)) continue;
      view->attributes.push_back(d);
      view->actors[d.name] = peer.proxy;
    }
  std::vector<net::task_proxy_handle> proxies;
  for (const auto& peer : *peers) proxies.push_back(peer.proxy);
  view->remote_send = [routes = st.routes, task = st.task_name](
                          std::int64_t step_id, const std::string& key, const Tensor& value) {
    return net::route_tensor(*routes, task, step_id, key, value);
  };
  view->on_session_close = [proxies](const std::string& scope) {
    for (auto& p : proxies) caf::anon_send(p, net::worker_forget_atom::value, scope);
  };
  return view;
}

/// Delivers the answer of pending request `key` (a run or an open), unless the server
/// stopped meanwhile and answered it already.
template <class T>
void answer(MasterActor* self, std::uint64_t key, T&& value) {
  auto it = self->state.pending.find(key);
  if (it == self->state.pending.end()) return;
  it->second.deliver(std::forward<T>(value));
  self->state.pending.erase(it);
}

/// The client's placement flags for one session, as TensorFlow merges CreateSession's
/// ConfigProto into the server's default session config (a flag set on either side holds).
struct OpenFlags {
  bool allow_soft_placement = false;
  bool log_device_placement = false;
};

std::uint64_t open_session(MasterActor* self, const net::PeerList& peers,
                           const std::vector<DeviceSpec>& filters, OpenFlags flags) {
  auto s = std::make_shared<ServedSession>();
  SessionConfig config = self->state.config;
  config.allow_soft_placement = config.allow_soft_placement || flags.allow_soft_placement;
  config.log_device_placement = config.log_device_placement || flags.log_device_placement;
  s->session =
      std::make_unique<Session>(s->graph, config, cluster_view(self->state, peers, filters));
  auto id = self->state.next_session++;
  self->state.steps->add(s);
  self->state.sessions.emplace(id, std::move(s));
  self->state.metrics->open_sessions = static_cast<std::int64_t>(self->state.sessions.size());
  return id;
}

/// master_open: as TensorFlow's CreateSession, a session opens once every task of the
/// cluster is reachable (their devices are candidates for placement).
caf::result<std::uint64_t> open_session_when_ready(MasterActor* self,
                                                   const std::vector<std::string>& filter_specs,
                                                   OpenFlags flags) {
  std::vector<DeviceSpec> filters;
  if (Status s = net::parse_device_filters(filter_specs, &filters); !s.ok()) return to_caf_error(s);
  if (!self->state.agent) return open_session(self, nullptr, filters, flags);
  // Tracked with the run promises: a server stopping meanwhile answers Cancelled instead of
  // leaving the client waiting for its open timeout.
  auto key = self->state.next_pending++;
  self->state.pending.emplace(key, self->make_response_promise());
  auto wait = std::chrono::milliseconds(self->state.peer_wait_ms);
  self->request(self->state.agent, wait + std::chrono::seconds(5),
                net::cluster_agent_peers_atom::value, self->state.peer_wait_ms, filter_specs)
      .then(
          [self, key, filters, flags](const net::PeerList& peers) {
            answer(self, key, open_session(self, peers, filters, flags));
          },
          [self, key](caf::error& e) { answer(self, key, std::move(e)); });
  return caf::delegated<std::uint64_t>();
}

/// master_run: starts a step of session `id`; the reply comes back as master_step_done.
caf::result<std::string> run_step(MasterActor* self, std::uint64_t id, const std::string& request) {
  auto it = self->state.sessions.find(id);
  if (it == self->state.sessions.end())
    return to_caf_error(aborted("Session " + std::to_string(id) + " is not open on " +
                                self->state.task_name + " (closed, or its containers were reset)"));
  auto key = self->state.next_pending++;
  self->state.pending.emplace(key, self->make_response_promise());
  caf::actor me = caf::actor_cast<caf::actor>(self);
  serve_encoded_step(it->second, request, StepCaller::actor, self->state.bulk, self->state.metrics,
                     [me, key](Status s, std::string reply) {
                       caf::anon_send(me, net::master_step_done_atom::value, key, to_caf_error(s),
                                      std::move(reply));
                     });
  return caf::delegated<std::string>();
}

/// master_step_port: the step channel of a session, its token and the step port
/// (Unimplemented when the server has no step channel, e.g. with TLS).
caf::result<std::string> step_port_of(MasterActor* self, std::uint64_t id) {
  auto it = self->state.sessions.find(id);
  const std::uint16_t port = self->state.steps->port.load();
  if (it == self->state.sessions.end() || port == 0)
    return to_caf_error(unimplemented("no step channel for session " + std::to_string(id) + " on " +
                                      self->state.task_name));
  net::WireWriter out;
  out.u64(it->second->token);
  out.u64(port);
  return out.take();
}

/// master_fetch: a tensor offered on the bulk port, read over CAF by a client that port
/// does not serve (refused, unreachable, out of descriptors).
caf::result<std::string> fetch_offered(MasterActor* self, std::uint64_t transfer) {
  auto value = self->state.bulk ? self->state.bulk->take(transfer) : std::nullopt;
  if (!value)
    return to_caf_error(data_loss("bulk tensor transfer " + std::to_string(transfer) +
                                  " is unknown to " + self->state.task_name +
                                  " (expired or already collected)"));
  return std::string(static_cast<const char*>(value->raw_data()), value->total_bytes());
}

/// master_close: closes session `id` (a session already gone is no error).
std::string close_session(MasterActor* self, std::uint64_t id) {
  auto it = self->state.sessions.find(id);
  if (it != self->state.sessions.end()) {
    self->state.steps->remove(it->second->token);
    it->second->session->close();
    self->state.sessions.erase(it);
    self->state.metrics->open_sessions = static_cast<std::int64_t>(self->state.sessions.size());
  }
  return {};
}

/// master_reset: as TensorFlow's Reset, every session on this server is closed, then the
/// containers' resources are freed.
caf::result<std::string> reset_containers(MasterActor* self, const std::string& blob) {
  net::WireReader in(blob, "reset request");
  std::uint64_t n = 0;
  std::vector<std::string> containers;
  if (!in.count(&n, 8)) return to_caf_error(in.status());
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string c;
    if (!in.str(&c)) return to_caf_error(in.status());
    containers.push_back(std::move(c));
  }
  close_all(self->state);
  for (auto& d : self->state.devices->devices) {
    for (auto& c : containers) {
      d->resource_mgr().cleanup(c.empty() ? d->resource_mgr().default_container() : c);
      if (auto* shared = d->shared_resource_mgr())
        shared->cleanup(c.empty() ? shared->default_container() : c);
    }
  }
  return std::string();
}

void on_exit(MasterActor* self, const caf::exit_msg& msg) {
  close_all(self->state);
  for (auto& [id, rp] : self->state.pending)
    rp.deliver(to_caf_error(cancelled("Server " + self->state.task_name + " stopped")));
  self->state.pending.clear();
  self->quit(msg.reason);
}

caf::behavior master_service(MasterActor* self, std::shared_ptr<DeviceSet> devices,
                             SessionConfig config, std::string task_name, caf::actor worker,
                             std::shared_ptr<net::Routes> routes,
                             std::shared_ptr<ServerMetrics> metrics,
                             std::shared_ptr<StepRegistry> steps, std::int64_t peer_wait_ms) {
  self->state.metrics = std::move(metrics);
  self->state.steps = std::move(steps);
  self->state.devices = std::move(devices);
  self->state.config = std::move(config);
  self->state.task_name = std::move(task_name);
  self->state.worker = std::move(worker);
  self->state.routes = std::move(routes);
  self->state.peer_wait_ms = peer_wait_ms;
  self->set_exit_handler([self](caf::exit_msg& msg) { on_exit(self, msg); });
  using namespace net;
  return {
      [self](master_set_agent_atom, caf::actor agent) { self->state.agent = std::move(agent); },
      [self](master_set_bulk_atom, std::shared_ptr<BulkServer> bulk) {
        self->state.bulk = std::move(bulk);
      },
      [self](master_open_atom, const std::vector<std::string>& filters, bool soft, bool log) {
        return open_session_when_ready(self, filters, OpenFlags{soft, log});
      },
      [self](master_worker_atom) -> std::tuple<caf::actor, std::string, std::string> {
        // The third part: this task's tensor push port and token (port 0: none).
        const net::PushEndpoint push = self->state.routes->local_push();
        net::WireWriter out;
        out.u64(push.port);
        out.u64(push.token);
        return {self->state.worker, encode_devices(self->state.devices->attributes), out.take()};
      },
      [self](master_run_atom, std::uint64_t id, const std::string& request) {
        return run_step(self, id, request);
      },
      [self](master_step_port_atom, std::uint64_t id) { return step_port_of(self, id); },
      [self](master_fetch_atom, std::uint64_t transfer) { return fetch_offered(self, transfer); },
      [self](master_step_done_atom, std::uint64_t key, const caf::error& err, std::string& reply) {
        if (err) return answer(self, key, err);
        answer(self, key, std::move(reply));
      },
      [self](master_close_atom, std::uint64_t id) { return close_session(self, id); },
      [self](master_reset_atom, const std::string& containers) {
        return reset_containers(self, containers);
      },
      [self](master_devices_atom) { return encode_devices(self->state.devices->attributes); },
  };
}

}  // namespace

caf::actor spawn_master_service(caf::actor_system& sys, std::shared_ptr<DeviceSet> devices,
                                SessionConfig config, std::string task_name, caf::actor worker,
                                std::shared_ptr<net::Routes> routes,
                                std::shared_ptr<ServerMetrics> metrics,
                                std::shared_ptr<StepRegistry> steps, std::int64_t peer_wait_ms) {
  return sys.spawn(master_service, std::move(devices), std::move(config), std::move(task_name),
                   std::move(worker), std::move(routes), std::move(metrics), std::move(steps),
                   peer_wait_ms);
}

}  // namespace af
