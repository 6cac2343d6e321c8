#!/usr/bin/env python3
"""Writes tests/data/tf_summary_v2: a tf.compat.v1 graph that TensorFlow 2.21 built with
TensorFlow 2's summary API (tf.summary.create_file_writer and TensorBoard's v2 summaries,
tf.summary.experimental.write_raw_pb of v1 summaries, a record_if cond, a tf.function writing
a scalar, the legacy Write*Summary ops of tf.contrib.summary, ImportEvent,
WriteGraphSummary), and the events file TensorFlow wrote running it. Never a dependency of the build or the tests: the fixtures are committed, and this
script remakes them.

  python scripts/peers/make_summary_v2_fixtures.py [OUT_DIR]   # default tests/data/tf_summary_v2
  ACTORFLOW_SUMMARY_V2_OUT=/tmp/af_v2 build/tests/conformance_tests \
      --run_test=summary_v2_conformance_test
  python scripts/peers/make_summary_v2_fixtures.py --check /tmp/af_v2 [OUT_DIR]
      reads the events file actorflow wrote (the conformance test copies it to DIR) and
      TensorFlow's with TensorBoard's EventAccumulator: the same tags per plugin, and the
      same scalars, tensors, histograms, images and audio at each step

OUT_DIR/graph.pb          the GraphDef (binary): placeholders logdir (string), step (int64) and
                          x (float [None, 3]); the writer "create_file_writer"
OUT_DIR/tf_events/events.out.tfevents.*
                          what TensorFlow wrote: init, then the summary ops at each run's step
                          and x, then flush and close
OUT_DIR/reference.json    {init, flush, close, summary_ops: [tensor names], legacy_ops: [op
                          names], runs: [{step, x, recorded: what each summary op returned}],
                          events_file}
Needs tensorflow and tensorboard (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu
tensorboard).
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2, summary_pb2
from tensorflow.core.util import event_pb2
from tensorflow.python.ops import gen_logging_ops, gen_summary_ops

tf1 = tf.compat.v1

RUNS = [
    {"step": 1, "x": [[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]]},
    {"step": 2, "x": [[1.0, 2.0, 4.0]]},
]


def build():
    g = tf.Graph()
    with g.as_default():
        logdir = tf1.placeholder(tf.string, [], name="logdir")
        step = tf1.placeholder(tf.int64, [], name="step")
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        writer = tf.summary.create_file_writer(logdir)
        images = tf.reshape(x, [-1, 1, 3, 1])
        sound = tf.reshape(x / 10.0, [-1, 3, 1])
        with writer.as_default(step=step):
            tf.summary.scalar("loss", tf.reduce_mean(x))
            with tf1.name_scope("layer"):
                tf.summary.scalar("rows", tf.shape(x)[0])  # int32: cast to float
            tf.summary.histogram("x", x)
            tf.summary.text("note", tf.strings.as_string(tf.reduce_sum(x)))
            tf.summary.image("img", images, max_outputs=2)
            tf.summary.audio("snd", sound, 8000)
            v1 = [
                tf1.summary.scalar("v1_loss", tf.reduce_max(x), collections=[]),
                tf1.summary.audio("v1_snd", tf.reshape(sound, [-1, 3]), 16000.0,
                                  max_outputs=1, collections=[]),
                gen_logging_ops.tensor_summary(tf.shape(x), name="v1_tensor"),
            ]
            tf.summary.experimental.write_raw_pb(tf.stack(v1), step=step)
            with tf.summary.record_if(tf.equal(step % 2, 0)):  # a cond: even steps only
                tf.summary.scalar("even_steps", tf.reduce_sum(x))
        handle = writer._resource  # pylint: disable=protected-access
        legacy = [
            gen_summary_ops.write_scalar_summary(handle, step, "legacy/scalar",
                                                 tf.reduce_min(x)),
            gen_summary_ops.write_histogram_summary(handle, step, "legacy/hist", x),
            gen_summary_ops.write_image_summary(handle, step, "legacy/img", images,
                                                tf.constant([255, 0, 0, 255], tf.uint8),
                                                max_images=3),
            gen_summary_ops.write_audio_summary(handle, step, "legacy/snd",
                                                tf.reshape(sound, [-1, 3]), 16000.0,
                                                max_outputs=1),
        ]
        tiny = graph_pb2.GraphDef()
        tiny.node.add(name="tiny", op="NoOp")
        legacy.append(gen_summary_ops.write_graph_summary(handle, step,
                                                          tiny.SerializeToString()))
        event = event_pb2.Event(step=99, wall_time=12.5)
        event.summary.value.add(tag="imported", simple_value=7.0)
        legacy.append(gen_summary_ops.import_event(handle, event.SerializeToString()))

        @tf.function
        def in_function(value, at):  # a StatefulPartitionedCall taking the writer
            with writer.as_default(step=at):
                tf.summary.scalar("in_function", value)
            return value

        legacy.append(in_function(tf.reduce_mean(x) * 2.0, step).op)
        summary_ops = tf1.summary.all_v2_summary_ops()
        init = writer.init()
        flush = writer.flush()
        close = writer.close()
    return g, {
        "init": init.name,
        "flush": flush.name,
        "close": close.name,
        "summary_ops": [t.name for t in summary_ops],
        "legacy_ops": [op.name for op in legacy],
    }, (logdir, step, x, summary_ops, legacy, init, flush, close)


def load(path):
    from tensorboard.backend.event_processing import event_accumulator as ea
    acc = ea.EventAccumulator(path, size_guidance={k: 0 for k in (
        ea.SCALARS, ea.TENSORS, ea.HISTOGRAMS, ea.IMAGES, ea.AUDIO, ea.GRAPH)})
    acc.Reload()
    return acc


def check(ours_dir, out):
    ref = json.load(open(os.path.join(out, "reference.json")))
    ours = load(ours_dir)
    theirs = load(os.path.join(out, os.path.dirname(ref["events_file"])))
    a, b = ours.Tags(), theirs.Tags()
    for kind in ("scalars", "tensors", "histograms", "images", "audio", "graph"):
        got = sorted(a[kind]) if isinstance(a[kind], list) else a[kind]
        want = sorted(b[kind]) if isinstance(b[kind], list) else b[kind]
        assert got == want, (kind, got, want)
    for tag in b["scalars"]:
        assert [(e.step, e.value) for e in ours.Scalars(tag)] == \
            [(e.step, e.value) for e in theirs.Scalars(tag)], tag
    for tag in b["tensors"]:
        x = [(e.step, tf.make_ndarray(e.tensor_proto).tolist()) for e in ours.Tensors(tag)]
        y = [(e.step, tf.make_ndarray(e.tensor_proto).tolist()) for e in theirs.Tensors(tag)]
        if tag == "img":  # PNGs: the pixels
            x = [(s, v[:2], [tf.io.decode_png(p).numpy().tolist() for p in v[2:]]) for s, v in x]
            y = [(s, v[:2], [tf.io.decode_png(p).numpy().tolist() for p in v[2:]]) for s, v in y]
        assert x == y, (tag, x, y)
    for tag in b["histograms"]:
        assert [(e.step, e.histogram_value) for e in ours.Histograms(tag)] == \
            [(e.step, e.histogram_value) for e in theirs.Histograms(tag)], tag
    for tag in b["images"]:
        x = [(e.step, e.width, e.height, tf.io.decode_png(e.encoded_image_string).numpy().tolist())
             for e in ours.Images(tag)]
        y = [(e.step, e.width, e.height, tf.io.decode_png(e.encoded_image_string).numpy().tolist())
             for e in theirs.Images(tag)]
        assert x == y, tag
    for tag in b["audio"]:
        assert [(e.step, e.encoded_audio_string, e.sample_rate) for e in ours.Audio(tag)] == \
            [(e.step, e.encoded_audio_string, e.sample_rate) for e in theirs.Audio(tag)], tag
    assert ours.Graph() == theirs.Graph()
    print(f"ok: TensorBoard reads the same {sum(len(v) for v in b.values() if isinstance(v, list))}"
          f" tags from {ours_dir} as from TensorFlow's file")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "tests/data/tf_summary_v2")
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_summary_v2"
    os.makedirs(out, exist_ok=True)
    g, ref, (logdir, step, x, summary_ops, legacy, init, flush, close) = build()
    with open(os.path.join(out, "graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    work = tempfile.mkdtemp()
    with tf1.Session(graph=g) as sess:
        sess.run(init, {logdir: work})
        for run in RUNS:
            recorded, _ = sess.run([summary_ops, legacy],
                                   {step: run["step"], x: np.array(run["x"], np.float32)})
            run["recorded"] = [bool(r) for r in recorded]
        sess.run(flush)
        sess.run(close)
    files = [f for f in os.listdir(work) if "tfevents" in f]
    assert len(files) == 1, files
    events_dir = os.path.join(out, "tf_events")
    shutil.rmtree(events_dir, ignore_errors=True)
    os.makedirs(events_dir)
    shutil.copy(os.path.join(work, files[0]), events_dir)
    shutil.rmtree(work)
    ref["runs"] = RUNS
    ref["events_file"] = "tf_events/" + files[0]
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    n = sum(1 for _ in tf1.io.tf_record_iterator(os.path.join(events_dir, files[0])))
    print(f"wrote {out}: {len(g.as_graph_def().node)} nodes, {n} events in {files[0]}")


if __name__ == "__main__":
    main()
