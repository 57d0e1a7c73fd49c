#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Golden-output tests (hwloc's pattern): each test/golden/COMMAND/CASE.cmd holds one command
# line, run by bash from the repository root with `nccl-numa` the CLI under test, $SYSFS a
# folder holding every test/fixtures/sysfs/NAME.spec built as $SYSFS/NAME, and $SCRATCH an
# empty folder for files a case writes and reads again (a pipeline fails if any part
# does: JSON cases pipe through python3 -m json.tool to be read line by line). Its stdout, then
# its stderr after a line "--- stderr" (when there is any), then "--- exit N", passed
# through filter.sh, must equal CASE.out byte for byte; a difference is shown as a diff.
#
#   bash test/golden/run.sh             compare every case (test/cli/test_golden.sh)
#   bash test/golden/run.sh --update    rewrite the .out files (`make golden`); review the diff
#   ... [--update] explain/intra-2.28.9 only the cases named (COMMAND/CASE)
#
# The environment is fixed (no NCCL_* or CUDA_VISIBLE_DEVICES from the caller, an Intel
# cpuinfo, no driver GPU list, SOURCE_DATE_EPOCH=0, LC_ALL=C, TZ=UTC): a case names everything
# it depends on.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/../cli/helpers/lib.sh"
nn_cli abs
command -v python3 >/dev/null || nn_skip "python3 is needed to build the sysfs fixtures"
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
nn_tmp nn-golden
gold=$root/test/golden
cd "$root" || exit 1

mkdir -p "$tmp/sysfs"
for spec in test/fixtures/sysfs/*.spec; do
  nn_sysfs_tree "$tmp/sysfs/$(basename "$spec" .spec)" <"$spec"
done
for v in $(env | sed -n 's/^\(NCCL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset HWLOC_XMLFILE
mkdir -p "$tmp/scratch"
export SYSFS=$tmp/sysfs SCRATCH=$tmp/scratch SOURCE_DATE_EPOCH=0 LC_ALL=C TZ=UTC
export NCCL_NUMA_CPUINFO=test/fixtures/cpuinfo/intel-emerald-rapids
# no driver GPU list (a GPU host's would replace the mappings' GPUs: see lib.sh)
export NCCL_NUMA_DRIVER_ROOT=$root/test/fixtures/driver/none

# output CMDFILE: what the case printed, filtered.
output() {
  bash -c "set -o pipefail; nccl-numa() { \"$cli\" \"\$@\"; }; $(cat "$1")" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
  local rc=$?
  { cat "$tmp/stdout"
    [ -s "$tmp/stderr" ] && { echo "--- stderr"; cat "$tmp/stderr"; }
    echo "--- exit $rc"; } | bash "$gold/filter.sh" "$root" "$tmp"
}

if [ $# -gt 0 ]; then cases=("$@"); else
  cases=($(cd "$gold" && ls */*.cmd | sed 's/\.cmd$//'))
fi
[ ${#cases[@]} -gt 0 ] || fail "no golden cases under $gold"
for c in "${cases[@]}"; do
  [ -f "$gold/$c.cmd" ] || { fail "$c: no $gold/$c.cmd"; continue; }
  output "$gold/$c.cmd" >"$tmp/got"
  if [ $update = 1 ]; then
    cmp -s "$tmp/got" "$gold/$c.out" 2>/dev/null || { cp "$tmp/got" "$gold/$c.out"; echo "wrote $c.out"; }
  elif [ ! -f "$gold/$c.out" ]; then
    fail "$c: no expected output $c.out (make golden writes it)"
  elif cmp -s "$tmp/got" "$gold/$c.out"; then
    echo "ok   $c"
  else
    fail "$c: output differs from $c.out (- expected, + got; \`make golden\` rewrites it)"
    diff -u "$gold/$c.out" "$tmp/got" | tail -n +3
  fi
done
# An expected output without its command is a case nobody runs.
for o in $(cd "$gold" && ls */*.out 2>/dev/null); do
  [ -f "$gold/${o%.out}.cmd" ] || fail "$o: no ${o%.out}.cmd beside it"
done
nn_finish "${#cases[@]} golden cases $([ $update = 1 ] && echo regenerated || echo passed)"
