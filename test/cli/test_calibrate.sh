#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa calibrate on synthetic forced sweeps (stand-in nccl-tests, FAKE_MODEL=calibrate)
# whose winners are known: ring/ll up to 2 KiB, ring/simple at 8 KiB and 512 KiB, no
# significant winner at 32 and 128 KiB (ring/simple and tree/simple tie), ll128 fast but
# wrong (#wrong > 0) and tree/ll128 refused (exit 3): reported FAILED, never chosen. Default candidates:
# what the stand-in's synthetic NCCL tuning table enables (no LL128; Tree for AllReduce
# only), the fixed set when the table is missing or cut off; --algos/--protos override.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-cal
T=$tmp
mkdir -p "$T/tests"
for c in all_reduce all_gather alltoall; do ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/tests/${c}_perf"; done
for i in 0 1 2 3 4 5 6 7; do echo "gpu $i bus=0$((i + 1)):00.0 numa=$((i / 4))"; done > "$T/m.conf"
export FAKE_LOG_DIR=$T/log FAKE_MODEL=calibrate

# 2.31.0 (the dev branch) runs LL128 between PCIe-only GPUs by default: calibrate forces it there
FAKE_NCCL_CODE=23100 "$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" --colls all_reduce,all_gather,alltoall \
  --algos ring,tree --protos ll,ll128,simple -b 8 -e 512K -f 4 -g 4 --out "$T/run" >"$T/out" 2>"$T/err"
rc=$?
check "calibrate exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || { cat "$T/err"; exit 1; }
check "18 forced runs per collective (6 combinations x 3 repeats)" "[ \$(grep -c 'all_reduce' '$T/run/runs.tsv') -eq 18 ]"
check "runs forced NCCL_ALGO/NCCL_PROTO without the tuner, with the topology" \
  "grep -qx NCCL_ALGO=ring '$T/run/runs/0001-ring.ll-all_reduce.env' && grep -qx NCCL_PROTO=ll '$T/run/runs/0001-ring.ll-all_reduce.env' && grep -qx NCCL_TUNER_PLUGIN=none '$T/run/runs/0001-ring.ll-all_reduce.env' && grep -q '^NCCL_ENV_PLUGIN=/' '$T/run/runs/0001-ring.ll-all_reduce.env'"
for c in allreduce allgather; do
  check "$c: ring/ll for 8 B .. below 8 KiB" "grep -qx 'rule coll=$c bytes=8-8191 ranks=4 nodes=1 scope=intra algo=ring proto=ll' '$T/out'"
  check "$c: ring/simple at 8 KiB up to the next measured size" "grep -qx 'rule coll=$c bytes=8K-32767 ranks=4 nodes=1 scope=intra algo=ring proto=simple' '$T/out'"
  check "$c: ring/simple at the last size" "grep -qx 'rule coll=$c bytes=512K-512K ranks=4 nodes=1 scope=intra algo=ring proto=simple' '$T/out'"
done
check "exactly six rules" "[ \$(grep -c '^rule ' '$T/out') -eq 6 ]"
check "no rule where no winner is significant (32 KiB, 128 KiB)" \
  "grep -q 'all_reduce 32 KiB: no rule (.*within the spread' '$T/out' && grep -q 'all_reduce 128 KiB: no rule' '$T/out'"
check "the failed combinations are never chosen" "! grep -q 'proto=ll128' '$T/out'"
check "an arm with #wrong > 0 is reported FAILED, with where and why" \
  "grep -qxF \"# all_reduce ring.ll128: FAILED at 9 of 9 sizes (8 B..512 KiB): #wrong > 0 at 9 (nccl-tests' correctness check found wrong results); never a winner\" '$T/out'"
check "an arm that exits non-zero is reported FAILED" \
  "grep -qF '# all_gather tree.ll128: FAILED: no result in 3 of 3 runs' '$T/out'"
check "alltoall gets no rules (NCCL's tuner never sees it)" "grep -q 'alltoall: NCCL.s tuner is never asked' '$T/out' && ! grep -q 'coll=alltoall' '$T/out'"
check "pci-latency estimate from ring/ll: (10.08 - 6.6) / 6" "grep -qF '# pci-latency: all_reduce ring/ll, 4 ranks: 10.08 us at 8 B = 6.6 us base + 6 hops x 0.58 us' '$T/out'"
check "no NCCL model to check the estimate against: a comment, not a line" \
  "grep -qxF '# model pci-latency-us=0.58 not written: no NCCL model of this run (no tuning table in runs/probe.out) to check that it improves the fit' '$T/out' && ! grep -q '^model ' '$T/out'"

