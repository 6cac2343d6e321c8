#!/usr/bin/env python3
"""Reference values for tests/conformance/safe_embedding_conformance_test.cpp, computed with
TensorFlow (tf.compat.v1): tf.sparse.fill_empty_rows on TensorFlow's documented example
(unordered input too) and its gradient, tf.sparse.reshape on its documented example, another
reshape and the kernel's and the builder's errors, and tf.nn.safe_embedding_lookup_sparse over
a table of 3 parts with invalid ids, non-positive weights and empty examples, for the three
combiners, both strategies, with and without weights and a default id, with the table's
gradient of the sum of the result; then over rank-3 ids for three of those configurations.

  ~/.cache/actorflow-peers/bin/python scripts/peers/make_safe_embedding_references.py
"""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

TABLE = np.array([[i + j / 10.0 for j in range(3)] for i in range(10)], np.float32)
# Examples: 0 = {3, -1, 7}, 1 = {-2} (no valid id), 2 = {}, 3 = {1, 1, 9}, batch 5 (4 empty).
IDS = tf1.SparseTensorValue([[0, 0], [0, 1], [0, 2], [1, 0], [3, 0], [3, 1], [3, 2]],
                            np.array([3, -1, 7, -2, 1, 1, 9], np.int64), [5, 3])
WEIGHTS = np.array([2.0, 1.0, 0.0, 3.0, 0.5, -1.0, 1.5], np.float32)
# Rank-3 ids [2, 3, 3]: (0,0) = {3, -1}, (0,1) = {7, 1, 1}, (0,2) = {}, (1,0) = {-2} (no valid
# id), (1,1) = {}, (1,2) = {9, 0}.
IDS3 = tf1.SparseTensorValue([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 2], [1, 0, 0],
                              [1, 2, 0], [1, 2, 1]],
                             np.array([3, -1, 7, 1, 1, -2, 9, 0], np.int64), [2, 3, 3])
WEIGHTS3 = np.array([2.0, 1.0, 0.5, -1.0, 1.5, 3.0, 1.0, 0.0], np.float32)
# TensorFlow's documented example of tf.sparse.reshape: [2, 3, 6] to [9, -1].
RESHAPE_INDICES = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]]


def fmt(a):
    return ", ".join(repr(float(x)) if isinstance(x, (float, np.floating)) else str(int(x))
                     for x in np.asarray(a).ravel())


with tf1.Session() as sess:
    sp = tf1.SparseTensor([[0, 1], [0, 3], [2, 0], [3, 1]], np.array([1.0, 2.0, 3.0, 4.0],
                                                                     np.float32), [5, 6])
    out, empty = tf.sparse.fill_empty_rows(sp, -1.0)
    o, e = sess.run([out, empty])
    print("fill ordered indices:", fmt(o.indices), "values:", fmt(o.values), "empty:", fmt(e))
    sp2 = tf1.SparseTensor([[3, 1], [0, 3], [0, 1], [2, 0]], np.array([4.0, 2.0, 1.0, 3.0],
                                                                      np.float32), [5, 6])
    v = tf1.placeholder_with_default(sp2.values, [4])
    d = tf1.placeholder_with_default(np.float32(-1.0), [])
    out2, empty2 = tf.sparse.fill_empty_rows(tf1.SparseTensor(sp2.indices, v, sp2.dense_shape), d)
    weights = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    loss = tf.reduce_sum(out2.values * weights)
    gv, gd = tf.gradients(loss, [v, d])
    o, e, a, b = sess.run([out2, empty2, gv, gd])
    print("fill unordered indices:", fmt(o.indices), "values:", fmt(o.values), "empty:", fmt(e),
          "d_values:", fmt(a), "d_default:", fmt(b))

