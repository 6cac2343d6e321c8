#!/usr/bin/env python3
"""Writes tests/data/tf_dtypes: one GraphDef (graph.pb) that TensorFlow's tf.compat.v1 builds
of the kernels TensorFlow registers for the newer dtypes, each on constant inputs:
complex64 and complex128 through MatMul, BatchMatMulV2 (adjoints conjugate), the
trigonometric and hyperbolic functions, Expm1, Log1p, Pow, Sign, SquaredDifference, Xlogy,
Xdivy, Xlog1py, MulNoNan, comparisons, Select, Where, Cumsum, Cumprod, Einsum, BiasAdd,
EuclideanNorm and UnsortedSegmentSum (gradients through complex(re, im) where TensorFlow
has them); int8, int16, uint8, uint16, uint32 and uint64 through the arithmetic (wrapping
around), comparisons, reductions, bitwise ops, activations and ArgMax; float16 and bfloat16
through the kernels of training (Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool,
FusedBatchNormV3, BiasAdd, the activation gradients, the softmax losses), with their
gradients, and their random values (stateful and stateless Philox streams); the SparseTensor
kernels (SparseAdd, SparseTensorDenseAdd, the sparse reductions, element-wise and
SparseTensorDenseMatMul, SparseSoftmax, SparseFillEmptyRows, the sparse gradients, the
sparse segment sums) in each; OneHot with int8 indices. reference.json: what TensorFlow computes for every output and
gradient, in
make_op_fixtures.py's format. Never a dependency of the build or the tests: the fixture is
committed, and this script remakes it.

  python scripts/peers/make_dtype_fixtures.py [OUT_DIR]   # default tests/data/tf_dtypes

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from make_op_fixtures import Builder, encode, write_fixture  # noqa: E402

tf1 = tf.compat.v1
f16, bf16, f32, f64 = tf.float16, tf.bfloat16, tf.float32, tf.float64
c64, c128 = tf.complex64, tf.complex128
INTS = {"int8": tf.int8, "int16": tf.int16, "uint8": tf.uint8, "uint16": tf.uint16,
        "uint32": tf.uint32, "uint64": tf.uint64}


def cplx(rng, shape, scale=1.0):
    return scale * (rng.uniform(-1, 1, size=shape) + 1j * rng.uniform(-1, 1, size=shape))


def parts(fn, n=1):
    """A case of fn over complex(re_k, im_k) for n complex inputs, its outputs' real and
    imaginary parts (real outputs stay as they are)."""
    def build(*xs):
        zs = [tf.complex(xs[2 * k], xs[2 * k + 1]) for k in range(n)]
        ys = fn(*zs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        out = []
        for y in ys:
            out += [tf.math.real(y), tf.math.imag(y)] if y.dtype.is_complex else [y]
        return out
    return build


def split(z, dt):
    """The inputs of a parts() case: the real and imaginary parts of z, as dtype dt."""
    return [(np.real(z), dt), (np.imag(z), dt)]


def build_complex(b):
    rng = b.rng
    for cdt, rdt, tol in ((c64, f32, 2e-5), (c128, f64, 1e-11)):
        sfx = "_c64" if cdt == c64 else "_c128"
        a, m = cplx(rng, (3, 4)), cplx(rng, (4, 2))
        # MatMul transposes only; tf.matmul's adjoints conjugate first.
        for name, fn in (("MatMul", lambda x, y: tf.matmul(x, y)),
                         ("MatMul_ta", lambda x, y: tf.matmul(x, y, transpose_a=True)),
                         ("MatMul_adj_a", lambda x, y: tf.matmul(x, y, adjoint_a=True)),
                         ("MatMul_adj_b", lambda x, y: tf.matmul(x, y, adjoint_b=True))):
            lhs = a.T if name in ("MatMul_ta", "MatMul_adj_a") else a
            rhs = m.T if name == "MatMul_adj_b" else m
            b.case(name + sfx, parts(fn, 2), split(lhs, rdt) + split(rhs, rdt), tolerance=tol,
                   atol=tol)
        x3, y3 = cplx(rng, (2, 3, 4)), cplx(rng, (2, 4, 2))
        for name, fn, xv, yv in (
                ("BatchMatMul", lambda x, y: tf.matmul(x, y), x3, y3),
                ("BatchMatMul_adj_x", lambda x, y: tf.matmul(x, y, adjoint_a=True),
                 np.swapaxes(x3, 1, 2), y3),
                ("BatchMatMul_adj_y", lambda x, y: tf.matmul(x, y, adjoint_b=True), x3,
                 np.swapaxes(y3, 1, 2)),
                ("BatchMatMul_broadcast", lambda x, y: tf.matmul(x, y), x3[:1], y3)):
            b.case(name + sfx, parts(fn, 2), split(xv, rdt) + split(yv, rdt), tolerance=tol,
                   atol=tol)
        b.case("BatchMatMul_raw_adj" + sfx,
               lambda x, y: tf.raw_ops.BatchMatMulV2(x=x, y=y, adj_x=True, adj_y=True),
               [(np.swapaxes(x3, 1, 2), cdt), (np.swapaxes(y3, 1, 2), cdt)], tolerance=tol,
               atol=tol)
        # Element-wise functions, forward on complex constants and differentiated through
        # complex(re, im); arguments kept off the branch cuts.
        z = cplx(rng, (3, 4), 0.8)
        for name, fn in (("Tan", tf.math.tan), ("Atan", tf.math.atan), ("Asin", tf.math.asin),
                         ("Acos", tf.math.acos), ("Sinh", tf.math.sinh), ("Cosh", tf.math.cosh),
                         ("Asinh", tf.math.asinh), ("Acosh", tf.math.acosh),
                         ("Atanh", tf.math.atanh), ("Expm1", tf.math.expm1),
                         ("Log1p", tf.math.log1p), ("Tanh", tf.math.tanh),
                         ("Sigmoid", tf.math.sigmoid), ("Sign", tf.math.sign)):
            src = z + 2.0 if name == "Acosh" else z
            b.case(name + sfx, fn, [(src, cdt)], tolerance=tol * 4, atol=tol,
                   grad=False)
            if name != "Sign":
                b.case(name + "_grad" + sfx, parts(fn), split(src, rdt), tolerance=tol * 4,
                       atol=tol)
        w = cplx(rng, (4,), 0.9)
        for name, fn in (("Pow", tf.math.pow), ("SquaredDifference", tf.math.squared_difference),
                         ("Xlogy", tf.math.xlogy), ("Xdivy", tf.math.xdivy),
                         ("Xlog1py", tf.math.xlog1py), ("MulNoNan", tf.math.multiply_no_nan)):
            zz = z.copy()
            zz[0, 0] = 0  # the zero cases of Xlogy, Xdivy, Xlog1py and Pow's mask
            b.case(name + sfx, fn, [(zz, cdt), (w, cdt)], tolerance=tol * 4, atol=tol,
                   grad=False)
        b.case("Pow_grad" + sfx, parts(tf.math.pow, 2), split(z + 1.5, rdt) + split(w, rdt),
               tolerance=tol * 8, atol=tol)
        b.case("SquaredDifference_grad" + sfx, parts(tf.math.squared_difference, 2),
               split(z, rdt) + split(w, rdt), tolerance=tol, atol=tol)
        same = z.copy()
        same[1] = w
        b.case("Compare" + sfx, lambda x, y: [tf.equal(x, y), tf.not_equal(x, y)],
               [(same, cdt), (w, cdt)], exact=True)
        zw = z.copy()
        zw[0, 1] = 0
        zw[2, 3] = 0
        b.case("Select_Where" + sfx,
               lambda x, y: [tf1.where(tf.abs(x) > 0.5, x, y), tf1.where(x)],
               [(zw, cdt), (z * 2, cdt)], exact=True)
        b.case("Cumsum_Cumprod" + sfx,
               lambda x: [tf.math.cumsum(x, axis=1), tf.math.cumprod(x, axis=0, exclusive=True),
                          tf.math.cumsum(x, axis=0, reverse=True)],
               [(z, cdt)], tolerance=tol, atol=tol)
        b.case("Einsum" + sfx, lambda x, y: tf.einsum("ij,jk->ik", x, y),
               [(a, cdt), (m, cdt)], tolerance=tol, atol=tol)
        b.case("BiasAdd_grad" + sfx, parts(tf.nn.bias_add, 2), split(z, rdt) + split(w, rdt),
               tolerance=tol, atol=tol)
        b.case("EuclideanNorm" + sfx,
               lambda x: [tf.norm(x, axis=1), tf.raw_ops.EuclideanNorm(input=x, axis=[0, 1])],
               [(z, cdt)], tolerance=tol, atol=tol)
        b.case("UnsortedSegmentSum" + sfx,
               lambda x: tf.math.unsorted_segment_sum(x, [1, 0, 1], 3), [(z, cdt)],
               tolerance=tol, atol=tol)


def build_integers(b):
    for name, dt in INTS.items():
        info = np.iinfo(dt.as_numpy_dtype)
        signed = info.min < 0
        # Near the ends of the range, so the arithmetic wraps around.
        x = np.array([[info.max, info.max - 3, 7, 0], [1, 5, 100, info.max // 2],
                      [info.min, info.min + 1 if signed else 2, 3, 9]], dtype=dt.as_numpy_dtype)
        y = np.array([3, 2, 7, 5], dtype=dt.as_numpy_dtype)
        if signed:
            y = np.array([3, -2, 7, -5], dtype=dt.as_numpy_dtype)
        e = {"exact": True, "grad": False}
        b.case("Arith_" + name,
               lambda p, q: [tf.raw_ops.AddV2(x=p, y=q), tf.subtract(p, q), tf.multiply(p, q),
                             tf.raw_ops.Div(x=p, y=q), tf.math.floordiv(p, q),
                             tf.math.floormod(p, q), tf.raw_ops.TruncateDiv(x=p, y=q),
                             tf.maximum(p, q), tf.minimum(p, q), tf.square(p),
                             tf.nn.relu(p), tf.nn.relu6(p), tf.raw_ops.BiasAdd(value=p, bias=q)],
               [(x, dt), (y, dt)], **e)
        if dt != tf.uint16 and dt != tf.uint32 and dt != tf.uint64:
            b.case("Add_" + name, lambda p, q: tf.raw_ops.Add(x=p, y=q), [(x, dt), (y, dt)], **e)
        if signed:
            b.case("Signed_" + name,
                   lambda p, q: [tf.abs(p), tf.negative(p), tf.sign(p),
                                 tf.pow(p, tf.abs(q) % 4)],
                   [(x, dt), (y, dt)], **e)
        b.case("Compare_" + name,
               lambda p, q: [tf.equal(p, q), tf.not_equal(p, q), tf.less(p, q),
                             tf.less_equal(p, q), tf.greater(p, q), tf.greater_equal(p, q),
                             tf1.where(tf.less(p, q), p, tf.zeros_like(p)), tf1.where(p)],
               [(x, dt), (y, dt)], **e)
        b.case("Reduce_" + name,
               lambda p: [tf.reduce_sum(p, 0), tf.reduce_mean(p, 1), tf.reduce_prod(p, 1),
                          tf.reduce_max(p, 0), tf.reduce_min(p), tf.argmax(p, 1),
                          tf.argmin(p, 0, output_type=tf.int32), tf.add_n([p, p, p]),
                          tf.math.cumsum(p, 1), tf.math.cumprod(p, 0),
                          tf.math.unsorted_segment_sum(p, [0, 0, 1], 2),
                          tf.raw_ops.BiasAddGrad(out_backprop=p)],
               [(x, dt)], **e)
        b.case("Bitwise_" + name,
               lambda p, q, signed=signed: [tf.bitwise.bitwise_and(p, q), tf.bitwise.bitwise_or(p, q),
                             tf.bitwise.bitwise_xor(p, q), tf.bitwise.invert(p),
                             tf.bitwise.left_shift(p, tf.abs(q) if signed else q),
                             tf.bitwise.right_shift(p, tf.abs(q) if signed else q),
                             tf.raw_ops.PopulationCount(x=p)],
               [(x, dt), (y, dt)], **e)
        if dt not in (tf.uint32, tf.uint64):
            b.case("ClipByValue_" + name, lambda p: tf.clip_by_value(p, p[1, 1], p[1, 3]),
                   [(x, dt)], **e)
        b.case("Cross_" + name, lambda p: tf.linalg.cross(p[:, :3], p[:, 1:]), [(x, dt)], **e)
        b.case("MaxPool_" + name,
               lambda p, dt=dt: [
                   tf.nn.max_pool2d(tf.reshape(p, [1, 3, 4, 1]), 2, 1, "VALID"),
                   tf.raw_ops.MaxPoolGrad(
                       orig_input=tf.reshape(p, [1, 3, 4, 1]),
                       orig_output=tf.nn.max_pool2d(tf.reshape(p, [1, 3, 4, 1]), 2, 1, "VALID"),
                       grad=tf.ones([1, 2, 3, 1], dt), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                       padding="VALID")] if dt not in (tf.uint32, tf.uint64) else [
                   tf.raw_ops.MaxPoolGrad(
                       orig_input=tf.reshape(p, [1, 3, 4, 1]),
                       orig_output=tf.reshape(p, [1, 3, 4, 1]), grad=tf.reshape(p, [1, 3, 4, 1]),
                       ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1], padding="VALID")],
               [(x, dt)], **e)
    rng = b.rng
    b.case("Conv2D_int32",
           lambda x, f: [tf.nn.conv2d(x, f, 1, "SAME"),
                         tf.raw_ops.Conv2DBackpropInput(
                             input_sizes=[1, 4, 4, 2], filter=f, out_backprop=tf.nn.conv2d(x, f, 1, "SAME"),
                             strides=[1, 1, 1, 1], padding="SAME")],
           [(rng.randint(-9, 9, size=(1, 4, 4, 2)), tf.int32),
            (rng.randint(-3, 3, size=(3, 3, 2, 3)), tf.int32)], exact=True, grad=False)
    b.case("Mean_int8_no_overflow", lambda p: tf.reduce_mean(p),
           [([120, 120, 120, 121], tf.int8)], exact=True, grad=False)


def build_half(b):
    rng = b.rng
    img = rng.uniform(-1, 1, size=(2, 5, 5, 3))
    flt = rng.uniform(-0.5, 0.5, size=(3, 3, 3, 4))
    dw = rng.uniform(-0.5, 0.5, size=(3, 3, 3, 2))
    logits = rng.uniform(-2, 2, size=(4, 5))
    labels = np.eye(5)[[0, 3, 1, 4]] * 0.7 + 0.06
    bias = rng.uniform(-1, 1, size=(3,))
    for dt, tol in ((f16, 1e-2), (bf16, 5e-2)):
        sfx = "_f16" if dt == f16 else "_bf16"
        kw = {"tolerance": tol, "atol": tol}
        b.case("Conv2D" + sfx, lambda x, f: tf.nn.conv2d(x, f, [1, 2, 1, 1], "SAME"),
               [(img, dt), (flt, dt)], **kw)
        b.case("Conv2D_valid" + sfx, lambda x, f: tf.nn.conv2d(x, f, 1, "VALID"),
               [(img, dt), (flt, dt)], **kw)
        b.case("Depthwise" + sfx,
               lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"),
               [(img, dt), (dw, dt)], **kw)
        b.case("MaxPool" + sfx, lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), [(img, dt)], **kw)
        b.case("AvgPool" + sfx, lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), [(img, dt)], **kw)
        b.case("FusedBatchNorm" + sfx,
               lambda x, s, o: tf1.nn.fused_batch_norm(x, s, o, is_training=True)[0],
               [(img, dt), ([1.0, 0.5, 2.0], f32), ([0.0, 0.1, -0.2], f32)], **kw)
        b.case("BiasAdd_Relu" + sfx, lambda x, c: tf.nn.relu(tf.nn.bias_add(x, c)),
               [(img, dt), (bias, dt)], **kw)
        b.case("Tanh_Sigmoid" + sfx, lambda x: [tf.tanh(x), tf.sigmoid(x)], [(logits, dt)], **kw)
        b.case("SoftmaxXent" + sfx,
               lambda x, y: tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
               [(logits, dt), (labels, dt)], **kw)
        b.case("SparseXent" + sfx,
               lambda x: tf1.nn.sparse_softmax_cross_entropy_with_logits(
                   labels=tf.constant([0, 3, 1, 4]), logits=x), [(logits, dt)], **kw)
        b.case("LogSoftmax" + sfx, tf.nn.log_softmax, [(logits, dt)], **kw)
    h = rng.uniform(0.5, 3, size=(3, 4))
    b.case("Special_f16",
           lambda x: [tf.math.lgamma(x), tf.math.digamma(x), tf.math.special.bessel_i0e(x),
                      tf.math.special.bessel_j1(x)], [(h, f16)], tolerance=5e-3, atol=2e-3,
           grad=False)
    b.case("Misc_f16",
           lambda x, y: [tf.einsum("ij,kj->ik", x, y), tf.math.cumsum(x, 1),
                         tf.math.multiply_no_nan(x, y), tf.math.xlog1py(x, y),
                         tf.raw_ops.TruncateDiv(x=x, y=y), tf.norm(x, axis=0),
                         tf.math.unsorted_segment_sum(x, [1, 1, 0], 2)],
           [(h, f16), (h[::-1] - 1.0, f16)], tolerance=5e-3, atol=2e-3, grad=False)
    # Random float16 (and bfloat16) values: TensorFlow's Philox streams and conversions.
    for dt, sfx in ((f16, "_f16"), (bf16, "_bf16")):
        b.case("Random" + sfx,
               lambda s: [tf1.random.uniform([3, 5], dtype=dt, seed=3),
                          tf1.random.normal([7], dtype=dt, seed=4),
                          tf1.random.truncated_normal([9], dtype=dt, seed=5),
                          tf.random.stateless_uniform([2, 3], seed=s, dtype=dt),
                          tf.random.stateless_normal([5], seed=s, dtype=dt),
                          tf.random.stateless_truncated_normal([6], seed=s, dtype=dt)],
               [([7, 11], tf.int32)], exact=True, grad=False)
    b.case("TruncateDiv_f32", lambda x, y: tf.raw_ops.TruncateDiv(x=x, y=y),
           [([7.5, -7.5, 7.5, -7.5, 0.5], f32), ([2.0, 2.0, -2.0, -2.0, -3.0], f32)],
           exact=True, grad=False)


def build_moves(b):
    """The band, diagonal, space-to-batch and snapshot kernels of each newer dtype."""
    for name, dt in (("f16", f16), ("int8", tf.int8), ("uint16", tf.uint16), ("c64", c64),
                     ("uint64", tf.uint64), ("bool", tf.bool)):
        src = np.arange(1, 17).reshape(4, 4)
        if dt == c64:
            src = src + 1j * src[::-1]
        elif dt == tf.bool:
            src = src % 3 == 0
        b.case("Band_diag_" + name,
               lambda x: [tf.linalg.band_part(x, 1, 0), tf.linalg.diag_part(x),
                          tf.linalg.diag(x[0]),
                          tf.linalg.set_diag(x, tf.reverse(tf.linalg.diag_part(x), [0])),
                          tf.raw_ops.MatrixDiagPartV3(input=x, k=[-1, 1], padding_value=x[0, 0],
                                                      align="LEFT_RIGHT"),
                          tf.raw_ops.Snapshot(input=x)],
               [(src, dt)], exact=True, grad=False)
        if dt not in (tf.bool, c64):  # TensorFlow's kernels take real numbers only
            b.case("Space_batch_" + name,
                   lambda x: [tf.space_to_batch_nd(tf.reshape(x, [1, 4, 4, 1]), [2, 2],
                                                   [[0, 0], [0, 0]]),
                              tf.compat.v1.batch_to_space_nd(tf.reshape(x, [4, 2, 2, 1]), [2, 2],
                                                             [[0, 0], [0, 1]])],
                   [(src, dt)], exact=True, grad=False)
        if dt in (f16, c64):
            b.case("Diag_" + name, lambda x: [tf.linalg.tensor_diag(x[0]),
                                              tf.linalg.tensor_diag_part(x)],
                   [(src, dt)], exact=True, grad=False)


def build_segments(b):
    """The segment reductions of each newer dtype (float16 and bfloat16 with gradients)."""
    ids = [0, 0, 1, 3]
    for name, dt in (("f16", f16), ("bf16", bf16), ("int8", tf.int8), ("uint16", tf.uint16),
                     ("uint64", tf.uint64), ("c64", c64)):
        src = np.arange(1, 13).reshape(4, 3) % 7
        if dt == c64:
            src = src + 1j * (src % 3)
        real = dt != c64
        floating = dt in (f16, bf16)
        kw = {"tolerance": 1e-2, "atol": 1e-2} if floating else {"exact": dt != c64}
        if dt == c64:
            kw = {"tolerance": 1e-6}
        # Sorted reductions have 4 rows (last id 3); known shapes for the gradients' weights.
        rows = lambda y, n=4: tf.reshape(y, [n, 3])  # noqa: E731
        b.case("Segments_" + name,
               lambda x, real=real: [rows(tf.math.segment_sum(x, ids)),
                                     rows(tf.math.segment_mean(x, ids)),
                                     rows(tf.math.segment_prod(x, ids)),
                                     tf.math.unsorted_segment_prod(x, [1, -1, 1, 0], 2)] +
               ([rows(tf.math.segment_max(x, ids)), rows(tf.math.segment_min(x, ids)),
                 tf.math.unsorted_segment_max(x, [1, -1, 1, 0], 3),
                 tf.math.unsorted_segment_min(x, [2, 2, 1, 0], 3)] if real else []),
               [(src, dt)], grad=floating, **kw)
        if floating:
            b.case("Sparse_segments_" + name,
                   lambda x: [rows(tf.sparse.segment_sum(x, [0, 2, 3], [0, 0, 1]), 2),
                              rows(tf.sparse.segment_mean(x, [1, 2, 3], [0, 1, 1]), 2),
                              rows(tf.sparse.segment_sqrt_n(x, [3, 2, 0], [0, 0, 1]), 2)],
                   [(src, dt)], **kw)


def build_scatters(b):
    """ScatterNd and TensorScatter{Add,Sub,Max,Min} of each newer dtype."""
    idx = [[0], [2], [0]]
    for name, dt in (("f16", f16), ("bf16", bf16), ("int8", tf.int8), ("uint16", tf.uint16),
                     ("uint64", tf.uint64), ("c64", c64)):
        t = np.arange(1, 13).reshape(4, 3) % 5
        u = np.arange(9).reshape(3, 3) % 4
        if dt == c64:
            t, u = t + 1j, u - 1j * u
        real = dt != c64
        b.case("Scatters_" + name,
               lambda x, y, real=real: [tf.scatter_nd(idx, y, [4, 3]),
                                        tf.tensor_scatter_nd_add(x, idx, y),
                                        tf.tensor_scatter_nd_sub(x, idx, y)] +
               ([tf.tensor_scatter_nd_max(x, idx, y), tf.tensor_scatter_nd_min(x, idx, y)]
                if real else []),
               [(t, dt), (u, dt)], exact=True, grad=False)


def build_images(b):
    """Resizes, crops, colours, LRN, TopK, non-max suppression and the 3-D convolutions and
    pools of the newer dtypes."""
    rng = b.rng
    img = rng.uniform(0, 1, size=(1, 4, 5, 3))
    boxes = [[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]]
    for name, dt in (("f16", f16), ("bf16", bf16), ("int8", tf.int8), ("uint16", tf.uint16),
                     ("int16", tf.int16)):
        floating = dt in (f16, bf16)
        src = img if floating else np.round(img * 100)
        kw = {"tolerance": 2e-2, "atol": 2e-2} if floating else {"tolerance": 1e-5, "atol": 1e-4}
        b.case("Resize_" + name,
               lambda x, dt=dt: [tf1.image.resize_bilinear(x, [6, 7]),
                                 tf1.image.resize_nearest_neighbor(x, [3, 8]),
                                 tf1.image.resize_bicubic(x, [5, 4]),
                                 tf1.image.resize_area(x, [2, 3])] +
               # CropAndResize's OpDef has no bfloat16.
               ([tf1.image.crop_and_resize(x, boxes, [0, 0], [3, 3])] if dt != bf16 else []),
               [(src, dt)], grad=False, **kw)
        b.case("TopK_" + name, lambda x: list(tf.math.top_k(tf.reshape(x, [4, 15]), 4)),
               [(src, dt)], exact=True, grad=False)
    for name, dt in (("f16", f16), ("bf16", bf16)):
        kw = {"tolerance": 2e-2, "atol": 2e-2}
        b.case("Color_" + name, lambda x: [tf.image.rgb_to_hsv(x),
                                           tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x))],
               [(img, dt)], grad=False, **kw)
        b.case("Logsumexp_" + name, lambda x: tf.math.cumulative_logsumexp(x, axis=2),
               [(img, dt)], grad=False, **kw)
        vol = rng.uniform(-1, 1, size=(1, 4, 4, 4, 2))
        flt = rng.uniform(-0.5, 0.5, size=(2, 2, 2, 2, 3))
        b.case("Conv3D_" + name, lambda x, f: tf.nn.conv3d(x, f, [1] * 5, "SAME"),
               [(vol, dt), (flt, dt)], **kw)
        if dt == bf16:  # TensorFlow's 3-D pools: float and bfloat16
            b.case("Pool3D_" + name, lambda x: [tf.nn.max_pool3d(x, 2, 2, "VALID"),
                                                tf.nn.avg_pool3d(x, 2, 1, "SAME")],
                   [(vol, dt)], **kw)
    kw = {"tolerance": 2e-2, "atol": 2e-2}
    b.case("LRN_f16", lambda x: tf.nn.local_response_normalization(x, 2), [(img, f16)], **kw)
    nms_boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                 [0, 10.1, 1, 11.1], [0, 100, 1, 101]]
    b.case("NMS_f16",
           lambda bx, sc: [tf.image.non_max_suppression(bx, sc, 3, 0.5)] + list(
               tf.raw_ops.NonMaxSuppressionV5(
                   boxes=bx, scores=sc, max_output_size=4, iou_threshold=tf.constant(0.5, f16),
                   score_threshold=tf.constant(0.0, f16),
                   soft_nms_sigma=tf.constant(0.0, f16))[:2]),
           [(nms_boxes, f16), ([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], f16)], exact=True, grad=False)


def build_half_more(b):
    """The float16 kernels of the V2 and argmax pools, dilation, boxes, projective transforms,
    padded convolution, LSTM cell and ScaleAndTranslate (the float kernels, rounded)."""
    rng = b.rng
    img = rng.uniform(0, 1, size=(1, 4, 4, 3))
    kw = {"tolerance": 2e-2, "atol": 2e-2, "grad": False}
    h = f16
    b.case("Pools_more_f16",
           lambda x: [tf.raw_ops.MaxPoolV2(input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                           padding="SAME"),
                      tf.raw_ops.MaxPoolWithArgmax(input=x, ksize=[1, 2, 2, 1],
                                                   strides=[1, 2, 2, 1], padding="VALID")[0],
                      tf.raw_ops.MaxPoolGradGrad(orig_input=x, orig_output=x, grad=x * 2,
                                                 ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                                                 padding="SAME")],
           [(img, h)], **kw)
    b.case("Dilation_f16", lambda x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC",
                                                         [1, 1, 1, 1]),
           [(img, h), (rng.uniform(0, 0.5, size=(2, 2, 3)), h)], **kw)
    b.case("Boxes_f16", lambda x: tf.image.draw_bounding_boxes(
        x, tf.constant([[[0.1, 0.2, 0.8, 0.7]]], tf.float32), [[1.0, 0.0, 0.0, 1.0]]),
           [(img, h)], **kw)
    b.case("Transform_f16", lambda x: tf.raw_ops.ImageProjectiveTransformV3(
        images=x, transforms=tf.constant([[1, 0.2, 0.5, 0, 1, -0.3, 0, 0]], tf.float32),
        output_shape=[4, 4], fill_value=0.0, interpolation="BILINEAR"), [(img, h)],
           **kw)
    b.case("FusedPadConv_f16", lambda x, f: tf.raw_ops.FusedPadConv2D(
        input=x, paddings=[[0, 0], [1, 1], [1, 1], [0, 0]], filter=f, mode="REFLECT",
        strides=[1, 1, 1, 1], padding="VALID"),
           [(img, h), (rng.uniform(-0.5, 0.5, size=(2, 2, 3, 2)), h)], **kw)
    b.case("ScaleAndTranslate_f16", lambda x: tf.raw_ops.ScaleAndTranslate(
        images=x, size=[6, 5], scale=tf.constant([1.5, 1.25]),
        translation=tf.constant([0.0, 0.5])), [(img, h)], **kw)
    b.case("LSTMBlockCell_f16", lambda x, w: list(tf.raw_ops.LSTMBlockCell(
        x=x, cs_prev=tf.ones([2, 3], h) * 0.5, h_prev=tf.ones([2, 3], h) * -0.25, w=w,
        wci=tf.zeros([3], h), wcf=tf.zeros([3], h), wco=tf.zeros([3], h), b=tf.zeros([12], h))),
           [(rng.uniform(-1, 1, size=(2, 2)), h), (rng.uniform(-0.5, 0.5, size=(5, 12)), h)],
           **kw)


def build_misc(b):
    """Searches, NthElement, ArgMax's 16-bit outputs and full-range unsigned random ints."""
    for name, dt in (("f16", f16), ("int8", tf.int8), ("uint16", tf.uint16),
                     ("uint64", tf.uint64)):
        sorted_v = [[1, 3, 5, 7, 9], [0, 2, 2, 4, 8]]
        vals = [[0, 3, 6, 10], [2, 2, 5, 9]]
        b.case("Search_" + name,
               lambda s_, v: [tf.searchsorted(s_, v, side="left"),
                              tf.searchsorted(s_, v, side="right", out_type=tf.int64),
                              tf.raw_ops.NthElement(input=s_, n=2),
                              tf.raw_ops.NthElement(input=s_, n=1, reverse=True),
                              tf.argmax(v, 1, output_type=tf.int16),
                              tf.argmax(v, 0, output_type=tf.uint16)],
               [(sorted_v, dt), (vals, dt)], exact=True, grad=False)
    for dt, sfx in ((tf.uint32, "_uint32"), (tf.uint64, "_uint64")):
        b.case("StringToNumber" + sfx, lambda x, dt=dt: tf.strings.to_number(x, dt),
               [(["0", "7", " 42 ", "+9", "4294967295"], tf.string)], exact=True, grad=False)
        b.case("FullInt" + sfx,
               lambda s_, dt=dt: [tf.raw_ops.StatelessRandomUniformFullInt(
                   shape=[7], seed=s_, dtype=dt)],
               [([3, 9], tf.int32)], exact=True, grad=False)


