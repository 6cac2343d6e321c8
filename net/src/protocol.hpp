#pragma once

// The master service's messages (every payload a byte string, see wire.hpp):
//   (rs_open_atom)                                  -> uint64 session id
//   (rs_run_atom, uint64 id, string request)        -> string reply (fetched tensors)
//   (rs_close_atom, uint64 id)                      -> string ""
//   (rs_reset_atom, string containers)              -> string ""
//   (rs_devices_atom)                               -> string (device names and types)
// Errors travel as caf::error in actorflow's category (code + message).
#include <caf/atom.hpp>

namespace af::net {

using rs_open_atom = caf::atom_constant<caf::atom("rs_open")>;
using rs_run_atom = caf::atom_constant<caf::atom("rs_run")>;
using rs_close_atom = caf::atom_constant<caf::atom("rs_close")>;
using rs_reset_atom = caf::atom_constant<caf::atom("rs_reset")>;
using rs_devices_atom = caf::atom_constant<caf::atom("rs_devices")>;
using rs_done_atom = caf::atom_constant<caf::atom("rs_done")>;
using rs_call_atom = caf::atom_constant<caf::atom("rs_call")>;

}  // namespace af::net
