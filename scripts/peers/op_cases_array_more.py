"""Fixture cases of the array_more family (make_op_fixtures.Builder): Bitcast,
DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound, NthElement
(with its gradient), InplaceAdd, InplaceSub, InplaceUpdate, Empty, ParallelConcat,
AccumulateNV2, ConjugateTranspose, GuaranteeConst, CheckNumericsV2, BiasAddV1, SparseMatMul
and MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2, with the gradients TensorFlow registers.

Conv3DBackpropInput and Conv3DBackpropFilter (the first versions) are not here: TensorFlow
2.21 refuses to put them in a graph ("It has been removed in version 10"); the C++ test
compares them with their V2 forms. Bitcast, ParallelConcat, the in-place ops, GuaranteeConst
and MaxPoolGradGradV2 have no gradient in TensorFlow (tf.gradients raises LookupError), so
their cases take none. uint8 outputs are compared through a Cast to int32 (the fixture
format has no uint8)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

INF, NAN = float("inf"), float("nan")


def build_array_more(b):
    f32, f64, bf16 = tf.float32, tf.float64, tf.bfloat16
    i32, i64, u8 = tf.int32, tf.int64, tf.uint8
    rng = b.rng

    def as_i32(t):
        return tf.cast(t, i32)

    # -- Bitcast: to smaller types (a last dimension added), larger (one removed), equal.
    floats = np.array([1.0, -2.5, 0.15625], np.float32)
    b.case("Bitcast_f32_i32", lambda x: R.Bitcast(input=x, type=i32), [(floats, f32)],
           exact=True, grad=False)
    b.case("Bitcast_f32_u8", lambda x: as_i32(R.Bitcast(input=x, type=u8)), [(floats, f32)],
           exact=True, grad=False)
    b.case("Bitcast_f32_bf16", lambda x: R.Bitcast(input=x, type=bf16),
           [(floats.reshape(3, 1), f32)], exact=True, grad=False)
    b.case("Bitcast_u8_f32", lambda x: R.Bitcast(input=x, type=f32),
           [(floats.view(np.uint8).reshape(3, 4), u8)], exact=True, grad=False)
    b.case("Bitcast_bf16_f32", lambda x: R.Bitcast(input=x, type=f32),
           [(np.array([[0.0, 1.0], [0.0, -2.0]]), bf16)], exact=True, grad=False)
    b.case("Bitcast_bf16_u8", lambda x: as_i32(R.Bitcast(input=x, type=u8)),
           [(np.array([1.0, 3.5]), bf16)], exact=True, grad=False)
    doubles = np.array([0.1, -7.25], np.float64)
    b.case("Bitcast_i64_f64", lambda x: R.Bitcast(input=x, type=f64),
           [(doubles.view(np.int64), i64)], exact=True, grad=False)
    b.case("Bitcast_f64_i32", lambda x: R.Bitcast(input=x, type=i32), [(doubles, f64)],
           exact=True, grad=False)
    b.case("Bitcast_i32_i64", lambda x: R.Bitcast(input=x, type=i64),
           [(np.array([[1, 2], [-1, -1], [7, 0]]), i32)], exact=True, grad=False)
    b.case("Bitcast_scalar", lambda x: R.Bitcast(input=x, type=i32), [(np.float32(1.0), f32)],
           exact=True, grad=False)
    b.case("Bitcast_empty", lambda x: R.Bitcast(input=x, type=i32), [(np.zeros((0, 2)), f64)],
           exact=True, grad=False)
    b.case("Bitcast_empty_u8", lambda x: R.Bitcast(input=x, type=f32),
           [(np.zeros((0, 4)), u8)], exact=True, grad=False)

    # -- DataFormatDimMap: indices in and out of [-rank, rank), wrapping ones included.
    dims = [-9, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 7, 2 ** 31 - 1, -2 ** 31]
    b.case("DataFormatDimMap", lambda x: R.DataFormatDimMap(x=x), [(dims, i32)], exact=True)
    b.case("DataFormatDimMap_NHWC_NWHC",
           lambda x: R.DataFormatDimMap(x=x, src_format="NHWC", dst_format="NWHC"),
           [(np.array(dims[:12]).reshape(3, 4), i64)], exact=True)
    b.case("DataFormatDimMap_NCHW_NHWC",
           lambda x: R.DataFormatDimMap(x=x, src_format="NCHW", dst_format="NHWC"),
           [(np.int32(-3), i32)], exact=True)
    b.case("DataFormatDimMap_5d",
           lambda x: R.DataFormatDimMap(x=x, src_format="NDHWC", dst_format="NCDHW"),
           [([-10, -6, -5, -1, 0, 1, 2, 3, 4, 5, 9], i32)], exact=True)
    b.case("DataFormatDimMap_empty", lambda x: R.DataFormatDimMap(x=x),
           [(np.zeros((0,)), i32)], exact=True)

    # -- DataFormatVecPermute: full and spatial vectors, [n, 2] matrices, 5-d formats.
    vp = R.DataFormatVecPermute
    b.case("DataFormatVecPermute", lambda x: vp(x=x), [([1, 2, 3, 4], i32)], exact=True)
    b.case("DataFormatVecPermute_NCHW_NHWC",
           lambda x: vp(x=x, src_format="NCHW", dst_format="NHWC"), [([1, 2, 3, 4], i64)],
           exact=True)
    b.case("DataFormatVecPermute_spatial",
           lambda x: vp(x=x, src_format="NHWC", dst_format="NWHC"), [([5, 6], i32)], exact=True)
    b.case("DataFormatVecPermute_2d", lambda x: vp(x=x),
           [(np.arange(8).reshape(4, 2), i64)], exact=True)
    b.case("DataFormatVecPermute_2d_spatial",
           lambda x: vp(x=x, src_format="NHWC", dst_format="NWHC"),
           [(np.arange(4).reshape(2, 2), i32)], exact=True)
    b.case("DataFormatVecPermute_5d",
           lambda x: vp(x=x, src_format="NDHWC", dst_format="NCDHW"), [([1, 2, 3, 4, 5], i32)],
           exact=True)
    b.case("DataFormatVecPermute_5d_spatial",
           lambda x: vp(x=x, src_format="NDHWC", dst_format="NWHDC"), [([7, 8, 9], i32)],
           exact=True)
    b.case("DataFormatVecPermute_5d_2d",
           lambda x: vp(x=x, src_format="NCDHW", dst_format="NDHWC"),
           [(np.arange(10).reshape(5, 2), i64)], exact=True)
    b.case("DataFormatVecPermute_ABCD",
           lambda x: vp(x=x, src_format="ABCD", dst_format="DCBA"), [([5, 6, 7, 8], i32)],
           exact=True)

    # -- UnravelIndex: vector and scalar indices, negative ones, int64, no dims.
    b.case("UnravelIndex", lambda i, d: R.UnravelIndex(indices=i, dims=d),
           [([2, 5, 7, 0, 8], i32), ([3, 3], i32)], exact=True)
    b.case("UnravelIndex_scalar", lambda i, d: R.UnravelIndex(indices=i, dims=d),
           [(np.int32(1621), i32), ([6, 7, 8, 9], i32)], exact=True)
    b.case("UnravelIndex_negative", lambda i, d: R.UnravelIndex(indices=i, dims=d),
           [([-1, -7, -9], i32), ([3, 3], i32)], exact=True)
    b.case("UnravelIndex_int64", lambda i, d: R.UnravelIndex(indices=i, dims=d),
           [([0, 2 ** 33 + 5], i64), ([2 ** 20, 2 ** 20], i64)], exact=True)
    b.case("UnravelIndex_no_dims", lambda i, d: R.UnravelIndex(indices=i, dims=d),
           [([0, 0], i32), (np.zeros((0,)), i32)], exact=True)

    # -- LowerBound / UpperBound: ties, values outside, every real type, empty rows.
    srt = np.array([[1.0, 2.0, 2.0, 3.0], [0.0, 5.0, 6.0, 7.0]])
    val = np.array([[2.0, 2.5, 4.0, 0.5], [0.0, 6.0, 9.0, -1.0]])
    for op in ("LowerBound", "UpperBound"):
        fn = getattr(R, op)
        b.case(op, lambda s, v, fn=fn: fn(sorted_inputs=s, values=v), [(srt, f32), (val, f32)],
               exact=True)
        b.case(op + "_int64_out", lambda s, v, fn=fn: fn(sorted_inputs=s, values=v,
                                                          out_type=i64),
               [(srt, f64), (val, f64)], exact=True)
        for dt in (i32, i64, u8, bf16):
            b.case("%s_%s" % (op, dt.name), lambda s, v, fn=fn: fn(sorted_inputs=s, values=v),
                   [(srt, dt), (val, dt)], exact=True)
        b.case(op + "_nan", lambda s, v, fn=fn: fn(sorted_inputs=s, values=v),
               [([[1.0, 2.0, NAN]], f32), ([[NAN, 1.5, 2.0]], f32)], exact=True)
        b.case(op + "_no_inputs", lambda s, v, fn=fn: fn(sorted_inputs=s, values=v),
               [(np.zeros((2, 0)), f32), (val[:, :3], f32)], exact=True)
        b.case(op + "_no_rows", lambda s, v, fn=fn: fn(sorted_inputs=s, values=v),
               [(np.zeros((0, 4)), f32), (np.zeros((0, 3)), f32)], exact=True)

    # -- NthElement: ties (the gradient splits among equal entries), reverse, ranks, types.
    ties = np.array([[3.0, 1.0, 2.0, 2.0], [6.0, 5.0, 4.0, 5.0], [1.0, 1.0, 1.0, 0.5]])
    for n in (0, 1, 3):
        for reverse in (False, True):
            b.case("NthElement_%d%s" % (n, "_r" if reverse else ""),
                   lambda x, n=n, r=reverse: R.NthElement(input=x, n=n, reverse=r),
                   [(ties, f32)])
    b.case("NthElement_f64", lambda x: R.NthElement(input=x, n=2),
           [(rng.uniform(-1, 1, size=(2, 3, 5)), f64)])
    b.case("NthElement_1d", lambda x: R.NthElement(input=x, n=1, reverse=True),
           [(rng.uniform(-1, 1, size=(6,)), f32)])
    b.case("NthElement_bf16", lambda x: R.NthElement(input=x, n=1), [(ties, bf16)], grad=False)
    for dt in (i32, i64, u8):
        b.case("NthElement_" + dt.name, lambda x: as_i32(R.NthElement(input=x, n=2)),
               [([[5, 1, 4, 4], [0, 9, 3, 7]], dt)], exact=True)
    b.case("NthElement_empty", lambda x: R.NthElement(input=x, n=0),
           [(np.zeros((0, 3)), f32)])

    # -- InplaceUpdate / InplaceAdd / InplaceSub: indices wrap modulo the rows; repeats add
    # up. (TensorFlow writes into x's buffer: each case's x is used once.)
    x3 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    v3 = np.array([[10.0, 10.0], [20.0, 20.0], [30.0, 30.0]])
    ix = [0, 2, -1]
    b.case("InplaceAdd", lambda x, i, v: R.InplaceAdd(x=x, i=i, v=v),
           [(x3, f32), (ix, i32), (v3, f32)], grad=False)
    b.case("InplaceSub", lambda x, i, v: R.InplaceSub(x=x, i=i, v=v),
           [(x3, f64), ([1, 4], i32), (v3[:2], f64)], grad=False)
    b.case("InplaceUpdate", lambda x, i, v: R.InplaceUpdate(x=x, i=i, v=v),
           [(x3, f32), ([1, -3], i32), (v3[:2], f32)], grad=False)
    b.case("InplaceAdd_int32", lambda x, i, v: R.InplaceAdd(x=x, i=i, v=v),
           [([1, 2, 3], i32), ([0, 0, 2], i32), ([5, 6, 7], i32)], exact=True)
    b.case("InplaceAdd_uint8", lambda x, i, v: as_i32(R.InplaceAdd(x=x, i=i, v=v)),
           [([250, 2, 3], u8), ([0], i32), ([10], u8)], exact=True)
    b.case("InplaceSub_bf16", lambda x, i, v: R.InplaceSub(x=x, i=i, v=v),
           [(x3, bf16), ([2], i32), (v3[:1], bf16)], grad=False, tolerance=1e-2)
    b.case("InplaceUpdate_bool", lambda x, i, v: R.InplaceUpdate(x=x, i=i, v=v),
           [([True, False, False], tf.bool), ([1], i32), ([True], tf.bool)], exact=True)
    b.case("InplaceUpdate_string", lambda x, i, v: R.InplaceUpdate(x=x, i=i, v=v),
           [(["a", "b", "c"], tf.string), ([2, 0], i32), (["z", "y"], tf.string)], exact=True)
    b.case("InplaceAdd_3d", lambda x, i, v: R.InplaceAdd(x=x, i=i, v=v),
           [(rng.uniform(-1, 1, size=(2, 2, 3)), f32), ([1], i32),
            (rng.uniform(-1, 1, size=(1, 2, 3)), f32)], grad=False)
    b.case("InplaceAdd_no_rows", lambda x, i, v: R.InplaceAdd(x=x, i=i, v=v),
           [(x3, f32), (np.zeros((0,)), i32), (np.zeros((0, 2)), f32)], grad=False)
    b.case("InplaceAdd_empty_x", lambda x, i, v: R.InplaceAdd(x=x, i=i, v=v),
           [(np.zeros((0, 2)), f32), ([1], i32), (np.ones((1, 2)), f32)], grad=False)

    # -- Empty with init (TensorFlow leaves it uninitialized otherwise: only an empty one).
    for dt in (f32, i32, tf.bool, tf.string):
        b.case("Empty_" + dt.name, lambda s, dt=dt: R.Empty(shape=s, dtype=dt, init=True),
               [([2, 3], i32)], exact=True)
    b.case("Empty_uninitialized_empty", lambda s: R.Empty(shape=s, dtype=f64),
           [([0, 3], i32)], exact=True)
    b.case("Empty_scalar", lambda s: R.Empty(shape=s, dtype=f32, init=True),
           [(np.zeros((0,)), i32)], exact=True)

    # -- ParallelConcat (TensorFlow's rewrite into _ParallelConcatStart/Update runs it).
    b.case("ParallelConcat", lambda a, c: R.ParallelConcat(values=[a, c], shape=[2, 3]),
           [(rng.uniform(-1, 1, size=(1, 3)), f32), (rng.uniform(-1, 1, size=(1, 3)), f32)],
           exact=True, grad=False)
    b.case("ParallelConcat_string",
           lambda a, c: R.ParallelConcat(values=[a, c], shape=[2, 1]),
           [([["a"]], tf.string), ([["bc"]], tf.string)], exact=True)
    b.case("ParallelConcat_empty_rows",
           lambda a, c: R.ParallelConcat(values=[a, c], shape=[2, 0]),
           [(np.zeros((1, 0)), f32), (np.zeros((1, 0)), f32)], exact=True, grad=False)
    b.case("parallel_stack", lambda a, c, d: tf.parallel_stack([a, c, d]),
           [([1, 2], i32), ([3, 4], i32), ([5, 6], i32)], exact=True)
    b.case("parallel_stack_f64", lambda a: tf.parallel_stack([a]),
           [(rng.uniform(-1, 1, size=(2, 2)), f64)], exact=True, grad=False)

    # -- AccumulateNV2 (computed as AddN; the gradient goes to every input).
    b.case("AccumulateNV2", lambda a, c, d: R.AccumulateNV2(inputs=[a, c, d], shape=[2, 3]),
           [(rng.uniform(-1, 1, size=(2, 3)), f32) for _ in range(3)])
    b.case("AccumulateNV2_one", lambda a: R.AccumulateNV2(inputs=[a], shape=[2, 3]),
           [(rng.uniform(-1, 1, size=(2, 3)), f64)])
    # A partly known shape attr is the static shape (the fixture weights need a full one).
    b.case("AccumulateNV2_partial_shape", lambda a, c: R.AccumulateNV2(inputs=[a, c],
                                                                        shape=[None, 3]),
           [(rng.uniform(-1, 1, size=(2, 3)), f32), (rng.uniform(-1, 1, size=(2, 3)), f32)],
           grad=False)
    b.case("AccumulateNV2_int32", lambda a, c: R.AccumulateNV2(inputs=[a, c], shape=[3]),
           [([1, 2, 3], i32), ([10, 20, 30], i32)], exact=True)
    b.case("AccumulateNV2_bf16", lambda a, c: R.AccumulateNV2(inputs=[a, c], shape=None),
           [(SMALL, bf16), (SMALL, bf16)], grad=False, tolerance=1e-2)

    # -- ConjugateTranspose (Transpose for real types; the gradient by the inverse perm).
    cube = rng.uniform(-1, 1, size=(2, 3, 4))
    b.case("ConjugateTranspose", lambda x: R.ConjugateTranspose(x=x, perm=[2, 0, 1]),
           [(cube, f32)])
    b.case("ConjugateTranspose_int64_perm",
           lambda x, p: R.ConjugateTranspose(x=x, perm=p), [(cube, f64), ([1, 2, 0], i64)])
    b.case("ConjugateTranspose_int32", lambda x: R.ConjugateTranspose(x=x, perm=[1, 0]),
           [([[1, 2, 3], [4, 5, 6]], i32)], exact=True)
    b.case("ConjugateTranspose_string", lambda x: R.ConjugateTranspose(x=x, perm=[1, 0]),
           [([["a", "b"]], tf.string)], exact=True)
    b.case("ConjugateTranspose_bool", lambda x: R.ConjugateTranspose(x=x, perm=[1, 0]),
           [([[True, False]], tf.bool)], exact=True)
    b.case("ConjugateTranspose_scalar", lambda x, p: R.ConjugateTranspose(x=x, perm=p),
           [(np.float32(2.5), f32), (np.zeros((0,)), i32)])
    b.case("ConjugateTranspose_empty", lambda x: R.ConjugateTranspose(x=x, perm=[1, 0]),
           [(np.zeros((0, 3)), f32)])

    # -- GuaranteeConst (no gradient in TensorFlow), CheckNumericsV2 (its gradient checks).
    b.case("GuaranteeConst", lambda x: R.GuaranteeConst(input=x), [(SMALL, f32)], grad=False)
    b.case("GuaranteeConst_string", lambda x: R.GuaranteeConst(input=x), [(["p", "q"], tf.string)],
           exact=True)
    b.case("CheckNumericsV2", lambda x: R.CheckNumericsV2(tensor=x, message="finite"),
           [(SMALL, f32)])
    b.case("CheckNumericsV2_f64", lambda x: R.CheckNumericsV2(tensor=x, message="m") * 2.0,
           [(SMALL, f64)])
    b.case("CheckNumericsV2_bf16", lambda x: R.CheckNumericsV2(tensor=x, message="m"),
           [(SMALL, bf16)], grad=False, tolerance=1e-2)

    # -- BiasAddV1 (NHWC BiasAdd; the bias gradient sums over all but the last dimension).
    b.case("BiasAddV1", lambda v, c: R.BiasAddV1(value=v, bias=c),
           [(rng.uniform(-1, 1, size=(3, 4)), f32), (rng.uniform(-1, 1, size=(4,)), f32)])
    b.case("BiasAddV1_4d", lambda v, c: R.BiasAddV1(value=v, bias=c),
           [(rng.uniform(-1, 1, size=(2, 3, 2, 5)), f64), (rng.uniform(-1, 1, size=(5,)), f64)])
    b.case("BiasAddV1_int32", lambda v, c: R.BiasAddV1(value=v, bias=c),
           [([[1, 2], [3, 4]], i32), ([10, 20], i32)], exact=True)
    b.case("BiasAddV1_bf16", lambda v, c: R.BiasAddV1(value=v, bias=c),
           [(SMALL, bf16), ([0.5, -1.0, 2.0, 0.25], bf16)], grad=False, tolerance=1e-2)
    b.case("BiasAddV1_empty", lambda v, c: R.BiasAddV1(value=v, bias=c),
           [(np.zeros((0, 2)), f32), ([1.0, 2.0], f32)])

    # -- SparseMatMul: every transpose, the sparsity hints, bfloat16 factors (gradients by
    # MatMul or SparseMatMul and a Cast, as math_grad.py chooses), a ReluGrad gradient.
    sparse_a = rng.uniform(-1, 1, size=(3, 4)) * (rng.uniform(size=(3, 4)) > 0.5)
    dense_b = rng.uniform(-1, 1, size=(4, 2))
    for ta in (False, True):
        for tb in (False, True):
            a = sparse_a.T if ta else sparse_a
            bm = dense_b.T if tb else dense_b
            b.case("SparseMatMul_%d%d" % (ta, tb),
                   lambda x, y, ta=ta, tb=tb: R.SparseMatMul(a=x, b=y, transpose_a=ta,
                                                             transpose_b=tb),
                   [(a, f32), (bm, f32)], tolerance=1e-5)
            b.case("SparseMatMul_hints_%d%d" % (ta, tb),
                   lambda x, y, ta=ta, tb=tb: R.SparseMatMul(a=x, b=y, transpose_a=ta,
                                                             transpose_b=tb, a_is_sparse=True,
                                                             b_is_sparse=tb),
                   [(a, f32), (bm, f32)], tolerance=1e-5)
    b.case("SparseMatMul_bf16_f32", lambda x, y: R.SparseMatMul(a=x, b=y, a_is_sparse=True),
           [(sparse_a, bf16), (dense_b, f32)], tolerance=1e-2, atol=1e-2)
    b.case("SparseMatMul_f32_bf16", lambda x, y: R.SparseMatMul(a=x, b=y, transpose_b=True),
           [(sparse_a, f32), (dense_b.T, bf16)], tolerance=1e-2, atol=1e-2)
    b.case("SparseMatMul_bf16_bf16",
           lambda x, y: R.SparseMatMul(a=x, b=y, a_is_sparse=True, b_is_sparse=True),
           [(sparse_a, bf16), (dense_b, bf16)], tolerance=1e-2, atol=1e-2)
    b.case("SparseMatMul_relu_chain",
           lambda x, y, z: R.SparseMatMul(a=tf.nn.relu(R.SparseMatMul(a=x, b=y)), b=z,
                                          a_is_sparse=True),
           [(rng.uniform(-1, 1, size=(3, 4)), f32), (dense_b, f32),
            (rng.uniform(-1, 1, size=(2, 3)), f32)], tolerance=1e-5)
    b.case("SparseMatMul_empty_inner", lambda x, y: R.SparseMatMul(a=x, b=y),
           [(np.zeros((2, 0)), f32), (np.zeros((0, 3)), f32)])
    b.case("SparseMatMul_empty_rows", lambda x, y: R.SparseMatMul(a=x, b=y, b_is_sparse=True),
           [(np.zeros((0, 4)), f32), (dense_b, f32)])

    # -- MaxPoolV2 and its gradients (distinct values: no ties in a window).
    image = rng.permutation(2 * 5 * 5 * 3).reshape(2, 5, 5, 3) / 10.0 - 3.0
    for padding in ("VALID", "SAME"):
        b.case("MaxPoolV2_" + padding,
               lambda x, padding=padding: R.MaxPoolV2(input=x, ksize=[1, 2, 2, 1],
                                                      strides=[1, 2, 2, 1], padding=padding),
               [(image, f32)])
        b.case("MaxPoolV2_3x3_" + padding,
               lambda x, padding=padding: R.MaxPoolV2(input=x, ksize=[1, 3, 3, 1],
                                                      strides=[1, 1, 2, 1], padding=padding),
               [(image, f64)])
    b.case("MaxPoolV2_tensor_ksize",
           lambda x, k, s: R.MaxPoolV2(input=x, ksize=k + 0, strides=s + 0, padding="SAME"),
           [(image, f32), ([1, 2, 3, 1], i32), ([1, 2, 1, 1], i32)])
    b.case("MaxPoolV2_window_past_input",
           lambda x: R.MaxPoolV2(input=x, ksize=[1, 1, 1, 1], strides=[1, 3, 3, 1],
                                 padding="VALID"), [(image, f32)])
    b.case("MaxPoolV2_empty", lambda x: R.MaxPoolV2(input=x, ksize=[1, 2, 2, 1],
                                                    strides=[1, 2, 2, 1], padding="SAME"),
           [(np.zeros((0, 4, 4, 1)), f32)])

    def grad_v2(x, gr, padding="VALID"):
        y = R.MaxPoolV2(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding=padding)
        return R.MaxPoolGradV2(orig_input=x, orig_output=y, grad=gr, ksize=[1, 2, 2, 1],
                               strides=[1, 2, 2, 1], padding=padding)

    b.case("MaxPoolGradV2", lambda x, gr: grad_v2(x, gr),
           [(image, f32), (rng.uniform(-1, 1, size=(2, 2, 2, 3)), f32)])
    b.case("MaxPoolGradV2_SAME", lambda x, gr: grad_v2(x, gr, "SAME"),
           [(image, f64), (rng.uniform(-1, 1, size=(2, 3, 3, 3)), f64)])

    def grad_grad_v2(x, gg, padding="VALID"):
        y = R.MaxPoolV2(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding=padding)
        return R.MaxPoolGradGradV2(orig_input=x, orig_output=y, grad=gg, ksize=[1, 2, 2, 1],
                                   strides=[1, 2, 2, 1], padding=padding)

    b.case("MaxPoolGradGradV2", lambda x, gg: grad_grad_v2(x, gg),
           [(image, f32), (rng.uniform(-1, 1, size=image.shape), f32)], grad=False)
    b.case("MaxPoolGradGradV2_SAME", lambda x, gg: grad_grad_v2(x, gg, "SAME"),
           [(image, f64), (rng.uniform(-1, 1, size=image.shape), f64)], grad=False)
    b.case("MaxPoolGradGradV2_int32",
           lambda x, y, gg: R.MaxPoolGradGradV2(orig_input=x, orig_output=y, grad=gg,
                                                ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                                padding="VALID"),
           [(np.arange(16).reshape(1, 4, 4, 1), i32), ([[[[5], [7]], [[13], [15]]]], i32),
            (np.arange(16).reshape(1, 4, 4, 1) * 10, i32)], exact=True)


SMALL = np.array([[-0.9, -0.7, -0.45, -0.2], [-0.05, 0.1, 0.3, 0.55], [0.7, 0.8, 0.85, 0.95]])
