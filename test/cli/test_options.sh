#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One option convention for every command: `--opt VALUE` and `--opt=VALUE` do the same,
# an unknown option and a missing value are usage errors (exit 2) that name the option as
# written, a flag given a value is refused by name, and `--` ends the options.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-options
CFG=$root/docs/examples/proxmox-epyc-8gpu.conf
XML=$root/test/fixtures/hwloc/2s-8gpu-interleaved.xml
VM=$root/test/fixtures/proxmox/101.conf
cd "$tmp" || exit 1

# run_to BASE CMD ARGS...: runs the command into BASE.out and BASE.err with its time stamps
# (discover's header, ab's and calibrate's default run directory) replaced, so that two runs
# a second apart compare equal; echoes the exit.
run_to() {
  local base=$1 rc
  shift
  timeout 60 "$cli" "$@" >"$base.rawout" 2>"$base.rawerr"; rc=$?
  local t
  for t in out err; do
    sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIME/g; s/(nccl-numa-(ab|calibrate))-[0-9]{8}-[0-9]{6}/\1-TIME/g' \
      "$base.raw$t" >"$base.$t"
  done
  echo $rc
}

# both_forms CMD OPT VALUE [ARGS...]: "CMD OPT VALUE ARGS" and "CMD OPT=VALUE ARGS" give the
# same exit code, stdout and stderr, and the run observed the value (it appears in what the
# command printed, or changed the output against a run without the option).
declare -A tried   # the commands both_forms ran
both_forms() {
  local cmd=$1 opt=$2 val=$3
  shift 3
  tried[$cmd]=1
  local rc1 rc2 rc0
  rc1=$(run_to sep "$cmd" "$opt" "$val" "$@")
  rc2=$(run_to eq "$cmd" "$opt=$val" "$@")
  rc0=$(run_to none "$cmd" "$@")
  if [ $rc1 -ne $rc2 ] || ! cmp -s sep.out eq.out || ! cmp -s sep.err eq.err; then
    fail "$cmd $opt: '$opt VALUE' (exit $rc1) and '$opt=VALUE' (exit $rc2) differ"
    diff sep.out eq.out | head -5
    diff sep.err eq.err | head -5
    return
  fi
  if [ $rc1 -eq $rc0 ] && cmp -s sep.out none.out && cmp -s sep.err none.err; then
    fail "$cmd $opt: the value made no difference, so the test cannot tell it was read"
    return
  fi
  echo "ok   $cmd $opt VALUE = $opt=VALUE (exit $rc1)"
}

# usage_error CMD WANT ARGS...: exit 2 and the first stderr line is "nccl-numa CMD: WANT".
usage_error() {
  local cmd=$1 want=$2
  shift 2
  timeout 60 "$cli" "$cmd" "$@" >u.out 2>u.err
  local rc=$? first
  first=$(head -n1 u.err)
  if [ $rc -eq 2 ] && [ "$first" = "nccl-numa $cmd: $want" ]; then echo "ok   $cmd $*: $want"
  else fail "$cmd $*: exit $rc, first stderr line '$first', wanted 2 and 'nccl-numa $cmd: $want'"; fi
}

EXPLAIN=(--config "$CFG" --cpuinfo "$root/test/fixtures/cpuinfo/amd-turin")
both_forms explain --nccl-version 2.31.2 "${EXPLAIN[@]}"
both_forms check --nccl-version 2.31.2 --config "$CFG" --no-cuda
both_forms check-config --nccl-version not-a-release "$CFG"
both_forms topo --nccl-version 2.31.2 --config "$CFG"
both_forms discover --xml "$XML" --no-cuda
both_forms proxmox-numa --vm-config "$VM" --xml "$root/test/fixtures/hwloc/epyc-ref-host.xml"
both_forms env --config "$CFG"
both_forms exec --config "$CFG" -- printenv NCCL_NUMA_CONFIG
both_forms ab --nccl-tests "$tmp/no-such-dir" --config "$CFG"
both_forms calibrate --nccl-tests "$tmp/no-such-dir" --config "$CFG"
both_forms p2p --timeout not-a-number

# Every command of the table (cli/commands.c, as --help prints it): unknown options refused by
# name; and each one with an option that takes a value has its both_forms line above.
cmds=$("$cli" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
check "--help lists the commands ($(wc -w <<<"$cmds"))" "[ $(wc -w <<<"$cmds") -ge 12 ]"
no_value_options=" report "   # report's only option is the flag --no-plot
for cmd in $cmds; do
  [ -n "${tried[$cmd]:-}" ] || [[ "$no_value_options" == *" $cmd "* ]] ||
    fail "$cmd: no both_forms line in test_options.sh ('--opt VALUE' = '--opt=VALUE' untested)"
done
for cmd in $cmds; do
  usage_error "$cmd" "unknown option '--no-such-option'" --no-such-option
  usage_error "$cmd" "unknown option '--no-such-option'" --no-such-option=3
done
usage_error explain "'--config' needs a value" --config
usage_error check "'--config' needs a value" --config
usage_error check-config "'--nccl-version' needs a value" --nccl-version
usage_error topo "'--config' needs a value" --config
usage_error discover "'--xml' needs a value" --xml
usage_error proxmox-numa "'--vm-config' needs a value" --vm-config
usage_error env "'--config' needs a value" --config
usage_error exec "'--config' needs a value" --config
usage_error ab "'--config' needs a value" --config
usage_error calibrate "'--config' needs a value" --config
usage_error report "'--no-plot' takes no value" --no-plot=1 x
usage_error check-config "'--host-side' takes no value" --host-side=yes "$CFG"
usage_error p2p "'--gpus' needs a value" --gpus

# `--` ends the options: what follows is an operand, even when it looks like an option.
timeout 60 "$cli" check-config -- --weird-name >u.out 2>u.err
check "check-config -- --weird-name: the name is the FILE" \
  "[ \$? -ne 2 ] && grep -qF -- '--weird-name' u.err && ! grep -q 'unknown option' u.err"
timeout 60 "$cli" exec --config "$CFG" -- printenv --config >u.out 2>u.err
check "exec -- COMMAND --config: the COMMAND's own option passes through" \
  "grep -q \"unrecognized option\\|invalid option\\|--config\" u.err && ! grep -q 'nccl-numa exec:' u.err"
timeout 60 "$cli" topo --config "$CFG" -- extra >u.out 2>u.err
check "topo -- extra: an unexpected operand, named" "[ \$? -eq 2 ] && grep -qF \"unexpected argument 'extra'\" u.err"

nn_finish "PASS test_options"
