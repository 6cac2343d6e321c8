"""Fixture cases of the conv3d family for make_op_fixtures.py: Conv3D (SAME and VALID, strides,
channel counts, a 1x1x1 filter, a filter wider than the input, an empty batch, float64),
Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (run straight, int32 and int64 sizes, and
differentiated), MaxPool3D and AvgPool3D (SAME and VALID, strides, overlapping windows, a
window wider than the input), MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad, and the
gradient TensorFlow's nn_grad.py registers for each (ShapeN -> the two V2 backprops for
Conv3D; MaxPool3DGrad; AvgPool3DGrad; MaxPool3DGradGrad; zeros, StopGradient and AvgPool3D
for the gradient ops). TensorFlow's CPU pooling kernels are float32 only; Conv3D and its
backprops also take float64."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def build_conv3d(b):
    f32, f64, i32, i64 = tf.float32, tf.float64, tf.int32, tf.int64
    add_case = b.case

    def case(name, fn, inputs, **kw):
        # float32 sums of products: TensorFlow's Eigen contraction adds in another order,
        # so values near zero can differ by a few ulps of the terms.
        if any(d == f32 for _, d in inputs):
            kw.setdefault("atol", 2e-6)
        add_case(name, fn, inputs, **kw)
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    one = [1, 1, 1, 1, 1]

    def conv(strides, padding):
        return lambda x, w: tf.nn.conv3d(x, w, strides, padding)

    # Conv3D: each padding with and without strides, channel counts from 1 to 5, a 1x1x1
    # filter (one product per position), a filter wider than the input (SAME pads it all
    # round), an empty batch, float64.
    case("Conv3D_same", conv(one, "SAME"), [(u(2, 4, 5, 3, 3), f32), (u(2, 3, 2, 3, 4), f32)])
    case("Conv3D_valid", conv(one, "VALID"), [(u(1, 5, 6, 4, 2), f32), (u(3, 2, 3, 2, 3), f32)])
    case("Conv3D_strides_same", conv([1, 2, 1, 3, 1], "SAME"),
           [(u(2, 5, 4, 7, 2), f32), (u(3, 2, 2, 2, 3), f32)])
    case("Conv3D_strides_valid", conv([1, 2, 2, 1, 1], "VALID"),
           [(u(1, 6, 5, 4, 3), f32), (u(2, 3, 2, 3, 2), f32)])
    case("Conv3D_channels_5_to_1", conv(one, "SAME"),
           [(u(1, 3, 3, 3, 5), f32), (u(2, 2, 2, 5, 1), f32)])
    case("Conv3D_channels_1_to_6", conv([1, 1, 2, 2, 1], "VALID"),
           [(u(2, 3, 4, 5, 1), f32), (u(2, 2, 2, 1, 6), f32)])
    case("Conv3D_1x1x1", conv(one, "VALID"), [(u(2, 3, 2, 4, 3), f32), (u(1, 1, 1, 3, 4), f32)])
    case("Conv3D_1x1x1_strided", conv([1, 2, 2, 2, 1], "SAME"),
           [(u(1, 3, 4, 5, 2), f32), (u(1, 1, 1, 2, 3), f32)])
    case("Conv3D_filter_wider_than_input", conv(one, "SAME"),
           [(u(1, 2, 3, 2, 2), f32), (u(3, 4, 3, 2, 2), f32)])
    case("Conv3D_whole_volume", conv(one, "VALID"),
           [(u(3, 2, 3, 2, 2), f32), (u(2, 3, 2, 2, 4), f32)])
    case("Conv3D_empty_batch", conv(one, "SAME"),
           [(np.zeros((0, 3, 3, 3, 2)), f32), (u(2, 2, 2, 2, 3), f32)])
    case("Conv3D_f64", conv([1, 1, 2, 1, 1], "SAME"),
           [(u(2, 4, 5, 3, 2), f64), (u(3, 2, 2, 2, 3), f64)])
    case("Conv3D_f64_valid", conv([1, 2, 1, 2, 1], "VALID"),
           [(u(1, 5, 4, 6, 3), f64), (u(2, 2, 3, 3, 2), f64)])

    # The backprop ops run straight (as Conv3D's gradient builds them), int32 and int64
    # input_sizes, strides that leave input out (VALID), float64; then differentiated (each
    # one's gradient is the other backprop and a Conv3D).
    def bp_input(sizes, strides, padding, tshape=i32):
        return lambda w, dy: R.Conv3DBackpropInputV2(
            input_sizes=tf.constant(sizes, tshape), filter=w, out_backprop=dy, strides=strides,
            padding=padding)

    def bp_filter(sizes, strides, padding):
        return lambda x, dy: R.Conv3DBackpropFilterV2(
            input=x, filter_sizes=tf.constant(sizes, i32), out_backprop=dy, strides=strides,
            padding=padding)

    case("Conv3DBackpropInputV2_same", bp_input([2, 4, 5, 3, 3], one, "SAME"),
           [(u(2, 3, 2, 3, 4), f32), (u(2, 4, 5, 3, 4), f32)], grad=False)
    case("Conv3DBackpropInputV2_strides_valid", bp_input([1, 6, 5, 4, 3], [1, 2, 2, 1, 1],
                                                           "VALID"),
           [(u(2, 3, 2, 3, 2), f32), (u(1, 3, 2, 3, 2), f32)], grad=False)
    case("Conv3DBackpropInputV2_int64_sizes", bp_input([1, 5, 4, 7, 2], [1, 2, 1, 3, 1],
                                                         "SAME", i64),
           [(u(3, 2, 2, 2, 3), f32), (u(1, 3, 4, 3, 3), f32)], grad=False)
    case("Conv3DBackpropInputV2_f64", bp_input([1, 4, 3, 5, 2], one, "VALID"),
           [(u(2, 2, 3, 2, 3), f64), (u(1, 3, 2, 3, 3), f64)], grad=False)
    case("Conv3DBackpropInputV2_grad", bp_input([1, 4, 4, 3, 2], [1, 2, 1, 1, 1], "SAME"),
           [(u(3, 2, 2, 2, 3), f32), (u(1, 2, 4, 3, 3), f32)])
    case("Conv3DBackpropFilterV2_same", bp_filter([2, 3, 2, 3, 4], one, "SAME"),
           [(u(2, 4, 5, 3, 3), f32), (u(2, 4, 5, 3, 4), f32)], grad=False)
    case("Conv3DBackpropFilterV2_strides_valid", bp_filter([2, 3, 2, 3, 2], [1, 2, 2, 1, 1],
                                                             "VALID"),
           [(u(1, 6, 5, 4, 3), f32), (u(1, 3, 2, 3, 2), f32)], grad=False)
    case("Conv3DBackpropFilterV2_f64", bp_filter([2, 2, 3, 2, 3], one, "VALID"),
           [(u(2, 4, 3, 5, 2), f64), (u(2, 3, 2, 3, 3), f64)], grad=False)
    case("Conv3DBackpropFilterV2_empty_batch", bp_filter([2, 2, 2, 2, 3], one, "SAME"),
           [(np.zeros((0, 3, 3, 3, 2)), f32), (np.zeros((0, 3, 3, 3, 3)), f32)], grad=False)
    case("Conv3DBackpropFilterV2_grad", bp_filter([2, 3, 2, 2, 3], [1, 1, 2, 1, 1], "VALID"),
           [(u(2, 4, 5, 3, 2), f32), (u(2, 3, 2, 2, 3), f32)])

    # MaxPool3D and AvgPool3D: disjoint windows (SAME, cut at the edges), VALID with a window
    # of unequal sides, overlapping windows, a window wider than the input (SAME; TensorFlow's
    # AvgPool3DGrad then spreads the edge windows over more elements than the forward op
    # averaged), single-plane input.
    pools = {"MaxPool3D": tf.nn.max_pool3d, "AvgPool3D": tf.nn.avg_pool3d}
    for op, pool in pools.items():
        def p(ksize, strides, padding, pool=pool):
            return lambda x: pool(x, ksize, strides, padding)
        case(op + "_same_disjoint", p([1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
               [(u(2, 4, 5, 3, 3), f32)])
        case(op + "_valid", p([1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "VALID"),
               [(u(1, 5, 6, 4, 2), f32)])
        case(op + "_same_overlapping", p([1, 3, 3, 3, 1], [1, 1, 2, 1, 1], "SAME"),
               [(u(2, 4, 3, 5, 2), f32)])
        case(op + "_window_wider_than_input", p([1, 5, 1, 3, 1], one, "SAME"),
               [(u(1, 4, 3, 2, 2), f32)])
        case(op + "_one_plane", p([1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "VALID"),
               [(u(2, 1, 4, 4, 3), f32)])
        case(op + "_empty_batch", p([1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
               [(np.zeros((0, 4, 4, 4, 2)), f32)])

    # The pooling gradient ops run straight and differentiated (their gradients:
    # MaxPool3DGradGrad, AvgPool3D, MaxPool3DGrad).
    def max_grad(ksize, strides, padding):
        def fn(x, g):
            y = tf.nn.max_pool3d(x, ksize, strides, padding)
            return R.MaxPool3DGrad(orig_input=x, orig_output=y, grad=g, ksize=ksize,
                                   strides=strides, padding=padding)
        return fn

    def max_grad_grad(ksize, strides, padding):
        def fn(x, g):
            y = tf.nn.max_pool3d(x, ksize, strides, padding)
            return R.MaxPool3DGradGrad(orig_input=x, orig_output=y, grad=g, ksize=ksize,
                                       strides=strides, padding=padding)
        return fn

    def avg_grad(shape, ksize, strides, padding):
        return lambda g: R.AvgPool3DGrad(orig_input_shape=tf.constant(shape, i32), grad=g,
                                         ksize=ksize, strides=strides, padding=padding)

    case("MaxPool3DGrad_same", max_grad([1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
           [(u(2, 4, 5, 3, 2), f32), (u(2, 2, 3, 2, 2), f32)])
    case("MaxPool3DGrad_overlapping", max_grad([1, 3, 2, 3, 1], [1, 1, 1, 2, 1], "VALID"),
           [(u(1, 4, 4, 5, 2), f32), (u(1, 2, 3, 2, 2), f32)])
    case("MaxPool3DGradGrad_same", max_grad_grad([1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
           [(u(2, 4, 5, 3, 2), f32), (u(2, 4, 5, 3, 2), f32)])
    case("MaxPool3DGradGrad_overlapping",
           max_grad_grad([1, 3, 2, 3, 1], [1, 1, 1, 2, 1], "VALID"),
           [(u(1, 4, 4, 5, 2), f32), (u(1, 4, 4, 5, 2), f32)])
    case("AvgPool3DGrad_same", avg_grad([2, 4, 5, 3, 2], [1, 2, 2, 2, 1], [1, 2, 2, 2, 1],
                                          "SAME"),
           [(u(2, 2, 3, 2, 2), f32)])
    case("AvgPool3DGrad_overlapping", avg_grad([1, 4, 4, 5, 2], [1, 3, 2, 3, 1],
                                                 [1, 1, 1, 2, 1], "VALID"),
           [(u(1, 2, 3, 2, 2), f32)])
    case("AvgPool3DGrad_window_wider_than_input",
           avg_grad([1, 4, 3, 2, 2], [1, 5, 1, 3, 1], one, "SAME"), [(u(1, 4, 3, 2, 2), f32)])

    # Second derivatives through tf.gradients: the gradient of a pooling's gradient.
    def second(pool, ksize, strides, padding):
        def fn(x):
            y = pool(x, ksize, strides, padding)
            return tf1.gradients(tf.reduce_sum(y * y), x)[0]
        return fn

    case("MaxPool3D_second_derivative",
           second(tf.nn.max_pool3d, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"),
           [(u(1, 3, 4, 3, 2), f32)])
    case("AvgPool3D_second_derivative",
           second(tf.nn.avg_pool3d, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"),
           [(u(1, 3, 4, 3, 2), f32)])
    case("Conv3D_second_derivative",
           lambda x, w: tf1.gradients(tf.reduce_sum(tf.square(tf.nn.conv3d(x, w, one, "SAME"))),
                                      [x, w]),
           [(u(1, 3, 3, 4, 2), f32), (u(2, 2, 2, 2, 2), f32)],
           # Products of products summed twice: values near zero differ by more ulps of the
           # terms (up to 40 here) with the CPU's GEMM kernels.
           atol=2e-5)
