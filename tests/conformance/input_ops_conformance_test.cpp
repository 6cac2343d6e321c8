// TensorFlow 1.x behaviour of the ops TensorFlow's input producers are built from, run
// through a session: tf.range, tf.gather, tf.random_shuffle, tf.count_up_to, tf.size /
// tf.shape and local variables, put together as tf.train.limit_epochs and
// range_input_producer put them (tensorflow/python/training/input.py; the kernels'
// behaviour as in tensorflow/python/kernel_tests/ sequence, gather, random_shuffle and
// count_up_to tests).
//
// The RandomShuffle permutations were produced with TensorFlow 2.21.0 (pip tensorflow-cpu,
// Linux x86-64) in TF1 graph mode:
//
//   import numpy as np, tensorflow as tf
//   tf1 = tf.compat.v1; tf1.disable_eager_execution()
//   with tf1.Graph().as_default():
//     tf1.set_random_seed(1)
//     a = tf1.random_shuffle(tf.constant(np.arange(10, dtype=np.int32)), seed=7)
//     with tf1.Session() as s:
//       for i in range(3): print(s.run(a).tolist())
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::test::contains;
using af::test::error_of;

const af::PartialShape kScalar = af::PartialShape(std::vector<std::int64_t>{});

// tf.train.limit_epochs(tensor, num_epochs): passes `tensor` through an Identity named
// after the scope "limit_epochs" that runs only after the CountUpTo of a local int64
// variable "limit_epochs/epochs" succeeds.
af::Output limit_epochs(const af::Output& tensor, std::int64_t num_epochs) {
  af::Graph& g = tensor.graph();
  const std::string scope = g.unique_name("limit_epochs");
  auto guard = g.name_scope(scope + "/");
  af::Output zero64 = g.constant(af::Tensor(std::int64_t{0}));
  af::Variable epochs =
      g.variable(zero64, {.name = "epochs",
                          .trainable = false,
                          .collections = std::vector<std::string>{af::kLocalVariables}});
  af::Output counter = af::count_up_to(epochs, num_epochs);
  auto deps = g.control_dependencies({counter.op()});
  return af::identity(tensor, scope + "/");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(input_ops_conformance_test)

// tf.range(limit) with a fed limit counts from 0; a negative limit is InvalidArgument with
// sequence_ops.cc's message.
BOOST_AUTO_TEST_CASE(range_counts_to_a_fed_limit_and_rejects_a_backwards_range,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output limit = g.placeholder(af::int32, kScalar, "limit");
  af::Output r = af::range(limit);
  af::Output stepped = af::range(g, 3, 12, 4);
  af::Session sess(g);
  BOOST_TEST(sess.run(r, {{limit, af::Tensor(4)}}).to_vector<std::int32_t>() ==
             (std::vector<std::int32_t>{0, 1, 2, 3}));
  BOOST_TEST(sess.run(r, {{limit, af::Tensor(0)}}).num_elements() == 0);
  BOOST_TEST(sess.run(stepped).to_vector<std::int32_t>() == (std::vector<std::int32_t>{3, 7, 11}));
  std::string msg = error_of<af::InvalidArgumentError>([&] {
    sess.run(r, {{limit, af::Tensor(-1)}});
  });
  BOOST_TEST(contains(msg, "Requires start <= limit when delta > 0: 0/-1"), msg);
}

// tf.gather picks the rows named by the indices, of any dtype; an index outside [0, n) is
// InvalidArgument naming it.
BOOST_AUTO_TEST_CASE(gather_picks_the_rows_named_by_fed_indices_and_rejects_out_of_range_ones,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output files = g.constant(af::Tensor::from_vector<std::string>({"a.csv", "b.csv", "c.csv"}));
  af::Output index = g.placeholder(af::int32, {-1}, "index");
  af::Output picked = af::gather(files, index);
  af::Output matrix =
      g.constant(af::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, af::Shape{3, 2}));
  af::Output row = af::gather(matrix, g.placeholder(af::int64, kScalar, "row"));
  af::Session sess(g);
  BOOST_TEST(sess.run(picked, {{index, af::Tensor::from_vector<std::int32_t>({2, 0})}})
                 .to_vector<std::string>() == (std::vector<std::string>{"c.csv", "a.csv"}));
  af::Tensor second = sess.run(row, {{g.output("row"), af::Tensor(std::int64_t{1})}});
  BOOST_TEST(second.shape() == af::Shape({2}));
  BOOST_TEST(second.to_vector<float>() == (std::vector<float>{3, 4}));
  std::string msg = error_of<af::InvalidArgumentError>([&] {
    sess.run(picked, {{index, af::Tensor::from_vector<std::int32_t>({5})}});
  });
  BOOST_TEST(contains(msg, "indices[0] = 5 is not in [0, 3)"), msg);
}

