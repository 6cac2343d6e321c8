// Batches stored whole (row ranges), zero-copy dequeue_many, and the pipelined host calls
// (QueueProducer / QueueConsumer): order kept, nothing lost, errors surfaced.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

af::QueueHandle open_queue(const std::string& name, std::int64_t capacity = 1000) {
  return af::QueueHandle::open({.kind = af::QueueKind::fifo,
                                .name = name,
                                .dtypes = {af::int64},
                                .shapes = {af::PartialShape(af::Shape{})},
                                .capacity = capacity});
}

af::Tensor iota(std::int64_t first, std::int64_t n) {
  af::Tensor t(af::int64, af::Shape{n});
  for (std::int64_t i = 0; i < n; ++i) t.data<std::int64_t>()[i] = first + i;
  return t;
}

std::vector<std::int64_t> values(const std::vector<af::Tensor>& batch) {
  return batch.at(0).to_vector<std::int64_t>();
}

std::vector<std::int64_t> range(std::int64_t first, std::int64_t n) {
  return iota(first, n).to_vector<std::int64_t>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(queue_pipeline_test)

BOOST_AUTO_TEST_CASE(dequeue_many_of_a_whole_enqueued_batch_is_a_view,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_view");
  af::Tensor batch = iota(0, 8);
  q.enqueue_many({batch});
  auto out = q.dequeue_many(8);
  BOOST_TEST(values(out) == range(0, 8));
  BOOST_TEST(out[0].shares_buffer_with(batch));
}

BOOST_AUTO_TEST_CASE(batches_split_and_join_across_ranges_in_order,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_ranges");
  q.enqueue_many({iota(0, 10)});
  q.enqueue({af::Tensor(std::int64_t{10})});
  q.enqueue_many({iota(11, 5)});
  BOOST_TEST(q.size() == 16);
  BOOST_TEST(values(q.dequeue_many(4)) == range(0, 4));  // part of the first batch
  BOOST_TEST(values(q.dequeue_many(8)) == range(4, 8));  // rest, the single, part of the last
  BOOST_TEST(q.dequeue()[0].scalar<std::int64_t>() == 12);
  q.close();
  BOOST_TEST(values(q.dequeue_up_to(10)) == range(13, 3));
  BOOST_CHECK_THROW(q.dequeue_up_to(1), af::OutOfRangeError);
}

BOOST_AUTO_TEST_CASE(an_enqueue_many_larger_than_capacity_enters_as_room_frees,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_capacity", 5);
  std::thread producer([&] { q.enqueue_many({iota(0, 23)}); });
  std::vector<std::int64_t> got;
  while (got.size() < 21) {
    auto b = values(q.dequeue_many(3));
    got.insert(got.end(), b.begin(), b.end());
  }
  auto rest = values(q.dequeue_many(2));
  got.insert(got.end(), rest.begin(), rest.end());
  producer.join();
  BOOST_TEST(got == range(0, 23));
  BOOST_TEST(q.size() == 0);
}

BOOST_AUTO_TEST_CASE(a_timed_out_dequeue_many_gives_its_rows_back_in_order,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_timeout");
  q.enqueue_many({iota(0, 3)});
  q.enqueue_many({iota(3, 2)});
  BOOST_CHECK_THROW(q.dequeue_many(8, 20ms), af::DeadlineExceededError);
  BOOST_TEST(q.size() == 5);
  BOOST_TEST(values(q.dequeue_many(5)) == range(0, 5));
}

BOOST_AUTO_TEST_CASE(producer_and_consumer_move_every_item_in_order,
                     *boost::unit_test::timeout(60)) {
  auto q = open_queue("pipe_order", 100);
  constexpr std::int64_t kBatches = 2000, kBatch = 16;
  std::thread producer([&] {
    af::QueueProducer out(q, 8);
    for (std::int64_t b = 0; b < kBatches; ++b) out.enqueue_many({iota(b * kBatch, kBatch)});
    out.flush();
  });
  af::QueueConsumer in(q, kBatch, 4);
  for (std::int64_t b = 0; b < kBatches; ++b) {
    auto got = values(in.next());
    BOOST_REQUIRE(got == range(b * kBatch, kBatch));
  }
  producer.join();
}

BOOST_AUTO_TEST_CASE(a_destroyed_consumer_puts_prefetched_batches_back,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_putback");
  q.enqueue_many({iota(0, 20)});
  {
    af::QueueConsumer in(q, 4, 3);
    BOOST_TEST(values(in.next()) == range(0, 4));
    // Three more requests (12 rows) are in flight; let them be answered.
    for (int i = 0; i < 2000 && q.size() > 4; ++i) std::this_thread::sleep_for(1ms);
    BOOST_TEST(q.size() == 4);
  }
  // The batches it had taken but not handed out are back in front, in order.
  BOOST_TEST(q.size() == 16);
  BOOST_TEST(values(q.dequeue_many(16)) == range(4, 16));
}

BOOST_AUTO_TEST_CASE(a_destroyed_consumer_cancels_waiting_requests,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_cancel");
  {
    af::QueueConsumer in(q, 4, 2);
    q.enqueue_many({iota(0, 4)});
    BOOST_TEST(values(in.next()) == range(0, 4));
    q.enqueue_many({iota(4, 3)});  // the next request waits for a fourth row
  }
  // The cancelled request took nothing.
  BOOST_TEST(q.size() == 3);
  BOOST_TEST(values(q.dequeue_many(3)) == range(4, 3));
}

BOOST_AUTO_TEST_CASE(consumer_ends_with_out_of_range_and_up_to_returns_the_rest,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_end");
  q.enqueue_many({iota(0, 10)});
  q.close();
  af::QueueConsumer in(q, 4, 3, /*up_to=*/true);
  BOOST_TEST(values(in.next()) == range(0, 4));
  BOOST_TEST(values(in.next()) == range(4, 4));
  BOOST_TEST(values(in.next()) == range(8, 2));
  BOOST_CHECK_THROW(in.next(), af::OutOfRangeError);
  BOOST_CHECK_THROW(in.next(), af::OutOfRangeError);
}

BOOST_AUTO_TEST_CASE(producer_reports_the_first_error_naming_the_queue,
                     *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_errors");
  af::QueueProducer out(q, 4);
  out.enqueue_many({iota(0, 2)});
  af::Tensor wrong(af::float32, af::Shape{2});
  out.enqueue_many({wrong});
  // The error comes from this call (if the failure is back already; its own batch is still
  // sent) or from flush.
  try {
    out.enqueue_many({iota(2, 2)});  // requests after a failed one still run
    out.flush();
    BOOST_FAIL("enqueue_many or flush should throw");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("FIFOQueue 'pipe_errors'") != std::string::npos);
  }
  out.flush();  // the error was reported once
  BOOST_TEST(values(q.dequeue_many(4)) == range(0, 4));
}

