#!/usr/bin/env python3
"""Writes tests/data/tf_data: tf.data input pipelines as TensorFlow 2's tf.compat.v1 builds them
in graph mode (only eager execution disabled), one binary GraphDef per case, and what
TensorFlow's own runtime yields for each. Never a dependency of the build or the tests: the
fixtures are committed, and this script remakes them.

  python scripts/peers/make_data_fixtures.py [OUT_DIR]  # default tests/data/tf_data

OUT_DIR/a.tfrecord, b.tfrecord   raw byte records (b holds an empty record)
OUT_DIR/c.tfrecord.gz            raw byte records, compression_type "GZIP"
OUT_DIR/examples.tfrecord        serialized tf.train.Example records: i (int64), f (two
                                 floats), s (bytes)
OUT_DIR/lines.csv, lines2.txt    text lines: a header line, a "\\r\\n" line, a quoted field, an
                                 empty field; lines2.txt has no final newline
OUT_DIR/fixed.bin                five 4-byte records between a 2-byte header and 1-byte footer
OUT_DIR/lines.txt.gz             lines.csv then lines2.txt, GZIP-compressed
OUT_DIR/table.csv, table.csv.z   CSV records for CsvDataset (quoted line breaks, doubled quotes,
                                 \r\n and \r line ends, NA values, empty fields); .z: ZLIB
OUT_DIR/table2.csv, bad.csv      ";"-delimited records; a record with a field too many
OUT_DIR/tf_cache.*               a cache file TensorFlow wrote (cached_pipeline's elements)
OUT_DIR/<case>.pb                the graph of one case (each its own tf.Graph): a dataset, its
                                 iterator (one-shot or initializable) and get_next "next"
OUT_DIR/reference.json           {"cases": {<case>: {graph, feeds, init, fetches, steps, end,
                                 ops[, reinit][, handle_feed][, shuffle_seeds][, runs]}}}

A case's feeds apply to its init runs and its step runs alike. A feed with "files" holds file
names relative to OUT_DIR (the test makes them absolute); one with "temp_file" names a file
in a fresh temporary directory; the graphs never hold a path.
"steps" holds one entry per session.run of "fetches" until TensorFlow raised an error (mostly
OutOfRange, the end of input; a case may end with another error), each a list of {dtype, shape,
values | b64_values} in fetch order (row-major). "end" holds that error: its code (TensorFlow's
error class name less "Error": "OutOfRange", "FailedPrecondition", "InvalidArgument", ...) and
the kernel's line of TensorFlow's message ("kernel_message"; the full message quotes this
script's own traceback, so it is left out). "reinit": the test runs init again
after the end and expects the same steps again. "handle_feed": after init, fetch "from" once
and feed its value to "placeholder" on every step. "ops" lists every op type of the graph
and of its function library. A case with "runs" has no end: its fetches run that many
times (a tf.function's iterators start afresh each run), "end" is null.
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import base64
import gzip
import json
import os
import sys
import tempfile
import zlib

import numpy as np

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()  # graph mode; everything else stays as TensorFlow 2 has it

Dataset = tf.data.Dataset


# ---------------------------------------------------------------------------------------------
# Input files
# ---------------------------------------------------------------------------------------------

A_RECORDS = [b"a0", b"a1 record", b"a2"]
B_RECORDS = [b"b0", b"", b"b2\x00\xff binary", b"b3"]
C_RECORDS = [b"gz first", b"", bytes(range(32)), b"gz last"]
EXAMPLES = [  # (i, f, s)
    (1, (0.5, -1.25), b"one"),
    (-2, (3.0, 4.5), b""),
    (30000000000, (1e-3, 2.5e10), b"three\x00"),
    (0, (-0.0, 7.0), b"four"),
    (5, (0.1, 0.2), b"five"),
]
LINES_CSV = (b"id,score,name\n"
             b"1,0.5,alpha\n"
             b"2,1.25,beta\r\n"
             b"3,,\"gam,ma\"\n"
             b"-4,2e3,delta\n")
LINES2_TXT = (b"5,-0.75,eps\n"
              b"6,3,zeta")  # no final newline
FIXED_HEADER = b"HH"
FIXED_RECORDS = [bytes([4 * i + k for k in range(4)]) for i in range(5)]
FIXED_FOOTER = b"F"
# CsvDataset's input: a header with a quoted line break, \r\n and \r line ends, a quoted
# field with a delimiter, a line break and doubled quotes, an na_value, empty fields taking
# defaults, no final line break.
TABLE_CSV = (b'id,"na\nme",score,flag\r\n'
             b'1,alpha,0.5,1\r\n'
             b'2,"be,ta ""quoted""\nline",NA,0\r'
             b'3,,2.25,\n'
             b'-4,"",1e3,1')
TABLE2_CSV = b"7;seven;;1\n8;eight;8.5;0\n"
BAD_CSV = b"1,a,0.5,1\n2,b,1.5,0,extra\n3,c,2.5,1\n"


def cached_pipeline(filename):
    """Five (int64, string, float [2]) elements cached in `filename`."""
    ds = Dataset.range(5).map(lambda x: (x * 3, tf.strings.as_string(x),
                                         tf.cast(tf.stack([x, -x]), tf.float32) / 4))
    return ds.cache(filename)


def write_inputs(out):
    def tfrecord(name, records, options=None):
        with tf.io.TFRecordWriter(os.path.join(out, name), options) as w:
            for r in records:
                w.write(r)

    tfrecord("a.tfrecord", A_RECORDS)
    tfrecord("b.tfrecord", B_RECORDS)
    tfrecord("c.tfrecord.gz", C_RECORDS, tf.io.TFRecordOptions(compression_type="GZIP"))

    def example(i, f, s):
        return tf.train.Example(features=tf.train.Features(feature={
            "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
            "f": tf.train.Feature(float_list=tf.train.FloatList(value=list(f))),
            "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[s])),
        })).SerializeToString(deterministic=True)
    tfrecord("examples.tfrecord", [example(*e) for e in EXAMPLES])

    for name, data in [("lines.csv", LINES_CSV), ("lines2.txt", LINES2_TXT),
                       ("fixed.bin", FIXED_HEADER + b"".join(FIXED_RECORDS) + FIXED_FOOTER),
                       ("table.csv", TABLE_CSV), ("table2.csv", TABLE2_CSV),
                       ("bad.csv", BAD_CSV)]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    with gzip.GzipFile(os.path.join(out, "lines.txt.gz"), "wb", mtime=0) as f:
        f.write(LINES_CSV + LINES2_TXT)
    with open(os.path.join(out, "table.csv.z"), "wb") as f:
        f.write(zlib.compress(TABLE_CSV))


# ---------------------------------------------------------------------------------------------
# Cases: each builds its graph into the default graph and returns a spec:
#   next: the get_next structure; init: ops to run first; feeds: [Feed]; reinit: bool;
#   handle_feed: (placeholder tensor, handle tensor); shuffle: True to record the seeds.
# ---------------------------------------------------------------------------------------------

class Feed:
    def __init__(self, tensor, value, files=None, temp=None):
        self.tensor, self.value, self.files, self.temp = tensor, value, files, temp


def filenames(files):
    ph = tf1.placeholder(tf.string, [None], name="filenames")
    return ph, Feed(ph, None, files)


def one_shot(ds, **spec):
    it = tf1.data.make_one_shot_iterator(ds)
    return dict(next=it.get_next(name="next"), init=[], **spec)


def initializable(ds, **spec):
    it = tf1.data.make_initializable_iterator(ds)
    return dict(next=it.get_next(name="next"), init=[it.initializer], **spec)


def case_slices_map_filter_batch():
    ds = Dataset.from_tensor_slices(({"a": tf.constant([1, 2, 3, 0, 5, 6, 7], tf.int64)},
                                     tf.constant([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5])))
    ds = ds.map(lambda d, y: (d["a"] * 2, y + 1.0))
    ds = ds.filter(lambda a, b: a > 2).batch(2)
    return one_shot(ds)


def case_range_skip_take_repeat_batch():
    ds = Dataset.range(10).skip(2).take(5).repeat(2).batch(3)
    return initializable(ds, reinit=True)


def case_zip_concat():
    first = Dataset.zip((Dataset.range(3), Dataset.from_tensor_slices(["a", "bb", "ccc"])))
    second = Dataset.zip((Dataset.range(10, 12), Dataset.from_tensor_slices(["x", ""])))
    return one_shot(first.concatenate(second))


def case_tfrecord_files():
    ph, feed = filenames(["a.tfrecord", "b.tfrecord"])
    return initializable(tf.data.TFRecordDataset(ph), feeds=[feed])


def case_tfrecord_gzip():
    ph, feed = filenames(["c.tfrecord.gz"])
    return initializable(tf.data.TFRecordDataset(ph, compression_type="GZIP"), feeds=[feed])


def case_textline_csv():
    ph, feed = filenames(["lines.csv", "lines2.txt"])
    ds = tf.data.TextLineDataset(ph).skip(1)
    ds = ds.map(lambda line: tuple(tf.io.decode_csv(line, record_defaults=[[0], [0.0], [""]])))
    return initializable(ds.batch(2), feeds=[feed])


def case_fixed_length():
    ph, feed = filenames(["fixed.bin"])
    ds = tf.data.FixedLengthRecordDataset(ph, record_bytes=4, header_bytes=2, footer_bytes=1)
    ds = ds.map(lambda r: tf.io.decode_raw(r, tf.uint8))
    return initializable(ds, feeds=[feed])


def case_shuffle_seeded():
    return one_shot(Dataset.range(20).shuffle(7, seed=3).batch(4), shuffle=True)


def case_shuffle_repeat():
    ds = Dataset.range(6).shuffle(4, seed=5, reshuffle_each_iteration=True).repeat(3)
    return one_shot(ds, shuffle=True)


def case_map_cond():
    # tf.equal, not ==: with eager execution disabled, Tensor.__eq__ is Python's identity.
    ds = Dataset.range(6).map(lambda x: tf.cond(tf.equal(x % 2, 0), lambda: x * 10, lambda: -x))
    return one_shot(ds)


def case_parse_examples():
    ph, feed = filenames(["examples.tfrecord"])
    spec = {"i": tf.io.FixedLenFeature([], tf.int64),
            "f": tf.io.FixedLenFeature([2], tf.float32),
            "s": tf.io.FixedLenFeature([], tf.string)}
    ds = tf.data.TFRecordDataset(ph).batch(2).map(lambda s: tf.io.parse_example(s, spec))
    return initializable(ds, feeds=[feed])


def case_interleave_files():
    ph, feed = filenames(["a.tfrecord", "b.tfrecord"])
    ds = Dataset.from_tensor_slices(ph).interleave(lambda f: tf.data.TFRecordDataset(f),
                                                   cycle_length=2, block_length=1)
    return initializable(ds, feeds=[feed])


def case_flat_map_range():
    return one_shot(Dataset.range(4).flat_map(lambda x: Dataset.range(x)))


def case_cache_prefetch():
    return one_shot(Dataset.range(5).map(lambda x: x * x).cache().prefetch(2).repeat(2))


def case_padded_batch():
    ds = Dataset.range(5).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None])
    return one_shot(ds)


def case_batch_drop_remainder():
    return one_shot(Dataset.range(7).batch(3, drop_remainder=True))


def case_map_captured():
    offset = tf.constant([100, 200], tf.int64, name="offset")
    scale = tf1.placeholder(tf.int64, [], name="scale")
    ds = Dataset.range(4).map(lambda x: x * scale + offset)
    return initializable(ds, feeds=[Feed(scale, np.int64(3))])


def case_tensor_dataset_repeat():
    return one_shot(Dataset.from_tensors(([1, 2], [3.0])).repeat(3))


def case_string_handle():
    ds = Dataset.range(5).map(lambda x: (x + 1, tf.strings.as_string(x)))
    it = tf1.data.make_initializable_iterator(ds)
    handle_string = it.string_handle(name="handle_string")
    handle = tf1.placeholder(tf.string, [], name="handle")
    feedable = tf1.data.Iterator.from_string_handle(
        handle, tf1.data.get_output_types(ds), tf1.data.get_output_shapes(ds))
    return dict(next=feedable.get_next(name="next"), init=[it.initializer],
                handle_feed=(handle, handle_string))


def case_shard():
    return one_shot(Dataset.range(11).shard(3, 1))


def case_unbatch():
    ds = Dataset.zip((Dataset.range(7).batch(3),
                      Dataset.from_tensor_slices(["a", "b", "c", "d", "e", "f", "g"]).batch(3)))
    return one_shot(ds.unbatch())


def case_reduce_in_map():
    ds = Dataset.range(5).map(lambda x: Dataset.range(x).reduce(np.int64(0), lambda s, v: s + v))
    return one_shot(ds)


def case_map_and_batch():
    ds = Dataset.range(7).apply(tf.data.experimental.map_and_batch(
        lambda x: (x * 2, tf.strings.as_string(x)), 3, drop_remainder=False))
    return one_shot(ds)


def case_map_and_batch_drop():
    ds = Dataset.range(7).apply(tf.data.experimental.map_and_batch(
        lambda x: (x * 2, tf.strings.as_string(x)), 3, drop_remainder=True,
        num_parallel_calls=2))
    return one_shot(ds)


def case_scan():
    return one_shot(Dataset.range(6).scan(np.int64(0), lambda s, x: (s + x, s * 10 + x)))


def case_take_while():
    return one_shot(Dataset.range(10).take_while(lambda x: x < 4))


def case_unique():
    return one_shot(Dataset.from_tensor_slices(tf.constant([3, 1, 3, 2, 1, 5], tf.int64)).unique())


def case_unique_strings():
    return one_shot(Dataset.from_tensor_slices(["b", "a", "b", "", "a"]).unique())


def case_ignore_errors():
    ds = Dataset.from_tensor_slices([1., 2., 0., 4.])
    ds = ds.map(lambda x: tf.debugging.check_numerics(1. / x, "inf")).ignore_errors()
    return one_shot(ds)


def case_choose_from_datasets():
    choice = Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1, 0], tf.int64))
    return one_shot(Dataset.choose_from_datasets([Dataset.range(3), Dataset.range(10, 13)],
                                                 choice))


def case_window_flat_map():
    ds = Dataset.range(7).window(3, shift=2, drop_remainder=False).flat_map(lambda w: w.batch(3))
    return one_shot(ds)


def case_window_stride_drop():
    ds = Dataset.range(10).window(2, shift=3, stride=2, drop_remainder=True)
    return one_shot(ds.flat_map(lambda w: w.batch(2)))


def case_group_by_window():
    ds = Dataset.range(10).group_by_window(key_func=lambda x: x % 3,
                                           reduce_func=lambda k, w: w.batch(2), window_size=2)
    return one_shot(ds)


def case_bucket_by_sequence_length():
    ds = Dataset.range(1, 8).map(lambda x: tf.fill([x], x))
    ds = ds.bucket_by_sequence_length(element_length_func=lambda e: tf.shape(e)[0],
                                      bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 2])
    return one_shot(ds)


def reducer_pipeline(ds, key_func, init_func, reduce_func, finalize_func):
    return ds.apply(tf.data.experimental.group_by_reducer(
        key_func, tf.data.experimental.Reducer(init_func, reduce_func, finalize_func)))


def case_group_by_reducer():
    """Sum and count per parity; finalize_func gets the state's tuple as its arguments."""
    return one_shot(reducer_pipeline(
        Dataset.range(10), lambda x: x % 2, lambda k: (np.int64(0), np.int64(0)),
        lambda state, x: (state[0] + x, state[1] + 1), lambda total, count: (total, count)))


