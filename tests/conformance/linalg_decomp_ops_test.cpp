// The decompositions and solvers of af::linalg (TensorFlow's tf.linalg.qr, svd, eigh,
// eigvalsh, MatrixSolveLs, sqrtm, the compact tridiagonal ops, lu, eig, eigvals, logm,
// banded_triangular_solve and the op CholeskyGrad) against values TensorFlow 2.21 computes,
// with TensorFlow's build-time (shape function) and run-time (kernel) messages. The fixture
// cases of scripts/peers/op_cases_linalg_decomp.py and op_cases_linalg_more.py compare every
// op and gradient with TensorFlow in bulk; these pin the builders and the errors.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/complex_ops.hpp>
#include <actorflow/ops/linalg_decomp_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
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

// A float64 Const of ones.
Output ones_const(af::Graph& g, af::Shape shape, const char* name) {
  return g.constant(ones(shape), name);
}

// The entries of a complex128 tensor.
std::vector<std::complex<double>> complex_values(const Tensor& t) {
  const auto* data = t.data<af::complex128_t>();
  return {data, data + t.num_elements()};
}

void check_complex(const Tensor& t, const std::vector<std::complex<double>>& want,
                   double tol = 1e-12) {
  const auto got = complex_values(t);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::abs(got[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])),
               "element " << i << ": " << got[i] << " vs " << want[i]);
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

BOOST_AUTO_TEST_CASE(lu_eig_logm_and_banded_solve_builders_compute_tensorflows_values) {
  af::Graph g;
  const auto [lu, p] = linalg::lu(matrix64(g, {1, 2, 3, 4, 5, 6, 7, 8, 10}, {3, 3}, "a"));
  BOOST_TEST(lu.name() == "Lu:0");
  BOOST_TEST(p.dtype() == DType::int32);
  BOOST_TEST(p.shape() == af::PartialShape({3}));
  const Output p64 = linalg::lu(matrix64(g, {0, 1, 1, 0}, {2, 2}, "swap"), DType::int64).p;
  BOOST_TEST(p64.dtype() == DType::int64);
  // A real matrix: EigenSolver's order (the real Schur form's), a conjugate pair with the
  // positive imaginary part first.
  const auto [e, v] = linalg::eig(matrix64(g, {2, 1, 0, 3}, {2, 2}, "b"));
  BOOST_TEST(e.name() == "Eig:0");
  BOOST_TEST(e.dtype() == DType::complex128);
  const Output pair = linalg::eigvals(matrix64(g, {1, -2, 1, 1}, {2, 2}, "c"));
  const Output batch = g.placeholder(DType::float32, af::PartialShape({4, 3, 3}), "batch");
  BOOST_TEST(linalg::eig(batch).v.shape() == af::PartialShape({4, 3, 3}));
  BOOST_TEST(linalg::eig(batch).v.dtype() == DType::complex64);
  BOOST_TEST(linalg::eigvals(batch).shape() == af::PartialShape({4, 3}));
  BOOST_TEST(linalg::eigvals(batch).node()->output_shapes()[1] == af::PartialShape({0}));
  const double e1 = std::exp(1.0);
  const Output logm = linalg::matrix_logarithm(g.constant(
      Tensor::from_vector(std::vector<af::complex128_t>{e1, 0, 0, e1 * e1}, af::Shape{2, 2}), "d"));
  BOOST_TEST(logm.name() == "MatrixLogarithm:0");
  const Output bands = matrix64(g, {2, 3, 4, 1, 2, 3}, {2, 3}, "bands");
  const Output solved = linalg::banded_triangular_solve(bands, ones_const(g, {3, 1}, "rhs"));
  BOOST_TEST(solved.name() == "banded_triangular_solve/BandedTriangularSolve:0");
  const Output upper =
      linalg::banded_triangular_solve(bands, ones_const(g, {3, 1}, "rhs2"), false, true);
  const Output cgrad = linalg::cholesky_grad(matrix64(g, {2, 0, 1, 3}, {2, 2}, "l"),
                                             matrix64(g, {1, 0, 2, 1}, {2, 2}, "grad"));
  BOOST_TEST(cgrad.name() == "CholeskyGrad:0");
  af::Session sess(g);
  const auto out = sess.run({lu, p, p64, e, v, pair, logm, solved, upper, cgrad});
  check_close(out[0], {7, 8, 10, 1.0 / 7, 6.0 / 7, 11.0 / 7, 4.0 / 7, 0.5, -0.5}, 1e-12);
  BOOST_TEST(out[1].data<std::int32_t>()[0] == 2);
  BOOST_TEST(out[1].data<std::int32_t>()[1] == 0);
  BOOST_TEST(out[1].data<std::int32_t>()[2] == 1);
  BOOST_TEST(out[2].data<std::int64_t>()[0] == 1);
  check_complex(out[3], {2, 3});
  // Unit eigenvectors (their signs are the decomposition's).
  const auto vs = complex_values(out[4]);
  const double h = std::sqrt(0.5);
  const std::vector<double> moduli{1, h, 0, h};
  for (std::size_t i = 0; i < vs.size(); ++i)
    BOOST_TEST(std::abs(std::abs(vs[i]) - moduli[i]) < 1e-12);
  check_complex(out[5], {{1, std::sqrt(2.0)}, {1, -std::sqrt(2.0)}});
  check_complex(out[6], {1, 0, 0, 2}, 1e-12);
  check_close(out[7], {0.5, 0, 0.25});
  check_close(out[8], {1, -0.5, 5.0 / 6});
  check_close(out[9], {1.0 / 24, 5.0 / 12, 5.0 / 12, 1.0 / 6}, 1e-12);
}

