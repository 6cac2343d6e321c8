#!/usr/bin/env python3
"""Writes tests/data/tf_session_tensors: a GraphDef (graph.pb) of tf.compat.v1's session
tensors (get_session_handle, get_session_tensor, delete_session_tensor: GetSessionHandle,
GetSessionTensor, DeleteSessionTensor) and reference.json: the handles TensorFlow gave, the
tensors they named in later runs, and the error after a delete, for
tests/conformance/session_tensor_test.cpp. Never a dependency of the build or the tests.

  python scripts/peers/make_session_tensor_fixtures.py [OUT_DIR]

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float32, [None], name="a")
        keep = tf1.get_session_handle(tf.multiply(a, 2.0, name="twice"), name="keep")
        with tf.device(CPU):
            held = tf1.placeholder(tf.string, name="held")
            value = tf.raw_ops.GetSessionTensor(handle=held, dtype=tf.float32, name="value")
            drop = tf.raw_ops.DeleteSessionTensor(handle=held, name="drop")
        total = tf.reduce_sum(value, name="total")
    ref = {"tensorflow": tf.__version__}
    with tf1.Session(graph=g) as sess:
        first = sess.run(keep, {a: [1.0, 2.5]}).handle
        second = sess.run(keep, {a: [-4.0]}).handle
        ref["handles"] = [first, second]
        ref["values"] = [sess.run(value, {held: first}).tolist(),
                         sess.run(value, {held: second}).tolist()]
        ref["total"] = float(sess.run(total, {held: first}))
        sess.run(drop, {held: first})
        try:
            sess.run(value, {held: first})
        except tf.errors.OpError as err:
            ref["error"] = type(err).__name__
            ref["message"] = [ln for ln in err.message.split("\n")
                              if ln and not ln[0].isspace()][-1]
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    with open(os.path.join(out, "reference.json"), "w") as fh:
        json.dump(ref, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_session_tensors")
