"""Op fixture cases of the stateless random ops (kernels/src/random_more_ops.cpp): the V1
ops StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal,
StatelessRandomUniformInt, StatelessRandomUniformFullInt and StatelessMultinomial through
tf.raw_ops; the graphs TF 2.x's tf.random.stateless_* build under tf.compat.v1
(StatelessRandomGetKeyCounter and the V2 ops, then the scaling); the V2 ops straight on
StatelessRandomGetKeyCounterAlg's outputs; StatelessRandomGetAlg. The seeds are tensors, so
the values never depend on a graph seed: every case is exact (TensorFlow's Philox stream bit
for bit). The key and counter tensors are uint64 in TensorFlow, which the fixture cannot
hold; they only feed the V2 ops here. Used by make_op_fixtures.py.
"""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def build_random_more(b):
    f32, f64, i32, i64, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16
    R = tf.raw_ops
    seed64 = (np.array([1, 2]), i64)
    seed32 = (np.array([-5, 7]), i32)
    big_seed = (np.array([2**40 + 3, -(2**62)]), i64)

    # -- V1 float fillers: dtypes, odd sizes (partial last group), empty and scalar shapes
    for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
        fn = getattr(R, op)
        b.case(op, lambda s, fn=fn: fn(shape=[3, 5], seed=s), [seed64], exact=True)
        b.case(op + "_f64_seed32", lambda s, fn=fn: fn(shape=[7], seed=s, dtype=f64),
               [seed32], exact=True)
        b.case(op + "_bf16", lambda s, fn=fn: fn(shape=[6], seed=s, dtype=bf16), [seed64],
               exact=True)
        b.case(op + "_big_seed", lambda s, fn=fn: fn(shape=tf.constant([2, 3], i64), seed=s),
               [big_seed], exact=True)
        b.case(op + "_empty", lambda s, fn=fn: fn(shape=[0, 4], seed=s), [seed64], exact=True)
        b.case(op + "_scalar", lambda s, fn=fn: fn(shape=tf.constant([], i32), seed=s),
               [seed64], exact=True)
    b.case("StatelessRandomNormal_long", lambda s: R.StatelessRandomNormal(shape=[259], seed=s),
           [seed64], exact=True)
    b.case("StatelessTruncatedNormal_long",
           lambda s: R.StatelessTruncatedNormal(shape=[130], seed=s, dtype=f64), [seed32],
           exact=True)

    # -- V1 integer fillers
    b.case("StatelessRandomUniformInt",
           lambda s, lo, hi: R.StatelessRandomUniformInt(shape=[3, 5], seed=s, minval=lo,
                                                         maxval=hi),
           [seed64, (-3, i32), (10, i32)], exact=True)
    b.case("StatelessRandomUniformInt_int64",
           lambda s, lo, hi: R.StatelessRandomUniformInt(shape=[7], seed=s, minval=lo, maxval=hi),
           [seed32, (-2**40, i64), (2**50, i64)], exact=True)
    b.case("StatelessRandomUniformInt_wide",
           lambda s, lo, hi: R.StatelessRandomUniformInt(shape=[6], seed=s, minval=lo, maxval=hi),
           [seed64, (-2**31, i32), (2**31 - 1, i32)], exact=True)
    # An empty output never checks the bounds.
    b.case("StatelessRandomUniformInt_empty",
           lambda s, lo, hi: R.StatelessRandomUniformInt(shape=[0], seed=s, minval=lo, maxval=hi),
           [seed64, (5, i32), (5, i32)], exact=True)
    b.case("StatelessRandomUniformFullInt",
           lambda s: R.StatelessRandomUniformFullInt(shape=[5], seed=s, dtype=i32), [seed64],
           exact=True)
    b.case("StatelessRandomUniformFullInt_int64",
           lambda s: R.StatelessRandomUniformFullInt(shape=[2, 3], seed=s, dtype=i64),
           [seed32], exact=True)

    # -- StatelessMultinomial (tf.random.stateless_categorical builds it too)
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [1.0, 1.0, 1.0, 1.0]]))
    b.case("StatelessMultinomial",
           lambda l, s: R.StatelessMultinomial(logits=l, num_samples=10, seed=s),
           [(logits, f32), seed64], exact=True)
    b.case("StatelessMultinomial_int32_f64",
           lambda l, s: R.StatelessMultinomial(logits=l, num_samples=5, seed=s,
                                               output_dtype=i32),
           [(logits[:2], f64), seed32], exact=True)
    inf, nan = float("inf"), float("nan")
    b.case("StatelessMultinomial_nonfinite",
           lambda l, s: R.StatelessMultinomial(logits=l, num_samples=7, seed=s),
           [(np.array([[-inf, 0.0, nan, 1.0], [inf, 0.0, 0.0, -inf]]), f32), seed64],
           exact=True)
    b.case("StatelessMultinomial_zero_samples",
           lambda l, s: R.StatelessMultinomial(logits=l, num_samples=0, seed=s),
           [(logits, f32), seed64], exact=True)
    b.case("StatelessMultinomial_bf16",
           lambda l, s: R.StatelessMultinomial(logits=l, num_samples=6, seed=s),
           [(logits, bf16), seed64], exact=True)
    b.case("stateless_categorical",
           lambda l, s: tf.random.stateless_categorical(l, 4, s, dtype=i32),
           [(logits, f32), seed64], exact=True)

    # -- TF 2.x's builders: StatelessRandomGetKeyCounter, the V2 ops, the scaling
    su = tf.random.stateless_uniform
    b.case("stateless_uniform", lambda s: su([3, 4], s, minval=-2.0, maxval=3.0), [seed64],
           exact=True)
    b.case("stateless_uniform_f64", lambda s: su([5], s, dtype=f64), [seed32], exact=True)
    b.case("stateless_uniform_bf16", lambda s: su([5], s, dtype=bf16), [seed64], exact=True)
    b.case("stateless_uniform_int", lambda s: su([4, 3], s, minval=-7, maxval=100, dtype=i32),
           [seed64], exact=True)
    b.case("stateless_uniform_int64",
           lambda s: su([5], s, minval=-2**40, maxval=2**41, dtype=i64), [seed32], exact=True)
    b.case("stateless_uniform_full_int", lambda s: su([5], s, minval=None, maxval=None,
                                                      dtype=i32), [seed64], exact=True)
    b.case("stateless_uniform_full_int64", lambda s: su([3], s, minval=None, maxval=None,
                                                        dtype=i64), [big_seed], exact=True)
    b.case("stateless_uniform_empty", lambda s: su([2, 0], s), [seed64], exact=True)
    b.case("stateless_normal", lambda s: tf.random.stateless_normal([2, 5], s, mean=1.5,
                                                                    stddev=0.25), [seed64],
           exact=True)
    b.case("stateless_normal_f64", lambda s: tf.random.stateless_normal([3], s, dtype=f64),
           [seed32], exact=True)
    b.case("stateless_truncated_normal",
           lambda s: tf.random.stateless_truncated_normal([9], s, stddev=2.0), [seed64],
           exact=True)
    b.case("stateless_truncated_normal_f64",
           lambda s: tf.random.stateless_truncated_normal([2, 2], s, dtype=f64), [big_seed],
           exact=True)
    # A float input scaled by a stateless sample: the gradient flows through Mul only.
    b.case("stateless_normal_scaled_grad",
           lambda x, s: x * tf.random.stateless_normal([3, 4], s),
           [(b.rng.uniform(-1, 1, size=(3, 4)), f32), seed64])

    # -- the V2 ops straight on StatelessRandomGetKeyCounterAlg (algorithm 1: Philox)
    def v2(op, **kw):
        def fn(s):
            key, counter, alg = R.StatelessRandomGetKeyCounterAlg(seed=s)
            return getattr(R, op)(key=key, counter=counter, alg=alg, **kw)
        return fn

    b.case("StatelessRandomUniformV2", v2("StatelessRandomUniformV2", shape=[7]), [seed64],
           exact=True)
    b.case("StatelessRandomNormalV2_f64",
           v2("StatelessRandomNormalV2", shape=tf.constant([5], i64), dtype=f64), [seed32],
           exact=True)
    b.case("StatelessTruncatedNormalV2",
           v2("StatelessTruncatedNormalV2", shape=[3, 3]), [big_seed], exact=True)
    b.case("StatelessRandomUniformIntV2",
           v2("StatelessRandomUniformIntV2", shape=[6], minval=tf.constant(-4, i64),
              maxval=tf.constant(9, i64)), [seed64], exact=True)
    b.case("StatelessRandomUniformFullIntV2",
           v2("StatelessRandomUniformFullIntV2", shape=[4], dtype=i32), [seed64], exact=True)
    b.case("StatelessRandomUniformV2_empty", v2("StatelessRandomUniformV2", shape=[0]),
           [seed64], exact=True)
    # The V2 op on StatelessRandomGetKeyCounter's key and counter equals the V1 op.
    b.case("StatelessRandomUniformV2_matches_v1",
           lambda s: [R.StatelessRandomUniformV2(
               shape=[5], key=R.StatelessRandomGetKeyCounter(seed=s)[0],
               counter=R.StatelessRandomGetKeyCounter(seed=s)[1], alg=3),
                      R.StatelessRandomUniform(shape=[5], seed=s)], [seed64], exact=True)
    b.case("StatelessRandomGetAlg", lambda: R.StatelessRandomGetAlg(), [], exact=True)

    # -- RandomGamma with explicit (seed, seed2): TensorFlow's stream for the first run. The
    # samples go through libm's log, pow, sin and cos in double, so they are compared with the
    # default tolerance rather than bit for bit. Not differentiated here (actorflow has no
    # RandomGammaGrad).
    alphas = np.array([0.5, 1.0, 2.5])
    b.case("RandomGamma", lambda a: R.RandomGamma(shape=[4], alpha=a, seed=7, seed2=11),
           [(alphas, f64)], grad=False)
    b.case("RandomGamma_f32_2d",
           lambda a: R.RandomGamma(shape=tf.constant([2, 3], i64), alpha=a, seed=1, seed2=2),
           [(np.array([[0.3], [4.0]]), f32)], grad=False)
    b.case("RandomGamma_scalar_alpha",
           lambda a: R.RandomGamma(shape=[5], alpha=a, seed=3, seed2=4), [(1.0, f32)],
           grad=False)
    b.case("RandomGamma_empty", lambda a: R.RandomGamma(shape=[0], alpha=a, seed=3, seed2=4),
           [(alphas, f32)], grad=False)
    b.case("RandomGamma_empty_alpha",
           lambda a: R.RandomGamma(shape=[2], alpha=a, seed=3, seed2=4),
           [(np.zeros([0]), f32)], grad=False)
    b.case("RandomGamma_edge_alpha",
           lambda a: R.RandomGamma(shape=[3], alpha=a, seed=5, seed2=6),
           [(np.array([0.0, 1e-3, 50.0]), f64)], grad=False)

    # -- RandomGammaGrad: d sample / d alpha, element-wise with broadcasting (no gradient of
    # its own in TensorFlow, so grad=False). Eigen's series and continued fraction in the
    # element type: compared with the default tolerance.
    gg = R.RandomGammaGrad
    alpha_grid = np.array([[0.3], [1.0], [2.5], [40.0]])
    sample_grid = np.array([0.05, 0.7, 1.5, 6.0, 30.0])
    b.case("RandomGammaGrad", lambda a, x: gg(alpha=a, sample=x),
           [(alpha_grid, f32), (sample_grid, f32)], grad=False)
    b.case("RandomGammaGrad_f64", lambda a, x: gg(alpha=a, sample=x),
           [(alpha_grid, f64), (sample_grid, f64)], grad=False)
    b.case("RandomGammaGrad_edges", lambda a, x: gg(alpha=a, sample=x),
           [(np.array([0.5, 2.0, 0.0, -1.0, 3.0]), f64), (np.array([0.0, 0.0, 1.0, 1.0, -2.0]), f64)],
           grad=False)
    b.case("RandomGammaGrad_empty", lambda a, x: gg(alpha=a, sample=x),
           [(np.zeros([0, 2]), f32), (np.ones([2]), f32)], grad=False)

    # -- RandomPoissonV2 with explicit (seed, seed2): TensorFlow's stream for the first run.
    # (RandomPoisson, deprecated at GraphDef version 25, cannot be built by TF 2.x.) Rates
    # below 10 take Knuth's products, the others the transformed rejection; both in double.
    rates = np.array([0.0, 0.5, 3.0, 9.99, 10.0, 55.5, 1e4, -1.0])
    pv2 = R.RandomPoissonV2
    b.case("RandomPoissonV2", lambda r: pv2(shape=[3], rate=r, seed=7, seed2=11),
           [(rates, f64)], grad=False)
    b.case("RandomPoissonV2_f32_to_int32",
           lambda r: pv2(shape=tf.constant([2, 2], i64), rate=r, seed=1, seed2=2, dtype=i32),
           [(rates.astype(np.float32), f32)], grad=False)
    b.case("RandomPoissonV2_int_rates",
           lambda r: pv2(shape=[4], rate=r, seed=3, seed2=4, dtype=f32),
           [(np.array([[1, 12], [0, 200]]), i32)], grad=False)
    b.case("RandomPoissonV2_int64",
           lambda r: pv2(shape=[2], rate=r, seed=5, seed2=6, dtype=i64),
           [(np.array([4, 30]), i64)], grad=False)
    b.case("RandomPoissonV2_f64_out",
           lambda r: pv2(shape=[5], rate=r, seed=8, seed2=0, dtype=f64), [(2.5, f32)], grad=False)
    b.case("RandomPoissonV2_empty",
           lambda r: pv2(shape=[0, 3], rate=r, seed=1, seed2=1), [(rates, f64)], grad=False)
    b.case("RandomPoissonV2_empty_rate",
           lambda r: pv2(shape=[2], rate=r, seed=1, seed2=1), [(np.zeros([0]), f32)], grad=False)
    b.case("random_poisson", lambda r: tf.random.poisson([3], r, dtype=i64, seed=9),
           [(np.array([1.5, 25.0]), f32)], grad=False)

    # -- ParameterizedTruncatedNormal with explicit (seed, seed2): the normal sampler ([-2, 2]),
    # the uniform one (narrow bounds), the exponential one (a far bound), the flipped one
    # (maxval below the mean), scalar parameters in batches of 100, per-batch parameters.
    ptn = R.ParameterizedTruncatedNormal

    def ptn_case(name, shape, params, dtype, seed):
        b.case(name, lambda m, s, lo, hi: ptn(shape=shape, means=m, stdevs=s, minvals=lo,
                                              maxvals=hi, seed=seed, seed2=seed + 1),
               [(np.asarray(p), dtype) for p in params], grad=False)

    ptn_case("ParameterizedTruncatedNormal", [7], (0.0, 1.0, -2.0, 2.0), f32, 1)
    ptn_case("ParameterizedTruncatedNormal_f64", [2, 3], (1.0, 2.0, -3.0, 5.0), f64, 2)
    ptn_case("ParameterizedTruncatedNormal_uniform", [9], (0.0, 1.0, 0.5, 1.0), f32, 3)
    ptn_case("ParameterizedTruncatedNormal_uniform_f64", [5], (0.0, 1.0, 0.5, 1.0), f64, 3)
    ptn_case("ParameterizedTruncatedNormal_exponential", [6], (0.0, 1.0, 3.0, np.inf), f32, 4)
    ptn_case("ParameterizedTruncatedNormal_exponential_f64", [5], (0.0, 1.0, 3.0, 10.0), f64, 4)
    ptn_case("ParameterizedTruncatedNormal_flipped", [6], (0.0, 1.0, -np.inf, -3.0), f32, 5)
    ptn_case("ParameterizedTruncatedNormal_two_batches", [150], (0.5, 2.0, -1.0, 3.0), f32, 6)
    ptn_case("ParameterizedTruncatedNormal_per_batch", [3, 4],
             ([0.0, 1.0, -2.0], [1.0], [-2.0, 1.5, -2.5], [2.0, 2.0, -2.0]), f32, 7)
    ptn_case("ParameterizedTruncatedNormal_per_batch_f64", tf.constant([2, 3], i64),
             ([0.0, 5.0], 1.0, [-1.0, 4.0], [0.5, 9.0]), f64, 8)
    ptn_case("ParameterizedTruncatedNormal_empty", [0, 2], (0.0, 1.0, -2.0, 2.0), f32, 9)

    # -- tf.random.gamma: BroadcastArgs, BroadcastTo, RandomGamma, RealDiv, Maximum.
    b.case("random_gamma", lambda a, be: tf.random.gamma([3], a, be, seed=4),
           [(np.array([0.5, 2.0]), f32), (np.array([[1.0], [3.0]]), f32)], grad=False)
    b.case("random_gamma_f64", lambda a: tf.random.gamma([2, 2], a, dtype=f64, seed=5),
           [(np.array([1.0, 7.5, 0.2]), f64)], grad=False)
