#pragma once

#include <cstdint>
#include <string>

namespace af {

/// A TCP port on `host` that nothing is bound to right now, for cluster specs that must name
/// their ports before the servers start (tests, demos, a local cluster; TensorFlow's tests
/// use `portpicker` for the same). It is taken from below the kernel's ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`), so ports the system hands out on its own —
/// outgoing connections, the servers' bulk ports — never land on it before it is bound.
/// Another process may still bind it first. Throws UnavailableError when no port is found.
std::uint16_t pick_unused_port(const std::string& host = "127.0.0.1");

}  // namespace af
