// The SparseTensor ops of sparse_tensor_ops.hpp as TensorFlow 1.x builds, shapes, computes and
// refuses them (the values TensorFlow 2.21 computes for many more cases, gradients included,
// are made by scripts/peers/op_cases_sparse_tensor.py and checked by
// op_coverage_conformance_test.cpp).
#include "actorflow/ops/sparse_tensor_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::SparseTensor;
using af::Tensor;
using af::test::floats;
using af::test::sparse;

using I64 = std::vector<std::int64_t>;

// Runs `y` and expects an error of type E whose text holds `message` (InvalidArgumentError
// unless told, where op_test_util.hpp's fails_with takes any af::Error).
template <class E = af::InvalidArgumentError>
void fails_with(af::Session& sess, const Output& y, const std::string& message) {
  try {
    sess.run(y);
    BOOST_ERROR("no error; expected " << message);
  } catch (const E& e) {
    BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sparse_tensor_ops_test)

// The builders name their ops after the op types and infer TensorFlow's static shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const SparseTensor a = sparse(g, {0, 1, 2, 0}, floats({1, 2}), {3, 4});
  const Output b = g.constant(Tensor(DType::float32, Shape{4, 2}), "b");
  const Output product = af::sparse_tensor_dense_matmul(a, b);
  BOOST_TEST(product.name() == "SparseTensorDenseMatMul:0");
  BOOST_TEST(product.shape() == PartialShape({3, 2}));
  const Output bt = g.constant(Tensor(DType::float32, Shape{2, 3}), "bt");
  BOOST_TEST(af::sparse_tensor_dense_matmul(a, bt, true, true).shape() == PartialShape({4, 2}));
  const SparseTensor sum = af::sparse_add(a, a, 0.5);
  BOOST_TEST(sum.values.name() == "SparseAdd:1");
  BOOST_TEST(g.operation("SparseAdd/thresh").type() == "Const");
  BOOST_TEST(sum.indices.shape() == PartialShape({-1, 2}));
  const Output reduced = af::sparse_reduce_sum(a, I64{1});
  BOOST_TEST(g.operation("SparseReduceSum/reduction_axes").output(0).dtype() == DType::int32);
  BOOST_TEST(reduced.shape() == PartialShape({3}));
  BOOST_TEST(af::sparse_reduce_sum(a, I64{-1}, true).shape() == PartialShape({3, 1}));
  BOOST_TEST(af::sparse_reduce_max(a).shape() == PartialShape(Shape{}));
  const SparseTensor reduced_sparse = af::sparse_reduce_sum_sparse(a, I64{0});
  BOOST_TEST(reduced_sparse.indices.shape() == PartialShape({-1, -1}));
  const SparseTensor concat = af::sparse_concat(1, {a, a});
  BOOST_TEST(concat.indices.shape() == PartialShape({4, 2}));
  BOOST_TEST(concat.dense_shape.shape() == PartialShape({2}));
  const SparseTensor sliced = af::sparse_slice(a, {0, 0}, {2, 2});
  BOOST_TEST(g.operation("SparseSlice/start").output(0).dtype() == DType::int64);
  BOOST_TEST(sliced.indices.shape() == PartialShape({-1, 2}));
  const SparseTensor scaled = af::sparse_dense_cwise_mul(a, g.constant(floats({2, 3, 4, 5})));
  BOOST_TEST(scaled.values.shape() == PartialShape({2}));
  BOOST_TEST(scaled.indices.name() == a.indices.name());
  BOOST_TEST(af::sparse_reorder(a).values.shape() == PartialShape({2}));
  BOOST_TEST(af::sparse_softmax(a).values.name() == "SparseSoftmax:0");
  const SparseTensor words =
      sparse(g, {0, 0, 1, 0}, Tensor::from_vector<std::string>({"a", "b"}), {2, 1});
  const SparseTensor crossed = af::sparse_cross_hashed({words}, {}, 10);
  BOOST_TEST(crossed.values.dtype() == DType::int64);
  BOOST_TEST(*crossed.values.node()->def().attr<DType>("internal_type") == DType::string);
  BOOST_TEST(crossed.dense_shape.shape() == PartialShape({2}));
  // Refused while building: a dense operand of another dtype, a non-matrix b.
  BOOST_CHECK_THROW(
      af::sparse_tensor_dense_matmul(a, g.constant(Tensor(DType::float64, Shape{4, 2}))),
      af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::sparse_tensor_dense_matmul(a, g.constant(floats({1, 2}))),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(
      af::sparse_tensor_dense_matmul(a, g.constant(Tensor(DType::float32, Shape{3, 2}))),
      af::InvalidArgumentError);
}

// TensorFlow's results for small cases: matmul with repeated entries and adjoints, SparseAdd
// with thresh, reductions, reorder, concat, slice, softmax, the sparse-dense and
// sparse-sparse element-wise ops.
BOOST_AUTO_TEST_CASE(the_ops_compute_tensorflows_values) {
  af::Graph g;
  // [[0, 1+3], [0, 0], [2, 0]]: entry [0,1] repeated.
  const SparseTensor a = sparse(g, {0, 1, 2, 0, 0, 1}, floats({1, 2, 3}), {3, 2});
  const Output b = g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}));
  const Output mm = af::sparse_tensor_dense_matmul(a, b);
  const Output mm_adj = af::sparse_tensor_dense_matmul(
      a, g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3}, Shape{3, 1})), true);
  const SparseTensor x = sparse(g, {0, 0, 0, 2, 1, 1}, floats({1, 2, -0.5f}), {2, 3});
  const SparseTensor y = sparse(g, {0, 2, 1, 0, 1, 1}, floats({1.5f, -1, 0.55f}), {2, 3});
  const SparseTensor sum = af::sparse_add(x, y, 0.1);
  const Output dense_sum =
      af::sparse_tensor_dense_add(x, g.constant(Tensor(DType::float32, Shape{2, 3})));
  const SparseTensor unordered = sparse(g, {1, 0, 0, 1, 0, 0}, floats({1, 2, 3}), {2, 2});
  const Output row_sums = af::sparse_reduce_sum(unordered, I64{1});
  const SparseTensor reordered = af::sparse_reorder(unordered);
  const Output row_max =
      af::sparse_reduce_max(sparse(g, {0, 0, 0, 1, 2, 1}, floats({-1, -2, 5}), {3, 2}), I64{-1});
  const SparseTensor concat = af::sparse_concat(1, {x, y});
  const SparseTensor sliced = af::sparse_slice(x, {0, 1}, {5, 5});
  const SparseTensor soft =
      af::sparse_softmax(sparse(g, {0, 0, 0, 1, 1, 1}, floats({1, 1, 7}), {2, 2}));
  const SparseTensor scaled = af::sparse_dense_cwise_div(
      x, g.constant(Tensor::from_vector(std::vector<float>{2, 4, 8}, Shape{1, 3})));
  const SparseTensor maximum = af::sparse_maximum(x, y);
  af::Session sess(g);
  const auto v = sess.run({mm, mm_adj, sum.indices, sum.values, dense_sum, row_sums,
                           reordered.indices, reordered.values, row_max, concat.indices,
                           concat.dense_shape, sliced.indices, sliced.values, sliced.dense_shape,
                           soft.values, scaled.values, maximum.indices, maximum.values});
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{12, 16, 0, 0, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{6, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int64_t>() == (I64{0, 0, 0, 2, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<float>() == (std::vector<float>{1, 3.5f, -1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<float>() == (std::vector<float>{1, 0, 2, 0, -0.5f, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[5].to_vector<float>() == (std::vector<float>{5, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[6].to_vector<std::int64_t>() == (I64{0, 0, 0, 1, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[7].to_vector<float>() == (std::vector<float>{3, 2, 1}),
             boost::test_tools::per_element());
  // SparseReduceMax writes zero where no entry falls, and the maximum of negatives otherwise.
  BOOST_TEST(v[8].to_vector<float>() == (std::vector<float>{-1, 0, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(v[9].to_vector<std::int64_t>() == (I64{0, 0, 0, 2, 0, 5, 1, 1, 1, 3, 1, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[10].to_vector<std::int64_t>() == (I64{2, 6}), boost::test_tools::per_element());
  BOOST_TEST(v[11].to_vector<std::int64_t>() == (I64{0, 1, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[12].to_vector<float>() == (std::vector<float>{2, -0.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[13].to_vector<std::int64_t>() == (I64{2, 2}), boost::test_tools::per_element());
  const auto s = v[14].to_vector<float>();
  BOOST_TEST(s[0] == 0.5f);
  BOOST_TEST(s[2] == 1.0f);
  BOOST_TEST(v[15].to_vector<float>() == (std::vector<float>{0.5f, 0.25f, -0.125f}),
             boost::test_tools::per_element());
  BOOST_TEST(v[16].to_vector<std::int64_t>() == (I64{0, 0, 0, 2, 1, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[17].to_vector<float>() == (std::vector<float>{1, 2, 0, 0.55f}),
             boost::test_tools::per_element());
}

// The crosses hash as TensorFlow bit for bit (values from TensorFlow 2.21): SparseCross with
// hashed_output (FingerprintCat64 over Fingerprint64), SparseCrossHashed with SipHash
// (strong_hash, integers hashed over 4 bytes), and the string crosses.
BOOST_AUTO_TEST_CASE(crosses_match_tensorflows_hashes) {
  af::Graph g;
  const SparseTensor words =
      sparse(g, {0, 0, 1, 0, 1, 1}, Tensor::from_vector<std::string>({"a", "b", "c"}), {2, 2});
  const SparseTensor ids = sparse(g, {0, 0, 1, 0}, Tensor::from_vector(I64{3, 7}), {2, 1});
  const Output dense = g.constant(Tensor::from_vector<std::string>({"x", "y"}, Shape{2, 1}));
  const SparseTensor hashed = af::sparse_cross_hashed({words}, {dense});
  const SparseTensor bucketed = af::sparse_cross_hashed({words, ids}, {dense}, 100);
  const SparseTensor strings = af::sparse_cross({words, ids}, {dense});
  const SparseTensor joined = af::sparse_cross_v2({words}, {dense}, "+");
  const SparseTensor two =
      sparse(g, {0, 0, 1, 0}, Tensor::from_vector<std::string>({"a", "b"}), {2, 1});
  const SparseTensor strong = af::sparse_cross_hashed_salted({two}, {}, 0, true, {13, 17});
  const SparseTensor strong_ids = af::sparse_cross_hashed_salted({ids}, {}, 0, true, {13, 17});
  af::Session sess(g);
  const auto v = sess.run({hashed.indices, hashed.values, hashed.dense_shape, bucketed.values,
                           strings.values, joined.values, strong.values, strong_ids.values});
  BOOST_TEST(v[0].to_vector<std::int64_t>() == (I64{0, 0, 1, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int64_t>() ==
                 (I64{1484974617627318892, 5470948523078679805, 6571367263544129360}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int64_t>() == (I64{2, 2}), boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::int64_t>() == (I64{33, 97, 31}), boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<std::string>() ==
                 (std::vector<std::string>{"a_X_3_X_x", "b_X_7_X_y", "c_X_7_X_y"}),
             boost::test_tools::per_element());
  BOOST_TEST(v[5].to_vector<std::string>() == (std::vector<std::string>{"a+x", "b+y", "c+y"}),
             boost::test_tools::per_element());
  BOOST_TEST(v[6].to_vector<std::int64_t>() == (I64{2362305272523436647, 6067432897820306567}),
             boost::test_tools::per_element());
  BOOST_TEST(v[7].to_vector<std::int64_t>() == (I64{1048652333619612399, 7372787151364751217}),
             boost::test_tools::per_element());
}

// Running fails with TensorFlow's messages, each naming the node.
BOOST_AUTO_TEST_CASE(kernels_refuse_bad_inputs_with_tensorflows_messages) {
  af::Graph g;
  const Output b = g.constant(Tensor(DType::float32, Shape{2, 2}), "b");
  const Output k_out = af::sparse_tensor_dense_matmul(sparse(g, {0, 3}, floats({1}), {2, 2}), b,
                                                      false, false, "k_out");
  const Output m_out = af::sparse_tensor_dense_matmul(sparse(g, {5, 1}, floats({1}), {2, 2}), b);
  const SparseTensor two = sparse(g, {0, 1, 1, 0}, floats({1, 2}), {2, 2});
  const SparseTensor wide = sparse(g, {0, 1, 1, 0}, floats({1, 2}), {2, 3});
  const SparseTensor oob = sparse(g, {0, 5}, floats({1}), {2, 2});
  const Output bad_axis = af::sparse_reduce_sum(two, I64{2});
  const SparseTensor shapes_differ = af::sparse_add(two, wide);
  const SparseTensor bad_concat = af::sparse_concat(2, {two, two});
  const SparseTensor mismatched_concat =
      af::sparse_concat(1, {two, sparse(g, {0, 0}, floats({1}), {3, 3})});
  const SparseTensor bad_slice = af::sparse_slice(two, {0, 0}, {-1, 1});
  const SparseTensor bad_broadcast =
      af::sparse_dense_cwise_mul(two, g.constant(Tensor(DType::float32, Shape{3})));
  const SparseTensor out_of_bounds_max = af::sparse_maximum(oob, two);
  const Output dense_oob = af::sparse_tensor_dense_add(oob, b);
  const SparseTensor vector_softmax = af::sparse_softmax(sparse(g, {0, 1}, floats({1, 2}), {2}));
  const SparseTensor bad_salt = af::sparse_cross_hashed_salted(
      {}, {g.constant(Tensor::from_vector<std::string>({"a"}, Shape{1, 1}))}, 0, false, {1, 2});
  af::Session sess(g);
  fails_with(sess, k_out, "k (3) from index[0,1] out of bounds (>=2)");
  fails_with(sess, k_out, "{{node k_out}}");
  fails_with(sess, m_out, "m (5) from index[0,0] out of bounds (>=2)");
  fails_with(sess, bad_axis, "Invalid reduction dimension 2, for input with 2 dimensions.");
  fails_with(sess, shapes_differ.values,
             "Operands' shapes do not match: got 2 and 3 for dimension 1");
  fails_with(sess, bad_concat.values, "Concat dimension must be in range [-2, 2), got 2");
  fails_with(sess, mismatched_concat.values,
             "Input shapes must match: expected 2 for dimension 0 but got 3 at position 1");
  fails_with(sess, bad_slice.values, "Expected a non-negative size, got -1");
  fails_with(sess, bad_broadcast.values,
             "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: "
             "[2,2] vs. [3]");
  fails_with(sess, out_of_bounds_max.values,
             "Sparse index tuple indices[0, :] = [0, 5] is out of bounds");
  fails_with(sess, dense_oob,
             "Sparse tensor has an invalid index on dimension 1: a_indices(0,1) = 5, dense tensor "
             "shape: 2 2");
  fails_with(sess, vector_softmax.values, "Input should have rank >= 2, but received shape: 2");
  (void)bad_salt;
  const Output grad = af::sparse_slice_grad(
      g.constant(floats({1, 2})), two.indices, g.constant(Tensor::from_vector(I64{0, 0})),
      g.constant(Tensor::from_vector(I64{0, 0, 1, 1}, Shape{2, 2})));
  af::Session sess2(g);
  fails_with<af::InternalError>(
      sess2, grad, "Elements of backprop_val_grad aren't all propagated. Num elements:2, used: 0");
}

// The gradients TensorFlow registers reach the values and dense operands; SparseConcat's
// inputs get none, SparseDenseCwiseAdd's gradient is not implemented.
BOOST_AUTO_TEST_CASE(gradients_follow_sparse_grad_py) {
  af::Graph g;
  const Output values = g.constant(floats({1, 2}), "values");
  const SparseTensor a{g.constant(Tensor::from_vector(I64{0, 1, 1, 0}, Shape{2, 2})), values,
                       g.constant(Tensor::from_vector(I64{2, 2}))};
  const Output b =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), "b");
  const Output loss = af::reduce_sum(af::sparse_tensor_dense_matmul(a, b));
  const auto grads = af::gradients({loss}, {values, b});
  BOOST_REQUIRE(grads.size() == 2u);
  const Output reduced = af::reduce_sum(af::sparse_reduce_sum(a, I64{0}));
  const Output reduce_grad = af::gradients({reduced}, {values})[0];
  const Output concat_values = af::sparse_concat(0, {a, a}).values;
  BOOST_TEST(!af::gradients({af::reduce_sum(concat_values)}, {values})[0].valid());
  BOOST_CHECK_THROW(
      af::gradients({af::reduce_sum(af::sparse_dense_cwise_add(a, b).values)}, {values}),
      af::UnimplementedError);
  af::Session sess(g);
  const auto v = sess.run({grads[0], grads[1], reduce_grad});
  // d/dvalues: row sums of b at each entry's column: [0,1] -> 3+4, [1,0] -> 1+2.
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{7, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{2, 2, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{1, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
