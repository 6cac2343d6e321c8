#!/usr/bin/env python3
"""Distributed-training benchmark, side by side: actorflow, TensorFlow 1.x and PyTorch DDP.

The same work in each: the MLP 784-256-128-10 (ReLU), mean sparse softmax cross-entropy,
Adam 1e-3, batch 128 per worker, Fashion-MNIST's training split (Debian's
dataset-fashion-mnist) split between the workers (example i to worker i % workers), fed
from memory, on loopback, every process with one compute thread:
  actorflow : actorflow-dist-train, 1 ps + N workers, --mode async|sync (bin given by --bin)
  tf1       : tf.compat.v1: tf.distribute.Server per task, replica_device_setter,
              MonitoredTrainingSession (device_filters: the ps and the worker itself),
              AdamOptimizer, SyncReplicasOptimizer for sync; ConfigProto with
              intra_op_parallelism_threads=1, inter_op_parallelism_threads=1
  ddp       : torch DistributedDataParallel over gloo, N ranks (sync only; no ps)
Measured: aggregate global steps (updates) per second on the chief, from the first step at
or past --from (warm-up excluded) to the last step --steps. Each configuration runs --reps
times; the median is reported with the ratio of actorflow to the best peer.

Run (the venv comes from scripts/peers/setup_venv.sh):
  ~/.cache/actorflow-peers/bin/python scripts/peers/dist_train_peers.py \
      --bin build/apps/dist_train/actorflow-dist-train [--configs async:1,async:2,sync:2] [--reps 3]
A configuration is MODE:WORKERS or MODE:WORKERS:PS (PS parameter servers, tf1 and actorflow).
Prints one line per (framework, mode, workers, ps):
  PEER tf1 mode=async workers=2 ps=1 device=cpu steps_per_s=230.1 examples_per_s=29452.8 reps=228.0,230.1,233.5
and, where 1 worker ran in the same mode, its scaling efficiency: examples/s against WORKERS
times the 1-worker figure (an async global step is one worker's batch; a sync or DDP step is
every worker's).

The sweep on a many-core machine (scripts/gpu_check.sh's `sweep` step):
  --pin gives every process a core of its own (taskset), in order: ps tasks, then workers.
The GPU workers (its `dist` step):
  --device gpu puts actorflow's workers on /gpu:0 (--gpu-memory-fraction 0.9/WORKERS each, the
  ps on the CPU) and DDP's ranks on cuda:0 (gloo: NCCL refuses two ranks on one GPU);
  --accuracy has the chief (rank 0) report the test accuracy at the end.
"""
import argparse
import gzip
import itertools
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

DATA = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def load_split(split):
    import numpy as np
    with gzip.open(os.path.join(DATA, "%s-images-idx3-ubyte.gz" % split)) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255.0
    with gzip.open(os.path.join(DATA, "%s-labels-idx1-ubyte.gz" % split)) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    return x, y


def load_shard(task, workers):
    x, y = load_split("train")
    return x[task::workers].copy(), y[task::workers].copy()


def batches(x, y, batch, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(x))
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            yield x[idx], y[idx]


# -- TensorFlow 1.x ----------------------------------------------------------------------------

