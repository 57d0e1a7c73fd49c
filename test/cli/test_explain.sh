#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain: what its golden cases (test/golden/explain) cannot hold: rules' effects across
# releases, forced algorithms, CSV rules, defaults, usage and errors.
set -u
cd "$(dirname "$0")/../.."
CLI=${NN_CLI:-${NN_BUILD:-build}/nccl-numa}
F=test/fixtures/explain/two-socket.conf
# NCCL's own view is predicted for this CPU, not the host's (see lib.sh).
export NCCL_NUMA_CPUINFO=test/fixtures/cpuinfo/intel-emerald-rapids
unset CUDA_VISIBLE_DEVICES NCCL_TOPO_FILE
fail=0
expect() {  # expect NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL $1"; diff <(echo "$2") <(echo "$3"); fail=1; else echo "ok $1"; fi
}

# Whole reports are golden cases (test/golden/explain: the intra and cross communicators, two
# nodes, each release's protocols, the reference machine at TP=8 and TP=4, 2.27, JSON, usage
# errors). The predictions there are NCCL's own (nccl-oracle built from v2.28.9-1 on these two
# files: 2+2 GPUs under Sapphire Rapids, 22 GB/s socket link; one flat CPU; gen5 x16 GPU links,
# Intel's 6/5 P2P cost). Here: what a golden file cannot hold.

