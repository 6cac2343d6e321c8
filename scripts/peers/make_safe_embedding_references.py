#!/usr/bin/env python3
"""Reference values for tests/conformance/safe_embedding_conformance_test.cpp, computed with
TensorFlow (tf.compat.v1): tf.sparse.fill_empty_rows on TensorFlow's documented example
(unordered input too) and its gradient, and tf.nn.safe_embedding_lookup_sparse over a table
of 3 parts with invalid ids, non-positive weights and empty examples, for the three
combiners, both strategies, with and without weights and a default id, with the table's
gradient of the sum of the result.

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