def case_group_by_reducer_key_order():
    """Keys first seen out of order, negative ones among them: the groups come smallest key
    first; init_func gets the key."""
    ds = Dataset.from_tensor_slices(tf.constant([5, -3, 12, 7, -4, 0, 13, 4, -1], tf.int64))
    return initializable(reducer_pipeline(
        ds, lambda x: x // 3, lambda k: tf.strings.as_string(k * 100),
        lambda s, x: tf.strings.join([s, tf.strings.as_string(x)], separator=","),
        lambda s: (s, tf.strings.length(s))), reinit=True)


def case_group_by_reducer_vector_state():
    """A state that grows (its shape weakened to [None] by the Python side), finalized into
    a dict."""
    return one_shot(reducer_pipeline(
        Dataset.range(1, 9), lambda x: 3 - x % 3, lambda k: (k, tf.zeros([0], tf.int64)),
        lambda state, x: (state[0], tf.concat([state[1], [x * state[0]]], 0)),
        lambda k, v: {"key": k, "values": v, "n": tf.size(v)}))


def case_group_by_reducer_captured():
    """Each of the four functions captures tensors of the graph (a fed placeholder among
    them): the op's four other_arguments lists."""
    modulus = tf1.placeholder(tf.int64, [], name="modulus")
    offset = tf.constant(1000, tf.int64, name="offset")
    scale = tf.constant([1.0, 10.0], tf.float32, name="scale")
    ds = reducer_pipeline(
        Dataset.range(8), lambda x: x % modulus,
        lambda k: tf.cast(k + offset, tf.float32) * scale,
        lambda s, x: s + tf.cast(x, tf.float32) * scale,
        lambda s: s - scale * tf.cast(modulus, tf.float32))
    return initializable(ds, feeds=[Feed(modulus, np.int64(3))])


