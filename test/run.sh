#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test of nccl-numa; `make test` calls this. Each case passes, fails,
# or is skipped (exit 77) with its reason. The last line is the summary.
set -u
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# The tests' mappings are made up: on a GPU host the driver's own GPU list (visible.h) would
# not match them. A root without that list keeps every case the same on any machine.
export NCCL_NUMA_DRIVER_ROOT=$PWD/test/fixtures/driver/none
LOG=build/test-logs
mkdir -p "$LOG"
pass=0 fail=0 skip=0 failed=()

run_case() {   # run_case NAME CMD...
  local name=$1; shift
  local out="$LOG/${name//\//_}.log"
  "$@" >"$out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then pass=$((pass+1)); echo "PASS $name"
  elif [ $rc -eq 77 ]; then skip=$((skip+1)); echo "SKIP $name: $(grep -m1 -i 'skipped' "$out" || tail -n1 "$out")"
  else fail=$((fail+1)); failed+=("$name"); echo "FAIL $name (rc=$rc, log $out)"; tail -n 30 "$out" | sed 's/^/    /'
  fi
}

build() {   # build LABEL MAKEARGS...
  local label=$1; shift
  if ! make -s -j"$JOBS" "$@" >"$LOG/build-$label.log" 2>&1; then
    echo "FAIL build-$label"; tail -n 40 "$LOG/build-$label.log"
    echo "0 passed, 1 failed"; exit 1
  fi
}

build default all unit-bins tools
for t in build/test/test_*; do run_case "unit/$(basename "$t")" "$t"; done
run_case abi/conformance build/tools/abi_conformance build/libnccl-tuner-numa.so

summary() {
  echo
  [ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
  echo "$pass passed, $fail failed, $skip skipped"
  [ $fail -eq 0 ]
}

# make check (NN_TEST_QUICK=1): the unit tests, ABI conformance and the CLI tests only.
if [ -n "${NN_TEST_QUICK:-}" ]; then
  for t in test/cli/test_*.sh; do [ -e "$t" ] && run_case "cli/$(basename "$t" .sh)" bash "$t"; done
  summary
  exit
fi

build asan BUILD=build/asan SAN=address,undefined OPT="-O1 -g" all unit-bins tools
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in build/asan/test/test_*; do run_case "asan/$(basename "$t")" "$t"; done
run_case asan/abi-conformance build/asan/tools/abi_conformance build/asan/libnccl-tuner-numa.so
unset ASAN_OPTIONS UBSAN_OPTIONS

# The same sources must stay -Werror clean with clang.
if command -v clang >/dev/null; then
  run_case build/clang-werror make -s -j"$JOBS" CC=clang BUILD=build/clang all unit-bins tools
fi

build tsan BUILD=build/tsan SAN=thread OPT="-O1 -g" build/tsan/libnccl-tuner-numa.so build/tsan/tools/concurrency
run_case tsan/concurrency env TSAN_OPTIONS=halt_on_error=1 build/tsan/tools/concurrency build/tsan/libnccl-tuner-numa.so 32

for t in test/cli/test_*.sh; do [ -e "$t" ] && run_case "cli/$(basename "$t" .sh)" bash "$t"; done
run_case nccl/real-nccl-env-plugin bash test/nccl/run_smoke.sh
# The benchmark's checks, in seconds: every rule count's decisions against the reference scan,
# every re-read observed, one timing row; no target asserted (`make bench` prints them all).
run_case bench/check env BENCH_ARGS=-Q BENCH_INSTR=0 bash test/bench/run.sh

# The GPU kit: its log checks on NCCL log excerpts and the whole kit on stand-ins
# (always), the driver built against the CUDA runtime and NCCL found here (skipped
# without them), and the kit itself (skipped without a GPU).
run_case gpu/kit-unit build/tools/test_gpukit
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
