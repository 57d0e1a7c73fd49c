#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain --compare-release: the sizes where NCCL's own choice moves between two releases, checked
# against NCCL's own code (nccl-oracle 2.30.7 and dev, test/fixtures/nccl-cost/compare-release-facts.txt)
# on the reference machine's two files; --emit-rules and its comments; usage errors.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp
FACTS=$root/test/fixtures/nccl-cost/compare-release-facts.txt
CHECK=$root/test/cli/helpers/compare_release_check.py
CONF=$root/docs/examples/proxmox-epyc-8gpu.conf
# The facts' flat file is NCCL's own view of this VM: its CPU is the guest's Zen 5 (family 26).
export NCCL_NUMA_CPUINFO=$root/test/fixtures/cpuinfo/amd-turin
unset NCCL_ALGO NCCL_PROTO NCCL_TOPO_FILE
grep -v '^rule' "$CONF" > "$tmp/norules.conf"
sed 's/^topology mode=auto/topology mode=numa/' "$tmp/norules.conf" > "$tmp/numa.conf"

# compare_facts NAME CONFIG FACTS-CASE VIEW A X: the comparison is NCCL's, size by size
compare_facts() {
  nn_run 60 explain --config "$2" --nccl-version "$5" --compare-release "$6"
  expect_rc 0 "$1"
  local views
  views=$(grep -c "^              NCCL 2.3[01].[07] on $4:" "$tmp/out")
  [ "$views" = 2 ] || fail "$1: both releases should be modelled on $4 (got $views lines)"
  if python3 "$CHECK" "$FACTS" "$3" "$5" "$6" < "$tmp/out" > "$tmp/check"; then
    echo "ok $1 ($(tail -1 "$tmp/check"))"
  else
    fail "$1: not NCCL's choices"; cat "$tmp/check"
  fi
}
# mode=auto serves nothing on either release: both run on NCCL's own flat view
compare_facts "flat 2.30.7 vs 2.31.0" "$CONF" flat "its own view" 2.30.7 2.31.0
compare_facts "flat 2.31.0 vs 2.30.7" "$CONF" flat "its own view" 2.31.0 2.30.7
# mode=numa serves the two-socket file on both: the ring graph differs (2.31 models Zen 5's link)
compare_facts "two-socket 2.30.7 vs 2.31.0" "$tmp/numa.conf" served "the served file" 2.30.7 2.31.0
compare_facts "two-socket 2.31.0 vs 2.30.7" "$tmp/numa.conf" served "the served file" 2.31.0 2.30.7

# The checker fails on a band that is not NCCL's: one size moved out of a band
nn_run 60 explain --config "$CONF" --nccl-version 2.30.7 --compare-release 2.31.0
sed 's/^  2 MiB - 8 MiB  /  4 MiB - 8 MiB  /' "$tmp/out" > "$tmp/moved"
check "checker sees a band one size short" '! cmp -s "$tmp/out" "$tmp/moved" && ! python3 "$CHECK" "$FACTS" flat 2.30.7 2.31.0 < "$tmp/moved" >/dev/null'
sed 's/^\(  1 MiB  .*\)97\.1 \*/\197.3 */' "$tmp/out" > "$tmp/slower"
check "checker sees a time that is not NCCL's" '! cmp -s "$tmp/out" "$tmp/slower" && ! python3 "$CHECK" "$FACTS" flat 2.30.7 2.31.0 < "$tmp/slower" >/dev/null'

# The same release on both sides: nothing differs
nn_run 60 explain --config "$CONF" --nccl-version 2.30.7 --compare-release 2.30.7
check "same release: no band" '[ "$(grep -c "the same choice at every size" "$tmp/out")" = 5 ] && grep -q "the same graphs" "$tmp/out"'
check "--coll keeps one collective" '[ "$($cli explain --config "$CONF" --nccl-version 2.30.7 --compare-release 2.31.0 --coll broadcast | grep -c "^broadcast")" = 2 ]'

