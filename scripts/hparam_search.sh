#!/usr/bin/env bash
# The chapter's exercises 8 and 9 on a local cluster: starts 2 worker servers
# (actorflow-server), trains several DNNs on Fashion-MNIST in parallel across them, each in
# its own resource container (reset when it is done), scores them on a validation split,
# reports the top three, then ensembles those three (one per device) on the test set.
#
#   scripts/hparam_search.sh [--build-dir DIR] [--steps N]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
steps=800
while (($#)); do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "hparam_search.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
server="$build_dir/apps/server/actorflow-server"
hparam="$build_dir/apps/hparam/actorflow-hparam"
for b in "$server" "$hparam"; do [ -x "$b" ] || { echo "hparam_search.sh: $b not built" >&2; exit 1; }; done
work=$(mktemp -d)
ports=($(python3 - <<'EOF'
import socket
socks = []
for _ in range(2):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
))
spec="{\"worker\": [\"127.0.0.1:${ports[0]}\", \"127.0.0.1:${ports[1]}\"]}"
pids=()
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for k in 0 1; do
  "$server" --cluster "$spec" --job worker --task "$k" --threads 1 2>>"$work/servers.log" &
  pids+=($!)
done
for p in "${ports[@]}"; do  # until every server listens
  for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && break; sleep 0.1; done
done

# The trials: (hidden1, hidden2, learning rate), spread round-robin over the two tasks and
# run two at a time, each through the task it runs on.
trials=("256 128 0.001" "128 64 0.001" "256 128 0.003" "64 32 0.003" "512 256 0.0003" "128 64 0.0001")
i=0
batch=()
for t in "${trials[@]}"; do
  set -- $t
  task=$((i % 2))
  "$hparam" --role train --target "caf://127.0.0.1:${ports[$task]}" --device "/job:worker/task:$task" \
    --container "trial_$i" --hidden1 "$1" --hidden2 "$2" --lr "$3" --steps "$steps" --seed $((42 + i)) \
    --checkpoint "$work/trial_$i" >"$work/trial_$i.out" 2>"$work/trial_$i.err" &
  batch+=($!)
  i=$((i + 1))
  if ((${#batch[@]} == 2)); then wait "${batch[@]}" || true; batch=(); fi
done
((${#batch[@]} == 0)) || wait "${batch[@]}" || true
echo "== validation accuracy of each trial =="
grep -h "^VALIDATION" "$work"/trial_*.out | sort -k2 -r | tee "$work/ranked.txt"
n=$(wc -l <"$work/ranked.txt")
[ "$n" -ge 3 ] || { echo "hparam_search.sh: only $n trials finished" >&2; cat "$work"/trial_*.err >&2; exit 1; }
echo "== the top three =="
head -3 "$work/ranked.txt"
models=$(head -3 "$work/ranked.txt" | awk '{split($5, h, ":"); printf "%s%s:%s:%s", (NR > 1 ? "," : ""), $3, h[1], h[2]}')
echo "== ensemble of the top three, one per device, on the test set =="
"$hparam" --role ensemble --target "caf://127.0.0.1:${ports[0]}" --models "$models" \
  --devices "/job:worker/task:0,/job:worker/task:1,/job:worker/task:0"
