// TensorFlow 1.x queue semantics (the chapter's "Asynchronous Communication Using
// TensorFlow Queues" and tensorflow/python/kernel_tests/fifo_queue_test.py,
// random_shuffle_queue_test.py, padding_fifo_queue_test.py, priority_queue_test.py).
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "matchers.hpp"
#include "pending_waits.hpp"

using namespace std::chrono_literals;

namespace {

using af::test::contains;
using af::test::error_of;

}  // namespace

BOOST_AUTO_TEST_SUITE(queue_test)

// "Enqueuing data" / "Dequeuing data": three instances in, the same three out in order.
BOOST_AUTO_TEST_CASE(fifo_queue_dequeues_in_enqueue_order, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10,
                      .dtypes = {af::float32},
                      .shapes = {{2}},
                      .name = "q",
                      .shared_name = "shared_q_order"});
  auto instance = g.placeholder(af::float32, af::PartialShape{2});
  auto enqueue = q.enqueue({instance});
  auto dequeue = q.dequeue();
  BOOST_TEST(enqueue.name() == "q_enqueue");
  BOOST_TEST(dequeue[0].shape().to_string() == "(2,)");
  af::Session sess(g);
  sess.run(enqueue, {{instance, af::Tensor::from_vector<float>({1, 2})}});
  sess.run(enqueue, {{instance, af::Tensor::from_vector<float>({3, 4})}});
  sess.run(enqueue, {{instance, af::Tensor::from_vector<float>({5, 6})}});
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 3);
  BOOST_TEST(sess.run(dequeue[0]).to_vector<float>() == (std::vector<float>{1, 2}));
  BOOST_TEST(sess.run(dequeue[0]).to_vector<float>() == (std::vector<float>{3, 4}));
  BOOST_TEST(sess.run(dequeue[0]).to_vector<float>() == (std::vector<float>{5, 6}));
}

// "enqueue_many" of a (3, 2) batch equals three enqueues; dequeue_many(2) stacks two.
BOOST_AUTO_TEST_CASE(enqueue_many_and_dequeue_many_batch_rows, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::float32}, .shapes = {{2}}});
  auto batch = g.placeholder(af::float32, af::PartialShape{-1, 2});
  auto enqueue_many = q.enqueue_many({batch});
  auto mini_batch = q.dequeue_many(2);
  BOOST_TEST(mini_batch[0].shape().to_string() == "(2, 2)");
  af::Session sess(g);
  sess.run(enqueue_many,
           {{batch, af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2})}});
  auto first = sess.run(mini_batch[0]);
  BOOST_TEST(first.shape() == (af::Shape{2, 2}));
  BOOST_TEST(first.to_vector<float>() == (std::vector<float>{1, 2, 3, 4}));
  // One left: the next dequeue_many blocks; the step's deadline ends it, nothing is lost.
  BOOST_CHECK_THROW(sess.run(mini_batch[0], {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 1);
  // Zero rows is a no-op.
  sess.run(enqueue_many, {{batch, af::Tensor(af::float32, af::Shape{0, 2})}});
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 1);
}

// data_flow_ops.py enqueue_many merges every component's dimension 0 when the graph is
// built: known batch sizes that differ are refused then ("Dimensions 3 and 4 are not
// compatible"), unknown ones merge with anything.
BOOST_AUTO_TEST_CASE(enqueue_many_components_must_agree_on_the_batch_dimension,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::int32, af::float32}, .shapes = {{}, {2}}});
  auto three = g.placeholder(af::int32, af::PartialShape{3});
  auto four = g.placeholder(af::float32, af::PartialShape{4, 2});
  auto unknown = g.placeholder(af::float32, af::PartialShape{-1, 2});
  const std::string msg = af::test::construction_error([&] { q.enqueue_many({three, four}); });
  BOOST_TEST(contains(msg, "Dimensions 3 and 4 are not compatible"), msg);
  BOOST_CHECK_NO_THROW(q.enqueue_many({three, unknown}));
}

