#pragma once

// The typed interfaces of the actors that run a step's partitions and of those that own
// them, and the step protocol's atoms. A handle of one of these types accepts only the
// messages its interface lists: a wrong message to a device actor, a task proxy, a master or
// a worker service fails to compile. The message table, with who sends what, is in
// step_protocol.hpp, which includes this header; device.hpp includes it for
// `DeviceSet::actors`. Not part of the public API.
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actorflow/actors/detail/wire_types.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

// -- atoms (at most 10 characters) ------------------------------------------------------

using run_atom = caf::atom_constant<caf::atom("af_run")>;
using done_atom = caf::atom_constant<caf::atom("af_done")>;
using cancel_atom = caf::atom_constant<caf::atom("af_cancel")>;
using resume_atom = caf::atom_constant<caf::atom("af_resume")>;
using send_atom = caf::atom_constant<caf::atom("af_send")>;
using recv_atom = caf::atom_constant<caf::atom("af_recv")>;
using abort_atom = caf::atom_constant<caf::atom("af_abort")>;
using cleanup_atom = caf::atom_constant<caf::atom("af_clean")>;
using timeout_atom = caf::atom_constant<caf::atom("af_tmo")>;
using adopt_atom = caf::atom_constant<caf::atom("af_adopt")>;

struct StepRun;
struct PartitionRun;
/// One step, shared by everyone taking part in it (step_protocol.hpp).
using StepRunPtr = std::shared_ptr<StepRun>;
/// One partition of a step, as its runner gets it (step_protocol.hpp).
using PartitionRunPtr = std::shared_ptr<PartitionRun>;
/// A partition started on another thread, handed to its device actor to finish
/// (actors/src/executor/partition_execution.hpp).
struct Adoption;
/// A shared hand-over (local messages only).
using AdoptionPtr = std::shared_ptr<Adoption>;

/// What runs partitions: a device actor, or the task proxy standing in for the devices of
/// another task. `run` starts one (the runner answers `done` to `run->master` when it ends);
/// `cancel` stops the step's partitions there; `cleanup` tells it the step is over (a
/// proxy forwards it to its task; a device actor has nothing to drop).
using partition_runner = caf::typed_actor<caf::reacts_to<run_atom, PartitionRunPtr>,
                                          caf::reacts_to<cancel_atom, std::int64_t, Status>,
                                          caf::reacts_to<cleanup_atom, std::int64_t>>;

/// A device actor: a partition runner that also takes its own deadline timer (a direct
/// step's), completions posted by pool threads, and partitions started on a caller's thread.
using device_actor_handle = partition_runner::extend<caf::reacts_to<timeout_atom, std::int64_t>,
                                                     caf::reacts_to<resume_atom, Closure>,
                                                     caf::reacts_to<adopt_atom, AdoptionPtr>>;

/// Who owns the partitions it started: told when each ends (`done`: step, partition index,
/// its status) and, on a partition's error, asked to cancel the step's others at once.
using partition_owner =
    caf::typed_actor<caf::reacts_to<done_atom, std::int64_t, std::size_t, Status>,
                     caf::reacts_to<cancel_atom, std::int64_t, Status>>;

/// A session's master: starts steps (`run`), ends them on their deadline (`timeout`, sent
/// to itself), and owns their partitions.
using master_handle = partition_owner::extend<caf::reacts_to<run_atom, StepRunPtr>,
                                              caf::reacts_to<timeout_atom, std::int64_t>>;

/// A task's step rendezvous: tensors sent on cross-device edges (`send`) wait there for
/// their receive (`recv`, answered with the tensor, or an error when the step is aborted or
/// over); `abort` fails the step's waiting receives; `cleanup` forgets the step.
using rendezvous_handle =
    caf::typed_actor<caf::reacts_to<send_atom, std::int64_t, std::string, Tensor>,
                     caf::replies_to<recv_atom, std::int64_t, std::string>::with<Tensor>,
                     caf::reacts_to<abort_atom, std::int64_t, Status>,
                     caf::reacts_to<cleanup_atom, std::int64_t>>;

}  // namespace af::detail

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::StepRunPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::PartitionRunPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::AdoptionPtr)
