#pragma once

// Dialing a CAF node without CAF 0.17.6's handshake race. Its BASP broker gives a connection
// it dials a context whose `last_seen` is the clock's epoch (`ctx[hdl]` in the connect
// handler) and updates it only when the server's first bytes arrive; a heartbeat tick in
// between finds that connection "silent past the connection timeout" and drops it at once
// with sec::connection_timeout. On a loaded machine (a server slow to accept, a TLS
// handshake in between) that window is milliseconds long and a tick comes every
// `heartbeat_interval_ms`, so now and then a session's connect failed within milliseconds.
// So actorflow makes the TCP (or TLS tunnel) connection itself, waits until the server's
// BASP handshake is there to read, gives the broker's context for it a `last_seen` of now
// (on the broker's own thread, before the hand-over, so CAF's connect handler keeps it), and
// only then hands the connection to the broker, whose next read sees it. A tick queued
// behind the hand-over on a starved machine then finds a connection seen just now; should a
// connection still be lost that way, it is dialed again.
#include <caf/actor.hpp>
#include <caf/message.hpp>
#include <cstdint>
#include <string>
#include <utility>

#include "actorflow/actors/runtime.hpp"

namespace af::net {

/// Who to ask, and what, for a connection to the CAF node at `host`:`port` (a name or an
/// address): the runtime's dial coordinator with `(connect_atom, host, port)`. It answers
/// `(node_id, strong_actor_ptr, std::set<std::string>)` once the BASP handshake is done,
/// or an error: `sec::cannot_connect_to_node` when nothing listens there or the peer closed
/// before its handshake, `sec::connection_timeout` when the peer sent no handshake within
/// the runtime's connection timeout (10 s when that is off). As CAF's middleman does, it
/// dials one `host:port` once at a time and answers a later dial with the node found then
/// while that node is still connected; a dial that joined one in flight that fails is
/// dialled again (the address may have come up since). With TLS the connection goes through a fresh
/// tunnel (tls_tunnel.hpp).
std::pair<caf::actor, caf::message> dial(Runtime& runtime, const std::string& host,
                                         std::uint16_t port);

}  // namespace af::net
