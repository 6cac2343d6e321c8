// The cluster agent: connects this task to every other task of the cluster and keeps the
// connections (worker handle, devices, proxy) current. A task that cannot be reached is
// retried every half second; what the task waits for is logged when it starts waiting and
// then at most every `log_every`. A task that goes away (process killed, heartbeats lost)
// is reconnected when it comes back; new sessions then use the new incarnation.
#include <caf/io/all.hpp>
#include <chrono>
#include <map>
#include <set>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "basp_dial.hpp"
#include "cluster.hpp"
#include "cluster_agent_protocol.hpp"
#include "master_protocol.hpp"
#include "wire.hpp"

namespace af::net {

Status parse_device_filters(const std::vector<std::string>& specs, std::vector<DeviceSpec>* out) {
  for (const auto& f : specs) {
    DeviceSpec spec;
    if (Status s = DeviceSpec::parse(f, &spec); !s.ok())
      return invalid_argument("device_filters: " + s.message());
    out->push_back(std::move(spec));
  }
  return {};
}

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kRetryDelay = std::chrono::milliseconds(500);
/// A peer that is simply starting a little later is not news: nothing is logged of it for
/// this long.
constexpr auto kQuietStart = std::chrono::seconds(1);

/// Whether a connection error is the ordinary "not listening yet" of a peer still starting.
bool not_listening_yet(const std::string& error) {
  return error.find("cannot_connect_to_node") != std::string::npos ||
         error.find("ip_connect failed") != std::string::npos;
}

struct PeerState {
  std::string task;
  std::string host;
  std::uint16_t port = 0;
  bool connecting = false;
  bool connected = false;
  caf::actor master;
  Peer peer;
  /// The master service lost last (node and actor id), and the proxy that served its task:
  /// a reconnect to the same server of the same process hands that proxy the new
  /// connection, so sessions that placed nodes there go on.
  caf::actor_addr lost_master;
  task_proxy_handle lost_proxy;
  std::string last_error;
  std::chrono::steady_clock::time_point waiting_since{};
  std::chrono::steady_clock::time_point last_log{};
  bool announced = false;  ///< a line said it is waited for (or lost): its connection is news
  bool stopped = false;    ///< it said it stopped: reconnected only when a session needs it
};

struct Waiter {
  caf::response_promise promise;
  std::chrono::steady_clock::time_point deadline;
  std::vector<DeviceSpec> filters;  ///< the session's device filters (empty: every task)
};

struct AgentState {
  Runtime* runtime = nullptr;
  std::string task;
  detail::rendezvous_handle local_rendezvous;
  std::shared_ptr<Routes> routes;
  std::chrono::milliseconds log_every{10000};
  std::map<std::string, PeerState> peers;
  std::map<std::uint64_t, Waiter> waiters;
  std::uint64_t next_waiter = 1;
  std::vector<task_proxy_handle> retired_proxies;
  bool stopping = false;
  static inline const char* name = "af.cluster_agent";
};
using AgentActor = caf::stateful_actor<AgentState>;

/// Whether a session with `filters` needs `task` (TensorFlow's device_filters: a filter
/// names a job, a task or a device; a task is needed when one of them could match it).
bool needed(const std::vector<DeviceSpec>& filters, const std::string& task) {
  if (filters.empty()) return true;
  DeviceSpec t = DeviceSpec::parse(task);
  for (const auto& f : filters) {
    DeviceSpec task_part;
    task_part.job = f.job;
    task_part.replica = f.replica;
    task_part.task = f.task;
    if (task_part.matches(t)) return true;
  }
  return false;
}

bool all_connected(const AgentState& st, const std::vector<DeviceSpec>& filters = {}) {
  for (auto& [task, p] : st.peers)
    if (!p.connected && needed(filters, task)) return false;
  return true;
}

PeerList snapshot(const AgentState& st) {
  auto list = std::make_shared<std::vector<Peer>>();
  for (auto& [task, p] : st.peers) list->push_back(p.peer);
  return list;
}

std::string missing(const AgentState& st, const std::vector<DeviceSpec>& filters) {
  std::string out;
  for (auto& [task, p] : st.peers) {
    if (p.connected || !needed(filters, task)) continue;
    if (!out.empty()) out += "; ";
    out += task + " at " + p.host + ":" + std::to_string(p.port);
    if (!p.last_error.empty()) out += " (last error: " + p.last_error + ")";
  }
  return out;
}

void answer_waiters(AgentActor* self) {
  auto& st = self->state;
  for (auto it = st.waiters.begin(); it != st.waiters.end();) {
    if (all_connected(st, it->second.filters)) {
      it->second.promise.deliver(snapshot(st));
      it = st.waiters.erase(it);
    } else {
      ++it;
    }
  }
}

void connect(AgentActor* self, const std::string& task);

void failed(AgentActor* self, const std::string& task, std::string why) {
  auto& st = self->state;
  auto it = st.peers.find(task);
  if (it == st.peers.end() || st.stopping) return;
  auto& p = it->second;
  p.connecting = false;
  p.last_error = std::move(why);
  auto now = std::chrono::steady_clock::now();
  if (p.waiting_since == std::chrono::steady_clock::time_point{}) p.waiting_since = now;
  // Nothing for the first second, then one line, repeated every `log_every` with the time
  // waited; the error only when it is not the ordinary "not listening yet".
  if (now - p.waiting_since >= kQuietStart &&
      (p.last_log == std::chrono::steady_clock::time_point{} || now - p.last_log >= st.log_every)) {
    p.last_log = now;
    p.announced = true;
    auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - p.waiting_since).count();
    std::string detail = std::to_string(waited) + " s so far";
    if (!not_listening_yet(p.last_error)) detail += "; last error: " + p.last_error;
    log_info(st.task + ": waiting for " + task + " at " + p.host + ":" + std::to_string(p.port) +
             " (" + detail + ")");
  }
  self->delayed_send(self, kRetryDelay, cluster_agent_retry_atom::value, task);
}