"$CLI" calibrate --from "$T/run" >"$T/from" 2>/dev/null
check "--from RUNDIR gives the same rules" "diff <(grep -E '^(rule|model) ' '$T/out') <(grep -E '^(rule|model) ' '$T/from') >/dev/null"
{ cat "$T/m.conf"; grep -E '^(rule|model) ' "$T/out"; } > "$T/pasted.conf"
check "the output pastes into a valid mapping" "'$CLI' check-config '$T/pasted.conf' >/dev/null 2>&1"

rm -rf "$T/log"
"$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce -b 8 -e 512K -f 4 -g 4 --repeats 1 --out "$T/one" >"$T/one.out" 2>/dev/null
check "one repeat: spread unknown, no rules" "[ \$(grep -c '^rule ' '$T/one.out') -eq 0 ] && grep -q 'fewer than 2 good repeats' '$T/one.out'"
check "without a mapping: forced runs have no plugin at all" "! grep -q '^NCCL_ENV_PLUGIN=' '$T/one/runs/0001-ring.ll-all_reduce.env'"
rm -rf "$T/log"
"$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce --algos ring,tree --protos ll -b 8 -e 2K -f 4 -g 4 --out "$T/noscope" >"$T/ns.out" 2>/dev/null
check "without a mapping: rules without scope" "grep -qx 'rule coll=allreduce bytes=8-2K ranks=4 nodes=1 algo=ring proto=ll' '$T/ns.out'"
# --- default candidates: from NCCL's tuning table (a probe run), else the fixed set ---
rm -rf "$T/log"
NCCL_ALGO=nvls "$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" --colls all_reduce,all_gather \
  -b 8 -e 512K -f 4 -g 4 --out "$T/dflt" >"$T/dflt.out" 2>"$T/dflt.err"
check "default: exits 0" "[ $? -eq 0 ]"
check "default: one probe run first, with NCCL's tuning log on and nothing forced" \
  "head -n1 '$T/log/order.log' | grep -qx '1 all_reduce probe' && [ \$(grep -c probe '$T/log/order.log') -eq 1 ] && grep -qx NCCL_DEBUG=INFO '$T/log/run-1.env' && grep -qx NCCL_DEBUG_SUBSYS=TUNING '$T/log/run-1.env' && ! grep -q '^NCCL_ALGO=' '$T/log/run-1.env' && ! grep -q '^NCCL_TUNER_PLUGIN=' '$T/log/run-1.env'"
check "default: the probe gets the mapping's topology (as the forced runs do)" \
  "grep -q '^NCCL_ENV_PLUGIN=/' '$T/log/run-1.env' && grep -q '^NCCL_NUMA_CONFIG=' '$T/log/run-1.env'"
check "default: the probe's output is kept in the run directory" "grep -q 'Algorithm   |' '$T/dflt/runs/probe.out'"
check "default: candidates are what NCCL enables (no ll128)" \
  "[ \"\$(sed -n 's/^arm \\([^ ]*\\) kind=forced.*/\\1/p' '$T/dflt/meta' | tr '\\n' ' ')\" = 'ring.ll ring.simple tree.ll tree.simple ' ]"
check "default: 12 forced runs per collective (4 combinations x 3 repeats)" "[ \$(grep -c 'all_reduce' '$T/dflt/runs.tsv') -eq 12 ]"
check "default: says which candidates and why, on stderr and in the meta" \
  "grep -q 'candidates: ring.ll ring.simple tree.ll tree.simple (what NCCL enables here.*tuning table.*NCCL disables ring.ll128 tree.ll128' '$T/dflt.err' && grep -q '^candidates nccl-tuning-table runs/probe.out tables=1: ring.ll ring.simple tree.ll tree.simple' '$T/dflt/meta'"
check "default: the estimate fits NCCL's model worse (81% -> 92%): a comment saying so" \
  "grep -qxF '# model pci-latency-us=0.58 not written: it does not improve the fit of NCCL'\"'\"'s model to this run (median residual 92% with it, 81% without)' '$T/dflt.out' && ! grep -q '^model ' '$T/dflt.out'"
check "default: rules as before from the enabled candidates" \
  "grep -qx 'rule coll=allreduce bytes=8-8191 ranks=4 nodes=1 scope=intra algo=ring proto=ll' '$T/dflt.out' && ! grep -q 'proto=ll128' '$T/dflt.out'"
