#include "actorflow/net/device_setter.hpp"

#include "actorflow/ops/device_spec.hpp"

namespace af {

DeviceFunction replica_device_setter(const ClusterSpec& cluster,
                                     ReplicaDeviceSetterOptions options) {
  DeviceSpec ps_device = DeviceSpec::parse(options.ps_device);
  if (!ps_device.job || !cluster.as_map().count(*ps_device.job)) return {};
  options.ps_tasks = cluster.num_tasks(*ps_device.job);
  return replica_device_setter(std::move(options));
}

}  // namespace af