def case_group_by_reducer_bad_key():
    """A key_func of unknown rank (Python's check passes it) returns a scalar, then a [1]
    (one element: TensorFlow takes it), then a [2]: InvalidArgument, after the elements of
    a good group_by_reducer before it."""
    def sum_reducer(ds, key_func):
        return reducer_pipeline(ds, key_func, lambda k: np.int64(0), lambda s, x: s + x,
                                lambda s: s)

    def key(x):
        dims = tf.fill([tf.cast(x >= 2, tf.int32)], tf.cast(x // 2, tf.int32))
        return tf.fill(dims, x % 2)
    return one_shot(sum_reducer(Dataset.range(4), lambda x: x % 2).concatenate(
        sum_reducer(Dataset.range(6), key)))


def case_parallel_batch():
    return one_shot(Dataset.range(8).batch(3, num_parallel_calls=2, deterministic=True))


def case_assert_cardinality():
    return one_shot(Dataset.range(4).apply(tf.data.experimental.assert_cardinality(4)))


def case_assert_cardinality_wrong():
    return one_shot(Dataset.range(4).apply(tf.data.experimental.assert_cardinality(6)))


def case_sample_from_datasets():
    ds = Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(100, 105)],
                                      weights=[0.5, 0.5], seed=7, stop_on_empty_dataset=True)
    return one_shot(ds)