rm -rf "$T/log"
"$CLI" calibrate --nccl-tests "$T/tests" --colls all_gather -b 8 -e 2K -f 4 -g 4 --repeats 1 --out "$T/ag" >/dev/null 2>"$T/ag.err"
check "default: the union over the swept collectives (all_gather alone: no tree)" \
  "grep -q 'candidates: ring.ll ring.simple (' '$T/ag.err' && ! grep -q 'kind=forced algo=tree' '$T/ag/meta'"
for mode in none cut; do
  rm -rf "$T/log"
  FAKE_TUNING=$mode "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce -b 8 -e 2K -f 4 -g 4 --repeats 1 \
    --out "$T/fb-$mode" >/dev/null 2>"$T/fb-$mode.err"
  check "no usable table ($mode): the fixed set, said on stderr and in the meta" \
    "grep -q 'candidates: ring.ll ring.simple tree.ll tree.simple (the fixed set' '$T/fb-$mode.err' && grep -q '^candidates fixed' '$T/fb-$mode/meta' && [ \$(grep -c 'kind=forced' '$T/fb-$mode/meta') -eq 4 ]"
done
# The fixed set follows the release's own rule between PCIe-only GPUs: NCCL 2.28.9 keeps
# LL128 off there, the 2.31.0 development release turns it on (nccl_model.c's table).
FAKE_TUNING=none FAKE_NCCL_CODE=23100 "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce -b 8 -e 2K -f 4 -g 4 \
  --repeats 1 --out "$T/fb-2310" >/dev/null 2>"$T/fb-2310.err"
check "no usable table on a release that enables LL128 over PCIe: the fixed set has it" \
  "grep -q 'candidates: ring.ll ring.ll128 ring.simple tree.ll tree.ll128 tree.simple (the fixed set' '$T/fb-2310.err'"
"$CLI" calibrate --nccl-tests "$T/tests" --nccl-version 2.28.9 --protos ll128,simple --colls all_reduce -g 4 \
  --out "$T/forced-ll128" >/dev/null 2>"$T/forced-ll128.err"
check "--protos ll128 where the release keeps it off: refused (exit 2), nothing run" \
  "[ \$? -eq 2 ] && grep -qF 'nccl-numa calibrate: --protos ll128: NCCL 2.28.9 keeps ll128 off between PCIe-only GPUs' '$T/forced-ll128.err' && [ ! -e '$T/forced-ll128' ]"
check "a table cut off is named as such" "grep -q 'breaks off' '$T/fb-cut.err'"
# 2.31 logs LL128's numbers also where its enable check turns LL128 off (2.31.2 between
# PCIe-only GPUs): the release table decides, as for the cost model. 2.31.0 (dev) runs it;
# an older release's table is taken as it is.
for code in 23102 23100 22809; do
  rm -rf "$T/log"
  FAKE_TUNING=ll128 FAKE_NCCL_CODE=$code "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce -b 8 -e 2K -f 4 \
    -g 4 --repeats 1 --out "$T/ll128-$code" >/dev/null 2>"$T/ll128-$code.err"
  arms=$(sed -n 's/^arm \([^ ]*\) kind=forced.*/\1/p' "$T/ll128-$code/meta" | tr '\n' ' ')
  case $code in
    23102) check "2.31.2 logs LL128 numbers: not a candidate, said so" \
             "[ '$arms' = 'ring.ll ring.simple tree.ll tree.simple ' ] && grep -q 'NCCL disables ring.ll128 tree.ll128' '$T/ll128-$code.err'" ;;
    *) check "NCCL $code logs LL128 enabled: a candidate" \
         "[ '$arms' = 'ring.ll ring.ll128 ring.simple tree.ll tree.ll128 tree.simple ' ]" ;;
  esac
done
rm -rf "$T/log"
FAKE_NCCL_CODE=23100 "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce --protos ll128 -b 8 -e 2K -f 4 -g 4 \
  --repeats 1 --out "$T/over" >/dev/null 2>"$T/over.err"
check "--protos overrides NCCL's table (no tuning probe; ll128 is run where the release runs it)" \
  "! grep -q TUNING '$T/log/run-1.env' && [ \"\$(sed -n 's/^arm \\([^ ]*\\) kind=forced.*/\\1/p' '$T/over/meta' | tr '\\n' ' ')\" = 'ring.ll128 tree.ll128 ' ] && grep -q '^candidates given: ring.ll128 tree.ll128' '$T/over/meta'"

"$CLI" calibrate --nccl-tests "$T/tests" --algos ring,warp -g 4 --out "$T/bad" >/dev/null 2>"$T/bad.err"
check "unknown algorithm is a usage error, named" \
  "[ $? -eq 2 ] && grep -qx \"nccl-numa calibrate: unknown algorithm 'warp'\" '$T/bad.err'"
