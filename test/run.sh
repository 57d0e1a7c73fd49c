#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test of nccl-numa; `make test` calls this, `make check` (NN_TEST_QUICK=1) the
# quick part. Each case passes, fails, or is skipped (exit 77) with its reason; its output is
# in $LOG/NAME.log, its wall-clock and CPU seconds in $LOG/times.tsv. The last line is the summary.
set -u
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# BUILD: the build directory under test (default build); `make check BUILD=out` tests out/.
BUILD=${BUILD:-build}
export BUILD NN_BUILD=$BUILD
# The tests' mappings are made up: on a GPU host the driver's own GPU list (visible.h) would
# not match them. A root without that list keeps every case the same on any machine.
export NCCL_NUMA_DRIVER_ROOT=$PWD/test/fixtures/driver/none
LOG=$BUILD/test-logs
# a build directory made here ignores itself, as the Makefile's does
[ -d "$BUILD" ] || { mkdir -p "$BUILD" && echo '*' >"$BUILD/.gitignore"; }
mkdir -p "$LOG"
# The last run's times decide the order the next starts its cases in (see run_parallel).
[ -s "$LOG/times.tsv" ] && mv -f "$LOG/times.tsv" "$LOG/times.prev"
: >"$LOG/times.tsv"
pass=0 fail=0 skip=0 failed=()

# verdict NAME LOGFILE RC: counts and prints one case's result.
verdict() {
  local name=$1 out=$2 rc=$3
  if [ "$rc" -eq 0 ]; then pass=$((pass+1)); echo "PASS $name"
  elif [ "$rc" -eq 77 ]; then skip=$((skip+1)); echo "SKIP $name: $(grep -m1 -i 'skipped' "$out" || tail -n1 "$out")"
  else fail=$((fail+1)); failed+=("$name"); echo "FAIL $name (rc=$rc, log $out)"; tail -n 30 "$out" | sed 's/^/    /'
  fi
}

logof() { echo "$LOG/${1//\//_}.log"; }

# timed LOGFILE CMD...: runs CMD with its output in LOGFILE; records its wall-clock and CPU
# (user + system) seconds in times.tsv.
timed() {
  local out=$1; shift
  local start=${EPOCHREALTIME/./}
  ( "$@" >"$out" 2>&1 </dev/null; rc=$?; times >"$out.cpu"; exit $rc )
  local rc=$?
  local us=$(( ${EPOCHREALTIME/./} - start ))
  local cpu; cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$out.cpu")
  rm -f "$out.cpu"
  printf "%s\t%d.%d\t%s\n" "$(basename "$out" .log)" $((us / 1000000)) $((us / 100000 % 10)) "$cpu" >>"$LOG/times.tsv"
  return $rc
}

run_case() {   # run_case NAME CMD...
  local name=$1; shift
  local out; out=$(logof "$name")
  timed "$out" "$@"
  verdict "$name" "$out" $?
}

