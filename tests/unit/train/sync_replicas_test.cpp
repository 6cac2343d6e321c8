// SyncReplicasOptimizer in one process: the graph TensorFlow builds
// (sync_replicas_optimizer.py), the token protocol with replica threads sharing one session,
// spare replicas, and a replica that stops. The cluster form is
// tests/integration/sync_replicas_cluster_test.cpp.
#include <actorflow/actorflow.hpp>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "matchers.hpp"

using namespace std::chrono_literals;
using af::test::contains;
using af::test::error_of;

namespace {

int next_case() {
  static int n = 0;
  return ++n;
}

/// loss = w * c, so every replica's gradient of w is c whatever w is: with one c for all,
/// each update moves w by exactly lr * c however the gradients were grouped.
struct LinearModel {
  af::Graph g;
  /// The token queue is shared by name process-wide, as queues are: tokens an earlier case
  /// left would hand out its global step, so each model keeps its resources in a container
  /// of its own.
  af::ScopeGuard container = g.container("case" + std::to_string(next_case()));
  af::Variable global_step = af::train::get_or_create_global_step(g);
  af::Variable w = g.variable(af::Tensor::from_vector<float>({10.0f, 20.0f}), {.name = "w"});
  af::Output c = g.placeholder(af::float32, af::PartialShape{2}, "c");
  af::Output loss = af::reduce_sum(w.value() * c);
  af::train::GradientDescentOptimizer sgd{0.5};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sync_replicas_test)

BOOST_AUTO_TEST_CASE(apply_gradients_builds_tensorflows_graph, *boost::unit_test::timeout(60)) {
  LinearModel m;
  af::train::SyncReplicasOptimizer sync(m.sgd, 2, 3);
  BOOST_TEST(sync.tokens_per_step() == 3);
  BOOST_CHECK_THROW(sync.get_chief_queue_runner(), af::FailedPreconditionError);
  auto train_op = sync.minimize(m.loss, m.global_step);
  BOOST_TEST(train_op.type() == "Assign");
  BOOST_TEST(sync.local_step().name() == "sync_rep_local_step");
  BOOST_TEST(m.g.local_variables().size() == 1u);
  // The accumulator is shared as <var>:0/grad_accum, under the optimizer's name scope.
  auto accum = m.g.operation("sync_replicas/conditional_accumulator");
  BOOST_TEST(accum.type() == "ConditionalAccumulator");
  BOOST_TEST(*accum.node_def().attr<std::string>("shared_name") == "w:0/grad_accum");
  BOOST_TEST(m.g.operation("sync_token_q").type() == "FIFOQueueV2");
  BOOST_TEST(m.g.operation("dummy_queue").type() == "FIFOQueueV2");
  BOOST_TEST(sync.get_chief_queue_runner().enqueue_ops().size() == 1u);
  BOOST_TEST(sync.get_init_tokens_op(0).name() == "no_init_tokens");
  // A second sync train op in one graph would leave replicas waiting for tokens.
  BOOST_CHECK_THROW(sync.minimize(m.loss, m.global_step), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(too_few_init_tokens_are_refused, *boost::unit_test::timeout(60)) {
  LinearModel m;
  // Two replicas each computing two batches per update need 4 - 2 = 2 tokens up front.
  af::train::SyncReplicasOptimizer sync(m.sgd, 4, 2);
  sync.minimize(m.loss, m.global_step);
  auto e = error_of<af::InvalidArgumentError>([&] { sync.get_init_tokens_op(1); });
  BOOST_TEST(contains(e, "Too few tokens to finish the first step: 1 (given) vs 2 (needed)"), e);
}

// One replica in one session (the protocol without sharing a local step): the chief's queue
// runner averages, updates and hands out tokens; the replica's token is the new global step.
// When no gradient comes, the chief's step waits until its deadline and consumes nothing.
// Several replicas, each with its own local step on its own task, are in
// tests/integration/sync_replicas_cluster_test.cpp.
BOOST_AUTO_TEST_CASE(one_replica_trains_through_tokens_and_the_chiefs_queue_runner,
                     *boost::unit_test::timeout(120)) {
  LinearModel m;
  af::train::SyncReplicasOptimizer sync(m.sgd, 1);
  auto train_op = sync.minimize(m.loss, m.global_step);
  af::Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  sess.run(m.g.local_variables_initializer());
  sess.run(sync.chief_init_op());
  sess.run(sync.get_init_tokens_op());
  af::Coordinator coord;
  auto runners = sync.get_chief_queue_runner().create_threads(sess, coord, /*start=*/true);
  const af::Tensor c = af::Tensor::from_vector<float>({1.0f, 2.0f});
  std::int64_t token = 0;
  int runs = 0;
  while (token < 10 && runs++ < 100)
    token =
        sess.run(train_op.output(0), {{m.c, c}}, {.timeout_in_ms = 20000}).scalar<std::int64_t>();
  BOOST_TEST(token == 10);
  // The init token carried step 0, so the second gradient is stale (as in TensorFlow) unless
  // it came before the chief's first take started.
  BOOST_TEST((runs == 10 || runs == 11), runs);
  BOOST_TEST(sess.run(m.global_step.value()).scalar<std::int64_t>() == 10);
  BOOST_TEST(sess.run(m.w.value()).to_vector<float>() == (std::vector<float>{5.0f, 10.0f}));
  const auto& sync_op = sync.get_chief_queue_runner().enqueue_ops()[0];
  BOOST_CHECK_THROW(sess.run(sync_op, {}, {.timeout_in_ms = 300}), af::DeadlineExceededError);
  BOOST_TEST(sess.run(m.global_step.value()).scalar<std::int64_t>() == 10);
  coord.request_stop();
  sess.close();  // cancels the chief's waiting take
  coord.join(runners, 10s, /*ignore_live_runners=*/true);
}

BOOST_AUTO_TEST_CASE(average_gradients_averages_each_variable_over_the_towers,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto w = g.variable(af::Tensor::from_vector<float>({1.0f, 2.0f}), {.name = "w"});
  std::vector<std::vector<af::train::GradAndVar>> towers;
  af::train::GradientDescentOptimizer sgd(0.1);
  for (float c : {1.0f, 2.0f, 6.0f}) {
    auto loss = af::reduce_sum(w.value() * g.constant(af::Tensor::from_vector<float>({c, -c})));
    towers.push_back(sgd.compute_gradients(loss));
  }
  auto averaged = af::train::average_gradients(towers);
  BOOST_TEST(averaged.size() == 1u);
  BOOST_TEST(averaged[0].var.name() == "w");
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(averaged[0].grad.dense()).to_vector<float>() ==
             (std::vector<float>{3.0f, -3.0f}));
  towers[1].pop_back();
  BOOST_CHECK_THROW(af::train::average_gradients(towers), af::InvalidArgumentError);
}

// In-graph synchronous replication (the chapter's towers): each tower on its own CPU device
// takes half the batch; average_gradients of the two equals the gradient of the whole batch
// (mean losses over equal halves), and one apply of the average trains as one big step.
BOOST_AUTO_TEST_CASE(towers_on_two_devices_average_to_the_whole_batchs_gradient,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto w = g.variable(
      af::Tensor::from_vector<float>({0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f}, af::Shape{3, 2}),
      {.name = "w"});
  auto x = g.placeholder(af::float32, af::PartialShape{8, 3}, "x");
  auto y = g.placeholder(af::float32, af::PartialShape{8, 2}, "y");
  af::train::GradientDescentOptimizer sgd(0.1);
  std::vector<std::vector<af::train::GradAndVar>> towers;
  for (int k = 0; k < 2; ++k) {
    auto on = g.device("/cpu:" + std::to_string(k));
    auto xk = af::slice(x, {4 * k, 0}, {4, 3});
    auto yk = af::slice(y, {4 * k, 0}, {4, 2});
    towers.push_back(sgd.compute_gradients(
        af::reduce_mean(af::squared_difference(af::matmul(xk, w.value()), yk))));
    BOOST_TEST(towers.back()[0].grad.op().device().find("CPU:" + std::to_string(k)) !=
               std::string::npos);
  }
  auto averaged = af::train::average_gradients(towers);
  auto whole =
      sgd.compute_gradients(af::reduce_mean(af::squared_difference(af::matmul(x, w.value()), y)));
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Session sess(g, config);
  sess.run(g.global_variables_initializer());
  std::vector<float> xv(24), yv(16);
  for (int i = 0; i < 24; ++i)
    xv[static_cast<std::size_t>(i)] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (int i = 0; i < 16; ++i) yv[static_cast<std::size_t>(i)] = 0.2f * static_cast<float>(i % 5);
  const af::FeedDict feeds = {{x, af::Tensor::from_vector<float>(xv, af::Shape{8, 3})},
                              {y, af::Tensor::from_vector<float>(yv, af::Shape{8, 2})}};
  auto values = sess.run({averaged[0].grad.dense(), whole[0].grad.dense()}, feeds);
  const auto a = values[0].to_vector<float>(), b = values[1].to_vector<float>();
  BOOST_REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    BOOST_TEST(a[i] == b[i], boost::test_tools::tolerance(1e-5f));
}

BOOST_AUTO_TEST_SUITE_END()
