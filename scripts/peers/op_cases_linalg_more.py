"""Fixture cases of the linalg_more family for make_op_fixtures.py: Lu, Eig, MatrixLogarithm,
CholeskyGrad and BandedTriangularSolve, real and complex, batched, with the gradients
TensorFlow's Python registers (_EigGrad, _BandedTriangularSolveGrad; TensorFlow 2.21 has none
for Lu, MatrixLogarithm and CholeskyGrad, so those cases are forward only). The family comes
last in CASE_FAMILIES, so the cases before it keep their inputs and weights.

Eig is compared where its result is defined. The eigenvalues of every case are distinct (of
distinct moduli but for one conjugate pair), so their order is the algorithm's and not
rounding's: TensorFlow 2.21
decomposes a real matrix with Eigen's EigenSolver (the order of the real Schur form, a
conjugate pair with the positive imaginary part first) and a complex one with
ComplexEigenSolver (sorted by modulus). Eigenvectors have unit norm and an arbitrary sign or
phase: the gradient cases compare |v| (phase-free, so the loss and its gradient are defined
whatever the phase), the forward cases v with each column multiplied by the conjugate phase
of its first entry (nonzero in every case)."""
import numpy as np
import tensorflow as tf

R = tf.raw_ops


def _well_conditioned(rng, shape, dtype=float):
    """Matrices [..., n, n] with a dominant diagonal (real or complex)."""
    n = shape[-1]
    a = rng.uniform(-1.0, 1.0, size=shape)
    if dtype == complex:
        a = a + 1j * rng.uniform(-1.0, 1.0, size=shape)
    return a + np.eye(n) * (n + 1.0)


def _with_eigenvalues(rng, shape, eigenvalues, dtype=float):
    """Matrices [..., n, n] S diag(eigenvalues permuted) S^{-1}, S near the identity."""
    n = shape[-1]
    out = np.empty(shape, dtype=complex if dtype == complex else float)
    for idx in np.ndindex(*shape[:-2]):
        s = np.eye(n) + 0.4 * rng.uniform(-1, 1, size=(n, n))
        if dtype == complex:
            s = s + 0.4j * rng.uniform(-1, 1, size=(n, n))
        lam = np.asarray(eigenvalues[:n])[rng.permutation(n)]
        a = s @ np.diag(lam) @ np.linalg.inv(s)
        out[idx] = a if dtype == complex else a.real
    return out


def _conjugate_pair(rng):
    """A real 4 x 4 matrix with eigenvalues 0.5, 1.5 +- 1i and -3."""
    block = np.zeros((4, 4))
    block[0, 0] = 0.5
    block[1:3, 1:3] = [[1.5, -1.0], [1.0, 1.5]]
    block[3, 3] = -3.0
    s = np.eye(4) + 0.4 * rng.uniform(-1, 1, size=(4, 4))
    return s @ block @ np.linalg.inv(s)


def _spd(rng, shape):
    """Symmetric positive definite matrices [..., n, n]."""
    n = shape[-1]
    a = rng.uniform(-1.0, 1.0, size=shape)
    return np.matmul(a, np.swapaxes(a, -1, -2)) + np.eye(n) * n


def _bands(rng, shape, lower, dtype=float):
    """Bands [..., K, M] of a well-conditioned triangular matrix (LEFT_RIGHT packing; the
    unused corner entries hold values the kernel must not read)."""
    b = rng.uniform(-1.0, 1.0, size=shape)
    if dtype == complex:
        b = b + 1j * rng.uniform(-1.0, 1.0, size=shape)
    diag = 0 if lower else shape[-2] - 1
    b[..., diag, :] = (2.0 + np.abs(b[..., diag, :])) * np.sign(b[..., diag, :].real + 1e-3)
    return b


def _phase_fixed(v):
    """v with each column times the conjugate phase of its first entry."""
    first = v[..., :1, :]
    return v * tf.math.conj(first) / tf.cast(tf.abs(first), v.dtype)


