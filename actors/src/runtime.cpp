#include "actorflow/actors/runtime.hpp"

#define EIGEN_USE_THREADS
#include <sched.h>

#include <algorithm>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <fstream>
#include <random>
#include <thread>
#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/kernels/cpu_kernels.hpp"  // the runtime runs the CPU kernels
#include "actorflow/ops/errors.hpp"

namespace af {

namespace {

/// The CPUs this process may run on (its affinity mask), 0 where the mask cannot be read.
int schedulable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

/// Whether idle pool threads may spin before they sleep: not when the process may run on
/// one CPU only (pinned, as T85 and its peers are), where a spinning thread holds the very
/// CPU the thread with the work is waiting for (Eigen spins 5,000 steal attempts each time
/// its queue empties: 8% of a pinned training step's samples).
bool pools_may_spin() { return schedulable_cpus() != 1; }

}  // namespace

int resolve_thread_count(int requested) {
  if (requested > 0) return requested;
  // As TensorFlow's port::MaxParallelism() counts them: a process pinned to one CPU gets
  // pools of one thread, not one per core of the machine.
  if (const int cpus = schedulable_cpus(); cpus > 0) return cpus;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

struct ThreadPools::Impl {
  Eigen::ThreadPool inter;
  Eigen::ThreadPool intra;
  Eigen::ThreadPoolDevice intra_device;
  Impl(int inter_threads, int intra_threads, bool spin)
      : inter(inter_threads, spin),
        intra(intra_threads, spin),
        intra_device(&intra, intra_threads) {}
};

ThreadPools::ThreadPools(int inter_op_threads, int intra_op_threads)
    : inter_threads_(resolve_thread_count(inter_op_threads)),
      intra_threads_(resolve_thread_count(intra_op_threads)) {
  impl_ = std::make_unique<Impl>(inter_threads_, intra_threads_, pools_may_spin());
}

ThreadPools::~ThreadPools() {
  // The last owner may be a closure running on one of these pools (a kernel's completion
  // that held the session's devices while the session closed): joining the pools here would
  // join this very thread, and Eigen's pool throws EDEADLK from its destructor (terminate).
  // Another thread joins them instead, once this one has returned to its pool.
  if (impl_ && (impl_->inter.CurrentThreadId() != -1 || impl_->intra.CurrentThreadId() != -1))
    std::thread([impl = std::move(impl_)]() mutable { impl.reset(); }).detach();
}

void ThreadPools::schedule(std::function<void()> fn) { impl_->inter.Schedule(std::move(fn)); }

Eigen::ThreadPoolDevice* ThreadPools::intra_op_device() noexcept { return &impl_->intra_device; }

void Runtime::configure(caf::actor_system_config& cfg, const RuntimeOptions& options) {
  detail::add_wire_types(cfg);
  cfg.load<caf::io::middleman>();
  const int tls_parts =
      !options.tls_certificate.empty() + !options.tls_key.empty() + !options.tls_ca_file.empty();
  if (tls_parts != 0 && tls_parts != 3)
    throw InvalidArgumentError(
        invalid_argument("TLS needs a certificate, a key and a CA file "
                         "(RuntimeOptions::tls_certificate, tls_key, tls_ca_file); "
                         "only " +
                         std::to_string(tls_parts) + " of them are set"));
  if (tls_parts == 3)
    for (const auto* file : {&options.tls_certificate, &options.tls_key, &options.tls_ca_file})
      if (!std::ifstream(*file))
        throw NotFoundError(not_found("TLS file " + *file + " cannot be read"));
  int threads = options.scheduler_threads > 0
                    ? options.scheduler_threads
                    : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  cfg.set("scheduler.max-threads", static_cast<size_t>(threads));
  cfg.set("scheduler.max-throughput", static_cast<size_t>(options.max_throughput));
  cfg.set("work-stealing.moderate-sleep-duration",
          caf::timespan{std::chrono::microseconds(std::max(0, options.moderate_sleep_us))});
  cfg.set("logger.verbosity", caf::atom("quiet"));
  // Incoming BASP messages are deserialized on the multiplexer thread itself: with a
  // middleman worker every remote message takes one more thread handoff (a wakeup), which
  // on a few cores costs more than the deserialization it moves (a loopback round trip
  // takes nearly twice as long with one worker, and large messages arrive later too).
  cfg.set("middleman.workers", size_t{0});
  cfg.set("middleman.heartbeat-interval",
          caf::timespan{std::chrono::milliseconds(std::max(0, options.heartbeat_interval_ms))});
  cfg.set("middleman.connection-timeout",
          caf::timespan{std::chrono::milliseconds(std::max(0, options.connection_timeout_ms))});
}

std::int64_t Runtime::random_step_id_base() {
  std::random_device rd;
  std::uint64_t prefix = (static_cast<std::uint64_t>(rd()) << 1 ^ rd()) & 0x7fffffffULL;
  return static_cast<std::int64_t>(prefix << 32);
}

Runtime::Runtime(RuntimeOptions options) : config_(std::make_unique<caf::actor_system_config>()) {
  configure(*config_, options);
  options_ = options;
  owned_system_ = std::make_unique<caf::actor_system>(*config_);
  system_ = owned_system_.get();
  detail::check_wire_types(*system_);
}

Runtime::Runtime(caf::actor_system& system) : system_(&system) { detail::check_wire_types(system); }

Runtime::~Runtime() { shutdown(); }

Runtime& Runtime::global() {
  // Never destroyed: CAF 0.17's actor_system crashes when destroyed during exit() (after the
  // main thread's thread-locals are gone). Programs that want an orderly stop call
  // `Runtime::global().shutdown()` before main returns; otherwise the idle workers end
  // with the process.
  static Runtime* runtime = new Runtime;
  return *runtime;
}

std::shared_ptr<ThreadPools> Runtime::shared_pools(int inter_op_threads, int intra_op_threads) {
  std::lock_guard<std::mutex> guard(pools_mu_);
  if (!pools_) pools_ = std::make_shared<ThreadPools>(inter_op_threads, intra_op_threads);
  return pools_;
}

std::shared_ptr<ResourceMgr> Runtime::shared_resource_mgr(const std::string& device_name) {
  std::lock_guard<std::mutex> guard(pools_mu_);
  auto& mgr = shared_resources_[device_name];
  if (!mgr) mgr = std::make_shared<ResourceMgr>();
  return mgr;
}

std::shared_ptr<ResourceMgr> Runtime::fresh_shared_resource_mgr(const std::string& device_name) {
  auto mgr = std::make_shared<ResourceMgr>();
  std::lock_guard<std::mutex> guard(pools_mu_);
  shared_resources_[device_name] = mgr;
  return mgr;
}

void Runtime::release_shared_resource_mgr(const std::string& device_name,
                                          const std::shared_ptr<ResourceMgr>& mgr) {
  std::lock_guard<std::mutex> guard(pools_mu_);
  auto it = shared_resources_.find(device_name);
  if (it != shared_resources_.end() && it->second == mgr) shared_resources_.erase(it);
}

std::size_t Runtime::reset_shared_resources(const std::vector<std::string>& containers) {
  std::map<std::string, std::shared_ptr<ResourceMgr>> mgrs;
  {
    std::lock_guard<std::mutex> guard(pools_mu_);
    mgrs = shared_resources_;
  }
  std::size_t dropped = 0;
  for (auto& [name, mgr] : mgrs) {
    if (containers.empty()) {
      dropped += mgr->list().size();
      mgr->clear();
    } else {
      for (const auto& c : containers) dropped += mgr->cleanup(c);
    }
  }
  return dropped;
}

caf::actor Runtime::service(const std::string& name,
                            const std::function<caf::actor(caf::actor_system&)>& make) {
  std::lock_guard<std::mutex> guard(pools_mu_);
  auto& slot = services_[name];
  if (!slot) slot = make(*system_);
  return slot;
}

void Runtime::shutdown() {
  std::map<std::string, std::shared_ptr<ResourceMgr>> resources;
  std::map<std::string, caf::actor> services;
  {
    std::lock_guard<std::mutex> guard(pools_mu_);
    pools_.reset();
    resources.swap(shared_resources_);
    services.swap(services_);
  }
  for (auto& [name, who] : services) caf::anon_send_exit(who, caf::exit_reason::user_shutdown);
  services.clear();
  // Resources first: queue and reader actors quit while the system still runs.
  for (auto& [name, mgr] : resources) mgr->clear();
  resources.clear();
  owned_system_.reset();
}

}  // namespace af
