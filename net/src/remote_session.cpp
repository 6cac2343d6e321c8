// The client side of `caf://host:port` sessions: connects to a server's master service,
// ships the graph as it grows (only the nodes it has not sent yet) and runs steps there.
#include <algorithm>
#include <atomic>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/net/server.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph_json.hpp"
#include "actorflow/ops/logging.hpp"
#include "basp_dial.hpp"
#include "bulk_channel.hpp"
#include "master_protocol.hpp"
#include "master_service.hpp"
#include "step_channel.hpp"
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
  std::size_t nodes_end = 0;  ///< the client's graph nodes the server has once it runs this
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
    throw InvalidArgumentError(
        invalid_argument("Session target '" + target + "' is not caf://host:port"));
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
      .receive([&](const caf::node_id&, caf::strong_actor_ptr& ptr,
                   const std::set<std::string>&) { server = caf::actor_cast<caf::actor>(ptr); },
               [&](caf::error& e) {
                 failure = unavailable("cannot connect to " + target + ": " + sys.render(e));
               });
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
    bytes = control<std::string>(sys, server, target, kFetchTimeout, net::master_fetch_atom::value,
                                 ref.transfer_id);
  } catch (const Error& e) {
    return e.status();
  }
  if (bytes.size() != into.total_bytes())
    return data_loss("bulk tensor transfer " + std::to_string(ref.transfer_id) + " from " + target +
                     " has " + std::to_string(bytes.size()) + " bytes, expected " +
                     std::to_string(into.total_bytes()));
  std::memcpy(into.raw_data(), bytes.data(), bytes.size());
  return {};
}

/// What a session and its proxy actor share about their server (any thread): the master
/// service's handle, replaced when the proxy reconnects; the step channel, closed when the
/// connection is lost and opened again after a reconnect; how many losses were noticed.
class ServerLink {
 public:
  explicit ServerLink(caf::actor server) : server_(std::move(server)) {}

  caf::actor server() const {
    std::lock_guard<std::mutex> lock(mu_);
    return server_;
  }
  void set_server(caf::actor server) {
    std::lock_guard<std::mutex> lock(mu_);
    server_ = std::move(server);
  }
  std::shared_ptr<net::StepClient> step() const {
    std::lock_guard<std::mutex> lock(mu_);
    return step_;
  }
  /// Installs a step channel opened after loss number `losses` (dropped when another loss
  /// came meanwhile: it would lead to a server the session no longer reaches).
  void set_step(std::shared_ptr<net::StepClient> step, std::uint64_t losses) {
    std::lock_guard<std::mutex> lock(mu_);
    if (losses == losses_) step_ = std::move(step);
  }
  std::uint64_t losses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return losses_;
  }
  /// The connection is lost: counts it and fails the steps in flight on the step channel.
  void lost(const Status& why) {
    std::shared_ptr<net::StepClient> step;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++losses_;
      step = std::move(step_);
    }
    if (step) step->fail_all(why);
  }

 private:
  mutable std::mutex mu_;
  caf::actor server_;
  std::shared_ptr<net::StepClient> step_;
  std::uint64_t losses_ = 0;
};

/// The step channel of session `id` on `server`, or null (a TLS server has none, or it
/// cannot be reached within `connect_timeout`: steps then travel over CAF). `token` and
/// `port` receive what the server said even when the connection is not made.
std::shared_ptr<net::StepClient> open_step_client(caf::actor_system& sys, const caf::actor& server,
                                                  const std::string& target, std::uint64_t id,
                                                  std::chrono::milliseconds connect_timeout,
                                                  std::uint64_t* token = nullptr,
                                                  std::uint16_t* port = nullptr) {
  std::string blob;
  try {
    blob = control<std::string>(sys, server, target, connect_timeout,
                                net::master_step_port_atom::value, id);
  } catch (const Error&) {
    return nullptr;
  }
  net::WireReader in(blob, "step channel of " + target);
  std::uint64_t t = 0, p = 0;
  if (!in.u64(&t) || !in.u64(&p) || p == 0 || p > 65535) return nullptr;
  if (token) *token = t;
  if (port) *port = static_cast<std::uint16_t>(p);
  try {
    return std::make_shared<net::StepClient>(parse_target(target).first,
                                             static_cast<std::uint16_t>(p), t,
                                             "Session on " + target, connect_timeout);
  } catch (const Error&) {
    return nullptr;  // CAF still works
  }
}

