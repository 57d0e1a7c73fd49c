#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/lint/format.sh - the C sources are formatted as .clang-format says, no line of them
# runs past 100 columns and no file past 650 lines (the house's size for one module).
#
#   format.sh [FILE...]         check (default: every .c and .h git knows, tools/ left out);
#                               prints FILE:LINE: problem, exit 1 when there is any
#   format.sh --fix [FILE...]   rewrite them in place (`make format`), then check
#
# tools/ is left out: tools/nccl-oracle is C++ compiled against NCCL's headers, kept in NCCL's
# layout. Needs clang-format (apt-get install clang-format); without it: exit 77, "skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
MAX_COLUMNS=100
MAX_LINES=650
STYLE=$PWD/.clang-format

fix=0
if [ "${1:-}" = --fix ]; then fix=1; shift; fi
if [ $# -gt 0 ]; then files=("$@")
else
  mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' | grep -v '^tools/' | sort -u)
fi
command -v clang-format >/dev/null || { echo "format: skipped: clang-format not installed"; exit 77; }
[ ${#files[@]} -gt 0 ] || { echo "format: no files"; exit 1; }

if [ $fix = 1 ]; then
  clang-format --style="file:$STYLE" -i "${files[@]}" || exit 1
fi

bad=0
for f in "${files[@]}"; do
  # the first line clang-format would change, from its own report (-n: dry run)
  where=$(clang-format --style="file:$STYLE" -n "$f" 2>&1 | sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: .*/\1/p' | head -n1)
  if [ -n "$where" ]; then
    echo "$f:$where: not formatted as .clang-format says (make format)"
    bad=$((bad + 1))
  fi
done
long=$(awk -v max=$MAX_COLUMNS 'length($0) > max { printf "%s:%d: %d columns, over %d\n", FILENAME, FNR, length($0), max }' \
  "${files[@]}")
[ -n "$long" ] && echo "$long"
n_long=$(printf '%s' "$long" | grep -c . || true)
big=$(wc -l "${files[@]}" | awk -v max=$MAX_LINES '$2 != "total" && $1 > max { printf "%s: %d lines, over %d\n", $2, $1, max }')
[ -n "$big" ] && echo "$big"
n_big=$(printf '%s' "$big" | grep -c . || true)
echo "format: clang-format $(clang-format --version | sed -n 's/.*version \([0-9.]*\).*/\1/p'):" \
  "${#files[@]} files, $bad not formatted, $n_long lines over $MAX_COLUMNS columns," \
  "$n_big files over $MAX_LINES lines"
[ $bad -eq 0 ] && [ "$n_long" -eq 0 ] && [ "$n_big" -eq 0 ]
