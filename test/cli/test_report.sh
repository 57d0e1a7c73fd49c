#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa report RUNDIR: the markdown report of a run directory (a synthetic calibrate run,
# test/fixtures/rundir-synthetic), printed and written to RUNDIR/report.md; its usage errors.
# ab's and calibrate's own runs are reported in test_ab.sh and test_cost.sh.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-report
cp -r "$root/test/fixtures/rundir-synthetic" "$tmp/run"

"$cli" report --no-plot "$tmp/run" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "report of the synthetic run: exit 0" "[ $rc -eq 0 ]"
check "... its header names the run and NCCL's release" \
  "grep -qF -- '- Run directory: \`$tmp/run\`' '$tmp/out' && grep -qF -- '- NCCL version: 2.28.9' '$tmp/out'"
check "... an all_reduce table with a row per size, each arm against stock" \
  "grep -q '^## all_reduce' '$tmp/out' && grep -q '^| 8 B | [0-9.]* ±[0-9.]* | ' '$tmp/out' && grep -q 'within noise\|slower\|faster' '$tmp/out'"
check "... the same text in RUNDIR/report.md" "cmp -s '$tmp/out' '$tmp/run/report.md'"
check "--no-plot: no plot written" "! ls '$tmp/run'/plot-* >/dev/null 2>&1"

"$cli" report >/dev/null 2>"$tmp/err"
check "no RUNDIR: usage error (exit 2)" "[ $? -eq 2 ] && grep -q 'nccl-numa report: missing RUNDIR' '$tmp/err'"
"$cli" report "$tmp/run" "$tmp/other" >/dev/null 2>"$tmp/err"
check "two RUNDIRs: usage error naming both" "[ $? -eq 2 ] && grep -qF \"one RUNDIR only ('$tmp/run' and '$tmp/other' given)\" '$tmp/err'"
"$cli" report --no-plot "$tmp/missing" >/dev/null 2>"$tmp/err"
check "a missing RUNDIR: exit 1, named" "[ $? -eq 1 ] && grep -qF '$tmp/missing: cannot open the run directory' '$tmp/err'"

nn_finish "PASS test_report"
