// Host access to queue actors.
#include "actorflow/queues/queue_handle.hpp"

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>

#include "actorflow/ops/errors.hpp"
#include "actorflow/queues/queues.hpp"
#include "queue_resource.hpp"

namespace af {

namespace {

detail::QueueCall::Kind kind_of(QueueOp op) {
  return static_cast<detail::QueueCall::Kind>(static_cast<std::uint8_t>(op));
}

/// A host call of `op`; the caller sets `reply`.
detail::QueueCall host_call(QueueOp op, std::vector<Tensor> components, std::int64_t n,
                            QueueHandle::Timeout timeout, const char* what) {
  detail::QueueCall call;
  call.kind = kind_of(op);
  call.id = detail::next_queue_call_id();
  call.components = std::move(components);
  call.n = n;
  if (timeout) call.deadline = std::chrono::steady_clock::now() + *timeout;
  call.what = what;
  return call;
}

}  // namespace

QueueHandle QueueHandle::open(const QueueSpec& spec, const QueueHandleOptions& options) {
  register_queue_ops();
  Runtime& runtime = options.runtime ? *options.runtime : Runtime::global();
  if (spec.name.empty())
    throw InvalidArgumentError(
        invalid_argument("QueueHandle::open needs the queue's shared name in spec.name"));
  auto mgr = runtime.shared_resource_mgr(options.device);
  QueueHandle h;
  throw_if_error(detail::lookup_or_create_queue(*mgr, runtime.system(), options.container,
                                                spec.name, spec, &h.queue_));
  return h;
}

void QueueHandle::async(QueueOp op, std::vector<Tensor> components, std::int64_t n, Timeout timeout,
                        std::function<void(Status, std::vector<Tensor>)> done) const {
  if (!queue_) return done(failed_precondition("QueueHandle is empty"), {});
  auto call = host_call(op, std::move(components), n, timeout, "a host call");
  call.reply = detail::make_reply([done = std::move(done)](detail::QueueReply r) {
    done(std::move(r.status), std::move(r.components));
  });
  queue_->call(std::move(call));
}

std::vector<Tensor> QueueHandle::call(QueueOp op, std::vector<Tensor> components, std::int64_t n,
                                      Timeout timeout) const {
  if (!queue_) throw FailedPreconditionError(failed_precondition("QueueHandle is empty"));
  // The caller's frame holds the outcome; the reply fires exactly once before we return.
  struct Waiter {
    detail::AdaptiveMutex mu;
    std::condition_variable cv;
    std::optional<detail::QueueReply> reply;
  } w;
  auto call = host_call(op, std::move(components), n, timeout, "a host call");
  call.reply = detail::make_reply([&w](detail::QueueReply r) {
    std::lock_guard<std::mutex> lock(w.mu);
    w.reply = std::move(r);
    w.cv.notify_one();
  });
  queue_->call(std::move(call), /*drain_here=*/true);
  std::unique_lock<std::mutex> lock(w.mu);
  w.cv.wait(lock, [&] { return w.reply.has_value(); });
  throw_if_error(w.reply->status);
  return std::move(w.reply->components);
}

void QueueHandle::enqueue(std::vector<Tensor> element, Timeout timeout) const {
  call(QueueOp::enqueue, std::move(element), 0, timeout);
}
void QueueHandle::enqueue_many(std::vector<Tensor> batch, Timeout timeout) const {
  call(QueueOp::enqueue_many, std::move(batch), 0, timeout);
}
std::vector<Tensor> QueueHandle::dequeue(Timeout timeout) const {
  return call(QueueOp::dequeue, {}, 1, timeout);
}
std::vector<Tensor> QueueHandle::dequeue_many(std::int64_t n, Timeout timeout) const {
  return call(QueueOp::dequeue_many, {}, n, timeout);
}
std::vector<Tensor> QueueHandle::dequeue_up_to(std::int64_t n, Timeout timeout) const {
  return call(QueueOp::dequeue_up_to, {}, n, timeout);
}
void QueueHandle::close(bool cancel_pending_enqueues) const {
  call(cancel_pending_enqueues ? QueueOp::close_cancel_pending : QueueOp::close, {}, 0, {});
}
std::int64_t QueueHandle::size() const {
  return call(QueueOp::size, {}, 0, {}).at(0).scalar<std::int32_t>();
}
bool QueueHandle::is_closed() const {
  return call(QueueOp::is_closed, {}, 0, {}).at(0).scalar<bool>();
}

const QueueSpec& QueueHandle::spec() const {
  if (!queue_) throw FailedPreconditionError(failed_precondition("QueueHandle is empty"));
  return queue_->spec();
}

caf::actor QueueHandle::actor() const { return queue_ ? queue_->actor() : caf::actor(); }

// -- pipelined host calls ---------------------------------------------------------------------

namespace detail {

/// What a producer or consumer shares with the queue actor's callbacks.
struct PipeState {
  AdaptiveMutex mu;
  std::condition_variable cv;
  std::size_t in_flight = 0;
  bool waiting = false;  ///< the host thread sleeps on `cv` (notify only then)
  Status error;          ///< producer: the first failure
  /// Consumer: replies of the requests not yet taken, by sequence number from `base`.
  std::deque<std::optional<QueueReply>> replies;
  std::uint64_t base = 0;  ///< sequence number of `replies.front()`

