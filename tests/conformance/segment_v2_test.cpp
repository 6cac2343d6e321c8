// The sparse gradients of the sparse segment reductions against TensorFlow 2.21
// (tf.compat.v1, graph mode): with the attr sparse_gradient (tf.sparse.segment_*(...,
// sparse_gradient=True), tf.nn.embedding_lookup_sparse without weights) the gradient of
// SparseSegment{Sum,Mean,SqrtN} and their WithNumSegments forms is math_grad.py's
// _SparseSegmentReduceGradV2: IndexedSlices of SparseSegment*GradV2's rows, its sorted unique
// indices and data's shape. Also the GradV2 kernels' texts (segment_reduction_ops_impl.h's
// SparseSegmentGradV2OpCommon and SparseSegmentGradV2Functor). Values and messages printed by
// TensorFlow 2.21; the fixture cases are scripts/peers/op_cases_segment_v2.py.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/gradients.hpp>
#include <actorflow/ops/indexed_slices.hpp>
#include <actorflow/ops/sparse_segment_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Operation;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::check_close;
using af::test::contains;
using af::test::error_of;

// The data of the cases: arange(15).reshape(5, 3) / 4.
Output table(af::Graph& g) {
  std::vector<float> d(15);
  for (int i = 0; i < 15; ++i) d[static_cast<std::size_t>(i)] = static_cast<float>(i) / 4.0f;
  return g.constant(Tensor::from_vector(d, Shape{5, 3}), "data");
}

Output floats(af::Graph& g, const std::vector<float>& v, Shape shape) {
  return g.constant(Tensor::from_vector(v, std::move(shape)));
}

template <class I>
Output index_vector(af::Graph& g, const std::vector<I>& v) {
  return g.constant(Tensor::from_vector(v));
}

