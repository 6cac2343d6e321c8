#pragma once

#include <caf/actor.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/actors/detail/step_actors.hpp"
#include "actorflow/actors/runtime.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/placer.hpp"
#include "actorflow/ops/resource.hpp"

namespace af {

/// Session configuration (session.hpp).
struct SessionConfig;

/// A device a session computes on (TensorFlow's `Device`): its attributes, its resource
/// manager and where its kernels run. The runtime wraps each device in a device actor that
/// executes partitions; the Device itself is shared with kernels running on pool threads
/// and must be thread-safe.
class Device {
 public:
  /// A device with `attributes` (name, type, memory); not yet attached to a runtime.
  explicit Device(DeviceAttributes attributes) : attributes_(std::move(attributes)) {}
  /// Destroys the device's resources (the devices of a session or DeviceSet go with it).
  virtual ~Device() = default;

  /// The attributes the device was created with.
  const DeviceAttributes& attributes() const noexcept { return attributes_; }
  /// The full device name (`/job:localhost/replica:0/task:0/device:CPU:0`).
  const std::string& name() const noexcept { return attributes_.name; }
  /// The device type ("CPU", "GPU").
  const std::string& device_type() const noexcept { return attributes_.device_type; }

  /// Variables and other resources living on this device.
  ResourceMgr& resource_mgr() noexcept { return resources_; }

  /// The process-wide resources of this device name (shared between sessions), or null.
  ResourceMgr* shared_resource_mgr() noexcept { return shared_resources_.get(); }
  /// The runtime this device computes in (set by the session), or null.
  Runtime* runtime() noexcept { return runtime_; }
  /// Binds the device to `runtime` and its process-wide resources for this device name.
  void attach(Runtime& runtime) { attach(runtime, runtime.shared_resource_mgr(name())); }
  /// Binds the device to `runtime` with `shared` as its shared resources.
  void attach(Runtime& runtime, std::shared_ptr<ResourceMgr> shared) {
    runtime_ = &runtime;
    shared_resources_ = std::move(shared);
  }

  /// The kernel of node `node_name`: `create`d afresh unless `stateful`, in which case the
  /// first one created is kept and shared by every plan of the session (TensorFlow's
  /// OpSegment), so a queue or reader op keeps its resource across plans. Returns the error
  /// of `create` (a failed stateful kernel is not kept). Thread-safe.
  Status find_or_create_kernel(const std::string& node_name, bool stateful,
                               std::shared_ptr<OpKernel>* out,
                               const std::function<Status(std::unique_ptr<OpKernel>*)>& create);

  /// Drops the stateful kernels whose keys start with `prefix` (a closed session's).
  void forget_kernels(const std::string& prefix);

  // -- accelerators ---------------------------------------------------------------------

  /// The context device kernels use (streams, allocator, library handles); null for the
  /// CPU. Valid as long as the device.
  virtual DeviceContext* device_context() noexcept { return nullptr; }
  /// True for devices whose tensors live in their own memory (GPUs): the executor then
  /// copies feeds in, fetches out and waits for `sync` before a partition reports done.
  virtual bool is_accelerator() const noexcept { return false; }
  /// Copies `value` (a tensor of this device) into host memory and calls `done` with the
  /// host tensor, from any thread, once the copy has finished. Host tensors pass through.
  virtual void copy_to_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) {
    done(value);
  }
  /// Starts a copy of host tensor `value` into this device's memory and calls `done` with
  /// the device tensor, from any thread; kernels of this device that use it run after the
  /// copy. ResourceExhausted when the device's memory is exhausted.
  virtual void copy_from_host(const Tensor& value, std::function<void(StatusOr<Tensor>)> done) {
    done(value);
  }
  /// Calls `done`, from any thread, once the work enqueued on the device so far (copies
  /// started with `start_copy_to_host` included) has finished, with the first asynchronous
  /// error of that work.
  virtual void sync(std::function<void(Status)> done) { done(Status()); }
  /// Starts copying `value` (a tensor of this device) into host memory and returns the host
  /// tensor, whose contents are valid once a later `sync` or `try_sync_now` has reported
  /// success; `value` must stay alive until then. Host tensors pass through.
  virtual StatusOr<Tensor> start_copy_to_host(const Tensor& value) { return value; }
  /// Waits on the calling thread, polling until `deadline`, for the work enqueued so far
  /// (copies started with `start_copy_to_host` included): its first asynchronous error once
  /// it has finished, nullopt if it still runs at `deadline` (then `sync` is the way).
  /// For a thread that waits for its step anyway: answers in microseconds where `sync`'s
  /// callback takes tens.
  virtual std::optional<Status> try_sync_now(std::chrono::steady_clock::time_point deadline) {
    (void)deadline;
    return Status();
  }

