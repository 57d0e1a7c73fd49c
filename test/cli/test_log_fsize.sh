#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# No write of the plugin raises a signal in its host: with the JSON log at or near the
# process's file-size limit (`ulimit -f`), the append at tuner init used to raise SIGXFSZ
# and kill the host (exit 153); so did the topology file. Now nothing is written, a WARN
# says so, and the host lives. A JSON record is one whole line or nothing: a long config
# path and many rules used to overflow its buffer into a truncated, invalid line.
# The host is nn_plugin_lines, a stand-in for NCCL's plugin loading (env v2, tuner v6).
. "$(dirname "$0")/helpers/lib.sh"
[ -z "${NN_COVERAGE:-}" ] ||
  nn_skip "a coverage build writes its counts as the host exits: the file-size limit set here kills it"
nn_build_cli
host=${NN_BUILD:-build}/tools/nn_plugin_lines
nn_need_built "$host"
nn_tmp nn-fsize
T=$tmp
head='cpu vendor=AuthenticAMD family=25 model=17
numa 0 cpus=0-15
numa 1 cpus=16-31
gpu 0 bus=01:00.0 numa=1
gpu 1 bus=02:00.0 numa=1
gpu 2 bus=03:00.0 numa=0
gpu 3 bus=04:00.0 numa=0'
printf '%s\ntopology mode=off\nrule coll=allreduce bytes=0-64K algo=ring proto=ll\n' "$head" >"$T/off.conf"
printf '%s\ntopology mode=numa\n' "$head" >"$T/numa.conf"
mkdir -m 0700 "$T/xdg"

host_run() {   # host_run BLOCKS CONFIG LOG: the host under `ulimit -f BLOCKS` (1 block = 1024 bytes);
               # its output goes through a pipe, which the limit does not cover
  (ulimit -f "$1"; exec env -u NCCL_TOPO_FILE XDG_RUNTIME_DIR="$T/xdg" NCCL_NUMA_CONFIG="$2" \
     NCCL_NUMA_LOG_FILE="$3" timeout 20 "$host" "$SO" 4 1 2>&1) | cat >"$T/out"
  rc=${PIPESTATUS[0]}
}

head -c 2048 /dev/zero | tr '\0' x >"$T/full.json"
host_run 1 "$T/off.conf" "$T/full.json"
check "log above the limit: the host lives (exit 0, not 153)" "[ $rc -eq 0 ]"
check "log above the limit: WARN says the record was not written, and why" \
  "grep -q 'WARN nccl-numa: JSON record for comm .* not written: cannot append to NCCL_NUMA_LOG_FILE $T/full.json: File too large' '$T/out'"
check "log above the limit: file unchanged" "[ \$(stat -c %s '$T/full.json') -eq 2048 ]"

head -c 1000 /dev/zero | tr '\0' x >"$T/near.json"
host_run 1 "$T/off.conf" "$T/near.json"
check "record crossing the limit: the host lives" "[ $rc -eq 0 ]"
check "record crossing the limit: no part of the line written" "[ \$(stat -c %s '$T/near.json') -eq 1000 ]"

host_run 0 "$T/numa.conf" ""   # a 4-GPU topology is some 440 bytes
check "topology file over the limit: the host lives" "[ $rc -eq 0 ]"
check "topology file over the limit: WARN, nothing served" \
  "grep -q 'cannot write the topology file: .*File too large' '$T/out' && ! grep -q 'NCCL_TOPO_FILE set by environment' '$T/out'"

host_run unlimited "$T/off.conf" "$T/ok.json"
check "control: without the limit one record is appended" "[ \$(wc -l <'$T/ok.json') -eq 1 ]"
check "control: the record is valid JSON" "python3 -c 'import json,sys; json.loads(open(sys.argv[1]).read())' '$T/ok.json'"

# A config path of 200 control characters (6 bytes each in JSON) and 60 rules: the record
# is far larger than its first buffer; it must still be one whole, valid line.
long=$T/$(printf '\001%.0s' $(seq 200))
mkdir "$long"
{ printf '%s\ntopology mode=off\n' "$head"; for i in $(seq 1 60); do echo "rule coll=allreduce bytes=$((i * 64))-$((i * 64 + 31)) algo=ring proto=ll"; done; } >"$long/m.conf"
host_run unlimited "$long/m.conf" "$T/long.json"
check "long record: the host lives" "[ $rc -eq 0 ]"
check "long record: one line, valid JSON, every segment in it" \
  "python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r)==1; t=r[0][\"table\"]; assert sum(1 for s in t if s[\"rule\"].startswith(r[0][\"config\"][:40]))==60, len(t); assert r[0][\"config\"].endswith(\"/m.conf\")' '$T/long.json'"
check "long record: no truncation WARN" "! grep -q 'not written' '$T/out'"
# The same long path and 4,000 rules: every segment's rule location escaped makes a record
# of 5.3 MiB (which the 64 MiB buffer used to take). The buffer stops at 4 MiB: nothing is
# written, a WARN says why, the host lives.
{ printf '%s\ntopology mode=off\n' "$head"
  for i in $(seq 1 4000); do echo "rule coll=allreduce bytes=$((i * 64))-$((i * 64 + 31)) algo=ring proto=ll"; done
} >"$long/big.conf"
host_run unlimited "$long/big.conf" "$T/big.json"
check "record over 4 MiB: the host lives" "[ $rc -eq 0 ]"
check "record over 4 MiB: WARN, nothing written" \
  "grep -q 'JSON record for comm .* not written to $T/big.json: larger than 4 MiB' '$T/out' && [ ! -s '$T/big.json' ]"
nn_finish "no write of the plugin raises a signal; records whole"
