#!/usr/bin/env python3
"""Reference values for actorflow's sparse conformance tests (IndexedSlices through the
gradient walk, the Scatter* kernels, the optimizers' sparse updates, Unique), computed by
TensorFlow 1.x graph mode (tf.compat.v1) with reference variables. Not part of the test suite;
its output is pasted into tests/conformance/sparse_conformance_test.cpp.

Run (TensorFlow 2.x CPU wheel):
  python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu
  /tmp/tfvenv/bin/python scripts/peers/make_sparse_references.py
"""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()


def fmt(values):
    return "{" + ", ".join("%.9g" % v for v in np.asarray(values).ravel()) + "}"


def first_error_line(e):
    lines = [l for l in e.message.splitlines() if "ndex" in l or "ndices" in l]
    return lines[0] if lines else e.message


def describe_grad(name, grad, sess):
    if isinstance(grad, tf.IndexedSlices):
        values, indices, shape = sess.run([grad.values, grad.indices, grad.dense_shape])
        print("// %s: IndexedSlices values %s indices %s dense_shape %s" %
              (name, fmt(values), fmt(indices), fmt(shape)))
        print("//   densified %s" % fmt(sess.run(tf.convert_to_tensor(grad))))
    else:
        print("// %s: dense %s" % (name, fmt(sess.run(grad))))


# 1. The slice structure of gradients (sparse-notes Ex.1 and a dense + sparse sum).
g = tf.Graph()
with g.as_default():
    p = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2), name="p")
    loss1 = tf.reduce_sum(tf.gather(p, [1, 3])) + tf.reduce_sum(tf.gather(p, [3]))
    loss2 = (tf.reduce_sum(tf.gather(p, [4, 0]) * tf.constant([[1.0, 2.0], [3.0, 4.0]])) +
             tf.reduce_sum(p * p))
    loss3 = tf.reduce_sum(tf.gather(tf.cast(p, tf.float64), [2, 2]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        describe_grad("gather twice", tf.gradients(loss1, [p])[0], sess)
        describe_grad("gather + dense", tf.gradients(loss2, [p])[0], sess)
        describe_grad("through Cast", tf.gradients(loss3, [p])[0], sess)

# 2. Sparse optimizer trajectories: var [4,3], loss = sum(gather(var, [2,0,2])^2 * c), so the
# gradient's slices name row 2 twice and change from step to step; rows 1 and 3 get none.
OPTIMIZERS = [
    ("GradientDescent", lambda: tf.train.GradientDescentOptimizer(0.1)),
    ("Momentum", lambda: tf.train.MomentumOptimizer(0.1, 0.9)),
    ("Nesterov", lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)),
    ("Adagrad", lambda: tf.train.AdagradOptimizer(0.1)),
    ("RMSProp", lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-6)),
    ("CenteredRMSProp",
     lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-6, centered=True)),
    ("Adam", lambda: tf.train.AdamOptimizer(0.1)),
]
def sparse_trajectory(make, use_resource):
    """The variable after each of 3 steps, the update and gather op types, and the slots."""
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0, name="v",
                          use_resource=use_resource)
        c = tf.constant(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-1.0, 1.0, 0.75]],
                                 dtype=np.float32))
        loss = tf.reduce_sum(tf.square(tf.gather(var, [2, 0, 2])) * c)
        opt = make()
        train = opt.minimize(loss)
        ops = sorted({op.type for op in g.get_operations()
                      if "Apply" in op.type or "Scatter" in op.type or "Gather" in op.type})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for _ in range(3):
                sess.run(train)
                out.append(sess.run(var))
            slots = {s: sess.run(opt.get_slot(var, s)) for s in opt.get_slot_names()}
        return np.concatenate(out), ops, slots


for name, make in OPTIMIZERS:
    values, _, slots = sparse_trajectory(make, False)
    print("{\"%s\", %s}," % (name, fmt(values)))
    for s in sorted(slots):
        print("//   slot %s = %s" % (s, fmt(slots[s])))
    # The tests also run each trajectory on a resource variable (ResourceGather, the
    # ResourceSparseApply* ops): TensorFlow gives the same values.
    resource_values, resource_ops, _ = sparse_trajectory(make, True)
    print("// %s with use_resource=True: ops %s, max difference %g" %
          (name, resource_ops, np.abs(values - resource_values).max()))

