// The band and diagonal ops and the linear algebra of af::linalg (TensorFlow's tf.linalg)
// against values TensorFlow 2.21 computes, with TensorFlow's build-time (shape function) and
// run-time (kernel) messages. The fixture cases of scripts/peers/op_cases_matrix.py compare
// every op and gradient with TensorFlow in bulk; these pin the builders and the errors.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/linalg_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using af::DType;
using af::Output;
using af::Tensor;
namespace linalg = af::linalg;

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.num_elements(); ++i)
    out.push_back(t.dtype() == DType::float64 ? t.data<double>()[i] : t.data<float>()[i]);
  return out;
}

void check_close(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  const std::vector<double> got = values(t);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::fabs(got[i] - want[i]) <= tol * std::max(1.0, std::fabs(want[i])),
               "element " << i << ": " << got[i] << " vs " << want[i]);
}

Output matrix(af::Graph& g, std::vector<float> v, af::Shape shape, const char* name = "x") {
  return g.constant(Tensor::from_vector(v, shape), name);
}

Output matrix64(af::Graph& g, std::vector<double> v, af::Shape shape, const char* name) {
  return g.constant(Tensor::from_vector(v, shape), name);
}

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  return v;
}

bool has(const std::exception& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(matrix_ops_test)

BOOST_AUTO_TEST_CASE(band_and_diagonal_builders_name_their_ops_and_pack_as_tensorflow) {
  af::Graph g;
  const Output x = matrix(g, iota(12), {3, 4});
  const Output band = linalg::band_part(x, 1, 0);
  BOOST_TEST(band.name() == "MatrixBandPart:0");
  BOOST_TEST(g.operation("MatrixBandPart/num_lower").type() == "Const");
  const Output part = linalg::matrix_diag_part(x, {-1, 1}, 9);
  BOOST_TEST(part.name() == "diag_part:0");
  BOOST_TEST(part.node()->type() == "MatrixDiagPartV3");
  BOOST_TEST(part.shape() == af::PartialShape({3, 3}));
  const Output part_lr = linalg::matrix_diag_part(x, {-1, 1}, 9, "LEFT_RIGHT");
  const Output d = matrix(g, {1, 2, 3, 4}, {2, 2}, "d");
  const Output diag = linalg::matrix_diag(d, {0, 1}, -1, -1, -1);
  BOOST_TEST(diag.node()->type() == "MatrixDiagV3");
  BOOST_TEST(diag.shape() == af::PartialShape({2, 2}));
  const Output diag_ll = linalg::matrix_diag(d, {0, 1}, -1, -1, -1, "LEFT_LEFT");
  const Output set =
      linalg::matrix_set_diag(x, matrix(g, {7, 8, 9, 5, 6, 0}, {2, 3}, "packed"), {0, 1});
  BOOST_TEST(set.name() == "set_diag:0");
  const Output tensor_diag = linalg::diag(d);
  BOOST_TEST(tensor_diag.shape() == af::PartialShape({2, 2, 2, 2}));
  const Output tensor_part = linalg::diag_part(tensor_diag);
  af::Session sess(g);
  const auto v = sess.run({band, part, part_lr, diag, diag_ll, set, tensor_part});
  check_close(v[0], {0, 0, 0, 0, 4, 5, 0, 0, 0, 9, 10, 0});
  check_close(v[1], {1, 6, 11, 0, 5, 10, 4, 9, 9});
  check_close(v[2], {1, 6, 11, 0, 5, 10, 9, 4, 9});
  check_close(v[3], {3, 2, -1, 4});
  check_close(v[4], {3, 1, -1, 4});
  check_close(v[5], {5, 7, 2, 3, 4, 6, 8, 7, 8, 9, 0, 9});
  check_close(v[6], {1, 2, 3, 4});
}

BOOST_AUTO_TEST_CASE(band_and_diagonal_ops_refuse_as_tensorflow) {
  af::Graph g;
  const Output x = matrix(g, iota(12), {3, 4});
  const Output scalar = g.constant(Tensor(1.0f), "s");
  auto throws = [](auto build, const std::string& message) {
    try {
      build();
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  throws([&] { linalg::diag(scalar); }, "Shape must be at least rank 1 but is rank 0");
  throws(
      [&] {
        linalg::diag_part(matrix(g, iota(8), {2, 2, 2}));
      },
      "Input must have even and non-zero rank, input rank is 3");
  throws([&] { linalg::diag_part(x); }, "Dimensions must be equal, but are 3 and 4");
  throws(
      [&] {
        linalg::matrix_diag_part(x, {1, 0});
      },
      "lower_diag_index is greater than upper_diag_index");
  throws([&] { linalg::matrix_diag_part(x, {-3, 0}); }, "lower_diag_index is out of bound.");
  throws([&] { linalg::matrix_diag(x, 0, 2); }, "num_rows is too small");
  throws([&] { linalg::matrix_diag(x, 0, 5, 6); },
         "num_rows and num_cols are not consistent with lower_diag_index");
  throws([&] { linalg::matrix_diag(x, 0, -1, -1, 0, "MIDDLE"); },
         "Attr 'align' of 'MatrixDiagV3' Op passed string 'MIDDLE' not in:");
  throws(
      [&] {
        linalg::matrix_set_diag(x, matrix(g, iota(6), {2, 3}, "d"), 0);
      },
      "Shape must be rank 1 but is rank 2");
  throws(
      [&] {
        linalg::matrix_set_diag(x, matrix(g, iota(6), {2, 3}, "d2"), {0, 5});
      },
      "upper_diag_index is out of bound.");

  // What only the kernels see: shapes and values fed at run time.
  const Output any = g.placeholder(DType::float32, af::PartialShape::unknown(), "any");
  const Output k = g.placeholder(DType::int32, af::PartialShape::unknown(), "k");
  auto fails = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    af::Session sess(g);
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  const Output band = linalg::band_part(any, 5, 0, "band");
  fails(band, {{any, Tensor::from_vector(iota(12), af::Shape{3, 4})}},
        "num_lower must be negative or less or equal to number of rows (3) got: 5");
  fails(band, {{any, Tensor::from_vector(iota(2), af::Shape{2})}},
        "input must be at least 2-dim, received shape: [2]");
  const Output dyn_part =
      g.create_op("MatrixDiagPartV3", {x, k, g.constant(Tensor(0.0f), "pad")},
                  {{"T", DType::float32}, {"align", std::string("RIGHT_LEFT")}}, "dyn_part")
          .output(0);
  fails(dyn_part, {{k, Tensor::from_vector(std::vector<std::int32_t>{-5, 1})}},
        "lower_diag_index is out of bound: -5. It must be between -3 and 4");
  fails(dyn_part, {{k, Tensor::from_vector(std::vector<std::int32_t>{1, 0})}},
        "lower_diag_index must not be larger than upper_diag_index: 1 > 0");
  fails(dyn_part, {{k, Tensor::from_vector(std::vector<std::int32_t>{}, af::Shape{0})}},
        "Expected diag_index to have at least 1 element");
  fails(dyn_part, {{k, Tensor::from_vector(std::vector<std::int32_t>{0, 1, 2})}},
        "diag_index must have only one or two elements, received 3 elements.");
  const Output dyn_set =
      g.create_op("MatrixSetDiagV3", {x, any, k},
                  {{"T", DType::float32}, {"align", std::string("RIGHT_LEFT")}}, "dyn_set")
          .output(0);
  fails(dyn_set, {{any, Tensor::from_vector(iota(2), af::Shape{2})}, {k, Tensor(std::int32_t{0})}},
        "Either first dimensions of diagonal don't match input.shape[:-2]");
  const Output dyn_diag =
      g.create_op("DiagPart", {any}, {{"T", DType::float32}}, "dyn_diag").output(0);
  fails(dyn_diag, {{any, Tensor::from_vector(iota(12), af::Shape{3, 4})}},
        "Invalid shape [3,4]: dimensions 0 and 1 do not match.");
}

BOOST_AUTO_TEST_CASE(linear_algebra_builders_compute_tensorflows_values) {
  af::Graph g;
  const Output a = matrix64(g, {4, 2, 2, 3}, {2, 2}, "a");
  const Output inv = linalg::matrix_inverse(a);
  BOOST_TEST(inv.name() == "MatrixInverse:0");
  const Output det = linalg::matrix_determinant(a);
  BOOST_TEST(det.shape() == af::PartialShape(std::vector<std::int64_t>{}));
  const auto [sign, log_abs] = linalg::log_matrix_determinant(af::neg(a));
  const Output chol = linalg::cholesky(a);
  const Output solve = linalg::matrix_solve(a, matrix64(g, {1, 2}, {2, 1}, "b"));
  const Output tri = linalg::matrix_triangular_solve(a, matrix64(g, {1, 2, 3, 4}, {2, 2, 1}, "c"));
  BOOST_TEST(tri.name() == "triangular_solve/MatrixTriangularSolve:0");
  BOOST_TEST(tri.shape() == af::PartialShape({2, 2, 1}));
  const Output tri_upper_adj =
      linalg::matrix_triangular_solve(a, matrix64(g, {1, 2}, {2, 1}, "e"), false, true);
  const Output det_grad = af::gradients({det}, {a})[0];
  af::Session sess(g);
  const auto v = sess.run({inv, det, sign, log_abs, chol, solve, tri, tri_upper_adj, det_grad});
  check_close(v[0], {0.375, -0.25, -0.25, 0.5}, 1e-12);
  check_close(v[1], {8}, 1e-12);
  check_close(v[2], {1}, 1e-12);
  check_close(v[3], {2.0794415416798357}, 1e-12);
  check_close(v[4], {2, 0, 1, std::sqrt(2.0)}, 1e-12);
  check_close(v[5], {-0.125, 0.75}, 1e-12);
  check_close(v[6], {0.25, 0.5, 0.75, 0.8333333333333333}, 1e-12);
  check_close(v[7], {0.25, 0.5}, 1e-12);
  check_close(v[8], {3, -2, -2, 4}, 1e-12);
}

BOOST_AUTO_TEST_CASE(linear_algebra_refuses_as_tensorflow) {
  af::Graph g;
  const Output rect = matrix(g, iota(12), {3, 4});
  BOOST_CHECK_EXCEPTION(linalg::matrix_inverse(rect), af::InvalidArgumentError, [](const auto& e) {
    return has(e, "Dimensions must be equal, but are 3 and 4");
  });
  BOOST_CHECK_EXCEPTION(linalg::matrix_inverse(af::cast(rect, DType::int32)),
                        af::InvalidArgumentError, [](const auto& e) {
                          return has(e,
                                     "Value for attr 'T' of int32 is not in the list of "
                                     "allowed values: double, float, half");
                        });
  BOOST_CHECK_EXCEPTION(
      linalg::matrix_solve(matrix(g, iota(9), {3, 3}, "m"), matrix(g, iota(4), {4, 1}, "r")),
      af::InvalidArgumentError,
      [](const auto& e) { return has(e, "Dimensions must be equal, but are 3 and 4"); });
  BOOST_CHECK_EXCEPTION(linalg::matrix_triangular_solve(matrix(g, iota(18), {2, 3, 3}, "m2"),
                                                        matrix(g, iota(9), {3, 3, 1}, "r2")),
                        af::InvalidArgumentError, [](const auto& e) {
                          return has(e, "Dimensions must be equal, but are 2 and 3");
                        });

  const Output any = g.placeholder(DType::float32, af::PartialShape::unknown(), "any");
  const Output rhs = g.placeholder(DType::float32, af::PartialShape::unknown(), "rhs");
  const Output inv = linalg::matrix_inverse(any);
  const Output solve = linalg::matrix_solve(any, rhs);
  const Output tri = linalg::matrix_triangular_solve(any, rhs);
  const Output chol = linalg::cholesky(any);
  af::Session sess(g);
  auto fails = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  const Tensor singular = Tensor::from_vector(std::vector<float>{1, 2, 2, 4}, af::Shape{2, 2});
  const Tensor column = Tensor::from_vector(std::vector<float>{1, 1}, af::Shape{2, 1});
  fails(inv, {{any, singular}}, "Input is not invertible.");
  fails(inv, {{any, Tensor::from_vector(iota(2), af::Shape{2})}},
        "Input tensor 0 must have rank >= 2, got 1");
  fails(inv, {{any, Tensor::from_vector(iota(12), af::Shape{3, 4})}},
        "Input matrix must be square.");
  fails(solve, {{any, singular}, {rhs, column}}, "Input matrix is not invertible.");
  fails(solve, {{any, singular}, {rhs, Tensor::from_vector(iota(3), af::Shape{3, 1})}},
        "Input matrix and rhs are incompatible.");
  fails(solve, {{any, singular}, {rhs, Tensor::from_vector(iota(2), af::Shape{2})}},
        "All input tensors must have the same rank.");
  fails(tri, {{any, singular}, {rhs, Tensor::from_vector(iota(3), af::Shape{3, 1})}},
        "In[0] mismatch In[1] shape: 2 vs. 3: [2,2] [3,1] 1 0");
  fails(tri, {{any, Tensor::from_vector(iota(12), af::Shape{3, 4})}, {rhs, column}},
        "In[0] matrices in the last dimensions must be square (4 =/= 3)");
  fails(tri,
        {{any, Tensor::from_vector(iota(12), af::Shape{3, 2, 2})},
         {rhs, Tensor::from_vector(iota(4), af::Shape{2, 2, 1})}},
        "In[0] and In[1] must have compatible batch dimensions: [3,2,2] vs. [2,2,1]");
  // A matrix that is not positive definite: NaN in the lower triangle, no error.
  const Tensor l = sess.run(
      chol, {{any, Tensor::from_vector(std::vector<float>{-1, 0, 0, -1}, af::Shape{2, 2})}});
  BOOST_TEST(std::isnan(l.data<float>()[0]));
  BOOST_TEST(std::isnan(l.data<float>()[2]));
}

BOOST_AUTO_TEST_SUITE_END()