BOOST_AUTO_TEST_CASE(producer_enqueue_after_close_is_cancelled, *boost::unit_test::timeout(30)) {
  auto q = open_queue("pipe_closed");
  q.close();
  af::QueueProducer out(q);
  out.enqueue({af::Tensor(std::int64_t{1})});
  BOOST_CHECK_THROW(out.flush(), af::CancelledError);
}

BOOST_AUTO_TEST_CASE(a_blocking_host_call_serves_the_queue_on_its_own_thread,
                     *boost::unit_test::timeout(60)) {
  // A pending async dequeue is completed by the enqueue of a host thread that finds the
  // queue idle: the handoff runs on that thread, no queue actor in between. (Whether the
  // actor is still finishing the previous batch is a race, so a few attempts are allowed.)
  auto q = open_queue("drain_here_q");
  int on_caller = 0;
  for (int attempt = 0; attempt < 50 && on_caller == 0; ++attempt) {
    std::promise<std::pair<std::thread::id, std::int64_t>> got;
    q.async(af::QueueOp::dequeue, {}, 1, {}, [&](af::Status s, std::vector<af::Tensor> v) {
      got.set_value({std::this_thread::get_id(), s.ok() ? v.at(0).scalar<std::int64_t>() : -1});
    });
    BOOST_TEST(q.size() == 0);  // the dequeue is waiting in the queue now
    q.enqueue({af::Tensor(std::int64_t{attempt})});
    auto f = got.get_future();
    BOOST_REQUIRE(f.wait_for(10s) == std::future_status::ready);
    auto [thread, value] = f.get();
    BOOST_TEST(value == attempt);
    if (thread == std::this_thread::get_id()) ++on_caller;
  }
  BOOST_TEST(on_caller == 1);
}

BOOST_AUTO_TEST_CASE(blocking_handoffs_between_host_threads_keep_order_and_deadlines,
                     *boost::unit_test::timeout(60)) {
  auto q = open_queue("handoff_q", 8);
  constexpr std::int64_t kItems = 20000;
  std::thread producer([&] {
    for (std::int64_t i = 0; i < kItems; ++i) q.enqueue({af::Tensor(i)});
  });
  for (std::int64_t i = 0; i < kItems; ++i)
    BOOST_REQUIRE(q.dequeue().at(0).scalar<std::int64_t>() == i);
  producer.join();
  // A timed-out host dequeue still ends with DeadlineExceeded and takes nothing.
  BOOST_CHECK_THROW(q.dequeue(20ms), af::DeadlineExceededError);
  q.enqueue({af::Tensor(std::int64_t{7})});
  BOOST_TEST(q.dequeue().at(0).scalar<std::int64_t>() == 7);
}

