#!/usr/bin/env python3
"""EVENTS beside TensorFlow: events written per second.

actorflow: `actorflow-bench events` (af::summary::FileWriter, 20,000 steps of add_summary
with a two-scalar Summary, then close; median of 7).
TensorFlow: tf.compat.v1.summary.FileWriter on the same work: the same Summaries, built
beforehand, each add_summary(bytes, step), then close (median of 7). The two alternate
--reps times; the medians of the rounds are reported with their ratio. Needs tensorflow in
the running Python (scripts/peers/setup_venv.sh, or any venv with tensorflow-cpu).

  python scripts/peers/events_peers.py --bench build/apps/bench/actorflow-bench [--reps 3]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time


def tf_events_per_s(steps=20000, reps=7):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    from tensorflow.core.framework import summary_pb2
    summaries = []
    for i in range(steps):
        s = summary_pb2.Summary()
        s.value.add(tag="loss", simple_value=1.0 / (i + 1))
        s.value.add(tag="accuracy", simple_value=i / steps)
        summaries.append(s.SerializeToString())
    rates = []
    for r in range(reps + 1):
        d = tempfile.mkdtemp(prefix="tf-events-")
        t0 = time.perf_counter()
        with tf1.Graph().as_default():  # FileWriter refuses eager mode
            w = tf1.summary.FileWriter(d)
            for i, s in enumerate(summaries):
                w.add_summary(s, i)
            w.close()
        rate = steps / (time.perf_counter() - t0)
        shutil.rmtree(d)
        if r:
            rates.append(rate)
    return statistics.median(rates)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    ours, theirs = [], []
    for _ in range(args.reps):
        out = subprocess.run([args.bench, "events"], check=True, capture_output=True, text=True).stdout
        m = re.search(r"FileWriter median (\d+) events/s", out)
        if not m:
            raise SystemExit("no EVENTS line in: " + out)
        ours.append(float(m.group(1)))
        theirs.append(tf_events_per_s())
        print("round: actorflow %.0f events/s, TensorFlow %.0f events/s" % (ours[-1], theirs[-1]), flush=True)
    a, t = statistics.median(ours), statistics.median(theirs)
    print("EVENTS: actorflow median %.0f events/s, TensorFlow %.0f events/s, ratio %.2fx" % (a, t, a / t))


if __name__ == "__main__":
    main()
