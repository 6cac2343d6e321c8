// The wire kinds of MasterClient (master_client.hpp): a session's steps go to its server's
// step port (step_channel.hpp) or as master_run requests over CAF, through a proxy actor
// that notices a lost connection and reconnects; large fetched tensors come from the
// server's bulk port (bulk_channel.hpp), or over CAF when that port fails the client.
#include <algorithm>
#include <caf/io/all.hpp>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "actorflow/actors/detail/caller_waits.hpp"
#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "basp_dial.hpp"
#include "bulk_channel.hpp"
#include "master_client.hpp"
#include "master_protocol.hpp"
#include "serve_step.hpp"
#include "step_channel.hpp"
#include "wire.hpp"

namespace af {

namespace {

/// How long after a step's deadline the client ends it itself when the server has not answered
/// (the server's own DeadlineExceeded, with its detail, normally comes first).
constexpr auto kClientDeadlineGrace = std::chrono::milliseconds(250);

/// One step in flight from this client; `done` fires once.
struct RemoteCall {
  std::string request;
  std::chrono::milliseconds timeout{0};
  /// The reply, and whether it came on the thread that waits for the step (which may then
  /// block to read large values itself).
  std::function<void(Status, std::string, bool)> done;
  std::atomic<bool> fired{false};
  void finish(Status s, std::string reply, bool on_waiting_thread = false) {
    if (!fired.exchange(true)) done(std::move(s), std::move(reply), on_waiting_thread);
  }
};

}  // namespace
}  // namespace af

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::RemoteCall>)

namespace af {

namespace {

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
/// cannot be reached within `connect_timeout`: steps then travel over CAF).
std::shared_ptr<net::StepClient> open_step_client(caf::actor_system& sys, const caf::actor& server,
                                                  const std::string& target, std::uint64_t id,
                                                  std::chrono::milliseconds connect_timeout) {
  std::uint64_t token = 0;
  std::uint16_t port = 0;
  if (!ask_step_port(sys, server, target, id, connect_timeout, &token, &port)) return nullptr;
  try {
    return std::make_shared<net::StepClient>(parse_target(target).first, port, token,
                                             "Session on " + target, connect_timeout);
  } catch (const Error&) {
    return nullptr;  // CAF still works
  }
}

/// Which fetch lists last fetched a large value, and from which bulk port: a waited step
/// that fetches such a list again sends an await first (bulk_channel.hpp), so the value's
/// bytes follow its reply without a request of their own.
class LargeFetchForecast {
 public:
  /// A key for `fetches` (their nodes' ids and output indices); never 0.
  static std::uint64_t key(const std::vector<Output>& fetches) {
    std::uint64_t h = 1469598103934665603ull;
    for (const Output& f : fetches)
      h = (h ^ (static_cast<std::uint64_t>(f.node()->id()) << 16 ^
                static_cast<std::uint64_t>(f.index()))) *
          1099511628211ull;
    return h == 0 ? 1 : h;
  }
  /// The bulk port the last step of `key` fetched a large value from; 0: none.
  std::uint16_t port(std::uint64_t key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ports_.find(key);
    return it == ports_.end() ? 0 : it->second;
  }
  /// What the step of `key` fetched: a large value from `port`, or none (0).
  void record(std::uint64_t key, std::uint16_t port) {
    std::lock_guard<std::mutex> lock(mu_);
    if (port == 0) {
      ports_.erase(key);
      return;
    }
    if (ports_.size() >= kKept) ports_.clear();  // a client cycling through many lists
    ports_[key] = port;
  }

 private:
  static constexpr std::size_t kKept = 256;
  mutable std::mutex mu_;
  std::unordered_map<std::uint64_t, std::uint16_t> ports_;
};

/// A waited step's await on the bulk port: its fetch list's forecast key, the ticket its
/// request names (0: none) and the bulk port the value is expected from.
struct StepAwait {
  std::uint64_t key = 0;
  std::uint64_t ticket = 0;
  std::uint16_t port = 0;
};

/// Reads the large tensors of a reply, on the bulk client's thread: from the server's bulk
/// port, or over CAF when that port fails this client (and for a while after).
struct LargeTensorReader {
  caf::actor_system* sys = nullptr;
  std::shared_ptr<ServerLink> link;
  std::string target;
  /// Used in bulk jobs only (one at a time).
  std::chrono::steady_clock::time_point bulk_refused_until{};
  LargeFetchForecast forecast;  ///< any thread

