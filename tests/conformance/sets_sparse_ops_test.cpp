// The set operations, SparseSplit, the sparse and ragged bincounts and the CountSparseOutput
// ops of sets_sparse_ops.hpp as TensorFlow 1.x builds, shapes, computes and refuses them (the
// values TensorFlow 2.21 computes for many more cases are made by
// scripts/peers/op_cases_sets_sparse.py and checked by op_coverage_conformance_test.cpp).
#include "actorflow/ops/sets_sparse_ops.hpp"

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
using af::test::refuses;
using af::test::sparse;

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

Tensor ints(I32 v) { return Tensor::from_vector(std::move(v)); }
Tensor ints(I32 v, Shape s) { return Tensor::from_vector(std::move(v), s); }
Tensor no_floats() { return Tensor(DType::float32, Shape{0}); }

// Runs `y` and expects an error of type E whose text holds `message` (InvalidArgumentError
// unless told, where op_test_util.hpp's fails_with takes any af::Error).
template <class E = af::InvalidArgumentError>
void fails_with(af::Session& sess, const Output& y, const std::string& message,
                const af::FeedDict& feeds = {}) {
  try {
    sess.run(y, feeds);
    BOOST_ERROR("no error; expected " << message);
  } catch (const E& e) {
    BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
  }
}

void expect_i64(const Tensor& t, const I64& want) {
  BOOST_TEST(t.to_vector<std::int64_t>() == want, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sets_sparse_ops_test)

// The builders name their ops as Python does, flip a sparse first operand, and infer
// TensorFlow's static shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x = g.constant(ints({1, 2, 2, 0, 3, 3, 4, 5}, Shape{2, 4}), "x");
  const Output y = g.constant(ints({2, 6, 0, 0, 5, 5, 5, 7}, Shape{2, 4}), "y");
  const SparseTensor inter = af::sets::set_intersection(x, y);
  BOOST_TEST(inter.indices.name() == "DenseToDenseSetOperation:0");
  BOOST_TEST(inter.indices.shape() == PartialShape({-1, 2}));
  BOOST_TEST(inter.values.shape() == PartialShape({-1}));
  BOOST_TEST(inter.dense_shape.shape() == PartialShape({2}));
  const SparseTensor sp = sparse(g, {0, 0, 1, 1}, ints({5, 6}), {2, 3});
  // A sparse a with a dense b: DenseToSparseSetOperation(b, a), the difference reversed.
  const SparseTensor diff = af::sets::set_difference(sp, x);
  BOOST_TEST(diff.values.node()->def().op == "DenseToSparseSetOperation");
  BOOST_TEST(*diff.values.node()->def().attr<std::string>("set_operation") == "b-a");
  BOOST_TEST(af::sets::set_union(sp, sp).values.node()->def().op == "SparseToSparseSetOperation");
  const Output size = af::sets::set_size(sp);
  BOOST_TEST(size.name() == "SetSize:0");
  BOOST_TEST(size.dtype() == DType::int32);
  BOOST_TEST(!size.shape().rank_known());
  const SparseTensor floats_sp = sparse(g, {0, 0, 0, 3, 2, 1}, floats({1, 2, 3}), {4, 6});
  const std::vector<SparseTensor> parts = af::sparse_split(floats_sp, 2, 1);
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(g.operation("SparseSplit/split_dim").output(0).dtype() == DType::int64);
  BOOST_TEST(parts[1].indices.name() == "SparseSplit:1");
  BOOST_TEST(parts[0].values.name() == "SparseSplit:2");
  BOOST_TEST(parts[1].dense_shape.name() == "SparseSplit:5");
  BOOST_TEST(parts[0].indices.shape() == PartialShape({-1, 2}));
  const Output bins =
      af::sparse_bincount(sp, g.constant(Tensor(std::int32_t{3})), g.constant(no_floats()));
  BOOST_TEST(bins.shape() == PartialShape({2, 3}));
  const Output ragged =
      af::ragged_bincount(g.constant(Tensor::from_vector(I64{0, 1, 2})), g.constant(ints({1, 2})),
                          g.constant(Tensor(std::int32_t{3})), g.constant(no_floats()));
  BOOST_TEST(!ragged.shape().rank_known());
  const SparseTensor counts = af::dense_count_sparse_output(x, g.constant(no_floats()), false);
  BOOST_TEST(counts.indices.shape() == PartialShape({-1, 2}));
  BOOST_TEST(counts.values.dtype() == DType::float32);
  BOOST_TEST(*counts.values.node()->def().attr<std::int64_t>("minlength") == -1);
  const SparseTensor sparse_counts =
      af::sparse_count_sparse_output(sp, g.constant(no_floats()), true);
  BOOST_TEST(sparse_counts.dense_shape.shape() == PartialShape({2}));
  const SparseTensor ragged_counts = af::ragged_count_sparse_output(
      g.constant(Tensor::from_vector(I64{0, 2})), g.constant(ints({1, 2}, Shape{1, 2})),
      g.constant(no_floats()), false);
  BOOST_TEST(ragged_counts.indices.shape() == PartialShape({-1, 3}));
}

