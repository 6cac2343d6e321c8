// TensorFlow 1.x's safe_embedding_lookup_sparse (embedding_ops.py) and the sparse ops it
// builds on, SparseFillEmptyRows with its gradient (sparse_fill_empty_rows_op.cc),
// SparseReshape (reshape_util.cc) and sparse_retain: outputs and the table's gradient for
// both strategies, every combiner, with and without weights and a default id, over ids with
// invalid entries, non-positive weights and empty examples, of rank 2 and 3. The values come
// from scripts/peers/make_safe_embedding_references.py (real TensorFlow, tf.compat.v1).
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

// Rank-3 ids [2, 3, 3]: (0,0) = {3, -1}, (0,1) = {7, 1, 1}, (0,2) = {}, (1,0) = {-2} (no
// valid id), (1,1) = {}, (1,2) = {9, 0}; weights {2, 1}, {0.5, -1, 1.5}, {3}, {1, 0}.
af::SparseTensor rank3_like(af::Graph& g, const Tensor& values, const Output& dense_shape) {
  return {
      g.constant(Tensor::from_vector<std::int64_t>(
          {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 2, 1, 0, 0, 1, 2, 0, 1, 2, 1}, Shape{8, 3})),
      g.constant(values), dense_shape};
}

// make_safe_embedding_references.py, the rank-3 lookups (output [2,3,3]).
const std::vector<SafeCase> kRank3Cases = {
    {"div",
     false,
     "mean",
     std::nullopt,
     {3, 3.0999999f, 3.20000005f, 3, 3.10000014f, 3.19999981f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4.5f,
      4.60000038f, 4.69999981f},
     {{0.5f, 0.5f, 0.5f, 0.666666687f, 0.666666687f, 0.666666687f, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0.333333343f, 0.333333343f, 0.333333343f, 0, 0, 0, 0.5f, 0.5f, 0.5f}}},
    {"mod",
     true,
     "sqrtn",
     std::optional<std::int64_t>(5),
     {3, 3.0999999f, 3.20000005f, 3.1622777f, 3.28876853f, 3.41525984f, 5, 5.0999999f, 5.19999981f,
      5, 5.0999999f, 5.19999981f, 5, 5.0999999f, 5.19999981f, 9, 9.10000038f, 9.19999981f},
     {{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1},
      {0.948683262f, 0.948683262f, 0.948683262f, 0, 0, 0, 0.316227764f, 0.316227764f, 0.316227764f},
      {0, 0, 0, 3, 3, 3, 0, 0, 0}}},
    {"div",
     true,
     "sum",
     std::nullopt,
     {6, 6.19999981f, 6.4000001f, 4, 4.0999999f, 4.19999981f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9,
      9.10000038f, 9.19999981f},
     {{0, 0, 0, 0.5f, 0.5f, 0.5f, 0, 0, 0, 2, 2, 2},
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {0.5f, 0.5f, 0.5f, 0, 0, 0, 1, 1, 1}}},
};

