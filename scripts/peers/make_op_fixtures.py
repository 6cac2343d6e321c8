#!/usr/bin/env python3
"""Writes tests/data/tf_ops: one GraphDef (graph.pb) that TensorFlow's tf.compat.v1 builds of
the element-wise, activation, scan, split, reverse, set, logical-reduction and fused batch
norm ops, the batched products, GatherNd, ScatterNd, TensorScatter*, TopKV2, InTopKV2,
PadV2, MirrorPad, MirrorPadGrad, SparseToDense, the segment reductions, ParseExample(V2) on
serialized Examples, the image resizes, DepthwiseConv2dNative and LRN, and the families in
scripts/peers/op_cases_<family>.py (space/batch/depth moves, matrix diagonals and linear
algebra, the further element-wise, bitwise and random ops, strings), each on constant inputs,
with tf.gradients of a weighted sum of each differentiable case; and reference.json, what
TensorFlow computes for every output and gradient. Never a dependency of the build or the
tests: the fixture is committed, and this script remakes it.

  python scripts/peers/make_op_fixtures.py [OUT_DIR]   # default tests/data/tf_ops

Each case lives under its own name scope. reference.json lists per case:
  inputs     the input tensors (Consts) the gradients are taken with respect to;
  outputs    [tensor name, value] for each output;
  loss       sum(y * w) over the case's float outputs (w fixed), when it is differentiable;
  grads      [tensor name, value] of tf.gradients(loss, grad_inputs) in the same order
             (null where TensorFlow gives None);
  exact      whether values must match bit for bit (moves, rounding, integers, booleans);
  tolerance  relative tolerance where the default (float32 4e-6, float64 1e-12) is not it;
  atol       an absolute tolerance besides, for sums TensorFlow accumulates in float
             (batch norm: x - mean cancels near zero);
values as {"dtype", "shape", "values"} with NaN and infinities as the strings "nan", "inf"
and "-inf". The edge inputs (NaN, infinities, signed zeros, halves, huge values) are only
run forward; gradients use smooth inputs inside each op's domain.
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import importlib
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1

EDGE = [-1e30, -100.0, -20.0, -3.5, -2.5, -1.5, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.5, 1.0,
        1.5, 2.5, 3.5, 6.0, 20.0, 100.0, 1e30, float("nan"), float("inf"), float("-inf")]
SMOOTH = np.array([[-0.9, -0.7, -0.45, -0.2], [-0.05, 0.1, 0.3, 0.55], [0.7, 0.8, 0.85, 0.95]])
WIDE = SMOOTH * 4.0  # activations: both sides of their kinks (0 and 6 for Relu6 are avoided)


def encode(value):
    # A scalar string comes back as bytes (NumPy would make it dtype S).
    a = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    if a.dtype == tf.bfloat16.as_numpy_dtype:
        a = a.astype(np.float32)
        dtype = "bfloat16"
    else:
        dtype = {np.dtype("float32"): "float32", np.dtype("float64"): "float64",
                 np.dtype("float16"): "float16", np.dtype("int8"): "int8",
                 np.dtype("int16"): "int16", np.dtype("int32"): "int32",
                 np.dtype("int64"): "int64", np.dtype("uint8"): "uint8",
                 np.dtype("uint16"): "uint16", np.dtype("uint32"): "uint32",
                 np.dtype("uint64"): "uint64", np.dtype("complex64"): "complex64",
                 np.dtype("complex128"): "complex128", np.dtype("bool"): "bool",
                 np.dtype("object"): "string"}[a.dtype]

    def real(v):
        v = float(v)
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v

    def one(v):
        if dtype == "string":
            return v.decode()
        if dtype == "bool":
            return bool(v)
        if dtype.startswith("int") or dtype.startswith("uint"):
            return int(v)
        if dtype.startswith("complex"):  # [real, imag]
            return [real(v.real), real(v.imag)]
        return real(v)

    return {"dtype": dtype, "shape": list(a.shape), "values": [one(v) for v in a.reshape(-1)]}


class Builder:
    def __init__(self):
        self.cases = []
        self.rng = np.random.RandomState(7)

    def case(self, name, fn, inputs, exact=False, grad=True, tolerance=None, atol=None):
        """fn(*input_tensors) -> output or list of outputs, built under scope `name`."""
        with tf1.name_scope(name):
            xs = [tf1.constant(v, dtype=d, name="x%d" % i) for i, (v, d) in enumerate(inputs)]
            ys = fn(*xs)
            ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
            entry = {"name": name, "inputs": [x.name for x in xs], "outputs": [y.name for y in ys],
                     "exact": exact, "tolerance": tolerance, "atol": atol}
            diff = [x for x in xs if x.dtype.is_floating]
            float_ys = [y for y in ys if y.dtype.is_floating]
            if grad and diff and float_ys:
                terms = []
                for k, y in enumerate(float_ys):
                    w = tf1.constant(self.rng.uniform(0.5, 1.5, size=y.shape.as_list()),
                                     dtype=y.dtype, name="w%d" % k)
                    terms.append(tf1.reduce_sum(y * w))
                loss = tf1.add_n(terms, name="loss")
                grads = tf1.gradients(loss, diff)
                # IndexedSlices (GatherNd by single indices) are compared dense.
                grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
                         for g in grads]
                entry["loss"] = loss.name
                entry["grad_inputs"] = [x.name for x in diff]
                entry["grads"] = [g.name if g is not None else None for g in grads]
        self.cases.append(entry)


def build(b):
    f32, f64, i32, bf16 = tf.float32, tf.float64, tf.int32, tf.bfloat16
    unary = {
        "Log1p": tf.math.log1p, "Expm1": tf.math.expm1, "Erf": tf.math.erf, "Erfc": tf.math.erfc,
        "Tan": tf.math.tan, "Atan": tf.math.atan, "Asin": tf.math.asin, "Acos": tf.math.acos,
        "Sinh": tf.math.sinh, "Cosh": tf.math.cosh,
    }
    for op, fn in unary.items():
        b.case(op + "_edge", fn, [(EDGE, f32)], grad=False)
        b.case(op, fn, [(SMOOTH, f32)])
        b.case(op + "_f64", fn, [(SMOOTH, f64)])
    b.case("Inv", lambda x: tf.raw_ops.Inv(x=x), [(SMOOTH + 2.0, f32)])
    for op, fn in {"Ceil": tf.math.ceil, "Round": tf.math.round, "Rint": tf.math.rint}.items():
        b.case(op + "_edge", fn, [(EDGE, f32)], exact=True, grad=False)
        b.case(op, fn, [(WIDE, f32)], exact=True)
    b.case("Round_int32", tf.math.round, [([-3, -2, 0, 5], i32)], exact=True)
    for op, fn in {"IsNan": tf.math.is_nan, "IsInf": tf.math.is_inf,
                   "IsFinite": tf.math.is_finite}.items():
        b.case(op, fn, [(EDGE, f32)], exact=True)
    acts = {"Softplus": tf.nn.softplus, "Softsign": tf.nn.softsign, "Elu": tf.nn.elu,
            "Selu": tf.nn.selu, "Relu6": tf.nn.relu6}
    for op, fn in acts.items():
        b.case(op + "_edge", fn, [(EDGE, f32)], grad=False)
        b.case(op, fn, [(WIDE * 2.0, f32)])
        b.case(op + "_f64", fn, [(WIDE * 2.0, f64)])
        b.case(op + "_bf16", fn, [(WIDE * 2.0, bf16)], grad=False, tolerance=1e-2)
    b.case("Softplus_thresholds", tf.nn.softplus,
           [([-40.0, -16.0, -15.0, -14.0, -13.0, 13.0, 14.0, 15.0, 16.0, 40.0], f32)], grad=False)
    b.case("Relu6_int32", tf.nn.relu6, [([-3, 0, 4, 6, 9], i32)], exact=True)
    # The gradient ops as TensorFlow 1.x graphs hold them, straight.
    g = b.rng.uniform(-1, 1, size=(3, 4))
    for op in ["SoftplusGrad", "SoftsignGrad", "EluGrad", "SeluGrad", "Relu6Grad"]:
        second = "features" if op in ("SoftplusGrad", "SoftsignGrad", "Relu6Grad") else "outputs"
        fn = getattr(tf.raw_ops, op)
        feats = WIDE * 2.0 if second == "features" else np.where(WIDE < 0, np.expm1(WIDE), WIDE)
        # TensorFlow differentiates SoftplusGrad, EluGrad, SeluGrad and Relu6Grad only.
        b.case(op, lambda gg, a, fn=fn, second=second: fn(gradients=gg, **{second: a}),
               [(g, f32), (feats, f32)], grad=op != "SoftsignGrad")
    # Binary ops, broadcasting a [3, 4] against a [4].
    row = np.array([0.3, -0.6, 1.2, -2.0])
    b.case("Atan2", tf.math.atan2, [(WIDE + 0.1, f32), (row, f32)])
    b.case("Atan2_edge", tf.math.atan2,
           [([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, float("inf"), float("nan")], f32),
            ([0.0, 0.0, -0.0, -0.0, 0.0, 0.0, float("inf"), 1.0], f32)], grad=False)
    b.case("Xlogy", tf.math.xlogy, [(WIDE, f32), (np.abs(row) + 0.5, f32)])
    b.case("Xdivy", tf.math.xdivy, [(WIDE, f32), (row, f32)])
    b.case("Xlogy_edge", tf.math.xlogy,
           [([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0], f32),
            ([0.0, -1.0, float("nan"), 0.0, -1.0, float("inf"), float("inf")], f32)], grad=False)
    b.case("Xdivy_edge", tf.math.xdivy,
           [([0.0, 0.0, 1.0, -1.0, 0.0], f32), ([0.0, float("nan"), 0.0, 0.0, -2.0], f32)],
           grad=False)
    ints_x = [7, -7, 7, -7, 0, 5, -2147483648]
    ints_y = [3, 3, -3, -3, 4, 1, -1]
    b.case("TruncateDiv", tf.truncatediv, [(ints_x, i32), (ints_y, i32)], exact=True)
    b.case("TruncateMod", tf.truncatemod, [(ints_x, i32), (ints_y, i32)], exact=True)
    b.case("TruncateMod_float", tf.truncatemod,
           [([7.5, -7.5, 7.5, -7.5, 1.0], f32), ([2.0, 2.0, -2.0, -2.0, 0.0], f32)], grad=False)
    b.case("Mod", lambda x, y: tf.raw_ops.Mod(x=x, y=y), [(ints_x, i32), (ints_y, i32)],
           exact=True)
    # Scans.
    cube = b.rng.uniform(-1, 1, size=(2, 3, 4))
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                name = "Cumsum_%d_%s%s" % (axis + 3 if axis < 0 else axis, "x" if exclusive else "",
                                           "r" if reverse else "")
                b.case(name, lambda x, a=axis, e=exclusive, r=reverse:
                       tf.cumsum(x, axis=a, exclusive=e, reverse=r), [(cube, f32)])
    b.case("Cumsum_int32", lambda x: tf.cumsum(x, axis=1),
           [([[1, 2, 2147483647], [-1, -2, -3]], i32)], exact=True)
    # Split, SplitV (one output left without a gradient), ReverseV2.
    mat = b.rng.uniform(-1, 1, size=(4, 6))
    b.case("Split", lambda x: tf.split(x, 3, axis=1), [(mat, f32)], exact=True)
    b.case("Split_neg", lambda x: tf.split(x, 2, axis=-2), [(mat, f32)], exact=True)
    b.case("Split_partial", lambda x: tf.split(x, 3, axis=1)[1], [(mat, f32)], exact=True)
    b.case("SplitV", lambda x: tf.split(x, [1, -1, 2], axis=1), [(mat, f32)], exact=True)
    b.case("SplitV_partial", lambda x: tf.split(x, [1, 3, 2], axis=1)[0], [(mat, f32)], exact=True)
    b.case("Split_int32", lambda x: tf.split(x, 2, axis=0), [([[1, 2], [3, 4]], i32)], exact=True)
    b.case("ReverseV2", lambda x: tf.reverse(x, [0, 2]), [(cube, f32)], exact=True)
    b.case("ReverseV2_last", lambda x: tf.reverse(x, [-1]), [(cube, f32)], exact=True)
    b.case("ReverseV2_middle", lambda x: tf.reverse(x, [1]), [(cube, f32)], exact=True)
    b.case("ReverseV2_none", lambda x: tf.reverse(x, []), [(cube, f32)], exact=True)
    b.case("ReverseV2_string", lambda x: tf.reverse(x, [0]), [([b"a", b"b", b"c"], tf.string)],
           exact=True)
    # Fused batch norm: training and inference, NHWC and NCHW, a blending factor, V1 and V2.
    bx = b.rng.uniform(-2, 2, size=(2, 3, 2, 4))
    scale, offset = [0.5, 1.0, 1.5, 2.0], [0.1, -0.2, 0.3, 0.0]
    pop_mean, pop_var = [0.2, -0.1, 0.0, 0.4], [1.5, 0.5, 2.0, 1.0]

    def bn(fmt, training, factor=1.0, stats=False):
        def fn(x, s, o, m=None, v=None):
            if fmt == "NCHW":
                x = tf.transpose(x, [0, 3, 1, 2])
            y, mean, var = tf1.nn.fused_batch_norm(
                x, s, o, mean=m, variance=v, epsilon=0.001, data_format=fmt,
                is_training=training, exponential_avg_factor=factor)
            if fmt == "NCHW":
                y = tf.transpose(y, [0, 2, 3, 1])
            return [y, mean, var]
        return fn

    stats = [(pop_mean, f32), (pop_var, f32)]
    for fmt in ("NHWC", "NCHW"):
        b.case("FusedBatchNormV3_train_" + fmt, bn(fmt, True),
               [(bx, f32), (scale, f32), (offset, f32)], atol=1e-6)
        b.case("FusedBatchNormV3_infer_" + fmt, bn(fmt, False),
               [(bx, f32), (scale, f32), (offset, f32)] + stats, atol=1e-6)
    b.case("FusedBatchNormV3_blend", bn("NHWC", True, 0.3),
           [(bx, f32), (scale, f32), (offset, f32)] + stats, atol=1e-6)
    for op in ("FusedBatchNorm", "FusedBatchNormV2"):
        raw = getattr(tf.raw_ops, op)
        b.case(op, lambda x, s, o, m, v, raw=raw: list(raw(
            x=x, scale=s, offset=o, mean=m, variance=v, epsilon=0.001, is_training=True))[:3],
            [(bx, f32), (scale, f32), (offset, f32), ([], f32), ([], f32)], atol=1e-6)
    # ListDiff, Any, All.
    b.case("ListDiff", lambda x, y: tf1.setdiff1d(x, y),
           [([1, 2, 3, 4, 5, 6, 3], i32), ([1, 3, 5, 9], i32)], exact=True)
    b.case("ListDiff_int64", lambda x, y: tf1.setdiff1d(x, y, index_dtype=tf.int64),
           [([2.0, 1.0, 2.0], f32), ([1.0], f32)], exact=True, grad=False)
    b.case("ListDiff_string", lambda x, y: tf1.setdiff1d(x, y),
           [([b"a", b"b", b"c"], tf.string), ([b"b"], tf.string)], exact=True)
    logic = [[True, False, True], [False, False, False]]
    for op, fn in {"Any": tf.reduce_any, "All": tf.reduce_all}.items():
        b.case(op, lambda x, fn=fn: [fn(x, axis=1), fn(x, axis=0, keepdims=True), fn(x)],
               [(logic, tf.bool)], exact=True)
        b.case(op + "_empty", lambda x, fn=fn: fn(x, axis=1), [(np.zeros((2, 0), bool), tf.bool)],
               exact=True)


def build_pad(b):
    """PadV2, MirrorPad (REFLECT, SYMMETRIC), MirrorPadGrad and SparseToDense, with the
    gradients TensorFlow has: _PadGrad (none for constant_values), _MirrorPadGrad,
    _MirrorPadGradGrad and _SparseToDenseGrad (matrix indices only: GatherNd of vector
    indices fails in TensorFlow itself)."""
    f32, f64, i32, i64 = tf.float32, tf.float64, tf.int32, tf.int64
    mat = b.rng.uniform(-1, 1, size=(3, 4))
    cube = b.rng.uniform(-1, 1, size=(2, 3, 4))
    vec = b.rng.uniform(-1, 1, size=(5,))
    # PadV2: a nonzero constant (tf.pad's Const "PadV2/constant_values", or an input, whose
    # gradient TensorFlow leaves None), int32, int64 paddings, rank 3, bool and string.
    b.case("PadV2", lambda x: tf.pad(x, [[1, 2], [0, 3]], constant_values=1.5), [(mat, f32)])
    b.case("PadV2_constant_input",
           lambda x, c: tf.raw_ops.PadV2(input=x, paddings=[[2, 0], [1, 1]], constant_values=c),
           [(mat, f32), (-0.25, f32)])
    b.case("PadV2_f64", lambda x: tf.pad(x, [[0, 1], [2, 0]], constant_values=-2.0),
           [(mat, f64)])
    b.case("PadV2_rank3", lambda x: tf.pad(x, [[1, 0], [0, 0], [2, 1]], constant_values=0.5),
           [(cube, f32)])
    b.case("PadV2_int64_paddings",
           lambda x: tf.pad(x, tf.constant([[0, 0], [1, 2]], tf.int64), constant_values=3.0),
           [(mat, f32)])
    b.case("PadV2_int32", lambda x: tf.pad(x, [[1, 1], [2, 0]], constant_values=-7),
           [([[1, 2, 3], [4, 5, 6]], i32)], exact=True)
    b.case("PadV2_bool", lambda x: tf.pad(x, [[1, 1]], constant_values=True),
           [([False, True, False], tf.bool)], exact=True)
    b.case("PadV2_string", lambda x: tf.pad(x, [[0, 1], [1, 0]], constant_values="pad"),
           [([[b"a", b"b"], [b"c", b"d"]], tf.string)], exact=True)
    b.case("PadV2_none", lambda x: tf.pad(x, [[0, 0], [0, 0]], constant_values=9.0),
           [(mat, f32)])
    b.case("PadV2_empty", lambda x: tf.pad(x, [[1, 0], [1, 1]], constant_values=4.0),
           [(np.zeros((0, 2)), f32)], grad=False)
    # MirrorPad on ranks 1 to 3 in both modes, with _MirrorPadGrad's folding as gradient.
    for mode in ("REFLECT", "SYMMETRIC"):
        edge = 1 if mode == "REFLECT" else 0  # REFLECT pads at most size - 1
        b.case("MirrorPad_%s_1d" % mode,
               lambda x, m=mode, e=edge: tf.pad(x, [[4 - e, 2]], mode=m), [(vec, f32)])
        b.case("MirrorPad_%s_2d" % mode,
               lambda x, m=mode, e=edge: tf.pad(x, [[2 - e, 1], [3 - e, 4 - e]], mode=m),
               [(mat, f32)])
        b.case("MirrorPad_%s_3d" % mode,
               lambda x, m=mode, e=edge: tf.pad(x, [[1, 1 - e], [0, 2], [3 - e, 1]], mode=m),
               [(cube, f32)])
        b.case("MirrorPad_%s_int64_paddings" % mode,
               lambda x, m=mode: tf.pad(x, tf.constant([[1, 1], [2, 2]], tf.int64), mode=m),
               [(mat, f64)])
        b.case("MirrorPad_%s_int32" % mode, lambda x, m=mode: tf.pad(x, [[1, 2]], mode=m),
               [([1, 2, 3, 4], i32)], exact=True)
        b.case("MirrorPad_%s_string" % mode,
               lambda x, m=mode: tf.pad(x, [[0, 1], [1, 1]], mode=m),
               [([[b"a", b"b"], [b"c", b"d"]], tf.string)], exact=True)
        # MirrorPadGrad directly (its gradient is MirrorPad, _MirrorPadGradGrad).
        b.case("MirrorPadGrad_%s_1d" % mode,
               lambda x, m=mode: tf.raw_ops.MirrorPadGrad(input=x, paddings=[[2, 1]], mode=m),
               [(b.rng.uniform(-1, 1, size=(7,)), f32)])
        b.case("MirrorPadGrad_%s_2d" % mode,
               lambda x, m=mode: tf.raw_ops.MirrorPadGrad(
                   input=x, paddings=[[1, 1], [2, 1]], mode=m),
               [(b.rng.uniform(-1, 1, size=(5, 7)), f32)])
        b.case("MirrorPadGrad_%s_3d" % mode,
               lambda x, m=mode: tf.raw_ops.MirrorPadGrad(
                   input=x, paddings=[[0, 1], [1, 1], [1, 0]], mode=m),
               [(b.rng.uniform(-1, 1, size=(3, 5, 4)), f32)])
        b.case("MirrorPadGrad_%s_int32" % mode,
               lambda x, m=mode: tf.raw_ops.MirrorPadGrad(input=x, paddings=[[2, 2]], mode=m),
               [([1, 2, 3, 4, 5, 6, 7], i32)], exact=True)
    # SparseToDense: scalar, vector and matrix indices, a scalar value for all of them, the
    # default value, float, int, bool and string, int64 indices, repeats without validation.
    std = tf1.sparse_to_dense
    b.case("SparseToDense_scalar", lambda i, s, v, d: std(i, s, v, d),
           [(2, i32), ([5], i32), (1.5, f32), (-1.0, f32)], grad=False)
    b.case("SparseToDense_vector", lambda i, s, v, d: std(i, s, v, d),
           [([0, 2, 3], i32), ([6], i32), ([1.0, 2.0, 3.0], f32), (0.5, f32)], grad=False)
    b.case("SparseToDense_vector_scalar_value", lambda i, s, v, d: std(i, s, v, d),
           [([1, 4], i32), ([5], i32), (7, i32), (0, i32)], exact=True)
    b.case("SparseToDense_matrix", lambda i, s, v, d: std(i, s, v, d),
           [([[0, 1], [1, 0], [1, 3], [2, 2]], i32), ([3, 4], i32),
            ([1.0, -2.0, 3.0, 0.25], f32), (0.5, f32)])
    b.case("SparseToDense_matrix_f64", lambda i, s, v, d: std(i, s, v, d),
           [([[0, 0, 1], [1, 1, 0]], i64), ([2, 2, 2], i64), ([2.5, -1.5], f64), (0.0, f64)])
    b.case("SparseToDense_matrix_int32", lambda i, s, v, d: std(i, s, v, d),
           [([[0, 1], [2, 0]], i32), ([3, 2], i32), ([5, 6], i32), (-1, i32)], exact=True)
    b.case("SparseToDense_unvalidated_repeats",
           lambda i, s, v, d: std(i, s, v, d, validate_indices=False),
           [([3, 1, 3], i32), ([5], i32), ([1, 2, 3], i32), (9, i32)], exact=True)
    b.case("SparseToDense_bool", lambda i, s, v, d: std(i, s, v, d),
           [([[0, 1]], i64), ([2, 2], i64), ([True], tf.bool), (False, tf.bool)], exact=True)
    b.case("SparseToDense_string", lambda i, s, v, d: std(i, s, v, d),
           [([1, 2], i32), ([4], i32), ([b"x", b"y"], tf.string), (b"-", tf.string)],
           exact=True)
    b.case("SparseToDense_empty", lambda i, s, v, d: std(i, s, v, d),
           [(np.zeros((0, 2)), i32), ([2, 3], i32), (np.zeros((0,)), f32), (4.0, f32)])


def build_segment(b):
    """The segment reductions other than the sums: SegmentMean, SegmentMax, SegmentMin,
    SegmentProd, UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd. Forward on
    float32 and integers (empty segments, negative ids for the unsorted ops, ties, zeros),
    and tf.gradients on smooth float inputs (ties for Max and Min, zeros for Prod)."""
    f32, f64, i32, i64 = tf.float32, tf.float64, tf.int32, tf.int64
    nan, inf = float("nan"), float("inf")
    seg = tf.math

    def known_rows(fn):
        # A sorted reduction's row count (last id + 1) is known only when it runs; the
        # weights of the loss need it statically (set_shape adds no op to the graph).
        def wrapped(x, ids, name=None):
            y = fn(x, ids, name=name)
            last = tf.make_ndarray(ids.op.get_attr("value")).reshape(-1)
            y.set_shape([int(last[-1]) + 1 if last.size else 0] + y.shape.as_list()[1:])
            return y
        return wrapped

    sorted_ops = {"SegmentMean": known_rows(seg.segment_mean),
                  "SegmentMax": known_rows(seg.segment_max),
                  "SegmentMin": known_rows(seg.segment_min),
                  "SegmentProd": known_rows(seg.segment_prod)}
    unsorted_ops = {"UnsortedSegmentMax": seg.unsorted_segment_max,
                    "UnsortedSegmentMin": seg.unsorted_segment_min,
                    "UnsortedSegmentProd": seg.unsorted_segment_prod}

    # Sorted ids with gaps (segments 1, 3 and 4 empty): 0 there, 1 for SegmentProd.
    rows = b.rng.uniform(-1, 1, size=(6, 3))
    ids = [0, 0, 2, 2, 2, 5]
    ints = [[7, -3, 0], [-8, 5, 2], [3, 3, -1], [-4, 6, 2], [2, -9, 5], [1, 1, 1]]
    for op, fn in sorted_ops.items():
        exact = op in ("SegmentMax", "SegmentMin")
        b.case(op, fn, [(rows, f32), (ids, i32)], exact=exact)
        b.case(op + "_f64_int64_ids", fn, [(rows, f64), (ids, i64)], exact=exact)
        b.case(op + "_int32", fn, [(ints, i32), (ids, i32)], exact=True)
        b.case(op + "_int64", fn, [(ints, i64), (ids, i64)], exact=True)
        # One row per segment: the row itself; ids starting above 0: leading gap rows.
        b.case(op + "_singletons", fn, [(rows[:3], f32), ([1, 2, 4], i32)], exact=exact)
        b.case(op + "_empty", fn, [(np.zeros((0, 2)), f32), (np.zeros((0,), np.int32), i32)],
               exact=True, grad=False)
    # Integer means truncate toward zero: -7 / 2 = -3, 7 / 2 = 3, (1 - 4) / 2 = -1.
    b.case("SegmentMean_int32_truncates", sorted_ops["SegmentMean"],
           [([-7, 0, 7, 0, 1, -4], i32), ([0, 0, 1, 1, 2, 2], i32)], exact=True)
    # Ties (exact equal extrema) and signed zeros: the later of equal values wins.
    ties = [[0.5, -0.25], [0.5, 0.75], [0.125, 0.75], [-0.0, 0.0], [0.0, -0.0], [0.3, 0.3]]
    for op in ("SegmentMax", "SegmentMin"):
        b.case(op + "_ties", sorted_ops[op], [(ties, f32), ([0, 0, 0, 1, 1, 2], i32)],
               exact=True)
        # Infinities and NaN in a single-column segment (TensorFlow's scalar path): a NaN row
        # makes the value NaN, a later number replaces it.
        b.case(op + "_edge", sorted_ops[op],
               [([-inf, -inf, inf, inf, nan, 1.0, 1.0, nan], f32), ([0, 0, 1, 1, 2, 2, 3, 3], i32)],
               exact=True, grad=False)
    # Products with zeros: none, one, two in a segment; integers wrap around.
    zeros = [[2.0, 0.0], [0.5, 3.0], [0.0, 0.0], [-1.5, 4.0], [0.0, -2.0], [0.25, 0.5]]
    b.case("SegmentProd_zeros", sorted_ops["SegmentProd"], [(zeros, f32), ([0, 0, 0, 2, 2, 2], i32)])
    b.case("SegmentProd_int32_wraps", sorted_ops["SegmentProd"],
           [([65536, 65536, 3, 46341, 46341], i32), ([0, 0, 1, 2, 2], i32)], exact=True)

    # Unsorted ids in any order, negative ids dropped, empty segments (the type's lowest /
    # highest value for Max / Min, 1 for Prod).
    uids = [3, 0, -1, 3, 0, 5]
    for op, fn in unsorted_ops.items():
        exact = op != "UnsortedSegmentProd"
        b.case(op, lambda x, i, fn=fn: fn(x, i, 7), [(rows, f32), (uids, i32)], exact=exact)
        b.case(op + "_f64", lambda x, i, fn=fn: fn(x, i, 7), [(rows, f64), (uids, i32)],
               exact=exact)
        b.case(op + "_int32", lambda x, i, fn=fn: fn(x, i, 7), [(ints, i32), (uids, i32)],
               exact=True)
        b.case(op + "_int64_num_segments", lambda x, i, fn=fn: fn(x, i, tf.constant(7, i64)),
               [(ints, i64), (uids, i64)], exact=True)
        # Segment ids of rank 2: the leading two dims of data are flattened into rows.
        b.case(op + "_rank2_ids", lambda x, i, fn=fn: fn(x, i, 4),
               [(b.rng.uniform(-1, 1, size=(2, 3, 2)), f32), ([[0, -1, 2], [2, 0, -1]], i32)],
               exact=exact)
        b.case(op + "_empty", lambda x, i, fn=fn: fn(x, i, 3),
               [(np.zeros((0, 2)), f32), (np.zeros((0,), np.int32), i32)], exact=True,
               grad=False)
    for op in ("UnsortedSegmentMax", "UnsortedSegmentMin"):
        fn = unsorted_ops[op]
        b.case(op + "_ties", lambda x, i, fn=fn: fn(x, i, 4),
               [(ties, f32), ([1, 1, 1, -1, 1, 3], i32)], exact=True)
        b.case(op + "_edge", lambda x, i, fn=fn: fn(x, i, 5),
               [([-inf, -inf, inf, inf, nan, 1.0, 1.0, nan], f32),
                ([0, 0, 1, 1, 2, 2, 3, 3], i32)], exact=True, grad=False)
    b.case("UnsortedSegmentProd_zeros", lambda x, i: seg.unsorted_segment_prod(x, i, 4),
           [(zeros, f32), ([1, -1, 1, 3, 3, 1], i32)])

    # Gradients on smooth inputs (the forward cases above with float data differentiate too):
    # larger segments, ties spread over several elements, zeros in products.
    smooth = b.rng.uniform(0.5, 1.5, size=(8, 4)) * np.where(b.rng.rand(8, 4) < 0.5, -1, 1)
    sids = [0, 0, 0, 1, 3, 3, 3, 3]
    for op, fn in sorted_ops.items():
        b.case(op + "_grad", fn, [(smooth, f32), (sids, i32)])
        b.case(op + "_grad_f64", fn, [(smooth, f64), (sids, i64)])
    tie_rows = [[0.5, -0.5, 0.25], [0.5, -0.5, 0.75], [0.5, 0.1, 0.75], [0.2, 0.3, -0.4],
                [0.2, 0.3, -0.4]]
    for op in ("SegmentMax", "SegmentMin"):
        b.case(op + "_grad_ties", sorted_ops[op], [(tie_rows, f32), ([0, 0, 0, 2, 2], i32)])
    b.case("SegmentProd_grad_zeros", sorted_ops["SegmentProd"],
           [(zeros, f64), ([0, 0, 1, 1, 2, 2], i32)])
    uids8 = [2, -1, 0, 2, 2, -1, 0, 4]
    for op, fn in unsorted_ops.items():
        b.case(op + "_grad", lambda x, i, fn=fn: fn(x, i, 5), [(smooth, f32), (uids8, i32)])
        b.case(op + "_grad_f64", lambda x, i, fn=fn: fn(x, i, 5), [(smooth, f64), (uids8, i64)])
    for op in ("UnsortedSegmentMax", "UnsortedSegmentMin"):
        fn = unsorted_ops[op]
        b.case(op + "_grad_ties", lambda x, i, fn=fn: fn(x, i, 3),
               [(tie_rows, f32), ([0, -1, 0, 2, 2], i32)])
    b.case("UnsortedSegmentProd_grad_zeros", lambda x, i: seg.unsorted_segment_prod(x, i, 3),
           [(zeros, f64), ([0, 0, -1, 1, 1, 2], i32)])


def build_parse_example(b):
    """ParseExampleV2 as tf.compat.v1.io.parse_example and parse_single_example build it, on
    Examples serialized here: fixed-length features with and without defaults, sequence
    features padded, var-len features of each kind, empty and missing features, the old
    ParseExample and ParseSingleExample ops."""
    def example(**features):
        f = {}
        for key, v in features.items():
            if v is None:
                f[key] = tf.train.Feature()  # no kind: read as missing
            elif not v:
                f[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=[]))
            elif isinstance(v[0], bytes):
                f[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
            elif isinstance(v[0], float):
                f[key] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
            else:
                f[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()

    def flat(parsed):
        out = []
        for key in sorted(parsed):
            v = parsed[key]
            out += [v.indices, v.values, v.dense_shape] if isinstance(v, tf.SparseTensor) else [v]
        return out

    records = [example(age=[3], img=[1.0, 2.0], tags=[b"a", b"b"], seq=[1.0, 2.0, 3.0, 4.0],
                       ids=[7, 8, 9]),
               example(img=[5.0, 6.0], seq=[4.0, 5.0], weights=[0.5]),
               b"",
               example(img=[-1.0, 0.25], age=None, tags=[b"c"], ids=[])]
    features = {"age": tf1.io.FixedLenFeature([], tf.int64, default_value=-1),
                "img": tf1.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
                "tags": tf1.io.VarLenFeature(tf.string),
                "ids": tf1.io.VarLenFeature(tf.int64),
                "weights": tf1.io.VarLenFeature(tf.float32),
                "seq": tf1.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                                      default_value=0.5)}
    b.case("ParseExampleV2", lambda s: flat(tf1.io.parse_example(s, features)),
           [(records, tf.string)], exact=True, grad=False)
    b.case("ParseExampleV2_required",
           lambda s: flat(tf1.io.parse_example(s, {"img": tf1.io.FixedLenFeature([2], tf.float32),
                                                   "label": tf1.io.FixedLenFeature(
                                                       [1], tf.string, default_value=[b"none"])})),
           [(records[:2], tf.string)], exact=True, grad=False)
    b.case("ParseExampleV2_single",
           lambda s: flat(tf1.io.parse_single_example(s, features)),
           [(records[0], tf.string)], exact=True, grad=False)
    b.case("ParseExampleV2_empty_batch", lambda s: flat(tf1.io.parse_example(s, features)),
           [(np.zeros((0,), dtype=object), tf.string)], exact=True, grad=False)
    # TensorFlow 1.x's ops: the keys as scalar inputs (ParseExample) or attrs
    # (ParseSingleExample, which tf.io.parse_single_example built before TensorFlow 2).
    b.case("ParseSingleExample",
           lambda s: [t for group in tf.raw_ops.ParseSingleExample(
               serialized=s, dense_defaults=[tf.constant([9.0, 9.0]), tf.constant(-1, tf.int64)],
               num_sparse=2, sparse_keys=["ids", "tags"], dense_keys=["img", "age"],
               sparse_types=[tf.int64, tf.string], dense_shapes=[[2], []]) for t in group],
           [(records[3], tf.string)], exact=True, grad=False)
    b.case("ParseExample",
           lambda s: [t for group in tf.raw_ops.ParseExample(
               serialized=s, names=[], sparse_keys=["ids", "tags"], dense_keys=["img"],
               dense_defaults=[tf.constant([9.0, 9.0])], sparse_types=[tf.int64, tf.string],
               dense_shapes=[[2]]) for t in group],
           [(records, tf.string)], exact=True, grad=False)


def build_resize(b):
    """Up- and down-sampling in every mode (legacy, align_corners, half_pixel_centers), the
    no-op resize, 1-pixel images, 3 channels (TensorFlow's vectorised path), float64, bfloat16,
    int32 and uint8 images for bilinear; int32 and int64 for nearest neighbour (exact); the
    grad ops directly; and the nearest-neighbour gradient through an image of unknown static
    shape (Shape + strided_slice for its size)."""
    f32, f64, i32, i64, u8, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.bfloat16
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    img = u(2, 3, 4, 2)
    rgb = u(1, 4, 5, 3)
    modes = {"": (False, False), "_ac": (True, False), "_hp": (False, True)}
    sizes = {"up": [5, 7], "down": [2, 3], "mixed": [6, 2]}
    bilinear = tf1.image.resize_bilinear
    nearest = tf1.image.resize_nearest_neighbor

    for suffix, (ac, hp) in modes.items():
        for kind, size in sizes.items():
            b.case("ResizeBilinear_%s%s" % (kind, suffix),
                   lambda x, s=size, ac=ac, hp=hp: bilinear(x, s, align_corners=ac,
                                                            half_pixel_centers=hp),
                   [(img, f32)])
            b.case("ResizeNearestNeighbor_%s%s" % (kind, suffix),
                   lambda x, s=size, ac=ac, hp=hp: nearest(x, s, align_corners=ac,
                                                           half_pixel_centers=hp),
                   [(img, f32)])
        b.case("ResizeBilinear_rgb" + suffix,
               lambda x, ac=ac, hp=hp: bilinear(x, [7, 3], align_corners=ac,
                                                half_pixel_centers=hp), [(rgb, f32)])
        b.case("ResizeBilinear_f64" + suffix,
               lambda x, ac=ac, hp=hp: bilinear(x, [4, 6], align_corners=ac,
                                                half_pixel_centers=hp), [(img, f64)])
        b.case("ResizeBilinear_one_pixel" + suffix,
               lambda x, ac=ac, hp=hp: bilinear(x, [3, 4], align_corners=ac,
                                                half_pixel_centers=hp), [(u(1, 1, 1, 2), f32)])
        b.case("ResizeNearestNeighbor_one_pixel" + suffix,
               lambda x, ac=ac, hp=hp: nearest(x, [3, 4], align_corners=ac,
                                               half_pixel_centers=hp), [(u(1, 1, 1, 2), f32)])
        b.case("ResizeNearestNeighbor_f64" + suffix,
               lambda x, ac=ac, hp=hp: nearest(x, [5, 3], align_corners=ac,
                                               half_pixel_centers=hp), [(img, f64)])
        # Integer images: bilinear outputs float32 (no gradient), nearest neighbour keeps them.
        ints = b.rng.randint(0, 256, size=(1, 3, 4, 2))
        b.case("ResizeBilinear_uint8" + suffix,
               lambda x, ac=ac, hp=hp: bilinear(x, [5, 6], align_corners=ac,
                                                half_pixel_centers=hp), [(ints, u8)])
        b.case("ResizeBilinear_int32" + suffix,
               lambda x, ac=ac, hp=hp: bilinear(x, [2, 7], align_corners=ac,
                                                half_pixel_centers=hp), [(ints - 128, i32)])
        b.case("ResizeNearestNeighbor_int32" + suffix,
               lambda x, ac=ac, hp=hp: nearest(x, [5, 6], align_corners=ac,
                                               half_pixel_centers=hp), [(ints - 128, i32)],
               exact=True)
        b.case("ResizeNearestNeighbor_int64" + suffix,
               lambda x, ac=ac, hp=hp: nearest(x, [2, 3], align_corners=ac,
                                               half_pixel_centers=hp), [(ints * 1000003, i64)],
               exact=True)
        # The grad ops straight, both ways of resizing.
        for kind, size in (("up", [6, 7]), ("down", [2, 3])):
            g = u(2, size[0], size[1], 2)
            b.case("ResizeBilinearGrad_%s%s" % (kind, suffix),
                   lambda gg, x, ac=ac, hp=hp: tf.raw_ops.ResizeBilinearGrad(
                       grads=gg, original_image=x, align_corners=ac, half_pixel_centers=hp),
                   [(g, f32), (img, f32)], grad=False)
            b.case("ResizeNearestNeighborGrad_%s%s" % (kind, suffix),
                   lambda gg, ac=ac, hp=hp: tf.raw_ops.ResizeNearestNeighborGrad(
                       grads=gg, size=[3, 4], align_corners=ac, half_pixel_centers=hp),
                   [(g, f32)], grad=False)
        b.case("ResizeBilinearGrad_f64" + suffix,
               lambda gg, x, ac=ac, hp=hp: tf.raw_ops.ResizeBilinearGrad(
                   grads=gg, original_image=x, align_corners=ac, half_pixel_centers=hp),
               [(u(2, 5, 2, 2), f32), (img, f64)], grad=False)
        b.case("ResizeNearestNeighborGrad_int32" + suffix,
               lambda gg, ac=ac, hp=hp: tf.raw_ops.ResizeNearestNeighborGrad(
                   grads=gg, size=[2, 3], align_corners=ac, half_pixel_centers=hp),
               [(b.rng.randint(-50, 50, size=(1, 5, 7, 2)), i32)], exact=True)
    # Same size: a cast (bilinear) and a copy (nearest neighbour).
    b.case("ResizeBilinear_same_size", lambda x: bilinear(x, [3, 4]), [(img, f32)])
    b.case("ResizeBilinear_same_size_int32", lambda x: bilinear(x, [2, 2]),
           [([[[[1], [2]], [[-3], [4]]]], i32)], exact=True)
    b.case("ResizeNearestNeighbor_same_size", lambda x: nearest(x, [3, 4]), [(img, f32)])
    # bfloat16 images (float32 out); the gradient is rounded to bfloat16.
    b.case("ResizeBilinear_bf16", lambda x: bilinear(x, [5, 3]), [(img, bf16)], tolerance=1e-2)
    b.case("ResizeNearestNeighbor_bf16", lambda x: nearest(x, [5, 3], half_pixel_centers=True),
           [(img, bf16)], tolerance=1e-2)
    # Unknown static height and width: the gradient's size is shape(image)[1:3]. (The
    # Reshapes give the loss weights a static shape.)
    unknown = lambda x: tf1.placeholder_with_default(x, [None, None, None, 2])  # noqa: E731
    b.case("ResizeNearestNeighbor_dynamic_shape",
           lambda x: tf.reshape(nearest(unknown(x), [5, 7]), [2, 5, 7, 2]), [(img, f32)])
    b.case("ResizeBilinear_dynamic_shape",
           lambda x: tf.reshape(bilinear(unknown(x), [2, 5], half_pixel_centers=True),
                                [2, 2, 5, 2]), [(img, f32)])
    # A size computed in the graph (static height and width unknown).
    b.case("ResizeBilinear_size_tensor",
           lambda x, s: tf.reshape(bilinear(x, s * 2, align_corners=True), [2, 4, 6, 2]),
           [(img, f32), ([2, 3], i32)])


def build_depthwise_lrn(b):
    f32, f64 = tf.float32, tf.float64
    dw = tf1.nn.depthwise_conv2d_native
    raw = tf.raw_ops
    x = b.rng.uniform(-1, 1, size=(2, 5, 6, 3))
    w1 = b.rng.uniform(-1, 1, size=(3, 3, 3, 1))
    w2 = b.rng.uniform(-1, 1, size=(3, 2, 3, 2))
    # DepthwiseConv2dNative: SAME, VALID, stride 2, channel multiplier 2, float64, explicit
    # padding, a 1x1 filter.
    b.case("DepthwiseConv2dNative_same", lambda a, f: dw(a, f, [1, 1, 1, 1], "SAME"),
           [(x, f32), (w1, f32)])
    b.case("DepthwiseConv2dNative_valid", lambda a, f: dw(a, f, [1, 1, 1, 1], "VALID"),
           [(x, f32), (w1, f32)])
    b.case("DepthwiseConv2dNative_stride2", lambda a, f: dw(a, f, [1, 2, 2, 1], "SAME"),
           [(x, f32), (w1, f32)])
    b.case("DepthwiseConv2dNative_stride2_valid", lambda a, f: dw(a, f, [1, 2, 2, 1], "VALID"),
           [(x, f32), (w2, f32)])
    b.case("DepthwiseConv2dNative_multiplier2", lambda a, f: dw(a, f, [1, 1, 1, 1], "SAME"),
           [(x, f32), (w2, f32)])
    b.case("DepthwiseConv2dNative_f64", lambda a, f: dw(a, f, [1, 2, 2, 1], "SAME"),
           [(x, f64), (w2, f64)])
    b.case("DepthwiseConv2dNative_explicit",
           lambda a, f: raw.DepthwiseConv2dNative(
               input=a, filter=f, strides=[1, 1, 1, 1], padding="EXPLICIT",
               explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]),
           [(x, f32), (w2, f32)])
    b.case("DepthwiseConv2dNative_1x1", lambda a, f: dw(a, f, [1, 1, 1, 1], "VALID"),
           [(x, f32), (b.rng.uniform(-1, 1, size=(1, 1, 3, 2)), f32)])
    # Dilation 2: TensorFlow's CPU kernel refuses dilations on the native op (Unimplemented),
    # so the dilated case is tf.nn.depthwise_conv2d's, which runs the native op (dilation 1)
    # on SpaceToBatchND's output and returns through BatchToSpaceND.
    b.case("DepthwiseConv2dNative_dilation2",
           lambda a, f: tf.nn.depthwise_conv2d(a, f, [1, 1, 1, 1], "SAME", dilations=[2, 2]),
           [(x, f32), (w2, f32)])
    # The two backprop ops straight (their inputs' gradients are taken as well: none exist
    # in TensorFlow, so only values are compared).
    dy = b.rng.uniform(-1, 1, size=(2, 3, 3, 6))
    b.case("DepthwiseConv2dNativeBackpropInput",
           lambda f, g: raw.DepthwiseConv2dNativeBackpropInput(
               input_sizes=[2, 5, 6, 3], filter=f, out_backprop=g, strides=[1, 2, 2, 1],
               padding="SAME"),
           [(w2, f32), (dy, f32)], grad=False)
    b.case("DepthwiseConv2dNativeBackpropInput_f64",
           lambda f, g: raw.DepthwiseConv2dNativeBackpropInput(
               input_sizes=[2, 5, 6, 3], filter=f, out_backprop=g, strides=[1, 2, 2, 1],
               padding="SAME"),
           [(w2, f64), (dy, f64)], grad=False)
    b.case("DepthwiseConv2dNativeBackpropFilter",
           lambda a, g: raw.DepthwiseConv2dNativeBackpropFilter(
               input=a, filter_sizes=[3, 2, 3, 2], out_backprop=g, strides=[1, 2, 2, 1],
               padding="SAME"),
           [(x, f32), (dy, f32)], grad=False)
    b.case("DepthwiseConv2dNativeBackpropFilter_valid",
           lambda a, g: raw.DepthwiseConv2dNativeBackpropFilter(
               input=a, filter_sizes=[3, 3, 3, 1], out_backprop=g, strides=[1, 1, 1, 1],
               padding="VALID"),
           [(x, f32), (b.rng.uniform(-1, 1, size=(2, 3, 4, 3)), f32)], grad=False)
    # LRN: defaults (radius 5 over a depth of 7: windows clipped on both sides), custom attrs
    # (beta neither 0.5 nor 1: the exp/log path; beta 1), float64.
    xl = b.rng.uniform(-1, 1, size=(2, 2, 3, 7))
    lrn = tf.nn.local_response_normalization
    b.case("LRN", lambda a: lrn(a), [(xl, f32)])
    b.case("LRN_custom", lambda a: lrn(a, depth_radius=2, bias=2.0, alpha=0.3, beta=0.75),
           [(xl, f32)])
    b.case("LRN_beta1", lambda a: lrn(a, depth_radius=1, bias=0.5, alpha=0.5, beta=1.0),
           [(xl, f32)])
    # LRN has no float64 in TensorFlow (its OpDef allows half, bfloat16 and float only).
    b.case("LRN_radius3", lambda a: lrn(a, depth_radius=3, bias=1.5, alpha=0.2, beta=0.6),
           [(xl, f32)])
    b.case("LRN_radius0", lambda a: lrn(a, depth_radius=0, bias=1.0, alpha=2.0, beta=0.5),
           [(xl, f32)])
    # LRNGrad straight, the output image from LRN of the same attrs.
    gl = b.rng.uniform(-1, 1, size=(2, 2, 3, 7))
    b.case("LRNGrad",
           lambda g, a: raw.LRNGrad(input_grads=g, input_image=a,
                                    output_image=lrn(a, depth_radius=2, bias=2.0, alpha=0.3,
                                                     beta=0.75),
                                    depth_radius=2, bias=2.0, alpha=0.3, beta=0.75),
           [(gl, f32), (xl, f32)], grad=False)
    b.case("LRNGrad_defaults",
           lambda g, a: raw.LRNGrad(input_grads=g, input_image=a, output_image=lrn(a),
                                    depth_radius=5, bias=1.0, alpha=1.0, beta=0.5),
           [(gl, f32), (xl, f32)], grad=False)


def build_products_and_indexing(b):
    """BatchMatMul (V1, V2, V3), GatherNd, ScatterNd, TensorScatter*, TopKV2, InTopKV2."""
    f32, f64, i32, i64 = tf.float32, tf.float64, tf.int32, tf.int64
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    mm = tf.linalg.matmul
    b.case("BatchMatMulV2", lambda x, y: mm(x, y), [(u(2, 3, 4), f32), (u(2, 4, 5), f32)])
    b.case("BatchMatMulV2_adj_x", lambda x, y: mm(x, y, adjoint_a=True),
           [(u(2, 4, 3), f32), (u(2, 4, 5), f32)])
    b.case("BatchMatMulV2_adj_y", lambda x, y: mm(x, y, adjoint_b=True),
           [(u(2, 3, 4), f32), (u(2, 5, 4), f32)])
    b.case("BatchMatMulV2_adj_xy", lambda x, y: mm(x, y, adjoint_a=True, adjoint_b=True),
           [(u(2, 4, 3), f64), (u(2, 5, 4), f64)])
    b.case("BatchMatMulV2_broadcast", lambda x, y: mm(x, y),
           [(u(2, 1, 3, 4), f32), (u(3, 4, 5), f32)])
    b.case("BatchMatMulV2_matrix_batch", lambda x, y: mm(x, y), [(u(3, 4), f32), (u(2, 4, 5), f32)])
    b.case("BatchMatMulV2_int32", lambda x, y: mm(x, y),
           [(b.rng.randint(-9, 9, size=(2, 2, 3)), i32), (b.rng.randint(-9, 9, size=(1, 3, 2)), i32)],
           exact=True)
    b.case("BatchMatMulV2_empty", lambda x, y: mm(x, y), [(u(2, 3, 0), f32), (u(2, 0, 4), f32)])
    b.case("BatchMatMul", lambda x, y: tf.raw_ops.BatchMatMul(x=x, y=y, adj_y=True),
           [(u(2, 3, 4), f32), (u(2, 5, 4), f32)])
    b.case("BatchMatMulV3", lambda x, y: tf.raw_ops.BatchMatMulV3(x=x, y=y, Tout=tf.float32),
           [(u(3, 2, 4), f32), (u(1, 4, 2), f32)])
    # GatherNd: whole slices, elements, batches of indices, K = 0, strings.
    params = u(3, 4)
    b.case("GatherNd_elements", lambda p, i: tf.gather_nd(p, i),
           [(params, f32), ([[0, 1], [2, 3], [1, 1], [0, 1]], i32)])
    b.case("GatherNd_rows", lambda p, i: tf.gather_nd(p, i), [(params, f32), ([[1], [0], [1]], i32)])
    b.case("GatherNd_batch", lambda p, i: tf.gather_nd(p, i),
           [(u(3, 2, 2), f64), ([[[2, 1], [0, 0]], [[1, 1], [2, 0]]], i64)])
    # (TensorFlow's gradient of K = 0 fails: ScatterNd rejects it.)
    b.case("GatherNd_k0", lambda p, i: tf.gather_nd(p, i), [(params, f32), (np.zeros((2, 0)), i32)],
           grad=False)
    b.case("GatherNd_vector_index", lambda p, i: tf.gather_nd(p, i), [(params, f32), ([2], i32)],
           grad=False)  # TensorFlow's ScatterNd reads 1-D indices as rows: its gradient fails
    b.case("GatherNd_string", lambda p, i: tf.gather_nd(p, i),
           [([[b"a", b"b"], [b"c", b"d"]], tf.string), ([[1, 0], [0, 1]], i32)], exact=True)
    # ScatterNd: duplicates add up; slices and elements.
    b.case("ScatterNd_rows", lambda i, up: tf.scatter_nd(i, up, [5, 2]),
           [([[1], [3], [1]], i32), (u(3, 2), f32)])
    b.case("ScatterNd_elements", lambda i, up: tf.scatter_nd(i, up, tf.constant([3, 4], i64)),
           [([[0, 1], [2, 3], [0, 1]], i64), (u(3), f64)])
    b.case("ScatterNd_int32", lambda i, up: tf.scatter_nd(i, up, [4]),
           [([[1], [1], [3]], i32), ([5, 7, -2], i32)], exact=True)
    # TensorScatter*: update (the last write of a slice wins), add, sub, max and min with ties.
    tensor = u(4, 3)
    updates = u(2, 3)
    updates[1, 0] = tensor[3, 0]
    for op, fn in {"TensorScatterUpdate": tf.tensor_scatter_nd_update,
                   "TensorScatterAdd": tf.tensor_scatter_nd_add,
                   "TensorScatterSub": tf.tensor_scatter_nd_sub,
                   "TensorScatterMax": tf.tensor_scatter_nd_max,
                   "TensorScatterMin": tf.tensor_scatter_nd_min}.items():
        b.case(op, lambda t, i, up, fn=fn: fn(t, i, up),
               [(tensor, f32), ([[1], [3]], i32), (updates, f32)])
    b.case("TensorScatterUpdate_dup", lambda t, i, up: tf.tensor_scatter_nd_update(t, i, up),
           [([0.0, 0.0, 0.0, 0.0], f32), ([[1], [1]], i32), ([1.0, 2.0], f32)], grad=False)
    b.case("TensorScatterAdd_int64", lambda t, i, up: tf.tensor_scatter_nd_add(t, i, up),
           [([[1, 2], [3, 4]], i64), ([[0, 1], [1, 0], [0, 1]], i32), ([10, 20, 30], i64)],
           exact=True)
    # TopKV2: ties keep index order; k = 0, k = n; integers.
    ties = np.array([[0.5, 0.9, 0.1, 0.9, -0.3, 0.5], [0.2, -0.1, 0.7, 0.0, 0.7, 0.7],
                     [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    b.case("TopKV2", lambda x: list(tf.nn.top_k(x, 3)), [(ties, f32)])
    b.case("TopKV2_full", lambda x: list(tf.nn.top_k(x, 6)), [(ties, f64)])
    b.case("TopKV2_k0", lambda x: list(tf.nn.top_k(x, 0)), [(ties, f32)], grad=False)
    b.case("TopKV2_vector", lambda x: list(tf.nn.top_k(x, 2)), [([3.0, -1.0, 7.0, 7.0], f32)])
    b.case("TopKV2_rank3", lambda x: list(tf.nn.top_k(x, 2)), [(u(2, 3, 4), f32)])
    b.case("TopKV2_int32", lambda x: list(tf.nn.top_k(x, 2)), [([[4, 9, 9, -1], [0, 0, 0, 0]], i32)],
           exact=True)
    preds = [[0.1, 0.8, 0.8, 0.3, 0.0], [0.5, 0.2, 0.9, 0.9, 0.1], [0.3, float("inf"), 0.1, 0.2, 0.0],
             [0.2, 0.1, 0.3, 0.4, 0.5]]
    for k in (1, 2, 3):
        b.case("InTopKV2_k%d" % k, lambda p, t, k=k: tf1.nn.in_top_k(p, t, k),
               [(preds, f32), ([2, 3, 0, 7], i32)], exact=True)
    b.case("InTopKV2_int64", lambda p, t: tf1.nn.in_top_k(p, t, 2), [(preds, f32), ([1, 2, 0, 4], i64)],
           exact=True)


CASE_FAMILIES = ["space_batch", "matrix", "misc_math", "string", "image_proc", "einsum", "conv3d",
                 "scatter_nd_var", "image_color", "sparse_tensor", "segment_v2",
                 "sequence_example", "string_format", "lookup", "patches_pool", "random_more",
                 "misc_array", "audio", "linalg_decomp", "batch_norm_5d", "rnn_block", "sets_sparse", "math_special", "seq_ctc", "serialize_io", "array_more", "image_more", "nn_legacy",
                 # Appended last: a family's cases draw from the shared RandomState.
                 "linalg_more"]


def write_fixture(g, b, out, extra=None):
    """Runs every case of `b` (built in `g`) and writes OUT/graph.pb and OUT/reference.json
    (with `extra`'s keys besides "tensorflow" and "cases")."""
    # Grappler off: the cases are all constants, and its folding must not stand in for the
    # kernels (nor trip over multi-output ops).
    config = tf1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf1.Session(graph=g, config=config) as sess:
        for entry in b.cases:
            values = sess.run(entry["outputs"])
            entry["outputs"] = [[n, encode(v)] for n, v in zip(entry["outputs"], values)]
            if "grads" in entry:
                # A gradient TensorFlow leaves None (Ceil, Round, ...) stays null.
                names = entry["grads"]
                gv = sess.run([n for n in names if n is not None])
                it = iter(gv)
                entry["grads"] = [[n, encode(next(it))] if n is not None else None
                                  for n in names]
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(dict({"tensorflow": tf.__version__, "cases": b.cases}, **(extra or {})), f,
                  indent=1)


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    b = Builder()
    with g.as_default():
        build(b)
        build_products_and_indexing(b)
        build_pad(b)
        build_segment(b)
        build_parse_example(b)
        build_resize(b)
        build_depthwise_lrn(b)
        # The families kept in their own files (scripts/peers/op_cases_<family>.py).
        for family in CASE_FAMILIES:
            module = importlib.import_module("op_cases_" + family)
            getattr(module, "build_" + family)(b)
    write_fixture(g, b, out)
    print("wrote %d cases to %s" % (len(b.cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ops")
