#pragma once

// A loopback port nobody listens on right now (for cluster specs that must name their
// ports before the servers start): af::pick_unused_port, below the ephemeral range, so the
// bulk ports and outgoing connections of servers started earlier cannot take it.
#include <actorflow/net/port_picker.hpp>
#include <cstdint>

namespace af::test {

inline std::uint16_t free_port() { return af::pick_unused_port("127.0.0.1"); }

}  // namespace af::test
