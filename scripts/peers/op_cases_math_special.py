"""Fixture cases of the math_special family (make_op_fixtures.Builder): MulNoNan, Xlog1py,
NextAfter, Igamma, Igammac, IgammaGradA, Betainc, the Bessel functions (I0, I0e, I1, I1e, J0,
J1, K0, K0e, K1, K1e, Y0, Y1), Dawsn, Expint, FresnelCos, FresnelSin, Spence,
PopulationCount and EuclideanNorm: values on broadcast shapes, edge values (zeros, signed
zeros, negatives, poles, infinities, NaN) run forward only, and the gradients TensorFlow
registers on smooth inputs inside each function's domain.

TensorFlow evaluates the Bessel functions with Eigen's packets on whole SIMD packets of a
tensor and with the scalar form on the rest; the two differ in the last bits, and at a few
edge values (0, +-inf) in more. The edge values therefore go through the ops one element at
a time (Unpack, the op per element, Pack), where TensorFlow takes the scalar form, as
actorflow does everywhere; the smooth cases carry an absolute tolerance for the last bits.
"""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

INF, NAN = float("inf"), float("nan")


def build_math_special(b):
    f32, f64, bf16 = tf.float32, tf.float64, tf.bfloat16
    i32, i64, u8 = tf.int32, tf.int64, tf.uint8
    rng = b.rng

    def per_element(fn):
        """fn applied to each element of a vector alone (TensorFlow's scalar path)."""
        return lambda x: tf.stack([fn(e) for e in tf.unstack(x)])

    # -- MulNoNan ------------------------------------------------------------------------
    x = rng.uniform(-2, 2, size=(3, 4))
    y = rng.uniform(-2, 2, size=(4,))
    y[1] = 0.0
    b.case("MulNoNan", tf.math.multiply_no_nan, [(x, f32), (y, f32)])
    b.case("MulNoNan_f64", tf.math.multiply_no_nan,
           [(x, f64), (rng.uniform(-2, 2, size=(3, 4)), f64)])
    b.case("MulNoNan_scalar_y", tf.math.multiply_no_nan, [(x, f32), (0.0, f32)])
    b.case("MulNoNan_bf16", tf.math.multiply_no_nan, [(x, bf16), (y, bf16)], grad=False,
           tolerance=1e-2)
    b.case("MulNoNan_edge", tf.math.multiply_no_nan,
           [(np.array([INF, NAN, 0.0, 2.0, -0.0, 3.0, NAN, -INF]), f32),
            (np.array([0.0, 0.0, NAN, -0.0, 5.0, INF, 2.0, -0.0]), f32)], grad=False, exact=True)
    b.case("MulNoNan_edge_f64", tf.math.multiply_no_nan,
           [(np.array([INF, NAN, 0.0, 2.0, -0.0, 3.0]), f64),
            (np.array([0.0, 0.0, NAN, -0.0, 5.0, INF]), f64)], grad=False, exact=True)

    # -- Xlog1py -------------------------------------------------------------------------
    x = rng.uniform(-2, 2, size=(3, 4))
    x[0, 2] = 0.0
    b.case("Xlog1py", tf.math.xlog1py, [(x, f32), (rng.uniform(-0.8, 3, size=(4,)), f32)])
    b.case("Xlog1py_f64", tf.math.xlog1py,
           [(rng.uniform(-2, 2, size=(2, 1, 3)), f64), (rng.uniform(-0.8, 3, size=(4, 1)), f64)])
    b.case("Xlog1py_bf16", tf.math.xlog1py,
           [(x, bf16), (rng.uniform(-0.8, 3, size=(4,)), bf16)], grad=False, tolerance=2e-2)
    xe = np.array([0.0, 0.0, 0.0, -0.0, 2.0, 2.0, 2.0, -0.0, 1.0, NAN, 1.0])
    ye = np.array([NAN, -1.0, -2.0, 3.0, -1.0, INF, -INF, -2.0, NAN, 1.0, 1e-30])
    b.case("Xlog1py_edge", tf.math.xlog1py, [(xe, f32), (ye, f32)], grad=False)
    b.case("Xlog1py_edge_f64", tf.math.xlog1py, [(xe, f64), (ye, f64)], grad=False)

    # -- NextAfter -----------------------------------------------------------------------
    b.case("NextAfter", tf.math.nextafter,
           [(rng.uniform(-2, 2, size=(3, 4)), f32), (rng.uniform(-2, 2, size=(4,)), f32)])
    b.case("NextAfter_f64", tf.math.nextafter,
           [(rng.uniform(-2, 2, size=(3, 1)), f64), (rng.uniform(-2, 2, size=(1, 4)), f64)])
    x1 = np.array([0.0, 0.0, 1.0, 1.0, NAN, INF, -INF, -0.0, 1e-45, 2.0, 1.0, 3.4e38])
    x2 = np.array([1.0, -1.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, NAN, 1.0, INF])
    b.case("NextAfter_edge", tf.math.nextafter, [(x1, f32), (x2, f32)], grad=False, exact=True)
    x1[8], x1[11] = 5e-324, 1.7e308
    b.case("NextAfter_edge_f64", tf.math.nextafter, [(x1, f64), (x2, f64)], grad=False,
           exact=True)

    # -- Igamma, Igammac, IgammaGradA ------------------------------------------------------
    a = rng.uniform(0.5, 4, size=(3, 4))
    xs = rng.uniform(0.2, 5, size=(4,))
    for op, fn in [("Igamma", tf.math.igamma), ("Igammac", tf.math.igammac)]:
        b.case(op, fn, [(a, f32), (xs, f32)], tolerance=2e-5)
        b.case(op + "_f64", fn, [(rng.uniform(0.5, 4, size=(2, 1)), f64),
                                 (rng.uniform(0.2, 5, size=(1, 3)), f64)], tolerance=1e-10)
        b.case(op + "_scalar_a", fn, [(1.5, f64), (rng.uniform(0.2, 5, size=(5,)), f64)],
               tolerance=1e-10)
    ae = np.array([0.0, 1.0, 1.0, -1.0, INF, 1.0, NAN, 2.0, 0.5, 2.0, 0.0, 0.0, 1e-3, 50.0])
    xe = np.array([1.0, 0.0, INF, 1.0, 1.0, -1.0, 1.0, NAN, 1e-3, 1e3, 0.0, INF, 1e-3, 49.0])
    for op, fn in [("Igamma", tf.math.igamma), ("Igammac", tf.math.igammac),
                   ("IgammaGradA", lambda p, q: R.IgammaGradA(a=p, x=q))]:
        b.case(op + "_edge", fn, [(ae, f32), (xe, f32)], grad=False, tolerance=2e-5)
        b.case(op + "_edge_f64", fn, [(ae, f64), (xe, f64)], grad=False, tolerance=1e-10)
    b.case("IgammaGradA", lambda p, q: R.IgammaGradA(a=p, x=q),
           [(a, f32), (xs, f32)], grad=False, tolerance=2e-5)
    b.case("IgammaGradA_f64", lambda p, q: R.IgammaGradA(a=p, x=q),
           [(a, f64), (xs, f64)], grad=False, tolerance=1e-10)

    # -- Betainc: each input a scalar or of the one shape ---------------------------------
    sa, sb, sx = (rng.uniform(0.5, 4, size=(3, 4)), rng.uniform(0.5, 4, size=(3, 4)),
                  rng.uniform(0.05, 0.95, size=(3, 4)))
    b.case("Betainc", tf.math.betainc, [(sa, f32), (sb, f32), (sx, f32)], tolerance=2e-5)
    b.case("Betainc_f64", tf.math.betainc, [(sa, f64), (sb, f64), (sx, f64)], tolerance=1e-10)
    b.case("Betainc_scalar_a", tf.math.betainc, [(2.5, f64), (sb, f64), (sx, f64)],
           tolerance=1e-10)
    b.case("Betainc_scalar_x", tf.math.betainc, [(sa, f64), (sb, f64), (0.3, f64)],
           tolerance=1e-10)
    b.case("Betainc_scalar_a_b", tf.math.betainc, [(1.5, f32), (2.0, f32), (sx, f32)],
           tolerance=2e-5)
    b.case("Betainc_scalars", tf.math.betainc, [(1.5, f64), (2.0, f64), (0.25, f64)],
           tolerance=1e-10)
    ae = np.array([1.0, 0.0, 1.0, -1.0, 2.0, 2.0, 2.0, 2.0, NAN, INF, 0.5, 1e-3, 0.1, 200.0])
    be = np.array([1.0, 1.0, 0.0, 1.0, 3.0, 3.0, 3.0, 3.0, 1.0, 1.0, 0.5, 1e3, 0.1, 300.0])
    xe = np.array([0.5, 0.5, 0.5, 0.5, 0.0, 1.0, -0.1, 1.1, 0.5, 0.5, 0.25, 0.5, 0.99, 0.4])
    b.case("Betainc_edge", tf.math.betainc, [(ae, f32), (be, f32), (xe, f32)], grad=False,
           tolerance=2e-5)
    b.case("Betainc_edge_f64", tf.math.betainc, [(ae, f64), (be, f64), (xe, f64)], grad=False,
           tolerance=1e-10)
    b.case("Betainc_empty", tf.math.betainc,
           [(np.zeros((0, 2)), f32), (1.0, f32), (np.zeros((0, 2)), f32)])

    # -- unary special functions -----------------------------------------------------------
    special = tf.math.special
    unary = {
        "BesselI0": (special.bessel_i0, (-3, 3)),
        "BesselI0e": (special.bessel_i0e, (-3, 3)),
        "BesselI1": (special.bessel_i1, (-3, 3)),
        "BesselI1e": (special.bessel_i1e, (-3, 3)),
        "BesselJ0": (special.bessel_j0, (-2.2, 2.2)),
        "BesselJ1": (special.bessel_j1, (-3.5, 3.5)),
        "BesselK0": (special.bessel_k0, (0.2, 4)),
        "BesselK0e": (special.bessel_k0e, (0.2, 4)),
        "BesselK1": (special.bessel_k1, (0.2, 4)),
        "BesselK1e": (special.bessel_k1e, (0.2, 4)),
        "BesselY0": (special.bessel_y0, (1.1, 2.0)),
        "BesselY1": (special.bessel_y1, (0.2, 2.0)),
        "Dawsn": (special.dawsn, (-8, 8)),
        "Expint": (special.expint, (0.1, 70)),
        "FresnelCos": (special.fresnel_cos, (-3, 3)),
        "FresnelSin": (special.fresnel_sin, (-3, 3)),
        "Spence": (special.spence, (0.05, 4)),
    }
    edge = np.array([0.0, -0.0, -1.0, 1e-30, 0.5, 1.0, 1.5, 2.0, 3.3, 6.3, 8.5, -8.5, 30.0,
                     100.0, 700.0, 1e5, 1e10, -1e10, INF, -INF, NAN])
    for op, (fn, (lo, hi)) in unary.items():
        smooth = rng.uniform(lo, hi, size=(3, 4))
        if op in ("BesselI1", "BesselI1e", "BesselJ1"):
            smooth[1, 1] = 0.0  # the x == 0 branch of the gradient
        if op == "Spence":
            smooth[2, 3] = 1.0  # the x == 1 branch of the gradient
        b.case(op, fn, [(smooth, f32)], atol=2e-6)
        b.case(op + "_f64", fn, [(smooth, f64)], atol=1e-14)
        b.case(op + "_edge", per_element(fn), [(edge, f32)], grad=False, tolerance=1e-5)
        b.case(op + "_edge_f64", per_element(fn), [(edge, f64)], grad=False, tolerance=1e-12)
        b.case(op + "_empty", fn, [(np.zeros((2, 0)), f32)])
    # A long vector: TensorFlow's packets and actorflow's scalar form, within a few ulps.
    long = rng.uniform(0.3, 6, size=(40,))
    for op in ("BesselI0", "BesselK1e", "BesselJ1", "Dawsn", "FresnelSin", "Spence"):
        b.case(op + "_long", unary[op][0], [(long, f32)], grad=False, atol=2e-6)

    # -- PopulationCount (uint8 results compared as int32) -----------------------------------
    def popcount(t):
        return tf.cast(R.PopulationCount(x=t), tf.int32)

    b.case("PopulationCount_int32", popcount,
           [(np.array([[0, -1, 7, -2**31], [2**31 - 1, 1, 255, -256]]), i32)], exact=True)
    b.case("PopulationCount_int64", popcount,
           [(np.array([0, -1, 7, -2**63, 2**62 + 3, 1 << 40]), i64)], exact=True)
    b.case("PopulationCount_uint8", popcount, [(np.array([0, 1, 128, 255, 85]), u8)], exact=True)
    b.case("PopulationCount_empty", popcount, [(np.zeros((0,)), i32)], exact=True)

    # -- EuclideanNorm ------------------------------------------------------------------------
    norm = tf.math.reduce_euclidean_norm
    m = rng.uniform(-2, 2, size=(2, 3, 4))
    b.case("EuclideanNorm_axis", lambda t: norm(t, axis=1), [(m, f32)])
    b.case("EuclideanNorm_keepdims", lambda t: norm(t, axis=[0, 2], keepdims=True), [(m, f32)])
    b.case("EuclideanNorm_all", lambda t: norm(t), [(m, f64)])
    b.case("EuclideanNorm_negative_axis", lambda t: norm(t, axis=-1), [(m, f64)])
    b.case("EuclideanNorm_no_axes", lambda t: norm(t, axis=[]), [(m, f32)])
    b.case("EuclideanNorm_size_one", lambda t: norm(t, axis=[1]),
           [(rng.uniform(-2, 2, size=(3, 1, 2)), f32)])
    b.case("EuclideanNorm_int64_axis",
           lambda t: R.EuclideanNorm(input=t, axis=tf.constant([0, 2], tf.int64)), [(m, f64)])
    b.case("EuclideanNorm_bf16", lambda t: norm(t, axis=1), [(m, bf16)], grad=False,
           tolerance=1e-2)
    b.case("EuclideanNorm_empty", lambda t: norm(t, axis=0), [(np.zeros((0, 3)), f32)],
           grad=False)
    b.case("EuclideanNorm_edge", lambda t: norm(t, axis=1),
           [(np.array([[1e20, 1e20], [3.0, 4.0], [INF, 1.0], [NAN, 1.0], [-0.0, 0.0]]), f32)],
           grad=False)
    b.case("EuclideanNorm_int32", lambda t: norm(t, axis=1),
           [(np.array([[3, 4, 0], [-3, 4, 12], [50000, 0, 0], [1, 1, 1]]), i32)], exact=True)
    b.case("EuclideanNorm_int64", lambda t: norm(t),
           [(np.array([2**32, 2**32, 5]), i64)], exact=True)
    b.case("EuclideanNorm_uint8", lambda t: tf.cast(norm(t, axis=0), tf.int32),
           [(np.array([[200, 3], [200, 4]]), u8)], exact=True)