// tf.random_shuffle with fixed seeds is reproducible and stateful: each run of the same
// session draws TensorFlow's next permutation.
BOOST_AUTO_TEST_CASE(random_shuffle_with_fixed_seeds_draws_tensorflows_permutations_run_after_run,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  g.set_random_seed(1);
  af::Output shuffled = af::random_shuffle(af::range(g, 10), 7);
  const std::vector<std::vector<std::int32_t>> expected = {{1, 6, 4, 2, 8, 0, 7, 5, 3, 9},
                                                           {3, 1, 7, 9, 2, 6, 8, 4, 0, 5},
                                                           {0, 5, 7, 1, 3, 4, 8, 6, 9, 2}};
  for (int session = 0; session < 2; ++session) {
    af::Session sess(g);  // a new session starts the sequence again
    for (auto& e : expected) BOOST_TEST(sess.run(shuffled).to_vector<std::int32_t>() == e);
  }
}

// Unseeded, tf.random_shuffle still yields a permutation of its input on every run.
BOOST_AUTO_TEST_CASE(unseeded_random_shuffle_is_a_permutation_every_run,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output shuffled = af::random_shuffle(af::range(g, 50));
  af::Session sess(g);
  std::vector<std::int32_t> identity(50);
  for (int i = 0; i < 50; ++i) identity[static_cast<std::size_t>(i)] = i;
  for (int run = 0; run < 3; ++run) {
    auto values = sess.run(shuffled).to_vector<std::int32_t>();
    std::sort(values.begin(), values.end());
    BOOST_TEST(values == identity);
  }
}

// tf.count_up_to outputs the value before each increment; at the limit it is OutOfRange
// "Reached limit of 3" and the variable stays at the limit. Uninitialized, it is
// FailedPrecondition naming the variable.
BOOST_AUTO_TEST_CASE(count_up_to_outputs_the_old_value_until_the_limit_is_reached,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable counter = g.variable(af::Tensor(0), {.name = "counter"});
  af::Output next = af::count_up_to(counter, 3);
  af::Session sess(g);
  std::string msg = error_of<af::FailedPreconditionError>([&] { sess.run(next); });
  BOOST_TEST(contains(msg, "Attempting to use uninitialized value counter"), msg);
  sess.run(g.global_variables_initializer());
  for (std::int32_t expected = 0; expected < 3; ++expected)
    BOOST_TEST(sess.run(next).scalar<std::int32_t>() == expected);
  for (int again = 0; again < 2; ++again) {
    msg = error_of<af::OutOfRangeError>([&] { sess.run(next); });
    BOOST_TEST(contains(msg, "Reached limit of 3"), msg);
  }
  BOOST_TEST(sess.run(counter.value()).scalar<std::int32_t>() == 3);
}

// tf.train.limit_epochs: the epoch counter is a local variable, initialized only by
// local_variables_initializer; the tensor passes num_epochs times, then OutOfRange.
BOOST_AUTO_TEST_CASE(limit_epochs_passes_the_tensor_num_epochs_times_then_is_out_of_range,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output files = g.constant(af::Tensor::from_vector<std::string>({"a", "b"}), "files");
  af::Output limited = limit_epochs(files, 2);
  BOOST_TEST(limited.op().name() == "limit_epochs");
  BOOST_TEST(limited.op().node_def().inputs ==
             (std::vector<std::string>{"files", "^limit_epochs/CountUpTo"}));
  BOOST_REQUIRE(g.local_variables().size() == 1);
  BOOST_TEST(g.local_variables()[0].name() == "limit_epochs/epochs");
  BOOST_TEST(g.global_variables().empty());
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  std::string msg = error_of<af::FailedPreconditionError>([&] { sess.run(limited); });
  BOOST_TEST(contains(msg, "Attempting to use uninitialized value limit_epochs/epochs"), msg);
  af::Operation init = g.local_variables_initializer();
  BOOST_TEST(init.name() == "init_1");
  sess.run(init);
  for (int epoch = 0; epoch < 2; ++epoch)
    BOOST_TEST(sess.run(limited).to_vector<std::string>() == (std::vector<std::string>{"a", "b"}));
  msg = error_of<af::OutOfRangeError>([&] { sess.run(limited); });
  BOOST_TEST(contains(msg, "Reached limit of 2"), msg);
  // Re-running the local initializer starts the epochs again.
  sess.run(init);
  BOOST_TEST(sess.run(limited).num_elements() == 2);
}

