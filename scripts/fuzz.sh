#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in fuzz/.
#
#   scripts/fuzz.sh [name...]      # names as in fuzz/<name>_fuzzer.cpp; default: all of them
#
# Each fuzz/<name>_fuzzer.cpp is compiled with clang++ (ASan + UBSan + libFuzzer, -O1) together
# with the files its fuzz/<name>_fuzzer.sources lists: one repo-relative .cpp per line; blank
# lines and lines starting with '#' are skipped, lines starting with '-l', '-L' or '-Wl,' go to
# the linker and other lines starting with '-' to the compiler (-D..., -I...). The binary lands in build-fuzz/<name>_fuzzer and runs
# over build-fuzz/corpus/<name>/, a working copy seeded from fuzz/corpus/<name>/, so the units
# libFuzzer adds never touch the small committed corpus. Crash reproducers go to
# build-fuzz/artifacts/<name>/.
#
# Environment: FUZZ_RUNS (executions per target, default 1000000), FUZZ_SECONDS (stop after
# this many seconds as well; default none), FUZZ_JOBS (compile jobs, default 2), CXX (the clang
# to use), FUZZ_CXXFLAGS (extra compiler flags for every target).
#
# Installs clang and the zlib headers with apt when they are missing (idempotent, as setup.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# -- toolchain -----------------------------------------------------------------------------

find_clang() {
  local c
  for c in ${CXX:+"$CXX"} clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 \
           clang++-14; do
    if command -v "$c" >/dev/null 2>&1 && "$c" --version 2>/dev/null | grep -qi clang; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

packages=()
if cxx="$(find_clang)"; then
  # libFuzzer's runtime lives in libclang-rt-<version>-dev on Debian 12.
  case "$("$cxx" -print-file-name=libclang_rt.fuzzer-x86_64.a)" in
    /*) ;;
    *) packages+=(libclang-rt-dev) ;;
  esac
else
  packages+=(clang libclang-rt-dev)
fi
[ -e /usr/include/zlib.h ] || packages+=(zlib1g-dev)
command -v protoc >/dev/null 2>&1 || packages+=(protobuf-compiler)
[ -e /usr/include/google/protobuf/message.h ] || packages+=(libprotobuf-dev)
if ((${#packages[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "fuzz: installing ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi
cxx="$(find_clang)" || { echo "fuzz: no clang++ found" >&2; exit 1; }

# -- targets -------------------------------------------------------------------------------

names=("$@")
if ((${#names[@]} == 0)); then
  for f in fuzz/*_fuzzer.cpp; do
    [ -e "$f" ] || continue
    n="$(basename "$f" .cpp)"
    names+=("${n%_fuzzer}")
  done
fi
if ((${#names[@]} == 0)); then
  echo "fuzz: no fuzz/*_fuzzer.cpp targets" >&2
  exit 1
fi

runs="${FUZZ_RUNS:-1000000}"
out="build-fuzz"
mkdir -p "$out"
# shellcheck disable=SC2054  # the commas belong to -fsanitize
cxxflags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -I ops/include -I ops/src -I kernels/include -I kernels/src -I actors/include -I queues/include -I queues/src)
# shellcheck disable=SC2206  # word splitting of the user's extra flags is intended
extra=(${FUZZ_CXXFLAGS:-})

# TensorFlow's messages (formats/proto), compiled once into $out/proto for the targets that
# list their .pb.cc files.
mkdir -p "$out/proto"
for p in formats/proto/actorflow/tf/*.proto; do
  pb="$out/proto/${p#formats/proto/}"
  pb="${pb%.proto}.pb.cc"
  if [ ! -f "$pb" ] || [ "$p" -nt "$pb" ]; then protoc --cpp_out="$out/proto" -Iformats/proto "$p"; fi
done
cxxflags+=(-I formats/include -I formats/src -I "$out/proto")

build() {
  local name="$1" src="fuzz/$1_fuzzer.cpp" list="fuzz/$1_fuzzer.sources"
  local sources=() flags=() libs=() line
  [ -f "$src" ] || { echo "fuzz: $src does not exist" >&2; return 1; }
  if [ -f "$list" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      line="$(printf '%s' "$line" | sed -e 's/\r$//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
      case "$line" in
        "" | "#"*) ;;
        -l* | -L* | -Wl,*) libs+=("$line") ;;
        -*) flags+=("$line") ;;
        *) sources+=("$line") ;;
      esac
    done <"$list"
  fi
  echo "fuzz: building $out/${name}_fuzzer with $cxx"
  # One object per source, compiled ${FUZZ_JOBS:-2} at a time and kept between runs; an object
  # is rebuilt when its source, a header, the .sources file or this script is newer.
  local objdir="$out/obj/$name" objs=() pids=() s o p status=0
  mkdir -p "$objdir"
  for s in "$src" "${sources[@]}"; do
    [ -f "$s" ] || { echo "fuzz: $s (listed in $list) does not exist" >&2; return 1; }
    o="$objdir/$(printf '%s' "$s" | tr '/.' '__').o"
    objs+=("$o")
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ "$0" -nt "$o" ] ||
       { [ -f "$list" ] && [ "$list" -nt "$o" ]; } ||
       [ -n "$(find ops actors queues formats -newer "$o" \( -name '*.hpp' -o -name '*.h' \) \
               -print -quit 2>/dev/null)" ]; then
      rm -f "$o"
      "$cxx" "${cxxflags[@]}" "${extra[@]}" "${flags[@]}" -c "$s" -o "$o" &
      pids+=($!)
      if ((${#pids[@]} >= ${FUZZ_JOBS:-2})); then
        for p in "${pids[@]}"; do wait "$p" || status=1; done
        pids=()
      fi
    fi
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  ((status == 0)) || { echo "fuzz: compiling $name failed" >&2; return 1; }
  "$cxx" "${cxxflags[@]}" "${extra[@]}" "${objs[@]}" "${libs[@]}" -lz -o "$out/${name}_fuzzer"
}

run() {
  local name="$1" corpus="$out/corpus/$1" artifacts="$out/artifacts/$1/"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/corpus/$name" ]; then
    # Seeds are added, never overwritten: the working corpus keeps what earlier runs found.
    cp -Rn "fuzz/corpus/$name/." "$corpus/" 2>/dev/null || true
  fi
  local args=(-runs="$runs" -artifact_prefix="$artifacts" -print_final_stats=1)
  [ -n "${FUZZ_SECONDS:-}" ] && args+=(-max_total_time="$FUZZ_SECONDS")
  echo "fuzz: running $name for $runs executions over $corpus"
  local start end
  start=$(date +%s)
  "$out/${name}_fuzzer" "${args[@]}" "$corpus" || return 1
  end=$(date +%s)
  echo "fuzz: $name done in $((end - start)) s"
}

failed=()
for name in "${names[@]}"; do
  if ! build "$name"; then
    failed+=("$name (build)")
    continue
  fi
  run "$name" || failed+=("$name (run)")
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all targets passed: ${names[*]}"