# 3. The sparse-notes examples: Adagrad Ex.6, duplicates Ex.7, Momentum / RMSProp Ex.8, Adam Ex.9.
def sparse_steps(name, init, slices, make):
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable(np.array(init, dtype=np.float32), name="v")
        grads = [tf.IndexedSlices(tf.constant(np.array(v, dtype=np.float32)),
                                  tf.constant(np.array(i, dtype=np.int32)),
                                  tf.constant(np.array(np.shape(init), dtype=np.int32)))
                 for v, i in slices]
        opt = make()
        ops = [opt.apply_gradients([(gr, var)]) for gr in grads]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for op in ops:
                sess.run(op)
                print("// %s: v %s" % (name, fmt(sess.run(var))))
            for s in sorted(opt.get_slot_names()):
                print("//   slot %s = %s" % (s, fmt(sess.run(opt.get_slot(var, s)))))


sparse_steps("Ex.6 Adagrad", [[1, 2], [3, 4], [5, 6]], [([[0.1, 0.1], [0.1, 0.1]], [0, 2])],
             lambda: tf.train.AdagradOptimizer(0.1))
sparse_steps("Ex.7 Adagrad duplicates", [1.0], [([0.1, 0.1], [0, 0])],
             lambda: tf.train.AdagradOptimizer(0.1))
sparse_steps("Ex.7 GD duplicates", [1.0], [([1.0, 1.0], [0, 0])],
             lambda: tf.train.GradientDescentOptimizer(0.5))
sparse_steps("Ex.8 Momentum", [1.0, 2.0], [([0.1, 0.1], [0, 1])] * 2,
             lambda: tf.train.MomentumOptimizer(2.0, 0.9))
sparse_steps("Ex.8 RMSProp", [1.0], [([0.1], [0])],
             lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.0, epsilon=1e-10))
sparse_steps("Ex.9 Adam", [1.0, 2.0, 3.0], [([0.1], [1]), ([0.1], [0])],
             lambda: tf.train.AdamOptimizer(1e-3))

# 4. Scatter ops on a [5,2] float variable with 2-D indices naming row 3 twice, and scalar
# updates; an int32 variable for Div and Min/Max.
for op in ["update", "add", "sub", "mul", "div", "min", "max"]:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2) + 1.0, name="v")
        f = getattr(tf, "scatter_" + op)
        a = f(v, [[3, 1], [3, 0]], np.array([[[2, -1], [4, 0.5]], [[3, 3], [-2, 8]]],
                                             dtype=np.float32))
        b = f(v, [4], np.float32(2.5))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print("// scatter_%s rows: %s" % (op, fmt(sess.run(a))))
            print("// then scalar 2.5 at [4]: %s" % fmt(sess.run(b)))
    if op in ("div", "min", "max"):
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(np.array([7, -7, 9, 20], dtype=np.int32), name="i")
            a = getattr(tf, "scatter_" + op)(v, [0, 1, 3], np.array([2, 2, -3], dtype=np.int32))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                print("// int32 scatter_%s: %s" % (op, fmt(sess.run(a))))

# 5. Errors and partial updates.
g = tf.Graph()
with g.as_default():
    v = tf.Variable(np.zeros(5, dtype=np.float32), name="v")
    bad = tf.scatter_add(v, [1, 7, 2], np.ones(3, dtype=np.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        try:
            sess.run(bad)
        except tf.errors.InvalidArgumentError as e:
            print("// scatter_add error: %s" % first_error_line(e))
        print("//   v after: %s" % fmt(sess.run(v)))

from tensorflow.python.ops import gen_training_ops  # noqa: E402

for kind in ["momentum", "adagrad", "rms_prop"]:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.ones((3, 2), dtype=np.float32), name="v")
        a = tf.Variable(np.ones((3, 2), dtype=np.float32), name="a")
        m = tf.Variable(np.ones((3, 2), dtype=np.float32), name="m")
        grad = np.full((2, 2), 0.5, dtype=np.float32)
        idx = np.array([1, 9], dtype=np.int32)
        if kind == "momentum":
            op = gen_training_ops.sparse_apply_momentum(v, a, 0.1, grad, idx, 0.9)
        elif kind == "adagrad":
            op = gen_training_ops.sparse_apply_adagrad(v, a, 0.1, grad, idx)
        else:
            op = gen_training_ops.sparse_apply_rms_prop(v, a, m, 0.1, 0.9, 0.0, 1e-6, grad, idx)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            try:
                sess.run(op)
            except tf.errors.InvalidArgumentError as e:
                print("// sparse_apply_%s error: %s" % (kind, first_error_line(e)))
            print("//   v after: %s" % fmt(sess.run(v)))

# 6. Unique.
g = tf.Graph()
with g.as_default():
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    with tf.Session() as sess:
        yv, iv = sess.run([y, idx])
        print("// unique: y %s idx %s" % (fmt(yv), fmt(iv)))
