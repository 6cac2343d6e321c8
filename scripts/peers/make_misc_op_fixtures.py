#!/usr/bin/env python3
"""Writes tests/data/tf_misc_ops: a GraphDef (graph.pb) of single ops TensorFlow's Python
builds that the other fixtures do not hold, DecodeJSONExample (tf.io.decode_json_example),
EncodeJpegVariableQuality (tf.image.adjust_jpeg_quality's encoder) and the first Concat (the
dimension before the values, as GraphDefs before TensorFlow 1.0 hold it), Gather (axis 0, no
axis input) and Reverse (a bool per dimension), each with tf.gradients through it, with
reference.json: what
a sequence of session runs gave, values or errors, for tests/conformance/misc_op_test.cpp.
Never a dependency of the build or the tests.

  python scripts/peers/make_misc_op_fixtures.py [OUT_DIR]   # default tests/data/tf_misc_ops

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1

EXAMPLE = ('{"features": {"feature": {"age": {"int64List": {"value": [29, "-3"]}}, '
           '"name": {"bytesList": {"value": ["YWJj", ""]}}, '
           '"score": {"floatList": {"value": [0.5, -1.25, 1e10]}}}}}')


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        js = tf1.placeholder(tf.string, [None], name="json")
        image = tf1.placeholder(tf.uint8, [None, None, None], name="image")
        quality = tf1.placeholder(tf.int32, name="quality")
        decoded = tf.io.decode_json_example(js, name="decode_json")
        parsed = tf.io.parse_example(decoded, {
            "age": tf.io.VarLenFeature(tf.int64),
            "name": tf.io.VarLenFeature(tf.string),
            "score": tf.io.VarLenFeature(tf.float32)})
        jpeg = tf.raw_ops.EncodeJpegVariableQuality(images=image, quality=quality, name="jpeg")
        cx = tf1.placeholder(tf.float32, [None, None], name="cx")
        cy = tf1.placeholder(tf.float32, [None, None], name="cy")
        dim = tf1.placeholder(tf.int32, [], name="dim")
        joined = tf.raw_ops.Concat(concat_dim=dim, values=[cx, cy], name="concat_v1")
        weights = tf.reshape(tf.range(tf.size(joined), dtype=tf.float32), tf.shape(joined))
        gp = tf1.placeholder(tf.float32, [None, None], name="gp")
        gi = tf1.placeholder(tf.int32, None, name="gi")
        gathered = tf.raw_ops.Gather(params=gp, indices=gi, validate_indices=True, name="gather_v1")
        gathered_weights = tf.reshape(tf.range(tf.size(gathered), dtype=tf.float32),
                                      tf.shape(gathered))
        rx = tf1.placeholder(tf.float32, None, name="rx")
        rd = tf1.placeholder(tf.bool, [None], name="rd")
        reversed_ = tf.raw_ops.Reverse(tensor=rx, dims=rd, name="reverse_v1")
        reversed_weights = tf.reshape(tf.range(tf.size(reversed_), dtype=tf.float32),
                                      tf.shape(reversed_))
        # Binary strings travel as web-safe base64 (EncodeBase64 runs here too).
        ops = {
            "decode_json": tf.io.encode_base64(decoded, name="decode_json_b64"),
            "parsed": [parsed["age"].values, parsed["name"].values, parsed["score"].values],
            "jpeg": tf.io.encode_base64(jpeg, name="jpeg_b64"),
            "jpeg_pixels": tf.io.decode_jpeg(jpeg, name="jpeg_pixels"),
            "concat_v1": joined,
            "concat_v1_grads": tf.gradients(tf.reduce_sum(joined * weights), [cx, cy]),
            "gather_v1": gathered,
            "gather_v1_grads": tf.convert_to_tensor(
                tf.gradients(tf.reduce_sum(gathered * gathered_weights), [gp])[0]),
            "reverse_v1": reversed_,
            "reverse_v1_grads": tf.gradients(tf.reduce_sum(reversed_ * reversed_weights), [rx]),
        }
    gradient = [[[(x * 37 + y * 11 + c * 5) % 256 for c in range(3)] for x in range(9)]
                for y in range(7)]
    gray = [[[(x * y * 13) % 256] for x in range(5)] for y in range(4)]
    plan = [
        ("decode_json", {"json": [EXAMPLE, '{"features": {}}', "{}"]}),
        ("parsed", {"json": [EXAMPLE, '{"features": {"feature": {"age": {"int64List": '
                                      '{"value": [7]}}}}}']}),
        ("decode_json", {"json": ['{"features": {"feature": {"x": {"floatList": 3}}}}']}),
        ("decode_json", {"json": ['{"feature": {}}']}),
        ("decode_json", {"json": ["not json"]}),
        ("jpeg", {"image": gradient, "quality": 90}),
        ("jpeg", {"image": gradient, "quality": 5}),
        ("jpeg", {"image": gray, "quality": 100}),
        ("jpeg_pixels", {"image": gradient, "quality": 30}),
        ("jpeg", {"image": gradient, "quality": 101}),
        ("jpeg", {"image": gradient, "quality": [50]}),
        ("jpeg", {"image": [[[1, 2]]], "quality": 50}),
        ("concat_v1", {"cx": [[1, 2], [3, 4]], "cy": [[5, 6]], "dim": 0}),
        ("concat_v1", {"cx": [[1, 2], [3, 4]], "cy": [[5], [6]], "dim": 1}),
        ("concat_v1", {"cx": [[1, 2], [3, 4]], "cy": [[5], [6]], "dim": -1}),
        ("concat_v1", {"cx": [[1, 2], [3, 4]], "cy": [[5, 6]], "dim": 1}),
        ("concat_v1", {"cx": [[1, 2], [3, 4]], "cy": [[5, 6]], "dim": 2}),
        ("concat_v1_grads", {"cx": [[1, 2], [3, 4]], "cy": [[5, 6]], "dim": 0}),
        ("concat_v1_grads", {"cx": [[1, 2], [3, 4]], "cy": [[5], [6]], "dim": 1}),
        ("gather_v1", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": [2, 0, 2]}),
        ("gather_v1", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": [[1, 1], [0, 2]]}),
        ("gather_v1", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": 1}),
        ("gather_v1", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": [3]}),
        ("gather_v1", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": [-1]}),
        ("gather_v1_grads", {"gp": [[1, 2], [3, 4], [5, 6]], "gi": [2, 0, 2]}),
        ("reverse_v1", {"rx": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "rd": [True, False, True]}),
        ("reverse_v1", {"rx": [[1, 2, 3], [4, 5, 6]], "rd": [False, True]}),
        ("reverse_v1", {"rx": [[1, 2, 3], [4, 5, 6]], "rd": [False, False]}),
        ("reverse_v1", {"rx": 7, "rd": []}),
        ("reverse_v1", {"rx": [[1, 2, 3], [4, 5, 6]], "rd": [True]}),
        ("reverse_v1_grads", {"rx": [[1, 2, 3], [4, 5, 6]], "rd": [True, True]}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"json": js, "image": image, "quality": quality,
                                            "cx": cx, "cy": cy, "dim": dim, "gp": gp, "gi": gi,
                                            "rx": rx, "rd": rd})
    # protobuf's own words after TensorFlow's differ between its versions (and abseil spaces
    # them at random): the fixture keeps TensorFlow's prefix.
    for step in steps:
        if step.get("message", "").startswith("Error while parsing JSON:"):
            step["message"] = "Error while parsing JSON:"
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_misc_ops")
