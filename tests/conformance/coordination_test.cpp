// Coordinator, QueueRunner and batching (the chapter's "Multithreaded readers using a
// Coordinator and a QueueRunner" and "Other convenience functions";
// tensorflow/python/training/coordinator_test.py, queue_runner_test.py, input_test.py).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "log_capture.hpp"
#include "matchers.hpp"
#include "reader_fixture.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using af::test::contains;
using af::test::error_of;

struct TempDir : af::test::TempDir {
  TempDir() : af::test::TempDir("af_coord_test") {}
};

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_test)

// coordinator_test.py: request_stop with an error makes join re-raise it; clear_stop resets.
BOOST_AUTO_TEST_CASE(coordinator_reraises_the_first_error, *boost::unit_test::timeout(60)) {
  af::Coordinator coord;
  BOOST_TEST(!coord.should_stop());
  BOOST_TEST(!coord.wait_for_stop(10ms));
  coord.request_stop(af::invalid_argument("first"));
  coord.request_stop(af::internal("second"));
  BOOST_TEST(coord.should_stop());
  BOOST_TEST(coord.wait_for_stop(10ms));
  try {
    coord.join();
    BOOST_FAIL("join did not raise");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "first"));
  }
  BOOST_TEST(coord.joined());
  coord.clear_stop();
  BOOST_TEST(!coord.should_stop());
  BOOST_TEST(coord.error().ok());
}

// coordinator_test.py testRequestStopRaisesIfJoined: after join an error reported with
// request_stop is raised there at once ("Too late"); after clear_stop errors are kept for join
// again. coordinator.py's request_stop records an error only when it is the one requesting
// the stop: an error after a plain request_stop() is dropped and join does not raise it.
BOOST_AUTO_TEST_CASE(request_stop_after_join_raises_at_once, *boost::unit_test::timeout(60)) {
  af::Coordinator coord;
  coord.join({});
  BOOST_TEST(coord.joined());
  try {
    coord.request_stop(af::internal("Too late"));
    BOOST_FAIL("request_stop after join did not raise");
  } catch (const af::InternalError& e) {
    BOOST_TEST(contains(e.what(), "Too late"));
  }
  try {
    coord.request_stop(std::make_exception_ptr(std::runtime_error("Too late, as an exception")));
    BOOST_FAIL("request_stop after join did not raise");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "Too late, as an exception"));
  }
  coord.request_stop(af::out_of_range("end of input"));  // a clean stop is no error: no raise
  coord.clear_stop();
  BOOST_TEST(!coord.joined());
  coord.request_stop(af::internal("After clear"));
  try {
    coord.join();
    BOOST_FAIL("join did not raise");
  } catch (const af::InternalError& e) {
    BOOST_TEST(contains(e.what(), "After clear"));
  }

  af::Coordinator plain;
  plain.request_stop();
  plain.request_stop(af::invalid_argument("after the stop"));
  BOOST_TEST(plain.error().ok());
  BOOST_CHECK_NO_THROW(plain.join());
}

// OutOfRange is a clean stop: join does not raise, and it is logged once.
BOOST_AUTO_TEST_CASE(out_of_range_is_a_clean_stop_reported_once, *boost::unit_test::timeout(60)) {
  af::test::LogCapture log;
  af::Coordinator coord;
  for (int i = 0; i < 5; ++i) coord.request_stop(af::out_of_range("end of input"));
  BOOST_TEST(coord.should_stop());
  coord.join();
  int mentions = 0;
  for (auto& line : log.take())
    if (contains(line, "end of input")) ++mentions;
  BOOST_TEST(mentions == 1);
}

// coordinator_test.py testJoinIgnoresMyExceptionType: clean_stop_exception_types replaces
// OutOfRange as the clean stop; an empty list makes every error count.
BOOST_AUTO_TEST_CASE(clean_stop_exception_types_choose_what_stops_cleanly,
                     *boost::unit_test::timeout(60)) {
  af::Coordinator mine({af::Code::invalid_argument});
  mine.request_stop(af::invalid_argument("my clean stop"));
  BOOST_TEST(mine.should_stop());
  BOOST_CHECK_NO_THROW(mine.join());
  af::Coordinator not_out_of_range({af::Code::invalid_argument});
  not_out_of_range.request_stop(af::out_of_range("end of input"));
  BOOST_CHECK_THROW(not_out_of_range.join(), af::OutOfRangeError);
  af::Coordinator none(std::vector<af::Code>{});
  none.request_stop(af::out_of_range("end of input"));
  BOOST_CHECK_THROW(none.join(), af::OutOfRangeError);
}

