#include "actorflow/actors/session.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <utility>

#include "actorflow/actors/detail/caller_waits.hpp"
#include "actorflow/actors/detail/session_testing.hpp"
#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/actors/device.hpp"
#include "actorflow/ops/execution_plan.hpp"
#include "actorflow/ops/logging.hpp"

namespace af {

namespace {

constexpr const char* kLocalPrefix = "/job:localhost/replica:0/task:0";

struct CachedPlan {
  ExecutionPlan plan;
  std::vector<std::shared_ptr<const detail::ExecutorImpl>> executors;
  std::vector<detail::partition_runner> device_actors;
};

std::string shape_tuple(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s.dim(i));
  }
  if (s.rank() == 1) out += ",";
  return out + ")";
}

}  // namespace

namespace {

struct TargetRegistry {
  std::mutex mu;
  std::map<std::string, SessionTarget> targets;
  static TargetRegistry& get() {
    static TargetRegistry r;
    return r;
  }
  SessionTarget find(const std::string& target) {
    auto pos = target.find("://");
    std::string scheme = pos == std::string::npos ? "" : target.substr(0, pos);
    std::lock_guard<std::mutex> lock(mu);
    auto it = targets.find(scheme);
    if (pos == std::string::npos || it == targets.end())
      throw UnimplementedError(af::unimplemented(
          "Session target '" + target + "': " +
          (pos == std::string::npos
               ? std::string("expected scheme://host:port, e.g. caf://127.0.0.1:2222")
               : "no protocol '" + scheme +
                     "' is linked in (caf:// targets come with "
                     "the actorflow net module, <actorflow/actorflow.hpp>)")));
    return it->second;
  }
};

}  // namespace

void register_session_target(const std::string& scheme, SessionTarget target) {
  auto& r = TargetRegistry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.targets[scheme] = std::move(target);
}

void Session::reset(const std::string& target, const std::vector<std::string>& containers) {
  auto t = TargetRegistry::get().find(target);
  if (!t.reset)
    throw UnimplementedError(
        af::unimplemented("Session target '" + target + "' cannot reset containers"));
  t.reset(target, containers);
}

namespace {
std::atomic<std::uint64_t> next_session_serial{1};

/// What a closed session answers to every new use (TensorFlow's wording).
Status session_closed_error() { return failed_precondition("Attempted to use a closed Session."); }
}  // namespace

struct Session::Impl : std::enable_shared_from_this<Session::Impl> {
  Graph* graph = nullptr;
  /// Set for remote targets: every step goes there.
  std::unique_ptr<SessionBackend> backend;
  /// Set for sessions on a server's devices (not closed with the session).
  std::shared_ptr<const DeviceSet> shared_devices;
  std::string kernel_scope;
  SessionConfig config;
  Runtime* runtime = nullptr;
  std::vector<std::shared_ptr<Device>> devices;
  std::vector<DeviceAttributes> attributes;
  std::map<std::string, detail::partition_runner> device_actors;
  detail::master_handle master;
  detail::rendezvous_handle rendezvous;

  mutable std::mutex mu;
  Placement placement;
  std::map<std::string, std::shared_ptr<const CachedPlan>> cache;
  bool closed = false;
  /// The loops of steps running on the threads that wait for them (run_step_waiting):
  /// closing the session cancels them, as the master's end cancels its steps.
  std::vector<std::shared_ptr<detail::WaitLoop>> waiting_steps;
  /// Steps started on their device actor without the master (start_step_direct), by id:
  /// closing the session cancels them there.
  std::map<std::int64_t, detail::partition_runner> direct_steps;

  Status prepare(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                 const std::vector<Operation>& targets, std::shared_ptr<const CachedPlan>* out);
  void close();

  // The paths of a step (detail::StepPath) past the caller's thread; each ends the step
  // with FailedPrecondition when the session is closed.
  bool ends_if_closed(detail::StepRun& step);
  void run_waiting(const detail::StepRunPtr& step);
  void start_direct(const detail::StepRunPtr& step);
  void start_via_master(const detail::StepRunPtr& step);
};

