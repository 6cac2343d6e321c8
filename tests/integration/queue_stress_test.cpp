// Nothing is lost: 8 producers and 8 consumers move 10^6 items through one queue actor with
// random timeouts and step cancellations; afterwards every item whose enqueue succeeded
// was dequeued exactly once or is still in the queue, and no item whose enqueue failed
// appears anywhere.
#include <actorflow/actorflow.hpp>
#include <actorflow/actors/message_types.hpp>
#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(queue_stress_test)

BOOST_AUTO_TEST_CASE(every_enqueued_item_is_dequeued_exactly_once_or_still_queued,
                     *boost::unit_test::timeout(600)) {
  constexpr std::int64_t kItems = 1'000'000;
  constexpr int kProducers = 8;
  constexpr int kConsumers = 8;
  auto handle = af::QueueHandle::open({.kind = af::QueueKind::fifo,
                                       .name = "stress_queue",
                                       .dtypes = {af::int64},
                                       .shapes = {af::PartialShape(af::Shape{})},
                                       .capacity = 1000});
  // Consumers dequeue through graph ops in sessions sharing the queue.
  af::Graph g;
  af::FIFOQueue q(
      g, {.capacity = 1000, .dtypes = {af::int64}, .shapes = {{}}, .shared_name = "stress_queue"});
  auto n = g.placeholder(af::int32, af::PartialShape(af::Shape{}));
  auto taken = q.dequeue_many(n);
  // A step that fails after a delay, cancelling the dequeue waiting beside it.
  auto doomed_input = g.placeholder(af::float32, af::PartialShape{-1});
  auto doomed = af::reshape(af::delay(doomed_input, 300us), std::vector<std::int64_t>{7});

  std::mutex mu;
  std::vector<std::int64_t> enqueued, failed_enqueues, dequeued;
  std::atomic<std::int64_t> next{0};
  std::atomic<int> timeouts{0}, cancellations{0}, producers_left{kProducers};

  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937 rng(1000 + p);
      std::vector<std::int64_t> mine, lost;
      for (;;) {
        std::int64_t count = std::uniform_int_distribution<std::int64_t>(1, 200)(rng);
        std::int64_t first = next.fetch_add(count);
        if (first >= kItems) break;
        count = std::min(count, kItems - first);
        if (rng() % 4 == 0) {
          // Single enqueues with short timeouts: each either entered or did not.
          for (std::int64_t i = first; i < first + count; ++i) {
            try {
              handle.enqueue({af::Tensor(i)}, std::chrono::milliseconds(rng() % 3));
              mine.push_back(i);
            } catch (const af::DeadlineExceededError&) {
              lost.push_back(i);
              ++timeouts;
            }
          }
        } else {
          std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
          for (std::int64_t i = 0; i < count; ++i) ids[static_cast<std::size_t>(i)] = first + i;
          handle.enqueue_many({af::Tensor::from_vector<std::int64_t>(ids)});
          mine.insert(mine.end(), ids.begin(), ids.end());
        }
      }
      std::lock_guard<std::mutex> guard(mu);
      enqueued.insert(enqueued.end(), mine.begin(), mine.end());
      failed_enqueues.insert(failed_enqueues.end(), lost.begin(), lost.end());
      --producers_left;
    });
  }
  std::vector<std::unique_ptr<af::Session>> sessions;
  for (int c = 0; c < kConsumers / 2; ++c) sessions.push_back(std::make_unique<af::Session>(g));
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937 rng(2000 + c);
      std::vector<std::int64_t> mine;
      af::Session* sess = c % 2 == 0 ? sessions[static_cast<std::size_t>(c / 2)].get() : nullptr;
      while (producers_left > 0) {
        auto k = static_cast<std::int32_t>(1 + rng() % 64);
        try {
          std::vector<af::Tensor> got;
          if (sess) {
            if (rng() % 8 == 0) {
              // Cancelled by the failing op of the same step: takes nothing.
              try {
                sess->run(
                    {taken[0], doomed},
                    {{n, af::Tensor(k)}, {doomed_input, af::Tensor::from_vector<float>({1, 2})}});
              } catch (const af::InvalidArgumentError&) {
                ++cancellations;
              }
              continue;
            }
            got.push_back(sess->run(taken[0], {{n, af::Tensor(k)}},
                                    {.timeout_in_ms = static_cast<std::int64_t>(1 + rng() % 5)}));
          } else {
            got = handle.dequeue_many(k, std::chrono::milliseconds(rng() % 5));
          }
          auto v = got[0].to_vector<std::int64_t>();
          mine.insert(mine.end(), v.begin(), v.end());
        } catch (const af::DeadlineExceededError&) {
          ++timeouts;
        }
      }
      std::lock_guard<std::mutex> guard(mu);
      dequeued.insert(dequeued.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  handle.close();
  std::vector<std::int64_t> remaining;
  try {
    for (;;) {
      auto v = handle.dequeue_up_to(100000)[0].to_vector<std::int64_t>();
      remaining.insert(remaining.end(), v.begin(), v.end());
    }
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST_MESSAGE("enqueued " << enqueued.size() << ", failed enqueues "
                                 << failed_enqueues.size() << ", dequeued " << dequeued.size()
                                 << ", left " << remaining.size() << ", timeouts " << timeouts
                                 << ", cancellations " << cancellations);
  BOOST_TEST(enqueued.size() + failed_enqueues.size() == static_cast<std::size_t>(kItems));
  BOOST_TEST(timeouts > 0);
  BOOST_TEST(cancellations > 0);
  std::vector<std::int64_t> out = dequeued;
  out.insert(out.end(), remaining.begin(), remaining.end());
  std::sort(out.begin(), out.end());
  std::sort(enqueued.begin(), enqueued.end());
  BOOST_TEST((std::adjacent_find(out.begin(), out.end()) == out.end()), "no item dequeued twice");
  BOOST_TEST(out.size() == enqueued.size(), "nothing lost, nothing invented");
  BOOST_TEST((out == enqueued), "exactly the successfully enqueued items");
  sessions.clear();
}

// A host actor uses the queue through requests (queue_request_atom).
BOOST_AUTO_TEST_CASE(host_actors_use_queue_requests, *boost::unit_test::timeout(60)) {
  auto handle = af::QueueHandle::open({.kind = af::QueueKind::fifo,
                                       .name = "actor_queue",
                                       .dtypes = {af::string},
                                       .shapes = {af::PartialShape(af::Shape{})}});
  auto& sys = af::Runtime::global().system();
  caf::scoped_actor self{sys};
  std::vector<af::Tensor> words{af::Tensor::from_vector<std::string>({"a", "b", "c"})};
  self->request(handle.actor(), 5s, af::queue_request_atom::value, af::QueueOp::enqueue_many, words,
                std::int64_t{0}, std::int64_t{-1})
      .receive([](const std::vector<af::Tensor>&) {},
               [](caf::error& e) { BOOST_FAIL(caf::to_string(e)); });
  BOOST_TEST(handle.size() == 3);
  self->request(handle.actor(), 5s, af::queue_request_atom::value, af::QueueOp::dequeue_many,
                std::vector<af::Tensor>{}, std::int64_t{2}, std::int64_t{1000})
      .receive(
          [](const std::vector<af::Tensor>& r) {
            BOOST_TEST(r.at(0).to_vector<std::string>() == (std::vector<std::string>{"a", "b"}));
          },
          [](caf::error& e) { BOOST_FAIL(caf::to_string(e)); });
  // A timed request on a queue with too few elements: DeadlineExceeded, nothing taken.
  self->request(handle.actor(), 5s, af::queue_request_atom::value, af::QueueOp::dequeue_many,
                std::vector<af::Tensor>{}, std::int64_t{5}, std::int64_t{50})
      .receive([](const std::vector<af::Tensor>&) { BOOST_FAIL("dequeue_many(5) of 1 succeeded"); },
               [](caf::error& e) {
                 BOOST_TEST(af::status_from_caf_error(e, "").code() == af::Code::deadline_exceeded);
               });
  BOOST_TEST(handle.size() == 1);
  BOOST_TEST(handle.dequeue()[0].scalar<std::string>() == "c");
}

BOOST_AUTO_TEST_SUITE_END()
