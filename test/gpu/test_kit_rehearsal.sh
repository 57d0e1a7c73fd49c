#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU kit (test/gpu/run.sh) end to end on the CPU: stand-ins for nvidia-smi and the
# driver (test/gpu/standin; the plugin is the real one, loaded by nn_plugin_lines at the
# ABI of the release played) play a one-GPU machine with NCCL 2.30.7 and with 2.28.9 (the
# release PyTorch 2.11's nvidia-nccl-cu13 wheel pins). The kit must pass every step on
# both, taking each release's way to two ranks on one GPU (the stand-in refuses the other
# way as NCCL does), fail when the rules have no effect or results are wrong, and say
# "skipped" without a GPU. test_kit_failures.sh has the kit's failures and limits.
. "$(dirname "$0")/../cli/helpers/lib.sh"
cd "$root" || exit 1
nn_tmp nn-kit
T=$tmp
S=$root/test/gpu/standin
# the stand-in CUDA driver and NVML for step p (nccl-numa p2p): test/p2p/fakecuda.c
FAKECUDA=(NCCL_NUMA_CUDA_LIB="$build_dir/tools/libnn-fakecuda.so" NCCL_NUMA_NVML_LIB="$build_dir/tools/libnn-fakecuda.so")
kit() {   # kit OUT [VAR=VALUE...]: the kit on the stand-ins
  local out=$1; shift
  env PATH="$S:$PATH" NN_GPU_DRIVER="$S/nn_coll_driver" NN_GPU_OUT="$T/$out" NN_GPU_TIMEOUT=240 \
    "${FAKECUDA[@]}" "$@" bash test/gpu/run.sh > "$T/$out.stdout" 2>&1
}
good() {   # good RELEASE ENV_ABI TUNER_ABI MODE: the kit passes everything on that release
  local r=$1 out=good-$1
  kit "$out" STANDIN_NCCL="$r"
  local rc=$? sum=$T/$out/summary.txt
  check "$r: the kit passes on a machine where everything takes effect" "[ $rc -eq 0 ] || { tail -n 30 '$T/$out.stdout'; false; }"
  for c in plugins init topo-file dump results; do
    check "$r: step a: $c passed" "grep -q '^a PASS $c:' '$sum'"
  done
  check "$r: step a: NCCL used env plugin v$2 and tuner v$3" "grep -q '^a PASS plugins: NCCL $r: ENV/Plugin: Using nccl-numa (v$2).*TUNER/Plugin: Using nccl-numa (v$3)' '$sum'"
  check "$r: step a: cpu-link is N/A with one CPU node, not PASS" "grep -q '^a N/A cpu-link:' '$sum'"
  check "$r: step b: the rules checked for all-reduce and all-gather" "[ \$(grep -c '^b PASS tuning:' '$sum') -eq 2 ]"
  check "$r: step b: 64 KiB itself is on the 'from 64 KiB' side" "grep -q '65536: RING/SIMPLE -> RING/LL' '$sum'"
  check "$r: step b: NCCL's own choice shown from the plugin-off run" "[ \$(grep -c '^b PASS tuning-own:' '$sum') -eq 2 ]"
  check "$r: step b: two ranks as $4" "grep -qF 'b: $4' '$T/$out/machine.txt'"
  check "$r: step c: ab ran A B A B and wrote its report" "grep -q '^c PASS ab: 8 runs' '$sum' && [ -s '$T/$out/ab/report.md' ] && [ -s '$T/$out/report.md' ]"
  check "$r: ab alternated stock and numa" "[ \"\$(cut -f3 '$T/$out/ab/runs.tsv' | tr '\n' ' ')\" = 'stock numa stock numa stock numa stock numa ' ]"
  check "$r: results.md names the release and has the verdict table" "grep -q '^## .*: NCCL $r\$' '$T/$out/results.md' && grep -q '^| a | PASS plugins:' '$T/$out/results.md' && grep -q '^| \*\*kit\*\* | PASS: ' '$T/$out/results.md'"
  check "$r: step d: one GPU visible: the plugin says the whole mapping is judged" "grep -q '^d PASS visible: CUDA_VISIBLE_DEVICES=0: one GPU visible' '$sum'"
  check "$r: step d: one GPU: topo-file, dump and ab are N/A, with the reason" "grep -q '^d N/A topo-file, dump, ab: narrowing needs two GPUs' '$sum'"
  check "$r: step p: one GPU: the p2p kernels loaded, ran and were timed on it" "grep -q '^p PASS p2p-self: self-test passed' '$sum'"
  check "$r: step p: one GPU: the pairs N/A, with the reason" "grep -q '^p N/A p2p pairs: peer-to-peer needs two GPUs; this machine has 1' '$sum'"
  check "$r: every log kept in the output folder" "ls '$T/$out'/a.log '$T/$out'/a-topo-dump.xml '$T/$out'/b-allreduce-rules.log '$T/$out'/b-allgather-off.log >/dev/null"
}
good 2.30.7 2 6 "2 threads, NCCL_MULTI_RANK_GPU_ENABLE=1"
good 2.28.9 1 5 "2 processes with their own NCCL_HOSTID over lo"

