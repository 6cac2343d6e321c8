"""Fixture cases of the scatter_nd_var family for make_op_fixtures.py: the stateless ops of
the family, ScatterNdNonAliasingAdd (the N-d scatter-add into a copy of a tensor, its gradient
_ScatterNdNonAliasingAddGrad: the gradient for the input, GatherNd of it for the updates) and
SparseSegment{Sum,Mean,SqrtN}WithNumSegments (their gradients SparseSegment*Grad of the data's
rows, as math_grad.py builds them without sparse_gradient). The variable updates
(ScatterNd{Update,Add,Sub,Max,Min}, ResourceScatterNd*) are stateful and are pinned by
tests/conformance/scatter_nd_variable_test.cpp with values from make_scatter_nd_values.py."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _wide(y):
    """uint8 results as int32 (the fixture's encoding has no uint8)."""
    return tf.cast(y, tf.int32)


def build_scatter_nd_var(b):
    f32, f64, i32, i64, bf16, u8, bl = (tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16,
                                        tf.uint8, tf.bool)
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    ints = lambda *shape: np.arange(np.prod(shape), dtype=np.int64).reshape(shape)  # noqa: E731
    na = lambda x, i, v, **kw: R.ScatterNdNonAliasingAdd(  # noqa: E731
        input=x, indices=i, updates=v, **kw)

    # ScatterNdNonAliasingAdd: elements (K = rank) with a duplicate, whole rows (K = 1) named
    # twice, a batch of index rows ([2, 2, 1]), K = 2 of a rank-3 input (slices of a matrix's
    # rows), int64 indices, float64 / int32 / int64 exactly, uint8 wrapping, bool (a logical
    # or), bfloat16, no updates at all, and bad_indices_policy IGNORE skipping rows out of
    # range.
    b.case("ScatterNdNonAliasingAdd_elements",
           lambda x, v: na(x, [[0, 1], [2, 0], [0, 1]], v), [(u(3, 2), f32), (u(3), f32)])
    b.case("ScatterNdNonAliasingAdd_rows",
           lambda x, v: na(x, [[1], [1], [3]], v), [(u(4, 3), f32), (u(3, 3), f32)])
    b.case("ScatterNdNonAliasingAdd_batch",
           lambda x, v: na(x, [[[0], [2]], [[2], [3]]], v), [(u(4, 3), f32), (u(2, 2, 3), f32)])
    b.case("ScatterNdNonAliasingAdd_k2_of_rank3",
           lambda x, v: na(x, [[1, 0], [0, 2], [1, 0]], v),
           [(u(2, 3, 4), f32), (u(3, 4), f32)])
    b.case("ScatterNdNonAliasingAdd_rank3_elements",
           lambda x, v: na(x, [[1, 2, 0], [0, 0, 1]], v), [(u(2, 3, 2), f32), (u(2), f32)])
    b.case("ScatterNdNonAliasingAdd_int64_indices",
           lambda x, i, v: na(x, i, v),
           [(u(3, 2), f32), ([[2], [0]], i64), (u(2, 2), f32)])
    b.case("ScatterNdNonAliasingAdd_f64", lambda x, v: na(x, [[1], [0], [1]], v),
           [(u(3, 2), f64), (u(3, 2), f64)], exact=True)
    b.case("ScatterNdNonAliasingAdd_int32", lambda x, v: na(x, [[0, 1], [0, 1]], v),
           [(ints(2, 3), i32), ([5, -7], i32)], exact=True)
    b.case("ScatterNdNonAliasingAdd_int64", lambda x, v: na(x, [[2], [0]], v),
           [(ints(3, 2), i64), (ints(2, 2) * 10, i64)], exact=True)
    b.case("ScatterNdNonAliasingAdd_uint8", lambda x, v: _wide(na(x, [[0], [2]], v)),
           [([250, 1, 2], u8), ([10, 3], u8)], exact=True)
    b.case("ScatterNdNonAliasingAdd_bool", lambda x, v: na(x, [[1], [2], [0]], v),
           [([True, False, False], bl), ([True, False, False], bl)], exact=True)
    b.case("ScatterNdNonAliasingAdd_bf16", lambda x, v: na(x, [[1], [1]], v),
           [(u(3, 2), bf16), (u(2, 2), bf16)], tolerance=1e-2, grad=False)
    b.case("ScatterNdNonAliasingAdd_no_updates",
           lambda x, i, v: na(x, i, v),
           [(u(3, 2), f32), (np.zeros((0, 1)), i32), (np.zeros((0, 2)), f32)])
    b.case("ScatterNdNonAliasingAdd_ignore_bad",
           lambda x, v: na(x, [[0], [7], [2], [-1]], v, bad_indices_policy="IGNORE"),
           [(u(3, 2), f32), (u(4, 2), f32)], grad=False)  # the gradient's GatherNd refuses them

    # SparseSegment*WithNumSegments: gaps and trailing rows no id names, a segment of 11
    # rows (TensorFlow's order of additions and its divide-after for 10 rows and more), a
    # segment of 9 (the first group of 9), rows named twice, rank-3 data, int64 indices /
    # segment ids / num_segments, float64 and int32 / int64 sums exactly, no indices at all
    # (zeros of num_segments rows), num_segments 0 with nothing.
    for kind, op in (("Sum", R.SparseSegmentSumWithNumSegments),
                     ("Mean", R.SparseSegmentMeanWithNumSegments),
                     ("SqrtN", R.SparseSegmentSqrtNWithNumSegments)):
        name = "SparseSegment%sWithNumSegments" % kind

        b.case(name + "_gaps",
               lambda d, op=op: op(data=d, indices=[0, 1, 3, 1], segment_ids=[1, 1, 3, 4],
                                   num_segments=7),
               [(u(5, 3), f32)])
        long_ids = [0] * 11 + [2] * 9 + [3]
        long_idx = [(k * 7) % 12 for k in range(21)]
        b.case(name + "_long_segments",
               lambda d, op=op: op(data=d, indices=long_idx, segment_ids=long_ids, num_segments=5),
               [(u(12, 2), f32)])
        b.case(name + "_rank3",
               lambda d, op=op: op(data=d, indices=[2, 0, 2], segment_ids=[0, 2, 2],
                                   num_segments=3),
               [(u(3, 2, 2), f32)])
        b.case(name + "_int64_ids",
               lambda d, i, s, n, op=op: op(data=d, indices=i, segment_ids=s, num_segments=n),
               [(u(4, 2), f32), ([3, 1, 0], i64), ([0, 0, 2], i64), (4, i64)])
        b.case(name + "_f64",
               lambda d, op=op: op(data=d, indices=[0, 2, 1], segment_ids=[0, 1, 1],
                                   num_segments=3),
               [(u(3, 4), f64)], exact=True)
        # No indices: forward only. TensorFlow's gradient kernel leaves its output
        # uninitialised when there is nothing to scatter (the values it returns are garbage).
        b.case(name + "_empty",
               lambda d, i, s, op=op: op(data=d, indices=i, segment_ids=s, num_segments=3),
               [(u(4, 2), f32), (np.zeros(0), i32), (np.zeros(0), i32)], grad=False)
        b.case(name + "_no_segments",
               lambda d, i, s, op=op: op(data=d, indices=i, segment_ids=s, num_segments=0),
               [(u(4, 2), f32), (np.zeros(0), i32), (np.zeros(0), i32)], grad=False)
    b.case("SparseSegmentSumWithNumSegments_int32",
           lambda d: R.SparseSegmentSumWithNumSegments(data=d, indices=[0, 2, 1, 1],
                                                       segment_ids=[0, 0, 1, 3], num_segments=5),
           [(ints(3, 2) - 2, i32)], exact=True)
    b.case("SparseSegmentSumWithNumSegments_int64",
           lambda d: R.SparseSegmentSumWithNumSegments(data=d, indices=[1, 1], segment_ids=[1, 1],
                                                       num_segments=2),
           [(ints(3, 2) * 1000000000, i64)], exact=True)
    # tf.sparse.segment_* with num_segments build the same ops.
    b.case("sparse_segment_mean_num_segments_api",
           lambda d: tf.sparse.segment_mean(d, [0, 1, 2], [0, 0, 2], num_segments=4),
           [(u(3, 2), f32)])
