// The queue actor: owns a QueueCore, answers calls, enforces deadlines on its side (an
// expired attempt is cancelled by the queue itself, so it never takes an element) and
// fails its waiters with Cancelled when it quits.
#include <caf/all.hpp>

#include "actorflow/queues/queue_handle.hpp"
#include "queue_resource.hpp"

namespace af::detail {

namespace {

struct QueueActorState {
  std::unique_ptr<QueueCore> core;
  std::shared_ptr<QueueInbox> inbox;
  std::vector<QueueInboxItem> taken;  ///< the drained items (its capacity is reused)
  static inline const char* name = "af.queue";

  ~QueueActorState() {
    if (!inbox) return;
    std::vector<QueueInboxItem> left;
    {
      std::lock_guard<std::mutex> lock(inbox->mu);
      inbox->closed = true;
      left.swap(inbox->items);
    }
    // Calls never handled die here: their replies fire Cancelled.
  }
};
using QueueActor = caf::stateful_actor<QueueActorState>;

void handle_call(QueueActor* self, QueueCall& call) {
  auto& core = *self->state.core;
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
    case QueueCall::Kind::close: core.close(call.id, false, reply); break;
    case QueueCall::Kind::close_cancel: core.close(call.id, true, reply); break;
    case QueueCall::Kind::size:
      return reply({Status(), {Tensor(static_cast<std::int32_t>(core.size()))}});
    case QueueCall::Kind::is_closed: return reply({Status(), {Tensor(core.is_closed())}});
    case QueueCall::Kind::stats:
      return reply({Status(),
                    {Tensor::from_vector<std::int64_t>({core.size(), static_cast<std::int64_t>(core.pending_enqueues()),
                                                        static_cast<std::int64_t>(core.pending_dequeues()),
                                                        core.is_closed() ? 1 : 0})}});
  }
  if (waits && timed && !call.reply->fired()) {
    // Still pending: the queue itself ends the attempt at the deadline.
    auto left = call.deadline - std::chrono::steady_clock::now();
    auto delay = std::max(std::chrono::duration_cast<std::chrono::microseconds>(left),
                          std::chrono::microseconds(0));
    self->delayed_send(self, delay, queue_deadline_atom::value, call.id, std::move(call.what));
  }
}

/// Handles everything in the inbox, in order.
void drain(QueueActor* self) {
  auto& st = self->state;
  st.taken.clear();
  {
    std::lock_guard<std::mutex> lock(st.inbox->mu);
    st.taken.swap(st.inbox->items);
    st.inbox->drain_sent = false;
  }
  for (auto& item : st.taken) {
    if (auto* call = std::get_if<QueueCall>(&item))
      handle_call(self, *call);
    else if (auto* c = std::get_if<QueueCancel>(&item))
      st.core->cancel(c->id, c->why);
    else
      st.core->restore(std::get<QueueRestore>(item).components, std::get<QueueRestore>(item).many);
  }
  st.taken.clear();
}

caf::behavior queue_actor(QueueActor* self, QueueSpec spec, std::shared_ptr<QueueInbox> inbox) {
  self->state.core = std::make_unique<QueueCore>(std::move(spec));
  self->state.inbox = std::move(inbox);
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.core->fail_all(cancelled("Queue '" + self->state.core->name() + "' was destroyed"));
    self->quit(msg.reason);
  });
  return {
      [self](queue_drain_atom) { drain(self); },
      [self](queue_deadline_atom, std::uint64_t id, const std::string& what) {
        auto& core = *self->state.core;
        core.cancel(id, deadline_exceeded("Timed out waiting for notification: " +
                                          (what.empty() ? std::string("operation") : what) +
                                          " on " + std::string(queue_kind_name(core.spec().kind)) +
                                          " '" + core.name() + "' exceeded its deadline"));
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
        call.reply = make_reply([rp](QueueReply r) mutable {
          if (r.status.ok())
            rp.deliver(std::move(r.components));
          else
            rp.deliver(to_caf_error(r.status));
        });
        handle_call(self, call);
        return rp;
      },
  };
}

}  // namespace

