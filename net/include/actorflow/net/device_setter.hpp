#pragma once

#include "actorflow/net/cluster_spec.hpp"
#include "actorflow/ops/device_setter.hpp"

namespace af {

/// `replica_device_setter` for a cluster (TensorFlow's `replica_device_setter(cluster=...)`):
/// the number of ps tasks is the number of tasks of the job `options.ps_device` names
/// (`options.ps_tasks` is ignored). When that job is not in the cluster, or `ps_device`
/// names no job, returns an empty function, which clears enclosing device scopes as
/// TensorFlow's `None` does.
///
/// ```cpp
/// af::ClusterSpec cluster({{"ps", {"ps0:2222", "ps1:2222"}}, {"worker", {"w0:2222"}}});
/// auto scope = g.device(af::replica_device_setter(cluster));
/// ```
DeviceFunction replica_device_setter(const ClusterSpec& cluster,
                                     ReplicaDeviceSetterOptions options = {});

}  // namespace af
