"""Fixture cases of the misc_math family (make_op_fixtures.Builder): the special functions
Asinh, Acosh, Atanh, Lgamma, Digamma, Erfinv, Ndtri, Polygamma and Zeta, ClipByValue,
ApproximateEqual, Roll, LinSpace, Cross, the bitwise ops, UniqueWithCounts, UniqueV2,
UniqueWithCountsV2, Bincount, DenseBincount, and the seeded RandomUniformInt and Multinomial
(whose values follow TensorFlow's Philox streams exactly)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

INF, NAN = float("inf"), float("nan")


def build_misc_math(b):
    f32, f64, bf16 = tf.float32, tf.float64, tf.bfloat16
    i32, i64, u8 = tf.int32, tf.int64, tf.uint8
    rng = b.rng

    # -- unary special functions: edge values (domain ends, poles, signed zeros), then smooth
    # values with gradients.
    edges = {
        "Asinh": [0.0, -0.0, 1.0, -1.0, 1e-30, 1e30, -1e30, INF, -INF, NAN],
        "Acosh": [1.0, 0.999, 0.0, -1.0, 2.0, 1e30, INF, -INF, NAN],
        "Atanh": [-1.0, 1.0, -0.0, 0.0, 0.5, -0.999, 1.5, -2.0, INF, NAN],
        "Lgamma": [0.0, -0.0, -1.0, -2.0, -2.5, -0.5, 1.0, 2.0, 0.5, 1e-30, -1e-30, 171.6, 1e6,
                   INF, -INF, NAN],
        "Digamma": [0.0, -0.0, -1.0, -2.0, -2.5, -0.5, 1.0, 2.0, 0.5, 1e-6, 1e6, INF, -INF, NAN],
        "Erfinv": [-1.0, 1.0, 0.0, -0.0, 0.5, -0.999, 0.999999, 1.5, -2.0, INF, NAN],
        "Ndtri": [0.0, 1.0, 0.5, 1e-10, 1.0 - 1e-7, 0.025, -0.5, 1.5, INF, NAN],
    }
    smooth = {
        "Asinh": rng.uniform(-3, 3, size=(3, 4)),
        "Acosh": rng.uniform(1.1, 4, size=(3, 4)),
        "Atanh": rng.uniform(-0.9, 0.9, size=(3, 4)),
        "Lgamma": np.concatenate([rng.uniform(0.2, 6, size=6), [-0.5, -1.5, -2.3, -3.7, -0.1, 7.5]]
                                 ).reshape(3, 4),
        "Digamma": np.concatenate([rng.uniform(0.2, 6, size=8), [-0.5, -1.5, -2.3, -3.7]]
                                  ).reshape(3, 4),
        "Erfinv": rng.uniform(-0.9, 0.9, size=(3, 4)),
        "Ndtri": rng.uniform(0.05, 0.95, size=(3, 4)),
    }
    fns = {"Asinh": tf.math.asinh, "Acosh": tf.math.acosh, "Atanh": tf.math.atanh,
           "Lgamma": tf.math.lgamma, "Digamma": tf.math.digamma, "Erfinv": tf.math.erfinv,
           "Ndtri": tf.math.ndtri}
    for op, fn in fns.items():
        b.case(op + "_edge", fn, [(np.array(edges[op]), f32)], grad=False)
        b.case(op + "_edge_f64", fn, [(np.array(edges[op]), f64)], grad=False)
        b.case(op, fn, [(smooth[op], f32)])
        b.case(op + "_f64", fn, [(smooth[op], f64)])
    for op in ["Asinh", "Acosh", "Atanh"]:
        b.case(op + "_bf16", fns[op], [(smooth[op], bf16)], grad=False, tolerance=1e-2)
    # Polygamma(a, x): orders 0..3 (and a non-integer order: NaN), x broadcast.
    b.case("Polygamma", tf.math.polygamma,
           [(np.array([[0.0], [1.0], [2.0], [3.0]]), f32), (rng.uniform(0.5, 4, size=(1, 5)), f32)])
    b.case("Polygamma_f64", tf.math.polygamma,
           [(np.array([0.0, 1.0, 2.0, 4.0]), f64), (rng.uniform(0.5, 4, size=(3, 4)), f64)])
    b.case("Polygamma_edge", tf.math.polygamma,
           [(np.array([0.0, 1.0, 2.0, -1.0, 1.5, 1.0, 0.0, 1.0]), f32),
            (np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 0.0, INF]), f32)], grad=False)
    # Zeta(x, q): x > 1, q > 0 with gradients to q; poles and bad domains at the edge.
    b.case("Zeta", tf.math.zeta,
           [(rng.uniform(1.5, 4, size=(3, 4)), f32), (rng.uniform(0.5, 3, size=(4,)), f32)])
    b.case("Zeta_f64", tf.math.zeta,
           [(rng.uniform(1.5, 4, size=(3, 4)), f64), (rng.uniform(0.5, 3, size=(3, 4)), f64)])
    b.case("Zeta_edge", tf.math.zeta,
           [(np.array([2.0, 1.0, 0.5, 3.0, 2.0, 2.0]), f32),
            (np.array([1.0, 1.0, 1.0, -1.0, -1.5, INF]), f32)], grad=False)

    # uint8 results are compared as int32 (the fixture format has no uint8).
    def widened(fn):
        return lambda *t: tf.cast(fn(*t), tf.int32)

    # -- ClipByValue (the raw op: Python's tf.clip_by_value builds Minimum and Maximum).
    def clip(t, lo, hi):
        return R.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi)

    x = rng.uniform(-3, 3, size=(3, 4))
    b.case("ClipByValue_scalars", clip, [(x, f32), (-1.0, f32), (1.5, f32)])
    b.case("ClipByValue_tensors", clip,
           [(x, f32), (rng.uniform(-2, 0, size=(3, 4)), f32), (rng.uniform(0, 2, size=(3, 4)), f32)])
    b.case("ClipByValue_min_tensor", clip,
           [(x, f64), (rng.uniform(-2, 0, size=(3, 4)), f64), (1.0, f64)])
    b.case("ClipByValue_max_tensor", clip,
           [(x, f32), (-0.5, f32), (rng.uniform(0, 2, size=(3, 4)), f32)])
    b.case("ClipByValue_edge", clip,
           [(np.array([NAN, INF, -INF, -0.0, 0.0, 2.0]), f32), (-1.0, f32), (1.0, f32)],
           grad=False)
    b.case("ClipByValue_int32", clip,
           [(np.array([-5, 0, 3, 9, 2**31 - 1]), i32), (-2, i32), (4, i32)], exact=True)
    b.case("ClipByValue_uint8", widened(clip), [(np.array([0, 7, 200, 255]), u8), (5, u8), (201, u8)],
           exact=True)
    b.case("ClipByValue_bf16", clip, [(x, bf16), (-1.0, bf16), (1.0, bf16)], grad=False)
    b.case("ClipByValue_empty", clip, [(np.zeros((0, 3)), f32), (0.0, f32), (1.0, f32)])

    # -- ApproximateEqual
    y = np.array([1.0, 1.0, 1.0, 1.0, NAN, INF])
    z = np.array([1.0, 1.000001, 1.0001, 0.99999, NAN, INF])
    b.case("ApproximateEqual", lambda a, c: R.ApproximateEqual(x=a, y=c), [(y, f32), (z, f32)],
           exact=True)
    b.case("ApproximateEqual_tol", lambda a, c: R.ApproximateEqual(x=a, y=c, tolerance=0.01),
           [(y, f64), (z, f64)], exact=True)

    # -- Roll
    m = rng.uniform(-1, 1, size=(3, 4, 2))
    b.case("Roll", lambda t: tf.roll(t, shift=[1, -3], axis=[0, 1]), [(m, f32)])
    b.case("Roll_repeated_axis", lambda t: tf.roll(t, shift=[2, 3, -7], axis=[1, 1, -1]),
           [(m, f64)])
    b.case("Roll_big_shift", lambda t: tf.roll(t, shift=1000003, axis=0), [(m, f32)])
    b.case("Roll_int64_shift",
           lambda t: R.Roll(input=t, shift=tf.constant([5], tf.int64),
                            axis=tf.constant([-2], tf.int64)),
           [(np.arange(12).reshape(3, 4), i32)], exact=True)
    b.case("Roll_string", lambda t: tf.roll(t, shift=1, axis=0),
           [(np.array([b"a", b"b", b"c"]), tf.string)], exact=True)
    b.case("Roll_empty", lambda t: tf.roll(t, shift=1, axis=1), [(np.zeros((2, 0)), f32)])

    # -- LinSpace
    b.case("LinSpace", lambda a, c: R.LinSpace(start=a, stop=c, num=7), [(-1.0, f32), (2.0, f32)],
           grad=False)
    b.case("LinSpace_f64_int64", lambda a, c: R.LinSpace(start=a, stop=c,
                                                         num=tf.constant(5, tf.int64)),
           [(10.0, f64), (-0.1, f64)], grad=False)
    b.case("LinSpace_one", lambda a, c: R.LinSpace(start=a, stop=c, num=1), [(3.0, f32), (9.0, f32)],
           grad=False)

    # -- Cross
    u = rng.uniform(-2, 2, size=(2, 3, 3))
    v = rng.uniform(-2, 2, size=(2, 3, 3))
    b.case("Cross", tf.linalg.cross, [(u, f32), (v, f32)])
    b.case("Cross_f64", tf.linalg.cross, [(u[0], f64), (v[0], f64)])
    b.case("Cross_int32", tf.linalg.cross,
           [(np.array([[1, 2, 3], [2**30, 3, -7]]), i32), (np.array([[4, 5, 6], [4, 2**30, 1]]), i32)],
           exact=True)

    # -- bitwise ops, broadcasting, shifts out of range
    a32 = np.array([[0, 1, -1, 5, 2**31 - 1, -2**31]])
    b32 = np.array([[3], [-8]])
    for op, fn in {"BitwiseAnd": tf.bitwise.bitwise_and, "BitwiseOr": tf.bitwise.bitwise_or,
                   "BitwiseXor": tf.bitwise.bitwise_xor}.items():
        b.case(op, fn, [(a32, i32), (b32, i32)], exact=True)
        b.case(op + "_int64", fn, [(np.array([2**40 + 5, -3]), i64), (np.array([7, 2**35]), i64)],
               exact=True)
        b.case(op + "_uint8", widened(fn), [(np.array([0, 0xF0, 0xFF]), u8), (np.array([0x0F]), u8)],
               exact=True)
    b.case("Invert", tf.bitwise.invert, [(np.array([0, 1, -1, 2**31 - 1]), i32)], exact=True)
    b.case("Invert_int64", tf.bitwise.invert, [(np.array([0, 2**40, -1]), i64)], exact=True)
    b.case("Invert_uint8", widened(tf.bitwise.invert), [(np.array([0, 1, 255]), u8)], exact=True)
    shifts = np.array([0, 1, 31, 32, 33, 100, -1, -40])
    values = np.array([1, -1, 5, 1, -8, 3, 7, -8])
    b.case("LeftShift", tf.bitwise.left_shift, [(values, i32), (shifts, i32)], exact=True)
    b.case("RightShift", tf.bitwise.right_shift, [(values * 1000, i32), (shifts, i32)], exact=True)
    b.case("LeftShift_int64", tf.bitwise.left_shift,
           [(np.array([1, 1, 1, -3]), i64), (np.array([63, 64, 200, 2]), i64)], exact=True)
    b.case("RightShift_int64", tf.bitwise.right_shift,
           [(np.array([-2**62, 2**62, -1, 9]), i64), (np.array([62, 64, 1, -1]), i64)], exact=True)
    b.case("LeftShift_uint8", widened(tf.bitwise.left_shift),
           [(np.array([1, 1, 255, 3]), u8), (np.array([7, 8, 1, 200]), u8)], exact=True)
    b.case("RightShift_uint8", widened(tf.bitwise.right_shift),
           [(np.array([[255, 255, 128]]), u8), (np.array([[7], [9]]), u8)], exact=True)

    # -- unique values (NaN never equals itself; 0 equals -0)
    def uwc(t):
        return list(tf.unique_with_counts(t))

    b.case("UniqueWithCounts", uwc, [(np.array([4, 1, 4, 4, 2, 1, 7]), i32)], exact=True)
    b.case("UniqueWithCounts_int64_idx",
           lambda t: list(tf.unique_with_counts(t, out_idx=tf.int64)),
           [(np.array([0.0, -0.0, NAN, NAN, 1.5, 0.0]), f32)], exact=True, grad=False)
    b.case("UniqueWithCounts_string", uwc, [(np.array([b"b", b"a", b"b", b""]), tf.string)],
           exact=True)
    b.case("UniqueWithCounts_empty", uwc, [(np.zeros((0,)), i64)], exact=True)

    def unique_v2(axis, counts=False, dtype=tf.int64):
        def fn(t):
            ax = tf.constant(axis, dtype)
            if counts:
                return list(R.UniqueWithCountsV2(x=t, axis=ax))
            return list(R.UniqueV2(x=t, axis=ax))
        return fn

    rows = np.array([[1, 2, 1], [3, 4, 3], [1, 2, 1], [5, 6, 5]])
    b.case("UniqueV2_axis0", unique_v2([0]), [(rows, i32)], exact=True)
    b.case("UniqueV2_axis_last", unique_v2([-1], dtype=tf.int32), [(rows, i32)], exact=True)
    b.case("UniqueV2_no_axis", unique_v2([]), [(np.array([3, 3, 1]), i64)], exact=True)
    b.case("UniqueV2_float", unique_v2([1]), [(rows.astype(float), f32)], exact=True, grad=False)
    b.case("UniqueWithCountsV2", unique_v2([0], counts=True), [(rows, i32)], exact=True)
    b.case("UniqueWithCountsV2_3d", unique_v2([1], counts=True),
           [(np.array([[[1, 2], [1, 2], [0, 0]], [[3, 3], [3, 3], [0, 0]]]), i64)], exact=True)

    # -- Bincount and DenseBincount (values at or beyond size are dropped)
    arr = np.array([1, 1, 3, 0, 7, 3, 3])
    w = rng.uniform(0, 1, size=7)
    b.case("Bincount", lambda t: R.Bincount(arr=t, size=5, weights=tf.constant([], tf.float32)),
           [(arr, i32)], exact=True)
    b.case("Bincount_weights", lambda t, ww: R.Bincount(arr=t, size=4, weights=ww),
           [(arr, i32), (w, f32)], grad=False)
    b.case("Bincount_int64_weights", lambda t, ww: R.Bincount(arr=t, size=8, weights=ww),
           [(arr, i32), (np.arange(7), i64)], exact=True)
    b.case("Bincount_2d", lambda t: R.Bincount(arr=t, size=3, weights=tf.constant([], tf.float64)),
           [(np.array([[0, 2], [2, 2]]), i32)], exact=True)
    b.case("Bincount_size0", lambda t: R.Bincount(arr=t, size=0, weights=tf.constant([], tf.int32)),
           [(arr, i32)], exact=True)
    b.case("DenseBincount", lambda t, ww: R.DenseBincount(input=t, size=4, weights=ww),
           [(arr, i64), (w, f64)], grad=False)
    b.case("DenseBincount_2d",
           lambda t: R.DenseBincount(input=t, size=tf.constant(5), weights=tf.constant([], tf.int32)),
           [(np.array([[1, 1, 4], [0, 9, 4]]), i32)], exact=True)
    b.case("DenseBincount_2d_weights", lambda t, ww: R.DenseBincount(input=t, size=5, weights=ww),
           [(np.array([[1, 1, 4], [0, 9, 4]]), i32), (np.arange(6).reshape(2, 3), f32)],
           grad=False)
    b.case("DenseBincount_binary",
           lambda t: R.DenseBincount(input=t, size=5, weights=tf.constant([], tf.float32),
                                     binary_output=True),
           [(np.array([[1, 1, 4], [0, 9, 4]]), i32)], exact=True)

    # -- seeded sampling: TensorFlow's Philox streams, exact (first run of each kernel)
    b.case("RandomUniformInt", lambda lo, hi: R.RandomUniformInt(shape=[3, 5], minval=lo,
                                                                 maxval=hi, seed=7, seed2=11),
           [(-3, i32), (10, i32)], exact=True)
    b.case("RandomUniformInt_int64", lambda lo, hi: R.RandomUniformInt(
        shape=tf.constant([7], tf.int64), minval=lo, maxval=hi, seed=1, seed2=2),
           [(-2**40, i64), (2**50, i64)], exact=True)
    b.case("RandomUniformInt_wide", lambda lo, hi: R.RandomUniformInt(shape=[6], minval=lo,
                                                                      maxval=hi, seed=5, seed2=0),
           [(-2**31, i32), (2**31 - 1, i32)], exact=True)
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [1.0, 1.0, 1.0, 1.0]]))
    b.case("Multinomial", lambda l: R.Multinomial(logits=l, num_samples=10, seed=3, seed2=4),
           [(logits, f32)], exact=True, grad=False)
    b.case("Multinomial_int32_f64",
           lambda l: R.Multinomial(logits=l, num_samples=5, seed=9, seed2=1,
                                   output_dtype=tf.int32),
           [(logits[:2], f64)], exact=True, grad=False)
    b.case("Multinomial_nonfinite",
           lambda l: R.Multinomial(logits=l, num_samples=7, seed=2, seed2=8),
           [(np.array([[-INF, 0.0, NAN, 1.0], [INF, 0.0, 0.0, -INF]]), f32)], exact=True,
           grad=False)