// Python's and the shape functions' refusals while building.
BOOST_AUTO_TEST_CASE(building_refuses_what_tensorflow_refuses) {
  af::Graph g;
  const Output x = g.constant(ints({1, 2}, Shape{1, 2}), "x");
  const Output vec = g.constant(ints({1, 2}), "vec");
  const SparseTensor sp = sparse(g, {0, 0}, ints({5}), {2, 3});
  refuses([&] { af::sets::set_intersection(vec, vec); },
          "Shape must be at least rank 2 but is rank 1");
  refuses(
      [&] {
        af::sets::set_union(x, g.constant(ints({1, 2, 3, 4}, Shape{2, 2})));
      },
      "Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are [1] and [2].");
  refuses([&] { af::sets::set_operation(sp, x, "union"); },
          "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
          "inputs.");
  refuses(
      [&] {
        af::sets::set_intersection(g.constant(Tensor(DType::float32, Shape{1, 2})), x);
      },
      "'a' invalid dtype float32.");
  refuses(
      [&] {
        af::sets::set_union(x, g.constant(Tensor(DType::int64, Shape{1, 2})));
      },
      "Types don't match, int32 vs int64.");
  refuses(
      [&] {
        af::sets::set_size(sparse(g, {0, 0}, floats({1}), {2, 3}));
      },
      "Invalid dtype float32.");
  refuses(
      [&] { af::sets::set_union(sparse(g, {0}, ints({5}), {3}), sparse(g, {0}, ints({5}), {3})); },
      "Input 0, expected rank >= 2, got 1.");
  refuses(
      [&] {
        af::sets::set_union(x, sparse(g, {0, 0, 0}, ints({5}), {2, 3, 3}));
      },
      "Dimension must be 2 but is 3");
  refuses([&] { af::sparse_split(sp, 0, 0); },
          "Value for attr 'num_split' of 0 must be at least minimum 1");
  refuses([&] { af::dense_count_sparse_output(x, g.constant(no_floats()), false, -2); },
          "Value for attr 'minlength' of -2 must be at least minimum -1");
  refuses(
      [&] {
        af::dense_count_sparse_output(
            x, g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3}, Shape{1, 3})), false);
      },
      "Dimension 1 in both shapes must be equal, but are 3 and 2");
  refuses(
      [&] {
        af::sparse_bincount(sparse(g, {0, 0, 0}, ints({1}), {2, 2, 2}),
                            g.constant(Tensor(std::int32_t{3})), g.constant(no_floats()));
      },
      "Input must be less than rank 2");
  refuses(
      [&] {
        af::sparse_bincount(sp, g.constant(Tensor(std::int32_t{-3})), g.constant(no_floats()));
      },
      "size (-3) must be non-negative");
}

