// The device actor: runs partitions of steps for a master (or a worker service), steps sent
// to it directly, and partitions a caller's thread handed over. Its two drivers make the
// actor modes' decisions (step_driver.hpp): expensive kernels run on the actor's thread for
// a chain and on the device's inter-op pool beside other work; completions come back as
// messages; a GPU's sync answers by message; the end goes to the owner or to the step.
#include <map>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/kernels/cpu_kernels.hpp"  // the runtime runs the CPU kernels
#include "executor/partition_execution.hpp"

namespace af::detail {

namespace {

class ActorDriver;

struct DeviceActorState {
  std::shared_ptr<Device> device;
  // Declared before `steps`: executions point at them until they are gone.
  std::unique_ptr<ActorDriver> for_master;  ///< StepMode::actor_for_master
  std::unique_ptr<ActorDriver> ends_step;   ///< StepMode::actor_ends_step
  // Keyed by (step id, partition index).
  std::map<std::pair<std::int64_t, std::size_t>, std::unique_ptr<PartitionExecution>> steps;
  static inline const char* name = "af.device";
};
using DeviceActor = caf::stateful_actor<DeviceActorState, device_actor_handle::base>;

/// The actor modes' decisions (step_driver.hpp).
class ActorDriver final : public StepDriver {
 public:
  ActorDriver(DeviceActor* self, StepMode mode) : StepDriver(mode), self_(self) {}

  /// Whether an expensive kernel is better run on the inter-op pool than on the actor's own
  /// thread. The pool costs two thread wake-ups (there and back, tens of microseconds each
  /// on a virtual machine) and buys overlap only with other work: another ready node of
  /// this step, a kernel of it already on the pool, another partition of this device, or a
  /// message waiting for the actor. Without any of these (a chain, as a training step's
  /// forward and backward passes are) the kernel runs here, as TensorFlow's executor runs
  /// the last ready node on the thread that made it ready. An accelerator's kernels only
  /// enqueue work and always go to the pool.
  KernelPlace place_expensive(const Device& device, const PartitionLoad& load) const override {
    const bool worth_the_pool = load.other_ready || load.on_pool > 0 || device.is_accelerator() ||
                                self_->state.steps.size() != 1 || !self_->mailbox().empty();
    return worth_the_pool ? KernelPlace::pool : KernelPlace::here;
  }

  std::function<void(std::function<void()>)> poster() override {
    return [me = caf::actor_cast<device_actor_handle>(self_)](std::function<void()> fn) {
      caf::anon_send(me, resume_atom::value, Closure{std::move(fn)});
    };
  }

  void post_after(std::chrono::microseconds delay, std::function<void()> fn) override {
    self_->delayed_send(self_, delay, resume_atom::value, Closure{std::move(fn)});
  }

  void send_tensor(const StepRun& step, const std::string& key, Tensor value) override {
    self_->send(step.rendezvous, send_atom::value, step.step_id, key, std::move(value));
  }

  void recv_tensor(const StepRun& step, const std::string& key,
                   std::function<void(StatusOr<Tensor>)> done) override {
    // Without a deadline the receive waits untimed: a CAF request timeout costs a wake-up
    // of CAF's clock thread when set and another when cancelled (two per received tensor),
    // and a receive cannot be left hanging: the rendezvous fails every waiter when the
    // step is aborted or ends, and when the rendezvous itself stops.
    caf::duration wait = caf::infinite;
    if (step.deadline != std::chrono::steady_clock::time_point::max()) {
      // What is left of the deadline, at least 1 ms.
      auto left = std::max(step.deadline - std::chrono::steady_clock::now(),
                           std::chrono::steady_clock::duration(std::chrono::milliseconds(1)));
      wait = caf::duration{std::chrono::duration_cast<std::chrono::milliseconds>(left)};
    }
    self_->request(step.rendezvous, wait, recv_atom::value, step.step_id, key)
        .then([done](const Tensor& t) { done(t); },
              [done, key](caf::error& e) { done(status_from_error(e, "recv " + key)); });
  }

