#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/async_task.hpp"
#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"
#include "actorflow/ops/tensor.hpp"

namespace Eigen {
/// Eigen's thread-pool device (the intra-op pool).
struct ThreadPoolDevice;
}  // namespace Eigen

namespace af {

/// The actors module's runtime (runtime.hpp); opaque here.
class Runtime;  // actors module: the runtime a step runs in (opaque here)

/// Services a running step offers its kernels; implemented by the runtime (actors module).
/// Awaitables it returns resume the kernel in its device actor, and complete with
/// `Cancelled` / `DeadlineExceeded` when the step is aborted while they wait.
class StepServices {
 public:
  /// Owned by the runtime; valid while the kernel runs.
  virtual ~StepServices() = default;
  /// The id of the running step.
  virtual std::int64_t step_id() const = 0;
  /// The task whose master runs the step when it came from another task
  /// (`/job:worker/replica:0/task:1`: a replica, in between-graph replication); empty when
  /// this task's own session runs it. Stall reports name replicas by it.
  virtual const std::string& client_task() const {
    static const std::string none;
    return none;
  }
  /// Hands `value` to the rendezvous under `key` (non-blocking).
  virtual void send(const std::string& key, Tensor value) = 0;
  /// Waits for the value sent under `key`.
  virtual Async<StatusOr<Tensor>> recv(const std::string& key) = 0;
  /// Resumes after `delay` without holding a thread.
  virtual Async<Status> sleep(std::chrono::microseconds delay) = 0;

  /// The step's deadline (`time_point::max()` when it has none).
  virtual std::chrono::steady_clock::time_point deadline() const = 0;

  /// Returns a function that runs a closure inside the kernel's device actor. The function
  /// may be called from any thread, also after the step ended; a closure posted to a
  /// device actor that has quit is dropped. Asynchronous kernels resume their Completion
  /// through it when another actor or thread answers them.
  virtual std::function<void(std::function<void()>)> poster() = 0;

  /// Registers `hook` to run in the device actor when the step is aborted while the kernel
  /// waits (the kernel still resumes only through its own Completion); runs it at once when
  /// the step is already aborted. Returns a token for `remove_cancel_hook`.
  virtual std::uint64_t add_cancel_hook(std::function<void(const Status&)> hook) = 0;
  /// Forgets a hook (the wait it guarded is over). Unknown tokens are ignored.
  virtual void remove_cancel_hook(std::uint64_t token) = 0;

  /// Registers `undo` to run in the device actor if this partition ends in error, when the
  /// kernel's outputs are discarded: a dequeue puts its elements back, so a failed step
  /// consumes nothing. Rollbacks run in reverse order of registration.
  virtual void add_rollback(std::function<void()> undo) = 0;
};

/// What a device offers its kernels beyond the CPU's (streams, an allocator, library
/// handles); device kernels downcast it to their device's type. Null on the CPU.
class DeviceContext {
 public:
  /// Owned by its device.
  virtual ~DeviceContext() = default;
};

/// What a kernel sees when it is constructed: the node and its input types.
struct OpKernelConstruction {
  const NodeDef& def;               ///< the node (valid during construction only)
  std::vector<DType> input_types;   ///< the node's input dtypes
  std::vector<DType> output_types;  ///< the node's output dtypes
  std::string device_type;          ///< "CPU", "GPU"
  std::string device_name;          ///< full name of the device
  /// Returns attribute `name` or InvalidArgument naming the node.
  template <class T>
  Status get_attr(const std::string& name, T* out) const {
    if (auto p = def.attr<T>(name)) {
      *out = *p;
      return {};
    }
    return invalid_argument("NodeDef missing attr '" + name + "' from Op<name=" + def.op +
                            "> for node '" + def.name + "'");
  }
};

/// What a kernel sees when it runs: its inputs, outputs, status and the step's services.
class OpKernelContext {
 public:
  /// A context for one run of the node `def` (which must outlive it) on `inputs`; no outputs yet.
  OpKernelContext(const NodeDef& def, std::vector<Tensor> inputs) noexcept
      : def_(def), inputs_(std::move(inputs)) {}

