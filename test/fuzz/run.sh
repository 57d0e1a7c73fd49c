#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/fuzz/run.sh - `make fuzz`: builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,
# undefined), replays every saved regression input, then fuzzes each target for a while.
#
#   BUILD=dir          build directory (default build); the fuzz build goes to $BUILD-fuzz
#   FUZZ_SECONDS=n     seconds per target (default 60)
#   FUZZ_RUNS=n        instead: run each target for n executions (the long runs of docs/results/fuzzing.md)
#   FUZZ_TIMEOUT=s     seconds one input may take (default 10; raise it for long runs under
#                      nice on a busy machine, where a starved process otherwise reports a timeout)
#   FUZZ_TARGETS="..." targets to run (default: all test/fuzz/fuzz_*.c)
#   FUZZ_JOBS=n        targets fuzzed at the same time (default: number of CPUs)
#   FUZZ_FORK=n        each target fuzzed by n worker processes of one libFuzzer run
#                      (-fork=n: one target's long run on n CPUs; FUZZ_RUNS counts them all)
#   FUZZ_COVERAGE=1    afterwards, replay each target's corpus through a source-coverage build
#                      and print the line coverage of the files it exercises (llvm-cov)
#
# A crash is kept under $BUILD-fuzz/artifacts/<target>/ and copied to
# test/fuzz/regressions/<target>/ so that it becomes a regression input (commit it once fixed).
# Prints one line per target with executions, coverage and corpus size; exit 1 on a crash.
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
FB="$BUILD-fuzz"
SECONDS_EACH=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
JOBS=${FUZZ_JOBS:-$(nproc)}
TARGETS=${FUZZ_TARGETS:-$(ls test/fuzz/fuzz_*.c | sed 's|test/fuzz/fuzz_||; s|\.c$||' | tr '\n' ' ')}

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n); int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' |
     "$CLANG" -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "fuzz: skipped: $CLANG cannot build libFuzzer targets (apt-get install clang)"
  exit 0
fi

# The project's libraries, instrumented for coverage and sanitizers. NCCL's search port
# (nccl_search.c) runs on every accepted mapping and took most of config's and env's time in
# comparison hooks: its comparisons are of computed bandwidths, never of input bytes, so
# tracing them guides nothing. It keeps its edge coverage and the sanitizers, and is built
# with -O2: it is still most of env's time.
SAN=address,undefined
mkdir -p "$(dirname "$BUILD")"
if ! make -s -j"$JOBS" CC="$CLANG" BUILD="$FB" SAN="$SAN" OPT="-O1 -g" CFLAGS="-fsanitize=fuzzer-no-link" \
     SEARCH_CFLAGS="-fno-sanitize-coverage=trace-cmp -O2" \
     "$FB/libnn-core.a" "$FB/libnn-abi.a" "$FB/libnn-cli.a" >"$BUILD-fuzz.log" 2>&1; then
  echo "fuzz: cannot build the instrumented libraries:"; tail -n 30 "$BUILD-fuzz.log"; exit 1
fi
XML_LIBS=$(pkg-config --libs libxml-2.0 2>/dev/null); HWLOC_LIBS=$(pkg-config --libs hwloc 2>/dev/null)
XML_CFLAGS=$(pkg-config --cflags libxml-2.0 2>/dev/null); INC=$(make -s include-flags)
mkdir -p "$FB/fuzz"
for t in $TARGETS; do
  # shellcheck disable=SC2086
  "$CLANG" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wmissing-prototypes \
    -fsanitize=fuzzer,$SAN -fno-sanitize-recover=all $INC $XML_CFLAGS \
    "test/fuzz/fuzz_$t.c" -o "$FB/fuzz/$t" "$FB/libnn-cli.a" "$FB/libnn-abi.a" "$FB/libnn-core.a" \
    $HWLOC_LIBS $XML_LIBS -ldl -lpthread -lm || { echo "fuzz: cannot build $t"; exit 1; }
done

export NN_FUZZ_TMP
NN_FUZZ_TMP=$(mktemp -d)
trap 'rm -rf "$NN_FUZZ_TMP"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
unset NCCL_DEBUG NCCL_TOPO_FILE NCCL_SOCKET_IFNAME

