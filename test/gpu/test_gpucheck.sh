#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every assertion of the GPU kit (nn_gpucheck) on NCCL log excerpts in the formats of
# NCCL 2.28.9 and 2.30.7: it passes on the excerpt that shows the effect, and fails
# (or says N/A) on one where the effect is missing, so none of them can pass blindly.
. "$(dirname "$0")/../cli/helpers/lib.sh"
cd "$root" || exit 1
G=${NN_BUILD:-build}/tools/nn_gpucheck
nn_need_built "$G"
nn_tmp nn-gpucheck
L=test/fixtures/nccl-logs
T=$tmp
expect() {   # expect RC NAME -- ARGS...: nn_gpucheck ARGS exits RC
  local want=$1 name=$2; shift 3
  "$G" "$@" >"$T/out" 2>&1
  local rc=$?
  check "$name (exit $want)" "[ $rc -eq $want ] || { cat '$T/out'; false; }"
}
mut() { sed "$2" "$L/$1" > "$T/$1.mut"; echo "$T/$1.mut"; }

# A mapping for the fixtures' GPU (0000:17:00.0 on node 1) and one that places it wrong.
printf 'gpu 0 bus=17:00.0 numa=1\ntopology mode=numa\n' > "$T/one-rank.conf"
printf 'gpu 0 bus=17:00.0 numa=0\ntopology mode=numa\n' > "$T/wrong-node.conf"
sed "s|/work/kit/one-rank.conf|$T/one-rank.conf|g" "$L/2.28.9-one-rank.log" > "$T/228.log"
sed "s|/work/kit/one-rank.conf|$T/one-rank.conf|g" "$L/2.30.7-one-rank.log" > "$T/230.log"

for v in 2.28.9 2.30.7; do
  expect 0 "plugins $v" -- plugins "$L/$v-one-rank.log"
  expect 1 "plugins $v: tuner from another plugin" -- plugins "$(mut $v-one-rank.log 's/TUNER\/Plugin: Using nccl-numa/TUNER\/Plugin: Using other/')"
  expect 1 "plugins $v: no env plugin line" -- plugins "$(mut $v-one-rank.log '/ENV\/Plugin: Using/d')"
  expect 1 "plugins $v: no NCCL version line (not INFO)" -- plugins "$(mut $v-one-rank.log '/NCCL version/d')"
  expect 0 "topo-file $v" -- topo-file "$L/$v-one-rank.log"
  expect 1 "topo-file $v: NCCL read another file" -- topo-file "$(mut $v-one-rank.log 's/set by environment to \/proc\/self\/fd\/[0-9]*/set by environment to \/tmp\/mine.xml/')"
  expect 1 "topo-file $v: nothing served" -- topo-file "$(mut $v-one-rank.log '/: NCCL_TOPO_FILE=/d')"
  expect 0 "tuning $v: rules below/above 64 KiB ran" -- tuning "$L/$v-two-ranks-rules.log" --coll allreduce --nranks 2 --expect 0-65535=ring/simple --expect 65536-=ring/ll
  expect 0 "tuning $v: all-gather compared by the tuner's nBytes (ranks x logged part)" -- tuning "$L/$v-two-ranks-rules.log" --coll allgather --nranks 2 --expect 0-65535=ring/simple --expect 65536-=ring/ll
  expect 1 "tuning $v: all-gather by the logged part alone is wrong" -- tuning "$L/$v-two-ranks-rules.log" --coll allgather --nranks 1 --expect 0-65535=ring/simple --expect 65536-=ring/ll
  expect 1 "tuning $v: plugin-off log does not follow the rules" -- tuning "$L/$v-two-ranks-off.log" --coll allreduce --nranks 2 --expect 0-65535=ring/simple --expect 65536-=ring/ll
  expect 1 "tuning $v: one call against the rule" -- tuning "$(mut $v-two-ranks-rules.log '0,/AllReduce: 131072 Bytes -> Algo RING proto LL/s//AllReduce: 131072 Bytes -> Algo TREE proto LL/')" --coll allreduce --nranks 2 --expect 0-65535=ring/simple --expect 65536-=ring/ll
  expect 1 "tuning $v: a range with no call" -- tuning "$L/$v-two-ranks-rules.log" --coll allreduce --nranks 2 --expect 0-65535=ring/simple --expect 4G-=ring/ll
  expect 0 "tuning-own $v: NCCL's own choice shown and changed by the rules" -- tuning-own "$L/$v-two-ranks-rules.log" "$L/$v-two-ranks-off.log" --coll allreduce --nranks 2
  expect 1 "tuning-own $v: nothing changed" -- tuning-own "$L/$v-two-ranks-rules.log" "$L/$v-two-ranks-rules.log" --coll allreduce --nranks 2
  expect 1 "tuning-own $v: a size missing from the plugin-off log" -- tuning-own "$L/$v-two-ranks-rules.log" "$(mut $v-two-ranks-off.log '/AllReduce: 512 Bytes/d')" --coll allreduce --nranks 2
