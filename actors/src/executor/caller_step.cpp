// Steps of one partition run on the caller's thread, without the master or a message
// (TensorFlow runs inexpensive kernels in the caller's thread too): the two caller modes of
// step_driver.hpp. A thread that must not block stops before the first expensive kernel
// and hands the partition to its device actor; the thread waiting for the step serves its
// WaitLoop, where completions, timers, the deadline and the session's close reach it.
#include "actorflow/actors/detail/step_protocol.hpp"
#include "executor/partition_execution.hpp"

namespace af::detail {

namespace {

/// The caller modes' decisions (step_driver.hpp). `loop` is the waiting thread's (null for
/// a thread that must not block, whose partitions are `inline_ok`: no asynchronous kernel,
/// no send or recv, a host device, so nothing it runs waits or posts).
class CallerDriver final : public StepDriver {
 public:
  explicit CallerDriver(std::shared_ptr<WaitLoop> loop)
      : StepDriver(loop ? StepMode::caller_waits : StepMode::caller_cheap_only),
        loop_(std::move(loop)) {}

  /// A thread that must not block hands an expensive kernel off. The thread that waits for
  /// the step stands in for an inter-op thread (as TensorFlow's executor keeps the last
  /// ready expensive node on its own thread): a kernel goes to the pool only when the pool
  /// has threads to spare and there is other work beside it, ready to run here or in flight
  /// (whose completions this thread must stay free to take: two chains of products then run
  /// side by side). A chain (a training step) runs with no hop at all.
  KernelPlace place_expensive(const Device& device, const PartitionLoad& load) const override {
    if (!loop_) return KernelPlace::hand_off;
    if ((load.other_ready || load.in_flight > 0) && device.inter_op_threads() > 1)
      return KernelPlace::pool;
    return KernelPlace::here;
  }

  std::function<void(std::function<void()>)> poster() override {
    if (!loop_) return [](std::function<void()> fn) { fn(); };  // nothing posts (see above)
    return [loop = loop_](std::function<void()> fn) { loop->post(std::move(fn)); };
  }

  void post_after(std::chrono::microseconds delay, std::function<void()> fn) override {
    if (loop_) loop_->post_at(std::chrono::steady_clock::now() + delay, std::move(fn));
  }

  void send_tensor(const StepRun&, const std::string&, Tensor) override {}

  void recv_tensor(const StepRun&, const std::string& key,
                   std::function<void(StatusOr<Tensor>)> done) override {
    done(internal("recv of " + key + " in a step without a device actor"));
  }

  void first_error(const PartitionExecution&, const Status&) override {}
  void finished(PartitionExecution&, Status) override {}  // the caller reads the status

 private:
  std::shared_ptr<WaitLoop> loop_;
};

/// The one driver of every thread that must not block (it keeps no state).
CallerDriver& cheap_only_driver() {
  static CallerDriver driver(nullptr);
  return driver;
}

std::shared_ptr<PartitionRun> only_partition(const StepRunPtr& step) {
  auto run = std::make_shared<PartitionRun>();
  run->step = step;
  return run;
}

}  // namespace

void run_step_inline(const StepRunPtr& step) {
  auto execution = std::make_unique<PartitionExecution>(only_partition(step), &cheap_only_driver());
  if (execution->run()) return finish_step(*step, execution->status());
  if (!execution->handed_off())
    return finish_step(*step, internal("step " + std::to_string(step->step_id) +
                                       " stopped on its thread unfinished"));
  // An inline step's only partition is on a device of this process: its runner is a device
  // actor, which finishes the partition and ends the step.
  auto device = caf::actor_cast<device_actor_handle>(step->device_actors.at(0));
  auto adoption = std::make_shared<Adoption>();
  adoption->execution = std::move(execution);
  caf::anon_send(device, adopt_atom::value, std::move(adoption));
}

void run_step_waiting(const StepRunPtr& step, const std::shared_ptr<WaitLoop>& loop) {
  CallerDriver driver(loop);
  PartitionExecution execution(only_partition(step), &driver);
  execution.run();
  while (!execution.finished()) {
    auto wake = loop->wait(step->deadline);
    for (auto& fn : wake.work) fn();
    // As the master: a step that finished before its cancellation or deadline came stands.
    if (!execution.finished() && wake.cancel) execution.cancel(*wake.cancel);
    if (!execution.finished() && wake.deadline) execution.cancel(step_deadline_exceeded(*step));
    execution.run();
  }
  loop->close();
  finish_step(*step, execution.status());
}

}  // namespace af::detail