# --emit-rules on 2.31.0, keeping 2.30.7's choice: every rule expressible, and with them the
# plugin runs 2.30.7's choice exactly where NCCL 2.31.0's own differs
nn_run 60 explain --config "$tmp/norules.conf" --nccl-version 2.31.0 --compare-release 2.30.7 --emit-rules
expect_rc 0 "emit rules 2.31.0 <- 2.30.7"
grep '^rule' "$tmp/out" > "$tmp/rules"
check "emit: 4 rules, none commented" '[ "$(wc -l < "$tmp/rules")" = 4 ] && ! grep -q "^# rule" "$tmp/out"'
check "emit: allreduce 2M-8M simple" 'grep -qx "rule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=simple" "$tmp/rules"'
cat "$tmp/norules.conf" "$tmp/rules" > "$tmp/kept.conf"
$cli check-config "$tmp/kept.conf" >/dev/null 2>&1 || fail "emitted rules: not a valid mapping"
nn_run 60 explain --config "$tmp/kept.conf" --nccl-version 2.31.0 --coll allreduce
check "emitted rules keep 2.30.7's allreduce" \
  'grep -Eq "^  1 MiB +ring/ll128 .* \* ring/ll " "$tmp/out" && grep -Eq "^  2 MiB - 8 MiB +ring/ll128 .* \* ring/simple " "$tmp/out" && [ "$(grep -c "^  [0-9].* \* " "$tmp/out")" = 2 ]'

# ... on 2.30.7, keeping 2.31.0's LL128: 2.30.7 leaves LL128 off between PCIe GPUs, so every
# rule is commented out with the reason, and none is live
nn_run 60 explain --config "$tmp/norules.conf" --nccl-version 2.30.7 --compare-release 2.31.0 --emit-rules
check "emit: LL128 commented out on 2.30.7" \
  '[ "$(grep -c "^# rule coll=.* proto=ll128$" "$tmp/out")" = 3 ] && ! grep -q "^rule" "$tmp/out" && [ "$(grep -c "leaves LL128 off between these GPUs" "$tmp/out")" = 3 ]'
# the two-socket file: the graphs are named as what no rule can choose; LL below 512 KiB can be kept
nn_run 60 explain --config "$tmp/numa.conf" --nccl-version 2.30.7 --compare-release 2.31.0 --emit-rules
check "emit: graphs commented on the two-socket file" \
  'grep -q "^# not possible: the graphs differ" "$tmp/out" && grep -qx "rule coll=broadcast bytes=1K-64K ranks=8 nodes=1 algo=ring proto=ll" "$tmp/out"'
grep -v '^#' "$tmp/out" > "$tmp/live"
check "emit: output is mapping text" '[ -s "$tmp/live" ] && cat "$tmp/norules.conf" "$tmp/live" > "$tmp/live.conf" && $cli check-config "$tmp/live.conf" >/dev/null 2>&1'

# usage and errors
nn_run 10 explain --config "$CONF" --emit-rules
expect_rc 2 "--emit-rules alone"
expect_err_is "--emit-rules alone: message" "nccl-numa explain: --emit-rules needs --compare-release X.Y.Z"
nn_run 10 explain --config "$CONF" --compare-release 2.x
expect_rc 2 "bad --compare-release"
expect_err_has "bad --compare-release: message" "--compare-release '2.x': expected X.Y.Z"
nn_run 30 explain --config "$CONF" --nccl-version 2.30.7 --nodes 2 --ranks 16 --compare-release 2.31.0 --emit-rules
expect_rc 1 "--compare-release on 2 nodes"
expect_err_has "--compare-release on 2 nodes: message" "nccl-numa explain: --compare-release: NCCL 2.30.7: NCCL's choice not modelled for 2 nodes"

nn_finish "explain --compare-release: ok"
