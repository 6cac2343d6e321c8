#!/usr/bin/env python3
"""Writes tests/data/tf_graph/functional: graphs of TensorFlow 2's functional control flow
as tf.compat.v1 builds them in TensorFlow 2 (only eager execution disabled, so control flow
v2 and resource variables): While/StatelessWhile, If/StatelessIf and
PartitionedCall/StatefulPartitionedCall nodes over a function library. Never a dependency
of the build or the tests: the fixtures are committed, and this script remakes them.

  python scripts/peers/make_functional_fixtures.py [OUT_DIR]  # default tests/data/tf_graph/functional

OUT_DIR/graph.pb   make-while's loops (make_graph_fixtures.build_loops: a counter with a
                   loop invariant, nested loops, a parallel_iterations=1 matrix loop, a loop
                   in a cond branch, a cond in a loop body, a resource variable assigned in
                   every iteration) as functional ops, a stateless and a stateful
                   tf.function called in the graph, a cond with no outputs (only a side
                   effect), a cond on a predicate fed as p and a tf.switch_case (Case) on
                   k, with indices in and out of range; the reference holds the
                   values for n = 0, 1, 3, 6. (Gradients of v2 conds and loops need variant
                   tensors, Optional and TensorList ops, that actorflow does not have yet.)
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_graph_fixtures import build_loops  # noqa: E402

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()  # graph mode; control flow v2 and resource variables stay on


CASE_INDICES = [-1, 0, 1, 2, 5]


def all_ops(graph_def):
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return sorted(ops)


def make_graph(out):
    g = tf1.Graph()
    with g.as_default():
        n, x, p, counter = build_loops(tf, tf1)
        tf.identity(counter.read_value(), name="counter_out")

        @tf.function
        def affine(a, b):
            return a * b + 1.0, a - b
        first, second = affine(x, x)
        tf.identity(first, name="call_out")
        tf.identity(second, name="call_out_1")

        calls = tf1.get_variable("calls", [], tf.float32, initializer=tf1.zeros_initializer())

        @tf.function
        def count_call(a):
            calls.assign_add(1.0)
            return tf.reduce_sum(a)
        tf.identity(count_call(x), name="stateful_call_out")

        # A cond with no outputs: only its side effect.
        flips = tf1.get_variable("flips", [], tf.int32, initializer=tf1.zeros_initializer())

        def flip_on():
            flips.assign_add(1)
            return tf.no_op()
        side = tf1.cond(p, flip_on, tf.no_op, name="side_effect")
        with tf1.control_dependencies([side]):
            tf.identity(flips.read_value(), name="flips_out")
        y = tf1.cond(p, lambda: tf.sin(x) * x, lambda: tf.square(x) - x, name="branch")
        tf.identity(y, name="branch_out")
        # tf.switch_case: a Case node; an index out of range runs the last branch.
        index = tf1.placeholder_with_default(1, [], name="k")
        picked = tf.switch_case(index, [lambda: x * 10.0, lambda: x + 1.0, lambda: -x], name="pick")
        tf.identity(picked, name="pick_out")
        tf1.global_variables_initializer()  # "init"
        tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
        xs = [0.5, -1.0, 2.0]
        fetches = {"sum": "sum_out:0", "nested": "nested_out:0", "power": "power_out:0",
                   "in_cond": "loop_in_cond_out:0", "collatz": "collatz_out:0",
                   "count": "count_out:0", "call": "call_out:0", "call_1": "call_out_1:0",
                   "stateful_call": "stateful_call_out:0", "branch": "branch_out:0"}
        runs = []
        with tf1.Session(graph=g) as sess:
            sess.run("init")
            for nv in (0, 1, 3, 6):
                r = sess.run(fetches, {n: nv, x: xs})
                r["not_in_cond"] = sess.run("loop_in_cond_out:0", {n: nv, p: False})
                r["branch_false"] = sess.run("branch_out:0", {x: xs, p: False})
                r["counter"] = sess.run("counter_out:0")
                r["calls"] = sess.run(calls.read_value())
                r["flips"] = sess.run("flips_out:0", {p: nv % 2 == 1})
                runs.append({"n": nv, **{k: np.asarray(v).tolist() for k, v in r.items()}})
            picks = [sess.run("pick_out:0", {x: xs, index: kv}).tolist() for kv in CASE_INDICES]
        ops = all_ops(g.as_graph_def())
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"x": xs, "runs": runs, "case_indices": CASE_INDICES, "picks": picks, "ops": ops,
                   "tensorflow": tf.__version__}, f, indent=1)
    print("wrote", out, ops)


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_graph/functional"
    os.makedirs(root, exist_ok=True)
    make_graph(root)
