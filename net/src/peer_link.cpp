// The links between tasks (peer_link.hpp) and the routing of the step protocol's traffic
// between tasks: what leaves for another task, and what arrives on this task's push port.
#include "peer_link.hpp"

#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/actors/detail/wire_types.hpp"
#include "cluster.hpp"
#include "wire.hpp"

namespace af::net {

// -- PeerLink --------------------------------------------------------------------------------

PeerLink::PeerLink(std::string task, worker_service_handle worker,
                   std::shared_ptr<TensorPushClient> push, Routes& routes)
    : task_(std::move(task)), worker_(std::move(worker)), push_(std::move(push)), routes_(routes) {}

void PeerLink::tensor(std::int64_t step_id, const std::string& key, const Tensor& value) {
  // Numeric host tensors take the push channel when the link has one; CAF carries the rest,
  // and these too when the channel fails.
  if (push_ && value.is_initialized() && value.dtype() != DType::string &&
      value.dtype() != DType::resource && !value.on_device() &&
      value.total_bytes() >= kPushMinBytes)
    if (std::size_t bytes = push_->send(step_id, key, value); bytes > 0)
      return routes_.count_sent(task_, bytes);
  auto blob = encode_tensor(value);
  routes_.count_sent(task_, blob.size());
  caf::anon_send(worker_, worker_tensor_atom::value, step_id, key, std::move(blob));
}

void PeerLink::tensor_encoded(const caf::actor& from, std::int64_t step_id, const std::string& key,
                              std::string blob) {
  routes_.count_sent(task_, blob.size());
  caf::send_as(from, worker_, worker_tensor_atom::value, step_id, key, std::move(blob));
}

bool PeerLink::push(std::int64_t step_id, PushKind kind,
                    const std::vector<std::string_view>& pieces) {
  if (!push_) return false;
  const std::size_t bytes = push_->send_control(step_id, kind, pieces);
  if (bytes == 0) return false;
  routes_.count_sent(task_, bytes);
  return true;
}

void PeerLink::cancel(const caf::actor& from, std::int64_t step_id, const Status& why,
                      bool after_pushed_run) {
  if (after_pushed_run) {
    WireWriter out;
    out.error(why);
    const std::string payload = out.take();
    if (push(step_id, PushKind::cancel, {payload})) return;
  }
  // Over CAF after a run that went over CAF: the same connection keeps them in order.
  caf::send_as(from, worker_, worker_cancel_atom::value, step_id, detail::to_wire(why));
}

void PeerLink::cleanup(const caf::actor& from, std::int64_t step_id) {
  // Over the push channel when the link has one (no wake-up of CAF's multiplexers).
  if (!push(step_id, PushKind::cleanup, {}))
    caf::send_as(from, worker_, worker_cleanup_atom::value, step_id);
}

// -- routing ---------------------------------------------------------------------------------

std::string task_of_device(const std::string& device) {
  auto pos = device.find("/device:");
  return pos == std::string::npos ? std::string() : device.substr(0, pos);
}

std::string destination_task(const std::string& key) {
  auto first = key.find(';');
  if (first == std::string::npos) return {};
  auto second = key.find(';', first + 1);
  if (second == std::string::npos) return {};
  return task_of_device(key.substr(first + 1, second - first - 1));
}

std::string source_task(const std::string& key) {
  auto semi = key.find(';');
  return semi == std::string::npos ? std::string() : task_of_device(key.substr(0, semi));
}

bool route_tensor(const Routes& routes, const std::string& local_task, std::int64_t step_id,
                  const std::string& key, const Tensor& value) {
  auto dst = destination_task(key);
  if (dst.empty() || dst == local_task) return false;
  if (auto link = routes.link(dst)) link->tensor(step_id, key, value);
  return true;
}

void deliver_tensor(Routes& routes, const detail::rendezvous_handle& rendezvous,
                    std::int64_t step_id, std::string key, Tensor value, std::size_t frame_bytes) {
  if (auto source = source_task(key); !source.empty()) routes.count_received(source, frame_bytes);
  caf::anon_send(rendezvous, detail::send_atom::value, step_id, std::move(key), std::move(value));
}

void deliver_pushed(Routes& routes, const detail::rendezvous_handle& rendezvous,
                    const worker_service_handle& worker_service, TensorPushServer::Frame frame) {
  routes.count_pushed(frame.kind != PushKind::tensor);
  const auto frame_bytes = static_cast<std::uint64_t>(frame.frame_bytes);
  switch (frame.kind) {
    case PushKind::tensor:
      return deliver_tensor(routes, rendezvous, frame.step_id, std::move(frame.key),
                            std::move(frame.value), frame.frame_bytes);
    case PushKind::run:
      return caf::anon_send(worker_service, worker_push_run_atom::value, frame.step_id,
                            std::move(frame.payload), frame_bytes);
    case PushKind::cancel: {
      WireReader in(frame.payload, "push cancel");
      Status why;
      if (in.error(&why) && in.at_end())
        caf::anon_send(worker_service, worker_cancel_atom::value, frame.step_id,
                       detail::to_wire(why));
      return;
    }
    case PushKind::cleanup:
      return caf::anon_send(worker_service, worker_cleanup_atom::value, frame.step_id);
    case PushKind::reply: {
      std::uint64_t id = 0;
      if (WireReader(frame.payload, "push reply").u64(&id))
        // None: a reply nobody waits for (its task went down).
        if (auto proxy = routes.take_reply(id))
          caf::anon_send(proxy, worker_push_reply_atom::value, id, std::move(frame.payload),
                         frame_bytes);
      return;
    }
  }
}

}  // namespace af::net
