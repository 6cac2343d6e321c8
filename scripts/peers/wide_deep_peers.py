#!/usr/bin/env python3
"""Wide & deep click-through training on parameter servers, side by side: actorflow and TF 1.x.

The same model and work in each (async between-graph replication, PS:WORKERS tasks on loopback,
every process with --threads compute threads, 1 by default):
  actorflow : actorflow-wide-deep, one process per task (bin given by --bin)
  tf1       : tf.compat.v1 graph mode: tf.distribute.Server per task, replica_device_setter
              (round-robin over the ps tasks), MonitoredTrainingSession (device_filters: the ps
              and the worker itself; StopAtStepHook), ConfigProto with
              intra_op_parallelism_threads=N, inter_op_parallelism_threads=N
Model, built in this order (so that round-robin placement matches actorflow's):
  global step; features: string [B, 8] (fields), clicks: float [B];
  ids = string_to_hash_bucket_fast(features, ROWS); unique ids of the batch;
  embeddings [ROWS, 16 + 1] (uniform +-0.05), partitioned in PS parts (fixed_size_partitioner),
  looked up with partition_strategy "mod" for the unique ids and gathered back to [B, 8, 17];
  deep: the 8 x 16 embedding columns -> dense 64 (ReLU) -> 32 (ReLU) -> 1 (glorot-uniform
  kernels hidden1, hidden2, logits; zero biases); wide: the sum of the 8 last columns;
  logit = deep + wide + wide_bias; mean sigmoid cross-entropy; Adagrad 0.05 (accumulators 0.1).
Data: a seeded synthetic click log generated before training (64 batches per worker, cycled):
each field's value rank r in [0, 100000) is Zipf-like, P(r) ~ 1/(r+1)^1.1, the feature string
is b"f{field}_{r}", the label is Bernoulli(sigmoid(-1.5 + sum_f w(f, r_f))), w ~ 0.6 N(0, 1).
Measured: global steps (updates) per second on the chief (worker 0), from the first step whose
global step is at or past --from (warm-up excluded) to the last step (--steps). Both sides print
  done: global step G, L local steps in T s (X global steps/s), steady Y global steps/s from step F
and the figure is Y from the chief's log.

Run (the venv comes from scripts/peers/setup_venv.sh):
  ~/.cache/actorflow-peers/bin/python scripts/peers/wide_deep_peers.py \\
      --bin build/apps/wide_deep/actorflow-wide-deep [--configs 1:1,2:1,4:1] [--reps 3] \\
      [--frameworks actorflow,tf1] [--steps 600] [--from 100] [--rows 1000000] [--batch 256] \\
      [--threads 1] [--pin] [--timeout 600] [--json FILE]
A configuration is PS:WORKERS. Each configuration runs --reps times, the frameworks interleaved
within every repetition (actorflow, tf1, actorflow, tf1, ...). Prints one line per
(framework, ps, workers):
  PEER tf1 ps=2 workers=1 steps_per_s=230.1 examples_per_s=58905.6 reps=228.0,230.1,233.5
and one per configuration with the ratio actorflow/tf1 of each repetition's pair:
  RATIO ps=2 workers=1 actorflow/tf1=1.52 min=1.48 max=1.60 pairs=1.52,1.48,1.60
--pin gives every process a core of its own (taskset), in order: ps tasks, then workers,
cycling over the cores this process may run on. A run that fails or passes --timeout is
reported (FAILED ... with the tail of its logs) and the script exits non-zero at the end.
--json FILE writes the results, the CPU model and the git commit.
"""
import argparse
import itertools
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

FIELDS = 8        # feature fields per example
DIM = 16          # deep embedding width (the table has DIM + 1 columns: the last is the wide weight)
VOCAB = 100000    # value ranks per field in the synthetic log
ZIPF = 1.1        # P(rank r) ~ 1 / (r + 1)^ZIPF
BATCHES = 64      # pre-generated batches per worker, cycled
FRAMEWORKS = ("actorflow", "tf1")


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


def available_cores():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


# -- synthetic click log -------------------------------------------------------------------------

def click_log(seed, task, batches, batch):
    """[(features: object array of bytes [batch, FIELDS], clicks: float32 [batch])] * batches."""
    import numpy as np
    cdf = np.cumsum(1.0 / np.power(np.arange(1, VOCAB + 1, dtype=np.float64), ZIPF))
    cdf /= cdf[-1]
    weights = np.random.default_rng(seed).normal(size=(FIELDS, VOCAB)) * 0.6
    rng = np.random.default_rng(seed * 1000 + task)
    n = batches * batch
    ranks = np.minimum(np.searchsorted(cdf, rng.random((n, FIELDS)), side="right"), VOCAB - 1)
    logit = -1.5 + weights[np.arange(FIELDS)[None, :], ranks].sum(axis=1)
    clicks = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
    names = [[b"f%d_%d" % (f, r) for r in range(VOCAB)] for f in range(FIELDS)]
    features = np.empty((n, FIELDS), dtype=object)
    for f in range(FIELDS):
        col = names[f]
        features[:, f] = [col[r] for r in ranks[:, f]]
    return [(features[i:i + batch], clicks[i:i + batch]) for i in range(0, n, batch)]