REAL_EIGENVALUES = [0.5, -1.25, 2.0, -3.5]
COMPLEX_EIGENVALUES = [0.6 + 0.3j, -1.1 + 0.8j, 0.4 - 2.0j, 2.9 + 1.2j]


def build_linalg_more(b):
    f32, f64, c64, c128, i64 = tf.float32, tf.float64, tf.complex64, tf.complex128, tf.int64
    rng = b.rng

    # -- Lu ---------------------------------------------------------------------------------
    for name, shape in [("3", (3, 3)), ("batch", (2, 4, 4)), ("1", (1, 1))]:
        for dt, tol in [(f64, None), (f32, 1e-5)]:
            b.case("Lu_%s_%s" % (name, dt.name), lambda x: list(tf.linalg.lu(x)),
                   [(rng.uniform(-1, 1, size=shape), dt)], grad=False, tolerance=tol, atol=tol)
    for dt, tol in [(c128, None), (c64, 1e-5)]:
        b.case("Lu_%s" % dt.name, lambda x: list(tf.linalg.lu(x)),
               [(_well_conditioned(rng, (2, 3, 3), complex) - 3.5 * np.eye(3), dt)], grad=False,
               tolerance=tol, atol=tol)
    b.case("Lu_int64_index", lambda x: list(tf.linalg.lu(x, output_idx_type=i64)),
           [(rng.uniform(-1, 1, size=(4, 4)), f64)], grad=False)
    b.case("Lu_pivots", lambda x: list(tf.linalg.lu(x)),
           [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], f64)], grad=False)
    # Eigen's blocked factorization (above 16 rows).
    b.case("Lu_blocked", lambda x: list(tf.linalg.lu(x)),
           [(rng.uniform(-1, 1, size=(20, 20)), f64)], grad=False, tolerance=1e-10, atol=1e-12)
    b.case("Lu_empty", lambda x: list(tf.linalg.lu(x)), [(np.zeros((2, 0, 0)), f32)], grad=False)
    b.case("Lu_empty_batch", lambda x: list(tf.linalg.lu(x)), [(np.zeros((0, 3, 3)), f64)],
           grad=False)

    # -- Eig --------------------------------------------------------------------------------
    def eig_moduli(x):
        e, v = tf.linalg.eig(x)
        return [tf.math.real(e), tf.math.imag(e), tf.abs(v)]

    def eig_phase_fixed(x):
        e, v = tf.linalg.eig(x)
        return [e, _phase_fixed(v)]

    for name, shape in [("4", (4, 4)), ("batch", (2, 3, 3)), ("1", (1, 1))]:
        for dt, tol, atol in [(f64, 1e-9, 1e-10), (f32, 1e-4, 1e-5)]:
            x = _with_eigenvalues(rng, shape, REAL_EIGENVALUES)
            b.case("Eig_%s_%s" % (name, dt.name), eig_moduli, [(x, dt)], tolerance=tol, atol=atol)
            b.case("Eig_%s_vectors_%s" % (name, dt.name), eig_phase_fixed, [(x, dt)], grad=False,
                   tolerance=tol, atol=atol)
    # A real matrix with a conjugate pair (|imag| in the loss: the same for either member).
    def eig_pair_moduli(x):
        e, v = tf.linalg.eig(x)
        return [tf.math.real(e), tf.abs(tf.math.imag(e)), tf.abs(v)]

    pair = _conjugate_pair(rng)
    b.case("Eig_conjugate_pair", eig_pair_moduli, [(pair, f64)], tolerance=1e-9, atol=1e-10)
    b.case("Eig_conjugate_pair_vectors", eig_phase_fixed, [(pair, f64)], grad=False,
           tolerance=1e-9, atol=1e-10)
    # Complex matrices: forward on complex constants, gradients through tf.complex(re, im).
    for dt, tol, atol in [(c128, 1e-9, 1e-10), (c64, 1e-4, 1e-5)]:
        x = _with_eigenvalues(rng, (2, 4, 4), COMPLEX_EIGENVALUES, complex)
        b.case("Eig_%s" % dt.name, eig_phase_fixed, [(x, dt)], tolerance=tol, atol=atol)
    for dt, tol, atol in [(f64, 1e-9, 1e-10), (f32, 1e-4, 1e-5)]:
        x = _with_eigenvalues(rng, (3, 3), COMPLEX_EIGENVALUES, complex)
        b.case("Eig_complex_grad_%s" % dt.name, lambda re, im: eig_moduli(tf.complex(re, im)),
               [(x.real, dt), (x.imag, dt)], tolerance=tol, atol=atol)
    # eigvals: Eig without v (the gradient runs a second Eig).
    b.case("Eig_values_only", lambda x: [tf.math.real(tf.linalg.eigvals(x)),
                                         tf.math.imag(tf.linalg.eigvals(x))],
           [(_with_eigenvalues(rng, (2, 4, 4), REAL_EIGENVALUES), f64)], tolerance=1e-9,
           atol=1e-10)
    b.case("Eig_values_only_complex",
           lambda x: R.Eig(input=x, Tout=c128, compute_v=False)[0],
           [(_with_eigenvalues(rng, (3, 3), COMPLEX_EIGENVALUES, complex), c128)], tolerance=1e-9,
           atol=1e-10)
    b.case("Eig_empty", lambda x: list(tf.linalg.eig(x)), [(np.zeros((2, 0, 0)), f32)],
           grad=False)

    # -- MatrixLogarithm --------------------------------------------------------------------
    logm_values = [1.5 + 0.2j, 0.7 - 0.4j, 2.2 + 0.1j, 0.9 + 1.1j]
    for name, shape in [("3", (3, 3)), ("batch", (2, 4, 4)), ("1", (1, 1))]:
        for dt, tol, atol in [(c128, 1e-10, 1e-12), (c64, 1e-4, 1e-5)]:
            b.case("MatrixLogarithm_%s_%s" % (name, dt.name), tf.linalg.logm,
                   [(_with_eigenvalues(rng, shape, logm_values, complex), dt)], tolerance=tol,
                   atol=atol)
    b.case("MatrixLogarithm_spd", tf.linalg.logm, [(_spd(rng, (3, 3)).astype(complex), c128)],
           tolerance=1e-10, atol=1e-12)
    # A negative eigenvalue: the principal branch, i pi.
    b.case("MatrixLogarithm_negative", tf.linalg.logm,
           [(np.diag([-1.0, 2.0]).astype(complex), c128)], tolerance=1e-10, atol=1e-12)
    b.case("MatrixLogarithm_empty", tf.linalg.logm, [(np.zeros((2, 0, 0)), c64)])

    # -- CholeskyGrad -----------------------------------------------------------------------
    def cholesky_factor(shape):
        # The upper triangle is noise: the kernel reads the lower triangles only.
        return np.linalg.cholesky(_spd(rng, shape)) + np.triu(rng.uniform(-5, 5, size=shape), 1)

    # 40 rows: TensorFlow's blocks of 32 columns, the first 8 columns last.
    for name, shape, dtypes in [("4", (4, 4), [(f64, 1e-10, 1e-12), (f32, 1e-4, 1e-5)]),
                                ("batch", (2, 3, 3), [(f64, 1e-10, 1e-12), (f32, 1e-4, 1e-5)]),
                                ("1", (1, 1), [(f64, 1e-10, 1e-12)]),
                                ("blocked", (40, 40), [(f64, 1e-10, 1e-12)])]:
        for dt, tol, atol in dtypes:
            b.case("CholeskyGrad_%s_%s" % (name, dt.name),
                   lambda l, g: R.CholeskyGrad(l=l, grad=g),
                   [(cholesky_factor(shape), dt), (rng.uniform(-1, 1, size=shape), dt)],
                   grad=False, tolerance=tol, atol=atol)
    b.case("CholeskyGrad_empty", lambda l, g: R.CholeskyGrad(l=l, grad=g),
           [(np.zeros((0, 0)), f64), (np.zeros((0, 0)), f64)], grad=False)

    # -- BandedTriangularSolve --------------------------------------------------------------
    bts = tf.linalg.banded_triangular_solve
    for lower in (True, False):
        for adjoint in (False, True):
            tag = "%s%s" % ("lower" if lower else "upper", "_adjoint" if adjoint else "")
            for dt, tol, atol in [(f64, 1e-10, 1e-12), (f32, 1e-4, 1e-5)]:
                b.case("BandedTriangularSolve_%s_%s" % (tag, dt.name),
                       lambda a, r, lo=lower, ad=adjoint: bts(a, r, lower=lo, adjoint=ad),
                       [(_bands(rng, (2, 3, 5), lower), dt), (rng.uniform(-1, 1, (2, 5, 2)), dt)],
                       tolerance=tol, atol=atol)
            for dt, tol, atol in [(c128, 1e-10, 1e-12), (c64, 1e-4, 1e-5)]:
                b.case("BandedTriangularSolve_%s_%s" % (tag, dt.name),
                       lambda a, r, lo=lower, ad=adjoint: bts(a, r, lower=lo, adjoint=ad),
                       [(_bands(rng, (3, 4), lower, complex), dt),
                        (rng.uniform(-1, 1, (4, 2)) + 1j * rng.uniform(-1, 1, (4, 2)), dt)],
                       tolerance=tol, atol=atol)
            # The complex gradient, through tf.complex of the parts.
            a = _bands(rng, (2, 4), lower, complex)
            r = rng.uniform(-1, 1, (4, 3)) + 1j * rng.uniform(-1, 1, (4, 3))

            def complex_solve(ar, ai, rr, ri, lo=lower, ad=adjoint):
                y = bts(tf.complex(ar, ai), tf.complex(rr, ri), lower=lo, adjoint=ad)
                return [tf.math.real(y), tf.math.imag(y)]

            b.case("BandedTriangularSolve_%s_complex_grad" % tag, complex_solve,
                   [(a.real, f64), (a.imag, f64), (r.real, f64), (r.imag, f64)],
                   tolerance=1e-10, atol=1e-12)
    # Broadcast batches (the gradients summed back), all bands, one band.
    b.case("BandedTriangularSolve_broadcast", lambda a, r: bts(a, r),
           [(_bands(rng, (2, 1, 2, 4), True), f64), (rng.uniform(-1, 1, (3, 4, 3)), f64)],
           tolerance=1e-10, atol=1e-12)
    b.case("BandedTriangularSolve_broadcast_rhs", lambda a, r: bts(a, r, lower=False),
           [(_bands(rng, (2, 4), False), f64), (rng.uniform(-1, 1, (3, 4, 2)), f64)],
           tolerance=1e-10, atol=1e-12)
    b.case("BandedTriangularSolve_full_bands", lambda a, r: bts(a, r, adjoint=True),
           [(_bands(rng, (4, 4), True), f64), (rng.uniform(-1, 1, (4, 2)), f64)],
           tolerance=1e-10, atol=1e-12)
    # One band (a diagonal): TensorFlow's gradient fails its shape check unless broadcast.
    b.case("BandedTriangularSolve_one_band", lambda a, r: bts(a, r, lower=False),
           [(_bands(rng, (1, 4), False), f64), (rng.uniform(-1, 1, (4, 2)), f64)], grad=False,
           tolerance=1e-10, atol=1e-12)
    b.case("BandedTriangularSolve_one_band_broadcast", lambda a, r: bts(a, r),
           [(_bands(rng, (1, 1, 3), True), f64), (rng.uniform(-1, 1, (2, 3, 2)), f64)],
           tolerance=1e-10, atol=1e-12)
    # A zero on the second matrix's diagonal: TensorFlow checks the first one only.
    singular = _bands(rng, (2, 2, 3), True)
    singular[1, 0, 1] = 0.0
    b.case("BandedTriangularSolve_unchecked_zero", lambda a, r: bts(a, r),
           [(singular, f64), (np.ones((3, 1)), f64)], grad=False)