// "Queues of tuples": (int32 scalar, float32 [3,2]) pairs; dequeue_many of pairs.
BOOST_AUTO_TEST_CASE(queues_hold_tuples_of_tensors, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::int32, af::float32}, .shapes = {{}, {3, 2}}});
  auto a = g.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto b = g.placeholder(af::float32, af::PartialShape{3, 2});
  auto enqueue = q.enqueue({a, b});
  auto pair = q.dequeue_many(2);
  af::Session sess(g);
  sess.run(enqueue, {{a, af::Tensor(10)},
                     {b, af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2})}});
  sess.run(enqueue, {{a, af::Tensor(11)},
                     {b, af::Tensor::from_vector<float>({2, 4, 6, 8, 0, 2}, af::Shape{3, 2})}});
  auto r = sess.run({pair[0], pair[1]});
  BOOST_TEST(r[0].to_vector<std::int32_t>() == (std::vector<std::int32_t>{10, 11}));
  BOOST_TEST(r[1].shape() == (af::Shape{2, 3, 2}));
  BOOST_TEST(r[1].to_vector<float>() == (std::vector<float>{1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 0, 2}));
}

// "Closing a queue": enqueue after close is Cancelled; dequeues drain, then OutOfRange;
// dequeue_many with too few left fails and keeps them; dequeue_up_to returns them.
BOOST_AUTO_TEST_CASE(closed_queue_semantics_follow_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::float32}, .shapes = {{}}, .name = "cq"});
  auto x = g.placeholder(af::float32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  auto close = q.close();
  auto many = q.dequeue_many(3);
  auto up_to = q.dequeue_up_to(3);
  auto one = q.dequeue();
  af::Session sess(g);
  for (float v : {1.0f, 2.0f}) sess.run(enqueue, {{x, af::Tensor(v)}});
  BOOST_TEST(!sess.run(q.is_closed()).scalar<bool>());
  sess.run(close);
  BOOST_TEST(sess.run(q.is_closed()).scalar<bool>());
  auto msg = error_of<af::CancelledError>([&] { sess.run(enqueue, {{x, af::Tensor(3.0f)}}); });
  BOOST_TEST(contains(msg, "FIFOQueue '_"), msg);
  BOOST_TEST(contains(msg, "is closed."), msg);
  msg = error_of<af::OutOfRangeError>([&] { sess.run(many[0]); });
  BOOST_TEST(contains(msg, "is closed and has insufficient elements (requested 3, current size 2)"),
             msg);
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 2, "dequeue_many lost nothing");
  BOOST_TEST(sess.run(up_to[0]).to_vector<float>() == (std::vector<float>{1, 2}));
  BOOST_CHECK_THROW(sess.run(one[0]), af::OutOfRangeError);
  BOOST_CHECK_THROW(sess.run(up_to[0]), af::OutOfRangeError);
  // Closing twice: Cancelled "Queue 'NAME' is already closed." as QueueBase::Close in
  // tensorflow/core/kernels/queue_base.cc of TensorFlow 1.x (errors::Cancelled; 0.x said Aborted).
  msg = error_of<af::CancelledError>([&] { sess.run(close); });
  BOOST_TEST(contains(msg, "is already closed"), msg);
}

// A dequeue_many waiting while the queue is closed gives back what it had reserved.
BOOST_AUTO_TEST_CASE(dequeue_many_pending_at_close_restores_its_elements,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::int32}, .shapes = {{}}});
  auto x = g.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  auto many = q.dequeue_many(4);
  auto up_to = q.dequeue_up_to(4);
  af::Session sess(g);
  for (int v : {1, 2, 3}) sess.run(enqueue, {{x, af::Tensor(v)}});
  auto pending = std::async(std::launch::async, [&] {
    return error_of<af::OutOfRangeError>([&] { sess.run(many[0]); });
  });
  BOOST_TEST(af::test::eventually([&] { return sess.run(q.size()).scalar<std::int32_t>() == 0; }),
             "the pending dequeue_many reserved all three");
  sess.run(q.close());
  BOOST_TEST(contains(pending.get(), "insufficient elements"));
  BOOST_TEST(sess.run(up_to[0]).to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2, 3}));
}

// TensorFlow reserves elements for the first dequeue_many, so a batch larger than the
// capacity still completes.
BOOST_AUTO_TEST_CASE(dequeue_many_larger_than_capacity_completes, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 2, .dtypes = {af::int32}, .shapes = {{}}});
  auto batch = g.placeholder(af::int32, af::PartialShape{-1});
  auto enqueue_many = q.enqueue_many({batch});
  auto many = q.dequeue_many(5);
  af::Session sess(g);
  auto producer = std::async(std::launch::async, [&] {
    sess.run(enqueue_many, {{batch, af::Tensor::from_vector<std::int32_t>({1, 2, 3, 4, 5})}});
  });
  BOOST_TEST(sess.run(many[0]).to_vector<std::int32_t>() ==
             (std::vector<std::int32_t>{1, 2, 3, 4, 5}));
  producer.get();
}

