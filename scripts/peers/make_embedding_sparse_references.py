#!/usr/bin/env python3
"""Reference values for actorflow's embedding_lookup_sparse and sparse segment reduction
conformance tests, computed by TensorFlow 1.x graph mode (tf.compat.v1, reference variables).
Not part of the test suite; its output is pasted into
tests/conformance/embedding_sparse_conformance_test.cpp.

Run (TensorFlow 2.x CPU wheel):
  python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu
  /tmp/tfvenv/bin/python scripts/peers/make_embedding_sparse_references.py
"""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()


def part_rows(strategy, k):
    """The table's rows that part k of 3 holds under a strategy ([10,4] cut 4, 3, 3)."""
    if strategy == "mod":
        return [i for i in range(10) if i % 3 == k]
    start = [0, 4, 7][k]
    return list(range(start, start + [4, 3, 3][k]))


def fmt(values):
    return "{" + ", ".join("%.9g" % v for v in np.asarray(values).ravel()) + "}"


TABLE = (np.arange(40, dtype=np.float32).reshape(10, 4) * 0.25 - 3.0).astype(np.float32)
# A batch of 3 rows: row 0 has ids 1, 3, 3; row 1 none; row 2 ids 9, 0.
SP_INDICES = np.array([[0, 0], [0, 1], [0, 2], [2, 0], [2, 1]], dtype=np.int64)
SP_IDS = np.array([1, 3, 3, 9, 0], dtype=np.int64)
SP_WEIGHTS = np.array([1.0, 2.0, 0.5, 3.0, -1.0], dtype=np.float32)
UPSTREAM = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) * 0.5

# 1. embedding_lookup_sparse over 3 parts, each strategy, combiner, with and without weights:
#    the output and the gradient of sum(output * UPSTREAM) with respect to the full table.
for strategy in ("mod", "div"):
    for weighted in (False, True):
        for combiner in ("sum", "mean", "sqrtn"):
            graph = tf.Graph()
            with graph.as_default():
                emb = tf.get_variable("emb", [10, 4], initializer=tf.zeros_initializer(),
                                      partitioner=tf.fixed_size_partitioner(3))
                sp_ids = tf.SparseTensor(SP_INDICES, SP_IDS, [3, 3])
                sp_w = tf.SparseTensor(SP_INDICES, SP_WEIGHTS, [3, 3]) if weighted else None
                out = tf.nn.embedding_lookup_sparse(emb, sp_ids, sp_w,
                                                    partition_strategy=strategy,
                                                    combiner=combiner)
                loss = tf.reduce_sum(out * UPSTREAM)
                grads = tf.gradients(loss, list(emb))
                with tf.Session() as sess:
                    # Fill the parts with the table's rows as each strategy lays them out.
                    sess.run(tf.global_variables_initializer())
                    for k, part in enumerate(emb):
                        sess.run(part.assign(TABLE[part_rows(strategy, k)]))
                    got = sess.run(out)
                    dense = sess.run([tf.convert_to_tensor(g) for g in grads])
                    full = np.zeros_like(TABLE)
                    for k, g in enumerate(dense):
                        full[part_rows(strategy, k)] = g
            print("// %s, %s, %s: output %s" % (strategy, "weighted" if weighted else "unweighted",
                                                combiner, list(got.shape)))
            print("%s," % fmt(got))
            print("// gradient of the table")
            print("%s," % fmt(full))

# 2. The ops themselves: SparseSegmentMean and SqrtN over 11 rows in one segment (the
#    division path), and over 2 (the scaling-factor path).
graph = tf.Graph()
with graph.as_default():
    data = tf.constant(np.arange(24, dtype=np.float32).reshape(12, 2) / 3.0)
    idx = tf.constant(list(range(11)) + [3, 7], dtype=tf.int32)
    seg = tf.constant([0] * 11 + [2, 2], dtype=tf.int32)
    with tf.Session() as sess:
        for op in (tf.sparse.segment_sum, tf.sparse.segment_mean,
                   tf.sparse.segment_sqrt_n):
            print("// %s" % op.__name__)
            print("%s," % fmt(sess.run(op(data, idx, seg))))
        for op in (tf.raw_ops.SparseSegmentMeanGrad, tf.raw_ops.SparseSegmentSqrtNGrad):
            g = op(grad=tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), indices=idx,
                   segment_ids=seg, output_dim0=12)
            print("// %s" % op.__name__)
            print("%s," % fmt(sess.run(g)))
        print("// segment_sum")
        print("%s," % fmt(sess.run(tf.math.segment_sum(data[:5], [0, 0, 1, 3, 3]))))
        for bad in ([0, 0, 2, 1, 1], ):
            try:
                sess.run(tf.sparse.segment_sum(data[:5], [0, 1, 2, 3, 4], bad))
            except tf.errors.InvalidArgumentError as e:
                print("// sparse_segment_sum, unsorted:", e.message.split("\n")[0])
            try:
                sess.run(tf.math.segment_sum(data[:5], bad))
            except tf.errors.InvalidArgumentError as e:
                print("// segment_sum, unsorted:", e.message.split("\n")[0])
        try:
            sess.run(tf.sparse.segment_sum(data, [0, 12], [0, 1]))
        except tf.errors.InvalidArgumentError as e:
            print("// sparse_segment_sum, index out of range:", e.message.split("\n")[0])
        try:
            sess.run(tf.sparse.segment_sum(data, [0, 1, 2], [0, 1]))
        except (tf.errors.InvalidArgumentError, ValueError) as e:
            print("// sparse_segment_sum, sizes:", str(e).split("\n")[0])
