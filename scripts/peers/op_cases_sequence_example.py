"""ParseSequenceExampleV2 as tf.io.parse_single_sequence_example and tf.io.parse_sequence_example
build it (TensorFlow 2.21), and the older ParseSequenceExample and ParseSingleSequenceExample
ops, on SequenceExamples serialized here: context features fixed-length (with and without
defaults) and var-len, feature lists fixed-length (required and allow_missing, padded) and
var-len, with empty and missing features and lists."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def _feature(v):
    if v is None:
        return tf.train.Feature()  # no kind
    if not v:
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[]))
    if isinstance(v[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    if isinstance(v[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def sequence_example(context=None, lists=None):
    s = tf.train.SequenceExample()
    for key, v in (context or {}).items():
        s.context.feature[key].CopyFrom(_feature(v))
    for key, rows in (lists or {}).items():
        fl = s.feature_lists.feature_list[key]
        for v in rows:
            fl.feature.add().CopyFrom(_feature(v))
    return s.SerializeToString()


def _flat(*dicts):
    out = []
    for parsed in dicts:
        for key in sorted(parsed):
            v = parsed[key]
            out += [v.indices, v.values, v.dense_shape] if isinstance(v, tf.SparseTensor) else [v]
    return out


def build_sequence_example(b):
    context = {"age": tf1.io.FixedLenFeature([], tf.int64, default_value=-1),
               "img": tf1.io.FixedLenFeature([2], tf.float32),
               "tags": tf1.io.VarLenFeature(tf.string)}
    sequence = {"frames": tf1.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
                "words": tf1.io.FixedLenSequenceFeature([], tf.string, allow_missing=True),
                "ids": tf1.io.VarLenFeature(tf.int64)}
    records = [
        sequence_example({"age": [3], "img": [1.0, 2.0], "tags": [b"a", b"b"]},
                         {"frames": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                          "words": [[b"x"], [b"y"]], "ids": [[1], [], [2, 3]]}),
        sequence_example({"img": [5.0, 6.0], "tags": None},
                         {"frames": [[7.0, 8.0]], "ids": [[4, 5, 6]]}),
        sequence_example({"img": [-1.0, 0.25], "age": [9]}, {"frames": [], "words": [[b"z"]]}),
    ]
    b.case("ParseSequenceExampleV2_single",
           lambda s: _flat(*tf1.io.parse_single_sequence_example(s, context, sequence)),
           [(records[0], tf.string)], exact=True, grad=False)
    b.case("ParseSequenceExampleV2_single_missing",
           lambda s: _flat(*tf1.io.parse_single_sequence_example(s, context, sequence)),
           [(records[1], tf.string)], exact=True, grad=False)
    b.case("ParseSequenceExampleV2_single_context_only",
           lambda s: _flat(*tf1.io.parse_single_sequence_example(s, context_features=context)),
           [(records[2], tf.string)], exact=True, grad=False)
    b.case("ParseSequenceExampleV2_single_lists_only",
           lambda s: _flat(*tf1.io.parse_single_sequence_example(
               s, sequence_features={"frames": sequence["frames"]})),
           [(records[0], tf.string)], exact=True, grad=False)
    b.case("ParseSequenceExampleV2_batch",
           lambda s: _flat(*tf.io.parse_sequence_example(s, context, sequence)),
           [(records, tf.string)], exact=True, grad=False)
    b.case("ParseSequenceExampleV2_batch_named",
           lambda s: _flat(*tf.io.parse_sequence_example(
               s, {"img": context["img"]},
               {"ids": sequence["ids"],
                "counts": tf1.io.FixedLenSequenceFeature([1], tf.int64, allow_missing=True)},
               example_names=["r0", "r1", "r2"])),
           [(records, tf.string)], exact=True, grad=False)
    # An empty batch (a required context feature would fail: TensorFlow finds 0 values of it).
    b.case("ParseSequenceExampleV2_empty_batch",
           lambda s: _flat(*tf.io.parse_sequence_example(
               s, {"age": context["age"], "tags": context["tags"]}, sequence)),
           [(np.array([], dtype=object), tf.string)], exact=True, grad=False)
    # The older ops, as graphs imported from TensorFlow 1.x hold them.
    b.case("ParseSequenceExample",
           lambda s: tf.nest.flatten(list(tf.raw_ops.ParseSequenceExample(
               serialized=s, debug_name=[], context_dense_defaults=[tf.constant(-1, tf.int64)],
               feature_list_dense_missing_assumed_empty=["frames"], context_sparse_keys=["tags"],
               context_dense_keys=["age"], feature_list_sparse_keys=["ids"],
               feature_list_dense_keys=["frames"], Ncontext_sparse=1, Ncontext_dense=1,
               Nfeature_list_sparse=1, Nfeature_list_dense=1, context_sparse_types=[tf.string],
               feature_list_dense_types=[tf.float32], context_dense_shapes=[[]],
               feature_list_sparse_types=[tf.int64], feature_list_dense_shapes=[[2]]))),
           [(records, tf.string)], exact=True, grad=False)
    b.case("ParseSingleSequenceExample",
           lambda s: tf.nest.flatten(list(tf.raw_ops.ParseSingleSequenceExample(
               serialized=s, feature_list_dense_missing_assumed_empty=["words"],
               context_sparse_keys=["tags"], context_dense_keys=["img"],
               feature_list_sparse_keys=["ids"], feature_list_dense_keys=["frames", "words"],
               context_dense_defaults=[tf.constant([0.0, 0.0])], debug_name="r0",
               context_sparse_types=[tf.string], feature_list_dense_types=[tf.float32, tf.string],
               context_dense_shapes=[[2]], feature_list_sparse_types=[tf.int64],
               feature_list_dense_shapes=[[2], []]))),
           [(records[0], tf.string)], exact=True, grad=False)
