#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa ab end to end with a stand-in nccl-tests (fake_nccl_tests.sh): the
# environment each arm's runs were given, the A B C alternation, the report, the
# plots, and the NCCL < 2.28 variant of the stock arm.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
SO=$(readlink -f "$SO")
nn_tmp nn-ab
T=$tmp

mkdir -p "$T/tests"
for c in all_reduce all_gather reduce_scatter; do ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/tests/${c}_perf"; done
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\ngpu 2 bus=03:00.0 numa=1\ngpu 3 bus=04:00.0 numa=1\ntopology mode=numa\n' > "$T/a.conf"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\ngpu 2 bus=03:00.0 numa=1\ngpu 3 bus=04:00.0 numa=1\ntopology mode=off\n' > "$T/off.conf"

# Variables the stock arm must drop and a marker every arm must keep.
export NCCL_TOPO_FILE=/bogus/topo.xml NCCL_ENV_PLUGIN=bogus NCCL_NUMA_CONFIG=/bogus.conf MY_MARKER=kept-42
export FAKE_LOG_DIR=$T/log FAKE_MODEL=ab
"$CLI" ab --nccl-tests "$T/tests" --config "$T/a.conf" --arm off="$T/off.conf" --colls all_reduce,allgather \
  -b 8 -e 32K -f 8 -g 2 --repeats 3 --out "$T/run" >"$T/stdout" 2>"$T/stderr"
rc=$?
check "ab exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || { cat "$T/stderr"; exit 1; }

# --- order: a probe for the version, then per repeat and collective: stock numa off
check "probe run first" "head -n1 '$T/log/order.log' | grep -q ' probe\$'"
want=""
for r in 1 2 3; do for c in all_reduce all_gather; do for a in stock numa:a.conf numa:off.conf; do want+="$c $a"$'\n'; done; done; done
got=$(tail -n +2 "$T/log/order.log" | cut -d' ' -f2-)
check "arms alternate A B C in every repeat (as the stand-in saw them)" "[ \"\$got\" = \"\${want%$'\n'}\" ]"
check "runs.tsv records 18 runs in that order" "[ \"\$(cut -f3,4 '$T/run/runs.tsv' | tr '\t' ' ' | awk '{print \$2, \$1}' | sed 's/ numa\$/ numa:a.conf/; s/ off\$/ numa:off.conf/')\" = \"\${want%$'\n'}\" ]"
check "one progress line per run on stderr" "[ \$(grep -c '^nccl-numa ab: \[[0-9]*/18\]' '$T/stderr') -eq 18 ]"

# --- environments the stand-in was given
envof() { cat "$T/log/run-$1.env"; }   # run-1 is the probe; runs 2.. are the 18 runs
stock=2 numa=3 off=4
check "stock: NCCL_TUNER_PLUGIN=none" "envof $stock | grep -qx 'NCCL_TUNER_PLUGIN=none'"
check "stock: no env plugin, topology file or config" "! envof $stock | grep -qE '^(NCCL_ENV_PLUGIN|NCCL_TOPO_FILE|NCCL_NUMA_CONFIG)='"
check "numa: tuner plugin = absolute .so" "envof $numa | grep -qx 'NCCL_TUNER_PLUGIN=$SO'"
check "numa: env plugin = absolute .so" "envof $numa | grep -qx 'NCCL_ENV_PLUGIN=$SO'"
check "numa: NCCL_NUMA_CONFIG = its mapping" "envof $numa | grep -qx 'NCCL_NUMA_CONFIG=$T/a.conf'"
check "off: NCCL_NUMA_CONFIG = its mapping" "envof $off | grep -qx 'NCCL_NUMA_CONFIG=$T/off.conf'"
check "numa: the user's NCCL_TOPO_FILE removed" "! envof $numa | grep -q '^NCCL_TOPO_FILE='"
check "every arm keeps the rest of the environment" "envof $stock | grep -qx MY_MARKER=kept-42 && envof $numa | grep -qx MY_MARKER=kept-42"
check "only the intended variables differ between stock and numa" \
  "[ \"\$(diff <(envof $stock | grep -v '^_=' | sort) <(envof $numa | grep -v '^_=' | sort) | grep '^[<>]' | sort | tr '\n' ' ')\" = \"< NCCL_TUNER_PLUGIN=none > NCCL_ENV_PLUGIN=$SO > NCCL_NUMA_CONFIG=$T/a.conf > NCCL_TUNER_PLUGIN=$SO \" ]"
