#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/status.hpp"

namespace af {

/// What the placer knows of a device.
struct DeviceAttributes {
  std::string name;         ///< full name: /job:localhost/replica:0/task:0/device:CPU:0
  std::string device_type;  ///< "CPU", "GPU"
  std::string description;  ///< e.g. the GPU's name
  std::int64_t memory_limit = 0;
  DeviceSpec spec() const { return DeviceSpec::parse(name); }
};

/// Placement options from the session configuration.
struct PlacerOptions {
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  /// The master's task (`/job:worker/replica:0/task:1`): an unpinned node, or a spec without
  /// a job, goes there; a spec naming a job but no task means task 0 (the chapter's
  /// "Pinning Operations Across Tasks"). Empty: no defaults (any matching device).
  std::string default_task;
};

/// Node name -> device name, remembered by a session across runs (a placed node stays).
using Placement = std::map<std::string, std::string>;

/// Places `nodes` (TensorFlow's simple placer). Rules, in order: a node placed in an earlier
/// run keeps its device; nodes colocated with each other (`_class = loc:@x`, reference
/// edges of variables) share one device; a pinned node goes to a device matching its spec
/// that has a kernel for it; otherwise the highest-priority device with a kernel (GPU:0
/// before CPU:0). A pinned node with no matching device or kernel fails with
/// InvalidArgument "Cannot assign a device for operation NAME: Could not satisfy explicit
/// device specification ..." unless `allow_soft_placement`, which falls back to another
/// device of the same task. Newly placed node names are appended to `newly_placed`.
Status place_nodes(const std::vector<const Node*>& nodes, const std::vector<DeviceAttributes>& devices,
                   const PlacerOptions& options, const KernelRegistry& kernels, Placement* placement,
                   std::vector<std::string>* newly_placed);

/// Priority of a device type for default placement (higher first): GPU 210, CPU 100.
int device_type_priority(const std::string& device_type);

}  // namespace af
