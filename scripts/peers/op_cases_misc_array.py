"""Fixture cases of the misc_array family (make_op_fixtures.Builder): Bucketize,
HistogramFixedWidth, CumulativeLogsumexp (with its gradient), BroadcastArgs, EnsureShape,
Snapshot, the FakeQuantWithMinMax{Args,Vars,VarsPerChannel} ops and their *Gradient ops
(forward values, and the gradients tf.gradients builds from the *Gradient ops), and Print /
PrintV2 (the pass-through output; what they write is checked by
tests/conformance/misc_array_ops_test.cpp)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

INF, NAN = float("inf"), float("nan")


def build_misc_array(b):
    f32, f64, bf16 = tf.float32, tf.float64, tf.bfloat16
    i32, i64 = tf.int32, tf.int64
    rng = b.rng

    # -- Bucketize: values on, between and beyond the boundaries; NaN past the last.
    bounds = [-1.0, 0.0, 0.5, 3.0]
    edge = np.array([-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 2.9, 3.0, 4.0, NAN, INF, -INF, -0.0])
    b.case("Bucketize", lambda x: R.Bucketize(input=x, boundaries=bounds), [(edge, f32)],
           exact=True)
    b.case("Bucketize_f64", lambda x: R.Bucketize(input=x, boundaries=[0.1, 0.2, 0.30000001]),
           [(np.array([[0.1, 0.2], [0.3, 0.30000001]]), f64)], exact=True)
    b.case("Bucketize_int32", lambda x: R.Bucketize(input=x, boundaries=[-5.0, 0.0, 2.5, 10.0]),
           [(np.array([[-6, -5, 0], [2, 3, 10]]), i32)], exact=True)
    b.case("Bucketize_int64", lambda x: R.Bucketize(input=x, boundaries=[1e10, 3e10]),
           [(np.array([9999999999, 10000000000, 10000000001, 2 ** 40]), i64)], exact=True)
    b.case("Bucketize_no_boundaries", lambda x: R.Bucketize(input=x, boundaries=[]),
           [(np.array([1.0, -1.0]), f32)], exact=True)
    b.case("Bucketize_empty", lambda x: R.Bucketize(input=x, boundaries=bounds),
           [(np.zeros((0, 3)), f32)], exact=True)
    b.case("Bucketize_repeated", lambda x: R.Bucketize(input=x, boundaries=[0.0, 1.0, 1.0, 2.0]),
           [(np.array([0.5, 1.0, 1.5]), f32)], exact=True)

    # -- HistogramFixedWidth: below, on the edges of, and above the range; both out types.
    hv = np.array([[-1.0, 0.0, 1.5, 2.0], [5.0, 15.0, 4.999, INF], [-INF, 1.0, 0.999, 3.0]])
    b.case("HistogramFixedWidth",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=5), [(hv, f32), ([0.0, 5.0], f32)],
           exact=True)
    b.case("HistogramFixedWidth_int64",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=3, dtype=tf.int64),
           [(hv, f64), ([-1.0, 2.0], f64)], exact=True)
    b.case("HistogramFixedWidth_int32_values",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=4),
           [(np.array([-3, 0, 1, 2, 3, 4, 7, 100]), i32), ([0, 7], i32)], exact=True)
    b.case("HistogramFixedWidth_int64_values",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=2, dtype=tf.int64),
           [(np.array([-2 ** 40, 0, 2 ** 40]), i64), ([-10, 10], i64)], exact=True)
    b.case("HistogramFixedWidth_one_bin",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=1),
           [(rng.uniform(-1, 1, size=7), f32), ([-0.5, 0.5], f32)], exact=True)
    b.case("HistogramFixedWidth_empty",
           lambda v, r: tf.histogram_fixed_width(v, r, nbins=3),
           [(np.zeros((0,)), f32), ([0.0, 1.0], f32)], exact=True)
    b.case("HistogramFixedWidth_nbins_tensor",
           lambda v, r, n: R.HistogramFixedWidth(values=v, value_range=r, nbins=n),
           [(rng.uniform(0, 10, size=(4, 5)), f32), ([0.0, 10.0], f32), (6, i32)], exact=True)

    # -- CumulativeLogsumexp: every axis / exclusive / reverse on a cube, with gradients.
    cube = rng.uniform(-2, 2, size=(2, 3, 4))
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                name = "CumulativeLogsumexp_%d_%s%s" % (axis % 3, "x" if exclusive else "",
                                                        "r" if reverse else "")
                b.case(name, lambda x, a=axis, e=exclusive, r=reverse:
                       tf.math.cumulative_logsumexp(x, axis=a, exclusive=e, reverse=r),
                       [(cube, f32)], tolerance=2e-5)
    # A gradient with negative entries (the negative part of _CumulativeLogsumexpGrad).
    signs = np.array([[1.0, -1.0, 0.5, -2.0], [-0.5, 1.5, -1.0, 1.0], [2.0, 1.0, -1.0, -0.25]])
    b.case("CumulativeLogsumexp_mixed_grad",
           lambda x: tf.math.cumulative_logsumexp(x, axis=1) * tf.constant(signs, f32),
           [(rng.uniform(-2, 2, size=(3, 4)), f32)], tolerance=2e-5)
    b.case("CumulativeLogsumexp_mixed_grad_xr",
           lambda x: tf.math.cumulative_logsumexp(x, axis=0, exclusive=True, reverse=True)
           * tf.constant(signs, f32),
           [(rng.uniform(-2, 2, size=(3, 4)), f32)], tolerance=2e-5)
    b.case("CumulativeLogsumexp_f64",
           lambda x: tf.math.cumulative_logsumexp(x, axis=tf.constant(1, i64), reverse=True),
           [(cube, f64)], tolerance=1e-10)
    b.case("CumulativeLogsumexp_bf16", lambda x: tf.math.cumulative_logsumexp(x, axis=2),
           [(cube, bf16)], grad=False, tolerance=2e-2)
    b.case("CumulativeLogsumexp_edge", lambda x: tf.math.cumulative_logsumexp(x, axis=0),
           [(np.array([1.0, NAN, 2.0, -INF, INF, 1.0]), f32)], grad=False)
    b.case("CumulativeLogsumexp_edge_inf", lambda x: tf.math.cumulative_logsumexp(x, axis=0),
           [(np.array([-INF, -INF, 1.0, INF, INF]), f32)], grad=False)
    b.case("CumulativeLogsumexp_large", lambda x: tf.math.cumulative_logsumexp(x, axis=0),
           [(np.array([1000.0, 1000.0, -1000.0, 1001.0]), f32)])
    b.case("CumulativeLogsumexp_empty", lambda x: tf.math.cumulative_logsumexp(x, axis=1),
           [(np.zeros((0, 3)), f32)])

    # -- BroadcastArgs.
    b.case("BroadcastArgs", lambda s0, s1: R.BroadcastArgs(s0=s0, s1=s1),
           [([2, 1, 3], i32), ([4, 1], i32)], exact=True)
    b.case("BroadcastArgs_int64", lambda s0, s1: tf.broadcast_dynamic_shape(s0, s1),
           [([5, 1, 7], i64), ([1, 6, 7], i64)], exact=True)
    b.case("BroadcastArgs_empty", lambda s0, s1: R.BroadcastArgs(s0=s0, s1=s1),
           [(np.zeros((0,), np.int32), i32), ([0, 1], i32)], exact=True)
    b.case("BroadcastArgs_zero_dim", lambda s0, s1: R.BroadcastArgs(s0=s0, s1=s1),
           [([0, 3], i32), ([1, 3], i32)], exact=True)

    # -- EnsureShape (gradient passes through) and Snapshot (TensorFlow has no gradient).
    mat = rng.uniform(-1, 1, size=(3, 4))
    b.case("EnsureShape", lambda x: tf.ensure_shape(x, [None, 4]) * 2.0, [(mat, f32)])
    b.case("EnsureShape_f64", lambda x: tf.ensure_shape(x, [3, None]), [(mat, f64)])
    b.case("EnsureShape_string", lambda x: tf.ensure_shape(x, [2]), [([b"a", b"bc"], tf.string)],
           exact=True)
    b.case("EnsureShape_scalar", lambda x: tf.ensure_shape(x, []), [(7, i32)], exact=True)
    b.case("Snapshot", lambda x: R.Snapshot(input=x), [(mat, f32)], exact=True, grad=False)
    b.case("Snapshot_int64", lambda x: R.Snapshot(input=x), [([[1, -2], [3, 2 ** 40]], i64)],
           exact=True)
    b.case("Snapshot_bool", lambda x: R.Snapshot(input=x), [([True, False], tf.bool)], exact=True)

    # -- FakeQuant: ranges that need nudging, narrow_range, other bit widths; the values on
    # the nudged edges; gradients through the *Gradient ops (compared within tolerance where
    # min's and max's gradients are sums, whose order Eigen's reduction decides).
    fq_in = np.concatenate([np.linspace(-7.0, 7.0, 29), [-6.0, 6.0, 0.0, -0.0, 5.99, -5.99]])
    for label, kw in [("", {}), ("_narrow", {"narrow_range": True}), ("_4bit", {"num_bits": 4}),
                      ("_16bit", {"num_bits": 16}), ("_asym", {"min": -0.1, "max": 0.9}),
                      ("_asym_narrow", {"min": -0.13, "max": 1.7, "narrow_range": True,
                                        "num_bits": 7}),
                      ("_positive", {"min": 1.0, "max": 3.0}),
                      ("_negative", {"min": -3.0, "max": -1.0}), ("_2bit", {"num_bits": 2})]:
        b.case("FakeQuantWithMinMaxArgs" + label,
               lambda x, kw=kw: tf.quantization.fake_quant_with_min_max_args(x, **kw),
               [(fq_in * (0.25 if "asym" in label else 1.0), f32)], exact=True)
    b.case("FakeQuantWithMinMaxArgs_edge",
           lambda x: tf.quantization.fake_quant_with_min_max_args(x, min=-1.0, max=1.0),
           [([NAN, INF, -INF, 1e30, -1e30], f32)], exact=True, grad=False)
    b.case("FakeQuantWithMinMaxArgs_empty",
           lambda x: tf.quantization.fake_quant_with_min_max_args(x), [(np.zeros((2, 0)), f32)],
           exact=True)
    g4 = rng.uniform(-1, 1, size=fq_in.shape)
    b.case("FakeQuantWithMinMaxArgsGradient",
           lambda g, x: R.FakeQuantWithMinMaxArgsGradient(gradients=g, inputs=x, min=-2.0,
                                                          max=3.0, num_bits=5),
           [(g4, f32), (fq_in * 0.5, f32)], exact=True)
    vals = rng.uniform(-3, 3, size=(4, 5))
    for label, lo, hi, kw in [("", -2.0, 2.5, {}), ("_narrow", -0.37, 1.21, {"narrow_range": True}),
                              ("_3bit", -1.0, 1.0, {"num_bits": 3}),
                              ("_zero", 0.0, 0.0, {}), ("_positive", 0.5, 2.0, {}),
                              ("_inverted", 2.0, 1.0, {})]:
        b.case("FakeQuantWithMinMaxVars" + label,
               lambda x, mn, mx, kw=kw: tf.quantization.fake_quant_with_min_max_vars(x, mn, mx,
                                                                                     **kw),
               [(vals, f32), (lo, f32), (hi, f32)], grad=label != "_inverted")
    b.case("FakeQuantWithMinMaxVars_edge",
           lambda x, mn, mx: tf.quantization.fake_quant_with_min_max_vars(x, mn, mx),
           [([NAN, INF, -INF, 0.0], f32), (-1.0, f32), (1.0, f32)], exact=True, grad=False)
    b.case("FakeQuantWithMinMaxVarsGradient",
           lambda g, x, mn, mx: list(R.FakeQuantWithMinMaxVarsGradient(
               gradients=g, inputs=x, min=mn, max=mx, num_bits=6, narrow_range=True)),
           [(rng.uniform(-1, 1, size=(4, 5)), f32), (vals, f32), (-1.5, f32), (2.0, f32)])
    ch_lo = np.array([-1.0, -0.2, 0.0, -3.0])
    ch_hi = np.array([1.0, 0.7, 0.0, 3.0])
    for label, shape in [("_1d", (4,)), ("_2d", (3, 4)), ("_4d", (2, 2, 3, 4))]:
        b.case("FakeQuantWithMinMaxVarsPerChannel" + label,
               lambda x, mn, mx: tf.quantization.fake_quant_with_min_max_vars_per_channel(x, mn,
                                                                                          mx),
               [(rng.uniform(-3.5, 3.5, size=shape), f32), (ch_lo, f32), (ch_hi, f32)])
    b.case("FakeQuantWithMinMaxVarsPerChannel_narrow_5d",
           lambda x, mn, mx: tf.quantization.fake_quant_with_min_max_vars_per_channel(
               x, mn, mx, num_bits=4, narrow_range=True),
           [(rng.uniform(-3.5, 3.5, size=(2, 1, 2, 1, 4)), f32), (ch_lo, f32), (ch_hi, f32)],
           exact=True, grad=False)
    b.case("FakeQuantWithMinMaxVarsPerChannelGradient",
           lambda g, x, mn, mx: list(R.FakeQuantWithMinMaxVarsPerChannelGradient(
               gradients=g, inputs=x, min=mn, max=mx)),
           [(rng.uniform(-1, 1, size=(5, 4)), f32), (rng.uniform(-3.5, 3.5, size=(5, 4)), f32),
            (ch_lo, f32), (ch_hi, f32)])

    # -- Print passes its input through (what it writes is the C++ test's); its gradient
    # reaches input 0 only. PrintV2 runs as a control dependency.
    b.case("Print", lambda x, d: tf1.Print(x, [d, x], message="x: ", summarize=2) * 3.0,
           [(mat, f32), (np.arange(6).reshape(2, 3), i32)])
    b.case("Print_data_float", lambda x, d: tf1.Print(x, [d], first_n=1),
           [(mat, f32), (mat[0], f32)])
    b.case("Print_string", lambda x: tf1.Print(x, [x]), [([b"p", b"q"], tf.string)], exact=True)

    def print_v2(x):
        p = R.PrintV2(input=tf.strings.format("x: {}", x), output_stream="log(info)")
        with tf1.control_dependencies([p]):
            return tf.identity(x)

    b.case("PrintV2", print_v2, [(mat, f32)])