with tf1.Session() as sess:
    sp = tf1.SparseTensor(RESHAPE_INDICES, np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
                          [2, 3, 6])
    for shape in ([9, -1], [4, -1, 3]):
        r = sess.run(tf.sparse.reshape(sp, shape))
        print("reshape to %s indices:" % shape, fmt(r.indices), "values:", fmt(r.values),
              "dense_shape:", fmt(r.dense_shape))
    # The kernel's texts: the new shape fed, so Python cannot check it while building.
    indices = tf1.placeholder(tf.int64)
    new_shape = tf1.placeholder(tf.int64)
    out = tf.raw_ops.SparseReshape(input_indices=indices, input_shape=[3, 4], new_shape=new_shape)
    for ind, shape in (([[0, 0]], [-1, -1]), ([[0, 0]], [2, -2]), ([[0, 0]], [2, 5]),
                       ([[0, 0]], [5, -1]), ([[0, 0]], [[12]]), ([0, 0], [12])):
        try:
            sess.run(out, {indices: ind, new_shape: shape})
        except tf.errors.InvalidArgumentError as e:
            print("reshape %s to %s:" % (ind, shape), e.message.split("\n")[-2])
    # sparse_ops.py's ValueErrors while building, both shapes constant.
    for shape in ([-1, -1], [5, -1]):
        try:
            tf.sparse.reshape(tf1.SparseTensor([[0, 0]], [1.0], [3, 4]), shape)
        except ValueError as e:
            print("reshape build to %s:" % shape, e)

for strategy in ("div", "mod"):
    for weighted in (False, True):
        for combiner in ("sum", "mean", "sqrtn"):
            for default_id in (None, 5):
                tf1.reset_default_graph()
                parts = [tf1.Variable(p) for p in
                         ([TABLE[0:4], TABLE[4:7], TABLE[7:10]] if strategy == "div"
                          else [TABLE[0::3], TABLE[1::3], TABLE[2::3]])]
                ids = tf1.SparseTensor(IDS.indices, IDS.values, IDS.dense_shape)
                w = (tf1.SparseTensor(IDS.indices, WEIGHTS, IDS.dense_shape) if weighted else None)
                r = tf1.nn.safe_embedding_lookup_sparse(parts, ids, w, combiner=combiner,
                                                        default_id=default_id,
                                                        partition_strategy=strategy)
                grads = tf.gradients(tf.reduce_sum(r), parts)
                with tf1.Session() as sess:
                    sess.run(tf1.global_variables_initializer())
                    res, gs = sess.run([r, [tf.convert_to_tensor(g) for g in grads]])
                print("case %s %s %s %s: result %s shape %s grads %s" % (
                    strategy, "weighted" if weighted else "unweighted", combiner, default_id,
                    fmt(res), list(res.shape), " | ".join(fmt(g) for g in gs)))

for strategy, weighted, combiner, default_id in (("div", False, "mean", None),
                                                ("mod", True, "sqrtn", 5),
                                                ("div", True, "sum", None)):
    tf1.reset_default_graph()
    parts = [tf1.Variable(p) for p in
             ([TABLE[0:4], TABLE[4:7], TABLE[7:10]] if strategy == "div"
              else [TABLE[0::3], TABLE[1::3], TABLE[2::3]])]
    ids = tf1.SparseTensor(IDS3.indices, IDS3.values, IDS3.dense_shape)
    w = tf1.SparseTensor(IDS3.indices, WEIGHTS3, IDS3.dense_shape) if weighted else None
    r = tf1.nn.safe_embedding_lookup_sparse(parts, ids, w, combiner=combiner,
                                            default_id=default_id, partition_strategy=strategy)
    grads = tf.gradients(tf.reduce_sum(r), parts)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        res, gs = sess.run([r, [tf.convert_to_tensor(g) for g in grads]])
    print("rank-3 case %s %s %s %s: result %s shape %s static %s grads %s" % (
        strategy, "weighted" if weighted else "unweighted", combiner, default_id, fmt(res),
        list(res.shape), r.shape, " | ".join(fmt(g) for g in gs)))