def build_decode_raw(b):
    """DecodeRaw and DecodePaddedRaw to each newer dtype, in both byte orders."""
    data = [bytes(range(16)), bytes(range(100, 116))]
    for name, dt in (("f16", f16), ("int8", tf.int8), ("int16", tf.int16),
                     ("uint16", tf.uint16), ("c64", c64), ("c128", c128)):
        b.case("DecodeRaw_" + name,
               lambda x, dt=dt: [tf.io.decode_raw(x, dt), tf.io.decode_raw(x, dt,
                                                                            little_endian=False)],
               [(data, tf.string)], exact=True, grad=False)
        if dt not in (c64, c128, f16):  # TensorFlow has no float16 DecodePaddedRaw kernel
            b.case("DecodePaddedRaw_" + name,
                   lambda x, dt=dt: tf.io.decode_raw(x, dt, fixed_length=12,
                                                     little_endian=False),
                   [(data, tf.string)], exact=True, grad=False)


def build_sparse(b):
    """The SparseTensor kernels of each newer dtype: SparseAdd (and its gradient),
    SparseTensorDenseAdd, SparseReduce{Sum,Max}[Sparse], SparseDenseCwise{Mul,Div,Add},
    SparseSparse{Maximum,Minimum}, SparseTensorDenseMatMul (adjoints conjugate), SparseSoftmax,
    SparseFillEmptyRows[Grad], SparseSliceGrad, SparseSegmentSum, the WithNumSegments
    reductions and ScatterNdNonAliasingAdd."""
    ix = [[0, 1], [1, 0], [1, 2], [2, 2]]
    ix2 = [[0, 1], [1, 1], [2, 2], [3, 0]]
    shape = [4, 3]
    sp = lambda v, i=ix: tf.SparseTensor(i, v, shape)  # noqa: E731
    raw = tf.raw_ops
    for name, dt in (("f16", f16), ("bf16", bf16), ("int8", tf.int8), ("int16", tf.int16),
                     ("uint16", tf.uint16), ("uint64", tf.uint64), ("c64", c64),
                     ("c128", c128)):
        v = np.array([3, 5, 2, 6])
        w = np.array([1, 4, 2, 3])
        d = (np.arange(12).reshape(4, 3) % 5) + 1
        if dt in (c64, c128):
            v, w, d = v + 1j * (v % 3), w - 1j, d + 1j * (d % 2)
        floating = dt in (f16, bf16)
        complex_ = dt in (c64, c128)
        kw = {"tolerance": 1e-2, "atol": 1e-2} if floating else (
            {"tolerance": 1e-6, "atol": 1e-6} if complex_ else {"exact": True})
        outs = lambda x, y, dd: [  # noqa: E731
            raw.SparseTensorDenseAdd(a_indices=[[0, 1], [0, 1], [3, 2]], a_values=x[:3],
                                     a_shape=shape, b=dd),
            tf.sparse.reduce_sum(sp(x), 1), tf.sparse.reduce_sum(sp(x), 0, keepdims=True),
            tf.sparse.reduce_sum(sp(x), 1, output_is_sparse=True).values,
            raw.SparseSliceGrad(backprop_val_grad=y[:2], input_indices=ix,
                                input_start=[1, 0], output_indices=[[0, 0], [0, 2]]),
            raw.SparseFillEmptyRowsGrad(reverse_index_map=[0, 2, 3, 5],
                                        grad_values=tf.concat([x, y[:2]], 0))[0],
            raw.SparseFillEmptyRowsGrad(reverse_index_map=[0, 2, 3, 5],
                                        grad_values=tf.concat([x, y[:2]], 0))[1],
            tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], x[:2], [5, 2]),
                                      x[3])[0].values]
        if dt not in (f16, bf16, tf.uint16, tf.uint64):  # SparseAdd's types
            outs_add = lambda x, y: [  # noqa: E731
                tf.sparse.add(sp(x), sp(y, ix2)).values,
                tf.sparse.add(sp(x), sp(-y if not complex_ else y, ix2), threshold=2).values,
                raw.SparseAddGrad(backprop_val_grad=tf.concat([x, y[:1]], 0), a_indices=ix,
                                  b_indices=ix2,
                                  sum_indices=[[0, 1], [1, 0], [1, 1], [1, 2], [2, 2]])[1]]
        else:
            outs_add = lambda x, y: []  # noqa: E731
        if not complex_:
            outs_real = lambda x, y, dd: [  # noqa: E731
                tf.sparse.reduce_max(sp(x), 1), tf.sparse.reduce_max(sp(x), 1,
                                                                     output_is_sparse=True).values,
                (sp(x) * dd).values, (sp(x) / dd).values,
                raw.SparseDenseCwiseAdd(sp_indices=ix, sp_values=x, sp_shape=shape,
                                        dense=dd[0]),
                tf.sparse.maximum(sp(x), sp(y, ix2)).values,
                tf.sparse.minimum(sp(x), sp(y, ix2)).values,
                tf.sparse.segment_sum(dd, [0, 2, 3], [0, 0, 1]),
                tf.sparse.segment_sum(dd, [3, 1], [0, 2], num_segments=4)]
        else:
            outs_real = lambda x, y, dd: []  # noqa: E731
        b.case("Sparse_" + name,
               lambda x, y, dd, o=outs, a=outs_add, r=outs_real: o(x, y, dd) + a(x, y) +
               r(x, y, dd),
               [(v, dt), (w, dt), (d, dt)], grad=False, **kw)
        b.case("NonAliasingAdd_" + name,
               lambda x, y: raw.ScatterNdNonAliasingAdd(input=x, indices=[[1], [3], [1]],
                                                        updates=y[:3] * 1),
               [(d[:, 0], dt), (v, dt)], grad=False, **kw)
    b.case("SparseFillEmptyRows_string",
           lambda x: (lambda r: [r[0].indices, r[0].values, r[1]])(
               tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0], [1, 1]], x, [3, 2]), "z")),
           [(["a", "b"], tf.string)], exact=True, grad=False)
    for name, dt in (("f16", f16), ("bf16", bf16), ("c64", c64)):
        a = np.array([[1, 0, 2], [0, 0, 3]]) * 0.5
        m = np.arange(6).reshape(3, 2) * 0.25 - 0.5
        if dt == c64:
            a, m = a + 1j * a, m - 0.5j
        tol = {"tolerance": 1e-2, "atol": 1e-2} if dt != c64 else {"tolerance": 1e-6}
        st = lambda x: tf.sparse.from_dense(x)  # noqa: E731
        b.case("SparseDenseMatMul_" + name,
               lambda x, y: [tf.sparse.sparse_dense_matmul(st(x), y),
                             tf.sparse.sparse_dense_matmul(st(tf.transpose(x)), y,
                                                           adjoint_a=True),
                             tf.sparse.sparse_dense_matmul(st(x), tf.transpose(y),
                                                           adjoint_b=True)],
               [(a, dt), (m, dt)], grad=False, **tol)
    h = np.array([[0.5, -1, 2, 0], [1, 0, 0, 3], [0, 0, 0, 0.25]])
    b.case("SparseSoftmax_f16", lambda x: tf.sparse.to_dense(tf.sparse.softmax(
        tf.sparse.from_dense(x))), [(h, f16)], tolerance=2e-3, atol=2e-3)
    b.case("SparseSegmentsNum_f16",
           lambda x: [tf.sparse.segment_sum(x, [0, 2, 2], [0, 0, 2], num_segments=4),
                      tf.sparse.segment_mean(x, [0, 1, 2], [0, 0, 2], num_segments=3),
                      tf.sparse.segment_sqrt_n(x, [0, 1, 2], [1, 1, 2], num_segments=3)],
           [(h, f16)], grad=False, tolerance=2e-3, atol=2e-3)
    # int8 indices (OneHot's TI). (TensorFlow's SplitV shape function aborts on a constant
    # int8 size_splits, so its int8 Tlen is checked in the test itself.)
    b.case("OneHot_int8", lambda x: [tf.one_hot(x, 4),
                                     tf.one_hot(x, 3, axis=0, on_value=5, off_value=-1)],
           [([0, 3, -1, 2], tf.int8)], exact=True, grad=False)