/// Reads the large tensors of a reply, on the bulk client's thread: from the server's bulk
/// port, or over CAF when that port fails this client (and for a while after).
struct LargeTensorReader {
  caf::actor_system* sys;
  std::shared_ptr<ServerLink> link;
  std::string target;
  std::chrono::steady_clock::time_point bulk_refused_until{};  ///< bulk client's thread only

  Status read(net::BulkClient& client, const net::BulkRef& ref, Tensor& into) {
    const auto now = std::chrono::steady_clock::now();
    if (now < bulk_refused_until) return fetch_over_caf(*sys, link->server(), target, ref, into);
    Status bulk = client.fetch(ref.port, ref.transfer_id, into.raw_data(), into.total_bytes());
    if (bulk.code() != Code::unavailable) return bulk;
    Status caf_path = fetch_over_caf(*sys, link->server(), target, ref, into);
    if (!caf_path.ok())
      return Status(caf_path.code(), bulk.message() + "; over CAF: " + caf_path.message());
    bulk_refused_until = std::chrono::steady_clock::now() + kBulkRefusedBackoff;
    return caf_path;
  }
};

struct ProxyState {
  std::shared_ptr<ServerLink> link;
  Runtime* runtime = nullptr;
  std::string target;
  std::uint64_t id = 0;  ///< the session on the server (it outlives a lost connection)
  caf::actor server;     ///< link->server(), kept here for the actor's own use
  bool connected = true;
  bool connecting = false;
  /// How long a reconnect may take: CAF's connection timeout plus a heartbeat.
  std::chrono::milliseconds reconnect_wait{3500};
  /// Opens the step channel again after a reconnect (on another thread); null: the session
  /// has none.
  std::function<void(std::uint64_t losses)> reopen_step;
  std::map<std::uint64_t, std::shared_ptr<RemoteCall>> pending;
  std::vector<std::uint64_t> waiting;  ///< of `pending`: held until the connection is back
  std::uint64_t next = 0;
  static inline const char* name = "af.remote_session";
};
using ProxyActor = caf::stateful_actor<ProxyState>;

/// Takes call `key` out of the pending calls (null when it already ended).
std::shared_ptr<RemoteCall> take_call(ProxyActor* self, std::uint64_t key) {
  auto it = self->state.pending.find(key);
  if (it == self->state.pending.end()) return nullptr;
  auto call = std::move(it->second);
  self->state.pending.erase(it);
  return call;
}

/// Sends pending call `key` to the server. The server ends a step at its deadline; this
/// ends it here too, a little later, when the server does not answer (frozen, flooded): the
/// deadline holds on every path. Without a deadline the request waits untimed: a lost
/// connection fails it (the down handler), within CAF's connection timeout plus a heartbeat.
void send_call(ProxyActor* self, std::uint64_t key) {
  auto it = self->state.pending.find(key);
  if (it == self->state.pending.end()) return;
  const auto& call = it->second;
  const caf::duration timeout = call->timeout.count() > 0
                                    ? caf::duration{call->timeout + kClientDeadlineGrace}
                                    : caf::duration{caf::infinite};
  self->request(self->state.server, timeout, net::master_run_atom::value, self->state.id,
                call->request)
      .then(
          [self, key](std::string& reply) {
            if (auto c = take_call(self, key)) c->finish({}, std::move(reply));
          },
          [self, key](caf::error& e) {
            auto c = take_call(self, key);
            if (!c) return;
            if (e == caf::sec::request_timeout && c->timeout.count() > 0)
              return c->finish(deadline_exceeded("Timed out waiting for notification: step on " +
                                                 self->state.target + " exceeded its deadline of " +
                                                 std::to_string(c->timeout.count()) +
                                                 " ms with no reply from the server"),
                               {});
            c->finish(status_from_caf_error(e, "step on " + self->state.target), {});
          });
}

