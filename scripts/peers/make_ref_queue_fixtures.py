#!/usr/bin/env python3
"""Writes tests/data/tf_ref_queues: a GraphDef (graph.pb) of TensorFlow's first queue ops,
whose handles are Ref(string) where the V2 ops' are resources (FIFOQueue, PaddingFIFOQueue,
PriorityQueue, QueueEnqueue, QueueEnqueueMany, QueueDequeue, QueueDequeueMany,
QueueDequeueUpTo, QueueSize, QueueClose, QueueIsClosed), as old GraphDefs hold them, built
with tf.compat.v1's raw ops, and reference.json: what a sequence of session runs gives,
values or errors, for tests/conformance/ref_queue_test.cpp. Never a dependency of the build
or the tests.

  python scripts/peers/make_ref_queue_fixtures.py [OUT_DIR]   # default tests/data/tf_ref_queues

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_data_flow_ops as gen  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        y = tf1.placeholder(tf.int32, [None], name="y")
        v = tf1.placeholder(tf.int32, [None], name="v")
        p = tf1.placeholder(tf.int64, [None], name="p")
        w = tf1.placeholder(tf.string, [None], name="w")
        types = [tf.float32, tf.int32]
        q = gen.fifo_queue(component_types=types, shapes=[[2], []], capacity=5,
                           shared_name="fq", name="fq")
        pad = gen.padding_fifo_queue(component_types=[tf.int32], shapes=[[None]],
                                     shared_name="pq", name="pad")
        pri = gen.priority_queue(component_types=[tf.string], shapes=[[]],
                                 shared_name="prio", name="prio")
        ops = {
            "enqueue_many": gen.queue_enqueue_many(q, [x, y], name="enqueue_many"),
            "enqueue": gen.queue_enqueue(q, [x[0], y[0]], name="enqueue"),
            "dequeue": gen.queue_dequeue(q, types, name="dequeue"),
            "dequeue_many": gen.queue_dequeue_many(q, 2, types, name="dequeue_many"),
            "dequeue_up_to": gen.queue_dequeue_up_to(q, 3, types, name="dequeue_up_to"),
            "size": gen.queue_size(q, name="size"),
            "is_closed": gen.queue_is_closed(q, name="is_closed"),
            "close": gen.queue_close(q, name="close"),
            "pad_enqueue": gen.queue_enqueue(pad, [v], name="pad_enqueue"),
            "pad_dequeue_many": gen.queue_dequeue_many(pad, 2, [tf.int32],
                                                       name="pad_dequeue_many"),
            "pri_enqueue_many": gen.queue_enqueue_many(pri, [p, w], name="pri_enqueue_many"),
            "pri_dequeue_many": gen.queue_dequeue_many(pri, 3, [tf.int64, tf.string],
                                                       name="pri_dequeue_many"),
        }
    feeds_of = {"x": x, "y": y, "v": v, "p": p, "w": w}
    plan = [
        ("size", {}), ("is_closed", {}),
        ("enqueue_many", {"x": [[1, 2], [3, 4], [5, 6]], "y": [1, 2, 3]}),
        ("enqueue", {"x": [[7, 8]], "y": [4]}),
        ("size", {}), ("dequeue", {}), ("dequeue_many", {}), ("size", {}),
        ("close", {}), ("is_closed", {}),
        ("enqueue", {"x": [[9, 10]], "y": [5]}),
        ("dequeue_up_to", {}), ("dequeue", {}), ("close", {}),
        ("pad_enqueue", {"v": [1, 2, 3]}), ("pad_enqueue", {"v": [4]}),
        ("pad_dequeue_many", {}),
        ("pri_enqueue_many", {"p": [5, -1, 3, 9], "w": ["five", "minus one", "three", "nine"]}),
        ("pri_dequeue_many", {}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, feeds_of)
    write_fixture(out, g, ops, steps)
    print("wrote %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ref_queues")
