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
#   d. CUDA_VISIBLE_DEVICES: a mapping over two NUMA nodes; with two GPUs of one node
#      visible the plugin judges those alone and NCCL reads the one-node file it serves
#      (and an A/B under that restriction); with one GPU the plugin says the whole
#      mapping is judged, and the rest is N/A.
#   p. peer-to-peer (nccl-numa p2p): with two or more GPUs every ordered pair written, read,
#      copied and timed in one process, written and read across processes (cuMem with a
#      POSIX fd, legacy CUDA IPC, LL's 8- and 16-byte stores), then all GPUs writing to their
#      ring neighbours at once; the verdict, the cross-process and all-at-once results and
#      the mapping line recorded; with one GPU the kernels' load, launch and timing on it
#      (--self), the pairs N/A with the reason.
#
#   test/gpu/run.sh                 builds the plugin, CLI, nn_gpucheck and the driver here
#   BUNDLE/run.sh --bundle BUNDLE   uses what `make gpu-bundle` put in BUNDLE (no build;
#                                   BUNDLE/run.sh alone does the same)
#
# Everything goes to one folder: $NN_GPU_OUT (may be or pass through a symlink; not one a
# kit already wrote to), default build/gpu-check-DATE-TIME (./gpu-check-DATE-TIME with
# --bundle): summary.txt (a line per check), results.md (the same as a table), every log;
# both are rewritten after each line and completed on exit, however the kit ends. Each run
# of the driver or of ab gets its share of the time left (its weight: step a 3, each run of
# b 2, ab 8 for its 8 runs and its probe) and runs in a session of its own, killed whole at
# its limit; after a run times out the rest are not run. Once nvidia-smi lists a GPU,
# whatever fails (a build, a library load, the driver) is a FAIL with its output. Exit 0
# all passed, 1 a check failed, 77 skipped (no GPU, CUDA runtime or NCCL: "skipped: <reason>").
# NN_GPU_DRIVER: use that driver instead of building one (test/gpu/test_kit_rehearsal.sh
# runs the kit on stand-ins).
set -u
here=$(cd "$(dirname "$0")" && pwd)
LIMIT=${NN_GPU_TIMEOUT:-300}
BUNDLE=''
if [ "${1:-}" = --bundle ]; then
  [ -d "${2:-}" ] || { echo "usage: run.sh [--bundle DIR]: DIR is the folder make gpu-bundle wrote" >&2; exit 2; }
  BUNDLE=$(cd "$2" && pwd -P)
elif [ $# -gt 0 ]; then
  echo "usage: run.sh [--bundle DIR]" >&2; exit 2
elif [ -e "$here/BUNDLE.txt" ]; then   # the copy make gpu-bundle put in a bundle: that bundle
  BUNDLE=$(cd "$here" && pwd -P)
fi
case $LIMIT in ''|*[!0-9]*) echo "NN_GPU_TIMEOUT=$LIMIT: a number of seconds" >&2; exit 2 ;; esac

