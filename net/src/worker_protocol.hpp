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
// have one, as control frames (cluster.hpp kPushRunKey, kPushReplyKey) whose step id is the
// step's; the push port hands them on as local messages:
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
#include <caf/atom.hpp>

namespace af::net {

using worker_register_atom = caf::atom_constant<caf::atom("ws_reg")>;
using worker_run_atom = caf::atom_constant<caf::atom("ws_run")>;
using worker_cancel_atom = caf::atom_constant<caf::atom("ws_cancel")>;
using worker_cleanup_atom = caf::atom_constant<caf::atom("ws_clean")>;
using worker_tensor_atom = caf::atom_constant<caf::atom("ws_tensor")>;
using worker_forget_atom = caf::atom_constant<caf::atom("ws_forget")>;
using worker_push_run_atom = caf::atom_constant<caf::atom("ws_prun")>;
using worker_push_reply_atom = caf::atom_constant<caf::atom("ws_preply")>;

}  // namespace af::net
