#include "actorflow/ops/device_setter.hpp"

#include <algorithm>

#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/errors.hpp"

namespace af {

const std::vector<std::string>& standard_ps_ops() {
  static const std::vector<std::string> ops = {
      "Variable",
      "VariableV2",
      "AutoReloadVariable",
      "MutableHashTable",
      "MutableHashTableV2",
      "MutableHashTableOfTensors",
      "MutableHashTableOfTensorsV2",
      "MutableDenseHashTable",
      "MutableDenseHashTableV2",
      "VarHandleOp",
      "BoostedTreesEnsembleResourceHandleOp",
      "BoostedTreesQuantileStreamResourceHandleOp",
      "ResourceConditionalAccumulator",
      "DecisionTree",
      "DecisionTreeResource",
      "TreeEnsembleVariable",
      "TensorForestTreeResourceHandleOp",
      "TensorForestFertileStatsResourceHandleOp",
  };
  return ops;
}

// -- strategies -------------------------------------------------------------------------------

RoundRobinStrategy::RoundRobinStrategy(int num_tasks)
    : num_tasks_(num_tasks), next_task_(std::make_shared<int>(0)) {
  if (num_tasks <= 0)
    throw InvalidArgumentError(invalid_argument(
        "RoundRobinStrategy: num_tasks must be positive, got " + std::to_string(num_tasks)));
}

int RoundRobinStrategy::operator()(const NodeDef&) const {
  int task = *next_task_;
  *next_task_ = (task + 1) % num_tasks_;
  return task;
}

GreedyLoadBalancingStrategy::GreedyLoadBalancingStrategy(int num_tasks, LoadFn load_fn)
    : load_fn_(std::move(load_fn)) {
  if (num_tasks <= 0)
    throw InvalidArgumentError(
        invalid_argument("GreedyLoadBalancingStrategy: num_tasks must be positive, got " +
                         std::to_string(num_tasks)));
  if (!load_fn_)
    throw InvalidArgumentError(invalid_argument("GreedyLoadBalancingStrategy: load_fn is empty"));
  loads_ = std::make_shared<std::vector<double>>(static_cast<std::size_t>(num_tasks), 0.0);
}

int GreedyLoadBalancingStrategy::operator()(const NodeDef& node) const {
  // np.argmin: the first task of minimal load.
  auto least = std::min_element(loads_->begin(), loads_->end());
  *least += load_fn_(node);
  return static_cast<int>(least - loads_->begin());
}

double byte_size_load_fn(const NodeDef& node) {
  const DType* dtype = node.attr<DType>("dtype");
  const PartialShape* shape = node.attr<PartialShape>("shape");
  if (!dtype || !shape)
    throw InvalidArgumentError(invalid_argument(
        "byte_size_load_fn: node '" + node.name + "' (" + node.op +
        ") has no 'dtype' and 'shape' attributes; it must be a single-output variable-like op"));
  if (!shape->fully_defined())
    throw InvalidArgumentError(invalid_argument("byte_size_load_fn: shape " + shape->to_string() +
                                                " of node '" + node.name +
                                                "' is not fully defined"));
  return static_cast<double>(shape->num_elements()) * static_cast<double>(dtype_size(*dtype));
}

// -- the device function ------------------------------------------------------------------

DeviceFunction replica_device_setter(ReplicaDeviceSetterOptions options) {
  if (options.ps_tasks < 0)
    throw InvalidArgumentError(invalid_argument(
        "replica_device_setter: ps_tasks must be >= 0, got " + std::to_string(options.ps_tasks)));
  if (options.ps_tasks == 0) return {};
  DeviceSpec ps_device = DeviceSpec::parse(options.ps_device);
  DeviceSpec worker_device = DeviceSpec::parse(options.worker_device);
  std::vector<std::string> ps_ops = options.ps_ops ? *options.ps_ops : standard_ps_ops();
  PsStrategy strategy = options.ps_strategy ? std::move(options.ps_strategy)
                                            : PsStrategy(RoundRobinStrategy(options.ps_tasks));
  bool merge = options.merge_devices;
  bool use_ps = !options.ps_device.empty();
  return [=](const NodeDef& node) -> std::string {
    // Without merging, a device set by an inner scope is final.
    if (!merge && !node.device.empty()) return node.device;
    DeviceSpec current = DeviceSpec::parse(node.device);
    if (use_ps && std::find(ps_ops.begin(), ps_ops.end(), node.op) != ps_ops.end()) {
      DeviceSpec ps = ps_device;
      // The strategy picks the task only when the ps job is the node's job (or it has none).
      if (ps.job && (!current.job || *current.job == *ps.job)) ps.task = strategy(node);
      ps.merge_from(current);
      return ps.to_string();
    }
    DeviceSpec worker = worker_device;
    worker.merge_from(current);
    return worker.to_string();
  };
}

}  // namespace af
