#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# NCCL's model with GPU peer access: where the mapping says `p2p ok`, explain's verdict and
# per-size choices are NCCL's own with peer access, checked against NCCL's code (nccl-oracle
# --p2p under NCCL_P2P_LEVEL=PHB and SYS, test/fixtures/nccl-cost/p2p-facts.txt) on the reference
# machine's flat and two-socket files, for 2.28.9, 2.30.7 and 2.31.0.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp
FACTS=$root/test/fixtures/nccl-cost/p2p-facts.txt
CHECK=$root/test/cli/helpers/compare_release_check.py
CHOICES=$root/test/cli/helpers/choices_check.py
CONF=$root/docs/examples/proxmox-epyc-8gpu.conf
export NCCL_NUMA_CPUINFO=$root/test/fixtures/cpuinfo/amd-turin
unset NCCL_ALGO NCCL_PROTO NCCL_TOPO_FILE NCCL_P2P_LEVEL NCCL_P2P_DISABLE
grep -v '^rule' "$CONF" > "$tmp/norules.conf"
sed 's/^topology mode=auto/topology mode=numa/' "$tmp/norules.conf" > "$tmp/numa.conf"

# block FILE RELEASE: the fact block's graphs and choices, without its case line
block() { awk -v c="case $1 $2" '$0 == c {on = 1; next} /^case / {on = 0} on' "$FACTS"; }

# 1. The facts themselves: with peer access at either level, NCCL's graphs and choices are the
#    ones it makes without (every GPU sits directly under a CPU, so the path NCCL diverts
#    through the CPU without P2P is the path it has anyway).
for rel in 2.28.9 2.30.7 2.31.0; do
  for file in flat served; do
    block "$file" "$rel" > "$tmp/none"
    [ -s "$tmp/none" ] || fail "facts: no block for $file $rel"
    for level in PHB SYS; do
      block "$file-p2p-$level" "$rel" > "$tmp/p2p"
      check "facts: $file $rel with P2P at $level = without" '[ -s "$tmp/p2p" ] && cmp -s "$tmp/none" "$tmp/p2p"'
    done
  done
done

# The control: two GPUs under one PCIe switch, where peer access changes NCCL's paths, so these
# facts were made with the oracle's peer access in effect.
for rel in 2.28.9 2.30.7 2.31.0; do
  check "facts: switch $rel: P2P changes the graphs (the oracle's --p2p took effect)" \
    '[ -n "$(block switch "$rel" | head -1)" ] && [ "$(block switch "$rel" | head -1)" != "$(block switch-p2p-PHB "$rel" | head -1)" ]'
done

# 2. explain on a mapping with `p2p ok level=L` gives NCCL's choices with peer access, size by size
#    and on both releases of a comparison.
compare_p2p() {   # compare_p2p NAME CONFIG CASE A X
  nn_run 60 explain --config "$2" --nccl-version "$4" --compare-release "$5"
  expect_rc 0 "$1"
  if python3 "$CHECK" "$FACTS" "$3" "$4" "$5" < "$tmp/out" > "$tmp/check"; then
    echo "ok $1 ($(tail -1 "$tmp/check"))"
  else
    fail "$1: not NCCL's choices with peer access"; cat "$tmp/check"
  fi
}
for level in PHB SYS; do
  { cat "$tmp/norules.conf"; echo "p2p ok level=$level gpus=0-7 driver=580.95.05 xproc=ok"; } > "$tmp/flat-$level.conf"
  { cat "$tmp/numa.conf"; echo "p2p ok level=$level gpus=0-7 driver=580.95.05 xproc=ok"; } > "$tmp/numa-$level.conf"
  compare_p2p "flat, p2p $level, 2.28.9 vs 2.30.7" "$tmp/flat-$level.conf" "flat-p2p-$level" 2.28.9 2.30.7
  compare_p2p "flat, p2p $level, 2.30.7 vs 2.31.0" "$tmp/flat-$level.conf" "flat-p2p-$level" 2.30.7 2.31.0
  compare_p2p "two-socket, p2p $level, 2.28.9 vs 2.30.7" "$tmp/numa-$level.conf" "served-p2p-$level" 2.28.9 2.30.7
  compare_p2p "two-socket, p2p $level, 2.30.7 vs 2.31.0" "$tmp/numa-$level.conf" "served-p2p-$level" 2.30.7 2.31.0
done

# ... and on each release alone, every row of every collective's table against the facts.
for rel in 2.28.9 2.30.7 2.31.0; do
  for level in PHB SYS; do
    for pair in "flat flat" "numa served"; do
      set -- $pair
      nn_run 60 explain --config "$tmp/$1-$level.conf" --nccl-version "$rel"
      if python3 "$CHOICES" "$FACTS" "$2-p2p-$level" "$rel" < "$tmp/out" > "$tmp/check"; then
        echo "ok   $2, p2p $level, $rel: NCCL's choice at every size ($(tail -1 "$tmp/check"))"
      else
        fail "$2, p2p $level, $rel: not NCCL's choices with peer access"; cat "$tmp/check"
      fi
    done
  done
done
# the checker sees one size that is not NCCL's
sed 's|^\(  1 B - 256 KiB *\)ring/ll |\1ring/simple |' "$tmp/out" > "$tmp/planted"
check "choices checker sees a planted choice" \
  '! cmp -s "$tmp/out" "$tmp/planted" && ! python3 "$CHOICES" "$FACTS" served-p2p-SYS 2.31.0 < "$tmp/planted" >/dev/null'

# 3. The verdict on serving the topology and every per-size choice stay as they are without the
#    line; only the summary adds what the line serves.
report() { sed '/^summary:/,$d' "$tmp/out" | sed "s|$1|CONFIG|g"; }
for rel in 2.28.9 2.30.7 2.31.0; do
  nn_run 60 explain --config "$tmp/norules.conf" --nccl-version "$rel"
  report "$tmp/norules.conf" > "$tmp/without"
  nn_run 60 explain --config "$tmp/flat-SYS.conf" --nccl-version "$rel"
  report "$tmp/flat-SYS.conf" > "$tmp/with"
  check "explain $rel: the same verdict and choices with p2p ok level=SYS" \
    'grep -q "^topology:     no topology served" "$tmp/with" && diff -u "$tmp/without" "$tmp/with"'
  check "explain $rel: the summary says what the p2p line serves" \
    'sed -n "/^summary:/,\$p" "$tmp/out" | tr -s "\n " "  " | grep -qF "serve NCCL_P2P_LEVEL=SYS"'
done

nn_finish "explain with P2P: all checks passed"
