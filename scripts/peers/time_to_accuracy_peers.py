#!/usr/bin/env python3
"""Peer benchmark: training time to 85% test accuracy on Fashion-MNIST, PyTorch and TF 1.x.

The same model and training as actorflow's trainer (apps/train, `--model mlp`): an MLP
784-256-128-10 (ReLU, logits), softmax cross-entropy on int labels averaged over the batch,
Adam lr 1e-3 (beta1 0.9, beta2 0.999, epsilon 1e-8, each framework's own Adam), batch 128,
glorot-uniform kernels and zero biases. Both frameworks start from the same initial weights
(numpy, drawn from the seed) and see the same batches.

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist/*-idx?-ubyte.gz,
gzip IDX), read into memory with numpy, pixels / 255 as float32. Each epoch the 60,000
training examples are shuffled (numpy Generator from the seed); an epoch is 60000 // 128 =
468 full batches (as actorflow's trainer counts them). After every 47th step the accuracy on
the full 10,000-image test set is computed (one batch of 10,000); the run stops at the first
check with accuracy >= 0.85 (or after --max-epochs).

Timed: the wall time (time.perf_counter) of the training steps only, each step counted from
gathering its batch from the in-memory arrays to the end of the update (TF: sess.run of the
train op with the batch fed; PyTorch: zero_grad/forward/backward/step); evaluation, data
loading and graph/model construction are excluded.
Threads: TF ConfigProto intra_op_parallelism_threads=n, inter_op_parallelism_threads=n (as
actorflow's trainer sets its SessionConfig); PyTorch torch.set_num_threads(n),
torch.set_num_interop_threads(1). Each (framework, seed) runs in its own subprocess, pinned to
--cpus (CPU 0 by default, as `actorflow-bench t85` pins itself) before the framework starts.

Run (the venv comes from scripts/peers/setup_venv.sh):
  scripts/peers/setup_venv.sh
  ~/.cache/actorflow-peers/bin/python scripts/peers/time_to_accuracy_peers.py
      [--seeds 1,2,3,4,5,6,7] [--threads 1] [--cpus 0] [--frameworks tf1,torch] [--target 0.85]
      [--eval-every 47] [--max-epochs 20] [--data-dir /usr/share/datasets/fashion-mnist]

Prints, per framework, one machine-parseable line per seed and one for the median:
  PEER torch threads=1 seed=1 seconds_to_85=1.44 steps=470 test_accuracy=0.8512 step_us=3063.8
  PEER torch threads=1 seed=median seconds_to_85=1.50 steps=470
(seconds_to_85: training seconds until the check that reached the target, "nan" if never;
steps: training steps done by then; step_us: seconds_to_85 / steps in microseconds.)
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time

BATCH = 128
LAYERS = [784, 256, 128, 10]


def load_idx(path, header, shape):
    import numpy as np
    with gzip.open(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def load_data(d):
    import numpy as np
    xs, ys = {}, {}
    for split, n in (("train", 60000), ("t10k", 10000)):
        x = load_idx(os.path.join(d, "%s-images-idx3-ubyte.gz" % split), 16, (n, 784))
        y = load_idx(os.path.join(d, "%s-labels-idx1-ubyte.gz" % split), 8, (n,))
        xs[split] = x.astype(np.float32) / np.float32(255.0)
        ys[split] = y.astype(np.int64)
    return xs["train"], ys["train"], xs["t10k"], ys["t10k"]


def initial_weights(seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:]):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        out.append(rng.uniform(-limit, limit, size=(fan_in, fan_out)).astype(np.float32))
    return out


def batches(seed, n, max_epochs):
    """Yields (step, epoch, index array) over epochs shuffled by the seed."""
    import numpy as np
    rng = np.random.default_rng(seed + 1000)  # apart from the weights' stream
    per_epoch = n // BATCH
    step = 0
    for epoch in range(max_epochs):
        perm = rng.permutation(n)
        for i in range(per_epoch):
            yield step, epoch, perm[i * BATCH:(i + 1) * BATCH]
            step += 1


def run_loop(train_step, evaluate, seed, n, args):
    """Runs steps; returns (seconds_to_target or nan, steps, last accuracy)."""
    trained = 0.0
    acc = float("nan")
    for step, epoch, idx in batches(seed, n, args.max_epochs):
        t0 = time.perf_counter()
        train_step(idx)
        trained += time.perf_counter() - t0
        if (step + 1) % args.eval_every == 0:
            acc = evaluate()
            if acc >= args.target:
                return trained, step + 1, acc
    return float("nan"), step + 1, acc


def worker_tf1(seed, threads, args):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf2
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
    x_train, y_train, x_test, y_test = load_data(args.data_dir)
    y_train, y_test = y_train.astype(np.int32), y_test.astype(np.int32)
    ws = initial_weights(seed)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        h = x
        for i, w in enumerate(ws):
            kernel = tf.Variable(w, name="dense_%d/kernel" % i)
            bias = tf.Variable(tf.zeros([w.shape[1]]), name="dense_%d/bias" % i)
            h = tf.matmul(h, kernel) + bias
            if i < len(ws) - 1:
                h = tf.nn.relu(h)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=h)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(h, 1, output_type=tf.int32), y), tf.float32))
        train_op = tf.train.AdamOptimizer(1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8).minimize(loss)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    sess = tf.Session(graph=g, config=config)
    sess.run(init)

    def train_step(idx):
        sess.run(train_op, feed_dict={x: x_train[idx], y: y_train[idx]})

    def evaluate():
        return float(sess.run(accuracy, feed_dict={x: x_test, y: y_test}))

    print("tf %s" % tf2.__version__, file=sys.stderr)
    return run_loop(train_step, evaluate, seed, len(x_train), args)


def worker_torch(seed, threads, args):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    x_train, y_train, x_test, y_test = load_data(args.data_dir)
    ws = initial_weights(seed)
    layers = []
    for i, w in enumerate(ws):
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.zero_()
        layers.append(lin)
        if i < len(ws) - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    xe, ye = torch.from_numpy(x_test), torch.from_numpy(y_test)

    def train_step(idx):
        i = torch.from_numpy(idx)
        xb, yb = xt.index_select(0, i), yt.index_select(0, i)
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(xb), yb).backward()
        opt.step()

    def evaluate():
        with torch.no_grad():
            return float((model(xe).argmax(1) == ye).float().mean())

    print("torch %s (threads %d, interop %d)" % (torch.__version__, torch.get_num_threads(),
                                                 torch.get_num_interop_threads()), file=sys.stderr)
    return run_loop(train_step, evaluate, seed, len(x_train), args)


def fmt(v):
    return "nan" if v != v else "%.3f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpus", default="0",
                    help="the CPUs each run is pinned to, as actorflow-bench t85 pins itself "
                         "(comma-separated; 'none' leaves the runs unpinned)")
    ap.add_argument("--frameworks", default="tf1,torch")
    ap.add_argument("--target", type=float, default=0.85)
    ap.add_argument("--eval-every", type=int, default=47)
    ap.add_argument("--max-epochs", type=int, default=20)
    ap.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # "framework:seed", in the subprocess
    args = ap.parse_args()
    key = "seconds_to_%d" % round(args.target * 100)

    if args.worker:
        if args.cpus != "none":  # before the framework starts its threads: they inherit it
            os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
        fw, seed = args.worker.split(":")
        secs, steps, acc = {"tf1": worker_tf1, "torch": worker_torch}[fw](int(seed), args.threads, args)
        print("PEER %s threads=%d seed=%s %s=%s steps=%d test_accuracy=%.4f step_us=%s"
              % (fw, args.threads, seed, key, fmt(secs), steps, acc,
                 "nan" if secs != secs else "%.1f" % (secs / steps * 1e6)), flush=True)
        return 0

    rc = 0
    for fw in args.frameworks.split(","):
        results = []
        for seed in args.seeds.split(","):
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "%s:%s" % (fw, seed),
                   "--threads", str(args.threads), "--target", str(args.target),
                   "--eval-every", str(args.eval_every), "--max-epochs", str(args.max_epochs),
                   "--data-dir", args.data_dir, "--cpus", args.cpus]
            env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
            p = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True)
            lines = [l for l in p.stdout.splitlines() if l.startswith("PEER ")]
            if p.returncode != 0 or not lines:
                print("%s seed=%s failed (exit %d)" % (fw, seed, p.returncode), file=sys.stderr)
                rc = 1
                continue
            for l in lines:
                print(l, flush=True)
                kv = dict(t.split("=", 1) for t in l.split()[2:])
                results.append((float(kv[key]), int(kv["steps"])))
        if results:
            # A run that never reached the target counts as slower than any that did.
            secs = statistics.median(float("inf") if r[0] != r[0] else r[0] for r in results)
            secs = float("nan") if secs == float("inf") else secs
            steps = statistics.median(r[1] for r in results)
            print("PEER %s threads=%d seed=median %s=%s steps=%g"
                  % (fw, args.threads, key, fmt(secs), steps), flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
