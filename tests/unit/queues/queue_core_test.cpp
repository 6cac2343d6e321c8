// White-box tests of QueueCore (queues/src/queue_core.hpp), the single-threaded state
// machine inside every queue actor: attempts served strictly in arrival order, capacity,
// close, cancellation giving reserved elements back, restore, and replies that fire once.
#include "queue_core.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

using af::Code;
using af::detail::QueueCore;
using af::detail::QueueReply;
using af::detail::ReplyFn;

/// Records the one reply of an attempt.
struct Outcome {
  std::optional<QueueReply> reply;
  int calls = 0;
  ReplyFn fn() {
    return af::detail::make_reply([this](QueueReply r) {
      ++calls;
      reply = std::move(r);
    });
  }
  bool done() const { return reply.has_value(); }
  Code code() const { return reply->status.code(); }
  /// The int64 values of a dequeued element or batch.
  std::vector<std::int64_t> values() const {
    const af::Tensor& t = reply->components.at(0);
    return {t.data<std::int64_t>(), t.data<std::int64_t>() + t.num_elements()};
  }
};

/// For attempts whose outcome the case does not check.
ReplyFn ignore() {
  return af::detail::make_reply([](QueueReply) {});
}

af::QueueSpec spec(std::int64_t capacity) {
  return {.kind = af::QueueKind::fifo,
          .name = "q",
          .dtypes = {af::int64},
          .shapes = {af::PartialShape(af::Shape{})},
          .capacity = capacity};
}

af::detail::Tuple element(std::int64_t v) { return {af::Tensor(v)}; }