kill_session() {   # kill_session SIGNAL SID: every process of session SID (read from /proc: no procps needed)
  local f st
  for f in /proc/[0-9]*/stat; do
    { read -r st < "$f"; } 2>/dev/null || continue   # a process that ended meanwhile
    st=${st##*) }   # after "pid (comm) ": state ppid pgrp session ...
    read -r -a st <<<"$st"
    [ "${st[3]:-}" = "$2" ] && { f=${f#/proc/}; kill -"$1" "${f%/stat}" 2>/dev/null; }
  done
}

if [ -z "${NN_GPU_KIT_INNER:-}" ]; then
  # The kit runs under a time limit; its runs are sessions of their own, which a signal to
  # this process group does not reach: the one running is in $sids, killed here too.
  # timeout is a process group of its own, which a Ctrl-C does not reach: passed on here.
  sids=$(mktemp) || exit 1
  NN_GPU_KIT_INNER=1 NN_GPU_KIT_SIDS=$sids timeout -k 10 "$LIMIT" bash "$0" "$@" &
  tpid=$!
  sig=''
  trap 'sig=1; kill -TERM "$tpid" 2>/dev/null' INT TERM
  while :; do
    wait "$tpid"
    rc=$?
    kill -0 "$tpid" 2>/dev/null || break   # else wait was cut short by the trap
  done
  if [ -n "$sig" ]; then echo "FAIL: the kit was interrupted"; rc=130
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "FAIL: the kit ran past its time limit of $LIMIT s (NN_GPU_TIMEOUT)"
  fi
  if [ -n "$sig" ] || [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    while read -r s; do kill_session KILL "$s"; done < "$sids"
  fi
  rm -f "$sids"
  exit $rc
fi

if [ -n "$BUNDLE" ]; then root=$(pwd); else cd "$here/../.." || exit 1; root=$(pwd); fi
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
# Time for the checks and results.md after the last run; runs share the rest.
RESERVE=$((LIMIT / 5 < 15 ? LIMIT / 5 : 15))
DEADLINE=$((LIMIT - RESERVE))
UNITS=21   # weights of the runs still to come: a 3, b 4 x 2, ab 8 x 1, p 2; d adds its own
OUT='' SUM='' code='' cur='' stopped='' fails=0 verdict=''

# ---------- the output folder, summary.txt and results.md ----------
open_out() {
  [ -z "$OUT" ] || return 0
  local base=$BUILD
  [ -n "$BUNDLE" ] && base=$root
  OUT=${NN_GPU_OUT:-$base/gpu-check-$(date +%Y%m%d-%H%M%S)}
  # a second kit in the same folder would mix its logs with the first's (and ab refuses)
  [ ! -e "$OUT/summary.txt" ] || { echo "FAIL: $OUT already holds a kit's output: name another NN_GPU_OUT"; OUT=''; exit 1; }
  mkdir -p "$OUT" || { OUT=''; echo "FAIL: cannot create the output folder ${NN_GPU_OUT:-}"; exit 1; }
  OUT=$(cd "$OUT" && pwd -P)   # the plugin logs real paths; the checks compare with them
  mkdir -p "$OUT/xdg" && chmod 0700 "$OUT/xdg"   # the plugin's private directory for served topologies
  SUM=$OUT/summary.txt
  : > "$SUM"
  { echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"; echo "host: $(uname -n)"; } > "$OUT/machine.txt"
  echo "nccl-numa GPU kit: output in $OUT"
  write_results
}
write_results() {   # results.md from machine.txt and summary.txt, with the verdict so far
  [ -n "$OUT" ] || return 0
  {
    echo "## $(date -u '+%Y-%m-%d') on $(uname -n): NCCL ${code:-?}"
    echo
    echo '```'
    cat "$OUT/machine.txt"
    echo '```'
    echo
    echo "| step | verdict |"
    echo "|---|---|"
    sed 's/|/\\|/g; s/^\([a-z]*\) \(.*\)$/| \1 | \2 |/' "$SUM" | grep '^| '
    echo "| **kit** | ${verdict:-INCOMPLETE: the kit had not finished when this was written} |"
    echo
    if [ -s "$OUT/report.md" ]; then echo "### A/B (nccl-numa report)"; echo; sed 's/^#/###/' "$OUT/report.md"; fi
    if [ -s "$OUT/report-d.md" ]; then echo "### A/B under CUDA_VISIBLE_DEVICES=0,1 (step d)"; echo; sed 's/^#/###/' "$OUT/report-d.md"; fi
  } > "$OUT/.results.md" && mv -f "$OUT/.results.md" "$OUT/results.md"
}
line() {   # line STEP VERDICT...: one line of summary.txt, on the terminal too
  echo "$1 $2" | tee -a "$SUM"
  [ "${2%% *}" != FAIL ] || fails=$((fails + 1))
  write_results
}
note() { if [ -n "$OUT" ]; then line "$@"; else echo "$1 $2"; [ "${2%% *}" != FAIL ] || fails=$((fails + 1)); fi; }
lastlines() {   # lastlines FILE [N]: its last N non-empty lines as one, for a summary line
  local t
  t=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n "${2:-3}" | tr '\n' ' ')
  t=${t% }
  echo "${t:-(no output)}"
}
skip() {
  echo "skipped: $*"
  [ -z "$OUT" ] || line setup "SKIP $*"
  verdict="SKIPPED: $*"
  exit 77
}
fatal() { note setup "FAIL $*"; exit 1; }
finish() {
  local rc=$?
  if [ -n "$cur" ]; then kill_session TERM "$cur"; sleep 1; kill_session KILL "$cur"; fi
  [ -n "$OUT" ] || return
  local n_pass n_na n_not
  n_pass=$(grep -c ' PASS ' "$SUM") n_na=$(grep -c ' N/A ' "$SUM") n_not=$(grep -c '^[a-z]* NOT-RUN ' "$SUM")
  local counts="$n_pass passed, $fails failed, $n_na not applicable, $n_not not run"
  if [ -z "$verdict" ]; then
    if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then verdict="PASS: $counts"
    else verdict="FAIL: $counts${stopped:+ (stopped: $stopped)}"; fi
  fi
  write_results
  rm -f "$OUT/.check"
  echo
  echo "$verdict; $OUT/results.md"
}
trap finish EXIT
trap 'note kit "FAIL time: stopped at the time limit of $LIMIT s (NN_GPU_TIMEOUT) or by a signal"; exit 124' TERM
trap 'note kit "FAIL interrupted"; exit 130' INT

# ---------- runs: sessions of their own, each with its share of the time ----------
run_in() {   # run_in SECONDS OUT ERR CMD...: CMD in a new session; all of it killed after SECONDS
  local lim=$1 out=$2 err=$3 rc
  shift 3
  [ "$lim" -ge 1 ] || lim=1   # timeout 0 would mean no limit at all
  if [ "$err" = "$out" ]; then setsid timeout -k 5 "$lim" "$@" > "$out" 2>&1 < /dev/null &
  else setsid timeout -k 5 "$lim" "$@" > "$out" 2> "$err" < /dev/null & fi
  cur=$!
  echo "$cur" >> "${NN_GPU_KIT_SIDS:-/dev/null}"
  wait "$cur"
  rc=$?
  kill_session KILL "$cur"   # what outlived it: a rank of --procs, a benchmark ab started
  cur=''
  return $rc
}
left() { echo $((DEADLINE - SECONDS)); }
timed_out() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }
share() {   # share WEIGHT: $lim, this run's part of the time left, or 1 (not run) when none is
  local w=$1
  avail=$(left)
  lim=$(( avail * w / (UNITS > 0 ? UNITS : 1) - 5 ))   # 5: timeout's grace before KILL
  UNITS=$((UNITS - w))
  [ $lim -gt $((60 * w)) ] && lim=$((60 * w))
  [ -z "$stopped" ] && [ $lim -ge 1 ]
}
drv() {   # drv STEP WEIGHT WHAT LOG CMD...: one run and its verdict; 1 when it was not run
  local step=$1 w=$2 what=$3 log=$4 rc
  shift 4
  if ! share "$w"; then
    note "$step" "NOT-RUN run: $what (${stopped:-no time left before the limit of $LIMIT s})"
    return 1
  fi
  run_in "$lim" "$OUT/$log" "$OUT/$log" "$@"
  rc=$?
  if [ $rc -eq 0 ]; then note "$step" "PASS run: $what, exit 0 (limit $lim s of $avail s left)"
  elif timed_out $rc; then
    stopped="$step: $what timed out after $lim s"
    note "$step" "FAIL run: $what, timed out after $lim s and killed, see $log: $(lastlines "$OUT/$log" 2)"
  else
    note "$step" "FAIL run: $what, exit $rc (limit $lim s of $avail s left), see $log: $(grep -m1 -E 'WARN|nn_coll_driver:|error while loading' "$OUT/$log" || lastlines "$OUT/$log" 2)"
  fi
  return 0
}
record() {   # record STEP CHECK ARGS...: runs nn_gpucheck, keeps its verdict line
  local step=$1 rc
  shift
  timeout --foreground 60 "$CHK" "$@" > "$OUT/.check" 2>&1
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || [ $rc -eq 1 ] ||
    { note "$step" "FAIL $1: nn_gpucheck exit $rc: $(lastlines "$OUT/.check" 3)"; return; }
  note "$step" "$(tail -n 1 "$OUT/.check")"
}

# Short steps run in the foreground with timeout --foreground: it stays in this process
# group, so the kit's own limit reaches it (a plain timeout makes a group of its own).

# ---------- is there anything to run on? ----------
[ -z "${NN_GPU_OUT:-}" ] || open_out   # a folder named: even a skip is recorded there
command -v nvidia-smi >/dev/null || skip "no nvidia-smi (no NVIDIA driver here)"
smi=$(timeout --foreground 30 nvidia-smi -L 2>&1)
rc=$?
timed_out $rc && { open_out; fatal "nvidia-smi -L did not answer within 30 s"; }
grep -q '^GPU ' <<<"$smi" || skip "nvidia-smi lists no GPU (exit $rc: $(head -n 1 <<<"$smi"))"
# From here on there is a GPU: whatever fails is a FAIL, not a skip.
open_out
echo "$smi" | sed 's/^/nvidia-smi: /' >> "$OUT/machine.txt"
timeout --foreground 30 nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>&1 |
  sed 's/^/nvidia-smi: /' >> "$OUT/machine.txt"

runs() {   # runs NAME CMD...: a program the kit uses starts (its libraries load); FAIL with its output
  local name=$1 rc
  shift
  timeout --foreground 30 "$@" > "$OUT/.check" 2>&1
  rc=$?
  [ $rc -lt 126 ] || fatal "$name cannot run (exit $rc): $(lastlines "$OUT/.check" 3)"
}
if [ -n "$BUNDLE" ]; then
  # shellcheck source=test/gpu/bundle_env.sh
  . "$here/bundle_env.sh" || fatal "no $here/bundle_env.sh"
  nn_bundle_env "$BUNDLE"
else
  # A failed build is a FAIL; where the plugin, CLI and nn_gpucheck were built before
  # ($BUILD/libnccl-tuner-numa.so, nccl-numa, tools/nn_gpucheck), the kit goes on with them
  # so that the run still tells what they do (a machine that cannot build: the bundle).
  run_in "$(left)" "$OUT/build.log" "$OUT/build.log" make -s -j"$(nproc)" BUILD="$BUILD" all "$BUILD/tools/nn_gpucheck"
  rc=$?
  if [ $rc -ne 0 ]; then
    for f in libnccl-tuner-numa.so nccl-numa tools/nn_gpucheck; do
      [ -e "$BUILD/$f" ] || fatal "build: make failed (exit $rc) and there is no prebuilt $BUILD/$f: $(lastlines "$OUT/build.log" 3)"
    done
    note setup "FAIL build: make failed (exit $rc), going on with what $BUILD holds (build.log: $(lastlines "$OUT/build.log" 2))"
  fi
  CHK=$BUILD/tools/nn_gpucheck CLI=$BUILD/nccl-numa
  SO=$(readlink -f "$BUILD/libnccl-tuner-numa.so")
  if [ -n "${NN_GPU_DRIVER:-}" ]; then   # a driver given (the CPU rehearsal's stand-in)
    DRV=$NN_GPU_DRIVER vars="driver: $DRV"
  else
    if ! vars=$(bash "$here/find_cuda.sh"); then
      # no headers to build with: a skip only when the libraries are not here either
      rt=$(bash "$here/find_cuda.sh" --runtime) || skip "${vars#skipped: }"
      fatal "cannot build the driver (${vars#skipped: }), yet NCCL and the CUDA runtime are here ($(echo $rt)): make gpu-bundle elsewhere and run its run.sh --bundle"
    fi
    # shellcheck disable=SC2086
    run_in "$(left)" "$OUT/build-driver.log" "$OUT/build-driver.log" make -s BUILD="$BUILD" $vars "$BUILD/tools/nn_coll_driver" ||
      fatal "building the driver ($(echo $vars)): $(lastlines "$OUT/build-driver.log" 3)"
    DRV=$BUILD/tools/nn_coll_driver
  fi
fi
echo "$vars" | sed 's/^/build: /' >> "$OUT/machine.txt"
runs "nccl-numa" "$CLI" --version
runs "nn_gpucheck" "$CHK" --help
probe=$(left); [ "$probe" -le 60 ] || probe=60; [ "$probe" -ge 1 ] || probe=1
run_in "$probe" "$OUT/devices.log" "$OUT/devices.log" "$DRV" --devices
rc=$?
case $rc in
  0) ;;
  3) fatal "nvidia-smi lists a GPU but the CUDA runtime sees none: $(lastlines "$OUT/devices.log" 3)" ;;
  *) fatal "the driver $DRV --devices failed (exit $rc$(timed_out $rc && echo ', timed out')): $(lastlines "$OUT/devices.log" 3)" ;;