check "ab recorded the same environment in runs/*.env" "grep -qx 'NCCL_TUNER_PLUGIN=none' '$T/run/runs/0001-stock-all_reduce.env' && grep -qx 'NCCL_NUMA_CONFIG=$T/a.conf' '$T/run/runs/0002-numa-all_reduce.env'"
check "meta records NCCL's version and the config sha256" "grep -qx 'nccl 2.28.9' '$T/run/meta' && grep -q \"sha256=\$(sha256sum '$T/a.conf' | cut -d' ' -f1)\" '$T/run/meta'"

# --- report
R=$T/run/report.md
check "report printed and written" "[ -s '$R' ] && diff -q '$R' '$T/stdout' >/dev/null"
check "report states NCCL version, GPUs, config sha256" "grep -q 'NCCL version: 2.28.9' '$R' && grep -q 'NVIDIA SYNTHETIC GPU' '$R' && grep -q \"\$(sha256sum '$T/a.conf' | cut -d' ' -f1)\" '$R'"
check "the version probe logged NCCL's tuning table; report predicts NCCL's choice from it" \
  "grep -q 'Algorithm   |' '$T/run/runs/probe.out' && grep -q '^### all_reduce: NCCL.s predicted choice against the measurements' '$R' && grep -qE '^\| 8 B \| tree/simple \| 5.5 \| [0-9.]+ \| stock \| numa \|' '$R'"
row() { awk -v c="## $1" -v s="| $2 |" '$0 == c {on = 1; next} /^## / {on = 0} on && index($0, s) == 1' "$R"; }
# columns: size | stock | numa | vs stock | off | vs stock |  (times "median ±spread", "vs": "ratio verdict")
check "all_reduce 8 B: numa faster (15 vs 20 us)" "row all_reduce '8 B' | awk -F'|' '{exit !(\$5 ~ /faster/)}'"
check "all_reduce 8 B: ratio stock/numa 1.333" "row all_reduce '8 B' | awk -F'|' '{exit !(\$5 + 0 > 1.33 && \$5 + 0 < 1.34)}'"
check "all_reduce 8 B: median stock 19.96+0.05" "row all_reduce '8 B' | awk -F'|' '{exit !(\$3 + 0 == 20.01)}'"
check "all_reduce 4 KiB: numa within noise" "row all_reduce '4 KiB' | awk -F'|' '{exit !(\$5 ~ /within noise/)}'"
check "all_reduce 8 B: off within noise" "row all_reduce '8 B' | awk -F'|' '{exit !(\$7 ~ /within noise/)}'"
check "all_gather 32 KiB: off FAILED (#wrong > 0), no speed" "row all_gather '32 KiB' | awk -F'|' '{exit !(\$6 ~ /FAILED/ && \$7 ~ /^ FAILED \$/)}'"
check "all_gather 4 KiB: off not failed" "row all_gather '4 KiB' | awk -F'|' '{exit !(\$7 ~ /within noise/)}'"
check "one time column and one comparison column per arm" "row all_reduce '8 B' | awk -F'|' '{exit !(NF == 8)}'"
if command -v gnuplot >/dev/null; then
  check "plots drawn (PNG and SVG per collective)" "[ -s '$T/run/plot-all_reduce.png' ] && [ -s '$T/run/plot-all_gather.svg' ] && grep -q '<svg' '$T/run/plot-all_gather.svg'"
else
  echo "note: gnuplot missing, plots not checked"
fi
cp "$R" "$T/first.md"
"$CLI" report --no-plot "$T/run" >/dev/null 2>&1
check "report RUNDIR reproduces the tables" "diff <(grep '^|' '$T/first.md') <(grep '^|' '$R') >/dev/null"

# --- NCCL < 2.28: stock leaves NCCL_TUNER_PLUGIN unset
rm -rf "$T/log"
FAKE_NCCL_CODE=22703 "$CLI" ab --nccl-tests "$T/tests" --config "$T/a.conf" --colls all_reduce -b 8 -e 8 -g 2 \
  --repeats 1 --no-plot --out "$T/old" >/dev/null 2>"$T/stderr-old"
