#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/stress/run.sh - `make stress`: lifetimes under valgrind, threads under ThreadSanitizer,
# and the mapping replaced while communicators are created.
#
#   BUILD=dir                 build directory (default build); also uses $BUILD-tsan
#   STRESS_QUICK=1            fewer cycles and seconds (CI)
#
# Each part prints PASS, FAIL or SKIP with its numbers; exit 1 when any part failed.
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
TSAN_BUILD="$BUILD-tsan"
CC=${CC:-cc}
LOG="$BUILD/stress"
mkdir -p "$LOG"
FLAGS=(-std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wformat=2 $(make -s include-flags))
quick=${STRESS_QUICK:-0}
failed=0

part() {   # part NAME STATUS DETAIL
  echo "$2 test/stress/$1: $3"
  [ "$2" = FAIL ] && failed=1
  return 0
}

build() {
  make -s BUILD="$BUILD" "$BUILD/libnccl-tuner-numa.so" >"$LOG/build.log" 2>&1 || { cat "$LOG/build.log"; exit 1; }
  for p in cycles swap; do
    "$CC" "${FLAGS[@]}" "test/stress/$p.c" -o "$LOG/$p" -ldl -lpthread || exit 1
  done
}

run_cycles() {
  local tuner=10000 env=1000
  [ "$quick" = 1 ] && tuner=2000 env=200
  if ! command -v valgrind >/dev/null; then part cycles SKIP "skipped: valgrind not installed"; return; fi
  local out="$LOG/cycles-valgrind.log"
  valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=definite,indirect,possible \
    "$LOG/cycles" "$BUILD/libnccl-tuner-numa.so" "$tuner" "$env" >"$out" 2>&1
  local rc=$?
  local errors leaks reach
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$out" | tail -1)
  leaks=$(grep -E 'definitely lost|indirectly lost|possibly lost' "$out" | sed 's/^==[0-9]*== *//' | tr '\n' ';')
  reach=$(sed -n 's/.*still reachable: \(.*\)/\1/p' "$out" | tail -1)
  [ -n "$leaks" ] || leaks="no leaks possible;"
  if [ $rc -eq 0 ]; then
    part cycles PASS "valgrind memcheck, $tuner tuner + $env env cycles: ${errors:-?} errors, $leaks still reachable: ${reach:-0} (the dynamic loader's)"
  else
    part cycles FAIL "valgrind exit $rc (log $out)"; tail -n 40 "$out"
  fi
}

run_threads() {
  local seconds=5
  [ "$quick" = 1 ] && seconds=2
  if ! make -s BUILD="$TSAN_BUILD" SAN=thread OPT="-O1 -g" "$TSAN_BUILD/libnccl-tuner-numa.so" >"$LOG/build-tsan.log" 2>&1; then
    part threads FAIL "cannot build the TSan library (log $LOG/build-tsan.log)"; return
  fi
  "$CC" "${FLAGS[@]}" -fsanitize=thread test/stress/threads.c -o "$LOG/threads-tsan" -ldl -lpthread || { part threads FAIL "cannot build"; return; }
  local out="$LOG/threads-tsan.log"
  TSAN_OPTIONS=halt_on_error=1:exitcode=66 "$LOG/threads-tsan" "$TSAN_BUILD/libnccl-tuner-numa.so" 64 "$seconds" >"$out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && ! grep -q "ThreadSanitizer" "$out"; then
    part threads PASS "ThreadSanitizer, $(grep '^threads:' "$out" | sed 's/^threads: //')"
  else
    part threads FAIL "exit $rc (log $out)"; head -n 60 "$out"
  fi
}

run_swap() {
  local seconds=5
  [ "$quick" = 1 ] && seconds=2
  # swap.c fails unless A and B were both seen whole and every communicator created while
  # the file stood still used that file whole (see its header).
  # Atomic replacement (rename) every 200 us and every 400 ms: every communicator whole.
  # In-place rewrites (what an editor or `cat > FILE` does) every 100 ms and every 400 ms:
  # reads during a write may meet a half-written file (counted); none outlives the write.
  local mode pause out rc
  for run in "atomic 200" "atomic 400000" "inplace 100000" "inplace 400000"; do
    read -r mode pause <<<"$run"
    out="$LOG/swap-$mode-$pause.log"
    "$LOG/swap" "$BUILD/libnccl-tuner-numa.so" "$mode" "$seconds" 4 "$pause" >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then part "swap-$mode-${pause}us" PASS "$(sed -n 's/^swap //p' "$out")"
    else part "swap-$mode-${pause}us" FAIL "exit $rc: $(cat "$out")"; fi
  done
}

build
run_cycles
run_threads
run_swap
exit $failed
