#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `explain --nodes 2` on the reference machine with NICs: per GPU, the NIC, the path and GDR it
# prints for NCCL's own view and the served file are NCCL's own (test/fixtures/nccl-cost/
# nic-facts.txt, from NCCL 2.28.9, 2.30.7 and 2.31.0 built for the CPU: tools/nccl-oracle), for
# two NICs one per socket and for one NIC, with NCCL_NET_GDR_LEVEL unset and =PHB; and the
# inter-node ring and tree it prints for both views (channels, GB/s between the nodes and within,
# path types, the NIC each channel enters and leaves by) are NCCL's search's.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp
# NCCL's own view of the guest has one CPU of the guest's kind: AMD, as in the facts (an Intel
# one would cost GPU-to-NIC paths the 6/5 of P2P through its root complex)
export NCCL_NUMA_CPUINFO="$root/test/fixtures/cpuinfo/amd-turin"
FACTS=$root/test/fixtures/nccl-cost/nic-facts.txt
conf2=$root/test/fixtures/config/ref-nics.conf
conf1=$tmp/nics1.conf
grep -v '^nic 1 ' "$conf2" >"$conf1"

# facts CASE FILE RELEASE LEVEL: "rank name path read write" per GPU, by rank
facts() {
  awk -v want="case $1 $2 $3 gdrlevel=$4" '
    /^case / { on = ($0 == want); next }
    on && /^gpunet / {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      print v["rank"], v["name"], v["path"], v["gdr.read"], v["gdr.write"]
    }' "$FACTS" | sort -n
}

# column N (1: own view, 2: served) of explain's nics table: "gpu name path read write"
explained() {
  awk -v col="$1" '
    /^nics:/ { on = 1; next }
    on && /^inter-node:/ { exit }
    on && $1 ~ /^[0-9]+$/ {
      # GPU numa | name (numa k) PATH GDR x | name (numa k) PATH GDR x
      base = col == 1 ? 3 : 9
      g = $(base + 5); r = g == "on" ? 1 : 0; w = g == "off" ? 0 : 1
      print $1, $base, $(base + 3), r, w
    }' "$tmp/out" | sort -n
}

# inter CASE FILE RELEASE LEVEL: "pattern channels inter intra typeInter typeIntra nets" per graph
inter_facts() {
  awk -v want="case $1 $2 $3 gdrlevel=$4" '
    /^case / { on = ($0 == want); next }
    on && /^inter / {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); split(kv[1], k, "."); p = k[1]; v[k[2]] = kv[2] }
      gsub(/,/, " ", v["nets"])
      print p, v["nChannels"], v["bwInter"] + 0, v["bwIntra"] + 0, v["typeInter"], v["typeIntra"], v["nets"]
    }' "$FACTS"
}

# the same from explain's inter-node lines, for view 1 (own) or 2 (served)
inter_explained() {
  awk -v col="$1" '
    /^inter-node:/ { on = 1; n = 0; next }
    on && /^[a-z]/ { exit }
    on && / (ring|tree) +[0-9]+ ch / {
      n++
      if ((col == 1 && n > 2) || (col == 2 && n <= 2)) next
      for (i = 1; i <= NF; i++) if ($i == "ring" || $i == "tree") break
      nets = ""
      for (j = i + 10; j <= NF; j++) nets = nets (nets == "" ? "" : " ") $j
      print $i, $(i + 1), $(i + 3) + 0, $(i + 5) + 0, $(i + 7), $(i + 9), nets
    }' "$tmp/out"
}

checked=0
inter_checked=0
for rel in 2.28.9 2.30.7 2.31.0; do
  # sub4567: a process that sees socket 0's GPUs; the file keeps their NIC, NCCL sees both
  for case in nics2 nics1 sub4567; do
    conf=$conf2; [ $case = nics1 ] && conf=$conf1
    ranks=16; unset CUDA_VISIBLE_DEVICES
    [ $case = sub4567 ] && { ranks=8; export CUDA_VISIBLE_DEVICES=4,5,6,7; }
    for level in default PHB; do
      if [ $level = PHB ]; then export NCCL_NET_GDR_LEVEL=PHB; else unset NCCL_NET_GDR_LEVEL; fi
      nn_run 30 explain --config "$conf" --nodes 2 --ranks $ranks --nccl-version $rel
      expect_rc 0 "explain $case $rel $level"
      want_own=$(facts $case own $rel $level)
      want_served=$(facts $case served $rel $level)
      [ -n "$want_own" ] && [ -n "$want_served" ] || fail "no facts for $case $rel $level"
      [ "$(explained 1)" = "$want_own" ] ||
        fail "$case $rel $level, NCCL's own view: explain says