check "NCCL 2.27: ab exits 0" "[ $? -eq 0 ]"
check "NCCL 2.27: stock has no NCCL_TUNER_PLUGIN" "! grep -q '^NCCL_TUNER_PLUGIN=' '$T/log/run-2.env'"
check "NCCL 2.27: numa arm still gets the tuner" "grep -qx 'NCCL_TUNER_PLUGIN=$SO' '$T/log/run-3.env'"
check "NCCL 2.27: warns that the env plugin is missing" "grep -q 'no env plugin' '$T/stderr-old'"
rm -rf "$T/log"
"$CLI" ab --nccl-tests "$T/tests" --config "$T/a.conf" --colls all_reduce -b 8 -e 8 -g 2 --nccl-version 2.26.2 \
  --repeats 1 --no-plot --out "$T/given" >/dev/null 2>&1
check "--nccl-version: no probe, stock without NCCL_TUNER_PLUGIN" "! grep -q probe '$T/log/order.log' && ! grep -q '^NCCL_TUNER_PLUGIN=' '$T/log/run-1.env'"

# --- usage errors
"$CLI" ab --config "$T/a.conf" >/dev/null 2>&1; check "no nccl-tests dir: usage error" "[ $? -eq 2 ]"
"$CLI" ab --nccl-tests "$T/tests" --config "$T/a.conf" --out "$T/run" >/dev/null 2>"$T/e"; check "existing RUNDIR refused" "[ $? -eq 1 ] && grep -q 'never overwritten' '$T/e'"
"$CLI" ab --nccl-tests "$T/nowhere" --config "$T/a.conf" --out "$T/x" >/dev/null 2>"$T/e"; check "missing binaries named" "[ $? -eq 1 ] && grep -q 'all_reduce_perf' '$T/e'"
printf 'gpu 0 bus=zz numa=0\n' > "$T/bad.conf"
"$CLI" ab --nccl-tests "$T/tests" --arm bad="$T/bad.conf" --out "$T/y" >/dev/null 2>"$T/e"; check "invalid mapping refused with file:line" "[ $? -eq 1 ] && grep -q 'bad.conf:1' '$T/e'"
"$CLI" ab --nccl-tests "$T/tests" --arm stock="$T/a.conf" --out "$T/z" >/dev/null 2>&1; check "arm name stock refused" "[ $? -eq 1 ]"

# A failed ab leaves no empty run directory.
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$root/$CLI" ab --nccl-tests "$T/nowhere" --config "$T/a.conf" >/dev/null 2>"$T/e")
check "failed ab: exit 1, says nothing ran, leaves no run directory" \
  "[ $? -eq 1 ] && grep -q 'nothing ran; .*removed' '$T/e' && [ -z \"\$(ls '$T/cwd')\" ]"
# Two runs with the default name in the same second both get one (the second with -2). The
# second is the default name already taken: ab's clock (time(), from a preloaded stand-in) reads
# a fixed second whose name the test made first, whatever the time the run starts.
printf '#include <stdlib.h>\n#include <time.h>\ntime_t time(time_t *t) { time_t v = strtoll(getenv("NN_FAKE_TIME"), 0, 10); if (t) *t = v; return v; }\n' >"$T/clock.c"
cc -shared -fPIC -o "$T/clock.so" "$T/clock.c" || fail "cc clock.so"
second=1700000000
taken=nccl-numa-ab-$(TZ=UTC date -d "@$second" +%Y%m%d-%H%M%S)
mkdir -p "$T/cwd2/$taken"
(cd "$T/cwd2" && TZ=UTC NN_FAKE_TIME=$second LD_PRELOAD="$T/clock.so" "$root/$CLI" ab --nccl-tests "$T/tests" \
   --config "$T/a.conf" --colls all_reduce -b 8 -e 8 -g 2 --repeats 1 --no-plot >/dev/null 2>"$T/e2")
rc=$?
check "default name taken (a run in the same second): the next free NAME-2 is used" \
  "[ $rc -eq 0 ] && [ \"\$(ls '$T/cwd2')\" = \"$taken"$'\n'"$taken-2\" ] && [ -s '$T/cwd2/$taken-2/runs.tsv' ] && ! grep -q 'File exists' '$T/e2'"

# report: usage errors say what is wrong.
"$CLI" report "$T/run" --bogus >/dev/null 2>"$T/e"
check "report --bogus: says the option" "[ $? -eq 2 ] && [ \"\$(head -1 '$T/e')\" = \"nccl-numa report: unknown option '--bogus'\" ]"
"$CLI" report >/dev/null 2>"$T/e"
check "report without RUNDIR: says so" "[ $? -eq 2 ] && [ \"\$(head -1 '$T/e')\" = 'nccl-numa report: missing RUNDIR' ]"

nn_finish "all ab checks passed"
