#!/usr/bin/env python3
"""Writes tests/data/tf_stateless_samplers: a GraphDef (graph.pb) of TensorFlow's stateless
Gamma, Poisson, binomial and truncated normal samplers (tf.random.stateless_gamma:
StatelessRandomGetKeyCounter and StatelessRandomGammaV3, with tf.gradients to alpha;
StatelessRandomGammaV2 by tf.raw_ops; tf.random.stateless_poisson: StatelessRandomPoisson;
tf.random.stateless_binomial and tf.raw_ops.StatelessRandomBinomial;
tf.random.stateless_parameterized_truncated_normal and its raw op
StatelessParameterizedTruncatedNormal) with reference.json: what a sequence of session runs
gave, values or errors, for tests/conformance/stateless_sampler_test.cpp. Never a dependency of
the build or the tests.

The feeds travel as JSON, so a placeholder's name says its dtype to the C++ replay: "seed" and
"seed_any" int64, "seed32" int32, "shape" int32, "alpha" float32, "lam" float64, and a
suffix _f16, _f32 or _f64 (nested lists of any rank). Non-finite parameters are graph constants
(JSON has no NaN or infinity); float16 feeds are exact in float16.

  python scripts/peers/make_stateless_sampler_fixtures.py [OUT_DIR]

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1

INF = float("inf")
NAN = float("nan")
PTN_PARAMS = ("means", "stddevs", "minvals", "maxvals")


def ptn_feeds(shape, means, stddevs, minvals, maxvals, suffix="f32", seed=(11, 12)):
    """The feeds of a StatelessParameterizedTruncatedNormal step on the placeholders of
    `suffix`."""
    feeds = {"shape": shape, "seed": list(seed)}
    for name, value in zip(PTN_PARAMS, (means, stddevs, minvals, maxvals)):
        feeds["%s_%s" % (name, suffix)] = value
    return feeds


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        seed = tf1.placeholder(tf.int64, [2], name="seed")
        alpha = tf1.placeholder(tf.float32, [None], name="alpha")
        lam = tf1.placeholder(tf.float64, [None], name="lam")
        shape = tf1.placeholder(tf.int32, [None], name="shape")
        seed_any = tf1.placeholder(tf.int64, None, name="seed_any")
        seed32 = tf1.placeholder(tf.int32, [2], name="seed32")
        feeds_of = {"seed": seed, "alpha": alpha, "lam": lam, "shape": shape,
                    "seed_any": seed_any, "seed32": seed32}
        # Parameters of any rank: counts_f32, probs_f32, ..., maxvals_f64.
        for suffix, dtype in (("f16", tf.float16), ("f32", tf.float32), ("f64", tf.float64)):
            for name in ("counts", "probs") + PTN_PARAMS:
                key = "%s_%s" % (name, suffix)
                feeds_of[key] = tf1.placeholder(dtype, None, name=key)
        f = feeds_of
        gamma = tf.random.stateless_gamma([4, 3], seed, alpha=alpha, name="gamma")
        gamma64 = tf.random.stateless_gamma([5], seed, alpha=tf.constant(2.5, tf.float64),
                                            dtype=tf.float64,
                                            beta=tf.constant(2.0, tf.float64), name="gamma64")
        v2 = tf.raw_ops.StatelessRandomGammaV2(shape=shape, seed=seed, alpha=alpha,
                                               name="gamma_v2")
        ops = {
            "gamma": gamma,
            "gamma_grad": tf.gradients(tf.reduce_sum(gamma * gamma), alpha)[0],
            "gamma64": gamma64,
            "gamma_v2": v2,
            "gamma_v2_grad": tf.gradients(v2, alpha)[0],
            "poisson": tf.random.stateless_poisson([6, 2], seed, lam=lam, name="poisson"),
            "poisson_float": tf.random.stateless_poisson([3, 2], seed, lam=lam,
                                                         dtype=tf.float32,
                                                         name="poisson_float"),
            # StatelessRandomBinomial: counts and probs of float16, float32 or float64 (the
            # CPU kernels' T), every output dtype.
            "binomial": tf.random.stateless_binomial(shape, seed, f["counts_f32"],
                                                     f["probs_f32"], output_dtype=tf.int64,
                                                     name="binomial"),
            "binomial_int32": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed32, counts=f["counts_f64"], probs=f["probs_f64"],
                dtype=tf.int32, name="binomial_int32"),
            "binomial_double": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed, counts=f["counts_f64"], probs=f["probs_f64"],
                dtype=tf.float64, name="binomial_double"),
            "binomial_half": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed, counts=f["counts_f16"], probs=f["probs_f16"],
                dtype=tf.float16, name="binomial_half"),
            "binomial_half_int": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed, counts=f["counts_f16"], probs=f["probs_f16"],
                dtype=tf.int64, name="binomial_half_int"),
            "binomial_float_half": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed, counts=f["counts_f32"], probs=f["probs_f32"],
                dtype=tf.float16, name="binomial_float_half"),
            "binomial_seed": tf.raw_ops.StatelessRandomBinomial(
                shape=shape, seed=seed_any, counts=f["counts_f32"], probs=f["probs_f32"],
                dtype=tf.float32, name="binomial_seed"),
            # NaN, zero, negative and certain cases (a NaN prob gives NaN, after a count <= 0).
            "binomial_nan": tf.random.stateless_binomial(
                [3, 6], seed, tf.constant([5., 0., 7., 12., -1., 30.]),
                tf.constant([NAN, NAN, 1.0, 0.0, 0.5, 1.5]), output_dtype=tf.float32,
                name="binomial_nan"),
            "binomial_nan_half": tf.random.stateless_binomial(
                [2, 6], seed, tf.constant([5., 0., 7., 12., -1., 30.], tf.float16),
                tf.constant([NAN, NAN, 1.0, 0.0, 0.5, -0.5], tf.float16),
                output_dtype=tf.float16, name="binomial_nan_half"),
            # StatelessParameterizedTruncatedNormal of float16, float32 and float64.
            "ptn": tf.raw_ops.StatelessParameterizedTruncatedNormal(
                shape=shape, seed=seed, means=f["means_f32"], stddevs=f["stddevs_f32"],
                minvals=f["minvals_f32"], maxvals=f["maxvals_f32"], name="ptn"),
            "ptn64": tf.random.stateless_parameterized_truncated_normal(
                shape, seed, f["means_f64"], f["stddevs_f64"], f["minvals_f64"],
                f["maxvals_f64"], name="ptn64"),
            "ptn_half": tf.raw_ops.StatelessParameterizedTruncatedNormal(
                shape=shape, seed=seed, means=f["means_f16"], stddevs=f["stddevs_f16"],
                minvals=f["minvals_f16"], maxvals=f["maxvals_f16"], name="ptn_half"),
            "ptn_seed": tf.raw_ops.StatelessParameterizedTruncatedNormal(
                shape=shape, seed=seed_any, means=f["means_f32"], stddevs=f["stddevs_f32"],
                minvals=f["minvals_f32"], maxvals=f["maxvals_f32"], name="ptn_seed"),
            # Infinite bounds: flipped to the lower side, the normal and exponential samplers.
            "ptn_inf": tf.random.stateless_parameterized_truncated_normal(
                [4, 3], seed, [0., 5., 0.], [1., 2., 1.], [-INF, -INF, 1.0], [0.5, 4., INF],
                name="ptn_inf"),
            "ptn_inf_half": tf.random.stateless_parameterized_truncated_normal(
                [3, 3], seed, tf.constant([0., 5., 0.], tf.float16),
                tf.constant([1., 2., 1.], tf.float16), tf.constant([-INF, -INF, 1.0], tf.float16),
                tf.constant([0.5, 4., INF], tf.float16), name="ptn_inf_half"),
        }
    plan = [
        ("gamma", {"seed": [1, 2], "alpha": [0.5, 1.0, 7.5]}),
        ("gamma", {"seed": [-7, 12345678901], "alpha": [0.5, 1.0, 7.5]}),
        ("gamma_grad", {"seed": [1, 2], "alpha": [0.5, 1.0, 7.5]}),
        ("gamma64", {"seed": [3, 4]}),
        ("gamma_v2", {"shape": [2, 3], "seed": [5, 6], "alpha": [0.25, 3.0, 1.0]}),
        ("gamma_v2_grad", {"shape": [2, 3], "seed": [5, 6], "alpha": [0.25, 3.0, 1.0]}),
        ("gamma_v2", {"shape": [2, 3], "seed": [5, 6], "alpha": [1.0, 2.0]}),
        ("gamma_v2", {"shape": [0, 3], "seed": [5, 6], "alpha": [1.0, 2.0, 3.0]}),
        ("poisson", {"seed": [7, 8], "lam": [0.5, 30.0]}),
        ("poisson", {"seed": [7, 8], "lam": [0.5, 30.0, 1.0]}),
        ("poisson_float", {"seed": [9, 10], "lam": [4.0, 12.5]}),
        # Binomial: inversion (count * p < 10), BTRS (>= 10), p > 0.5 (drawn for 1 - p).
        ("binomial", {"shape": [6, 4], "seed": [1, 2], "counts_f32": [5., 40., 100., 50.],
                      "probs_f32": [0.3, 0.6, 0.95, 0.5]}),
        ("binomial", {"shape": [6, 4], "seed": [-7, 12345678901],
                      "counts_f32": [5., 40., 100., 50.], "probs_f32": [0.3, 0.6, 0.95, 0.5]}),
        # counts [2, 1] and probs [3] broadcast to [2, 3].
        ("binomial", {"shape": [4, 2, 3], "seed": [3, 4], "counts_f32": [[10.], [200.]],
                      "probs_f32": [0.1, 0.25, 0.7]}),
        # count 0, a negative count, prob 1, prob 0, a large count of small mean.
        ("binomial", {"shape": [3, 5], "seed": [5, 6], "counts_f32": [0., -3., 7., 12., 1000.],
                      "probs_f32": [0.5, 0.5, 1.0, 0.0, 0.001]}),
        # Scalar parameters: one batch.
        ("binomial", {"shape": [7], "seed": [7, 8], "counts_f32": 30., "probs_f32": 0.5}),
        ("binomial", {"shape": [0, 4], "seed": [7, 8], "counts_f32": [1., 2., 3., 4.],
                      "probs_f32": 0.5}),
        ("binomial", {"shape": [4, 3], "seed": [7, 8], "counts_f32": [1., 2., 3., 4.],
                      "probs_f32": 0.5}),
        ("binomial", {"shape": [4, 3], "seed": [7, 8], "counts_f32": [1., 2.],
                      "probs_f32": [0.5, 0.5, 0.5]}),
        ("binomial", {"shape": [-1, 3], "seed": [7, 8], "counts_f32": [1., 2., 3.],
                      "probs_f32": 0.5}),
        ("binomial_int32", {"shape": [5, 3, 2], "seed32": [-3, 9],
                            "counts_f64": [[3.], [25.], [80.]], "probs_f64": [[0.2, 0.8]]}),
        # A fractional count.
        ("binomial_double", {"shape": [4, 2], "seed": [9, 10], "counts_f64": [15., 60.5],
                             "probs_f64": [0.45, 0.55]}),
        # count * p in float16 (40 * 0.25 == 10: BTRS; 19 * 0.5 == 9.5: inversion).
        ("binomial_half", {"shape": [4, 5], "seed": [11, 12],
                           "counts_f16": [6., 48., 1024., 40., 19.],
                           "probs_f16": [0.25, 0.75, 0.5, 0.25, 0.5]}),
        ("binomial_half_int", {"shape": [3, 2, 2], "seed": [13, 14],
                               "counts_f16": [[12.], [100.]], "probs_f16": [0.125, 0.875]}),
        ("binomial_float_half", {"shape": [5, 2], "seed": [15, 16], "counts_f32": [20., 3.],
                                 "probs_f32": [0.6, 0.4]}),
        ("binomial_seed", {"shape": [2, 2], "seed_any": [3, 4], "counts_f32": [10., 30.],
                           "probs_f32": [0.5, 0.5]}),
        ("binomial_seed", {"shape": [2, 2], "seed_any": [1, 2, 3], "counts_f32": [10., 30.],
                           "probs_f32": [0.5, 0.5]}),
        ("binomial_nan", {"seed": [17, 18]}),
        ("binomial_nan_half", {"seed": [17, 18]}),
        # Truncated normal, scalar parameters: the normal sampler.
        ("ptn", ptn_feeds([10], 0., 1., -2., 2.)),
        # One batch per sampler: normals, exponentials, uniforms, and bounds flipped (maxval <
        # mean) onto exponentials.
        ("ptn", ptn_feeds([5, 4], [0., 0., 0., 5.], [1., 1., 1., 2.], [-3., 2.5, 0.2, -40.],
                          [3., 3., 0.6, 4.])),
        ("ptn", ptn_feeds([5, 4], [0., 0., 0., 5.], [1., 1., 1., 2.], [-3., 2.5, 0.2, -40.],
                          [3., 3., 0.6, 4.], seed=(-7, 12345678901))),
        # The four parameters broadcast to [2, 3].
        ("ptn", ptn_feeds([3, 2, 3], [[0.], [1.]], [1., 2., 0.5], -1., [[2.], [3.]])),
        ("ptn", ptn_feeds([4, 2], [0., 1.], [1., 0.], -1., 1.)),
        ("ptn", ptn_feeds([4, 2], [0., 1.], [1., 1.], 2., 1.)),
        ("ptn", ptn_feeds([4, 2], [0., 1.], [1., 1., 1.], -1., 1.)),
        ("ptn", ptn_feeds([4], [0., 1., 2.], 1., -1., 1.)),
        # No output: the parameters are not checked.
        ("ptn", ptn_feeds([0, 2], [0., 1.], [-1., 1.], -1., 1.)),
        ("ptn64", ptn_feeds([5, 4], [0., 0., 0., 5.], [1., 1., 1., 2.], [-3., 2.5, 0.2, -40.],
                            [3., 3., 0.6, 4.], suffix="f64", seed=(19, 20))),
        ("ptn64", ptn_feeds([2, 3, 2], [0., 10.], [[1.], [0.5], [3.]], [[-0.5], [0.], [1.]],
                            [[0.5], [2.], [12.]], suffix="f64", seed=(21, 22))),
        ("ptn_half", ptn_feeds([5, 4], [0., 0., 0., 5.], [1., 1., 1., 2.],
                               [-3., 2.5, 0.25, -40.], [3., 3., 0.625, 4.], suffix="f16",
                               seed=(23, 24))),
        ("ptn_half", ptn_feeds([3, 2, 2], [[0.], [1.]], [1., 0.5], -1., 3., suffix="f16",
                               seed=(25, 26))),
        ("ptn_seed", {"shape": [2], "seed_any": [[1, 2]], "means_f32": 0., "stddevs_f32": 1.,
                      "minvals_f32": -1., "maxvals_f32": 1.}),
        ("ptn_inf", {"seed": [27, 28]}),
        ("ptn_inf_half", {"seed": [27, 28]}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, feeds_of)
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_stateless_samplers")
