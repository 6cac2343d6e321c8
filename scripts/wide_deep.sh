#!/usr/bin/env bash
# Starts a local cluster of actorflow-wide-deep processes (N ps, M workers) on loopback and
# trains the wide & deep click-through model across it; worker 0 is the chief and prints the
# test AUC beside the achievable one. Returns when every worker is done; the ps tasks are
# stopped then (each prints its peak RSS).
#
#   scripts/wide_deep.sh [--ps N] [--workers M] [--ps-memory BYTES] [--build-dir DIR] [-- worker flags...]
#   scripts/wide_deep.sh --ps 2 --ps-memory 402653184 -- --embedding-rows 3000000 --steps 2000
#
# --ps-memory limits each ps's data segment (prlimit --data): a table whose parts do not fit
# fails with RESOURCE_EXHAUSTED naming the part. Extra flags go to every worker (see
# `actorflow-wide-deep --help`). Logs are in ${LOG_DIR:-$BUILD_DIR/wide_deep_logs}.
set -euo pipefail
cd "$(dirname "$0")/.."
ps=2
workers=1
ps_memory=""
build_dir=build
while (($#)); do
  case "$1" in
    --ps) ps=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --ps-memory) ps_memory=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "wide_deep.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
bin="$build_dir/apps/wide_deep/actorflow-wide-deep"
[ -x "$bin" ] || { echo "wide_deep.sh: $bin not built (scripts/build.sh)" >&2; exit 1; }
log_dir=${LOG_DIR:-$build_dir/wide_deep_logs}
mkdir -p "$log_dir"

# Free loopback ports below the ephemeral range, asked of the kernel (bound then released).
ports=($(python3 - "$((ps + workers))" <<'PY'
import os, socket, sys
socks, port = [], 20000 + os.getpid() % 5000
while len(socks) < int(sys.argv[1]):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); socks.append(s)
    except OSError:
        s.close()
    port += 1
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
))
list() { local out=""; for p in "$@"; do out+="${out:+, }\"127.0.0.1:$p\""; done; echo "$out"; }
spec="{\"ps\": [$(list "${ports[@]:0:ps}")], \"worker\": [$(list "${ports[@]:ps}")]}"
echo "cluster: $spec"

limit=()
[ -n "$ps_memory" ] && limit=(prlimit "--data=$ps_memory")
ps_pids=()
worker_pids=()
cleanup() { kill "${ps_pids[@]}" "${worker_pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for ((k = 0; k < ps; ++k)); do
  "${limit[@]}" "$bin" --cluster "$spec" --job ps --task "$k" >"$log_dir/ps$k.log" 2>&1 &
  ps_pids+=("$!")
done
for ((k = 0; k < workers; ++k)); do
  "$bin" --cluster "$spec" --job worker --task "$k" "$@" > >(tee "$log_dir/worker$k.log") 2>&1 &
  worker_pids+=("$!")
done
status=0
for pid in "${worker_pids[@]}"; do
  wait "$pid" || status=1
done
kill -TERM "${ps_pids[@]}" 2>/dev/null || true
for pid in "${ps_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
grep -h "peak RSS" "$log_dir"/ps*.log || true
exit $status