def tf_task(args):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    server = tf.distribute.Server(cluster, job_name=args.job, task_index=args.task, config=config)
    if args.job == "ps":
        server.join()
        return
    workers = cluster.num_tasks("worker")
    x, y = load_shard(args.task, workers)
    worker_device = "/job:worker/task:%d" % args.task
    with tf1.device(tf1.train.replica_device_setter(cluster=cluster, worker_device=worker_device)):
        gs = tf1.train.get_or_create_global_step()
        xp = tf1.placeholder(tf.float32, [None, 784])
        yp = tf1.placeholder(tf.int64, [None])
        def dense(inp, units, name, act=None):
            # tf.layers.dense's variables (Keras 3 has no tf.compat.v1.layers): glorot-uniform
            # kernel, zero bias.
            with tf1.variable_scope(name):
                w = tf1.get_variable("kernel", [inp.shape[1], units], initializer=tf1.glorot_uniform_initializer())
                b = tf1.get_variable("bias", [units], initializer=tf1.zeros_initializer())
            out = tf1.nn.bias_add(tf1.matmul(inp, w), b)
            return act(out) if act else out
        h = dense(xp, 256, "hidden1", tf.nn.relu)
        h = dense(h, 128, "hidden2", tf.nn.relu)
        logits = dense(h, 10, "logits")
        loss = tf1.losses.sparse_softmax_cross_entropy(yp, logits)
        opt = tf1.train.AdamOptimizer(1e-3)
        hooks = [tf1.train.StopAtStepHook(last_step=args.steps)]
        if args.mode == "sync":
            opt = tf1.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=workers, total_num_replicas=workers)
            hooks.append(opt.make_session_run_hook(args.task == 0))
        train_op = opt.minimize(loss, global_step=gs)
    sess_config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1,
                                  device_filters=["/job:ps", worker_device])
    feed = batches(x, y, 128, args.task)
    start = None
    with tf1.train.MonitoredTrainingSession(master=server.target, is_chief=args.task == 0, hooks=hooks,
                                            config=sess_config, save_checkpoint_secs=None,
                                            save_summaries_steps=None, save_summaries_secs=None,
                                            log_step_count_steps=0) as sess:
        step = 0
        while not sess.should_stop():
            bx, by = next(feed)
            _, step = sess.run([train_op, gs], {xp: bx, yp: by})
            if start is None and step >= args.warm_from:
                start = (time.perf_counter(), step)
        end = (time.perf_counter(), step)
        if args.task == 0 and start:
            print("RATE %.3f" % ((end[1] - start[1]) / (end[0] - start[0])), flush=True)
        # Closing would wait stop_grace_period_secs (120 s) for the sync queue runner blocked
        # in TakeGrad, and a non-chief for a token that never comes (TF issue 7970): the
        # driver stops every process once the chief has reported.
        os._exit(0)


# -- PyTorch DDP ---------------------------------------------------------------------------------

def ddp_task(args):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % args.port, rank=args.task,
                            world_size=args.workers)
    device = torch.device("cuda:0" if args.device == "gpu" else "cpu")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                                torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    x, y = load_shard(args.task, args.workers)
    feed = batches(x, y, 128, args.task)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    start = None
    for step in range(1, args.steps + 1):
        bx, by = next(feed)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(ddp(torch.from_numpy(bx).to(device)), torch.from_numpy(by).to(device))
        loss.backward()
        opt.step()
        if start is None and step >= args.warm_from:
            sync()
            start = (time.perf_counter(), step)
    sync()
    end = (time.perf_counter(), args.steps)
    if args.task == 0:
        print("RATE %.3f" % ((end[1] - start[1]) / (end[0] - start[0])), flush=True)
        if args.accuracy:
            tx, ty = load_split("t10k")
            with torch.no_grad():
                pred = model(torch.from_numpy(tx).to(device)).argmax(1).cpu()
            print("ACCURACY %.4f" % (pred == torch.from_numpy(ty)).float().mean().item(), flush=True)
    dist.destroy_process_group()


# -- driver --------------------------------------------------------------------------------------

