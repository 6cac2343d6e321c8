#!/usr/bin/env python3
"""SERVE beside TensorFlow: the same SavedModel loaded and served request by request.

TensorFlow 2.21 writes the model: a Keras 3 MLP (784-512-512-10, ReLU, softmax) exported with
`model.export`, TensorFlow 2's SavedModel format. actorflow: `actorflow-bench serve
--saved-model DIR --batch B` (SavedModelBundle; load median of 5; a request's median over 7
rounds of 300 after 50 to warm up). TensorFlow, in this process, the same way: its TensorFlow 1
loader (`tf.compat.v1.saved_model.load` into a Session, `sess.run` of the signature's tensors)
and its TensorFlow 2 loader (`tf.saved_model.load`, the signature called eagerly). The three
alternate --reps times per batch size; the medians of the rounds are reported with the ratios.
Needs tensorflow in the running Python (any venv with tensorflow-cpu).

  python scripts/peers/saved_model_peers.py --bench build/apps/bench/actorflow-bench [--reps 3]
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


def write_model(out):
    code = (
        "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']='2'\n"
        "import keras\n"
        "keras.utils.set_random_seed(1)\n"
        "m = keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation='relu'),\n"
        "    keras.layers.Dense(512, activation='relu'), keras.layers.Dense(10, activation='softmax')])\n"
        f"m.export({out!r})\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def tf1_serve(export_dir, batch, rounds=7, calls=300):
    """TensorFlow 1's loader: load median (ms of 5) and a request's median (us)."""
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1
    loads = []
    for _ in range(5):
        t0 = time.perf_counter()
        with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
            tf1.saved_model.load(sess, ["serve"], export_dir)
        loads.append((time.perf_counter() - t0) * 1e3)
    g = tf1.Graph()
    sess = tf1.Session(graph=g)
    with g.as_default():
        meta = tf1.saved_model.load(sess, ["serve"], export_dir)
    sig = meta.signature_def["serving_default"]
    (key, info), = sig.inputs.items()
    x = g.get_tensor_by_name(info.name)
    outs = [g.get_tensor_by_name(o.name) for o in sig.outputs.values()]
    value = np.random.default_rng(7).standard_normal((batch, 784)).astype(np.float32)
    for _ in range(50):
        sess.run(outs, {x: value})
    per_call = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            sess.run(outs, {x: value})
        per_call.append((time.perf_counter() - t0) / calls * 1e6)
    sess.close()
    return statistics.median(loads), statistics.median(per_call)


def tf2_serve(export_dir, batch, rounds=7, calls=300):
    """TensorFlow 2's loader, in an eager process of its own: load and request medians."""
    code = f"""
import os, statistics, time
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'
import numpy as np, tensorflow as tf
loads = []
for _ in range(5):
    t0 = time.perf_counter(); tf.saved_model.load({export_dir!r}); loads.append((time.perf_counter() - t0) * 1e3)
m = tf.saved_model.load({export_dir!r})
f = m.signatures['serving_default']
(key,) = f.structured_input_signature[1].keys()
x = tf.constant(np.random.default_rng(7).standard_normal(({batch}, 784)).astype(np.float32))
for _ in range(50): f(**{{key: x}})
per = []
for _ in range({rounds}):
    t0 = time.perf_counter()
    for _ in range({calls}): f(**{{key: x}})
    per.append((time.perf_counter() - t0) / {calls} * 1e6)
print(statistics.median(loads), statistics.median(per))
"""
    res = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    load, per = res.stdout.split()[-2:]
    return float(load), float(per)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="build/apps/bench/actorflow-bench")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batches", default="1,64")
    args = ap.parse_args()
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    export_dir = os.path.join(tempfile.mkdtemp(prefix="saved-model-peers-"), "mlp")
    write_model(export_dir)
    for batch in [int(b) for b in args.batches.split(",")]:
        af_load, af_req, t1_load, t1_req, t2_load, t2_req = [], [], [], [], [], []
        for _ in range(args.reps):
            out = subprocess.run([args.bench, "serve", "--saved-model", export_dir, "--batch",
                                  str(batch)], check=True, capture_output=True, text=True).stdout
            m = re.search(r"load median ([0-9.]+) ms .*a request median ([0-9.]+) us", out)
            af_load.append(float(m.group(1)))
            af_req.append(float(m.group(2)))
            load, req = tf1_serve(export_dir, batch)
            t1_load.append(load)
            t1_req.append(req)
            load, req = tf2_serve(export_dir, batch)
            t2_load.append(load)
            t2_req.append(req)
            print("batch %d round: actorflow %.1f us (load %.1f ms), TF1 loader %.1f us (%.1f ms), "
                  "TF2 loader %.1f us (%.1f ms)" % (batch, af_req[-1], af_load[-1], t1_req[-1],
                                                    t1_load[-1], t2_req[-1], t2_load[-1]),
                  flush=True)
        med = statistics.median
        print("PEER serve batch=%d actorflow request_us=%.1f load_ms=%.1f" % (
            batch, med(af_req), med(af_load)))
        print("PEER serve batch=%d tf1 request_us=%.1f load_ms=%.1f" % (
            batch, med(t1_req), med(t1_load)))
        print("PEER serve batch=%d tf2 request_us=%.1f load_ms=%.1f" % (
            batch, med(t2_req), med(t2_load)))
        print("RATIO serve batch=%d request_speedup_vs_tf1=%.2f vs_tf2=%.2f "
              "load_speedup_vs_tf1=%.2f vs_tf2=%.2f" % (
                  batch, med(t1_req) / med(af_req), med(t2_req) / med(af_req),
                  med(t1_load) / med(af_load), med(t2_load) / med(af_load)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