// The table's 3 parts for `strategy`, as variables, and their values.
std::vector<Output> table_parts(af::Graph& g, const std::string& strategy) {
  std::vector<Output> params;
  for (int k = 0; k < 3; ++k) {
    const std::vector<float> v = part_values(strategy, k);
    params.push_back(
        g.variable(Tensor::from_vector(v, Shape{static_cast<std::int64_t>(v.size() / 3), 3}),
                   {.name = "part_" + std::to_string(k)})
            .value());
  }
  return params;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(safe_embedding_conformance_test)

// tf.sparse.fill_empty_rows on TensorFlow's documented example: rows 1 and 4 get [row, 0] =
// -1; unordered input keeps each row's entries in their input order; the gradient goes to
// the values through the reverse index map and to the default value from the filled rows.
BOOST_AUTO_TEST_CASE(fill_empty_rows_matches_tensorflow_with_its_gradient,
                     *boost::unit_test::timeout(60)) {
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
BOOST_AUTO_TEST_CASE(fill_empty_rows_rejects_what_tensorflow_rejects,
                     *boost::unit_test::timeout(60)) {
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
BOOST_AUTO_TEST_CASE(safe_lookups_and_their_gradients_match_tensorflow,
                     *boost::unit_test::timeout(60)) {
  for (const SafeCase& c : kCases) {
    BOOST_TEST_CONTEXT(c.strategy << (c.weighted ? " weighted " : " unweighted ") << c.combiner
                                  << " default " << (c.default_id ? *c.default_id : -1)) {
      af::Graph g;
      const std::vector<Output> params = table_parts(g, c.strategy);
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

// tf.sparse.reshape on TensorFlow's documented example: [2, 3, 6] to [9, -1] (rank 3 to 2,
// the -1 inferred as 4, the shape a Const as sparse_ops.py makes it when both shapes are
// Consts), and to a fed [4, -1, 3]; the values pass through.
BOOST_AUTO_TEST_CASE(sparse_reshape_matches_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::SparseTensor sp{g.constant(Tensor::from_vector<std::int64_t>(
                                {0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3}, Shape{5, 3})),
                            g.constant(Tensor::from_vector<float>({1, 2, 3, 4, 5})),
                            g.constant(Tensor::from_vector<std::int64_t>({2, 3, 6}))};
  const auto to_matrix =
      af::sparse_reshape(sp, g.constant(Tensor::from_vector<std::int64_t>({9, -1})));
  BOOST_TEST(to_matrix.indices.shape() == (af::PartialShape{5, 2}));
  BOOST_TEST(to_matrix.dense_shape.op().type() == "Const");
  const Output new_shape = g.placeholder(af::DType::int64, af::PartialShape{3}, "new_shape");
  const auto to_rank_3 = af::sparse_reshape(sp, new_shape);
  BOOST_TEST(to_rank_3.indices.shape() == (af::PartialShape{5, 3}));
  af::Session sess(g);
  auto got = sess.run({to_matrix.indices, to_matrix.values, to_matrix.dense_shape});
  BOOST_TEST(
      got[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 0, 0, 1, 1, 2, 4, 2, 8, 1}),
      boost::test_tools::per_element());
  check_close(got[1].to_vector<float>(), {1, 2, 3, 4, 5});
  BOOST_TEST(got[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{9, 4}),
             boost::test_tools::per_element());
  got = sess.run({to_rank_3.indices, to_rank_3.dense_shape},
                 {{new_shape, Tensor::from_vector<std::int64_t>({4, -1, 3})}});
  BOOST_TEST(got[0].to_vector<std::int64_t>() ==
                 (std::vector<std::int64_t>{0, 0, 0, 0, 0, 1, 0, 2, 0, 2, 0, 0, 3, 2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(got[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{4, 3, 3}),
             boost::test_tools::per_element());
}

// The kernel's texts, the new shape fed; sparse_ops.py's ValueErrors while building, both
// shapes Consts.
BOOST_AUTO_TEST_CASE(sparse_reshape_rejects_what_tensorflow_rejects,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto ints = [](std::vector<std::int64_t> v) { return Tensor::from_vector(v); };
  const af::SparseTensor known{g.constant(Tensor::from_vector<std::int64_t>({0, 0}, Shape{1, 2})),
                               g.constant(Tensor::from_vector<float>({1})),
                               g.constant(ints({3, 4}))};
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        af::sparse_reshape(known, g.constant(ints({-1, -1})));
                      }),
                      "At most one dimension can be inferred (-1). Found: [-1 -1]"));
  BOOST_TEST(
      contains(error_of<af::InvalidArgumentError>([&] {
                 af::sparse_reshape(known, g.constant(ints({5, -1})));
               }),
               "Cannot reshape a tensor with 12 elements to shape [5, None] (10 elements)."));
  const Output indices = g.placeholder(af::DType::int64, af::PartialShape(), "indices");
  const Output new_shape = g.placeholder(af::DType::int64, af::PartialShape(), "new_shape");
  const af::SparseTensor fed{indices, known.values, known.dense_shape};
  const Output reshaped = af::sparse_reshape(fed, new_shape).indices;
  af::Session sess(g);
  const Tensor one_entry = Tensor::from_vector<std::int64_t>({0, 0}, Shape{1, 2});
  auto run = [&](const Tensor& ids, const Tensor& shape) {
    return error_of<af::InvalidArgumentError>([&] {
      sess.run(reshaped, {{indices, ids}, {new_shape, shape}});
    });
  };
  BOOST_TEST(contains(run(one_entry, ints({-1, -1})),
                      "only one output dimension may be -1, not both 0 and 1"));
  BOOST_TEST(contains(run(one_entry, ints({2, -2})), "size 1 must be non-negative, not -2"));
  BOOST_TEST(contains(run(one_entry, ints({2, 5})),
                      "Input to reshape is a tensor with 12 dense values, but the requested shape "
                      "has 10. input_shape=[3,4] output_shape=[2,5]"));
  BOOST_TEST(contains(run(one_entry, ints({5, -1})),
                      "Input to reshape is a SparseTensor with 12 dense values, but the requested "
                      "shape requires a multiple of 5. input_shape=[3,4] output_shape=[5,1]"));
  BOOST_TEST(contains(run(one_entry, Tensor::from_vector<std::int64_t>({12}, Shape{1, 1})),
                      "Target shape should be a vector but received shape [1,1]"));
  BOOST_TEST(contains(run(ints({0, 0}), ints({12})), "Input must be a matrix."));
}

// Rank-3 ids as TensorFlow takes them: reshaped to [6, 3] (SparseReshape), pruned, filled,
// looked up and reshaped back to [2, 3, 3]. The dense shape a Const, the static shape is
// known; fed with a known length, the rank; fed with an unknown length (the rank then comes
// from Size at run time), nothing. The values are TensorFlow's in each case.
BOOST_AUTO_TEST_CASE(safe_lookups_of_rank_3_ids_match_tensorflow, *boost::unit_test::timeout(60)) {
  for (const SafeCase& c : kRank3Cases) {
    BOOST_TEST_CONTEXT(c.strategy << (c.weighted ? " weighted " : " unweighted ") << c.combiner
                                  << " default " << (c.default_id ? *c.default_id : -1)) {
      af::Graph g;
      const std::vector<Output> params = table_parts(g, c.strategy);
      const Tensor id_values = Tensor::from_vector<std::int64_t>({3, -1, 7, 1, 1, -2, 9, 0});
      const Tensor weight_values = Tensor::from_vector<float>({2, 1, 0.5f, -1, 1.5f, 3, 1, 0});
      auto lookup = [&](const Output& dense_shape) {
        const af::SparseTensor ids = rank3_like(g, id_values, dense_shape);
        const af::SparseTensor weights = rank3_like(g, weight_values, dense_shape);
        return af::train::safe_embedding_lookup_sparse(
            params, ids, c.weighted ? &weights : nullptr,
            {.combiner = c.combiner, .default_id = c.default_id, .partition_strategy = c.strategy});
      };
      const Tensor dense_shape = Tensor::from_vector<std::int64_t>({2, 3, 3});
      const Output out = lookup(g.constant(dense_shape));
      const Output rank_fed = g.placeholder(af::DType::int64, af::PartialShape{3}, "rank_fed");
      const Output out_rank_fed = lookup(rank_fed);
      const Output all_fed = g.placeholder(af::DType::int64, af::PartialShape(), "all_fed");
      const Output out_all_fed = lookup(all_fed);
      BOOST_TEST(out.shape() == (af::PartialShape{2, 3, 3}));
      BOOST_TEST(out_rank_fed.shape().rank() == 3);
      BOOST_TEST(!out_all_fed.shape().rank_known());
      const auto grads = af::gradients({af::reduce_sum(out)}, params);
      af::Session sess(g);
      sess.run({}, {}, {g.global_variables_initializer()});
      for (const Tensor& got : {sess.run(out), sess.run(out_rank_fed, {{rank_fed, dense_shape}}),
                                sess.run(out_all_fed, {{all_fed, dense_shape}})}) {
        BOOST_TEST(got.shape() == (Shape{2, 3, 3}));
        check_close(got.to_vector<float>(), c.output);
      }
      for (int k = 0; k < 3; ++k)
        check_close(sess.run(grads[static_cast<std::size_t>(k)]).to_vector<float>(),
                    c.part_grads[static_cast<std::size_t>(k)]);
    }
  }
}

BOOST_AUTO_TEST_CASE(safe_lookup_rejects_no_params_and_a_bad_combiner,
                     *boost::unit_test::timeout(60)) {
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
