#pragma once

// A blocking TCP connect bounded by a deadline, for the hand-made connections in front of
// CAF and beside it (the CAF port's dial, the tensor push client).
#include <chrono>
#include <cstdint>
#include <string>

namespace af::net {

/// A connected, blocking socket to `host`:`port` (an address or a name; each of the name's
/// addresses in turn) by `deadline`, or -1 with the reason in `*error` (the resolver's
/// message, or the last address's connect error; "Connection timed out" at the deadline).
int connect_tcp(const std::string& host, std::uint16_t port,
                std::chrono::steady_clock::time_point deadline, std::string* error);

}  // namespace af::net