// capacity blocks enqueuers; a plain close lets a pending enqueue finish, and
// cancel_pending_enqueues fails it with Cancelled.
BOOST_AUTO_TEST_CASE(close_honours_or_cancels_pending_enqueues, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(
      g, {.capacity = 1, .dtypes = {af::int32}, .shapes = {{}}, .shared_name = "honour_q"});
  auto x = g.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  auto dequeue = q.dequeue();
  auto close = q.close();
  af::Session sess(g);
  sess.run(enqueue, {{x, af::Tensor(1)}});
  BOOST_CHECK_THROW(sess.run(enqueue, {{x, af::Tensor(2)}}, {.timeout_in_ms = 100}),
                    af::DeadlineExceededError);
  BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 1, "the expired enqueue added nothing");
  auto pending = std::async(std::launch::async, [&] { sess.run(enqueue, {{x, af::Tensor(2)}}); });
  BOOST_REQUIRE(af::test::await_pending_enqueues("honour_q", 1));
  auto closing = std::async(std::launch::async, [&] { sess.run(close); });
  BOOST_REQUIRE(af::test::await_pending_enqueues("honour_q", 2));
  BOOST_TEST(!sess.run(q.is_closed()).scalar<bool>(), "close waits behind the pending enqueue");
  BOOST_TEST(sess.run(dequeue[0]).scalar<std::int32_t>() == 1);
  pending.get();
  closing.get();
  BOOST_TEST(sess.run(dequeue[0]).scalar<std::int32_t>() == 2, "the pending enqueue was honoured");

  af::Graph g2;
  af::FIFOQueue q2(
      g2, {.capacity = 1, .dtypes = {af::int32}, .shapes = {{}}, .shared_name = "cancel_q"});
  auto x2 = g2.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto enqueue2 = q2.enqueue({x2});
  auto close2 = q2.close(true);
  af::Session sess2(g2);
  sess2.run(enqueue2, {{x2, af::Tensor(1)}});
  auto pending2 = std::async(std::launch::async, [&] {
    return error_of<af::CancelledError>([&] { sess2.run(enqueue2, {{x2, af::Tensor(2)}}); });
  });
  BOOST_REQUIRE(af::test::await_pending_enqueues("cancel_q", 1));
  sess2.run(close2);
  BOOST_TEST(contains(pending2.get(), "Enqueue operation was cancelled"));
  BOOST_TEST(sess2.run(q2.size()).scalar<std::int32_t>() == 1);

  // A plain close waiting behind a pending enqueue is an enqueue attempt too: close with
  // cancel_pending_enqueues cancels both (queue_base.cc CloseAndCancel).
  af::Graph g3;
  af::FIFOQueue q3(
      g3, {.capacity = 1, .dtypes = {af::int32}, .shapes = {{}}, .shared_name = "behind_q"});
  auto x3 = g3.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto enqueue3 = q3.enqueue({x3});
  auto close3 = q3.close();
  auto cancel3 = q3.close(true);
  af::Session sess3(g3);
  sess3.run(enqueue3, {{x3, af::Tensor(1)}});
  auto pending_enqueue = std::async(std::launch::async, [&] {
    return error_of<af::CancelledError>([&] { sess3.run(enqueue3, {{x3, af::Tensor(2)}}); });
  });
  BOOST_REQUIRE(af::test::await_pending_enqueues("behind_q", 1));
  auto pending_close = std::async(
      std::launch::async, [&] { return error_of<af::CancelledError>([&] { sess3.run(close3); }); });
  BOOST_REQUIRE(af::test::await_pending_enqueues("behind_q", 2));
  BOOST_TEST(!sess3.run(q3.is_closed()).scalar<bool>(), "the plain close waits behind the enqueue");
  sess3.run(cancel3);
  BOOST_TEST(contains(pending_enqueue.get(), "Enqueue operation was cancelled"));
  const std::string closed = pending_close.get();
  BOOST_TEST(contains(closed, "Enqueue operation was cancelled"), closed);
  BOOST_TEST(sess3.run(q3.is_closed()).scalar<bool>());
  BOOST_TEST(sess3.run(q3.size()).scalar<std::int32_t>() == 1);
}