// SparseSegment<kind>(data, indices, segment_ids) with the attr sparse_gradient, as
// math_ops.sparse_segment_* builds it.
Output reduction(const std::string& kind, const Output& data, const Output& indices,
                 const Output& segment_ids, bool sparse_gradient) {
  return data.graph()
      .create_op("SparseSegment" + kind, {data, indices, segment_ids},
                 {{"T", data.dtype()},
                  {"Tidx", indices.dtype()},
                  {"Tsegmentids", segment_ids.dtype()},
                  {"sparse_gradient", sparse_gradient}})
      .output(0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(segment_v2_test)

// tf.sparse.segment_mean(data, [3, 0, 3, 1], [0, 0, 1, 2], sparse_gradient=True) with the
// upstream gradient arange(1, 10).reshape(3, 3): IndexedSlices of rows [0, 1, 3] (0.5 g0,
// g2, 0.5 g0 + g1) and data's shape [5, 3], the values from SparseSegmentMeanGradV2 fed by
// strided_slice of the shape, as TensorFlow builds them.
BOOST_AUTO_TEST_CASE(sparse_gradient_mean_gives_indexed_slices_of_sorted_unique_rows,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output data = table(g);
  const Output out =
      reduction("Mean", data, index_vector<std::int32_t>(g, {3, 0, 3, 1}),
                index_vector<std::int32_t>(g, {0, 0, 1, 2}), /*sparse_gradient=*/true);
  const Output upstream = floats(g, {1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{3, 3});
  const std::vector<af::Gradient> grads = af::gradients_with_slices({out}, {data}, {upstream});
  BOOST_REQUIRE(grads[0].is_slices());
  const af::IndexedSlices& slices = grads[0].slices();
  BOOST_TEST(slices.values.op().type() == "SparseSegmentMeanGradV2");
  BOOST_TEST(contains(slices.values.op().name(), "SparseSegmentMean_grad/SparseSegmentMeanGradV2"));
  BOOST_TEST(slices.values.shape().to_string() == "(?, 3)");
  BOOST_TEST(slices.indices.dtype() == DType::int32);
  BOOST_TEST(slices.dense_shape.op().type() == "Const");  // data's shape is known
  af::Session sess(g);
  const std::vector<Tensor> got =
      sess.run({out, slices.values, slices.indices, slices.dense_shape});
  check_close(got[0].to_vector<float>(), {1.125, 1.375, 1.625, 2.25, 2.5, 2.75, 0.75, 1, 1.25});
  check_close(got[1].to_vector<float>(), {0.5, 1, 1.5, 7, 8, 9, 4.5, 6, 7.5});
  BOOST_TEST(got[2].to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 1, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(got[3].to_vector<std::int32_t>() == (std::vector<std::int32_t>{5, 3}),
             boost::test_tools::per_element());
  // Densified (af::gradients, tf.convert_to_tensor) it is the Grad op's dense gradient.
  const Output dense = af::gradients({out}, {data}, {upstream})[0];
  check_close(sess.run(dense).to_vector<float>(),
              {0.5, 1, 1.5, 7, 8, 9, 0, 0, 0, 4.5, 6, 7.5, 0, 0, 0});
}

// Without the attr (or with it false) the gradient stays the dense SparseSegmentMeanGrad.
BOOST_AUTO_TEST_CASE(without_sparse_gradient_the_gradient_stays_dense,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output data = table(g);
  const Output out = reduction("Mean", data, index_vector<std::int32_t>(g, {3, 0, 3, 1}),
                               index_vector<std::int32_t>(g, {0, 0, 1, 2}), false);
  const Output plain = af::sparse_segment_sqrt_n(data, index_vector<std::int32_t>(g, {1, 1}),
                                                 index_vector<std::int32_t>(g, {0, 0}));
  const std::vector<af::Gradient> grads = af::gradients_with_slices({out, plain}, {data});
  BOOST_REQUIRE(!grads[0].is_slices());
  af::Session sess(g);
  // Ones upstream: rows 0 and 3 get 1/2 from segment 0; row 3 1 more, row 1 1; row 1 twice
  // 1/sqrt(2) from the second reduction.
  const float r = 1.0f / std::sqrt(2.0f);
  check_close(sess.run(grads[0].dense()).to_vector<float>(),
              {0.5, 0.5, 0.5, 1 + 2 * r, 1 + 2 * r, 1 + 2 * r, 0, 0, 0, 1.5, 1.5, 1.5, 0, 0, 0});
}

// tf.sparse.segment_sqrt_n(data, [4, 1, 4, 2], [0, 0, 0, 3], num_segments=5,
// sparse_gradient=True): SparseSegmentSqrtNWithNumSegments' gradient is
// SparseSegmentSqrtNGradV2's slices of rows [1, 2, 4].
BOOST_AUTO_TEST_CASE(sparse_gradient_with_num_segments_gives_indexed_slices,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output data = table(g);
  const Output indices = index_vector<std::int32_t>(g, {4, 1, 4, 2});
  const Output ids = index_vector<std::int32_t>(g, {0, 0, 0, 3});
  const Output n = g.constant(Tensor(std::int32_t{5}));
  const Output out = g.create_op("SparseSegmentSqrtNWithNumSegments", {data, indices, ids, n},
                                 {{"T", DType::float32},
                                  {"Tidx", DType::int32},
                                  {"Tsegmentids", DType::int32},
                                  {"Tnumsegments", DType::int32},
                                  {"sparse_gradient", true}})
                         .output(0);
  std::vector<float> up(15);
  for (int i = 0; i < 15; ++i) up[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  const std::vector<af::Gradient> grads =
      af::gradients_with_slices({out}, {data}, {floats(g, up, Shape{5, 3})});
  BOOST_REQUIRE(grads[0].is_slices());
  BOOST_TEST(grads[0].slices().values.op().type() == "SparseSegmentSqrtNGradV2");
  af::Session sess(g);
  const std::vector<Tensor> got =
      sess.run({out, grads[0].slices().values, grads[0].slices().indices});
  check_close(got[0].to_vector<float>(), {3.8971142768859863, 4.330126762390137, 4.763139724731445,
                                          0, 0, 0, 0, 0, 0, 1.5, 1.75, 2, 0, 0, 0});
  check_close(got[1].to_vector<float>(),
              {0.5773502588272095, 1.154700517654419, 1.7320507764816284, 10, 11, 12,
               1.154700517654419, 2.309401035308838, 3.464101552963257});
  BOOST_TEST(got[2].to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2, 4}),
             boost::test_tools::per_element());
}

// int64 indices: the slices' indices are int64 (SparseSegmentSumGradV2's output 1 has Tidx).
BOOST_AUTO_TEST_CASE(sparse_gradient_indices_keep_the_indices_dtype,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output data = table(g);
  const Output out = reduction("Sum", data, index_vector<std::int64_t>(g, {2, 2, 0}),
                               index_vector<std::int64_t>(g, {0, 1, 1}), true);
  const std::vector<af::Gradient> grads =
      af::gradients_with_slices({out}, {data}, {floats(g, {1, 2, 3, 4, 5, 6}, Shape{2, 3})});
  BOOST_REQUIRE(grads[0].is_slices());
  BOOST_TEST(grads[0].slices().indices.dtype() == DType::int64);
  af::Session sess(g);
  const std::vector<Tensor> got = sess.run({grads[0].slices().values, grads[0].slices().indices});
  check_close(got[0].to_vector<float>(), {4, 5, 6, 5, 7, 9});
  BOOST_TEST(got[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 2}),
             boost::test_tools::per_element());
}

// The builder: outputs `[?] + grad.shape[1:]` and `[?]` of the indices' dtype whatever
// dense_output_dim0 is; a bad kind or shapes known while building throw InvalidArgumentError.
BOOST_AUTO_TEST_CASE(grad_v2_builder_infers_unknown_rows_and_refuses_bad_shapes,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output grad = floats(g, {1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Output idx = index_vector<std::int64_t>(g, {1, 0, 1});
  const Output ids = index_vector<std::int32_t>(g, {0, 1, 1});
  const Output dim0 = g.constant(Tensor(std::int32_t{4}));
  const Operation op = af::sparse_segment_reduction_grad_v2("Sum", grad, idx, ids, dim0);
  BOOST_TEST(op.type() == "SparseSegmentSumGradV2");
  BOOST_TEST(op.output(0).shape().to_string() == "(?, 3)");
  BOOST_TEST(op.output(1).shape().to_string() == "(?,)");
  BOOST_TEST(op.output(1).dtype() == DType::int64);
  af::Session sess(g);
  const std::vector<Tensor> got = sess.run({op.output(0), op.output(1)});
  check_close(got[0].to_vector<float>(), {4, 5, 6, 5, 7, 9});  // row 0: g1; row 1: g0 + g1
  BOOST_TEST(got[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1}),
             boost::test_tools::per_element());

  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::sparse_segment_reduction_grad_v2("Max", grad, idx, ids, dim0);
                      }),
                      "kind 'Max' is not Sum, Mean or SqrtN"));
  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::sparse_segment_reduction_grad_v2("Mean", g.constant(Tensor(1.0f)), idx,
                                                             ids, dim0);
                      }),
                      "Shape must be at least rank 1 but is rank 0"));
  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::sparse_segment_reduction_grad_v2(
                            "Mean", grad, idx, index_vector<std::int32_t>(g, {0, 1}), dim0);
                      }),
                      "Dimension 0 in both shapes must be equal, but are 2 and 3"));
  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::sparse_segment_reduction_grad_v2("Mean", grad, idx, ids,
                                                             index_vector<std::int32_t>(g, {4}));
                      }),
                      "Shape must be rank 0 but is rank 1"));
}