$CLI explain --config $F --nccl-version 2.x >/dev/null 2>&1; expect "bad --nccl-version: usage" 2 $?
# a model line: said to have no effect on 2.31.x, where NCCL overwrites a tuner's constants
dm=$(mktemp -d)
{ cat $F; echo "model pci-latency-us=7"; } > "$dm/model.conf"
out=$($CLI explain --config "$dm/model.conf" --coll allreduce --nccl-version 2.31.2 | grep -A1 '^model:' | tail -1)
expect "model line on 2.31.2" "              no effect on NCCL 2.31.2: it copies its default constants over the tuner's after init (ncclTuningCostModelInit); nothing changes NCCL's choice on this release" "$out"
out=$($CLI explain --config "$dm/model.conf" --coll allreduce --nccl-version 2.32.3 | grep -c 'no effect')
expect "model line on 2.32.3" 0 "$out"
# channels= above NCCL's count: taken on 2.30.7 (the tuner's count replaces NCCL's), `no effect`
# from 2.31 (NCCL takes it only below its own: 4 for these 2 ranks, 2 channels per graph)
sed 's/channels=2/channels=8/' $F > "$dm/ch.conf"
out=$($CLI explain --config "$dm/ch.conf" --ranks 2 --coll allreduce --nccl-version 2.31.2 | grep -F "$dm/ch.conf:9")
expect "channels above NCCL's count on 2.31.2" "1 0" \
  "$(grep -cF "$dm/ch.conf:9 (NCCL's pick; channels=8: no effect, NCCL 2.31.2 only lowers its 4)" <<<"$out") $(grep -c 'ch=8' <<<"$out")"
out=$($CLI explain --config "$dm/ch.conf" --ranks 2 --coll allreduce --nccl-version 2.31.2 | grep '^tuner:')
expect "2.31.2 tuner semantics" "tuner:        NCCL 2.31.2 takes a rule's channels=N only below its own count for the call (it cannot raise it), and reads a negative cost as a time that can win" "$out"
out=$($CLI explain --config "$dm/ch.conf" --ranks 2 --coll allreduce --nccl-version 2.30.7)
expect "channels above NCCL's count on 2.30.7" "1 0" "$(grep -c 'ring/ll ch=8' <<<"$out") $(grep -c 'no effect' <<<"$out")"
sed 's/channels=2/channels=3/' $F > "$dm/ch3.conf"
out=$($CLI explain --config "$dm/ch3.conf" --ranks 2 --coll allreduce --nccl-version 2.32.3)
expect "channels below NCCL's count on 2.32.3" "1 0" "$(grep -c 'ring/ll ch=3' <<<"$out") $(grep -c 'no effect' <<<"$out")"
rm -rf "$dm"

# chunk= rules: shown after the rule that decided, for the algorithm and protocol that run (the
# ring/simple one does not apply where line 10 makes it tree/simple)
dm=$(mktemp -d)
{ cat $F; echo "rule coll=allreduce bytes=1M- algo=ring proto=simple chunk=256K"; echo "rule coll=allreduce bytes=64K- chunk=128K"; } > "$dm/chunk.conf"
out=$($CLI explain --config "$dm/chunk.conf" --ranks 2 --coll allreduce --nccl-version 2.30.7)
expect "chunk rules shown" "1 0 4" "$(grep -c "^  1 MiB - 4 GiB .*$dm/chunk.conf:10; chunk=128K from $dm/chunk.conf:13$" <<<"$out") $(grep -c 'chunk=256K' <<<"$out") $(grep -c 'chunk=128K from' <<<"$out")"
expect "no chunk below 64 KiB" "0" "$(grep '^  1 B - ' <<<"$out" | grep -c 'chunk=')"
out=$($CLI explain --config "$dm/chunk.conf" --ranks 2 --coll allreduce --nccl-version 2.28.9)
expect "chunk rules before getChunkSize (2.28.9)" "4" "$(grep -c 'chunk=128K from .*(no effect: NCCL 2.28.9 asks no tuner for chunk sizes)$' <<<"$out")"
rm -rf "$dm"

# NCCL_ALGO / NCCL_PROTO decide before any tuner: named in the header, and the tables NCCL hands the
# tuner lose what they leave out, so the rule choosing tree (line 10) no longer fires
out=$(NCCL_ALGO=allreduce:ring $CLI explain --config $F --ranks 2 --coll allreduce --nccl-version 2.28.9)
expect "NCCL_ALGO named" "forced:       NCCL_ALGO=allreduce:ring (from the environment) decides before any tuner for allreduce: 1 rule choosing what it leaves out cannot fire there (first $F:10)" "$(grep '^forced:' <<<"$out")"
expect "NCCL_ALGO: the tree rule does not fire" "0 1" "$(grep -c "^  .*$F:10" <<<"$out") $(grep -c '^  512 KiB - 4 GiB .*ring/simple .*NCCL.s choice$' <<<"$out")"
out=$(env -u NCCL_ALGO $CLI explain --config $F --ranks 2 --coll allreduce --nccl-version 2.28.9)
expect "neither set: no forced line, the tree rule fires" "0 1" "$(grep -c '^forced:' <<<"$out") $(grep -c "^  .*$F:10" <<<"$out")"
dm=$(mktemp -d)
{ cat $F; echo "env NCCL_PROTO=simple"; } > "$dm/proto.conf"
out=$(env -u NCCL_PROTO $CLI explain --config "$dm/proto.conf" --ranks 4 --nodes 2 --coll allreduce)
expect "env line's NCCL_PROTO, no cost model" "forced:       NCCL_PROTO=simple (from $dm/proto.conf:12's env line) decides before any tuner for broadcast, reduce, allgather, reducescatter, allreduce: 1 rule choosing what it leaves out cannot fire there (first $dm/proto.conf:9)
  1 B - 512 KiB          NCCL default                         NCCL default" "$(grep -E '^forced:|^  1 B' <<<"$out")"
rm -rf "$dm"

# The reference machine (docs/examples/proxmox-epyc-8gpu.conf, NCCL's own view on AMD Turin; its
# reports for all eight GPUs and for one socket's four are golden cases): CUDA_VISIBLE_DEVICES is
# the default of --visible-devices, and an empty list means the whole mapping.
R=docs/examples/proxmox-epyc-8gpu.conf
T=test/fixtures/cpuinfo/amd-turin
a=$(CUDA_VISIBLE_DEVICES=4,5,6,7 $CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9)
b=$($CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9 --visible-devices 4,5,6,7)
[ "$a" = "$b" ] && echo "ok CUDA_VISIBLE_DEVICES is the default of --visible-devices" || { echo "FAIL CUDA_VISIBLE_DEVICES not honoured"; fail=1; }
out=$(CUDA_VISIBLE_DEVICES=4,5,6,7 $CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9 --visible-devices "" | sed -n 2p)
expect "--visible-devices '': the whole mapping" "communicator: 8 ranks on 1 node(s): scope cross; 4 of 6 rules can apply" "$out"

$CLI explain --help | grep -q 'usage: nccl-numa explain' && echo "ok help" || { echo "FAIL help"; fail=1; }
# No --config: found as the plugin finds it (NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf).
NCCL_NUMA_CONFIG=$F $CLI explain --coll allreduce | head -1 | grep -qF "config:       $F (" \
  && echo "ok NCCL_NUMA_CONFIG found without --config" || { echo "FAIL NCCL_NUMA_CONFIG not used"; fail=1; }
if [ ! -e /etc/nccl-numa.conf ]; then
  err=$(env -u NCCL_NUMA_CONFIG $CLI explain 2>&1 >/dev/null); rc=$?
  expect "no mapping anywhere: exit 1" 1 $rc
  grep -qF "nccl-numa explain: no mapping: give --config FILE, set NCCL_NUMA_CONFIG, or create /etc/nccl-numa.conf" <<<"$err" \
    && echo "ok no mapping: says where it looked" || { echo "FAIL no mapping message: $err"; fail=1; }
fi
# A positional argument is not the mapping: say so, not only the usage text.
err=$($CLI explain "$F" 2>&1 >/dev/null); rc=$?
expect "positional FILE: usage exit" 2 $rc
# Both spellings of a collective; a wrong one lists the valid names.
a=$($CLI explain --config $F --coll allreduce); b=$($CLI explain --config $F --coll all_reduce)
[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok --coll all_reduce = allreduce" || { echo "FAIL all_reduce spelling"; fail=1; }
$CLI explain --config $F --coll nonsense >/dev/null 2>&1; expect "bad collective: usage" 2 $?
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
printf 'gpu 0 bus=01:00.0 numa=0\nrule coll=allreduce\n' > "$d/bad.conf"
err=$($CLI explain --config "$d/bad.conf" 2>&1 >/dev/null); rc=$?
expect "bad config: exit 1" 1 $rc
grep -q "$d/bad.conf:2:" <<<"$err" && echo "ok bad config names file:line" || { echo "FAIL bad config message: $err"; fail=1; }
# NCCL_TUNER_CONFIG_FILE: the plugin uses its rules when the mapping has none; so does explain.
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\n' > "$d/norules.conf"
printf 'allreduce,0,65536,ring,ll,-1,1,-1\n' > "$d/rules.csv"
out=$(NCCL_TUNER_CONFIG_FILE="$d/rules.csv" $CLI explain --config "$d/norules.conf" --coll all_reduce)
grep -qF "csv rules:    NCCL_TUNER_CONFIG_FILE $d/rules.csv (used: the mapping has no rules of its own)" <<<"$out" \
  && grep -qE "^  1 B - 64 KiB +ring/ll +[0-9.-]+ +ring/ll +[0-9.-]+ +$d/rules.csv:1 \(same as NCCL's\)\$" <<<"$out" \
  && grep -qE "^  128 KiB - 256 KiB +ring/ll +[0-9.-]+ +ring/ll +[0-9.-]+ +NCCL's choice\$" <<<"$out" \
  && echo "ok NCCL_TUNER_CONFIG_FILE rules explained as the plugin applies them" \
  || { echo "FAIL NCCL_TUNER_CONFIG_FILE ignored: $out"; fail=1; }
out=$(NCCL_TUNER_CONFIG_FILE="$d/rules.csv" $CLI explain --config $F --coll allreduce)
grep -qF "(not used: the mapping has rules)" <<<"$out" && ! grep -q "rules.csv:" <<<"$out" \
  && echo "ok the mapping's own rules win over the CSV" || { echo "FAIL CSV used over the mapping: $out"; fail=1; }
# A malformed CSV is named, with its line, as the culprit; the valid mapping is not blamed.
printf 'allreduce,0,65536,ring,ll,-1,1,-1\nallreduce,0,10,bogus,simple,2,1,-1\n' > "$d/bad.csv"
err=$(NCCL_TUNER_CONFIG_FILE="$d/bad.csv" $CLI explain --config "$d/norules.conf" 2>&1 >/dev/null); rc=$?
expect "bad CSV: exit 1" 1 $rc
grep -qF "$d/bad.csv:2: unknown algorithm 'bogus'" <<<"$err" && grep -qF "$d/bad.csv: invalid (1 problem)" <<<"$err" \
  && ! grep -q "norules.conf: invalid" <<<"$err" \
  && echo "ok bad CSV named with its line" || { echo "FAIL bad CSV message: $err"; fail=1; }
# topology mode=numa on the reference machine (Turin): the file NCCL's model rates 480x slower at
# 4 GiB is served, and said so with the factor; the wide times keep their columns.
ref=docs/examples/proxmox-epyc-8gpu.conf
sed 's/^topology mode=auto/topology mode=numa/' $ref > "$d/numa.conf"
out=$(NCCL_NUMA_CPUINFO=test/fixtures/cpuinfo/amd-turin $CLI explain --config "$d/numa.conf" --nccl-version 2.28.9 --coll allreduce)
grep -qxF "topology:     WARNING: topology mode=numa serves a file NCCL's model rates worse (NCCL 2.28.9): NCCL's model makes a 4 GiB all-reduce 480x slower with this file than with its own view; \`topology mode=auto\` would withhold it, so keep mode=numa only where \`nccl-numa ab\` measures it faster" <<<"$out" \
  && echo "ok mode=numa: the WARNING gives NCCL's modelled factor" || { echo "FAIL mode=numa warning: $out"; fail=1; }
# every row's columns start where the header's do (the last column is "decided by")
hdr=$(grep -m1 "^  size " <<<"$out")
col=$(( $(awk -v h="$hdr" 'BEGIN { print index(h, "decided by") }') - 1 ))
rows=$(sed -n '/^  size /,/^summary:/p' <<<"$out" | tail -n +2 | grep '^  [0-9]')
bad=$(while IFS= read -r r; do [ "${r:col-1:1}" = " " ] && [ "${r:col:1}" != " " ] || echo "$r"; done <<<"$rows")
[ -n "$rows" ] && [ -z "$bad" ] && grep -q "75162008.0" <<<"$rows" \
  && echo "ok wide modelled times keep the table's columns" || { echo "FAIL columns broken: $bad"; fail=1; }
# NCCL older than 2.28.7 has no env plugin: no verdict as if it applied, NCCL's own view modelled
out=$(NCCL_NUMA_CPUINFO=test/fixtures/cpuinfo/amd-turin $CLI explain --config "$d/numa.conf" --nccl-version 2.27.5 --coll allreduce)
grep -qxF "topology:     no topology served: NCCL 2.27.5 has no env plugin (it came in 2.28.7), so neither the topology nor the mapping's \`env\` lines can apply (the rules do, through the tuner); to give NCCL the file anyway: nccl-numa topo --config FILE -o FILE.xml, then NCCL_TOPO_FILE=FILE.xml" <<<"$out" \
  && grep -qF "cost model:   NCCL 2.27.5 on its own view:" <<<"$out" && ! grep -q "topology served: mode=numa" <<<"$out" \
  && grep -qF "WARNING: NCCL_TOPO_FILE set to this file would be rated worse (NCCL 2.27.5): NCCL's model makes a 4 GiB all-reduce 480x slower" <<<"$out" \
  && echo "ok 2.27.5: no env plugin, said instead of the verdict" || { echo "FAIL 2.27.5: $out"; fail=1; }
# A proto=ll128 rule where the release keeps LL128 off between PCIe-only GPUs cannot take
# effect: explain says so per rule, and only on such a release (2.31.0 dev turns it on).
lld=$(mktemp -d) llc=$lld/ll128.conf   # in a directory of its own: /tmp itself is not trusted
{ cat "$R"; echo "rule coll=allreduce bytes=1M-8M algo=ring proto=ll128"; } > "$llc"
ll_line=$(($(wc -l < "$llc")))
for rel in 2.28.9 2.31.2; do
  $CLI explain --config "$llc" --cpuinfo $T --nccl-version $rel | grep -qxF "rules:        $llc:$ll_line: proto=ll128 cannot take effect on NCCL $($CLI explain --config "$llc" --cpuinfo $T --nccl-version $rel | sed -n 's/^protocols:    NCCL \(.*\) enables .*/\1/p'): it keeps ll128 off between PCIe-only GPUs, and a tuner chooses only among the protocols NCCL enabled" \
    && echo "ok $rel: the ll128 rule is marked as unable to take effect" || { echo "FAIL $rel: no ll128 note"; fail=1; }
done
$CLI explain --config "$llc" --cpuinfo $T --nccl-version 2.31.0 | grep -q "^rules:.*proto=ll128 cannot" \
  && { echo "FAIL 2.31.0: ll128 marked although that release enables it"; fail=1; } || echo "ok 2.31.0: ll128 not marked (the release enables it over PCIe)"
rm -rf "$lld"
exit $fail
