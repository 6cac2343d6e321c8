// Sparse gradients and sparse updates against TensorFlow 1.x: IndexedSlices through the
// gradient walk (array_grad.py, gradients_util.py), the Scatter* kernels (scatter_op.cc),
// the optimizers' sparse paths (optimizer.py, training_ops.cc, adam.py) and Unique. The
// values come from scripts/peers/make_sparse_references.py (TensorFlow, tf.compat.v1 with
// reference variables).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/array_ops.hpp>
#include <actorflow/ops/indexed_slices.hpp>
#include <actorflow/ops/scatter_ops.hpp>
#include <actorflow/ops/training_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::contains;
using af::test::error_of;

std::vector<float> floats(af::Session& sess, const Output& t) {
  return sess.run(t).to_vector<float>();
}

std::vector<std::int64_t> ints(af::Session& sess, const Output& t) {
  Tensor v = sess.run(t);
  std::vector<std::int64_t> out;
  if (v.dtype() == DType::int64)
    for (auto x : v.flat<std::int64_t>()) out.push_back(x);
  else
    for (auto x : v.flat<std::int32_t>()) out.push_back(x);
  return out;
}

using af::test::check_close;

Tensor matrix(std::vector<float> values, std::int64_t rows, std::int64_t cols) {
  return Tensor::from_vector(values, Shape{rows, cols});
}

Output int_ids(af::Graph& g, std::vector<std::int32_t> ids) {
  return g.constant(Tensor::from_vector(ids));
}

// p = [[0,1],[2,3],...,[8,9]] as in the reference script.
af::Variable make_p(af::Graph& g) {
  std::vector<float> v(10);
  for (int i = 0; i < 10; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  return g.variable(matrix(v, 5, 2), {.name = "p"});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sparse_conformance_test)

// sparse-notes Ex.1: two gathers of one variable give IndexedSlices, concatenated (row 3
// twice), not summed; densified they are UnsortedSegmentSum's rows.
BOOST_AUTO_TEST_CASE(gather_gradients_are_slices_concatenated_not_summed,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable p = make_p(g);
  Output loss = af::reduce_sum(af::gather(p, int_ids(g, {1, 3}))) +
                af::reduce_sum(af::gather(p, int_ids(g, {3})));
  auto grads = af::gradients_with_slices({loss}, {p.ref()});
  BOOST_REQUIRE(grads[0].is_slices());
  const af::IndexedSlices& s = grads[0].slices();
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  check_close(floats(sess, s.values), {1, 1, 1, 1, 1, 1});
  BOOST_TEST(ints(sess, s.indices) == (std::vector<std::int64_t>{1, 3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(ints(sess, s.dense_shape) == (std::vector<std::int64_t>{5, 2}),
             boost::test_tools::per_element());
  check_close(floats(sess, af::to_dense(s)), {0, 0, 1, 1, 0, 0, 2, 2, 0, 0});
  // `gradients` (tf.gradients then convert_to_tensor) gives the same rows dense.
  Output dense = af::gradients({loss}, {p.ref()})[0];
  BOOST_TEST(dense.node()->type() == "UnsortedSegmentSum");
  check_close(floats(sess, dense), {0, 0, 1, 1, 0, 0, 2, 2, 0, 0});
}

// `_AggregateIndexedSlicesGradients` (TensorFlow 2's tf.compat.v1): slices summed with a
// dense gradient are densified, and the sum is dense.
BOOST_AUTO_TEST_CASE(slices_summed_with_a_dense_gradient_become_dense,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable p = make_p(g);
  Output c = g.constant(matrix({1, 2, 3, 4}, 2, 2));
  Output loss = af::reduce_sum(af::gather(p, int_ids(g, {4, 0})) * c) + af::reduce_sum(p * p);
  auto grads = af::gradients_with_slices({loss}, {p.ref()});
  BOOST_REQUIRE(grads[0].valid());
  BOOST_TEST(!grads[0].is_slices());
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  // 2 p + the gathered rows of c at rows 4 and 0.
  check_close(floats(sess, grads[0].dense()), {3, 6, 4, 6, 8, 10, 12, 14, 17, 20});
}

BOOST_AUTO_TEST_CASE(slices_pass_through_cast_and_other_ops_densify,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable p = make_p(g);
  Output through_cast = af::reduce_sum(af::gather(af::cast(p, DType::float64), int_ids(g, {2, 2})));
  auto cast_grads = af::gradients_with_slices({through_cast}, {p.ref()});
  BOOST_REQUIRE(cast_grads[0].is_slices());
  BOOST_TEST(cast_grads[0].dtype() == DType::float32);
  // A Mul before the gather: its gradient function takes the slices dense.
  Output through_mul = af::reduce_sum(af::gather(p * p, int_ids(g, {1})));
  auto mul_grads = af::gradients_with_slices({through_mul}, {p.ref()});
  BOOST_TEST(!mul_grads[0].is_slices());
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  check_close(floats(sess, cast_grads[0].to_dense()), {0, 0, 0, 0, 2, 2, 0, 0, 0, 0});
  check_close(floats(sess, mul_grads[0].dense()), {0, 0, 4, 6, 0, 0, 0, 0, 0, 0});
  // A gather on another axis has a dense gradient.
  Output columns = af::reduce_sum(af::gather(p, int_ids(g, {1}), 1));
  BOOST_TEST(!af::gradients_with_slices({columns}, {p.ref()})[0].is_slices());
}

BOOST_AUTO_TEST_CASE(slices_without_a_dense_shape_cannot_be_densified,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IndexedSlices s{g.constant(matrix({1, 2}, 1, 2)), int_ids(g, {0}), Output()};
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { af::to_dense(s); }),
                      "Tensor conversion requested for IndexedSlices without dense_shape"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { af::Gradient(s).dense(); }),
                      "IndexedSlices"));
}

BOOST_AUTO_TEST_SUITE_END()
