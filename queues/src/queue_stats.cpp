#include "actorflow/queues/queue_stats.hpp"

#include <future>

#include "queue_resource.hpp"

namespace af {

std::vector<QueueStats> queue_stats(const ResourceMgr& resources,
                                    std::chrono::milliseconds timeout) {
  std::vector<QueueStats> out;
  for (const auto& [container, name, description] : resources.list()) {
    std::shared_ptr<detail::QueueResource> queue;
    if (!resources.lookup(container, name, &queue).ok() || !queue) continue;
    auto answer = std::make_shared<std::promise<detail::QueueReply>>();
    auto result = answer->get_future();
    detail::QueueCall call;
    call.kind = detail::QueueCall::Kind::stats;
    call.id = detail::next_queue_call_id();
    call.reply =
        detail::make_reply([answer](detail::QueueReply r) { answer->set_value(std::move(r)); });
    queue->call(std::move(call));
    if (result.wait_for(timeout) != std::future_status::ready) continue;
    auto reply = result.get();
    if (!reply.status.ok() || reply.components.empty() || reply.components[0].num_elements() != 4)
      continue;
    auto v = reply.components[0].to_vector<std::int64_t>();
    QueueStats s;
    s.container = container;
    s.name = name;
    s.kind = std::string(queue_kind_name(queue->spec().kind));
    s.size = v[0];
    s.capacity = queue->spec().capacity;
    s.pending_enqueues = v[1];
    s.pending_dequeues = v[2];
    s.closed = v[3] != 0;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace af
