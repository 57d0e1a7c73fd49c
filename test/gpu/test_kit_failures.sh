#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU kit's failures and limits on the CPU, with the stand-ins of test/gpu/standin:
# once nvidia-smi lists a GPU, a driver that cannot load libnccl.so.2, a CUDA runtime that
# sees no GPU or a failed build is a FAIL with its output, never a skip; a hanging run is
# killed at its limit with every process of its session, the runs after it are not run,
# and results.md has the verdict; the kit's own limit leaves results.md too; the output
# folder may pass through a symlink; the driver is rebuilt when its NCCL changes.
. "$(dirname "$0")/../cli/helpers/lib.sh"
cd "$root" || exit 1
nn_need_built "$build_dir/tools/nn_gpucheck"
nn_tmp nn-kitfail
T=$tmp
S=$root/test/gpu/standin
# the stand-in CUDA driver and NVML for step p (nccl-numa p2p): test/p2p/fakecuda.c
FAKECUDA=(NCCL_NUMA_CUDA_LIB="$build_dir/tools/libnn-fakecuda.so" NCCL_NUMA_NVML_LIB="$build_dir/tools/libnn-fakecuda.so")
kit() {   # kit OUT [VAR=VALUE...]: the kit on the stand-ins; $rc, $secs
  local out=$1 t0=$SECONDS
  shift
  env PATH="$S:$PATH" NN_GPU_DRIVER="$S/nn_coll_driver" NN_GPU_OUT="$T/$out" NN_GPU_TIMEOUT=240 \
    "${FAKECUDA[@]}" "$@" bash test/gpu/run.sh > "$T/$out.stdout" 2>&1
  rc=$? secs=$((SECONDS - t0))
}
verdict_row() { grep -q "^| \*\*kit\*\* | $2" "$T/$1/results.md"; }
gone() {   # gone SID: no process of session SID is left (a second for the reaper)
  local i f st
  for i in 1 2 3 4 5 6 7 8 9 10; do
    st=0
    for f in /proc/[0-9]*/stat; do
      { read -r s < "$f"; } 2>/dev/null || continue
      s=${s##*) }
      read -r -a s <<<"$s"
      [ "${s[3]}" = "$1" ] && [ "${s[0]}" != Z ] && st=1
    done
    [ $st = 0 ] && return 0
    sleep 0.2
  done
  return 1
}

# ---- step d: a plugin that never saw CUDA_VISIBLE_DEVICES does not pass as narrowed ----
kit hidden STANDIN_GPUS=2 STANDIN_HIDE_VISIBLE=1
check "step d: no narrowing line: the kit fails on visible, naming what it found" \
  "[ $rc -eq 1 ] && grep -q '^d FAIL visible: no \"nccl-numa: CUDA_VISIBLE_DEVICES=0,1: 2 GPUs.*(no CUDA_VISIBLE_DEVICES line at all)' '$T/hidden/summary.txt'"
check "step d: judged whole, the two-node mapping is withheld: topo-file fails (the narrowing is what serves it)" \
  "grep -q '^d FAIL topo-file: nccl-numa served no NCCL_TOPO_FILE' '$T/hidden/summary.txt'"

# ---- a driver that cannot load libnccl.so.2 (the real loader's error) ----
mkdir -p "$T/lib"
# (soname libnccl.so.9: a libnccl.so.2 this machine has would be found in its place)
echo 'int ncclFake(void) { return 0; }' | cc -shared -fPIC -x c - -Wl,-soname,libnccl.so.9 -o "$T/lib/libnccl.so.9"
printf 'int ncclFake(void);\nint main(void) { return ncclFake(); }\n' |
  cc -x c - -o "$T/drv-noload" -L"$T/lib" -l:libnccl.so.9
rm -f "$T/lib/libnccl.so.9"
kit noload NN_GPU_DRIVER="$T/drv-noload"
check "driver without libnccl.so.2: FAIL (exit 1), not skipped" "[ $rc -eq 1 ] && ! grep -q '^skipped' '$T/noload.stdout'"
check "driver without libnccl.so.2: the loader's message in summary.txt" \
  "grep -q '^setup FAIL the driver .* --devices failed (exit 127): .*error while loading shared libraries: libnccl.so.9: cannot open shared object file' '$T/noload/summary.txt'"
check "driver without libnccl.so.2: results.md has the FAIL verdict" "verdict_row noload 'FAIL: '"

# ---- the CUDA runtime sees no GPU while nvidia-smi lists one ----
kit nodev STANDIN_DEVICES=none
check "runtime sees no GPU: FAIL with its message" \
  "[ $rc -eq 1 ] && grep -q '^setup FAIL nvidia-smi lists a GPU but the CUDA runtime sees none: devices 0: no CUDA-capable device' '$T/nodev/summary.txt'"
vars=$(bash test/gpu/find_cuda.sh) && make -s BUILD="$build_dir" $vars "$build_dir/tools/nn_coll_driver" >/dev/null 2>&1 &&
  [ "$("$build_dir/tools/nn_coll_driver" --devices >/dev/null 2>&1; echo $?)" = 3 ] && {
  kit realdrv NN_GPU_DRIVER="$build_dir/tools/nn_coll_driver"
  check "the real driver on this GPU-less machine, nvidia-smi listing a GPU: FAIL, not skipped" \
    "[ $rc -eq 1 ] && grep -q '^setup FAIL nvidia-smi lists a GPU but the CUDA runtime sees none' '$T/realdrv/summary.txt'"
}

# ---- no GPU listed: the one skip left, named, recorded where a folder was named ----
kit nogpu STANDIN_SMI=none
check "nvidia-smi lists no GPU: skipped (77) with its reason" \
  "[ $rc -eq 77 ] && grep -q '^skipped: nvidia-smi lists no GPU (exit 6: No devices were found)' '$T/nogpu.stdout'"
check "nvidia-smi lists no GPU: results.md says SKIPPED" "verdict_row nogpu 'SKIPPED: nvidia-smi lists no GPU'"

# ---- the build fails and nothing prebuilt is there ----
kit nobuild BUILD="$T/empty-build" CC=false
check "failed build without prebuilt binaries: FAIL with make's message" \
  "[ $rc -eq 1 ] && grep -q '^setup FAIL build: make failed (exit 2) and there is no prebuilt .*: .*Error' '$T/nobuild/summary.txt'"
mkdir -p "$T/pre-build/tools"
cp "$build_dir/libnccl-tuner-numa.so" "$build_dir/nccl-numa" "$T/pre-build/"
cp "$build_dir/tools/nn_gpucheck" "$T/pre-build/tools/"
kit prebuilt BUILD="$T/pre-build" CC=false
check "failed build with prebuilt binaries: one FAIL, and the kit goes on with them" \
  "[ $rc -eq 1 ] && grep -q '^setup FAIL build: make failed (exit 2), going on with what' '$T/prebuilt/summary.txt' &&
   grep -q '^c PASS ab:' '$T/prebuilt/summary.txt' && verdict_row prebuilt 'FAIL: [0-9]* passed, 1 failed'"

# ---- a run hangs: killed at its limit with its session, the rest not run ----
kit hang STANDIN_HANG=ranks2 STANDIN_PIDS="$T/hang.pids" NN_GPU_TIMEOUT=100
sum=$T/hang/summary.txt
check "hang: the kit fails well inside NN_GPU_TIMEOUT ($secs s of 100)" "[ $rc -eq 1 ] && [ $secs -lt 60 ]"
check "hang: the run timed out at its limit and was killed" "grep -q '^b FAIL run: all_reduce with the rules, timed out after [0-9]* s and killed' '$sum'"
check "hang: the runs after it are not run" "[ \$(grep -c '^b NOT-RUN run: .*timed out after' '$sum') -eq 3 ] && grep -q '^c NOT-RUN ab: b: all_reduce with the rules timed out' '$sum'"
check "hang: results.md has the verdict row (FAIL, stopped)" "verdict_row hang 'FAIL: .*stopped: b: all_reduce'"
read -r standin child sid < "$T/hang.pids"
check "hang: the stand-in ($standin) and its child ($child, a process group of its own) were in the run's session" \
  "[ -n '$sid' ] && [ '$sid' != '$standin' ] && [ '$child' != '' ]"
check "hang: no process of that session ($sid) is left" "gone '$sid'"

# ---- the kit's own limit: stopped from outside, results.md still completed ----
kit limit STANDIN_SMI=hang-query NN_GPU_TIMEOUT=20
check "kit limit: exit 124 with its message, within the limit and its grace" \
  "[ $rc -eq 124 ] && grep -q 'FAIL: the kit ran past its time limit of 20 s' '$T/limit.stdout' && [ $secs -le 32 ]"
check "kit limit: summary.txt and results.md say so" \
  "grep -q '^kit FAIL time: stopped at the time limit of 20 s' '$T/limit/summary.txt' && verdict_row limit 'FAIL: '"

# ---- limits fit: each run's limit within the time left before NN_GPU_TIMEOUT ----
kit fit NN_GPU_TIMEOUT=200
lims=$(grep -o '(limit [0-9]* s of [0-9]* s left)' "$T/fit/summary.txt" | awk '{print $2, $5}')
check "every run's limit named (7: a, b x 4, ab, d)" "[ $rc -eq 0 ] && [ \$(wc -l <<<'$lims') -eq 7 ]"
check "each limit and its 5 s grace within the time left, the first under 200 s" \
  "awk 'NR == 1 && \$2 >= 200 {exit 1} \$1 + 5 > \$2 {exit 1}' <<<'$lims'"

# ---- the output folder through a symlink, and as one ----
mkdir -p "$T/real"
ln -s "$T/real" "$T/link"
kit link/out
check "NN_GPU_OUT through a symlink: the kit passes (init compares real paths)" \
  "[ $rc -eq 0 ] && grep -q '^a PASS init:' '$T/real/out/summary.txt'"
mkdir -p "$T/real2"
ln -s "$T/real2" "$T/outlink"
kit outlink
check "NN_GPU_OUT itself a symlink: the kit passes" "[ $rc -eq 0 ] && verdict_row outlink 'PASS: '"

kit outlink
check "NN_GPU_OUT holding a kit's output already: FAIL, the first left as it was" \
  "[ $rc -eq 1 ] && grep -q 'already holds a kit.s output' '$T/outlink.stdout' && verdict_row outlink 'PASS: '"

# ---- the driver is rebuilt when the NCCL it is built against changes ----
if vars=$(bash test/gpu/find_cuda.sh); then
  eval "$(sed 's/^/local_/' <<<"$vars")"
  mkdir -p "$T/nccl/include" "$T/nccl/lib"
  cp "$local_NCCL_INC/nccl.h" "$T/nccl/include/"
  ln -s "$local_NCCL_LIB/libnccl.so.2" "$T/nccl/lib/libnccl.so.2"
  drv() { make BUILD="$T/bld" $vars "$@" "$T/bld/tools/nn_coll_driver" 2>&1 | grep -c 'nn_coll_driver\.c'; }
  # shellcheck disable=SC2086
  check "driver: built" "[ \$(drv) -eq 1 ]"
  check "driver: the same NCCL, not rebuilt" "[ \$(drv) -eq 0 ]"
  check "driver: another NCCL directory, rebuilt" "[ \$(drv NCCL_INC=$T/nccl/include NCCL_LIB=$T/nccl/lib) -eq 1 ]"
  sed -i 's/^#define NCCL_PATCH .*/#define NCCL_PATCH 99/' "$T/nccl/include/nccl.h"
  check "driver: the same directory holding another release, rebuilt" "[ \$(drv NCCL_INC=$T/nccl/include NCCL_LIB=$T/nccl/lib) -eq 1 ]"
else
  echo "note: no CUDA runtime and NCCL here, the driver's rebuild is not checked (${vars#skipped: })"
fi
# ---- step p: peer writes lost between the two GPUs (the stand-in driver's drop mode) ----
kit p2pdrop STANDIN_GPUS=2 NN_FAKECUDA=drop
check "p2p broken: the kit fails on step p, naming the pair and the mapping line" \
  "[ $rc -eq 1 ] && grep -q '^p FAIL p2p: peer-to-peer is BROKEN on 0->1, 1->0: 0->1: write: .* words wrong.*; mapping line: p2p broken gpus=0-1 driver=[0-9.]* xproc=failed tested=' '$T/p2pdrop/summary.txt'"
kit p2pring STANDIN_GPUS=2 NN_FAKECUDA=concurrent-drop NN_FAKECUDA_SHARED="$T/fake.lock"
check "p2p broken only all at once: the kit fails on step p, naming the step" \
  "[ $rc -eq 1 ] && grep -q '^p FAIL p2p: peer-to-peer is BROKEN when every GPU writes at once (each pair alone works): all at once: GPU [01].s process found' '$T/p2pring/summary.txt'"
check "p2p broken: the other steps still pass" "! grep -q '^[abcd] FAIL' '$T/p2pdrop/summary.txt'"

nn_finish "GPU kit failures: FAIL not skip once a GPU is listed, hangs killed and reported, symlinks, driver rebuilt"
