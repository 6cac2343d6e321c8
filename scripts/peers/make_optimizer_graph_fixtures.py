#!/usr/bin/env python3
"""Writes the TensorFlow-made training graphs of tests/data/tf_graph/optimizers with the
optimizers of more_training_ops.hpp, and checks that actorflow has their op types. Never a
dependency of the build or the tests: the fixtures are committed, and this script remakes
them (tests/conformance/optimizer_graph_conformance_test.cpp reads them). A script of its
own beside make_graph_fixtures.py, which is near its length limit.

  python scripts/peers/make_optimizer_graph_fixtures.py make-ftrl [OUT_DIR]
      # default tests/data/tf_graph/optimizers
  python scripts/peers/make_optimizer_graph_fixtures.py check [BUILD] [OUT_DIR]
      # `actorflow-graph info` finds every op type of both .meta files

`make-ftrl` builds, with tf.compat.v1 in graph mode, a small wide model: a 20x4 "embedding"
looked up by a weighted SparseTensor of ids (sparse_placeholder "sp_ids", its weights'
values "sp_weights"; embedding_lookup_sparse, mean combiner) and by a dense [batch, 2] id
placeholder "wide_ids" (embedding_lookup, summed): the gradient is the two IndexedSlices
concatenated, indices repeated; both concatenated with 3 features "x" go through an 11x1
"dense/kernel" to one logit ("logits"); the loss ("loss", in the losses collection) is the
mean sigmoid cross-entropy against float labels "y". One backward pass, gated, feeds one
train op per optimizer (the train_op collection, named train_<name>; each updates the
embedding with the sparse update op after TensorFlow's Unique/UnsortedSegmentSum
deduplication, the kernel with the dense one, and increments global_step):
  ftrl      FtrlOptimizer(0.1, l1=0.01, l2=0.02, l2_shrinkage_regularization_strength=0.01):
            ApplyFtrlV2, SparseApplyFtrlV2;
  ftrlv1    FtrlOptimizer(0.2, learning_rate_power=-0.6, l1=0.005, l2=0.01, name="FtrlV1"):
            ApplyFtrl, SparseApplyFtrl;
  adadelta  AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6): ApplyAdadelta, SparseApplyAdadelta;
  proxada   ProximalAdagradOptimizer(0.1, l1=0.01, l2=0.02): ApplyProximalAdagrad,
            SparseApplyProximalAdagrad;
  proxgd    ProximalGradientDescentOptimizer(0.2, l1=0.01, l2=0.02):
            ApplyProximalGradientDescent, SparseApplyProximalGradientDescent;
  adagradda AdagradDAOptimizer(0.1, global_step, l1=0.01, l2=0.02): ApplyAdagradDA,
            SparseApplyAdagradDA.
The graph is built twice, each in a process of its own (resource variables are a
process-wide switch): OUT_DIR/ref with reference variables (VariableV2, Apply*) and
OUT_DIR/resource with resource variables (VarHandleOp, ResourceGather, ResourceApply*).
After global_variables_initializer the Saver saves the initial checkpoint (.index, .data)
and the .meta (SaverDef and collections); then, for each optimizer, the checkpoint is
restored and 5 train steps on 5 fixed batches (numpy, seed 11) record the loss each step
fetches with the train op, then the final model, slots and global_step. Both graphs train
alike, bit for bit: OUT_DIR/reference.json holds the batches (flat, row-major), the results
per optimizer and each graph's op types. About 195 KB in all.
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import subprocess
import sys

import numpy as np

OPTIMIZERS = ("ftrl", "ftrlv1", "adadelta", "proxada", "proxgd", "adagradda")
STEPS = 5
BATCH = 4


def batches():
    """STEPS batches: sparse ids (1 to 3 per example, sorted, distinct within an example),
    dense wide ids, features and 0/1 labels."""
    rng = np.random.default_rng(11)
    out = []
    for _ in range(STEPS):
        indices, values, weights = [], [], []
        for row in range(BATCH):
            ids = sorted(rng.choice(20, size=int(rng.integers(1, 4)), replace=False).tolist())
            for col, i in enumerate(ids):
                indices.append([row, col])
                values.append(int(i))
                weights.append(float("%.9g" % rng.uniform(0.5, 2.0)))
        out.append({"sp_indices": indices, "sp_values": values, "sp_weights": weights, "sp_shape": [BATCH, 3],
                    "wide_ids": rng.integers(0, 20, size=BATCH * 2).tolist(),
                    "x": compact(rng.normal(size=(BATCH, 3)).astype(np.float32)),
                    "y": compact(rng.integers(0, 2, size=BATCH).astype(np.float32))})
    return out


def compact(value):
    """The float32 values of an array as the shortest decimals that keep them."""
    return [float("%.9g" % v) if isinstance(v, float) else v for v in np.asarray(value).ravel().tolist()]


def make_one(out, variables):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    if variables == "resource":
        tf1.enable_resource_variables()
    else:
        tf1.disable_resource_variables()
    os.makedirs(out, exist_ok=True)
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(3)
        sp_ids = tf1.sparse_placeholder(tf.int64, name="sp_ids")
        wide_ids = tf1.placeholder(tf.int64, [None, 2], name="wide_ids")
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        sp_weights = tf1.placeholder(tf.float32, [None], name="sp_weights")
        table = tf1.get_variable("embedding", [20, 4], initializer=tf1.random_normal_initializer(stddev=0.5))
        # Weighted: TensorFlow 2.21's unweighted fast path differentiates through
        # SparseSegmentMeanGradV2, which actorflow lacks.
        emb = tf1.nn.embedding_lookup_sparse(table, sp_ids, tf1.SparseTensor(sp_ids.indices, sp_weights,
                                                                             sp_ids.dense_shape), combiner="mean")
        wide = tf1.reduce_sum(tf1.nn.embedding_lookup(table, wide_ids), 1)
        with tf1.variable_scope("dense"):
            w = tf1.get_variable("kernel", [11, 1], initializer=tf1.glorot_uniform_initializer())
        logits = tf1.matmul(tf1.concat([emb, wide, x], 1), w, name="logits")
        # The mean of sigmoid_cross_entropy_with_logits, in the losses collection (what
        # tf.losses.sigmoid_cross_entropy computes, in half the nodes).
        loss = tf1.reduce_mean(tf1.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        tf1.losses.add_loss(loss)
        step = tf1.train.get_or_create_global_step()
        model = [table, w]
        # One backward pass (optimizer.compute_gradients is tf.gradients for all of these)
        # shared by every optimizer's apply_gradients: a train op each, in OPTIMIZERS' order.
        # Gated as compute_gradients' GATE_GRAPH gates them (control_flow_ops.tuple): with
        # reference variables the kernel's update, in place, would otherwise race the
        # embedding's gradient, which reads the kernel, and TensorFlow's losses would vary
        # from run to run.
        grads = tf1.tuple(tf1.gradients(loss, model))
        opts = {"ftrl": lambda: tf1.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                        l2_regularization_strength=0.02,
                                                        l2_shrinkage_regularization_strength=0.01),
                "ftrlv1": lambda: tf1.train.FtrlOptimizer(0.2, learning_rate_power=-0.6,
                                                          l1_regularization_strength=0.005,
                                                          l2_regularization_strength=0.01, name="FtrlV1"),
                "adadelta": lambda: tf1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
                "proxada": lambda: tf1.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01,
                                                                      l2_regularization_strength=0.02),
                "proxgd": lambda: tf1.train.ProximalGradientDescentOptimizer(
                    0.2, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
                "adagradda": lambda: tf1.train.AdagradDAOptimizer(0.1, step, l1_regularization_strength=0.01,
                                                                  l2_regularization_strength=0.02)}
        trains = {}
        for name in OPTIMIZERS:
            opt = opts[name]()
            trains[name] = (opt, opt.apply_gradients(list(zip(grads, model)), global_step=step,
                                                     name="train_" + name))
        saver = tf1.train.Saver()
        data = batches()
        results = {}
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            # The .meta as tf.train.export_meta_graph writes a graph's: no _output_shapes
            # attributes (Saver.save adds them; importers drop them), a sixth smaller.
            prefix = saver.save(sess, os.path.join(out, variables), write_meta_graph=False)
            tf1.train.export_meta_graph(prefix + ".meta", graph_def=g.as_graph_def(), saver_def=saver.saver_def)
            for name in OPTIMIZERS:
                saver.restore(sess, prefix)
                opt, train = trains[name]
                losses = []
                for b_ in data:
                    feed = {sp_ids: tf1.SparseTensorValue(b_["sp_indices"], b_["sp_values"], b_["sp_shape"]),
                            sp_weights: b_["sp_weights"], wide_ids: np.reshape(b_["wide_ids"], (-1, 2)),
                            x: np.reshape(b_["x"], (-1, 3)), y: np.reshape(b_["y"], (-1, 1))}
                    value, _ = sess.run([loss, train], feed)
                    losses.append(float("%.9g" % value))
                # The model, this optimizer's slots and global_step.
                final = {}
                for v in model + [opt.get_slot(v, s) for v in model for s in opt.get_slot_names()] + [step]:
                    final[v.op.name] = compact(sess.run(v))
                results[name] = {"train_op": train.name, "slots": sorted(opt.get_slot_names()),
                                 "losses": losses, "variables": final}
        ops = sorted({n.op for n in g.as_graph_def().node})
    # The checkpoint state file names absolute paths; the test uses the prefix directly.
    os.remove(os.path.join(out, "checkpoint"))
    reference = {"prefix": os.path.basename(prefix), "batches": data, "optimizers": results, "ops": ops,
                 "tensorflow": tf.__version__}
    with open(os.path.join(out, variables + ".json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))
    print("wrote", os.path.join(out, variables), len(g.as_graph_def().node), "nodes")
    for name in OPTIMIZERS:
        print(" ", name, results[name]["losses"])


def make(out):
    # A process per graph: resource variables are a process-wide switch. Both train alike,
    # bit for bit: one reference.json holds the results and each graph's op types.
    refs = {}
    for variables in ("ref", "resource"):
        subprocess.run([sys.executable, __file__, "make-one", variables, out], check=True)
        with open(os.path.join(out, variables + ".json")) as f:
            refs[variables] = json.load(f)
        os.remove(os.path.join(out, variables + ".json"))
    ref, resource = refs["ref"], refs["resource"]
    if ref["optimizers"] != resource["optimizers"] or ref["batches"] != resource["batches"]:
        sys.exit("reference and resource variables trained differently")
    reference = {"batches": ref["batches"], "optimizers": ref["optimizers"], "ops": {"ref": ref["ops"],
                 "resource": resource["ops"]}, "tensorflow": ref["tensorflow"]}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))
    print("wrote", out, sorted(os.listdir(out)))


def check(build, out):
    """`actorflow-graph info` reports no missing op type for any of the graphs."""
    failed = []
    for variables in ("ref", "resource"):
        meta = os.path.join(out, variables + ".meta")
        text = subprocess.run([os.path.join(build, "apps/graph/actorflow-graph"), "info", meta],
                              capture_output=True, text=True).stdout
        ok = "actorflow has every op type of this graph" in text
        print(os.path.basename(meta), "OK" if ok else "MISSING OPS:\n" + text)
        if not ok:
            failed.append(meta)
    if failed:
        sys.exit("%d graphs need ops actorflow lacks" % len(failed))
    print("OK")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "make-ftrl"
    if cmd == "make-ftrl":
        make(sys.argv[2] if len(sys.argv) > 2 else "tests/data/tf_graph/optimizers")
    elif cmd == "make-one":
        make_one(sys.argv[3], sys.argv[2])
    elif cmd == "check":
        check(sys.argv[2] if len(sys.argv) > 2 else "build",
              sys.argv[3] if len(sys.argv) > 3 else "tests/data/tf_graph/optimizers")
    else:
        sys.exit(__doc__)
