#!/usr/bin/env python3
"""Writes tests/data/tf_graph/lookup: a GraphDef TensorFlow 2.21 builds with tf.compat.v1's
lookup tables (index_table_from_file with out-of-vocabulary buckets, index_table_from_tensor,
index_to_string_table_from_tensor, a MutableHashTable filled and read in one step), the
vocabulary file it reads, and what TensorFlow computed (reference.json). The vocabulary's
path is a placeholder_with_default "vocab_path" the test feeds.
Also writes tests/data/tf_graph/lookup_checkpoint: a tf.compat.v1 Saver's checkpoint (and
.meta) of a variable, a MutableHashTable, a MutableHashTable of vectors and a DenseHashTable,
filled, with the entries in reference.json.
Run with TensorFlow's venv: python scripts/peers/make_lookup_fixtures.py [OUT_DIR]."""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import lookup_ops  # noqa: E402

tf1 = tf.compat.v1


def main(out):
    os.makedirs(out, exist_ok=True)
    vocab = os.path.join(out, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("emerson\nlake\npalmer\nkeith\ngreg\ncarl\n")
    g = tf.Graph()
    with g.as_default():
        path = tf1.placeholder_with_default(vocab, [], name="vocab_path")
        words = tf.constant([["lake", "crimson"], ["carl", "king"], ["emerson", ""]], name="words")
        ids_file = lookup_ops.index_table_from_file(path, num_oov_buckets=3).lookup(words)
        tf.identity(ids_file, name="ids_file")
        vocab_t = tf.constant(["a", "b", "c"], name="vocab")
        ids_tensor = lookup_ops.index_table_from_tensor(vocab_t, default_value=-7).lookup(
            tf.constant(["c", "z", "a"]))
        tf.identity(ids_tensor, name="ids_tensor")
        names = lookup_ops.index_to_string_table_from_tensor(vocab_t).lookup(
            tf.constant([2, 9, 0], tf.int64))
        tf.identity(names, name="names")
        m = tf.raw_ops.MutableHashTableV2(key_dtype=tf.int64, value_dtype=tf.float32,
                                          shared_name="scores")
        ins = tf.raw_ops.LookupTableInsertV2(table_handle=m, keys=np.array([3, 5], np.int64),
                                             values=np.array([0.5, 1.5], np.float32))
        with tf.control_dependencies([ins]):
            found = tf.raw_ops.LookupTableFindV2(table_handle=m,
                                                 keys=np.array([5, 4, 3], np.int64),
                                                 default_value=np.float32(-1))
        tf.identity(found, name="scores_found")
        init = tf1.tables_initializer()
        fetches = ["ids_file:0", "ids_tensor:0", "names:0", "scores_found:0"]
        with tf1.Session() as s:
            s.run(init)
            values = s.run(fetches)
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    ref = {"tensorflow": tf.__version__, "init": init.name,
           "values": {n: (v.astype(str).tolist() if v.dtype == object else v.tolist())
                      for n, v in zip(fetches, values)}}
    for n, v in zip(fetches, values):
        if v.dtype == object:
            ref["values"][n] = [x.decode() for x in v.ravel()]
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(json.dumps(ref))


def checkpoint(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        v = tf1.Variable([1.5, -2.0], name="v")
        counts = tf1.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1,
                                                          name="vocab_counts")
        emb = tf1.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0],
                                                       name="emb")
        dense = tf1.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1.0,
                                                       empty_key=-1, deleted_key=-2,
                                                       initial_num_buckets=8, name="dense")
        fill = tf.group(
            counts.insert(tf.constant(["the", "cat", "sat"]),
                          tf.constant([7, 2, 1], tf.int64)),
            emb.insert(tf.constant([10, 20], tf.int64),
                       tf.constant([[1.0, 2.0], [3.0, 4.0]])),
            dense.insert(tf.constant([3, 11, 19], tf.int64), tf.constant([0.25, 0.5, 0.75])))
        saver = tf1.train.Saver()
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            s.run(fill)
            saver.save(s, os.path.join(out, "model"), write_meta_graph=True)
    ref = {"tensorflow": tf.__version__,
           "keys": [k for k, _ in tf.train.list_variables(os.path.join(out, "model"))],
           "vocab_counts": {"the": 7, "cat": 2, "sat": 1},
           "emb": {"10": [1.0, 2.0], "20": [3.0, 4.0]},
           "dense": {"3": 0.25, "11": 0.5, "19": 0.75}}
    os.remove(os.path.join(out, "checkpoint"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(json.dumps(ref))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_graph/lookup")
    checkpoint(sys.argv[2] if len(sys.argv) > 2 else "tests/data/tf_graph/lookup_checkpoint")