Status Session::Impl::prepare(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                              const std::vector<Operation>& targets,
                              std::shared_ptr<const CachedPlan>* out) {
  // The key names each node by its id (a graph's nodes are never removed, so an id means
  // one name): a step of a few fetches keys its plan without an allocation.
  std::string key;
  const auto put = [&key](int id, int index) {
    key.append(reinterpret_cast<const char*>(&id), sizeof id);
    key.append(reinterpret_cast<const char*>(&index), sizeof index);
  };
  for (auto& f : feeds) put(f.node()->id(), f.index());
  key += '|';
  for (auto& f : fetches) put(f.node()->id(), f.index());
  key += '|';
  for (auto& t : targets) put(t.node()->id(), -1);
  std::lock_guard<std::mutex> guard(mu);
  if (closed) return session_closed_error();
  if (auto it = cache.find(key); it != cache.end()) {
    *out = it->second;
    return {};
  }
  auto cached = std::make_shared<CachedPlan>();
  {
    std::shared_lock<std::shared_mutex> graph_lock(graph->mutex());
    PlacerOptions options{config.allow_soft_placement, config.log_device_placement};
    ACTORFLOW_RETURN_IF_ERROR(build_execution_plan(*graph, feeds, fetches, targets, attributes,
                                                   options, &placement, &cached->plan));
  }
  if (config.log_device_placement)
    for (auto& name : cached->plan.newly_placed) log_info(name + ": " + placement.at(name));
  for (auto& partition : cached->plan.partitions) {
    std::shared_ptr<Device> device;
    for (auto& d : devices)
      if (d->name() == partition.device) device = d;
    std::shared_ptr<detail::ExecutorImpl> executor;
    detail::partition_runner actor = device_actors.at(partition.device);
    if (device) {
      ACTORFLOW_RETURN_IF_ERROR(
          detail::ExecutorImpl::create(partition, device, &executor, kernel_scope));
    } else {
      // A device of another task: its proxy actor ships the plan to the remote worker.
      executor = std::make_shared<detail::ExecutorImpl>();
      executor->plan = partition;
      executor->kernel_scope = kernel_scope;
    }
    cached->executors.push_back(std::move(executor));
    cached->device_actors.push_back(actor);
  }
  cache.emplace(key, cached);
  *out = std::move(cached);
  return {};
}

void Session::Impl::close() {
  std::lock_guard<std::mutex> guard(mu);
  if (closed) return;
  closed = true;
  for (auto& loop : waiting_steps) loop->cancel(detail::session_closed_cancellation());
  // Before the devices' exit messages, so that the steps end with this reason.
  for (auto& [id, device] : direct_steps)
    caf::anon_send(device, detail::cancel_atom::value, id, detail::session_closed_cancellation());
  if (backend) {
    backend->close();
    return;
  }
  cache.clear();
  if (!shared_devices) {
    for (auto& [name, actor] : device_actors)
      caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(rendezvous, caf::exit_reason::user_shutdown);
  } else {
    for (auto& d : devices) d->forget_kernels(kernel_scope);
    if (shared_devices->on_session_close) shared_devices->on_session_close(kernel_scope);
  }
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  device_actors.clear();
  master = nullptr;
  rendezvous = nullptr;
  devices.clear();
}

Session::Session(Graph& graph, SessionConfig config) : Session(graph, "", std::move(config)) {}

Session::Session(Graph& graph, SessionConfig config, std::shared_ptr<const DeviceSet> devices)
    : impl_(std::make_shared<Impl>()) {
  impl_->graph = &graph;
  impl_->runtime = config.runtime ? config.runtime : &Runtime::global();
  impl_->config = std::move(config);
  impl_->shared_devices = std::move(devices);
  impl_->kernel_scope = "session" + std::to_string(next_session_serial++) + "/";
  impl_->devices = impl_->shared_devices->devices;
  impl_->attributes = impl_->shared_devices->attributes;
  impl_->device_actors = impl_->shared_devices->actors;
  auto& sys = impl_->runtime->system();
  impl_->master = detail::spawn_master(sys);
  impl_->rendezvous = impl_->shared_devices->rendezvous;
}

Session::Session(Graph& graph, const std::string& target, SessionConfig config)
    : impl_(std::make_shared<Impl>()) {
  impl_->graph = &graph;
  if (!target.empty()) {
    impl_->backend = TargetRegistry::get().find(target).open(graph, target, config);
    impl_->runtime = config.runtime ? config.runtime : &Runtime::global();
    impl_->config = std::move(config);
    return;
  }
  impl_->runtime = config.runtime ? config.runtime : &Runtime::global();
  impl_->config = std::move(config);
  auto devices = DeviceFactory::create_all(*impl_->runtime, impl_->config, kLocalPrefix);
  if (devices.empty())
    throw InternalError(af::internal(
        "no devices: link actorflow::devices and include <actorflow/actorflow.hpp> (or "
        "<actorflow/devices/cpu_device.hpp>) so the CPU device registers itself"));
  auto& sys = impl_->runtime->system();
  for (auto& d : devices) {
    d->attach(*impl_->runtime);
    std::shared_ptr<Device> shared = std::move(d);
    impl_->attributes.push_back(shared->attributes());
    impl_->device_actors.emplace(shared->name(), detail::spawn_device_actor(sys, shared));
    impl_->devices.push_back(std::move(shared));
  }
  impl_->master = detail::spawn_master(sys);
  impl_->rendezvous = detail::spawn_rendezvous(sys);
}