  /// Runs `fn` on this device's inter-op pool (expensive kernels).
  virtual void schedule(std::function<void()> fn) = 0;
  /// The intra-op pool for multi-threaded kernels (may be null).
  virtual Eigen::ThreadPoolDevice* intra_op_device() noexcept = 0;
  /// The threads of the intra-op pool.
  virtual int intra_op_threads() const noexcept = 0;
  /// The threads of the inter-op pool (a thread waiting for its step stands in for one).
  virtual int inter_op_threads() const noexcept { return 1; }

 private:
  DeviceAttributes attributes_;
  ResourceMgr resources_;
  std::shared_ptr<ResourceMgr> shared_resources_;
  Runtime* runtime_ = nullptr;
  std::mutex kernels_mu_;
  std::map<std::string, std::shared_ptr<OpKernel>> stateful_kernels_;
};

/// Devices that outlive sessions (a server's): each with its device actor. Sessions opened
/// on a DeviceSet share the devices' resource managers, so variables live as long as the set.
struct DeviceSet {
  /// The devices of this task.
  std::vector<std::shared_ptr<Device>> devices;
  /// The attributes of every device a session on the set sees (remote ones included).
  std::vector<DeviceAttributes> attributes;
  /// Device name -> its device actor (or, in a server's view of the cluster, the task proxy
  /// standing in for a remote device).
  std::map<std::string, detail::partition_runner> actors;
  /// The task the devices belong to (`/job:worker/replica:0/task:0`): where a session on the
  /// set places unpinned nodes.
  std::string task;
  /// The task's step rendezvous, shared by every session on the set (step ids are unique
  /// across the cluster, see `Runtime::next_step_id`).
  detail::rendezvous_handle rendezvous;
  /// The runtime the set was created in and the shared resources it owns, per device
  /// name (see `Runtime::fresh_shared_resource_mgr`).
  Runtime* runtime = nullptr;
  /// (device name, shared resources) pairs the set owns and drops in `shutdown`.
  std::vector<std::pair<std::string, std::shared_ptr<ResourceMgr>>> owned_resources;
  /// Set by a server's master service for devices of other tasks: their attributes are in
  /// `attributes` and their actors (proxies running partitions on the remote worker) in
  /// `actors`, with no entry in `devices`. Routes a tensor sent on an edge whose
  /// destination is another task (the key names the destination device); false when the
  /// destination is local.
  std::function<bool(std::int64_t step_id, const std::string& key, const Tensor& value)>
      remote_send;
  /// Called with a closing session's kernel scope (remote workers forget its partitions).
  std::function<void(const std::string& kernel_scope)> on_session_close;

  /// Creates every registered device type's devices named under `name_prefix`
  /// (`/job:worker/replica:0/task:0`) with their actors and fresh shared resources. Throws
  /// InternalError when none.
  static std::shared_ptr<DeviceSet> create(Runtime& runtime, const SessionConfig& config,
                                           const std::string& name_prefix);
  /// Tells the device actors and the rendezvous to quit and drops the devices and the
  /// shared resources the set owns (queue and reader actors quit).
  void shutdown();
};

/// Creates the devices of one device type for a session (TensorFlow's `DeviceFactory`).
class DeviceFactory {
 public:
  /// Factories are kept until the process exits.
  virtual ~DeviceFactory() = default;
  /// Appends devices named under `name_prefix` (`/job:localhost/replica:0/task:0`).
  virtual void create_devices(Runtime& runtime, const SessionConfig& config,
                              const std::string& name_prefix,
                              std::vector<std::unique_ptr<Device>>* out) = 0;

  /// Registers `factory` for `device_type` (idempotent per type; higher priority first).
  static void register_factory(const std::string& device_type, int priority,
                               std::unique_ptr<DeviceFactory> factory);
  /// Creates the devices of every registered factory, in priority order.
  static std::vector<std::unique_ptr<Device>> create_all(Runtime& runtime,
                                                         const SessionConfig& config,
                                                         const std::string& name_prefix);
  /// Registered device types.
  static std::vector<std::string> device_types();
};

}  // namespace af
