#!/usr/bin/env python3
"""Writes tests/data/tf_ref_tables: a GraphDef (graph.pb) of TensorFlow's first lookup-table
ops, whose handles are Ref(string) where the V2 ops' are resources (HashTable,
MutableHashTable, MutableHashTableOfTensors, InitializeTable, InitializeTableFromTextFile,
LookupTableFind, LookupTableInsert, LookupTableImport, LookupTableSize, LookupTableExport),
as old GraphDefs hold them, built with tf.raw_ops, and reference.json: what a sequence of
session runs gave, values or errors, for tests/conformance/ref_table_test.cpp (which writes
the vocabulary file again: the graph takes its name from the placeholder "vocab"). Never a
dependency of the build or the tests.

  python scripts/peers/make_ref_table_fixtures.py [OUT_DIR]   # default tests/data/tf_ref_tables

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1
raw = tf.raw_ops

VOCAB = "emerson\nlake\npalmer\n"  # the test writes the same lines


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        keys = tf1.placeholder(tf.string, [None], name="keys")
        ids = tf1.placeholder(tf.int64, [None], name="ids")
        floats = tf1.placeholder(tf.float32, [None], name="floats")
        pairs = tf1.placeholder(tf.int64, [None, None], name="pairs")
        vocab = tf1.placeholder(tf.string, [], name="vocab")
        fixed = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64, shared_name="fixed",
                              name="fixed")
        text = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64, name="text")
        mutable = raw.MutableHashTable(key_dtype=tf.int64, value_dtype=tf.float32,
                                       name="mutable")
        tensors = raw.MutableHashTableOfTensors(key_dtype=tf.string, value_dtype=tf.int64,
                                                value_shape=[2], name="tensors")
        ops = {
            "init": raw.InitializeTable(table_handle=fixed, keys=tf.constant(["a", "b", "c"]),
                                        values=tf.constant([1, 2, 3], tf.int64), name="init"),
            "init_text": raw.InitializeTableFromTextFile(table_handle=text, filename=vocab,
                                                         key_index=-2, value_index=-1,
                                                         name="init_text"),
            "find": raw.LookupTableFind(table_handle=fixed, keys=keys,
                                        default_value=tf.constant(-1, tf.int64), name="find"),
            "find_text": raw.LookupTableFind(table_handle=text, keys=keys,
                                             default_value=tf.constant(-1, tf.int64),
                                             name="find_text"),
            "size": raw.LookupTableSize(table_handle=fixed, name="size"),
            "insert": raw.LookupTableInsert(table_handle=mutable, keys=ids, values=floats,
                                            name="insert"),
            "find_mutable": raw.LookupTableFind(table_handle=mutable, keys=ids,
                                                default_value=tf.constant(0.25),
                                                name="find_mutable"),
            "import": raw.LookupTableImport(table_handle=mutable, keys=ids, values=floats,
                                            name="import"),
            "mutable_size": raw.LookupTableSize(table_handle=mutable, name="mutable_size"),
            "insert_tensors": raw.LookupTableInsert(table_handle=tensors, keys=keys,
                                                    values=pairs, name="insert_tensors"),
            "find_tensors": raw.LookupTableFind(table_handle=tensors, keys=keys,
                                                default_value=tf.constant([0, 0], tf.int64),
                                                name="find_tensors"),
            "export_tensors": list(raw.LookupTableExport(table_handle=tensors, Tkeys=tf.string,
                                                         Tvalues=tf.int64,
                                                         name="export_tensors")),
        }
    vocab_file = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(vocab_file, "w") as f:
        f.write(VOCAB)
    plan = [
        ("find", {"keys": ["a"]}),  # before the table is initialized
        ("init", {}), ("find", {"keys": ["c", "zz", "a", ""]}), ("size", {}),
        ("init", {}),  # again
        ("init_text", {"vocab": vocab_file}), ("find_text", {"keys": ["palmer", "x", "emerson"]}),
        ("insert", {"ids": [5, 7], "floats": [0.5, 7.5]}),
        ("find_mutable", {"ids": [7, 6, 5]}), ("mutable_size", {}),
        ("insert", {"ids": [5], "floats": [1.0, 2.0]}),
        ("import", {"ids": [1], "floats": [-1.0]}), ("find_mutable", {"ids": [5, 1]}),
        ("mutable_size", {}),
        ("insert_tensors", {"keys": ["x", "y"], "pairs": [[1, 2], [3, 4]]}),
        ("find_tensors", {"keys": ["y", "q"]}),
        ("insert_tensors", {"keys": ["z"], "pairs": [[1, 2, 3]]}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"keys": keys, "ids": ids, "floats": floats,
                                            "pairs": pairs, "vocab": vocab})
    for step in steps:  # the vocabulary's path is the test's own
        if step["fetch"] == "init_text":
            step["feeds"]["vocab"] = "vocab.txt"
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ref_tables")