$(explained 1)
NCCL's code:
$want_own"
      [ "$(explained 2)" = "$want_served" ] ||
        fail "$case $rel $level, served file: explain says
$(explained 2)
NCCL's code:
$want_served"
      checked=$((checked + 1))
      for view in own served; do
        col=1; [ $view = served ] && col=2
        want=$(inter_facts $case $view $rel $level)
        [ "$(echo "$want" | wc -l)" -eq 2 ] || fail "no inter facts for $case $view $rel $level"
        [ "$(inter_explained $col)" = "$want" ] ||
          fail "$case $rel $level, $view: explain's inter-node search says
$(inter_explained $col)
NCCL's code:
$want"
        inter_checked=$((inter_checked + 1))
      done
    done
  done
done
unset NCCL_NET_GDR_LEVEL
unset CUDA_VISIBLE_DEVICES
[ $checked -eq 18 ] || fail "only $checked of 18 cases compared"
echo "ok   explain --nodes 2: NIC, path and GDR per GPU as NCCL 2.28.9, 2.30.7 and 2.31.0 decide them (18 cases)"
[ $inter_checked -eq 36 ] || fail "only $inter_checked of 36 inter-node searches compared"
echo "ok   explain --nodes 2: inter-node ring and tree (channels, GB/s, paths, NICs) as NCCL's search builds them (36 views)"

# the summary says what changes
nn_run 30 explain --config "$conf2" --nodes 2 --ranks 16 --nccl-version 2.28.9
tr '\n' ' ' <"$tmp/out" | sed 's/  */ /g' | grep -q "NICs: NCCL's own view gives 4 of 8 GPUs a NIC of the other socket; the served file gives 0 of 8" ||
  fail "summary: no NIC sentence"
tr '\n' ' ' <"$tmp/out" | sed 's/  */ /g' |
  grep -q "Between the nodes NCCL's model builds its ring with 2 channels x 12.0 GB/s on its own view, 1 x 12.0 GB/s on the served file" ||
  fail "summary: no inter-node sentence"
# --json: the same per GPU, machine-readable
nn_run 30 explain --json --config "$conf2" --nodes 2 --ranks 16 --nccl-version 2.28.9
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
n = d["nics"]
assert len(n) == 8 and n[0]["own"]["name"] == "mlx5_0" and n[0]["served"]["name"] == "mlx5_1", n[0]
assert n[0]["served"]["path"] == "PHB" and n[0]["served"]["gdr_write"] is False
x = d["inter_node"]
assert x["own"]["ring"]["channels"] == 2 and x["own"]["ring"]["nics"] == [[0, 0], [1, 1]], x["own"]
assert x["served"]["ring"]["channels"] == 1 and x["served"]["ring"]["path_inter"] == "SYS", x["served"]
assert x["own"]["tree"]["gbps_intra"] == 17.5, x["own"]["tree"]' "$tmp/out" &&
  echo "ok   --json: nics per GPU" || fail "--json nics: $(head -c 300 "$tmp/out")"
# one node: no NIC table
nn_run 30 explain --config "$conf2" --nccl-version 2.28.9
grep -q '^nics:' "$tmp/out" && fail "one node: a nics table"
# several nodes, no nic lines: says what NCCL does instead
nn_run 30 explain --config "$root/test/fixtures/config/reference.conf" --nodes 2 --ranks 16 --nccl-version 2.28.9
grep -q "^nics:         the mapping has no nic lines" "$tmp/out" || fail "no nic lines: not said"
nn_finish "explain --nodes: NICs"
