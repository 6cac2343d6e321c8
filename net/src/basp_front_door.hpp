#pragma once

// The CAF port's front door. CAF 0.17 trusts a BASP header's payload length: one 32-byte
// header claiming 4 GiB makes it allocate and zero 4 GiB, stalling every CAF connection. So
// no connection reaches CAF's BASP broker on its own: actorflow accepts it, hands the BASP
// broker a guarded scribe for it, and the guard
//   - refuses a BASP handshake claiming more than kBaspMaxHandshakeBytes (4 KiB; a real
//     one has a few dozen bytes), and any later BASP message longer than
//     `max_message_bytes`, before CAF reads (or allocates) a byte of it,
//   - refuses a connection whose handshake would make the handshakes in flight on this port
//     claim more than kBaspHandshakeBudget (1 MiB) together, so that no number of peers
//     makes the server allocate more than that for connections that have not shaken hands,
//   - closes a connection whose first message is not a BASP client handshake, or that has
//     not completed one within `handshake_timeout`,
//   - keeps at most `max_unauthenticated` connections waiting for their handshake (a new
//     one closes the oldest, so an idle flood cannot lock real clients out), and lets go of
//     a connection as soon as CAF closed it (its descriptor closes with it),
// logging each refusal (rate-limited, naming the peer) and counting it for /metrics. The
// TLS mode's socket-pair ends go through the same guard.
#include <caf/actor.hpp>
#include <caf/io/fwd.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "actorflow/actors/runtime.hpp"
#include "refusals.hpp"

namespace af::net {

/// The most the handshakes of one port's connections that have not shaken hands may claim
/// together (at most kBaspMaxHandshakeBytes each, wire_decoders.hpp).
inline constexpr std::size_t kBaspHandshakeBudget = std::size_t{1} << 20;

struct FrontDoorOptions {
  std::size_t max_message_bytes = std::size_t{512} << 20;
  std::chrono::milliseconds handshake_timeout{5000};
  std::size_t max_unauthenticated = 128;
};

class BaspGuard;

/// Serves `whom` over BASP on `host`:`port` (plain TCP; 0: the system chooses) behind the
/// guard. Throws UnavailableError naming `owner` when it cannot listen.
class BaspFrontDoor {
 public:
  BaspFrontDoor(Runtime& runtime, const std::string& host, std::uint16_t port, caf::actor whom,
                std::string owner, FrontDoorOptions options, std::shared_ptr<Refusals> refusals);
  ~BaspFrontDoor();
  BaspFrontDoor(const BaspFrontDoor&) = delete;
  BaspFrontDoor& operator=(const BaspFrontDoor&) = delete;

  std::uint16_t port() const noexcept;
  /// Stops accepting (connections already served stay until either side closes). Idempotent.
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The guard of one server: hands connection `fd` from `peer` to the BASP broker of
/// `runtime` as a connection to `whom` published on `port`. Usable from any thread.
class BaspGuard {
 public:
  BaspGuard(Runtime& runtime, caf::actor whom, std::string owner, FrontDoorOptions options,
            std::shared_ptr<Refusals> refusals);
  ~BaspGuard();
  void adopt(int fd, const std::string& peer, std::uint16_t port);
  /// Closes connections past their handshake deadline, and the oldest waiting ones beyond
  /// the limit (`adopt` sweeps too; the front door also every 100 ms).
  void sweep();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace af::net
