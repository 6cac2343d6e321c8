#!/usr/bin/env bash
# Sets up, builds and runs the main demo: the chapter's local examples with placement
# logging and a step trace, a cluster of three tasks (in this process by default), the
# ensemble of Figure 12-13 with a predictor killed midway, the CSV input pipeline, and one
# epoch of Fashion-MNIST training with a checkpoint, resumed for a second epoch, and
# synchronous data-parallel training across a local cluster of processes (1 ps, 2 workers),
# and the wide & deep model with an embedding table larger than either of its 2 ps may hold.
#
#   scripts/demo.sh              # the cluster's tasks are Servers inside the demo process
#   scripts/demo.sh --processes  # they are actorflow-server processes (ports from
#                                # AF_DEMO_PORT_BASE, default 22221..22223), and the
#                                # ensemble's predictors are processes killed with SIGKILL
set -euo pipefail
cd "$(dirname "$0")/.."
processes=0
args=()
for a in "$@"; do
  if [[ "$a" == "--processes" ]]; then processes=1; else args+=("$a"); fi
done
scripts/setup.sh
# Only the programs the demo runs (scripts/test.sh builds everything).
TARGETS="actorflow-demo actorflow-ensemble actorflow-csv-pipeline actorflow-train actorflow-server actorflow-dist-train actorflow-wide-deep" \
  scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}

if [[ $processes == 1 ]]; then
  base=${AF_DEMO_PORT_BASE:-22221}
  cluster=$(mktemp --suffix=.json)
  echo "{\"ps\": [\"127.0.0.1:$base\"], \"worker\": [\"127.0.0.1:$((base + 1))\", \"127.0.0.1:$((base + 2))\"]}" >"$cluster"
  pids=()
  cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -f "$cluster" "${cluster%.json}.log"
  }
  trap cleanup EXIT
  for spec in "ps 0" "worker 0" "worker 1"; do
    set -- $spec
    "$BUILD_DIR"/apps/server/actorflow-server --cluster "$cluster" --job "$1" --task "$2" 2>>"${cluster%.json}.log" &
    pids+=($!)
  done
  for port in $base $((base + 1)) $((base + 2)); do  # until every server listens
    for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
  done
  "$BUILD_DIR"/apps/demo/actorflow-demo "${args[@]}" --cluster "$cluster"
  echo
  echo "== ensemble (Figure 12-13): predictor processes, one killed with SIGKILL =="
  "$BUILD_DIR"/apps/ensemble/actorflow-ensemble --processes 2> >(grep -v "waiting for\|Started server\|connected to" >&2)
else
  "$BUILD_DIR"/apps/demo/actorflow-demo "${args[@]}"
  echo
  echo "== ensemble (Figure 12-13): predictor clients in this process, one stopped midway =="
  "$BUILD_DIR"/apps/ensemble/actorflow-ensemble 2> >(grep -v "waiting for\|Started server\|connected to" >&2)
fi
echo
echo "== csv_pipeline: sharded CSV files -> 2 TextLineReader actors -> RandomShuffleQueue =="
"$BUILD_DIR"/apps/csv_pipeline/actorflow-csv-pipeline --files 4 --lines 100000 --readers 2
echo
echo "== train: Fashion-MNIST from reader actors -> shuffle queue -> MLP 784-256-128-10 -> Adam, one epoch =="
ckpt=$(mktemp -d)
logdir=$(mktemp -d)
"$BUILD_DIR"/apps/train/actorflow-train --epochs 1 --checkpoint-dir "$ckpt" --logdir "$logdir/run1"
echo "== train --restore: resumes from $(basename "$(ls "$ckpt"/*.index | head -1)" .index) for a second epoch =="
"$BUILD_DIR"/apps/train/actorflow-train --epochs 2 --checkpoint-dir "$ckpt" --restore --quiet --logdir "$logdir/run2"
echo
echo "== dist_train: 1 ps + 2 worker processes, synchronous data parallelism (SyncReplicasOptimizer) =="
dist_logs=$(mktemp -d)
LOG_DIR=$dist_logs scripts/dist_train.sh --workers 2 --build-dir "$BUILD_DIR" -- --mode sync --steps 300 \
  --log-every 100 2>&1 | grep -E "mode sync|global step [0-9]+, loss|done:"
echo
echo "== wide_deep: a 3,000,000-row embedding table (389 MiB with Adagrad's slot) partitioned over 2 ps processes, each limited to 384 MiB of data (~120 MiB of it thread stacks) =="
wd_logs=$(mktemp -d)
LOG_DIR=$wd_logs scripts/wide_deep.sh --ps 2 --workers 1 --ps-memory 402653184 --build-dir "$BUILD_DIR" -- \
  --embedding-rows 3000000 --steps 3000 --log-every 1000 2>&1 | grep -E "table |global step [0-9]+, loss|done:|peak RSS"
echo
echo "== what the demo wrote =="
echo "  Chrome traces of the traced steps (open in https://ui.perfetto.dev): $(ls -1 "${TMPDIR:-/tmp}"/actorflow-*trace*.json 2>/dev/null | tr '\n' ' ')"
echo "  Fashion-MNIST checkpoints and their .meta graphs (TensorFlow's V2 format; tf.compat.v1.train.import_meta_graph loads them): $ckpt"
echo "  TensorBoard's events files (the graph, loss, accuracy, histograms): tensorboard --logdir $logdir"
echo "  the distributed run's logs (ps and workers): $dist_logs"
