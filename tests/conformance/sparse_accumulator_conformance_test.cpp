// TensorFlow 1.x's SparseConditionalAccumulator (sparse_conditional_accumulator_test.py;
// kernel sparse_conditional_accumulator.h, sparse-notes section 7): sums of IndexedSlices by
// merge join, the per-row mean, the declared shape's checks and texts, stale gradients, and
// SyncReplicasOptimizer aggregating an embedding's slices with it.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "matchers.hpp"

using namespace std::chrono_literals;
using af::test::contains;
using af::test::error_of;

namespace {

// An accumulator fed through placeholders: indices [N], values [N, ...].
struct Fed {
  af::Graph g;
  af::SparseConditionalAccumulator q;
  af::Output indices = g.placeholder(af::int64, {}, "indices");
  af::Output values = g.placeholder(af::float32, {}, "values");
  af::Output step = g.placeholder(af::int64, af::PartialShape{}, "step");
  af::Operation apply;
  explicit Fed(af::ConditionalAccumulatorOptions options, bool known_shape = true,
               af::Tensor dense_shape = af::Tensor::from_vector<std::int64_t>({-1, 2}))
      : q(g, af::float32, std::move(options)) {
    af::IndexedSlices grad{values, indices,
                           known_shape ? g.constant(dense_shape, "dense_shape") : af::Output()};
    apply = q.apply_indexed_slices_grad(grad, step);
  }
  void run(af::Session& sess, std::vector<std::int64_t> idx, std::vector<float> vals,
           std::vector<std::int64_t> shape, std::int64_t local_step = 0) {
    sess.run(apply, {{indices, af::Tensor::from_vector(idx)},
                     {values, af::Tensor::from_vector(vals, af::Shape(shape))},
                     {step, af::Tensor(local_step)}});
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sparse_accumulator_conformance_test)

// sparse-notes Ex.10 (testAccumulatorTakeGradMean / Sum): the rows merge by index; MEAN
// divides each row by the number of gradients that reached it; the shape's first dimension
// is -1 for the shape () that SyncReplicasOptimizer declares.
BOOST_AUTO_TEST_CASE(slices_merge_by_index_and_each_row_is_averaged_over_its_own_count,
                     *boost::unit_test::timeout(60)) {
  for (const std::string reduction : {"MEAN", "SUM"}) {
    Fed f({.shape = af::PartialShape(af::Shape{}), .name = "Q", .reduction_type = reduction});
    BOOST_TEST(f.q.name() == "Q");
    af::IndexedSlices taken = f.q.take_indexed_slices_grad(2);
    af::Session sess(f.g);
    f.run(sess, {0, 1}, {1, 0, 0, 2}, {2, 2});
    BOOST_TEST(sess.run(f.q.num_accumulated()).scalar<std::int32_t>() == 1);
    f.run(sess, {0, 2}, {0, 1, 3, 0}, {2, 2});
    auto out = sess.run({taken.indices, taken.values, taken.dense_shape});
    BOOST_TEST(out[0].to_vector<std::int64_t>() == std::vector<std::int64_t>({0, 1, 2}),
               boost::test_tools::per_element());
    const std::vector<float> want = reduction == "MEAN" ? std::vector<float>{0.5f, 0.5f, 0, 2, 3, 0}
                                                        : std::vector<float>{1, 1, 0, 2, 3, 0};
    BOOST_TEST(out[1].to_vector<float>() == want, boost::test_tools::per_element());
    BOOST_TEST(out[1].shape().to_string() == "[3,2]");
    BOOST_TEST(out[2].to_vector<std::int64_t>() == std::vector<std::int64_t>({-1, 2}),
               boost::test_tools::per_element());
    BOOST_TEST(sess.run(f.q.num_accumulated()).scalar<std::int32_t>() == 0);
  }
}

// A declared first dimension is the taken shape's; a take moves the step on and the taken
// step's gradients are stale (dropped without an error).
BOOST_AUTO_TEST_CASE(the_declared_shape_is_returned_and_stale_slices_are_dropped,
                     *boost::unit_test::timeout(60)) {
  Fed f({.shape = af::PartialShape{3, 2}}, true, af::Tensor::from_vector<std::int64_t>({3, 2}));
  af::IndexedSlices taken = f.q.take_indexed_slices_grad(1);
  af::Session sess(f.g);
  f.run(sess, {2}, {4, 6}, {1, 2}, 0);
  auto out = sess.run({taken.indices, taken.values, taken.dense_shape});
  BOOST_TEST(out[2].to_vector<std::int64_t>() == std::vector<std::int64_t>({3, 2}),
             boost::test_tools::per_element());
  f.run(sess, {1}, {1, 1}, {1, 2}, 0);  // step 0 < the accumulator's 1
  BOOST_TEST(sess.run(f.q.num_accumulated()).scalar<std::int32_t>() == 0);
  f.run(sess, {1}, {1, 1}, {1, 2}, 1);
  BOOST_TEST(sess.run(f.q.num_accumulated()).scalar<std::int32_t>() == 1);
}

// TensorFlow never sorts: rows whose equal indices do not meet in the join stay apart, and
// their sum is still the whole gradient once duplicates are summed.
BOOST_AUTO_TEST_CASE(unsorted_indices_keep_duplicates_as_tensorflow_does,
                     *boost::unit_test::timeout(60)) {
  Fed f({.shape = af::PartialShape(af::Shape{}), .reduction_type = "SUM"});
  af::IndexedSlices taken = f.q.take_indexed_slices_grad(2);
  af::Session sess(f.g);
  f.run(sess, {2, 0}, {1, 1, 2, 2}, {2, 2});
  f.run(sess, {0, 2}, {10, 10, 20, 20}, {2, 2});
  auto out = sess.run({taken.indices, taken.values});
  BOOST_TEST(out[0].to_vector<std::int64_t>() == std::vector<std::int64_t>({0, 2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].to_vector<float>() == std::vector<float>({10, 10, 21, 21, 2, 2}),
             boost::test_tools::per_element());
}

// GetAndValidateTensorInputForApplyGrad and ValidateShape: TensorFlow's texts.
BOOST_AUTO_TEST_CASE(malformed_slices_fail_with_tensorflows_messages,
                     *boost::unit_test::timeout(60)) {
  Fed f({.shape = af::PartialShape{2, 2}}, true, af::Tensor::from_vector<std::int64_t>({2, 2}));
  af::Session sess(f.g);
  auto apply_error = [&](std::vector<std::int64_t> idx, std::vector<std::int64_t> idx_shape,
                         std::vector<float> vals, std::vector<std::int64_t> shape) {
    return error_of([&] {
      sess.run(f.apply, {{f.indices, af::Tensor::from_vector(idx, af::Shape(idx_shape))},
                         {f.values, af::Tensor::from_vector(vals, af::Shape(shape))},
                         {f.step, af::Tensor(std::int64_t{0})}});
    });
  };
  BOOST_TEST(contains(apply_error({0, 1}, {2, 1}, {1, 2, 3, 4}, {2, 2}),
                      "Input indices should be vector but received shape: [2,1]"));
  BOOST_TEST(contains(apply_error({}, {0}, {1}, {}), "Values cannot be 0-dimensional."));
  BOOST_TEST(contains(apply_error({0, 1}, {2}, {1, 2}, {1, 2}),
                      "Expected 2 non-empty input values, got 1"));
  BOOST_TEST(contains(apply_error({3}, {1}, {1, 2}, {1, 2}),
                      "Shape mismatch: index of slice 0 exceeded limits of shape; index is 3 "
                      "exceeded 2"));
  BOOST_TEST(contains(apply_error({1}, {1}, {1, 2, 3}, {1, 3}),
                      "Shape mismatch: expected values dim 1 to be 2, got 3"));
  BOOST_TEST(sess.run(f.q.num_accumulated()).scalar<std::int32_t>() == 0);
  BOOST_TEST(contains(error_of([&] { sess.run(f.q.take_indexed_slices_grad(0).values); }),
                      "Argument num_required must be positive, but was 0"));

  // The dense shape, when given, is checked against the declared one.
  Fed g({.shape = af::PartialShape{2, 2}}, true, af::Tensor::from_vector<std::int64_t>({5, 2}));
  af::Session sess_g(g.g);
  BOOST_TEST(contains(error_of([&] {
                        g.run(sess_g, {0}, {1, 2}, {1, 2});
                      }),
                      "Shape mismatch: expected shape dim 0 to be 2, got 5"));
  // Later gradients must match the sum's rows.
  Fed h({.shape = af::PartialShape(af::Shape{})}, false);
  af::Session sess_h(h.g);
  h.run(sess_h, {0}, {1, 2}, {1, 2});
  BOOST_TEST(contains(error_of([&] {
                        h.run(sess_h, {0}, {1, 2, 3}, {1, 3});
                      }),
                      "Shape mismatch: expected values dim 1 to be 2, got 3"));
}

// sync_replicas_optimizer.py: an embedding's slices go through a SparseConditionalAccumulator
// of shape (), so each touched row is averaged over the replicas that touched it and only
// those rows change.
BOOST_AUTO_TEST_CASE(sync_replicas_aggregates_an_embeddings_slices_sparsely,
                     *boost::unit_test::timeout(120)) {
  af::Graph g;
  auto container = g.container("sparse_sync");
  af::Variable global_step = af::train::get_or_create_global_step(g);
  af::Variable emb =
      g.variable(af::Tensor::from_vector<float>(std::vector<float>(10, 1.0f), af::Shape{5, 2}),
                 {.name = "emb"});
  af::Output ids = g.placeholder(af::int64, af::PartialShape{-1}, "ids");
  af::Output loss = af::reduce_sum(af::gather(emb.value(), ids));
  af::train::GradientDescentOptimizer sgd(0.5);
  af::train::SyncReplicasOptimizer sync(sgd, 2, 2);
  af::Operation train_op = sync.minimize(loss, global_step);
  bool sparse = false, dense = false;
  for (const auto& node : g.to_graph_def().nodes) {
    sparse |= node.op == "SparseConditionalAccumulator";
    dense |= node.op == "ConditionalAccumulator";
  }
  BOOST_TEST(sparse);
  BOOST_TEST(!dense);

  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(g.local_variables_initializer());
  sess.run(sync.chief_init_op());
  af::Coordinator coord;
  auto runners = sync.get_chief_queue_runner().create_threads(sess, coord, /*start=*/true);
  auto replica = [&](std::vector<std::int64_t> rows) {
    return std::async(std::launch::async, [&sess, &train_op, &ids, rows] {
      sess.run(train_op, {{ids, af::Tensor::from_vector(rows)}}, {.timeout_in_ms = 30000});
    });
  };
  auto a = replica({1, 3});
  auto b = replica({3});
  a.get();
  b.get();
  BOOST_TEST(sess.run(global_step.value()).scalar<std::int64_t>() == 1);
  // Row 1 got 1 from one replica, row 3 1 from each: both average to 1; 1 - 0.5 * 1.
  BOOST_TEST(sess.run(emb.value()).to_vector<float>() ==
                 std::vector<float>({1, 1, 0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1}),
             boost::test_tools::per_element());
  coord.request_stop();
  sess.close();
  coord.join(runners, 10s, /*ignore_live_runners=*/true);
}

BOOST_AUTO_TEST_SUITE_END()
