#!/usr/bin/env python3
"""Writes the TensorFlow-made graph fixtures of tests/data/tf_graph with tf.compat.v1,
and checks files actorflow wrote the other way round. Never a dependency of the build or
the tests: the fixtures are committed, and this script remakes them.

  python scripts/peers/make_graph_fixtures.py make [OUT_DIR]      # default tests/data/tf_graph
  python scripts/peers/make_graph_fixtures.py check-meta PREFIX   # TF imports PREFIX.meta, restores PREFIX
  python scripts/peers/make_graph_fixtures.py check-events LOGDIR # TensorBoard reads actorflow's events files
  python scripts/peers/make_graph_fixtures.py check-graph FILE    # TF imports a .pb / .pbtxt actorflow wrote
  python scripts/peers/make_graph_fixtures.py check-loop-meta FILE  # TF differentiates loops and conds actorflow
      # exported: ACTORFLOW_WRITE_LOOP_META=FILE build/tests/conformance_tests \
      #   --run_test=context_defs_conformance_test/loops_and_conds_built_here_write_tensorflows_contexts
  python scripts/peers/make_graph_fixtures.py check-all [BUILD]   # all three on files a short actorflow-train run writes
  python scripts/peers/make_graph_fixtures.py check-optimizers [BUILD]  # actorflow has every op of TF's CNNs
                                                                 # with each optimizer (ref and resource variables)

`make` builds three models with tf.compat.v1, trains each 3 steps on a fixed batch, saves
model-3 (.index, .data, .meta), then records the loss of 3 more steps from there and the
output of a fixed input (reference.json):
  OUT_DIR          an MLP (4-8-3, ReLU) with reference variables: glorot-uniform kernels,
                   zero biases, tf.losses.sparse_softmax_cross_entropy, Adam 0.01 with a
                   global step, a scalar summary merged by merge_all and a Saver; also the
                   graph as text and binary (graph.pbtxt, graph.pb, tf.io.write_graph) and the
                   inference graph frozen with convert_variables_to_constants (frozen.pb);
  OUT_DIR/resource the same MLP with resource variables (VarHandleOp, ReadVariableOp,
                   ResourceApplyAdam: what tf.compat.v1 builds in TensorFlow 2 unless
                   resource variables are disabled) and a histogram summary;
  OUT_DIR/cnn      a CNN (3x3 conv with 4 filters, ReLU, 2x2 max pool, dense 3) on 6x6x1
                   images with MomentumOptimizer 0.05/0.9, reference variables, an image
                   and a text summary;
  OUT_DIR/dist     the MLP built under replica_device_setter for 2 ps tasks and a worker
                   and trained on a cluster of TensorFlow servers in the script's process,
                   with a sharded Saver (one shard per ps, as MonitoredTrainingSession's).
  OUT_DIR/cond     an MLP whose hidden layer goes through tf.cond on an `is_training`
                   placeholder_with_default (a nested cond in the true branch, a variable
                   assigned in the false one), control flow v1 (Switch/Merge), trained with
                   GradientDescent through the conds' gradients; the reference holds the
                   losses of 3 training steps after the restore and the probabilities and
                   counter with is_training false.
  OUT_DIR/while    while loops (control flow v1) in one GraphDef (graph.pb): a counter with
                   a loop invariant, nested loops, a parallel_iterations=1 matrix loop, a
                   loop in a cond branch, a cond in a loop body and a variable assigned in
                   every iteration; the reference holds their values for n = 0, 1, 3, 6.
  OUT_DIR/while/forward  a forward graph exported before any gradient (forward.meta: two
                   loops, one holding a cond, and a cond, in the while_context and
                   cond_context collections); a fresh graph imports it, tf.gradients and
                   GradientDescent train through the imported contexts; the reference holds
                   the first gradients, the losses of 5 steps and the probabilities after.
  OUT_DIR/while/train  a recurrence h = tanh(h U + h0) run `steps` (default 3) times in a
                   while loop and trained with GradientDescent through TensorFlow's loop
                   gradients (StackV2/StackPushV2/StackPopV2); model-3 and the losses of 3
                   more steps, then 2 with steps = 5, and the probabilities after.
  OUT_DIR/rnn      dynamic_rnn (a tanh cell, 5 steps of 4 inputs, 8 units) whose outputs go
                   through map_fn (a max over time per example) and scan (a running sum over
                   time): TensorArrayV3 unstacked, read, written and stacked in and out of
                   while loops, trained with GradientDescent through TensorArrayGradV3;
                   model-3, the features at the restore, the losses of 3 more steps and the
                   probabilities after.
  OUT_DIR/tensor_array  TensorArrays in one GraphDef (graph.pb): one unstacked outside a
                   while loop and read in it, one written in it and stacked, a split and
                   concat, a scatter and gather, and two gradients calls through them; the
                   reference holds the values and both gradients for a fixed x.
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import contextlib
import json
import os
import sys

import numpy as np


def batch(kind="mlp"):
    rng = np.random.default_rng(7)
    if kind == "cnn":
        x = rng.normal(size=(6, 6, 6, 1)).astype(np.float32)
    else:
        x = rng.normal(size=(6, 4)).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0, 2], dtype=np.int64)
    return x, y


def make_one(out, kind):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    if kind == "resource":
        tf1.enable_resource_variables()
    else:
        tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    g = tf1.Graph()
    target = ""
    placement = contextlib.nullcontext()
    if kind == "dist":
        # A cluster of TensorFlow servers in this process: 2 ps tasks and a worker.
        ports = free_ports(3)
        spec = tf1.train.ClusterSpec({"ps": ["localhost:%d" % p for p in ports[:2]],
                                      "worker": ["localhost:%d" % ports[2]]})
        servers = [tf1.train.Server(spec, job_name=j, task_index=i, start=True)
                   for j, i in (("ps", 0), ("ps", 1), ("worker", 0))]
        target = servers[2].target
        placement = g.device(tf1.train.replica_device_setter(cluster=spec, worker_device="/job:worker/task:0"))
    with g.as_default(), placement:
        tf1.set_random_seed(1)
        shape = [None, 6, 6, 1] if kind == "cnn" else [None, 4]
        x = tf1.placeholder(tf.float32, shape, name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")

        def dense(inp, units, name, act=None):
            with tf1.variable_scope(name):
                w = tf1.get_variable("kernel", [inp.shape[1], units], initializer=tf1.glorot_uniform_initializer())
                b = tf1.get_variable("bias", [units], initializer=tf1.zeros_initializer())
            out = tf1.nn.bias_add(tf1.matmul(inp, w), b)
            return act(out) if act else out

        if kind == "cnn":
            with tf1.variable_scope("conv"):
                k = tf1.get_variable("kernel", [3, 3, 1, 4], initializer=tf1.glorot_uniform_initializer())
                kb = tf1.get_variable("bias", [4], initializer=tf1.zeros_initializer())
            c = tf.nn.relu(tf1.nn.bias_add(tf1.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), kb))
            p = tf1.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            logits = dense(tf1.reshape(p, [-1, 36]), 3, "logits")
        else:
            h = dense(x, 8, "hidden", tf.nn.relu)
            logits = dense(h, 3, "logits")
        probs = tf1.nn.softmax(logits, name="probs")
        loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf1.train.get_or_create_global_step()
        if kind == "cnn":
            train = tf1.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=step)
        else:
            train = tf1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        tf1.summary.scalar("loss", loss)
        if kind == "resource":
            tf1.summary.histogram("hidden_kernel", tf1.trainable_variables()[0])
        if kind == "cnn":
            tf1.summary.image("input", x, max_outputs=2)
            tf1.summary.text("note", tf.constant("a CNN"))
        merged = tf1.summary.merge_all()
        # On a cluster, the Saver MonitoredTrainingSession's Scaffold makes: one shard per ps.
        saver = tf1.train.Saver(sharded=kind == "dist")
        bx, by = batch(kind)
        with tf1.Session(target, graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: bx, y: by})
            prefix = saver.save(sess, os.path.join(out, "model"), global_step=step)
            losses = []
            for _ in range(3):
                value, _ = sess.run([loss, train], {x: bx, y: by})
                losses.append(float(value))
            after = sess.run(probs, {x: bx}).tolist()
            summary = sess.run(merged, {x: bx, y: by})
            reference = {"prefix": os.path.basename(prefix), "x": bx.reshape(6, -1).tolist(), "y": by.tolist(),
                         "losses_after_restore": losses, "probs_after": after,
                         "summary_bytes": len(summary), "tensorflow": tf.__version__}
            if kind == "mlp":
                tf.io.write_graph(g.as_graph_def(), out, "graph.pbtxt", as_text=True)
                tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
                frozen = tf1.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["probs"])
                tf.io.write_graph(frozen, out, "frozen.pb", as_text=False)
                reference["frozen_probs"] = sess.run(probs, {x: bx}).tolist()
            if kind == "cnn":
                from tensorflow.core.framework import summary_pb2
                parsed = summary_pb2.Summary.FromString(summary)
                reference["summary_tags"] = [v.tag for v in parsed.value]
    # The checkpoint state file names absolute paths; the tests use the prefix directly.
    os.remove(os.path.join(out, "checkpoint"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)))


def make_cond(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # control flow v1: Switch and Merge, not If
    tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(1)
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        training = tf1.placeholder_with_default(False, [], name="is_training")
        deep = tf1.placeholder_with_default(True, [], name="deep")
        w1 = tf1.get_variable("hidden/kernel", [4, 8], initializer=tf1.glorot_uniform_initializer())
        w2 = tf1.get_variable("logits/kernel", [8, 3], initializer=tf1.glorot_uniform_initializer())
        evals = tf1.get_variable("evals", [], tf.float32, initializer=tf1.zeros_initializer(), trainable=False)
        h = tf.nn.relu(tf1.matmul(x, w1))

        def train_branch():
            # A nested cond: scaled, or squashed, by the second predicate.
            return tf1.cond(deep, lambda: h * 0.5, lambda: tf.tanh(h) + 0.1)

        def eval_branch():
            with tf1.control_dependencies([tf1.assign_add(evals, 1.0)]):
                return tf.identity(h * 0.5)

        h2 = tf1.cond(training, train_branch, eval_branch, name="dropout_like")
        logits = tf1.matmul(h2, w2)
        probs = tf1.nn.softmax(logits, name="probs")
        loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf1.train.get_or_create_global_step()
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        saver = tf1.train.Saver()
        bx, by = batch("mlp")
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: bx, y: by, training: True})
            prefix = saver.save(sess, os.path.join(out, "model"), global_step=step)
            losses, shallow = [], []
            for _ in range(3):
                value, _ = sess.run([loss, train], {x: bx, y: by, training: True})
                losses.append(float(value))
            for _ in range(2):
                value, _ = sess.run([loss, train], {x: bx, y: by, training: True, deep: False})
                shallow.append(float(value))
            after = sess.run(probs, {x: bx}).tolist()
            counter = float(sess.run(evals))
            reference = {"prefix": os.path.basename(prefix), "x": bx.tolist(), "y": by.tolist(),
                         "losses_after_restore": losses, "losses_shallow": shallow,
                         "probs_after": after, "evals_after": counter,
                         "tensorflow": tf.__version__}
    os.remove(os.path.join(out, "checkpoint"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)))


def build_loops(tf, tf1):
    """The loops of make-while (and make-functional) in the default graph: fed by
    placeholders n (int32) and x (float32 [3]), with p choosing a cond's branch; each
    loop's result has an Identity (sum_out, nested_out, power_out, loop_in_cond_out,
    collatz_out, count_out) and `counter` is a variable assigned in every iteration.
    Returns n, x, p and counter."""
    n = tf1.placeholder(tf.int32, [], name="n")
    x = tf1.placeholder(tf.float32, [3], name="x")
    # A counter and an accumulator, with x a loop invariant.
    _, acc = tf1.while_loop(lambda i, a: i < n,
                            lambda i, a: (i + 1, a + x * tf.cast(i, tf.float32)),
                            [tf.constant(0), tf.zeros([3])], name="sum")
    tf.identity(acc, name="sum_out")

    # Nested loops: the inner loop's bound is the outer loop's variable.
    def outer_body(i, total):
        _, inner = tf1.while_loop(lambda j, s: j <= i, lambda j, s: (j + 1, s + j),
                                  [tf.constant(0), total], name="inner")
        return i + 1, inner
    _, nested = tf1.while_loop(lambda i, t: i < n, outer_body,
                               [tf.constant(0), tf.constant(0)], name="outer")
    tf.identity(nested, name="nested_out")
    # One iteration at a time, a matrix product per iteration.
    w = tf.constant([[0.5, 0.2, 0.0], [0.1, 0.6, 0.3], [0.0, 0.4, 0.7]])
    _, v = tf1.while_loop(lambda k, v: k < n,
                          lambda k, v: (k + 1, tf.tanh(tf1.matmul(w, v) + 0.1)),
                          [tf.constant(0), tf.reshape(x, [3, 1])], parallel_iterations=1,
                          name="power")
    tf.identity(v, name="power_out")
    # A loop in a cond branch (dead when the branch is not taken).
    p = tf1.placeholder_with_default(True, [], name="p")
    in_cond = tf1.cond(p, lambda: tf1.while_loop(lambda i: i < n, lambda i: i + 2,
                                                 [tf.constant(0)], name="by_two"),
                       lambda: n * 10, name="loop_in_cond")
    tf.identity(in_cond, name="loop_in_cond_out")

    # A cond in a loop body: the steps of the Collatz sequence from n.
    def collatz_body(v, steps):
        v2 = tf1.cond(tf.equal(tf.math.floormod(v, 2), 0), lambda: tf.math.floordiv(v, 2),
                      lambda: 3 * v + 1)
        return v2, steps + 1
    _, steps = tf1.while_loop(lambda v, s: v > 1, collatz_body, [n, tf.constant(0)],
                              name="collatz")
    tf.identity(steps, name="collatz_out")
    # A variable assigned in every iteration (RefEnter of its reference).
    counter = tf1.get_variable("counter", [], tf.int32, initializer=tf1.zeros_initializer())

    def count_body(i):
        with tf1.control_dependencies([tf1.assign_add(counter, 1)]):
            return i + 1
    counted = tf1.while_loop(lambda i: i < n, count_body, [tf.constant(0)], name="count")
    tf.identity(counted, name="count_out")
    return n, x, p, counter


def make_while(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # control flow v1: Enter, Merge, Switch, Exit, NextIteration
    tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    g = tf1.Graph()
    with g.as_default():
        n, x, p, counter = build_loops(tf, tf1)
        tf1.global_variables_initializer()  # "init"
        tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
        xs = [0.5, -1.0, 2.0]
        runs = []
        with tf1.Session(graph=g) as sess:
            sess.run("init")
            for nv in (0, 1, 3, 6):
                r = sess.run({"sum": "sum_out:0", "nested": "nested_out:0", "power": "power_out:0",
                              "in_cond": "loop_in_cond_out:0", "collatz": "collatz_out:0",
                              "count": "count_out:0"}, {n: nv, x: xs})
                r["not_in_cond"] = sess.run("loop_in_cond_out:0", {n: nv, p: False})
                r["counter"] = sess.run("counter:0")
                runs.append({"n": nv, **{k: np.asarray(val).tolist() for k, val in r.items()}})
        ops = sorted({node.op for node in g.as_graph_def().node})
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"x": xs, "runs": runs, "ops": ops, "tensorflow": tf.__version__}, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)), ops)


def make_while_train(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # control flow v1, and its gradient loops with Stack ops
    tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(3)
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        steps = tf1.placeholder_with_default(3, [], name="steps")
        w = tf1.get_variable("in/kernel", [4, 8], initializer=tf1.glorot_uniform_initializer())
        u = tf1.get_variable("rec/kernel", [8, 8], initializer=tf1.glorot_uniform_initializer())
        v = tf1.get_variable("out/kernel", [8, 3], initializer=tf1.glorot_uniform_initializer())
        h0 = tf.tanh(tf1.matmul(x, w))
        # A recurrence: the body reads a variable (a loop invariant) and the loop's input.
        _, h = tf1.while_loop(lambda i, h: i < steps,
                              lambda i, h: (i + 1, tf.tanh(tf1.matmul(h, u) + h0)),
                              [tf.constant(0), h0], name="rnn")
        logits = tf1.matmul(h, v)
        probs = tf1.nn.softmax(logits, name="probs")
        loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf1.train.get_or_create_global_step()
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        saver = tf1.train.Saver()
        bx, by = batch("mlp")
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: bx, y: by})
            prefix = saver.save(sess, os.path.join(out, "model"), global_step=step)
            losses, longer = [], []
            for _ in range(3):
                value, _ = sess.run([loss, train], {x: bx, y: by})
                losses.append(float(value))
            for _ in range(2):
                value, _ = sess.run([loss, train], {x: bx, y: by, steps: 5})
                longer.append(float(value))
            after = sess.run(probs, {x: bx}).tolist()
            reference = {"prefix": os.path.basename(prefix), "x": bx.tolist(), "y": by.tolist(),
                         "losses_after_restore": losses, "losses_5_steps": longer,
                         "probs_after": after, "tensorflow": tf.__version__,
                         "ops": sorted({n.op for n in g.as_graph_def().node})}
    os.remove(os.path.join(out, "checkpoint"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)), reference["ops"])


def make_while_forward(out):
    """A forward graph exported before any gradient (forward.meta): TensorFlow writes its
    loops and conds to the while_context and cond_context collections, and a fresh graph
    that imports it trains through them (tf.gradients builds the gradient loops from the
    imported contexts). The reference holds what that fresh TensorFlow graph computes."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(21)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        steps = tf1.placeholder_with_default(3, [], name="steps")
        training = tf1.placeholder_with_default(True, [], name="training")
        init = lambda *shape: rng.uniform(-0.6, 0.6, size=shape).astype(np.float32)
        w = tf1.get_variable("in/kernel", initializer=init(4, 8))
        u = tf1.get_variable("rec/kernel", initializer=init(8, 8))
        v = tf1.get_variable("out/kernel", initializer=init(8, 3))
        h0 = tf.tanh(tf1.matmul(x, w))
        # A recurrence reading a variable and a tensor from outside (loop invariants).
        _, h = tf1.while_loop(lambda i, h: i < steps,
                              lambda i, h: (i + 1, tf.tanh(tf1.matmul(h, u) + h0)),
                              [tf.constant(0), h0], name="rnn")
        # A top-level cond (two cond_context entries) ...
        h = tf1.cond(training, lambda: h * 0.9, lambda: tf.identity(h), name="scale")
        # ... and a cond inside a loop (nested in its while_context entry).
        _, h = tf1.while_loop(lambda i, a: i < 2,
                              lambda i, a: (i + 1, tf1.cond(i > 0, lambda: a * 1.5, lambda: a + 0.25)),
                              [tf.constant(0), h], name="twice")
        logits = tf1.matmul(h, v)
        tf.identity(tf1.losses.sparse_softmax_cross_entropy(y, logits), name="loss")
        tf1.nn.softmax(logits, name="probs")
        tf1.train.export_meta_graph(os.path.join(out, "forward.meta"))
    bx, by = batch("mlp")
    g2 = tf1.Graph()
    with g2.as_default():
        tf1.train.import_meta_graph(os.path.join(out, "forward.meta"))
        loss = g2.get_tensor_by_name("loss:0")
        xs = [g2.get_tensor_by_name(n) for n in ("x:0", "in/kernel:0", "rec/kernel:0", "out/kernel:0")]
        grads = tf1.gradients(loss, xs)
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
        feed = {"x:0": bx, "y:0": by}
        with tf1.Session(graph=g2) as sess:
            sess.run(tf1.global_variables_initializer())
            first = [a.tolist() for a in sess.run(grads, feed)]
            losses, longer = [], []
            for _ in range(3):
                value, _ = sess.run([loss, train], feed)
                losses.append(float(value))
            for _ in range(2):
                value, _ = sess.run([loss, train], dict(feed, **{"steps:0": 5, "training:0": False}))
                longer.append(float(value))
            after = sess.run("probs:0", {"x:0": bx}).tolist()
    m = tf1.MetaGraphDef()
    m.ParseFromString(open(os.path.join(out, "forward.meta"), "rb").read())
    reference = {"x": bx.tolist(), "y": by.tolist(), "gradients": first, "losses": losses,
                 "losses_5_steps_not_training": longer, "probs_after": after,
                 "while_contexts": len(m.collection_def["while_context"].bytes_list.value),
                 "cond_contexts": len(m.collection_def["cond_context"].bytes_list.value),
                 "tensorflow": tf.__version__}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)))