def case_parallel_map():
    ds = Dataset.range(37).map(lambda x: (x * x, tf.strings.as_string(x)), num_parallel_calls=4)
    return one_shot(ds.batch(5).prefetch(3))


def case_parallel_map_error():
    ds = Dataset.from_tensor_slices([1., 2., 4., 0., 8.])
    ds = ds.map(lambda x: tf.debugging.check_numerics(1. / x, "inverse"), num_parallel_calls=3)
    return one_shot(ds.prefetch(2))


def case_textline_gzip():
    ph, feed = filenames(["lines.txt.gz"])
    return initializable(tf.data.TextLineDataset(ph, compression_type="GZIP"), feeds=[feed])


def case_csv_dataset():
    ph, feed = filenames(["table.csv"])
    ds = tf.data.experimental.CsvDataset(
        ph, record_defaults=[tf.constant([0], tf.int64), tf.constant(["?"]),
                             tf.constant([-1.0], tf.float64), tf.constant([7], tf.int32)],
        header=True, na_value="NA")
    return initializable(ds, feeds=[feed])


def case_csv_select_cols_zlib():
    ph, feed = filenames(["table.csv.z"])
    ds = tf.data.experimental.CsvDataset(ph, record_defaults=[tf.constant(["?"]), [-2.0]],
                                         header=True, select_cols=[1, 2], na_value="NA",
                                         compression_type="ZLIB")
    return initializable(ds.map(lambda s, x: (s, x)), feeds=[feed])