std::shared_ptr<DeviceSet> DeviceSet::create(Runtime& runtime, const SessionConfig& config,
                                             const std::string& name_prefix) {
  auto devices = DeviceFactory::create_all(runtime, config, name_prefix);
  if (devices.empty())
    throw InternalError(
        af::internal("no devices: link actorflow::devices (include <actorflow/actorflow.hpp>)"));
  auto set = std::make_shared<DeviceSet>();
  set->runtime = &runtime;
  for (auto& d : devices) {
    auto resources = runtime.fresh_shared_resource_mgr(d->name());
    set->owned_resources.emplace_back(d->name(), resources);
    d->attach(runtime, std::move(resources));
    std::shared_ptr<Device> shared = std::move(d);
    set->attributes.push_back(shared->attributes());
    set->actors.emplace(shared->name(), detail::spawn_device_actor(runtime.system(), shared));
    set->devices.push_back(std::move(shared));
  }
  set->task = name_prefix;
  set->rendezvous = detail::spawn_rendezvous(runtime.system());
  return set;
}

void DeviceSet::shutdown() {
  for (auto& [name, actor] : actors) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  if (rendezvous) caf::anon_send_exit(rendezvous, caf::exit_reason::user_shutdown);
  rendezvous = nullptr;
  actors.clear();
  devices.clear();
  for (auto& [name, mgr] : owned_resources) {
    if (runtime) runtime->release_shared_resource_mgr(name, mgr);
    mgr->clear();
  }
  owned_resources.clear();
}

Session::~Session() { close(); }

void Session::close() { impl_->close(); }

std::vector<DeviceAttributes> Session::list_devices() const {
  if (impl_->backend) return impl_->backend->list_devices();
  return impl_->attributes;
}

Placement Session::placement() const {
  std::lock_guard<std::mutex> guard(impl_->mu);
  return impl_->placement;
}

Runtime& Session::runtime() const { return *impl_->runtime; }

void Session::start_step(std::vector<Output> fetches, FeedDict feeds,
                         std::vector<Operation> targets, const RunOptions& options,
                         RunMetadata* metadata,
                         std::function<void(Status, std::vector<Tensor>)> done) {
  handle().start_step(std::move(fetches), std::move(feeds), std::move(targets), options, metadata,
                      std::move(done));
}

void Session::start_step_here(std::vector<Output> fetches, FeedDict feeds,
                              std::vector<Operation> targets, const RunOptions& options,
                              RunMetadata* metadata,
                              std::function<void(Status, std::vector<Tensor>)> done) {
  handle().start_step_here(std::move(fetches), std::move(feeds), std::move(targets), options,
                           metadata, std::move(done));
}

Session::Handle Session::handle() const { return Handle(impl_); }

void Session::Handle::start_step(std::vector<Output> fetches, FeedDict feeds,
                                 std::vector<Operation> targets, const RunOptions& options,
                                 RunMetadata* metadata,
                                 std::function<void(Status, std::vector<Tensor>)> done) const {
  start(std::move(fetches), std::move(feeds), std::move(targets), options, metadata,
        std::move(done), Here::no);
}

void Session::Handle::start_step_here(std::vector<Output> fetches, FeedDict feeds,
                                      std::vector<Operation> targets, const RunOptions& options,
                                      RunMetadata* metadata,
                                      std::function<void(Status, std::vector<Tensor>)> done) const {
  start(std::move(fetches), std::move(feeds), std::move(targets), options, metadata,
        std::move(done), Here::cheap_only);
}

void detail::SessionTestAccess::start_step_to_end(
    const Session& session, std::vector<Output> fetches, FeedDict feeds,
    std::vector<Operation> targets, const RunOptions& options, RunMetadata* metadata,
    std::function<void(Status, std::vector<Tensor>)> done) {
  session.handle().start(std::move(fetches), std::move(feeds), std::move(targets), options,
                         metadata, std::move(done), Session::Handle::Here::may_block);
}

namespace {

// TensorFlow's session refuses the ops of a cond branch or loop built in Python.
Status not_fetchable_error(const Node& n) {
  return invalid_argument("Operation " + n.name() +
                          " has been marked as not fetchable. Typically this happens when it "
                          "is defined in another function or code block. Use return values, "
                          "explicit locals or collections to access it.");
}

}  // namespace