  /// The node being run.
  const NodeDef& def() const noexcept { return def_; }
  /// The node's name.
  const std::string& node_name() const noexcept { return def_.name; }

  /// The number of inputs.
  int num_inputs() const noexcept { return static_cast<int>(inputs_.size()); }
  /// Input `i`; throws std::out_of_range for a bad index.
  const Tensor& input(int i) const { return inputs_.at(static_cast<std::size_t>(i)); }
  /// The resource behind a reference input (variables), or null.
  std::shared_ptr<ResourceBase> input_ref(int i) const { return input(i).resource(); }

  /// The number of output slots.
  int num_outputs() const noexcept { return static_cast<int>(outputs_.size()); }
  /// Sizes the output slots (the executor does, before `compute`).
  void set_num_outputs(int n) { outputs_.resize(static_cast<std::size_t>(n)); }
  /// Sets output `i`; throws std::out_of_range for a bad index.
  void set_output(int i, Tensor t) { outputs_.at(static_cast<std::size_t>(i)) = std::move(t); }
  /// Allocates output `i` with `dtype` and `shape`, zero-filled, and returns it for filling
  /// (std::out_of_range for a bad index).
  Tensor& allocate_output(int i, DType dtype, Shape shape);
  /// The same with the bytes not set, for kernels that write every element (zeroing the
  /// outputs of a training step's large kernels cost a tenth of the step).
  Tensor& allocate_output_for_overwrite(int i, DType dtype, Shape shape);
  /// The output slots.
  std::vector<Tensor>& outputs() noexcept { return outputs_; }

  /// Records an error; the first one wins. Kernels return right after failing.
  void fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  /// True while no error was recorded.
  bool ok() const noexcept { return status_.ok(); }
  /// The first recorded error (OK when none).
  const Status& status() const noexcept { return status_; }

  // -- runtime services (set by the executor) -----------------------------------

  /// The device's resources for this session (variables). May be null.
  ResourceMgr* resource_mgr = nullptr;
  /// The process-wide resources of this device: shared by every session of the process
  /// (queues and readers with a `shared_name` live here). May be null.
  ResourceMgr* shared_resource_mgr = nullptr;
  /// The runtime the step runs in (kernels that spawn actors: queues, readers). May be null.
  Runtime* runtime = nullptr;
  /// The step's services (rendezvous, timers, cancellation); null outside a step.
  StepServices* step = nullptr;
  Eigen::ThreadPoolDevice* eigen_device = nullptr;  ///< intra-op pool (may be null)
  int intra_op_threads = 1;                         ///< threads of `eigen_device`
  /// Full name of the device the kernel runs on (the device's own string, which outlives
  /// the step: a context copies no name per kernel).
  std::string_view device_name;
  /// The device's context for device kernels (GPU streams and allocator); null on the CPU.
  DeviceContext* device_context = nullptr;

 private:
  const NodeDef& def_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  Status status_;
};

/// A computation of one node on one device type (TensorFlow's `OpKernel`). Constructed
/// once per session partition; `compute` may run concurrently for different steps.
class OpKernel {
 public:
  /// Takes the node's name and op type from `c`.
  explicit OpKernel(OpKernelConstruction& c) : name_(c.def.name), type_(c.def.op) {}
  /// Destroyed with its session partition (stateful kernels: with the session).
  virtual ~OpKernel() = default;

  /// Computes the outputs synchronously. Errors go to `ctx.fail`.
  virtual void compute(OpKernelContext& ctx) = 0;

  /// True for kernels worth a pool thread (large matmuls, reductions); cheap kernels run
  /// inline in the device actor.
  virtual bool is_expensive(const OpKernelContext& /*ctx*/) const { return false; }

