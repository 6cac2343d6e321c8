"""Fixture cases of the nn_legacy family for make_op_fixtures.py: QuantizeAndDequantizeV2, V3,
V4 and V4Grad (signed and unsigned ranges, narrow_range, both round modes, given and computed
ranges, per-axis ranges, float64, halves exactly on the grid, NaN and infinities forward only)
with the gradients array_grad.py and array_ops.py register; FractionalMaxPool and
FractionalAvgPool (random and pseudo-random cells, overlapping, deterministic with seeds, the
integer types) with their Grad ops and nn_grad.py's gradients; FusedPadConv2D and
FusedResizeAndPadConv2D (REFLECT and SYMMETRIC, SAME and VALID, strides, a stride above the
filter where TensorFlow's window offsets differ from Conv2D's, align_corners, float64,
bfloat16), which have no gradient.

BatchNormWithGlobalNormalization and its Grad are deprecated at GraphDef version 9, so
TensorFlow builds and runs them only in a graph of an older producer version: their cases are
build_nn_legacy_v8(b), to be built in legacy_graph() (producer 8), not in the shared graph."""
import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2

tf1 = tf.compat.v1
R = tf.raw_ops


def build_nn_legacy(b):
    f32, f64, i32, i64, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16
    case = b.case

    def u(*shape, lo=-1.0, hi=1.0):
        return b.rng.uniform(lo, hi, size=shape)

    def distinct(*shape):
        # Distinct values: no two equal in any pooling cell.
        n = int(np.prod(shape))
        return (b.rng.permutation(n).reshape(shape) * 0.37 - n * 0.15).astype(np.float64)

    # -- QuantizeAndDequantize ------------------------------------------------------------
    def qdq2(**kw):
        return lambda x, lo, hi: R.QuantizeAndDequantizeV2(input=x, input_min=lo, input_max=hi,
                                                           **kw)

    def qdq4(**kw):
        return lambda x, lo, hi: R.QuantizeAndDequantizeV4(input=x, input_min=lo, input_max=hi,
                                                           **kw)

    s0 = np.float64(0.0)
    case("QDQV2_computed_range", qdq2(), [(u(3, 4), f32), (s0, f32), (s0, f32)], exact=True)
    case("QDQV2_given_range", qdq2(range_given=True),
         [(u(2, 5, lo=-2, hi=2), f32), (-0.8, f32), (0.6, f32)], exact=True)
    case("QDQV2_given_range_half_up", qdq2(range_given=True, round_mode="HALF_UP", num_bits=4),
         [(u(4, 3), f32), (-0.7, f32), (0.9, f32)], exact=True)
    case("QDQV2_narrow_range", qdq2(range_given=True, narrow_range=True, num_bits=3),
         [(u(11), f32), (-0.5, f32), (0.5, f32)], exact=True)
    case("QDQV2_unsigned", qdq2(signed_input=False, num_bits=5), [(u(3, 3, lo=0, hi=2), f32),
                                                                 (s0, f32), (s0, f32)],
         exact=True)
    case("QDQV2_unsigned_negative_data", qdq2(signed_input=False),
         [(u(6, lo=-1, hi=-0.1), f32), (s0, f32), (s0, f32)], exact=True, grad=False)
    case("QDQV2_float64_16_bits", qdq2(num_bits=16), [(u(2, 3, 2), f64), (s0, f64), (s0, f64)],
         exact=True)
    case("QDQV2_float64_given_60_bits", qdq2(num_bits=60, range_given=True),
         [(u(7), f64), (-1.5, f64), (2.5, f64)], exact=True)
    # Values landing exactly on halves of the grid: both round modes.
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -127.5, 0.49999997, -0.49999997])
    for mode in ("HALF_TO_EVEN", "HALF_UP"):
        case("QDQV2_halves_" + mode, qdq2(range_given=True, round_mode=mode),
             [(halves, f32), (-128.0, f32), (127.0, f32)], exact=True, grad=False)
    case("QDQV2_per_axis_computed", qdq2(axis=1),
         [(u(3, 4, 2), f32), (np.zeros(4), f32), (np.zeros(4), f32)], exact=True)
    case("QDQV2_per_axis_0_half_up", qdq2(axis=0, round_mode="HALF_UP", num_bits=3),
         [(u(3, 5), f64), (np.zeros(3), f64), (np.zeros(3), f64)], exact=True)
    case("QDQV2_empty", qdq2(), [(np.zeros((0, 3)), f32), (s0, f32), (s0, f32)], exact=True,
         grad=False)
    case("QDQV2_scalar", qdq2(num_bits=4), [(np.float64(0.3), f32), (s0, f32), (s0, f32)],
         exact=True)
    case("QDQV2_all_zero_range", qdq2(range_given=True),
         [(np.array([0.0, 1.0, -1.0, 0.25]), f32), (s0, f32), (s0, f32)], exact=True,
         grad=False)
    # Eigen's reductions: a NaN is ignored unless it is the last value outside the 8-float
    # packets; an infinity makes every value NaN.
    for name, vals in (("nan_inside", [1.0, np.nan, -2.0]), ("nan_last", [1.0, -2.0, np.nan]),
                       ("nan_first", [np.nan, 1.0, -1.0, 0.5]),
                       ("nan_after_packet", [1, 2, 3, 4, 5, 6, 7, -8, np.nan]),
                       ("nan_in_packets", list(range(1, 16)) + [np.nan]),
                       ("infinity", [1.0, np.inf, -2.0]),
                       ("nan_given_range", [np.nan, 0.3, -np.inf, np.inf])):
        given = name == "nan_given_range"
        case("QDQV2_" + name, qdq2(range_given=given),
             [(np.array(vals), f32), (-1.0 if given else s0, f32), (1.0 if given else s0, f32)],
             exact=True, grad=False)
    case("QDQV4_given_range", qdq4(range_given=True, num_bits=5),
         [(u(3, 4, lo=-1.5, hi=1.5), f32), (-0.9, f32), (1.1, f32)], exact=True)
    case("QDQV4_computed_range_float64", qdq4(narrow_range=True),
         [(u(2, 6), f64), (-0.5, f64), (0.5, f64)], exact=True)
    case("QDQV4_per_axis_computed", qdq4(axis=2, num_bits=4),
         [(u(2, 2, 3), f32), (np.zeros(3), f32), (np.zeros(3), f32)], exact=True)

    def qdq3(**kw):
        return lambda x, lo, hi, nb: R.QuantizeAndDequantizeV3(input=x, input_min=lo,
                                                               input_max=hi, num_bits=nb, **kw)

    case("QDQV3_given_range", qdq3(), [(u(3, 4), f32), (-0.6, f32), (0.7, f32),
                                       (np.int32(4), i32)], exact=True)
    case("QDQV3_computed_range", qdq3(range_given=False, signed_input=False),
         [(u(2, 5, lo=0, hi=3), f64), (s0, f64), (s0, f64), (np.int32(6), i32)], exact=True)
    case("QDQV3_per_axis_given", qdq3(axis=1, narrow_range=True),
         [(u(3, 4), f32), (np.array([-0.5, -0.2, -1.0, 0.0]), f32),
          (np.array([0.5, 0.2, 1.0, 0.0]), f32), (np.int32(3), i32)], exact=True)
    case("QDQV3_per_axis_reversed_range", qdq3(axis=0),
         [(u(2, 3), f32), (np.array([0.5, -0.1]), f32), (np.array([-0.5, 0.1]), f32),
          (np.int32(8), i32)], exact=True, grad=False)
    case("QDQV3_62_bits_unsigned", qdq3(signed_input=False),
         [(u(5, lo=0, hi=1), f64), (0.0, f64), (0.75, f64), (np.int32(62), i32)], exact=True)

    def v4grad(axis=-1):
        return lambda g, x, lo, hi: list(R.QuantizeAndDequantizeV4Grad(
            gradients=g, input=x, input_min=lo, input_max=hi, axis=axis))

    edge = np.array([[-1.0, -0.5, 0.0, 0.3], [0.8, 0.55, 0.6, -0.2], [np.nan, 1.0, -1.0, 0.5]])
    case("QDQV4Grad_scalar_range", v4grad(), [(u(3, 4), f32), (edge, f32), (-0.5, f32),
                                              (0.6, f32)], exact=True, grad=False)
    case("QDQV4Grad_per_axis", v4grad(1),
         [(u(3, 4), f64), (edge, f64), (np.array([-0.5, -0.3, 0.0, 0.1]), f64),
          (np.array([0.5, 0.0, 0.3, 0.2]), f64)], exact=True, grad=False)
    # (TensorFlow's gradient of the Grad op fails with a TypeError: no grad=True case.)

    # -- fractional pooling ---------------------------------------------------------------
    def frac(op, ratio, **kw):
        kw.setdefault("deterministic", True)
        kw.setdefault("seed", 3)
        kw.setdefault("seed2", 5)
        return lambda x: list(op(value=x, pooling_ratio=ratio, **kw))

    fmp, fap = R.FractionalMaxPool, R.FractionalAvgPool
    for pr in (False, True):
        for ov in (False, True):
            tag = ("pseudo" if pr else "random") + ("_overlapping" if ov else "")
            case("FractionalMaxPool_" + tag,
                 frac(fmp, [1, 1.44, 1.73, 1], pseudo_random=pr, overlapping=ov),
                 [(distinct(2, 5, 7, 2), f32)])
            case("FractionalAvgPool_" + tag,
                 frac(fap, [1, 1.44, 1.73, 1], pseudo_random=pr, overlapping=ov),
                 [(u(2, 5, 7, 2), f32)])
    case("FractionalMaxPool_ratio_2_5_float64", frac(fmp, [1, 2.5, 3.5, 1], seed=7, seed2=9),
         [(distinct(1, 6, 8, 3), f64)])
    case("FractionalAvgPool_large_pseudo_float64",
         frac(fap, [1, 1.7, 2.9, 1], pseudo_random=True, seed=11, seed2=0),
         [(u(1, 17, 23, 2), f64)])
    case("FractionalMaxPool_integer_ratio", frac(fmp, [1, 2, 2, 1], seed=1, seed2=2),
         [(distinct(1, 6, 4, 1), f32)])
    case("FractionalMaxPool_ratio_1", frac(fmp, [1, 1, 1, 1], seed=1),
         [(distinct(1, 3, 2, 2), f32)])
    case("FractionalMaxPool_int32", frac(fmp, [1, 1.5, 1.3, 1], seed=21, seed2=4),
         [(b.rng.randint(-100, 100, size=(2, 6, 5, 2)), i32)], exact=True)
    case("FractionalAvgPool_int64", frac(fap, [1, 1.5, 1.3, 1], overlapping=True, seed=21),
         [(b.rng.randint(-100, 100, size=(1, 6, 5, 3)), i64)], exact=True)

    def fmp_grad(ov):
        def fn(x, dy):
            y, r, c = fmp(value=x, pooling_ratio=[1, 1.6, 1.4, 1], overlapping=ov,
                          deterministic=True, seed=5, seed2=6)
            return R.FractionalMaxPoolGrad(orig_input=x, orig_output=y, out_backprop=dy,
                                           row_pooling_sequence=r, col_pooling_sequence=c,
                                           overlapping=ov)
        return fn

    def fap_grad(ov):
        def fn(dy):
            r = tf.constant([0, 2, 3, 5], tf.int64)
            c = tf.constant([0, 1, 3, 4, 6], tf.int64)
            return R.FractionalAvgPoolGrad(orig_input_tensor_shape=tf.constant([2, 5, 6, 3],
                                                                              tf.int64),
                                           out_backprop=dy, row_pooling_sequence=r,
                                           col_pooling_sequence=c, overlapping=ov)
        return fn

    for ov in (False, True):
        tag = "_overlapping" if ov else ""
        # The Grad ops have no gradient (neither in TensorFlow).
        case("FractionalMaxPoolGrad" + tag, fmp_grad(ov),
             [(distinct(1, 5, 4, 2), f32), (u(1, 3, 2, 2), f32)], grad=False)
        case("FractionalAvgPoolGrad" + tag, fap_grad(ov), [(u(2, 3, 4, 3), f32)], grad=False)
    case("FractionalAvgPoolGrad_int32", fap_grad(False),
         [(b.rng.randint(-9, 9, size=(2, 3, 4, 3)), i32)], exact=True)
    case("FractionalAvgPoolGrad_float64_sequence_past_the_end",
         lambda dy: R.FractionalAvgPoolGrad(
             orig_input_tensor_shape=tf.constant([1, 5, 7, 2], tf.int64), out_backprop=dy,
             row_pooling_sequence=tf.constant([0, 2, 4, 9], tf.int64),
             col_pooling_sequence=tf.constant([0, 2, 3, 5, 7], tf.int64), overlapping=True),
         [(u(1, 3, 4, 2), f64)], grad=False)

    # -- fused convolutions -------------------------------------------------------------
    def pads(top, bottom, left, right):
        return np.array([[0, 0], [top, bottom], [left, right], [0, 0]], np.int32)

    def fpc(p, mode, strides, padding):
        return lambda x, w: R.FusedPadConv2D(input=x, paddings=p, filter=w, mode=mode,
                                             strides=strides, padding=padding)

    def frc(size, p, mode, strides, padding, ac):
        return lambda x, w: R.FusedResizeAndPadConv2D(
            input=x, size=size, paddings=p, filter=w, mode=mode, strides=strides,
            padding=padding, resize_align_corners=ac)

    # Positive data and weights: the sums do not cancel, so the GEMM's order stays in float's
    # rounding.
    def pos(*shape):
        return u(*shape, lo=0.1, hi=1.0)

    for mode in ("REFLECT", "SYMMETRIC"):
        for padding in ("VALID", "SAME"):
            for st in ([1, 1, 1, 1], [1, 2, 3, 1]):
                case("FusedPadConv2D_%s_%s_s%d%d" % (mode, padding, st[1], st[2]),
                     fpc(pads(1, 2, 2, 1), mode, st, padding),
                     [(pos(2, 3, 4, 2), f32), (pos(2, 3, 2, 3), f32)], grad=False)
    case("FusedPadConv2D_symmetric_full_padding", fpc(pads(3, 3, 0, 4), "SYMMETRIC",
                                                      [1, 1, 1, 1], "VALID"),
         [(pos(1, 3, 4, 1), f32), (pos(3, 3, 1, 2), f32)], grad=False)
    # A stride above the filter size: TensorFlow's fused kernel starts its windows elsewhere
    # than Conv2D.
    for padding in ("VALID", "SAME"):
        case("FusedPadConv2D_stride_5_" + padding, fpc(pads(0, 0, 0, 0), "REFLECT",
                                                      [1, 5, 5, 1], padding),
             [(pos(1, 10, 10, 1), f32), (pos(1, 1, 1, 1), f32)], grad=False)
        case("FusedPadConv2D_stride_4_filter_2_" + padding,
             fpc(pads(1, 0, 0, 1), "REFLECT", [1, 4, 4, 1], padding),
             [(pos(1, 9, 9, 2), f32), (pos(2, 2, 2, 1), f32)], grad=False)
    case("FusedPadConv2D_float64", fpc(pads(2, 1, 1, 2), "REFLECT", [1, 1, 2, 1], "SAME"),
         [(u(2, 4, 5, 3), f64), (u(3, 2, 3, 2), f64)], grad=False)
    case("FusedPadConv2D_bfloat16", fpc(pads(1, 1, 1, 1), "SYMMETRIC", [1, 1, 1, 1], "VALID"),
         [(pos(1, 3, 3, 2), bf16), (pos(2, 2, 2, 2), bf16)], grad=False, tolerance=0.02)
    for ac in (False, True):
        for mode in ("REFLECT", "SYMMETRIC"):
            for padding in ("VALID", "SAME"):
                case("FusedResizeAndPadConv2D_%s_%s%s" % (mode, padding,
                                                          "_align_corners" if ac else ""),
                     frc([5, 6], pads(1, 2, 2, 1), mode, [1, 2, 1, 1], padding, ac),
                     [(pos(2, 3, 4, 2), f32), (pos(2, 3, 2, 3), f32)], grad=False)
    case("FusedResizeAndPadConv2D_shrink_float64",
         frc([3, 2], pads(1, 1, 1, 0), "REFLECT", [1, 1, 1, 1], "VALID", False),
         [(u(1, 7, 5, 2), f64), (u(2, 2, 2, 2), f64)], grad=False)
    case("FusedResizeAndPadConv2D_to_one_pixel_align_corners",
         frc([1, 3], pads(0, 0, 1, 1), "SYMMETRIC", [1, 1, 1, 1], "SAME", True),
         [(pos(1, 4, 4, 1), f32), (pos(1, 3, 1, 2), f32)], grad=False)


