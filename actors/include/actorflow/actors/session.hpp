#pragma once

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/actors/step_stats.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/placer.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

namespace detail {
struct StepRun;
enum class StepPath;
struct SessionTestAccess;
}  // namespace detail

/// GPU memory options (`ConfigProto.gpu_options`); used by GPU devices.
struct GPUOptions {
  /// Fraction of each GPU's memory the process may take (0 = nearly all).
  double per_process_gpu_memory_fraction = 0.0;
  /// Allocate on demand instead of up front; memory is never given back.
  bool allow_growth = false;
  /// Comma-separated visible GPU ids, like CUDA_VISIBLE_DEVICES, applied on top of it.
  std::string visible_device_list;
};

/// Session configuration (TensorFlow's `ConfigProto`).
struct SessionConfig {
  /// Log every node's device once, when the placer first places it.
  bool log_device_placement = false;
  /// Fall back to another device when a pinned device has no kernel for a node.
  bool allow_soft_placement = false;
  /// Threads of the inter-op pool (0 = the CPUs this process may run on).
  int inter_op_parallelism_threads = 0;
  /// Threads of the intra-op pool (0 = the CPUs this process may run on).
  int intra_op_parallelism_threads = 0;
  /// Give this session pools of its own instead of the process-wide ones.
  bool use_per_session_threads = false;
  /// Deadline of every step without its own `RunOptions::timeout_in_ms` (0 = none).
  std::int64_t operation_timeout_in_ms = 0;
  /// A session on a cluster server sees only the other tasks' devices that match one of
  /// these partial specs (`"/job:ps"`, `"/job:worker/task:3"`), and opening it waits only for
  /// those tasks (TensorFlow's `device_filters`); the master's own task is always in. Empty:
  /// every task. Between-graph clients use it so that a dead task they never use cannot stop
  /// them from opening a session.
  std::vector<std::string> device_filters;
  /// GPU memory options for the session's GPU devices.
  GPUOptions gpu_options;
  /// Maximum devices per type (`{"CPU": 2}` creates CPU:0 and CPU:1; `{"GPU": 0}` hides GPUs).
  std::map<std::string, int> device_count;
  /// The runtime to run in (default: `Runtime::global()`).
  Runtime* runtime = nullptr;
  /// A `caf://` session whose target is a server of this process runs its steps on that
  /// server's master directly, its tensors never encoded (TensorFlow's LocalMaster). False
  /// sends them over the step channel and the bulk port as for a server in another process
  /// (tests and benchmarks of that path).
  bool use_local_master = true;
};

/// Per-step options (TensorFlow's `RunOptions`).
struct RunOptions {
  /// The step's deadline (0 = the session's operation_timeout_in_ms, or none).
  std::int64_t timeout_in_ms = 0;
  /// Record per-node stats into the RunMetadata passed to `run`.
  bool trace = false;
};

/// Values for placeholders (or any tensor) for one step.
using FeedDict = std::vector<std::pair<Output, Tensor>>;

/// Handler type of `Session::async_run`.
using RunSignature = void(std::exception_ptr, std::vector<Tensor>);

/// Devices shared between sessions (device.hpp).
struct DeviceSet;

/// Steps that run somewhere else: what a `scheme://...` target opens. The net module
/// registers `caf`. `graph` outlives the backend.
class SessionBackend {
 public:
  /// Destroyed by the Session after `close()`.
  virtual ~SessionBackend() = default;
  /// As Session::start_step, with feeds already checked against their tensors.
  virtual void start_step(std::vector<Output> fetches, FeedDict feeds,
                          std::vector<Operation> targets, const RunOptions& options,
                          RunMetadata* metadata,
                          std::function<void(Status, std::vector<Tensor>)> done) = 0;
  /// Ends the session; pending steps end with Cancelled. Idempotent.
  virtual void close() = 0;
  /// The devices the remote session can use.
  virtual std::vector<DeviceAttributes> list_devices() const = 0;
};

