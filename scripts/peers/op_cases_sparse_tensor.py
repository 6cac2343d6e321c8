"""Fixture cases of the sparse_tensor family for make_op_fixtures.py: SparseTensorDenseMatMul
(adjoints, int32 indices, repeated entries), SparseAdd (thresh, disjoint and overlapping
entries, empty operands), SparseTensorDenseAdd, SparseReduceSum/Max (dense and sparse outputs,
keep_dims, negative axes, repeated entries), SparseReorder (unordered), SparseConcat,
SparseSlice, SparseSoftmax, SparseDenseCwise{Mul,Div,Add} (broadcast dense sides),
SparseSparse{Maximum,Minimum}, SparseCross / SparseCrossV2 / SparseCrossHashed on strings and
int64 (hashed with TensorFlow's fingerprints, bit for bit), and the gradients sparse_grad.py
registers, taken with respect to the float values and dense operands. Outputs whose static
length TensorFlow leaves unknown get it by set_shape (no op) so the fixture can weight them."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _sized(t, n):
    t.set_shape([n])
    return t


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


def _sp(ind, val, shape):
    return tf.SparseTensor(ind, val, shape)


def build_sparse_tensor(b):
    f32, f64, i32, i64, s = tf.float32, tf.float64, tf.int32, tf.int64, tf.string
    rng = b.rng

    # -- SparseTensorDenseMatMul -----------------------------------------------------------
    ind = np.array([[0, 1], [2, 0], [1, 3], [2, 2], [0, 1]], np.int64)  # [0,1] repeated
    vals = rng.uniform(-1, 1, 5)
    for adj_a in (False, True):
        for adj_b in (False, True):
            a_shape = [3, 4] if not adj_a else [4, 3]
            a_ind = ind if not adj_a else ind[:, ::-1].copy()
            b_dense = rng.uniform(-1, 1, (4, 2) if not adj_b else (2, 4))
            b.case("SparseTensorDenseMatMul_%d%d" % (adj_a, adj_b),
                   lambda i, v, sh, d, aa=adj_a, ab=adj_b: R.SparseTensorDenseMatMul(
                       a_indices=i, a_values=v, a_shape=sh, b=d, adjoint_a=aa, adjoint_b=ab),
                   [(a_ind, i64), (vals, f32), (a_shape, i64), (b_dense, f32)])
    b.case("SparseTensorDenseMatMul_f64_int32_indices",
           lambda i, v, sh, d: R.SparseTensorDenseMatMul(a_indices=i, a_values=v, a_shape=sh,
                                                         b=d),
           [(ind.astype(np.int32), i32), (vals, f64), ([3, 4], i64),
            (rng.uniform(-1, 1, (4, 3)), f64)], grad=False)
    b.case("SparseTensorDenseMatMul_int32",
           lambda i, v, sh, d: R.SparseTensorDenseMatMul(a_indices=i, a_values=v, a_shape=sh,
                                                         b=d),
           [(ind, i64), ([1, -2, 3, 4, 5], i32), ([3, 4], i64), (np.arange(8).reshape(4, 2), i32)],
           exact=True)
    b.case("SparseTensorDenseMatMul_empty",
           lambda i, v, sh, d: tf.sparse.sparse_dense_matmul(_sp(i, v, sh), d),
           [(np.zeros((0, 2)), i64), (np.zeros(0), f32), ([3, 4], i64),
            (rng.uniform(-1, 1, (4, 2)), f32)])

    # -- SparseAdd / SparseTensorDenseAdd --------------------------------------------------
    a_ind = [[0, 0], [0, 2], [1, 1], [2, 3]]
    b_ind = [[0, 2], [1, 0], [1, 1], [2, 3]]
    a_val, b_val = [1.0, 2.0, -0.5, 3.0], [1.5, -1.0, 0.55, -2.95]

    def sparse_add(thresh, n):
        def fn(ai, av, ash, bi, bv, bsh):
            out = R.SparseAdd(a_indices=ai, a_values=av, a_shape=ash, b_indices=bi, b_values=bv,
                              b_shape=bsh, thresh=tf.constant(thresh, av.dtype))
            return [out.sum_indices, _sized(out.sum_values, n), out.sum_shape]
        return fn
    sp_args = [(a_ind, i64), (a_val, f32), ([3, 4], i64), (b_ind, i64), (b_val, f32), ([3, 4], i64)]
    b.case("SparseAdd", sparse_add(0.0, 5), sp_args)
    b.case("SparseAdd_thresh", sparse_add(0.1, 3), sp_args)
    b.case("SparseAdd_f64", sparse_add(0.0, 5),
           [(a_ind, i64), (a_val, f64), ([3, 4], i64), (b_ind, i64), (b_val, f64), ([3, 4], i64)])
    b.case("SparseAdd_int32", sparse_add(2, 4),
           [(a_ind, i64), ([1, 2, -1, 3], i32), ([3, 4], i64), (b_ind, i64), ([1, -1, 3, -3], i32),
            ([3, 4], i64)], exact=True)
    b.case("SparseAdd_empty", sparse_add(0.0, 4),
           [(np.zeros((0, 2)), i64), (np.zeros(0), f32), ([3, 4], i64), (b_ind, i64),
            (b_val, f32), ([3, 4], i64)])
    b.case("SparseTensorDenseAdd",
           lambda i, v, sh, d: tf.sparse.add(d, _sp(i, v, sh)),
           [(a_ind + [[0, 0]], i64), (a_val + [4.0], f32), ([3, 4], i64),
            (rng.uniform(-1, 1, (3, 4)), f32)])
    b.case("SparseTensorDenseAdd_int32_indices",
           lambda i, v, sh, d: R.SparseTensorDenseAdd(a_indices=i, a_values=v, a_shape=sh, b=d),
           [(np.array(a_ind, np.int32), i32), (a_val, f64), ([3, 4], i32),
            (rng.uniform(-1, 1, (3, 4)), f64)])

    # -- SparseReduceSum / Max -------------------------------------------------------------
    r_ind = [[1, 0, 1], [0, 1, 0], [0, 0, 2], [1, 2, 1], [0, 1, 0], [1, 0, 0]]  # unordered, dup
    r_val = [1.0, -2.0, 3.5, 0.25, 4.0, -1.5]
    r_args = [(r_ind, i64), (r_val, f32), ([2, 3, 3], i64)]
    for axes, keep in (([1], False), ([0, 2], False), ([-1], True), (None, False), ([1, 2], True)):
        tag = "all" if axes is None else "_".join(str(a).replace("-", "m") for a in axes)
        tag += "_keep" if keep else ""
        b.case("SparseReduceSum_" + tag,
               lambda i, v, sh, ax=axes, k=keep: tf1.sparse_reduce_sum(_sp(i, v, sh), ax, k),
               r_args)
        b.case("SparseReduceMax_" + tag,
               lambda i, v, sh, ax=axes, k=keep: tf1.sparse_reduce_max(_sp(i, v, sh), ax, k),
               r_args, grad=False)
        b.case("SparseReduceSumSparse_" + tag,
               lambda i, v, sh, ax=axes, k=keep: _parts(tf1.sparse_reduce_sum_sparse(
                   _sp(i, v, sh), ax, k)), r_args, grad=False)
        b.case("SparseReduceMaxSparse_" + tag,
               lambda i, v, sh, ax=axes, k=keep: _parts(tf1.sparse_reduce_max_sparse(
                   _sp(i, v, sh), ax, k)), r_args, grad=False)
    b.case("SparseReduceSum_int64",
           lambda i, v, sh: tf1.sparse_reduce_sum(_sp(i, v, sh), [0]),
           [(r_ind, i64), ([1, 2, 3, 4, 5, 6], i64), ([2, 3, 3], i64)], exact=True)
    b.case("SparseReduceSum_empty",
           lambda i, v, sh: tf1.sparse_reduce_sum(_sp(i, v, sh), [1]),
           [(np.zeros((0, 2)), i64), (np.zeros(0), f32), ([3, 2], i64)])

    # -- SparseReorder / SparseConcat / SparseSlice ----------------------------------------
    u_ind = [[2, 1], [0, 3], [1, 0], [0, 0], [2, 0]]
    u_val = [1.0, 2.0, 3.0, 4.0, 5.0]
    b.case("SparseReorder",
           lambda i, v, sh: _parts(tf.sparse.reorder(_sp(i, v, sh))),
           [(u_ind, i64), (u_val, f32), ([3, 4], i64)])
    b.case("SparseReorder_string",
           lambda i, v, sh: _parts(tf.sparse.reorder(_sp(i, v, sh)))[:2],
           [(u_ind, i64), ([b"a", b"b", b"c", b"d", b"e"], s), ([3, 4], i64)], exact=True)
    b.case("SparseReorder_empty",
           lambda i, v, sh: _parts(tf.sparse.reorder(_sp(i, v, sh)))[:2],
           [(np.zeros((0, 3)), i64), (np.zeros(0), f32), ([2, 2, 2], i64)])
    c1 = [(u_ind, i64), (u_val, f32), ([3, 4], i64)]
    c2 = [([[0, 1], [2, 2]], i64), ([-1.0, -2.0], f32), ([3, 3], i64)]
    for axis in (1, -1):
        b.case("SparseConcat_axis%s" % str(axis).replace("-", "m"),
               lambda i1, v1, s1, i2, v2, s2, ax=axis: _parts(tf.sparse.concat(
                   ax, [_sp(i1, v1, s1), _sp(i2, v2, s2)])), c1 + c2)
    b.case("SparseConcat_axis0",
           lambda i1, v1, s1, i2, v2, s2: _parts(tf.sparse.concat(
               0, [_sp(i1, v1, s1), _sp(i2, v2, s2)])),
           c1 + [([[0, 1], [1, 3]], i64), ([-1.0, -2.0], f32), ([2, 4], i64)])
    b.case("SparseConcat_int64_three",
           lambda i1, v1, s1, i2, v2, s2, i3, v3, s3: _parts(tf.sparse.concat(
               1, [_sp(i1, v1, s1), _sp(i2, v2, s2), _sp(i3, v3, s3)])),
           [([[1, 0]], i64), ([7], i64), ([2, 1], i64), (np.zeros((0, 2)), i64),
            (np.zeros(0), i64), ([2, 2], i64), ([[0, 0], [1, 2]], i64), ([8, 9], i64),
            ([2, 3], i64)], exact=True)
    for name, start, size, n in (("inner", [0, 0], [2, 2], 2), ("clipped", [1, 0], [5, 5], 3),
                                 ("empty", [3, 0], [1, 1], 0), ("all", [0, 0], [3, 4], 5)):
        b.case("SparseSlice_" + name,
               lambda i, v, sh, st=start, sz=size, k=n: (lambda out: [
                   out.indices, _sized(out.values, k), out.dense_shape])(
                       tf.sparse.slice(_sp(i, v, sh), st, sz)), c1)
    b.case("SparseSlice_string",
           lambda i, v, sh: _parts(tf.sparse.slice(_sp(i, v, sh), [0, 0], [2, 4])),
           [(u_ind, i64), ([b"a", b"b", b"c", b"d", b"e"], s), ([3, 4], i64)], exact=True)

    # -- SparseSoftmax ---------------------------------------------------------------------
    sm_ind = [[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1], [1, 1, 2], [1, 1, 3]]
    sm_val = rng.uniform(-2, 2, 6)
    b.case("SparseSoftmax",
           lambda i, v, sh: tf.sparse.softmax(_sp(i, v, sh)).values,
           [(sm_ind, i64), (sm_val, f32), ([2, 3, 4], i64)])
    b.case("SparseSoftmax_f64_matrix",
           lambda i, v, sh: tf.sparse.softmax(_sp(i, v, sh)).values,
           [([[0, 0], [0, 2], [2, 1]], i64), ([1.0, 3.0, -2.0], f64), ([3, 3], i64)])
    b.case("SparseSoftmax_unordered",
           lambda i, v, sh: R.SparseSoftmax(sp_indices=i, sp_values=v, sp_shape=sh),
           [([[1, 0], [0, 1], [0, 0]], i64), ([1.0, 2.0, 3.0], f32), ([2, 2], i64)], grad=False)

    # -- SparseDenseCwise* -----------------------------------------------------------------
    cw_ind = [[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 2]]
    cw_val = rng.uniform(0.5, 2, 4)
    for dense_shape in ((2, 3, 4), (3, 4), (4,), (2, 1, 4), (1,)):
        tag = "x".join(map(str, dense_shape))
        dense = rng.uniform(0.5, 2, dense_shape)
        args = [(cw_ind, i64), (cw_val, f32), ([2, 3, 4], i64), (dense, f32)]
        b.case("SparseDenseCwiseMul_" + tag,
               lambda i, v, sh, d: R.SparseDenseCwiseMul(sp_indices=i, sp_values=v, sp_shape=sh,
                                                         dense=d), args)
        b.case("SparseDenseCwiseDiv_" + tag,
               lambda i, v, sh, d: R.SparseDenseCwiseDiv(sp_indices=i, sp_values=v, sp_shape=sh,
                                                         dense=d), args)
        b.case("SparseDenseCwiseAdd_" + tag,
               lambda i, v, sh, d: R.SparseDenseCwiseAdd(sp_indices=i, sp_values=v, sp_shape=sh,
                                                         dense=d), args, grad=False)
    b.case("SparseDenseCwiseMul_via_operator",
           lambda i, v, sh, d: (_sp(i, v, sh) * d).values,
           [(cw_ind, i64), (cw_val, f64), ([2, 3, 4], i64), (rng.uniform(0.5, 2, (3, 4)), f64)])
    b.case("SparseDenseCwiseDiv_int32",
           lambda i, v, sh, d: R.SparseDenseCwiseDiv(sp_indices=i, sp_values=v, sp_shape=sh,
                                                     dense=d),
           [(cw_ind, i64), ([7, -7, 9, 4], i32), ([2, 3, 4], i64), ([2, 2, 3, 5], i32)],
           exact=True)

    # -- SparseSparseMaximum / Minimum -----------------------------------------------------
    mm_a = [([[0, 0], [0, 2], [1, 1]], i64), ([-1.0, 2.0, 3.0], f32), ([2, 3], i64)]
    mm_b = [([[0, 2], [1, 0], [1, 1]], i64), ([5.0, -4.0, 1.0], f32), ([2, 3], i64)]
    b.case("SparseSparseMaximum",
           lambda ai, av, ash, bi, bv, bsh: _parts(tf.sparse.maximum(_sp(ai, av, ash),
                                                                   _sp(bi, bv, bsh)))[:2],
           mm_a + mm_b, grad=False)
    b.case("SparseSparseMinimum",
           lambda ai, av, ash, bi, bv, bsh: _parts(tf.sparse.minimum(_sp(ai, av, ash),
                                                                   _sp(bi, bv, bsh)))[:2],
           mm_a + mm_b, grad=False)
    b.case("SparseSparseMinimum_int64",
           lambda ai, av, ash, bi, bv, bsh: _parts(tf.sparse.minimum(_sp(ai, av, ash),
                                                                   _sp(bi, bv, bsh)))[:2],
           [mm_a[0], ([-1, 2, 3], i64), mm_a[2], mm_b[0], ([5, -4, 1], i64), mm_b[2]],
           exact=True)

    # -- SparseCross, SparseCrossV2, SparseCrossHashed -------------------------------------
    words = ([[0, 0], [1, 0], [1, 1], [3, 0]], [b"a", b"b", b"c", b"d"], [4, 2])
    ids = ([[0, 0], [0, 1], [1, 0], [2, 0], [3, 0]], [3, 7, -2, 11, 1 << 40], [4, 2])
    dense_words = [[b"x"], [b"y"], [b"z"], [b"w"]]
    dense_ids = [[5, 6], [7, 8], [9, 10], [11, 12]]

    def sparse_inputs(*t):
        return [(t[0], i64), (t[1], s if isinstance(t[1][0], bytes) else i64), (t[2], i64)]

    def cross(fn):
        return lambda i1, v1, s1, i2, v2, s2, d1, d2: _parts(
            fn([_sp(i1, v1, s1), _sp(i2, v2, s2), d1, d2]))
    cross_args = sparse_inputs(*words) + sparse_inputs(*ids) + [(dense_words, s), (dense_ids, i64)]
    b.case("SparseCross_strings", cross(tf1.sparse.cross), cross_args, exact=True)
    b.case("SparseCross_hashed", cross(lambda x: tf.sparse.cross_hashed(x)), cross_args,
           exact=True)
    b.case("SparseCross_hashed_buckets",
           cross(lambda x: tf.sparse.cross_hashed(x, num_buckets=1000, hash_key=7)), cross_args,
           exact=True)
    b.case("SparseCross_only_strings",
           lambda i, v, sh, d: _parts(tf1.sparse.cross_hashed([_sp(i, v, sh), d], num_buckets=100)),
           sparse_inputs(*words) + [(dense_words, s)], exact=True)
    b.case("SparseCross_only_strings_unhashed",
           lambda i, v, sh, d: _parts(tf1.sparse.cross([_sp(i, v, sh), d])),
           sparse_inputs(*words) + [(dense_words, s)], exact=True)
    b.case("SparseCross_int64_only_hashed",
           lambda i, v, sh, d: _parts(tf.sparse.cross_hashed([_sp(i, v, sh), d], num_buckets=0)),
           sparse_inputs(*ids) + [(dense_ids, i64)], exact=True)
    b.case("SparseCrossV2_sep", cross(lambda x: tf.sparse.cross(x, separator="::")), cross_args,
           exact=True)
    b.case("SparseCrossHashed",
           lambda i1, v1, s1, i2, v2, s2, d1, d2: list(R.SparseCrossHashed(
               indices=[i1, i2], values=[v1, v2], shapes=[s1, s2], dense_inputs=[d1, d2],
               num_buckets=tf.constant(1000, tf.int64), strong_hash=tf.constant(False),
               salt=tf.constant([13, 17], tf.int64))), cross_args, exact=True)
    # strong_hash (SipHash): TensorFlow 2.21 crashes crossing it with dense inputs in a graph,
    # so only sparse ones here.
    b.case("SparseCrossHashed_strong",
           lambda i1, v1, s1, i2, v2, s2: list(R.SparseCrossHashed(
               indices=[i1, i2], values=[v1, v2], shapes=[s1, s2], dense_inputs=[],
               num_buckets=tf.constant(1000, tf.int64), strong_hash=tf.constant(True),
               salt=tf.constant([13, 17], tf.int64))),
           sparse_inputs(*words) + sparse_inputs(*ids), exact=True)
    b.case("SparseCrossHashed_no_buckets",
           lambda i1, v1, s1, d1: list(R.SparseCrossHashed(
               indices=[i1], values=[v1], shapes=[s1], dense_inputs=[d1],
               num_buckets=tf.constant(0, tf.int64), strong_hash=tf.constant(False),
               salt=tf.constant([1, 2], tf.int64))),
           sparse_inputs(*ids) + [(dense_words, s)], exact=True)
