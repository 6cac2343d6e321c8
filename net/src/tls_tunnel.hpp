#pragma once

// TLS between tasks: an Asio/OpenSSL tunnel in front of CAF's middleman. A TLS server
// publishes its master service on a loopback port and accepts, on the cluster spec's
// address, only TLS connections whose client certificate the cluster's CA signed; each
// accepted connection is piped to the loopback port. Outgoing connections go to a loopback
// forwarder per remote address, which opens a TLS connection (presenting this node's
// certificate and verifying the server's) and pipes the bytes. CAF's BASP runs unchanged
// inside. (CAF 0.17.6's own OpenSSL module was tried first: its connections stall when
// OpenSSL holds decrypted bytes the epoll loop never hears of; see the README.)
#include <cstdint>
#include <memory>
#include <string>

#include "actorflow/actors/runtime.hpp"

namespace af::net {

class TlsTunnels {
 public:
  /// Loads the certificate, key and CA of `options`; throws InvalidArgumentError naming the
  /// file that OpenSSL refuses.
  explicit TlsTunnels(const RuntimeOptions& options);
  ~TlsTunnels();
  TlsTunnels(const TlsTunnels&) = delete;
  TlsTunnels& operator=(const TlsTunnels&) = delete;

  /// Accepts TLS on `host`:`port` (0: any) and pipes every authenticated connection to
  /// 127.0.0.1:`target_port`. Returns the bound port; throws UnavailableError when it
  /// cannot listen.
  std::uint16_t serve(const std::string& host, std::uint16_t port, std::uint16_t target_port, std::string owner);
  /// Stops accepting on `port` (connections already piped stay until either side closes).
  void stop_serving(std::uint16_t port);
  /// A loopback port whose connections are piped over TLS to `host`:`port` (one forwarder
  /// per remote address, created on first use).
  std::uint16_t local_port_for(const std::string& host, std::uint16_t port);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// The tunnels of `runtime` (shared by runtimes with the same TLS files), or null when it
/// does not use TLS. Lives until the process ends.
TlsTunnels* tls_tunnels(const Runtime& runtime);

/// Where to connect for `host`:`port` from `runtime`: the address itself, or with TLS the
/// loopback forwarder for it.
std::pair<std::string, std::uint16_t> dial_address(const Runtime& runtime, const std::string& host, std::uint16_t port);

}  // namespace af::net
