// Server's lifecycle: a task's devices, its worker and master services and cluster agent,
// its CAF, step, bulk and status ports; started, stopped and joined. The master service is
// in master_service.cpp, the status page in server_status.cpp.
#include "actorflow/net/server.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <condition_variable>
#include <mutex>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/device.hpp"
#include "actorflow/actors/message_types.hpp"
#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/summary_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "actorflow/queues/queues.hpp"
#include "basp_front_door.hpp"
#include "bulk_channel.hpp"
#include "cluster.hpp"
#include "master_protocol.hpp"
#include "refusals.hpp"
#include "serve_step.hpp"
#include "server_impl.hpp"
#include "status_http.hpp"
#include "step_channel.hpp"
#include "tls_tunnel.hpp"
#include "wire.hpp"

namespace af {

Server::Server(const ClusterSpec& cluster, const std::string& job, int task, ServerOptions options)
    : impl_(std::make_shared<Impl>()) {
  register_caf_session_target();
  // Graphs arrive as data: every op this binary links must be known before the first one.
  register_queue_ops();
  summary::register_summary_ops();
  register_dataset_functions();
  impl_->cluster = cluster;
  impl_->job = job;
  impl_->task = task;
  auto [host, port] = ClusterSpec::split_address(cluster.task_address(job, task));
  impl_->host = host;
  impl_->port = port;
  impl_->runtime = options.config.runtime ? options.config.runtime : &Runtime::global();
  impl_->options = std::move(options);
  impl_->refusals = std::make_shared<net::Refusals>("Server " + impl_->task_name());
  impl_->devices = DeviceSet::create(*impl_->runtime, impl_->options.config, impl_->task_name());
  auto& sys = impl_->runtime->system();
  impl_->worker = net::spawn_worker_service(sys, impl_->devices, impl_->routes);
  add_local_step_registry(impl_->steps);
  impl_->master = spawn_master_service(
      sys, impl_->devices, impl_->options.config, impl_->task_name(),
      caf::actor_cast<caf::actor>(impl_->worker), impl_->routes, impl_->metrics, impl_->steps,
      static_cast<std::int64_t>(impl_->options.peer_wait.count()));
  if (impl_->options.start) start();
}

std::unique_ptr<Server> Server::create_local_server(ServerOptions options) {
  return std::make_unique<Server>(
      ClusterSpec(std::map<std::string, std::vector<std::string>>{{"localhost", {"127.0.0.1:0"}}}),
      "localhost", 0, std::move(options));
}

Server::~Server() { stop(); }

void Server::start() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->started) return;
  if (impl_->stopped)
    throw FailedPreconditionError(
        failed_precondition("Server " + impl_->task_name() + " was stopped"));
  auto& sys = impl_->runtime->system();
  auto* tunnels = net::tls_tunnels(*impl_->runtime);
  const bool tls = tunnels != nullptr;
  const net::FrontDoorOptions door{impl_->options.max_message_bytes,
                                   impl_->options.handshake_timeout,
                                   impl_->options.max_unauthenticated_connections};
  // The plain-TCP ports open before the front door: a peer that connects learns their
  // endpoints (the push port's in the master_worker reply), and one that came in between
  // would learn none and send this task its tensors over CAF for good.
  // The bulk port is plain TCP: with TLS, tensors stay inside the encrypted CAF connection.
  if (!tls) {
    try {
      impl_->bulk = std::make_shared<net::BulkServer>(
          impl_->host, "Server " + impl_->task_name(), std::chrono::seconds(60),
          impl_->options.handshake_timeout, impl_->options.max_unauthenticated_connections,
          impl_->refusals);
      caf::anon_send(impl_->master, net::master_set_bulk_atom::value, impl_->bulk);
    } catch (const Error& e) {
      log_info(std::string("WARNING: ") + e.what() +
               "; large fetched tensors travel over CAF instead");
    }
    // The tensor push channel (plain TCP too): tensors from other tasks' partitions land in
    // this task's rendezvous without CAF's copies, and partition runs and their replies skip
    // CAF's multiplexer threads.
    try {
      impl_->push = std::make_unique<net::TensorPushServer>(
          impl_->host, "Server " + impl_->task_name(),
          [routes = impl_->routes, rendezvous = impl_->devices->rendezvous,
           worker = impl_->worker](net::TensorPushServer::Frame frame) {
            net::deliver_pushed(*routes, rendezvous, worker, std::move(frame));
          },
          // A tensor that arrived but could not be taken fails its step here at once (the
          // receive waiting for it, and so the step, end with the reason).
          [rendezvous = impl_->devices->rendezvous](std::int64_t step_id, const std::string& key,
                                                    Status why) {
            const std::string from = net::source_task(key);
            if (!from.empty()) why = Status(why.code(), why.message() + " (from " + from + ")");
            caf::anon_send(rendezvous, detail::abort_atom::value, step_id, std::move(why));
          },
          impl_->refusals, impl_->options.handshake_timeout,
          impl_->options.max_unauthenticated_connections);
      impl_->routes->set_local_push(impl_->push->endpoint());
    } catch (const Error& e) {
      log_info(std::string("WARNING: ") + e.what() +
               "; large tensors between tasks travel over CAF instead");
    }
    // The step channel (also plain TCP): clients' steps skip CAF's proxies and multiplexers.
    impl_->steps->bulk = impl_->bulk;
    impl_->steps->metrics = impl_->metrics;
    impl_->steps->task_name = impl_->task_name();
    try {
      impl_->step = std::make_unique<net::StepServer>(
          impl_->host, "Server " + impl_->task_name(),
          [steps = impl_->steps](std::uint64_t token, std::string_view request,
                                 std::function<void(Status, std::string)> done) {
            auto served = steps->find(token);
            if (!served)
              return done(aborted("Session is not open on " + steps->task_name +
                                  " (closed, or its containers were reset)"),
                          {});
            serve_encoded_step(served, request, StepCaller::io_thread, steps->bulk, steps->metrics,
                               std::move(done));
          },
          [steps = impl_->steps](std::uint64_t token) { return steps->find(token) != nullptr; },
          net::StepServer::Limits{impl_->options.handshake_timeout,
                                  impl_->options.max_unauthenticated_connections},
          impl_->refusals);
      impl_->steps->port = impl_->step->port();
    } catch (const Error& e) {
      log_info(std::string("WARNING: ") + e.what() + "; steps travel over CAF instead");
    }
  }
  // The cluster agent before the front door: the master knows it before any client can ask
  // for a session, so every session waits for the cluster's tasks (a session opened in between
  // saw only this task's devices and failed to place nodes on the others).
  std::size_t tasks = 0;
  for (const auto& name : impl_->cluster.jobs()) tasks += impl_->cluster.task_indices(name).size();
  if (tasks > 1) {
    impl_->agent = net::spawn_cluster_agent(*impl_->runtime, impl_->cluster, impl_->job,
                                            impl_->task, impl_->devices->rendezvous, impl_->routes,
                                            impl_->options.log_every);
    caf::anon_send(impl_->master, net::master_set_agent_atom::value, impl_->agent);
  }
  if (tls) {
    // The tunnel owns the spec's address and hands CAF each authenticated connection through
    // the guard; CAF itself listens nowhere (nothing on loopback for other local users).
    impl_->tls_guard = std::make_shared<net::BaspGuard>(
        *impl_->runtime, impl_->master, "Server " + impl_->task_name(), door, impl_->refusals);
    impl_->port = net::serve_over_tls(
        *impl_->runtime, impl_->host, impl_->port, impl_->tls_guard, "Server " + impl_->task_name(),
        net::TlsServeLimits{impl_->options.handshake_timeout,
                            impl_->options.max_unauthenticated_connections,
                            impl_->refusals,
                            {}});
  } else {
    // actorflow accepts and CAF's BASP broker gets each connection behind the guard
    // (basp_front_door.hpp): CAF itself listens nowhere.
    impl_->door = std::make_unique<net::BaspFrontDoor>(
        *impl_->runtime, impl_->host, impl_->port, impl_->master, "Server " + impl_->task_name(),
        door, impl_->refusals);
    impl_->port = impl_->door->port();
  }
  (void)sys;
  impl_->started = true;
  if (impl_->options.stall_period.count() > 0)
    impl_->stalls =
        std::make_unique<net::StallInspector>(impl_->task_name(), impl_->options.stall_period);
  if (impl_->options.status_port > 65535)
    throw InvalidArgumentError(invalid_argument("Server " + impl_->task_name() + ": status port " +
                                                std::to_string(impl_->options.status_port) +
                                                " is not a port"));
  if (impl_->options.status_port >= 0) {
    Impl* impl = impl_.get();
    impl_->status = std::make_unique<net::StatusHttpServer>(
        impl_->host, static_cast<std::uint16_t>(impl_->options.status_port),
        [impl](const std::string& path, std::string* body, std::string* type) {
          return impl->serve_status(path, body, type);
        },
        "Server " + impl_->task_name(), impl_->refusals);
    log_info("Server " + impl_->task_name() + " serves /metrics and /status on http://" +
             impl_->host + ":" + std::to_string(impl_->status->port()));
  }
  const std::string& h = impl_->host;
  bool loopback = h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
  if (!loopback && !tls)
    log_info("WARNING: server " + impl_->task_name() + " listens on " + h + ":" +
             std::to_string(impl_->port) +
             ", a non-loopback address, WITHOUT authentication or encryption: anyone who can reach "
             "this port "
             "can run graphs and read every variable. Bind to 127.0.0.1 or restrict the network.");
  log_info("Started server " + impl_->task_name() + " with target: " + target() +
           (tls ? " (TLS, peers need a certificate signed by the cluster's CA)" : ""));
}