def case_csv_exclude_cols_delim():
    ph, feed = filenames(["table2.csv"])
    ds = tf.data.experimental.CsvDataset(ph, record_defaults=[tf.int64, tf.constant([0.0])],
                                         field_delim=";", exclude_cols=[1, 3])
    return initializable(ds.batch(2), feeds=[feed])


def case_csv_bad_record():
    ph, feed = filenames(["bad.csv"])
    ds = tf.data.experimental.CsvDataset(ph, record_defaults=[tf.int64, tf.string, tf.float32,
                                                              tf.int64])
    return initializable(ds, feeds=[feed])


def case_sparse_slices():
    sp = tf.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.5, -2.0, 3.25], [3, 4])
    return one_shot(Dataset.from_tensor_slices(sp))


def case_sparse_map_batch():
    ds = Dataset.range(5).map(lambda x: tf.SparseTensor([[0], [x % 3]], [x, 10 * x], [3]))
    return one_shot(ds.batch(2))


def case_parse_varlen():
    ph, feed = filenames(["examples.tfrecord"])
    spec = {"i": tf.io.FixedLenFeature([], tf.int64), "f": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.VarLenFeature(tf.string)}
    ds = tf.data.TFRecordDataset(ph).batch(2).map(lambda s: tf.io.parse_example(s, spec))
    return initializable(ds, feeds=[feed])


def case_legacy_parallel_interleave():
    ph, feed = filenames(["a.tfrecord", "b.tfrecord"])
    ds = Dataset.from_tensor_slices(ph).apply(tf.data.experimental.parallel_interleave(
        tf.data.TFRecordDataset, cycle_length=2, block_length=2))
    return initializable(ds, feeds=[feed])


def case_parallel_interleave():
    ph, feed = filenames(["a.tfrecord", "b.tfrecord", "c.tfrecord.gz"])
    ds = Dataset.from_tensor_slices(ph).interleave(
        lambda f: tf.data.TFRecordDataset(f, compression_type=tf.where(
            tf.strings.regex_full_match(f, ".*gz"), "GZIP", "")),
        cycle_length=2, block_length=2, num_parallel_calls=2, deterministic=True)
    return initializable(ds, feeds=[feed])


def case_batched_features():
    pattern = tf1.placeholder(tf.string, [], name="pattern")
    spec = {"i": tf.io.FixedLenFeature([], tf.int64), "f": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.FixedLenFeature([], tf.string, default_value="?")}
    ds = tf.data.experimental.make_batched_features_dataset(
        pattern, batch_size=2, features=spec, shuffle=False, num_epochs=1,
        sloppy_ordering=False)
    return initializable(ds, feeds=[Feed(pattern, None, files=["examples.tfrecord"])])


def case_dense_to_sparse_batch():
    ds = Dataset.range(1, 6).map(lambda x: tf.fill([x % 3 + 1], tf.cast(x, tf.float32)))
    ds = ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [4]))
    return one_shot(ds)


def case_list_files():
    pattern = tf1.placeholder(tf.string, [], name="pattern")
    ds = Dataset.list_files(pattern, shuffle=False).map(
        lambda f: tf.strings.regex_replace(f, ".*/", ""))
    return initializable(ds, feeds=[Feed(pattern, None, files=["*.tfrecord"])])


def case_cache_file():
    name = tf1.placeholder(tf.string, [], name="cache_file")
    return initializable(cached_pipeline(name).repeat(2),
                         feeds=[Feed(name, None, temp="cache")])


def write_tf_cache(out):
    """A cache file TensorFlow wrote: cached_pipeline's elements in a tensor bundle (made
    here, after the other cases' graphs, so that their function names stay as they were)."""
    for suffix in (".index", ".data-00000-of-00001"):
        if os.path.exists(os.path.join(out, "tf_cache" + suffix)):
            os.remove(os.path.join(out, "tf_cache" + suffix))
    g = tf1.Graph()
    with g.as_default():
        it = tf1.data.make_one_shot_iterator(
            cached_pipeline(tf.constant(os.path.join(out, "tf_cache"))))
        nxt = it.get_next()
    with tf1.Session(graph=g) as sess:
        try:
            while True:
                sess.run(nxt)
        except tf.errors.OutOfRangeError:
            pass


def case_cache_file_read():
    write_tf_cache(OUT_DIR)
    name = tf1.placeholder(tf.string, [], name="cache_file")
    return initializable(cached_pipeline(name), feeds=[Feed(name, None, files=["tf_cache"])])


# TensorFlow 2's resources: a tf.function builds the pipeline (DummySeedGenerator,
# ShuffleDatasetV3, DummyMemoryCache, CacheDatasetV2), or runs iterators of its own
# (AnonymousIterator*), or the raw ops of older TensorFlow 2 releases name shared seed
# generators and memory caches (AnonymousSeedGenerator, ShuffleDatasetV2, RandomDatasetV2, ...).