/// Fails the calls held for the connection with `why`.
void fail_waiting(ProxyActor* self, const Status& why) {
  for (auto key : std::exchange(self->state.waiting, {}))
    if (auto c = take_call(self, key)) c->finish(why, {});
}

/// Connects to the server again (TensorFlow's GrpcSession does so after a channel error):
/// the calls held meanwhile go out once it answers, or fail with Unavailable when it does
/// not within `reconnect_wait`.
void reconnect(ProxyActor* self) {
  auto& st = self->state;
  if (st.connecting || st.connected) return;
  st.connecting = true;
  auto failed = [self](const std::string& why) {
    self->state.connecting = false;
    fail_waiting(self, unavailable("Session on " + self->state.target +
                                   ": cannot reconnect to the server: " + why));
  };
  std::pair<caf::actor, caf::message> dial_to;
  try {
    auto [host, port] = parse_target(st.target);
    dial_to = net::dial(*st.runtime, host, port);
  } catch (const Error& e) {
    return failed(e.what());
  }
  self->request(dial_to.first, caf::duration{st.reconnect_wait}, std::move(dial_to.second))
      .then(
          [self, failed](const caf::node_id&, caf::strong_actor_ptr& ptr,
                         const std::set<std::string>&) {
            auto& st = self->state;
            auto server = caf::actor_cast<caf::actor>(ptr);
            if (!server) return failed("no actorflow server is published there");
            st.connecting = false;
            st.connected = true;
            st.server = server;
            st.link->set_server(server);
            self->monitor(server);
            log_info("Session on " + st.target + ": reconnected to the server");
            for (auto key : std::exchange(st.waiting, {})) send_call(self, key);
            if (st.reopen_step) st.reopen_step(st.link->losses());
          },
          [self, failed](caf::error& e) { failed(self->system().render(e)); });
}

/// Sends the client's steps to the server, one request each. When the connection to the
/// server is lost (a down message: the server died, froze past CAF's connection timeout, or
/// the link broke), the steps in flight fail with Unavailable and the next step reconnects.
caf::behavior remote_session_proxy(ProxyActor* self, std::shared_ptr<ServerLink> link,
                                   Runtime* runtime, std::string target, std::uint64_t id,
                                   std::function<void(std::uint64_t)> reopen_step) {
  auto& st = self->state;
  st.link = std::move(link);
  st.runtime = runtime;
  st.server = st.link->server();
  st.target = std::move(target);
  st.id = id;
  st.reopen_step = std::move(reopen_step);
  const auto& o = runtime->options();
  if (o.heartbeat_interval_ms > 0 && o.connection_timeout_ms > 0)
    st.reconnect_wait =
        std::chrono::milliseconds(o.connection_timeout_ms + o.heartbeat_interval_ms);
  self->monitor(st.server);
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& st = self->state;
    if (!st.connected || msg.source != caf::actor_cast<caf::actor_addr>(st.server))
      return;  // an older server
    st.connected = false;
    Status why = unavailable("server " + st.target +
                             " is unavailable: " + self->system().render(msg.reason) +
                             " (the session reconnects on its next step)");
    // Steps on the step channel learn of a dead or frozen server from CAF's monitoring too.
    st.link->lost(why);
    for (auto& [key, call] : std::exchange(st.pending, {})) call->finish(why, {});
    st.waiting.clear();
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    for (auto& [key, call] : std::exchange(self->state.pending, {}))
      call->finish(cancelled("Session on " + self->state.target + " was closed"), {});
    self->quit(msg.reason);
  });
  return {
      [self](net::master_call_atom, std::shared_ptr<RemoteCall> call) {
        auto& st = self->state;
        const auto key = st.next++;
        st.pending.emplace(key, call);
        if (st.connected) return send_call(self, key);
        st.waiting.push_back(key);
        if (call->timeout.count() > 0)
          self->delayed_send(self, call->timeout + kClientDeadlineGrace,
                             net::master_call_expire_atom::value, key);
        reconnect(self);
      },
      [self](net::master_call_expire_atom, std::uint64_t key) {
        // A call still held for the connection at its deadline; one sent meanwhile has its
        // request timeout.
        auto& waiting = self->state.waiting;
        auto it = std::find(waiting.begin(), waiting.end(), key);
        if (it == waiting.end()) return;
        waiting.erase(it);
        if (auto c = take_call(self, key))
          c->finish(deadline_exceeded("Timed out waiting for notification: step on " +
                                      self->state.target + " exceeded its deadline of " +
                                      std::to_string(c->timeout.count()) +
                                      " ms while the session reconnected to the server"),
                    {});
      },
  };
}

