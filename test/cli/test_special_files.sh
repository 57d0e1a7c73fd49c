#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every file the CLI reads is opened without blocking and must be a regular file under a
# size cap before any library reads it: a FIFO used to hang discover (inside hwloc's
# loader) and HWLOC_XMLFILE, /dev/zero grew discover's memory by ~1 GB/s, and a missing
# HWLOC_XMLFILE silently read the live machine instead. Each refusal is exit 1 with a
# message naming the file; every command runs under `timeout` so a hang fails.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-special
T=$tmp
L=10
mkfifo "$T/fifo"
truncate -s 65M "$T/huge.xml"

refused() {   # refused WHAT MESSAGE ARGS...: exit 1 within L seconds, MESSAGE on stderr
  local what=$1 msg=$2
  shift 2
  nn_run $L "$@"
  if [ "$rc" -eq 124 ]; then fail "$what: hung (killed after $L s)"; return; fi
  expect_rc 1 "$what"
  expect_err_has "$what: said why" "$msg"
}

refused "discover --xml FIFO" "$T/fifo: cannot open: a FIFO, not a regular file: refused" discover --xml "$T/fifo"
refused "discover --xml /dev/zero" "/dev/zero: cannot open: a character device, not a regular file: refused" discover --xml /dev/zero
refused "discover --xml oversized" "$T/huge.xml: file is 68157440 bytes, over the 64 MiB limit: refused" discover --xml "$T/huge.xml"
refused "discover --xml missing" "$T/none.xml: cannot open: No such file or directory" discover --xml "$T/none.xml"
export HWLOC_XMLFILE
for f in "$T/fifo" /dev/zero "$T/huge.xml" "$T/none.xml"; do
  HWLOC_XMLFILE=$f
  refused "HWLOC_XMLFILE=$f" "HWLOC_XMLFILE: $f: " discover
done
chmod 000 "$T/huge.xml"
HWLOC_XMLFILE=$T/huge.xml
if [ "$(id -u)" -ne 0 ]; then refused "HWLOC_XMLFILE unreadable" "HWLOC_XMLFILE: $T/huge.xml: cannot open: Permission denied" discover; fi
unset HWLOC_XMLFILE

printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\ncpu vendor=GenuineIntel\n' >"$T/intel.conf"
nn_run $L topo --config "$T/intel.conf" --cpuinfo "$T/fifo"
check "topo --cpuinfo FIFO: no hang" "[ $rc -ne 124 ]"
refused "proxmox-numa --vm FIFO" "$T/fifo: cannot open: a FIFO, not a regular file: refused" proxmox-numa --vm "$T/fifo"
refused "discover --proxmox-vm FIFO" "$T/fifo: cannot open: a FIFO, not a regular file: refused" discover --proxmox-vm "$T/fifo"
refused "discover --guest --host-map FIFO" "$T/fifo: cannot open: a FIFO, not a regular file" discover --guest --host-map "$T/fifo"
refused "topo --validate /dev/zero" "/dev/zero: cannot open: a character device, not a regular file: refused" topo --validate /dev/zero
refused "check-config of a FIFO" "$T/fifo: cannot open: a FIFO, not a regular file" check-config "$T/fifo"

nn_finish "special files refused without hanging"
