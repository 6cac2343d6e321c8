#!/usr/bin/env python3
"""Writes tests/data/tf_unicode: a GraphDef (graph.pb) of TensorFlow's Unicode ops
(UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode, UnicodeScript, as
tf.strings.unicode_decode, unicode_decode_with_offsets, unicode_encode, unicode_transcode and
unicode_script build them, and with other attrs by tf.raw_ops) with reference.json: what a
sequence of session runs gave, values or errors (well-formed and malformed UTF-8, UTF-16-BE,
UTF-32-BE and Latin-1, each error policy, control characters, code points out of range,
splits that are not splits, encodings ICU does not know), for
tests/conformance/unicode_ops_test.cpp. Byte strings go in and come out as web-safe base64
(DecodeBase64 and EncodeBase64 around the ops). tf.strings.lower and upper with
encoding="utf-8" (ICU's case mapping) run on it too. Never a dependency of the build or the tests.

  python scripts/peers/make_unicode_fixtures.py [OUT_DIR]   # default tests/data/tf_unicode

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1
raw = tf.raw_ops


def b64(strings):
    return [base64.urlsafe_b64encode(s).decode() for s in strings]


UTF8 = ["hello".encode(), "h\u00e9llo w\u00f6rld".encode(), "\u65e5\u672c\u8a9e".encode(),
        "\U0001F600a".encode(), b"", b"\x01\x1fA\x7f"]
BAD_UTF8 = [b"\xff", b"a\xc3", b"\xe6\x97z", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
            b"ok\xfe\xfeok"]


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        s = tf.io.decode_base64(tf1.placeholder(tf.string, [None], name="s"))
        values = tf1.placeholder(tf.int32, [None], name="values")
        splits = tf1.placeholder(tf.int64, [None], name="splits")
        splits32 = tf1.placeholder(tf.int32, [None], name="splits32")
        enc = tf.io.encode_base64

        def decode(name, encoding, with_offsets=False, **attrs):
            op = raw.UnicodeDecodeWithOffsets if with_offsets else raw.UnicodeDecode
            return list(op(input=s, input_encoding=encoding, name=name, **attrs))

        ops = {
            "decode": decode("decode", "UTF-8"),
            "decode_ignore": decode("decode_ignore", "UTF-8", errors="ignore"),
            "decode_strict": decode("decode_strict", "UTF-8", errors="strict"),
            "decode_subst": decode("decode_subst", "UTF-8", replacement_char=63,
                                   replace_control_characters=True),
            "offsets": decode("offsets", "UTF-8", True),
            "offsets_ignore": decode("offsets_ignore", "UTF-8", True, errors="ignore",
                                     replace_control_characters=True),
            # (UnicodeDecodeWithOffsets with int32 splits aborts TensorFlow's process.)
            "decode32": decode("decode32", "UTF-8", Tsplits=tf.int32),
            "decode_utf16": decode("decode_utf16", "UTF-16-BE"),
            "decode_utf32": decode("decode_utf32", "UTF-32-BE"),
            "decode_latin1": decode("decode_latin1", "ISO-8859-1"),
            "decode_unknown": decode("decode_unknown", "NOPE-8"),
            "ragged": [tf.strings.unicode_decode(s, "UTF-8").flat_values],
            "encode_utf8": enc(raw.UnicodeEncode(input_values=values, input_splits=splits,
                                                 output_encoding="UTF-8", name="encode_utf8")),
            "encode_utf16": enc(raw.UnicodeEncode(input_values=values, input_splits=splits,
                                                  output_encoding="UTF-16-BE",
                                                  name="encode_utf16")),
            "encode_utf32": enc(raw.UnicodeEncode(input_values=values, input_splits=splits32,
                                                  output_encoding="UTF-32-BE",
                                                  name="encode_utf32")),
            "encode_ignore": enc(raw.UnicodeEncode(input_values=values, input_splits=splits,
                                                   output_encoding="UTF-8", errors="ignore",
                                                   name="encode_ignore")),
            "encode_strict": enc(raw.UnicodeEncode(input_values=values, input_splits=splits,
                                                   output_encoding="UTF-8", errors="strict",
                                                   name="encode_strict")),
            "encode_subst": enc(raw.UnicodeEncode(input_values=values, input_splits=splits,
                                                  output_encoding="UTF-8",
                                                  replacement_char=42, name="encode_subst")),
            "to_utf16": enc(tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE",
                                                         name="to_utf16")),
            "to_utf32": enc(tf.strings.unicode_transcode(s, "UTF-8", "UTF-32-BE",
                                                         name="to_utf32")),
            "from_utf16": enc(tf.strings.unicode_transcode(s, "UTF-16-BE", "UTF-8",
                                                           name="from_utf16")),
            "from_latin1": enc(tf.strings.unicode_transcode(s, "latin1", "UTF-8",
                                                            name="from_latin1")),
            "transcode_ignore": enc(tf.strings.unicode_transcode(
                s, "UTF-8", "UTF-8", errors="ignore", replace_control_characters=True,
                name="transcode_ignore")),
            "transcode_strict": enc(tf.strings.unicode_transcode(
                s, "UTF-8", "UTF-8", errors="strict", name="transcode_strict")),
            "transcode_subst": enc(tf.strings.unicode_transcode(
                s, "UTF-8", "UTF-16-BE", replacement_char=0x2753, name="transcode_subst")),
            "script": tf.strings.unicode_script(values, name="script"),
            "lower": enc(tf.strings.lower(s, encoding="utf-8", name="lower")),
            "upper": enc(tf.strings.upper(s, encoding="utf-8", name="upper")),
        }
    codepoints = [72, 0xe9, 0x65e5, 0x1F600, 0, 0x7f, 0xD800, 0xDFFF, 0x10FFFF]
    bad_codepoints = [65, -1, 66, 0x110000, 67]
    decodes = ["decode", "decode_ignore", "decode_strict", "decode_subst", "offsets",
               "offsets_ignore", "decode32"]
    plan = []
    for label in decodes:
        plan += [(label, {"s": b64(UTF8)}), (label, {"s": b64(BAD_UTF8)})]
    utf16 = ["h\u00e9\U0001F600".encode("utf-16-be"), b"\x00a\xd8\x00\x00b", b"\x00a\x00"]
    utf32 = ["h\U0001F600".encode("utf-32-be"), b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00"]
    plan += [("decode_utf16", {"s": b64(utf16)}), ("decode_utf32", {"s": b64(utf32)}),
             ("decode_latin1", {"s": b64([b"caf\xe9 \xff\x00"])}),
             ("decode_unknown", {"s": b64([b"a"])}), ("ragged", {"s": b64(UTF8)})]
    for label in ("encode_utf8", "encode_utf16", "encode_ignore", "encode_strict",
                  "encode_subst"):
        plan += [(label, {"values": codepoints, "splits": [0, 3, 3, 9]}),
                 (label, {"values": bad_codepoints, "splits": [0, 2, 5]})]
    plan += [("encode_utf32", {"values": codepoints, "splits32": [0, 4, 9]}),
             ("encode_utf8", {"values": [65, 66], "splits": [1, 2]}),
             ("encode_utf8", {"values": [65, 66], "splits": [0, 1]}),
             ("encode_utf8", {"values": [65, 66], "splits": [0, 2, 1, 2]}),
             ("encode_utf8", {"values": [], "splits": []}),
             ("encode_utf8", {"values": [], "splits": [0]})]
    for label in ("to_utf16", "to_utf32", "transcode_ignore", "transcode_strict",
                  "transcode_subst"):
        plan += [(label, {"s": b64(UTF8)}), (label, {"s": b64(BAD_UTF8)})]
    plan += [("from_utf16", {"s": b64(utf16)}),
             ("from_latin1", {"s": b64([b"caf\xe9 \xff\x00"])}),
             ("script", {"values": [65, 0x3b1, 0x5d0, 0x4e2d, 0x30, -1, 0x110000, 0x300,
                                    0x0627, 0x0e01, 0x1F600, 0xE000]})]
    cases = ["\u00c9COLE stra\u00dfe \u0130stanbul \u03a3\u0391\u03a3 \u01c5".encode(), b"AB\xffc"]
    plan += [("lower", {"s": b64(cases)}), ("upper", {"s": b64(cases)})]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"s": g.get_tensor_by_name("s:0"), "values": values,
                                            "splits": splits, "splits32": splits32})
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_unicode")
