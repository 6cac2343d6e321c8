#!/usr/bin/env python3
"""Reference values for actorflow's partitioned-variable and embedding-lookup conformance
tests, computed by TensorFlow 1.x graph mode (tf.compat.v1, reference variables). Not part of
the test suite; its output is pasted into tests/conformance/embedding_conformance_test.cpp.

Run (TensorFlow 2.x CPU wheel):
  python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu
  /tmp/tfvenv/bin/python scripts/peers/make_embedding_references.py
"""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()


def fmt(values):
    return "{" + ", ".join("%.9g" % v for v in np.asarray(values).ravel()) + "}"


# 1. Partitioners and the parts' save-slice specs.
print("// fixed_size_partitioner(3), [10,4]:",
      tf.fixed_size_partitioner(3)(shape=tf.TensorShape([10, 4]), dtype=tf.float32))
print("// min_max_variable_partitioner(100), [1024,1024] float:",
      tf.min_max_variable_partitioner(100)(shape=tf.TensorShape([1024, 1024]), dtype=tf.float32))
print("// variable_axis_size_partitioner((64<<20)-1), [10000000,64] float:",
      tf.variable_axis_size_partitioner((64 << 20) - 1)(shape=tf.TensorShape([10000000, 64]),
                                                          dtype=tf.float32))
print("// variable_axis_size_partitioner(100, max_shards=2), [10,4] string:",
      tf.variable_axis_size_partitioner(100, max_shards=2)(shape=tf.TensorShape([10, 4]), dtype=tf.string))
for n in (3, 2):
    g = tf.Graph()
    with g.as_default():
        emb = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(n))
        print("// %d parts:" % n, [(v.op.name, v.shape.as_list(), v._save_slice_info.spec)
                                   for v in emb])

# 2. Lookups over a [10,4] table cut into 3 parts (rows 4, 3, 3), both strategies; the
# gradient each part gets, and the parts after one GradientDescent step of 0.1.
table = np.arange(40, dtype=np.float32).reshape(10, 4) / 10.0
ids = np.array([[9, 0], [4, 4], [7, 1]], dtype=np.int64)
weights = np.arange(24, dtype=np.float32).reshape(3, 2, 4) / 8.0 - 1.0
for strategy in ("mod", "div"):
    g = tf.Graph()
    with g.as_default():
        if strategy == "mod":
            rows = [table[i::3] for i in range(3)]
        else:
            rows = [table[0:4], table[4:7], table[7:10]]
        parts = [tf.Variable(r, name="part_%d" % i) for i, r in enumerate(rows)]
        looked = tf.nn.embedding_lookup(parts, tf.constant(ids), partition_strategy=strategy)
        loss = tf.reduce_sum(looked * weights)
        grads = tf.gradients(loss, parts)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print("// %s lookup: %s" % (strategy, fmt(sess.run(looked))))
            for i, gr in enumerate(grads):
                v, ix = sess.run([gr.values, gr.indices])
                print("//   part %d grad values %s indices %s" % (i, fmt(v), fmt(ix)))
            sess.run(step)
            for i, p in enumerate(parts):
                print("//   part %d after a step: %s" % (i, fmt(sess.run(p))))

# 3. max_norm: rows scaled down to the norm, the table unchanged.
g = tf.Graph()
with g.as_default():
    p = tf.Variable(np.array([[3, 4], [1, 0], [0.3, 0.4]], dtype=np.float32))
    one = tf.nn.embedding_lookup(p, tf.constant([0, 1, 2, 0]), max_norm=1.0)
    two = tf.nn.embedding_lookup([p, p], tf.constant([[0, 1], [2, 3]]), max_norm=1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("// max_norm one part: %s" % fmt(sess.run(one)))
        print("// max_norm two parts: %s" % fmt(sess.run(two)))

# 4. Hash buckets (StringToHashBucketFast: Fingerprint64 % buckets).
g = tf.Graph()
with g.as_default():
    words = ["Hello", "TensorFlow", "2.x", "", "actorflow", "a much longer string of more "
             "than sixty-four bytes, to reach FarmHash's long-input loop ......"]
    for buckets in (3, 1000003):
        b = tf.strings.to_hash_bucket_fast(tf.constant(words), buckets)
        with tf.Session() as sess:
            print("// to_hash_bucket_fast(%d): %s" % (buckets, fmt(sess.run(b))))
