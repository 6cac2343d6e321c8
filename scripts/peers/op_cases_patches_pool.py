"""Fixture cases of the patches_pool family for make_op_fixtures.py: ExtractImagePatches (SAME
and VALID, strides, rates, batch and channels above 1, a window larger than the input, the
other real dtypes), ExtractVolumePatches (SAME with a negative padding, VALID, strides),
Dilation2D with its two backprop ops, MaxPoolWithArgmax (int64 and int32 argmax,
include_batch_in_index), MaxPoolGradWithArgmax, MaxPoolGradGrad, and the gradients
TensorFlow registers (array_grad.py's index-patch scatters, _Dilation2DGrad,
_MaxPoolGradWithArgmax, _MaxPoolGradGrad, _MaxPoolGradGradGrad, _AvgPoolGradGrad). Pooled
and dilated inputs are distinct random values, so no window has a tie."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def build_patches_pool(b):
    # (The fixture format has no uint8; the C++ tests cover it.)
    f32, f64, i32, i64, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16
    case = b.case

    def u(*shape):
        return b.rng.uniform(-1, 1, size=shape)

    def distinct(*shape):
        # A permutation of spread values: no ties in any window, sums of two distinct too.
        n = int(np.prod(shape))
        return (b.rng.permutation(n).reshape(shape) * 0.37 + b.rng.uniform(0, 0.01)).astype(
            np.float64)

    def eip(k, s, r, p):
        return lambda x: tf1.extract_image_patches(x, [1, k[0], k[1], 1], [1, s[0], s[1], 1],
                                                   [1, r[0], r[1], 1], p)

    # ExtractImagePatches.
    case("EIP_same", eip((2, 2), (1, 1), (1, 1), "SAME"), [(u(1, 4, 4, 1), f32)])
    case("EIP_valid", eip((2, 3), (1, 1), (1, 1), "VALID"), [(u(2, 5, 4, 3), f32)])
    case("EIP_strides_same", eip((3, 2), (2, 3), (1, 1), "SAME"), [(u(2, 7, 6, 2), f32)])
    case("EIP_strides_valid", eip((2, 2), (2, 2), (1, 1), "VALID"), [(u(1, 6, 5, 3), f64)])
    case("EIP_rates_same", eip((2, 2), (1, 1), (2, 3), "SAME"), [(u(2, 6, 7, 2), f32)])
    case("EIP_rates_strides_valid", eip((2, 3), (2, 1), (2, 2), "VALID"), [(u(1, 7, 8, 2), f64)])
    case("EIP_stride_above_window_same", eip((1, 1), (5, 1), (1, 1), "SAME"),
         [(u(1, 9, 2, 1), f32)])
    case("EIP_window_larger_than_input_valid", eip((5, 2), (1, 1), (1, 1), "VALID"),
         [(u(1, 4, 4, 2), f32)])
    case("EIP_window_larger_than_input_same", eip((5, 5), (1, 1), (1, 1), "SAME"),
         [(u(1, 3, 2, 2), f32)])
    case("EIP_int32", eip((2, 2), (1, 2), (1, 1), "SAME"),
         [(b.rng.randint(-50, 50, size=(2, 4, 5, 2)), i32)], exact=True)
    case("EIP_int64", eip((3, 1), (1, 1), (2, 1), "VALID"),
         [(b.rng.randint(-50, 50, size=(1, 6, 3, 2)), i64)], exact=True)
    case("EIP_bfloat16", eip((2, 2), (1, 1), (1, 1), "VALID"), [(u(1, 3, 4, 2), bf16)],
         exact=True, grad=False)

    # ExtractVolumePatches.
    def evp(k, s, p):
        return lambda x: tf.extract_volume_patches(x, [1] + list(k) + [1], [1] + list(s) + [1], p)

    case("EVP_same", evp((2, 2, 2), (1, 1, 1), "SAME"), [(u(1, 3, 3, 3, 1), f32)])
    case("EVP_valid", evp((2, 1, 2), (1, 1, 1), "VALID"), [(u(2, 3, 4, 3, 2), f32)])
    case("EVP_strides_same", evp((2, 3, 2), (2, 2, 1), "SAME"), [(u(1, 5, 4, 3, 2), f64)])
    case("EVP_strides_valid", evp((1, 2, 2), (2, 1, 2), "VALID"), [(u(2, 4, 3, 5, 1), f32)])
    case("EVP_negative_same_padding", evp((1, 1, 1), (5, 1, 1), "SAME"),
         [(u(1, 9, 1, 2, 1), f32)])
    case("EVP_int64", evp((2, 2, 1), (1, 1, 1), "SAME"),
         [(b.rng.randint(-9, 9, size=(1, 2, 3, 2, 2)), i64)], exact=True)

    # Dilation2D and its backprops.
    def dil(s, r, p):
        return lambda x, w: tf1.nn.dilation2d(x, w, [1, s[0], s[1], 1], [1, r[0], r[1], 1], p)

    case("Dilation2D_same", dil((1, 1), (1, 1), "SAME"),
         [(distinct(1, 4, 4, 1), f32), (distinct(2, 2, 1) * 0.01, f32)])
    case("Dilation2D_valid", dil((1, 1), (1, 1), "VALID"),
         [(distinct(2, 5, 4, 3), f32), (distinct(2, 3, 3) * 0.01, f32)])
    case("Dilation2D_strides_same", dil((2, 3), (1, 1), "SAME"),
         [(distinct(2, 7, 6, 2), f64), (distinct(3, 2, 2) * 0.01, f64)])
    case("Dilation2D_rates_valid", dil((1, 1), (2, 2), "VALID"),
         [(distinct(1, 7, 6, 2), f32), (distinct(2, 2, 2) * 0.01, f32)])
    case("Dilation2D_rates_strides_same", dil((2, 1), (2, 3), "SAME"),
         [(distinct(2, 6, 7, 2), f64), (distinct(2, 3, 2) * 0.01, f64)])
    case("Dilation2D_int32", dil((1, 1), (1, 1), "SAME"),
         [(b.rng.permutation(32).reshape(1, 4, 4, 2), i32),
          (b.rng.randint(0, 3, size=(2, 2, 2)), i32)], exact=True)

    def dil_bp(kind, s, r, p):
        fn = R.Dilation2DBackpropInput if kind == "input" else R.Dilation2DBackpropFilter
        return lambda x, w, dy: fn(input=x, filter=w, out_backprop=dy, strides=[1, s[0], s[1], 1],
                                   rates=[1, r[0], r[1], 1], padding=p)

    case("Dilation2DBackpropInput_same", dil_bp("input", (1, 1), (1, 1), "SAME"),
         [(distinct(2, 4, 4, 2), f32), (distinct(2, 2, 2) * 0.01, f32), (u(2, 4, 4, 2), f32)],
         grad=False)
    case("Dilation2DBackpropFilter_strides_valid", dil_bp("filter", (2, 2), (1, 1), "VALID"),
         [(distinct(1, 6, 5, 2), f64), (distinct(2, 2, 2) * 0.01, f64), (u(1, 3, 2, 2), f64)],
         grad=False)
    case("Dilation2DBackpropFilter_rates_same", dil_bp("filter", (1, 1), (2, 2), "SAME"),
         [(distinct(1, 5, 5, 1), f32), (distinct(2, 2, 1) * 0.01, f32), (u(1, 5, 5, 1), f32)],
         grad=False)

    # MaxPoolWithArgmax and its gradient MaxPoolGradWithArgmax.
    def mpwa(k, s, p, targmax=i64, batch_index=False):
        return lambda x: list(R.MaxPoolWithArgmax(input=x, ksize=[1, k[0], k[1], 1],
                                                  strides=[1, s[0], s[1], 1], padding=p,
                                                  Targmax=targmax,
                                                  include_batch_in_index=batch_index))

    case("MaxPoolWithArgmax_same", mpwa((2, 2), (1, 1), "SAME"), [(distinct(1, 4, 4, 1), f32)])
    case("MaxPoolWithArgmax_valid", mpwa((3, 2), (1, 1), "VALID"), [(distinct(2, 5, 4, 3), f32)])
    case("MaxPoolWithArgmax_strides_same", mpwa((3, 3), (2, 2), "SAME"),
         [(distinct(2, 7, 6, 2), f64)])
    case("MaxPoolWithArgmax_batch_in_index", mpwa((2, 2), (2, 1), "VALID", i64, True),
         [(distinct(3, 4, 5, 2), f32)])
    # TensorFlow's CPU MaxPoolGradWithArgmax takes int64 argmax only: no gradient here.
    case("MaxPoolWithArgmax_int32_argmax", mpwa((2, 3), (1, 2), "SAME", i32),
         [(distinct(2, 4, 5, 2), f32)], grad=False)
    case("MaxPoolWithArgmax_int32_values", mpwa((2, 2), (1, 1), "VALID"),
         [(b.rng.permutation(40).reshape(2, 4, 5, 1), i32)], exact=True)

    def mpgwa(k, s, p, batch_index):
        def fn(x, dy):
            _, argmax = R.MaxPoolWithArgmax(input=x, ksize=[1, k[0], k[1], 1],
                                            strides=[1, s[0], s[1], 1], padding=p,
                                            include_batch_in_index=batch_index)
            return R.MaxPoolGradWithArgmax(input=x, grad=dy, argmax=argmax,
                                           ksize=[1, k[0], k[1], 1], strides=[1, s[0], s[1], 1],
                                           padding=p, include_batch_in_index=batch_index)
        return fn

    case("MaxPoolGradWithArgmax_same", mpgwa((3, 3), (2, 2), "SAME", False),
         [(distinct(2, 5, 5, 2), f32), (u(2, 3, 3, 2), f32)], grad=False)
    case("MaxPoolGradWithArgmax_batch_in_index", mpgwa((2, 2), (1, 1), "VALID", True),
         [(distinct(2, 4, 3, 2), f64), (u(2, 3, 2, 2), f64)], grad=False)

    # MaxPoolGradGrad run straight, and the second-order gradients of MaxPool and AvgPool
    # (MaxPoolGrad -> MaxPoolGradGrad, MaxPoolGradGrad -> MaxPoolGrad, AvgPoolGrad ->
    # AvgPool).
    def mpgg(k, s, p):
        def fn(x, dy):
            y = tf1.nn.max_pool(x, [1, k[0], k[1], 1], [1, s[0], s[1], 1], p)
            return R.MaxPoolGradGrad(orig_input=x, orig_output=y, grad=dy,
                                     ksize=[1, k[0], k[1], 1], strides=[1, s[0], s[1], 1],
                                     padding=p)
        return fn

    case("MaxPoolGradGrad_same", mpgg((2, 2), (2, 2), "SAME"),
         [(distinct(2, 5, 4, 2), f32), (u(2, 5, 4, 2), f32)])
    case("MaxPoolGradGrad_valid", mpgg((3, 2), (1, 1), "VALID"),
         [(distinct(1, 5, 5, 3), f64), (u(1, 5, 5, 3), f64)])

    def pool_grad(kind, k, s, p):
        def fn(x, dy):
            pool = tf1.nn.max_pool if kind == "max" else tf1.nn.avg_pool
            y = pool(x, [1, k[0], k[1], 1], [1, s[0], s[1], 1], p)
            return tf.gradients(y, x, grad_ys=dy)[0]
        return fn

    case("MaxPoolGrad_second_order_same", pool_grad("max", (2, 2), (1, 1), "SAME"),
         [(distinct(2, 4, 4, 2), f32), (u(2, 4, 4, 2), f32)])
    case("MaxPoolGrad_second_order_valid_strides", pool_grad("max", (3, 3), (2, 2), "VALID"),
         [(distinct(1, 7, 6, 2), f32), (u(1, 3, 2, 2), f32)])
    case("AvgPoolGrad_second_order_same", pool_grad("avg", (2, 3), (2, 1), "SAME"),
         [(u(2, 5, 4, 2), f32), (u(2, 3, 4, 2), f32)])
    case("AvgPoolGrad_second_order_valid", pool_grad("avg", (2, 2), (1, 1), "VALID"),
         [(u(1, 4, 4, 3), f64), (u(1, 3, 3, 3), f64)])