# -- TensorFlow 1.x ----------------------------------------------------------------------------

def tf_task(args):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()  # graph mode (disables eager execution too)
    tf1.logging.set_verbosity(tf1.logging.ERROR)
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    threads = dict(intra_op_parallelism_threads=args.threads, inter_op_parallelism_threads=args.threads)
    server = tf.distribute.Server(cluster, job_name=args.job, task_index=args.task,
                                  config=tf1.ConfigProto(**threads))
    if args.job == "ps":
        server.join()
        return
    ps = cluster.num_tasks("ps")
    data = click_log(args.seed, args.task, BATCHES, args.batch)  # before anything is timed
    worker_device = "/job:worker/task:%d" % args.task
    with tf1.device(tf1.train.replica_device_setter(cluster=cluster, worker_device=worker_device)):
        gs = tf1.train.get_or_create_global_step()
        features = tf1.placeholder(tf.string, [None, FIELDS], name="features")
        clicks = tf1.placeholder(tf.float32, [None], name="clicks")
        ids = tf1.string_to_hash_bucket_fast(features, args.rows)
        uniq, idx = tf.unique(tf.reshape(ids, [-1]))
        table = tf1.get_variable("embeddings", [args.rows, DIM + 1],
                                 initializer=tf1.random_uniform_initializer(-0.05, 0.05),
                                 partitioner=tf1.fixed_size_partitioner(ps))
        # tf.nn.embedding_lookup is TF 2's (no partition_strategy, always "div"): the v1 one.
        rows_u = tf1.nn.embedding_lookup(table, uniq, partition_strategy="mod")
        rows3 = tf.reshape(tf.gather(rows_u, idx), [-1, FIELDS, DIM + 1])
        deep_in = tf.reshape(rows3[:, :, :DIM], [-1, FIELDS * DIM])
        wide = tf.reduce_sum(rows3[:, :, DIM], axis=1)

        def dense(inp, units, name, act=None):
            # tf.layers.dense's variables (Keras 3 has no tf.compat.v1.layers): glorot-uniform
            # kernel, zero bias.
            with tf1.variable_scope(name):
                w = tf1.get_variable("kernel", [inp.shape[1], units], initializer=tf1.glorot_uniform_initializer())
                b = tf1.get_variable("bias", [units], initializer=tf1.zeros_initializer())
            out = tf.nn.bias_add(tf.matmul(inp, w), b)
            return act(out) if act else out
        h = dense(deep_in, 64, "hidden1", tf.nn.relu)
        h = dense(h, 32, "hidden2", tf.nn.relu)
        deep_logit = tf.squeeze(dense(h, 1, "logits"), 1)
        wide_bias = tf1.get_variable("wide_bias", [], initializer=tf1.zeros_initializer())
        logit = deep_logit + wide + wide_bias
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=clicks, logits=logit))
        train_op = tf1.train.AdagradOptimizer(0.05, initial_accumulator_value=0.1).minimize(loss, global_step=gs)
    sess_config = tf1.ConfigProto(device_filters=["/job:ps", worker_device], **threads)
    if args.task != 0:
        # A non-chief MonitoredTrainingSession that finds the model not yet initialized sleeps
        # SessionManager's recovery_wait_secs (30 s) before it looks again, so it would join a
        # short run late or never: wait for the chief's initialization here, polling briskly.
        ready = tf1.report_uninitialized_variables()
        with tf1.Session(server.target, config=sess_config) as s:
            while len(s.run(ready)):
                time.sleep(0.05)
    print("tensorflow %s" % tf.__version__, file=sys.stderr, flush=True)
    with tf1.train.MonitoredTrainingSession(master=server.target, is_chief=args.task == 0,
                                            hooks=[tf1.train.StopAtStepHook(last_step=args.steps)],
                                            config=sess_config, save_checkpoint_secs=None,
                                            save_summaries_steps=None, save_summaries_secs=None,
                                            log_step_count_steps=None) as sess:
        feed = itertools.cycle(data)
        first = steady = None
        local = 0
        begin = time.perf_counter()
        step = 0
        while not sess.should_stop():
            bf, bc = next(feed)
            _, step = sess.run([train_op, gs], {features: bf, clicks: bc})
            local += 1
            if first is None:
                first = step
            if steady is None and step >= args.rate_from:
                steady = (time.perf_counter(), step)
        end = time.perf_counter()
        secs = end - begin
        line = "done: global step %d, %d local steps in %.2f s (%.1f global steps/s)" % (
            step, local, secs, (step - (first or 0)) / max(secs, 1e-9))
        if steady and end > steady[0]:
            line += ", steady %.1f global steps/s from step %d" % ((step - steady[1]) / (end - steady[0]), steady[1])
        print(line, file=sys.stderr, flush=True)
        # The driver stops every process once the chief has reported; closing would only wait.
        sys.stdout.flush()
        os._exit(0)


