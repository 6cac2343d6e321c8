#!/usr/bin/env python3
"""TFDATA beside TensorFlow: epochs of the same tf.data pipelines, TensorFlow's GraphDefs.

TensorFlow 2.21's tf.compat.v1 (graph mode) writes each pipeline as a GraphDef with an
initializable iterator (`init`, `next`) and the files it reads; an epoch is `init`, then
`next` until OutOfRange. actorflow: `actorflow-bench tfdata --data-graph FILE` (median of 7
epochs after one to warm up). TensorFlow: the same GraphDef imported into a tf.compat.v1
Session, the same epochs. The two alternate --reps times per pipeline; the medians of the
rounds are reported with their ratio. Needs tensorflow in the running Python
(scripts/peers/setup_venv.sh, or any venv with tensorflow-cpu).

  python scripts/peers/tf_data_peers.py --bench build/apps/bench/actorflow-bench [--reps 3]

The pipelines:
  parse    4 TFRecord files of 25,000 tf.train.Examples each (an int64 label, 32 floats, a
           16-byte id), interleaved 2 at a time, shuffled (buffer 10,000, seeded), batched
           by 256, parse_example per batch, prefetch 2
  map      range(200,000), a map per element (cast, multiply-add, mod; 3 outputs), batch 512
  pmap     the same map with num_parallel_calls=AUTOTUNE, then prefetch(AUTOTUNE)
  shuffle  range(500,000), shuffle (buffer 10,000, seeded), batch 1,024
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"


def write_pipelines(out):
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    rng = np.random.default_rng(5)
    files = []
    for k in range(4):
        path = os.path.join(out, "examples-%d.tfrecord" % k)
        with tf.io.TFRecordWriter(path) as w:
            for i in range(25000):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(
                        value=rng.standard_normal(32).astype(np.float32))),
                    "id": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[rng.bytes(16)])),
                }))
                w.write(ex.SerializeToString())
        files.append(path)

    spec = {"label": tf.io.FixedLenFeature([], tf.int64),
            "x": tf.io.FixedLenFeature([32], tf.float32),
            "id": tf.io.FixedLenFeature([], tf.string)}

    def parse():
        ds = tf.data.Dataset.from_tensor_slices(files).interleave(
            tf.data.TFRecordDataset, cycle_length=2, block_length=16)
        ds = ds.shuffle(10000, seed=7).batch(256)
        return ds.map(lambda s: tf.io.parse_example(s, spec)).prefetch(2)

    def map_():
        ds = tf.data.Dataset.range(200000)
        ds = ds.map(lambda i: (tf.cast(i, tf.float32) * 0.5 + 1.0, i % 7, i * 3))
        return ds.batch(512)

    def pmap():
        ds = tf.data.Dataset.range(200000)
        ds = ds.map(lambda i: (tf.cast(i, tf.float32) * 0.5 + 1.0, i % 7, i * 3),
                    num_parallel_calls=tf.data.AUTOTUNE)
        return ds.batch(512).prefetch(tf.data.AUTOTUNE)

    def shuffle():
        return tf.data.Dataset.range(500000).shuffle(10000, seed=3).batch(1024)

    graphs = {}
    for name, build in (("parse", parse), ("map", map_), ("pmap", pmap), ("shuffle", shuffle)):
        g = tf1.Graph()
        with g.as_default():
            it = tf1.data.make_initializable_iterator(build())
            it.get_next(name="next")
            init = it.initializer
        gd = g.as_graph_def()
        # The initializer is the MakeIterator node: name it `init`.
        for n in gd.node:
            if n.name == init.name:
                n.name = "init"
        path = os.path.join(out, name + ".pb")
        with open(path, "wb") as f:
            f.write(gd.SerializeToString())
        graphs[name] = path
    return graphs


def tf_epoch_ms(path, reps=7):
    import tensorflow as tf
    tf1 = tf.compat.v1
    gd = tf1.GraphDef.FromString(open(path, "rb").read())
    g = tf1.Graph()
    with g.as_default():
        tf1.import_graph_def(gd, name="")
    init = g.get_operation_by_name("init")
    fetches = g.get_operation_by_name("next").outputs
    times, steps = [], 0
    with tf1.Session(graph=g) as sess:
        for r in range(reps + 1):
            t0 = time.perf_counter()
            sess.run(init)
            steps = 0
            try:
                while True:
                    sess.run(fetches)
                    steps += 1
            except tf.errors.OutOfRangeError:
                pass
            if r:
                times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="one pipeline: parse, map, pmap or shuffle")
    args = ap.parse_args()
    out = tempfile.mkdtemp(prefix="tf-data-peers-")
    graphs = write_pipelines(out)
    for name, path in graphs.items():
        if args.only and name != args.only:
            continue
        af, tf = [], []
        for _ in range(args.reps):
            res = subprocess.run([args.bench, "tfdata", "--data-graph", path], check=True,
                                 capture_output=True, text=True).stdout
            m = re.search(r"(\d+) steps, median ([0-9.]+) ms", res)
            af.append(float(m.group(2)))
            ms, steps = tf_epoch_ms(path)
            tf.append(ms)
            if int(m.group(1)) != steps:
                print("step counts differ: actorflow %s, TensorFlow %d" % (m.group(1), steps))
                return 1
            print("%s round: actorflow %.1f ms, TensorFlow %.1f ms (%d steps)"
                  % (name, af[-1], tf[-1], steps), flush=True)
        a, t = statistics.median(af), statistics.median(tf)
        print("PEER %s actorflow epoch_ms=%.1f rounds=%s" % (name, a, ",".join("%.1f" % x for x in af)))
        print("PEER %s tf1 epoch_ms=%.1f rounds=%s" % (name, t, ",".join("%.1f" % x for x in tf)))
        print("RATIO %s actorflow_speedup=%.2f" % (name, t / a), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
