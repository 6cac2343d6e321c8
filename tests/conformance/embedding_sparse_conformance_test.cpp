// TensorFlow 1.x's embedding_lookup_sparse (embedding_ops.py) and the segment reductions it
// combines rows with (SparseSegmentSum/Mean/SqrtN, their Grad ops, SegmentSum;
// segment_reduction_ops_impl.h): outputs and gradients for both partition strategies, every
// combiner, with and without weights, and the kernels' texts. The values come from
// scripts/peers/make_embedding_sparse_references.py (real TensorFlow, tf.compat.v1).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/sparse_segment_ops.hpp>
#include <actorflow/ops/sparse_tensor.hpp>
#include <actorflow/train/embedding_ops.hpp>
#include <actorflow/train/partitioned_variables.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
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
namespace train = af::train;

using af::test::check_close;

// The table arange(40) * 0.25 - 3 as [10,4], and the rows part k of 3 holds under a strategy.
float table(std::int64_t row, std::int64_t col) {
  return static_cast<float>(row * 4 + col) * 0.25f - 3.0f;
}
std::vector<std::int64_t> part_rows(const std::string& strategy, int k) {
  std::vector<std::int64_t> rows;
  if (strategy == "mod") {
    for (std::int64_t i = k; i < 10; i += 3) rows.push_back(i);
  } else {
    const std::int64_t start[] = {0, 4, 7}, size[] = {4, 3, 3};
    for (std::int64_t i = 0; i < size[k]; ++i) rows.push_back(start[k] + i);
  }
  return rows;
}

// A batch of 3 examples: ids {1, 3, 3}, {} and {9, 0}, weights {1, 2, 0.5} and {3, -1}.
af::SparseTensor sparse(af::Graph& g, const Tensor& values) {
  return {
      g.constant(Tensor::from_vector<std::int64_t>({0, 0, 0, 1, 0, 2, 2, 0, 2, 1}, Shape{5, 2})),
      g.constant(values), g.constant(Tensor::from_vector<std::int64_t>({3, 3}))};
}

struct LookupCase {
  std::string strategy;
  bool weighted;
  std::string combiner;
  std::vector<float> output;      // [3,4]
  std::vector<float> table_grad;  // [10,4]: d sum(output * upstream) / d table
};

