#pragma once

// The worker service: one actor per task (net/src/worker_service.cpp), which runs the
// partitions that masters on other tasks place there. Its peers' task proxies
// (net/src/task_proxy.cpp) send these. Payloads are byte strings (wire.hpp); errors travel
// as caf::error in actorflow's category. Wire names in quotes (CAF 0.17: 10 characters).
//
//   message                                                          reply
//   (worker_register, string scope, string plan)                    uint64 partition handle
//   (worker_run, uint64 handle, int64 step, int64 timeout_ms,
//    bool trace, string feeds)                                      string (fetches, then step
//    stats)
//   (worker_cancel, int64 step, WireStatus why)                     none
//   (worker_cleanup, int64 step)                                    none: the step is over
//   (worker_tensor, int64 step, string key, string tensor)          none: a cross-task edge
//   (worker_forget, string scope)                                   none: a master session closed
//
// A run and its reply also travel over the push channel (tensor_push.hpp) when the tasks
// have one, as control frames (PushKind::run, PushKind::reply in wire_decoders.hpp) whose step
// id is the step's; the push port hands them on as local messages:
//   run frame:   string reply_task, uint64 request_id, uint64 handle, int64 timeout_ms,
//                uint8 trace, string feeds
//     -> (worker_push_run, int64 step, string frame_payload, uint64 frame_bytes)  to the worker
//     service
//   reply frame: uint64 request_id, uint8 ok, then string (fetches, then step stats) when ok,
//                else uint8 code, string message
//     -> (worker_push_reply, uint64 request_id, string frame_payload, uint64 frame_bytes)  to the
//     proxy
// A worker service whose reply cannot take the push channel sends that same message to the
// proxy over CAF. A step's cancellation (cancel frame: uint8 code, string message ->
// worker_cancel) follows its pushed run on the same connection, so that it cannot overtake
// it; its cleanup goes the same way (cleanup frame, empty -> worker_cleanup).
//
// Typed: `worker_service_handle` (these messages, plus `partition_owner`'s done and cancel
// from the task's device actors) and `task_proxy_handle` (a `partition_runner` for the
// master, plus the tensors, forgets and pushed replies it forwards, its revival and its
// pushed runs' timeouts).
#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <string>

#include "actorflow/actors/detail/step_actors.hpp"

namespace af::net {

using worker_register_atom = caf::atom_constant<caf::atom("ws_reg")>;
using worker_run_atom = caf::atom_constant<caf::atom("ws_run")>;
using worker_cancel_atom = caf::atom_constant<caf::atom("ws_cancel")>;
using worker_cleanup_atom = caf::atom_constant<caf::atom("ws_clean")>;
using worker_tensor_atom = caf::atom_constant<caf::atom("ws_tensor")>;
using worker_forget_atom = caf::atom_constant<caf::atom("ws_forget")>;
using worker_push_run_atom = caf::atom_constant<caf::atom("ws_prun")>;
using worker_push_reply_atom = caf::atom_constant<caf::atom("ws_preply")>;

/// To a task proxy whose task went away: the same server (its master service, same node and
/// actor) is connected again, with `caf::actor` its worker service; the proxy serves again,
/// registering its partitions anew (the worker forgot them with the lost connection).
using proxy_revive_atom = caf::atom_constant<caf::atom("af_revive")>;
/// A task proxy's backstop for a pushed run's request timeout (to itself).
using push_timeout_atom = caf::atom_constant<caf::atom("af_ptime")>;

/// A task's worker service (worker_service.cpp): the messages in the table above, from other
/// tasks' proxies and this task's push port, and, as the owner of the partitions it runs,
/// `done` and `cancel` from its device actors.
using worker_service_handle = caf::typed_actor<
    caf::replies_to<worker_register_atom, std::string, std::string>::with<std::uint64_t>,
    caf::replies_to<worker_run_atom, std::uint64_t, std::int64_t, std::int64_t, bool,
                    std::string>::with<std::string>,
    caf::reacts_to<worker_push_run_atom, std::int64_t, std::string, std::uint64_t>,
    caf::reacts_to<worker_cancel_atom, std::int64_t, detail::WireStatus>,
    caf::reacts_to<worker_cleanup_atom, std::int64_t>,
    caf::reacts_to<worker_tensor_atom, std::int64_t, std::string, std::string>,
    caf::reacts_to<worker_forget_atom, std::string>>::extend_with<detail::partition_owner>;

/// The proxy of another task's devices (task_proxy.cpp): a partition runner for this task's
/// masters; it forwards tensors on cross-task edges (`worker_tensor`) and a closed session's
/// `worker_forget` to its task, takes the pushed replies of its runs, is revived with the
/// task's new worker handle, and times out its pushed runs itself.
using task_proxy_handle = detail::partition_runner::extend<
    caf::reacts_to<worker_tensor_atom, std::int64_t, std::string, std::string>,
    caf::reacts_to<worker_forget_atom, std::string>,
    caf::reacts_to<worker_push_reply_atom, std::uint64_t, std::string, std::uint64_t>,
    caf::reacts_to<proxy_revive_atom, caf::actor>,
    caf::reacts_to<push_timeout_atom, std::uint64_t>>;

}  // namespace af::net