esac
devs=$(grep '^device' "$OUT/devices.log")
echo "$devs" >> "$OUT/machine.txt"
cat "$OUT/machine.txt"

# ---------- the mapping of GPU 0 ----------
bus=$(awk '$1 == "device" && $2 == 0 {print $3}' <<<"$devs")
[ -n "$bus" ] || fatal "the driver listed no device 0: $(lastlines "$OUT/devices.log" 3)"
node=$(cat "/sys/bus/pci/devices/$(tr 'A-F' 'a-f' <<<"$bus")/numa_node" 2>/dev/null || echo -1)
[ "$node" -ge 0 ] 2>/dev/null || node=0   # a VM shows -1: any node, the checks compare with the mapping
base="gpu 0 bus=$bus numa=$node"
ndev=$(grep -c '^device [0-9]' <<<"$devs")
# step d: a run (2) and, with two GPUs, an A/B of its own (4)
if [ "$ndev" -ge 2 ]; then UNITS=$((UNITS + 6)); else UNITS=$((UNITS + 2)); fi
printf '# GPU kit, step a\n%s\ntopology mode=numa\n' "$base" > "$OUT/a.conf"
printf '# GPU kit, steps b and c: rules NCCL would not choose by itself\n%s\ntopology mode=numa\n%s\n' "$base" \
  "rule coll=allreduce bytes=0-65535 algo=ring proto=simple
