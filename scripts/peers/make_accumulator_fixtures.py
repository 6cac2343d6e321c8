#!/usr/bin/env python3
"""Writes tests/data/tf_accumulators: the graphs TensorFlow 2's tf.compat.v1 builds for
gradient accumulators, whose handles are resources (ResourceConditionalAccumulator,
ResourceAccumulatorApplyGradient, ResourceAccumulatorTakeGradient,
ResourceAccumulatorNumAccumulated, ResourceAccumulatorSetGlobalStep) where TensorFlow 1's
were Ref(string), with what a sequence of session runs gave, values or errors, for
tests/conformance/resource_accumulator_test.cpp:

  accumulators.pb, accumulators.json   a MEAN and a SUM tf.compat.v1.ConditionalAccumulator:
                                       applies (stale ones dropped), takes, set_global_step,
                                       num_accumulated and the kernels' errors
  sync_replicas.pb, sync_replicas.json a tf.compat.v1.train.SyncReplicasOptimizer step (two
                                       replicas' gradients aggregated, run in one session as
                                       its chief would: the tokens, the replicas' train ops,
                                       the chief queue runner's sync op, twice), the
                                       variables after

Never a dependency of the build or the tests.

  python scripts/peers/make_accumulator_fixtures.py [OUT_DIR]   # default tests/data/tf_accumulators

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from fixture_steps import run_steps, write_fixture  # noqa: E402

tf1 = tf.compat.v1


def accumulators(out):
    g = tf.Graph()
    with g.as_default():
        grad = tf1.placeholder(tf.float32, [None], name="grad")
        step = tf1.placeholder(tf.int64, [], name="step")
        n = tf1.placeholder(tf.int32, [], name="n")
        mean = tf1.ConditionalAccumulator(tf.float32, shape=[2], shared_name="mean_acc",
                                          name="mean_acc")
        total = tf1.ConditionalAccumulator(tf.float32, shape=[None], reduction_type="SUM",
                                           name="sum_acc")
        ops = {
            "apply": mean.apply_grad(grad, local_step=step, name="apply"),
            "take": mean.take_grad(n, name="take"),
            "num": mean.num_accumulated(name="num"),
            "set_step": mean.set_global_step(step, name="set_step"),
            "sum_apply": total.apply_grad(grad, local_step=step, name="sum_apply"),
            "sum_take": total.take_grad(n, name="sum_take"),
            "sum_num": total.num_accumulated(name="sum_num"),
        }
    plan = [
        ("num", {}),
        ("apply", {"grad": [1, 2], "step": 0}), ("apply", {"grad": [3, 5], "step": 0}),
        ("num", {}), ("take", {"n": 2}), ("num", {}),
        ("apply", {"grad": [10, 10], "step": 0}), ("num", {}),  # stale: dropped
        ("apply", {"grad": [1, 2, 3], "step": 1}),  # the wrong shape
        ("apply", {"grad": [4, 6], "step": 1}), ("take", {"n": 1}),
        ("set_step", {"step": 7}), ("apply", {"grad": [1, 1], "step": 6}), ("num", {}),
        ("apply", {"grad": [0.5, 0.25], "step": 7}), ("apply", {"grad": [2, 4], "step": 9}),
        ("num", {}), ("take", {"n": 2}), ("take", {"n": 0}), ("take", {"n": -3}),
        ("sum_apply", {"grad": [1, 2, 3], "step": 0}),
        ("sum_apply", {"grad": [4, 5, 6], "step": 0}),
        ("sum_apply", {"grad": [1, 1], "step": 0}),  # the wrong shape once one is in
        ("sum_num", {}), ("sum_take", {"n": 2}), ("sum_apply", {"grad": [7], "step": 1}),
        ("sum_take", {"n": 1}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"grad": grad, "step": step, "n": n})
    write_fixture(out, g, ops, steps, "accumulators.pb", "accumulators.json")


def sync_replicas(out):
    g = tf.Graph()
    with g.as_default():
        gs = tf1.train.get_or_create_global_step()
        w = tf1.get_variable("w", initializer=tf.constant([1.0, -2.0]))
        b = tf1.get_variable("b", initializer=tf.constant(0.5))
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        y = tf1.placeholder(tf.float32, [None], name="y")
        loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) + b - y))
        opt = tf1.train.SyncReplicasOptimizer(tf1.train.GradientDescentOptimizer(0.1),
                                              replicas_to_aggregate=2, total_num_replicas=2)
        train = opt.minimize(loss, global_step=gs, name="train")
        init_tokens = opt.get_init_tokens_op()
        chief_qr = opt.get_chief_queue_runner()
        ops = {
            "init": tf1.global_variables_initializer(),
            "local_init": tf1.local_variables_initializer(),
            "chief_init": opt.chief_init_op,
            "init_tokens": init_tokens,
            "train": tf.identity(train, name="train_token"),  # the token taken
            "sync": chief_qr.enqueue_ops[0],
            "values": [tf.identity(w, name="w_now"), tf.identity(b, name="b_now"),
                       tf.identity(gs, name="gs_now")],
            "ready": opt.ready_for_local_init_op,
        }
    a = {"x": [[1, 2], [3, -1]], "y": [1, 0]}
    c = {"x": [[0, 1]], "y": [2]}
    plan = [
        ("ready", {}), ("init", {}), ("ready", {}), ("local_init", {}), ("chief_init", {}),
        ("init_tokens", {}),
        ("values", {}), ("train", a), ("train", c), ("sync", {}), ("values", {}),
        # Each replica's local step is the global step again (a train op leaves it at the
        # token it took, the step before, which the next apply would find stale).
        ("chief_init", {}), ("train", c), ("train", a), ("sync", {}), ("values", {}),
    ]
    with tf1.Session(graph=g) as sess:
        steps = run_steps(sess, plan, ops, {"x": x, "y": y})
    write_fixture(out, g, ops, steps, "sync_replicas.pb", "sync_replicas.json")


def main(out):
    os.makedirs(out, exist_ok=True)
    accumulators(out)
    sync_replicas(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_accumulators")