// make_embedding_sparse_references.py, part 1.
const std::vector<LookupCase> kLookupCases = {
    {"mod",
     false,
     "sum",
     {-2, -1.25, -0.5, 0.25, 0, 0, 0, 0, 3, 3.5, 4, 4.5},
     {1.5, 2, 2.5, 3, -2.5, -2, -1.5, -1, 0, 0, 0, 0, -5, -4, -3, -2, 0,   0, 0,   0,
      0,   0, 0,   0, 0,    0,  0,    0,  0, 0, 0, 0, 0,  0,  0,  0,  1.5, 2, 2.5, 3}},
    {"mod",
     false,
     "mean",
     {-0.666666687, -0.416666687, -0.166666672, 0.0833333358, 0, 0, 0, 0, 1.5, 1.75, 2, 2.25},
     {0.75,
      1,
      1.25,
      1.5,
      -0.833333373,
      -0.666666687,
      -0.5,
      -0.333333343,
      0,
      0,
      0,
      0,
      -1.66666675,
      -1.33333337,
      -1,
      -0.666666687,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0.75,
      1,
      1.25,
      1.5}},
    {"mod",
     false,
     "sqrtn",
     {-1.15470052, -0.721687794, -0.288675129, 0.144337565, 0, 0, 0, 0, 2.12132025, 2.47487378,
      2.82842708, 3.18198037},
     {1.06066012,
      1.41421354,
      1.76776695,
      2.12132025,
      -1.44337559,
      -1.15470052,
      -0.866025388,
      -0.577350259,
      0,
      0,
      0,
      0,
      -2.88675117,
      -2.30940104,
      -1.73205078,
      -1.15470052,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1.06066012,
      1.41421354,
      1.76776695,
      2.12132025}},
    {"mod",
     true,
     "sum",
     {-2, -1.125, -0.25, 0.625, 0, 0, 0, 0, 21, 21.5, 22, 22.5},
     {-1.5, -2, -2.5, -3, -2.5, -2, -1.5, -1, 0, 0, 0, 0, -6.25, -5, -3.75, -2.5, 0,   0, 0,   0,
      0,    0,  0,    0,  0,    0,  0,    0,  0, 0, 0, 0, 0,     0,  0,     0,    4.5, 6, 7.5, 9}},
    {"mod",
     true,
     "mean",
     {-0.571428597, -0.321428567, -0.0714285746, 0.178571433, 0, 0, 0, 0, 10.5, 10.75, 11, 11.25},
     {-0.75,
      -1,
      -1.25,
      -1.5,
      -0.714285731,
      -0.571428597,
      -0.428571433,
      -0.285714298,
      0,
      0,
      0,
      0,
      -1.78571439,
      -1.42857146,
      -1.07142854,
      -0.714285731,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      2.25,
      3,
      3.75,
      4.5}},
    {"mod",
     true,
     "sqrtn",
     {-0.872871518, -0.490990251, -0.10910894, 0.272772342, 0, 0, 0, 0, 6.64078283, 6.79889679,
      6.95701075, 7.1151247},
     {-0.474341631,
      -0.632455528,
      -0.790569425,
      -0.948683262,
      -1.09108937,
      -0.872871518,
      -0.654653668,
      -0.436435759,
      0,
      0,
      0,
      0,
      -2.72772336,
      -2.18217874,
      -1.63663411,
      -1.09108937,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1.42302489,
      1.89736652,
      2.37170839,
      2.84604979}},
    {"div",
     false,
     "sum",
     {-2, -1.25, -0.5, 0.25, 0, 0, 0, 0, 3, 3.5, 4, 4.5},
     {1.5, 2, 2.5, 3, -2.5, -2, -1.5, -1, 0, 0, 0, 0, -5, -4, -3, -2, 0,   0, 0,   0,
      0,   0, 0,   0, 0,    0,  0,    0,  0, 0, 0, 0, 0,  0,  0,  0,  1.5, 2, 2.5, 3}},
    {"div",
     false,
     "mean",
     {-0.666666687, -0.416666687, -0.166666672, 0.0833333358, 0, 0, 0, 0, 1.5, 1.75, 2, 2.25},
     {0.75,
      1,
      1.25,
      1.5,
      -0.833333373,
      -0.666666687,
      -0.5,
      -0.333333343,
      0,
      0,
      0,
      0,
      -1.66666675,
      -1.33333337,
      -1,
      -0.666666687,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0.75,
      1,
      1.25,
      1.5}},
    {"div",
     false,
     "sqrtn",
     {-1.15470052, -0.721687794, -0.288675129, 0.144337565, 0, 0, 0, 0, 2.12132025, 2.47487378,
      2.82842708, 3.18198037},
     {1.06066012,
      1.41421354,
      1.76776695,
      2.12132025,
      -1.44337559,
      -1.15470052,
      -0.866025388,
      -0.577350259,
      0,
      0,
      0,
      0,
      -2.88675117,
      -2.30940104,
      -1.73205078,
      -1.15470052,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1.06066012,
      1.41421354,
      1.76776695,
      2.12132025}},
    {"div",
     true,
     "sum",
     {-2, -1.125, -0.25, 0.625, 0, 0, 0, 0, 21, 21.5, 22, 22.5},
     {-1.5, -2, -2.5, -3, -2.5, -2, -1.5, -1, 0, 0, 0, 0, -6.25, -5, -3.75, -2.5, 0,   0, 0,   0,
      0,    0,  0,    0,  0,    0,  0,    0,  0, 0, 0, 0, 0,     0,  0,     0,    4.5, 6, 7.5, 9}},
    {"div",
     true,
     "mean",
     {-0.571428597, -0.321428567, -0.0714285746, 0.178571433, 0, 0, 0, 0, 10.5, 10.75, 11, 11.25},
     {-0.75,
      -1,
      -1.25,
      -1.5,
      -0.714285731,
      -0.571428597,
      -0.428571433,
      -0.285714298,
      0,
      0,
      0,
      0,
      -1.78571439,
      -1.42857146,
      -1.07142854,
      -0.714285731,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      2.25,
      3,
      3.75,
      4.5}},
    {"div",
     true,
     "sqrtn",
     {-0.872871518, -0.490990251, -0.10910894, 0.272772342, 0, 0, 0, 0, 6.64078283, 6.79889679,
      6.95701075, 7.1151247},
     {-0.474341631,
      -0.632455528,
      -0.790569425,
      -0.948683262,
      -1.09108937,
      -0.872871518,
      -0.654653668,
      -0.436435759,
      0,
      0,
      0,
      0,
      -2.72772336,
      -2.18217874,
      -1.63663411,
      -1.09108937,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1.42302489,
      1.89736652,
      2.37170839,
      2.84604979}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(embedding_sparse_conformance_test)

// Every strategy, combiner and weighting: the combined rows (the example without ids a row of
// zeros) and the gradient each part gets, as IndexedSlices of the rows used.
BOOST_AUTO_TEST_CASE(lookups_combine_rows_and_their_gradients_match_tensorflow,
                     *boost::unit_test::timeout(120)) {
  for (const LookupCase& c : kLookupCases) {
    BOOST_TEST_CONTEXT(c.strategy << (c.weighted ? " weighted " : " unweighted ") << c.combiner) {
      af::Graph g;
      auto emb = train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                                 {.initializer = af::initializers::zeros(),
                                                  .partitioner = train::fixed_size_partitioner(3)});
      const af::SparseTensor ids = sparse(g, Tensor::from_vector<std::int64_t>({1, 3, 3, 9, 0}));
      const af::SparseTensor weights =
          sparse(g, Tensor::from_vector<float>({1.0f, 2.0f, 0.5f, 3.0f, -1.0f}));
      const Output out = train::embedding_lookup_sparse(
          emb, ids, c.weighted ? &weights : nullptr,
          {.partition_strategy = c.strategy, .combiner = c.combiner});
      std::vector<float> upstream(12);
      for (int i = 0; i < 12; ++i)
        upstream[static_cast<std::size_t>(i)] = (static_cast<float>(i) - 5.0f) * 0.5f;
      const Output loss =
          af::reduce_sum(af::mul(out, g.constant(Tensor::from_vector(upstream, Shape{3, 4}))),
                         std::vector<std::int64_t>{0, 1});
      std::vector<Output> refs;
      for (const af::Variable& p : emb.parts()) refs.push_back(p.ref());
      const std::vector<af::Gradient> grads = af::gradients_with_slices({loss}, refs);
      af::Session sess(g);
      for (int k = 0; k < 3; ++k) {
        std::vector<float> rows;
        for (std::int64_t r : part_rows(c.strategy, k))
          for (int col = 0; col < 4; ++col) rows.push_back(table(r, col));
        const af::Variable& part = emb.parts()[static_cast<std::size_t>(k)];
        sess.run(Output(part.assign(g.constant(Tensor::from_vector(
                            rows, Shape{static_cast<std::int64_t>(rows.size() / 4), 4}))))
                     .op());
      }
      const Tensor got = sess.run(out);
      BOOST_TEST(got.shape().to_string() == "[3,4]");
      check_close(got.to_vector<float>(), c.output);
      std::vector<float> table_grad(40, 0.0f);
      for (int k = 0; k < 3; ++k) {
        const af::Gradient& grad = grads[static_cast<std::size_t>(k)];
        BOOST_TEST(grad.is_slices());
        const std::vector<float> part = sess.run(grad.to_dense()).to_vector<float>();
        const auto rows = part_rows(c.strategy, k);
        for (std::size_t r = 0; r < rows.size(); ++r)
          for (std::size_t col = 0; col < 4; ++col)
            table_grad[static_cast<std::size_t>(rows[r]) * 4 + col] = part[r * 4 + col];
      }
      check_close(table_grad, c.table_grad, 1e-5f);
    }
  }
}

// The ops on their own: 11 rows in one segment (divided by n) and 2 in another (scaled by
// 1/n), a segment no id names, and the gradient ops.
BOOST_AUTO_TEST_CASE(segment_reductions_match_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  std::vector<float> d(24);
  for (int i = 0; i < 24; ++i) d[static_cast<std::size_t>(i)] = static_cast<float>(i) / 3.0f;
  const Output data = g.constant(Tensor::from_vector(d, Shape{12, 2}));
  std::vector<std::int32_t> idx(11), seg(11, 0);
  for (int i = 0; i < 11; ++i) idx[static_cast<std::size_t>(i)] = i;
  idx.push_back(3);
  idx.push_back(7);
  seg.push_back(2);
  seg.push_back(2);
  const Output indices = g.constant(Tensor::from_vector(idx));
  const Output segments = g.constant(Tensor::from_vector(seg));
  af::Session sess(g);
  check_close(sess.run(af::sparse_segment_sum(data, indices, segments)).to_vector<float>(),
              {36.6666679, 40.3333359, 0, 0, 6.66666651, 7.33333302});
  check_close(sess.run(af::sparse_segment_mean(data, indices, segments)).to_vector<float>(),
              {3.33333349, 3.66666698, 0, 0, 3.33333325, 3.66666651});
  check_close(sess.run(af::sparse_segment_sqrt_n(data, indices, segments)).to_vector<float>(),
              {11.0554161, 12.1609583, 0, 0, 4.71404505, 5.1854496});
  const Output grad = g.constant(Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2}));
  const Output dim0 = g.constant(Tensor(std::int32_t{12}));
  const Output mean_grad = af::sparse_segment_reduction_grad("Mean", grad, indices, segments, dim0);
  BOOST_TEST(mean_grad.shape().to_string() == "(12, 2)");
  check_close(sess.run(mean_grad).to_vector<float>(), {0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       2.590909,
                                                       3.18181825,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       2.590909,
                                                       3.18181825,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0.0909090936,
                                                       0.181818187,
                                                       0,
                                                       0});
  check_close(sess.run(af::sparse_segment_reduction_grad("SqrtN", grad, indices, segments, dim0))
                  .to_vector<float>(),
              {0.301511347, 0.603022695, 0.301511347, 0.603022695, 0.301511347, 0.603022695,
               3.83704519,  4.84566307,  0.301511347, 0.603022695, 0.301511347, 0.603022695,
               0.301511347, 0.603022695, 3.83704519,  4.84566307,  0.301511347, 0.603022695,
               0.301511347, 0.603022695, 0.301511347, 0.603022695, 0,           0});
  const Output first5 = af::slice(data, {0, 0}, {5, 2});
  check_close(sess.run(af::segment_sum(
                           first5, g.constant(Tensor::from_vector<std::int32_t>({0, 0, 1, 3, 3}))))
                  .to_vector<float>(),
              {0.666666687, 1.33333337, 1.33333337, 1.66666663, 0, 0, 4.66666698, 5.33333302});
}

