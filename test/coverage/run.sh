#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/coverage/run.sh - `make coverage`: the tests of `make check` on a gcc --coverage build at
# -O0 ($BUILD/coverage), then the line coverage of plugin/ and cli/ as lcov counts it (Debian's
# lcov and gcc's gcov). Children that end with _exit write their counts too (gcov_exit.c).
# NN_COVERAGE=1 tells the tests; cli/test_log_fsize skips (its file-size limit would cut the
# counts' writing at exit short with SIGXFSZ).
#
#   BUILD=dir   build directory (default build); the coverage build and report go to dir/coverage
#
# Prints the test summary, then one line each for plugin/, cli/ and both; the HTML report is
# dir/coverage/html/index.html. Exit: the tests' status (1 when one failed), 77 without lcov.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
CB=$BUILD/coverage   # relative to the root, as the tests take BUILD
command -v lcov >/dev/null && command -v gcov >/dev/null ||
  { echo "coverage: skipped: lcov not installed (apt-get install lcov)"; exit 77; }

mkdir -p "$CB"
find "$CB" -name '*.gcda' -delete
cc -std=c11 -O0 -c test/coverage/gcov_exit.c -o "$CB/gcov_exit.o" || exit 1
wrap=$(cd "$CB" && pwd)/gcov_exit.o   # absolute: tests run make from other directories too
OPT="-O0 -g" CFLAGS="--coverage" LDFLAGS="--coverage -Wl,--wrap=_exit $wrap" \
  BUILD=$CB NN_TEST_QUICK=1 NN_COVERAGE=1 bash test/run.sh >"$CB/tests.txt" 2>&1
tests=$?
grep -E '^(FAIL|failed:)' "$CB/tests.txt"
tail -n 1 "$CB/tests.txt"

lcov -q --capture --directory "$CB/obj" --base-directory "$PWD" --output-file "$CB/all.info" 2>"$CB/lcov.log" ||
  { cat "$CB/lcov.log"; exit 1; }
summary() {   # summary NAME PATTERN...: one line of lcov's totals for the files matching
  local name=$1; shift
  lcov -q --extract "$CB/all.info" "$@" --output-file "$CB/$name.info" 2>>"$CB/lcov.log" || return
  lcov --summary "$CB/$name.info" 2>&1 | sed -n "s/^ *lines\.*: */coverage $name: lines /p"
}
summary plugin "$PWD/plugin/*"
summary cli "$PWD/cli/*"
summary total "$PWD/plugin/*" "$PWD/cli/*"
genhtml -q --output-directory "$CB/html" "$CB/total.info" >>"$CB/lcov.log" 2>&1 &&
  echo "coverage: report in $CB/html/index.html"
exit $tests
