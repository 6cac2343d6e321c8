#!/usr/bin/env python3
"""Checks with real TensorFlow that a checkpoint of a partitioned variable written by actorflow
restores into TensorFlow's partitioned variables of any partitioning.

Usage:

    mkdir -p /tmp/af_ckpt_export
    ACTORFLOW_CHECKPOINT_EXPORT_DIR=/tmp/af_ckpt_export build/tests/conformance_tests \
        --run_test=partitioned_checkpoint_conformance_test
    /tmp/tfvenv/bin/python scripts/peers/check_partitioned_checkpoint.py \
        /tmp/af_ckpt_export/actorflow_partitioned.ckpt

The test saved emb float32 [10,4] = arange(40) in 4 parts. This script reads it with
tf.train.load_checkpoint (TensorFlow's BundleReader assembles the slices), then restores it
with tf.compat.v1.train.Saver into emb cut by fixed_size_partitioner(n) for n = 1, 2, 3, 4
and 8. It prints one line per check and exits 1 on any difference. Not part of the test
suite.
"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_resource_variables()


def main():
    prefix = sys.argv[1]
    want = np.arange(40, dtype=np.float32).reshape(10, 4)
    failed = False
    reader = tf1.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    ok = shapes == {"emb": [10, 4]} and np.array_equal(reader.get_tensor("emb"), want)
    print("load_checkpoint:", shapes, "ok" if ok else "DIFFERS")
    failed |= not ok
    for parts in (1, 2, 3, 4, 8):
        graph = tf.Graph()
        with graph.as_default():
            emb = tf1.get_variable("emb", [10, 4], initializer=tf1.zeros_initializer(),
                                   partitioner=tf1.fixed_size_partitioner(parts))
            saver = tf1.train.Saver()
            with tf1.Session(graph=graph) as sess:
                saver.restore(sess, prefix)
                got = sess.run(emb.as_tensor())
        ok = np.array_equal(got, want)
        print("restore into %d parts:" % parts, "ok" if ok else "DIFFERS\n%s" % got)
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