void Session::Handle::start(std::vector<Output> fetches, FeedDict feeds,
                            std::vector<Operation> targets, const RunOptions& options,
                            RunMetadata* metadata,
                            std::function<void(Status, std::vector<Tensor>)> done,
                            Here here) const {
  std::vector<Output> feed_outputs;
  std::vector<Tensor> feed_values;
  for (auto& [out, value] : feeds) {
    if (!out.valid()) return done(invalid_argument("Feed key is not a valid tensor"), {});
    if (!out.node()->feedable(out.index()))
      return done(invalid_argument("Tensor " + out.name() + " may not be fed."), {});
    if (!value.is_initialized())
      return done(
          invalid_argument("Cannot feed an uninitialized value for Tensor '" + out.name() + "'"),
          {});
    if (value.dtype() != out.dtype())
      return done(
          invalid_argument("Cannot feed value of dtype " + std::string(dtype_name(value.dtype())) +
                           " for Tensor '" + out.name() + "', which has dtype " +
                           std::string(dtype_name(out.dtype()))),
          {});
    if (!out.shape().is_compatible_with(PartialShape(value.shape())))
      return done(invalid_argument("Cannot feed value of shape " + shape_tuple(value.shape()) +
                                   " for Tensor '" + out.name() + "', which has shape '" +
                                   out.shape().to_string() + "'"),
                  {});
    feed_outputs.push_back(out);
    feed_values.push_back(value);
  }
  for (auto& f : fetches) {
    if (!f.valid()) return done(invalid_argument("Fetch argument is not a valid tensor"), {});
    if (!f.node()->fetchable()) return done(not_fetchable_error(*f.node()), {});
  }
  for (auto& t : targets)
    if (t.valid() && !t.node()->fetchable()) return done(not_fetchable_error(*t.node()), {});
  if (impl_->backend) {
    {
      std::lock_guard<std::mutex> guard(impl_->mu);
      if (impl_->closed) return done(session_closed_error(), {});
    }
    detail::CallerWaitsMark mark(here == Here::caller_waits);
    return impl_->backend->start_step(std::move(fetches), std::move(feeds), std::move(targets),
                                      options, metadata, std::move(done));
  }
  std::shared_ptr<const CachedPlan> plan;
  Status s;
  try {
    s = impl_->prepare(feed_outputs, fetches, targets, &plan);
  } catch (...) {
    s = status_from_exception(std::current_exception());
  }
  if (!s.ok()) return done(s, {});
  auto step = std::make_shared<detail::StepRun>();
  step->step_id = impl_->runtime->next_step_id();
  step->feeds = std::move(feed_values);
  step->results.resize(fetches.size());
  for (std::size_t k = 0; k < fetches.size(); ++k)
    if (int f = plan->plan.fetch_from_feed[k]; f >= 0)
      step->results[k] = step->feeds[static_cast<std::size_t>(f)];
  step->trace = options.trace && metadata != nullptr;
  step->metadata = step->trace ? metadata : nullptr;
  std::int64_t timeout =
      options.timeout_in_ms > 0 ? options.timeout_in_ms : impl_->config.operation_timeout_in_ms;
  if (timeout > 0) {
    step->timeout = std::chrono::milliseconds(timeout);
    step->deadline = std::chrono::steady_clock::now() + *step->timeout;
  }
  step->executors = plan->executors;
  if (impl_->shared_devices && impl_->shared_devices->remote_send)
    step->remote_send = impl_->shared_devices->remote_send;
  step->device_actors = plan->device_actors;
  step->done = std::move(done);
  switch (choose_step_path(*step, here)) {
    case detail::StepPath::caller_inline:
      if (impl_->ends_if_closed(*step)) return;
      return detail::run_step_inline(step);
    case detail::StepPath::caller_waits:
      return impl_->run_waiting(step);
    case detail::StepPath::device_direct:
      return impl_->start_direct(step);
    case detail::StepPath::via_master:
      return impl_->start_via_master(step);
  }
}

detail::StepPath Session::Handle::choose_step_path(const detail::StepRun& step, Here here) {
  using detail::StepPath;
  // A traced step collects its kernels' stats through the master; a step of several
  // partitions, or of one on another task, needs the master to fan it out and end it.
  if (step.trace || step.executors.size() != 1) return StepPath::via_master;
  const auto& partition = *step.executors[0];
  if (here == Here::cheap_only && partition.inline_ok) return StepPath::caller_inline;
  // An `inline_ok` partition is `waiting_ok` too: a caller that may block waits for it.
  if ((here == Here::caller_waits || (here == Here::may_block && partition.inline_ok)) &&
      partition.waiting_ok)
    return StepPath::caller_waits;
  if (partition.waiting_ok) return StepPath::device_direct;
  return StepPath::via_master;
}

