#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Stand-in for an nccl-tests binary (all_reduce_perf, ...), written for nccl-numa's
# tests: it prints the real text format with SYNTHETIC numbers and records the
# environment it was given. Symlink it as <coll>_perf. Knobs (environment):
#   FAKE_LOG_DIR    where each run records its environment (run-N.env) and one
#                   line "N COLL ARMTAG" in order.log (required)
#   FAKE_NCCL_CODE  NCCL version code printed in the header (default 22809)
#   FAKE_MODEL      ab (default) or calibrate: how times depend on the environment
#   FAKE_TUNING     with NCCL_DEBUG=INFO and TUNING in NCCL_DEBUG_SUBSYS, the tuning
#                   table it prints: pcie (default; LL128 disabled, Tree for AllReduce
#                   only), cut (the same, cut off in a row), ll128 (the same but with
#                   LL128's numbers, as 2.31 logs them also where it turns LL128 off),
#                   none (no table)
#   FAKE_CHUNK_FAST SIZE: in the calibrate model, a run where nccl-numa's tuner
#                   (NCCL_TUNER_PLUGIN, a path) serves chunk SIZE through getChunkSize
#                   (asked as NCCL would, by plugin_chunk.py) is 10 us faster from
#                   FAKE_CHUNK_FROM bytes (default 1M) on; every other chunk arm and chunk.none
#                   take NCCL's own time
# Options: -b -e -f -g -n -w as nccl-tests; -c 0 turns the correctness check off as
# nccl-tests does (header "validation: 0", #wrong N/A).
# Under a launcher (OMPI_COMM_WORLD_RANK from Open MPI's mpirun, else SLURM_PROCID
# from srun) every rank prints its own "Rank" lines (what real nccl-tests built with
# MPI=1 gathers on rank 0) on host NN_FAKE_NODE (set by the tests' fake ssh), else
# SLURMD_NODENAME, else `hostname`, and appends "RANK HOST ARMTAG TUNER CONFIG" to
# FAKE_LOG_DIR/ranks.log; only rank 0 prints the rest and records the run.
set -u
coll=$(basename "$0"); coll=${coll%_perf}
b=8 e=8 f=2 g=1 n=20 w=5 check=1
while [ $# -gt 0 ]; do
  case $1 in
    -b) b=$2; shift ;; -e) e=$2; shift ;; -f) f=$2; shift ;; -g) g=$2; shift ;;
    -n) n=$2; shift ;; -w) w=$2; shift ;; -c) check=$2; shift ;;
  esac
  shift
done
tobytes() { local v=$1; case $v in *K) echo $(( ${v%K} * 1024 ));; *M) echo $(( ${v%M} * 1048576 ));; *G) echo $(( ${v%G} * 1073741824 ));; *) echo "$v";; esac; }
b=$(tobytes "$b"); e=$(tobytes "$e")
code=${FAKE_NCCL_CODE:-22809}
log=${FAKE_LOG_DIR:?FAKE_LOG_DIR must be set}
mkdir -p "$log"
# the arm, as the environment shows it
tag=stock
[ -n "${NCCL_NUMA_CONFIG:-}" ] && tag="numa:$(basename "$NCCL_NUMA_CONFIG")"
[ -n "${NCCL_ALGO:-}" ] && tag="forced:${NCCL_ALGO}.${NCCL_PROTO:-}"
if [ "${NCCL_DEBUG:-}" = VERSION ]; then tag="probe"; fi
tuning=0
case ${NCCL_DEBUG:-}:${NCCL_DEBUG_SUBSYS:-} in INFO:*TUNING*) tuning=1 tag="probe" ;; esac
wrank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-}}
if [ -n "$wrank" ]; then
  host=${NN_FAKE_NODE:-${SLURMD_NODENAME:-$(hostname)}}
  echo "$wrank $host $tag ${NCCL_TUNER_PLUGIN:--} ${NCCL_NUMA_CONFIG:--}" >> "$log/ranks.log"
  for ((r = 0; r < g; r++)); do
    printf "#  Rank %2d Group  0 Pid  %5d on %10s device %2d [0000:%02x:00] NVIDIA SYNTHETIC GPU\n" \
      $((wrank * g + r)) $$ "$host" $r $((r + 1))
  done
  [ "$wrank" = 0 ] || exit 0
