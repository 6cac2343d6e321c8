#!/usr/bin/env python3
"""Writes tests/data/tf_complex: one GraphDef (graph.pb) that TensorFlow's tf.compat.v1
builds of the complex numbers (Complex, Real, Imag, Angle, ComplexAbs, Conj and the
element-wise math of complex64 and complex128), the FFTs (FFT ... IFFT3D, RFFT ... IRFFT3D
through tf.signal's wrappers, with fft_length equal to, shorter and longer than the input),
float16 arithmetic and the Casts between every pair of the newer dtypes (float16, int8,
int16, uint16, uint32, uint64, complex64, complex128), each on constant inputs, with
tf.gradients of a weighted sum of each differentiable case (the complex cases differentiate
through real-valued parts: Complex of two float inputs in, Real, Imag or ComplexAbs out);
reference.json, what TensorFlow computes for every output and gradient, in
make_op_fixtures.py's format (complex values as [real, imag] pairs), with "checkpoint": the
values of ckpt/model, a Saver's checkpoint of a variable of each newer dtype. Never a dependency of the
build or the tests: the fixture is committed, and this script remakes it.

  python scripts/peers/make_complex_fixtures.py [OUT_DIR]   # default tests/data/tf_complex

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
f16, f32, f64 = tf.float16, tf.float32, tf.float64
c64, c128 = tf.complex64, tf.complex128


def cplx(rng, shape):
    return rng.uniform(-2, 2, size=shape) + 1j * rng.uniform(-2, 2, size=shape)


def parts(fn):
    """A case of complex(re, im) through fn, with real outputs: its real and imaginary parts."""
    def build(re, im):
        y = fn(tf.complex(re, im))
        return [tf.math.real(y), tf.math.imag(y)]
    return build


def build_complex(b):
    rng = b.rng
    z = cplx(rng, (3, 4))
    w = cplx(rng, (4,))
    # The ops of complex numbers, forward on complex constants.
    for dt, tol in ((c64, 2e-6), (c128, 1e-12)):
        sfx = "_c64" if dt == c64 else "_c128"
        b.case("Real" + sfx, tf.math.real, [(z, dt)], tolerance=tol)
        b.case("Imag" + sfx, tf.math.imag, [(z, dt)], tolerance=tol)
        b.case("Angle" + sfx, tf.math.angle, [(z, dt)], tolerance=tol)
        b.case("ComplexAbs" + sfx, tf.abs, [(z, dt)], tolerance=tol)
        b.case("Conj" + sfx, tf.math.conj, [(z, dt)], exact=True)
        for name, fn in (("Add", tf.add), ("Sub", tf.subtract), ("Mul", tf.multiply),
                         ("RealDiv", tf.math.truediv), ("AddV2", tf.raw_ops.AddV2)):
            op = fn if name != "AddV2" else (lambda x, y: tf.raw_ops.AddV2(x=x, y=y))
            b.case(name + sfx, op, [(z, dt), (w, dt)], tolerance=tol * 4)
        for name, fn in (("Neg", tf.negative), ("Square", tf.square), ("Sqrt", tf.sqrt),
                         ("Rsqrt", tf.math.rsqrt), ("Exp", tf.exp), ("Log", tf.math.log),
                         ("Sin", tf.sin), ("Cos", tf.cos), ("Reciprocal", tf.math.reciprocal),
                         ("Tanh", tf.tanh), ("Sigmoid", tf.sigmoid)):
            b.case(name + sfx, fn, [(z, dt)], tolerance=tol * 8)
    # Complex of two real parts, broadcasting; and the gradients of the complex functions,
    # taken through the real and imaginary parts of their results.
    re, im = rng.uniform(-2, 2, size=(3, 4)), rng.uniform(0.5, 2, size=(3, 4))
    row = rng.uniform(-1, 1, size=(4,))
    for dt, tol in ((f32, 2e-6), (f64, 1e-12)):
        sfx = "_f32" if dt == f32 else "_f64"
        b.case("Complex" + sfx, parts(lambda c: c), [(re, dt), (im, dt)], tolerance=tol)
        b.case("Complex_broadcast" + sfx, lambda a, c: parts(lambda q: q)(a, c),
               [(re, dt), (row, dt)], tolerance=tol)
        b.case("ComplexAbs_grad" + sfx, lambda a, c: tf.abs(tf.complex(a, c)),
               [(re, dt), (im, dt)], tolerance=tol * 4)
        b.case("Angle_grad" + sfx, lambda a, c: tf.math.angle(tf.complex(a, c)),
               [(re, dt), (im, dt)], tolerance=tol * 4)
        b.case("Conj_grad" + sfx, parts(tf.math.conj), [(re, dt), (im, dt)], tolerance=tol)
        for name, fn in (("Mul_grad", lambda c: c * tf.complex(tf.constant(0.5, c.dtype.real_dtype),
                                                              tf.constant(-1.5, c.dtype.real_dtype))),
                         ("Square_grad", tf.square), ("Exp_grad", tf.exp),
                         ("Log_grad", tf.math.log), ("Sin_grad", tf.sin), ("Cos_grad", tf.cos),
                         ("Sqrt_grad", tf.sqrt), ("Rsqrt_grad", tf.math.rsqrt),
                         ("Reciprocal_grad", tf.math.reciprocal),
                         ("RealDiv_grad", lambda c: c / tf.complex(tf.constant(1.5, c.dtype.real_dtype),
                                                                   tf.constant(0.5, c.dtype.real_dtype)))):
            b.case(name + sfx, parts(fn), [(re, dt), (im, dt)], tolerance=tol * 8)

    # The FFTs: lengths powers of two and not (Bluestein), complex64 and complex128.
    for dt, rdt, tol in ((c64, f32, 2e-5), (c128, f64, 1e-11)):
        sfx = "_c64" if dt == c64 else "_c128"
        for shape in ((3, 8), (2, 5), (7,), (1,)):
            tag = "x".join(map(str, shape))
            x = cplx(rng, shape)
            b.case("FFT_%s%s" % (tag, sfx), tf.signal.fft, [(x, dt)], tolerance=tol, atol=tol * 10)
            b.case("IFFT_%s%s" % (tag, sfx), tf.signal.ifft, [(x, dt)], tolerance=tol,
                   atol=tol * 10)
        x2 = cplx(rng, (2, 4, 6))
        b.case("FFT2D" + sfx, tf.signal.fft2d, [(x2, dt)], tolerance=tol, atol=tol * 10)
        b.case("IFFT2D" + sfx, tf.signal.ifft2d, [(x2, dt)], tolerance=tol, atol=tol * 10)
        x3 = cplx(rng, (2, 3, 4, 5))
        b.case("FFT3D" + sfx, tf.signal.fft3d, [(x3, dt)], tolerance=tol, atol=tol * 10)
        b.case("IFFT3D" + sfx, tf.signal.ifft3d, [(x3, dt)], tolerance=tol, atol=tol * 10)
        # Gradients through complex(re, im).
        gre, gim = rng.uniform(-1, 1, size=(2, 6)), rng.uniform(-1, 1, size=(2, 6))
        for name, fn in (("FFT", tf.signal.fft), ("IFFT", tf.signal.ifft),
                         ("FFT2D", tf.signal.fft2d), ("IFFT2D", tf.signal.ifft2d)):
            b.case(name + "_grad" + sfx, parts(fn), [(gre, rdt), (gim, rdt)], tolerance=tol,
                   atol=tol * 10)
        # The real transforms: fft_length equal, shorter (the kernel crops) and longer (the
        # wrapper pads); odd and even lengths.
        r = rng.uniform(-2, 2, size=(3, 8))
        for n in (8, 7, 6, 5, 10, 1):
            b.case("RFFT_%d%s" % (n, sfx), lambda t, n=n: tf.signal.rfft(t, [n]), [(r, rdt)],
                   tolerance=tol, atol=tol * 10, grad=n in (8, 10))
        spec = cplx(rng, (3, 5))
        for n in (8, 9, 7, 4, 12):
            b.case("IRFFT_%d%s" % (n, sfx), lambda t, n=n: tf.signal.irfft(t, [n]), [(spec, dt)],
                   tolerance=tol, atol=tol * 10)
            b.case("IRFFT_grad_%d%s" % (n, sfx),
                   lambda a, c, n=n: tf.signal.irfft(tf.complex(a, c), [n]),
                   [(spec.real, rdt), (spec.imag, rdt)], tolerance=tol, atol=tol * 10,
                   grad=n in (8, 9))
        r2 = rng.uniform(-2, 2, size=(2, 4, 6))
        b.case("RFFT2D" + sfx, tf.signal.rfft2d, [(r2, rdt)], tolerance=tol, atol=tol * 10)
        b.case("RFFT2D_len" + sfx, lambda t: tf.signal.rfft2d(t, [3, 5]), [(r2, rdt)],
               tolerance=tol, atol=tol * 10, grad=False)
        spec2 = cplx(rng, (2, 4, 4))
        b.case("IRFFT2D" + sfx, lambda t: tf.signal.irfft2d(t, [4, 6]), [(spec2, dt)],
               tolerance=tol, atol=tol * 10)
        b.case("IRFFT2D_grad" + sfx, lambda a, c: tf.signal.irfft2d(tf.complex(a, c), [4, 6]),
               [(spec2.real, rdt), (spec2.imag, rdt)], tolerance=tol, atol=tol * 10)
        r3 = rng.uniform(-2, 2, size=(2, 3, 4, 4))
        b.case("RFFT3D" + sfx, tf.signal.rfft3d, [(r3, rdt)], tolerance=tol, atol=tol * 10,
               grad=False)
        spec3 = cplx(rng, (2, 3, 4, 3))
        b.case("IRFFT3D" + sfx, lambda t: tf.signal.irfft3d(t, [3, 4, 4]), [(spec3, dt)],
               tolerance=tol, atol=tol * 10)

    # float16 arithmetic (computed in float and rounded, as Eigen's half).
    h = rng.uniform(-3, 3, size=(3, 4))
    hr = rng.uniform(0.5, 2, size=(4,))
    for name, fn in (("Add", tf.add), ("Sub", tf.subtract), ("Mul", tf.multiply),
                     ("RealDiv", tf.math.truediv), ("Maximum", tf.maximum),
                     ("Minimum", tf.minimum), ("Pow", tf.pow), ("SquaredDifference",
                                                               tf.math.squared_difference)):
        b.case(name + "_f16", fn, [(h, f16), (hr, f16)], tolerance=1e-3, grad=False)
    for name, fn in (("Neg", tf.negative), ("Abs", tf.abs), ("Square", tf.square),
                     ("Exp", tf.exp), ("Tanh", tf.tanh), ("Relu", tf.nn.relu),
                     ("Floor", tf.floor), ("Sign", tf.sign)):
        b.case(name + "_f16", fn, [(h, f16)], tolerance=1e-3, grad=False)
    # Composite functors: TensorFlow rounds each step to float16 (Eigen's half arithmetic),
    # actorflow computes in float and rounds once.
    for name, fn in (("Sigmoid", tf.sigmoid), ("Softplus", tf.nn.softplus), ("Elu", tf.nn.elu)):
        b.case(name + "_f16", fn, [(h, f16)], tolerance=5e-3, grad=False)
    for name, fn in (("Sqrt", tf.sqrt), ("Log", tf.math.log), ("Rsqrt", tf.math.rsqrt),
                     ("Reciprocal", tf.math.reciprocal)):
        b.case(name + "_f16", fn, [(np.abs(h) + 0.25, f16)], tolerance=1e-3, grad=False)
    for name, fn in (("Less", tf.less), ("Equal", tf.equal), ("GreaterEqual", tf.greater_equal)):
        b.case(name + "_f16", fn, [(h, f16), (np.round(hr), f16)], exact=True, grad=False)
    b.case("Sum_f16", lambda x: tf.reduce_sum(x, axis=1), [(h, f16)], tolerance=1e-3,
           grad=False)
    b.case("Mean_f16", lambda x: tf.reduce_mean(x, axis=0), [(h, f16)], tolerance=1e-3,
           grad=False)
    b.case("Max_f16", lambda x: tf.reduce_max(x), [(h, f16)], exact=True, grad=False)
    b.case("MatMul_f16", lambda x, y: tf.matmul(x, y), [(h, f16), (h.T, f16)], tolerance=2e-3,
           grad=False)
    b.case("Softmax_f16", tf.nn.softmax, [(h, f16)], tolerance=2e-3, grad=False)
    b.case("BiasAdd_f16", tf.nn.bias_add, [(h, f16), (hr, f16)], tolerance=1e-3, grad=False)
    b.case("AddN_f16", lambda x, y: tf.add_n([x, y, x]), [(h, f16), (h * 0.5, f16)],
           tolerance=1e-3, grad=False)
    # float16 rounding at the edges: halfway cases, subnormals, overflow, NaN.
    edge = [65504.0, 65519.0, 65520.0, 1e6, -1e6, 6.1e-5, 6.0e-8, 2.9e-8, 3.0e-8, 1e-9,
            1.00048828125, 1.0009765625, 1.00146484375, -0.0, float("nan"), float("inf")]
    b.case("Cast_f32_f16", lambda x: tf.cast(x, f16), [(edge, f32)], exact=True, grad=False)
    b.case("Cast_f64_f16", lambda x: tf.cast(x, f16), [(edge, f64)], exact=True, grad=False)

    # Casts between the dtypes, both ways with float32 and complex64.
    vals = [-300.7, -129.5, -128.0, -1.5, -0.5, 0.0, 0.5, 1.5, 127.0, 200.25, 255.0, 256.0,
            40000.0, 70000.0, 3e9, 5e9, 2e19]
    ints = {"int8": tf.int8, "int16": tf.int16, "uint16": tf.uint16, "uint32": tf.uint32,
            "uint64": tf.uint64, "uint8": tf.uint8, "int32": tf.int32, "int64": tf.int64}
    for name, dt in ints.items():
        b.case("Cast_f32_" + name, lambda x, dt=dt: tf.cast(x, dt), [(vals[:12], f32)],
               exact=True, grad=False)
        b.case("Cast_f64_" + name, lambda x, dt=dt: tf.cast(x, dt), [(vals[:12], f64)],
               exact=True, grad=False)
        b.case("Cast_%s_f16" % name, lambda x, dt=dt: tf.cast(tf.cast(x, dt), f16),
               [([0, 1, 7, 100, 120], tf.int32)], exact=True, grad=False)
        b.case("Cast_%s_c64" % name, lambda x, dt=dt: tf.cast(tf.cast(x, dt), c64),
               [([0, 1, 7, 100, 120], tf.int32)], exact=True, grad=False)
        b.case("Cast_int64_" + name, lambda x, dt=dt: tf.cast(x, dt),
               [([-70000, -129, -1, 0, 1, 127, 255, 65535, 65536, 4294967296 + 5], tf.int64)],
               exact=True, grad=False)
    b.case("Cast_c64_f32", lambda x: tf.cast(x, f32), [(z, c64)], exact=True, grad=False)
    b.case("Cast_c64_int32", lambda x: tf.cast(x, tf.int32), [(z * 10, c64)], exact=True,
           grad=False)
    b.case("Cast_c64_c128", lambda x: tf.cast(x, c128), [(z, c64)], exact=True, grad=False)
    b.case("Cast_c128_c64", lambda x: tf.cast(x, c64), [(z / 3, c128)], exact=True, grad=False)
    b.case("Cast_f32_c64", lambda x: tf.cast(x, c64), [(re, f32)], exact=True, grad=False)
    b.case("Cast_f16_f32", lambda x: tf.cast(x, f32), [(h, f16)], exact=True, grad=False)
    b.case("Cast_bool_f16", lambda x: tf.cast(x, f16), [([True, False], tf.bool)], exact=True,
           grad=False)
    b.case("Cast_f16_bool", lambda x: tf.cast(x, tf.bool), [([0.0, -0.0, 0.5, float("nan")], f16)],
           exact=True, grad=False)
    # Moves of the newer dtypes (type-generic kernels).
    for name, dt in (("f16", f16), ("int8", tf.int8), ("uint16", tf.uint16), ("c64", c64),
                     ("c128", c128), ("uint64", tf.uint64)):
        src = z if dt in (c64, c128) else np.arange(12).reshape(3, 4)
        b.case("Moves_" + name,
               # TensorFlow's Tile has no uint16, uint32 or uint64 kernel.
               lambda x, dt=dt: [tf.transpose(x), tf.reshape(x, [2, 6]), tf.concat([x, x], 0),
                          tf.gather(x, [2, 0]), tf.slice(x, [1, 1], [2, 2]),
                          tf.tile(x, [1, 2]) if dt not in (tf.uint16, tf.uint64) else x,
                          tf.reverse(x, [1]), tf.identity(x), tf.stack([x, x]),
                          tf.expand_dims(x, 0), tf.pad(x, [[1, 0], [0, 1]]), tf.zeros_like(x),
                          tf.ones_like(x), tf.fill([2], x[0, 0]), x[1:, ::2]],
               [(src, dt)], exact=True, grad=False)


CHECKPOINT = {
    "half_var": (np.array([[0.1, -2.5], [65504.0, 6e-8]]), f16),
    "int8_var": (np.array([-128, 0, 127]), tf.int8),
    "int16_var": (np.array([-32768, 5, 32767]), tf.int16),
    "uint16_var": (np.array([0, 65535]), tf.uint16),
    "uint32_var": (np.array([0, 4294967295]), tf.uint32),
    "uint64_var": (np.array([0, 18446744073709551615], dtype=np.uint64), tf.uint64),
    "complex64_var": (np.array([1 + 2j, -0.5 - 3j]), c64),
    "complex128_var": (np.array([[1e-300 + 1j], [-2.5 + 1e300j]]), c128),
}


def write_checkpoint(out):
    """OUT_DIR/ckpt/model: a tf.compat.v1 Saver's checkpoint of a variable of each dtype."""
    g = tf.Graph()
    with g.as_default():
        variables = [tf1.Variable(tf1.constant(value, dtype=dt), name=name, use_resource=False)
                     for name, (value, dt) in CHECKPOINT.items()]
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            saver.save(sess, os.path.join(out, "ckpt", "model"), write_meta_graph=False,
                       write_state=False)
            return {name: encode(value)
                    for name, value in zip(CHECKPOINT, sess.run(variables))}


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    b = Builder()
    with g.as_default():
        build_complex(b)
    write_fixture(g, b, out, {"checkpoint": write_checkpoint(out)})
    print("wrote %d cases to %s" % (len(b.cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_complex")
