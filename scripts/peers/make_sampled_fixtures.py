#!/usr/bin/env python3
"""Writes tests/data/tf_sampled: what TensorFlow's tf.compat.v1 computes with its candidate
samplers and sampled losses, for tests/conformance/candidate_sampling_conformance_test.cpp.

graph.pb (graph seed 7) holds UniformCandidateSampler and LogUniformCandidateSampler (with
and without `unique`), LearnedUnigramCandidateSampler, FixedUnigramCandidateSampler on a
unigram list (reserved ids, distortion, one shard of two), AllCandidateSampler and
ComputeAccidentalHits, each with its op seed, and tf.nn.sampled_softmax_loss (seed 21, the
class embeddings in two parts split "div") and tf.nn.nce_loss (a LogUniform sampler of seed
22, "mod", accidental hits removed) with tf.gradients of their sums. reference.json:
  runs        the fetches of each session.run, in order, in one session, and their values
              (the samplers continue their streams run after run; the learned sampler counts
              each run's true classes);
  vocab       FixedUnigramCandidateSampler on vocab.csv (seed 7, 31): its settings and the
              values of three runs (the graph names the file by its path here, so the test
              builds that op itself);
  losses      the constants the losses take, to rebuild them with actorflow's builders.
Never a dependency of the build or the tests: the fixture is committed, and this script
remakes it.

  python scripts/peers/make_sampled_fixtures.py [OUT_DIR]   # default tests/data/tf_sampled

Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from make_op_fixtures import encode  # noqa: E402

tf1 = tf.compat.v1
cs = tf.random

VOCAB = "alpha,12\nbeta,7\ngamma,30\ndelta,1\nepsilon,5\nzeta,9\n"


def config():
    c = tf1.ConfigProto()
    c.graph_options.rewrite_options.disable_meta_optimizer = True
    return c


def samplers(true2):
    """The sampler ops, by a name the test finds them by."""
    out = {}
    u = cs.uniform_candidate_sampler(true2, 2, 5, True, 10, seed=11)
    out["uniform_unique"] = u
    out["uniform"] = cs.uniform_candidate_sampler(true2, 2, 6, False, 10, seed=12)
    out["log_uniform_unique"] = cs.log_uniform_candidate_sampler(true2, 2, 5, True, 50, seed=13)
    out["log_uniform"] = cs.log_uniform_candidate_sampler(true2, 2, 8, False, 50, seed=14)
    out["learned_unigram"] = cs.learned_unigram_candidate_sampler(true2, 2, 4, True, 10, seed=15)
    out["fixed_unigram"] = cs.fixed_unigram_candidate_sampler(
        true2, 2, 5, True, 10, unigrams=[4.0, 1.0, 9.0, 2.0, 0.5, 3.0, 1.0, 6.0],
        num_reserved_ids=2, distortion=0.75, seed=16)
    out["fixed_unigram_shard"] = cs.fixed_unigram_candidate_sampler(
        tf.constant([[1, 3], [5, 6], [0, 2]], tf.int64), 2, 4, False, 7,
        unigrams=[3.0, 1.0, 2.0, 5.0, 4.0, 1.0, 7.0, 2.0, 1.0, 3.0, 2.0, 6.0],
        num_reserved_ids=3, num_shards=2, shard=1, seed=17)
    out["all"] = cs.all_candidate_sampler(tf.constant([[1, 3], [0, 2], [3, 3]], tf.int64), 2, 4,
                                          True, seed=18)
    return out


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(5)
    with open(os.path.join(out, "vocab.csv"), "w") as f:
        f.write(VOCAB)
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(7)
        true2 = tf.constant([[1, 5], [3, 3], [7, 0]], tf.int64, name="true_classes")
        s = samplers(true2)
        hits = tf.nn.compute_accidental_hits(true2, s["uniform_unique"][0], 2)
        # The losses: 20 classes of dimension 4, a batch of 3 with 2 true classes each.
        w = rng.uniform(-1, 1, size=(20, 4)).astype(np.float32)
        b = rng.uniform(-0.5, 0.5, size=(20,)).astype(np.float32)
        x = rng.uniform(-1, 1, size=(3, 4)).astype(np.float32)
        labels = np.array([[2, 17], [5, 5], [11, 0]], np.int64)
        w0 = tf.constant(w[:10], name="w0")
        w1 = tf.constant(w[10:], name="w1")
        bias = tf.constant(b, name="biases")
        inputs = tf.constant(x, name="inputs")
        lab = tf.constant(labels, name="labels")
        softmax = tf1.nn.sampled_softmax_loss([w0, w1], bias, lab, inputs, 6, 20, num_true=2,
                                              partition_strategy="div", seed=21)
        nce_sampler = cs.log_uniform_candidate_sampler(lab, 2, 6, True, 20, seed=22)
        nce = tf1.nn.nce_loss([w0, w1], bias, lab, inputs, 6, 20, num_true=2,
                              sampled_values=nce_sampler, remove_accidental_hits=True)
        grads = []
        for loss in (softmax, nce):
            gs = tf.gradients(tf.reduce_sum(loss), [w0, w1, bias, inputs])
            grads += [tf.convert_to_tensor(t) for t in gs]
    flat = lambda outs: [t.name for t in outs]  # noqa: E731
    sampler_names = []
    for k in sorted(s):
        sampler_names += flat(s[k])
    runs = [sampler_names + flat(hits) + [softmax.name, nce.name],
            flat(s["learned_unigram"]) + flat(s["log_uniform"]) + [t.name for t in grads],
            flat(s["learned_unigram"]) + flat(s["uniform"])]
    reference = {"tensorflow": tf.__version__, "samplers": {k: flat(v) for k, v in s.items()},
                 "runs": []}
    with tf1.Session(graph=g, config=config()) as sess:
        for fetches in runs:
            values = sess.run(fetches)
            reference["runs"].append({"fetches": fetches, "values": [encode(v) for v in values]})
    tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
    # The vocabulary file sampler, in a graph of its own.
    vg = tf.Graph()
    with vg.as_default():
        tf1.set_random_seed(7)
        t = tf.constant([[0, 2], [4, 5]], tf.int64)
        v = cs.fixed_unigram_candidate_sampler(t, 2, 3, True, 8,
                                               vocab_file=os.path.abspath(
                                                   os.path.join(out, "vocab.csv")),
                                               distortion=0.5, num_reserved_ids=2, seed=31)
    with tf1.Session(graph=vg, config=config()) as sess:
        vruns = [[encode(x) for x in sess.run(list(v))] for _ in range(3)]
    reference["vocab"] = {"true_classes": [[0, 2], [4, 5]], "num_true": 2, "num_sampled": 3,
                          "unique": True, "range_max": 8, "distortion": 0.5,
                          "num_reserved_ids": 2, "seed": [7, 31], "runs": vruns}
    reference["losses"] = {"weights": encode(w), "biases": encode(b), "inputs": encode(x),
                           "labels": encode(labels), "num_sampled": 6, "num_classes": 20,
                           "num_true": 2, "graph_seed": 7, "softmax_seed": 21, "nce_seed": 22,
                           "softmax": softmax.name, "nce": nce.name,
                           "grads": [t.name for t in grads]}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print("wrote %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_sampled")
