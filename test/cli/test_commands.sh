#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The command table (cli/commands.c) is the one list of subcommands: `nccl-numa --help` prints
# it, and each subcommand it lists must have its shell test (test/cli/test_NAME.sh or
# test_NAME_*.sh, '-' as '_'), its row in docs/user/cli.md, the --help and --version help2man reads, and its manual
# page from `make man` (where help2man is installed). A new command lacking one fails here,
# naming what is missing.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-commands
cd "$root" || exit 1

cmds=$("$cli" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
n=$(wc -w <<<"$cmds")
check "--help lists the command table ($n commands)" "[ $n -ge 12 ]"
version=$("$cli" --version | sed -n '1s/^nccl-numa //p')

for c in $cmds; do
  t=test/cli/test_${c//-/_}
  compgen -G "$t.sh" >/dev/null || compgen -G "${t}_*.sh" >/dev/null || fail "$c: no test file $t.sh (or ${t}_*.sh)"
  grep -q "^| \`nccl-numa $c[ \`]" docs/user/cli.md || fail "$c: no row '| \`nccl-numa $c ...\` |' in docs/user/cli.md"
  "$cli" "$c" --help >"$tmp/h.out" 2>"$tmp/h.err"
  rc=$?
  [ $rc -eq 0 ] && head -n1 "$tmp/h.out" | grep -q "^usage: nccl-numa $c\b" ||
    fail "$c --help: exit $rc, first line '$(head -n1 "$tmp/h.out")' (help2man needs 'usage: nccl-numa $c ...' on stdout)"
  v=$("$cli" "$c" --version | head -n1)
  [ "$v" = "nccl-numa $c $version" ] || fail "$c --version: '$v', wanted 'nccl-numa $c $version'"
done
[ "$fails" -eq 0 ] && echo "ok   each of the $n commands: its test file, its cli.md row, --help and --version"

if command -v help2man >/dev/null; then
  bdir=$root/${NN_BUILD:-build}
  if [ -n "${NCCL_NUMA_BIN:-}" ]; then
    echo "SKIP manual pages: NCCL_NUMA_BIN names a CLI outside the build directory"
  # pages of its own: `make install` (test_library) remakes build/man at the same time
  elif make -s -C "$root" BUILD="$bdir" MAN_DIR="$tmp/man" man >"$tmp/man.log" 2>&1; then
    before=$fails
    for c in $cmds; do
      page=$tmp/man/nccl-numa-$c.1
      [ -f "$page" ] && grep -q "^nccl-numa-$c " "$page" || fail "$c: make man made no manual page $page"
    done
    [ "$fails" -eq "$before" ] && echo "ok   make man: a manual page for each of the $n commands"
  else
    fail "make man failed: $(tail -n3 "$tmp/man.log")"
  fi
else
  echo "SKIP manual pages: no help2man (apt-get install help2man); --help and --version checked above"
fi

nn_finish "PASS test_commands"