// A RandomShuffleQueue with declared shapes keeps its elements column by column; it must
// hand them out in exactly the order of the per-element store used without shapes.
BOOST_AUTO_TEST_CASE(a_shuffle_queue_with_shapes_shuffles_as_one_without,
                     *boost::unit_test::timeout(60)) {
  // Rows of 8 bytes (int32 {2}), strings, 4 bytes (float32) and 24 bytes (int64 {3}): each
  // moves through its own copy path.
  const std::vector<af::DType> dtypes{af::int32, af::string, af::float32, af::int64};
  af::Graph g;
  af::RandomShuffleQueue shaped(g, {.capacity = 1000,
                                    .min_after_dequeue = 5,
                                    .dtypes = dtypes,
                                    .shapes = {{2}, {}, {}, {3}},
                                    .seed = 7});
  af::RandomShuffleQueue loose(
      g, {.capacity = 1000, .min_after_dequeue = 5, .dtypes = dtypes, .seed = 7});
  BOOST_REQUIRE(shaped.dequeue_many(1).size() == 4u);
  std::vector<std::int32_t> pairs;
  std::vector<std::string> names;
  std::vector<float> reals;
  std::vector<std::int64_t> triples;
  for (int i = 0; i < 60; ++i) {
    pairs.push_back(i);
    pairs.push_back(-i);
    names.push_back("n" + std::to_string(i));
    reals.push_back(static_cast<float>(i) + 0.5f);
    for (int k = 0; k < 3; ++k) triples.push_back(1000 * i + k);
  }
  auto ints = g.constant(af::Tensor::from_vector<std::int32_t>(pairs).reshaped(af::Shape{60, 2}));
  auto strs = g.constant(af::Tensor::from_vector<std::string>(names));
  auto floats = g.constant(af::Tensor::from_vector<float>(reals));
  auto longs =
      g.constant(af::Tensor::from_vector<std::int64_t>(triples).reshaped(af::Shape{60, 3}));
  auto fill_shaped = shaped.enqueue_many({ints, strs, floats, longs});
  auto fill_loose = loose.enqueue_many({ints, strs, floats, longs});
  auto many = shaped.dequeue_many(10);
  auto up_to = shaped.dequeue_up_to(100);
  auto one = shaped.dequeue();
  auto loose_one = loose.dequeue();
  af::Session sess(g);
  sess.run(fill_shaped);
  sess.run(fill_loose);
  // An element as text: every component of row `k` of a batch (or of a single element).
  auto describe = [](const std::vector<af::Tensor>& t, std::size_t k) {
    return t[1].flat<std::string>()[k] + "/" +
           std::to_string(t[0].flat<std::int32_t>()[2 * k + 1]) + "/" +
           std::to_string(t[2].flat<float>()[k]) + "/" +
           std::to_string(t[3].flat<std::int64_t>()[3 * k]) + "," +
           std::to_string(t[3].flat<std::int64_t>()[3 * k + 2]);
  };
  // 1 + 10 + 1 elements through dequeue, dequeue_many and dequeue again; the rest after close.
  std::vector<std::string> got, want;
  auto take_loose = [&](int n) {
    for (int k = 0; k < n; ++k)
      want.push_back(
          describe(sess.run({loose_one[0], loose_one[1], loose_one[2], loose_one[3]}), 0));
  };
  auto record = [&](const std::vector<af::Tensor>& batch) {
    for (std::int64_t k = 0; k < batch[1].num_elements(); ++k)
      got.push_back(describe(batch, static_cast<std::size_t>(k)));
  };
  auto first = sess.run({one[0], one[1], one[2], one[3]});
  BOOST_TEST(first[0].shape() == af::Shape({2}));
  got.push_back(describe(first, 0));
  take_loose(1);
  record(sess.run({many[0], many[1], many[2], many[3]}));
  take_loose(10);
  sess.run(shaped.close());
  sess.run(loose.close());
  record(sess.run({up_to[0], up_to[1], up_to[2], up_to[3]}));
  take_loose(49);
  BOOST_TEST(got.size() == 60u);
  BOOST_TEST(got == want, "the two stores disagree on the order");
  // Every row kept its components together: name n<i> goes with -i, i + 0.5 and 1000 i.
  for (const auto& e : got) {
    const int i = std::stoi(e.substr(1));
    BOOST_TEST(e == describe({af::Tensor::from_vector<std::int32_t>({i, -i}),
                              af::Tensor::from_vector<std::string>({"n" + std::to_string(i)}),
                              af::Tensor::from_vector<float>({static_cast<float>(i) + 0.5f}),
                              af::Tensor::from_vector<std::int64_t>(
                                  {1000 * i, 1000 * i + 1, 1000 * i + 2})},
                             0));
  }
  std::sort(got.begin(), got.end());
  BOOST_TEST((std::adjacent_find(got.begin(), got.end()) == got.end()),
             "an element came out twice");
}

BOOST_AUTO_TEST_SUITE_END()
