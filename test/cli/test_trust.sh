#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check-config, env and exec refuse a mapping (or an included CSV) that others than
# the user and root could have written, and exit 1; as uid 65534 (setpriv) a sticky directory
# protects each entry for its owner (a ConfigMap is read; another
# user's link there is not followed); NCCL_NUMA_ALLOW_UNTRUSTED=1 reads anyway and says so;
# an env line a mapping may not serve is an error of check-config and a note of env.
# (`check` is in test_check.sh, the plugin in test/unit/test_hostile.c and test_env_refused.c.)
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
nn_tmp nn-trust
chmod 0755 "$tmp"
unset NCCL_NUMA_CONFIG NCCL_TUNER_CONFIG_FILE NCCL_NUMA_ALLOW_UNTRUSTED
# good.conf ends in numa lines: without them check-config warns where this sysfs has one node
map='gpu 0 bus=0000:01:00.0 numa=0\ngpu 1 bus=0000:02:00.0 numa=1\nenv NCCL_SOCKET_IFNAME=lo\n'

printf "${map}numa 0 cpus=0-3\nnuma 1 cpus=4-7\n" >"$tmp/good.conf"
nn_run 10 check-config "$tmp/good.conf"
expect "good mapping" 0 "$tmp/good.conf: ok (2 GPUs on 2 NUMA nodes, 0 rules, 1 env)"

# refused COMMAND... -- WHY: exit 1 and the reason on stderr.
refused() {
  local name=$1 why=$2
  shift 2
  nn_run 10 "$@"
  if [ "$rc" -eq 1 ] && grep -qF -- "$why" "$tmp/err"; then echo "ok $name"
  else fail "$name: exit $rc, wanted 1 with '$why' (stdout: $out; stderr: $err)"; fi
}

cp "$tmp/good.conf" "$tmp/open.conf" && chmod 0666 "$tmp/open.conf"
why="$tmp/open.conf: not trusted: writable by group and others (mode 0666)"
refused "check-config: mode 0666" "$why" check-config "$tmp/open.conf"
refused "env: mode 0666" "$why" env --config "$tmp/open.conf"
[ -z "$out" ] || fail "env printed export lines for an untrusted mapping: $out"
nn_run 10 exec --config "$tmp/open.conf" -- touch "$tmp/ran"
[ "$rc" -eq 1 ] && [ ! -e "$tmp/ran" ] && grep -qF -- "$why" "$tmp/err" && echo "ok exec: mode 0666, not run" \
  || fail "exec ran with an untrusted mapping (exit $rc): $err"

# An env value outside its name's grammar: 3000 x 'A' as NCCL_SOCKET_IFNAME smashed the stack
# of NCCL 2.28.9 (parseStringList); check-config names file, line, name and rule.
{ printf 'gpu 0 bus=0000:01:00.0 numa=0\nenv NCCL_SOCKET_IFNAME='; head -c 3000 /dev/zero | tr '\0' A
  printf '\nenv NCCL_IB_TC=0x10\nnuma 0 cpus=0-3\n'; } >"$tmp/values.conf"
nn_run 10 check-config "$tmp/values.conf"
expect_rc 1 "check-config: env values outside their grammar"
grep -qF "$tmp/values.conf:2: env: NCCL_SOCKET_IFNAME='AAAAAAAA" "$tmp/err" &&
  grep -qF "refused, not served: the value is longer than 255 bytes; NCCL_SOCKET_IFNAME takes [^][=]NAME[:PORT],... with at most 16 entries, each NAME 1 to 63 of" "$tmp/err" &&
  echo "ok check-config: 3000 x A NCCL_SOCKET_IFNAME refused" || fail "3000 x A: $err"
expect_err_line "$tmp/values.conf:3: env: NCCL_IB_TC='0x10' refused, not served: NCCL_IB_TC takes decimal digits, 0 to 255" "NCCL_IB_TC"
expect_err_line "$tmp/values.conf: invalid (2 env lines refused; the plugin would apply the rest: 1 GPU, 0 rules, 0 env)" "values summary"
[ "$(wc -c <"$tmp/err")" -lt 2000 ] || fail "check-config quoted the 3000-byte value whole"