  /// True for kernels that wait (recv, dequeue): they implement `compute_async`.
  virtual bool is_async() const { return false; }

  /// An asynchronous kernel's body; runs inside the device actor and may `co_await` the
  /// awaitables of `ctx.step`. Fails through `ctx.fail`; the default fails with Internal.
  virtual AsyncKernelTask compute_async(OpKernelContext& ctx);

  /// The node's name.
  const std::string& name() const noexcept { return name_; }
  /// The op type.
  const std::string& type() const noexcept { return type_; }

 private:
  std::string name_;
  std::string type_;
};

/// Makes a kernel; reports construction errors through the Status.
using KernelFactory = std::function<std::unique_ptr<OpKernel>(OpKernelConstruction&, Status*)>;

/// One kernel registration: op type, device type, dtype constraints and a factory.
struct KernelDef {
  std::string op;           ///< the op type
  std::string device_type;  ///< "CPU", "GPU"
  /// Attribute name -> allowed dtypes (`TypeConstraint<float>("T")`).
  std::vector<std::pair<std::string, std::vector<DType>>> constraints;
  KernelFactory factory;  ///< builds the kernel
};

/// All kernels (TensorFlow's kernel registry). The kernel modules register theirs: the CPU
/// kernels when a program includes `actorflow/kernels/cpu_kernels.hpp` (the runtime does), the
/// GPU kernels when the first GPU device is made.
class KernelRegistry {
 public:
  /// The process-wide registry; thread-safe. Each call first runs the modules added since
  /// the last one (`add_module`), so a registry anyone sees holds their kernels.
  static KernelRegistry& global();
  /// Adds a kernel module: `fn` registers its kernels into the registry it is given, once,
  /// when `global()` is next called. Safe during static initialisation (it only records
  /// `fn`), which is where modules add themselves; `fn` must not call `global()`. Returns
  /// true.
  static bool add_module(void (*fn)(KernelRegistry&));
  /// Adds a registration (kept beside earlier ones for the op; the first match wins). Thread-safe.
  void add(KernelDef def);

  /// The kernel for `def` on `device_type`, or null.
  const KernelDef* find(const NodeDef& def, const std::string& device_type) const;
  /// Every registration of `op` on `device_type` (a GPU device reuses the CPU kernels
  /// that never touch element memory: Identity, NoOp, variables).
  std::vector<KernelDef> kernels_for(const std::string& op, const std::string& device_type) const;
  /// Device types with a kernel for `def`, e.g. {"CPU"}.
  std::vector<std::string> supported_device_types(const NodeDef& def) const;
  /// Instantiates the kernel; NotFound / InvalidArgument naming the node on failure.
  Status create(OpKernelConstruction& c, std::unique_ptr<OpKernel>* out) const;
  /// TensorFlow's "Registered kernels:" listing for `op`.
  std::string registered_kernels_string(const std::string& op) const;

 private:
  KernelRegistry() = default;
  mutable std::mutex mu_;
  std::multimap<std::string, KernelDef> kernels_;
};

/// Registers kernel `Class` (constructor `Class(OpKernelConstruction&, Status*)` or
/// `Class(OpKernelConstruction&)`) for `op` on `device`.
template <class Class>
KernelDef make_kernel_def(
    std::string op, std::string device,
    std::vector<std::pair<std::string, std::vector<DType>>> constraints = {}) {
  KernelDef d;
  d.op = std::move(op);
  d.device_type = std::move(device);
  d.constraints = std::move(constraints);
  d.factory = [](OpKernelConstruction& c, Status* s) -> std::unique_ptr<OpKernel> {
    if constexpr (std::is_constructible_v<Class, OpKernelConstruction&, Status*>) {
      return std::make_unique<Class>(c, s);
    } else {
      (void)s;
      return std::make_unique<Class>(c);
    }
  };
  return d;
}

}  // namespace af