void connected(AgentActor* self, const std::string& task, caf::actor master, caf::actor worker,
               std::vector<DeviceAttributes> devices, PushEndpoint push) {
  auto& st = self->state;
  auto it = st.peers.find(task);
  if (it == st.peers.end() || st.stopping) return;
  auto& p = it->second;
  p.connecting = false;
  p.connected = true;
  p.master = master;
  p.peer.task = task;
  p.peer.address = p.host + ":" + std::to_string(p.port);
  p.peer.worker = worker;
  p.peer.devices = std::move(devices);
  if (p.lost_proxy && p.lost_master == caf::actor_cast<caf::actor_addr>(master)) {
    // The same process, back after a freeze or a broken link: its variables and queues are
    // intact, and the proxy that served it serves again.
    p.peer.proxy = std::exchange(p.lost_proxy, task_proxy_handle());
    std::erase(st.retired_proxies, p.peer.proxy);
    self->send(p.peer.proxy, proxy_revive_atom::value, worker);
  } else {
    p.peer.proxy = spawn_task_proxy(self->system(), task, p.peer.address, worker, st.task,
                                    st.local_rendezvous, st.routes);
  }
  p.lost_master = caf::actor_addr();
  p.lost_proxy = nullptr;
  // A push that makes no progress for as long as CAF takes to declare the peer lost gives up
  // (its tensor goes over CAF, where the loss fails the step).
  const auto& o = st.runtime->options();
  const auto give_up =
      o.heartbeat_interval_ms > 0 && o.connection_timeout_ms > 0
          ? std::chrono::milliseconds(o.connection_timeout_ms + o.heartbeat_interval_ms)
          : std::chrono::milliseconds(10000);
  st.routes->set(task, worker, std::move(push), give_up);
  if (p.announced) log_info(st.task + ": connected to " + task + " at " + p.peer.address);
  p.announced = false;
  p.waiting_since = {};
  p.last_log = {};
  p.last_error.clear();
  self->monitor(master);
  answer_waiters(self);
}

void connect(AgentActor* self, const std::string& task) {
  auto& p = self->state.peers.at(task);
  if (p.connecting || p.connected || self->state.stopping) return;
  p.connecting = true;
  // With TLS, over a fresh tunnel handed to the BASP broker.
  std::pair<caf::actor, caf::message> dial_to;
  try {
    dial_to = dial(*self->state.runtime, p.host, p.port);
  } catch (const Error& e) {
    return failed(self, task, e.what());
  }
  self->request(dial_to.first, kConnectTimeout, std::move(dial_to.second))
      .then(
          [self, task](const caf::node_id&, caf::strong_actor_ptr& ptr,
                       const std::set<std::string>&) {
            auto master = caf::actor_cast<caf::actor>(ptr);
            if (!master) return failed(self, task, "no actorflow server is published there");
            self->request(master, kConnectTimeout, master_worker_atom::value)
                .then(
                    [self, task, master](caf::actor& worker, std::string& blob,
                                         std::string& push_blob) {
                      std::vector<DeviceAttributes> devices;
                      if (Status s = decode_devices(blob, "device list of " + task, &devices);
                          !s.ok())
                        return failed(self, task, s.message());
                      if (!worker) return failed(self, task, "it has no worker service");
                      // Its push port is on the address this task reached it at.
                      PushEndpoint push;
                      WireReader in(push_blob, "push endpoint of " + task);
                      std::uint64_t port = 0, token = 0;
                      if (in.u64(&port) && in.u64(&token) && port > 0 && port <= 65535) {
                        push.host = self->state.peers.at(task).host;
                        push.port = static_cast<std::uint16_t>(port);
                        push.token = token;
                      }
                      connected(self, task, master, worker, std::move(devices), std::move(push));
                    },
                    [self, task](caf::error& e) { failed(self, task, self->system().render(e)); });
          },
          [self, task](caf::error& e) { failed(self, task, self->system().render(e)); });
}