rule coll=allreduce bytes=64K- algo=ring proto=ll
rule coll=allgather bytes=0-65535 algo=ring proto=simple
rule coll=allgather bytes=64K- algo=ring proto=ll" > "$OUT/b.conf"

# The environment of every run: no inherited NCCL or nccl-numa settings; with the plugin.
BASE=(env -u NCCL_TOPO_FILE -u NCCL_ALGO -u NCCL_PROTO -u NCCL_NUMA_CONFIG -u NCCL_TUNER_PLUGIN
  -u NCCL_ENV_PLUGIN -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE XDG_RUNTIME_DIR="$OUT/xdg")
PLUG=("${BASE[@]}" NCCL_TUNER_PLUGIN="$SO" NCCL_ENV_PLUGIN="$SO")
DEBUG=(NCCL_DEBUG=INFO "NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING,GRAPH,COLL")

# ---------- a. one rank ----------
if drv a 3 "1 rank" a.log "${PLUG[@]}" NCCL_NUMA_CONFIG="$OUT/a.conf" "${DEBUG[@]}" NCCL_TOPO_DUMP_FILE="$OUT/a-topo-dump.xml" \
  "$DRV" --op all_reduce -b 8 -e 1M -f 4 -n 5 -w 1; then
  code=$(grep -o 'NCCL version [0-9]*\.[0-9]*\.[0-9]*' "$OUT/a.log" | head -n1 | awk '{print $3}')
  echo "NCCL: ${code:-unknown}" >> "$OUT/machine.txt"
  record a plugins "$OUT/a.log"
  record a init "$OUT/a.log" --config "$OUT/a.conf"
