// The queue actor: owns a QueueCore, answers calls, enforces deadlines on its side (an
// expired attempt is cancelled by the queue itself, so it never takes an element) and
// fails its waiters with Cancelled when it quits.
#include <caf/all.hpp>
#include <limits>
#include <map>

#include "actorflow/queues/queue_handle.hpp"
#include "queue_resource.hpp"

namespace af::detail {

namespace {

using queue_reply_atom = caf::atom_constant<caf::atom("q_reply")>;

/// The inbox a thread is draining right now (a reply callback that pushes to a queue never
/// drains again underneath it).
thread_local const QueueInbox* draining_here = nullptr;

/// Runs one call on the core (the caller drains `box`). Attempts with a deadline that are
/// still pending get a timer message to the queue actor, which comes back as a cancel.
void handle_call(QueueInbox& box, const caf::actor& actor, QueueCall& call) {
  auto& core = *box.core;
  ReplyFn reply(call.reply);
  const bool timed = call.deadline != std::chrono::steady_clock::time_point::max();
  bool waits = false;
  switch (call.kind) {
    case QueueCall::Kind::enqueue: {
      Status s = core.validate_tuple(call.components);
      if (!s.ok()) return reply({s, {}});
      core.enqueue(call.id, std::move(call.components), reply);
      waits = true;
      break;
    }
    case QueueCall::Kind::enqueue_many: {
      Status s = core.validate_many_tuple(call.components);
      if (!s.ok()) return reply({s, {}});
      core.enqueue_many(call.id, std::move(call.components), reply);
      waits = true;
      break;
    }
    case QueueCall::Kind::dequeue:
      core.dequeue(call.id, reply);
      waits = true;
      break;
    case QueueCall::Kind::dequeue_many:
    case QueueCall::Kind::dequeue_up_to:
      core.dequeue_many(call.id, call.n, call.kind == QueueCall::Kind::dequeue_up_to, reply);
      waits = true;
      break;
    case QueueCall::Kind::close:
      core.close(call.id, false, reply);
      break;
    case QueueCall::Kind::close_cancel:
      core.close(call.id, true, reply);
      break;
    case QueueCall::Kind::size:
      return reply({Status(), {Tensor(static_cast<std::int32_t>(core.size()))}});
    case QueueCall::Kind::is_closed:
      return reply({Status(), {Tensor(core.is_closed())}});
    case QueueCall::Kind::stats:
      return reply(
          {Status(),
           {Tensor::from_vector<std::int64_t>(
               {core.size(), static_cast<std::int64_t>(core.pending_enqueues()),
                static_cast<std::int64_t>(core.pending_dequeues()), core.is_closed() ? 1 : 0})}});
  }
  if (waits && timed && !call.reply->fired() && actor) {
    // Still pending: the queue itself ends the attempt at the deadline.
    auto left = call.deadline - std::chrono::steady_clock::now();
    auto delay = std::max(std::chrono::duration_cast<std::chrono::microseconds>(left),
                          std::chrono::microseconds(0));
    caf::delayed_anon_send(actor, delay, queue_deadline_atom::value, call.id, std::move(call.what));
  }
}

/// Runs the inbox's items until none is left, the queue closed or `max_rounds` batches
/// were run (then the actor is asked to go on: a host thread does not serve others for
/// long). The caller has set `box.draining`; this clears it.
void drain_loop(QueueInbox& box, int max_rounds, bool first_batch_taken = false,
                caf::actor first_actor = {}) {
  const QueueInbox* outer = std::exchange(draining_here, &box);
  for (int round = 0;; ++round) {
    caf::actor actor;
    bool stop = false, hand_over = false;
    if (round == 0 && first_batch_taken) {
      actor = std::move(first_actor);  // the caller took the first batch under its lock
    } else {
      std::lock_guard<std::mutex> lock(box.mu);
      actor = box.actor;
      if (box.items.empty() || box.closed || round == max_rounds) {
        stop = true;
        hand_over = !box.items.empty() && !box.closed && !box.drain_sent && actor;
        if (hand_over) box.drain_sent = true;
        box.draining = false;
        box.idle.notify_all();
      } else {
        box.taken.swap(box.items);
      }
    }
    if (stop) {
      if (hand_over) caf::anon_send(actor, queue_drain_atom::value);
      break;
    }
    for (auto& item : box.taken) {
      if (auto* call = std::get_if<QueueCall>(&item))
        handle_call(box, actor, *call);
      else if (auto* c = std::get_if<QueueCancel>(&item))
        box.core->cancel(c->id, c->why);
      else
        box.core->restore(std::get<QueueRestore>(item).components,
                          std::get<QueueRestore>(item).many);
    }
    box.taken.clear();
  }
  draining_here = outer;
}

/// Takes the drainer's role if nobody has it (and unlocks); returns whether the caller got
/// it. With `take_batch`, also takes the items pushed so far into `box.taken` (and the actor
/// handle into `*actor`), saving `drain_loop` a round of locking.
bool take_drain(QueueInbox& box, std::unique_lock<std::mutex>& lock, bool take_batch = false,
                caf::actor* actor = nullptr) {
  if (box.draining || box.closed) return false;
  box.draining = true;
  if (take_batch) {
    box.taken.swap(box.items);
    *actor = box.actor;
  }
  lock.unlock();
  return true;
}

/// Closes the queue for good: no more pushes or drains; waits for a drainer to finish its
/// batch, then fails every waiter with `why` and frees the core. Any thread; idempotent.
void shut_down(QueueInbox& box, const Status& why) {
  std::vector<QueueInboxItem> dropped;
  std::unique_ptr<QueueCore> core;
  {
    std::unique_lock<std::mutex> lock(box.mu);
    box.closed = true;
    box.actor = caf::actor();  // breaks the actor <-> inbox cycle
    dropped.swap(box.items);
    box.idle.wait(lock, [&] { return !box.draining; });
    core = std::move(box.core);
  }
  if (core) core->fail_all(why);
  // `dropped` goes here: calls never handled fire Cancelled.
}

struct QueueActorState {
  std::shared_ptr<QueueInbox> inbox;
  /// Remote requests in flight (queue_request_atom), answered from inside the actor.
  std::map<std::uint64_t, caf::response_promise> requests;
  static inline const char* name = "af.queue";