# -- driver --------------------------------------------------------------------------------------

def tail(path, chars=3000):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError as e:
        return "(no log: %s)" % e
    return text[-chars:]


def run_cluster(framework, ps, workers, args, logdir):
    """Runs one cluster; returns (steady global steps/s on the chief, the chief's log text).
    Raises RuntimeError (with the logs' tails) when it fails or passes --timeout."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), TF_CPP_MIN_LOG_LEVEL="2")
    cores = itertools.cycle(available_cores())

    def pinned(cmd):
        return ["taskset", "-c", str(next(cores))] + cmd if args.pin else cmd
    ports = free_ports(ps + workers)
    spec = json.dumps({"ps": ["127.0.0.1:%d" % p for p in ports[:ps]],
                       "worker": ["127.0.0.1:%d" % p for p in ports[ps:]]})
    procs = []  # (job, task, Popen, log path)
    try:
        for job, task in [("ps", k) for k in range(ps)] + [("worker", k) for k in range(workers)]:
            if framework == "tf1":
                cmd = [sys.executable, os.path.abspath(__file__), "--role", "tf1", "--cluster", spec,
                       "--job", job, "--task", str(task), "--steps", str(args.steps),
                       "--from", str(args.rate_from), "--rows", str(args.rows), "--batch", str(args.batch),
                       "--threads", str(args.threads), "--seed", str(args.seed)]
            else:
                cmd = [args.bin, "--cluster", spec, "--job", job, "--task", str(task),
                       "--threads", str(args.threads)]
                if job == "worker":
                    cmd += ["--steps", str(args.steps), "--rate-from", str(args.rate_from),
                            "--embedding-rows", str(args.rows), "--batch", str(args.batch),
                            "--no-eval", "--log-every", "0"]
            log = os.path.join(logdir, "%s-%s%d.log" % (framework, job, task))
            with open(log, "w") as f:
                procs.append((job, task, subprocess.Popen(pinned(cmd), stdin=subprocess.DEVNULL, stdout=f,
                                                          stderr=subprocess.STDOUT, env=env), log))
        chief = procs[ps]
        deadline = time.monotonic() + args.timeout
        problem = None
        while chief[2].poll() is None:
            # A ps that exits, or a worker that fails, leaves the chief waiting: stop early.
            dead = [(j, k, p, l) for j, k, p, l in procs
                    if p is not chief[2] and p.poll() is not None and (j == "ps" or p.returncode != 0)]
            if dead:
                j, k, p, l = dead[0]
                problem = "%s task %d exited with status %d; its log ends:\n%s" % (j, k, p.returncode, tail(l))
                break
            if time.monotonic() > deadline:
                problem = "timed out after %.0f s" % args.timeout
                break
            time.sleep(0.1)
        out = tail(chief[3], 1 << 20)
        m = re.search(r"steady ([0-9.]+) global steps/s", out)
        if problem is None and chief[2].returncode != 0:
            problem = "the chief exited with status %d" % chief[2].returncode
        if problem is None and not m:
            problem = "no steady rate in the chief's output"
        if problem:
            raise RuntimeError("%s\nthe chief's (worker 0) log ends:\n%s" % (problem, out[-3000:]))
        return float(m.group(1)), out
    finally:
        for _, _, p, _ in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__)), check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/apps/wide_deep/actorflow-wide-deep")
    ap.add_argument("--configs", default="1:1,2:1,4:1", help="PS:WORKERS, comma-separated")
    ap.add_argument("--frameworks", default="actorflow,tf1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=600, help="global steps per run")
    ap.add_argument("--from", dest="rate_from", type=int, default=100,
                    help="the steady window starts at the first global step at or past this")
    ap.add_argument("--rows", type=int, default=1000000, help="embedding rows (hash buckets)")
    ap.add_argument("--batch", type=int, default=256, help="examples per worker step")
    ap.add_argument("--threads", type=int, default=1, help="compute threads per process")
    ap.add_argument("--pin", action="store_true", help="taskset every process onto a core of its own")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--json", help="write machine-readable results here")
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    # A task of the tf1 side (the script runs itself).
    ap.add_argument("--role", default="driver", help=argparse.SUPPRESS)
    ap.add_argument("--cluster", help=argparse.SUPPRESS)
    ap.add_argument("--job", help=argparse.SUPPRESS)
    ap.add_argument("--task", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.role == "tf1":
        return tf_task(args)

    frameworks = [f for f in args.frameworks.split(",") if f]
    unknown = [f for f in frameworks if f not in FRAMEWORKS]
    if unknown or not frameworks:
        ap.error("--frameworks: unknown %s (choose from %s)" % (",".join(unknown) or "(none)", ",".join(FRAMEWORKS)))
    configs = []
    for c in args.configs.split(","):
        try:
            p, w = (int(x) for x in c.split(":"))
        except ValueError:
            ap.error("--configs: %r is not PS:WORKERS" % c)
        if p < 1 or w < 1:
            ap.error("--configs: %r needs at least 1 ps and 1 worker" % c)
        configs.append((p, w))
    if "actorflow" in frameworks:
        if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
            sys.exit("wide_deep_peers: the actorflow binary %r does not exist or is not executable: build "
                     "actorflow-wide-deep (cmake --build build --target actorflow-wide-deep) and pass "
                     "--bin, or run --frameworks tf1" % args.bin)
        args.bin = os.path.abspath(args.bin)
    if args.rate_from >= args.steps:
        ap.error("--from (%d) must be below --steps (%d)" % (args.rate_from, args.steps))

    failures, results, ratios = [], [], []
    tf_version = None
    logroot = tempfile.mkdtemp(prefix="wide_deep_peers.")
    for ps, workers in configs:
        rates = {fw: [None] * args.reps for fw in frameworks}
        for rep in range(args.reps):
            for fw in frameworks:
                logdir = os.path.join(logroot, "ps%d-w%d-rep%d" % (ps, workers, rep + 1))
                os.makedirs(logdir, exist_ok=True)
                try:
                    rate, out = run_cluster(fw, ps, workers, args, logdir)
                except (RuntimeError, OSError) as e:
                    msg = "FAILED %s ps=%d workers=%d rep=%d: %s" % (fw, ps, workers, rep + 1, e)
                    print(msg, flush=True)
                    failures.append({"framework": fw, "ps": ps, "workers": workers, "rep": rep + 1,
                                     "error": str(e)[-4000:]})
                    continue
                rates[fw][rep] = rate
                v = re.search(r"^tensorflow (\S+)", out, re.M)
                if v:
                    tf_version = v.group(1)
        for fw in frameworks:
            got = [r for r in rates[fw] if r is not None]
            if not got:
                continue
            med = statistics.median(got)
            print("PEER %s ps=%d workers=%d steps_per_s=%.1f examples_per_s=%.1f reps=%s" % (
                fw, ps, workers, med, med * args.batch, ",".join("%.1f" % r for r in got)), flush=True)
            results.append({"framework": fw, "ps": ps, "workers": workers, "steps_per_s": med,
                            "examples_per_s": med * args.batch, "reps": rates[fw]})
        if "actorflow" in rates and "tf1" in rates:
            pairs = [a / t for a, t in zip(rates["actorflow"], rates["tf1"]) if a is not None and t]
            if pairs:
                print("RATIO ps=%d workers=%d actorflow/tf1=%.2f min=%.2f max=%.2f pairs=%s" % (
                    ps, workers, statistics.median(pairs), min(pairs), max(pairs),
                    ",".join("%.2f" % r for r in pairs)), flush=True)
                ratios.append({"ps": ps, "workers": workers, "median": statistics.median(pairs),
                               "min": min(pairs), "max": max(pairs), "pairs": pairs})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "wide_deep", "cpu_model": cpu_model(), "cores": len(available_cores()),
                       "git_commit": git_commit(), "tensorflow_version": tf_version,
                       "settings": {"configs": args.configs, "frameworks": frameworks, "reps": args.reps,
                                    "steps": args.steps, "from": args.rate_from, "rows": args.rows,
                                    "batch": args.batch, "threads": args.threads, "pin": args.pin,
                                    "fields": FIELDS, "dim": DIM, "vocab": VOCAB, "zipf": ZIPF,
                                    "bin": args.bin if "actorflow" in frameworks else None},
                       "results": results, "ratios": ratios, "failures": failures}, f, indent=1)
    if failures:
        print("%d run(s) failed; logs under %s" % (len(failures), logroot), flush=True)
        sys.exit(1)
    shutil.rmtree(logroot, ignore_errors=True)


if __name__ == "__main__":
    main()