fi
IFS=. read -r maj min pat <<<"${code:-0.0.0}"
vcode=$((maj * 10000 + min * 100 + pat))
if [ -z "$code" ]; then
  [ -s "$OUT/a.log" ] && note a "FAIL topo-file, dump, cpu-link: a.log has no \"NCCL version\" line, so the release is unknown"
elif [ $vcode -lt 22807 ]; then   # no env plugin before NCCL 2.28.7: nothing is served
  note a "N/A topo-file, dump, cpu-link: NCCL $code has no env plugin (2.28.7+), so no served topology"
else
  record a topo-file "$OUT/a.log"
  if [ -s "$OUT/a-topo-dump.xml" ]; then
    record a dump "$OUT/a-topo-dump.xml" --config "$OUT/a.conf"
    record a cpu-link "$OUT/a.log" --dump "$OUT/a-topo-dump.xml"
  else
    note a "FAIL dump: NCCL wrote no NCCL_TOPO_DUMP_FILE"
  fi
fi
[ -s "$OUT/a.log" ] && record a results "$OUT/a.log"

# ---------- b. two ranks on the one GPU ----------
if [ $vcode -ge 23000 ]; then
  MODE=(--ranks-per-gpu 2) MODE_ENV=(NCCL_MULTI_RANK_GPU_ENABLE=1) how="2 threads, NCCL_MULTI_RANK_GPU_ENABLE=1"