/// What a target scheme provides.
struct SessionTarget {
  /// Opens a backend for `Session(graph, target, config)`; throws on failure.
  std::function<std::unique_ptr<SessionBackend>(Graph& graph, const std::string& target,
                                                const SessionConfig& config)>
      open;
  /// `Session::reset(target, containers)`; throws on failure.
  std::function<void(const std::string& target, const std::vector<std::string>& containers)> reset;
};

/// Makes `Session(graph, "scheme://...")` and `Session::reset` use `target` (idempotent).
void register_session_target(const std::string& scheme, SessionTarget target);

/// Runs graphs (TensorFlow's `tf.Session`).
///
/// A local session (target `""`) creates its devices (CPU:0, GPUs where present) as actors,
/// plus a master actor coordinating steps; variables live in the session's devices and are
/// lost when it closes. `run` may be called from many threads at once; each call is one
/// step. Errors are thrown as `af::Error` subclasses (`InvalidArgumentError`,
/// `FailedPreconditionError`, `DeadlineExceededError`, ...); a failed or timed-out step
/// leaves the session usable.
class Session {
 private:
  struct Impl;

 public:
  /// Opens a session on `graph` (which must outlive the session). `target` is `""` for an
  /// in-process session; `"caf://host:port"` targets need the net module. Throws
  /// UnimplementedError for a target without a registered scheme, InternalError when no
  /// device type is linked in; a remote target throws what its backend's open throws.
  explicit Session(Graph& graph, const std::string& target = "", SessionConfig config = {});
  /// An in-process session (target `""`) with `config`.
  Session(Graph& graph, SessionConfig config);
  /// A session on devices owned by someone else (a server's): their resources (variables,
  /// queues) outlive the session and are shared with other sessions on the same set.
  Session(Graph& graph, SessionConfig config, std::shared_ptr<const DeviceSet> devices);
  /// Closes the session (see `close`).
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs one step and returns the value of `fetch`. Blocks until the step ends; throws as
  /// the vector overload.
  Tensor run(const Output& fetch, const FeedDict& feeds = {}, const RunOptions& options = {},
             RunMetadata* metadata = nullptr);
  /// Runs one step, evaluating `fetches` and running `targets`. Blocks until it ends. Throws
  /// InvalidArgumentError for an invalid fetch or a feed of the wrong dtype or shape,
  /// FailedPreconditionError once the session is closed, DeadlineExceededError past the
  /// step's timeout, CancelledError when the session closes meanwhile, else a kernel's error.
  std::vector<Tensor> run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation>& targets = {},
                          const RunOptions& options = {}, RunMetadata* metadata = nullptr);
  /// Runs `target` (e.g. an initializer) for its effects; blocks and throws as `run` above.
  void run(const Operation& target, const FeedDict& feeds = {}, const RunOptions& options = {},
           RunMetadata* metadata = nullptr);

  /// Starts one step and completes `token` with `(std::exception_ptr, std::vector<Tensor>)`:
  /// a callback, `asio::use_future` or `asio::use_awaitable`. Never blocks the caller.
  /// The completion runs on the handler's associated executor (by default a system
  /// thread, never a runtime thread).
  template <class CompletionToken>
  auto async_run(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                 RunOptions options, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, RunSignature>(
        [this](auto handler, std::vector<Output> f, FeedDict fd, std::vector<Operation> t,
               RunOptions o) {
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          start_step(std::move(f), std::move(fd), std::move(t), o, nullptr,
                     [shared](Status status, std::vector<Tensor> values) {
                       auto ex = asio::get_associated_executor(*shared);
                       // Keeps the executor's context busy until the post has returned: its
                       // owner may destroy it as soon as the handler ran, while this thread
                       // would still be waking it (ThreadSanitizer saw the condition
                       // variable destroyed under a signal).
                       [[maybe_unused]] const auto busy =
                           asio::prefer(ex, asio::execution::outstanding_work.tracked);
                       asio::post(ex, [shared, status = std::move(status),
                                       values = std::move(values)]() mutable {
                         (*shared)(make_exception_ptr(status), std::move(values));
                       });
                     });
        },
        token, std::move(fetches), std::move(feeds), std::move(targets), options);
  }

  /// `async_run(fetches, {}, {}, {}, token)`.
  template <class CompletionToken>
  auto async_run(std::vector<Output> fetches, CompletionToken&& token) {
    return async_run(std::move(fetches), {}, {}, {}, std::forward<CompletionToken>(token));
  }

  /// Starts one step; `done` runs once, on a runtime thread, with the status and the
  /// fetched values (errors as `run`'s, as a Status; a bad feed or fetch, or a closed
  /// session, calls `done` at once on the calling thread). The primitive under `async_run`.
  void start_step(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                  const RunOptions& options, RunMetadata* metadata,
                  std::function<void(Status, std::vector<Tensor>)> done);

  /// As `start_step`, except that a step which can run to its end without waiting (a local
  /// session, one host device, no queue, reader, send/recv or sleep kernel, not traced)
  /// starts on the calling thread, with no actor message and no thread switch, as
  /// TensorFlow runs inexpensive kernels in the caller's thread. It stops before the first
  /// expensive kernel and the device actor finishes the step (its pool runs independent
  /// branches in parallel; `done` then runs on a runtime thread); a step without one ends
  /// before the call returns, `done` included. For threads that must not block (a server's
  /// io threads); never call it from an actor or a coroutine on the runtime.
  void start_step_here(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                       const RunOptions& options, RunMetadata* metadata,
                       std::function<void(Status, std::vector<Tensor>)> done);

  /// A copyable reference to this session's state for activities that may outlive the
  /// Session object (queue runners): steps started through it after the session closed
  /// fail with FailedPrecondition. The graph must still be alive.
  class Handle {
   public:
    /// An empty handle (`operator bool` is false); do not start steps through it.
    Handle() = default;
    /// As `Session::start_step`.
    void start_step(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                    const RunOptions& options, RunMetadata* metadata,
                    std::function<void(Status, std::vector<Tensor>)> done) const;
    /// As `Session::start_step_here`.
    void start_step_here(std::vector<Output> fetches, FeedDict feeds,
                         std::vector<Operation> targets, const RunOptions& options,
                         RunMetadata* metadata,
                         std::function<void(Status, std::vector<Tensor>)> done) const;
    /// Whether the handle refers to a session.
    explicit operator bool() const noexcept { return impl_ != nullptr; }

   private:
    friend class Session;
    friend struct detail::SessionTestAccess;
    explicit Handle(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    /// What the calling thread offers a step: nothing, the step going through actors
    /// (`no`: `start_step`); a run of its cheap kernels (`cheap_only`: a thread that must not
    /// block, `start_step_here`); a wait for it whatever it does (`caller_waits`:
    /// `Session::run`); or a wait only for a step that cannot wait on anything
    /// (`may_block`: tests, through detail::SessionTestAccess).
    enum class Here { no, cheap_only, may_block, caller_waits };
    /// Builds the step and runs it on the path `choose_step_path` picks for it.
    void start(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
               const RunOptions& options, RunMetadata* metadata,
               std::function<void(Status, std::vector<Tensor>)> done, Here here) const;
    /// The one place a step's path (detail::StepPath) is chosen, from the step's shape
    /// and what the calling thread offers.
    static detail::StepPath choose_step_path(const detail::StepRun& step, Here here);
    std::shared_ptr<Impl> impl_;
  };

  /// A handle sharing this session's state.
  Handle handle() const;

  /// Closes the session: pending steps end with Cancelled, devices and their variables go
  /// away (unless the devices belong to a server). Idempotent; called by the destructor.
  void close();

  /// Frees the resource containers `containers` ("" = the default container) on the server
  /// at `target` and closes every session open on it (TensorFlow's `Session.reset`).
  /// Needs the net module for `caf://` targets.
  static void reset(const std::string& target, const std::vector<std::string>& containers);

  /// The session's devices.
  std::vector<DeviceAttributes> list_devices() const;
  /// The placement so far (node name -> device), as the placer remembers it.
  Placement placement() const;
  /// The runtime this session runs in.
  Runtime& runtime() const;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace af