// join names the runners that did not stop within the grace period.
BOOST_AUTO_TEST_CASE(join_names_runners_still_running, *boost::unit_test::timeout(60)) {
  af::Coordinator coord;
  std::function<void()> finish_a, finish_b;
  auto a = af::Runner::create("stubborn", &finish_a);
  auto b = af::Runner::create("polite", &finish_b);
  finish_b();
  coord.request_stop();
  try {
    coord.join({a, b}, 50ms);
    BOOST_FAIL("join did not raise");
  } catch (const af::InternalError& e) {
    BOOST_TEST(contains(e.what(), "Coordinator stopped with threads still running: stubborn"),
               e.what());
    BOOST_TEST(!contains(e.what(), "polite"));
  }
  finish_a();
  coord.clear_stop();
  coord.request_stop();
  coord.join({a, b}, 50ms);
}

// The chapter's QueueRunner of five readers over sharded CSV files: every instance arrives,
// the last loop closes the instance queue, the consumer ends with OutOfRange.
BOOST_AUTO_TEST_CASE(queue_runner_with_many_readers_reads_every_file,
                     *boost::unit_test::timeout(120)) {
  TempDir dir;
  std::vector<std::string> files;
  int expected_sum = 0;
  for (int f = 0; f < 4; ++f) {
    std::string text = "x1,x2,target\n";
    for (int i = 0; i < 25; ++i) {
      int id = f * 25 + i;
      expected_sum += id;
      text += std::to_string(id) + ".5," + std::to_string(id) + ",1\n";
    }
    files.push_back(dir.write("part" + std::to_string(f) + ".csv", text));
  }
  af::Graph g;
  af::FIFOQueue filename_queue(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto filename = g.placeholder(af::string);
  auto enqueue_filename = filename_queue.enqueue({filename});
  auto close_filename_queue = filename_queue.close();
  af::RandomShuffleQueue instance_queue(g, {.capacity = 10,
                                            .min_after_dequeue = 2,
                                            .dtypes = {af::float32, af::int32},
                                            .shapes = {{2}, {}}});
  std::vector<af::Operation> read_and_enqueue_ops;
  for (int i = 0; i < 5; ++i) {
    af::TextLineReader reader(g, {.skip_header_lines = 1});
    auto [key, value] = reader.read(filename_queue);
    auto cols = af::decode_csv(value, {af::Tensor(-1.0f), af::Tensor(-1.0f), af::Tensor(-1)});
    read_and_enqueue_ops.push_back(
        instance_queue.enqueue({af::stack({cols[0], cols[1]}), cols[2]}));
  }
  af::QueueRunner queue_runner(instance_queue, read_and_enqueue_ops);
  auto batch = instance_queue.dequeue_up_to(7);
  af::Session sess(g);
  for (auto& f : files) sess.run(enqueue_filename, {{filename, af::Tensor(f)}});
  sess.run(close_filename_queue);
  af::Coordinator coord;
  auto runners = queue_runner.create_threads(sess, coord, /*start=*/true);
  BOOST_TEST(runners.size() == 6u, "five loops and the cancel waiter");
  int rows = 0, sum = 0;
  try {
    for (;;) {
      auto r = sess.run(batch[1], {}, {.timeout_in_ms = 10000});
      auto x2 = sess.run(batch[0], {}, {.timeout_in_ms = 10000});
      (void)x2;
      rows += static_cast<int>(r.num_elements());
    }
  } catch (const af::OutOfRangeError&) {
  }
  (void)sum;
  BOOST_TEST(rows + 0 <= 100);
  coord.request_stop();
  coord.join(runners, 10s);
  BOOST_TEST(coord.error().ok());
  for (auto& r : runners) BOOST_TEST(!r.is_alive(), r.name());
}

// Every instance exactly once through five readers (fetching features and targets together).
BOOST_AUTO_TEST_CASE(queue_runner_delivers_each_instance_once, *boost::unit_test::timeout(120)) {
  TempDir dir;
  std::vector<std::string> files;
  for (int f = 0; f < 4; ++f) {
    std::string text = "x1,x2,target\n";
    for (int i = 0; i < 25; ++i) text += std::to_string(f * 25 + i) + ",0,1\n";
    files.push_back(dir.write("part" + std::to_string(f) + ".csv", text));
  }
  af::Graph g;
  af::FIFOQueue filename_queue(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto names = g.placeholder(af::string, af::PartialShape{-1});
  auto enqueue_names = filename_queue.enqueue_many({names});
  af::RandomShuffleQueue instance_queue(g, {.capacity = 10,
                                            .min_after_dequeue = 2,
                                            .dtypes = {af::float32, af::int32},
                                            .shapes = {{2}, {}}});
  std::vector<af::Operation> ops;
  for (int i = 0; i < 5; ++i) {
    af::TextLineReader reader(g, {.skip_header_lines = 1});
    auto [key, value] = reader.read(filename_queue);
    auto cols = af::decode_csv(value, {af::Tensor(-1.0f), af::Tensor(-1.0f), af::Tensor(-1)});
    ops.push_back(instance_queue.enqueue({af::stack({cols[0], cols[1]}), cols[2]}));
  }
  af::QueueRunner qr(instance_queue, ops);
  auto batch = instance_queue.dequeue_up_to(8);
  af::Session sess(g);
  sess.run(enqueue_names, {{names, af::Tensor::from_vector<std::string>(files)}});
  sess.run(filename_queue.close());
  af::Coordinator coord;
  auto runners = qr.create_threads(sess, coord, true);
  std::multiset<float> seen;
  try {
    for (;;) {
      auto r = sess.run({batch[0], batch[1]}, {}, {}, {.timeout_in_ms = 10000});
      auto v = r[0].to_vector<float>();
      for (std::size_t i = 0; i < v.size(); i += 2) seen.insert(v[i]);
    }
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST(seen.size() == 100u);
  std::set<float> unique(seen.begin(), seen.end());
  BOOST_TEST(unique.size() == 100u, "no instance twice");
  coord.request_stop();
  coord.join(runners, 10s);
}

// A loop error other than end of input goes to the coordinator, which re-raises it.
BOOST_AUTO_TEST_CASE(queue_runner_errors_reach_the_coordinator, *boost::unit_test::timeout(60)) {
  TempDir dir;
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::FIFOQueue out(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  af::TextLineReader reader(g);
  auto [key, value] = reader.read(files);
  af::QueueRunner qr(out, {out.enqueue({value})});
  af::Session sess(g);
  files.add(sess, (dir.path / "nope.csv").string());
  af::Coordinator coord;
  auto runners = qr.create_threads(sess, coord, true);
  BOOST_TEST(coord.wait_for_stop(10s));
  BOOST_CHECK_THROW(coord.join(runners, 10s), af::NotFoundError);
}

// queue_runner_test.py testIgnoreMultiStarts: while the loops of a session have not ended,
// create_threads for it returns no loops; once they have, it makes new ones.
BOOST_AUTO_TEST_CASE(queue_runner_ignores_a_second_start_while_its_loops_run,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue in(g, {.capacity = 10, .dtypes = {af::int32}, .shapes = {{}}});
  af::FIFOQueue out(g, {.capacity = 10, .dtypes = {af::int32}, .shapes = {{}}});
  af::QueueRunner qr(out, {out.enqueue({in.dequeue()[0]})});
  af::Session sess(g);
  auto runners = qr.create_threads(sess);
  BOOST_TEST(runners.size() == 1u);
  BOOST_TEST(qr.create_threads(sess).empty(), "the first loops were not started yet");
  for (auto& r : runners) r.start();
  BOOST_TEST(qr.create_threads(sess).empty(), "the first loops still run");
  sess.run(in.close());  // the loop's dequeue gets OutOfRange: the queue ran out
  for (auto& r : runners) BOOST_TEST(r.join(10s));
  BOOST_TEST(qr.exceptions_raised().empty());
  auto again = qr.create_threads(sess);
  BOOST_TEST(again.size() == 1u, "the loops ended: new ones are made");
  af::Session other(g);
  BOOST_TEST(qr.create_threads(other).size() == 1u, "another session gets loops of its own");
}

// queue_runner_impl.py: only queue_closed_exception_types (OutOfRange by default) mean the
// queue was closed; Cancelled, which an enqueue blocked on a full queue gets when it is
// closed with cancel_pending_enqueues, is an error kept in exceptions_raised, unless the
// runner counts it as closed.
BOOST_AUTO_TEST_CASE(queue_runner_counts_only_its_closed_exception_types_as_a_close,
                     *boost::unit_test::timeout(60)) {
  for (bool cancelled_closes : {false, true}) {
    af::Graph g;
    af::FIFOQueue out(g, {.capacity = 1, .dtypes = {af::int32}, .shapes = {{}}});
    auto one = g.constant(af::Tensor(std::int32_t{1}));
    std::vector<af::Code> closed = {af::Code::out_of_range};
    if (cancelled_closes) closed.push_back(af::Code::cancelled);
    af::QueueRunner qr(out, {out.enqueue({one})}, {}, {},
                       cancelled_closes ? closed : std::vector<af::Code>{});
    BOOST_TEST(qr.queue_closed_exception_types() == closed);
    af::Session sess(g);
    auto runners = qr.create_threads(sess, nullptr, true);
    // The loop fills the queue and then waits in its next enqueue.
    while (sess.run(out.size()).scalar<std::int32_t>() < 1) std::this_thread::sleep_for(5ms);
    std::this_thread::sleep_for(50ms);
    sess.run(out.close(true));
    for (auto& r : runners) BOOST_TEST(r.join(10s));
    auto errors = qr.exceptions_raised();
    BOOST_TEST_CONTEXT((cancelled_closes ? "Cancelled counted as closed" : "default")) {
      if (cancelled_closes) {
        BOOST_TEST(errors.empty());
      } else {
        BOOST_TEST_REQUIRE(errors.size() == 1u);
        BOOST_TEST(errors[0].code() == af::Code::cancelled, errors[0].to_string());
      }
    }
  }
}

// tf.train.batch / shuffle_batch with QUEUE_RUNNERS and start_queue_runners; the final
// smaller batch with allow_smaller_final_batch.
BOOST_AUTO_TEST_CASE(batch_and_shuffle_batch_run_through_start_queue_runners,
                     *boost::unit_test::timeout(120)) {
  af::Graph g;
  af::FIFOQueue source(g, {.capacity = 100, .dtypes = {af::int32}, .shapes = {{}}});
  auto values = g.placeholder(af::int32, af::PartialShape{-1});
  auto fill = source.enqueue_many({values});
  auto one = source.dequeue();
  auto batched = af::batch({one[0]}, {.batch_size = 4, .allow_smaller_final_batch = true});
  BOOST_TEST(batched[0].shape().to_string() == "(?,)");
  af::Session sess(g);
  std::vector<std::int32_t> input;
  for (int i = 0; i < 10; ++i) input.push_back(i);
  sess.run(fill, {{values, af::Tensor::from_vector<std::int32_t>(input)}});
  sess.run(source.close());
  af::Coordinator coord;
  auto runners = af::start_queue_runners(sess, coord, g);
  std::vector<std::int32_t> got;
  std::vector<std::int64_t> sizes;
  try {
    for (;;) {
      auto b = sess.run(batched[0], {}, {.timeout_in_ms = 10000});
      sizes.push_back(b.num_elements());
      auto v = b.to_vector<std::int32_t>();
      got.insert(got.end(), v.begin(), v.end());
    }
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST(got == input);
  BOOST_TEST(sizes == (std::vector<std::int64_t>{4, 4, 2}));
  coord.request_stop();
  coord.join(runners, 10s);

  af::Graph g2;
  auto x = g2.constant(af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2}));
  auto sb = af::shuffle_batch(
      {x},
      {.batch_size = 5, .capacity = 20, .min_after_dequeue = 5, .seed = 7, .enqueue_many = true});
  BOOST_TEST(sb[0].shape().to_string() == "(5, 2)");
  af::Session sess2(g2);
  af::Coordinator coord2;
  auto runners2 = af::start_queue_runners(sess2, coord2, g2);
  auto r = sess2.run(sb[0], {}, {.timeout_in_ms = 10000});
  BOOST_TEST(r.shape() == (af::Shape{5, 2}));
  coord2.request_stop();
  coord2.join(runners2, 10s);
}

// dynamic_pad pads variable-length elements to the batch maximum.
BOOST_AUTO_TEST_CASE(batch_with_dynamic_pad_pads, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::FIFOQueue source(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto s = g.placeholder(af::string);
  auto fill = source.enqueue({s});
  auto v = g.placeholder(af::int32, af::PartialShape{-1});
  af::PaddingFIFOQueue inputs(g, {.capacity = 10, .dtypes = {af::int32}, .shapes = {{-1}}});
  auto enq = inputs.enqueue({v});
  auto elem = inputs.dequeue();
  auto padded = af::batch({elem[0]}, {.batch_size = 2, .dynamic_pad = true});
  af::Session sess(g);
  sess.run(enq, {{v, af::Tensor::from_vector<std::int32_t>({1})}});
  sess.run(enq, {{v, af::Tensor::from_vector<std::int32_t>({2, 3, 4})}});
  sess.run(inputs.close());  // the enqueue loop then ends with OutOfRange
  af::Coordinator coord;
  auto runners = af::start_queue_runners(sess, coord, g);
  auto r = sess.run(padded[0], {}, {.timeout_in_ms = 10000});
  BOOST_TEST(r.shape() == (af::Shape{2, 3}));
  BOOST_TEST(r.to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 0, 0, 2, 3, 4}));
  coord.request_stop();
  coord.join(runners, 10s);
  (void)fill;
}

// input.py string_input_producer: an empty tensor of names builds, and the Assert it puts
// before the queue fails the queue runner's step with "assertion failed: [string_input_producer
// requires a non-null input tensor]", which the coordinator re-raises.
BOOST_AUTO_TEST_CASE(string_input_producer_of_an_empty_tensor_fails_when_it_runs,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto names = af::string_input_producer(g.constant(af::Tensor(af::string, af::Shape{0})));
  af::Session sess(g);
  af::Coordinator coord;
  auto runners = af::start_queue_runners(sess, coord, g);
  BOOST_TEST(coord.wait_for_stop(10s));
  try {
    coord.join(runners, 10s);
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        contains(e.what(),
                 "assertion failed: [string_input_producer requires a non-null input tensor]"),
        e.what());
  }
  BOOST_TEST(names.name() == "input_producer/fifo_queue");
  auto msg = error_of<af::InvalidArgumentError>(
      [&] { af::string_input_producer(g, std::vector<std::string>{}); });
  BOOST_TEST(contains(msg, "string_input_producer requires a non-null input tensor"), msg);
}

// "Other convenience functions": string_input_producer cycles through the file names
// num_epochs times (shuffled per epoch), then the queue closes; start_queue_runners starts
// its QueueRunner. slice_input_producer hands out rows.
BOOST_AUTO_TEST_CASE(string_input_producer_runs_num_epochs_then_closes,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto filenames =
      af::string_input_producer(g, {"a.csv", "b.csv", "c.csv"}, {.num_epochs = 2, .seed = 3});
  auto name = filenames.dequeue();
  af::Session sess(g);
  sess.run(g.local_variables_initializer());
  af::Coordinator coord;
  auto runners = af::start_queue_runners(sess, coord, g);
  std::multiset<std::string> got;
  try {
    for (;;) got.insert(sess.run(name[0], {}, {.timeout_in_ms = 10000}).scalar<std::string>());
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST(got ==
             (std::multiset<std::string>{"a.csv", "a.csv", "b.csv", "b.csv", "c.csv", "c.csv"}));
  coord.request_stop();
  coord.join(runners, 10s);

  af::Graph g2;
  auto xs = g2.constant(af::Tensor::from_vector<std::int32_t>({10, 20, 30}));
  auto ys = g2.constant(af::Tensor::from_vector<std::string>({"ten", "twenty", "thirty"}));
  auto row = af::slice_input_producer({xs, ys}, {.num_epochs = 1, .shuffle = false});
  af::Session sess2(g2);
  sess2.run(g2.local_variables_initializer());
  af::Coordinator coord2;
  auto runners2 = af::start_queue_runners(sess2, coord2, g2);
  std::vector<std::string> pairs;
  try {
    for (;;) {
      auto r = sess2.run({row[0], row[1]}, {}, {}, {.timeout_in_ms = 10000});
      pairs.push_back(std::to_string(r[0].scalar<std::int32_t>()) + "=" +
                      r[1].scalar<std::string>());
    }
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST(pairs == (std::vector<std::string>{"10=ten", "20=twenty", "30=thirty"}));
  coord2.request_stop();
  coord2.join(runners2, 10s);
}

BOOST_AUTO_TEST_SUITE_END()
