#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/lint/run.sh - `make lint`: no NCCL release named outside plugin/core/nccl_model.c
# (test/lint/version_literals.py), the C sources formatted as .clang-format says and within 100
# columns (test/lint/format.sh), then cppcheck and clang-tidy over the C sources, with the
# configuration checked in at the top (.clang-tidy, test/lint/cppcheck-suppressions.txt).
#
#   LINT_JOBS=n    clang-tidy processes at once (default: number of CPUs)
#   LINT_FILES="…" files to check (default: every .c under plugin/, test/bench/, test/stress/, test/fuzz/,
#                  test/compat/ and test/)
#
# Prints every finding as FILE:LINE: message [check]; exit 1 when there is any.
set -uo pipefail
cd "$(dirname "$0")/../.."

JOBS=${LINT_JOBS:-$(nproc)}
FILES=${LINT_FILES:-$(git ls-files -co --exclude-standard -- 'plugin/*.c' 'cli/*.c' 'test/bench/*.c' \
  'test/stress/*.c' 'test/fuzz/*.c' 'test/compat/*.c' 'test/*.c' 'test/*/*.c' | sort -u | tr '\n' ' ')}
# shellcheck disable=SC2207
INCLUDES=($(make -s include-flags) -Itest/unit -Itest/abi -Itest/stress
  "-DNN_VERSION=\"$(cat VERSION)\"")   # as the Makefile passes it
# shellcheck disable=SC2207
EXTRA=($(pkg-config --cflags libxml-2.0 hwloc cmocka 2>/dev/null) -DNN_VERSION=\"lint\")
# as the Makefile defines it where hwloc is found, so that discover.c's hwloc code is checked
pkg-config --exists hwloc 2>/dev/null && EXTRA+=(-DNN_HAVE_HWLOC)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
status=0

# Formatting: every C file as .clang-format says and within 100 columns (`make format` fixes).
bash test/lint/format.sh >"$OUT/format.txt" 2>&1
rc=$?
cat "$OUT/format.txt"
[ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1

# Only plugin/core/nccl_model.c names a NCCL release; everything else asks its row.
if command -v python3 >/dev/null; then
  python3 test/lint/version_literals.py . || status=1
else
  echo "lint: skipped the version-literal check: python3 not installed"
fi

if command -v cppcheck >/dev/null; then
  # shellcheck disable=SC2086
  cppcheck --std=c11 --enable=warning,performance,portability --inline-suppr --quiet \
    --suppressions-list=test/lint/cppcheck-suppressions.txt -D_GNU_SOURCE -D__GNUC__ -DNN_VERSION=\"lint\" "${INCLUDES[@]}" \
    --template='{file}:{line}: cppcheck {severity}: {message} [{id}]' $FILES 2>"$OUT/cppcheck.txt"
  n=$(grep -c 'cppcheck' "$OUT/cppcheck.txt")
  cat "$OUT/cppcheck.txt"
  echo "lint: cppcheck $(cppcheck --version | cut -d' ' -f2): $n findings"
  [ "$n" -eq 0 ] || status=1
else
  echo "lint: skipped cppcheck: not installed (apt-get install cppcheck)"
fi

if command -v clang-tidy >/dev/null; then
  # One process per file; the findings of each are kept apart and printed in order.
  # shellcheck disable=SC2086
  printf '%s\n' $FILES | xargs -P "$JOBS" -I{} sh -c \
    'clang-tidy --quiet "$1" -- -std=c11 -D_GNU_SOURCE "$@" >"$0/$(echo "$1" | tr / _).tidy" 2>/dev/null' \
    "$OUT" {} "${INCLUDES[@]}" "${EXTRA[@]}"
  cat "$OUT"/*.tidy 2>/dev/null | grep -E '^[^ ].*: (warning|error): ' | sort -u >"$OUT/tidy.txt"
  n=$(wc -l <"$OUT/tidy.txt")
  cat "$OUT/tidy.txt"
  echo "lint: clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1): $n findings"
  [ "$n" -eq 0 ] || status=1
else
  echo "lint: skipped clang-tidy: not installed (apt-get install clang-tidy)"
fi
exit $status
