#!/usr/bin/env python3
"""Writes tests/data/tf_staging: a GraphDef (graph.pb) TensorFlow's tf.compat.v1 builds with
data_flow_ops.StagingArea (two areas: float32 [2] and int32 scalar components with capacity
and memory limit; one with a shared name and a single string component), and
reference.json: the nodes TensorFlow made (name, op, inputs, attrs the test compares) and
what a sequence of session runs gives (puts, size, peeks, gets, clear); map_graph.pb and
map_reference.json the same of an ordered data_flow_ops.MapStagingArea (complete and
incomplete puts, peek, keyed and keyless gets of some components, sizes, clear), for
tests/conformance/staging_area_test.cpp. Never a dependency of the build or the tests.

  python scripts/peers/make_staging_fixtures.py [OUT_DIR]   # default tests/data/tf_staging

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops  # noqa: E402

from make_op_fixtures import encode  # noqa: E402

tf1 = tf.compat.v1


def nodes_of(g):
    nodes = []
    for node in g.as_graph_def().node:
        attrs = {}
        for key in ("shared_name", "capacity", "memory_limit", "container"):
            if key in node.attr:
                v = node.attr[key]
                attrs[key] = v.s.decode() if v.WhichOneof("value") == "s" else v.i
        for key in ("dtypes", "fake_dtypes"):
            if key in node.attr:
                attrs[key] = [tf.dtypes.as_dtype(t).name for t in node.attr[key].list.type]
        nodes.append({"name": node.name, "op": node.op, "input": list(node.input),
                      "colocation": [c.decode() for c in node.attr["_class"].list.s]
                      if "_class" in node.attr else [], "attrs": attrs})
    return nodes


def write_map(out):
    """map_graph.pb and map_reference.json: an ordered MapStagingArea's steps."""
    g = tf.Graph()
    with g.as_default():
        k = tf1.placeholder(tf.int64, [], name="k")
        a = tf1.placeholder(tf.float32, [2], name="a")
        b = tf1.placeholder(tf.int32, [], name="b")
        area = data_flow_ops.MapStagingArea([tf.float32, tf.int32], shapes=[[2], []],
                                            ordered=True, capacity=4)
        ops = {"put": area.put(k, [a, b], indices=[0, 1]),
               "put0": area.put(k, [a], indices=[0]),
               "put1": area.put(k, [b], indices=[1]),
               "peek": area.peek(k),
               "get": area.get(k)[1],
               "get_nokey": area.get(indices=[1]),
               "size": area.size(), "incomplete_size": area.incomplete_size(),
               "clear": area.clear()}
    plan = [("put", {"k": 5, "a": [1, 2], "b": 10}), ("put0", {"k": 3, "a": [3, 4]}),
            ("size", {}), ("incomplete_size", {}), ("put1", {"k": 3, "b": 30}), ("size", {}),
            ("incomplete_size", {}), ("peek", {"k": 3}), ("get_nokey", {}), ("get", {"k": 5}),
            ("size", {}), ("clear", {}), ("size", {})]
    steps = []
    with tf1.Session(graph=g) as sess:
        for label, feeds in plan:
            fd = {{"k": k, "a": a, "b": b}[n]: v for n, v in feeds.items()}
            fetch = ops[label]
            value = sess.run(fetch, fd)
            if isinstance(fetch, tf.Operation):
                value = None
            elif label == "get_nokey":
                value = [value[0]] + list(value[1])
            elif not isinstance(value, list):
                value = [value]
            steps.append({"fetch": label, "feeds": feeds,
                          "value": None if value is None else [encode(v) for v in value]})
    tf.io.write_graph(g.as_graph_def(), out, "map_graph.pb", as_text=False)
    names = {label: (op.name if isinstance(op, tf.Operation) else None)
             for label, op in ops.items()}
    with open(os.path.join(out, "map_reference.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "nodes": nodes_of(g), "steps": steps,
                   "ops": names}, f, indent=1)


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [2], name="x")
        n = tf1.placeholder(tf.int32, [], name="n")
        area = data_flow_ops.StagingArea([tf.float32, tf.int32], shapes=[[2], []], capacity=3,
                                         memory_limit=1000)
        put = area.put([x, n])
        got = area.get()
        peeked = area.peek(1)
        size = area.size()
        clear = area.clear()
        words = data_flow_ops.StagingArea([tf.string], shared_name="words")
        put_w = words.put([tf.constant("staged", name="word")])
        get_w = words.get()
    steps = []
    with tf1.Session(graph=g) as sess:
        def run(fetch, feeds=None, label=None):
            value = sess.run(fetch, feeds)
            if isinstance(fetch, tf.Operation):
                value = None
            steps.append({"fetch": label, "feeds": {k.name: v for k, v in (feeds or {}).items()},
                          "value": None if value is None else [encode(v) for v in value]
                          if isinstance(value, list) else [encode(value)]})
        for i in range(3):
            run(put, {x: [i + 0.5, -i], n: 10 * i}, "put")
        run(size, None, "size")
        run(peeked, None, "peek")
        run(got, None, "get")
        run(size, None, "size")
        run(clear, None, "clear")
        run(size, None, "size")
        run(put_w, None, "put_w")
        run(get_w, None, "get_w")
    for s in steps:
        s["feeds"] = {k: (list(map(float, v)) if hasattr(v, "__len__") else int(v))
                      for k, v in s["feeds"].items()}
    nodes = nodes_of(g)
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "nodes": nodes, "steps": steps}, f, indent=1)
    write_map(out)
    print("wrote %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_staging")
