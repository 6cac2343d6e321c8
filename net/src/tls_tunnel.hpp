#pragma once

// TLS between tasks: an Asio/OpenSSL tunnel in front of CAF's BASP. Nothing listens on
// loopback: a TLS server accepts, on the cluster spec's address, only TLS connections whose
// client certificate the cluster's CA signed, and hands CAF's BASP broker one end of a
// local socket pair per connection (the tunnel pumps bytes between the other end and the
// TLS stream); an outgoing connection is a TLS connection (presenting this node's
// certificate, verifying the server's) piped likewise to a socket-pair end handed to CAF
// as a connecting scribe. CAF's BASP runs unchanged inside, and no other local process can
// reach it without a certificate. (CAF 0.17.6's own OpenSSL module was tried first: its
// connections stall when OpenSSL holds decrypted bytes the epoll loop never hears of; see
// the README.)
#include <caf/actor.hpp>
#include <caf/message.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actorflow/actors/runtime.hpp"
#include "refusals.hpp"

namespace af::net {

/// What a served TLS port allows connections that have not completed their TLS handshake:
/// each must complete it within `handshake_timeout` from accept, and at most
/// `max_unauthenticated` may be shaking hands at once (a new one closes the oldest).
/// Refusals (failed handshakes, timeouts, the limit, accepts out of descriptors) are counted
/// in `refusals` under port "caf". `tick`, when set, runs on the tunnel's thread every
/// 100 ms while the port is served.
struct TlsServeLimits {
  std::chrono::milliseconds handshake_timeout{5000};
  std::size_t max_unauthenticated = 128;
  std::shared_ptr<Refusals> refusals;
  std::function<void()> tick;
};

class TlsTunnels {
 public:
  /// Loads the certificate, key and CA of `options`; throws InvalidArgumentError naming the
  /// file that OpenSSL refuses.
  explicit TlsTunnels(const RuntimeOptions& options);
  ~TlsTunnels();
  TlsTunnels(const TlsTunnels&) = delete;
  TlsTunnels& operator=(const TlsTunnels&) = delete;

  /// Accepts TLS on `host`:`port` (0: any) and calls `handover(fd, bound_port, peer)` on the
  /// tunnel's thread with the local end (a connected stream socket the callee owns) of
  /// every authenticated connection and the peer's address, within `limits`. An
  /// authenticated connection holds two 256 KiB pump buffers; one still shaking hands only
  /// OpenSSL's state. Memory of closed connections is handed back to the system (at most
  /// every second). Returns the bound port; throws UnavailableError when it cannot listen.
  std::uint16_t serve(
      const std::string& host, std::uint16_t port,
      std::function<void(int fd, std::uint16_t port, const std::string& peer)> handover,
      std::string owner, TlsServeLimits limits = {});
  /// Stops accepting on `port` and closes its connections still shaking hands (those
  /// already piped stay until either side closes).
  void stop_serving(std::uint16_t port);
  /// Starts a TLS connection to `host`:`port` and returns the local end (owned by the
  /// caller) of the stream it is piped to; bytes written before the handshake completes
  /// wait, and a failed connection or handshake closes it. Throws UnavailableError when
  /// `host` is no address or no socket pair can be made.
  int connect(const std::string& host, std::uint16_t port);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The tunnels of `runtime` (shared by runtimes with the same TLS files), or null when it
/// does not use TLS. Lives until the process ends.
TlsTunnels* tls_tunnels(const Runtime& runtime);

class BaspGuard;

/// With TLS, serves `host`:`port` through the tunnels within `limits`: each authenticated
/// connection goes to `guard`, which hands it to CAF's BASP broker (basp_front_door.hpp) and
/// is swept on the tunnel's timer. Returns the bound port; throws UnavailableError when it
/// cannot listen.
std::uint16_t serve_over_tls(Runtime& runtime, const std::string& host, std::uint16_t port,
                             std::shared_ptr<BaspGuard> guard, const std::string& owner,
                             TlsServeLimits limits);

}  // namespace af::net
