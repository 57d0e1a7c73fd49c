#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa exec / env: the child sees exactly the parent's environment plus
# NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN (absolute .so) and NCCL_NUMA_CONFIG (absolute mapping),
# and GLOO_SOCKET_IFNAME where NCCL_SOCKET_IFNAME gives one and the user set none.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
CLI=$(readlink -f "$CLI")
SO=$(readlink -f "$SO")
nn_tmp nn-exec
T=$tmp
D="$T/it's a dir"
mkdir -p "$D"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n' > "$D/m.conf"
CFG=$(readlink -f "$D/m.conf")
clean() { grep -v '^_=' | sort; }

unset NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN NCCL_NUMA_CONFIG NCCL_TOPO_FILE
export NN_MARK=here
(cd "$D" && env) | clean > "$T/parent"
(cd "$D" && "$CLI" exec --config m.conf -- env) | clean > "$T/child"
check "exec: child = parent + exactly three variables" \
  "[ \"\$(diff '$T/parent' '$T/child' | grep '^[<>]' | sort | tr '\n' '|')\" = \"> NCCL_ENV_PLUGIN=$SO|> NCCL_NUMA_CONFIG=$CFG|> NCCL_TUNER_PLUGIN=$SO|\" ]"
check "exec: relative --config made absolute" "grep -qx \"NCCL_NUMA_CONFIG=$CFG\" '$T/child'"

NCCL_TUNER_PLUGIN=other NCCL_NUMA_CONFIG="$CFG" "$CLI" exec -- env | clean > "$T/child2"
check "exec: config from NCCL_NUMA_CONFIG, old plugin value replaced" \
  "grep -qx \"NCCL_TUNER_PLUGIN=$SO\" '$T/child2' && grep -qx \"NCCL_NUMA_CONFIG=$CFG\" '$T/child2' && [ \$(grep -c '^NCCL_TUNER_PLUGIN=' '$T/child2') -eq 1 ]"

"$CLI" exec --config "$CFG" -- sh -c 'exit 7'
check "exec: the command's exit code is returned" "[ $? -eq 7 ]"
"$CLI" exec --config "$CFG" -- /nonexistent/cmd 2>/dev/null
check "exec: missing command gives 127" "[ $? -eq 127 ]"
"$CLI" exec --config "$CFG" >/dev/null 2>&1
check "exec: no command is a usage error" "[ $? -eq 2 ]"
printf 'gpu 0 bus=01:00.0 numa=0\nbogus line\n' > "$T/bad.conf"
"$CLI" exec --config "$T/bad.conf" -- touch "$T/ran" 2>"$T/err"
check "exec: invalid mapping refused, command not run" "[ $? -eq 1 ] && [ ! -e '$T/ran' ] && grep -q 'bad.conf:2' '$T/err'"
"$CLI" exec --config "$T/none.conf" -- true 2>/dev/null
check "exec: missing mapping refused" "[ $? -eq 1 ]"
cp "$SO" "$T/copy.so"
"$CLI" exec --config "$CFG" --plugin "$T/copy.so" -- env | clean > "$T/child3"
check "exec: --plugin PATH used for both plugin variables" \
  "grep -qx 'NCCL_TUNER_PLUGIN=$T/copy.so' '$T/child3' && grep -qx 'NCCL_ENV_PLUGIN=$T/copy.so' '$T/child3'"

"$CLI" env --config "$CFG" > "$T/exports"
check "env: three export lines" "[ \$(grep -c '^export NCCL_' '$T/exports') -eq 3 ] && [ \$(wc -l < '$T/exports') -eq 3 ]"
(cd "$D" && eval "$(cat "$T/exports")" && env) | clean > "$T/child4"
check "env: eval'd lines give what exec gives (quotes survive)" "diff -q '$T/child' '$T/child4' >/dev/null"
# GLOO_SOCKET_IFNAME follows the mapping's (or the user's) NCCL_SOCKET_IFNAME, unless set
printf 'gpu 0 bus=01:00.0 numa=0\nenv NCCL_SOCKET_IFNAME=lo\n' > "$T/lo.conf"
(unset NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME; "$CLI" exec --config "$T/lo.conf" -- env 2>"$T/gloo-err") | clean > "$T/gloo"
check "exec: GLOO_SOCKET_IFNAME from the mapping's NCCL_SOCKET_IFNAME" \
  "grep -qx 'GLOO_SOCKET_IFNAME=lo' '$T/gloo' && grep -q 'GLOO_SOCKET_IFNAME=lo (from the mapping' '$T/gloo-err'"
(unset GLOO_SOCKET_IFNAME; NCCL_SOCKET_IFNAME==lo "$CLI" exec --config "$CFG" -- env 2>/dev/null) | clean > "$T/gloo2"
check "exec: GLOO_SOCKET_IFNAME from the user's NCCL_SOCKET_IFNAME (=exact)" "grep -qx 'GLOO_SOCKET_IFNAME=lo' '$T/gloo2'"
(GLOO_SOCKET_IFNAME=mine "$CLI" exec --config "$T/lo.conf" -- env 2>/dev/null) | clean > "$T/gloo3"
check "exec: the user's GLOO_SOCKET_IFNAME is kept" "grep -qx 'GLOO_SOCKET_IFNAME=mine' '$T/gloo3'"
(unset NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME; "$CLI" env --config "$T/lo.conf" 2>/dev/null) > "$T/gloo-env"
check "env: prints the GLOO_SOCKET_IFNAME export exec sets" "grep -qx \"export GLOO_SOCKET_IFNAME='lo'\" '$T/gloo-env'"

"$CLI" env --config "$T/bad.conf" >/dev/null 2>&1
check "env: invalid mapping exit 1" "[ $? -eq 1 ]"
"$CLI" env --bogus >/dev/null 2>&1
check "env: unknown option exit 2" "[ $? -eq 2 ]"

# Usage errors say what is wrong, not only the usage text.
usage_says() {   # usage_says WANTED_FIRST_LINE ARGS...
  local want=$1; shift
  "$CLI" "$@" >/dev/null 2>"$T/uerr"
  local rc=$? got
  got=$(head -1 "$T/uerr")
  if [ $rc -eq 2 ] && [ "$got" = "$want" ]; then echo "ok   usage error says what is wrong: $*"
  else echo "FAIL usage error for $*: exit $rc, first line '$got'"; fails=$((fails + 1)); fi
}
usage_says "nccl-numa exec: no COMMAND after --" exec --config "$CFG" --
usage_says "nccl-numa exec: no COMMAND to run" exec --config "$CFG"
usage_says "nccl-numa env: '--config' needs a value" env --config
usage_says "nccl-numa env: unknown option '--bogus'" env --bogus
usage_says "nccl-numa env: unexpected argument 'extra'" env extra
# The mapping is found as the plugin finds it; a bad NCCL_TUNER_CONFIG_FILE stops exec, naming it.
printf 'allreduce,0,10,bogus,simple,2,1,-1\n' > "$T/bad.csv"
NCCL_TUNER_CONFIG_FILE=$T/bad.csv "$CLI" exec --config "$CFG" -- touch "$T/ran2" 2>"$T/err"
check "exec: bad NCCL_TUNER_CONFIG_FILE refused, named with its line" \
  "[ $? -eq 1 ] && [ ! -e '$T/ran2' ] && grep -q '^$T/bad.csv:1: unknown algorithm' '$T/err'"

nn_finish "all exec/env checks passed"
