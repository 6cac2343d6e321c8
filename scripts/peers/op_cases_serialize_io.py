"""Fixture cases of the serialize_io family for make_op_fixtures.py: Fingerprint,
SerializeTensor, ParseTensor, SerializeSparse, SerializeManySparse, DeserializeSparse,
DeserializeManySparse, DecodePaddedRaw and DecodeCompressed, on every dtype actorflow has,
empty tensors and batch entries, typed-field TensorProtos written here, big- and
little-endian bytes, and zlib/gzip streams compressed here (truncated, concatenated, with
trailing bytes). None is differentiable; every case compares exactly. The fixture encoder
takes neither uint8 nor bytes that are not UTF-8, so fingerprints (and uint8 outputs) are
cast to int32 and serialized protos pass through EncodeBase64. ReadFile, WriteFile,
MatchingFiles and the SparseTensorsMap ops are left to tests/conformance/
serialize_io_ops_test.cpp (files and session state)."""
import gzip
import zlib

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2

tf1 = tf.compat.v1
R = tf.raw_ops

LONG = bytes(range(256)) * 3  # farmhash's paths for long inputs (> 64 bytes)
STRINGS = [b"", b"a", b"hello world", b"0123456789abcdef0123456789abcdef", LONG[:100], LONG]


def _b64(x):
    return tf.io.encode_base64(x)


def _fp(data, d):
    return tf.cast(R.Fingerprint(data=data, method=d), tf.int32)


def _proto(dtype, dims, **fields):
    """A TensorProto of typed fields (not tensor_content), serialized."""
    p = tensor_pb2.TensorProto(dtype=dtype)
    p.tensor_shape.CopyFrom(tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in dims]))
    for name, values in fields.items():
        getattr(p, name).extend(values)
    return p.SerializeToString()


def _sparse(serialize, out_type=None):
    def fn(i, v, s):
        kwargs = {} if out_type is None else {"out_type": out_type}
        return _b64(serialize(sparse_indices=i, sparse_values=v, sparse_shape=s, **kwargs))
    return fn


def _int32_if_uint8(x):
    return tf.cast(x, tf.int32) if x.dtype == tf.uint8 else x


def _roundtrip(dtype, many=False):
    def fn(i, v, s):
        if many:
            ser = R.SerializeManySparse(sparse_indices=i, sparse_values=v, sparse_shape=s)
            out = R.DeserializeManySparse(serialized_sparse=ser, dtype=dtype)
        else:
            ser = R.SerializeSparse(sparse_indices=i, sparse_values=v, sparse_shape=s)
            out = R.DeserializeSparse(serialized_sparse=ser, dtype=dtype)
        return [out.sparse_indices, out.sparse_values, out.sparse_shape]
    return fn


