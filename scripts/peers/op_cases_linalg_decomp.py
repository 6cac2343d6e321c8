"""Fixture cases of the linalg_decomp family for make_op_fixtures.py: Qr, Svd,
SelfAdjointEigV2, MatrixSolveLs, MatrixSquareRoot, TridiagonalSolve and TridiagonalMatMul,
float and double, with each gradient TensorFlow's Python registers (linalg_grad.py).
Gradients run on well-conditioned inputs: matrices with well separated singular values /
eigenvalues (so the vectors' signs and the 1 / (s_i^2 - s_j^2) terms are stable), symmetric
positive definite ones for the square root, diagonally dominant tridiagonal systems."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _orthogonal(rng, n):
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


def _separated(rng, shape):
    """Matrices [..., m, n] with singular values 1 + 1.5 k (well separated)."""
    m, n = shape[-2], shape[-1]
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        p = min(m, n)
        s = np.zeros((m, n))
        s[np.arange(p), np.arange(p)] = 1.0 + 1.5 * rng.permutation(p)
        out[idx] = _orthogonal(rng, m) @ s @ _orthogonal(rng, n).T
    return out


def _symmetric(rng, shape):
    """Symmetric matrices [..., n, n] with eigenvalues -3 + 1.3 k (well separated)."""
    n = shape[-1]
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        v = _orthogonal(rng, n)
        out[idx] = v @ np.diag(-3.0 + 1.3 * rng.permutation(n)) @ v.T
    return out


def _spd(rng, shape):
    """Symmetric positive definite matrices [..., n, n] (eigenvalues 1 .. n + 1)."""
    n = shape[-1]
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        v = _orthogonal(rng, n)
        out[idx] = v @ np.diag(1.0 + rng.permutation(n) * 1.1) @ v.T
    return out


def _tridiagonal(rng, shape):
    """Compact diagonals [..., 3, m] of a diagonally dominant tridiagonal matrix."""
    d = rng.uniform(-1, 1, size=shape)
    d[..., 1, :] = np.sign(d[..., 1, :] + 1e-3) * (3.0 + np.abs(d[..., 1, :]))
    return d


def build_linalg_decomp(b):
    f32, f64 = tf.float32, tf.float64
    rng = b.rng

#-- Qr -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- --
    for name, shape in [("square", (4, 4)), ("deep", (5, 3)), ("wide", (3, 5)),
                        ("batch", (2, 3, 4, 3)), ("batch_wide", (2, 2, 4))]:
        for full in (False, True):
            for dt, tol in [(f64, None), (f32, 1e-4)]:
#TensorFlow refuses the gradient for rows> cols with full_matrices.
                grad = not (full and shape[-2] > shape[-1])
                b.case("Qr_%s_full%d_%s" % (name, full, dt.name),
                       lambda x, full=full: list(tf.linalg.qr(x, full_matrices=full)),
                       [(_separated(rng, shape), dt)], grad=grad, tolerance=tol, atol=tol)
    b.case("Qr_empty_batch", lambda x: list(tf.linalg.qr(x)), [(np.zeros((0, 3, 2)), f32)],
           grad=False)
    b.case("Qr_empty_cols_full", lambda x: list(tf.linalg.qr(x, full_matrices=True)),
           [(np.zeros((2, 3, 0)), f64)], grad=False)
    b.case("Qr_empty_rows", lambda x: list(tf.linalg.qr(x)), [(np.zeros((0, 4)), f64)],
           grad=False)

#-- Svd -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -
    for name, shape in [("square", (4, 4)), ("deep", (5, 4)), ("wide", (3, 4)),
                        ("batch", (2, 3, 4, 3)), ("batch_wide", (2, 3, 5))]:
        for full in (False, True):
            for dt, tol in [(f64, None), (f32, 1e-3)]:
                grad = not full or abs(shape[-1] - shape[-2]) <= 1
                b.case("Svd_%s_full%d_%s" % (name, full, dt.name),
                       lambda x, full=full: list(tf.linalg.svd(x, full_matrices=full)),
                       [(_separated(rng, shape), dt)], grad=grad, tolerance=tol, atol=tol)
        b.case("Svd_%s_values_only" % name, lambda x: tf.linalg.svd(x, compute_uv=False),
               [(_separated(rng, shape), f64)])
    b.case("Svd_values_only_f32", lambda x: tf.linalg.svd(x, compute_uv=False),
           [(_separated(rng, (2, 4, 3)), f32)], tolerance=1e-4, atol=1e-4)
#Without compute_uv TensorFlow 2.21 returns u and v as uninitialized scalars(newer
#kernels and actorflow : empty[0], as the shape function says) : only s is compared.
    b.case("Svd_raw_no_uv",
           lambda x: R.Svd(input=x, compute_uv=False, full_matrices=True)[0],
           [(_separated(rng, (3, 3)), f64)], grad=False)
    b.case("Svd_empty_batch", lambda x: list(tf.linalg.svd(x)), [(np.zeros((0, 3, 2)), f32)],
           grad=False)
    b.case("Svd_empty_cols_full", lambda x: list(tf.linalg.svd(x, full_matrices=True)),
           [(np.zeros((2, 3, 0)), f64)], grad=False)
    b.case("Svd_empty_rows_full", lambda x: list(tf.linalg.svd(x, full_matrices=True)),
           [(np.zeros((0, 2)), f64)], grad=False)

#-- SelfAdjointEigV2 -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- --
    for name, shape in [("4", (4, 4)), ("batch", (2, 3, 3)), ("1", (1, 1))]:
        for dt, tol in [(f64, None), (f32, 1e-4)]:
            b.case("SelfAdjointEigV2_%s_%s" % (name, dt.name), lambda x: list(tf.linalg.eigh(x)),
                   [(_symmetric(rng, shape), dt)], tolerance=tol, atol=tol)
            b.case("SelfAdjointEigV2_%s_values_%s" % (name, dt.name), tf.linalg.eigvalsh,
                   [(_symmetric(rng, shape), dt)], tolerance=tol, atol=tol)
#Only the lower triangle is read.
    b.case("SelfAdjointEigV2_lower_only",
           lambda x: list(tf.linalg.eigh(tf.linalg.band_part(x, -1, 0))),
           [(np.tril(_symmetric(rng, (3, 3))), f64)], grad=False)
    b.case("SelfAdjointEigV2_raw_no_v", lambda x: R.SelfAdjointEigV2(input=x, compute_v=False)[0],
           [(_symmetric(rng, (3, 3)), f64)], grad=False)
    b.case("SelfAdjointEigV2_empty", lambda x: list(tf.linalg.eigh(x)),
           [(np.zeros((2, 0, 0)), f32)], grad=False)

#-- MatrixSolveLs -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -
    def lstsq(l2, fast=True):
        return lambda a, r: R.MatrixSolveLs(matrix=a, rhs=r, l2_regularizer=np.float64(l2),
                                            fast=fast)

    for name, m, n in [("over", 5, 3), ("square", 3, 3), ("under", 2, 4)]:
        for l2 in (0.0, 0.5):
            for dt, tol in [(f64, None), (f32, 1e-3)]:
                b.case("MatrixSolveLs_%s_l2_%g_%s" % (name, l2, dt.name), lstsq(l2),
                       [(_separated(rng, (2, m, n)), dt), (rng.uniform(-1, 1, (2, m, 2)), dt)],
                       tolerance=tol, atol=tol)
        b.case("MatrixSolveLs_%s_slow" % name, lstsq(0.0, fast=False),
               [(_separated(rng, (m, n)), f64), (rng.uniform(-1, 1, (m, 3)), f64)], grad=False)
    b.case("MatrixSolveLs_empty_batch", lstsq(0.0),
           [(np.zeros((0, 3, 2)), f32), (np.zeros((0, 3, 1)), f32)], grad=False)
    b.case("MatrixSolveLs_empty_rhs", lstsq(0.0),
           [(_separated(rng, (3, 2)), f64), (np.zeros((3, 0)), f64)], grad=False)

#-- MatrixSquareRoot -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- --
    for name, shape in [("3", (3, 3)), ("batch", (2, 2, 4, 4)), ("1", (1, 1))]:
        for dt, tol in [(f64, None), (f32, 1e-3)]:
            b.case("MatrixSquareRoot_%s_%s" % (name, dt.name), tf.linalg.sqrtm,
                   [(_spd(rng, shape), dt)], tolerance=tol, atol=tol)
    b.case("MatrixSquareRoot_nonsymmetric", tf.linalg.sqrtm,
           [(np.eye(3) * 4.0 + rng.uniform(-0.5, 0.5, (3, 3)), f64)])
    b.case("MatrixSquareRoot_empty", tf.linalg.sqrtm, [(np.zeros((2, 0, 0)), f64)], grad=False)

#-- TridiagonalSolve -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- --
    def tsolve(pivoting=True, perturb=False):
        return lambda d, r: R.TridiagonalSolve(diagonals=d, rhs=r, partial_pivoting=pivoting,
                                               perturb_singular=perturb)

    for name, fn in [("pivoting", tsolve()), ("thomas", tsolve(False)),
                     ("perturb", tsolve(True, True))]:
        for dt, tol in [(f64, None), (f32, 1e-4)]:
            b.case("TridiagonalSolve_%s_%s" % (name, dt.name), fn,
                   [(_tridiagonal(rng, (2, 3, 5)), dt), (rng.uniform(-1, 1, (2, 5, 3)), dt)],
                   tolerance=tol, atol=tol)
#Rows that need pivoting(a small diagonal entry).
    piv = np.array([[1.0, 2.0, 1.0, 0.0], [1e-3, 1.0, 3.0, 1.0], [0.0, 4.0, 1.0, 2.0]])
    b.case("TridiagonalSolve_needs_pivoting", tsolve(),
           [(piv, f64), (rng.uniform(-1, 1, (4, 2)), f64)])
    b.case("TridiagonalSolve_one", tsolve(),
           [(np.array([[0.0], [2.0], [0.0]]), f64), (np.array([[3.0, 4.0]]), f64)])
    b.case("TridiagonalSolve_singular_nan", tsolve(),
           [(np.zeros((3, 3)), f64), (np.ones((3, 1)), f64)], grad=False)
    b.case("TridiagonalSolve_empty", tsolve(),
           [(np.zeros((3, 0)), f32), (np.zeros((0, 2)), f32)], grad=False)

#-- TridiagonalMatMul -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- -
    def tmatmul(sup, main, sub, r):
        return R.TridiagonalMatMul(superdiag=sup, maindiag=main, subdiag=sub, rhs=r)

    for dt in (f32, f64):
        b.case("TridiagonalMatMul_%s" % dt.name, tmatmul,
               [(rng.uniform(-1, 1, (2, 1, 4)), dt), (rng.uniform(-1, 1, (2, 1, 4)), dt),
                (rng.uniform(-1, 1, (2, 1, 4)), dt), (rng.uniform(-1, 1, (2, 4, 3)), dt)])
    b.case("TridiagonalMatMul_one_row", tmatmul,
           [(rng.uniform(-1, 1, (1, 1)), f64), (rng.uniform(-1, 1, (1, 1)), f64),
            (rng.uniform(-1, 1, (1, 1)), f64), (rng.uniform(-1, 1, (1, 2)), f64)])
