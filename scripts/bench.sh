#!/usr/bin/env bash
# Builds and runs the benchmarks (apps/bench); each prints medians and the ratio of its
# interleaved pairs with its baseline, measured in the same run.
# Usage: scripts/bench.sh [benchmark args...] (no benchmark, or `all`: every benchmark, and
# the output is kept in bench-results/ as text and JSON, named by date and commit, with the
# CPU model; BENCH_OUT_DIR moves it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Only the benchmark program and what it links: not the tests (half of a cold build).
BUILD_TYPE=${BUILD_TYPE:-Release} TARGETS=${TARGETS:-actorflow-bench} scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
bench="$BUILD_DIR"/apps/bench/actorflow-bench
if [ $# -eq 0 ] || [ "$1" = all ]; then
  out_dir=${BENCH_OUT_DIR:-bench-results}
  mkdir -p "$out_dir"
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
  base="$out_dir/bench-$(date -u +%Y%m%dT%H%M%SZ)-$commit"
  "$bench" "$@" --json "$base.json" --commit "$commit" | tee "$base.txt"
  echo "bench.sh: wrote $base.txt and $base.json"
else
  "$bench" "$@"
fi