// segment_reduction_ops_impl.h's texts.
BOOST_AUTO_TEST_CASE(bad_segments_and_indices_fail_with_tensorflows_messages,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  std::vector<float> d(24, 1.0f);
  const Output data = g.constant(Tensor::from_vector(d, Shape{12, 2}));
  const Output first5 = af::slice(data, {0, 0}, {5, 2});
  auto ints = [&](std::vector<std::int32_t> v) { return g.constant(Tensor::from_vector(v)); };
  af::Session sess(g);
  auto fails = [&](const Output& o) { return error_of([&] { sess.run(o); }); };
  BOOST_TEST(
      contains(fails(af::sparse_segment_sum(first5, ints({0, 1, 2, 3, 4}), ints({0, 0, 2, 1, 1}))),
               "segment ids are not increasing"));
  BOOST_TEST(contains(fails(af::segment_sum(first5, ints({0, 0, 2, 1, 1}))),
                      "segment ids are not increasing"));
  BOOST_TEST(contains(fails(af::sparse_segment_sum(data, ints({0, 12}), ints({0, 1}))),
                      "Bad: indices[1] == 12 out of range [0, 12)"));
  BOOST_TEST(contains(fails(af::sparse_segment_sum(data, ints({0, 1}), ints({-1, 0}))),
                      "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input "
                      "is not sorted."));
  BOOST_TEST(contains(fails(af::segment_sum(af::slice(data, {0, 0}, {2, 2}), ints({-1, 0}))),
                      "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input "
                      "is not sorted."));
  const Output unknown = g.placeholder(af::int32, af::PartialShape::unknown(), "ids");
  BOOST_TEST(contains(error_of([&] {
                        sess.run(af::segment_sum(af::slice(data, {0, 0}, {3, 2}), unknown),
                                 {{unknown, Tensor::from_vector<std::int32_t>({0, 1})}});
                      }),
                      "segment_ids should be the same size as dimension 0 of input."));
  BOOST_TEST(contains(error_of([&] {
                        sess.run(af::sparse_segment_sum(data, unknown, ints({0, 1})),
                                 {{unknown, Tensor::from_vector<std::int32_t>({0, 1, 2})}});
                      }),
                      "segment_ids and indices should have same size."));
  BOOST_TEST(contains(error_of([&] {
                        sess.run(af::sparse_segment_reduction_grad(
                            "Mean", af::slice(data, {0, 0}, {2, 2}), ints({0, 12}), ints({0, 1}),
                            g.constant(Tensor(std::int32_t{12}))));
                      }),
                      "Index 12 out of range [0, 12)."));
  BOOST_TEST(contains(error_of([&] {
                        af::train::embedding_lookup_sparse(
                            {data}, sparse(g, Tensor::from_vector<std::int64_t>({1, 3, 3, 9, 0})),
                            nullptr, {.combiner = "max"});
                      }),
                      "combiner must be one of 'mean', 'sqrtn' or 'sum'"));
}

BOOST_AUTO_TEST_SUITE_END()
