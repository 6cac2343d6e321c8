#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit, conformance, integration; gpu tests
# skip themselves without a GPU). Usage: scripts/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
cd "$BUILD_DIR"
ctest --output-on-failure -j"${TEST_JOBS:-2}" "$@"