def run_cluster(framework, mode, workers, ps, args):
    """Runs one cluster; returns (global steps/s on the chief, test accuracy or None)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2", FASHION_MNIST_DIR=DATA)
    procs = []
    cores = itertools.cycle(range(os.cpu_count() or 1))

    def pinned(cmd):
        return ["taskset", "-c", str(next(cores))] + cmd if args.pin else cmd
    try:
        if framework == "ddp":
            port = free_ports(1)[0]
            for k in range(workers):
                cmd = [sys.executable, __file__, "--role", "ddp", "--task", str(k), "--workers", str(workers),
                       "--port", str(port), "--steps", str(args.steps), "--warm-from", str(args.warm_from),
                       "--device", args.device] + (["--accuracy"] if args.accuracy else [])
                procs.append(subprocess.Popen(pinned(cmd), stdout=subprocess.PIPE, text=True, env=env))
        else:
            ports = free_ports(workers + ps)
            spec = json.dumps({"ps": ["127.0.0.1:%d" % p for p in ports[:ps]],
                               "worker": ["127.0.0.1:%d" % p for p in ports[ps:]]})
            for job, task in [("ps", k) for k in range(ps)] + [("worker", k) for k in range(workers)]:
                if framework == "tf1":
                    cmd = [sys.executable, __file__, "--role", "tf1", "--cluster", spec, "--job", job,
                           "--task", str(task), "--mode", mode, "--steps", str(args.steps),
                           "--warm-from", str(args.warm_from)]
                else:
                    cmd = [args.bin, "--cluster", spec, "--job", job, "--task", str(task), "--threads", "1"]
                    if job == "worker":
                        cmd += ["--mode", mode, "--steps", str(args.steps), "--log-every", "0",
                                "--rate-from", str(args.warm_from), "--data-dir", DATA]
                        if not (args.accuracy and task == 0):
                            cmd += ["--no-eval"]
                        if args.device == "gpu":
                            cmd += ["--device", "/gpu:0", "--gpu-memory-fraction", "%.3f" % (0.9 / workers)]
                procs.append(subprocess.Popen(pinned(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                                              if framework == "actorflow" else None, text=True, env=env))
        chief = procs[0] if framework == "ddp" else procs[ps]
        out, _ = chief.communicate(timeout=args.timeout)
        m = re.search(r"RATE ([0-9.]+)", out) or re.search(r"steady ([0-9.]+) global steps/s", out)
        if not m:
            raise RuntimeError("%s %s %d: no rate in output:\n%s" % (framework, mode, workers, out[-2000:]))
        acc = re.search(r"(?:ACCURACY|test accuracy) ([0-9.]+)", out)
        return float(m.group(1)), (float(acc.group(1)) if acc else None)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def main():
    global DATA
    ap = argparse.ArgumentParser()
    ap.add_argument("--role", default="driver")
    ap.add_argument("--bin", default="build/apps/dist_train/actorflow-dist-train")
    ap.add_argument("--configs", default="async:1,async:2,sync:2")
    ap.add_argument("--frameworks", default="actorflow,tf1,ddp")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=1200)
    ap.add_argument("--warm-from", type=int, default=200)
    ap.add_argument("--data-dir", default=DATA)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--accuracy", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--cluster")
    ap.add_argument("--job")
    ap.add_argument("--task", type=int, default=0)
    ap.add_argument("--mode", default="async")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    DATA = args.data_dir
    if args.role == "tf1":
        return tf_task(args)
    if args.role == "ddp":
        return ddp_task(args)
    results = {}
    for config in args.configs.split(","):
        parts = config.split(":")
        mode, workers, ps = parts[0], int(parts[1]), int(parts[2]) if len(parts) > 2 else 1
        for fw in args.frameworks.split(","):
            if fw == "ddp" and (mode != "sync" or ps != 1):
                continue
            try:
                runs = [run_cluster(fw, mode, workers, ps, args) for _ in range(args.reps)]
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print("FAILED %s mode=%s workers=%d ps=%d: %s" % (fw, mode, workers, ps, e), flush=True)
                continue
            rates = [r for r, _ in runs]
            med = statistics.median(rates)
            per_step = 128 * (workers if mode == "sync" or fw == "ddp" else 1)
            results[(fw, mode, workers, ps)] = med * per_step
            accs = [a for _, a in runs if a is not None]
            line = "PEER %s mode=%s workers=%d ps=%d device=%s steps_per_s=%.1f examples_per_s=%.0f reps=%s" % (
                fw, mode, workers, ps, args.device, med, med * per_step, ",".join("%.1f" % r for r in rates))
            if accs:
                line += " test_accuracy=%.4f" % statistics.median(accs)
            one = results.get((fw, mode, 1, 1))
            if one and workers > 1:
                line += " efficiency=%.2f" % (med * per_step / (workers * one))
            print(line, flush=True)
        peers = [v for k, v in results.items() if k[1:] == (mode, workers, ps) and k[0] != "actorflow"]
        if ("actorflow", mode, workers, ps) in results and peers:
            print("RATIO mode=%s workers=%d ps=%d actorflow/best_peer=%.2f (examples/s)" %
                  (mode, workers, ps, results[("actorflow", mode, workers, ps)] / max(peers)), flush=True)


if __name__ == "__main__":
    main()
