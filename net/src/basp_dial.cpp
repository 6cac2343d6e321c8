#include "basp_dial.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "tcp_connect.hpp"
#include "tls_tunnel.hpp"

namespace af::net {

namespace {

using Clock = std::chrono::steady_clock;

/// How often a connection lost to the race's sliver is dialed again.
constexpr int kAttempts = 3;

int millis_until(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

enum class FirstBytes { arrived, closed, none };

/// Waits until the peer's first bytes are there to read on `fd`, or it closed, or `until`.
FirstBytes await_first_bytes(int fd, Clock::time_point until) {
  while (true) {
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, millis_until(until));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return FirstBytes::none;
    char byte;
    const auto n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return FirstBytes::arrived;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    return FirstBytes::closed;
  }
}

/// Gives the broker's context for `hdl` a `last_seen` of now before the connection reaches
/// the broker. CAF's connect handler takes that context as it is (`ctx[hdl]`) and sets the
/// rest, so no heartbeat tick between the hand-over and the first read finds the connection
/// silent since the clock's epoch. Runs on the multiplexer's thread (the broker's own) and
/// returns once it ran, or after `budget` when the multiplexer runs nothing any more.
void seed_last_seen(caf::io::middleman* mm, const caf::actor& broker,
                    caf::io::connection_handle hdl, std::chrono::milliseconds budget) {
  auto done = std::make_shared<std::promise<void>>();
  auto ran = done->get_future();
  mm->backend().post([ptr = caf::actor_cast<caf::strong_actor_ptr>(broker), hdl, done] {
    auto* b = static_cast<caf::io::basp_broker*>(ptr->get());
    if (!b->getf(caf::abstract_actor::is_terminated_flag)) {
      auto& ctx = b->ctx[hdl];
      ctx.hdl = hdl;
      ctx.last_seen = b->home_system().clock().now();
    }
    done->set_value();
  });
  ran.wait_for(budget);
}

struct DialerState {
  caf::io::middleman* mm = nullptr;
  TlsTunnels* tunnels = nullptr;
  std::chrono::milliseconds budget{10000};
  std::string host;
  std::uint16_t port = 0;
  caf::response_promise promise;
};

using DialerActor = caf::stateful_actor<DialerState>;

void finish(DialerActor* self, caf::error e) {
  self->state.promise.deliver(std::move(e));
  self->quit();
}

/// One connection attempt; blocks this (detached) actor's own thread until the server's
/// handshake is there to read, then hands the connection to the BASP broker.
void attempt(DialerActor* self, int attempts_left) {
  auto& st = self->state;
  const std::string where = st.host + ":" + std::to_string(st.port);
  const auto until = Clock::now() + st.budget;
  int fd = -1;
  std::string why;
  if (st.tunnels != nullptr) {
    try {
      fd = st.tunnels->connect(st.host, st.port);
    } catch (const Error& e) {
      why = e.what();
    }
  } else {
    fd = connect_tcp(st.host, st.port, until, &why);
  }
  if (fd < 0)
    return finish(self, caf::make_error(caf::sec::cannot_connect_to_node,
                                        "cannot connect to " + where + ": " + why));
  switch (await_first_bytes(fd, until)) {
    case FirstBytes::arrived:
      break;
    case FirstBytes::closed:
      ::close(fd);
      return finish(self, caf::make_error(caf::sec::cannot_connect_to_node,
                                          where + " closed the connection before its handshake"));
    case FirstBytes::none:
      ::close(fd);
      return finish(self, caf::make_error(caf::sec::connection_timeout,
                                          where + " sent no handshake within " +
                                              std::to_string(st.budget.count()) + " ms"));
  }
  auto scribe = st.mm->backend().new_scribe(fd);
  auto broker = st.mm->named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  if (scribe) seed_last_seen(st.mm, broker, scribe->hdl(), st.budget);
  self->request(broker, st.budget, caf::connect_atom::value, std::move(scribe), st.port)
      .then(
          [self](caf::node_id& nid, caf::strong_actor_ptr& ptr, std::set<std::string>& sigs) {
            self->state.promise.deliver(std::move(nid), std::move(ptr), std::move(sigs));
            self->quit();
          },
          [self, attempts_left](caf::error& e) {
            // The sliver of the race left: a tick queued before the hand-over.
            if (e == caf::sec::connection_timeout && attempts_left > 1)
              return attempt(self, attempts_left - 1);
            finish(self, std::move(e));
          });
}

/// A one-shot dial of `(connect_atom, host, port)`: answers as `dial` does, then ends.
caf::behavior dialer(DialerActor* self, caf::io::middleman* mm, TlsTunnels* tunnels,
                     std::chrono::milliseconds budget) {
  self->state.mm = mm;
  self->state.tunnels = tunnels;
  self->state.budget = budget;
  return {
      [self](caf::connect_atom, const std::string& host, std::uint16_t port) {
        auto& st = self->state;
        st.host = host;
        st.port = port;
        st.promise = self->make_response_promise();
        attempt(self, kAttempts);
        return caf::delegated<caf::node_id, caf::strong_actor_ptr, std::set<std::string>>();
      },
  };
}

/// The runtime's dials, one per `host:port` at a time, as CAF's middleman does them: a dial
/// to an address dialled before answers the node found then until its actor goes down;
/// dials to an address already being dialled wait for that one. (Two connections racing to
/// one node make CAF 0.17.6 keep one as an "alternative route" and purge the node when it
/// closes, losing the replies in flight.)
struct CoordinatorState {
  struct Known {
    caf::node_id node;
    caf::strong_actor_ptr whom;
    std::set<std::string> signatures;
  };
  caf::io::middleman* mm = nullptr;
  TlsTunnels* tunnels = nullptr;
  std::chrono::milliseconds budget{10000};
  std::map<std::string, Known> known;
  std::map<std::string, std::vector<caf::response_promise>> waiting;
  /// How many of `waiting[key]` the dial in flight answers when it fails: those there when
  /// it started. Dials that came later get a dial of their own (the address may have come up
  /// since: a server starting while a peer's dial to it was being refused).
  std::map<std::string, std::size_t> served;
};

using CoordinatorActor = caf::stateful_actor<CoordinatorState>;

/// Answers every dial waiting for `key` with `e`, or when there is none with `node`.
void answer(CoordinatorActor* self, const std::string& key, const caf::error& e,
            const CoordinatorState::Known& node = {}) {
  auto waiters = std::move(self->state.waiting[key]);
  self->state.waiting.erase(key);
  for (auto& w : waiters) {
    if (e)
      w.deliver(e);
    else
      w.deliver(node.node, node.whom, node.signatures);
  }
}

void dial_afresh(CoordinatorActor* self, const std::string& key, const std::string& host,
                 std::uint16_t port) {
  auto& st = self->state;
  st.known.erase(key);
  st.served[key] = st.waiting[key].size();
  auto worker = self->spawn<caf::detached>(dialer, st.mm, st.tunnels, st.budget);
  self->request(worker, caf::infinite, caf::connect_atom::value, host, port)
      .then(
          [self, key](caf::node_id& nid, caf::strong_actor_ptr& ptr, std::set<std::string>& sigs) {
            CoordinatorState::Known node{std::move(nid), std::move(ptr), std::move(sigs)};
            // Kept until it goes down (CAF kills a node's proxies when its connection is
            // lost); nothing published there is not kept.
            if (node.whom) {
              self->monitor(node.whom);
              self->state.known[key] = node;
            }
            self->state.served.erase(key);
            answer(self, key, caf::error{}, node);
          },
          [self, key, host, port](caf::error& e) {
            auto& st = self->state;
            auto& waiters = st.waiting[key];
            const std::size_t n = std::min(st.served[key], waiters.size());
            for (std::size_t i = 0; i < n; ++i) waiters[i].deliver(e);
            waiters.erase(waiters.begin(), waiters.begin() + static_cast<std::ptrdiff_t>(n));
            if (waiters.empty()) {
              st.waiting.erase(key);
              st.served.erase(key);
            } else {
              dial_afresh(self, key, host, port);  // for the dials that joined this one late
            }
          });
}

caf::behavior coordinator(CoordinatorActor* self, caf::io::middleman* mm, TlsTunnels* tunnels,
                          std::chrono::milliseconds budget) {
  self->state.mm = mm;
  self->state.tunnels = tunnels;
  self->state.budget = budget;
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& known = self->state.known;
    for (auto it = known.begin(); it != known.end();)
      it = caf::actor_cast<caf::actor_addr>(it->second.whom) == msg.source ? known.erase(it)
                                                                           : std::next(it);
  });
  return {
      [self](caf::connect_atom, const std::string& host, std::uint16_t port) {
        auto& st = self->state;
        const std::string key = host + ":" + std::to_string(port);
        auto& waiters = st.waiting[key];
        waiters.push_back(self->make_response_promise());
        if (waiters.size() == 1) {  // else answered with the dial in flight
          if (auto known = st.known.find(key); known != st.known.end())
            answer(self, key, caf::error{}, known->second);
          else
            dial_afresh(self, key, host, port);
        }
        return caf::delegated<caf::node_id, caf::strong_actor_ptr, std::set<std::string>>();
      },
  };
}

}  // namespace

std::pair<caf::actor, caf::message> dial(Runtime& runtime, const std::string& host,
                                         std::uint16_t port) {
  auto who = runtime.service("basp_dial", [&runtime](caf::actor_system& sys) {
    const int timeout_ms = runtime.options().connection_timeout_ms;
    const std::chrono::milliseconds budget(timeout_ms > 0 ? timeout_ms : 10000);
    return sys.spawn<caf::hidden>(coordinator, &sys.middleman(), tls_tunnels(runtime), budget);
  });
  return {who, caf::make_message(caf::connect_atom::value, host, port)};
}

}  // namespace af::net
