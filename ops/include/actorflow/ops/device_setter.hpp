#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/graph.hpp"

namespace af {

/// Chooses the ps task of a node the device setter places on the ps job: gets the node
/// being created, returns a task index in `[0, ps_tasks)` (TensorFlow's `ps_strategy`).
using PsStrategy = std::function<int(const NodeDef&)>;

/// The op types a replica device setter places on ps tasks by default (TensorFlow's
/// `STANDARD_PS_OPS`: variables, hash tables and other long-lived resources).
const std::vector<std::string>& standard_ps_ops();

/// Round-robin over `num_tasks` ps tasks: 0, 1, ..., num_tasks - 1, 0, ... (TensorFlow's
/// `_RoundRobinStrategy`, the default `ps_strategy`). Copies share one counter, so the
/// strategy a device setter holds is the one the caller passed.
class RoundRobinStrategy {
 public:
  /// Throws InvalidArgumentError unless `num_tasks > 0`.
  explicit RoundRobinStrategy(int num_tasks);
  /// Returns the next task index.
  int operator()(const NodeDef& node) const;

 private:
  int num_tasks_;
  std::shared_ptr<int> next_task_;
};

/// Places each ps node on the least-loaded ps task, then adds the node's load to that task
/// (TensorFlow's `GreedyLoadBalancingStrategy`). Ties go to the lowest task index. Sensitive
/// to creation order, as TensorFlow's is. Copies share one load table.
class GreedyLoadBalancingStrategy {
 public:
  /// The load of one node, in any consistent unit (e.g. `byte_size_load_fn`).
  using LoadFn = std::function<double(const NodeDef&)>;

  /// Throws InvalidArgumentError unless `num_tasks > 0` and `load_fn` is set.
  GreedyLoadBalancingStrategy(int num_tasks, LoadFn load_fn);
  /// Returns the least-loaded task and charges it with the node's load.
  int operator()(const NodeDef& node) const;
  /// The accumulated load of every task.
  const std::vector<double>& loads() const noexcept { return *loads_; }

 private:
  LoadFn load_fn_;
  std::shared_ptr<std::vector<double>> loads_;
};

/// The byte size of the single output of a variable-like node: its `shape` attribute's
/// element count times the size of its `dtype` (TensorFlow's `byte_size_load_fn`). Throws
/// InvalidArgumentError naming the node when either attribute is missing or the shape is
/// not fully defined.
double byte_size_load_fn(const NodeDef& node);

/// Arguments of `replica_device_setter` (TensorFlow's keyword arguments).
struct ReplicaDeviceSetterOptions {
  /// Number of ps tasks; the ClusterSpec overload takes it from the cluster instead.
  int ps_tasks = 0;
  /// Device of ps nodes; when it names a job, the strategy sets the task. Empty: none.
  std::string ps_device = "/job:ps";
  /// Device of every other node. Empty: none.
  std::string worker_device = "/job:worker";
  /// True: fill only the fields an inner device scope left unset. False: a node that already
  /// has a device keeps it untouched (TensorFlow warns this is deprecated).
  bool merge_devices = true;
  /// Op types placed on ps tasks; absent: `standard_ps_ops()`.
  std::optional<std::vector<std::string>> ps_ops;
  /// Chooses the ps task; absent: `RoundRobinStrategy(ps_tasks)`.
  PsStrategy ps_strategy;
};

/// Returns a device function for building a replicated-training graph (TensorFlow's
/// `tf.train.replica_device_setter`): ops of `ps_ops` go to `ps_device` with the task the
/// strategy picks, every other op to `worker_device`; devices set by inner `Graph::device`
/// scopes win field by field. An explicit job other than the ps job keeps the node off the
/// ps tasks (and does not advance the strategy).
///
/// ```cpp
/// auto scope = g.device(af::replica_device_setter({.ps_tasks = 2}));
/// auto v1 = g.variable(...);   // /job:ps/task:0
/// auto v2 = g.variable(...);   // /job:ps/task:1
/// auto sum = af::add(v1, v2);  // /job:worker
/// ```
///
/// With `ps_tasks == 0` it returns an empty function, which `Graph::device` treats as
/// TensorFlow treats `tf.device(None)`: enclosing device scopes are cleared. Throws
/// InvalidArgumentError for a malformed `ps_device` or `worker_device`.
DeviceFunction replica_device_setter(ReplicaDeviceSetterOptions options);

}  // namespace af
