#pragma once

// The link from this task to one other task of the cluster. Every message of the step
// protocol that crosses to that task leaves through it: a tensor on a cross-task edge, a
// partition run, a run's reply, a step's cancellation and its cleanup. Whether the link has a
// push channel (tensor_push.hpp) is settled once, when the cluster agent connects the task
// (`Routes::set`): with one, each message goes there as a frame of its kind; without one
// (TLS, or the peer has no push port), over CAF to the peer's worker service. A message the
// push channel cannot take at the time (the connection broke, the peer refused it) goes over
// CAF too. Bytes are counted per peer for `/metrics`.
#include <caf/all.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/actors/detail/step_actors.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "tensor_push.hpp"
#include "worker_protocol.hpp"

namespace af::net {

class Routes;

/// The link to one connected task (see above). Owned by `Routes`; used while it lives.
/// Thread-safe: any thread may send through it (the push channel writes one frame at a
/// time).
class PeerLink {
 public:
  /// The link to `task`, whose worker service is `worker`, over `push` (null: the task
  /// has no push channel), counting bytes in `routes`.
  PeerLink(std::string task, worker_service_handle worker, std::shared_ptr<TensorPushClient> push,
           Routes& routes);

  /// The task at the other end.
  const std::string& task() const { return task_; }
  /// Its worker service.
  const worker_service_handle& worker() const { return worker_; }
  /// Whether the link has a push channel.
  bool pushes() const { return push_ != nullptr; }

  /// Sends the tensor of rendezvous `key` in step `step_id`: a numeric host tensor as a
  /// tensor frame, anything else (or when the push fails) encoded over CAF.
  void tensor(std::int64_t step_id, const std::string& key, const Tensor& value);
  /// Sends a tensor already encoded (wire.hpp) over CAF, as `from` (a proxy relaying it).
  void tensor_encoded(const caf::actor& from, std::int64_t step_id, const std::string& key,
                      std::string blob);
  /// Pushes a control frame of `kind` for step `step_id` with payload `pieces` (gathered,
  /// not copied): false when the link has no push channel or the push failed, and the
  /// caller sends it its own way over CAF (a run as a request, a reply to the proxy).
  bool push(std::int64_t step_id, PushKind kind, const std::vector<std::string_view>& pieces);
  /// Cancels step `step_id` at the peer with `why`, as `from` (the master's proxy). After a
  /// run that was pushed (`after_pushed_run`) the cancellation takes the same channel, so
  /// that it cannot overtake the run.
  void cancel(const caf::actor& from, std::int64_t step_id, const Status& why,
              bool after_pushed_run);
  /// Tells the peer that step `step_id` is over, as `from`.
  void cleanup(const caf::actor& from, std::int64_t step_id);

 private:
  std::string task_;
  worker_service_handle worker_;
  std::shared_ptr<TensorPushClient> push_;
  Routes& routes_;
};

}  // namespace af::net
