#include "basp_front_door.hpp"

#include <asio.hpp>
#include <atomic>
#include <caf/io/all.hpp>
#include <caf/io/basp/header.hpp>
#include <caf/io/basp/message_type.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/scribe_impl.hpp>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "actorflow/ops/errors.hpp"
#include "waiting_connections.hpp"
#include "wire_decoders.hpp"

namespace af::net {

namespace {

using caf::io::network::default_multiplexer;

/// The state a port's scribes share.
struct GuardState {
  FrontDoorOptions options;
  std::shared_ptr<Refusals> refusals;
  /// Payload bytes claimed by the handshakes of connections that have not finished theirs
  /// (each at most kBaspMaxHandshakeBytes), against kBaspHandshakeBudget.
  mutable std::atomic<std::size_t> handshake_bytes{0};
};

/// A BASP connection checked before CAF reads on: see basp_front_door.hpp. Everything but
/// `handshaken` runs on CAF's multiplexer thread.
class GuardedScribe final : public caf::io::network::scribe_impl {
 public:
  GuardedScribe(default_multiplexer& mx, int fd, std::shared_ptr<const GuardState> state,
                std::string peer)
      : scribe_impl(mx, fd),
        state_(std::move(state)),
        peer_(std::move(peer)),
        check_(state_->options.max_message_bytes) {}

  ~GuardedScribe() override { release_claim(); }

  void configure_read(caf::io::receive_policy::config config) override {
    if (refused()) return;
    if (!check_.may_read(config.second)) {
      if (!check_.handshaken())
        return refuse("oversized", "a BASP handshake of " + std::to_string(config.second) +
                                       " bytes, more than the " + std::to_string(check_.limit()) +
                                       " bytes a handshake may have");
      return refuse("oversized", "a BASP message of " + std::to_string(config.second) +
                                     " bytes, more than the " + std::to_string(check_.limit()) +
                                     "-byte limit");
    }
    if (!check_.handshaken() && !claim(config.second))
      return refuse("crowded", "connections without a handshake would hold more than " +
                                   std::to_string(kBaspHandshakeBudget) + " bytes");
    scribe_impl::configure_read(config);
  }

  bool consume(caf::execution_unit* ctx, const void* buf, std::size_t n) override {
    if (refused()) return false;
    static_assert(caf::io::basp::header_size == kBaspHeaderBytes);
    static_assert(static_cast<int>(caf::io::basp::message_type::client_handshake) == 0x01);
    if (!check_.handshaken()) {
      if (!check_.consumed(std::string_view(static_cast<const char*>(buf), n))) {
        refuse("not_basp", "its first message is not a BASP client handshake");
        return false;
      }
      if (check_.handshaken()) {
        release_claim();
        handshaken_.store(true, std::memory_order_release);
      }
    }
    return scribe_impl::consume(ctx, buf, n);
  }

  /// The broker let go of the connection (closed by the peer, refused, or shut down): the
  /// guard drops it at its next sweep, and the descriptor closes with the last reference.
  void detach_from(caf::io::abstract_broker* ptr) override {
    release_claim();
    detached_.store(true, std::memory_order_release);
    scribe_impl::detach_from(ptr);
  }

  bool handshaken() const { return handshaken_.load(std::memory_order_acquire); }
  bool refused() const { return refused_.load(std::memory_order_acquire); }
  bool detached() const { return detached_.load(std::memory_order_acquire); }

  /// Closes the connection unless it completed its handshake meanwhile (multiplexer thread).
  void expire(const std::string& reason, const std::string& detail) {
    if (!handshaken()) refuse(reason, detail);
  }

 private:
  /// Claims `bytes` of the handshake budget for this connection's next read (multiplexer
  /// thread); false when the budget cannot take them.
  bool claim(std::size_t bytes) {
    release_claim();
    const std::size_t before = state_->handshake_bytes.fetch_add(bytes);
    claimed_ = bytes;
    return before + bytes <= kBaspHandshakeBudget;
  }
  void release_claim() { state_->handshake_bytes.fetch_sub(std::exchange(claimed_, 0)); }

  void refuse(const std::string& reason, const std::string& detail) {
    if (refused_.exchange(true)) return;
    release_claim();
    state_->refusals->refuse("caf", peer_, reason, detail);
    stream_.passivate();
    // The broker learns of it as of a failed read, once its current handler has returned;
    // the peer gets a FIN at once (the descriptor goes with the scribe).
    caf::intrusive_ptr<GuardedScribe> self{this};
    stream_.backend().post([self] {
      self->io_failure(&self->stream_.backend(), caf::io::network::operation::read);
      self->graceful_shutdown();
    });
  }

  std::shared_ptr<const GuardState> state_;
  std::string peer_;
  BaspConnectionCheck check_;
  std::atomic<bool> refused_{false};
  std::atomic<bool> handshaken_{false};  ///< check_.handshaken(), for the door's threads
  std::atomic<bool> detached_{false};
  std::size_t claimed_ = 0;  ///< of GuardState::handshake_bytes (multiplexer thread)
};

}  // namespace

// -- BaspGuard ------------------------------------------------------------------------------

struct BaspGuard::Impl {
  Runtime* runtime;
  caf::actor whom;
  std::string owner;
  std::shared_ptr<GuardState> state = std::make_shared<GuardState>();
  struct Waiting {
    caf::intrusive_ptr<GuardedScribe> scribe;
    std::chrono::steady_clock::time_point deadline;
  };
  std::mutex mu;
  std::deque<Waiting> waiting;  // oldest first