// dequeue_many needs shapes; dtype and shape mismatches name the queue and component.
BOOST_AUTO_TEST_CASE(bad_input_names_queue_and_component, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g, {.capacity = 10, .dtypes = {af::float32, af::int32}, .name = "noshape"});
  auto many = q.dequeue_many(2);
  af::Session sess(g);
  auto msg = error_of<af::InvalidArgumentError>([&] { sess.run(many[0]); });
  BOOST_TEST(contains(msg, "require the components to have specified shapes"), msg);
  msg = error_of<af::InvalidArgumentError>([&] {
    q.enqueue({g.constant(1.0f), g.constant(2.0f)});
  });
  BOOST_TEST(contains(msg, "'noshape'"), msg);
  BOOST_TEST(contains(msg, "component 1"), msg);
  af::FIFOQueue shaped(
      g, {.capacity = 10, .dtypes = {af::float32}, .shapes = {{2}}, .name = "shaped"});
  msg = error_of<af::InvalidArgumentError>([&] {
    shaped.enqueue({g.constant(af::Tensor::from_vector<float>({1, 2, 3}))});
  });
  BOOST_TEST(contains(msg, "'shaped'"), msg);
  // A placeholder of unknown shape passes construction; the queue checks at run time.
  auto any = g.placeholder(af::float32);
  auto enqueue = shaped.enqueue({any});
  af::Session sess2(g);
  msg = error_of<af::InvalidArgumentError>([&] {
    sess2.run(enqueue, {{any, af::Tensor::from_vector<float>({1, 2, 3})}});
  });
  BOOST_TEST(contains(msg, "Shape mismatch in tuple component 0. Expected [2], got [3]"), msg);
  BOOST_TEST(contains(msg, "_shaped')"), msg);  // a private queue's name: TensorFlow's "_N_shaped"
}

// "RandomShuffleQueue": 22 floats, dequeue_many(5) twice, then blocked (12 - 5 < 10);
// closing lifts min_after_dequeue. A fixed seed gives a fixed order.
BOOST_AUTO_TEST_CASE(random_shuffle_queue_keeps_min_after_dequeue_until_closed,
                     *boost::unit_test::timeout(60)) {
  auto run_once = [](std::vector<float>* order) {
    af::Graph g;
    af::RandomShuffleQueue q(g, {.capacity = 50,
                                 .min_after_dequeue = 10,
                                 .dtypes = {af::float32},
                                 .shapes = {{}},
                                 .seed = 42});
    auto batch = g.placeholder(af::float32, af::PartialShape{-1});
    auto enqueue_many = q.enqueue_many({batch});
    auto dequeue = q.dequeue_many(5);
    af::Session sess(g);
    std::vector<float> values;
    for (int i = 1; i <= 22; ++i) values.push_back(static_cast<float>(i));
    sess.run(enqueue_many, {{batch, af::Tensor::from_vector<float>(values)}});
    for (int k = 0; k < 2; ++k) {
      auto v = sess.run(dequeue[0]).to_vector<float>();
      order->insert(order->end(), v.begin(), v.end());
    }
    BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 12);
    BOOST_CHECK_THROW(sess.run(dequeue[0], {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
    BOOST_TEST(sess.run(q.size()).scalar<std::int32_t>() == 12,
               "the blocked dequeue gave its elements back");
    sess.run(q.close());
    for (int k = 0; k < 2; ++k) {
      auto v = sess.run(dequeue[0]).to_vector<float>();
      order->insert(order->end(), v.begin(), v.end());
    }
    auto rest = q.dequeue_up_to(5);
    auto v = sess.run(rest[0]).to_vector<float>();
    order->insert(order->end(), v.begin(), v.end());
  };
  std::vector<float> a, b;
  run_once(&a);
  run_once(&b);
  BOOST_TEST(a == b, "a fixed seed gives a fixed order");
  std::vector<float> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<float> expected;
  for (int i = 1; i <= 22; ++i) expected.push_back(static_cast<float>(i));
  BOOST_TEST(sorted == expected, "every element exactly once");
  BOOST_TEST(a != expected, "shuffled");
}

// "PaddingFifoQueue": 3x2, 1x1 and 2x4 matrices come out of dequeue_many(3) as 3x4 each.
BOOST_AUTO_TEST_CASE(padding_fifo_queue_pads_to_the_batch_maximum, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::PaddingFIFOQueue q(
      g, {.capacity = 50, .dtypes = {af::float32}, .shapes = {{-1, -1}}, .name = "q"});
  auto v = g.placeholder(af::float32, af::PartialShape{-1, -1});
  auto enqueue = q.enqueue({v});
  auto dequeue = q.dequeue_many(3);
  af::Session sess(g);
  sess.run(enqueue, {{v, af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2})}});
  sess.run(enqueue, {{v, af::Tensor::from_vector<float>({1}, af::Shape{1, 1})}});
  sess.run(enqueue,
           {{v, af::Tensor::from_vector<float>({7, 8, 9, 5, 6, 7, 8, 9}, af::Shape{2, 4})}});
  auto r = sess.run(dequeue[0]);
  BOOST_TEST(r.shape() == (af::Shape{3, 3, 4}));
  BOOST_TEST(r.to_string() ==
             "[[[1. 2. 0. 0.]\n  [3. 4. 0. 0.]\n  [5. 6. 0. 0.]]\n\n"
             " [[1. 0. 0. 0.]\n  [0. 0. 0. 0.]\n  [0. 0. 0. 0.]]\n\n"
             " [[7. 8. 9. 5.]\n  [6. 7. 8. 9.]\n  [0. 0. 0. 0.]]]");
  auto any = g.placeholder(af::float32);
  auto enqueue_any = q.enqueue({any});
  af::Session sess2(g);
  auto msg = error_of<af::InvalidArgumentError>([&] {
    sess2.run(enqueue_any, {{any, af::Tensor::from_vector<float>({1, 2})}});
  });
  BOOST_TEST(contains(msg, "Shape mismatch in tuple component 0. Expected [?,?], got [2]"), msg);
}

