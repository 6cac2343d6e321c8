#pragma once

// The distributed half of a step (see ARCHITECTURE.md "A cluster"): every server runs a
// worker service (partitions shipped by masters of other tasks), a cluster agent (connects
// to the other tasks, keeps their worker handles and devices) and, per connected task, a
// task proxy (the local stand-in for that task's devices in the step protocol).
//
// Cross-task traffic leaves through the PeerLink of the task it goes to (peer_link.hpp): a
// `_Send` whose key names a device of another task goes straight to that task; a worker
// not connected to the destination sends it back through the master's proxy, which
// forwards it. What arrives on a task's push port is sorted by `deliver_pushed`.
#include <caf/all.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/actors/device.hpp"
#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/status.hpp"
#include "peer_link.hpp"
#include "tensor_push.hpp"
#include "worker_protocol.hpp"

namespace af::net {

/// The task part of a device name (`/job:ps/replica:0/task:0`); `""` when it has none.
std::string task_of_device(const std::string& device);
/// The destination device's task of a rendezvous key `src;dst;tensor;n`.
std::string destination_task(const std::string& key);
/// The source device's task of a rendezvous key; `""` when it has none.
std::string source_task(const std::string& key);

/// The links to the connected tasks (peer_link.hpp), shared by the agent (writer) and the
/// routing functions of a task's sessions, proxies and worker service (readers), with the
/// counters `/metrics` shows.
class Routes {
 public:
  /// The link to a connected task, or null.
  std::shared_ptr<PeerLink> link(const std::string& task) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = links_.find(task);
    return it == links_.end() ? nullptr : it->second;
  }
  /// The worker service of a connected task, or null.
  worker_service_handle worker(const std::string& task) const {
    auto l = link(task);
    return l ? l->worker() : worker_service_handle();
  }
  /// Links (or with a null `worker`, unlinks) a connected task: its worker service and the
  /// endpoint of its tensor push port (tensor_push.hpp; port 0: it has none, and the link
  /// goes over CAF). A push that makes no progress for `push_send_timeout` breaks that
  /// channel.
  void set(const std::string& task, caf::actor worker, PushEndpoint push = {},
           std::chrono::milliseconds push_send_timeout = std::chrono::seconds(10)) {
    std::shared_ptr<TensorPushClient> pusher;
    if (worker && push.port != 0)
      pusher = std::make_shared<TensorPushClient>(std::move(push), task, push_send_timeout);
    std::lock_guard<std::mutex> lock(mu_);
    if (worker)
      links_[task] = std::make_shared<PeerLink>(
          task, caf::actor_cast<worker_service_handle>(std::move(worker)), std::move(pusher),
          *this);
    else
      links_.erase(task);
  }
  /// This task's own push endpoint, which its master service tells its peers.
  void set_local_push(PushEndpoint push) {
    std::lock_guard<std::mutex> lock(mu_);
    local_push_ = std::move(push);
  }
  PushEndpoint local_push() const {
    std::lock_guard<std::mutex> lock(mu_);
    return local_push_;
  }

  /// What this task's push port took (`/metrics`): tensors, and control frames.
  struct Pushed {
    std::uint64_t tensors = 0;
    std::uint64_t control = 0;  ///< partition runs, replies, cancellations, cleanups
  };
  void count_pushed(bool control) {
    std::lock_guard<std::mutex> lock(mu_);
    ++(control ? pushed_.control : pushed_.tensors);
  }
  Pushed pushed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return pushed_;
  }

  /// Partition runs sent over the push channel (task_proxy.cpp): the reply to request `id`
  /// arrives on this task's push port and goes to the proxy that expects it.
  std::uint64_t next_request_id() {
    std::lock_guard<std::mutex> lock(mu_);
    return ++last_request_id_;
  }
  void expect_reply(std::uint64_t id, caf::actor proxy) {
    std::lock_guard<std::mutex> lock(mu_);
    replies_[id] = std::move(proxy);
  }
  /// The proxy waiting for reply `id`, which no longer waits; null when none does.
  caf::actor take_reply(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = replies_.find(id);
    if (it == replies_.end()) return {};
    auto proxy = std::move(it->second);
    replies_.erase(it);
    return proxy;
  }

  /// Bytes of partitions, feeds, fetches and tensors exchanged with each peer (`/metrics`).
  struct Traffic {
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
  };
  void count_sent(const std::string& peer, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    traffic_[peer].sent += bytes;
  }
  void count_received(const std::string& peer, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    traffic_[peer].received += bytes;
  }
  std::map<std::string, Traffic> traffic() const {
    std::lock_guard<std::mutex> lock(mu_);
    return traffic_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<PeerLink>> links_;
  PushEndpoint local_push_;
  std::map<std::string, Traffic> traffic_;
  Pushed pushed_;
  std::uint64_t last_request_id_ = 0;
  std::map<std::uint64_t, caf::actor> replies_;
};

