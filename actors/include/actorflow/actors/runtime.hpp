#pragma once

#include <atomic>
#include <caf/actor.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/resource.hpp"

namespace caf {
class actor_system;
class actor_system_config;
}  // namespace caf

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace af {

/// Sizes of the runtime's CAF scheduler (0 = automatic).
struct RuntimeOptions {
  /// CAF worker threads; 0 = the number of cores (at least 2).
  int scheduler_threads = 0;
  /// CAF `scheduler.max-throughput` (messages an actor handles before yielding).
  int max_throughput = 300;
  /// CAF `work-stealing.moderate-sleep-duration`: how long an idle worker sleeps between
  /// polls before it parks on its condition variable. CAF's 50 us puts up to ~100 us on
  /// every wake-up of an idle actor (a blocking host call, a queue waiter); 0 makes idle
  /// workers poll without sleeping for a few hundred attempts, then park (woken by the
  /// next external enqueue).
  int moderate_sleep_us = 0;
  /// CAF `middleman.heartbeat-interval`: how often connected nodes ping each other (0 = off,
  /// CAF's default). With heartbeats a frozen peer is noticed, not only a dead one.
  int heartbeat_interval_ms = 500;
  /// CAF `middleman.connection-timeout`: a peer silent this long is dropped (its actors go
  /// down with `remote_link_unreachable`, steps needing it fail with Unavailable).
  int connection_timeout_ms = 3000;
  /// TLS between processes: this node's certificate chain and private key (PEM) and the CA
  /// file that every peer's certificate must be signed by. All three set: servers of this
  /// runtime accept only TLS connections whose client certificate the CA signed, and its
  /// connections to other servers are TLS too (an Asio/OpenSSL tunnel in front of CAF's
  /// middleman, see net/src/tls_tunnel.hpp). All empty: plain TCP. Anything in between is
  /// InvalidArgument; an unreadable file is NotFound.
  std::string tls_certificate;
  std::string tls_key;      ///< see above
  std::string tls_ca_file;  ///< see above
  /// Passphrase of an encrypted `tls_key`.
  std::string tls_passphrase;
};

/// The inter-op and intra-op thread pools of a device (TensorFlow's session thread pools).
class ThreadPools {
 public:
  /// Starts both pools; a count <= 0 means the CPUs this process may run on
  /// (resolve_thread_count). Idle threads spin a while before they sleep, unless the
  /// process may run on one CPU only.
  ThreadPools(int inter_op_threads, int intra_op_threads);
  /// Joins the pools' threads (work already scheduled runs first, as Eigen's pool does).
  /// Run on one of those threads (the last owner was a closure on the pool), it leaves the
  /// joining to a detached thread instead of joining itself.
  ~ThreadPools();
  ThreadPools(const ThreadPools&) = delete;
  ThreadPools& operator=(const ThreadPools&) = delete;

  /// Runs `fn` on the inter-op pool.
  void schedule(std::function<void()> fn);
  /// The intra-op pool as an Eigen device for multi-threaded kernels.
  Eigen::ThreadPoolDevice* intra_op_device() noexcept;
  /// Threads of the inter-op pool.
  int inter_op_threads() const noexcept { return inter_threads_; }
  /// Threads of the intra-op pool.
  int intra_op_threads() const noexcept { return intra_threads_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int inter_threads_;
  int intra_threads_;
};

/// The actor system actorflow runs in, plus the process-wide thread pools.
///
/// A program either uses `Runtime::global()` (created on first use, shut down at exit) or
/// creates its own Runtime, owning a fresh `caf::actor_system` or adopting the host
/// application's (whose config must have gone through `Runtime::configure`). `shutdown()`
/// is idempotent; sessions must be destroyed first.
class Runtime {
 public:
  /// Creates a runtime with an actor system of its own. Throws InvalidArgumentError when
  /// only some of the TLS files are set, NotFoundError when one cannot be read.
  explicit Runtime(RuntimeOptions options = {});
  /// Adopts `system`; it must outlive the runtime. Its config must have been passed to
  /// `Runtime::configure` before the system was created.
  explicit Runtime(caf::actor_system& system);
  /// Calls `shutdown()`.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// The process-wide runtime, created on first use (thread-safe) and never destroyed: call
  /// `global().shutdown()` before main returns for an orderly stop.
  static Runtime& global();

  /// Adds actorflow's message types and recommended scheduler settings to `cfg`. Throws as
  /// the owning constructor does for the TLS options.
  static void configure(caf::actor_system_config& cfg, const RuntimeOptions& options = {});

  /// The actor system (owned or adopted).
  caf::actor_system& system() noexcept { return *system_; }
  /// The options the runtime was created with (defaults for an adopted system).
  const RuntimeOptions& options() const noexcept { return options_; }
  /// Whether connections to and from other processes use TLS (RuntimeOptions::tls_*).
  bool tls() const noexcept { return !options_.tls_certificate.empty(); }

  /// The process-wide pools: created by the first caller with its sizes (0 = number of
  /// cores), reused by later callers (TensorFlow: "the first session you start creates the
  /// inter-op thread pools; all other sessions just reuse them").
  std::shared_ptr<ThreadPools> shared_pools(int inter_op_threads, int intra_op_threads);

  /// The process-wide resources of device `device_name` (queues, readers and other resources
  /// with a `shared_name`), shared by every session of this runtime and outliving them.
  std::shared_ptr<ResourceMgr> shared_resource_mgr(const std::string& device_name);

  /// A new, empty set of shared resources for `device_name`, replacing the current one (a
  /// server's devices: a server started again in this process starts empty, as a new
  /// process would, and host `QueueHandle`s reach its queues by device name).
  std::shared_ptr<ResourceMgr> fresh_shared_resource_mgr(const std::string& device_name);
  /// Forgets `mgr` as the shared resources of `device_name` when it is still the current
  /// one (a stopped server's).
  void release_shared_resource_mgr(const std::string& device_name,
                                   const std::shared_ptr<ResourceMgr>& mgr);

  /// Drops the shared resources of `containers` on every device (all containers when
  /// empty); queue and reader actors of dropped resources quit. Returns how many were dropped.
  std::size_t reset_shared_resources(const std::vector<std::string>& containers = {});

  /// A fresh step id, unique in this runtime; thread-safe.
  /// Also unique across the cluster with high probability: a random 31-bit prefix per
  /// runtime and a counter (steps of several masters meet in one worker's rendezvous).
  std::int64_t next_step_id() noexcept { return ++step_ids_; }

  /// The runtime's long-lived actor named `name` (a dial coordinator, say): made by `make`
  /// on first use, the same actor afterwards (thread-safe). `shutdown` tells each such actor
  /// to quit and lets go of it while the system still runs, so what its state holds (remote
  /// actors, promises) is released in order. Spawn it `caf::hidden`.
  caf::actor service(const std::string& name,
                     const std::function<caf::actor(caf::actor_system&)>& make);

  /// Stops the runtime's services and the owned actor system (waits for actors already
  /// asked to quit). Idempotent.
  void shutdown();

 private:
  std::unique_ptr<caf::actor_system_config> config_;
  RuntimeOptions options_;
  std::unique_ptr<caf::actor_system> owned_system_;
  caf::actor_system* system_ = nullptr;
  std::mutex pools_mu_;
  std::shared_ptr<ThreadPools> pools_;
  std::map<std::string, std::shared_ptr<ResourceMgr>> shared_resources_;
  std::map<std::string, caf::actor> services_;  ///< guarded by pools_mu_
  std::atomic<std::int64_t> step_ids_{random_step_id_base()};
  static std::int64_t random_step_id_base();
};

/// Resolves a thread count: `requested` if positive, else the number of CPUs this process
/// may run on (its affinity mask, as TensorFlow counts them; the machine's cores where the
/// mask cannot be read).
int resolve_thread_count(int requested);

}  // namespace af