def legacy_graph():
    """A tf.Graph of GraphDef producer version 8, in which TensorFlow still builds and runs the
    ops deprecated at version 9 (BatchNormWithGlobalNormalization and its Grad)."""
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = 8
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
    return g


def build_nn_legacy_v8(b):
    """The BatchNormWithGlobalNormalization cases; build them in legacy_graph()."""
    f32, f64 = tf.float32, tf.float64
    case = b.case

    def u(*shape, lo=-1.0, hi=1.0):
        return b.rng.uniform(lo, hi, size=shape)

    def bn(eps, scale):
        return lambda t, m, v, beta, gamma: R.BatchNormWithGlobalNormalization(
            t=t, m=m, v=v, beta=beta, gamma=gamma, variance_epsilon=eps,
            scale_after_normalization=scale)

    def bng(eps, scale):
        return lambda t, m, v, gamma, bp: list(R.BatchNormWithGlobalNormalizationGrad(
            t=t, m=m, v=v, gamma=gamma, backprop=bp, variance_epsilon=eps,
            scale_after_normalization=scale))

    for scale in (True, False):
        tag = "_scaled" if scale else ""
        case("BatchNormWithGlobalNormalization" + tag, bn(0.001, scale),
             [(u(2, 3, 4, 3), f32), (u(3), f32), (u(3, lo=0.2, hi=2), f32), (u(3), f32),
              (u(3, lo=0.5, hi=2), f32)])
        case("BatchNormWithGlobalNormalizationGrad" + tag, bng(0.01, scale),
             [(u(2, 2, 3, 4), f32), (u(4), f32), (u(4, lo=0.2, hi=2), f32),
              (u(4, lo=0.5, hi=2), f32), (u(2, 2, 3, 4), f32)], grad=False)
    case("BatchNormWithGlobalNormalization_float64", bn(1e-5, True),
         [(u(1, 2, 2, 5), f64), (u(5), f64), (u(5, lo=0.2, hi=2), f64), (u(5), f64),
          (u(5, lo=0.5, hi=2), f64)])
    case("BatchNormWithGlobalNormalization_empty", bn(0.001, True),
         [(np.zeros((0, 2, 2, 3)), f32), (u(3), f32), (u(3, lo=0.2, hi=2), f32), (u(3), f32),
          (u(3), f32)], grad=False)
