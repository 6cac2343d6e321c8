// A session's master actor: fans a step out to its device actors, enforces the step's
// deadline, cancels every partition on the first error and completes the step once every
// partition has reported.
#include <map>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"

namespace af::detail {

namespace {

struct ActiveStep {
  StepRunPtr step;
  std::size_t remaining = 0;
  Status status;
  bool cancelled = false;
};

struct MasterState {
  std::map<std::int64_t, ActiveStep> steps;
  static inline const char* name = "af.master";

  ~MasterState() {
    // The session closed with steps in flight: they end with Cancelled.
    for (auto& [id, active] : steps)
      finish_step(*active.step, detail::session_closed_cancellation());
  }
};

using Master = caf::stateful_actor<MasterState, master_handle::base>;

/// Cancels every partition of a step. `record` makes `why` the step's error; a deadline
/// does not: partitions it interrupts report it themselves, and a step whose partitions all
/// finished before the cancellation reached them succeeds (their effects, a dequeue say,
/// took place and must not be reported as failed).
void cancel_step(Master* self, ActiveStep& active, const Status& why, bool record = true) {
  if (record && active.status.ok()) active.status = why;
  if (active.cancelled) return;
  active.cancelled = true;
  auto& step = *active.step;
  Status wake =
      why.code() == Code::cancelled || why.code() == Code::deadline_exceeded
          ? why
          : cancelled("step " + std::to_string(step.step_id) + " was aborted: " + why.message());
  for (auto& device : step.device_actors)
    self->send(device, cancel_atom::value, step.step_id, wake);
  if (step.rendezvous) self->send(step.rendezvous, abort_atom::value, step.step_id, wake);
}

/// Every partition has reported: the step is over on every task, and ends.
void retire_step(Master* self, std::int64_t step_id) {
  auto it = self->state.steps.find(step_id);
  ActiveStep active = std::move(it->second);
  self->state.steps.erase(it);
  auto& step = *active.step;
  if (step.rendezvous) self->send(step.rendezvous, cleanup_atom::value, step.step_id);
  // Partitions on other tasks: their proxies tell the remote workers the step is over.
  for (std::size_t i = 0; i < step.executors.size(); ++i)
    if (!step.executors[i]->device)
      self->send(step.device_actors[i], cleanup_atom::value, step.step_id);
  if (step.metadata) {
    std::lock_guard<std::mutex> guard(step.stats_mu);
    step.metadata->step_stats = std::move(step.stats);
  }
  finish_step(step, active.status);
}

master_handle::behavior_type master(Master* self) {
  return {
      [self](run_atom, const StepRunPtr& step) {
        auto& active = self->state.steps[step->step_id];
        active.step = step;
        active.remaining = step->executors.size();
        if (active.remaining == 0) return retire_step(self, step->step_id);
        if (step->timeout)
          self->delayed_send(self, *step->timeout, timeout_atom::value, step->step_id);
        // Local partitions first, then those of other tasks (their proxies, no device here):
        // CAF's scheduler runs the actors a handler made ready last in, first out on its own
        // thread, so a remote partition's request leaves before a local device actor starts
        // its partition, rather than waiting for it.
        for (bool remote : {false, true})
          for (std::size_t i = 0; i < step->executors.size(); ++i) {
            if ((step->executors[i]->device == nullptr) != remote) continue;
            auto run = std::make_shared<PartitionRun>();
            run->step = step;
            run->partition = i;
            run->master = caf::actor_cast<partition_owner>(self);
            self->send(step->device_actors[i], run_atom::value, std::move(run));
          }
      },
      [self](cancel_atom, std::int64_t step_id, const Status& why) {
        auto it = self->state.steps.find(step_id);
        if (it != self->state.steps.end()) cancel_step(self, it->second, why);
      },
      [self](done_atom, std::int64_t step_id, std::size_t, const Status& status) {
        auto it = self->state.steps.find(step_id);
        if (it == self->state.steps.end()) return;
        if (!status.ok()) cancel_step(self, it->second, status);
        if (--it->second.remaining == 0) retire_step(self, step_id);
      },
      [self](timeout_atom, std::int64_t step_id) {
        auto it = self->state.steps.find(step_id);
        if (it == self->state.steps.end()) return;
        cancel_step(self, it->second, step_deadline_exceeded(*it->second.step),
                    /*record=*/false);
      },
  };
}

}  // namespace

master_handle spawn_master(caf::actor_system& sys) { return sys.spawn(master); }

}  // namespace af::detail