  /// Waits (lock held) until `ready()`.
  template <class F>
  void wait(std::unique_lock<std::mutex>& lock, F ready) {
    while (!ready()) {
      waiting = true;
      cv.wait(lock);
      waiting = false;
    }
  }
  /// A producer's request completed: wakes the producer once the window has drained to
  /// `wake_at` (so it refills the window in one go instead of waking per completion).
  void sent_done() {
    --in_flight;
    if (waiting && in_flight <= wake_at) cv.notify_one();
  }
  /// A consumer's request `index` (from `base`) completed: wakes the consumer only if it
  /// waits for that one (or for all of them).
  void reply_done(std::size_t index) {
    --in_flight;
    if (waiting && (index == 0 || in_flight == 0)) cv.notify_one();
  }
  std::size_t wake_at = 0;
};

}  // namespace detail

QueueProducer::QueueProducer(QueueHandle queue, std::size_t window)
    : queue_(std::move(queue)),
      window_(std::max<std::size_t>(window, 1)),
      state_(std::make_shared<detail::PipeState>()) {
  if (!queue_)
    throw FailedPreconditionError(failed_precondition("QueueProducer needs an open QueueHandle"));
}

QueueProducer::~QueueProducer() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->wake_at = 0;
  state_->wait(lock, [&] { return state_->in_flight == 0; });
}

void QueueProducer::send(QueueOp op, std::vector<Tensor> components) {
  Status earlier;
  {
    std::unique_lock<std::mutex> lock(state_->mu);
    if (state_->in_flight >= window_) {
      state_->wake_at = window_ / 2;
      state_->wait(lock, [&] { return state_->in_flight <= window_ / 2; });
    }
    earlier = std::exchange(state_->error, Status());
    ++state_->in_flight;
  }
  auto call = host_call(op, std::move(components), 0, {}, "a producer");
  call.reply = detail::make_reply([state = state_](detail::QueueReply r) {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!r.status.ok() && state->error.ok()) state->error = std::move(r.status);
    state->sent_done();
  });
  queue_.queue_->call(std::move(call), /*drain_here=*/true);
  // An earlier request's error is reported after this request is on its way: the caller's
  // batch is never dropped because of someone else's failure.
  throw_if_error(earlier);
}

void QueueProducer::enqueue(std::vector<Tensor> element) {
  send(QueueOp::enqueue, std::move(element));
}
void QueueProducer::enqueue_many(std::vector<Tensor> batch) {
  send(QueueOp::enqueue_many, std::move(batch));
}

void QueueProducer::flush() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->wake_at = 0;
  state_->wait(lock, [&] { return state_->in_flight == 0; });
  if (!state_->error.ok()) throw_if_error(std::exchange(state_->error, Status()));
}

QueueConsumer::QueueConsumer(QueueHandle queue, std::int64_t n, std::size_t window, bool up_to)
    : queue_(std::move(queue)),
      n_(n),
      window_(std::max<std::size_t>(window, 1)),
      up_to_(up_to),
      state_(std::make_shared<detail::PipeState>()) {
  if (!queue_)
    throw FailedPreconditionError(failed_precondition("QueueConsumer needs an open QueueHandle"));
  if (n < 0)
    throw InvalidArgumentError(
        invalid_argument("QueueConsumer: batch size " + std::to_string(n) + " < 0"));
}

void QueueConsumer::top_up() {
  while (!ended_ && ids_.size() < window_) {
    const std::uint64_t seq = next_seq_++;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->replies.emplace_back();
      ++state_->in_flight;
    }
    auto call = host_call(up_to_ ? QueueOp::dequeue_up_to : QueueOp::dequeue_many, {}, n_, {},
                          "a consumer");
    call.reply = detail::make_reply([state = state_, seq](detail::QueueReply r) {
      std::lock_guard<std::mutex> lock(state->mu);
      const auto index = static_cast<std::size_t>(seq - state->base);
      state->replies[index] = std::move(r);
      state->reply_done(index);
    });
    ids_.push_back(call.id);
    queue_.queue_->call(std::move(call), /*drain_here=*/true);
  }
}

std::vector<Tensor> QueueConsumer::next() {
  top_up();
  detail::QueueReply reply;
  {
    std::unique_lock<std::mutex> lock(state_->mu);
    if (state_->replies.empty())  // ended, every reply taken: the queue stays at its end
      throw OutOfRangeError(out_of_range("QueueConsumer: the queue '" + queue_.spec().name +
                                         "' has ended (an earlier request failed)"));
    state_->wait(lock, [&] { return state_->replies.front().has_value(); });
    reply = std::move(*state_->replies.front());
    state_->replies.pop_front();
    ++state_->base;
  }
  ids_.pop_front();
  if (!reply.status.ok()) {
    ended_ = true;
    throw_if_error(reply.status);
  }
  top_up();
  return std::move(reply.components);
}

QueueConsumer::~QueueConsumer() {
  std::unique_lock<std::mutex> lock(state_->mu);
  // Requests still waiting are cancelled (they give back what they reserved) ...
  for (std::size_t i = 0; i < ids_.size(); ++i)
    if (!state_->replies[i].has_value())
      queue_.queue_->cancel(ids_[i], cancelled("QueueConsumer destroyed"));
  state_->wait(lock, [&] { return state_->in_flight == 0; });
  // ... and batches received but not taken go back in front, the last one first.
  for (auto it = state_->replies.rbegin(); it != state_->replies.rend(); ++it)
    if (*it && (*it)->status.ok() && !(*it)->components.empty())
      queue_.queue_->restore(std::move((*it)->components), true);
}

}  // namespace af