fi
seq=$(( $(cat "$log/count" 2>/dev/null || echo 0) + 1 )); echo $seq > "$log/count"
env > "$log/run-$seq.env"
echo "$seq $coll $tag" >> "$log/order.log"
# repeat index of this arm and collective: the same jitter pattern for every arm
key=$(echo "$coll-$tag" | tr -c 'A-Za-z0-9._\n-' '_')
rep=$(( $(cat "$log/rep-$key" 2>/dev/null || echo 0) + 1 )); echo $rep > "$log/rep-$key"

if [ "${FAKE_MODEL:-ab}" = calibrate ] && [ "$tag" = "forced:tree.ll128" ]; then
  echo "fakehost:1:1 [0] NCCL WARN Error : no algorithm/protocol available for function $coll"
  exit 3
fi
echo "# nccl-tests version 2.17.6 nccl-headers=$code nccl-library=$code"
echo "# Collective test starting: ${coll}_perf"
echo "# nThread 1 nGpus $g minBytes $b maxBytes $e step: $f(factor) warmup iters: $w iters: $n agg iters: 1 validation: $check graph: 0 unalign: 0"
echo "#"
echo "# Using devices"
for ((r = 0; r < g && ${#wrank} == 0; r++)); do
  printf "#  Rank %2d Group  0 Pid  %5d on   fakehost device %2d [0000:%02x:00] NVIDIA SYNTHETIC GPU\n" $r $$ $r $((r + 1))
done
[ "${NCCL_DEBUG:-}" = VERSION ] && echo "NCCL version $((code / 10000)).$(((code % 10000) / 100)).$((code % 100))+cuda13.0"
[ "${NCCL_DEBUG:-}" = INFO ] && echo "fakehost:1:1 [0] NCCL INFO NCCL version $((code / 10000)).$(((code % 10000) / 100)).$((code % 100))+cuda13.0"
# NCCL's tuning table (rank 0, at init), SYNTHETIC numbers in the layout of NCCL 2.23+'s
# src/graph/tuning.cc: blocks of three algorithms; "latency/bandwidth", bandwidth 0 = disabled.
tuning_table() {
  local algos=(Tree Ring CollNetDirect CollNetChain NVLS NVLSTree PAT) protos=(LL LL128 Simple)
  local pre="fakehost:1:7 [0] NCCL INFO " blk a p f line bw rows=0
  for ((blk = 0; blk < 7; blk += 3)); do
    line="  Algorithm   |"
    for ((a = blk; a < blk + 3 && a < 7; a++)); do line+=$(printf " %14s   %14s   %14s |" "" "${algos[a]}" ""); done
    echo "$pre$line"
    line="  Protocol    |"
    for a in 0 1 2; do for p in "${protos[@]}"; do line+=$(printf " %14s |" "$p"); done; done
    echo "$pre$line"
    line=" Max NThreads |"
    for ((a = blk; a < blk + 3 && a < 7; a++)); do line+=$(printf " %14d | %14d | %14d |" 512 640 512); done
    echo "$pre$line"
    for f in Broadcast Reduce AllGather ReduceScatter AllReduce; do
      line=$(printf "%13s |" "$f")
      for ((a = blk; a < blk + 3 && a < 7; a++)); do
        for p in "${protos[@]}"; do
          bw=0
          case ${algos[a]}:$p:$f in Ring:LL:*) bw=3.4 ;; Ring:Simple:*) bw=11.2 ;;
            Tree:LL:AllReduce) bw=2.9 ;; Tree:Simple:AllReduce) bw=9.8 ;; esac
          if [ "${FAKE_TUNING:-pcie}" = ll128 ]; then
            case ${algos[a]}:$p:$f in Ring:LL128:*) bw=8.6 ;; Tree:LL128:AllReduce) bw=7.4 ;; esac
          fi
          line+=$(printf "%8.1f/%6.1f |" "$((5 + a)).5" "$bw")
        done
      done
      rows=$((rows + 1))
      if [ "${FAKE_TUNING:-pcie}" = cut ] && [ $rows -eq 8 ]; then echo "$pre${line:0:40}"; return; fi
      echo "$pre$line"
    done
  done
}
[ $tuning = 1 ] && [ "${FAKE_TUNING:-pcie}" != none ] && tuning_table
echo "#"
echo "#                                                              out-of-place                       in-place"
echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)"
echo "fakehost:1:2 [0] NCCL INFO Channel 00/02 : 0 1"
# the chunk size nccl-numa's tuner serves at each size: "SIZE:CHUNK ..." (FAKE_CHUNK_FAST)
chunks=''
case ${NCCL_TUNER_PLUGIN:-}:${FAKE_CHUNK_FAST:-} in
  /*:?*)
    sizes=(); for ((s = b; s <= e; s *= f)); do sizes+=("$s"); [ "$s" = "$e" ] && break; done
    chunks=$(python3 "$(dirname "$(readlink -f "$0")")/plugin_chunk.py" "$NCCL_TUNER_PLUGIN" "$coll" \
      "${NCCL_ALGO:-ring}" "${NCCL_PROTO:-simple}" "$g" 131072 "${sizes[@]}" | tr ' \n' ': ') || exit 4 ;;
esac
awk -v b="$b" -v e="$e" -v f="$f" -v check="$check" -v tag="$tag" -v coll="$coll" -v rep="$rep" \
  -v model="${FAKE_MODEL:-ab}" -v chunks="$chunks" -v fast="$(tobytes "${FAKE_CHUNK_FAST:-0}")" \
  -v from="$(tobytes "${FAKE_CHUNK_FROM:-1M}")" '
function t_ab(s) {
  t = 20 + s / 1000
  if (tag ~ /^numa:a/ && s <= 512) t = 15 + s / 1000          # arm numa: faster at small sizes
  return t
}
function t_cal(s,   a) {
  if (tag ~ /^numa:chunk/) return 40 + s / 1000 - ((fast > 0 && served[s] == fast && s >= from) ? 10 : 0)
  a = substr(tag, 8)
  if (a == "ring.ll") return 10 + s / 100
  if (a == "ring.simple") return 30 + s / 1000
  if (a == "tree.simple") return (s >= 32768 && s <= 131072) ? 30 + s / 1000 : 50 + s / 500
  if (a == "tree.ll") return 12 + s / 100
  return 1.0                                                  # ll128: fast but wrong
}
BEGIN {
  n = split(chunks, kv, " ")
  for (i = 1; i <= n; i++) { split(kv[i], p, ":"); served[p[1]] = p[2] }
  for (s = b; s <= e; s *= f) {
    t = (model == "calibrate") ? t_cal(s) : t_ab(s)
    t += (rep - 2) * 0.05                                     # repeats 1,2,3: -0.05, 0, +0.05
    wrong = 0
    if (model == "calibrate" && tag ~ /ll128/) wrong = 5
    if (model == "ab" && tag ~ /^numa:off/ && coll == "all_gather" && s == 32768) wrong = 2
    w1 = check ? wrong : "N/A"; w2 = check ? 0 : "N/A"                # -c 0: no check, as nccl-tests prints it
    printf "%12d  %12d  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s\n", s, s / 4, "float", "sum", -1, t, s / t / 1000, s / t / 1000, w1, t, s / t / 1000, s / t / 1000, w2
    if (s == e) break
  }
}'
echo "# Out of bounds values : 0 OK"
echo "# Avg bus bandwidth    : 1.0"
echo "#"
echo "# Collective test concluded: ${coll}_perf"
