"""Fixture cases of the space_batch family for make_op_fixtures.py: SpaceToBatchND,
BatchToSpaceND, the legacy 4-D SpaceToBatch and BatchToSpace, SpaceToDepth and DepthToSpace,
each gradient TensorFlow's Python registers (the opposite op), and what builds them around a
convolution: tf.nn.depthwise_conv2d with dilations, tf.nn.atrous_conv2d and
tf.nn.convolution with a dilation rate (all SpaceToBatchND -> Conv2D or
DepthwiseConv2dNative of dilation 1 -> BatchToSpaceND in TensorFlow 2.21's graph)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _wide(y):
    """uint8 results as int32 (the fixture's encoding has no uint8)."""
    return tf.cast(y, tf.int32)


def build_space_batch(b):
    f32, f64, i32, i64, bf16, u8, bl, st = (tf.float32, tf.float64, tf.int32, tf.int64,
                                            tf.bfloat16, tf.uint8, tf.bool, tf.string)
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    ints = lambda *shape: np.arange(np.prod(shape), dtype=np.int64).reshape(shape)  # noqa: E731
    s2b, b2s = tf.space_to_batch_nd, tf.batch_to_space

    # SpaceToBatchND: one and two block dimensions, paddings on either side, remaining
    # dimensions after the blocks (rank 3 and 4 with depth, rank 5 with two remaining), a
    # block of 1 (folded into the batch by the kernel), three block dimensions, int64
    # block_shape and paddings, an empty batch, float64 and int32 exactly.
    b.case("SpaceToBatchND_1d", lambda x: s2b(x, [2], [[1, 1]]), [(u(2, 4, 3), f32)])
    b.case("SpaceToBatchND_2x2", lambda x: s2b(x, [2, 2], [[0, 0], [0, 0]]),
           [(u(2, 4, 6, 3), f32)])
    b.case("SpaceToBatchND_2x3_padded", lambda x: s2b(x, [2, 3], [[1, 0], [2, 1]]),
           [(u(2, 5, 6, 2), f32)])
    b.case("SpaceToBatchND_3x2_rank3", lambda x: s2b(x, [3, 2], [[0, 1], [1, 1]]),
           [(u(3, 5, 4), f32)])
    b.case("SpaceToBatchND_remaining2", lambda x: s2b(x, [2], [[1, 0]]),
           [(u(2, 3, 2, 3), f32)])
    b.case("SpaceToBatchND_block1_prefix", lambda x: s2b(x, [1, 2], [[0, 0], [0, 2]]),
           [(u(2, 3, 4, 2), f32)])
    b.case("SpaceToBatchND_block1_suffix", lambda x: s2b(x, [2, 1], [[1, 1], [0, 0]]),
           [(u(2, 4, 3, 2), f32)])
    b.case("SpaceToBatchND_identity", lambda x: s2b(x, [1, 1], [[0, 0], [0, 0]]),
           [(u(2, 3, 4, 2), f32)])
    b.case("SpaceToBatchND_3d", lambda x: s2b(x, [2, 2, 2], [[0, 0], [1, 1], [0, 2]]),
           [(u(1, 4, 2, 2, 3), f32)])
    b.case("SpaceToBatchND_int64",
           lambda x, bs, p: s2b(x, bs, p),
           [(u(2, 4, 6, 3), f32), ([2, 3], i64), ([[1, 1], [0, 0]], i64)])
    b.case("SpaceToBatchND_int64_paddings",
           lambda x, p: s2b(x, [2, 2], p), [(u(1, 3, 3, 2), f32), ([[0, 1], [1, 0]], i64)])
    b.case("SpaceToBatchND_empty_batch", lambda x: s2b(x, [2, 2], [[0, 0], [1, 1]]),
           [(np.zeros((0, 4, 2, 3)), f32)])
    b.case("SpaceToBatchND_f64", lambda x: s2b(x, [2, 2], [[1, 1], [0, 2]]),
           [(u(2, 4, 4, 3), f64)], exact=True)
    b.case("SpaceToBatchND_int32", lambda x: s2b(x, [2, 3], [[0, 2], [1, 2]]),
           [(ints(2, 4, 3, 2), i32)], exact=True)
    b.case("SpaceToBatchND_int64_values", lambda x: s2b(x, [2], [[1, 1]]),
           [(ints(1, 4, 3), i64)], exact=True)
    b.case("SpaceToBatchND_uint8", lambda x: _wide(s2b(x, [2, 2], [[0, 0], [0, 0]])),
           [(ints(1, 2, 4, 1) + 200, u8)], exact=True)
    b.case("SpaceToBatchND_bf16", lambda x: s2b(x, [2, 2], [[0, 0], [1, 1]]),
           [(u(1, 2, 2, 3), bf16)], exact=True, grad=False)
    # Shapes known only when the step runs (placeholder_with_default of an unknown shape; the
    # Reshape gives the weighted sum of the gradient a static shape).
    b.case("SpaceToBatchND_unknown_shape",
           lambda x: tf.reshape(s2b(tf1.placeholder_with_default(x, [None, None, None, 2]),
                                    [2, 2], [[1, 1], [0, 0]]), [8, 3, 3, 2]),
           [(u(2, 4, 6, 2), f32)])

    # BatchToSpaceND: the inverses of the shapes above, crops on either side, int64 block_shape
    # and crops, an empty batch, float64 and int32 exactly.
    b.case("BatchToSpaceND_1d", lambda x: b2s(x, [2], [[1, 1]]), [(u(4, 3, 3), f32)])
    b.case("BatchToSpaceND_2x2", lambda x: b2s(x, [2, 2], [[0, 0], [0, 0]]),
           [(u(8, 2, 3, 3), f32)])
    b.case("BatchToSpaceND_2x3_cropped", lambda x: b2s(x, [2, 3], [[1, 0], [2, 1]]),
           [(u(12, 3, 3, 2), f32)])
    b.case("BatchToSpaceND_3x2_rank3", lambda x: b2s(x, [3, 2], [[0, 1], [1, 1]]),
           [(u(6, 2, 3), f32)])
    b.case("BatchToSpaceND_remaining2", lambda x: b2s(x, [2], [[1, 0]]),
           [(u(4, 2, 2, 3), f32)])
    b.case("BatchToSpaceND_block1_prefix", lambda x: b2s(x, [1, 2], [[0, 0], [1, 1]]),
           [(u(4, 3, 3, 2), f32)])
    b.case("BatchToSpaceND_3d", lambda x: b2s(x, [2, 2, 2], [[0, 0], [1, 1], [0, 2]]),
           [(u(8, 2, 2, 2, 3), f32)])
    b.case("BatchToSpaceND_int64",
           lambda x, bs, c: b2s(x, bs, c),
           [(u(12, 3, 2, 3), f32), ([2, 3], i64), ([[1, 1], [0, 2]], i64)])
    b.case("BatchToSpaceND_empty_batch", lambda x: b2s(x, [2, 2], [[0, 0], [1, 1]]),
           [(np.zeros((0, 2, 2, 3)), f32)])
    b.case("BatchToSpaceND_f64", lambda x: b2s(x, [2, 2], [[1, 1], [0, 2]]),
           [(u(8, 3, 3, 3), f64)], exact=True)
    b.case("BatchToSpaceND_int32", lambda x: b2s(x, [2, 3], [[0, 1], [2, 1]]),
           [(ints(6, 2, 3, 2), i32)], exact=True)
    b.case("BatchToSpaceND_unknown_shape",
           lambda x: tf.reshape(b2s(tf1.placeholder_with_default(x, None), [2, 2],
                                    [[1, 0], [0, 1]]), [2, 3, 5, 2]),
           [(u(8, 2, 3, 2), f32)])

    # The legacy 4-D ops (raw: tf.compat.v1.space_to_batch builds SpaceToBatchND); their
    # gradients are Python's BatchToSpaceND / SpaceToBatchND of an int64 block_shape.
    b.case("SpaceToBatch", lambda x: R.SpaceToBatch(input=x, paddings=[[1, 1], [0, 2]],
                                                    block_size=2),
           [(u(2, 4, 4, 3), f32)])
    b.case("SpaceToBatch_block3_int64",
           lambda x, p: R.SpaceToBatch(input=x, paddings=p, block_size=3),
           [(u(1, 4, 5, 2), f32), ([[1, 1], [0, 1]], i64)])
    b.case("SpaceToBatch_f64", lambda x: R.SpaceToBatch(input=x, paddings=[[0, 0], [0, 0]],
                                                        block_size=2),
           [(u(1, 4, 2, 2), f64)], exact=True)
    b.case("BatchToSpace", lambda x: R.BatchToSpace(input=x, crops=[[1, 1], [0, 2]],
                                                    block_size=2),
           [(u(8, 3, 3, 3), f32)])
    b.case("BatchToSpace_block3_int64",
           lambda x, c: R.BatchToSpace(input=x, crops=c, block_size=3),
           [(u(9, 2, 2, 2), f32), ([[1, 1], [0, 2]], i64)])
    b.case("BatchToSpace_int32", lambda x: R.BatchToSpace(input=x, crops=[[0, 1], [1, 0]],
                                                          block_size=2),
           [(ints(4, 2, 2, 1), i32)], exact=True)

    # SpaceToDepth and DepthToSpace (NHWC; TensorFlow's CPU kernels take nothing else):
    # block sizes 2 and 3, depth 1 and more, an empty batch, float64, int32, bool and string
    # exactly.
    s2d, d2s = tf.nn.space_to_depth, tf.nn.depth_to_space
    b.case("SpaceToDepth", lambda x: s2d(x, 2), [(u(2, 4, 6, 3), f32)])
    b.case("SpaceToDepth_block3", lambda x: s2d(x, 3), [(u(1, 6, 3, 2), f32)])
    b.case("SpaceToDepth_depth1", lambda x: s2d(x, 2), [(u(1, 4, 4, 1), f32)])
    b.case("SpaceToDepth_empty", lambda x: s2d(x, 2), [(np.zeros((0, 2, 4, 3)), f32)])
    b.case("SpaceToDepth_f64", lambda x: s2d(x, 2), [(u(2, 2, 4, 2), f64)], exact=True)
    b.case("SpaceToDepth_int32", lambda x: s2d(x, 2), [(ints(1, 4, 2, 3), i32)], exact=True)
    b.case("SpaceToDepth_bool", lambda x: s2d(x, 2),
           [(ints(1, 2, 4, 1) % 3 == 0, bl)], exact=True)
    b.case("SpaceToDepth_string", lambda x: s2d(x, 2),
           [(np.array([str(v) for v in range(8)], dtype=object).reshape(1, 2, 2, 2), st)],
           exact=True)
    b.case("DepthToSpace", lambda x: d2s(x, 2), [(u(2, 2, 3, 12), f32)])
    b.case("DepthToSpace_block3", lambda x: d2s(x, 3), [(u(1, 2, 1, 18), f32)])
    b.case("DepthToSpace_depth4", lambda x: d2s(x, 2), [(u(1, 3, 2, 4), f32)])
    b.case("DepthToSpace_empty", lambda x: d2s(x, 2), [(np.zeros((0, 2, 2, 8)), f32)])
    b.case("DepthToSpace_f64", lambda x: d2s(x, 2), [(u(1, 2, 2, 8), f64)], exact=True)
    b.case("DepthToSpace_int64", lambda x: d2s(x, 2), [(ints(1, 2, 3, 8), i64)], exact=True)
    b.case("DepthToSpace_string", lambda x: d2s(x, 2),
           [(np.array([str(v) for v in range(8)], dtype=object).reshape(1, 1, 2, 4), st)],
           exact=True)

    # A round trip: SpaceToDepth of DepthToSpace is the input (gradients through both).
    b.case("DepthToSpace_SpaceToDepth", lambda x: s2d(d2s(x, 2), 2), [(u(1, 2, 2, 8), f32)])
    b.case("SpaceToBatchND_BatchToSpaceND",
           lambda x: b2s(s2b(x, [2, 2], [[1, 1], [0, 2]]), [2, 2], [[1, 1], [0, 2]]),
           [(u(2, 4, 4, 3), f32)])

    # What builds them: dilated depthwise and ordinary convolutions. TensorFlow builds
    # SpaceToBatchND -> DepthwiseConv2dNative / Conv2D (dilation 1, VALID) -> BatchToSpaceND
    # for each; actorflow's Conv2D kernel refuses dilations, as TensorFlow's CPU kernel does,
    # and never sees them here.
    x = u(2, 5, 6, 3)
    w_dw = u(3, 2, 3, 2)
    w_conv = u(3, 2, 3, 4)
    b.case("depthwise_conv2d_dilation2_same",
           lambda a, f: tf.nn.depthwise_conv2d(a, f, [1, 1, 1, 1], "SAME", dilations=[2, 2]),
           [(x, f32), (w_dw, f32)], tolerance=1e-5, atol=1e-5)
    b.case("depthwise_conv2d_dilation2_valid",
           lambda a, f: tf.nn.depthwise_conv2d(a, f, [1, 1, 1, 1], "VALID", dilations=[2, 1]),
           [(x, f32), (w_dw, f32)], tolerance=1e-5, atol=1e-5)
    b.case("atrous_conv2d_valid", lambda a, f: tf.nn.atrous_conv2d(a, f, 2, "VALID"),
           [(x, f32), (w_conv, f32)], tolerance=1e-5, atol=1e-5)
    b.case("atrous_conv2d_same", lambda a, f: tf.nn.atrous_conv2d(a, f, 2, "SAME"),
           [(x, f32), (w_conv, f32)], tolerance=1e-5, atol=1e-5)
    b.case("convolution_dilation2_same",
           lambda a, f: tf1.nn.convolution(a, f, "SAME", dilation_rate=[2, 2]),
           [(x, f32), (w_conv, f32)], tolerance=1e-5, atol=1e-5)
    b.case("convolution_dilation2_valid",
           lambda a, f: tf1.nn.convolution(a, f, "VALID", dilation_rate=[2, 2]),
           [(x, f32), (w_conv, f32)], tolerance=1e-5, atol=1e-5)
    b.case("convolution_dilation3x2_same",
           lambda a, f: tf1.nn.convolution(a, f, "SAME", dilation_rate=[3, 2]),
           [(u(1, 7, 5, 3), f32), (w_conv, f32)], tolerance=1e-5, atol=1e-5)
