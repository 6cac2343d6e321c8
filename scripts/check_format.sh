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
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! out=$(clang-format --dry-run --Werror "$f" 2>&1); then
    echo "$f is not formatted (clang-format -i $f):"
    echo "$out" | head -6
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "check_format: ${#files[@]} files formatted"
exit $bad