  void first_error(const PartitionExecution& execution, const Status& why) override {
    // Tell the owner at once so it can cancel the other partitions.
    if (mode() == StepMode::actor_for_master)
      self_->send(execution.partition_run()->master, cancel_atom::value, execution.step().step_id,
                  why);
  }

  void finished(PartitionExecution& execution, Status status) override {
    const PartitionRunPtr run = execution.partition_run();
    self_->state.steps.erase({run->step->step_id, run->partition});  // destroys `execution`
    if (mode() == StepMode::actor_ends_step)
      finish_step(*run->step, std::move(status));
    else
      self_->send(run->master, done_atom::value, run->step->step_id, run->partition, status);
  }

 private:
  DeviceActor* self_;
};

/// Starts `execution`, owned by the actor, under the partition's key.
PartitionExecution* keep(DeviceActor* self, std::unique_ptr<PartitionExecution> execution) {
  auto* raw = execution.get();
  const auto& run = *raw->partition_run();
  self->state.steps.emplace(std::make_pair(run.step->step_id, run.partition), std::move(execution));
  return raw;
}

device_actor_handle::behavior_type device_actor(DeviceActor* self, std::shared_ptr<Device> device) {
  self->state.device = std::move(device);
  self->state.for_master = std::make_unique<ActorDriver>(self, StepMode::actor_for_master);
  self->state.ends_step = std::make_unique<ActorDriver>(self, StepMode::actor_ends_step);
  // Stopping (its session closed, its server stopped) with partitions still running: they
  // are cancelled first, so that what they wait for hears of it. A queue drops a waiting
  // dequeue then; otherwise the dequeue stayed queued for good, its reply holding the
  // queue alive (a cycle that outlived the session).
  self->set_exit_handler([self](caf::exit_msg& msg) {
    std::vector<PartitionExecution*> running;
    for (auto& [key, execution] : self->state.steps) running.push_back(execution.get());
    const Status why = cancelled("device " + self->state.device->name() + " stopped (" +
                                 self->system().render(msg.reason) + ")");
    for (auto* e : running) e->cancel(why);
    self->quit(msg.reason);
  });
  return {
      [self](run_atom, const PartitionRunPtr& run) {
        // A direct step (no master) is ended by this actor, which keeps its deadline too.
        auto* driver = run->direct ? self->state.ends_step.get() : self->state.for_master.get();
        if (run->direct && run->step->timeout)
          self->delayed_send(self, *run->step->timeout, timeout_atom::value, run->step->step_id);
        keep(self, std::make_unique<PartitionExecution>(run, driver))->run();
      },
      [self](timeout_atom, std::int64_t step_id) {
        // A direct step's deadline (the master's job otherwise). One that finished first
        // is gone and stands.
        auto it = self->state.steps.find({step_id, std::size_t{0}});
        if (it == self->state.steps.end()) return;
        PartitionExecution* e = it->second.get();
        e->cancel(step_deadline_exceeded(e->step()));
        e->run();
      },
      [self](cancel_atom, std::int64_t step_id, const Status& why) {
        std::vector<PartitionExecution*> targets;
        for (auto& [key, execution] : self->state.steps)
          if (key.first == step_id) targets.push_back(execution.get());
        for (auto* e : targets) {
          e->cancel(why);
          e->run();
        }
      },
      [](resume_atom, const Closure& c) { c.fn(); },
      [self](adopt_atom, const AdoptionPtr& a) {
        // A partition stopped on a caller's thread: it ends its step here.
        keep(self, std::move(a->execution))->adopt(self->state.ends_step.get());
      },
      [](cleanup_atom, std::int64_t) {},  // nothing of a step stays here once it ended
  };
}

}  // namespace

void start_step_direct(const StepRunPtr& step) {
  auto run = std::make_shared<PartitionRun>();
  run->step = step;
  run->direct = true;
  caf::anon_send(step->device_actors.at(0), run_atom::value, std::move(run));
}

device_actor_handle spawn_device_actor(caf::actor_system& sys, std::shared_ptr<Device> device) {
  return sys.spawn(device_actor, std::move(device));
}

}  // namespace af::detail