I64_SIG = dict(output_types=[tf.int64], output_shapes=[[]])


def raw_dataset(variant):
    from tensorflow.python.data.ops import dataset_ops
    return dataset_ops._VariantDataset(variant, tf.TensorSpec([], tf.int64))


def i64(v):
    return tf.constant(v, tf.int64)


def case_tf2_function_dataset():
    @tf.function
    def make():
        return (Dataset.range(8).shuffle(5, seed=3).repeat(2).map(lambda x: x * 10).batch(3)
                .cache().prefetch(1))
    return initializable(make(), reinit=True)


def case_tf2_seed_generators():
    raw = tf.raw_ops
    gen, _ = raw.AnonymousSeedGenerator(seed=i64(7), seed2=i64(11), reshuffle=tf.constant(True))
    # Two datasets draw their epochs' seeds from one generator, in the order their iterators
    # start.
    a = raw.ShuffleDatasetV2(input_dataset=Dataset.range(6)._variant_tensor,
                             buffer_size=i64(4), seed_generator=gen, **I64_SIG)
    b = raw.ShuffleDatasetV3(input_dataset=Dataset.range(10, 16)._variant_tensor,
                             buffer_size=i64(3), seed=i64(1), seed2=i64(2), seed_generator=gen,
                             **I64_SIG)
    fixed, _ = raw.AnonymousSeedGenerator(seed=i64(5), seed2=i64(6), reshuffle=tf.constant(False))
    c = raw.ShuffleAndRepeatDatasetV2(input_dataset=Dataset.range(20, 25)._variant_tensor,
                                      buffer_size=i64(5), seed=i64(0), seed2=i64(0), count=i64(2),
                                      seed_generator=fixed, **I64_SIG)
    r = raw.RandomDatasetV2(seed=i64(4), seed2=i64(9), seed_generator=raw.DummySeedGenerator(),
                            rerandomize_each_iteration=True, **I64_SIG)
    # A memory cache shared by two CacheDatasetV2: a partial pass is dropped, the first complete
    # one is what both read from then on.
    cache, _ = raw.AnonymousMemoryCache()
    rnd = raw.RandomDatasetV2(seed=i64(1), seed2=i64(1), seed_generator=raw.DummySeedGenerator(),
                              rerandomize_each_iteration=True, **I64_SIG)
    cv = raw.CacheDatasetV2(input_dataset=raw_dataset(rnd).take(3)._variant_tensor,
                            filename=tf.constant(""), cache=cache, **I64_SIG)
    cv2 = raw.CacheDatasetV2(input_dataset=Dataset.range(100, 104)._variant_tensor,
                             filename=tf.constant(""), cache=cache, **I64_SIG)
    cached = (raw_dataset(cv).take(2).concatenate(raw_dataset(cv).repeat(2))
              .concatenate(raw_dataset(cv2)).concatenate(Dataset.range(1)))
    ds = Dataset.zip((raw_dataset(a).repeat(2), raw_dataset(b).repeat(2),
                      raw_dataset(c).concatenate(Dataset.range(2)),
                      raw_dataset(r).take(2).repeat(6), cached))
    return initializable(ds, reinit=True)


def case_tf2_anonymous_iterators():
    raw = tf.raw_ops

    @tf.function
    def f():
        it = iter(Dataset.range(6).shuffle(6, seed=9).map(lambda x: x + 1))
        a = next(it)
        b = next(it)
        rest = it.get_next_as_optional()
        it2 = iter(Dataset.range(1))
        c = next(it2)
        none = it2.get_next_as_optional()
        h, d = raw.AnonymousIteratorV2(**I64_SIG)
        raw.MakeIterator(dataset=Dataset.range(3, 5)._variant_tensor, iterator=h)
        e = raw.IteratorGetNext(iterator=h, **I64_SIG)[0]
        raw.DeleteIterator(handle=h, deleter=d)
        h1 = raw.AnonymousIterator(**I64_SIG)
        raw.MakeIterator(dataset=Dataset.range(7, 9)._variant_tensor, iterator=h1)
        e1 = raw.IteratorGetNextSync(iterator=h1, **I64_SIG)[0]
        gen, _ = raw.AnonymousSeedGenerator(seed=i64(3), seed2=i64(4), reshuffle=tf.constant(True))
        sh = raw.ShuffleDatasetV3(input_dataset=Dataset.range(4)._variant_tensor,
                                  buffer_size=i64(4), seed=i64(0), seed2=i64(0),
                                  seed_generator=gen, **I64_SIG)
        h3 = raw.AnonymousIteratorV3(**I64_SIG)
        raw.MakeIterator(dataset=sh, iterator=h3)
        first = raw.IteratorGetNext(iterator=h3, **I64_SIG)[0]
        digits = tf.constant(0, tf.int64)
        for x in Dataset.range(5).shuffle(5, seed=1):  # a ScanDataset and a ReduceDataset
            digits = digits * 10 + x
        return (a, b, rest.has_value(), rest.get_value(), c, none.has_value(), e, e1, first,
                digits)
    return dict(next=f(), init=[], runs=2)