# run_parallel PREFIX CMD FILE...: "CMD FILE" for every FILE, JOBS at a time, each with its own
# log and exit status; the results are then printed in the order given, as run_case would. The
# cases that took longest last time start first, so that a slow one does not start last.
run_parallel() {
  local prefix=$1 cmd=$2; shift 2
  local f name
  for f in $(for f in "$@"; do
               name=$prefix/$(basename "$f" .sh)
               echo "$(awk -F'\t' -v n="${name//\//_}" '$1 == n { print $2 }' "$LOG/times.prev" 2>/dev/null || true) $f"
             done | sort -k1,1rn | awk '{ print $NF }'); do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    name=$prefix/$(basename "$f" .sh)
    ( timed "$(logof "$name")" $cmd "$f"; echo $? >"$(logof "$name").rc" ) &
  done
  wait
  for f in "$@"; do
    name=$prefix/$(basename "$f" .sh)
    verdict "$name" "$(logof "$name")" "$(cat "$(logof "$name").rc")"
    rm -f "$(logof "$name").rc"
  done
}

build() {   # build LABEL MAKEARGS...
  local label=$1; shift
  if ! make -s -j"$JOBS" "$@" >"$LOG/build-$label.log" 2>&1; then
    echo "FAIL build-$label"; tail -n 40 "$LOG/build-$label.log"
    echo "0 passed, 1 failed"; exit 1
  fi
}

summary() {
  echo
  [ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
  echo "$pass passed, $fail failed, $skip skipped"
  [ $fail -eq 0 ]
}

# The CLI tests: all of them, or (make check) all but those test/slow.txt lists.
cli_tests() {
  local t
  for t in test/cli/test_*.sh; do
    [ -n "${NN_TEST_QUICK:-}" ] && grep -qx "cli/$(basename "$t" .sh)" <(sed 's/[[:space:]]*#.*//' test/slow.txt) && continue
    echo "$t"
  done
}

build default BUILD="$BUILD" all unit-bins tools
# the test programs: test_NAME, not what a build leaves beside them (a coverage build's .gcno)
run_parallel unit "" $(find "$BUILD/test" -maxdepth 1 -type f -name 'test_*' ! -name '*.*' | sort)
run_case abi/conformance "$BUILD"/tools/abi_conformance "$BUILD"/libnccl-tuner-numa.so
run_case lint/include-areas bash test/lint/test_include_areas.sh

# make check (NN_TEST_QUICK=1): the unit tests, ABI conformance and the quick CLI tests only.
if [ -n "${NN_TEST_QUICK:-}" ]; then
  run_parallel cli bash $(cli_tests)
  echo "not run by make check (make test runs them): $(sed -n 's/^\([a-z]\S*\).*/\1/p' test/slow.txt | tr '\n' ' ')"
  summary
  exit
fi

build asan BUILD="$BUILD"/asan SAN=address,undefined OPT="-O1 -g" all unit-bins tools
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_parallel asan "" "$BUILD"/asan/test/test_*
run_case asan/abi-conformance "$BUILD"/asan/tools/abi_conformance "$BUILD"/asan/libnccl-tuner-numa.so
unset ASAN_OPTIONS UBSAN_OPTIONS

# ... and at -O0 (make coverage's level), where gcc bounds fewer snprintf parts.
run_case build/O0-werror make -s -j"$JOBS" OPT="-O0 -g" BUILD="$BUILD"/O0 all unit-bins tools

# The same sources must stay -Werror clean with clang.
if command -v clang >/dev/null; then
  run_case build/clang-werror make -s -j"$JOBS" CC=clang BUILD="$BUILD"/clang all unit-bins tools
fi

build tsan BUILD="$BUILD"/tsan SAN=thread OPT="-O1 -g" "$BUILD"/tsan/libnccl-tuner-numa.so "$BUILD"/tsan/tools/concurrency
run_case tsan/concurrency env TSAN_OPTIONS=halt_on_error=1 "$BUILD"/tsan/tools/concurrency "$BUILD"/tsan/libnccl-tuner-numa.so 32

run_parallel cli bash $(cli_tests)
run_case nccl/real-nccl-env-plugin bash test/nccl/run_smoke.sh
# The benchmark's checks, in seconds: every rule count's decisions against the reference scan,
# every re-read observed, one timing row; no target asserted (`make bench` prints them all).
run_case bench/check env BENCH_ARGS=-Q BENCH_INSTR=0 bash test/bench/run.sh

# The GPU kit: its log checks on NCCL log excerpts and the whole kit on stand-ins
# (always), the driver built against the CUDA runtime and NCCL found here (skipped
# without them), and the kit itself (skipped without a GPU).
run_case gpu/kit-unit "$BUILD"/tools/test_gpukit
run_case gpu/kit-checks bash test/gpu/test_gpucheck.sh
run_case gpu/kit-rehearsal bash test/gpu/test_kit_rehearsal.sh
run_case gpu/kit-failures bash test/gpu/test_kit_failures.sh
run_case gpu/bundle bash test/gpu/test_gpu_bundle.sh
run_case gpu/driver-build bash test/gpu/build_driver.sh
run_case gpu/kit bash test/gpu/run.sh

# Release checks: leaks and races under load, a short fuzz pass over every
# target (regressions replayed first), static analysis, and real NCCL releases when cached.
run_case release/stress make -s stress
run_case release/fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-10}" make -s fuzz
run_case release/lint make -s lint
compat() {
  local out rc
  out=$(COMPAT_CACHED_ONLY=$([ "${COMPAT:-0}" = 1 ] && echo 0 || echo 1) make -s compat 2>&1); rc=$?
  echo "$out"
  grep -q "compat: skipped" <<<"$out" && return 77
  return $rc
}
run_case release/compat compat

summary