  ~QueueActorState() {
    if (inbox) shut_down(*inbox, cancelled("the queue was closed down before it answered"));
  }
};
using QueueActor = caf::stateful_actor<QueueActorState>;

caf::behavior queue_actor(QueueActor* self, std::shared_ptr<QueueInbox> inbox) {
  self->state.inbox = std::move(inbox);
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& box = *self->state.inbox;
    std::string name;
    {
      std::lock_guard<std::mutex> lock(box.mu);
      if (box.core) name = box.core->name();
    }
    shut_down(box, cancelled("Queue '" + name + "' was destroyed"));
    self->quit(msg.reason);
  });
  return {
      [self](queue_drain_atom) {
        auto& box = *self->state.inbox;
        std::unique_lock<std::mutex> lock(box.mu);
        box.drain_sent = false;
        if (take_drain(box, lock)) drain_loop(box, std::numeric_limits<int>::max());
      },
      [self](queue_deadline_atom, std::uint64_t id, const std::string& what) {
        auto& box = *self->state.inbox;
        std::string queue;
        {
          std::lock_guard<std::mutex> lock(box.mu);
          if (!box.core) return;
          queue =
              std::string(queue_kind_name(box.core->spec().kind)) + " '" + box.core->name() + "'";
        }
        push_to_inbox(
            box,
            QueueCancel{id, deadline_exceeded("Timed out waiting for notification: " +
                                              (what.empty() ? std::string("operation") : what) +
                                              " on " + queue + " exceeded its deadline")},
            /*drain_here=*/true);
      },
      [self](queue_request_atom, QueueOp op, Tuple& components, std::int64_t n,
             std::int64_t timeout_ms) -> caf::result<Tuple> {
        auto rp = self->make_response_promise<Tuple>();
        QueueCall call;
        call.kind = static_cast<QueueCall::Kind>(static_cast<std::uint8_t>(op));
        call.id = next_queue_call_id();
        call.components = std::move(components);
        call.n = n;
        if (timeout_ms >= 0)
          call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        call.what = "a request";
        // The reply may fire on whichever thread drains: it comes back here to be delivered.
        self->state.requests.emplace(call.id, rp);
        caf::actor me = caf::actor_cast<caf::actor>(self);
        call.reply = make_reply([me, id = call.id](QueueReply r) {
          caf::anon_send(me, queue_reply_atom::value, id, std::move(r));
        });
        push_to_inbox(*self->state.inbox, std::move(call), /*drain_here=*/true);
        return rp;
      },
      [self](queue_reply_atom, std::uint64_t id, QueueReply& r) {
        auto it = self->state.requests.find(id);
        if (it == self->state.requests.end()) return;
        if (r.status.ok())
          it->second.deliver(std::move(r.components));
        else
          it->second.deliver(to_caf_error(r.status));
        self->state.requests.erase(it);
      },
  };
}

}  // namespace

std::uint64_t next_queue_call_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void push_to_inbox(QueueInbox& box, QueueInboxItem item, bool drain_here) {
  caf::actor send_to;
  {
    std::unique_lock<std::mutex> lock(box.mu);
    if (box.closed) return;  // `item` is dropped on return: a call's reply fires Cancelled
    box.items.push_back(std::move(item));
    if (box.draining || box.drain_sent) return;  // the drainer or the actor takes it
    if (drain_here && draining_here == nullptr) {
      caf::actor actor;
      if (take_drain(box, lock, /*take_batch=*/true, &actor))
        drain_loop(box, kQueueHostDrainRounds, /*first_batch_taken=*/true, std::move(actor));
      return;
    }
    box.drain_sent = true;
    send_to = box.actor;
  }
  caf::anon_send(send_to, queue_drain_atom::value);
}

caf::actor spawn_queue_actor(caf::actor_system& sys, std::shared_ptr<QueueInbox> inbox) {
  return sys.spawn(queue_actor, std::move(inbox));
}

}  // namespace af::detail
