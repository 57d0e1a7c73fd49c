#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU kit (test/gpu/run.sh) end to end on the CPU: stand-ins for nvidia-smi and the
# driver (test/gpu/standin; the plugin is the real one, loaded by nn_plugin_lines) play a
# one-GPU machine with NCCL 2.30.7. The kit must pass every step there, fail when the
# rules have no effect or results are wrong, and say "skipped" without a GPU.
. "$(dirname "$0")/../cli/lib.sh"
cd "$root" || exit 1
nn_tmp nn-kit
T=$tmp
S=$root/test/gpu/standin
kit() {   # kit OUT [VAR=VALUE...]: the kit on the stand-ins
  local out=$1; shift
  env PATH="$S:$PATH" NN_GPU_DRIVER="$S/nn_coll_driver" NN_GPU_OUT="$T/$out" NN_GPU_TIMEOUT=240 "$@" \
    bash test/gpu/run.sh > "$T/$out.stdout" 2>&1
}
kit good
rc=$?
check "the kit passes on a machine where everything takes effect" "[ $rc -eq 0 ] || { tail -n 30 '$T/good.stdout'; false; }"
sum=$T/good/summary.txt
for c in plugins init topo-file dump results; do
  check "step a: $c passed" "grep -q '^a PASS $c:' '$sum'"
done
check "step a: cpu-link is N/A with one CPU node, not PASS" "grep -q '^a N/A cpu-link:' '$sum'"
check "step b: the rules checked for all-reduce and all-gather" "[ \$(grep -c '^b PASS tuning:' '$sum') -eq 2 ]"
check "step b: 64 KiB itself is on the 'from 64 KiB' side" "grep -q '65536: RING/SIMPLE -> RING/LL' '$sum'"
check "step b: NCCL's own choice shown from the plugin-off run" "[ \$(grep -c '^b PASS tuning-own:' '$sum') -eq 2 ]"
check "step b: multi-rank mode chosen for NCCL 2.30" "grep -q 'NCCL_MULTI_RANK_GPU_ENABLE=1' '$T/good/machine.txt'"
check "step c: ab ran A B A B and wrote its report" "grep -q '^c PASS ab: 8 runs' '$sum' && [ -s '$T/good/ab/report.md' ] && [ -s '$T/good/report.md' ]"
check "ab alternated stock and numa" "[ \"\$(cut -f3 '$T/good/ab/runs.tsv' | tr '\n' ' ')\" = 'stock numa stock numa stock numa stock numa ' ]"
check "results.md has the verdict table" "grep -q '^| a | PASS plugins:' '$T/good/results.md'"
check "every log kept in the output folder" "ls '$T/good'/a.log '$T/good'/a-topo-dump.xml '$T/good'/b-allreduce-rules.log '$T/good'/b-allgather-off.log >/dev/null"

# calibrate reads the driver's rows too: forced LL wins small sizes, SIMPLE large ones
mkdir -m 0700 "$T/xdg"
env PATH="$S:$PATH" XDG_RUNTIME_DIR="$T/xdg" build/nccl-numa calibrate --bench-cmd "$S/nn_coll_driver --op {coll} --ranks-per-gpu 2" \
  --config "$T/good/b.conf" --colls all_reduce --algos ring --protos ll,simple -b 16 -e 16M -f 4 \
  --repeats 3 --out "$T/cal" > "$T/cal.out" 2> "$T/cal.err"
check "calibrate --bench-cmd with the driver's rows exits 0" "[ $? -eq 0 ] || { cat '$T/cal.err'; false; }"
check "calibrate: ring/ll from 16 B" "grep -q '^rule coll=allreduce bytes=16-.* algo=ring proto=ll' '$T/cal.out'"
check "calibrate: ring/simple up to 16 MiB" "grep -q '^rule coll=allreduce bytes=.*-16M .*algo=ring proto=simple' '$T/cal.out'"

kit ignored STANDIN_IGNORE_RULES=1
rc=$?
check "rules without effect: the kit fails" "[ $rc -eq 1 ]"
check "rules without effect: tuning and tuning-own fail" "grep -q '^b FAIL tuning:' '$T/ignored/summary.txt' && grep -q '^b FAIL tuning-own:' '$T/ignored/summary.txt'"

kit wrong STANDIN_WRONG=2
rc=$?
check "wrong results: the kit fails on results" "[ $rc -eq 1 ] && grep -q '^a FAIL results:' '$T/wrong/summary.txt'"

env PATH="/usr/bin:/bin" bash test/gpu/run.sh > "$T/none.stdout" 2>&1
rc=$?
check "no nvidia-smi: skipped with its reason (77)" "[ $rc -eq 77 ] && grep -q '^skipped: no nvidia-smi' '$T/none.stdout'"
nn_finish "GPU kit rehearsal on stand-ins: passes, fails and skips where it should"
