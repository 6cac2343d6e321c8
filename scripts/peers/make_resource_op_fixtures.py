#!/usr/bin/env python3
"""Writes tests/data/tf_resource_ops: a GraphDef (graph.pb) of what tf.compat.v1 builds on
resource variables beyond reads and assignments: `tf.gather_nd` of a resource variable
(ResourceGatherNd) with tf.gradients of it and GradientDescent training through it (by one
index per row, IndexedSlices; by two, a dense ScatterNd), and `tf.compat.v1.count_up_to` of one
(ResourceCountUpTo), and Keras' AMSGrad update (ResourceApplyAdamWithAmsgrad), with
reference.json: what a sequence of session runs gave, values or
errors, for tests/conformance/resource_op_test.cpp. Never a dependency of the build or the
tests.

  python scripts/peers/make_resource_op_fixtures.py [OUT_DIR]   # default tests/data/tf_resource_ops

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        rows = tf1.placeholder(tf.int32, [None, 1], name="rows")
        cells = tf1.placeholder(tf.int64, [None, 2], name="cells")
        table = tf1.get_variable("table", initializer=tf.reshape(tf.range(12.0), [4, 3]),
                                 use_resource=True)
        counter = tf1.get_variable("counter", initializer=tf.constant(3, tf.int64),
                                   use_resource=True, trainable=False)
        by_row = tf.gather_nd(table, rows, name="by_row")
        by_cell = tf.gather_nd(table, cells, name="by_cell")
        weights = tf.constant([1.0, -2.0, 0.5])
        row_loss = tf.reduce_sum(tf.square(by_row) * weights, name="row_loss")
        cell_loss = tf.reduce_sum(tf.square(by_cell), name="cell_loss")
        opt = tf1.train.GradientDescentOptimizer(0.01)
        grad = tf1.placeholder(tf.float32, [None], name="grad")
        slots = [tf1.get_variable(n, initializer=tf.constant(v), use_resource=True)
                 for n, v in (("var", [1.0, -2.0, 0.5]), ("m", [0.0, 0.1, 0.0]),
                              ("v", [0.0, 0.2, 0.0]), ("vhat", [0.0, 0.3, 0.1]))]
        amsgrad = tf.raw_ops.ResourceApplyAdamWithAmsgrad(
            var=slots[0].handle, m=slots[1].handle, v=slots[2].handle, vhat=slots[3].handle,
            beta1_power=tf.constant(0.81), beta2_power=tf.constant(0.998), lr=tf.constant(0.1),
            beta1=tf.constant(0.9), beta2=tf.constant(0.999), epsilon=tf.constant(1e-7),
            grad=grad, name="amsgrad")
        ops = {
            "init": tf1.global_variables_initializer(),
            "by_row": by_row,
            "by_cell": by_cell,
            "row_grad": tf.convert_to_tensor(tf.gradients(row_loss, table)[0]),
            "cell_grad": tf.gradients(cell_loss, table)[0],
            "train_rows": opt.minimize(row_loss, name="train_rows"),
            "train_cells": opt.minimize(cell_loss, name="train_cells"),
            "table": tf.identity(table.read_value(), name="table_now"),
            "count": tf1.count_up_to(counter, 5, name="count"),
            "counter": tf.identity(counter.read_value(), name="counter_now"),
            "amsgrad": amsgrad,
            "slots": [tf.identity(x.read_value(), name=x.op.name + "_now") for x in slots],
        }
    plan = [
        ("init", {}),
        ("by_row", {"rows": [[2], [0], [2]]}),
        ("by_cell", {"cells": [[1, 2], [3, 0], [1, 2]]}),
        ("by_row", {"rows": [[4]]}),
        ("by_cell", {"cells": [[0, 3]]}),
        ("by_row", {"rows": [[-1]]}),
        ("row_grad", {"rows": [[2], [0], [2]]}),
        ("cell_grad", {"cells": [[1, 2], [3, 0], [1, 2]]}),
        ("train_rows", {"rows": [[2], [0], [2]]}), ("table", {}),
        ("train_cells", {"cells": [[1, 2], [3, 0], [1, 2]]}), ("table", {}),
        ("count", {}), ("count", {}), ("counter", {}), ("count", {}), ("counter", {}),
        ("amsgrad", {"grad": [0.5, -1.0, 2.0]}), ("slots", {}),
        ("amsgrad", {"grad": [0.1, 3.0, -0.25]}), ("slots", {}),
        ("amsgrad", {"grad": [1.0, 2.0]}), ("slots", {}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"rows": rows, "cells": cells, "grad": grad})
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_resource_ops")
