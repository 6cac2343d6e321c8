#!/usr/bin/env python3
"""GRAPH beside TensorFlow: importing the same 100,000-node binary GraphDef.

actorflow: `actorflow-bench graph --graph-file FILE` (parse into af::GraphDef, then
af::import_graph_def into a fresh Graph, shape inference included; median of 7).
TensorFlow: GraphDef.FromString, then tf.compat.v1.import_graph_def into a fresh tf.Graph
(median of 7). The two alternate --reps times; the medians of the rounds are reported with
their ratio. Needs tensorflow in the running Python (scripts/peers/setup_venv.sh, or any venv
with tensorflow-cpu).

  python scripts/peers/graph_import_peers.py --bench build/apps/bench/actorflow-bench [--nodes 100000] [--reps 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def tf_import_ms(path, reps=7):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    data = open(path, "rb").read()
    times = []
    for r in range(reps + 1):
        t0 = time.perf_counter()
        gd = tf1.GraphDef.FromString(data)
        with tf1.Graph().as_default():
            tf1.import_graph_def(gd, name="import")
        ms = (time.perf_counter() - t0) * 1e3
        if r:
            times.append(ms)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    path = os.path.join(tempfile.mkdtemp(), "graph.pb")
    subprocess.run([args.bench, "graph", "--write-graph", path, "--graph-nodes", str(args.nodes)], check=True)
    af, tf = [], []
    for _ in range(args.reps):
        out = subprocess.run([args.bench, "graph", "--graph-file", path], check=True, capture_output=True,
                             text=True).stdout
        af.append(float(re.search(r"median ([0-9.]+) ms", out).group(1)))
        tf.append(tf_import_ms(path))
        print("round: actorflow %.1f ms, TensorFlow %.1f ms" % (af[-1], tf[-1]), flush=True)
    a, t = statistics.median(af), statistics.median(tf)
    print("PEER actorflow import_ms=%.1f rounds=%s" % (a, ",".join("%.1f" % x for x in af)))
    print("PEER tf1 import_ms=%.1f rounds=%s" % (t, ",".join("%.1f" % x for x in tf)))
    print("RATIO nodes=%d actorflow_speedup=%.2f" % (args.nodes, t / a))


if __name__ == "__main__":
    sys.exit(main())
