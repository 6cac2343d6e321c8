#!/usr/bin/env bash
# Starts a local cluster of actorflow-dist-train processes (1 ps, N workers) on loopback and
# trains the MLP on Fashion-MNIST across it; worker 0 is the chief. Returns when every
# worker is done; the ps is stopped then.
#
#   scripts/dist_train.sh [--workers N] [--build-dir DIR] [-- extra worker flags...]
#   scripts/dist_train.sh --workers 2 -- --mode sync --steps 600 --checkpoint-dir /tmp/ckpt
#
# Extra flags go to every worker (see `actorflow-dist-train --help`). Logs are in
# ${LOG_DIR:-$BUILD_DIR/dist_train_logs}/{ps0,worker0,...}.log, and each worker's lines are
# also printed as they come.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=2
build_dir=build
while (($#)); do
  case "$1" in
    --workers) workers=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "dist_train.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
bin="$build_dir/apps/dist_train/actorflow-dist-train"
[ -x "$bin" ] || { echo "dist_train.sh: $bin not built (scripts/build.sh)" >&2; exit 1; }
log_dir=${LOG_DIR:-$build_dir/dist_train_logs}
mkdir -p "$log_dir"

# Free loopback ports, asked of the kernel (bound then released).
ports=($(python3 - "$((workers + 1))" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
))
worker_list=""
for ((k = 0; k < workers; ++k)); do
  worker_list+="${worker_list:+, }\"127.0.0.1:${ports[k + 1]}\""
done
spec="{\"ps\": [\"127.0.0.1:${ports[0]}\"], \"worker\": [${worker_list}]}"
echo "cluster: $spec"

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
"$bin" --cluster "$spec" --job ps --task 0 >"$log_dir/ps0.log" 2>&1 &
ps_pid=$!
pids+=("$ps_pid")
worker_pids=()
for ((k = 0; k < workers; ++k)); do
  "$bin" --cluster "$spec" --job worker --task "$k" "$@" 2>&1 | tee "$log_dir/worker$k.log" &
  worker_pids+=("$!")
  pids+=("$!")
done
status=0
for pid in "${worker_pids[@]}"; do
  wait "$pid" || status=1
done
kill "$ps_pid" 2>/dev/null || true
wait "$ps_pid" 2>/dev/null || true
exit $status