// range_input_producer's graph: a shuffled range of a tensor's first dimension, limited to
// one epoch, gathers every row of the tensor exactly once.
BOOST_AUTO_TEST_CASE(shuffled_range_of_a_tensors_size_gathers_each_row_once,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  g.set_random_seed(3);
  af::Output rows = g.placeholder(af::string, {-1}, "rows");
  af::Output n = af::size(rows);
  BOOST_TEST(n.op().type() == "Size");
  af::Output order = limit_epochs(af::random_shuffle(af::range(n)), 1);
  af::Output picked = af::gather(rows, order);
  af::Session sess(g);
  sess.run(g.local_variables_initializer());
  af::Tensor fed = af::Tensor::from_vector<std::string>({"w", "x", "y", "z"});
  auto values = sess.run(picked, {{rows, fed}}).to_vector<std::string>();
  std::sort(values.begin(), values.end());
  BOOST_TEST(values == (std::vector<std::string>{"w", "x", "y", "z"}));
  BOOST_CHECK_THROW(sess.run(picked, {{rows, fed}}), af::OutOfRangeError);
}

// tf.size and tf.shape of a fed tensor report its element count and dimensions.
BOOST_AUTO_TEST_CASE(size_and_shape_report_a_fed_tensors_dimensions,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output x = g.placeholder(af::float32, {-1, 3}, "x");
  af::Output n = af::size(x);
  af::Output dims = af::shape(x, af::int64);
  af::Session sess(g);
  auto out = sess.run({n, dims}, {{x, af::Tensor(af::float32, af::Shape{5, 3})}});
  BOOST_TEST(out[0].scalar<std::int32_t>() == 15);
  BOOST_TEST(out[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{5, 3}));
}

// input.py's batching functions check at graph construction: shuffle_batch's capacity must
// exceed min_after_dequeue, and every tensor's rank must be known (input_test.py
// testCannotInferRankError: "Cannot infer Tensor's rank").
BOOST_AUTO_TEST_CASE(batching_checks_capacity_and_rank_when_it_builds_the_graph,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto x = g.constant(af::Tensor(1.0f));
  auto msg = error_of<af::InvalidArgumentError>(
      [&] { af::shuffle_batch({x}, {.batch_size = 2, .capacity = 10, .min_after_dequeue = 10}); });
  BOOST_TEST(contains(msg, "capacity 10 must be bigger than min_after_dequeue 10."), msg);
  auto unknown = g.placeholder(af::float32, af::PartialShape::unknown());
  msg = error_of<af::InvalidArgumentError>([&] { af::batch({unknown}, {.batch_size = 2}); });
  BOOST_TEST(contains(msg, "Cannot infer Tensor's rank"), msg);
}

// input.py input_producer: the element shape is the input's shape past dimension 0 merged
// with `element_shape`; it must come out fully defined ("Either `input_tensor` must have a
// fully defined shape or `element_shape` must be specified"), and the two must agree.
BOOST_AUTO_TEST_CASE(input_producer_merges_element_shape_with_the_inputs_shape,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto rows = g.placeholder(af::float32, af::PartialShape{-1, -1}, "rows");
  auto msg = error_of<af::InvalidArgumentError>([&] { af::input_producer(rows); });
  BOOST_TEST(contains(msg,
                      "Either `input_tensor` must have a fully defined shape or `element_shape` "
                      "must be specified"),
             msg);
  auto q = af::input_producer(rows, {.element_shape = af::PartialShape{3}});
  BOOST_TEST(q.dequeue()[0].shape().to_string() == "(3,)");
  auto three = g.placeholder(af::float32, af::PartialShape{-1, 3}, "three");
  msg = error_of<af::InvalidArgumentError>(
      [&] { af::input_producer(three, {.element_shape = af::PartialShape{4}}); });
  BOOST_TEST(msg != "<no error>");
}

BOOST_AUTO_TEST_SUITE_END()
