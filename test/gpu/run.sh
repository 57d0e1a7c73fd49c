#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU kit (`make test-gpu`): real NCCL with nccl-numa on this machine's first GPU,
# and from NCCL's own log, that every part took effect. One command, at most
# NN_GPU_TIMEOUT seconds (default 300):
#   a. 1 rank: NCCL uses nccl-numa as env and tuner plugin (ABI of its release), the
#      plugin's INIT lines name the mapping, NCCL reads the topology file it served, the
#      dump has the GPU under the mapped node's CPU, and NCCL's modelled CPU-to-CPU link
#      equals nccl-numa's model (N/A with one CPU node); results correct.
#   b. 2 ranks on that GPU (NCCL >= 2.30: NCCL_MULTI_RANK_GPU_ENABLE=1 and threads; older:
#      two processes with their own NCCL_HOSTID over NCCL_SOCKET_IFNAME=lo): rules force
#      ring/simple below 64 KiB and ring/ll from 64 KiB for all-reduce and all-gather;
#      NCCL's TUNING lines show that choice, the plugin-off run NCCL's own; results correct.
#   c. nccl-numa ab (stock against the plugin, A B A B) with the driver, and its report.
# Everything goes to one folder: $NN_GPU_OUT, default build/gpu-check-DATE-TIME
# (summary.txt, results.md, every log). Exit 0 all passed, 1 a check failed, 77 skipped
# (no GPU, CUDA runtime or NCCL: "skipped: <reason>"). NN_GPU_DRIVER: use that driver
# instead of building one (test/gpu/test_kit_rehearsal.sh runs the kit on stand-ins).
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
LIMIT=${NN_GPU_TIMEOUT:-300}
if [ -z "${NN_GPU_KIT_INNER:-}" ]; then
  NN_GPU_KIT_INNER=1 timeout -k 10 "$LIMIT" bash "$0" "$@"
  rc=$?
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "FAIL: the kit ran past its time limit of $LIMIT s (NN_GPU_TIMEOUT)"
  exit $rc
fi
BUILD=${BUILD:-build}
skip() { echo "skipped: $*"; exit 77; }

# ---------- is there anything to run on? ----------
command -v nvidia-smi >/dev/null || skip "no nvidia-smi (no NVIDIA driver here)"
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || skip "nvidia-smi lists no GPU"
# A GPU machine may lack the -dev packages: binaries built elsewhere and brought along
# ($BUILD/libnccl-tuner-numa.so, nccl-numa, tools/nn_gpucheck) are used as they are.
if ! make -s -j"$(nproc)" BUILD="$BUILD" all "$BUILD/tools/nn_gpucheck"; then
  for f in libnccl-tuner-numa.so nccl-numa tools/nn_gpucheck; do
    [ -x "$BUILD/$f" ] || { echo "FAIL: build (and no prebuilt $BUILD/$f)"; exit 1; }
  done
  echo "note: make failed; using the prebuilt plugin, CLI and nn_gpucheck in $BUILD"
fi
if [ -n "${NN_GPU_DRIVER:-}" ]; then   # a driver given (the CPU rehearsal's stand-in)
  DRV=$NN_GPU_DRIVER vars="driver: $DRV"
else
  vars=$(bash test/gpu/find_cuda.sh) || skip "${vars#skipped: }"
  # shellcheck disable=SC2086
  make -s BUILD="$BUILD" $vars "$BUILD/tools/nn_coll_driver" || { echo "FAIL: building the driver ($vars)"; exit 1; }
  DRV=$root/$BUILD/tools/nn_coll_driver
fi
CHK=$root/$BUILD/tools/nn_gpucheck CLI=$root/$BUILD/nccl-numa
SO=$(readlink -f "$BUILD/libnccl-tuner-numa.so")
devs=$("$DRV" --devices) || skip "the CUDA runtime sees no GPU: $devs"