def build_serialize_io(b):
    s, f32, f64, i32, i64, bf16, u8, bl = (tf.string, tf.float32, tf.float64, tf.int32, tf.int64,
                                           tf.bfloat16, tf.uint8, tf.bool)
    rng = b.rng
    fp = (b"farmhash64", s)

    # -- Fingerprint: each dtype's bytes, string rows of one and of several strings ----------
    b.case("Fingerprint_string", _fp, [(STRINGS, s), fp], exact=True, grad=False)
    b.case("Fingerprint_string_rows", _fp, [([[b"a", b"b", b""], [b"", b"", b""]], s), fp],
           exact=True, grad=False)
    b.case("Fingerprint_string_3d", _fp,
           [(np.array([[[b"x"], [b"yz"]], [[LONG], [b""]]], dtype=object), s), fp],
           exact=True, grad=False)
    b.case("Fingerprint_float", _fp, [(rng.uniform(-2, 2, size=(3, 4)), f32), fp], exact=True,
           grad=False)
    b.case("Fingerprint_float_edge", _fp,
           [([[0.0, -0.0], [np.inf, np.nan], [1e30, -1e-30]], f32), fp], exact=True, grad=False)
    b.case("Fingerprint_double", _fp, [(rng.uniform(-2, 2, size=(2, 2, 3)), f64), fp],
           exact=True, grad=False)
    b.case("Fingerprint_int32", _fp, [([7, -1, 0, 2147483647], i32), fp], exact=True,
           grad=False)
    b.case("Fingerprint_int64", _fp, [([[1, -2, 3], [2**62, 0, -(2**63)]], i64), fp],
           exact=True, grad=False)
    b.case("Fingerprint_uint8", _fp, [(np.arange(40).reshape(2, 20), u8), fp], exact=True,
           grad=False)
    b.case("Fingerprint_bool", _fp, [([[True, False], [False, False], [True, True]], bl), fp],
           exact=True, grad=False)
    b.case("Fingerprint_bfloat16", _fp, [([[1.5, -2.0, 0.1], [3.0, 0.0, 1e10]], bf16), fp],
           exact=True, grad=False)
    b.case("Fingerprint_empty_rows", _fp, [(np.zeros((3, 0)), f32), fp], exact=True,
           grad=False)
    b.case("Fingerprint_no_rows", _fp, [(np.zeros((0, 4)), f32), fp], exact=True, grad=False)

    # -- SerializeTensor: TensorProto bytes (base64) of each dtype and rank ----------------
    ser = lambda x: _b64(R.SerializeTensor(tensor=x))  # noqa: E731
    for name, value, dtype in [
            ("float_scalar", 3.0, f32), ("float", rng.uniform(-1, 1, size=(2, 3)), f32),
            ("double", [[1.5, -2.25]], f64), ("int32", [1, -2, 3], i32),
            ("int64", [[2**40, -5]], i64), ("uint8", [[0, 255], [7, 8]], u8),
            ("bool", [True, False, True], bl), ("bfloat16", [1.5, -0.25], bf16),
            ("string", [b"ab", b"", LONG[:200]], s), ("string_scalar", b"x", s),
            ("empty", np.zeros((0, 2)), i64), ("empty_string", np.zeros((2, 0), dtype=object), s)]:
        b.case("SerializeTensor_" + name, ser, [(value, dtype)], exact=True, grad=False)

    # -- ParseTensor: round trips, and TensorProtos of typed fields written here -------------
    for name, value, dtype in [
            ("float", rng.uniform(-1, 1, size=(2, 3)), f32), ("double", [1.5, -2.5], f64),
            ("int32", [[1], [2]], i32), ("int64", 2**50, i64), ("uint8", [3, 250], u8),
            ("bool", [[True], [False]], bl), ("bfloat16", [0.5, 8.0], bf16),
            ("string", [[b"x", b""], [b"yy", b"z"]], s), ("empty", np.zeros((3, 0)), f32)]:
        b.case("ParseTensor_" + name, lambda x, d=dtype: _int32_if_uint8(R.ParseTensor(
            serialized=R.SerializeTensor(tensor=x), out_type=d)), [(value, dtype)], exact=True,
            grad=False)
    parse = lambda d: (  # noqa: E731
        lambda x: _int32_if_uint8(R.ParseTensor(serialized=x, out_type=d)))
    b.case("ParseTensor_float_val_repeat", parse(f32),
           [(_proto(types_pb2.DT_FLOAT, [2, 3], float_val=[1.5, -2.0]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_float_val_extra", parse(f32),
           [(_proto(types_pb2.DT_FLOAT, [2], float_val=[1.0, 2.0, 3.0]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_no_values", parse(i32), [(_proto(types_pb2.DT_INT32, [2, 2]), s)],
           exact=True, grad=False)
    b.case("ParseTensor_int_val", parse(i32),
           [(_proto(types_pb2.DT_INT32, [4], int_val=[5, -6]), s)], exact=True, grad=False)
    b.case("ParseTensor_uint8_int_val", parse(u8),
           [(_proto(types_pb2.DT_UINT8, [3], int_val=[1, 255, 300]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_int64_val", parse(i64),
           [(_proto(types_pb2.DT_INT64, [3], int64_val=[-(2**60)]), s)], exact=True, grad=False)
    b.case("ParseTensor_double_val", parse(f64),
           [(_proto(types_pb2.DT_DOUBLE, [], double_val=[0.1]), s)], exact=True, grad=False)
    b.case("ParseTensor_bool_val", parse(bl),
           [(_proto(types_pb2.DT_BOOL, [3], bool_val=[False, True]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_half_val_bfloat16", parse(bf16),
           [(_proto(types_pb2.DT_BFLOAT16, [2], half_val=[0x3FC0, 0xC000]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_string_val", parse(s),
           [(_proto(types_pb2.DT_STRING, [3], string_val=[b"p", b"q"]), s)], exact=True,
           grad=False)
    b.case("ParseTensor_make_tensor_proto", parse(f32),
           [(tf.make_tensor_proto(np.arange(6, dtype=np.float32).reshape(3, 2))
             .SerializeToString(), s)], exact=True, grad=False)

    # -- SerializeSparse, SerializeManySparse: the bytes ----------------------------------
    ix = [[0, 0], [0, 2], [2, 1]]
    shape = [4, 3]
    b.case("SerializeSparse_float", _sparse(R.SerializeSparse),
           [(ix, i64), ([1.5, -2.0, 0.25], f32), (shape, i64)], exact=True, grad=False)
    b.case("SerializeSparse_string", _sparse(R.SerializeSparse),
           [(ix, i64), ([b"a", b"", b"ccc"], s), (shape, i64)], exact=True, grad=False)
    b.case("SerializeSparse_bool_empty", _sparse(R.SerializeSparse),
           [(np.zeros((0, 3)), i64), (np.zeros(0, dtype=bool), bl), ([2, 2, 2], i64)],
           exact=True, grad=False)
    b.case("SerializeManySparse_float", _sparse(R.SerializeManySparse),
           [(ix, i64), ([1.5, -2.0, 0.25], f32), (shape, i64)], exact=True, grad=False)
    b.case("SerializeManySparse_string_3d", _sparse(R.SerializeManySparse),
           [([[1, 0, 1], [1, 2, 0], [3, 1, 1]], i64), ([b"x", b"yy", b""], s), ([5, 3, 2], i64)],
           exact=True, grad=False)
    b.case("SerializeManySparse_int32_empty", _sparse(R.SerializeManySparse),
           [(np.zeros((0, 2)), i64), (np.zeros(0), i32), ([3, 4], i64)], exact=True, grad=False)

    # -- DeserializeSparse, DeserializeManySparse: round trips, stacks, reshapes -----------
    b.case("DeserializeSparse_single", _roundtrip(f32),
           [(ix, i64), ([1.5, -2.0, 0.25], f32), (shape, i64)], exact=True, grad=False)
    b.case("DeserializeSparse_single_string", _roundtrip(s),
           [(ix, i64), ([b"a", b"", b"ccc"], s), (shape, i64)], exact=True, grad=False)
    b.case("DeserializeManySparse_float", _roundtrip(f32, many=True),
           [(ix, i64), ([1.5, -2.0, 0.25], f32), (shape, i64)], exact=True, grad=False)
    b.case("DeserializeManySparse_int64_3d", _roundtrip(i64, many=True),
           [([[0, 1, 1], [2, 0, 0], [2, 2, 1]], i64), ([7, -8, 9], i64), ([3, 3, 2], i64)],
           exact=True, grad=False)

    def stacked(many, lead_shape):
        """SparseTensors of different dense shapes serialized, stacked and deserialized."""
        def fn(i1, v1, s1, i2, v2, s2, i3, v3, s3, i4, v4, s4):
            rows = [R.SerializeSparse(sparse_indices=i, sparse_values=v, sparse_shape=sh)
                    for i, v, sh in [(i1, v1, s1), (i2, v2, s2), (i3, v3, s3), (i4, v4, s4)]]
            ser = tf.reshape(tf.stack(rows), lead_shape + [3])
            op = R.DeserializeManySparse if many else R.DeserializeSparse
            out = op(serialized_sparse=ser, dtype=tf.float32)
            return [out.sparse_indices, out.sparse_values, out.sparse_shape]
        return fn

    parts = [([[0, 1], [2, 0]], i64), ([1.0, 2.0], f32), ([3, 2], i64),
             (np.zeros((0, 2)), i64), (np.zeros(0), f32), ([1, 5], i64),
             ([[1, 4]], i64), ([3.0], f32), ([2, 6], i64),
             ([[0, 0], [0, 1], [4, 0]], i64), ([4.0, 5.0, 6.0], f32), ([5, 2], i64)]
    b.case("DeserializeManySparse_stacked", stacked(True, [4]), parts, exact=True, grad=False)
    b.case("DeserializeSparse_stacked", stacked(False, [4]), parts, exact=True, grad=False)
    b.case("DeserializeSparse_stacked_2x2", stacked(False, [2, 2]), parts, exact=True,
           grad=False)

    # -- DecodePaddedRaw: widths, byte orders, short and long strings ----------------------
    raw = [b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", b"\xff\xfe", b"",
           b"\x00\x00\x80\x3f\x00\x00\x00\x40\x11"]
    for name, dtype, length, little in [
            ("int32", i32, 8, True), ("int32_big", i32, 8, False), ("float", f32, 12, True),
            ("float_big", f32, 4, False), ("double", f64, 8, True), ("int64_big", i64, 16, False),
            ("bfloat16", bf16, 6, True), ("bfloat16_big", bf16, 4, False)]:
        b.case("DecodePaddedRaw_" + name,
               lambda x, d=dtype, n=length, le=little: R.DecodePaddedRaw(
                   input_bytes=x, fixed_length=n, out_type=d, little_endian=le),
               [(raw, s)], exact=True, grad=False)
    b.case("DecodePaddedRaw_uint8_2d", lambda x: tf.cast(R.DecodePaddedRaw(
        input_bytes=x, fixed_length=5, out_type=u8, little_endian=False), tf.int32),
        [(np.array(raw, dtype=object).reshape(2, 2), s)], exact=True, grad=False)
    b.case("DecodePaddedRaw_empty", lambda x: R.DecodePaddedRaw(
        input_bytes=x, fixed_length=4, out_type=i32), [(np.zeros((0, 3), dtype=object), s)],
        exact=True, grad=False)

    # -- DecodeCompressed: zlib and gzip streams made here --------------------------------
    text = [b"hello world " * 20, b"", b"x", bytes(range(32, 127)) * 5]
    dc = lambda t: (lambda x: R.DecodeCompressed(bytes=x, compression_type=t))  # noqa: E731
    b.case("DecodeCompressed_none", dc(""), [(text, s)], exact=True, grad=False)
    b.case("DecodeCompressed_zlib", dc("ZLIB"),
           [([zlib.compress(t, 9) for t in text], s)], exact=True, grad=False)
    b.case("DecodeCompressed_zlib_2d", dc("ZLIB"),
           [(np.array([zlib.compress(t, 1) for t in text], dtype=object).reshape(2, 2), s)],
           exact=True, grad=False)
    b.case("DecodeCompressed_gzip", dc("GZIP"),
           [([gzip.compress(t, mtime=0) for t in text], s)], exact=True, grad=False)
    g1, g2 = gzip.compress(b"first,", mtime=0), gzip.compress(b"second", mtime=0)
    z = zlib.compress(text[0])
    b.case("DecodeCompressed_gzip_members", dc("GZIP"), [([g1 + g2, g2 + g1 + g2], s)],
           exact=True, grad=False)
    b.case("DecodeCompressed_zlib_truncated_and_trailing", dc("ZLIB"),
           [([z[:-6], z[:len(z) // 2], z + b"trailing bytes", b""], s)], exact=True, grad=False)
