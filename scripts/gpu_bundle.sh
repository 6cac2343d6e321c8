#!/usr/bin/env bash
# Packs what the GPU checks need into ${BUNDLE:-.gpu} (git-ignored): the GPU test, devices,
# trainer and GPU benchmark binaries (stripped), the shared libraries they link that a bare
# CUDA machine lacks (CAF, Boost.Test, LevelDB, ...; never the CUDA libraries, which come
# from the GPU machine), the Fashion-MNIST files and scripts/gpu_check.sh, for a machine
# that has a GPU but none of actorflow's Debian packages.
#
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DACTORFLOW_ENABLE_CUDA=ON
#   cmake --build build-gpu -j2 --target gpu_tests unit_devices_tests actorflow-devices actorflow-train actorflow-bench-gpu \
#       actorflow-dist-train
#   scripts/gpu_bundle.sh            # then, on the GPU machine: .gpu/gpu_check.sh .gpu OUT_DIR
# (bin/ and lib/ travel packed in bin.tar.xz; gpu_check.sh unpacks them)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-gpu}
BUNDLE=${BUNDLE:-.gpu}
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/data"
bins=("$BUILD_DIR/tests/gpu_tests" "$BUILD_DIR/tests/unit_devices_tests" "$BUILD_DIR/apps/devices/actorflow-devices"
      "$BUILD_DIR/apps/train/actorflow-train" "$BUILD_DIR/apps/bench/actorflow-bench-gpu"
      "$BUILD_DIR/apps/dist_train/actorflow-dist-train")
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "gpu_bundle: missing $b" >&2; exit 1; }
  strip -o "$BUNDLE/bin/$(basename "$b")" "$b"
done
# Every shared library the binaries need except glibc's, the compiler runtime's and CUDA's.
for b in "${bins[@]}"; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*|libcud[a-z]*|libcublas[A-Za-z]*)\.so' |
  while read -r lib; do cp -L "$lib" "$BUNDLE/lib/"; done
# The device tool moves at most 64 MiB: binaries and libraries travel as one xz archive.
tar -C "$BUNDLE" -cf - bin lib | xz -T2 -6 > "$BUNDLE/bin.tar.xz"
rm -rf "$BUNDLE/bin" "$BUNDLE/lib"
cp /usr/share/datasets/fashion-mnist/*.gz "$BUNDLE/data/"
cp scripts/gpu_check.sh scripts/peers/gpu_cnn_peers.py scripts/peers/dist_train_peers.py "$BUNDLE/"
# Where the test binary looks for actorflow-devices (compiled in as an absolute path).
realpath "$BUILD_DIR/apps/devices/actorflow-devices" > "$BUNDLE/devices_path"
du -sh "$BUNDLE"
