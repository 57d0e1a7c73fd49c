#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# NCCL's predicted choice beside the measurements (report, calibrate --from) on the committed
# SYNTHETIC run directory (test/fixtures/rundir-synthetic: NCCL 2.28.9's own tuning table for
# 8 GPUs flat gen5 from nccl-oracle, made-up nccl-tests outputs): the three columns, the one
# rule where the best beats NCCL's choice beyond the spread, the pci-latency estimate and its
# residual; and a run directory whose probe.out lacks a table says why there is no prediction.
. "$(dirname "$0")/lib.sh"
nn_build_cli
nn_tmp nn-cost
cp -r "$root/test/fixtures/rundir-synthetic" "$tmp/r"
rm -f "$tmp/r/generate.py"

"$CLI" report "$tmp/r" --no-plot >"$tmp/report" 2>"$tmp/report.err"
check "report exits 0" "[ $? -eq 0 ]"
row() { grep -E "^\| $1 \| ring/" "$tmp/report"; }
# NCCL 2.28.9 models ring/ll 8 KiB at 21.2 us on this table (oracle: 21.20); the run measured 41.62
check "8 KiB: NCCL picks ring/ll, modelled 21.2 us, measured on the forced ring.ll arm" \
  "row '8 KiB' | grep -qE '^\| 8 KiB \| ring/ll \| 21.2 \| 41.41 \| ring.ll \| ring.ll \| 41.41 \| 0.00 \| 0.0% \| NCCL.s choice is the best \|$'"
check "512 KiB: NCCL's ring/ll (stock 110.66 us) loses 22.08 us to ring.simple beyond the spread" \
  "row '512 KiB' | grep -qE '^\| 512 KiB \| ring/ll \| 58.9 \| 110.66 \| stock \| ring.simple \| 88.58 \| 22.08 \| 24.9% \| best beats NCCL.s choice beyond the spread \|$'"
check "2 MiB: NCCL switches to ring/simple (its model: 164.7 us)" "row '2 MiB' | grep -q '| ring/simple | 164.7 |'"
check "every measured size has a row" "[ \$(grep -cE '^\| [0-9]+ (B|KiB|MiB) \| ring/' '$tmp/report') -eq 12 ]"
check "report: pci-latency estimate and the residual it leaves" \
  "grep -qF '\`model pci-latency-us=2.41\`' '$tmp/report' && grep -qE '^residual over 48 forced .* median 37% \(worst 52%\) with its default constants, 26% \(worst 50%\) with pci-latency-us=2.41$' '$tmp/report'"

"$CLI" calibrate --from "$tmp/r" >"$tmp/cal" 2>"$tmp/cal.err"
check "calibrate exits 0" "[ $? -eq 0 ]"
check "calibrate: one rule, where the best beats NCCL's choice" \
  "[ \$(grep -c '^rule ' '$tmp/cal') -eq 1 ] && grep -qx 'rule coll=allreduce bytes=512K-2097151 ranks=8 nodes=1 algo=ring proto=simple' '$tmp/cal'"
check "calibrate says why per size" \
  "grep -qF '# all_reduce 512 KiB: ring.simple beats NCCL'\"'\"'s choice ring/ll (110.66 us on stock) by 22.08 us (25%), beyond the spread 0.66 us' '$tmp/cal' && grep -qF '# all_reduce 8 KiB: no rule (NCCL'\"'\"'s choice ring/ll is the fastest measured' '$tmp/cal' && grep -qF '# all_reduce 2 MiB: no rule (' '$tmp/cal'"
check "calibrate: the estimate and its residual" \
  "grep -qx 'model pci-latency-us=2.41' '$tmp/cal' && grep -q '^# residual over 48 forced' '$tmp/cal'"

# Without NCCL's table: no prediction, said; calibrate falls back to the runner-up criterion.
echo "no table here" > "$tmp/r/runs/probe.out"
"$CLI" report "$tmp/r" --no-plot >"$tmp/report2" 2>/dev/null
check "report without a table says why" "grep -q '^No prediction: runs/probe.out: ' '$tmp/report2'"
"$CLI" calibrate --from "$tmp/r" >"$tmp/cal2" 2>/dev/null
check "calibrate without a table: the runner-up criterion, said" \
  "grep -q '^# NCCL.s choice cannot be predicted (runs/probe.out: ' '$tmp/cal2' && grep -q '^rule ' '$tmp/cal2'"
nn_finish "all cost checks passed"
