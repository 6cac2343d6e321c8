// TensorFlow 1.x's safe_embedding_lookup_sparse (embedding_ops.py) and the sparse ops it
// builds on, SparseFillEmptyRows with its gradient (sparse_fill_empty_rows_op.cc) and
// sparse_retain: outputs and the table's gradient for both strategies, every combiner, with
// and without weights and a default id, over ids with invalid entries, non-positive weights
// and empty examples. The values come from scripts/peers/make_safe_embedding_references.py
// (real TensorFlow, tf.compat.v1).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/sparse_ops.hpp>
#include <actorflow/ops/sparse_tensor.hpp>
#include <actorflow/train/embedding_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::Output;
using af::Shape;
using af::Tensor;
using af::test::contains;
using af::test::error_of;

using af::test::check_close;

// The table [10,3]: row i is {i, i + 0.1, i + 0.2}; the rows part k of 3 holds.
std::vector<float> part_values(const std::string& strategy, int k) {
  std::vector<std::int64_t> rows;
  if (strategy == "mod") {
    for (std::int64_t i = k; i < 10; i += 3) rows.push_back(i);
  } else {
    const std::int64_t start[] = {0, 4, 7}, size[] = {4, 3, 3};
    for (std::int64_t i = 0; i < size[k]; ++i) rows.push_back(start[k] + i);
  }
  std::vector<float> v;
  for (auto r : rows)
    for (int j = 0; j < 3; ++j) v.push_back(static_cast<float>(r) + static_cast<float>(j) / 10.0f);
  return v;
}

// A batch of 5: {3, -1, 7}, {-2} (no valid id), {}, {1, 1, 9}, {}; weights
// {2, 1, 0}, {3}, {0.5, -1, 1.5}.
af::SparseTensor ids_like(af::Graph& g, const Tensor& values) {
  return {g.constant(Tensor::from_vector<std::int64_t>({0, 0, 0, 1, 0, 2, 1, 0, 3, 0, 3, 1, 3, 2},
                                                       Shape{7, 2})),
          g.constant(values), g.constant(Tensor::from_vector<std::int64_t>({5, 3}))};
}

struct SafeCase {
  std::string strategy;
  bool weighted;
  std::string combiner;
  std::optional<std::int64_t> default_id;
  std::vector<float> output;                   // [5,3]
  std::vector<std::vector<float>> part_grads;  // d sum(output) / d part k
};