bool Session::Impl::ends_if_closed(detail::StepRun& step) {
  {
    std::lock_guard<std::mutex> guard(mu);
    if (!closed) return false;
  }
  detail::finish_step(step, session_closed_error());
  return true;
}

void Session::Impl::run_waiting(const detail::StepRunPtr& step) {
  auto loop = std::make_shared<detail::WaitLoop>();
  {
    std::unique_lock<std::mutex> lock(mu);
    if (closed) {
      lock.unlock();
      return detail::finish_step(*step, session_closed_error());
    }
    waiting_steps.push_back(loop);  // closing the session cancels the step through its loop
  }
  detail::run_step_waiting(step, loop);
  std::lock_guard<std::mutex> guard(mu);
  waiting_steps.erase(std::find(waiting_steps.begin(), waiting_steps.end(), loop));
}

void Session::Impl::start_direct(const detail::StepRunPtr& step) {
  const std::int64_t id = step->step_id;
  std::unique_lock<std::mutex> lock(mu);
  if (closed) {
    lock.unlock();
    return detail::finish_step(*step, session_closed_error());
  }
  step->done = [weak = weak_from_this(), id, done = std::move(step->done)](
                   Status s, std::vector<Tensor> values) {
    if (auto impl = weak.lock()) {
      std::lock_guard<std::mutex> guard(impl->mu);
      impl->direct_steps.erase(id);
    }
    done(std::move(s), std::move(values));
  };
  direct_steps.emplace(id, step->device_actors[0]);
  // Sent under the lock: a close that follows finds the step in the device's mailbox ahead
  // of its cancellation.
  detail::start_step_direct(step);
}

void Session::Impl::start_via_master(const detail::StepRunPtr& step) {
  detail::master_handle to;
  {
    std::unique_lock<std::mutex> lock(mu);
    if (closed) {
      lock.unlock();
      return detail::finish_step(*step, session_closed_error());
    }
    to = master;
    step->rendezvous = rendezvous;
  }
  caf::anon_send(to, detail::run_atom::value, step);
}

namespace {
thread_local bool caller_waits = false;
}  // namespace

detail::CallerWaitsMark::CallerWaitsMark(bool waits) noexcept
    : previous_(std::exchange(caller_waits, waits)) {}

detail::CallerWaitsMark::~CallerWaitsMark() { caller_waits = previous_; }

bool detail::take_caller_waits() noexcept { return std::exchange(caller_waits, false); }

namespace {

/// A blocking wait for one step (the synchronous API). The callback owns the state with
/// the waiter, so it wakes the waiter after releasing the lock: a waiter woken under the lock
/// would sleep again on the mutex (two more futex calls and a second wake-up per step).
class SyncWait {
 public:
  std::function<void(Status, std::vector<Tensor>)> callback() {
    return [state = state_](Status s, std::vector<Tensor> v) {
      {
        std::lock_guard<std::mutex> guard(state->mu);
        state->status = std::move(s);
        state->values = std::move(v);
        state->done = true;
      }
      state->cv.notify_one();
    };
  }

  std::vector<Tensor> wait() {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cv.wait(lock, [this] { return state_->done; });
    throw_if_error(state_->status);
    return std::move(state_->values);
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    Status status;
    std::vector<Tensor> values;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace

std::vector<Tensor> Session::run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                 const std::vector<Operation>& targets, const RunOptions& options,
                                 RunMetadata* metadata) {
  SyncWait wait;
  // Expensive kernels go to the device actor and its pool, which keeps independent
  // branches running in parallel (TensorFlow inlines only its inexpensive kernels too).
  // A step that waits on queues or readers runs here too, served by this waiting thread.
  handle().start(fetches, feeds, targets, options, metadata, wait.callback(),
                 Handle::Here::caller_waits);
  return wait.wait();
}

Tensor Session::run(const Output& fetch, const FeedDict& feeds, const RunOptions& options,
                    RunMetadata* metadata) {
  return run(std::vector<Output>{fetch}, feeds, {}, options, metadata).at(0);
}

void Session::run(const Operation& target, const FeedDict& feeds, const RunOptions& options,
                  RunMetadata* metadata) {
  run(std::vector<Output>{}, feeds, {target}, options, metadata);
}

}  // namespace af