# Two GPUs of one node visible: the plugin judges them alone and serves their file, without
# the mapping's GPU on the other node; the A/B runs under the same restriction.
two() {   # two RELEASE
  local r=$1 out=two-$1
  kit "$out" STANDIN_NCCL="$r" STANDIN_GPUS=2
  local rc=$? sum=$T/$out/summary.txt
  check "$r, 2 GPUs: the kit passes" "[ $rc -eq 0 ] || { grep FAIL '$sum'; false; }"
  check "$r, 2 GPUs: step d: the plugin narrowed to the visible GPUs" "grep -q '^d PASS visible: CUDA_VISIBLE_DEVICES=0,1: 2 GPUs, all on NUMA node 0' '$sum'"
  for c in topo-file dump results ab; do check "$r, 2 GPUs: step d: $c passed" "grep -q '^d PASS $c:' '$sum'"; done
  check "$r, 2 GPUs: step d: the served file holds the two visible GPUs and not the other node's" \
    "[ \$(grep -c '<gpu ' '$T/$out/d-topo-dump.xml') -eq 2 ] && ! grep -q 'fe:1f.0' '$T/$out/d-topo-dump.xml'"
  check "$r, 2 GPUs: step p: both pairs verified, the mapping line recorded" \
    "grep -q '^p PASS p2p: peer-to-peer works: 2 pair(s) wrote, read and copied correctly, in one process and across processes .*(latency [0-9.-]* us, copy engine [0-9.-]* GB/s, SM stores [0-9.-]* GB/s) (2 pairs, at most [0-9]* s each); mapping line: p2p ok level=PHB gpus=0-1 driver=[0-9.]* xproc=ok tested=' '$sum' && grep -q '^1->0 .* works\$' '$T/$out/p2p.txt'"
  check "$r, 2 GPUs: step p: across processes and all at once recorded" \
    "grep -q '^p PASS p2p-xproc: 2 pair(s) wrote and read across processes' '$sum' && grep -q '^p PASS p2p-ring: 2 GPU processes wrote to their ring neighbours at once, no line wrong' '$sum'"
  check "$r, 2 GPUs: results.md carries step d's A/B" "grep -q '^### A/B under CUDA_VISIBLE_DEVICES=0,1' '$T/$out/results.md'"
}
two 2.30.7
two 2.28.9
check "2.28.9: each rank a process with its own NCCL_HOSTID" "[ \$(grep -o 'NCCL_HOSTID set by environment to standin-[0-9]*-rank[01]' '$T/good-2.28.9/b-allreduce-rules.log' | sort -u | wc -l) -eq 2 ]"

# The stand-in refuses what NCCL refuses: the check above is only worth something if so.
env PATH="$S:$PATH" STANDIN_NCCL=2.28.9 NCCL_MULTI_RANK_GPU_ENABLE=1 "$S/nn_coll_driver" --ranks-per-gpu 2 > "$T/dup.out" 2>&1
check "2.28.9 stand-in: two threads on one GPU are refused" "[ $? -eq 1 ] && grep -q 'Duplicate GPU detected' '$T/dup.out'"

# calibrate reads the driver's rows too: forced LL wins small sizes, SIMPLE large ones
mkdir -m 0700 "$T/xdg"
env PATH="$S:$PATH" XDG_RUNTIME_DIR="$T/xdg" NCCL_MULTI_RANK_GPU_ENABLE=1 build/nccl-numa calibrate \
  --bench-cmd "$S/nn_coll_driver --op {coll} --ranks-per-gpu 2" \
  --config "$T/good-2.30.7/b.conf" --colls all_reduce --algos ring --protos ll,simple -b 16 -e 16M -f 4 \
  --repeats 3 --out "$T/cal" > "$T/cal.out" 2> "$T/cal.err"
check "calibrate --bench-cmd with the driver's rows exits 0" "[ $? -eq 0 ] || { cat '$T/cal.err'; false; }"
check "calibrate: ring/ll from 16 B" "grep -q '^rule coll=allreduce bytes=16-.* algo=ring proto=ll' '$T/cal.out'"
check "calibrate: ring/simple up to 16 MiB" "grep -q '^rule coll=allreduce bytes=.*-16M .*algo=ring proto=simple' '$T/cal.out'"

kit ignored STANDIN_NCCL=2.28.9 STANDIN_IGNORE_RULES=1
rc=$?
check "2.28.9, rules without effect: the kit fails" "[ $rc -eq 1 ]"
check "2.28.9, rules without effect: tuning and tuning-own fail" "grep -q '^b FAIL tuning:' '$T/ignored/summary.txt' && grep -q '^b FAIL tuning-own:' '$T/ignored/summary.txt'"

kit wrong STANDIN_WRONG=2
rc=$?
check "2.30.7, wrong results: the kit fails on results" "[ $rc -eq 1 ] && grep -q '^a FAIL results:' '$T/wrong/summary.txt'"

env PATH="/usr/bin:/bin" bash test/gpu/run.sh > "$T/none.stdout" 2>&1
rc=$?
check "no nvidia-smi: skipped with its reason (77)" "[ $rc -eq 77 ] && grep -q '^skipped: no nvidia-smi' '$T/none.stdout'"
nn_finish "GPU kit rehearsal on stand-ins of NCCL 2.30.7 and 2.28.9: passes, fails and skips where it should"