// tf.PriorityQueue: the smallest int64 priority leaves first.
BOOST_AUTO_TEST_CASE(priority_queue_dequeues_smallest_priority_first,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::PriorityQueue q(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  BOOST_TEST(q.dtypes().size() == 2u);
  auto p = g.placeholder(af::int64, af::PartialShape(af::Shape{}));
  auto s = g.placeholder(af::string, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({p, s});
  auto batch = q.dequeue_many(3);
  af::Session sess(g);
  sess.run(enqueue, {{p, af::Tensor(std::int64_t{5})}, {s, af::Tensor("five")}});
  sess.run(enqueue, {{p, af::Tensor(std::int64_t{-1})}, {s, af::Tensor("minus one")}});
  sess.run(enqueue, {{p, af::Tensor(std::int64_t{3})}, {s, af::Tensor("three")}});
  auto r = sess.run({batch[0], batch[1]});
  BOOST_TEST(r[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{-1, 3, 5}));
  BOOST_TEST(r[1].to_vector<std::string>() ==
             (std::vector<std::string>{"minus one", "three", "five"}));
}

// Queues with the same shared_name are one queue for every session of the process; a
// conflicting definition is InvalidArgument.
BOOST_AUTO_TEST_CASE(sessions_share_queues_by_shared_name, *boost::unit_test::timeout(60)) {
  af::Graph loader;
  af::FIFOQueue q1(loader, {.capacity = 10,
                            .dtypes = {af::float32},
                            .shapes = {{2}},
                            .name = "q",
                            .shared_name = "shared_between_sessions"});
  auto instances = loader.placeholder(af::float32, af::PartialShape{-1, 2});
  auto enqueue_many = q1.enqueue_many({instances});
  af::Graph trainer;
  af::FIFOQueue q2(trainer, {.capacity = 10,
                             .dtypes = {af::float32},
                             .shapes = {{2}},
                             .name = "q",
                             .shared_name = "shared_between_sessions"});
  auto dequeue = q2.dequeue();
  af::Session loader_sess(loader);
  af::Session trainer_sess(trainer);
  loader_sess.run(
      enqueue_many,
      {{instances, af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2})}});
  BOOST_TEST(trainer_sess.run(dequeue[0]).to_vector<float>() == (std::vector<float>{1, 2}));
  BOOST_TEST(trainer_sess.run(dequeue[0]).to_vector<float>() == (std::vector<float>{3, 4}));
  af::Graph other;
  af::FIFOQueue bad(other, {.capacity = 5,
                            .dtypes = {af::float32},
                            .shapes = {{2}},
                            .shared_name = "shared_between_sessions"});
  af::Session other_sess(other);
  auto msg = error_of<af::InvalidArgumentError>([&] { other_sess.run(bad.size()); });
  BOOST_TEST(
      contains(
          msg,
          "Shared queue 'shared_between_sessions' has capacity 10 but requested capacity was 5"),
      msg);
}