  default_multiplexer& mux() {
    return static_cast<default_multiplexer&>(runtime->system().middleman().backend());
  }

  void expire(caf::intrusive_ptr<GuardedScribe> scribe, std::string reason, std::string detail) {
    mux().post([scribe, reason, detail] { scribe->expire(reason, detail); });
  }

  void sweep_locked() {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (it->scribe->handshaken() || it->scribe->refused() || it->scribe->detached()) {
        it = waiting.erase(it);
      } else if (now >= it->deadline) {
        expire(it->scribe, "handshake_timeout",
               "no BASP handshake within " +
                   std::to_string(state->options.handshake_timeout.count()) + " ms");
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    while (waiting.size() > state->options.max_unauthenticated) {
      expire(waiting.front().scribe, "crowded",
             "more than " + std::to_string(state->options.max_unauthenticated) +
                 " connections waiting for their handshake: the oldest is closed");
      waiting.pop_front();
    }
  }
};

BaspGuard::BaspGuard(Runtime& runtime, caf::actor whom, std::string owner, FrontDoorOptions options,
                     std::shared_ptr<Refusals> refusals)
    : impl_(std::make_shared<Impl>()) {
  impl_->runtime = &runtime;
  impl_->whom = std::move(whom);
  impl_->owner = std::move(owner);
  impl_->state->options = options;
  impl_->state->refusals = std::move(refusals);
}

BaspGuard::~BaspGuard() = default;

void BaspGuard::adopt(int fd, const std::string& peer, std::uint16_t port) {
  auto scribe = caf::make_counted<GuardedScribe>(impl_->mux(), fd, impl_->state, peer);
  {
    std::lock_guard<std::mutex> guard(impl_->mu);
    impl_->waiting.push_back(
        {scribe, std::chrono::steady_clock::now() + impl_->state->options.handshake_timeout});
    impl_->sweep_locked();
  }
  // The BASP broker adopts the connection as a server: it registers `whom` under the port
  // and sends the server handshake on it.
  auto broker =
      impl_->runtime->system().middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::anon_send(broker, caf::publish_atom::value, caf::io::scribe_ptr{scribe}, port,
                 caf::actor_cast<caf::strong_actor_ptr>(impl_->whom), std::set<std::string>{});
}

void BaspGuard::sweep() {
  std::lock_guard<std::mutex> guard(impl_->mu);
  impl_->sweep_locked();
}

// -- BaspFrontDoor ----------------------------------------------------------------------------

struct BaspFrontDoor::Impl : std::enable_shared_from_this<BaspFrontDoor::Impl> {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io};
  asio::steady_timer sweeper{io};
  asio::steady_timer backoff{io};
  std::thread thread;
  std::unique_ptr<BaspGuard> guard;
  std::shared_ptr<Refusals> refusals;
  std::string owner;
  std::uint16_t port = 0;
  std::atomic<bool> stopped{false};

  void accept() {
    acceptor.async_accept([self = shared_from_this()](std::error_code ec,
                                                      asio::ip::tcp::socket socket) {
      if (self->stopped || ec == asio::error::operation_aborted) return;
      if (ec) {
        if (out_of_descriptors(ec)) {
          self->refusals->refuse("caf", "(not accepted)", "descriptors",
                                 "cannot accept: " + ec.message() + "; trying again in 100 ms");
          return accept_later(self->backoff, [self] {
            if (!self->stopped) self->accept();
          });
        }
        return self->accept();  // the peer went away before we took it
      }
      std::error_code ignored;
      socket.set_option(asio::ip::tcp::no_delay(true), ignored);
      const auto remote = socket.remote_endpoint(ignored);
      const std::string peer = remote.address().to_string() + ":" + std::to_string(remote.port());
      const int fd = socket.release(ignored);
      if (fd >= 0) self->guard->adopt(fd, peer, self->port);
      self->accept();
    });
  }

  void sweep() {
    sweeper.expires_after(std::chrono::milliseconds(100));
    sweeper.async_wait([self = shared_from_this()](std::error_code ec) {
      if (ec || self->stopped) return;
      self->guard->sweep();
      self->sweep();
    });
  }
};

BaspFrontDoor::BaspFrontDoor(Runtime& runtime, const std::string& host, std::uint16_t port,
                             caf::actor whom, std::string owner, FrontDoorOptions options,
                             std::shared_ptr<Refusals> refusals)
    : impl_(std::make_shared<Impl>()) {
  impl_->owner = owner;
  impl_->refusals = refusals;
  const std::error_code ec = listen_on(impl_->acceptor, host, port);
  if (ec)
    throw UnavailableError(unavailable(owner + ": cannot listen on " + host + ":" +
                                       std::to_string(port) + ": " + ec.message()));
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->guard = std::make_unique<BaspGuard>(runtime, std::move(whom), std::move(owner), options,
                                             std::move(refusals));
  impl_->accept();
  impl_->sweep();
  impl_->thread = std::thread([impl = impl_] { impl->io.run(); });
}

BaspFrontDoor::~BaspFrontDoor() { stop(); }

std::uint16_t BaspFrontDoor::port() const noexcept { return impl_->port; }

void BaspFrontDoor::stop() {
  if (impl_->stopped.exchange(true)) return;
  asio::post(impl_->io, [impl = impl_] {
    std::error_code ignored;
    impl->acceptor.close(ignored);
    impl->sweeper.cancel();
    impl->backoff.cancel();
  });
  if (impl_->thread.joinable()) {
    if (impl_->thread.get_id() == std::this_thread::get_id())
      impl_->thread.detach();
    else
      impl_->thread.join();
  }
}

}  // namespace af::net