class _TanhCell:
    """A plain RNN cell h' = tanh([x, h] K + b) for dynamic_rnn (Keras 3 has no BasicRNNCell)."""

    def __init__(self, units, kernel, bias):
        self.units, self.kernel, self.bias = units, kernel, bias

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def zero_state(self, batch_size, dtype):
        import tensorflow as tf
        return tf.zeros([batch_size, self.units], dtype)

    def __call__(self, inputs, state, scope=None):
        import tensorflow as tf
        h = tf.tanh(tf.compat.v1.matmul(tf.concat([inputs, state], 1), self.kernel) + self.bias)
        return h, h


def make_rnn(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # control flow v1, and TensorArrayV3 (not TensorList) arrays
    tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(11)
    bx = rng.normal(size=(6, 5, 4)).astype(np.float32)
    by = np.array([0, 1, 2, 1, 0, 2], dtype=np.int64)
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(5)
        x = tf1.placeholder(tf.float32, [None, 5, 4], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        kernel = tf1.get_variable("rnn/kernel", [12, 8], initializer=tf1.glorot_uniform_initializer())
        bias = tf1.get_variable("rnn/bias", [8], initializer=tf1.zeros_initializer())
        out_w = tf1.get_variable("out/kernel", [24, 3], initializer=tf1.glorot_uniform_initializer())
        # dynamic_rnn: the input unstacked into a TensorArray, read and written in a loop.
        outputs, state = tf1.nn.dynamic_rnn(_TanhCell(8, kernel, bias), x, dtype=tf.float32)
        # map_fn over the batch and scan over time: TensorArrays in and out of their loops.
        pooled = tf1.map_fn(lambda o: tf.reduce_max(o, 0), outputs)
        running = tf1.scan(lambda a, o: a + o, tf.transpose(outputs, [1, 0, 2]))
        features = tf.concat([state, pooled, running[-1]], 1, name="features")
        logits = tf1.matmul(features, out_w)
        probs = tf1.nn.softmax(logits, name="probs")
        loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf1.train.get_or_create_global_step()
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        saver = tf1.train.Saver()
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: bx, y: by})
            prefix = saver.save(sess, os.path.join(out, "model"), global_step=step)
            features_now = sess.run(features, {x: bx}).tolist()
            losses = []
            for _ in range(3):
                value, _ = sess.run([loss, train], {x: bx, y: by})
                losses.append(float(value))
            after = sess.run(probs, {x: bx}).tolist()
            reference = {"prefix": os.path.basename(prefix), "x": bx.tolist(), "y": by.tolist(),
                         "features_at_restore": features_now, "losses_after_restore": losses,
                         "probs_after": after, "tensorflow": tf.__version__,
                         "ops": sorted({n.op for n in g.as_graph_def().node})}
    os.remove(os.path.join(out, "checkpoint"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, sorted(os.listdir(out)), reference["ops"])


def make_tensor_array(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # control flow v1: _GraphTensorArray (TensorArrayV3)
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(13)
    vx = rng.normal(size=(5, 3)).astype(np.float32)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [5, 3], name="x")
        order = tf.constant([4, 3, 2, 1, 0], name="order")
        picks = tf.constant([0, 2], name="picks")
        lengths = tf.constant([2, 3], dtype=tf.int64, name="lengths")
        # An array unstacked outside a loop, read inside it; another written inside it.
        ta = tf.TensorArray(tf.float32, size=5).unstack(x)
        out_ta = tf.TensorArray(tf.float32, size=5)

        def body(i, o):
            r = ta.read(i)
            return i + 1, o.write(i, tf.tanh(r) * r)

        _, o = tf1.while_loop(lambda i, o: i < 5, body, [tf.constant(0), out_ta])
        y = tf.identity(o.stack(), name="y")
        # Outside loops: split and concat, scatter and gather.
        joined = tf.reshape(
            tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x, lengths).concat(), [5, 3])
        picked = tf.TensorArray(tf.float32, size=5).scatter(order, x).gather(picks)
        loss = tf.add(tf.reduce_sum(y * y), tf.reduce_sum(joined * joined) + tf.reduce_sum(picked),
                      name="loss")
        dx = tf.identity(tf1.gradients(loss, x)[0], name="dx")
        # A second gradients call gets gradient arrays of its own (source "gradients_1").
        dy = tf.identity(tf1.gradients(tf.reduce_sum(y), x)[0], name="dy")
        with tf1.Session(graph=g) as sess:
            vy, vloss, vdx, vdy = sess.run([y, loss, dx, dy], {x: vx})
    tf1.train.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    reference = {"x": vx.tolist(), "y": vy.tolist(), "loss": float(vloss), "dx": vdx.tolist(),
                 "dy": vdy.tolist(), "tensorflow": tf.__version__,
                 "ops": sorted({n.op for n in g.as_graph_def().node})}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote", out, len(g.as_graph_def().node), "nodes", reference["ops"])


