"""Fixture cases of the matrix family for make_op_fixtures.py: the band and diagonal ops
(MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3}, MatrixSetDiag{,V2,V3}, Diag,
DiagPart) and the linear algebra on Eigen (MatrixInverse, MatrixDeterminant,
LogMatrixDeterminant, Cholesky, MatrixSolve, MatrixTriangularSolve), with each gradient
TensorFlow's Python registers. Gradients run on well-conditioned inputs (diagonally dominant
matrices; symmetric positive definite ones for Cholesky)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops
ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


def _well_conditioned(rng, shape):
    """Matrices [..., n, n] with a dominant diagonal (invertible, condition number small)."""
    n = shape[-1]
    a = rng.uniform(-1.0, 1.0, size=shape)
    return a + np.eye(n) * (n + 1.0) * np.where(rng.uniform(size=shape[:-1] + (1,)) < 0.5, -1, 1)


def _spd(rng, shape):
    """Symmetric positive definite matrices [..., n, n]."""
    n = shape[-1]
    a = rng.uniform(-1.0, 1.0, size=shape)
    return np.matmul(a, np.swapaxes(a, -1, -2)) + np.eye(n) * n


def _triangular(rng, shape, lower):
    a = _well_conditioned(rng, shape)
    return np.tril(a) if lower else np.triu(a)


def _wide(y):
    """uint8 results as int32 (the fixture's encoding has no uint8)."""
    return tf.cast(y, tf.int32)


def build_matrix(b):
    f32, f64, i32, i64, bf16, u8, bl = (tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16,
                                         tf.uint8, tf.bool)
    rng = b.rng
    m34 = rng.uniform(-1, 1, size=(3, 4))
    b234 = rng.uniform(-1, 1, size=(2, 3, 4))
    b243 = rng.uniform(-1, 1, size=(2, 4, 3))

    # -- MatrixBandPart --------------------------------------------------------------------
    for lo, up in [(0, 0), (1, 0), (0, -1), (-1, 0), (-1, -1), (1, 2), (3, 4)]:
        b.case(("MatrixBandPart_%d_%d" % (lo, up)).replace("-", "m"),
               lambda x, lo=lo, up=up: tf.linalg.band_part(x, lo, up), [(b234, f32)])
    b.case("MatrixBandPart_f64_int32_index",
           lambda x: R.MatrixBandPart(input=x, num_lower=np.int32(1), num_upper=np.int32(0)),
           [(b243, f64)])
    b.case("MatrixBandPart_int32", lambda x: tf.linalg.band_part(x, 1, 1),
           [(np.arange(24).reshape(2, 3, 4), i32)], exact=True)
    b.case("MatrixBandPart_int64", lambda x: tf.linalg.band_part(x, 0, 1),
           [(np.arange(12).reshape(4, 3), i64)], exact=True)
    b.case("MatrixBandPart_uint8", lambda x: _wide(tf.linalg.band_part(x, 1, 0)),
           [(np.arange(9).reshape(3, 3), u8)], exact=True)
    b.case("MatrixBandPart_bool", lambda x: tf.linalg.band_part(x, 0, 0),
           [(np.ones((3, 3), bool), bl)], exact=True)
    b.case("MatrixBandPart_bf16", lambda x: tf.linalg.band_part(x, 1, 0),
           [(m34, bf16)], exact=True, grad=False)
    b.case("MatrixBandPart_empty", lambda x: tf.linalg.band_part(x, 1, 0),
           [(np.zeros((0, 3, 3)), f32)])

    # -- MatrixDiag (V1, V2, V3) -----------------------------------------------------------
    b.case("MatrixDiag", lambda d: R.MatrixDiag(diagonal=d), [(b234, f32)])
    b.case("MatrixDiag_int32", lambda d: R.MatrixDiag(diagonal=d),
           [(np.arange(6).reshape(2, 3), i32)], exact=True)
    b.case("MatrixDiag_bool", lambda d: R.MatrixDiag(diagonal=d),
           [([True, False, True], bl)], exact=True)
    b.case("MatrixDiagV2_k1",
           lambda d: R.MatrixDiagV2(diagonal=d, k=1, num_rows=-1, num_cols=-1,
                                    padding_value=np.float32(0)), [(m34, f32)])
    b.case("MatrixDiagV2_range",
           lambda d: R.MatrixDiagV2(diagonal=d, k=[-1, 1], num_rows=-1, num_cols=-1,
                                    padding_value=np.float32(9)),
           [(rng.uniform(-1, 1, size=(2, 3, 3)), f32)])
    for align in ALIGNS:
        b.case("MatrixDiagV3_range_" + align,
               lambda d, align=align: tf.linalg.diag(d, k=(-1, 2), num_rows=4, num_cols=5,
                                                     padding_value=-7, align=align),
               [(rng.uniform(-1, 1, size=(2, 4, 4)), f32)])
        b.case("MatrixDiagV3_sub_" + align,
               lambda d, align=align: tf.linalg.diag(d, k=(-2, -1), align=align),
               [(rng.uniform(-1, 1, size=(2, 3)), f64)])
    b.case("MatrixDiagV3_k_neg2", lambda d: tf.linalg.diag(d, k=-2), [(b234, f32)])
    b.case("MatrixDiagV3_rows_given", lambda d: tf.linalg.diag(d, k=1, num_rows=6),
           [(m34, f32)])
    b.case("MatrixDiagV3_cols_given", lambda d: tf.linalg.diag(d, num_cols=6, padding_value=1),
           [(m34, f64)])
    b.case("MatrixDiagV3_int64_pad", lambda d: tf.linalg.diag(d, k=(0, 1), padding_value=5),
           [(np.arange(12).reshape(2, 2, 3), i64)], exact=True)
    b.case("MatrixDiagV3_uint8", lambda d: _wide(tf.linalg.diag(d, k=1)),
           [(np.arange(3), u8)], exact=True)
    b.case("MatrixDiagV3_bf16", lambda d: tf.linalg.diag(d, k=(-1, 0)),
           [(m34[:2], bf16)], exact=True, grad=False)
    b.case("MatrixDiagV3_empty", lambda d: tf.linalg.diag(d), [(np.zeros((2, 0)), f32)])

    # -- MatrixDiagPart (V1, V2, V3) -------------------------------------------------------
    b.case("MatrixDiagPart", lambda x: R.MatrixDiagPart(input=x), [(b234, f32)])
    b.case("MatrixDiagPart_square", lambda x: R.MatrixDiagPart(input=x),
           [(rng.uniform(-1, 1, size=(2, 3, 3)), f64)])
    b.case("MatrixDiagPart_int32", lambda x: R.MatrixDiagPart(input=x),
           [(np.arange(24).reshape(2, 4, 3), i32)], exact=True)
    b.case("MatrixDiagPartV2_range",
           lambda x: R.MatrixDiagPartV2(input=x, k=[-1, 2], padding_value=np.float32(3)),
           [(b234, f32)])
    b.case("MatrixDiagPartV2_k",
           lambda x: R.MatrixDiagPartV2(input=x, k=-1, padding_value=np.float32(0)),
           [(b243, f32)])
    for align in ALIGNS:
        b.case("MatrixDiagPartV3_range_" + align,
               lambda x, align=align: tf.linalg.diag_part(x, k=(-2, 1), padding_value=9,
                                                          align=align), [(b234, f32)])
        b.case("MatrixDiagPartV3_tall_" + align,
               lambda x, align=align: tf.linalg.diag_part(x, k=(-3, 2), align=align),
               [(b243, f64)])
    b.case("MatrixDiagPartV3_k2", lambda x: tf.linalg.diag_part(x, k=2), [(b234, f32)])
    b.case("MatrixDiagPartV3_bool", lambda x: tf.linalg.diag_part(x, k=(0, 1)),
           [(np.arange(12).reshape(3, 4) % 3 == 0, bl)], exact=True)
    b.case("MatrixDiagPartV3_int64", lambda x: tf.linalg.diag_part(x, k=-1, padding_value=4),
           [(np.arange(12).reshape(4, 3), i64)], exact=True)
    b.case("MatrixDiagPartV3_empty", lambda x: tf.linalg.diag_part(x), [(np.zeros((3, 0, 2)), f32)])

    # -- MatrixSetDiag (V1, V2, V3) --------------------------------------------------------
    b.case("MatrixSetDiag", lambda x, d: R.MatrixSetDiag(input=x, diagonal=d),
           [(b234, f32), (rng.uniform(-1, 1, size=(2, 3)), f32)])
    b.case("MatrixSetDiag_int32", lambda x, d: R.MatrixSetDiag(input=x, diagonal=d),
           [(np.arange(12).reshape(4, 3), i32), ([7, 8, 9], i32)], exact=True)
    b.case("MatrixSetDiagV2_range", lambda x, d: R.MatrixSetDiagV2(input=x, diagonal=d, k=[-1, 1]),
           [(b234, f32), (rng.uniform(-1, 1, size=(2, 3, 3)), f32)])
    for align in ALIGNS:
        b.case("MatrixSetDiagV3_range_" + align,
               lambda x, d, align=align: tf.linalg.set_diag(x, d, k=(-1, 2), align=align),
               [(b234, f32), (rng.uniform(-1, 1, size=(2, 4, 3)), f32)])
        b.case("MatrixSetDiagV3_tall_" + align,
               lambda x, d, align=align: tf.linalg.set_diag(x, d, k=(-2, 0), align=align),
               [(b243, f64), (rng.uniform(-1, 1, size=(2, 3, 3)), f64)])
    b.case("MatrixSetDiagV3_k1", lambda x, d: tf.linalg.set_diag(x, d, k=1),
           [(m34, f32), (rng.uniform(-1, 1, size=(3,)), f32)])
    b.case("MatrixSetDiagV3_bool", lambda x, d: tf.linalg.set_diag(x, d),
           [(np.zeros((2, 2), bool), bl), ([True, True], bl)], exact=True)
    b.case("MatrixSetDiagV3_uint8", lambda x, d: _wide(tf.linalg.set_diag(x, d, k=-1)),
           [(np.arange(9).reshape(3, 3), u8), ([100, 200], u8)], exact=True)

    # -- Diag, DiagPart --------------------------------------------------------------------
    b.case("Diag", tf.linalg.tensor_diag, [(rng.uniform(-1, 1, size=(3,)), f32)])
    b.case("Diag_rank2", tf.linalg.tensor_diag, [(rng.uniform(-1, 1, size=(2, 3)), f64)])
    b.case("Diag_int64", tf.linalg.tensor_diag, [([[1, 2], [3, 4]], i64)], exact=True)
    b.case("DiagPart", tf.linalg.tensor_diag_part, [(rng.uniform(-1, 1, size=(3, 3)), f32)])
    b.case("DiagPart_rank4", tf.linalg.tensor_diag_part,
           [(rng.uniform(-1, 1, size=(2, 3, 2, 3)), f64)])
    b.case("DiagPart_int32", tf.linalg.tensor_diag_part,
           [(np.arange(16).reshape(4, 4), i32)], exact=True)

    # -- linear algebra --------------------------------------------------------------------
    for dt, tol in [(f32, 2e-4), (f64, 1e-9)]:
        sfx = "" if dt == f32 else "_f64"
        for adj in [False, True]:
            a = "_adjoint" if adj else ""
            b.case("MatrixInverse" + a + sfx, lambda x, adj=adj: tf.linalg.inv(x, adjoint=adj),
                   [(_well_conditioned(rng, (2, 3, 3)), dt)], tolerance=tol)
            b.case("MatrixSolve" + a + sfx,
                   lambda m, r, adj=adj: tf.linalg.solve(m, r, adjoint=adj),
                   [(_well_conditioned(rng, (2, 3, 3)), dt),
                    (rng.uniform(-1, 1, size=(2, 3, 2)), dt)], tolerance=tol)
            for lower in [True, False]:
                lw = "_lower" if lower else "_upper"
                b.case("MatrixTriangularSolve" + lw + a + sfx,
                       lambda m, r, lower=lower, adj=adj: tf.linalg.triangular_solve(
                           m, r, lower=lower, adjoint=adj),
                       [(_triangular(rng, (2, 4, 4), lower), dt),
                        (rng.uniform(-1, 1, size=(2, 4, 3)), dt)], tolerance=tol)
        b.case("MatrixDeterminant" + sfx, tf.linalg.det,
               [(_well_conditioned(rng, (2, 3, 3)), dt)], tolerance=tol)
        b.case("LogMatrixDeterminant" + sfx, lambda x: list(tf.linalg.slogdet(x)),
               [(_well_conditioned(rng, (2, 2, 3, 3)), dt)], tolerance=tol)
        b.case("Cholesky" + sfx, tf.linalg.cholesky, [(_spd(rng, (2, 4, 4)), dt)], tolerance=tol)
    b.case("MatrixInverse_single", tf.linalg.inv, [(_well_conditioned(rng, (4, 4)), f64)],
           tolerance=1e-9)
    b.case("MatrixSolve_single_column", tf.linalg.solve,
           [(_well_conditioned(rng, (3, 3)), f64), (rng.uniform(-1, 1, size=(3, 1)), f64)],
           tolerance=1e-9)
    b.case("MatrixDeterminant_single", tf.linalg.det, [(_well_conditioned(rng, (4, 4)), f64)],
           tolerance=1e-9)
    b.case("Cholesky_single", tf.linalg.cholesky, [(_spd(rng, (3, 3)), f64)], tolerance=1e-9)
    # Broadcast batch dimensions: one matrix for a batch of right-hand sides and back.
    b.case("MatrixTriangularSolve_broadcast_matrix",
           lambda m, r: tf.linalg.triangular_solve(m, r),
           [(_triangular(rng, (3, 3), True), f64), (rng.uniform(-1, 1, size=(2, 3, 2)), f64)],
           tolerance=1e-9)
    b.case("MatrixTriangularSolve_broadcast_rhs",
           lambda m, r: tf.linalg.triangular_solve(m, r, lower=False, adjoint=True),
           [(_triangular(rng, (2, 1, 3, 3), False), f64),
            (rng.uniform(-1, 1, size=(3, 3, 1)), f64)], tolerance=1e-9)
    # Exact singularity and special values, forward only.
    b.case("MatrixDeterminant_singular", tf.linalg.det,
           [([[1.0, 2.0], [2.0, 4.0]], f64)], grad=False)
    b.case("LogMatrixDeterminant_singular", lambda x: list(tf.linalg.slogdet(x)),
           [([[[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]], f32)], grad=False)
    b.case("MatrixDeterminant_empty", tf.linalg.det, [(np.zeros((2, 0, 0)), f32)], grad=False)
    b.case("LogMatrixDeterminant_empty", lambda x: list(tf.linalg.slogdet(x)),
           [(np.zeros((0, 0)), f64)], grad=False)
    b.case("MatrixInverse_empty", tf.linalg.inv, [(np.zeros((2, 0, 0)), f32)], grad=False)
    b.case("Cholesky_empty", tf.linalg.cholesky, [(np.zeros((0, 0)), f64)], grad=False)
    b.case("MatrixSolve_empty_rhs", tf.linalg.solve,
           [(np.eye(2), f32), (np.zeros((2, 0)), f32)], grad=False)
    b.case("MatrixTriangularSolve_empty_batch", tf.linalg.triangular_solve,
           [(np.zeros((0, 2, 2)), f32), (np.zeros((0, 2, 1)), f32)], grad=False)
    b.case("MatrixTriangularSolve_singular", tf.linalg.triangular_solve,
           [([[0.0, 0.0], [1.0, 1.0]], f64), ([[1.0], [1.0]], f64)], grad=False)