BOOST_AUTO_TEST_CASE(eig_and_banded_solve_gradients_build_and_lu_has_none) {
  af::Graph g;
  const Output x = matrix64(g, {1, 2, 3, 4}, {2, 2}, "x");
  // The sum of the eigenvalues is the trace: its gradient is the identity, with v (grad_v
  // zeros) and without (a second Eig in the gradient).
  const Output trace_grad = af::gradients({af::reduce_sum(af::real(linalg::eigvals(x)))}, {x})[0];
  const Output trace_grad_v = af::gradients({af::reduce_sum(af::real(linalg::eig(x).e))}, {x})[0];
  BOOST_TEST(trace_grad.dtype() == DType::float64);
  const Output bands = matrix64(g, {2, 3, 4, 1, 2, 3}, {2, 3}, "bands");
  const Output rhs = matrix64(g, {1, 1, 1}, {3, 1}, "rhs");
  const Output solved = linalg::banded_triangular_solve(bands, rhs);
  const auto grads = af::gradients({af::reduce_sum(solved)}, {bands, rhs});
  af::Session sess(g);
  const auto out = sess.run({trace_grad, trace_grad_v, grads[0], grads[1]});
  check_close(out[0], {1, 0, 0, 1}, 1e-9);
  check_close(out[1], {1, 0, 0, 1}, 1e-9);
  // TensorFlow's values (the first entry of each subdiagonal row is padding: 0).
  check_close(out[2], {-0.20833333333333334, 0, -0.0625, 0, -0.04166666666666666, 0}, 1e-12);
  check_close(out[3], {0.4166666666666667, 0.08333333333333333, 0.25}, 1e-12);
  // As TensorFlow 2.21, Lu has no gradient.
  const Output lu = linalg::lu(x).lu;
  BOOST_CHECK_EXCEPTION(
      af::gradients({af::reduce_sum(lu)}, {x}), af::NotFoundError,
      [](const auto& e) { return has(e, "No gradient defined for operation 'Lu' (op type: Lu)"); });
}