def free_ports(n):
    import socket
    socks = [socket.socket() for _ in range(n)]
    for sock in socks:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


def make(out):
    # Each model in a process of its own: resource variables are a process-wide switch.
    import subprocess
    for kind, sub in (("mlp", ""), ("resource", "resource"), ("cnn", "cnn"), ("dist", "dist")):
        subprocess.run([sys.executable, __file__, "make-one", kind, os.path.join(out, sub)], check=True)
    subprocess.run([sys.executable, __file__, "make-cond", os.path.join(out, "cond")], check=True)
    subprocess.run([sys.executable, __file__, "make-while", os.path.join(out, "while")], check=True)
    subprocess.run([sys.executable, __file__, "make-while-forward", os.path.join(out, "while", "forward")],
                   check=True)
    subprocess.run([sys.executable, __file__, "make-while-train", os.path.join(out, "while", "train")],
                   check=True)
    subprocess.run([sys.executable, __file__, "make-rnn", os.path.join(out, "rnn")], check=True)
    subprocess.run([sys.executable, __file__, "make-tensor-array", os.path.join(out, "tensor_array")],
                   check=True)


def check_meta(prefix):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    g = tf1.Graph()
    with g.as_default():
        # Devices cleared, as a user loads a cluster's checkpoint into a local session.
        saver = tf1.train.import_meta_graph(prefix + ".meta", clear_devices=True)
        with tf1.Session(graph=g) as sess:
            saver.restore(sess, prefix)
            names = [v.name for v in tf1.global_variables()]
            train_ops = tf1.get_collection("train_op")
            print("TF", tf.__version__, "imported", prefix + ".meta:", len(g.get_operations()), "ops,",
                  len(names), "variables,", len(train_ops), "train ops")
            for v in tf1.trainable_variables():
                print(" ", v.name, sess.run(v).ravel()[:4])
            # And TensorFlow saves through the imported SaverDef (a sharded one computes its
            # shards' names in the graph).
            import tempfile
            again = saver.save(sess, os.path.join(tempfile.mkdtemp(prefix="tf-again-"), "model"))
            print("saved again:", sorted(os.listdir(os.path.dirname(again))))
    print("OK")


