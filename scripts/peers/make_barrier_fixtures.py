#!/usr/bin/env python3
"""Writes tests/data/tf_barrier: a GraphDef (graph.pb) TensorFlow's tf.compat.v1 builds with
data_flow_ops.Barrier (a shared barrier of string, int32 and float32 [2] components; a shared
one of a single float32 component without shapes; raw ops TensorFlow refuses at run time), and
reference.json: the nodes TensorFlow made, the take ops' static shapes, and what a sequence
of session runs gives, values or errors (inserts completing keys in several steps, the order
of takes among equal indices, sizes, close and cancel, the errors of duplicate components,
new keys after close, takes past the end, empty values, mismatched shared barriers), for
tests/conformance/barrier_test.cpp. Never a dependency of the build or the tests.

  python scripts/peers/make_barrier_fixtures.py [OUT_DIR]   # default tests/data/tf_barrier

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops, gen_data_flow_ops  # noqa: E402

from fixture_steps import fetch_names, run_steps  # noqa: E402

tf1 = tf.compat.v1


def nodes_of(g):
    nodes = []
    for node in g.as_graph_def().node:
        attrs = {}
        for key, v in sorted(node.attr.items()):
            kind = v.WhichOneof("value")
            if kind == "s":
                attrs[key] = v.s.decode()
            elif kind == "i":
                attrs[key] = v.i
            elif kind == "b":
                attrs[key] = v.b
            elif kind == "type":
                attrs[key] = tf.dtypes.as_dtype(v.type).name
            elif kind == "list" and v.list.type:
                attrs[key] = [tf.dtypes.as_dtype(t).name for t in v.list.type]
            elif kind == "list" and key == "shapes":
                attrs[key] = [None if s.unknown_rank else [d.size for d in s.dim]
                              for s in v.list.shape]
        nodes.append({"name": node.name, "op": node.op, "input": list(node.input),
                      "attrs": attrs})
    return nodes


def shape_of(t):
    s = t.shape
    return None if s.rank is None else [-1 if d is None else d for d in s.as_list()]


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        keys = tf1.placeholder(tf.string, [None], name="keys")
        s = tf1.placeholder(tf.string, [None], name="s")
        i = tf1.placeholder(tf.int32, [None], name="i")
        f = tf1.placeholder(tf.float32, [None, 2], name="f")
        n = tf1.placeholder(tf.int32, [], name="n")
        e = tf1.placeholder(tf.float32, [None, None], name="e")
        b = data_flow_ops.Barrier((tf.string, tf.int32, tf.float32), shapes=((), (), (2,)),
                                  shared_name="B", name="B")
        take = b.take_many(n)
        take_small = b.take_many(n, allow_small_batch=True)
        take2 = b.take_many(2)
        u = data_flow_ops.Barrier(tf.float32, shared_name="U", name="U")
        ops = {"ins0": b.insert_many(0, keys, s), "ins1": b.insert_many(1, keys, i),
               "ins2": b.insert_many(2, keys, f),
               "take": list(take[:2]) + list(take[2]),
               "take_small": list(take_small[:2]) + list(take_small[2]),
               "take2": list(take2[:2]) + list(take2[2]),
               "ready": b.ready_size(), "incomplete": b.incomplete_size(),
               "close": b.close(), "cancel": b.close(cancel_pending_enqueues=True),
               "u_ins": u.insert_many(0, keys, e), "u_ready": u.ready_size(),
               "bad_index": gen_data_flow_ops.barrier_insert_many(
                   b.barrier_ref, keys, s, component_index=3, name="bad_index"),
               "bad_type": gen_data_flow_ops.barrier_insert_many(
                   b.barrier_ref, keys, i, component_index=0, name="bad_type"),
               "negative": gen_data_flow_ops.barrier_take_many(
                   b.barrier_ref, -1, (tf.string, tf.int32, tf.float32), name="negative")[0],
               "timeout": gen_data_flow_ops.barrier_take_many(
                   b.barrier_ref, 1, (tf.string, tf.int32, tf.float32), timeout_ms=5,
                   name="timeout")[0],
               "capacity": gen_data_flow_ops.barrier(
                   component_types=[tf.float32], shapes=[[]], capacity=5, name="capacity"),
               "no_shapes": gen_data_flow_ops.barrier(
                   component_types=[tf.float32, tf.int32], shapes=[[]], name="no_shapes"),
               "other_types": data_flow_ops.Barrier(tf.int32, shapes=((),), shared_name="U",
                                                    name="other_types").barrier_ref,
               "other_shapes": data_flow_ops.Barrier(tf.float32, shapes=((3,),),
                                                     shared_name="U",
                                                     name="other_shapes").barrier_ref}
    feeds_of = {"keys": keys, "s": s, "i": i, "f": f, "n": n, "e": e}
    K = lambda *ks: ["k%d" % k for k in ks]  # noqa: E731
    plan = [
        ("ready", {}), ("incomplete", {}),
        ("ins0", {"keys": K(1, 2, 3, 4, 5), "s": ["a", "b", "c", "d", "e"]}),
        ("ins1", {"keys": K(3, 1), "i": [30, 10]}),
        ("ins0", {"keys": K(6, 7), "s": ["f", "g"]}),
        ("ins1", {"keys": K(6, 2, 4, 5, 7), "i": [60, 20, 40, 50, 70]}),
        ("incomplete", {}), ("ready", {}),
        ("ins2", {"keys": K(7, 6, 5, 4, 3, 2, 1),
                  "f": [[7, 7.5], [6, 6.5], [5, 5.5], [4, 4.5], [3, 3.5], [2, 2.5], [1, 1.5]]}),
        ("ready", {}), ("incomplete", {}),
        ("take", {"n": 3}), ("take2", {}), ("take", {"n": 0}),
        ("ins1", {"keys": K(8), "i": [80]}),
        ("ins1", {"keys": K(8), "i": [81]}),
        ("ins0", {"keys": K(9, 10), "s": ["i", "j"]}),
        ("ins2", {"keys": K(10), "f": [[10, 10.5]]}),
        ("bad_index", {"keys": K(9), "s": ["x"]}),
        ("bad_type", {"keys": K(9), "i": [1]}),
        ("timeout", {}), ("capacity", {}), ("no_shapes", {}),
        ("u_ins", {"keys": K(1), "e": np.zeros((1, 0), np.float32)}),
        ("u_ins", {"keys": K(1, 2), "e": [[1.0], [2.0]]}),
        ("u_ins", {"keys": K(3), "e": [[1.0, 2.0]]}),
        ("u_ready", {}),
        ("other_types", {}), ("other_shapes", {}),
        ("close", {}),
        ("ins0", {"keys": K(11), "s": ["k"]}),
        ("ins0", {"keys": K(8, 11), "s": ["h", "k"]}),
        ("incomplete", {}),
        ("ins0", {"keys": K(8), "s": ["h"]}),
        ("ins2", {"keys": K(8, 9), "f": [[8, 8.5], [9, 9.5]]}),
        ("ready", {}), ("incomplete", {}),
        ("take", {"n": 10}),
        ("take_small", {"n": 10}),
        ("ins1", {"keys": [], "i": []}),
        ("close", {}),
        ("ins1", {"keys": K(10), "i": [100]}),
        ("ready", {}),
        ("take_small", {"n": 5}),
        ("take", {"n": 2}),
        ("take_small", {"n": 1}),
        ("take", {"n": 0}),
        ("cancel", {}), ("cancel", {}), ("close", {}),
        ("ins1", {"keys": [], "i": []}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, feeds_of)
    shapes = {label: [shape_of(t) for t in ops[label]] for label in ("take", "take_small",
                                                                      "take2")}
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    names = fetch_names(ops)
    with open(os.path.join(out, "reference.json"), "w") as fh:
        json.dump({"tensorflow": tf.__version__, "nodes": nodes_of(g), "shapes": shapes,
                   "ops": names, "steps": steps}, fh, indent=1)
    print("wrote %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_barrier")
