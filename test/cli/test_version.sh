#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The version from the file VERSION, printed by `nccl-numa --version` and by every
# subcommand's --version; every subcommand answers --help on stdout with exit 0
# (help2man builds the man pages of the Debian package from exactly these).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp
version=$(cat "$root/VERSION")
check "VERSION holds a version" '[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]'
nn_run 5 --version
expect_rc 0 "--version"
check "--version first line" '[ "$(head -n1 "$tmp/out")" = "nccl-numa $version" ]'
subs=$("$cli" --help | sed -n 's/^  \([a-z-]*\) .*/\1/p')
check "the command lists its subcommands" '[ "$(wc -w <<<"$subs")" -ge 10 ]'
for sub in $subs; do
  nn_run 5 "$sub" --version
  expect_rc 0 "$sub --version"
  check "$sub --version names it" '[ "$(head -n1 "$tmp/out")" = "nccl-numa $sub $version" ]'
  nn_run 5 "$sub" --help
  expect_rc 0 "$sub --help"
  check "$sub --help: usage on stdout" 'grep -qi "^usage: nccl-numa $sub" "$tmp/out"'
done
nn_finish "version checks passed"
