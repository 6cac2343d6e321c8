#!/usr/bin/env python3
"""Writes the real-TensorFlow V1 checkpoint fixtures of tests/data/checkpoints/tf_v1/.

Run with the TensorFlow venv (tensorflow-cpu 2.21.0 from PyPI):

    /root/.cache/af-tf/bin/python scripts/peers/make_v1_checkpoint_fixtures.py tests/data/checkpoints/tf_v1

V1 checkpoints ("tensor slice" files, TensorFlow's TensorSliceWriter) are LevelDB-format tables:
the empty key holds a SavedTensorSlices{meta}, each other key (EncodeTensorNameSlice) a
SavedTensorSlices{data} with the slice's values in the TensorProto's typed fields. It writes:

  dtypes.ckpt          tf.raw_ops.Save of one tensor per dtype V1 saves (names given unsorted)
  slices.ckpt          tf.raw_ops.SaveSlices: "part" float32 [4,2] as two slices, "whole" int64
  slices_half.ckpt     "p" float32 [4,2] with only its rows 0-1 saved
  duplicate.ckpt       Save of the name "p" twice (two overlapping slices: restoring fails)
  garbage.ckpt         not a table
  sharded.ckpt-0000N-of-00002
                       two SaveSlices files: "emb" float32 [4,3] rows 0-1 in shard 0 and rows 2-3
                       in shard 1, "x" int32 [2] in shard 0, "y" string [2] in shard 1; restored
                       through the pattern ShardedFilespec gives ("sharded.ckpt-?????-of-00002")
  saver/model.ckpt, saver/model.ckpt.meta
                       tf.compat.v1.train.Saver(write_version=V1) of w float32 [2,3], step int64
                       and part float32 [4,2] (get_variable, fixed_size_partitioner(2))
  saver_sharded/model.ckpt-00000-of-00001, saver_sharded/model.ckpt.meta
                       the same model saved by Saver(sharded=True, write_version=V1)
  values.json          every tensor of the files above as {"dtype", "shape", "values"}
                       (row-major; complex as [re, im] pairs; NaN and infinities as "nan",
                       "inf", "-inf"; strings as latin-1 text), the save inputs of dtypes.ckpt (to write them again
                       byte for byte), what TensorFlow's Restore, RestoreSlice and RestoreV2
                       return for a few slices, and TensorFlow's errors for bad input.

actorflow's tests (tests/unit/ops/tensor_slice_checkpoint_test.cpp and
tests/conformance/v1_checkpoint_test.cpp) read these files; this script is not part of the
test suite.
"""
import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/data/checkpoints/tf_v1"