  Status read(net::BulkClient& client, const net::BulkRef& ref, Tensor& into) {
    const auto now = std::chrono::steady_clock::now();
    // An awaited value comes on its await's connection (the server sent it there), never
    // over CAF.
    if (now < bulk_refused_until && !client.awaiting(ref.transfer_id))
      return fetch_over_caf(*sys, link->server(), target, ref, into);
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

/// The reply of a step: its values (large ones read from the bulk port) and stats.
void decode_reply(Status s, std::string reply, std::size_t expected, const std::string& target,
                  RunMetadata* metadata, const std::shared_ptr<LargeTensorReader>& large,
                  const std::weak_ptr<net::BulkClient>& weak_bulk, bool on_waiting_thread,
                  StepAwait await, std::function<void(Status, std::vector<Tensor>)> done) {
  // Ends the step's await when its ticket's value is not read below (in a job, as every
  // use of the bulk client's connections).
  const auto end_await = [&](bool step_ok) {
    auto bulk = weak_bulk.lock();
    if (await.ticket == 0 || !bulk) return;
    if (on_waiting_thread)
      bulk->run_here([&] { bulk->end_await(await.ticket, step_ok); });
    else
      bulk->post([client = bulk.get(), ticket = await.ticket, step_ok] {
        client->end_await(ticket, step_ok);
      });
  };
  if (!s.ok()) {
    // A failed step that named a ticket sends none the next time (a server that does not
    // take tickets refuses the step; this one answers it then).
    if (await.ticket != 0) large->forecast.record(await.key, 0);
    end_await(false);
    return done(std::move(s), {});
  }
  net::WireReader in(reply, "run reply from ", target);
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
  Status decoded = in.status();
  if (decoded.ok() && values.size() != expected)
    decoded = data_loss("run reply from " + target + " has " + std::to_string(values.size()) +
                        " values for " + std::to_string(expected) + " fetches");
  if (!decoded.ok()) {
    end_await(false);
    return done(std::move(decoded), {});
  }
  if (metadata) metadata->step_stats = std::move(stats);
  // What the forecast said changed: one lock fewer per step for fetches that stay small.
  const std::uint16_t large_port = refs.empty() ? 0 : refs.front().second.port;
  if (await.key != 0 && large_port != await.port) large->forecast.record(await.key, large_port);
  if (refs.empty()) {
    end_await(true);
    return done({}, std::move(values));
  }
  // Large tensors: read their bytes from the server's bulk port, straight into the tensors
  // returned: on the thread that waits for them, or else on the bulk client's thread.
  auto bulk = weak_bulk.lock();
  if (!bulk) return done(cancelled("Session on " + target + " was closed"), {});
  // Every large value read into `values`, or the first read's error.
  // The value under the await's ticket comes on the awaiting connection (BulkClient::fetch).
  auto read_all = [client = bulk.get(), large, ticket = await.ticket](std::vector<Tensor>& values,
                                                                      const auto& refs) -> Status {
    Status s;
    for (auto& [index, ref] : refs) {
      Tensor& t = values[index];
      t = client->landing_tensor(ref.dtype, ref.shape);
      s = large->read(*client, ref, t);
      if (!s.ok()) break;
    }
    client->end_await(ticket, s.ok());
    return s;
  };
  auto finish = [](Status fetched, std::vector<Tensor>& values, auto& done) {
    if (fetched.ok()) return done({}, std::move(values));
    done(std::move(fetched), {});
  };
  if (on_waiting_thread) {
    Status fetched;
    bulk->run_here([&] { fetched = read_all(values, refs); });
    return finish(std::move(fetched), values, done);  // `done` may run this session's next step
  }
  bulk->post([read_all, finish, done = std::move(done), values = std::move(values),
              refs = std::move(refs)]() mutable { finish(read_all(values, refs), values, done); });
}

/// The `step_channel` and `caf` kinds of MasterClient.
class WireMasterClient final : public MasterClient {
 public:
  WireMasterClient(Runtime& runtime, caf::actor server, const std::string& target, std::uint64_t id,
                   bool step_channel)
      : runtime_(runtime), target_(target), id_(id) {
    auto& sys = runtime_.system();
    link_ = std::make_shared<ServerLink>(server);
    bulk_ = std::make_shared<net::BulkClient>(parse_target(target_).first, "Session on " + target_);
    // The step channel, unless the server has none (TLS) or it cannot be reached. After a
    // reconnect it is opened again, on the bulk client's thread.
    std::function<void(std::uint64_t)> reopen;
    if (step_channel) {
      if (auto step = open_step_client(sys, server, target_, id_, kControlTimeout)) {
        link_->set_step(std::move(step), 0);
        reopen = [weak_bulk = std::weak_ptr<net::BulkClient>(bulk_), link = link_, sys = &sys,
                  target = target_, id = id_, wait = reconnect_wait()](std::uint64_t losses) {
          if (auto bulk = weak_bulk.lock())
            bulk->post([link, sys, target, id, wait, losses] {
              link->set_step(open_step_client(*sys, link->server(), target, id, wait), losses);
            });
        };
      }
    }
    kind_ = link_->step() ? Kind::step_channel : Kind::caf;
    proxy_ = sys.spawn(remote_session_proxy, link_, &runtime_, target_, id_, std::move(reopen));
    large_ = std::make_shared<LargeTensorReader>();
    large_->sys = &sys;
    large_->link = link_;
    large_->target = target_;
  }
  ~WireMasterClient() override { close(); }

  Kind kind() const override { return kind_; }
  caf::actor server() const override { return link_->server(); }

  void start(ClientStep step, GraphDeltas& deltas, std::unique_lock<std::mutex>& lock) override {
    const bool waits = detail::take_caller_waits();
    auto call = std::make_shared<RemoteCall>();
    call->timeout = std::chrono::milliseconds(step.timeout_ms);
    if (const auto losses = link_->losses(); losses != seen_losses_) {
      // The connection was lost since the last step: steps that carried nodes may not have
      // reached the server.
      seen_losses_ = losses;
      deltas.resend_unacknowledged();
    }
    std::size_t nodes_end = 0;
    std::string delta;
    try {
      delta = deltas.take(&nodes_end);
    } catch (...) {
      lock.unlock();
      return step.done(status_from_exception(std::current_exception()), {});
    }
    // A waited step whose fetch list fetched a large value last time names a ticket, and
    // awaits its value on the bulk port once the request is sent (bulk_channel.hpp): its
    // bytes then follow the reply.
    StepAwait await;
    if (waits && link_->step()) {
      await.key = LargeFetchForecast::key(step.fetches);
      await.port = large_->forecast.port(await.key);
      if (await.port != 0) await.ticket = bulk_->new_ticket();
    }
    call->request = encode_step_request(ClientStepView{
        delta, step.feeds, step.fetches, step.targets,
        RunOptions{.timeout_in_ms = step.timeout_ms, .trace = step.metadata != nullptr},
        await.ticket});
    // The target's name travels in `large` (no copy of it per step).
    call->done = [done = std::move(step.done), expected = step.fetches.size(),
                  metadata = step.metadata, large = large_,
                  weak_bulk = std::weak_ptr<net::BulkClient>(bulk_), await,
                  answered = deltas.on_answered(nodes_end)](Status s, std::string reply,
                                                            bool on_waiting_thread) mutable {
      // The server has run it, so it has the graph up to this call's nodes.
      if (s.ok()) answered();
      decode_reply(std::move(s), std::move(reply), expected, large->target, metadata, large,
                   weak_bulk, on_waiting_thread, await, std::move(done));
    };
    if (auto channel = link_->step()) {
      // The step channel keeps every request of this session in order on one connection;
      // a request it does not send (the connection broke, the server refused it, or the
      // request is too large for it) takes the CAF path.
      const auto deadline = step.timeout_ms > 0 ? std::chrono::steady_clock::now() +
                                                      std::chrono::milliseconds(step.timeout_ms) +
                                                      kClientDeadlineGrace
                                                : std::chrono::steady_clock::time_point::max();
      if (waits) {
        // The caller's thread waits for this step: it reads the reply itself.
        if (auto waited = channel->send_waited(call->request, deadline, step.timeout_ms)) {
          lock.unlock();
          // After the request: the server's thread then starts the step before its bulk
          // thread takes the await. Without one the value is fetched with a request.
          if (await.ticket != 0) bulk_->await_transfer(await.port, await.ticket);
          auto [s, reply] = channel->wait(waited);
          return call->finish(std::move(s), std::move(reply), /*on_waiting_thread=*/true);
        }
      } else if (channel->run(
                     call->request,
                     [call](Status s, std::string reply) {
                       call->finish(std::move(s), std::move(reply));
                     },
                     deadline, step.timeout_ms)) {
        return;
      }
    }
    caf::anon_send(proxy_, net::master_call_atom::value, call);
  }

  void close() override {
    if (!proxy_) return;
    caf::anon_send(link_->server(), net::master_close_atom::value, id_);
    caf::anon_send_exit(proxy_, caf::exit_reason::user_shutdown);
    proxy_ = caf::actor();
    link_->lost(cancelled("Session on " + target_ + " was closed"));
  }

 private:
  /// CAF's connection timeout plus a heartbeat: how long reconnecting may take.
  std::chrono::milliseconds reconnect_wait() const {
    const auto& o = runtime_.options();
    return o.heartbeat_interval_ms > 0 && o.connection_timeout_ms > 0
               ? std::chrono::milliseconds(o.connection_timeout_ms + o.heartbeat_interval_ms)
               : std::chrono::milliseconds(kControlTimeout);
  }

  Runtime& runtime_;
  std::string target_;
  std::uint64_t id_ = 0;
  Kind kind_ = Kind::caf;
  std::shared_ptr<ServerLink> link_;  ///< the server's handle and step channel (step_channel.hpp)
  caf::actor proxy_;                  ///< null once closed
  std::uint64_t seen_losses_ = 0;     ///< link_->losses() at the last step (session's lock)
  std::shared_ptr<net::BulkClient> bulk_;     ///< reads large fetched tensors (bulk_channel.hpp)
  std::shared_ptr<LargeTensorReader> large_;  ///< used in bulk_'s jobs only (one at a time)
};

}  // namespace

std::unique_ptr<MasterClient> open_wire_master_client(Runtime& runtime, caf::actor server,
                                                      const std::string& target, std::uint64_t id,
                                                      const SessionConfig&, bool step_channel) {
  return std::make_unique<WireMasterClient>(runtime, std::move(server), target, id, step_channel);
}

}  // namespace af
