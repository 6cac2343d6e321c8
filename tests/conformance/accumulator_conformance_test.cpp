// TensorFlow 1.x's ConditionalAccumulator (tensorflow/python/kernel_tests/
// conditional_accumulator_test.py; kernels conditional_accumulator_base.cc and
// typed_conditional_accumulator_base.h), the building block of SyncReplicasOptimizer.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "matchers.hpp"
#include "pending_waits.hpp"

using namespace std::chrono_literals;
using af::test::contains;
using af::test::error_of;

BOOST_AUTO_TEST_SUITE(accumulator_conformance_test)

// testAccumulatorApplyGradFloat32 / testAccumulatorSizeAfterApplyGrad.
BOOST_AUTO_TEST_CASE(applied_gradients_are_counted, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32, {.shape = af::PartialShape{1}, .name = "Q"});
  BOOST_TEST(q.name() == "Q");
  auto apply = q.apply_grad(g.constant(af::Tensor::from_vector<float>({10.0f})));
  auto size = q.num_accumulated();
  af::Session sess(g);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 0);
  sess.run(apply);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);
  sess.run(apply);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 2);
}

// testAccumulatorTakeGradMean / testAccumulatorTakeGradSum: the average (or sum) of what
// came in; the count goes back to 0.
BOOST_AUTO_TEST_CASE(take_grad_returns_the_mean_or_the_sum_and_resets_the_count,
                     *boost::unit_test::timeout(60)) {
  for (const std::string reduction : {"MEAN", "SUM"}) {
    af::Graph g;
    af::ConditionalAccumulator q(
        g, af::float32, {.shape = af::PartialShape{1}, .name = "Q", .reduction_type = reduction});
    auto x = g.placeholder(af::float32, af::PartialShape{1});
    auto apply = q.apply_grad(x);
    auto take = q.take_grad(1);
    BOOST_TEST(take.shape().to_string() == "(1,)");
    af::Session sess(g);
    sess.run(apply, {{x, af::Tensor::from_vector<float>({10.0f})}});
    sess.run(apply, {{x, af::Tensor::from_vector<float>({20.0f})}});
    const float value = sess.run(take).to_vector<float>().at(0);
    BOOST_TEST(value == (reduction == "MEAN" ? 15.0f : 30.0f));
    BOOST_TEST(sess.run(q.num_accumulated()).scalar<std::int32_t>() == 0);
  }
}

// testAccumulatorSetGlobalStep / testAccumulatorApplyGradWithStaleStep: a gradient computed
// at a step below the accumulator's is dropped without an error.
BOOST_AUTO_TEST_CASE(stale_gradients_are_dropped_silently, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32, {.shape = af::PartialShape{1}});
  auto step = g.placeholder(af::int64, af::PartialShape{});
  auto apply = q.apply_grad(g.constant(af::Tensor::from_vector<float>({10.0f})), step);
  auto set_step = q.set_global_step(g.constant(af::Tensor(std::int64_t{1})));
  af::Session sess(g);
  sess.run(set_step);
  sess.run(apply, {{step, af::Tensor(std::int64_t{0})}});
  BOOST_TEST(sess.run(q.num_accumulated()).scalar<std::int32_t>() == 0);
  sess.run(apply, {{step, af::Tensor(std::int64_t{1})}});
  sess.run(apply, {{step, af::Tensor(std::int64_t{5})}});
  BOOST_TEST(sess.run(q.num_accumulated()).scalar<std::int32_t>() == 2);
}

// testAccumulatorTakeGradIncrementsGlobalStep (TakeGradLockedHelper): a take moves the
// accumulator's step on, so gradients of the step just taken become stale.
BOOST_AUTO_TEST_CASE(a_take_makes_the_taken_steps_gradients_stale, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float64, {.shape = af::PartialShape{2}});
  auto step = g.placeholder(af::int64, af::PartialShape{});
  auto grad = g.placeholder(af::float64, af::PartialShape{2});
  auto apply = q.apply_grad(grad, step);
  auto take = q.take_grad(2);
  af::Session sess(g);
  auto feed = [&](std::int64_t s, double a, double b) {
    sess.run(apply, {{step, af::Tensor(s)}, {grad, af::Tensor::from_vector<double>({a, b})}});
  };
  feed(0, 1, 2);
  feed(0, 3, 6);
  feed(0, 5, 10);  // three in: the take averages all of them, not just two
  BOOST_TEST(sess.run(take).to_vector<double>() == (std::vector<double>{3, 6}));
  feed(0, 100, 100);  // step 0 is now stale
  BOOST_TEST(sess.run(q.num_accumulated()).scalar<std::int32_t>() == 0);
  feed(1, 2, 2);
  feed(1, 4, 4);
  BOOST_TEST(sess.run(take).to_vector<double>() == (std::vector<double>{3, 3}));
}

