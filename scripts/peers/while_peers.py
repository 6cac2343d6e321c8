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


def tf_us_per_iteration(flavour, iterations=10000):
    out = subprocess.run([sys.executable, "-c", CHILD, flavour, str(iterations)], check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    ours, v1, v2 = [], [], []
    for _ in range(args.reps):
        out = subprocess.run([args.bench, "while"], check=True, capture_output=True, text=True).stdout
        m = re.search(r"while loop median ([\d.]+) us/iteration", out)
        if not m:
            raise SystemExit("no WHILE line in: " + out)
        ours.append(float(m.group(1)))
        v1.append(tf_us_per_iteration("v1"))
        v2.append(tf_us_per_iteration("v2"))
        print("round: actorflow %.2f us/iteration, TensorFlow v1 %.2f, v2 %.2f" % (ours[-1], v1[-1], v2[-1]),
              flush=True)
    a, t1, t2 = statistics.median(ours), statistics.median(v1), statistics.median(v2)
    print("WHILE: actorflow median %.2f us/iteration, TensorFlow control flow v1 %.2f (ratio %.2fx), "
          "v2 %.2f (ratio %.2fx)" % (a, t1, t1 / a, t2, t2 / a))


if __name__ == "__main__":
    main()