status=0
# 1. Regression inputs: each must run clean.
for t in $TARGETS; do
  files=$(ls test/fuzz/regressions/"$t"/* 2>/dev/null)
  [ -n "$files" ] || continue
  # shellcheck disable=SC2086
  if "$FB/fuzz/$t" $files >"$FB/fuzz/$t-regressions.log" 2>&1; then
    echo "PASS test/fuzz/$t regressions ($(echo "$files" | wc -l) inputs)"
  else
    echo "FAIL test/fuzz/$t regressions (log $FB/fuzz/$t-regressions.log)"; grep -m5 -E "ERROR|SUMMARY" "$FB/fuzz/$t-regressions.log"; status=1
  fi
done

# 2. Fuzzing, a few targets at a time.
fuzz_one() {
  local t=$1
  local work="$FB/fuzz/corpus/$t" art="$FB/artifacts/$t/" log="$FB/fuzz/$t.log"
  mkdir -p "$work" "$art"
  local dict=()
  [ -f "test/fuzz/dict/$t.dict" ] && dict=(-dict="test/fuzz/dict/$t.dict")
  local limit=(-max_total_time="$SECONDS_EACH")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  [ -n "${FUZZ_FORK:-}" ] && limit+=(-fork="$FUZZ_FORK")
  "$FB/fuzz/$t" "${dict[@]}" "${limit[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$art" "$work" "test/fuzz/corpus/$t" >"$log" 2>&1
}
running=0
for t in $TARGETS; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

for t in $TARGETS; do
  log="$FB/fuzz/$t.log"
  # A single process ends with final stats and "Done N runs in S second(s)"; a -fork run
  # with "fuzzed for N iterations" and "exiting: 0 time: Ss", its progress lines "#N: cov: ...".
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p; s/^INFO: fuzzed for \([0-9]*\) iterations.*/\1/p' "$log" | tail -1)
  cov=$(grep -oE '((DONE|pulse|NEW|REDUCE|INITED) +|^#[0-9]+: )cov: [0-9]+ ft: [0-9]+ corp: [0-9]+(/[^ ]+)?' "$log" | tail -1 | sed -E 's/^([A-Z]+ +|#[0-9]+: )//')
  crashes=$(ls "$FB/artifacts/$t/" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' || true)
  if [ -n "$crashes" ]; then
    mkdir -p "test/fuzz/regressions/$t"
    for c in $crashes; do cp "$FB/artifacts/$t/$c" "test/fuzz/regressions/$t/$c"; done
    echo "FAIL test/fuzz/$t: ${execs:-?} execs, $cov; found: $(echo $crashes | tr '\n' ' ')(copied to test/fuzz/regressions/$t/, log $log)"
    grep -m3 -E "^==[0-9]+==ERROR|SUMMARY|runtime error" "$log"
    status=1
  else
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p; s/^INFO: exiting: 0 time: \([0-9]*\)s.*/\1/p' "$log" | tail -1)
    # A run that ended early (killed) has neither line: its time is unknown, not FUZZ_SECONDS.
    [ -z "$secs" ] && [ -z "${FUZZ_RUNS:-}" ] && secs=$SECONDS_EACH
    echo "PASS test/fuzz/$t: ${execs:-?} execs in ${secs:-?}s, $cov"
  fi
done

# 3. Line coverage reached by each corpus (seeds + what this and earlier runs found).
coverage_files() {
  case $1 in
    config) echo "plugin/core/config_*.c plugin/core/policy*.c plugin/core/topology.c plugin/core/topo_xml.c" ;;
    csv_rules) echo "plugin/core/csv_rules.c" ;;
    env) echo "plugin/abi/env.c plugin/abi/env_text.c plugin/core/cache.c plugin/core/snapshot.c plugin/core/config_*.c plugin/core/privdir.c plugin/core/topo_xml.c" ;;
    nccltests) echo "cli/sweep/nccltests.c cli/common/json.c" ;;
    proxmox) echo "cli/common/proxmox.c" ;;
    topo_validate) echo "cli/topo/topo_validate.c cli/topo/topo_report.c cli/topo/topo_scan.c cli/topo/topo_tree.c" ;;
    *) ls plugin/*/"$1.c" cli/*/"$1.c" 2>/dev/null ;;
  esac
}
if [ "${FUZZ_COVERAGE:-0}" = 1 ]; then
  CB="$BUILD-fuzzcov"
  PROFDATA=$(command -v llvm-profdata || command -v llvm-profdata-14)
  COV=$(command -v llvm-cov || command -v llvm-cov-14)
  if [ -z "$PROFDATA" ] || [ -z "$COV" ] || ! make -s -j"$JOBS" CC="$CLANG" BUILD="$CB" OPT="-O0 -g" \
       CFLAGS="-fprofile-instr-generate -fcoverage-mapping" "$CB/libnn-core.a" "$CB/libnn-abi.a" "$CB/libnn-cli.a" >"$CB.log" 2>&1; then
    echo "fuzz: coverage skipped (llvm-profdata/llvm-cov missing or build failed, see $CB.log)"
  else
    mkdir -p "$CB/fuzz"
    for t in $TARGETS; do
      # shellcheck disable=SC2086
      "$CLANG" -std=c11 -D_GNU_SOURCE -O0 -g -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping \
        $INC $XML_CFLAGS "test/fuzz/fuzz_$t.c" -o "$CB/fuzz/$t" "$CB/libnn-cli.a" \
        "$CB/libnn-abi.a" "$CB/libnn-core.a" $HWLOC_LIBS $XML_LIBS -ldl -lpthread -lm || continue
      rm -f "$CB/fuzz/$t".*.profraw
      LLVM_PROFILE_FILE="$CB/fuzz/$t.%p.profraw" "$CB/fuzz/$t" -runs=0 "$FB/fuzz/corpus/$t" "test/fuzz/corpus/$t" \
        >"$CB/fuzz/$t.log" 2>&1
      "$PROFDATA" merge -sparse "$CB/fuzz/$t".*.profraw -o "$CB/fuzz/$t.profdata" 2>/dev/null || continue
      # shellcheck disable=SC2046
      "$COV" report "$CB/fuzz/$t" -instr-profile="$CB/fuzz/$t.profdata" $(coverage_files "$t") 2>/dev/null |
        awk -v t="$t" -v n="$(coverage_files "$t" | wc -w)" 'NR > 2 && $1 !~ /^-/ && NF >= 10 && !(n == 1 && $1 == "TOTAL") { sub(/^.*\/plugin\//, "plugin/", $1); printf "coverage test/fuzz/%s: %s lines %s (%s of %s), functions %s\n", t, $1, $10, $8 - $9, $8, $7 }'
    done
  fi
fi
exit $status