BOOST_AUTO_TEST_CASE(lu_eig_logm_cholesky_grad_and_banded_solve_refuse_as_tensorflow) {
  af::Graph g;
  const Output rect = matrix64(g, std::vector<double>(6, 1), {2, 3}, "rect");
  auto refuses = [](auto build, const std::string& message) {
    try {
      build();
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  refuses([&] { linalg::lu(rect); }, "Dimensions must be equal, but are 2 and 3");
  refuses([&] { linalg::lu(af::cast(rect, DType::int32)); },
          "Value for attr 'T' of int32 is not in the list of allowed values: double, float, "
          "half, complex64, complex128");
  refuses(
      [&] {
        linalg::lu(matrix64(g, {1}, {1, 1}, "one"), DType::float32);
      },
      "Value for attr 'output_idx_type' of float is not in the list of allowed values: "
      "int32, int64");
  refuses([&] { linalg::eig(rect); }, "Dimensions must be equal, but are 2 and 3");
  refuses([&] { linalg::eig(af::cast(rect, DType::int32)); },
          "Value for attr 'T' of int32 is not in the list of allowed values: float, double, "
          "complex64, complex128");
  refuses(
      [&] {
        linalg::matrix_logarithm(matrix64(g, {1}, {1, 1}, "real"));
      },
      "Value for attr 'T' of double is not in the list of allowed values: complex64, "
      "complex128");
  refuses([&] { linalg::cholesky_grad(rect, rect); }, "Dimensions must be equal, but are 2 and 3");
  refuses([&] { linalg::cholesky_grad(af::cast(rect, DType::float32), rect); },
          "Input 'grad' of 'CholeskyGrad' Op has type");
  refuses(
      [&] {
        linalg::banded_triangular_solve(matrix64(g, std::vector<double>(6, 1), {3, 2}, "tall"),
                                        ones_const(g, {2, 1}, "r2"));
      },
      "Number of bands 3 cannot exceed the size of the matrix 2");
  refuses(
      [&] {
        linalg::banded_triangular_solve(rect, ones_const(g, {4, 1}, "r4"));
      },
      "Dimensions must be equal, but are 3 and 4");
  refuses(
      [&] {
        linalg::banded_triangular_solve(ones_const(g, {2, 2, 3}, "b223"),
                                        ones_const(g, {3, 3, 1}, "r331"));
      },
      "Dimensions must be equal, but are 2 and 3");

  const Output any = g.placeholder(DType::float64, af::PartialShape::unknown(), "any");
  const Output other = g.placeholder(DType::float64, af::PartialShape::unknown(), "other");
  const Output cplx = g.placeholder(DType::complex128, af::PartialShape::unknown(), "cplx");
  af::Session sess(g);
  auto fails = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(has(e, message), e.what());
    }
  };
  const Output lu = linalg::lu(any).lu;
  fails(lu, {{any, ones({3})}}, "Input tensor must have rank >= 2, got 1");
  fails(lu, {{any, ones({2, 3})}}, "Input matrix must be square.");
  // An exactly zero pivot in any matrix of the batch.
  fails(
      lu,
      {{any, Tensor::from_vector(std::vector<double>{1, 0, 0, 1, 1, 2, 2, 4}, af::Shape{2, 2, 2})}},
      "Input is not invertible.");
  const Output eigenvalues = linalg::eig(any).e;
  fails(eigenvalues, {{any, ones({2, 3})}}, "Input matrix must be square.");
  fails(eigenvalues,
        {{any, Tensor::from_vector(std::vector<double>{NAN, 1, 1, 1}, af::Shape{2, 2})}},
        "Eigen decomposition was not successful. The input might not be valid.");
  // A Tout that does not match the input's kernel fails as TensorFlow's allocation does.
  const Output wrong_tout =
      g.create_op("Eig", {any},
                  {{"compute_v", true}, {"T", DType::float64}, {"Tout", DType::complex64}},
                  "wrong_tout")
          .output(0);
  fails(wrong_tout, {{any, ones({2, 2})}}, "Invalid output dtype 8 vs 18");
  fails(linalg::matrix_logarithm(cplx), {{cplx, Tensor(DType::complex128, af::Shape{2, 3})}},
        "Input matrix must be square.");
  const Output cg = linalg::cholesky_grad(any, other);
  fails(cg, {{any, ones({3, 3})}, {other, ones({2, 2})}},
        "Inputs (L and grad) must have the same shape.");
  fails(cg, {{any, ones({3, 2})}, {other, ones({3, 2})}}, "Inputs must be a square matrices.");
  fails(cg, {{any, ones({2, 3, 3})}, {other, ones({3, 3})}},
        "All input tensors must have the same rank.");
  fails(cg, {{any, ones({2, 3, 3})}, {other, ones({1, 3, 3})}},
        "All input tensors must have the same outer dimensions.");
  const Output bts = linalg::banded_triangular_solve(any, other);
  fails(bts, {{any, ones({3})}, {other, ones({3, 1})}}, "In[0] ndims must be >= 2: 1");
  fails(bts, {{any, ones({2, 0})}, {other, ones({0, 1})}},
        "In[0] must not be an empty tensor: Tensor<type: double shape: [2,0] values: >");
  fails(bts, {{any, ones({2, 3})}, {other, ones({3, 0})}},
        "In[1] must not be an empty tensor: Tensor<type: double shape: [3,0] values: >");
  fails(bts, {{any, ones({2, 3})}, {other, ones({4, 1})}},
        "In[0] mismatch In[1] shape: 3 vs. 4: [2,3] [4,1] 1 0");
  fails(bts, {{any, ones({2, 2, 3})}, {other, ones({3, 3, 1})}},
        "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,1]");
  fails(bts,
        {{any, Tensor::from_vector(std::vector<double>{1, 0, 2, 1, 1, 1}, af::Shape{2, 3})},
         {other, ones({3, 1})}},
        "Input matrix is not invertible.");
  // Only the first matrix's diagonal is checked: a zero in the second gives non-finite values.
  const Tensor unchecked = sess.run(
      bts, {{any, Tensor::from_vector(std::vector<double>{1, 1, 2, 1, 1, 1, 1, 0, 2, 1, 1, 1},
                                      af::Shape{2, 2, 3})},
            {other, ones({3, 1})}});
  BOOST_TEST(!std::isfinite(values(unchecked)[4]));
  // A singular matrix's logarithm: not finite, no error.
  Tensor singular(DType::complex128, af::Shape{2, 2});
  singular.data<af::complex128_t>()[3] = 1;
  const Tensor log_singular = sess.run(linalg::matrix_logarithm(cplx), {{cplx, singular}});
  BOOST_TEST(!std::isfinite(complex_values(log_singular)[0].real()));
}

BOOST_AUTO_TEST_SUITE_END()
