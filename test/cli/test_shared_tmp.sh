#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What another local user can prepare in a shared sticky /tmp before root's job starts,
# through the built plugin in nn_plugin_lines (a stand-in for NCCL's plugin loading: env
# v2, NCCL_TOPO_FILE looked up, tuner v6 init, which writes NCCL_NUMA_LOG_FILE). The other
# user is uid 65534 (setpriv). Each attack was reproduced on the code before: a squatted
# $TMPDIR/nccl-numa-0 made root's plugin serve no topology; root appended its record to
# the other user's 0666 file and to a FIFO that user read; a directory the other user
# replaced by a link to a root-only directory made root create the log file inside it.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
host=${NN_BUILD:-build}/tools/nn_plugin_lines
nn_need_built "$host"
[ "$(id -u)" -eq 0 ] || nn_skip "the attacks need root and a second user (uid 65534)"
command -v setpriv >/dev/null || nn_skip "setpriv not installed"
nn_tmp nn-shared
T=$tmp
chmod 0755 "$T"
mkdir -m 1777 "$T/tmp"
mkdir -m 0700 "$T/root" "$T/mine"
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
printf 'cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-15\nnuma 1 cpus=16-31\n%s\ntopology mode=numa\n%s\n' \
  "$(printf 'gpu %d bus=0%d:00.0 numa=%d\n' 0 1 1 1 2 1 2 3 0 3 4 0)" \
  'rule coll=allreduce bytes=0-64K algo=ring proto=ll' >"$T/m.conf"

host_run() {   # host_run LOGFILE: the host as root, TMPDIR the shared directory, no XDG_RUNTIME_DIR
  env -u NCCL_TOPO_FILE -u XDG_RUNTIME_DIR TMPDIR="$T/tmp" NCCL_NUMA_CONFIG="$T/m.conf" \
    NCCL_NUMA_LOG_FILE="$1" timeout 20 "$host" "$SO" 4 1 >"$T/out" 2>&1
  rc=$?
}

# 1. The private directory squatted: served from a fresh directory, said once, nothing left.
nobody mkdir "$T/tmp/nccl-numa-0"
check "squat: the directory is uid 65534's" "[ \$(stat -c %u '$T/tmp/nccl-numa-0') -eq 65534 ]"
host_run "$T/mine/records.json"
check "squat: the host lives" "[ $rc -eq 0 ]"
check "squat: the topology is still served" "grep -q 'NCCL_TOPO_FILE set by environment to /proc/self/fd/' '$T/out'"
check "squat: one WARN names the refused directory and the fallback" \
  "[ \$(grep -c 'NCCL WARN nccl-numa: $T/tmp/nccl-numa-0: owned by uid 65534, not by uid 0: refused; .*fresh unguessable directory' '$T/out') -eq 1 ] && [ \$(grep 'NCCL WARN' '$T/out' | grep -vc \"NCCL's model rates worse\") -eq 1 ]"
check "squat: nothing left in the shared directory but the squatter's" "[ \"\$(ls -A '$T/tmp')\" = nccl-numa-0 ]"
check "fresh log file: created 0600, owned by root" "[ \"\$(stat -c '%a %u' '$T/mine/records.json')\" = '600 0' ]"
check "fresh log file: one whole JSON record" \
  "python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r)==1 and r[0][\"nRanks\"]==4' '$T/mine/records.json'"

# 2. The log file made first by the other user, 0666, in the sticky directory.
nobody sh -c "umask 0; : >'$T/tmp/nccl-numa.json'"
check "shared log: the file is uid 65534's, 0666" "[ \"\$(stat -c '%a %u' '$T/tmp/nccl-numa.json')\" = '666 65534' ]"
host_run "$T/tmp/nccl-numa.json"
check "shared log: the host lives" "[ $rc -eq 0 ]"
check "shared log: WARN, refused" \
  "grep -q 'NCCL WARN nccl-numa: JSON record for comm .* not written: cannot append to NCCL_NUMA_LOG_FILE $T/tmp/nccl-numa.json: owned by uid 65534, not by uid 0: refused' '$T/out'"
check "shared log: no record" "[ \$(stat -c %s '$T/tmp/nccl-numa.json') -eq 0 ]"

# 3. A FIFO with a reader (the other user's cat): refused without being opened, no hang.
nobody mkfifo -m 0666 "$T/tmp/fifo.json"
nobody sh -c "cat '$T/tmp/fifo.json' >'$T/tmp/got'" &
reader=$!
host_run "$T/tmp/fifo.json"
check "FIFO: the host lives, not blocked" "[ $rc -eq 0 ]"
check "FIFO: WARN, refused" "grep -q 'fifo.json: a FIFO, not a regular file: refused' '$T/out'"
exec 3>"$T/tmp/fifo.json"; exec 3>&-   # let the reader finish
wait "$reader"
check "FIFO: the reader got nothing" "[ ! -s '$T/tmp/got' ]"

# 4. A directory on the path that the other user made a link to root's own directory.
nobody ln -s "$T/root" "$T/tmp/logs"
host_run "$T/tmp/logs/records.json"
check "linked parent: the host lives" "[ $rc -eq 0 ]"
check "linked parent: WARN names the link" \
  "grep -q 'NCCL_NUMA_LOG_FILE $T/tmp/logs/records.json: $T/tmp/logs is a symbolic link: refused' '$T/out'"
check "linked parent: nothing created behind the link" "[ -z \"\$(ls -A '$T/root')\" ]"
nn_finish "a shared /tmp: the topology still served, the log file never another user's"
