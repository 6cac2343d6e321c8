#!/usr/bin/env python3
"""actorflow-wide-deep's own figures: bytes per step against the minimum, dense against sparse
gradients, memory per ps against its share of the table, and a table larger than one ps.

  python3 scripts/wide_deep_bench.py [--bin build/apps/wide_deep/actorflow-wide-deep]
      [--only bytes,memory,large] [--rows 1000000] [--memory-rows 8000000] [--reps 3]

bytes  : 2 ps + 1 worker, --report-bytes, sparse (IndexedSlices) then --dense-gradients,
         interleaved --reps times: bytes per step each way and the ratio to the minimum (the
         rows the batch touches and the MLP's parameters, once each way, 4 bytes each);
         the dense run's bytes against the sparse run's.
memory : 1, 2 and 4 ps + 1 worker with --memory-rows rows: each ps's peak RSS (VmHWM, which
         includes the process's own ~20 MiB) against its share of the table and Adagrad's
         slot (rows x 17 x 4 bytes x 2 / ps).
large  : the table and its slot of ~6 GiB (--large-rows 47000000) over 4 ps, each limited to
         2 GiB of data (prlimit --data), 200 steps: it completes; then the same table on 1 ps
         under the same limit: the run fails with RESOURCE_EXHAUSTED naming the part.
Python 3 only (no packages). Prints one line per figure, the machine (CPU model) and commit.
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_ports(n):
    socks, ports = [], []
    for port in range(20000 + (os.getpid() * 37) % 5000, 30000):
        if len(ports) == n:
            break
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        socks.append(s)
        ports.append(port)
    for s in socks:
        s.close()
    return ports


def run(binary, ps, workers, flags, ps_prefix=(), timeout=1800):
    """Runs a cluster; returns (chief log, [ps logs], chief exit code)."""
    ports = free_ports(ps + workers)
    spec = '{"ps": [%s], "worker": [%s]}' % (
        ", ".join('"127.0.0.1:%d"' % p for p in ports[:ps]),
        ", ".join('"127.0.0.1:%d"' % p for p in ports[ps:]))
    tmp = tempfile.mkdtemp(prefix="af_wide_deep_bench")
    procs, logs = [], []
    for k in range(ps):
        log = os.path.join(tmp, "ps%d.log" % k)
        logs.append(log)
        procs.append(subprocess.Popen(list(ps_prefix) + [binary, "--cluster", spec, "--job", "ps",
                                                         "--task", str(k), "--threads", "1"],
                                      stdout=open(log, "w"), stderr=subprocess.STDOUT))
    workers_p = []
    for k in range(workers):
        log = os.path.join(tmp, "w%d.log" % k)
        workers_p.append((subprocess.Popen([binary, "--cluster", spec, "--job", "worker", "--task",
                                            str(k), "--threads", "1", "--log-every", "0"] + flags,
                                           stdout=open(log, "w"), stderr=subprocess.STDOUT), log))
    code = None
    for k, (p, log) in enumerate(workers_p):
        try:
            c = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            c = -9
        if k == 0:
            code = c
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait()
    time.sleep(0.1)
    return (open(workers_p[0][1]).read(), [open(l).read() for l in logs], code)


def peak_mib(ps_log):
    m = re.search(r"peak RSS ([0-9.]+) MiB", ps_log)
    return float(m.group(1)) if m else float("nan")


def bytes_figures(args):
    flags = ["--embedding-rows", str(args.rows), "--steps", "600", "--rate-from", "100",
             "--report-bytes", "--no-eval"]
    sparse, dense = [], []
    for _ in range(args.reps):
        for kind, extra, out in (("sparse", [], sparse), ("dense", ["--dense-gradients"], dense)):
            log, _, code = run(args.bin, 2, 1, flags + extra)
            m = re.search(r"bytes per step: (\d+) from ps, (\d+) to ps, minimum (\d+) each way "
                          r"\(([0-9.]+) rows touched.*ratio ([0-9.]+)", log)
            if code != 0 or not m:
                sys.exit("bytes (%s) failed:\n%s" % (kind, log[-3000:]))
            out.append(tuple(float(x) for x in m.groups()))
    for kind, rows in (("sparse", sparse), ("dense", dense)):
        med = lambda i: statistics.median(r[i] for r in rows)
        print("BYTES %s rows=%d from_ps=%.0f to_ps=%.0f minimum=%.0f rows_touched=%.0f "
              "ratio=%.3f (min %.3f max %.3f)" % (
                  kind, args.rows, med(0), med(1), med(2), med(3), med(4),
                  min(r[4] for r in rows), max(r[4] for r in rows)))
    pairs = [(d[0] + d[1]) / (s[0] + s[1]) for s, d in zip(sparse, dense)]
    print("BYTES dense/sparse=%.1f (min %.1f max %.1f)" % (
        statistics.median(pairs), min(pairs), max(pairs)))


def memory_figures(args):
    width = 17
    for ps in (1, 2, 4):
        log, ps_logs, code = run(args.bin, ps, 1, ["--embedding-rows", str(args.memory_rows),
                                                   "--steps", "200", "--no-eval"])
        if code != 0:
            sys.exit("memory (%d ps) failed:\n%s" % (ps, log[-3000:]))
        share = args.memory_rows * width * 4 * 2 / ps / 2**20
        peaks = [peak_mib(l) for l in ps_logs]
        print("MEMORY ps=%d rows=%d share=%.1f MiB peak_rss=%s MiB ratio=%s" % (
            ps, args.memory_rows, share, ",".join("%.1f" % p for p in peaks),
            ",".join("%.3f" % (p / share) for p in peaks)))


def large_figures(args):
    limit = ["prlimit", "--data=%d" % (2 << 30)]
    table = args.large_rows * 17 * 4 * 2 / 2**30
    start = time.time()
    log, ps_logs, code = run(args.bin, 4, 1, ["--embedding-rows", str(args.large_rows),
                                              "--steps", "200", "--no-eval"], ps_prefix=limit)
    m = re.search(r"steady ([0-9.]+) global steps/s", log)
    print("LARGE ps=4 limit=2GiB table+slot=%.2f GiB exit=%s peak_rss=%s MiB steps_per_s=%s "
          "wall=%.0fs" % (table, code, ",".join("%.0f" % peak_mib(l) for l in ps_logs),
                          m.group(1) if m else "-", time.time() - start))
    log, _, code = run(args.bin, 1, 1, ["--embedding-rows", str(args.large_rows), "--steps", "200",
                                        "--no-eval"], ps_prefix=limit)
    err = re.search(r"RESOURCE_EXHAUSTED: [^\n]*\n[^\n]*", log)
    print("LARGE ps=1 limit=2GiB exit=%s error=%s" % (
        code, err.group(0).replace("\n", " ").strip() if err else "(none)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/apps/wide_deep/actorflow-wide-deep")
    ap.add_argument("--only", default="bytes,memory,large")
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--memory-rows", type=int, default=8000000)
    ap.add_argument("--large-rows", type=int, default=47000000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if not os.access(args.bin, os.X_OK):
        sys.exit("%s is not built (scripts/build.sh)" % args.bin)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print("MACHINE %s, %d cores; commit %s" % (cpu, os.cpu_count(), commit))
    only = args.only.split(",")
    if "bytes" in only:
        bytes_figures(args)
    if "memory" in only:
        memory_figures(args)
    if "large" in only:
        large_figures(args)


if __name__ == "__main__":
    main()