caf::behavior cluster_agent(AgentActor* self, Runtime* runtime, ClusterSpec cluster,
                            std::string job, int task, detail::rendezvous_handle local_rendezvous,
                            std::shared_ptr<Routes> routes, std::chrono::milliseconds log_every) {
  auto& st = self->state;
  st.runtime = runtime;
  st.task = "/job:" + job + "/replica:0/task:" + std::to_string(task);
  st.local_rendezvous = std::move(local_rendezvous);
  st.routes = std::move(routes);
  st.log_every = log_every;
  for (const auto& name : cluster.jobs())
    for (int index : cluster.task_indices(name)) {
      if (name == job && index == task) continue;
      PeerState p;
      p.task = "/job:" + name + "/replica:0/task:" + std::to_string(index);
      std::tie(p.host, p.port) = ClusterSpec::split_address(cluster.task_address(name, index));
      st.peers.emplace(p.task, std::move(p));
    }
  for (auto& [name, p] : st.peers) connect(self, name);
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& st = self->state;
    for (auto& [name, p] : st.peers) {
      if (!p.connected || caf::actor_cast<caf::actor_addr>(p.master) != msg.source) continue;
      // An orderly stop (user_shutdown: Server::stop, SIGTERM) is a stop, not a loss: said
      // once, and the peer is reconnected only when a session needs it again.
      p.stopped = msg.reason == caf::exit_reason::user_shutdown;
      if (p.stopped)
        log_info(st.task + ": " + name + " at " + p.peer.address + " stopped");
      else
        log_info(st.task + ": lost " + name + " at " + p.peer.address + " (" +
                 self->system().render(msg.reason) + "); reconnecting");
      p.connected = false;
      st.routes->set(name, caf::actor());
      // The old proxy stays: sessions that placed nodes on the lost task fail with
      // Unavailable through it until the same process is back (then it serves again); a
      // restarted process gets a new proxy, and those sessions keep failing (a new
      // session uses the new process). It quits with the server.
      st.retired_proxies.push_back(p.peer.proxy);
      p.lost_proxy = p.peer.proxy;
      p.lost_master = caf::actor_cast<caf::actor_addr>(p.master);
      p.peer = Peer{};
      p.master = caf::actor();
      p.last_error = "connection lost: " + self->system().render(msg.reason);
      p.waiting_since = std::chrono::steady_clock::now();
      p.last_log = p.waiting_since;
      p.announced = !p.stopped;
      if (!p.stopped) self->delayed_send(self, kRetryDelay, cluster_agent_retry_atom::value, name);
    }
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& st = self->state;
    st.stopping = true;
    for (auto& [name, p] : st.peers)
      if (p.peer.proxy) caf::anon_send_exit(p.peer.proxy, caf::exit_reason::user_shutdown);
    for (auto& proxy : st.retired_proxies)
      caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
    for (auto& [id, w] : st.waiters)
      w.promise.deliver(to_caf_error(cancelled("Server " + st.task + " stopped")));
    st.waiters.clear();
    self->quit(msg.reason);
  });
  return {
      [self](cluster_agent_retry_atom, const std::string& task) {
        if (!self->state.peers.at(task).stopped) connect(self, task);
      },
      [self](cluster_agent_peers_atom, std::int64_t wait_ms,
             const std::vector<std::string>& filter_specs) -> caf::result<PeerList> {
        auto& st = self->state;
        std::vector<DeviceSpec> filters;
        if (Status s = parse_device_filters(filter_specs, &filters); !s.ok())
          return to_caf_error(s);
        if (all_connected(st, filters)) return snapshot(st);
        // Peers that stopped in order are dialled again now that a session needs them.
        for (auto& [name, p] : st.peers)
          if (p.stopped && needed(filters, name)) {
            p.stopped = false;
            p.waiting_since = std::chrono::steady_clock::now();
            connect(self, name);
          }
        auto id = st.next_waiter++;
        st.waiters.emplace(
            id, Waiter{self->make_response_promise(),
                       std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms),
                       std::move(filters)});
        self->delayed_send(self, std::chrono::milliseconds(wait_ms),
                           cluster_agent_expire_atom::value, id);
        return caf::delegated<PeerList>();
      },
      [self](cluster_agent_expire_atom, std::uint64_t id) {
        auto& st = self->state;
        auto it = st.waiters.find(id);
        if (it == st.waiters.end()) return;
        it->second.promise.deliver(to_caf_error(
            unavailable("Server " + st.task +
                        " could not reach every task of its cluster in time: waiting for " +
                        missing(st, it->second.filters))));
        st.waiters.erase(it);
      },
  };
}

}  // namespace

caf::actor spawn_cluster_agent(Runtime& runtime, ClusterSpec cluster, std::string job, int task,
                               detail::rendezvous_handle local_rendezvous,
                               std::shared_ptr<Routes> routes,
                               std::chrono::milliseconds log_every) {
  return runtime.system().spawn(cluster_agent, &runtime, std::move(cluster), std::move(job), task,
                                std::move(local_rendezvous), std::move(routes), log_every);
}

}  // namespace af::net
