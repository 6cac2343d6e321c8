#pragma once

// A task's master service: the actor a `caf://` session on another process talks to (its
// messages are in master_protocol.hpp), with the served sessions it runs steps on. The step
// channel (step_channel.hpp) runs steps on the same sessions; both through `serve_step`
// (serve_step.hpp), as does a client in this process.
#include <atomic>
#include <caf/all.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "actorflow/actors/session.hpp"
#include "actorflow/ops/graph.hpp"
#include "bulk_channel.hpp"
#include "cluster.hpp"

namespace af {

/// Counters of a task's master service, read by the status port.
struct ServerMetrics {
  std::atomic<std::uint64_t> steps{0};
  std::atomic<std::uint64_t> step_errors{0};
  std::atomic<std::int64_t> open_sessions{0};
  std::atomic<std::uint64_t> client_bytes_received{0};
  std::atomic<std::uint64_t> client_bytes_sent{0};
};

/// One client session served by this task: its own copy of the client's graph.
struct ServedSession {
  std::mutex mu;  ///< serializes graph imports and step starts (CAF and step-channel requests)
  Graph graph;
  std::unique_ptr<Session> session;
  std::uint64_t token = 0;  ///< the step channel's key for this session (random)
};

/// The sessions the step channel may run steps on, by token (step_channel.hpp).
struct StepRegistry {
  std::mutex mu;
  std::map<std::uint64_t, std::shared_ptr<ServedSession>> sessions;
  std::mt19937_64 rng{std::random_device{}()};
  std::atomic<std::uint16_t> port{0};  ///< 0: no step channel (TLS, or it could not open)
  std::shared_ptr<net::BulkServer> bulk;
  std::shared_ptr<ServerMetrics> metrics;
  std::string task_name;

  std::uint64_t add(std::shared_ptr<ServedSession> s) {
    std::lock_guard<std::mutex> lock(mu);
    std::uint64_t token = 0;
    do {
      token = rng();
    } while (token == 0 || sessions.count(token));
    s->token = token;
    sessions.emplace(token, std::move(s));
    return token;
  }
  void remove(std::uint64_t token) {
    std::lock_guard<std::mutex> lock(mu);
    sessions.erase(token);
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu);
    sessions.clear();
  }
  std::shared_ptr<ServedSession> find(std::uint64_t token) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = sessions.find(token);
    return it == sessions.end() ? nullptr : it->second;
  }
};

/// The step registries of the servers in this process. A `caf://` session whose target is
/// served here runs its steps on the served session directly, its tensors never encoded
/// (TensorFlow's LocalMaster): `find_local_step_registry` finds the registry holding a
/// session's step-channel token. Thread-safe.
void add_local_step_registry(const std::shared_ptr<StepRegistry>& registry);
/// The registry in this process whose step port is `port` and which serves `token`; null
/// when the session is served by another process (or its server stopped).
std::shared_ptr<StepRegistry> find_local_step_registry(std::uint64_t token, std::uint16_t port);

/// Spawns the master service of task `task_name` over `devices`; `worker` is the task's
/// worker service, `peer_wait_ms` how long opening a session waits for every other task.
caf::actor spawn_master_service(caf::actor_system& sys, std::shared_ptr<DeviceSet> devices,
                                SessionConfig config, std::string task_name, caf::actor worker,
                                std::shared_ptr<net::Routes> routes,
                                std::shared_ptr<ServerMetrics> metrics,
                                std::shared_ptr<StepRegistry> steps, std::int64_t peer_wait_ms);

}  // namespace af

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::net::BulkServer>)