def build_more_kernels(b):
    """The dtypes of the pools, patches, dilations, MirrorPadGrad, BiasAddV1, CheckNumericsV2,
    the set ops and the integer image ops that kernel_dtypes_peers.py found missing (not
    AdjustContrast and the first Conv3DBackprop ops: TensorFlow 2 builds no graph of them)."""
    rng = b.rng
    e = {"exact": True, "grad": False}
    x = np.array([[9, 3, 7, 0, 5], [1, 8, 2, 6, 4], [7, 7, 1, 9, 2], [3, 0, 6, 5, 8]])
    for name, dt in (("int8", tf.int8), ("int16", tf.int16), ("uint16", tf.uint16),
                     ("uint32", tf.uint32), ("uint64", tf.uint64)):
        small = dt in (tf.int8, tf.int16, tf.uint16)
        img = np.reshape(x, [1, 4, 5, 1])

        def pool_ops(p, dt=dt, small=small):
            pooled, argmax = tf.raw_ops.MaxPoolWithArgmax(input=p, ksize=[1, 2, 2, 1],
                                                          strides=[1, 1, 1, 1], padding="VALID")
            out = [pooled, argmax,
                    tf.raw_ops.MaxPoolGradWithArgmax(input=p, grad=tf.ones([1, 3, 4, 1], dt),
                                                     argmax=argmax, ksize=[1, 2, 2, 1],
                                                     strides=[1, 1, 1, 1], padding="VALID"),
                    tf.raw_ops.MaxPoolGradGrad(orig_input=p, orig_output=pooled, grad=p,
                                               ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                               padding="VALID"),
                    tf.raw_ops.MaxPoolGradGradV2(orig_input=p, orig_output=pooled, grad=p,
                                                 ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                                 padding="VALID"),
                    tf.raw_ops.MaxPoolGradV2(orig_input=p, orig_output=pooled,
                                             grad=tf.ones([1, 3, 4, 1], dt), ksize=[1, 2, 2, 1],
                                             strides=[1, 1, 1, 1], padding="VALID"),
                    tf.raw_ops.Dilation2D(input=p, filter=tf.ones([2, 2, 1], dt),
                                          strides=[1, 1, 1, 1], rates=[1, 1, 1, 1],
                                          padding="VALID"),
                    tf.raw_ops.Dilation2DBackpropInput(
                        input=p, filter=tf.ones([2, 2, 1], dt), out_backprop=tf.ones([1, 3, 4, 1], dt),
                        strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID"),
                    tf.raw_ops.Dilation2DBackpropFilter(
                        input=p, filter=tf.ones([2, 2, 1], dt), out_backprop=tf.ones([1, 3, 4, 1], dt),
                        strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID"),
                    tf.image.extract_patches(p, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
                    tf.raw_ops.ExtractVolumePatches(input=tf.reshape(p, [1, 1, 4, 5, 1]),
                                                    ksizes=[1, 1, 2, 2, 1],
                                                    strides=[1, 1, 1, 2, 1], padding="VALID"),
                    tf.raw_ops.MirrorPadGrad(input=tf.reshape(p, [4, 5]), paddings=[[1, 1], [1, 1]],
                                             mode="SYMMETRIC"),
                    tf.raw_ops.BiasAddV1(value=tf.reshape(p, [4, 5]), bias=p[0, 0, :, 0])]
            if small:
                out += [tf.raw_ops.MaxPoolV2(input=p, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                             padding="VALID")]
            return out

        b.case("PoolsMore_" + name, pool_ops, [(img, dt)], **e)
        if dt in (tf.int8, tf.int16, tf.uint16):
            sets = np.array([[1, 3, 5, 3], [2, 4, 4, 9]])
            b.case("Sets_" + name,
                   lambda p, q: [tf.sets.size(tf.sparse.from_dense(p)), tf.sets.intersection(p, q).values,
                                 tf.sets.union(p, q).values, tf.sets.difference(p, q).values],
                   [(sets, dt), (sets[::-1], dt)], **e)
        if dt in (tf.int8, tf.int16):
            b.case("ImageInts_" + name,
                   lambda p, dt=dt: [
                       tf.image.random_crop(tf.reshape(p, [4, 5, 1]), [2, 3, 1], seed=7),
                       tf.raw_ops.StatelessSampleDistortedBoundingBox(
                           image_size=tf.constant([40, 50, 3], dt),
                           bounding_boxes=tf.constant([[[0.1, 0.2, 0.6, 0.7]]]),
                           min_object_covered=0.1, seed=[3, 4])[0]],
                   [(x, dt)], **e)
    for name, dt, kw in (("c64", c64, {"exact": True}), ("f16", f16, {"tolerance": 2e-2, "atol": 2e-2})):
        z = cplx(rng, (1, 4, 5, 1)) if dt == c64 else rng.uniform(-1, 1, size=(1, 4, 5, 1))
        b.case("PatchesMore_" + name,
               lambda p, dt=dt: [tf.image.extract_patches(p, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1],
                                                          "VALID"),
                                 tf.raw_ops.MirrorPadGrad(input=tf.reshape(p, [4, 5]),
                                                          paddings=[[1, 1], [0, 1]], mode="REFLECT"),
                                 tf.raw_ops.BiasAddV1(value=tf.reshape(p, [4, 5]), bias=p[0, 0, :, 0])] +
               ([tf.raw_ops.ExtractVolumePatches(input=tf.reshape(p, [1, 1, 4, 5, 1]),
                                                 ksizes=[1, 1, 2, 2, 1], strides=[1, 1, 1, 2, 1],
                                                 padding="VALID"),
                 tf.raw_ops.CheckNumericsV2(tensor=p, message="fine")] if dt == f16 else []),
               [(z, dt)], grad=False, **kw)

def write_training(out):
    """OUT/training.pb and training.json: one step of ApplyAdam, ApplyGradientDescent,
    ApplyMomentum, ApplyFtrl, ApplyAdadelta, ApplyAddSign, SparseApply{Adagrad,Momentum,Ftrl,
    FtrlV2,Adadelta,AdagradV2} and the variable scatters on float16 and bfloat16 reference
    variables, the
    scatters on int8, uint16 and complex64 ones (init op "init"), the updated variables and
    slots TensorFlow computes, each update run on its own, in order."""
    g = tf.Graph()
    fetches = []
    with g.as_default():
        # Integer and complex variables through the variable scatters.
        for dt, sfx in ((tf.int8, "_int8"), (tf.uint16, "_uint16"), (c64, "_c64")):
            x = tf1.Variable(tf.constant([1, 2, 3, 4], dt), name="iscatter" + sfx,
                             use_resource=False)
            upd = tf.constant([5, 7, 9], dt)
            fetches += [tf1.assign_add(x, upd[::-1][:1] + tf.zeros([4], dt), name="assign_add" + sfx),
                        tf1.assign_sub(x, tf.ones([4], dt), name="assign_sub" + sfx),
                        tf1.scatter_add(x, [0, 2, 0], upd, name="scatter_add" + sfx),
                        tf1.scatter_mul(x, [1, 3], upd[:2], name="scatter_mul" + sfx),
                        tf.raw_ops.ScatterNdAdd(ref=x, indices=[[3], [3]], updates=upd[1:],
                                                name="scatter_nd_add" + sfx)]
        for dt in (f16, bf16):
            sfx = "_f16" if dt == f16 else "_bf16"
            c = lambda x, dt=dt: tf.constant(x, dt)  # noqa: E731
            var = lambda x, name: tf1.Variable(c(x), name=name + sfx, use_resource=False)  # noqa
            w, m, v = var([0.5, -1.25, 2.0], "w"), var([0.0, 0.1, -0.1], "m"), var(
                [0.0, 0.01, 0.02], "v")
            gd, mom, acc = var([0.5, -1.25, 2.0], "gd"), var([0.5, -1.25, 2.0], "mom"), var(
                [0.1, 0.2, 0.3], "acc")
            grad = c([0.1, -0.2, 0.3])
            fetches += [
                tf.raw_ops.ApplyAdam(var=w, m=m, v=v, beta1_power=c(0.9), beta2_power=c(0.99),
                                     lr=c(0.01), beta1=c(0.9), beta2=c(0.999), epsilon=c(1e-3),
                                     grad=grad, name="adam" + sfx),
                tf.raw_ops.ApplyGradientDescent(var=gd, alpha=c(0.25), delta=grad,
                                                name="sgd" + sfx),
                tf.raw_ops.ApplyMomentum(var=mom, accum=acc, lr=c(0.5), grad=grad,
                                         momentum=c(0.9), name="momentum" + sfx)]
            sc = var([1.0, 2.0, 3.0, 4.0], "scatter")
            fetches += [tf1.scatter_add(sc, [0, 2, 0], c([0.5, 0.25, 0.125]),
                                        name="scatter_add" + sfx),
                        tf1.scatter_max(sc, [1, 3], c([5.0, -1.0]), name="scatter_max" + sfx),
                        tf.raw_ops.ScatterNdSub(ref=sc, indices=[[3], [1]],
                                                updates=c([0.5, 1.5]), name="scatter_nd_sub" + sfx)]
            ftrl_w, ftrl_a, ftrl_l = var([0.5, -1.25, 2.0], "ftrl_w"), var(
                [0.1, 0.2, 0.3], "ftrl_a"), var([0.0, 0.5, -0.5], "ftrl_l")
            ad_w, ad_a, ad_u = var([0.5, -1.25, 2.0], "ad_w"), var([0.1, 0.2, 0.3], "ad_a"), var(
                [0.0, 0.1, 0.2], "ad_u")
            sign_w, sign_m = var([0.5, -1.25, 2.0], "sign_w"), var([0.1, -0.2, 0.0], "sign_m")
            fetches += [
                tf.raw_ops.ApplyFtrl(var=ftrl_w, accum=ftrl_a, linear=ftrl_l, grad=grad,
                                     lr=c(0.1), l1=c(0.01), l2=c(0.02), lr_power=c(-0.5),
                                     name="ftrl" + sfx),
                tf.raw_ops.ApplyAdadelta(var=ad_w, accum=ad_a, accum_update=ad_u, lr=c(1.0),
                                         rho=c(0.9), epsilon=c(1e-3), grad=grad,
                                         name="adadelta" + sfx),
                tf.raw_ops.ApplyAddSign(var=sign_w, m=sign_m, lr=c(0.1), alpha=c(1.0),
                                        sign_decay=c(0.99), beta=c(0.9), grad=grad,
                                        name="add_sign" + sfx)]
            emb, emb_acc = var([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], "emb"), var(
                [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], "emb_acc")
            rgrad = c([[0.1, -0.2], [0.3, 0.05], [-0.1, 0.2]])
            fetches += [
                tf.raw_ops.SparseApplyAdagrad(var=emb, accum=emb_acc, lr=c(0.5), grad=rgrad,
                                              indices=[2, 0, 2], name="sparse_adagrad" + sfx),
                tf.raw_ops.SparseApplyMomentum(var=emb, accum=emb_acc, lr=c(0.25), grad=rgrad[:2],
                                               indices=[1, 0], momentum=c(0.9),
                                               name="sparse_momentum" + sfx)]
            sw = var([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], "sparse_w")
            sa = var([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], "sparse_a")
            sl = var([[0.0, 0.5], [-0.5, 0.25], [0.1, 0.0]], "sparse_l")
            su = var([[0.0, 0.1], [0.2, 0.3], [0.05, 0.0]], "sparse_u")
            fetches += [
                tf.raw_ops.SparseApplyFtrl(var=sw, accum=sa, linear=sl, grad=rgrad,
                                           indices=[2, 0, 2], lr=c(0.1), l1=c(0.01), l2=c(0.02),
                                           lr_power=c(-0.5), name="sparse_ftrl" + sfx),
                tf.raw_ops.SparseApplyFtrlV2(var=sw, accum=sa, linear=sl, grad=rgrad[:2],
                                             indices=[1, 0], lr=c(0.1), l1=c(0.01), l2=c(0.02),
                                             l2_shrinkage=c(0.05), lr_power=c(-0.5),
                                             name="sparse_ftrl_v2" + sfx),
                tf.raw_ops.SparseApplyAdadelta(var=sw, accum=sa, accum_update=su, lr=c(1.0),
                                               rho=c(0.9), epsilon=c(1e-3), grad=rgrad,
                                               indices=[0, 1, 2], name="sparse_adadelta" + sfx),
                tf.raw_ops.SparseApplyAdagradV2(var=sw, accum=sa, lr=c(0.5), epsilon=c(1e-3),
                                                grad=rgrad, indices=[2, 2, 1],
                                                name="sparse_adagrad_v2" + sfx)]
            slots = [m, v, acc, ftrl_a, ftrl_l, ad_a, ad_u, sign_m, emb_acc, sa, sl, su]
            fetches += [tf.identity(x, name="read_" + x.op.name) for x in slots]
        init = tf1.global_variables_initializer()
        # The updates first, then the slots they left.
        names = [f.name for f in fetches]
        updates = [n for n in names if not n.startswith("read_")]
        reads = [n for n in names if n.startswith("read_")]
        with tf1.Session() as sess:
            sess.run(init)
            # One run per update: several update one variable, in this order.
            values = [sess.run(u) for u in updates]
            values += sess.run(reads)
    tf.io.write_graph(g.as_graph_def(), out, "training.pb", as_text=False)
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump({"init": init.name, "updates": updates, "reads": reads,
                   "values": [encode(x) for x in values]}, f, indent=1)


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    b = Builder()
    with g.as_default():
        build_complex(b)
        build_integers(b)
        build_half(b)
        build_moves(b)
        build_segments(b)
        build_scatters(b)
        build_images(b)
        build_decode_raw(b)
        build_half_more(b)
        build_misc(b)
        build_sparse(b)
        build_more_kernels(b)
    write_fixture(g, b, out)
    write_training(out)
    print("wrote %d cases to %s" % (len(b.cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_dtypes")