std::uint64_t next_queue_call_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

QueueResource::QueueResource(caf::actor_system& sys, QueueSpec spec)
    : spec_(std::move(spec)), inbox_(std::make_shared<QueueInbox>()) {
  actor_ = sys.spawn(queue_actor, spec_, inbox_);
}

QueueResource::~QueueResource() { caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown); }

std::string QueueResource::debug_string() const {
  return std::string(queue_kind_name(spec_.kind)) + " '" + spec_.name + "'";
}

void QueueResource::push(QueueInboxItem item) const {
  bool send = false;
  {
    std::lock_guard<std::mutex> lock(inbox_->mu);
    if (!inbox_->closed) {
      inbox_->items.push_back(std::move(item));
      send = !std::exchange(inbox_->drain_sent, true);
    }
  }
  // A closed inbox drops `item` here: a call's reply fires Cancelled.
  if (send) caf::anon_send(actor_, queue_drain_atom::value);
}

void QueueResource::call(QueueCall call) const { push(std::move(call)); }

void QueueResource::cancel(std::uint64_t id, const Status& why) const { push(QueueCancel{id, why}); }

void QueueResource::restore(Tuple components, bool many) const {
  push(QueueRestore{std::move(components), many});
}

Status QueueResource::matches(const QueueSpec& r) const {
  std::string q = "Shared queue '" + spec_.name + "'";
  if (r.kind != spec_.kind)
    return invalid_argument(q + " has type '" + std::string(queue_kind_name(spec_.kind)) +
                            "' that does not match the requested type '" +
                            std::string(queue_kind_name(r.kind)) + "'");
  auto cap = [](std::int64_t c) { return c < 0 ? std::int64_t{-1} : c; };
  if (cap(r.capacity) != cap(spec_.capacity))
    return invalid_argument(q + " has capacity " + std::to_string(cap(spec_.capacity)) +
                            " but requested capacity was " + std::to_string(cap(r.capacity)));
  if (r.dtypes != spec_.dtypes) {
    auto list = [](const std::vector<DType>& ts) {
      std::string s;
      for (auto t : ts) s += (s.empty() ? "" : ", ") + std::string(data_type_string(t));
      return s;
    };
    return invalid_argument(q + " has component types " + list(spec_.dtypes) +
                            " but requested component types were " + list(r.dtypes));
  }
  if (r.shapes != spec_.shapes) {
    auto list = [](const std::vector<PartialShape>& ss) {
      std::string s = "[";
      for (std::size_t i = 0; i < ss.size(); ++i) s += (i ? ", " : "") + ss[i].to_string();
      return s + "]";
    };
    return invalid_argument(q + " has component shapes " + list(spec_.shapes) +
                            " but requested component shapes were " + list(r.shapes));
  }
  if (r.kind == QueueKind::random_shuffle && r.min_after_dequeue != spec_.min_after_dequeue)
    return invalid_argument(q + " has min_after_dequeue " + std::to_string(spec_.min_after_dequeue) +
                            " but requested min_after_dequeue was " +
                            std::to_string(r.min_after_dequeue));
  return {};
}

Status lookup_or_create_queue(ResourceMgr& mgr, caf::actor_system& sys, const std::string& container,
                              const std::string& shared_name, const QueueSpec& spec,
                              std::shared_ptr<QueueResource>* out) {
  bool created = false;
  ACTORFLOW_RETURN_IF_ERROR(mgr.lookup_or_create<QueueResource>(
      container, shared_name, out, [&](std::shared_ptr<QueueResource>* q) -> Status {
        ACTORFLOW_RETURN_IF_ERROR(spec.validate());
        *q = std::make_shared<QueueResource>(sys, spec);
        created = true;
        return {};
      }));
  if (!created) return (*out)->matches(spec);
  return {};
}

}  // namespace af::detail
