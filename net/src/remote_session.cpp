// The client side of `caf://host:port` sessions: connects to a server's master service,
// opens a session there and runs its steps through the MasterClient chosen then
// (master_client.hpp), the graph shipped as it grows (only the nodes not sent yet).
#include <mutex>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/server.hpp"
#include "actorflow/ops/errors.hpp"
#include "master_client.hpp"
#include "master_protocol.hpp"
#include "wire.hpp"

namespace af {

namespace {

/// Opening waits for the server to reach the other tasks of its cluster (ServerOptions::peer_wait).
constexpr auto kOpenTimeout = std::chrono::seconds(120);

class RemoteSession final : public SessionBackend {
 public:
  RemoteSession(Graph& graph, const std::string& target, const SessionConfig& config)
      : target_(target),
        config_(config),
        runtime_(config.runtime ? config.runtime : &Runtime::global()),
        deltas_(graph) {
    const caf::actor server = connect(*runtime_, target_);
    const auto id = control<std::uint64_t>(
        runtime_->system(), server, target_, kOpenTimeout, net::master_open_atom::value,
        config_.device_filters, config_.allow_soft_placement, config_.log_device_placement);
    client_ = open_master_client(*runtime_, server, target_, id, config_);
  }
  ~RemoteSession() override { close(); }

  void start_step(std::vector<Output> fetches, FeedDict feeds, std::vector<Operation> targets,
                  const RunOptions& options, RunMetadata* metadata,
                  std::function<void(Status, std::vector<Tensor>)> done) override {
    ClientStep step;
    step.fetches = std::move(fetches);
    step.feeds = std::move(feeds);
    step.targets = std::move(targets);
    step.timeout_ms =
        options.timeout_in_ms > 0 ? options.timeout_in_ms : config_.operation_timeout_in_ms;
    step.metadata = options.trace ? metadata : nullptr;
    step.done = std::move(done);
    std::unique_lock<std::mutex> lock(mu_);
    if (closed_) {
      lock.unlock();
      return step.done(failed_precondition("Attempted to use a closed Session."), {});
    }
    client_->start(std::move(step), deltas_, lock);
  }

  void close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (std::exchange(closed_, true)) return;
    }
    // Outside the lock: the failed steps' callbacks may call back into this session.
    client_->close();
  }

  std::vector<DeviceAttributes> list_devices() const override {
    auto blob = control<std::string>(runtime_->system(), client_->server(), target_,
                                     kControlTimeout, net::master_devices_atom::value);
    net::WireReader in(blob, "device list from " + target_);
    std::uint64_t n = 0;
    std::vector<DeviceAttributes> out;
    if (in.count(&n, 24)) {
      for (std::uint64_t i = 0; i < n; ++i) {
        DeviceAttributes a;
        if (!in.str(&a.name) || !in.str(&a.device_type) || !in.i64(&a.memory_limit)) break;
        out.push_back(std::move(a));
      }
    }
    throw_if_error(in.status());
    return out;
  }

 private:
  std::string target_;
  SessionConfig config_;
  Runtime* runtime_;
  std::mutex mu_;  ///< keeps graph deltas and requests in order; guards `closed_`
  bool closed_ = false;
  GraphDeltas deltas_;
  std::unique_ptr<MasterClient> client_;  ///< how steps reach the server (master_client.hpp)
};

void reset_containers(const std::string& target, const std::vector<std::string>& containers) {
  auto& sys = Runtime::global().system();
  auto server = connect(Runtime::global(), target);
  net::WireWriter out;
  out.u64(containers.size());
  for (auto& c : containers) out.str(c);
  control<std::string>(sys, server, target, kControlTimeout, net::master_reset_atom::value,
                       out.take());
}

}  // namespace

bool register_caf_session_target() {
  static const bool done = [] {
    register_session_target(
        "caf", SessionTarget{[](Graph& g, const std::string& target, const SessionConfig& config) {
                               return std::unique_ptr<SessionBackend>(
                                   new RemoteSession(g, target, config));
                             },
                             reset_containers});
    return true;
  }();
  return done;
}

}  // namespace af