// Shared RandomShuffleQueues must agree on their seeds unless the second leaves them to
// the graph (random_shuffle_queue_test.py testIncompatibleSharedQueueErrors, "random seeds";
// RandomShuffleQueue::MatchesNodeDef).
BOOST_AUTO_TEST_CASE(shared_random_shuffle_queues_must_agree_on_seeds,
                     *boost::unit_test::timeout(60)) {
  auto make = [](af::Graph& g, std::optional<std::int64_t> seed) {
    return af::RandomShuffleQueue(g, {.capacity = 10,
                                      .min_after_dequeue = 0,
                                      .dtypes = {af::float32},
                                      .shapes = {{}},
                                      .shared_name = "q_h_seeds",
                                      .seed = seed});
  };
  af::Graph first;
  auto q1 = make(first, 12);
  af::Session s1(first);
  BOOST_TEST(s1.run(q1.size()).scalar<std::int32_t>() == 0);
  af::Graph second;
  auto q2 = make(second, 21);
  af::Session s2(second);
  auto msg = error_of<af::InvalidArgumentError>([&] { s2.run(q2.size()); });
  BOOST_TEST(contains(msg, "Shared queue 'q_h_seeds' has random seeds ("), msg);
  BOOST_TEST(contains(msg, "but requested seeds are ("), msg);
}

// A blocked dequeue is woken by an enqueue from another session, and a step cancelled
// by a session close does not take an element.
BOOST_AUTO_TEST_CASE(blocked_dequeue_wakes_on_enqueue, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue q(g,
                  {.capacity = 10, .dtypes = {af::int32}, .shapes = {{}}, .shared_name = "wake_q"});
  auto x = g.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto enqueue = q.enqueue({x});
  auto dequeue = q.dequeue();
  af::Session consumer(g);
  af::Session producer(g);
  auto waiting = std::async(std::launch::async,
                            [&] { return consumer.run(dequeue[0]).scalar<std::int32_t>(); });
  std::this_thread::sleep_for(50ms);
  producer.run(enqueue, {{x, af::Tensor(7)}});
  BOOST_TEST(waiting.get() == 7);
}

// RandomShuffleQueueOp's constructor (tensorflow/core/kernels/random_shuffle_queue_op.cc):
// min_after_dequeue must be >= 0 and < capacity, checked when the queue op first runs; an
// unbounded queue (capacity -1) takes any min_after_dequeue.
BOOST_AUTO_TEST_CASE(random_shuffle_queue_checks_min_after_dequeue_against_capacity,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::RandomShuffleQueue full(g,
                              {.capacity = 10, .min_after_dequeue = 10, .dtypes = {af::float32}});
  af::RandomShuffleQueue negative(
      g, {.capacity = 10, .min_after_dequeue = -1, .dtypes = {af::float32}});
  af::RandomShuffleQueue unbounded(g, {.min_after_dequeue = 1000, .dtypes = {af::float32}});
  af::RandomShuffleQueue fine(g, {.capacity = 10, .min_after_dequeue = 9, .dtypes = {af::float32}});
  af::Session sess(g);
  auto msg = error_of<af::InvalidArgumentError>([&] { sess.run(full.size()); });
  BOOST_TEST(contains(msg, "min_after_dequeue 10 must be < capacity 10"), msg);
  msg = error_of<af::InvalidArgumentError>([&] { sess.run(negative.size()); });
  BOOST_TEST(contains(msg, "min_after_dequeue -1 must be >= 0"), msg);
  BOOST_TEST(sess.run(unbounded.size()).scalar<std::int32_t>() == 0);
  BOOST_TEST(sess.run(fine.size()).scalar<std::int32_t>() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