def case_sparse_tensor_slices():
    """tf.compat.v1's from_sparse_tensor_slices: the rows of a SparseTensor (SparseTensorSliceDataset),
    rows without entries among them."""
    sp = tf.SparseTensor([[0, 1], [2, 0], [2, 3], [3, 2]], [1.5, -2.0, 3.25, 4.0], [5, 4])
    return one_shot(tf1.data.Dataset.from_sparse_tensor_slices(sp))


def case_tfrecord_writer():
    """tf.data.experimental.TFRecordWriter (DatasetToTFRecord) writes a GZIP file that a
    TFRecordDataset then reads back."""
    name = tf1.placeholder(tf.string, [], name="record_file")
    records = Dataset.from_tensor_slices(tf.constant([b"first", b"", b"third\x00\xff"]))
    write = tf.data.experimental.TFRecordWriter(name, "GZIP").write(records)
    spec = initializable(tf.data.TFRecordDataset(name, "GZIP"),
                         feeds=[Feed(name, None, temp="records")])
    spec["init"] = [write] + spec["init"]
    return spec


CASES = [
    ("slices_map_filter_batch", case_slices_map_filter_batch),
    ("range_skip_take_repeat_batch", case_range_skip_take_repeat_batch),
    ("zip_concat", case_zip_concat),
    ("tfrecord_files", case_tfrecord_files),
    ("tfrecord_gzip", case_tfrecord_gzip),
    ("textline_csv", case_textline_csv),
    ("fixed_length", case_fixed_length),
    ("shuffle_seeded", case_shuffle_seeded),
    ("shuffle_repeat", case_shuffle_repeat),
    ("map_cond", case_map_cond),
    ("parse_examples", case_parse_examples),
    ("interleave_files", case_interleave_files),
    ("flat_map_range", case_flat_map_range),
    ("cache_prefetch", case_cache_prefetch),
    ("padded_batch", case_padded_batch),
    ("batch_drop_remainder", case_batch_drop_remainder),
    ("map_captured", case_map_captured),
    ("tensor_dataset_repeat", case_tensor_dataset_repeat),
    ("string_handle", case_string_handle),
    ("shard", case_shard),
    ("unbatch", case_unbatch),
    ("reduce_in_map", case_reduce_in_map),
    ("map_and_batch", case_map_and_batch),
    ("map_and_batch_drop", case_map_and_batch_drop),
    ("scan", case_scan),
    ("take_while", case_take_while),
    ("unique", case_unique),
    ("unique_strings", case_unique_strings),
    ("ignore_errors", case_ignore_errors),
    ("choose_from_datasets", case_choose_from_datasets),
    ("window_flat_map", case_window_flat_map),
    ("window_stride_drop", case_window_stride_drop),
    ("group_by_window", case_group_by_window),
    ("bucket_by_sequence_length", case_bucket_by_sequence_length),
    ("group_by_reducer", case_group_by_reducer),
    ("group_by_reducer_key_order", case_group_by_reducer_key_order),
    ("group_by_reducer_vector_state", case_group_by_reducer_vector_state),
    ("group_by_reducer_captured", case_group_by_reducer_captured),
    ("group_by_reducer_bad_key", case_group_by_reducer_bad_key),
    ("parallel_batch", case_parallel_batch),
    ("assert_cardinality", case_assert_cardinality),
    ("assert_cardinality_wrong", case_assert_cardinality_wrong),
    ("sample_from_datasets", case_sample_from_datasets),
    ("parallel_map", case_parallel_map),
    ("parallel_map_error", case_parallel_map_error),
    ("textline_gzip", case_textline_gzip),
    ("csv_dataset", case_csv_dataset),
    ("csv_select_cols_zlib", case_csv_select_cols_zlib),
    ("csv_exclude_cols_delim", case_csv_exclude_cols_delim),
    ("csv_bad_record", case_csv_bad_record),
    ("sparse_slices", case_sparse_slices),
    ("sparse_map_batch", case_sparse_map_batch),
    ("parse_varlen", case_parse_varlen),
    ("legacy_parallel_interleave", case_legacy_parallel_interleave),
    ("list_files", case_list_files),
    ("parallel_interleave", case_parallel_interleave),
    ("batched_features", case_batched_features),
    ("dense_to_sparse_batch", case_dense_to_sparse_batch),
    ("cache_file", case_cache_file),
    ("cache_file_read", case_cache_file_read),
    ("tf2_function_dataset", case_tf2_function_dataset),
    ("tf2_seed_generators", case_tf2_seed_generators),
    ("tf2_anonymous_iterators", case_tf2_anonymous_iterators),
    ("sparse_tensor_slices", case_sparse_tensor_slices),
    ("tfrecord_writer", case_tfrecord_writer),
]


# ---------------------------------------------------------------------------------------------
# Running a case
# ---------------------------------------------------------------------------------------------

def all_ops(graph_def):
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return sorted(ops)


def dtype_name(dtype):
    return "string" if dtype == tf.string else dtype.name


