"""Fixture cases of 5-D fused batch norm for make_op_fixtures.py: FusedBatchNormV3 with
data_format NDHWC and NCDHW (TensorFlow's CPU kernel merges D into H and runs its 4-D NHWC or
NCHW code), in training, in inference and with an exponential_avg_factor below 1, a single
element per channel, an empty batch, the raw op's first five outputs, and FusedBatchNormGradV3
run straight (training in both formats, inference in NDHWC). The gradients are
_FusedBatchNormV3Grad's: FusedBatchNormGradV3 with the op's format in training; in inference
NCDHW is transposed to NDHWC around it."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def build_batch_norm_5d(b):
    f32 = tf.float32
    add_case = b.case

    def case(name, fn, inputs, **kw):
        # TensorFlow sums each channel in float32 in Eigen's order, actorflow in double.
        kw.setdefault("atol", 2e-6)
        add_case(name, fn, inputs, **kw)

    # [N, D, H, W, C] = [2, 3, 2, 2, 4] and its NCDHW transpose [2, 4, 3, 2, 2].
    x_ndhwc = b.rng.uniform(-2, 2, size=(2, 3, 2, 2, 4))
    x_ncdhw = np.transpose(x_ndhwc, [0, 4, 1, 2, 3]).copy()
    xs = {"NDHWC": x_ndhwc, "NCDHW": x_ncdhw}
    scale, offset = [0.5, 1.0, 1.5, 2.0], [0.1, -0.2, 0.3, 0.0]
    pop_mean, pop_var = [0.2, -0.1, 0.0, 0.4], [1.5, 0.5, 2.0, 1.0]
    vecs = [(scale, f32), (offset, f32)]
    stats = [(pop_mean, f32), (pop_var, f32)]

    def bn(fmt, training, factor=1.0):
        def fn(x, s, o, m=None, v=None):
            y, mean, var = tf1.nn.fused_batch_norm(
                x, s, o, mean=m, variance=v, epsilon=0.001, data_format=fmt,
                is_training=training, exponential_avg_factor=factor)
            return [y, mean, var]
        return fn

    for fmt, x in xs.items():
        case("FusedBatchNormV3_5d_train_" + fmt, bn(fmt, True), [(x, f32)] + vecs)
        case("FusedBatchNormV3_5d_infer_" + fmt, bn(fmt, False), [(x, f32)] + vecs + stats)
        case("FusedBatchNormV3_5d_blend_" + fmt, bn(fmt, True, 0.3),
             [(x, f32)] + vecs + stats)
        # The raw op's first five outputs: the reserve spaces are the batch's mean and its
        # variance without Bessel's correction (reserve_space_3's shape is unknown).
        case("FusedBatchNormV3_5d_raw_" + fmt,
             lambda x, s, o, m, v, fmt=fmt: list(R.FusedBatchNormV3(
                 x=x, scale=s, offset=o, mean=m, variance=v, epsilon=0.01, data_format=fmt,
                 is_training=True))[:5],
             [(x, f32)] + vecs + [([], f32), ([], f32)])
    # D of 1 and a single element per channel (Bessel's correction divides by 1).
    case("FusedBatchNormV3_5d_single_NDHWC", bn("NDHWC", True),
         [(b.rng.uniform(-1, 1, size=(1, 1, 1, 1, 4)), f32)] + vecs)
    # An empty batch: NaN statistics and an empty y. Not differentiated: TensorFlow's
    # FusedBatchNormGradV3 returns an empty 5-D x_backprop in its merged 4-D shape ([0, 2, 4, 4]
    # here, leaving before it reshapes back); actorflow's keeps x's shape.
    case("FusedBatchNormV3_5d_empty_NDHWC", bn("NDHWC", True),
         [(np.zeros((0, 2, 2, 2, 4)), f32)] + vecs, grad=False)
    case("FusedBatchNormV3_5d_empty_NCDHW", bn("NCDHW", True),
         [(np.zeros((0, 4, 2, 1, 2)), f32)] + vecs, grad=False)

    # FusedBatchNormGradV3 straight (TensorFlow's second-order gradient is not compared).
    dy = {fmt: b.rng.uniform(-1, 1, size=x.shape) for fmt, x in xs.items()}
    batch_mean = x_ndhwc.reshape(-1, 4).mean(axis=0)
    batch_var = x_ndhwc.reshape(-1, 4).var(axis=0)

    def grad(fmt, training):
        def fn(d, x, s, m, v, r):
            return list(R.FusedBatchNormGradV3(
                y_backprop=d, x=x, scale=s, reserve_space_1=m, reserve_space_2=v,
                reserve_space_3=r, epsilon=0.001, data_format=fmt,
                is_training=training))[:3]
        return fn

    for fmt, x in xs.items():
        case("FusedBatchNormGradV3_5d_train_" + fmt, grad(fmt, True),
             [(dy[fmt], f32), (x, f32), (scale, f32), (batch_mean, f32), (batch_var, f32),
              (np.zeros(0), f32)], grad=False)
    case("FusedBatchNormGradV3_5d_infer_NDHWC", grad("NDHWC", False),
         [(dy["NDHWC"], f32), (x_ndhwc, f32), (scale, f32), (pop_mean, f32), (pop_var, f32),
          (np.zeros(0), f32)], grad=False)