/// Sends `value` through the link to the key's destination task unless that is `local_task`
/// (returns false: the caller delivers locally). A destination that is not connected gets
/// nothing; the step fails when that task's proxy sees it go down, or at its deadline.
bool route_tensor(const Routes& routes, const std::string& local_task, std::int64_t step_id,
                  const std::string& key, const Tensor& value);

/// Hands a tensor that came from another task (over the push channel, `frame_bytes` on the
/// wire) to this task's rendezvous, counting them as received from the key's source task.
void deliver_tensor(Routes& routes, const detail::rendezvous_handle& rendezvous,
                    std::int64_t step_id, std::string key, Tensor value, std::size_t frame_bytes);

/// What a task's push port does with a frame (by its kind): a control frame goes to the
/// worker service (a run, a step's cancellation or cleanup) or to the proxy waiting for it (a
/// reply; one nobody waits for is dropped), a tensor to the rendezvous (deliver_tensor).
void deliver_pushed(Routes& routes, const detail::rendezvous_handle& rendezvous,
                    const worker_service_handle& worker_service, TensorPushServer::Frame frame);

/// A connected task as the cluster agent knows it.
struct Peer {
  std::string task;         ///< `/job:ps/replica:0/task:0`
  std::string address;      ///< `127.0.0.1:2221`
  caf::actor worker;        ///< its worker service (remote)
  task_proxy_handle proxy;  ///< local stand-in for its devices
  std::vector<DeviceAttributes> devices;
};
using PeerList = std::shared_ptr<const std::vector<Peer>>;

/// Spawns the worker service of a task.
worker_service_handle spawn_worker_service(caf::actor_system& sys,
                                           std::shared_ptr<DeviceSet> devices,
                                           std::shared_ptr<Routes> routes);

/// Spawns the proxy of remote task `peer_task` for partitions of masters on `local_task`.
task_proxy_handle spawn_task_proxy(caf::actor_system& sys, std::string peer_task,
                                   std::string peer_address, caf::actor remote_worker,
                                   std::string local_task,
                                   detail::rendezvous_handle local_rendezvous,
                                   std::shared_ptr<Routes> routes);

/// Spawns the cluster agent of `job`/`task`: connects to every other task (retrying, logging
/// what it waits for at most every `log_every`), answers
/// `(cluster_agent_peers_atom, int64 wait_ms)` with a PeerList of every other task once all are
/// connected, or Unavailable naming the missing tasks after `wait_ms`.
caf::actor spawn_cluster_agent(Runtime& runtime, ClusterSpec cluster, std::string job, int task,
                               detail::rendezvous_handle local_rendezvous,
                               std::shared_ptr<Routes> routes, std::chrono::milliseconds log_every);

/// Parses `SessionConfig::device_filters` as they travel: InvalidArgument "device_filters:
/// ..." naming the bad spec.
Status parse_device_filters(const std::vector<std::string>& specs, std::vector<DeviceSpec>* out);

/// Encodes the device list as `master_devices` answers it.
std::string encode_devices(const std::vector<DeviceAttributes>& devices);
Status decode_devices(const std::string& blob, const std::string& what,
                      std::vector<DeviceAttributes>* out);

}  // namespace af::net

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::net::PeerList)
