// The ordered background iterator of prefetch and parallel map (data/src/background_iterator):
// the input's order kept by any number of workers, errors in their element's place, a
// function's end, the capacity bound, and iterators dropped while their workers run.
// scripts/tsan.sh runs these under ThreadSanitizer.
#include "background_iterator.hpp"

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using af::Status;
using af::Tensor;
using af::data::detail::ElementFn;
using af::data::detail::IteratorBase;
using af::data::detail::IteratorEnv;
using af::data::detail::make_background_iterator;

// 0, 1, ..., n - 1; every element that is a multiple of `bad` fails (0: none). Counts reads.
struct Counting final : IteratorBase {
  Counting(std::int64_t n, std::int64_t bad, std::atomic<std::int64_t>* reads)
      : n(n), bad(bad), reads(reads) {}
  Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
    *end = next >= n;
    if (*end) return {};
    const std::int64_t v = next++;
    reads->fetch_add(1);
    if (bad > 0 && v > 0 && v % bad == 0) return af::invalid_argument("bad element");
    out->assign(1, Tensor(v));
    return {};
  }
  std::int64_t next = 0, n, bad;
  std::atomic<std::int64_t>* reads;
};

// Doubles an element; ends the sequence at `end_at` (a map function's OutOfRange).
ElementFn doubling(std::int64_t end_at = -1) {
  return [end_at](const IteratorEnv&, std::vector<Tensor> in, std::vector<Tensor>* out, bool* end) {
    const std::int64_t v = in[0].scalar<std::int64_t>();
    if (v == end_at) {
      *end = true;
      return Status{};
    }
    out->assign(1, Tensor(2 * v));
    return Status{};
  };
}

struct Drained {
  std::vector<std::int64_t> values;
  int errors = 0;
};

Drained drain(IteratorBase& it, std::int64_t limit = 1 << 30) {
  Drained d;
  const IteratorEnv env;
  while (static_cast<std::int64_t>(d.values.size()) < limit) {
    std::vector<Tensor> out;
    bool end = false;
    const Status s = it.get_next(env, &out, &end);
    if (!s.ok()) {
      BOOST_TEST(s.message() == "bad element");
      ++d.errors;
      continue;
    }
    if (end) break;
    d.values.push_back(out[0].scalar<std::int64_t>());
  }
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(background_iterator_test)

BOOST_AUTO_TEST_CASE(workers_keep_the_inputs_order_and_errors_their_place,
                     *boost::unit_test::timeout(60)) {
  for (int threads = 1; threads <= 4; ++threads)
    for (std::size_t capacity : {1u, 3u, 16u, 64u}) {
      BOOST_TEST_CONTEXT("threads " << threads << ", capacity " << capacity) {
        std::atomic<std::int64_t> reads{0};
        auto it = make_background_iterator(std::make_unique<Counting>(1000, 97, &reads), doubling(),
                                           threads, capacity);
        const Drained d = drain(*it);
        BOOST_TEST(d.errors == 10);  // 97, 194, ..., 970
        std::vector<std::int64_t> want;
        for (std::int64_t v = 0; v < 1000; ++v)
          if (v == 0 || v % 97 != 0) want.push_back(2 * v);
        BOOST_TEST(d.values == want, boost::test_tools::per_element());
        // The end stays the end.
        std::vector<Tensor> out;
        bool end = false;
        BOOST_TEST(it->get_next(IteratorEnv{}, &out, &end).ok());
        BOOST_TEST(end);
      }
    }
}

BOOST_AUTO_TEST_CASE(prefetch_passes_elements_through, *boost::unit_test::timeout(60)) {
  std::atomic<std::int64_t> reads{0};
  auto it = make_background_iterator(std::make_unique<Counting>(50, 0, &reads), ElementFn{}, 1, 4);
  const Drained d = drain(*it);
  std::vector<std::int64_t> want(50);
  for (std::int64_t v = 0; v < 50; ++v) want[static_cast<std::size_t>(v)] = v;
  BOOST_TEST(d.values == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_functions_end_ends_the_sequence_there, *boost::unit_test::timeout(60)) {
  for (int threads = 1; threads <= 3; ++threads) {
    std::atomic<std::int64_t> reads{0};
    auto it = make_background_iterator(std::make_unique<Counting>(1000, 0, &reads), doubling(40),
                                       threads, 32);
    const Drained d = drain(*it);
    BOOST_TEST(d.values.size() == 40u);
    BOOST_TEST(d.values.back() == 78);
    // The workers stop reading soon after the end (within the capacity).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    BOOST_TEST(reads.load() <= 41 + 32);
  }
}

BOOST_AUTO_TEST_CASE(workers_stay_within_the_capacity, *boost::unit_test::timeout(60)) {
  std::atomic<std::int64_t> reads{0};
  auto it =
      make_background_iterator(std::make_unique<Counting>(10000, 0, &reads), doubling(), 3, 8);
  const IteratorEnv env;
  std::int64_t taken = 0, most_ahead = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<Tensor> out;
    bool end = false;
    BOOST_TEST_REQUIRE(it->get_next(env, &out, &end).ok());
    ++taken;
    if (i % 20 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // slow reader
    most_ahead = std::max(most_ahead, reads.load() - taken);
  }
  BOOST_TEST(most_ahead <= 8);
}

// Iterators dropped at once, early, or mid-stream while their workers read and call: the
// destructor stops and joins them.
BOOST_AUTO_TEST_CASE(iterators_dropped_while_workers_run, *boost::unit_test::timeout(60)) {
  for (int round = 0; round < 100; ++round) {
    std::atomic<std::int64_t> reads{0};
    auto it = make_background_iterator(std::make_unique<Counting>(100000, 0, &reads),
                                       round % 2 ? doubling() : ElementFn{}, 1 + round % 4,
                                       1 + static_cast<std::size_t>(round % 20));
    if (round % 3 != 0) {
      const Drained d = drain(*it, round % 50);
      BOOST_TEST(static_cast<std::int64_t>(d.values.size()) == round % 50);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
