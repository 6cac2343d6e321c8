#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/ops/stall_watch.hpp"

namespace af {

/// How a Server runs.
struct ServerOptions {
  /// Devices and pools of the task (device_count, inter/intra-op threads, gpu_options).
  SessionConfig config;
  /// Start serving in the constructor (otherwise call `start()`).
  bool start = true;
  /// How long opening a session waits for the other tasks of the cluster to be reachable
  /// (TensorFlow waits forever, logging); then the open fails with Unavailable naming them.
  std::chrono::milliseconds peer_wait{30000};
  /// How often the server repeats what it is waiting for (which task, address, last error).
  std::chrono::milliseconds log_every{10000};
  /// The HTTP status port on the server's host: `GET /metrics` (Prometheus text: steps,
  /// errors, open sessions, per-queue size/capacity/waiters, bytes per peer) and
  /// `GET /status` (JSON: task, devices, containers, queues, peers). -1: none; 0: the system
  /// chooses (`status_port()` tells which).
  int status_port = -1;
  /// The CAF port's front door: BASP messages longer than this are refused before a byte of
  /// them is read (and the connection closed, logged and counted in /metrics).
  std::size_t max_message_bytes = std::size_t{512} << 20;
  /// A connection to the CAF port that has not completed a BASP handshake this long after it
  /// was accepted is closed.
  std::chrono::milliseconds handshake_timeout{5000};
  /// At most this many connections wait for their handshake; a new one closes the oldest.
  std::size_t max_unauthenticated_connections = 128;
  /// The stall inspector (as Horovod's): a wait inside a step on this task's devices (a
  /// dequeue, such as SyncReplicas' token queue; an accumulator's take, the chief waiting
  /// for gradients; a receive of a tensor from another task) that lasts this long is
  /// logged, naming the replicas or tasks it waits for and since which step, again every
  /// period while it lasts, and listed in `/status` ("stalls") and `/metrics`. 0: off. The
  /// wait itself still ends only at its deadline.
  std::chrono::milliseconds stall_period{60000};
};

/// One task of a cluster (TensorFlow's `tf.train.Server`): owns the task's devices (their
/// variables, queues and readers live as long as the server) and publishes its master
/// service on the task's address with CAF's middleman. Clients open
/// `af::Session(graph, server.target())` from this or any other process; one server
/// serves many sessions at once. Several servers may run in one process.
///
/// The server binds only to the host of its address (`127.0.0.1:2222` listens on
/// loopback). Port 0 lets the system choose; `target()` then has the real port.
class Server {
 public:
  /// Throws InvalidArgumentError when `job`/`task` is not in `cluster`, and UnavailableError
  /// when the address cannot be bound (in use, not a local address).
  Server(const ClusterSpec& cluster, const std::string& job, int task, ServerOptions options = {});
  /// A single-task cluster `{"localhost": ["127.0.0.1:0"]}` (TensorFlow's
  /// `Server.create_local_server`).
  static std::unique_ptr<Server> create_local_server(ServerOptions options = {});
  /// Stops (see `stop`).
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Publishes the master service (idempotent).
  void start();
  /// Stops serving: open sessions end (their pending steps with Cancelled), the port is
  /// unpublished, devices and their resources go away. Idempotent; `join` returns.
  void stop();
  /// Blocks until `stop()` (from another thread or a signal handler's thread).
  void join();
  /// Blocks until `stop()` or until `deadline`, whichever comes first; true when stopped.
  bool join(std::chrono::steady_clock::time_point deadline);
  /// `join(now + timeout)`.
  bool join_for(std::chrono::milliseconds timeout) {
    return join(std::chrono::steady_clock::now() + timeout);
  }

  /// `caf://host:port` of this task.
  std::string target() const;
  /// The task's port: the bound one once started (port 0 in the spec: the system's choice).
  std::uint16_t port() const;
  /// The HTTP status port, or 0 when the server has none (ServerOptions::status_port).
  std::uint16_t status_port() const;
  /// The waits on this task's devices that have lasted `ServerOptions::stall_period` or
  /// longer, longest first (empty when the inspector is off).
  std::vector<StallWatch::Stalled> stalled_waits() const;
  /// The cluster the server was created with.
  const ClusterSpec& cluster() const;
  /// This task's job name.
  const std::string& job() const;
  /// This task's index in its job.
  int task() const;
  /// Devices of this task (`/job:worker/replica:0/task:0/device:CPU:0`, ...).
  std::vector<DeviceAttributes> devices() const;

  /// Bytes this task exchanged with another task since it started: partitions, feeds,
  /// fetches and the tensors of cross-task edges, as framed on the wire (the
  /// `actorflow_peer_bytes_*_total` counters of `/metrics`).
  struct PeerTraffic {
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
  };
  /// The traffic with each peer task, by task name (`/job:ps/replica:0/task:0`). Thread-safe.
  std::map<std::string, PeerTraffic> peer_traffic() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// Makes sure `caf://` session targets are registered (idempotent; including this header
/// does it, so a program linking actorflow::net can open `caf://` sessions).
bool register_caf_session_target();

namespace detail {
inline const bool caf_session_target_registered = register_caf_session_target();
}  // namespace detail

}  // namespace af
