#!/usr/bin/env python3
"""Writes tests/data/tf_stateless_samplers: a GraphDef (graph.pb) of TensorFlow's stateless
Gamma and Poisson samplers (tf.random.stateless_gamma: StatelessRandomGetKeyCounter and
StatelessRandomGammaV3, with tf.gradients to alpha; StatelessRandomGammaV2 by tf.raw_ops;
tf.random.stateless_poisson: StatelessRandomPoisson) with reference.json: what a sequence of
session runs gave, values or errors, for tests/conformance/stateless_sampler_test.cpp. Never a
dependency of the build or the tests.

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


def main(out):
    os.makedirs(out, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        seed = tf1.placeholder(tf.int64, [2], name="seed")
        alpha = tf1.placeholder(tf.float32, [None], name="alpha")
        lam = tf1.placeholder(tf.float64, [None], name="lam")
        shape = tf1.placeholder(tf.int32, [None], name="shape")
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
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"seed": seed, "alpha": alpha, "lam": lam,
                                            "shape": shape})
    write_fixture(out, g, ops, steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_stateless_samplers")