// make_safe_embedding_references.py, the lookups.
const std::vector<SafeCase> kCases = {
    {"div",
     false,
     "sum",
     std::nullopt,
     {10, 10.1999998f, 10.3999996f, 0, 0, 0, 0, 0, 0, 11, 11.3000002f, 11.6000004f, 0, 0, 0},
     {{0, 0, 0, 2, 2, 2, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {1, 1, 1, 0, 0, 0, 1, 1, 1}}},
    {"div",
     false,
     "sum",
     std::optional<std::int64_t>(5),
     {10, 10.1999998f, 10.3999996f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 11,
      11.3000002f, 11.6000004f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 2, 2, 2, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {1, 1, 1, 0, 0, 0, 1, 1, 1}}},
    {"div",
     false,
     "mean",
     std::nullopt,
     {5, 5.0999999f, 5.19999981f, 0, 0, 0, 0, 0, 0, 3.66666675f, 3.76666689f, 3.86666679f, 0, 0, 0},
     {{0, 0, 0, 0.666666687f, 0.666666687f, 0.666666687f, 0, 0, 0, 0.5f, 0.5f, 0.5f},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0.5f, 0.5f, 0.5f, 0, 0, 0, 0.333333343f, 0.333333343f, 0.333333343f}}},
    {"div",
     false,
     "mean",
     std::optional<std::int64_t>(5),
     {5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      3.66666675f, 3.76666689f, 3.86666679f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 0.666666687f, 0.666666687f, 0.666666687f, 0, 0, 0, 0.5f, 0.5f, 0.5f},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {0.5f, 0.5f, 0.5f, 0, 0, 0, 0.333333343f, 0.333333343f, 0.333333343f}}},
    {"div",
     false,
     "sqrtn",
     std::nullopt,
     {7.07106781f, 7.21248913f, 7.35390997f, 0, 0, 0, 0, 0, 0, 6.35085297f, 6.52405787f,
      6.69726324f, 0, 0, 0},
     {{0, 0, 0, 1.15470052f, 1.15470052f, 1.15470052f, 0, 0, 0, 0.707106769f, 0.707106769f,
       0.707106769f},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0.707106769f, 0.707106769f, 0.707106769f, 0, 0, 0, 0.577350259f, 0.577350259f,
       0.577350259f}}},
    {"div",
     false,
     "sqrtn",
     std::optional<std::int64_t>(5),
     {7.07106781f, 7.21248913f, 7.35390997f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      6.35085297f, 6.52405787f, 6.69726324f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 1.15470052f, 1.15470052f, 1.15470052f, 0, 0, 0, 0.707106769f, 0.707106769f,
       0.707106769f},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {0.707106769f, 0.707106769f, 0.707106769f, 0, 0, 0, 0.577350259f, 0.577350259f,
       0.577350259f}}},
    {"div",
     true,
     "sum",
     std::nullopt,
     {6, 6.19999981f, 6.4000001f, 0, 0, 0, 0, 0, 0, 13, 13.1000004f, 13.1999989f, 0, 0, 0},
     {{0, 0, 0, -0.5f, -0.5f, -0.5f, 0, 0, 0, 2, 2, 2},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 1.5f, 1.5f, 1.5f}}},
    {"div",
     true,
     "sum",
     std::optional<std::int64_t>(5),
     {6, 6.19999981f, 6.4000001f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 13,
      13.1000004f, 13.1999989f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, -0.5f, -0.5f, -0.5f, 0, 0, 0, 2, 2, 2},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 1.5f, 1.5f, 1.5f}}},
    {"div",
     true,
     "mean",
     std::nullopt,
     {3, 3.0999999f, 3.20000005f, 0, 0, 0, 0, 0, 0, 7, 7.10000038f, 7.19999981f, 0, 0, 0},
     {{0, 0, 0, 0.25f, 0.25f, 0.25f, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0.75f, 0.75f, 0.75f}}},
    {"div",
     true,
     "mean",
     std::optional<std::int64_t>(5),
     {3, 3.0999999f, 3.20000005f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 7,
      7.10000038f, 7.19999981f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 0.25f, 0.25f, 0.25f, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0.75f, 0.75f, 0.75f}}},
    {"div",
     true,
     "sqrtn",
     std::nullopt,
     {3, 3.0999999f, 3.20000005f, 0, 0, 0, 0, 0, 0, 8.85437775f, 8.98086929f, 9.10735893f, 0, 0, 0},
     {{0, 0, 0, 0.316227764f, 0.316227764f, 0.316227764f, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0.948683262f, 0.948683262f, 0.948683262f}}},
    {"div",
     true,
     "sqrtn",
     std::optional<std::int64_t>(5),
     {3, 3.0999999f, 3.20000005f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      8.85437775f, 8.98086929f, 9.10735893f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 0.316227764f, 0.316227764f, 0.316227764f, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 3, 3, 3, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0.948683262f, 0.948683262f, 0.948683262f}}},
    {"mod",
     false,
     "sum",
     std::nullopt,
     {10, 10.1999998f, 10.3999996f, 0, 0, 0, 0, 0, 0, 11, 11.3000002f, 11.6000004f, 0, 0, 0},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1},
      {2, 2, 2, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     false,
     "sum",
     std::optional<std::int64_t>(5),
     {10, 10.1999998f, 10.3999996f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 11,
      11.3000002f, 11.6000004f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1},
      {2, 2, 2, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"mod",
     false,
     "mean",
     std::nullopt,
     {5, 5.0999999f, 5.19999981f, 0, 0, 0, 0, 0, 0, 3.66666675f, 3.76666689f, 3.86666679f, 0, 0, 0},
     {{0, 0, 0, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0.333333343f, 0.333333343f, 0.333333343f},
      {0.666666687f, 0.666666687f, 0.666666687f, 0, 0, 0, 0.5f, 0.5f, 0.5f},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     false,
     "mean",
     std::optional<std::int64_t>(5),
     {5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      3.66666675f, 3.76666689f, 3.86666679f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0.333333343f, 0.333333343f, 0.333333343f},
      {0.666666687f, 0.666666687f, 0.666666687f, 0, 0, 0, 0.5f, 0.5f, 0.5f},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"mod",
     false,
     "sqrtn",
     std::nullopt,
     {7.07106781f, 7.21248913f, 7.35390997f, 0, 0, 0, 0, 0, 0, 6.35085297f, 6.52405787f,
      6.69726324f, 0, 0, 0},
     {{0, 0, 0, 0.707106769f, 0.707106769f, 0.707106769f, 0, 0, 0, 0.577350259f, 0.577350259f,
       0.577350259f},
      {1.15470052f, 1.15470052f, 1.15470052f, 0, 0, 0, 0.707106769f, 0.707106769f, 0.707106769f},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     false,
     "sqrtn",
     std::optional<std::int64_t>(5),
     {7.07106781f, 7.21248913f, 7.35390997f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      6.35085297f, 6.52405787f, 6.69726324f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 0.707106769f, 0.707106769f, 0.707106769f, 0, 0, 0, 0.577350259f, 0.577350259f,
       0.577350259f},
      {1.15470052f, 1.15470052f, 1.15470052f, 0, 0, 0, 0.707106769f, 0.707106769f, 0.707106769f},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"mod",
     true,
     "sum",
     std::nullopt,
     {6, 6.19999981f, 6.4000001f, 0, 0, 0, 0, 0, 0, 13, 13.1000004f, 13.1999989f, 0, 0, 0},
     {{0, 0, 0, 2, 2, 2, 0, 0, 0, 1.5f, 1.5f, 1.5f},
      {-0.5f, -0.5f, -0.5f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     true,
     "sum",
     std::optional<std::int64_t>(5),
     {6, 6.19999981f, 6.4000001f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 13,
      13.1000004f, 13.1999989f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 2, 2, 2, 0, 0, 0, 1.5f, 1.5f, 1.5f},
      {-0.5f, -0.5f, -0.5f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"mod",
     true,
     "mean",
     std::nullopt,
     {3, 3.0999999f, 3.20000005f, 0, 0, 0, 0, 0, 0, 7, 7.10000038f, 7.19999981f, 0, 0, 0},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 0.75f, 0.75f, 0.75f},
      {0.25f, 0.25f, 0.25f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     true,
     "mean",
     std::optional<std::int64_t>(5),
     {3, 3.0999999f, 3.20000005f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 7,
      7.10000038f, 7.19999981f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 0.75f, 0.75f, 0.75f},
      {0.25f, 0.25f, 0.25f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"mod",
     true,
     "sqrtn",
     std::nullopt,
     {3, 3.0999999f, 3.20000005f, 0, 0, 0, 0, 0, 0, 8.85437775f, 8.98086929f, 9.10735893f, 0, 0, 0},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 0.948683262f, 0.948683262f, 0.948683262f},
      {0.316227764f, 0.316227764f, 0.316227764f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0, 0, 0, 0}}},
    {"mod",
     true,
     "sqrtn",
     std::optional<std::int64_t>(5),
     {3, 3.0999999f, 3.20000005f, 5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f,
      8.85437775f, 8.98086929f, 9.10735893f, 5, 5.0999999f, 5.19999981f},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 0.948683262f, 0.948683262f, 0.948683262f},
      {0.316227764f, 0.316227764f, 0.316227764f, 0, 0, 0, 0, 0, 0},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(safe_embedding_conformance_test)

// tf.sparse.fill_empty_rows on TensorFlow's documented example: rows 1 and 4 get [row, 0] =
// -1; unordered input keeps each row's entries in their input order; the gradient goes to
// the values through the reverse index map and to the default value from the filled rows.
BOOST_AUTO_TEST_CASE(fill_empty_rows_matches_tensorflow_with_its_gradient) {
  af::Graph g;
  const af::SparseTensor ordered{
      g.constant(Tensor::from_vector<std::int64_t>({0, 1, 0, 3, 2, 0, 3, 1}, Shape{4, 2})),
      g.constant(Tensor::from_vector<float>({1, 2, 3, 4})),
      g.constant(Tensor::from_vector<std::int64_t>({5, 6}))};
  const auto filled = af::sparse_fill_empty_rows(ordered, g.constant(Tensor(-1.0f)));
  const Output values = g.placeholder(af::DType::float32, af::PartialShape{4}, "values");
  const Output fill = g.placeholder(af::DType::float32, af::PartialShape(Shape{}), "fill");
  const af::SparseTensor unordered{
      g.constant(Tensor::from_vector<std::int64_t>({3, 1, 0, 3, 0, 1, 2, 0}, Shape{4, 2})), values,
      g.constant(Tensor::from_vector<std::int64_t>({5, 6}))};
  const auto refilled = af::sparse_fill_empty_rows(unordered, fill);
  const Output loss = af::reduce_sum(
      af::mul(refilled.output.values, g.constant(Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}))));
  const auto grads = af::gradients({loss}, {values, fill});
  af::Session sess(g);
  auto got = sess.run({filled.output.indices, filled.output.values, filled.empty_row_indicator});
  BOOST_TEST(got[0].to_vector<std::int64_t>() ==
                 (std::vector<std::int64_t>{0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0}),
             boost::test_tools::per_element());
  check_close(got[1].to_vector<float>(), {1, 2, -1, 3, 4, -1});
  BOOST_TEST(got[2].to_vector<bool>() == (std::vector<bool>{false, true, false, false, true}),
             boost::test_tools::per_element());
  got = sess.run({refilled.output.indices, refilled.output.values, grads[0], grads[1]},
                 {{values, Tensor::from_vector<float>({4, 2, 1, 3})}, {fill, Tensor(-1.0f)}});
  BOOST_TEST(got[0].to_vector<std::int64_t>() ==
                 (std::vector<std::int64_t>{0, 3, 0, 1, 1, 0, 2, 0, 3, 1, 4, 0}),
             boost::test_tools::per_element());
  check_close(got[1].to_vector<float>(), {2, 1, -1, 3, 4, -1});
  check_close(got[2].to_vector<float>(), {5, 1, 2, 4});
  check_close(got[3].to_vector<float>(), {9});
}

// The kernel's texts.
BOOST_AUTO_TEST_CASE(fill_empty_rows_rejects_what_tensorflow_rejects) {
  af::Graph g;
  auto fill = [&](std::vector<std::int64_t> indices, std::vector<float> values,
                  std::vector<std::int64_t> dense_shape) {
    const auto n = static_cast<std::int64_t>(indices.size() / 2);
    return af::sparse_fill_empty_rows({g.constant(Tensor::from_vector(indices, Shape{n, 2})),
                                       g.constant(Tensor::from_vector(values)),
                                       g.constant(Tensor::from_vector(dense_shape))},
                                      g.constant(Tensor(0.0f)))
        .output.values;
  };
  af::Session sess(g);
  BOOST_TEST(contains(error_of([&] {
                        sess.run(fill({0, 0, 7, 1}, {1, 2}, {5, 6}));
                      }),
                      "indices(1, 0) is invalid: 7 >= 5"));
  BOOST_TEST(contains(error_of([&] {
                        sess.run(fill({0, 0, 1, 1}, {1, 2}, {0, 6}));
                      }),
                      "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = 2"));
  BOOST_TEST(
      contains(error_of([&] {
                 sess.run(fill({0, 0, 1, 1}, {1, 2, 3}, {5, 6}));
               }),
               "The length of `values` (3) must match the first dimension of `indices` (2)."));
}

// safe_embedding_lookup_sparse against TensorFlow: invalid ids dropped, non-positive weights
// dropped but for "sum", empty examples zero or the default id's row; the table's gradient
// of the sum of the result, part by part.
BOOST_AUTO_TEST_CASE(safe_lookups_and_their_gradients_match_tensorflow) {
  for (const SafeCase& c : kCases) {
    BOOST_TEST_CONTEXT(c.strategy << (c.weighted ? " weighted " : " unweighted ") << c.combiner
                                  << " default " << (c.default_id ? *c.default_id : -1)) {
      af::Graph g;
      std::vector<af::Variable> parts;
      std::vector<Output> params;
      for (int k = 0; k < 3; ++k) {
        const std::vector<float> v = part_values(c.strategy, k);
        parts.push_back(
            g.variable(Tensor::from_vector(v, Shape{static_cast<std::int64_t>(v.size() / 3), 3}),
                       {.name = "part_" + std::to_string(k)}));
        params.push_back(parts.back().value());
      }
      const af::SparseTensor ids =
          ids_like(g, Tensor::from_vector<std::int64_t>({3, -1, 7, -2, 1, 1, 9}));
      const af::SparseTensor weights =
          ids_like(g, Tensor::from_vector<float>({2, 1, 0, 3, 0.5f, -1, 1.5f}));
      const Output out = af::train::safe_embedding_lookup_sparse(
          params, ids, c.weighted ? &weights : nullptr,
          {.combiner = c.combiner, .default_id = c.default_id, .partition_strategy = c.strategy});
      const auto grads = af::gradients({af::reduce_sum(out)}, params);
      af::Session sess(g);
      sess.run({}, {}, {g.global_variables_initializer()});
      const Tensor got = sess.run(out);
      BOOST_TEST(got.shape() == (Shape{5, 3}));
      check_close(got.to_vector<float>(), c.output);
      for (int k = 0; k < 3; ++k)
        check_close(sess.run(grads[static_cast<std::size_t>(k)]).to_vector<float>(),
                    c.part_grads[static_cast<std::size_t>(k)]);
    }
  }
}

BOOST_AUTO_TEST_CASE(safe_lookup_rejects_no_params_and_a_bad_combiner) {
  af::Graph g;
  const af::SparseTensor ids =
      ids_like(g, Tensor::from_vector<std::int64_t>({3, -1, 7, -2, 1, 1, 9}));
  BOOST_TEST(contains(error_of([&] {
                        af::train::safe_embedding_lookup_sparse(std::vector<Output>{}, ids,
                                                                nullptr);
                      }),
                      "Missing embedding_weights []."));
  const Output table = g.constant(Tensor::from_vector<float>(part_values("div", 0), Shape{4, 3}));
  BOOST_TEST(contains(error_of([&] {
                        af::train::safe_embedding_lookup_sparse({table}, ids, nullptr,
                                                                {.combiner = "max"});
                      }),
                      "combiner must be one of 'mean', 'sqrtn' or 'sum'"));
}

BOOST_AUTO_TEST_SUITE_END()
