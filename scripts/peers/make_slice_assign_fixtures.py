#!/usr/bin/env python3
"""Writes tests/data/tf_slice_assign: a GraphDef (graph.pb) of TensorFlow's slice assignments,
`var[...].assign(value)` on a reference variable (StridedSliceAssign) and on a resource
variable (ResourceStridedSliceAssign), and TensorStridedSliceUpdate with tf.gradients of it,
with reference.json: what a sequence of session runs gave, values or errors (shrunk, new and
ellipsis axes, negative strides, values that broadcast, empty slices, bounds out of range),
for tests/conformance/slice_assign_test.cpp. Never a dependency of the build or the tests.

  python scripts/peers/make_slice_assign_fixtures.py [OUT_DIR]   # default tests/data/tf_slice_assign

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
        x = tf1.placeholder(tf.float32, name="x")
        i = tf1.placeholder(tf.int32, [], name="i")
        start = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
        v = tf1.Variable(tf.constant(start, tf.float32), use_resource=False, name="v")
        r = tf1.Variable(tf.constant(start, tf.float32), use_resource=True, name="r")
        w = tf1.Variable(tf.constant([["a", "b"], ["c", "d"]]), use_resource=True, name="w")
        s = tf1.placeholder(tf.string, name="s")
        ops = {"init": tf1.global_variables_initializer()}
        for var, kind in ((v, "ref"), (r, "res")):
            def assign(label, sliced):
                if kind == "ref":
                    ops[kind + "_" + label] = sliced.assign(x)
                else:
                    ops[kind + "_" + label] = sliced.assign(x).op
            assign("column", var[:, 1])
            assign("reversed", var[::-1, ::2])
            assign("row", var[1])
            assign("new_axis", var[0, tf.newaxis, 1:])
            assign("ellipsis", var[..., 2])
            assign("dynamic", var[i])
            assign("empty", var[2:1])
            assign("all", var[:])
            ops[kind + "_value"] = tf.identity(var, name=kind + "_value")
        ops["str_set"] = w[1, ::-1].assign(s).op
        ops["str_value"] = tf.identity(w, name="str_value")
        p = tf1.placeholder(tf.float32, [3, 4], name="p")
        q = tf1.placeholder(tf.float32, name="q")
        up = tf.raw_ops.TensorStridedSliceUpdate(input=p, begin=[0, 1], end=[3, 4],
                                                 strides=[2, 2], value=q, name="update")
        up2 = tf.raw_ops.TensorStridedSliceUpdate(input=p, begin=[1, 0], end=[2, 0],
                                                  strides=[1, 1], value=q, end_mask=2,
                                                  shrink_axis_mask=1, name="update_row")
        weights = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
        ops["update"] = up
        ops["update_grads"] = tf.gradients(tf.reduce_sum(up * weights), [p, q])
        ops["update_row"] = up2
        ops["update_row_grads"] = tf.gradients(tf.reduce_sum(up2 * weights), [p, q])
    m = [[1.5, 2.5, 3.5, 4.5], [5, 6, 7, 8], [9, 10, 11, 12]]
    plan = [("init", {})]
    for kind in ("ref", "res"):
        def run(label, value, **feeds):
            plan.append((kind + "_" + label, dict(x=value, **feeds)))
            if kind == "res":
                plan.append(("res_value", {}))
        run("column", [10, 20, 30])
        run("reversed", [[-1, -2], [-3, -4]])  # refused: the slice is [3, 2]
        run("reversed", [[-1, -2], [-3, -4], [-5, -6]])
        run("row", 0.5)  # a scalar broadcast
        run("row", [[[7, 8, 9]]])  # leading 1s
        run("new_axis", [[11, 12]])
        run("new_axis", [13])  # [2] into [1, 2]
        run("ellipsis", [[1], [2], [3]])  # [3, 1] into [3]: refused
        run("ellipsis", [1, 2, 3])
        run("column", [1, 2])  # refused
        run("dynamic", [0, 0, 0], i=2)
        run("dynamic", [0, 0, 0], i=3)  # out of bounds
        run("dynamic", [4, 4, 4], i=-3)
        run("empty", [1, 2, 3, 4, 5])  # an empty slice checks no value
        run("all", [[1, 2, 3]])  # broadcast down
        run("all", [[1, 2], [3, 4]])  # refused
        plan.append((kind + "_value", {}))
    plan += [("str_set", {"s": ["x", "y"]}), ("str_value", {})]
    for label in ("update", "update_grads", "update_row", "update_row_grads"):
        plan += [(label, {"p": m, "q": [[1, 2], [3, 4]] if "row" not in label else [1, 2, 3, 4]}),
                 (label, {"p": m, "q": 7})]
        if "grads" not in label:  # (which of two kernels fails first is a race)
            plan.append((label, {"p": m, "q": [1, 2, 3]}))
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"x": x, "i": i, "s": s, "p": p, "q": q})
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_slice_assign")