def check_loop_meta(path):
    """TensorFlow imports a MetaGraphDef actorflow wrote with while loops and conds (the
    forward graph of make-while-forward, built with af::while_loop and af::cond: x, y,
    loss and three kernels), rebuilds their contexts from the while_context and
    cond_context collections and differentiates through them: tf.gradients against central
    differences of the loss."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    tf1.disable_resource_variables()
    g = tf1.Graph()
    with g.as_default():
        tf1.train.import_meta_graph(path)
        loops, conds = len(tf1.get_collection("while_context")), len(tf1.get_collection("cond_context"))
        loss = g.get_tensor_by_name("loss:0")
        kernels = ("in/kernel:0", "rec/kernel:0", "out/kernel:0")
        grads = tf1.gradients(loss, [g.get_tensor_by_name(n) for n in kernels])
        bx, by = batch("mlp")
        feed = {"x:0": bx, "y:0": by}
        variables = {v.name: v for v in tf1.global_variables()}
        worst = 0.0
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            values = sess.run(grads, feed)
            for name, grad in zip(kernels, values):
                v = variables[name]
                base = sess.run(v)
                for idx in [(0, 0), (1, 2), (3, 1)]:
                    moved = []
                    for eps in (1e-2, -1e-2):
                        m = base.copy()
                        m[idx] += eps
                        v.load(m, sess)
                        moved.append(sess.run(loss, feed))
                    v.load(base, sess)
                    worst = max(worst, abs((moved[0] - moved[1]) / 2e-2 - grad[idx]))
        print("TF", tf.__version__, "imported", path + ":", loops, "while contexts,", conds,
              "cond contexts; largest |tf.gradients - central difference|:", worst)
        assert loops == 2 and conds == 2 and worst < 2e-3
    print("OK")


def check_graph(path):
    """TensorFlow reads a GraphDef actorflow wrote (binary .pb or text .pbtxt) and imports it."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    from google.protobuf import text_format
    tf1 = tf.compat.v1
    data = open(path, "rb").read()
    gd = tf1.GraphDef()
    if path.endswith(".pbtxt"):
        text_format.Parse(data.decode(), gd)
    else:
        gd.ParseFromString(data)
    with tf1.Graph().as_default() as g:
        tf1.import_graph_def(gd, name="")
        print("TF", tf.__version__, "imported", path + ":", len(g.get_operations()), "ops, producer", gd.versions.producer)
    print("OK")


