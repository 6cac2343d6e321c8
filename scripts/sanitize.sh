#!/usr/bin/env bash
# Builds actorflow with AddressSanitizer and UndefinedBehaviorSanitizer (CUDA off) into
# ${BUILD_DIR:-build-asan} and runs the whole test suite under them:
#   scripts/sanitize.sh [ctest args...]
# UBSan stops at the first report (halt_on_error); the only suppression (scripts/ubsan.supp) is CAF 0.17's
# own init_fun_factory.hpp, which binds a null shared_ptr on every argument-less spawn(fn).
# Products go through OpenBLAS under the sanitizers (see ACTORFLOW_GEMM below).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build-asan}
# Recoverable UBSan checks (suppressions do not apply to non-recoverable ones); halt_on_error
# below still stops at the first report that is not suppressed.
flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACTORFLOW_ENABLE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0}
# Products through OpenBLAS, not oneDNN: oneDNN (opened with dlopen) runs its products on
# libgomp's OpenMP threads, and LeakSanitizer's exit-time tracer crashes on them ("Tracer
# caught signal 11"; with use_tls=0 it reports libgomp's per-thread state instead).
export ACTORFLOW_GEMM=${ACTORFLOW_GEMM:-openblas}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp}
cd "$BUILD_DIR"
ctest --output-on-failure -j"${TEST_JOBS:-2}" --timeout 900 "$@"
