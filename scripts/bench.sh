#!/usr/bin/env bash
# Builds and runs the benchmarks (apps/bench); each prints medians and ratios to a baseline
# measured in the same run. Usage: scripts/bench.sh [benchmark args...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_TYPE=${BUILD_TYPE:-Release} scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
"$BUILD_DIR"/apps/bench/actorflow-bench "$@"