def check_all(build, workdir):
    """actorflow writes, TensorFlow and TensorBoard read: actorflow-train (one short epoch
    with --logdir and --checkpoint-dir) leaves events and a checkpoint with its .meta,
    actorflow-graph converts the .meta's graph to .pb and .pbtxt; then check-meta,
    check-graph and check-events run on them."""
    import glob
    import subprocess
    logdir = os.path.join(workdir, "logs")
    ckpt = os.path.join(workdir, "ckpt")
    subprocess.run([os.path.join(build, "apps/train/actorflow-train"), "--epochs", "1", "--train-examples", "2000",
                    "--summary-every", "5", "--logdir", logdir, "--checkpoint-dir", ckpt, "--quiet"], check=True)
    meta = sorted(glob.glob(os.path.join(ckpt, "model.ckpt-*.meta")))[-1]
    graph = os.path.join(build, "apps/graph/actorflow-graph")
    for ext in ("pb", "pbtxt"):
        subprocess.run([graph, "convert", meta, os.path.join(workdir, "graph." + ext)], check=True)
    check_meta(meta[:-len(".meta")])
    check_graph(os.path.join(workdir, "graph.pb"))
    check_graph(os.path.join(workdir, "graph.pbtxt"))
    check_events(logdir)


def write_optimizer_graphs(out, variables):
    """A CNN (conv, max pool, dense, dropout) with each tf.compat.v1 optimizer (GradientDescent
    with exponential_decay, Momentum with Nesterov, Adam, Adagrad, centered RMSProp),
    clip_by_global_norm, tf.metrics.accuracy, scalar, histogram and image summaries and a
    Saver, exported as OUT/<variables>_<optimizer>.meta (variables: "ref" or "resource")."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    if variables == "ref":
        tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    for name in ("gd", "momentum", "adam", "adagrad", "rmsprop"):
        with tf1.Graph().as_default():
            x = tf1.placeholder(tf.float32, [None, 28, 28, 1], name="x")
            y = tf1.placeholder(tf.int64, [None], name="y")

            def dense(inp, units, scope):
                with tf1.variable_scope(scope):
                    w = tf1.get_variable("kernel", [inp.shape[1], units], initializer=tf1.glorot_uniform_initializer())
                    b = tf1.get_variable("bias", [units], initializer=tf1.zeros_initializer())
                return tf1.nn.bias_add(tf1.matmul(inp, w), b)

            with tf1.variable_scope("conv"):
                k = tf1.get_variable("kernel", [3, 3, 1, 8], initializer=tf1.truncated_normal_initializer(stddev=0.1))
                kb = tf1.get_variable("bias", [8], initializer=tf1.constant_initializer(0.1))
            h = tf.nn.relu(tf1.nn.bias_add(tf1.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), kb))
            h = tf1.reshape(tf1.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [-1, 14 * 14 * 8])
            h = tf1.nn.dropout(tf.nn.relu(dense(h, 32, "fc1")), keep_prob=0.5)
            logits = dense(h, 10, "logits")
            loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
            step = tf1.train.get_or_create_global_step()
            lr = tf1.train.exponential_decay(0.1, step, 100, 0.96, staircase=True)
            opt = {"gd": lambda: tf1.train.GradientDescentOptimizer(lr),
                   "momentum": lambda: tf1.train.MomentumOptimizer(0.01, 0.9, use_nesterov=True),
                   "adam": lambda: tf1.train.AdamOptimizer(1e-3),
                   "adagrad": lambda: tf1.train.AdagradOptimizer(0.1),
                   "rmsprop": lambda: tf1.train.RMSPropOptimizer(0.01, centered=True)}[name]()
            grads_and_vars = opt.compute_gradients(loss)
            clipped, _ = tf1.clip_by_global_norm([g for g, _ in grads_and_vars], 5.0)
            opt.apply_gradients(list(zip(clipped, [v for _, v in grads_and_vars])), global_step=step)
            tf1.metrics.accuracy(y, tf.argmax(logits, 1))
            tf1.summary.scalar("loss", loss)
            tf1.summary.scalar("learning_rate", lr)
            tf1.summary.histogram("logits", logits)
            tf1.summary.image("x", x, max_outputs=1)
            tf1.summary.merge_all()
            tf1.train.Saver()
            tf1.train.export_meta_graph(os.path.join(out, "%s_%s.meta" % (variables, name)))


def check_optimizers(build, workdir):
    """Every op type those graphs hold runs in actorflow (`actorflow-graph info` reports none
    missing), for reference and for resource variables."""
    import glob
    import subprocess
    for variables in ("ref", "resource"):
        subprocess.run([sys.executable, __file__, "write-optimizer-graphs", workdir, variables], check=True)
    failed = []
    for meta in sorted(glob.glob(os.path.join(workdir, "*.meta"))):
        out = subprocess.run([os.path.join(build, "apps/graph/actorflow-graph"), "info", meta],
                             capture_output=True, text=True).stdout
        ok = "actorflow has every op type of this graph" in out
        print(os.path.basename(meta), "OK" if ok else "MISSING OPS:\n" + out)
        if not ok:
            failed.append(meta)
    if failed:
        sys.exit("%d graphs need ops actorflow lacks" % len(failed))
    print("OK")


def check_events(logdir):
    """TensorBoard's own reader (EventAccumulator, as `tensorboard --logdir` loads a run) over
    every run under LOGDIR: its scalars, histograms and graph. Fails when a run has none."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    from tensorboard.backend.event_processing import event_multiplexer
    mux = event_multiplexer.EventMultiplexer()
    mux.AddRunsFromDirectory(logdir)
    mux.Reload()
    runs = mux.Runs()
    if not runs:
        sys.exit("no runs under " + logdir)
    for run, tags in sorted(runs.items()):
        acc = mux.GetAccumulator(run)
        scalars = {t: len(acc.Scalars(t)) for t in tags.get("scalars", [])}
        histograms = {t: len(acc.Histograms(t)) for t in tags.get("histograms", [])}
        # Images decoded by PIL when it is there: TensorBoard's image plugin serves the PNG.
        images = {}
        for t in tags.get("images", []):
            events = acc.Images(t)
            images[t] = "%d x %dx%d" % (len(events), events[0].width, events[0].height)
            try:
                import io
                from PIL import Image
                Image.open(io.BytesIO(events[0].encoded_image_string)).load()
            except ImportError:
                pass
        texts = {}
        for t in tags.get("tensors", []):
            events = acc.Tensors(t)
            plugin = acc.SummaryMetadata(t).plugin_data.plugin_name
            texts[t] = "%d (%s)" % (len(events), plugin)
        nodes = len(acc.Graph().node) if tags.get("graph") else 0
        print("run %s: scalars %s, histograms %s, images %s, tensors %s, graph nodes %d"
              % (run or ".", scalars, histograms, images, texts, nodes))
        if not scalars:
            sys.exit("run %s has no scalars" % run)
    print("OK")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "make"
    if cmd == "make":
        make(sys.argv[2] if len(sys.argv) > 2 else "tests/data/tf_graph")
    elif cmd == "make-one":
        make_one(sys.argv[3], sys.argv[2])
    elif cmd == "make-cond":
        make_cond(sys.argv[2])
    elif cmd == "make-while":
        make_while(sys.argv[2])
    elif cmd == "make-while-train":
        make_while_train(sys.argv[2])
    elif cmd == "make-while-forward":
        make_while_forward(sys.argv[2])
    elif cmd == "make-rnn":
        make_rnn(sys.argv[2])
    elif cmd == "make-tensor-array":
        make_tensor_array(sys.argv[2])
    elif cmd == "check-meta":
        check_meta(sys.argv[2])
    elif cmd == "check-events":
        check_events(sys.argv[2])
    elif cmd == "write-optimizer-graphs":
        write_optimizer_graphs(sys.argv[2], sys.argv[3])
    elif cmd == "check-optimizers":
        import tempfile
        check_optimizers(sys.argv[2] if len(sys.argv) > 2 else "build", tempfile.mkdtemp(prefix="af-tf-optimizers-"))
    elif cmd == "check-graph":
        check_graph(sys.argv[2])
    elif cmd == "check-loop-meta":
        check_loop_meta(sys.argv[2])
    elif cmd == "check-all":
        import tempfile
        check_all(sys.argv[2] if len(sys.argv) > 2 else "build", tempfile.mkdtemp(prefix="af-tf-check-"))
    else:
        sys.exit(__doc__)