done
expect 0 "init 2.28.9 (env plugin v1 line on stderr)" -- init "$T/228.log" --config "$T/one-rank.conf"
expect 0 "init 2.30.7" -- init "$T/230.log" --config "$T/one-rank.conf"
expect 1 "init: another mapping" -- init "$T/228.log" --config "$T/wrong-node.conf"
sed '/tuner v5, config/d' "$T/228.log" > "$T/228-notuner.log"
expect 1 "init: no tuner INIT line" -- init "$T/228-notuner.log" --config "$T/one-rank.conf"
sed 's/(ok), hash/(rejected), hash/' "$T/228.log" > "$T/228-rejected.log"
expect 1 "init: mapping rejected by the env plugin" -- init "$T/228-rejected.log" --config "$T/one-rank.conf"
expect 0 "dump: GPU under the mapped node's CPU" -- dump "$L/dump-two-cpus.xml" --config "$T/one-rank.conf"
expect 1 "dump: GPU under another CPU than mapped" -- dump "$L/dump-two-cpus.xml" --config "$T/wrong-node.conf"
expect 1 "dump: GPU missing" -- dump "$(mut dump-two-cpus.xml 's/busid="0000:17:00.0"/busid="0000:18:00.0"/')" --config "$T/one-rank.conf"
expect 0 "cpu-link 2.28.9: AMD socket link 16 GB/s as modelled" -- cpu-link "$L/2.28.9-one-rank.log" --dump "$L/dump-two-cpus.xml"
expect 1 "cpu-link: NCCL modelled another bandwidth" -- cpu-link "$(mut 2.28.9-one-rank.log 's/SYS\[16.0\] - CPU\/0-1/SYS[22.0] - CPU\/0-1/')" --dump "$L/dump-two-cpus.xml"
expect 1 "cpu-link: Intel Sapphire Rapids would be 22, not 16" -- cpu-link "$L/2.28.9-one-rank.log" --dump "$(mut dump-two-cpus.xml 's/vendor="AuthenticAMD" familyid="25" modelid="17"/vendor="GenuineIntel" familyid="6" modelid="143"/')"
expect 77 "cpu-link 2.30.7: one CPU, nothing to compare (N/A, not PASS)" -- cpu-link "$L/2.30.7-one-rank.log" --dump "$L/dump-two-cpus.xml"
expect 1 "cpu-link: no topology print (GRAPH off)" -- cpu-link "$(mut 2.28.9-one-rank.log '/=== System/d')" --dump "$L/dump-two-cpus.xml"
# The real plugin's lines, loaded by a stand-in for NCCL 2.30.7's plugin loading (no GPU).
P=${NN_BUILD:-build}/tools/nn_plugin_lines
nn_need_built "$P"
SO=$(readlink -f "${NN_BUILD:-build}/libnccl-tuner-numa.so")
mkdir -m 0700 "$T/xdg"
printf 'gpu 0 bus=17:00.0 numa=0\ncpu vendor=AuthenticAMD family=25 model=17\ntopology mode=numa\n' > "$T/real.conf"
printf 'gpu 0 bus=17:00.0 numa=0\ncpu vendor=AuthenticAMD family=25 model=17\ntopology mode=off\n' > "$T/off.conf"
lines() {   # lines CONFIG OUT: the plugin's and the stand-in's log for one init
  env -u NCCL_TOPO_FILE XDG_RUNTIME_DIR="$T/xdg" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING \
    NCCL_NUMA_CONFIG="$1" "$P" "$SO" 1 1 > "$2" 2>&1
}
lines "$T/real.conf" "$T/real.log"
expect 0 "real plugin: plugins" -- plugins "$T/real.log"
expect 0 "real plugin: init names the mapping (same hash in both plugins)" -- init "$T/real.log" --config "$T/real.conf"
expect 0 "real plugin: topo-file served and read" -- topo-file "$T/real.log"
lines "$T/off.conf" "$T/off.log"
expect 1 "real plugin, topology mode=off: nothing served" -- topo-file "$T/off.log"
lines "$T/missing.conf" "$T/missing.log"
expect 1 "real plugin, no mapping: no INIT line naming it" -- init "$T/missing.log" --config "$T/real.conf"
sed 's/\(env plugin v2 .* hash \)[0-9a-f]*/\1deadbeef/' "$T/real.log" > "$T/hash.log"
expect 1 "init: env and tuner read different versions (hash)" -- init "$T/hash.log" --config "$T/real.conf"

expect 2 "usage: unknown check" -- frobnicate "$L/2.28.9-one-rank.log"
expect 2 "usage: bad --expect" -- tuning "$L/2.28.9-two-ranks-rules.log" --coll allreduce --nranks 2 --expect 0-64K=ring/bogus
nn_finish "nn_gpucheck: every assertion passes and fails where it should"