OUT=${NN_GPU_OUT:-$root/$BUILD/gpu-check-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/xdg" && chmod 0700 "$OUT/xdg"   # the plugin's private directory for served topologies
SUM=$OUT/summary.txt
: > "$SUM"
echo "nccl-numa GPU kit: output in $OUT"
{ echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"; echo "host: $(hostname)"; echo "$devs";
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader | sed 's/^/nvidia-smi: /'
  echo "$vars" | sed 's/^/build: /'; } > "$OUT/machine.txt"
cat "$OUT/machine.txt"
fails=0
record() {   # record STEP CHECK ARGS...: runs nn_gpucheck, keeps its verdict line
  local step=$1; shift
  local line rc
  "$CHK" "$@" > "$OUT/.check" 2>&1
  rc=$?
  line=$(tail -n 1 "$OUT/.check")
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || fails=$((fails + 1))
  echo "$step $line" | tee -a "$SUM"
}
note() { echo "$1 $2" | tee -a "$SUM"; [ "${2%% *}" != FAIL ] || fails=$((fails + 1)); }
ran() {   # ran STEP RC WHAT LOG: the driver's exit code as a verdict
  if [ "$2" -eq 0 ]; then note "$1" "PASS run: $3, exit 0"
  else note "$1" "FAIL run: $3, exit $2$([ "$2" -eq 124 ] && echo ' (timed out)'), see $4: $(grep -m1 -E 'WARN|nn_coll_driver:' "$OUT/$4")"; fi
}

# ---------- the mapping of GPU 0 ----------
bus=$(awk '$1 == "device" && $2 == 0 {print $3}' <<<"$devs")
node=$(cat "/sys/bus/pci/devices/$(tr 'A-F' 'a-f' <<<"$bus")/numa_node" 2>/dev/null || echo -1)
[ "$node" -ge 0 ] 2>/dev/null || node=0   # a VM shows -1: any node, the checks compare with the mapping
base="gpu 0 bus=$bus numa=$node"
printf '# GPU kit, step a\n%s\ntopology mode=numa\n' "$base" > "$OUT/a.conf"
printf '# GPU kit, steps b and c: rules NCCL would not choose by itself\n%s\ntopology mode=numa\n%s\n' "$base" \
  "rule coll=allreduce bytes=0-65535 algo=ring proto=simple
rule coll=allreduce bytes=64K- algo=ring proto=ll
rule coll=allgather bytes=0-65535 algo=ring proto=simple
rule coll=allgather bytes=64K- algo=ring proto=ll" > "$OUT/b.conf"

base_env() {   # the environment of every run: no inherited NCCL or nccl-numa settings
  env -u NCCL_TOPO_FILE -u NCCL_ALGO -u NCCL_PROTO -u NCCL_NUMA_CONFIG -u NCCL_TUNER_PLUGIN \
    -u NCCL_ENV_PLUGIN -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE XDG_RUNTIME_DIR="$OUT/xdg" "$@"
}
with_plugin() {   # with_plugin CONFIG CMD...
  local cfg=$1; shift
  base_env NCCL_TUNER_PLUGIN="$SO" NCCL_ENV_PLUGIN="$SO" NCCL_NUMA_CONFIG="$cfg" "$@"
}
DEBUG=(NCCL_DEBUG=INFO "NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING,GRAPH,COLL")

# ---------- a. one rank ----------
with_plugin "$OUT/a.conf" env "${DEBUG[@]}" NCCL_TOPO_DUMP_FILE="$OUT/a-topo-dump.xml" \
  timeout 120 "$DRV" --op all_reduce -b 8 -e 1M -f 4 -n 5 -w 1 > "$OUT/a.log" 2>&1
ran a $? "1 rank" a.log
code=$(grep -o 'NCCL version [0-9]*\.[0-9]*\.[0-9]*' "$OUT/a.log" | head -n1 | awk '{print $3}')
echo "NCCL: ${code:-unknown}" | tee -a "$OUT/machine.txt"
IFS=. read -r maj min pat <<<"${code:-0.0.0}"
vcode=$((maj * 10000 + min * 100 + pat))
record a plugins "$OUT/a.log"
record a init "$OUT/a.log" --config "$OUT/a.conf"
if [ $vcode -lt 22807 ]; then   # no env plugin before NCCL 2.28.7: nothing is served
  note a "N/A topo-file, dump, cpu-link: NCCL ${code:-?} has no env plugin (2.28.7+), so no served topology"
else
  record a topo-file "$OUT/a.log"
  if [ -s "$OUT/a-topo-dump.xml" ]; then
    record a dump "$OUT/a-topo-dump.xml" --config "$OUT/a.conf"
    record a cpu-link "$OUT/a.log" --dump "$OUT/a-topo-dump.xml"
  else
    note a "FAIL dump: NCCL wrote no NCCL_TOPO_DUMP_FILE"
  fi
fi
record a results "$OUT/a.log"

# ---------- b. two ranks on the one GPU ----------
if [ $vcode -ge 23000 ]; then
  MODE=(--ranks-per-gpu 2) MODE_ENV=(NCCL_MULTI_RANK_GPU_ENABLE=1) how="2 threads, NCCL_MULTI_RANK_GPU_ENABLE=1"
else
  MODE=(--ranks-per-gpu 2 --procs --hostid-per-rank) MODE_ENV=(NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1)
  how="2 processes with their own NCCL_HOSTID over lo"
fi
echo "b: $how" | tee -a "$OUT/machine.txt"
for coll in allreduce allgather; do
  op=${coll/all/all_}
  with_plugin "$OUT/b.conf" env "${DEBUG[@]}" "${MODE_ENV[@]}" \
    timeout 120 "$DRV" --op "$op" "${MODE[@]}" -b 16 -e 1M -f 4 -n 5 -w 1 > "$OUT/b-$coll-rules.log" 2>&1
  ran b $? "$op with the rules" "b-$coll-rules.log"
  # plugin off: NCCL_TUNER_PLUGIN=none from 2.28 on; older NCCL would look for a plugin "none"
  off=(); [ $vcode -ge 22800 ] && off=(NCCL_TUNER_PLUGIN=none)
  base_env "${DEBUG[@]}" "${MODE_ENV[@]}" "${off[@]}" \
    timeout 120 "$DRV" --op "$op" "${MODE[@]}" -b 16 -e 1M -f 4 -n 5 -w 1 > "$OUT/b-$coll-off.log" 2>&1
  ran b $? "$op plugin off" "b-$coll-off.log"
  record b tuning "$OUT/b-$coll-rules.log" --coll "$coll" --nranks 2 --expect 0-65535=ring/simple --expect 64K-=ring/ll
  record b tuning-own "$OUT/b-$coll-rules.log" "$OUT/b-$coll-off.log" --coll "$coll" --nranks 2
  record b results "$OUT/b-$coll-rules.log"
  record b results "$OUT/b-$coll-off.log"
done

# ---------- c. A/B through nccl-numa ab, and its report ----------
env "${MODE_ENV[@]}" XDG_RUNTIME_DIR="$OUT/xdg" "$CLI" ab --bench-cmd "$DRV --op {coll} ${MODE[*]}" \
  --plugin "$SO" --config "$OUT/b.conf" --colls all_reduce,all_gather -b 8 -e 16M -f 4 -n 10 -w 2 \
  --repeats 2 --timeout 60 --out "$OUT/ab" > "$OUT/ab-stdout.md" 2> "$OUT/ab-stderr.log"
rc=$?
if [ $rc -eq 0 ] && [ -s "$OUT/ab/report.md" ]; then
  runs=$(wc -l < "$OUT/ab/runs.tsv" 2>/dev/null || echo 0)
  failed=$(grep -c 'FAILED' "$OUT/ab-stderr.log")
  plots=$(ls "$OUT"/ab/*.png "$OUT"/ab/*.svg 2>/dev/null | wc -l)
  if [ "$failed" -eq 0 ] && [ "$runs" -eq 8 ]; then
    note c "PASS ab: $runs runs (stock, numa x 2 collectives x 2 repeats, A B A B), report ab/report.md, $plots plot(s)"
  else
    note c "FAIL ab: $runs runs recorded, $failed failed (ab-stderr.log)"
  fi
  "$CLI" report "$OUT/ab" > "$OUT/report.md" 2>> "$OUT/ab-stderr.log" ||
    note c "FAIL report: nccl-numa report ab failed"
else
  note c "FAIL ab: exit $rc (ab-stderr.log)"
fi

# ---------- results.md: what docs/gpu-results.md records ----------
{
  echo "## $(date -u '+%Y-%m-%d') on $(hostname): NCCL ${code:-?}"
  echo
  echo '```'
  cat "$OUT/machine.txt"
  echo '```'
  echo
  echo "| step | verdict |"
  echo "|---|---|"
  sed 's/|/\\|/g; s/^\([abc]\) \(.*\)$/| \1 | \2 |/' "$SUM" | grep '^| '
  echo
  [ -s "$OUT/report.md" ] && { echo "### A/B (nccl-numa report)"; echo; sed 's/^#/###/' "$OUT/report.md"; }
} > "$OUT/results.md"
rm -f "$OUT/.check"
echo
echo "$(grep -c ' PASS ' "$SUM") passed, $fails failed, $(grep -c ' N/A ' "$SUM") not applicable; $OUT/results.md"
[ $fails -eq 0 ]