// No indices, or dense_output_dim0 0: empty outputs `[0] + grad.shape[1:]` and `[0]`.
BOOST_AUTO_TEST_CASE(grad_v2_without_rows_gives_empty_outputs, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output grad = floats(g, {1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Output none = g.constant(Tensor(DType::int32, Shape{0}));
  const Operation empty = af::sparse_segment_reduction_grad_v2("SqrtN", grad, none, none,
                                                               g.constant(Tensor(std::int32_t{4})));
  const Operation zero_rows = af::sparse_segment_reduction_grad_v2(
      "Mean", grad, index_vector<std::int32_t>(g, {0, 1}), index_vector<std::int32_t>(g, {0, 1}),
      g.constant(Tensor(std::int32_t{0})));
  af::Session sess(g);
  const std::vector<Tensor> got =
      sess.run({empty.output(0), empty.output(1), zero_rows.output(0), zero_rows.output(1)});
  BOOST_TEST(got[0].shape().to_string() == "[0,3]");
  BOOST_TEST(got[1].shape().to_string() == "[0]");
  BOOST_TEST(got[2].shape().to_string() == "[0,3]");
  BOOST_TEST(got[3].shape().to_string() == "[0]");
}

// SparseSegmentGradV2OpCommon's and the CPU functor's texts, in TensorFlow's order (the
// shapes fed at run time past the shape function).
BOOST_AUTO_TEST_CASE(grad_v2_kernels_fail_with_tensorflows_messages,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output grad = g.placeholder(DType::float32, PartialShape::unknown(), "grad");
  const Output idx = g.placeholder(DType::int32, PartialShape::unknown(), "indices");
  const Output ids = g.placeholder(DType::int32, PartialShape::unknown(), "segment_ids");
  const Output dim0 = g.placeholder(DType::int32, PartialShape::unknown(), "dim0");
  const Operation op = af::sparse_segment_reduction_grad_v2("Mean", grad, idx, ids, dim0);
  af::Session sess(g);
  auto ints = [](std::vector<std::int32_t> v) { return Tensor::from_vector(v); };
  const Tensor rows = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{3, 3});
  auto fails = [&](const Tensor& gv, const Tensor& iv, const Tensor& sv, const Tensor& dv) {
    return error_of([&] {
      sess.run({op.output(0), op.output(1)}, {{grad, gv}, {idx, iv}, {ids, sv}, {dim0, dv}});
    });
  };
  const Tensor five(std::int32_t{5});
  BOOST_TEST(contains(
      fails(rows, Tensor::from_vector<std::int32_t>({1, 0, 1}, Shape{1, 3}), ints({0, 1, 2}), five),
      "indices should be a vector."));
  BOOST_TEST(contains(
      fails(rows, ints({1, 0, 1}), Tensor::from_vector<std::int32_t>({0, 1, 2}, Shape{1, 3}), five),
      "segment_ids should be a vector."));
  BOOST_TEST(contains(fails(rows, ints({1, 0, 1}), ints({0, 1, 2}), ints({5})),
                      "dense_output_dim0 should be a scalar."));
  BOOST_TEST(contains(fails(rows, ints({1, 0, 1}), ints({0, 1}), five),
                      "segment_ids and indices should have same size."));
  BOOST_TEST(contains(fails(Tensor(1.0f), ints({1, 0, 1}), ints({0, 1, 2}), five),
                      "Index must be less than 0, got 0"));
  BOOST_TEST(contains(fails(rows, ints({1, 0, 1}), ints({0, 1, 2}), Tensor(std::int32_t{-1})),
                      "Expected a non-negative size, got -1"));
  BOOST_TEST(
      contains(fails(Tensor(DType::float32, Shape{0, 3}), ints({1, 0, 1}), ints({0, 1, 2}), five),
               "Invalid number of segments"));
  BOOST_TEST(
      contains(fails(rows, ints({1, 0, 1}), ints({0, 1, 3}), five), "Invalid number of segments"));
  BOOST_TEST(contains(fails(rows, ints({1, 5, 1}), ints({0, 1, 2}), five),
                      "Index 5 out of range [0, 5)."));
  BOOST_TEST(contains(fails(rows, ints({1, -1, 1}), ints({0, 1, 2}), five),
                      "Index -1 out of range [0, 5)."));
  BOOST_TEST(contains(fails(rows, ints({1, 0, 1}), ints({0, -1, 2}), five),
                      "Segment id -1 out of range [0, 3)."));
  // Both wrong: the last id's check comes first.
  BOOST_TEST(
      contains(fails(rows, ints({1, 5, 1}), ints({0, 1, 3}), five), "Invalid number of segments"));
  // Unsorted segment ids are fine (the gradient does not need them sorted).
  const std::vector<Tensor> got =
      sess.run({op.output(0), op.output(1)},
               {{grad, rows}, {idx, ints({1, 0, 1})}, {ids, ints({2, 1, 0})}, {dim0, five}});
  check_close(got[0].to_vector<float>(), {4, 5, 6, 8, 10, 12});
  BOOST_TEST(got[1].to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
