#!/usr/bin/env bash
# The GPU checks, run on a machine with a GPU from a bundle made by scripts/gpu_bundle.sh:
# the gpu test suites (what `ctest -L gpu` runs), the device listing, the GPU benchmarks
# (actorflow-bench-gpu), the Fashion-MNIST CNN on /gpu:0 and on the CPU, the PyTorch peer
# on the same GPU when python3 has torch, distributed training with GPU workers (dist) and
# the scaling sweep over the machine's cores beside PyTorch DDP (sweep). Each step has its own time limit, so one
# hang costs only its step; everything is logged to OUT_DIR/gpu_check.log.
#
#   BUNDLE/gpu_check.sh BUNDLE OUT_DIR [steps...]
#   (steps: info tests bench train peer dist sweep memory cpu; default all)
set -uo pipefail
B=$(realpath "$1")
OUT=$(realpath "$2")
shift 2
steps=${*:-info tests bench train peer dist sweep memory cpu}
mkdir -p "$OUT"
LOG="$OUT/gpu_check.log"
[ -d "$B/bin" ] || tar -C "$B" -xJf "$B/bin.tar.xz"
# CUDA's libraries come from the machine: the toolkit's lib64 and the pip wheels' lib folders.
cuda_dirs=$(find /usr/local /opt /usr/lib -xdev \( -name 'libcudnn.so.9' -o -name 'libcublas.so.1[0-9]' \
              -o -name 'libcudart.so.1[0-9]' -o -name 'libcublasLt.so.1[0-9]' \) -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$B/lib:$cuda_dirs:${LD_LIBRARY_PATH:-}"
# The test binary runs actorflow-devices from the path it was built with.
devices_path=$(cat "$B/devices_path")
mkdir -p "$(dirname "$devices_path")"
[ -e "$devices_path" ] || cp "$B/bin/actorflow-devices" "$devices_path"
step() {  # step NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  echo "=== $name ($(date +%T), limit ${secs}s): $*" | tee -a "$LOG"
  local t0=$SECONDS
  timeout -k 5 "$secs" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc after $((SECONDS - t0))s" | tee -a "$LOG"
}
has() { [[ " $steps " == *" $1 "* ]]; }
if has info; then
  step nvidia-smi 30 nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee -a "$LOG"
  step ldd 10 bash -c "ldd $B/bin/gpu_tests | grep -E 'not found|cud|cublas'"
  step devices 60 "$B/bin/actorflow-devices"
fi
# Ordered by what matters most, so a run cut short still brings back the first figures.
if has tests; then
  step cuda_libraries_test 60 "$B/bin/unit_devices_tests" --run_test=cuda_libraries_test --log_level=message
  step gpu_kernels_test 120 "$B/bin/gpu_tests" --run_test=gpu_kernels_test --log_level=test_suite --report_level=short
fi
if has bench; then
  step bench_gpu 120 "$B/bin/actorflow-bench-gpu"
fi
if has train; then
  step placement_gpu 60 bash -c "'$B/bin/actorflow-train' --model cnn --device /gpu:0 --from-memory --max-steps 1 \
    --data-dir '$B/data' --quiet --log-device-placement 2>&1 | grep -c 'device:GPU'; \
    '$B/bin/actorflow-train' --model cnn --device /gpu:0 --from-memory --max-steps 1 --data-dir '$B/data' --quiet \
    --log-device-placement 2>&1 | grep 'device:CPU'"
  step train_gpu 120 "$B/bin/actorflow-train" --model cnn --device /gpu:0 --from-memory --epochs 2 \
    --data-dir "$B/data" --quiet
  # The input pipeline (reader actors, shuffle queue) on the CPU, the model on the GPU.
  step train_gpu_pipeline 120 "$B/bin/actorflow-train" --model cnn --device /gpu:0 --epochs 1 \
    --data-dir "$B/data" --quiet
fi
if has peer && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  step peer_torch_gpu 90 env PYTHONUNBUFFERED=1 python3 "$B/gpu_cnn_peers.py" --epochs 2 --data-dir "$B/data"
fi
# The distributed-training peers script over this bundle's binary and data.
peers=(env PYTHONUNBUFFERED=1 python3 "$B/dist_train_peers.py" --bin "$B/bin/actorflow-dist-train" --data-dir "$B/data" --timeout 90)
if has dist; then
  # Workers on the GPU (two share it, 0.45 of its memory each), the ps on the CPU; one CPU
  # worker beside them; DDP on the same GPU (gloo). Test accuracy from the chief.
  step dist_gpu 150 "${peers[@]}" --frameworks actorflow,ddp --device gpu --accuracy --reps 1 --configs async:1,async:2,sync:1,sync:2
  step dist_cpu 90 "${peers[@]}" --frameworks actorflow,ddp --accuracy --reps 1 --configs async:1,sync:1,sync:2
fi
if has sweep; then
  # Every process on a core of its own, one compute thread each: 1 ps with 1-8 workers, then
  # 2 and 4 ps with 8 workers, async and sync, beside DDP (sync only, no ps).
  # SWEEP_FRAMEWORKS, SWEEP_STEPS and SWEEP_LIMIT (seconds) shorten it for a rerun.
  step sweep "${SWEEP_LIMIT:-300}" "${peers[@]}" --frameworks "${SWEEP_FRAMEWORKS:-actorflow,ddp}" --pin --reps 1 \
    --steps "${SWEEP_STEPS:-1000}" --warm-from "$(( ${SWEEP_STEPS:-1000} / 5 ))" \
    --configs async:1,async:2,async:4,async:8,async:8:2,async:8:4,sync:1,sync:2,sync:4,sync:8,sync:8:2,sync:8:4
fi
if has memory; then
  step gpu_memory_test 150 "$B/bin/gpu_tests" --run_test=gpu_memory_test --log_level=test_suite --report_level=short
fi
if has cpu; then
  step train_cpu 90 "$B/bin/actorflow-train" --model cnn --device /cpu:0 --from-memory --epochs 1 \
    --data-dir "$B/data" --quiet
fi
echo "=== done ($(date +%T))" | tee -a "$LOG"