def tensor_json(value, dtype):
    value = np.asarray(value)
    out = {"dtype": dtype_name(dtype), "shape": list(value.shape)}
    flat = value.reshape(-1).tolist()
    if dtype == tf.string:
        out["b64_values"] = [base64.b64encode(v).decode("ascii") for v in flat]
    elif dtype.is_floating:
        out["values"] = [float(v) for v in flat]
    else:
        out["values"] = flat
    return out


def kernel_message(message):
    lines = [ln.strip() for ln in message.split("\n") if ln.strip()]
    at = next((i for i, ln in enumerate(lines) if ln.startswith("[[{{node")), len(lines))
    return lines[at - 1]


def error_code(error):
    """TensorFlow's error class name less "Error": OutOfRange, InvalidArgument, ..."""
    name = type(error).__name__
    assert name.endswith("Error") and name != "OpError", name
    return name[:-len("Error")]


def run_case(out, name, build):
    g = tf1.Graph()
    with g.as_default():
        spec = build()
    graph_def = g.as_graph_def()
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))

    fetch_tensors = tf.nest.flatten(spec["next"], expand_composites=True)
    feeds, feed_json = {}, []
    for feed in spec.get("feeds", []):
        t = feed.tensor
        if feed.temp is not None:
            feeds[t] = np.array(os.path.join(tempfile.mkdtemp(), feed.temp).encode(), object)
            feed_json.append({"tensor": t.name, "dtype": "string", "shape": [],
                              "temp_file": feed.temp})
        elif feed.files is not None and t.shape.ndims == 0:
            feeds[t] = np.array(os.path.join(out, feed.files[0]).encode(), object)
            feed_json.append({"tensor": t.name, "dtype": "string", "shape": [],
                              "files": feed.files})
        elif feed.files is not None:
            feeds[t] = np.array([os.path.join(out, fn).encode() for fn in feed.files], object)
            feed_json.append({"tensor": t.name, "dtype": "string", "shape": [len(feed.files)],
                              "files": feed.files})
        else:
            value = np.asarray(feed.value)
            feeds[t] = value
            feed_json.append(dict(tensor=t.name, **tensor_json(value, t.dtype)))

    ref = {"graph": name + ".pb", "feeds": feed_json,
           "init": [op.name for op in spec["init"]],
           "fetches": [t.name for t in fetch_tensors]}
    with tf1.Session(graph=g) as sess:
        if spec.get("shuffle"):
            seeds = []
            for op in g.get_operations():
                if op.type.startswith("ShuffleDataset"):
                    seed, seed2 = sess.run([op.inputs[2], op.inputs[3]])
                    seeds.append({"op": op.name, "type": op.type, "seed": int(seed),
                                  "seed2": int(seed2),
                                  "reshuffle_each_iteration":
                                      bool(op.get_attr("reshuffle_each_iteration"))})
            ref["shuffle_seeds"] = seeds

        def epoch():
            for op in spec["init"]:
                sess.run(op, feeds)
            step_feeds = dict(feeds)
            if "handle_feed" in spec:
                placeholder, handle = spec["handle_feed"]
                step_feeds[placeholder] = sess.run(handle, feeds)
            steps = []
            while True:
                try:
                    values = sess.run(fetch_tensors, step_feeds)
                except tf.errors.OpError as e:
                    return steps, {"code": error_code(e),
                                   "kernel_message": kernel_message(e.message)}
                steps.append([tensor_json(v, t.dtype) for v, t in zip(values, fetch_tensors)])
                assert len(steps) <= 40, name

        if "runs" in spec:  # a graph without an end: the same fetches, run after run
            steps = [[tensor_json(v, t.dtype) for v, t in
                      zip(sess.run(fetch_tensors, feeds), fetch_tensors)]
                     for _ in range(spec["runs"])]
            end = None
        else:
            steps, end = epoch()
        if spec.get("reinit"):
            again, _ = epoch()
            assert again == steps, name
    ref["steps"] = steps
    ref["end"] = end
    ref["ops"] = all_ops(graph_def)
    if spec.get("reinit"):
        ref["reinit"] = True
    if "runs" in spec:
        ref["runs"] = spec["runs"]
    if "handle_feed" in spec:
        placeholder, handle = spec["handle_feed"]
        ref["handle_feed"] = {"placeholder": placeholder.name, "from": handle.name}
    print(name, len(steps), "steps:", " ".join(ref["ops"]))
    if end is not None and end["code"] != "OutOfRange":
        print("   ends with", end["code"] + ":", end["kernel_message"])
    if "shuffle_seeds" in ref:
        print("  ", ref["shuffle_seeds"])
    return ref


OUT_DIR = None


def main(out):
    global OUT_DIR
    OUT_DIR = out
    os.makedirs(out, exist_ok=True)
    write_inputs(out)
    cases = {name: run_case(out, name, build) for name, build in CASES}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"cases": cases, "tensorflow": tf.__version__}, f, indent=1)
        f.write("\n")
    union = sorted({op for c in cases.values() for op in c["ops"]})
    print("all ops (%d):" % len(union), " ".join(union))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_data")