else
  MODE=(--ranks-per-gpu 2 --procs --hostid-per-rank) MODE_ENV=(NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1)
  how="2 processes with their own NCCL_HOSTID over lo"
fi
echo "b: $how" | tee -a "$OUT/machine.txt"
# plugin off: NCCL_TUNER_PLUGIN=none from 2.28 on; older NCCL would look for a plugin "none"
off=(); [ $vcode -ge 22800 ] && off=(NCCL_TUNER_PLUGIN=none)
for coll in allreduce allgather; do
  op=${coll/all/all_}
  on=0 of=0
  drv b 2 "$op with the rules" "b-$coll-rules.log" "${PLUG[@]}" NCCL_NUMA_CONFIG="$OUT/b.conf" "${DEBUG[@]}" "${MODE_ENV[@]}" \
    "$DRV" --op "$op" "${MODE[@]}" -b 16 -e 1M -f 4 -n 5 -w 1 && on=1
  drv b 2 "$op plugin off" "b-$coll-off.log" "${BASE[@]}" "${DEBUG[@]}" "${MODE_ENV[@]}" "${off[@]}" \
    "$DRV" --op "$op" "${MODE[@]}" -b 16 -e 1M -f 4 -n 5 -w 1 && of=1
  [ $on = 1 ] && record b tuning "$OUT/b-$coll-rules.log" --coll "$coll" --nranks 2 --expect 0-65535=ring/simple --expect 64K-=ring/ll
  [ $on = 1 ] && [ $of = 1 ] && record b tuning-own "$OUT/b-$coll-rules.log" "$OUT/b-$coll-off.log" --coll "$coll" --nranks 2
  [ $on = 1 ] && record b results "$OUT/b-$coll-rules.log"
  [ $of = 1 ] && record b results "$OUT/b-$coll-off.log"
done

# ---------- c. A/B through nccl-numa ab, and its report ----------
if share 8; then
  per=$(( (lim - 5) / 9 )); [ $per -ge 1 ] || per=1   # ab's limit for each of its 8 runs and its probe
  run_in "$lim" "$OUT/ab-stdout.md" "$OUT/ab-stderr.log" env "${MODE_ENV[@]}" XDG_RUNTIME_DIR="$OUT/xdg" \
    "$CLI" ab --bench-cmd "$DRV --op {coll} ${MODE[*]}" --plugin "$SO" --config "$OUT/b.conf" \
    --colls all_reduce,all_gather -b 8 -e 16M -f 4 -n 10 -w 2 --repeats 2 --timeout "$per" --out "$OUT/ab"
  rc=$?
  if timed_out $rc; then
    stopped="c: ab timed out after $lim s"
    note c "FAIL ab: timed out after $lim s and killed (ab-stderr.log: $(lastlines "$OUT/ab-stderr.log" 2))"
  elif [ $rc -eq 0 ] && [ -s "$OUT/ab/report.md" ]; then
    runs=$(wc -l < "$OUT/ab/runs.tsv" 2>/dev/null || echo 0)
    failed=$(grep -c 'FAILED' "$OUT/ab-stderr.log")
    plots=$(ls "$OUT"/ab/*.png "$OUT"/ab/*.svg 2>/dev/null | wc -l)
    if [ "$failed" -eq 0 ] && [ "$runs" -eq 8 ]; then
      note c "PASS ab: $runs runs (stock, numa x 2 collectives x 2 repeats, A B A B, at most $per s each) (limit $lim s of $avail s left), report ab/report.md, $plots plot(s)"
    else
      note c "FAIL ab: $runs runs recorded, $failed failed (ab-stderr.log: $(grep -m1 FAILED "$OUT/ab-stderr.log"))"
    fi
    if timeout --foreground 60 "$CLI" report "$OUT/ab" > "$OUT/report.md" 2>> "$OUT/ab-stderr.log"; then write_results
    else note c "FAIL report: nccl-numa report ab failed (ab-stderr.log)"; fi
  else
    note c "FAIL ab: exit $rc (ab-stderr.log: $(lastlines "$OUT/ab-stderr.log" 2))"
  fi
else
  note c "NOT-RUN ab: ${stopped:-no time left before the limit of $LIMIT s}"
fi

# ---------- d. CUDA_VISIBLE_DEVICES: the process's own GPUs ----------
# The mapping spans two NUMA nodes (a GPU this machine lacks on the other node). With two
# GPUs of one node visible, the plugin judges those alone (NCCL keeps only the
# communicator's GPUs of the file) and serves their one-node file; with one GPU visible it
# must say that the whole mapping is judged (a one-GPU process may share its communicator
# with other processes' GPUs).
other=$((node == 0 ? 1 : 0))
ghost="gpu $ndev bus=0000:fe:1f.0 numa=$other"
if [ "$ndev" -ge 2 ]; then
  bus1=$(awk '$1 == "device" && $2 == 1 {print $3}' <<<"$devs")
  seen="0,1" gd=2 want="CUDA_VISIBLE_DEVICES=0,1: 2 GPUs, all on NUMA node $node; NCCL keeps only these of the file"
  printf '# GPU kit, step d\n%s\ngpu 1 bus=%s numa=%s\n%s\n' "$base" "$bus1" "$node" "$ghost" > "$OUT/d.conf"
  printf '# GPU kit, step d: the GPUs CUDA_VISIBLE_DEVICES leaves\n%s\ngpu 1 bus=%s numa=%s\n' "$base" "$bus1" "$node" > "$OUT/d-view.conf"
else
  seen="0" gd=1 want="CUDA_VISIBLE_DEVICES=0: one GPU visible, whose communicator may hold other processes' GPUs on other NUMA nodes; the whole mapping is judged"
  printf '# GPU kit, step d\n%s\n%s\n' "$base" "$ghost" > "$OUT/d.conf"
fi
visible_line() {   # visible_line LOG: the plugin logged what CUDA_VISIBLE_DEVICES decided
  if grep -qF -- "nccl-numa: $want" "$1"; then note d "PASS visible: $want"
  else note d "FAIL visible: no \"nccl-numa: $want\" line in ${1##*/} ($(grep -m1 -o 'nccl-numa: CUDA_VISIBLE_DEVICES=.*' "$1" || echo 'no CUDA_VISIBLE_DEVICES line at all'))"; fi
}
if [ -z "$code" ] || [ $vcode -lt 22807 ]; then
  note d "N/A visible, topo-file, dump, ab: NCCL ${code:-of unknown release} has no env plugin (2.28.7+), so nothing is served"
