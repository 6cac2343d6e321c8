"""Fixture cases of the sets_sparse family for make_op_fixtures.py: SetSize and the three set
operations (DenseToDense, DenseToSparse, SparseToSparse; "a-b", "b-a", "intersection", "union"
in any case; int32, int64, uint8 and string values; ranks 2 and 3; empty sets and empty
results; unordered or repeated indices without validate_indices), tf.sets' flips of a sparse
first operand, SparseSplit (every value dtype, negative axes, uneven pieces, empty pieces,
ranks 1 to 3, unordered entries), SparseBincount and RaggedBincount (1-D and 2-D, weights,
binary_output, int64 indices, decreasing splits), and the three CountSparseOutput ops
(weights, binary_output, minlength, maxlength including 0). None is differentiable: every case
has grad=False. uint8 results are cast to int32 (the fixture format has no uint8)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _parts(indices, values, shape):
    return [indices, values, shape]


def _sp(i, v, s):
    return tf.SparseTensor(i, v, s)


def build_sets_sparse(b):
    i32, i64, u8, s, f32, f64, bl = (tf.int32, tf.int64, tf.uint8, tf.string, tf.float32,
                                     tf.float64, tf.bool)

    # -- SetSize ---------------------------------------------------------------------------
    def set_size(validate=True):
        return lambda i, v, sh: R.SetSize(set_indices=i, set_values=v, set_shape=sh,
                                          validate_indices=validate)
    b.case("SetSize_int32", set_size(),
           [([[0, 0], [0, 1], [1, 0], [1, 2]], i64), ([1, 1, 2, 3], i32), ([3, 4], i64)],
           exact=True, grad=False)
    b.case("SetSize_string_rank3", set_size(),
           [([[0, 0, 0], [0, 0, 1], [1, 2, 0]], i64), (["a", "a", "b"], s), ([2, 3, 2], i64)],
           exact=True, grad=False)
    b.case("SetSize_uint8", set_size(),
           [([[0, 0], [0, 1], [0, 2]], i64), ([7, 200, 7], u8), ([1, 3], i64)],
           exact=True, grad=False)
    b.case("SetSize_int64_tf_sets", lambda i, v, sh: tf.sets.size(_sp(i, v, sh)),
           [([[0, 0], [0, 1], [2, 0]], i64), ([-5, -5, 9], i64), ([3, 2], i64)],
           exact=True, grad=False)
    b.case("SetSize_empty", set_size(),
           [(np.zeros((0, 3)), i64), (np.zeros(0, np.int32), i32), ([2, 3, 2], i64)],
           exact=True, grad=False)
    b.case("SetSize_repeated_unvalidated", set_size(False),
           [([[0, 0], [0, 0], [1, 1]], i64), ([1, 2, 2], i32), ([2, 2], i64)],
           exact=True, grad=False)
    b.case("SetSize_unordered_unvalidated", set_size(False),
           [([[1, 0], [0, 0], [1, 1]], i64), ([1, 2, 3], i32), ([2, 2], i64)],
           exact=True, grad=False)

    # -- DenseToDenseSetOperation ----------------------------------------------------------
    def d2d(op, validate=True, cast=False):
        def fn(x, y):
            out = R.DenseToDenseSetOperation(set1=x, set2=y, set_operation=op,
                                             validate_indices=validate)
            values = tf.cast(out.result_values, tf.int32) if cast else out.result_values
            return _parts(out.result_indices, values, out.result_shape)
        return fn
    x = [[1, 2, 2, 0], [3, 3, 4, 5], [7, 7, 7, 7]]
    y = [[2, 6, 0, 0], [5, 5, 5, 7], [7, 8, 9, 7]]
    for op in ("a-b", "b-a", "intersection", "union"):
        b.case("DenseToDenseSetOperation_" + op, d2d(op), [(x, i32), (y, i32)],
               exact=True, grad=False)
    b.case("DenseToDenseSetOperation_upper_case", d2d("A-B"), [(x, i64), (y, i64)],
           exact=True, grad=False)
    b.case("DenseToDenseSetOperation_last_dims_differ", d2d("union"),
           [([[1, 2], [3, 3]], i64), ([[-1, 5, 6], [3, 0, -9]], i64)], exact=True, grad=False)
    b.case("DenseToDenseSetOperation_string", d2d("union"),
           [([["b", "a", ""], ["zz", "z", "z"]], s), ([["c", "a", "ab"], ["Z", "z", "a"]], s)],
           exact=True, grad=False)
    b.case("DenseToDenseSetOperation_uint8", d2d("intersection", cast=True),
           [([[250, 3, 1], [0, 0, 9]], u8), ([[1, 250, 7], [9, 8, 0]], u8)],
           exact=True, grad=False)
    b.case("DenseToDenseSetOperation_rank3", d2d("union"),
           [([[[1, 2], [3, 4]], [[5, 5], [6, 7]]], i32), ([[[2], [9]], [[5], [1]]], i32)],
           exact=True, grad=False)
    b.case("DenseToDenseSetOperation_empty_result", d2d("a-b"),
           [([[1, 2], [2, 1]], i32), ([[2, 1], [1, 2]], i32)], exact=True, grad=False)
    b.case("DenseToDenseSetOperation_zero_columns", d2d("union"),
           [(np.zeros((2, 0), np.int32), i32), (np.zeros((2, 0), np.int32), i32)],
           exact=True, grad=False)
    b.case("DenseToDenseSetOperation_zero_rows", d2d("intersection"),
           [(np.zeros((0, 3), np.int32), i32), (np.zeros((0, 2), np.int32), i32)],
           exact=True, grad=False)

    # -- DenseToSparseSetOperation ---------------------------------------------------------
    def d2s(op, validate=True):
        def fn(x, i, v, sh):
            out = R.DenseToSparseSetOperation(set1=x, set2_indices=i, set2_values=v,
                                              set2_shape=sh, set_operation=op,
                                              validate_indices=validate)
            return _parts(out.result_indices, out.result_values, out.result_shape)
        return fn
    dense = [[1, 2, 2, 0], [3, 3, 4, 5], [7, 8, 9, 9]]
    sp_args = [([[0, 0], [0, 1], [2, 0], [2, 3]], i64), ([2, 6, 9, 1], i32), ([3, 5], i64)]
    for op in ("a-b", "b-a", "intersection", "union"):
        b.case("DenseToSparseSetOperation_" + op, d2s(op), [(dense, i32)] + sp_args,
               exact=True, grad=False)
    b.case("DenseToSparseSetOperation_empty_sparse", d2s("b-a"),
           [(dense, i32), (np.zeros((0, 2)), i64), (np.zeros(0, np.int32), i32), ([3, 5], i64)],
           exact=True, grad=False)
    b.case("DenseToSparseSetOperation_string", d2s("union"),
           [([["x", "y"], ["z", "z"]], s), ([[1, 0]], i64), (["a"], s), ([2, 1], i64)],
           exact=True, grad=False)
    b.case("DenseToSparseSetOperation_unordered_unvalidated", d2s("union", False),
           [(dense, i64), ([[2, 0], [0, 0]], i64), ([1, 2], i64), ([3, 5], i64)],
           exact=True, grad=False)

    # -- SparseToSparseSetOperation --------------------------------------------------------
    def s2s(op, validate=True, cast=False):
        def fn(ai, av, ash, bi, bv, bsh):
            out = R.SparseToSparseSetOperation(
                set1_indices=ai, set1_values=av, set1_shape=ash, set2_indices=bi,
                set2_values=bv, set2_shape=bsh, set_operation=op, validate_indices=validate)
            values = tf.cast(out.result_values, tf.int32) if cast else out.result_values
            return _parts(out.result_indices, values, out.result_shape)
        return fn
    a_ind = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
    b_ind = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 2], [1, 1, 3]]
    for op in ("a-b", "b-a", "intersection", "union"):
        b.case("SparseToSparseSetOperation_" + op, s2s(op),
               [(a_ind, i64), ([1, 2, 3, 4, 5, 6], i32), ([2, 2, 2], i64),
                (b_ind, i64), ([1, 4, 5, 6, 7, 8], i32), ([2, 2, 4], i64)],
               exact=True, grad=False)
    b.case("SparseToSparseSetOperation_both_empty", s2s("union"),
           [(np.zeros((0, 2)), i64), (np.zeros(0), i64), ([3, 2], i64),
            (np.zeros((0, 2)), i64), (np.zeros(0), i64), ([3, 4], i64)],
           exact=True, grad=False)
    b.case("SparseToSparseSetOperation_string", s2s("a-b"),
           [([[0, 0], [0, 1], [2, 0]], i64), (["p", "q", "r"], s), ([3, 2], i64),
            ([[0, 0], [1, 0]], i64), (["q", "p"], s), ([3, 1], i64)],
           exact=True, grad=False)
    b.case("SparseToSparseSetOperation_uint8", s2s("union", cast=True),
           [([[0, 0], [1, 0]], i64), ([255, 3], u8), ([2, 2], i64),
            ([[1, 0], [1, 1]], i64), ([3, 0], u8), ([2, 2], i64)],
           exact=True, grad=False)
    b.case("SparseToSparseSetOperation_unordered_unvalidated", s2s("union", False),
           [([[1, 0], [0, 0], [1, 1]], i64), ([1, 2, 3], i32), ([2, 2], i64),
            ([[0, 0]], i64), ([7], i32), ([2, 2], i64)],
           exact=True, grad=False)

    # -- tf.sets (flips a sparse first operand with a dense second) ------------------------
    sp_a = ([[0, 0], [0, 1], [1, 0]], i64), ([1, 5, 2], i32), ([2, 2], i64)

    def tf_sets(fn):
        def run(i, v, sh, d):
            out = fn(_sp(i, v, sh), d)
            return _parts(out.indices, out.values, out.dense_shape)
        return run
    dense_b = ([[5, 6], [2, 2]], i32)
    b.case("tf_sets_intersection_sparse_dense", tf_sets(tf.sets.intersection),
           list(sp_a) + [dense_b], exact=True, grad=False)
    b.case("tf_sets_difference_sparse_dense", tf_sets(tf.sets.difference),
           list(sp_a) + [dense_b], exact=True, grad=False)
    b.case("tf_sets_difference_b_minus_a", tf_sets(lambda a, d: tf.sets.difference(a, d, False)),
           list(sp_a) + [dense_b], exact=True, grad=False)
    b.case("tf_sets_union_sparse_dense", tf_sets(tf.sets.union),
           list(sp_a) + [dense_b], exact=True, grad=False)

    # -- SparseSplit -----------------------------------------------------------------------
    def split(num_split, axis):
        def fn(i, v, sh):
            parts = tf.sparse.split(sp_input=_sp(i, v, sh), num_split=num_split, axis=axis)
            return ([p.indices for p in parts] + [p.values for p in parts] +
                    [p.dense_shape for p in parts])
        return fn
    ind = [[0, 0], [0, 3], [1, 1], [1, 4], [2, 2], [3, 0], [4, 4]]
    vals = b.rng.uniform(-1, 1, 7)
    b.case("SparseSplit_axis0", split(2, 0), [(ind, i64), (vals, f32), ([5, 6], i64)],
           exact=True, grad=False)
    b.case("SparseSplit_uneven_empty_piece", split(4, 1), [(ind, i64), (vals, f64), ([5, 6], i64)],
           exact=True, grad=False)
    b.case("SparseSplit_negative_axis", split(3, -1),
           [(ind, i64), ([1, 2, 3, 4, 5, 6, 7], i32), ([5, 6], i64)], exact=True, grad=False)
    b.case("SparseSplit_int64_one_piece", split(1, 0),
           [(ind, i64), ([1, 2, 3, 4, 5, 6, 7], i64), ([5, 6], i64)], exact=True, grad=False)
    b.case("SparseSplit_string", split(2, 0),
           [([[0, 1], [3, 0]], i64), (["a", "b"], s), ([4, 2], i64)], exact=True, grad=False)
    b.case("SparseSplit_bool_rank1", split(2, 0),
           [([[1], [4]], i64), ([True, False], bl), ([5], i64)], exact=True, grad=False)
    b.case("SparseSplit_uint8_rank3", lambda i, v, sh: [
        tf.cast(t, tf.int32) if t.dtype == tf.uint8 else t for t in split(3, 2)(i, v, sh)],
        [([[0, 0, 0], [0, 1, 4], [1, 0, 6], [1, 1, 2]], i64), ([1, 2, 3, 4], u8),
         ([2, 2, 7], i64)], exact=True, grad=False)
    b.case("SparseSplit_empty", split(3, 1),
           [(np.zeros((0, 2)), i64), (np.zeros(0), f32), ([5, 6], i64)], exact=True, grad=False)
    b.case("SparseSplit_unordered", split(2, 1),
           [([[1, 5], [0, 0], [0, 4]], i64), ([1, 2, 3], i32), ([2, 6], i64)],
           exact=True, grad=False)

    # -- SparseBincount / RaggedBincount ---------------------------------------------------
    def sparse_bincount(binary=False):
        return lambda i, v, sh, n, w: R.SparseBincount(indices=i, values=v, dense_shape=sh,
                                                       size=n, weights=w, binary_output=binary)
    si = [[0, 0], [0, 1], [1, 0], [2, 3], [2, 4]]
    sv = [1, 3, 1, 1, 7]
    b.case("SparseBincount_2d", sparse_bincount(),
           [(si, i64), (sv, i32), ([4, 5], i64), (5, i32), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("SparseBincount_2d_weights", sparse_bincount(),
           [(si, i64), (sv, i32), ([4, 5], i64), (5, i32), ([1.5, 2, 3, 4, 5], f64)],
           exact=True, grad=False)
    b.case("SparseBincount_2d_binary", sparse_bincount(True),
           [(si, i64), ([1, 1, 1, 1, 7], i64), ([4, 5], i64), (5, i64), ([1, 2, 3, 4, 5], f32)],
           exact=True, grad=False)
    b.case("SparseBincount_1d", sparse_bincount(),
           [([[0], [2], [3]], i64), ([2, 2, 0], i64), ([5], i64), (4, i64), (np.zeros(0), i64)],
           exact=True, grad=False)
    b.case("SparseBincount_1d_int32_weights", sparse_bincount(),
           [([[0], [2], [3]], i64), ([2, 2, 9], i32), ([5], i64), (4, i32), ([5, 6, 7], i32)],
           exact=True, grad=False)
    b.case("SparseBincount_1d_binary", sparse_bincount(True),
           [([[0], [2], [3]], i64), ([2, 2, 0], i32), ([5], i64), (4, i32), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("SparseBincount_size0_unordered", sparse_bincount(),
           [([[1, 0], [0, 0]], i64), ([1, 2], i32), ([2, 5], i64), (0, i32), (np.zeros(0), f32)],
           exact=True, grad=False)

    def ragged_bincount(binary=False):
        return lambda sp, v, n, w: R.RaggedBincount(splits=sp, values=v, size=n, weights=w,
                                                    binary_output=binary)
    b.case("RaggedBincount", ragged_bincount(),
           [([0, 2, 2, 5], i64), ([1, 1, 0, 3, 9], i32), (4, i32), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("RaggedBincount_weights", ragged_bincount(),
           [([0, 2, 2, 5], i64), ([1, 1, 0, 3, 9], i64), (4, i64), ([1, 2, 3, 4, 5], f64)],
           exact=True, grad=False)
    b.case("RaggedBincount_binary_int64", ragged_bincount(True),
           [([0, 2, 3], i64), ([1, 2, 2], i64), (3, i64), ([5, 6, 7], i64)],
           exact=True, grad=False)
    b.case("RaggedBincount_decreasing_splits", ragged_bincount(),
           [([0, 3, 1, 5], i64), ([1, 1, 0, 3, 9], i32), (4, i32), ([1, 2, 3, 4, 5], i32)],
           exact=True, grad=False)
    b.case("RaggedBincount_no_rows", ragged_bincount(),
           [([0], i64), (np.zeros(0, np.int32), i32), (4, i32), (np.zeros(0), f32)],
           exact=True, grad=False)

    # -- {Dense,Sparse,Ragged}CountSparseOutput --------------------------------------------
    def dense_count(binary=False, minlength=-1, maxlength=-1):
        def fn(v, w):
            out = R.DenseCountSparseOutput(values=v, weights=w, binary_output=binary,
                                           minlength=minlength, maxlength=maxlength)
            return _parts(out.output_indices, out.output_values, out.output_dense_shape)
        return fn
    d = [[1, 2, 2, 5], [0, 0, 7, 1]]
    dw = [[1, 2, 3, 4], [5, 6, 7, 8]]
    b.case("DenseCountSparseOutput", dense_count(), [(d, i32), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("DenseCountSparseOutput_weights", dense_count(), [(d, i64), (dw, f64)],
           exact=True, grad=False)
    b.case("DenseCountSparseOutput_binary_int_weights", dense_count(True), [(d, i32), (dw, i64)],
           exact=True, grad=False)
    b.case("DenseCountSparseOutput_minlength", dense_count(minlength=10),
           [(d, i32), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("DenseCountSparseOutput_maxlength", dense_count(maxlength=3, minlength=10),
           [(d, i32), (dw, i32)], exact=True, grad=False)
    b.case("DenseCountSparseOutput_maxlength_0", dense_count(maxlength=0),
           [(d, i32), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("DenseCountSparseOutput_maxlength_above", dense_count(maxlength=20),
           [(d, i32), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("DenseCountSparseOutput_1d", dense_count(), [([3, 1, 3, 0], i64), (np.zeros(0), i64)],
           exact=True, grad=False)
    b.case("DenseCountSparseOutput_1d_empty", dense_count(),
           [(np.zeros(0, np.int64), i64), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("DenseCountSparseOutput_zero_columns", dense_count(),
           [(np.zeros((2, 0), np.int32), i32), (np.zeros(0), f32)], exact=True, grad=False)

    def sparse_count(binary=False, minlength=-1, maxlength=-1):
        def fn(i, v, sh, w):
            out = R.SparseCountSparseOutput(indices=i, values=v, dense_shape=sh, weights=w,
                                            binary_output=binary, minlength=minlength,
                                            maxlength=maxlength)
            return _parts(out.output_indices, out.output_values, out.output_dense_shape)
        return fn
    ci = [[0, 0], [0, 2], [1, 1], [3, 0], [3, 4]]
    cv = [4, 1, 1, 4, 4]
    b.case("SparseCountSparseOutput", sparse_count(),
           [(ci, i64), (cv, i32), ([4, 6], i64), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("SparseCountSparseOutput_weights", sparse_count(),
           [(ci, i64), (cv, i64), ([4, 6], i64), ([1, 2, 3, 4, 5], f64)], exact=True, grad=False)
    b.case("SparseCountSparseOutput_binary_maxlength", sparse_count(True, maxlength=3),
           [(ci, i64), (cv, i32), ([4, 6], i64), (np.zeros(0), i32)], exact=True, grad=False)
    b.case("SparseCountSparseOutput_minlength", sparse_count(minlength=9),
           [(ci, i64), (cv, i32), ([4, 6], i64), (np.zeros(0), i64)], exact=True, grad=False)
    b.case("SparseCountSparseOutput_1d", sparse_count(),
           [([[0], [3]], i64), ([2, 2], i64), ([5], i64), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("SparseCountSparseOutput_3d_unordered", sparse_count(),
           [([[1, 1, 1], [0, 0, 0]], i64), ([2, 3], i64), ([2, 2, 2], i64), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("SparseCountSparseOutput_empty", sparse_count(),
           [(np.zeros((0, 2)), i64), (np.zeros(0, np.int32), i32), ([4, 6], i64),
            (np.zeros(0), f32)], exact=True, grad=False)

    def ragged_count(binary=False, minlength=-1, maxlength=-1):
        def fn(sp, v, w):
            out = R.RaggedCountSparseOutput(splits=sp, values=v, weights=w, binary_output=binary,
                                            minlength=minlength, maxlength=maxlength)
            return _parts(out.output_indices, out.output_values, out.output_dense_shape)
        return fn
    rs, rv = [0, 2, 2, 5], [4, 4, 0, 9, 1]
    b.case("RaggedCountSparseOutput", ragged_count(), [(rs, i64), (rv, i32), (np.zeros(0), f32)],
           exact=True, grad=False)
    b.case("RaggedCountSparseOutput_weights", ragged_count(),
           [(rs, i64), (rv, i64), ([1, 2, 3, 4, 5], f64)], exact=True, grad=False)
    b.case("RaggedCountSparseOutput_binary_minlength", ragged_count(True, minlength=12),
           [(rs, i64), (rv, i32), ([1, 2, 3, 4, 5], i32)], exact=True, grad=False)
    b.case("RaggedCountSparseOutput_maxlength", ragged_count(maxlength=5),
           [(rs, i64), (rv, i32), (np.zeros(0), i64)], exact=True, grad=False)
    b.case("RaggedCountSparseOutput_decreasing_splits", ragged_count(),
           [([0, 3, 1, 5], i64), (rv, i32), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("RaggedCountSparseOutput_values_2d", ragged_count(),
           [([0, 2], i64), ([[4, 4]], i32), (np.zeros(0), f32)], exact=True, grad=False)
    b.case("RaggedCountSparseOutput_empty_rows", ragged_count(),
           [([0, 0, 0], i64), (np.zeros(0, np.int32), i32), (np.zeros(0), f32)],
           exact=True, grad=False)
