#!/usr/bin/env python3
"""Writes tests/data/tf_ngrams/reference.json: what TensorFlow's StringNGrams kernel gives
(tf.raw_ops.StringNGrams, eagerly) for sequences of several lengths (empty and short ones),
widths, pads (fixed, dynamic, wider than a width allows), separators, short sequences kept,
int32 and int64 splits, and the errors it raises; and segment_join.json: what its
UnsortedSegmentJoin kernel gives (tf.strings.unsorted_segment_join) for vectors and matrices
of strings, segment ids of rank 1 and 2, empty segments and strings, separators, and its
errors; for tests/conformance/string_ngrams_test.cpp. Never a dependency of the build or the
tests.

  python scripts/peers/make_ngram_fixtures.py [OUT_DIR]   # default tests/data/tf_ngrams

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

WORDS = ["a", "b", "c", "d", "e"]
CASES = [
    ("plain", WORDS, [0, 3, 5], "int64", dict(ngram_widths=[1, 2, 3], separator=" ",
                                              left_pad="", right_pad="", pad_width=0,
                                              preserve_short_sequences=False)),
    ("dynamic_pads", WORDS, [0, 3, 5], "int64", dict(ngram_widths=[2, 3], separator=" ",
                                                     left_pad="<", right_pad=">", pad_width=-1,
                                                     preserve_short_sequences=False)),
    ("short_kept", WORDS, [0, 1, 1, 5], "int64", dict(ngram_widths=[3], separator="|",
                                                      left_pad="L", right_pad="R", pad_width=1,
                                                      preserve_short_sequences=True)),
    ("short_no_pad", WORDS, [0, 2, 5], "int32", dict(ngram_widths=[4], separator="_",
                                                     left_pad="", right_pad="", pad_width=0,
                                                     preserve_short_sequences=True)),
    ("wide_pad", WORDS, [0, 5], "int32", dict(ngram_widths=[2], separator="_", left_pad="^",
                                              right_pad="$", pad_width=4,
                                              preserve_short_sequences=False)),
    ("empty", [], [0, 0], "int64", dict(ngram_widths=[2], separator=" ", left_pad="",
                                        right_pad="", pad_width=0,
                                        preserve_short_sequences=False)),
    ("zero_width", WORDS, [0, 5], "int64", dict(ngram_widths=[0], separator=" ", left_pad="",
                                                right_pad="", pad_width=0,
                                                preserve_short_sequences=False)),
    ("first_split", WORDS, [1, 5], "int64", dict(ngram_widths=[1], separator=" ", left_pad="",
                                                 right_pad="", pad_width=0,
                                                 preserve_short_sequences=False)),
    ("bad_split", WORDS, [0, 3, 2, 5], "int64", dict(ngram_widths=[1], separator=" ",
                                                     left_pad="", right_pad="", pad_width=0,
                                                     preserve_short_sequences=False)),
    ("last_split", WORDS, [0, 4], "int32", dict(ngram_widths=[1], separator=" ", left_pad="",
                                                right_pad="", pad_width=0,
                                                preserve_short_sequences=False)),
    ("no_widths", WORDS, [0, 5], "int64", dict(ngram_widths=[], separator=" ", left_pad="",
                                               right_pad="", pad_width=-1,
                                               preserve_short_sequences=True)),
]

# UnsortedSegmentJoin: (name, inputs, segment_ids, num_segments, separator, ids dtype,
# num_segments dtype).
JOIN_CASES = [
    ("vector", ["a", "b", "c", "d"], [1, 0, 1, 3], 4, ",", "int32", "int32"),
    ("empty_strings", ["", "x", "", "y", ""], [0, 0, 1, 1, 1], 2, "-", "int64", "int64"),
    ("matrix_rows", [["a", "b"], ["c", "d"], ["e", "f"]], [2, 0, 2], 3, ":", "int32", "int64"),
    ("ids_rank_2", [["a", "b"], ["c", "d"]], [[0, 1], [1, 1]], 2, "", "int64", "int32"),
    ("no_segments", ["a"], [0], 0, ",", "int32", "int32"),
    ("negative_id", ["a", "b"], [0, -1], 2, ",", "int32", "int32"),
    ("id_past_end", ["a", "b"], [0, 2], 2, ",", "int32", "int32"),
    ("dims_differ", [["a", "b"], ["c", "d"]], [0, 1, 1], 2, ",", "int32", "int32"),
]


def write_joins(out):
    cases = []
    for name, inputs, ids, n, sep, itype, ntype in JOIN_CASES:
        entry = {"name": name, "inputs": inputs, "segment_ids": ids, "num_segments": n,
                 "separator": sep, "ids_dtype": itype, "num_segments_dtype": ntype}
        try:
            out_t = tf.raw_ops.UnsortedSegmentJoin(
                inputs=tf.constant(inputs, tf.string), segment_ids=tf.constant(ids, itype),
                num_segments=tf.constant(n, ntype), separator=sep)
            entry["shape"] = out_t.shape.as_list()
            entry["output"] = [x.decode() for x in out_t.numpy().flatten().tolist()]
        except (tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError) as e:
            entry["error"] = e.message.split(" [Op:")[0].split("}} ")[-1]
        cases.append(entry)
    with open(os.path.join(out, "segment_join.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []
    for name, data, splits, stype, attrs in CASES:
        entry = {"name": name, "data": data, "splits": splits, "splits_dtype": stype,
                 "attrs": attrs}
        try:
            ngrams, nsplits = tf.raw_ops.StringNGrams(
                data=tf.constant(data, tf.string), data_splits=tf.constant(splits, stype),
                **attrs)
            entry["ngrams"] = [x.decode() for x in ngrams.numpy().tolist()]
            entry["ngrams_splits"] = nsplits.numpy().tolist()
        except tf.errors.InvalidArgumentError as e:
            entry["error"] = e.message.split(" [Op:")[0].split("}} ")[-1]
        cases.append(entry)
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
    write_joins(out)
    print("wrote %d cases to %s" % (len(cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ngrams")