elif drv d 2 "CUDA_VISIBLE_DEVICES=$seen" d.log "${PLUG[@]}" CUDA_VISIBLE_DEVICES="$seen" NCCL_NUMA_CONFIG="$OUT/d.conf" \
    "${DEBUG[@]}" NCCL_TOPO_DUMP_FILE="$OUT/d-topo-dump.xml" "$DRV" --op all_reduce -g "$gd" -b 8 -e 1M -f 4 -n 5 -w 1; then
  visible_line "$OUT/d.log"
  if [ "$ndev" -ge 2 ]; then
    record d topo-file "$OUT/d.log"
    if [ -s "$OUT/d-topo-dump.xml" ]; then record d dump "$OUT/d-topo-dump.xml" --config "$OUT/d-view.conf"
    else note d "FAIL dump: NCCL wrote no NCCL_TOPO_DUMP_FILE"; fi
  else
    note d "N/A topo-file, dump, ab: narrowing needs two GPUs of one NUMA node visible; this machine has $ndev"
  fi
  record d results "$OUT/d.log"
fi
if [ "$ndev" -ge 2 ] && [ $vcode -ge 22807 ]; then
  if share 4; then
    per=$(( (lim - 5) / 5 )); [ $per -ge 1 ] || per=1
    run_in "$lim" "$OUT/ab-d-stdout.md" "$OUT/ab-d-stderr.log" env CUDA_VISIBLE_DEVICES=0,1 XDG_RUNTIME_DIR="$OUT/xdg" \
      "$CLI" ab --bench-cmd "$DRV --op {coll} -g 2" --plugin "$SO" --config "$OUT/d.conf" \
      --colls all_reduce -b 8 -e 16M -f 4 -n 10 -w 2 --repeats 2 --timeout "$per" --out "$OUT/ab-d"
    rc=$?
    runs=$(wc -l < "$OUT/ab-d/runs.tsv" 2>/dev/null || echo 0)
    if [ $rc -eq 0 ] && [ "$runs" -eq 4 ] && ! grep -q FAILED "$OUT/ab-d-stderr.log"; then
      note d "PASS ab: CUDA_VISIBLE_DEVICES=0,1, $runs runs (stock, numa x 2 repeats, A B A B), report ab-d/report.md"
      timeout --foreground 60 "$CLI" report "$OUT/ab-d" > "$OUT/report-d.md" 2>> "$OUT/ab-d-stderr.log" && write_results
    else
      timed_out $rc && stopped="d: ab timed out after $lim s"
      note d "FAIL ab: exit $rc, $runs runs recorded (ab-d-stderr.log: $(lastlines "$OUT/ab-d-stderr.log" 2))"
    fi
  else
    note d "NOT-RUN ab: ${stopped:-no time left before the limit of $LIMIT s}"
  fi
