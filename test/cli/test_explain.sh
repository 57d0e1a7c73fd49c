#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain: exact tables for an intra and a cross communicator; usage and errors.
set -u
cd "$(dirname "$0")/../.."
CLI=${NN_CLI:-build/nccl-numa}
F=test/fixtures/explain/two-socket.conf
# NCCL's own view is predicted for this CPU, not the host's (see lib.sh).
export NCCL_NUMA_CPUINFO=test/fixtures/cpuinfo/intel-emerald-rapids
unset CUDA_VISIBLE_DEVICES NCCL_TOPO_FILE
fail=0
expect() {  # expect NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL $1"; diff <(echo "$2") <(echo "$3"); fail=1; else echo "ok $1"; fi
}

# The predictions are NCCL's own (nccl-oracle built from v2.28.9-1 on these two files: 2+2 GPUs
# under Sapphire Rapids, 22 GB/s socket link; one flat CPU; gen5 x16 GPU links, Intel's 6/5 P2P cost).
out=$($CLI explain --config $F --ranks 2 --coll allreduce --nccl-version 2.28.9)
expect "intra allreduce" "config:       $F (4 GPUs: NUMA0=2 NUMA1=2; 3 rules)
note:         2 ranks, but the job sees all 4 GPUs of the mapping; a server that uses
              some of them sees only those: give them with --visible-devices (e.g. 0,1)
