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
  std::string name;               ///< full name: /job:localhost/replica:0/task:0/device:CPU:0
  std::string device_type;        ///< "CPU", "GPU"
  std::string description;        ///< e.g. the GPU's name
  std::int64_t memory_limit = 0;  ///< bytes the device may allocate (0: unknown)
  /// `name` parsed; throws InvalidArgumentError when it is malformed.
  DeviceSpec spec() const { return DeviceSpec::parse(name); }
};

/// Placement options from the session configuration.
struct PlacerOptions {
  bool allow_soft_placement = false;  ///< see `place_nodes`
  bool log_device_placement = false;  ///< log each node's device when first placed
};

/// Node name -> device name, remembered by a session across runs (a placed node stays).
using Placement = std::map<std::string, std::string>;

/// Places `nodes` (TensorFlow's placer, placer.cc). Rules, in order: a node placed in an
/// earlier run keeps its device; nodes colocated with each other (`_class = loc:@x`,
/// reference edges of variables) share one device; a node goes to the first device, by type
/// priority (GPU before CPU) and then by full name, that matches its spec and has a kernel
/// for it. Parts a spec omits match any device: an unpinned node goes to the first device of
/// the whole cluster (`/job:ps/replica:0/task:0/...` when there is a ps job), whichever task
/// is the session's master, and `/job:ps` to the first matching ps device. As TensorFlow's
/// heuristics: a generator (no inputs, one output, a constant say) goes with its consumers
/// when they all share a device it may use, a Shape/ShapeN/Size/Rank with its input. A pinned node
/// with no matching device or kernel fails with InvalidArgument "Cannot assign a device for
/// operation NAME: Could not satisfy explicit device specification ..." unless
/// `allow_soft_placement`, which falls back to another device of the same task. Newly placed node
/// names are appended to `newly_placed`.
Status place_nodes(const std::vector<const Node*>& nodes,
                   const std::vector<DeviceAttributes>& devices, const PlacerOptions& options,
                   const KernelRegistry& kernels, Placement* placement,
                   std::vector<std::string>* newly_placed);

/// Priority of a device type for default placement (higher first): GPU 210, CPU 100.
int device_type_priority(const std::string& device_type);

}  // namespace af