if [ "$(id -u)" -ne 0 ]; then
  nn_finish "passed (the cases of another user skipped: not root)"
fi

cp "$tmp/good.conf" "$tmp/nobody.conf" && chown 65534:65534 "$tmp/nobody.conf"
refused "check-config: uid 65534's mapping used by root" \
  "$tmp/nobody.conf: not trusted: owned by uid 65534 (only root may own it)" check-config "$tmp/nobody.conf"
ln -s "$tmp/nobody.conf" "$tmp/link.conf"
# (exec names the mapping by its resolved path, which it also hands to the plugin)
refused "exec: a link to uid 65534's mapping" "$tmp/nobody.conf: not trusted: owned by uid 65534" \
  exec --config "$tmp/link.conf" -- true

mkdir -m 0775 "$tmp/group" && printf "$map" >"$tmp/group/m.conf"
refused "check-config: a group-writable directory" \
  "not trusted: directory $tmp/group is writable by group (mode 0775)" check-config "$tmp/group/m.conf"

printf 'allreduce,0,65536,ring,simple,-1,-1,-1\n' >"$tmp/r.csv" && chmod 0666 "$tmp/r.csv"
printf "${map}include-csv r.csv\n" >"$tmp/inc.conf"
refused "check-config: an included CSV of mode 0666" \
  "$tmp/inc.conf:4: include-csv: $tmp/r.csv: not trusted: writable by group and others (mode 0666)" \
  check-config "$tmp/inc.conf"

# A sticky world-writable directory, as /tmp: another user's file there is refused for root;
# a file lying directly in it is refused to everyone, since anyone who can write there can
# rename a file of root's into it; uid 65534's own sticky directory holds its file.
mkdir -m 1777 "$tmp/sticky"
printf "$map" >"$tmp/sticky/theirs.conf" && chown 65534:65534 "$tmp/sticky/theirs.conf"
printf "$map" >"$tmp/sticky/roots.conf"
refused "check-config: uid 65534's file in a sticky directory, used by root" \
  "not trusted: owned by uid 65534" check-config "$tmp/sticky/theirs.conf"
refused "check-config: root's file lying in a sticky directory, used by root" \
  "not trusted: lies in directory $tmp/sticky, which others can write, so another user may have put it there" \
  check-config "$tmp/sticky/roots.conf"
if command -v setpriv >/dev/null; then
  as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
  as_nobody "$cli" check-config "$tmp/sticky/roots.conf" >"$tmp/out" 2>"$tmp/err"
  [ $? -ne 0 ] && grep -qF "which others can write, so another user may have put it there" "$tmp/err" \
    && echo "ok as uid 65534: root's file lying in root's sticky directory is refused" \
    || fail "as 65534, root's file in a sticky directory: $(cat "$tmp/out" "$tmp/err")"
  mkdir -m 1777 "$tmp/sticky/own" && chown 65534:65534 "$tmp/sticky/own"
  as_nobody cp "$tmp/good.conf" "$tmp/sticky/own/m.conf"
  as_nobody "$cli" check-config "$tmp/sticky/own/m.conf" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && echo "ok as uid 65534: its own file in its own sticky directory" \
    || fail "as 65534, own file in own sticky directory: $(cat "$tmp/err")"
  # a Kubernetes ConfigMap volume: root 1777 directory, root's timestamped directory, ..data
  # and mapping.conf links (the plugin's side, served as uid 65534: test/unit/test_trust_volumes.c)
  cm=$tmp/configmap ts=..2026_12_03_10_00_00.123456789
  mkdir -m 1777 "$cm" && mkdir -m 0755 "$cm/$ts" && cp "$tmp/good.conf" "$cm/$ts/mapping.conf"
  ln -s "$ts" "$cm/..data" && ln -s ..data/mapping.conf "$cm/mapping.conf"
  as_nobody "$cli" check-config "$cm/mapping.conf" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && grep -qF "ok (2 GPUs on 2 NUMA nodes" "$tmp/out" && echo "ok as uid 65534: a ConfigMap's mapping" \
    || fail "as 65534, a ConfigMap's mapping: $(cat "$tmp/err")"
  # /tmp/x/: root's directory in the sticky one
  mkdir -m 0755 "$tmp/sticky/x" && cp "$tmp/good.conf" "$tmp/sticky/x/m.conf"
  as_nobody "$cli" check-config "$tmp/sticky/x/m.conf" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && echo "ok as uid 65534: root's mapping in root's directory in a sticky one" \
    || fail "as 65534, /tmp/x/m.conf: $(cat "$tmp/err")"
  # uid 65534's link in the sticky directory picks which of root's mappings root reads: refused
  as_nobody ln -s "$tmp/good.conf" "$tmp/sticky/pick.conf"
  refused "check-config: uid 65534's link in a sticky directory, used by root" \
    "not trusted: symbolic link $tmp/sticky/pick.conf is owned by uid 65534" check-config "$tmp/sticky/pick.conf"
