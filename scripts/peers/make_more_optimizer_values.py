#!/usr/bin/env python3
"""Reference values for tests/conformance/more_optimizer_conformance_test.cpp, computed by
TensorFlow 1.x graph mode (tf.compat.v1): FtrlOptimizer (with learning_rate_power, l2
shrinkage and beta), AdadeltaOptimizer, ProximalAdagradOptimizer,
ProximalGradientDescentOptimizer and AdagradDAOptimizer, on dense gradients (ref and
resource variables give the same values) and on IndexedSlices of a gathered table. Not part of
the test suite; its output is pasted into the test.

Run: /root/.cache/af-tf/bin/python scripts/peers/make_more_optimizer_values.py
"""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def fmt(values):
    return "{" + ", ".join("%.9g" % v for v in np.asarray(values).ravel()) + "}"


def make(name, step):
    t = tf.train
    return {
        "Ftrl": lambda: t.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                        l2_regularization_strength=0.02),
        "FtrlPower": lambda: t.FtrlOptimizer(0.1, learning_rate_power=-0.7,
                                             initial_accumulator_value=0.2,
                                             l1_regularization_strength=0.01),
        "FtrlShrinkage": lambda: t.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                 l2_regularization_strength=0.02,
                                                 l2_shrinkage_regularization_strength=0.05),
        "FtrlBeta": lambda: t.FtrlOptimizer(0.1, l2_regularization_strength=0.02, beta=0.5),
        "Adadelta": lambda: t.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
        "ProximalAdagrad": lambda: t.ProximalAdagradOptimizer(
            0.1, 0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "ProximalGradientDescent": lambda: t.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "ProximalGradientDescentL2": lambda: t.ProximalGradientDescentOptimizer(
            0.1, l2_regularization_strength=0.02),
        "AdagradDA": lambda: t.AdagradDAOptimizer(0.1, step, l1_regularization_strength=0.01,
                                                  l2_regularization_strength=0.02),
    }[name]()


NAMES = ["Ftrl", "FtrlPower", "FtrlShrinkage", "FtrlBeta", "Adadelta", "ProximalAdagrad",
         "ProximalGradientDescent", "ProximalGradientDescentL2", "AdagradDA"]


def dense(name, resource, steps=5):
    # loss = sum(w * w * x) + sum(w * y), as optimizer_conformance_test.
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([1.0, -2.0, 3.0], name="w", use_resource=resource)
        x = tf.constant([0.5, 1.5, -1.0])
        y = tf.constant([0.25, -0.5, 2.0])
        loss = tf.reduce_sum(w * w * x) + tf.reduce_sum(w * y)
        step = tf.train.get_or_create_global_step()
        opt = make(name, step)
        train = opt.minimize(loss, global_step=step)
        ops = sorted({op.type for op in g.get_operations() if "Apply" in op.type})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for _ in range(steps):
                sess.run(train)
                out.append(sess.run(w))
            slots = {s: sess.run(opt.get_slot(w, s)) for s in sorted(opt.get_slot_names())}
            names = sorted(v.op.name for v in tf.global_variables())
    return np.concatenate(out), slots, names, ops


def sparse(name, resource, steps=3):
    # sum(gather(v, [2, 0, 2])^2 * c) on a 4x3 table, as sparse_update_conformance_test.
    g = tf.Graph()
    with g.as_default():
        init = np.arange(12, dtype=np.float32) / 4.0 - 1.0
        v = tf.Variable(init.reshape(4, 3), name="v", use_resource=resource)
        c = tf.constant(np.array([0.5, -1, 2, 1.5, 0.25, -0.5, -1, 1, 0.75],
                                 np.float32).reshape(3, 3))
        loss = tf.reduce_sum(tf.square(tf.gather(v, [2, 0, 2])) * c)
        step = tf.train.get_or_create_global_step()
        opt = make(name, step)
        train = opt.minimize(loss, global_step=step)
        ops = sorted({op.type for op in g.get_operations() if "Apply" in op.type})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for _ in range(steps):
                sess.run(train)
                out.append(sess.run(v))
    return np.concatenate([o.ravel() for o in out]), ops


print("// dense: w after each of 5 steps")
for n in NAMES:
    values, slots, names, ops = dense(n, False)
    rvalues, _, _, rops = dense(n, True)
    assert np.array_equal(values, rvalues), n
    print('{"%s", %s},' % (n, fmt(values)))
    for s, v in slots.items():
        print("//   slot %s = %s" % (s, fmt(v)))
    print("//   variables: %s; ops %s / %s" % (names, ops, rops))
print("// sparse: v after each of 3 steps")
for n in NAMES:
    values, ops = sparse(n, False)
    rvalues, rops = sparse(n, True)
    assert np.allclose(values, rvalues, rtol=1e-6), n
    print('{"%s", %s},' % (n, fmt(values)))
    print("//   ops %s / %s" % (ops, rops))
