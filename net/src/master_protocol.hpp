#pragma once

// The master service: one actor per task (net/src/server.cpp), what a `caf://` session on
// another process talks to. Payloads are byte strings (wire.hpp); errors travel as
// caf::error in actorflow's category (code + message). The atoms' wire names (in quotes)
// are short because CAF 0.17 atoms hold at most 10 characters.
//
//   message                                              reply
//   (master_open, vector<string> device_filters,        uint64 session id
//    bool allow_soft_placement, bool log_device_placement)  (the client's, OR'ed with the server's)
//   (master_run, uint64 session, string request)        string reply (the fetched tensors)
//   (master_close, uint64 session)                      string ""
//   (master_reset, string containers)                   string ""
//   (master_devices)                                    string (device names and types)
//   (master_worker)                                     (actor worker service, string devices)
//   (master_step_port, uint64 session)                  string (u64 token, u64 step port), or
//                                                       Unimplemented (no step channel)
//   (master_fetch, uint64 transfer)                     string: the raw bytes of a tensor a reply
//                                                       offered on the bulk port, for a client
//                                                       that port does not serve
// Inside the task (never from the network):
//   (master_step_done, uint64 key, error, string reply) a step the master service ran ended
//   (master_set_agent, actor cluster_agent)             the task's cluster agent, once spawned
//   (master_set_bulk, shared_ptr<BulkServer>)           the task's bulk port, once listening
// Inside a client process, to its remote-session proxy actor:
//   (master_call, shared_ptr<RemoteCall>)               send one call to the master service
//   (master_call_expire, uint64 call)                   a call held while the proxy reconnects
//                                                       reached its deadline
#include <caf/atom.hpp>

namespace af::net {

using master_open_atom = caf::atom_constant<caf::atom("rs_open")>;
using master_run_atom = caf::atom_constant<caf::atom("rs_run")>;
using master_close_atom = caf::atom_constant<caf::atom("rs_close")>;
using master_reset_atom = caf::atom_constant<caf::atom("rs_reset")>;
using master_devices_atom = caf::atom_constant<caf::atom("rs_devices")>;
using master_worker_atom = caf::atom_constant<caf::atom("rs_worker")>;
using master_step_port_atom = caf::atom_constant<caf::atom("rs_step")>;
using master_fetch_atom = caf::atom_constant<caf::atom("rs_fetch")>;
using master_step_done_atom = caf::atom_constant<caf::atom("rs_done")>;
using master_set_agent_atom = caf::atom_constant<caf::atom("agent")>;
using master_set_bulk_atom = caf::atom_constant<caf::atom("bulk")>;
using master_call_atom = caf::atom_constant<caf::atom("rs_call")>;
using master_call_expire_atom = caf::atom_constant<caf::atom("rs_expire")>;

}  // namespace af::net
