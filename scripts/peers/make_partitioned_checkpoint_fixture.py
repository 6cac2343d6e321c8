#!/usr/bin/env python3
"""Writes the real-TensorFlow checkpoints of partitioned variables in
tests/data/checkpoints/tf_partitioned/.

How the committed files were made (tensorflow-cpu from PyPI, Python 3.11):

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu
    /tmp/tfvenv/bin/python scripts/peers/make_partitioned_checkpoint_fixture.py \
        tests/data/checkpoints/tf_partitioned

It writes, with tf.compat.v1 graph mode, reference variables and tf.compat.v1.train.Saver
(V2, no meta graph, no state file):

  parts.ckpt.index, parts.ckpt.data-00000-of-00001
      emb   float32 [10,4], fixed_size_partitioner(3): parts of 4, 3 and 3 rows
            (sparse-notes Ex.4/Ex.5), emb[i][j] = 4 i + j
      big   float32 [200,3], fixed_size_partitioner(3): 67, 67 and 66 rows (starts past 63
            take two bytes in the slice keys), big[i][j] = (3 i + j) / 2
      ids   int64 [7], fixed_size_partitioner(2): 4 and 3 rows, ids[i] = 1000 i - 3
      cols  float32 [2,6], partitioned along axis 1 in 3: cols[i][j] = 10 i + j
      w     float32 [2] = [1.5, -2] (a whole variable beside them)
  sharded.ckpt.index, sharded.ckpt.data-0000k-of-00002
      emb as above with parts 0 and 2 on /cpu:0 and part 1 on /cpu:1, saved by
      Saver(sharded=True): two shards whose indexes MergeV2Checkpoints joined, emb's entry
      listing the slices of both.

actorflow's tests (tests/unit/ops/tensor_bundle_slices_test.cpp,
tests/conformance/partitioned_checkpoint_conformance_test.cpp) read these files and rewrite
them byte for byte; this script is not part of the test suite.
"""
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_resource_variables()

VALUES = {
    "emb": np.arange(40, dtype=np.float32).reshape(10, 4),
    "big": (np.arange(600, dtype=np.float32) / 2).reshape(200, 3),
    "ids": np.arange(7, dtype=np.int64) * 1000 - 3,
    "cols": (np.arange(6, dtype=np.float32)[None, :] + 10 * np.arange(2)[:, None]).astype(np.float32),
}


def assign_parts(sess, pv, full, axis=0):
    """Gives each part of the PartitionedVariable pv its rows of full."""
    offset = 0
    for part in pv:
        n = part.shape.as_list()[axis]
        sess.run(part.assign(np.take(full, range(offset, offset + n), axis=axis)))
        offset += n


def write_parts(out_dir):
    graph = tf.Graph()
    with graph.as_default():
        zeros = tf1.zeros_initializer()
        emb = tf1.get_variable("emb", [10, 4], initializer=zeros,
                               partitioner=tf1.fixed_size_partitioner(3))
        big = tf1.get_variable("big", [200, 3], initializer=zeros,
                               partitioner=tf1.fixed_size_partitioner(3))
        ids = tf1.get_variable("ids", [7], dtype=tf.int64, initializer=zeros,
                               partitioner=tf1.fixed_size_partitioner(2))
        cols = tf1.get_variable("cols", [2, 6], initializer=zeros,
                                partitioner=tf1.fixed_size_partitioner(3, axis=1))
        w = tf1.get_variable("w", initializer=np.array([1.5, -2.0], dtype=np.float32))
        saver = tf1.train.Saver(write_version=tf1.train.SaverDef.V2)
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            assign_parts(sess, emb, VALUES["emb"])
            assign_parts(sess, big, VALUES["big"])
            assign_parts(sess, ids, VALUES["ids"])
            assign_parts(sess, cols, VALUES["cols"], axis=1)
            del w
            return saver.save(sess, os.path.join(out_dir, "parts.ckpt"),
                              write_meta_graph=False, write_state=False)


def write_sharded(out_dir):
    graph = tf.Graph()
    with graph.as_default():
        with tf1.device(lambda op: "/cpu:1" if op.name.startswith("emb/part_1") else "/cpu:0"):
            emb = tf1.get_variable("emb", [10, 4], initializer=tf1.zeros_initializer(),
                                   partitioner=tf1.fixed_size_partitioner(3))
        saver = tf1.train.Saver(sharded=True, write_version=tf1.train.SaverDef.V2)
        config = tf1.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=False)
        with tf1.Session(graph=graph, config=config) as sess:
            sess.run(tf1.global_variables_initializer())
            assign_parts(sess, emb, VALUES["emb"])
            print("devices:", [p.device for p in emb])
            return saver.save(sess, os.path.join(out_dir, "sharded.ckpt"),
                              write_meta_graph=False, write_state=False)


def main():
    out_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    os.makedirs(out_dir, exist_ok=True)
    print("wrote", write_parts(out_dir))
    print("wrote", write_sharded(out_dir))
    reader = tf1.train.load_checkpoint(os.path.join(out_dir, "parts.ckpt"))
    for name in sorted(VALUES):
        assert np.array_equal(reader.get_tensor(name), VALUES[name]), name
    print("TensorFlow", tf.__version__, "reads back", sorted(VALUES))


if __name__ == "__main__":
    main()
