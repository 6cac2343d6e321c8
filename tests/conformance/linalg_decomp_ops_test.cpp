// The decompositions and solvers of af::linalg (TensorFlow's tf.linalg.qr, svd, eigh,
// eigvalsh, MatrixSolveLs, sqrtm and the compact tridiagonal ops) against values TensorFlow
// 2.21 computes, with TensorFlow's build-time (shape function) and run-time (kernel)
// messages. The fixture cases of scripts/peers/op_cases_linalg_decomp.py compare every op
// and gradient with TensorFlow in bulk; these pin the builders and the errors.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/linalg_decomp_ops.hpp>
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

void check_close(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> got = values(t);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::fabs(got[i] - want[i]) <= tol * std::max(1.0, std::fabs(want[i])),
               "element " << i << ": " << got[i] << " vs " << want[i]);
}

Output matrix64(af::Graph& g, std::vector<double> v, af::Shape shape, const char* name) {
  return g.constant(Tensor::from_vector(v, shape), name);
}

Tensor ones(af::Shape shape) {
  return Tensor::from_vector(std::vector<double>(static_cast<std::size_t>(shape.num_elements()), 1),
                             shape);
}

bool has(const std::exception& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(linalg_decomp_ops_test)

BOOST_AUTO_TEST_CASE(decomposition_builders_compute_tensorflows_values_and_shapes) {
  af::Graph g;
  const auto [q, r] = linalg::qr(matrix64(g, {3, 1, 4, 2}, {2, 2}, "a"));
  BOOST_TEST(q.name() == "Qr:0");
  const linalg::SvdOutputs svd = linalg::svd(matrix64(g, {3, 0, 0, -2}, {2, 2}, "b"));
  BOOST_TEST(svd.s.name() == "svd/Svd:0");
  const auto [e, v] = linalg::self_adjoint_eig(matrix64(g, {2, 1, 1, 2}, {2, 2}, "c"));
  const Output lstsq = linalg::matrix_solve_ls(matrix64(g, {1, 0, 0, 1, 1, 1}, {3, 2}, "d"),
                                               matrix64(g, {1, 2, 3}, {3, 1}, "rhs"));
  BOOST_TEST(lstsq.shape() == af::PartialShape({2, 1}));
  const Output sqrtm = linalg::matrix_square_root(matrix64(g, {4, 0, 0, 9}, {2, 2}, "f"));
  const Output diags = matrix64(g, {1, 2, 0, 4, 5, 6, 0, 7, 8}, {3, 3}, "diags");
  const Output column = matrix64(g, {1, 2, 3}, {3, 1}, "column");
  const Output tsolve = linalg::tridiagonal_solve(diags, column);
  const Output tmm = linalg::tridiagonal_matmul(matrix64(g, {1, 2, 0}, {1, 3}, "super"),
                                                matrix64(g, {4, 5, 6}, {1, 3}, "main"),
                                                matrix64(g, {0, 7, 8}, {1, 3}, "sub"), column);
  // Shapes: thin and full Q/R and U/V of a wide batch; eigvalsh's empty v.
  const Output wide = g.placeholder(DType::float32, af::PartialShape({2, 3, 5}), "wide");
  BOOST_TEST(linalg::qr(wide).q.shape() == af::PartialShape({2, 3, 3}));
  BOOST_TEST(linalg::qr(wide, true).r.shape() == af::PartialShape({2, 3, 5}));
  BOOST_TEST(linalg::svd(wide, true).v.shape() == af::PartialShape({2, 5, 5}));
  BOOST_TEST(linalg::svd(wide, false, false).u.shape() == af::PartialShape({0}));
  BOOST_TEST(linalg::self_adjoint_eigvals(
                 g.placeholder(DType::float64, af::PartialShape({4, 3, 3}), "sym"))
                 .shape() == af::PartialShape({4, 3}));
  af::Session sess(g);
  const auto out = sess.run({q, r, svd.s, svd.u, svd.v, e, v, lstsq, sqrtm, tsolve, tmm});
  check_close(out[0], {-0.6, -0.8, -0.8, 0.6}, 1e-12);
  check_close(out[1], {-5, -2.2, 0, 0.4}, 1e-12);
  check_close(out[2], {3, 2});
  check_close(out[3], {1, 0, 0, -1});
  check_close(out[4], {1, 0, 0, 1});
  check_close(out[5], {1, 3});
  const double h = std::sqrt(0.5);
  check_close(out[6], {-h, h, h, h});
  check_close(out[7], {1, 2}, 1e-12);
  check_close(out[8], {2, 0, 0, 3}, 1e-12);
  check_close(out[9], {0.5714285714285718, -1.285714285714287, 2.2142857142857157}, 1e-12);
  check_close(out[10], {6, 23, 34});
}

BOOST_AUTO_TEST_CASE(decomposition_gradients_build_and_match_tensorflow) {
  af::Graph g;
  const Output a = matrix64(g, {2, 1, 1, 2}, {2, 2}, "a");
  // d(sum of eigenvalues)/dA: the identity's lower triangle (the kernel reads only it).
  const Output e = linalg::self_adjoint_eigvals(a);
  const Output s = matrix64(g, {4, 0, 0, 9}, {2, 2}, "s");
  const Output sqrtm = linalg::matrix_square_root(s);
  const Output grad_e = af::gradients({af::reduce_sum(e)}, {a})[0];
  // The Sylvester solution: 1 / (r_i + r_j) for R = diag(2, 3).
  const Output grad_sqrtm = af::gradients({af::reduce_sum(sqrtm)}, {s})[0];
  af::Session sess(g);
  check_close(sess.run(grad_e), {1, 0, 0, 1}, 1e-9);
  check_close(sess.run(grad_sqrtm), {0.25, 0.2, 0.2, 1.0 / 6}, 1e-9);
  // As TensorFlow, no gradient for a deep matrix's full Q.
  const Output deep = matrix64(g, {1, 2, 3, 4, 5, 7}, {3, 2}, "deep");
  BOOST_CHECK_EXCEPTION(
      af::gradients({af::reduce_sum(linalg::qr(deep, true).q)}, {deep}), af::UnimplementedError,
      [](const auto& e) {
        return has(e, "QrGrad not implemented when nrows > ncols and full_matrices is true.");
      });
}

BOOST_AUTO_TEST_CASE(decompositions_refuse_as_tensorflow) {
  af::Graph g;
  const Output rect = matrix64(g, std::vector<double>(6, 1), {2, 3}, "rect");
  BOOST_CHECK_EXCEPTION(
      linalg::self_adjoint_eig(rect), af::InvalidArgumentError,
      [](const auto& e) { return has(e, "Dimensions must be equal, but are 2 and 3"); });
  BOOST_CHECK_EXCEPTION(linalg::qr(af::cast(rect, DType::int32)), af::InvalidArgumentError,
                        [](const auto& e) {
                          return has(e,
                                     "Value for attr 'T' of int32 is not in the list of allowed "
                                     "values: double, float, half, complex64, complex128");
                        });
  BOOST_CHECK_EXCEPTION(
      linalg::matrix_solve_ls(rect, matrix64(g, {1, 2, 3}, {3, 1}, "r3")), af::InvalidArgumentError,
      [](const auto& e) { return has(e, "Dimensions must be equal, but are 2 and 3"); });
  BOOST_CHECK_EXCEPTION(linalg::tridiagonal_solve(rect, matrix64(g, {1, 2, 3}, {3, 1}, "r4")),
                        af::InvalidArgumentError,
                        [](const auto& e) { return has(e, "Dimension must be 3 but is 2"); });

  const Output any = g.placeholder(DType::float64, af::PartialShape::unknown(), "any");
  const Output rhs = g.placeholder(DType::float64, af::PartialShape::unknown(), "rhs");
  const Output l2 = g.placeholder(DType::float64, af::PartialShape::unknown(), "l2");
  const Output diag1 = g.placeholder(DType::float64, af::PartialShape::unknown(), "diag1");
  af::Session sess(g);
  auto fails = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  fails(linalg::qr(any).q, {{any, ones({3})}}, "Input tensor 0 must have rank >= 2, got 1");
  fails(linalg::self_adjoint_eig(any).e, {{any, ones({2, 3})}}, "Input matrix must be square.");
  fails(linalg::matrix_square_root(any), {{any, ones({2, 3})}}, "Input matrix must be square.");
  const Output ls = linalg::matrix_solve_ls(any, rhs, l2);
  fails(ls, {{any, ones({3, 2})}, {rhs, ones({3, 1})}, {l2, Tensor(-1.0)}},
        "l2_regularizer must be >= 0.");
  fails(ls, {{any, ones({3, 2})}, {rhs, ones({3, 1})}, {l2, ones({2})}},
        "l2_regularizer must be scalar, got shape [2]");
  fails(ls, {{any, ones({3, 2})}, {rhs, ones({2, 1})}, {l2, Tensor(0.0)}},
        "Input matrix and rhs are incompatible.");
  fails(ls, {{any, ones({3, 2})}, {rhs, ones({3, 1})}, {l2, Tensor(0.0)}},
        "Input matrix was rank deficient or ill-conditioned. Try setting fast=False or provide "
        "a larger l2_regularizer > 0.");
  fails(ls, {{any, ones({2, 3})}, {rhs, ones({2, 1})}, {l2, Tensor(0.0)}},
        "Input matrix was rank deficient or ill-conditioned. Try setting fast=False or provide "
        "an l2_regularizer > 0.");
  const Output ts = linalg::tridiagonal_solve(any, rhs);
  fails(ts, {{any, ones({2, 3})}, {rhs, ones({3, 1})}},
        "Expected diagonals to be provided as a matrix with 3 rows, got 2 rows.");
  fails(ts, {{any, ones({3, 3})}, {rhs, ones({4, 1})}},
        "Expected the same number of left-hand sides and right-hand sides, got 3 and 4.");
  fails(linalg::tridiagonal_solve(any, rhs, false, true),
        {{any, ones({3, 3})}, {rhs, ones({3, 1})}},
        "Setting perturb_singular requires also setting partial_pivoting.");
  const Output tm = linalg::tridiagonal_matmul(any, diag1, diag1, rhs);
  fails(tm, {{any, ones({1, 2})}, {diag1, ones({1, 3})}, {rhs, ones({3, 1})}},
        "Invalid superdiagonal shape.");
  fails(linalg::tridiagonal_matmul(diag1, any, diag1, rhs),
        {{any, ones({2, 3})}, {diag1, ones({1, 3})}, {rhs, ones({3, 1})}},
        "Invalid main diagonal shape.");
  // A singular tridiagonal system: NaN, no error (TensorFlow only logs a warning).
  const Tensor nan =
      sess.run(ts, {{any, Tensor::from_vector(std::vector<double>(9, 0), af::Shape{3, 3})},
                    {rhs, ones({3, 1})}});
  BOOST_TEST(std::isnan(values(nan)[0]));
}

BOOST_AUTO_TEST_SUITE_END()