// testAccumulatorInvalidTakeGrad and the shape checks of ConditionalAccumulator::ValidateShape.
BOOST_AUTO_TEST_CASE(bad_counts_and_shapes_are_invalid_arguments, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32, {.shape = af::PartialShape{-1}});
  auto grad = g.placeholder(af::float32);
  auto apply = q.apply_grad(grad);
  auto n = g.placeholder(af::int32, af::PartialShape{});
  auto take = q.take_grad(n);
  af::Session sess(g);
  auto e = error_of([&] { sess.run(take, {{n, af::Tensor(0)}}); });
  BOOST_TEST(contains(e, "Argument num_required must be positive, but was 0"), e);
  e = error_of([&] {
    sess.run(apply, {{grad, af::Tensor::from_vector<float>({1, 2}, af::Shape{1, 2})}});
  });
  BOOST_TEST(contains(e, "Shape mismatch: expected [?], got [1,2]"), e);
  sess.run(apply, {{grad, af::Tensor::from_vector<float>({1, 2})}});
  e = error_of([&] { sess.run(apply, {{grad, af::Tensor::from_vector<float>({1, 2, 3})}}); });
  BOOST_TEST(contains(e, "Shape mismatch: expected [2], got [3]"), e);
  BOOST_CHECK_THROW(af::ConditionalAccumulator(g, af::int32), af::InvalidArgumentError);
}

// testAccumulatorTakeGradWaits / testParallelApplyGrad: a take waits for enough gradients,
// holding no thread, and completes when another client applies them.
BOOST_AUTO_TEST_CASE(a_take_waits_until_enough_gradients_arrive, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32, {.shape = af::PartialShape{}});
  auto grad = g.placeholder(af::float32, af::PartialShape{});
  auto apply = q.apply_grad(grad);
  auto take = q.take_grad(3);
  af::Session sess(g);
  auto taken = std::async(std::launch::async, [&] { return sess.run(take).scalar<float>(); });
  sess.run(apply, {{grad, af::Tensor(1.0f)}});
  sess.run(apply, {{grad, af::Tensor(2.0f)}});
  BOOST_TEST((taken.wait_for(200ms) == std::future_status::timeout));
  sess.run(apply, {{grad, af::Tensor(6.0f)}});
  BOOST_TEST(taken.get() == 3.0f);
}

// A waiting take ends with the step's deadline and consumes nothing; closing the session
// cancels one ("TakeGrad operation was cancelled").
BOOST_AUTO_TEST_CASE(a_waiting_take_ends_with_the_steps_deadline_or_cancellation,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32,
                               {.shape = af::PartialShape{}, .shared_name = "acc_cancel"});
  auto apply = q.apply_grad(g.constant(af::Tensor(4.0f)));
  auto take = q.take_grad(2);
  {
    af::Session sess(g);
    sess.run(apply);
    BOOST_CHECK_THROW(sess.run(take, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
    BOOST_TEST(sess.run(q.num_accumulated()).scalar<std::int32_t>() == 1);
    auto waiting = std::async(
        std::launch::async, [&] { return error_of<af::CancelledError>([&] { sess.run(take); }); });
    BOOST_REQUIRE(af::test::await_waits("take", "acc_cancel"));
    sess.close();
    const std::string e = waiting.get();
    BOOST_TEST(contains(e, "was cancelled"), e);
  }
}

// Takes complete in the order they came (TryAttemptLocked serves the front attempt).
BOOST_AUTO_TEST_CASE(takes_complete_in_fifo_order, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::ConditionalAccumulator q(g, af::float32,
                               {.shape = af::PartialShape{}, .shared_name = "acc_fifo"});
  auto grad = g.placeholder(af::float32, af::PartialShape{});
  auto step = g.placeholder(af::int64, af::PartialShape{});
  auto apply = q.apply_grad(grad, step);
  auto take1 = q.take_grad(1, "take_one");
  auto take2 = q.take_grad(2, "take_two");
  af::Session sess(g);
  auto first = std::async(std::launch::async, [&] { return sess.run(take2).scalar<float>(); });
  BOOST_REQUIRE(af::test::await_waits("take", "acc_fifo"));
  std::this_thread::sleep_for(50ms);  // from registering to the accumulator: no wait between
  auto second = std::async(std::launch::async, [&] { return sess.run(take1).scalar<float>(); });
  BOOST_REQUIRE(af::test::await_waits("take", "acc_fifo", 2));
  std::this_thread::sleep_for(50ms);
  // One gradient would satisfy take1, but take2 came first and waits for two.
  sess.run(apply, {{grad, af::Tensor(1.0f)}, {step, af::Tensor(std::int64_t{0})}});
  BOOST_TEST((second.wait_for(100ms) == std::future_status::timeout));
  sess.run(apply, {{grad, af::Tensor(3.0f)}, {step, af::Tensor(std::int64_t{0})}});
  BOOST_TEST(first.get() == 2.0f);
  sess.run(apply, {{grad, af::Tensor(7.0f)}, {step, af::Tensor(std::int64_t{1})}});
  BOOST_TEST(second.get() == 7.0f);
}

BOOST_AUTO_TEST_SUITE_END()
