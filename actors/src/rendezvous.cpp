// The step rendezvous: values sent on cross-device edges wait here for their receiver.
// A receive is a delayed response, failed at once when the step is aborted.
#include <deque>
#include <map>
#include <string>
#include <unordered_set>

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"

namespace af::detail {

namespace {

struct StepEntry {
  std::map<std::string, Tensor> values;
  std::map<std::string, caf::typed_response_promise<Tensor>> waiters;
  Status aborted;
};

struct RendezvousState {
  std::map<std::int64_t, StepEntry> steps;
  /// Steps that ended recently: tensors arriving late from other tasks are dropped instead of
  /// opening an entry nobody cleans up.
  std::unordered_set<std::int64_t> finished;
  std::deque<std::int64_t> finished_order;
  static constexpr std::size_t kRememberFinished = 65536;
  void remember_finished(std::int64_t step_id) {
    if (!finished.insert(step_id).second) return;
    finished_order.push_back(step_id);
    if (finished_order.size() > kRememberFinished) {
      finished.erase(finished_order.front());
      finished_order.pop_front();
    }
  }
  static inline const char* name = "af.rendezvous";
};

rendezvous_handle::behavior_type rendezvous(
    rendezvous_handle::stateful_pointer<RendezvousState> self) {
  // Receives without a deadline wait untimed (ActorDriver::recv_tensor): stopping, the
  // rendezvous fails each of them rather than leaving its promise undelivered.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    for (auto& [step_id, entry] : self->state.steps)
      for (auto& [key, promise] : entry.waiters)
        promise.deliver(to_error(cancelled("step " + std::to_string(step_id) +
                                           ": the rendezvous stopped before " + key + " arrived")));
    self->state.steps.clear();
    self->quit(msg.reason);
  });
  return {
      [self](send_atom, std::int64_t step_id, const std::string& key, const Tensor& value) {
        if (self->state.finished.count(step_id)) return;
        auto& entry = self->state.steps[step_id];
        if (!entry.aborted.ok()) return;
        if (auto it = entry.waiters.find(key); it != entry.waiters.end()) {
          auto promise = std::move(it->second);
          entry.waiters.erase(it);
          promise.deliver(value);
          return;
        }
        entry.values[key] = value;
      },
      [self](recv_atom, std::int64_t step_id, const std::string& key) -> caf::result<Tensor> {
        if (self->state.finished.count(step_id))
          return to_error(cancelled("step " + std::to_string(step_id) + " ended"));
        auto& entry = self->state.steps[step_id];
        if (!entry.aborted.ok()) return to_error(entry.aborted);
        if (auto it = entry.values.find(key); it != entry.values.end()) {
          Tensor t = std::move(it->second);
          entry.values.erase(it);
          return t;
        }
        auto promise = self->make_response_promise<Tensor>();
        entry.waiters.emplace(key, promise);
        return promise;
      },
      [self](abort_atom, std::int64_t step_id, const Status& why) {
        if (self->state.finished.count(step_id)) return;
        auto& entry = self->state.steps[step_id];
        if (entry.aborted.ok()) entry.aborted = cancelled("step aborted: " + why.message());
        entry.values.clear();
        for (auto& [key, promise] : entry.waiters) promise.deliver(to_error(entry.aborted));
        entry.waiters.clear();
      },
      [self](cleanup_atom, std::int64_t step_id) {
        self->state.remember_finished(step_id);
        auto it = self->state.steps.find(step_id);
        if (it == self->state.steps.end()) return;
        for (auto& [key, promise] : it->second.waiters)
          promise.deliver(to_error(cancelled("step " + std::to_string(step_id) + " ended")));
        self->state.steps.erase(it);
      },
  };
}

}  // namespace

rendezvous_handle spawn_rendezvous(caf::actor_system& sys) { return sys.spawn(rendezvous); }

}  // namespace af::detail
