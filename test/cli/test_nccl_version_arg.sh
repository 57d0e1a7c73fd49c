#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One NCCL version grammar for every command (nn_nccl_version_parse through
# nn_ncclver_parse_arg): explain, topo, check-config, check, ab and calibrate take the same
# --nccl-version strings (and explain's --compare-release), and refuse the same ones with the
# same message and the usage exit code 2. NCCL_NUMA_BIN overrides the CLI under test.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-verarg
conf=$root/test/fixtures/topo/good.conf
mkdir -p "$tmp/empty-root"

# run_with OPT VALUE COMMAND: the command with OPT VALUE, in a form that parses the value and
# otherwise succeeds here (no GPU, no nccl-tests): ab and calibrate stop at --help after it.
run_with() {
  local opt=$1 v=$2 cmd=$3
  case $cmd in
    explain | topo) nn_run 30 "$cmd" --config "$conf" "$opt" "$v" ;;
    check-config) nn_run 30 check-config "$opt" "$v" "$conf" ;;
    check) nn_run 30 check --no-cuda --sysfs-root "$tmp/empty-root" --config "$conf" "$opt" "$v" ;;
    ab | calibrate) nn_run 30 "$cmd" "$opt" "$v" --help ;;
  esac
}
all_commands=(explain topo check-config check ab calibrate)

for v in 2.28.9 2.31.2-1 2.32.3+cuda12.9 2.27.5 2.8.4; do
  for cmd in "${all_commands[@]}"; do
    run_with --nccl-version "$v" "$cmd"
    if [ "$rc" -ne 2 ] && ! grep -q "expected X.Y.Z" "$tmp/err" "$tmp/out" &&
       { [ "$cmd" = check ] || [ "$rc" -eq 0 ]; }; then echo "ok   $cmd takes --nccl-version $v"
    else fail "$cmd --nccl-version $v: exit $rc: $err"; fi
  done
  run_with --compare-release "$v" explain
  check "explain takes --compare-release $v" "[ $rc -eq 0 ]"
done

for v in 2.28.9x 2.28 latest 2.x " 2.28.9" "2. 28.9" "2.28.9 " v2.28.9 ""; do
  for cmd in "${all_commands[@]}"; do
    run_with --nccl-version "$v" "$cmd"
    check "$cmd refuses --nccl-version '$v' (exit 2, the one message)" \
      "[ $rc -eq 2 ] && grep -qF \"nccl-numa $cmd: --nccl-version '$v': expected X.Y.Z (e.g. 2.28.9)\" '$tmp/err'"
  done
  run_with --compare-release "$v" explain
  check "explain refuses --compare-release '$v'" \
    "[ $rc -eq 2 ] && grep -qF \"nccl-numa explain: --compare-release '$v': expected X.Y.Z (e.g. 2.28.9)\" '$tmp/err'"
done
nn_finish "one NCCL version grammar across commands"