else
  echo "skipped: the uid 65534 cases (no setpriv)"
fi

# The development opt-out: only "1", never quiet.
NCCL_NUMA_ALLOW_UNTRUSTED=yes nn_run 10 check-config "$tmp/open.conf"
expect_rc 1 "opt-out with a value other than 1"
NCCL_NUMA_ALLOW_UNTRUSTED=1 nn_run 10 check-config "$tmp/open.conf"
expect "opt-out reads the file" 0 "$tmp/open.conf: ok (2 GPUs on 2 NUMA nodes, 0 rules, 1 env)"
expect_err_line "$why; read anyway because NCCL_NUMA_ALLOW_UNTRUSTED=1 is set (for development only)" "opt-out said"
NCCL_NUMA_ALLOW_UNTRUSTED=1 nn_run 10 env --config "$tmp/open.conf"
expect_rc 0 "opt-out: env"
expect_err_has "opt-out: env says so" "read anyway because NCCL_NUMA_ALLOW_UNTRUSTED=1"

# env lines a mapping may not serve: errors of check-config, notes of env (the plugin serves the rest).
printf "${map}env NCCL_NET_PLUGIN=/tmp/evil.so\nenv NCCL_COMM_ID=203.0.113.7:5555\nenv NCCL_DEBUG_FILE=/etc/ld.so.preload\nenv NCCL_TOPO_DUMP_FILE=/etc/ld.so.preload\n" \
  >"$tmp/env.conf"
nn_run 10 check-config "$tmp/env.conf"
expect_rc 1 "check-config: refused env lines"
expect_err_line "$tmp/env.conf:4: env: NCCL_NET_PLUGIN refused, not served: it names a library for NCCL to load" "NCCL_NET_PLUGIN"
expect_err_line "$tmp/env.conf:5: env: NCCL_COMM_ID refused, not served: it names the peer NCCL's bootstrap connects to" "NCCL_COMM_ID"
expect_err_line "$tmp/env.conf:6: env: NCCL_DEBUG_FILE refused, not served: it names a file for NCCL to read or write" "NCCL_DEBUG_FILE"
expect_err_line "$tmp/env.conf:7: env: NCCL_TOPO_DUMP_FILE refused, not served: it names a file for NCCL to read or write" "NCCL_TOPO_DUMP_FILE"
expect_err_line "$tmp/env.conf: invalid (4 env lines refused; the plugin would apply the rest: 2 GPUs, 0 rules, 1 env)" "summary"
nn_run 10 env --config "$tmp/env.conf"
expect_rc 0 "env: refused lines do not stop it"
expect_err_line "$tmp/env.conf:4: env: NCCL_NET_PLUGIN refused, not served: it names a library for NCCL to load" "env notes"
grep -q "^export NCCL_NUMA_CONFIG='$tmp/env.conf'$" "$tmp/out" && echo "ok env: export lines" || fail "env: $out"

nn_finish "all passed" failed