def number(v):
    """A float for JSON: NaN and the infinities as the strings "nan", "inf", "-inf"."""
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def encode(t):
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    dt = tf.as_dtype(t.dtype).name if hasattr(t, "dtype") else a.dtype.name
    flat = a.reshape(-1)
    if dt == "string":
        vals = [v.decode("latin-1") for v in flat]
    elif dt.startswith("complex"):
        vals = [[number(v.real), number(v.imag)] for v in flat]
    elif dt == "bool":
        vals = [bool(v) for v in flat]
    elif dt.startswith("float"):
        vals = [number(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dt, "shape": list(a.shape), "values": vals}


def error_of(fn):
    try:
        fn()
    except tf.errors.OpError as e:
        msg = str(e.message).split(" [Op:")[0]
        if "}} " in msg:
            msg = msg.split("}} ", 1)[1]
        return {"code": type(e).__name__.replace("Error", ""), "message": msg}
    raise AssertionError("expected an error")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    out = {"files": {}, "restores": [], "errors": []}

    # -- dtypes.ckpt: every dtype Save writes ------------------------------------------------
    inputs = {
        "f32": tf.constant([[1.5, -0.0, np.inf], [np.nan, 3.25e-38, -7.0]], tf.float32),
        "f64": tf.constant([1e300, -2.5, 0.1], tf.float64),
        "i32": tf.constant([[-2147483648, 2147483647]], tf.int32),
        "i64": tf.constant([-(2**63), 2**63 - 1, 0], tf.int64),
        "u8": tf.constant([0, 255, 7], tf.uint8),
        "i8": tf.constant([-128, 127], tf.int8),
        "i16": tf.constant([-32768, 32767, 5], tf.int16),
        "u16": tf.constant([0, 65535], tf.uint16),
        "bool": tf.constant([True, False, True], tf.bool),
        "str": tf.constant([b"", b"abc", bytes(range(256)) * 2], tf.string),
        "f16": tf.constant([1.0, -65504.0, 0.000061], tf.float16),
        "c64": tf.constant([1 + 2j, -3.5 - 0.25j], tf.complex64),
        "c128": tf.constant([[1e-300 + 1j]], tf.complex128),
        "scalar": tf.constant(42.0, tf.float32),
        "empty": tf.zeros([0, 3], tf.float32),
        "a/nested/name": tf.constant([9], tf.int32),
    }
    names = ["str", "f32", "scalar", "i64", "a/nested/name", "u8", "f64", "bool", "i8", "empty",
             "i16", "u16", "f16", "c64", "c128", "i32"]
    path = os.path.join(OUT, "dtypes.ckpt")
    tf.raw_ops.Save(filename=path, tensor_names=names, data=[inputs[n] for n in names])
    out["dtypes_save_order"] = names
    out["files"]["dtypes.ckpt"] = {n: encode(inputs[n]) for n in names}

    # -- slices.ckpt: two slices of one tensor in one file ------------------------------------
    part = np.arange(8, dtype=np.float32).reshape(4, 2) * 0.5
    path = os.path.join(OUT, "slices.ckpt")
    tf.raw_ops.SaveSlices(filename=path, tensor_names=["part", "whole", "part"],
                          shapes_and_slices=["4 2 2,2:-", "", "4 2 0,2:-"],
                          data=[tf.constant(part[2:]), tf.constant(11, tf.int64),
                                tf.constant(part[:2])])
    out["files"]["slices.ckpt"] = {"part": encode(part), "whole": encode(tf.constant(11, tf.int64))}

    # -- sharded.ckpt-?????-of-00002 -------------------------------------------------------------
    emb = np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0
    base = os.path.join(OUT, "sharded.ckpt")
    s0 = tf.raw_ops.ShardedFilename(basename=base, shard=0, num_shards=2).numpy().decode()
    s1 = tf.raw_ops.ShardedFilename(basename=base, shard=1, num_shards=2).numpy().decode()
    tf.raw_ops.SaveSlices(filename=s0, tensor_names=["emb", "x"],
                          shapes_and_slices=["4 3 0,2:-", ""],
                          data=[tf.constant(emb[:2]), tf.constant([3, 4], tf.int32)])
    tf.raw_ops.SaveSlices(filename=s1, tensor_names=["emb", "y"],
                          shapes_and_slices=["4 3 2,2:-", ""],
                          data=[tf.constant(emb[2:]), tf.constant([b"p", b"q"])])
    pattern = tf.raw_ops.ShardedFilespec(basename=base, num_shards=2).numpy().decode()
    out["sharded_pattern"] = os.path.basename(pattern)
    out["files"]["sharded.ckpt"] = {"emb": encode(emb), "x": encode(tf.constant([3, 4])),
                                    "y": encode(tf.constant([b"p", b"q"]))}

    # -- what Restore, RestoreSlice and RestoreV2 return ---------------------------------------
    def restore(file, name, dtype, spec=None, op="Restore"):
        p = os.path.join(OUT, file)
        if op == "Restore":
            t = tf.raw_ops.Restore(file_pattern=p, tensor_name=name, dt=dtype)
        elif op == "RestoreSlice":
            t = tf.raw_ops.RestoreSlice(file_pattern=p, tensor_name=name, shape_and_slice=spec,
                                        dt=dtype)
        else:
            t = tf.raw_ops.RestoreV2(prefix=p, tensor_names=[name], shape_and_slices=[spec or ""],
                                     dtypes=[dtype])[0]
        out["restores"].append({"op": op, "file": file, "name": name, "spec": spec or "",
                                "value": encode(t)})

    restore("slices.ckpt", "part", tf.float32)
    restore("slices.ckpt", "part", tf.float32, "4 2 1,2:-", "RestoreSlice")
    restore("slices.ckpt", "part", tf.float32, "4 2 1,3:1,1", "RestoreV2")
    restore(out["sharded_pattern"], "emb", tf.float32)
    restore(out["sharded_pattern"], "emb", tf.float32, "4 3 1,2:0,2", "RestoreSlice")
    restore(out["sharded_pattern"], "y", tf.string, "", "RestoreV2")
    restore("dtypes.ckpt", "c64", tf.complex64, "2 1,1", "RestoreSlice")

    # -- errors ---------------------------------------------------------------------------------
    d = os.path.join(OUT, "dtypes.ckpt")
    s = os.path.join(OUT, "slices.ckpt")
    cases = {
        "missing_tensor": lambda: tf.raw_ops.Restore(file_pattern=d, tensor_name="zz", dt=tf.float32),
        "wrong_dtype": lambda: tf.raw_ops.Restore(file_pattern=d, tensor_name="i32", dt=tf.float32),
        "no_file": lambda: tf.raw_ops.Restore(file_pattern=d + "nope", tensor_name="i32", dt=tf.int32),
        "spec_shape": lambda: tf.raw_ops.RestoreSlice(file_pattern=s, tensor_name="part",
                                                      shape_and_slice="4 3 0,1:-", dt=tf.float32),
        "save_spec_mismatch": lambda: tf.raw_ops.SaveSlices(
            filename=s + "x", tensor_names=["p"], shapes_and_slices=["4 2 0,3:-"],
            data=[tf.constant([[1., 2.], [3., 4.]])]),
        "save_uint32": lambda: tf.raw_ops.Save(filename=s + "x", tensor_names=["p"],
                                               data=[tf.constant([1], tf.uint32)]),
        "save_bfloat16": lambda: tf.raw_ops.Save(filename=s + "x", tensor_names=["p"],
                                                 data=[tf.constant([1], tf.bfloat16)]),
        "v2_missing": lambda: tf.raw_ops.RestoreV2(prefix=d, tensor_names=["q"], shape_and_slices=[""],
                                                   dtypes=[tf.float32]),
    }
    s2 = os.path.join(OUT, "slices_half.ckpt")
    tf.raw_ops.SaveSlices(filename=s2, tensor_names=["p"], shapes_and_slices=["4 2 0,2:-"],
                          data=[tf.constant(part[:2])])
    cases["insufficient_slices"] = lambda: tf.raw_ops.RestoreSlice(
        file_pattern=s2, tensor_name="p", shape_and_slice="4 2 1,2:-", dt=tf.float32)
    dup = os.path.join(OUT, "duplicate.ckpt")
    tf.raw_ops.Save(filename=dup, tensor_names=["p", "p"], data=[tf.constant(1.), tf.constant(2.)])
    cases["overlapping"] = lambda: tf.raw_ops.Restore(file_pattern=dup, tensor_name="p", dt=tf.float32)
    garbage = os.path.join(OUT, "garbage.ckpt")
    with open(garbage, "wb") as f:
        f.write(b"not a table" * 10)
    cases["not_a_table"] = lambda: tf.raw_ops.Restore(file_pattern=garbage, tensor_name="p",
                                                      dt=tf.float32)
    for name, fn in cases.items():
        e = error_of(fn)
        e["case"] = name
        e["message"] = e["message"].replace(OUT + "/", "<dir>/")
        out["errors"].append(e)

    # -- tf.compat.v1.train.Saver(write_version=V1) ----------------------------------------------
    for sub, sharded in (("saver", False), ("saver_sharded", True)):
        g = tf.Graph()
        with g.as_default():
            w = tf.compat.v1.get_variable("w", initializer=tf.constant([[1., 2., 3.], [4., 5., 6.]]))
            step = tf.compat.v1.get_variable("step", initializer=tf.constant(7, tf.int64))
            p = tf.compat.v1.get_variable(
                "part", initializer=tf.constant(part),
                partitioner=tf.compat.v1.fixed_size_partitioner(2))
            saver = tf.compat.v1.train.Saver(write_version=tf.compat.v1.train.SaverDef.V1,
                                             sharded=sharded)
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                os.makedirs(os.path.join(OUT, sub))
                saved = saver.save(sess, os.path.join(OUT, sub, "model.ckpt"), write_state=False)
                out["files"][sub] = {"w": encode(sess.run(w)), "step": encode(sess.run(step)),
                                     "part": encode(sess.run(tf.convert_to_tensor(p)))}
                out[sub + "_path"] = os.path.relpath(saved, OUT)
                out[sub + "_saver_def"] = {
                    "filename_tensor_name": saver.saver_def.filename_tensor_name,
                    "save_tensor_name": saver.saver_def.save_tensor_name,
                    "restore_op_name": saver.saver_def.restore_op_name,
                    "sharded": saver.saver_def.sharded, "version": int(saver.saver_def.version)}

    with open(os.path.join(OUT, "values.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