// TensorFlow's results: each set operation in sorted order, set sizes, split pieces, bincounts
// and sparse counts.
BOOST_AUTO_TEST_CASE(the_ops_compute_tensorflows_values) {
  af::Graph g;
  const Output x = g.constant(ints({1, 2, 2, 0, 3, 3, 4, 5}, Shape{2, 4}));
  const Output y = g.constant(ints({2, 6, 0, 0, 5, 5, 5, 7}, Shape{2, 4}));
  const SparseTensor a_minus_b = af::sets::set_difference(x, y);
  const SparseTensor both = af::sets::set_union(x, y);
  const Output dense3 = g.constant(ints({1, 2, 2, 0, 3, 3, 4, 5, 7, 8, 9, 9}, Shape{3, 4}));
  const SparseTensor s3 = sparse(g, {0, 0, 0, 1, 2, 0, 2, 3}, ints({2, 6, 9, 1}), {3, 5});
  const SparseTensor inter = af::sets::set_intersection(dense3, s3);
  const SparseTensor sa = sparse(g, {0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1},
                                 ints({1, 2, 3, 4, 5, 6}), {2, 2, 2});
  const SparseTensor sb = sparse(g, {0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 2, 1, 1, 3},
                                 ints({1, 4, 5, 6, 7, 8}), {2, 2, 4});
  const SparseTensor b_minus_a = af::sets::set_difference(sa, sb, false);
  const Output words = g.constant(Tensor::from_vector<std::string>({"b", "a", ""}, Shape{1, 3}));
  const Output others = g.constant(Tensor::from_vector<std::string>({"c", "a", "ab"}, Shape{1, 3}));
  const SparseTensor word_union = af::sets::set_union(words, others);
  const Output sizes =
      af::sets::set_size(sparse(g, {0, 0, 0, 1, 1, 0, 1, 2}, ints({1, 1, 2, 3}), {3, 4}));
  const SparseTensor entries =
      sparse(g, {0, 0, 0, 3, 1, 1, 1, 4, 2, 2, 3, 0, 4, 4}, floats({1, 2, 3, 4, 5, 6, 7}), {5, 6});
  const std::vector<SparseTensor> pieces = af::sparse_split(entries, 4, 1);
  const SparseTensor batch =
      sparse(g, {0, 0, 0, 1, 1, 0, 2, 3, 2, 4}, ints({1, 3, 1, 1, 7}), {4, 5});
  const Output bins = af::sparse_bincount(batch, g.constant(Tensor(std::int32_t{5})),
                                          g.constant(floats({1, 2, 3, 4, 5})));
  const Output ragged_bins = af::ragged_bincount(
      g.constant(Tensor::from_vector(I64{0, 2, 2, 5})), g.constant(ints({1, 1, 0, 3, 9})),
      g.constant(Tensor(std::int32_t{4})), g.constant(no_floats()));
  const SparseTensor dense_counts =
      af::dense_count_sparse_output(g.constant(ints({1, 2, 2, 5, 0, 0, 7, 1}, Shape{2, 4})),
                                    g.constant(no_floats()), false, 10, 3);
  const SparseTensor sparse_counts = af::sparse_count_sparse_output(
      sparse(g, {0, 0, 0, 2, 1, 1, 3, 0, 3, 4}, ints({4, 1, 1, 4, 4}), {4, 6}),
      g.constant(floats({1, 2, 3, 4, 5})), false);
  const SparseTensor ragged_counts = af::ragged_count_sparse_output(
      g.constant(Tensor::from_vector(I64{0, 2, 2, 5})), g.constant(ints({4, 4, 0, 9, 1})),
      g.constant(no_floats()), false);
  af::Session sess(g);
  const auto v = sess.run({a_minus_b.indices,
                           a_minus_b.values,
                           a_minus_b.dense_shape,
                           both.values,
                           both.dense_shape,
                           inter.indices,
                           inter.values,
                           inter.dense_shape,
                           b_minus_a.indices,
                           b_minus_a.values,
                           b_minus_a.dense_shape,
                           word_union.values,
                           sizes,
                           pieces[0].indices,
                           pieces[0].values,
                           pieces[0].dense_shape,
                           pieces[3].dense_shape,
                           pieces[3].values,
                           bins,
                           ragged_bins,
                           dense_counts.indices,
                           dense_counts.values,
                           dense_counts.dense_shape,
                           sparse_counts.indices,
                           sparse_counts.values,
                           sparse_counts.dense_shape,
                           ragged_counts.indices,
                           ragged_counts.values,
                           ragged_counts.dense_shape});
  expect_i64(v[0], {0, 0, 1, 0, 1, 1});
  BOOST_TEST(v[1].to_vector<std::int32_t>() == (I32{1, 3, 4}), boost::test_tools::per_element());
  expect_i64(v[2], {2, 2});
  BOOST_TEST(v[3].to_vector<std::int32_t>() == (I32{0, 1, 2, 6, 3, 4, 5, 7}),
             boost::test_tools::per_element());
  expect_i64(v[4], {2, 4});
  expect_i64(v[5], {0, 0, 2, 0});
  BOOST_TEST(v[6].to_vector<std::int32_t>() == (I32{2, 9}), boost::test_tools::per_element());
  expect_i64(v[7], {3, 1});
  expect_i64(v[8], {1, 1, 0, 1, 1, 1});
  BOOST_TEST(v[9].to_vector<std::int32_t>() == (I32{7, 8}), boost::test_tools::per_element());
  expect_i64(v[10], {2, 2, 2});
  BOOST_TEST(v[11].to_vector<std::string>() == (std::vector<std::string>{"", "a", "ab", "b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(v[12].to_vector<std::int32_t>() == (I32{1, 2, 0}), boost::test_tools::per_element());
  // 6 columns in 4 pieces: 2, 2, 1, 1 wide.
  expect_i64(v[13], {0, 0, 1, 1, 3, 0});
  BOOST_TEST(v[14].to_vector<float>() == (std::vector<float>{1, 3, 6}),
             boost::test_tools::per_element());
  expect_i64(v[15], {5, 2});
  expect_i64(v[16], {5, 1});
  BOOST_TEST(v[17].num_elements() == 0);
  BOOST_TEST(v[18].shape() == (Shape{4, 5}));
  BOOST_TEST(v[18].to_vector<float>() ==
                 (std::vector<float>{0, 1, 0, 2, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[19].to_vector<float>() == (std::vector<float>{0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1}),
             boost::test_tools::per_element());
  // maxlength 3 wins over minlength 10 and drops 5 and 7.
  expect_i64(v[20], {0, 1, 0, 2, 1, 0, 1, 1});
  BOOST_TEST(v[21].to_vector<float>() == (std::vector<float>{1, 2, 2, 1}),
             boost::test_tools::per_element());
  expect_i64(v[22], {2, 3});
  expect_i64(v[23], {0, 1, 0, 4, 1, 1, 3, 4});
  BOOST_TEST(v[24].to_vector<float>() == (std::vector<float>{2, 1, 3, 9}),
             boost::test_tools::per_element());
  expect_i64(v[25], {4, 5});
  expect_i64(v[26], {0, 4, 2, 0, 2, 1, 2, 9});
  BOOST_TEST(v[27].to_vector<float>() == (std::vector<float>{2, 1, 1, 1}),
             boost::test_tools::per_element());
  expect_i64(v[28], {3, 10});
}

// The kernels' refusals, with TensorFlow's messages and the node named.
BOOST_AUTO_TEST_CASE(kernels_refuse_bad_inputs_with_tensorflows_messages) {
  af::Graph g;
  const Output x = g.constant(ints({1, 2}, Shape{1, 2}), "x");
  const SparseTensor bogus = af::sets::set_operation(x, x, "bogus", true, "bogus");
  const Output p1 = g.placeholder(DType::int32, PartialShape::unknown(), "p1");
  const Output p2 = g.placeholder(DType::int32, PartialShape::unknown(), "p2");
  const SparseTensor mismatched = af::sets::set_union(p1, p2);
  const Output rank1 = af::sets::set_size(sparse(g, {0, 1}, ints({1, 2}), {3}));
  const Output unordered = af::sets::set_size(sparse(g, {1, 0, 0, 0}, ints({1, 2}), {2, 2}));
  const Output repeated = af::sets::set_size(sparse(g, {0, 0, 0, 0}, ints({1, 2}), {2, 2}));
  const Output unvalidated = af::sets::set_size(sparse(g, {0, 5}, ints({1}), {2, 2}), false);
  const SparseTensor groups_differ = af::sets::set_union(
      sparse(g, {0, 0, 0}, ints({1}), {2, 2, 2}), sparse(g, {0, 0, 0}, ints({1}), {2, 3, 4}));
  const SparseTensor entries = sparse(g, {0, 0, 4, 1}, floats({1, 2}), {5, 6});
  const SparseTensor bad_axis = af::sparse_split(entries, 2, 2)[0];
  const SparseTensor too_many = af::sparse_split(entries, 7, 0)[0];
  const SparseTensor outside = af::sparse_split(sparse(g, {9, 0}, floats({1}), {5, 6}), 2, 0)[0];
  const Output three = g.constant(Tensor(std::int32_t{3}));
  const Output negative_bin =
      af::sparse_bincount(sparse(g, {0, 2}, ints({1, -3}), {5}), three, g.constant(no_floats()));
  const Output short_weights =
      af::sparse_bincount(sparse(g, {0, 2}, ints({1, 2}), {5}), three, g.constant(floats({1})));
  const Output splits_start =
      af::ragged_bincount(g.constant(Tensor::from_vector(I64{1, 2})), g.constant(ints({1, 1})),
                          three, g.constant(no_floats()));
  const Output splits_end =
      af::ragged_bincount(g.constant(Tensor::from_vector(I64{0, 1})), g.constant(ints({1, 1})),
                          three, g.constant(no_floats()));
  const Output ragged_negative =
      af::ragged_bincount(g.constant(Tensor::from_vector(I64{0, 2})), g.constant(ints({1, -1})),
                          three, g.constant(no_floats()));
  const SparseTensor cube = af::dense_count_sparse_output(g.constant(ints({1}, Shape{1, 1, 1})),
                                                          g.constant(no_floats()), false);
  const SparseTensor negative_count =
      af::dense_count_sparse_output(g.constant(ints({3, -1})), g.constant(no_floats()), false);
  const SparseTensor no_rows = af::dense_count_sparse_output(
      g.constant(Tensor(DType::int32, Shape{0, 3})), g.constant(no_floats()), false);
  const SparseTensor count_outside = af::sparse_count_sparse_output(
      sparse(g, {0, 7}, ints({2}), {2, 5}), g.constant(no_floats()), false);
  const SparseTensor no_batches = af::sparse_count_sparse_output(
      sparse(g, {}, Tensor(DType::int32, Shape{0}), {0, 5}), g.constant(no_floats()), false);
  const SparseTensor one_split = af::ragged_count_sparse_output(
      g.constant(Tensor::from_vector(I64{0})), g.constant(Tensor(DType::int32, Shape{0})),
      g.constant(no_floats()), false);
  af::Session sess(g);
  fails_with(sess, bogus.values, "Invalid set_operation bogus.");
  fails_with(sess, mismatched.values, "Mismatched shapes [1] vs [2]",
             {{p1, ints({1, 2}, Shape{1, 2})}, {p2, ints({1, 2}, Shape{2, 1})}});
  fails_with(sess, mismatched.values, "Shape [2] has rank 1 < 2",
             {{p1, ints({1, 2})}, {p2, ints({1, 2}, Shape{2, 1})}});
  fails_with(sess, rank1, "Invalid rank 1.");
  fails_with(sess, unordered,
             "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices.\n"
             "    Use `tf.sparse.reorder` to create a correctly ordered copy.");
  fails_with(sess, repeated, "indices[1] = [0,0] is repeated");
  fails_with<af::InternalError>(sess, unvalidated, "indices[0, 1] expected < 2, got 5.");
  fails_with(sess, groups_differ.values, "Mismatched shapes [2,2] vs [2,3]");
  fails_with(sess, bad_axis.values, "Input axis should be in range [-2, 2), got 2");
  fails_with(sess, too_many.values,
             "Input num_split should be between 1 and the splitting dimension size (5), got 7");
  fails_with(sess, outside.values, "Sparse index tuple indices[0, :] = [9, 0] is out of bounds");
  fails_with(sess, negative_bin, "Input arr must be non-negative!");
  fails_with(sess, short_weights, "Input indices and weights must have the same size.");
  fails_with(sess, splits_start, "Splits must start with 0, not with 1");
  fails_with(sess, splits_end, "Splits must end with the number of values, got 1 instead of 2");
  fails_with(sess, ragged_negative, "Input must be non-negative");
  fails_with(sess, cube.values, "Input must be a 1 or 2-dimensional tensor. Got: [1,1,1]");
  fails_with(sess, negative_count.values, "Input values must all be non-negative");
  fails_with(sess, no_rows.values, "Invalid input: Shapes dimension cannot be 0.");
  fails_with(sess, count_outside.values,
             "Invalid index value at 0: dimension 1 has value 7 which is not in [0, 5) (as given "
             "by dense shape Tensor<type: int64 shape: [2] values: 2 5>");
  fails_with(sess, no_batches.values, "Cannot allocate 0 batches, is the dense shape too wide?");
  fails_with(sess, one_split.values, "Must provide at least 2 elements for the splits argument");
  fails_with(sess, negative_count.values, "{{node DenseCountSparseOutput_1}}");
}

// As in TensorFlow, the set ops stop gradients and the split and count ops have none.
BOOST_AUTO_TEST_CASE(gradients_are_refused_as_in_tensorflow) {
  af::Graph g;
  const Output values = g.constant(floats({1, 2}), "values");
  const SparseTensor sp{g.constant(Tensor::from_vector(I64{0, 0, 1, 1}, Shape{2, 2})), values,
                        g.constant(Tensor::from_vector(I64{2, 2}))};
  refuses<af::NotFoundError>(
      [&] { af::gradients({af::reduce_sum(af::sparse_split(sp, 2, 0)[0].values)}, {values}); },
      "No gradient defined for operation");
  const Output weights = g.constant(floats({1, 2}), "weights");
  refuses<af::NotFoundError>(
      [&] {
        af::gradients(
            {af::reduce_sum(
                af::dense_count_sparse_output(g.constant(ints({1, 2})), weights, false).values)},
            {weights});
      },
      "(op type: DenseCountSparseOutput)");
}

BOOST_AUTO_TEST_SUITE_END()
