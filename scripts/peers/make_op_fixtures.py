#!/usr/bin/env python3
"""Writes tests/data/tf_ops: one GraphDef (graph.pb) that TensorFlow's tf.compat.v1 builds of
the element-wise, activation, scan, split, reverse, set, logical-reduction and fused batch
norm ops, each on
constant inputs, with tf.gradients of a weighted sum of each differentiable case; and
reference.json, what TensorFlow computes for every output and gradient. Never a dependency
of the build or the tests: the fixture is committed, and this script remakes it.

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
    a = np.asarray(value)
    if a.dtype == tf.bfloat16.as_numpy_dtype:
        a = a.astype(np.float32)
        dtype = "bfloat16"
    else:
        dtype = {np.dtype("float32"): "float32", np.dtype("float64"): "float64",
                 np.dtype("int32"): "int32", np.dtype("int64"): "int64",
                 np.dtype("bool"): "bool", np.dtype("object"): "string"}[a.dtype]

    def one(v):
        if dtype == "string":
            return v.decode()
        if dtype == "bool":
            return bool(v)
        if dtype in ("int32", "int64"):
            return int(v)
        v = float(v)
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v

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


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    b = Builder()
    with g.as_default():
        build(b)
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
        json.dump({"tensorflow": tf.__version__, "cases": b.cases}, f, indent=1)
    print("wrote %d cases to %s" % (len(b.cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ops")
