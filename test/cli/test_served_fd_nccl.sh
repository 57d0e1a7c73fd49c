#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# NCCL's own XML loader reads the name the env plugin serves, /proc/self/fd/N of a
# descriptor the plugin keeps: NCCL opens NCCL_TOPO_FILE with fopen (graph/xml.cc,
# ncclTopoGetXmlFromFile), once per rank, and each open must start at the top of the
# file even after the name in the private directory was swapped. Runs NCCL's code built
# for the CPU (nccl-oracle, reference material); skipped when it is absent.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
ob=$build_dir/nccl-oracle
oracle=${NCCL_ORACLE:-$(ls "$ob/oracle-2.28.9" "$ob/oracle-2.30.7" 2>/dev/null | head -n1)}
[ -n "$oracle" ] && [ -x "$oracle" ] || nn_skip "no nccl-oracle (NCCL's own XML loader built for the CPU from an NCCL source tree: tools/nccl-oracle/build.sh, its README; or set NCCL_ORACLE to its binary)"
nn_tmp nn-served-fd
T=$tmp
printf 'cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-15\nnuma 1 cpus=16-31\n%s\ntopology mode=numa\n' \
  "$(printf 'gpu %d bus=0%d:00.0 numa=%d\n' 0 1 1 1 2 1 2 3 0 3 4 0)" >"$T/m.conf"
"$CLI" topo --config "$T/m.conf" -o "$T/topo.xml" 2>/dev/null || { echo "FAIL: topo"; exit 1; }
timeout 60 "$oracle" --sm 90 --kv "$T/topo.xml" >"$T/by-name" 2>&1
check "NCCL reads the file by name (4 ranks, ring found)" "grep -q 'ranks=4 .*ring.failed=0' '$T/by-name'"
exec 9<"$T/topo.xml"
mv "$T/topo.xml" "$T/moved.xml"
printf '<system version="2">broken' >"$T/topo.xml"   # the name now holds someone else's file
timeout 60 "$oracle" --sm 90 --kv /proc/self/fd/9 >"$T/by-fd" 2>&1
exec 9<&-
check "NCCL reads /proc/self/fd/N: the same topology, every rank from the top" "diff '$T/by-name' '$T/by-fd' >/dev/null"
timeout 60 "$oracle" --sm 90 --kv "$T/topo.xml" >"$T/swapped" 2>&1
check "control: the swapped name gives NCCL something else" "! diff '$T/by-name' '$T/swapped' >/dev/null"
nn_finish "NCCL's loader reads the served descriptor"
