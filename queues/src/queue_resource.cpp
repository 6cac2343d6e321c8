// QueueResource: a queue as a resource of a device's ResourceMgr (shared by name), the
// handle its kernels and host handles use to reach the queue's inbox and actor.
#include "queue_resource.hpp"

#include <caf/all.hpp>

#include "actorflow/ops/errors.hpp"

namespace af::detail {

QueueResource::QueueResource(caf::actor_system& sys, QueueSpec spec)
    : spec_(std::move(spec)), inbox_(std::make_shared<QueueInbox>()) {
  inbox_->core = std::make_unique<QueueCore>(spec_);
  actor_ = spawn_queue_actor(sys, inbox_);
  std::lock_guard<std::mutex> lock(inbox_->mu);
  inbox_->actor = actor_;
}

QueueResource::~QueueResource() { caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown); }

std::string QueueResource::debug_string() const {
  return std::string(queue_kind_name(spec_.kind)) + " '" + spec_.name + "'";
}

void QueueResource::note_producer(const std::string& task) {
  constexpr std::size_t kRemembered = 4;
  std::lock_guard<std::mutex> lock(producers_mu_);
  if (!producers_.empty() && producers_.front() == task) return;
  std::erase(producers_, task);
  producers_.insert(producers_.begin(), task);
  if (producers_.size() > kRemembered) producers_.pop_back();
}

std::string QueueResource::waiting_for() const {
  std::lock_guard<std::mutex> lock(producers_mu_);
  if (producers_.empty()) return "an element; nobody has enqueued yet";
  std::string who;
  for (const auto& p : producers_)
    who += (who.empty() ? "" : ", ") + (p.empty() ? std::string("this task") : p);
  return "an element; last enqueued by " + who;
}

void QueueResource::push(QueueInboxItem item, bool drain_here) const {
  push_to_inbox(*inbox_, std::move(item), drain_here);
}

void QueueResource::call(QueueCall call, bool drain_here) const {
  push(std::move(call), drain_here);
}

void QueueResource::cancel(std::uint64_t id, const Status& why, bool drain_here) const {
  push(QueueCancel{id, why}, drain_here);
}

void QueueResource::restore(Tuple components, bool many, bool drain_here) const {
  push(QueueRestore{std::move(components), many}, drain_here);
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
  // Seeds are compared unless the request leaves them to the graph (0, 0), as
  // RandomShuffleQueue::MatchesNodeDef does.
  if (r.kind == QueueKind::random_shuffle && (r.seed != 0 || r.seed2 != 0) &&
      (r.seed != spec_.seed || r.seed2 != spec_.seed2))
    return invalid_argument(q + " has random seeds (" + std::to_string(spec_.seed) + ", " +
                            std::to_string(spec_.seed2) + ") but requested seeds are (" +
                            std::to_string(r.seed) + ", " + std::to_string(r.seed2) + ").");
  if (r.kind == QueueKind::random_shuffle && r.min_after_dequeue != spec_.min_after_dequeue)
    return invalid_argument(
        q + " has min_after_dequeue " + std::to_string(spec_.min_after_dequeue) +
        " but requested min_after_dequeue was " + std::to_string(r.min_after_dequeue));
  return {};
}

Status lookup_or_create_queue(ResourceMgr& mgr, caf::actor_system& sys,
                              const std::string& container, const std::string& shared_name,
                              const QueueSpec& spec, std::shared_ptr<QueueResource>* out) {
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
