#!/usr/bin/env bash
# nccl-numa calibrate on synthetic forced sweeps (stand-in nccl-tests, FAKE_MODEL=calibrate)
# whose winners are known: ring/ll up to 2 KiB, ring/simple at 8 KiB and 512 KiB, no
# significant winner at 32 and 128 KiB (ring/simple and tree/simple tie), ll128 fast but
# wrong (#wrong > 0) and tree/ll128 refused (exit 3): never chosen.
. "$(dirname "$0")/lib.sh"
nn_build_cli
nn_tmp nn-cal
T=$tmp
mkdir -p "$T/tests"
for c in all_reduce all_gather alltoall; do ln -s "$root/test/cli/fake_nccl_tests.sh" "$T/tests/${c}_perf"; done
for i in 0 1 2 3 4 5 6 7; do echo "gpu $i bus=0$((i + 1)):00.0 numa=$((i / 4))"; done > "$T/m.conf"
export FAKE_LOG_DIR=$T/log FAKE_MODEL=calibrate

"$CLI" calibrate --nccl-tests "$T/tests" --config "$T/m.conf" --colls all_reduce,all_gather,alltoall \
  -b 8 -e 512K -f 4 -g 4 --out "$T/run" >"$T/out" 2>"$T/err"
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
check "alltoall gets no rules (NCCL's tuner never sees it)" "grep -q 'alltoall: NCCL.s tuner is never asked' '$T/out' && ! grep -q 'coll=alltoall' '$T/out'"
check "pci-latency estimate from ring/ll: (10.08 - 6.6) / 6" "grep -qx 'model pci-latency-us=0.58' '$T/out'"

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
"$CLI" calibrate --nccl-tests "$T/tests" --algos ring,warp -g 4 --out "$T/bad" >/dev/null 2>&1
check "unknown algorithm is a usage error" "[ $? -eq 2 ]"
"$CLI" calibrate --from "$T/nowhere" >/dev/null 2>&1
check "--from a missing directory fails" "[ $? -eq 1 ]"

nn_finish "all calibrate checks passed"
