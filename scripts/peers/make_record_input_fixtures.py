#!/usr/bin/env python3
"""Writes tests/data/tf_record_input/reference.json: the records TensorFlow's RecordInput op
(data_flow_ops.RecordInput) yields, run after run, over TFRecord files the script writes
(their records are listed, so the test writes the same files), for
tests/conformance/record_input_test.cpp. With one reader thread and a buffer of one record,
or one larger than twice the records of an epoch, TensorFlow's order depends only on the seed
and the order of the files (each case names them one by one, comma-separated, so that no
directory listing orders them): the first epoch always, later ones too while the reader adds
an epoch's records at once (fewer than 16 records: TensorFlow then shrinks the buffer to an
epoch's records, and larger epochs race the reader). Each case is run twice here to show it.
Never a dependency of the build or the tests.

  python scripts/peers/make_record_input_fixtures.py [OUT_DIR]   # default tests/data/tf_record_input

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops  # noqa: E402

tf1 = tf.compat.v1

# Each case: the files' records, the RecordInput arguments and how many runs to record.
CASES = [
    {"name": "big_buffer", "files": [[f"a{r}" for r in range(5)], [f"b{r}" for r in range(5)],
                                     [f"c{r}" for r in range(5)]],
     "batch_size": 4, "buffer_size": 100, "seed": 7, "runs": 12},
    {"name": "one_record_buffer", "files": [[f"p{r}" for r in range(20)], ["q0", "q1", "q2"]],
     "batch_size": 5, "buffer_size": 1, "seed": 0, "runs": 10},
    {"name": "chunks_and_shift", "files": [[f"x{r}" for r in range(40)], [f"y{r}" for r in range(3)],
                                           [f"z{r}" for r in range(17)], ["w0"]],
     "batch_size": 7, "buffer_size": 500, "seed": 301, "shift_ratio": 0.5, "runs": 8},
    {"name": "gzip", "files": [[f"g{r}" for r in range(6)], [f"h{r}" for r in range(6)]],
     "batch_size": 3, "buffer_size": 50, "seed": 11, "compression_type": "GZIP", "runs": 8},
]


def run_case(case, tmp):
    paths = []
    options = tf.io.TFRecordOptions(case.get("compression_type", ""))
    for i, records in enumerate(case["files"]):
        path = os.path.join(tmp, "%s_%d.tfrecord" % (case["name"], i))
        with tf.io.TFRecordWriter(path, options) as w:
            for r in records:
                w.write(r.encode())
        paths.append(path)
    g = tf.Graph()
    with g.as_default():
        compression = {"": None, "GZIP": tf.compat.v1.python_io.TFRecordCompressionType.GZIP}[
            case.get("compression_type", "")]
        ri = data_flow_ops.RecordInput(",".join(paths), batch_size=case["batch_size"],
                                       buffer_size=case["buffer_size"], parallelism=1,
                                       shift_ratio=case.get("shift_ratio", 0),
                                       seed=case["seed"], compression_type=compression)
        y = ri.get_yield_op()
    with tf1.Session(graph=g) as sess:
        return [[v.decode() for v in sess.run(y)] for _ in range(case["runs"])]


def main(out):
    os.makedirs(out, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            first = run_case(case, tmp)
            again = run_case(case, tmp)
            assert first == again, "TensorFlow's order is not deterministic for " + case["name"]
            results.append(dict(case, outputs=first))
    with open(os.path.join(out, "reference.json"), "w") as fh:
        json.dump({"tensorflow": tf.__version__, "cases": results}, fh, indent=1)
    print("wrote %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_record_input")