"$CLI" calibrate --nccl-tests "$T/tests" --nodes 2 -g 4 --out "$T/bad2" >/dev/null 2>"$T/bad2.err"
check "--nodes without --launcher: usage error, named" \
  "[ $? -eq 2 ] && grep -qx 'nccl-numa calibrate: --nodes and --ranks-per-node need --launcher' '$T/bad2.err'"
"$CLI" calibrate --nccl-tests "$T/tests" -b 8x --out "$T/bad4" >/dev/null 2>"$T/bad4.err"
check "a bad shared option: usage error naming the command and the value" \
  "[ $? -eq 2 ] && grep -qx \"nccl-numa calibrate: -b: '8x' is not a size (e.g. 8, 64K, 256M)\" '$T/bad4.err' && [ ! -e '$T/bad4' ]"
"$CLI" calibrate -g 4 --out "$T/bad3" >/dev/null 2>"$T/bad3.err"
check "no benchmark given: usage error, named" "[ $? -eq 2 ] && grep -q '^nccl-numa calibrate: give --nccl-tests DIR' '$T/bad3.err'"
"$CLI" calibrate --from "$T/nowhere" >/dev/null 2>&1
check "--from a missing directory fails" "[ $? -eq 1 ]"
# --from an `ab` run: no forced arms, so no rules can come from it: say so, exit 1.
FAKE_MODEL=ab "$CLI" ab --nccl-tests "$T/tests" --config "$T/m.conf" --colls all_reduce -b 8 -e 8 -g 2 \
  --repeats 1 --out "$T/abrun" >/dev/null 2>&1
"$CLI" calibrate --from "$T/abrun" >"$T/fromab" 2>"$T/fromab.err"
check "--from a run without forced arms: exit 1, says why, prints no rules" \
  "[ $? -eq 1 ] && grep -qF 'nccl-numa calibrate: $T/abrun has no forced algorithm x protocol runs (a run directory of kind '\''ab'\'' with 2 arms)' '$T/fromab.err' && ! grep -q '^rule' '$T/fromab'"

rm -rf "$T/log"
"$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce --protos ll,ll128 -b 8 -e 2K -f 4 -g 4 --repeats 1 \
  --out "$T/probed" >/dev/null 2>"$T/probed.err"
check "--protos ll128 without --nccl-version: a probe tells 2.28.9, then refused (exit 2), nothing forced" \
  "[ \$? -eq 2 ] && grep -qF 'nccl-numa calibrate: --protos ll128: NCCL 2.28.9 keeps ll128 off between PCIe-only GPUs' '$T/probed.err' && [ \"\$(cut -d' ' -f3 '$T/log/order.log')\" = probe ] && ! grep -q '^NCCL_PROTO=' '$T'/log/run-*.env"
rm -rf "$T/log"
FAKE_NCCL_CODE=0 "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce --protos ll128 -b 8 -e 2K -f 4 -g 4 \
  --repeats 1 --out "$T/unknown" >/dev/null 2>"$T/unknown.err"
check "--protos ll128 where the release cannot be told: refused (exit 2), nothing forced" \
  "[ \$? -eq 2 ] && grep -qF \"nccl-numa calibrate: --protos ll128: NCCL's release is unknown\" '$T/unknown.err' && ! grep -q '^NCCL_PROTO=' '$T'/log/run-*.env"

# Results are always checked: a sweep that would turn nccl-tests' check off is refused.
for off in "-c 0" "--check=0" "-c0"; do
  # shellcheck disable=SC2086
  "$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce -g 4 --out "$T/nocheck" -- $off >/dev/null 2>"$T/nocheck.err"
  check "calibrate -- $off: refused (exit 2), nothing run" \
    "[ \$? -eq 2 ] && grep -q 'every run checks its results' '$T/nocheck.err' && [ ! -e '$T/nocheck' ]"
done
"$CLI" calibrate --bench-cmd "$T/tests/all_reduce_perf -c 0 {coll}" -g 4 --out "$T/nocheck" >/dev/null 2>"$T/nocheck.err"
check "--bench-cmd with -c 0: refused (exit 2), naming it" \
  "[ \$? -eq 2 ] && grep -qF \"nccl-numa calibrate: --bench-cmd: '-c 0' turns nccl-tests' correctness check off\" '$T/nocheck.err' && [ ! -e '$T/nocheck' ]"
