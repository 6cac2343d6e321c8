#!/usr/bin/env bash
# Checks that C++ sources are formatted as .clang-format says (clang-format from Debian's
# clang-format package; scripts/setup.sh installs it). Exits 1 naming each file that is not,
# with clang-format's first complaints.
#
#   scripts/check_format.sh              # every tracked .cpp/.hpp/.cu/.cuh file (the test)
#   scripts/check_format.sh --changed    # only those changed against origin/main (or HEAD)
#   scripts/check_format.sh FILE...      # these files
# To fix: clang-format -i FILE...
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (scripts/setup.sh)"; exit 1; }
if [ "${1:-}" = "--changed" ]; then
  base=$(git rev-parse -q --verify origin/main || git rev-parse HEAD)
  mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.hpp' '*.cu' '*.cuh')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
fi
# clang-format checks batches of files on every core; each file it complains about is named
# with its first complaints.
present=()
for f in "${files[@]}"; do [ -f "$f" ] && present+=("$f"); done
out=""
rc=0
if [ ${#present[@]} -gt 0 ]; then
  out=$(printf '%s\0' "${present[@]}" |
        xargs -0 -P"$(nproc)" -n 24 clang-format --dry-run --Werror 2>&1) || rc=$?
fi
mapfile -t unformatted < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: (error|warning): code should be clang-formatted' <<<"$out" |
                           cut -d: -f1 | sort -u)
if [ ${#unformatted[@]} -eq 0 ] && [ $rc -ne 0 ]; then
  echo "check_format: clang-format failed:"; echo "$out" | head -20; exit 1
fi
for f in "${unformatted[@]}"; do
  echo "$f is not formatted (clang-format -i $f):"
  grep -F -A3 "$f:" <<<"$out" | head -6
done
[ ${#unformatted[@]} -eq 0 ] && echo "check_format: ${#present[@]} files formatted"
[ ${#unformatted[@]} -eq 0 ]
