// The step's actors are typed (actorflow/actors/detail/step_actors.hpp): a message an actor
// does not take must not compile. Built twice by tests/CMakeLists.txt: as it is, every send
// below is one its receiver takes and the file compiles (part of the build); with
// ACTORFLOW_WRONG_MESSAGE it sends a device actor (a partition runner) a message only
// owners take, and the test `unit.step_messages_are_typed` expects the compiler to refuse it.
#include <caf/all.hpp>
#include <cstddef>
#include <cstdint>

#include "actorflow/actors/detail/step_protocol.hpp"

namespace af::detail {

void send_step_messages(const partition_runner& runner, const partition_owner& owner,
                        const master_handle& master, const rendezvous_handle& rendezvous) {
  caf::anon_send(runner, cancel_atom::value, std::int64_t{1}, Status());
  caf::anon_send(runner, cleanup_atom::value, std::int64_t{1});
  caf::anon_send(owner, done_atom::value, std::int64_t{1}, std::size_t{0}, Status());
  caf::anon_send(master, run_atom::value, StepRunPtr());
  caf::anon_send(rendezvous, abort_atom::value, std::int64_t{1}, Status());
#ifdef ACTORFLOW_WRONG_MESSAGE
  // `done` goes to a partition's owner, never to the runner that reports it.
  caf::anon_send(runner, done_atom::value, std::int64_t{1}, std::size_t{0}, Status());
#endif
}

}  // namespace af::detail
