#!/usr/bin/env python3
"""Writes tests/data/tf_ngrams/reference.json: what TensorFlow's StringNGrams kernel gives
(tf.raw_ops.StringNGrams, eagerly) for sequences of several lengths (empty and short ones),
widths, pads (fixed, dynamic, wider than a width allows), separators, short sequences kept,
int32 and int64 splits, and the errors it raises, for
tests/conformance/string_ngrams_test.cpp. Never a dependency of the build or the tests.

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
    print("wrote %d cases to %s" % (len(cases), out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_ngrams")
