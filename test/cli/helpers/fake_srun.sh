#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Stand-in for Slurm's srun, written for nccl-numa's tests (there is no Slurm here).
# Install it as `srun` on PATH. It appends its arguments, one a line, then a line
# "--", to FAKE_SRUN_LOG, and starts the program the way srun would for the subset
# nccl-numa uses: --nodes=N --ntasks-per-node=R --export=ALL,NAME=VALUE,... give
# N*R tasks with SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS and
# SLURMD_NODENAME=fake-nodeK, in srun's environment plus the exported values.
# Other options are refused, so a test notices an argv it did not expect.
set -u
: "${FAKE_SRUN_LOG:?FAKE_SRUN_LOG must be set}"
{ printf '%s\n' "$@"; echo --; } >> "$FAKE_SRUN_LOG"
nodes=1 per=1 exports=()
while [ $# -gt 0 ]; do
  case $1 in
    --nodes=*) nodes=${1#*=} ;;
    --ntasks-per-node=*) per=${1#*=} ;;
    --export=ALL*) IFS=, read -r -a exports <<<"${1#--export=ALL}" ;;
    --*) echo "fake srun: unexpected option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[ $# -gt 0 ] || { echo "fake srun: no program" >&2; exit 2; }
pids=()
for ((n = 0; n < nodes; n++)); do
  for ((l = 0; l < per; l++)); do
    env "${exports[@]:1}" SLURM_PROCID=$((n * per + l)) SLURM_LOCALID=$l SLURM_NODEID=$n \
      SLURM_NTASKS=$((nodes * per)) SLURMD_NODENAME=fake-node$n "$@" &
    pids+=($!)
  done
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
exit $rc
