#!/usr/bin/env python3
"""WHILE beside TensorFlow: a while loop's cost per iteration.

actorflow: `actorflow-bench while` (10,000 iterations of `acc += x * i` on 16 floats, the
loop built as tf.compat.v1.while_loop builds it, control flow v1; median of 9 steps).
TensorFlow: tf.compat.v1.while_loop on the same work with control flow v1 (what
disable_v2_behavior gives) and, for reference, control flow v2 (the functional While),
each in a Session, median of 9 steps after a warm-up. The two alternate --reps times; the
medians of the rounds are reported with their ratio. Needs tensorflow in the running
Python (scripts/peers/setup_venv.sh, or any venv with tensorflow-cpu).

  python scripts/peers/while_peers.py --bench build/apps/bench/actorflow-bench [--reps 3]

With --grad, WHILE-GRAD instead: a gradient through a loop, d sum(h)/dU of the recurrence
h = tanh(h U + b) (16x32, 50 iterations), `actorflow-bench whilegrad` beside
tf.compat.v1.gradients through tf.compat.v1.while_loop (control flow v1: TensorFlow's
gradient loop with its stacks; v2 for reference), ms per step.

With --rnn, DYNAMIC-RNN: an RNN training step through TensorArrays, d sum(outputs)/d(W, U) of
h = tanh(x_t W + h U + b) over 20 steps of a 16x32 batch, `actorflow-bench rnn` beside
tf.compat.v1.nn.dynamic_rnn (time-major, the same cell; control flow v1 with TensorArrayV3,
v2 with TensorLists for reference), ms per step.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

CHILD = r'''
import os, statistics, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
v2 = sys.argv[1] == "v2"
tf1.disable_eager_execution()
if v2:
    tf1.enable_control_flow_v2()
else:
    tf1.disable_control_flow_v2()
iterations = int(sys.argv[2])
g = tf1.Graph()
with g.as_default():
    n = tf1.placeholder(tf.int32, [], name="n")
    x = tf1.placeholder(tf.float32, [16], name="x")
    _, acc = tf1.while_loop(lambda i, a: i < n,
                            lambda i, a: (i + 1, a + x * tf.cast(i, tf.float32)),
                            [tf.constant(0), tf.zeros([16])])
xs = np.arange(16, dtype=np.float32) * 0.001
with tf1.Session(graph=g, config=tf1.ConfigProto(inter_op_parallelism_threads=2,
                                                 intra_op_parallelism_threads=2)) as sess:
    feed = {n: iterations, x: xs}
    sess.run(acc, feed)
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        sess.run(acc, feed)
        times.append((time.perf_counter() - t0) * 1e6 / iterations)
print(statistics.median(times))
'''

CHILD_GRAD = r'''
import os, statistics, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
if sys.argv[1] == "v2":
    tf1.enable_control_flow_v2()
else:
    tf1.disable_control_flow_v2()
k = np.arange(32 * 32)
uv = (0.05 * ((k * 7) % 11) - 0.25).astype(np.float32).reshape(32, 32)
k = np.arange(16 * 32)
hv = (0.1 * ((k * 5) % 9) - 0.4).astype(np.float32).reshape(16, 32)
bv = (0.01 * (np.arange(32) % 5)).astype(np.float32)
g = tf1.Graph()
with g.as_default():
    u = tf1.placeholder(tf.float32, [32, 32], name="u")
    h0 = tf.constant(hv)
    b = tf.constant(bv)
    _, h = tf1.while_loop(lambda i, h: i < 50, lambda i, h: (i + 1, tf.tanh(tf1.matmul(h, u) + b)),
                          [tf.constant(0), h0])
    grad = tf1.gradients(tf.reduce_sum(h), [u])[0]
with tf1.Session(graph=g, config=tf1.ConfigProto(inter_op_parallelism_threads=2,
                                                 intra_op_parallelism_threads=2)) as sess:
    sess.run(grad, {u: uv})
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        sess.run(grad, {u: uv})
        times.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(times))
'''

CHILD_RNN = r'''
import os, statistics, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
if sys.argv[1] == "v2":
    tf1.enable_control_flow_v2()
else:
    tf1.disable_control_flow_v2()


def values(n, mul, mod, scale, shift):
    return (scale * ((np.arange(n) * mul) % mod) - shift).astype(np.float32)


class Cell:
    def __init__(self, w, u, b):
        self.w, self.u, self.b = w, u, b
    state_size = 32
    output_size = 32

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, 32], dtype)

    def __call__(self, inputs, state, scope=None):
        h = tf.tanh(tf1.matmul(inputs, self.w) + tf1.matmul(state, self.u) + self.b)
        return h, h


g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [20, 16, 32], name="x")
    w = tf1.placeholder(tf.float32, [32, 32], name="w")
    u = tf1.placeholder(tf.float32, [32, 32], name="u")
    b = tf.constant(values(32, 1, 5, 0.01, 0.0))
    outputs, _ = tf1.nn.dynamic_rnn(Cell(w, u, b), x, initial_state=tf.zeros([16, 32]),
                                    time_major=True)
    grads = tf1.gradients(tf.reduce_sum(outputs), [w, u])
feed = {x: values(20 * 16 * 32, 7, 13, 0.02, 0.12).reshape(20, 16, 32),
        w: values(32 * 32, 5, 11, 0.02, 0.1).reshape(32, 32),
        u: values(32 * 32, 3, 7, 0.02, 0.06).reshape(32, 32)}
with tf1.Session(graph=g, config=tf1.ConfigProto(inter_op_parallelism_threads=2,
                                                 intra_op_parallelism_threads=2)) as sess:
    sess.run(grads, feed)
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        sess.run(grads, feed)
        times.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(times))
'''


def tf_median(child, *child_args):
    out = subprocess.run([sys.executable, "-c", child, *child_args], check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def compare(args, label, bench_arg, pattern, unit, child, *child_args):
    """Alternates actorflow-bench `bench_arg` with TensorFlow's control flow v1 and v2."""
    ours, v1, v2 = [], [], []
    for _ in range(args.reps):
        out = subprocess.run([args.bench, bench_arg], check=True, capture_output=True,
                             text=True).stdout
        m = re.search(pattern, out)
        if not m:
            raise SystemExit("no %s line in: %s" % (label, out))
        ours.append(float(m.group(1)))
        v1.append(tf_median(child, "v1", *child_args))
        v2.append(tf_median(child, "v2", *child_args))
        print("round: actorflow %.3f %s, TensorFlow v1 %.3f, v2 %.3f" % (ours[-1], unit, v1[-1], v2[-1]),
              flush=True)
    a, t1, t2 = statistics.median(ours), statistics.median(v1), statistics.median(v2)
    print("%s: actorflow median %.3f %s, TensorFlow control flow v1 %.3f (ratio %.2fx), "
          "v2 %.3f (ratio %.2fx)" % (label, a, unit, t1, t1 / a, t2, t2 / a))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--grad", action="store_true", help="WHILE-GRAD: a gradient through a loop")
    ap.add_argument("--rnn", action="store_true", help="DYNAMIC-RNN: an RNN step through TensorArrays")
    args = ap.parse_args()
    if args.rnn:
        compare(args, "DYNAMIC-RNN", "rnn", r"arrays and loops median ([\d.]+) ms/step", "ms/step",
                CHILD_RNN)
    elif args.grad:
        compare(args, "WHILE-GRAD", "whilegrad", r"gradient loop median ([\d.]+) ms/step", "ms/step",
                CHILD_GRAD)
    else:
        compare(args, "WHILE", "while", r"while loop median ([\d.]+) us/iteration", "us/iteration",
                CHILD, "10000")


if __name__ == "__main__":
    main()