af::detail::Tuple batch(std::vector<std::int64_t> v) {
  return {af::Tensor::from_vector(v, af::Shape{static_cast<std::int64_t>(v.size())})};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(queue_core_test)

BOOST_AUTO_TEST_CASE(an_enqueue_beyond_capacity_waits_for_a_dequeue) {
  QueueCore q(spec(2));
  Outcome e1, e2, e3, d;
  q.enqueue(1, element(10), e1.fn());
  q.enqueue(2, element(11), e2.fn());
  q.enqueue(3, element(12), e3.fn());
  BOOST_TEST(e1.done());
  BOOST_TEST(e2.done());
  BOOST_TEST(!e3.done());
  BOOST_TEST(q.pending_enqueues() == 1u);
  q.dequeue(4, d.fn());
  BOOST_TEST(d.values() == std::vector<std::int64_t>{10});
  BOOST_TEST(e3.done());  // the freed slot went to the waiting enqueue
  BOOST_TEST(e3.reply->status.ok());
  BOOST_TEST(q.size() == 2);
}

BOOST_AUTO_TEST_CASE(attempts_are_served_in_arrival_order) {
  QueueCore q(spec(10));
  Outcome many, one;
  q.dequeue_many(1, 2, false, many.fn());
  q.dequeue(2, one.fn());
  q.enqueue(3, element(1), ignore());
  // The first element is reserved by the older dequeue_many; the dequeue behind it waits.
  BOOST_TEST(!many.done());
  BOOST_TEST(!one.done());
  q.enqueue(4, element(2), ignore());
  BOOST_TEST(many.values() == (std::vector<std::int64_t>{1, 2}));
  BOOST_TEST(!one.done());
  q.enqueue(5, element(3), ignore());
  BOOST_TEST(one.values() == std::vector<std::int64_t>{3});
}

BOOST_AUTO_TEST_CASE(a_cancelled_dequeue_many_gives_its_reserved_elements_back_in_order) {
  QueueCore q(spec(10));
  q.enqueue(1, element(7), ignore());
  q.enqueue(2, element(8), ignore());
  Outcome many;
  q.dequeue_many(3, 3, false, many.fn());
  BOOST_TEST(!many.done());
  BOOST_TEST(q.size() == 0);  // both reserved
  BOOST_TEST(q.cancel(3, af::deadline_exceeded("too late")));
  BOOST_TEST(many.code() == Code::deadline_exceeded);
  BOOST_TEST(q.size() == 2);
  Outcome d;
  q.dequeue_many(4, 2, false, d.fn());
  BOOST_TEST(d.values() == (std::vector<std::int64_t>{7, 8}));
  // A completed attempt cannot be cancelled any more.
  BOOST_TEST(!q.cancel(4, af::cancelled("late")));
}

BOOST_AUTO_TEST_CASE(
    close_fails_waiting_dequeues_with_out_of_range_and_later_enqueues_with_cancelled) {
  QueueCore q(spec(10));
  Outcome waiting, closed;
  q.dequeue(1, waiting.fn());
  q.close(2, false, closed.fn());
  BOOST_TEST(closed.reply->status.ok());
  BOOST_TEST(q.is_closed());
  BOOST_TEST(waiting.code() == Code::out_of_range);
  Outcome late;
  q.enqueue(3, element(1), late.fn());
  BOOST_TEST(late.code() == Code::cancelled);
}

BOOST_AUTO_TEST_CASE(dequeue_up_to_after_close_returns_what_is_left_then_out_of_range) {
  QueueCore q(spec(10));
  q.enqueue_many(1, batch({1, 2, 3}), ignore());
  q.close(2, false, ignore());
  Outcome full, rest, none;
  q.dequeue_many(3, 2, false, full.fn());
  q.dequeue_many(4, 5, true, rest.fn());
  q.dequeue_many(5, 5, true, none.fn());
  BOOST_TEST(full.values() == (std::vector<std::int64_t>{1, 2}));
  BOOST_TEST(rest.values() == std::vector<std::int64_t>{3});
  BOOST_TEST(none.code() == Code::out_of_range);
}

BOOST_AUTO_TEST_CASE(
    a_plain_close_waits_behind_pending_enqueues_and_a_cancelling_close_fails_them) {
  {
    QueueCore q(spec(1));
    q.enqueue(1, element(1), ignore());
    Outcome pending, closed;
    q.enqueue(2, element(2), pending.fn());
    q.close(3, false, closed.fn());
    BOOST_TEST(!closed.done());  // behind the pending enqueue, which still finishes
    Outcome d;
    q.dequeue(4, d.fn());
    BOOST_TEST(pending.reply->status.ok());
    BOOST_TEST(closed.done());
    BOOST_TEST(q.size() == 1);
  }
  {
    QueueCore q(spec(1));
    q.enqueue(1, element(1), ignore());
    Outcome pending, closed;
    q.enqueue(2, element(2), pending.fn());
    q.close(3, true, closed.fn());
    BOOST_TEST(pending.code() == Code::cancelled);
    BOOST_TEST(closed.reply->status.ok());
    BOOST_TEST(q.size() == 1);
  }
}

BOOST_AUTO_TEST_CASE(restore_puts_components_back_in_front_ignoring_capacity_and_close) {
  QueueCore q(spec(1));
  q.enqueue(1, element(5), ignore());
  q.close(2, false, ignore());
  q.restore(batch({3, 4}), /*many=*/true);
  BOOST_TEST(q.size() == 3);
  Outcome d;
  q.dequeue_many(3, 3, false, d.fn());
  BOOST_TEST(d.values() == (std::vector<std::int64_t>{3, 4, 5}));
}

BOOST_AUTO_TEST_CASE(fail_all_ends_every_pending_attempt_once) {
  QueueCore q(spec(1));
  q.enqueue(1, element(1), ignore());
  Outcome enq, deq_many;
  q.enqueue(2, element(2), enq.fn());
  q.fail_all(af::cancelled("going away"));
  BOOST_TEST(enq.code() == Code::cancelled);
  BOOST_TEST(enq.calls == 1);
  BOOST_TEST(q.pending_enqueues() == 0u);
  q.dequeue_many(3, 5, false, deq_many.fn());
  q.fail_all(af::cancelled("going away"));
  BOOST_TEST(deq_many.code() == Code::cancelled);
  BOOST_TEST(q.size() == 1);  // the reserved element went back
}

// TensorFlow's PriorityQueue::TryDequeueMany takes a batch only once all of it is there, so
// a batch is sorted even when smaller priorities arrive while it waits
// (priority_queue_test.py testRoundTripInsertMultiThreadedReadOnceSorts).
BOOST_AUTO_TEST_CASE(a_priority_queue_batch_waits_for_all_its_elements_and_comes_out_sorted) {
  af::QueueSpec s = spec(10);
  s.kind = af::QueueKind::priority;
  QueueCore q(s);
  Outcome many;
  q.dequeue_many(1, 3, false, many.fn());
  for (std::int64_t p : {5, 3}) q.enqueue(10 + p, element(p), ignore());
  BOOST_TEST(!many.done());
  BOOST_TEST(q.size() == 2);  // nothing reserved meanwhile
  q.enqueue(20, element(-1), ignore());
  BOOST_TEST(many.values() == (std::vector<std::int64_t>{-1, 3, 5}));
}

BOOST_AUTO_TEST_CASE(a_reply_dropped_unfired_fires_cancelled_and_a_reply_fires_once) {
  Outcome o;
  {
    ReplyFn fn = o.fn();
    BOOST_TEST(fn.pending());
  }
  BOOST_TEST(o.calls == 1);
  BOOST_TEST(o.code() == Code::cancelled);
  Outcome twice;
  ReplyFn fn = twice.fn();
  fn(QueueReply{});
  fn(QueueReply{af::cancelled("again"), {}});
  BOOST_TEST(twice.calls == 1);
  BOOST_TEST(twice.reply->status.ok());
  BOOST_TEST(!fn.pending());
}

BOOST_AUTO_TEST_CASE(elements_of_the_wrong_type_or_shape_are_refused_naming_the_queue) {
  QueueCore q(spec(10));
  af::Status s = q.validate_tuple({af::Tensor(1.0f)});
  BOOST_TEST(s.code() == Code::invalid_argument);
  BOOST_TEST(s.message().find("'q'") != std::string::npos, s.message());
  s = q.validate_tuple({af::Tensor::from_vector<std::int64_t>({1, 2}, af::Shape{2})});
  BOOST_TEST(s.code() == Code::invalid_argument);
  BOOST_TEST(q.validate_many_tuple(batch({1, 2})).ok());
}

BOOST_AUTO_TEST_SUITE_END()
