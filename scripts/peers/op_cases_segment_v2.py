"""Fixture cases of the segment_v2 family for make_op_fixtures.py: the sparse gradient ops
SparseSegment{Sum,Mean,SqrtN}GradV2 on their own (the rows of the sorted unique indices and
those indices), and the gradients TensorFlow 2 builds with them: tf.sparse.segment_sum / mean /
sqrt_n with sparse_gradient=True (SparseSegment* and SparseSegment*WithNumSegments with the
attr; math_grad.py's _SparseSegmentReduceGradV2 gives IndexedSlices, which the fixture
compares dense), and tf.nn.embedding_lookup_sparse without weights on one table, which sets
the attr itself (embedding_ops.py's fast path: no Unique, no gather)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _rows(y, n):
    """`y` with its static row count set (a sparse segment reduction's output has `?` rows
    while building; the fixture weights its loss by the output's shape). No op is added."""
    y.set_shape([n] + y.shape.as_list()[1:])
    return y


def build_segment_v2(b):
    f32, f64, i32, i64 = tf.float32, tf.float64, tf.int32, tf.int64
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    grad_v2 = {"Sum": R.SparseSegmentSumGradV2, "Mean": R.SparseSegmentMeanGradV2,
               "SqrtN": R.SparseSegmentSqrtNGradV2}

    # The GradV2 ops straight: unsorted indices named twice within a segment and across
    # segments, a row of dense_output_dim0 no index names, segment ids out of order (the Grad
    # op does not need them sorted), a segment of 11 rows, rank-3 grad, int64 indices and
    # segment ids (output 1 int64), mixed index dtypes, float64, no indices at all and
    # dense_output_dim0 0 (empty outputs of grad's row shape).
    for kind, op in grad_v2.items():
        name = "SparseSegment%sGradV2" % kind
        v2 = lambda g, i, s, n, op=op: list(op(grad=g, indices=i, segment_ids=s,  # noqa: E731
                                               dense_output_dim0=n))
        exact = kind == "Sum"
        b.case(name + "_duplicates",
               lambda g, op=op: list(op(grad=g, indices=[4, 2, 4, 0, 2], segment_ids=[0, 0, 1, 1, 2],
                                        dense_output_dim0=6)),
               [(u(3, 4), f32)], exact=exact, grad=False)
        b.case(name + "_unsorted_segments",
               lambda g, op=op: list(op(grad=g, indices=[1, 3, 1, 0], segment_ids=[2, 0, 1, 0],
                                        dense_output_dim0=5)),
               [(u(3, 2), f32)], exact=exact, grad=False)
        long_ids = [0] * 11 + [1] * 3
        long_idx = [(k * 5) % 7 for k in range(14)]
        b.case(name + "_long_segment",
               lambda g, op=op: list(op(grad=g, indices=long_idx, segment_ids=long_ids,
                                        dense_output_dim0=7)),
               [(u(2, 3), f32)], exact=exact, grad=False)
        b.case(name + "_rank3",
               lambda g, op=op: list(op(grad=g, indices=[2, 0, 2], segment_ids=[0, 1, 1],
                                        dense_output_dim0=3)),
               [(u(2, 2, 3), f32)], exact=exact, grad=False)
        b.case(name + "_int64", v2,
               [(u(3, 2), f32), ([5, 1, 5, 2], i64), ([0, 1, 2, 2], i64), (6, i32)],
               exact=exact, grad=False)
        b.case(name + "_mixed_index_types", v2,
               [(u(3, 2), f32), ([3, 3, 0], i64), ([0, 1, 2], i32), (4, i32)],
               exact=exact, grad=False)
        b.case(name + "_f64", v2,
               [(u(2, 3), f64), ([1, 0, 1], i32), ([0, 0, 1], i32), (2, i32)],
               exact=True, grad=False)
        b.case(name + "_no_indices", v2,
               [(u(2, 3), f32), (np.zeros(0), i32), (np.zeros(0), i32), (4, i32)],
               exact=True, grad=False)
        b.case(name + "_dim0_zero", v2,
               [(u(2, 3), f32), ([0, 1], i64), ([0, 1], i32), (0, i32)],
               exact=True, grad=False)

    # tf.sparse.segment_*(..., sparse_gradient=True): the gradient is GradV2's IndexedSlices
    # with data's shape; rows named twice, rows no index names (zero in the dense gradient),
    # rank-3 data, int64 ids, float64, and the num_segments forms (WithNumSegments).
    apis = {"sum": tf.sparse.segment_sum, "mean": tf.sparse.segment_mean,
            "sqrt_n": tf.sparse.segment_sqrt_n}
    for kind, fn in apis.items():
        name = "sparse_segment_%s_sparse_gradient" % kind
        b.case(name,
               lambda d, fn=fn: _rows(fn(d, [3, 0, 3, 1], [0, 0, 1, 2], sparse_gradient=True), 3),
               [(u(5, 3), f32)])
        b.case(name + "_rank3",
               lambda d, fn=fn: _rows(fn(d, [2, 2, 0], [0, 1, 1], sparse_gradient=True), 2),
               [(u(4, 2, 2), f32)])
        b.case(name + "_int64",
               lambda d, i, s, fn=fn: _rows(fn(d, i, s, sparse_gradient=True), 3),
               [(u(4, 2), f32), ([1, 3, 1], i64), ([0, 2, 2], i64)])
        b.case(name + "_f64",
               lambda d, fn=fn: _rows(fn(d, [0, 2, 0], [0, 0, 1], sparse_gradient=True), 2),
               [(u(3, 4), f64)])
        b.case(name + "_long_segment",
               lambda d, fn=fn: _rows(fn(d, [(k * 3) % 5 for k in range(12)], [0] * 12,
                                         sparse_gradient=True), 1),
               [(u(5, 2), f32)])
        b.case(name + "_num_segments",
               lambda d, fn=fn: fn(d, [1, 4, 1], [0, 2, 2], num_segments=5, sparse_gradient=True),
               [(u(5, 3), f32)])

    # tf.nn.embedding_lookup_sparse without weights on one constant table: SparseSegment* of
    # the table by the ids (int64) and the rows' example ids, with sparse_gradient; the
    # gradient w.r.t. the table is GradV2's IndexedSlices. Examples: ids {1, 3, 3}, {} and
    # {9, 0}, and a batch whose last examples have no ids (the output stops at the last
    # example with ids: 2 rows of 4).
    sp = tf.SparseTensor(indices=[[0, 0], [0, 1], [0, 2], [2, 0], [2, 1]],
                         values=tf.constant([1, 3, 3, 9, 0], dtype=i64), dense_shape=[3, 3])
    sp_tail = tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1]],
                              values=tf.constant([4, 4, 2], dtype=i64), dense_shape=[4, 2])
    for combiner in ("mean", "sum", "sqrtn"):
        b.case("embedding_lookup_sparse_%s" % combiner,
               lambda t, c=combiner: _rows(tf.nn.embedding_lookup_sparse(t, sp, None, combiner=c), 3),
               [(u(10, 4), f32)])
        b.case("embedding_lookup_sparse_%s_tail" % combiner,
               lambda t, c=combiner: _rows(
                   tf.nn.embedding_lookup_sparse(t, sp_tail, None, combiner=c), 2),
               [(u(6, 3), f32)])
    b.case("embedding_lookup_sparse_mean_f64",
           lambda t: _rows(tf.nn.embedding_lookup_sparse(t, sp, None, combiner="mean"), 3),
           [(u(10, 2), f64)])