void Server::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    if (impl_->started) {
      if (impl_->door) impl_->door->stop();
      if (auto* tunnels = net::tls_tunnels(*impl_->runtime)) tunnels->stop_serving(impl_->port);
    }
    if (impl_->agent) caf::anon_send_exit(impl_->agent, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(impl_->master, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(impl_->worker, caf::exit_reason::user_shutdown);
    if (impl_->bulk) impl_->bulk->stop();
    if (impl_->push) impl_->push->stop();
    impl_->steps->port = 0;
    if (impl_->step) impl_->step->stop();
    if (impl_->status) impl_->status->stop();
    if (impl_->stalls) impl_->stalls->stop();
    impl_->agent = caf::actor();
    impl_->master = caf::actor();
    impl_->worker = nullptr;
    impl_->devices->shutdown();
  }
  impl_->cv.notify_all();
}

void Server::join() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return impl_->stopped; });
}

bool Server::join(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  return impl_->cv.wait_until(lock, deadline, [&] { return impl_->stopped; });
}

std::string Server::target() const {
  bool v6 = impl_->host.find(':') != std::string::npos;
  return "caf://" + (v6 ? "[" + impl_->host + "]" : impl_->host) + ":" +
         std::to_string(impl_->port);
}
std::uint16_t Server::port() const { return impl_->port; }

std::map<std::string, Server::PeerTraffic> Server::peer_traffic() const {
  std::map<std::string, PeerTraffic> out;
  for (const auto& [peer, t] : impl_->routes->traffic())
    out[peer] = PeerTraffic{t.sent, t.received};
  return out;
}
std::uint16_t Server::status_port() const { return impl_->status ? impl_->status->port() : 0; }
std::vector<StallWatch::Stalled> Server::stalled_waits() const {
  return impl_->stalls ? impl_->stalls->stalled() : std::vector<StallWatch::Stalled>{};
}
const ClusterSpec& Server::cluster() const { return impl_->cluster; }
const std::string& Server::job() const { return impl_->job; }
int Server::task() const { return impl_->task; }
std::vector<DeviceAttributes> Server::devices() const { return impl_->devices->attributes; }

}  // namespace af