class RemoteSession final : public SessionBackend {
 public:
  RemoteSession(Graph& graph, const std::string& target, const SessionConfig& config)
      : graph_(graph),
        target_(target),
        config_(config),
        runtime_(config.runtime ? config.runtime : &Runtime::global()) {
    auto& sys = runtime_->system();
    const caf::actor server = connect(*runtime_, target_);
    id_ = control<std::uint64_t>(sys, server, target_, kOpenTimeout, net::master_open_atom::value,
                                 config_.device_filters, config_.allow_soft_placement,
                                 config_.log_device_placement);
    link_ = std::make_shared<ServerLink>(server);
    bulk_ = std::make_shared<net::BulkClient>(parse_target(target_).first, "Session on " + target_);
    // The step channel, unless the server is in this process (its steps skip the wire) or
    // has none (TLS). After a reconnect it is opened again, on the bulk client's thread.
    std::uint64_t token = 0;
    std::uint16_t port = 0;
    auto step = open_step_client(sys, server, target_, id_, kControlTimeout, &token, &port);
    std::function<void(std::uint64_t)> reopen;
    if (auto registry = config_.use_local_master && port != 0
                            ? find_local_step_registry(token, port)
                            : nullptr) {
      local_ = registry;
      local_token_ = token;
      step = nullptr;
    } else if (step) {
      reopen = [weak_bulk = std::weak_ptr<net::BulkClient>(bulk_), link = link_, sys = &sys,
                target = target_, id = id_, wait = reconnect_wait()](std::uint64_t losses) {
        if (auto bulk = weak_bulk.lock())
          bulk->post([link, sys, target, id, wait, losses] {
            link->set_step(open_step_client(*sys, link->server(), target, id, wait), losses);
          });
      };
    }
    link_->set_step(std::move(step), 0);
    proxy_ = sys.spawn(remote_session_proxy, link_, runtime_, target_, id_, std::move(reopen));
    large_ = std::make_shared<LargeTensorReader>(LargeTensorReader{&sys, link_, target_});
  }
  ~RemoteSession() override { close(); }