fi
# ---------- p. peer-to-peer: nccl-numa p2p ----------
# The command bounds each pair itself (--timeout, a child process killed with all it
# started); the run's own limit is the backstop. p2p.txt holds its table and verdict.
if share 2; then
  if [ "$ndev" -ge 2 ]; then pargs=() npairs=$((ndev * (ndev - 1))); else pargs=(--self --gpus 0) npairs=1; fi
  per=$(( (lim - 10) / (npairs + 2) )); [ $per -ge 1 ] || per=1; [ $per -le 60 ] || per=60
  dl=$((lim - 5)); [ $dl -ge 10 ] || dl=10
  run_in "$lim" "$OUT/p2p.txt" "$OUT/p2p.log" env -u NCCL_NUMA_CONFIG "$CLI" p2p "${pargs[@]}" --timeout "$per" \
    --deadline "$dl" --ring 3
  rc=$?
  verdict_p2p=$(grep -m1 '^verdict: ' "$OUT/p2p.txt" | sed 's/^verdict: //; s/\. .*//')   # its first sentence
  if timed_out $rc; then
    stopped="p: p2p timed out after $lim s"
    note p "FAIL p2p: timed out after $lim s and killed (p2p.log: $(lastlines "$OUT/p2p.log" 2))"
  elif [ $rc -eq 0 ] && [ "$ndev" -ge 2 ]; then
    note p "PASS p2p: $verdict_p2p ($npairs pairs, at most $per s each); mapping line: $(grep -m1 '^p2p ' "$OUT/p2p.txt")"
    nworks=$(grep -cE '^[0-9]+->[0-9]+ .* works$' "$OUT/p2p.txt")
    xok=$(grep -cE '^[0-9]+->[0-9]+ +[A-Z]+ +yes +[^ ]+ +ok +ok +ok +ok +ok +ok ' "$OUT/p2p.txt")
    if [ "$xok" -eq "$nworks" ]; then
      note p "PASS p2p-xproc: $xok pair(s) wrote and read across processes (cuMem fd, LL 8/16-byte, legacy IPC)"
    else
      note p "N/A p2p-xproc: $xok of $nworks working pairs show every cross-process step (others lack peer access)"
    fi
    ring=$(grep -cE '^GPU [0-9]+ +[0-9]+ rounds  0 of [1-9]' "$OUT/p2p.txt")
    if [ "$ring" -ge 2 ]; then
      note p "PASS p2p-ring: $ring GPU processes wrote to their ring neighbours at once, no line wrong ($(grep -E '^GPU [0-9]+ +[0-9]+ rounds' "$OUT/p2p.txt" | sed 's/.*SM stores //' | tr '\n' ' '))"
    else
      note p "N/A p2p-ring: all at once not run (not every pair has peer access)"
    fi
  elif [ $rc -eq 0 ]; then
    note p "PASS p2p-self: $verdict_p2p"
    note p "N/A p2p pairs: peer-to-peer needs two GPUs; this machine has $ndev"
  elif [ $rc -eq 1 ]; then
    note p "FAIL p2p: $verdict_p2p: $(grep -m1 -E '^  ([0-9]*->[0-9]*|all at once): ' "$OUT/p2p.txt" | sed 's/^  //'); mapping line: $(grep -m1 '^p2p ' "$OUT/p2p.txt")"
  else
    note p "FAIL p2p: exit $rc: $(lastlines "$OUT/p2p.log" 2)"
  fi
else
  note p "NOT-RUN p2p: ${stopped:-no time left before the limit of $LIMIT s}"
fi
[ $fails -eq 0 ]