# a run without the check all the same (a wrapper hides -c 0): #wrong N/A, its arms FAILED
printf '#!/bin/sh\nexec "$@" -c 0\n' > "$T/hide-c0"; chmod +x "$T/hide-c0"
rm -rf "$T/log"
"$CLI" calibrate --bench-cmd "$T/hide-c0 $T/tests/{coll}_perf" --colls all_reduce --algos ring --protos ll,simple \
  -b 8 -e 2K -f 4 -g 4 --out "$T/hidden" >"$T/hidden.out" 2>/dev/null
check "a run without the check (#wrong N/A): its arms FAILED, no rules" \
  "grep -q 'validation: 0' '$T'/hidden/runs/0001-*.out && grep -qF '# all_reduce ring.ll: FAILED at 5 of 5 sizes (8 B..2 KiB): #wrong N/A at 5 (run without nccl-tests'\"'\"' correctness check)' '$T/hidden.out' && ! grep -q '^rule' '$T/hidden.out'"
# --chunks: chunk sizes as arms through the plugin's own rules (a mapping whose only rule is
# `rule chunk=SIZE`, served by getChunkSize); chunk= is written only where one measurably wins.
mkdir -m 0700 -p "$T/xdg"
chunks() {   # chunks OUT [VAR=VALUE...]: a chunk sweep on NCCL 2.30.7 (tuner v6 asks for chunk sizes)
  local out=$1; shift
  env "$@" XDG_RUNTIME_DIR="$T/xdg" FAKE_NCCL_CODE=23007 "$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" \
    --colls all_reduce --algos ring --protos ll,simple --chunks 128K,512K -b 64K -e 4M -f 4 -g 8 --out "$T/$out" \
    >"$T/$out.out" 2>"$T/$out.err"
}
chunks ck FAKE_CHUNK_FAST=512K
check "--chunks: exit 0, arms chunk.none, chunk.128K and chunk.512K ran" \
  "[ \$? -eq 0 ] && for a in none 128K 512K; do grep -q \"chunk.\$a\" '$T/ck/runs.tsv' || exit 1; done"
check "--chunks: each chunk arm loads the plugin as tuner with a mapping whose one rule is its chunk=" \
  "grep -qx 'NCCL_TUNER_PLUGIN=/.*libnccl-tuner-numa.so' '$T/ck/runs/'*chunk.512K-all_reduce.env && grep -qx \"NCCL_NUMA_CONFIG=\$(cd '$T/ck' && pwd -P)/chunk.512K.conf\" '$T/ck/runs/'*chunk.512K-all_reduce.env && [ \"\$(grep '^rule' '$T/ck/chunk.512K.conf')\" = 'rule chunk=512K' ] && ! grep -q '^rule' '$T/ck/chunk.none.conf'"
check "--chunks: the generated mappings are valid" "'$CLI' check-config '$T/ck/chunk.512K.conf' >/dev/null"
check "--chunks: chunk=512K where it wins (from 1 MiB), nothing for 128K or below 1 MiB" \
  "grep -qx 'rule coll=allreduce bytes=1M-4M ranks=8 nodes=1 scope=cross chunk=512K' '$T/ck.out' && ! grep -q 'chunk=128K' '$T/ck.out' && grep -q '^# all_reduce 64 KiB..256 KiB, chunk size: no rule (no chunk size beats' '$T/ck.out'"
chunks even
check "--chunks, no chunk size faster: no chunk= rule, and says why" \
  "! grep -q '^rule.*chunk=' '$T/even.out' && grep -q 'chunk size: no rule (no chunk size beats' '$T/even.out'"
"$CLI" calibrate --nccl-tests "$T/tests" --colls all_reduce --chunks 128K --out "$T/c1" >/dev/null 2>"$T/c1.err"
check "--chunks without --config: refused (exit 2), says why" "[ \$? -eq 2 ] && grep -q -- '--chunks needs --config' '$T/c1.err'"
"$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" --colls all_reduce --chunks 8 --out "$T/c2" >/dev/null 2>"$T/c2.err"
check "--chunks 8 (below 16 B): refused (exit 2)" "[ \$? -eq 2 ] && grep -qF \"nccl-numa calibrate: --chunks '8': expected up to 8 sizes of 16 B to 1G\" '$T/c2.err'"
"$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" --nccl-version 2.28.9 --colls all_reduce --chunks 128K \
  --out "$T/c3" >/dev/null 2>"$T/c3.err"
check "--chunks on NCCL 2.28.9 (no getChunkSize): refused (exit 2)" "[ \$? -eq 2 ] && grep -q 'asks no tuner for chunk sizes' '$T/c3.err' && [ ! -e '$T/c3' ]"

nn_finish "all calibrate checks passed"