  void start_step(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                  const RunOptions& options, RunMetadata* metadata,
                  std::function<void(Status, std::vector<Tensor>)> done) override {
    const bool trace = options.trace && metadata != nullptr;
    if (local_token_ != 0 &&
        start_local_step(fetches, feeds, targets, options, trace ? metadata : nullptr, done))
      return;
    auto call = std::make_shared<RemoteCall>();
    std::int64_t timeout =
        options.timeout_in_ms > 0 ? options.timeout_in_ms : config_.operation_timeout_in_ms;
    call->timeout = std::chrono::milliseconds(timeout);
    const std::size_t expected = fetches.size();
    call->done = [done = std::move(done), expected, target = target_, metadata, large = large_,
                  weak_bulk = std::weak_ptr<net::BulkClient>(bulk_), acked = acked_nodes_,
                  nodes_end = &call->nodes_end](Status s, std::string reply) mutable {
      if (!s.ok()) return done(std::move(s), {});
      // The server has run it, so it has the graph up to this call's nodes.
      for (std::size_t seen = acked->load();
           seen < *nodes_end && !acked->compare_exchange_weak(seen, *nodes_end);) {
      }
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
      bulk->post([client = bulk.get(), large = std::move(large), done = std::move(done),
                  values = std::move(values), refs = std::move(refs)]() mutable {
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
      if (!proxy_)
        return call->finish(failed_precondition("Attempted to use a closed Session."), {});
      if (const auto losses = link_->losses(); losses != seen_losses_) {
        // The connection was lost since the last step: steps that carried nodes may not have
        // reached the server. Nodes since the last step it answered go again (the server
        // skips those it has).
        seen_losses_ = losses;
        sent_nodes_ = std::min(sent_nodes_, acked_nodes_->load());
      }
      net::WireWriter out;
      try {
        out.str(graph_delta());
      } catch (...) {
        return call->finish(status_from_exception(std::current_exception()), {});
      }
      call->nodes_end = sent_nodes_;
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
      if (auto step = link_->step()) {
        // The step channel keeps every request of this session in order on one connection;
        // a request it does not send (the connection broke, the server refused it, or the
        // request is too large for it) takes the CAF path.
        const auto deadline = timeout > 0
                                  ? std::chrono::steady_clock::now() +
                                        std::chrono::milliseconds(timeout) + kClientDeadlineGrace
                                  : std::chrono::steady_clock::time_point::max();
        if (step->run(
                call->request,
                [call](Status s, std::string reply) {
                  call->finish(std::move(s), std::move(reply));
                },
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
      caf::anon_send(link_->server(), net::master_close_atom::value, id_);
      caf::anon_send_exit(proxy_, caf::exit_reason::user_shutdown);
      proxy_ = caf::actor();
    }
    // Outside the lock: the failed steps' callbacks may call back into this session.
    link_->lost(cancelled("Session on " + target_ + " was closed"));
  }

  std::vector<DeviceAttributes> list_devices() const override {
    auto blob = control<std::string>(runtime_->system(), link_->server(), target_, kControlTimeout,
                                     net::master_devices_atom::value);
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
  /// CAF's connection timeout plus a heartbeat: how long reconnecting may take.
  std::chrono::milliseconds reconnect_wait() const {
    const auto& o = runtime_->options();
    return o.heartbeat_interval_ms > 0 && o.connection_timeout_ms > 0
               ? std::chrono::milliseconds(o.connection_timeout_ms + o.heartbeat_interval_ms)
               : std::chrono::milliseconds(kControlTimeout);
  }

  /// Runs a step on the served session of a server in this process, its tensors passed as
  /// they are; false (nothing done) when that server or session is gone, so that the CAF
  /// path reports it.
  bool start_local_step(const std::vector<Output>& fetches, const FeedDict& feeds,
                        const std::vector<Operation>& targets, const RunOptions& options,
                        RunMetadata* metadata,
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
    if (served_options.timeout_in_ms <= 0)
      served_options.timeout_in_ms = config_.operation_timeout_in_ms;
    run_local_request(served, named_feeds, fetch_names, target_names, served_options, metadata,
                      registry->metrics, std::move(done));
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
    delta.nodes.assign(
        std::make_move_iterator(def.nodes.begin() + static_cast<std::ptrdiff_t>(sent_nodes_)),
        std::make_move_iterator(def.nodes.end()));
    std::string json = graph_def_to_json(delta, -1);
    sent_nodes_ = def.nodes.size();
    return json;
  }

  Graph& graph_;
  std::string target_;
  SessionConfig config_;
  Runtime* runtime_;
  std::shared_ptr<ServerLink> link_;  ///< the server's handle and step channel (step_channel.hpp)
  std::uint64_t id_ = 0;
  std::mutex mu_;
  caf::actor proxy_;
  std::size_t sent_nodes_ = 0;
  /// Of `sent_nodes_`: those the server has for sure (it answered a step that carried them).
  std::shared_ptr<std::atomic<std::size_t>> acked_nodes_ =
      std::make_shared<std::atomic<std::size_t>>(0);
  std::uint64_t seen_losses_ = 0;             ///< link_->losses() at the last step (mu_)
  std::shared_ptr<net::BulkClient> bulk_;     ///< reads large fetched tensors (bulk_channel.hpp)
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
  control<std::string>(sys, server, target, kControlTimeout, net::master_reset_atom::value,
                       out.take());
}

}  // namespace

bool register_caf_session_target() {
  static const bool done = [] {
    register_session_target(
        "caf", SessionTarget{[](Graph& g, const std::string& target, const SessionConfig& config) {
                               return std::unique_ptr<SessionBackend>(
                                   new RemoteSession(g, target, config));
                             },
                             reset_containers});
    return true;
  }();
  return done;
}

}  // namespace af