communicator: 2 ranks on 1 node(s): scope intra; 2 of 3 rules can apply
topology:     release: NCCL 2.28.9, from --nccl-version
topology:     no topology served (mode=auto, NCCL 2.28.9): NCCL's search on the served file (ring 2 x 11.0 GB/s, 2 socket crossings | tree 2 x 20.0 GB/s) would be worse than on its own view (ring 2 x 20.0 GB/s, 0 socket crossings | tree 2 x 20.0 GB/s). NCCL's model makes a 64 MiB all-reduce 79% slower with this file than with its own view; serve it anyway (\`topology mode=numa\`) only where \`nccl-numa ab\` measures it faster
topology:     GPU link: 48 GB/s as NCCL models it (assumed gen5 x16: not in sysfs, no pcie= in the mapping); compute capability 9.0; search floor 3 GB/s
topology:     predicted search (NCCL 2.28.9):
topology:       served file (2 CPU nodes):  ring 2 x 11.0 GB/s, 2 socket crossings | tree 2 x 20.0 GB/s
topology:       NCCL's own view:           ring 2 x 20.0 GB/s, 0 socket crossings | tree 2 x 20.0 GB/s
              (CPU GenuineIntel family 6 model 143; modelled socket link 22 GB/s)
              (NCCL's own view: CPU GenuineIntel family 6 model 207 from test/fixtures/cpuinfo/intel-emerald-rapids)
protocols:    NCCL 2.27-2.28 enables ll, simple by default between PCIe-only GPUs
tuner:        NCCL 2.27-2.28 lets a rule's channels=N replace its own count (up to the communicator's channels), and reads a negative cost as disabled
cost model:   NCCL 2.28.9 on its own view: ring 2 x 20.0 GB/s, tree 2 x 20.0 GB/s; LL128 off; NCCL's default constants (graphs predicted for the mapping's 4 GPUs)
              * = a rule overrides NCCL's choice; vs NCCL = the rule's choice under NCCL's model

allreduce
  size                NCCL picks        modelled us   with the plugin        modelled us vs NCCL       decided by
  1 B - 64 KiB        ring/ll              8.6-11.9   ring/ll ch=2              8.6-11.9               $F:9 (NCCL's pick, the rule's channels)
  128 KiB - 256 KiB   ring/ll             15.2-21.7   ring/ll                  15.2-21.7               NCCL's choice
  512 KiB             ring/simple              32.9   ring/simple                   32.9               NCCL's choice
  1 MiB - 4 GiB       ring/simple     46.0-107394.0 * tree/simple         130.4-233438.5 +183%..+117%  $F:10

summary: what nccl-numa changes for this job on NCCL 2.28.9: NCCL gets no topology file: with it
  NCCL would find slower rings and trees by its own model, so it is not given and NCCL uses its own
  detection, which pins no CPUs (with the file: ring 2 x 11.0 GB/s, tree 2 x 20.0 GB/s; without it:
  ring 2 x 20.0 GB/s, tree 2 x 20.0 GB/s); a job whose GPUs all sit on one NUMA node
  (CUDA_VISIBLE_DEVICES set to one socket's GPUs, \`--visible-devices\`) gets the file; all 2 rules
  that apply change NCCL's own choice (allreduce 1 B - 64 KiB, allreduce 1 MiB - 4 GiB); there are
  no \`env\` lines. GPU peer-to-peer is off (no \`p2p\` line): every transfer between GPUs goes through
  host memory. In a VM it is the largest gain left (public reports, not measured here: 15.2 -> 1.0
  us a transfer), once tested: docs/user/p2p.md. Next: measure on the GPUs with
  \`nccl-numa calibrate\`, whose rules change NCCL's choice only where the measurements beat it." "$out"

# NCCL's enabled protocols per release: LL128 only on the 2.31 development branch (released 2.31.2
# and 2.32.3 check it for the default setting too)
out=$($CLI explain --config $F --ranks 2 --coll allreduce --nccl-version 2.31.0 | grep '^protocols:')
expect "2.31.0 protocols" "protocols:    NCCL 2.31.0 (dev) enables ll, ll128, simple by default between PCIe-only GPUs" "$out"
out=$($CLI explain --config $F --ranks 2 --coll allreduce --nccl-version 2.31.2 | grep '^protocols:')
expect "2.31.2 protocols" "protocols:    NCCL 2.31.2 enables ll, simple by default between PCIe-only GPUs" "$out"
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

# NCCL's choice under its model (nccl_cost, checked against NCCL's own code in test_nccl_cost) beside
# the rule's: ring 2 x 20 GB/s on 4 ranks, 2.28.9 (allgather 8 KiB ring/ll: 6.6 + 3 x 1.0 us + ...).
out=$($CLI explain --config $F --ranks 4 --coll allgather --nccl-version 2.28.9 | sed -n '/^allgather$/,/^$/p' | sed '$d')
expect "cross allgather" "allgather
  size                NCCL picks        modelled us   with the plugin        modelled us vs NCCL       decided by
  1 B - 512 KiB       ring/ll              9.6-29.3 * ring/simple              25.5-35.3 +166%..+21%   $F:11
  1 MiB - 4 GiB       ring/simple      45.2-80556.1   ring/simple           45.2-80556.1               $F:11 (same as NCCL's)" "$out"

out=$($CLI explain --config $F --ranks 4 --nodes 2 --coll allreduce --nccl-version 2.28.9 | grep '^cost model')
expect "two nodes: NCCL's choice not modelled, said" "cost model:   NCCL's choice not modelled for 2 nodes: the inter-node graphs (NICs) are not predicted" "$out"
out=$($CLI explain --config $F --ranks 4 --nodes 2 --coll allreduce --nccl-version 2.28.9 | grep '^table:')
expect "two nodes: the rules on the PCIe-only table" "table:        NCCL's PCIe-only table (ring x ll, simple; tree x ll, simple for allreduce; the rest disabled)" "$out"
out=$($CLI explain --config $F --ranks 3 --nodes 2 --coll allreduce | sed -n 2p)
expect "unknown scope" "communicator: 3 ranks on 2 node(s): scope unknown; 1 of 3 rules can apply" "$out"

# The reference machine (docs/examples/proxmox-epyc-8gpu.conf, NCCL's own view on AMD Turin): all
# eight GPUs change nothing on 2.28.9 (the two-socket file fails NCCL's search); one socket's four
# (--visible-devices, or CUDA_VISIBLE_DEVICES) get the one-node file, which NCCL's own code rates the
# same as its flat view (test/fixtures/nccl-cost/visible-facts.txt), with that node's affinity.
R=docs/examples/proxmox-epyc-8gpu.conf
T=test/fixtures/cpuinfo/amd-turin
summary() { sed -n '/^summary:/,$p' | tr '\n' ' ' | sed 's/   */ /g'; }
out=$($CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9 | summary)
grep -qF "summary: nccl-numa changes nothing for this job on NCCL 2.28.9: NCCL gets no topology file: with it NCCL would find no working ring, so it is not given and NCCL uses its own detection, which pins no CPUs (with the file: failed ring and tree searches" <<<"$out" \
  && grep -qF "Next: measure on the GPUs with \`nccl-numa calibrate\`" <<<"$out" \
  && echo "ok reference TP=8: changes nothing, says why and what next" || { echo "FAIL reference TP=8 summary: $out"; fail=1; }
for vd in 0,1,2,3 4,5,6,7; do
  node=$([ $vd = 0,1,2,3 ] && echo 1 || echo 0)
  for rel in 2.28.9 2.31.2; do
    full=$($CLI explain --config $R --cpuinfo $T --nccl-version $rel --visible-devices $vd)
    out=$(summary <<<"$full")
    grep -qF "devices:      CUDA_VISIBLE_DEVICES=$vd: 4 GPUs, all on NUMA node $node; NCCL keeps only these of the file, so they are judged alone" <<<"$full" \
      && grep -qF "communicator: 4 ranks on 1 node(s): scope intra" <<<"$full" \
      && grep -qF "served file (1 CPU node):  ring 2 x 24.0 GB/s, 0 socket crossings | tree 2 x 24.0 GB/s" <<<"$full" \
      && grep -qF "summary: what nccl-numa changes for this job on NCCL $rel: NCCL gets the topology file, which leaves its rings and trees as they are (ring 2 x 24.0 GB/s, tree 2 x 24.0 GB/s); it pins NCCL's threads to the CPUs of NUMA node $node;" <<<"$out" \
      && echo "ok reference TP=4 on $vd, $rel: the one-node file, same search results, the node's affinity" \
      || { echo "FAIL reference TP=4 on $vd, $rel: $full"; fail=1; }
  done
done
a=$(CUDA_VISIBLE_DEVICES=4,5,6,7 $CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9)
b=$($CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9 --visible-devices 4,5,6,7)
[ "$a" = "$b" ] && echo "ok CUDA_VISIBLE_DEVICES is the default of --visible-devices" || { echo "FAIL CUDA_VISIBLE_DEVICES not honoured"; fail=1; }
out=$(CUDA_VISIBLE_DEVICES=4,5,6,7 $CLI explain --config $R --cpuinfo $T --nccl-version 2.28.9 --visible-devices "" | sed -n 2p)
expect "--visible-devices '': the whole mapping" "communicator: 8 ranks on 1 node(s): scope cross; 4 of 6 rules can apply" "$out"
out=$($CLI explain --config $R --cpuinfo $T --nccl-version 2.27.3 | summary)
grep -qF "nccl-numa changes nothing for this job on NCCL 2.27.3: NCCL 2.27.3 has no env plugin (it arrived in 2.28.7)" <<<"$out" \
  && echo "ok NCCL 2.27: no env plugin, said" || { echo "FAIL 2.27 summary: $out"; fail=1; }

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
grep -qF "nccl-numa explain: unexpected argument '$F' (give the mapping with --config FILE)" <<<"$err" \
  && echo "ok positional FILE: says what is wrong" || { echo "FAIL positional message: $err"; fail=1; }
# Both spellings of a collective; a wrong one lists the valid names.
a=$($CLI explain --config $F --coll allreduce); b=$($CLI explain --config $F --coll all_reduce)
[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok --coll all_reduce = allreduce" || { echo "FAIL all_reduce spelling"; fail=1; }
err=$($CLI explain --config $F --coll alltoall 2>&1 >/dev/null)
grep -qF "unknown collective 'alltoall' (expected allreduce, allgather, reducescatter, broadcast or reduce (all_reduce, all_gather and reduce_scatter also work))" <<<"$err" \
  && echo "ok bad collective lists the valid names" || { echo "FAIL bad collective message: $err"; fail=1; }
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
llc=$(mktemp)
{ cat "$R"; echo "rule coll=allreduce bytes=1M-8M algo=ring proto=ll128"; } > "$llc"
ll_line=$(($(wc -l < "$llc")))
for rel in 2.28.9 2.31.2; do
  $CLI explain --config "$llc" --cpuinfo $T --nccl-version $rel | grep -qxF "rules:        $llc:$ll_line: proto=ll128 cannot take effect on NCCL $($CLI explain --config "$llc" --cpuinfo $T --nccl-version $rel | sed -n 's/^protocols:    NCCL \(.*\) enables .*/\1/p'): it keeps ll128 off between PCIe-only GPUs, and a tuner chooses only among the protocols NCCL enabled" \
    && echo "ok $rel: the ll128 rule is marked as unable to take effect" || { echo "FAIL $rel: no ll128 note"; fail=1; }
done
$CLI explain --config "$llc" --cpuinfo $T --nccl-version 2.31.0 | grep -q "^rules:.*proto=ll128 cannot" \
  && { echo "FAIL 2.31.0: ll128 marked although that release enables it"; fail=1; } || echo "ok 2.31.0: ll128 not marked (the release enables it over PCIe)"
rm -f "$llc"
exit $fail
