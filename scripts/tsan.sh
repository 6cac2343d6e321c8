#!/usr/bin/env bash
# Builds the queue, actor and data tests with ThreadSanitizer (CUDA off) into ${BUILD_DIR:-build-tsan}
# and runs them under it, against a CAF built with ThreadSanitizer too:
#   scripts/tsan.sh [extra Boost.Test arguments...]
#
# Debian's libcaf is not instrumented, so TSan cannot see the ordering CAF's mailboxes and
# scheduler give (a message sent from one actor and handled by another looked like a race:
# 491 reports in unit_actors_tests). The script therefore fetches Debian's own source of CAF
# (`apt-get source actor-framework`, the same 0.17.6 whose headers the build uses; it adds a
# deb-src entry for the configured Debian mirror when there is none), builds libcaf_core,
# libcaf_io and libcaf_openssl with -fsanitize=thread into $BUILD_DIR/caf (once; about 10
# minutes on 2 cores), and runs the tests with LD_LIBRARY_PATH pointing there: same soname,
# same headers, instrumented code. scripts/tsan.supp lists what is still suppressed, each
# entry with its reason; any other report fails the run (exit code 66).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build-tsan}
JOBS=${JOBS:-$(nproc)}
flags="-fsanitize=thread -fno-omit-frame-pointer"
root=$PWD
caf_lib="$root/$BUILD_DIR/caf/build/lib"

build_caf() {
  local version src
  version=$(dpkg-query -W -f='${Version}' libcaf-dev)
  [ -f "$caf_lib/libcaf_core.so.${version%%-*}" ] && return 0
  mkdir -p "$BUILD_DIR/caf/src"
  if ! apt-cache showsrc actor-framework >/dev/null 2>&1 || [ -z "$(apt-cache showsrc actor-framework 2>/dev/null)" ]; then
    # A deb-src twin of each configured Debian source.
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      grep -q '^Types: deb$' "$f" || continue
      sed 's/^Types: deb$/Types: deb-src/' "$f" >"/etc/apt/sources.list.d/actorflow-src-$(basename "$f")"
    done
    apt-get update -qq
  fi
  # Only the upstream tarball is needed; apt's exit status also reports the Debian patch
  # archive, which a mirror snapshot may lack.
  # A binary-only rebuild (+bN) keeps its source's version.
  (cd "$BUILD_DIR/caf/src" && apt-get source -qq --download-only "actor-framework=${version%+b*}" >/dev/null 2>&1 || true)
  src=$(ls "$BUILD_DIR"/caf/src/actor-framework_*.orig.tar.* 2>/dev/null | head -n1 || true)
  [ -n "$src" ] || { echo "tsan: could not fetch the source of actor-framework $version" >&2; exit 1; }
  rm -rf "$BUILD_DIR/caf/actor-framework"
  mkdir -p "$BUILD_DIR/caf/actor-framework"
  tar xf "$src" -C "$BUILD_DIR/caf/actor-framework" --strip-components=1
  # Debian's GCC 12 fix: receive_buffer.hpp uses std::numeric_limits without <limits>.
  sed -i 's|#include <memory>|#include <memory>\n#include <limits>|' \
    "$BUILD_DIR/caf/actor-framework/libcaf_io/caf/io/network/receive_buffer.hpp"
  cmake -S "$BUILD_DIR/caf/actor-framework" -B "$BUILD_DIR/caf/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCAF_NO_EXAMPLES=yes -DCAF_NO_UNIT_TESTS=yes -DCAF_NO_OPENCL=yes -DCAF_NO_PYTHON=yes -DCAF_NO_TOOLS=yes \
    -DCAF_NO_SUMMARY=yes -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
  cmake --build "$BUILD_DIR/caf/build" -j"$JOBS"
}

build_caf
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACTORFLOW_ENABLE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" --target unit_queues_tests unit_actors_tests unit_data_tests \
  conformance_tests
export LD_LIBRARY_PATH="$caf_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$root/scripts/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4}
status=0
run() {
  echo "== $*"
  "$@" --log_level=test_suite || status=1
}
run "$BUILD_DIR/tests/unit_queues_tests" "$@"
run "$BUILD_DIR/tests/unit_actors_tests" "$@"
run "$BUILD_DIR/tests/unit_data_tests" "$@"
run "$BUILD_DIR/tests/conformance_tests" --run_test=queue_test,coordination_test,reader_test,accumulator_conformance_test,tf_data_test,tf_data_ops_test "$@"
exit $status
