"""Fixture cases of the lookup table ops for make_op_fixtures.py: each case makes its own table,
fills it (InitializeTableV2, LookupTableImportV2 or LookupTableInsertV2, the finds and sizes
running after it through control dependencies) and reads it with LookupTableFindV2 and
LookupTableSizeV2: every key/value dtype pair TensorFlow registers for HashTableV2, defaults
of one value and of one per key, keys of rank 0 to 2, duplicate inserts, removals, tables of
vectors, and the dense tables' bucket exports (their layout is TensorFlow's). Not
differentiable; every case compares exactly."""
import numpy as np
import tensorflow as tf

R = tf.raw_ops


def _after(op, fn):
    with tf.control_dependencies([op]):
        return fn()


def build_lookup(b):
    s, i32, i64, f32, f64, bl = tf.string, tf.int32, tf.int64, tf.float32, tf.float64, tf.bool

    def case(name, fn, inputs):
        b.case("Lookup_" + name, fn, inputs, exact=True, grad=False)

    samples = {
        s: (np.array([b"a", b"bb", b"c"]), np.array([b"bb", b"zz", b"a", b"c"])),
        i32: (np.array([3, -1, 7], np.int32), np.array([7, 5, 3, -1], np.int32)),
        i64: (np.array([30, -10, 1 << 40], np.int64), np.array([1 << 40, 0, 30, -10], np.int64)),
    }
    values = {
        s: np.array([b"x", b"y", b""]), i32: np.array([1, 2, 3], np.int32),
        i64: np.array([10, 20, 30], np.int64), f32: np.array([0.5, -1.5, 2.25], np.float32),
        f64: np.array([1e-3, 2.0, -3.5]), bl: np.array([True, False, True]),
    }
    defaults = {s: np.array(b"?"), i32: np.int32(-1), i64: np.int64(-1), f32: np.float32(-9),
                f64: np.float64(-9), bl: np.array(False)}
    pairs = [(i32, f32), (i32, f64), (i32, i32), (i32, s), (i64, f32), (i64, f64), (i64, i32),
             (i64, i64), (i64, s), (s, bl), (s, f32), (s, f64), (s, i32), (s, i64), (s, s)]
    for kd, vd in pairs:
        keys, query = samples[kd]

        def hash_find(k, v, q, d, kd=kd, vd=vd):
            t = R.HashTableV2(key_dtype=kd, value_dtype=vd)
            init = R.InitializeTableV2(table_handle=t, keys=k, values=v)
            return _after(init, lambda: [R.LookupTableFindV2(table_handle=t, keys=q,
                                                             default_value=d),
                                         R.LookupTableSizeV2(table_handle=t)])
        case("HashTable_%s_%s" % (kd.name, vd.name), hash_find,
             [(keys, kd), (values[vd], vd), (query, kd), (defaults[vd], vd)])

    def import_find(k, v, q, d):
        t = R.HashTableV2(key_dtype=s, value_dtype=i64)
        init = R.LookupTableImportV2(table_handle=t, keys=k, values=v)
        return _after(init, lambda: R.LookupTableFindV2(table_handle=t, keys=q, default_value=d))
    case("HashTable_import_matrix_keys", import_find,
         [(np.array([b"a", b"b"]), s), (np.array([1, 2], np.int64), i64),
          (np.array([[b"a", b"q"], [b"b", b"a"]]), s), (np.int64(-1), i64)])
    case("HashTable_scalar_key", import_find,
         [(np.array([b"a", b"b"]), s), (np.array([1, 2], np.int64), i64),
          (np.array(b"b"), s), (np.int64(-1), i64)])
    case("HashTable_default_per_key", import_find,
         [(np.array([b"a", b"b"]), s), (np.array([1, 2], np.int64), i64),
          (np.array([b"a", b"q", b"r"]), s), (np.array([7, 8, 9], np.int64), i64)])
    case("HashTable_no_keys", import_find,
         [(np.array([b"a"]), s), (np.array([1], np.int64), i64),
          (np.zeros([0, 2], dtype=np.bytes_), s), (np.int64(-1), i64)])

    def mutable(k, v, k2, v2, r, q, d):
        t = R.MutableHashTableV2(key_dtype=s, value_dtype=f32)
        a = R.LookupTableInsertV2(table_handle=t, keys=k, values=v)
        c = _after(a, lambda: R.LookupTableInsertV2(table_handle=t, keys=k2, values=v2))
        e = _after(c, lambda: R.LookupTableRemoveV2(table_handle=t, keys=r))
        return _after(e, lambda: [R.LookupTableFindV2(table_handle=t, keys=q, default_value=d),
                                  R.LookupTableSizeV2(table_handle=t)])
    case("MutableHashTable_insert_remove", mutable,
         [(np.array([b"a", b"b", b"a"]), s), (np.array([1, 2, 3], np.float32), f32),
          (np.array([[b"c"], [b"d"]]), s), (np.array([[4], [5]], np.float32), f32),
          (np.array([b"d", b"nope"]), s), (np.array([b"a", b"b", b"c", b"d"]), s),
          (np.float32(-1), f32)])

    def of_tensors(k, v, q, d):
        t = R.MutableHashTableOfTensorsV2(key_dtype=i64, value_dtype=f64, value_shape=[3])
        a = R.LookupTableInsertV2(table_handle=t, keys=k, values=v)
        return _after(a, lambda: [R.LookupTableFindV2(table_handle=t, keys=q, default_value=d),
                                  R.LookupTableSizeV2(table_handle=t)])
    vecs = np.arange(6, dtype=np.float64).reshape(2, 3)
    case("MutableHashTableOfTensors", of_tensors,
         [(np.array([5, 9], np.int64), i64), (vecs, f64), (np.array([[9, 1], [5, 5]], np.int64), i64),
          (np.array([-1, -2, -3], np.float64), f64)])
    case("MutableHashTableOfTensors_default_per_key", of_tensors,
         [(np.array([5, 9], np.int64), i64), (vecs, f64), (np.array([9, 1], np.int64), i64),
          (np.arange(6, dtype=np.float64).reshape(2, 3) + 100, f64)])

    def dense(k, v, r, q, d, empty, deleted, buckets=8, shape=()):
        def fn(k, v, r, q, d, e, dl):
            t = R.MutableDenseHashTableV2(empty_key=e, deleted_key=dl, value_dtype=v.dtype,
                                          value_shape=shape, initial_num_buckets=buckets)
            a = R.LookupTableInsertV2(table_handle=t, keys=k, values=v)
            c = _after(a, lambda: R.LookupTableRemoveV2(table_handle=t, keys=r))
            return _after(c, lambda: list(R.LookupTableExportV2(
                table_handle=t, Tkeys=k.dtype, Tvalues=v.dtype)) + [
                    R.LookupTableFindV2(table_handle=t, keys=q, default_value=d),
                    R.LookupTableSizeV2(table_handle=t)])
        return fn
    case("DenseHashTable_int64_grows", dense(None, None, None, None, None, None, None),
         [(np.arange(1, 12, dtype=np.int64) * 7, i64), (np.arange(11, dtype=np.float32), f32),
          (np.array([14, 1000], np.int64), i64), (np.array([7, 14, 77, 3], np.int64), i64),
          (np.float32(-1), f32), (np.int64(-1), i64), (np.int64(-2), i64)])
    case("DenseHashTable_string", dense(None, None, None, None, None, None, None, buckets=16),
         [(np.array([b"apple", b"banana", b"cherry", b"date"]), s),
          (np.array([1, 2, 3, 4], np.int64), i64), (np.array([b"banana"]), s),
          (np.array([b"apple", b"banana", b"fig"]), s), (np.int64(0), i64),
          (np.array(b""), s), (np.array(b"<deleted>"), s)])
    case("DenseHashTable_int32_vector_values",
         dense(None, None, None, None, None, None, None, buckets=4, shape=[2]),
         [(np.array([1, 2, 3], np.int32), i32), (np.arange(6, dtype=np.float64).reshape(3, 2), f64),
          (np.array([2], np.int32), i32), (np.array([3, 2], np.int32), i32),
          (np.array([-1, -1], np.float64), f64), (np.int32(0), i32), (np.int32(-5), i32)])
